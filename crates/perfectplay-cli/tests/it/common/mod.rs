//! What the command-line tests share: running the binary, reading its output, and files of a
//! test's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `perfectplay` binary with `args`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// A folder of this test program's own named `name`, made if need be: in the build's folder
/// for tests' files (`target/tmp`), which `cargo clean` clears, rather than the system's.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("perfectplay-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `content` to a file in a folder of this test program's own and returns its path.
pub fn file(name: &str, content: &str) -> String {
    let path = scratch("files").join(name);
    std::fs::write(&path, content).unwrap();
    path.to_string_lossy().to_string()
}

/// Asserts that `args` fail as bad input does: exit code 2 and an `error:` line that contains
/// `words`.
#[allow(dead_code)]
pub fn fails_with(args: &[&str], words: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
    let stderr = text(&o.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains(words),
        "{args:?}: {stderr}"
    );
}
