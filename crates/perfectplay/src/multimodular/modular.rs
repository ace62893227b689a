//! Arithmetic modulo word-sized primes, and the way back from residues to a rational.
//!
//! The multi-modular exact evaluation ([`crate::multimodular`]) computes a game's value modulo
//! many random primes just below 2^31, combines the residues by the Chinese remainder theorem
//! and recovers the fraction by rational reconstruction. This module holds the pieces that
//! know nothing of games: Montgomery multiplication, random primes, and [`Residues`].

use malachite_base::num::arithmetic::traits::{FloorSqrt, ModInverse, UnsignedAbs};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;

use crate::Rng;

/// A prime `p < 2^31` with its Montgomery constants (`R = 2^32`). Numbers "in Montgomery form"
/// stand for `x R mod p`; [`Prime::mul`] of two such numbers is the form of their product.
///
/// Primes this small keep every product of two residues within a 64-bit word, which the
/// processor multiplies many at a time in vector registers (see the batches of
/// [`crate::multimodular`]); a value then needs about twice as many of them as of 62-bit primes,
/// and each costs far less than half.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prime {
    p: u32,
    /// `-p^{-1} mod 2^32`.
    neg_inv: u32,
    /// `R^2 mod p`.
    r2: u32,
}

impl Prime {
    /// The constants for an odd `p < 2^31`.
    pub(crate) fn new(p: u32) -> Prime {
        debug_assert!(p % 2 == 1 && p < 1 << 31);
        // Newton's iteration doubles the correct low bits of the inverse each step.
        let mut inv: u32 = 1;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(p.wrapping_mul(inv)));
        }
        let r = (1u64 << 32) % p as u64;
        let r2 = (r * r % p as u64) as u32;
        Prime {
            p,
            neg_inv: inv.wrapping_neg(),
            r2,
        }
    }

    /// The prime.
    pub(crate) fn value(&self) -> u64 {
        self.p as u64
    }

    /// The prime as a word of the lanes.
    pub(crate) fn word(&self) -> u32 {
        self.p
    }

    /// `-p^{-1} mod 2^32`, the constant of [`redc`].
    pub(crate) fn neg_inv(&self) -> u32 {
        self.neg_inv
    }

    /// `a b R^{-1} mod p` for `a, b < p`.
    #[inline(always)]
    pub(crate) fn mul(&self, a: u32, b: u32) -> u32 {
        redc(a as u64 * b as u64, self.p, self.neg_inv)
    }

    /// `x mod p` for any word.
    #[inline(always)]
    pub(crate) fn reduce(&self, x: u64) -> u32 {
        (x % self.p as u64) as u32
    }

    /// `x mod p` for a signed word.
    #[inline(always)]
    pub(crate) fn reduce_signed(&self, x: i64) -> u32 {
        let r = self.reduce(x.unsigned_abs());
        if x < 0 && r != 0 {
            self.p - r
        } else {
            r
        }
    }

    /// The Montgomery form of `x < p` (entering the form).
    pub(crate) fn enter(&self, x: u32) -> u32 {
        self.mul(x, self.r2)
    }

    /// The number that the Montgomery form `x` stands for (leaving the form).
    pub(crate) fn leave(&self, x: u32) -> u32 {
        self.mul(x, 1)
    }

    /// `x^{-1} mod p` (plain, not in Montgomery form), or `None` if `p` divides `x`.
    pub(crate) fn inverse(&self, x: u64) -> Option<u32> {
        let x = self.reduce(x);
        if x == 0 {
            return None;
        }
        let (mut r0, mut r1) = (self.p as i64, x as i64);
        let (mut t0, mut t1) = (0i64, 1i64);
        while r1 != 0 {
            let q = r0 / r1;
            (r0, r1) = (r1, r0 - q * r1);
            (t0, t1) = (t1, t0 - q * t1);
        }
        Some(t0.rem_euclid(self.p as i64) as u32)
    }
}

