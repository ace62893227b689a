//! The product of the space with the reward earned, as a game for the engine ([`ZeroModel`]).

use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::analysis::check::OverInitial;
use crate::build::Space;
use crate::program::Program;

use super::MAX_UNITS;

/// A state of the product: a state of the space and the reward earned, in units; `u32::MAX`
/// for the virtual start over several initial states.
pub(super) type State = (u32, u32);

/// An `R[ F0 φ ]` query on a built space as a game for perfectplay's engine: the space with
/// the reward earned so far (see the module's notes).
pub struct ZeroModel<'a> {
    pub(super) space: &'a Space,
    pub(super) program: &'a Program,
    /// The states of φ: the play ends there with what it earned.
    pub(super) goal: Vec<bool>,
    /// The states where φ is impossible against the minimiser: the play ends there with zero.
    pub(super) lost: Vec<bool>,
    /// Each choice's reward, in units.
    pub(super) units: Vec<u32>,
    /// The choices a player may take (empty: all): the minimiser's that lead where the value
    /// is +∞ are left out, which changes no value where it is finite.
    pub(super) usable: Vec<bool>,
    /// Units per unit of reward: the rewards' common denominator.
    pub(super) unit: u64,
    /// The level where the product is cut: a play that earns this many units ends.
    pub(super) cut: u32,
    /// Per state, a bound (rounded up) on what a play can still earn before φ or a state
    /// where it is lost, in the sense that matters (see the module's notes); empty before it
    /// is known.
    pub(super) upper: Vec<f64>,
    /// Per state, the probability of φ when the maximiser plays for it and the minimiser
    /// against it, where it is known (empty otherwise: at least 0): a cut play's lower bound
    /// is what it earned times this.
    pub(super) reach: Vec<f64>,
    /// Per state, what a cut play's upper bound takes of what it earned (empty: all of it),
    /// beside `upper`.
    pub(super) rate: Vec<f64>,
    /// Whether a cut play is worth its upper bound (else its lower one).
    pub(super) high: bool,
    pub(super) players: Vec<Player>,
    pub(super) dtmc: bool,
    pub(super) initial: Vec<u32>,
    pub(super) over: OverInitial,
    pub(super) coalition: Option<(Player, String)>,
}

impl ZeroModel<'_> {
    /// What a play cut at state `s` having earned `k` units is worth, rounded to a fraction
    /// of the engine's (below 2^47, as `setup` makes sure): at least `k` times the
    /// probability of φ, at most that plus the bound on what is still to earn.
    fn cut_worth(&self, s: u32, k: u32) -> Rat {
        const SCALE: f64 = (1u64 << 16) as f64;
        let earned = k as f64 / self.unit as f64;
        if self.high {
            let u = self.upper.get(s as usize).copied().unwrap_or(0.0);
            let p = self.rate.get(s as usize).copied();
            let x = (earned * p.map_or(1.0, |p| p * (1.0 + 1e-12)) + u) * (1.0 + 1e-12);
            Rat::new((x * SCALE).ceil() as i64 + 1, SCALE as i64)
        } else {
            let p = self.reach.get(s as usize).copied();
            let x = earned * p.unwrap_or(0.0) * (1.0 - 1e-12);
            Rat::new(((x * SCALE).floor() as i64 - 1).max(0), SCALE as i64)
        }
    }
}

impl Model for ZeroModel<'_> {
    type State = State;
    type Move = u32;

    fn start(&self) -> State {
        match self.initial[..] {
            [only] => (only, 0),
            _ => (u32::MAX, 0),
        }
    }

    fn expand(&self, &(s, k): &State, node: &mut impl NodeBuilder<State, u32>) {
        if s == u32::MAX {
            return crate::analysis::query::expand_start(&self.initial, self.over, node, |i| {
                (i, 0)
            });
        }
        let i = s as usize;
        if self.goal[i] {
            return node.terminal(Rat::new(k as i64, self.unit as i64));
        }
        if self.lost[i] {
            return node.terminal(0);
        }
        if k >= self.cut {
            return node.terminal(self.cut_worth(s, k));
        }
        let player = *self.players.get(i).unwrap_or(&self.players[0]);
        crate::analysis::query::expand_choices(
            self.space,
            s,
            self.dtmc,
            player,
            node,
            |c| self.usable.get(c).copied().unwrap_or(true),
            |_| Rat::ZERO,
            |c, t| (t, k + self.units[c]),
        );
    }

    fn show_state(&self, &(s, k): &State) -> String {
        let earned = Rat::new(k as i64, self.unit as i64);
        match s {
            u32::MAX => crate::analysis::query::INITIAL_STATES.to_string(),
            _ => format!("{}, {earned} earned", self.space.show(self.program, s)),
        }
    }

    fn show_move(&self, &m: &u32) -> String {
        crate::analysis::query::show_move(self.space, self.program, m)
    }

    /// A state as PRISM prints it, `(x=1,b=true)`, with what was earned so far after a
    /// comma, `(x=1,b=true), 5/2 earned`; nothing earned if that is left out.
    fn parse_state(&self, text: &str) -> Result<State, String> {
        let split = crate::analysis::query::split_count(text, &["earned"], "(x=1), 5/2 earned")?;
        let (state, earned) = split.unwrap_or((text, "0"));
        let s = crate::analysis::query::parse_state_or_start(
            self.space,
            self.program,
            state,
            u32::MAX,
        )?;
        let bad = || format!("'{}' is not a reward earned here", earned.trim());
        let (n, d) = earned
            .trim()
            .split_once('/')
            .unwrap_or((earned.trim(), "1"));
        let (n, d): (u64, u64) = (n.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?);
        // n/d earned is n·unit/d units, which must be whole.
        let units = n
            .checked_mul(self.unit)
            .filter(|&u| d != 0 && u % d == 0)
            .map(|u| u / d)
            .filter(|&u| u < MAX_UNITS)
            .ok_or_else(bad)?;
        Ok((s, units as u32))
    }

    fn total_name(&self) -> Option<String> {
        Some("reward if the target is reached, 0 if not".to_string())
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(crate::analysis::query::side_label(&self.coalition, player))
    }

    /// A play that never ends misses φ: it is worth zero, the least there is.
    fn endless_play_loser(&self) -> Option<Player> {
        Some(Player::Max)
    }
}
