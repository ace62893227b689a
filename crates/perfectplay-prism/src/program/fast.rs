//! Expressions compiled for the builder's inner loop: the integer and boolean evaluation of
//! [`CExpr::eval_int`] on a flatter tree, with conjunctions and disjunctions n-ary and the
//! comparisons of a variable with a constant or another variable single nodes (most guards
//! are made of nothing else). It gives exactly what `eval_int` gives, `None` included, where
//! the slow path then takes over.

use crate::program::eval::CExpr;
use crate::program::value::Value;
use crate::syntax::ast::{BinOp, Func, UnOp};

/// Whether `op` compares two integers (booleans as 0 and 1: `<=>` is `=`).
fn compares(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Iff | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// `x op y` for a comparison `op`, as 0 or 1.
#[inline(always)]
fn compare(op: BinOp, x: i64, y: i64) -> i64 {
    (match op {
        BinOp::Eq | BinOp::Iff => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        _ => x >= y,
    }) as i64
}

/// An integer expression (booleans as 0 and 1).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IntExpr {
    /// A constant.
    Const(i64),
    /// A variable.
    Var(u32),
    /// `variable op constant`, for a comparison `op`.
    VarConst(BinOp, u32, i64),
    /// `variable op variable`.
    VarVar(BinOp, u32, u32),
    /// `a op b`.
    Compare(BinOp, Box<IntExpr>, Box<IntExpr>),
    /// Every operand non-zero, left to right, stopping at the first zero.
    All(Vec<IntExpr>),
    /// Some operand non-zero, left to right, stopping at the first.
    Any(Vec<IntExpr>),
    /// `a => b`.
    Implies(Box<IntExpr>, Box<IntExpr>),
    /// `!a`.
    Not(Box<IntExpr>),
    /// `-a`.
    Neg(Box<IntExpr>),
    /// `a + b`, `a - b`, `a * b` (checked).
    Arith(BinOp, Box<IntExpr>, Box<IntExpr>),
    /// `c ? a : b`.
    Ite(Box<IntExpr>, Box<IntExpr>, Box<IntExpr>),
    /// `min(…)` (`true`) or `max(…)`.
    MinMax(bool, Vec<IntExpr>),
    /// `mod(a, n)`.
    Mod(Box<IntExpr>, Box<IntExpr>),
    /// `pow(a, e)`.
    Pow(Box<IntExpr>, Box<IntExpr>),
    /// Where `eval_int` gives up (a rational, a division, a logarithm).
    Fail,
}

