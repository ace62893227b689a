//! State formulas checked in every state: queries with a bound nested inside paths and
//! filters, CTL's `E` and `A`, and the filters that list states (`print`, `printall`,
//! `argmin`, `argmax`, `range`). Values worked out by hand on a small chain, and random MDPs
//! against fixed points written here from the definitions.

use crate::common::mdp::{mdp, Mdp};
use perfectplay::dynamic::SolveOptions;
use perfectplay_prism::{analysis_model, check_prop, Loaded, Props};
use perfectplay_prism::{Answer, Listed};
use proptest::prelude::*;

fn answer(src: &str, prop: &str, exact: bool) -> Result<Answer, String> {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).map_err(|e| e.to_string())?;
    let props = Props::new(&loaded.program, "p", prop, &[]).map_err(|e| e.to_string())?;
    check_prop(&loaded, &props, &props.props[0], exact).map_err(|e| e.to_string())
}

/// From 0: to 1 or 2 (1/2 each); from 1: back to 0 or on to 3 (1/2 each); 2 and 3 absorb.
/// Reaching 3 has probability 1/3 from 0, 2/3 from 1.
const CHAIN: &str = "dtmc
module m
  s : [0..3] init 0;
  [a] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);
  [b] s=1 -> 0.5:(s'=0) + 0.5:(s'=3);
  [] s=2 -> true;
  [] s=3 -> true;
endmodule
rewards
  [a] true : 1;
  s=1 : 2;
endrewards
";

fn exact(prop: &str) -> String {
    let a = answer(CHAIN, prop, true).unwrap_or_else(|e| panic!("{prop}: {e}"));
    match a.holds {
        Some(b) => b.to_string(),
        None => a.exact.unwrap_or_else(|| a.value.to_string()),
    }
}

