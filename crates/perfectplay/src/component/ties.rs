//! What near ties may hide: a bound on the distance between the value of the strategy a float
//! solve ends with and the optimum (see [`Component::tie_bound`]).

use super::{Component, LocalEdge, Preds, EXIT};
use crate::backup::Kind;
use crate::linear::System;
use crate::{Bounded, Number, Player};

/// The unit roundoff of `f64`.
const UNIT: f64 = f64::EPSILON / 2.0;

/// The most sweeps [`Component::accumulated`] makes from zero before it gives up.
const MAX_SWEEPS: usize = 100_000;

/// The most sweeps [`Component::accumulated`] makes from a solved start.
const CHECK_SWEEPS: usize = 256;

/// The most sweeps [`Component::accumulated`] makes from [`Component::solved_start`] before
/// it turns to the start measured in steps.
const FIRST_SWEEPS: usize = 4;

/// The most times [`Component::solved_start`] solves its game again under a cap.
const STOP_ROUNDS: usize = 12;

/// How many times the least cap a node's may be to stop in the same round of
/// [`Component::solved_start`].
const STOP_SPREAD: f64 = 1e3;

/// [`Component::solved_start`] ends its rounds once fewer than one node in this many goes on
/// again (after the first round that stops any).
const FEW_WENT_ON: usize = 100;

/// The least fall of a node's start, relative to it, that [`Component::pass_on`] passes on.
const PASS_ON: f64 = 1e-6;

/// What a difference of two numbers below the normal range may lose to rounding, at most.
const TINY_ROOM: f64 = 1e-300;

/// The room a solved start leaves per step for the checking sweeps' rounding: relative to the
/// largest gain in [`Component::solved_start`], to the largest value in
/// [`Component::stepped_start`].
const ROOM: f64 = 1e-9;

/// The side of the optimum a bound looks at: above the strategy's value (what Max could still
/// gain) or below it (what Min could).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Above,
    Below,
}

impl Side {
    /// The player whose near ties this side measures.
    fn gainer(self) -> Player {
        match self {
            Side::Above => Player::Max,
            Side::Below => Player::Min,
        }
    }
}

/// The least and greatest worth of a component's exits ([`Component::exits_span`]).
#[derive(Clone, Copy)]
struct Span {
    lo: f64,
    hi: f64,
}

impl Span {
    /// Per node, how far the optimum can lie from the exact value of the policy whose values
    /// are `v` on `side` at most: up to the greatest exit above it, down to the least below
    /// it, plus the value's own radius; rounded up, and never negative.
    fn cap<N: Number>(self, v: &[N], side: Side) -> Vec<f64> {
        v.iter()
            .map(|x| {
                let room = match side {
                    Side::Above => self.hi - x.to_f64(),
                    Side::Below => x.to_f64() - self.lo,
                };
                let room = room + Bounded::bound(x.radius());
                (room + 2.0 * UNIT * room.abs() + TINY_ROOM).max(0.0)
            })
            .collect()
    }
}

