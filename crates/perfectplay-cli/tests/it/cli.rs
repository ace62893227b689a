//! The command line end to end: real solves, JSON, contests, and the error contract.

use crate::common::scratch;
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
    // Twelve significant digits by default; every digit on request (JSON has them all).
    assert_eq!(stdout(&o), "12.392984793\n");
    assert!(stderr(&o).starts_with("states: "), "statistics on stderr");
    let o = perfect_memory_4x4(&["--exact"]);
    assert_eq!(stdout(&o), "12.392984793 = 558242/45045\n");
    // Every digit, and the bound that says how many of them are known.
    let o = perfect_memory_4x4(&["--digits", "all"]);
    let all = stdout(&o);
    assert!(all.starts_with("12.392984792984793 (± "), "{all}");
}

/// Text output shows what is known, not float noise (the values are 47/10 and 13), and a
/// fraction of thousands of digits is shortened unless every digit is asked for.
#[test]
fn numbers_are_shown_as_a_person_reads_them() {
    let yeetzhee = |groups: &str, extra: &[&str]| {
        let mut args = vec![
            "solve", "yeetzhee", "--dice", "3", "--faces", "6", "--groups", groups, "-q",
        ];
        args.extend_from_slice(extra);
        stdout(&run(&args, ""))
    };
    assert_eq!(yeetzhee("1,2", &[]), "4.7\n");
    assert_eq!(yeetzhee("1,2", &["--exact"]), "4.7 = 47/10\n");
    assert_eq!(yeetzhee("3", &[]), "13\n");
    assert_eq!(yeetzhee("1,2", &["--digits", "3"]), "4.7\n");
    let long = run(
        &[
            "solve",
            "pig",
            "--goal",
            "30",
            "--opponent",
            "hold-at-20",
            "--exact",
            "-q",
        ],
        "",
    );
    let text = stdout(&long);
    assert!(text.contains("digits; --digits all prints them)"), "{text}");
    assert!(text.len() < 200, "{text}");
    let full = run(
        &[
            "solve",
            "pig",
            "--goal",
            "30",
            "--opponent",
            "hold-at-20",
            "--exact",
            "-q",
            "--digits",
            "all",
        ],
        "",
    );
    assert!(stdout(&full).len() > 200 && !stdout(&full).contains('…'));
    let bad = run(&["solve", "pig", "--goal", "5", "--digits", "0"], "");
    assert_eq!(bad.status.code(), Some(2));
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

/// A float `solve` of a game that lists its states in order sweeps them, says so, and counts the
/// same states as exploring; exact mode and the other games explore.
#[test]
fn solve_says_when_it_swept() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(args, "");
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let float = json(&[
        "solve",
        "perfect-memory",
        "--rows",
        "4",
        "--cols",
        "4",
        "--json",
    ]);
    let exact = perfect_memory_4x4(&["--exact", "--json"]);
    let exact: serde_json::Value = serde_json::from_str(&stdout(&exact)).unwrap();
    assert_eq!(float["method"], "sweep");
    assert_eq!(exact["method"], "multimodular");
    assert!(exact["primes"].as_u64().unwrap() > 0);
    assert_eq!(float["states"], exact["states"]);
    assert_eq!(float["value"], exact["value"]);
    let gold = ["solve", "gold-pots", "--pots", "4,1,2,10,3", "--json"];
    let known = json(&[&gold[..], &["--variant", "competitive-known"]].concat());
    assert_eq!(
        (known["method"].clone(), known["value"].clone()),
        ("sweep".into(), 9.0.into())
    );
    let unknown = json(&[&gold[..], &["--variant", "competitive-unknown"]].concat());
    assert_eq!(unknown["method"], "explore");
    let o = perfect_memory_4x4(&[]);
    assert!(
        stderr(&o).contains("swept in the game's own order, not explored"),
        "{}",
        stderr(&o)
    );
    let o = run(&["solve", "pig", "--goal", "5"], "");
    assert!(stderr(&o).contains("components: "), "{}", stderr(&o));
}

