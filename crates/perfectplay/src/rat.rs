//! [`Rat`], the exact rational in which models state probabilities, rewards and payoffs.
//!
//! Models never hand the engine a floating-point number: every probability, step reward and
//! terminal payoff is an exact fraction, so that the engine can check exactly that the
//! outcomes of a chance node sum to one and can compute in exact arithmetic on request.
//!
//! A fraction whose numerator and denominator fit machine words (nearly all of them) is held
//! in them. One that does not (`1/3^50`, a decimal of 30 digits) is kept in a table of big
//! fractions shared by the whole process, each distinct value once, and the `Rat` holds its
//! place there: the type stays two words and `Copy`, and the engine's hot paths test one
//! word to know that a number is small. The table is never emptied, so a process that makes
//! millions of distinct big fractions keeps them all; models use a handful.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::{OnceLock, RwLock};

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;
use rustc_hash::FxHashMap;

/// An exact rational number.
///
/// Construction does not reduce a fraction of machine words (models build many, and a gcd
/// per probability would cost more than the rest of its use); equality, ordering, hashing,
/// printing and the accessors all act on the value, so `Rat::new(2, 6)` and `Rat::new(1, 3)`
/// are the same number. Sums and products never overflow: a result beyond machine words is
/// kept as a big fraction (see the module's documentation).
///
/// ```
/// use perfectplay::Rat;
/// let p = Rat::new(2, 6);
/// assert_eq!(p, Rat::new(1, 3));
/// assert_eq!(p.to_string(), "1/3");
/// assert_eq!(Rat::from(5).to_string(), "5");
/// assert!(Rat::new(1, 3) < Rat::new(1, 2));
/// let tiny: Rat = "1/717897987691852588770249".parse().unwrap(); // 1/3^50
/// assert_eq!(tiny * Rat::from(3), "1/239299329230617529590083".parse().unwrap());
/// ```
#[derive(Clone, Copy)]
pub struct Rat {
    /// The numerator; for a big fraction (`den == 0`), ±(its place in the table + 1), with
    /// the sign of the value.
    num: i64,
    /// The denominator, positive; zero marks a big fraction, which never fits machine words
    /// even in lowest terms (so a value has one form).
    den: u64,
}

/// The process's big fractions, each once: `list[k]` is the fraction at place `k`.
struct Table {
    list: Vec<&'static Rational>,
    places: FxHashMap<&'static Rational, usize>,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(|| {
        RwLock::new(Table {
            list: Vec::new(),
            places: FxHashMap::default(),
        })
    })
}

/// The place of `r` in the table, added if new. (Kept for the life of the process: leaked.)
fn intern(r: Rational) -> usize {
    if let Some(&k) = table()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .places
        .get(&r)
    {
        return k;
    }
    let mut t = table().write().unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = t.places.get(&r) {
        return k;
    }
    let r: &'static Rational = Box::leak(Box::new(r));
    let k = t.list.len();
    t.list.push(r);
    t.places.insert(r, k);
    k
}

