//! Step 3 of the method: the plan run modulo one batch of [`LANES`] primes, one prime per lane
//! of a vector register.

use super::modular::{self, Prime};
use super::{Plan, PlanEdge, LANES};

/// The primes of one batch as lanes: the words and Montgomery constants side by side, so that
/// a loop over the lanes is vector code.
#[derive(Clone, Copy)]
pub(super) struct Lanes {
    p: [u32; LANES],
    neg_inv: [u32; LANES],
    /// One, in Montgomery form.
    pub(super) one: Row,
}

/// A residue per lane.
pub(super) type Row = [u32; LANES];

impl Lanes {
    fn of(primes: &[Prime; LANES]) -> Lanes {
        Lanes {
            p: std::array::from_fn(|l| primes[l].word()),
            neg_inv: std::array::from_fn(|l| primes[l].neg_inv()),
            one: std::array::from_fn(|l| primes[l].enter(1)),
        }
    }

    #[inline(always)]
    pub(super) fn sub(&self, a: &Row, b: &Row) -> Row {
        let mut out = [0; LANES];
        for l in 0..LANES {
            out[l] = modular::add(a[l], self.p[l] - b[l], self.p[l]);
        }
        out
    }

    #[inline(always)]
    pub(super) fn add(&self, a: &Row, b: &Row) -> Row {
        let mut out = [0; LANES];
        for l in 0..LANES {
            out[l] = modular::add(a[l], b[l], self.p[l]);
        }
        out
    }

    /// `t R^{-1}` in every lane, for `t < p 2^32`.
    #[inline(always)]
    fn redc(&self, t: &[u64; LANES]) -> Row {
        let mut out = [0; LANES];
        for l in 0..LANES {
            out[l] = modular::redc(t[l], self.p[l], self.neg_inv[l]);
        }
        out
    }

    /// `acc += redc(t) w`, and `t = 0`: a group of outcomes with one denominator finished.
    #[inline(always)]
    fn flush(&self, acc: &mut Row, t: &mut [u64; LANES], w: &Row) {
        let y = self.mul(&self.redc(t), w);
        *acc = self.add(acc, &y);
        *t = [0; LANES];
    }

    /// The Montgomery product in every lane.
    #[inline(always)]
    pub(super) fn mul(&self, a: &Row, b: &Row) -> Row {
        let mut t = [0u64; LANES];
        for l in 0..LANES {
            t[l] = a[l] as u64 * b[l] as u64;
        }
        self.redc(&t)
    }
}

/// `sum p (r + v)` over `edges` in every lane (Montgomery form), where `rows` holds the
/// values of the edges' targets. Consecutive outcomes with one denominator `d` are summed as
/// `(sum pnum (r + v)) / d`: products of numerators and residues below `p` add up in 64 bits
/// without reduction while the numerators sum to at most 2^32 (so the sum stays below `p 2^32`,
/// as reduction needs), and one reduction and one multiplication by `1/d` finish the group.
/// Every step is the same for all lanes, so the compiler turns each into vector instructions.
#[inline(always)]
fn state_sum(
    lanes: &Lanes,
    primes: &[Prime; LANES],
    edges: &[PlanEdge],
    rows: &[Row],
    w: &[Row],
    rewards: &[Row],
) -> Row {
    const NO_DEN: u32 = u32::MAX;
    /// The most the numerators of one unreduced sum may add up to.
    const MASS: u64 = 1 << 32;
    let mut acc = [0u32; LANES];
    let mut t = [0u64; LANES];
    let (mut den, mut mass) = (NO_DEN, 0u64);
    for (e, row) in edges.iter().zip(rows) {
        let x = lanes.add(row, &rewards[e.reward as usize]);
        if e.plain() {
            acc = lanes.add(&acc, &x);
            continue;
        }
        if den != NO_DEN && (e.pden != den || mass + e.pnum.min(MASS) > MASS) {
            lanes.flush(&mut acc, &mut t, &w[den as usize]);
            den = NO_DEN;
        }
        if den == NO_DEN {
            (den, mass) = (e.pden, 0);
        }
        if e.pnum < MASS {
            for l in 0..LANES {
                t[l] += e.pnum * x[l] as u64;
            }
            mass += e.pnum;
        } else {
            // A numerator of 2^32 or more is reduced per prime first, and finished alone.
            for l in 0..LANES {
                t[l] = primes[l].reduce(e.pnum) as u64 * x[l] as u64;
            }
            mass = MASS;
        }
    }
    if den != NO_DEN {
        lanes.flush(&mut acc, &mut t, &w[den as usize]);
    }
    acc
}

/// Edges whose targets' values are loaded together before any arithmetic, so that the
/// processor has many cache misses in flight at once instead of one per edge.
const GATHER: usize = 32;

/// The memory of one thread's batches, kept from batch to batch.
#[derive(Clone, Default)]
pub(super) struct Scratch {
    /// The value of every slot.
    vals: Vec<Row>,
    /// A block's constants, and its coefficients (see [`super::tape::Block::replay`]).
    consts: Vec<Row>,
    slots: Vec<Row>,
    /// The targets' values of a group of edges.
    rows: Vec<Row>,
}

