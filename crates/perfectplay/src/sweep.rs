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
//! model error too. Several threads ([`par_start_value`]) keep every value.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::component::Kind;
use crate::explore::{back_up_by, edge_numbers, Edge, Progress};
use crate::memory;
use crate::model::{Model, Node, NodeBuilder, NodeKind, Player, Shape, MAX_TRANSIENT_DEPTH};
use crate::solution::Stats;
use crate::{Number, Rat, SolveError};

/// How many swept states between progress reports and memory checks.
const CHECK_EVERY: usize = 1 << 16;

/// How many swept states between two calls of `give_up`.
const GIVE_UP_EVERY: usize = 1 << 12;

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

/// The value of the start state by a sweep, or `None` when the model offers no sweep (no
/// order, or no numbering) or `give_up` (asked now and then) said to stop. With a
/// [`Model::sweep_window`], only the values of the window are kept.
pub(crate) fn start_value<M: Model, N: Number>(
    model: &M,
    max_states: usize,
    progress: Option<&mut dyn FnMut(&Progress)>,
    give_up: fn() -> bool,
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
        return sweep(model, table, max_states, progress, give_up);
    }
    let ring = room_for(ring_len * std::mem::size_of::<Slot<N>>())
        .and_then(|()| number(model, bound, &model.start()))
        .map(|start| Ring::new(bound, ring_len, start));
    match ring {
        Ok(ring) => sweep(model, ring, max_states, progress, give_up),
        Err(e) => Some(Err(e)),
    }
}

