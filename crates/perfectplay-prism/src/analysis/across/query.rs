//! The query's game over the model's states ([`AcrossModel`]): see the module [`super`].

use std::fmt::Debug;
use std::hash::Hash;

use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::analysis::check::OverInitial;
use crate::analysis::error::AnalysisError;
use crate::analysis::players::{side_of, state_owner};
use crate::analysis::query::{expand_start, INITIAL_STATES, OUTCOME};
use crate::analysis::reward_bounded::{dtmc_step_reward, Count, RewardBound};
use crate::analysis::rewards::Compiled;
use crate::build::lazy::Stepper;
use crate::build::packed::Word;
use crate::program::CExpr;

use super::{encode_packed, packed_words, MAX_STEPS};

/// A state of the query's game: the virtual start over several initial states, or a state of
/// the model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum At<K> {
    /// The choice (or the mean) over the initial states; the mean too where their range
    /// is asked, which the solve reads from the start's outcomes.
    Start,
    /// A state of the model, packed, and the steps taken so far where the query counts them
    /// (up to its last step, or, for a lower bound alone, up to the first step at which the
    /// target counts; always 0 where it does not).
    State(K, u32),
    /// A state of the model, packed, and the reward earned so far under the query's reward
    /// bound (`F^{rew{"r"}<=b} φ`).
    Counted(K, Count),
    /// Past the query's upper reward bound: no play from here is within it (worth 0).
    Passed,
}

/// A reward an R query across processes counts, which must be at least zero (`here` names
/// the state).
fn at_least_zero(total: Rat, here: impl Fn() -> String) -> Result<Rat, String> {
    match total < Rat::ZERO {
        true => Err(format!(
            "in state {}: a reward of {total}; across processes, R queries need rewards of at \
             least zero",
            here()
        )),
        false => Ok(total),
    }
}

/// Where a step leads, whatever state it reaches: the steps taken then, the reward earned
/// under a reward bound, or past that bound.
#[derive(Clone, Copy)]
enum Onward {
    Steps(u32),
    Counted(Count),
    Passed,
}

impl Onward {
    /// The game's state at the model's state `t`.
    fn to<K>(self, t: K) -> At<K> {
        match self {
            Onward::Steps(n) => At::State(t, n),
            Onward::Counted(c) => At::Counted(t, c),
            Onward::Passed => At::Passed,
        }
    }
}

/// A P query (`F`, `U`, with a step or a reward bound or none) or an R query (`F`, `C`,
/// `C<=k`, `I=k`) as a game on a model whose states are expanded when asked; see the module
/// documentation.
pub(crate) struct AcrossModel<K> {
    pub(crate) stepper: Stepper<K>,
    pub(crate) initial: Vec<K>,
    pub(crate) over: OverInitial,
    pub(crate) target: CExpr,
    pub(crate) through: Option<CExpr>,
    /// Who optimises as the query says (`Max` for a maximum).
    pub(crate) player: Player,
    /// In an smg with a coalition: its players, as a flag per player.
    pub(crate) members: Option<Vec<bool>>,
    /// Whether every state's commands are chosen uniformly (a DTMC).
    pub(crate) dtmc: bool,
    /// Whether the game is of the model's paths rather than its probabilities (for CTL's
    /// `E` and `A`): every outcome of every command is a move of [`AcrossModel::player`],
    /// so that a play is a path, and a value is 1 where some path (`player` maximising)
    /// or every path (minimising) satisfies the formula, else 0.
    pub(crate) paths: bool,
    /// For an R query, its reward structure.
    pub(crate) reward: Option<Compiled>,
    /// The last step the query looks at (`k` of `F<=k`, `C<=k`, `I=k`).
    pub(crate) steps: Option<u32>,
    /// The first step at which the target counts (`k` of `F>=k`, 1 of `X`).
    pub(crate) first: u32,
    /// Whether the reward is the state reward at the last step (`I=k`) rather than what
    /// the steps earn.
    pub(crate) instant: bool,
    /// Whether the reward is the total a play collects, endless plays included (`C`, and
    /// `Fc φ` where φ is missed), rather than +∞ wherever the target may be missed: a state
    /// that never leaves then keeps what its loop earns, for the solver to find zero or +∞.
    pub(crate) total: bool,
    /// For a P query with a reward bound (`F^{rew{"r"}<=b} φ`), the bound and the reward
    /// structure it counts: the states then count the reward earned ([`At::Counted`]).
    pub(crate) reward_bound: Option<(RewardBound, Compiled)>,
    /// Whether the query is a long-run average (`S=? [ φ ]`, with φ the target, or `R=? [ S ]`
    /// with the reward): the game is the chain itself, each step earning what the average
    /// counts ([`AcrossModel::expand_long_run`]).
    pub(crate) long_run: bool,
    /// Whether the reward counts only on plays that reach the target (`R [ F0 φ ]` on a
    /// DTMC): the game is the probability's (the target worth 1, a state that never leaves
    /// worth 0) with the reward's steps earning beside it, for a solver that weighs what each
    /// step earns by the probability of reaching from where it leads.
    pub(crate) reached_only: bool,
}

