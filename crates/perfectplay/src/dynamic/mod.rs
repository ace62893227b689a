//! A type-erased view of a model for front ends (the command line, later the web explorer),
//! which pick a game at run time and cannot name its state type.

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::Serialize;

use crate::encoded::EncodedModel;

mod hosted;
mod json;
mod solved;
use crate::{
    Distribution, DistributionOptions, Exact, Model, Number, Progress, Rat, Simulation, SolveError,
    StateExplanation, Stats, StrategyRow,
};
pub use hosted::Hosted;
use solved::{solve_any, solver, Held};

/// How to run a solve from a front end.
#[derive(Default)]
pub struct SolveOptions<'a> {
    /// Compute in exact rationals instead of `f64`.
    pub exact: bool,
    /// Stop with [`SolveError::StateLimit`] beyond this many states.
    pub max_states: Option<usize>,
    /// Called with the counts so far during long solves.
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
    /// Threads for [`DynModel::solve_report`]; `None` for the solver's defaults (see
    /// [`Solver::threads`](crate::Solver::threads)).
    pub threads: Option<usize>,
    /// Stops the solve with [`SolveError::Interrupted`] once set (see [`Solver::stop_on`](crate::Solver::stop_on)).
    pub stop: Option<&'a AtomicBool>,
}

/// The value of the start state and how it was obtained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The value as the nearest `f64` (the float result, or the exact one rounded).
    pub value: f64,
    /// The exact value `p/q`, when solved in exact arithmetic.
    pub exact: Option<String>,
    /// Counts, time and the method that ran.
    #[serde(flatten)]
    pub stats: Stats,
}

/// A model whose state type is hidden; every [`Model`] that can be shared between threads (with
/// its states) is one.
pub trait DynModel: Send + Sync {
    /// Solves the model and reports the value of its start state.
    fn solve_report(&self, options: SolveOptions<'_>) -> Result<Report, SolveError> {
        Ok(self.solve_dyn(options)?.report().clone())
    }

    /// Solves the model and keeps the result for queries: explanations, the strategy, the
    /// distribution of the total, simulated play.
    fn solve_dyn(
        &self,
        options: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync + '_>, SolveError>;

    /// [`solve_dyn`](DynModel::solve_dyn) for a shared model: the result keeps the model
    /// alive, so a front end can hold it as long as it likes (a Python object, a web
    /// session) and hand it to another thread.
    fn solve_shared(
        self: Arc<Self>,
        options: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync>, SolveError>
    where
        Self: 'static;
    /// The model seen through its states' bytes, for solves across processes.
    fn encoded(&self) -> &dyn EncodedModel;
}

/// A number of a solved game with its type hidden: the `f64` (the float result or the exact
/// one rounded) and, in exact mode, the exact fraction `p/q`.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The value as the nearest `f64`.
    pub float: f64,
    /// The exact value `p/q` (or an integer), in exact mode.
    pub exact: Option<String>,
}

impl Value {
    fn of<N: Number>(n: &N) -> Value {
        Value {
            float: n.to_f64(),
            exact: n.exact_string(),
        }
    }
}

impl Value {
    /// The value as a 64-bit fraction: the exact one, or a whole float; `None` where neither
    /// fits (a terminal's payoff is added to a play's total this way).
    pub fn to_rat(&self) -> Option<Rat> {
        if let Some(q) = &self.exact {
            let (n, d) = q.split_once('/').unwrap_or((q, "1"));
            return Rat::checked_new(n.parse().ok()?, d.parse().ok()?);
        }
        let f = self.float;
        (f.fract() == 0.0 && f.abs() < 9e15).then(|| Rat::integer(f as i64))
    }
}

impl fmt::Display for Value {
    /// The exact fraction when there is one, the float otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.exact {
            Some(q) => f.write_str(q),
            None => write!(f, "{}", self.float),
        }
    }
}

