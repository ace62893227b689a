//! The long run of a DTMC: PRISM's `S=? [ φ ]`, the long-run fraction of steps spent in
//! φ-states, and `R=? [ S ]`, the long-run average reward per step (a state's reward and the
//! transition reward of the step taken from it).
//!
//! A finite chain ends up, almost surely, in one of its bottom strongly connected components
//! and stays there, in each of its states a fixed fraction of the time (the component's
//! stationary distribution, the average over the steps for a periodic component, as PRISM
//! computes it). So the long-run average is a number `g(B)` per bottom component `B`, and the
//! value at a state is `Σ_B P(B is reached)·g(B)`: the total of a chain that ends on entering
//! a bottom component and is paid `g(B)` there. That is a query's model like any other, the
//! bottom states fixed at their `g`, which the engine solves in floats or exactly
//! ([`model`]).
//!
//! `g(B)` comes from renewal ([`averages`]): from a state `s0` of `B`, a cycle back to `s0`
//! earns `R` on average in `L` steps on average, and `g(B) = R / L`. Both are totals until
//! `s0` of the chain inside `B`, solved for every bottom component at once (each `s0` fixed at
//! zero, the rest of `B` open), and then taken one step from `s0`: exactly in rationals, or
//! in floats as a graph for the engine whose every value comes with its own certified bound.
//! Then `R` and `L` carry those bounds, and `g`'s (the division's rounding included) is
//! added to the answer's: the value is a weighted average of the `g`s.

use perfectplay::{Bounded, Exact, Number, Rat};

use crate::analysis::answers::Answer;
use crate::analysis::check::{solve_start, Asked, OverInitial, Solve};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::graph::sccs;
use crate::analysis::query::{total_model, values_in, QueryModel, Total};
use crate::build::Space;
use crate::program::eval::CExpr;
use crate::program::Program;
use crate::syntax::ast::{Measure, ModelType, Query};

/// Why a model other than a DTMC is refused.
pub(crate) const DTMC_ONLY: &str =
    "S and R[ S ] (long-run averages) are answered on DTMCs, as in PRISM";

/// Why explain, play, strategy and distribution refuse the long run.
pub(crate) const NO_GAME: &str = "S and R[ S ] are long-run averages, which no play ends \
     with: check answers them";

/// Answers `S=? [ φ ]` (`target` φ) or `R=? [ S ]` on `space`, over the initial states as
/// `over` takes them; `exact` solves in rationals.
pub(crate) fn answer(asked: &Asked, exact: bool) -> Result<Answer, AnalysisError> {
    let (model, error) = model(asked, exact)?;
    let mut answer = solve_start(&model, exact, usize::MAX, |how| match how {
        Solve::Direct => "long-run averages by renewal, policy iteration",
        Solve::Iterated => "long-run averages by renewal, value iteration with a certified bound",
        Solve::Exact => "exact, long-run averages by renewal",
    })?;
    if answer.exact.is_none() {
        answer.error_bound += error;
    }
    Ok(answer)
}

/// The chain that ends on entering a bottom component, paid the component's long-run average
/// of `query`'s measure there, over the initial states as `over` takes them; and a bound on
/// the error of those averages (zero with `exact`, where they are solved in rationals).
pub(crate) fn model<'a>(
    asked: &Asked<'a, '_>,
    exact: bool,
) -> Result<(QueryModel<'a>, f64), AnalysisError> {
    let (program, space, query) = (asked.program, asked.space, asked.query);
    let (target, over) = (asked.target, asked.over);
    if program.model_type != ModelType::Dtmc {
        return Err(unsupported(DTMC_ONLY));
    }
    crate::analysis::check::validate(program, space, query, over)?;
    let reward = step_rewards(program, space, query, target)?;
    let bottom = Bottoms::of(space);
    let (g, error) = if exact {
        let (earned, steps) = exact_totals(program, space, &bottom, &reward)?;
        let g = averages(space, &bottom, &reward, &earned, &steps)?;
        let g: Vec<Rat> = g.into_iter().map(|v| Rat::from_rational(v.0)).collect();
        (g, 0.0)
    } else {
        let (earned, steps) = float_totals(space, &bottom, &reward)?;
        let g = averages(space, &bottom, &reward, &earned, &steps)?;
        let error = g
            .iter()
            .map(|v| Bounded::bound(v.radius))
            .fold(0.0, f64::max);
        let g = (g.iter())
            .map(|v| float_rat(v.value))
            .collect::<Result<_, _>>()?;
        (g, error)
    };
    let fixed = (bottom.of.iter())
        .map(|&b| (b != NONE).then(|| g[b as usize]))
        .collect();
    let nothing = vec![Rat::ZERO; space.choices.len()];
    let mut model = total_model(space, program, Total::of_chain(space, fixed, nothing), over);
    model.total = "long-run average of the bottom component reached";
    Ok((model, error))
}

