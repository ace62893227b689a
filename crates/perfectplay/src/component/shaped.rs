//! The next guess of exact policy iteration, from a float solve of the component *shaped* by
//! the exact values of the last policy.
//!
//! Exact values of long games differ between near moves by parts in 10^20 and less: a float
//! solve cannot tell such moves apart, and exact policy iteration then corrects the float
//! strategy a few thousand moves at a time, an evaluation in big rationals per step. But the
//! differences are small only relative to the values. With `v` the exact values of a policy
//! `μ`, each move's constant is replaced by its *advantage* `konst + v[to] − v[x]` (a
//! potential-based shaping: every strategy's value becomes its value minus `v`, so the optimal
//! strategies are the same), and in the shaped component every number is a difference, which
//! floats hold to full relative precision. Its float solve gives a strategy that exact policy
//! iteration then proves or improves, as it does the first guess: correctness never rests on
//! it.

use std::ops::Range;

use super::{Component, EXIT};
use crate::backup::Kind;
use crate::{Number, Player};

/// A move whose float advantage is within this fraction of the values is computed exactly;
/// beyond it, the float difference decides nothing the shaping needs.
const NEAR: f64 = 1e-9;

/// The shaped constants are scaled so that the largest exact advantage is about one (float
/// policy iteration compares with an absolute floor), and kept within this size.
const LARGEST: f64 = 1e150;

impl<N: Number> Component<N> {
    /// A strategy for `player` from the float solve of the component shaped by `v`, the exact
    /// values of `policy` (see the module docs); `None` where the component has decisions of
    /// both players, no move improves on the policy's, no near move differs from the
    /// policy's, or the float solve finds none or the policy itself.
    pub(super) fn shaped_policy(
        &self,
        v: &[N],
        policy: &[u32],
        player: Player,
        threads: usize,
    ) -> Option<Vec<u32>> {
        if self.kind.contains(&Kind::Decision(player.other())) {
            return None;
        }
        let n = self.n();
        let to_f64 = |part: Range<usize>| v[part].iter().map(Number::to_f64).collect::<Vec<f64>>();
        let vf = Self::on_threads(threads, n, to_f64).concat();
        // Each part of the nodes: its edges' advantages, whether some move is better than the
        // policy's (exactly for the near moves, beyond doubt for the others; where none is,
        // the policy is optimal), and the largest exact advantage.
        let part = |nodes: Range<usize>| {
            let edges = self.start[nodes.start] as usize..self.start[nodes.end] as usize;
            let mut advantage = vec![0.0f64; edges.len()];
            let (mut improvable, mut largest) = (false, 0.0f64);
            for x in nodes {
                if self.kind[x] == Kind::Chance {
                    // The policy's values satisfy a chance node's equation exactly: its
                    // outcomes' advantages sum to zero, and only their sum counts.
                    continue;
                }
                let first = self.start[x] as usize - edges.start;
                for (i, e) in self.out(x).iter().enumerate() {
                    if i as u32 == policy[x] {
                        continue;
                    }
                    let to = if e.to == EXIT { 0.0 } else { vf[e.to as usize] };
                    let q = e.konst.to_f64() + to;
                    let gap = q - vf[x];
                    let a = if gap.abs() <= NEAR * q.abs().max(vf[x].abs()) {
                        let exact = Self::q(e, v).sub(&v[x]);
                        improvable |= player.prefers(&exact, &N::zero());
                        let exact = exact.to_f64();
                        largest = largest.max(exact.abs());
                        exact
                    } else {
                        gap
                    };
                    improvable |= !a.is_finite() || player.prefers(&a, &0.0);
                    advantage[first + i] = a;
                }
            }
            (advantage, improvable, largest)
        };
        let parts = Self::on_threads(threads, n, part);
        let improvable = parts.iter().any(|p| p.1);
        let largest = parts.iter().fold(0.0f64, |m, p| m.max(p.2));
        let advantage: Vec<f64> = parts.into_iter().flat_map(|p| p.0).collect();
        if !improvable || largest == 0.0 || !largest.is_finite() {
            return None;
        }
        let scale = 1.0 / largest;
        let shaped = |i: usize| (advantage[i] * scale).clamp(-LARGEST, LARGEST);
        let mut guess = self.float_solve_with(shaped, None)?;
        for &(x, m) in &self.forced {
            guess[x as usize] = m;
        }
        (guess != policy).then_some(guess)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Component, LocalEdge, EXIT};
    use crate::backup::Kind;
    use crate::linear::System;
    use crate::{Exact, Number, Player, Rat};

