//! A type-erased view of a model for front ends (the command line, later the web explorer),
//! which pick a game at run time and cannot name its state type.

use std::fmt;
use std::ops::Deref;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::encoded::EncodedModel;
use crate::turned::TurnSolution;

mod hosted;
use crate::{
    Distribution, DistributionOptions, Exact, Model, Number, Progress, Rat, Simulation, Solution,
    SolveError, Solver, StateExplanation, Stats, StrategyRow,
};
pub use hosted::Hosted;

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
    /// [`Solver::threads`]).
    pub threads: Option<usize>,
    /// Stops the solve with [`SolveError::Interrupted`] once set (see [`Solver::stop_on`]).
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
    /// Every move or outcome of state `id` with its value (see [`Solution::explain`]).
    fn explain(&self, id: usize) -> Result<Explained, SolveError>;
    /// Every decision state with its value and optimal moves (see [`Solution::strategy`]).
    fn strategy(&self) -> Result<Vec<StrategyRow<Value>>, SolveError> {
        self.strategy_rows().collect()
    }
    /// The same rows one at a time (see [`Solution::strategy_rows`]).
    fn strategy_rows(
        &self,
    ) -> Box<dyn Iterator<Item = Result<StrategyRow<Value>, SolveError>> + '_>;
    /// The distribution of the total under the computed strategy (see
    /// [`Solution::distribution`]).
    fn distribution(
        &self,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError> {
        self.distribution_from(0, options)
    }
    /// The distribution of what is still to be won from state `id` on, under the computed
    /// strategy (see [`Solution::distribution_from`]).
    fn distribution_from(
        &self,
        id: usize,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError>;
    /// Plays `games` games with the computed strategy everywhere (see
    /// [`Solution::simulate`]).
    fn simulate(&self, games: usize, seed: u64) -> Result<Simulation, SolveError> {
        self.simulate_watched(games, seed, &mut |_| std::ops::ControlFlow::Continue(()))
    }
    /// [`Solved::simulate`], telling `played` how many games are done now and then, and
    /// stopping where it answers `Break` (see [`Solution::simulate_watched`]).
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

/// A model with its solution: the [`Solved`] of every [`Model`].
struct SolvedModel<'m, M: Model, N> {
    model: Held<'m, M>,
    solution: Solution<M::State, N>,
    report: Report,
}

/// How a [`SolvedModel`] holds its model: lent by the caller or shared with it.
enum Held<'m, M> {
    Lent(&'m M),
    Shared(Arc<M>),
}

impl<M> Deref for Held<'_, M> {
    type Target = M;

    fn deref(&self) -> &M {
        match self {
            Held::Lent(m) => m,
            Held::Shared(m) => m,
        }
    }
}

/// The longest simulated game before [`Solved::simulate`] gives up.
const MAX_GAME_STEPS: usize = 100_000_000;