/// [`StateExplanation`] of a solved game with its types hidden, plus the numbers of the states
/// the branches lead to (for stepping through a game).
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The number of the explained state (`0` is the start).
    pub id: usize,
    /// The state with every move or outcome and their values.
    pub explanation: StateExplanation<Value>,
    /// For each branch, where it leads: `(probability, state number)`, one pair of probability
    /// one for a plain move or a chance outcome, one pair per outcome for a random move.
    pub next: Vec<Vec<(Rat, usize)>>,
}

/// One step of a play through [`Explained::follow`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Followed {
    /// The number of the state reached.
    pub next: usize,
    /// The outcome chance drew for a random move (an index into the branch's outcomes).
    pub outcome: Option<usize>,
    /// The reward earned on the way (the move's and its outcome's).
    pub reward: Rat,
}

impl Explained {
    /// Takes branch `pick` of this state: to the outcome of a chance state, along a plain
    /// move, or along a random move to the outcome that `rng` draws.
    pub fn follow(&self, pick: usize, rng: &mut crate::Rng) -> Followed {
        let b = &self.explanation.branches[pick];
        let next = &self.next[pick];
        if b.outcomes.is_empty() || matches!(self.explanation.kind, crate::NodeKind::Chance) {
            return Followed {
                next: next[0].1,
                outcome: None,
                reward: b.reward,
            };
        }
        let i = rng.pick(next.iter().map(|o| o.0));
        Followed {
            next: next[i].1,
            outcome: Some(i),
            reward: b.reward + b.outcomes[i].reward,
        }
    }
}

/// [`Distribution`] of a solved game with its number type hidden, with the summaries front
/// ends print.
#[derive(Clone, Debug, PartialEq)]
pub struct DistributionReport {
    /// `(total, probability, P(total ≤ it))` by increasing total.
    pub pmf: Vec<(Rat, Value, Value)>,
    /// Probability still in play when the computation stopped (zero for an acyclic game).
    pub tail: Value,
    /// `Σ total · probability` over the listed totals; the value of the game when the tail
    /// is zero.
    pub mean: Value,
    /// Standard deviation of the listed part.
    pub std: f64,
    /// See [`Distribution::steps`](crate::Distribution::steps).
    pub steps: usize,
}

impl DistributionReport {
    /// The quantiles front ends report: 1%, 5%, 25%, 50%, 75%, 95%, 99%.
    pub const QUANTILES: [f64; 7] = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];

    fn of<N: Number>(d: &Distribution<N>) -> DistributionReport {
        let mut acc = N::zero();
        let pmf = d
            .pmf
            .iter()
            .map(|(t, p)| {
                acc = acc.add(p);
                (*t, Value::of(p), Value::of(&acc))
            })
            .collect();
        DistributionReport {
            pmf,
            tail: Value::of(&d.tail),
            mean: Value::of(&d.mean()),
            std: d.std(),
            steps: d.steps,
        }
    }

    /// The smallest total whose cumulative probability reaches `q`, or `None` when the listed
    /// totals do not reach it (the rest is in the tail).
    pub fn quantile(&self, q: f64) -> Option<Rat> {
        self.pmf
            .iter()
            .find(|(_, _, c)| c.float >= q - 1e-12)
            .map(|(t, _, _)| *t)
    }
}

