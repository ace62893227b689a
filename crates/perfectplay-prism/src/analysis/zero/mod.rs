//! `R…[ F0 φ ]` where some plays reach φ and some miss it (PRISM-games: a play that never
//! reaches φ counts zero). Optimal play then depends on the reward earned so far: the more is
//! earned, the more missing φ costs, and the more a player plays for φ rather than for more
//! reward. So the game handed to the engine is the product of the space with the reward
//! earned ([`ZeroModel`]), counted in units of the rewards' common denominator: a play that
//! reaches φ pays what it earned, and one that reaches a state where the reward maximiser
//! cannot make φ possible any more pays zero (the minimiser keeps φ away from there).
//!
//! Where the reward a play can earn before it ends is bounded (no reachable cycle earns), the
//! product is finite, and its value is the answer, exactly or in floats like any other. A
//! DTMC has no choices to depend on the reward earned, and its answer needs no product at
//! all: it is solved exactly, the reward weighted by the probability of φ after it
//! ([`chain_answer`]), and given as a float where a float is asked (up to
//! [`CHAIN_IN_FLOATS`] states; a larger chain is solved the same way in floats, the
//! probabilities' error bound carried through the weighed rewards).
//!
//! Otherwise the product is cut at a level of reward, and a play that earns that much ends
//! there with a bound on its worth: at least zero, at most what it earned plus `Ū`, the most
//! any pair of strategies can still earn before φ or a state where φ is impossible (a total
//! reward with every player maximising). Those are bounds of the true value there (the reward
//! minimiser who plays to keep the probability of φ least makes the rest of the play worth at
//! most that), so the two solves bracket the value; the level doubles until the bracket is
//! tight or the product too large, and the answer is its middle, with half its width as the
//! certified error bound.
//!
//! `Ū` is +∞ where the players together can stay for ever in a cycle that earns while φ is
//! still possible. When every player maximises, that is the answer: the maximiser earns as
//! long as it likes, then plays for φ. In a game where the minimiser decides too, the value
//! can still be finite, and the bounds come from the probability `P*` of φ instead, solved
//! exactly ([`game_bounds`]): a cut play is worth at least `k·P*` and at most `k·P* + W`,
//! `W` the total reward still to earn when the minimiser keeps to choices that hold φ's
//! probability to `P*`. Where `W` is +∞ (the minimiser could stop the earning only by making
//! φ likelier), a cut play is worth at most `k + U`, `U` the same total with the minimiser
//! free. Where `U` is +∞ too, the maximiser can earn for ever whatever the minimiser does, and
//! the value is +∞ wherever it can lead there with some probability; the minimiser keeps
//! away from those states where it can, and its choices that lead there are left out.
//!
//! [`model`] is the product as a game, [`bounds`] what it needs of the space (the rewards in
//! whole units, the most a play earns, the bounds on a cut play); this module sets the
//! product up and answers from it.

use crate::analysis::error::{unsupported, AnalysisError};
use perfectplay::{Exact, Number, Player, Rat, Solver, Stats};

use crate::analysis::answers::Answer;
use crate::analysis::check::{Asked, Basis, OverInitial};
use crate::analysis::graph::{reach, reachable, Predecessors, Side};
use crate::analysis::prepared::Known;
use crate::analysis::query::{total_model, Total};
use crate::program::eval::CExpr;
use crate::syntax::ast::{Measure, ModelType, Query};

mod bounds;
mod model;

use bounds::{game_bounds, most_earned, most_to_earn, target_probability, whole_units, zero_at};
pub use model::ZeroModel;

/// The most states a product may have.
const MAX_PRODUCT: usize = 4_000_000;

/// The relative width of the bracket at which the level stops doubling.
const TOLERANCE: f64 = 1e-9;

/// The most units of reward a level of the product may count (a state's second half is a
/// `u32`, and a level plus one choice's reward must fit).
const MAX_UNITS: u64 = 1 << 30;

