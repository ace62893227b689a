//! The elimination of a cyclic component's policy, recorded once and replayed modulo every
//! batch of primes.
//!
//! Under a fixed policy the values of a component's `n` states solve `v = c + A v`, where `A`
//! holds the probabilities of the edges that stay inside and `c` everything else (rewards, and
//! the values of the states the component leads to). Which entries the elimination combines
//! depends on where `A` is nonzero, never on its numbers, so the elimination is worked out
//! once on the pattern ([`Block::record`]), in the order [`crate::linear`] would take
//! (smallest cost `indeg · outdeg` first), as a list of operations on numbered *slots*. Every
//! batch of primes then runs the list on residues ([`Block::replay`]), with no search, no hash
//! and no decision.
//!
//! The pivots are `1 - a_xx` after the unknowns eliminated before. For a policy that leaves
//! the component with probability one, `I - A` is a nonsingular M-matrix, and elimination in
//! any order keeps every pivot positive: exactly, a pivot is never zero. Modulo a prime it may
//! be, by chance; that prime's lane is then marked spoilt and its residues are not used.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::batch::{Lanes, Row};
use super::modular::Prime;
use super::LANES;

/// One step of a replay. Slot `x < n` holds unknown `x`'s constant `c_x`; the others hold the
/// entries of `A`, each in a slot of its own for as long as it lives.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    /// `pivot = 1 / (1 - slot)`: the self-loop of the unknown eliminated next.
    Pivot(u32),
    /// `slot *= pivot`.
    Scale(u32),
    /// `t += a b`.
    MulAdd { t: u32, a: u32, b: u32 },
}

/// A cyclic component's policy system as straight-line work on residues (see the module
/// docs). Its unknowns are the plan's slots `base..base + n`.
pub(super) struct Block {
    /// The plan slot of unknown `0`.
    pub(super) base: u32,
    /// The number of unknowns.
    pub(super) n: u32,
    /// The number of slots a replay uses.
    slots: u32,
    /// The edges inside, each added to its slot before the replay: `(slot, prob)` for the
    /// plan's probability `prob`.
    pub(super) inits: Vec<(u32, u32)>,
    pub(super) ops: Vec<Op>,
    /// Back substitution, in order: `v_x = slot x + Σ slot s · v_y` over `terms[lo..hi]`, for
    /// `(x, lo, hi)`; each `y` is computed before `x`.
    back: Vec<(u32, u32, u32)>,
    pub(super) terms: Vec<(u32, u32)>,
}

/// The key of the entry `(x, y)`.
fn key(x: u32, y: u32) -> u64 {
    (x as u64) << 32 | y as u64
}

/// The pattern of `A` while it is eliminated: each row's entries with their slots.
struct Pattern {
    rows: Vec<Vec<(u32, u32)>>,
    slot: FxHashMap<u64, u32>,
    /// `preds[y]` lists (perhaps twice, perhaps stale) the rows that hold `y`.
    preds: Vec<Vec<u32>>,
    /// How many live rows other than `y`'s own hold `y`.
    indeg: Vec<u32>,
    next: u32,
}

impl Pattern {
    /// The slot of entry `(x, y)`, made (as a zero) if there is none yet.
    fn entry(&mut self, x: u32, y: u32) -> u32 {
        if let Some(&s) = self.slot.get(&key(x, y)) {
            return s;
        }
        let s = self.next;
        self.next += 1;
        self.slot.insert(key(x, y), s);
        self.rows[x as usize].push((y, s));
        if x != y {
            self.preds[y as usize].push(x);
            self.indeg[y as usize] += 1;
        }
        s
    }

    /// Takes the entry `(x, y)` out of row `x`, if it is there.
    fn take(&mut self, x: u32, y: u32) -> Option<u32> {
        let s = self.slot.remove(&key(x, y))?;
        let row = &mut self.rows[x as usize];
        let at = row
            .iter()
            .position(|&(z, _)| z == y)
            .expect("a slot is in its row");
        row.swap_remove(at);
        Some(s)
    }

    /// The cost of eliminating `x` now: the products it adds.
    fn cost(&self, x: u32) -> u64 {
        let row = &self.rows[x as usize];
        let looped = row.iter().any(|&(y, _)| y == x);
        self.indeg[x as usize] as u64 * (row.len() - usize::from(looped)) as u64
    }
}

