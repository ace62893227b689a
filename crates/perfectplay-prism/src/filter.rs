//! PRISM's filters over any set of states, `filter(op, prop, states)`: `prop` (a query, or an
//! expression over the state) is taken in every reachable state where `states` holds (every
//! reachable state when it is left out, as in PRISM), and `op` makes one answer of them.
//!
//! An expression over the state is evaluated in each state. A query is answered with the set
//! as the initial states: `max`, `min` and `avg` (and `sum`, the mean times the count) by one
//! solve whose start aggregates over them, as `filter(…, "init")` is; `forall` and `exists` of
//! a query with a bound compare the least or the greatest value with the bound; `first` and
//! `state` solve from one state; `count` solves from each state of the set in turn, up to
//! [`ONE_BY_ONE`] of them. `print`, `printall`, `argmin`, `argmax` and `range` are refused by
//! name.

use std::str::FromStr;

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;

use crate::ast::{BinOp, Expr, ExprKind, FilterOp};
use crate::check::{states_where, Answer, OverInitial};
use crate::props::{Prop, Props};
use crate::resolved::resolve_over;
use crate::session::{answer_resolved, complemented, Error, Loaded};
use crate::value::Value;

/// The most states `count` of a query solves one by one.
pub(crate) const ONE_BY_ONE: usize = 2_000;

/// Whether `expr` is a filter that is not one query at the initial states (those are resolved
/// as one query: see `resolved::resolve_prop`).
pub(crate) fn is_general(expr: &Expr) -> bool {
    let ExprKind::Filter(op, inner, states) = &expr.kind else {
        return false;
    };
    let init = states
        .as_ref()
        .is_some_and(|s| matches!(&s.kind, ExprKind::Label(l) if l == "init"));
    !(init
        && matches!(op, FilterOp::Max | FilterOp::Min | FilterOp::Avg)
        && matches!(inner.kind, ExprKind::Query(_)))
}

/// Answers `expr`, a filter for which [`is_general`] holds, of property `prop`.
pub(crate) fn check(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    expr: &Expr,
    exact: bool,
) -> Result<Answer, Error> {
    let ExprKind::Filter(op, inner, states) = &expr.kind else {
        unreachable!("checked by is_general")
    };
    let name = op.name();
    if matches!(op, FilterOp::Print | FilterOp::Argmin | FilterOp::Argmax) {
        return Err(Error::Model(format!(
            "filter({name}, …) is not supported (max, min, avg, sum, count, forall, exists, \
             first and state are)"
        )));
    }
    if !loaded.decided.is_empty() {
        return Err(Error::Model(format!(
            "{}: the model was built for other properties (a filter needs every reachable \
             state: build it in full)",
            prop.text
        )));
    }
    let set = states_of(loaded, props, prop, states.as_deref())?;
    match &inner.kind {
        ExprKind::Query(_) => of_query(loaded, props, prop, *op, inner, &set, exact),
        _ => of_expression(loaded, props, prop, *op, inner, &set),
    }
}

/// The reachable states where `states` holds (every one where it is left out), in PRISM's
/// order: by the variables' values, the first variable first.
fn states_of(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    states: Option<&Expr>,
) -> Result<Vec<u32>, Error> {
    let (program, space) = (&loaded.program, &loaded.space);
    let mut set: Vec<u32> = match states {
        None => (0..space.len() as u32).collect(),
        Some(e) => {
            let c = program.resolve_over_states(&prop.file, &prop.src, e, &props.scope)?;
            let holds = states_where(space, program, &c).map_err(Error::Model)?;
            (0..space.len() as u32)
                .filter(|&s| holds[s as usize])
                .collect()
        }
    };
    let valuation = |s: u32| {
        let mut vals = Vec::new();
        space.unpack(program, s, &mut vals);
        vals
    };
    set.sort_by_cached_key(|&s| valuation(s));
    Ok(set)
}

