//! Random option values at every game's constructor: an answer or an error, never a panic. And
//! every game's parameters described as data (kinds, ranges, choices, the example) agree with
//! what its builder accepts.

use perfectplay::dynamic::SolveOptions;
use perfectplay_games::{build, catalog, GameError, ParamKind, Params};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        (0u32..60).prop_map(|n| n.to_string()),
        prop::collection::vec(0u32..60, 0..15)
            .prop_map(|v| { v.iter().map(u32::to_string).collect::<Vec<_>>().join(",") }),
        "[ -~]{0,12}",
        prop::sample::select(vec![
            "search",
            "assignment",
            "auto",
            "competitive-known",
            "1 2; 3 4",
            "5"
        ])
        .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn constructors_never_panic(game in 0usize..5, values in prop::collection::vec(value(), 4)) {
        let spec = &catalog()[game];
        let mut params = Params::new();
        for (p, v) in spec.params.iter().zip(&values) {
            params.set(p.name, v.clone());
        }
        if let Ok(model) = build(spec.name, &params) {
            let options = SolveOptions { max_states: Some(20_000), ..SolveOptions::default() };
            // An answer or a clean error; a panic fails the test.
            let _ = model.solve_report(options);
        }
    }
}

/// The example's values, with `name` set to `value`.
fn example_with(spec: &perfectplay_games::GameSpec, name: &str, value: &str) -> Params {
    let mut params = Params::new();
    for (n, v) in spec.example {
        params.set(*n, *v);
    }
    params.set(name, value);
    params
}

/// Every kind's bounds are the builder's: the least and greatest values build (with the
/// example's other values) or fail for another parameter's sake, one beyond fails naming the
/// parameter; every choice builds; every example builds.
#[test]
fn parameter_kinds_are_what_the_builders_accept() {
    for spec in catalog() {
        assert!(
            build(spec.name, &example_with(spec, "", "")).is_ok(),
            "{}",
            spec.name
        );
        for p in spec.params {
            let names_it = |text: String| match build(spec.name, &example_with(spec, p.name, &text))
            {
                Err(GameError::Param { param, message }) => {
                    param == p.name && message.contains("range")
                }
                _ => false,
            };
            let other_or_ok =
                |text: String| match build(spec.name, &example_with(spec, p.name, &text)) {
                    Err(GameError::Param { param, message }) => {
                        param != p.name || !message.contains("range")
                    }
                    _ => true,
                };
            match p.kind {
                ParamKind::Int { min, max } => {
                    assert!(
                        other_or_ok(min.to_string()) && other_or_ok(max.to_string()),
                        "{}",
                        p.name
                    );
                    assert!(
                        names_it((min - 1).to_string()) && names_it((max + 1).to_string()),
                        "{}",
                        p.name
                    );
                }
                ParamKind::IntList { min, max, len } => {
                    let list = |item: i64| vec![item.to_string(); len.0.max(1)].join(",");
                    assert!(
                        names_it(list(min - 1)) && names_it(list(max + 1)),
                        "{}",
                        p.name
                    );
                    assert!(
                        other_or_ok(list(min)) && other_or_ok(list(max)),
                        "{}",
                        p.name
                    );
                    let too_many = vec!["1"; len.1 + 1].join(",");
                    assert!(
                        build(spec.name, &example_with(spec, p.name, &too_many)).is_err(),
                        "{}",
                        p.name
                    );
                }
                ParamKind::Choice(words) => {
                    for w in words {
                        let built = build(spec.name, &example_with(spec, p.name, w));
                        assert!(
                            !matches!(&built, Err(GameError::Param { param, .. }) if *param == p.name),
                            "{} {w}",
                            p.name
                        );
                    }
                    assert!(build(spec.name, &example_with(spec, p.name, "no-such-word")).is_err());
                }
                ParamKind::Word | ParamKind::Text => {}
            }
        }
    }
}
