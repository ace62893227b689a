//! A solved game held for Python: the value at once, and explanations, the strategy, the
//! distribution of the total and simulated play on demand.
//!
//! A built-in game's value comes from the fastest method the engine has for it (as the
//! command line's `solve`); the first query explores the game once and keeps the result. A
//! Python game is explored at once, since each state costs a call into Python.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use perfectplay::dynamic::{player_name, DynModel, Explained, Report, SolveOptions, Solved};
use perfectplay::{BranchValue, DistributionOptions, NodeKind, SolveError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert::{exact, fraction};
use crate::game::PyGame;
use crate::interrupt::Watch;

/// The exceptions of the package besides Python's own.
pub mod errors {
    pyo3::create_exception!(
        perfectplay,
        SolveError,
        pyo3::exceptions::PyRuntimeError,
        "The engine could not solve the game: its value is undefined (a cycle no strategy \
         leaves, a gain without bound), a state limit was reached, or it is too large."
    );
    pyo3::create_exception!(
        perfectplay,
        NonStoppingError,
        SolveError,
        "Two players together can keep a play going for ever, and the game does not say who \
         loses such a play (see `Game.endless_play_loser`)."
    );
}

/// How a solve was asked for.
#[derive(Clone, Copy)]
pub struct Options {
    /// Exact rationals.
    pub exact: bool,
    /// Threads for the methods that use them.
    pub threads: Option<usize>,
    /// The state limit.
    pub max_states: Option<usize>,
}

/// The Python exception for an engine error.
pub fn solve_error(e: SolveError) -> PyErr {
    match e {
        SolveError::InvalidModel { .. } => PyValueError::new_err(e.to_string()),
        SolveError::Interrupted { .. } => PyKeyboardInterrupt::new_err(e.to_string()),
        SolveError::NonStopping { .. } => errors::NonStoppingError::new_err(e.to_string()),
        e => errors::SolveError::new_err(e.to_string()),
    }
}

/// What is solved: a built-in game, or a game written in Python (whose states the bindings
/// number themselves).
#[derive(Clone)]
pub enum Game {
    /// A built-in game, with the notation its states are written in.
    Builtin(Arc<dyn DynModel>, Option<&'static str>),
    /// A Python game.
    Python(Arc<PyGame>),
    /// A game solved on a thread of its own ([`perfectplay::dynamic::Hosted`]: a PRISM
    /// model's property), with the notation its states are written in.
    Hosted(&'static str),
}

/// Runs `solve` with the GIL released: a Python game's `expand` takes it back for each call
/// (and checks for Ctrl-C there); a built-in game's solve checks for Ctrl-C at each progress
/// report and stops through the stop flag.
fn run<T: Send>(
    py: Python<'_>,
    game: &Game,
    options: Options,
    solve: impl FnOnce(SolveOptions<'_>) -> Result<T, SolveError> + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let watch = Watch::default();
    let threads = match game {
        // One thread calls into Python.
        Game::Python(_) => Some(1),
        Game::Builtin(..) | Game::Hosted(_) => options.threads,
    };
    let result = py.allow_threads(|| {
        let mut progress = |_: &perfectplay::Progress| {
            if watch.poll().is_break() {
                stop.store(true, Ordering::Relaxed);
            }
        };
        solve(SolveOptions {
            exact: options.exact,
            max_states: options.max_states,
            threads,
            progress: Some(&mut progress),
            stop: Some(&stop),
        })
    });
    if let Game::Python(g) = game {
        if let Some(e) = g.take_failure() {
            return Err(e);
        }
    }
    result.map_err(|e| match watch.take() {
        Some(raised) if matches!(e, SolveError::Interrupted { .. }) => raised,
        _ => solve_error(e),
    })
}

/// A solved game (`perfectplay.Solution` wraps it).
#[pyclass(frozen, module = "perfectplay._core")]
pub struct Solution {
    game: Game,
    options: Options,
    report: Report,
    explored: Mutex<Option<Arc<dyn Solved + Send + Sync>>>,
    /// For a Python game: the engine's number of each state → the game's.
    numbers: Mutex<Option<Arc<Vec<u32>>>>,
    /// The explorers serving this solution (see `serve`).
    servers: Mutex<Vec<perfectplay_serve::Stopper>>,
}

impl Solution {
    /// Solves `game`.
    pub fn solve(py: Python<'_>, game: Game, options: Options) -> PyResult<Solution> {
        let (report, explored) = match &game {
            Game::Builtin(model, _) => {
                let model = Arc::clone(model);
                let report = run(py, &game, options, move |o| model.solve_report(o))?;
                (report, None)
            }
            Game::Python(g) => {
                let model = Arc::clone(g);
                let solved = run(py, &game, options, move |o| model.solve_shared(o))?;
                (solved.report().clone(), Some(Arc::from(solved)))
            }
            Game::Hosted(_) => unreachable!("a hosted game comes solved (Solution::hosted)"),
        };
        Ok(Solution {
            game,
            options,
            report,
            explored: Mutex::new(explored),
            numbers: Mutex::new(None),
            servers: Mutex::new(Vec::new()),
        })
    }

    /// A game solved on a thread of its own (see [`Game::Hosted`]).
    pub fn hosted(
        solved: perfectplay::dynamic::Hosted,
        notation: &'static str,
        options: Options,
    ) -> Solution {
        Solution {
            game: Game::Hosted(notation),
            options,
            report: solved.report().clone(),
            explored: Mutex::new(Some(Arc::new(solved))),
            numbers: Mutex::new(None),
            servers: Mutex::new(Vec::new()),
        }
    }

    /// The explored game, exploring it on the first call.
    fn explored(&self, py: Python<'_>) -> PyResult<Arc<dyn Solved + Send + Sync>> {
        if let Some(s) = &*self.explored.lock().unwrap_or_else(|e| e.into_inner()) {
            return Ok(Arc::clone(s));
        }
        let Game::Builtin(model, _) = &self.game else {
            unreachable!("a Python game or a hosted one is explored when solved")
        };
        let model = Arc::clone(model);
        let solved: Arc<dyn Solved + Send + Sync> =
            Arc::from(run(py, &self.game, self.options, move |o| {
                model.solve_shared(o)
            })?);
        *self.explored.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&solved));
        Ok(solved)
    }

    /// The Python game's number of each of the engine's states.
    fn numbers(&self, solved: &dyn Solved, game: &PyGame) -> PyResult<Arc<Vec<u32>>> {
        let mut numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
        // A game solved by its turns numbers its local states as they are asked about: the
        // table is made again when they outgrow it.
        if let Some(n) = &*numbers {
            if n.len() >= solved.states() {
                return Ok(Arc::clone(n));
            }
        }
        let mut pairs = Vec::new();
        for mine in 0..game.known() {
            if let Ok(id) = solved.find(&format!("#{mine}")) {
                pairs.push((id, mine as u32));
            }
        }
        let mut table = vec![u32::MAX; solved.states()];
        for (id, mine) in pairs {
            if let Some(slot) = table.get_mut(id) {
                *slot = mine;
            }
        }
        let table = Arc::new(table);
        *numbers = Some(Arc::clone(&table));
        Ok(table)
    }

    /// A state for Python: the Python game's own value, or a built-in's text.
    fn state_object(
        &self,
        py: Python<'_>,
        solved: &dyn Solved,
        id: usize,
        text: &str,
    ) -> PyResult<Py<PyAny>> {
        match &self.game {
            Game::Python(g) => {
                let numbers = self.numbers(solved, g)?;
                Ok(match numbers.get(id) {
                    Some(&n) if n != u32::MAX => g.state(py, n),
                    _ => text.into_pyobject(py)?.into_any().unbind(),
                })
            }
            Game::Builtin(..) | Game::Hosted(_) => Ok(text.into_pyobject(py)?.into_any().unbind()),
        }
    }

    /// Raises a failure a Python game's `expand` left, else maps `e`.
    fn error(&self, e: SolveError) -> PyErr {
        if let Game::Python(g) = &self.game {
            if let Some(raised) = g.take_failure() {
                return raised;
            }
        }
        solve_error(e)
    }

    /// The engine's number of `state`: the start for `None`, a built-in's state written in
    /// its notation, or a Python game's state itself.
    fn find(&self, solved: &dyn Solved, state: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let Some(state) = state else {
            return Ok(0);
        };
        let notation = match &self.game {
            Game::Builtin(_, notation) => *notation,
            Game::Hosted(notation) => Some(*notation),
            Game::Python(_) => None,
        };
        match &self.game {
            Game::Builtin(..) | Game::Hosted(_) => {
                let text: String = state.extract().map_err(|_| {
                    PyValueError::new_err(format!(
                        "a state of a built-in game is a string in its notation{}",
                        notation.map_or(String::new(), |n| format!(": {n}"))
                    ))
                })?;
                solved.find(&text).map_err(|e| match e {
                    SolveError::Unsupported(m) => PyValueError::new_err(m),
                    e @ SolveError::UnknownState { .. } => PyValueError::new_err(e.to_string()),
                    e => self.error(e),
                })
            }
            Game::Python(g) => {
                let unknown = || {
                    PyValueError::new_err(format!(
                        "state {} is not reachable from the start",
                        crate::convert::show(state)
                    ))
                };
                let mine = g
                    .number(state)
                    .map_err(|_| unknown())?
                    .ok_or_else(unknown)?;
                solved.find(&format!("#{mine}")).map_err(|_| unknown())
            }
        }
    }
}

/// Sets `name` (the float) and `name_exact` (a `Fraction` or `None`).
fn put_value(
    py: Python<'_>,
    d: &Bound<'_, PyDict>,
    name: &str,
    v: &perfectplay::dynamic::Value,
) -> PyResult<()> {
    d.set_item(name, v.float)?;
    d.set_item(format!("{name}_exact"), exact(py, v)?)
}

#[pymethods]
impl Solution {
    /// The value of the start state as a float.
    #[getter]
    fn value(&self) -> f64 {
        self.report.value
    }

    /// The exact value as a `Fraction`, in exact mode; `None` otherwise.
    #[getter]
    fn exact(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.report
            .exact
            .as_deref()
            .map(|q| fraction(py, q))
            .transpose()
    }

    /// The statistics of the solve: states, components, method, seconds, … as a dict.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::json::to_python(py, &self.report)
    }

    /// Every move or outcome of `state` (the start for `None`) with its value, as a dict.
    #[pyo3(signature = (state=None))]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        state: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let solved = self.explored(py)?;
        let id = self.find(solved.as_ref(), state)?;
        let e: Explained = solved.explain(id).map_err(|e| self.error(e))?;
        let x = &e.explanation;
        let d = PyDict::new(py);
        d.set_item(
            "state",
            self.state_object(py, solved.as_ref(), id, &x.state)?,
        )?;
        put_value(py, &d, "value", &x.value)?;
        let (kind, player) = match x.kind {
            NodeKind::Terminal => ("terminal", None),
            NodeKind::Chance => ("chance", None),
            NodeKind::Decision(p) => ("decision", Some(player_name(p))),
            NodeKind::Unset => ("unset", None),
        };
        d.set_item("kind", kind)?;
        d.set_item("player", player)?;
        let branches = PyList::empty(py);
        for (i, b) in x.branches.iter().enumerate() {
            let next = e.next.get(i).map(Vec::as_slice).unwrap_or(&[]);
            branches.append(self.branch(py, solved.as_ref(), b, next, kind == "decision")?)?;
        }
        d.set_item("branches", branches)?;
        Ok(d)
    }

    /// Serves the explorer of this solution on `host:port` (0: any free port) in a thread of
    /// its own and returns the page's address. `name` picks the pictures of positions (a
    /// built-in game's name); `params` are the game's options as given.
    #[pyo3(signature = (name, params, host="127.0.0.1", port=0))]
    fn serve(
        &self,
        py: Python<'_>,
        name: String,
        params: Vec<(String, String)>,
        host: &str,
        port: u16,
    ) -> PyResult<String> {
        let solved = self.explored(py)?;
        let host: std::net::IpAddr = host
            .parse()
            .map_err(|_| PyValueError::new_err(format!("host: '{host}' is not an IP address")))?;
        let server = perfectplay_serve::Server::bind(host, port).map_err(|e| {
            PyValueError::new_err(format!("cannot listen on {host} port {port}: {e}"))
        })?;
        let url = server.url();
        let spec = match &self.game {
            Game::Builtin(..) => perfectplay_games::find(&name).ok(),
            Game::Python(_) | Game::Hosted(_) => None,
        };
        let summary = match &self.game {
            Game::Hosted(_) => {
                "The game that a property of a model in the PRISM language optimises."
            }
            _ => "A game written in Python.",
        };
        let options: Vec<String> = params.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        let about = perfectplay_serve::About {
            title: format!("{name} {}", options.join(" "))
                .trim_end()
                .to_string(),
            summary: spec.map_or(summary, |g| g.summary).to_string(),
            notation: match &self.game {
                Game::Hosted(n) => Some(n.to_string()),
                _ => spec.and_then(|g| g.notation).map(str::to_string),
            },
            params: params.into_iter().collect(),
            name,
            ..perfectplay_serve::About::default()
        };
        self.servers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(server.stopper());
        std::thread::Builder::new()
            .name("perfectplay-serve".into())
            .spawn(move || {
                let explorer = perfectplay_serve::Explorer::new(solved.as_ref(), about);
                let _ = server.run(&explorer);
            })
            .map_err(|e| PyValueError::new_err(format!("cannot start the server: {e}")))?;
        Ok(url)
    }

    /// Stops every server [`Solution::serve`] started.
    fn stop_serving(&self) {
        for s in self
            .servers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            s.stop();
        }
    }

    /// The position `state` (the start for `None`) as HTML: its moves with their values and
    /// losses, as the explorer shows them (for notebooks).
    #[pyo3(signature = (name, params, state=None))]
    fn explain_html(
        &self,
        py: Python<'_>,
        name: &str,
        params: Vec<(String, String)>,
        state: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let solved = self.explored(py)?;
        let id = self.find(solved.as_ref(), state)?;
        let e = solved.explain(id).map_err(|e| self.error(e))?;
        let params = params.into_iter().collect();
        let player = |p| solved.player_label(p);
        Ok(perfectplay_serve::html::standalone(
            name, &e, &params, &player,
        ))
    }

    /// Every decision state with its value, optimal moves and chosen move, as tuples
    /// `(state, value, exact, optimal, chosen)`.
    fn strategy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let solved = self.explored(py)?;
        let rows = PyList::empty(py);
        for r in solved.strategy_rows() {
            let r = r.map_err(|e| self.error(e))?;
            let state = self.state_object(py, solved.as_ref(), r.id, &r.state)?;
            rows.append((
                state,
                r.value.float,
                exact(py, &r.value)?,
                r.optimal,
                r.chosen,
            ))?;
        }
        Ok(rows)
    }

    /// The distribution of the total under the computed strategy, as a dict.
    #[pyo3(signature = (tail=1e-12, max_steps=1_000_000))]
    fn distribution<'py>(
        &self,
        py: Python<'py>,
        tail: f64,
        max_steps: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        if !(tail > 0.0 && tail < 1.0) {
            return Err(PyValueError::new_err(format!(
                "tail must lie in (0, 1), not {tail}"
            )));
        }
        let solved = self.explored(py)?;
        let stop = Arc::new(AtomicBool::new(false));
        let options = DistributionOptions {
            tail,
            max_steps,
            stop: Some(stop.clone()),
            ..Default::default()
        };
        let worker = solved.clone();
        let r =
            crate::interrupt::interruptible(py, Some(stop), move || worker.distribution(&options))?
                .map_err(|e| self.error(e))?;
        let d = PyDict::new(py);
        d.set_item("total_name", solved.total_name())?;
        d.set_item(
            "support",
            r.pmf.iter().map(|(t, _, _)| t.to_f64()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "probabilities",
            r.pmf.iter().map(|(_, p, _)| p.float).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "cdf",
            r.pmf.iter().map(|(_, _, c)| c.float).collect::<Vec<_>>(),
        )?;
        if self.options.exact {
            let exact_support = r
                .pmf
                .iter()
                .map(|(t, _, _)| crate::convert::rat_fraction(py, *t))
                .collect::<PyResult<Vec<_>>>()?;
            let exact_p = r
                .pmf
                .iter()
                .map(|(_, p, _)| exact(py, p))
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("support_exact", exact_support)?;
            d.set_item("probabilities_exact", exact_p)?;
        }
        put_value(py, &d, "mean", &r.mean)?;
        put_value(py, &d, "tail", &r.tail)?;
        d.set_item("std", r.std)?;
        d.set_item("steps", r.steps)?;
        let quantiles = PyDict::new(py);
        for q in perfectplay::dynamic::DistributionReport::QUANTILES {
            quantiles.set_item(q, r.quantile(q).map(|t| t.to_f64()))?;
        }
        d.set_item("quantiles", quantiles)?;
        Ok(d)
    }

    /// Plays `games` games with the computed strategy, as a dict: games, mean, std, ci95,
    /// interval.
    #[pyo3(signature = (games, seed=0))]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        games: usize,
        seed: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        if games == 0 {
            return Err(PyValueError::new_err("simulate needs at least one game"));
        }
        let solved = self.explored(py)?;
        // Ctrl-C is looked for every few games.
        let watch = Watch::default();
        let s = py
            .allow_threads(|| solved.simulate_watched(games, seed, &mut |_| watch.poll()))
            .map_err(|e| watch.take().unwrap_or_else(|| self.error(e)))?;
        let d = PyDict::new(py);
        d.set_item("games", s.games)?;
        d.set_item("mean", s.mean)?;
        d.set_item("std", s.std)?;
        d.set_item("ci95", s.ci95)?;
        d.set_item("interval", s.interval)?;
        Ok(d)
    }

    /// The number of explored states (exploring a built-in game first if need be).
    fn states(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.explored(py)?.states())
    }
}

