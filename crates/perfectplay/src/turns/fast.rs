//! A turn of a template in plain floats, with one error bound for the whole turn.
//!
//! A float solve carries a bound on every value ([`crate::Bounded`]), widened at each
//! operation. On a template the operations of a turn are known before the turn is solved, so
//! their rounding can be bounded once: if every value the turn computes is at most `m` in
//! size, every value it reads from outside is off by at most `e` (the kept states' radii and
//! the rounding of their rewards), then its kept state's value is off by at most
//! `a·e + b·u·m + d`, where `u` is the unit roundoff and `a`, `b`, `d` follow from the
//! template alone (see [`Fast::of`]). The turn is then solved in `f64` with the same
//! operations in the same order as the bounded numbers do it (so the values are the same
//! bits), tracking `m` and `e` only.
//!
//! The bound of each operation, with `F` the sum of a node's probabilities (as computed, so
//! possibly a little above one), `k` its number of outcomes, `δp` and `δr` the rounding of a
//! probability and a reward when they became floats, and `E` the bound of what it reads:
//! - `q = r + v` is off by at most `E + δr + u·|q|`;
//! - a decision's plain move is `q`, and the best of several is off by at most the largest
//!   bound among them;
//! - a chance node (or a random move) `s = Σ p·q`, summed in order, is off by at most
//!   `F·max(E + δr) + u·m·(Σ p_i·(k - i) + 2F + Σδp/u) + k·TINY` (the partial sums' rounding,
//!   at most `u` of each, where the partial sum after outcome `j` is at most `m·Σ_{i≤j} p_i`;
//!   the products' and the `q`s', at most `u·m·F` each; the probabilities'; and a product
//!   that underflows), widened by a factor `1 + 4ku` for the second-order terms.
//!
//! Composed over the template's nodes (children first), each node's bound is
//! `A·e + B·u·m + D`, and the kept state's is the template's.

use crate::backup::{Edge, Kind};
use crate::model::Model;
use crate::{Number, Player, SolveError};

use super::shape::{Scratch, Template};

/// The unit roundoff, a little widened for the second-order terms of the bound.
const U: f64 = f64::EPSILON / 2.0 * (1.0 + 1e-6);

/// The absolute error of a product that underflows.
const TINY: f64 = 1e-300;

/// The float copy of a template's numbers, and the constants of its bound.
pub(super) struct Fast {
    prob: Vec<f64>,
    reward: Vec<f64>,
    target: Vec<u32>,
    /// Per node: whether it is a decision of plain moves only.
    plain: Vec<bool>,
    /// Per node: its payoff, if terminal.
    payoff: Vec<f64>,
    /// The kept state's bound is `a·e + b·u·m + d`.
    a: f64,
    b: f64,
    d: f64,
    /// The largest reward of the template, in size.
    max_reward: f64,
    /// The largest sum of one node's (or random move's) probabilities.
    max_weight: f64,
}

/// A node of a template as [`Fast::of`] reads it.
pub(super) struct Part<'a, N> {
    pub kind: Option<Kind>,
    pub payoff: &'a N,
    pub edges: &'a [Edge<N>],
    /// Whether it has plain moves out of the turn (only decisions may).
    pub exits: bool,
}

/// The bound of one node, `a·e + b·u·m + d`.
#[derive(Clone, Copy, Default)]
struct Bound {
    a: f64,
    b: f64,
    d: f64,
}

impl Bound {
    fn max(self, o: Bound) -> Bound {
        Bound {
            a: self.a.max(o.a),
            b: self.b.max(o.b),
            d: self.d.max(o.d),
        }
    }
}

