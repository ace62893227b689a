//! Properties that compute with the values of queries, as PRISM allows:
//! `(1/2) * <<p1,p2>> R{"value12"}max=? [ F done ]`, `1 - Pmin=? [ F φ ]`,
//! `P=? [ F a ] > P=? [ F b ]`, `max(Pmax=? [ F a ], Pmax=? [ F b ])`.
//!
//! Each query is answered at the start exactly as it would be on its own; the arithmetic then
//! follows on the answers. The result is exact when every part is (`--exact`, or values the
//! graph analysis decides), +∞ follows the usual rules (an undefined `∞ − ∞` or `∞ · 0` is an
//! error, never a guess), and the certified error bound of an iterative answer is carried
//! through by interval arithmetic, so the reported bound still holds for the result.
//! Comparisons, `floor`, `ceil` and `round` would change their result on a rounding error, so
//! the queries under them are solved exactly.

use crate::analysis::error::{unsupported, AnalysisError};
use std::cmp::Ordering;
use std::str::FromStr;

use malachite_base::num::arithmetic::traits::{Floor, Pow};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;

use crate::analysis::answers::Answer;
use crate::program::value::Value;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Func, UnOp};

/// An intermediate result: a truth value or a number.
enum Part {
    Bool(bool),
    Num(Num),
}

/// A number with what is known of it: the nearest float (+∞ allowed), the exact value when
/// every part it came from was exact, and an interval certain to hold the true value.
#[derive(Clone)]
struct Num {
    value: f64,
    exact: Option<Rational>,
    lo: f64,
    hi: f64,
}

fn to_f64(q: &Rational) -> f64 {
    f64::rounding_from(q, RoundingMode::Nearest).0
}

/// An end of an interval, compared exactly: a float is the fraction it is.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum End {
    Below,
    At(Rational),
    Above,
}

impl End {
    fn of(x: f64) -> End {
        match Rational::try_from(x) {
            Ok(q) => End::At(q),
            Err(_) if x > 0.0 => End::Above,
            Err(_) => End::Below,
        }
    }
}

/// `[lo, hi]` made to hold whatever lies within `rel` of either end relative to it, and the
/// one rounding that computed each end: each moved outward to the next float.
fn outward(lo: f64, hi: f64, rel: f64) -> (f64, f64) {
    let lo = match lo.is_finite() {
        true => (lo - rel * lo.abs()).next_down(),
        false => lo,
    };
    let hi = match hi.is_finite() {
        true => (hi + rel * hi.abs()).next_up(),
        false => hi,
    };
    (lo, hi)
}

impl Num {
    fn exact(q: Rational) -> Num {
        // The ends are the floats either side of `q`, so that the interval holds it even
        // where its nearest float does not.
        let lo = f64::rounding_from(&q, RoundingMode::Floor).0;
        let hi = f64::rounding_from(&q, RoundingMode::Ceiling).0;
        Num {
            value: to_f64(&q),
            exact: Some(q),
            lo,
            hi,
        }
    }

    /// The ends of the interval that holds the true value, compared exactly: the exact value
    /// itself where it is known.
    fn ends(&self) -> (End, End) {
        match &self.exact {
            Some(q) => (End::At(q.clone()), End::At(q.clone())),
            None => (End::of(self.lo), End::of(self.hi)),
        }
    }

    fn from_answer(a: &Answer) -> Result<Num, AnalysisError> {
        if let Some(text) = &a.exact {
            let q = Rational::from_str(text)
                .map_err(|_| arithmetic(format!("the exact value '{text}' is not a fraction")))?;
            return Ok(Num::exact(q));
        }
        let (lo, hi) = match a.error_bound {
            0.0 => (a.value, a.value),
            b => outward(a.value - b, a.value + b, 0.0),
        };
        Ok(Num {
            value: a.value,
            exact: None,
            lo,
            hi,
        })
    }

    /// The greatest distance from the value to the ends of its interval.
    /// An exact value has none (it is given beside its nearest float).
    fn error_bound(&self) -> f64 {
        if self.value.is_infinite() || self.exact.is_some() {
            return 0.0;
        }
        let e = (self.value - self.lo).max(self.hi - self.value);
        if e.is_nan() {
            f64::INFINITY
        } else if e > 0.0 {
            // One rounding in the difference: the next float up covers it.
            e.next_up()
        } else {
            0.0
        }
    }