/// A solved game with its state and number types hidden. States are numbered `0..states()`,
/// the start is `0`.
pub trait Solved {
    /// The value of the start state and the statistics of the solve.
    fn report(&self) -> &Report;
    /// The number of explored states.
    fn states(&self) -> usize;
    /// The number of a state written in the game's own notation. Fails with
    /// [`SolveError::Unsupported`] when the text does not parse (the message says why) and
    /// with [`SolveError::UnknownState`] when the state is not reachable from the start.
    fn find(&self, text: &str) -> Result<usize, SolveError>;
    /// Every move or outcome of state `id` with its value (see [`Solution::explain`](crate::Solution::explain)).
    fn explain(&self, id: usize) -> Result<Explained, SolveError>;
    /// Every decision state with its value and optimal moves (see [`Solution::strategy`](crate::Solution::strategy)).
    fn strategy(&self) -> Result<Vec<StrategyRow<Value>>, SolveError> {
        self.strategy_rows().collect()
    }
    /// The same rows one at a time (see [`Solution::strategy_rows`](crate::Solution::strategy_rows)).
    fn strategy_rows(
        &self,
    ) -> Box<dyn Iterator<Item = Result<StrategyRow<Value>, SolveError>> + '_>;
    /// The distribution of the total under the computed strategy (see
    /// [`Solution::distribution`](crate::Solution::distribution)).
    fn distribution(
        &self,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError> {
        self.distribution_from(0, options)
    }
    /// The distribution of what is still to be won from state `id` on, under the computed
    /// strategy (see [`Solution::distribution_from`](crate::Solution::distribution_from)).
    fn distribution_from(
        &self,
        id: usize,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError>;
    /// Plays `games` games with the computed strategy everywhere (see
    /// [`Solution::simulate`](crate::Solution::simulate)).
    fn simulate(&self, games: usize, seed: u64) -> Result<Simulation, SolveError> {
        self.simulate_watched(games, seed, &mut |_| std::ops::ControlFlow::Continue(()))
    }
    /// [`Solved::simulate`], telling `played` how many games are done now and then, and
    /// stopping where it answers `Break` (see [`Solution::simulate_watched`](crate::Solution::simulate_watched)).
    fn simulate_watched(
        &self,
        games: usize,
        seed: u64,
        played: &mut dyn FnMut(usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Simulation, SolveError>;
    /// How the game names `player` ([`Model::player_label`]), or `max` / `min`.
    fn player_label(&self, player: crate::Player) -> String;
    /// What the total counts ([`Model::total_name`]), or `"total"`.
    fn total_name(&self) -> String;
    /// The end of a play at the terminal state `id` with `total` in all, in the game's terms
    /// ([`Model::show_end`]); `None` where the game does not say, or `id` is no state.
    fn show_end(&self, id: usize, total: Rat) -> Option<String>;
}

impl<M> DynModel for M
where
    M: Model + Send + Sync,
    M::State: Send + Sync,
{
    /// [`Solver::start_value`](crate::Solver::start_value) (a sweep when the model offers one); in exact mode
    /// [`Solver::exact_start_value`](crate::Solver::exact_start_value) (multi-modular when it applies).
    fn solve_report(&self, options: SolveOptions<'_>) -> Result<Report, SolveError> {
        if !options.exact {
            let (v, stats) = solver(self, options).start_value::<f64>()?;
            return Ok(Report {
                value: v,
                exact: None,
                stats,
            });
        }
        let (v, stats) = solver(self, options).exact_start_value()?;
        Ok(Report {
            value: v.to_f64(),
            exact: v.exact_string(),
            stats,
        })
    }

    fn solve_dyn(
        &self,
        options: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync + '_>, SolveError> {
        Ok(if options.exact {
            solve_any::<M, Exact>(Held::Lent(self), options)?
        } else {
            solve_any::<M, f64>(Held::Lent(self), options)?
        })
    }

    fn solve_shared(
        self: Arc<Self>,
        options: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync>, SolveError>
    where
        Self: 'static,
    {
        Ok(if options.exact {
            solve_any::<M, Exact>(Held::Shared(self), options)?
        } else {
            solve_any::<M, f64>(Held::Shared(self), options)?
        })
    }

    fn encoded(&self) -> &dyn EncodedModel {
        self
    }
}

/// The lowercase name of a player, as reports write it.
pub fn player_name(p: crate::Player) -> &'static str {
    match p {
        crate::Player::Max => "max",
        crate::Player::Min => "min",
    }
}
