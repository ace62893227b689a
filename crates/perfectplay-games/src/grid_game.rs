//! Grid Game (UVa 11553): on an `n × n` grid, Alice crosses off a row, then Bob a column, and
//! Alice receives the number where they cross; after `n` rounds the value is Alice's total with
//! Alice maximising and Bob minimising.
//!
//! Two methods:
//! - `search`: the engine solves the game as a model whose states are the crossed rows and
//!   columns (plus the row Alice just picked); transpositions are merged by the engine's
//!   interning. Exponential in `n` (the positions are the pairs of equally many crossed rows
//!   and columns, about `4^n / √n`, numbered without gaps so that the engine neither hashes
//!   them nor explores them for `solve`, which sweeps them in order). It accepts `n` up to 13
//!   (BENCHMARKS.md has the time and memory at each size).
//! - `assignment`: the value equals the minimum-weight perfect matching of rows to columns
//!   (Bob can follow one optimal permutation whatever order Alice picks rows in, and Alice can
//!   force at least the matching value because Bob must pair every row with some column), so it
//!   is computed by the Hungarian method with potentials in `O(n³)`.
//!
//! `auto` searches for `n ≤ 8` and uses the assignment method above that. The tests check that
//! both methods agree on hundreds of random grids.

use perfectplay::dynamic::{DynModel, Report, SolveOptions, Solved};
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, SolveError, Stats};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "grid-game",
    summary: "Alice crosses rows, Bob columns, Alice gets the crossings; value = Alice's total",
    params: &[
        ParamSpec {
            name: "grid",
            value: "ROWS",
            help: "the grid: rows separated by ';' or newlines, numbers by spaces or commas, e.g. \"10 10; -5 -5\"",
            kind: ParamKind::Text,
            default: None,
            required: true,
        },
        ParamSpec {
            name: "method",
            value: "M",
            help: "search | assignment | auto (search up to n = 8, assignment above); search \
                   grows like 4^n: solve takes 0.1 s at n = 10, 2.2 s at n = 12, 10 s and \
                   0.6 GB at n = 13, its limit (explain and the other commands about 3 times \
                   as long and 2.4 GB at n = 13)",
            kind: ParamKind::Choice(&["search", "assignment", "auto"]),
            default: Some("auto"),
            required: false,
        },
    ],
    example: &[("grid", "10 10; -5 -5")],
    notation: Some(NOTATION),
    build: build_dyn,
};

/// How to solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Minimax search by the engine.
    Search,
    /// Minimum-weight perfect matching.
    Assignment,
    /// Search for small grids, assignment for large ones.
    Auto,
}

/// Largest grid the search method accepts: its state count grows like 4^n (78 million at
/// n = 13), and exploring n = 14 would need more memory than a common machine has.
pub const MAX_SEARCH: usize = 13;
/// Largest absolute grid value.
pub const MAX_ABS: i64 = 1_000_000_000;

/// The game on a square grid.
#[derive(Clone, Debug)]
pub struct GridGame {
    grid: Vec<Vec<i64>>,
    /// The numbering of the positions, for grids the search handles.
    numbering: Option<Numbering>,
}

/// Positions numbered one-to-one, with no gaps: `k` crossed rows and columns are one of
/// `C(n, k)` sets each, ranked in colex order, so Alice's positions with `k` rounds played are
/// `C(n, k)²` numbers and Bob's `C(n, k)² (n − k)` (the row Alice just crossed is one of the
/// `n − k` left). Blocks go by `k` from `n` down, Bob's before Alice's, so every position comes
/// after the positions it leads to: the numbering is also the sweep order.
#[derive(Clone, Debug)]
struct Numbering {
    /// The colex rank of each set among the sets of its size.
    rank: Vec<u32>,
    /// Per size `k`, the sets in rank order.
    sets: Vec<Vec<u32>>,
    /// Per `k`: the first number of Bob's block and of Alice's.
    bob: Vec<usize>,
    alice: Vec<usize>,
    /// How many numbers.
    numbers: usize,
}

