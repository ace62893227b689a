//! Exact values without big-rational arithmetic: a certified float policy evaluated modulo many
//! primes, and the fraction recovered by rational reconstruction.
//!
//! Exact values of long games are fractions of thousands of digits, and adding such fractions
//! state by state is dominated by their gcds. The value of the start state can be had another
//! way:
//!
//! 1. **Record** the game while the engine explores it ([`Graph`]: each state's edges with
//!    their exact small probabilities and rewards, kept until the engine finishes the state or
//!    closes its cyclic component; successors always finish first).
//! 2. **Certify a policy**, state by state as they finish, with a float pass that carries a
//!    rigorous bound on its rounding error at every state. A move whose float value is worse
//!    than the chosen one by more than both error bounds is certainly worse; any other move is
//!    *near* and is checked exactly in step 3. A cyclic component is solved in
//!    [`crate::Bounded`] floats first, its strategy certified the same way (`cycles.rs` holds
//!    why that suffices). The chosen moves and the near ones are compiled into a [`Plan`] of
//!    straight-line work in finishing order; a cyclic component becomes a block whose
//!    elimination is worked out once on its pattern and replayed modulo every prime
//!    (`tape.rs`).
//! 3. **Evaluate the policy modulo primes**: random primes in `[2^30, 2^31)`, a batch of
//!    [`LANES`] at a time on every core, give the value of every state modulo each prime with
//!    word arithmetic (Montgomery multiplication, one prime per lane of a vector register).
//!    A near move either has exactly the chosen move's value modulo every prime (either choice
//!    then gives the same value), or its difference from the chosen move is reconstructed as a
//!    fraction too and must be in the chosen move's favour. Near moves found better exactly
//!    are handed back ([`Failed::Better`]): the caller records the game again with those moves
//!    forced, a step of strategy iteration with exact comparisons. With more than
//!    [`MAX_DIFFERING`](reconstruct::MAX_DIFFERING) near moves that differ, the method gives
//!    up and the caller falls back to rationals.
//! 4. **Reconstruct**: the residues of the start state are combined (Chinese remainder theorem)
//!    and turned into the unique fraction `a/b` with `|a|, b <= sqrt(M/2)`. A candidate is
//!    accepted only when a whole further round of fresh random primes agrees with it and it
//!    lies within the float error bound of the float value.
//!
//! Soundness: by induction in the order the states were finished, the recorded policy is
//! optimal at every state (each other move is certainly worse, exactly as good, or exactly
//! worse), so its value is the game's value. The only way the answer can be wrong is a wrong
//! candidate agreeing with a round of at least [`LANES`] fresh primes drawn at random: the
//! numerator of the difference of two distinct fractions of `h` bits each has at most `2h`
//! bits, so at most `2h/30` primes of the range divide it, and the range holds about `5 * 10^7`
//! primes. Reconstruction stops at [`MAX_PRIMES`](reconstruct::MAX_PRIMES) primes, so `h` stays
//! below 1.02 million and each fresh prime divides the difference with probability below
//! `1.4 * 10^-3`; all [`LANES`] = 16 of a batch together, below `10^-45`. The same bound
//! covers a near move wrongly taken as equal.

use malachite_q::Rational;
use rustc_hash::FxHashMap;

use crate::backup::{Edge, Kind};
use crate::explore::{Entry, Observer};
use crate::{Branch, Player, Rat, SolveError};

mod batch;
mod cycles;
mod modular;
mod reconstruct;
mod tape;

use tape::Block;

/// Primes evaluated together in one pass over the game (the values of a state for all of them
/// share a cache line, and one vector register holds them).
pub(crate) const LANES: usize = 16;

/// A recorded edge: to `target`, with probability `pnum / dens[pden]` and reward
/// `rewards[reward]` (the branch's reward plus its random move's).
#[derive(Clone, Copy)]
struct GEdge {
    target: u32,
    pden: u32,
    pnum: u64,
    reward: u32,
    /// Whether this edge starts a move (see the engine's edges).
    first: bool,
}

