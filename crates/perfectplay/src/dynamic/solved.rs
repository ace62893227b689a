//! The [`Solved`] of every [`Model`]: a solution held with its model (lent or shared), and
//! the solve that makes it, by turns where the model has them.

use std::ops::Deref;
use std::sync::Arc;

use super::{player_name, DistributionReport, Explained, Report, SolveOptions, Solved, Value};
use crate::turned::TurnSolution;
use crate::{
    DistributionOptions, Model, Number, Rat, Simulation, Solution, SolveError, Solver,
    StateExplanation, StrategyRow,
};

/// A model with its solution: the [`Solved`] of every [`Model`].
struct SolvedModel<'m, M: Model, N> {
    model: Held<'m, M>,
    solution: Solution<M::State, N>,
    report: Report,
}

/// How a [`SolvedModel`] holds its model: lent by the caller or shared with it.
pub(super) enum Held<'m, M> {
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

pub(super) fn solver<'a, 'p: 'a, M: Model + Sync>(
    m: &'a M,
    options: SolveOptions<'p>,
) -> Solver<'a, M>
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
pub(super) fn solve_any<'m, M, N>(
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
