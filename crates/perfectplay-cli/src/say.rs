//! Lines on standard error that cannot bring the command down. `eprintln!` panics when stderr
//! cannot be written (closed, `2>/dev/full`), and a panic while reporting a panic aborts; these
//! write what they can, and a failed write only marks the run, so that it ends with exit code 2
//! once its standard output is complete.

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

pub(crate) use {say, say_raw};
