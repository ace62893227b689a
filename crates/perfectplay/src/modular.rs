//! Arithmetic modulo word-sized primes, and the way back from residues to a rational.
//!
//! The multi-modular exact evaluation ([`crate::multimodular`]) computes a game's value modulo
//! many random primes just below 2^62, combines the residues by the Chinese remainder theorem
//! and recovers the fraction by rational reconstruction. This module holds the pieces that
//! know nothing of games: Montgomery multiplication, random primes, and [`Residues`].

use malachite_base::num::arithmetic::traits::{FloorSqrt, ModInverse, UnsignedAbs};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;

use crate::Rng;

/// A prime `p < 2^62` with its Montgomery constants (`R = 2^64`). Numbers "in Montgomery form"
/// stand for `x R mod p`; [`Prime::mul`] of two such numbers is the form of their product.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prime {
    p: u64,
    /// `-p^{-1} mod 2^64`.
    neg_inv: u64,
    /// `R^2 mod p`.
    r2: u64,
}

impl Prime {
    /// The constants for an odd `p < 2^62`.
    pub(crate) fn new(p: u64) -> Prime {
        debug_assert!(p % 2 == 1 && p < 1 << 62);
        // Newton's iteration doubles the correct low bits of the inverse each step.
        let mut inv: u64 = 1;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
        }
        let r = ((1u128 << 64) % p as u128) as u64;
        let r2 = ((r as u128 * r as u128) % p as u128) as u64;
        Prime {
            p,
            neg_inv: inv.wrapping_neg(),
            r2,
        }
    }

    /// The prime.
    pub(crate) fn value(&self) -> u64 {
        self.p
    }

    /// `a b R^{-1} mod p` for `a, b < p`.
    #[inline(always)]
    pub(crate) fn mul(&self, a: u64, b: u64) -> u64 {
        self.redc(a as u128 * b as u128)
    }

    /// `t R^{-1} mod p` for `t < p 2^64` (Montgomery reduction).
    #[inline(always)]
    pub(crate) fn redc(&self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.neg_inv);
        // t + m p < 2^65 p < 2^127: no overflow for p < 2^62; the result is below 2p.
        let u = ((t + m as u128 * self.p as u128) >> 64) as u64;
        if u >= self.p {
            u - self.p
        } else {
            u
        }
    }

    /// `a + b mod p` for `a, b < p`.
    #[inline(always)]
    pub(crate) fn add(&self, a: u64, b: u64) -> u64 {
        let s = a + b;
        if s >= self.p {
            s - self.p
        } else {
            s
        }
    }

    /// `x mod p` for any word.
    #[inline(always)]
    pub(crate) fn reduce(&self, x: u64) -> u64 {
        if x >= self.p {
            x % self.p
        } else {
            x
        }
    }

    /// `x mod p` for a signed word.
    #[inline(always)]
    pub(crate) fn reduce_signed(&self, x: i64) -> u64 {
        let r = self.reduce(x.unsigned_abs());
        if x < 0 && r != 0 {
            self.p - r
        } else {
            r
        }
    }

    /// The Montgomery form of `x < p` (entering the form).
    pub(crate) fn enter(&self, x: u64) -> u64 {
        self.mul(x, self.r2)
    }

    /// The number that the Montgomery form `x` stands for (leaving the form).
    pub(crate) fn leave(&self, x: u64) -> u64 {
        self.mul(x, 1)
    }

    /// `x^{-1} mod p` (plain, not in Montgomery form), or `None` if `p` divides `x`.
    pub(crate) fn inverse(&self, x: u64) -> Option<u64> {
        let x = self.reduce(x);
        if x == 0 {
            return None;
        }
        let (mut r0, mut r1) = (self.p as i128, x as i128);
        let (mut t0, mut t1) = (0i128, 1i128);
        while r1 != 0 {
            let q = r0 / r1;
            (r0, r1) = (r1, r0 - q * r1);
            (t0, t1) = (t1, t0 - q * t1);
        }
        Some(t0.rem_euclid(self.p as i128) as u64)
    }

    /// `a^e mod p` on plain numbers (for the primality test).
    fn pow(&self, a: u64, mut e: u64) -> u64 {
        let p = self.p as u128;
        let (mut base, mut acc) = (a as u128 % p, 1u128);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * base % p;
            }
            base = base * base % p;
            e >>= 1;
        }
        acc as u64
    }
}

/// Whether an odd `n < 2^62` is prime: Miller–Rabin with a set of bases known to be exact for
/// every 64-bit number.
fn is_prime(n: u64) -> bool {
    if n < 2 || n % 2 == 0 {
        return n == 2;
    }
    for small in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n % small == 0 {
            return n == small;
        }
    }
    let arith = Prime::new(n);
    let (s, d) = (
        (n - 1).trailing_zeros(),
        (n - 1) >> (n - 1).trailing_zeros(),
    );
    'bases: for a in [2u64, 325, 9375, 28178, 450775, 9780504, 1795265022] {
        let a = a % n;
        if a == 0 {
            continue;
        }
        let mut x = arith.pow(a, d);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = ((x as u128 * x as u128) % n as u128) as u64;
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// A prime drawn uniformly at random from the primes in `[2^61, 2^62)`.
pub(crate) fn random_prime(rng: &mut Rng) -> Prime {
    loop {
        let n = (1u64 << 61) | (rng.next_u64() >> 3) | 1;
        if is_prime(n) {
            return Prime::new(n);
        }
    }
}

