//! `R[Fc φ]` on a stochastic game: a play that misses φ earns its total, which is +∞ when it
//! earns a positive reward infinitely often and finite when it ends up earning nothing. The
//! value is the least fixed point of the game's optimality equations (rewards are at least
//! zero), and neither rule the engine knows for an endless play gives it: the minimiser may
//! use a strategy that could keep the play going for ever when the maximiser gains nothing by
//! doing so, and the maximiser may be unable to end the play at all.
//!
//! So it is solved by strategy iteration over the strategies of the reward maximiser (the
//! coalition of an `Rmax`, the other players of an `Rmin`):
//! 1. Against the maximiser's strategy the minimiser faces a Markov decision process. Its
//!    value is zero where the minimiser can keep every reward at zero for ever
//!    ([`Game::zero_for_ever`]), +∞ where it cannot reach those states or φ with probability
//!    one (it would then earn a positive reward infinitely often with positive probability),
//!    and elsewhere the minimum expected reward to reach them, which the engine solves exactly
//!    (every strategy that does not reach them earns +∞).
//! 2. The maximiser switches a move wherever another is clearly better by those values (+∞
//!    beats every number), until none is.
//! 3. Each switch raises the values (a new cycle of zero reward through a switched state
//!    would have values below their own average), so the iteration ends. Its values then
//!    satisfy the optimality equations, so they are no less than their least fixed point,
//!    and they are what the minimiser holds one strategy of the maximiser's to, so no more
//!    than the game's value: they are the value.

use perfectplay::{Number, Player, Rat, Solver};

use crate::build::Space;
use crate::check::{Answer, OverInitial};
use crate::graph::{almost_sure_using, Predecessors, Side};
use crate::query::QueryModel;

/// The most strategies the maximiser tries before giving up (each is one solve of the space).
const MAX_ROUNDS: usize = 10_000;

/// A game's graph for the analyses of an `Fc` reward: who maximises the reward in each state,
/// each choice's reward, and the choices that may be taken.
pub struct Game<'a, F> {
    /// The state space.
    pub space: &'a Space,
    /// Its predecessor lists.
    pub pred: &'a Predecessors,
    /// Per choice, its reward (at least zero).
    pub reward: &'a [Rat],
    /// Per choice, whether it may be taken.
    pub usable: &'a [bool],
    /// Whether the reward maximiser decides at a state.
    pub is_max: F,
}

impl<F: Fn(u32) -> bool + Copy> Game<'_, F> {
    /// The `open` states from which the reward minimiser can keep every reward at zero for
    /// ever, or until a `stop` state (which ends the play): the greatest set in which each
    /// minimiser's state has a choice of zero reward, among the usable ones, and each
    /// maximiser's state only such choices (or, where `follow` fixes the maximiser's choice,
    /// that one), every outcome staying in the set or in `stop`.
    pub fn zero_for_ever(&self, stop: &[bool], open: &[bool], follow: Option<&[u32]>) -> Vec<bool> {
        let Game {
            space,
            pred,
            reward,
            usable,
            is_max,
        } = *self;
        let mut inside: Vec<bool> = open.to_vec();
        let counts = |c: usize, s: u32, inside: &[bool]| -> bool {
            let chosen = match follow {
                Some(f) if is_max(s) => f[s as usize] as usize == c,
                _ => usable[c],
            };
            chosen
                && reward[c].is_zero()
                && space
                    .outcomes_of(c)
                    .iter()
                    .all(|&(_, t)| stop[t as usize] || inside[t as usize])
        };
        let keeps = |s: u32, inside: &[bool]| -> bool {
            if is_max(s) && follow.is_none() {
                space
                    .choices_of(s)
                    .filter(|&c| usable[c])
                    .all(|c| counts(c, s, inside))
            } else {
                space.choices_of(s).any(|c| counts(c, s, inside))
            }
        };
        // A worklist: a state that drops out makes its predecessors check again.
        let n = space.len();
        let mut work: Vec<u32> = (0..n as u32).filter(|&s| inside[s as usize]).collect();
        let mut queued = inside.clone();
        while let Some(s) = work.pop() {
            queued[s as usize] = false;
            if !inside[s as usize] || keeps(s, &inside) {
                continue;
            }
            inside[s as usize] = false;
            for &c in pred.of(s) {
                let p = pred.owner[c as usize];
                if inside[p as usize] && !queued[p as usize] {
                    queued[p as usize] = true;
                    work.push(p);
                }
            }
        }
        inside
    }
}

