//! Resolved expressions and their evaluation on a state's variable values: in machine
//! integers where every operand is an integer or a boolean (guards and updates, the common
//! case), and in exact rationals otherwise.

use crate::program::value::{Value, Q};
use crate::syntax::ast::{BinOp, Func, UnOp};

/// A resolved expression: names are variable indices or folded constants.
#[derive(Clone, Debug, PartialEq)]
pub enum CExpr {
    /// A constant.
    Const(Value),
    /// Integer variable number `i`.
    Var(usize),
    /// Boolean variable number `i` (stored as 0 or 1).
    BoolVar(usize),
    /// A unary operator.
    Unary(UnOp, Box<CExpr>),
    /// A binary operator.
    Binary(BinOp, Box<CExpr>, Box<CExpr>),
    /// `c ? a : b`
    Ite(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// A function.
    Call(Func, Vec<CExpr>),
    /// A part whose value is floating point (`pow(x, 0.5)`, `log(x, 2)`, a constant whose
    /// fraction outgrows [`Q::MAX_BITS`], or one defined by such a part), as PRISM and Storm compute
    /// it, marked so that an exact solve refuses it (see [`CExpr::inexact`]).
    Inexact(Box<CExpr>),
    /// Whether the state is one of a set computed beforehand: a state formula nested in a
    /// property (`P>=0.5 [ … ]` or `E [ … ]` inside a path), which holds where the model
    /// checker found it to.
    States(std::sync::Arc<StateSet>),
}

/// A set of states by their variable values, for [`CExpr::States`]: the states listed, or
/// every state but them.
#[derive(Debug, PartialEq)]
pub struct StateSet {
    listed: rustc_hash::FxHashSet<Box<[i64]>>,
    /// Whether the set is every state but those listed (the smaller side is kept).
    complement: bool,
}

impl StateSet {
    /// The set of states `vals(s)` for which `member(s)`, of `n` states.
    pub(crate) fn new(
        n: usize,
        member: impl Fn(usize) -> bool,
        mut vals: impl FnMut(usize) -> Vec<i64>,
    ) -> StateSet {
        let inside = (0..n).filter(|&s| member(s)).count();
        let complement = inside * 2 > n;
        let listed = (0..n)
            .filter(|&s| member(s) != complement)
            .map(|s| vals(s).into_boxed_slice())
            .collect();
        StateSet { listed, complement }
    }

    /// Whether the state of variable values `vars` is in the set.
    pub(crate) fn contains(&self, vars: &[i64]) -> bool {
        self.listed.contains(vars) != self.complement
    }
}

/// Why an expression could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// Division by zero.
    DivByZero,
    /// A fraction beyond [`Q::MAX_BITS`], or an integer outside 64 bits.
    Overflow,
    /// A value that is no real number (`pow(-1, 0.5)`, `log(0, 2)`).
    NotReal(&'static str),
    /// An operand of the wrong type (caught by the checking pass, except in folded parts).
    Type(&'static str),
    /// An infinite number (`x/0`, or a literal beyond floating point's 1.8e308) where a
    /// finite one is needed: `floor`, `ceil` or `round` of it, an integer.
    Infinite,
    /// `pow` of two integers with a negative exponent: an integer by its type, and no integer
    /// in value (PRISM refuses it too).
    NegativeIntPower,
}

impl std::error::Error for EvalError {}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::DivByZero => f.write_str("division by zero"),
            EvalError::Overflow => f.write_str("a number too large for exact arithmetic"),
            EvalError::NotReal(what) => write!(f, "{what} is not a real number"),
            EvalError::Infinite => {
                f.write_str("an infinite number (x/0, as in PRISM) where an integer is needed")
            }
            EvalError::Type(what) => f.write_str(what),
            EvalError::NegativeIntPower => f.write_str(
                "pow of two integers with a negative exponent is no integer (as in PRISM, \
                 write the base as a double: pow(2.0, -1))",
            ),
        }
    }
}

/// `log(x, b)` where it is a whole number `k ≥ 0` (`x = b^k`), the one case where it is
/// rational for sure.
pub(crate) fn exact_log(x: Q, b: Q) -> Option<i64> {
    let mut p = Q::int(1);
    for k in 0..=128 {
        if p == x {
            return Some(k);
        }
        match p.checked_mul(b) {
            Some(next) if next != p => p = next,
            _ => break,
        }
    }
    None
}

