//! What a careless or hostile input does: an `error:` line and exit code 2, never a panic, an
//! abort or a silently changed answer. One test per way such an input used to break the tool.

use std::process::{Command, Output, Stdio};

use crate::common::{file, run, text};

const BIN: &str = env!("CARGO_BIN_EXE_perfectplay");

/// The one `error:` line (and any source excerpt under it) of a failed run, exit code 2.
fn failure(o: &Output) -> String {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    err
}

const COIN: &str =
    "module m\n  x : [0..1] init 0;\n  [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=0);\nendmodule\n";

/// `mod(i64::MIN, -1)` overflows a machine remainder; every remainder by -1 is 0.
#[test]
fn the_one_overflowing_remainder_is_zero_everywhere() {
    let min = "(-9223372036854775807-1)";
    let model = file(
        "mod.prism",
        &format!(
            "dtmc\nconst int c = mod({min}, -1);\nmodule m\n  x : [0..1] init 0;\n  y : [-1..1] init 0;\n  \
             [] x=0 & mod({min}, -1)=0 -> (x'=1) & (y'=mod({min}, -1));\nendmodule\n"
        ),
    );
    let o = run(&[
        "check",
        &model,
        "--prop",
        &format!("P=? [ F x=1 & y=c & mod({min}, -1)=0 ]"),
        "-q",
    ]);
    assert_eq!(
        text(&o.stdout),
        format!(
            "P=? [ F x = 1 & y = c & mod({}, -1) = 0 ]: 1\n",
            "-9223372036854775807 - 1"
        ),
        "{}",
        text(&o.stderr)
    );
}

/// `/dev/zero` never ends: inputs are read up to a limit.
#[test]
fn an_endless_input_is_an_error_not_a_read_for_ever() {
    let model = file("coin.prism", &format!("dtmc\n{COIN}"));
    for args in [
        vec!["check", "/dev/zero", "--prop", "P=? [ F x=1 ]"],
        vec!["check", &model, "/dev/zero"],
        vec!["solve", "grid-game", "--grid-file", "/dev/zero"],
    ] {
        let err = failure(&run(&args));
        assert!(
            err.contains("/dev/zero") && err.contains("larger than 64 MiB"),
            "{err}"
        );
    }
}

/// Runs `args` with the address space limited to `kib` KiB (`ulimit -v`).
fn limited(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .output()
        .expect("sh runs")
}

/// Under a memory limit the PRISM parser and builder stop with an error, not an abort: the
/// memory guard's (the builder's, the parser's check that a text fits) where it sees the end
/// coming, the allocator's last guard where it does not.
#[test]
fn a_memory_limit_ends_in_an_error_line() {
    let out_of_memory = |o: &Output| {
        let err = failure(o);
        assert!(
            err.contains("more memory than is left") || err.starts_with("error: out of memory: "),
            "{err}"
        );
    };
    // A build that outgrows 300 MB.
    let consensus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perfectplay-prism/tests/qvbs/models/consensus/consensus.6.prism"
    );
    out_of_memory(&limited(
        300_000,
        &[
            "check",
            consensus,
            "--const",
            "K=4",
            "--prop",
            "Pmin=? [ F \"finished\" ]",
        ],
    ));
    // A model text whose parse alone would outgrow 40 MB.
    let mut labels = format!("dtmc\n{COIN}");
    for i in 0..200_000 {
        labels.push_str(&format!("label \"l{i}\" = x=1;\n"));
    }
    let model = file("labels.prism", &labels);
    out_of_memory(&limited(
        40_000,
        &["check", &model, "--prop", "P=? [ F x=1 ]"],
    ));
    // Every initial state of two huge ranges.
    let model = file(
        "initial.prism",
        "dtmc\nmodule m\n  x : [0..100000000];\n  y : [0..100000000];\n  [] true -> (x'=x);\nendmodule\ninit true endinit\n",
    );
    out_of_memory(&limited(
        200_000,
        &["check", &model, "--prop", "P=? [ F x=1 ]"],
    ));
}

/// A standard output or error that cannot be written: exit code 2, never a panic or an abort.
#[test]
fn unwritable_output_is_exit_code_two() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let o = Command::new(BIN)
        .args(["completions", "bash"])
        .stdout(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).starts_with("error: cannot write the completions"));
    // stderr full: an error cannot be said, and a success's statistics are lost, so both
    // end with 2; what stdout had to say is there whole.
    let o = Command::new(BIN)
        .args(["check", "/nonexistent.prism", "--prop", "P=? [ F x=1 ]"])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(BIN)
        .args(["solve", "pig", "--goal", "10"])
        .stderr(full())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o.stdout), "0.709424322598\n");
}

