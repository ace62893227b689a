//! The built-in games: the catalog, and a game built from keyword arguments with the command
//! line's checks.

use std::sync::Arc;

use perfectplay_games::{catalog, GameSpec, ParamKind, Params};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::solved::Game;

/// The catalog as a list of dicts: name, summary, notation, example and params (each with
/// name, help, kind, default, required, and min/max/choices where they apply).
#[pyfunction]
pub fn games(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    catalog().iter().map(|g| spec(py, g)).collect()
}

fn spec<'py>(py: Python<'py>, g: &GameSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", g.name)?;
    d.set_item("summary", g.summary)?;
    d.set_item("notation", g.notation)?;
    let example = PyDict::new(py);
    for (k, v) in g.example {
        example.set_item(k, v)?;
    }
    d.set_item("example", example)?;
    let mut params = Vec::new();
    for p in g.params {
        let pd = PyDict::new(py);
        pd.set_item("name", p.name)?;
        pd.set_item("help", p.help)?;
        pd.set_item("default", p.default)?;
        pd.set_item("required", p.required)?;
        let kind = match p.kind {
            ParamKind::Int { min, max } => {
                pd.set_item("min", min)?;
                pd.set_item("max", max)?;
                "int"
            }
            ParamKind::IntList { min, max, len } => {
                pd.set_item("min", min)?;
                pd.set_item("max", max)?;
                pd.set_item("length", len)?;
                "int-list"
            }
            ParamKind::Choice(choices) => {
                pd.set_item("choices", choices.to_vec())?;
                "choice"
            }
            ParamKind::Word => "word",
            ParamKind::Text => "text",
        };
        pd.set_item("kind", kind)?;
        params.push(pd);
    }
    d.set_item("params", params)?;
    Ok(d)
}

/// The built-in game `name` (a `-` may be written `_`) with `params` (name → value text);
/// a `ValueError` names an unknown game, an unknown parameter or a bad value.
pub fn build(name: &str, params: Vec<(String, String)>) -> PyResult<Game> {
    let wanted = name.replace('_', "-");
    let spec = catalog().iter().find(|g| g.name == wanted).ok_or_else(|| {
        let names: Vec<&str> = catalog().iter().map(|g| g.name).collect();
        PyValueError::new_err(format!(
            "unknown game '{name}'; the built-in games are {}",
            names.join(", ")
        ))
    })?;
    let mut given = Params::new();
    for (k, v) in &params {
        let key = k.replace('_', "-");
        if !spec.params.iter().any(|p| p.name == key) {
            let known: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
            return Err(PyValueError::new_err(format!(
                "{}: unknown parameter '{k}'; its parameters are {}",
                spec.name,
                known.join(", ")
            )));
        }
        given.set(key, v.as_str());
    }
    if let Some(p) = spec
        .params
        .iter()
        .find(|p| p.required && given.get(p.name).is_none())
    {
        return Err(PyValueError::new_err(format!(
            "{}: parameter '{}' is required ({})",
            spec.name, p.name, p.help
        )));
    }
    let model = perfectplay_games::build(spec.name, &given)
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", spec.name)))?;
    Ok(Game::Builtin(Arc::from(model), spec.notation))
}