    /// A number computed in floats from `value` and the interval `[lo, hi]`, exact as `exact`.
    /// The ends of an inexact one, computed by one rounding each, are moved outward past it.
    fn made(value: f64, exact: Option<Rational>, lo: f64, hi: f64) -> Num {
        match exact {
            Some(q) => Num::exact(q),
            None => {
                let (lo, hi) = outward(lo, hi, 0.0);
                Num {
                    value,
                    exact: None,
                    lo: lo.min(value),
                    hi: hi.max(value),
                }
            }
        }
    }
}

/// The largest exponent of `pow` over a query's value.
const MAX_POWER: u64 = 1024;

/// Whether the value of `e` under a query would change its result on a rounding error
/// (comparisons, rounding to whole numbers), so that its queries are solved exactly.
pub(crate) fn needs_exact(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Query(_) | ExprKind::Filter(..) => false,
        ExprKind::Unary(_, a) => needs_exact(a),
        ExprKind::Binary(op, a, b) => {
            matches!(
                op,
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
            ) || needs_exact(a)
                || needs_exact(b)
        }
        ExprKind::Ite(c, a, b) => needs_exact(c) || needs_exact(a) || needs_exact(b),
        ExprKind::Call(f, args) => {
            matches!(f, Func::Floor | Func::Ceil | Func::Round) || args.iter().any(needs_exact)
        }
        _ => false,
    }
}

/// Whether `e` holds a query anywhere.
pub(crate) fn has_query(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Query(_) | ExprKind::Filter(..) => true,
        ExprKind::Unary(_, a) => has_query(a),
        ExprKind::Binary(_, a, b) => has_query(a) || has_query(b),
        ExprKind::Ite(c, a, b) => has_query(c) || has_query(a) || has_query(b),
        ExprKind::Call(_, args) => args.iter().any(has_query),
        _ => false,
    }
}

/// A part's value, and whether the model computes it in floating point.
pub(crate) type Constant = (Value, bool);

/// What evaluating a property needs from the session: the answer to one query (`P`, `R` or a
/// filter of one) at the start, solved exactly if asked, and the value of an expression free
/// of queries (constants and literals), with whether the model computes it in floating point
/// (a part marked inexact: the value is then the exact fraction of its double).
pub(crate) struct Env<'a> {
    pub query: &'a mut dyn FnMut(&Expr, bool) -> Result<Answer, AnalysisError>,
    pub constant: &'a dyn Fn(&Expr) -> Result<Constant, AnalysisError>,
    /// Whether queries are solved exactly even where no comparison needs it (`--exact`).
    pub exact: bool,
}

/// The answer to the property `e`, which computes with the values of its queries.
pub(crate) fn evaluate(e: &Expr, env: &mut Env<'_>) -> Result<Answer, AnalysisError> {
    let mut parts = Parts {
        methods: Vec::new(),
        states: 0,
    };
    let exact = env.exact || needs_exact(e);
    let result = parts.eval(e, env, exact)?;
    let method = match parts.methods.as_slice() {
        [] => "constant",
        [first, rest @ ..] if rest.iter().all(|m| m == first) => first,
        _ => "combined",
    };
    Ok(match result {
        Part::Bool(b) => Answer {
            value: if b { 1.0 } else { 0.0 },
            exact: None,
            method,
            states: parts.states,
            holds: Some(b),
            error_bound: 0.0,
            listed: None,
        },
        Part::Num(n) => Answer {
            value: n.value,
            exact: n.exact.as_ref().map(|q| q.to_string()),
            method,
            states: parts.states,
            holds: None,
            error_bound: n.error_bound(),
            listed: None,
        },
    })
}

/// The method of a constant the model computes in floating point, taken as the exact
/// fraction of its double.
const FLOAT_CONSTANT: &str = "constant, from floating-point inputs";

/// What the answered queries report together.
struct Parts {
    methods: Vec<&'static str>,
    states: usize,
}

fn num(p: Part, what: &str) -> Result<Num, AnalysisError> {
    match p {
        Part::Num(n) => Ok(n),
        Part::Bool(_) => Err(arithmetic(format!(
            "{what} takes a number, not a truth value"
        ))),
    }
}

