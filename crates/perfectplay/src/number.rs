//! The numbers solvers compute with: `f64` by default, [`Exact`] big rationals on request.
//!
//! Solvers are generic over [`Number`] and are compiled once for each. The float path uses the
//! same exact methods as the exact path (direct backups, policy iteration with direct linear
//! solves); rounding enters only through floating-point arithmetic, and ties between moves are
//! decided with a small relative tolerance (see [`Number::clearly_better`]) so that rounding
//! noise never makes policy iteration cycle.

use std::cmp::Ordering;
use std::fmt;

use malachite_base::num::basic::traits::{One, Zero};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;

use crate::Rat;

/// Arithmetic the solvers need. Implemented by `f64` and [`Exact`].
pub trait Number: Clone + fmt::Debug + PartialOrd + Send + Sync + 'static {
    /// Whether results are exact (no rounding, exact ties).
    const EXACT: bool;
    /// Zero.
    fn zero() -> Self;
    /// One.
    fn one() -> Self;
    /// The value of a model's exact rational.
    fn from_rat(r: Rat) -> Self;
    /// `self + o`.
    fn add(&self, o: &Self) -> Self;
    /// `self - o`.
    fn sub(&self, o: &Self) -> Self;
    /// `self * o`.
    fn mul(&self, o: &Self) -> Self;
    /// `self / o`; `o` is never zero when the solvers call it.
    fn div(&self, o: &Self) -> Self;
    /// `self += a * b`.
    fn add_mul(&mut self, a: &Self, b: &Self) {
        *self = self.add(&a.mul(b));
    }
    /// The nearest `f64`.
    fn to_f64(&self) -> f64;
    /// A float result of an iterative method (with its certified error bound kept apart), for
    /// number types that accept one; `None` for exact numbers, which are never approximated.
    fn from_f64(x: f64) -> Option<Self>;
    /// `p/q` for an exact number, `None` for a float.
    fn exact_string(&self) -> Option<String>;
    /// Whether `a` is larger than `b` by more than rounding noise: strictly larger for exact
    /// numbers; for floats, larger by more than `1e-12` relative to their magnitude (at least
    /// one). Policy iteration switches moves only on such improvements.
    fn clearly_better(a: &Self, b: &Self) -> bool;
    /// Whether two values count as equal when listing optimal moves: exactly equal for exact
    /// numbers, within `1e-9` relative (at least absolute `1e-9`) for floats.
    fn tie(a: &Self, b: &Self) -> bool;
    /// Takes over what `other` knows about its own exactness, when `self` is kept and `other`
    /// dropped (a decision keeps its best move's value). Only numbers that track their
    /// rounding (the checked floats of an exact sweep) do anything here.
    #[inline(always)]
    fn absorb(&mut self, other: &Self) {
        let _ = other;
    }
}

impl Number for f64 {
    const EXACT: bool = false;
    fn zero() -> f64 {
        0.0
    }
    fn one() -> f64 {
        1.0
    }
    #[inline]
    fn from_rat(r: Rat) -> f64 {
        r.to_f64()
    }
    fn add(&self, o: &f64) -> f64 {
        self + o
    }
    fn sub(&self, o: &f64) -> f64 {
        self - o
    }
    fn mul(&self, o: &f64) -> f64 {
        self * o
    }
    fn div(&self, o: &f64) -> f64 {
        self / o
    }
    fn add_mul(&mut self, a: &f64, b: &f64) {
        *self += a * b;
    }
    fn from_f64(x: f64) -> Option<f64> {
        Some(x)
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn exact_string(&self) -> Option<String> {
        None
    }
    fn clearly_better(a: &f64, b: &f64) -> bool {
        a - b > 1e-12 * a.abs().max(b.abs()).max(1.0)
    }
    fn tie(a: &f64, b: &f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }
}

/// An exact rational number of unbounded size (a wrapper around `malachite_q::Rational`).
///
/// ```
/// use perfectplay::{Exact, Number, Rat};
/// let x = Exact::from_rat(Rat::new(1, 3)).add(&Exact::from_rat(Rat::new(1, 6)));
/// assert_eq!(x.to_string(), "1/2");
/// assert_eq!(x.to_f64(), 0.5);
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Exact(pub Rational);

impl Exact {
    /// The numerator as a decimal string (with its sign).
    pub fn numerator_string(&self) -> String {
        let s = self.0.to_numerator().to_string();
        if self.0 < Rational::ZERO {
            format!("-{s}")
        } else {
            s
        }
    }