impl<K: Word + Debug + Send + Sync> AcrossModel<K> {
    /// Whether the states count the steps taken.
    fn counts_steps(&self) -> bool {
        self.steps.is_some() || self.first > 0
    }

    /// The steps taken after one more from `taken` (see [`At::State`]).
    fn next_step(&self, taken: u32) -> u32 {
        match self.steps {
            Some(_) => taken + 1,
            None => (taken + 1).min(self.first),
        }
    }

    /// The game's state at the model's initial state `s`.
    fn initial_state(&self, s: K) -> At<K> {
        match &self.reward_bound {
            None => At::State(s, 0),
            Some((bound, _)) => match bound.start() {
                Some(count) => At::Counted(s, count),
                None => At::Passed,
            },
        }
    }

    /// The query's node at the state `s`, `taken` steps in (or with the reward `count`
    /// earned under the query's reward bound), into `node`, or the reason it cannot be given.
    fn expand_state(
        &self,
        s: K,
        taken: u32,
        count: Option<Count>,
        node: &mut impl NodeBuilder<At<K>, u32>,
    ) -> Result<(), String> {
        if self.long_run {
            return self.expand_long_run(s, node);
        }
        let mut vals = Vec::new();
        self.stepper.values(&s, &mut vals);
        let here = || self.stepper.show(&s);
        let holds = |e: &CExpr| {
            e.holds(&vals)
                .map_err(|e| format!("in state {}: {e}", here()))
        };
        let counts = match (&self.reward_bound, count) {
            (Some((bound, _)), Some(count)) => bound.target_counts(count),
            _ => taken >= self.first,
        };
        // Taken where it may count, now or once a lower reward bound is met.
        let in_target = (counts || count.is_some()) && holds(&self.target)?;
        if counts && in_target {
            node.terminal(if self.reward.is_some() && !self.reached_only {
                0
            } else {
                1
            });
            return Ok(());
        }
        if let Some(psi) = &self.through {
            if !holds(psi)? {
                node.terminal(0);
                return Ok(());
            }
        }
        // What a step by a command labelled `action` earns here (zero for a probability).
        let state_reward = match &self.reward {
            Some(r) => Some(
                r.state(&vals)
                    .map_err(|e| format!("in state {}: {e}", here()))?,
            ),
            None => None,
        };
        if self.steps == Some(taken) {
            // The steps have run out: the state reward of `I=k`, else nothing.
            let at_end = match (&self.reward, state_reward) {
                (Some(_), Some(state)) if self.instant => state.rat(),
                _ => Rat::ZERO,
            };
            node.terminal(at_end);
            return Ok(());
        }
        let next = self.next_step(taken);
        // What a command labelled `action` earns of `structure` here (its state reward and
        // its transition rewards; the state reward alone for a deadlock's loop, `None`).
        let of = |structure: &Compiled, action: Option<Option<usize>>| -> Result<Rat, String> {
            let at = |e: AnalysisError| format!("in state {}: {e}", here());
            let state = structure.state(&vals).map_err(at)?;
            let total = match action {
                Some(action) => structure.transition(action, &vals, state).map_err(at)?,
                None => state,
            };
            Ok(total.rat())
        };
        let earned = |action: Option<usize>| -> Result<Rat, String> {
            let (Some(r), false) = (&self.reward, self.instant) else {
                return Ok(Rat::ZERO);
            };
            let total = of(r, Some(action))?;
            at_least_zero(total, here)
        };
        // What a step by a command labelled `action` (`None`: a deadlock's loop) earns under
        // the reward bound.
        let bounded = |structure: &Compiled, action: Option<Option<usize>>| {
            let r = of(structure, action)?;
            match r < Rat::ZERO {
                true => Err(format!(
                    "in state {}: a reward of {r}; a reward bound counts only rewards of \
                     zero or more",
                    here()
                )),
                false => Ok(r),
            }
        };
        // Where a step that earns `r` under the reward bound leads; an error where the bound
        // is more than `MAX_STEPS` such steps away, as a step bound would be.
        let after = |r: Rat| match (&self.reward_bound, count) {
            (Some((bound, _)), Some(count)) => {
                if r > Rat::ZERO && bound.value > r * Rat::from(MAX_STEPS as i64) {
                    return Err(format!(
                        "in state {}: a reward of {r} against a reward bound of {}; across \
                         processes, a reward bound is counted in the states, a round of \
                         messages a step: at most {MAX_STEPS} times a reward the model earns; \
                         check this property in one process, which takes any bound",
                        here(),
                        bound.value
                    ));
                }
                Ok(bound
                    .after(count, r)
                    .map_or(Onward::Passed, Onward::Counted))
            }
            _ => Ok(Onward::Steps(next)),
        };
        // Where a step by a command labelled `action` (`None`: a deadlock's loop) leads.
        let onward = |action: Option<Option<usize>>| -> Result<Onward, String> {
            match &self.reward_bound {
                Some((_, structure)) if count.is_some() => after(bounded(structure, action)?),
                _ => after(Rat::ZERO),
            }
        };
        // A lower reward bound not yet met, at a state of the target: a loop that earns may
        // still meet it.
        let waiting = in_target && !counts;
        self.stepper
            .expand(s, |ex| -> Result<(), String> {
                let stays = ex.dist.iter().all(|&(_, t)| t == s);
                let decided = counts || (count.is_some() && !waiting);
                if stays
                    && decided
                    && !self.total
                    && (self.steps.is_none() || self.reward.is_none())
                {
                    // It never leaves (a deadlock, or loops alone), and it is not in the
                    // target, which counts by now: a probability of zero (however many steps
                    // are left), or a reward of +∞ (with no step bound), which the solver
                    // finds from the loop.
                    match self.reward {
                        None => node.terminal(0),
                        Some(_) if self.reached_only => node.terminal(0),
                        Some(_) => {
                            node.chance();
                            node.add_outcome(OUTCOME, Rat::ONE, 0, onward(None)?.to(s));
                        }
                    }
                    return Ok(());
                }
                if ex.choices.is_empty() && (self.counts_steps() || self.total || waiting) {
                    // A deadlock, with steps still to count (before a lower bound's first
                    // step too), a total to collect or a lower reward bound still to meet:
                    // its loop, which is no command and earns no transition reward.
                    let reward = match (&self.reward, state_reward, self.instant) {
                        (Some(_), Some(state), false) => state.rat(),
                        _ => Rat::ZERO,
                    };
                    node.chance();
                    node.add_outcome(OUTCOME, Rat::ONE, reward, onward(None)?.to(s));
                    return Ok(());
                }
                if self.paths {
                    // Every step a move of `player`: a play is a path.
                    node.decision(self.player);
                    let mut m = 0;
                    for &(_, _, from, to) in &ex.choices {
                        for &(_, t) in &ex.dist[from..to] {
                            node.add_move(m, 0, At::State(t, next));
                            m += 1;
                        }
                    }
                    return Ok(());
                }
                if self.dtmc {
                    // Every enabled command alike, as in PRISM; a reward bound counts their
                    // mean reward, whichever is taken.
                    node.chance();
                    let k = ex.choices.len() as i64;
                    let step = match (&self.reward_bound, count) {
                        (Some((_, structure)), Some(_)) if k > 1 => {
                            let each = ex.choices.iter().map(|c| bounded(structure, Some(c.0)));
                            let each = each.collect::<Result<Vec<Rat>, String>>()?;
                            Some(after(dtmc_step_reward(each.into_iter()))?)
                        }
                        _ => None,
                    };
                    for &(action, _, from, to) in &ex.choices {
                        let reward = earned(action)?;
                        let onward = match step {
                            Some(step) => step,
                            None => onward(Some(action))?,
                        };
                        for (i, &(p, t)) in ex.dist[from..to].iter().enumerate() {
                            let p = if k == 1 { p } else { p * Rat::new(1, k) };
                            node.add_outcome(i as u32 | OUTCOME, p, reward, onward.to(t));
                        }
                    }
                    return Ok(());
                }
                let player = match &self.members {
                    Some(members) => {
                        let choices = ex.choices.iter().map(|&(a, m, _, _)| Some((a, m)));
                        let owner = state_owner(self.stepper.program(), choices, here)
                            .map_err(|e| e.to_string())?;
                        side_of(members, owner, self.player)
                    }
                    None => self.player,
                };
                node.decision(player);
                for (c, &(action, _, from, to)) in ex.choices.iter().enumerate() {
                    let (reward, onward) = (earned(action)?, onward(Some(action))?);
                    match ex.dist[from..to] {
                        [(_, t)] => node.add_move(c as u32, reward, onward.to(t)),
                        ref outcomes => {
                            node.add_random_move(c as u32, reward);
                            for (i, &(p, t)) in outcomes.iter().enumerate() {
                                node.add_outcome(i as u32 | OUTCOME, p, 0, onward.to(t));
                            }
                        }
                    }
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?
    }
}

impl<K: Word + Debug + Send + Sync> AcrossModel<K> {
    /// The chain's node at `s` for a long-run average: every enabled command alike, each
    /// step earning 1 in a state of the target for `S`, or the state reward and the
    /// command's transition reward for `R [ S ]` (the state reward alone on a deadlock's
    /// loop, which is no command).
    fn expand_long_run(&self, s: K, node: &mut impl NodeBuilder<At<K>, u32>) -> Result<(), String> {
        let mut vals = Vec::new();
        self.stepper.values(&s, &mut vals);
        let here = || self.stepper.show(&s);
        let at = |e: AnalysisError| format!("in state {}: {e}", here());
        // What a step by a command labelled `action` (`None`: a deadlock's loop) earns.
        let earned = |action: Option<Option<usize>>| -> Result<Rat, String> {
            let Some(r) = &self.reward else {
                let holds =
                    (self.target.holds(&vals)).map_err(|e| format!("in state {}: {e}", here()))?;
                return Ok(if holds { Rat::ONE } else { Rat::ZERO });
            };
            let state = r.state(&vals).map_err(at)?;
            let total = match action {
                Some(action) => r.transition(action, &vals, state).map_err(at)?,
                None => state,
            }
            .rat();
            // Of either sign: an average is finite whatever the signs.
            Ok(total)
        };
        self.stepper
            .expand(s, |ex| -> Result<(), String> {
                node.chance();
                if ex.choices.is_empty() {
                    node.add_outcome(OUTCOME, Rat::ONE, earned(None)?, At::State(s, 0));
                    return Ok(());
                }
                let k = ex.choices.len() as i64;
                for &(action, _, from, to) in &ex.choices {
                    let reward = earned(Some(action))?;
                    for (i, &(p, t)) in ex.dist[from..to].iter().enumerate() {
                        let p = if k == 1 { p } else { p * Rat::new(1, k) };
                        node.add_outcome(i as u32 | OUTCOME, p, reward, At::State(t, 0));
                    }
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?
    }
}

impl<K: Word + Debug + Send + Sync> Model for AcrossModel<K> {
    type State = At<K>;
    type Move = u32;

    fn start(&self) -> At<K> {
        // A start that stands for each of its states does even for one (see `model_of`).
        match self.initial[..] {
            [only] if self.over != OverInitial::Avg => self.initial_state(only),
            _ => At::Start,
        }
    }

    fn expand(&self, state: &At<K>, node: &mut impl NodeBuilder<At<K>, u32>) {
        match *state {
            At::Start => expand_start(
                &(0..self.initial.len() as u32).collect::<Vec<_>>(),
                self.over,
                node,
                |i| self.initial_state(self.initial[i as usize]),
            ),
            At::State(s, taken) => {
                if let Err(reason) = self.expand_state(s, taken, None, node) {
                    node.fail(reason);
                }
            }
            At::Counted(s, count) => {
                if let Err(reason) = self.expand_state(s, 0, Some(count), node) {
                    node.fail(reason);
                }
            }
            At::Passed => node.terminal(0),
        }
    }

    fn show_state(&self, state: &At<K>) -> String {
        match state {
            At::Start => INITIAL_STATES.to_string(),
            At::State(s, _) if !self.counts_steps() => self.stepper.show(s),
            At::State(s, taken) => format!("{}, {taken} steps taken", self.stepper.show(s)),
            At::Counted(s, Count::Earned(e)) => format!("{}, {e} earned", self.stepper.show(s)),
            At::Counted(s, Count::Met) => {
                format!("{}, the reward bound met", self.stepper.show(s))
            }
            At::Passed => "past the reward bound".to_string(),
        }
    }

    /// A play that never reaches the target is worth zero for a probability (and for a reward
    /// that counts only on plays that reach), the worst for the maximiser, and +∞ for a reward,
    /// the worst for the minimiser.
    fn endless_play_loser(&self) -> Option<Player> {
        if self.long_run {
            // Every play is endless, and its worth is its average.
            return None;
        }
        Some(match self.reward {
            Some(_) if !self.reached_only => Player::Min,
            _ => Player::Max,
        })
    }

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &At<K>, out: &mut Vec<u8>) {
        match state {
            At::Start => out.push(0),
            At::State(s, taken) => {
                encode_packed(1, s, out);
                if self.counts_steps() {
                    out.extend_from_slice(&taken.to_le_bytes());
                }
            }
            At::Counted(s, count) => {
                encode_packed(3, s, out);
                if let Count::Earned(e) = count {
                    // In lowest terms, so that a count has one encoding.
                    out.extend_from_slice(e.to_string().as_bytes());
                }
            }
            At::Passed => out.push(4),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<At<K>> {
        match bytes.split_first()? {
            (0, []) => Some(At::Start),
            (1, rest) => {
                let counter = if self.counts_steps() { 4 } else { 0 };
                if rest.len() != 8 * K::WORDS + counter {
                    return None;
                }
                let (rest, counter) = rest.split_at(8 * K::WORDS);
                let taken = match counter {
                    [] => 0,
                    c => u32::from_le_bytes(c.try_into().ok()?),
                };
                if taken > self.steps.unwrap_or(self.first) {
                    return None;
                }
                let words = packed_words(rest, K::WORDS)?;
                self.stepper
                    .is_state(&words)
                    .then(|| At::State(K::load(&words), taken))
            }
            (3, rest) => {
                let (bound, _) = self.reward_bound.as_ref()?;
                let (words, count) = rest.split_at_checked(8 * K::WORDS)?;
                let count = match count {
                    [] => Count::Met,
                    text => {
                        let e: Rat = std::str::from_utf8(text).ok()?.parse().ok()?;
                        // A count kept is at least zero, within an upper bound, short of a
                        // lower one.
                        let kept = e >= Rat::ZERO && bound.holds(e) == bound.upper();
                        (kept && e.to_string().as_bytes() == text).then_some(Count::Earned(e))?
                    }
                };
                let words = packed_words(words, K::WORDS)?;
                self.stepper
                    .is_state(&words)
                    .then(|| At::Counted(K::load(&words), count))
            }
            (4, []) => self.reward_bound.is_some().then_some(At::Passed),
            _ => None,
        }
    }
}
