//! PRISM's filters over any set of states, `filter(op, prop, states)`: `prop` (a query, or an
//! expression over the state) is taken in every reachable state where `states` holds (every
//! reachable state when it is left out, as in PRISM), and `op` makes one answer of them.
//!
//! An expression over the state is evaluated in each state. A query's `max`, `min`, `avg` and
//! `sum` (the mean times the count) are one solve whose start aggregates over the set, as
//! `filter(…, "init")` is, and `first` and `state` solve from one state; every other operation
//! takes the query's value in every state from one solve (`crate::analysis::nested`), or, for a query
//! with a bound and for CTL's `E` and `A`, whether it holds there. `print` and `printall`
//! list the states (`print` those whose value is not zero or false) with their values,
//! `argmin` and `argmax` the states of the least or greatest value, `range` the least and the
//! greatest ([`Listed`]).

use crate::analysis::error::{part_in_state, AnalysisError};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;
use perfectplay::{Bounded as Interval, Number};

use crate::analysis::answer::{answer_resolved, complemented};
use crate::analysis::answers::{Answer, Listed, StateValueText};
use crate::analysis::check::{states_where, OverInitial};
use crate::analysis::resolved::resolve_over;
use crate::build::Loaded;
use crate::program::eval::CExpr;
use crate::program::props::{Prop, Props};
use crate::program::value::Value;
use crate::syntax::ast::{Expr, ExprKind, FilterOp};

/// Whether a filter's states are the initial ones (`"init"`).
pub(crate) fn over_initial(states: &Option<Box<Expr>>) -> bool {
    states
        .as_ref()
        .is_some_and(|s| matches!(&s.kind, ExprKind::Label(l) if l == "init"))
}

/// Whether `expr` is a filter that is not one query at the initial states (those are resolved
/// as one query: see `resolved::resolve_prop`).
pub(crate) fn is_general(expr: &Expr) -> bool {
    let ExprKind::Filter(op, inner, states) = &expr.kind else {
        return false;
    };
    !(over_initial(states)
        && matches!(op, FilterOp::Max | FilterOp::Min | FilterOp::Avg)
        && matches!(inner.kind, ExprKind::Query(_)))
}

/// A filter nested in another's expression, answered at the start by the front door (which
/// hands it in, so that this module does not depend on it).
pub(crate) type Nested<'f> = &'f mut dyn FnMut(&Expr, bool) -> Result<Answer, AnalysisError>;

/// Answers `expr`, a filter for which [`is_general`] holds, of property `prop`; a filter in
/// its expression is answered by `nested`.
pub(crate) fn check(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    expr: &Expr,
    exact: bool,
    nested: Nested<'_>,
) -> Result<Answer, AnalysisError> {
    let ExprKind::Filter(op, inner, states) = &expr.kind else {
        unreachable!("checked by is_general")
    };
    if !loaded.decided.is_empty() {
        return Err(AnalysisError::of(
            &prop.text,
            AnalysisError::PartialBuild(
                "the model was built for other properties (a filter needs every reachable \
                 state: build it in full)"
                    .into(),
            ),
        ));
    }
    let set = states_of(loaded, props, prop, states.as_deref())?;
    let f = Filtered {
        loaded,
        props,
        prop,
        op: *op,
        inner,
        set: &set,
    };
    match &inner.kind {
        ExprKind::Query(_) => of_query(f, exact),
        _ if crate::analysis::compound::has_query(inner) => of_compound(f, exact, nested),
        _ => of_expression(f),
    }
}

/// A filter asked of a built model: the property it belongs to, its operation, what it
/// filters, and the states it takes, in PRISM's order.
#[derive(Clone, Copy)]
struct Filtered<'a> {
    loaded: &'a Loaded,
    props: &'a Props,
    prop: &'a Prop,
    op: FilterOp,
    inner: &'a Expr,
    set: &'a [u32],
}

