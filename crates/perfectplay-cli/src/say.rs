//! What the command says. On standard error, lines that cannot bring the command down:
//! `eprintln!` panics when stderr cannot be written (`2>/dev/full`), and a panic while reporting
//! a panic aborts; these write what they can, and a failed write only marks the run, so that it
//! ends with exit code 2 once its standard output is complete. On standard output, text that
//! may echo the user's names (labels, properties, a Python game's moves) with any control
//! character written as an escape, never acted on by the terminal. The line of an error that
//! ends the command ([`fatal!`]) goes, in a process that a local run across processes
//! started, to its launcher instead, which decides what the run says.

use std::fmt::Arguments;
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Whether a write to stderr has failed during this run.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stderr, noting a failure instead of panicking.
pub fn write(args: Arguments) {
    let mut err = std::io::stderr().lock();
    if err.write_fmt(args).and_then(|()| err.flush()).is_err() {
        FAILED.store(true, Ordering::Relaxed);
    }
}

/// Where this process writes the line of an error that ends it, when a local run's launcher
/// started it (see [`perfectplay_dist::local::fatal_file`]); unset otherwise.
static FATAL: OnceLock<File> = OnceLock::new();

/// Opens the launcher's file for fatal errors, in a process that a local run started; call
/// once, first thing. Where it cannot be opened, fatal errors go to stderr as elsewhere.
pub fn open_fatal() {
    if let Some(path) = perfectplay_dist::local::fatal_file() {
        let opened = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path);
        if let Ok(file) = opened {
            let _ = FATAL.set(file);
        }
    }
}

/// The launcher's file for fatal errors, if this process has one. Allocates nothing (the
/// out-of-memory guard writes to it).
pub fn fatal_file() -> Option<&'static File> {
    FATAL.get()
}

/// Writes the line of an error that ends the command: to the launcher's file in a process
/// of a local run, else to stderr.
pub fn write_fatal(args: Arguments) {
    match fatal_file() {
        Some(mut file) => {
            let _ = file.write_fmt(args);
        }
        None => write(args),
    }
}

/// Whether some line meant for stderr was lost.
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// The flag that an error speaks of without naming it, as a hint to end its line with: the
/// core, the PRISM crate and the solve across processes name no flag, and the state limit
/// they speak of is `--max-states`.
pub(crate) fn flag_hint(e: &(dyn std::error::Error + 'static)) -> &'static str {
    let limit = std::iter::successors(Some(e), |c| c.source()).any(|c| {
        matches!(
            c.downcast_ref(),
            Some(perfectplay::SolveError::StateLimit { .. })
        ) || matches!(
            c.downcast_ref(),
            Some(perfectplay_dist::DistError::StateLimit { .. })
        ) || c
            .downcast_ref::<perfectplay_prism::Error>()
            .is_some_and(perfectplay_prism::Error::is_state_limit)
    });
    if limit {
        " (--max-states)"
    } else {
        ""
    }
}

/// An error and its causes, each once, joined by `: `: a wrapper that says no more than its
/// cause (a phase's error carried as it is) adds nothing.
pub(crate) fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut chain: Vec<String> = Vec::new();
    for c in std::iter::successors(Some(e), |c| c.source()).map(|c| c.to_string()) {
        if !chain.last().is_some_and(|last| last.ends_with(&c)) {
            chain.push(c);
        }
    }
    chain.join(": ")
}

/// `text` with every control character but a line break or a tab written as an escape
/// (`\u{1b}`), so that an escape sequence in a name shows as text.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text.into();
    }
    text.chars()
        .map(|c| match c.is_control() && c != '\n' && c != '\t' {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// `value` as one line of JSON (see [`perfectplay::export::json_line`]).
pub fn json(value: &impl serde::Serialize) -> String {
    perfectplay::export::json_line(value)
}

/// `print!` of text that may echo the user's names: control characters escaped.
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", $crate::say::escaped(&format!($($arg)*)))
    };
}

/// `println!` of text that may echo the user's names: control characters escaped.
macro_rules! outln {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", $crate::say::escaped(&format!($($arg)*)))
    };
}

/// `eprintln!` that survives a stderr that cannot be written.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::say::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// [`say!`] for the line of an error that ends the command ([`write_fatal`]).
macro_rules! fatal {
    ($($arg:tt)*) => {
        $crate::say::write_fatal(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that survives a stderr that cannot be written.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::say::write(format_args!($($arg)*))
    };
}

pub(crate) use {fatal, out, outln, say, say_raw};
