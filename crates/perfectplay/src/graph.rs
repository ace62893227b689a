//! A game handed over as a graph of numbered nodes, solved in floats with a certified bound on
//! every value: for engines that hold a game in a form of their own rather than as a
//! [`Model`](crate::Model). The solve across processes gathers here the part of its game that
//! its interval iteration cannot close (a long walk that iteration crosses in exponentially many
//! rounds, solved directly in one).
//!
//! The graph is solved component by strongly connected component, each after those it leads
//! to, by the method and with the semantics of a model's components (see [`crate::Solver`]): policy iteration (Hoffman–Karp for two players)
//! with direct sparse solves in [`Bounded`] floats, or certified value iteration where
//! elimination would cost too much. Each node's value comes with a bound on its distance to the
//! exact value of the graph as given: the radii of its numbers, every rounding, and what near
//! ties between moves may hide.
//!
//! ```
//! use perfectplay::graph::{Graph, Outcome, Target};
//! use perfectplay::Bounded;
//! // A walk on 0..=4 from 2: up or down with probability one half; 0 is worth 0, 4 is worth 1.
//! let half = Bounded::exact(0.5);
//! let mut g = Graph::new();
//! for x in 1..=3u32 {
//!     let to = |y: u32| match y {
//!         0 => Target::Exit(Bounded::exact(0.0)),
//!         4 => Target::Exit(Bounded::exact(1.0)),
//!         y => Target::Node(y - 1),
//!     };
//!     let zero = Bounded::exact(0.0);
//!     g.add_chance([
//!         Outcome { probability: half, reward: zero, to: to(x - 1) },
//!         Outcome { probability: half, reward: zero, to: to(x + 1) },
//!     ]);
//! }
//! let solved = g.solve(None).unwrap();
//! assert!((solved.values[1] - 0.5).abs() <= solved.error_bounds[1]);
//! assert!(solved.error_bounds[1] < 1e-15);
//! ```

use crate::backup::{consider, Kind};
use crate::component::{Component, LocalEdge, EXIT};
use crate::linear::System;
use crate::{Bounded, Number, Player, SolveError};

/// Where an edge of a [`Graph`] leads.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// A node of the graph, by its number.
    Node(u32),
    /// Out of the graph, to a final value.
    Exit(Bounded),
}

/// One outcome of a chance node: its probability, the reward collected on the way, and where
/// it leads.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// The probability (the outcomes of a node sum to one within their radii).
    pub probability: Bounded,
    /// The reward collected on the way.
    pub reward: Bounded,
    /// Where it leads.
    pub to: Target,
}

/// A game as numbered nodes, each a chance node or a decision, whose edges lead to other
/// nodes or out to final values. Nodes are numbered from 0 in the order they are added; an
/// edge may name a node added later.
#[derive(Default)]
pub struct Graph {
    comp: Component<Bounded>,
}