impl Fast {
    /// The float copy of a template whose nodes (children first) are `parts`.
    pub(super) fn of<N: Number>(parts: &[Part<'_, N>]) -> Fast {
        let mut prob = Vec::new();
        let mut reward = Vec::new();
        let mut target = Vec::new();
        let mut plain = Vec::with_capacity(parts.len());
        let mut payoff = Vec::with_capacity(parts.len());
        let mut bounds: Vec<Bound> = Vec::with_capacity(parts.len());
        let mut max_reward: f64 = 0.0;
        let mut max_weight: f64 = 1.0;
        for part in parts {
            payoff.push(part.payoff.to_f64());
            plain.push(
                matches!(part.kind, Some(Kind::Decision(_))) && part.edges.iter().all(|e| e.first),
            );
            let Some(kind) = part.kind else {
                bounds.push(Bound {
                    d: part.payoff.radius(),
                    ..Bound::default()
                });
                continue;
            };
            for e in part.edges {
                target.push(e.target);
                prob.push(e.prob.to_f64());
                reward.push(e.reward.to_f64());
                max_reward = max_reward.max(e.reward.to_f64().abs());
            }
            // What an edge reads: its target's bound, with its reward's rounding.
            let read = |e: &Edge<N>| {
                let t = bounds[e.target as usize];
                Bound {
                    d: t.d + e.reward.radius(),
                    ..t
                }
            };
            // A sum over outcomes (a chance node, or a random move).
            let mut sum = |outcomes: &[Edge<N>]| {
                let weight: f64 = outcomes
                    .iter()
                    .map(|e| e.prob.to_f64() + e.prob.radius())
                    .sum::<f64>()
                    * (1.0 + outcomes.len() as f64 * U);
                max_weight = max_weight.max(weight);
                let k = outcomes.len() as f64;
                let rounded: f64 = outcomes.iter().map(|e| e.prob.radius()).sum();
                // Outcome `i` is in the partial sums from its own on: `k - i` of them, each
                // rounded by at most `u` of its size.
                let partial: f64 = outcomes
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.prob.to_f64() + e.prob.radius()) * (k - i as f64))
                    .sum();
                let inner = outcomes.iter().map(read).fold(Bound::default(), Bound::max);
                Bound {
                    a: weight * inner.a,
                    b: weight * inner.b
                        + (partial + 2.0 * weight) * (1.0 + 4.0 * k * U)
                        + rounded / U,
                    d: weight * inner.d + k * TINY,
                }
            };
            let mut bound = match kind {
                Kind::Chance => sum(part.edges),
                Kind::Decision(_) => {
                    let mut best = Bound::default();
                    for m in crate::backup::move_ranges(part.edges) {
                        let moves = &part.edges[m];
                        // A move of one edge is plain (see `back_up_by`).
                        best = best.max(if moves.len() == 1 {
                            let t = read(&moves[0]);
                            Bound { b: t.b + 1.0, ..t }
                        } else {
                            sum(moves)
                        });
                    }
                    best
                }
            };
            if part.exits {
                // A plain move out of the turn reads `e` and rounds once.
                bound = bound.max(Bound {
                    a: 1.0,
                    b: 1.0,
                    d: 0.0,
                });
            }
            bounds.push(bound);
        }
        let root = bounds.last().copied().unwrap_or_default();
        Fast {
            prob,
            reward,
            target,
            plain,
            payoff,
            a: root.a,
            b: root.b,
            d: root.d,
            max_reward,
            max_weight,
        }
    }

    /// The payoff of terminal node `i`.
    pub(super) fn payoff(&self, i: usize) -> f64 {
        self.payoff[i]
    }

    /// The bound on the error of the kept state's value, for a turn whose values are at most
    /// `largest` in size, whose moves out of the turn (reward plus value) are at most
    /// `exit_move`, and whose reads from outside are off by at most `e`.
    pub(super) fn bound(&self, largest: f64, exit_move: f64, e: f64) -> f64 {
        // Every `q` within the turn is a value plus a template's reward, every `q` out of it
        // at most `exit_move`; every partial sum is at most the node's weight times the
        // largest `q`.
        let q = exit_move.max(largest + self.max_reward);
        let m = q * self.max_weight * (1.0 + 4.0 * U);
        (self.a * e + self.b * U * m + self.d) * (1.0 + 1e-9)
    }

    /// The value of node `node` from its edges `edges` (numbered from `from` in the
    /// template's), as [`crate::backup::back_up`] computes its value, in floats.
    #[inline]
    pub(super) fn back_up<N>(
        &self,
        node: usize,
        kind: Kind,
        edges: &[Edge<N>],
        from: usize,
        values: &[f64],
    ) -> f64 {
        let prob = &self.prob[from..from + edges.len()];
        let reward = &self.reward[from..from + edges.len()];
        let target = &self.target[from..from + edges.len()];
        let q = |i: usize| reward[i] + values[target[i] as usize];
        if let (true, Kind::Decision(player)) = (self.plain[node], kind) {
            // The first of equals stays: a strict comparison, which compiles to a branchless
            // maximum.
            let mut best = q(0);
            if player == Player::Max {
                for i in 1..edges.len() {
                    let v = q(i);
                    best = if v > best { v } else { best };
                }
            } else {
                for i in 1..edges.len() {
                    let v = q(i);
                    best = if v < best { v } else { best };
                }
            }
            return best;
        }
        match kind {
            Kind::Chance => {
                let mut v = 0.0;
                for i in 0..edges.len() {
                    v += prob[i] * q(i);
                }
                v
            }
            Kind::Decision(player) => {
                // Each move's value, and where the next move starts.
                let value = |i: usize| {
                    let mut j = i + 1;
                    if j < edges.len() && !edges[j].first {
                        let mut sum = 0.0;
                        sum += prob[i] * q(i);
                        while j < edges.len() && !edges[j].first {
                            sum += prob[j] * q(j);
                            j += 1;
                        }
                        return (sum, j);
                    }
                    (q(i), j)
                };
                let (mut best, mut i) = value(0);
                while i < edges.len() {
                    let (v, j) = value(i);
                    if player.prefers(&v, &best) {
                        best = v;
                    }
                    i = j;
                }
                best
            }
        }
    }
}

