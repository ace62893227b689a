//! The start value without exploring: a sweep over the model's own order of its states (see
//! [`Model::sweep_len`]), as a hand-written dynamic program fills its table.
//!
//! Exploration interns every state it reaches, keeps a Tarjan stack and its edges, and records
//! a strategy. When only the start value is asked for and the model can list its states with
//! every successor first, none of that is needed: each state is expanded once, in that order,
//! and backed up from the values of its successors, which are looked up by the model's
//! numbering ([`Model::dense_index`]). Values are exactly those of the exploring engine (the
//! same backup, in the same order of operations).
//!
//! Nothing is taken on trust: every successor must have been solved earlier in the sweep (so a
//! wrong order, or a cycle, is an error naming the state rather than a wrong value), no number
//! may come twice, and the start state must be among those swept.

use std::time::Instant;

use crate::component::Kind;
use crate::explore::{back_up, edge_numbers, Edge, Progress};
use crate::memory;
use crate::model::{Model, Node, NodeKind};
use crate::solution::Stats;
use crate::{Number, Rat, SolveError};

/// How many swept states between progress reports and memory checks.
const CHECK_EVERY: usize = 1 << 16;

/// How many swept states between two calls of `give_up`.
const GIVE_UP_EVERY: usize = 1 << 12;

/// The value of the start state by a sweep, or `None` when the model offers no sweep (no
/// order, or no numbering) or `give_up` (asked now and then) said to stop.
pub(crate) fn start_value<M: Model, N: Number>(
    model: &M,
    max_states: usize,
    mut progress: Option<&mut dyn FnMut(&Progress)>,
    give_up: fn() -> bool,
) -> Option<Result<(N, Stats), SolveError>> {
    let (ranks, bound) = (model.sweep_len(), model.dense_bound());
    // Successors are `u32` edges, as in exploration.
    if ranks == 0 || bound == 0 || bound > u32::MAX as usize {
        return None;
    }
    // The table of values is made at once: make sure it fits before it is written.
    let bytes = (bound * std::mem::size_of::<N>() + bound / 8) as u64;
    if let Some((resident, available)) = memory::reading() {
        if available < bytes + memory::MARGIN {
            let gb = |b: u64| b as f64 / 1e9;
            return Some(Err(SolveError::TooLarge {
                what: format!(
                    "the sweep needs {:.1} GB for its values and {:.1} GB are free ({:.1} GB in \
                     use)",
                    gb(bytes),
                    gb(available),
                    gb(resident)
                ),
            }));
        }
    }
    let started = Instant::now();
    let mut sweep = Sweep::<M, N> {
        model,
        values: vec![N::zero(); bound],
        solved: vec![0; bound.div_ceil(64)],
        node: Node::new(),
        edges: Vec::new(),
        move_rewards: Vec::new(),
        stats: Stats {
            swept: true,
            ..Stats::default()
        },
    };
    let mut next_check = CHECK_EVERY;
    let mut next_ask = GIVE_UP_EVERY;
    let result = (|| {
        for rank in 0..ranks {
            let Some(state) = model.sweep_state(rank) else {
                continue;
            };
            sweep.solve(&state)?;
            if sweep.stats.states >= next_ask {
                next_ask += GIVE_UP_EVERY;
                if give_up() {
                    return Ok(None);
                }
            }
            if sweep.stats.states > max_states {
                return Err(SolveError::StateLimit {
                    explored: sweep.stats.states,
                    limit: max_states,
                    components: sweep.stats.components,
                });
            }
            if sweep.stats.states >= next_check {
                next_check += CHECK_EVERY;
                if let Some(f) = progress.as_mut() {
                    f(&Progress {
                        states: sweep.stats.states,
                        components: sweep.stats.components,
                        seconds: started.elapsed().as_secs_f64(),
                    });
                }
                check_memory(sweep.stats.states)?;
            }
        }
        let start = model.start();
        match sweep.number(&start) {
            Ok(at) if sweep.is_solved(at) => Ok(Some(sweep.values[at].clone())),
            Ok(_) => Err(invalid(
                model,
                &start,
                "the model's sweep order (sweep_state) never gives the start state".to_string(),
            )),
            Err(e) => Err(e),
        }
    })();
    match result {
        Ok(Some(value)) => {
            sweep.stats.seconds = started.elapsed().as_secs_f64();
            Some(Ok((value, sweep.stats)))
        }
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    }
}

