//! The engine: explores a model from its start state, interns states to dense ids, finds
//! strongly connected components on the fly and solves each one as soon as it is complete.
//!
//! # Design
//! Exploration is Tarjan's algorithm, made iterative with an explicit stack of frames so that a
//! chain of ten million states needs no recursion. A state is expanded (the model is asked for
//! its node) when it is first reached; its successors are interned at once, so the solver sees
//! only `u32` ids and never the user's state type.
//!
//! When Tarjan closes a component, every state it can reach outside the component is already
//! final, so the component is solved right away: one backup for a state that is not on a cycle,
//! [`crate::component`] for a cyclic component. A terminal state is final the moment it is
//! discovered and never enters the stack.
//!
//! Edges live in an arena that behaves as a stack: the Tarjan stack holds its states in
//! discovery order, a closed component is always a suffix of it, and the edges of those states
//! are the matching suffix of the arena (every state discovered after a component's root is in
//! that component or in one closed earlier). Both are truncated when the component is solved, so
//! memory for edges is proportional to the deepest open path, not to the whole game. What stays
//! for the whole solve is the interned states, one value and one chosen move per state.

use std::any::{Any, TypeId};
use std::time::Instant;

use crate::component::{Component, CycleError, Kind, LocalEdge, EXIT};
use crate::linear::System;
use crate::memory;
use crate::model::{Model, Node, NodeKind};
use crate::multimodular::{self, Graph};
use crate::number::Checked;
use crate::solution::{Solution, Stats};
use crate::states::{InternError, StateSet};
use crate::{Exact, Number, Player, Rat, SolveError};

/// The status of a state is one word: below `ON_STACK` the state is final, and the word is its
/// component's number (or `TERMINAL`); `ON_STACK + p` puts it at position `p` of the Tarjan
/// stack; `UNSEEN` means it is not expanded yet. After the solve the words are the components.
const ON_STACK: u32 = 1 << 31;
const UNSEEN: u32 = u32::MAX;
/// The status of a final state that is terminal (in no component).
const TERMINAL: u32 = ON_STACK - 1;
/// Ids stay below this, so that component numbers and stack positions fit their ranges.
const MAX_STATES: usize = TERMINAL as usize;

/// Whether a status says final.
#[inline(always)]
fn is_final(status: u32) -> bool {
    status < ON_STACK
}
/// The chosen-move entry of a state that is not a decision.
pub(crate) const NO_CHOICE: u32 = u32::MAX;

/// How far a solve has got, passed to the progress callback.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// States interned so far.
    pub states: usize,
    /// Strongly connected components solved so far.
    pub components: usize,
    /// Seconds since the solve started.
    pub seconds: f64,
}

/// Configures and runs a solve. The engine is deterministic: the same model gives the same
/// exploration order, the same values and the same chosen moves on every run.
///
/// ```
/// # use perfectplay::{Model, NodeBuilder, Player, Rat, Solver};
/// # struct Coin;
/// # impl Model for Coin {
/// #     type State = u8;
/// #     type Move = &'static str;
/// #     fn start(&self) -> u8 { 0 }
/// #     fn expand(&self, s: &u8, node: &mut impl NodeBuilder<u8, &'static str>) {
/// #         if *s == 1 { return node.terminal(1) }
/// #         node.chance();
/// #         node.add_outcome("heads", Rat::new(1, 2), 0, 1);
/// #         node.add_outcome("tails", Rat::new(1, 2), 1, 0);
/// #     }
/// # }
/// let mut seen = 0;
/// let mut progress = |p: &perfectplay::Progress| seen = p.states;
/// let solution = Solver::new(&Coin)
///     .max_states(1_000)
///     .on_progress(&mut progress)
///     .solve::<f64>()
///     .unwrap();
/// // One toss scores 1 with probability 1/2 and is repeated until heads: 1 expected tail.
/// assert_eq!(*solution.start_value(), 2.0);
/// ```
pub struct Solver<'a, M: Model> {
    model: &'a M,
    max_states: Option<usize>,
    progress: Option<&'a mut dyn FnMut(&Progress)>,
    /// Threads asked for (see [`Solver::threads`]), and the parallel sweep, made where
    /// `M: Sync` is known.
    threads: Option<(usize, ParallelSweep<M>)>,
}