    /// A fair walk on positions `0..m` that pays one past the left end and `1 + 2^-10` past
    /// the right. At each position Max takes move 0 (a fair step) or move 1: a step right
    /// with probability `1/2 + 2^-40`, for a cost of `2^-56` where the position is a multiple
    /// of three and `3 · 2^-56` elsewhere. With `m = 63` the values are about
    /// `1 + 2^-10 (i + 1) / 64`, so move 1 gains about `2^-40 · 2^-15 = 2^-55`: it is better
    /// exactly at the multiples of three, by amounts far below a unit in the last place of the
    /// values. Position `i` is decision `3i`, and its moves' chance nodes `3i + 1`, `3i + 2`.
    fn biased_walk(m: usize) -> Component<Exact> {
        let mut c = Component::default();
        let side = |j: Option<usize>| j.filter(|&j| j < m).map_or(EXIT, |j| 3 * j as u32);
        let edge = |to: u32, prob: Rat, konst: Rat| LocalEdge {
            to,
            prob: Exact::from_rat(prob),
            konst: Exact::from_rat(konst),
        };
        for i in 0..m {
            c.kind.push(Kind::Decision(Player::Max));
            c.start.push(c.edges.len() as u32);
            let cost = if i % 3 == 0 { 1 } else { 3 };
            c.edges.push(edge(3 * i as u32 + 1, Rat::ONE, Rat::ZERO));
            c.edges
                .push(edge(3 * i as u32 + 2, Rat::ONE, Rat::new(-cost, 1 << 56)));
            let left = if i == 0 { Rat::ONE } else { Rat::ZERO };
            let right = if i + 1 == m {
                Rat::new(1025, 1024)
            } else {
                Rat::ZERO
            };
            for (down, up) in [(1 << 39, 1 << 39), ((1 << 39) - 1, (1 << 39) + 1)] {
                c.kind.push(Kind::Chance);
                c.start.push(c.edges.len() as u32);
                c.edges
                    .push(edge(side(i.checked_sub(1)), Rat::new(down, 1 << 40), left));
                c.edges
                    .push(edge(side(Some(i + 1)), Rat::new(up, 1 << 40), right));
            }
        }
        c.start.push(c.edges.len() as u32);
        c
    }

    /// From the exact values of the fair steps, the solve shaped by them finds the exact
    /// optimum at once, as exact policy iteration proves it; the values' own floats cannot
    /// tell its moves apart.
    #[test]
    fn the_shaped_solve_tells_apart_moves_that_floats_cannot() {
        let m = 63;
        let c = biased_walk(m);
        let fair = vec![0; 3 * m];
        let v = c
            .evaluate(&fair, &mut System::new(0))
            .expect("the walk ends");
        for i in 0..m {
            assert_eq!(v[3 * i + 1].to_f64(), v[3 * i + 2].to_f64(), "position {i}");
        }
        let guess = c
            .shaped_policy(&v, &fair, Player::Max, 2)
            .expect("a shaped guess");
        // From the optimum's own values, no guess: no move improves on it.
        let w = c
            .evaluate(&guess, &mut System::new(0))
            .expect("the walk ends");
        assert_eq!(c.shaped_policy(&w, &guess, Player::Max, 2), None);
        let optimum = c.solve(&mut System::new(0), None).expect("the walk ends");
        for i in 0..m {
            let best = u32::from(i % 3 == 0);
            assert_eq!(guess[3 * i], best, "position {i}");
            assert_eq!(optimum.policy[3 * i], best, "position {i}");
        }
    }
}
