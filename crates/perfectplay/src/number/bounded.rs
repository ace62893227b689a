//! [`Bounded`]: floats that carry a rigorous bound on their error, what float solves compute in.

use std::cmp::Ordering;

#[cfg(test)]
use super::Exact;
use super::Number;
use crate::Rat;

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
/// adds what its inputs' radii make of it; a decision's value takes the largest radius of the
/// moves within their bounds of it ([`Number::absorb`]), since the largest of several numbers
/// moves by at most the most any of them moves, and one apart from it by more than both bounds
/// cannot overtake it. The radius is itself rounded up so that it stays a bound, and it is
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

    /// Whether the float sum `a + b` is exact: no rounding at all (TwoSum's error is zero).
    pub fn sum_is_exact(a: f64, b: f64) -> bool {
        two_sum_error(a, b, a + b) == 0.0
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

/// Whether `diff`, the computed difference of two values whose radii add up to `radii`, is
/// positive beyond doubt: larger than both bounds, with the rounding of the difference and of
/// this test itself. The exact values are then ordered as the floats are. False for NaN.
#[inline(always)]
fn beyond_doubt(diff: f64, radii: f64) -> bool {
    diff > Bounded::bound(radii) * (1.0 + 4.0 * UNIT) + UNIT * diff.abs()
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
        let Some((n, d)) = r.raw() else {
            // A big fraction: correctly rounded, perhaps to a subnormal or to zero.
            return Bounded {
                value,
                radius: UNIT * value.abs() + f64::from_bits(1),
            };
        };
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
            // Already in doubt (the usual case once a probability rounds): the cheap bound,
            // charged for an underflow whether or not one happened (a radius already in
            // doubt loses nothing by it, and a branch is saved).
            self.radius
                + a.value.abs() * b.radius
                + (b.value.abs() + b.radius) * a.radius
                + UNIT * (p.abs() + s.abs())
                + UNDERFLOW
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
    /// cycle) and stops only where no move is certainly better; what the moves that tie
    /// within the bounds may still hide is bounded after the solve (see
    /// [`Stats::error_bound`](crate::Stats::error_bound)).
    fn clearly_better(a: &Bounded, b: &Bounded) -> bool {
        beyond_doubt(a.value - b.value, a.radius + b.radius)
    }
    fn tie(a: &Bounded, b: &Bounded) -> bool {
        f64::tie(&a.value, &b.value)
    }
    /// The best of two moves keeps its own radius where the two are apart by more than both
    /// bounds (the exact values are then ordered the same way, and the best exact value is
    /// its own); else it takes the larger radius, as the greater of two numbers moves by at
    /// most the most either moves.
    #[inline(always)]
    fn absorb(&mut self, other: &Bounded) {
        // Only a larger radius can change this one, so the test is made only then. (A
        // difference of infinities, NaN, is near: the larger radius.)
        if other.radius > self.radius {
            let apart = (self.value - other.value).abs();
            if !beyond_doubt(apart, self.radius + other.radius) {
                self.radius = other.radius;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A fraction beyond machine words converts within its radius, also where it is too small
    /// for any float (its float is zero, its radius is not).
    #[test]
    fn big_fractions_convert_within_their_bound() {
        for text in [
            "1/717897987691852588770249",
            "-123456789012345678901234567/1000000000000000000000000000",
            "36893488147419103231",
            "1/3",
        ] {
            let r: Rat = text.parse().unwrap();
            let b = Bounded::from_rat(r);
            use malachite_base::num::arithmetic::traits::Abs;
            use malachite_q::Rational;
            let err = Exact::from_rat(r).sub(&Exact(Rational::try_from(b.value).unwrap()));
            let radius = Rational::try_from(b.radius).unwrap();
            assert!(err.0.abs() <= radius, "{text}");
        }
        let mut tiny = Rat::ONE;
        for _ in 0..800 {
            tiny = tiny * Rat::new(1, 3);
        }
        let b = Bounded::from_rat(tiny);
        assert_eq!(b.value, 0.0);
        assert!(b.radius > 0.0);
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
        // A decision keeps the largest doubt of moves that are near it, and its own where
        // they are apart by more than their bounds.
        let third = Bounded::from_rat(Rat::new(1, 3));
        let mut best = Bounded::exact(1.0 / 3.0 + 1e-17);
        best.absorb(&third);
        assert_eq!(best.radius, third.radius);
        let mut best = Bounded::exact(1.0);
        best.absorb(&third);
        assert_eq!(best.radius, 0.0);
        let mut best = Bounded::exact(f64::INFINITY);
        best.absorb(&Bounded::exact(f64::INFINITY).widened(1.0));
        assert_eq!(best.radius, 1.0);
        assert_eq!(Bounded::bound(0.0), 0.0);
        assert_eq!(Bounded::bound(f64::NAN), f64::INFINITY);
    }
}
