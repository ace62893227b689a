//! What a Python game's `expand` returns: `Terminal`, `Decision` (of `Move`s) or `Chance`.
//! Each checks and reads its arguments when it is made, so a mistake is raised inside
//! `expand`, where the traceback shows it, and the solve reads Rust fields only.

use perfectplay::Player;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::convert::{show, text, Given};

/// An outcome of a chance node or of a random move.
pub struct Outcome {
    /// Its probability as given.
    pub probability: Given,
    /// The state it leads to.
    pub next: Py<PyAny>,
    /// The reward collected on the way.
    pub reward: Given,
    /// Its label in explanations, if one was given (else the state it leads to names it).
    pub label: Option<String>,
}

impl Outcome {
    /// `(probability, next_state)`, `(probability, next_state, reward)` or
    /// `(probability, next_state, reward, label)`.
    fn read(item: &Bound<'_, PyAny>) -> PyResult<Outcome> {
        let t = item.downcast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err(format!(
                "an outcome is a tuple (probability, next_state, reward), not {}",
                show(item)
            ))
        })?;
        if !(2..=4).contains(&t.len()) {
            return Err(PyTypeError::new_err(format!(
                "an outcome is a tuple (probability, next_state, reward), not {}",
                show(item)
            )));
        }
        let reward = match t.len() {
            2 => Given::Exact(perfectplay::Rat::ZERO),
            _ => Given::read(&t.get_item(2)?, "reward")?,
        };
        let label = match t.len() {
            4 => Some(text(&t.get_item(3)?.str()?)?),
            _ => None,
        };
        Ok(Outcome {
            probability: Given::read(&t.get_item(0)?, "probability")?,
            next: t.get_item(1)?.unbind(),
            reward,
            label,
        })
    }
}

fn read_outcomes(outcomes: &Bound<'_, PyAny>) -> PyResult<Vec<Outcome>> {
    outcomes.try_iter()?.map(|o| Outcome::read(&o?)).collect()
}

fn outcomes_list<'py>(py: Python<'py>, outcomes: &[Outcome]) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyTuple>> = outcomes
        .iter()
        .map(|o| {
            PyTuple::new(
                py,
                [
                    given(py, o.probability)?,
                    o.next.clone_ref(py),
                    given(py, o.reward)?,
                ],
            )
        })
        .collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

/// A number back in Python: an int or `Fraction`, or the float given.
fn given(py: Python<'_>, g: Given) -> PyResult<Py<PyAny>> {
    match g {
        Given::Exact(r) if r.is_integer() => match r.parts() {
            Some((n, _)) => Ok(n.into_pyobject(py)?.into_any().unbind()),
            None => crate::convert::whole(py, &r.to_string()),
        },
        Given::Exact(r) => crate::convert::rat_fraction(py, r),
        Given::Float(x) => Ok(x.into_pyobject(py)?.into_any().unbind()),
    }
}

/// The end of a play, worth `payoff` (an int or a `Fraction`).
#[pyclass(frozen, module = "perfectplay")]
pub struct Terminal {
    /// The payoff as given.
    pub payoff: Given,
}

#[pymethods]
impl Terminal {
    #[new]
    fn new(payoff: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Terminal {
            payoff: Given::read(payoff, "payoff")?,
        })
    }

    /// The payoff.
    #[getter(payoff)]
    fn get_payoff(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        given(py, self.payoff)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Terminal({})",
            show(given(py, self.payoff)?.bind(py))
        ))
    }
}

/// A move of a decision: to `next_state`, or, with `chance=`, a random move whose outcomes
/// chance draws. `reward` is collected when the move is played.
#[pyclass(frozen, module = "perfectplay")]
pub struct Move {
    /// The label, as `str(label)`.
    pub label: String,
    /// Where a plain move leads.
    pub next: Option<Py<PyAny>>,
    /// The reward of the move.
    pub reward: Given,
    /// The outcomes of a random move.
    pub chance: Option<Vec<Outcome>>,
}

