//! PRISM's filters over any set of states, `filter(op, prop, states)`, against the same query
//! asked of each state on its own: the model is written again with that state as its initial
//! one, checked, and the answers aggregated here as PRISM defines each operator.

use malachite_base::num::arithmetic::traits::Abs;
use perfectplay_prism::{check_prop, Loaded, Props};

/// An MDP on x in 0..4 with a choice in every state below 4: `a` steps up or falls back to 0,
/// `b` steps up by two or stays; 4 is the goal, reached at a price.
fn model(init: i64) -> String {
    format!(
        "mdp
module m
  x : [0..4] init {init};
  [a] x<4 -> 1/2 : (x'=x+1) + 1/2 : (x'=0);
  [b] x<3 -> 1/3 : (x'=x+2) + 2/3 : (x'=x);
  [b] x=3 -> (x'=3);
endmodule
label \"goal\" = x=4;
rewards
  [a] true : 1;
  [b] true : 2;
endrewards
"
    )
}

/// Property `text` on the model started at `init`: the exact value (`"true"`/`"false"` for a
/// bound).
fn answer(init: i64, text: &str) -> String {
    let loaded = Loaded::new("m.prism", &model(init), &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    match a.holds {
        Some(b) => b.to_string(),
        None => a.exact.expect("exact"),
    }
}

/// Property `text` on the model started at 0, in floats: the value and its error bound.
fn floats(text: &str) -> (f64, f64) {
    let loaded = Loaded::new("m.prism", &model(0), &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    (a.value, a.error_bound)
}

fn q(text: &str) -> malachite_q::Rational {
    text.parse().unwrap()
}

#[test]
fn filters_of_queries_aggregate_the_states_own_answers() {
    let queries = [
        "Pmax=? [ F \"goal\" ]",
        "Pmin=? [ F<=3 \"goal\" ]",
        "Rmin=? [ F \"goal\" ]",
        "Pmax=? [ G x<3 ]",
    ];
    // The states of each set, in PRISM's order (by x).
    let sets: [(&str, Vec<i64>); 3] = [
        ("x<3", vec![0, 1, 2]),
        ("x>=1 & x!=2", vec![1, 3, 4]),
        ("true", vec![0, 1, 2, 3, 4]),
    ];
    for query in queries {
        for (states, xs) in &sets {
            let own: Vec<malachite_q::Rational> =
                xs.iter().map(|&x| q(&answer(x, query))).collect();
            let at = |op: &str| q(&answer(0, &format!("filter({op}, {query}, {states})")));
            let max = own.iter().max().unwrap().clone();
            let min = own.iter().min().unwrap().clone();
            let sum: malachite_q::Rational = own.iter().cloned().sum();
            let avg = sum.clone() / malachite_q::Rational::from(own.len());
            assert_eq!(at("max"), max, "{query} over {states}");
            assert_eq!(at("min"), min, "{query} over {states}");
            assert_eq!(at("sum"), sum, "{query} over {states}");
            assert_eq!(at("avg"), avg, "{query} over {states}");
            assert_eq!(at("first"), own[0], "{query} over {states}");
            // In floats, within the bound of the exact aggregate, and that of the states'
            // values where an expression is taken in each.
            for (op, want) in [("sum", &sum), ("avg", &avg)] {
                for prop in [
                    format!("filter({op}, {query}, {states})"),
                    format!("filter({op}, 2 * {query} - 1, {states})"),
                ] {
                    let (value, bound) = floats(&prop);
                    let want = match prop.contains('*') {
                        true => {
                            want * q("2")
                                - if op == "sum" {
                                    q(&xs.len().to_string())
                                } else {
                                    q("1")
                                }
                        }
                        false => want.clone(),
                    };
                    let error = (malachite_q::Rational::try_from(value).unwrap() - want).abs();
                    let bound = malachite_q::Rational::try_from(bound).unwrap();
                    assert!(error <= bound, "{prop}: {value} ± {bound}");
                }
            }
        }
    }
    // Whole values sum with no rounding: a bound of zero, not a float above it.
    assert_eq!(
        floats("filter(sum, Pmax=? [ F<=0 \"goal\" ], x<3)"),
        (0.0, 0.0)
    );
    // (A sum of a query is its mean times the count, whose division rounds.)
    let (value, bound) = floats("filter(sum, Pmax=? [ F<=0 \"goal\" ])");
    assert!(value == 1.0 && bound < 1e-15, "{value} ± {bound}");
    // Left out, the states are every reachable one.
    let all: Vec<_> = (0..=4).map(|x| q(&answer(x, "Pmax=? [ G x<3 ]"))).collect();
    assert_eq!(
        q(&answer(0, "filter(max, Pmax=? [ G x<3 ])")),
        all.iter().max().unwrap().clone()
    );
}

#[test]
fn forall_exists_and_count_of_bounds() {
    for bound in [
        "P>=1 [ F \"goal\" ]",
        "P>0.5 [ F<=4 \"goal\" ]",
        "P<=0.25 [ F<=2 \"goal\" ]",
        "R<=6 [ F \"goal\" ]",
    ] {
        for (states, xs) in [("x<3", vec![0, 1, 2]), ("x>0", vec![1, 2, 3, 4])] {
            let own: Vec<bool> = xs.iter().map(|&x| answer(x, bound) == "true").collect();
            let at = |op: &str| answer(0, &format!("filter({op}, {bound}, {states})"));
            assert_eq!(
                at("forall"),
                own.iter().all(|&b| b).to_string(),
                "{bound} {states}"
            );
            assert_eq!(
                at("exists"),
                own.iter().any(|&b| b).to_string(),
                "{bound} {states}"
            );
            let count = own.iter().filter(|&&b| b).count();
            assert_eq!(at("count"), count.to_string(), "{bound} {states}");
        }
    }
}

#[test]
fn filters_of_expressions_over_the_state() {
    assert_eq!(answer(0, "filter(count, x>1)"), "3");
    assert_eq!(answer(0, "filter(sum, x*x, x<3)"), "5");
    assert_eq!(answer(0, "filter(avg, x)"), "2");
    assert_eq!(answer(0, "filter(max, x, x<4)"), "3");
    assert_eq!(answer(0, "filter(forall, x<=4)"), "true");
    assert_eq!(answer(0, "filter(exists, x=5)"), "false");
    assert_eq!(answer(0, "filter(state, x+1, x=2)"), "3");
    assert_eq!(answer(0, "filter(first, x, x>1)"), "2");
    // Arithmetic over filters, as over queries.
    assert_eq!(answer(0, "filter(count, x>1) + filter(max, x)"), "7");
}

#[test]
fn what_a_filter_cannot_take_is_said() {
    let loaded = Loaded::new("m.prism", &model(0), &[], 1_000).unwrap();
    for (text, message) in [
        ("filter(state, x, x>0)", "takes one state, and 4 satisfy"),
        ("filter(max, x, x>9)", "no reachable state"),
        (
            "filter(forall, x)",
            "takes true or false, and x is a number",
        ),
        (
            "filter(count, Pmax=? [ F \"goal\" ])",
            "takes true or false",
        ),
        ("filter(sum, P>=1 [ F \"goal\" ])", "takes a number"),
        ("filter(range, x>1)", "takes a number"),
        ("filter(argmax, x, x>9)", "no reachable state"),
    ] {
        let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
        let e = check_prop(&loaded, &props, &props.props[0], false).unwrap_err();
        assert!(e.to_string().contains(message), "{text}: {e}");
    }
}

/// A filter of arithmetic over queries and the state (`filter(max, 1 - Pmin=? [ … ] * x)`)
/// takes the expression's value in each state, each query answered from that state: the same
/// as the expression asked of the model started there.
#[test]
fn filters_of_arithmetic_over_queries_take_each_states_value() {
    let exprs = [
        "Pmax=? [ F \"goal\" ] - Pmin=? [ F<=3 \"goal\" ]",
        "Rmin=? [ F \"goal\" ] * (x + 1) + pow(Pmax=? [ G x<3 ], 2)",
        "min(Pmax=? [ F<=2 \"goal\" ], 1/3) / 2",
    ];
    for expr in exprs {
        let own: Vec<malachite_q::Rational> = (0..=4).map(|x| q(&answer(x, expr))).collect();
        let at = |op: &str| q(&answer(0, &format!("filter({op}, {expr}, x<4)")));
        let sum: malachite_q::Rational = own[..4].iter().cloned().sum();
        assert_eq!(at("max"), own[..4].iter().max().unwrap().clone(), "{expr}");
        assert_eq!(at("min"), own[..4].iter().min().unwrap().clone(), "{expr}");
        assert_eq!(at("sum"), sum, "{expr}");
        assert_eq!(at("first"), own[0], "{expr}");
    }
    // Truth values over queries: counted, and for all / exists.
    let cmp = "Pmax=? [ F<=2 \"goal\" ] > Pmin=? [ F<=2 \"goal\" ]";
    let holds: Vec<bool> = (0..=4).map(|x| answer(x, cmp) == "true").collect();
    let count = holds.iter().filter(|&&h| h).count();
    assert_eq!(
        answer(0, &format!("filter(count, {cmp})")),
        count.to_string()
    );
    assert_eq!(
        answer(0, &format!("filter(forall, {cmp})")),
        (count == 5).to_string()
    );
    assert_eq!(
        answer(0, &format!("filter(exists, {cmp})")),
        (count > 0).to_string()
    );
}

/// `filter(min, …)` and `filter(max, …)` of a step-bounded query, in floats: the extreme's error
/// bound counts only the states whose values may be the extreme (here the least, 0, is exact,
/// and the others, which round, are far above it), and the greatest is within its bound.
#[test]
fn a_filters_extreme_carries_the_error_of_the_states_near_it() {
    let src = crate::common::TENTHS;
    let floats = |text: &str| floats_of(src, text);
    assert_eq!(floats("filter(min, Pmin=? [ F<=2 s=3 ], s<3)"), (0.0, 0.0));
    let (v, b) = floats("filter(max, Pmin=? [ F<=2 s=3 ], s<3)");
    assert!((v - 0.5).abs() <= b && b < 1e-14, "{v} ± {b}");
    let (v, b) = floats("filter(max, Pmax=? [ F<=2 s=3 ], s<3)");
    assert!((v - 0.65).abs() <= b && b > 0.0 && b < 1e-14, "{v} ± {b}");
}

/// Property `text` on the model `src`, in floats: the value and its error bound.
fn floats_of(src: &str, text: &str) -> (f64, f64) {
    let loaded = Loaded::new("m.prism", src, &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    (a.value, a.error_bound)
}

/// A `G` is one minus its dual's value, and that difference rounds too: here the mean of the
/// dual's values over three states, 1/3 within its own rounding, turned into 2/3, whose float is
/// a unit in the last place from it. The bound covers both, alone and through arithmetic.
#[test]
fn the_rounding_of_one_minus_a_value_is_in_its_bound() {
    let src = "dtmc
module m
  s : [0..2] init 0;
  [] s<2 -> (s'=s+1);
  [] s=2 -> (s'=2);
endmodule
";
    for text in [
        "filter(avg, P=? [ G<=0 s<2 ], true)",
        "filter(avg, P=? [ G<=0 s<2 ] * 1, true)",
    ] {
        let (v, b) = floats_of(src, text);
        let error = (malachite_q::Rational::try_from(v).unwrap() - q("2/3")).abs();
        assert!(
            error <= malachite_q::Rational::try_from(b).unwrap(),
            "{text}: {v} ± {b}"
        );
    }
}
