//! The numbers solvers compute with: `f64` by default, [`Exact`] big rationals on request.
//!
//! Solvers are generic over [`Number`] and are compiled once for each. The float path uses the
//! same exact methods as the exact path (direct backups, policy iteration with direct linear
//! solves); rounding enters only through floating-point arithmetic. A float solve computes in
//! [`Bounded`] (`bounded.rs`), the same floats with a rigorous bound on their error beside
//! them ([`Number::Work`]); an exact sweep may run in [`Checked`] floats (`checked.rs`), which
//! notice any rounding. Moves are switched only on improvements beyond rounding noise (see
//! [`Number::clearly_better`]), so that policy iteration never cycles.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use malachite_base::num::arithmetic::traits::{DivExact, DivisibleBy, Gcd};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;

use crate::Rat;

mod bounded;
mod checked;

pub use bounded::Bounded;
pub(crate) use checked::Checked;

/// Arithmetic the solvers need. Implemented by `f64`, [`Exact`] and [`Bounded`].
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
    /// `self += Σ a·b` over `terms`: an expectation, a back substitution. The same as
    /// [`Number::add_mul`] term by term; exact numbers add the products over a common
    /// denominator and reduce the sum once.
    fn add_products<'a>(&mut self, terms: impl IntoIterator<Item = (&'a Self, Cow<'a, Self>)>) {
        for (a, b) in terms {
            self.add_mul(a, &b);
        }
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
        Exact(r.to_rational())
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
    fn add_products<'a>(&mut self, terms: impl IntoIterator<Item = (&'a Exact, Cow<'a, Exact>)>) {
        // Each reduced addition of two fractions takes one or two gcds of the denominators'
        // size, which dominate sums of long fractions. The sum is kept unreduced instead, over
        // the least common multiple of the denominators seen, cheap to keep while they
        // divide one another (the solutions of one linear system nearly share theirs), and
        // reduced once at the end. A single product keeps the reduced way, whose gcds are
        // of the small factors only.
        let mut terms = terms
            .into_iter()
            .filter(|(a, b)| a.0 != 0u32 && b.0 != 0u32);
        let Some(first) = terms.next() else {
            return;
        };
        let Some(second) = terms.next() else {
            self.add_mul(first.0, &first.1);
            return;
        };
        let mut sum = Unreduced::of(&self.0);
        for (a, b) in [first, second].into_iter().chain(terms) {
            sum.add_product(&a.0, &b.0);
        }
        self.0 = sum.reduced();
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

/// A sum of fractions not yet reduced: `num / den`, `den` a common multiple of the terms'
/// denominators.
struct Unreduced {
    num: Integer,
    den: Natural,
}

impl Unreduced {
    fn signed(r: &Rational) -> Integer {
        Integer::from_sign_and_abs(*r >= 0u32, r.to_numerator())
    }

    fn of(r: &Rational) -> Unreduced {
        Unreduced {
            num: Self::signed(r),
            den: r.to_denominator(),
        }
    }

    /// `self += a·b`.
    fn add_product(&mut self, a: &Rational, b: &Rational) {
        let num = Self::signed(a) * Self::signed(b);
        let den = match (a.denominator_ref(), b.denominator_ref()) {
            (d, e) if *d == 1u32 => e.clone(),
            (d, e) if *e == 1u32 => d.clone(),
            (d, e) => d * e,
        };
        if den == self.den {
            self.num += num;
        } else if den < self.den && (&self.den).divisible_by(&den) {
            self.num += num * Integer::from((&self.den).div_exact(&den));
        } else if den > self.den && (&den).divisible_by(&self.den) {
            self.num *= Integer::from((&den).div_exact(&self.den));
            self.num += num;
            self.den = den;
        } else {
            let g = (&self.den).gcd(&den);
            let to_den = (&den).div_exact(&g);
            self.num =
                &self.num * Integer::from(&to_den) + num * Integer::from((&self.den).div_exact(&g));
            self.den *= to_den;
        }
    }

    fn reduced(self) -> Rational {
        Rational::from_integers(self.num, Integer::from(self.den))
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
            None => match small.small_add(r) {
                Some(s) => small = s,
                None => big = Some(Exact::from_rat(small).add(&Exact::from_rat(r))),
            },
        }
    }
    big.unwrap_or_else(|| Exact::from_rat(small))
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

    /// Sums of products over denominators that are equal, divide one another, or neither
    /// (and signs, zeros and integers): unreduced and reduced once, they equal the sum of
    /// `add_mul` term by term.
    #[test]
    fn sums_of_products_equal_the_term_by_term_sum() {
        use malachite_base::num::arithmetic::traits::Pow;
        use proptest::prelude::*;
        let big = |k: u32| Rational::from(Natural::from(3u32).pow(k as u64) * Natural::from(7u32));
        let term = (0u32..3, -40i64..40, 1i64..13, -50i64..50, 0u32..4).prop_map(
            move |(base, pn, pd, xn, xd)| {
                let p = Exact(Rational::from(pn) / Rational::from(pd));
                // Denominators 1, or `3^k·7` over a small factor: some divide each other.
                let x = match xd {
                    0 => Rational::from(xn),
                    _ => Rational::from(xn) / (big(40 + base) / Rational::from(xd)),
                };
                (p, Exact(x))
            },
        );
        proptest!(|(start in -5i64..5, terms in proptest::collection::vec(term, 0..8))| {
            let mut expect = Exact(Rational::from(start) / Rational::from(3u32));
            let mut got = expect.clone();
            for (p, x) in &terms {
                expect.add_mul(p, x);
            }
            got.add_products(terms.iter().map(|(p, x)| (p, Cow::Borrowed(x))));
            prop_assert_eq!(got, expect);
        });
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
}
