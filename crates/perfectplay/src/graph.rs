//! A game handed over as a graph of numbered nodes, solved in floats with a certified bound on
//! every value: for engines that hold a game in a form of their own rather than as a
//! [`Model`](crate::Model). The solve across processes gathers here the part of its game that
//! its interval iteration cannot close (a long walk that iteration crosses in exponentially many
//! rounds, solved directly in one).
//!
//! The graph is solved as one cyclic component, by the method and with the semantics of a
//! model's components (see [`crate::Solver`]): policy iteration (Hoffman–Karp for two players)
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

use crate::backup::Kind;
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
        if n == 0 {
            return Ok(GraphValues {
                values: Vec::new(),
                error_bounds: Vec::new(),
                moves: Vec::new(),
            });
        }
        let mut system = System::new(0);
        let solved = self
            .comp
            .solve(&mut system, endless)
            .map_err(|e| self.comp.error(e, |x| format!("node {x}")))?;
        let bound = |x: usize| {
            let ties = solved.ties_at.get(x).copied().unwrap_or(solved.ties);
            Bounded::bound(solved.values[x].radius) + ties
        };
        Ok(GraphValues {
            values: solved.values.iter().map(|v| v.value).collect(),
            error_bounds: (0..n).map(bound).collect(),
            moves: (0..n)
                .map(|x| match self.comp.kind[x] {
                    Kind::Chance => u32::MAX,
                    Kind::Decision(_) => solved.policy[x],
                })
                .collect(),
        })
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