/// [`crate::backup::consider`] for floats: the first of equals stays.
#[inline(always)]
pub(super) fn consider(player: Player, best: &mut Option<f64>, v: f64) {
    if best.is_none_or(|b| player.prefers(&v, &b)) {
        *best = Some(v);
    }
}

impl<N: Number> Template<N> {
    /// [`Template::solve`] in plain floats with one bound for the turn (see the module doc):
    /// `None` where it cannot be (a decision did not give its moves out of the turn alone, or
    /// the numbers overflow), and the turn is solved with bounded numbers instead.
    pub(super) fn solve_fast<M: Model>(
        &self,
        fast: &Fast,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        value_of: &impl Fn(&M::State) -> Result<Option<N>, SolveError>,
    ) -> Result<Option<Option<N>>, SolveError> {
        let n = self.nodes.len();
        let mut values = std::mem::take(&mut scratch.floats);
        values.clear();
        values.resize(n, 0.0);
        let mut classes = std::mem::take(&mut scratch.class_floats);
        classes.clear();
        classes.resize(self.classes, None);
        let result = self.fill_fast(fast, model, k, scratch, value_of, &mut values, &mut classes);
        scratch.floats = values;
        scratch.class_floats = classes;
        result
    }

    /// The work of [`Template::solve_fast`], into `values` (and the best move out of the turn
    /// of each class of sites met, into `classes`).
    #[allow(clippy::too_many_arguments)]
    fn fill_fast<M: Model>(
        &self,
        fast: &Fast,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        value_of: &impl Fn(&M::State) -> Result<Option<N>, SolveError>,
        values: &mut [f64],
        classes: &mut [Option<f64>],
    ) -> Result<Option<Option<N>>, SolveError> {
        // The largest value in size, the largest move out of the turn, the largest error read.
        let (mut largest, mut exit_move, mut read) = (0.0f64, 0.0f64, 0.0f64);
        for (i, slot) in self.nodes.iter().enumerate() {
            let Some(kind) = slot.kind else {
                values[i] = fast.payoff(i);
                largest = largest.max(values[i].abs());
                continue;
            };
            let own = &self.edges[slot.from as usize..slot.to as usize];
            let from = slot.from as usize;
            if !slot.site {
                values[i] = fast.back_up(i, kind, own, from, values);
                largest = largest.max(values[i].abs());
                continue;
            }
            if let (Kind::Decision(player), Some(&Some(out))) =
                (kind, classes.get(slot.class as usize))
            {
                let mut best = (!own.is_empty()).then(|| fast.back_up(i, kind, own, from, values));
                consider(player, &mut best, out);
                values[i] = best.expect("a valid decision has a move");
                largest = largest.max(values[i].abs());
                continue;
            }
            let (state, exits_only) = self.expand_site(model, k, slot, scratch, false)?;
            if !exits_only {
                if slot.exits {
                    return Ok(None);
                }
                self.check_within(model, k, slot, &state, &scratch.node)?;
                values[i] = fast.back_up(i, kind, own, from, values);
                largest = largest.max(values[i].abs());
                continue;
            }
            let Kind::Decision(player) = kind else {
                unreachable!("split sites are decisions")
            };
            let mut out = None;
            for b in scratch.node.branches() {
                let Some(value) = value_of(&b.next)? else {
                    return Ok(Some(None));
                };
                let reward = N::from_rat(b.reward);
                let (r, v) = (reward.to_f64(), value.to_f64());
                read = read.max(value.radius() + reward.radius());
                exit_move = exit_move.max((r + v).abs());
                largest = largest.max(v.abs());
                consider(player, &mut out, r + v);
            }
            let out = out.expect("a valid decision has a move");
            if let Some(c) = classes.get_mut(slot.class as usize) {
                *c = Some(out);
            }
            let mut best = (!own.is_empty()).then(|| fast.back_up(i, kind, own, from, values));
            consider(player, &mut best, out);
            values[i] = best.expect("a valid decision has a move");
            largest = largest.max(values[i].abs());
        }
        let bound = fast.bound(largest, exit_move, read);
        let value = values[values.len() - 1];
        if !bound.is_finite() || !value.is_finite() {
            return Ok(None);
        }
        Ok(N::from_f64(value).map(|v| Some(v.widened(bound))))
    }
}
