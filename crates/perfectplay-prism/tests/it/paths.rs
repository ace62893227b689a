//! The path operators checked through another: `G φ` as `1 - F ¬φ` (and `G<=k`), `ψ W φ` and
//! `ψ R φ` as one minus an until, `X φ` as a game of one step; and step bounds of every form
//! (`<=k`, `<k`, `>=k`, `>k`, `=k`, `[a,b]`) on F, U, G, W and R. Values worked out by hand, and
//! random MDPs against value iteration written here for each operator, float and exact.

use crate::common::mdp::{mdp, Mdp};
use perfectplay_prism::{analysis_model, check_prop, Loaded, Props};
use proptest::prelude::*;

fn answer(
    src: &str,
    prop: &str,
    exact: bool,
) -> Result<(f64, Option<String>, Option<bool>), String> {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).map_err(|e| e.to_string())?;
    let props = Props::new(&loaded.program, "p", prop, &[]).map_err(|e| e.to_string())?;
    check_prop(&loaded, &props, &props.props[0], exact)
        .map(|a| (a.value, a.exact, a.holds))
        .map_err(|e| e.to_string())
}

/// A walk on 0..3 from 1: at each step to the left or the right (1/2 each, or 1/4 to the
/// right with the scheduler's `slow` move); 0 and 3 absorb.
const WALK: &str = "mdp
module m
  x : [0..3] init 1;
  [fast] x>0 & x<3 -> 1/2 : (x'=x-1) + 1/2 : (x'=x+1);
  [slow] x>0 & x<3 -> 3/4 : (x'=x-1) + 1/4 : (x'=x+1);
endmodule
";

