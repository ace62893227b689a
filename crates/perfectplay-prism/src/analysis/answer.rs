//! A query's answer at the start: the query resolved as it is asked (unbounded, with a step
//! bound, or a lower bound alone), and a query with a bound (`P>=0.5 [ … ]`) compared with it,
//! exactly where the numbers allow; `G`, `W` and `R` as one minus their dual's answer.

use crate::analysis::answers::Answer;
use crate::analysis::check::Asked;
use crate::analysis::compound::Constant;
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::resolved::Resolved;
use crate::build::Loaded;
use crate::program::props::{Prop, Props};
use crate::program::{CExpr, Program};
use crate::syntax::ast::{BinOp, Opt, Path, Query};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;
use std::str::FromStr;

/// One minus `a` (the value of the dual query of a `G`, `W` or `R`): exactly where `a` is
/// exact; the error bound grows by the difference's rounding, if any, and whether a bound
/// holds stays (the dual's bound is turned already).
pub(crate) fn complemented(a: Answer) -> Answer {
    use malachite_q::Rational;
    use std::str::FromStr;
    let exact = a.exact.as_deref().and_then(|q| {
        let q = Rational::from_str(q).ok()?;
        Some((Rational::from(1) - q).to_string())
    });
    let (value, error_bound) = match exact {
        Some(_) => (1.0 - a.value, a.error_bound),
        None => one_minus(a.value, a.error_bound),
    };
    Answer {
        value,
        exact,
        error_bound,
        ..a
    }
}

/// `1 - x` in floats, for `x` within `error` of its exact value: the difference, and a bound on
/// its distance from one minus the exact value (the error, plus the difference's rounding
/// where it rounds: at most a unit in the last place).
pub(crate) fn one_minus(x: f64, error: f64) -> (f64, f64) {
    let d = 1.0 - x;
    match perfectplay::Bounded::sum_is_exact(1.0, -x) || !d.is_finite() {
        true => (d, error),
        false => (d, (error + f64::EPSILON * d.abs()).next_up()),
    }
}

/// The answer to `r` (settled), a query of property `prop`, at the start.
pub(crate) fn answer_resolved(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    r: Resolved,
    exact: bool,
) -> Result<Answer, AnalysisError> {
    let Resolved {
        over,
        query,
        through,
        target,
        steps,
        first,
        reward_bound,
        ..
    } = r;
    let solve = |q: &Query, exact: bool| {
        let asked = Asked {
            program: &loaded.program,
            space: &loaded.space,
            query: q,
            through: through.as_ref(),
            target: &target,
            over,
        };
        if let Some(bound) = &reward_bound {
            return crate::analysis::reward_bounded::check(asked, bound, exact);
        }
        match steps {
            Some(last) => {
                let steps = crate::analysis::bounded::Steps { last, first };
                crate::analysis::bounded::check(asked, steps, exact)
            }
            None if first > 0 => crate::analysis::bounded::check_lower(asked, first, exact),
            None => asked.check(exact),
        }
    };
    let Some((op, bound)) = &query.bound else {
        return solve(&query, exact);
    };
    let numeric = numeric_query(&loaded.program, &query);
    let b = bound_value(&loaded.program, props, prop, bound)?;
    // Compared exactly: the value is solved in rationals (in floats where the model computes
    // numbers that need not be rational, deciding only where the float is clear of the bound).
    let inexact = Asked {
        program: &loaded.program,
        space: &loaded.space,
        query: &numeric,
        through: through.as_ref(),
        target: &target,
        over,
    }
    .inexact();
    let mut a = match solve(&numeric, !inexact) {
        // `F0` where a play can earn without bound has a certified interval, not an exact
        // value: compared in floats, with its error bound (an error of another kind comes
        // back from the float solve as well).
        Err(_) if !inexact && matches!(numeric.path, Path::EventuallyZero(_)) => {
            solve(&numeric, false)?
        }
        a => a?,
    };
    let compare_floats = |text: &str| {
        let (v, w) = (a.value, f64::rounding_from(&b, RoundingMode::Nearest).0);
        if (v - w).abs() > (1e-9 * w.abs().max(1.0)).max(2.0 * a.error_bound) {
            Ok(match op {
                BinOp::Gt | BinOp::Ge => v > w,
                _ => v < w,
            })
        } else {
            Err(AnalysisError::TooClose(format!(
                "the value {text} is too close to the bound to compare here"
            )))
        }
    };
    let holds = match &a.exact {
        // +∞ (a reward): above every bound.
        _ if a.value == f64::INFINITY => matches!(op, BinOp::Gt | BinOp::Ge),
        None => compare_floats(&a.value.to_string())?,
        Some(text) => match Rational::from_str(text).ok() {
            Some(v) => match op {
                BinOp::Gt => v > b,
                BinOp::Ge => v >= b,
                BinOp::Lt => v < b,
                _ => v <= b,
            },
            // Not a fraction (never: exact values are written as fractions): the float decides
            // unless it is too close to tell.
            None => compare_floats(text)?,
        },
    };
    a.holds = Some(holds);
    Ok(a)
}