/// What a batch gives: the residues of the start state modulo each of `LANES` primes, the
/// residues of `Q(a) - v` of every check whose near move differs from its state in some lane
/// (by the check's number), and which lanes hold residues (a lane whose prime made a block's
/// pivot vanish holds none).
pub(super) struct Batch {
    pub(super) root: [u64; LANES],
    pub(super) differ: Vec<(u32, [u64; LANES])>,
    pub(super) valid: [bool; LANES],
}

/// Runs the plan modulo one batch of primes.
pub(super) fn run_batch(plan: &Plan, primes: &[Prime; LANES], scratch: &mut Scratch) -> Batch {
    let n = plan.ends.len();
    let lanes = Lanes::of(primes);
    let Scratch {
        vals,
        consts,
        slots,
        rows: buf,
    } = scratch;
    // Every slot below `n` is written before it is read (targets finish first, and a block
    // zeroes its own slots), so a buffer from an earlier batch is reused as it is; slot `n`
    // is the zero of terminal payoffs.
    vals.resize(n + 1, [0; LANES]);
    vals[n] = [0; LANES];
    // `inv(d) R^2`: times a plain numerator it gives the Montgomery form of the fraction.
    let w: Vec<Row> = plan
        .dens
        .iter()
        .map(|&d| {
            std::array::from_fn(|l| {
                let pr = &primes[l];
                let inv = pr
                    .inverse(d)
                    .expect("primes dividing a denominator are skipped");
                pr.enter(pr.enter(inv))
            })
        })
        .collect();
    let rewards: Vec<Row> = plan
        .rewards
        .iter()
        .map(|&(num, den)| {
            std::array::from_fn(|l| {
                let pr = &primes[l];
                let inv = pr
                    .inverse(den)
                    .expect("primes dividing a denominator are skipped");
                pr.mul(pr.enter(pr.reduce_signed(num)), pr.enter(inv))
            })
        })
        .collect();
    let probs: Vec<Row> = plan
        .probs
        .iter()
        .map(|&(pnum, pden)| {
            let num: Row = std::array::from_fn(|l| primes[l].reduce(pnum));
            lanes.mul(&num, &w[pden as usize])
        })
        .collect();
    let mut valid = [true; LANES];
    let mut blocks = plan.blocks.iter().peekable();
    let (mut k, mut lo) = (0, 0);
    while k < n {
        if let Some(block) = blocks.next_if(|b| b.base as usize == k) {
            // A cyclic component: its constants with its own slots at zero, then its
            // elimination.
            let end = k + block.n as usize;
            vals[k..end].fill([0; LANES]);
            consts.clear();
            for j in k..end {
                let hi = plan.ends[j] as usize;
                let edges = &plan.edges[lo..hi];
                buf.clear();
                buf.extend(edges.iter().map(|e| vals[e.target as usize]));
                consts.push(state_sum(&lanes, primes, edges, buf, &w, &rewards));
                lo = hi;
            }
            block.replay(&lanes, primes, &probs, consts, vals, slots, &mut valid);
            k = end;
            continue;
        }
        let stop = blocks.peek().map_or(n, |b| b.base as usize);
        // A group of whole states with about GATHER edges: the values of targets outside the
        // group are gathered first; those inside are copied in when they are ready.
        let k0 = k;
        while k < stop && plan.ends[k] as usize - lo < GATHER {
            k += 1;
        }
        k = k.max(k0 + 1).min(stop);
        let hi = plan.ends[k - 1] as usize;
        buf.clear();
        buf.extend(plan.edges[lo..hi].iter().map(|e| vals[e.target as usize]));
        let mut at = lo;
        for j in k0..k {
            let end = plan.ends[j] as usize;
            for i in at..end {
                let t = plan.edges[i].target as usize;
                if t >= k0 && t < n {
                    buf[i - lo] = vals[t];
                }
            }
            let (edges, rows) = (&plan.edges[at..end], &buf[at - lo..end - lo]);
            vals[j] = state_sum(&lanes, primes, edges, rows, &w, &rewards);
            at = end;
        }
        lo = hi;
    }
    let mut differ = Vec::new();
    for (c, &(k, lo, hi, _)) in plan.checks.iter().enumerate() {
        let edges = &plan.check_edges[lo as usize..hi as usize];
        buf.clear();
        buf.extend(edges.iter().map(|e| vals[e.target as usize]));
        let q = state_sum(&lanes, primes, edges, buf, &w, &rewards);
        let d = lanes.sub(&q, &vals[k as usize]);
        if (0..LANES).any(|l| valid[l] && d[l] != 0) {
            differ.push((
                c as u32,
                std::array::from_fn(|l| primes[l].leave(d[l]) as u64),
            ));
        }
    }
    let root = &vals[plan.start as usize];
    Batch {
        root: std::array::from_fn(|l| primes[l].leave(root[l]) as u64),
        differ,
        valid,
    }
}
