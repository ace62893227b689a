//! The command line end to end: real solves, JSON, contests, and the error contract.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    child.wait_with_output().expect("it finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Asserts the error contract: exit code 2 and exactly one line starting with `error:` that
/// contains `needle`.
fn assert_error(args: &[&str], needle: &str) {
    let o = run(args, "");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// `solve perfect-memory --rows 4 --cols 4` plus `extra` flags.
fn perfect_memory_4x4(extra: &[&str]) -> Output {
    let mut args = vec!["solve", "perfect-memory", "--rows", "4", "--cols", "4"];
    args.extend_from_slice(extra);
    run(&args, "")
}

#[test]
fn perfect_memory_4x4_float_and_exact() {
    let o = perfect_memory_4x4(&[]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "12.392984792984793\n");
    assert!(stderr(&o).starts_with("states: "), "statistics on stderr");
    let o = perfect_memory_4x4(&["--exact"]);
    assert_eq!(stdout(&o), "12.392984792984793 = 558242/45045\n");
}

#[test]
fn json_output_has_the_contract_fields() {
    let o = perfect_memory_4x4(&["--exact", "--json", "--quiet"]);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "", "--quiet prints nothing on stderr");
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["game"], "perfect-memory");
    assert_eq!(v["params"]["rows"], "4");
    assert_eq!(v["value"], 12.392984792984793);
    assert_eq!(v["exact"], "558242/45045");
    assert!(v["states"].as_u64().unwrap() > 0);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    let o = run(
        &[
            "solve",
            "perfect-memory",
            "--rows",
            "1",
            "--cols",
            "2",
            "--json",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["exact"].is_null());
}

#[test]
fn every_catalog_example_runs() {
    let o = run(&["games"], "");
    let text = stdout(&o);
    let examples: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("example: perfectplay "))
        .collect();
    assert_eq!(examples.len(), perfectplay_games::catalog().len(), "{text}");
    for e in examples {
        // The examples quote one argument at most ("..."), so a simple split is enough.
        let mut args: Vec<String> = Vec::new();
        let mut quoted: Option<String> = None;
        for word in e.split(' ') {
            match &mut quoted {
                Some(q) => {
                    q.push(' ');
                    q.push_str(word.trim_end_matches('"'));
                    if word.ends_with('"') {
                        args.push(quoted.take().unwrap());
                    }
                }
                None if word.starts_with('"') && !word[1..].ends_with('"') => {
                    quoted = Some(word[1..].to_string())
                }
                None => args.push(word.trim_matches('"').to_string()),
            }
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs, "");
        assert!(o.status.success(), "{e}: {}", stderr(&o));
    }
}

#[test]
fn official_values_through_the_cli() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["subset-sum-extreme", "--blocks", "1,2,3", "--faces", "6,5"],
            "0.5",
        ),
        (
            &["yeetzhee", "--dice", "3", "--faces", "6", "--groups", "1,2"],
            "4.7",
        ),
        (
            &[
                "gold-pots",
                "--pots",
                "4,1,2,10,3",
                "--variant",
                "cooperative-known",
            ],
            "17",
        ),
        (&["grid-game", "--grid", "10 -5; -5 10"], "-10"),
        (
            &[
                "grid-game",
                "--grid",
                "10 -5; -5 10",
                "--method",
                "assignment",
            ],
            "-10",
        ),
    ];
    for (args, expect) in cases {
        let mut all = vec!["solve"];
        all.extend_from_slice(args);
        all.push("--quiet");
        let o = run(&all, "");
        let got: f64 = stdout(&o).trim().parse().expect("a number");
        let expect: f64 = expect.parse().unwrap();
        assert!(
            (got - expect).abs() <= 1e-12 * expect.abs().max(1.0),
            "{args:?}: {got}"
        );
    }
}

#[test]
fn grid_from_stdin() {
    let o = run(
        &["solve", "grid-game", "--grid-file", "-", "--quiet"],
        "10 10\n-5 -5\n",
    );
    assert_eq!(stdout(&o), "5\n");
}

#[test]
fn contest_samples() {
    let o = run(&["contest", "yeetzhee"], "2\n3 6 2\n1\n2\n5 2 1\n5\n");
    assert_eq!(stdout(&o), "Case #1: 4.700000000\nCase #2: 9.000000000\n");
    let o = run(
        &["contest", "grid-game"],
        "3\n2\n10 10\n-5 -5\n2\n10 -5\n10 -5\n2\n10 -5\n-5 10\n",
    );
    assert_eq!(stdout(&o), "5\n5\n-10\n");
}

#[test]
fn errors_are_one_line_with_exit_code_2() {
    assert_error(
        &["solve", "perfect-memory", "--rows", "3", "--cols", "3"],
        "--cols",
    );
    assert_error(
        &["solve", "perfect-memory", "--rows", "x", "--cols", "2"],
        "--rows",
    );
    assert_error(&["solve", "perfect-memory", "--rows", "4"], "--cols");
    assert_error(&["solve", "no-such-game"], "no-such-game");
    assert_error(
        &[
            "solve", "yeetzhee", "--dice", "3", "--faces", "6", "--groups", "2,1",
        ],
        "--groups",
    );
    assert_error(
        &[
            "solve", "yeetzhee", "--dice", "3", "--faces", "6", "--groups", "",
        ],
        "--groups",
    );
    assert_error(&["solve", "grid-game", "--grid", "1 2; 3"], "not square");
    assert_error(&["solve", "gold-pots", "--pots", "1,-2"], "--pots");
    assert_error(
        &[
            "solve",
            "perfect-memory",
            "--rows",
            "2",
            "--cols",
            "2",
            "--bogus",
        ],
        "--bogus",
    );
    assert_error(&["contest", "yeetzhee"], "input line 1");
}

#[test]
fn max_states_stops_with_the_counts() {
    let o = run(
        &[
            "solve",
            "perfect-memory",
            "--rows",
            "10",
            "--cols",
            "10",
            "--max-states",
            "1000",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: state limit reached: 1001 states explored (limit 1000)"),
        "{err}"
    );
}

#[test]
fn help_and_games_explain_everything() {
    let o = run(&["--help"], "");
    assert!(o.status.success());
    for word in ["solve", "games", "contest", "Exit codes"] {
        assert!(stdout(&o).contains(word), "{word}");
    }
    let o = run(&["solve", "yeetzhee", "--help"], "");
    for word in [
        "--dice",
        "--faces",
        "--groups",
        "--exact",
        "--json",
        "--max-states",
        "--quiet",
    ] {
        assert!(stdout(&o).contains(word), "{word}");
    }
}
