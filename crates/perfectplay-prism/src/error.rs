//! The crate's error: each phase's own, wrapped (a text's diagnostic with its place from the
//! syntax and the checking pass, a properties file's [`PropsError`], the build's
//! [`BuildError`], the analysis's [`AnalysisError`]), and what the front door meets itself (a
//! file it cannot read, constants nobody declares, a property asked for that names none).

use crate::analysis::error::AnalysisError;
use crate::build::BuildError;
use crate::program::props::PropsError;
use crate::syntax::diagnostic::Diagnostic;

/// Why a model or property could not be checked: each phase's own error (the text's
/// syntax and checking pass, the build, the analysis), or what the front door meets itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A syntax or type error, with its place.
    #[error("{}", .0.render())]
    Text(Diagnostic),
    /// A file that could not be read.
    #[error("cannot read {file}: {why}")]
    Read {
        /// The file, quoted, or `standard input`.
        file: String,
        /// Why.
        why: String,
    },
    /// A text too large for the memory left to read it.
    #[error(
        "{file}: reading a text of {:.1} MB takes about {:.0} MB, more memory than is left",
        *.bytes as f64 / 1e6,
        *.needs as f64 / 1e6
    )]
    Memory {
        /// The file.
        file: String,
        /// Its size in bytes.
        bytes: u64,
        /// The bytes reading it takes.
        needs: u64,
    },
    /// Values given for constants that neither the model nor the properties declare.
    #[error("{}", unknown_constants(.0))]
    UnknownConstants(Vec<String>),
    /// The properties cannot be checked as a whole.
    #[error("{0}")]
    Props(PropsError),
    /// The state space could not be built.
    #[error("{0}")]
    Build(#[from] BuildError),
    /// A property could not be answered.
    #[error("{0}")]
    Analysis(AnalysisError),
    /// What was asked for names no property (see [`crate::find_property`]).
    #[error("{0}")]
    Lookup(LookupError),
}

impl Error {
    /// Whether the state space has more states than the limit asked for.
    pub fn is_state_limit(&self) -> bool {
        matches!(self, Error::Build(BuildError::StateLimit { .. }))
    }

    /// `error`, said of property `text` (see [`AnalysisError::of`]).
    pub(crate) fn of(text: &str, error: AnalysisError) -> Error {
        Error::from(AnalysisError::of(text, error))
    }
}

impl From<AnalysisError> for Error {
    /// The analysis's error; one of an earlier phase that it carries is that phase's own.
    fn from(e: AnalysisError) -> Error {
        match e {
            AnalysisError::Text(d) => Error::Text(d),
            AnalysisError::Build(b) => Error::Build(b),
            e => Error::Analysis(e),
        }
    }
}

fn unknown_constants(names: &[String]) -> String {
    match names {
        [one] => format!(
            "a value is given for '{one}', and neither the model nor the properties declare \
             such a constant"
        ),
        _ => format!(
            "values are given for '{}', and neither the model nor the properties declare such \
             constants",
            names.join("', '")
        ),
    }
}

/// Why a property asked for by name, number or text is none (see [`crate::find_property`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// A number picks a property of the properties file by its place, and there is no file.
    #[error("{number}: a number picks a property of the properties file by its place, and no properties file is given (give one, or write the property itself)")]
    NumberWithoutFile {
        /// The number asked for.
        number: u64,
    },
    /// A number beyond the file's properties (they are numbered from 1).
    #[error("{number}: {file} has {count} properties (numbered from 1)")]
    NumberOutOfRange {
        /// The number asked for.
        number: u64,
        /// The properties file.
        file: String,
        /// How many properties it has.
        count: usize,
    },
    /// A text that holds no property, or several.
    #[error("'{text}' holds {count} properties: ask for one at a time")]
    NotOne {
        /// What was asked.
        text: String,
        /// How many properties it holds.
        count: usize,
    },
    /// Nothing asked, and a properties file without properties.
    #[error("{file} has no properties to check")]
    EmptyFile {
        /// The properties file.
        file: String,
    },
}

impl From<PropsError> for Error {
    fn from(e: PropsError) -> Error {
        match e {
            PropsError::Text(d) => Error::Text(d),
            e => Error::Props(e),
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::Text(d)
    }
}
