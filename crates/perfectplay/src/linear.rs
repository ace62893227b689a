//! Direct solution of the linear system `v = c + A v` of a policy inside one component, by
//! sparse Gaussian elimination ("state elimination").
//!
//! # Algorithm
//! Each unknown `x` has the equation `v_x = c_x + Σ_y a_xy v_y`. Eliminating `x` first removes
//! its self-loop (`v_x = (c_x + Σ_{y≠x} a_xy v_y) / (1 - a_xx)`), then substitutes the equation
//! into every predecessor `p`: `c_p += a_px c_x`, `a_py += a_px a_xy`. The cost of eliminating
//! `x` is `indeg(x) · outdeg(x)`, so unknowns are taken greedily by smallest current product (a
//! Markowitz-style ordering kept in a lazy heap). After all eliminations, back substitution in
//! reverse order yields every value: when `x` was eliminated its equation mentioned only
//! unknowns eliminated later.
//!
//! This makes the common shapes of game components cheap: a star (one chance state with many
//! "re-roll" loops back to it) costs time linear in its size, as does a cycle or a chain; dense
//! components cost `O(n^3)` as plain Gaussian elimination would.
//!
//! # Accuracy in floats
//! Where a state almost surely comes back to itself (a re-roll that succeeds once in a
//! billion), `1 - a_xx` cancels: `a_xx` is `1 - ε` rounded, and `ε` keeps only a few of its
//! digits. A *stochastic* system ([`System::reset_stochastic`]) knows each row's exit mass,
//! the probability of leaving the component, `e_x = 1 - Σ_y a_xy`, given by the caller as a
//! sum of the exiting edges' probabilities. In floats, the pivot is then `e_x + Σ_{y≠x} a_xy`,
//! a sum of positive terms without cancellation, and eliminating `x` into `p` adds
//! `a_px e_x / pivot` to `e_p` (the Grassmann–Taksar–Heyman idea for Markov chains); every
//! quantity stays a sum of products of positive numbers, accurate to a few rounding errors
//! however close to one the loops are. Exact arithmetic takes `1 - a_xx`, equal and cheaper.
//!
//! The same code runs on `f64` and on exact rationals. A pivot `1 - a_xx` that is not positive
//! means the policy does not leave the component with probability one; the caller prevents that
//! and gets the unknown back as an error if it happens anyway.

use std::any::Any;
use std::borrow::Cow;
use std::cmp::Ordering::{Equal, Less};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use malachite_q::rational::arithmetic::traits::SimplestRationalInInterval;
use malachite_q::Rational;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::{Exact, Number};

/// A row of the system: most have one entry (a decision's move), kept inline (a component
/// can have millions of rows, and a separate allocation each would double their memory).
type Row<N> = SmallVec<[(u32, N); 1]>;

/// A sparse system `v = c + A v`; `rows[x]` lists `(y, a_xy)` with each `y` at most once. A
/// short row is searched directly; once a row grows longer than [`SHORT`] it is *indexed*:
/// `slot` then finds the entry `(x, y)` in constant time (a row can be as long as the
/// component: the centre of a star).
pub(crate) struct System<N> {
    pub c: Vec<N>,
    rows: Vec<Row<N>>,
    /// Each row's exit mass `1 - Σ_y a_xy`, in a stochastic system (see the module docs).
    exit: Vec<N>,
    /// Whether [`System::reset_stochastic`] made this a stochastic system.
    stochastic: bool,
    indexed: Vec<bool>,
    /// Whether `rows[x]` holds the self-loop `a_xx`, so that the cost of eliminating `x`
    /// needs no search.
    looped: Vec<bool>,
    slot: FxHashMap<u64, u32>,
    /// Scratch: the predecessors of each unknown during elimination.
    preds: Vec<SmallVec<[u32; 4]>>,
    /// Scratch of [`System::solve`], kept for the next system (components come by the
    /// thousand, most of them small).
    scratch: Scratch,
    /// At most this many multiply-adds of elimination, if set: beyond it
    /// [`System::solve`] gives up with [`Unsolved::OverBudget`] (a dense system of many
    /// unknowns costs their cube, and the caller may have a better method for it).
    pub budget: Option<u64>,
    /// The threads that the exact steps around a large system's solve may use (the
    /// components' values beside it, their improvement steps): one unless the caller says.
    pub threads: usize,
}

