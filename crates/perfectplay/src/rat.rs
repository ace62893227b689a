//! [`Rat`], the small exact rational in which models state probabilities, rewards and payoffs.
//!
//! Models never hand the engine a floating-point number: every probability, step reward and
//! terminal payoff is a fraction of machine integers, so that the engine can check exactly that
//! the outcomes of a chance node sum to one and can compute in exact arithmetic on request.

use std::cmp::Ordering;
use std::fmt;

/// An exact rational number `num / den` with `den > 0`.
///
/// Construction does not reduce the fraction (models build many, and a gcd per probability
/// would cost more than the rest of its use); equality, ordering, hashing, printing and the accessors
/// all act on the value, so `Rat::new(2, 6)` and `Rat::new(1, 3)` are the same number.
///
/// ```
/// use perfectplay::Rat;
/// let p = Rat::new(2, 6);
/// assert_eq!(p, Rat::new(1, 3));
/// assert_eq!(p.to_string(), "1/3");
/// assert_eq!(Rat::from(5).to_string(), "5");
/// assert!(Rat::new(1, 3) < Rat::new(1, 2));
/// ```
#[derive(Clone, Copy)]
pub struct Rat {
    num: i64,
    den: u64,
}

/// Binary (Stein's) GCD for one unsigned type.
macro_rules! binary_gcd {
    ($name:ident, $t:ty) => {
        fn $name(a: $t, b: $t) -> $t {
            if a == 0 || b == 0 {
                return a | b;
            }
            let shift = (a | b).trailing_zeros();
            let (mut a, mut b) = (a >> a.trailing_zeros(), b);
            while b != 0 {
                b >>= b.trailing_zeros();
                if a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                b -= a;
            }
            a << shift
        }
    };
}
binary_gcd!(gcd_u64, u64);
binary_gcd!(gcd_wide, u128);

/// GCD on 64-bit values when they fit, since 128-bit arithmetic is slow.
fn gcd_u128(a: u128, b: u128) -> u128 {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => gcd_u64(a, b) as u128,
        _ => gcd_wide(a, b),
    }
}

impl Rat {
    /// Zero.
    pub const ZERO: Rat = Rat { num: 0, den: 1 };
    /// One.
    pub const ONE: Rat = Rat { num: 1, den: 1 };

    /// The fraction `num / den` (stored as given, not reduced; see the type's documentation).
    ///
    /// # Panics
    /// If `den` is zero, or the fraction does not fit (`num` of `i64::MIN` with a
    /// negative denominator). Use [`Rat::checked_new`] for numbers that come from user input.
    #[inline]
    pub fn new(num: i64, den: i64) -> Rat {
        Rat::checked_new(num, den).expect("Rat::new: zero denominator or overflow")
    }

    /// The fraction `num / den`, or `None` if `den` is zero or the value does not fit (a
    /// numerator of magnitude 2^63 that must be positive even in lowest terms).
    #[inline]
    pub fn checked_new(num: i64, den: i64) -> Option<Rat> {
        if den == 0 {
            return None;
        }
        if den > 0 {
            return Some(Rat {
                num,
                den: den as u64,
            });
        }
        // A negative denominator moves its sign to the numerator; reduce only if that
        // overflows.
        match num.checked_neg() {
            Some(n) => Some(Rat {
                num: n,
                den: den.unsigned_abs(),
            }),
            None => Rat::from_parts(
                false,
                num.unsigned_abs() as u128,
                den.unsigned_abs() as u128,
            ),
        }
    }

    /// The numerator and denominator as stored (not necessarily in lowest terms).
    pub(crate) fn raw(self) -> (i64, u64) {
        (self.num, self.den)
    }

    /// The fraction with this stored numerator and denominator (`den > 0`).
    pub(crate) fn from_raw(num: i64, den: u64) -> Rat {
        debug_assert!(den > 0);
        Rat { num, den }
    }

    /// The same number in lowest terms.
    fn reduced(self) -> Rat {
        let g = gcd_u64(self.num.unsigned_abs(), self.den);
        if g <= 1 {
            return self;
        }
        // g divides |num| <= 2^63 and g >= 2, so num / g fits and keeps its sign.
        Rat {
            num: (self.num as i128 / g as i128) as i64,
            den: self.den / g,
        }
    }

    /// Builds a reduced fraction from a sign and magnitudes, if it fits.
    fn from_parts(negative: bool, n: u128, d: u128) -> Option<Rat> {
        debug_assert!(d != 0);
        let g = gcd_u128(n, d).max(1);
        let (n, d) = if let (Ok(n64), Ok(d64), Ok(g64)) =
            (u64::try_from(n), u64::try_from(d), u64::try_from(g))
        {
            ((n64 / g64) as u128, (d64 / g64) as u128)
        } else {
            (n / g, d / g)
        };
        let den = u64::try_from(d).ok()?;
        let num = if negative {
            if n > i64::MAX as u128 + 1 {
                return None;
            }
            (n as i128).wrapping_neg() as i64
        } else {
            i64::try_from(n).ok()?
        };
        Some(Rat { num, den })
    }

