//! Ctrl-C and file-size limits. An interrupt (SIGINT, or SIGTERM) ends the command at once with
//! one line that says how far it got, exit code 130, and no temporary file left behind (a
//! server, once serving, stops with exit code 0: that is how it is meant to end); a file
//! that grows past the process's size limit (SIGXFSZ) fails with an error instead of killing
//! the process, so the write reports it and the file it would have replaced stays as it was.

use crate::say::{fatal, say, say_raw};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use signal_hook::consts::{SIGINT, SIGTERM, SIGXFSZ};

/// States explored (or built) so far by the command, for the interrupt's message.
static STATES: AtomicUsize = AtomicUsize::new(0);

/// Whether the command has become a server (`serve`), which an interrupt stops as it should,
/// without an error.
static SERVING: AtomicBool = AtomicBool::new(false);

/// Temporary files being written, removed on an interrupt.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs the handlers; call once, first thing.
pub fn install() {
    // A flag nobody reads: what matters is that the signal no longer kills the process.
    let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let files = std::mem::take(&mut *TEMPORARY.lock().unwrap_or_else(|e| e.into_inner()));
            for f in files {
                let _ = std::fs::remove_file(f);
            }
            if SERVING.load(Ordering::SeqCst) {
                say!("stopped serving");
                std::process::exit(0);
            }
            let states = STATES.load(Ordering::Relaxed);
            // Clear a progress line, if one is drawn, before the message.
            if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                say_raw!("\r\x1b[2K");
            }
            if states > 0 {
                fatal!("error: interrupted after {states} states");
            } else {
                fatal!("error: interrupted");
            }
            std::process::exit(130);
        }
    });
}

/// Notes that the command now serves until interrupted: the interrupt is its normal end.
pub fn serving() {
    SERVING.store(true, Ordering::SeqCst);
}

/// Notes how many states the command has explored or built so far.
pub fn progress(states: usize) {
    STATES.store(states, Ordering::Relaxed);
}

/// Notes a temporary file that an interrupt must remove, or (`exists = false`) that it no
/// longer exists under that name.
pub fn temporary(path: &Path, exists: bool) {
    let mut files = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
    if exists {
        files.push(path.to_path_buf());
    } else {
        files.retain(|f| f != path);
    }
}
