//! `perfectplay._core`, the compiled half of the Python package `perfectplay`: the built-in
//! games, games written in Python, and PRISM models, solved by the engine. The Python half
//! (`python/perfectplay`) gives it its public face: `perfectplay.solve`, the `Solution` class,
//! the OpenSpiel bridge and `perfectplay.prism`.
//!
//! The front ends' rule holds here too: this crate only builds models (`game::PyGame` reads
//! a Python game; the built-ins and PRISM models come from their crates) and hands them to the
//! engine.

mod builtin;
mod convert;
mod game;
mod interrupt;
mod json;
mod nodes;
mod prism;
mod solved;

use std::sync::Arc;

use pyo3::prelude::*;

use crate::solved::{Game, Options, Solution};

/// Solves the built-in game `name` with `params` (name → value text).
#[pyfunction]
#[pyo3(signature = (name, params, exact=false, threads=None, max_states=None))]
fn solve_builtin(
    py: Python<'_>,
    name: &str,
    params: Vec<(String, String)>,
    exact: bool,
    threads: Option<usize>,
    max_states: Option<usize>,
) -> PyResult<Solution> {
    let game = builtin::build(name, params)?;
    Solution::solve(py, game, options(exact, threads, max_states)?)
}

/// Solves a game written in Python (an object with `start()` and `expand(state)`).
#[pyfunction]
#[pyo3(signature = (game, exact=false, max_states=None, accept_floats=false))]
fn solve_game(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    exact: bool,
    max_states: Option<usize>,
    accept_floats: bool,
) -> PyResult<Solution> {
    let model = Arc::new(game::PyGame::new(game, accept_floats)?);
    Solution::solve(py, Game::Python(model), options(exact, None, max_states)?)
}

fn options(exact: bool, threads: Option<usize>, max_states: Option<usize>) -> PyResult<Options> {
    if threads == Some(0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "threads must be at least 1 (or None for the default)",
        ));
    }
    if max_states == Some(0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "max_states must be at least 1 (or None for no limit)",
        ));
    }
    Ok(Options {
        exact,
        threads,
        max_states,
    })
}

/// The extension module.
/// The `Fraction` written `p/q` (or as an integer), of any length (`Fraction(text)` stops at
/// Python's limit of 4,300 digits on converting text to `int`).
#[pyfunction]
fn fraction(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    convert::fraction(py, text)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(builtin::games, m)?)?;
    m.add_function(wrap_pyfunction!(solve_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(solve_game, m)?)?;
    m.add_function(wrap_pyfunction!(prism::load_prism, m)?)?;
    m.add_function(wrap_pyfunction!(fraction, m)?)?;
    m.add_class::<Solution>()?;
    m.add_class::<prism::PrismModel>()?;
    m.add_class::<nodes::Terminal>()?;
    m.add_class::<nodes::Decision>()?;
    m.add_class::<nodes::Chance>()?;
    m.add_class::<nodes::Move>()?;
    m.add(
        "SolveError",
        m.py().get_type::<solved::errors::SolveError>(),
    )?;
    m.add(
        "NonStoppingError",
        m.py().get_type::<solved::errors::NonStoppingError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
