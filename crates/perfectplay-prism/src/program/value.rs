//! Values of PRISM expressions: booleans, integers and exact rationals. Every number a model
//! writes is rational (a decimal literal is the exact decimal, of any number of digits); what
//! need not be (`pow(2, 0.5)`, `log(3, 2)`) is computed in floating point, as PRISM and Storm
//! do, and kept as the exact rational that double is, in an expression marked inexact
//! (`CExpr::Inexact`), which exact solves refuse. So is a constant whose fraction is beyond
//! [`Q::MAX_BITS`] (a decimal like `1e-100000`, or `pow(1.5, 1000000)`): computed in
//! floating point. PRISM's infinities are [`Value::Float`]: `x/0` is ±∞ by the sign of `x`
//! (as Java's doubles give it), and compares as one; `0/0`, `∞ - ∞` and an infinite
//! probability, reward or integer are errors.

use std::fmt;

use malachite_base::num::arithmetic::traits::{Floor, Pow};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_q::Rational;
use perfectplay::Rat;

/// An exact rational whose numerator and denominator have at most [`Q::MAX_BITS`] bits each:
/// the engine's [`Rat`], with arithmetic that declines (`None`) a result beyond that size, so
/// that no expression can make a number that fills the memory (`pow(3, 10^9)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Q(Rat);

impl Q {
    /// The most bits a numerator or a denominator may have (some 19,700 decimal digits).
    pub const MAX_BITS: u64 = 1 << 16;

    /// The integer `n`.
    pub fn int(n: i64) -> Q {
        Q(Rat::integer(n))
    }

    /// `num / den`; `None` when `den` is zero.
    pub fn new(num: i128, den: i128) -> Option<Q> {
        Rat::checked_wide(num, den).map(Q)
    }

    /// The value as the engine's exact rational.
    pub fn rat(self) -> Rat {
        self.0
    }

    /// The value as a big rational.
    pub fn rational(self) -> Rational {
        self.0.to_rational()
    }

    /// `r`, if its numerator and denominator are within [`Q::MAX_BITS`].
    pub fn of_rational(r: Rational) -> Option<Q> {
        let fits = r.numerator_ref().significant_bits() <= Q::MAX_BITS
            && r.denominator_ref().significant_bits() <= Q::MAX_BITS;
        fits.then(|| Q(Rat::from_rational(r)))
    }

    /// The integer it is, if it is one that fits in 64 bits.
    pub fn to_i64(self) -> Option<i64> {
        match self.0.parts() {
            Some((n, 1)) => Some(n),
            _ => None,
        }
    }

    /// The decimal literal `text` (`0.25`, `1e-3`, `2.5E2`) exactly; `None` if it is no
    /// decimal or its fraction is beyond [`Q::MAX_BITS`].
    pub fn parse_decimal(text: &str) -> Option<Q> {
        // Ten has more than three bits a digit: a bound on the digits bounds the bits.
        let most = Q::MAX_BITS / 3;
        decimal(text, most, most).and_then(Q::of_rational)
    }

    /// The double `x` exactly (a double is a fraction with a power of two below); `None` if
    /// it is not finite.
    pub fn from_f64(x: f64) -> Option<Q> {
        Rational::try_from(x).ok().and_then(Q::of_rational)
    }

    /// Its exact text when short, else about it in scientific notation (`about 1e400`): for
    /// error messages, where a number of thousands of digits would hide the message.
    pub fn brief(self) -> String {
        let text = self.to_string();
        if text.len() <= 40 {
            return text;
        }
        let x = self.to_f64();
        if x.is_finite() && x != 0.0 {
            return format!("about {x:e}");
        }
        // Beyond floating point's range: the power of ten, from the sizes of its parts.
        let r = self.rational();
        let bits = r.numerator_ref().significant_bits() as f64
            - r.denominator_ref().significant_bits() as f64;
        let sign = if self.0.is_positive() { "" } else { "-" };
        format!(
            "about {sign}1e{}",
            (bits * std::f64::consts::LOG10_2).round()
        )
    }

    /// Whether it is a whole number.
    pub fn is_integer(self) -> bool {
        self.0.is_integer()
    }

    /// The nearest `f64`.
    pub fn to_f64(self) -> f64 {
        self.0.to_f64()
    }

