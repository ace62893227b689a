//! Reward bounds on a path (`F^{rew{"r"}<=b} φ`, `ψ U^{rew{"r"}>b} φ`): random MDPs against a
//! backward induction over the reward left (or still to earn) written here, the float answer (by epochs where the
//! choices that earn nothing close no cycle, else on the product with the reward earned)
//! within its error bound of the exact one (always the product), filters over every state
//! alike, and a bound far past the model's size answered in floats.

use crate::common::mdp::{mdp, Mdp};
use perfectplay_prism::{analysis_model, check_prop, Loaded, Props};
use proptest::prelude::*;

/// The value, its exact fraction if any, and the error bound.
fn answer(src: &str, prop: &str, exact: bool) -> Result<(f64, Option<String>, f64), String> {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).map_err(|e| e.to_string())?;
    let props = Props::new(&loaded.program, "p", prop, &[]).map_err(|e| e.to_string())?;
    check_prop(&loaded, &props, &props.props[0], exact)
        .map(|a| (a.value, a.exact, a.error_bound))
        .map_err(|e| e.to_string())
}

/// `P{opt}=? [ … ]` with a bound of `b` on the reward "r" of each kind: `F` within `<=`, `U`
/// within `<`, `F` with `>=` and `U` with `>`.
fn four_bounds(opt: &str, b: usize) -> [String; 4] {
    [
        format!("P{opt}=? [ F^{{rew{{\"r\"}}<={b}}} \"phi\" ]"),
        format!("P{opt}=? [ \"psi\" U^{{rew{{\"r\"}}<{b}}} \"phi\" ]"),
        format!("P{opt}=? [ F^{{rew{{\"r\"}}>={b}}} \"phi\" ]"),
        format!("P{opt}=? [ \"psi\" U^{{rew{{\"r\"}}>{b}}} \"phi\" ]"),
    ]
}

/// The MDP with rewards: move `a0` earns 1 and `a1` earns 3/2, where `x` is at least
/// `free_below` (so below it `a1` earns nothing, and the choices that earn nothing may close
/// cycles).
fn with_rewards(m: &Mdp, free_below: usize) -> String {
    format!(
        "{}rewards \"r\"\n  [a0] true : 1;\n  [a1] x>={free_below} : 3/2;\nendrewards\n",
        m.prism()
    )
}

/// The probability of `"psi" U "phi"` with at most `left` halves of a unit of reward left to
/// earn, `a0` earning 2 halves and `a1` 3, in every position, optimised as `maximise` says:
/// backward induction over the halves left.
fn within(m: &Mdp, maximise: bool, left: i64) -> Vec<f64> {
    let n = m.moves.len();
    let mut by_left: Vec<Vec<f64>> = Vec::new();
    for l in 0..=left.max(0) {
        let value = |x: usize, by_left: &Vec<Vec<f64>>| -> f64 {
            if m.phi[x] {
                return 1.0;
            }
            if !m.psi[x] {
                return 0.0;
            }
            let q = |mv: usize| -> f64 {
                let back = l - [2, 3][mv];
                (m.moves[x][mv].iter())
                    .map(|&(w, t)| match back < 0 {
                        true => 0.0,
                        false => w as f64 / 4.0 * by_left[back as usize][t],
                    })
                    .sum()
            };
            match maximise {
                true => q(0).max(q(1)),
                false => q(0).min(q(1)),
            }
        };
        let layer = (0..n).map(|x| value(x, &by_left)).collect();
        by_left.push(layer);
    }
    match left < 0 {
        true => vec![0.0; n],
        false => by_left.pop().unwrap_or_default(),
    }
}

/// The probability of `"psi" U "phi"` once at least `need` more halves of a unit of reward
/// are earned (`a0` earning 2 halves and `a1` 3; φ counts only from then on), in every
/// position, optimised as `maximise` says: the unbounded until by value iteration, then
/// backward induction over the halves still to earn.
fn after(m: &Mdp, maximise: bool, need: i64) -> Vec<f64> {
    let n = m.moves.len();
    let opt = |a: f64, b: f64| if maximise { a.max(b) } else { a.min(b) };
    let until = m.iterate(vec![0.0; n], None, |x, q| match () {
        _ if m.phi[x] => 1.0,
        _ if !m.psi[x] => 0.0,
        _ => opt(q(0), q(1)),
    });
    let mut by_need = vec![until];
    for l in 1..=need {
        let layer = (0..n)
            .map(|x| {
                if !m.psi[x] {
                    return 0.0;
                }
                let q = |mv: usize| -> f64 {
                    let left = (l - [2, 3][mv]).max(0) as usize;
                    (m.moves[x][mv].iter())
                        .map(|&(w, t)| w as f64 / 4.0 * by_need[left][t])
                        .sum()
                };
                opt(q(0), q(1))
            })
            .collect();
        by_need.push(layer);
    }
    by_need.pop().unwrap_or_default()
}

