//! Models in the PRISM language: loaded and built once, then checked property by property.

use std::sync::Arc;

use perfectplay_prism::{check_prop, Loaded, Props};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use std::sync::atomic::AtomicBool;

use perfectplay::dynamic::{Hosted, SolveOptions};

use crate::interrupt::{interruptible, Watch};
use crate::solved::errors::SolveError;
use crate::solved::{solve_error, Options, Solution};

/// A PRISM model, built (`perfectplay.prism.Model` wraps it).
#[pyclass(frozen, unsendable, module = "perfectplay._core")]
pub struct PrismModel {
    loaded: Arc<Loaded>,
    /// The properties file's text and name, if one was given.
    props: Option<(String, String)>,
    constants: Vec<(String, String)>,
}

fn error(e: impl Into<perfectplay_prism::Error>) -> PyErr {
    let e: perfectplay_prism::Error = e.into();
    match e {
        perfectplay_prism::Error::Text(_) | perfectplay_prism::Error::Lookup(_) => {
            PyValueError::new_err(e.to_string())
        }
        _ => SolveError::new_err(e.to_string()),
    }
}

/// Reads and builds the model in file `path` with `constants` (name, value text), and keeps
/// the properties file `props` (path) for [`PrismModel::check`].
#[pyfunction]
#[pyo3(signature = (path, constants, props=None, max_states=None))]
pub fn load_prism(
    py: Python<'_>,
    path: &str,
    constants: Vec<(String, String)>,
    props: Option<&str>,
    max_states: Option<usize>,
) -> PyResult<PrismModel> {
    let read = |p: &str| {
        // A file named `-` here, not standard input as on the command line.
        let file = if p == "-" { "./-" } else { p };
        perfectplay_prism::read_source(file).map_err(|e| PyValueError::new_err(e.to_string()))
    };
    let src = read(path)?;
    let props = props
        .map(|p| read(p).map(|t| (p.to_string(), t)))
        .transpose()?;
    let limit = max_states.unwrap_or(usize::MAX);
    let program = perfectplay_prism::parse_program(path, &src, &constants).map_err(error)?;
    // A constant the model does not declare must be the properties file's: said before the
    // build.
    let file = match &props {
        Some((file, text)) => Some(Props::new(&program, file, text, &constants).map_err(error)?),
        None => None,
    };
    perfectplay_prism::check_constants(&program, &file.iter().collect::<Vec<_>>())
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    // The build looks for Ctrl-C at each progress report and stops there.
    let watch = Watch::default();
    let loaded = py
        .allow_threads(|| Loaded::for_properties(program, &[], limit, &mut |_, _| watch.poll()))
        .map_err(|e| watch.take().unwrap_or_else(|| error(e)))?;
    Ok(PrismModel {
        loaded: Arc::new(loaded),
        props,
        constants,
    })
}

impl PrismModel {
    /// Property `prop`, looked up as the command line's `--prop` is: a name, a number, or a
    /// property written out.
    fn find(&self, prop: &str) -> PyResult<(Props, usize)> {
        let file = self.props.as_ref().map(|(f, t)| (f.as_str(), t.as_str()));
        perfectplay_prism::find_property(
            &self.loaded.program,
            file,
            prop,
            "<property>",
            &self.constants,
        )
        .map_err(error)
    }
}

#[pymethods]
impl PrismModel {
    /// Checks `prop` (the name or the number, from 1, of a property of the properties file,
    /// or a property's text) and returns a dict: the property's text, and the answer as the
    /// JSON text that `perfectplay check --json` gives for it (`perfectplay.prism` reads it).
    #[pyo3(signature = (prop, exact=false))]
    fn check<'py>(&self, py: Python<'py>, prop: &str, exact: bool) -> PyResult<Bound<'py, PyDict>> {
        let (props, i) = self.find(prop)?;
        let loaded = self.loaded.clone();
        let prop_text = props.props[i].text.clone();
        let a = interruptible(py, None, move || {
            check_prop(&loaded, &props, &props.props[i], exact)
        })?
        .map_err(error)?;
        let d = PyDict::new(py);
        d.set_item("property", prop_text)?;
        // The answer as the command line's JSON gives it: one rendering for both.
        let answer = serde_json::to_string(&a)
            .map_err(|e| SolveError::new_err(format!("the answer as JSON: {e}")))?;
        d.set_item("answer", answer)?;
        Ok(d)
    }

    /// Solves the game that `prop` optimises (found as [`PrismModel::check`] finds it) and
    /// returns it as a `Solution`: its value, and explain, strategy, distribution, simulate
    /// and serve on the model's states, written as PRISM prints them.
    #[pyo3(signature = (prop, exact=false))]
    fn solve(&self, py: Python<'_>, prop: &str, exact: bool) -> PyResult<Solution> {
        let (props, i) = self.find(prop)?;
        let loaded = self.loaded.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let hosted = interruptible(py, Some(stop), move || {
            Hosted::start(move |serve| {
                let prop = &props.props[i];
                let model = perfectplay_prism::analysis_model(&loaded, &props, prop, exact)
                    .map_err(|e| perfectplay::SolveError::Unsupported(e.to_string()))?;
                let solved = model.solve_dyn(SolveOptions {
                    exact,
                    stop: Some(&flag),
                    ..SolveOptions::default()
                })?;
                serve(solved.as_ref());
                Ok(())
            })
        })?
        .map_err(solve_error)?;
        let options = Options {
            exact,
            threads: None,
            max_states: None,
        };
        Ok(Solution::hosted(
            hosted,
            "as PRISM prints states: (x=1,b=true)",
            options,
        ))
    }

    /// The names of the properties in the properties file (unnamed ones by their text).
    fn properties(&self) -> PyResult<Vec<String>> {
        let Some((file, text)) = &self.props else {
            return Ok(Vec::new());
        };
        let all = Props::new(&self.loaded.program, file, text, &self.constants).map_err(error)?;
        Ok(all
            .props
            .iter()
            .map(|p| p.name.clone().unwrap_or_else(|| p.text.clone()))
            .collect())
    }

    /// The model's reachable states.
    #[getter]
    fn states(&self) -> usize {
        self.loaded.space.len()
    }

    /// Seconds spent parsing, checking and building.
    #[getter]
    fn build_seconds(&self) -> f64 {
        self.loaded.build_seconds
    }
}
