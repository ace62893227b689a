//! A cyclic component in the multi-modular method: its policy certified from a float solve
//! with error bounds, and written into the plan as a [`Block`] whose elimination is replayed
//! modulo every prime.
//!
//! # Why the policy is optimal
//! The component is solved in [`Bounded`] floats, as the engine solves every cycle, with its
//! exits' certified values and bounds as constants. The solve's strategy `μ` comes with a
//! value and a radius for each state: the distance to the exact value of `μ` (or of the
//! optimum, for a component solved by iteration; either serves). Every move's value is
//! computed from these with its own bound, as for a state on no cycle. A move whose bounds
//! put it certainly below `μ`'s (above, for Min) is certainly worse; a move certainly better
//! means the solve is wrong, and the method gives up. Every other move is *near*, and the
//! plan checks that its value under `v_μ` equals `v_μ` modulo every prime, that is, exactly.
//! Then `v_μ` satisfies the optimality equations at every state: no move is better.
//! - With one player, `μ` leaves the component with probability one (the float solve checked
//!   it, and the elimination's pivots would vanish otherwise). For every strategy `μ'` that
//!   ends the play, `v_μ ≥ T_μ' v_μ ≥ … ≥ T_μ'^k v_μ → v_μ'` (for Max; the other way for
//!   Min), so `v_μ` is the optimum among the strategies that end the game: the values this
//!   crate defines, whether or not the model names a loser of endless play (who may only
//!   end the play; the other player, if the one to decide here, cannot keep it going, or the
//!   float solve would have refused the component).
//! - With two players, the component is stopping (the float solve refuses one that is not),
//!   and a stopping game's optimality equations have one solution: the value. Where the model
//!   names a loser of endless play ([`crate::Model::endless_play_loser`]), a cycle through
//!   both players' decisions need not stop, and its equations may have other solutions; the
//!   method gives up there, and rationals solve it.

use rustc_hash::FxHashMap;

use super::tape::Block;
use super::{split_moves, Certifier, GEdge, PlanEdge, U};
use crate::backup::Kind;
use crate::component::{Component, LocalEdge, EXIT};
use crate::explore::Entry;
use crate::linear::System;
use crate::{Bounded, Number, Player, Rat};

/// The most operations a component's elimination may record: this many per edge, and at
/// least [`TAPE_MIN`] (a dense component fills in, and costs the cube of its size).
const TAPE_PER_EDGE: usize = 64;
const TAPE_MIN: usize = 1 << 20;

/// The most operations of elimination the whole plan may hold, about a gigabyte.
pub(super) const TAPE_TOTAL: usize = 1 << 26;

/// A component solved in floats: every node's value and choice, and each member's node.
type Solved = (Vec<Bounded>, Vec<u32>, Vec<u32>);

