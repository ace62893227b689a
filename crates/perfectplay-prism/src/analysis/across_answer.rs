//! A property's answer across processes, read from the certified bounds that the solve of its
//! game ([`crate::analysis::across`]) reports: at the game's start, or at each initial state
//! where the property asks about several (their range, a bound that must hold in each, or a
//! filter over them), turned where the property is the complement of its game (`G`, `W`,
//! `R`), and compared with the property's bound where it has one. Filters reuse the
//! one-process aggregation ([`crate::analysis::filter`]), so their answers read the same.

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;

use crate::analysis::answers::Answer;
use crate::analysis::error::AnalysisError;
use crate::analysis::filter::{aggregate, truth, Item};
use crate::syntax::ast::{BinOp, Expr, FilterOp};

/// The bound a property across processes compares its value with (`P>=0.5 [ … ]`), turned
/// with the game where the property is its complement (`G`, `W`, `R`).
#[derive(Clone, Debug)]
pub(crate) struct Comparison {
    /// How the game's value is compared.
    pub op: BinOp,
    /// The bound, exactly.
    pub bound: Rational,
}

/// How the answer of a property across processes reads from its game's values
/// ([`AcrossReading::answer`]).
#[derive(Clone, Debug)]
pub struct AcrossReading {
    /// The property's text, for errors.
    pub(crate) text: String,
    /// Whether the property's value is one minus the game's (`G`, `W` and `R`, checked as the
    /// complement of an `F` or `U` query).
    pub(crate) complement: bool,
    /// Whether the value is an expected reward (unbounded above), not a probability (whose
    /// bounds, rounded past 0 or 1, say no more than 0 and 1 do).
    pub(crate) reward: bool,
    /// Where the property compares its value with a bound, that comparison.
    pub(crate) compare: Option<Comparison>,
    /// Where the answer is made of each initial state's value, what makes it: a filter's
    /// operator, or, with no filter on a model of several initial states, `range` (a value)
    /// or `forall` (a bound, which must hold in each, as PRISM checks it). `None` where the
    /// game's start is the answer (one initial state, or a filter's max, min or avg, which
    /// the start itself takes).
    pub(crate) filter: Option<FilterOp>,
    /// The initial states as PRISM prints them, in PRISM's order: the states of the filter.
    pub(crate) names: Vec<String>,
    /// The query inside the filter, for its messages.
    pub(crate) inner: Expr,
    /// The variables' values of the states the game starts from (the initial states, a
    /// filter's, or every state for a nested formula), in the order of `names`.
    pub(crate) values: Vec<Vec<i64>>,
    /// Whether the game's values are the query's own at each of those states (no filter of
    /// the property's takes them): a property that computes with the query's value takes it
    /// in each state ([`AcrossAnswer::each`]).
    pub(crate) per_state: bool,
}

/// Certified bounds on a value: `[value, lower, upper]`.
pub type Bounds = [f64; 3];

/// A property's answer across processes.
#[derive(Clone, Debug)]
pub struct AcrossAnswer {
    /// The answer, as one process gives it (its `method` and `states` are the caller's to
    /// fill in from the run). Its `error_bound` bounds the error of every number in it, the
    /// values of the states it lists included.
    pub answer: Answer,
    /// Certified bounds on the exact value of `answer.value` where it is a number: equal to
    /// it where it is exact (a count); `None` for a boolean or a listing.
    pub bounds: Option<[f64; 2]>,
    /// Where the query's values are its own at each state its game starts from
    /// ([`AcrossReading::per_state`]), how to read them in each.
    pub(crate) each: Option<Box<Each>>,
}

/// States a property is taken in, and a query's values at each where it has them: how its
/// answer reads from one, and its game's bounds at each.
#[derive(Clone, Debug)]
pub(crate) struct Each {
    /// The states as PRISM prints them, in PRISM's order.
    pub(crate) names: Vec<String>,
    /// Their variables' values, in the same order.
    pub(crate) values: Vec<Vec<i64>>,
    /// The query's reading and its game's bounds at each state; `None` where only the states
    /// are known.
    query: Option<(AcrossReading, Vec<Bounds>)>,
}

