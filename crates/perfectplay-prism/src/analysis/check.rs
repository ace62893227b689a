//! Checking a query on a built state space, asked as one [`Asked`]: it is validated against the
//! model, its formulas evaluated in every state ([`Basis`]), the graph analyses of
//! [`crate::analysis::prepared`] decide the states whose value is known and leave the rest to
//! perfectplay's engine as a [`crate::analysis::query::QueryModel`], which solves exactly
//! (policy iteration with exact linear solves per component), in `f64` or, with `exact`, in
//! rationals.
//!
//! Semantics (PRISM's and Storm's): `P=? [ψ U φ]` is the probability of reaching φ through
//! ψ-states; `Pmin`/`Pmax` optimise over all schedulers. `R=? [F φ]` is the expected reward
//! until φ, +∞ where φ is reached with probability below one (under some scheduler for `Rmax`,
//! under every one for `Rmin`); rewards are not earned in φ-states.
//!
//! A stochastic game (`smg`) is the two-player game of the coalition against the rest. Its
//! graph analyses are the game's (the attractor of φ, almost-sure reachability against an
//! adversary), and its cycles are solved by the engine with the rule that an endless play is
//! lost by the player who wants φ reached ([`perfectplay::Model::endless_play_loser`]): it is
//! worth zero to the maximiser of a probability and +∞ to the minimiser of a reward, as in
//! PRISM-games. An `Fc` reward on a game, where an endless play earns its total, is solved by
//! `total.rs`. The model handed to the engine is `query.rs`'s.

use crate::analysis::answers::Answer;
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::prepared::{prepare_basis, Prepared};
use perfectplay::{Number, Player, Solver};

use crate::analysis::query::OUTCOME;
use crate::build::Space;
use crate::program::fast::IntExpr;
use crate::program::{CExpr, Program};
use crate::syntax::ast::{Measure, ModelType, Opt, Path, Query};

/// How to aggregate over several initial states (`filter(op, …, "init")`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverInitial {
    /// The only initial state.
    Only,
    /// The greatest value.
    Max,
    /// The least value.
    Min,
    /// The mean value.
    Avg,
}

/// Which states satisfy `e`.
pub(crate) fn states_where(
    space: &Space,
    program: &Program,
    e: &CExpr,
) -> Result<Vec<bool>, AnalysisError> {
    let mut vals = Vec::new();
    let fast = IntExpr::new(e);
    (0..space.len() as u32)
        .map(|s| {
            space.unpack(program, s, &mut vals);
            fast.holds(e, &vals)
                .map_err(|error| AnalysisError::InState {
                    state: space.show(program, s),
                    error,
                })
        })
        .collect()
}

