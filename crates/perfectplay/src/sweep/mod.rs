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
//!
//! A model whose numbers increase along the sweep and whose successors lie at most a window
//! back ([`Model::sweep_window`]) is swept keeping only the values of that window (a [`Ring`]),
//! as a hand-written DP keeps only its last rows; a successor the window no longer holds is a
//! model error too. Several threads (`parallel`) keep every value.
//!
//! The module is split by concern: this file drives the one-thread sweep and solves one state
//! at a time (`Scratch`), `values` is where values are kept (a whole table or a window's
//! ring), `builder` is the [`crate::model::NodeBuilder`] that backs a state up as the model describes it,
//! and `parallel` is the lock-free schedule of several threads.

use std::time::Instant;

use crate::backup::{back_up_by, edge_numbers, Edge, Kind};
use crate::memory;
use crate::model::{Model, Node, NodeKind, MAX_TRANSIENT_DEPTH};
use crate::number::Checked;
use crate::report::{Method, Progress, Stats, Watch};
use crate::{Bounded, Exact, Number, Rat, SolveError};

mod builder;
mod parallel;
mod values;

use builder::Backup;
use values::{Ring, Slot, Table, Values};

/// How many swept states between progress reports and memory checks.
const CHECK_EVERY: usize = 1 << 16;

/// A number a sweep computes in: `f64` on one thread or several, [`Exact`] on one. The choice
/// of how to sweep is made by the number type, so that the solver layer never asks which type
/// it holds.
pub trait SweepNumber: Number {
    /// Whether this value saw a rounding. Only the checked floats of an exact solve know (the
    /// sweep then gives up, as the value is not exact); other numbers say no.
    fn rounded(&self) -> bool {
        false
    }

    /// The value of the start state of `model` by a sweep on up to `threads` threads, with the
    /// stats; `None` when the model offers no sweep or the sweep gave up. Numbers that cannot
    /// be shared between threads sweep on one (the default).
    fn sweep<M: Model + Sync>(
        model: &M,
        max_states: usize,
        watch: Watch<'_>,
        threads: usize,
    ) -> Option<Result<(Self, Stats), SolveError>> {
        let _ = threads;
        start_value(model, max_states, watch)
    }
}

impl SweepNumber for Exact {}

impl SweepNumber for f64 {
    fn sweep<M: Model + Sync>(
        model: &M,
        max_states: usize,
        watch: Watch<'_>,
        threads: usize,
    ) -> Option<Result<(f64, Stats), SolveError>> {
        float_sweep(model, max_states, watch, threads)
    }
}

impl SweepNumber for Bounded {
    fn sweep<M: Model + Sync>(
        model: &M,
        max_states: usize,
        watch: Watch<'_>,
        threads: usize,
    ) -> Option<Result<(Bounded, Stats), SolveError>> {
        float_sweep(model, max_states, watch, threads)
    }
}

/// The sweep of a float (with or without its bound): on several threads when asked.
fn float_sweep<M: Model + Sync, N: parallel::Shareable>(
    model: &M,
    max_states: usize,
    watch: Watch<'_>,
    threads: usize,
) -> Option<Result<(N, Stats), SolveError>> {
    if threads > 1 {
        parallel::start_value(model, max_states, watch, threads)
    } else {
        start_value(model, max_states, watch)
    }
}

impl SweepNumber for Checked {
    fn rounded(&self) -> bool {
        self.rounded
    }
}

/// Whether `model` offers a sweep: an order of its states and a numbering.
pub(crate) fn offered<M: Model>(model: &M) -> bool {
    sweep_bound(model).is_some()
}

/// The size of the table of numbers (the model's `dense_bound`), or `None` when the model
/// offers no sweep.
fn sweep_bound<M: Model>(model: &M) -> Option<usize> {
    let (ranks, bound) = (model.sweep_len(), model.dense_bound());
    // Successors are `u32` edges, as in exploration.
    (ranks > 0 && bound > 0 && bound <= u32::MAX as usize).then_some(bound)
}

/// Checks that `bytes` of values fit in the memory left, before they are made at once.
fn room_for(bytes: usize) -> Result<(), SolveError> {
    let bytes = bytes as u64;
    match memory::reading() {
        Some((resident, available)) if available < bytes + memory::MARGIN => {
            let gb = |b: u64| b as f64 / 1e9;
            Err(SolveError::TooLarge {
                what: format!(
                    "the sweep needs {:.1} GB for its values and {:.1} GB are free ({:.1} GB in \
                     use)",
                    gb(bytes),
                    gb(available),
                    gb(resident)
                ),
            })
        }
        _ => Ok(()),
    }
}

