//! Gold pots: two players alternately take the leftmost or rightmost pot of a line; the value is
//! the first player's total. Four variants choose the players' objectives and knowledge:
//!
//! | variant | play |
//! |---|---|
//! | `competitive-known` | zero-sum: the first player (Max) against the second (Min) |
//! | `cooperative-known` | both players maximise the first player's total |
//! | `competitive-unknown` | each player takes the larger end pot (ties: the right one) |
//! | `cooperative-unknown` | the first takes the larger end (ties: right), the second the smaller (ties: left) |
//!
//! Every pot is taken; with an odd count the first player takes the last one. An empty line is
//! worth 0.
//!
//! # Model
//! A state is the remaining interval `[i, j)`; whose turn it is follows from its length. The
//! first player's moves carry the pot as reward. The unknown variants are fixed policies: each
//! state offers its player the one move the rule prescribes. No game logic lives in the
//! engine: the variants differ only in who is `Max` or `Min` and which moves are offered.

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "gold-pots",
    summary: "take pots from either end of a line in turn; value = the first player's gold",
    params: &[
        ParamSpec {
            name: "pots",
            value: "LIST",
            help: "pot values in 0..=1000000, comma-separated (may be empty: --pots ''); up to 100,000 pots, 16,000 in the known variants, which have about n²/2 states: `solve` takes about 1.5 s at 10,000 pots and 5 s at 16,000, in a few MB; the commands that explore every state (explain, strategy, …) about 5 s and 1.8 GB at 10,000 and 20 s and 4.5 GB at 16,000",
            kind: ParamKind::IntList { min: 0, max: 1_000_000, len: (0, MAX_POTS) },
            default: None,
            required: true,
        },
        ParamSpec {
            name: "variant",
            value: "V",
            help:
                "competitive-known | cooperative-known | competitive-unknown | cooperative-unknown",
            kind: ParamKind::Choice(&["competitive-known", "cooperative-known", "competitive-unknown", "cooperative-unknown"]),
            default: Some("competitive-known"),
            required: false,
        },
    ],
    example: &[("pots", "4,1,2,10,3"), ("variant", "competitive-known")],
    notation: Some(NOTATION),
    build: |p| Ok(Box::new(GoldPots::from_params(p)?) as Box<dyn DynModel>),
};

/// Who plays how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Zero-sum with full information.
    CompetitiveKnown,
    /// Both maximise the first player's total.
    CooperativeKnown,
    /// Both greedily take the larger end pot.
    CompetitiveUnknown,
    /// The first takes the larger end pot, the second the smaller one.
    CooperativeUnknown,
}

impl Variant {
    /// Parses a variant name (`-` or `_` between words).
    pub fn parse(text: &str) -> Result<Variant, GameError> {
        match text.replace('_', "-").as_str() {
            "competitive-known" => Ok(Variant::CompetitiveKnown),
            "cooperative-known" => Ok(Variant::CooperativeKnown),
            "competitive-unknown" => Ok(Variant::CompetitiveUnknown),
            "cooperative-unknown" => Ok(Variant::CooperativeUnknown),
            _ => Err(GameError::param(
                "variant",
                format!(
                    "unknown variant '{text}'; expected competitive-known, cooperative-known, \
                     competitive-unknown or cooperative-unknown"
                ),
            )),
        }
    }
}

/// The game on a line of pots.
#[derive(Clone, Debug)]
pub struct GoldPots {
    pots: Vec<u32>,
    variant: Variant,
}

/// The remaining pots `[i, j)`.
pub type State = (u32, u32);

/// Largest number of pots in the unknown variants (they reach about n intervals).
pub const MAX_POTS: usize = 100_000;

/// Largest number of pots in the known variants, which have (n + 1)(n + 2)/2 intervals, 128
/// million at this size: `solve` sweeps them keeping only the values of two lengths, but every
/// other command explores and keeps them all, which is what bounds the size (BENCHMARKS.md has
/// the time and memory).
pub const MAX_KNOWN_POTS: usize = 16_000;

impl GoldPots {
    /// The game on `pots` with a variant.
    pub fn new(pots: &[u32], variant: Variant) -> Result<Self, GameError> {
        if pots.len() > MAX_POTS {
            return Err(GameError::param(
                "pots",
                format!("{} pots; at most {MAX_POTS} are supported", pots.len()),
            ));
        }
        let known = matches!(
            variant,
            Variant::CompetitiveKnown | Variant::CooperativeKnown
        );
        if known && pots.len() > MAX_KNOWN_POTS {
            return Err(GameError::param(
                "pots",
                format!(
                    "{} pots in a known variant; at most {MAX_KNOWN_POTS} are supported (every \
                     interval of the line is a state: {MAX_KNOWN_POTS} pots are 128 million); \
                     the unknown variants take up to {MAX_POTS}",
                    pots.len()
                ),
            ));
        }
        Ok(GoldPots {
            pots: pots.to_vec(),
            variant,
        })
    }

