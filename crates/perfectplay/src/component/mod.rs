//! Solving one strongly connected component that contains a cycle.
//!
//! The component arrives with dense local indices; every edge that leaves it carries the final
//! value of its target folded into a constant. Nothing here knows the user's state type.
//!
//! # Semantics
//! The value of a state is the optimal expected total over strategies under which the game ends
//! with probability one ("proper" strategies, as in stochastic shortest path problems and in
//! PRISM's minimum expected reward):
//! - With one player (or none), a component is first checked to have a proper strategy from
//!   every state (almost-sure reachability of an exit, computed as a nested fixed point). If not,
//!   the value is undefined there: [`CycleError::NoTermination`].
//! - Policy iteration then starts from a proper strategy (the greedy guess of a few value
//!   iteration sweeps when that guess is proper, the reachability strategy otherwise) and switches a move only on a clear
//!   improvement. If an improvement step yields a strategy that no longer ends the game, the
//!   player has found a cycle of positive gain, the value is infinite:
//!   [`CycleError::Divergent`]. (Sketch: if the new strategy has a closed class `C` and
//!   `v ≥ r + P v` holds on it with strict inequality somewhere, summing against the stationary
//!   distribution of `C` gives a negative mean cost, i.e. a gain, per step.) When no move
//!   improves, the values satisfy the optimality equations and `v ≤ T_μ^k v → v_μ` for every
//!   proper `μ`, so they are optimal among proper strategies.
//! - With two players, the component must be *stopping*: no pair of strategies may keep the play
//!   inside it forever ([`CycleError::NonStopping`] otherwise), unless the model names the
//!   player who loses an endless play ([`crate::Model::endless_play_loser`]). That player must
//!   then be able to end the play from every state; Hoffman–Karp runs with that player outside,
//!   from a strategy that ends the play (see [`Component::hoffman_karp`]). Then the value exists and is
//!   unique, and Hoffman–Karp strategy iteration finds it: Max's strategy is fixed, Min's best
//!   response is found by policy iteration, Max improves, until Max cannot improve. Both start from
//!   the greedy guess of a few value iteration sweeps, which is often already optimal, so most
//!   components need one or two exact evaluations. In exact arithmetic a component of some
//!   size starts instead from the policy of the whole solve in floats
//!   ([`Component::start_policy`]): a long random walk takes the sweeps' guess dozens of
//!   evaluations to correct, each far dearer in rationals than the float solve. Its first
//!   improvement steps take the strategy of a float solve of the component shaped by the
//!   exact values instead ([`Component::shaped_policy`]), which tells apart the near moves
//!   whose values differ by parts in 10^20 that the first float solve could not.
//!
//! Every policy is evaluated exactly (up to float rounding) by [`crate::linear`].

mod certified;
mod guess;
mod krylov;
mod krylov_policy;
mod shaped;
mod ties;

use std::borrow::Cow;
use std::ops::Range;

use crate::backup::Kind;
use crate::linear::{System, Unsolved};
use crate::{Number, Player, SolveError};

/// Marks an edge that leaves the component.
pub(crate) const EXIT: u32 = u32::MAX;

/// An edge inside a component: for a chance node the contribution is `prob * (konst + v[to])`,
/// for a decision `konst + v[to]` (`prob` is one); `v[EXIT]` is zero.
#[derive(Clone, Debug)]
pub(crate) struct LocalEdge<N> {
    pub to: u32,
    pub prob: N,
    pub konst: N,
}

/// A component with local indices `0..n`.
#[derive(Default)]
pub(crate) struct Component<N> {
    pub kind: Vec<Kind>,
    /// Edges of state `x` are `edges[start[x]..start[x + 1]]` (a word each: components have
    /// millions of nodes).
    pub start: Vec<u32>,
    pub edges: Vec<LocalEdge<N>>,
    /// Moves the start policy takes, `(node, move)`, whatever the guess: corrections known to
    /// be exact (the multi-modular method's); strategy iteration still proves or improves them.
    pub forced: Vec<(u32, u32)>,
}

