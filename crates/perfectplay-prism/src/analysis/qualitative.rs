//! Probability bounds of 0 and 1 on unbounded paths (`P>=1 [ F φ ]`, `P>0 [ ψ U φ ]`,
//! `P<1 [ G φ ]`, `P<=0 [ … ]`) checked in every state from the graph alone, as PRISM and Storm
//! do: whether the least or greatest probability is 0 or 1 depends only on which outcomes are
//! possible ([`graph::reach`] and [`graph::almost_sure`]), so no number is computed and the
//! sets are exact.

use crate::analysis::answer::numeric_query;
use crate::analysis::check::{model_type, states_where};
use crate::analysis::error::AnalysisError;
use crate::analysis::graph::{self, Predecessors, Side};
use crate::build::Loaded;
use crate::program::props::{Prop, Props};
use crate::syntax::ast::{BinOp, Expr, Measure, ModelType, Opt, Path, Query};
use malachite_q::Rational;

/// What a bound of 0 or 1 asks of a probability.
#[derive(Clone, Copy)]
enum Ask {
    /// `> 0`
    Positive,
    /// `>= 1`
    One,
    /// `<= 0`
    Zero,
    /// `< 1`
    BelowOne,
    /// Every state (`>= 0`, `<= 1`) or none (`> 1`, `< 0`).
    Always(bool),
}

impl Ask {
    /// The bound `op b` as an [`Ask`], or `None` where `b` is neither 0 nor 1.
    fn of(op: BinOp, b: &Rational) -> Option<Ask> {
        let (zero, one) = (*b == 0u32, *b == 1u32);
        Some(match op {
            BinOp::Gt if zero => Ask::Positive,
            BinOp::Ge if one => Ask::One,
            BinOp::Le if zero => Ask::Zero,
            BinOp::Lt if one => Ask::BelowOne,
            BinOp::Ge if zero => Ask::Always(true),
            BinOp::Le if one => Ask::Always(true),
            BinOp::Gt if one => Ask::Always(false),
            BinOp::Lt if zero => Ask::Always(false),
            _ => return None,
        })
    }

    /// The same question of `1 − p`: `1 − p > 0` is `p < 1`, and so on.
    fn complement(self) -> Ask {
        match self {
            Ask::Positive => Ask::BelowOne,
            Ask::One => Ask::Zero,
            Ask::Zero => Ask::One,
            Ask::BelowOne => Ask::Positive,
            Ask::Always(all) => Ask::Always(all),
        }
    }
}

/// The states where `query`, a P query bounded by `op b`, holds, when the bound is 0 or 1 and
/// the path is `F`, `U` or `G` without bounds on a DTMC or an MDP (a game without a coalition
/// is one); `None` where the numbers are needed (any other query, or a space built only in
/// part).
pub(crate) fn satisfying(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    query: &Query,
    op: BinOp,
    b: &Rational,
) -> Result<Option<Vec<bool>>, AnalysisError> {
    let (program, space) = (&loaded.program, &loaded.space);
    let Some(ask) = Ask::of(op, b) else {
        return Ok(None);
    };
    if query.what != Measure::Probability || !loaded.decided.is_empty() {
        return Ok(None);
    }
    // Who resolves the choices: the least probability has an adversary of the target, the
    // greatest an ally, a DTMC chance.
    let side = match (
        model_type(program, query),
        numeric_query(program, query).opt,
    ) {
        (ModelType::Dtmc, _) => Side::Chance,
        (ModelType::Mdp, Opt::Min) => Side::Adversary,
        (ModelType::Mdp, Opt::Max) => Side::Ally,
        _ => return Ok(None),
    };
    let set = |e: &Expr| -> Result<Vec<bool>, AnalysisError> {
        let c = program.resolve_property(&prop.file, &prop.src, e, &props.scope)?;
        states_where(space, program, &c)
    };
    let every = || vec![true; space.len()];
    // `G φ` is `¬ F ¬φ`: its probability is one minus that of `F ¬φ` with the choices
    // resolved the other way.
    let (ask, side, through, target) = match &query.path {
        Path::Eventually(phi) => (ask, side, every(), set(phi)?),
        Path::Until(psi, phi) => (ask, side, set(psi)?, set(phi)?),
        Path::Globally {
            steps: None,
            target,
        } => {
            let dual = match side {
                Side::Ally => Side::Adversary,
                Side::Adversary => Side::Ally,
                Side::Chance => Side::Chance,
            };
            let not_phi = set(target)?.iter().map(|&x| !x).collect();
            (ask.complement(), dual, every(), not_phi)
        }
        _ => return Ok(None),
    };
    let pred = Predecessors::new(space);
    let by = |_: u32| side;
    Ok(Some(match ask {
        Ask::Always(all) => vec![all; space.len()],
        Ask::Positive => graph::reach(space, &pred, &target, &through, by),
        Ask::Zero => negate(graph::reach(space, &pred, &target, &through, by)),
        Ask::One => graph::almost_sure(space, &pred, &target, &through, by),
        Ask::BelowOne => negate(graph::almost_sure(space, &pred, &target, &through, by)),
    }))
}

/// Each state's truth turned.
fn negate(set: Vec<bool>) -> Vec<bool> {
    set.into_iter().map(|x| !x).collect()
}
