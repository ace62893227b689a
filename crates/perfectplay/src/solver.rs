//! The solver layer: the one front door of every solve. [`Solver`] owns the limits, the
//! progress callback and the threads, picks the method once from what the model offers and
//! what is asked (see [`plan`]), and runs it; the methods are sibling modules that know
//! nothing of each other: exploring ([`crate::explore`]), sweeping ([`crate::sweep`]) and
//! multi-modular evaluation ([`crate::multimodular`]), over the shared backup kernel
//! ([`crate::backup`]).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::explore::{Engine, Explored};
use crate::model::Model;
use crate::multimodular::{self, Graph};
use crate::number::Checked;
use crate::report::{Method, Progress, Stats, Watch};
use crate::solution::Solution;
use crate::sweep::{self, SweepNumber};
use crate::turns;
use crate::{Bounded, Exact, Number, SolveError};

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
    stop: Option<&'a AtomicBool>,
    /// Threads asked for (see [`Solver::threads`]).
    threads: Option<usize>,
}

/// The least [`Model::sweep_len`] at which a float sweep runs on every core (up to 8) when
/// the caller does not say how many threads; a smaller sweep is over in a few milliseconds,
/// before more threads pay for their start, and a sweep with a window
/// ([`Model::sweep_window`]) keeps its values in the cache on one thread (the parallel sweep
/// keeps them all).
pub const PARALLEL_SWEEP_RANKS: usize = 1 << 20;

/// The threads used where the caller does not say: every core, up to 8.
fn every_core() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

/// The values of a solve computed in `N`'s [`Number::Work`] as `N`, and the stats with an
/// error bound that covers the largest radius among them.
/// A float value beyond floating point's range (from a payoff of 2^2000, say) is no answer:
/// an error that says to solve exactly, rather than an infinity the model does not mean.
fn within_range<N: Number>(value: &N) -> Result<(), SolveError> {
    if N::EXACT || value.to_f64().is_finite() {
        return Ok(());
    }
    Err(SolveError::TooLarge {
        what: "a value is beyond floating point's range (about 1.8e308): solve in exact \
               arithmetic instead"
            .into(),
    })
}

pub(crate) fn from_work<N: Number>(values: Vec<N::Work>, mut stats: Stats) -> (Vec<N>, Stats) {
    let mut radius = 0.0f64;
    let mut values: Vec<N> = values
        .into_iter()
        .map(|w| {
            radius = radius.max(Bounded::bound(w.radius()));
            N::from_work(w)
        })
        .collect();
    values.shrink_to_fit();
    stats.error_bound = stats.error_bound.max(radius);
    (values, stats)
}

/// The most states of a game of turns ([`Model::turn_of`]) that the multi-modular method
/// explores whole, before it leaves the game to the solve turn by turn.
const TURNS_EXPLORED_AT_MOST: usize = 1 << 22;

/// The most attempts of the multi-modular method, each taking the moves the ones before found
/// exactly better than the float strategy's.
const MULTIMODULAR_ATTEMPTS: usize = 3;

/// A method for the start value, as [`plan`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Explore and solve every component, in the number type asked for.
    Explore,
    /// Sweep the model's order; declines only when the model offers none.
    Sweep,
    /// Sweep in checked floats; declines at the first rounding.
    CheckedSweep,
    /// Multi-modular evaluation; declines on cycles and numbers too large for it.
    Multimodular,
    /// Solve turn by turn, storing the kept states only ([`Model::turn_of`]).
    Turns,
}

/// The methods that compute the start value of `model`, in the order they are tried: each
/// one after the first runs only when the one before declines. The choice is made here and
/// nowhere else.
fn plan<M: Model>(model: &M, exact: bool) -> &'static [Step] {
    if model.has_turns() {
        // Multi-modular first where the whole game is small enough to explore at once.
        return if exact {
            &[Step::Multimodular, Step::Turns]
        } else {
            &[Step::Turns]
        };
    }
    match (exact, sweep::offered(model)) {
        (false, true) => &[Step::Sweep, Step::Explore],
        (false, false) => &[Step::Explore],
        (true, true) => &[Step::CheckedSweep, Step::Multimodular, Step::Explore],
        (true, false) => &[Step::Multimodular, Step::Explore],
    }
}

