//! Running a solve for a command: the options of its command line (exact, the state limit,
//! threads), the progress line on a terminal, and the statistics line after it.

use crate::say::say;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::ArgMatches;
use perfectplay::dynamic::{DynModel, Report, SolveOptions, Solved};
use perfectplay::{Method, Progress, SolveError};

use crate::{interrupt, render};

/// Solves `model` with the common options, showing progress on a terminal unless `--quiet`.
/// The caller prints the statistics once the command has succeeded, so that a failing command
/// prints nothing but its error line.
pub fn solve_model<'m>(
    model: &'m dyn DynModel,
    m: &ArgMatches,
) -> Result<Box<dyn Solved + Send + Sync + 'm>> {
    let solved = with_options(m, model, |options| model.solve_dyn(options))?;
    render::know_error_bound(solved.report().stats.error_bound);
    Ok(solved)
}

/// Runs `f` with the solve options of the command line and a progress spinner on a terminal
/// unless `--quiet`. An exact solve still running after [`SIZE_AFTER`] learns the size of the
/// game from a float solve of `model` on another thread (of at most [`SIZE_STATES`] states),
/// and its line then shows the components solved out of all and the time left at the current
/// rate.
pub fn with_options<T>(
    m: &ArgMatches,
    model: &dyn DynModel,
    f: impl FnOnce(SolveOptions<'_>) -> Result<T, SolveError>,
) -> Result<T> {
    let quiet = m.get_flag("quiet");
    let exact = m.get_flag("exact");
    let max_states = m.get_one::<u64>("max-states").map(|&n| n as usize);
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    // The game's states and components, once the float solve has them.
    let size: OnceLock<(usize, usize)> = OnceLock::new();
    let done = AtomicBool::new(false);
    let mut on_progress = |p: &Progress| {
        interrupt::progress(p.states);
        let Some(bar) = &bar else { return };
        let message = match size.get() {
            _ if p.primes > 0 => format!(
                "{} states explored and solved in floats; the exact value modulo {} primes so \
                 far, {:.0} s",
                p.states, p.primes, p.seconds
            ),
            Some(&(states, components)) if p.components > 0 => {
                let share = p.components as f64 / components.max(1) as f64;
                let left = p.seconds * (1.0 - share).max(0.0) / share;
                format!(
                    "{}/{components} components ({:.1}%), {}/{states} states, {:.0} s, \
                     ~{:.0} s left at this rate",
                    p.components,
                    100.0 * share,
                    p.states,
                    p.seconds,
                    left
                )
            }
            _ => format!(
                "{} states explored ({:.0}/s), {} components solved",
                p.states,
                p.states as f64 / p.seconds.max(1e-9),
                p.components
            ),
        };
        bar.set_message(message);
        bar.tick();
    };
    let options = SolveOptions {
        exact,
        max_states,
        progress: Some(&mut on_progress),
        threads: m
            .try_get_one::<u64>("threads")
            .ok()
            .flatten()
            .map(|&n| capped_threads(n as usize, quiet)),
        // An interrupt ends the process (see `interrupt`).
        stop: None,
    };
    let result = std::thread::scope(|scope| {
        if exact && bar.is_some() {
            scope.spawn(|| {
                let started = Instant::now();
                while started.elapsed() < SIZE_AFTER {
                    if done.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                let options = SolveOptions {
                    exact: false,
                    max_states: Some(max_states.unwrap_or(SIZE_STATES).min(SIZE_STATES)),
                    progress: None,
                    threads: Some(1),
                    stop: Some(&done),
                };
                if let Ok(solved) = model.solve_dyn(options) {
                    let stats = &solved.report().stats;
                    let _ = size.set((stats.states, stats.components));
                }
            });
        }
        let result = f(options);
        done.store(true, Ordering::Relaxed);
        result
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    Ok(result?)
}

/// How long an exact solve runs before its progress line learns the size of the game.
const SIZE_AFTER: Duration = Duration::from_secs(2);

/// The largest game whose size the progress line of an exact solve learns.
const SIZE_STATES: usize = 5_000_000;

/// `--threads N`, at most the cores of this machine: more only wait on each other. Says so
/// unless `quiet`.
fn capped_threads(n: usize, quiet: bool) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n > cores && !quiet {
        say!("note: --threads {n} is more than the {cores} cores here; using {cores}");
    }
    n.min(cores)
}

/// The statistics line on stderr: states, components (or how the game was swept), time and
/// the numbers used.
pub fn print_stats(report: &Report, exact: bool) {
    let s = &report.stats;
    let shape = match s.method {
        // No components were looked for: the game gave its states in an order that solves them.
        Method::Sweep { threads } if threads > 1 => {
            format!("swept in the game's own order on {threads} threads, not explored")
        }
        Method::Sweep { .. } | Method::CheckedSweep => {
            "swept in the game's own order, not explored".to_string()
        }
        _ => format!(
            "components: {} (cyclic: {}, largest: {})",
            s.components, s.cyclic_components, s.largest_component
        ),
    };
    say!(
        "states: {}, {shape}, time: {:.3} s, numbers: {}",
        s.states,
        s.seconds,
        match (exact, s.method) {
            (false, _) if s.error_bound == 0.0 => "f64, nothing rounded".to_string(),
            (false, _) => format!("f64, every value within {:.1e}", s.error_bound),
            (true, Method::Multimodular { primes }) => {
                format!("exact (multi-modular, {primes} primes)")
            }
            (true, _) => "exact".to_string(),
        }
    );
}
