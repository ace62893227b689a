//! A component without choices (a Markov chain's, or one whose every decision has a single
//! move) solved as the linear system it is, `(I - P) v = c`, by BiCGSTAB preconditioned with
//! the incomplete LU factors of `I - P` that keep its pattern (ILU(0)), in plain `f64`.
//!
//! This is for the chains that elimination finds too costly (see [`Component::solve`]): a long
//! random walk over a grid fills in as it is eliminated, and value iteration converges at the
//! pace of its walks, one sweep a step, where a Krylov method needs about the square root of
//! that many products with the matrix. Nothing here is trusted: the solution and the expected
//! steps to leave (the same system with `c = 1`) are only guesses, which
//! [`Component::iterate`] checks and bounds as it checks its own.

use super::Component;
use crate::backup::Kind;
use crate::Number;

/// The relative residual at which BiCGSTAB stops (`f64` rounding stops it not far below).
pub(super) const TOLERANCE: f64 = 1e-14;

/// BiCGSTAB's iterations at most, each two products with the matrix and two solves with the
/// factors.
const MAX_ITERATIONS: usize = 20_000;

/// How many iterations without halving the least residual end the solve (rounding has
/// stopped it).
const STALLED: usize = 200;

/// `I - P` over a component's nodes, by rows, with its incomplete LU factors in place.
struct Matrix {
    /// Row `x` is `cols[row[x]..row[x + 1]]`, columns ascending.
    row: Vec<usize>,
    cols: Vec<u32>,
    /// `I - P`'s entries.
    a: Vec<f64>,
    /// The factors: `L` (unit lower, below the diagonal) and `U` (the rest) in one array.
    lu: Vec<f64>,
    /// The position of each row's diagonal entry.
    diag: Vec<usize>,
}

impl Matrix {
    /// `I - P` for the float edges `edges` of a component of `n` nodes whose edges of node `x`
    /// start at `start[x]` (a way out leads to `n` and is left out), and its factors; `None`
    /// where a pivot of the factorisation is not positive.
    fn new(n: usize, start: &[u32], edges: &[(usize, f64, f64)]) -> Option<Self> {
        let mut row = Vec::with_capacity(n + 1);
        let mut cols = Vec::with_capacity(edges.len() + n);
        let mut a = Vec::with_capacity(edges.len() + n);
        let mut diag = Vec::with_capacity(n);
        let mut entries: Vec<(u32, f64)> = Vec::new();
        row.push(0);
        for x in 0..n {
            entries.clear();
            entries.push((x as u32, 1.0));
            for &(to, p, _) in &edges[start[x] as usize..start[x + 1] as usize] {
                if to < n {
                    entries.push((to as u32, -p));
                }
            }
            entries.sort_unstable_by_key(|e| e.0);
            for &(c, v) in entries.iter() {
                if cols.len() > row[x] && *cols.last()? == c {
                    *a.last_mut()? += v;
                } else {
                    if c as usize == x {
                        diag.push(cols.len());
                    }
                    cols.push(c);
                    a.push(v);
                }
            }
            row.push(cols.len());
        }
        let lu = a.clone();
        let mut m = Matrix {
            row,
            cols,
            a,
            lu,
            diag,
        };
        m.factor().then_some(m)
    }

    /// ILU(0): Gaussian elimination that keeps only the entries of the pattern. For the
    /// M-matrix `I - P` of a component every play leaves, its pivots are positive; returns
    /// whether they were.
    fn factor(&mut self) -> bool {
        let n = self.diag.len();
        let mut at = vec![usize::MAX; n];
        for i in 0..n {
            let (from, to) = (self.row[i], self.row[i + 1]);
            for k in from..to {
                at[self.cols[k] as usize] = k;
            }
            for k in from..self.diag[i] {
                let j = self.cols[k] as usize;
                let pivot = self.lu[self.diag[j]];
                let l = self.lu[k] / pivot;
                self.lu[k] = l;
                for m in self.diag[j] + 1..self.row[j + 1] {
                    let c = self.cols[m] as usize;
                    if at[c] != usize::MAX {
                        self.lu[at[c]] -= l * self.lu[m];
                    }
                }
            }
            for k in from..to {
                at[self.cols[k] as usize] = usize::MAX;
            }
            let pivot = self.lu[self.diag[i]];
            if !(pivot > 0.0 && pivot.is_finite()) {
                return false;
            }
        }
        true
    }

