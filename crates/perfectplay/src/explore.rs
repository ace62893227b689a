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

use std::time::Instant;

use crate::backup::{back_up, edge_numbers, move_ranges, Edge, Kind, NO_CHOICE};
use crate::component::{Component, LocalEdge, EXIT};
use crate::linear::System;
use crate::memory;
use crate::model::{Branch, Model, Node, NodeKind};
use crate::report::{Progress, Stats, Watch};
use crate::states::{InternError, StateSet};
use crate::{Number, Rat, SolveError};

/// Watches an exploration: what a method that computes its own values from the explored game
/// (multi-modular evaluation) records as the engine goes. The engine calls it at every event;
/// the plain solve's observer, `()`, does nothing, and its calls compile to nothing.
pub(crate) trait Observer {
    /// Whether the engine computes values. An observer that computes its own says no, and the
    /// engine then only explores: it neither backs up states nor solves cyclic components.
    const SOLVES: bool = true;
    /// A new state was interned.
    #[inline(always)]
    fn state(&mut self) {}
    /// State `id` is terminal with this payoff.
    #[inline(always)]
    fn terminal(&mut self, _id: u32, _payoff: Rat) {}
    /// The edges of the state just expanded (`targets`, pushed by the engine, parallel to the
    /// node's `branches`); `move_rewards` are its random moves' nonzero rewards.
    #[inline(always)]
    fn edges<S, L, N>(
        &mut self,
        _branches: &[Branch<S, L>],
        _targets: &[Edge<N>],
        _move_rewards: &[(u32, Rat)],
    ) {
    }
    /// State `id`, on no cycle, is final: its edges start at `first_edge` in the engine's arena.
    #[inline(always)]
    fn finished(&mut self, _id: u32, _kind: Kind, _first_edge: usize) {}
    /// A cyclic component closed: its members in the order found, each with its first edge in
    /// the engine's arena (a member's edges run to the next member's first, the last's to
    /// `end`). An observer that solves nothing values the component here.
    #[inline(always)]
    fn cycle(&mut self, _members: &[Entry], _end: usize) {}
    /// Whether the observer has seen enough: exploration then stops early.
    #[inline(always)]
    fn stop(&self) -> bool {
        false
    }
}

/// The plain solve: nothing to watch.
impl Observer for () {}

/// The status of a state is one word: below `ON_STACK` the state is final, and the word is its
/// component's number (or `TERMINAL`); `ON_STACK + p` puts it at position `p` of the Tarjan
/// stack; `UNSEEN` means it is not expanded yet. After the solve the words are the components.
const ON_STACK: u32 = 1 << 31;
const UNSEEN: u32 = u32::MAX;
/// The status of a final state that is terminal (in no component).
const TERMINAL: u32 = ON_STACK - 1;
/// Ids stay below this, so that component numbers and stack positions fit their ranges.
const MAX_STATES: usize = TERMINAL as usize;

/// The most states whose tables are reserved before they are found (see `Engine::new`).
const RESERVE_AT_MOST: usize = 1 << 24;

/// How many states between progress reports.
const PROGRESS_EVERY: usize = 1 << 16;

/// The longest time between two progress reports of an exact solve while it solves cycles.
const REPORT_PERIOD: std::time::Duration = std::time::Duration::from_millis(200);

/// The number of a component's edge: a word, as the arena's edges are numbered.
fn edge_number(i: usize) -> u32 {
    u32::try_from(i).expect("fewer edges than the arena can number")
}

/// Whether a status says final.
#[inline(always)]
fn is_final(status: u32) -> bool {
    status < ON_STACK
}

#[derive(Clone, Copy)]
pub(crate) struct Entry {
    /// The state's id.
    pub(crate) id: u32,
    low: u32,
    /// Decision or chance.
    pub(crate) kind: Kind,
    /// Index of the first edge of this state in the arena.
    pub(crate) edges: u32,
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

/// The states where an exploration stops (see [`Engine::within`]): for a state, `Some` of its
/// value where the exploration must not go past it, `None` where it goes on.
pub(crate) type Boundary<'a, S, N> = dyn Fn(&S) -> Result<Option<N>, SolveError> + Sync + 'a;

pub(crate) struct Engine<'a, M: Model, N, O> {
    model: &'a M,
    /// Where the exploration starts: the model's start unless [`Engine::within`] says.
    root: Option<M::State>,
    /// The states it does not expand, with their values (see [`Engine::within`]).
    boundary: Option<&'a Boundary<'a, M::State, N>>,
    max_states: usize,
    watch: Watch<'a>,
    next_report: usize,
    /// When progress was last reported.
    last_report: Instant,
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
    /// What near ties in components solved directly in floats may hide, summed: beyond the
    /// values' radii (see `Component::tie_bound`).
    ties: f64,
    /// Per state, what near ties may hide of its own value beyond its radius: its successors'
    /// as a backup passes them on (see `backed_slack`), and for the members of a cyclic
    /// component the largest of its exits' plus the component's own tie bound. Empty until a
    /// tie bound is first met, zero for the states beyond its end.
    slack: Vec<f64>,
    observer: O,
}