/// `--threads` sweeps on several threads with the same answer, and says so.
#[test]
fn solve_sweeps_on_threads() {
    let grid = "5 -3 8 1 0 2 -7; 4 4 -1 9 3 -2 6; 0 1 2 3 4 5 6; -6 -5 -4 -3 -2 -1 0; \
                9 -9 8 -8 7 -7 6; 1 1 1 1 1 1 -20; 3 0 -3 0 3 0 -3";
    let solve = |threads: &str| {
        let args = ["solve", "grid-game", "--grid", grid, "--method", "search"];
        let o = run(&[&args[..], &["--threads", threads, "--json"]].concat(), "");
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (v["value"].clone(), v["threads"].clone(), stderr(&o))
    };
    let (one, two) = (solve("1"), solve("2"));
    assert_eq!((&one.0, &one.1, &two.1), (&two.0, &1.into(), &2.into()));
    assert!(two.2.contains("on 2 threads"), "{}", two.2);
    let o = run(&["solve", "pig", "--goal", "5", "--threads", "0"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: ") && stderr(&o).contains("--threads"));
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

/// A bad parameter read from a file is named by the option that read it.
#[test]
fn a_bad_grid_file_is_named_as_the_file_option() {
    for (args, needle) in [
        (
            ["solve", "grid-game", "--grid-file", "-"],
            "error: --grid-file: row 2: the grid is not square",
        ),
        (
            ["solve", "grid-game", "--grid", "10 10; 5"],
            "error: --grid: row 2: the grid is not square",
        ),
    ] {
        let o = run(&args, "10 10\n5\n");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with(needle), "{args:?}: {}", stderr(&o));
    }
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
    for tail in ["0", "1", "-0.5", "NaN"] {
        let args = ["distribution", "pig", "--goal", "5", "--tail", tail];
        assert_error(&args, "--tail");
    }
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
    assert!(
        err.trim_end()
            .ends_with("raise the state limit to go on (--max-states)"),
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

#[test]
fn explain_snapshots() {
    let o = run(
        &[
            "explain",
            "gold-pots",
            "--pots",
            "4,1,2,10,3",
            "--exact",
            "-q",
        ],
        "",
    );
    assert_eq!(
        stdout(&o),
        "state: pots 0..5 (first player to move)\n\
         value: 9\n\
         max to move (maximises); * marks optimal moves:\n  \
         * 1. left  ->  value 9, loss 0  (scores 4)\n    \
         2. right  ->  value 8, loss 1  (scores 3)\n"
    );
    let o = run(
        &[
            "explain",
            "subset-sum-extreme",
            "--blocks",
            "1,2,3,4",
            "--faces",
            "3",
            "--exact",
            "-q",
            "--state",
            "blocks [1,2,3,4] rolled 3",
        ],
        "",
    );
    assert_eq!(
        stdout(&o),
        "state: blocks [1,2,3,4] rolled 3\n\
         value: 4\n\
         min to move (minimises); * marks optimal moves:\n  \
         * 1. remove 3  ->  value 4, loss 0\n  \
         * 2. remove 1+2  ->  value 4, loss 0\n"
    );
    let o = run(
        &[
            "explain",
            "subset-sum-extreme",
            "--blocks",
            "1,2,3",
            "--faces",
            "6,5",
            "--exact",
            "-q",
        ],
        "",
    );
    assert_eq!(
        stdout(&o),
        "state: blocks [1,2,3] to roll\n\
         value: 0.5 = 1/2\n\
         chance:\n       \
         1/2  roll 5  ->  value 1\n       \
         1/2  roll 6  ->  value 0\n"
    );
}

#[test]
fn explain_json_lists_moves_and_outcomes() {
    let o = run(
        &[
            "explain",
            "pig",
            "--goal",
            "20",
            "--json",
            "-q",
            "--state",
            "A 10 B 15, A to move, turn 8",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["state"], "A 10 B 15, A to move, turn 8");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    let best = v["value"].as_f64().unwrap();
    for m in moves {
        let (value, loss) = (m["value"].as_f64().unwrap(), m["loss"].as_f64().unwrap());
        assert!((best - value - loss).abs() < 1e-12);
        assert_eq!(m["optimal"].as_bool().unwrap(), loss.abs() < 1e-9);
        assert!(m["move"].is_string());
    }
    let o = run(
        &[
            "explain",
            "pig",
            "--goal",
            "20",
            "--json",
            "-q",
            "--exact",
            "--state",
            "A 10 B 15, A to move, turn 8",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Rolling is a random move: its outcomes come with it.
    let roll = &v["moves"][0];
    assert_eq!(roll["move"], "roll");
    let outcomes = roll["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 6);
    assert!(outcomes.iter().all(|o| o["probability_exact"] == "1/6"));
    assert!(v["value_exact"].as_str().unwrap().contains('/'));
}

#[test]
fn explain_rejects_bad_and_unreachable_states() {
    assert_error(
        &["explain", "pig", "--goal", "20", "--state", "A x"],
        "--state",
    );
    // Well formed but never reached from the start (odd turn totals need a 1 ... no: 1 is lost).
    assert_error(
        &[
            "explain",
            "pig",
            "--goal",
            "20",
            "--state",
            "A 1 B 0, B to move, turn 0",
        ],
        "not explored",
    );
    assert_error(
        &[
            "explain",
            "grid-game",
            "--grid",
            "1 2; 3 4",
            "--method",
            "assignment",
        ],
        "--method search",
    );
    // A state that names the wrong player, or a position no play reaches, is refused with the
    // reason, not rewritten.
    let gold = ["explain", "gold-pots", "--pots", "4,1,2,10,3", "--state"];
    assert_error(
        &[&gold[..], &["pots 1..4 (second player to move)"]].concat(),
        "--state: 'pots 1..4 (second player to move)': with 2 pots taken it is the first player's turn",
    );
    assert_error(&[&gold[..], &["pots 1..4 junk"]].concat(), "is not a state");
    let o = run(
        &[&gold[..], &["pots 1..5 (second player to move)", "-q"]].concat(),
        "",
    );
    assert!(stdout(&o).starts_with("state: pots 1..5 (second player to move)\n"));
    let grid = ["explain", "grid-game", "--grid", "1 2; 3 4", "--state"];
    assert_error(
        &[&grid[..], &["crossed rows {1} columns {}"]].concat(),
        "1 rows and 0 columns crossed",
    );
    assert_error(
        &[
            &grid[..],
            &["crossed rows {1} columns {2}, Bob answers row 1"],
        ]
        .concat(),
        "row 1 is crossed already",
    );
}

#[test]
fn auto_play_confidence_interval_contains_the_value() {
    for args in [
        &[
            "play", "yeetzhee", "--dice", "3", "--faces", "6", "--groups", "1,2",
        ][..],
        &["play", "pig", "--goal", "10"][..],
        &["play", "perfect-memory", "--rows", "2", "--cols", "3"][..],
    ] {
        let mut a = args.to_vec();
        a.extend(["--auto", "20000", "--seed", "7", "--json", "-q"]);
        let o = run(&a, "");
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["games"], 20000);
        let (lo, hi) = (
            v["ci95"][0].as_f64().unwrap(),
            v["ci95"][1].as_f64().unwrap(),
        );
        let value = v["value"].as_f64().unwrap();
        assert!(lo <= value && value <= hi, "{args:?}: {v}");
        assert!(lo <= v["mean"].as_f64().unwrap() && v["mean"].as_f64().unwrap() <= hi);
    }
}

#[test]
fn interactive_play_reasks_on_bad_input_and_finishes() {
    // PerfectMemory 2x2: junk, a hint, an ambiguous prefix ("flip" starts every move), then
    // moves by number until the end.
    let o = run(
        &[
            "play",
            "perfect-memory",
            "--rows",
            "2",
            "--cols",
            "2",
            "--seed",
            "3",
            "-q",
        ],
        "junk\n7\nhint\nflip\n1\n1\n1\n1\n1\n1\n",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.contains("'junk' is not a move here"), "{out}");
    assert!(out.contains("'7' is not a move here"), "{out}");
    assert!(out.contains("* marks optimal moves"), "{out}");
    assert!(out.contains("'flip' starts 2 moves"), "{out}");
    // The end in the game's terms, with the moves counted.
    assert!(out.contains("game over: every pair is found, in "), "{out}");
    // Quitting early is fine too.
    let o = run(&["play", "pig", "--goal", "10", "-q"], "quit\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn play_shows_the_position_names_the_sides_and_ends_in_the_games_terms() {
    // Pig to 20 as B, holding whenever allowed ("h" is the first letter of hold only).
    let o = run(
        &[
            "play", "pig", "--goal", "20", "--side", "min", "--seed", "6", "-q",
        ],
        &"h\n".repeat(200),
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        out.contains("you are B; the computer plays A, optimally"),
        "{out}"
    );
    // A forced move is played for the user and said so.
    assert!(out.contains("you play: roll (the only move)"), "{out}");
    // The position after every step: both scores, the mover and the turn total.
    let positions = out
        .lines()
        .filter(|l| l.starts_with("A ") && l.contains(" B ") && l.contains("to move, turn"))
        .count();
    // Every roll's outcome is followed by the position it leads to, unless it ends the game.
    let steps = out.matches("chance: ").count();
    assert!(
        positions + 1 >= steps,
        "{positions} positions for {steps} steps:\n{out}"
    );
    assert!(out.contains("A plays: roll"), "{out}");
    let end = out
        .lines()
        .find(|l| l.starts_with("game over: "))
        .expect(&out);
    assert!(
        end == "game over: A reaches 20 and wins" || end == "game over: B reaches 20 and wins",
        "{end}"
    );
    assert!(out.contains("(you were B)"), "{out}");
    // Gold pots: the gold of both players at the end.
    let o = run(&["play", "gold-pots", "--pots", "3,1,4", "-q"], "1\n1\n1\n");
    let out = stdout(&o);
    assert!(
        out.contains("you are the first player; the computer plays the second player, optimally"),
        "{out}"
    );
    assert!(out.contains("game over: the first player has "), "{out}");
    let sum: u32 = out
        .lines()
        .find_map(|l| l.strip_prefix("game over: the first player has "))
        .map(|l| {
            l.split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse::<u32>().ok())
                .sum()
        })
        .expect(&out);
    assert_eq!(sum, 8, "{out}");
}

/// `distribution perfect-memory` on a 2x3 board in exact mode with one output flag.
fn exact_distribution_2x3(format: &str) -> Output {
    let args = [
        "distribution",
        "perfect-memory",
        "--rows",
        "2",
        "--cols",
        "3",
    ];
    run(&[&args[..], &["--exact", "-q", format]].concat(), "")
}

#[test]
fn distribution_csv_writes_tiny_probabilities_in_scientific_notation() {
    // The least total of a 10x10 board (every pair found at once) has a probability near
    // 1e-78; its field must not be seventy-eight zeros.
    let o = run_ok(&[
        "distribution",
        "perfect-memory",
        "--rows",
        "10",
        "--cols",
        "10",
        "--csv",
        "-q",
    ]);
    let text = stdout(&o);
    let first = text.lines().nth(1).unwrap();
    let p: Vec<&str> = first.split(',').collect();
    assert_eq!(p[0], "50", "{first}");
    assert!(p[1].contains("e-") && p[1].len() < 30, "{first}");
    let sum: f64 = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-12, "{sum}");
}

#[test]
fn distribution_exact_sums_to_one_and_its_mean_is_the_value() {
    let o = exact_distribution_2x3("--json");
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["mean_exact"], "13/3");
    assert_eq!(v["value_exact"], "13/3");
    assert_eq!(v["tail"], 0.0);
    let pmf = v["pmf"].as_array().unwrap();
    let total: f64 = pmf.iter().map(|p| p[1].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12);
    let exact: Vec<(&str, &str)> = v["pmf_exact"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap(), p[1].as_str().unwrap()))
        .collect();
    assert_eq!(exact, [("3", "1/15"), ("4", "8/15"), ("5", "2/5")]);
    let o = exact_distribution_2x3("--csv");
    assert_eq!(
        stdout(&o).lines().next(),
        Some("total,probability,cumulative,probability_exact,cumulative_exact")
    );
    assert!(stdout(&o).contains("\n5,0.4,1,2/5,1\n"), "{}", stdout(&o));
    // A game with cycles states its tail.
    let o = run(
        &[
            "distribution",
            "yeetzhee",
            "--dice",
            "3",
            "--faces",
            "6",
            "--groups",
            "1,2",
            "--json",
            "--tail",
            "1e-9",
            "-q",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let tail = v["tail"].as_f64().unwrap();
    assert!(tail > 0.0 && tail <= 1e-9, "{v}");
    assert!((v["mean"].as_f64().unwrap() - 4.7).abs() < 1e-6);
}

/// Runs `args` with `--out`/`--plot` style file arguments and asserts success.
fn run_ok(args: &[&str]) -> Output {
    let o = run(args, "");
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    o
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn distribution_plots_are_valid_files_of_the_right_size() {
    let dir = scratch("plot");
    let svg = dir.join("d.svg");
    let png = dir.join("d.png");
    for file in [&svg, &png] {
        let f = file.to_str().unwrap();
        run_ok(&[
            "distribution",
            "perfect-memory",
            "--rows",
            "4",
            "--cols",
            "4",
            "-q",
            "--plot",
            f,
        ]);
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..80]);
    assert!(text.contains("width=\"800\"") && text.contains("height=\"500\""));
    assert!(text.trim_end().ends_with("</svg>"));
    assert!(text.contains("<rect"));
    // The title names the game and its parameters, the x-axis what the total counts; the mean
    // is marked; integer totals get whole-number ticks only.
    assert!(text.contains("perfect-memory --rows 4 --cols 4"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"moves"), "{text}");
    assert!(text.contains("mean 12.393"), "{text}");
    // The x-axis ticks (centred labels under the axis) are whole numbers.
    let ticks: Vec<f64> = lines
        .windows(2)
        .filter(|w| w[0].contains("dy=\"0.76em\" text-anchor=\"middle\""))
        .filter_map(|w| w[1].parse().ok())
        .collect();
    assert!(ticks.len() >= 3, "{text}");
    assert!(ticks.iter().all(|t| t.fract() == 0.0), "{ticks:?}");
    assert_eq!(png_size(&std::fs::read(&png).unwrap()), (800, 500));
    // The cumulative view.
    let cdf = dir.join("c.svg");
    run_ok(&[
        "distribution",
        "yeetzhee",
        "--dice",
        "3",
        "--faces",
        "6",
        "--groups",
        "1,2",
        "-q",
        "--cdf",
        "--plot",
        cdf.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&cdf).unwrap();
    assert!(text.lines().any(|l| l == "P(rolls &lt;= x)"), "{text}");
    assert!(
        text.contains("<polyline") || text.contains("<path"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_error(&["distribution", "pig", "--goal", "5", "--cdf"], "--plot");
    assert_error(
        &["distribution", "pig", "--goal", "5", "--plot", "x.gif"],
        "--plot",
    );
}

#[test]
fn exported_strategy_reproduces_the_value() {
    use perfectplay::{Model, Node};
    let dir = scratch("strategy");
    // The extension in either case.
    let json = dir.join("s.JSON");
    let csv = dir.join("s.csv");
    for file in [&json, &csv] {
        let f = file.to_str().unwrap();
        run_ok(&[
            "strategy", "pig", "--goal", "6", "--exact", "-q", "--out", f,
        ]);
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let states = doc["states"].as_array().unwrap();
    let chosen: std::collections::HashMap<&str, &str> = states
        .iter()
        .map(|s| (s["state"].as_str().unwrap(), s["chosen"].as_str().unwrap()))
        .collect();
    let game =
        perfectplay_games::pig::Pig::new(6, perfectplay_games::pig::Opponent::Optimal).unwrap();
    let choice = |s: &<perfectplay_games::pig::Pig as Model>::State| {
        let want = chosen.get(game.show_state(s).as_str())?;
        let mut node = Node::new();
        game.expand(s, &mut node);
        let found = node.moves().position(|m| game.show_move(m.label) == *want);
        found
    };
    let v = perfectplay::verify::evaluate_strategy(&game, choice, 10_000).unwrap();
    assert_eq!(Some(v.to_string().as_str()), doc["value_exact"].as_str());
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        csv_text.lines().next(),
        Some("state,value,value_exact,optimal,chosen")
    );
    assert_eq!(csv_text.lines().count(), states.len() + 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A standard output that cannot be written (a full disk) is the user's environment, not an
/// internal error: one `error:` line and exit 2, for a value, a listing and a JSON report.
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_one_error_line() {
    for args in [
        &["solve", "pig", "--goal", "10"][..],
        &["games"][..],
        &["explain", "pig", "--goal", "10", "--json"][..],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full exists on Linux");
        let out = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot write to standard output: ") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

/// `play --auto`: one game has no interval; a win-or-lose total gets Wilson's interval, which
/// stays within [0, 1] where the normal approximation would not (10 wins of 10 had [1, 1]).
#[test]
fn simulated_intervals_mean_something() {
    let one = run(
        &["play", "pig", "--goal", "10", "--auto", "1", "--json", "-q"],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&one)).unwrap();
    assert!(v["ci95"].is_null(), "{v}");
    let text = run(&["play", "pig", "--goal", "10", "--auto", "1", "-q"], "");
    assert!(
        stdout(&text).contains("one game has no confidence interval"),
        "{}",
        stdout(&text)
    );
    for (games, seed) in [("10", "1"), ("12", "3"), ("400", "5")] {
        let o = run(
            &[
                "play", "pig", "--goal", "5", "--auto", games, "--seed", seed, "--json", "-q",
            ],
            "",
        );
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["interval"], "wilson", "{v}");
        let (lo, hi) = (
            v["ci95"][0].as_f64().unwrap(),
            v["ci95"][1].as_f64().unwrap(),
        );
        let mean = v["mean"].as_f64().unwrap();
        assert!(0.0 <= lo && lo < mean && mean <= hi && hi <= 1.0, "{v}");
        if mean == 1.0 {
            assert!(
                lo < 0.9,
                "a certain-looking sample still has a real interval: {v}"
            );
        }
    }
}

/// `--threads` beyond the machine's cores is capped, with a note, and the value is the same.
#[test]
fn threads_beyond_the_cores_are_capped_with_a_note() {
    let many = run(
        &[
            "solve",
            "perfect-memory",
            "--rows",
            "4",
            "--cols",
            "4",
            "--threads",
            "1024",
        ],
        "",
    );
    let one = run(
        &[
            "solve",
            "perfect-memory",
            "--rows",
            "4",
            "--cols",
            "4",
            "--threads",
            "1",
        ],
        "",
    );
    assert!(many.status.success(), "{}", stderr(&many));
    assert_eq!(stdout(&many), stdout(&one));
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if cores < 1024 {
        assert!(
            stderr(&many).contains(&format!(
                "note: --threads 1024 is more than the {cores} cores here"
            )),
            "{}",
            stderr(&many)
        );
    }
}

/// Ctrl-C during a long solve: one line that says how far it got, exit 130, nothing on
/// standard output.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupt_ends_a_solve_with_one_line_and_status_130() {
    let child = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(["solve", "pig", "--goal", "100", "--exact"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.starts_with("error: interrupted") && err.lines().count() == 1,
        "{err}"
    );
}

/// On a terminal, a long exact solve shows how far it is: the states explored, then the primes
/// its value is known modulo so far. The terminal is `script`'s; the solve is interrupted once
/// the primes show, however long the floats took (`timeout` only ends a run that never gets
/// there).
#[cfg(target_os = "linux")]
#[test]
fn a_long_exact_solve_shows_how_far_it_is() {
    use std::io::Read;
    let dir = scratch("progress");
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    let command = format!(
        "echo $$ > '{}'; exec timeout -s INT 600 '{}' solve pig --goal 100 --exact",
        pid_file.display(),
        env!("CARGO_BIN_EXE_perfectplay")
    );
    let mut child = Command::new("script")
        .args(["-q", "-c", &command, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let mut pipe = child.stdout.take().expect("piped");
    let mut screen = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut interrupted = false;
    loop {
        let read = pipe.read(&mut buffer).expect("the terminal reads");
        if read == 0 {
            break;
        }
        screen.extend_from_slice(&buffer[..read]);
        if !interrupted && String::from_utf8_lossy(&screen).contains("primes so far") {
            // `timeout` hands the interrupt on to the solve.
            let pid = std::fs::read_to_string(&pid_file).expect("the shell wrote its pid");
            let sent = Command::new("kill")
                .args(["-INT", pid.trim()])
                .status()
                .expect("kill runs");
            assert!(sent.success());
            interrupted = true;
        }
    }
    child.wait().expect("script ends");
    std::fs::remove_dir_all(&dir).ok();
    let screen = String::from_utf8_lossy(&screen);
    // Pig to 100 has 960896 states.
    assert!(
        screen.contains("960896 states explored and solved in floats"),
        "{screen}"
    );
    assert!(interrupted, "{screen}");
    assert!(screen.contains("error: interrupted after"), "{screen}");
}

/// A file-size limit hit while writing a strategy: an error line, exit 2, and the file that
/// was there before is untouched, with no temporary file left beside it.
#[cfg(target_os = "linux")]
#[test]
fn a_write_cut_short_leaves_the_old_file_in_place() {
    let dir = scratch("fsize");
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("strategy.json");
    std::fs::write(&target, "the old strategy").unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 20; exec '{}' strategy pig --goal 30 --out '{}'",
            env!("CARGO_BIN_EXE_perfectplay"),
            target.display()
        ))
        .output()
        .expect("sh runs");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("error: --out: cannot write"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "the old strategy"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // Without the limit the new strategy replaces the old file whole.
    let ok = run(
        &[
            "strategy",
            "pig",
            "--goal",
            "30",
            "--out",
            target.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
    let text = std::fs::read_to_string(&target).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["states"].as_array().unwrap().len() > 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Options that cannot go together are errors, not silent choices.
#[test]
fn conflicting_options_are_errors() {
    for args in [
        &["distribution", "pig", "--goal", "5", "--csv", "--json"][..],
        &[
            "play", "pig", "--goal", "5", "--side", "max", "--auto", "10",
        ][..],
    ] {
        let o = run(args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).starts_with("error: the argument")
                && stderr(&o).contains("cannot be used with"),
            "{}",
            stderr(&o)
        );
    }
}

/// Shell completions and the manual page come from the command line's own definition.
#[test]
fn completions_and_the_manual_page() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell], "");
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(
            script.contains("perfectplay") && script.contains("explain"),
            "{shell}"
        );
    }
    let bad = run(&["completions", "cmd.exe"], "");
    assert_eq!(bad.status.code(), Some(2));
    let man = run(&["man"], "");
    assert!(man.status.success());
    assert!(stdout(&man).contains(".SH NAME") && stdout(&man).contains("completions"));
}

/// Under an address-space limit (`prlimit --as`), a game too large for it stops with the
/// memory error line and exit 2, not an allocation failure: the solve's tables, the dense
/// numbering's slots and exploration's growth are all budgeted against the limit.
#[cfg(target_os = "linux")]
#[test]
fn an_address_space_limit_is_honoured() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("prlimit is not installed: skipped");
        return;
    }
    let pots: Vec<String> = (0..16_000)
        .map(|i| ((i * 7) % 13 + 1).to_string())
        .collect();
    let pots = pots.join(",");
    for args in [
        vec!["solve", "pig", "--goal", "300"],
        vec!["explain", "gold-pots", "--pots", pots.as_str()],
        vec!["distribution", "gold-pots", "--pots", pots.as_str()],
    ] {
        let out = Command::new("prlimit")
            .arg("--as=600000000")
            .arg(env!("CARGO_BIN_EXE_perfectplay"))
            .args(&args)
            .arg("-q")
            .output()
            .expect("prlimit runs");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", args[0]);
        assert!(
            err.starts_with(
                "error: too large: the game needs more memory than is left: stopped after"
            ),
            "{}: {err}",
            args[0]
        );
    }
}

/// Messages name the real ranges: K of hold-at-K runs to the goal, and a count is at least 1.
#[test]
fn ranges_in_messages_are_the_real_ones() {
    for (k, goal) in [("0", "10"), ("99999", "10"), ("11", "10")] {
        let o = run(
            &[
                "solve",
                "pig",
                "--goal",
                goal,
                "--opponent",
                &format!("hold-at-{k}"),
            ],
            "",
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("hold-at-{k}: K must be in 1..={goal} (the goal)")),
            "{}",
            stderr(&o)
        );
    }
    for args in [
        &["solve", "pig", "--goal", "10", "--max-states", "0"][..],
        &["play", "pig", "--goal", "10", "--auto", "0"][..],
    ] {
        let o = run(args, "");
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("it must be at least 1"),
            "{}",
            stderr(&o)
        );
    }
}

/// A list option reads from a file as `@FILE` or `--NAME-file FILE` (commas, spaces or new
/// lines between the numbers), for lists longer than a command line holds.
#[test]
fn list_options_read_from_files() {
    let dir = scratch("lists");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pots.txt");
    std::fs::write(&path, "4 1 2\n10, 3\n").unwrap();
    let path = path.to_str().unwrap();
    let plain = stdout(&run(
        &["solve", "gold-pots", "--pots", "4,1,2,10,3", "-q"],
        "",
    ));
    let at = format!("@{path}");
    for args in [
        vec!["solve", "gold-pots", "--pots", at.as_str(), "-q"],
        vec!["solve", "gold-pots", "--pots-file", path, "-q"],
    ] {
        assert_eq!(stdout(&run(&args, "")), plain, "{args:?}");
    }
    let stdin = run(
        &["solve", "gold-pots", "--pots", "@-", "-q"],
        "4,1,2,10,3\n",
    );
    assert_eq!(stdout(&stdin), plain);
    let both = run(
        &["solve", "gold-pots", "--pots", "1", "--pots-file", path],
        "",
    );
    assert_eq!(both.status.code(), Some(2));
    let missing = run(&["solve", "gold-pots", "--pots", "@/no/such/file"], "");
    assert!(
        stderr(&missing).starts_with("error: --pots: cannot read"),
        "{}",
        stderr(&missing)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Control characters echoed from the input are written as escapes, on the one error line.
#[test]
fn control_characters_in_errors_are_escaped() {
    let o = run(&["solve", "pig", "--goal", "1\r0\u{1b}[2J"], "");
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("1\\r0\\u{1b}[2J"), "{err:?}");
    assert_eq!(err.lines().count(), 1);
}