    /// Builds from `--pots` and `--variant`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        let pots = p.int_list("pots", 0, 1_000_000, (0, MAX_POTS))?;
        let variant = Variant::parse(p.required("variant")?)?;
        GoldPots::new(&pots, variant)
    }

    /// The sweep's stride: the bits of the largest start of an interval.
    fn stride_bits(&self) -> u32 {
        usize::BITS - self.pots.len().leading_zeros()
    }

    fn first_to_move(&self, (i, j): State) -> bool {
        (self.pots.len() as u32 - (j - i)) % 2 == 0
    }
}

impl Model for GoldPots {
    type State = State;
    type Move = &'static str;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, &(i, j): &State, out: &mut Vec<u8>) {
        out.extend_from_slice(&i.to_le_bytes());
        out.extend_from_slice(&j.to_le_bytes());
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let state = (r.u32()?, r.u32()?);
        (state.0 <= state.1 && state.1 as usize <= self.pots.len())
            .then_some(())
            .and_then(|()| r.finish(state))
    }

    fn start(&self) -> State {
        (0, self.pots.len() as u32)
    }

    fn expand(&self, &(i, j): &State, node: &mut impl NodeBuilder<State, &'static str>) {
        if i == j {
            return node.terminal(0);
        }
        let first = self.first_to_move((i, j));
        let (left, right) = (self.pots[i as usize], self.pots[j as usize - 1]);
        let gain = |pot: u32| if first { pot as i64 } else { 0 };
        use Variant::*;
        let player = match (self.variant, first) {
            (CompetitiveKnown, false) => Player::Min,
            _ => Player::Max,
        };
        node.decision(player);
        let take_left = match (self.variant, first) {
            (CompetitiveKnown | CooperativeKnown, _) => None,
            (CompetitiveUnknown, _) | (CooperativeUnknown, true) => Some(left > right),
            // The second player leaves the larger pot: takes the right one only if it is the
            // smaller, ties going left.
            (CooperativeUnknown, false) => Some(left <= right),
        };
        if take_left != Some(false) {
            node.add_move("left", gain(left), (i + 1, j));
        }
        if take_left != Some(true) && j - i > 1 {
            node.add_move("right", gain(right), (i, j - 1));
        }
        if take_left == Some(false) && j - i == 1 {
            node.add_move("left", gain(left), (i + 1, j));
        }
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(
            match (self.variant, player) {
                (Variant::CompetitiveKnown, Player::Max) => "the first player",
                (Variant::CompetitiveKnown, Player::Min) => "the second player",
                // Every decision maximises the first player's gold.
                _ => "the player to move",
            }
            .to_string(),
        )
    }

    fn total_name(&self) -> Option<String> {
        Some("gold of the first player".to_string())
    }

    fn show_end(&self, _end: &State, total: perfectplay::Rat) -> Option<String> {
        // The total is the first player's gold, a whole number.
        let all: i64 = self.pots.iter().map(|&p| i64::from(p)).sum();
        let (first, _) = total.parts()?;
        Some(format!(
            "the first player has {first} gold, the second {}",
            all - first
        ))
    }

    fn show_state(&self, &(i, j): &State) -> String {
        let who = if self.first_to_move((i, j)) {
            "first"
        } else {
            "second"
        };
        format!("pots {i}..{j} ({who} player to move)")
    }

    fn show_move(&self, mv: &&'static str) -> String {
        mv.to_string()
    }

    /// In the known variants intervals are numbered by length and then start: the `n + 1 - l`
    /// intervals of length `l` follow those shorter, so both successors of `i..j` (the
    /// intervals `i + 1..j` and `i..j - 1`, one shorter) are neighbours, at positions `i + 1`
    /// and `i` of the previous length. The unknown variants reach only about n intervals,
    /// and hash.
    fn dense_bound(&self) -> usize {
        let n = self.pots.len() + 1;
        match self.variant {
            Variant::CompetitiveKnown | Variant::CooperativeKnown => n * (n + 1) / 2,
            Variant::CompetitiveUnknown | Variant::CooperativeUnknown => 0,
        }
    }

    fn dense_index(&self, &(i, j): &State) -> Option<usize> {
        let (i, j, n) = (i as usize, j as usize, self.pots.len());
        (i <= j && j <= n).then(|| {
            let l = j - i;
            // Lengths below `l` hold the sum over m < l of n + 1 - m intervals,
            // l (n + 1) - l (l - 1) / 2 = l (2n + 3 - l) / 2 (an even product).
            l * (2 * n + 3 - l) / 2 + i
        })
    }

    /// In the known variants, intervals by length (a move leads to an interval one shorter)
    /// and for each length by start, which walks the numbering in order. The states of one
    /// length do not depend on each other, so threads can share a length. Each length has a
    /// run of a power-of-two stride, so that a rank splits into length and start by a
    /// shift. Every interval but `0..0` is reachable (a single pot is always taken from the
    /// left).
    fn sweep_len(&self) -> usize {
        match self.variant {
            Variant::CompetitiveKnown | Variant::CooperativeKnown => {
                (self.pots.len() + 1) << self.stride_bits()
            }
            Variant::CompetitiveUnknown | Variant::CooperativeUnknown => 0,
        }
    }

    fn sweep_state(&self, rank: usize) -> Option<State> {
        let bits = self.stride_bits();
        let (l, i) = (rank >> bits, rank & ((1 << bits) - 1));
        let reached = l > 0 || i > 0 || self.pots.is_empty();
        (i + l <= self.pots.len() && reached).then(|| (i as u32, (i + l) as u32))
    }

    /// Past the last start of a length, the rest of its run holds no interval: on to the
    /// next length.
    fn sweep_resume(&self, rank: usize) -> usize {
        let bits = self.stride_bits();
        let (l, i) = (rank >> bits, rank & ((1 << bits) - 1));
        if i + l > self.pots.len() {
            (l + 1) << bits
        } else {
            rank + 1
        }
    }

    /// A move leads to an interval one shorter, at most `n` numbers back (from `i..i + 1` to
    /// `i + 1..i + 1`, and from `i..i + 2` to `i..i + 1`).
    fn sweep_window(&self) -> usize {
        self.pots.len() + 1
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        let bad = || crate::notation::bad(text, NOTATION);
        let rest = text.trim().strip_prefix("pots ").ok_or_else(bad)?;
        let (range, mover) = match rest.split_once(char::is_whitespace) {
            Some((range, mover)) => (range, Some(mover.trim())),
            None => (rest, None),
        };
        let (i, j) = range.split_once("..").ok_or_else(bad)?;
        let (i, j): (u32, u32) = (i.parse().map_err(|_| bad())?, j.parse().map_err(|_| bad())?);
        if i > j || j as usize > self.pots.len() {
            return Err(format!(
                "'{text}': need 0 <= I <= J <= {} (the number of pots)",
                self.pots.len()
            ));
        }
        // Whose turn it is follows from the pots taken; a text that names a player must name
        // that one.
        let first = self.first_to_move((i, j));
        match mover {
            None => {}
            Some("(first player to move)") if first => {}
            Some("(second player to move)") if !first => {}
            Some("(first player to move)" | "(second player to move)") => {
                return Err(format!(
                    "'{text}': with {} pots taken it is the {} player's turn",
                    self.pots.len() as u32 - (j - i),
                    if first { "first" } else { "second" }
                ))
            }
            Some(_) => return Err(bad()),
        }
        Ok((i, j))
    }
}