/// `sweep::par_start_value` for one model type.
type ParallelSweep<M> = fn(
    &M,
    usize,
    Option<&mut dyn FnMut(&Progress)>,
    usize,
) -> Option<Result<(f64, Stats), SolveError>>;

/// The most states whose tables are reserved before they are found (see `Engine::new`).
const RESERVE_AT_MOST: usize = 1 << 24;

/// How many states between progress reports.
const PROGRESS_EVERY: usize = 1 << 16;

impl<'a, M: Model> Solver<'a, M> {
    /// A solver for `model` with no state limit and no progress reports.
    pub fn new(model: &'a M) -> Self {
        Solver {
            model,
            max_states: None,
            progress: None,
            threads: None,
        }
    }

    /// Stops with [`SolveError::StateLimit`] once more than `limit` states are found.
    pub fn max_states(mut self, limit: usize) -> Self {
        self.max_states = Some(limit);
        self
    }

    /// Calls `f` every 65,536 new states with the counts so far.
    pub fn on_progress(mut self, f: &'a mut dyn FnMut(&Progress)) -> Self {
        self.progress = Some(f);
        self
    }

    /// Explores and solves, computing in `N` (`f64` or [`Exact`](crate::Exact)).
    pub fn solve<N: Number>(self) -> Result<Solution<M::State, N>, SolveError> {
        Ok(Engine::<M, N>::new(self).run()?.0)
    }

    /// The value of the start state alone, and how it was obtained.
    ///
    /// When the model offers a sweep order ([`Model::sweep_len`]) and a numbering, this
    /// solves its states in that order without exploring (see [`Stats::swept`]), with the same
    /// values as [`solve`](Solver::solve); otherwise it solves and keeps only the start value.
    /// For the exact value, [`exact_start_value`](Solver::exact_start_value) is usually faster.
    ///
    /// ```
    /// # use perfectplay::{Model, NodeBuilder, Player, Solver};
    /// /// Counting down from 10 by 1 or 2; the value is the least number of steps.
    /// struct Countdown;
    /// impl Model for Countdown {
    ///     type State = u32;
    ///     type Move = u32;
    ///     fn start(&self) -> u32 { 10 }
    ///     fn expand(&self, &n: &u32, node: &mut impl NodeBuilder<u32, u32>) {
    ///         if n == 0 { return node.terminal(0) }
    ///         node.decision(Player::Min);
    ///         node.add_move(1, 1, n - 1);
    ///         if n >= 2 { node.add_move(2, 1, n - 2) }
    ///     }
    ///     fn dense_bound(&self) -> usize { 11 }
    ///     fn dense_index(&self, &n: &u32) -> Option<usize> { Some(n as usize) }
    ///     // Every successor is a smaller number: sweep upwards.
    ///     fn sweep_len(&self) -> usize { 11 }
    ///     fn sweep_state(&self, rank: usize) -> Option<u32> { Some(rank as u32) }
    /// }
    /// let (value, stats) = Solver::new(&Countdown).start_value::<f64>().unwrap();
    /// assert_eq!(value, 5.0);
    /// assert!(stats.swept);
    /// ```
    pub fn start_value<N: Number>(self) -> Result<(N, Stats), SolveError> {
        let Solver {
            model,
            max_states,
            mut progress,
            threads,
        } = self;
        let limit = max_states.unwrap_or(usize::MAX);
        let reborrowed = progress
            .as_mut()
            .map(|f| &mut **f as &mut dyn FnMut(&Progress));
        let swept = match threads {
            // The parallel sweep is for floats: `N` is `f64` here, which `Any` confirms.
            Some((threads, sweep)) if threads > 1 && TypeId::of::<N>() == TypeId::of::<f64>() => {
                sweep(model, limit, reborrowed, threads).map(|result| {
                    result.map(|(v, stats)| {
                        let v: Box<dyn Any> = Box::new(v);
                        (*v.downcast::<N>().expect("N is f64"), stats)
                    })
                })
            }
            _ => crate::sweep::start_value(model, limit, reborrowed, || false),
        };
        if let Some(result) = swept {
            return result;
        }
        Solver {
            model,
            max_states,
            progress,
            threads,
        }
        .explored_start_value()
    }

    /// Explores and solves, and keeps only the start value and the stats.
    fn explored_start_value<N: Number>(self) -> Result<(N, Stats), SolveError> {
        let solution = self.solve::<N>()?;
        Ok((solution.start_value().clone(), solution.stats().clone()))
    }

