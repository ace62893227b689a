//! Policy iteration on a large component looks ahead between its exact evaluations in floats
//! (modified policy iteration); exact arithmetic does not. Both must give the same values and
//! the same optimal moves on long walks, where a change of strategy has far to travel, and the
//! float solve must report no iteration bound (it still ends on an exact evaluation).

use crate::common::Rng;
use perfectplay::{Exact, Model, NodeBuilder, Number, Player, Rat, Solver};

/// A walk on `0..=n`: at each inner position `player` picks one of three moves, each a step
/// up, a step down or a stay with random probabilities (in tenths, up more likely than down,
/// so that no strategy makes the walk last exponentially long) and its own cost per step; the
/// ends pay their own amounts.
struct Walk {
    n: u32,
    player: Player,
    /// `moves[s][m]`: tenths up, down and staying, and the cost.
    moves: Vec<[(i64, i64, i64, i64); 3]>,
}

impl Walk {
    fn new(n: u32, player: Player, seed: u64) -> Walk {
        let mut rng = Rng(seed);
        let moves = (0..=n)
            .map(|_| {
                [(); 3].map(|()| {
                    let (up, down) = (rng.range(3, 6), rng.range(1, 3));
                    (up, down, 10 - up - down, rng.range(1, 3))
                })
            })
            .collect();
        Walk { n, player, moves }
    }

    /// Move `m` at `s`: tenths up, down and staying, and its cost.
    fn step(&self, s: u32, m: u32) -> (i64, i64, i64, i64) {
        self.moves[s as usize][m as usize]
    }
}

impl Model for Walk {
    type State = u32;
    type Move = u32;

    fn start(&self) -> u32 {
        self.n / 2
    }

    fn expand(&self, &s: &u32, node: &mut impl NodeBuilder<u32, u32>) {
        if s == 0 {
            return node.terminal(40);
        }
        if s == self.n {
            return node.terminal(-25);
        }
        node.decision(self.player);
        for m in 0..3 {
            let (up, down, stay, cost) = self.step(s, m);
            node.add_random_move(m, 0);
            node.add_outcome(0, Rat::new(up, 10), cost, s + 1);
            node.add_outcome(1, Rat::new(down, 10), cost, s - 1);
            if stay > 0 {
                node.add_outcome(2, Rat::new(stay, 10), cost, s);
            }
        }
    }

    fn dense_bound(&self) -> usize {
        self.n as usize + 1
    }

    fn dense_index(&self, &s: &u32) -> Option<usize> {
        Some(s as usize)
    }
}

#[test]
fn long_walks_give_the_exact_values_and_moves_in_floats() {
    for player in [Player::Max, Player::Min] {
        // Three chance nodes per position: a component of over 1,024 nodes.
        let walk = Walk::new(300, player, 7);
        let float = Solver::new(&walk).solve::<f64>().unwrap();
        let exact = Solver::new(&walk).solve::<Exact>().unwrap();
        // Solved directly: the bound covers the rounding of the elimination and what near
        // ties may hide.
        let bound = float.stats().error_bound;
        let mut worst = 0.0f64;
        for s in 1..walk.n {
            let (f, e) = (*float.value(&s).unwrap(), exact.value(&s).unwrap());
            let error = Exact::of_float(f).unwrap().sub(e).to_f64();
            worst = worst.max(error.abs());
            assert!(
                error.abs() <= bound,
                "{player:?} at {s}: {f} {e}, bound {bound}"
            );
            // The move the float solve chose is optimal by the exact values (moves may tie).
            let m = float.chosen(&s).unwrap() as u32;
            let (up, down, stay, cost) = walk.step(s, m);
            let v = |t: u32| match t {
                0 => 40.0,
                t if t == walk.n => -25.0,
                t => exact.value(&t).unwrap().to_f64(),
            };
            let q = (up as f64 * v(s + 1) + down as f64 * v(s - 1) + stay as f64 * v(s)) / 10.0
                + cost as f64;
            let e = e.to_f64();
            assert!(
                (q - e).abs() <= 1e-9 * e.abs().max(1.0),
                "{player:?} at {s}: move {m}"
            );
        }
        // Not far above the error. The bound includes what moves within the values' radii of
        // the chosen one may hide (a few such moves here), and those radii, from the
        // elimination, are some hundreds of times the true error: a few thousand times it at
        // most.
        assert!(
            worst > 0.0 && bound <= 5000.0 * worst,
            "{player:?}: error {worst:e}, bound {bound:e}"
        );
    }
}

/// A walk entered by chance: with probability 1/1000 the play starts the walk, else it ends
/// at once with nothing (state `n + 1`). The start's own state is `n + 2`.
struct Gated(Walk);

impl Model for Gated {
    type State = u32;
    type Move = u32;

    fn start(&self) -> u32 {
        self.0.n + 2
    }

    fn expand(&self, &s: &u32, node: &mut impl NodeBuilder<u32, u32>) {
        let n = self.0.n;
        if s == n + 1 {
            return node.terminal(0);
        }
        if s == n + 2 {
            node.chance();
            node.add_outcome(0, Rat::new(1, 1000), 0, self.0.start());
            node.add_outcome(1, Rat::new(999, 1000), 0, n + 1);
            return;
        }
        self.0.expand(&s, node)
    }

    fn dense_bound(&self) -> usize {
        self.0.n as usize + 3
    }

    fn dense_index(&self, &s: &u32) -> Option<usize> {
        Some(s as usize)
    }
}

/// The start value's bound is its own: a walk entered once in a thousand plays passes on a
/// thousandth of its doubt (its rounding and its near ties), where the bound of every value
/// is the walk's whole.
#[test]
fn the_start_values_bound_is_its_own() {
    for player in [Player::Max, Player::Min] {
        let gated = Gated(Walk::new(300, player, 7));
        let (v, stats) = Solver::new(&gated).start_value::<f64>().unwrap();
        let (exact, _) = Solver::new(&gated).start_value::<Exact>().unwrap();
        let every = Solver::new(&gated)
            .solve::<f64>()
            .unwrap()
            .stats()
            .error_bound;
        let error = Exact::of_float(v).unwrap().sub(&exact).abs().to_f64();
        let bound = stats.error_bound;
        assert!(
            error <= bound,
            "{player:?}: error {error:e}, bound {bound:e}"
        );
        assert!(
            bound > 0.0 && bound <= every / 100.0,
            "{player:?}: the start's bound {bound:e}, every value's {every:e}"
        );
    }
}