/// Target of the pseudo-edge that carries a terminal's payoff.
const NONE: u32 = u32::MAX;

/// The game as the engine explores it, with exact numbers, certified state by state as the
/// engine finishes them (steps 1 and 2 of the module docs): when a state finishes, every state
/// it leads to has finished before, so its moves are valued in `f64` with error bounds, the
/// policy is chosen, and the state's part of the [`Plan`] is written at once, while its edges
/// are still in cache. Only the edges of states still open are kept.
pub(crate) struct Graph {
    /// Edges of states not finished yet, one for each edge of the engine's arena and at the
    /// same index (the engine finishes a state of an acyclic game only after every state
    /// discovered after it, so a finishing state's edges are the top of the stack).
    pending: Vec<GEdge>,
    den_ids: Interner<u64>,
    /// The denominators as floats.
    dens: Vec<f64>,
    cert: Certifier,
    /// Why the method does not apply to this game, once found.
    unusable: Option<&'static str>,
    /// The player who loses an endless play, if the model names one.
    endless: Option<Player>,
}

/// The certifying pass, fed one finished state at a time (see [`Graph`]).
struct Certifier {
    /// How many states have finished.
    finished: usize,
    /// Float value and error bound of each finished state, by id.
    value: Vec<f64>,
    error: Vec<f64>,
    links: Links,
    /// `links.rewards` as floats (grown as rewards are interned).
    rewards: Vec<f64>,
    plan: Plan,
    /// The id of the last state finished.
    last: u32,
    moves: Vec<(u32, u32)>,
    qs: Vec<(f64, f64)>,
    /// The near moves of the state being finished: their edges' range and their number.
    near: Vec<(u32, u32, u32)>,
    /// Moves the policy must take, by state id: exact corrections of an earlier attempt.
    forced: FxHashMap<u32, u32>,
    scratch: Vec<PlanEdge>,
    /// The operations of elimination the plan's blocks hold so far.
    tape: usize,
    /// The probabilities of the edges inside cycles, `(pnum, pden)`.
    probs: Interner<(u64, u32)>,
}

impl Graph {
    /// An empty recording, for a model whose endless plays are lost by `endless` (if any),
    /// whose policy takes the moves `forced` (state id to move number) where they are given.
    pub(crate) fn new(endless: Option<Player>, forced: FxHashMap<u32, u32>) -> Graph {
        let mut g = Graph {
            pending: Vec::new(),
            den_ids: Interner::default(),
            dens: Vec::new(),
            cert: Certifier {
                finished: 0,
                value: Vec::new(),
                error: Vec::new(),
                links: Links {
                    link: Vec::new(),
                    rewards: Interner::default(),
                },
                rewards: Vec::new(),
                plan: Plan {
                    ends: Vec::new(),
                    edges: Vec::new(),
                    checks: Vec::new(),
                    check_moves: Vec::new(),
                    check_edges: Vec::new(),
                    blocks: Vec::new(),
                    probs: Vec::new(),
                    dens: Vec::new(),
                    rewards: Vec::new(),
                    float: (0.0, 0.0),
                    start: 0,
                },
                last: NONE,
                moves: Vec::new(),
                qs: Vec::new(),
                near: Vec::new(),
                forced,
                scratch: Vec::new(),
                tape: 0,
                probs: Interner::default(),
            },
            unusable: None,
            endless,
        };
        g.den(1);
        g.cert.links.rewards.id((0, 1));
        g
    }

    fn den(&mut self, d: u64) -> u32 {
        let id = self.den_ids.id(d);
        if id as usize == self.dens.len() {
            self.dens.push(d as f64);
        }
        id
    }