/// The most states of a DTMC whose float answer is its exact one ([`chain_answer`]): the
/// fractions of a larger chain with cycles may grow to many digits, and its float answer is
/// solved in floats, with the bound of the probabilities' error carried through.
const CHAIN_IN_FLOATS: usize = 50_000;

/// The first level of the cut, in units of the largest reward of a choice.
const FIRST_LEVEL: u64 = 16;

/// Why an exact answer cannot be given where the reward earned is unbounded.
pub(crate) const UNBOUNDED: &str = "R[ F0 φ ] in an MDP or a game where a play can earn without \
     bound before it reaches φ or misses it for good is bounded here by two solves of the game \
     with the reward earned, cut where it is large (a certified interval, in floating point): \
     ask for a floating-point answer";

/// What [`answer`] and [`crate::analysis_model`] start from: the product with its cut, or
/// the answer when the graph analysis decides it (+∞).
pub(crate) enum Setup<'a> {
    /// The product; `bounded` when no play can reach the cut, so that it is exact.
    Product {
        /// The game.
        model: Box<ZeroModel<'a>>,
        /// Whether the cut is beyond every play's reward.
        bounded: bool,
    },
    /// The value at the start is +∞.
    Infinite,
}

/// The product of `space` with the reward earned for `R[ F0 φ ]` (`query`, its target
/// resolved), cut beyond the most any play earns where that is bounded; where it is not, cut
/// at a first level with `Ū` computed for the bound (see the module's notes).
pub(crate) fn setup<'a>(asked: &Asked<'a, '_>) -> Result<Setup<'a>, AnalysisError> {
    let Asked {
        program,
        space,
        query,
        target,
        over,
        ..
    } = *asked;
    let Basis {
        goal,
        players,
        coalition,
        ..
    } = Asked {
        through: None,
        ..*asked
    }
    .basis()?;
    let Measure::Reward(r) = &query.what else {
        return Err(unsupported("F0 measures a reward: ask R[ F0 φ ]"));
    };
    let n = space.len();
    let dtmc = program.model_type == ModelType::Dtmc;
    let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
    let reward = crate::analysis::rewards::choice_rewards(program, space, structure, &goal)?;
    if reward.iter().any(|r| *r < Rat::ZERO) {
        return Err(AnalysisError::Reward(
            "F0 needs rewards of at least zero".into(),
        ));
    }
    let (unit, units) = whole_units(&reward)?;
    let player_of = |s: u32| *players.get(s as usize).unwrap_or(&players[0]);
    let pred = Predecessors::new(space);
    let not_goal: Vec<bool> = goal.iter().map(|g| !g).collect();
    let possible = reach(space, &pred, &goal, &not_goal, |s| {
        if dtmc {
            Side::Chance
        } else if player_of(s) == Player::Max {
            Side::Ally
        } else {
            Side::Adversary
        }
    });
    let lost: Vec<bool> = possible.iter().map(|p| !p).collect();
    let open: Vec<bool> = (0..n).map(|s| possible[s] && !goal[s]).collect();
    let mut initial: Vec<u32> = space.initial.clone();
    let mut model = ZeroModel {
        space,
        program,
        goal,
        lost,
        units,
        usable: Vec::new(),
        unit,
        cut: 0,
        upper: Vec::new(),
        reach: Vec::new(),
        rate: Vec::new(),
        high: false,
        players,
        dtmc,
        initial: Vec::new(),
        over,
        coalition,
    };
    let region = reachable(space, &initial, &open);
    if let Some(most) = most_earned(space, &region, &model.units) {
        if most < MAX_UNITS {
            model.cut = most as u32 + 1;
            model.initial = initial;
            return Ok(Setup::Product {
                model: Box::new(model),
                bounded: true,
            });
        }
    }
    // `Ū`: every player maximises the total reward until φ or a state where it is lost.
    let stop: Vec<bool> = (0..n).map(|s| !open[s]).collect();
    let earn = crate::analysis::rewards::choice_rewards(program, space, structure, &stop)?;
    let mut fixed = vec![Known::Open; n];
    let finite = crate::analysis::prepared::cumulative_finite(
        space, &pred, &stop, &earn, dtmc, true, &mut fixed,
    )?;
    let every_max = dtmc || model.players.iter().all(|&p| p == Player::Max);
    let endless = initial.iter().any(|&i| !finite[i as usize]);
    if endless && every_max {
        // Every player maximises: +∞ where such a cycle is reachable.
        let infinite: Vec<bool> = finite.iter().map(|f| !f).collect();
        if !keep_finite(&mut initial, over, &infinite) {
            return Ok(Setup::Infinite);
        }
    }
    let region = reachable(space, &initial, &open);
    if endless {
        // A game in which the players together could earn for ever: the minimiser may still
        // stop them.
        let bounds = game_bounds(&model, query, target, over, &stop, &region)?;
        (model.reach, model.rate, model.upper) = (bounds.reach, bounds.rate, bounds.upper);
        if bounds.infinite.contains(&true) {
            // +∞ wherever the maximiser can lead with some probability, whatever the
            // minimiser does; the minimiser avoids those states where it can.
            let player_of = |s: u32| *model.players.get(s as usize).unwrap_or(&model.players[0]);
            let doomed = reach(space, &pred, &bounds.infinite, &open, |s| {
                if player_of(s) == Player::Max {
                    Side::Ally
                } else {
                    Side::Adversary
                }
            });
            if !keep_finite(&mut initial, over, &doomed) {
                return Ok(Setup::Infinite);
            }
            model.usable = (0..n as u32)
                .flat_map(|s| space.choices_of(s).map(move |c| (s, c)))
                .map(|(s, c)| {
                    player_of(s) == Player::Max
                        || !space
                            .outcomes_of(c)
                            .iter()
                            .any(|&(_, t)| doomed[t as usize])
                })
                .collect();
        }
    } else {
        model.upper = most_to_earn(program, space, query, &stop, dtmc, &region)?;
    }
    // A cut play's bound (a level plus `Ū`) must fit the engine's fractions.
    if model.upper.iter().any(|&u| u >= (1u64 << 45) as f64) {
        return Err(AnalysisError::TooLarge(
            "R[ F0 φ ]: the reward a play can still earn is too large to bound".into(),
        ));
    }
    let largest = model.units.iter().copied().max().unwrap_or(1).max(1) as u64;
    model.cut = (largest * FIRST_LEVEL).clamp(64, MAX_UNITS) as u32;
    model.initial = initial;
    Ok(Setup::Product {
        model: Box::new(model),
        bounded: false,
    })
}

