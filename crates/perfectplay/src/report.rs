//! What a solve reports besides its values: the counts, the time, and which method ran with
//! that method's own figures; and the progress of a solve under way. Plain data, serialisable,
//! so that every front end prints the same facts.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::SolveError;

/// The method that computed a value, with its own figures. The solver layer
/// ([`Solver`](crate::Solver)) picks it from what the model offers and what is asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Method {
    /// The states reachable from the start were explored and every strongly connected
    /// component solved (backups, policy or strategy iteration): every query can be answered.
    #[default]
    Explore,
    /// The model's own order of its states was swept as a dynamic program fills its table
    /// ([`Model::sweep_state`](crate::Model::sweep_state)); only the start value comes out.
    Sweep {
        /// Threads that swept to the end: 1, or more for a parallel sweep.
        threads: usize,
    },
    /// A sweep in floats that check every operation for rounding, none of which rounded: the
    /// exact value at float speed.
    CheckedSweep,
    /// A certified float strategy evaluated modulo random primes, and the fraction recovered
    /// from the residues ([`Solver::exact_start_value`](crate::Solver::exact_start_value)).
    Multimodular {
        /// Primes evaluated.
        primes: usize,
    },
    /// The model's turns ([`Model::turn_of`](crate::Model::turn_of)): the graph of its kept
    /// states explored, and each kept state's turn solved in scratch storage, with values
    /// stored for kept states only.
    Turns {
        /// Kept states found.
        kept: usize,
        /// Threads that solved turns.
        threads: usize,
    },
    /// A method of the model's own (a front end's solver for one game), named by it.
    Own {
        /// The method's name.
        name: &'static str,
    },
}

impl Method {
    /// Whether the states were swept in the model's order rather than explored.
    pub fn swept(&self) -> bool {
        matches!(self, Method::Sweep { .. } | Method::CheckedSweep)
    }
}

/// Counts and time of a solve, and the method that ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// States solved: those explored (interned), terminal ones included; for a sweep, the
    /// states swept, with the transient ones solved inside them.
    pub states: usize,
    /// Strongly connected components solved (terminal states are not counted); in a sweep
    /// every non-terminal state is one.
    pub components: usize,
    /// Components that contain a cycle.
    pub cyclic_components: usize,
    /// Number of states in the largest cyclic component (0 if the game is acyclic).
    pub largest_component: usize,
    /// Wall-clock seconds of the whole computation.
    pub seconds: f64,
    /// A bound on the absolute error of every value (floats only): the distance between each
    /// float value and the exact value of the model as given, every rounding included (of the
    /// model's numbers, of every backup and linear solve) and, for components too costly to
    /// solve directly, the certified bound of their value iteration. Zero where nothing was
    /// rounded (integer scores with plain moves and coin flips, say), and always for exact
    /// numbers. See [`Bounded`](crate::Bounded).
    ///
    /// In a cyclic component solved directly, the solve ends with a strategy that no move
    /// beats beyond doubt; where moves tie within rounding, the optimum may lie a little
    /// further, and the bound includes that too: the most advantage any strategy could
    /// collect from such ties on its way out of the component, found as a checked
    /// pre-fixed point (infinite where none is found). Moves that are clearly worse cost
    /// more than a tie gains, so this stays small unless ties lie on long paths (as in
    /// QVBS's consensus models, whose adversary can prolong the play at will). Where every
    /// play leaves a component that earns nothing inside, the bound is also held within the
    /// range of its exits' worth, so that a win all but certain, whose moves rounding
    /// cannot tell apart over a turn left almost never, keeps a bound as small as the room
    /// left below a sure win. One gap is
    /// left: in a component the play can stay in for ever, where tied moves lead round a
    /// cycle (their advantages' upper bounds then add up without end, though the exact ones
    /// cannot), or where two players play, the bound is that of the strategy found.
    ///
    /// Where only the start's value is kept ([`Solver::start_value`](crate::Solver::start_value)),
    /// the bound is that value's own: its radius, plus what near ties on its way may hide,
    /// weighed as its backups weigh them. It can be far smaller than a bound on every value
    /// where the start's value is small beside others.
    pub error_bound: f64,
    /// Cyclic components too costly to solve directly, solved by value iteration with a
    /// certified bound instead (floats only; their bound is part of `error_bound`).
    pub iterated: usize,
    /// How the value was computed.
    #[serde(flatten)]
    pub method: Method,
}

/// What a solve method is lent to report how far it has got and to learn that it must stop:
/// the caller's progress callback ([`Solver::on_progress`](crate::Solver::on_progress)) and
/// stop flag ([`Solver::stop_on`](crate::Solver::stop_on)).
#[derive(Default)]
pub struct Watch<'a> {
    progress: Option<&'a mut dyn FnMut(&Progress)>,
    stop: Option<&'a AtomicBool>,
}

impl<'a> Watch<'a> {
    /// A watch that calls `progress` and stops once `stop` is set.
    pub(crate) fn new(
        progress: Option<&'a mut dyn FnMut(&Progress)>,
        stop: Option<&'a AtomicBool>,
    ) -> Self {
        Watch { progress, stop }
    }

    /// The stop flag, for work on other threads that cannot share the callback.
    pub(crate) fn stop_flag(&self) -> Option<&'a AtomicBool> {
        self.stop
    }

    /// Passes `p` to the callback, then fails with [`SolveError::Interrupted`] if the stop
    /// flag is set (the callback may be what set it).
    pub(crate) fn report(&mut self, p: &Progress) -> Result<(), SolveError> {
        if let Some(f) = self.progress.as_mut() {
            f(p);
        }
        match self.stop {
            Some(flag) if flag.load(Ordering::Relaxed) => {
                Err(SolveError::Interrupted { states: p.states })
            }
            _ => Ok(()),
        }
    }
}

/// How far a solve has got, passed to the progress callback.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// States interned so far.
    pub states: usize,
    /// Strongly connected components solved so far.
    pub components: usize,
    /// Seconds since the solve started.
    pub seconds: f64,
    /// Primes the exact value has been computed modulo so far, once a multi-modular
    /// evaluation ([`Method::Multimodular`]) has explored the game; zero before and otherwise.
    pub primes: usize,
}
