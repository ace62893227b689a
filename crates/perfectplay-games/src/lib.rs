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
    /// An option has a bad value (or is missing).
    #[error("--{param}: {message}")]
    Param {
        /// The option name, without `--`.
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
    /// An error about option `param`.
    pub fn param(param: &'static str, message: impl Into<String>) -> GameError {
        GameError::Param {
            param,
            message: message.into(),
        }
    }
}

/// One option of a game.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The option name, without `--`.
    pub name: &'static str,
    /// A placeholder for its value in help texts.
    pub value: &'static str,
    /// What it means and which values it accepts.
    pub help: &'static str,
    /// The default, for optional options.
    pub default: Option<&'static str>,
    /// Whether the option must be given.
    pub required: bool,
}

/// A built-in game.
pub struct GameSpec {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line saying what it is and what the value means.
    pub summary: &'static str,
    /// Its options.
    pub params: &'static [ParamSpec],
    /// An example command line (after `perfectplay`).
    pub example: &'static str,
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