    /// A recorded edge, with its denominator and reward interned.
    fn edge_of(&mut self, target: u32, prob: Rat, reward: Rat, first: bool) -> GEdge {
        // A probability beyond 64-bit fractions marks the model unusable (the rational method
        // answers instead); its edge is kept as a certain one meanwhile.
        let (pnum, pden) = match prob.raw() {
            Some((n, d)) if n >= 1 << 61 => {
                self.unusable = Some("a probability's numerator is too large");
                (n, d)
            }
            Some(raw) => raw,
            None => {
                self.unusable = Some("a probability does not fit in a 64-bit fraction");
                (1, 1)
            }
        };
        let pden = self.den(pden);
        let reward = match reward.raw() {
            _ if reward.is_zero() => 0,
            Some(raw) => self.cert.links.rewards.id(raw),
            None => {
                self.unusable = Some("a reward does not fit in a 64-bit fraction");
                0
            }
        };
        GEdge {
            target,
            pden,
            pnum: pnum as u64,
            reward,
            first,
        }
    }

    /// The plan for the start state `root`, once every state has finished.
    fn into_plan(self, root: u32) -> Result<Plan, &'static str> {
        if let Some(why) = self.unusable {
            return Err(why);
        }
        let mut c = self.cert;
        if c.finished != c.value.len() || c.last != root {
            return Err("the recorded game is incomplete");
        }
        let zero = c.plan.ends.len() as u32;
        for e in c.plan.edges.iter_mut().chain(c.plan.check_edges.iter_mut()) {
            if e.target == ZERO {
                e.target = zero;
            }
        }
        c.plan.dens = self.den_ids.keys;
        c.plan.rewards = c.links.rewards.keys;
        c.plan.probs = c.probs.keys;
        c.plan.float = (c.value[root as usize], c.error[root as usize]);
        c.plan.start = c.links.link[root as usize].0;
        Ok(c.plan)
    }
}

/// The engine feeds the recording as it explores; the recording computes its own values, so
/// the engine computes none.
impl Observer for Graph {
    const SOLVES: bool = false;

    /// A state was interned.
    fn state(&mut self) {
        self.cert.value.push(0.0);
        self.cert.error.push(0.0);
        self.cert.links.link.push((ZERO, 0));
    }

    /// A terminal state with its payoff; final at once.
    fn terminal(&mut self, id: u32, payoff: Rat) {
        let e = self.edge_of(NONE, Rat::ONE, payoff, true);
        if let Err(why) = self.cert.finish(id, None, &[e], &self.dens) {
            self.unusable = Some(why);
        }
    }

    /// The state's edges, with their exact numbers (a random move's reward on each outcome).
    fn edges<S, L, N>(
        &mut self,
        branches: &[Branch<S, L>],
        targets: &[Edge<N>],
        move_rewards: &[(u32, Rat)],
    ) {
        for (b, e) in branches.iter().zip(targets) {
            let extra = move_rewards.iter().find(|(g, _)| *g == b.group);
            let reward = match extra {
                None => b.reward,
                Some(&(_, extra)) => b.reward + extra,
            };
            let e = self.edge_of(e.target, b.probability, reward, e.first);
            self.pending.push(e);
        }
    }

    /// Whether a reason was found why the method does not apply: then exploring on is for
    /// nothing.
    fn stop(&self) -> bool {
        self.unusable.is_some()
    }

    /// The engine closed a cyclic component: certifies it and drops its edges.
    fn cycle(&mut self, members: &[Entry], end: usize) {
        let first_edge = members[0].edges as usize;
        if self.unusable.is_none() {
            let dens = (&self.den_ids.keys[..], &self.dens[..]);
            let done = self
                .cert
                .finish_cycle(members, end, &self.pending, dens, self.endless);
            if let Err(why) = done {
                self.unusable = Some(why);
            }
        }
        self.pending.truncate(first_edge);
    }

