//! `R…[ F0 φ ]` across processes (PRISM-games: a play that never reaches φ counts zero) in an
//! MDP or a game, as the queries the processes answer: see [`f0_as_f`]. (On a DTMC the
//! processes answer it as it is: the solve weighs each step's reward by the probability of
//! reaching from where it leads.)

use crate::analysis::error::unsupported;
use crate::analysis::error::AnalysisError;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Measure, Opt, Path, Query};

/// Why `R…[ F0 φ ]` is refused across processes where some plays miss φ and some reach it.
const F0_BETWEEN: &str = "across processes, R[ F0 φ ] is answered on a DTMC, and in an MDP or \
     a game where every play reaches φ almost surely whatever anyone does (it is then R[ F φ ]) \
     and where none can (it is then 0); here some plays may miss φ and others reach it, where \
     optimal play depends on the reward earned so far: check this property in one process";

/// Whether `e` is an `R…[ F0 φ ]` query.
pub(super) fn is_f0(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Query(q)
        if matches!(q.path, Path::EventuallyZero(_)) && matches!(q.what, Measure::Reward(_)))
}

/// `e` with each `R…[ F0 φ ]` in it (PRISM-games: a play that never reaches φ counts zero)
/// written as the queries the processes answer: `P>=1 [ F φ ] ? R…[ F φ ] : (P<=0 [ F φ ] ? 0
/// : R…[ F0 φ ])`. Where every play reaches φ almost surely whatever anyone does (`P>=1`
/// without a coalition is checked on the least probability, every player minimising), no
/// play counts zero, and F0 is F; where no play can reach it, every play counts zero; in
/// between, optimal play depends on the reward earned so far, which the game of the
/// processes does not count, and the F0 query left in the last branch is refused
/// ([`F0_BETWEEN`]) where it is used. A bound on the query (`R>=3 [ F0 φ ]`) stays on the F
/// query and compares 0 in the middle branch. Queries nested in a query are left alone (a
/// property with nested state formulas is answered otherwise).
pub(super) fn f0_as_f(e: &Expr) -> Expr {
    let boxed = |a: &Expr| Box::new(f0_as_f(a));
    let kind = match &e.kind {
        ExprKind::Query(q) => {
            let (Path::EventuallyZero(target), Measure::Reward(_)) = (&q.path, &q.what) else {
                return e.clone();
            };
            let at = |kind| Expr { kind, span: e.span };
            let number = |n: &str| at(ExprKind::Int(n.to_string()));
            let probability = |op, bound| {
                at(ExprKind::Query(Box::new(Query {
                    coalition: None,
                    what: Measure::Probability,
                    opt: Opt::None,
                    bound: Some((op, number(bound))),
                    path: Path::Eventually(target.clone()),
                    span: q.span,
                })))
            };
            let as_f = at(ExprKind::Query(Box::new(Query {
                path: Path::Eventually(target.clone()),
                ..(**q).clone()
            })));
            let zero = match &q.bound {
                None => at(ExprKind::Real("0.0".to_string())),
                Some((op, bound)) => at(ExprKind::Binary(
                    *op,
                    Box::new(number("0")),
                    Box::new(bound.clone()),
                )),
            };
            let between = at(ExprKind::Ite(
                Box::new(probability(BinOp::Le, "0")),
                Box::new(zero),
                Box::new(e.clone()),
            ));
            ExprKind::Ite(
                Box::new(probability(BinOp::Ge, "1")),
                Box::new(as_f),
                Box::new(between),
            )
        }
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, boxed(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, boxed(a), boxed(b)),
        ExprKind::Ite(c, a, b) => ExprKind::Ite(boxed(c), boxed(a), boxed(b)),
        ExprKind::Call(f, args) => ExprKind::Call(*f, args.iter().map(f0_as_f).collect()),
        ExprKind::Filter(op, inner, states) => ExprKind::Filter(*op, boxed(inner), states.clone()),
        _ => return e.clone(),
    };
    Expr { kind, span: e.span }
}

/// The refusal of `R…[ F0 φ ]` where some plays miss φ and others reach it, for the last
/// branch of [`f0_as_f`].
pub(super) fn f0_between() -> AnalysisError {
    unsupported(F0_BETWEEN)
}