/// Residues of one rational number modulo a growing set of primes, combined as they come
/// (Chinese remainder theorem), and rational reconstruction from them.
#[derive(Clone, Debug)]
pub(crate) struct Residues {
    /// The combined residue, in `[0, modulus)`.
    x: Natural,
    /// The product of the primes so far.
    modulus: Natural,
    count: usize,
}

impl Residues {
    /// No primes yet.
    pub(crate) fn new() -> Residues {
        Residues {
            x: Natural::ZERO,
            modulus: Natural::ONE,
            count: 0,
        }
    }

    /// The number of primes combined.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Adds the residue `r` (plain) modulo a prime not seen before.
    pub(crate) fn push(&mut self, prime: &Prime, r: u64) {
        let p = prime.value();
        let p_nat = Natural::from(p);
        let x_mod = u64::try_from(&(&self.x % &p_nat)).expect("below p");
        let m_mod = u64::try_from(&(&self.modulus % &p_nat)).expect("below p");
        let m_inv = m_mod
            .mod_inverse(p)
            .expect("the primes are distinct, so the modulus is invertible");
        let diff = (r + p - x_mod) % p;
        let t = ((diff as u128 * m_inv as u128) % p as u128) as u64;
        self.x += &self.modulus * Natural::from(t);
        self.modulus *= p_nat;
        self.count += 1;
    }

    /// The fraction `a/b` with `|a|, b <= sqrt(modulus / 2)` congruent to the residues, if
    /// there is one (it is then unique).
    pub(crate) fn reconstruct(&self) -> Option<Rational> {
        let bound_nat = (&self.modulus >> 1u64).floor_sqrt();
        let bound = Integer::from(&bound_nat);
        let (mut r0, mut r1) = (Integer::from(&self.modulus), Integer::from(&self.x));
        let (mut t0, mut t1) = (Integer::ZERO, Integer::ONE);
        while r1 > bound {
            let q = &r0 / &r1;
            let r2 = &r0 - &q * &r1;
            let t2 = &t0 - &q * &t1;
            (r0, r1) = (r1, r2);
            (t0, t1) = (t1, t2);
        }
        if t1 == 0u32 || (&t1).unsigned_abs() > bound_nat {
            return None;
        }
        let (num, den) = if t1 < 0u32 { (-r1, -t1) } else { (r1, t1) };
        let q = Rational::from_integers(num.clone(), den.clone());
        // Reconstruction is valid only for a fraction already in lowest terms.
        if *q.denominator_ref() != (&den).unsigned_abs() {
            return None;
        }
        Some(q)
    }

    /// Whether the rational `q` (whose denominator `p` does not divide) has residue `r` modulo
    /// `p`.
    pub(crate) fn agrees(q: &Rational, prime: &Prime, r: u64) -> bool {
        let p = Natural::from(prime.value());
        let num = u64::try_from(&(q.to_numerator() % &p)).expect("below p");
        let den = u64::try_from(&(q.to_denominator() % &p)).expect("below p");
        let Some(inv) = prime.inverse(den) else {
            return false;
        };
        let mut v = ((num as u128 * inv as u128) % prime.value() as u128) as u64;
        if *q < 0u32 && v != 0 {
            v = prime.value() - v;
        }
        v == r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn montgomery_matches_plain_arithmetic() {
        let mut rng = Rng::new(7);
        for _ in 0..20 {
            let pr = random_prime(&mut rng);
            let p = pr.value();
            assert!((1 << 61..1 << 62).contains(&p));
            for _ in 0..200 {
                let (a, b) = (rng.next_u64() % p, rng.next_u64() % p);
                let want = ((a as u128 * b as u128) % p as u128) as u64;
                let got = pr.leave(pr.mul(pr.enter(a), pr.enter(b)));
                assert_eq!(got, want);
                assert_eq!(pr.add(a, b), ((a as u128 + b as u128) % p as u128) as u64);
                let inv = pr.inverse(a.max(1)).unwrap();
                assert_eq!((a.max(1) as u128 * inv as u128) % p as u128, 1);
            }
            assert_eq!(pr.reduce_signed(-1), p - 1);
            assert_eq!(pr.reduce_signed(-(p as i64)), 0);
        }
    }

    #[test]
    fn primality_agrees_with_trial_division() {
        let slow = |n: u64| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
        for n in 0..5000u64 {
            assert_eq!(is_prime(n), slow(n), "{n}");
        }
        // Strong pseudoprimes to several small bases.
        for n in [3215031751u64, 2152302898747, 3474749660383, 341550071728321] {
            assert!(!is_prime(n), "{n}");
        }
        assert!(is_prime((1 << 61) - 1));
    }

    #[test]
    fn reconstructs_fractions_of_both_signs() {
        let mut rng = Rng::new(11);
        for (num, den) in [(558242i64, 45045u64), (-7, 3), (0, 1), (123456789, 1)] {
            let q = Rational::from_signeds(num, den as i64);
            let mut res = Residues::new();
            let mut got = None;
            for _ in 0..4 {
                let pr = random_prime(&mut rng);
                let inv = pr.inverse(den).unwrap();
                let r = ((pr.reduce_signed(num) as u128 * inv as u128) % pr.value() as u128) as u64;
                assert!(Residues::agrees(&q, &pr, r));
                res.push(&pr, r);
                got = res.reconstruct();
            }
            assert_eq!(got, Some(q));
        }
    }
}