/// `x/0` for `x` of sign `sign`, as PRISM's doubles give it: ±∞, and `0/0` no number.
fn infinity(sign: std::cmp::Ordering) -> Result<Value, EvalError> {
    match sign {
        std::cmp::Ordering::Greater => Ok(Value::Float(f64::INFINITY)),
        std::cmp::Ordering::Less => Ok(Value::Float(f64::NEG_INFINITY)),
        std::cmp::Ordering::Equal => Err(EvalError::NotReal("0/0")),
    }
}

fn int_of(q: Q) -> Result<Value, EvalError> {
    debug_assert!(q.is_integer());
    q.to_i64().map(Value::Int).ok_or(EvalError::Overflow)
}

fn num(v: Value) -> Result<Q, EvalError> {
    match v {
        // Beyond exact fractions (callers compute with one in floating point first).
        Value::Float(_) => Err(EvalError::Overflow),
        _ => v
            .number()
            .ok_or(EvalError::Type("a boolean where a number is expected")),
    }
}

fn boolean(v: Value) -> Result<bool, EvalError> {
    match v {
        Value::Bool(b) => Ok(b),
        _ => Err(EvalError::Type("a number where a boolean is expected")),
    }
}

/// `a op b` on numbers, an integer when both are.
fn arith(a: Value, b: Value, f: impl Fn(Q, Q) -> Option<Q>) -> Result<Value, EvalError> {
    let r = f(num(a)?, num(b)?).ok_or(EvalError::Overflow)?;
    match (a, b) {
        (Value::Int(_), Value::Int(_)) => int_of(r),
        _ => Ok(Value::Real(r)),
    }
}

impl CExpr {
    /// The value on variable values `vars`.
    pub fn eval(&self, vars: &[i64]) -> Result<Value, EvalError> {
        Ok(match self {
            CExpr::Const(v) => *v,
            CExpr::Var(i) => Value::Int(vars[*i]),
            CExpr::BoolVar(i) => Value::Bool(vars[*i] != 0),
            CExpr::States(set) => Value::Bool(set.contains(vars)),
            CExpr::Unary(UnOp::Not, e) => Value::Bool(!boolean(e.eval(vars)?)?),
            CExpr::Unary(UnOp::Neg, e) => match e.eval(vars)? {
                Value::Int(n) => Value::Int(n.checked_neg().ok_or(EvalError::Overflow)?),
                Value::Float(x) => Value::Float(-x),
                v => Value::Real(num(v)?.checked_neg().ok_or(EvalError::Overflow)?),
            },
            CExpr::Binary(op, a, b) => {
                // The boolean connectives look at their right side only when they must.
                match op {
                    BinOp::And => {
                        return Ok(Value::Bool(
                            boolean(a.eval(vars)?)? && boolean(b.eval(vars)?)?,
                        ))
                    }
                    BinOp::Or => {
                        return Ok(Value::Bool(
                            boolean(a.eval(vars)?)? || boolean(b.eval(vars)?)?,
                        ))
                    }
                    BinOp::Implies => {
                        return Ok(Value::Bool(
                            !boolean(a.eval(vars)?)? || boolean(b.eval(vars)?)?,
                        ))
                    }
                    _ => {}
                }
                let (x, y) = (a.eval(vars)?, b.eval(vars)?);
                if matches!(x, Value::Float(_)) || matches!(y, Value::Float(_)) {
                    return float_binary(*op, Float::of(x), Float::of(y))?.value("this number");
                }
                match op {
                    BinOp::Iff => Value::Bool(boolean(x)? == boolean(y)?),
                    BinOp::Eq | BinOp::Ne => {
                        let same = match (x, y) {
                            (Value::Bool(p), Value::Bool(q)) => p == q,
                            _ => num(x)? == num(y)?,
                        };
                        Value::Bool(same == (*op == BinOp::Eq))
                    }
                    BinOp::Lt => Value::Bool(num(x)? < num(y)?),
                    BinOp::Le => Value::Bool(num(x)? <= num(y)?),
                    BinOp::Gt => Value::Bool(num(x)? > num(y)?),
                    BinOp::Ge => Value::Bool(num(x)? >= num(y)?),
                    BinOp::Add => arith(x, y, Q::checked_add)?,
                    BinOp::Sub => arith(x, y, Q::checked_sub)?,
                    BinOp::Mul => arith(x, y, Q::checked_mul)?,
                    BinOp::Div => {
                        if num(y)? == Q::int(0) {
                            return infinity(num(x)?.cmp(&Q::int(0)));
                        }
                        Value::Real(num(x)?.checked_div(num(y)?).ok_or(EvalError::Overflow)?)
                    }
                    BinOp::And | BinOp::Or | BinOp::Implies => unreachable!("done above"),
                }
            }
            CExpr::Ite(c, a, b) => {
                if boolean(c.eval(vars)?)? {
                    a.eval(vars)?
                } else {
                    b.eval(vars)?
                }
            }
            CExpr::Call(f, args) => {
                let vals: Vec<Value> = args
                    .iter()
                    .map(|a| a.eval(vars))
                    .collect::<Result<_, _>>()?;
                match vals.iter().any(|v| matches!(v, Value::Float(_))) {
                    true => call_float(*f, &vals)?,
                    false => call(*f, &vals)?,
                }
            }
            CExpr::Inexact(e) => e.eval(vars)?,
        })
    }