fn truth(p: Part, what: &str) -> Result<bool, AnalysisError> {
    match p {
        Part::Bool(b) => Ok(b),
        Part::Num(_) => Err(arithmetic(format!(
            "{what} takes a truth value, not a number"
        ))),
    }
}

impl Parts {
    fn eval(&mut self, e: &Expr, env: &mut Env<'_>, exact: bool) -> Result<Part, AnalysisError> {
        if !has_query(e) {
            // A literal beyond the model's fractions is a double there; here it is exact.
            let constant = match long_literal(e) {
                true => Err(arithmetic("a number beyond the model's fractions")),
                false => (env.constant)(e),
            };
            match constant {
                Ok((v, inexact)) => {
                    if inexact {
                        // `--exact` refuses it, as it refuses a query that reads it.
                        if env.exact {
                            return Err(AnalysisError::Inexact);
                        }
                        self.methods.push(FLOAT_CONSTANT);
                    }
                    // A double is taken as its own value, as every number the model computes.
                    return Ok(match v {
                        Value::Bool(b) => Part::Bool(b),
                        // ±∞ (`x/0` in a constant).
                        Value::Float(x) if x.is_infinite() => Part::Num(Num::made(x, None, x, x)),
                        number => {
                            Part::Num(Num::exact(number.rational().expect("a finite number")))
                        }
                    });
                }
                // What the model's numbers cannot hold is computed here, part by part, in
                // unbounded rationals (`1e300`, a decimal of any length) and with PRISM's
                // `x/0` (±∞).
                Err(err) => match &e.kind {
                    ExprKind::Int(text) | ExprKind::Real(text) => {
                        return Ok(Part::Num(Num::exact(literal(text).ok_or(err)?)))
                    }
                    ExprKind::Unary(..)
                    | ExprKind::Binary(..)
                    | ExprKind::Ite(..)
                    | ExprKind::Call(..)
                        if beyond_model_numbers(e) => {}
                    _ => return Err(err),
                },
            }
        }
        match &e.kind {
            ExprKind::Query(_) | ExprKind::Filter(..) => {
                let a = (env.query)(e, exact).map_err(|error| AnalysisError::Part {
                    part: e.to_string(),
                    error: Box::new(error),
                })?;
                self.methods.push(a.method);
                self.states = self.states.max(a.states);
                Ok(match a.holds {
                    Some(b) => Part::Bool(b),
                    None => Part::Num(Num::from_answer(&a)?),
                })
            }
            ExprKind::Unary(UnOp::Not, a) => {
                Ok(Part::Bool(!truth(self.eval(a, env, exact)?, "!")?))
            }
            ExprKind::Unary(UnOp::Neg, a) => {
                let a = num(self.eval(a, env, exact)?, "-")?;
                Ok(Part::Num(Num::made(
                    -a.value,
                    a.exact.map(|q| -q),
                    -a.hi,
                    -a.lo,
                )))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.eval(a, env, exact)?;
                // The connectives look at their right side only when they must, as PRISM's.
                match (op, &a) {
                    (BinOp::And | BinOp::Implies, Part::Bool(false)) => {
                        return Ok(Part::Bool(*op == BinOp::Implies))
                    }
                    (BinOp::Or, Part::Bool(true)) => return Ok(Part::Bool(true)),
                    _ => {}
                }
                let b = self.eval(b, env, exact)?;
                Ok(binary(*op, a, b)?)
            }
            ExprKind::Ite(c, a, b) => {
                if truth(self.eval(c, env, exact)?, "? :")? {
                    self.eval(a, env, exact)
                } else {
                    self.eval(b, env, exact)
                }
            }
            ExprKind::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(num(self.eval(a, env, exact)?, f.name())?);
                }
                let every_exact = vals.iter().all(|v| v.exact.is_some());
                let result = call(*f, vals)?;
                // A power with an exponent that is not whole need not be rational.
                if env.exact && every_exact && matches!(&result, Part::Num(n) if n.exact.is_none())
                {
                    return Err(AnalysisError::Inexact);
                }
                Ok(result)
            }
            _ => unreachable!("only compound expressions hold queries"),
        }
    }
}

