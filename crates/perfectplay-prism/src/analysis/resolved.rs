//! A property resolved against a model: its query (with `G`, `W` and `R` turned into the
//! complement of their dual `F` or `U` query, and `R[ F0 φ ]` settled as `F` where it is
//! that), how it aggregates over the initial states, its state formulas and its step bounds.

use crate::analysis::error::{unsupported, AnalysisError};
use std::borrow::Cow;

use crate::analysis::check::{Asked, OverInitial};
use crate::build::Loaded;
use crate::program::props::{Prop, Props};
use crate::program::value::Value;
use crate::program::{CExpr, Program};
use crate::syntax::ast::{BinOp, ExprKind, FilterOp, Opt, Path, Query};

/// A property resolved against the model: the query, how it aggregates over the initial
/// states, and its state formulas.
pub(crate) struct Resolved<'p> {
    pub(crate) over: OverInitial,
    pub(crate) query: Cow<'p, Query>,
    pub(crate) through: Option<CExpr>,
    pub(crate) target: CExpr,
    /// The step bound of `F<=k` and `U<=k` (the last step of `[a,b]`); `None` for none, and
    /// for a lower bound alone (`F>=k`).
    pub(crate) steps: Option<u32>,
    /// The first step at which the target counts: `a` of `[a,b]`, `k` of `>=k` and `=k`,
    /// `k+1` of `>k`, 1 for `X`, else 0.
    pub(crate) first: u32,
    /// Whether the property is one minus `query`'s value: `G`, `W` and `R` are asked as the
    /// complement of an `F` or `U` query (see [`dual`]).
    pub(crate) complement: bool,
    /// The reward bound of `F^{rew{"r"}<=b}` and `U^{rew{"r"}<=b}`, if any.
    pub(crate) reward_bound: Option<crate::analysis::reward_bounded::RewardBound>,
}

impl Resolved<'_> {
    /// The query as asked of `loaded`'s space, with its formulas and initial states.
    pub(crate) fn asked<'a, 'q>(&'q self, loaded: &'a Loaded) -> Asked<'a, 'q> {
        Asked {
            program: &loaded.program,
            space: &loaded.space,
            query: &self.query,
            through: self.through.as_ref(),
            target: &self.target,
            over: self.over,
        }
    }

    /// The property with `R[ F0 φ ]` rewritten as the `F` query it equals, where it equals
    /// one (see [`zero_as_reach_query`]); any other query as it is.
    pub(crate) fn settle_zero(self, loaded: &Loaded) -> Result<Self, AnalysisError> {
        if !matches!(self.query.path, Path::EventuallyZero(_)) {
            return Ok(self);
        }
        let (query, target) = zero_as_reach_query(loaded, &self.query, self.target, self.over)?;
        Ok(Resolved {
            query: Cow::Owned(query),
            target,
            ..self
        })
    }

    /// Where the property is decided whatever happens next: the target φ of `F φ` (and of the
    /// reward variants), φ or ¬ψ for `ψ U φ`, nowhere for the long run.
    pub(crate) fn decided(&self) -> CExpr {
        let lower_reward = self.reward_bound.as_ref().is_some_and(|b| !b.upper());
        if self.first > 0 || matches!(self.query.path, Path::LongRun(_)) || lower_reward {
            // The target does not count in the first states: they are expanded whatever
            // holds in them. Nor does the long run end anywhere.
            return CExpr::Const(Value::Bool(false));
        }
        match &self.through {
            None => self.target.clone(),
            Some(psi) => CExpr::Binary(
                BinOp::Or,
                Box::new(self.target.clone()),
                Box::new(CExpr::Unary(
                    crate::syntax::ast::UnOp::Not,
                    Box::new(psi.clone()),
                )),
            ),
        }
    }
}

/// Resolves `expr`, a query of property `prop` (the whole property, or a part of one that
/// computes with several).
pub(crate) fn resolve_prop<'p>(
    program: &Program,
    props: &Props,
    prop: &Prop,
    expr: &'p crate::syntax::ast::Expr,
) -> Result<Resolved<'p>, AnalysisError> {
    let (over, query) = match &expr.kind {
        ExprKind::Query(q) => (OverInitial::Only, q),
        ExprKind::Filter(op, inner, states) => {
            let over = match op {
                FilterOp::Max => OverInitial::Max,
                FilterOp::Min => OverInitial::Min,
                FilterOp::Avg => OverInitial::Avg,
                _ => return Err(unsupported(GENERAL_FILTER)),
            };
            let ExprKind::Query(q) = &inner.kind else {
                return Err(unsupported(GENERAL_FILTER));
            };
            if !crate::analysis::filter::over_initial(states) {
                return Err(unsupported(GENERAL_FILTER));
            }
            (over, q)
        }
        _ => {
            return Err(unsupported(
                "a property is a P or R query, a filter of one, or arithmetic over them",
            ))
        }
    };
    resolve_over(program, props, prop, over, query)
}

