//! A small custom game written against the public API only: a two-player dice race with
//! snakes, so positions repeat.
//!
//! Max and Min take turns moving one shared counter. The player to move picks a die, a d2 or a
//! d3, and adds the roll. Landing on a snake square (a non-zero multiple of 4 below the target)
//! sends the counter back to 0. Whoever brings the counter to exactly `target` wins 10;
//! overshooting loses 10 (the value is Max's gain). Snakes make positions repeat, so the game
//! has cycles through both players; every cycle goes through a roll, and the engine solves it
//! exactly with two-player strategy iteration.
//!
//! Run it with `cargo run -p perfectplay --example dice_duel -- 9`.

use perfectplay::{solve_exact, Model, NodeBuilder, Player, Rat};

/// The race to exactly `target`.
pub struct DiceDuel {
    /// The square to reach exactly.
    pub target: u32,
}

/// The counter, whose turn it is, and the die in the air (0 if none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// The shared counter.
    pub counter: u32,
    /// Whether Max moves next.
    pub max_to_move: bool,
    /// The number of faces of the die being rolled, 0 before the choice.
    pub die: u32,
}

impl Model for DiceDuel {
    type State = State;
    type Move = &'static str;

    fn start(&self) -> State {
        State {
            counter: 0,
            max_to_move: true,
            die: 0,
        }
    }

    fn expand(&self, s: &State, node: &mut impl NodeBuilder<State, &'static str>) {
        // The previous mover (not the one to move) decided the game.
        let previous_was_max = !s.max_to_move;
        let sign = if previous_was_max { 1 } else { -1 };
        if s.counter == self.target {
            return node.terminal(10 * sign);
        }
        if s.counter > self.target {
            return node.terminal(-10 * sign);
        }
        if s.die == 0 {
            node.decision(if s.max_to_move {
                Player::Max
            } else {
                Player::Min
            });
            node.add_move("roll a d2", 0, State { die: 2, ..*s });
            node.add_move("roll a d3", 0, State { die: 3, ..*s });
            return;
        }
        node.chance();
        for face in 1..=s.die {
            let mut counter = s.counter + face;
            if counter % 4 == 0 && counter < self.target {
                counter = 0;
            }
            let next = State {
                counter,
                max_to_move: !s.max_to_move,
                die: 0,
            };
            node.add_outcome("face", Rat::new(1, s.die as i64), 0, next);
        }
    }
}

fn main() {
    let target = std::env::args()
        .nth(1)
        .map(|a| a.parse().unwrap_or(9))
        .unwrap_or(9);
    let game = DiceDuel { target };
    match solve_exact(&game) {
        Ok(s) => {
            println!(
                "value for Max: {} = {}",
                perfectplay::Number::to_f64(s.start_value()),
                s.start_value()
            );
            println!("{:?}", s.stats());
        }
        Err(e) => eprintln!("error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::solve;
    use perfectplay::verify::verify_solution;

    #[test]
    fn solves_exactly_and_certifies() {
        for target in 1..=14 {
            let game = DiceDuel { target };
            let exact = solve_exact(&game).unwrap();
            verify_solution(&game, &exact).unwrap();
            let float = solve(&game).unwrap();
            let e = perfectplay::Number::to_f64(exact.start_value());
            assert!((float.start_value() - e).abs() < 1e-12);
        }
    }

    #[test]
    fn target_one_prefers_the_small_die() {
        // With target 1, the d2 wins half the time (value 0), the d3 a third (value -10/3).
        let g = DiceDuel { target: 1 };
        let s = solve_exact(&g).unwrap();
        assert_eq!(s.start_value().to_string(), "0");
        assert_eq!(s.chosen(&g.start()), Some(0));
    }

    #[test]
    fn has_two_player_cycles() {
        let s = solve(&DiceDuel { target: 6 }).unwrap();
        assert!(s.stats().cyclic_components > 0);
    }
}