/// Whether `e` divides, or writes a number the model's fractions cannot hold: then
/// part by part evaluation can answer where the model's evaluation fails.
fn beyond_model_numbers(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Real(_) => long_literal(e),
        ExprKind::Binary(BinOp::Div, ..) => true,
        ExprKind::Unary(_, a) => beyond_model_numbers(a),
        ExprKind::Binary(_, a, b) => beyond_model_numbers(a) || beyond_model_numbers(b),
        ExprKind::Ite(c, a, b) => [c, a, b].iter().any(|x| beyond_model_numbers(x)),
        ExprKind::Call(_, args) => args.iter().any(beyond_model_numbers),
        _ => false,
    }
}

/// Whether `e` writes a number literal the model's fractions cannot hold.
fn long_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(t) => t.parse::<i64>().is_err(),
        ExprKind::Real(t) => crate::program::value::Q::parse_decimal(t).is_none(),
        ExprKind::Unary(_, a) => long_literal(a),
        ExprKind::Binary(_, a, b) => long_literal(a) || long_literal(b),
        ExprKind::Ite(c, a, b) => [c, a, b].iter().any(|x| long_literal(x)),
        ExprKind::Call(_, args) => args.iter().any(long_literal),
        _ => false,
    }
}

/// A number literal (`12`, `0.25`, `1e300`, `2.5E-7`) as an exact rational of any size;
/// `None` if it is none. Beyond a power of ten of 100,000 a literal is no number PRISM (or a
/// double) could mean.
fn literal(text: &str) -> Option<Rational> {
    crate::program::value::decimal(text, u64::MAX, 100_000)
}

