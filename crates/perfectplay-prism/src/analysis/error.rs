//! Why a property could not be answered on a built state space: the analysis phase's errors.

use perfectplay::SolveError;

use crate::build::BuildError;
use crate::program::eval::EvalError;
use crate::syntax::diagnostic::Diagnostic;

/// What `--exact` (an exact solve) meets where the model or property computes in floating
/// point.
pub(crate) const INEXACT: &str = "the model or property computes a number perfectplay cannot \
     keep exact (pow with an exponent that is not whole, log, or a fraction of more than \
     65,536 bits in the model, such as 1e-100000): it computes it in floating point, as PRISM and Storm do, so no exact answer can be given; \
     ask for a floating-point answer instead";

/// The error of part `part` of a property, which could not be evaluated in `state`.
pub(crate) fn part_in_state(
    part: &crate::ast::Expr,
    state: String,
    error: EvalError,
) -> AnalysisError {
    AnalysisError::Part {
        part: part.to_string(),
        error: Box::new(AnalysisError::InState { state, error }),
    }
}

/// [`AnalysisError::Unsupported`] with `why`.
pub(crate) fn unsupported(why: impl Into<String>) -> AnalysisError {
    AnalysisError::Unsupported(why.into())
}

impl AnalysisError {
    /// `error`, said of property `text`. An error of an earlier phase (a property's text the
    /// program refuses, a state the build cannot make) stays as it is: it has its own place.
    pub(crate) fn of(text: &str, error: AnalysisError) -> AnalysisError {
        match error {
            e @ (AnalysisError::Text(_) | AnalysisError::Build(_)) => e,
            error => AnalysisError::Property {
                property: text.to_string(),
                error: Box::new(error),
            },
        }
    }
}

/// Why a property could not be answered. Besides the analysis's own errors, it carries those
/// of the earlier phases that a property meets only when it is answered: a part of it that does
/// not resolve against the model ([`AnalysisError::Text`]) and a state the model cannot make
/// ([`AnalysisError::Build`]); the crate's error takes those back as its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// An exact answer was asked where a number the property depends on is computed in
    /// floating point.
    #[error("{INEXACT}")]
    Inexact,
    /// The property asks what this model type or this kind of query does not take (`Pmax` on
    /// a DTMC, a player the model does not have, a reward query over a path it does not
    /// measure).
    #[error("{0}")]
    Unsupported(String),
    /// An expression of the model or property could not be evaluated.
    #[error("{0}")]
    Eval(#[from] EvalError),
    /// An expression could not be evaluated in a state.
    #[error("in state {state}: {error}")]
    InState {
        /// The state, as `(x=1,y=2)`.
        state: String,
        /// Why.
        error: EvalError,
    },
    /// The property names a reward structure the model does not have.
    #[error("{}", .0.as_ref().map_or("no such reward structure".to_string(), |n| format!("no reward structure \"{n}\"")))]
    NoRewardStructure(Option<String>),
    /// A reward that the analysis cannot use: too large a fraction, a sum that overflows,
    /// a truth value, or negative where the query needs rewards of at least zero.
    #[error("{0}")]
    Reward(String),
    /// Arithmetic over the property's values that is undefined (`0/0`, `pow(0, -1)`) or
    /// mixes numbers and truth values.
    #[error("{0}")]
    Arithmetic(String),
    /// The model or its rewards are beyond what the analysis can bound or number.
    #[error("{0}")]
    TooLarge(String),
    /// The value asked for is +∞ where the query needs it finite.
    #[error("{0}")]
    Infinite(String),
    /// The model was built only as far as other properties need, and this one needs more.
    #[error("{0}")]
    PartialBuild(String),
    /// A step bound that is not a usable constant integer.
    #[error("{0}")]
    StepBound(String),
    /// A value too close to a bound to compare where the numbers are floating point.
    #[error("{0}")]
    TooClose(String),
    /// A filter that cannot take what it is given (`filter(state, …)` over several states,
    /// a number where it takes true or false, no state at all).
    #[error("{0}")]
    Filter(String),
    /// A state of a stochastic game whose choices are not one player's (none controls one,
    /// or two players share the state).
    #[error("{0}")]
    Players(String),
    /// The engine could not solve the query's model.
    #[error("{0}")]
    Solve(#[from] SolveError),
    /// A part of a property that is a query, answered on its own, failed: the part, then why.
    #[error("{part}: {error}")]
    Part {
        /// The part, as PRISM text.
        part: String,
        /// Why it failed.
        error: Box<AnalysisError>,
    },
    /// Property `property` could not be answered: its text, then why.
    #[error("{property}: {error}")]
    Property {
        /// The property, as written.
        property: String,
        /// Why.
        error: Box<AnalysisError>,
    },
    /// A part of the property that does not resolve against the model (a name it does not
    /// declare, a type that does not fit), with its place.
    #[error("{}", .0.render())]
    Text(#[from] Diagnostic),
    /// A state the model cannot make (an update out of its variable's range).
    #[error("{0}")]
    Build(#[from] BuildError),
    /// A broken invariant of the analysis: a bug.
    #[error("internal: {0}")]
    Internal(&'static str),
}