    /// The exact value of the start state, computed the fastest sound way this crate knows.
    ///
    /// A model that offers a sweep order ([`Model::sweep_len`]) is first swept in floats that
    /// check every operation for rounding: when every number stays a dyadic rational of 53 bits
    /// (integer scores with plain moves, say), nothing rounds and that float value is the exact
    /// one (then [`Stats::swept`] is set and [`Stats::primes`] is 0). At the first rounding the
    /// sweep gives up and the methods below take over.
    ///
    /// Otherwise, for an acyclic game whose state space fits in memory twice over, this is multi-modular
    /// evaluation (see [`Stats::primes`]): the game is explored and solved in `f64` with
    /// rigorous error bounds, the resulting strategy is evaluated modulo random 31-bit primes
    /// on every core, and the fraction is recovered from the residues. Moves whose float values
    /// are too close to tell apart are compared exactly (modulo every prime). The answer is
    /// exact; it could be wrong only if a wrong fraction agreed with a whole batch of 16 fresh
    /// random primes, a chance below `10^-55`. When the method does not apply (cycles,
    /// near moves that differ), this solves in [`Exact`](crate::Exact) rationals instead, which
    /// gives the same value more slowly. Either way the stats describe the whole computation.
    ///
    /// ```
    /// # use perfectplay::{Model, NodeBuilder, Player, Rat, Solver};
    /// struct Coin;
    /// impl Model for Coin {
    ///     type State = u32;
    ///     type Move = &'static str;
    ///     fn start(&self) -> u32 { 0 }
    ///     fn expand(&self, s: &u32, node: &mut impl NodeBuilder<u32, &'static str>) {
    ///         match *s {
    ///             0 => {
    ///                 node.decision(Player::Max);
    ///                 node.add_move("toss", 0, 1);
    ///                 node.add_move("stop", Rat::new(1, 3), 9);
    ///             }
    ///             1 => {
    ///                 node.chance();
    ///                 node.add_outcome("heads", Rat::new(1, 2), 1, 9);
    ///                 node.add_outcome("tails", Rat::new(1, 2), 0, 9);
    ///             }
    ///             _ => node.terminal(0),
    ///         }
    ///     }
    /// }
    /// let (value, stats) = Solver::new(&Coin).exact_start_value().unwrap();
    /// assert_eq!(value.to_string(), "1/2");
    /// assert!(stats.primes > 0);
    /// ```
    pub fn exact_start_value(self) -> Result<(Exact, Stats), SolveError> {
        let started = Instant::now();
        let Solver {
            model,
            max_states,
            mut progress,
            threads,
        } = self;
        // A game that can be swept and whose numbers all stay dyadic rationals of 53 bits (an
        // integer score with plain moves or coin flips, say) is solved exactly by floats that
        // check every operation for rounding; the sweep gives up at the first rounding.
        Checked::start();
        let reborrowed = progress
            .as_mut()
            .map(|f| &mut **f as &mut dyn FnMut(&Progress));
        let limit = max_states.unwrap_or(usize::MAX);
        match crate::sweep::start_value::<M, Checked>(model, limit, reborrowed, Checked::rounded) {
            Some(Ok((value, mut stats))) if !Checked::rounded() => {
                stats.seconds = started.elapsed().as_secs_f64();
                return Ok((value.to_exact(), stats));
            }
            Some(Err(e)) => return Err(e),
            _ => {}
        }
        let mut engine = Engine::<M, f64>::new(Solver {
            model,
            max_states,
            progress: match &mut progress {
                Some(f) => Some(&mut **f as &mut dyn FnMut(&Progress)),
                None => None,
            },
            threads,
        });
        engine.graph = Some(Graph::new());
        let (float, graph) = engine.run()?;
        let root = 0;
        let mut stats = float.stats().clone();
        drop(float);
        let cores = threads.map(|(n, _)| n);
        match multimodular::evaluate(graph.expect("recorded"), root, cores) {
            Ok(done) => {
                stats.primes = done.primes;
                stats.seconds = started.elapsed().as_secs_f64();
                Ok((Exact(done.value), stats))
            }
            // The reason is only that the method does not apply; rationals give the value.
            Err(_) => {
                let (value, mut stats) = Solver {
                    model,
                    max_states,
                    progress,
                    threads,
                }
                .explored_start_value::<Exact>()?;
                stats.seconds = started.elapsed().as_secs_f64();
                Ok((value, stats))
            }
        }
    }
}