    /// State `id`, of kind `kind`, is final (a component of its own, on no cycle); its edges
    /// start at `first_edge` of the arena. Certifies it and drops its edges.
    fn finished(&mut self, id: u32, kind: Kind, first_edge: usize) {
        if self.unusable.is_some() {
            return;
        }
        let decision = match kind {
            Kind::Decision(player) => Some(player),
            Kind::Chance => None,
        };
        let edges = &self.pending[first_edge..];
        if let Err(why) = self.cert.finish(id, decision, edges, &self.dens) {
            self.unusable = Some(why);
        }
        self.pending.truncate(first_edge);
    }
}

/// Numbers each distinct key once, in order of first appearance; consecutive equal keys (the
/// common case: the outcomes of one chance node) skip the hash map.
struct Interner<K> {
    ids: FxHashMap<K, u32>,
    keys: Vec<K>,
    last: Option<(K, u32)>,
}

impl<K> Default for Interner<K> {
    fn default() -> Self {
        Interner {
            ids: FxHashMap::default(),
            keys: Vec::new(),
            last: None,
        }
    }
}

impl<K: Copy + Eq + std::hash::Hash> Interner<K> {
    fn id(&mut self, k: K) -> u32 {
        if let Some((last, id)) = self.last {
            if last == k {
                return id;
            }
        }
        let next = self.keys.len() as u32;
        let id = *self.ids.entry(k).or_insert(next);
        if id == next {
            self.keys.push(k);
        }
        self.last = Some((k, id));
        id
    }
}

/// The exact value and how many primes it took.
pub(crate) struct Evaluated {
    pub(crate) value: Rational,
    pub(crate) primes: usize,
}

/// An edge of the policy, ready for modular evaluation: the target is a position in the
/// finishing order (the zero slot `n` for a terminal's payoff).
#[derive(Clone, Copy)]
struct PlanEdge {
    target: u32,
    pden: u32,
    pnum: u64,
    reward: u32,
}

impl PlanEdge {
    /// Probability one with no denominator: the edge of a plain move.
    fn plain(&self) -> bool {
        self.pnum == 1 && self.pden == 0
    }
}

/// The certified policy as straight-line work: state `k` of the finishing order is the sum
/// over `edges[ends[k-1]..ends[k]]`, except in a block (a cyclic component, in the order of
/// their slots), whose slots are solved together; each check `(k, lo, hi, max)` compares the
/// near move `check_edges[lo..hi]` with the value of state `k`, a decision of Max if `max`.
struct Plan {
    ends: Vec<u32>,
    edges: Vec<PlanEdge>,
    checks: Vec<(u32, u32, u32, bool)>,
    /// The state and the move of each check.
    check_moves: Vec<(u32, u32)>,
    check_edges: Vec<PlanEdge>,
    blocks: Vec<Block>,
    /// The probabilities inside blocks, `(pnum, pden)` for `pnum / dens[pden]`.
    probs: Vec<(u64, u32)>,
    dens: Vec<u64>,
    rewards: Vec<(i64, u64)>,
    /// The float value of the start state and its error bound.
    float: (f64, f64),
    /// The start state's slot.
    start: u32,
}

/// Half the distance between adjacent doubles at one: the unit roundoff.
const U: f64 = f64::EPSILON / 2.0;

/// Why an evaluation gave no value.
pub(crate) enum Failed {
    /// The method does not apply, for this reason (the caller then uses rationals).
    Declined(&'static str),
    /// Near moves better than the chosen ones, exactly: `(state id, move number)`. Taking
    /// them, the method may succeed.
    Better(Vec<(u32, u32)>),
    /// The progress report stopped it.
    Stopped(SolveError),
}

impl From<&'static str> for Failed {
    fn from(why: &'static str) -> Failed {
        Failed::Declined(why)
    }
}