impl IntExpr {
    /// `e` compiled.
    pub(crate) fn new(e: &CExpr) -> IntExpr {
        let b = |e: &CExpr| Box::new(IntExpr::new(e));
        match e {
            CExpr::Const(Value::Int(n)) => IntExpr::Const(*n),
            CExpr::Const(Value::Bool(v)) => IntExpr::Const(*v as i64),
            CExpr::Const(Value::Real(_) | Value::Float(_)) | CExpr::States(_) => IntExpr::Fail,
            CExpr::Var(i) | CExpr::BoolVar(i) => IntExpr::Var(*i as u32),
            CExpr::Unary(UnOp::Not, a) => IntExpr::Not(b(a)),
            CExpr::Unary(UnOp::Neg, a) => IntExpr::Neg(b(a)),
            CExpr::Binary(op @ (BinOp::And | BinOp::Or), _, _) => {
                let mut parts = Vec::new();
                flatten(*op, e, &mut parts);
                let parts = parts.into_iter().map(IntExpr::new).collect();
                if *op == BinOp::And {
                    IntExpr::All(parts)
                } else {
                    IntExpr::Any(parts)
                }
            }
            CExpr::Binary(BinOp::Implies, x, y) => IntExpr::Implies(b(x), b(y)),
            CExpr::Binary(op, x, y) => {
                if compares(*op) {
                    return match (IntExpr::new(x), IntExpr::new(y)) {
                        (IntExpr::Var(v), IntExpr::Const(c)) => IntExpr::VarConst(*op, v, c),
                        (IntExpr::Var(v), IntExpr::Var(w)) => IntExpr::VarVar(*op, v, w),
                        (x, y) => IntExpr::Compare(*op, Box::new(x), Box::new(y)),
                    };
                }
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => IntExpr::Arith(*op, b(x), b(y)),
                    _ => IntExpr::Fail,
                }
            }
            CExpr::Ite(c, x, y) => IntExpr::Ite(b(c), b(x), b(y)),
            CExpr::Call(f, args) => match f {
                Func::Min | Func::Max => {
                    IntExpr::MinMax(*f == Func::Min, args.iter().map(IntExpr::new).collect())
                }
                Func::Floor | Func::Ceil | Func::Round => IntExpr::new(&args[0]),
                Func::Mod => IntExpr::Mod(b(&args[0]), b(&args[1])),
                Func::Pow => IntExpr::Pow(b(&args[0]), b(&args[1])),
                Func::Log => IntExpr::Fail,
            },
            CExpr::Inexact(a) => IntExpr::new(a),
        }
    }

    /// Whether boolean `slow`, compiled as `self`, holds on `vars`: by the compiled form where
    /// it gives a value, by the tree (and its error) otherwise.
    #[inline]
    pub(crate) fn holds(
        &self,
        slow: &CExpr,
        vars: &[i64],
    ) -> Result<bool, crate::program::eval::EvalError> {
        match self.eval(vars) {
            Some(v) => Ok(v != 0),
            None => slow.holds(vars),
        }
    }

    /// The value on variable values `vars`: what [`CExpr::eval_int`] gives.
    pub(crate) fn eval(&self, vars: &[i64]) -> Option<i64> {
        Some(match self {
            IntExpr::Const(n) => *n,
            IntExpr::Var(i) => vars[*i as usize],
            IntExpr::VarConst(op, v, c) => compare(*op, vars[*v as usize], *c),
            IntExpr::VarVar(op, v, w) => compare(*op, vars[*v as usize], vars[*w as usize]),
            IntExpr::Compare(op, x, y) => compare(*op, x.eval(vars)?, y.eval(vars)?),
            IntExpr::All(parts) => {
                for p in parts {
                    if p.eval(vars)? == 0 {
                        return Some(0);
                    }
                }
                1
            }
            IntExpr::Any(parts) => {
                for p in parts {
                    if p.eval(vars)? != 0 {
                        return Some(1);
                    }
                }
                0
            }
            IntExpr::Implies(x, y) => {
                if x.eval(vars)? == 0 {
                    1
                } else {
                    y.eval(vars)?
                }
            }
            IntExpr::Not(x) => 1 - x.eval(vars)?,
            IntExpr::Neg(x) => x.eval(vars)?.checked_neg()?,
            IntExpr::Arith(op, x, y) => {
                let (x, y) = (x.eval(vars)?, y.eval(vars)?);
                match op {
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    _ => x.checked_mul(y)?,
                }
            }
            IntExpr::Ite(c, x, y) => {
                if c.eval(vars)? != 0 {
                    x.eval(vars)?
                } else {
                    y.eval(vars)?
                }
            }
            IntExpr::MinMax(min, args) => {
                let mut best = args[0].eval(vars)?;
                for a in &args[1..] {
                    let v = a.eval(vars)?;
                    if (*min && v < best) || (!*min && v > best) {
                        best = v;
                    }
                }
                best
            }
            IntExpr::Mod(a, n) => a.eval(vars)?.checked_rem_euclid(n.eval(vars)?)?,
            IntExpr::Pow(a, e) => a
                .eval(vars)?
                .checked_pow(u32::try_from(e.eval(vars)?).ok()?)?,
            IntExpr::Fail => return None,
        })
    }
}

/// The operands of a chain of `op` (`a & b & c`), left to right.
fn flatten<'e>(op: BinOp, e: &'e CExpr, out: &mut Vec<&'e CExpr>) {
    match e {
        CExpr::Binary(o, a, b) if *o == op => {
            flatten(op, a, out);
            flatten(op, b, out);
        }
        _ => out.push(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;

    /// Every expression of a small model gives `eval_int`'s answer on every valuation,
    /// overflow and rationals included.
    #[test]
    fn compiled_expressions_agree_with_the_tree() {
        let src = "mdp
const int BIG = 4611686018427387904;
module m
  x : [-3..3] init 0;
  y : [0..4] init 0;
  b : bool init false;
  [] x=1 & y<3 | !b & (x>=y => y!=2) -> (x'=min(x+1, 3, y)) & (y'=max(0, mod(y*2-x, 5)));
  [] b <=> x>0 -> (y'=x>0 ? pow(x, 2) - x : (b ? 1 : 4));
  [] x*BIG*2 > 0 | y/2 = 1 -> (b'=!b);
  [] -x + y*y - 3 >= 0 & x = y & floor(y) = ceil(x) -> (x'=round(-1));
  [] pow(2, y) = 4 | 0.5 < x -> (x'=0);
endmodule
";
        let ast = crate::parse_model("m", src).unwrap();
        let program = Program::new("m", src, &ast, &[]).unwrap();
        let mut exprs: Vec<&CExpr> = Vec::new();
        for c in &program.commands {
            exprs.push(&c.guard);
            for (_, assigns) in &c.updates {
                exprs.extend(assigns.iter().map(|(_, e)| e));
            }
        }
        let mut checked = 0;
        for e in exprs {
            let fast = IntExpr::new(e);
            for x in -3..=3 {
                for y in 0..=4 {
                    for b in 0..=1 {
                        let vals = [x, y, b];
                        assert_eq!(fast.eval(&vals), e.eval_int(&vals), "{e:?} at {vals:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 300);
    }
}
