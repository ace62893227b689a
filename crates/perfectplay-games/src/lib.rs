//! The built-in games of perfectplay, one module each, written against the core's public model
//! API only: the core knows no game, and these modules know no command line.
//!
//! [`catalog`] lists every game with its options and an example; [`build`] makes a solvable
//! model from option values given as text, so a front end can offer every game without naming
//! any type. Each module also exposes its model type for use from Rust.

#![deny(missing_docs)]

pub mod contest;
pub mod gold_pots;
pub mod grid_game;
mod notation;
mod params;
pub mod perfect_memory;
pub mod pig;
pub mod subset_sum_extreme;
pub mod yahtzee;
pub mod yeetzhee;

#[cfg(test)]
mod sweep_check;

use perfectplay::dynamic::DynModel;
use thiserror::Error;

pub use params::{parse_int, Params};

/// Why a game could not be built or an input could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GameError {
    /// A parameter has a bad value (or is missing). Front ends name it their own way (the
    /// command line as `--name`).
    #[error("{param}: {message}")]
    Param {
        /// The parameter's name.
        param: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// No built-in game has this name.
    #[error("unknown game '{0}'; 'perfectplay games' lists them")]
    UnknownGame(String),
    /// Malformed input text (contest input, a grid file).
    #[error("input line {line}: {message}")]
    Input {
        /// The 1-based line number.
        line: usize,
        /// What is wrong there.
        message: String,
    },
}

impl GameError {
    /// An error about parameter `param`.
    pub fn param(param: &'static str, message: impl Into<String>) -> GameError {
        GameError::Param {
            param,
            message: message.into(),
        }
    }
}

/// What values a parameter takes. Every value reaches a game as text ([`Params`]); the kind
/// tells a front end what to offer and check, and the game checks again when it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// Comma-separated integers, each in `min..=max`, between `len.0` and `len.1` of them.
    IntList {
        /// The least value of an item.
        min: i64,
        /// The greatest value of an item.
        max: i64,
        /// The least and the greatest number of items.
        len: (usize, usize),
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A word the help describes (such as `hold-at-K`).
    Word,
    /// Text that may be long: a front end may read it from a file.
    Text,
}

/// One parameter of a game.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The parameter's name (on the command line `--name`).
    pub name: &'static str,
    /// A placeholder for its value in help texts.
    pub value: &'static str,
    /// What it means and which values it accepts.
    pub help: &'static str,
    /// What values it takes.
    pub kind: ParamKind,
    /// The default, for optional parameters.
    pub default: Option<&'static str>,
    /// Whether the parameter must be given.
    pub required: bool,
}

/// A built-in game.
pub struct GameSpec {
    /// Its name.
    pub name: &'static str,
    /// One line saying what it is and what the value means.
    pub summary: &'static str,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// An example: values of some of its parameters (the others take their defaults).
    pub example: &'static [(&'static str, &'static str)],
    /// How states are written (for `explain --state`), with an example; `None` if the game
    /// has no notation.
    pub notation: Option<&'static str>,
    /// Builds the model from option values.
    pub build: fn(&Params) -> Result<Box<dyn DynModel>, GameError>,
}

/// Every built-in game, in a fixed order.
pub fn catalog() -> &'static [GameSpec] {
    &[
        subset_sum_extreme::SPEC,
        perfect_memory::SPEC,
        yeetzhee::SPEC,
        gold_pots::SPEC,
        grid_game::SPEC,
        pig::SPEC,
        yahtzee::SPEC,
    ]
}

/// The game called `name`.
pub fn find(name: &str) -> Result<&'static GameSpec, GameError> {
    catalog()
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| GameError::UnknownGame(name.to_string()))
}

/// Builds the game `name` from option values, filling in defaults.
pub fn build(name: &str, params: &Params) -> Result<Box<dyn DynModel>, GameError> {
    let spec = find(name)?;
    let mut full = params.clone();
    for p in spec.params {
        if let (None, Some(d)) = (params.get(p.name), p.default) {
            full.set(p.name, d);
        }
    }
    (spec.build)(&full)
}