#[pymethods]
impl Move {
    #[new]
    #[pyo3(signature = (label, next_state=None, reward=None, *, chance=None))]
    fn new(
        label: &Bound<'_, PyAny>,
        next_state: Option<Bound<'_, PyAny>>,
        reward: Option<&Bound<'_, PyAny>>,
        chance: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let py = label.py();
        let label = match label.downcast::<PyString>() {
            Ok(s) => text(s)?,
            Err(_) => text(&label.str()?)?,
        };
        let reward = match reward {
            Some(r) => Given::read(r, "reward")?,
            None => Given::Exact(perfectplay::Rat::ZERO),
        };
        let chance = match chance {
            Some(c) => {
                if next_state.is_some() {
                    return Err(PyValueError::new_err(format!(
                        "move {label:?} has both a next_state and chance outcomes; give one"
                    )));
                }
                Some(read_outcomes(c)?)
            }
            None => None,
        };
        // Without `chance`, the next state is the one given, and `None` is a state too.
        let next = match &chance {
            Some(_) => None,
            None => Some(match next_state {
                Some(s) => s.unbind(),
                None => py.None(),
            }),
        };
        Ok(Move {
            label,
            next,
            reward,
            chance,
        })
    }

    /// The label.
    #[getter]
    fn label(&self) -> &str {
        &self.label
    }

    /// The state a plain move leads to (`None` for a random move).
    #[getter]
    fn next_state(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.next.as_ref().map(|n| n.clone_ref(py))
    }

    /// The reward.
    #[getter(reward)]
    fn get_reward(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        given(py, self.reward)
    }

    /// The outcomes of a random move as `(probability, next_state, reward)` (`None` for a
    /// plain move).
    #[getter(chance)]
    fn get_chance<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.chance
            .as_deref()
            .map(|c| outcomes_list(py, c))
            .transpose()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let reward = show(given(py, self.reward)?.bind(py));
        Ok(match (&self.next, &self.chance) {
            (Some(n), _) => format!(
                "Move({:?}, {}, reward={reward})",
                self.label,
                show(n.bind(py))
            ),
            (None, Some(c)) => format!(
                "Move({:?}, reward={reward}, chance={})",
                self.label,
                show(outcomes_list(py, c)?.as_any())
            ),
            (None, None) => format!("Move({:?})", self.label),
        })
    }
}

/// A decision of `player` (`"max"` or `"min"`) among `moves` (a non-empty sequence of
/// `Move`s).
#[pyclass(frozen, module = "perfectplay")]
pub struct Decision {
    /// Who decides.
    pub player: Player,
    /// The moves, in order.
    pub moves: Vec<Py<Move>>,
}

#[pymethods]
impl Decision {
    #[new]
    fn new(player: &str, moves: &Bound<'_, PyAny>) -> PyResult<Self> {
        let player = match player {
            "max" => Player::Max,
            "min" => Player::Min,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "a decision's player is \"max\" or \"min\", not {player:?}"
                )))
            }
        };
        let moves = moves
            .try_iter()?
            .map(|m| {
                let m = m?;
                m.downcast::<Move>()
                    .map(|m| m.clone().unbind())
                    .map_err(|_| {
                        PyTypeError::new_err(format!(
                            "a decision's moves are perfectplay.Move objects, not {}",
                            show(&m)
                        ))
                    })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Decision { player, moves })
    }

    /// `"max"` or `"min"`.
    #[getter]
    fn player(&self) -> &'static str {
        perfectplay::dynamic::player_name(self.player)
    }

    /// The moves.
    #[getter]
    fn moves(&self, py: Python<'_>) -> Vec<Py<Move>> {
        self.moves.iter().map(|m| m.clone_ref(py)).collect()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|m| m.borrow(py).__repr__(py))
            .collect::<PyResult<_>>()?;
        Ok(format!(
            "Decision({:?}, [{}])",
            self.player(),
            moves.join(", ")
        ))
    }
}

/// A chance node: `outcomes` are `(probability, next_state, reward)` tuples (the reward may be
/// left out, and a fourth item labels the outcome); the probabilities must sum to exactly 1.
#[pyclass(frozen, module = "perfectplay")]
pub struct Chance {
    /// The outcomes, in order.
    pub outcomes: Vec<Outcome>,
}

#[pymethods]
impl Chance {
    #[new]
    fn new(outcomes: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Chance {
            outcomes: read_outcomes(outcomes)?,
        })
    }

    /// The outcomes as `(probability, next_state, reward)`.
    #[getter]
    fn outcomes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        outcomes_list(py, &self.outcomes)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Chance({})",
            show(outcomes_list(py, &self.outcomes)?.as_any())
        ))
    }
}