/// Why [`System::solve`] gave no solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsolved {
    /// The pivot of this unknown was not positive.
    Pivot(usize),
    /// The elimination would cost more than the budget.
    OverBudget,
}

/// The working memory of one elimination.
#[derive(Default)]
struct Scratch {
    heap: CostQueue,
    indeg: Vec<u32>,
    /// Costs, capped at `u32::MAX` (a word each: systems have millions of unknowns).
    queued: Vec<u32>,
    done: Vec<bool>,
    order: Vec<u32>,
}

/// A min-queue of `(cost, unknown)`: buckets for the small costs that almost every
/// elimination has, a binary heap for the rest.
#[derive(Default)]
struct CostQueue {
    buckets: Vec<Vec<u32>>,
    /// No bucket below this one holds anything.
    low: usize,
    large: BinaryHeap<Reverse<(usize, u32)>>,
}

/// An elimination's cost as a word: beyond `u32::MAX` the order among such costs only changes
/// the speed, not the solution, and a system with such costs is dense whatever the order.
fn capped(cost: usize) -> u32 {
    cost.min(u32::MAX as usize) as u32
}

/// Costs below this go to buckets.
const BUCKETS: usize = 64;

impl CostQueue {
    /// Empties the queue, keeping the memory of its buckets.
    fn clear(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.low = 0;
        self.large.clear();
    }

    fn push(&mut self, cost: usize, x: u32) {
        if cost < BUCKETS {
            if self.buckets.is_empty() {
                self.buckets.resize_with(BUCKETS, Vec::new);
            }
            self.buckets[cost].push(x);
            self.low = self.low.min(cost);
        } else {
            self.large.push(Reverse((cost, x)));
        }
    }

    /// The entry of least cost (any of them on ties, but always the same one).
    fn pop(&mut self) -> Option<(usize, u32)> {
        while self.low < self.buckets.len() {
            if let Some(x) = self.buckets[self.low].pop() {
                return Some((self.low, x));
            }
            self.low += 1;
        }
        self.large.pop().map(|Reverse(e)| e)
    }
}

/// Unknowns from which an exact solve tries [`System::guessed`] first (below, elimination is
/// cheap whatever the shape).
const GUESS_FROM: usize = 64;

/// Entries per row, on average, from which an exact solve tries [`System::guessed`] first:
/// sparser systems (chains, stars, the cycles of turns) eliminate with little fill-in.
const GUESS_DENSITY: usize = 8;

/// The most Gauss–Seidel sweeps of one floating-point solve of [`System::guessed`].
const GUESS_SWEEPS: usize = 1_000;

/// The most rounds of refinement of [`System::guessed`] (each adds about 50 bits).
const GUESS_ROUNDS: usize = 8;

/// Rows up to this length are searched by a scan, which beats hashing.
const SHORT: usize = 16;

fn key(x: usize, y: u32) -> u64 {
    (x as u64) << 32 | y as u64
}

impl<N: Number> System<N> {
    /// An empty system of `n` unknowns.
    pub fn new(n: usize) -> Self {
        let mut s = System {
            c: Vec::new(),
            rows: Vec::new(),
            exit: Vec::new(),
            stochastic: false,
            indexed: Vec::new(),
            looped: Vec::new(),
            slot: FxHashMap::default(),
            preds: Vec::new(),
            scratch: Scratch::default(),
            budget: None,
            threads: 1,
        };
        s.reset(n);
        s
    }

    /// Empties the system and makes it one of `n` unknowns, keeping the memory of its rows
    /// (the engine solves many systems one after another).
    pub fn reset(&mut self, n: usize) {
        self.stochastic = false;
        self.exit.clear();
        self.c.clear();
        self.c.resize(n, N::zero());
        self.rows.truncate(n);
        self.rows.iter_mut().for_each(SmallVec::clear);
        self.rows.resize_with(n, SmallVec::new);
        self.preds.truncate(n);
        self.preds.iter_mut().for_each(SmallVec::clear);
        self.preds.resize_with(n, SmallVec::new);
        self.indexed.clear();
        self.indexed.resize(n, false);
        self.looped.clear();
        self.looped.resize(n, false);
        self.slot.clear();
    }