impl<N: Number> Component<N> {
    /// How far the optimum can lie from the values `v` of `policy`, per node, beyond the
    /// values' own radii (which bound their distance to the policy's exact value): a float
    /// solve switches a move only where another is better beyond doubt, so it can end where
    /// moves tie within rounding and the optimum is a little better still.
    ///
    /// Write `v` for the policy's exact values and `A(x, a) = Q(x, a) − v(x)` for the
    /// advantage of move `a`. A vector `h ≥ 0` with `h(x) ≥ max_a (A(x, a) + P_a h)` at Max's
    /// decisions, `h(x) ≥ min_a (A(x, a) + P_a h)` at Min's and `h(x) ≥ P h` at chance nodes
    /// makes `u = v + h` a pre-fixed point of the Bellman operator (`B u ≤ u`), so `u` lies
    /// above the optimum where the operator has one fixed point (every pair of strategies
    /// leaves the component). With one player the optimum is over the strategies that leave
    /// (see the module [`super`]), and for each such strategy `μ'` the distance
    /// `v_μ' − v` is the advantage it collects on its way out (the performance difference),
    /// which `h` bounds: `h ≥ A_μ' + P_μ' h` unrolls to it, since `P_μ'^k h → 0`. Below, the
    /// same with the players' roles and the advantage's sign swapped. Such an `h` is the
    /// most advantage a strategy can collect on its way out, and moves that are clearly
    /// worse cost more than they gain: it stays near zero unless near ties lie on the likely
    /// path, however long the play can be made to last.
    ///
    /// Where every play leaves the component and nothing is earned inside it, the optimum
    /// lies between the least and the greatest worth of its exits, `lo` and `hi`
    /// ([`Component::exits_span`]), and `h` may stop at the room left to them, its cap (on
    /// Max's side, `v + h ≥ hi` there). Then `w = min(v + h, hi)` is still a pre-fixed point: a node at its cap has
    /// `w = hi ≥ B w`, since every average of `w` and the exits is at most `hi`; any other
    /// has `w = v + h ≥ B(v + h) ≥ B w`. This keeps the bound within the game's range where
    /// a win is all but certain and rounding cannot tell its moves apart over a long play.
    ///
    /// `h` is found by [`Component::accumulated`] and accepted only after a sweep, rounded
    /// up, that changes nothing, which is the inequality itself. Each advantage is bounded
    /// above from the values and their radii; a shared target or constant drops out.
    ///
    /// Returns the bound of each node (zero where no move may gain), or `None`
    /// where a component that every strategy leaves got no bound (the iteration did not
    /// settle). Zero is returned where none is sound or none was found in a component the
    /// play can stay in for ever (two players there; one player whose tied moves lead round
    /// a cycle, whose advantages' upper bounds then add up without end): the known gap of
    /// [`Stats::error_bound`](crate::Stats::error_bound).
    pub(super) fn tie_bound(&self, v: &[N], policy: &[u32]) -> Option<Vec<f64>> {
        let has = |p: Player| self.kind.contains(&Kind::Decision(p));
        let stopping = self.trap(None).is_none();
        let sound = !(has(Player::Max) && has(Player::Min)) || stopping;
        let mut bound = vec![0.0f64; self.n()];
        // Only where every play leaves: where one can stay, tied moves round a cycle that
        // can be kept up for ever would raise every node that reaches it to its cap.
        let span = stopping.then(|| self.exits_span()).flatten();
        for side in [Side::Above, Side::Below] {
            // Without decisions of the side's gainer no move may gain on it (`advantages`
            // would find none after comparing every move).
            if !has(side.gainer()) {
                continue;
            }
            let Some(terms) = self.advantages(v, policy, side) else {
                continue;
            };
            if !sound {
                return Some(bound);
            }
            let cap = span.map(|span| span.cap(v, side));
            let h = match (self.accumulated(&terms, side, cap.as_deref()), cap) {
                (Some(h), _) => h,
                (None, Some(cap)) => cap,
                // Where the play can stay for ever, tied moves may lead round a cycle whose
                // advantages' upper bounds add up without end, though the exact ones cannot:
                // the known gap (`Stats::error_bound`).
                (None, None) => return if stopping { None } else { Some(bound) },
            };
            for (b, h) in bound.iter_mut().zip(h) {
                *b = b.max(h);
            }
        }
        Some(bound)
    }

    /// The least and greatest worth of the component's exits, where nothing is earned inside
    /// it (every edge between its nodes adds exactly zero): then the value of every strategy
    /// that leaves the component, the optimum's included, is an average of what its exits
    /// pay, and lies between the two. Where the advantages cannot be told from rounding over
    /// a long play (a win all but certain, whose moves differ by less than a unit of the last
    /// place), this caps the tie bound at the room left to the exits' extremes. `None` where
    /// something is earned inside, or the component has no exit.
    fn exits_span(&self) -> Option<Span> {
        let mut span: Option<Span> = None;
        for e in &self.edges {
            let (value, radius) = (e.konst.to_f64(), Bounded::bound(e.konst.radius()));
            if e.to != EXIT {
                if value != 0.0 || radius != 0.0 {
                    return None;
                }
                continue;
            }
            let (lo, hi) = (value - radius, value + radius);
            // Rounded outwards: each is off by at most a unit of itself.
            let (lo, hi) = (lo - UNIT * lo.abs(), hi + UNIT * hi.abs());
            span = Some(match span {
                None => Span { lo, hi },
                Some(s) => Span {
                    lo: s.lo.min(lo),
                    hi: s.hi.max(hi),
                },
            });
        }
        span.filter(|s| s.lo.is_finite() && s.hi.is_finite())
    }