/// The reachable states where `states` holds (every one where it is left out), in PRISM's
/// order: by the variables' values, the first variable first.
fn states_of(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    states: Option<&Expr>,
) -> Result<Vec<u32>, AnalysisError> {
    let (program, space) = (&loaded.program, &loaded.space);
    let mut set: Vec<u32> = match states {
        None => (0..space.len() as u32).collect(),
        Some(e) => {
            let c = program.resolve_over_states(&prop.file, &prop.src, e, &props.scope)?;
            let holds = states_where(space, program, &c)?;
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

/// The value of the filtered property in one state.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    /// True or false.
    Bool(bool),
    /// A number: the nearest `f64` (+∞ as `f64::INFINITY`) and the fraction where known.
    Num(f64, Option<Rational>),
}

impl Item {
    /// The number, exactly where known.
    fn exact(q: Rational) -> Item {
        Item::Num(f64::rounding_from(&q, RoundingMode::Nearest).0, Some(q))
    }
}

/// A filter of an expression over the state, evaluated in each state of `set`.
fn of_expression(f: Filtered<'_>) -> Result<Answer, AnalysisError> {
    let (program, space) = (&f.loaded.program, &f.loaded.space);
    let c = program.resolve_over_states(&f.prop.file, &f.prop.src, f.inner, &f.props.scope)?;
    let mut vals = Vec::new();
    let mut items = Vec::with_capacity(f.set.len());
    for &s in f.set {
        space.unpack(program, s, &mut vals);
        let v = c
            .eval(&vals)
            .map_err(|e| part_in_state(f.inner, space.show(program, s), e))?;
        items.push(match v {
            Value::Bool(b) => Item::Bool(b),
            // ±∞ (`x/0`).
            Value::Float(x) if x.is_infinite() => Item::Num(x, None),
            number => Item::exact(number.rational().expect("a finite number")),
        });
    }
    aggregate(f.op, f.inner, &names(f.loaded, f.set), &items, 0.0)
}

/// Whether filter `op` takes true or false (`forall`, `exists`, `count`), a number (`max`,
/// `min`, `avg`, `sum`, `range`, `argmin`, `argmax`), or either (`None`: `first`, `state`,
/// `print`, `printall`).
pub(crate) fn takes_truth(op: FilterOp) -> Option<bool> {
    match op {
        FilterOp::Forall | FilterOp::Exists | FilterOp::Count => Some(true),
        FilterOp::First | FilterOp::State | FilterOp::Print | FilterOp::Printall => None,
        _ => Some(false),
    }
}

/// The error of filter `op` given `inner`, which is true or false where `truth` (a number
/// otherwise), where it takes the other kind ([`takes_truth`]).
pub(crate) fn wrong_kind(op: FilterOp, inner: &Expr, truth: bool) -> AnalysisError {
    let what = |t: bool| if t { "true or false" } else { "a number" };
    AnalysisError::Filter(format!(
        "filter({}, …) takes {}, and {inner} is {}",
        op.name(),
        what(!truth),
        what(truth)
    ))
}

/// The names of the states of `set` as PRISM prints them, by their place in it.
fn names<'a>(loaded: &'a Loaded, set: &'a [u32]) -> impl Fn(usize) -> String + 'a {
    |i| loaded.space.show(&loaded.program, set[i])
}

/// `op` over the values `items` of `inner` in the states of a filter (in PRISM's order),
/// named by `state_name` from their place; `error` bounds the error of the floating-point ones.
pub(crate) fn aggregate(
    op: FilterOp,
    inner: &Expr,
    state_name: &dyn Fn(usize) -> String,
    items: &[Item],
    error: f64,
) -> Result<Answer, AnalysisError> {
    let booleans = || -> Result<Vec<bool>, AnalysisError> {
        items
            .iter()
            .map(|v| match v {
                Item::Bool(b) => Ok(*b),
                _ => Err(wrong_kind(op, inner, false)),
            })
            .collect()
    };
    let numbers = || -> Result<Vec<(f64, Option<Rational>)>, AnalysisError> {
        items
            .iter()
            .map(|v| match v {
                Item::Bool(_) => Err(wrong_kind(op, inner, true)),
                Item::Num(x, q) => Ok((*x, q.clone())),
            })
            .collect()
    };
    let text = |i: usize| {
        let state = state_name(i);
        match &items[i] {
            Item::Bool(b) => StateValueText {
                state,
                value: *b as u8 as f64,
                exact: None,
                holds: Some(*b),
            },
            Item::Num(x, q) => StateValueText {
                state,
                value: *x,
                exact: q.as_ref().map(Rational::to_string),
                holds: None,
            },
        }
    };
    let answer = |i: usize, error: f64| {
        let t = text(i);
        Answer {
            value: t.value,
            exact: t.exact,
            method: "filter",
            states: 0,
            holds: t.holds,
            error_bound: error,
            listed: None,
        }
    };
    let texts = |states: Vec<usize>| states.into_iter().map(text).collect::<Vec<_>>();
    // The indices of the least or greatest values: exactly where every one is exact, else
    // within what the error bound and rounding leave in doubt.
    let extreme = |greatest: bool| -> Result<(usize, Vec<usize>), AnalysisError> {
        let xs = numbers()?;
        if xs.is_empty() {
            return Err(empty(op));
        }
        let better = |a: &(f64, Option<Rational>), b: &(f64, Option<Rational>)| match (&a.1, &b.1) {
            (Some(p), Some(q)) => (p > q) == greatest && p != q,
            _ => (a.0 > b.0) == greatest && a.0 != b.0,
        };
        let best = (1..xs.len()).fold(0, |i, j| if better(&xs[j], &xs[i]) { j } else { i });
        let tie = |a: &(f64, Option<Rational>)| match (&a.1, &xs[best].1) {
            (Some(p), Some(q)) => p == q,
            _ => {
                let (x, y) = (a.0, xs[best].0);
                x == y || (x - y).abs() <= (2.0 * error).max(1e-12 * y.abs())
            }
        };
        Ok((best, (0..xs.len()).filter(|&i| tie(&xs[i])).collect()))
    };
    Ok(match op {
        FilterOp::Forall => truth(booleans()?.iter().all(|&b| b)),
        FilterOp::Exists => truth(booleans()?.iter().any(|&b| b)),
        FilterOp::Count => number(Rational::from(booleans()?.iter().filter(|&&b| b).count())),
        FilterOp::First | FilterOp::State => answer(single(op, items.len(), state_name)?, error),
        FilterOp::Argmin | FilterOp::Argmax => {
            let (best, all) = extreme(op == FilterOp::Argmax)?;
            Answer {
                listed: Some(Listed::Extremes(texts(all))),
                ..answer(best, error)
            }
        }
        FilterOp::Range => {
            let (lo, _) = extreme(false)?;
            let (hi, _) = extreme(true)?;
            Answer {
                listed: Some(Listed::Range {
                    min: text(lo),
                    max: text(hi),
                }),
                ..answer(lo, error)
            }
        }
        FilterOp::Print | FilterOp::Printall => {
            // `print` leaves out the states whose value is zero or false.
            let shown = (0..items.len())
                .filter(|&i| {
                    op == FilterOp::Printall
                        || match &items[i] {
                            Item::Bool(b) => *b,
                            Item::Num(x, _) => *x != 0.0,
                        }
                })
                .collect::<Vec<_>>();
            // The count is exact; the bound is the listed values'.
            Answer {
                listed: Some(Listed::Printed(texts(shown.clone()))),
                error_bound: error,
                ..number(Rational::from(shown.len()))
            }
        }
        FilterOp::Max | FilterOp::Min | FilterOp::Sum | FilterOp::Avg => {
            let xs = numbers()?;
            if xs.is_empty() {
                return Err(empty(op));
            }
            if xs.iter().all(|(_, q)| q.is_some()) {
                let qs = xs.into_iter().map(|(_, q)| q.expect("exact"));
                let n = items.len();
                number(match op {
                    FilterOp::Max => qs.reduce(|a, b| a.max(b)).expect("some"),
                    FilterOp::Min => qs.reduce(|a, b| a.min(b)).expect("some"),
                    FilterOp::Sum => qs.sum(),
                    _ => qs.sum::<Rational>() / Rational::from(n),
                })
            } else {
                let n = xs.len() as f64;
                let fs = xs.iter().map(|(x, _)| *x);
                // A sum and a mean in the float arithmetic that bounds its own rounding (the
                // values a plain float sum and division give): each value's error, times the
                // count for a sum, and the rounding of the sum and the division.
                let sum = || {
                    fs.clone()
                        .fold(Interval::exact(0.0), |sum, x| sum.add(&Interval::exact(x)))
                };
                let with = |x: Interval, error: f64| match error + Interval::bound(x.radius) {
                    0.0 => (x.value, 0.0),
                    b => (x.value, b.next_up()),
                };
                let (value, error) = match op {
                    FilterOp::Max => (fs.fold(f64::NEG_INFINITY, f64::max), error),
                    FilterOp::Min => (fs.fold(f64::INFINITY, f64::min), error),
                    FilterOp::Sum => with(sum(), error * n),
                    _ => with(sum().div(&Interval::exact(n)), error),
                };
                Answer {
                    value,
                    exact: None,
                    method: "filter",
                    states: 0,
                    holds: None,
                    error_bound: error,
                    listed: None,
                }
            }
        }
    })
}

/// A filter of an expression with queries in it (`filter(max, 1 - Pmin=? [ F φ ], x>0)`):
/// each query's value in every state, solved once, and the expression evaluated in each state
/// of `set` over them and the state's variables, as arithmetic over queries is at the start
/// (exactly where every part is, the error bounds carried through otherwise).
fn of_compound(f: Filtered<'_>, exact: bool, nested: Nested<'_>) -> Result<Answer, AnalysisError> {
    type Values = (Vec<crate::analysis::nested::StateValue>, f64);
    let (program, space) = (&f.loaded.program, &f.loaded.space);
    // Each query's values (by its text and whether exact), and each filter's answer.
    let mut values: HashMap<(String, bool), Values> = HashMap::new();
    let mut filters: HashMap<(String, bool), Answer> = HashMap::new();
    let mut items = Vec::with_capacity(f.set.len());
    let mut error = 0.0f64;
    let mut vals = Vec::new();
    // Each part over the state compiled once, and each query's text made once: the same
    // parts are met again in every state. (Keyed by the node, which outlives the loop.)
    let compiled: RefCell<HashMap<*const Expr, Rc<CExpr>>> = RefCell::new(HashMap::new());
    let mut texts: HashMap<*const Expr, String> = HashMap::new();
    for &s in f.set {
        space.unpack(program, s, &mut vals);
        let constant = |e: &Expr| -> Result<(Value, bool), AnalysisError> {
            let known = compiled.borrow().get(&(e as *const Expr)).cloned();
            let c = match known {
                Some(c) => c,
                None => {
                    let (file, src, scope) = (&f.prop.file, &f.prop.src, &f.props.scope);
                    let c = Rc::new(program.resolve_over_states(file, src, e, scope)?);
                    compiled.borrow_mut().insert(e, c.clone());
                    c
                }
            };
            let v = c
                .eval(&vals)
                .map_err(|error| part_in_state(e, space.show(program, s), error))?;
            Ok((v, c.inexact()))
        };
        let mut query = |e: &Expr, exact: bool| -> Result<Answer, AnalysisError> {
            let text = texts.entry(e).or_insert_with(|| e.to_string());
            let key = (text.clone(), exact);
            let ExprKind::Query(q) = &e.kind else {
                // A filter inside: the same in every state.
                if !filters.contains_key(&key) {
                    let a = nested(e, exact)?;
                    filters.insert(key.clone(), a);
                }
                return Ok(filters[&key].clone());
            };
            if !values.contains_key(&key) {
                let v = crate::analysis::nested::values(f.loaded, f.props, f.prop, q, exact)?;
                values.insert(key.clone(), v);
            }
            let (per_state, error) = &values[&key];
            let v = &per_state[s as usize];
            Ok(Answer {
                value: v.value,
                exact: v.exact.as_ref().map(Rational::to_string),
                method: "filter",
                states: space.len(),
                holds: None,
                error_bound: *error,
                listed: None,
            })
        };
        let a = crate::analysis::compound::evaluate(
            f.inner,
            &mut crate::analysis::compound::Env {
                query: &mut query,
                constant: &constant,
                exact,
            },
        )?;
        error = error.max(a.error_bound);
        items.push(match a.holds {
            Some(b) => Item::Bool(b),
            None => Item::Num(
                a.value,
                a.exact.as_deref().and_then(|t| Rational::from_str(t).ok()),
            ),
        });
    }
    aggregate(f.op, f.inner, &names(f.loaded, f.set), &items, error)
}

/// A filter of a query. `max`, `min`, `avg` and `sum` of a number, and `first` and `state`,
/// are answered with the states of `set` as initial states (one solve whose start aggregates
/// over them, exactly where asked); every other operation takes the query's value in each
/// state (a query with a bound, and CTL's `E` and `A`, whether it holds there).
fn of_query(f: Filtered<'_>, exact: bool) -> Result<Answer, AnalysisError> {
    let ExprKind::Query(query) = &f.inner.kind else {
        unreachable!("a query")
    };
    let boolean = crate::analysis::nested::is_state_formula(query);
    // The query from the states `from`, aggregated as `over` says.
    let answer = |from: Vec<u32>, over: OverInitial| -> Result<Answer, AnalysisError> {
        let mut space = f.loaded.space.clone();
        space.initial = from;
        let at = Loaded {
            program: f.loaded.program.clone(),
            space,
            build_seconds: f.loaded.build_seconds,
            decided: Vec::new(),
        };
        let r = resolve_over(&at.program, f.props, f.prop, over, query)?;
        let complement = r.complement;
        let a = answer_resolved(&at, f.props, f.prop, r.settle_zero(&at)?, exact)?;
        Ok(if complement { complemented(a) } else { a })
    };
    match f.op {
        FilterOp::Max | FilterOp::Min | FilterOp::Avg | FilterOp::Sum if !boolean => {
            if f.set.is_empty() {
                return Err(empty(f.op));
            }
            let over = match f.op {
                FilterOp::Max => OverInitial::Max,
                FilterOp::Min => OverInitial::Min,
                _ => OverInitial::Avg,
            };
            let a = answer(f.set.to_vec(), over)?;
            if f.op != FilterOp::Sum {
                return Ok(a);
            }
            let n = f.set.len() as f64;
            let exact = a.exact.as_deref().and_then(|q| {
                let q = Rational::from_str(q).ok()?;
                Some((q * Rational::from(f.set.len())).to_string())
            });
            // The product's own rounding (none where it is exact, as the sum of whole
            // values is), on top of the mean's bound times the count.
            let value = a.value * n;
            let rounding = match a.value.mul_add(n, -value) {
                0.0 => 0.0,
                _ => f64::EPSILON * value.abs(),
            };
            let error_bound = match a.error_bound * n + rounding {
                0.0 => 0.0,
                b => b.next_up(),
            };
            Ok(Answer {
                value,
                exact,
                error_bound,
                ..a
            })
        }
        FilterOp::First | FilterOp::State if !boolean => {
            let i = single(f.op, f.set.len(), &names(f.loaded, f.set))?;
            answer(vec![f.set[i]], OverInitial::Only)
        }
        FilterOp::Max
        | FilterOp::Min
        | FilterOp::Avg
        | FilterOp::Sum
        | FilterOp::Range
        | FilterOp::Argmin
        | FilterOp::Argmax
            if boolean =>
        {
            Err(wrong_kind(f.op, f.inner, true))
        }
        _ if boolean => {
            let holds = crate::analysis::nested::satisfying(f.loaded, f.props, f.prop, query)?;
            let items: Vec<Item> = f
                .set
                .iter()
                .map(|&s| Item::Bool(holds[s as usize]))
                .collect();
            aggregate(f.op, f.inner, &names(f.loaded, f.set), &items, 0.0)
        }
        _ => {
            let (values, error) =
                crate::analysis::nested::values(f.loaded, f.props, f.prop, query, exact)?;
            let items: Vec<Item> = f
                .set
                .iter()
                .map(|&s| {
                    let v = &values[s as usize];
                    Item::Num(v.value, v.exact.clone())
                })
                .collect();
            aggregate(f.op, f.inner, &names(f.loaded, f.set), &items, error)
        }
    }
}

/// Which of the `len` states of a filter (in PRISM's order, named by `name`) `first` (the
/// first) or `state` (the only one) takes.
fn single(
    op: FilterOp,
    len: usize,
    name: &dyn Fn(usize) -> String,
) -> Result<usize, AnalysisError> {
    match (op, len) {
        (_, 0) => Err(empty(op)),
        (FilterOp::State, n) if n > 1 => Err(AnalysisError::Filter(format!(
            "filter(state, …) takes one state, and {n} satisfy its condition (the first two: \
             {} and {})",
            name(0),
            name(1)
        ))),
        _ => Ok(0),
    }
}

fn empty(op: FilterOp) -> AnalysisError {
    AnalysisError::Filter(format!(
        "filter({}, …): no reachable state satisfies its condition",
        op.name()
    ))
}

/// A boolean answer.
pub(crate) fn truth(b: bool) -> Answer {
    Answer {
        value: if b { 1.0 } else { 0.0 },
        exact: None,
        method: "filter",
        states: 0,
        holds: Some(b),
        error_bound: 0.0,
        listed: None,
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
        listed: None,
    }
}