    /// The value of this constant expression (it reads no variable) in floating point, as
    /// PRISM and Storm compute every number, for where its exact value outgrows
    /// [`Q::MAX_BITS`]: a number as the exact rational its double is, ±∞ as
    /// [`Value::Float`]; an error where it is no number.
    pub fn approximate(&self) -> Result<Value, EvalError> {
        float(self)?.value("this number")
    }

    /// Whether some part is [`CExpr::Inexact`]: its value may be a floating-point
    /// approximation.
    pub fn inexact(&self) -> bool {
        match self {
            CExpr::Inexact(_) => true,
            CExpr::Const(_) | CExpr::Var(_) | CExpr::BoolVar(_) | CExpr::States(_) => false,
            CExpr::Unary(_, a) => a.inexact(),
            CExpr::Binary(_, a, b) => a.inexact() || b.inexact(),
            CExpr::Ite(a, b, c) => a.inexact() || b.inexact() || c.inexact(),
            CExpr::Call(_, args) => args.iter().any(CExpr::inexact),
        }
    }

    /// Whether every value it takes is a whole number, as its shape shows: integer variables
    /// and whole constants, under `-`, `+`, `*`, `? :`, `min`, `max`, `floor`, `ceil`, `round`
    /// and `mod` (`d - 1.0` for an integer `d`: a power with it as exponent is rational).
    pub fn is_whole(&self) -> bool {
        match self {
            CExpr::Const(v) => v.number().is_some_and(|q| q.is_integer()),
            CExpr::Var(_) => true,
            CExpr::Unary(UnOp::Neg, a) => a.is_whole(),
            CExpr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
                a.is_whole() && b.is_whole()
            }
            CExpr::Ite(_, a, b) => a.is_whole() && b.is_whole(),
            CExpr::Call(Func::Floor | Func::Ceil | Func::Round | Func::Mod, _) => true,
            CExpr::Call(Func::Min | Func::Max, args) => args.iter().all(CExpr::is_whole),
            _ => false,
        }
    }

    /// The value as a boolean (the checking pass made sure it is one).
    #[inline]
    pub fn holds(&self, vars: &[i64]) -> Result<bool, EvalError> {
        match self.eval_int(vars) {
            Some(v) => Ok(v != 0),
            None => boolean(self.eval(vars)?),
        }
    }

    /// The value of an integer or boolean expression (a boolean as 0 or 1) in machine integers,
    /// the common case of guards and updates; `None` where that does not apply (a rational
    /// operand, a division, an overflow), and then [`CExpr::eval`] gives the value or the error.
    pub fn eval_int(&self, vars: &[i64]) -> Option<i64> {
        Some(match self {
            CExpr::Const(Value::Int(n)) => *n,
            CExpr::Const(Value::Bool(b)) => *b as i64,
            CExpr::Const(Value::Real(_) | Value::Float(_)) => return None,
            CExpr::Var(i) | CExpr::BoolVar(i) => vars[*i],
            CExpr::States(set) => set.contains(vars) as i64,
            CExpr::Unary(UnOp::Not, e) => 1 - e.eval_int(vars)?,
            CExpr::Unary(UnOp::Neg, e) => e.eval_int(vars)?.checked_neg()?,
            CExpr::Binary(op, a, b) => {
                let x = a.eval_int(vars)?;
                match op {
                    BinOp::And if x == 0 => return Some(0),
                    BinOp::Or if x != 0 => return Some(1),
                    BinOp::Implies if x == 0 => return Some(1),
                    _ => {}
                }
                let y = b.eval_int(vars)?;
                match op {
                    BinOp::And | BinOp::Or | BinOp::Implies => y,
                    BinOp::Iff | BinOp::Eq => (x == y) as i64,
                    BinOp::Ne => (x != y) as i64,
                    BinOp::Lt => (x < y) as i64,
                    BinOp::Le => (x <= y) as i64,
                    BinOp::Gt => (x > y) as i64,
                    BinOp::Ge => (x >= y) as i64,
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    BinOp::Mul => x.checked_mul(y)?,
                    BinOp::Div => return None,
                }
            }
            CExpr::Ite(c, a, b) => {
                if c.eval_int(vars)? != 0 {
                    a.eval_int(vars)?
                } else {
                    b.eval_int(vars)?
                }
            }
            CExpr::Inexact(e) => e.eval_int(vars)?,
            CExpr::Call(f, args) => match f {
                Func::Min | Func::Max => {
                    let mut best = args[0].eval_int(vars)?;
                    for a in &args[1..] {
                        let v = a.eval_int(vars)?;
                        if (*f == Func::Min && v < best) || (*f == Func::Max && v > best) {
                            best = v;
                        }
                    }
                    best
                }
                Func::Floor | Func::Ceil | Func::Round => args[0].eval_int(vars)?,
                Func::Mod => {
                    let (a, n) = (args[0].eval_int(vars)?, args[1].eval_int(vars)?);
                    a.checked_rem_euclid(n)?
                }
                Func::Pow => {
                    let (a, e) = (args[0].eval_int(vars)?, args[1].eval_int(vars)?);
                    a.checked_pow(u32::try_from(e).ok()?)?
                }
                Func::Log => return None,
            },
        })
    }
}