/// What an exploration leaves: per state its value, chosen move and component (numbered in
/// the order solved; `NO_CHOICE` for a terminal state), the states, and the counts.
pub(crate) struct Explored<S, N> {
    pub states: StateSet<S>,
    pub values: Vec<N>,
    pub choices: Vec<u32>,
    pub component: Vec<u32>,
    pub stats: Stats,
    /// A bound on the start value's own error, where it is tighter than the one of every
    /// value in `stats`: its radius plus what near ties may hide of it. `None` where no
    /// component had near ties (the radius alone then bounds it).
    pub start_bound: Option<f64>,
}

impl<'a, M: Model, N: Number, O: Observer> Engine<'a, M, N, O> {
    /// An engine for `model` that stops beyond `max_states` states and reports to `watch`.
    pub(crate) fn new(model: &'a M, max_states: usize, watch: Watch<'a>, observer: O) -> Self {
        // A numbered model bounds the state count: reserving that much address space up front
        // spares the copies of growing (pages that are never written are never backed). Only
        // up to a point: a sparse numbering must not reserve more than the machine can map.
        let mut capacity = model
            .dense_bound()
            .min(max_states.saturating_add(1))
            .min(RESERVE_AT_MOST);
        // Nor more than the memory left (an address-space limit counts reserved pages too):
        // the tables then grow as they fill, under the check of `memory::check`.
        let per_state = (3 * std::mem::size_of::<u32>()
            + std::mem::size_of::<N>()
            + std::mem::size_of::<M::State>()) as u64;
        while capacity > 0 && !memory::affords(capacity as u64 * per_state) {
            capacity /= 2;
        }
        let states = StateSet::for_model(model, capacity);
        Engine::with_states(model, max_states, watch, observer, states, capacity)
    }

    /// An engine over the interning table `states`, with room for `capacity` states.
    fn with_states(
        model: &'a M,
        max_states: usize,
        watch: Watch<'a>,
        observer: O,
        states: StateSet<M::State>,
        capacity: usize,
    ) -> Self {
        Engine {
            model,
            root: None,
            boundary: None,
            max_states,
            watch,
            next_report: PROGRESS_EVERY,
            last_report: Instant::now(),
            started: Instant::now(),
            states,
            status: Vec::with_capacity(capacity),
            values: Vec::with_capacity(capacity),
            choices: Vec::with_capacity(capacity),
            tstack: Vec::new(),
            arena: Vec::new(),
            frames: Vec::new(),
            system: System::new(0),
            stats: Stats::default(),
            ties: 0.0,
            slack: Vec::new(),
            observer,
        }
    }

    /// This engine with the exact steps around large components' solves on `threads`
    /// threads ([`System::threads`]).
    pub(crate) fn with_threads(mut self, threads: usize) -> Self {
        self.system.threads = threads;
        self
    }

