//! Step 4 of the method: rounds of batches until the fractions sought are reconstructed and
//! confirmed by fresh primes.

use std::time::Instant;

use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_q::Rational;

use super::batch::{run_batch, Batch, Scratch};
use super::modular::{random_prime, Prime, Residues};
use super::{Evaluated, Failed, Plan, LANES, U};
use crate::{Rng, SolveError};

/// The most primes tried before giving up and leaving the value to rational arithmetic (a
/// fraction of some million bits).
pub(super) const MAX_PRIMES: usize = 1 << 15;

/// The most near moves that may differ exactly from their state's chosen move: each is then
/// compared exactly, its difference reconstructed like the value.
pub(super) const MAX_DIFFERING: usize = 1024;

/// A fraction sought from its residues: those gathered, and the fraction once a round of
/// fresh primes has confirmed it.
struct Sought {
    residues: Residues,
    found: Option<Rational>,
}

impl Sought {
    fn new() -> Sought {
        Sought {
            residues: Residues::new(),
            found: None,
        }
    }

    /// Tries a candidate (if `fits` accepts it) against the held-out residues `held`, which
    /// must fill a whole batch, and keeps it if they agree; else takes them in.
    fn settle(&mut self, attempt: bool, held: &[(Prime, u64)], fits: impl Fn(&Rational) -> bool) {
        if self.found.is_some() {
            return;
        }
        if attempt {
            let candidate = self.residues.reconstruct().filter(fits);
            if let Some(c) = candidate {
                if held.len() == LANES && held.iter().all(|(pr, r)| Residues::agrees(&c, pr, *r)) {
                    self.found = Some(c);
                    return;
                }
            }
        }
        for (pr, r) in held {
            self.residues.push(pr, *r);
        }
    }
}

/// Rounds of batches on `threads` threads until the start's value, and the difference of each
/// near move that differs from its state's chosen move, are reconstructed and survive a round
/// of fresh primes; then every such difference must be in the chosen move's favour (the chosen
/// move is optimal, only not uniquely so), else the method gives up.
pub(super) fn reconstruct(
    plan: &Plan,
    threads: usize,
    report: &mut dyn FnMut(usize) -> Result<(), SolveError>,
) -> Result<Evaluated, Failed> {
    let threads = threads.max(1);
    let mut rng = Rng::new(seed());
    let mut fresh = || loop {
        let pr = random_prime(&mut rng);
        let dens = plan.dens.iter().chain(plan.rewards.iter().map(|(_, d)| d));
        if dens.into_iter().all(|&d| d % pr.value() != 0) {
            return pr;
        }
    };
    let mut used = std::collections::HashSet::new();
    let mut root = Sought::new();
    // The checks that differ (found in the first round), each with its difference.
    let mut differing: Option<Vec<(u32, Sought)>> = None;
    let mut scratch: Vec<Scratch> = vec![Scratch::default(); threads];
    let (fv, fe) = plan.float;
    // A fraction that the float value rules out is not the value.
    let near_float = |c: &Rational| {
        let cf = f64::rounding_from(c, RoundingMode::Nearest).0;
        (cf - fv).abs() <= fe * 1.01 + fv.abs() * 4.0 * U + f64::MIN_POSITIVE
    };
    // Reconstruction costs time quadratic in the size of the modulus: try after every round
    // while it is small, then each time it has grown by a quarter.
    let (mut next_try, mut seen) = (0, 0);
    while seen < MAX_PRIMES {
        report(seen).map_err(Failed::Stopped)?;
        let batches: Vec<[Prime; LANES]> = (0..threads)
            .map(|_| {
                std::array::from_fn(|_| loop {
                    let pr = fresh();
                    if used.insert(pr.value()) {
                        return pr;
                    }
                })
            })
            .collect();
        let jobs: Vec<_> = batches
            .iter()
            .zip(scratch.iter_mut())
            .map(|(primes, mine)| move || run_batch(plan, primes, mine))
            .collect();
        let results: Vec<Batch> = crate::memory::on_threads(jobs);
        if results.iter().all(|b| !b.valid.contains(&true)) {
            return Err("a cycle's elimination meets a zero pivot modulo every prime".into());
        }
        let differing = differing.get_or_insert_with(|| {
            let mut checks: Vec<u32> = results
                .iter()
                .flat_map(|b| b.differ.iter().map(|d| d.0))
                .collect();
            checks.sort_unstable();
            checks.dedup();
            checks.into_iter().map(|c| (c, Sought::new())).collect()
        });
        if differing.len() > MAX_DIFFERING {
            return Err("too many moves within float rounding of each other differ exactly".into());
        }
        let known = |c: u32| differing.binary_search_by_key(&c, |d| d.0).is_ok();
        if results.iter().any(|b| b.differ.iter().any(|d| !known(d.0))) {
            return Err("a near move's difference vanished modulo the first primes".into());
        }
        // The residues of a batch's lanes that hold one: of the start's value, or of the
        // difference of check `c` (zero where the batch lists none).
        let lanes_of = |b: &[Prime; LANES], r: &Batch, c: Option<u32>| {
            // A batch lists its differing checks in order.
            let listed = c.and_then(|c| r.differ.binary_search_by_key(&c, |d| d.0).ok());
            let of = |l: usize| match (c, listed) {
                (None, _) => r.root[l],
                (Some(_), Some(i)) => r.differ[i].1[l],
                (Some(_), None) => 0,
            };
            let lanes = (0..LANES).filter(|&l| r.valid[l]);
            lanes.map(|l| (b[l], of(l))).collect::<Vec<_>>()
        };
        // The last batch is held out: a fraction reconstructed from all the others must agree
        // with its fresh primes.
        let last = batches.len() - 1;
        let attempt = seen >= next_try;
        seen += results
            .iter()
            .map(|b| b.valid.iter().filter(|&&v| v).count())
            .sum::<usize>();
        let sought = std::iter::once((None, &mut root))
            .chain(differing.iter_mut().map(|(c, s)| (Some(*c), s)));
        for (c, s) in sought {
            if s.found.is_some() {
                continue;
            }
            for (primes, res) in batches[..last].iter().zip(&results) {
                for (pr, r) in lanes_of(primes, res, c) {
                    s.residues.push(&pr, r);
                }
            }
            let held = lanes_of(&batches[last], &results[last], c);
            s.settle(attempt, &held, |q| c.is_some() || near_float(q));
        }
        if attempt && seen >= 256 {
            next_try = seen * 5 / 4;
        }
        let (Some(value), true) = (&root.found, differing.iter().all(|d| d.1.found.is_some()))
        else {
            continue;
        };
        // Each near move that differs must be worse exactly: the chosen move is then optimal.
        let mut better: Vec<(u32, u32)> = Vec::new();
        for (c, d) in differing.iter() {
            let d = d.found.as_ref().expect("all found");
            let max = plan.checks[*c as usize].3;
            if (max && *d > 0u32) || (!max && *d < 0u32) {
                better.push(plan.check_moves[*c as usize]);
            }
        }
        if !better.is_empty() {
            // A state's best near move, if several are better: the one found first, and the
            // next attempt sorts out the rest.
            better.sort_unstable();
            better.dedup_by_key(|b| b.0);
            return Err(Failed::Better(better));
        }
        return Ok(Evaluated {
            value: value.clone(),
            primes: seen,
        });
    }
    Err("the value has more than a million bits".into())
}

/// A seed that differs from run to run, so that the primes are random for every game.
fn seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    h.finish()
}