/// Each way of naming one thing twice, which PRISM rejects, is an error naming both places.
#[test]
fn a_name_given_two_meanings_is_an_error_naming_both() {
    let check = |name: &str, model: &str, extra: &[&str], words: &[&str]| {
        let path = file(name, model);
        let mut args = vec!["check", &path, "--prop", "P=? [ F true ]"];
        args.extend(extra);
        let err = failure(&run(&args));
        for w in words {
            assert!(err.contains(w), "{name}: '{w}' not in {err}");
        }
    };
    let head = |h: &str| format!("{h}\n{COIN}");
    check(
        "given_twice.prism",
        &head("dtmc\nconst int N;"),
        &["--const", "N=3", "--const", "N=2"],
        &["'N' is given two values, N=3 and N=2"],
    );
    check(
        "given_twice_in_one.prism",
        &head("dtmc\nconst int N;"),
        &["--const", "N=3,N=3"],
        &["'N' is given two values"],
    );
    check(
        "defined.prism",
        &head("dtmc\nconst int N = 3;"),
        &["--const", "N=2"],
        &[
            "defined.prism:2:11:",
            "'N' is defined in the model and given the value N=2",
        ],
    );
    check(
        "const_formula.prism",
        &head("dtmc\nconst int N = 3;\nformula N = 2;"),
        &[],
        &[
            "const_formula.prism:3:9:",
            "'N' is a constant (at line 2, column 11) and a formula",
        ],
    );
    check(
        "formula_const.prism",
        &head("dtmc\nformula N = 2;\nconst int N = 3;"),
        &[],
        &["'N' is a formula (at line 2, column 9) and a constant"],
    );
    check(
        "formula_var.prism",
        &head("dtmc\nformula x = 2;"),
        &[],
        &[
            "formula_var.prism:4:3:",
            "'x' is a formula (at line 2, column 9) and a variable",
        ],
    );
    for builtin in ["init", "deadlock"] {
        check(
            &format!("{builtin}.prism"),
            &format!("dtmc\n{COIN}label \"{builtin}\" = x=1;\n"),
            &[],
            &[&format!(
                "label \"{builtin}\" is built in and cannot be redefined"
            )],
        );
    }
    check(
        "label_twice.prism",
        &format!("dtmc\n{COIN}label \"a\" = x=1;\nlabel \"a\" = x=0;\n"),
        &[],
        &["label \"a\" is declared twice (first at line 6, column 7)"],
    );
    check(
        "renamed_twice.prism",
        &format!("dtmc\n{COIN}module n = m [x=y, x=z] endmodule\n"),
        &[],
        &[
            "renamed_twice.prism:6:20:",
            "'x' is renamed twice, to 'y' (at line 6, column 17) and to 'z'",
        ],
    );
    check(
        "renamed_onto.prism",
        &format!("dtmc\nglobal y : [0..1];\nglobal z : [0..1];\n{COIN}module n = m [x=z, y=z] endmodule\n"),
        &[],
        &["'x' (at line 8, column 15) and 'y' are both renamed to 'z'"],
    );
    check(
        "two_players.prism",
        &format!("smg\nplayer p1 m endplayer\nplayer p2 m endplayer\n{COIN}"),
        &[],
        &[
            "two_players.prism:3:11:",
            "module 'm' is controlled by players 'p1' and 'p2'",
        ],
    );
    check(
        "one_player_twice.prism",
        &format!(
            "smg\nplayer p1 m endplayer\nplayer p1 n endplayer\n{COIN}module n = m [x=y] endmodule\n"
        ),
        &[],
        &["player 'p1' is declared twice (first at line 2, column 8)"],
    );
    // A properties file's constant with a value is not overridden either.
    let model = file("props_const.prism", &format!("dtmc\n{COIN}"));
    let props = file("props_const.props", "const int k = 1;\nP=? [ F x=k ]\n");
    let err = failure(&run(&["check", &model, &props, "--const", "k=0"]));
    assert!(
        err.contains("'k' is defined in the properties and given the value k=0"),
        "{err}"
    );
}

