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
    /// A bound on the distance between this number and the exact value it stands for: zero
    /// for numbers that carry none ([`Bounded`] does).
    #[inline(always)]
    fn radius(&self) -> f64 {
        0.0
    }
    /// This number with `radius` more of doubt: an iterative method's result, whose distance
    /// to the exact value it bounds by `radius`. Numbers that carry no bound stay as they are.
    #[inline(always)]
    fn widened(self, radius: f64) -> Self {
        let _ = radius;
        self
    }

    /// The number a solve asked for in `Self` computes in: `f64` in [`Bounded`], so that every
    /// float answer comes with a bound on its error; every other type in itself.
    type Work: crate::SweepNumber;
    /// A computed number as the type asked for.
    fn from_work(w: Self::Work) -> Self;
}

impl Number for f64 {
    const EXACT: bool = false;
    type Work = Bounded;
    #[inline(always)]
    fn from_work(w: Bounded) -> f64 {
        w.value
    }
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

    /// The exact rational that a finite float is (a float is a dyadic fraction), `None` for an
    /// infinity or NaN: for comparing a float answer with an exact one exactly.
    ///
    /// ```
    /// use perfectplay::{Exact, Number, Rat};
    /// assert_eq!(Exact::of_float(0.375).unwrap().to_string(), "3/8");
    /// let third = Exact::from_rat(Rat::new(1, 3));
    /// let error = Exact::of_float(1.0 / 3.0).unwrap().sub(&third).abs();
    /// assert!(error > Exact::zero() && error.to_f64() < 1e-16);
    /// ```
    pub fn of_float(x: f64) -> Option<Exact> {
        Rational::try_from(x).ok().map(Exact)
    }

    /// The absolute value.
    pub fn abs(&self) -> Exact {
        if self.0 < Rational::ZERO {
            Exact(-&self.0)
        } else {
            self.clone()
        }
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
    type Work = Exact;
    #[inline(always)]
    fn from_work(w: Exact) -> Exact {
        w
    }
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

/// A float with a rigorous bound on its distance to the exact value it stands for: what every
/// float solve computes in (`f64`'s [`Number::Work`]), so that its answer comes with an
/// [`error_bound`](crate::Stats::error_bound) that covers every rounding.
///
/// `value` is computed by exactly the operations, in exactly the order, that `f64` would use,
/// so the values are those of a plain float solve bit for bit. Beside it, `radius` (made a
/// strict bound by [`Bounded::bound`]) bounds `|value - x|` where `x` is the exact rational the
/// same operations give on exact inputs:
/// a model's probability or reward that is not a float starts with the bound of its
/// conversion; a sum adds its own rounding error (found exactly, by TwoSum), a product half a
/// unit of its last place (none by a power of two, such as a plain move's one), and each
/// adds what its inputs' radii make of it; a decision's value takes the largest radius of its
/// moves ([`Number::absorb`]), since the largest of several numbers moves by at most the most
/// any of them moves. The radius is itself rounded up so that it stays a bound, and it is
/// zero where nothing was rounded (integer scores with plain moves and coin flips, say).
/// Comparisons look at `value` alone.
///
/// ```
/// use perfectplay::{Bounded, Number, Rat};
/// let third = Bounded::from_rat(Rat::new(1, 3));
/// let x = third.add(&third).add(&third);
/// let bound = Bounded::bound(x.radius);
/// assert!((x.value - 1.0).abs() <= bound && bound < 1e-15);
/// // Halves and integers are floats: nothing is rounded and the bound is zero.
/// let y = Bounded::from_rat(Rat::new(1, 2)).mul(&Bounded::from_rat(Rat::from(3)));
/// assert_eq!((y.value, y.radius), (1.5, 0.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Bounded {
    /// The float value, as `f64` arithmetic gives it.
    pub value: f64,
    /// The distance from `value` to the exact value, up to the rounding of this radius
    /// itself, which [`Bounded::bound`] covers.
    pub radius: f64,
}

/// The unit roundoff of `f64`: a rounding to nearest moves a result by at most this much
/// relative to it (outside the subnormal range).
const UNIT: f64 = f64::EPSILON / 2.0;

/// Below this magnitude a result's rounding error might not be representable (the
/// subnormal range and just above it): such a result is charged [`UNDERFLOW`] more.
const TINY: f64 = 1.0e-290;

/// A bound on the rounding error of any result below [`TINY`].
const UNDERFLOW: f64 = 1.0e-300;

impl Bounded {
    /// `x` taken as exact.
    pub fn exact(x: f64) -> Bounded {
        Bounded {
            value: x,
            radius: 0.0,
        }
    }

