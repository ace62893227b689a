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
//! DTMC has no choices to depend on the reward earned, and its exact answer needs no product
//! either way ([`chain_answer`]).
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

use crate::analysis::error::{unsupported, AnalysisError};
use perfectplay::{Exact, Model, NodeBuilder, Number, Player, Rat, Solver, Stats};

use crate::analysis::answers::Answer;
use crate::analysis::check::{Asked, Basis, OverInitial};
use crate::analysis::graph::{reach, sccs, Predecessors, Side};
use crate::analysis::prepared::{Known, Prepared};
use crate::analysis::query::{total_model, values_in, Total};
use crate::build::Space;
use crate::program::eval::CExpr;
use crate::program::Program;
use crate::syntax::ast::{Measure, ModelType, Opt, Path, Query};

/// The most states a product may have.
const MAX_PRODUCT: usize = 4_000_000;

/// The relative width of the bracket at which the level stops doubling.
const TOLERANCE: f64 = 1e-9;

/// The most units of reward a level of the product may count (a state's second half is a
/// `u32`, and a level plus one choice's reward must fit).
const MAX_UNITS: u64 = 1 << 30;

/// The first level of the cut, in units of the largest reward of a choice.
const FIRST_LEVEL: u64 = 16;

/// Why an exact answer cannot be given where the reward earned is unbounded.
pub(crate) const UNBOUNDED: &str = "R[ F0 φ ] in an MDP or a game where a play can earn without \
     bound before it reaches φ or misses it for good is bounded here by two solves of the game \
     with the reward earned, cut where it is large (a certified interval, in floating point): \
     ask for a floating-point answer";

/// A state of the product: a state of the space and the reward earned, in units; `u32::MAX`
/// for the virtual start over several initial states.
type State = (u32, u32);

/// An `R[ F0 φ ]` query on a built space as a game for perfectplay's engine: the space with
/// the reward earned so far (see the module's notes).
pub struct ZeroModel<'a> {
    space: &'a Space,
    program: &'a Program,
    /// The states of φ: the play ends there with what it earned.
    goal: Vec<bool>,
    /// The states where φ is impossible against the minimiser: the play ends there with zero.
    lost: Vec<bool>,
    /// Each choice's reward, in units.
    units: Vec<u32>,
    /// The choices a player may take (empty: all): the minimiser's that lead where the value
    /// is +∞ are left out, which changes no value where it is finite.
    usable: Vec<bool>,
    /// Units per unit of reward: the rewards' common denominator.
    unit: u64,
    /// The level where the product is cut: a play that earns this many units ends.
    cut: u32,
    /// Per state, a bound (rounded up) on what a play can still earn before φ or a state
    /// where it is lost, in the sense that matters (see the module's notes); empty before it
    /// is known.
    upper: Vec<f64>,
    /// Per state, the probability of φ when the maximiser plays for it and the minimiser
    /// against it, where it is known (empty otherwise: at least 0): a cut play's lower bound
    /// is what it earned times this.
    reach: Vec<f64>,
    /// Per state, what a cut play's upper bound takes of what it earned (empty: all of it),
    /// beside `upper`.
    rate: Vec<f64>,
    /// Whether a cut play is worth its upper bound (else its lower one).
    high: bool,
    players: Vec<Player>,
    dtmc: bool,
    initial: Vec<u32>,
    over: OverInitial,
    coalition: Option<(Player, String)>,
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
        if model.dtmc {
            return chain_answer(&model, asked.query, asked.target, asked.over);
        }
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