/// The positions reachable from 0.
fn reachable(m: &Mdp) -> Vec<usize> {
    let mut seen = vec![false; m.moves.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(x) = stack.pop() {
        for &(w, t) in m.moves[x].iter().flatten() {
            if w > 0 && !seen[t] {
                seen[t] = true;
                stack.push(t);
            }
        }
    }
    (0..seen.len()).filter(|&x| seen[x]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// Every move earns: the float answer (by epochs) and the exact one (the product) agree
    /// with the backward induction, at the start and in every position (a filter), under
    /// `<=`, `<`, `>=` and `>` bounds.
    #[test]
    fn random_mdps_agree_with_backward_induction(m in mdp(), b in 0usize..12) {
        let src = with_rewards(&m, 0);
        for maximise in [true, false] {
            let opt = if maximise { "max" } else { "min" };
            // `<= b` leaves 2b halves; `< b` one half fewer.
            let halves = 2 * b as i64;
            for (op, want) in [
                ("<=", within(&m, maximise, halves)),
                ("<", within(&m, maximise, halves - 1)),
                (">=", after(&m, maximise, halves)),
                (">", after(&m, maximise, halves + 1)),
            ] {
                let prop = format!("P{opt}=? [ \"psi\" U^{{rew{{\"r\"}}{op}{b}}} \"phi\" ]");
                let fail = |e: String| TestCaseError::fail(format!("{prop}: {e}\n{src}"));
                let (float, _, bound) = answer(&src, &prop, false).map_err(fail)?;
                prop_assert!((float - want[0]).abs() <= 1e-9, "{prop}: {float} vs {}\n{src}", want[0]);
                prop_assert!(bound < 1e-11, "{prop}: bound {bound}");
                let (exact, q, _) = answer(&src, &prop, true).map_err(fail)?;
                prop_assert!((exact - want[0]).abs() <= 1e-9 && q.is_some(), "{prop}: {q:?} vs {}\n{src}", want[0]);
                prop_assert!((float - exact).abs() <= bound + exact * f64::EPSILON, "{prop}: {float} ± {bound} vs {exact}\n{src}");
                let every = format!("filter(sum, {prop})");
                let (sum, ..) = answer(&src, &every, false).map_err(fail)?;
                // Over the positions reachable from 0, as a filter ranges.
                let total: f64 = reachable(&m).iter().map(|&x| want[x]).sum();
                prop_assert!((sum - total).abs() <= 1e-8, "{every}: {sum} vs {total}\n{src}");
            }
        }
    }

    /// Moves that earn nothing below a random position, so they may close cycles (then the
    /// float answer comes from the product too): float within its error bound of exact.
    #[test]
    fn float_within_its_error_bound_of_exact(m in mdp(), b in 0usize..30, free in 0usize..6) {
        let src = with_rewards(&m, free);
        for opt in ["max", "min"] {
            for prop in four_bounds(opt, b) {
                let fail = |e: String| TestCaseError::fail(format!("{prop}: {e}\n{src}"));
                let (float, _, bound) = answer(&src, &prop, false).map_err(fail)?;
                let (exact, ..) = answer(&src, &prop, true).map_err(fail)?;
                prop_assert!((float - exact).abs() <= bound + exact * f64::EPSILON, "{prop}: {float} ± {bound} vs {exact}\n{src}");
                prop_assert!(bound < 1e-12, "{prop}: bound {bound}");
            }
        }
    }
}

/// The exact value at the start of the game that explain, play and the others are given for
/// `prop` (`analysis_model`), and of its state `state` where one is named.
fn game_value(src: &str, prop: &str) -> Result<String, String> {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).map_err(|e| e.to_string())?;
    let props = Props::new(&loaded.program, "p", prop, &[]).map_err(|e| e.to_string())?;
    let model =
        analysis_model(&loaded, &props, &props.props[0], true).map_err(|e| e.to_string())?;
    let options = perfectplay::dynamic::SolveOptions {
        exact: true,
        ..Default::default()
    };
    let report = model.solve_report(options).map_err(|e| e.to_string())?;
    Ok(report.exact.unwrap_or_else(|| report.value.to_string()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The game of a reward-bounded property (explain, play, strategy, distribution) has the
    /// value `check` gives, on random MDPs whose moves that earn nothing may close cycles:
    /// upper and lower bounds, maximised and minimised.
    #[test]
    fn the_game_of_a_reward_bound_has_the_checked_value(
        m in mdp(),
        b in 0usize..8,
        free in 0usize..6,
    ) {
        let src = with_rewards(&m, free);
        for opt in ["max", "min"] {
            for prop in four_bounds(opt, b) {
                let fail = |e: String| TestCaseError::fail(format!("{prop}: {e}\n{src}"));
                let (_, checked, _) = answer(&src, &prop, true).map_err(fail)?;
                let game = game_value(&src, &prop).map_err(fail)?;
                prop_assert_eq!(checked.as_deref(), Some(game.as_str()), "{}\n{}", prop, src);
            }
        }
    }
}

/// A walk on 0..3 from 1 that earns 1 a step (a state reward) and at 3 stops: reaching 3
/// within a budget far past the model's size in floats (by epochs, which skip the epochs once
/// the values settle, the bound still counting them), and exactly within a small one.
#[test]
fn a_reward_bound_far_past_the_model_is_answered_in_floats() {
    let src = "dtmc
module m
  x : [0..3] init 1;
  [] x>0 & x<3 -> 1/2 : (x'=x-1) + 1/2 : (x'=x+1);
  [] x=0 -> (x'=1);
endmodule
rewards \"steps\"
  x<3 : 1;
endrewards
";
    // Within 2 steps: right twice, 1/4; within 4: also left, right, right... (1/4 + 1/8).
    let exact = |b: u64| {
        answer(
            src,
            &format!("P=? [ F^{{rew{{\"steps\"}}<={b}}} x=3 ]"),
            true,
        )
    };
    assert_eq!(exact(2).unwrap().1.as_deref(), Some("1/4"));
    assert_eq!(exact(1).unwrap().1.as_deref(), Some("0"));
    // Storm's other spelling of the same bound, on `F` and on `U`.
    for prop in [
        "P=? [ F{\"steps\"}<=2 x=3 ]",
        "P=? [ x>0 U{\"steps\"}<=2 x=3 ]",
        "P=? [ x>0 U{1}<=2 x=3 ]",
    ] {
        assert_eq!(
            answer(src, prop, true).unwrap().1.as_deref(),
            Some("1/4"),
            "{prop}"
        );
    }
    assert_eq!(
        answer(src, "P=? [ x>0 U{\"steps\"}<=4 x=3 ]", true)
            .unwrap()
            .1
            .as_deref(),
        Some("5/16"),
        "right twice, or right, left and right twice: never through x=0"
    );
    // 0 bounces back, so 3 is reached for sure in the end.
    let (v, _, bound) = answer(src, "P=? [ F^{rew{\"steps\"}<=1000000000} x=3 ]", false).unwrap();
    assert!((v - 1.0).abs() <= bound && bound < 1e-5, "{v} ± {bound}");
    // Its game, which explain and play solve, would count every step up to the bound: refused
    // before any exploring.
    let e = game_value(src, "P=? [ F^{rew{\"steps\"}<=1000000000} x=3 ]").unwrap_err();
    assert!(e.contains("may have more than"), "{e}");
    assert_eq!(
        game_value(src, "P=? [ F^{rew{\"steps\"}<=2} x=3 ]").as_deref(),
        Ok("1/4")
    );
    // Earning a billion before 3, where the walk stops earning (its deadlock's loop earns
    // nothing and is no cycle for the epochs): a chance that fades to nothing.
    let (v, _, bound) = answer(src, "P=? [ F^{rew{\"steps\"}>=1000000000} x=3 ]", false).unwrap();
    assert!(v <= bound && bound < 1e-5, "{v} ± {bound}");
    // At least 3 steps before 3: not right twice at once (3/4), then 3 for sure.
    let (v, _, bound) = answer(src, "P=? [ F^{rew{\"steps\"}>=3} x=3 ]", false).unwrap();
    assert!((v - 0.75).abs() <= bound.max(f64::EPSILON), "{v} ± {bound}");
    // A bound below zero: no play is within it, even one that starts at the target.
    let (v, ..) = answer(src, "P=? [ F^{rew{\"steps\"}<0} x=1 ]", false).unwrap();
    assert_eq!(v, 0.0);
    let (v, ..) = answer(src, "P=? [ F^{rew{\"steps\"}<=0} x=1 ]", false).unwrap();
    assert_eq!(v, 1.0);
}

/// Thirty thousand initial states, each a coin toss that earns 1 and wins (1) with `x` in
/// 29,999 or loses (0): one level of states backed up on every core, epoch after epoch until
/// the values settle; each value weighed by its state's `x`.
#[test]
fn a_wide_model_sums_its_states_values() {
    let src = "dtmc
module m
  x : [0..29999];
  y : [0..2];
  [] y=0 -> x/29999 : (y'=1) + 1-x/29999 : (y'=2);
  [] y>0 -> true;
endmodule
init y=0 endinit
rewards \"r\"
  y=0 : 1;
endrewards
";
    // Σ x · x/29999 over x < 30000 = 30000 · 59999 / 6.
    for (b, each) in [(0, 0.0), (1, 1.0), (7, 1.0)] {
        let prop = format!("filter(sum, x * P=? [ F^{{rew{{\"r\"}}<={b}}} y=1 ], y=0)");
        let (sum, _, bound) = answer(src, &prop, false).unwrap();
        let want = 30_000.0 * 59_999.0 / 6.0 * each;
        assert!(
            (sum - want).abs() <= bound.max(1e-6),
            "{prop}: {sum} ± {bound} vs {want}"
        );
    }
}

/// A retry that earns nothing and comes back to its own state (with a loop of no other
/// command beside it in the chain, and as a choice among others in the MDP), taken until it
/// leaves: answered by epochs, not the product, and exactly as a game of halves: from 0,
/// φ (x=2) before a costly detour through 1 with probability 1/2.
#[test]
fn a_loop_back_to_its_own_state_is_taken_until_it_leaves() {
    let model = |kind: &str, extra: &str| {
        format!(
            "{kind}
module m
  x : [0..2] init 0;
  [try] x=0 -> 1/2 : true + 1/4 : (x'=1) + 1/4 : (x'=2);
  {extra}
  [back] x=1 -> (x'=0);
endmodule
rewards \"r\"
  [back] true : 1;
endrewards
"
        )
    };
    let cases = [
        model("dtmc", ""),
        model("dtmc", "[] x=0 -> true;"),
        // A worse choice (φ after the detour alone) for the minimiser.
        model("mdp", "[] x=0 -> (x'=1);"),
    ];
    for (i, src) in cases.iter().enumerate() {
        let opt = if i == 2 { "max" } else { "" };
        for (prop, want) in [
            // Within b: φ before the (b+1)-th detour, 1 - 2^-(b+1).
            (
                format!("P{opt}=? [ F^{{rew{{\"r\"}}<=3}} x=2 ]"),
                15.0 / 16.0,
            ),
            (format!("P{opt}=? [ F^{{rew{{\"r\"}}<1}} x=2 ]"), 0.5),
            // Two detours at least, then φ for sure (where the maximiser may detour
            // at will, for sure).
            (
                format!("P{opt}=? [ F^{{rew{{\"r\"}}>=2}} x=2 ]"),
                if i == 2 { 1.0 } else { 0.25 },
            ),
        ] {
            let loaded = Loaded::new("m.prism", src, &[], 100).unwrap();
            let props = Props::new(&loaded.program, "p", &prop, &[]).unwrap();
            let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
            assert!(
                (a.value - want).abs() <= a.error_bound.max(f64::EPSILON) && a.error_bound < 1e-13,
                "{prop}: {} ± {} vs {want}\n{src}",
                a.value,
                a.error_bound
            );
            assert!(
                a.method.contains("backups over the reward"),
                "{prop}: {}",
                a.method
            );
            let (exact, ..) = answer(src, &prop, true).unwrap();
            assert_eq!(exact, want, "{prop} exactly\n{src}");
        }
    }
    // The minimiser detours for ever: never φ.
    let (v, ..) = answer(&cases[2], "Pmin=? [ F^{rew{\"r\"}<=3} x=2 ]", false).unwrap();
    assert_eq!(v, 0.0);
}

/// In a DTMC a step from a state of several commands earns their mean reward under a bound,
/// whichever command is taken, as Storm counts it: here 1 a step from `s=0`, where `a` earns
/// 2 and `b` nothing, so `s=1` is reached within 1 by the first step alone (1/4) and within 2
/// by the first two (1/4 + 1/4 · 1/4); counted command by command, `a` alone would pass 1.
#[test]
fn a_chain_counts_the_mean_reward_of_its_commands() {
    let src = "dtmc
module m
  s : [0..2] init 0;
  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=0);
  [b] s=0 -> (s'=2);
endmodule
rewards \"r\"
  [a] true : 2;
endrewards
";
    for (prop, expected, float) in [
        ("P=? [ F^{rew<=1} s=1 ]", "1/4", 0.25),
        ("P=? [ F^{rew<=2} s=1 ]", "5/16", 0.3125),
        ("P=? [ F^{rew>=2} s=1 ]", "1/12", 1.0 / 12.0),
    ] {
        let (_, exact, _) = answer(src, prop, true).unwrap();
        assert_eq!(exact.as_deref(), Some(expected), "{prop}");
        let (v, _, bound) = answer(src, prop, false).unwrap();
        assert!(
            (v - float).abs() <= bound.max(1e-15),
            "{prop}: {v} ± {bound}"
        );
    }
}