impl<'a, M: Model> Solver<'a, M> {
    /// A solver for `model` with no state limit and no progress reports.
    pub fn new(model: &'a M) -> Self {
        Solver {
            model,
            max_states: None,
            progress: None,
            stop: None,
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

    /// Stops the solve with [`SolveError::Interrupted`] soon after `flag` is set (by another
    /// thread, a signal handler or the progress callback): it is read where progress is
    /// reported, every 65,536 states.
    pub fn stop_on(mut self, flag: &'a AtomicBool) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Explores and solves, computing in `N` (`f64` or [`Exact`]). A float
    /// solve computes in [`Bounded`] floats (`N`'s [`Number::Work`]) and
    /// reports in [`Stats::error_bound`] a bound on the error of every value, rounding
    /// included.
    pub fn solve<N: Number>(mut self) -> Result<Solution<M::State, N>, SolveError> {
        let e = self.explore::<N::Work>()?;
        let (values, stats) = from_work::<N>(e.values, e.stats);
        values.iter().try_for_each(within_range)?;
        Ok(Solution::new(
            e.states,
            values,
            e.choices,
            e.component,
            stats,
        ))
    }

    /// The state limit, `usize::MAX` when none was set.
    fn limit(&self) -> usize {
        self.max_states.unwrap_or(usize::MAX)
    }

    /// The progress callback and the stop flag, lent to one method.
    fn watch(&mut self) -> Watch<'_> {
        let progress = self
            .progress
            .as_mut()
            .map(|f| &mut **f as &mut dyn FnMut(&Progress));
        Watch::new(progress, self.stop)
    }

    /// Explores and solves in `N`.
    fn explore<N: Number>(&mut self) -> Result<Explored<M::State, N>, SolveError> {
        let (model, limit) = (self.model, self.limit());
        let threads = self.threads.unwrap_or_else(every_core);
        Ok(Engine::<M, N, ()>::new(model, limit, self.watch(), ())
            .with_threads(threads)
            .run()?
            .0)
    }
}

impl<M: Model + Sync> Solver<'_, M>
where
    M::State: Send + Sync,
{
    /// How many threads to use: for the sweep of [`start_value`](Solver::start_value) in
    /// `f64` (by default every core, up to 8, for a sweep of [`PARALLEL_SWEEP_RANKS`] ranks or
    /// more without a window, else one) and for the multi-modular evaluation of
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
    /// // never got to run), and the method then says 1.
    /// assert!(matches!(stats.method, perfectplay::Method::Sweep { threads } if threads <= 2));
    /// ```
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads.max(1));
        self
    }

    /// The value of the start state alone, and how it was obtained.
    ///
    /// When the model offers a sweep order ([`Model::sweep_len`]) and a numbering, this
    /// solves its states in that order without exploring (see [`Method::Sweep`]), with the same
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
    /// assert!(stats.method.swept());
    /// ```
    pub fn start_value<N: SweepNumber>(mut self) -> Result<(N, Stats), SolveError> {
        let (value, mut stats) =
            self.run_plan::<N::Work>(false, |solver: &mut Self, step| match step {
                Step::Sweep => {
                    let (model, limit) = (solver.model, solver.limit());
                    let threads = solver.threads.unwrap_or_else(|| {
                        let large = model.sweep_len() >= PARALLEL_SWEEP_RANKS;
                        if large && model.sweep_window() == 0 {
                            every_core()
                        } else {
                            1
                        }
                    });
                    N::Work::sweep(model, limit, solver.watch(), threads)
                }
                Step::Turns => Some(solver.turns::<N::Work>()),
                _ => None,
            })?;
        stats.error_bound = stats.error_bound.max(Bounded::bound(value.radius()));
        let value = N::from_work(value);
        within_range(&value)?;
        Ok((value, stats))
    }

    /// The exact value of the start state, computed the fastest sound way this crate knows.
    ///
    /// A model that offers a sweep order ([`Model::sweep_len`]) is first swept in floats that
    /// check every operation for rounding: when every number stays a dyadic rational of 53 bits
    /// (integer scores with plain moves, say), nothing rounds and that float value is the exact
    /// one (then the method is [`Method::CheckedSweep`]). At the first rounding the
    /// sweep gives up and the methods below take over.
    ///
    /// Otherwise, for an acyclic game whose state space fits in memory twice over, this is multi-modular
    /// evaluation (see [`Method::Multimodular`]): the game is explored and solved in `f64` with
    /// rigorous error bounds, the resulting strategy is evaluated modulo random 31-bit primes
    /// on every core, and the fraction is recovered from the residues. Moves whose float values
    /// are too close to tell apart are compared exactly (modulo every prime). The answer is
    /// exact; it could be wrong only if a wrong fraction agreed with a whole batch of 16 fresh
    /// random primes, a chance below `10^-55`. When the method does not apply (cycles,
    /// near moves that differ), this solves in [`Exact`] rationals instead, which
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
    /// assert!(matches!(stats.method, perfectplay::Method::Multimodular { primes } if primes > 0));
    /// ```
    pub fn exact_start_value(mut self) -> Result<(Exact, Stats), SolveError> {
        self.run_plan(true, |solver: &mut Self, step| match step {
            Step::CheckedSweep => solver.checked_sweep(),
            Step::Multimodular => solver.multimodular(),
            Step::Turns => Some(solver.turns::<Exact>()),
            _ => None,
        })
    }