/// The answer to an `Fc` query on a stochastic game, by this strategy iteration: in floats,
/// or exactly with `exact` (and where a float solve fails).
pub fn answer(mut model: QueryModel, over: OverInitial, exact: bool) -> Result<Answer, String> {
    /// The value at the start (`None` for +∞).
    fn at_start<N: Number>(
        model: &QueryModel,
        values: &[Option<N>],
        over: OverInitial,
    ) -> Option<N> {
        let mut init = model
            .space
            .initial
            .iter()
            .map(|&i| values[i as usize].clone());
        let first = init.next().expect("an initial state");
        // `None` (+∞) is above every number.
        let above = |a: &Option<N>, b: &Option<N>| match (a, b) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => a > b,
            _ => false,
        };
        match over {
            OverInitial::Only => first,
            OverInitial::Max => init.fold(first, |a, b| if above(&b, &a) { b } else { a }),
            OverInitial::Min => init.fold(first, |a, b| if above(&a, &b) { b } else { a }),
            OverInitial::Avg => {
                let k = model.space.initial.len() as i64;
                init.try_fold(first?, |a, b| Some(a.add(&b?)))
                    .map(|sum| sum.mul(&N::from_rat(Rat::new(1, k))))
            }
        }
    }
    let answer = |value: f64, exact: Option<String>, method, states, error_bound| Answer {
        value,
        exact,
        method,
        states,
        holds: None,
        error_bound,
    };
    if !exact {
        if let Ok(solved) = solve::<f64>(&mut model) {
            let v = at_start(&model, &solved.values, over).unwrap_or(f64::INFINITY);
            let method = if solved.error_bound > 0.0 {
                "strategy iteration, value iteration with a certified bound"
            } else {
                "strategy iteration"
            };
            return Ok(answer(v, None, method, solved.states, solved.error_bound));
        }
    }
    let solved = solve::<perfectplay::Exact>(&mut model)?;
    let v = at_start(&model, &solved.values, over);
    let value = v.as_ref().map_or(f64::INFINITY, |v| v.to_f64());
    let fraction = v.filter(|_| exact).and_then(|v| v.exact_string());
    let method = "exact strategy iteration";
    Ok(answer(value, fraction, method, solved.states, 0.0))
}