    /// `out = A x`.
    fn mul(&self, x: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            let r = self.row[i]..self.row[i + 1];
            *o = self.cols[r.clone()]
                .iter()
                .zip(&self.a[r])
                .map(|(&c, &v)| v * x[c as usize])
                .sum();
        }
    }

    /// `x = (LU)⁻¹ x`, in place.
    fn precondition(&self, x: &mut [f64]) {
        let n = x.len();
        for i in 0..n {
            let mut s = x[i];
            for k in self.row[i]..self.diag[i] {
                s -= self.lu[k] * x[self.cols[k] as usize];
            }
            x[i] = s;
        }
        for i in (0..n).rev() {
            let mut s = x[i];
            for k in self.diag[i] + 1..self.row[i + 1] {
                s -= self.lu[k] * x[self.cols[k] as usize];
            }
            x[i] = s / self.lu[self.diag[i]];
        }
    }

    /// A solution of `A x = b` by preconditioned BiCGSTAB started from `from` (else from
    /// zero), stopped once the residual is `tolerance` of `b`'s: the iterate of least
    /// residual, and that residual's largest entry. `None` where the numbers overflow.
    fn solve(&self, b: &[f64], from: Option<&[f64]>, tolerance: f64) -> Option<(Vec<f64>, f64)> {
        let n = b.len();
        let norm = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        let goal = tolerance * norm(b);
        // Where rounding stops the residual: a few units of `b` and of `A x` (`A`'s rows sum
        // to at most 2 in size).
        let floor = |x: &[f64]| 16.0 * f64::EPSILON * (norm(b) + 2.0 * norm(x));
        let mut x = vec![0.0; n];
        let mut r = b.to_vec();
        if let Some(from) = from {
            x.copy_from_slice(&from[..n]);
            let mut ax = vec![0.0; n];
            self.mul(&x, &mut ax);
            for i in 0..n {
                r[i] = b[i] - ax[i];
            }
        }
        let mut best = (x.clone(), norm(&r));
        let (mut r0, mut p, mut v) = (r.clone(), vec![0.0; n], vec![0.0; n]);
        let (mut y, mut z, mut s, mut t) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (mut rho, mut alpha, mut omega) = (1.0f64, 1.0f64, 1.0f64);
        // The residual when it last halved, and the iterations since.
        let (mut mark, mut since_mark) = (best.1, 0);
        for _ in 0..MAX_ITERATIONS {
            if best.1 <= goal.max(floor(&best.0)) || since_mark >= STALLED {
                break;
            }
            let rho_next = dot(&r0, &r);
            if rho_next == 0.0 || omega == 0.0 || !rho_next.is_finite() {
                // A breakdown: start again from the true residual of the best iterate.
                x.copy_from_slice(&best.0);
                self.mul(&x, &mut t);
                for i in 0..n {
                    r[i] = b[i] - t[i];
                }
                r0.copy_from_slice(&r);
                p.fill(0.0);
                v.fill(0.0);
                (rho, alpha, omega) = (1.0, 1.0, 1.0);
                since_mark += STALLED / 4;
                continue;
            }
            let beta = (rho_next / rho) * (alpha / omega);
            rho = rho_next;
            for i in 0..n {
                p[i] = r[i] + beta * (p[i] - omega * v[i]);
            }
            y.copy_from_slice(&p);
            self.precondition(&mut y);
            self.mul(&y, &mut v);
            alpha = rho / dot(&r0, &v);
            for i in 0..n {
                s[i] = r[i] - alpha * v[i];
            }
            z.copy_from_slice(&s);
            self.precondition(&mut z);
            self.mul(&z, &mut t);
            let tt = dot(&t, &t);
            omega = if tt > 0.0 { dot(&t, &s) / tt } else { 0.0 };
            for i in 0..n {
                x[i] += alpha * y[i] + omega * z[i];
                r[i] = s[i] - omega * t[i];
            }
            let now = norm(&r);
            if !now.is_finite() {
                return None;
            }
            since_mark += 1;
            if now < best.1 {
                // The recurrence drifts from the true residual: confirm it.
                self.mul(&x, &mut t);
                let true_residual = (0..n).fold(0.0f64, |m, i| m.max((b[i] - t[i]).abs()));
                if true_residual < best.1 {
                    best = (x.clone(), true_residual);
                    if true_residual <= 0.5 * mark {
                        (mark, since_mark) = (true_residual, 0);
                    }
                }
            }
        }
        Some(best)
    }
}

