//! Value iteration with a certified error bound, for components too dense to eliminate in
//! floats (see [`Component::solve`]), started from a Krylov solve where the component has no
//! choices (see [`krylov`](super::krylov)).

use super::{Component, Solved};
use crate::backup::Kind;
use crate::Number;

/// The most sweeps certified value iteration makes before it settles for the bound it has.
const MAX_SWEEPS: usize = 100_000;

/// The most sweeps from a chain's solution by Krylov iteration: they smooth what rounding
/// left in it, and a guess that needs more would need very many.
const GUESSED_SWEEPS: usize = 16;

/// The unit roundoff of `f64`.
const UNIT: f64 = f64::EPSILON / 2.0;

/// The error bound certified value iteration aims at, relative to the largest value (at least
/// one).
const TARGET: f64 = 1e-12;

impl<N: Number> Component<N> {
    /// Value iteration with a certified error bound, in `f64`, for a component that every pair
    /// of strategies leaves (so the Bellman operator `B` has one fixed point, the value):
    /// 1. A vector `w ≥ 1 + max P w`, checked after computing it (the most node steps to leave
    ///    the component, from Gauss–Seidel iteration, enlarged by a hundredth; for a chain,
    ///    from the Krylov solve of [`Component::chain_guess`]).
    /// 2. Gauss–Seidel value iteration gives `v` (for a chain, a few sweeps from the Krylov
    ///    solve's values; otherwise from zero, until the bound reaches its target or the
    ///    sweeps change nothing beyond rounding), and `δ` is its Bellman residual
    ///    `max |B v − v|`. Then `B(v + δw) ≤ B v + δ(w − 1) ≤ v + δw` and likewise from below,
    ///    so `v − δw ≤ value ≤ v + δw` by monotonicity: the bound is `δ · max w`.
    /// 3. That holds for the float edges in exact arithmetic; the rounding of the residual and
    ///    the edges' own radii (a constant's error, a probability's conversion) add at most
    ///    their size per step, so `δ` grows by that before it is multiplied. Each value carries
    ///    the bound as its radius ([`Number::widened`]).
    ///
    /// A component where one player has choices is first solved by policy iteration over
    /// Krylov evaluations ([`Component::improved`]), whose certificate uses the found policy's
    /// steps rather than the most of any strategy; where its bound is not tight, value
    /// iteration runs too, and the tighter of the two answers is kept.
    ///
    /// `None` when `w` cannot be certified (or a number overflows); the caller solves directly.
    pub(super) fn iterate(&self) -> Option<Solved<N>> {
        let edges = self.float_edges();
        let mut loose = None;
        if !self.is_chain() {
            match self.improved(&edges) {
                Some((solved, true)) => return Some(solved),
                Some((solved, false)) => loose = Some(solved),
                None => {}
            }
        }
        match (self.iterate_values(&edges), loose) {
            (Some(a), Some(b)) => Some(if a.bound <= b.bound { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// [`Component::iterate`]'s value iteration, over the component's float edges `edges`.
    fn iterate_values(&self, edges: &[(usize, f64, f64)]) -> Option<Solved<N>> {
        let n = self.n();
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        // A chain starts from its linear system's solution by Krylov iteration, with the
        // expected steps of the same solve as `w`: a long walk takes value iteration about as
        // many sweeps as its steps, and the solve a few hundred products with the matrix.
        let guess = match self.is_chain() {
            true => self.chain_guess(edges).and_then(|(v, mut w)| {
                w.push(0.0);
                Some((v, self.checked_steps(edges, &w)?))
            }),
            false => None,
        };
        let (mut v, w_max, sweeps) = match guess {
            Some((mut v, w_max)) => {
                v.push(0.0);
                (v, w_max, GUESSED_SWEEPS)
            }
            None => (
                vec![0.0f64; n + 1],
                self.step_bound(edges, MAX_SWEEPS)?,
                MAX_SWEEPS,
            ),
        };
        // The rounding of one backup, relative to the values' size: a change below a few
        // times it is all the sweeps can still bring.
        let k_max = (0..n).map(|x| out(x).len()).max().unwrap_or(0) as f64;
        let konst_max = edges.iter().fold(0.0f64, |m, e| m.max(e.2.abs()));
        let rounding = |scale: f64| 2.0 * (k_max + 4.0) * UNIT * (konst_max + scale);
        // One backup of `x` against `v`: its value and, for a decision, the first best move.
        let backup = |v: &[f64], x: usize| -> (f64, u32) {
            let q = |&(to, _, konst): &(usize, f64, f64)| konst + v[to];
            match self.kind[x] {
                Kind::Chance => (out(x).iter().map(|e| e.1 * q(e)).sum(), u32::MAX),
                Kind::Decision(player) => {
                    let mut best = (q(&out(x)[0]), 0u32);
                    for (i, e) in out(x).iter().enumerate().skip(1) {
                        let value = q(e);
                        if player.prefers(&value, &best.0) {
                            best = (value, i as u32);
                        }
                    }
                    best
                }
            }
        };
        let residual = |v: &[f64]| -> f64 {
            (0..n)
                .map(|x| (backup(v, x).0 - v[x]).abs())
                .fold(0.0, f64::max)
        };
        let mut bound = f64::INFINITY;
        for sweep in 0..sweeps {
            let mut change = 0.0f64;
            let mut scale = 1.0f64;
            for x in (0..n).rev() {
                let (new, _) = backup(&v, x);
                change = change.max((new - v[x]).abs());
                scale = scale.max(new.abs());
                v[x] = new;
            }
            if !change.is_finite() {
                return None;
            }
            // The residual costs a sweep: look only when the change says it may be enough.
            let floor = change <= 4.0 * rounding(scale);
            if change * w_max <= TARGET * scale || floor || sweep + 1 == sweeps {
                bound = residual(&v) * w_max;
                if bound <= TARGET * scale || floor {
                    break;
                }
            }
        }
        // The bound above holds for the float edges and exact arithmetic. The float residual
        // is off by the rounding of each backup, and the model's own numbers by their radii
        // ([`Number::radius`]: a constant's error, a probability's conversion): each step
        // costs at most that much more, and there are at most `w_max` steps on average.
        let v_max = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let mut per_step = 0.0f64;
        for x in 0..n {
            let edges = self.out(x);
            let k = edges.len() as f64;
            let mut doubt = 0.0;
            let mut probs = 0.0;
            for e in edges {
                let size = e.konst.to_f64().abs() + v_max;
                doubt = f64::max(doubt, e.konst.radius() + 2.0 * (k + 4.0) * UNIT * size);
                probs += e.prob.radius() * size;
            }
            per_step = per_step.max(doubt + probs);
        }
        let bound = (bound + per_step * w_max) * (1.0 + 8.0 * UNIT);
        if !bound.is_finite() {
            return None;
        }
        let policy = (0..n).map(|x| backup(&v, x).1).collect();
        self.finished(&v, policy, bound)
    }

    /// The solved component from certified values `v` (a last entry for the way out), each
    /// within `bound`, and the moves `policy` takes.
    pub(super) fn finished(&self, v: &[f64], policy: Vec<u32>, bound: f64) -> Option<Solved<N>> {
        let values = v[..self.n()]
            .iter()
            .map(|&x| N::from_f64(x).map(|x| x.widened(bound)))
            .collect::<Option<Vec<N>>>()?;
        Some(Solved {
            values,
            policy,
            bound,
            ties: 0.0,
            ties_at: Vec::new(),
            iterated: true,
        })
    }

    /// A bound on the expected number of node steps to leave the component from anywhere,
    /// whatever the players do: `max w` for a vector `w ≥ 1 + max P w`, checked after
    /// computing it (Gauss–Seidel iteration from zero, at most `sweeps` sweeps, enlarged by a
    /// hundredth). `None` when no such vector was found (some strategies never leave, or the
    /// sweeps did not suffice). `edges` are [`Component::float_edges`].
    pub(super) fn step_bound(&self, edges: &[(usize, f64, f64)], sweeps: usize) -> Option<f64> {
        let n = self.n();
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        // `T w = 1 + max P w`, over every move of every decision.
        let steps = |w: &[f64], x: usize| -> f64 {
            1.0 + match self.kind[x] {
                Kind::Chance => out(x).iter().map(|&(to, p, _)| p * w[to]).sum(),
                Kind::Decision(_) => out(x).iter().map(|&(to, _, _)| w[to]).fold(0.0, f64::max),
            }
        };
        let mut w = vec![0.0f64; n + 1];
        for sweep in 0..sweeps {
            let mut change = 0.0f64;
            for x in (0..n).rev() {
                let new = steps(&w, x);
                change = change.max(new - w[x]);
                w[x] = new;
            }
            let top = w.iter().copied().fold(0.0, f64::max);
            if !top.is_finite() {
                return None;
            }
            if change <= 1e-4 * top || sweep % 64 == 63 || sweep + 1 == sweeps {
                if let Some(top) = self.checked_steps(edges, &w) {
                    return Some(top);
                }
            }
        }
        None
    }

    /// `max w'` for `w' = 1.01 w`, where `w' ≥ 1 + max P w'` holds at every node (so that it
    /// bounds the expected node steps to leave the component, whatever the players do); `w`
    /// has a last entry for the way out, zero. `edges` are [`Component::float_edges`].
    pub(super) fn checked_steps(&self, edges: &[(usize, f64, f64)], w: &[f64]) -> Option<f64> {
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        let enlarged: Vec<f64> = w.iter().map(|&x| x * 1.01).collect();
        // The check's own rounding is far below the hundredth it has to spare.
        let holds = (0..self.n()).all(|x| {
            let next = 1.0
                + match self.kind[x] {
                    Kind::Chance => out(x).iter().map(|&(to, p, _)| p * enlarged[to]).sum(),
                    Kind::Decision(_) => out(x)
                        .iter()
                        .map(|&(to, _, _)| enlarged[to])
                        .fold(0.0, f64::max),
                };
            next <= enlarged[x]
        });
        let top = enlarged.iter().copied().fold(0.0, f64::max);
        (holds && top.is_finite()).then_some(top)
    }
}
