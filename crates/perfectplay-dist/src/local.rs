//! A run of several processes on this machine, talking over loopback: the command line's
//! `--processes N`. The launcher picks free ports, writes a host file, starts the same
//! command N times with `--hostfile FILE --process I`, and watches them: the first process
//! that fails ends the others, so a run ends with an error instead of waiting for ever.
//! Process 0's output is passed on as it comes: its answers, and on standard error its
//! statistics and the error lines of properties that could not be answered. The line of an
//! error that ends a process (a port it cannot listen at, a lost connection, memory) is not
//! printed by it but written to a file of its own ([`fatal_file`]), which the launcher reads:
//! so the run says one error line, of the process that failed first, and an attempt whose
//! port was taken before its process could listen at it is made again on other ports without
//! a trace.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::DistError;

/// How a local run ended, when no process failed: process 0's output was passed on by [`run`]
/// as it came.
#[derive(Debug)]
pub struct Printed {
    /// Whether process 0 finished with some of its work failed ([`FINISHED_WITH_ERRORS`]):
    /// a command of several parts (properties), some of which failed and the rest answered.
    pub failed: bool,
}

/// The exit code of a process of a local run that finished its part but some of its work
/// failed and said so on stderr (a property of several that could not be answered): the run
/// is not broken, the others go on, and the launcher exits as that process would alone.
pub const FINISHED_WITH_ERRORS: i32 = 3;

/// The environment variable by which a process knows that a local run's launcher started
/// it, and so may end with [`FINISHED_WITH_ERRORS`]: the path of its [`fatal_file`].
const LAUNCHED: &str = "PERFECTPLAY_LOCAL_RUN";

/// Where a process that a local run's launcher started writes the line of an error that ends
/// it, instead of its standard error: the launcher reads it and says the run's one error line
/// (or, for a port taken meanwhile, starts the run again). `None` in a process the user
/// started.
pub fn fatal_file() -> Option<PathBuf> {
    std::env::var_os(LAUNCHED)
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
}

/// The exit code with which a process that finished its part with some of its work failed
/// ends: [`FINISHED_WITH_ERRORS`] in a local run, which the launcher reads, and 2 (bad input)
/// in a process the user started.
pub fn finished_with_errors() -> u8 {
    match std::env::var_os(LAUNCHED) {
        Some(_) => FINISHED_WITH_ERRORS as u8,
        None => 2,
    }
}

/// The files of a run (its host file, its processes' fatal files), removed when it ends; each
/// is noted to `temporary` as it is made and as it goes, so that a caller that ends on an
/// interrupt can remove what is left.
struct RunFiles<'a> {
    paths: Vec<PathBuf>,
    temporary: &'a dyn Fn(&Path, bool),
}

impl RunFiles<'_> {
    /// Names a file of the run, `name` after a stem of this process and moment.
    fn add(&mut self, stem: &str, name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("{stem}-{name}"));
        (self.temporary)(&path, true);
        self.paths.push(path.clone());
        path
    }
}

impl Drop for RunFiles<'_> {
    fn drop(&mut self) {
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
            (self.temporary)(path, false);
        }
    }
}

/// A started process with the threads that read its output (process 0's passed on by
/// [`passer`], every other output kept by [`reader`]) and its fatal file.
struct Started {
    child: Child,
    stdout: Option<JoinHandle<std::io::Result<Vec<u8>>>>,
    stderr: Option<JoinHandle<std::io::Result<Vec<u8>>>>,
    fatal: PathBuf,
}

/// A thread that reads `pipe` to its end and returns what it read.
fn reader(mut pipe: impl Read + Send + 'static) -> JoinHandle<std::io::Result<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = pipe.read_to_end(&mut out);
        Ok(out)
    })
}

/// Which of this process's outputs a [`passer`] writes to.
#[derive(Clone, Copy)]
enum Out {
    Stdout,
    Stderr,
}

/// A thread that passes what `pipe` brings on to this process's output `to` as it comes, and
/// returns the first error of writing it (after which it reads the rest and drops it, so that
/// the process it reads from is never stuck on a full pipe). `printed` is set once anything
/// came.
fn passer(
    mut pipe: impl Read + Send + 'static,
    to: Out,
    printed: Arc<AtomicBool>,
) -> JoinHandle<std::io::Result<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        let mut failed = None;
        loop {
            let n = match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            printed.store(true, Ordering::Relaxed);
            if failed.is_none() {
                let written = match to {
                    Out::Stdout => write_all(std::io::stdout().lock(), &chunk[..n]),
                    Out::Stderr => write_all(std::io::stderr().lock(), &chunk[..n]),
                };
                failed = written.err();
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(Vec::new()),
        }
    })
}

/// Writes `bytes` to `out` and flushes it.
fn write_all(mut out: impl Write, bytes: &[u8]) -> std::io::Result<()> {
    out.write_all(bytes).and_then(|()| out.flush())
}

/// Free ports on loopback, one per process.
fn free_ports(n: usize) -> Result<Vec<u16>, DistError> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| DistError::Network(format!("cannot find free ports on loopback: {e}")))?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<_, _>>()
        .map_err(|e| DistError::Network(e.to_string()))
}

/// How many times a run is started on fresh ports when a port it picked was taken before its
/// process could listen at it (another program may take a free port at any time).
const ATTEMPTS: usize = 8;

