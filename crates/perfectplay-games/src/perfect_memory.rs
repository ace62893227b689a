//! PerfectMemory (TopCoder SRM 513): a memory game played alone with perfect recall; the value
//! is the least expected number of moves to uncover an `rows × cols` board.
//!
//! # Model
//! Cells and symbols are exchangeable, so the player's belief reduces to `(u, k)`: `u` cells
//! never seen and `k` symbols of which exactly one cell has been seen ("known singles"; their
//! partners are among the unseen cells). A move turns two cells one after the other, the second
//! chosen after seeing the first. The model offers every choice the player really has and lets
//! the engine find the best ones:
//! - first flip: an unseen cell, or a known single (then the second flip is an unseen cell);
//! - after a first unseen card whose partner is known: flip the partner, flip another unseen
//!   cell, or flip another known single;
//! - after a first unseen card with a new symbol: flip an unseen cell, or a known single.
//!
//! A flip of an unseen cell is a random move (`NodeBuilder::add_random_move`): its outcomes hang
//! off the decision itself, so there are three kinds of state per `(u, k)` — the start of a
//! move, and the two things the first card can show. Only the turn of its `(u, k)` reaches a
//! first-card state, so those are transient (`Model::transient`): the sweep solves them inside
//! the turn.
//!
//! When both cells of a symbol have been seen but not turned together, the pair is matched by a
//! later move that costs exactly one and reveals nothing; when it is played does not matter, so
//! the model charges it at once (the `+2` and `+3` branches).
//!
//! Left out, with proof that it is never optimal: a move that turns two known cells that do not
//! match. It costs one move and leaves the belief `(u, k)` unchanged, so deleting every such
//! move from any strategy gives a strategy with the same future and a strictly smaller cost.
//! (Turning a known single then another known single is this move too.)
//!
//! The value depends only on `rows · cols`.

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "perfect-memory",
    summary: "memory game with perfect recall; value = least expected number of moves",
    params: &[
        ParamSpec {
            name: "rows",
            value: "N",
            help: "rows of the board, at least 1; rows × cols must be even and at most 20000 (the original problem: up to 50 × 50)",
            kind: ParamKind::Int { min: 1, max: MAX_CELLS as i64 },
            default: None,
            required: true,
        },
        ParamSpec {
            name: "cols",
            value: "M",
            help: "columns of the board, at least 1",
            kind: ParamKind::Int { min: 1, max: MAX_CELLS as i64 },
            default: None,
            required: true,
        },
    ],
    example: &[("rows", "4"), ("cols", "4")],
    notation: Some(NOTATION),
    build: |p| Ok(Box::new(PerfectMemory::from_params(p)?) as Box<dyn DynModel>),
};

/// The most cells of a board: the sweep numbers a turn by a multiplication that is exact while
/// `cells³ / 16 < 2^40` (see [`Model::sweep_state`]), which holds up to about 26,000 cells; a
/// board this large has about 1.5 · 10^8 positions.
pub const MAX_CELLS: u32 = 20_000;

/// The game on a board of `cells` cells.
#[derive(Clone, Debug)]
pub struct PerfectMemory {
    cells: u32,
    /// The length of a run of the sweep: the values of `k / 2`, which is at most `cells / 4`.
    run: usize,
    /// `2^40 / run`, rounded up, to divide a rank by `run` with a multiplication.
    per_run: u64,
}

/// A belief state of the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// The first card turned (an unseen cell) has a known partner.
    MatchesKnown {
        /// Unseen cells before the move.
        u: u32,
        /// Known singles before the move.
        k: u32,
    },
    /// The first card turned (an unseen cell) shows a new symbol.
    NewSymbol {
        /// Unseen cells before the move.
        u: u32,
        /// Known singles before the move.
        k: u32,
    },
    /// The start of a move: `u` unseen cells, `k` known singles.
    Turn {
        /// Unseen cells.
        u: u32,
        /// Known singles.
        k: u32,
    },
}

impl PerfectMemory {
    /// The game on a `rows × cols` board; `rows · cols` must be even.
    pub fn new(rows: u32, cols: u32) -> Result<Self, GameError> {
        for (name, n) in [("rows", rows), ("cols", cols)] {
            if n == 0 {
                return Err(GameError::param(name, "a board needs at least 1"));
            }
        }
        let cells = u64::from(rows) * u64::from(cols);
        if cells > u64::from(MAX_CELLS) {
            return Err(GameError::param(
                "cols",
                format!(
                    "the board {rows}x{cols} has {cells} cells; the numbering of its states \
                     takes at most {MAX_CELLS}"
                ),
            ));
        }
        if cells % 2 == 1 {
            return Err(GameError::param(
                "cols",
                format!("the board {rows}x{cols} has an odd number of cells"),
            ));
        }
        Ok(PerfectMemory::with_cells(cells as u32))
    }

