//! State formulas checked in every state, PRISM's way: a query's value in each reachable state
//! ([`values`]), where a query with a bound (`P>=0.5 [ … ]`) or CTL's `E [ … ]` and `A [ … ]`
//! holds ([`satisfying`]), and a property with such formulas nested inside paths, filters'
//! conditions or other state formulas rewritten bottom-up so that each is the set of states
//! where it holds ([`lift`]), after which the rest of the pipeline sees a plain property.

use crate::analysis::error::{unsupported, AnalysisError};
use std::sync::Arc;

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;
use perfectplay::{Exact, Model, Solver};

use crate::analysis::answer::{bound_value, numeric_query};
use crate::analysis::check::{Asked, OverInitial};
use crate::analysis::ctl::{Graph, Interval, Quantifier};
use crate::analysis::prepared::Prepared;
use crate::analysis::resolved::{interval, resolve_over};
use crate::build::Loaded;
use crate::program::eval::{CExpr, StateSet};
use crate::program::props::{Prop, Props};
use crate::syntax::ast::{BinOp, Expr, ExprKind, Measure, Path, Query};

/// A query's value in one state: the nearest `f64` (`f64::INFINITY` for +∞) and, when solved
/// exactly, the fraction.
#[derive(Clone, Debug)]
pub(crate) struct StateValue {
    pub value: f64,
    pub exact: Option<Rational>,
}

/// The values of `query` (no bound) in every state of `loaded`'s space, and a bound on their
/// error (zero when exact); `exact` solves in rationals.
pub(crate) fn values(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    query: &Query,
    exact: bool,
) -> Result<(Vec<StateValue>, f64), AnalysisError> {
    let n = loaded.space.len();
    // Every state an initial one: the engine solves them all from one virtual start.
    let mut space = loaded.space.clone();
    space.initial = (0..n as u32).collect();
    let at = Loaded {
        program: loaded.program.clone(),
        space,
        build_seconds: loaded.build_seconds,
        decided: Vec::new(),
    };
    let r = resolve_over(&at.program, props, prop, OverInitial::Min, query)?.settle_zero(&at)?;
    let (program, space) = (&at.program, &at.space);
    let (q, through, target) = (&r.query, r.through.as_ref(), &r.target);
    let over = OverInitial::Min;
    let asked = Asked {
        program,
        space,
        query: q,
        through,
        target,
        over,
    };
    if exact && asked.inexact() {
        return Err(AnalysisError::Inexact);
    }
    let (mut vals, error) = match (r.steps, r.first) {
        _ if r.reward_bound.is_some() => {
            let bound = r.reward_bound.as_ref().expect("a reward bound");
            let epochs = match exact {
                false => crate::analysis::reward_bounded::epoch_floats(asked, bound)?,
                true => None,
            };
            if let Some(f) = epochs {
                let (at, iterated) = (f.at, f.iterated);
                floats(crate::analysis::bounded::Floats { at, iterated })
            } else {
                crate::analysis::reward_bounded::with_model(asked, bound, exact, |m, initial| {
                    solve_all(&m, n, |s| m.stands_for(initial[s as usize]), exact)
                })?
            }
        }
        (Some(last), first) => {
            let steps = crate::analysis::bounded::Steps { last, first };
            let m = crate::analysis::bounded::model(asked, steps)?;
            match exact {
                false => floats(crate::analysis::bounded::bounded_floats(&m)),
                true => {
                    m.fits()?;
                    solve_all(&m, n, |s| (s, last), exact)?
                }
            }
        }
        (None, first) if first > 0 => {
            let mut m = crate::analysis::bounded::lower_model(asked, first)?;
            // In floats by backups; exactly (or where the float solve fails), the product.
            let backed_up = match exact {
                false => crate::analysis::bounded::lower_floats(&mut m),
                true => None,
            };
            match backed_up {
                Some(f) => floats(f),
                None => {
                    m.fits()?;
                    solve_all(&m, n, |s| (s, 0), exact)?
                }
            }
        }
        _ if matches!(q.path, Path::LongRun(_)) => {
            let (m, averages) = crate::analysis::long_run::model(&asked, exact)?;
            let (vals, error) = solve_all(&m, n, |s| m.stands_for(s), exact)?;
            (vals, error + averages)
        }
        _ if matches!(q.path, Path::EventuallyZero(_)) => {
            one_at_a_time(program, space, query, (q, through, target), exact)?
        }
        _ => match asked.prepare()? {
            Prepared::Infinite => (vec![infinite(); n], 0.0),
            Prepared::Model(m) if m.is_total_game() => {
                one_at_a_time(program, space, query, (q, through, target), exact)?
            }
            Prepared::Model(m) => solve_all(&*m, n, |s| m.stands_for(s), exact)?,
        },
    };
    let mut error = error;
    if r.complement {
        let mut rounded = error;
        for v in &mut vals {
            v.value = match v.exact.take() {
                Some(q) => {
                    v.exact = Some(Rational::from(1) - q);
                    1.0 - v.value
                }
                None => {
                    let (value, e) = crate::analysis::answer::one_minus(v.value, error);
                    rounded = rounded.max(e);
                    value
                }
            };
        }
        error = rounded;
    }
    Ok((vals, error))
}