struct Sweep<'a, M: Model, N> {
    model: &'a M,
    /// Per number: the value of the state, once solved.
    values: Vec<N>,
    /// Per number, one bit: solved.
    solved: Vec<u64>,
    node: Node<M::State, M::Move>,
    edges: Vec<Edge<N>>,
    move_rewards: Vec<(u32, Rat)>,
    stats: Stats,
}

impl<M: Model, N: Number> Sweep<'_, M, N> {
    fn is_solved(&self, at: usize) -> bool {
        is_solved(&self.solved, at)
    }

    fn number(&self, s: &M::State) -> Result<usize, SolveError> {
        number(self.model, self.values.len(), s)
    }

    /// Solves one state of the sweep from its successors' values.
    #[inline(always)]
    fn solve(&mut self, state: &M::State) -> Result<(), SolveError> {
        let Sweep {
            model,
            values,
            solved,
            node,
            edges,
            move_rewards,
            stats,
        } = self;
        let model = *model;
        let at = number(model, values.len(), state)?;
        if is_solved(solved, at) {
            return Err(invalid(
                model,
                state,
                "the model's sweep order (sweep_state) gives this state, or another with its \
                 number (dense_index), twice"
                    .to_string(),
            ));
        }
        stats.states += 1;
        node.clear();
        model.expand(state, node);
        if let Err(reason) = node.validate() {
            return Err(invalid(model, state, reason));
        }
        let kind = match node.kind() {
            NodeKind::Terminal => {
                values[at] = N::from_rat(node.payoff());
                solved[at / 64] |= 1 << (at % 64);
                return Ok(());
            }
            NodeKind::Decision(p) => Kind::Decision(p),
            NodeKind::Chance => Kind::Chance,
            NodeKind::Unset => unreachable!("validate rejects unset nodes"),
        };
        move_rewards.clear();
        move_rewards.extend(node.random_rewards().filter(|(_, r)| !r.is_zero()));
        edges.clear();
        let mut group = u32::MAX;
        for b in node.branches() {
            let target = number(model, values.len(), &b.next)?;
            if !is_solved(solved, target) {
                return Err(invalid(
                    model,
                    state,
                    format!(
                        "its successor {} is not solved before it in the model's sweep order \
                         (sweep_state), which must put every successor first (a game with \
                         cycles has no such order)",
                        model.show_state(&b.next)
                    ),
                ));
            }
            let (prob, reward) = edge_numbers(b, move_rewards);
            edges.push(Edge {
                target: target as u32,
                prob,
                reward,
                first: b.group != group,
            });
            group = b.group;
        }
        values[at] = back_up(kind, edges, values).0;
        solved[at / 64] |= 1 << (at % 64);
        stats.components += 1;
        Ok(())
    }
}

#[inline(always)]
fn is_solved(solved: &[u64], at: usize) -> bool {
    solved[at / 64] >> (at % 64) & 1 == 1
}

/// The number of `s`, checked against the bound.
#[inline(always)]
fn number<M: Model>(model: &M, bound: usize, s: &M::State) -> Result<usize, SolveError> {
    match model.dense_index(s) {
        Some(i) if i < bound => Ok(i),
        i => Err(invalid(
            model,
            s,
            format!("dense_index gave {i:?}, not a number below dense_bound ({bound})"),
        )),
    }
}

#[cold]
fn invalid<M: Model>(model: &M, s: &M::State, reason: String) -> SolveError {
    SolveError::InvalidModel {
        state: model.show_state(s),
        reason,
    }
}

/// Stops before the machine runs out of memory (see [`crate::memory`]).
#[cold]
fn check_memory(states: usize) -> Result<(), SolveError> {
    match memory::reading() {
        Some((resident, available)) if !memory::room(resident, available) => {
            Err(memory::too_large(states, resident, available))
        }
        _ => Ok(()),
    }
}