/// Runs `processes` processes of `exe` with `args` on this machine as one run (each gets
/// `--hostfile FILE --process I` appended), passing process 0's output on as it comes. If a
/// process fails, the others are ended and its error line is the error; where it failed
/// because the free port picked for it was taken meanwhile, the run starts again on other
/// ports. The run's files are noted to `temporary` as they are made (`true`) and removed
/// (`false`).
pub fn run(
    exe: &Path,
    args: &[OsString],
    processes: usize,
    temporary: &dyn Fn(&Path, bool),
) -> Result<Printed, DistError> {
    let mut attempt = 1;
    loop {
        // Whether process 0 printed anything: an attempt that did (a command of several
        // runs, whose later run lost its port) is not made again, which would print it twice.
        let printed = Arc::new(AtomicBool::new(false));
        match run_once(exe, args, processes, &printed, temporary) {
            Err(DistError::Solve(e))
                if e.contains(crate::net::CANNOT_LISTEN)
                    && attempt < ATTEMPTS
                    && !printed.load(Ordering::Relaxed) =>
            {
                attempt += 1;
            }
            done => return done,
        }
    }
}

/// One attempt of [`run`], on ports picked now; `printed` is set once process 0 prints.
fn run_once(
    exe: &Path,
    args: &[OsString],
    processes: usize,
    printed: &Arc<AtomicBool>,
    temporary: &dyn Fn(&Path, bool),
) -> Result<Printed, DistError> {
    let ports = free_ports(processes)?;
    let hosts: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let stem = format!("perfectplay-{}-{nanos}", std::process::id());
    let mut files = RunFiles {
        paths: Vec::new(),
        temporary,
    };
    let host_file = files.add(&stem, "hosts");
    std::fs::write(&host_file, hosts)
        .map_err(|e| DistError::Hostfile(format!("cannot write {}: {e}", host_file.display())))?;
    let mut started: Vec<Started> = Vec::with_capacity(processes);
    for i in 0..processes {
        // The process makes it as it starts, and writes to it only if it fails.
        let fatal = files.add(&stem, &format!("{i}.fatal"));
        let spawned = Command::new(exe)
            .args(args)
            .arg("--hostfile")
            .arg(&host_file)
            .arg("--process")
            .arg(i.to_string())
            .env(LAUNCHED, &fatal)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                end_all(&mut started);
                return Err(DistError::Network(format!(
                    "cannot start process {i} ({}): {e}",
                    exe.display()
                )));
            }
        };
        let (stdout, stderr) = match i {
            0 => (
                child
                    .stdout
                    .take()
                    .map(|pipe| passer(pipe, Out::Stdout, printed.clone())),
                child
                    .stderr
                    .take()
                    .map(|pipe| passer(pipe, Out::Stderr, printed.clone())),
            ),
            _ => (
                child.stdout.take().map(reader),
                child.stderr.take().map(reader),
            ),
        };
        started.push(Started {
            child,
            stdout,
            stderr,
            fatal,
        });
    }
    let mut done = vec![false; processes];
    let mut failed = false;
    while done.iter().any(|d| !d) {
        for i in 0..processes {
            if done[i] {
                continue;
            }
            match started[i].child.try_wait() {
                Ok(Some(status)) if status.success() => done[i] = true,
                Ok(Some(status)) if status.code() == Some(FINISHED_WITH_ERRORS) => {
                    done[i] = true;
                    failed |= i == 0;
                }
                Ok(Some(status)) => {
                    let said = std::fs::read(&started[i].fatal).unwrap_or_default();
                    let stderr = collect(&mut started[i].stderr).unwrap_or_default();
                    end_all(&mut started);
                    return Err(DistError::Solve(failure(i, status.code(), &said, &stderr)));
                }
                Ok(None) => {}
                Err(e) => {
                    end_all(&mut started);
                    return Err(DistError::Network(format!("waiting for process {i}: {e}")));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let passed = [
        (collect(&mut started[0].stdout), "output"),
        (collect(&mut started[0].stderr), "error"),
    ];
    for (passed, name) in passed {
        if let Err(e) = passed {
            return Err(DistError::Network(format!(
                "cannot write to standard {name}: {e}"
            )));
        }
    }
    Ok(Printed { failed })
}

/// What a reader thread read, or the error of one that passed its pipe on.
fn collect(handle: &mut Option<JoinHandle<std::io::Result<Vec<u8>>>>) -> std::io::Result<Vec<u8>> {
    match handle.take().map(|h| h.join()) {
        Some(Ok(read)) => read,
        _ => Ok(Vec::new()),
    }
}

/// Ends every process still running, and waits for what process 0 printed on its standard
/// output to be passed on (its pipe closes as it ends), so that [`run`] knows whether it
/// printed anything.
fn end_all(started: &mut [Started]) {
    for s in started.iter_mut() {
        let _ = s.child.kill();
        let _ = s.child.wait();
    }
    if let Some(first) = started.first_mut() {
        let _ = collect(&mut first.stdout);
    }
}

/// The error of a failed process: its own error line where it wrote one to its fatal file
/// (`said`), or printed one on a standard error that was kept (not process 0's).
fn failure(i: usize, code: Option<i32>, said: &[u8], stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(said) + String::from_utf8_lossy(stderr);
    match text.lines().find_map(|l| l.strip_prefix("error: ")) {
        Some(line) => line.to_string(),
        None => format!(
            "process {i} ended with {} and no error line",
            code.map_or("a signal".to_string(), |c| format!("exit code {c}"))
        ),
    }
}
