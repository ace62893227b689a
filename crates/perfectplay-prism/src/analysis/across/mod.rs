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
//! instead ([`At::Counted`](query::At::Counted), by the rule that one process's product
//! follows, [`RewardBound::after`](crate::analysis::reward_bounded::RewardBound::after)): a
//! play past an upper bound is worth 0 ([`At::Passed`](query::At::Passed)), and under a lower
//! bound the count stops once the bound is met, from where φ counts.
//!
//! For an R query, a step earns its state's state reward and its command's transition reward
//! (rewards must be at least zero), the target is worth zero, and an endless play is worth +∞
//! against the minimiser: the solver must give that worth to the states from which the target
//! may be missed (PRISM's +∞), and a state that can never leave keeps its loop for it to find.
//! `R [ F0 φ ]` on a DTMC (a play that misses φ counts zero) is the P query's game, φ worth 1
//! and a state that never leaves 0, with the reward's steps earning beside it: its solver
//! weighs what each step earns by the probability of φ from where it leads
//! ([`AcrossModel::reached_only`](query::AcrossModel::reached_only)).
//!
//! A total (`C`, or `Fc φ`, whose play that misses φ earns its total) is the same game, but
//! the solver must first give zero to the states from which the minimiser can keep every
//! reward at zero for ever: from the others, an endless play collects a reward infinitely
//! often. A deadlock's loop there earns its state reward.
//!
//! The long run (`S=? [ φ ]`, `R=? [ S ]`, on a DTMC) is the chain itself, every step
//! earning what the average counts (1 in a φ-state for `S`; the state reward and the
//! command's transition reward for `R`, the state reward alone on a deadlock's loop): its
//! solver finds the bottom components and their averages itself.
//!
//! [`query`] is that game, [`reach`] the game that finds the states of a filter; this module
//! makes them for a resolved query and writes their states as bytes.

use std::fmt::Debug;

use perfectplay::Player;

use perfectplay::dynamic::DynModel;

use crate::analysis::check::{validate_query, OverInitial};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::players::coalition_members;
use crate::analysis::resolved::Resolved;
use crate::analysis::rewards::{reward_structure, Compiled};
use crate::build::lazy::{state_bits, Stepper};
use crate::build::packed::Word;
use crate::build::BuildError;
use crate::program::Program;
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

mod query;
mod reach;

use query::AcrossModel;
pub(crate) use reach::reach_model;

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
        long_run: matches!(query.path, Path::LongRun(_)),
        reached_only: matches!(query.path, Path::EventuallyZero(_)),
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
     step bounds or without), of F and U with a reward bound, R queries of F, Fc, C, C<=k and I=k (and F0, on a DTMC, or where \
     every play reaches the target or none can), and S and R[ S ] on DTMCs are answered, or compared with \
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
            Path::EventuallyZero(_) => {
                r.steps.is_none() && r.first == 0 && program.model_type == ModelType::Dtmc
            }
            Path::Cumulative(_) | Path::Instant(_) => r.steps.is_some(),
            Path::LongRun(None) => paths.is_none(),
            _ => false,
        },
        Measure::LongRun => matches!(r.query.path, Path::LongRun(Some(_))) && paths.is_none(),
        _ => false,
    };
    if matches!(r.query.path, Path::LongRun(_)) && program.model_type != ModelType::Dtmc {
        return Err(unsupported(crate::analysis::long_run::DTMC_ONLY));
    }
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