/// Why a filter is not resolved as one query at the initial states: it is over another set of
/// states, or of another kind, and `crate::analysis::filter` answers it.
pub(crate) const GENERAL_FILTER: &str =
    "a filter over states other than \"init\", or other than max, min or avg of a query";

/// Resolves `query` aggregated over the initial states as `over` says.
pub(crate) fn resolve_over<'p>(
    program: &Program,
    props: &Props,
    prop: &Prop,
    over: OverInitial,
    query: &'p Query,
) -> Result<Resolved<'p>, AnalysisError> {
    if crate::analysis::nested::is_ctl(query) {
        // Not a query for the engine: `crate::analysis::nested` checks it on the graph, over the whole
        // space (so a build is never cut short for it).
        return Err(unsupported(format!(
            "{query}: E and A are checked on the transition graph, not solved"
        )));
    }
    if let Some(dual) = dual(query)? {
        // One minus the greatest over the initial states is the least of one minus each.
        let over = match over {
            OverInitial::Max => OverInitial::Min,
            OverInitial::Min => OverInitial::Max,
            other => other,
        };
        let mut r = resolve_query(program, props, prop, over, Cow::Owned(dual))?;
        r.complement = true;
        return Ok(r);
    }
    resolve_query(program, props, prop, over, Cow::Borrowed(query))
}

/// `G`, `W` and `R` as the complement of an `F` or `U` query, optimised the other way: `G φ`
/// is `1 - F ¬φ`, `ψ W φ` is `1 - (¬φ U ¬φ∧¬ψ)`, `ψ R φ` is `1 - (¬ψ U ¬φ)`, each with its
/// step bound, if any, on the dual (which is how PRISM defines the bounded ones). A bound turns with them: `P>=b [ G φ ]` is `P<=1-b [ F ¬φ ]`. `None`
/// for every other path.
fn dual(query: &Query) -> Result<Option<Query>, AnalysisError> {
    use crate::syntax::ast::{Expr, UnOp};
    let not = |e: &Expr| Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e.clone())),
        span: e.span,
    };
    let and = |a: Expr, b: Expr| Expr {
        span: a.span,
        kind: ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
    };
    // `ψ U φ`, step-bounded where `steps` says.
    let until = |through: Expr, target: Expr, steps: Option<crate::syntax::ast::Steps>| match steps
    {
        None => Path::Until(through, target),
        Some(steps) => Path::Bounded {
            through: Some(through),
            steps,
            target,
        },
    };
    let path = match &query.path {
        Path::Globally {
            steps: None,
            target,
        } => Path::Eventually(not(target)),
        Path::Globally {
            steps: Some(steps),
            target,
        } => Path::Bounded {
            through: None,
            steps: steps.clone(),
            target: not(target),
        },
        Path::WeakUntil(psi, phi, steps) => until(not(phi), and(not(phi), not(psi)), steps.clone()),
        Path::Release(psi, phi, steps) => until(not(psi), not(phi), steps.clone()),
        _ => return Ok(None),
    };
    if !matches!(query.what, crate::syntax::ast::Measure::Probability) {
        return Err(unsupported(
            "a reward query takes F φ, Fc φ, F0 φ, C, C<=k or I=k",
        ));
    }
    let mut dual = query.clone();
    dual.path = path;
    dual.opt = match query.opt {
        Opt::Max => Opt::Min,
        Opt::Min => Opt::Max,
        Opt::None => Opt::None,
    };
    dual.bound = query.bound.as_ref().map(|(op, b)| {
        let flipped = match op {
            BinOp::Ge => BinOp::Le,
            BinOp::Gt => BinOp::Lt,
            BinOp::Le => BinOp::Ge,
            _ => BinOp::Gt,
        };
        let one = Expr {
            kind: ExprKind::Int("1".into()),
            span: b.span,
        };
        let rest = Expr {
            span: b.span,
            kind: ExprKind::Binary(BinOp::Sub, Box::new(one), Box::new(b.clone())),
        };
        (flipped, rest)
    });
    Ok(Some(dual))
}

/// What a reward query takes, said where it is given another path.
const REWARD_PATHS: &str = "a reward query takes F φ, Fc φ, F0 φ, C, C<=k or I=k; R of X, U or a \
     state formula alone (co-safe LTL) is not supported";

