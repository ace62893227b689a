//! The strategies that strategy iteration starts from: a guess that is usually optimal or a
//! step from it (the component's solve in floats, or a few value iteration sweeps), and the
//! strategies that are sure to end the play, for when the guess does not
//! ([`Component::proper_policy`], [`Component::ending_policy`]). Only starts: strategy
//! iteration proves or improves every one, so correctness never rests on a guess.

use super::{
    Component, CycleError, LocalEdge, Preds, DIRECT_WORK_MIN, DIRECT_WORK_PER_EDGE, EXIT,
    FLOAT_START_NODES,
};
use crate::backup::Kind;
use crate::linear::System;
use crate::{Number, Player};

impl<N: Number> Component<N> {
    /// A strategy of `player` that ends the play with probability one whatever the other player
    /// does (the attractor of the exits): a state joins once chance or `player` can move to an
    /// exit or into the set with positive probability, or once every move of the other player
    /// does. Each of `player`'s decisions picks a move one layer closer. A state from which the
    /// other player can keep the play going is [`CycleError::NonStopping`].
    pub(super) fn ending_policy(&self, player: Player) -> Result<Vec<u32>, CycleError> {
        let n = self.n();
        let preds = self.move_preds();
        let mut policy = vec![u32::MAX; n];
        let mut joined = vec![false; n];
        // Per decision of the other player: its moves not yet known to lead into the set.
        let mut left: Vec<usize> = (0..n).map(|x| self.out(x).len()).collect();
        let mut queue = Vec::new();
        // Whether `x` joins now that its move `i` leads into the set (`left` counts it).
        let mut joins = |x: usize, i: usize, left: &mut [usize]| match self.kind[x] {
            Kind::Chance => true,
            Kind::Decision(p) if p == player => {
                policy[x] = i as u32;
                true
            }
            Kind::Decision(_) => {
                left[x] -= 1;
                left[x] == 0
            }
        };
        for x in 0..n {
            let exits: Vec<usize> = (0..self.out(x).len())
                .filter(|&i| self.out(x)[i].to == EXIT)
                .collect();
            for i in exits {
                if !joined[x] && joins(x, i, &mut left) {
                    joined[x] = true;
                    queue.push(x);
                }
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let y = queue[head];
            head += 1;
            for &(x, i) in preds.of(y) {
                let x = x as usize;
                if !joined[x] && joins(x, i as usize, &mut left) {
                    joined[x] = true;
                    queue.push(x);
                }
            }
        }
        match joined.iter().position(|j| !j) {
            Some(x) => Err(CycleError::NonStopping(x)),
            None => Ok(policy),
        }
    }

    /// A policy under which every state leaves the component with probability one, computed as
    /// almost-sure reachability of an exit: repeatedly keep the states that can reach an exit
    /// while staying in the current set, where a chance node qualifies only if all its outcomes
    /// stay in the set. Each decision picks a move one layer closer to an exit.
    pub(super) fn proper_policy(&self) -> Result<Vec<u32>, CycleError> {
        let n = self.n();
        let preds = self.move_preds();
        let mut alive = vec![true; n];
        let mut policy = vec![u32::MAX; n];
        loop {
            let mut reached = vec![false; n];
            let mut queue = Vec::new();
            let allowed = |x: usize, alive: &[bool]| match self.kind[x] {
                Kind::Chance => self
                    .out(x)
                    .iter()
                    .all(|e| e.to == EXIT || alive[e.to as usize]),
                Kind::Decision(_) => true,
            };
            for x in 0..n {
                if !alive[x] || !allowed(x, &alive) {
                    continue;
                }
                if let Some(i) = self.out(x).iter().position(|e| e.to == EXIT) {
                    reached[x] = true;
                    policy[x] = i as u32;
                    queue.push(x);
                }
            }
            let mut head = 0;
            while head < queue.len() {
                let y = queue[head];
                head += 1;
                for &(x, i) in preds.of(y) {
                    let x = x as usize;
                    if reached[x] || !alive[x] || !allowed(x, &alive) {
                        continue;
                    }
                    reached[x] = true;
                    policy[x] = i;
                    queue.push(x);
                }
            }
            if reached == alive {
                break;
            }
            alive = reached;
        }
        if let Some(x) = alive.iter().position(|a| !a) {
            return Err(CycleError::NoTermination(x));
        }
        for x in 0..n {
            if self.kind[x] == Kind::Chance {
                policy[x] = u32::MAX;
            }
        }
        Ok(policy)
    }

    /// For each node, the moves that lead to it inside the component, as `(node, move)`.
    pub(super) fn move_preds(&self) -> Preds<(u32, u32)> {
        let n = self.n();
        Preds::new(
            n,
            (0..n).flat_map(|x| {
                self.out(x)
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.to != EXIT)
                    .map(move |(i, e)| (e.to as usize, (x as u32, i as u32)))
            }),
        )
    }

