//! A property made ready for a solve across processes: its game over the model's own states,
//! written as bytes for the processes to share, and how its answer reads from the game's
//! values ([`AcrossReading`]).

use super::{refuse_ctl, resolve_prop};
use crate::analysis::across_answer::{AcrossReading, Comparison};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::nested::is_state_formula;
use crate::error::Error;
use crate::program::props::{Prop, Props};
use crate::program::Program;
use crate::syntax::ast::{ExprKind, FilterOp};

/// A property made ready for a solve across processes ([`across_query`]): its game, and how
/// its answer reads from the game's values ([`AcrossReading::answer`]).
pub struct AcrossQuery {
    /// The query's game over the model's own states, expanded when asked and written as
    /// bytes: each process of such a solve holds only its share of the states. It has no
    /// built space and no graph analysis behind it: its solver bounds the values itself.
    pub model: Box<dyn perfectplay::dynamic::DynModel>,
    /// Whether the property is an expected reward, not a probability: its value may be +∞,
    /// where the target may be missed, and the game's solver must give an endless play that
    /// worth (the minimiser loses it) rather than leave its bounds open there.
    pub reward: bool,
    /// Whether the answer is made of each initial state's value (their range, a bound that
    /// must hold in each, a filter over them): the game's start is then a chance node over
    /// them, and its solver must report the bounds of each of its outcomes, in order.
    pub each_initial: bool,
    /// Whether the property compares a probability with 0 or 1 (`P>0 [ … ]`, `P>=1 [ … ]`):
    /// its solver must then find the values of exactly 0 and 1 from the graph, as bounds that
    /// close in stop a float away from them.
    pub zero_one: bool,
    /// How the answer reads from the game's values.
    pub reading: AcrossReading,
}

/// Property `prop` of `props` on `program` for a solve across processes: a P query of `F`,
/// `U`, `X`, `G`, `W` or `R`, step bounds included, or an R query of `F`, `C<=k` or `I=k`,
/// asked (`=?`) or compared with a bound (`P>=0.5 [ … ]`), at the initial states (each of
/// several, as PRISM answers such a property: their range, or a bound that must hold in
/// each), or under a filter over them (`filter(op, …, "init")`, every operator). Any other
/// property is refused with an error that says so.
pub fn across_query(program: Program, props: &Props, prop: &Prop) -> Result<AcrossQuery, Error> {
    props.defined_for(prop)?;
    refuse_ctl(prop)?;
    let refused = || Error::of(&prop.text, unsupported(crate::analysis::across::NOT_ACROSS));
    if crate::analysis::nested::nests(prop) {
        return Err(refused());
    }
    // The query, and the filter over the initial states that the answer is made of, if any
    // (a filter's max, min or avg is the game's start itself).
    let (asked, filter) = match &prop.expr.kind {
        ExprKind::Query(_) => (&prop.expr, None),
        ExprKind::Filter(op, inner, states) if crate::analysis::filter::is_general(&prop.expr) => {
            let init = states
                .as_ref()
                .is_some_and(|s| matches!(&s.kind, ExprKind::Label(l) if l == "init"));
            match &inner.kind {
                ExprKind::Query(q) if init => {
                    let truth = is_state_formula(q);
                    if crate::analysis::filter::takes_truth(*op).is_some_and(|t| t != truth) {
                        let e = crate::analysis::filter::wrong_kind(*op, inner, truth);
                        return Err(Error::of(&prop.text, e));
                    }
                    (inner.as_ref(), Some(*op))
                }
                _ => return Err(refused()),
            }
        }
        ExprKind::Filter(..) => (&prop.expr, None),
        _ => return Err(refused()),
    };
    let mut r = resolve_prop(&program, props, prop, asked)?;
    // A bound is compared with the value the query's bound is checked on (the least over
    // an MDP's schedulers for `>=`, as in one process).
    let compare = match r.query.bound.clone() {
        Some((op, bound)) => {
            let bound = crate::analysis::answer::bound_value(&program, props, prop, &bound)
                .map_err(|e| Error::of(&prop.text, e))?;
            r.query =
                std::borrow::Cow::Owned(crate::analysis::answer::numeric_query(&program, &r.query));
            Some(Comparison { op, bound })
        }
        None => None,
    };
    if compare.is_some() && r.over != crate::analysis::check::OverInitial::Only {
        return Err(refused());
    }
    let complement = r.complement;
    let reward = matches!(r.query.what, crate::syntax::ast::Measure::Reward(_));
    let game =
        crate::analysis::across::across_model(program, &r).map_err(|e| Error::of(&prop.text, e))?;
    // `state` takes one state: told before the solve rather than after it.
    if filter == Some(FilterOp::State) && game.initial.len() > 1 {
        return Err(Error::of(
            &prop.text,
            AnalysisError::Filter(format!(
                "filter(state, …) takes one state, and {} satisfy its condition (the first \
                 two: {} and {})",
                game.initial.len(),
                game.initial[0],
                game.initial[1]
            )),
        ));
    }
    // Several initial states and no filter: their range, or a bound that holds in each.
    let filter = filter.or_else(|| {
        game.each_initial.then_some(match compare {
            Some(_) => FilterOp::Forall,
            None => FilterOp::Range,
        })
    });
    let zero_one = !reward
        && compare
            .as_ref()
            .is_some_and(|c| c.bound == 0 || c.bound == 1);
    Ok(AcrossQuery {
        model: game.model,
        reward,
        each_initial: game.each_initial,
        zero_one,
        reading: AcrossReading {
            text: prop.text.clone(),
            complement,
            reward,
            compare,
            filter,
            names: game.initial,
            inner: asked.clone(),
        },
    })
}