/// The value of the start state by a sweep on one thread, or `None` when the model offers no
/// sweep (no order, or no numbering) or a value rounded ([`SweepNumber::rounded`]). With a
/// [`Model::sweep_window`], only the values of the window are kept.
fn start_value<M: Model, N: SweepNumber>(
    model: &M,
    max_states: usize,
    watch: Watch<'_>,
) -> Option<Result<(N, Stats), SolveError>> {
    let bound = sweep_bound(model)?;
    // A window as large as the table saves nothing.
    let ring_len = match model.sweep_window().checked_next_power_of_two() {
        Some(len) if len > 1 && len < bound => len,
        _ => 0,
    };
    if ring_len == 0 {
        let bytes = bound * std::mem::size_of::<N>() + bound / 8;
        if let Err(e) = room_for(bytes) {
            return Some(Err(e));
        }
        let table = Table {
            values: vec![N::zero(); bound],
            solved: vec![0; bound.div_ceil(64)],
        };
        return sweep(model, table, max_states, watch);
    }
    let ring = room_for(ring_len * std::mem::size_of::<Slot<N>>())
        .and_then(|()| number(model, bound, &model.start()))
        .map(|start| Ring::new(bound, ring_len, start));
    match ring {
        Ok(ring) => sweep(model, ring, max_states, watch),
        Err(e) => Some(Err(e)),
    }
}

/// The one-thread sweep into `table`.
fn sweep<M: Model, N: SweepNumber>(
    model: &M,
    mut table: impl Values<N>,
    max_states: usize,
    mut watch: Watch<'_>,
) -> Option<Result<(N, Stats), SolveError>> {
    let started = Instant::now();
    let mut scratch = Scratch::new(1);
    let mut next_check = CHECK_EVERY;
    let result = (|| {
        let (mut rank, ranks) = (0, model.sweep_len());
        while rank < ranks {
            let Some(state) = swept_state(model, &mut rank) else {
                continue;
            };
            let rounded = scratch
                .solve(model, &mut table, &state)
                .map_err(Fail::error)?;
            if rounded {
                return Ok(None);
            }
            let states = scratch.stats.states;
            if states > max_states {
                return Err(limit_error(states, max_states, scratch.stats.components));
            }
            if states >= next_check {
                next_check += CHECK_EVERY;
                report(&mut watch, &scratch.stats, started)?;
                memory::check(states)?;
            }
        }
        swept_start(model, &table).map(Some)
    })();
    match result {
        Ok(Some(value)) => {
            scratch.stats.seconds = started.elapsed().as_secs_f64();
            Some(Ok((value, scratch.stats)))
        }
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    }
}

/// The state at `rank` of the sweep order, with `rank` moved on to the next rank to try; `None`
/// for a rank that holds no state, where the model may say how far to jump
/// ([`Model::sweep_resume`]).
#[inline(always)]
fn swept_state<M: Model>(model: &M, rank: &mut usize) -> Option<M::State> {
    // Hidden from the optimiser: LLVM otherwise turns the walk over ranks that hold no state
    // into a vectorised search, which is slower on sparse orders (BENCHMARKS.md).
    let at = std::hint::black_box(*rank);
    match model.sweep_state(at) {
        Some(state) => {
            *rank = at + 1;
            Some(state)
        }
        None => {
            *rank = model.sweep_resume(at).max(at + 1);
            None
        }
    }
}

/// Why a state could not be solved.
enum Fail {
    /// The model broke a rule (or a limit was reached).
    Model(SolveError),
    /// Another thread of a parallel sweep failed.
    Stopped,
}

impl Fail {
    fn error(self) -> SolveError {
        match self {
            Fail::Model(e) => e,
            Fail::Stopped => unreachable!("only a parallel sweep stops"),
        }
    }
}

impl From<SolveError> for Fail {
    fn from(e: SolveError) -> Self {
        Fail::Model(e)
    }
}

/// What a thread needs to solve states one at a time.
struct Scratch<M: Model, N> {
    node: Node<M::State, M::Move>,
    edges: Vec<Edge<N>>,
    move_rewards: Vec<(u32, Rat)>,
    stats: Stats,
}

impl<M: Model, N: SweepNumber> Scratch<M, N> {
    fn new(threads: usize) -> Self {
        Scratch {
            node: Node::new(),
            edges: Vec::new(),
            move_rewards: Vec::new(),
            stats: Stats {
                method: Method::Sweep { threads },
                ..Stats::default()
            },
        }
    }