fn call(f: Func, v: &[Value]) -> Result<Value, EvalError> {
    let all_int = v.iter().all(|x| matches!(x, Value::Int(_)));
    Ok(match f {
        Func::Min | Func::Max => {
            let mut best = v[0];
            for &x in &v[1..] {
                let better = if f == Func::Min {
                    num(x)? < num(best)?
                } else {
                    num(x)? > num(best)?
                };
                if better {
                    best = x;
                }
            }
            if all_int {
                best
            } else {
                Value::Real(num(best)?)
            }
        }
        Func::Floor => int_of(num(v[0])?.floor())?,
        Func::Ceil => {
            let q = num(v[0])?;
            let fl = q.floor();
            match fl == q {
                true => int_of(fl)?,
                false => int_of(fl.checked_add(Q::int(1)).ok_or(EvalError::Overflow)?)?,
            }
        }
        Func::Round => {
            // PRISM rounds halves up (Math.round).
            let q = num(v[0])?;
            let half = Q::new(1, 2).expect("a half");
            int_of(q.checked_add(half).ok_or(EvalError::Overflow)?.floor())?
        }
        Func::Pow => {
            let (base, exp) = (num(v[0])?, num(v[1])?);
            if !exp.is_integer() {
                // Not rational in general: in floating point, as PRISM and Storm compute it.
                return Float::Num(base.to_f64().powf(exp.to_f64())).value("this pow");
            }
            // An exponent beyond 64 bits makes a number beyond any size a value may have
            // (but of 0, 1 and -1, which PRISM's doubles give as well in floating point).
            let e = exp.to_i64().ok_or(EvalError::Overflow)?;
            if all_int && e < 0 {
                return Err(EvalError::NegativeIntPower);
            }
            // By squaring: a huge exponent of 0, 1 or -1 is quick, of anything else an overflow.
            let (mut r, mut b, mut k) = (Q::int(1), base, e.unsigned_abs());
            while k > 0 {
                if k & 1 == 1 {
                    r = r.checked_mul(b).ok_or(EvalError::Overflow)?;
                }
                k >>= 1;
                if k > 0 {
                    b = b.checked_mul(b).ok_or(EvalError::Overflow)?;
                }
            }
            if e < 0 {
                if r == Q::int(0) {
                    // `pow(0.0, -k)`: 1/0, as Java's `Math.pow` gives it.
                    return infinity(std::cmp::Ordering::Greater);
                }
                r = Q::int(1).checked_div(r).ok_or(EvalError::Overflow)?;
            }
            if all_int && e >= 0 {
                int_of(r)?
            } else {
                Value::Real(r)
            }
        }
        Func::Mod => {
            let (Value::Int(a), Value::Int(n)) = (v[0], v[1]) else {
                return Err(EvalError::Type("mod takes two integers"));
            };
            if n == 0 {
                return Err(EvalError::DivByZero);
            }
            // The one overflow, `mod(i64::MIN, -1)`, is 0 as every remainder by -1 is.
            Value::Int(a.checked_rem_euclid(n).unwrap_or(0))
        }
        Func::Log => {
            let (x, b) = (num(v[0])?, num(v[1])?);
            return match exact_log(x, b) {
                Some(k) => Ok(Value::Real(Q::int(k))),
                None => Float::Num(x.to_f64().ln() / b.to_f64().ln()).value("this log"),
            };
        }
    })
}

