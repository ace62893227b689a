//! A reward-bounded P query as a game for the engine ([`RewardBoundedModel`]): the space with
//! the reward earned so far, expanded when asked, for explain, play, strategy, distribution
//! and simulation. Its value at the start is the query's (`check` answers by epochs or by the
//! product of [`super`], which follow the same rule).
//!
//! The engine needs every play that could go on for ever decided: the graph analyses of the
//! unbounded `ψ U φ` (its model, `tail`, also plays on once a lower bound is met, as
//! [`crate::analysis::bounded::LowerModel`] does after its steps) give zero where φ cannot be
//! reached at all, which no bound changes; and under a lower bound, a state from which the
//! one who wants φ cannot make the play earn again (with positive probability, whatever the
//! other does) is worth zero while the bound is not met: its count can no longer change.
//! Every other cycle of the game earns, or leaves through φ or the bound.

use perfectplay::{Model, NodeBuilder, Player, Rat};

use super::{counted, Count, Counted, RewardBound};
use crate::analysis::bounded::PRODUCT_STATES;
use crate::analysis::check::{model_type, Asked, OverInitial};
use crate::analysis::error::AnalysisError;
use crate::analysis::graph::{reach_choice, Predecessors, Side};
use crate::analysis::prepared::{prepare_basis, Prepared};
use crate::analysis::query::{
    expand_choices, expand_start, parse_state_or_start, show_move, side_label, split_count,
    QueryModel, INITIAL_STATES,
};
use crate::build::Space;
use crate::program::Program;
use crate::syntax::ast::ModelType;

/// The virtual start over several initial states.
const START: u32 = u32::MAX;

/// Past an upper bound: no play from here is within it.
const PASSED: u32 = u32::MAX - 1;

/// A state of the game: a state of the space and the reward counted there ([`START`] and
/// [`PASSED`] aside).
type State = (u32, Count);

/// A P query with a reward bound (`F^{rew{"r"}<=b} φ`, `ψ U^{rew{"r"}>=b} φ`) on a built
/// space as a game for perfectplay's engine: each state with the reward earned so far, or
/// that a lower bound is met, as [`RewardBound::after`] counts it. Built by
/// [`crate::analysis_model`].
pub(crate) struct RewardBoundedModel<'a> {
    space: &'a Space,
    program: &'a Program,
    bound: RewardBound,
    /// What each choice earns under the bound (on a DTMC, the mean of its state's).
    reward: Vec<Rat>,
    goal: Vec<bool>,
    allowed: Vec<bool>,
    /// Who decides at each state (one entry when it is the same everywhere).
    players: Vec<Player>,
    dtmc: bool,
    over: OverInitial,
    coalition: Option<(Player, String)>,
    /// The unbounded `ψ U φ`: its graph analyses, and the game once a lower bound is met.
    tail: QueryModel<'a>,
    /// Under a lower bound, the states from which the play need never earn again (see the
    /// module's notes); empty under an upper one.
    stuck: Vec<bool>,
}

/// The game of the reward-bounded P query `asked` (its path bounded by `bound`); an error for
/// negative rewards, and (`exact`) for floating-point numbers.
pub(crate) fn model<'a>(
    asked: Asked<'a, '_>,
    bound: &RewardBound,
    exact: bool,
) -> Result<RewardBoundedModel<'a>, AnalysisError> {
    let (program, space, over) = (asked.program, asked.space, asked.over);
    let Counted {
        reward,
        plain,
        inexact,
        basis,
    } = counted(asked, bound, exact)?;
    // Each state of the space with each count a play can hold: at most the bound over the
    // least positive reward, plus one, per state.
    let least = reward.iter().filter(|r| **r > Rat::ZERO).min().copied();
    if let Some(least) = least {
        let counts = (bound.value.to_f64() / least.to_f64()).floor() + 1.0;
        if counts * space.len() as f64 > PRODUCT_STATES as f64 {
            return Err(AnalysisError::TooLarge(format!(
                "the model with the reward earned counted, which explaining or playing a \
                 reward bound solves, may have more than {PRODUCT_STATES} states (the model's \
                 states times the bound over its least reward); checking the property \
                 answers it, by backups over the model's states"
            )));
        }
    }
    let kind = model_type(program, &plain);
    let dtmc = kind == ModelType::Dtmc;
    let (goal, allowed) = (basis.goal.clone(), basis.allowed.clone());
    let (players, coalition) = (basis.players.clone(), basis.coalition.clone());
    let tail = match prepare_basis(program, space, &plain, basis, kind, over, inexact)? {
        Prepared::Model(tail) => *tail,
        Prepared::Infinite => return Err(AnalysisError::Internal("a probability is finite")),
    };
    let stuck = match bound.upper() {
        true => Vec::new(),
        false => {
            // The one who wants φ is the engine's maximiser.
            let side = |s: u32| match (dtmc, players.get(s as usize).unwrap_or(&players[0])) {
                (true, _) => Side::Chance,
                (false, Player::Max) => Side::Ally,
                (false, Player::Min) => Side::Adversary,
            };
            let earns: Vec<bool> = reward.iter().map(|r| *r > Rat::ZERO).collect();
            let pred = Predecessors::new(space);
            let earning = reach_choice(space, &pred, &earns, &allowed, side);
            earning.iter().map(|&e| !e).collect()
        }
    };
    Ok(RewardBoundedModel {
        space,
        program,
        bound: bound.clone(),
        reward,
        goal,
        allowed,
        players,
        dtmc,
        over,
        coalition,
        tail,
        stuck,
    })
}

