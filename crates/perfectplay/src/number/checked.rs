//! [`Checked`]: floats that notice any rounding, for exact sweeps at float speed.

use std::cmp::Ordering;

use malachite_q::Rational;

use super::{Exact, Number};
use crate::Rat;

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
        // A big fraction counts as rounded. Exact when the denominator is a power of two and
        // the numerator fits 53 bits.
        let (n, d) = r.raw().unwrap_or((0, 0));
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