    /// Empties the system and gives back the memory of its rows and scratch (after a large
    /// system, where what comes next needs the memory more than the next system its reuse);
    /// the budget and threads stay.
    pub fn release(&mut self) {
        *self = System {
            budget: self.budget,
            threads: self.threads,
            ..System::new(0)
        };
    }

    /// Empties the system and makes it a stochastic one of `n` unknowns: each row is part of a
    /// probability distribution whose rest leaves the system, declared with
    /// [`System::add_exit`] (see the module docs).
    pub fn reset_stochastic(&mut self, n: usize) {
        self.reset(n);
        self.stochastic = true;
        self.exit.resize(n, N::zero());
    }

    /// Adds `p` to the probability that row `x` leaves the system (stochastic systems only).
    pub fn add_exit(&mut self, x: usize, p: &N) {
        debug_assert!(self.stochastic, "exits belong to stochastic systems");
        // Exact pivots are `1 - a_xx` (see the module docs): no exit is needed.
        if !N::EXACT {
            self.exit[x] = self.exit[x].add(p);
        }
    }

    /// The position of `y` in `rows[x]`.
    fn find(&self, x: usize, y: u32) -> Option<usize> {
        if self.indexed[x] {
            self.slot.get(&key(x, y)).map(|&i| i as usize)
        } else {
            self.rows[x].iter().position(|e| e.0 == y)
        }
    }

    /// `a_xy += a`; returns whether the entry is new.
    pub fn add(&mut self, x: usize, y: u32, a: N) -> bool {
        if let Some(i) = self.find(x, y) {
            let e = &mut self.rows[x][i].1;
            *e = e.add(&a);
            return false;
        }
        self.looped[x] |= y as usize == x;
        let row = &mut self.rows[x];
        row.push((y, a));
        if self.indexed[x] {
            self.slot.insert(key(x, y), row.len() as u32 - 1);
        } else if row.len() > SHORT {
            self.indexed[x] = true;
            for (i, e) in row.iter().enumerate() {
                self.slot.insert(key(x, e.0), i as u32);
            }
        }
        true
    }

    /// Removes and returns `a_xy`, if present.
    fn take(&mut self, x: usize, y: u32) -> Option<N> {
        let i = self.find(x, y)?;
        self.looped[x] &= y as usize != x;
        let row = &mut self.rows[x];
        let (_, a) = row.swap_remove(i);
        if self.indexed[x] {
            self.slot.remove(&key(x, y));
            if let Some(&(moved, _)) = row.get(i) {
                self.slot.insert(key(x, moved), i as u32);
            }
        }
        Some(a)
    }

    /// Solves the system, within the budget if one is set. In exact arithmetic a system of
    /// [`GUESS_FROM`] unknowns or more is first solved by [`System::guessed`].
    pub fn solve(&mut self) -> Result<Vec<N>, Unsolved> {
        if N::EXACT && self.c.len() >= GUESS_FROM {
            let guessed = (self as &dyn Any)
                .downcast_ref::<System<Exact>>()
                .and_then(System::guessed);
            if let Some(v) = guessed {
                if let Ok(v) = (Box::new(v) as Box<dyn Any>).downcast::<Vec<N>>() {
                    return Ok(*v);
                }
            }
        }
        self.eliminate()
    }