#[test]
fn nested_formulas_worked_out_by_hand() {
    // P(X s=3) >= 1/2 in 1 and 3: reaching either is reaching 1 (1/2).
    assert_eq!(exact("P=? [ F P>=0.5 [ X s=3 ] ]"), "1/2");
    assert_eq!(exact("P=? [ F (s=1 & P>0.3 [ F s=3 ]) ]"), "1/2");
    // Below the bound nowhere but in 2: F of it is F s=2, 1/3 from 1... from 0, 2/3.
    assert_eq!(exact("P=? [ F P<0.1 [ F s=3 ] ]"), "2/3");
    // Nested twice: the states from which 1 or 3 is next with probability 1/2 at least.
    assert_eq!(exact("P=? [ X P>=0.5 [ X P>=0.5 [ X s=3 ] ] ]"), "1/2");
    // A reward bound as a state formula: the expected reward to 2 or 3 is at most 2 in 2,
    // 3 and nowhere else (0: 8/3, 1: 10/3).
    assert_eq!(exact("P=? [ F R<=2 [ F s>=2 ] ]"), "1");
    assert_eq!(exact("P=? [ X R<=2 [ F s>=2 ] ]"), "1/2");
    // Every state reaches 2 or 3 almost surely: the target holds at the start.
    assert_eq!(exact("R=? [ F P>=1 [ F s>=2 ] ]"), "0");
    // Bounds of 0 and 1 (from the graph): 3 is possible from 0, 1 and 3, sure only in 3;
    // staying below 3 is sure only in 2.
    for (prop, want) in [
        ("filter(count, P>=1 [ F s>=2 ])", "4"),
        ("filter(count, P>0 [ F s=3 ])", "3"),
        ("filter(count, P<1 [ F s=3 ])", "3"),
        ("filter(count, P<=0 [ F s=3 ])", "1"),
        ("filter(count, P>=1 [ s<2 U s=3 ])", "1"),
        ("filter(count, P>=1 [ G s<3 ])", "1"),
        ("filter(count, P>0 [ G s<3 ])", "3"),
    ] {
        assert_eq!(exact(prop), want, "{prop}");
    }
    // CTL.
    for (prop, want) in [
        ("E [ F s=3 ]", "true"),
        ("A [ F s=3 ]", "false"),
        ("A [ F s>=2 ]", "false"), // 0, 1, 0, 1, … never gets there
        ("E [ G s<2 ]", "true"),
        ("A [ G s<3 ]", "false"),
        ("E [ s<2 U s=3 ]", "true"),
        ("A [ s<2 U s>=2 ]", "false"),
        ("A [ X s>=1 ]", "true"),
        ("E [ X s=3 ]", "false"),
        ("E [ F<=1 s=3 ]", "false"),
        ("E [ F<=2 s=3 ]", "true"),
        ("E [ F=3 s=1 ]", "true"),
        ("E [ F=2 s=1 ]", "false"),
        ("E [ F>=5 s=0 ]", "true"),
        ("A [ G>=1 s!=0 ]", "false"),
        ("E [ G<=3 s<2 ]", "true"),
        ("A [ s<2 W s=3 ]", "false"),
        ("E [ s<2 W s=3 ]", "true"),
        ("E [ s=2 R s<2 ]", "true"),
        ("A [ s=1 R s<2 ]", "false"),
        ("E [ F A [ G s=2 ] ]", "true"),
        ("A [ G E [ F s>=2 ] ]", "true"),
        ("E [ F A [ X s=3 ] ]", "true"),
        ("P>0.2 [ F s=3 ] & E [ F s=2 ]", "true"),
        ("filter(forall, E [ F s>=2 ])", "true"),
        ("filter(count, E [ F s=3 ])", "3"),
        ("filter(count, P>0.5 [ F s=3 ])", "2"),
        ("filter(count, A [ G s<2 ])", "0"),
        ("filter(exists, A [ G s=2 ], s<2)", "false"),
        // A state formula alone as the path, as PRISM reads it: it holds in the first state.
        ("E [ s<2 ]", "true"),
        ("A [ s=3 ]", "false"),
        ("filter(count, E [ s>=2 ])", "2"),
        ("filter(forall, A [ s=1 ], s=1)", "true"),
        ("P=? [ s=0 ]", "1"),
        ("P=? [ s=1 ]", "0"),
        ("filter(sum, P=? [ s<3 ])", "3"),
        ("P>=1 [ s=0 ]", "true"),
        ("P=? [ F P>=1 [ s=3 ] ]", "1/3"),
    ] {
        assert_eq!(exact(prop), want, "{prop}");
    }
    assert_eq!(exact("P=? [ F E [ X s=3 ] ]"), "1/2");
    assert_eq!(exact("filter(sum, P=? [ F s=3 ], s<2)"), "1");
    // Errors: a number where a state formula is needed; E and A have no play to optimise.
    let e = answer(CHAIN, "P=? [ F P=? [ F s=3 ] ]", false).unwrap_err();
    assert!(e.contains("is a number, where a state formula"), "{e}");
    let e = answer(CHAIN, "R=? [ s=0 ]", false).unwrap_err();
    assert!(e.contains("a state formula alone (co-safe LTL)"), "{e}");
    let e = answer(CHAIN, "E [ C<=2 ]", false).unwrap_err();
    assert!(e.contains("E and A take a path formula"), "{e}");
    let loaded = Loaded::new("m.prism", CHAIN, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "E [ F s=3 ]", &[]).unwrap();
    let Err(e) = analysis_model(&loaded, &props, &props.props[0], false) else {
        panic!("explain of E");
    };
    assert!(e.to_string().contains("E and A are true or false"), "{e}");
    // Explain takes a property with a nested formula: the game is the outer query's.
    let props = Props::new(&loaded.program, "p", "P=? [ F P>=0.5 [ X s=3 ] ]", &[]).unwrap();
    let model = analysis_model(&loaded, &props, &props.props[0], true).unwrap();
    let options = SolveOptions {
        exact: true,
        ..Default::default()
    };
    let solved = model.solve_dyn(options).unwrap();
    assert_eq!(solved.report().exact.as_deref(), Some("1/2"));
}