/// A float as the exact fraction it is.
fn float_rat(x: f64) -> Result<Rat, AnalysisError> {
    Exact::of_float(x)
        .map(|e| Rat::from_rational(e.0))
        .ok_or(AnalysisError::Internal(
            "a long-run average that is no number",
        ))
}

/// What each step from a state earns, per choice: `1` in φ-states for `S`, the state's reward
/// and the choice's transition reward for `R[ S ]`.
fn step_rewards(
    program: &Program,
    space: &Space,
    query: &Query,
    target: &CExpr,
) -> Result<Vec<Rat>, AnalysisError> {
    match &query.what {
        Measure::Reward(r) => {
            let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
            let none = vec![false; space.len()];
            crate::analysis::rewards::choice_rewards(program, space, structure, &none)
        }
        _ => {
            let phi = crate::analysis::check::states_where(space, program, target)?;
            let mut reward = vec![Rat::ZERO; space.choices.len()];
            for s in (0..space.len() as u32).filter(|&s| phi[s as usize]) {
                for c in space.choices_of(s) {
                    reward[c] = Rat::ONE;
                }
            }
            Ok(reward)
        }
    }
}

/// Marks a state in no bottom component.
const NONE: u32 = u32::MAX;

/// The bottom strongly connected components of a space.
struct Bottoms {
    /// Per state, its bottom component's number, or [`NONE`].
    of: Vec<u32>,
    /// Per bottom component, the state its cycles start from (its first).
    start: Vec<u32>,
}

impl Bottoms {
    /// The states of bottom components other than their starts: where a total until the
    /// start is solved.
    fn region(&self) -> Vec<bool> {
        let mut region: Vec<bool> = self.of.iter().map(|&b| b != NONE).collect();
        for &s in &self.start {
            region[s as usize] = false;
        }
        region
    }

    fn of(space: &Space) -> Bottoms {
        let n = space.len();
        let comp = sccs(space, &vec![true; n], &vec![true; space.choices.len()]);
        let count = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut bottom = vec![true; count];
        for s in 0..n as u32 {
            let here = comp[s as usize];
            for c in space.choices_of(s) {
                if (space.outcomes_of(c).iter()).any(|&(_, t)| comp[t as usize] != here) {
                    bottom[here as usize] = false;
                }
            }
        }
        let mut number = vec![NONE; count];
        let mut start = Vec::new();
        let of = (0..n as u32)
            .map(|s| {
                let c = comp[s as usize] as usize;
                if !bottom[c] {
                    return NONE;
                }
                if number[c] == NONE {
                    number[c] = start.len() as u32;
                    start.push(s);
                }
                number[c]
            })
            .collect();
        Bottoms { of, start }
    }
}

/// Per state, the totals until its bottom component's start (the reward of `reward`, and the
/// steps), in the bottom components (zero at the starts, `None` elsewhere): solved exactly.
#[allow(clippy::type_complexity)]
fn exact_totals(
    program: &Program,
    space: &Space,
    bottom: &Bottoms,
    reward: &[Rat],
) -> Result<(Vec<Option<Exact>>, Vec<Option<Exact>>), AnalysisError> {
    let n = space.len();
    let region = bottom.region();
    // Every state outside the region ends the total at zero: the starts, and the states of
    // no bottom component, which no bottom state leads to.
    let fixed: Vec<Option<Rat>> = (0..n).map(|s| (!region[s]).then_some(Rat::ZERO)).collect();
    let choices = space.choices.len();
    let totals = |per_step: Vec<Rat>| {
        let total = Total::of_chain(space, fixed.clone(), per_step);
        let mut m = total_model(space, program, total, OverInitial::Min);
        Ok::<_, AnalysisError>(values_in::<Exact>(&mut m, &region)?.0)
    };
    Ok((totals(reward.to_vec())?, totals(vec![Rat::ONE; choices])?))
}