impl Numbering {
    fn new(n: usize) -> Numbering {
        let mut sets: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        let mut rank = vec![0u32; 1 << n];
        // Colex order: increasing as numbers, within each size.
        for m in 0..1u32 << n {
            let k = m.count_ones() as usize;
            rank[m as usize] = sets[k].len() as u32;
            sets[k].push(m);
        }
        let (mut bob, mut alice) = (vec![0; n + 1], vec![0; n + 1]);
        let mut numbers = 0;
        for k in (0..=n).rev() {
            let c = sets[k].len();
            bob[k] = numbers;
            numbers += c * c * (n - k);
            alice[k] = numbers;
            numbers += c * c;
        }
        Numbering {
            rank,
            sets,
            bob,
            alice,
            numbers,
        }
    }

    fn number(&self, n: usize, s: &State) -> Option<usize> {
        let k = s.rows.count_ones() as usize;
        if s.rows >> n != 0 || s.cols >> n != 0 || s.cols.count_ones() as usize != k {
            return None;
        }
        let c = self.sets[k].len();
        let pair = self.rank[s.rows as usize] as usize * c + self.rank[s.cols as usize] as usize;
        match s.pending {
            None => Some(self.alice[k] + pair),
            Some(r) if (r as usize) < n && s.rows >> r & 1 == 0 => {
                // The row's place among the rows not crossed.
                let below = (s.rows & ((1 << r) - 1)).count_ones();
                Some(self.bob[k] + pair * (n - k) + (r as u32 - below) as usize)
            }
            Some(_) => None,
        }
    }

    /// The position with number `i` (the inverse of `number`).
    fn state(&self, n: usize, i: usize) -> Option<State> {
        if i >= self.numbers {
            return None;
        }
        // Blocks by `k` from `n` down: the block of `k` is the last that starts at or before `i`.
        let k = (0..=n).find(|&k| self.bob[k] <= i)?;
        let c = self.sets[k].len();
        let (pair, pending) = if i >= self.alice[k] {
            (i - self.alice[k], None)
        } else {
            let j = i - self.bob[k];
            (j / (n - k), Some(j % (n - k)))
        };
        let (rows, cols) = (self.sets[k][pair / c], self.sets[k][pair % c]);
        let pending = match pending {
            None => None,
            // The `place`-th row not crossed.
            Some(place) => Some((0..n as u32).filter(|r| rows >> r & 1 == 0).nth(place)? as u8),
        };
        Some(State {
            rows,
            cols,
            pending,
        })
    }
}

/// A position: crossed rows and columns as bit sets, and the row Alice just crossed if it is
/// Bob's turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Crossed rows.
    pub rows: u32,
    /// Crossed columns.
    pub cols: u32,
    /// The row Alice crossed this round, waiting for Bob's column.
    pub pending: Option<u8>,
}

/// Parses a grid: rows separated by `;` or newlines, numbers by spaces or commas. Errors name
/// the row (as an input line).
pub fn parse_grid(text: &str) -> Result<Vec<Vec<i64>>, GameError> {
    let rows: Vec<&str> = text
        .split(['\n', ';'])
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect();
    let mut grid = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let row: Result<Vec<i64>, GameError> = r
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(|t| {
                let v: i64 = t.parse().map_err(|_| GameError::Input {
                    line: i + 1,
                    message: if crate::params::is_integer(t) {
                        format!("{t} is out of range -{MAX_ABS}..={MAX_ABS}")
                    } else {
                        format!("expected an integer, got '{t}'")
                    },
                })?;
                if v.abs() > MAX_ABS {
                    return Err(GameError::Input {
                        line: i + 1,
                        message: format!("{v} is out of range -{MAX_ABS}..={MAX_ABS}"),
                    });
                }
                Ok(v)
            })
            .collect();
        grid.push(row?);
    }
    if grid.is_empty() {
        return Err(GameError::Input {
            line: 1,
            message: "the grid is empty".to_string(),
        });
    }
    let n = grid.len();
    if let Some(i) = grid.iter().position(|r| r.len() != n) {
        return Err(GameError::Input {
            line: i + 1,
            message: format!(
                "the grid is not square: {n} rows but row {} has {} numbers",
                i + 1,
                grid[i].len()
            ),
        });
    }
    Ok(grid)
}