fn binary(op: BinOp, a: Part, b: Part) -> Result<Part, AnalysisError> {
    let text = op.text();
    match op {
        BinOp::And => Ok(Part::Bool(truth(a, text)? && truth(b, text)?)),
        BinOp::Or => Ok(Part::Bool(truth(a, text)? || truth(b, text)?)),
        BinOp::Implies => Ok(Part::Bool(!truth(a, text)? || truth(b, text)?)),
        BinOp::Iff => Ok(Part::Bool(truth(a, text)? == truth(b, text)?)),
        BinOp::Eq | BinOp::Ne => match (a, b) {
            (Part::Bool(x), Part::Bool(y)) => Ok(Part::Bool((x == y) == (op == BinOp::Eq))),
            (a, b) => {
                let o = compare(&num(a, text)?, &num(b, text)?)?;
                Ok(Part::Bool((o == Ordering::Equal) == (op == BinOp::Eq)))
            }
        },
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let o = compare(&num(a, text)?, &num(b, text)?)?;
            Ok(Part::Bool(match op {
                BinOp::Lt => o == Ordering::Less,
                BinOp::Le => o != Ordering::Greater,
                BinOp::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
            Ok(Part::Num(arith(op, &num(a, text)?, &num(b, text)?)?))
        }
    }
}

/// The order of two numbers: exact when both are, else by the intervals that hold them,
/// compared exactly, which must not overlap (in one process, queries under a comparison are
/// solved exactly; across processes, their values are floats with certified bounds).
fn compare(a: &Num, b: &Num) -> Result<Ordering, AnalysisError> {
    if let (Some(x), Some(y)) = (&a.exact, &b.exact) {
        return Ok(x.cmp(y));
    }
    let ((a_lo, a_hi), (b_lo, b_hi)) = (a.ends(), b.ends());
    if a_hi < b_lo {
        Ok(Ordering::Less)
    } else if b_hi < a_lo {
        Ok(Ordering::Greater)
    } else if a_lo == a_hi && a_hi == b_lo && b_lo == b_hi {
        // Both known to be the same number (or the same infinity).
        Ok(Ordering::Equal)
    } else {
        Err(AnalysisError::TooClose(format!(
            "{} (between {} and {}) and {} (between {} and {}) are too close to compare \
             within their certified bounds: ask for a finer precision, or check it in one \
             process (exactly, with its --exact)",
            show(a.value),
            show(a.lo),
            show(a.hi),
            show(b.value),
            show(b.lo),
            show(b.hi)
        )))
    }
}

fn arith(op: BinOp, a: &Num, b: &Num) -> Result<Num, AnalysisError> {
    let zero_divisor = match &b.exact {
        Some(q) => *q == 0u32,
        None => b.value == 0.0,
    };
    if op == BinOp::Div && zero_divisor {
        // As in PRISM (IEEE doubles): x/0 is ±∞ by the sign of x; 0/0 is no number.
        let sign = match &a.exact {
            Some(q) => q.cmp(&Rational::from(0u32)),
            None if a.lo > 0.0 => Ordering::Greater,
            None if a.hi < 0.0 => Ordering::Less,
            None => Ordering::Equal,
        };
        return match sign {
            Ordering::Greater => Ok(Num::made(f64::INFINITY, None, f64::INFINITY, f64::INFINITY)),
            Ordering::Less => Ok(Num::made(
                f64::NEG_INFINITY,
                None,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            )),
            Ordering::Equal => Err(arithmetic(format!(
                "{}/0 is undefined (0/0 is no number; x/0 is ±∞ only for x clear of zero)",
                show(a.value)
            ))),
        };
    }
    let f = |x: f64, y: f64| match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        _ => x / y,
    };
    let exact = match (&a.exact, &b.exact) {
        (Some(x), Some(y)) => Some(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            _ => x / y,
        }),
        _ => None,
    };
    let value = f(a.value, b.value);
    if value.is_nan() {
        return Err(arithmetic(format!(
            "{} {} {} is undefined",
            show(a.value),
            op.text(),
            show(b.value)
        )));
    }
    if exact.is_some() {
        return Ok(Num::made(value, exact, value, value));
    }
    // Each end, and whether every operation that computed the ends was exact (then they need
    // not move outward for their rounding).
    let (lo, hi, exact_ends) = match op {
        BinOp::Add => (
            a.lo + b.lo,
            a.hi + b.hi,
            exactly(op, a.lo, b.lo) && exactly(op, a.hi, b.hi),
        ),
        BinOp::Sub => (
            a.lo - b.hi,
            a.hi - b.lo,
            exactly(op, a.lo, b.hi) && exactly(op, a.hi, b.lo),
        ),
        // An interval around zero as divisor bounds nothing.
        BinOp::Div if b.lo <= 0.0 && b.hi >= 0.0 => (f64::NEG_INFINITY, f64::INFINITY, true),
        _ => {
            let pairs = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)];
            let corners = pairs.map(|(x, y)| f(x, y));
            if corners.iter().any(|c| c.is_nan()) {
                (f64::NEG_INFINITY, f64::INFINITY, true)
            } else {
                (
                    corners.iter().copied().fold(f64::INFINITY, f64::min),
                    corners.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    pairs.iter().all(|&(x, y)| exactly(op, x, y)),
                )
            }
        }
    };
    match exact_ends {
        true => Ok(Num {
            value,
            exact: None,
            lo: lo.min(value),
            hi: hi.max(value),
        }),
        false => Ok(Num::made(value, None, lo, hi)),
    }
}

/// Whether `x op y` in floats is the exact result: checked by the error-free transformations
/// (TwoSum for a sum or difference, a fused multiply-add for a product or quotient), only for
/// finite operands and results away from the subnormal range, where the check itself could
/// round; infinite ends are kept as they are.
fn exactly(op: BinOp, x: f64, y: f64) -> bool {
    const TINY: f64 = 1e-290;
    if x.is_infinite() || y.is_infinite() {
        return true;
    }
    let normal = |z: f64| z == 0.0 || (z.is_finite() && z.abs() >= TINY);
    match op {
        BinOp::Add => perfectplay::Bounded::sum_is_exact(x, y),
        BinOp::Sub => perfectplay::Bounded::sum_is_exact(x, -y),
        BinOp::Mul => {
            let p = x * y;
            (x == 0.0 || y == 0.0) || (normal(p) && p != 0.0 && x.mul_add(y, -p) == 0.0)
        }
        _ => {
            let q = x / y;
            y != 0.0 && (x == 0.0 || (normal(q) && q != 0.0 && q.mul_add(y, -x) == 0.0))
        }
    }
}