    /// Upper bounds of the advantage of every move of every decision, in edge order (a
    /// chance node's entries unused): `Q(x, a) − v(x)` on [`Side::Above`], its negation on
    /// [`Side::Below`]; zero for the policy's own move and for moves identical to it. `None`
    /// when no move of the side's gainer may gain (then `h = 0` is the bound).
    fn advantages(&self, v: &[N], policy: &[u32], side: Side) -> Option<Vec<f64>> {
        let mut terms = vec![0.0f64; self.edges.len()];
        let mut gains = false;
        for x in 0..self.n() {
            let Kind::Decision(player) = self.kind[x] else {
                continue;
            };
            let base = self.start[x] as usize;
            let out = self.out(x);
            let chosen = &out[policy[x] as usize];
            for (i, e) in out.iter().enumerate() {
                if i == policy[x] as usize {
                    continue;
                }
                let mut d = self.difference(v, e, chosen);
                if side == Side::Below {
                    d = N::zero().sub(&d);
                }
                let upper = d.to_f64() + Bounded::bound(d.radius());
                let upper = upper + UNIT * upper.abs();
                if !upper.is_finite() {
                    return None;
                }
                terms[base + i] = upper;
                gains |= player == side.gainer() && upper > 0.0;
            }
        }
        gains.then_some(terms)
    }

    /// `Q(x, a) − Q(x, c)` for moves `a` and `c` of one decision, as tightly as the values
    /// allow: the policy's exact value at a decision is its move's, so this is the advantage
    /// of `a` when `c` is the policy's move. A shared target drops out with its doubt; two
    /// random moves (chance nodes) are compared outcome by outcome, so that what they share
    /// drops out too, and each value's doubt counts only by the difference of the two
    /// moves' probabilities of reaching it.
    fn difference(&self, v: &[N], a: &LocalEdge<N>, c: &LocalEdge<N>) -> N {
        let d = a.konst.sub(&c.konst);
        if a.to == c.to {
            return d;
        }
        let value = |to: u32| {
            if to == EXIT {
                N::zero()
            } else {
                v[to as usize].clone()
            }
        };
        let random = |e: &LocalEdge<N>| e.to != EXIT && self.kind[e.to as usize] == Kind::Chance;
        if !(random(a) && random(c)) {
            return d.add(&value(a.to).sub(&value(c.to)));
        }
        let mut d = d;
        let mut weights: Vec<(u32, N)> = Vec::new();
        for (node, sign) in [(a.to, false), (c.to, true)] {
            for e in self.out(node as usize) {
                let p = if sign {
                    N::zero().sub(&e.prob)
                } else {
                    e.prob.clone()
                };
                d.add_mul(&p, &e.konst);
                weights.push((e.to, p));
            }
        }
        weights.sort_by_key(|w| w.0);
        // Each move's probabilities sum to one exactly, so the weights sum to zero and the
        // values may be taken relative to any constant: relative to one near them, a
        // probability's own doubt counts only by how far its target's value lies from it.
        let Some(level) = N::from_f64(value(c.to).to_f64()) else {
            return d.add(&value(a.to).sub(&value(c.to)));
        };
        let mut k = 0;
        while k < weights.len() {
            let to = weights[k].0;
            let mut weight = weights[k].1.clone();
            k += 1;
            while k < weights.len() && weights[k].0 == to {
                weight = weight.add(&weights[k].1);
                k += 1;
            }
            d.add_mul(&weight, &value(to).sub(&level));
        }
        d
    }