impl<M: Model + Sync> Solver<'_, M> {
    /// How many threads to use: for the sweep of [`start_value`](Solver::start_value) in
    /// `f64` (one by default) and for the multi-modular evaluation of
    /// [`exact_start_value`](Solver::exact_start_value) (by default every core, up to 8).
    /// Exploring solves are single-threaded.
    ///
    /// The sweep needs a model that offers a sweep order. Each thread takes the next run of
    /// ranks of the order in turn and waits when a successor is still being solved by a
    /// thread with an earlier run, so this pays off when successors lie well before a state in
    /// the order (layers of a game, say), not when each state needs the one just before it: if
    /// the threads wait for each other in more than a quarter of their runs, one goes on
    /// alone. The values are those of one thread, bit for bit, and a model error is the one
    /// a single thread would report first, with one exception: an order that puts a successor
    /// after its state may get through when another thread has already solved that successor
    /// (the value is still right, since each value is computed from final values only). A
    /// model's panic on any thread stops the others and reaches the caller.
    ///
    /// ```
    /// # use perfectplay::{Model, NodeBuilder, Player, Solver};
    /// /// Counting down from 100,000 by 1 or 2; the value is the least number of steps.
    /// struct Countdown;
    /// impl Model for Countdown {
    ///     type State = u32;
    ///     type Move = u32;
    ///     fn start(&self) -> u32 { 100_000 }
    ///     fn expand(&self, &n: &u32, node: &mut impl NodeBuilder<u32, u32>) {
    ///         if n == 0 { return node.terminal(0) }
    ///         node.decision(Player::Min);
    ///         node.add_move(1, 1, n - 1);
    ///         if n >= 2 { node.add_move(2, 1, n - 2) }
    ///     }
    ///     fn dense_bound(&self) -> usize { 100_001 }
    ///     fn dense_index(&self, &n: &u32) -> Option<usize> { Some(n as usize) }
    ///     fn sweep_len(&self) -> usize { 100_001 }
    ///     fn sweep_state(&self, rank: usize) -> Option<u32> { Some(rank as u32) }
    /// }
    /// let (value, stats) = Solver::new(&Countdown).threads(2).start_value::<f64>().unwrap();
    /// assert_eq!(value, 50_000.0);
    /// // Each state needs the one just before it: the second thread soon stops (unless it
    /// // never got to run), and `stats.threads` then says 1.
    /// assert!(stats.swept && stats.threads <= 2);
    /// ```
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some((
            threads.max(1),
            crate::sweep::par_start_value::<M> as ParallelSweep<M>,
        ));
        self
    }
}

#[derive(Clone, Copy)]
struct Entry {
    id: u32,
    low: u32,
    kind: Kind,
    /// Index of the first edge of this state in the arena.
    edges: u32,
}

/// A branch as the solvers see it.
#[derive(Clone)]
pub(crate) struct Edge<N> {
    /// The successor's id (its number in a sweep).
    pub target: u32,
    pub prob: N,
    /// The branch's reward plus, for an outcome of a random move, the move's own reward.
    pub reward: N,
    /// Whether this edge starts a move of a decision (every edge of a plain move; the first
    /// outcome of a random move). Unused at chance nodes.
    pub first: bool,
}

/// The probability and reward of a branch's edge: the reward of a random move (from
/// `move_rewards`, its nonzero `(move index, reward)` pairs) goes onto each of its outcomes.
#[inline(always)]
pub(crate) fn edge_numbers<N: Number, S, L>(
    b: &crate::Branch<S, L>,
    move_rewards: &[(u32, Rat)],
) -> (N, N) {
    let mut reward = N::from_rat(b.reward);
    if let Some(&(_, r)) = move_rewards.iter().find(|(g, _)| *g == b.group) {
        reward = reward.add(&N::from_rat(r));
    }
    (N::from_rat(b.probability), reward)
}

/// One Bellman backup of a state that is not on a cycle, from its edges and the final values
/// of their targets: its value, and at a decision the index of the best move (the first of
/// equals), else `NO_CHOICE`.
#[inline]
pub(crate) fn back_up<N: Number>(kind: Kind, edges: &[Edge<N>], values: &[N]) -> (N, u32) {
    back_up_by(kind, edges, |e| e.reward.add(&values[e.target as usize]))
}