impl Each {
    /// The states `names` with their variables' `values`, and no query's values: for a
    /// property that computes with none.
    pub(crate) fn states(names: Vec<String>, values: Vec<Vec<i64>>) -> AcrossAnswer {
        AcrossAnswer {
            answer: truth(true),
            bounds: None,
            each: Some(Box::new(Each {
                names,
                values,
                query: None,
            })),
        }
    }

    /// The number of states.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// The query's answer at state `i`, where it has values.
    pub(crate) fn answer(&self, i: usize) -> Option<Result<Answer, AnalysisError>> {
        let (reading, at) = self.query.as_ref()?;
        Some(reading.one(at[i]).map(|a| a.answer))
    }
}

impl Comparison {
    /// Whether the bound holds, from certified bounds `lower <= upper` on the game's value
    /// (before any complement); `None` where the bound lies between them, so that the value
    /// could lie on either side of it.
    fn decide(&self, lower: f64, upper: f64) -> Option<bool> {
        let (op, b) = (&self.op, &self.bound);
        // Whether `x` is above the bound (`or_equal`: or at it), compared exactly: a float is
        // the fraction it is; `None` for NaN.
        let above = |x: f64, or_equal: bool| match x {
            f64::INFINITY => Some(true),
            f64::NEG_INFINITY => Some(false),
            x => Rational::try_from(x)
                .ok()
                .map(|x| if or_equal { x >= *b } else { x > *b }),
        };
        // `>=` and `<` split the values at the bound itself (at it counts as above), `>` and
        // `<=` just above it.
        let or_equal = matches!(op, BinOp::Ge | BinOp::Lt);
        match (above(lower, or_equal), above(upper, or_equal)) {
            // The whole interval above the split, or the whole below it.
            (Some(true), _) => Some(matches!(op, BinOp::Ge | BinOp::Gt)),
            (_, Some(false)) => Some(matches!(op, BinOp::Le | BinOp::Lt)),
            _ => None,
        }
    }
}

/// `x` as the shortest text that reads back as it, in scientific notation where it is very
/// small or large.
fn show(x: f64) -> String {
    match x.abs() {
        a if a == 0.0 || (1e-5..1e15).contains(&a) => x.to_string(),
        _ => format!("{x:e}"),
    }
}

/// A bound on the distance from `value` to any number in `[lower, upper]` (one rounding in
/// each difference: the next float up covers it).
fn gap(value: f64, lower: f64, upper: f64) -> f64 {
    let gap = (value - lower).max(upper - value);
    if gap > 0.0 {
        gap.next_up()
    } else {
        0.0
    }
}

impl AcrossReading {
    /// The property's value from the game's bounds `[v, lo, hi]` at one state: turned where it
    /// is a complement, and a probability's bounds kept within 0 and 1.
    fn value(&self, [v, lo, hi]: Bounds) -> Bounds {
        let [v, lo, hi] = match self.complement {
            // One minus the value: the bounds swap, each widened where the difference rounds.
            true => [
                1.0 - v,
                one_minus(hi, f64::next_down),
                one_minus(lo, f64::next_up),
            ],
            false => [v, lo, hi],
        };
        match self.reward {
            true => [v, lo, hi],
            false => [v, lo.max(0.0), hi.min(1.0)],
        }
    }

    /// Whether the bound holds at one state, from the game's bounds there; an error where it
    /// cannot be told.
    fn holds(&self, c: &Comparison, [_, lo, hi]: Bounds) -> Result<bool, AnalysisError> {
        // (A probability's bounds, rounded past 0 or 1, say no more than 0 and 1 do.)
        let (lo, hi) = match self.reward {
            true => (lo, hi),
            false => (lo.max(0.0), hi.min(1.0)),
        };
        c.decide(lo, hi).ok_or_else(|| {
            // The property's own value and bound, where it is the complement of its game's.
            let (lo, hi, bound) = match self.complement {
                true => (1.0 - hi, 1.0 - lo, Rational::from(1) - &c.bound),
                false => (lo, hi, c.bound.clone()),
            };
            AnalysisError::TooClose(format!(
                "the value lies between {} and {}, on both sides of the bound {}: ask for a \
                 finer precision, or check it in one process (exactly, with its --exact)",
                show(lo),
                show(hi),
                show(f64::rounding_from(&bound, RoundingMode::Nearest).0)
            ))
        })
    }