    /// The least vector `h` of [`Component::tie_bound`] for the advantages `terms`, rounded
    /// up and checked, or `None` when none was found (a gain that a strategy can collect
    /// without end, or too slow a convergence).
    ///
    /// `h` is the value of a game on the component's own graph, with the advantages as
    /// rewards and the side's gainer as Max. Plain iteration converges as slowly as the play
    /// mixes (very many sweeps on a long random walk), so it starts instead from that game
    /// solved directly in floats with a little extra reward per step, which gives every node
    /// some room for rounding ([`Component::solved_start`]); the checking sweeps then rarely
    /// move anything. Where that start fails its check, the room is measured in expected
    /// steps instead ([`Component::stepped_start`]), and where that cannot be had either,
    /// the sweeps start from zero.
    ///
    /// Where the exits bound the optimum (`cap`, from [`Component::exits_span`]), `h` is
    /// held below the cap: a node at its cap needs no inequality, since the optimum cannot
    /// lie beyond the exits' extremes; a node below it needs its own.
    fn accumulated(&self, terms: &[f64], side: Side, cap: Option<&[f64]>) -> Option<Vec<f64>> {
        let sweep = Sweep::new(self, terms, side);
        let check = |h, sweeps| self.settled(&sweep, cap, h, sweeps);
        let from_zero = || check(vec![0.0; self.n()], MAX_SWEEPS);
        let Some(mut game) = self.tie_game(terms, side) else {
            return from_zero();
        };
        // Under a cap the sweeps rise to a fixed point in finitely many steps, and the
        // stepped start would not stop its nodes: the solved start gets all the sweeps.
        let first = match cap {
            Some(_) => CHECK_SWEEPS,
            None => FIRST_SWEEPS,
        };
        if let Some(h) = self
            .solved_start(&mut game, &sweep, cap)
            .and_then(|h| check(h, first))
        {
            return Some(h);
        }
        match self.stepped_start(&mut game, terms) {
            Some(start) => check(start, CHECK_SWEEPS),
            None => from_zero(),
        }
    }

    /// `h` raised by at most `sweeps` sweeps of the inequalities of
    /// [`Component::tie_bound`] for the advantages `terms`, each right-hand side rounded up
    /// and held below `cap` (where given; the start too), until a sweep changes nothing,
    /// which checks every inequality against the final `h`; `None` where none does, or a
    /// value grows without bound.
    fn settled(
        &self,
        sweep: &Sweep<N>,
        cap: Option<&[f64]>,
        mut h: Vec<f64>,
        sweeps: usize,
    ) -> Option<Vec<f64>> {
        let most = |x: usize| cap.map_or(f64::INFINITY, |c| c[x]);
        for (x, h) in h.iter_mut().enumerate() {
            *h = h.min(most(x));
        }
        let n = self.n();
        h.push(0.0);
        for _ in 0..sweeps {
            let mut changed = false;
            for x in (0..n).rev() {
                let new = sweep.rhs(&h, x).min(most(x));
                if new > h[x] {
                    changed = true;
                    h[x] = new;
                }
            }
            if !h.iter().all(|x| x.is_finite()) {
                return None;
            }
            if !changed {
                h.truncate(n);
                return Some(h);
            }
        }
        None
    }

    /// The game of [`Component::accumulated`] in floats (its rewards set by each start), with
    /// the scale of the advantages `terms` that makes the largest gain one (the float solve's
    /// tolerance is relative to at least one; losses may grow large: they only need to stay
    /// losses). `None` where no gain is finite and positive.
    fn tie_game(&self, terms: &[f64], side: Side) -> Option<TieGame> {
        // The side's gainer plays Max.
        let kind: Vec<Kind> = self
            .kind
            .iter()
            .map(|&k| match k {
                Kind::Decision(p) if side == Side::Below => Kind::Decision(p.other()),
                k => k,
            })
            .collect();
        // The largest gain of the side's gainer: the other player's moves are losses to it,
        // which may be large and would only make the room per step larger.
        let scale = (0..self.n())
            .filter(|&x| self.kind[x] == Kind::Decision(side.gainer()))
            .flat_map(|x| {
                let base = self.start[x] as usize;
                &terms[base..base + self.out(x).len()]
            })
            .fold(0.0f64, |m, &t| m.max(t));
        if scale == 0.0 || !scale.is_finite() {
            return None;
        }
        let game = self.in_floats(kind, &|_| 0.0);
        let mut sys = System::new(0);
        sys.budget =
            Some(super::DIRECT_WORK_MIN.max(super::DIRECT_WORK_PER_EDGE * game.edges.len() as u64));
        Some(TieGame { game, scale, sys })
    }