impl RewardBoundedModel<'_> {
    /// The state at the space's state `s` before any step.
    fn first(&self, s: u32) -> State {
        match self.bound.start() {
            Some(Count::Met) => (self.tail.stands_for(s), Count::Met),
            Some(count) => (s, count),
            // `<0`: no play is within the bound.
            None => (PASSED, Count::Met),
        }
    }
}

impl Model for RewardBoundedModel<'_> {
    type State = State;
    type Move = u32;

    fn start(&self) -> State {
        match self.space.initial[..] {
            [only] => self.first(only),
            _ => (START, Count::Earned(Rat::ZERO)),
        }
    }

    fn expand(&self, &(s, count): &State, node: &mut impl NodeBuilder<State, u32>) {
        match s {
            START => {
                return expand_start(&self.space.initial, self.over, node, |i| self.first(i));
            }
            PASSED => return node.terminal(0),
            _ => {}
        }
        if count == Count::Met {
            return self.tail.expand_mapped(s, node, |t| (t, Count::Met));
        }
        let i = s as usize;
        if self.goal[i] && self.bound.target_counts(count) {
            return node.terminal(1);
        }
        let never = self.tail.fixed_value(i) == Some(Rat::ZERO);
        if !self.allowed[i] || never || self.stuck.get(i).copied().unwrap_or(false) {
            return node.terminal(0);
        }
        let player = *self.players.get(i).unwrap_or(&self.players[0]);
        expand_choices(
            self.space,
            s,
            self.dtmc,
            player,
            node,
            |_| true,
            |_| Rat::ZERO,
            |c, t| match self.bound.after(count, self.reward[c]) {
                Some(Count::Met) => (self.tail.stands_for(t), Count::Met),
                Some(count) => (t, count),
                None => (PASSED, Count::Met),
            },
        );
    }

    fn show_state(&self, &(s, count): &State) -> String {
        let state = match s {
            START => return INITIAL_STATES.to_string(),
            PASSED => return "past the reward bound".to_string(),
            s => self.space.show(self.program, s),
        };
        match count {
            Count::Earned(e) => format!("{state}, {e} earned"),
            Count::Met => format!("{state}, bound met"),
        }
    }

    fn show_move(&self, &m: &u32) -> String {
        show_move(self.space, self.program, m)
    }

    /// A state as PRISM prints it, `(x=1,b=true)`, with the reward earned after a comma as
    /// [`Model::show_state`] writes it (`(x=1), 5/2 earned`, `(x=1), bound met`); nothing
    /// earned if that is left out.
    fn parse_state(&self, text: &str) -> Result<State, String> {
        let example = "(x=1), 5/2 earned";
        if let Some((state, _)) = split_count(text, &["bound met"], example)? {
            let s = parse_state_or_start(self.space, self.program, state, START)?;
            return match (self.bound.upper(), s) {
                (_, START) => Err("the initial states have no reward earned yet".into()),
                (false, s) => Ok((self.tail.stands_for(s), Count::Met)),
                (true, _) => {
                    Err("an upper reward bound is never met: write the reward earned".into())
                }
            };
        }
        let Some((state, earned)) = split_count(text, &["earned"], example)? else {
            let s = parse_state_or_start(self.space, self.program, text, START)?;
            return Ok(if s == START {
                self.start()
            } else {
                self.first(s)
            });
        };
        let s = parse_state_or_start(self.space, self.program, state, START)?;
        let bad = || format!("'{earned}' is not a reward earned here: write a number such as 5/2");
        let e: Rat = earned.parse().map_err(|_| bad())?;
        if e < Rat::ZERO {
            return Err(bad());
        }
        if s == START {
            return Err("the initial states have no reward earned yet: name one state".into());
        }
        match self.bound.after(Count::Earned(Rat::ZERO), e) {
            Some(Count::Met) => Ok((self.tail.stands_for(s), Count::Met)),
            Some(count) => Ok((s, count)),
            None => Ok((PASSED, Count::Met)),
        }
    }

    fn total_name(&self) -> Option<String> {
        Some("target reached within the reward bound (1) or not (0)".to_string())
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(side_label(&self.coalition, player))
    }

    /// A play that never ends misses φ: it is worth zero, the least there is.
    fn endless_play_loser(&self) -> Option<Player> {
        Some(Player::Max)
    }
}