/// The one-thread sweep into `table`.
fn sweep<M: Model, N: Number>(
    model: &M,
    mut table: impl Values<N>,
    max_states: usize,
    mut progress: Option<&mut dyn FnMut(&Progress)>,
    give_up: fn() -> bool,
) -> Option<Result<(N, Stats), SolveError>> {
    let started = Instant::now();
    let mut scratch = Scratch::new(1);
    let mut next_check = CHECK_EVERY;
    let mut next_ask = GIVE_UP_EVERY;
    let result = (|| {
        for rank in 0..model.sweep_len() {
            // Hidden from the optimiser: LLVM otherwise turns the walk over ranks that hold no
            // state into a vectorised search, which took gold pots 1.6 times as long.
            let Some(state) = model.sweep_state(std::hint::black_box(rank)) else {
                continue;
            };
            scratch
                .solve(model, &mut table, &state)
                .map_err(Fail::error)?;
            let states = scratch.stats.states;
            if states >= next_ask {
                next_ask += GIVE_UP_EVERY;
                if give_up() {
                    return Ok(None);
                }
            }
            if states > max_states {
                return Err(limit_error(states, max_states, scratch.stats.components));
            }
            if states >= next_check {
                next_check += CHECK_EVERY;
                report(&mut progress, &scratch.stats, started);
                check_memory(states)?;
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

/// How many ranks a thread of the parallel sweep takes at a time.
const CHUNK: usize = 512;

/// After this many chunks, the parallel sweep checks that its threads seldom wait for each
/// other; if they wait in more than a quarter of the chunks (an order in which each state
/// needs the one just before it, say), one thread finishes alone.
const JUDGE_AFTER: usize = 64;

/// A thread's entry in `Shared::working` while it takes a chunk: counts as earlier than every
/// chunk, so that no thread concludes that a successor will never come meanwhile.
const TAKING: usize = 0;

/// A thread's entry in `Shared::working` once it takes no more chunks.
const IDLE: usize = usize::MAX;

/// The start value in `f64` by a sweep on `threads` threads: each takes the next run of
/// [`CHUNK`] ranks and solves it in order, waiting for a successor that a thread with an
/// earlier run has not solved yet. The values are those of the one-thread sweep, bit for bit
/// (each state is backed up by the same operations from the same values). A successor that no
/// earlier run will solve is the same model error as in the one-thread sweep; a model whose
/// order is wrong may also get through when the successor happened to be solved already by a
/// later run, and then its value is still right, because every value is computed from final
/// values only.
pub(crate) fn par_start_value<M: Model + Sync>(
    model: &M,
    max_states: usize,
    mut progress: Option<&mut dyn FnMut(&Progress)>,
    threads: usize,
) -> Option<Result<(f64, Stats), SolveError>> {
    let bound = sweep_bound(model)?;
    if let Err(e) = room_for(bound * std::mem::size_of::<AtomicU64>()) {
        return Some(Err(e));
    }
    let started = Instant::now();
    let shared = Shared {
        values: (0..bound).map(|_| AtomicU64::new(UNSOLVED)).collect(),
        ranks: model.sweep_len(),
        next: AtomicUsize::new(0),
        working: (0..threads).map(|_| AtomicUsize::new(IDLE)).collect(),
        states: AtomicUsize::new(0),
        components: AtomicUsize::new(0),
        chunks: AtomicUsize::new(0),
        waited: AtomicUsize::new(0),
        alone: AtomicBool::new(false),
        failed_at: AtomicUsize::new(IDLE),
        failure: Mutex::new(None),
    };
    std::thread::scope(|scope| {
        for t in 1..threads {
            let shared = &shared;
            scope.spawn(move || shared.work(model, t, max_states, &mut |_| Ok(())));
        }
        let mut next_check = CHECK_EVERY;
        shared.work(model, 0, max_states, &mut |stats| {
            if stats.states >= next_check {
                next_check = stats.states + CHECK_EVERY;
                report(&mut progress, stats, started);
                check_memory(stats.states)?;
            }
            Ok(())
        });
    });
    let mut stats = Stats {
        states: shared.states.load(Ordering::Relaxed),
        components: shared.components.load(Ordering::Relaxed),
        swept: true,
        threads: if shared.alone.load(Ordering::Relaxed) {
            1
        } else {
            threads
        },
        ..Stats::default()
    };
    let failure = shared
        .failure
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    if let Some((_, e)) = failure {
        return Some(Err(e));
    }
    let table = Lane {
        shared: &shared,
        thread: 0,
        first: 0,
        waited: false,
    };
    let value = swept_start(model, &table);
    stats.seconds = started.elapsed().as_secs_f64();
    Some(value.map(|v| (v, stats)))
}

/// A stored value is the complement of the float's bits, so that a zeroed table is unsolved.
const UNSOLVED: u64 = 0;

fn store_bits(v: f64) -> u64 {
    // The one float whose complement is zero is a NaN; store the standard NaN instead.
    match !v.to_bits() {
        UNSOLVED => !f64::NAN.to_bits(),
        bits => bits,
    }
}

/// What the threads of a parallel sweep share.
struct Shared {
    /// Per number: [`store_bits`] of the value, or [`UNSOLVED`].
    values: Box<[AtomicU64]>,
    ranks: usize,
    /// The next chunk to take.
    next: AtomicUsize,
    /// Per thread: the first rank of its chunk, or [`TAKING`] or [`IDLE`].
    working: Box<[AtomicUsize]>,
    states: AtomicUsize,
    components: AtomicUsize,
    /// Chunks done, and those of them in which the thread had to wait.
    chunks: AtomicUsize,
    waited: AtomicUsize,
    /// The threads waited too often: thread 0 goes on alone.
    alone: AtomicBool,
    /// The lowest rank at which a thread failed, or [`IDLE`].
    failed_at: AtomicUsize,
    /// The failure at the lowest rank, with its rank.
    failure: Mutex<Option<(usize, SolveError)>>,
}

impl Shared {
    /// One thread's work: chunks in order until none is left (or, for every thread but the
    /// first, until the threads wait too often). `after_chunk` sees the counts of all threads.
    fn work<M: Model>(
        &self,
        model: &M,
        thread: usize,
        max_states: usize,
        after_chunk: &mut dyn FnMut(&Stats) -> Result<(), SolveError>,
    ) {
        let mut scratch = Scratch::new(self.working.len());
        // Should the model panic, the other threads must not wait for this one forever.
        let _unwinding = Unwinding {
            shared: self,
            thread,
        };
        loop {
            if self.failed_at.load(Ordering::SeqCst) != IDLE
                || (thread > 0 && self.alone.load(Ordering::Relaxed))
            {
                break;
            }
            self.working[thread].store(TAKING, Ordering::SeqCst);
            let first = self
                .next
                .fetch_add(1, Ordering::SeqCst)
                .saturating_mul(CHUNK);
            if first >= self.ranks {
                break;
            }
            self.working[thread].store(first, Ordering::SeqCst);
            let mut lane = Lane {
                shared: self,
                thread,
                first,
                waited: false,
            };
            for rank in first..(first + CHUNK).min(self.ranks) {
                // Hidden from the optimiser, as in the one-thread sweep.
                let Some(state) = model.sweep_state(std::hint::black_box(rank)) else {
                    continue;
                };
                match scratch.solve(model, &mut lane, &state) {
                    Ok(()) => {}
                    Err(Fail::Model(e)) => return self.fail(thread, rank, Some(e)),
                    Err(Fail::Stopped) => return self.fail(thread, IDLE, None),
                }
            }
            // The thread's counts of this chunk go into the totals.
            let total = add(&self.states, std::mem::take(&mut scratch.stats.states));
            let components = add(
                &self.components,
                std::mem::take(&mut scratch.stats.components),
            );
            let chunks = add(&self.chunks, 1);
            let waited = add(&self.waited, lane.waited as usize);
            if chunks >= JUDGE_AFTER && waited * 4 > chunks {
                self.alone.store(true, Ordering::Relaxed);
            }
            let counts = Stats {
                states: total,
                components,
                ..Stats::default()
            };
            let checked = if total > max_states {
                Err(limit_error(total, max_states, components))
            } else {
                after_chunk(&counts)
            };
            if let Err(e) = checked {
                return self.fail(thread, first + CHUNK - 1, Some(e));
            }
        }
        self.working[thread].store(IDLE, Ordering::SeqCst);
    }

    /// Ends this thread's work after a failure at `rank` (none if `e` is `None`: the thread
    /// stopped for an earlier failure), keeping the failure at the lowest rank. Threads stop
    /// taking chunks; those with earlier chunks finish them, as one of them may fail earlier.
    #[cold]
    fn fail(&self, thread: usize, rank: usize, e: Option<SolveError>) {
        if let Some(e) = e {
            let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
            if failure.as_ref().is_none_or(|(r, _)| rank < *r) {
                *failure = Some((rank, e));
            }
            self.failed_at.fetch_min(rank, Ordering::SeqCst);
        }
        self.working[thread].store(IDLE, Ordering::SeqCst);
    }
}

/// Adds `n` to a shared count and returns the new count.
fn add(count: &AtomicUsize, n: usize) -> usize {
    count.fetch_add(n, Ordering::Relaxed) + n
}

/// Stops the other threads when a thread panics (in the model's code), so that the panic
/// reaches the caller instead of leaving them waiting.
struct Unwinding<'a> {
    shared: &'a Shared,
    thread: usize,
}

impl Drop for Unwinding<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.shared.failed_at.fetch_min(0, Ordering::SeqCst);
            self.shared.working[self.thread].store(IDLE, Ordering::SeqCst);
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

/// Where a sweep keeps its values.
trait Values<N> {
    /// Called with the number of each state before it is solved; an error says why the
    /// number cannot come now.
    fn claim(&mut self, at: usize) -> Result<(), String> {
        let _ = at;
        Ok(())
    }
    /// Why a successor may be missing, besides a wrong order.
    fn why_missing(&self) -> &'static str {
        ""
    }
    /// The size of the table (the model's `dense_bound`).
    fn bound(&self) -> usize;
    /// The value of `at`, if it is solved now.
    fn solved(&self, at: usize) -> Option<N>;
    /// Whether the successor `at` is solved, after waiting for threads that may still solve
    /// it.
    fn ready(&mut self, at: usize) -> Result<bool, Fail>;
    /// `reward` plus the value of `at`, which is solved.
    fn plus_value(&self, reward: &N, at: usize) -> N;
    /// Records the value of `at`; false if it was solved already.
    fn set(&mut self, at: usize, value: N) -> bool;
}

/// The one-thread sweep's table.
struct Table<N> {
    values: Vec<N>,
    /// Per number, one bit: solved.
    solved: Vec<u64>,
}

impl<N: Number> Values<N> for Table<N> {
    fn bound(&self) -> usize {
        self.values.len()
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<N> {
        (self.solved[at / 64] >> (at % 64) & 1 == 1).then(|| self.values[at].clone())
    }

    #[inline(always)]
    fn ready(&mut self, at: usize) -> Result<bool, Fail> {
        Ok(self.solved[at / 64] >> (at % 64) & 1 == 1)
    }

    #[inline(always)]
    fn plus_value(&self, reward: &N, at: usize) -> N {
        reward.add(&self.values[at])
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: N) -> bool {
        let bit = 1 << (at % 64);
        let fresh = self.solved[at / 64] & bit == 0;
        self.values[at] = value;
        self.solved[at / 64] |= bit;
        fresh
    }
}

/// The values of a sweep with a window ([`Model::sweep_window`]): the value of number `x`
/// sits in slot `x % len` (`len` a power of two), tagged `x + 1`, until a later number takes
/// the slot. The numbers must increase, so a tag identifies its value for good.
struct Ring<N> {
    bound: usize,
    slots: Vec<Slot<N>>,
    /// The number of the state being solved, once one is.
    last: Option<usize>,
    /// The start state's number, and its value once solved.
    start: usize,
    start_value: Option<N>,
}

/// A slot of a [`Ring`]: a value and its number plus one (zero: empty).
#[derive(Clone)]
struct Slot<N> {
    tag: usize,
    value: N,
}

impl<N: Number> Ring<N> {
    fn new(bound: usize, len: usize, start: usize) -> Self {
        debug_assert!(len.is_power_of_two());
        Ring {
            bound,
            slots: vec![
                Slot {
                    tag: 0,
                    value: N::zero(),
                };
                len
            ],
            last: None,
            start,
            start_value: None,
        }
    }

    /// The slot of number `at`.
    #[inline(always)]
    fn index(&self, at: usize) -> usize {
        at & (self.slots.len() - 1)
    }

    #[inline(always)]
    fn slot(&self, at: usize) -> &Slot<N> {
        &self.slots[self.index(at)]
    }
}

impl<N: Number> Values<N> for Ring<N> {
    fn claim(&mut self, at: usize) -> Result<(), String> {
        match self.last {
            Some(last) if at <= last => Err(format!(
                "its number (dense_index) is {at}, after {last} in the model's sweep order; \
                 with a sweep window (sweep_window) numbers must increase along the order"
            )),
            _ => {
                self.last = Some(at);
                Ok(())
            }
        }
    }

    fn why_missing(&self) -> &'static str {
        ", or its number is not within the model's sweep window (sweep_window) below the \
         state's"
    }

    fn bound(&self) -> usize {
        self.bound
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<N> {
        if at == self.start {
            return self.start_value.clone();
        }
        let slot = self.slot(at);
        (slot.tag == at + 1).then(|| slot.value.clone())
    }

    #[inline(always)]
    fn ready(&mut self, at: usize) -> Result<bool, Fail> {
        Ok(self.slot(at).tag == at + 1)
    }

    #[inline(always)]
    fn plus_value(&self, reward: &N, at: usize) -> N {
        reward.add(&self.slot(at).value)
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: N) -> bool {
        if at == self.start {
            self.start_value = Some(value.clone());
        }
        let i = self.index(at);
        self.slots[i] = Slot { tag: at + 1, value };
        // `claim` saw to it that no number comes twice.
        true
    }
}

/// One thread's view of the parallel sweep's table, while it solves the chunk from `first`.
struct Lane<'a> {
    shared: &'a Shared,
    thread: usize,
    first: usize,
    /// Whether the thread waited for another in this chunk.
    waited: bool,
}

impl Values<f64> for Lane<'_> {
    fn bound(&self) -> usize {
        self.shared.values.len()
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<f64> {
        match self.shared.values[at].load(Ordering::Acquire) {
            UNSOLVED => None,
            bits => Some(f64::from_bits(!bits)),
        }
    }

    #[inline(always)]
    fn ready(&mut self, at: usize) -> Result<bool, Fail> {
        if self.solved(at).is_some() {
            return Ok(true);
        }
        self.wait(at)
    }

    #[inline(always)]
    fn plus_value(&self, reward: &f64, at: usize) -> f64 {
        let bits = self.shared.values[at].load(Ordering::Relaxed);
        reward + f64::from_bits(!bits)
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: f64) -> bool {
        self.shared.values[at]
            .compare_exchange(
                UNSOLVED,
                store_bits(value),
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_ok()
    }
}

impl Lane<'_> {
    /// Waits until `at` is solved, or until no thread works on an earlier chunk (then it never
    /// will be, in time: false), or until another thread fails.
    #[cold]
    fn wait(&mut self, at: usize) -> Result<bool, Fail> {
        self.waited = true;
        let shared = self.shared;
        let mut round = 0u32;
        loop {
            if self.solved(at).is_some() {
                return Ok(true);
            }
            // A failure in an earlier chunk ends the sweep; one in a later chunk does not,
            // since this chunk may hold a failure at a lower rank.
            if shared.failed_at.load(Ordering::SeqCst) < self.first {
                return Err(Fail::Stopped);
            }
            let earlier = shared
                .working
                .iter()
                .enumerate()
                .any(|(t, w)| t != self.thread && w.load(Ordering::SeqCst) < self.first);
            if !earlier {
                // Every earlier chunk is done, and its values are visible since its thread
                // took a later chunk or stopped.
                return Ok(self.solved(at).is_some());
            }
            if round < 64 {
                round += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// What a thread needs to solve states one at a time.
struct Scratch<M: Model, N> {
    node: Node<M::State, M::Move>,
    edges: Vec<Edge<N>>,
    move_rewards: Vec<(u32, Rat)>,
    stats: Stats,
}

impl<M: Model, N: Number> Scratch<M, N> {
    fn new(threads: usize) -> Self {
        Scratch {
            node: Node::new(),
            edges: Vec::new(),
            move_rewards: Vec::new(),
            stats: Stats {
                swept: true,
                threads,
                ..Stats::default()
            },
        }
    }

    /// Solves one state of the sweep from its successors' values: as the model describes it
    /// ([`Backup`]), or, when that meets anything out of the ordinary, again from a recorded
    /// [`Node`], which checks in detail and names the fault.
    #[inline(always)]
    fn solve(
        &mut self,
        model: &M,
        table: &mut impl Values<N>,
        state: &M::State,
    ) -> Result<(), Fail> {
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
        if !table.set(at, value) {
            return Err(twice(model, state).into());
        }
        Ok(())
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
                let mut inner = Scratch::new(stats.threads);
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

/// The sweep's own [`NodeBuilder`]: backs a state up from its successors' values as the
/// model describes it, storing no branch, by the same operations in the same order as
/// [`back_up_by`] (so the value is the same, bit for bit).
///
/// Anything out of the ordinary (a node the quick check of [`Shape`] does not show valid, a
/// successor without a number or not solved yet) makes it give up, and the state is solved
/// again from a recorded [`Node`], which names the fault; so does a parallel sweep that
/// stopped while it waited.
struct Backup<'a, M: Model, N, V, const INNER: bool> {
    model: &'a M,
    table: &'a mut V,
    bound: usize,
    shape: Shape,
    /// A terminal's payoff, or the best move of a decision so far.
    best: Option<N>,
    /// The sum of a chance node's outcomes, or of the open random move's.
    sum: N,
    /// The value of the open random move's first outcome (the move's value if it has one).
    first: Option<N>,
    /// The open random move's outcomes so far.
    outcomes: u32,
    /// The open random move's reward, unless zero.
    move_reward: Option<N>,
    /// Why the builder gave up, if it did.
    hitch: Option<Hitch>,
    /// The transient states solved inside this one, and how many of them are not terminal.
    states: usize,
    components: usize,
}

/// Another thread of a parallel sweep failed (what [`Backup`] reports instead of a value).
struct Stopped;

impl From<Stopped> for Fail {
    fn from(_: Stopped) -> Self {
        Fail::Stopped
    }
}

/// Why [`Backup`] gave up.
enum Hitch {
    /// Solve the state again from a recorded node.
    Redo,
    /// Another thread of a parallel sweep failed.
    Stopped,
}

impl<M: Model, N: Number, V: Values<N>, const INNER: bool> Backup<'_, M, N, V, INNER> {
    #[inline(always)]
    fn new<'a>(model: &'a M, table: &'a mut V, bound: usize) -> Backup<'a, M, N, V, INNER> {
        Backup {
            model,
            table,
            bound,
            shape: Shape::FRESH,
            best: None,
            sum: N::zero(),
            first: None,
            outcomes: 0,
            move_reward: None,
            hitch: None,
            states: 0,
            components: 0,
        }
    }

    /// `reward` plus the value of `next`, or `None` after giving up.
    #[inline(always)]
    fn successor(&mut self, reward: N, next: &M::State) -> Option<N> {
        if self.hitch.is_some() {
            return None;
        }
        if self.model.transient(next) {
            return self.inside(reward, next);
        }
        let number = self.model.dense_index(next).filter(|&at| at < self.bound);
        let at = self.unless_hitch(Ok(number))?;
        let ready = self.table.ready(at);
        let ready = ready.map(|ready| ready.then_some(())).map_err(|_| Stopped);
        self.unless_hitch(ready)?;
        Some(self.table.plus_value(&reward, at))
    }

    /// `reward` plus the value of the transient state `next`, solved here by [`inside`]. A
    /// transient state inside a transient state is left to the recorded node (which solves
    /// any depth).
    #[inline(always)]
    fn inside(&mut self, reward: N, next: &M::State) -> Option<N> {
        if INNER {
            return self.unless_hitch(Ok(None));
        }
        let solved = inside(self.model, &mut *self.table, self.bound, next);
        let (value, decided) = self.unless_hitch(solved)?;
        self.states += 1;
        self.components += decided as usize;
        Some(reward.add(&value))
    }

    /// What `outcome` holds, if anything; otherwise the builder gives up: nothing
    /// (`Ok(None)`) means the state is solved again from a recorded node, an error that
    /// another thread failed.
    #[inline(always)]
    fn unless_hitch<T>(&mut self, outcome: Result<Option<T>, Stopped>) -> Option<T> {
        match outcome {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                self.hitch = Some(Hitch::Redo);
                None
            }
            Err(_) => {
                self.hitch = Some(Hitch::Stopped);
                None
            }
        }
    }

    /// Counts a move's value at a decision.
    #[inline(always)]
    fn consider(&mut self, v: N) {
        if let NodeKind::Decision(player) = self.shape.kind() {
            if self.best.as_ref().is_none_or(|b| player.prefers(&v, b)) {
                self.best = Some(v);
            }
        }
    }

    /// Ends the open random move, if any, counting its value.
    #[inline(always)]
    fn close_move(&mut self) {
        if self.outcomes == 0 {
            return;
        }
        let v = match self.outcomes {
            // One outcome (of probability one) is worth its value, as in `back_up_by`.
            1 => self.first.take(),
            _ => Some(std::mem::replace(&mut self.sum, N::zero())),
        };
        self.outcomes = 0;
        self.sum = N::zero();
        if let Some(v) = v {
            self.consider(v);
        }
    }

    /// The state's value, and whether it counts as a component (it is not terminal); `None`
    /// to solve it again from a recorded node.
    #[inline(always)]
    fn finish(mut self) -> Result<Option<(N, bool)>, Stopped> {
        match self.hitch {
            Some(Hitch::Stopped) => return Err(Stopped),
            Some(Hitch::Redo) => return Ok(None),
            None if !self.shape.is_plainly_valid() => return Ok(None),
            None => {}
        }
        Ok(match self.shape.kind() {
            NodeKind::Terminal => self.best.map(|v| (v, false)),
            NodeKind::Chance => Some((self.sum, true)),
            _ => {
                self.close_move();
                self.best.map(|v| (v, true))
            }
        })
    }
}

/// The value of the transient state `state`, and whether it is not terminal; `None` to solve
/// the state that reaches it from a recorded node. Not inlined, and given only the table, so
/// that the builder of the state that reaches it stays in registers; the model's `expand` for
/// the inner builder has this one caller, and is inlined here. The result is small enough to
/// come back in registers.
#[inline(never)]
fn inside<M: Model, N: Number, V: Values<N>>(
    model: &M,
    table: &mut V,
    bound: usize,
    state: &M::State,
) -> Result<Option<(N, bool)>, Stopped> {
    let mut inner = Backup::<M, N, V, true>::new(model, table, bound);
    model.expand(state, &mut inner);
    inner.finish()
}

impl<M: Model, N, V, const INNER: bool> crate::model::sealed::Sealed
    for Backup<'_, M, N, V, INNER>
{
}

impl<M: Model, N: Number, V: Values<N>, const INNER: bool> NodeBuilder<M::State, M::Move>
    for Backup<'_, M, N, V, INNER>
{
    #[inline(always)]
    fn terminal(&mut self, payoff: impl Into<Rat>) {
        self.shape.terminal();
        self.best = Some(N::from_rat(payoff.into()));
    }

    #[inline(always)]
    fn decision(&mut self, player: Player) {
        self.shape.decision(player);
    }

    #[inline(always)]
    fn chance(&mut self) {
        self.shape.chance();
    }

    #[inline(always)]
    fn add_move(&mut self, _mv: M::Move, reward: impl Into<Rat>, next: M::State) {
        self.close_move();
        self.shape.add_move();
        if let Some(v) = self.successor(N::from_rat(reward.into()), &next) {
            self.consider(v);
        }
    }

    #[inline(always)]
    fn add_random_move(&mut self, _mv: M::Move, reward: impl Into<Rat>) {
        self.close_move();
        self.shape.add_random_move();
        let reward = reward.into();
        self.move_reward = (!reward.is_zero()).then(|| N::from_rat(reward));
    }

    #[inline(always)]
    fn add_outcome(
        &mut self,
        _label: M::Move,
        probability: Rat,
        reward: impl Into<Rat>,
        next: M::State,
    ) {
        self.shape.add_outcome(probability);
        let mut reward = N::from_rat(reward.into());
        if let Some(r) = &self.move_reward {
            reward = reward.add(r);
        }
        let Some(q) = self.successor(reward, &next) else {
            return;
        };
        let decision = matches!(self.shape.kind(), NodeKind::Decision(_));
        if decision && self.outcomes == 0 {
            self.first = Some(q.clone());
        }
        self.outcomes += decision as u32;
        self.sum.add_mul(&N::from_rat(probability), &q);
    }
}

fn report(progress: &mut Option<&mut dyn FnMut(&Progress)>, stats: &Stats, started: Instant) {
    if let Some(f) = progress.as_mut() {
        f(&Progress {
            states: stats.states,
            components: stats.components,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
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