/// The big fraction at place `k`.
fn fetched(k: usize) -> &'static Rational {
    table().read().unwrap_or_else(|e| e.into_inner()).list[k]
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
    /// If `den` is zero. Use [`Rat::checked_new`] for numbers that come from user input.
    #[inline]
    pub fn new(num: i64, den: i64) -> Rat {
        Rat::checked_new(num, den).expect("Rat::new: zero denominator")
    }

    /// The fraction `num / den`, or `None` if `den` is zero.
    #[inline]
    pub fn checked_new(num: i64, den: i64) -> Option<Rat> {
        Rat::checked_wide(num as i128, den as i128)
    }

    /// The fraction `num / den` of 128-bit integers, or `None` if `den` is zero.
    #[inline]
    pub fn checked_wide(num: i128, den: i128) -> Option<Rat> {
        if den == 0 {
            return None;
        }
        if let (Ok(n), Ok(d)) = (i64::try_from(num), u64::try_from(den)) {
            return Some(Rat { num: n, den: d });
        }
        let negative = (num < 0) != (den < 0);
        Some(Rat::from_parts(
            negative,
            num.unsigned_abs(),
            den.unsigned_abs(),
        ))
    }

    /// The numerator and denominator as stored (not necessarily in lowest terms), or `None`
    /// for a big fraction.
    #[inline]
    pub(crate) fn raw(self) -> Option<(i64, u64)> {
        (self.den != 0).then_some((self.num, self.den))
    }

    /// The fraction with this stored numerator and denominator (`den > 0`).
    pub(crate) fn from_raw(num: i64, den: u64) -> Rat {
        debug_assert!(den > 0);
        Rat { num, den }
    }

    /// The big fraction this is, if it is one.
    #[inline]
    fn big(self) -> Option<&'static Rational> {
        (self.den == 0).then(|| fetched(self.num.unsigned_abs() as usize - 1))
    }

    /// The same number in lowest terms (of a fraction of machine words).
    fn reduced(self) -> Rat {
        debug_assert!(self.den != 0);
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

    /// The reduced fraction of a sign and magnitudes.
    fn from_parts(negative: bool, n: u128, d: u128) -> Rat {
        debug_assert!(d != 0);
        let g = gcd_u128(n, d).max(1);
        let (n, d) = (n / g, d / g);
        let small = u64::try_from(d).ok().and_then(|den| {
            let num = if negative {
                // -2^63 fits; its magnitude does not as a positive i64.
                (n <= i64::MAX as u128 + 1).then(|| (n as i128).wrapping_neg() as i64)
            } else {
                i64::try_from(n).ok()
            };
            Some(Rat { num: num?, den })
        });
        small.unwrap_or_else(|| {
            let r = Rational::from_naturals(Natural::from(n), Natural::from(d));
            Rat::from_rational(if negative { -r } else { r })
        })
    }

    /// The exact value as a big rational (malachite's).
    pub fn to_rational(self) -> Rational {
        match self.big() {
            Some(r) => r.clone(),
            None if self.den == 1 => Rational::from(self.num),
            None => Rational::from_integers(Integer::from(self.num), Integer::from(self.den)),
        }
    }

    /// Whether numerator and denominator are held in machine words (else it is a big
    /// fraction, kept in the process's table): a test of one word, for the hot paths of
    /// code that computes with big fractions apart.
    #[inline]
    pub fn fits_words(self) -> bool {
        self.den != 0
    }

    /// The value of a big rational (malachite's): in machine words when it fits, else kept
    /// in the process's table of big fractions, which is never emptied (see the module's
    /// documentation).
    pub fn from_rational(r: Rational) -> Rat {
        let (n, d) = (r.numerator_ref(), r.denominator_ref());
        if let (Ok(n), Ok(den)) = (u64::try_from(n), u64::try_from(d)) {
            let num = if r < 0u32 {
                (n <= 1 << 63).then(|| (n as i64).wrapping_neg())
            } else {
                i64::try_from(n).ok()
            };
            if let Some(num) = num {
                return Rat { num, den };
            }
        }
        let negative = r < 0u32;
        let place = intern(r) as i64 + 1;
        Rat {
            num: if negative { -place } else { place },
            den: 0,
        }
    }

    /// The integer `n`.
    #[inline]
    pub const fn integer(n: i64) -> Rat {
        Rat { num: n, den: 1 }
    }

    /// The numerator and the denominator in lowest terms, when both fit machine words (the
    /// numerator carries the sign); `None` for a fraction beyond them.
    pub fn parts(self) -> Option<(i64, u64)> {
        self.raw().map(|_| {
            let r = self.reduced();
            (r.num, r.den)
        })
    }

    /// Whether this is a whole number.
    pub fn is_integer(self) -> bool {
        match self.big() {
            Some(r) => r.denominator_ref() == &1u32,
            None => self.num.unsigned_abs() % self.den == 0,
        }
    }

    /// Whether this is one (a test of two words, cheaper than `== Rat::ONE`).
    #[inline]
    pub fn is_one(self) -> bool {
        // A big fraction is never one; `num` positive and equal to `den` is.
        self.num > 0 && self.num as u64 == self.den
    }

    /// Whether this is zero.
    #[inline]
    pub fn is_zero(self) -> bool {
        // A big fraction's `num` is never zero.
        self.num == 0
    }

    /// Whether this is strictly positive.
    #[inline]
    pub fn is_positive(self) -> bool {
        // A big fraction's `num` has its sign.
        self.num > 0
    }

    /// The nearest `f64` (exact when numerator and denominator are below 2^53; within two
    /// units of the last place for other fractions of machine words, correctly rounded for
    /// big ones).
    #[inline]
    pub fn to_f64(self) -> f64 {
        if self.den == 1 {
            // An integer (most rewards): the conversion rounds correctly, with no division.
            return self.num as f64;
        }
        if (self.num.unsigned_abs() | self.den) < (1 << 53) && self.den != 0 {
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
        if let Some(r) = self.big() {
            return f64::rounding_from(r, RoundingMode::Nearest).0;
        }
        let r = self.reduced();
        if r.den != self.den {
            r.to_f64()
        } else {
            // Both conversions round; the quotient is then within two ulps, which the
            // documentation of the float path allows for.
            (self.num as f64) / (self.den as f64)
        }
    }

    /// `self + other` for fractions of machine words, when the result fits them.
    #[inline]
    pub(crate) fn small_add(self, other: Rat) -> Option<Rat> {
        if self.den == 0 || other.den == 0 {
            return None;
        }
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
        Some(Rat::from_parts(n < 0, n.unsigned_abs(), d))
    }
}

impl std::ops::Add for Rat {
    type Output = Rat;
    #[inline]
    fn add(self, other: Rat) -> Rat {
        self.small_add(other)
            .unwrap_or_else(|| Rat::from_rational(self.to_rational() + other.to_rational()))
    }
}

impl std::ops::Mul for Rat {
    type Output = Rat;
    #[inline]
    fn mul(self, other: Rat) -> Rat {
        if self.den != 0 && other.den != 0 {
            let n = self.num as i128 * other.num as i128;
            let d = self.den as u128 * other.den as u128;
            return Rat::from_parts(n < 0, n.unsigned_abs(), d);
        }
        Rat::from_rational(self.to_rational() * other.to_rational())
    }
}

impl std::ops::Neg for Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        match self.num.checked_neg() {
            Some(num) if self.den != 0 => Rat { num, den: self.den },
            _ => Rat::from_rational(-self.to_rational()),
        }
    }
}

