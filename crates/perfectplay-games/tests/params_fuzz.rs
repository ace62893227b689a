//! Random option values at every game's constructor: an answer or an error, never a panic.

use perfectplay::dynamic::SolveOptions;
use perfectplay_games::{build, catalog, Params};
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
            if p.name != "grid-file" {
                params.set(p.name, v.clone());
            }
        }
        if let Ok(model) = build(spec.name, &params) {
            let options = SolveOptions { max_states: Some(20_000), ..SolveOptions::default() };
            // An answer or a clean error; a panic fails the test.
            let _ = model.solve_report(options);
        }
    }
}