    /// An engine that explores from `root` instead of the start, with the model's numbering
    /// of a turn's states where it explores `one_turn` and hashed states otherwise (not the
    /// model's numbering of the whole game, which is sized for all of it), and that stops at every state
    /// other than `root` to which `boundary` gives a value: such a state is final with that
    /// value, as a terminal state is, and never expanded. A turn of a model with turn-local
    /// states ([`Model::turn_of`]) is solved so, its boundary being the kept states it leads to.
    pub(crate) fn within(
        model: &'a M,
        max_states: usize,
        watch: Watch<'a>,
        observer: O,
        root: M::State,
        boundary: &'a Boundary<'a, M::State, N>,
        one_turn: bool,
    ) -> Self {
        // The model's turn numbering tells apart the states of one turn, not of several.
        let states = if one_turn {
            StateSet::for_turn(model)
        } else {
            StateSet::hashed()
        };
        let mut engine = Engine::with_states(model, max_states, watch, observer, states, 0);
        engine.root = Some(root);
        engine.boundary = Some(boundary);
        engine
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
        if O::SOLVES {
            self.values.push(N::zero());
            self.choices.push(NO_CHOICE);
        }
        self.observer.state();
        if id + 1 >= self.next_report {
            self.next_report += PROGRESS_EVERY;
            self.report()?;
            memory::check(self.states.len())?;
        }
        Ok(id as u32)
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
            InternError::Collision(j) if matches!(self.states, StateSet::Turn(_)) => {
                format!(
                    "turn_index gives it the same number as state {} of the same turn",
                    self.show(j)
                )
            }
            InternError::Collision(j) => format!(
                "dense_index gives it the same number as state {}",
                self.show(j)
            ),
            InternError::OutOfTurnRange(i) => format!(
                "turn_index gave {i}, not a number below turn_bound ({})",
                self.model.turn_bound()
            ),
        };
        SolveError::InvalidModel {
            state: self.model.show_state(s),
            reason,
        }
    }

    fn report(&mut self) -> Result<(), SolveError> {
        self.last_report = Instant::now();
        self.watch.report(&Progress {
            states: self.states.len(),
            components: self.stats.components,
            seconds: self.started.elapsed().as_secs_f64(),
            primes: 0,
        })
    }

    /// Expands a state: a terminal becomes final at once, anything else is pushed on the
    /// Tarjan stack with its edges and gets a DFS frame.
    fn discover(&mut self, scratch: &mut Scratch<M>, id: u32) -> Result<(), SolveError> {
        let Scratch { node, move_rewards } = scratch;
        if let (Some(boundary), true) = (self.boundary, id != 0) {
            if let Some(value) = boundary(self.states.get(id as usize))? {
                self.values[id as usize] = value;
                self.status[id as usize] = TERMINAL;
                return Ok(());
            }
        }
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
                self.observer.terminal(id, node.payoff());
                if O::SOLVES {
                    self.values[id as usize] = N::from_rat(node.payoff());
                }
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
        for b in node.branches() {
            let target = self.intern(&b.next)?;
            settled &= is_final(self.status[target as usize]);
            // An observer that computes its own values needs no numbers on the edges.
            let (prob, reward) = if O::SOLVES {
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
        self.observer
            .edges(node.branches(), &self.arena[start as usize..], move_rewards);
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

    /// Explores and solves (or, for an observer that computes its own values, explores); the
    /// observer comes back with the result.
    pub(crate) fn run(mut self) -> Result<(Explored<M::State, N>, O), SolveError> {
        let start = match self.root.take() {
            Some(root) => root,
            None => self.model.start(),
        };
        let root = self.intern(&start)?;
        // One node for every expansion: filling it allocates nothing once it has grown.
        let mut scratch = Scratch {
            node: Node::new(),
            move_rewards: Vec::new(),
        };
        self.discover(&mut scratch, root)?;
        while let Some(top) = self.frames.last() {
            if self.observer.stop() {
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
        // A value is within its radius of its strategy's, which near ties may leave short of
        // the optimum: the bound covers both. (Without near ties, the radii alone, which
        // the solve takes in later.)
        let mut start_bound = None;
        if self.ties > 0.0 {
            let radius = self
                .values
                .iter()
                .fold(0.0f64, |m, v| m.max(crate::Bounded::bound(v.radius())));
            if let Some(start) = self.values.first() {
                let own = crate::Bounded::bound(start.radius());
                let slack = self.slack.first().copied().unwrap_or(0.0);
                start_bound = Some(self.stats.error_bound.max(own) + slack);
            }
            self.stats.error_bound = self.stats.error_bound.max(radius) + self.ties;
        }
        // The last report; a stop asked for now comes after the work it would have spared.
        let _ = self.report();
        // The statuses become the components: terminal states (and, if exploration stopped
        // early, states never finished) are in none.
        let mut component = self.status;
        for c in &mut component {
            if *c >= TERMINAL {
                *c = NO_CHOICE;
            }
        }
        let explored = Explored {
            states: self.states,
            values: self.values,
            choices: self.choices,
            component,
            stats: self.stats,
            start_bound,
        };
        Ok((explored, self.observer))
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
        self.observer.cycle(&self.tstack[root..], self.arena.len());
        if O::SOLVES {
            self.solve_cyclic(root)?;
            // Exact cycles can be slow one by one (their fractions grow): report by time too,
            // so that progress moves once every state is explored.
            if N::EXACT && self.last_report.elapsed() >= REPORT_PERIOD {
                self.report()?;
            }
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
        self.observer.finished(entry.id, entry.kind, first_edge);
        if O::SOLVES {
            self.backup(entry, first_edge);
        }
        self.status[entry.id as usize] = self.stats.components as u32 - 1;
        self.arena.truncate(first_edge);
    }

    /// Drops the arena's edges from `first` on (a component's, once it has its own copy), and
    /// gives their memory back when they were most of it: a large component's edges would
    /// otherwise stay beside its copy and the solver's working memory.
    fn drop_edges_from(&mut self, first: usize) {
        /// Spare room of up to this many edges is kept for the states to come.
        const KEEP: usize = 1 << 20;
        self.arena.truncate(first);
        let (len, spare) = (self.arena.len(), self.arena.capacity() - self.arena.len());
        if spare > KEEP && spare > 2 * len {
            self.arena.shrink_to(2 * len);
        }
    }

    /// One Bellman backup for a state that is not on a cycle.
    fn backup(&mut self, entry: Entry, first_edge: usize) {
        let (value, choice) = back_up(entry.kind, &self.arena[first_edge..], &self.values);
        self.values[entry.id as usize] = value;
        self.choices[entry.id as usize] = choice;
        if !self.slack.is_empty() {
            let slack = self.backed_slack(entry.kind, first_edge);
            self.set_slack(entry.id as usize, slack);
        }
    }

    /// The slack of a state not on a cycle, from its successors' (its edges are the arena's
    /// from `first_edge` on): each move's is the average of its outcomes', and a decision's
    /// the largest of its moves', since a backup moves the value no further than that. Raised
    /// by a little for the rounding of the averages.
    fn backed_slack(&self, kind: Kind, first_edge: usize) -> f64 {
        let edges = &self.arena[first_edge..];
        let room = 1.0 + (edges.len() + 2) as f64 * f64::EPSILON;
        let weighed = |move_edges: &[Edge<N>]| {
            move_edges
                .iter()
                .map(|e| e.prob.to_f64() * self.slack_of(e.target))
                .sum::<f64>()
                * room
        };
        match kind {
            Kind::Chance => weighed(edges),
            Kind::Decision(_) => move_ranges(edges)
                .map(|r| weighed(&edges[r]))
                .fold(0.0, f64::max),
        }
    }

    /// The largest slack of the targets of the arena's edges from `first_edge` on.
    fn largest_slack(&self, first_edge: usize) -> f64 {
        self.arena[first_edge..]
            .iter()
            .map(|e| self.slack_of(e.target))
            .fold(0.0, f64::max)
    }

    /// State `id`'s slack (see the field).
    fn slack_of(&self, id: u32) -> f64 {
        self.slack.get(id as usize).copied().unwrap_or(0.0)
    }

    /// Records state `id`'s slack (see the field).
    fn set_slack(&mut self, id: usize, slack: f64) {
        if id >= self.slack.len() {
            if slack == 0.0 {
                return;
            }
            self.slack.resize(self.values.len().max(id + 1), 0.0);
        }
        self.slack[id] = slack;
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
        // The local edges, counted first so that a large component's are allocated once: a
        // chance node's own, a decision's one per move, and a random move's outcomes.
        let mut edge_count = 0;
        for (i, m) in members.iter().enumerate() {
            first.push(count as u32);
            count += 1;
            let edges = edges_of(i);
            if m.kind == Kind::Chance {
                edge_count += edges.len();
                continue;
            }
            for r in move_ranges(edges) {
                edge_count += 1;
                if !plain(&edges[r.clone()]) {
                    count += 1;
                    edge_count += r.len();
                }
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
            edges: Vec::with_capacity(edge_count),
            forced: Vec::new(),
        };
        // Errors name a state: a random move's node is named by its decision.
        let mut owner = Vec::with_capacity(count);
        let mut random = Vec::new();
        for (i, m) in members.iter().enumerate() {
            comp.kind.push(m.kind);
            comp.start.push(edge_number(comp.edges.len()));
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
                comp.start.push(edge_number(comp.edges.len()));
                owner.push(i);
                comp.edges.extend(edges[r].iter().map(local));
            }
        }
        comp.start.push(edge_number(comp.edges.len()));
        // The members' own slack is not recorded yet: the largest is their exits'.
        let exits_slack = match self.slack.is_empty() {
            true => 0.0,
            false => self.largest_slack(self.tstack[root].edges as usize),
        };
        self.drop_edges_from(self.tstack[root].edges as usize);
        let endless = self.model.endless_play_loser();
        let solved = comp
            .solve(&mut self.system, endless)
            .map_err(|err| comp.error(err, |x| self.show(self.tstack[root + owner[x]].id)))?;
        // Errors of components add up along the way to the start (each value is an average
        // of its successors' plus rewards, so an error of the exits passes on at most as is).
        self.stats.error_bound += solved.bound;
        self.ties += solved.ties;
        self.stats.iterated += usize::from(solved.iterated);
        let (values, choices) = (&solved.values, &solved.policy);
        // Member `i` is local node `first[i]`; the others are the random moves' chance nodes.
        // The component's values as functions of its exits' move no further than the exits
        // do, and its near ties add their own bound.
        for (i, &x) in first.iter().enumerate() {
            let id = self.tstack[root + i].id as usize;
            self.values[id] = values[x as usize].clone();
            self.choices[id] = choices[x as usize];
            let ties = solved
                .ties_at
                .get(x as usize)
                .copied()
                .unwrap_or(solved.ties);
            self.set_slack(id, exits_slack + ties);
        }
        Ok(())
    }
}