#[test]
fn operators_worked_out_by_hand() {
    let exact = |prop: &str| answer(WALK, prop, true).unwrap().1.unwrap();
    // Never at 3: 1 - Pmax(F x=3); fast gives 1/3 of reaching 3 from 1, slow 1/13 at the
    // least (r = 1/4 (r2), r2 = 3/4 r + 1/4: r = 1/13).
    assert_eq!(exact("Pmin=? [ G x!=3 ]"), "2/3");
    assert_eq!(exact("Pmax=? [ G x!=3 ]"), "12/13");
    // Within two steps: at 3 only by going right twice (1/4 fast, 1/16 slow).
    assert_eq!(exact("Pmin=? [ G<=2 x!=3 ]"), "3/4");
    assert_eq!(exact("Pmax=? [ G<3 x!=3 ]"), "15/16");
    // x≥1 weakly until x=3: fails only at 0, so 1 - P(F x=0 before 3) = P(F x=3).
    assert_eq!(exact("Pmax=? [ x>=1 W x=3 ]"), "1/3");
    assert_eq!(exact("Pmin=? [ x>=1 W x=3 ]"), "1/13");
    // x<3 released by x=0: x stays below 3 until (and at) 0, or for ever: P(F x=0 first).
    assert_eq!(exact("Pmax=? [ x=0 R x<3 ]"), "12/13");
    // The next state: 2 with 1/2 (fast) or 1/4 (slow); at the start itself x=1 does not
    // count.
    assert_eq!(exact("Pmax=? [ X x=2 ]"), "1/2");
    assert_eq!(exact("Pmin=? [ X x=2 ]"), "1/4");
    assert_eq!(exact("Pmax=? [ X x=1 ]"), "0");
    // Bounds, for every scheduler: G x!=3 is at least 2/3 whatever it does.
    let holds = |prop: &str| answer(WALK, prop, false).unwrap().2.unwrap();
    assert!(holds("P>=0.6 [ G x!=3 ]"));
    assert!(!holds("P>=0.7 [ G x!=3 ]"));
    assert!(holds("P<0.95 [ G x!=3 ]"));
    assert!(!holds("P<0.9 [ G x!=3 ]"));
    // The same on a DTMC (the commands mixed uniformly) and in a game (the coalition as
    // the scheduler maximising).
    let dtmc = WALK.replace("mdp", "dtmc");
    assert!(answer(&dtmc, "P=? [ G x!=3 ]", true).is_ok());
    let game = WALK
        .replace("mdp", "smg\nplayer p1 m endplayer")
        .replace("[fast]", "[]")
        .replace("[slow]", "[]");
    assert_eq!(
        answer(&game, "<<p1>> Pmax=? [ G x!=3 ]", true)
            .unwrap()
            .1
            .as_deref(),
        Some("12/13")
    );
    // Step intervals, on the walk with the fast move alone (0 and 3 absorb): at 0 within
    // steps 2 to 4 with 1/2 + 1/8 (0 at the first step stays); at 1 at step 2 exactly, not at
    // the start, 1/4; 3 at steps 2 or 3 through x>0, 1/4; never at 0 over steps 1 to 3, 3/8.
    let fast = WALK.replace(
        "  [slow] x>0 & x<3 -> 3/4 : (x'=x-1) + 1/4 : (x'=x+1);\n",
        "",
    );
    let interval = |prop: &str| answer(&fast, prop, true).unwrap().1.unwrap();
    assert_eq!(interval("Pmax=? [ F[2,4] x=0 ]"), "5/8");
    assert_eq!(interval("Pmax=? [ F[2,2] x=1 ]"), "1/4");
    assert_eq!(interval("Pmax=? [ F<=2 x=1 ]"), "1");
    assert_eq!(interval("Pmax=? [ x>0 U[2,3] x=3 ]"), "1/4");
    assert_eq!(interval("Pmin=? [ G[1,3] x!=0 ]"), "3/8");
    let e = answer(&fast, "Pmax=? [ F[3,2] x=0 ]", false).unwrap_err();
    assert!(e.contains("starts after it ends"), "{e}");
    // Over several initial states: the greatest G is one minus the least F.
    let two = WALK
        .replace("x : [0..3] init 1;", "x : [0..3];")
        .replace("endmodule", "endmodule\ninit x=1 | x=2 endinit");
    let filtered = |op: &str| {
        answer(
            &two,
            &format!("filter({op}, Pmax=? [ G x!=3 ], \"init\")"),
            true,
        )
        .unwrap()
        .1
        .unwrap()
    };
    // From 2 the scheduler avoids 3 with 1 - 1/4 - 3/4·(1/13) = 9/13 at best (slow).
    assert_eq!(filtered("max"), "12/13");
    assert_eq!(filtered("min"), "9/13");
    assert_eq!(filtered("avg"), "21/26");
    // Rewards take none of them; explain names the query to ask instead.
    let e = answer(WALK, "Rmax=? [ G x!=3 ]", false).unwrap_err();
    assert!(e.contains("reward query takes"), "{e}");
    let loaded = Loaded::new("m.prism", WALK, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "Pmax=? [ G x!=3 ]", &[]).unwrap();
    let Err(e) = analysis_model(&loaded, &props, &props.props[0], false) else {
        panic!("explain of G");
    };
    // (`!` binds more loosely than `!=` in PRISM; its operand is printed in parentheses.)
    assert!(e.to_string().contains("(Pmin=? [ F !(x != 3) ])"), "{e}");
}