    /// The integer `n`.
    #[inline]
    pub const fn integer(n: i64) -> Rat {
        Rat { num: n, den: 1 }
    }

    /// The numerator in lowest terms (carries the sign).
    pub fn numer(self) -> i64 {
        self.reduced().num
    }

    /// The denominator in lowest terms (always positive).
    pub fn denom(self) -> u64 {
        self.reduced().den
    }

    /// Whether this is zero.
    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    /// Whether this is strictly positive.
    pub fn is_positive(self) -> bool {
        self.num > 0
    }

    /// The nearest `f64` (exact when numerator and denominator are below 2^53).
    #[inline]
    pub fn to_f64(self) -> f64 {
        if self.den == 1 {
            // An integer (most rewards): the conversion rounds correctly, with no division.
            return self.num as f64;
        }
        if (self.num.unsigned_abs() | self.den) < (1 << 53) {
            // Both convert exactly, so the quotient is correctly rounded (and exact for an
            // integer, whose denominator is one).
            self.num as f64 / self.den as f64
        } else {
            self.large_to_f64()
        }
    }

    /// [`Rat::to_f64`] when the numerator or the denominator is 2^53 or more.
    #[cold]
    fn large_to_f64(self) -> f64 {
        let r = self.reduced();
        if r.den != self.den {
            r.to_f64()
        } else {
            // Both conversions round; the quotient is then within two ulps, which the
            // documentation of the float path allows for.
            (self.num as f64) / (self.den as f64)
        }
    }

    /// `self + other`, or `None` on overflow.
    pub fn checked_add(self, other: Rat) -> Option<Rat> {
        if self.den == other.den {
            // Common with probabilities: no products, no gcd.
            if let Some(n) = self.num.checked_add(other.num) {
                return Some(Rat {
                    num: n,
                    den: self.den,
                });
            }
        }
        let a = self.num as i128 * other.den as i128;
        let b = other.num as i128 * self.den as i128;
        let n = a.checked_add(b)?;
        let d = self.den as u128 * other.den as u128;
        Rat::from_parts(n < 0, n.unsigned_abs(), d)
    }

    /// `self * other`, or `None` on overflow.
    pub fn checked_mul(self, other: Rat) -> Option<Rat> {
        let n = self.num as i128 * other.num as i128;
        let d = self.den as u128 * other.den as u128;
        Rat::from_parts(n < 0, n.unsigned_abs(), d)
    }
}

impl PartialEq for Rat {
    fn eq(&self, other: &Rat) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Rat {}

impl std::hash::Hash for Rat {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let r = self.reduced();
        (r.num, r.den).hash(state);
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        let a = self.num as i128 * other.den as i128;
        let b = other.num as i128 * self.den as i128;
        a.cmp(&b)
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Default for Rat {
    fn default() -> Rat {
        Rat::ZERO
    }
}

macro_rules! rat_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Rat {
            #[inline]
            fn from(n: $t) -> Rat {
                Rat::integer(n as i64)
            }
        }
    )*};
}
rat_from_int!(i8, i16, i32, i64, u8, u16, u32);

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.reduced();
        if r.den == 1 {
            write!(f, "{}", r.num)
        } else {
            write!(f, "{}/{}", r.num, r.den)
        }
    }
}

impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_and_normalises_sign() {
        assert_eq!(Rat::new(4, -6), Rat::new(-2, 3));
        assert_eq!(Rat::new(-4, -6).to_string(), "2/3");
        assert_eq!(Rat::new(0, 5), Rat::ZERO);
        assert_eq!(Rat::checked_new(1, 0), None);
        assert_eq!(Rat::checked_new(i64::MIN, -1), None);
        assert_eq!(
            Rat::checked_new(i64::MIN, 2),
            Some(Rat::integer(i64::MIN / 2))
        );
    }

    #[test]
    fn gcd_matches_euclid() {
        let euclid = |mut a: u128, mut b: u128| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let samples = [
            0u128,
            1,
            2,
            6,
            12,
            35,
            1 << 40,
            (1 << 70) * 3,
            u64::MAX as u128 * 5,
        ];
        for &a in &samples {
            for &b in &samples {
                assert_eq!(gcd_u128(a, b), euclid(a, b), "{a} {b}");
            }
        }
    }

    #[test]
    fn arithmetic_and_order() {
        let third = Rat::new(1, 3);
        let half = Rat::new(1, 2);
        assert_eq!(third.checked_add(half), Some(Rat::new(5, 6)));
        assert_eq!(third.checked_mul(half), Some(Rat::new(1, 6)));
        assert!(third < half && Rat::new(-1, 2) < third);
        assert_eq!(Rat::integer(i64::MAX).checked_add(Rat::ONE), None);
        assert_eq!(Rat::new(1, 3).to_f64(), 1.0 / 3.0);
    }
}