/// `method`, said of a value computed from floating-point numbers of the model (see
/// [`Asked::inexact`]): its error bound counts the solve, not those numbers' rounding.
fn from_float_inputs(method: &'static str) -> &'static str {
    match method {
        "graph" => "graph, from floating-point inputs",
        "policy iteration" => "policy iteration, from floating-point inputs",
        "value iteration with a certified bound" => {
            "value iteration with a certified bound, from floating-point inputs"
        }
        "strategy iteration" => "strategy iteration, from floating-point inputs",
        "strategy iteration, value iteration with a certified bound" => {
            "strategy iteration, value iteration with a certified bound, from floating-point inputs"
        }
        "policy iteration over the reward earned" => {
            "policy iteration over the reward earned, from floating-point inputs"
        }
        "long-run averages by renewal, policy iteration" => {
            "long-run averages by renewal, policy iteration, from floating-point inputs"
        }
        "long-run averages by renewal, value iteration with a certified bound" => {
            "long-run averages by renewal, value iteration with a certified bound, from \
             floating-point inputs"
        }
        "bounds over the reward earned, cut where large" => {
            "bounds over the reward earned, cut where large, from floating-point inputs"
        }
        _ => "exact solve of floating-point inputs",
    }
}

/// An error for a reward-bounded path (`F^{rew{"r"}<=b} φ`), which `check` answers by
/// [`crate::analysis::reward_bounded`], whose game (for explain, play and the others) counts
/// the reward earned: never read as the unbounded path's.
fn refuse_reward_bound(query: &Query) -> Result<(), AnalysisError> {
    match query.path {
        Path::RewardBounded { .. } => Err(unsupported(
            "a reward bound on a path is a game with the reward earned counted, not the \
             unbounded path's",
        )),
        _ => Ok(()),
    }
}

/// A path query asked of a space, its state formulas resolved: what every analysis of a
/// query takes. A model built for it may keep the model and its space (`'a`), not the
/// query (`'q`).
#[derive(Clone, Copy)]
pub(crate) struct Asked<'a, 'q> {
    /// The model.
    pub program: &'a Program,
    /// Its state space.
    pub space: &'a Space,
    /// The query.
    pub query: &'q Query,
    /// ψ of an until (`None` for `F`).
    pub through: Option<&'q CExpr>,
    /// φ, the target.
    pub target: &'q CExpr,
    /// How the values at the initial states make the answer.
    pub over: OverInitial,
}

impl<'a, 'q> Asked<'a, 'q> {
    /// The same question with another query (one that stands for the query asked), over the
    /// same formulas.
    pub(crate) fn with_query<'r>(&self, query: &'r Query) -> Asked<'a, 'r>
    where
        'q: 'r,
    {
        Asked { query, ..*self }
    }

    /// The answer at the start (over the initial states as `over` takes them); `exact`
    /// solves in rationals, an error where a number the query depends on is floating point.
    pub(crate) fn check(&self, exact: bool) -> Result<Answer, AnalysisError> {
        let inexact = self.inexact();
        if exact && inexact {
            return Err(AnalysisError::Inexact);
        }
        let mut answer = self.solve(exact)?;
        if inexact {
            answer.method = from_float_inputs(answer.method);
        }
        Ok(answer)
    }

    /// [`Asked::check`] once the numbers are known to be fit for the mode.
    pub(crate) fn solve(&self, exact: bool) -> Result<Answer, AnalysisError> {
        refuse_reward_bound(self.query)?;
        if matches!(self.query.path, Path::EventuallyZero(_)) {
            return crate::analysis::zero::answer(self, exact);
        }
        if matches!(self.query.path, Path::LongRun(_)) {
            return crate::analysis::long_run::answer(self, exact);
        }
        let model = match self.prepare()? {
            Prepared::Infinite => return Ok(Answer::infinite()),
            Prepared::Model(model) => *model,
        };
        // An exact solve of a chain is worth a pass that lumps its bisimilar states.
        let model = if exact {
            crate::analysis::lump::lumped(model)
        } else {
            model
        };
        if model.total_game {
            return crate::analysis::total::answer(model, self.over, exact);
        }
        // The graph analysis made every strategy left to the engine end the play, so its
        // linear systems are regular.
        solve_start(&model, exact, usize::MAX, |how| match how {
            Solve::Direct => "policy iteration",
            Solve::Iterated => "value iteration with a certified bound",
            Solve::Exact => "exact",
        })
    }

    /// The graph analyses of the query (as for [`Asked::check`]) and the model they leave to
    /// the engine.
    pub(crate) fn prepare(&self) -> Result<Prepared<'a>, AnalysisError> {
        if matches!(self.query.path, Path::LongRun(_)) {
            return Err(unsupported(crate::analysis::long_run::NO_GAME));
        }
        refuse_reward_bound(self.query)?;
        let basis = self.basis()?;
        let kind = model_type(self.program, self.query);
        let (program, space) = (self.program, self.space);
        prepare_basis(
            program,
            space,
            self.query,
            basis,
            kind,
            self.over,
            self.inexact(),
        )
    }

    /// The [`Basis`] of the query, once [`validate`] accepts it.
    pub(crate) fn basis(&self) -> Result<Basis, AnalysisError> {
        let Asked {
            program,
            space,
            query,
            through,
            target,
            over,
        } = *self;
        validate(program, space, query, over)?;
        let goal = states_where(space, program, target)?;
        let allowed = match through {
            Some(psi) => states_where(space, program, psi)?,
            None => vec![true; space.len()],
        };
        let player = if query.opt == Opt::Max {
            Player::Max
        } else {
            Player::Min
        };
        let players = match &query.coalition {
            Some(coalition) => crate::analysis::players::owners(program, space, coalition, player)?,
            None => vec![player],
        };
        let coalition = query.coalition.as_ref().map(|c| {
            let names: Vec<&str> = c.iter().map(|id| id.name.as_str()).collect();
            (player, format!("<<{}>>", names.join(",")))
        });
        Ok(Basis {
            goal,
            allowed,
            player,
            players,
            coalition,
        })
    }

    /// The [`Basis`] of `query` (one that stands for the query asked) with the formulas asked.
    pub(crate) fn basis_of(&self, query: &Query) -> Result<Basis, AnalysisError> {
        self.with_query(query).basis()
    }

    /// Whether a number the query depends on need not be rational ([`CExpr::Inexact`]): in
    /// the model's commands or initial states, the reward structure it asks for, or the
    /// property's conditions.
    pub(crate) fn inexact(&self) -> bool {
        let program = self.program;
        let commands = program.commands.iter().any(|c| {
            c.guard.inexact()
                || c.updates.iter().any(|(p, assigns)| {
                    p.as_ref().is_some_and(CExpr::inexact)
                        || assigns.iter().any(|(_, e)| e.inexact())
                })
        });
        let rewards = match &self.query.what {
            Measure::Reward(r) => crate::analysis::rewards::reward_structure(program, r.as_ref())
                .is_ok_and(|r| {
                    r.state.iter().any(|(g, v)| g.inexact() || v.inexact())
                        || r.transition
                            .iter()
                            .any(|(_, g, v)| g.inexact() || v.inexact())
                }),
            _ => false,
        };
        commands
            || rewards
            || program.init.as_ref().is_some_and(CExpr::inexact)
            || self.through.is_some_and(CExpr::inexact)
            || self.target.inexact()
    }

    /// Whether `query` (one that stands for the query asked) with the formulas asked depends
    /// on a floating-point number.
    pub(crate) fn inexact_of(&self, query: &Query) -> bool {
        self.with_query(query).inexact()
    }
}