/// Leaves out of `initial` the states where the value is +∞ (`infinite`) when the least
/// over them is asked and some are finite; false where the answer is +∞.
fn keep_finite(initial: &mut Vec<u32>, over: OverInitial, infinite: &[bool]) -> bool {
    if !initial.iter().any(|&i| infinite[i as usize]) {
        return true;
    }
    match over {
        OverInitial::Min if !initial.iter().all(|&i| infinite[i as usize]) => {
            initial.retain(|&i| !infinite[i as usize]);
            true
        }
        _ => false,
    }
}

/// Answers `R[ F0 φ ]` (`query`, its target resolved) on `space`: exactly where the reward
/// earned is bounded (in rationals with `exact`), else as a certified interval in floats.
pub(crate) fn answer(asked: &Asked, exact: bool) -> Result<Answer, AnalysisError> {
    let (mut model, bounded) = match setup(asked)? {
        Setup::Infinite => return Ok(Answer::infinite()),
        Setup::Product { model, bounded } => (*model, bounded),
    };
    if model.dtmc {
        return chain_answer(&model, asked.query, asked.target, asked.over, exact);
    }
    if bounded {
        if exact {
            let (v, stats) = solve::<Exact>(&model)?;
            return Ok(Answer {
                value: v.to_f64(),
                exact: v.exact_string(),
                method: "exact, over the reward earned",
                states: stats.states,
                holds: None,
                error_bound: 0.0,
                listed: None,
            });
        }
        let (v, stats) = solve::<f64>(&model)?;
        return Ok(Answer {
            value: v,
            exact: None,
            method: "policy iteration over the reward earned",
            states: stats.states,
            holds: None,
            error_bound: stats.error_bound,
            listed: None,
        });
    }
    if exact {
        return Err(unsupported(UNBOUNDED));
    }
    loop {
        model.high = false;
        let (low, low_stats) = solve::<f64>(&model)?;
        model.high = true;
        let (high, high_stats) = solve::<f64>(&model)?;
        let width = (high - low).max(0.0);
        let states = low_stats.states.max(high_stats.states);
        let last = 2 * model.cut as u64 > MAX_UNITS || 2 * states > MAX_PRODUCT;
        if width <= TOLERANCE * high.abs().max(1.0) || last {
            return Ok(Answer {
                value: low + width / 2.0,
                exact: None,
                method: "bounds over the reward earned, cut where large",
                states,
                holds: None,
                error_bound: width / 2.0 + low_stats.error_bound.max(high_stats.error_bound),
                listed: None,
            });
        }
        model.cut *= 2;
    }
}

