//! Values of PRISM expressions: booleans, integers and exact rationals. Every number a model
//! writes is rational (a decimal literal is the exact decimal); what need not be (`pow(2, 0.5)`,
//! `log(3, 2)`) is computed in floating point, as PRISM and Storm do, and kept as the exact
//! rational that double is, in an expression marked inexact (`CExpr::Inexact`), which exact
//! solves refuse. A double beyond 128-bit fractions (`1e300`, `1e-60`) stays a double
//! ([`Value::Float`]), and what computes with it computes in floating point. So do PRISM's
//! infinities: `x/0` is ±∞ by the sign of `x` (as Java's doubles give it), and compares as
//! one; `0/0`, `∞ - ∞` and an infinite probability, reward or integer are errors.

use std::cmp::Ordering;
use std::fmt;

/// A rational `num / den` in lowest terms, `den > 0`, in 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Q {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    /// The integer `n`.
    pub fn int(n: i64) -> Q {
        Q {
            num: n as i128,
            den: 1,
        }
    }

    /// `num / den` in lowest terms; `None` when `den` is zero or either is `i128::MIN`.
    pub fn new(num: i128, den: i128) -> Option<Q> {
        // `i128::MIN` has no negation: refused, so that every value's parts negate.
        if den == 0 || num == i128::MIN || den == i128::MIN {
            return None;
        }
        let g = gcd(num, den).max(1);
        let s = if den < 0 { -1 } else { 1 };
        Some(Q {
            num: s * num / g,
            den: s * den / g,
        })
    }

    /// The numerator (with the sign) and the denominator.
    pub fn parts(self) -> (i128, i128) {
        (self.num, self.den)
    }

    /// The decimal literal `text` (`0.25`, `1e-3`, `2.5E2`) exactly; `None` if it does not fit.
    pub fn parse_decimal(text: &str) -> Option<Q> {
        let lower = text.to_ascii_lowercase();
        let (mantissa, exp) = match lower.split_once('e') {
            Some((m, e)) => (m.to_string(), e.parse::<i32>().ok()?),
            None => (lower.clone(), 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
        // Zeros that do not change the value do not count against 128 bits: `0.5000…0` and
        // `000…01.5` are the fractions they are, however many zeros they are written with.
        let frac = frac.trim_end_matches('0');
        let digits = format!("{int}{frac}");
        let digits = match digits.trim_start_matches('0') {
            "" => "0",
            d => d,
        };
        let mut num: i128 = digits.parse().ok()?;
        if num == 0 {
            return Some(Q::int(0));
        }
        let mut den: i128 = 1;
        let scale = exp as i64 - frac.len() as i64;
        for _ in 0..scale.unsigned_abs() {
            if scale > 0 {
                num = num.checked_mul(10)?;
            } else {
                den = den.checked_mul(10)?;
            }
        }
        Q::new(num, den)
    }

    /// The double `x` exactly (a double is a fraction with a power of two below); `None` if
    /// it is not finite or does not fit in 128-bit fractions.
    pub fn from_f64(x: f64) -> Option<Q> {
        if !x.is_finite() {
            return None;
        }
        if x == 0.0 {
            return Some(Q::int(0));
        }
        let bits = x.to_bits();
        let sign: i128 = if bits >> 63 == 1 { -1 } else { 1 };
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = (bits & ((1u64 << 52) - 1)) as i128;
        // x = mantissa * 2^exp.
        let (mantissa, exp) = match biased {
            0 => (fraction, -1074),
            _ => (fraction | 1 << 52, biased - 1075),
        };
        let shift = mantissa.trailing_zeros() as i32;
        let (mantissa, exp) = (mantissa >> shift, exp + shift);
        let width = 128 - mantissa.leading_zeros() as i32;
        if exp >= 0 {
            if width + exp > 126 {
                return None;
            }
            Q::new(sign * (mantissa << exp), 1)
        } else if exp > -127 {
            Q::new(sign * mantissa, 1i128 << (-exp))
        } else {
            None
        }
    }

    /// Whether it is a whole number.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// The nearest `f64`.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    fn checked(num: Option<i128>, den: Option<i128>) -> Option<Q> {
        Q::new(num?, den?)
    }

    /// `self + o`, `None` on overflow.
    pub fn checked_add(self, o: Q) -> Option<Q> {
        let g = gcd(self.den, o.den);
        let (a, b) = (self.den / g, o.den / g);
        Q::checked(
            self.num
                .checked_mul(b)
                .and_then(|x| x.checked_add(o.num.checked_mul(a)?)),
            self.den.checked_mul(b),
        )
    }

    /// `-self`.
    pub fn checked_neg(self) -> Option<Q> {
        Some(Q {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    /// `self - o`.
    pub fn checked_sub(self, o: Q) -> Option<Q> {
        self.checked_add(o.checked_neg()?)
    }

    /// `self * o`.
    pub fn checked_mul(self, o: Q) -> Option<Q> {
        let g1 = gcd(self.num, o.den).max(1);
        let g2 = gcd(o.num, self.den).max(1);
        Q::checked(
            (self.num / g1).checked_mul(o.num / g2),
            (self.den / g2).checked_mul(o.den / g1),
        )
    }

    /// `self / o`; `None` when `o` is zero or on overflow.
    pub fn checked_div(self, o: Q) -> Option<Q> {
        if o.num == 0 {
            return None;
        }
        self.checked_mul(Q::new(o.den, o.num)?)
    }

    /// The greatest integer at most `self`.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }
}

impl Ord for Q {
    fn cmp(&self, o: &Q) -> Ordering {
        match (self.num.checked_mul(o.den), o.num.checked_mul(self.den)) {
            (Some(a), Some(b)) => a.cmp(&b),
            // Cross products beyond 128 bits: compared as exact big rationals.
            _ => {
                let big = |q: &Q| malachite_q::Rational::from_signeds(q.num, q.den);
                big(self).cmp(&big(o))
            }
        }
    }
}

impl PartialOrd for Q {
    fn partial_cmp(&self, o: &Q) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// The value of an expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A rational that came from a `double` or a division.
    Real(Q),
    /// A double whose exact value is beyond 128-bit fractions (`1e300`, `1e-60`, or what
    /// computes with one), as floating point holds it, in a part marked inexact
    /// (`CExpr::Inexact`), which exact solves refuse; or ±∞ (`x/0`, exact in what it is used
    /// for: comparisons, `min`, `max`). Never NaN.
    Float(f64),
}

impl Value {
    /// The number as an exact fraction; `None` for a boolean and a [`Value::Float`].
    pub fn number(self) -> Option<Q> {
        match self {
            Value::Int(n) => Some(Q::int(n)),
            Value::Real(q) => Some(q),
            Value::Bool(_) | Value::Float(_) => None,
        }
    }

    /// The number as an exact rational of any size (a [`Value::Float`] as the fraction its
    /// double is); `None` for a boolean and an infinity.
    pub fn rational(self) -> Option<malachite_q::Rational> {
        use malachite_q::Rational;
        match self {
            Value::Bool(_) => None,
            Value::Int(n) => Some(Rational::from(n)),
            Value::Real(q) => {
                let (n, d) = q.parts();
                Some(Rational::from(n) / Rational::from(d))
            }
            Value::Float(x) => Rational::try_from(x).ok(),
        }
    }

    /// The double `x`: the exact rational it is where 128-bit fractions hold it, else as a
    /// [`Value::Float`] (±∞ included); `None` where it is no number (NaN).
    pub fn of_f64(x: f64) -> Option<Value> {
        match Q::from_f64(x) {
            Some(q) => Some(Value::Real(q)),
            None => (!x.is_nan()).then_some(Value::Float(x)),
        }
    }

    /// The type's name, for errors.
    pub fn type_name(self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Real(_) | Value::Float(_) => "double",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Real(q) => write!(f, "{q}"),
            // As PRISM prints its infinities.
            Value::Float(x) if x.is_infinite() => {
                f.write_str(if *x > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Value::Float(x) => write!(f, "{x:e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(Q::parse_decimal("0.1"), Q::new(1, 10));
        assert_eq!(Q::parse_decimal("1e-3"), Q::new(1, 1000));
        assert_eq!(Q::parse_decimal("2.5E2"), Q::new(250, 1));
        let long = format!("0.5{}", "0".repeat(60));
        assert_eq!(Q::parse_decimal(&long), Q::new(1, 2));
        let long = format!("{}1.25{}e-2", "0".repeat(50), "0".repeat(50));
        assert_eq!(Q::parse_decimal(&long), Q::new(1, 80));
        assert_eq!(Q::parse_decimal("0.000"), Q::new(0, 1));
        assert_eq!(Q::parse_decimal("0e-2147483648"), Q::new(0, 1));
        assert_eq!(Q::parse_decimal("1.5e-2147483648"), None);
        assert_eq!(Q::parse_decimal(&format!("0.{}1", "0".repeat(60))), None);
        let third = Q::new(1, 3).unwrap();
        assert_eq!(
            third.checked_add(third).unwrap().checked_add(third),
            Some(Q::int(1))
        );
        assert_eq!(Q::new(-7, 2).unwrap().floor(), -4);
        assert!(Q::new(1, 3).unwrap() < Q::new(1, 2).unwrap());
    }

    #[test]
    fn doubles_convert_to_the_rational_they_are() {
        assert_eq!(Q::from_f64(0.5), Q::new(1, 2));
        assert_eq!(Q::from_f64(-3.0), Q::new(-3, 1));
        assert_eq!(Q::from_f64(0.0), Some(Q::int(0)));
        // 0.1 is not a tenth in binary: the double's own value.
        assert_eq!(Q::from_f64(0.1), Q::new(3602879701896397, 1 << 55));
        let r = Q::from_f64(2f64.sqrt()).unwrap();
        assert_eq!(r.to_f64(), 2f64.sqrt());
        assert_eq!(Q::from_f64(2f64.powi(100)), Q::new(1 << 100, 1));
        // Beyond 128-bit fractions, and no number at all.
        assert_eq!(Q::from_f64(2f64.powi(127)), None);
        assert_eq!(Q::from_f64(1e-60), None);
        assert_eq!(Q::from_f64(f64::NAN), None);
        assert_eq!(Q::from_f64(f64::INFINITY), None);
    }
}