    /// The component in `f64` with the node kinds `kind` and edge `i`'s constant `konst(i)`
    /// (nothing forced): the float solves that guess a strategy or bound its ties.
    pub(super) fn in_floats(
        &self,
        kind: Vec<Kind>,
        konst: &dyn Fn(usize) -> f64,
    ) -> Component<f64> {
        Component {
            kind,
            start: self.start.clone(),
            edges: self
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| LocalEdge {
                    to: e.to,
                    prob: e.prob.to_f64(),
                    konst: konst(i),
                })
                .collect(),
            forced: Vec::new(),
        }
    }

    /// The edges as `(to, probability, constant)` in `f64`, for the float iterations: an exit
    /// leads to the extra entry `n` of their value vectors, which stays zero.
    pub(super) fn float_edges(&self) -> Vec<(usize, f64, f64)> {
        let n = self.n();
        self.edges
            .iter()
            .map(|e| {
                let to = if e.to == EXIT { n } else { e.to as usize };
                (to, e.prob.to_f64(), e.konst.to_f64())
            })
            .collect()
    }

    /// The policy strategy iteration starts from. In exact arithmetic, for a component of
    /// some size, the one the same solve in `f64` ends with ([`Component::float_policy`]):
    /// usually optimal or a step from it, it saves most of the evaluations in rationals, each
    /// of which costs far more than the whole solve in floats. Otherwise, or where the float
    /// solve gives none, the greedy guess of [`Component::warm_policy`].
    pub(super) fn start_policy(&self, endless: Option<Player>) -> Vec<u32> {
        let mut policy = None;
        if N::EXACT && self.n() >= FLOAT_START_NODES {
            policy = self.float_policy(endless);
        }
        let mut policy = policy.unwrap_or_else(|| self.warm_policy());
        for &(x, m) in &self.forced {
            policy[x as usize] = m;
        }
        policy
    }

    /// The policy of [`Component::solve_directly`] on this component in `f64` (within the
    /// float budget of a direct solve), if it finds one: only a start, which strategy iteration
    /// in exact arithmetic then proves or improves.
    fn float_policy(&self, endless: Option<Player>) -> Option<Vec<u32>> {
        self.float_solve_with(|i| self.edges[i].konst.to_f64(), endless)
    }

    /// The policy of [`Component::solve_directly`] in `f64` on this component with edge
    /// `i`'s constant `konst(i)` (within the float budget of a direct solve), if it finds one.
    pub(super) fn float_solve_with(
        &self,
        konst: impl Fn(usize) -> f64,
        endless: Option<Player>,
    ) -> Option<Vec<u32>> {
        let float = self.in_floats(self.kind.clone(), &konst);
        if float.edges.iter().any(|e| !e.konst.is_finite()) {
            return None;
        }
        let mut sys = System::new(0);
        sys.budget = Some(DIRECT_WORK_MIN.max(DIRECT_WORK_PER_EDGE * float.edges.len() as u64));
        let (_, policy) = float.solve_directly(&mut sys, endless).ok()?;
        Some(policy)
    }

    /// A starting policy for strategy iteration: greedy against a few sweeps of Gauss–Seidel
    /// value iteration in `f64`, from zero. It is only a guess (strategy iteration then proves or
    /// improves it), but a good one saves most of the exact policy evaluations, which are the
    /// expensive part. The sweeps stop early once the values settle, and their number is capped
    /// so the guess never costs more than a few passes over the edges.
    fn warm_policy(&self) -> Vec<u32> {
        const SWEEPS: usize = 64;
        const STABLE: usize = 4;
        let n = self.n();
        let edges = self.float_edges();
        let mut v = vec![0.0f64; n + 1];
        let mut policy = vec![u32::MAX; n];
        let mut stable = 0;
        for sweep in 0..=SWEEPS {
            let last = sweep == SWEEPS;
            let mut change = 0.0f64;
            let mut switched = false;
            let mut scale = 1.0f64;
            // Later-discovered states are usually nearer the exits: sweep them first.
            for x in (0..n).rev() {
                let out = &edges[self.start[x] as usize..self.start[x + 1] as usize];
                let q = |&(to, _, konst): &(usize, f64, f64)| konst + v[to];
                let new = match self.kind[x] {
                    Kind::Chance => out.iter().map(|e| e.1 * q(e)).sum(),
                    Kind::Decision(player) => {
                        // The first best move, as `Player::prefers` decides (with Min's
                        // values negated, one comparison serves both players).
                        let sign = match player {
                            Player::Max => 1.0,
                            Player::Min => -1.0,
                        };
                        let (mut best, mut top) = (0, sign * q(&out[0]));
                        for (i, e) in out.iter().enumerate().skip(1) {
                            let qi = sign * q(e);
                            if qi > top {
                                (best, top) = (i, qi);
                            }
                        }
                        let top = sign * top;
                        switched |= policy[x] != best as u32;
                        policy[x] = best as u32;
                        top
                    }
                };
                if new.is_finite() {
                    // Plain comparisons: both sides are finite, so `f64::max`'s care for NaN
                    // is not needed here, and it costs in this innermost loop.
                    let (step, size) = ((new - v[x]).abs(), new.abs());
                    if step > change {
                        change = step;
                    }
                    if size > scale {
                        scale = size;
                    }
                    v[x] = new;
                }
            }
            stable = if switched { 0 } else { stable + 1 };
            if last || change <= 1e-9 * scale || stable >= STABLE {
                break;
            }
        }
        policy
    }
}