/// Steps 3 and 4 of the module docs for the recorded game whose start state is `root`, on
/// `threads` threads; `report` hears the number of primes after every round, and may stop.
pub(crate) fn evaluate(
    g: Graph,
    root: u32,
    threads: usize,
    report: &mut dyn FnMut(usize) -> Result<(), SolveError>,
) -> Result<Evaluated, Failed> {
    let plan = g.into_plan(root)?;
    reconstruct::reconstruct(&plan, threads, report)
}

/// The edges of a finished state split into moves (one range for a chance node or terminal).
fn split_moves(decision: bool, edges: &[GEdge], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let hi = edges.len() as u32;
    if !decision {
        out.push((0, hi));
        return;
    }
    let mut at = 0;
    while at < hi {
        let mut end = at + 1;
        while end < hi && !edges[end as usize].first {
            end += 1;
        }
        out.push((at, end));
        at = end;
    }
}

impl Certifier {
    /// Converts the rewards interned since the last call to floats.
    fn sync_rewards(&mut self) {
        let keys = &self.links.rewards.keys;
        self.rewards.extend(
            keys[self.rewards.len()..]
                .iter()
                .map(|&(a, b)| a as f64 / b as f64),
        );
    }

    /// A move's float value and a bound on its distance to the exact value of the same move
    /// (with exact successor values).
    fn q(&self, edges: &[GEdge], dens: &[f64]) -> (f64, f64) {
        let (mut s, mut mass, mut err) = (0.0, 0.0, 0.0);
        for e in edges {
            let p = e.pnum as f64 / dens[e.pden as usize];
            let r = self.rewards[e.reward as usize];
            // A terminal's payoff edge leads to zero.
            let (v, ev) = if e.target == NONE {
                (0.0, 0.0)
            } else {
                let t = e.target as usize;
                (self.value[t], self.error[t])
            };
            s += p * (r + v);
            mass += p * (r.abs() + v.abs() + ev);
            err += p * ev;
        }
        let k = edges.len() as f64;
        // Rounding of each probability and reward (4u each), of each sum r + v and product,
        // and of the running sum (k u), all relative to `mass`; twice that covers the
        // second-order terms and the rounding of this bound itself.
        let bound = err * (1.0 + 2.0 * (k + 2.0) * U) + 2.0 * (k + 11.0) * U * mass;
        (s, bound)
    }