/// The values of `model` (an Fc game after its graph analyses) at every state (`None` for
/// +∞), by strategy iteration over the reward maximiser's strategies (see the module's
/// notes), with the largest certified error bound of the solves (zero when each was direct)
/// and the states solved last.
pub fn solve<N: Number>(model: &mut QueryModel) -> Result<Solved<N>, String> {
    let space = model.space;
    let n = space.len();
    let pred = Predecessors::new(space);
    let maxes: Vec<bool> = (0..n as u32)
        .map(|s| model.player_of(s) == Player::Max)
        .collect();
    let is_max = |s: u32| maxes[s as usize];
    let usable = model.usable.clone();
    let reward: Vec<Rat> = (0..space.choices.len())
        .map(|c| model.reward_of(c))
        .collect();
    let game = Game {
        space,
        pred: &pred,
        reward: &reward,
        usable: &usable,
        is_max,
    };
    let base: Vec<Option<Rat>> = (0..n).map(|s| model.fixed_value(s)).collect();
    let stop: Vec<bool> = base.iter().map(|f| f.is_some()).collect();
    let open: Vec<bool> = stop.iter().map(|f| !f).collect();
    // The maximiser starts with its first usable choice everywhere.
    let mut follow = vec![u32::MAX; n];
    for s in 0..n as u32 {
        if open[s as usize] && is_max(s) {
            follow[s as usize] = space
                .choices_of(s)
                .find(|&c| usable[c])
                .ok_or("internal: a maximiser's state without a usable choice")?
                as u32;
        }
    }
    let mut solved = Solved {
        values: Vec::new(),
        error_bound: 0.0,
        states: 0,
        rounds: 0,
    };
    while solved.rounds < MAX_ROUNDS {
        solved.rounds += 1;
        // Against the maximiser's strategy: where the minimiser can stay at zero (the value is
        // zero), and where it cannot reach that or the end with probability one (+∞).
        let zero = game.zero_for_ever(&stop, &open, Some(&follow));
        let fine: Vec<bool> = (0..n).map(|s| stop[s] || zero[s]).collect();
        let rest: Vec<bool> = fine.iter().map(|f| !f).collect();
        let choice_counts = |c: usize| {
            let s = pred.owner[c];
            usable[c] && (!is_max(s) || follow[s as usize] as usize == c)
        };
        let finite = almost_sure_using(
            space,
            &pred,
            &fine,
            &rest,
            |_| Side::Ally,
            usize::MAX,
            choice_counts,
        )
        .expect("no limit on the rounds");
        let fixed: Vec<Option<Rat>> = (0..n)
            .map(|s| if zero[s] { Some(Rat::ZERO) } else { base[s] })
            .collect();
        let spread: Vec<u32> = (0..n as u32)
            .filter(|&s| finite[s as usize] && !fine[s as usize])
            .collect();
        let solution = if spread.is_empty() {
            None
        } else {
            // The minimiser never moves where the value is +∞.
            let step_usable: Vec<bool> = (0..space.choices.len())
                .map(|c| {
                    usable[c]
                        && space
                            .outcomes_of(c)
                            .iter()
                            .all(|&(_, t)| finite[t as usize])
                })
                .collect();
            model.set_step(fixed.clone(), follow.clone(), spread, step_usable);
            let solution = Solver::new(&*model).solve::<N>();
            Some(solution.map_err(|e| {
                model.clear_step(base.clone(), usable.clone());
                e.to_string()
            })?)
        };
        if let Some(solution) = &solution {
            solved.states = solution.len();
            solved.error_bound = solved.error_bound.max(solution.stats().error_bound);
        }
        let values: Vec<Option<N>> = (0..n as u32)
            .map(|s| match (fixed[s as usize], &solution) {
                (Some(v), _) => Some(N::from_rat(v)),
                _ if !finite[s as usize] => None,
                (None, Some(solution)) => solution.value(&s).cloned(),
                (None, None) => None,
            })
            .collect();
        let worth = |c: usize| -> Option<N> {
            let mut q = N::from_rat(reward[c]);
            for &(p, t) in space.outcomes_of(c) {
                q.add_mul(
                    &N::from_rat(space.probability(p)),
                    values[t as usize].as_ref()?,
                );
            }
            Some(q)
        };
        let better = |a: &Option<N>, b: &Option<N>| match (a, b) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => N::clearly_better(a, b),
            _ => false,
        };
        let mut switched = false;
        for s in 0..n as u32 {
            if !open[s as usize] || !is_max(s) {
                continue;
            }
            let mut best = follow[s as usize] as usize;
            let mut best_worth = worth(best);
            for c in space.choices_of(s) {
                if usable[c] && c != best {
                    let w = worth(c);
                    if better(&w, &best_worth) {
                        best = c;
                        best_worth = w;
                    }
                }
            }
            if best != follow[s as usize] as usize {
                follow[s as usize] = best as u32;
                switched = true;
            }
        }
        if !switched {
            model.clear_step(base, usable);
            solved.values = values;
            return Ok(solved);
        }
    }
    model.clear_step(base, usable);
    Err(format!(
        "the maximiser's strategy still improved after {MAX_ROUNDS} rounds"
    ))
}

/// What [`solve`] found.
pub struct Solved<N> {
    /// Per state, its value; `None` for +∞.
    pub values: Vec<Option<N>>,
    /// The largest certified error bound of the solves: zero when each was direct.
    pub error_bound: f64,
    /// The states the last solve explored.
    pub states: usize,
    /// The maximiser's strategies tried.
    pub rounds: usize,
}
