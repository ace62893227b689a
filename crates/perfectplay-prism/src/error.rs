//! The crate's errors: a text's diagnostic with its place (from the syntax and the checking
//! pass), a model or property that cannot be built or answered, and a property asked for that
//! names none.

use crate::syntax::diagnostic::Diagnostic;

/// Why a model or property could not be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A syntax or type error, with its place.
    #[error("{}", .0.render())]
    Text(Diagnostic),
    /// An error while building the state space or solving.
    #[error("{0}")]
    Model(String),
    /// What was asked for names no property (see [`crate::find_property`]).
    #[error("{0}")]
    Lookup(LookupError),
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

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::Text(d)
    }
}