    /// A start of [`Component::accumulated`]: the game with [`ROOM`] added to every step's
    /// reward, solved directly in floats. Its value exceeds every right-hand side of the
    /// inequalities by that much at every node (the best move of the game with the room
    /// earns it once more), which covers the checking sweeps' rounding unless the values grow
    /// far beyond the largest gain. `None` where that solve fails (the room makes a play
    /// that can go on for ever worth more without end).
    ///
    /// Under a `cap`, a node whose solved value reaches its cap stops there: it becomes an
    /// exit worth the cap and the game is solved again; a stopped node whose step from the
    /// values found stays below its cap goes on again; until nothing changes, fewer than one
    /// node in [`FEW_WENT_ON`] goes on again, or [`STOP_ROUNDS`] solves. Every round's values
    /// would do as the start (a node still stopped sits at its cap, which needs no
    /// inequality): the rounds only bring the bound down. Without them, a gain that rounding
    /// inflates round a cycle left all but never (a win all but certain) would lift every
    /// node that can reach it to its cap, however clear its own moves are. The falls of the
    /// nodes that go on are passed on at once ([`Component::pass_on`]), and each solve starts
    /// from the last one's strategies.
    fn solved_start(
        &self,
        t: &mut TieGame,
        sweep: &Sweep<N>,
        cap: Option<&[f64]>,
    ) -> Option<Vec<f64>> {
        let terms = sweep.terms;
        let mut stop = vec![false; self.n()];
        let mut start = Vec::new();
        // Each round's game differs from the last by the nodes stopped or gone on: its
        // strategies are the next round's start.
        let mut policy = None;
        let preds = cap.map(|_| self.move_preds());
        for round in 0..STOP_ROUNDS {
            for x in 0..self.n() {
                let edges = self.start[x] as usize..self.start[x + 1] as usize;
                for i in edges {
                    let e = &mut t.game.edges[i];
                    (e.to, e.konst) = match (stop[x], cap) {
                        (true, Some(cap)) => (EXIT, cap[x] / t.scale),
                        _ => (self.edges[i].to, terms[i] / t.scale + ROOM),
                    };
                }
            }
            let (h, found) = t.game.solve_directly_from(&mut t.sys, None, policy).ok()?;
            policy = Some(found);
            start = h
                .iter()
                .map(|&h| (h * t.scale * (1.0 + ROOM)).max(0.0))
                .collect();
            if !start.iter().all(|x| x.is_finite()) {
                return None;
            }
            let Some(cap) = cap else { break };
            // The stopper's better choices: stop where the value reaches the cap, go on where
            // a step from the values found stays below it (a strategy iteration of the
            // stopper's, so the values only fall).
            start.push(0.0);
            // Nodes stop smallest caps first: a gain inflated round a cycle left all but never
            // lifts every node that can reach it past its cap, and stopping the cycle's own
            // nodes (whose caps are tiny) is what brings the others back down.
            let least = (0..self.n())
                .filter(|&x| !stop[x] && start[x] >= cap[x])
                .map(|x| cap[x])
                .fold(f64::INFINITY, f64::min);
            let mut more = false;
            let mut went_on = Vec::new();
            for (x, stop) in stop.iter_mut().enumerate() {
                let now = match *stop {
                    false => start[x] >= cap[x] && cap[x] <= least * STOP_SPREAD,
                    true => sweep.rhs(&start, x) >= cap[x],
                };
                if *stop && !now {
                    went_on.push(x);
                }
                more |= now != *stop;
                *stop = now;
            }
            if let Some(preds) = &preds {
                let room = ROOM * t.scale;
                // Once few go on again, their falls passed on leave the next solves only a
                // few nodes' bounds to lower, at the cost of a whole solve each.
                let few = round > 0 && went_on.len() * FEW_WENT_ON < self.n();
                self.pass_on(sweep, cap, preds, room, &mut stop, &mut start, went_on);
                more &= !few;
            }
            start.pop();
            if !more {
                break;
            }
        }
        Some(start)
    }