    /// Solves the system by elimination (see the module docs), within the budget if one is
    /// set.
    fn eliminate(&mut self) -> Result<Vec<N>, Unsolved> {
        let n = self.c.len();
        let mut work = 0u64;
        let mut preds = std::mem::take(&mut self.preds);
        let mut scratch = std::mem::take(&mut self.scratch);
        let Scratch {
            heap,
            indeg,
            queued,
            done,
            order,
        } = &mut scratch;
        heap.clear();
        indeg.clear();
        indeg.resize(n, 0);
        for (x, row) in self.rows.iter().enumerate() {
            for &(y, _) in row {
                if y as usize != x {
                    preds[y as usize].push(x as u32);
                    indeg[y as usize] += 1;
                }
            }
        }
        // Entries other than the self-loop, in constant time.
        let outdeg = |sys: &Self, x: usize| sys.rows[x].len() - usize::from(sys.looped[x]);
        // A lazy heap: `queued[x]` is the smallest cost of `x` in the heap. A cost that rises
        // is not pushed (the old, lower entry comes out first and is re-pushed then), so hubs
        // whose cost grows at every elimination do not flood the heap.
        queued.clear();
        queued.resize(n, 0);
        for x in 0..n {
            queued[x] = capped(indeg[x] as usize * outdeg(self, x));
            heap.push(queued[x] as usize, x as u32);
        }
        let requeue = |heap: &mut CostQueue, queued: &mut [u32], x: usize, cost: usize| {
            let cost = capped(cost);
            if cost < queued[x] {
                queued[x] = cost;
                heap.push(cost as usize, x as u32);
            }
        };
        done.clear();
        done.resize(n, false);
        order.clear();
        while let Some((cost, x)) = heap.pop() {
            let x = x as usize;
            if done[x] || cost != queued[x] as usize {
                continue;
            }
            let now = capped(indeg[x] as usize * outdeg(self, x));
            if now as usize != cost {
                queued[x] = now;
                heap.push(now as usize, x as u32);
                continue;
            }
            // Remove the self-loop and normalise the row.
            let self_loop = self.take(x, x as u32);
            let mut row = std::mem::take(&mut self.rows[x]);
            let gth = self.stochastic && !N::EXACT;
            if let Some(a) = self_loop {
                let pivot = if gth {
                    row.iter().fold(self.exit[x].clone(), |s, (_, b)| s.add(b))
                } else {
                    N::one().sub(&a)
                };
                if pivot <= N::zero() {
                    return Err(Unsolved::Pivot(x));
                }
                self.c[x] = self.c[x].div(&pivot);
                for (_, b) in row.iter_mut() {
                    *b = b.div(&pivot);
                }
                if gth {
                    self.exit[x] = self.exit[x].div(&pivot);
                }
            }
            for &(y, _) in &row {
                indeg[y as usize] -= 1;
            }
            // Substitute into every live predecessor.
            let list = std::mem::take(&mut preds[x]);
            for &p in &list {
                let p = p as usize;
                if done[p] {
                    continue;
                }
                let Some(a) = self.take(p, x as u32) else {
                    continue;
                };
                work += row.len() as u64 + 1;
                if self.budget.is_some_and(|b| work > b) {
                    return Err(Unsolved::OverBudget);
                }
                let cx = a.mul(&self.c[x]);
                self.c[p] = self.c[p].add(&cx);
                if gth {
                    let ex = a.mul(&self.exit[x]);
                    self.exit[p] = self.exit[p].add(&ex);
                }
                for (y, b) in &row {
                    if self.add(p, *y, a.mul(b)) && *y as usize != p {
                        preds[*y as usize].push(p as u32);
                        indeg[*y as usize] += 1;
                    }
                }
                requeue(heap, queued, p, indeg[p] as usize * outdeg(self, p));
            }
            // Keep the list's memory for the next system.
            preds[x] = list;
            for &(y, _) in &row {
                let y = y as usize;
                requeue(heap, queued, y, indeg[y] as usize * outdeg(self, y));
            }
            self.rows[x] = row;
            done[x] = true;
            order.push(x as u32);
        }
        self.preds = preds;
        let mut v = vec![N::zero(); n];
        for &x in order.iter().rev() {
            let x = x as usize;
            let mut s = std::mem::replace(&mut self.c[x], N::zero());
            s.add_products(
                self.rows[x]
                    .iter()
                    .map(|(y, b)| (b, Cow::Borrowed(&v[*y as usize]))),
            );
            v[x] = s;
        }
        self.scratch = scratch;
        Ok(v)
    }
}