/// Every state's value and the error bound, from float backups over the steps.
fn floats(f: crate::analysis::bounded::Floats) -> (Vec<StateValue>, f64) {
    let error = f.at.error_bound();
    let values = (f.at.values.into_iter())
        .map(|value| StateValue { value, exact: None })
        .collect();
    (values, error)
}

fn infinite() -> StateValue {
    StateValue {
        value: f64::INFINITY,
        exact: None,
    }
}

/// The most states a query solved from one start at a time is solved from, one after the
/// other, for its value in every state.
const ONE_AT_A_TIME: usize = 4096;

/// The values in every state of `space` of a query that is solved from one start at a time
/// (`F0` where plays can miss the target, `Fc` on a game; `resolved` is its query, `ψ` and
/// `φ`): solved from each state in turn, up to [`ONE_AT_A_TIME`] states.
fn one_at_a_time(
    program: &crate::program::Program,
    space: &crate::build::Space,
    query: &Query,
    resolved: (&Query, Option<&CExpr>, &CExpr),
    exact: bool,
) -> Result<(Vec<StateValue>, f64), AnalysisError> {
    let n = space.len();
    if n > ONE_AT_A_TIME {
        return Err(unsupported(format!(
            "{query} is solved from one start at a time (F0 where plays can miss the target, \
             Fc on a game): its value in every state, as a nested formula or a filter needs, \
             is solved from each state in turn, up to {ONE_AT_A_TIME} states, and this model \
             has {n}"
        )));
    }
    let (q, through, target) = resolved;
    let mut one = space.clone();
    let mut vals = Vec::with_capacity(n);
    let mut error: f64 = 0.0;
    for s in 0..n as u32 {
        one.initial = vec![s];
        let asked = Asked {
            program,
            space: &one,
            query: q,
            through,
            target,
            over: OverInitial::Min,
        };
        let a = asked.solve(exact)?;
        error = error.max(a.error_bound);
        let exact = match a.exact {
            Some(text) => Some(
                text.parse::<Rational>()
                    .map_err(|_| AnalysisError::Internal("an exact value that is no fraction"))?,
            ),
            None => None,
        };
        vals.push(StateValue {
            value: a.value,
            exact,
        });
    }
    Ok((vals, error))
}

/// Solves `model`, whose state `at(s)` stands for state `s` of a space of `n` states, and reads
/// each state's value (+∞ where the model left a state out, as a reward query does those at
/// +∞); `exact` solves in rationals, and floats that fail fall back to them.
fn solve_all<M: Model>(
    model: &M,
    n: usize,
    at: impl Fn(u32) -> M::State,
    exact: bool,
) -> Result<(Vec<StateValue>, f64), AnalysisError> {
    if !exact {
        if let Ok(solution) = Solver::new(model).solve::<f64>() {
            let vals = (0..n as u32)
                .map(|s| match solution.value(&at(s)) {
                    Some(&v) => StateValue {
                        value: v,
                        exact: None,
                    },
                    None => infinite(),
                })
                .collect();
            return Ok((vals, solution.stats().error_bound));
        }
    }
    let solution = Solver::new(model)
        .solve::<Exact>()
        .map_err(AnalysisError::Solve)?;
    let vals = (0..n as u32)
        .map(|s| match solution.value(&at(s)) {
            Some(v) => StateValue {
                value: f64::rounding_from(&v.0, RoundingMode::Nearest).0,
                exact: Some(v.0.clone()),
            },
            None => infinite(),
        })
        .collect();
    Ok((vals, 0.0))
}

/// Whether `query` is CTL's `E [ … ]` or `A [ … ]`.
pub(crate) fn is_ctl(query: &Query) -> bool {
    matches!(query.what, Measure::Exists | Measure::Forall)
}

/// Whether `query` is a state formula, true or false in each state: a query with a bound
/// (`P>=0.5 [ … ]`, `R<3 [ … ]`), or CTL's `E [ … ]` or `A [ … ]`.
pub(crate) fn is_state_formula(query: &Query) -> bool {
    query.bound.is_some() || is_ctl(query)
}