fn show(x: f64) -> String {
    if x == f64::INFINITY {
        "∞".into()
    } else if x == f64::NEG_INFINITY {
        "-∞".into()
    } else {
        x.to_string()
    }
}

fn call(f: Func, mut args: Vec<Num>) -> Result<Part, AnalysisError> {
    let want = |n: usize| -> Result<(), AnalysisError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(arithmetic(format!("{} takes {n} arguments", f.name())))
        }
    };
    match f {
        Func::Min | Func::Max => {
            if args.is_empty() {
                return Err(arithmetic(format!(
                    "{} takes at least one argument",
                    f.name()
                )));
            }
            let pick = |x: f64, y: f64| if f == Func::Min { x.min(y) } else { x.max(y) };
            let mut acc = args.remove(0);
            for b in args {
                let exact = match (&acc.exact, &b.exact) {
                    (Some(x), Some(y)) => Some(if (x <= y) == (f == Func::Min) {
                        x.clone()
                    } else {
                        y.clone()
                    }),
                    _ => None,
                };
                acc = Num::made(
                    pick(acc.value, b.value),
                    exact,
                    pick(acc.lo, b.lo),
                    pick(acc.hi, b.hi),
                );
            }
            Ok(Part::Num(acc))
        }
        Func::Floor | Func::Ceil | Func::Round => {
            want(1)?;
            Ok(Part::Num(Num::exact(whole(&args[0], f)?)))
        }
        Func::Pow => {
            want(2)?;
            let whole_exponent = matches!(&args[1].exact, Some(q) if q.clone().floor() == *q);
            if !whole_exponent {
                return fractional_power(&args[0], &args[1]);
            }
            // The exponent is a whole number written in the property (or an exact value); a
            // power beyond `MAX_POWER` of a fraction would be a number too large to compute.
            let e = match &args[1].exact {
                Some(q) if q.clone().floor() == *q => i64::try_from(&q.clone().floor()).ok(),
                _ => None,
            }
            .filter(|e| e.unsigned_abs() <= MAX_POWER)
            .ok_or_else(|| {
                arithmetic(format!(
                    "pow of a query's value takes a whole exponent of at most {MAX_POWER}"
                ))
            })?;
            let base = &args[0];
            if base.value == 0.0 && e < 0 {
                return Err(arithmetic("division by zero"));
            }
            let p = |x: f64| x.powi(e as i32);
            let value = p(base.value);
            if value.is_nan() {
                return Err(arithmetic(format!(
                    "pow({}, {e}) is undefined",
                    show(base.value)
                )));
            }
            let (lo, hi) = if base.lo <= 0.0 && base.hi >= 0.0 && e < 0 {
                // A base that may be zero bounds nothing.
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                let mut ends = [p(base.lo), p(base.hi)];
                ends.sort_by(f64::total_cmp);
                // An even power of an interval around zero reaches down to zero.
                let low = if base.lo < 0.0 && base.hi > 0.0 && e % 2 == 0 {
                    0.0
                } else {
                    ends[0]
                };
                (low, ends[1])
            };
            let exact = base.exact.as_ref().map(|b| b.clone().pow(e));
            // `powi` multiplies up to twice per bit of the exponent, each a rounding.
            let (lo, hi) = outward(lo, hi, 4.0 * (e.unsigned_abs() + 1) as f64 * f64::EPSILON);
            Ok(Part::Num(Num::made(value, exact, lo, hi)))
        }
        Func::Log => {
            want(2)?;
            logarithm(&args[0], &args[1])
        }
        Func::Mod => Err(unsupported(
            "mod of a query's value is not supported (+, -, *, /, min, max, floor, ceil, \
             round, pow, log and comparisons are)",
        )),
    }
}

/// `pow(base, exponent)` where the exponent need not be whole (`pow(P=? [ … ], 1/2)`): in
/// floating point, as PRISM computes it, with an interval from the ends of both arguments'
/// (a power of a positive base is monotone in each), widened by the rounding of `powf`.
fn fractional_power(base: &Num, exponent: &Num) -> Result<Part, AnalysisError> {
    let value = base.value.powf(exponent.value);
    if base.lo < 0.0 || value.is_nan() {
        return Err(arithmetic(format!(
            "pow({}, {}) of a base that may be negative is no real number",
            show(base.value),
            show(exponent.value)
        )));
    }
    let slack = |x: f64| 4.0 * f64::EPSILON * x.abs();
    Ok(cornered(value, base, exponent, |x, y| x.powf(y), slack))
}