    /// The game on a board of `cells` cells, an even number up to [`MAX_CELLS`].
    fn with_cells(cells: u32) -> Self {
        let run = cells as usize / 4 + 1;
        PerfectMemory {
            cells,
            run,
            per_run: (1u64 << 40).div_ceil(run as u64),
        }
    }

    /// Builds from `--rows` and `--cols`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        PerfectMemory::new(p.int("rows", 1, MAX_CELLS)?, p.int("cols", 1, MAX_CELLS)?)
    }
}

fn q(n: u32, d: u32) -> Rat {
    Rat::new(n as i64, d as i64)
}

impl Model for PerfectMemory {
    type State = State;
    type Move = &'static str;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        let (tag, u, k) = match *state {
            State::MatchesKnown { u, k } => (0u8, u, k),
            State::NewSymbol { u, k } => (1, u, k),
            State::Turn { u, k } => (2, u, k),
        };
        out.push(tag);
        out.extend_from_slice(&u.to_le_bytes());
        out.extend_from_slice(&k.to_le_bytes());
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let (tag, u, k) = (r.u8()?, r.u32()?, r.u32()?);
        let state = match tag {
            0 => State::MatchesKnown { u, k },
            1 => State::NewSymbol { u, k },
            2 => State::Turn { u, k },
            _ => return None,
        };
        r.finish(state)
    }

    fn start(&self) -> State {
        State::Turn {
            u: self.cells,
            k: 0,
        }
    }

    fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, &'static str>) {
        use State::*;
        match *state {
            Turn { u: 0, .. } => node.terminal(0),
            Turn { u, k } => {
                node.decision(Player::Min);
                node.add_random_move("flip an unseen cell", 0);
                if k > 0 {
                    node.add_outcome("its partner is known", q(k, u), 0, MatchesKnown { u, k });
                }
                if u > k {
                    node.add_outcome("a new symbol", q(u - k, u), 0, NewSymbol { u, k });
                }
                if k > 0 {
                    node.add_random_move("flip a known cell, then an unseen one", 0);
                    node.add_outcome("the partner", q(1, u), 1, Turn { u: u - 1, k: k - 1 });
                    if k >= 2 {
                        node.add_outcome(
                            "a known symbol's partner",
                            q(k - 1, u),
                            2,
                            Turn { u: u - 1, k: k - 1 },
                        );
                    }
                    if u > k {
                        node.add_outcome(
                            "a new symbol",
                            q(u - k, u),
                            1,
                            Turn { u: u - 1, k: k + 1 },
                        );
                    }
                }
            }
            MatchesKnown { u, k } => {
                node.decision(Player::Min);
                node.add_move("flip its known partner", 1, Turn { u: u - 1, k: k - 1 });
                if u >= 2 {
                    node.add_random_move("flip another unseen cell", 0);
                    if k >= 2 {
                        node.add_outcome(
                            "another known symbol's partner",
                            q(k - 1, u - 1),
                            3,
                            Turn { u: u - 2, k: k - 2 },
                        );
                    }
                    if u > k {
                        node.add_outcome("a new symbol", q(u - k, u - 1), 2, Turn { u: u - 2, k });
                    }
                }
                if k >= 2 {
                    node.add_move("flip another known cell", 2, Turn { u: u - 1, k: k - 1 });
                }
            }
            NewSymbol { u, k } => {
                node.decision(Player::Min);
                node.add_random_move("flip an unseen cell", 0);
                node.add_outcome("the partner", q(1, u - 1), 1, Turn { u: u - 2, k });
                if k > 0 {
                    node.add_outcome(
                        "a known symbol's partner",
                        q(k, u - 1),
                        2,
                        Turn { u: u - 2, k },
                    );
                }
                if u - 2 > k {
                    node.add_outcome(
                        "another new symbol",
                        q(u - 2 - k, u - 1),
                        1,
                        Turn { u: u - 2, k: k + 2 },
                    );
                }
                if k > 0 {
                    node.add_move("flip a known cell", 1, Turn { u: u - 1, k: k + 1 });
                }
            }
        }
    }

    fn player_label(&self, _player: Player) -> Option<String> {
        Some("the player".to_string())
    }

    fn total_name(&self) -> Option<String> {
        Some("moves".to_string())
    }

    fn show_end(&self, _end: &State, total: Rat) -> Option<String> {
        Some(format!("every pair is found, in {total} moves"))
    }

    fn show_state(&self, s: &State) -> String {
        use State::*;
        let (name, u, k) = match *s {
            Turn { u, k } => ("turn", u, k),
            MatchesKnown { u, k } => ("matches-known", u, k),
            NewSymbol { u, k } => ("new-symbol", u, k),
        };
        format!("{name} unseen={u} known={k}")
    }

    fn show_move(&self, mv: &&'static str) -> String {
        mv.to_string()
    }

    /// States are numbered by `u`, kind and `k`, so the engine interns them without hashing,
    /// and the turns' numbers increase along the sweep below (`u - k` is always even, as every
    /// move keeps its parity and the start has `k = 0` on an even board, so `(u, k / 2)`
    /// determines `k`).
    fn dense_bound(&self) -> usize {
        (self.cells as usize + 1) * 3 * self.run
    }

    #[inline]
    fn dense_index(&self, state: &State) -> Option<usize> {
        use State::*;
        let (kind, u, k) = match *state {
            MatchesKnown { u, k } => (0, u, k),
            NewSymbol { u, k } => (1, u, k),
            Turn { u, k } => (2, u, k),
        };
        let h = k / 2;
        (u <= self.cells && (h as usize) < self.run)
            .then(|| (u as usize * 3 + kind) * self.run + h as usize)
    }

    /// The turns in order of `u`, so that every successor comes first: every move turns one
    /// or two unseen cells, and the first-card states are transient (below). The turns of one
    /// `u` do not depend on each other, so the processor can work on several at once.
    /// Exactly the reachable turns: `k ≤ u`, `k ≤ cells - u` (the seen cells hold the known
    /// singles and matched pairs), `u - k` even and `u ≠ cells - 1`. A test checks this against
    /// exploration.
    fn sweep_len(&self) -> usize {
        (self.cells as usize + 1) * self.run
    }

    #[inline]
    fn sweep_state(&self, rank: usize) -> Option<State> {
        // `rank / self.run` by a multiplication. With `per_run = (2^40 + e) / run` for some
        // `e < run`, the product is `2^40 · (rank / run + rank · e / (run · 2^40))`. The second
        // term is below `1 / run` because `rank · run < 2^40` (ranks are below `20,001 · 5,001`
        // on the largest board), and the fraction of the first is at most `1 - 1 / run`, so
        // the sum does not reach the next integer.
        let u = ((rank as u64 * self.per_run) >> 40) as usize;
        let h = rank - u * self.run;
        let (u, k) = (u as u32, 2 * h as u32 + u as u32 % 2);
        // An odd `u` needs a move that turned one unseen cell and one seen before, so at least
        // two cells have been seen.
        (k <= u && k <= self.cells - u && u + 1 != self.cells).then_some(State::Turn { u, k })
    }

    /// Past the largest `k` of a `u`, the rest of its run holds no turn: on to the next `u`.
    fn sweep_resume(&self, rank: usize) -> usize {
        let u = rank / self.run;
        let k = 2 * (rank - u * self.run) + u % 2;
        let cells = self.cells as usize;
        if k > u || k > cells - u || u + 1 == cells {
            (u + 1) * self.run
        } else {
            rank + 1
        }
    }

    /// The first-card states are reached from the turn of their `(u, k)` only: the sweep
    /// solves them inside it.
    #[inline]
    fn transient(&self, state: &State) -> bool {
        !matches!(state, State::Turn { .. })
    }

    /// A move turns one or two unseen cells, so a successor lies one or two `u` back: the
    /// farthest, from a turn to the turn two cells and two known singles on, is six runs
    /// and one number back.
    fn sweep_window(&self) -> usize {
        6 * self.run + 2
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        use State::*;
        let bad = || crate::notation::bad(text, NOTATION);
        let words: Vec<&str> = text.split_whitespace().collect();
        let [name, u, k] = words.as_slice() else {
            return Err(bad());
        };
        let num = |w: &str, key: &str| -> Result<u32, String> {
            w.strip_prefix(key)
                .and_then(|v| v.parse().ok())
                .ok_or_else(bad)
        };
        let (u, k) = (num(u, "unseen=")?, num(k, "known=")?);
        Ok(match *name {
            "turn" => Turn { u, k },
            "matches-known" => MatchesKnown { u, k },
            "new-symbol" => NewSymbol { u, k },
            _ => return Err(bad()),
        })
    }
}