/// `R=?[ F0 φ ]` on a DTMC whose reward earned is unbounded, exactly, without the product:
/// the chain's value `w(s)`, the expected reward earned on the plays that reach φ, solves
/// `w(s) = Σ_c (1/k) Σ_t p(c,t) (r(c) x(t) + w(t))` (`k` commands enabled, uniformly as in
/// PRISM), where `x` is the probability of φ, and is zero at φ and where φ is impossible.
/// So it is the total reward of the chain itself until either, a choice earning its reward
/// times the probability of φ after it: `x` is solved exactly first, and the total reward
/// with those (big) rewards exactly after. Every play from a state where φ is still
/// possible ends at φ or where it is impossible, so the total is finite.
fn chain_answer(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
) -> Result<Answer, AnalysisError> {
    let (space, program) = (model.space, model.program);
    let n = space.len();
    let open: Vec<bool> = (0..n).map(|s| !model.goal[s] && !model.lost[s]).collect();
    let region = reachable(space, &model.initial, &open);
    let x = target_probability(model, query, target, over, &region)?;
    // The graph analyses fixed φ at one and the states where it is impossible at zero.
    let x_at = |t: u32| x[t as usize].clone().unwrap_or_else(Exact::zero);
    let Measure::Reward(r) = &query.what else {
        return Err(unsupported("F0 measures a reward: ask R[ F0 φ ]"));
    };
    let stop: Vec<bool> = open.iter().map(|o| !o).collect();
    let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
    let earn = crate::analysis::rewards::choice_rewards(program, space, structure, &stop)?;
    let mut weighted = vec![Rat::ZERO; space.choices.len()];
    for s in (0..n as u32).filter(|&s| region[s as usize]) {
        for c in space.choices_of(s) {
            if earn[c].is_zero() {
                continue;
            }
            let mut after = Exact::zero();
            for &(p, t) in space.outcomes_of(c) {
                after.add_mul(&Exact::from_rat(space.probability(p)), &x_at(t));
            }
            weighted[c] = Rat::from_rational(after.mul(&Exact::from_rat(earn[c])).0);
        }
    }
    let total = Total::of_chain(space, zero_at(&stop), weighted);
    let chain = total_model(space, program, total, over);
    let solution = Solver::new(&chain)
        .solve::<Exact>()
        .map_err(AnalysisError::Solve)?;
    let v = solution.start_value();
    Ok(Answer {
        value: v.to_f64(),
        exact: v.exact_string(),
        method: "exact, the reward weighted by the probability of φ after it",
        states: solution.stats().states,
        holds: None,
        error_bound: 0.0,
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

/// The rewards `reward` as whole units of their common denominator: the denominator and each
/// reward's count.
fn whole_units(reward: &[Rat]) -> Result<(u64, Vec<u32>), AnalysisError> {
    let too_fine = || {
        AnalysisError::TooLarge("R[ F0 φ ]: the rewards' common denominator is too large".into())
    };
    let mut unit: u64 = 1;
    let parts = |r: &Rat| r.parts().ok_or_else(too_fine);
    for r in reward {
        let (_, d) = parts(r)?;
        unit = unit
            .checked_mul(d / gcd(unit, d))
            .filter(|&u| u <= MAX_UNITS)
            .ok_or_else(too_fine)?;
    }
    let units = reward
        .iter()
        .map(|r| {
            let (n, d) = parts(r)?;
            (n as u64)
                .checked_mul(unit / d)
                .filter(|&u| u <= MAX_UNITS / 2)
                .map(|u| u as u32)
                .ok_or_else(|| {
                    AnalysisError::TooLarge(
                        "R[ F0 φ ]: a reward too large to count in units".into(),
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    Ok((unit, units))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The `open` states reached from `initial` through `open` states.
fn reachable(space: &Space, initial: &[u32], open: &[bool]) -> Vec<bool> {
    let mut seen = vec![false; space.len()];
    let mut stack: Vec<u32> = initial
        .iter()
        .copied()
        .filter(|&i| open[i as usize])
        .collect();
    for &s in &stack {
        seen[s as usize] = true;
    }
    while let Some(s) = stack.pop() {
        for c in space.choices_of(s) {
            for &(_, t) in space.outcomes_of(c) {
                if open[t as usize] && !seen[t as usize] {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
    }
    seen
}

/// The most units a play can earn in `region` (the open states reached), if bounded: `None`
/// where a cycle of the region earns (a choice that earns may lead back into its strongly
/// connected component).
fn most_earned(space: &Space, region: &[bool], units: &[u32]) -> Option<u64> {
    let all = vec![true; space.choices.len()];
    let comp = sccs(space, region, &all);
    let count = comp
        .iter()
        .filter(|&&c| c != u32::MAX)
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0);
    // Tarjan numbers a component after every component it leads to: ascending order visits
    // successors first.
    let mut by_comp: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (s, &c) in comp.iter().enumerate() {
        if c != u32::MAX {
            by_comp[c as usize].push(s as u32);
        }
    }
    let mut most = vec![0u64; count];
    for (k, members) in by_comp.iter().enumerate() {
        let mut best = 0u64;
        for &s in members {
            for c in space.choices_of(s) {
                for &(_, t) in space.outcomes_of(c) {
                    let after = match comp[t as usize] {
                        u32::MAX => 0,
                        tc if tc as usize == k => {
                            if units[c] > 0 {
                                return None;
                            }
                            continue;
                        }
                        tc => most[tc as usize],
                    };
                    best = best.max(units[c] as u64 + after);
                }
            }
        }
        most[k] = best;
    }
    Some(
        comp.iter()
            .zip(region)
            .filter(|(_, &r)| r)
            .map(|(&c, _)| most[c as usize])
            .max()
            .unwrap_or(0),
    )
}

/// `Ū` at every state of `region` (see the module's notes), rounded up as `f64`: the total
/// reward of `query`'s structure until `stop`, every player maximising.
fn most_to_earn(
    program: &Program,
    space: &Space,
    query: &Query,
    stop: &[bool],
    dtmc: bool,
    region: &[bool],
) -> Result<Vec<f64>, AnalysisError> {
    let mut total = query.clone();
    total.path = match &query.path {
        Path::EventuallyZero(t) => Path::EventuallyCumulative(t.clone()),
        other => other.clone(),
    };
    total.opt = Opt::Max;
    total.coalition = None;
    let basis = Basis {
        goal: stop.to_vec(),
        allowed: vec![true; space.len()],
        player: Player::Max,
        players: vec![Player::Max],
        coalition: None,
    };
    let kind = if dtmc {
        ModelType::Dtmc
    } else {
        ModelType::Mdp
    };
    // `Min` over the initial states: the start is +∞ only where every one is, and the solve
    // below starts from the region instead.
    let prepared = crate::analysis::prepared::prepare_basis(
        program,
        space,
        &total,
        basis,
        kind,
        OverInitial::Min,
        false,
    )?;
    let Prepared::Model(mut model) = prepared else {
        return Err(AnalysisError::Internal("Ū is +∞ at a finite start"));
    };
    let values = match values_in(&mut model, region) {
        Ok((values, _)) => values,
        // A pivot that vanished by rounding: the same solve exactly.
        Err(_) => values_in::<Exact>(&mut model, region)?
            .0
            .into_iter()
            .map(|v| v.as_ref().map(Exact::to_f64))
            .collect(),
    };
    (0..space.len())
        .map(|s| match (model.fixed_value(s), values[s]) {
            (Some(v), _) => Ok(v.to_f64()),
            (None, Some(v)) => Ok(v * (1.0 + 1e-9) + 1e-9),
            (None, None) if !region[s] => Ok(0.0),
            (None, None) => Err(AnalysisError::Internal(
                "no bound on the reward still to earn at a state of the region",
            )),
        })
        .collect()
}

/// The bounds on a cut play in a game where the players together could earn for ever while
/// φ is still possible (where the bound of every player maximising is +∞): per state, the
/// probability `P*` of φ (the maximiser playing for it, the minimiser against it), and the
/// rate and the rest of the upper bound. A cut play that has earned `k` is worth at least
/// `k·P*(s)`, by the maximiser's strategy for `P*`. For the upper bound the minimiser commits
/// to one strategy from the cut on, and the maximiser's best reply bounds the value:
/// - `W`, the total reward until φ or a state where it is lost when the minimiser keeps to
///   choices that keep the probability of φ least (any strategy of such choices holds it to
///   `P*`) and minimises the reward among them: worth at most `k·P*(s) + W(s)`;
/// - where `W` is +∞ (the maximiser could earn for ever against such choices), `U`, the
///   same total with the minimiser free to choose anything: at most `k + U(s)`, since φ is
///   reached with probability at most 1. The bracket then closes only as far as the
///   minimiser keeps plays from the cut.
///
/// Where `U` is +∞ too, so is the value (see [`GameBounds::infinite`]).
fn game_bounds(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
    stop: &[bool],
    region: &[bool],
) -> Result<GameBounds, AnalysisError> {
    let (space, program) = (model.space, model.program);
    let n = space.len();
    let p_star = target_probability(model, query, target, over, region)?;
    // The minimiser's choices that keep `P*`: their successors' `P*` average to the state's.
    let keeps = |s: u32, c: usize| -> bool {
        let Some(here) = &p_star[s as usize] else {
            return true;
        };
        let mut sum = Exact::zero();
        for &(p, t) in space.outcomes_of(c) {
            match &p_star[t as usize] {
                Some(v) => sum.add_mul(&Exact::from_rat(space.probability(p)), v),
                None => return true,
            }
        }
        sum == *here
    };
    let player_of = |s: u32| *model.players.get(s as usize).unwrap_or(&model.players[0]);
    let mut usable = vec![true; space.choices.len()];
    for s in (0..n as u32).filter(|&s| region[s as usize] && player_of(s) == Player::Min) {
        for c in space.choices_of(s) {
            usable[c] = keeps(s, c);
        }
    }
    // `W`: the total reward until φ or a lost state, the minimiser restricted so.
    let Measure::Reward(r) = &query.what else {
        return Err(unsupported("F0 measures a reward: ask R[ F0 φ ]"));
    };
    let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
    let earn = crate::analysis::rewards::choice_rewards(program, space, structure, stop)?;
    let (players, coalition) = (model.players.clone(), model.coalition.clone());
    let total = Total {
        fixed: zero_at(stop),
        usable,
        reward: earn,
        player: players,
        dtmc: false,
        coalition,
    };
    let mut w_model = total_model(space, program, total, OverInitial::Max);
    let restricted = crate::analysis::total::solve::<f64>(&mut w_model)?.values;
    let gaps = (0..n).any(|s| region[s] && restricted[s].is_none());
    let free = if gaps {
        w_model.usable = vec![true; space.choices.len()];
        crate::analysis::total::solve::<f64>(&mut w_model)?.values
    } else {
        Vec::new()
    };
    let mut rate = vec![0.0; n];
    let mut upper = vec![0.0; n];
    let mut infinite = vec![false; n];
    let p_star: Vec<f64> = p_star
        .iter()
        .map(|p| p.as_ref().map_or(0.0, Exact::to_f64))
        .collect();
    for s in (0..n).filter(|&s| region[s]) {
        match (restricted[s], free.get(s).copied().flatten()) {
            (Some(w), _) => (rate[s], upper[s]) = (p_star[s], w * (1.0 + 1e-9) + 1e-9),
            (None, Some(u)) => (rate[s], upper[s]) = (1.0, u * (1.0 + 1e-9) + 1e-9),
            (None, None) => infinite[s] = true,
        }
    }
    Ok(GameBounds {
        reach: p_star,
        rate,
        upper,
        infinite,
    })
}

/// What [`game_bounds`] finds, per state.
struct GameBounds {
    /// `P*`, the rate of the lower bound.
    reach: Vec<f64>,
    /// The rate of the upper bound: `P*` or 1.
    rate: Vec<f64>,
    /// The rest of the upper bound: `W` or `U`.
    upper: Vec<f64>,
    /// Where `U` is +∞, and so the value: the maximiser can earn for ever there with some
    /// probability whatever the minimiser does, and go for φ (still possible) when it likes.
    infinite: Vec<bool>,
}

/// The probability of φ (the maximiser playing for it, the minimiser against it) exactly, at
/// every state of `region` and where the graph analyses fix it (`None` elsewhere).
fn target_probability(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
    region: &[bool],
) -> Result<Vec<Option<Exact>>, AnalysisError> {
    let mut reach = query.clone();
    reach.what = Measure::Probability;
    reach.path = match &query.path {
        Path::EventuallyZero(t) => Path::Eventually(t.clone()),
        other => other.clone(),
    };
    let asked = Asked {
        program: model.program,
        space: model.space,
        query: &reach,
        through: None,
        target,
        over,
    };
    let Prepared::Model(mut p_model) = asked.prepare()? else {
        return Err(AnalysisError::Internal("a probability is +∞"));
    };
    Ok(values_in::<Exact>(&mut p_model, region)?.0)
}

/// Zero at the states of `stop`, open elsewhere: the fixed values of a total until `stop`.
fn zero_at(stop: &[bool]) -> Vec<Option<Rat>> {
    stop.iter().map(|&s| s.then_some(Rat::ZERO)).collect()
}