impl<M: Model, N: Number> Solved for SolvedModel<'_, M, N> {
    fn report(&self) -> &Report {
        &self.report
    }

    fn states(&self) -> usize {
        self.solution.len()
    }

    fn find(&self, text: &str) -> Result<usize, SolveError> {
        let state = self
            .model
            .parse_state(text)
            .map_err(SolveError::Unsupported)?;
        self.solution
            .number_of(&*self.model, &state)
            .ok_or_else(|| SolveError::UnknownState {
                state: self.model.show_state(&state),
            })
    }

    fn explain(&self, id: usize) -> Result<Explained, SolveError> {
        if id >= self.solution.len() {
            return Err(SolveError::UnknownState {
                state: format!("number {id}"),
            });
        }
        let state = self.solution.state_at(id);
        let e = self.solution.explain(&*self.model, state)?;
        explained(&*self.model, id, state, e, |next| {
            Ok(self
                .solution
                .number_of(&*self.model, next)
                .unwrap_or(usize::MAX))
        })
    }

    fn strategy_rows(
        &self,
    ) -> Box<dyn Iterator<Item = Result<StrategyRow<Value>, SolveError>> + '_> {
        Box::new(
            self.solution
                .strategy_rows(&*self.model)
                .map(|r| r.map(erase_row)),
        )
    }

    fn distribution_from(
        &self,
        id: usize,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError> {
        let d = self.solution.distribution_from(&*self.model, id, options)?;
        Ok(DistributionReport::of(&d))
    }

    fn simulate_watched(
        &self,
        games: usize,
        seed: u64,
        played: &mut dyn FnMut(usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Simulation, SolveError> {
        self.solution
            .simulate_watched(&*self.model, games, seed, MAX_GAME_STEPS, played)
    }

    fn player_label(&self, player: crate::Player) -> String {
        self.model
            .player_label(player)
            .unwrap_or_else(|| player_name(player).to_string())
    }

    fn total_name(&self) -> String {
        self.model
            .total_name()
            .unwrap_or_else(|| "total".to_string())
    }

    fn show_end(&self, id: usize, total: Rat) -> Option<String> {
        (id < self.solution.len())
            .then(|| self.model.show_end(self.solution.state_at(id), total))
            .flatten()
    }
}

/// An explanation of state `id` (`state`) for a front end: `e` with its numbers as
/// [`Value`]s, and the numbers of the states each move or outcome leads to, by `number`.
fn explained<M: Model, N: Number>(
    model: &M,
    id: usize,
    state: &M::State,
    e: StateExplanation<N>,
    number: impl Fn(&M::State) -> Result<usize, SolveError>,
) -> Result<Explained, SolveError> {
    let mut node = crate::Node::new();
    model.expand(state, &mut node);
    node.validate().map_err(|reason| SolveError::InvalidModel {
        state: model.show_state(state),
        reason,
    })?;
    let next = match node.kind() {
        crate::NodeKind::Decision(_) => node
            .moves()
            .map(|m| {
                m.outcomes
                    .iter()
                    .map(|b| Ok((b.probability, number(&b.next)?)))
                    .collect::<Result<_, SolveError>>()
            })
            .collect::<Result<_, SolveError>>()?,
        _ => node
            .branches()
            .iter()
            .map(|b| Ok(vec![(Rat::ONE, number(&b.next)?)]))
            .collect::<Result<_, SolveError>>()?,
    };
    Ok(Explained {
        id,
        explanation: StateExplanation {
            state: e.state,
            kind: e.kind,
            value: Value::of(&e.value),
            branches: e.branches.into_iter().map(erase).collect(),
        },
        next,
    })
}

/// A strategy row with its value as a [`Value`].
fn erase_row<N: Number>(r: StrategyRow<N>) -> StrategyRow<Value> {
    StrategyRow {
        id: r.id,
        state: r.state,
        value: Value::of(&r.value),
        optimal: r.optimal,
        chosen: r.chosen,
    }
}

/// A [`BranchValue`](crate::BranchValue) with its numbers as [`Value`]s.
fn erase<N: Number>(b: crate::BranchValue<N>) -> crate::BranchValue<Value> {
    crate::BranchValue {
        label: b.label,
        probability: b.probability,
        reward: b.reward,
        next: b.next,
        value: Value::of(&b.value),
        loss: Value::of(&b.loss),
        optimal: b.optimal,
        chosen: b.chosen,
        outcomes: b.outcomes.into_iter().map(erase).collect(),
    }
}

fn solver<'a, 'p: 'a, M: Model + Sync>(m: &'a M, options: SolveOptions<'p>) -> Solver<'a, M>
where
    M::State: Send + Sync,
{
    let mut solver = Solver::new(m);
    if let Some(threads) = options.threads {
        solver = solver.threads(threads);
    }
    if let Some(limit) = options.max_states {
        solver = solver.max_states(limit);
    }
    if let Some(f) = options.progress {
        solver = solver.on_progress(f);
    }
    if let Some(flag) = options.stop {
        solver = solver.stop_on(flag);
    }
    solver
}

/// A model solved by its turns ([`Model::turn_of`]): the [`Solved`] of every model that has
/// them. Queries about a state solve its turn again (see [`crate::turned`]).
struct SolvedTurns<'m, M: Model, N> {
    model: Held<'m, M>,
    solution: TurnSolution<M::State, N>,
    report: Report,
}

impl<M: Model + Sync, N: Number> SolvedTurns<'_, M, N>
where
    M::State: Send + Sync,
{
    fn state(&self, id: usize) -> Result<M::State, SolveError> {
        self.solution
            .state_at(id)
            .ok_or_else(|| SolveError::UnknownState {
                state: format!("number {id}"),
            })
    }
}

impl<M: Model + Sync, N: Number> Solved for SolvedTurns<'_, M, N>
where
    M::State: Send + Sync,
{
    fn report(&self) -> &Report {
        &self.report
    }

    fn states(&self) -> usize {
        self.solution.len()
    }

    fn find(&self, text: &str) -> Result<usize, SolveError> {
        let state = self
            .model
            .parse_state(text)
            .map_err(SolveError::Unsupported)?;
        self.solution.find(&*self.model, &state)
    }

    fn explain(&self, id: usize) -> Result<Explained, SolveError> {
        let state = self.state(id)?;
        let model = &*self.model;
        let e = self.solution.explain(model, &state)?;
        explained(model, id, &state, e, |next| {
            self.solution.number(model, next)
        })
    }

    fn strategy_rows(
        &self,
    ) -> Box<dyn Iterator<Item = Result<StrategyRow<Value>, SolveError>> + '_> {
        Box::new(
            self.solution
                .strategy_rows(&*self.model)
                .map(|r| r.map(erase_row)),
        )
    }

    fn distribution_from(
        &self,
        id: usize,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError> {
        let d = self.solution.distribution(&*self.model, id, options)?;
        Ok(DistributionReport::of(&d))
    }

    fn simulate_watched(
        &self,
        games: usize,
        seed: u64,
        played: &mut dyn FnMut(usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Simulation, SolveError> {
        let model = &*self.model;
        crate::simulate::play(
            model,
            model.start(),
            games,
            seed,
            MAX_GAME_STEPS,
            played,
            |state| self.solution.chosen(model, state),
        )
    }

    fn player_label(&self, player: crate::Player) -> String {
        self.model
            .player_label(player)
            .unwrap_or_else(|| player_name(player).to_string())
    }

    fn total_name(&self) -> String {
        self.model
            .total_name()
            .unwrap_or_else(|| "total".to_string())
    }

    fn show_end(&self, id: usize, total: Rat) -> Option<String> {
        let state = self.solution.state_at(id)?;
        self.model.show_end(&state, total)
    }
}

/// Solves by turns where the model has them, else explores: the [`Solved`] either way.
fn solve_any<'m, M, N>(
    m: Held<'m, M>,
    options: SolveOptions<'_>,
) -> Result<Box<dyn Solved + Send + Sync + 'm>, SolveError>
where
    M: Model + Send + Sync + 'm,
    M::State: Send + Sync,
    N: Number,
{
    if !m.has_turns() {
        return Ok(Box::new(solve_with::<M, N>(m, options)?));
    }
    let limit = options.max_states.unwrap_or(usize::MAX);
    let kept = solver(&*m, options).turn_values::<N>()?;
    let solution = TurnSolution::new(kept, limit);
    let v = solution.start_value();
    let report = Report {
        value: v.to_f64(),
        exact: v.exact_string(),
        stats: solution.stats().clone(),
    };
    Ok(Box::new(SolvedTurns {
        model: m,
        solution,
        report,
    }))
}

fn solve_with<'m, M: Model + Sync, N: Number>(
    m: Held<'m, M>,
    options: SolveOptions<'_>,
) -> Result<SolvedModel<'m, M, N>, SolveError>
where
    M::State: Send + Sync,
{
    let solution = solver(&*m, options).solve::<N>()?;
    let v = solution.start_value();
    let report = Report {
        value: v.to_f64(),
        exact: v.exact_string(),
        stats: solution.stats().clone(),
    };
    Ok(SolvedModel {
        model: m,
        solution,
        report,
    })
}

impl<M> DynModel for M
where
    M: Model + Send + Sync,
    M::State: Send + Sync,
{
    /// [`Solver::start_value`] (a sweep when the model offers one); in exact mode
    /// [`Solver::exact_start_value`] (multi-modular when it applies).
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

/// Writes `name` (the float) and, in exact mode, `name_exact` (`"p/q"`): the JSON convention of
/// every report of this module.
fn value_entry<M: SerializeMap>(map: &mut M, name: &str, v: &Value) -> Result<(), M::Error> {
    map.serialize_entry(name, &v.float)?;
    if let Some(q) = &v.exact {
        map.serialize_entry(&format!("{name}_exact"), q)?;
    }
    Ok(())
}

/// The lowercase name of a player, as reports write it.
pub fn player_name(p: crate::Player) -> &'static str {
    match p {
        crate::Player::Max => "max",
        crate::Player::Min => "min",
    }
}

/// An outcome (of chance or of a random move): `outcome`, `probability` (and
/// `probability_exact`), `value`, `reward` and `next`.
struct OutcomeJson<'a>(&'a crate::BranchValue<Value>);

