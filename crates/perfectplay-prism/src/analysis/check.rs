//! Checking a property on a built state space: the graph analyses decide the states whose
//! value is known (zero, one, or infinite for a reward), end components are collapsed, and the
//! rest goes to perfectplay's engine as a [`QueryModel`] whose states are the space's numbers. The
//! engine solves exactly (policy iteration with exact linear solves per component), in `f64`
//! or, with `exact`, in rationals.
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
use perfectplay::{Number, Player, Rat, Solver};

use crate::analysis::graph::{
    almost_sure, almost_sure_using, end_components, reach, Predecessors, Side,
};
use crate::analysis::query::{Few, QueryModel, OUTCOME};
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

/// The most passes the shortcut of probability one makes (see `prepare`).
const PROB1_ROUNDS: usize = 4;

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
/// [`inexact`]): its error bound counts the solve, not those numbers' rounding.
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
/// [`crate::analysis::reward_bounded`] and whose game (for explain, play and the others) is
/// not offered: never read as the unbounded path.
fn refuse_reward_bound(query: &Query) -> Result<(), AnalysisError> {
    match query.path {
        Path::RewardBounded { .. } => Err(unsupported(
            "a reward bound on a path is checked (its value at the start, in filters and \
             nested), not explained, played or solved across processes",
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

/// What the graph analysis knows of a state's value (a byte per state while it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Known {
    /// Left to the engine.
    Open,
    /// Zero.
    Zero,
    /// One (a probability).
    One,
}

impl Known {
    fn value(self) -> Option<Rat> {
        match self {
            Known::Open => None,
            Known::Zero => Some(Rat::ZERO),
            Known::One => Some(Rat::ONE),
        }
    }
}

/// A query made ready for the engine.
pub enum Prepared<'a> {
    /// The graph analysis alone decided the value: +∞.
    Infinite,
    /// The model the engine solves.
    Model(Box<QueryModel<'a>>),
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

/// [`prepare`] from a [`Basis`] given apart from the property's formulas: the query says what
/// is measured and along which path, `model_type` how choices resolve (an `Mdp` for a game
/// whose players all optimise alike), and `inexact` whether a number it depends on is
/// floating point.
pub(crate) fn prepare_basis<'a>(
    program: &'a Program,
    space: &'a Space,
    query: &Query,
    basis: Basis,
    model_type: ModelType,
    over: OverInitial,
    inexact: bool,
) -> Result<Prepared<'a>, AnalysisError> {
    let Basis {
        goal,
        allowed,
        player,
        players,
        coalition,
    } = basis;
    let n = space.len();
    let dtmc = model_type == ModelType::Dtmc;
    let smg = model_type == ModelType::Smg;
    let pred = Predecessors::new(space);
    let maximise = player == Player::Max;
    // Who resolves each state's choices, for a player who wants to reach φ.
    let side = |wants: Player| {
        let players = &players;
        move |s: u32| {
            if dtmc {
                Side::Chance
            } else if *players.get(s as usize).unwrap_or(&players[0]) == wants {
                Side::Ally
            } else {
                Side::Adversary
            }
        }
    };
    let mut fixed = vec![Known::Open; n];
    let mut usable = vec![true; space.choices.len()];
    // Per choice, its reward: empty (all zero) for a probability.
    let mut reward = Vec::new();
    // States whose value is +∞ (rewards), and the region left to the engine.
    let mut infinite = vec![false; n];
    let maybe: Vec<bool>;
    match &query.what {
        Measure::Exists | Measure::Forall => {
            return Err(AnalysisError::Internal(
                "E and A are checked on the graph (ctl.rs)",
            ))
        }
        Measure::LongRun => {
            return Err(AnalysisError::Internal(
                "the long run is answered by renewal (long_run.rs)",
            ))
        }
        Measure::Probability => {
            let not_goal_through: Vec<bool> = (0..n).map(|s| allowed[s] && !goal[s]).collect();
            // Where the probability is zero: the maximiser cannot make φ possible.
            let positive = reach(space, &pred, &goal, &not_goal_through, side(Player::Max));
            // Where it is one: the maximiser reaches φ almost surely. Only a shortcut (the
            // solve finds these values too), so it is skipped where the fixed point would
            // take more than a few passes over the space.
            let certain = almost_sure_using(
                space,
                &pred,
                &goal,
                &not_goal_through,
                side(Player::Max),
                PROB1_ROUNDS,
                |_| true,
            )
            .unwrap_or_else(|| goal.clone());
            for s in 0..n {
                if certain[s] {
                    fixed[s] = Known::One;
                } else if !positive[s] {
                    fixed[s] = Known::Zero;
                }
            }
            maybe = (0..n).map(|s| fixed[s] == Known::Open).collect();
        }
        Measure::Reward(r) => {
            let cumulative = match query.path {
                Path::Eventually(_) => false,
                Path::EventuallyCumulative(_) | Path::Total => true,
                _ => {
                    return Err(unsupported(
                        "reward queries ask R=? [ F φ ], [ Fc φ ] or [ C ]",
                    ))
                }
            };
            let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
            let not_goal: Vec<bool> = goal.iter().map(|g| !g).collect();
            // Every choice's reward (state and transition rewards) outside φ.
            reward = crate::analysis::rewards::choice_rewards(program, space, structure, &goal)?;
            // `F`: finite where the minimiser reaches φ with probability one. `Fc`: a play
            // that misses φ earns its total, finite only if it ends up where nothing is
            // earned any more (see `cumulative_finite`).
            let finite = if cumulative && smg {
                // Decided by the strategy iteration (`crate::analysis::total`).
                total_game_zero(space, &pred, &goal, &reward, &players, &mut fixed)?;
                vec![true; n]
            } else if cumulative {
                cumulative_finite(space, &pred, &goal, &reward, dtmc, maximise, &mut fixed)?
            } else {
                almost_sure(space, &pred, &goal, &not_goal, side(Player::Min))
            };
            for s in 0..n {
                if goal[s] {
                    fixed[s] = Known::Zero;
                } else if !finite[s] {
                    infinite[s] = true;
                }
            }
            for c in 0..space.choices.len() {
                // A choice that may lead where the reward is +∞ is never the minimum.
                if space
                    .outcomes_of(c)
                    .iter()
                    .any(|&(_, t)| infinite[t as usize])
                {
                    usable[c] = false;
                }
            }
            maybe = (0..n)
                .map(|s| fixed[s] == Known::Open && !infinite[s])
                .collect();
        }
    }
    let start_infinite = match over {
        OverInitial::Only => infinite[space.initial[0] as usize],
        OverInitial::Max | OverInitial::Avg => space.initial.iter().any(|&i| infinite[i as usize]),
        OverInitial::Min => space.initial.iter().all(|&i| infinite[i as usize]),
    };
    if start_infinite {
        return Ok(Prepared::Infinite);
    }
    // End components in the undecided region: a scheduler could stay in one for ever, which
    // no strategy that ends the play does. For a probability every such component is
    // collapsed (staying is worth zero, no more than leaving); for a reward, those whose
    // choices earn nothing (staying costs nothing but never reaches φ).
    let mut rep: Vec<u32> = (0..n as u32).collect();
    let mut members = rustc_hash::FxHashMap::default();
    if !dtmc && !smg {
        let inside: Vec<bool> = (0..space.choices.len())
            .map(|c| {
                usable[c]
                    && match query.what {
                        Measure::Reward(_) => reward[c].is_zero(),
                        _ => true,
                    }
            })
            .collect();
        let comps = end_components(space, &pred, &maybe, &inside);
        if !comps.is_empty() {
            for comp in &comps {
                let head = comp[0];
                for &s in comp {
                    rep[s as usize] = head;
                }
            }
            for comp in comps {
                let head = comp[0] as usize;
                // The component's choices that stay inside are dropped: what is left are
                // its exits.
                for &s in &comp {
                    for c in space.choices_of(s) {
                        if inside[c]
                            && space
                                .outcomes_of(c)
                                .iter()
                                .all(|&(_, t)| rep[t as usize] == rep[head])
                        {
                            usable[c] = false;
                        }
                    }
                }
                if !comp.iter().any(|&s| space.choices_of(s).any(|c| usable[c])) {
                    // No exit: the play stays for ever, never reaching φ, and earns nothing
                    // more (for a reward, only `Fc` leaves such a component finite).
                    fixed[head] = Known::Zero;
                    if matches!(query.path, Path::Eventually(_))
                        && matches!(query.what, Measure::Reward(_))
                    {
                        return Err(AnalysisError::Internal(
                            "an end component without exit in the finite region",
                        ));
                    }
                }
                members.insert(head as u32, comp);
            }
        }
    }
    let start = if over == OverInitial::Only {
        rep[space.initial[0] as usize]
    } else {
        n as u32
    };
    // The least over initial states passes over those at +∞ (some are finite: checked above).
    let finite_starts = (over == OverInitial::Min
        && space.initial.iter().any(|&i| infinite[i as usize]))
    .then(|| {
        space
            .initial
            .iter()
            .copied()
            .filter(|&i| !infinite[i as usize])
            .collect()
    });
    if members.is_empty() {
        // Every state stands for itself.
        rep = Vec::new();
    }
    let model = QueryModel {
        space,
        program,
        rep,
        members,
        fixed: Few::of(fixed.into_iter().map(Known::value)),
        usable,
        reward: if reward.is_empty() {
            Few::of(std::iter::repeat_n(Some(Rat::ZERO), space.choices.len()))
        } else {
            Few::of(reward.into_iter().map(Some))
        },
        player: players,
        dtmc,
        endless: match query.what {
            Measure::Reward(_) => Player::Min,
            _ => Player::Max,
        },
        start,
        over,
        finite_starts,
        total: match query.what {
            Measure::Reward(_) => "reward",
            _ => "target reached (1) or not (0)",
        },
        coalition,
        total_game: smg && matches!(query.path, Path::EventuallyCumulative(_) | Path::Total),
        inexact,
        step: None,
    };
    Ok(Prepared::Model(Box::new(model)))
}

/// `R[Fc φ]` on a DTMC or an MDP (rewards of at least zero): where the value is finite, with
/// the states that earn nothing more for ever fixed at zero in `fixed`.
///
/// A play that misses φ earns its total, which is +∞ when it stays in an end component with a
/// positive reward (a bottom component of a DTMC). So the maximiser's value is +∞ where it can
/// reach one with positive probability; the minimiser's is finite where it can reach, with
/// probability one, φ or an end component of zero-reward choices, where it then stays (worth
/// zero); a DTMC's is +∞ where a positive bottom component is reachable, and zero in the
/// others.
pub(crate) fn cumulative_finite(
    space: &Space,
    pred: &Predecessors,
    goal: &[bool],
    reward: &[Rat],
    dtmc: bool,
    maximise: bool,
    fixed: &mut [Known],
) -> Result<Vec<bool>, AnalysisError> {
    let n = space.len();
    if reward.iter().any(|r| *r < Rat::ZERO) {
        return Err(AnalysisError::Reward(
            "Fc needs rewards of at least zero".into(),
        ));
    }
    let not_goal: Vec<bool> = goal.iter().map(|g| !g).collect();
    let choice_inside = |c: usize, members: &[bool]| {
        space
            .outcomes_of(c)
            .iter()
            .all(|&(_, t)| members[t as usize])
    };
    // The end components outside φ; in a DTMC only those closed under every choice (its
    // bottom components), since chance takes every choice.
    let all = vec![true; space.choices.len()];
    let mut positive = vec![false; n];
    let mut zero = vec![false; n];
    for comp in end_components(space, pred, &not_goal, &all) {
        let mut members = vec![false; n];
        for &s in &comp {
            members[s as usize] = true;
        }
        let closed = comp
            .iter()
            .all(|&s| space.choices_of(s).all(|c| choice_inside(c, &members)));
        if dtmc && !closed {
            continue;
        }
        let earns = comp.iter().any(|&s| {
            space
                .choices_of(s)
                .any(|c| choice_inside(c, &members) && reward[c] > Rat::ZERO)
        });
        for &s in &comp {
            if earns {
                positive[s as usize] = true;
            } else if dtmc {
                zero[s as usize] = true;
            }
        }
    }
    if !dtmc && !maximise {
        // Where the minimiser can stay for ever without earning.
        let free: Vec<bool> = (0..space.choices.len())
            .map(|c| reward[c] == Rat::ZERO)
            .collect();
        for comp in end_components(space, pred, &not_goal, &free) {
            for s in comp {
                zero[s as usize] = true;
            }
        }
    }
    for s in 0..n {
        if zero[s] {
            fixed[s] = Known::Zero;
        }
    }
    Ok(if dtmc || maximise {
        let side = |_: u32| if dtmc { Side::Chance } else { Side::Ally };
        let doomed = reach(space, pred, &positive, &not_goal, side);
        doomed.iter().map(|d| !d).collect()
    } else {
        let stop: Vec<bool> = (0..n).map(|s| goal[s] || zero[s]).collect();
        almost_sure(space, pred, &stop, &not_goal, |_| Side::Ally)
    })
}

/// `R[Fc φ]` on a stochastic game (rewards of at least zero): the states where the minimiser
/// can keep every reward at zero for ever, whatever the maximiser does, are fixed at zero in
/// `fixed` (the rest is [`crate::analysis::total`]'s).
fn total_game_zero(
    space: &Space,
    pred: &Predecessors,
    goal: &[bool],
    reward: &[Rat],
    players: &[Player],
    fixed: &mut [Known],
) -> Result<(), AnalysisError> {
    if reward.iter().any(|r| *r < Rat::ZERO) {
        return Err(AnalysisError::Reward(
            "Fc needs rewards of at least zero".into(),
        ));
    }
    let usable = vec![true; space.choices.len()];
    let game = crate::analysis::total::Game {
        space,
        pred,
        reward,
        usable: &usable,
        is_max: |s: u32| *players.get(s as usize).unwrap_or(&players[0]) == Player::Max,
    };
    let open: Vec<bool> = goal.iter().map(|g| !g).collect();
    let zero = game.zero_for_ever(goal, &open, None);
    for s in 0..space.len() {
        if zero[s] {
            fixed[s] = Known::Zero;
        }
    }
    Ok(())
}