impl Block {
    /// Records the elimination of `n` unknowns whose inside edges are `edges`, each
    /// `(x, y, prob)` for `a_xy += probs[prob]`; `None` when it would take more than `budget`
    /// operations (a dense component fills in).
    pub(super) fn record(
        base: u32,
        n: usize,
        edges: &[(u32, u32, u32)],
        budget: usize,
    ) -> Option<Block> {
        let mut pat = Pattern {
            rows: vec![Vec::new(); n],
            slot: FxHashMap::default(),
            preds: vec![Vec::new(); n],
            indeg: vec![0; n],
            next: n as u32,
        };
        let inits = edges
            .iter()
            .map(|&(x, y, prob)| (pat.entry(x, y), prob))
            .collect();
        let mut ops = Vec::new();
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> =
            (0..n as u32).map(|x| Reverse((pat.cost(x), x))).collect();
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((cost, x))) = heap.pop() {
            if done[x as usize] {
                continue;
            }
            let now = pat.cost(x);
            if now != cost {
                heap.push(Reverse((now, x)));
                continue;
            }
            if let Some(s) = pat.take(x, x) {
                ops.push(Op::Pivot(s));
                ops.push(Op::Scale(x));
                ops.extend(pat.rows[x as usize].iter().map(|&(_, t)| Op::Scale(t)));
            }
            let row = std::mem::take(&mut pat.rows[x as usize]);
            for &(y, _) in &row {
                pat.indeg[y as usize] -= 1;
            }
            for p in std::mem::take(&mut pat.preds[x as usize]) {
                if done[p as usize] {
                    continue;
                }
                let Some(a) = pat.take(p, x) else {
                    continue;
                };
                ops.push(Op::MulAdd { t: p, a, b: x });
                for &(y, b) in &row {
                    let t = pat.entry(p, y);
                    ops.push(Op::MulAdd { t, a, b });
                }
                if ops.len() > budget {
                    return None;
                }
                heap.push(Reverse((pat.cost(p), p)));
            }
            for &(y, _) in &row {
                heap.push(Reverse((pat.cost(y), y)));
            }
            pat.rows[x as usize] = row;
            done[x as usize] = true;
            order.push(x);
        }
        let mut back = Vec::with_capacity(n);
        let mut terms = Vec::new();
        for &x in order.iter().rev() {
            let lo = terms.len() as u32;
            terms.extend_from_slice(&pat.rows[x as usize]);
            back.push((x, lo, terms.len() as u32));
        }
        Some(Block {
            base,
            n: n as u32,
            slots: pat.next,
            inits,
            ops,
            back,
            terms,
        })
    }

    /// The operations a replay runs.
    pub(super) fn work(&self) -> usize {
        self.ops.len() + self.inits.len() + self.terms.len()
    }

    /// Solves the block in every lane: `consts[x]` is unknown `x`'s constant (its sum with
    /// the unknowns at zero), and the values go to `vals[base..base + n]`. `probs` holds the
    /// plan's probabilities in Montgomery form; `slots` is scratch. A lane whose pivot
    /// vanishes modulo its prime is cleared in `valid`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn replay(
        &self,
        lanes: &Lanes,
        primes: &[Prime; LANES],
        probs: &[Row],
        consts: &[Row],
        vals: &mut [Row],
        slots: &mut Vec<Row>,
        valid: &mut [bool; LANES],
    ) {
        let base = self.base as usize;
        slots.clear();
        slots.extend_from_slice(consts);
        slots.resize(self.slots as usize, [0; LANES]);
        for &(s, prob) in &self.inits {
            let s = s as usize;
            slots[s] = lanes.add(&slots[s], &probs[prob as usize]);
        }
        let mut pivot = [0; LANES];
        for op in &self.ops {
            match *op {
                Op::Pivot(s) => {
                    let d = lanes.sub(&lanes.one, &slots[s as usize]);
                    for l in 0..LANES {
                        let plain = primes[l].leave(d[l]);
                        pivot[l] = match primes[l].inverse(plain as u64) {
                            Some(inv) => primes[l].enter(inv),
                            None => {
                                valid[l] = false;
                                0
                            }
                        };
                    }
                }
                Op::Scale(t) => {
                    let t = t as usize;
                    slots[t] = lanes.mul(&slots[t], &pivot);
                }
                Op::MulAdd { t, a, b } => {
                    let y = lanes.mul(&slots[a as usize], &slots[b as usize]);
                    let t = t as usize;
                    slots[t] = lanes.add(&slots[t], &y);
                }
            }
        }
        for &(x, lo, hi) in &self.back {
            let mut v = slots[x as usize];
            for &(y, s) in &self.terms[lo as usize..hi as usize] {
                let y = lanes.mul(&slots[s as usize], &vals[base + y as usize]);
                v = lanes.add(&v, &y);
            }
            vals[base + x as usize] = v;
        }
    }
}