impl System<Exact> {
    /// The exact solution without elimination, which fills a dense system in (herman's ring,
    /// where every state leads to most others): the values found to ever more bits by
    /// iterative refinement (the residual `c + A x - x` computed exactly, the correction
    /// solved in floating point by Gauss–Seidel), each value then taken as the simplest
    /// fraction within the refinement's error estimate, and that guess checked exactly against
    /// every equation. The floats only propose; the check decides. The guess is the solution
    /// when it satisfies every equation, the entries are probabilities, and every unknown can
    /// reach a row whose probabilities sum to less than one: then `I - A` is invertible and
    /// the solution unique. `None` where any of this fails, or no guess passes within
    /// [`GUESS_ROUNDS`] rounds: the caller eliminates.
    fn guessed(&self) -> Option<Vec<Exact>> {
        let n = self.c.len();
        let entries: usize = self.rows.iter().map(|row| row.len()).sum();
        if entries < GUESS_DENSITY * n {
            return None;
        }
        let (zero, one) = (Rational::from(0u32), Rational::from(1u32));
        let mut leaves = vec![false; n];
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (x, row) in self.rows.iter().enumerate() {
            let mut sum = Rational::from(0u32);
            for (y, a) in row {
                if a.0 < zero {
                    return None;
                }
                sum += &a.0;
                if a.0 > zero {
                    preds[*y as usize].push(x as u32);
                }
            }
            match sum.partial_cmp(&one) {
                Some(Less) => leaves[x] = true,
                Some(Equal) => {}
                _ => return None,
            }
        }
        // Every unknown reaches a row that leaves: a search back from those rows.
        let mut reached = leaves;
        let mut stack: Vec<u32> = (0..n as u32).filter(|&x| reached[x as usize]).collect();
        while let Some(y) = stack.pop() {
            for &x in &preds[y as usize] {
                if !reached[x as usize] {
                    reached[x as usize] = true;
                    stack.push(x);
                }
            }
        }
        if reached.contains(&false) {
            return None;
        }
        drop(preds);
        let rows: Vec<Vec<(u32, f64)>> = self
            .rows
            .iter()
            .map(|row| row.iter().map(|(y, a)| (*y, a.to_f64())).collect())
            .collect();
        // How much an error in the equations can grow in the values: the most expected steps
        // before leaving, `h = 1 + A h` (an estimate; it only sizes the guess).
        let growth = gauss_seidel(&rows, &vec![1.0; n])?
            .into_iter()
            .fold(1.0f64, f64::max);
        let mut x = vec![Rational::from(0u32); n];
        let mut residual: Vec<Rational> = self.c.iter().map(|c| c.0.clone()).collect();
        for _ in 0..GUESS_ROUNDS {
            let r: Vec<f64> = residual.iter().map(|r| Exact(r.clone()).to_f64()).collect();
            let correction = gauss_seidel(&rows, &r)?;
            for (x, e) in x.iter_mut().zip(&correction) {
                *x += Rational::try_from(*e).ok()?;
            }
            residual = self.residual(&x);
            let worst = residual
                .iter()
                .map(|r| Exact(r.clone()).to_f64().abs())
                .fold(0.0f64, f64::max);
            // Exactly zero (a float's zero may be a residual below its range).
            if residual.iter().all(|r| *r == zero) {
                return Some(x.into_iter().map(Exact).collect());
            }
            // Each value within `radius` of its estimate, if the estimate of growth holds.
            let radius = Rational::try_from(4.0 * growth * worst).ok()?;
            let guess: Vec<Rational> = x
                .iter()
                .map(|v| {
                    Rational::simplest_rational_in_closed_interval(&(v - &radius), &(v + &radius))
                })
                .collect();
            if self.residual(&guess).iter().all(|r| *r == zero) {
                return Some(guess.into_iter().map(Exact).collect());
            }
        }
        None
    }

    /// `c + A x - x`, exactly.
    fn residual(&self, x: &[Rational]) -> Vec<Rational> {
        self.rows
            .iter()
            .zip(&self.c)
            .zip(x)
            .map(|((row, c), v)| {
                let mut sum = c.0.clone() - v;
                for (y, a) in row {
                    sum += &a.0 * &x[*y as usize];
                }
                sum
            })
            .collect()
    }
}