/// [`resolve_prop`] of `query` (the property's, or its [`dual`]), aggregated as `over`.
fn resolve_query<'p>(
    program: &Program,
    props: &Props,
    prop: &Prop,
    over: OverInitial,
    query: Cow<'p, Query>,
) -> Result<Resolved<'p>, AnalysisError> {
    let resolve = |e: &crate::syntax::ast::Expr| -> Result<CExpr, AnalysisError> {
        Ok(program.resolve_property(&prop.file, &prop.src, e, &props.scope)?)
    };
    if matches!(query.what, crate::syntax::ast::Measure::Probability)
        && matches!(
            query.path,
            Path::EventuallyCumulative(_)
                | Path::EventuallyZero(_)
                | Path::Total
                | Path::Cumulative(_)
                | Path::Instant(_)
        )
    {
        return Err(unsupported(
            "Fc, F0, C and I measure rewards: a P query takes F φ or ψ U φ",
        ));
    }
    if matches!(query.what, crate::syntax::ast::Measure::Reward(_))
        && matches!(
            query.path,
            Path::Until(..)
                | Path::Bounded { .. }
                | Path::RewardBounded { .. }
                | Path::Next(_)
                | Path::Now(_)
                | Path::LongRun(Some(_))
        )
    {
        return Err(unsupported(REWARD_PATHS));
    }
    let mut steps = None;
    let mut first = 0;
    let mut reward_bound = None;
    let (through, target) = match &query.path {
        Path::RewardBounded {
            through,
            bound,
            target,
        } => {
            reward_bound = Some(crate::analysis::reward_bounded::RewardBound {
                reward: bound.reward.clone(),
                op: bound.op,
                value: reward_bound_value(program, props, prop, bound)?,
            });
            let through = through.as_ref().map(resolve).transpose()?;
            (through, resolve(target)?)
        }
        Path::Eventually(t) => (None, resolve(t)?),
        Path::Until(a, b) => (Some(resolve(a)?), resolve(b)?),
        Path::EventuallyCumulative(t) | Path::EventuallyZero(t) => (None, resolve(t)?),
        // The whole play's reward: `Fc` of a target no state meets.
        Path::Total => (
            None,
            CExpr::Const(crate::program::value::Value::Bool(false)),
        ),
        // A reward over the first k steps, or at step k: no target.
        Path::Cumulative(k) | Path::Instant(k) => {
            let shown = match &query.path {
                Path::Cumulative(_) => format!("C<={k}"),
                _ => format!("I={k}"),
            };
            steps = Some(step_bound(program, props, prop, k, false, &shown)?);
            (
                None,
                CExpr::Const(crate::program::value::Value::Bool(false)),
            )
        }
        Path::Bounded {
            through,
            steps: bound,
            target,
        } => {
            let (from, last) = interval(program, props, prop, bound)?;
            first = from;
            steps = last;
            let through = through.as_ref().map(resolve).transpose()?;
            (through, resolve(target)?)
        }
        // φ after one step: the step-bounded game of one step, φ not counted at the start.
        Path::Next(t) => {
            steps = Some(1);
            first = 1;
            (None, resolve(t)?)
        }
        // φ in the first state: the step-bounded game of no step.
        Path::Now(t) => {
            steps = Some(0);
            (None, resolve(t)?)
        }
        // The long run: the fraction of steps in φ-states (`S`), or the reward per step.
        Path::LongRun(phi) => (
            None,
            match phi {
                Some(t) => resolve(t)?,
                None => CExpr::Const(crate::program::value::Value::Bool(false)),
            },
        ),
        Path::Globally { .. } | Path::WeakUntil(..) | Path::Release(..) => {
            return Err(AnalysisError::Internal(
                "G, W and R are asked by their dual",
            ))
        }
    };
    Ok(Resolved {
        over,
        query,
        through,
        target,
        steps,
        first,
        complement: false,
        reward_bound,
    })
}

/// The number `b` of a reward bound `rew{"r"}<=b`: a constant, exactly.
fn reward_bound_value(
    program: &Program,
    props: &Props,
    prop: &Prop,
    bound: &crate::syntax::ast::RewardBound,
) -> Result<perfectplay::Rat, AnalysisError> {
    let b = crate::analysis::answer::bound_value(program, props, prop, &bound.value)?;
    b.to_string()
        .parse()
        .map_err(|_| AnalysisError::Internal("a reward bound that is no fraction"))
}

