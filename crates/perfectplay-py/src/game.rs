//! A game written in Python as a [`Model`]: the engine sees dense numbers, a Python dict
//! numbers the states (so any hashable value is a state, hashed and compared by Python), and
//! `expand` takes the GIL for each call back into Python (the solve itself runs without it).
//!
//! `Model::expand` cannot fail, so a failure (an exception in the game's code, a node the
//! engine cannot read, Ctrl-C) is kept here and the node is left invalid: the engine stops
//! with an invalid-model error, and the caller raises the kept exception in its place.

use std::sync::Mutex;

use perfectplay::{Model, NodeBuilder, Player};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::show;
use crate::nodes::{Chance, Decision, Move, Outcome, Terminal};

/// The label of a move or outcome: the text given, or, for an outcome given without one, the
/// state it leads to, whose `repr` is made only when a label is shown (not on every expand).
#[derive(Clone, Debug)]
pub enum Label {
    /// The text given.
    Given(String),
    /// The state numbered so, shown as its `repr`.
    NextState(u32),
}

/// A Python game object (with `start()` and `expand(state)`) seen as a model.
pub struct PyGame {
    expand: Py<PyAny>,
    /// State → number.
    index: Py<PyDict>,
    /// Number → state.
    states: Mutex<Vec<Py<PyAny>>>,
    /// The first failure, raised once the solve returns.
    failure: Mutex<Option<PyErr>>,
    /// Whether floats are read as the binary fractions they store.
    floats: bool,
    /// Who loses a play that never ends (the game's `endless_play_loser()`).
    endless: Option<Player>,
    /// What the total counts (the game's `total_name()`).
    total: Option<String>,
    /// The game's `turn_of`, where its `has_turns()` is true.
    turn_of: Option<Py<PyAny>>,
}

/// Why a node could not be read.
enum Fault {
    /// The game's own code raised (kept as it is, with a note naming the state).
    Raised(PyErr),
    /// The node is not one the engine can take (says why).
    Bad(String),
}

impl From<PyErr> for Fault {
    fn from(e: PyErr) -> Fault {
        Fault::Raised(e)
    }
}

