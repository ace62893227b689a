//! Every shell example of the user guide (`docs/*.md`, the ```sh blocks) is run here with the
//! tool built by this test: each command must succeed, and a command whose comment starts
//! with `→` must print what follows the arrow. A block that starts `perfectplay serve` runs
//! the server (on a free port) for the `curl` lines after it, which must be answered with
//! status 200. Commands run in a scratch folder in which `crates` is the repository's, so
//! that the examples' files are found and the files they write land there.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The ```sh blocks of a Markdown text, each as its command lines (continuations joined).
fn blocks(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == "```sh" => current = Some(Vec::new()),
            None => {}
            Some(_) if trimmed.starts_with("```") => out.push(current.take().unwrap()),
            Some(lines) => {
                if let Some(head) = line.strip_suffix('\\') {
                    pending.push_str(head);
                    continue;
                }
                pending.push_str(line);
                let command = std::mem::take(&mut pending);
                if !command.trim().is_empty() && !command.trim_start().starts_with('#') {
                    lines.push(command.trim().to_string());
                }
            }
        }
    }
    out
}

/// A command and the output its comment promises (`# → text`), if any.
fn split_comment(line: &str) -> (String, Option<String>) {
    match line.find("  # ") {
        Some(i) => {
            let comment = line[i + 4..].trim();
            let want = comment.strip_prefix('→').map(|w| w.trim().to_string());
            (line[..i].trim().to_string(), want)
        }
        None => (line.to_string(), None),
    }
}

/// A server started by a block, killed at the end of it.
struct Server(std::process::Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(command: &str, dir: &Path, path: &str) -> Server {
    // On a free port, whatever the example says.
    let words: Vec<&str> = command.trim_end_matches('&').split_whitespace().collect();
    let mut kept = Vec::new();
    let mut skip = false;
    for w in words {
        match (skip, w) {
            (true, _) => skip = false,
            (false, "--port") => skip = true,
            (false, "--no-open") => {}
            (false, w) => kept.push(w),
        }
    }
    let command = kept.join(" ");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec {command} --port 0 --no-open --quiet"))
        .current_dir(dir)
        .env("PATH", path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let at = line
        .find("http://")
        .unwrap_or_else(|| panic!("{command}: {line}"))
        + 7;
    let address = line[at..].split('/').next().unwrap().to_string();
    Server(child, address)
}

/// `curl 'http://HOST:PORT/PATH'` against the block's server: the status.
fn curl(command: &str, server: &Server) -> (u16, String) {
    let url = command
        .trim_start_matches("curl")
        .trim()
        .trim_matches('\'')
        .trim_matches('"');
    let path = &url[url["http://".len()..].find('/').unwrap() + "http://".len()..];
    let mut s = TcpStream::connect(&server.1).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", server.1).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    (answer[9..12].parse().unwrap(), answer)
}

#[test]
fn every_shell_example_of_the_guide_runs() {
    let docs = root().join("docs");
    let bin = Path::new(env!("CARGO_BIN_EXE_perfectplay"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = crate::common::scratch("docs");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("crates");
    if !link.exists() {
        std::os::unix::fs::symlink(root().join("crates"), &link).unwrap();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut ran = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for block in blocks(&text) {
            let mut server: Option<Server> = None;
            for line in block {
                let (command, want) = split_comment(&line);
                let name = file.file_name().unwrap().to_string_lossy();
                ran += 1;
                if command.starts_with("perfectplay serve") {
                    server = Some(start_server(&command, &dir, &path));
                    continue;
                }
                if command.starts_with("curl") {
                    let server = server.as_ref().expect("a server started above");
                    let (status, answer) = curl(&command, server);
                    assert_eq!(status, 200, "{name}: {command}: {answer}");
                    if let Some(want) = want {
                        assert!(answer.contains(&want), "{name}: {command}: {answer}");
                    }
                    continue;
                }
                let mut child = Command::new("sh")
                    .arg("-c")
                    .arg(&command)
                    .current_dir(&dir)
                    .env("PATH", &path)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("sh runs");
                // An interactive `play` is told to quit.
                let _ = child.stdin.take().unwrap().write_all(b"quit\n");
                let o = child.wait_with_output().unwrap();
                let printed = format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
                assert!(o.status.success(), "{name}: {command}:\n{printed}");
                if let Some(want) = want {
                    assert!(
                        printed.contains(&want),
                        "{name}: {command}: want {want}:\n{printed}"
                    );
                }
            }
        }
    }
    assert!(ran >= 30, "only {ran} examples found");
    let _ = std::fs::remove_dir_all(&dir);
}
