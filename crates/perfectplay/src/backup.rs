//! The backup kernel: the one definition of how a node's branches make a value, shared by every
//! solve method.
//!
//! A non-terminal state reaches the solvers as a [`Kind`] and a run of [`Edge`]s: a chance node's
//! outcomes, or a decision's moves, where a plain move is one edge of probability one and a
//! random move is a run of edges whose first one is marked [`Edge::first`]. [`back_up_by`] turns
//! such a run and the values of its targets into the state's value and, at a decision, the
//! index of the best move. Exploration ([`crate::explore`]) backs up every state on no cycle
//! with it, and the sweep ([`crate::sweep`]) backs up what its builder cannot; the sweep's
//! builder, which stores no edge, folds the same operations in the same order as the model names
//! the branches (see `sweep::builder`), and the tests hold the two to the same bits.
//!
//! Nothing here knows a state type, a method, or how values are stored.

use crate::{Number, Player, Rat};

/// The chosen-move entry of a state that is not a decision.
pub(crate) const NO_CHOICE: u32 = u32::MAX;

/// The kind of a non-terminal state inside the solvers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Decision(Player),
    Chance,
}

/// A branch as the solvers see it.
#[derive(Clone)]
pub(crate) struct Edge<N> {
    /// The successor's id (its number in a sweep).
    pub target: u32,
    pub prob: N,
    /// The branch's reward plus, for an outcome of a random move, the move's own reward.
    pub reward: N,
    /// Whether this edge starts a move of a decision (every edge of a plain move; the first
    /// outcome of a random move). Unused at chance nodes.
    pub first: bool,
}

/// The probability and reward of a branch's edge: the reward of a random move (from
/// `move_rewards`, its nonzero `(move index, reward)` pairs) goes onto each of its outcomes.
#[inline(always)]
pub(crate) fn edge_numbers<N: Number, S, L>(
    b: &crate::Branch<S, L>,
    move_rewards: &[(u32, Rat)],
) -> (N, N) {
    let mut reward = N::from_rat(b.reward);
    if let Some(&(_, r)) = move_rewards.iter().find(|(g, _)| *g == b.group) {
        reward = reward.add(&N::from_rat(r));
    }
    (N::from_rat(b.probability), reward)
}

/// One Bellman backup of a state that is not on a cycle, from its edges and the final values
/// of their targets: its value, and at a decision the index of the best move (the first of
/// equals), else `NO_CHOICE`.
#[inline]
pub(crate) fn back_up<N: Number>(kind: Kind, edges: &[Edge<N>], values: &[N]) -> (N, u32) {
    back_up_by(kind, edges, |e| e.reward.add(&values[e.target as usize]))
}

/// [`back_up`] with the value of an edge (its reward plus its target's value) given by `q`,
/// for values that are not a slice (a sweep's ring or shared table, a recorded node's own).
#[inline(always)]
pub(crate) fn back_up_by<N: Number>(
    kind: Kind,
    edges: &[Edge<N>],
    q: impl Fn(&Edge<N>) -> N,
) -> (N, u32) {
    match kind {
        Kind::Chance => {
            let mut v = N::zero();
            for e in edges {
                v.add_mul(&e.prob, &q(e));
            }
            (v, NO_CHOICE)
        }
        Kind::Decision(player) => {
            let mut best: Option<N> = None;
            let (mut choice, mut index) = (0, 0);
            let mut i = 0;
            while i < edges.len() {
                // A plain move is one edge of probability one: its value is `r + v`. A
                // random move's outcomes run up to the next edge that starts a move.
                let mut v = q(&edges[i]);
                let mut j = i + 1;
                if j < edges.len() && !edges[j].first {
                    let mut sum = N::zero();
                    sum.add_mul(&edges[i].prob, &v);
                    while j < edges.len() && !edges[j].first {
                        sum.add_mul(&edges[j].prob, &q(&edges[j]));
                        j += 1;
                    }
                    v = sum;
                }
                if consider(player, &mut best, v) {
                    choice = index;
                }
                i = j;
                index += 1;
            }
            (best.expect("a decision has a move"), choice)
        }
    }
}

/// Counts the value `v` of a move at a decision of `player` whose best move so far is `best`
/// (`None` before the first): true when `v` becomes the best (the first of equals stays).
/// Whatever the losing value knows about rounding stays with the winner
/// ([`Number::absorb`]), so that a checked solve never drops a rounding by comparing.
#[inline(always)]
pub(crate) fn consider<N: Number>(player: Player, best: &mut Option<N>, mut v: N) -> bool {
    let better = best.as_ref().is_none_or(|b| player.prefers(&v, b));
    // Numbers that know nothing of rounding (`f64`, `Exact`) do nothing here.
    match best {
        Some(b) if better => v.absorb(b),
        Some(b) => b.absorb(&v),
        None => {}
    }
    if better {
        *best = Some(v);
    }
    better
}

/// The moves of a decision's edges, as ranges: a move starts at an edge marked `first` and
/// runs to the next one.
pub(crate) fn move_ranges<N>(
    edges: &[Edge<N>],
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= edges.len() {
            return None;
        }
        let len = 1 + edges[at + 1..].iter().take_while(|e| !e.first).count();
        at += len;
        Some(at - len..at)
    })
}