/// How states are written.
const NOTATION: &str = "'KIND unseen=U known=K' with KIND one of turn (the start of a move), \
    matches-known (the first card turned has a known partner) or new-symbol (it shows a new \
    symbol); e.g. 'turn unseen=12 known=2': U cells never seen, K symbols seen once";

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::{solve, solve_exact, verify::verify_solution};

    fn exact(rows: u32, cols: u32) -> String {
        solve_exact(&PerfectMemory::new(rows, cols).unwrap())
            .unwrap()
            .start_value()
            .to_string()
    }

    #[test]
    fn official_examples() {
        assert_eq!(exact(1, 2), "1");
        assert_eq!(exact(2, 2), "8/3");
        assert_eq!(exact(2, 3), "13/3");
        assert_eq!(exact(4, 4), "558242/45045");
        let v = *solve(&PerfectMemory::new(4, 4).unwrap())
            .unwrap()
            .start_value();
        assert!((v - 12.392984792984793).abs() < 1e-12);
    }

    #[test]
    fn larger_known_answers() {
        let f = |r, c| {
            *solve(&PerfectMemory::new(r, c).unwrap())
                .unwrap()
                .start_value()
        };
        assert!((f(10, 10) - 80.17319926793148).abs() < 1e-9);
        assert!((f(1, 50) - 39.8297557246341).abs() < 1e-9);
    }

    /// The sweep order gives exactly the states exploration reaches, and the same value to
    /// the last bit.
    #[test]
    fn the_sweep_is_the_reachable_states_in_order() {
        use perfectplay::Solver;
        use std::collections::HashSet;
        for (rows, cols) in [
            (1, 2),
            (2, 2),
            (1, 6),
            (2, 3),
            (3, 4),
            (4, 4),
            (1, 50),
            (6, 7),
            (9, 10),
        ] {
            let g = PerfectMemory::new(rows, cols).unwrap();
            let explored = solve(&g).unwrap();
            let reached: HashSet<State> = explored.iter().map(|(s, _)| *s).collect();
            // The sweep lists the turns; the first-card states are transient.
            let turns: HashSet<State> = reached
                .iter()
                .copied()
                .filter(|s| !g.transient(s))
                .collect();
            assert!(turns.len() < reached.len());
            let swept: Vec<State> = (0..g.sweep_len())
                .filter_map(|r| g.sweep_state(r))
                .collect();
            let once: HashSet<State> = swept.iter().copied().collect();
            assert_eq!(once.len(), swept.len(), "{rows}x{cols}");
            let extra: Vec<_> = once.difference(&turns).collect();
            let missing: Vec<_> = turns.difference(&once).collect();
            assert!(
                extra.is_empty() && missing.is_empty(),
                "{rows}x{cols}: swept but not reached {extra:?}, reached but not swept {missing:?}"
            );
            let (value, stats) = Solver::new(&g).start_value::<f64>().unwrap();
            assert!(stats.method.swept());
            // Each first-card state is solved inside its one turn, and counted.
            assert_eq!(stats.states, reached.len());
            assert_eq!(stats.components, explored.stats().components);
            assert_eq!(
                value.to_bits(),
                explored.start_value().to_bits(),
                "{rows}x{cols}"
            );
            let (value, _) = Solver::new(&g).start_value::<perfectplay::Exact>().unwrap();
            assert_eq!(value.to_string(), exact(rows, cols));
            // Successors lie within the window (exactly at its edge from 2x2 on).
            let farthest = crate::sweep_check::check_sweep_window(&g);
            assert!(farthest < g.sweep_window(), "{rows}x{cols}");
            // The jumps pass over no turn (and over some empty ranks once a run has two).
            let passed = crate::sweep_check::check_sweep_resume(&g);
            assert!(rows * cols < 8 || passed > 0, "{rows}x{cols}");
            if rows * cols >= 4 {
                assert_eq!(farthest, g.sweep_window() - 1, "{rows}x{cols}");
            }
        }
    }

    /// Every board size up to 400 cells and the largest ones: the sweep (one thread with its
    /// window, two threads with the whole table) gives the bits of exploring.
    #[test]
    fn every_size_sweeps_to_the_explored_value() {
        use perfectplay::Solver;
        let sizes = (1..=200).map(|h| 2 * h).chain([1998, 2400, 2450, 2500]);
        for cells in sizes {
            let g = PerfectMemory::with_cells(cells);
            let explored = *solve(&g).unwrap().start_value();
            for threads in [1, 2] {
                let (swept, stats) = Solver::new(&g)
                    .threads(threads)
                    .start_value::<f64>()
                    .unwrap();
                assert!(stats.method.swept());
                assert_eq!(swept.to_bits(), explored.to_bits(), "{cells} cells");
            }
        }
    }

    #[test]
    fn certified_by_the_checker() {
        let g = PerfectMemory::new(3, 4).unwrap();
        verify_solution(&g, &solve_exact(&g).unwrap()).unwrap();
    }

    #[test]
    fn bad_boards_name_the_option() {
        assert_eq!(
            PerfectMemory::new(3, 3).unwrap_err().to_string(),
            "cols: the board 3x3 has an odd number of cells"
        );
        assert_eq!(
            PerfectMemory::new(0, 2).unwrap_err().to_string(),
            "rows: a board needs at least 1"
        );
    }
}
