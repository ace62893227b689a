//! `perfectplay check`: PRISM models end to end, their answers, JSON and errors.

use std::path::PathBuf;
use std::process::Output;

use crate::common::{file, run, text};

/// A die made of coin flips (Knuth and Yao): the probability of a six is exactly 1/6 and the
/// expected number of flips 11/3. The chain has cycles (a flip can send it back).
const DIE: &str = "dtmc
module die
  s : [0..7] init 0;
  d : [0..6] init 0;
  [] s=0 -> 0.5 : (s'=1) + 0.5 : (s'=2);
  [] s=1 -> 0.5 : (s'=3) + 0.5 : (s'=4);
  [] s=2 -> 0.5 : (s'=5) + 0.5 : (s'=6);
  [] s=3 -> 0.5 : (s'=1) + 0.5 : (s'=7) & (d'=1);
  [] s=4 -> 0.5 : (s'=7) & (d'=2) + 0.5 : (s'=7) & (d'=3);
  [] s=5 -> 0.5 : (s'=7) & (d'=4) + 0.5 : (s'=7) & (d'=5);
  [] s=6 -> 0.5 : (s'=2) + 0.5 : (s'=7) & (d'=6);
  [] s=7 -> (s'=7);
endmodule
rewards \"flips\"
  s<7 : 1;
endrewards
label \"done\" = s=7;
";

#[test]
fn a_die_of_coins_gives_exact_answers_in_text_and_json() {
    let model = file("die.prism", DIE);
    let props = file("die.props", "\"six\": P=? [ F s=7 & d=6 ];\n\"flips\": R{\"flips\"}=? [ F \"done\" ];\n\"never\": R=? [ F d=7 - 1 & s=0 ];\n");
    let o = run(&["check", &model, &props, "--exact", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "six: 0.166666666667 = 1/6\nflips: 3.66666666667 = 11/3\nnever: inf\n"
    );
    let o = run(&["check", &model, &props, "--prop", "six", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["type"], "dtmc");
    assert_eq!(v["states"], 13);
    assert_eq!(v["results"][0]["name"], "six");
    assert!((v["results"][0]["value"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-12);
    let o = run(&["check", &model, "--prop", "P>=0.2 [ F d=6 ]", "-q"]);
    assert_eq!(text(&o.stdout), "P>=0.2 [ F d = 6 ]: false\n");
    // A property that begins with a minus is a property, not an option.
    let o = run(&[
        "check",
        &model,
        "--prop",
        "-1 + P=? [ F d=6 ]",
        "--exact",
        "-q",
    ]);
    assert_eq!(
        text(&o.stdout),
        "-1 + P=? [ F d = 6 ]: -0.833333333333 = -5/6\n",
        "{}",
        text(&o.stderr)
    );
    // Infinities keep their sign, alone and as the ends of a filter's range, in floats and
    // exactly; JSON names them as strings.
    for exact in [false, true] {
        let mut args = vec![
            "check",
            &model,
            "--prop",
            "-1/0",
            "--prop",
            "filter(range, s = 0 ? -1/0 : s, s < 2)",
            "-q",
        ];
        if exact {
            args.push("--exact");
        }
        let o = run(&args);
        assert_eq!(
            text(&o.stdout),
            "-1 / 0: -inf\nfilter(range, s = 0 ? -1 / 0 : s, s < 2): [-inf, 1]\n",
            "{}",
            text(&o.stderr)
        );
    }
    let o = run(&["check", &model, "--prop", "log(0, 2)", "-q"]);
    assert_eq!(text(&o.stdout), "log(0, 2): -inf\n");
    let o = run(&["check", &model, "--prop", "-1/0", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["value"], "-inf");
}

/// A properties file as PRISM's examples write them: one property per line without `;`, a
/// constant left for the command line, arithmetic over a query, and a property that needs
/// that constant, which fails alone without it. `--prop N` picks the N-th, as PRISM's `-prop`.
#[test]
fn a_prism_style_properties_file_checks_what_it_can() {
    let model = file("die2.prism", DIE);
    let props = file(
        "die2.props",
        "const int k;\nP=? [ F s=7 & d=6 ]\n6 * P=? [ F s=7 & d=6 ]\nS=? [ d=k ]\nR{\"flips\"}=? [ F \"done\" ] - 2\n",
    );
    let o = run(&["check", &model, &props, "--exact", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stdout),
        "P=? [ F s = 7 & d = 6 ]: 0.166666666667 = 1/6\n6 * P=? [ F s = 7 & d = 6 ]: 1\n\
         R{\"flips\"}=? [ F \"done\" ] - 2: 1.66666666667 = 5/3\n"
    );
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: S=? [ d = k ]: ")
            && err.contains("undefined constant 'k' of the properties"),
        "{err}"
    );
    let o = run(&["check", &model, &props, "--prop", "4", "--prop", "2", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "R{\"flips\"}=? [ F \"done\" ] - 2: 1.66666666667\n6 * P=? [ F s = 7 & d = 6 ]: 1\n"
    );
    let o = run(&["check", &model, &props, "--prop", "5", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("has 4 properties"),
        "{}",
        text(&o.stderr)
    );
}

/// An MDP whose maximum needs the end component of states 1 and 2 collapsed: from there a
/// scheduler can loop for ever, which reaches nothing.
#[test]
fn end_components_do_not_trap_the_maximum() {
    let model = file(
        "ec.prism",
        "mdp
module m
  x : [0..3] init 0;
  [a] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=3);
  [b] x=1 -> (x'=2);
  [c] x=2 -> (x'=1);
  [d] x=2 -> 0.25 : (x'=3) + 0.75 : (x'=0);
  [e] x=3 -> true;
endmodule
",
    );
    let o = run(&[
        "check",
        &model,
        "--prop",
        "Pmax=? [ F x=3 ]",
        "--prop",
        "Pmin=? [ F x=3 ]",
        "--exact",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "Pmax=? [ F x = 3 ]: 1\nPmin=? [ F x = 3 ]: 0.5 = 1/2\n"
    );
}

#[test]
fn errors_name_the_place() {
    let model = file(
        "bad.prism",
        "dtmc\nmodule m\n  x : [0..1];\n  [] x=0 -> 0.5 : (x'=1) + 0.4 : (x'=0);\nendmodule\n",
    );
    let o = run(&["check", &model, "--prop", "P=? [ F x=1 ]"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains("its probabilities sum to 9/10, not 1") && err.contains("(x=0)"),
        "{err}"
    );

    let model = file("syntax.prism", "dtmc\nmodule m\n  x : [0..1]\nendmodule\n");
    let o = run(&["check", &model, "--prop", "P=? [ F x=1 ]"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {model}:4:1: expected ';', found 'endmodule'"
        )),
        "{err}"
    );
    assert!(err.contains("4 | endmodule\n  | ^^^^^^^^^"), "{err}");

    let model = file("consts.prism", "dtmc\nconst int N;\nconst double p;\nmodule m\n  x : [0..N];\n  [] true -> p : (x'=0) + 1-p : (x'=N);\nendmodule\n");
    let o = run(&["check", &model, "--prop", "P=? [ F x=1 ]"]);
    assert!(
        text(&o.stderr).contains("undefined constants: N, p"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&[
        "check",
        &model,
        "--prop",
        "P=? [ F x=1 ]",
        "--const",
        "N=1,p=0.25",
        "-q",
    ]);
    // Sooner or later the 3/4 comes.
    assert_eq!(
        text(&o.stdout),
        "P=? [ F x = 1 ]: 1\n",
        "{}",
        text(&o.stderr)
    );

    let model = file(
        "range.prism",
        "mdp\nmodule m\n  x : [0..1];\n  [go] true -> (x'=x+1);\nendmodule\n",
    );
    // The update leaves the range in x = 1, which a build for `F x=1` does not expand (as
    // Storm's does not); a full build meets it.
    let o = run(&["check", &model, "--prop", "Pmax=? [ F x=1 ]", "--full"]);
    assert!(
        text(&o.stderr).contains("sets x to 2, outside its range [0..1]"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[
        "check",
        &model,
        "--prop",
        "Pmax=? [ F x=1 ]",
        "--json",
        "-q",
    ]);
    let j = json(&o);
    assert_eq!(
        (j["states"].as_u64(), j["unexpanded"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(j["results"][0]["value"], 1.0);
    let model = file(
        "mdp.prism",
        "mdp\nmodule m\n  x : [0..1];\n  [go] x=0 -> (x'=1);\nendmodule\n",
    );
    let o = run(&["check", &model, "--prop", "P=? [ F x=1 ]"]);
    assert!(
        text(&o.stderr).contains("an MDP needs Pmin/Pmax"),
        "{}",
        text(&o.stderr)
    );

    // The state limit: said once, with the flag that raises it.
    let model = file(
        "long.prism",
        "mdp\nmodule m\n  x : [0..100000] init 0;\n  [] x<100000 -> (x'=x+1);\nendmodule\n",
    );
    let o = run(&[
        "check",
        &model,
        "--prop",
        "Pmax=? [ F x<0 ]",
        "--max-states",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr).trim_end().lines().last(),
        Some("error: more than 1000 states (the state limit) (--max-states)")
    );
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn pig_model() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../perfectplay-prism/examples/pig.prism")
        .to_string_lossy()
        .to_string()
}

const FIRST_WINS: &str = "<<first>> Pmax=? [ F \"first_wins\" ]";

/// `explain` on Pig written in PRISM gives the built-in game's moves, values and losses at
/// the same position, exactly.
#[test]
fn explain_takes_a_model_file_and_a_state_as_prism_prints_it() {
    let model = pig_model();
    let ours = json(&run(&[
        "explain",
        &model,
        "--const",
        "GOAL=10",
        "--prop",
        FIRST_WINS,
        "--state",
        "(a=3,b=0,t=4,p=1,won=0)",
        "--exact",
        "--json",
        "-q",
    ]));
    let built_in = json(&run(&[
        "explain",
        "pig",
        "--goal",
        "10",
        "--state",
        "A 3 B 0, A to move, turn 4",
        "--exact",
        "--json",
        "-q",
    ]));
    assert_eq!(ours["value_exact"], built_in["value_exact"]);
    let moves = |v: &serde_json::Value| -> Vec<(String, String)> {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["value_exact"].to_string(), m["loss_exact"].to_string()))
            .collect()
    };
    assert_eq!(moves(&ours), moves(&built_in));
    assert_eq!(ours["moves"][0]["move"], "[roll1]");
    assert_eq!(ours["moves"][1]["move"], "[hold1]");
    // A state the model never reaches, and one that is not a state, are errors.
    for (state, says) in [
        ("(a=3,b=0,t=4,p=2,won=1)", "not reachable"),
        ("(a=3,b=0,t=4,p=1)", "no value for won"),
        ("(a=3,b=0,t=40,p=1,won=0)", "outside its range"),
    ] {
        let out = run(&[
            "explain", &model, "--const", "GOAL=10", "--prop", FIRST_WINS, "--state", state,
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: --state: ") && err.contains(says),
            "{err}"
        );
    }
}

/// `strategy`, `distribution` and `play --auto` on a model file: the scheduler of every
/// decision state, the distribution of the outcome, simulated games.
#[test]
fn strategy_distribution_and_play_take_a_model_file() {
    let model = pig_model();
    let common = ["--const", "GOAL=5", "--prop", FIRST_WINS, "-q"];
    let strategy = json(&run(&[
        &["strategy", &model, "--out", "-"][..],
        &common[..],
    ]
    .concat()));
    let built_in = json(&run(&[
        "strategy", "pig", "--goal", "5", "--out", "-", "-q",
    ]));
    assert_eq!(strategy["params"]["GOAL"], "5");
    assert_eq!(strategy["value"], built_in["value"]);
    // Every decision state of the game, the won states aside (terminal in the built-in game,
    // a deadlock's self-loop in the model).
    let decisions = strategy["states"].as_array().unwrap().len();
    assert_eq!(decisions, built_in["states"].as_array().unwrap().len());
    let d = json(&run(&[
        &["distribution", &model, "--json"][..],
        &common[..],
    ]
    .concat()));
    let svg = file("pig-plot.svg", "");
    let drawn = run(&[&["distribution", &model, "--plot", &svg][..], &common[..]].concat());
    assert_eq!(drawn.status.code(), Some(0), "{}", text(&drawn.stderr));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.contains("pig.prism: &lt;&lt;first&gt;&gt; Pmax=?"),
        "{svg}"
    );
    assert!(
        svg.lines().any(|l| l == "target reached (1) or not (0)"),
        "{svg}"
    );
    let p_win = d["pmf"].as_array().unwrap().last().unwrap()[1]
        .as_f64()
        .unwrap();
    assert!((p_win - strategy["value"].as_f64().unwrap()).abs() < 1e-12);
    let play = json(&run(&[
        &["play", &model, "--auto", "2000", "--json"][..],
        &common[..],
    ]
    .concat()));
    let ci = play["ci95"].as_array().unwrap();
    let v = strategy["value"].as_f64().unwrap();
    assert!(ci[0].as_f64().unwrap() - 0.05 < v && v < ci[1].as_f64().unwrap() + 0.05);
    // What is optimised must be said.
    let out = run(&["explain", &model, "--const", "GOAL=5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--prop"),
        "{}",
        text(&out.stderr)
    );
}

/// Play on a model names the sides only in an smg, where they are the coalition and the
/// other players; an MDP's one scheduler is no side of a game.
#[test]
fn play_names_the_sides_of_an_smg_only() {
    let out = run(&[
        "play",
        &pig_model(),
        "--const",
        "GOAL=5",
        "--prop",
        FIRST_WINS,
        "-q",
    ]);
    let said = text(&out.stdout);
    assert!(
        said.contains("you are the coalition <<first>>; the computer plays the other players"),
        "{said}"
    );
    let hold = pig_model().replace("pig.prism", "pig_hold.prism");
    let out = run(&[
        "play",
        &hold,
        "--const",
        "GOAL=5,K=2",
        "--prop",
        "Pmax=? [ F won=1 ]",
        "-q",
    ]);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(said.starts_with("value of the game: "), "{said}");
    assert!(!said.contains("you are"), "{said}");
}

/// `--json` gives the constants with their types: integers, numbers and booleans.
#[test]
fn json_constants_keep_their_types() {
    let model = file(
        "typed.prism",
        "dtmc
const int N;
const double p;
const bool b;
module m
  x : [0..N] init 0;
  [] x<N -> p : (x'=x+1) + 1-p : (x'=x);
endmodule
",
    );
    let out = json(&run(&[
        "check",
        &model,
        "--prop",
        "P=? [ F x=N ]",
        "--const",
        "N=3,p=0.25,b=true",
        "--json",
        "-q",
    ]));
    assert_eq!(
        out["constants"],
        serde_json::json!({"N": 3, "p": 0.25, "b": true})
    );
    assert_eq!(out["results"][0]["value"], 1.0);
    assert_eq!(out["results"][0]["error_bound"], 0.0);
}

/// A square root (`pow(…, 0.5)`, as QVBS's oscillators write their order parameter) is
/// floating point: `check` and `explain` answer without `--exact`, and with it both stop with
/// one `error:` line and exit code 2.
#[test]
fn floating_point_functions_answer_in_floats_and_refuse_exact() {
    let model = file(
        "root.prism",
        "dtmc\nformula r = pow(x, 0.5);\nmodule m\n  x : [0..4];\n  [] x=0 -> 1/4 : (x'=2) + 3/4 : (x'=4);\nendmodule\n",
    );
    let prop = "P=? [ F r >= 1.5 ]";
    let o = run(&["check", &model, "--prop", prop, "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "P=? [ F r >= 1.5 ]: 0.75\n");
    for command in ["check", "explain"] {
        let o = run(&[command, &model, "--prop", prop, "--exact", "-q"]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        let err = text(&o.stderr);
        assert!(
            err.starts_with("error: ") && err.contains("no exact answer can be given"),
            "{command}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `explain` takes a step-bounded property: the game is the model with the steps left, shown
/// in every state. Within 3 steps, a scheduler that avoids the goal takes the fast route
/// first (1/2), since after a failed fast step the slow route no longer arrives in time.
#[test]
fn explain_takes_a_step_bounded_property() {
    let model = file(
        "routes.prism",
        "mdp\nmodule m\n  s : [0..3];\n  [fast] s=0 -> 1/2 : (s'=3) + 1/2 : (s'=0);\n  [slow] s=0 -> (s'=1);\n  [] s=1 -> (s'=2);\n  [] s=2 -> (s'=3);\n  [] s=3 -> true;\nendmodule\n",
    );
    let o = run(&[
        "explain",
        &model,
        "--prop",
        "Pmin=? [ F<=3 s=3 ]",
        "--exact",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("state: (s=0), 3 steps left\nvalue: 0.5 = 1/2\n"),
        "{out}"
    );
    assert!(
        out.contains("* 1. [fast]") && out.contains("2. [slow]  ->  value 1, loss 0.5 = 1/2"),
        "{out}"
    );
}

/// `R[ F0 φ ]` where some plays miss φ: exact over the reward earned where it is bounded
/// (explain shows and takes the reward earned in the state), a certified interval in the JSON
/// where it is not, and `--exact` refused there with one line.
#[test]
fn zero_reward_for_a_missed_target_over_the_reward_earned() {
    let rounds = |guard: &str| {
        format!(
            "mdp\nmodule m\n  s : [0..2];\n  b : [0..2];\n  [safe] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);\n  [again] s=0{guard} -> 1/2 : (s'=0) & (b'=min(b+1,2)) + 1/4 : (s'=1) + 1/4 : (s'=2);\nendmodule\nrewards \"r\"\n  [safe] true : 1;\n  [again] true : 1;\nendrewards\n"
        )
    };
    // At most two rounds, then safe: V(2) = 3/2, V(1) = max(1, 3/4 + 1/2), V(0) = max(1/2,
    // 5/8 + 1/4) = 7/8.
    let bounded = file("bounded.prism", &rounds(" & b<2"));
    let o = run(&[
        "check",
        &bounded,
        "--prop",
        "Rmax=? [ F0 s=1 ]",
        "--exact",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "Rmax=? [ F0 s = 1 ]: 0.875 = 7/8\n");
    let o = run(&[
        "explain",
        &bounded,
        "--prop",
        "Rmax=? [ F0 s=1 ]",
        "--state",
        "(s=0,b=1), 1 earned",
        "--exact",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("state: (s=0,b=1), 1 earned\nvalue: 1.25 = 5/4\n"),
        "{out}"
    );
    // Without the budget a play may earn without bound: V(k) = k/2 + 1, so 1.
    let free = file("free.prism", &rounds(""));
    let o = run(&[
        "check",
        &free,
        "--prop",
        "Rmax=? [ F0 s=1 ]",
        "--json",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let result = &json["results"][0];
    let (v, bound) = (
        result["value"].as_f64().unwrap(),
        result["error_bound"].as_f64().unwrap(),
    );
    assert!((v - 1.0).abs() <= bound + 1e-12 && bound < 1e-9, "{result}");
    let o = run(&[
        "check",
        &free,
        "--prop",
        "Rmax=? [ F0 s=1 ]",
        "--exact",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: ")
            && err.contains("ask for a floating-point answer")
            && err.lines().count() == 1,
        "{err}"
    );
}

/// A constant a properties file declares takes its value from `--const` with the model's, as
/// with PRISM's `-const`; a value for a constant nobody declares is an error naming it.
#[test]
fn constants_of_a_properties_file_come_from_const() {
    let model = file(
        "walk.prism",
        "mdp\nmodule m\n  x : [0..3];\n  [] x<3 -> 1/2 : (x'=x+1) + 1/2 : (x'=0);\n  [] x=3 -> true;\nendmodule\n",
    );
    let props = file("walk.props", "const int k;\nPmax=? [ F<=k x=3 ]\n");
    let o = run(&["check", &model, &props, "--const", "k=3", "--exact", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "Pmax=? [ F<=k (x = 3) ]: 0.125 = 1/8\n");
    for args in [
        vec!["check", &model, &props, "--const", "k=3,kk=1", "-q"],
        vec![
            "check",
            &model,
            "--prop",
            "Pmax=? [ F x=3 ]",
            "--const",
            "kk=1",
            "-q",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            text(&o.stderr),
            "error: a value is given for 'kk', and neither the model nor the properties declare such a constant\n"
        );
    }
}

/// Ranges of constants (`k=1:3`, `p=0.25:0.25:0.75`) check every property for each
/// combination, headed by its constants (one JSON object a line); a combination the model
/// does not build with is an error of its own, and the others are answered.
#[test]
fn ranges_of_constants_check_each_combination() {
    let model = file(
        "steps.prism",
        "dtmc\nconst double p;\nconst int n;\nmodule m\n  x : [0..n];\n  [] x<n -> p : (x'=x+1) + (1-p) : (x'=x);\nendmodule\n",
    );
    let props = file("steps.props", "const int k;\nP=? [ F<=k x=n ]\n");
    let o = run(&[
        "check",
        &model,
        &props,
        "--const",
        "k=1:2,p=0.25:0.5:0.75,n=1",
        "--exact",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Within k steps, n=1 is reached unless every step stays: 1 - (1-p)^k.
    let want = [
        ("1", "0.25", "0.25 = 1/4"),
        ("1", "0.75", "0.75 = 3/4"),
        ("2", "0.25", "0.4375 = 7/16"),
        ("2", "0.75", "0.9375 = 15/16"),
    ]
    .map(|(k, p, v)| format!("k={k}, p={p}, n=1:\nP=? [ F<=k (x = n) ]: {v}\n"))
    .join("\n");
    assert_eq!(text(&o.stdout), want);
    let o = run(&[
        "check",
        &model,
        &props,
        "--const",
        "k=2,p=0.5,n=-1:1",
        "--json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2), "n=-1 leaves x no range");
    let lines: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["constants"]["n"], 0);
    assert_eq!(lines[0]["results"][0]["value"], 1.0);
    assert_eq!(lines[1]["constants"]["n"], 1);
    assert_eq!(lines[1]["results"][0]["value"], 0.75);
    assert!(
        text(&o.stderr).starts_with("error: k=2, p=0.5, n=-1: "),
        "{}",
        text(&o.stderr)
    );
    // A combination's error says each cause once, with the flag it speaks of.
    let o = run(&[
        "check",
        &model,
        &props,
        "--const",
        "k=2,p=0.5,n=1:2",
        "--max-states",
        "2",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = text(&o.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        ["error: k=2, p=0.5, n=2: more than 2 states (the state limit) (--max-states)"],
        "{stderr}"
    );
    for (args, says) in [
        (
            vec!["check", &model, &props, "--const", "k=1:x,p=1,n=1"],
            "a range is two or three plain numbers",
        ),
        (
            vec!["check", &model, &props, "--const", "k=3:1,p=1,n=1"],
            "ends before it starts",
        ),
        (
            vec![
                "explain",
                &model,
                "--prop",
                "P=? [ F x=n ]",
                "--const",
                "p=1,n=1:2",
            ],
            "is for check",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains(says), "{}", text(&o.stderr));
    }
}

/// The self-loop added where no command is enabled is no command: it earns no transition
/// reward, not even an unlabelled one (`[] true : 1`), as in PRISM and Storm; state rewards
/// there still count.
#[test]
fn a_deadlocks_self_loop_earns_no_transition_reward() {
    let model = file(
        "deadlock.prism",
        "dtmc\nmodule m\n  x : [0..1] init 0;\n  [a] x=0 -> (x'=1);\nendmodule\n\
         rewards \"steps\"\n  [] true : 1;\n  [a] true : 1;\nendrewards\n\
         rewards \"stay\"\n  x=1 : 1;\nendrewards\n",
    );
    let props = file(
        "deadlock.props",
        "\"total\": R{\"steps\"}=? [ C ];\n\"five\": R{\"steps\"}=? [ C<=5 ];\n\
         \"stay\": R{\"stay\"}=? [ C<=5 ];\n\"ever\": R{\"stay\"}=? [ C ];\n",
    );
    let o = run(&["check", &model, &props, "--exact", "-q"]);
    assert_eq!(
        text(&o.stdout),
        "total: 1\nfive: 1\nstay: 4\never: inf\n",
        "{}",
        text(&o.stderr)
    );
}

/// As in PRISM, a property that is an expression over the variables and labels (no query) is
/// its value in the initial state, alone or beside queries; over several initial states, the
/// range of its values there.
#[test]
fn an_expression_over_states_is_its_value_in_the_initial_state() {
    let model = file(
        "bare.prism",
        "dtmc\nmodule m\n  x : [0..3] init 2;\n  b : bool init true;\n  [] x>0 -> 1/2 : (x'=x-1) + 1/2 : (x'=x);\nendmodule\nlabel \"two\" = x=2;\n",
    );
    let props = file(
        "bare.props",
        "x + 1\nb & \"two\"\n\"init\"\nP=? [ F x=0 ] * x\nmax(x, 5) - 1\n",
    );
    let o = run(&["check", &model, &props, "--exact", "-q"]);
    assert_eq!(
        text(&o.stdout),
        "x + 1: 3\nb & \"two\": true\n\"init\": true\nP=? [ F x = 0 ] * x: 2\nmax(x, 5) - 1: 4\n",
        "{}",
        text(&o.stderr)
    );
    let two = file(
        "bare_two.prism",
        "dtmc\nmodule m\n  x : [0..1];\n  [] true -> (x'=1);\nendmodule\ninit true endinit\n",
    );
    // Over several initial states, PRISM's default filter: the range of a number, and whether
    // a truth value holds in every one.
    let o = run(&["check", &two, "--prop", "x + 1", "-q"]);
    assert_eq!(text(&o.stdout), "x + 1: [1, 2]\n", "{}", text(&o.stderr));
    let o = run(&["check", &two, "--prop", "x < 1", "-q"]);
    assert_eq!(text(&o.stdout), "x < 1: false\n", "{}", text(&o.stderr));
}

/// A long-run reward (`R=? [ S ]`) is answered on a DTMC (a fair coin between x=0 and x=1,
/// which earns 1: half the steps), and refused on an MDP, as PRISM refuses it.
#[test]
fn a_long_run_reward_is_answered_on_a_dtmc_and_refused_on_an_mdp() {
    let src = "dtmc\nmodule m\n  x : [0..1] init 0;\n  [] true -> 1/2 : (x'=0) + 1/2 : (x'=1);\nendmodule\nrewards\n  x=1 : 1;\nendrewards\n";
    let model = file("long_run.prism", src);
    let o = run(&["check", &model, "--prop", "R=? [ S ]", "--exact", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "R=? [ S ]: 0.5 = 1/2\n");
    let model = file("long_run_mdp.prism", &src.replacen("dtmc", "mdp", 1));
    let o = run(&["check", &model, "--prop", "Rmax=? [ S ]"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("answered on DTMCs, as in PRISM"),
        "{err}"
    );
}

/// A state of a step-bounded property, written as explain shows it (`(s=1), 2 steps left`,
/// `(s=2), 1 steps taken`), is taken back by `--state`; without the count, every step is left
/// (none taken). Values by hand: a walk up by 1/2, back to 0 by 1/4, into a sink by 1/4.
#[test]
fn states_of_step_bounded_properties_as_explain_shows_them() {
    let walk = file(
        "walk.prism",
        "dtmc\nmodule m\n  s : [0..4];\n  [] s<3 -> 1/2 : (s'=s+1) + 1/4 : (s'=0) + 1/4 : (s'=4);\n  [] s>=3 -> true;\nendmodule\n",
    );
    let explain = |prop: &str, state: &str| {
        let o = run(&[
            "explain", &walk, "--prop", prop, "--state", state, "--exact", "-q",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        let mut lines = out.lines();
        (
            lines.next().unwrap().to_string(),
            lines.next().unwrap().to_string(),
        )
    };
    let up = "P=? [ F<=3 s=3 ]";
    // Two steps up from 1: 1/4; one from 2: 1/2; none left: 0.
    assert_eq!(
        explain(up, "(s=1), 2 steps left"),
        (
            "state: (s=1), 2 steps left".into(),
            "value: 0.25 = 1/4".into()
        )
    );
    assert_eq!(explain(up, "s=2, 1 steps left").1, "value: 0.5 = 1/2");
    assert_eq!(explain(up, "(s=2), 0 steps left").1, "value: 0");
    assert_eq!(explain(up, "(s=0)").0, "state: (s=0), 3 steps left");
    // Reaching 3 at all: p2 = 1/2 + p0/4, p0 = p1/2 + p0/4, p1 = p2/2 + p0/4, so p2 = 5/9
    // and p1 = 1/3; from 1 after a step, 3 is reached at step 2 or later.
    let later = "P=? [ F>=2 s=3 ]";
    assert_eq!(
        explain(later, "(s=1), 1 steps taken"),
        (
            "state: (s=1), 1 steps taken".into(),
            "value: 0.333333333333 = 1/3".into()
        )
    );
    assert_eq!(explain(later, "(s=3), 2 steps or more taken").1, "value: 1");
    // The start added for several initial states is named as explain shows it: from 1, two
    // steps up in a row (1/4); from 0, three (1/8).
    let two = file(
        "two_starts.prism",
        "dtmc\nmodule m\n  s : [0..3];\n  [] s<3 -> 1/2 : (s'=s+1) + 1/2 : (s'=0);\n  [] s=3 -> true;\nendmodule\ninit s<2 endinit\n",
    );
    let o = run(&[
        "explain",
        &two,
        "--prop",
        "filter(max, P=? [ F<=3 s=3 ], \"init\")",
        "--state",
        "the initial states, 3 steps left",
        "--exact",
        "-q",
    ]);
    assert!(
        text(&o.stdout).starts_with("state: the initial states, 3 steps left\nvalue: 0.25 = 1/4\n"),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    for (state, error) in [
        (
            "(s=1), 4 steps left",
            "the steps left are a number from 0 to 3",
        ),
        (
            "s=1 2 steps left",
            "write the state, then a comma and the count",
        ),
    ] {
        let o = run(&["explain", &walk, "--prop", up, "--state", state, "-q"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains(error), "{}", text(&o.stderr));
    }
}

/// An `Fc` reward on a game: the states where the maximiser has left its strategy (a second
/// copy, "keeping to the strategy found from here") are listed by `strategy` and taken back
/// by `explain --state`. By hand: [b] scores 3 and then [c] 1 (4), against [a]'s 2 and then
/// 1 or nothing (2.5); after [a], the state (t=1,s=1) of the second copy is worth the 1 of [c].
#[test]
fn states_of_the_second_copy_of_a_total_reward_game_parse_back() {
    let game = file(
        "fc_game.prism",
        "smg\nplayer p1 [a], [b], [c] endplayer\nplayer p2 [d] endplayer\nglobal t : [0..1] init 0;\nmodule m1\n  s : [0..3] init 0;\n  [a] t=0 & s=0 -> 1/2:(s'=1)&(t'=1) + 1/2:(s'=3)&(t'=1);\n  [b] t=0 & s=0 -> (s'=2)&(t'=1);\n  [c] t=0 & s>0 & s<3 -> (s'=3)&(t'=1);\nendmodule\nmodule m2\n  [d] t=1 -> (t'=0);\nendmodule\nrewards \"r\" [a] true : 2; [b] true : 3; [c] true : 1; endrewards\nlabel \"done\" = s=3;\n",
    );
    let prop = "<<p1>> R{\"r\"}max=? [ Fc \"done\" ]";
    let o = run(&["strategy", &game, "--prop", prop, "--out", "-", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["value"], 4.0);
    let kept = json["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["state"].as_str().unwrap().to_string())
        .find(|s| s.contains("keeping to the strategy"))
        .expect("a state of the second copy");
    let o = run(&[
        "explain", &game, "--prop", prop, "--state", &kept, "--exact", "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with(&format!("state: {kept}\nvalue: 1\n")),
        "{}",
        text(&o.stdout)
    );
}