/// A filter of an expression over the state, evaluated in each state of `set`.
fn of_expression(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    op: FilterOp,
    inner: &Expr,
    set: &[u32],
) -> Result<Answer, Error> {
    let (program, space) = (&loaded.program, &loaded.space);
    let c = program.resolve_over_states(&prop.file, &prop.src, inner, &props.scope)?;
    let mut vals = Vec::new();
    let mut values = Vec::with_capacity(set.len());
    for &s in set {
        space.unpack(program, s, &mut vals);
        let v = c.eval(&vals).map_err(|e| {
            Error::Model(format!("{inner} in state {}: {e}", space.show(program, s)))
        })?;
        values.push(v);
    }
    let name = op.name();
    let booleans = || -> Result<Vec<bool>, Error> {
        values
            .iter()
            .map(|v| match v {
                Value::Bool(b) => Ok(*b),
                _ => Err(Error::Model(format!(
                    "filter({name}, …) takes a boolean, and {inner} is a number"
                ))),
            })
            .collect()
    };
    let numbers = || -> Result<Vec<Rational>, Error> {
        values
            .iter()
            .map(|v| match v {
                Value::Bool(_) => Err(Error::Model(format!(
                    "filter({name}, …) takes a number, and {inner} is a boolean"
                ))),
                Value::Int(n) => Ok(Rational::from(*n)),
                Value::Real(q) => Rational::from_str(&q.to_string())
                    .map_err(|_| Error::Model(format!("{inner}: {q} is not a number"))),
            })
            .collect()
    };
    Ok(match op {
        FilterOp::Forall => truth(booleans()?.iter().all(|&b| b)),
        FilterOp::Exists => truth(booleans()?.iter().any(|&b| b)),
        FilterOp::Count => number(Rational::from(booleans()?.iter().filter(|&&b| b).count())),
        FilterOp::First | FilterOp::State => {
            let v = single(op, set, loaded)?;
            match &values[v] {
                Value::Bool(b) => truth(*b),
                _ => number(numbers()?.swap_remove(v)),
            }
        }
        _ => {
            let xs = numbers()?;
            let Some(first) = xs.first().cloned() else {
                return Err(empty(op));
            };
            number(match op {
                FilterOp::Max => xs.into_iter().fold(first, |a, b| a.max(b)),
                FilterOp::Min => xs.into_iter().fold(first, |a, b| a.min(b)),
                FilterOp::Sum => xs.into_iter().sum(),
                FilterOp::Avg => {
                    let n = xs.len();
                    xs.into_iter().sum::<Rational>() / Rational::from(n)
                }
                _ => unreachable!("every operator is listed"),
            })
        }
    })
}

