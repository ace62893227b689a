//! Rewards that count only on plays that reach ([`Options::reached_only`](crate::Options),
//! PRISM-games' `R [ F0 φ ]` on a chain): the value is the expected reward of a play times
//! the worth of the terminal it ends at (1 where it reaches, 0 where it does not), an endless
//! play counting zero.
//!
//! On a chain that is a reward to reach the terminals again, with each reward weighed by the
//! probability `w` of reaching from where it leads: a step from `s` to `t` that earns `r`
//! counts `r·w(t)` (what it earns counts on the plays through `t` that reach, and the others
//! count nothing of it), and a choice's own reward counts `w(s)`; the states from which no
//! play reaches are worth zero, and every terminal too. So the solve runs twice:
//! 1. the game with every reward set aside, a game of probabilities: `w` of every state, its
//!    values 0 and 1 from the graph, every open state's bounds closed until they are within
//!    [`CLOSER`] times the precision (or as close as floats bring them);
//! 2. the rewards weighed by those bounds, each with the bound on its distance from the exact
//!    weighed reward (the width of the weight's bounds and the rounding), and the solve of a
//!    reward to reach from the start again: retrograde analysis and interval iteration, whose
//!    bounds then cover the weights' too. Every play from an open state ends (the states of
//!    the chain's bottom components that do not reach are worth zero), so the values are
//!    finite.

use timely::worker::Worker;

use super::Work;
use crate::part::{conversion, Bounds, Kind};
use crate::round::FIGURES;
use crate::DistError;

/// How much closer than the precision asked the weights' bounds must close: the answer's
/// bounds are widened by the weights' widths, each times the reward that it weighs.
const CLOSER: f64 = 1e-3;

/// The unit round-off of `f64`.
const U: f64 = f64::EPSILON / 2.0;

impl Work<'_> {
    /// Solves the probability of reaching, then weighs every reward by it and sets the game
    /// up for the reward's solve (see the module documentation).
    pub(super) fn weigh_by_reach(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        // 1. The probability: the same game, its rewards set aside.
        let p = &mut self.part;
        let zeros = |v: &mut Vec<f64>| std::mem::replace(v, vec![0.0; v.len()]);
        let choice_reward = zeros(&mut p.choice_reward);
        let choice_err = zeros(&mut p.choice_err);
        let rewards = zeros(&mut p.r);
        let reward_inexact: Vec<bool> = p.inexact.iter().map(|&b| b & 2 != 0).collect();
        for bits in &mut p.inexact {
            *bits &= 1;
        }
        self.qualitative(worker)?;
        self.settle_all = Some(self.options.precision * CLOSER);
        let open = self.retrograde(worker)?;
        if open {
            self.iterate(worker)?;
        }
        self.settle_all = None;
        // Every state's last bounds to every link that reads them (the iteration sends only
        // moves past its step).
        for s in 0..self.part.len() {
            self.send(s);
        }
        for m in std::mem::take(&mut self.local) {
            self.receive(m);
        }
        self.round(worker, None, [0.0; FIGURES])?;
        for m in std::mem::take(&mut self.out) {
            self.receive(m);
        }
        // 2. The rewards weighed, each with its error bound.
        let p = &mut self.part;
        p.r = rewards;
        p.choice_reward = choice_reward;
        p.choice_err = choice_err;
        p.slot_err = vec![0.0; p.r.len()];
        // A probability's bounds, within [0, 1] where they are not known closer.
        let weight = |lo: f64, hi: f64, v: f64| {
            let lo = lo.max(0.0);
            let hi = hi.min(1.0).max(lo);
            (v.clamp(lo, hi), lo, hi)
        };
        for s in 0..p.len() {
            let own = weight(p.lo[s], p.hi[s], p.v[s]);
            for c in p.first[s] as usize..p.first[s + 1] as usize {
                let (r, err) = weighed(p.choice_reward[c], p.choice_err[c], own);
                (p.choice_reward[c], p.choice_err[c]) = (r, err);
                for k in p.choice_first[c] as usize..p.choice_first[c + 1] as usize {
                    let b = p.link_at[p.link[k] as usize];
                    let own_err = conversion(p.r[k], reward_inexact[k]);
                    let (r, err) = weighed(p.r[k], own_err, weight(b.lo, b.hi, b.v));
                    (p.r[k], p.slot_err[k]) = (r, err);
                    p.inexact[k] |= 4;
                }
            }
        }
        // Every terminal, and every state from which no play reaches, is worth zero; the
        // others are open again, and so is every link.
        for s in 0..p.len() {
            let zero = p.kind[s] == Kind::Terminal || p.hi[s] <= 0.0;
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = match zero {
                true => (0.0, 0.0, 0.0, true),
                false => (0.0, f64::NEG_INFINITY, f64::INFINITY, false),
            };
        }
        p.link_at.fill(Bounds::UNKNOWN);
        p.link_fin.fill(false);
        self.queue.clear();
        (self.trap, self.fixed_point, self.ended) = (None, None, None);
        Ok(())
    }
}

/// The reward `r` (within `err` of the exact one) weighed by a probability `(v, lo, hi)`:
/// `r·v`, and the bound on its distance from the exact reward times the exact probability
/// (the weight's width, the reward's own error, and the product's rounding).
fn weighed(r: f64, err: f64, (v, lo, hi): (f64, f64, f64)) -> (f64, f64) {
    if r == 0.0 && err == 0.0 {
        return (0.0, 0.0);
    }
    let product = r * v;
    let bound = r.abs() * (v - lo).max(hi - v) + err * hi + product.abs() * U;
    // The bound's own three roundings, and a float up.
    (product, (bound * (1.0 + 8.0 * U)).next_up())
}