/// A value in floating point (see [`CExpr::approximate`]).
#[derive(Clone, Copy)]
enum Float {
    Bool(bool),
    Num(f64),
}

impl Float {
    /// `v` in floating point.
    fn of(v: Value) -> Float {
        match v {
            Value::Bool(b) => Float::Bool(b),
            Value::Int(n) => Float::Num(n as f64),
            Value::Real(q) => Float::Num(q.to_f64()),
            Value::Float(x) => Float::Num(x),
        }
    }

    fn num(self) -> Result<f64, EvalError> {
        match self {
            Float::Num(x) => Ok(x),
            Float::Bool(_) => Err(EvalError::Type("a boolean where a number is expected")),
        }
    }

    fn boolean(self) -> Result<bool, EvalError> {
        match self {
            Float::Bool(b) => Ok(b),
            Float::Num(_) => Err(EvalError::Type("a number where a boolean is expected")),
        }
    }

    /// Back to a value: a number as the exact rational its double is, ±∞ as
    /// [`Value::Float`]; NaN is an error.
    fn value(self, what: &'static str) -> Result<Value, EvalError> {
        match self {
            Float::Bool(b) => Ok(Value::Bool(b)),
            Float::Num(x) => Value::of_f64(x).ok_or(EvalError::NotReal(what)),
        }
    }
}

/// Constant `e` in floating point.
fn float(e: &CExpr) -> Result<Float, EvalError> {
    let boolean = |e: &CExpr| float(e)?.boolean();
    Ok(match e {
        CExpr::Const(v) => Float::of(*v),
        CExpr::Var(_) | CExpr::BoolVar(_) | CExpr::States(_) => {
            return Err(EvalError::Type("a variable"))
        }
        CExpr::Inexact(a) => float(a)?,
        CExpr::Unary(UnOp::Not, a) => Float::Bool(!boolean(a)?),
        CExpr::Unary(UnOp::Neg, a) => Float::Num(-float(a)?.num()?),
        CExpr::Ite(c, a, b) => float(if boolean(c)? { a } else { b })?,
        // The connectives look at their right side only when they must.
        CExpr::Binary(BinOp::And, a, b) => Float::Bool(boolean(a)? && boolean(b)?),
        CExpr::Binary(BinOp::Or, a, b) => Float::Bool(boolean(a)? || boolean(b)?),
        CExpr::Binary(BinOp::Implies, a, b) => Float::Bool(!boolean(a)? || boolean(b)?),
        CExpr::Binary(op, a, b) => float_binary(*op, float(a)?, float(b)?)?,
        CExpr::Call(f, args) => {
            let xs: Vec<f64> = args
                .iter()
                .map(|a| float(a)?.num())
                .collect::<Result<_, _>>()?;
            Float::Num(float_call(*f, &xs))
        }
    })
}

