//! The result of a solve: values of every explored state, the chosen strategy, statistics, and
//! per-state explanations (every move with its value and its loss against the best).

use crate::backup::NO_CHOICE;
use crate::model::{Model, Node, NodeKind};
use crate::report::Stats;
use crate::states::StateSet;
use crate::{Number, Player, Rat, SolveError};

/// The solved game: a value for every explored state and a strategy that attains them.
///
/// States are numbered densely in the order the engine found them; the start state is number
/// zero. The strategy ([`Solution::chosen`]) ends the game with probability one wherever the
/// game has cycles, which a merely value-optimal move does not always do.
pub struct Solution<S, N> {
    states: StateSet<S>,
    values: Vec<N>,
    choices: Vec<u32>,
    component: Vec<u32>,
    stats: Stats,
}

/// One move or outcome of a state with its value.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchValue<N> {
    /// The label, as the model shows it.
    pub label: String,
    /// The probability of an outcome (one for a move).
    pub probability: Rat,
    /// The step reward on the branch.
    pub reward: Rat,
    /// The state it leads to, as the model shows it.
    pub next: String,
    /// The reward plus the value of the next state.
    pub value: N,
    /// For a move: how much worse than the best move it is (zero for an optimal move). For an
    /// outcome: zero.
    pub loss: N,
    /// For a move: whether it is optimal (within the tie tolerance of [`Number::tie`]).
    pub optimal: bool,
    /// For a move: whether it is the one the computed strategy plays.
    pub chosen: bool,
    /// For a move whose result is drawn by chance: its outcomes, each with its probability,
    /// reward, next state and value (the move's reward included). Empty otherwise, and then
    /// `next` is the state the move leads to (for a random move `next` is empty).
    pub outcomes: Vec<BranchValue<N>>,
}

/// One decision state of an exported strategy ([`Solution::strategy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyRow<N> {
    /// The number of the state in the solution (see [`Solution::state_at`]).
    pub id: usize,
    /// The state, as the model shows it.
    pub state: String,
    /// Its value.
    pub value: N,
    /// Every optimal move (ties included), in the model's order.
    pub optimal: Vec<String>,
    /// The move the computed strategy plays (one of the optimal ones; in a cycle, one that
    /// also ends the game).
    pub chosen: String,
}

/// A state with the value of every move or outcome, as [`Solution::explain`] returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct StateExplanation<N> {
    /// The state, as the model shows it.
    pub state: String,
    /// What kind of node it is.
    pub kind: NodeKind,
    /// Its value.
    pub value: N,
    /// Its moves or outcomes in the model's order.
    pub branches: Vec<BranchValue<N>>,
}

impl<S: Clone + Eq + std::hash::Hash, N: Number> Solution<S, N> {
    pub(crate) fn new(
        states: StateSet<S>,
        values: Vec<N>,
        choices: Vec<u32>,
        component: Vec<u32>,
        stats: Stats,
    ) -> Self {
        Solution {
            states,
            values,
            choices,
            component,
            stats,
        }
    }

    /// The strongly connected component of a non-terminal state: components are numbered
    /// `0, 1, …` in the order they were solved, which is a reverse topological order (a
    /// component's successors have smaller numbers). `None` for terminal and unexplored states.
    pub fn component(&self, state: &S) -> Option<usize> {
        let i = self.states.get_index_of(state)?;
        match self.component[i] {
            NO_CHOICE => None,
            c => Some(c as usize),
        }
    }

    /// [`Solution::component`] of the explored state number `index`.
    pub(crate) fn component_at(&self, index: usize) -> Option<usize> {
        match self.component[index] {
            NO_CHOICE => None,
            c => Some(c as usize),
        }
    }

    /// The value of the start state.
    pub fn start_value(&self) -> &N {
        &self.values[0]
    }

    /// The value of an explored state, or `None` if the solve never reached it.
    pub fn value(&self, state: &S) -> Option<&N> {
        self.states.get_index_of(state).map(|i| &self.values[i])
    }

    /// Statistics of the solve.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Number of explored states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether no state was explored (never true for a finished solve).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The explored states with their values, in exploration order.
    pub fn iter(&self) -> impl Iterator<Item = (&S, &N)> {
        self.states.iter().zip(&self.values)
    }

    /// The index of the move the strategy plays at a decision state (in the model's order), or
    /// `None` for other states and unexplored ones.
    pub fn chosen(&self, state: &S) -> Option<usize> {
        self.chosen_at(self.states.get_index_of(state)?)
    }

    /// The number of an explored state (`0..len()`, the start is `0`), or `None`.
    ///
    /// For a model that numbers its states ([`Model::dense_index`]), the first call builds a
    /// hash index of every state; [`Solution::number_of`] avoids that.
    pub fn index_of(&self, state: &S) -> Option<usize> {
        self.states.get_index_of(state)
    }

    /// [`Solution::index_of`] through the model's numbering where it has one: an array access,
    /// with no index to build. `model` must be the model that was solved.
    pub fn number_of<M: Model<State = S>>(&self, model: &M, state: &S) -> Option<usize> {
        self.states.find(model, state)
    }

    /// The explored state number `index`.
    ///
    /// # Panics
    /// If `index >= len()`.
    pub fn state_at(&self, index: usize) -> &S {
        self.states.get(index)
    }