/// `t R^{-1} mod p` for `t < p 2^32` (Montgomery reduction; `neg_inv` is `-p^{-1} mod 2^32`).
/// Written on plain words, without branches, so that a loop over lanes of different primes
/// becomes vector code.
#[inline(always)]
pub(crate) fn redc(t: u64, p: u32, neg_inv: u32) -> u32 {
    let m = (t as u32).wrapping_mul(neg_inv);
    // t + m p < 2 p 2^32 < 2^64: no overflow; the result is below 2p < 2^32.
    let u = ((t + m as u64 * p as u64) >> 32) as u32;
    // `u - p` wraps around to a larger number exactly when `u < p`.
    u.min(u.wrapping_sub(p))
}

/// `a + b mod p` for `a, b < p < 2^31`, without branches (see [`redc`]).
#[inline(always)]
pub(crate) fn add(a: u32, b: u32, p: u32) -> u32 {
    let s = a + b;
    s.min(s.wrapping_sub(p))
}

/// `a^e mod n` (for the primality test).
fn pow_mod(a: u64, mut e: u64, n: u64) -> u64 {
    let n = n as u128;
    let (mut base, mut acc) = (a as u128 % n, 1u128);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base % n;
        }
        base = base * base % n;
        e >>= 1;
    }
    acc as u64
}

/// Whether `n` is prime: Miller–Rabin with a set of bases known to be exact for every 64-bit
/// number.
fn is_prime(n: u64) -> bool {
    if n < 2 || n % 2 == 0 {
        return n == 2;
    }
    for small in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n % small == 0 {
            return n == small;
        }
    }
    let (s, d) = (
        (n - 1).trailing_zeros(),
        (n - 1) >> (n - 1).trailing_zeros(),
    );
    'bases: for a in [2u64, 325, 9375, 28178, 450775, 9780504, 1795265022] {
        let a = a % n;
        if a == 0 {
            continue;
        }
        let mut x = pow_mod(a, d, n);
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

/// A prime drawn uniformly at random from the primes in `[2^30, 2^31)` (about 5 * 10^7 of them).
pub(crate) fn random_prime(rng: &mut Rng) -> Prime {
    loop {
        let n = (1u64 << 30) | (rng.next_u64() >> 34) | 1;
        if is_prime(n) {
            return Prime::new(n as u32);
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
}

impl Residues {
    /// No primes yet.
    pub(crate) fn new() -> Residues {
        Residues {
            x: Natural::ZERO,
            modulus: Natural::ONE,
        }
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
        let mut v = num * inv as u64 % prime.value();
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
            assert!((1 << 30..1 << 31).contains(&p));
            for _ in 0..200 {
                let (a, b) = (rng.next_u64() % p, rng.next_u64() % p);
                let (a32, b32) = (a as u32, b as u32);
                let want = a * b % p;
                let got = pr.leave(pr.mul(pr.enter(a32), pr.enter(b32)));
                assert_eq!(got as u64, want);
                assert_eq!(add(a32, b32, pr.word()) as u64, (a + b) % p);
                let inv = pr.inverse(a.max(1)).unwrap() as u64;
                assert_eq!(a.max(1) * inv % p, 1);
                // Reduction of any number below p 2^32, not only of a product of residues.
                let t = rng.next_u64() % (p << 32);
                let plain = (t as u128 * pr.inverse(1 << 32).unwrap() as u128 % p as u128) as u64;
                assert_eq!(redc(t, pr.word(), pr.neg_inv()) as u64, plain);
            }
            assert_eq!(pr.reduce_signed(-1) as u64, p - 1);
            assert_eq!(pr.reduce_signed(-(p as i64)), 0);
            assert_eq!(pr.reduce(u64::MAX) as u64, u64::MAX % p);
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
            for _ in 0..8 {
                let pr = random_prime(&mut rng);
                let inv = pr.inverse(den).unwrap() as u64;
                let r = pr.reduce_signed(num) as u64 * inv % pr.value();
                assert!(Residues::agrees(&q, &pr, r));
                res.push(&pr, r);
                got = res.reconstruct();
            }
            assert_eq!(got, Some(q));
        }
    }
}
