//! Why a state space could not be built: the build phase's errors.

use perfectplay::SolveError;

use crate::program::eval::EvalError;

/// Why the state space could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// More actions or modules than a choice can number.
    #[error("{count} {what}: at most {most} are supported")]
    TooMany {
        /// `actions` or `modules`.
        what: &'static str,
        /// How many the model has.
        count: usize,
        /// How many are supported.
        most: usize,
    },
    /// The variables' ranges need more bits than a packed state holds.
    #[error("a state needs {bits} bits for its variables' ranges; at most {most} are supported")]
    StateBits {
        /// The bits the model's states need.
        bits: u32,
        /// The most a state may take.
        most: u32,
    },
    /// More states than the state limit.
    #[error("more than {limit} {}states (the state limit)", if *.initial { "initial " } else { "" })]
    StateLimit {
        /// The limit.
        limit: usize,
        /// Whether the initial states alone are too many.
        initial: bool,
    },
    /// The build was asked to stop (Ctrl-C).
    #[error("interrupted after {after} states")]
    Interrupted {
        /// The states built by then.
        after: usize,
    },
    /// The machine's memory (or the process's limit) would run out.
    #[error("{0}")]
    Memory(SolveError),
    /// A command could not be taken in a state.
    #[error("command '{command}' in state {state}: {problem}")]
    Command {
        /// The command, as written.
        command: String,
        /// The state, as `(x=1,y=2)`.
        state: String,
        /// What is wrong.
        problem: CommandProblem,
    },
    /// A state whose choices cannot be built, though each command could be taken.
    #[error("{}state {state}: {problem}", if matches!(.problem, StateProblem::Eval(_)) { "in " } else { "" })]
    State {
        /// The state, as `(x=1,y=2)`.
        state: String,
        /// What is wrong.
        problem: StateProblem,
    },
    /// The initial states (`init … endinit`) could not be found.
    #[error("init … endinit{}", match .0 { InitProblem::NoState => " holds in no state".to_string(), p => format!(": {p}") })]
    Init(InitProblem),
}

/// Why a command could not be taken in a state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandProblem {
    /// A guard, probability or update could not be evaluated.
    #[error("{0}")]
    Eval(#[from] EvalError),
    /// A probability below 0 or above 1.
    #[error("probability {0} is outside [0, 1]")]
    ProbabilityOutside(String),
    /// An update sets a variable outside its range.
    #[error("it sets {var} to {value}, outside its range [{lo}..{hi}]")]
    OutOfRange {
        /// The variable.
        var: String,
        /// The value it would take.
        value: i64,
        /// Its range.
        lo: i64,
        /// Its range.
        hi: i64,
    },
    /// The probabilities do not sum to one (exactly, or within rounding where computed in
    /// floating point).
    #[error("its probabilities sum to {0}, not 1")]
    Sum(String),
}

/// Why a state's choices could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateProblem {
    /// The build's stop condition could not be evaluated there.
    #[error("{0}")]
    Eval(EvalError),
    /// Two synchronised commands set the same variable.
    #[error("a synchronised step sets {var} in two modules (command '{command}')")]
    SharedVariable {
        /// The variable.
        var: String,
        /// The second command that sets it.
        command: String,
    },
    /// A distribution computed in floating point that sums to one only by moving its largest
    /// probability more than rounding allows.
    #[error(
        "a probability of {probability}, computed in floating point, would be moved by more \
         than a relative {tolerance} to make its distribution sum to one (write the \
         probabilities as exact fractions)"
    )]
    Rounding {
        /// The probability, in floating point (`1.2e-21`).
        probability: String,
        /// The relative change allowed (`1e-9`).
        tolerance: String,
    },
}

/// Why the initial states could not be found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InitProblem {
    /// No valuation of the variables satisfies it.
    #[error("it holds in no state")]
    NoState,
    /// The search for the valuations that satisfy it would take too long.
    #[error("too many valuations of the variables to search")]
    TooManyValuations,
    /// It could not be evaluated.
    #[error("{0}")]
    Eval(EvalError),
    /// The machine's memory would run out.
    #[error("{0}")]
    Memory(SolveError),
}
