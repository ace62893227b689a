//! A P query, or an R query of `F`, `C<=k` or `I=k`, as a game over the model's own states, expanded
//! when asked and written as bytes ([`AcrossModel`]): what a solve that holds only a share of
//! the states (the solve across processes) explores. No state space is built and no graph
//! analysis runs: a state is a packed valuation ([`crate::build::lazy`]), its node is the
//! query's at that state, and the solver that takes it decides the values by bounds that
//! close in.
//!
//! What the query model of a built space decides by graph analysis is left to that solver,
//! with two exceptions that are exact and local: a state that can never leave (a deadlock, or
//! one whose every choice loops back to it) has probability zero of reaching a target it is
//! not in (with no step bound), and a state the query decides (its target, or outside the `ψ` of `ψ U φ`) is
//! terminal.
//!
//! CTL's `E` and `A` are P queries on the game of the model's paths ([`AcrossModel::paths`]):
//! every outcome of every command a move of one player, so that a play is a path.
//!
//! A step-bounded query (`F<=k`, `F>=k`, `X`, `C<=k`, `I=k`, …) counts the steps taken in its
//! states, up to its last step (or, for a lower bound alone, up to the first step at which the
//! target counts, after which it is the unbounded query): its game is the model's states times
//! the steps, acyclic where the bound is an upper one. A deadlock's loop is no command and
//! earns its state reward alone.
//!
//! A reward-bounded query (`F^{rew{"r"}<=b} φ`, `ψ U^{rew{"r"}>=b} φ`) counts the reward earned
//! instead ([`At::Counted`], the rule of [`RewardBound::after`] that one process's product
//! follows): a play past an upper bound is worth 0 ([`At::Passed`]), and under a lower bound
//! the count stops once the bound is met, from where φ counts.
//!
//! For an R query, a step earns its state's state reward and its command's transition reward
//! (rewards must be at least zero), the target is worth zero, and an endless play is worth +∞
//! against the minimiser: the solver must give that worth to the states from which the target
//! may be missed (PRISM's +∞), and a state that can never leave keeps its loop for it to find.
//! A total (`C`, or `Fc φ`, whose play that misses φ earns its total) is the same game, but
//! the solver must first give zero to the states from which the minimiser can keep every
//! reward at zero for ever: from the others, an endless play collects a reward infinitely
//! often. A deadlock's loop there earns its state reward.

use std::fmt::Debug;
use std::hash::Hash;

use perfectplay::{Model, NodeBuilder, Player, Rat};

use perfectplay::dynamic::DynModel;

use crate::analysis::check::{validate_query, OverInitial};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::players::{coalition_members, side_of, state_owner};
use crate::analysis::query::{expand_start, INITIAL_STATES, OUTCOME};
use crate::analysis::resolved::Resolved;
use crate::analysis::reward_bounded::{Count, RewardBound};
use crate::analysis::rewards::{reward_structure, Compiled};
use crate::build::lazy::{state_bits, Stepper};
use crate::build::packed::Word;
use crate::build::BuildError;
use crate::program::{CExpr, Program};
use crate::syntax::ast::{Measure, ModelType, Opt, Path};

/// `$make::<K>($args…)` with `K` the word of packed states wide enough for `$program`'s
/// states, or the error of states wider than any.
macro_rules! by_width {
    ($program:expr, $make:ident($($arg:expr),*)) => {
        match state_bits($program) {
            0..=64 => $make::<u64>($($arg),*),
            65..=128 => $make::<u128>($($arg),*),
            129..=256 => $make::<[u64; 4]>($($arg),*),
            257..=512 => $make::<[u64; 8]>($($arg),*),
            513..=crate::build::packed::MAX_BITS => $make::<[u64; 16]>($($arg),*),
            bits => Err(AnalysisError::Build(BuildError::StateBits {
                bits,
                most: crate::build::packed::MAX_BITS,
            })),
        }
    };
}

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

