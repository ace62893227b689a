//! Pig (Neller and Presser, "Optimal Play of the Dice Game Pig", 2004): two players race to a
//! goal score; the value is the probability that the first player wins.
//!
//! On a turn the player rolls a six-sided die as often as they like. A 1 ends the turn and loses
//! the turn total; 2–6 add to it; holding (allowed once the turn total is positive) banks it and
//! ends the turn. Whoever reaches the goal first wins, at once, even in the middle of a turn.
//!
//! # Model
//! A state is the two banked scores, the player to move and the turn total; rolling is a random
//! move (`NodeBuilder::add_random_move`) whose six outcomes hang off the decision itself. The first
//! player is `Max` and the second `Min`: the total is 1 when the first player wins and 0 when the
//! second does, so the value is the first player's winning probability. Rolling a 1 gives the
//! turn away without changing the scores, so positions repeat: each pair of banked scores forms a
//! cycle through both players' turns, which the engine's two-player cyclic solver handles.
//! Every pair of strategies ends the game with probability one (a player who keeps rolling
//! reaches the goal unless a 1 comes, and a 1 hands the die over), so values are well defined.
//!
//! With `--opponent hold-at-K` the second player has a single move everywhere: roll while the
//! turn total is below `K`, hold once it reaches `K`.
//!
//! # Notation
//! `A 12 B 30, A to move, turn 5`, and `A wins` or `B wins` at the end. `A` is the first
//! player.

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "pig",
    summary: "two-player dice race to a goal; value = probability that the first player wins",
    params: &[
        ParamSpec {
            name: "goal",
            value: "G",
            help: "the score that wins, 1..=1000 (about G³ states: 1M at 100, 27M at 300; the memory guard stops a goal too large for this machine with a clear error)",
            kind: ParamKind::Int { min: 1, max: MAX_GOAL as i64 },
            default: Some("100"),
            required: false,
        },
        ParamSpec {
            name: "opponent",
            value: "O",
            help: "the second player: optimal, or hold-at-K (rolls until the turn total reaches K, 1..=G)",
            kind: ParamKind::Word,
            default: Some("optimal"),
            required: false,
        },
    ],
    example: &[("goal", "20"), ("opponent", "optimal")],
    notation: Some(
        "'A 12 B 30, A to move, turn 5' (A is the first player), or 'A wins' / 'B wins'",
    ),
    build: |p| Ok(Box::new(Pig::from_params(p)?) as Box<dyn DynModel>),
};

/// Largest supported goal.
pub const MAX_GOAL: u16 = 1000;

/// How the second player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Minimises the first player's winning chance.
    Optimal,
    /// Holds as soon as the turn total reaches `K`.
    HoldAt(u16),
}

/// Pig to a goal.
#[derive(Clone, Debug)]
pub struct Pig {
    goal: u16,
    opponent: Opponent,
}

/// A position of Pig.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// A player is to move.
    Play {
        /// The first player's banked score.
        a: u16,
        /// The second player's banked score.
        b: u16,
        /// Whether the first player is to move.
        a_moves: bool,
        /// The turn total of the player to move.
        turn: u16,
    },
    /// The game is over.
    Won {
        /// Whether the first player won.
        a: bool,
    },
}

impl Pig {
    /// Pig to `goal` against `opponent`.
    pub fn new(goal: u16, opponent: Opponent) -> Result<Self, GameError> {
        if !(1..=MAX_GOAL).contains(&goal) {
            return Err(GameError::param(
                "goal",
                format!("{goal} is out of range 1..={MAX_GOAL}"),
            ));
        }
        if let Opponent::HoldAt(k) = opponent {
            if !(1..=goal).contains(&k) {
                return Err(GameError::param(
                    "opponent",
                    format!("hold-at-{k}: K must be in 1..={goal} (the goal)"),
                ));
            }
        }
        Ok(Pig { goal, opponent })
    }