impl PyGame {
    /// The game `game`, its start state numbered 0.
    pub fn new(game: &Bound<'_, PyAny>, floats: bool) -> PyResult<PyGame> {
        let py = game.py();
        let expand = game.getattr("expand").map_err(|_| {
            PyTypeError::new_err(format!(
                "{} is no game: a game has start() and expand(state) (subclass perfectplay.Game)",
                show(game)
            ))
        })?;
        let start = game.call_method0("start")?;
        let endless = match game.getattr("endless_play_loser") {
            Ok(f) => {
                let who = f.call0()?;
                match who.extract::<Option<String>>().ok().flatten().as_deref() {
                    _ if who.is_none() => None,
                    Some("max") => Some(Player::Max),
                    Some("min") => Some(Player::Min),
                    _ => {
                        return Err(PyValueError::new_err(format!(
                            "endless_play_loser() returns \"max\", \"min\" or None, not {}",
                            show(&who)
                        )))
                    }
                }
            }
            Err(_) => None,
        };
        let total = match game.getattr("total_name") {
            Ok(f) => {
                let name = f.call0()?;
                match name.extract::<Option<String>>() {
                    Ok(name) => name,
                    Err(_) => {
                        return Err(PyValueError::new_err(format!(
                            "total_name() returns a str or None, not {}",
                            show(&name)
                        )))
                    }
                }
            }
            Err(_) => None,
        };
        let turns = match game.getattr("has_turns") {
            Ok(f) => {
                let on = f.call0()?;
                on.extract::<bool>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "has_turns() returns True or False, not {}",
                        show(&on)
                    ))
                })?
            }
            Err(_) => false,
        };
        let turn_of = if turns {
            Some(
                game.getattr("turn_of")
                    .map_err(|_| {
                        PyTypeError::new_err(
                            "has_turns() is True, so the game defines turn_of(state)",
                        )
                    })?
                    .unbind(),
            )
        } else {
            None
        };
        let g = PyGame {
            turn_of,
            total,
            expand: expand.unbind(),
            index: PyDict::new(py).unbind(),
            states: Mutex::new(Vec::new()),
            failure: Mutex::new(None),
            floats,
            endless,
        };
        g.intern(py, &start)
            .map_err(|reason| PyValueError::new_err(format!("the start state: {reason}")))?;
        Ok(g)
    }

    /// The number of `state`, numbering it if it is new; fails when it cannot be hashed.
    fn intern(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> Result<u32, String> {
        let index = self.index.bind(py);
        let unhashable = |e: PyErr| {
            format!(
                "state {} cannot be a key of a dict ({e}); use hashable states, such as tuples \
                 or frozensets",
                show(state)
            )
        };
        if let Some(id) = index.get_item(state).map_err(unhashable)? {
            return id.extract::<u32>().map_err(|e| e.to_string());
        }
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let id = u32::try_from(states.len()).map_err(|_| "too many states".to_string())?;
        index.set_item(state, id).map_err(unhashable)?;
        states.push(state.clone().unbind());
        Ok(id)
    }

    /// The number of `state`, if it was reached.
    pub fn number(&self, state: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        match self.index.bind(state.py()).get_item(state)? {
            Some(id) => Ok(Some(id.extract()?)),
            None => Ok(None),
        }
    }

    /// How many states have been numbered.
    pub fn known(&self) -> usize {
        self.states.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The state numbered `id`.
    pub fn state(&self, py: Python<'_>, id: u32) -> Py<PyAny> {
        let states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        states[id as usize].clone_ref(py)
    }

    /// The failure that stopped the engine, if one did (taken: asked once).
    pub fn take_failure(&self) -> Option<PyErr> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    fn failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Calls `expand` on state `id` and fills `node`.
    fn fill(
        &self,
        py: Python<'_>,
        id: u32,
        node: &mut impl NodeBuilder<u32, Label>,
        kind_set: &mut bool,
    ) -> Result<(), Fault> {
        py.check_signals()?;
        let state = self.state(py, id);
        let result = self.expand.bind(py).call1((state,))?;
        let number =
            |g: crate::convert::Given, what: &str| g.to_rat(what, self.floats).map_err(Fault::Bad);
        if let Ok(t) = result.downcast::<Terminal>() {
            let payoff = number(t.get().payoff, "payoff")?;
            *kind_set = true;
            node.terminal(payoff);
        } else if let Ok(d) = result.downcast::<Decision>() {
            let d = d.get();
            *kind_set = true;
            node.decision(d.player);
            for m in &d.moves {
                let m: &Move = m.get();
                let reward = number(m.reward, "reward")?;
                match (&m.next, &m.chance) {
                    (Some(next), _) => {
                        let next = self.intern(py, next.bind(py)).map_err(Fault::Bad)?;
                        node.add_move(Label::Given(m.label.clone()), reward, next);
                    }
                    (None, Some(outcomes)) => {
                        node.add_random_move(Label::Given(m.label.clone()), reward);
                        self.add_outcomes(py, outcomes, node)?;
                    }
                    (None, None) => unreachable!("a Move has a next state or outcomes"),
                }
            }
        } else if let Ok(c) = result.downcast::<Chance>() {
            *kind_set = true;
            node.chance();
            self.add_outcomes(py, &c.get().outcomes, node)?;
        } else {
            return Err(Fault::Bad(format!(
                "expand returned {}, not a perfectplay.Terminal, Decision or Chance",
                show(&result)
            )));
        }
        Ok(())
    }

    fn add_outcomes(
        &self,
        py: Python<'_>,
        outcomes: &[Outcome],
        node: &mut impl NodeBuilder<u32, Label>,
    ) -> Result<(), Fault> {
        for o in outcomes {
            let p = o
                .probability
                .to_rat("probability", self.floats)
                .map_err(Fault::Bad)?;
            let reward = o.reward.to_rat("reward", self.floats).map_err(Fault::Bad)?;
            let next = self.intern(py, o.next.bind(py)).map_err(Fault::Bad)?;
            let label = match &o.label {
                Some(l) => Label::Given(l.clone()),
                None => Label::NextState(next),
            };
            node.add_outcome(label, p, reward, next);
        }
        Ok(())
    }

    /// Keeps the first failure, naming the state.
    fn fail(&self, py: Python<'_>, id: u32, fault: Fault) {
        let state = show(self.state(py, id).bind(py));
        let err = match fault {
            Fault::Raised(e) => {
                let value = e.value(py);
                // Python 3.11 and later print notes under the traceback.
                if value.hasattr("add_note").unwrap_or(false) {
                    let _ =
                        value.call_method1("add_note", (format!("while expanding state {state}"),));
                }
                e
            }
            Fault::Bad(reason) => {
                PyValueError::new_err(format!("invalid model at state {state}: {reason}"))
            }
        };
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert(err);
    }
}

impl Model for PyGame {
    type State = u32;
    type Move = Label;

    fn start(&self) -> u32 {
        0
    }

    fn expand(&self, &id: &u32, node: &mut impl NodeBuilder<u32, Label>) {
        Python::with_gil(|py| {
            // After a failure every node is left unset, which the engine rejects at once.
            if self.failed() {
                return;
            }
            let mut kind_set = false;
            if let Err(fault) = self.fill(py, id, node, &mut kind_set) {
                self.fail(py, id, fault);
                if kind_set {
                    // A second kind makes the node invalid, whatever was added before.
                    node.terminal(0);
                }
            }
        })
    }

    fn show_state(&self, &id: &u32) -> String {
        Python::with_gil(|py| show(self.state(py, id).bind(py)))
    }

    fn show_move(&self, mv: &Label) -> String {
        match mv {
            Label::Given(text) => text.clone(),
            Label::NextState(id) => self.show_state(id),
        }
    }

    fn total_name(&self) -> Option<String> {
        self.total.clone()
    }

    fn endless_play_loser(&self) -> Option<Player> {
        self.endless
    }

    fn has_turns(&self) -> bool {
        self.turn_of.is_some()
    }

    /// The game's `turn_of(state)`: `None`, or the kept state (numbered here). A failure
    /// is kept (and raised once the solve returns) and the state taken as kept; the solve
    /// then stops at the next expansion.
    fn turn_of(&self, &id: &u32) -> Option<u32> {
        let f = self.turn_of.as_ref()?;
        Python::with_gil(|py| {
            if self.failed() {
                return None;
            }
            let state = self.state(py, id);
            let got = f.bind(py).call1((state.bind(py),));
            match got {
                Ok(k) if k.is_none() => None,
                Ok(k) => match self.intern(py, &k) {
                    Ok(k) => Some(k),
                    Err(reason) => {
                        self.fail(
                            py,
                            id,
                            Fault::Bad(format!("turn_of gave a bad state: {reason}")),
                        );
                        None
                    }
                },
                Err(e) => {
                    self.fail(py, id, Fault::Raised(e));
                    None
                }
            }
        })
    }

    /// `#N`, the state numbered `N` here: how the bindings ask the engine for the number it
    /// gave a state (users name states by the Python values themselves).
    fn parse_state(&self, text: &str) -> Result<u32, String> {
        text.strip_prefix('#')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("'{text}' is not '#N'"))
    }
}