impl GridGame {
    /// The game on a square grid (at least 1 × 1).
    pub fn new(grid: Vec<Vec<i64>>) -> Result<Self, GameError> {
        let n = grid.len();
        if n == 0 || grid.iter().any(|r| r.len() != n) {
            return Err(GameError::param(
                "grid",
                "the grid must be square and non-empty",
            ));
        }
        let numbering = (n <= MAX_SEARCH).then(|| Numbering::new(n));
        Ok(GridGame { grid, numbering })
    }

    /// The size `n`.
    pub fn n(&self) -> usize {
        self.grid.len()
    }

    /// The value by minimum-weight perfect matching (Hungarian method with potentials).
    pub fn assignment_value(&self) -> i64 {
        let n = self.n();
        let inf = i64::MAX / 4;
        // 1-based arrays; column 0 is a virtual start.
        let mut u = vec![0i64; n + 1];
        let mut v = vec![0i64; n + 1];
        let mut owner = vec![0usize; n + 1];
        let mut way = vec![0usize; n + 1];
        for row in 1..=n {
            owner[0] = row;
            let mut col0 = 0usize;
            let mut minv = vec![inf; n + 1];
            let mut used = vec![false; n + 1];
            loop {
                used[col0] = true;
                let r0 = owner[col0];
                let mut delta = inf;
                let mut col1 = 0;
                for c in 1..=n {
                    if !used[c] {
                        let cur = self.grid[r0 - 1][c - 1] - u[r0] - v[c];
                        if cur < minv[c] {
                            minv[c] = cur;
                            way[c] = col0;
                        }
                        if minv[c] < delta {
                            delta = minv[c];
                            col1 = c;
                        }
                    }
                }
                for c in 0..=n {
                    if used[c] {
                        u[owner[c]] += delta;
                        v[c] -= delta;
                    } else {
                        minv[c] -= delta;
                    }
                }
                col0 = col1;
                if owner[col0] == 0 {
                    break;
                }
            }
            loop {
                let c1 = way[col0];
                owner[col0] = owner[c1];
                col0 = c1;
                if col0 == 0 {
                    break;
                }
            }
        }
        (1..=n).map(|c| self.grid[owner[c] - 1][c - 1]).sum()
    }
}

/// A move: the row Alice crosses, or the column Bob answers with (numbered from 0; shown from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// Alice crosses this row.
    Row(u8),
    /// Bob crosses this column.
    Column(u8),
}