impl std::ops::Sub for Rat {
    type Output = Rat;
    fn sub(self, other: Rat) -> Rat {
        self + -other
    }
}

/// Why text is not a [`Rat`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a fraction: write an integer or `n/d`, with d not zero")]
pub struct ParseRatError(String);

impl FromStr for Rat {
    type Err = ParseRatError;

    /// An integer (`-12`) or a fraction `n/d` (`3/4`, `-1/717897987691852588770249`), of
    /// any number of digits.
    fn from_str(text: &str) -> Result<Rat, ParseRatError> {
        let fail = || ParseRatError(text.to_string());
        let integer = |t: &str| -> Result<Integer, ParseRatError> {
            let t = t.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(fail());
            }
            let n = Integer::from(Natural::from_str(digits).map_err(|_| fail())?);
            Ok(if t.starts_with('-') { -n } else { n })
        };
        let (n, d) = match text.split_once('/') {
            Some((n, d)) => (integer(n)?, integer(d)?),
            None => (integer(text)?, Integer::from(1u32)),
        };
        if d == 0u32 {
            return Err(fail());
        }
        Ok(Rat::from_rational(Rational::from_integers(n, d)))
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
        // A big fraction's place is its value's alone (the table holds each value once, and
        // no big fraction equals one of machine words).
        let r = if self.den == 0 { *self } else { self.reduced() };
        (r.num, r.den).hash(state);
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        if self.den == 0 || other.den == 0 {
            return self.to_rational().cmp(&other.to_rational());
        }
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

impl From<u64> for Rat {
    fn from(n: u64) -> Rat {
        Rat::checked_wide(n as i128, 1).expect("a denominator of one")
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.big() {
            return write!(f, "{r}");
        }
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
        assert_eq!(
            Rat::checked_new(i64::MIN, -1),
            Some("9223372036854775808".parse().unwrap())
        );
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
    fn fractions_beyond_machine_words_are_exact_values() {
        use std::collections::HashSet;
        let big = |t: &str| t.parse::<Rat>().unwrap();
        let third50 = big("1/717897987691852588770249"); // 3^-50
        assert_eq!(third50.raw(), None);
        assert_eq!(third50.parts(), None);
        assert!(third50.is_positive() && !third50.is_zero() && !third50.is_one());
        assert!(!third50.is_integer());
        // The same value made two ways is one value, equal and hashed alike.
        let mut p = Rat::ONE;
        for _ in 0..50 {
            p = p * Rat::new(1, 3);
        }
        assert_eq!(p, third50);
        assert_eq!(HashSet::from([p, third50]).len(), 1);
        assert_eq!(p.to_string(), "1/717897987691852588770249");
        assert_eq!(p.to_f64(), 3f64.powi(-50));
        // Back within machine words, a result is small again.
        let back = p * big("717897987691852588770249");
        assert_eq!(back.raw(), Some((1, 1)));
        assert!(back.is_one());
        // Signs, order against small numbers, and integers beyond 64 bits.
        let minus = -p;
        assert!(!minus.is_positive() && minus < Rat::ZERO && minus < p);
        assert!(p < Rat::new(1, i64::MAX) && Rat::ZERO < p);
        assert_eq!(minus + p, Rat::ZERO);
        let huge = Rat::integer(i64::MAX) * Rat::integer(4);
        assert!(huge.is_integer() && huge > Rat::integer(i64::MAX));
        assert_eq!(huge.to_string(), "36893488147419103228");
        assert_eq!(huge - huge, Rat::ZERO);
        // Far below the smallest float: rounds to zero but is not zero.
        let tiny = (0..15).fold(third50, |a, _| a * third50); // 3^-800
        assert_eq!(tiny.to_f64(), 0.0);
        assert!(!tiny.is_zero());
        for bad in ["", "1/0", "x", "1/2/3", "--1", "1.5"] {
            assert!(bad.parse::<Rat>().is_err(), "{bad}");
        }
        assert_eq!(big("-6/4"), Rat::new(-3, 2));
    }

    #[test]
    fn arithmetic_and_order() {
        let third = Rat::new(1, 3);
        let half = Rat::new(1, 2);
        assert_eq!(third + half, Rat::new(5, 6));
        assert_eq!(third * half, Rat::new(1, 6));
        assert!(third < half && Rat::new(-1, 2) < third);
        assert_eq!(
            Rat::integer(i64::MAX) + Rat::ONE,
            "9223372036854775808".parse().unwrap()
        );
        assert_eq!(Rat::new(1, 3).to_f64(), 1.0 / 3.0);
    }
}