    /// The denominator as a decimal string.
    pub fn denominator_string(&self) -> String {
        self.0.to_denominator().to_string()
    }
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Number for Exact {
    const EXACT: bool = true;
    fn zero() -> Exact {
        Exact(Rational::ZERO)
    }
    fn one() -> Exact {
        Exact(Rational::ONE)
    }
    fn from_rat(r: Rat) -> Exact {
        let (n, d) = r.raw();
        if d == 1 {
            Exact(Rational::from(n))
        } else {
            Exact(Rational::from(n) / Rational::from(d))
        }
    }
    fn add(&self, o: &Exact) -> Exact {
        Exact(&self.0 + &o.0)
    }
    fn sub(&self, o: &Exact) -> Exact {
        Exact(&self.0 - &o.0)
    }
    fn mul(&self, o: &Exact) -> Exact {
        Exact(&self.0 * &o.0)
    }
    fn div(&self, o: &Exact) -> Exact {
        Exact(&self.0 / &o.0)
    }
    fn add_mul(&mut self, a: &Exact, b: &Exact) {
        // Plain moves and certain outcomes multiply by one: skip the product.
        if a.0 == Rational::ONE {
            self.0 += &b.0;
        } else {
            self.0 += &a.0 * &b.0;
        }
    }
    fn from_f64(_: f64) -> Option<Exact> {
        None
    }
    fn to_f64(&self) -> f64 {
        f64::rounding_from(&self.0, RoundingMode::Nearest).0
    }
    fn exact_string(&self) -> Option<String> {
        Some(self.to_string())
    }
    fn clearly_better(a: &Exact, b: &Exact) -> bool {
        a.0.cmp(&b.0) == Ordering::Greater
    }
    fn tie(a: &Exact, b: &Exact) -> bool {
        a == b
    }
}

/// The exact sum of some model rationals: machine arithmetic while it fits, big rationals
/// after that.
pub(crate) fn exact_sum(items: impl Iterator<Item = Rat>) -> Exact {
    let mut small = Rat::ZERO;
    let mut big: Option<Exact> = None;
    for r in items {
        match &mut big {
            Some(b) => *b = b.add(&Exact::from_rat(r)),
            None => match small.checked_add(r) {
                Some(s) => small = s,
                None => big = Some(Exact::from_rat(small).add(&Exact::from_rat(r))),
            },
        }
    }
    big.unwrap_or_else(|| Exact::from_rat(small))
}

/// A float that watches its own exactness: each operation checks that its result was not
/// rounded (error-free transformations: the rounding error of a sum by TwoSum, of a product by
/// a fused multiply-add) and that no input was rounded on conversion, and the result carries
/// the flag `rounded` when it or any value it was computed from was rounded (a decision's
/// value takes over the flags of the moves it beat, [`Number::absorb`]). While the flag is
/// clear, the value is exactly the rational the exact solver would compute, so a solve whose
/// values end with it clear is exact at float speed. That happens when every number stays a
/// dyadic rational of 53 bits: integer rewards with moves or coin flips, say. Used by
/// [`Solver::exact_start_value`](crate::Solver::exact_start_value) with a sweep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checked {
    pub(crate) value: f64,
    /// Whether this value, or one it was computed from, was rounded.
    pub(crate) rounded: bool,
}

impl PartialEq for Checked {
    fn eq(&self, o: &Checked) -> bool {
        self.value == o.value
    }
}

impl PartialOrd for Checked {
    /// By value alone: a flag never decides a comparison.
    fn partial_cmp(&self, o: &Checked) -> Option<Ordering> {
        self.value.partial_cmp(&o.value)
    }
}

impl Checked {
    /// `x`, computed from values whose flags are `from`, noting whether it is the exact result
    /// (`exact`) and a finite number not so small that its rounding error could have vanished
    /// below the subnormal range.
    #[inline]
    fn noting(x: f64, exact: bool, from: bool) -> Checked {
        // Below 2^-960 a sum's or product's error could underflow to zero unnoticed.
        const TINY: f64 = 1.0e-289;
        let rounded = !exact || !x.is_finite() || (x != 0.0 && x.abs() < TINY);
        Checked {
            value: x,
            rounded: from | rounded,
        }
    }

    /// A float taken as exact.
    fn of_exact(x: f64) -> Checked {
        Checked {
            value: x,
            rounded: false,
        }
    }