/// How [`solve_start`] found a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Solve {
    /// In floats, by direct solves (policy iteration).
    Direct,
    /// In floats, by value iteration with a certified bound.
    Iterated,
    /// In rationals.
    Exact,
}

/// The value at `model`'s start as an answer named by `method`: in floats, or in rationals
/// with `exact`, and in rationals too where a float pivot vanishes by rounding (a regular
/// system can still lose one; haddad-monmege is built for that).
pub(crate) fn solve_start<M>(
    model: &M,
    exact: bool,
    max_states: usize,
    method: impl Fn(Solve) -> &'static str,
) -> Result<Answer, AnalysisError>
where
    M: perfectplay::Model + Sync,
    M::State: Send + Sync,
{
    let float = if exact {
        None
    } else {
        match Solver::new(model)
            .max_states(max_states)
            .start_value::<f64>()
        {
            Err(perfectplay::SolveError::StateLimit { limit, .. }) => {
                return Err(crate::analysis::bounded::too_many_steps(limit))
            }
            float => float.ok(),
        }
    };
    if let Some((v, stats)) = float {
        return Ok(Answer {
            value: v,
            exact: None,
            method: method(if stats.iterated > 0 {
                Solve::Iterated
            } else {
                Solve::Direct
            }),
            states: stats.states,
            holds: None,
            error_bound: stats.error_bound,
            listed: None,
        });
    }
    let (v, stats) = Solver::new(model)
        .max_states(max_states)
        .exact_start_value()
        .map_err(|e| match e {
            perfectplay::SolveError::StateLimit { limit, .. } => {
                crate::analysis::bounded::too_many_steps(limit)
            }
            e => AnalysisError::Solve(e),
        })?;
    Ok(Answer {
        value: v.to_f64(),
        exact: if exact { v.exact_string() } else { None },
        method: method(Solve::Exact),
        states: stats.states,
        holds: None,
        error_bound: 0.0,
        listed: None,
    })
}

/// Whether `query` fits the model and the initial states (`over`): an error that says what
/// is wrong otherwise.
pub(crate) fn validate(
    program: &Program,
    space: &Space,
    query: &Query,
    over: OverInitial,
) -> Result<(), AnalysisError> {
    let n = space.len();
    if n >= OUTCOME as usize {
        return Err(AnalysisError::TooLarge(format!(
            "{n} states are more than the solver numbers"
        )));
    }
    validate_query(program, query, over, space.initial.len())
}

/// [`validate`] of what does not depend on the built space: the query against the model's
/// type, and `over` against its `initial` states.
pub(crate) fn validate_query(
    program: &Program,
    query: &Query,
    over: OverInitial,
    initial: usize,
) -> Result<(), AnalysisError> {
    // A DTMC's `Pmin=?` and `Pmax=?` are its `P=?`, as in PRISM: it has one scheduler.
    match (program.model_type, query.opt) {
        (ModelType::Mdp, Opt::None) => {
            return Err(unsupported(
                "an MDP needs Pmin/Pmax (or Rmin/Rmax): which scheduler is meant?",
            ))
        }
        (ModelType::Smg, Opt::None) => {
            return Err(unsupported(
                "an smg property needs min or max: <<p1>> Pmax=? [ … ]",
            ))
        }
        _ => {}
    }
    // An smg property without a coalition has every player optimise alike, as in an MDP
    // (PRISM-games reads it so).
    if query.coalition.is_some() && program.model_type != ModelType::Smg {
        return Err(unsupported("<<…>> belongs to smg models"));
    }
    if query.bound.is_some() {
        return Err(unsupported(
            "queries with a bound (P>=p) are not supported yet: ask P=? and compare",
        ));
    }
    if over == OverInitial::Only && initial > 1 {
        return Err(unsupported(format!(
            "the model has {initial} initial states: ask filter(max|min|avg, …, \"init\")"
        )));
    }
    Ok(())
}

/// What every query's game starts from.
pub(crate) struct Basis {
    /// The states of φ.
    pub goal: Vec<bool>,
    /// The states of ψ (every state for `F`).
    pub allowed: Vec<bool>,
    /// The engine's player that optimises as the query says (`Max` for a maximum).
    pub player: Player,
    /// Who decides in each state (one entry where it is the same everywhere).
    pub players: Vec<Player>,
    /// In an smg, `player` and the coalition as written (`<<p1,p2>>`).
    pub coalition: Option<(Player, String)>,
}

/// How `query`'s choices resolve on `program`: an smg property without a coalition has every
/// player optimise alike, as in an MDP.
pub(crate) fn model_type(program: &Program, query: &Query) -> ModelType {
    match program.model_type {
        ModelType::Smg if query.coalition.is_none() => ModelType::Mdp,
        t => t,
    }
}