/// The solved [`Graph`]: each node's value and a bound on its distance to the exact value.
#[derive(Clone, Debug)]
pub struct GraphValues {
    /// Each node's value, in floats.
    pub values: Vec<f64>,
    /// For each node, a bound on `|values[x] - exact|` (rounding, the radii of the graph's
    /// numbers and near ties included).
    pub error_bounds: Vec<f64>,
    /// The move chosen at each decision, by its place among the node's moves (`u32::MAX` at a
    /// chance node).
    pub moves: Vec<u32>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.comp.kind.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.comp.kind.is_empty()
    }

    /// The edge to `to` with probability `probability` and reward `reward`.
    fn edge(probability: Bounded, reward: Bounded, to: Target) -> LocalEdge<Bounded> {
        match to {
            Target::Node(to) => LocalEdge {
                to,
                prob: probability,
                konst: reward,
            },
            Target::Exit(value) => LocalEdge {
                to: EXIT,
                prob: probability,
                konst: reward.add(&value),
            },
        }
    }

    /// Opens node `kind`; returns its number.
    fn open(&mut self, kind: Kind) -> u32 {
        if self.comp.start.is_empty() {
            self.comp.start.push(0);
        }
        self.comp.kind.push(kind);
        (self.comp.kind.len() - 1) as u32
    }

    /// Closes the node opened last.
    fn close(&mut self) {
        self.comp.start.push(self.comp.edges.len() as u32);
    }

    /// Adds a chance node with its outcomes; returns its number.
    pub fn add_chance(&mut self, outcomes: impl IntoIterator<Item = Outcome>) -> u32 {
        let x = self.open(Kind::Chance);
        for o in outcomes {
            let edge = Graph::edge(o.probability, o.reward, o.to);
            self.comp.edges.push(edge);
        }
        self.close();
        x
    }

    /// Adds a decision of `player` with its moves, each a reward and where it leads (a move
    /// with several outcomes leads to a chance node of its own); returns its number.
    pub fn add_decision(
        &mut self,
        player: Player,
        moves: impl IntoIterator<Item = (Bounded, Target)>,
    ) -> u32 {
        let x = self.open(Kind::Decision(player));
        for (reward, to) in moves {
            let edge = Graph::edge(Bounded::one(), reward, to);
            self.comp.edges.push(edge);
        }
        self.close();
        x
    }

    /// Solves the graph. `endless` is the player an endless play is worst for, where there is
    /// one (see [`Model::endless_play_loser`](crate::Model::endless_play_loser)); errors name
    /// a node as `node x`.
    pub fn solve(&self, endless: Option<Player>) -> Result<GraphValues, SolveError> {
        let n = self.len();
        let invalid = |x: usize, reason: &str| SolveError::InvalidModel {
            state: format!("node {x}"),
            reason: reason.to_string(),
        };
        for x in 0..n {
            let edges = self.comp.out(x);
            if edges.is_empty() {
                return Err(invalid(x, "a node has no edge"));
            }
            if edges.iter().any(|e| e.to != EXIT && e.to as usize >= n) {
                return Err(invalid(x, "an edge leads to a node that does not exist"));
            }
            if self.comp.kind[x] == Kind::Chance {
                let sum: f64 = edges.iter().map(|e| e.prob.value).sum();
                let doubt: f64 = edges.iter().map(|e| Bounded::bound(e.prob.radius)).sum();
                if (sum - 1.0).abs() > doubt + 1e-9 {
                    return Err(invalid(x, "the probabilities do not sum to one"));
                }
            }
        }
        let mut values = vec![Bounded::zero(); n];
        let mut slack = vec![0.0f64; n];
        let mut moves = vec![u32::MAX; n];
        let mut system = System::new(0);
        // Each node's number in the component being solved.
        let mut local = vec![u32::MAX; n];
        for members in self.components() {
            let x = members[0] as usize;
            let cyclic = members.len() > 1 || self.comp.out(x).iter().any(|e| e.to as usize == x);
            if !cyclic {
                self.back_up(x, &mut values, &mut slack, &mut moves);
                continue;
            }
            // The component with local numbers; edges that leave it carry their target's
            // final value in their constant.
            for (i, &m) in members.iter().enumerate() {
                local[m as usize] = i as u32;
            }
            let mut comp = Component::default();
            let mut exits_slack = 0.0f64;
            for &m in &members {
                comp.kind.push(self.comp.kind[m as usize]);
                comp.start.push(comp.edges.len() as u32);
                for e in self.comp.out(m as usize) {
                    comp.edges.push(match e.to {
                        EXIT => e.clone(),
                        to if local[to as usize] != u32::MAX => LocalEdge {
                            to: local[to as usize],
                            ..e.clone()
                        },
                        to => {
                            exits_slack = exits_slack.max(slack[to as usize]);
                            LocalEdge {
                                to: EXIT,
                                prob: e.prob,
                                konst: e.konst.add(&values[to as usize]),
                            }
                        }
                    });
                }
            }
            comp.start.push(comp.edges.len() as u32);
            let solved = comp
                .solve(&mut system, endless)
                .map_err(|e| comp.error(e, |i| format!("node {}", members[i])))?;
            for (i, &m) in members.iter().enumerate() {
                let m = m as usize;
                local[m] = u32::MAX;
                values[m] = solved.values[i];
                let ties = solved.ties_at.get(i).copied().unwrap_or(solved.ties);
                slack[m] = exits_slack + ties;
                if let Kind::Decision(_) = self.comp.kind[m] {
                    moves[m] = solved.policy[i];
                }
            }
        }
        Ok(GraphValues {
            values: values.iter().map(|v| v.value).collect(),
            error_bounds: (0..n)
                .map(|x| Bounded::bound(values[x].radius) + slack[x])
                .collect(),
            moves,
        })
    }

    /// One backup of node `x`, on no cycle, from its successors' final values.
    fn back_up(&self, x: usize, values: &mut [Bounded], slack: &mut [f64], moves: &mut [u32]) {
        let q = |e: &LocalEdge<Bounded>| match e.to {
            EXIT => e.konst,
            to => e.konst.add(&values[to as usize]),
        };
        let edges = self.comp.out(x);
        // (The successors' slack passes on at most as is: a value is an average, or the best,
        // of its successors' plus constants.)
        slack[x] = edges
            .iter()
            .filter(|e| e.to != EXIT)
            .map(|e| slack[e.to as usize])
            .fold(0.0, f64::max);
        match self.comp.kind[x] {
            Kind::Chance => {
                let mut v = Bounded::zero();
                for e in edges {
                    v.add_mul(&e.prob, &q(e));
                }
                values[x] = v;
            }
            Kind::Decision(player) => {
                let mut best = None;
                for (i, e) in edges.iter().enumerate() {
                    if consider(player, &mut best, q(e)) {
                        moves[x] = i as u32;
                    }
                }
                values[x] = best.expect("a decision has a move");
            }
        }
    }

    /// The strongly connected components, each with every component it leads to before it
    /// (Tarjan's algorithm, without recursion).
    fn components(&self) -> Vec<Vec<u32>> {
        let n = self.len();
        const NONE: u32 = u32::MAX;
        let (mut index, mut low) = (vec![NONE; n], vec![0u32; n]);
        let mut on_stack = vec![false; n];
        let (mut stack, mut out) = (Vec::new(), Vec::new());
        let mut next = 0u32;
        // The depth-first path: each node with the place of its next edge.
        let mut path: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            path.push((root, 0));
            while let Some(&mut (x, ref mut at)) = path.last_mut() {
                if *at == 0 && index[x] == NONE {
                    (index[x], low[x]) = (next, next);
                    next += 1;
                    stack.push(x as u32);
                    on_stack[x] = true;
                }
                let edges = self.comp.out(x);
                if let Some(e) = edges.get(*at) {
                    *at += 1;
                    let to = e.to;
                    if to == EXIT {
                        continue;
                    }
                    let to = to as usize;
                    if index[to] == NONE {
                        path.push((to, 0));
                    } else if on_stack[to] {
                        low[x] = low[x].min(index[to]);
                    }
                    continue;
                }
                path.pop();
                if let Some(&(parent, _)) = path.last() {
                    low[parent] = low[parent].min(low[x]);
                }
                if low[x] == index[x] {
                    let mut members = Vec::new();
                    loop {
                        let m = stack.pop().expect("the component's nodes are on the stack");
                        on_stack[m as usize] = false;
                        members.push(m);
                        if m as usize == x {
                            break;
                        }
                    }
                    members.reverse();
                    out.push(members);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zero() -> Bounded {
        Bounded::exact(0.0)
    }

    /// Haddad and Monmege's walk, where value iteration stalls: from `n` down to 0 with
    /// probability `p` (then each step down with one half, else back to `n`), up to `2n`
    /// otherwise (likewise). Reaching 0 has probability `p` exactly.
    #[test]
    fn a_walk_that_value_iteration_cannot_close_is_solved_to_rounding() {
        let (n, p) = (300u32, 0.7);
        let mut g = Graph::new();
        let to = |x: u32| match x {
            0 => Target::Exit(Bounded::exact(1.0)),
            x if x == 2 * n => Target::Exit(zero()),
            x => Target::Node(x - 1),
        };
        // A probability that is not a float: the radius of its conversion.
        let prob = |q: f64| Bounded {
            value: q,
            radius: q * f64::EPSILON,
        };
        for x in 1..2 * n {
            let (down, up) = match x.cmp(&n) {
                std::cmp::Ordering::Equal => (prob(p), prob(1.0 - p)),
                _ => (Bounded::exact(0.5), Bounded::exact(0.5)),
            };
            let (a, b) = match x.cmp(&n) {
                std::cmp::Ordering::Less => (to(x - 1), to(n)),
                std::cmp::Ordering::Greater => (to(x + 1), to(n)),
                std::cmp::Ordering::Equal => (to(x - 1), to(x + 1)),
            };
            g.add_chance([
                Outcome {
                    probability: down,
                    reward: zero(),
                    to: a,
                },
                Outcome {
                    probability: up,
                    reward: zero(),
                    to: b,
                },
            ]);
        }
        let solved = g.solve(None).unwrap();
        let at = (n - 1) as usize;
        assert!((solved.values[at] - p).abs() <= solved.error_bounds[at]);
        assert!(
            solved.error_bounds[at] < 1e-12,
            "{}",
            solved.error_bounds[at]
        );
    }

    /// A two-player game with a hand value: Max at 0 stops for 1 or moves to chance node 1,
    /// which pays 2 (exit) or returns to Min at 2 with one half each; Min at 2 stops for 0.5
    /// or goes back to 0. Min stops at 2 (if it went back, Max's value would come again), so
    /// chance is worth (2 + 0.5) / 2 = 1.25 and Max moves.
    #[test]
    fn a_two_player_cycle_has_its_hand_value() {
        let mut g = Graph::new();
        g.add_decision(
            Player::Max,
            [
                (zero(), Target::Exit(Bounded::exact(1.0))),
                (zero(), Target::Node(1)),
            ],
        );
        g.add_chance([
            Outcome {
                probability: Bounded::exact(0.5),
                reward: zero(),
                to: Target::Exit(Bounded::exact(2.0)),
            },
            Outcome {
                probability: Bounded::exact(0.5),
                reward: zero(),
                to: Target::Node(2),
            },
        ]);
        g.add_decision(
            Player::Min,
            [
                (zero(), Target::Exit(Bounded::exact(0.5))),
                (zero(), Target::Node(0)),
            ],
        );
        let solved = g.solve(None).unwrap();
        assert_eq!(solved.values, vec![1.25, 1.25, 0.5]);
        assert_eq!(solved.moves[0], 1);
        assert_eq!(solved.moves[2], 0);
    }

    #[test]
    fn malformed_graphs_are_errors() {
        let mut g = Graph::new();
        g.add_decision(Player::Max, [(zero(), Target::Node(5))]);
        assert!(matches!(
            g.solve(None),
            Err(SolveError::InvalidModel { .. })
        ));
        let mut g = Graph::new();
        g.add_chance([Outcome {
            probability: Bounded::exact(0.5),
            reward: zero(),
            to: Target::Exit(zero()),
        }]);
        assert!(matches!(
            g.solve(None),
            Err(SolveError::InvalidModel { .. })
        ));
    }
}