/// The query whose value decides `query`'s bound: `query` without it, optimised the way the
/// bound is checked. In an MDP (and a game asked without a coalition), `P>=b` holds when every
/// scheduler meets the bound: the least value is compared (the greatest for `<` and `<=`). In
/// a game, `<<C>> P>=b` holds when the coalition can ensure the bound whatever the others do
/// (PRISM-games): the coalition maximises against `>` and `>=` and minimises against `<` and
/// `<=`. A DTMC has the one value. A direction written with the bound (`Pmax>=b`, which PRISM
/// does not accept and Storm reads so) is the one optimised: some scheduler meets the bound.
pub(crate) fn numeric_query(program: &Program, query: &Query) -> Query {
    let mut numeric = query.clone();
    let Some((op, _)) = numeric.bound.take() else {
        return numeric;
    };
    if numeric.opt != Opt::None {
        return numeric;
    }
    let lower = matches!(op, BinOp::Gt | BinOp::Ge);
    numeric.opt = match crate::analysis::check::model_type(program, &numeric) {
        crate::syntax::ast::ModelType::Dtmc => numeric.opt,
        crate::syntax::ast::ModelType::Smg if lower => Opt::Max,
        crate::syntax::ast::ModelType::Smg => Opt::Min,
        _ if lower => Opt::Min,
        _ => Opt::Max,
    };
    numeric
}

/// The number `bound` of a query's bound (`0.5` of `P>=0.5`), a constant, exactly: computed as
/// a property's arithmetic is, so that a number of any size is exact (`P>=1e-300`); where it
/// is computed in floating point (`pow(2, 0.5)`), the fraction its double is.
pub(crate) fn bound_value(
    program: &Program,
    props: &Props,
    prop: &Prop,
    bound: &crate::syntax::ast::Expr,
) -> Result<Rational, AnalysisError> {
    let constant = |e: &crate::syntax::ast::Expr| -> Result<Constant, AnalysisError> {
        match program.resolve_value(&prop.file, &prop.src, e, &props.scope)? {
            CExpr::Const(v) => Ok((v, false)),
            CExpr::Inexact(inner) => match *inner {
                CExpr::Const(v) => Ok((v, true)),
                _ => Err(unsupported("a bound must be a constant")),
            },
            _ => Err(unsupported("a bound must be a constant")),
        }
    };
    let mut query = |_: &crate::syntax::ast::Expr, _: bool| -> Result<Answer, AnalysisError> {
        Err(unsupported("a bound must be a constant"))
    };
    let a = crate::analysis::compound::evaluate(
        bound,
        &mut crate::analysis::compound::Env {
            query: &mut query,
            constant: &constant,
            // A bound has no query to solve exactly; one the model computes in floating point
            // is its double, as PRISM compares with it, in either mode.
            exact: false,
        },
    )?;
    if a.holds.is_some() {
        return Err(unsupported("a bound must be a number"));
    }
    match a.exact {
        Some(text) => Rational::from_str(&text)
            .map_err(|_| AnalysisError::Internal("an exact value that is no fraction")),
        None => {
            Rational::try_from(a.value).map_err(|_| unsupported("a bound must be a finite number"))
        }
    }
}