/// A solved component: each node's value and, for each decision, the index of the chosen edge.
pub(crate) struct Solved<N> {
    pub values: Vec<N>,
    pub policy: Vec<u32>,
    /// The bound of certified value iteration, which the values' radii include (zero where
    /// the component was solved directly).
    pub bound: f64,
    /// How far the optimum may lie from the values beyond their radii, for what near ties
    /// may hide after a direct solve in floats ([`Component::tie_bound`]); zero in exact
    /// arithmetic and after value iteration.
    pub ties: f64,
    /// The same per node, where it was found node by node (else empty, and `ties` holds for
    /// every node).
    pub ties_at: Vec<f64>,
    /// Whether the component was solved by certified value iteration.
    pub iterated: bool,
}

/// Why a component has no value; the index is a local state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CycleError {
    NoTermination(usize),
    Divergent(usize, Player),
    NonStopping(usize),
    NoConvergence(usize),
    /// A direct solve would cost more than its budget (internal: `solve` then iterates).
    TooCostly,
}

/// The budget of a direct solve in floats, in multiply-adds of elimination: this many per edge
/// of the component, and at least [`DIRECT_WORK_MIN`]. A component that needs more (a dense
/// one of many states: elimination costs the cube of its size) is solved by certified value
/// iteration instead ([`Component::iterate`]).
const DIRECT_WORK_PER_EDGE: u64 = 8;
const DIRECT_WORK_MIN: u64 = 1 << 22;

/// A component of at least this many nodes starts strategy iteration in exact arithmetic from
/// the policy of its solve in floats ([`Component::start_policy`]).
const FLOAT_START_NODES: usize = 64;

/// A component of at least this many nodes, with at least [`DENSE_DEGREE`] edges per node on
/// average, is solved by iteration from the start in floats.
const DENSE_NODES: usize = 1024;
const DENSE_DEGREE: usize = 32;

/// A safeguard against a policy iteration that does not stop (exact policy iteration always
/// stops; this would signal a bug, and is reported rather than hung on).
const MAX_ITERATIONS: usize = 1_000_000;

/// How many times exact policy iteration takes its next policy from the shaped float solve
/// ([`Component::shaped_policy`]) before it goes on by plain improvement steps.
const SHAPED_GUESSES: usize = 2;

/// Components of at least this many nodes look ahead between the exact evaluations of policy
/// iteration ([`Component::look_ahead`]); smaller ones are cheap to evaluate exactly.
const LOOK_AHEAD_NODES: usize = 1024;

/// In exact arithmetic, a component of at least this many nodes computes the values of its
/// chance nodes outside the linear system, and its improvement steps, on
/// [`System::threads`] threads: each is a big-rational sum or comparison per node, and the
/// nodes are independent.
const PARALLEL_NODES: usize = 1 << 14;

impl<N: Number> Component<N> {
    fn n(&self) -> usize {
        self.kind.len()
    }

    pub(crate) fn out(&self, x: usize) -> &[LocalEdge<N>] {
        &self.edges[self.start[x] as usize..self.start[x + 1] as usize]
    }

    /// The edges `policy` uses at `x`: the chosen move of a decision, every outcome of chance.
    fn used(&self, policy: &[u32], x: usize) -> &[LocalEdge<N>] {
        let out = self.out(x);
        match self.kind[x] {
            Kind::Decision(_) => std::slice::from_ref(&out[policy[x] as usize]),
            Kind::Chance => out,
        }
    }

    /// The error a solve's `err` is, with local node `x` named `name(x)`.
    pub fn error(&self, err: CycleError, name: impl Fn(usize) -> String) -> SolveError {
        let who = |p: Player| match p {
            Player::Max => "Max".to_string(),
            Player::Min => "Min".to_string(),
        };
        match err {
            CycleError::NoTermination(x) => SolveError::NoTermination {
                state: name(x),
                controller: self
                    .kind
                    .iter()
                    .find_map(|k| match k {
                        Kind::Decision(p) => Some(who(*p)),
                        Kind::Chance => None,
                    })
                    .unwrap_or_else(|| "chance".to_string()),
            },
            CycleError::Divergent(x, p) => SolveError::Divergent {
                state: name(x),
                player: who(p),
            },
            CycleError::NonStopping(x) => SolveError::NonStopping { state: name(x) },
            CycleError::NoConvergence(x) => SolveError::NoConvergence { state: name(x) },
            CycleError::TooCostly => unreachable!("a component solves on after its budget"),
        }
    }