/// CTL inside a property's logic on a model of several initial states: true where it holds
/// in every one (PRISM's filter), each `E` and `A` checked in every state first.
#[test]
fn ctl_in_logic_over_several_initial_states() {
    let two = CHAIN.replace("s : [0..3] init 0;", "s : [0..3];") + "init s<=1 endinit\n";
    let holds = |prop: &str| {
        answer(&two, prop, false)
            .unwrap_or_else(|e| panic!("{prop}: {e}"))
            .holds
    };
    for (prop, want) in [
        // Both initial states reach 2 (1 through 0).
        ("!E [ F s=2 ]", false),
        // 3 is next from 1, not from 0.
        ("!E [ X s=3 ]", false),
        ("E [ X s=3 ] | s=0", true),
        ("!A [ G s<2 ]", true),
        ("E [ F s=3 ] & P>0.3 [ F s=3 ]", true),
        ("E [ F s=3 ] & P>0.5 [ F s=3 ]", false),
    ] {
        assert_eq!(holds(prop), Some(want), "{prop}");
    }
}

#[test]
fn filters_that_list_states() {
    let listed = |prop: &str| answer(CHAIN, prop, true).unwrap();
    let texts = |l: &Listed| -> Vec<(String, String)> {
        match l {
            Listed::Printed(v) | Listed::Extremes(v) => v
                .iter()
                .map(|v| {
                    let value = match v.holds {
                        Some(b) => b.to_string(),
                        None => v.exact.clone().unwrap(),
                    };
                    (v.state.clone(), value)
                })
                .collect(),
            Listed::Range { min, max } => vec![
                (min.state.clone(), min.exact.clone().unwrap()),
                (max.state.clone(), max.exact.clone().unwrap()),
            ],
        }
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let a = listed("filter(printall, P=? [ F s=3 ])");
    assert_eq!(a.exact.as_deref(), Some("4"));
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[
            ("(s=0)", "1/3"),
            ("(s=1)", "2/3"),
            ("(s=2)", "0"),
            ("(s=3)", "1")
        ])
    );
    // print leaves out zero and false.
    let a = listed("filter(print, P=? [ F s=3 ])");
    assert_eq!(a.exact.as_deref(), Some("3"));
    let a = listed("filter(print, P>0.5 [ F s=3 ])");
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[("(s=1)", "true"), ("(s=3)", "true")])
    );
    let a = listed("filter(argmax, P=? [ F s=3 ], s<3)");
    assert_eq!(a.exact.as_deref(), Some("2/3"));
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[("(s=1)", "2/3")])
    );
    // Ties: every state of the least value.
    let a = listed("filter(argmin, R=? [ F s>=2 ])");
    assert_eq!(a.exact.as_deref(), Some("0"));
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[("(s=2)", "0"), ("(s=3)", "0")])
    );
    let a = listed("filter(range, R=? [ F s>=2 ])");
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[("(s=2)", "0"), ("(s=1)", "10/3")])
    );
    let a = listed("filter(range, s*2, s>0)");
    assert_eq!(
        texts(a.listed.as_ref().unwrap()),
        pairs(&[("(s=1)", "2"), ("(s=3)", "6")])
    );
    // In floats the same states, with float values.
    let a = answer(CHAIN, "filter(argmax, P=? [ F s=3 ], s<3)", false).unwrap();
    assert!((a.value - 2.0 / 3.0).abs() < 1e-12);
    let e = answer(CHAIN, "filter(range, P>0.5 [ F s=3 ])", false).unwrap_err();
    assert!(e.contains("takes a number"), "{e}");
}

/// The states where `E`/`A` of `ψ U φ`, `G φ` hold, by iterating the definitions from
/// scratch until nothing changes (no work lists, no counters).
fn ctl_until(m: &Mdp, every: bool, psi: &[bool], phi: &[bool]) -> Vec<bool> {
    let n = m.moves.len();
    let mut z = phi.to_vec();
    loop {
        let next: Vec<bool> = (0..n)
            .map(|x| {
                let succ = m.moves[x].iter().flatten().filter(|(w, _)| *w > 0);
                let next = if every {
                    succ.clone().all(|&(_, t)| z[t])
                } else {
                    succ.clone().any(|&(_, t)| z[t])
                };
                phi[x] || (psi[x] && next)
            })
            .collect();
        if next == z {
            return z;
        }
        z = next;
    }
}