    /// Values state `id` (every state it leads to is finished), fixes its move, lists the
    /// near moves, and writes its part of the plan.
    fn finish(
        &mut self,
        id: u32,
        decision: Option<Player>,
        edges: &[GEdge],
        dens: &[f64],
    ) -> Result<(), &'static str> {
        self.finished += 1;
        self.last = id;
        self.sync_rewards();
        let mut moves = std::mem::take(&mut self.moves);
        split_moves(decision.is_some(), edges, &mut moves);
        let mut qs = std::mem::take(&mut self.qs);
        qs.clear();
        qs.extend(
            moves
                .iter()
                .map(|&(lo, hi)| self.q(&edges[lo as usize..hi as usize], dens)),
        );
        self.near.clear();
        let best = match decision {
            Some(player) => {
                let mut best = 0;
                for (i, x) in qs.iter().enumerate() {
                    if player.prefers(&x.0, &qs[best].0) {
                        best = i;
                    }
                }
                if let Some(&m) = self.forced.get(&id) {
                    best = (m as usize).min(qs.len() - 1);
                }
                for (i, x) in qs.iter().enumerate() {
                    let gap = match player {
                        Player::Max => qs[best].0 - x.0,
                        Player::Min => x.0 - qs[best].0,
                    };
                    if i != best && gap <= (qs[best].1 + x.1) * (1.0 + 4.0 * U) {
                        self.near.push((moves[i].0, moves[i].1, i as u32));
                    }
                }
                best
            }
            None => 0,
        };
        // Every move's value and bound must be finite for the comparisons above to mean
        // anything (a NaN compares as neither near nor worse).
        if qs.iter().any(|x| !x.0.is_finite() || !x.1.is_finite()) {
            return Err("float values overflow");
        }
        self.value[id as usize] = qs[best].0;
        self.error[id as usize] = qs.iter().map(|x| x.1).fold(0.0, f64::max);
        let (lo, hi) = moves[best];
        let chosen = &edges[lo as usize..hi as usize];
        let plain = chosen.len() == 1 && chosen[0].pnum == 1 && chosen[0].pden == 0;
        // The start state (id 0, finished last) always gets a slot: its value is the answer.
        if plain && self.near.is_empty() && id != 0 {
            let e = self.links.resolve(&chosen[0], &mut self.plan);
            self.links.link[id as usize] = (e.target, e.reward);
        } else {
            // Resolving may add steps (see `Links::resolve`), so this state's slot comes after.
            self.scratch.clear();
            let near = self.near.iter().map(|&(lo, hi, _)| (lo, hi));
            for (lo, hi) in near.chain([moves[best]]) {
                for e in &edges[lo as usize..hi as usize] {
                    let resolved = self.links.resolve(e, &mut self.plan);
                    self.scratch.push(resolved);
                }
            }
            let plan = &mut self.plan;
            let slot = plan.ends.len() as u32;
            let mut at = 0;
            for &(lo, hi, m) in &self.near {
                let start = plan.check_edges.len() as u32;
                let len = (hi - lo) as usize;
                plan.check_edges
                    .extend_from_slice(&self.scratch[at..at + len]);
                at += len;
                let max = decision == Some(Player::Max);
                plan.checks
                    .push((slot, start, plan.check_edges.len() as u32, max));
                plan.check_moves.push((id, m));
            }
            plan.edges.extend_from_slice(&self.scratch[at..]);
            plan.ends.push(plan.edges.len() as u32);
            self.links.link[id as usize] = (slot, 0);
        }
        self.moves = moves;
        self.qs = qs;
        Ok(())
    }
}

/// The zero slot of the plan while it is built (its number is known only at the end).
const ZERO: u32 = u32::MAX;

/// Where edges go while the plan is built. A state whose policy is one plain move (every
/// terminal, every forced or chosen plain move) gets no slot of its own: edges into it go
/// straight on, adding its reward. `link[k]` is where an edge into the finished state `k`
/// goes: its slot (reward zero) or the resolved target and the reward picked up on the way.
struct Links {
    link: Vec<(u32, u32)>,
    rewards: Interner<(i64, u64)>,
}

impl Links {
    /// The plan edge for a recorded edge. When its reward and the rewards skipped on the way
    /// do not add up within 64-bit fractions, the skipped state gets a step after all (a
    /// plain edge computing its value, appended to `plan`; its targets are final already).
    fn resolve(&mut self, e: &GEdge, plan: &mut Plan) -> PlanEdge {
        let edge = |target, reward| PlanEdge {
            target,
            pden: e.pden,
            pnum: e.pnum,
            reward,
        };
        if e.target == NONE {
            return edge(ZERO, e.reward);
        }
        let k = e.target as usize;
        let (t, r) = self.link[k];
        if let Some(sum) = self.add(e.reward, r) {
            return edge(t, sum);
        }
        plan.edges.push(PlanEdge {
            target: t,
            pden: 0,
            pnum: 1,
            reward: r,
        });
        plan.ends.push(plan.edges.len() as u32);
        let slot = plan.ends.len() as u32 - 1;
        self.link[k] = (slot, 0);
        edge(slot, e.reward)
    }

    /// The id of the sum of two rewards, if it fits.
    fn add(&mut self, a: u32, b: u32) -> Option<u32> {
        if a == 0 || b == 0 {
            return Some(a | b);
        }
        let (x, y) = (self.rewards.keys[a as usize], self.rewards.keys[b as usize]);
        let sum = Rat::from_raw(x.0, x.1) + Rat::from_raw(y.0, y.1);
        Some(self.rewards.id(sum.raw()?))
    }
}