    /// Solves the component. `sys` is scratch space for the linear solves, reused from
    /// component to component. `endless` is the model's
    /// [`endless_play_loser`](crate::Model::endless_play_loser).
    pub fn solve(
        &self,
        sys: &mut System<N>,
        endless: Option<Player>,
    ) -> Result<Solved<N>, CycleError> {
        let approximate = !N::EXACT && N::from_f64(0.0).is_some();
        // A large component whose nodes have many edges each is dense: elimination would cost
        // about the cube of its size, and merely setting up its system costs more than
        // iterating. It goes straight to iteration.
        let dense = self.n() >= DENSE_NODES && self.edges.len() >= DENSE_DEGREE * self.n();
        if approximate && dense && self.trap(None).is_none() {
            if let Some(solved) = self.iterate() {
                return Ok(solved);
            }
        }
        sys.budget = approximate
            .then(|| DIRECT_WORK_MIN.max(DIRECT_WORK_PER_EDGE * self.edges.len() as u64));
        let direct = self.solve_directly(sys, endless);
        sys.budget = None;
        match direct {
            Ok((v, policy)) if approximate => Ok(self.near_ties(v, policy, sys)),
            Ok((values, policy)) => Ok(Solved {
                values,
                policy,
                bound: 0.0,
                ties: 0.0,
                ties_at: Vec::new(),
                iterated: false,
            }),
            // Iteration needs the one fixed point of a component that every pair of strategies
            // leaves.
            Err(CycleError::TooCostly) => {
                match self.trap(None).map_or_else(|| self.iterate(), |_| None) {
                    Some(solved) => Ok(solved),
                    None => {
                        let (v, policy) = self.solve_directly(sys, endless)?;
                        Ok(self.near_ties(v, policy, sys))
                    }
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The values of `policy` from a direct solve in floats, with the bound of what near ties
    /// may hide ([`Component::tie_bound`]): infinite where none is found. The values are not
    /// widened by it: wider values would leave later components unable to tell their moves
    /// apart, and their answers worse; the solve adds the bound to its own instead.
    ///
    /// The tie bound solves a game as large as this component, so a large component's system
    /// `sys` gives its memory back first.
    fn near_ties(&self, values: Vec<N>, policy: Vec<u32>, sys: &mut System<N>) -> Solved<N> {
        if self.n() >= LOOK_AHEAD_NODES {
            sys.release();
        }
        let ties_at = self.tie_bound(&values, &policy).unwrap_or_default();
        let ties = match ties_at.is_empty() {
            true => f64::INFINITY,
            false => ties_at.iter().copied().fold(0.0, f64::max),
        };
        Solved {
            values,
            policy,
            bound: 0.0,
            ties,
            ties_at,
            iterated: false,
        }
    }

    /// [`Component::solve`] by policy or strategy iteration with direct linear solves.
    fn solve_directly(
        &self,
        sys: &mut System<N>,
        endless: Option<Player>,
    ) -> Result<(Vec<N>, Vec<u32>), CycleError> {
        self.solve_directly_from(sys, endless, None)
    }

    /// [`Component::solve_directly`], its iteration started from `start` where given (a
    /// move per node, such as the strategies of a solve of a game that differs a little)
    /// rather than from [`Component::start_policy`]'s guess. The start is only a start: the
    /// answer is the same.
    fn solve_directly_from(
        &self,
        sys: &mut System<N>,
        endless: Option<Player>,
        mut start: Option<Vec<u32>>,
    ) -> Result<(Vec<N>, Vec<u32>), CycleError> {
        let mut start_policy = || match start.take() {
            Some(mut policy) => {
                for &(x, m) in &self.forced {
                    policy[x as usize] = m;
                }
                policy
            }
            None => self.start_policy(endless),
        };
        let has = |p: Player| self.kind.contains(&Kind::Decision(p));
        if let Some(loser) = endless.filter(|_| has(Player::Max) || has(Player::Min)) {
            // The loser must be able to end the play from everywhere; then every strategy of
            // the loser's that does so leaves the other player only ending strategies.
            let ending = self.ending_policy(loser)?;
            if has(Player::Max) && has(Player::Min) {
                let mut policy = start_policy();
                if self.trap(Some((loser, &policy))).is_some() {
                    for x in 0..self.n() {
                        if self.kind[x] == Kind::Decision(loser) {
                            policy[x] = ending[x];
                        }
                    }
                }
                return self.hoffman_karp(loser, policy, true, sys);
            }
        }
        if has(Player::Max) && has(Player::Min) {
            if let Some(x) = self.trap(None) {
                return Err(CycleError::NonStopping(x));
            }
            // In a stopping game every strategy pair is proper, so any start will do.
            return self.hoffman_karp(Player::Max, start_policy(), false, sys);
        }
        let controller = [Player::Max, Player::Min].into_iter().find(|p| has(*p));
        let mut policy = match controller {
            Some(_) => {
                let warm = start_policy();
                match self.trapped(&warm) {
                    None => warm,
                    Some(_) => self.proper_policy()?,
                }
            }
            None => self.proper_policy()?,
        };
        let may_trap = self.trap(None).is_some();
        let v = self.policy_iteration(&mut policy, controller, may_trap, sys)?;
        Ok((v, policy))
    }

    /// A state from which the players together can keep the play inside the component forever
    /// with probability one, if any: the greatest set in which every chance node has all its
    /// outcomes inside and every decision has a move inside. With `fixed = Some((p, policy))`,
    /// `p` follows `policy` (its decisions count only their chosen move): a state from which
    /// the other player alone can keep the play going.
    fn trap(&self, fixed: Option<(Player, &[u32])>) -> Option<usize> {
        // Worklist removal, linear in the edges: a chance node leaves the set as soon as one
        // outcome does, a decision when its last move into the set does.
        let n = self.n();
        let out = |x: usize| match (fixed, self.kind[x]) {
            (Some((p, policy)), Kind::Decision(q)) if p == q => {
                std::slice::from_ref(&self.out(x)[policy[x] as usize])
            }
            _ => self.out(x),
        };
        let preds = Preds::new(
            n,
            (0..n).flat_map(|x| {
                out(x)
                    .iter()
                    .filter(|e| e.to != EXIT)
                    .map(move |e| (e.to as usize, x as u32))
            }),
        );
        let mut moves_inside = vec![0usize; n];
        let mut inside = vec![true; n];
        let mut removed = Vec::new();
        for x in 0..n {
            let out = out(x);
            moves_inside[x] = out.iter().filter(|e| e.to != EXIT).count();
            let keep = match self.kind[x] {
                Kind::Chance => moves_inside[x] == out.len(),
                Kind::Decision(_) => moves_inside[x] > 0,
            };
            if !keep {
                inside[x] = false;
                removed.push(x);
            }
        }
        while let Some(y) = removed.pop() {
            for &x in preds.of(y) {
                let x = x as usize;
                if !inside[x] {
                    continue;
                }
                moves_inside[x] -= 1;
                if self.kind[x] == Kind::Chance || moves_inside[x] == 0 {
                    inside[x] = false;
                    removed.push(x);
                }
            }
        }
        inside.iter().position(|&b| b)
    }

    /// The value of following `policy` (an edge index per decision).
    ///
    /// A chance node that the policy reaches from nowhere, or only by the chosen move of one
    /// decision (the node of a random move), stays out of the linear system: that decision
    /// takes its row, and its value follows from the solution by one backup. This halves the
    /// system of a game whose moves are random (a roll of the dice), and the values are the
    /// same.
    fn evaluate(&self, policy: &[u32], sys: &mut System<N>) -> Result<Vec<N>, CycleError> {
        let n = self.n();
        // How often each node is reached by the policy, and whether by a decision.
        let mut refs = vec![0u32; n];
        let mut by_decision = vec![false; n];
        for x in 0..n {
            for e in self.used(policy, x) {
                if e.to != EXIT {
                    refs[e.to as usize] += 1;
                    by_decision[e.to as usize] |= self.kind[x] != Kind::Chance;
                }
            }
        }
        let folded: Vec<bool> = (0..n)
            .map(|y| {
                self.kind[y] == Kind::Chance && (refs[y] == 0 || (refs[y] == 1 && by_decision[y]))
            })
            .collect();
        // Gone before the solve, whose memory is the peak of a large component.
        drop((refs, by_decision));
        let folded_at = |y: usize| folded[y];
        // Unknowns of the system, and where each node is among them.
        let mut index = vec![u32::MAX; n];
        let mut unknowns: Vec<u32> = Vec::with_capacity(n);
        for x in 0..n {
            if !folded_at(x) {
                index[x] = unknowns.len() as u32;
                unknowns.push(x as u32);
            }
        }
        sys.reset_stochastic(unknowns.len());
        // Adds the row of chance node `y` to unknown `i`; returns its constant.
        let chance_row = |sys: &mut System<N>, i: usize, y: usize| {
            let mut c = N::zero();
            for e in self.out(y) {
                c.add_mul(&e.prob, &e.konst);
                if e.to == EXIT {
                    sys.add_exit(i, &e.prob);
                } else {
                    sys.add(i, index[e.to as usize], e.prob.clone());
                }
            }
            c
        };
        for (i, &x) in unknowns.iter().enumerate() {
            let x = x as usize;
            sys.c[i] = match self.kind[x] {
                Kind::Chance => chance_row(sys, i, x),
                Kind::Decision(_) => {
                    let e = &self.out(x)[policy[x] as usize];
                    if e.to == EXIT {
                        sys.add_exit(i, &N::one());
                        e.konst.clone()
                    } else if folded_at(e.to as usize) {
                        e.konst.add(&chance_row(sys, i, e.to as usize))
                    } else {
                        sys.add(i, index[e.to as usize], N::one());
                        e.konst.clone()
                    }
                }
            };
        }
        drop(index);
        let solved = sys.solve().map_err(|e| match e {
            Unsolved::Pivot(i) => CycleError::NoTermination(unknowns[i] as usize),
            Unsolved::OverBudget => CycleError::TooCostly,
        })?;
        let mut v = vec![N::zero(); n];
        for (&x, value) in unknowns.iter().zip(solved) {
            v[x as usize] = value;
        }
        // A folded node leads only to unknowns (a node it reaches has a chance predecessor: it).
        let folded: Vec<u32> = (0..n as u32).filter(|&y| folded[y as usize]).collect();
        let values = Self::on_threads(sys.threads, folded.len(), |part| {
            let value = |&y: &u32| {
                let mut value = N::zero();
                let out = self.out(y as usize).iter();
                value.add_products(out.map(|e| (&e.prob, Self::q_cow(e, &v))));
                value
            };
            folded[part].iter().map(value).collect::<Vec<N>>()
        });
        for (&y, value) in folded.iter().zip(values.into_iter().flatten()) {
            v[y as usize] = value;
        }
        Ok(v)
    }

    /// `work` of consecutive ranges that cover `0..len`, in order: on up to `threads` threads
    /// in exact arithmetic when `len` is [`PARALLEL_NODES`] or more, else at once on this one.
    fn on_threads<R: Send>(
        threads: usize,
        len: usize,
        work: impl Fn(Range<usize>) -> R + Sync,
    ) -> Vec<R> {
        let threads = match N::EXACT && len >= PARALLEL_NODES {
            true => threads.max(1),
            false => 1,
        };
        if len == 0 {
            return Vec::new();
        }
        let size = len.div_ceil(threads);
        let work = &work;
        let jobs = (0..len.div_ceil(size))
            .map(|k| move || work(k * size..len.min((k + 1) * size)))
            .collect();
        crate::memory::on_threads(jobs)
    }

    /// [`Self::q`], borrowed where it is a value or a constant alone.
    fn q_cow<'a>(e: &'a LocalEdge<N>, v: &'a [N]) -> Cow<'a, N> {
        if e.to == EXIT {
            Cow::Borrowed(&e.konst)
        } else if e.konst == N::zero() {
            Cow::Borrowed(&v[e.to as usize])
        } else {
            Cow::Owned(e.konst.add(&v[e.to as usize]))
        }
    }

    fn q(e: &LocalEdge<N>, v: &[N]) -> N {
        if e.to == EXIT {
            e.konst.clone()
        } else {
            e.konst.add(&v[e.to as usize])
        }
    }

    /// Switches the moves of `player` that clearly improve on the current one against `v`;
    /// returns whether anything changed. Among clearly better moves the best one wins, the
    /// first in model order on ties.
    fn improve(&self, v: &[N], policy: &mut [u32], player: Player, threads: usize) -> bool {
        let switches = Self::on_threads(threads, self.n(), |part| {
            let mut switches = Vec::new();
            for x in part {
                if self.kind[x] != Kind::Decision(player) {
                    continue;
                }
                let out = self.out(x);
                let current = Self::q_cow(&out[policy[x] as usize], v);
                let mut best: Option<(u32, Cow<N>)> = None;
                for (i, e) in out.iter().enumerate() {
                    let q = Self::q_cow(e, v);
                    let better_than_current = match player {
                        Player::Max => N::clearly_better(&q, &current),
                        Player::Min => N::clearly_better(&current, &q),
                    };
                    if better_than_current
                        && best.as_ref().is_none_or(|(_, b)| player.prefers(&q, b))
                    {
                        best = Some((i as u32, q));
                    }
                }
                if let Some((i, _)) = best {
                    switches.push((x, i));
                }
            }
            switches
        });
        let mut changed = false;
        for (x, i) in switches.into_iter().flatten() {
            policy[x] = i;
            changed = true;
        }
        changed
    }

    /// A state that does not leave the component under `policy`, if any.
    fn trapped(&self, policy: &[u32]) -> Option<usize> {
        let n = self.n();
        let used = |x: usize| self.used(policy, x);
        let preds = Preds::new(
            n,
            (0..n).flat_map(|x| {
                used(x)
                    .iter()
                    .filter(|e| e.to != EXIT)
                    .map(move |e| (e.to as usize, x as u32))
            }),
        );
        let mut queue = Vec::new();
        let mut leaves = vec![false; n];
        for x in 0..n {
            if used(x).iter().any(|e| e.to == EXIT) {
                leaves[x] = true;
                queue.push(x);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let y = queue[head];
            head += 1;
            for &x in preds.of(y) {
                if !leaves[x as usize] {
                    leaves[x as usize] = true;
                    queue.push(x as usize);
                }
            }
        }
        leaves.iter().position(|l| !l)
    }

    /// Policy iteration for `player` from a proper `policy`; decisions of the other player (if
    /// any) stay as they are.
    ///
    /// `may_trap` says whether an improved policy could keep the play inside for ever (a
    /// positive-gain cycle: [`CycleError::Divergent`]); it cannot where every strategy ends the
    /// play, and then the check is skipped.
    fn policy_iteration(
        &self,
        policy: &mut [u32],
        player: Option<Player>,
        may_trap: bool,
        sys: &mut System<N>,
    ) -> Result<Vec<N>, CycleError> {
        // Look ahead between exact evaluations (floats only; see `look_ahead`) for as long as
        // it helps: the exact values of successive policies must improve somewhere and get
        // worse nowhere (policy iteration's own progress), else plain policy iteration goes on
        // from there, and its strict improvements end it.
        let mut looking_ahead = !N::EXACT && self.n() >= LOOK_AHEAD_NODES;
        let mut last: Option<Vec<N>> = None;
        // In exact arithmetic, the first steps guess from the shaped float solve instead
        // (`shaped.rs`); a bounded number of them, so that policy iteration's own progress
        // ends the loop.
        let mut shaped = match N::EXACT && self.n() >= FLOAT_START_NODES {
            true => SHAPED_GUESSES,
            false => 0,
        };
        for _ in 0..MAX_ITERATIONS {
            let v = self.evaluate(policy, sys)?;
            let Some(player) = player else {
                return Ok(v);
            };
            let evaluated = (shaped > 0).then(|| policy.to_vec());
            if let Some(last) = last.as_ref().filter(|_| looking_ahead) {
                let better = |a: &N, b: &N| match player {
                    Player::Max => N::clearly_better(a, b),
                    Player::Min => N::clearly_better(b, a),
                };
                let n = self.n();
                looking_ahead = (0..n).any(|x| better(&v[x], &last[x]))
                    && !(0..n).any(|x| better(&last[x], &v[x]));
            }
            if !self.improve(&v, policy, player, sys.threads) {
                return Ok(v);
            }
            if let Some(x) = may_trap.then(|| self.trapped(policy)).flatten() {
                return Err(CycleError::Divergent(x, player));
            }
            if let Some(evaluated) = evaluated {
                shaped -= 1;
                let guess = self.shaped_policy(&v, &evaluated, player, sys.threads);
                if let Some(guess) = guess.filter(|g| !self.traps(may_trap, g)) {
                    policy.copy_from_slice(&guess);
                }
            }
            if looking_ahead {
                let improved = policy.to_vec();
                self.look_ahead(&v, policy, player);
                if self.traps(may_trap, policy) {
                    policy.copy_from_slice(&improved);
                    looking_ahead = false;
                }
                last = Some(v);
            }
        }
        Err(CycleError::NoConvergence(0))
    }

    /// Whether `policy` may keep the play inside for ever, where that is possible at all: a
    /// guess that does is dropped (it proves nothing).
    fn traps(&self, may_trap: bool, policy: &[u32]) -> bool {
        may_trap && self.trapped(policy).is_some()
    }

    /// Modified policy iteration's look-ahead, in floats: from the exact values `v` of the last
    /// policy and the improved `policy`, a few rounds of Gauss–Seidel sweeps of the policy's own
    /// equations, each followed by the improvement step of policy iteration. Where a change
    /// has to travel far through the component (a long random walk), plain policy iteration
    /// moves it a step per exact evaluation; the sweeps carry it further at a fraction of the
    /// cost. Only a guess: the next exact evaluation and improvement decide, as before.
    fn look_ahead(&self, v: &[N], policy: &mut [u32], player: Player) {
        const ROUNDS: usize = 8;
        const SWEEPS: usize = 4;
        // In plain `f64` whatever the number type: a guess needs no bound on its rounding.
        let n = self.n();
        let edges = self.float_edges();
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        let mut w: Vec<f64> = v.iter().map(N::to_f64).chain([0.0]).collect();
        let q = |w: &[f64], &(to, _, konst): &(usize, f64, f64)| konst + w[to];
        for _ in 0..ROUNDS {
            for _ in 0..SWEEPS {
                for x in (0..n).rev() {
                    w[x] = match self.kind[x] {
                        Kind::Chance => out(x).iter().map(|e| e.1 * q(&w, e)).sum(),
                        Kind::Decision(_) => q(&w, &out(x)[policy[x] as usize]),
                    };
                }
            }
            // The improvement step of `improve`, on these floats.
            let mut changed = false;
            for x in 0..n {
                if self.kind[x] != Kind::Decision(player) {
                    continue;
                }
                let sign = match player {
                    Player::Max => 1.0,
                    Player::Min => -1.0,
                };
                let moves = out(x);
                let current = sign * q(&w, &moves[policy[x] as usize]);
                let mut best: Option<(u32, f64)> = None;
                for (i, e) in moves.iter().enumerate() {
                    let qi = sign * q(&w, e);
                    if f64::clearly_better(&qi, &current) && best.is_none_or(|(_, b)| qi > b) {
                        best = Some((i as u32, qi));
                    }
                }
                if let Some((i, _)) = best {
                    policy[x] = i;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Hoffman–Karp strategy iteration from `policy`: `outer`'s strategy is fixed, the other
    /// player's best response is found by policy iteration, `outer` improves, until `outer`
    /// cannot improve.
    ///
    /// Either the component is stopping, or (`ending`) `outer` is the player who loses an
    /// endless play and `policy` ends the play against everything the other player does. An
    /// improvement keeps that: on a closed class of the improved strategy pair, summing the
    /// inequalities of the values against its stationary distribution shows a positive gain
    /// per step for `outer` if a switched state is in it, and a switch-free class would have
    /// been closed before. So a strategy that stops ending the play means `outer` has found a
    /// cycle that gains without bound: [`CycleError::Divergent`].
    fn hoffman_karp(
        &self,
        outer: Player,
        mut policy: Vec<u32>,
        ending: bool,
        sys: &mut System<N>,
    ) -> Result<(Vec<N>, Vec<u32>), CycleError> {
        for _ in 0..MAX_ITERATIONS {
            // The outer strategy ends the play (or the game is stopping): the inner player's
            // policies all do.
            let v = self.policy_iteration(&mut policy, Some(outer.other()), false, sys)?;
            if !self.improve(&v, &mut policy, outer, sys.threads) {
                return Ok((v, policy));
            }
            if ending {
                if let Some(x) = self.trap(Some((outer, &policy))) {
                    return Err(CycleError::Divergent(x, outer));
                }
            }
        }
        Err(CycleError::NoConvergence(0))
    }
}

/// Predecessor lists of a component in one allocation (the lists were a vector per node, and
/// components are solved by the thousand): `of(y)` is what was listed for `y`, in order.
struct Preds<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy + Default> Preds<T> {
    /// The lists of `n` nodes from `(node, item)` pairs, which are walked twice.
    fn new(n: usize, pairs: impl Iterator<Item = (usize, T)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (y, _) in pairs.clone() {
            start[y + 1] += 1;
        }
        for y in 0..n {
            start[y + 1] += start[y];
        }
        let mut fill = start.clone();
        let mut items = vec![T::default(); start[n] as usize];
        for (y, item) in pairs {
            items[fill[y] as usize] = item;
            fill[y] += 1;
        }
        Preds { start, items }
    }

    fn of(&self, y: usize) -> &[T] {
        &self.items[self.start[y] as usize..self.start[y + 1] as usize]
    }
}