    /// The falls of the nodes `went_on` (stopped nodes of [`Component::solved_start`] that
    /// go on again) passed on to the nodes before them at once, where the next solve would
    /// find them one layer of stopped nodes a round: a node's `start` lowered to its step from
    /// the others' plus the `room` per step, and a stopped node going on where that step
    /// (without the room, as the rounds decide) is below its cap. Within a budget of a few
    /// steps per edge, since falls round a cycle may go on long; the next solve sets the
    /// values of the nodes that go on, so these are only guesses, and a fall of less than
    /// [`PASS_ON`] of a node's start is not passed on.
    #[allow(clippy::too_many_arguments)]
    fn pass_on(
        &self,
        sweep: &Sweep<N>,
        cap: &[f64],
        preds: &Preds<(u32, u32)>,
        room: f64,
        stop: &mut [bool],
        start: &mut [f64],
        went_on: Vec<usize>,
    ) {
        let mut queued = vec![false; self.n()];
        for &x in &went_on {
            queued[x] = true;
        }
        let mut work = went_on;
        let mut budget = 4 * self.edges.len() + self.n();
        while let Some(x) = work.pop() {
            queued[x] = false;
            if budget == 0 {
                break;
            }
            budget -= 1;
            let step = sweep.rhs(start, x);
            if stop[x] {
                if step >= cap[x] {
                    continue;
                }
                stop[x] = false;
            }
            let fallen = (step + room).min(cap[x]);
            if fallen.is_nan() || fallen >= start[x] * (1.0 - PASS_ON) {
                continue;
            }
            start[x] = fallen;
            for &(y, _) in preds.of(x) {
                if !queued[y as usize] {
                    queued[y as usize] = true;
                    work.push(y as usize);
                }
            }
        }
    }

    /// The start of [`Component::accumulated`] where [`Component::solved_start`]'s fails its
    /// check: the game solved directly in floats as it is, raised by [`ROOM`] of its largest
    /// value times the expected steps under the strategies found. `None` where that solve
    /// fails.
    fn stepped_start(&self, t: &mut TieGame, terms: &[f64]) -> Option<Vec<f64>> {
        // (The edges as they are: a capped start may have stopped some.)
        for ((e, &r), own) in t.game.edges.iter_mut().zip(terms).zip(&self.edges) {
            (e.to, e.konst) = (own.to, r / t.scale);
        }
        let (h, policy) = t.game.solve_directly(&mut t.sys, None).ok()?;
        let h: Vec<f64> = h.iter().map(|h| h * t.scale).collect();
        // Expected steps under the same strategies: a reward of one per node.
        for e in &mut t.game.edges {
            e.konst = 1.0;
        }
        let w = t.game.evaluate(&policy, &mut t.sys).ok()?;
        let top = h.iter().copied().fold(0.0, f64::max);
        let room = ROOM * top + f64::MIN_POSITIVE;
        let start: Vec<f64> = h
            .iter()
            .zip(&w)
            .map(|(&h, &w)| (h * (1.0 + ROOM)).max(0.0) + room * w.max(1.0))
            .collect();
        start.iter().all(|x| x.is_finite()).then_some(start)
    }
}

/// The right-hand sides of the inequalities of [`Component::tie_bound`] for one side's
/// advantages, rounded up.
struct Sweep<'a, N> {
    comp: &'a Component<N>,
    terms: &'a [f64],
    side: Side,
    /// The edges' probabilities, rounded up.
    probs: Vec<f64>,
}