impl<N: Number> Component<N> {
    /// Whether no node of the component has a choice.
    pub(super) fn is_chain(&self) -> bool {
        (0..self.n()).all(|x| match self.kind[x] {
            Kind::Chance => true,
            Kind::Decision(_) => self.start[x + 1] - self.start[x] == 1,
        })
    }

    /// For a component without choices ([`Component::is_chain`]) that every play leaves, with
    /// its float edges `edges`: the values, and the expected node steps to leave from each
    /// node, each the solution of `(I - P) x = b` by Krylov iteration, unchecked. `None`
    /// where the factorisation or the iteration fails.
    pub(super) fn chain_guess(&self, edges: &[(usize, f64, f64)]) -> Option<(Vec<f64>, Vec<f64>)> {
        chain_values(&self.start, edges)
    }
}

/// The values and the expected node steps to leave of the chain whose node `x` has the float
/// edges `edges[start[x]..start[x + 1]]` (`(to, p, reward)`, a way out leading to node
/// `start.len() - 1`), each the solution of `(I - P) x = b` by Krylov iteration, unchecked.
/// `None` where the factorisation or the iteration fails.
pub(super) fn chain_values(
    start: &[u32],
    edges: &[(usize, f64, f64)],
) -> Option<(Vec<f64>, Vec<f64>)> {
    let chain = Chain::new(start, edges)?;
    Some((chain.values(None, TOLERANCE)?, chain.steps()?))
}

/// A chain's system `(I - P) x = b`, factored, for its values and its expected steps to leave
/// (see [`chain_values`]).
pub(super) struct Chain {
    m: Matrix,
    /// Each node's expected reward of a step.
    c: Vec<f64>,
}

impl Chain {
    /// The chain whose node `x` has the float edges `edges[start[x]..start[x + 1]]`, as in
    /// [`chain_values`]; `None` where its factorisation fails.
    pub(super) fn new(start: &[u32], edges: &[(usize, f64, f64)]) -> Option<Self> {
        let n = start.len() - 1;
        let c = (0..n)
            .map(|x| {
                edges[start[x] as usize..start[x + 1] as usize]
                    .iter()
                    .map(|&(_, p, konst)| p * konst)
                    .sum()
            })
            .collect();
        Some(Chain {
            m: Matrix::new(n, start, edges)?,
            c,
        })
    }

    /// The values, by an iteration started from `from` where given (a near solution, such as
    /// the values of a policy a few moves away), else from zero, that stops once its residual
    /// is `tolerance` of the rewards' (or where rounding stops it first).
    pub(super) fn values(&self, from: Option<&[f64]>, tolerance: f64) -> Option<Vec<f64>> {
        Some(self.m.solve(&self.c, from, tolerance)?.0)
    }

    /// The expected node steps to leave.
    pub(super) fn steps(&self) -> Option<Vec<f64>> {
        self.solve(&vec![1.0; self.c.len()])
    }

