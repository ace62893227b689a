//! Long calls that Ctrl-C stops. Where the engine reports progress on the caller's thread (a
//! solve, `simulate`, the PRISM build), [`Watch::poll`] asks Python for signals there; a call
//! without such reports runs through [`interruptible`] on a thread of its own while the
//! caller's thread, which alone sees Ctrl-C, looks for it.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use crate::solved::errors::SolveError;

/// Ctrl-C looked for from a progress report of a computation running on the caller's thread
/// with the interpreter lock released; the interrupt is kept to be raised as it was.
#[derive(Default)]
pub struct Watch {
    raised: Mutex<Option<PyErr>>,
}

impl Watch {
    /// Looks for a signal: `Break` (and the interrupt kept) where Python raised one.
    pub fn poll(&self) -> ControlFlow<()> {
        match Python::with_gil(|py| py.check_signals()) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                *self.raised.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// The interrupt, if one was raised (taken: asked once).
    pub fn take(&self) -> Option<PyErr> {
        self.raised.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Runs `work` on a thread of its own, the interpreter lock released, looking for Ctrl-C
/// every 50 ms. An interrupt is raised at once, and sets `stop`: work that watches it ends at
/// its next step; work that has no such flag runs on to its end unseen, and what it holds is
/// freed then.
pub fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (done, result) = mpsc::channel();
    // Held by one waiter at a time; the lock lets it cross into `allow_threads`.
    let result = Mutex::new(result);
    std::thread::Builder::new()
        .name("perfectplay-work".into())
        .spawn(move || {
            let _ = done.send(work());
        })
        .map_err(|e| SolveError::new_err(format!("cannot start a thread: {e}")))?;
    loop {
        let waited = py.allow_threads(|| {
            let result = result.lock().unwrap_or_else(|e| e.into_inner());
            result.recv_timeout(Duration::from_millis(50))
        });
        match waited {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    if let Some(flag) = &stop {
                        flag.store(true, Ordering::Relaxed);
                    }
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(SolveError::new_err(
                    "internal error (please report it): the work stopped without an answer",
                ))
            }
        }
    }
}