/// The states of `loaded`'s space where the state formula `query` holds: a query with a bound
/// (`P>=0.5 [ … ]`, `R<3 [ … ]`), or CTL's `E [ … ]` or `A [ … ]`.
pub(crate) fn satisfying(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    query: &Query,
) -> Result<Vec<bool>, AnalysisError> {
    if is_ctl(query) {
        return ctl(loaded, props, prop, query);
    }
    let Some((op, bound)) = &query.bound else {
        return Err(unsupported(format!(
            "{query} is a number, where a state formula (true or false) is needed: give it a \
             bound (P>=0.5 [ … ])"
        )));
    };
    let b = bound_value(&loaded.program, props, prop, bound)?;
    if let Some(set) =
        crate::analysis::qualitative::satisfying(loaded, props, prop, query, *op, &b)?
    {
        return Ok(set);
    }
    let numeric = numeric_query(&loaded.program, query);
    let compare = |v: &Rational| match op {
        BinOp::Gt => *v > b,
        BinOp::Ge => *v >= b,
        BinOp::Lt => *v < b,
        _ => *v <= b,
    };
    let above = matches!(op, BinOp::Gt | BinOp::Ge);
    let (vals, error) = values(loaded, props, prop, &numeric, false)?;
    let w = f64::rounding_from(&b, RoundingMode::Nearest).0;
    let margin = |v: f64| (1e-9 * w.abs().max(1.0)).max(2.0 * error) < (v - w).abs();
    let clear = |v: &StateValue| v.value == f64::INFINITY || margin(v.value);
    if vals.iter().all(clear) {
        return Ok(vals
            .iter()
            .map(|v| match v.value {
                f64::INFINITY => above,
                x if above => x > w,
                x => x < w,
            })
            .collect());
    }
    // Some value is too close to the bound for floats: compared exactly.
    let inexact = {
        let r = resolve_over(&loaded.program, props, prop, OverInitial::Only, &numeric)?;
        r.asked(loaded).inexact()
    };
    if inexact {
        return Err(AnalysisError::TooClose(format!(
            "{query}: in some state the value is too close to the bound to compare in floating \
             point, and the model's numbers are floating point"
        )));
    }
    let (vals, _) = values(loaded, props, prop, &numeric, true)?;
    Ok(vals
        .iter()
        .map(|v| match &v.exact {
            Some(q) => compare(q),
            None => above,
        })
        .collect())
}

/// The states where CTL's `query` (`E [ … ]` or `A [ … ]`) holds, from the graph.
fn ctl(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    query: &Query,
) -> Result<Vec<bool>, AnalysisError> {
    let (program, space) = (&loaded.program, &loaded.space);
    if !loaded.decided.is_empty() {
        return Err(AnalysisError::PartialBuild(format!(
            "{query} is checked on every reachable state, and the model was built for other \
             properties (build it in full)"
        )));
    }
    let set = |e: &Expr| -> Result<Vec<bool>, AnalysisError> {
        let c = program.resolve_property(&prop.file, &prop.src, e, &props.scope)?;
        crate::analysis::check::states_where(space, program, &c)
    };
    let every = vec![true; space.len()];
    let graph = Graph::new(space);
    let q = match query.what {
        Measure::Exists => Quantifier::Some,
        _ => Quantifier::Every,
    };
    let steps = |s: Option<&crate::syntax::ast::Steps>| -> Result<Interval, AnalysisError> {
        Ok(match s {
            None => Interval {
                first: 0,
                last: None,
            },
            Some(s) => {
                let (first, last) = interval(program, props, prop, s)?;
                Interval { first, last }
            }
        })
    };
    use crate::analysis::ctl::{and, not};
    Ok(match &query.path {
        Path::Eventually(phi) => graph.until(q, &every, &set(phi)?, steps(None)?),
        Path::Until(psi, phi) => graph.until(q, &set(psi)?, &set(phi)?, steps(None)?),
        Path::Bounded {
            through,
            steps: bound,
            target,
        } => {
            let psi = match through {
                Some(psi) => set(psi)?,
                None => every,
            };
            graph.until(q, &psi, &set(target)?, steps(Some(bound))?)
        }
        Path::Next(phi) => graph.until(
            q,
            &every,
            &set(phi)?,
            Interval {
                first: 1,
                last: Some(1),
            },
        ),
        Path::Now(phi) => graph.until(
            q,
            &every,
            &set(phi)?,
            Interval {
                first: 0,
                last: Some(0),
            },
        ),
        Path::Globally {
            steps: bound,
            target,
        } => graph.globally(q, &set(target)?, steps(bound.as_ref())?),
        // `ψ W φ` is `¬(¬φ U (¬φ∧¬ψ))`, `ψ R φ` is `¬(¬ψ U ¬φ)`: the negated path under the
        // other quantifier.
        Path::WeakUntil(psi, phi, bound) => {
            let not_phi = not(&set(phi)?);
            let target = and(&not_phi, &not(&set(psi)?));
            not(&graph.until(q.dual(), &not_phi, &target, steps(bound.as_ref())?))
        }
        Path::Release(psi, phi, bound) => {
            let (not_psi, not_phi) = (not(&set(psi)?), not(&set(phi)?));
            not(&graph.until(q.dual(), &not_psi, &not_phi, steps(bound.as_ref())?))
        }
        Path::RewardBounded { .. } => {
            return Err(unsupported(format!(
                "{query}: E and A take step bounds (F<=k), not reward bounds"
            )))
        }
        _ => {
            return Err(unsupported(format!(
                "{query}: E and A take a path formula (F, G, X, U, W or R), not a reward's"
            )))
        }
    })
}

