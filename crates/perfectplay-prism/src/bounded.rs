//! Step-bounded queries: `P…[ F<=k φ ]` and `P…[ ψ U<=k φ ]` (reaching φ within `k` steps,
//! through ψ-states), `R…[ C<=k ]` (the reward of the first `k` steps) and `R…[ I=k ]` (the
//! state reward at step `k`). The game handed to the engine is the product of the space with
//! the steps left ([`BoundedModel`]): acyclic, since every step spends one, so the engine
//! solves it by one backward pass, exactly or in floats.

use perfectplay::{Model, NodeBuilder, Number, Player, Rat, Solver};

use crate::ast::{Measure, ModelType, Path, Query};
use crate::build::Space;
use crate::check::{Answer, OverInitial};
use crate::eval::CExpr;
use crate::program::Program;

/// A state of the product: a state of the space and the steps left; `u32::MAX` for the
/// virtual start over several initial states.
type State = (u32, u32);

/// A step-bounded query on a built space as a game for perfectplay's engine: the space with
/// the steps left. Built by [`crate::analysis_model`] for explain, play, strategy and
/// distribution; `check` solves it for the value.
pub struct BoundedModel<'a> {
    space: &'a Space,
    program: &'a Program,
    goal: Vec<bool>,
    allowed: Vec<bool>,
    /// Each choice's reward (`C<=k`); empty for none.
    reward: Vec<Rat>,
    /// Each state's reward when the steps run out (`I=k`); empty for none.
    instant: Vec<Rat>,
    /// Who decides at each state (one entry when it is the same everywhere).
    players: Vec<Player>,
    dtmc: bool,
    steps: u32,
    /// The first step at which φ counts (`a` of `F[a,b]`, 1 for `X φ`).
    first: u32,
    over: OverInitial,
    /// The engine's player that is the coalition of an smg, and the coalition as written.
    coalition: Option<(Player, String)>,
    /// What a play's total is.
    total: &'static str,
    /// Whether a number it depends on is floating point (see [`crate::eval::CExpr::Inexact`]).
    inexact: bool,
}

impl Model for BoundedModel<'_> {
    type State = State;
    type Move = u32;

    fn start(&self) -> State {
        match self.space.initial[..] {
            [only] => (only, self.steps),
            _ => (u32::MAX, self.steps),
        }
    }

    fn expand(&self, &(s, left): &State, node: &mut impl NodeBuilder<State, u32>) {
        if s == u32::MAX {
            // The virtual start: the initial states, aggregated as the filter says.
            return crate::query::expand_start(&self.space.initial, self.over, node, |i| (i, left));
        }
        let i = s as usize;
        if self.goal[i] && self.steps - left >= self.first {
            return node.terminal(1);
        }
        if !self.allowed[i] {
            return node.terminal(0);
        }
        if left == 0 {
            return node.terminal(self.instant.get(i).copied().unwrap_or(Rat::ZERO));
        }
        let reward = |c: usize| self.reward.get(c).copied().unwrap_or(Rat::ZERO);
        let player = *self.players.get(i).unwrap_or(&self.players[0]);
        crate::query::expand_choices(
            self.space,
            s,
            self.dtmc,
            player,
            node,
            |_| true,
            reward,
            |_, t| (t, left - 1),
        );
    }

    fn show_state(&self, &(s, left): &State) -> String {
        match s {
            u32::MAX => format!("the initial states, {left} steps left"),
            _ => format!("{}, {left} steps left", self.space.show(self.program, s)),
        }
    }

    fn show_move(&self, &m: &u32) -> String {
        crate::query::show_move(self.space, self.program, m)
    }

    /// A state as PRISM prints it, `(x=1,b=true)`, with every step of the bound left.
    fn parse_state(&self, text: &str) -> Result<State, String> {
        Ok((self.space.parse_state(self.program, text)?, self.steps))
    }

    fn total_name(&self) -> Option<String> {
        Some(self.total.to_string())
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(crate::query::side_label(&self.coalition, player))
    }
}

/// The steps a step-bounded query looks at: up to `last`, its target counting from `first`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    /// The last step (`k` of `<=k`, `b` of `[a,b]`).
    pub last: u32,
    /// The first step at which the target counts (`a` of `[a,b]`, 1 for `X`, else 0).
    pub first: u32,
}

/// The product of `space` with the steps left for the step-bounded `query`, its state
/// formulas resolved.
pub(crate) fn model<'a>(
    program: &'a Program,
    space: &'a Space,
    query: &Query,
    through: Option<&CExpr>,
    target: &CExpr,
    over: OverInitial,
    bound: Steps,
) -> Result<BoundedModel<'a>, String> {
    let crate::check::Basis {
        goal,
        allowed,
        players,
        coalition,
        ..
    } = crate::check::basis(program, space, query, through, target, over)?;
    let (mut reward, mut instant) = (Vec::new(), Vec::new());
    if let Measure::Reward(r) = &query.what {
        let structure = crate::rewards::reward_structure(program, r.as_ref())?;
        match query.path {
            Path::Cumulative(_) => {
                reward = crate::rewards::choice_rewards(
                    program,
                    space,
                    structure,
                    &vec![false; space.len()],
                )?
            }
            Path::Instant(_) => instant = crate::rewards::state_rewards(program, space, structure)?,
            _ => return Err("a reward query takes F φ, Fc φ, F0 φ, C, C<=k or I=k".into()),
        }
    }

    Ok(BoundedModel {
        space,
        program,
        goal,
        allowed,
        reward,
        instant,
        players,
        dtmc: program.model_type == ModelType::Dtmc,
        steps: bound.last,
        first: bound.first,
        over,
        coalition,
        total: match (&query.what, &query.path) {
            (Measure::Probability, _) => "target reached in time (1) or not (0)",
            (_, Path::Instant(_)) => "reward at the last step",
            _ => "reward over the steps",
        },
        inexact: crate::check::inexact(program, query, through, target),
    })
}

/// The value of the step-bounded `query` at the start: the probability of reaching `target`
/// within `steps` steps through `through`-states, or the reward of `C<=k` or `I=k`, optimised
/// as `query` says; `exact` solves in rationals.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check(
    program: &Program,
    space: &Space,
    query: &Query,
    through: Option<&CExpr>,
    target: &CExpr,
    over: OverInitial,
    steps: Steps,
    exact: bool,
) -> Result<Answer, String> {
    let model = model(program, space, query, through, target, over, steps)?;
    let inexact = model.inexact;
    if exact && inexact {
        return Err(crate::check::INEXACT.into());
    }
    let method = match inexact {
        true => "backward induction over the steps, from floating-point inputs",
        false => "backward induction over the steps",
    };
    if exact {
        let (v, stats) = Solver::new(&model)
            .exact_start_value()
            .map_err(|e| e.to_string())?;
        return Ok(Answer {
            value: v.to_f64(),
            exact: v.exact_string(),
            method,
            states: stats.states,
            holds: None,
            error_bound: 0.0,
        });
    }
    let (v, stats) = Solver::new(&model)
        .start_value::<f64>()
        .map_err(|e| e.to_string())?;
    Ok(Answer {
        value: v,
        exact: None,
        method,
        states: stats.states,
        holds: None,
        error_bound: stats.error_bound,
    })
}
