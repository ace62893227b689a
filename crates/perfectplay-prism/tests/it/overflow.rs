//! Integer arithmetic at the edges of 64 bits in every place an expression can stand: a
//! constant, a guard, an update, a reward and a property. Every operation is checked: each
//! random expression gives a value or an error, never a panic (`mod(i64::MIN, -1)` used to
//! panic with "remainder with overflow").

use perfectplay_prism::{check_prop, Loaded, Props};
use proptest::prelude::*;

/// Integers where arithmetic overflows, and small ones.
fn leaf() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "(-9223372036854775807-1)",
        "9223372036854775807",
        "-1",
        "0",
        "1",
        "2",
        "63",
        "-64",
        "x",
        "0.5",
        "1e300",
    ])
    .prop_map(str::to_string)
}

/// Random expressions over those: every integer operator and function of the language.
fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(4, 24, 3, |inner| {
        let two = (inner.clone(), inner.clone());
        prop_oneof![
            two.clone().prop_map(|(a, b)| format!("({a} + {b})")),
            two.clone().prop_map(|(a, b)| format!("({a} - {b})")),
            two.clone().prop_map(|(a, b)| format!("({a} * {b})")),
            two.clone().prop_map(|(a, b)| format!("({a} / {b})")),
            two.clone().prop_map(|(a, b)| format!("mod({a}, {b})")),
            two.clone().prop_map(|(a, b)| format!("pow({a}, {b})")),
            two.clone().prop_map(|(a, b)| format!("({a} ^ {b})")),
            two.clone().prop_map(|(a, b)| format!("min({a}, {b})")),
            two.clone().prop_map(|(a, b)| format!("max({a}, {b})")),
            two.clone().prop_map(|(a, b)| format!("log({a}, {b})")),
            inner.clone().prop_map(|a| format!("-({a})")),
            inner.clone().prop_map(|a| format!("floor({a})")),
            inner.clone().prop_map(|a| format!("ceil({a})")),
            inner.clone().prop_map(|a| format!("round({a})")),
            (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, a, b)| format!("({c} > 0 ? {a} : {b})")),
        ]
    })
}

/// Checks `P=? [ F x=1 ]` on a model with `e` in the place `at` (0 a constant, 1 a guard,
/// 2 an update, 3 a reward) and, where the model builds, `e` as a property: any outcome but
/// a panic.
fn try_everywhere(e: &str, at: usize) {
    let (constant, guard, update, reward) = match at {
        0 => (e, "true", "1", "1"),
        1 => ("0", e, "1", "1"),
        2 => ("0", "true", e, "1"),
        _ => ("0", "true", "1", e),
    };
    let src = format!(
        "dtmc\nconst int c = {constant};\nmodule m\n  x : [0..1] init 0;\n  \
         [] x=0 & ({guard}) > 0 -> (x'=max(0, min(1, {update})));\n  [] x=1 -> true;\nendmodule\n\
         rewards\n  x=0 : {reward};\nendrewards\n"
    );
    let Ok(loaded) = Loaded::new("random.prism", &src, &[], 1000) else {
        return;
    };
    for prop in [
        "P=? [ F x=1 ]".to_string(),
        "R=? [ F x=1 ]".to_string(),
        format!("P=? [ F x=1 ] + {}", e.replace('x', "1")),
    ] {
        if let Ok(props) = Props::new(&loaded.program, "--prop", &prop, &[]) {
            for exact in [false, true] {
                let _ = check_prop(&loaded, &props, &props.props[0], exact);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_arithmetic_gives_a_value_or_an_error(e in expr(), at in 0usize..4) {
        try_everywhere(&e, at);
    }
}

/// The edge cases written out, each in every place.
#[test]
fn the_overflowing_operations_give_a_value_or_an_error() {
    let min = "(-9223372036854775807-1)";
    for e in [
        format!("mod({min}, -1)"),
        format!("{min} / -1"),
        format!("-{min}"),
        format!("{min} * -1"),
        format!("pow({min}, 2)"),
        format!("pow(-1, {min})"),
        "pow(2, 9223372036854775807)".to_string(),
        // (-2)^127 is i128::MIN, which has no negation.
        "pow(-2, 9223372036854775807)".to_string(),
        "pow(-2, 127) / 3".to_string(),
        "(pow(2, 126) - 1) / 3 < pow(2, 126) / 3 + 0.5".to_string(),
        format!("floor({min} / -1)"),
        format!("round({min} - 0.5)"),
        format!("ceil({min} * 0.5 * 4)"),
    ] {
        for at in 0..4 {
            try_everywhere(&e, at);
        }
    }
}
