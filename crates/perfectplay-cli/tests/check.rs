//! `perfectplay check`: PRISM models end to end, their answers, JSON and errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// Writes `content` to a file of this test's own and returns its path.
fn file(name: &str, content: &str) -> String {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("perfectplay-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.to_string_lossy().to_string()
}

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
        "six: 0.16666666666666666 = 1/6\nflips: 3.6666666666666665 = 11/3\nnever: inf\n"
    );
    let o = run(&["check", &model, &props, "--prop", "six", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["type"], "dtmc");
    assert_eq!(v["states"], 13);
    assert_eq!(v["results"][0]["name"], "six");
    assert!((v["results"][0]["value"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-12);
    let o = run(&["check", &model, "--prop", "P>=0.2 [ F d=6 ]", "-q"]);
    assert_eq!(text(&o.stdout), "P>=0.2 [ F d = 6 ]: false\n");
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
    let o = run(&["check", &model, "--prop", "Pmax=? [ F x=1 ]"]);
    assert!(
        text(&o.stderr).contains("sets x to 2, outside its range [0..1]"),
        "{}",
        text(&o.stderr)
    );
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
}
