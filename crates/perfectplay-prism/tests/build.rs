//! The state spaces of the QVBS models (`tests/qvbs/`, CC-BY 4.0): the reachable states,
//! transitions, choices and deadlocks of a full build match Storm's counts in `cases.json`,
//! for every instance of up to about 50,000 states.

use std::collections::BTreeMap;
mod common;

use common::{cases, constants, qvbs};

use perfectplay_prism::build::build;
use perfectplay_prism::parse_model;
use perfectplay_prism::program::Program;

#[test]
fn state_spaces_match_storms_counts() {
    let root = qvbs();
    let cases = cases();
    // One build per model file and constants.
    let mut instances = BTreeMap::new();
    for c in &cases {
        if c["states_full"].as_u64().unwrap() <= 50_000 {
            let key = (
                c["model"].as_str().unwrap().to_string(),
                c["constants"].to_string(),
            );
            instances.entry(key).or_insert(c);
        }
    }
    assert!(instances.len() >= 20, "{}", instances.len());
    for ((model, _), c) in instances {
        let text = std::fs::read_to_string(root.join(&model)).unwrap();
        let ast = parse_model(&model, &text).unwrap();
        let program = Program::new(&model, &text, &ast, &constants(c))
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let space = build(&program, 10_000_000).unwrap_or_else(|e| panic!("{model}: {e}"));
        let id = c["id"].as_str().unwrap();
        assert_eq!(
            space.len() as u64,
            c["states_full"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(
            space.deadlocks as u64,
            c["deadlock_states"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(
            space.initial.len() as u64,
            c["initial_states"].as_u64().unwrap(),
            "{id}"
        );
        if c["type"] == "mdp" {
            assert_eq!(
                space.choices.len() as u64,
                c["choices_full"].as_u64().unwrap(),
                "{id}"
            );
        }
    }
}

/// A choice keeps its action and module in half a word each: a model with more actions than
/// that is an error naming the limit, never a wrapped number.
#[test]
fn too_many_actions_are_an_error_not_a_wrap() {
    let model = |actions: usize| {
        let commands: String = (0..actions)
            .map(|i| format!("  [a{i}] x=0 -> true;\n"))
            .collect();
        format!("mdp\nmodule m\n  x : [0..1] init 0;\n{commands}endmodule\n")
    };
    let build_of = |text: &str| {
        let ast = parse_model("many.prism", text).unwrap();
        let program = Program::new("many.prism", text, &ast, &[]).unwrap();
        build(&program, 100)
    };
    let space = build_of(&model(65_534)).unwrap();
    assert_eq!((space.len(), space.choices.len()), (1, 65_534));
    let err = build_of(&model(65_535)).unwrap_err().to_string();
    assert!(
        err.contains("65535 actions") && err.contains("at most 65534"),
        "{err}"
    );
}