/// How states are written.
const NOTATION: &str = "'pots I..J': pots I to J-1 remain, counted from 0 (e.g. 'pots 1..4'); \
    whose turn it is follows from the count, and may be added as explain prints it: \
    'pots 1..4 (second player to move)'";

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::{solve, solve_exact, verify::verify_solution};

    /// Lines too long for the known variants are refused at once, by name and with the limit.
    #[test]
    fn known_variants_refuse_lines_beyond_their_limit() {
        let long = vec![1; MAX_KNOWN_POTS + 1];
        for v in [Variant::CompetitiveKnown, Variant::CooperativeKnown] {
            let e = GoldPots::new(&long, v).unwrap_err().to_string();
            assert!(e.starts_with("pots: 16001 pots in a known variant"), "{e}");
            assert!(e.contains("at most 16000"), "{e}");
        }
        let g = GoldPots::new(&long, Variant::CompetitiveUnknown).unwrap();
        assert_eq!(*solve(&g).unwrap().start_value(), 8001.0);
        assert!(GoldPots::new(&long[1..], Variant::CooperativeKnown).is_ok());
    }

    /// The numbering of intervals fills `0..dense_bound` exactly, one number each.
    #[test]
    fn intervals_are_numbered_one_to_one() {
        for n in 0..12u32 {
            let g = GoldPots::new(&vec![1; n as usize], Variant::CompetitiveKnown).unwrap();
            let mut seen = vec![false; g.dense_bound()];
            for j in 0..=n {
                for i in 0..=j {
                    let k = g.dense_index(&(i, j)).unwrap();
                    assert!(!std::mem::replace(&mut seen[k], true), "{i}..{j}");
                }
            }
            assert!(seen.iter().all(|&s| s));
            assert_eq!(g.dense_index(&(n, n + 1)), None);
            assert_eq!(g.dense_index(&(1, 0)), None);
        }
    }

    fn value(pots: &[u32], v: Variant) -> f64 {
        let g = GoldPots::new(pots, v).unwrap();
        let e = solve_exact(&g).unwrap();
        verify_solution(&g, &e).unwrap();
        *solve(&g).unwrap().start_value()
    }

    #[test]
    fn the_blogs_fourteen_asserts() {
        let cases: [(&[u32], f64, f64); 7] = [
            (&[1, 2], 2.0, 2.0),
            (&[1, 3, 2], 3.0, 5.0),
            (&[1, 2, 10, 3], 11.0, 13.0),
            (&[4, 1, 2, 10], 12.0, 14.0),
            (&[4, 1, 2, 10, 3], 9.0, 17.0),
            (&[5, 4, 1, 2, 10], 15.0, 19.0),
            (&[5, 4, 1, 2, 10, 3], 16.0, 19.0),
        ];
        for (pots, comp, coop) in cases {
            assert_eq!(value(pots, Variant::CompetitiveKnown), comp, "{pots:?}");
            assert_eq!(value(pots, Variant::CooperativeKnown), coop, "{pots:?}");
        }
    }

    #[test]
    fn unknown_variants_follow_the_tie_rules() {
        assert_eq!(value(&[4, 1, 2, 10, 3], Variant::CompetitiveUnknown), 15.0);
        assert_eq!(value(&[4, 1, 2, 10, 3], Variant::CooperativeUnknown), 17.0);
        // All pots are taken: the first player gets the last pot of an odd line.
        assert_eq!(value(&[1, 3, 2], Variant::CompetitiveUnknown), 3.0);
        // Ties: the maximiser takes the right pot, the cooperative second player the left.
        assert_eq!(value(&[5, 1, 5], Variant::CompetitiveUnknown), 6.0);
        assert_eq!(value(&[2, 7, 2, 9], Variant::CooperativeUnknown), 16.0);
    }

    #[test]
    fn edge_lines() {
        for v in [
            Variant::CompetitiveKnown,
            Variant::CooperativeKnown,
            Variant::CompetitiveUnknown,
            Variant::CooperativeUnknown,
        ] {
            assert_eq!(value(&[], v), 0.0);
            assert_eq!(value(&[7], v), 7.0);
        }
    }

    #[test]
    fn known_variants_match_an_interval_dp() {
        let mut seed = 12345u64;
        for n in 0..40 {
            let pots: Vec<u32> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) as u32 % 20
                })
                .collect();
            // total[i][j]: the first-to-move's best in competitive play on [i, j).
            let sum = |i: usize, j: usize| pots[i..j].iter().sum::<u32>() as i64;
            let mut best = vec![vec![0i64; n + 1]; n + 1];
            for len in 1..=n {
                for i in 0..=n - len {
                    let j = i + len;
                    let l = pots[i] as i64 + sum(i + 1, j) - best[i + 1][j];
                    let r = pots[j - 1] as i64 + sum(i, j - 1) - best[i][j - 1];
                    best[i][j] = l.max(r);
                }
            }
            assert_eq!(value(&pots, Variant::CompetitiveKnown), best[0][n] as f64);
            // The sweep gives the reachable intervals once, and the same values (its order is
            // checked by the engine).
            for v in [Variant::CompetitiveKnown, Variant::CooperativeKnown] {
                let g = GoldPots::new(&pots, v).unwrap();
                let swept: Vec<State> = (0..g.sweep_len())
                    .filter_map(|r| g.sweep_state(r))
                    .collect();
                let explored = solve(&g).unwrap();
                let mut reached: Vec<State> = explored.iter().map(|(s, _)| *s).collect();
                reached.sort();
                let mut once = swept.clone();
                once.sort();
                assert_eq!(once, reached, "{n} pots");
                let (sweep, stats) = perfectplay::Solver::new(&g).start_value::<f64>().unwrap();
                assert!(stats.method.swept());
                assert_eq!(sweep, *explored.start_value());
                // The jumps pass over no interval, and over most of each length's run.
                let passed = crate::sweep_check::check_sweep_resume(&g);
                assert!(
                    n < 4 || passed * 3 > g.sweep_len() - swept.len(),
                    "{n} pots"
                );
                if n > 0 {
                    // The window is exact.
                    assert_eq!(
                        crate::sweep_check::check_sweep_window(&g),
                        g.sweep_window() - 1
                    );
                }
            }
        }
        // The unknown variants reach few intervals and explore.
        let g = GoldPots::new(&[1, 2, 3], Variant::CompetitiveUnknown).unwrap();
        assert!(!perfectplay::Solver::new(&g)
            .start_value::<f64>()
            .unwrap()
            .1
            .method
            .swept());
    }
}