    /// The exact rational of the value.
    pub(crate) fn to_exact(self) -> Exact {
        Exact(Rational::try_from(self.value).expect("a finite float"))
    }
}

impl Number for Checked {
    const EXACT: bool = true;
    fn zero() -> Checked {
        Checked::of_exact(0.0)
    }
    fn one() -> Checked {
        Checked::of_exact(1.0)
    }
    #[inline]
    fn from_rat(r: Rat) -> Checked {
        let (n, d) = r.raw();
        // Exact when the denominator is a power of two and the numerator fits 53 bits.
        Checked::noting(
            r.to_f64(),
            d.is_power_of_two() && n.unsigned_abs() < 1 << 53,
            false,
        )
    }
    #[inline]
    fn add(&self, o: &Checked) -> Checked {
        let (a, b) = (self.value, o.value);
        let s = a + b;
        // TwoSum: the exact rounding error of `a + b`.
        let bb = s - a;
        let err = (a - (s - bb)) + (b - bb);
        Checked::noting(s, err == 0.0, self.rounded | o.rounded)
    }
    fn sub(&self, o: &Checked) -> Checked {
        self.add(&Checked {
            value: -o.value,
            rounded: o.rounded,
        })
    }
    #[inline]
    fn mul(&self, o: &Checked) -> Checked {
        let (a, b) = (self.value, o.value);
        let p = a * b;
        // A product that underflowed to zero leaves no error for the fused multiply-add to see.
        let underflow = p == 0.0 && a != 0.0 && b != 0.0;
        Checked::noting(
            p,
            a.mul_add(b, -p) == 0.0 && !underflow,
            self.rounded | o.rounded,
        )
    }
    fn div(&self, o: &Checked) -> Checked {
        let q = self.value / o.value;
        Checked::noting(
            q,
            q.mul_add(o.value, -self.value) == 0.0,
            self.rounded | o.rounded,
        )
    }
    fn from_f64(x: f64) -> Option<Checked> {
        // Not exact: an exact solve that meets it falls back.
        Some(Checked::noting(x, false, true))
    }
    fn to_f64(&self) -> f64 {
        self.value
    }
    fn exact_string(&self) -> Option<String> {
        Some(self.to_exact().to_string())
    }
    fn clearly_better(a: &Checked, b: &Checked) -> bool {
        a.value > b.value
    }
    fn tie(a: &Checked, b: &Checked) -> bool {
        a.value == b.value
    }
    #[inline(always)]
    fn absorb(&mut self, other: &Checked) {
        self.rounded |= other.rounded;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sum_falls_back_to_big_numbers() {
        let p = Rat::new(1, 3);
        assert_eq!(exact_sum([p, p, p].into_iter()), Exact::one());
        // Denominators whose product overflows 128 bits.
        let a = Rat::new(1, (1 << 62) - 57);
        let b = Rat::new(1, (1 << 62) - 87);
        let c = Rat::new(1, (1 << 61) - 1);
        let s = exact_sum([a, b, c, a].into_iter());
        let expect = Exact::from_rat(a)
            .add(&Exact::from_rat(b))
            .add(&Exact::from_rat(c))
            .add(&Exact::from_rat(a));
        assert_eq!(s, expect);
    }

    #[test]
    fn exact_prints_fractions_and_rounds_to_nearest() {
        let x = Exact::from_rat(Rat::new(-558242, 45045));
        assert_eq!(x.to_string(), "-558242/45045");
        assert_eq!(x.numerator_string(), "-558242");
        assert_eq!(x.denominator_string(), "45045");
        assert_eq!(x.to_f64(), -558242.0 / 45045.0);
    }

    #[test]
    fn float_tolerances() {
        assert!(!f64::clearly_better(&(1.0 + 1e-14), &1.0));
        assert!(f64::clearly_better(&(1.0 + 1e-10), &1.0));
        assert!(f64::tie(&1000.0, &(1000.0 + 1e-8)));
        assert!(!Exact::clearly_better(&Exact::one(), &Exact::one()));
    }

    /// Whether the value `f` computes saw a rounding.
    fn rounds(f: impl FnOnce() -> Checked) -> bool {
        f().rounded
    }

    #[test]
    fn checked_floats_notice_every_rounding() {
        let c = Checked::of_exact;
        let q = |n: i64, d: i64| Checked::from_rat(Rat::new(n, d));
        let v = || q(3, 4).mul(&q(-7, 1)).add(&q(1, 1024)).sub(&q(1, 2));
        assert!(!rounds(v));
        assert_eq!(v().to_exact().to_string(), "-5887/1024");
        assert!(!rounds(|| c(3.0).div(&c(4.0))));
        assert!(rounds(|| q(1, 3)));
        assert!(rounds(|| q((1 << 53) + 1, 1)));
        assert!(rounds(|| c(0.1).add(&c(0.2))));
        assert!(rounds(|| c(1.0).add(&c(1e-30))));
        assert!(rounds(|| c(1.0 + f64::EPSILON).mul(&c(1.0 + f64::EPSILON))));
        assert!(rounds(|| c(1e300).mul(&c(1e10))));
        // A product that underflows to zero, or below where its error could be seen.
        assert!(rounds(|| c(1e-200).mul(&c(1e-200))));
        assert!(rounds(|| c(1e-150).mul(&c(1e-150))));
        assert!(rounds(|| c(1.0).div(&c(3.0))));
        // The flag stays with every value computed from a rounded one, and a decision's value
        // takes over the flags of the moves it beat.
        assert!(rounds(|| q(1, 3).mul(&c(0.0)).add(&q(1, 2))));
        assert!(rounds(|| {
            let mut best = q(1, 2);
            best.absorb(&q(1, 3));
            best
        }));
        assert!(!rounds(|| {
            let mut best = q(1, 2);
            best.absorb(&q(1, 4));
            best
        }));
    }
}
