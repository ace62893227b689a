//! What the product needs to know of the space: the rewards in whole units, the most a play
//! can earn, and the bounds on the worth of a play cut at a level of reward.

use crate::analysis::error::{unsupported, AnalysisError};
use perfectplay::{Exact, Number, Player, Rat};

use crate::analysis::check::{Asked, Basis, OverInitial};
use crate::analysis::graph::sccs;
use crate::analysis::prepared::Prepared;
use crate::analysis::query::{total_model, values_in, Total};
use crate::build::Space;
use crate::program::eval::CExpr;
use crate::program::Program;

use super::model::ZeroModel;
use super::MAX_UNITS;
use crate::syntax::ast::{Measure, ModelType, Opt, Path, Query};

/// The rewards `reward` as whole units of their common denominator: the denominator and each
/// reward's count.
pub(super) fn whole_units(reward: &[Rat]) -> Result<(u64, Vec<u32>), AnalysisError> {
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

pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The most units a play can earn in `region` (the open states reached), if bounded: `None`
/// where a cycle of the region earns (a choice that earns may lead back into its strongly
/// connected component).
pub(super) fn most_earned(space: &Space, region: &[bool], units: &[u32]) -> Option<u64> {
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
pub(super) fn most_to_earn(
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
pub(super) fn game_bounds(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
    stop: &[bool],
    region: &[bool],
) -> Result<GameBounds, AnalysisError> {
    let (space, program) = (model.space, model.program);
    let n = space.len();
    let (p_star, _) = target_probability::<Exact>(model, query, target, over, region)?;
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
pub(super) struct GameBounds {
    /// `P*`, the rate of the lower bound.
    pub(super) reach: Vec<f64>,
    /// The rate of the upper bound: `P*` or 1.
    pub(super) rate: Vec<f64>,
    /// The rest of the upper bound: `W` or `U`.
    pub(super) upper: Vec<f64>,
    /// Where `U` is +∞, and so the value: the maximiser can earn for ever there with some
    /// probability whatever the minimiser does, and go for φ (still possible) when it likes.
    pub(super) infinite: Vec<bool>,
}

/// The probability of φ (the maximiser playing for it, the minimiser against it) in `N`, at
/// every state of `region` and where the graph analyses fix it (`None` elsewhere), with the
/// solve's bound on every value's error (zero in exact arithmetic).
pub(super) fn target_probability<N: perfectplay::Number>(
    model: &ZeroModel,
    query: &Query,
    target: &CExpr,
    over: OverInitial,
    region: &[bool],
) -> Result<(Vec<Option<N>>, f64), AnalysisError> {
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
    values_in::<N>(&mut p_model, region)
}

/// Zero at the states of `stop`, open elsewhere: the fixed values of a total until `stop`.
pub(super) fn zero_at(stop: &[bool]) -> Vec<Option<Rat>> {
    stop.iter().map(|&s| s.then_some(Rat::ZERO)).collect()
}