impl Serialize for OutcomeJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("outcome", &b.label)?;
        map.serialize_entry("probability", &b.probability.to_f64())?;
        map.serialize_entry("probability_exact", &b.probability.to_string())?;
        value_entry(&mut map, "value", &b.value)?;
        map.serialize_entry("reward", &b.reward.to_f64())?;
        map.serialize_entry("next", &b.next)?;
        map.end()
    }
}

/// A move of a decision: `move`, `value`, `loss`, `optimal`, `chosen`, the `outcomes` of a
/// random move, `reward` and `next`.
struct MoveJson<'a>(&'a crate::BranchValue<Value>);

impl Serialize for MoveJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("move", &b.label)?;
        value_entry(&mut map, "value", &b.value)?;
        value_entry(&mut map, "loss", &b.loss)?;
        map.serialize_entry("optimal", &b.optimal)?;
        map.serialize_entry("chosen", &b.chosen)?;
        if !b.outcomes.is_empty() {
            let outcomes: Vec<OutcomeJson<'_>> = b.outcomes.iter().map(OutcomeJson).collect();
            map.serialize_entry("outcomes", &outcomes)?;
        }
        map.serialize_entry("reward", &b.reward.to_f64())?;
        map.serialize_entry("next", &b.next)?;
        map.end()
    }
}