/// An unbounded `F` or `U` probability, or an `F` reward, on a model whose states are expanded
/// when asked; see the module documentation.
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
            node.terminal(if self.reward.is_some() { 0 } else { 1 });
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
            match total < Rat::ZERO {
                true => Err(format!(
                    "in state {}: a reward of {total}; across processes, R queries need \
                     rewards of at least zero",
                    here()
                )),
                false => Ok(total),
            }
        };
        // Where a step by a command labelled `action` (`None`: a deadlock's loop) leads.
        let onward = |action: Option<Option<usize>>| -> Result<Onward, String> {
            let (Some((bound, structure)), Some(count)) = (&self.reward_bound, count) else {
                return Ok(Onward::Steps(next));
            };
            let r = of(structure, action)?;
            if r < Rat::ZERO {
                return Err(format!(
                    "in state {}: a reward of {r}; a reward bound counts only rewards of \
                     zero or more",
                    here()
                ));
            }
            Ok(bound
                .after(count, r)
                .map_or(Onward::Passed, Onward::Counted))
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
                    // Every enabled command alike, as in PRISM.
                    node.chance();
                    let k = ex.choices.len() as i64;
                    for &(action, _, from, to) in &ex.choices {
                        let (reward, onward) = (earned(action)?, onward(Some(action))?);
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

    /// A play that never reaches the target is worth zero for a probability, the worst for the
    /// maximiser, and +∞ for a reward, the worst for the minimiser.
    fn endless_play_loser(&self) -> Option<Player> {
        Some(match self.reward {
            None => Player::Max,
            Some(_) => Player::Min,
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

/// A query's game for a solve across processes, with the model's initial states as PRISM
/// prints them, in PRISM's order. Where the query asks about each of several (no filter over
/// them, [`OverInitial::Only`]), the game's start is a chance node over them, one outcome
/// each in that order, whose values the solve must report.
pub(crate) struct AcrossGame {
    /// The game.
    pub model: Box<dyn DynModel>,
    /// The initial states.
    pub initial: Vec<String>,
    /// Whether the start stands for each initial state (a chance node over them).
    pub each_initial: bool,
    /// The variables' values of each of the states the game starts from (the initial
    /// states, or the states found), in its order.
    pub values: Vec<Vec<i64>>,
}

/// The game of the resolved query `r` on `program`, with states packed as `K`, from the
/// model's initial states, or from the states `at` that [`reach_model`]'s exploration found;
/// a game of paths where `paths` names who chooses them (see [`AcrossModel::paths`]).
fn model_of<K: Word + Debug + Send + Sync + 'static>(
    program: Program,
    r: &Resolved,
    at: Option<&[Vec<u8>]>,
    paths: Option<Player>,
) -> Result<AcrossGame, AnalysisError> {
    let query = &r.query;
    let kind = crate::analysis::check::model_type(&program, query);
    let player = match paths {
        // The complement's query has the other player choose (as its `opt` says, but a
        // DTMC's query has none).
        Some(p) if r.complement => p.other(),
        Some(p) => p,
        None if query.opt == Opt::Max => Player::Max,
        None => Player::Min,
    };
    let members = match &query.coalition {
        Some(c) if kind == ModelType::Smg && paths.is_none() => {
            Some(coalition_members(&program, c)?)
        }
        _ => None,
    };
    let reward = match &query.what {
        Measure::Reward(structure) => Some(Compiled::new(reward_structure(
            &program,
            structure.as_ref(),
        )?)),
        _ => None,
    };
    let reward_bound = match &r.reward_bound {
        Some(bound) => {
            let structure = reward_structure(&program, bound.reward.as_ref())?;
            Some((bound.clone(), Compiled::new(structure)))
        }
        None => None,
    };
    let stepper = Stepper::<K>::new(program);
    let (initial, values) = starts(&stepper, at)?;
    // States found stand each for itself, however few: their values are asked.
    let each_initial = r.over == OverInitial::Only && (initial.len() > 1 || at.is_some());
    let over = if each_initial {
        OverInitial::Avg
    } else {
        r.over
    };
    let names = initial.iter().map(|s| stepper.show(s)).collect();
    validate_query(stepper.program(), query, over, initial.len())?;
    let model = Box::new(AcrossModel {
        stepper,
        initial,
        over,
        target: r.target.clone(),
        through: r.through.clone(),
        player,
        members,
        dtmc: kind == ModelType::Dtmc && paths.is_none(),
        paths: paths.is_some(),
        reward,
        steps: r.steps,
        first: r.first,
        instant: matches!(query.path, Path::Instant(_)),
        total: matches!(query.path, Path::Total | Path::EventuallyCumulative(_)),
        reward_bound,
    });
    Ok(AcrossGame {
        model,
        initial: names,
        each_initial,
        values,
    })
}

/// The states a game starts from, with their variables' values: the model's initial states,
/// or the states `at` that [`reach_model`]'s exploration found (as bytes), in PRISM's order.
fn starts<K: Word + Debug + Send + Sync + 'static>(
    stepper: &Stepper<K>,
    at: Option<&[Vec<u8>]>,
) -> Result<(Vec<K>, Vec<Vec<i64>>), AnalysisError> {
    let values_of = |s: &K| {
        let mut vals = Vec::new();
        stepper.values(s, &mut vals);
        vals
    };
    Ok(match at {
        None => {
            let initial = stepper.initial()?;
            let values = initial.iter().map(values_of).collect();
            (initial, values)
        }
        Some(found) => {
            let decode = |bytes: &Vec<u8>| match bytes.split_first() {
                Some((2, rest)) => packed_words(rest, K::WORDS)
                    .filter(|w| stepper.is_state(w))
                    .map(|w| K::load(&w)),
                _ => None,
            };
            let states = found.iter().map(decode).collect::<Option<Vec<K>>>();
            let states = states.ok_or(AnalysisError::Internal(
                "a state found across processes is not one of the model's",
            ))?;
            // PRISM's order: by the variables' values, the first variable first.
            let mut keyed: Vec<(Vec<i64>, K)> =
                states.into_iter().map(|s| (values_of(&s), s)).collect();
            keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let (values, states) = keyed.into_iter().unzip();
            (states, values)
        }
    })
}

/// The states a game on `program` starts from (see `starts`), as PRISM prints them, with
/// their variables' values: for a property taken in each of them that solves no query there.
pub(crate) fn states_of(
    program: Program,
    at: Option<&[Vec<u8>]>,
) -> Result<(Vec<String>, Vec<Vec<i64>>), AnalysisError> {
    fn of<K: Word + Debug + Send + Sync + 'static>(
        program: Program,
        at: Option<&[Vec<u8>]>,
    ) -> Result<(Vec<String>, Vec<Vec<i64>>), AnalysisError> {
        let stepper = Stepper::<K>::new(program);
        let (states, values) = starts(&stepper, at)?;
        Ok((states.iter().map(|s| stepper.show(s)).collect(), values))
    }
    by_width!(&program, of(program, at))
}

/// The largest step bound a query across processes may have: each step is a layer of states
/// and a round of messages.
const MAX_STEPS: u32 = 100_000;

/// What the solve across processes answers.
pub(crate) const NOT_ACROSS: &str = "across processes, P queries of F, U, X, G, W and R (with \
     step bounds or without), of F and U with a reward bound, and R queries of F, Fc, C, C<=k and I=k (and F0 where every play \
     reaches the target or none can) are answered, or compared with \
     a bound, at the initial states or under a filter (filter(op, …, states), whose states \
     are a condition over the variables and labels), with P and R queries compared with a bound \
     and CTL's E and A, alone or nested in them as state formulas, and arithmetic, \
     comparisons and rounding over such queries; check this property in one process";

/// The game of the resolved query `r` on `program` for a solve across processes (see the
/// module documentation), from the initial states, or from the states `at` that
/// [`reach_model`]'s exploration found; of the model's paths where `paths` names who chooses
/// them ([`AcrossModel::paths`], a P query only); an error for a query of another kind.
pub(crate) fn across_model(
    program: Program,
    r: &Resolved,
    at: Option<&[Vec<u8>]>,
    paths: Option<Player>,
) -> Result<AcrossGame, AnalysisError> {
    let plain = match r.query.what {
        Measure::Probability => {
            matches!(
                r.query.path,
                Path::Eventually(_)
                    | Path::Until(..)
                    | Path::Bounded { .. }
                    | Path::Next(_)
                    | Path::Now(_)
            ) || (matches!(r.query.path, Path::RewardBounded { .. }) && paths.is_none())
        }
        Measure::Reward(_) => match r.query.path {
            Path::Eventually(_) | Path::EventuallyCumulative(_) | Path::Total => {
                r.steps.is_none() && r.first == 0
            }
            Path::Cumulative(_) | Path::Instant(_) => r.steps.is_some(),
            _ => false,
        },
        _ => false,
    };
    let paths_of_rewards = paths.is_some() && r.query.what != Measure::Probability;
    if !plain || r.query.bound.is_some() || paths_of_rewards {
        return Err(unsupported(NOT_ACROSS));
    }
    if r.steps.unwrap_or(r.first).max(r.first) > MAX_STEPS {
        return Err(unsupported(format!(
            "across processes, a step bound is counted in the states, a round of messages a \
             step: at most {MAX_STEPS} steps; check this property in one process, which takes \
             any bound"
        )));
    }
    by_width!(&program, model_of(program, r, at, paths))
}

/// A state of [`ReachModel`]'s game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Reach<K> {
    /// The choice among several initial states.
    Start,
    /// A state of the model, on the way.
    At(K),
    /// A state of the model that satisfies the condition: found.
    Found(K),
}

/// The game that finds the reachable states where a condition holds (the states of a filter),
/// for an exploration across processes that collects its terminals: every state of the model
/// is a decision among its successors (probabilities play no part), and one that satisfies
/// the condition may also stop there, which is a terminal that names it. A state with no
/// successor but itself loops, so that the only terminals are the states found.
pub(crate) struct ReachModel<K> {
    stepper: Stepper<K>,
    initial: Vec<K>,
    states: Option<CExpr>,
}

impl<K: Word + Debug + Send + Sync> ReachModel<K> {
    /// State `s`'s node into `node`, or the reason it cannot be given.
    fn expand_state(&self, s: K, node: &mut impl NodeBuilder<Reach<K>, u32>) -> Result<(), String> {
        let here = || self.stepper.show(&s);
        let found = match &self.states {
            None => true,
            Some(c) => {
                let mut vals = Vec::new();
                self.stepper.values(&s, &mut vals);
                c.holds(&vals)
                    .map_err(|e| format!("in state {}: {e}", here()))?
            }
        };
        let mut next: Vec<K> = self
            .stepper
            .expand(s, |ex| {
                let mut next: Vec<K> = Vec::with_capacity(ex.dist.len());
                for &(_, t) in &ex.dist {
                    if !next.contains(&t) {
                        next.push(t);
                    }
                }
                next
            })
            .map_err(|e| e.to_string())?;
        node.decision(Player::Max);
        if found {
            node.add_move(0, 0, Reach::Found(s));
        }
        if next.is_empty() {
            next.push(s);
        }
        for (i, t) in next.into_iter().enumerate() {
            node.add_move(i as u32 + 1, 0, Reach::At(t));
        }
        Ok(())
    }
}

/// A packed state written as bytes after its tag.
fn encode_packed<K: Word>(tag: u8, s: &K, out: &mut Vec<u8>) {
    out.push(tag);
    let mut words = Vec::with_capacity(K::WORDS);
    s.store(&mut words);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// The words of a packed state written by [`encode_packed`], after its tag.
fn packed_words(rest: &[u8], words: usize) -> Option<Vec<u64>> {
    (rest.len() == 8 * words).then(|| {
        rest.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("eight bytes")))
            .collect()
    })
}