fn ctl_globally(m: &Mdp, every: bool, phi: &[bool]) -> Vec<bool> {
    ctl_weak(m, every, phi, &vec![false; phi.len()])
}

/// `ψ W φ`: the greatest fixed point of `z = φ ∨ (ψ ∧ X z)`, from every state.
fn ctl_weak(m: &Mdp, every: bool, psi: &[bool], phi: &[bool]) -> Vec<bool> {
    greatest(m, every, |x, next| phi[x] || (psi[x] && next))
}

/// `ψ R φ`: the greatest fixed point of `z = φ ∧ (ψ ∨ X z)`.
fn ctl_release(m: &Mdp, every: bool, psi: &[bool], phi: &[bool]) -> Vec<bool> {
    greatest(m, every, |x, next| phi[x] && (psi[x] || next))
}

/// The greatest fixed point of `z(x) = f(x, X z)`, iterated from every state.
fn greatest(m: &Mdp, every: bool, f: impl Fn(usize, bool) -> bool) -> Vec<bool> {
    let n = m.moves.len();
    let mut z = vec![true; n];
    loop {
        let next: Vec<bool> = (0..n)
            .map(|x| {
                let mut succ = m.moves[x].iter().flatten().filter(|(w, _)| *w > 0);
                let next = if every {
                    succ.all(|&(_, t)| z[t])
                } else {
                    succ.any(|&(_, t)| z[t])
                };
                f(x, next)
            })
            .collect();
        if next == z {
            return z;
        }
        z = next;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// CTL against the fixed points iterated here, and a nested bound against the values
    /// worked out here, on random MDPs.
    #[test]
    fn random_mdps_agree_on_state_formulas(m in mdp(), b in 1u32..4) {
        let src = m.prism();
        let (phi, psi) = (&m.phi, &m.psi);
        let n = m.moves.len();
        let holds = |prop: &str| -> Result<bool, TestCaseError> {
            answer(&src, prop, false)
                .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?
                .holds
                .ok_or_else(|| TestCaseError::fail(format!("{prop}: no truth value")))
        };
        for every in [false, true] {
            let q = if every { "A" } else { "E" };
            let all = vec![true; n];
            let cases = [
                (format!("{q} [ \"psi\" U \"phi\" ]"), ctl_until(&m, every, psi, phi)[0]),
                (format!("{q} [ F \"phi\" ]"), ctl_until(&m, every, &all, phi)[0]),
                (format!("{q} [ G \"phi\" ]"), ctl_globally(&m, every, phi)[0]),
                (format!("{q} [ \"psi\" W \"phi\" ]"), ctl_weak(&m, every, psi, phi)[0]),
                (format!("{q} [ \"psi\" R \"phi\" ]"), ctl_release(&m, every, psi, phi)[0]),
                (format!("{q} [ X \"phi\" ]"), {
                    let mut succ = m.moves[0].iter().flatten().filter(|(w, _)| *w > 0);
                    if every { succ.all(|&(_, t)| phi[t]) } else { succ.any(|&(_, t)| phi[t]) }
                }),
            ];
            for (prop, want) in cases {
                prop_assert_eq!(holds(&prop)?, want, "{}\n{}", prop, src);
            }
        }
        // Bounds of 0 and 1, decided from the graph alone, against the exact values compared
        // in each state.
        for (bounded, value) in [
            ("P>=1 [ \"psi\" U \"phi\" ]", "Pmin=? [ \"psi\" U \"phi\" ] >= 1"),
            ("P>0 [ F \"phi\" ]", "Pmin=? [ F \"phi\" ] > 0"),
            ("P<1 [ G \"phi\" ]", "Pmax=? [ G \"phi\" ] < 1"),
            ("P>=1 [ G \"psi\" ]", "Pmin=? [ G \"psi\" ] >= 1"),
            ("P<=0 [ \"psi\" U \"phi\" ]", "Pmax=? [ \"psi\" U \"phi\" ] <= 0"),
        ] {
            let count = |prop: &str| -> Result<String, TestCaseError> {
                let prop = format!("filter(count, {prop})");
                let a = answer(&src, &prop, true)
                    .map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                Ok(a.exact.unwrap_or_default())
            };
            prop_assert_eq!(count(bounded)?, count(value)?, "{}\n{}", bounded, src);
        }
        // P>=b/4 [ X φ ] in every state, then the greatest probability of reaching it.
        let next_max: Vec<bool> = (0..n)
            .map(|x| {
                let p = |i: usize| -> u32 {
                    m.moves[x][i].iter().filter(|(_, t)| phi[*t]).map(|(w, _)| *w).sum()
                };
                // For every scheduler: the least over the two moves.
                p(0).min(p(1)) >= b
            })
            .collect();
        let reach = m.iterate(vec![0.0; n], None, |x, q| {
            if next_max[x] { 1.0 } else { q(0).max(q(1)) }
        });
        let prop = format!("Pmax=? [ F P>={b}/4 [ X \"phi\" ] ]");
        let got = answer(&src, &prop, true).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
        prop_assert!((got.value - reach[0]).abs() < 1e-9, "{}: {} vs {}\n{}", prop, got.value, reach[0], src);
        // The same set counted by a filter.
        // Over the reachable positions only.
        let reachable: Vec<bool> = (0..n).map(|x| {
            // x is reachable when 0 reaches it: E F (x) from 0.
            let at: Vec<bool> = (0..n).map(|y| y == x).collect();
            ctl_until(&m, false, &vec![true; n], &at)[0]
        }).collect();
        let count = (0..n).filter(|&x| next_max[x] && reachable[x]).count();
        let prop = format!("filter(count, P>={b}/4 [ X \"phi\" ])");
        let got = answer(&src, &prop, false).map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
        prop_assert_eq!(got.value as usize, count, "{}\n{}", prop, src);
    }
}

/// PRISM's older filter inside the brackets: `{φ}` is the value in the (first) state of φ,
/// `{φ}{min}` and `{φ}{max}` the least and greatest over them, `{φ}{min}{max}` both.
#[test]
fn states_of_interest_inside_the_brackets() {
    assert_eq!(exact("P=? [ F s=3 {s=1} ]"), "2/3");
    assert_eq!(exact("P=? [ F s=3 {s<2}{max} ]"), "2/3");
    assert_eq!(exact("P=? [ F s=3 {s<2}{min} ]"), "1/3");
    assert_eq!(exact("R=? [ F s>=2 {s=1} ]"), "10/3");
    assert_eq!(exact("P>0.5 [ F s=3 {s=1} ]"), "true");
    // Both at once, in either order: PRISM's two values, as `filter(range, …)` gives them.
    for prop in [
        "P=? [ F s=3 {s<2}{min}{max} ]",
        "P=? [ F s=3 {s<2}{max}{min} ]",
    ] {
        let a = answer(CHAIN, prop, true).unwrap();
        let Some(Listed::Range { min, max }) = &a.listed else {
            panic!("{prop}: {:?}", a.listed)
        };
        assert_eq!(
            (min.exact.as_deref(), max.exact.as_deref()),
            (Some("1/3"), Some("2/3"))
        );
    }
    assert_eq!(exact("P=? [ F s=3 {s<2}{max}{max} ]"), "2/3");
}

/// A named property used in another by its name, as PRISM allows (`"b": 1 - "a"`): its
/// formula stands there, as a number, a truth value or a nested state formula; a circle of
/// references is an error of the properties in it alone.
#[test]
fn properties_refer_to_each_other_by_name() {
    let loaded = Loaded::new("m.prism", CHAIN, &[], 100).unwrap();
    let text = "\"a\": P=? [ F s=3 ];\n\"b\": 1 - \"a\";\n\"c\": \"a\" * 3 = 1;\n\
                \"d\": \"e\" + 1;\n\"e\": \"d\" * 2;\n\"f\": P>0.3 [ F s=3 ];\n\
                \"g\": filter(count, \"f\");\n\"h\": P=? [ X \"f\" ];\n";
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let got: Vec<String> = props
        .props
        .iter()
        .map(|p| match check_prop(&loaded, &props, p, true) {
            Ok(a) => match a.holds {
                Some(b) => b.to_string(),
                None => a.exact.unwrap(),
            },
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(got[..3], ["1/3", "2/3", "true"]);
    assert!(
        got[3].contains("circle: \"d\" → \"e\" → \"d\""),
        "{}",
        got[3]
    );
    assert!(got[4].contains("circle"), "{}", got[4]);
    // P(F s=3) > 0.3 in 0 (1/3), 1 and 3; from 0 the next state is 1 or 2.
    assert_eq!(got[5..], ["true", "3", "1/2"]);
    // The text stays as written.
    assert_eq!(props.props[1].text, "1 - \"a\"");
}

/// A step bound far beyond the model's size: the float value keeps two layers of the steps
/// (a sweep), so a million steps of a small chain take little time and memory.
#[test]
fn a_large_step_bound_is_swept() {
    let a = answer(CHAIN, "P=? [ F<=1000000 s=3 ]", false).unwrap();
    assert!((a.value - 1.0 / 3.0).abs() < 1e-12, "{}", a.value);
    let a = answer(CHAIN, "P=? [ G<=1000000 s<3 ]", false).unwrap();
    assert!((a.value - 2.0 / 3.0).abs() < 1e-12, "{}", a.value);
}

/// A property with a bound over several initial states is true where it holds in every one
/// (PRISM's reading), by the least value for a lower bound and the greatest for an upper one.
#[test]
fn a_bound_over_several_initial_states_holds_in_all() {
    let two = CHAIN
        .replace("s : [0..3] init 0;", "s : [0..3];")
        .replace("endmodule", "endmodule\ninit s<2 endinit");
    let holds = |prop: &str| answer(&two, prop, false).unwrap().holds.unwrap();
    // From 0: 1/3; from 1: 2/3.
    assert!(holds("P>0.3 [ F s=3 ]"));
    assert!(!holds("P>0.5 [ F s=3 ]"));
    assert!(holds("P<0.7 [ F s=3 ]"));
    assert!(!holds("P<0.5 [ F s=3 ]"));
    assert!(holds("P>=0.3 [ G s!=3 ]"));
    assert!(!holds("P>=0.5 [ G s!=3 ]"));
}

/// A property without a filter over several initial states stands for PRISM's default filter:
/// the range of a number's values there, and whether a truth value holds in every one.
#[test]
fn a_property_over_several_initial_states_takes_prisms_default_filter() {
    let two = CHAIN
        .replace("s : [0..3] init 0;", "s : [0..3];")
        .replace("endmodule", "endmodule\ninit s<2 endinit");
    let range = |prop: &str| {
        let a = answer(&two, prop, true).unwrap_or_else(|e| panic!("{prop}: {e}"));
        let Some(Listed::Range { min, max }) = &a.listed else {
            panic!("{prop}: no range");
        };
        (
            min.exact.clone().unwrap_or_default(),
            max.exact.clone().unwrap_or_default(),
        )
    };
    // From 0: 1/3; from 1: 2/3.
    assert_eq!(range("P=? [ F s=3 ]"), ("1/3".into(), "2/3".into()));
    assert_eq!(range("1 - P=? [ F s=3 ]"), ("1/3".into(), "2/3".into()));
    assert_eq!(
        range("P=? [ F s=3 ] * (s + 1)"),
        ("1/3".into(), "4/3".into())
    );
    assert_eq!(range("s + 1"), ("1".into(), "2".into()));
    let holds = |prop: &str| answer(&two, prop, true).unwrap().holds.unwrap();
    assert!(holds("s < 2"));
    assert!(!holds("s = 0"));
    assert!(holds("P=? [ F s=3 ] > 0.3"));
    assert!(!holds("P=? [ F s=3 ] > 0.5"));
    // A filter written out is left as it is.
    let a = answer(&two, "filter(max, P=? [ F s=3 ], \"init\")", true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("2/3"));
}