impl Model for GridGame {
    type State = State;
    type Move = Label;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        out.extend_from_slice(&state.rows.to_le_bytes());
        out.extend_from_slice(&state.cols.to_le_bytes());
        out.push(state.pending.map_or(u8::MAX, |r| r));
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let state = State {
            rows: r.u32()?,
            cols: r.u32()?,
            pending: Some(r.u8()?).filter(|&p| p != u8::MAX),
        };
        r.finish(state)
    }

    fn start(&self) -> State {
        State {
            rows: 0,
            cols: 0,
            pending: None,
        }
    }

    fn expand(&self, s: &State, node: &mut impl NodeBuilder<State, Label>) {
        let n = self.n();
        match s.pending {
            None if s.rows.count_ones() as usize == n => node.terminal(0),
            None => {
                node.decision(Player::Max);
                for r in (0..n).filter(|r| s.rows >> r & 1 == 0) {
                    let next = State {
                        pending: Some(r as u8),
                        ..*s
                    };
                    node.add_move(Label::Row(r as u8), 0, next);
                }
            }
            Some(r) => {
                node.decision(Player::Min);
                for c in (0..n).filter(|c| s.cols >> c & 1 == 0) {
                    let next = State {
                        rows: s.rows | 1 << r,
                        cols: s.cols | 1 << c,
                        pending: None,
                    };
                    let gain = self.grid[r as usize][c];
                    node.add_move(Label::Column(c as u8), gain, next);
                }
            }
        }
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(match player {
            Player::Max => "Alice".to_string(),
            Player::Min => "Bob".to_string(),
        })
    }

    fn total_name(&self) -> Option<String> {
        Some("Alice's total".to_string())
    }

    fn show_end(&self, _end: &State, total: perfectplay::Rat) -> Option<String> {
        Some(format!(
            "every row and column is crossed: Alice gets {total}"
        ))
    }

    fn show_state(&self, s: &State) -> String {
        let set = |m: u32| {
            let v: Vec<String> = (0..self.n())
                .filter(|i| m >> i & 1 == 1)
                .map(|i| (i + 1).to_string())
                .collect();
            format!("{{{}}}", v.join(","))
        };
        match s.pending {
            None => format!("crossed rows {} columns {}", set(s.rows), set(s.cols)),
            Some(r) => format!(
                "crossed rows {} columns {}, Bob answers row {}",
                set(s.rows),
                set(s.cols),
                r + 1
            ),
        }
    }

    fn show_move(&self, mv: &Label) -> String {
        match *mv {
            Label::Row(r) => format!("row {}", r + 1),
            Label::Column(c) => format!("column {}", c + 1),
        }
    }

    /// Positions are numbered one-to-one with no gaps (see `Numbering`), so the engine interns
    /// them without hashing.
    fn dense_bound(&self) -> usize {
        self.numbering.as_ref().map_or(0, |m| m.numbers)
    }

    fn dense_index(&self, s: &State) -> Option<usize> {
        self.numbering.as_ref()?.number(self.n(), s)
    }

    /// The positions by rounds played, most first, Bob's before Alice's: every move crosses
    /// something, so every successor comes first.
    fn sweep_len(&self) -> usize {
        self.numbering.as_ref().map_or(0, |m| m.numbers)
    }

    fn sweep_state(&self, rank: usize) -> Option<State> {
        self.numbering.as_ref()?.state(self.n(), rank)
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        let bad = || crate::notation::bad(text, NOTATION);
        let (head, rows, rest) = crate::notation::split_list(text, '{', '}').ok_or_else(bad)?;
        let (mid, cols, rest) = crate::notation::split_list(rest, '{', '}').ok_or_else(bad)?;
        if head != "crossed rows" || mid != "columns" {
            return Err(bad());
        }
        let n = self.n() as u32;
        let set = |items: &[u32]| -> Result<u32, String> {
            items.iter().try_fold(0u32, |m, &i| {
                if (1..=n).contains(&i) {
                    Ok(m | 1 << (i - 1))
                } else {
                    Err(format!("'{text}': {i} is not in 1..={n}"))
                }
            })
        };
        let pending = match rest.strip_prefix(',').map(str::trim) {
            None if rest.is_empty() => None,
            Some(r) => match r.strip_prefix("Bob answers row ").map(str::parse::<u32>) {
                Some(Ok(row)) if (1..=n).contains(&row) => Some((row - 1) as u8),
                _ => return Err(bad()),
            },
            None => return Err(bad()),
        };
        let (rows, cols) = (set(&rows)?, set(&cols)?);
        // Alice and Bob cross one line each per round, Alice first.
        if rows.count_ones() != cols.count_ones() {
            return Err(format!(
                "'{text}': {} rows and {} columns crossed; every round crosses one of each \
                 (Alice's row waiting for Bob's column is written ', Bob answers row R')",
                rows.count_ones(),
                cols.count_ones()
            ));
        }
        if let Some(row) = pending.filter(|&r| rows & 1 << r != 0) {
            return Err(format!("'{text}': row {} is crossed already", row + 1));
        }
        Ok(State {
            rows,
            cols,
            pending,
        })
    }
}

