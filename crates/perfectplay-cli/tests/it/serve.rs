//! `perfectplay serve` end to end: the real binary on a free port, asked over a socket as a
//! browser asks it. The API answers what the other commands print; bad requests are 400 and
//! the server goes on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A running `perfectplay serve …`, stopped when dropped.
struct Served {
    child: Child,
    address: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .arg("serve")
        .args(args)
        .args(["--port", "0", "--no-open", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the address is printed");
    let start = line.find("http://").expect("an address") + "http://".len();
    let address = line[start..].split('/').next().unwrap().to_string();
    Served { child, address }
}

/// Sends raw `request` and returns (status, headers, body).
fn raw(address: &str, request: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(address).expect("the server listens");
    s.write_all(request).expect("sent");
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).expect("an answer");
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).to_string();
    let status = head[9..12].parse().expect("a status");
    (status, head, answer[split + 4..].to_vec())
}

fn get(address: &str, target: &str) -> (u16, String, String) {
    let request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\n\r\n");
    let (status, head, body) = raw(address, request.as_bytes());
    (status, head, String::from_utf8(body).expect("UTF-8"))
}

fn cli(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{args:?}");
    String::from_utf8(o.stdout).unwrap()
}

fn query(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn explain_answers_what_the_command_prints() {
    let s = serve(&["pig", "--goal", "20"]);
    for state in [
        None,
        Some("A 0 B 0, A to move, turn 3"),
        Some("A 12 B 17, B to move, turn 0"),
        Some("B wins"),
    ] {
        let mut args = vec!["explain", "pig", "--goal", "20", "--json", "-q"];
        let target = match state {
            Some(text) => {
                args.extend(["--state", text]);
                format!("/api/explain?state={}", query(text))
            }
            None => "/api/explain".to_string(),
        };
        let (status, head, body) = get(&s.address, &target);
        assert_eq!(status, 200, "{target}: {body}");
        assert_eq!(body, cli(&args), "{target}");
        assert!(head.contains("X-State-Id: "), "{head}");
    }
}

#[test]
fn bad_requests_are_400_and_the_server_goes_on() {
    let s = serve(&["yeetzhee", "--dice", "3", "--faces", "4", "--groups", "1,2"]);
    let o = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args([
            "explain", "yeetzhee", "--dice", "3", "--faces", "4", "--groups", "1,2",
        ])
        .args(["--state", "groups [9] to roll", "-q"])
        .output()
        .unwrap();
    let printed = String::from_utf8(o.stderr).unwrap();
    let message = printed
        .trim_end()
        .strip_prefix("error: --state: ")
        .expect("the command's error");
    let (status, _, body) = get(&s.address, "/api/explain?state=groups+%5B9%5D+to+roll");
    assert_eq!(status, 400);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["error"], message);
    for target in [
        "/api/explain?id=99999999",
        "/api/explain?id=x",
        "/api/explain?id=1&state=groups+%5B%5D+to+roll",
        "/api/explain?state=%zz",
        "/api/distribution?tail=2",
        "/api/play?seed=-1",
    ] {
        let (status, _, body) = get(&s.address, target);
        assert_eq!(status, 400, "{target}: {body}");
        assert!(body.starts_with("{\"error\":"), "{target}: {body}");
    }
    let (status, _, _) = get(&s.address, "/../../etc/passwd");
    assert_eq!(status, 404);
    let (status, _, _) = get(&s.address, "/Cargo.toml");
    assert_eq!(status, 404);
    let (status, _, _) = raw(&s.address, b"POST /api/game HTTP/1.1\r\n\r\n");
    assert_eq!(status, 405);
    let (status, _, _) = raw(&s.address, b"nonsense\r\n\r\n");
    assert_eq!(status, 400);
    let mut huge = b"GET /api/game HTTP/1.1\r\n".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 20_000));
    huge.extend(b"\r\n\r\n");
    let (status, _, _) = raw(&s.address, &huge);
    assert_eq!(status, 431);
    // Still serving.
    let (status, _, body) = get(&s.address, "/api/game");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"yeetzhee\""), "{body}");
}