/// `prop` with every state formula nested in it (a query with a bound, `E [ … ]` or
/// `A [ … ]` inside a path, a filter's condition, or another state formula) replaced by the
/// set of states where it holds, innermost first; `None` when it has none. The sets are
/// labels of a copy of `props`, named by the formula's text.
pub(crate) fn lift(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
) -> Result<Option<(Props, Prop)>, AnalysisError> {
    if !has_nested(&prop.expr, false, false) {
        return Ok(None);
    }
    if !loaded.decided.is_empty() {
        return Err(AnalysisError::PartialBuild(format!(
            "{}: a formula nested in it is checked in every state, and the model was built for \
             other properties (build it in full)",
            prop.text
        )));
    }
    let (space, program) = (&loaded.space, &loaded.program);
    let mut satisfy = |props: &Props, q: &Query| -> Result<CExpr, AnalysisError> {
        let holds = satisfying(loaded, props, prop, q)?;
        let set = StateSet::new(
            holds.len(),
            |s| holds[s],
            |s| {
                let mut vals = Vec::new();
                space.unpack(program, s as u32, &mut vals);
                vals
            },
        );
        Ok(CExpr::States(Arc::new(set)))
    };
    lift_with(props, prop, &mut satisfy).map(Some)
}

/// `prop` with every state formula nested in it replaced by the label of the set of states
/// where it holds, innermost first, as [`lift`] does: a formula already a label of `props`
/// (by its text) is that label, and `satisfy` gives the set of any other, from the labels so
/// far and the formula (its own nested formulas already labels). Where `satisfy` fails, so
/// does the rewriting, at the first formula it could not give.
pub(crate) fn lift_with(
    props: &Props,
    prop: &Prop,
    satisfy: &mut dyn FnMut(&Props, &Query) -> Result<CExpr, AnalysisError>,
) -> Result<(Props, Prop), AnalysisError> {
    let mut lifted = Lifted {
        satisfy,
        props: props.clone(),
    };
    let expr = lifted.walk(&prop.expr, false, false)?;
    let mut prop = prop.clone();
    prop.expr = expr;
    Ok((lifted.props, prop))
}

/// Whether property `prop` holds a state formula nested in it, which [`lift`] checks in every
/// state of a built space.
pub(crate) fn nests(prop: &Prop) -> bool {
    has_nested(&prop.expr, false, false)
}

/// Whether `e` holds a state formula to lift (`nested` and `numbers` as in [`Lifted::walk`]:
/// a query with a number stays where numbers are taken).
fn has_nested(e: &Expr, nested: bool, numbers: bool) -> bool {
    match &e.kind {
        ExprKind::Query(q) => {
            (nested && (!numbers || is_state_formula(q)))
                || path_parts(&q.path)
                    .iter()
                    .any(|p| has_nested(p, true, false))
        }
        ExprKind::Filter(_, inner, states) => {
            has_nested(inner, !matches!(inner.kind, ExprKind::Query(_)), true)
                || states.as_ref().is_some_and(|s| has_nested(s, true, false))
        }
        ExprKind::Unary(_, a) => has_nested(a, nested, numbers),
        ExprKind::Binary(_, a, b) => {
            has_nested(a, nested, numbers) || has_nested(b, nested, numbers)
        }
        ExprKind::Ite(c, a, b) => [c, a, b].iter().any(|x| has_nested(x, nested, numbers)),
        ExprKind::Call(_, args) => args.iter().any(|x| has_nested(x, nested, numbers)),
        _ => false,
    }
}