impl<'a, N: Number> Sweep<'a, N> {
    fn new(comp: &'a Component<N>, terms: &'a [f64], side: Side) -> Self {
        let probs = comp
            .edges
            .iter()
            .map(|e| e.prob.to_f64() + Bounded::bound(e.prob.radius()))
            .collect();
        Sweep {
            comp,
            terms,
            side,
            probs,
        }
    }

    /// `h(x)`'s right-hand side, rounded up, where `h` has an extra last entry for the exits
    /// (zero): a sum of `k` terms is off by at most `k` units of the largest partial sum,
    /// which the magnitudes bound.
    fn rhs(&self, h: &[f64], x: usize) -> f64 {
        let c = self.comp;
        let at = |e: &LocalEdge<N>| if e.to == EXIT { c.n() } else { e.to as usize };
        let base = c.start[x] as usize;
        let out = c.out(x);
        let slack = (out.len() as f64 + 2.0) * 2.0 * UNIT;
        match c.kind[x] {
            Kind::Chance => {
                let s: f64 = out
                    .iter()
                    .enumerate()
                    .map(|(i, e)| self.probs[base + i] * h[at(e)])
                    .sum();
                s * (1.0 + slack)
            }
            Kind::Decision(player) => {
                let term = |(i, e): (usize, &LocalEdge<N>)| {
                    let t = self.terms[base + i];
                    let s = t + h[at(e)];
                    s + slack * (t.abs() + h[at(e)])
                };
                let values = out.iter().enumerate().map(term);
                if player == self.side.gainer() {
                    values.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    values.fold(f64::INFINITY, f64::min)
                }
            }
        }
    }
}

/// The game of [`Component::accumulated`] in floats, solved in turn by its starts.
struct TieGame {
    /// The game; its constants are set by each start from the advantages.
    game: Component<f64>,
    /// What the advantages are divided by.
    scale: f64,
    /// The linear system the solves share, with the budget of the component's own solve.
    sys: System<f64>,
}

#[cfg(test)]
mod tests {
    use super::super::{Component, LocalEdge, EXIT};
    use super::{Side, Sweep};
    use crate::backup::Kind;
    use crate::linear::System;
    use crate::{Bounded, Exact, Number, Player, Rat};

    /// A fair random walk on `0..m` that leaves at both ends, where before each step Max
    /// earns one of two rewards that differ by less than a float can tell: `1/3` or
    /// `1/3 + 2^-60`. Decision `2i` takes either into chance node `2i + 1`.
    fn walk<N: Number>(m: usize) -> Component<N> {
        let mut c = Component {
            kind: Vec::new(),
            start: Vec::new(),
            edges: Vec::new(),
            forced: Vec::new(),
        };
        let third = Rat::new(1, 3);
        let more = Rat::new((1 << 60) + 3, 3 << 60);
        let half = || N::from_rat(Rat::new(1, 2));
        for i in 0..m {
            c.kind.push(Kind::Decision(Player::Max));
            c.start.push(c.edges.len() as u32);
            for r in [third, more] {
                c.edges.push(LocalEdge {
                    to: 2 * i as u32 + 1,
                    prob: N::one(),
                    konst: N::from_rat(r),
                });
            }
            c.kind.push(Kind::Chance);
            c.start.push(c.edges.len() as u32);
            let side = |j: Option<usize>| match j.filter(|&j| j < m) {
                Some(j) => 2 * j as u32,
                None => EXIT,
            };
            for to in [side(i.checked_sub(1)), side(Some(i + 1))] {
                c.edges.push(LocalEdge {
                    to,
                    prob: half(),
                    konst: N::zero(),
                });
            }
        }
        c.start.push(c.edges.len() as u32);
        c
    }