#[test]
fn the_page_and_its_assets_are_served() {
    let s = serve(&["gold-pots", "--pots", "4,1,2,10,3"]);
    let (status, head, body) = get(&s.address, "/");
    assert_eq!(status, 200);
    assert!(head.contains("text/html"), "{head}");
    assert!(body.contains("<script src=\"/app.js\">"), "{body}");
    for asset in ["/app.js", "/style.css"] {
        let (status, _, body) = get(&s.address, asset);
        assert_eq!(status, 200, "{asset}");
        assert!(body.len() > 1000, "{asset}");
    }
    // No address outside this machine in the page: it works offline.
    for asset in ["/", "/app.js", "/style.css"] {
        let (_, _, body) = get(&s.address, asset);
        assert!(!body.contains("https://"), "{asset}");
    }
}

#[test]
fn distribution_and_strategy_match_the_commands() {
    let args = ["perfect-memory", "--rows", "2", "--cols", "3", "--exact"];
    let s = serve(&args);
    let (status, _, body) = get(&s.address, "/api/distribution");
    assert_eq!(status, 200, "{body}");
    let mut command = vec!["distribution"];
    command.extend(args);
    command.extend(["--json", "-q"]);
    assert_eq!(body, cli(&command));
    let (status, head, body) = get(&s.address, "/api/strategy.csv");
    assert_eq!(status, 200);
    assert!(
        head.contains("attachment; filename=\"strategy.csv\""),
        "{head}"
    );
    let dir = crate::common::scratch("serve");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.csv");
    let mut command = vec!["strategy"];
    command.extend(args);
    command.extend(["--out", file.to_str().unwrap(), "-q"]);
    cli(&command);
    assert_eq!(body, std::fs::read_to_string(&file).unwrap());
    let (status, _, body) = get(&s.address, "/api/strategy.json");
    assert_eq!(status, 200);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["game"], "perfect-memory");
    assert_eq!(json["params"]["rows"], "2");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_play_follows_the_strategy_to_the_end() {
    let s = serve(&["pig", "--goal", "15"]);
    let (status, _, body) = get(&s.address, "/api/play?seed=7");
    assert_eq!(status, 200, "{body}");
    let play: serde_json::Value = serde_json::from_str(&body).unwrap();
    let steps = play["steps"].as_array().unwrap();
    assert!(play["finished"].as_bool().unwrap());
    let last = steps.last().unwrap();
    assert!(["A wins", "B wins"].contains(&last["state"].as_str().unwrap()));
    // Every decision plays the move the strategy chooses there.
    for step in &steps[..steps.len() - 1] {
        let (_, _, e) = get(&s.address, &format!("/api/explain?id={}", step["id"]));
        let e: serde_json::Value = serde_json::from_str(&e).unwrap();
        assert_eq!(e["state"], step["state"]);
        if let Some(moves) = e["moves"].as_array() {
            let chosen = moves.iter().find(|m| m["chosen"] == true).unwrap();
            assert_eq!(chosen["move"], step["played"]);
        }
    }
    // The same seed, the same play.
    let (_, _, again) = get(&s.address, "/api/play?seed=7");
    assert_eq!(body, again);
}

#[test]
fn a_prism_model_is_served_with_its_property_and_labels() {
    let dir = crate::common::scratch("serve-prism");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("walk.prism");
    std::fs::write(
        &model,
        "mdp\nmodule m\n x : [0..3] init 1;\n [] x>0 & x<3 -> 0.5:(x'=x+1) + 0.5:(x'=x-1);\n \
         [] x>0 & x<3 -> (x'=3);\nendmodule\nlabel \"top\" = x=3;\nlabel \"low\" = x<2;\n",
    )
    .unwrap();
    let path = model.to_str().unwrap();
    let s = serve(&[path, "--prop", "Pmax=? [ F \"top\" ]"]);
    let (status, _, body) = get(&s.address, "/api/game");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Pmax=? [ F \\\"top\\\" ]"), "{body}");
    assert!(body.contains("(x=1)"), "{body}");
    let (status, _, view) = get(&s.address, "/api/view");
    assert_eq!(status, 200);
    assert!(view.contains("<code>\"low\"</code>"), "{view}");
    assert!(!view.contains("<code>\"top\"</code>"), "{view}");
    let (_, _, e) = get(&s.address, "/api/explain");
    assert_eq!(
        e,
        cli(&[
            "explain",
            path,
            "--prop",
            "Pmax=? [ F \"top\" ]",
            "--json",
            "-q"
        ])
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_interrupt_stops_the_server_without_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args([
            "serve",
            "pig",
            "--goal",
            "10",
            "--port",
            "0",
            "--no-open",
            "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "stopped serving\n");
}
