//! Why a solve did not produce values.

use thiserror::Error;

/// Why a solve stopped without a result. Every variant that concerns a state names it in the
/// model's own notation ([`Model::show_state`](crate::Model::show_state)).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The model broke the contract of [`Model::expand`](crate::Model::expand) at a state:
    /// a probability outside (0, 1], probabilities not summing to exactly one, a decision with
    /// no moves, no node kind set, and so on.
    #[error("invalid model at state {state}: {reason}")]
    InvalidModel {
        /// The state, as the model shows it.
        state: String,
        /// What is wrong, in one sentence.
        reason: String,
    },
    /// The state limit was reached before the solve finished.
    #[error(
        "state limit reached: {explored} states explored (limit {limit}), {components} components solved; raise the state limit to go on"
    )]
    StateLimit {
        /// States interned so far.
        explored: usize,
        /// The limit that was set.
        limit: usize,
        /// Components already solved.
        components: usize,
    },
    /// More states than the engine can number (2^32 - 2).
    #[error("too many states: the engine numbers at most {0} states")]
    TooManyStates(usize),
    /// From this state no strategy ends the game with probability one, so the expected total
    /// is undefined.
    #[error(
        "the value is undefined at state {state}: no strategy of {controller} ends the game with probability 1 from there"
    )]
    NoTermination {
        /// The state.
        state: String,
        /// Who controls the component ("the player" or "chance").
        controller: String,
    },
    /// A player can collect an unbounded total by repeating a cycle through this state.
    #[error(
        "the value diverges at state {state}: {player} can repeat a cycle through it that gains without bound"
    )]
    Divergent {
        /// The state.
        state: String,
        /// The player who profits from the cycle.
        player: String,
    },
    /// Two players meet in a cycle that they can keep repeating forever together; the engine
    /// requires that every play through a two-player cycle ends with probability one.
    #[error(
        "two-player cycle that can repeat forever through state {state}: the value is undefined (every play through a two-player cycle must end with probability 1)"
    )]
    NonStopping {
        /// The state.
        state: String,
    },
    /// Policy iteration exceeded its iteration limit (a safeguard; it has not been seen).
    #[error("policy iteration did not converge in a component containing state {state}")]
    NoConvergence {
        /// A state of the component.
        state: String,
    },
    /// A computation on a solved game would exceed its limits (memory, number size).
    #[error("too large: {what}")]
    TooLarge {
        /// What would not fit.
        what: String,
    },
    /// The model or method cannot answer this query (for example, a closed-form method has no
    /// states to explain).
    #[error("{0}")]
    Unsupported(String),
    /// The caller's stop flag was set ([`Solver::stop_on`](crate::Solver::stop_on)).
    #[error("interrupted after {states} states")]
    Interrupted {
        /// States found (or swept) when the solve stopped.
        states: usize,
    },
    /// A state given to a query was not found among the explored states.
    #[error("state {state} was not explored by this solve")]
    UnknownState {
        /// The state.
        state: String,
    },
}