    /// The bound that a radius computed in round-to-nearest stands for. A radius is made of
    /// nonnegative terms by additions and multiplications, each rounding it down by at most
    /// a factor `1 - u` (below the normal range, by at most half the least subnormal): after
    /// fewer than 2^40 operations, well beyond any solve, it is at least `1 - 2^-12` of the
    /// exact radius. So this one correction at the end, rather than one per operation.
    pub fn bound(radius: f64) -> f64 {
        if radius == 0.0 {
            0.0
        } else if radius.is_nan() {
            f64::INFINITY
        } else {
            radius * (1.0 + 1.0 / 1024.0) + UNDERFLOW
        }
    }
}

/// The exact rounding error of `s = a + b` (TwoSum; exact in every range but overflow).
#[inline(always)]
fn two_sum_error(a: f64, b: f64, s: f64) -> f64 {
    let bb = s - a;
    (a - (s - bb)) + (b - bb)
}

/// A bound on the rounding error of `p = a * b`: none by a power of two (a plain move's one, a
/// coin flip's half) unless the product leaves the normal range, else half a unit of its last
/// place, and more for a product near or below the subnormal range.
#[inline(always)]
fn product_error(a: f64, b: f64, p: f64) -> f64 {
    if p.abs() < TINY && a != 0.0 && b != 0.0 {
        UNIT * p.abs() + UNDERFLOW
    } else if power_of_two(a) || power_of_two(b) {
        0.0
    } else {
        UNIT * p.abs()
    }
}

/// Whether `x` is a power of two (or zero) times a sign: a product with it is exact, unless
/// it leaves the normal range.
#[inline(always)]
fn power_of_two(x: f64) -> bool {
    x.to_bits() & ((1 << 52) - 1) == 0
}

impl PartialEq for Bounded {
    fn eq(&self, o: &Bounded) -> bool {
        self.value == o.value
    }
}

impl PartialOrd for Bounded {
    /// By value alone: a bound never decides a comparison.
    fn partial_cmp(&self, o: &Bounded) -> Option<Ordering> {
        self.value.partial_cmp(&o.value)
    }
}

impl Number for Bounded {
    const EXACT: bool = false;
    type Work = Bounded;
    #[inline(always)]
    fn from_work(w: Bounded) -> Bounded {
        w
    }
    fn zero() -> Bounded {
        Bounded::exact(0.0)
    }
    fn one() -> Bounded {
        Bounded::exact(1.0)
    }
    #[inline]
    fn from_rat(r: Rat) -> Bounded {
        let value = r.to_f64();
        let (n, d) = r.raw();
        // A power-of-two denominator and a numerator of 53 bits convert exactly; otherwise
        // the conversion (a correctly rounded quotient, or one of numbers that were rounded
        // themselves) is off by at most a few units of the last place.
        let exact = d.is_power_of_two() && n.unsigned_abs() < 1 << 53;
        let err = if exact { 0.0 } else { 4.0 * UNIT * value.abs() };
        Bounded { value, radius: err }
    }
    #[inline]
    fn add(&self, o: &Bounded) -> Bounded {
        let s = self.value + o.value;
        let radius = if self.radius == 0.0 && o.radius == 0.0 {
            // Exact so far: the exact rounding error of the sum, by TwoSum, so that sums
            // that do not round keep a zero radius.
            two_sum_error(self.value, o.value, s).abs()
        } else {
            // A sum is off by at most half a unit of its last place (exact below the normal
            // range).
            self.radius + o.radius + UNIT * s.abs()
        };
        Bounded { value: s, radius }
    }
    fn sub(&self, o: &Bounded) -> Bounded {
        self.add(&Bounded {
            value: -o.value,
            radius: o.radius,
        })
    }
    #[inline]
    fn mul(&self, o: &Bounded) -> Bounded {
        let (a, b) = (self.value, o.value);
        let p = a * b;
        let spread = a.abs() * o.radius + b.abs() * self.radius + self.radius * o.radius;
        Bounded {
            value: p,
            radius: spread + product_error(a, b, p),
        }
    }
    #[inline]
    fn add_mul(&mut self, a: &Bounded, b: &Bounded) {
        // As `f64` does it: the product rounded, then the sum.
        let p = a.value * b.value;
        let s = self.value + p;
        self.radius = if self.radius + a.radius + b.radius != 0.0 {
            // Already in doubt (the usual case once a probability rounds): the cheap bound.
            let tiny = if p.abs() < TINY { UNDERFLOW } else { 0.0 };
            self.radius
                + a.value.abs() * b.radius
                + b.value.abs() * a.radius
                + a.radius * b.radius
                + UNIT * (p.abs() + s.abs())
                + tiny
        } else {
            match product_error(a.value, b.value, p) {
                // Exact so far: keep the radius zero where the sum does not round either.
                0.0 => two_sum_error(self.value, p, s).abs(),
                err => err + UNIT * s.abs(),
            }
        };
        self.value = s;
    }
    fn div(&self, o: &Bounded) -> Bounded {
        let (a, b) = (self.value, o.value);
        let q = a / b;
        // Exact by a power of two (unless it underflows), else off by at most half a unit of
        // its last place.
        let underflow = q.abs() < TINY && a != 0.0;
        let err = if underflow {
            UNIT * q.abs() + UNDERFLOW
        } else if power_of_two(b) {
            0.0
        } else {
            UNIT * q.abs()
        };
        // |a/b - A/B| for |A - a| <= ra and |B - b| <= rb: at most (ra + |q| rb) / (|b| - rb).
        let slack = b.abs() - o.radius;
        let spread = if self.radius == 0.0 && o.radius == 0.0 {
            0.0
        } else if slack > 0.0 {
            (self.radius + q.abs() * o.radius) / slack * (1.0 + 4.0 * UNIT)
        } else {
            f64::INFINITY
        };
        Bounded {
            value: q,
            radius: spread + err,
        }
    }
    fn to_f64(&self) -> f64 {
        self.value
    }
    fn from_f64(x: f64) -> Option<Bounded> {
        Some(Bounded::exact(x))
    }
    fn exact_string(&self) -> Option<String> {
        None
    }
    /// Better beyond doubt: by more than both bounds, so that the exact values are ordered the
    /// same way. Policy iteration then switches only on certain improvements (so it cannot
    /// cycle) and stops only where no move is certainly better, which leaves the strategy's
    /// value within rounding of the optimum rather than within a relative tolerance of it.
    fn clearly_better(a: &Bounded, b: &Bounded) -> bool {
        let doubt = Bounded::bound(a.radius + b.radius);
        a.value - b.value > doubt * (1.0 + 4.0 * UNIT) + UNIT * (a.value - b.value).abs()
    }
    fn tie(a: &Bounded, b: &Bounded) -> bool {
        f64::tie(&a.value, &b.value)
    }
    #[inline(always)]
    fn absorb(&mut self, other: &Bounded) {
        self.radius = self.radius.max(other.radius);
    }
    #[inline(always)]
    fn radius(&self) -> f64 {
        self.radius
    }
    fn widened(self, radius: f64) -> Bounded {
        Bounded {
            value: self.value,
            radius: self.radius + radius,
        }
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
    type Work = Checked;
    #[inline(always)]
    fn from_work(w: Checked) -> Checked {
        w
    }
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

    /// Random chains of every operation on random rationals, in `Bounded` and in `Exact` side
    /// by side: the exact result is always within the bound of the float, and the bound is
    /// zero exactly where nothing can have rounded.
    #[test]
    fn bounded_floats_bound_their_error() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let within = |b: &Bounded, e: &Exact| {
            let d = Exact::of_float(b.value).unwrap().sub(e).abs();
            d <= Exact::of_float(Bounded::bound(b.radius)).unwrap()
        };
        for _ in 0..2000 {
            let mut pairs: Vec<(Bounded, Exact)> = Vec::new();
            for _ in 0..4 {
                let (n, d) = (next(2001) as i64 - 1000, 1 + next(12) as i64);
                let r = Rat::new(n, d);
                pairs.push((Bounded::from_rat(r), Exact::from_rat(r)));
            }
            for _ in 0..40 {
                let (i, j) = (next(pairs.len() as u64), next(pairs.len() as u64));
                let (a, ea) = pairs[i as usize].clone();
                let (b, eb) = pairs[j as usize].clone();
                let out = match next(5) {
                    0 => (a.add(&b), ea.add(&eb)),
                    1 => (a.sub(&b), ea.sub(&eb)),
                    2 => (a.mul(&b), ea.mul(&eb)),
                    3 if eb != Exact::zero() && b.value.abs() > b.radius => {
                        (a.div(&b), ea.div(&eb))
                    }
                    _ => {
                        let (mut x, mut ex) = pairs[0].clone();
                        x.add_mul(&a, &b);
                        ex.add_mul(&ea, &eb);
                        (x, ex)
                    }
                };
                assert!(
                    !out.0.value.is_finite() || within(&out.0, &out.1),
                    "{:?} vs {}",
                    out.0,
                    out.1
                );
                // The float is the plain float computation, bit for bit.
                pairs.push(out);
            }
        }
        // Nothing rounded: no doubt. Something rounded: some.
        let h = Bounded::from_rat(Rat::new(1, 2));
        let three = Bounded::from_rat(Rat::from(3));
        let mut x = h.mul(&three).add(&three);
        x.add_mul(&h, &three);
        assert_eq!((x.value, x.radius), (6.0, 0.0));
        assert!(Bounded::from_rat(Rat::new(1, 10)).radius > 0.0);
        assert!(Bounded::exact(0.1).add(&Bounded::exact(0.2)).radius > 0.0);
        assert!(Bounded::exact(1e-200).mul(&Bounded::exact(1e-200)).radius > 0.0);
        // A decision keeps the largest doubt of its moves.
        let mut best = Bounded::exact(1.0);
        best.absorb(&Bounded::from_rat(Rat::new(1, 3)));
        assert!(best.radius > 0.0);
        assert_eq!(Bounded::bound(0.0), 0.0);
        assert_eq!(Bounded::bound(f64::NAN), f64::INFINITY);
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
