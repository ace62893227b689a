//! `solve --processes N` and `solve --hostfile FILE --process I`: the solve across processes
//! from the command line, its answers against the exact one-process values, and its errors.

use std::process::{Command, Stdio};

use crate::common::{fails_with, file, run, text};

/// The exact value `solve --exact` prints, as a float.
fn exact(args: &[&str]) -> f64 {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--exact", "--json", "-q"]);
    let o = run(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["value"].as_f64().unwrap()
}

#[test]
fn processes_on_loopback_give_the_value_within_its_bound() {
    for (game, processes) in [
        (vec!["pig", "--goal", "10"], "2"),
        (
            vec![
                "yeetzhee", "--dice", "4", "--faces", "5", "--groups", "1,1,2",
            ],
            "3",
        ),
        (
            vec![
                "gold-pots",
                "--pots",
                "5,1,9,2,7,3",
                "--variant",
                "cooperative-known",
            ],
            "4",
        ),
    ] {
        let truth = exact(&game);
        let mut args = vec!["solve"];
        args.extend_from_slice(&game);
        args.extend_from_slice(&["--processes", processes, "--json"]);
        let o = run(&args);
        assert!(o.status.success(), "{game:?}: {}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let (value, bound) = (
            v["value"].as_f64().unwrap(),
            v["error_bound"].as_f64().unwrap(),
        );
        assert!(
            (value - truth).abs() <= bound + 4.0 * f64::EPSILON * truth.abs(),
            "{game:?}: {value} ± {bound}, but the value is {truth}"
        );
        assert_eq!(v["processes"].as_u64().unwrap().to_string(), processes);
        assert_eq!(
            v["peak_memory"].as_array().unwrap().len().to_string(),
            processes
        );
        assert!(v["messages"].as_u64().unwrap() > 0);
        assert!(v["method"].as_str().unwrap().starts_with("distributed"));
        assert_eq!(v["game"], game[0]);
        // The statistics line names the processes.
        let o = run(&args[..args.len() - 1]);
        let stderr = text(&o.stderr);
        assert!(
            stderr.contains(&format!("processes: {processes} × 1 worker")),
            "{stderr}"
        );
    }
}

#[test]
fn two_workers_per_process() {
    let o = run(&[
        "solve",
        "pig",
        "--goal",
        "8",
        "--processes",
        "2",
        "--workers",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["workers"], 2);
    let truth = exact(&["pig", "--goal", "8"]);
    assert!(
        (v["value"].as_f64().unwrap() - truth).abs() <= v["error_bound"].as_f64().unwrap() + 1e-15
    );
}

#[test]
fn bad_runs_are_errors() {
    fails_with(
        &["solve", "pig", "--goal", "5", "--processes", "2", "--exact"],
        "--exact is not available across processes",
    );
    fails_with(
        &[
            "solve",
            "pig",
            "--goal",
            "5",
            "--hostfile",
            "/nonexistent/hosts",
            "--process",
            "0",
        ],
        "cannot read '/nonexistent/hosts'",
    );
    let hosts = file("bad.hosts", "127.0.0.1:1\nnot-a-host\n");
    fails_with(
        &[
            "solve",
            "pig",
            "--goal",
            "5",
            "--hostfile",
            &hosts,
            "--process",
            "0",
        ],
        "line 2 of the host file, 'not-a-host', is not host:port",
    );
    let hosts = file("one.hosts", "# one process\n127.0.0.1:1\n");
    fails_with(
        &[
            "solve",
            "pig",
            "--goal",
            "5",
            "--hostfile",
            &hosts,
            "--process",
            "3",
        ],
        "process 3 does not exist",
    );
    fails_with(
        &["solve", "pig", "--goal", "5", "--hostfile", &hosts],
        "--process",
    );
    // The state limit across processes names its flag, as in one process.
    fails_with(
        &[
            "solve",
            "pig",
            "--goal",
            "30",
            "--processes",
            "2",
            "--max-states",
            "100",
        ],
        "raise the limit to go on (--max-states)",
    );
}

/// A host file of two free ports on loopback, named `name`.
fn two_hosts(name: &str) -> String {
    let listeners: Vec<_> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let lines: String = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    file(name, &lines)
}

/// Starts process `process` of a run of `solve pig --goal GOAL` over `hosts`.
fn start(hosts: &str, goal: &str, process: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args([
            "solve",
            "pig",
            "--goal",
            goal,
            "--hostfile",
            hosts,
            "--process",
            process,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A host file's port that another program listens at is an error that names it, exit 2.
#[test]
fn a_port_in_use_is_an_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let hosts = file("taken.hosts", &format!("127.0.0.1:{port}\n127.0.0.1:1\n"));
    let o = start(&hosts, "5", "0").wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = text(&o.stderr);
    assert!(
        stderr.starts_with(&format!("error: cannot listen at 127.0.0.1:{port}")),
        "{stderr}"
    );
    drop(taken);
}

/// (A port of the host file can be taken by another test's connection between the moment
/// it is found free and the moment the process listens at it: such a run, where a process
/// says it cannot listen, is tried again with fresh ports.)
#[test]
fn processes_of_different_commands_refuse_each_other() {
    for _ in 0..5 {
        let hosts = two_hosts("two.hosts");
        let a = start(&hosts, "5", "0");
        let b = start(&hosts, "6", "1");
        let outputs = [a, b].map(|child| child.wait_with_output().unwrap());
        if (outputs.iter()).any(|o| text(&o.stderr).contains("cannot listen at")) {
            continue;
        }
        for o in outputs {
            assert_eq!(o.status.code(), Some(2));
            assert!(
                text(&o.stderr).contains("different commands or models"),
                "{}",
                text(&o.stderr)
            );
        }
        return;
    }
    panic!("the ports of five host files in a row were taken before the processes listened");
}

/// (Tried again with fresh ports where a process could not listen: see
/// `processes_of_different_commands_refuse_each_other`.)
#[test]
fn a_process_that_dies_ends_the_run_with_an_error() {
    for _ in 0..5 {
        let hosts = two_hosts("dies.hosts");
        // Pig to 80 takes minutes across processes: long enough to be cut short.
        let mut first = start(&hosts, "80", "0");
        let mut second = start(&hosts, "80", "1");
        std::thread::sleep(std::time::Duration::from_millis(1500));
        second.kill().unwrap();
        let second = second.wait_with_output().unwrap();
        if text(&second.stderr).contains("cannot listen at") {
            first.kill().unwrap();
            first.wait().unwrap();
            continue;
        }
        let started = std::time::Instant::now();
        while first.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(60) {
                first.kill().unwrap();
                panic!("process 0 went on waiting for a process that had died");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = first.wait_with_output().unwrap();
        if text(&o.stderr).contains("cannot listen at") {
            continue;
        }
        assert_eq!(o.status.code(), Some(2));
        let stderr = text(&o.stderr);
        assert!(
            stderr.contains("connection to another process of the run was lost"),
            "{stderr}"
        );
        return;
    }
    panic!("the ports of five host files in a row were taken before the processes listened");
}

/// The processes that the launcher of `--processes` started, as (pid, `--process` index), read
/// from `/proc`.
fn launched_by(launcher: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent's pid is the second field after the command's name in parentheses.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        if after.split(' ').nth(1) != Some(&launcher.to_string()) {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if let Some(at) = args.iter().position(|a| a == "--process") {
            found.push((pid, args[at + 1].clone()));
        }
    }
    found
}

/// A process of a local run that dies ends the run with one error line, whichever process
/// noticed first (process 0, whose output is passed on as it comes, sees the lost connection
/// too, but says it only to the launcher), and the run's files are gone.
#[test]
fn a_launched_process_that_dies_ends_the_run_with_one_error_line() {
    // Pig to 80 takes minutes across processes: long enough to be cut short.
    let launcher = Command::new(env!("CARGO_BIN_EXE_perfectplay"))
        .args(["solve", "pig", "--goal", "80", "--processes", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let second = loop {
        let children = launched_by(launcher.id());
        if let Some((pid, _)) = children.iter().find(|(_, i)| i == "1") {
            if children.len() == 2 {
                break *pid;
            }
        }
        assert!(
            started.elapsed().as_secs() < 30,
            "the processes did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-9", &second.to_string()])
        .status();
    assert!(killed.unwrap().success());
    let pid = launcher.id();
    let o = launcher.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = text(&o.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("connection to another process of the run was lost")
            || errors[0].contains("process 1 ended with a signal"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&format!("perfectplay-{pid}-"))
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