impl Solution {
    /// One move or outcome as a dict; `next` lists where it leads.
    fn branch<'py>(
        &self,
        py: Python<'py>,
        solved: &dyn Solved,
        b: &BranchValue<perfectplay::dynamic::Value>,
        next: &[(perfectplay::Rat, usize)],
        is_move: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("label", &b.label)?;
        put_value(py, &d, "value", &b.value)?;
        d.set_item("reward", crate::convert::rat_fraction(py, b.reward)?)?;
        if is_move {
            put_value(py, &d, "loss", &b.loss)?;
            d.set_item("optimal", b.optimal)?;
            d.set_item("chosen", b.chosen)?;
        } else {
            d.set_item(
                "probability",
                crate::convert::rat_fraction(py, b.probability)?,
            )?;
        }
        if b.outcomes.is_empty() {
            let to = match next.first() {
                Some(&(_, id)) if id != usize::MAX => self.state_object(py, solved, id, &b.next)?,
                _ => b.next.clone().into_pyobject(py)?.into_any().unbind(),
            };
            d.set_item("next", to)?;
            d.set_item("outcomes", PyList::empty(py))?;
        } else {
            d.set_item("next", py.None())?;
            let outcomes = PyList::empty(py);
            for (o, &(_, id)) in b.outcomes.iter().zip(next) {
                let od = self.branch(py, solved, o, &[(o.probability, id)], false)?;
                outcomes.append(od)?;
            }
            d.set_item("outcomes", outcomes)?;
        }
        Ok(d)
    }
}