/// How states are written.
const NOTATION: &str = "'crossed rows {R1,R2,...} columns {C1,...}', adding ', Bob answers \
    row R' when Alice has just crossed row R (rows and columns count from 1; e.g. \
    'crossed rows {1} columns {2}')";

/// The assignment method behind the front-end interface.
struct ByAssignment(GridGame);

impl DynModel for ByAssignment {
    fn solve_report(&self, options: SolveOptions<'_>) -> Result<Report, SolveError> {
        let started = std::time::Instant::now();
        let v = self.0.assignment_value();
        Ok(Report {
            value: v as f64,
            exact: options.exact.then(|| v.to_string()),
            stats: Stats {
                seconds: started.elapsed().as_secs_f64(),
                method: perfectplay::Method::Own { name: "assignment" },
                ..Stats::default()
            },
        })
    }

    fn solve_dyn(
        &self,
        _: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync + '_>, SolveError> {
        Err(value_only())
    }

    fn solve_shared(
        self: std::sync::Arc<Self>,
        _: SolveOptions<'_>,
    ) -> Result<Box<dyn Solved + Send + Sync>, SolveError>
    where
        Self: 'static,
    {
        Err(value_only())
    }

    fn encoded(&self) -> &dyn perfectplay::encoded::EncodedModel {
        &self.0
    }
}

/// Why the assignment method answers nothing but the value.
fn value_only() -> SolveError {
    SolveError::Unsupported(format!(
        "the assignment method computes only the value; explain, play, distribution and \
         strategy need the state search (--method search, n ≤ {MAX_SEARCH})"
    ))
}

fn read_grid(p: &Params) -> Result<Vec<Vec<i64>>, GameError> {
    let text = p.required("grid")?;
    parse_grid(text).map_err(|e| match e {
        GameError::Input { line, message } => {
            GameError::param("grid", format!("row {line}: {message}"))
        }
        other => other,
    })
}

fn parse_method(text: &str) -> Result<Method, GameError> {
    match text {
        "search" => Ok(Method::Search),
        "assignment" => Ok(Method::Assignment),
        "auto" => Ok(Method::Auto),
        _ => Err(GameError::param(
            "method",
            format!("unknown method '{text}'; expected search, assignment or auto"),
        )),
    }
}