/// `value` of `f(a, b)` in floats, with the interval between the least and the greatest of
/// `f` at the ends of `a`'s and `b`'s intervals (for an `f` monotone in each argument), each
/// end widened by `slack` of it for the rounding.
fn cornered(
    value: f64,
    a: &Num,
    b: &Num,
    f: impl Fn(f64, f64) -> f64,
    slack: impl Fn(f64) -> f64,
) -> Part {
    let mut ends = [a.lo, a.hi]
        .iter()
        .flat_map(|&x| [b.lo, b.hi].map(|y| f(x, y)))
        .collect::<Vec<f64>>();
    ends.sort_by(f64::total_cmp);
    let (lo, hi) = (ends[0], ends[3]);
    Part::Num(Num::made(value, None, lo - slack(lo), hi + slack(hi)))
}

/// `log(x, b)`: exact where `x` is a whole power of `b` (`log(8, 2)`), else in floating point
/// as PRISM computes it, with an interval from the ends of both arguments' (the logarithm is
/// monotone in each while `b`'s interval stays off 1), widened by the rounding.
fn logarithm(x: &Num, b: &Num) -> Result<Part, AnalysisError> {
    let value = x.value.ln() / b.value.ln();
    if x.value <= 0.0 || b.value <= 0.0 || b.value == 1.0 || !value.is_finite() {
        return Err(arithmetic(format!(
            "log({}, {}) is undefined",
            show(x.value),
            show(b.value)
        )));
    }
    if let (Some(xq), Some(bq)) = (&x.exact, &b.exact) {
        let k = value.round();
        if k.abs() <= MAX_POWER as f64 && bq.clone().pow(k as i64) == *xq {
            return Ok(Part::Num(Num::exact(Rational::from(k as i64))));
        }
    }
    if x.lo <= 0.0 || (b.lo <= 1.0 && b.hi >= 1.0) {
        return Ok(Part::Num(Num::made(
            value,
            None,
            f64::NEG_INFINITY,
            f64::INFINITY,
        )));
    }
    // `ln` of a base near 1 is small, and its rounding large beside it.
    let near_one = b.lo.ln().abs().min(b.hi.ln().abs());
    let slack = |v: f64| 8.0 * f64::EPSILON * (v.abs() + 1.0) * (1.0 + 1.0 / near_one);
    Ok(cornered(value, x, b, |x, b| x.ln() / b.ln(), slack))
}

/// `floor`, `ceil` or `round` (PRISM rounds halves up) of `n`: of its exact value, or of
/// every number within its bounds where that is one whole number (in one process, its
/// queries are solved exactly; across processes, their values are floats with certified
/// bounds). +∞ has none.
fn whole(n: &Num, f: Func) -> Result<Rational, AnalysisError> {
    let to_whole = |q: Rational| match f {
        Func::Floor => q.floor(),
        Func::Round => (q + Rational::from_signeds(1, 2)).floor(),
        _ => -(-q).floor(),
    };
    match n.ends() {
        (End::At(lo), End::At(hi)) => {
            let (lo, hi) = (to_whole(lo), to_whole(hi));
            if lo == hi {
                return Ok(Rational::from(lo));
            }
            Err(AnalysisError::TooClose(format!(
                "{} of {} (between {} and {}) is {lo} or {hi}: its certified bounds do not \
                 tell which; ask for a finer precision, or check it in one process (exactly, \
                 with its --exact)",
                f.name(),
                show(n.value),
                show(n.lo),
                show(n.hi)
            )))
        }
        _ => Err(arithmetic(format!(
            "{} of {} is undefined",
            f.name(),
            show(n.value)
        ))),
    }
}