impl Mdp {
    /// The greatest fixed point of `v(x) = stop(x)` where decided, else the best move's
    /// average: value iteration from one, which converges to it from above.
    fn safety(&self, maximise: bool, decided: impl Fn(usize) -> Option<f64>) -> f64 {
        let n = self.moves.len();
        let mut v = vec![1.0f64; n];
        for _ in 0..200_000 {
            let mut change = 0.0f64;
            for x in 0..n {
                let new = match decided(x) {
                    Some(d) => d,
                    None => {
                        let q = |m: usize| -> f64 {
                            self.moves[x][m]
                                .iter()
                                .map(|&(w, t)| w as f64 / 4.0 * v[t])
                                .sum()
                        };
                        if maximise {
                            q(0).max(q(1))
                        } else {
                            q(0).min(q(1))
                        }
                    }
                };
                change = change.max((new - v[x]).abs());
                v[x] = new;
            }
            if change < 1e-15 {
                break;
            }
        }
        v[0]
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// G, W, R and X against value iteration for each, maximal and minimal, in floats and
    /// exactly.
    #[test]
    fn random_mdps_agree_with_value_iteration(m in mdp()) {
        let src = m.prism();
        for maximise in [true, false] {
            let opt = if maximise { "max" } else { "min" };
            let (phi, psi) = (&m.phi, &m.psi);
            let cases: [(String, f64); 4] = [
                (format!("P{opt}=? [ G \"phi\" ]"), m.safety(maximise, |x| (!phi[x]).then_some(0.0))),
                (
                    format!("P{opt}=? [ \"psi\" W \"phi\" ]"),
                    m.safety(maximise, |x| if phi[x] { Some(1.0) } else if !psi[x] { Some(0.0) } else { None }),
                ),
                (
                    format!("P{opt}=? [ \"psi\" R \"phi\" ]"),
                    m.safety(maximise, |x| if !phi[x] { Some(0.0) } else if psi[x] { Some(1.0) } else { None }),
                ),
                (format!("P{opt}=? [ X \"phi\" ]"), {
                    let q = |i: usize| -> f64 {
                        m.moves[0][i].iter().map(|&(w, t)| if phi[t] { w as f64 / 4.0 } else { 0.0 }).sum()
                    };
                    if maximise { q(0).max(q(1)) } else { q(0).min(q(1)) }
                }),
            ];
            for (prop, want) in cases {
                let (v, ..) = answer(&src, &prop, false).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                prop_assert!((v - want).abs() <= 1e-9, "{prop}: {v} vs {want}\n{src}");
                let (x, q, _) = answer(&src, &prop, true).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                prop_assert!((x - want).abs() <= 1e-9 && q.is_some(), "{prop}: {q:?} vs {want}\n{src}");
            }
        }
    }
}

/// Lower and exact step bounds, and bounds on `W` and `R`, on the walk with the fast move and
/// the slow one (0 and 3 absorb), worked out by hand.
#[test]
fn lower_and_exact_step_bounds_worked_out_by_hand() {
    let exact = |src: &str, prop: &str| answer(src, prop, true).unwrap().1.unwrap();
    let fast = WALK.replace(
        "  [slow] x>0 & x<3 -> 3/4 : (x'=x-1) + 1/4 : (x'=x+1);\n",
        "",
    );
    // At 1 exactly at step 2 (1 → 2 → 1 or 1 → 0 stays): 1/4; at 0 at step 2: 1/2 + 1/4·0.
    assert_eq!(exact(&fast, "Pmax=? [ F=2 x=1 ]"), "1/4");
    assert_eq!(exact(&fast, "Pmax=? [ F=2 x=0 ]"), "1/2");
    // At 1 from step 2 on: at step 2 with 1/4 (1 → 2 → 1), and never later (at step 2 the
    // walk is at 0, 1 or 3). From step 1 on: at 2 then 1, 1/4 again.
    assert_eq!(exact(&fast, "Pmax=? [ F>=2 x=1 ]"), "1/4");
    assert_eq!(exact(&fast, "Pmax=? [ F>1 x=1 ]"), "1/4");
    assert_eq!(exact(&fast, "Pmax=? [ F>=1 x=1 ]"), "1/4");
    // x>0 at every step before: 0 absorbs, so through x>0 to 3 from step 2 on is reaching 3
    // at all (1/3); at step 2 exactly 1/4, and at step 3 the same paths, 3 absorbing.
    assert_eq!(exact(&fast, "Pmax=? [ x>0 U>=2 x=3 ]"), "1/3");
    assert_eq!(exact(&fast, "Pmax=? [ x>0 U=2 x=3 ]"), "1/4");
    assert_eq!(exact(&fast, "Pmax=? [ x>0 U=3 x=3 ]"), "1/4");
    // Never at 1 from step 2 on, and >=0 is no bound.
    assert_eq!(exact(&fast, "Pmin=? [ G>=2 x!=1 ]"), "3/4");
    assert_eq!(exact(&fast, "Pmin=? [ G>=0 x!=3 ]"), "2/3");
    assert_eq!(exact(&fast, "Pmin=? [ F>=0 x=3 ]"), "1/3");
    // With the scheduler: at 1 at step 2 by going right, then left, fast then slow at best
    // (1/2 · 3/4), slow then fast at worst (1/4 · 1/2); so never at 1 from step 2 on with
    // 1 - 3/8 at the least.
    assert_eq!(exact(WALK, "Pmax=? [ F=2 x=1 ]"), "3/8");
    assert_eq!(exact(WALK, "Pmin=? [ F=2 x=1 ]"), "1/8");
    assert_eq!(exact(WALK, "Pmin=? [ G>=2 x!=1 ]"), "5/8");
    assert_eq!(exact(WALK, "Pmax=? [ F>=3 x=3 ]"), "1/3");
    // W and R with bounds, as PRISM defines them: ¬(¬φ U~k (¬φ∧¬ψ)), ¬(¬ψ U~k ¬φ). Never
    // at 0 over the first two steps: 1 - 1/2 with fast, 1 - 3/4 with slow.
    assert_eq!(exact(WALK, "Pmax=? [ x>0 W<=2 x=3 ]"), "1/2");
    assert_eq!(exact(WALK, "Pmin=? [ x>0 W<=2 x=3 ]"), "1/4");
    // x<3 up to and including the first step at 0: within one step it holds at once; from
    // step 1 on it fails only if 3 is reached (through x!=0), 1/13 at the least.
    assert_eq!(exact(WALK, "Pmax=? [ x=0 R<=1 x<3 ]"), "1");
    assert_eq!(exact(WALK, "Pmax=? [ x=0 R>=1 x<3 ]"), "12/13");
    assert_eq!(exact(&fast, "Pmax=? [ x=0 R>=1 x<3 ]"), "2/3");
    // The bound as written comes back in the answer's text.
    let loaded = Loaded::new("m.prism", WALK, &[], 100).unwrap();
    for (text, bound) in [
        ("Pmax=? [ F=2 x=1 ]", "F=2 "),
        ("Pmax=? [ F>1 x=1 ]", "F>1 "),
        ("Pmin=? [ x>0 W>=2 x=3 ]", "W>=2 "),
        ("Pmin=? [ x>0 R[1,2] x=3 ]", "R[1,2] "),
    ] {
        let props = Props::new(&loaded.program, "p", text, &[]).unwrap();
        assert!(
            props.props[0].text.contains(bound),
            "{}",
            props.props[0].text
        );
    }
}

/// `ψ U>=k φ` of `m` from every position, optimised as `maximise` says: `ψ U φ` (the least
/// fixed point, from zero), then `k` steps back through ψ.
fn until_from_step(m: &Mdp, maximise: bool, k: usize) -> Vec<f64> {
    let (phi, psi) = (&m.phi, &m.psi);
    let best = |q: &dyn Fn(usize) -> f64| match maximise {
        true => q(0).max(q(1)),
        false => q(0).min(q(1)),
    };
    let until = m.iterate(vec![0.0; m.moves.len()], None, |x, q| {
        if phi[x] {
            1.0
        } else if psi[x] {
            best(q)
        } else {
            0.0
        }
    });
    m.iterate(until, Some(k), |x, q| if psi[x] { best(q) } else { 0.0 })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// `ψ U>=k φ`, `F=k φ`, `G>=k φ`, `ψ W<=k φ` and `ψ R<=k φ` against value iteration and
    /// backward induction written here from the definitions, maximal and minimal, in floats
    /// and exactly.
    #[test]
    fn random_mdps_agree_on_step_bounds(m in mdp(), k in 0usize..4) {
        let src = m.prism();
        let (phi, psi) = (&m.phi, &m.psi);
        let n = m.moves.len();
        for maximise in [true, false] {
            let opt = if maximise { "max" } else { "min" };
            let best = |q: &dyn Fn(usize) -> f64| if maximise { q(0).max(q(1)) } else { q(0).min(q(1)) };
            let lower = until_from_step(&m, maximise, k);
            // φ at step k exactly.
            let at = m.iterate(phi.iter().map(|&p| p as u8 as f64).collect(), Some(k), |_, q| best(q));
            // φ for ever (the greatest fixed point, from one), then k free steps back.
            let safe = m.iterate(vec![1.0; n], None, |x, q| if phi[x] { best(q) } else { 0.0 });
            let late = m.iterate(safe, Some(k), |_, q| best(q));
            // ψ W φ over k steps: φ ends it well, ¬ψ badly, ψ or φ at the last step well.
            let last = |x: usize| (phi[x] || psi[x]) as u8 as f64;
            let weak = m.iterate((0..n).map(last).collect(), Some(k), |x, q| {
                if phi[x] { 1.0 } else if !psi[x] { 0.0 } else { best(q) }
            });
            // ψ R φ over k steps: ¬φ ends it badly, ψ (with φ) well, φ at the last step well.
            let release = m.iterate(phi.iter().map(|&p| p as u8 as f64).collect(), Some(k), |x, q| {
                if !phi[x] { 0.0 } else if psi[x] { 1.0 } else { best(q) }
            });
            let cases = [
                (format!("P{opt}=? [ \"psi\" U>={k} \"phi\" ]"), lower[0]),
                (format!("P{opt}=? [ F={k} \"phi\" ]"), at[0]),
                (format!("P{opt}=? [ G>={k} \"phi\" ]"), late[0]),
                (format!("P{opt}=? [ \"psi\" W<={k} \"phi\" ]"), weak[0]),
                (format!("P{opt}=? [ \"psi\" R<={k} \"phi\" ]"), release[0]),
            ];
            for (prop, want) in cases {
                let (v, ..) = answer(&src, &prop, false).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                prop_assert!((v - want).abs() <= 1e-9, "{prop}: {v} vs {want}\n{src}");
                let (x, q, _) = answer(&src, &prop, true).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                prop_assert!((x - want).abs() <= 1e-9 && q.is_some(), "{prop}: {q:?} vs {want}\n{src}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// Lower step bounds far past the model's size: the float answer (backups over the space)
    /// within its error bound of the exact one (the product with the steps), and of the
    /// backward induction written here.
    #[test]
    fn long_lower_bounds_within_their_error_bound(m in mdp(), k in 5usize..300) {
        let src = m.prism();
        for maximise in [true, false] {
            let opt = if maximise { "max" } else { "min" };
            let lower = until_from_step(&m, maximise, k);
            let prop = format!("P{opt}=? [ \"psi\" U>={k} \"phi\" ]");
            let (float, bound) = answer_with_bound(&src, &prop)
                .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
            let (exact, ..) = answer(&src, &prop, true)
                .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
            // The exact fraction is rounded once to f64.
            prop_assert!((float - exact).abs() <= bound + exact * f64::EPSILON, "{prop}: {float} ± {bound} vs {exact}\n{src}");
            prop_assert!(bound < 1e-11, "{prop}: bound {bound}");
            prop_assert!((float - lower[0]).abs() <= 1e-9, "{prop}: {float} vs {}\n{src}", lower[0]);
        }
    }

    /// Upper and window step bounds and the reward ones, far past the model's size: the float
    /// answer (backups over the space) within its error bound of the exact one.
    #[test]
    fn long_step_bounds_within_their_error_bound(m in mdp(), k in 5usize..300) {
        let src = format!(
            "{}rewards\n  [a0] true : 1;\n  [a1] x>0 : 3/2;\n  x>0 : x;\nendrewards\n",
            m.prism()
        );
        for opt in ["max", "min"] {
            for prop in [
                format!("P{opt}=? [ \"psi\" U<={k} \"phi\" ]"),
                format!("P{opt}=? [ F[{},{k}] \"phi\" ]", k / 2),
                format!("P{opt}=? [ G<={k} \"psi\" ]"),
                format!("R{opt}=? [ C<={k} ]"),
                format!("R{opt}=? [ I={k} ]"),
            ] {
                let (float, bound) = answer_with_bound(&src, &prop)
                    .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                let (exact, ..) = answer(&src, &prop, true)
                    .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                prop_assert!((float - exact).abs() <= bound + exact.abs() * f64::EPSILON, "{prop}: {float} ± {bound} vs {exact}\n{src}");
                // The bound is rounding step by step, relative to the largest value a state
                // can have (a minimiser's errors come from the choices it avoids too): at most
                // 6.5 a step of reward (1 + 3/2 + x), a state reward of 4, a probability of 1.
                let largest = match &prop[..1] {
                    "R" if prop.contains("C<=") => 6.5 * k as f64,
                    "R" => 4.0,
                    _ => 1.0,
                };
                prop_assert!(bound <= 1e-13 * k as f64 * largest, "{prop}: bound {bound}");
            }
        }
    }
}

/// The float answer and its error bound.
fn answer_with_bound(src: &str, prop: &str) -> Result<(f64, f64), String> {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).map_err(|e| e.to_string())?;
    let props = Props::new(&loaded.program, "p", prop, &[]).map_err(|e| e.to_string())?;
    check_prop(&loaded, &props, &props.props[0], false)
        .map(|a| (a.value, a.error_bound))
        .map_err(|e| e.to_string())
}

/// Backups that provably do not round add nothing to the bound: where every value is a sum of
/// exact products (halves, certainties, values 0 and 1) the float answer is exact and its
/// bound is zero, also where a choice that rounds (tenths) is passed over, far from the best,
/// and after the values stop changing; where the chosen choice rounds, the bound is not zero.
#[test]
fn answers_exact_in_floats_have_a_zero_bound() {
    let src = "mdp
module m
  s : [0..3] init 0;
  [a] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);
  [b] s=0 -> (s'=3);
  [c] s=1 -> 0.3:(s'=0) + 0.7:(s'=3);
  [d] s=2 -> 0.5:(s'=3) + 0.25:(s'=2) + 0.25:(s'=0);
  [] s=3 -> true;
endmodule
";
    for (prop, want, exact_in_floats) in [
        ("Pmax=? [ F<=3 s=3 ]", 1.0, true),
        ("Pmin=? [ G<=300 s!=3 ]", 0.0, true),
        ("Pmax=? [ F<=100000 s=3 ]", 1.0, true),
        ("Pmax=? [ F<=1 s=1 ]", 0.5, true),
        ("Pmin=? [ F<=2 s=3 ]", 0.6, false),
    ] {
        let (value, bound) = answer_with_bound(src, prop).unwrap();
        assert!(
            (value - want).abs() <= bound.max(1e-15),
            "{prop}: {value} ± {bound}"
        );
        match exact_in_floats {
            true => assert_eq!((value, bound), (want, 0.0), "{prop}"),
            false => assert!(bound > 0.0 && bound < 1e-14, "{prop}: bound {bound}"),
        }
    }
}

/// A lower step bound of a hundred million steps on a chain of four states: in floats the
/// backups stop where the values settle (the chance to be at 1 from step k on fades, as 3
/// absorbs; on the chain where nothing absorbs it is 1), and the bound still counts every step.
#[test]
fn a_lower_bound_far_past_the_model_is_answered_in_floats() {
    let chain = |last: &str| {
        format!(
            "dtmc
module m
  x : [0..3] init 0;
  [] x=0 -> 1/2:(x'=1) + 1/2:(x'=2);
  [] x=1 -> 1/3:(x'=0) + 1/3:(x'=2) + 1/3:(x'=3);
  [] x=2 -> 1/4:(x'=0) + 3/4:(x'=1);
  [] x=3 -> {last};
endmodule
"
        )
    };
    let prop = "P=? [ F>=100000000 x=1 ]";
    let (v, bound) = answer_with_bound(&chain("true"), prop).unwrap();
    assert!(v <= bound && bound < 1e-12, "{v} ± {bound}");
    let (v, bound) = answer_with_bound(&chain("(x'=0)"), prop).unwrap();
    assert!(1.0 - v <= bound && bound < 1e-6, "{v} ± {bound}");
    // At 1 at step 10^6 exactly, where nothing absorbs: the chain's long-run share of 1,
    // 21/62 (the values settle long before; their errors do not, and the steps left are
    // bounded in one go).
    let (v, bound) = answer_with_bound(&chain("(x'=0)"), "P=? [ F=1000000 x=1 ]").unwrap();
    assert!(
        (v - 21.0 / 62.0).abs() <= bound && bound < 1e-8,
        "{v} ± {bound}"
    );
    // Exactly, the product with the steps is refused by its size.
    let err = answer(&chain("true"), prop, true).unwrap_err();
    assert!(err.contains("steps counted"), "{err}");
}

/// A bound without a direction holds where every scheduler meets it (PRISM); with one
/// (`Pmax>=b`, Storm's reading) where the scheduler that optimises that way does. On the walk
/// the chance to reach 3 is 1/3 with `fast` throughout, and 1/13 with `slow` throughout.
#[test]
fn a_bound_with_a_direction_asks_for_some_scheduler() {
    let holds = |prop: &str| answer(WALK, prop, false).unwrap().2.unwrap();
    assert!(!holds("P>=0.2 [ F x=3 ]"));
    assert!(holds("Pmax>=0.2 [ F x=3 ]"));
    assert!(!holds("Pmin>=0.2 [ F x=3 ]"));
    assert!(holds("P<=0.34 [ F x=3 ]"));
    assert!(holds("Pmin<=0.2 [ F x=3 ]"));
    assert!(!holds("P<=0.2 [ F x=3 ]"));
    // Through the dual: G is one minus F.
    assert!(holds("Pmax>=0.8 [ G x<3 ]"));
    assert!(!holds("P>=0.8 [ G x<3 ]"));
    // Nested: states from which some scheduler reaches 3 with at least 1/2.
    assert_eq!(
        answer(WALK, "filter(count, Pmax>=0.5 [ F x=3 ])", false)
            .unwrap()
            .0,
        2.0
    );
}

/// A path in parentheses or negated is the simple path formula PRISM reads there: `¬φ` has
/// one minus each scheduler's probability of `φ`, so min and max swap and a bound turns; on
/// the walk, 3 is reached with 1/3 at most and 1/13 at least.
#[test]
fn paths_in_parentheses_and_negated() {
    let exact = |prop: &str| answer(WALK, prop, true).unwrap().1.unwrap();
    assert_eq!(exact("Pmax=? [ (F x=3) ]"), "1/3");
    assert_eq!(exact("Pmax=? [ ((F x=3)) ]"), "1/3");
    assert_eq!(exact("Pmin=? [ !(F x=3) ]"), "2/3");
    assert_eq!(exact("Pmax=? [ !(F x=3) ]"), "12/13");
    assert_eq!(exact("Pmax=? [ !F x=3 ]"), "12/13");
    assert_eq!(exact("Pmax=? [ !!(F x=3) ]"), "1/3");
    assert_eq!(exact("Pmax=? [ !(!(F x=3)) ]"), "1/3");
    assert_eq!(exact("Pmin=? [ !(X x=2) ]"), "1/2");
    assert_eq!(exact("Pmax=? [ !(F<=2 x=3) ]"), "15/16");
    // A negation or parenthesis that opens the path's first state formula stays with it:
    // `!x=0 U x=3` is `(!x=0) U x=3`, which is F x=3 here (not 1 - P(x=0 U x=3) = 1).
    assert_eq!(exact("Pmax=? [ !x=0 U x=3 ]"), "1/3");
    assert_eq!(exact("Pmax=? [ (x>=1) U x=3 ]"), "1/3");
    assert_eq!(exact("Pmax=? [ !(x=0) U x=3 ]"), "1/3");
    assert_eq!(exact("Pmax=? [ (!(x=0)) U (x=3) ]"), "1/3");
    // Bounds for every scheduler: P(¬F) < 1/2 means P(F) > 1/2 throughout; P(¬F) <= 0.95
    // means P(F) >= 0.05, true as 1/13 > 0.05; with a direction, the scheduler that
    // maximises ¬F minimises F.
    let holds = |prop: &str| answer(WALK, prop, false).unwrap().2.unwrap();
    assert!(holds("P>=0.6 [ !(F x=3) ]"));
    assert!(!holds("P>=0.7 [ !(F x=3) ]"));
    assert!(!holds("P<0.5 [ !(F x=3) ]"));
    assert!(holds("P<=0.95 [ !(F x=3) ]"));
    assert!(!holds("P<=0.9 [ !(F x=3) ]"));
    assert!(holds("Pmax>=0.9 [ !(F x=3) ]"));
    assert!(!holds("Pmin>=0.7 [ !(F x=3) ]"));
    // For all paths and for some: ¬F x=3 holds on some path (to 0) and not on all.
    assert!(holds("E [ !(F x=3) ]"));
    assert!(!holds("A [ !(F x=3) ]"));
    assert!(holds("A [ !!(F x>=0) ]"));
    // What is no path: a reward's path negated, and parentheses left open.
    let err = answer(WALK, "R=? [ !(F x=3) ]", false).unwrap_err();
    assert!(err.contains("cannot be negated"), "{err}");
    let err = answer(WALK, "Pmax=? [ (F x=3 ]", false).unwrap_err();
    assert!(err.contains("expected ')'"), "{err}");
}

/// A step-bounded optimum keeps its own error where the other choices lie further from it
/// than their errors: from `s=0`, `[a]` never reaches the goal and `[b]` does with 1/3 a step,
/// so the least chance within three steps is exactly 0 (not 0 within the rounding of 1/3),
/// and the greatest is 1 - (2/3)^3 = 19/27, within its own rounding.
#[test]
fn a_step_bounded_optimum_far_from_the_other_choices_keeps_its_own_error() {
    let model = "mdp
module m
  s : [0..2] init 0;
  [a] s=0 -> (s'=1);
  [b] s=0 -> 1/3 : (s'=2) + 2/3 : (s'=0);
endmodule
";
    assert_eq!(
        answer_with_bound(model, "Pmin=? [ F<=3 s=2 ]").unwrap(),
        (0.0, 0.0)
    );
    let (v, bound) = answer_with_bound(model, "Pmax=? [ F<=3 s=2 ]").unwrap();
    assert!(
        (v - 19.0 / 27.0).abs() <= bound && bound < 1e-14,
        "{v} ± {bound}"
    );
    // Choices within each other's errors still give theirs: two ways of the same chance.
    let twin = model.replace(
        "[a] s=0 -> (s'=1);",
        "[a] s=0 -> 1/3 : (s'=2) + 2/3 : (s'=0);",
    );
    let (v, bound) = answer_with_bound(&twin, "Pmin=? [ F<=3 s=2 ]").unwrap();
    assert!(
        (v - 19.0 / 27.0).abs() <= bound && bound > 0.0,
        "{v} ± {bound}"
    );
}

/// A lower step bound whose unbounded tail the graph analyses decide in part: the states they
/// fix (probability 0 here, every state in "a" leaves it for good under the minimiser) keep
/// their exact values through the backups, so the answer is exact in floats and its bound
/// zero, though the tail's solve rounds elsewhere (the probabilities are not binary
/// fractions); so does a backup whose outcomes are all worth the same; a value from the
/// solved states keeps a bound.
#[test]
fn a_lower_bound_over_states_the_graph_fixes_stays_exact() {
    let src = crate::common::TENTHS;
    let (value, bound) = answer_with_bound(src, "Pmin=? [ G>=2 \"a\" ]").unwrap();
    assert_eq!((value, bound), (0.0, 0.0));
    // Every outcome of every choice worth 1 (the target is reached surely, and stays): the
    // tenths' rounding does not count, as the probabilities sum to one exactly.
    let (value, bound) = answer_with_bound(src, "Pmin=? [ F>=2 s=3 ]").unwrap();
    assert_eq!((value, bound), (1.0, 0.0));
    let (value, bound) = answer_with_bound(src, "Pmax=? [ F>=3 t=2 ]").unwrap();
    let (exact, ..) = answer(src, "Pmax=? [ F>=3 t=2 ]", true).unwrap();
    assert!(
        (value - exact).abs() <= bound && bound > 0.0,
        "{value} ± {bound} vs {exact}"
    );
}

/// Arithmetic over float answers widens their intervals only where an operation rounds: one
/// minus a probability that is exactly 1 is exactly 0 (PRISM's `1 - P=? [ … ]`), not a
/// subnormal's width above it; a product that rounds keeps a bound that holds.
#[test]
fn arithmetic_over_answers_exact_in_floats_stays_exact() {
    let src = crate::common::TENTHS;
    for prop in [
        "1 - Pmax=? [ F s=3 ]",
        "Pmax=? [ F s=3 ] - Pmin=? [ F s=3 ]",
        "2 * Pmin=? [ G>=2 \"a\" ]",
    ] {
        assert_eq!(answer_with_bound(src, prop).unwrap(), (0.0, 0.0), "{prop}");
    }
    let prop = "3 * Pmax=? [ F<=1 s=3 ]";
    let (value, bound) = answer_with_bound(src, prop).unwrap();
    assert!(
        (value - 0.9).abs() <= bound && bound > 0.0,
        "{value} ± {bound}"
    );
}