/// `R=?[ F0 φ ]` on a DTMC, exactly, without the product (which grows with the reward a
/// play earns, where that is bounded, and is cut where it is not):
/// the chain's value `w(s)`, the expected reward earned on the plays that reach φ, solves
/// `w(s) = Σ_c (1/k) Σ_t p(c,t) (r(c) x(t) + w(t))` (`k` commands enabled, uniformly as in
/// PRISM), where `x` is the probability of φ, and is zero at φ and where φ is impossible.
/// So it is the total reward of the chain itself until either, a choice earning its reward
/// times the probability of φ after it: `x` is solved exactly first, and the total reward
/// with those (big) rewards exactly after. Every play from a state where φ is still
/// possible ends at φ or where it is impossible, so the total is finite. Where a float is
/// asked (not `exact`), the exact value's nearest float, within a unit of its last place; on
/// a chain of more than [`CHAIN_IN_FLOATS`] states, the same in floats: `x` within the
/// solve's bound `g`, each weighed reward within `|r(c)| ε` (`ε` is `g` and the rounding),
/// which over a play comes to at most `ε` times the total of `|r|`, solved too.
fn chain_answer(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
    exact: bool,
) -> Result<Answer, AnalysisError> {
    let (space, program) = (model.space, model.program);
    let n = space.len();
    let open: Vec<bool> = (0..n).map(|s| !model.goal[s] && !model.lost[s]).collect();
    let region = reachable(space, &model.initial, &open);
    let Measure::Reward(r) = &query.what else {
        return Err(unsupported("F0 measures a reward: ask R[ F0 φ ]"));
    };
    let stop: Vec<bool> = open.iter().map(|o| !o).collect();
    let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
    let earn = crate::analysis::rewards::choice_rewards(program, space, structure, &stop)?;
    let earning = || {
        (0..n as u32)
            .filter(|&s| region[s as usize])
            .flat_map(|s| space.choices_of(s))
            .filter(|&c| !earn[c].is_zero())
    };
    let mut weighted = vec![Rat::ZERO; space.choices.len()];
    // The total of the chain with rewards `reward`, until φ or a state where it is
    // impossible, from the initial states as `over` takes them.
    let total = |reward: Vec<Rat>, over: OverInitial| {
        total_model(
            space,
            program,
            Total::of_chain(space, zero_at(&stop), reward),
            over,
        )
    };
    if !exact && n > CHAIN_IN_FLOATS {
        // The probability of φ in floats, within `g` everywhere. A choice's weighed reward,
        // `r(c) Σ_t p(c,t) x(t)` in floats, is then within `|r(c)| ε` of the exact one:
        // `g` from the probabilities, and the rounding of the sum of at most `k` terms (each
        // below one and a half), of the probabilities, the reward and the product.
        let (x, g) = target_probability::<f64>(model, query, target, over, &region)?;
        let mut k = 0usize;
        for c in earning() {
            let outcomes = space.outcomes_of(c);
            k = k.max(outcomes.len());
            let after: f64 = outcomes
                .iter()
                .map(|&(p, t)| space.probability(p).to_f64() * x[t as usize].unwrap_or(0.0))
                .sum();
            let product = Exact::of_float(after * earn[c].to_f64()).ok_or_else(|| {
                unsupported(
                    "R[ F0 φ ]: a reward weighted by the probability of φ overflows floating \
                     point; ask for an exact answer",
                )
            })?;
            weighted[c] = Rat::from_rational(product.0);
        }
        let unit = f64::EPSILON / 2.0;
        let epsilon = (g + (k as f64 + 4.0) * unit * (1.0 + g)) * (1.0 + 8.0 * unit);
        // The total of the rewards (at least zero: `setup` refuses others) bounds what those
        // errors come to over a play, from any initial state that `over` may take.
        let widest = match over {
            OverInitial::Only => OverInitial::Only,
            _ => OverInitial::Max,
        };
        let sizes = Solver::new(&total(earn.clone(), widest))
            .solve::<f64>()
            .map_err(AnalysisError::Solve)?;
        let spread = *sizes.start_value() + sizes.stats().error_bound;
        let solution = Solver::new(&total(weighted, over))
            .solve::<f64>()
            .map_err(AnalysisError::Solve)?;
        let error_bound = (solution.stats().error_bound + epsilon * spread) * (1.0 + 8.0 * unit);
        return Ok(Answer {
            value: *solution.start_value(),
            exact: None,
            method: "the reward weighted by the probability of φ after it, in floating point",
            states: solution.stats().states,
            holds: None,
            error_bound,
            listed: None,
        });
    }
    let (x, _) = target_probability::<Exact>(model, query, target, over, &region)?;
    // The graph analyses fixed φ at one and the states where it is impossible at zero.
    let x_at = |t: u32| x[t as usize].clone().unwrap_or_else(Exact::zero);
    for c in earning() {
        let mut after = Exact::zero();
        for &(p, t) in space.outcomes_of(c) {
            after.add_mul(&Exact::from_rat(space.probability(p)), &x_at(t));
        }
        weighted[c] = Rat::from_rational(after.mul(&Exact::from_rat(earn[c])).0);
    }
    let solution = Solver::new(&total(weighted, over))
        .solve::<Exact>()
        .map_err(AnalysisError::Solve)?;
    let v = solution.start_value();
    let value = v.to_f64();
    Ok(Answer {
        value,
        exact: v.exact_string().filter(|_| exact),
        method: "exact, the reward weighted by the probability of φ after it",
        states: solution.stats().states,
        holds: None,
        error_bound: match exact {
            true => 0.0,
            false => value.abs() * f64::EPSILON,
        },
        listed: None,
    })
}

/// The start value of the product `model` in `N`, in floats falling back to an exact solve
/// where a pivot vanishes by rounding.
fn solve<N: Number>(model: &ZeroModel) -> Result<(N, Stats), AnalysisError> {
    let too_large = |e: perfectplay::SolveError| match e {
        perfectplay::SolveError::TooManyStates { .. } => AnalysisError::TooLarge(format!(
            "R[ F0 φ ]: the game with the reward earned has more than {MAX_PRODUCT} states"
        )),
        e => AnalysisError::Solve(e),
    };
    let solution = Solver::new(model)
        .max_states(MAX_PRODUCT)
        .solve::<N>()
        .map_err(too_large)?;
    Ok((solution.start_value().clone(), solution.stats().clone()))
}