/// The solution of `v = c + A v` in floating point by Gauss–Seidel (`rows` holds `A`), once
/// three sweeps in a row change no value beyond rounding; `None` if that takes more than
/// [`GUESS_SWEEPS`] sweeps or a value is not finite.
fn gauss_seidel(rows: &[Vec<(u32, f64)>], c: &[f64]) -> Option<Vec<f64>> {
    let mut v = vec![0.0f64; c.len()];
    let mut quiet = 0;
    for _ in 0..GUESS_SWEEPS {
        let mut change = 0.0f64;
        for (x, row) in rows.iter().enumerate() {
            let (mut sum, mut pivot) = (c[x], 1.0);
            for &(y, a) in row {
                match y as usize == x {
                    true => pivot -= a,
                    false => sum += a * v[y as usize],
                }
            }
            let next = sum / pivot;
            change = change.max((next - v[x]).abs() / next.abs().max(f64::MIN_POSITIVE));
            v[x] = next;
        }
        if !change.is_finite() {
            return None;
        }
        quiet = if change <= 4.0 * f64::EPSILON {
            quiet + 1
        } else {
            0
        };
        if quiet == 3 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Exact, Rat};

    fn q(n: i64, d: i64) -> Exact {
        Exact::from_rat(Rat::new(n, d))
    }

    #[test]
    fn star_with_retry_loops() {
        // Centre 0 goes to leaves 1..=3 with probability 1/3 each; each leaf returns to the
        // centre at cost 1, except leaf 3, which exits at cost 0. v0 = (2 + v0) * 2/3 / ... :
        // v0 = 1/3 (1 + v0) * 2 + 0  =>  v0 = 2.
        let mut s = System::<Exact>::new(4);
        for leaf in 1..=3u32 {
            s.add(0, leaf, q(1, 3));
        }
        for leaf in 1..=2usize {
            s.c[leaf] = q(1, 1);
            s.add(leaf, 0, q(1, 1));
        }
        let v = s.solve().unwrap();
        assert_eq!(v, vec![q(2, 1), q(3, 1), q(3, 1), q(0, 1)]);
    }

    #[test]
    fn dense_system_matches_hand_solution() {
        // v0 = 1 + 1/2 v1 ; v1 = 2 + 1/4 v0 + 1/4 v1  =>  v1 = (2 + 1/4 + 1/8 v1) * 4/3 ...
        let mut s = System::<Exact>::new(2);
        s.c[0] = q(1, 1);
        s.add(0, 1, q(1, 2));
        s.c[1] = q(2, 1);
        s.add(1, 0, q(1, 4));
        s.add(1, 1, q(1, 4));
        let v = s.solve().unwrap();
        // Check the equations rather than a hand-derived number.
        assert_eq!(v[0], q(1, 1).add(&q(1, 2).mul(&v[1])));
        assert_eq!(
            v[1],
            q(2, 1).add(&q(1, 4).mul(&v[0])).add(&q(1, 4).mul(&v[1]))
        );
    }

    #[test]
    fn closed_loop_is_reported() {
        let mut s = System::<f64>::new(2);
        s.add(0, 1, 1.0);
        s.add(1, 0, 1.0);
        assert!(s.solve().is_err());
    }

    /// A dense system whose solution is small fractions: the guess finds it, exactly; on
    /// systems with random constants, whatever the guess gives is what elimination gives.
    #[test]
    fn dense_systems_are_guessed_or_eliminated_alike() {
        let mut rng = crate::Rng::new(7);
        let mut below = |k: u64| rng.next_u64() % k;
        for case in 0..40 {
            let n = 64 + below(40) as usize;
            let mut s = System::<Exact>::new(n);
            // Each row: sixteenths summing to at most one, over about a third of the unknowns.
            let mut rows = vec![Vec::new(); n];
            for (x, row) in rows.iter_mut().enumerate() {
                let mut left = 16 - (x % 2) as u64;
                for y in 0..n as u32 {
                    if left > 0 && below(3) == 0 {
                        let a = 1 + below(left.min(2));
                        left -= a;
                        row.push((y, q(a as i64, 16)));
                    }
                }
            }
            let solution: Vec<Exact> = (0..n)
                .map(|_| q(below(50) as i64, 1 + below(6) as i64))
                .collect();
            for (x, row) in rows.iter().enumerate() {
                // c = v - A v for the wanted solution, or random constants.
                let mut c = solution[x].clone();
                for (y, a) in row {
                    c = c.sub(&a.mul(&solution[*y as usize]));
                }
                s.c[x] = if case % 2 == 0 {
                    c
                } else {
                    q(below(9) as i64, 1 + below(4) as i64)
                };
                for (y, a) in row {
                    s.add(x, *y, a.clone());
                }
            }
            let guessed = s.guessed();
            if case % 2 == 0 {
                assert_eq!(guessed.as_ref(), Some(&solution), "case {case}");
            }
            if let Some(g) = guessed {
                s.budget = None;
                let mut eliminated = System::<Exact>::new(n);
                eliminated.c = s.c.clone();
                for (x, row) in rows.iter().enumerate() {
                    for (y, a) in row {
                        eliminated.add(x, *y, a.clone());
                    }
                }
                // Below the size where solve guesses: solved by elimination alone.
                assert_eq!(eliminated.eliminate().unwrap(), g, "case {case}");
            }
        }
    }
}