/// The steps a step bound allows: the first (`a` of `[a,b]`, `k` of `>=k` and `=k`, `k+1` of
/// `>k`, else 0) and the last (`None` for a lower bound alone).
pub(crate) fn interval(
    program: &Program,
    props: &Props,
    prop: &Prop,
    bound: &crate::syntax::ast::Steps,
) -> Result<(u32, Option<u32>), AnalysisError> {
    let last = match &bound.to {
        Some(b) => Some(step_bound(program, props, prop, b, bound.strict, bound)?),
        None => None,
    };
    let mut first = 0;
    if let Some(a) = &bound.from {
        // `>k` counts from step k+1.
        first = step_bound(program, props, prop, a, false, bound)?
            .checked_add(bound.from_strict as u32)
            .ok_or_else(|| {
                AnalysisError::StepBound(format!("the step bound {bound} is too large"))
            })?;
        if last.is_some_and(|last| first > last) {
            return Err(AnalysisError::StepBound(format!(
                "the step bound {bound} starts after it ends"
            )));
        }
    }
    Ok((first, last))
}

/// The number of steps of a bound `<=k` (or `<k`, one fewer): a constant whole number.
/// `shown` is the bound as written, for the errors.
fn step_bound(
    program: &Program,
    props: &Props,
    prop: &Prop,
    bound: &crate::syntax::ast::Expr,
    strict: bool,
    shown: &dyn std::fmt::Display,
) -> Result<u32, AnalysisError> {
    let k = match program.resolve_value(&prop.file, &prop.src, bound, &props.scope)? {
        CExpr::Const(crate::program::value::Value::Int(k)) => k,
        _ => {
            return Err(AnalysisError::StepBound(format!(
                "the step bound {shown}: {bound} is not a constant integer"
            )))
        }
    };
    let k = if strict { k - 1 } else { k };
    u32::try_from(k).map_err(|_| {
        AnalysisError::StepBound(format!(
            "the step bound {shown} counts {k} steps: it must count none or more, and fewer \
             than 2^32"
        ))
    })
}

/// `R[ F0 φ ]` (a play that misses φ counts zero) as the query `R[ F ψ ]` with its value,
/// where that is so: `F φ` itself when every play reaches φ almost surely whatever every
/// player does (then missing φ has probability zero and the variants agree), `F true` (zero)
/// when no play can reach φ at all. Between the two, optimal play depends on the reward earned
/// so far, and the query stays as it is, for `crate::analysis::zero`.
fn zero_as_reach_query(
    loaded: &Loaded,
    query: &Query,
    target: CExpr,
    over: OverInitial,
) -> Result<(Query, CExpr), AnalysisError> {
    let model_type = loaded.program.model_type;
    let mut as_reach = query.clone();
    as_reach.path = match &query.path {
        Path::EventuallyZero(t) => Path::Eventually(t.clone()),
        other => other.clone(),
    };
    // The probability of reaching φ when every player minimises it (`all_min`) or maximises
    // it, at the worst (or best) initial state.
    let everyone =
        |all_min: bool| -> Result<bool, AnalysisError> {
            let mut reach = query.clone();
            reach.what = crate::syntax::ast::Measure::Probability;
            reach.bound = None;
            reach.path = as_reach.path.clone();
            reach.opt = match model_type {
                crate::syntax::ast::ModelType::Dtmc => Opt::None,
                _ if all_min => Opt::Min,
                _ => Opt::Max,
            };
            if model_type == crate::syntax::ast::ModelType::Smg {
                reach.coalition = Some(vec![crate::syntax::ast::Ident {
                    name: "*".into(),
                    span: query.span,
                }]);
            }
            let over = match over {
                OverInitial::Only => OverInitial::Only,
                _ if all_min => OverInitial::Min,
                _ => OverInitial::Max,
            };
            let want = if all_min { 1.0 } else { 0.0 };
            let asked = Asked {
                program: &loaded.program,
                space: &loaded.space,
                query: &reach,
                through: None,
                target: &target,
                over,
            };
            let solve = |exact| asked.check(exact);
            // The float answer says whether to look closer; the exact one decides.
            Ok(solve(false)?.value == want
                && solve(true)?.exact.as_deref() == Some(&*want.to_string()))
        };
    // Whether a play from an initial state can reach φ at all: then the greatest probability
    // is above zero, which the graph says without numbers (a float of it may underflow to
    // zero, and the exact solve that then decides costs far more).
    let reaches = || -> Result<bool, AnalysisError> {
        let space = &loaded.space;
        let at = crate::analysis::check::states_where(space, &loaded.program, &target)?;
        let seen =
            crate::analysis::graph::reachable(space, &space.initial, &vec![true; space.len()]);
        Ok(seen.iter().zip(&at).any(|(&seen, &at)| seen && at))
    };
    if everyone(true)? {
        return Ok((as_reach, target));
    }
    let eventually = matches!(as_reach.path, Path::Eventually(_));
    if !(eventually && reaches()?) && everyone(false)? {
        return Ok((as_reach, CExpr::Const(Value::Bool(true))));
    }
    // Between the two, optimal play depends on the reward earned so far: `crate::analysis::zero`.
    Ok((query.clone(), target))
}
