//! Several threads sweep one order ([`Solver::threads`](crate::Solver::threads), floats only,
//! for models that are `Sync`).
//!
//! Each thread takes the next run of [`CHUNK`] ranks and solves it in order. Values live in
//! one table of `AtomicU64`, a value's bits complemented, so that zero means unsolved and the
//! table comes zeroed from the allocator. A thread that meets an unsolved successor waits while
//! some thread still works on an earlier run, and otherwise reports the model error, as one
//! thread would; errors keep the lowest rank, so a faulty model gets the error one thread finds
//! first. If threads wait in more than a quarter of their runs (each state needs the one before
//! it), all but one stop. A panic in the model's code marks the sweep failed on its way out (a
//! drop guard), so that no thread waits for ever.
//!
//! A thread never reads a value's slot before it writes it (a state given twice shows when its
//! value is stored, by a compare-and-swap): a read of a page never written maps the kernel's
//! shared zero page, and the first write then copies it with a flush of every core's TLB. The
//! parallel sweep keeps every value (no window).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::values::Values;
use super::{limit_error, report, room_for, sweep_bound, swept_start, Fail, Scratch, CHECK_EVERY};
use crate::model::Model;
use crate::report::{Method, Stats, Watch};
use crate::{Bounded, SolveError};

/// A number the threads of a parallel sweep can share: a float value, and for [`Bounded`]
/// its radius as a second word.
pub(super) trait Shareable: super::SweepNumber + Copy {
    /// Whether the number has a radius to keep beside its value.
    const RADIUS: bool;
    /// The value and the radius (zero when there is none).
    fn words(self) -> (f64, f64);
    /// The number of a value and a radius.
    fn of_words(value: f64, radius: f64) -> Self;
}

impl Shareable for f64 {
    const RADIUS: bool = false;
    #[inline(always)]
    fn words(self) -> (f64, f64) {
        (self, 0.0)
    }
    #[inline(always)]
    fn of_words(value: f64, _: f64) -> f64 {
        value
    }
}

impl Shareable for Bounded {
    const RADIUS: bool = true;
    #[inline(always)]
    fn words(self) -> (f64, f64) {
        (self.value, self.radius)
    }
    #[inline(always)]
    fn of_words(value: f64, radius: f64) -> Bounded {
        Bounded { value, radius }
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

/// The start value in `N` (a float, or a float with its bound) by a sweep on `threads` threads: each takes the next run of
/// [`CHUNK`] ranks and solves it in order, waiting for a successor that a thread with an
/// earlier run has not solved yet. The values are those of the one-thread sweep, bit for bit
/// (each state is backed up by the same operations from the same values). A successor that no
/// earlier run will solve is the same model error as in the one-thread sweep; a model whose
/// order is wrong may also get through when the successor happened to be solved already by a
/// later run, and then its value is still right, because every value is computed from final
/// values only.
pub(super) fn start_value<M: Model + Sync, N: Shareable>(
    model: &M,
    max_states: usize,
    mut watch: Watch<'_>,
    threads: usize,
) -> Option<Result<(N, Stats), SolveError>> {
    let bound = sweep_bound(model)?;
    let words = if N::RADIUS { 2 } else { 1 };
    if let Err(e) = room_for(words * bound * std::mem::size_of::<AtomicU64>()) {
        return Some(Err(e));
    }
    let started = Instant::now();
    let shared = Shared {
        values: (0..bound).map(|_| AtomicU64::new(UNSOLVED)).collect(),
        radii: (0..if N::RADIUS { bound } else { 0 })
            .map(|_| AtomicU64::new(0))
            .collect(),
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
            scope.spawn(move || shared.work::<M, N>(model, t, max_states, &mut |_| Ok(())));
        }
        let mut next_check = CHECK_EVERY;
        shared.work::<M, N>(model, 0, max_states, &mut |stats| {
            if stats.states >= next_check {
                next_check = stats.states + CHECK_EVERY;
                report(&mut watch, stats, started)?;
                crate::memory::check(stats.states)?;
            }
            Ok(())
        });
    });
    let mut stats = Stats {
        states: shared.states.load(Ordering::Relaxed),
        components: shared.components.load(Ordering::Relaxed),
        method: Method::Sweep {
            threads: if shared.alone.load(Ordering::Relaxed) {
                1
            } else {
                threads
            },
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
    let table = Lane::<N> {
        shared: &shared,
        thread: 0,
        first: 0,
        waited: false,
        number: PhantomData,
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
    /// Per number, for numbers with a radius ([`Shareable::RADIUS`]; else empty): the bits of
    /// the radius, written before the value is published.
    radii: Box<[AtomicU64]>,
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
    fn work<M: Model, N: Shareable>(
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
            let mut lane = Lane::<N> {
                shared: self,
                thread,
                first,
                waited: false,
                number: PhantomData,
            };
            let (mut rank, end) = (first, (first + CHUNK).min(self.ranks));
            while rank < end {
                let at = rank;
                let Some(state) = super::swept_state(model, &mut rank) else {
                    continue;
                };
                match scratch.solve(model, &mut lane, &state) {
                    Ok(_) => {}
                    Err(Fail::Model(e)) => return self.fail(thread, at, Some(e)),
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

/// One thread's view of the parallel sweep's table, while it solves the chunk from `first`.
struct Lane<'a, N> {
    shared: &'a Shared,
    thread: usize,
    first: usize,
    /// Whether the thread waited for another in this chunk.
    waited: bool,
    number: PhantomData<N>,
}

impl<N: Shareable> Lane<'_, N> {
    /// The number at `at`, whose value has bits `bits` (not [`UNSOLVED`]).
    #[inline(always)]
    fn number(&self, at: usize, bits: u64) -> N {
        let radius = if N::RADIUS {
            f64::from_bits(self.shared.radii[at].load(Ordering::Relaxed))
        } else {
            0.0
        };
        N::of_words(f64::from_bits(!bits), radius)
    }
}

impl<N: Shareable> Values<N> for Lane<'_, N> {
    fn bound(&self) -> usize {
        self.shared.values.len()
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<N> {
        match self.shared.values[at].load(Ordering::Acquire) {
            UNSOLVED => None,
            bits => Some(self.number(at, bits)),
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
    fn plus_value(&self, reward: &N, at: usize) -> N {
        // `ready` saw the value published (acquire), and with it its radius.
        let bits = self.shared.values[at].load(Ordering::Relaxed);
        reward.add(&self.number(at, bits))
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: N) -> bool {
        let (value, radius) = value.words();
        if N::RADIUS {
            // Before the value, which publishes it. A state given twice writes the same
            // radius twice (its backup is the same), so a failed exchange below harms nothing.
            self.shared.radii[at].store(radius.to_bits(), Ordering::Relaxed);
        }
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

impl<N: Shareable> Lane<'_, N> {
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