/// [`AnalysisError::Arithmetic`] with `why`.
fn arithmetic(why: impl Into<String>) -> AnalysisError {
    AnalysisError::Arithmetic(why.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(value: f64, bound: f64) -> Num {
        Num {
            value,
            exact: None,
            lo: value - bound,
            hi: value + bound,
        }
    }

    /// A certified bound survives the arithmetic: the true result lies within the bound of
    /// the computed one for every true value of the parts within theirs.
    #[test]
    fn error_bounds_are_carried_through() {
        let a = approx(1.0, 0.01);
        let two = Num::exact(Rational::from(2));
        let cases = [
            (arith(BinOp::Mul, &a, &two).unwrap(), 2.0, 0.02),
            (arith(BinOp::Sub, &two, &a).unwrap(), 1.0, 0.01),
            (arith(BinOp::Add, &a, &a).unwrap(), 2.0, 0.02),
            (arith(BinOp::Div, &two, &a).unwrap(), 2.0, 2.0 / 0.99 - 2.0),
        ];
        for (n, value, bound) in cases {
            assert_eq!(n.value, value);
            assert!(
                (n.error_bound() - bound).abs() < 1e-12,
                "{}",
                n.error_bound()
            );
            assert!(n.exact.is_none());
        }
        // A divisor that may be zero bounds nothing.
        let near_zero = approx(0.001, 0.01);
        assert_eq!(
            arith(BinOp::Div, &two, &near_zero).unwrap().error_bound(),
            f64::INFINITY
        );
        // Exact parts give an exact result with no bound.
        let third = Num::exact(Rational::from_signeds(1, 3));
        let n = arith(BinOp::Add, &third, &two).unwrap();
        assert_eq!(n.exact.as_ref().unwrap().to_string(), "7/3");
        assert_eq!(n.error_bound(), 0.0);
        // Powers: monotone pieces, down to zero for an even power around zero.
        let p =
            |n: &Num, e: i64| match call(Func::Pow, vec![n.clone(), Num::exact(Rational::from(e))])
            {
                Ok(Part::Num(n)) => n,
                _ => panic!("pow"),
            };
        // (Each end a little wider than the float powers of the ends, for their rounding.)
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y.abs().max(1e-300);
        let sq = p(&a, 2);
        assert_eq!(sq.value, 1.0);
        assert!(sq.lo < 0.99f64.powi(2) && close(sq.lo, 0.9801));
        assert!(sq.hi > 1.01f64.powi(2) && close(sq.hi, 1.0201));
        let around = p(&approx(0.0, 0.5), 2);
        assert!(around.lo <= 0.0 && around.lo > -1e-300);
        assert!(around.hi > 0.25 && close(around.hi, 0.25));
        // An exact value's interval holds it, though its nearest float may not.
        let (lo, hi) = (third.lo, third.hi);
        assert!(Rational::try_from(lo).unwrap() < Rational::from_signeds(1, 3));
        assert!(Rational::try_from(hi).unwrap() > Rational::from_signeds(1, 3));
        // Compared exactly: an interval whose upper end is the float nearest 1/3 but below
        // it is below 1/3.
        let below_third = Num {
            value: lo,
            exact: None,
            lo: lo.next_down(),
            hi: lo,
        };
        assert_eq!(compare(&below_third, &third), Ok(Ordering::Less));
        // Rounding is decided where every number within the bounds rounds alike.
        let w = |f: Func, n: Num| whole(&n, f).map(|q| q.to_string());
        assert_eq!(w(Func::Floor, approx(2.5, 0.1)), Ok("2".into()));
        assert_eq!(w(Func::Ceil, approx(2.5, 0.1)), Ok("3".into()));
        assert_eq!(w(Func::Round, approx(2.3, 0.1)), Ok("2".into()));
        assert_eq!(w(Func::Round, approx(2.7, 0.1)), Ok("3".into()));
        assert!(w(Func::Round, approx(2.5, 0.1)).is_err());
        assert!(w(Func::Floor, approx(3.0, 1e-9)).is_err());
        assert_eq!(
            w(Func::Floor, Num::exact(Rational::from(3))),
            Ok("3".into())
        );
        assert_eq!(p(&approx(0.1, 0.5), -1).error_bound(), f64::INFINITY);
        assert_eq!(p(&third, 3).exact.unwrap().to_string(), "1/27");
        // Overlapping intervals cannot be ordered without exact values.
        assert!(compare(&a, &approx(1.005, 0.01)).is_err());
        assert_eq!(compare(&a, &approx(1.5, 0.01)), Ok(Ordering::Less));
    }
}