impl<K: Word + Debug + Send + Sync> Model for ReachModel<K> {
    type State = Reach<K>;
    type Move = u32;

    fn start(&self) -> Reach<K> {
        match self.initial[..] {
            [only] => Reach::At(only),
            _ => Reach::Start,
        }
    }

    fn expand(&self, state: &Reach<K>, node: &mut impl NodeBuilder<Reach<K>, u32>) {
        match *state {
            Reach::Start => {
                node.decision(Player::Max);
                for (i, &s) in self.initial.iter().enumerate() {
                    node.add_move(i as u32, 0, Reach::At(s));
                }
            }
            Reach::At(s) => {
                if let Err(reason) = self.expand_state(s, node) {
                    node.fail(reason);
                }
            }
            Reach::Found(_) => node.terminal(0),
        }
    }

    fn show_state(&self, state: &Reach<K>) -> String {
        match state {
            Reach::Start => INITIAL_STATES.to_string(),
            Reach::At(s) | Reach::Found(s) => self.stepper.show(s),
        }
    }

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &Reach<K>, out: &mut Vec<u8>) {
        match state {
            Reach::Start => out.push(0),
            Reach::At(s) => encode_packed(1, s, out),
            Reach::Found(s) => encode_packed(2, s, out),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<Reach<K>> {
        let (&tag, rest) = bytes.split_first()?;
        if tag == 0 {
            return rest.is_empty().then_some(Reach::Start);
        }
        let words = packed_words(rest, K::WORDS)?;
        if !self.stepper.is_state(&words) {
            return None;
        }
        let s = K::load(&words);
        match tag {
            1 => Some(Reach::At(s)),
            2 => Some(Reach::Found(s)),
            _ => None,
        }
    }
}

/// The game that finds the reachable states of `program` where `states` holds (every one
/// where it is `None`), for a filter across processes; see [`ReachModel`]. The terminals its
/// exploration collects are the states to give [`across_model`].
pub(crate) fn reach_model(
    program: Program,
    states: Option<CExpr>,
) -> Result<Box<dyn DynModel>, AnalysisError> {
    fn of<K: Word + Debug + Send + Sync + 'static>(
        program: Program,
        states: Option<CExpr>,
    ) -> Result<Box<dyn DynModel>, AnalysisError> {
        let stepper = Stepper::<K>::new(program);
        let initial = stepper.initial()?;
        Ok(Box::new(ReachModel {
            stepper,
            initial,
            states,
        }))
    }
    by_width!(&program, of(program, states))
}
