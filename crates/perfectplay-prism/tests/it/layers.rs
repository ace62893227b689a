//! The crate is laid out as its pipeline, and each phase's code (tests inside it included)
//! names only the phases before it: syntax → program → build → analysis → the front door
//! (`session.rs`). Doc comments may point anywhere. The crate's `Error` (`error.rs`, which
//! wraps every phase's error) is the front door's, and no phase names it: each phase's errors
//! are its own type (the analysis's carries what it meets of the earlier phases), so the
//! errors depend one way too.

use std::path::Path;

const PHASES: [&str; 5] = ["syntax", "program", "build", "analysis", "session"];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_phase_names_only_the_phases_before_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (i, phase) in PHASES.iter().enumerate().take(4) {
        let mut all = Vec::new();
        files(&src.join(phase), &mut all);
        assert!(!all.is_empty(), "no files under src/{phase}");
        seen += all.len();
        for file in all {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                let front_error = code.contains("crate::error") || code.contains("crate::Error");
                if front_error
                    || PHASES[i + 1..]
                        .iter()
                        .any(|later| code.contains(&format!("crate::{later}")))
                {
                    wrong.push(format!("{}:{}: {}", file.display(), n + 1, code));
                }
            }
        }
    }
    assert!(seen > 20, "only {seen} files found");
    assert!(
        wrong.is_empty(),
        "a phase names a later one:\n{}",
        wrong.join("\n")
    );
}