    /// The solution of `(I - P) x = b` (as tight as rounding lets it be).
    pub(super) fn solve(&self, b: &[f64]) -> Option<Vec<f64>> {
        Some(self.m.solve(b, None, TOLERANCE)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Component, LocalEdge, EXIT};
    use crate::backup::Kind;
    use crate::linear::System;
    use crate::{Bounded, Exact, Number, Player, Rat};
    use proptest::prelude::*;

    /// A node's outcomes: `(to, or None for the way out, probability, reward)`.
    type Outcomes = Vec<(Option<u32>, Rat, Rat)>;

    /// A component from each node's `(to, or None for the way out, p, reward)`, with the nodes
    /// `single` marks made decisions (their moves of probability one).
    fn chain<N: Number>(nodes: &[Outcomes], single: &[bool]) -> Component<N> {
        let mut c = Component {
            kind: Vec::new(),
            start: Vec::new(),
            edges: Vec::new(),
            forced: Vec::new(),
        };
        for (x, out) in nodes.iter().enumerate() {
            c.start.push(c.edges.len() as u32);
            let decision = single.get(x).copied().unwrap_or(false);
            c.kind.push(match decision {
                true => Kind::Decision(Player::Min),
                false => Kind::Chance,
            });
            for &(to, p, r) in out {
                c.edges.push(LocalEdge {
                    to: to.unwrap_or(EXIT),
                    prob: N::from_rat(if decision { Rat::new(1, 1) } else { p }),
                    konst: N::from_rat(r),
                });
            }
        }
        c.start.push(c.edges.len() as u32);
        c
    }

    /// A fair walk round a ring of `m` places, one step earning 1, that ends at place 0: node
    /// `i` is place `i + 1`. The expected steps from place `d` are `d (m - d)`.
    fn ring(m: u32) -> Vec<Outcomes> {
        let half = Rat::new(1, 2);
        let one = Rat::new(1, 1);
        let node = |place: u32| (place % m != 0).then(|| place % m - 1);
        (1..m)
            .map(|place| {
                vec![
                    (node(place + 1), half, one),
                    (node(place + m - 1), half, one),
                ]
            })
            .collect()
    }

    /// A walk of some 250,000 expected steps: value iteration's sweeps (a step each) fall far
    /// short of it, and the Krylov guess, checked, gives every value within a small bound.
    #[test]
    fn a_long_walk_round_a_ring_is_solved_within_a_tight_bound() {
        let m = 1000u32;
        let c = chain::<Bounded>(&ring(m), &[]);
        assert!(c.is_chain());
        let solved = c.iterate().expect("the walk ends");
        assert!(solved.iterated);
        let top = (m / 2 * (m - m / 2)) as f64;
        assert!(
            solved.bound > 0.0 && solved.bound <= 1e-9 * top,
            "{:e}",
            solved.bound
        );
        for (i, v) in solved.values.iter().enumerate() {
            let d = i as f64 + 1.0;
            let exact = d * (m as f64 - d);
            assert!(
                (v.value - exact).abs() <= Bounded::bound(v.radius),
                "place {d}: {} against {exact}, radius {:e}",
                v.value,
                v.radius
            );
        }
    }

    /// A decision of two moves makes it no chain.
    #[test]
    fn a_choice_makes_it_no_chain() {
        let one = Rat::new(1, 1);
        let nodes = vec![
            vec![(Some(1), one, one), (None, one, one)],
            vec![(Some(0), one, one)],
        ];
        let c = chain::<Bounded>(&nodes, &[true, true]);
        assert!(!c.is_chain());
        let c = chain::<Bounded>(&nodes[1..], &[true]);
        assert!(c.is_chain());
    }

    /// A random chain every play leaves: each node has one to five outcomes of random weights
    /// and rewards of both signs: back one node or to itself, and to the next node (the way
    /// out after the last) at least half the time, so that every play leaves in some `n²`
    /// steps; some nodes are decisions of one move.
    fn random_chain() -> impl Strategy<Value = (Vec<Outcomes>, Vec<bool>)> {
        (2usize..40).prop_flat_map(|n| {
            let node = prop::collection::vec((0..=1u32, 1i64..8, -5i64..10), 0..4);
            (
                prop::collection::vec(node, n),
                prop::collection::vec(any::<bool>(), n),
            )
                .prop_map(move |(raw, single)| {
                    let nodes: Vec<Outcomes> = raw
                        .into_iter()
                        .enumerate()
                        .map(|(x, back)| {
                            let back_weight: i64 = back.iter().map(|o| o.1).sum();
                            let weight = back_weight.max(1);
                            let total = back_weight + weight;
                            let next = ((x + 1) < n).then_some((x + 1) as u32);
                            back.into_iter()
                                .map(|(step, w, r)| {
                                    let to = (x as u32).saturating_sub(step);
                                    (Some(to), Rat::new(w, total), Rat::new(r, 3))
                                })
                                .chain([(next, Rat::new(weight, total), Rat::new(1, 2))])
                                .collect()
                        })
                        .collect();
                    let single = single
                        .iter()
                        .zip(&nodes)
                        .map(|(&s, out)| s && out.len() == 1)
                        .collect();
                    (nodes, single)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The Krylov start, checked, against the exact solve: every value within its bound.
        #[test]
        fn random_chains_agree_with_the_exact_solve((nodes, single) in random_chain()) {
            let float = chain::<Bounded>(&nodes, &single);
            prop_assume!(float.trap(None).is_none());
            let solved = float.iterate().expect("a chain every play leaves");
            let exact = chain::<Exact>(&nodes, &single)
                .solve(&mut System::new(0), None)
                .expect("a chain every play leaves");
            let mut top = 1.0f64;
            for (f, e) in solved.values.iter().zip(&exact.values) {
                top = top.max(e.to_f64().abs());
                let error = Exact::of_float(f.value).unwrap().sub(e).abs();
                let bound = Exact::of_float(Bounded::bound(f.radius)).unwrap();
                prop_assert!(error <= bound, "{} vs {}: radius {:e}", f.value, e.to_f64(), f.radius);
            }
            prop_assert!(solved.bound <= 1e-9 * top, "{:e} at values up to {top}", solved.bound);
        }
    }
}