/// `state`, `value`, `kind` (`terminal`, `chance` or `decision`), and the `outcomes` of a chance
/// state or the `player` and `moves` of a decision.
impl Serialize for Explained {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let x = &self.explanation;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &x.state)?;
        value_entry(&mut map, "value", &x.value)?;
        match x.kind {
            crate::NodeKind::Terminal => map.serialize_entry("kind", "terminal")?,
            crate::NodeKind::Chance => {
                map.serialize_entry("kind", "chance")?;
                let items: Vec<OutcomeJson<'_>> = x.branches.iter().map(OutcomeJson).collect();
                map.serialize_entry("outcomes", &items)?;
            }
            crate::NodeKind::Decision(p) => {
                map.serialize_entry("kind", "decision")?;
                map.serialize_entry("player", player_name(p))?;
                let items: Vec<MoveJson<'_>> = x.branches.iter().map(MoveJson).collect();
                map.serialize_entry("moves", &items)?;
            }
            crate::NodeKind::Unset => {}
        }
        map.end()
    }
}

/// `mean`, `std`, `tail`, `steps`, `quantiles` (by [`DistributionReport::QUANTILES`]; null beyond
/// the tail), `pmf` and `cdf` as `[total, probability]` pairs, and in exact mode `pmf_exact` as
/// `["total", "p/q"]` pairs.
impl Serialize for DistributionReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        value_entry(&mut map, "mean", &self.mean)?;
        map.serialize_entry("std", &self.std)?;
        value_entry(&mut map, "tail", &self.tail)?;
        map.serialize_entry("steps", &self.steps)?;
        let quantiles: Vec<(String, Option<f64>)> = Self::QUANTILES
            .iter()
            .map(|&q| (q.to_string(), self.quantile(q).map(|t| t.to_f64())))
            .collect();
        map.serialize_entry("quantiles", &Pairs(&quantiles))?;
        let pmf: Vec<(f64, f64)> = self
            .pmf
            .iter()
            .map(|(t, p, _)| (t.to_f64(), p.float))
            .collect();
        map.serialize_entry("pmf", &pmf)?;
        let cdf: Vec<(f64, f64)> = self
            .pmf
            .iter()
            .map(|(t, _, c)| (t.to_f64(), c.float))
            .collect();
        map.serialize_entry("cdf", &cdf)?;
        if self.pmf.iter().any(|(_, p, _)| p.exact.is_some()) {
            let exact: Vec<(String, Option<&String>)> = self
                .pmf
                .iter()
                .map(|(t, p, _)| (t.to_string(), p.exact.as_ref()))
                .collect();
            map.serialize_entry("pmf_exact", &exact)?;
        }
        map.end()
    }
}

/// Key-value pairs written as a map, in their order.
struct Pairs<'a, V>(&'a [(String, V)]);

impl<V: Serialize> Serialize for Pairs<'_, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `state`, `value`, `optimal` (every optimal move) and `chosen`.
impl Serialize for StrategyRow<Value> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &self.state)?;
        value_entry(&mut map, "value", &self.value)?;
        map.serialize_entry("optimal", &self.optimal)?;
        map.serialize_entry("chosen", &self.chosen)?;
        map.end()
    }
}
