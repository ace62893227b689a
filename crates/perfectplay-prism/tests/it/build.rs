//! The state spaces of the QVBS models (`tests/qvbs/`, CC-BY 4.0): the reachable states,
//! transitions, choices and deadlocks of a full build match Storm's counts in `cases.json`,
//! for every instance of up to about 50,000 states.

use std::collections::BTreeMap;

use crate::common::{cases, constants, qvbs};

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

/// States wider than a machine word: `m` variables of three bits (so fields straddle word
/// boundaries), one of the whole i64 range, and a coin that sets every variable to a value of
/// its own or to zero. The property holds only where every field reads back its own value,
/// so any field packed or read at the wrong place changes the probability from 1/3; the
/// state of every field prints and parses back.
#[test]
fn states_of_any_width_keep_every_variable() {
    let model = |m: usize| {
        let decls: String = (0..m).map(|i| format!("  v{i} : [0..7];\n")).collect();
        let set = |s: i64, w: &str, k: &dyn Fn(usize) -> usize| {
            let vars = (0..m).map(|i| format!(" & (v{i}'={})", k(i)));
            format!("(s'={s}) & (w'={w}){}", vars.collect::<String>())
        };
        let all: String = (0..m).map(|i| format!(" & v{i}={}", (i % 7) + 1)).collect();
        format!(
            "dtmc\nmodule m\n  s : [0..2];\n  w : [-9223372036854775807..9223372036854775807] init 0;\n{decls}  \
             [] s=0 -> 1/3 : {} + 2/3 : {};\nendmodule\nlabel \"all\" = w<0{all};\n",
            set(1, "-9223372036854775807", &|i| (i % 7) + 1),
            set(2, "9223372036854775807", &|i| 7 - (i % 7)),
        )
    };
    // 64 bits for `w` and 2 for `s`, then 3 per variable: every width the builder uses.
    for m in [0, 20, 40, 60, 150, 300] {
        let text = model(m);
        let loaded = perfectplay_prism::Loaded::new("wide.prism", &text, &[], 100)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        assert_eq!(loaded.space.len(), 3, "{m}");
        let props =
            perfectplay_prism::Props::new(&loaded.program, "--prop", "P=? [ F \"all\" ]", &[])
                .unwrap();
        let answer = perfectplay_prism::check_prop(&loaded, &props, &props.props[0], true)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        assert_eq!(answer.exact.as_deref(), Some("1/3"), "{m} variables");
        for s in 0..3 {
            let shown = loaded.space.show(&loaded.program, s);
            assert_eq!(
                loaded.space.parse_state(&loaded.program, &shown),
                Ok(s),
                "{m}: {shown}"
            );
        }
    }
    // Beyond the widest word: an error that names the width and the limit.
    let decls: String = (0..17)
        .map(|i| format!("  u{i} : [-9223372036854775807..9223372036854775807];\n"))
        .collect();
    let text = format!("dtmc\nmodule m\n{decls}  [] true -> true;\nendmodule\n");
    let err = perfectplay_prism::Loaded::new("wide.prism", &text, &[], 100)
        .err()
        .expect("too wide")
        .to_string();
    assert!(
        err.contains("1088 bits") && err.contains("at most 1024"),
        "{err}"
    );
}

/// `init … endinit` is searched variable by variable, cutting a branch as soon as the
/// expression is false, so a model whose initial states pin most variables is not enumerated
/// over the product of every range (here 21^12 valuations); the initial states are the ones
/// the expression allows, and a side of `&`, `|` or `=>` is only evaluated where the other
/// lets it be, as in a full evaluation.
#[test]
fn initial_states_are_searched_not_enumerated() {
    let decls: String = (0..12).map(|i| format!("  v{i} : [0..20];\n")).collect();
    let model = |init: &str| {
        format!("dtmc\nmodule m\n{decls}  [] true -> true;\nendmodule\ninit {init} endinit\n")
    };
    let pinned: String = (0..10).map(|i| format!("v{i}={i} & ")).collect();
    let count = |init: &str| -> Result<usize, String> {
        perfectplay_prism::Loaded::new("init.prism", &model(init), &[], 1_000_000)
            .map(|l| l.space.initial.len())
            .map_err(|e| e.to_string())
    };
    // v10 + v11 = 20 has 21 solutions, v10 < v11 among them 10.
    assert_eq!(count(&format!("{pinned}v10 + v11 = 20")), Ok(21));
    assert_eq!(
        count(&format!("{pinned}v10 + v11 = 20 & v10 < v11")),
        Ok(10)
    );
    assert_eq!(
        count(&format!("{pinned}(v10 = 0 | 20 / v10 >= 4) & v11 = 0")),
        Ok(6)
    );
    assert_eq!(
        count(&format!("{pinned}(v10 != 0 => 20 / v10 = 10) & v11 = 1")),
        Ok(2)
    );
    // A pin outside the range, or two pins that disagree, leave no initial state.
    for init in [
        format!("{pinned}v10 = 21"),
        format!("{pinned}v10 = 1 & v10 = 2"),
    ] {
        let err = count(&init).unwrap_err();
        assert!(err.contains("holds in no state"), "{err}");
    }
    // An error where the full evaluation meets it is reported.
    let err = count(&format!("{pinned}0 / v10 > 1")).unwrap_err();
    assert!(err.contains("0/0 is not a real number"), "{err}");
    // Without pins, the search gives up with an error rather than running for ever.
    let err =
        count("v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 >= 0").unwrap_err();
    assert!(
        err.contains("initial states") || err.contains("too many"),
        "{err}"
    );
}