/// `x op y` in floating point.
fn float_binary(op: BinOp, x: Float, y: Float) -> Result<Float, EvalError> {
    Ok(match op {
        BinOp::And => Float::Bool(x.boolean()? && y.boolean()?),
        BinOp::Or => Float::Bool(x.boolean()? || y.boolean()?),
        BinOp::Implies => Float::Bool(!x.boolean()? || y.boolean()?),
        BinOp::Iff => Float::Bool(x.boolean()? == y.boolean()?),
        BinOp::Eq | BinOp::Ne => {
            let same = match (x, y) {
                (Float::Bool(x), Float::Bool(y)) => x == y,
                (Float::Num(x), Float::Num(y)) => x == y,
                _ => return Err(EvalError::Type("a comparison of a boolean and a number")),
            };
            Float::Bool(same == (op == BinOp::Eq))
        }
        BinOp::Lt => Float::Bool(x.num()? < y.num()?),
        BinOp::Le => Float::Bool(x.num()? <= y.num()?),
        BinOp::Gt => Float::Bool(x.num()? > y.num()?),
        BinOp::Ge => Float::Bool(x.num()? >= y.num()?),
        BinOp::Add => Float::Num(x.num()? + y.num()?),
        BinOp::Sub => Float::Num(x.num()? - y.num()?),
        BinOp::Mul => Float::Num(x.num()? * y.num()?),
        // By the sign of `x` alone, as in the exact evaluation (`-0.0` is `0`).
        BinOp::Div => match (x.num()?, y.num()?) {
            (x, 0.0) => {
                let sign = x.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal);
                return Ok(Float::of(infinity(sign)?));
            }
            (x, y) => Float::Num(x / y),
        },
    })
}

/// Function `f` of `xs` in floating point.
fn float_call(f: Func, xs: &[f64]) -> f64 {
    match f {
        Func::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
        Func::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Func::Floor => xs[0].floor(),
        Func::Ceil => xs[0].ceil(),
        // PRISM rounds halves up (Math.round).
        Func::Round => (xs[0] + 0.5).floor(),
        Func::Pow => xs[0].powf(xs[1]),
        Func::Mod => xs[0].rem_euclid(xs[1]),
        Func::Log => xs[0].ln() / xs[1].ln(),
    }
}

/// Function `f` of values of which one at least is a [`Value::Float`], in floating point;
/// `floor`, `ceil` and `round` give an integer, or overflow; `min` and `max` one of the
/// values as it is.
fn call_float(f: Func, v: &[Value]) -> Result<Value, EvalError> {
    let xs: Vec<f64> = v
        .iter()
        .map(|&x| Float::of(x).num())
        .collect::<Result<_, _>>()?;
    let r = float_call(f, &xs);
    match f {
        Func::Mod => Err(EvalError::Type("mod takes two integers")),
        Func::Floor | Func::Ceil | Func::Round => {
            // Within i64's range as a double, the conversion is exact.
            match r.is_finite() && r.abs() < 9.2e18 {
                true => Ok(Value::Int(r as i64)),
                false if r.is_infinite() => Err(EvalError::Infinite),
                false => Err(EvalError::Overflow),
            }
        }
        // The operand itself, not its double: `min(1/0, 1/3)` is exactly a third.
        Func::Min | Func::Max => {
            use std::cmp::Ordering;
            let order = |i: usize, j: usize| match (v[i].number(), v[j].number()) {
                (Some(p), Some(q)) => p.cmp(&q),
                _ => xs[i].total_cmp(&xs[j]),
            };
            let best = (1..v.len()).fold(0, |best, i| match (f, order(i, best)) {
                (Func::Min, Ordering::Less) | (Func::Max, Ordering::Greater) => i,
                _ => best,
            });
            Ok(v[best])
        }
        Func::Pow => Float::Num(r).value("this pow"),
        Func::Log => Float::Num(r).value("this log"),
    }
}