/// [`back_up`] with the value of an edge (its reward plus its target's value) given by `q`,
/// for tables that are not a slice (the parallel sweep's shared one).
#[inline(always)]
pub(crate) fn back_up_by<N: Number>(
    kind: Kind,
    edges: &[Edge<N>],
    q: impl Fn(&Edge<N>) -> N,
) -> (N, u32) {
    match kind {
        Kind::Chance => {
            let mut v = N::zero();
            for e in edges {
                v.add_mul(&e.prob, &q(e));
            }
            (v, NO_CHOICE)
        }
        Kind::Decision(player) => {
            let mut best: Option<N> = None;
            let (mut choice, mut index) = (0, 0);
            let mut i = 0;
            while i < edges.len() {
                // A plain move is one edge of probability one: its value is `r + v`. A
                // random move's outcomes run up to the next edge that starts a move.
                let mut v = q(&edges[i]);
                let mut j = i + 1;
                if j < edges.len() && !edges[j].first {
                    let mut sum = N::zero();
                    sum.add_mul(&edges[i].prob, &v);
                    while j < edges.len() && !edges[j].first {
                        sum.add_mul(&edges[j].prob, &q(&edges[j]));
                        j += 1;
                    }
                    v = sum;
                }
                if best.as_ref().is_none_or(|b| player.prefers(&v, b)) {
                    best = Some(v);
                    choice = index;
                }
                i = j;
                index += 1;
            }
            (best.expect("a decision has a move"), choice)
        }
    }
}

/// What `Engine::discover` fills for each state: the model's node, and the rewards of its
/// random moves.
struct Scratch<M: Model> {
    node: Node<M::State, M::Move>,
    move_rewards: Vec<(u32, Rat)>,
}

struct Frame {
    pos: u32,
    next: u32,
}

struct Engine<'a, M: Model, N> {
    model: &'a M,
    max_states: usize,
    progress: Option<&'a mut dyn FnMut(&Progress)>,
    next_report: usize,
    started: Instant,
    states: StateSet<M::State>,
    /// Per state: final (with its component), on the stack or unseen; see `ON_STACK`.
    status: Vec<u32>,
    values: Vec<N>,
    choices: Vec<u32>,
    tstack: Vec<Entry>,
    arena: Vec<Edge<N>>,
    frames: Vec<Frame>,
    /// Scratch for the linear solves of cyclic components.
    system: System<N>,
    stats: Stats,
    /// The whole game with exact numbers, kept for multi-modular evaluation when asked for.
    graph: Option<Graph>,
}

impl<'a, M: Model, N: Number> Engine<'a, M, N> {
    fn new(s: Solver<'a, M>) -> Self {
        let max_states = s.max_states.unwrap_or(usize::MAX);
        // A numbered model bounds the state count: reserving that much address space up front
        // spares the copies of growing (pages that are never written are never backed). Only
        // up to a point: a sparse numbering must not reserve more than the machine can map.
        let capacity = s
            .model
            .dense_bound()
            .min(max_states.saturating_add(1))
            .min(RESERVE_AT_MOST);
        Engine {
            model: s.model,
            max_states,
            progress: s.progress,
            next_report: PROGRESS_EVERY,
            started: Instant::now(),
            states: StateSet::for_model(s.model, capacity),
            status: Vec::with_capacity(capacity),
            values: Vec::with_capacity(capacity),
            choices: Vec::with_capacity(capacity),
            tstack: Vec::new(),
            arena: Vec::new(),
            frames: Vec::new(),
            system: System::new(0),
            stats: Stats::default(),
            graph: None,
        }
    }

    fn show(&self, id: u32) -> String {
        self.model.show_state(self.states.get(id as usize))
    }

    /// Interns a state, returning its id.
    #[inline(always)]
    fn intern(&mut self, s: &M::State) -> Result<u32, SolveError> {
        match self.states.insert(self.model, s) {
            Ok((id, false)) => Ok(id as u32),
            Ok((id, true)) => self.admit(id),
            Err(e) => Err(self.intern_error(e, s)),
        }
    }

