//! The graph analyses of a query and the model they leave to the engine: the states whose
//! value is known (zero, one, or +∞ for a reward) found by the graph alone (probability 0 and
//! 1, against an adversary in a game), end components collapsed, and the rest handed over as
//! a [`QueryModel`] over the space's numbers; [`crate::analysis::check`] asks for it and solves.

use crate::analysis::check::{Basis, OverInitial};
use crate::analysis::error::{unsupported, AnalysisError};
use perfectplay::{Player, Rat};

use crate::analysis::graph::{
    almost_sure, almost_sure_using, end_components, reach, Predecessors, Side,
};
use crate::analysis::query::{Few, QueryModel};
use crate::build::Space;
use crate::program::Program;
use crate::syntax::ast::{Measure, ModelType, Path, Query};

/// The most passes the shortcut of probability one makes (see `prepare`).
const PROB1_ROUNDS: usize = 4;

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

/// [`crate::analysis::check::Asked::prepare`] from a [`Basis`] given apart from the property's formulas: the query says what
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