    /// Whether the property's bound holds at each of the start's outcomes (the states a
    /// formula nested in a property is checked in), from the game's bounds there; an error
    /// where one cannot be told.
    pub(crate) fn each_holds(&self, at: &[Bounds]) -> Result<Vec<bool>, AnalysisError> {
        let c = self
            .compare
            .as_ref()
            .ok_or(AnalysisError::Internal("a nested formula without a bound"))?;
        at.iter()
            .enumerate()
            .map(|(i, &b)| {
                self.holds(c, b).map_err(|e| match e {
                    AnalysisError::TooClose(why) => AnalysisError::TooClose(format!(
                        "{} in state {}: {why}",
                        self.inner,
                        self.names.get(i).map_or("?", String::as_str)
                    )),
                    e => e,
                })
            })
            .collect()
    }

    /// The property's answer from certified bounds `[value, lower, upper]` on its game's
    /// value: at the game's start, or, where
    /// [`AcrossQuery::each_initial`](crate::AcrossQuery::each_initial), at each of the start's
    /// outcomes (the initial states) in order. An error where the property compares its value
    /// with a bound that lies within the bounds (so that the value could lie on either side
    /// of it).
    pub fn answer(&self, at: &[Bounds]) -> Result<AcrossAnswer, AnalysisError> {
        let mut answer = self
            .answer_of(at)
            .map_err(|e| AnalysisError::of(&self.text, e))?;
        if self.per_state && at.len() == self.values.len() && at.len() == self.names.len() {
            let reading = AcrossReading {
                filter: None,
                ..self.clone()
            };
            answer.each = Some(Box::new(Each {
                names: self.names.clone(),
                values: self.values.clone(),
                query: Some((reading, at.to_vec())),
            }));
        }
        Ok(answer)
    }

    /// The answer at one state from the game's bounds there, as no filter reads it.
    fn one(&self, b: Bounds) -> Result<AcrossAnswer, AnalysisError> {
        Ok(match &self.compare {
            Some(c) => AcrossAnswer {
                answer: truth(self.holds(c, b)?),
                bounds: None,
                each: None,
            },
            None => {
                let [v, lo, hi] = self.value(b);
                AcrossAnswer {
                    answer: number(v, gap(v, lo, hi)),
                    bounds: Some([lo, hi]),
                    each: None,
                }
            }
        })
    }

    /// [`AcrossReading::answer`], with the error of the analysis.
    fn answer_of(&self, at: &[Bounds]) -> Result<AcrossAnswer, AnalysisError> {
        let Some(op) = self.filter else {
            let &[b] = at else {
                return Err(AnalysisError::Internal(
                    "the solve across processes gave other than the start's one value",
                ));
            };
            return self.one(b);
        };
        if at.len() != self.names.len() {
            return Err(AnalysisError::Internal(
                "the solve across processes gave other than a value for each initial state",
            ));
        }
        let name = |i: usize| self.names[i].clone();
        if let Some(c) = &self.compare {
            let holds = at.iter().map(|&b| self.holds(c, b)).collect();
            return truths(op, &self.inner, &name, holds);
        }
        let values = at.iter().map(|&b| self.value(b)).collect();
        numbers(op, &self.inner, &name, values)
    }
}

/// The answer of filter `op` over `inner`, true or false in each state (`Err` where it could
/// not be told there): `forall` is false, and `exists` true, from one state that decides it;
/// an error where the answer needs a state that could not be told.
pub(crate) fn truths(
    op: FilterOp,
    inner: &Expr,
    name: &dyn Fn(usize) -> String,
    holds: Vec<Result<bool, AnalysisError>>,
) -> Result<AcrossAnswer, AnalysisError> {
    let decided = match op {
        FilterOp::Forall => holds
            .iter()
            .any(|h| matches!(h, Ok(false)))
            .then_some(false),
        FilterOp::Exists => holds.iter().any(|h| matches!(h, Ok(true))).then_some(true),
        _ => None,
    };
    if let Some(b) = decided {
        return Ok(AcrossAnswer {
            answer: truth(b),
            bounds: None,
            each: None,
        });
    }
    let items = holds
        .into_iter()
        .map(|h| h.map(Item::Bool))
        .collect::<Result<Vec<Item>, _>>()?;
    let answer = aggregate(op, inner, name, &items, 0.0)?;
    // A count is exact, a truth or a listing has no bounds.
    let bounds =
        (answer.holds.is_none() && answer.listed.is_none()).then_some([answer.value, answer.value]);
    Ok(AcrossAnswer {
        answer,
        bounds,
        each: None,
    })
}