    /// Solves one state of the sweep from its successors' values: as the model describes it
    /// ([`Backup`]), or, when that meets anything out of the ordinary, again from a recorded
    /// [`Node`], which checks in detail and names the fault. True when the value saw a
    /// rounding ([`SweepNumber::rounded`]): the sweep then gives up.
    #[inline(always)]
    fn solve(
        &mut self,
        model: &M,
        table: &mut impl Values<N>,
        state: &M::State,
    ) -> Result<bool, Fail> {
        let bound = table.bound();
        let at = number(model, bound, state)?;
        // A state given twice is caught when its value is stored: looking at its slot now
        // would map a zero page for reading, and the first write would then copy it (in
        // the parallel sweep, with a flush of every other core's TLB).
        if let Err(reason) = table.claim(at) {
            return Err(invalid(model, state, reason).into());
        }
        self.stats.states += 1;
        let mut backup = Backup::<M, N, _, false>::new(model, table, bound);
        model.expand(state, &mut backup);
        let (inside, inside_components) = (backup.states, backup.components);
        let value = match backup.finish()? {
            Some((value, decided)) => {
                self.stats.states += inside;
                self.stats.components += decided as usize + inside_components;
                value
            }
            None => self.recorded_value(model, table, state, 0)?,
        };
        let rounded = value.rounded();
        if !table.set(at, value) {
            return Err(twice(model, state).into());
        }
        Ok(rounded)
    }

    /// The value of `state` from a recorded node (what [`Scratch::solve`] falls back to),
    /// with the values of its transient successors ([`Model::transient`]) computed the same
    /// way inside it, `depth` deep; it counts them and their components in its stats.
    #[cold]
    #[inline(never)]
    fn recorded_value(
        &mut self,
        model: &M,
        table: &mut impl Values<N>,
        state: &M::State,
        depth: u32,
    ) -> Result<N, Fail> {
        let Scratch {
            node,
            edges,
            move_rewards,
            stats,
        } = self;
        let bound = table.bound();
        node.clear();
        model.expand(state, node);
        if let Err(reason) = node.validate() {
            return Err(invalid(model, state, reason).into());
        }
        let kind = match node.kind() {
            NodeKind::Terminal => return Ok(N::from_rat(node.payoff())),
            NodeKind::Decision(p) => Kind::Decision(p),
            NodeKind::Chance => Kind::Chance,
            NodeKind::Unset => unreachable!("validate rejects unset nodes"),
        };
        move_rewards.clear();
        move_rewards.extend(node.random_rewards().filter(|(_, r)| !r.is_zero()));
        edges.clear();
        // Each branch's reward plus its successor's value; the edges point into it.
        let mut values = Vec::with_capacity(node.branches().len());
        let mut group = u32::MAX;
        for b in node.branches() {
            let (prob, reward): (N, N) = edge_numbers(b, move_rewards);
            let value = if model.transient(&b.next) {
                if depth >= MAX_TRANSIENT_DEPTH {
                    return Err(too_deep(model, &b.next).into());
                }
                // A scratch of its own: this one's node is being read.
                let mut inner = Scratch::new(1);
                let value = inner.recorded_value(model, table, &b.next, depth + 1)?;
                stats.states += 1 + inner.stats.states;
                stats.components += inner.stats.components;
                reward.add(&value)
            } else {
                let target = number(model, bound, &b.next)?;
                if !table.ready(target)? {
                    return Err(invalid(
                        model,
                        state,
                        format!(
                            "its successor {} is not solved before it in the model's sweep order \
                             (sweep_state), which must put every successor first (a game with \
                             cycles has no such order){}",
                            model.show_state(&b.next),
                            table.why_missing()
                        ),
                    )
                    .into());
                }
                table.plus_value(&reward, target)
            };
            edges.push(Edge {
                target: values.len() as u32,
                prob,
                reward,
                first: b.group != group,
            });
            values.push(value);
            group = b.group;
        }
        stats.components += 1;
        Ok(back_up_by(kind, edges, |e| values[e.target as usize].clone()).0)
    }
}

/// The error of transient states nested too deep.
#[cold]
fn too_deep<M: Model>(model: &M, state: &M::State) -> SolveError {
    invalid(
        model,
        state,
        format!(
            "transient states (Model::transient) lie more than {MAX_TRANSIENT_DEPTH} deep \
             inside a swept state here, as in a cycle of transient states"
        ),
    )
}

/// The error of a state given twice.
#[cold]
fn twice<M: Model>(model: &M, state: &M::State) -> SolveError {
    invalid(
        model,
        state,
        "the model's sweep order (sweep_state) gives this state, or another with its number \
         (dense_index), twice"
            .to_string(),
    )
}

fn report(watch: &mut Watch<'_>, stats: &Stats, started: Instant) -> Result<(), SolveError> {
    watch.report(&Progress {
        states: stats.states,
        components: stats.components,
        seconds: started.elapsed().as_secs_f64(),
        primes: 0,
    })
}

fn limit_error(states: usize, limit: usize, components: usize) -> SolveError {
    SolveError::StateLimit {
        explored: states,
        limit,
        components,
    }
}

/// The value of the start state once the sweep is done; an error if it was never swept.
fn swept_start<M: Model, N>(model: &M, table: &impl Values<N>) -> Result<N, SolveError> {
    let start = model.start();
    table
        .solved(number(model, table.bound(), &start)?)
        .ok_or_else(|| {
            invalid(
                model,
                &start,
                "the model's sweep order (sweep_state) never gives the start state".to_string(),
            )
        })
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