/// The state formulas of a path.
fn path_parts(path: &Path) -> Vec<&Expr> {
    match path {
        Path::Eventually(a)
        | Path::EventuallyCumulative(a)
        | Path::EventuallyZero(a)
        | Path::Next(a)
        | Path::Now(a)
        | Path::Globally { target: a, .. } => vec![a],
        Path::Until(a, b) | Path::WeakUntil(a, b, _) | Path::Release(a, b, _) => vec![a, b],
        Path::Bounded {
            through, target, ..
        }
        | Path::RewardBounded {
            through, target, ..
        } => through.iter().chain([target]).collect(),
        Path::LongRun(Some(a)) => vec![a],
        Path::Total | Path::Cumulative(_) | Path::Instant(_) | Path::LongRun(None) => Vec::new(),
    }
}

/// The rewriting of [`lift_with`].
struct Lifted<'a> {
    satisfy: &'a mut dyn FnMut(&Props, &Query) -> Result<CExpr, AnalysisError>,
    props: Props,
}

impl Lifted<'_> {
    /// `e` with its nested state formulas replaced (`nested`: `e` stands where a state formula
    /// is evaluated in every state; `numbers`: there a query's number is taken too, as in a
    /// filter's expression, `filter(max, 1 - Pmin=? [ F φ ])`).
    fn walk(&mut self, e: &Expr, nested: bool, numbers: bool) -> Result<Expr, AnalysisError> {
        let kind = match &e.kind {
            ExprKind::Query(q) => {
                let mut inner = Query::clone(q);
                inner.path = q.path.try_map(&mut |p| self.walk(p, true, false))?;
                if nested && is_state_formula(&inner) {
                    return self.label(&inner, e);
                }
                if nested && !numbers {
                    return Err(unsupported(format!(
                        "{q} is a number, where a state formula (true or false) is needed: give \
                         it a bound (P>=0.5 [ … ])"
                    )));
                }
                ExprKind::Query(Box::new(inner))
            }
            ExprKind::Filter(op, inner, states) => {
                let direct = matches!(inner.kind, ExprKind::Query(_));
                let inner = self.walk(inner, !direct, true)?;
                let states = match states {
                    Some(s) => Some(Box::new(self.walk(s, true, false)?)),
                    None => None,
                };
                ExprKind::Filter(*op, Box::new(inner), states)
            }
            ExprKind::Unary(op, a) => {
                ExprKind::Unary(*op, Box::new(self.walk(a, nested, numbers)?))
            }
            ExprKind::Binary(op, a, b) => ExprKind::Binary(
                *op,
                Box::new(self.walk(a, nested, numbers)?),
                Box::new(self.walk(b, nested, numbers)?),
            ),
            ExprKind::Ite(c, a, b) => ExprKind::Ite(
                Box::new(self.walk(c, nested, numbers)?),
                Box::new(self.walk(a, nested, numbers)?),
                Box::new(self.walk(b, nested, numbers)?),
            ),
            ExprKind::Call(f, args) => ExprKind::Call(
                *f,
                args.iter()
                    .map(|a| self.walk(a, nested, numbers))
                    .collect::<Result<_, _>>()?,
            ),
            other => other.clone(),
        };
        Ok(Expr { kind, span: e.span })
    }

    /// The label of the states where state formula `q` (its own nested formulas lifted)
    /// holds, written at `at`.
    fn label(&mut self, q: &Query, at: &Expr) -> Result<Expr, AnalysisError> {
        let name = q.to_string();
        if !self.props.scope.labels.contains_key(&name) {
            let set = (self.satisfy)(&self.props, q)?;
            self.props.scope.labels.insert(name.clone(), set);
        }
        Ok(Expr {
            kind: ExprKind::Label(name),
            span: at.span,
        })
    }
}

/// CTL's `query` (`E [ … ]` or `A [ … ]`) at the initial states: true where it holds in every
/// one (PRISM's filter for a true-or-false property over several initial states).
pub(crate) fn at_initial_states(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    query: &Query,
) -> Result<crate::analysis::answers::Answer, AnalysisError> {
    let holds = satisfying(loaded, props, prop, query)?;
    let b = loaded.space.initial.iter().all(|&s| holds[s as usize]);
    Ok(crate::analysis::answers::Answer {
        value: b as u8 as f64,
        exact: None,
        method: "graph",
        states: loaded.space.len(),
        holds: Some(b),
        error_bound: 0.0,
        listed: None,
    })
}