    /// The float solve cannot tell the two rewards apart and may take the smaller one; the
    /// bound of what that hides covers the exact optimum at every node, and stays within a
    /// modest multiple of the true distance.
    #[test]
    fn near_ties_on_a_long_walk_are_bounded() {
        let m = 60;
        let float = walk::<Bounded>(m)
            .solve(&mut System::new(0), None)
            .expect("the walk ends");
        let exact = walk::<Exact>(m)
            .solve(&mut System::new(0), None)
            .expect("the walk ends");
        assert!(float.ties > 0.0 && float.ties.is_finite(), "{}", float.ties);
        let mut worst = 0.0f64;
        for (f, e) in float.values.iter().zip(&exact.values) {
            let error = Exact::of_float(f.value).unwrap().sub(e).abs();
            let bound = Bounded::bound(f.radius) + float.ties;
            assert!(
                error <= Exact::of_float(bound).unwrap(),
                "{} vs {}: beyond {bound:e}",
                f.value,
                e.to_f64()
            );
            worst = worst.max(error.to_f64());
        }
        // The exact optimum takes the larger reward at every step: about 2^-60 times the
        // expected steps from the middle (m²/4) above the smaller one's.
        assert!(exact.policy.iter().step_by(2).all(|&m| m == 1));
        let gap = (m * m / 4) as f64 * 2f64.powi(-60);
        assert!(float.ties >= gap, "{:e} below {gap:e}", float.ties);
    }

    /// Max's two moves from node 0 tie exactly (to chance nodes 1 and 2, whose outcomes are
    /// the same, listed in another order), and the play comes back to node 0 a third of the
    /// time; Min at node 3 ends it with 1 or with 1,000. Min's worse move is a loss of 999,
    /// not a gain of Max's: the room per step of the bound's start is relative to Max's own
    /// near ties, so the bound stays at the values' rounding.
    #[test]
    fn a_large_loss_of_the_other_player_leaves_the_tie_bound_small() {
        let third = || Bounded::from_rat(Rat::new(1, 3));
        let edge = |to, prob, konst| LocalEdge { to, prob, konst };
        let (zero, one) = (Bounded::zero, Bounded::one);
        let c = Component {
            kind: vec![
                Kind::Decision(Player::Max),
                Kind::Chance,
                Kind::Chance,
                Kind::Decision(Player::Min),
            ],
            start: vec![0, 2, 4, 6, 8],
            edges: vec![
                edge(1, one(), zero()),
                edge(2, one(), zero()),
                edge(0, third(), third()),
                edge(3, Bounded::from_rat(Rat::new(2, 3)), zero()),
                edge(3, Bounded::from_rat(Rat::new(2, 3)), zero()),
                edge(0, third(), third()),
                edge(EXIT, one(), one()),
                edge(EXIT, one(), Bounded::from_rat(Rat::new(1000, 1))),
            ],
            forced: Vec::new(),
        };
        let float = c.solve(&mut System::new(0), None).expect("the play ends");
        // At node 0, v = (1/3 + v) / 3 + 2/3: v = 7/6.
        assert!((float.values[0].value - 7.0 / 6.0).abs() < 1e-15);
        assert!(float.ties < 1e-13, "{:e}", float.ties);
    }

    /// Each start of the sweeps that check the bound passes its check on its own, from the
    /// room per step (the first start) and from the expected steps (the one after it), and
    /// each bounds what the exact optimum gains at the walk's middle.
    #[test]
    fn both_starts_of_the_tie_bound_pass_their_check() {
        let m = 60;
        let walk = walk::<Bounded>(m);
        let float = walk
            .solve(&mut System::new(0), None)
            .expect("the walk ends");
        let terms = walk
            .advantages(&float.values, &float.policy, Side::Above)
            .expect("the tied moves may gain");
        let mut game = walk.tie_game(&terms, Side::Above).expect("a gain");
        let sweep = Sweep::new(&walk, &terms, Side::Above);
        let gap = (m * m / 4) as f64 * 2f64.powi(-60);
        let first = walk
            .solved_start(&mut game, &sweep, None)
            .expect("a solved start");
        let stepped = walk
            .stepped_start(&mut game, &terms)
            .expect("a stepped start");
        for (name, start) in [("room per step", first), ("expected steps", stepped)] {
            let h = walk
                .settled(&sweep, None, start.clone(), 1)
                .unwrap_or_else(|| panic!("the start from {name} fails its check"));
            assert_eq!(h, start, "the start from {name} needed raising");
            assert!(h[m] >= gap, "{name}: {:e} below {gap:e}", h[m]);
        }
    }
}
