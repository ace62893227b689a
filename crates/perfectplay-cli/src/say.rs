//! What the command says. On standard error, lines that cannot bring the command down:
//! `eprintln!` panics when stderr cannot be written (`2>/dev/full`), and a panic while reporting
//! a panic aborts; these write what they can, and a failed write only marks the run, so that it
//! ends with exit code 2 once its standard output is complete. On standard output, text that
//! may echo the user's names (labels, properties, a Python game's moves) with any control
//! character written as an escape, never acted on by the terminal.

use std::fmt::Arguments;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a write to stderr has failed during this run.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stderr, noting a failure instead of panicking.
pub fn write(args: Arguments) {
    let mut err = std::io::stderr().lock();
    if err.write_fmt(args).and_then(|()| err.flush()).is_err() {
        FAILED.store(true, Ordering::Relaxed);
    }
}

/// Whether some line meant for stderr was lost.
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
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

/// `eprint!` that survives a stderr that cannot be written.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::say::write(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln, say, say_raw};