/// [`exact_totals`] in floats, each value with its own certified bound (so that a start
/// whose cycles are short is not charged for the long ones of states far from it): the
/// bottom states as a graph for the engine ([`perfectplay::graph`]), once with the rewards
/// and once with the steps, each start an exit worth zero.
#[allow(clippy::type_complexity)]
fn float_totals(
    space: &Space,
    bottom: &Bottoms,
    reward: &[Rat],
) -> Result<(Vec<Option<Bounded>>, Vec<Option<Bounded>>), AnalysisError> {
    use perfectplay::graph::{Graph, Outcome, Target};
    let n = space.len();
    let region = bottom.region();
    let mut node = vec![NONE; n];
    let mut count = 0u32;
    for s in (0..n).filter(|&s| region[s]) {
        node[s] = count;
        count += 1;
    }
    let mut graph = Graph::new();
    for copy in 0..2u32 {
        let per_step = |c: usize| match copy {
            0 => Bounded::from_rat(reward[c]),
            _ => Bounded::one(),
        };
        for s in (0..n as u32).filter(|&s| region[s as usize]) {
            let share = Bounded::from_rat(Rat::new(1, space.choices_of(s).count() as i64));
            let mut outcomes = Vec::new();
            for c in space.choices_of(s) {
                for &(p, t) in space.outcomes_of(c) {
                    outcomes.push(Outcome {
                        probability: Bounded::from_rat(space.probability(p)).mul(&share),
                        reward: per_step(c),
                        to: match node[t as usize] {
                            NONE => Target::Exit(Bounded::zero()),
                            x => Target::Node(x + copy * count),
                        },
                    });
                }
            }
            graph.add_chance(outcomes);
        }
    }
    let solved = graph.solve(None).map_err(AnalysisError::Solve)?;
    let totals = |copy: u32| -> Vec<Option<Bounded>> {
        (0..n)
            .map(|s| match (bottom.of[s], node[s]) {
                (NONE, _) => None,
                (_, NONE) => Some(Bounded::zero()),
                (_, x) => {
                    let x = (x + copy * count) as usize;
                    Some(Bounded {
                        value: solved.values[x],
                        radius: solved.error_bounds[x],
                    })
                }
            })
            .collect()
    };
    Ok((totals(0), totals(1)))
}

/// `g(B)` of every bottom component, by renewal: `R / L`, the average reward and length of a
/// cycle from its start back to it, from every bottom state's totals until its start
/// (`earned`, of `reward`, and `steps`).
fn averages<W: Number>(
    space: &Space,
    bottom: &Bottoms,
    reward: &[Rat],
    earned: &[Option<W>],
    steps: &[Option<W>],
) -> Result<Vec<W>, AnalysisError> {
    // A cycle's first step, from the start: the choices are taken uniformly, as in PRISM.
    let first_step = |s0: u32, per_step: &dyn Fn(usize) -> Rat, after: &[Option<W>]| {
        let mut sum = W::zero();
        let mut k = 0i64;
        for c in space.choices_of(s0) {
            k += 1;
            sum = sum.add(&W::from_rat(per_step(c)));
            for &(p, t) in space.outcomes_of(c) {
                let rest = after[t as usize].as_ref().ok_or(AnalysisError::Internal(
                    "a bottom state without its total until the cycle's start",
                ))?;
                sum.add_mul(&W::from_rat(space.probability(p)), rest);
            }
        }
        Ok::<W, AnalysisError>(sum.div(&W::from_rat(Rat::integer(k.max(1)))))
    };
    (bottom.start.iter())
        .map(|&s0| {
            let r = first_step(s0, &|c| reward[c], earned)?;
            let l = first_step(s0, &|_| Rat::ONE, steps)?;
            // `l` is at least one step: Bounded's division bounds what `r`'s and `l`'s
            // radii make of the quotient.
            Ok(r.div(&l))
        })
        .collect()
}