/// The answer of filter `op` over `inner`, a number in each state with certified bounds
/// `[value, lower, upper]` there: the filter's number with certified bounds where it is one
/// made of the states' values, a listing whose values are each within the error bound.
pub(crate) fn numbers(
    op: FilterOp,
    inner: &Expr,
    name: &dyn Fn(usize) -> String,
    values: Vec<Bounds>,
) -> Result<AcrossAnswer, AnalysisError> {
    let error = values
        .iter()
        .map(|&[v, lo, hi]| gap(v, lo, hi))
        .fold(0.0, f64::max);
    let items: Vec<Item> = values.iter().map(|&[v, ..]| Item::Num(v, None)).collect();
    let mut answer = aggregate(op, inner, name, &items, error)?;
    // Certified bounds where the answer is one number made of the states' values.
    let lowers = values.iter().map(|b| b[1]);
    let uppers = values.iter().map(|b| b[2]);
    let bounds = match op {
        FilterOp::Max => Some([
            lowers.fold(f64::NEG_INFINITY, f64::max),
            uppers.fold(f64::NEG_INFINITY, f64::max),
        ]),
        FilterOp::Min => Some([
            lowers.fold(f64::INFINITY, f64::min),
            uppers.fold(f64::INFINITY, f64::min),
        ]),
        FilterOp::Sum | FilterOp::Avg => {
            let n = values.len() as f64;
            let (lo, hi) = (sum_down(lowers), sum_up(uppers));
            Some(match op {
                FilterOp::Sum => [lo, hi],
                // A quotient by `n` rounds once more.
                _ => [(lo / n).next_down(), (hi / n).next_up()],
            })
        }
        FilterOp::First | FilterOp::State => {
            // `aggregate` took the first state (or the only one).
            Some([values[0][1], values[0][2]])
        }
        _ => None,
    };
    if let Some([lo, hi]) = bounds {
        answer.error_bound = gap(answer.value, lo, hi);
    }
    // A listing's values (a range's ends, the states printed) are each within `error`.
    if answer.listed.is_some() {
        answer.error_bound = answer.error_bound.max(error);
    }
    Ok(AcrossAnswer {
        answer,
        bounds,
        each: None,
    })
}

/// `1 - x`, moved by `outward` (a float further down or up) where the difference rounds.
fn one_minus(x: f64, outward: fn(f64) -> f64) -> f64 {
    let d = 1.0 - x;
    match perfectplay::Bounded::sum_is_exact(1.0, -x) || !d.is_finite() {
        true => d,
        false => outward(d),
    }
}

/// A bound below the exact sum of `xs` (each rounding of a float sum moves it by at most
/// half a unit in its last place, so `n` additions by at most `n` units of the largest
/// partial sum, which the sum of the magnitudes bounds).
fn sum_down(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, slack) = sum_with_slack(xs);
    sum - slack
}

/// A bound above the exact sum of `xs` (see [`sum_down`]).
fn sum_up(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, slack) = sum_with_slack(xs);
    sum + slack
}

/// The float sum of `xs` and a bound on its distance from the exact sum (widened for its own
/// rounding and that of the caller's one addition).
fn sum_with_slack(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut sum, mut magnitude, mut n) = (0.0f64, 0.0f64, 0.0f64);
    let mut rounded = false;
    for x in xs {
        let before = sum;
        sum += x;
        // The exact error of the addition (TwoSum): none while the sum is exact (whole
        // numbers, say), which then needs no slack.
        let back = sum - before;
        rounded |= (before - (sum - back)) + (x - back) != 0.0;
        magnitude += x.abs();
        n += 1.0;
    }
    let slack = (n + 2.0) * f64::EPSILON * magnitude * (1.0 + 1e-6);
    (
        sum,
        if sum.is_finite() && rounded {
            slack
        } else {
            0.0
        },
    )
}

/// A numeric answer.
fn number(value: f64, error_bound: f64) -> Answer {
    Answer {
        value,
        exact: None,
        method: "distributed",
        states: 0,
        holds: None,
        error_bound,
        listed: None,
    }
}