    /// `f(self, o)`: on the engine's fractions while both fit machine words (the result then
    /// has at most four words), else on big rationals within [`Q::MAX_BITS`].
    fn combine(
        self,
        o: Q,
        small: impl Fn(Rat, Rat) -> Rat,
        big: impl Fn(Rational, Rational) -> Rational,
    ) -> Option<Q> {
        if self.0.fits_words() && o.0.fits_words() {
            return Some(Q(small(self.0, o.0)));
        }
        Q::of_rational(big(self.rational(), o.rational()))
    }

    /// `self + o`; `None` beyond [`Q::MAX_BITS`].
    pub fn checked_add(self, o: Q) -> Option<Q> {
        self.combine(o, |a, b| a + b, |a, b| a + b)
    }

    /// `-self`.
    pub fn checked_neg(self) -> Option<Q> {
        Some(Q(-self.0))
    }

    /// `self - o`; `None` beyond [`Q::MAX_BITS`].
    pub fn checked_sub(self, o: Q) -> Option<Q> {
        self.combine(o, |a, b| a - b, |a, b| a - b)
    }

    /// `self * o`; `None` beyond [`Q::MAX_BITS`].
    pub fn checked_mul(self, o: Q) -> Option<Q> {
        self.combine(o, |a, b| a * b, |a, b| a * b)
    }

    /// `self / o`; `None` when `o` is zero or beyond [`Q::MAX_BITS`].
    pub fn checked_div(self, o: Q) -> Option<Q> {
        if o.0.is_zero() {
            return None;
        }
        if let (true, Some((n, d))) = (self.0.fits_words(), o.0.parts()) {
            let inverse =
                Rat::checked_wide(d as i128 * (n as i128).signum(), n.unsigned_abs() as i128);
            return Some(Q(self.0 * inverse.expect("a numerator not zero")));
        }
        Q::of_rational(self.rational() / o.rational())
    }

    /// The greatest integer at most `self`.
    pub fn floor(self) -> Q {
        match self.0.parts() {
            Some((n, d)) => Q(Rat::checked_wide((n as i128).div_euclid(d as i128), 1)
                .expect("a denominator of one")),
            None => Q(Rat::from_rational(Rational::from(self.rational().floor()))),
        }
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
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
    /// ±∞ (`x/0`, or a number beyond floating point's range computed in floating point):
    /// exact in what it is used for (comparisons, `min`, `max`). Every finite double is the
    /// [`Value::Real`] it is exactly; never NaN.
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
            Value::Real(q) => Some(q.rational()),
            Value::Float(x) => Rational::try_from(x).ok(),
        }
    }

    /// The double `x`: the exact rational it is when finite, else as a [`Value::Float`]
    /// (±∞); `None` where it is no number (NaN).
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