    /// Gives a newly interned state its entries.
    #[inline(always)]
    fn admit(&mut self, id: usize) -> Result<u32, SolveError> {
        if id >= MAX_STATES || id >= self.max_states {
            return Err(self.too_many(id));
        }
        self.status.push(UNSEEN);
        self.values.push(N::zero());
        self.choices.push(NO_CHOICE);
        if let Some(g) = &mut self.graph {
            g.state();
        }
        if id + 1 >= self.next_report {
            self.next_report += PROGRESS_EVERY;
            self.report();
            self.check_memory()?;
        }
        Ok(id as u32)
    }

    /// Stops before the machine runs out of memory (see [`crate::memory`]).
    #[cold]
    #[inline(never)]
    fn check_memory(&self) -> Result<(), SolveError> {
        match memory::reading() {
            Some((resident, available)) if !memory::room(resident, available) => {
                Err(memory::too_large(self.states.len(), resident, available))
            }
            _ => Ok(()),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_many(&self, id: usize) -> SolveError {
        if id >= MAX_STATES {
            SolveError::TooManyStates(MAX_STATES)
        } else {
            SolveError::StateLimit {
                explored: id + 1,
                limit: self.max_states,
                components: self.stats.components,
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn intern_error(&self, e: InternError, s: &M::State) -> SolveError {
        let reason = match e {
            InternError::OutOfRange(i) => format!(
                "dense_index gave {i:?}, not a number below dense_bound ({})",
                self.model.dense_bound()
            ),
            InternError::Collision(j) => format!(
                "dense_index gives it the same number as state {}",
                self.show(j)
            ),
        };
        SolveError::InvalidModel {
            state: self.model.show_state(s),
            reason,
        }
    }

    fn report(&mut self) {
        if let Some(f) = self.progress.as_mut() {
            f(&Progress {
                states: self.states.len(),
                components: self.stats.components,
                seconds: self.started.elapsed().as_secs_f64(),
            });
        }
    }

    /// Expands a state: a terminal becomes final at once, anything else is pushed on the
    /// Tarjan stack with its edges and gets a DFS frame.
    fn discover(&mut self, scratch: &mut Scratch<M>, id: u32) -> Result<(), SolveError> {
        let Scratch { node, move_rewards } = scratch;
        node.clear();
        self.model.expand(self.states.get(id as usize), node);
        if let Err(reason) = node.validate() {
            return Err(SolveError::InvalidModel {
                state: self.show(id),
                reason,
            });
        }
        let kind = match node.kind() {
            NodeKind::Terminal => {
                if let Some(g) = &mut self.graph {
                    g.terminal(id, node.payoff());
                }
                self.values[id as usize] = N::from_rat(node.payoff());
                self.status[id as usize] = TERMINAL;
                return Ok(());
            }
            NodeKind::Decision(p) => Kind::Decision(p),
            NodeKind::Chance => Kind::Chance,
            NodeKind::Unset => unreachable!("validate rejects unset nodes"),
        };
        let start = self.arena.len() as u32;
        // The rewards of random moves go onto each of their outcomes (probabilities sum to one).
        move_rewards.clear();
        move_rewards.extend(node.random_rewards().filter(|(_, r)| !r.is_zero()));
        let mut group = u32::MAX;
        // Whether every successor is final already (then so is this state, at once).
        let mut settled = true;
        // A recording computes no values here (the certifier has its own), so its edges need
        // no numbers.
        let numbers = self.graph.is_none();
        for b in node.branches() {
            let target = self.intern(&b.next)?;
            settled &= is_final(self.status[target as usize]);
            let (prob, reward) = if numbers {
                edge_numbers(b, move_rewards)
            } else {
                (N::zero(), N::zero())
            };
            self.arena.push(Edge {
                target,
                prob,
                reward,
                first: b.group != group,
            });
            group = b.group;
        }
        if let Some(g) = &mut self.graph {
            let edges = &self.arena[start as usize..];
            for (b, e) in node.branches().iter().zip(edges) {
                let extra = move_rewards.iter().find(|(g, _)| *g == b.group);
                let extra = extra.map_or(Rat::ZERO, |&(_, r)| r);
                g.edge(e.target, b.probability, b.reward, extra, e.first);
            }
        }
        let entry = Entry {
            id,
            low: 0,
            kind,
            edges: start,
        };
        if settled {
            // Nothing to explore below and no cycle through it (a self-loop's target is this
            // state, not final yet): a component of its own, solved without entering the stack.
            self.settle(entry);
            return Ok(());
        }
        let pos = self.tstack.len() as u32;
        self.status[id as usize] = ON_STACK + pos;
        self.tstack.push(Entry { low: pos, ..entry });
        self.frames.push(Frame { pos, next: start });
        Ok(())
    }

    fn edge_end(&self, pos: usize) -> usize {
        match self.tstack.get(pos + 1) {
            Some(e) => e.edges as usize,
            None => self.arena.len(),
        }
    }

    /// Explores and solves; the recorded game comes back too when recording was asked for.
    #[allow(clippy::type_complexity)]
    fn run(mut self) -> Result<(Solution<M::State, N>, Option<Graph>), SolveError> {
        let start = self.model.start();
        let root = self.intern(&start)?;
        // One node for every expansion: filling it allocates nothing once it has grown.
        let mut scratch = Scratch {
            node: Node::new(),
            move_rewards: Vec::new(),
        };
        self.discover(&mut scratch, root)?;
        while let Some(top) = self.frames.last() {
            if self.graph.as_ref().is_some_and(Graph::unusable) {
                // The recording is for nothing; the caller solves in rationals instead.
                break;
            }
            let pos = top.pos as usize;
            let next = top.next as usize;
            if next < self.edge_end(pos) {
                self.frames.last_mut().expect("non-empty").next += 1;
                let w = self.arena[next].target;
                match self.status[w as usize] {
                    UNSEEN => self.discover(&mut scratch, w)?,
                    s if is_final(s) => {}
                    s => self.tstack[pos].low = self.tstack[pos].low.min(s - ON_STACK),
                }
            } else {
                self.frames.pop();
                let low = self.tstack[pos].low;
                if low as usize == pos {
                    self.close(pos)?;
                }
                if let Some(parent) = self.frames.last() {
                    let pp = parent.pos as usize;
                    self.tstack[pp].low = self.tstack[pp].low.min(low);
                }
            }
        }
        self.stats.states = self.states.len();
        self.stats.seconds = self.started.elapsed().as_secs_f64();
        self.report();
        // The statuses become the components: terminal states (and, if exploration stopped
        // early, states never finished) are in none.
        let mut component = self.status;
        for c in &mut component {
            if *c >= TERMINAL {
                *c = NO_CHOICE;
            }
        }
        let solution = Solution::new(
            self.states,
            self.values,
            self.choices,
            component,
            self.stats,
        );
        Ok((solution, self.graph))
    }

    /// Solves the component whose root is at Tarjan position `root` and pops it.
    fn close(&mut self, root: usize) -> Result<(), SolveError> {
        let size = self.tstack.len() - root;
        let first_edge = self.tstack[root].edges as usize;
        let entry = self.tstack[root];
        let self_loop = self.arena[first_edge..]
            .iter()
            .any(|e| e.target == entry.id);
        if size == 1 && !self_loop {
            self.settle(entry);
            self.tstack.truncate(root);
            return Ok(());
        }
        self.stats.components += 1;
        self.stats.cyclic_components += 1;
        self.stats.largest_component = self.stats.largest_component.max(size);
        match &mut self.graph {
            // Recording for multi-modular evaluation, which computes its own float values:
            // nothing to solve here.
            Some(g) => g.cycle(),
            None => self.solve_cyclic(root)?,
        }
        let number = self.stats.components as u32 - 1;
        for e in &self.tstack[root..] {
            self.status[e.id as usize] = number;
        }
        self.tstack.truncate(root);
        self.arena.truncate(first_edge);
        Ok(())
    }

    /// Solves a state that is a component of its own, not on a cycle, whose edges are the
    /// last ones in the arena, and drops those edges.
    fn settle(&mut self, entry: Entry) {
        let first_edge = entry.edges as usize;
        self.stats.components += 1;
        match &mut self.graph {
            Some(g) => g.finished(entry.id, entry.kind, first_edge),
            None => self.backup(entry, first_edge),
        }
        self.status[entry.id as usize] = self.stats.components as u32 - 1;
        self.arena.truncate(first_edge);
    }

    /// One Bellman backup for a state that is not on a cycle.
    fn backup(&mut self, entry: Entry, first_edge: usize) {
        let (value, choice) = back_up(entry.kind, &self.arena[first_edge..], &self.values);
        self.values[entry.id as usize] = value;
        self.choices[entry.id as usize] = choice;
    }

    /// Builds the local view of a cyclic component, solves it and stores the results.
    fn solve_cyclic(&mut self, root: usize) -> Result<(), SolveError> {
        let members = &self.tstack[root..];
        let n = members.len();
        // Each random move of a decision becomes a chance node of its own, numbered right
        // after its decision (so that sweeps meet a move next to its decision): member `i` is
        // local node `first[i]`, its random moves the next ones.
        let edges_of = |i: usize| &self.arena[members[i].edges as usize..self.edge_end(root + i)];
        let plain = |e: &[Edge<N>]| e.len() == 1 && e[0].prob == N::one();
        let mut first = Vec::with_capacity(n);
        let mut count = 0;
        for (i, m) in members.iter().enumerate() {
            first.push(count as u32);
            count += 1;
            if m.kind != Kind::Chance {
                let edges = edges_of(i);
                count += move_ranges(edges)
                    .filter(|r| !plain(&edges[r.clone()]))
                    .count();
            }
        }
        let local = |e: &Edge<N>| {
            let status = self.status[e.target as usize];
            if is_final(status) {
                LocalEdge {
                    to: EXIT,
                    prob: e.prob.clone(),
                    konst: e.reward.add(&self.values[e.target as usize]),
                }
            } else {
                LocalEdge {
                    to: first[(status - ON_STACK) as usize - root],
                    prob: e.prob.clone(),
                    konst: e.reward.clone(),
                }
            }
        };
        let mut comp = Component {
            kind: Vec::with_capacity(count),
            start: Vec::with_capacity(count + 1),
            edges: Vec::new(),
        };
        // Errors name a state: a random move's node is named by its decision.
        let mut owner = Vec::with_capacity(count);
        let mut random = Vec::new();
        for (i, m) in members.iter().enumerate() {
            comp.kind.push(m.kind);
            comp.start.push(comp.edges.len());
            owner.push(i);
            let edges = edges_of(i);
            if m.kind == Kind::Chance {
                comp.edges.extend(edges.iter().map(local));
                continue;
            }
            random.clear();
            for r in move_ranges(edges) {
                if plain(&edges[r.clone()]) {
                    comp.edges.push(local(&edges[r.start]));
                } else {
                    comp.edges.push(LocalEdge {
                        to: first[i] + 1 + random.len() as u32,
                        prob: N::one(),
                        konst: N::zero(),
                    });
                    random.push(r);
                }
            }
            for r in random.drain(..) {
                comp.kind.push(Kind::Chance);
                comp.start.push(comp.edges.len());
                owner.push(i);
                comp.edges.extend(edges[r].iter().map(local));
            }
        }
        comp.start.push(comp.edges.len());
        let (values, choices) = comp.solve(&mut self.system).map_err(|err| {
            let name = |x: usize| self.show(self.tstack[root + owner[x]].id);
            let who = |p: Player| match p {
                Player::Max => "Max".to_string(),
                Player::Min => "Min".to_string(),
            };
            match err {
                CycleError::NoTermination(x) => SolveError::NoTermination {
                    state: name(x),
                    controller: comp
                        .kind
                        .iter()
                        .find_map(|k| match k {
                            Kind::Decision(p) => Some(who(*p)),
                            Kind::Chance => None,
                        })
                        .unwrap_or_else(|| "chance".to_string()),
                },
                CycleError::Divergent(x, p) => SolveError::Divergent {
                    state: name(x),
                    player: who(p),
                },
                CycleError::NonStopping(x) => SolveError::NonStopping { state: name(x) },
                CycleError::NoConvergence(x) => SolveError::NoConvergence { state: name(x) },
            }
        })?;
        // Member `i` is local node `first[i]`; the others are the random moves' chance nodes.
        for (i, &x) in first.iter().enumerate() {
            let id = self.tstack[root + i].id as usize;
            self.values[id] = values[x as usize].clone();
            self.choices[id] = choices[x as usize];
        }
        Ok(())
    }
}

/// The moves of a decision's edges, as ranges: a move starts at an edge marked `first` and
/// runs to the next one.
fn move_ranges<N>(edges: &[Edge<N>]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= edges.len() {
            return None;
        }
        let len = 1 + edges[at + 1..].iter().take_while(|e| !e.first).count();
        at += len;
        Some(at - len..at)
    })
}