impl Certifier {
    /// Certifies the cyclic component `members` (their edges are `pending`, from each
    /// member's first edge to the next's and the last's to `end`) and writes its block.
    pub(super) fn finish_cycle(
        &mut self,
        members: &[Entry],
        end: usize,
        pending: &[GEdge],
        dens: (&[u64], &[f64]),
        endless: Option<Player>,
    ) -> Result<(), &'static str> {
        let deciders = |p: Player| members.iter().any(|m| m.kind == Kind::Decision(p));
        if endless.is_some() && deciders(Player::Max) && deciders(Player::Min) {
            return Err("a cycle of both players in a game whose endless play has a loser");
        }
        let n = members.len();
        self.sync_rewards();
        self.finished += n;
        self.last = members[0].id;
        let range = |i: usize| {
            let next = members.get(i + 1).map_or(end, |m| m.edges as usize);
            members[i].edges as usize..next
        };
        let local: FxHashMap<u32, u32> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id, i as u32))
            .collect();
        let (values, choices, first) =
            self.solve_floats(members, &range, &local, pending, dens.0)?;
        for (m, &x) in members.iter().zip(&first) {
            let v = &values[x as usize];
            self.value[m.id as usize] = v.value;
            self.error[m.id as usize] = Bounded::bound(v.radius);
        }
        // Each member's chosen move and its near moves, as ranges of its edges.
        let mut moves = std::mem::take(&mut self.moves);
        let mut chosen = Vec::with_capacity(n);
        let mut near: Vec<(usize, u32, u32, u32)> = Vec::new();
        for (i, m) in members.iter().enumerate() {
            let edges = &pending[range(i)];
            let Kind::Decision(player) = m.kind else {
                chosen.push((0, edges.len() as u32));
                continue;
            };
            split_moves(true, edges, &mut moves);
            let qs: Vec<(f64, f64)> = moves
                .iter()
                .map(|&(lo, hi)| self.q(&edges[lo as usize..hi as usize], dens.1))
                .collect();
            if qs.iter().any(|x| !x.0.is_finite() || !x.1.is_finite()) {
                return Err("float values overflow");
            }
            let best = choices[first[i] as usize] as usize;
            for (j, x) in qs.iter().enumerate() {
                let gap = match player {
                    Player::Max => qs[best].0 - x.0,
                    Player::Min => x.0 - qs[best].0,
                };
                let tolerance = (qs[best].1 + x.1) * (1.0 + 4.0 * U);
                if j == best || gap > tolerance {
                    continue;
                }
                if gap < -tolerance {
                    return Err("a cycle's float strategy is certainly not optimal");
                }
                near.push((i, moves[j].0, moves[j].1, j as u32));
            }
            chosen.push(moves[best]);
        }
        self.moves = moves;
        self.write_block(members, &range, &local, pending, &chosen, &near)
    }

    /// The component in [`Bounded`] floats, built as the engine builds its own (a decision's
    /// random move becomes a chance node after it), and solved: the values and choices of
    /// every node, and each member's node.
    fn solve_floats(
        &self,
        members: &[Entry],
        range: &impl Fn(usize) -> std::ops::Range<usize>,
        local: &FxHashMap<u32, u32>,
        pending: &[GEdge],
        den_keys: &[u64],
    ) -> Result<Solved, &'static str> {
        let plain = |e: &[GEdge]| e.len() == 1 && e[0].pnum == 1 && e[0].pden == 0;
        let mut moves = Vec::new();
        let mut first = Vec::with_capacity(members.len());
        let mut count = 0u32;
        for (i, m) in members.iter().enumerate() {
            first.push(count);
            count += 1;
            if m.kind != Kind::Chance {
                let edges = &pending[range(i)];
                split_moves(true, edges, &mut moves);
                let random = moves
                    .iter()
                    .filter(|&&(lo, hi)| !plain(&edges[lo as usize..hi as usize]));
                count += random.count() as u32;
            }
        }
        let reward = |e: &GEdge| {
            let (num, den) = self.links.rewards.keys[e.reward as usize];
            Bounded::from_rat(Rat::from_raw(num, den))
        };
        let to_local = |e: &GEdge| {
            let prob = Bounded::from_rat(Rat::from_raw(e.pnum as i64, den_keys[e.pden as usize]));
            match local.get(&e.target) {
                Some(&y) => LocalEdge {
                    to: first[y as usize],
                    prob,
                    konst: reward(e),
                },
                None => {
                    let t = e.target as usize;
                    let exit = Bounded {
                        value: self.value[t],
                        radius: self.error[t],
                    };
                    LocalEdge {
                        to: EXIT,
                        prob,
                        konst: reward(e).add(&exit),
                    }
                }
            }
        };
        let mut comp = Component {
            kind: Vec::with_capacity(count as usize),
            start: Vec::with_capacity(count as usize + 1),
            edges: Vec::new(),
            forced: Vec::new(),
        };
        for (i, m) in members.iter().enumerate() {
            if let Some(&mv) = self.forced.get(&m.id) {
                comp.forced.push((first[i], mv));
            }
        }
        let mut random = Vec::new();
        for (i, m) in members.iter().enumerate() {
            comp.kind.push(m.kind);
            comp.start.push(comp.edges.len() as u32);
            let edges = &pending[range(i)];
            if m.kind == Kind::Chance {
                comp.edges.extend(edges.iter().map(to_local));
                continue;
            }
            split_moves(true, edges, &mut moves);
            for &(lo, hi) in &moves {
                let mv = &edges[lo as usize..hi as usize];
                if plain(mv) {
                    comp.edges.push(to_local(&mv[0]));
                } else {
                    comp.edges.push(LocalEdge {
                        to: first[i] + 1 + random.len() as u32,
                        prob: Bounded::one(),
                        konst: Bounded::zero(),
                    });
                    random.push(mv);
                }
            }
            for mv in random.drain(..) {
                comp.kind.push(Kind::Chance);
                comp.start.push(comp.edges.len() as u32);
                comp.edges.extend(mv.iter().map(to_local));
            }
        }
        comp.start.push(comp.edges.len() as u32);
        let solved = comp
            .solve(&mut System::new(0), None)
            .map_err(|_| "a cycle has no value in floats")?;
        Ok((solved.values, solved.policy, first))
    }

    /// Writes the component's block: member `i` is slot `base + i`, the sum over its chosen
    /// move, and each near move a check against it.
    fn write_block(
        &mut self,
        members: &[Entry],
        range: &impl Fn(usize) -> std::ops::Range<usize>,
        local: &FxHashMap<u32, u32>,
        pending: &[GEdge],
        chosen: &[(u32, u32)],
        near: &[(usize, u32, u32, u32)],
    ) -> Result<(), &'static str> {
        // Edges that leave are resolved first: resolving may add steps to the plan, and the
        // block's slots must follow one another. Edges inside keep their local target.
        let mut resolve = |e: &GEdge, out: &mut Vec<(PlanEdge, bool)>| match local.get(&e.target) {
            Some(&y) => out.push((
                PlanEdge {
                    target: y,
                    pden: e.pden,
                    pnum: e.pnum,
                    reward: e.reward,
                },
                true,
            )),
            None => out.push((self.links.resolve(e, &mut self.plan), false)),
        };
        let mut sums: Vec<(PlanEdge, bool)> = Vec::new();
        let mut sum_ends = Vec::with_capacity(members.len());
        for (i, &(lo, hi)) in chosen.iter().enumerate() {
            let edges = &pending[range(i)];
            for e in &edges[lo as usize..hi as usize] {
                resolve(e, &mut sums);
            }
            sum_ends.push(sums.len());
        }
        let mut checks: Vec<(PlanEdge, bool)> = Vec::new();
        let mut check_ends = Vec::with_capacity(near.len());
        for &(i, lo, hi, _) in near {
            let edges = &pending[range(i)];
            for e in &edges[lo as usize..hi as usize] {
                resolve(e, &mut checks);
            }
            check_ends.push(checks.len());
        }
        let plan = &mut self.plan;
        let base = plan.ends.len() as u32;
        let place = |(e, inside): &(PlanEdge, bool)| PlanEdge {
            target: if *inside { base + e.target } else { e.target },
            ..*e
        };
        let mut inner = Vec::new();
        let mut at = 0;
        for (i, &end) in sum_ends.iter().enumerate() {
            for (e, inside) in &sums[at..end] {
                if *inside {
                    let prob = self.probs.id((e.pnum, e.pden));
                    inner.push((i as u32, e.target, prob));
                }
            }
            plan.edges.extend(sums[at..end].iter().map(place));
            plan.ends.push(plan.edges.len() as u32);
            at = end;
        }
        let mut at = 0;
        for (&(i, _, _, m), &end) in near.iter().zip(&check_ends) {
            let start = plan.check_edges.len() as u32;
            plan.check_edges.extend(checks[at..end].iter().map(place));
            let max = members[i].kind == Kind::Decision(Player::Max);
            let check = (base + i as u32, start, plan.check_edges.len() as u32, max);
            plan.checks.push(check);
            plan.check_moves.push((members[i].id, m));
            at = end;
        }
        for (i, m) in members.iter().enumerate() {
            self.links.link[m.id as usize] = (base + i as u32, 0);
        }
        let budget = (TAPE_PER_EDGE * sums.len()).max(TAPE_MIN);
        let block = Block::record(base, members.len(), &inner, budget)
            .ok_or("a cycle fills in too much for elimination")?;
        self.tape += block.work();
        if self.tape > TAPE_TOTAL {
            return Err("the cycles' eliminations need too much memory");
        }
        self.plan.blocks.push(block);
        Ok(())
    }
}