/// The decimal literal `text` (`12`, `0.25`, `1e-3`, `2.5E2`) as an exact rational; `None`
/// if it is no decimal, or if it has more than `most_digits` significant digits or a power
/// of ten beyond `most_scale` either way. Zeros that do not change the value do not count
/// against the digits: `0.5000…0` and `000…01.5` are the fractions they are, however many
/// zeros they are written with.
pub fn decimal(text: &str, most_digits: u64, most_scale: u64) -> Option<Rational> {
    let lower = text.to_ascii_lowercase();
    let (mantissa, exp) = match lower.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (lower.as_str(), 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    let digits = format!("{int}{frac}");
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some(Rational::from(0u32));
    }
    let scale = exp.checked_sub(frac.len() as i64)?;
    if digits.len() as u64 > most_digits || scale.unsigned_abs() > most_scale {
        return None;
    }
    let n: Rational = digits
        .parse::<malachite_nz::natural::Natural>()
        .ok()?
        .into();
    let ten_to = Rational::from(10u32).pow(scale.unsigned_abs());
    Some(if scale >= 0 { n * ten_to } else { n / ten_to })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Q {
        Q(text.parse().unwrap())
    }

    #[test]
    fn decimals_are_exact_at_any_length() {
        assert_eq!(Q::parse_decimal("0.1"), Q::new(1, 10));
        assert_eq!(Q::parse_decimal("1e-3"), Q::new(1, 1000));
        assert_eq!(Q::parse_decimal("2.5E2"), Q::new(250, 1));
        let long = format!("0.5{}", "0".repeat(60));
        assert_eq!(Q::parse_decimal(&long), Q::new(1, 2));
        let long = format!("{}1.25{}e-2", "0".repeat(50), "0".repeat(50));
        assert_eq!(Q::parse_decimal(&long), Q::new(1, 80));
        assert_eq!(Q::parse_decimal("0.000"), Q::new(0, 1));
        assert_eq!(Q::parse_decimal("0e-2147483648"), Q::new(0, 1));
        // Beyond 128 bits, exactly: 10^-61, and 0.1 written with 59 more digits.
        let tiny = Q::parse_decimal(&format!("0.{}1", "0".repeat(60))).unwrap();
        assert_eq!(tiny, q(&format!("1/1{}", "0".repeat(61))));
        let long = format!("0.{}", "3".repeat(60));
        let third_ish = Q::parse_decimal(&long).unwrap();
        assert_eq!(
            third_ish,
            q(&format!("{}/1{}", "3".repeat(60), "0".repeat(60)))
        );
        assert_eq!(
            Q::parse_decimal("1e300"),
            Some(q(&format!("1{}", "0".repeat(300))))
        );
        // Beyond the size a value may have, and no decimal.
        assert_eq!(Q::parse_decimal("1.5e-2147483648"), None);
        assert_eq!(Q::parse_decimal("1e-100000"), None);
        assert_eq!(Q::parse_decimal(&"7".repeat(30_000)), None);
        assert_eq!(Q::parse_decimal("1e99999999999999999999"), None);
        // Shown in errors briefly.
        assert_eq!(Q::parse_decimal("1e-5").unwrap().brief(), "1/100000");
        let minus = Q::parse_decimal("1e400").and_then(Q::checked_neg).unwrap();
        assert_eq!(minus.brief(), "about -1e400");
        assert_eq!(Q::parse_decimal("1e200").unwrap().brief(), "about 1e200");
        assert_eq!(Q::parse_decimal("1e-400").unwrap().brief(), "about 1e-400");
    }

    #[test]
    fn arithmetic_is_exact_and_bounded_in_size() {
        let third = Q::new(1, 3).unwrap();
        let sum = third.checked_add(third).unwrap().checked_add(third);
        assert_eq!(sum, Some(Q::int(1)));
        assert_eq!(Q::new(-7, 2).unwrap().floor(), Q::int(-4));
        assert!(Q::new(1, 3).unwrap() < Q::new(1, 2).unwrap());
        // Past 128 bits and back: (3^-50 * 3^50) = 1; 3^-50 - 3^-50 = 0.
        let tiny = q("1/717897987691852588770249");
        let big = Q::int(717897987691852588)
            .checked_mul(Q::int(770249))
            .unwrap();
        assert_ne!(big, q("717897987691852588770249"));
        let big = q("717897987691852588770249");
        assert_eq!(tiny.checked_mul(big), Some(Q::int(1)));
        assert_eq!(tiny.checked_sub(tiny), Some(Q::int(0)));
        assert_eq!(Q::int(1).checked_div(big), Some(tiny));
        assert_eq!(big.checked_div(Q::int(0)), None);
        assert_eq!(q("-7/2").checked_div(q("-1/2")), Some(Q::int(7)));
        let huge = big
            .checked_mul(big)
            .unwrap()
            .checked_add(Q::new(1, 2).unwrap());
        assert_eq!(huge.unwrap().floor(), big.checked_mul(big).unwrap());
        assert_eq!(huge.unwrap().floor().to_i64(), None);
        assert_eq!(Q::new(6, 3).unwrap().to_i64(), Some(2));
        assert_eq!(Q::new(1, 3).unwrap().to_i64(), None);
        // Squaring past the size a value may have declines instead of filling memory.
        let mut x = Q::int(3);
        let mut squarings = 0;
        while let Some(next) = x.checked_mul(x) {
            (x, squarings) = (next, squarings + 1);
        }
        assert_eq!(squarings, 15);
        assert_eq!(x.checked_add(x).map(|y| y > x), Some(true));
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
        // Of any exponent; no number at all is none.
        assert_eq!(
            Q::from_f64(2f64.powi(-1074)).map(Q::to_f64),
            Some(2f64.powi(-1074))
        );
        assert_eq!(Q::from_f64(1e300).map(Q::to_f64), Some(1e300));
        assert_eq!(Q::from_f64(f64::NAN), None);
        assert_eq!(Q::from_f64(f64::INFINITY), None);
    }
}