    /// Runs the methods of [`plan`] in turn until one gives a value; `method` runs every step
    /// but exploring, and declines with `None`. The stats cover the whole computation.
    fn run_plan<N: Number>(
        &mut self,
        exact: bool,
        mut method: impl FnMut(&mut Self, Step) -> Option<Result<(N, Stats), SolveError>>,
    ) -> Result<(N, Stats), SolveError> {
        let started = Instant::now();
        for &step in plan(self.model, exact) {
            let result = match step {
                Step::Explore => self.explore::<N>().map(|e| {
                    let value = e.values[0].clone();
                    let mut stats = e.stats;
                    // Only the start's value is kept: its own bound is the one to report.
                    if let Some(bound) = e.start_bound {
                        stats.error_bound = bound;
                    }
                    (value, stats)
                }),
                _ => match method(self, step) {
                    Some(result) => result,
                    None => continue,
                },
            };
            return result.map(|(value, mut stats)| {
                stats.seconds = started.elapsed().as_secs_f64();
                (value, stats)
            });
        }
        unreachable!("every plan ends with exploring, which never declines")
    }

    /// The start value solved turn by turn ([`Model::turn_of`]).
    fn turns<N: Number>(&mut self) -> Result<(N, Stats), SolveError> {
        let kept = self.turn_values::<N>()?;
        Ok((kept.values[0].clone(), kept.stats))
    }

    /// Every kept state's value, solved turn by turn ([`Model::turn_of`]).
    pub(crate) fn turn_values<N: Number>(
        &mut self,
    ) -> Result<turns::Kept<M::State, N>, SolveError> {
        let (model, limit) = (self.model, self.limit());
        let threads = self.threads.unwrap_or_else(every_core);
        let kept = turns::solve::<M, N::Work>(model, limit, self.watch(), threads)?;
        let (values, stats) = from_work::<N>(kept.values, kept.stats);
        Ok(turns::Kept {
            values,
            stats,
            states: kept.states,
            set: kept.set,
            members: kept.members,
        })
    }

    /// The exact value by a sweep in checked floats, or `None` at the first rounding.
    fn checked_sweep(&mut self) -> Option<Result<(Exact, Stats), SolveError>> {
        let (model, limit) = (self.model, self.limit());
        let swept = Checked::sweep(model, limit, self.watch(), 1)?;
        Some(swept.map(|(value, stats)| {
            let stats = Stats {
                method: Method::CheckedSweep,
                ..stats
            };
            (value.to_exact(), stats)
        }))
    }

    /// The exact value by multi-modular evaluation, or `None` when it does not apply (the
    /// reason is only that: rationals give the value).
    fn multimodular(&mut self) -> Option<Result<(Exact, Stats), SolveError>> {
        let (model, mut limit) = (self.model, self.limit());
        let turns = model.has_turns();
        if turns {
            limit = limit.min(TURNS_EXPLORED_AT_MOST);
        }
        let threads = self.threads.unwrap_or_else(every_core);
        let started = Instant::now();
        // Moves that an attempt found better, exactly, than the float strategy's: the next
        // attempt takes them.
        let mut forced = rustc_hash::FxHashMap::default();
        for _ in 0..MULTIMODULAR_ATTEMPTS {
            let graph = Graph::new(model.endless_play_loser(), forced.clone());
            let engine = Engine::<M, f64, Graph>::new(model, limit, self.watch(), graph);
            let (explored, graph) = match engine.run() {
                Ok(done) => done,
                // A game of turns too large to explore whole is solved turn by turn.
                Err(SolveError::StateLimit { .. }) if turns => return None,
                Err(e) => return Some(Err(e)),
            };
            let stats = explored.stats;
            let mut watch = self.watch();
            let mut report = |primes| {
                watch.report(&Progress {
                    states: stats.states,
                    components: stats.components,
                    seconds: started.elapsed().as_secs_f64(),
                    primes,
                })
            };
            let done = match multimodular::evaluate(graph, 0, threads, &mut report) {
                Ok(done) => done,
                Err(multimodular::Failed::Better(moves)) => {
                    forced.extend(moves);
                    continue;
                }
                // Rationals give the value; the reason matters only to a debugger.
                Err(multimodular::Failed::Declined(why)) => {
                    debug_assert!(!why.is_empty());
                    return None;
                }
                Err(multimodular::Failed::Stopped(e)) => return Some(Err(e)),
            };
            let stats = Stats {
                method: Method::Multimodular {
                    primes: done.primes,
                },
                ..stats
            };
            return Some(Ok((Exact(done.value), stats)));
        }
        None
    }
}
