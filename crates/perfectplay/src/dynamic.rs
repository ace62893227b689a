//! A type-erased view of a model for front ends (the command line, later the web explorer),
//! which pick a game at run time and cannot name its state type.

use crate::{Exact, Model, Number, Progress, SolveError, Solver, Stats};

/// How to run a solve from a front end.
#[derive(Default)]
pub struct SolveOptions<'a> {
    /// Compute in exact rationals instead of `f64`.
    pub exact: bool,
    /// Stop with [`SolveError::StateLimit`] beyond this many states.
    pub max_states: Option<usize>,
    /// Called with the counts so far during long solves.
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
}

/// The value of the start state and how it was obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The value as the nearest `f64` (the float result, or the exact one rounded).
    pub value: f64,
    /// The exact value `p/q`, when solved in exact arithmetic.
    pub exact: Option<String>,
    /// Counts and time.
    pub stats: Stats,
}

/// A model whose state type is hidden; every [`Model`] is one.
pub trait DynModel {
    /// Solves the model and reports the value of its start state.
    fn solve_report(&self, options: SolveOptions<'_>) -> Result<Report, SolveError>;
}

fn report<M: Model, N: Number>(m: &M, options: SolveOptions<'_>) -> Result<Report, SolveError> {
    let mut solver = Solver::new(m);
    if let Some(limit) = options.max_states {
        solver = solver.max_states(limit);
    }
    if let Some(f) = options.progress {
        solver = solver.on_progress(f);
    }
    let solution = solver.solve::<N>()?;
    let v = solution.start_value();
    Ok(Report {
        value: v.to_f64(),
        exact: v.exact_string(),
        stats: solution.stats().clone(),
    })
}

impl<M: Model> DynModel for M {
    fn solve_report(&self, options: SolveOptions<'_>) -> Result<Report, SolveError> {
        if options.exact {
            report::<M, Exact>(self, options)
        } else {
            report::<M, f64>(self, options)
        }
    }
}