    /// Builds from `--goal` and `--opponent`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        let goal = p.int("goal", 1, MAX_GOAL)?;
        let text = p.required("opponent")?;
        let opponent = match text {
            "optimal" => Opponent::Optimal,
            _ => match text.strip_prefix("hold-at-") {
                // K's range is the goal's: 1..=G, which the message names.
                Some(k) => {
                    Opponent::HoldAt(crate::parse_int("opponent", k, 1, goal).map_err(|_| {
                        GameError::param(
                            "opponent",
                            format!("hold-at-{k}: K must be in 1..={goal} (the goal)"),
                        )
                    })?)
                }
                None => {
                    return Err(GameError::param(
                        "opponent",
                        format!("'{text}' is neither 'optimal' nor 'hold-at-K'"),
                    ))
                }
            },
        };
        Pig::new(goal, opponent)
    }
}

impl Model for Pig {
    type State = State;
    type Move = &'static str;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        match *state {
            State::Play {
                a,
                b,
                a_moves,
                turn,
            } => {
                out.push(a_moves as u8);
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&b.to_le_bytes());
                out.extend_from_slice(&turn.to_le_bytes());
            }
            State::Won { a } => out.push(2 + a as u8),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let state = match r.u8()? {
            tag @ (0 | 1) => State::Play {
                a_moves: tag == 1,
                a: r.u16()?,
                b: r.u16()?,
                turn: r.u16()?,
            },
            tag @ (2 | 3) => State::Won { a: tag == 3 },
            _ => return None,
        };
        r.finish(state)
    }

    fn start(&self) -> State {
        State::Play {
            a: 0,
            b: 0,
            a_moves: true,
            turn: 0,
        }
    }

    fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, &'static str>) {
        let (a, b, a_moves, turn) = match *state {
            State::Won { a } => return node.terminal(if a { 1 } else { 0 }),
            State::Play {
                a,
                b,
                a_moves,
                turn,
            } => (a, b, a_moves, turn),
        };
        // The turn passes to the other player with the mover's score raised by `bank`.
        let pass = |bank: u16| State::Play {
            a: if a_moves { a + bank } else { a },
            b: if a_moves { b } else { b + bank },
            a_moves: !a_moves,
            turn: 0,
        };
        let mine = if a_moves { a } else { b };
        // Whether the mover may roll and may hold: the fixed opponent holds exactly from its
        // threshold on; otherwise holding needs points on the turn.
        let (rolls, holds) = match self.opponent {
            Opponent::HoldAt(k) if !a_moves => (turn < k, turn >= k),
            _ => (true, turn > 0),
        };
        node.decision(if a_moves { Player::Max } else { Player::Min });
        if rolls {
            node.add_random_move("roll", 0);
            node.add_outcome("1", Rat::new(1, 6), 0, pass(0));
            for (face, label) in [(2, "2"), (3, "3"), (4, "4"), (5, "5"), (6, "6")] {
                let next = if mine + turn + face >= self.goal {
                    State::Won { a: a_moves }
                } else {
                    State::Play {
                        a,
                        b,
                        a_moves,
                        turn: turn + face,
                    }
                };
                node.add_outcome(label, Rat::new(1, 6), 0, next);
            }
        }
        if holds {
            node.add_move("hold", 0, pass(turn));
        }
    }

    /// Positions are numbered by scores, player, turn total and phase (up to goal 250, where
    /// the table stays within 64M slots), so the engine interns them without hashing.
    fn dense_bound(&self) -> usize {
        let g = self.goal as usize;
        if g > 250 {
            0
        } else {
            2 * g * g * g + 2
        }
    }

    fn dense_index(&self, state: &State) -> Option<usize> {
        let g = self.goal as usize;
        match *state {
            State::Won { a } => Some(usize::from(a)),
            State::Play {
                a,
                b,
                a_moves,
                turn,
            } => {
                let (a, b, turn) = (a as usize, b as usize, turn as usize);
                (a < g && b < g && turn < g)
                    .then(|| 2 + ((a * g + b) * 2 + usize::from(a_moves)) * g + turn)
            }
        }
    }

    /// The rolls of a turn are local to its start (turn total 0): only the turn starts are
    /// stored, and each turn is solved in scratch storage.
    fn has_turns(&self) -> bool {
        true
    }

    fn turn_of(&self, state: &State) -> Option<State> {
        match *state {
            State::Play {
                a,
                b,
                a_moves,
                turn,
            } if turn > 0 => Some(State::Play {
                a,
                b,
                a_moves,
                turn: 0,
            }),
            _ => None,
        }
    }

    /// Within a turn, the turn total tells the position.
    fn turn_bound(&self) -> usize {
        self.goal as usize
    }

    fn turn_index(&self, state: &State) -> Option<usize> {
        match *state {
            State::Play { turn, .. } if turn > 0 => Some(turn as usize),
            _ => None,
        }
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(match (player, self.opponent) {
            (Player::Max, _) => "A".to_string(),
            (Player::Min, Opponent::Optimal) => "B".to_string(),
            (Player::Min, Opponent::HoldAt(k)) => format!("B (holds at {k})"),
        })
    }

    fn total_name(&self) -> Option<String> {
        Some("winner (1: A, 0: B)".to_string())
    }

    fn show_end(&self, end: &State, _total: Rat) -> Option<String> {
        match end {
            State::Won { a } => Some(format!(
                "{} reaches {} and wins",
                if *a { "A" } else { "B" },
                self.goal
            )),
            State::Play { .. } => None,
        }
    }

    fn show_state(&self, state: &State) -> String {
        match *state {
            State::Won { a: true } => "A wins".to_string(),
            State::Won { a: false } => "B wins".to_string(),
            State::Play {
                a,
                b,
                a_moves,
                turn,
            } => format!(
                "A {a} B {b}, {} to move, turn {turn}",
                if a_moves { "A" } else { "B" },
            ),
        }
    }

    fn show_move(&self, mv: &&'static str) -> String {
        mv.to_string()
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        let bad = || {
            format!(
                "'{text}' is not a Pig position; write 'A 12 B 30, A to move, turn 5' or \
                 'A wins' / 'B wins'"
            )
        };
        match words.as_slice() {
            ["A", "wins"] => return Ok(State::Won { a: true }),
            ["B", "wins"] => return Ok(State::Won { a: false }),
            _ => {}
        }
        let ["A", a, "B", b, who, "to", "move", "turn", turn] = words.as_slice() else {
            return Err(bad());
        };
        let num = |w: &str| w.parse::<u16>().map_err(|_| bad());
        let (a, b, turn) = (num(a)?, num(b)?, num(turn)?);
        let a_moves = match *who {
            "A" => true,
            "B" => false,
            _ => return Err(bad()),
        };
        let mine = if a_moves { a } else { b };
        if a >= self.goal || b >= self.goal || mine + turn >= self.goal {
            return Err(format!(
                "'{text}': the scores and the turn total must stay below the goal {}",
                self.goal
            ));
        }
        Ok(State::Play {
            a,
            b,
            a_moves,
            turn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::{solve, solve_exact, verify::verify_solution, Number};

    fn value(goal: u16, opponent: Opponent) -> f64 {
        *solve(&Pig::new(goal, opponent).unwrap())
            .unwrap()
            .start_value()
    }

    #[test]
    fn published_values_both_optimal() {
        for (goal, want) in [(10, 0.709424322598303), (20, 0.615558549805043)] {
            let v = value(goal, Opponent::Optimal);
            assert!((v - want).abs() < 1e-12, "goal {goal}: {v} vs {want}");
        }
    }

    #[test]
    fn published_values_against_hold_at_20() {
        let v = value(50, Opponent::HoldAt(20));
        assert!((v - 0.643270507296709).abs() < 1e-12, "{v}");
    }

    #[test]
    fn published_values_at_full_size() {
        for (goal, opponent, want) in [
            (50, Opponent::Optimal, 0.546150844166768),
            (100, Opponent::Optimal, 0.530592725273727),
            (100, Opponent::HoldAt(20), 0.587367621236961),
        ] {
            let v = value(goal, opponent);
            assert!(
                (v - want).abs() < 1e-12,
                "goal {goal} {opponent:?}: {v} vs {want}"
            );
        }
    }

    #[test]
    fn exact_agrees_with_float_and_the_checker() {
        for opponent in [Opponent::Optimal, Opponent::HoldAt(3)] {
            let g = Pig::new(6, opponent).unwrap();
            let e = solve_exact(&g).unwrap();
            verify_solution(&g, &e).unwrap();
            let f = solve(&g).unwrap();
            for (s, v) in e.iter() {
                let fv = *f.value(s).unwrap();
                assert!((v.to_f64() - fv).abs() < 1e-12, "{s:?}");
            }
        }
    }

    /// Longer games, whose fractions take hundreds of primes: the multi-modular evaluation of
    /// the cycles against rationals turn by turn.
    #[test]
    fn multimodular_cycles_give_the_fraction_of_rationals() {
        for (goal, opponent) in [(40, Opponent::Optimal), (45, Opponent::HoldAt(20))] {
            let g = Pig::new(goal, opponent).unwrap();
            let solver = perfectplay::Solver::new(&g);
            let (by_turns, _) = solver.start_value::<perfectplay::Exact>().unwrap();
            let (modular, stats) = perfectplay::Solver::new(&g).exact_start_value().unwrap();
            assert_eq!(modular, by_turns, "goal {goal}");
            let primes = match stats.method {
                perfectplay::Method::Multimodular { primes } => primes,
                _ => panic!("{stats:?}"),
            };
            assert!(primes > 16, "{primes}");
        }
    }

    /// The rolls of a turn are local to its start: solving by turns gives the fraction of
    /// exploring every state (which ignores the hook), the float within rounding, and keeps
    /// the reachable turn starts and the two ends only. The multi-modular evaluation of the
    /// whole game, cycles and all, gives the same fraction.
    #[test]
    fn turns_give_the_value_of_the_whole_game() {
        for (goal, opponent) in [(12, Opponent::Optimal), (15, Opponent::HoldAt(4))] {
            let g = Pig::new(goal, opponent).unwrap();
            let solver = perfectplay::Solver::new(&g);
            let (by_turns, stats) = solver.start_value::<perfectplay::Exact>().unwrap();
            let whole = solve_exact(&g).unwrap();
            assert_eq!(by_turns, *whole.start_value(), "goal {goal}");
            let (modular, mstats) = perfectplay::Solver::new(&g).exact_start_value().unwrap();
            assert_eq!(modular, by_turns, "goal {goal}");
            assert!(
                matches!(mstats.method, perfectplay::Method::Multimodular { .. }),
                "{mstats:?}"
            );
            let starts = whole.iter().filter(|(s, _)| g.turn_of(s).is_none()).count();
            assert!(starts < whole.len() / 4, "{starts} of {}", whole.len());
            assert!(
                matches!(stats.method, perfectplay::Method::Turns { kept, .. } if kept == starts),
                "{stats:?}"
            );
            let (f, _) = perfectplay::Solver::new(&g).start_value::<f64>().unwrap();
            let whole_f = *solve(&g).unwrap().start_value();
            assert!(
                (f - whole_f).abs() <= 4.0 * f64::EPSILON,
                "{f} vs {whole_f}"
            );
        }
    }

    /// Pig is won or lost at the end, so its distribution is exact despite the cycles: the
    /// first player wins (total 1) with probability the value, and no play is cut short.
    #[test]
    fn distribution_is_exact_despite_the_cycles() {
        use perfectplay::{DistributionOptions, Exact};
        for (goal, opponent) in [(12, Opponent::Optimal), (15, Opponent::HoldAt(4))] {
            let game = Pig::new(goal, opponent).unwrap();
            let exact = solve_exact(&game).unwrap();
            let d = exact
                .distribution(&game, &DistributionOptions::default())
                .unwrap();
            let v = exact.start_value().clone();
            let lose = Exact::one().sub(&v);
            assert_eq!(d.tail, Exact::zero());
            assert_eq!(d.pmf, vec![(Rat::ZERO, lose), (Rat::from(1), v)]);
        }
    }

    #[test]
    fn goal_two_is_won_by_the_first_roll_that_is_not_a_one() {
        // P = 5/6 + (1/6)² P, so P = 6/7.
        let e = solve_exact(&Pig::new(2, Opponent::Optimal).unwrap()).unwrap();
        assert_eq!(e.start_value().to_string(), "6/7");
    }

    #[test]
    fn notation_round_trips() {
        let g = Pig::new(8, Opponent::Optimal).unwrap();
        let s = solve(&g).unwrap();
        for (state, _) in s.iter() {
            assert_eq!(g.parse_state(&g.show_state(state)).unwrap(), *state);
        }
        for bad in [
            "",
            "A 1 B 2",
            "A 9 B 0, A to move, turn 0",
            "A x B 0, A to move, turn 0",
        ] {
            assert!(g.parse_state(bad).is_err(), "{bad}");
        }
    }
}