    /// The value of the explored state number `index`.
    ///
    /// # Panics
    /// If `index >= len()`.
    pub fn value_at(&self, index: usize) -> &N {
        &self.values[index]
    }

    /// [`Solution::chosen`] for the explored state number `index`.
    pub fn chosen_at(&self, index: usize) -> Option<usize> {
        match *self.choices.get(index)? {
            NO_CHOICE => None,
            c => Some(c as usize),
        }
    }

    /// Every explored decision state with its value, its optimal moves and the move the
    /// strategy plays, in exploration order: the strategy as a table. `model` must be the
    /// model that was solved. [`Solution::strategy_rows`] gives the same rows one at a time.
    pub fn strategy<M: Model<State = S>>(
        &self,
        model: &M,
    ) -> Result<Vec<StrategyRow<N>>, SolveError> {
        self.strategy_rows(model).collect()
    }

    /// The rows of [`Solution::strategy`], made one at a time, so that a large strategy can
    /// be written out without holding it all.
    pub fn strategy_rows<'a, M: Model<State = S>>(
        &'a self,
        model: &'a M,
    ) -> impl Iterator<Item = Result<StrategyRow<N>, SolveError>> + 'a {
        self.states
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.choices[i] != NO_CHOICE)
            .map(move |(id, state)| {
                let e = self.explain(model, state)?;
                let chosen = e
                    .branches
                    .iter()
                    .find(|b| b.chosen)
                    .map(|b| b.label.clone())
                    .unwrap_or_default();
                Ok(StrategyRow {
                    id,
                    state: e.state,
                    value: e.value,
                    optimal: e
                        .branches
                        .into_iter()
                        .filter(|b| b.optimal)
                        .map(|b| b.label)
                        .collect(),
                    chosen,
                })
            })
    }

    /// Every move or outcome of `state` with its value; for moves also the loss against the
    /// best move and whether it is optimal. Re-expands the state with `model`, which must be
    /// the model that was solved.
    pub fn explain<M: Model<State = S>>(
        &self,
        model: &M,
        state: &S,
    ) -> Result<StateExplanation<N>, SolveError> {
        let unknown = || SolveError::UnknownState {
            state: model.show_state(state),
        };
        let at = self.number_of(model, state).ok_or_else(unknown)?;
        let value = self.values[at].clone();
        let mut node = Node::new();
        model.expand(state, &mut node);
        node.validate().map_err(|reason| SolveError::InvalidModel {
            state: model.show_state(state),
            reason,
        })?;
        // One entry per branch: `extra` is a random move's reward, added to each outcome's
        // (as the engine does, so that float values agree to the bit).
        let entry =
            |b: &crate::Branch<S, M::Move>, extra: Rat| -> Result<BranchValue<N>, SolveError> {
                let next = &self.values[self.number_of(model, &b.next).ok_or_else(unknown)?];
                let mut reward = N::from_rat(b.reward);
                if !extra.is_zero() {
                    reward = reward.add(&N::from_rat(extra));
                }
                Ok(BranchValue {
                    label: model.show_move(&b.label),
                    probability: b.probability,
                    reward: b.reward,
                    next: model.show_state(&b.next),
                    value: reward.add(next),
                    loss: N::zero(),
                    optimal: false,
                    chosen: false,
                    outcomes: Vec::new(),
                })
            };
        let mut branches = Vec::with_capacity(node.branches().len());
        if let NodeKind::Decision(_) = node.kind() {
            for m in node.moves() {
                if !m.random {
                    branches.push(entry(&m.outcomes[0], Rat::ZERO)?);
                    continue;
                }
                let outcomes = m
                    .outcomes
                    .iter()
                    .map(|b| entry(b, m.reward))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut value = N::zero();
                for o in &outcomes {
                    value.add_mul(&N::from_rat(o.probability), &o.value);
                }
                branches.push(BranchValue {
                    label: model.show_move(m.label),
                    probability: Rat::ONE,
                    reward: m.reward,
                    next: String::new(),
                    value,
                    loss: N::zero(),
                    optimal: false,
                    chosen: false,
                    outcomes,
                });
            }
        } else {
            for b in node.branches() {
                branches.push(entry(b, Rat::ZERO)?);
            }
        }
        if let NodeKind::Decision(player) = node.kind() {
            let best = branches
                .iter()
                .map(|b| b.value.clone())
                .reduce(|a, b| if player.prefers(&b, &a) { b } else { a })
                .unwrap_or_else(N::zero);
            let chosen = self.chosen_at(at);
            for (i, b) in branches.iter_mut().enumerate() {
                b.loss = match player {
                    Player::Max => best.sub(&b.value),
                    Player::Min => b.value.sub(&best),
                };
                b.optimal = N::tie(&b.value, &best);
                b.chosen = chosen == Some(i);
            }
        }
        Ok(StateExplanation {
            state: model.show_state(state),
            kind: node.kind(),
            value,
            branches,
        })
    }

    /// The indices of all optimal moves at a decision state, in the model's order (empty for
    /// other states).
    pub fn optimal_moves<M: Model<State = S>>(
        &self,
        model: &M,
        state: &S,
    ) -> Result<Vec<usize>, SolveError> {
        let e = self.explain(model, state)?;
        Ok(e.branches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.optimal)
            .map(|(i, _)| i)
            .collect())
    }
}
