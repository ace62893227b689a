//! Random argument lists at the command line: every run ends with an answer or a one-line
//! `error:` and exit code 2, never a panic or a hang.

use std::process::{Command, Stdio};

use proptest::prelude::*;

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("solve".to_string()),
        Just("games".to_string()),
        prop::sample::select(vec![
            "perfect-memory",
            "subset-sum-extreme",
            "yeetzhee",
            "gold-pots",
            "grid-game",
            "--rows",
            "--cols",
            "--blocks",
            "--faces",
            "--dice",
            "--groups",
            "--pots",
            "--variant",
            "--grid",
            "--method",
            "--exact",
            "--json",
            "--quiet",
            "--help",
            "cooperative-unknown",
            "search",
            "assignment",
            "-",
            "",
            ",",
            ";",
            "1,,2",
            "0",
            "-1",
            "99999999999999999999",
            "1 2;3 4",
            "3,3,3",
            "50",
        ])
        .prop_map(str::to_string),
        any::<i16>().prop_map(|n| n.to_string()),
        "[ -~]{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_arguments_never_panic(mut args in prop::collection::vec(token(), 0..7)) {
        if args.first().map(String::as_str) != Some("games") {
            args.insert(0, "solve".to_string());
        }
        // Keep every solve small.
        args.push("--max-states".to_string());
        args.push("20000".to_string());
        let o = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let code = o.status.code();
        prop_assert!(code == Some(0) || code == Some(2), "{args:?}: {code:?} {err}");
        prop_assert!(!err.contains("panicked") && !err.contains("internal error"), "{args:?}: {err}");
        if code == Some(2) && !err.contains("Usage:") {
            prop_assert_eq!(err.lines().count(), 1, "{:?}: {}", args, err);
            prop_assert!(err.starts_with("error: "), "{:?}: {}", args, err);
        }
    }
}