/// What is asked but is no property says so, before any build.
#[test]
fn no_property_is_said_so() {
    let model = file("none.prism", &format!("dtmc\n{COIN}"));
    let err = failure(&run(&["check", &model, "--prop", "1"]));
    assert!(
        err.contains("--prop 1: a number picks a property of the properties file by its place")
            && err.contains("no properties file is given"),
        "{err}"
    );
    let err = failure(&run(&["explain", &model, "--prop", "2"]));
    assert!(err.contains("--prop 2: a number picks"), "{err}");
    let empty = file("empty.props", "// nothing here\n");
    let err = failure(&run(&["check", &model, &empty]));
    assert!(
        err.contains("empty.props has no properties to check"),
        "{err}"
    );
}

/// A name with an escape sequence is shown as text, not acted on by the terminal.
#[test]
fn escape_bytes_in_names_are_shown_escaped() {
    let model = file(
        "esc.prism",
        &format!("dtmc\n{COIN}label \"a\u{1b}[31mb\" = x=1;\n"),
    );
    let props = file("esc.props", "\"n\u{1b}[2Jm\": P=? [ F \"a\u{1b}[31mb\" ]\n");
    let o = run(&["check", &model, &props, "-q"]);
    assert_eq!(text(&o.stdout), "n\\u{1b}[2Jm: 1\n", "{}", text(&o.stderr));
    // JSON keeps the name as it is, in escapes JSON reads back (DEL and C1 controls too).
    let props = file("c1.props", "\"n\u{9b}m\u{7f}\": P=? [ F x=1 ]\n");
    let o = run(&["check", &model, &props, "--json", "-q"]);
    assert!(!text(&o.stdout).contains(['\u{9b}', '\u{7f}']));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["results"][0]["name"], "n\u{9b}m\u{7f}");
    let bad = file(
        "esc_bad.prism",
        "dtmc\nmodule m x : [0..1] init 0; [] x\u{1b}=0 -> (x'=1); endmodule\n",
    );
    let err = failure(&run(&["check", &bad, "--prop", "P=? [ F x=1 ]"]));
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(
        err.contains("x\\u{1b}=0 -> (x'=1); endmodule\n  |                                 ^^^^^^"),
        "{err}"
    );
}

/// A model with many constants in reverse order of definition, many labels and many reward
/// structures checks in one pass each (these took hours, minutes and seconds when the passes
/// were quadratic or worse; the time is a benchmark's, `benches/parse.rs`).
#[test]
fn many_declarations_in_any_order_are_read() {
    let n = 20_000;
    let mut src = String::from("dtmc\n");
    for i in (1..n).rev() {
        src.push_str(&format!("const int c{i} = c{} + 1;\n", i - 1));
    }
    src.push_str("const int c0 = 0;\n");
    src.push_str(COIN);
    for i in 0..n {
        src.push_str(&format!(
            "label \"l{i}\" = x=1;\nrewards \"r{i}\" x=0 : {i}; endrewards\n"
        ));
    }
    let model = file("many.prism", &src);
    let o = run(&[
        "check",
        &model,
        "--prop",
        &format!("R{{\"r7\"}}=? [ F \"l{}\" ] + c{}", n - 1, n - 1),
        "--exact",
        "-q",
    ]);
    // Two flips expected, each earning 7, plus the last constant.
    assert_eq!(
        text(&o.stdout),
        format!(
            "R{{\"r7\"}}=? [ F \"l{}\" ] + c{}: {}\n",
            n - 1,
            n - 1,
            14 + n - 1
        ),
        "{}",
        text(&o.stderr)
    );
}

/// A step bound far beyond the model: `check` answers it in floats by backups over the
/// states, whatever the bound; the exact check, explain and play, which solve the model with
/// the steps counted, say at once that it is too large, rather than exploring it for minutes.
#[test]
fn a_step_bound_far_beyond_the_model_is_answered_or_refused_at_once() {
    let model = file("coin.prism", &format!("dtmc\n{COIN}"));
    for prop in ["P=? [ F>=100000000 x=1 ]", "P=? [ F<=100000000 x=1 ]"] {
        let o = run(&["check", &model, "--prop", prop, "-q"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout).trim_end(),
            format!("{}: 1", prop.replace("x=1", "(x = 1)"))
        );
        let o = run(&["check", &model, "--prop", prop, "--exact", "-q"]);
        assert!(failure(&o).contains("more than 50000000 states"));
        let o = run(&["explain", &model, "--prop", prop]);
        assert!(failure(&o).contains("checking the property answers it"));
    }
}