/// A filter of a query: the query answered with (some of) the states of `set` as initial
/// states.
fn of_query(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    op: FilterOp,
    inner: &Expr,
    set: &[u32],
    exact: bool,
) -> Result<Answer, Error> {
    let ExprKind::Query(query) = &inner.kind else {
        unreachable!("a query")
    };
    let bound = query.bound.as_ref().map(|(op, _)| *op);
    let lower = matches!(bound, Some(BinOp::Gt | BinOp::Ge));
    // The query from the states `from`, aggregated as `over` says.
    let answer = |from: Vec<u32>, over: OverInitial| -> Result<Answer, Error> {
        let mut space = loaded.space.clone();
        space.initial = from;
        let at = Loaded {
            program: loaded.program.clone(),
            space,
            build_seconds: loaded.build_seconds,
            decided: Vec::new(),
        };
        let r = resolve_over(&at.program, props, prop, over, query)?;
        let complement = r.complement;
        let a = answer_resolved(&at, props, prop, r.settle_zero(&at)?, exact)?;
        Ok(if complement { complemented(a) } else { a })
    };
    let name = op.name();
    match op {
        FilterOp::Max | FilterOp::Min | FilterOp::Avg | FilterOp::Sum => {
            if bound.is_some() {
                return Err(Error::Model(format!(
                    "filter({name}, …) takes a number, and {inner} is true or false"
                )));
            }
            if set.is_empty() {
                return Err(empty(op));
            }
            let over = match op {
                FilterOp::Max => OverInitial::Max,
                FilterOp::Min => OverInitial::Min,
                _ => OverInitial::Avg,
            };
            let a = answer(set.to_vec(), over)?;
            if op != FilterOp::Sum {
                return Ok(a);
            }
            let n = set.len() as f64;
            let exact = a.exact.as_deref().and_then(|q| {
                let q = Rational::from_str(q).ok()?;
                Some((q * Rational::from(set.len())).to_string())
            });
            Ok(Answer {
                value: a.value * n,
                exact,
                error_bound: a.error_bound * n,
                ..a
            })
        }
        FilterOp::Forall | FilterOp::Exists => {
            if bound.is_none() {
                return Err(Error::Model(format!(
                    "filter({name}, …) takes true or false: a query with a bound, P>=b [ … ]"
                )));
            }
            if set.is_empty() {
                return Ok(truth(op == FilterOp::Forall));
            }
            // Every state meets a lower bound when the least value does; some state does when
            // the greatest does (the other way round for an upper bound).
            let over = match (op == FilterOp::Forall, lower) {
                (true, true) | (false, false) => OverInitial::Min,
                _ => OverInitial::Max,
            };
            let a = answer(set.to_vec(), over)?;
            Ok(truth(
                a.holds.expect("a query with a bound says whether it holds"),
            ))
        }
        FilterOp::First | FilterOp::State => {
            let i = single(op, set, loaded)?;
            answer(vec![set[i]], OverInitial::Only)
        }
        FilterOp::Count => {
            if bound.is_none() {
                return Err(Error::Model(
                    "filter(count, …) takes true or false: a query with a bound, P>=b [ … ]"
                        .to_string(),
                ));
            }
            if set.len() > ONE_BY_ONE {
                return Err(Error::Model(format!(
                    "filter(count, …) of a query solves each of its {} states alone; at most \
                     {ONE_BY_ONE} are (give a smaller set of states)",
                    set.len()
                )));
            }
            let mut count = 0usize;
            for &s in set {
                if answer(vec![s], OverInitial::Only)?.holds == Some(true) {
                    count += 1;
                }
            }
            Ok(number(Rational::from(count)))
        }
        _ => unreachable!("refused above"),
    }
}

/// The state of `set` that `first` (the first in PRISM's order) or `state` (the only one)
/// takes, as an index into `set`.
fn single(op: FilterOp, set: &[u32], loaded: &Loaded) -> Result<usize, Error> {
    match (op, set.len()) {
        (_, 0) => Err(empty(op)),
        (FilterOp::State, n) if n > 1 => Err(Error::Model(format!(
            "filter(state, …) takes one state, and {n} satisfy its condition (the first two: \
             {} and {})",
            loaded.space.show(&loaded.program, set[0]),
            loaded.space.show(&loaded.program, set[1])
        ))),
        _ => Ok(0),
    }
}

fn empty(op: FilterOp) -> Error {
    Error::Model(format!(
        "filter({}, …): no reachable state satisfies its condition",
        op.name()
    ))
}

/// A boolean answer.
fn truth(b: bool) -> Answer {
    Answer {
        value: if b { 1.0 } else { 0.0 },
        exact: None,
        method: "filter",
        states: 0,
        holds: Some(b),
        error_bound: 0.0,
    }
}

/// An exact numeric answer.
fn number(q: Rational) -> Answer {
    let value = f64::rounding_from(&q, RoundingMode::Nearest).0;
    Answer {
        value,
        exact: Some(q.to_string()),
        method: "filter",
        states: 0,
        holds: None,
        error_bound: 0.0,
    }
}