fn build_dyn(p: &Params) -> Result<Box<dyn DynModel>, GameError> {
    let method = parse_method(p.required("method")?)?;
    let game = GridGame::new(read_grid(p)?)?;
    let n = game.n();
    match method {
        Method::Search if n > MAX_SEARCH => Err(GameError::param(
            "method",
            format!("search handles n <= {MAX_SEARCH}; this grid has n = {n}, use assignment"),
        )),
        Method::Search => Ok(Box::new(game)),
        Method::Auto if n <= 8 => Ok(Box::new(game)),
        _ => Ok(Box::new(ByAssignment(game))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::solve;

    fn search(grid: &str) -> f64 {
        *solve(&GridGame::new(parse_grid(grid).unwrap()).unwrap())
            .unwrap()
            .start_value()
    }

    #[test]
    fn samples() {
        assert_eq!(search("10 10; -5 -5"), 5.0);
        assert_eq!(search("10 -5\n10 -5"), 5.0);
        assert_eq!(search("10,-5;-5,10"), -10.0);
        assert_eq!(search("1 -2 -3; -3 4 -5; -2 1 3"), -9.0);
    }

    #[test]
    fn search_and_assignment_agree_on_random_grids() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 2001) as i64 - 1000
        };
        for round in 0..300 {
            let n = 1 + round % 7;
            let grid: Vec<Vec<i64>> = (0..n).map(|_| (0..n).map(|_| next()).collect()).collect();
            let g = GridGame::new(grid).unwrap();
            let s = *solve(&g).unwrap().start_value();
            assert_eq!(s, g.assignment_value() as f64, "round {round}: {g:?}");
            // The sweep (what `solve` runs) gives the same value.
            let (swept, stats) = perfectplay::Solver::new(&g).start_value::<f64>().unwrap();
            assert!(stats.method.swept());
            assert_eq!(swept, s, "round {round}");
        }
        // Larger grids on several threads: the same value as one thread and as the
        // assignment method.
        for round in 0..6 {
            let n = 8 + round % 2;
            let grid: Vec<Vec<i64>> = (0..n).map(|_| (0..n).map(|_| next()).collect()).collect();
            let g = GridGame::new(grid).unwrap();
            let solver = || perfectplay::Solver::new(&g);
            let (one, _) = solver().start_value::<f64>().unwrap();
            let (two, stats) = solver()
                .threads(2 + round % 3)
                .start_value::<f64>()
                .unwrap();
            assert_eq!(
                (one, two),
                (g.assignment_value() as f64, one),
                "round {round}"
            );
            assert!(stats.method.swept());
        }
    }

    /// The numbering is one-to-one with no gaps over exactly the positions the search reaches,
    /// and the sweep lists each of them once.
    #[test]
    fn positions_are_numbered_without_gaps() {
        use std::collections::HashSet;
        for n in 1..=6 {
            let g = GridGame::new(vec![vec![1; n]; n]).unwrap();
            let explored = solve(&g).unwrap();
            let mut seen = vec![false; g.dense_bound()];
            for (s, _) in explored.iter() {
                let i = g.dense_index(s).unwrap();
                assert!(!std::mem::replace(&mut seen[i], true), "n = {n}: {s:?}");
            }
            assert!(seen.iter().all(|&s| s), "n = {n}: a number no position has");
            let swept: Vec<State> = (0..g.sweep_len())
                .filter_map(|r| g.sweep_state(r))
                .collect();
            let once: HashSet<State> = swept.iter().copied().collect();
            assert_eq!((once.len(), swept.len()), (explored.len(), explored.len()));
            assert!(explored.iter().all(|(s, _)| once.contains(s)));
            // Positions outside the game have no number.
            let outside = |rows: u32, cols: u32, pending: Option<u8>| State {
                rows,
                cols,
                pending,
            };
            assert_eq!(g.dense_index(&outside(1, 3, None)), None);
            assert_eq!(g.dense_index(&outside(1, 1, Some(0))), None);
            assert_eq!(g.dense_index(&outside(1 << n, 1, None)), None);
            assert_eq!(g.dense_index(&outside(0, 0, Some(n as u8))), None);
        }
    }

    #[test]
    fn bad_grids_are_named() {
        let e = parse_grid("1 2; 3").unwrap_err().to_string();
        assert_eq!(
            e,
            "input line 2: the grid is not square: 2 rows but row 2 has 1 numbers"
        );
        let e = parse_grid("1 x").unwrap_err().to_string();
        assert_eq!(e, "input line 1: expected an integer, got 'x'");
        assert!(parse_grid(" ; ").is_err());
    }

    #[test]
    fn search_beyond_its_limit_is_refused_by_name() {
        let grid = |n: usize| vec![vec!["1"; n].join(" "); n].join("; ");
        let build = |n: usize, method: &str| {
            let mut p = Params::new();
            p.set("grid", grid(n)).set("method", method);
            build_dyn(&p)
        };
        let e = build(MAX_SEARCH + 1, "search").err().unwrap().to_string();
        assert_eq!(
            e,
            "method: search handles n <= 13; this grid has n = 14, use assignment"
        );
        assert!(build(MAX_SEARCH + 1, "auto").is_ok());
        assert!(build(MAX_SEARCH + 1, "assignment").is_ok());
        assert!(build(MAX_SEARCH, "search").is_ok());
    }

    #[test]
    fn large_grid_by_assignment() {
        // A grid whose optimal matching is the diagonal of zeros.
        let n = 200;
        let grid: Vec<Vec<i64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if i == j {
                            0
                        } else {
                            1 + ((i * 7 + j * 13) % 50) as i64
                        }
                    })
                    .collect()
            })
            .collect();
        assert_eq!(GridGame::new(grid).unwrap().assignment_value(), 0);
    }
}
