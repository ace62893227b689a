//! The long run of a DTMC: `S=? [ φ ]` and `R=? [ S ]`. A chain worked out by hand (two
//! bottom components, one periodic), in filters, bounds and nested formulas; random chains
//! against the limit of the lazy chain's powers (another method); and the errors.

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;
use perfectplay_prism::{check_prop, Loaded, Props};
use proptest::prelude::*;

/// The answer to `prop` on the model `src`: the value, the exact fraction (with `exact`) and
/// the error bound.
fn answer(src: &str, prop: &str, exact: bool) -> (f64, Option<String>, f64) {
    let (v, q, _, bound) = crate::common::answer(src, prop, exact);
    (v, q, bound)
}

/// The error `prop` gives on `src` in floats.
fn error(src: &str, prop: &str) -> String {
    crate::common::error(src, prop, false)
}

/// From 0, half the plays go round 1 → 2 → 1 for ever (period two: a half of the steps in
/// each), half to 3, which stays with 1/3 and else goes to 4, which goes back: there a
/// fraction 3/5 of the steps in 3 (π3 = π3/3 + π4, π4 = 2π3/3). So `S=? [ s=1 | s=3 ]` is
/// 1/2·1/2 + 1/2·3/5 = 11/20. The state reward `s` averages 3/2 and 17/5 in the two; the
/// step from 4 earns 1 more (2/5 of the steps): R=? [ S ] is 1/2·3/2 + 1/2·(17/5 + 2/5) = 51/20.
const TWO_ENDS: &str = "dtmc
module m
  s : [0..4] init 0;
  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=3);
  [] s=1 -> (s'=2);
  [] s=2 -> (s'=1);
  [] s=3 -> 1/3 : (s'=3) + 2/3 : (s'=4);
  [back] s=4 -> (s'=3);
endmodule
rewards \"r\"
  true : s;
  [back] true : 1;
endrewards
label \"odd\" = s=1 | s=3;
";

#[test]
fn a_chain_with_two_bottom_components() {
    for exact in [false, true] {
        let (v, q, bound) = answer(TWO_ENDS, "S=? [ \"odd\" ]", exact);
        assert!((v - 0.55).abs() <= 1e-12, "{v}");
        assert!((v - 0.55).abs() <= bound + 1e-16, "{v} ± {bound}");
        assert_eq!(q.as_deref(), exact.then_some("11/20"));
        let (v, q, _) = answer(TWO_ENDS, "R{\"r\"}=? [ S ]", exact);
        assert!((v - 2.65).abs() <= 1e-12, "{v}");
        assert_eq!(q.as_deref(), exact.then_some("53/20"));
    }
    // In each state: 1/2 in the cycle, 3/5 in the other, 11/20 at the start.
    for (state, want) in [(0, "11/20"), (1, "1/2"), (2, "1/2"), (3, "3/5"), (4, "3/5")] {
        let prop = format!("filter(state, S=? [ \"odd\" ], s={state})");
        let (_, q, _) = answer(TWO_ENDS, &prop, true);
        assert_eq!(q.as_deref(), Some(want), "{prop}");
    }
    let (v, ..) = answer(TWO_ENDS, "filter(count, S>0.55 [ \"odd\" ])", false);
    assert_eq!(v, 2.0);
    for (prop, want) in [("S>=0.55 [ \"odd\" ]", true), ("S>0.55 [ \"odd\" ]", false)] {
        let loaded = Loaded::new("m.prism", TWO_ENDS, &[], 1_000).unwrap();
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
        assert_eq!(a.holds, Some(want), "{prop}");
    }
    // Nested: where the long run is above 0.55 (3 and 4) is reached with probability 1/2.
    let (_, q, _) = answer(TWO_ENDS, "P=? [ F S>0.55 [ \"odd\" ] ]", true);
    assert_eq!(q.as_deref(), Some("1/2"));
    // State formulas nested in S: where φ is certain to come (1 and 2), half the time from the
    // start; where the long run is above 0.55 (3 and 4), the other half.
    let (_, q, _) = answer(TWO_ENDS, "S=? [ P>0.5 [ F s=1 ] ]", true);
    assert_eq!(q.as_deref(), Some("1/2"));
    let (_, q, _) = answer(TWO_ENDS, "S=? [ S>0.55 [ \"odd\" ] ]", true);
    assert_eq!(q.as_deref(), Some("1/2"));
    let e = error(TWO_ENDS, "S=? [ S=? [ \"odd\" ] ]");
    assert!(
        e.contains("where a state formula (true or false) is needed"),
        "{e}"
    );
    // Arithmetic over it, and the state formula negated inside.
    let (_, q, _) = answer(TWO_ENDS, "1 - S=? [ !\"odd\" ]", true);
    assert_eq!(q.as_deref(), Some("11/20"));
}

/// A build for the long run expands every state: the long run goes on past φ.
#[test]
fn a_build_for_the_long_run_expands_its_states() {
    let program = perfectplay_prism::parse_program("m", TWO_ENDS, &[]).unwrap();
    let props = Props::new(&program, "p", "S=? [ s=3 ]", &[]).unwrap();
    let nothing = &mut |_, _| std::ops::ControlFlow::Continue(());
    let l = Loaded::for_properties(program, &[(&props, 0)], 100, nothing).unwrap();
    assert_eq!((l.space.len(), l.space.stopped), (5, 0));
    let a = check_prop(&l, &props, &props.props[0], true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("3/10"));
}

#[test]
fn the_long_run_is_refused_where_prism_refuses_it() {
    let mdp = TWO_ENDS.replacen("dtmc", "mdp", 1);
    let e = error(&mdp, "S=? [ \"odd\" ]");
    assert!(e.contains("DTMCs"), "{e}");
    let e = error(&mdp, "Rmax=? [ S ]");
    assert!(e.contains("DTMCs"), "{e}");
    let e = error(TWO_ENDS, "R{\"nope\"}=? [ S ]");
    assert!(e.contains("nope"), "{e}");
    // A path in S: refused as the LTL it would be.
    let e = error(TWO_ENDS, "S=? [ F \"odd\" ]");
    assert!(e.contains("LTL"), "{e}");
}

/// A random chain: per state one to three commands, each of one to three outcomes with
/// weights 1 to 4, a state reward, and a transition reward per command.
#[derive(Clone, Debug)]
struct Chain {
    /// Per state, its commands: the outcomes (a weight and the state it leads to) and the
    /// command's transition reward.
    commands: Vec<Vec<Command>>,
    state_reward: Vec<u32>,
    phi: Vec<bool>,
}

/// A command's outcomes (a weight and the state it leads to) and its transition reward.
type Command = (Vec<(u32, usize)>, u32);

fn chains() -> impl Strategy<Value = Chain> {
    (2usize..=7).prop_flat_map(|n| {
        let outcome = (1u32..=4, 0..n);
        let command = (proptest::collection::vec(outcome, 1..=3), 0u32..=3);
        (
            proptest::collection::vec(proptest::collection::vec(command, 1..=2), n),
            proptest::collection::vec(0u32..=5, n),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(|(commands, state_reward, phi)| Chain {
                commands,
                state_reward,
                phi,
            })
    })
}

impl Chain {
    fn n(&self) -> usize {
        self.state_reward.len()
    }

    fn prism(&self) -> String {
        let n = self.n();
        let mut src = format!("dtmc\nmodule m\n  s : [0..{}] init 0;\n", n - 1);
        let mut rewards = String::new();
        for (s, commands) in self.commands.iter().enumerate() {
            for (i, (outcomes, r)) in commands.iter().enumerate() {
                let total: u32 = outcomes.iter().map(|o| o.0).sum();
                let updates: Vec<String> = (outcomes.iter())
                    .map(|(w, t)| format!("{w}/{total} : (s'={t})"))
                    .collect();
                src += &format!("  [c{s}_{i}] s={s} -> {};\n", updates.join(" + "));
                rewards += &format!("  [c{s}_{i}] true : {r};\n");
            }
        }
        src += "endmodule\nrewards \"r\"\n";
        for (s, r) in self.state_reward.iter().enumerate() {
            rewards += &format!("  s={s} : {r};\n");
        }
        src += &rewards;
        src += "endrewards\n";
        let phi: Vec<String> = (0..n)
            .filter(|&s| self.phi[s])
            .map(|s| format!("s={s}"))
            .collect();
        let phi = if phi.is_empty() {
            "false".to_string()
        } else {
            phi.join(" | ")
        };
        src + &format!("label \"phi\" = {phi};\n")
    }

    /// The transition matrix (the commands of a state taken uniformly) and each state's
    /// expected reward per step.
    fn matrix(&self) -> (Vec<Vec<f64>>, Vec<f64>) {
        let n = self.n();
        let mut p = vec![vec![0.0; n]; n];
        let mut r = vec![0.0; n];
        for (s, commands) in self.commands.iter().enumerate() {
            let k = commands.len() as f64;
            r[s] = self.state_reward[s] as f64;
            for (outcomes, tr) in commands {
                r[s] += *tr as f64 / k;
                let total: u32 = outcomes.iter().map(|o| o.0).sum();
                for &(w, t) in outcomes {
                    p[s][t] += w as f64 / total as f64 / k;
                }
            }
        }
        (p, r)
    }

    /// The long-run averages of `per_state` from state 0: the lazy chain `(I + P) / 2` has
    /// the same stationary distributions and no period, so its powers converge to the
    /// Cesàro limit of `P`'s; squared 48 times.
    fn limit(&self, per_state: &[f64]) -> f64 {
        let (p, _) = self.matrix();
        let n = self.n();
        let mut m: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| (p[i][j] + (i == j) as u8 as f64) / 2.0)
                    .collect()
            })
            .collect();
        for _ in 0..48 {
            m = (0..n)
                .map(|i| {
                    let row: Vec<f64> = (0..n)
                        .map(|j| (0..n).map(|k| m[i][k] * m[k][j]).sum())
                        .collect();
                    // Rows kept summing to one, or their rounding would grow with the power.
                    let sum: f64 = row.iter().sum();
                    row.into_iter().map(|x| x / sum).collect()
                })
                .collect();
        }
        (0..n).map(|j| m[0][j] * per_state[j]).sum()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The exact long run agrees with the lazy chain's limit, and the float answer lies
    /// within its error bound of the exact one.
    #[test]
    fn random_chains_against_the_lazy_chains_limit(c in chains()) {
        let src = c.prism();
        let (_, r) = c.matrix();
        let phi: Vec<f64> = c.phi.iter().map(|&b| b as u8 as f64).collect();
        for (prop, per_state) in [("S=? [ \"phi\" ]", phi), ("R{\"r\"}=? [ S ]", r)] {
            let want = c.limit(&per_state);
            let (_, q, _) = answer(&src, prop, true);
            let q: Rational = q.expect("a fraction").parse().unwrap();
            let exact = f64::rounding_from(&q, RoundingMode::Nearest).0;
            prop_assert!((exact - want).abs() <= 1e-9 * want.max(1.0), "{prop}: {q} vs {want}\n{src}");
            let (float, none, bound) = answer(&src, prop, false);
            prop_assert!(none.is_none());
            let ulp = f64::EPSILON * exact.abs();
            prop_assert!((exact - float).abs() <= bound + ulp, "{prop}: {q} vs {float} ± {bound}\n{src}");
            prop_assert!(bound <= 1e-12 * exact.abs().max(1.0), "{prop}: bound {bound}\n{src}");
        }
    }
}
