//! SubsetSumExtreme (TopCoder SRM 702): roll a die, remove blocks that sum to the roll; the
//! value is the least expected sum of the blocks left when no subset matches a roll.
//!
//! # Model
//! A state is the multiset of remaining blocks, stored canonically as a bitmask over the sorted
//! blocks in which equal blocks are always taken from the left, so identical blocks collapse.
//! - `Roll(mask)`: chance over the distinct face values, repeated faces weighting their value.
//!   A roll that no subset matches ends the game with payoff the sum of the remaining blocks.
//! - `Choose(mask, roll)`: Min picks one of the distinct remaining multisets reachable by
//!   removing a subset summing to the roll. The move is forced: there is no pass.
//!
//! Every move removes at least one block, so the game is acyclic.

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "subset-sum-extreme",
    summary: "remove blocks summing to each die roll; value = least expected sum left",
    params: &[
        ParamSpec {
            name: "blocks",
            value: "LIST",
            help: "block values, 1 to 16 positive numbers summing to at most 4294967295, e.g. \
                   1,2,3 (the original problem: up to 12 blocks in 1..=1000); a position per \
                   set of blocks left and roll, so 16 blocks take a fraction of a second",
            kind: ParamKind::IntList {
                min: 1,
                max: MAX_VALUE as i64,
                len: (1, MAX_BLOCKS),
            },
            default: None,
            required: true,
        },
        ParamSpec {
            name: "faces",
            value: "LIST",
            help: "die faces, 1 to 1000 positive numbers up to 4294967295 (repeats are weights; \
                   a face no subset sums to ends the game), e.g. 6,5 (the original problem: up \
                   to 12 faces in 1..=1000)",
            kind: ParamKind::IntList {
                min: 1,
                max: MAX_VALUE as i64,
                len: (1, MAX_FACES),
            },
            default: None,
            required: true,
        },
    ],
    example: &[("blocks", "1,2,3"), ("faces", "6,5")],
    notation: Some(NOTATION),
    build: |p| Ok(Box::new(SubsetSumExtreme::from_params(p)?) as Box<dyn DynModel>),
};

/// The most blocks: a position is a 16-bit mask of the blocks left.
pub const MAX_BLOCKS: usize = 16;

/// The most faces of the die (with repeats).
pub const MAX_FACES: usize = 1000;

/// The largest block or face value, and the largest sum of the blocks: sums are `u32`.
pub const MAX_VALUE: u32 = u32::MAX;

/// The game for given blocks and faces.
#[derive(Clone, Debug)]
pub struct SubsetSumExtreme {
    /// Sorted ascending.
    blocks: Vec<u32>,
    /// Distinct face values with their weights (probabilities), ascending.
    faces: Vec<(u32, Rat)>,
    /// The sum of the blocks of each mask.
    sums: Vec<u32>,
    /// The canonical form of each mask (see `canonical`).
    canon: Vec<u16>,
}

/// A move or outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// The die shows this value.
    Roll(u32),
    /// Remove the blocks of this mask.
    Remove(u16),
}

/// A position: the remaining blocks as a canonical bitmask, and the roll being matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// The die is about to be rolled.
    Roll(u16),
    /// The roll (second field) is to be matched by removing blocks.
    Choose(u16, u32),
    /// No subset matched; the game is over.
    End(u16),
}

impl SubsetSumExtreme {
    /// The game with these blocks (1 to [`MAX_BLOCKS`] positive values, summing to at most
    /// [`MAX_VALUE`]) and faces (1 to [`MAX_FACES`] positive values).
    pub fn new(blocks: &[u32], faces: &[u32]) -> Result<Self, GameError> {
        for (name, list, most) in [("blocks", blocks, MAX_BLOCKS), ("faces", faces, MAX_FACES)] {
            if list.is_empty() || list.len() > most {
                return Err(GameError::param(
                    name,
                    format!("expected 1 to {most} values, got {}", list.len()),
                ));
            }
            if list.contains(&0) {
                return Err(GameError::param(
                    name,
                    "0 is out of range: values are positive",
                ));
            }
        }
        let total: u64 = blocks.iter().map(|&b| u64::from(b)).sum();
        if total > u64::from(MAX_VALUE) {
            return Err(GameError::param(
                "blocks",
                format!("the blocks sum to {total}, more than {MAX_VALUE}"),
            ));
        }
        let mut blocks = blocks.to_vec();
        blocks.sort_unstable();
        let mut sorted = faces.to_vec();
        sorted.sort_unstable();
        let mut distinct: Vec<(u32, Rat)> = Vec::new();
        let n = sorted.len() as i64;
        for f in sorted {
            match distinct.last_mut() {
                Some((v, w)) if *v == f => *w = *w + Rat::new(1, n),
                _ => distinct.push((f, Rat::new(1, n))),
            }
        }
        let mut game = SubsetSumExtreme {
            blocks,
            faces: distinct,
            sums: Vec::new(),
            canon: Vec::new(),
        };
        let masks = 0..1u32 << game.blocks.len();
        game.sums = masks.clone().map(|m| game.sum(m as u16)).collect();
        game.canon = masks.map(|m| game.canonical(m as u16)).collect();
        Ok(game)
    }

    /// Builds from `--blocks` and `--faces`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        let blocks = p.int_list("blocks", 1, MAX_VALUE, (1, MAX_BLOCKS))?;
        let faces = p.int_list("faces", 1, MAX_VALUE, (1, MAX_FACES))?;
        SubsetSumExtreme::new(&blocks, &faces)
    }

    fn sum(&self, mask: u16) -> u32 {
        (0..self.blocks.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| self.blocks[i])
            .sum()
    }

    /// The canonical mask of a multiset: within each run of equal blocks, the leftmost ones.
    fn canonical(&self, mask: u16) -> u16 {
        let mut out = 0u16;
        let mut i = 0;
        while i < self.blocks.len() {
            let mut j = i;
            while j < self.blocks.len() && self.blocks[j] == self.blocks[i] {
                j += 1;
            }
            let count = (i..j).filter(|b| mask >> b & 1 == 1).count();
            for b in i..i + count {
                out |= 1 << b;
            }
            i = j;
        }
        out
    }

    /// The subsets of `mask`, the empty one excepted.
    fn subsets(mask: u16) -> impl Iterator<Item = u16> {
        let mut sub = mask;
        std::iter::from_fn(move || {
            let this = sub;
            sub = sub.wrapping_sub(1) & mask;
            (this != 0).then_some(this)
        })
    }

    /// Whether some subset of `mask` sums to `target`.
    fn matches(&self, mask: u16, target: u32) -> bool {
        Self::subsets(mask).any(|sub| self.sums[sub as usize] == target)
    }

    /// The distinct canonical results of removing a subset of `mask` that sums to `target`,
    /// with the removed blocks, in increasing order of the remaining mask.
    fn removals(&self, mask: u16, target: u32) -> Vec<(u16, u16)> {
        let mut out: Vec<(u16, u16)> = Vec::new();
        for sub in Self::subsets(mask).filter(|&sub| self.sums[sub as usize] == target) {
            let rest = self.canon[(mask & !sub) as usize];
            if !out.iter().any(|(r, _)| *r == rest) {
                out.push((rest, sub));
            }
        }
        out.sort_unstable();
        out
    }
}

impl Model for SubsetSumExtreme {
    type State = State;
    type Move = Label;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        let (tag, set) = match *state {
            State::Roll(set) => (0u8, set),
            State::Choose(set, _) => (1, set),
            State::End(set) => (2, set),
        };
        out.push(tag);
        out.extend_from_slice(&set.to_le_bytes());
        if let State::Choose(_, roll) = *state {
            out.extend_from_slice(&roll.to_le_bytes());
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let (tag, set) = (r.u8()?, r.u16()?);
        let state = match tag {
            0 => State::Roll(set),
            1 => State::Choose(set, r.u32()?),
            2 => State::End(set),
            _ => return None,
        };
        r.finish(state)
    }

    fn start(&self) -> State {
        State::Roll(((1u32 << self.blocks.len()) - 1) as u16)
    }

    fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, Label>) {
        match *state {
            State::End(mask) => node.terminal(self.sums[mask as usize] as i64),
            State::Roll(mask) => {
                node.chance();
                for &(f, p) in &self.faces {
                    let next = if self.matches(mask, f) {
                        State::Choose(mask, f)
                    } else {
                        State::End(mask)
                    };
                    node.add_outcome(Label::Roll(f), p, 0, next);
                }
            }
            State::Choose(mask, f) => {
                node.decision(Player::Min);
                for (rest, removed) in self.removals(mask, f) {
                    node.add_move(Label::Remove(removed), 0, State::Roll(rest));
                }
            }
        }
    }

    fn player_label(&self, _player: Player) -> Option<String> {
        Some("the player".to_string())
    }

    fn total_name(&self) -> Option<String> {
        Some("sum of the blocks left".to_string())
    }

    fn show_end(&self, _end: &State, total: Rat) -> Option<String> {
        Some(format!(
            "no more blocks can go: the blocks left sum to {total}"
        ))
    }

    fn show_state(&self, s: &State) -> String {
        let list = |mask: u16| {
            let v: Vec<String> = (0..self.blocks.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| self.blocks[i].to_string())
                .collect();
            format!("[{}]", v.join(","))
        };
        match *s {
            State::Roll(m) => format!("blocks {} to roll", list(m)),
            State::Choose(m, f) => format!("blocks {} rolled {f}", list(m)),
            State::End(m) => format!("blocks {} final", list(m)),
        }
    }

    fn show_move(&self, mv: &Label) -> String {
        match *mv {
            Label::Roll(f) => format!("roll {f}"),
            Label::Remove(removed) => {
                let list: Vec<String> = (0..self.blocks.len())
                    .filter(|i| removed >> i & 1 == 1)
                    .map(|i| self.blocks[i].to_string())
                    .collect();
                format!("remove {}", list.join("+"))
            }
        }
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        let bad = || crate::notation::bad(text, NOTATION);
        let (head, values, rest) = crate::notation::split_list(text, '[', ']').ok_or_else(bad)?;
        if head != "blocks" {
            return Err(bad());
        }
        // Equal blocks are taken from the left: the canonical mask.
        let mut mask = 0u16;
        for v in &values {
            let free = (0..self.blocks.len())
                .find(|&i| self.blocks[i] == *v && mask >> i & 1 == 0)
                .ok_or_else(|| format!("'{text}': there is no (further) block {v}"))?;
            mask |= 1 << free;
        }
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["to", "roll"] => Ok(State::Roll(mask)),
            ["final"] => Ok(State::End(mask)),
            ["rolled", r] => Ok(State::Choose(mask, r.parse().map_err(|_| bad())?)),
            _ => Err(bad()),
        }
    }
}

/// How states are written.
const NOTATION: &str = "'blocks [B1,B2,...] to roll', 'blocks [...] rolled R' or \
    'blocks [...] final', listing the remaining blocks (e.g. 'blocks [1,3] rolled 4')";

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::{solve, solve_exact, verify::verify_solution};

    fn exact(blocks: &[u32], faces: &[u32]) -> String {
        let g = SubsetSumExtreme::new(blocks, faces).unwrap();
        let s = solve_exact(&g).unwrap();
        verify_solution(&g, &s).unwrap();
        let f = *solve(&g).unwrap().start_value();
        let e = s.start_value().0.to_string();
        let ef: f64 = perfectplay::Number::to_f64(s.start_value());
        assert!((f - ef).abs() <= 1e-12 * ef.max(1.0));
        e
    }

    #[test]
    fn official_examples() {
        assert_eq!(exact(&[1, 2, 3], &[6, 5]), "1/2");
        assert_eq!(exact(&[1, 2, 1], &[1, 2]), "1/2");
        assert_eq!(exact(&[10, 11, 12], &[3, 4, 5, 6]), "33");
        assert_eq!(exact(&[1, 1, 1, 1], &[1]), "0");
        assert_eq!(exact(&[3, 2, 2, 3], &[2, 3, 2, 3, 2, 3]), "35/16");
        let big = [968, 423, 592, 419, 321, 253, 62, 42, 12, 32, 2, 4];
        assert_eq!(exact(&big, &big), "429322118717/214990848");
        let desc: Vec<u32> = (1..=12).rev().collect();
        assert_eq!(
            exact(&desc, &[12, 12, 12, 12, 12, 6, 6, 6, 3, 3, 2, 1]),
            "239103599/5971968"
        );
    }

    #[test]
    fn equal_blocks_collapse() {
        let g = SubsetSumExtreme::new(&[5; 12], &[5, 10]).unwrap();
        let s = solve(&g).unwrap();
        // Multisets of up to twelve fives: 13 Roll states at most.
        let rolls = s
            .iter()
            .filter(|(st, _)| matches!(st, State::Roll(_)))
            .count();
        assert_eq!(rolls, 13);
    }

    #[test]
    fn bad_lists_name_the_option() {
        let e = SubsetSumExtreme::new(&[], &[1]).unwrap_err();
        assert_eq!(e.to_string(), "blocks: expected 1 to 16 values, got 0");
        let e = SubsetSumExtreme::new(&[1; 17], &[1]).unwrap_err();
        assert_eq!(e.to_string(), "blocks: expected 1 to 16 values, got 17");
        let e = SubsetSumExtreme::new(&[1], &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "faces: 0 is out of range: values are positive"
        );
        let e = SubsetSumExtreme::new(&[u32::MAX, 1], &[1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "blocks: the blocks sum to 4294967296, more than 4294967295"
        );
    }

    /// The limits are the engine's, not the contest's: faces no subset can match, values far
    /// beyond 1000, and more than 12 blocks.
    #[test]
    fn values_beyond_the_contests_limits() {
        // A face of 12,000 never matches: the game ends at once with every block left.
        assert_eq!(exact(&[1, 2, 3], &[12000]), "6");
        // Half the time the die shows 6 and every block goes; else 3,817 ends the game.
        assert_eq!(exact(&[1, 2, 3], &[3817, 6]), "3");
        // Either face first: (1/2)(4e9/2) + (1/2)(5/2).
        assert_eq!(
            exact(&[4_000_000_000, 5], &[5, 4_000_000_000]),
            "4000000005/4"
        );
        // Sixteen blocks: the value matches a direct recursion over the remaining blocks.
        let blocks: Vec<u32> = (1..=16).collect();
        let faces = [3, 5, 7, 11, 13, 30];
        let g = SubsetSumExtreme::new(&blocks, &faces).unwrap();
        let v = *solve(&g).unwrap().start_value();
        let mut memo = std::collections::HashMap::new();
        let direct = brute(&blocks, &faces, (1u32 << 16) - 1, &mut memo);
        assert!((v - direct).abs() < 1e-9 * direct, "{v} {direct}");
    }

    /// The least expected sum left from the blocks of `mask`, by recursion over masks.
    fn brute(
        blocks: &[u32],
        faces: &[u32],
        mask: u32,
        memo: &mut std::collections::HashMap<u32, f64>,
    ) -> f64 {
        if let Some(&v) = memo.get(&mask) {
            return v;
        }
        let sum = |m: u32| -> u64 {
            (0..blocks.len())
                .filter(|i| m >> i & 1 == 1)
                .map(|i| u64::from(blocks[i]))
                .sum()
        };
        let mut total = 0.0;
        for &f in faces {
            let mut best: Option<f64> = None;
            let mut sub = mask;
            while sub != 0 {
                if sum(sub) == u64::from(f) {
                    let v = brute(blocks, faces, mask & !sub, memo);
                    best = Some(best.map_or(v, |b: f64| b.min(v)));
                }
                sub = (sub - 1) & mask;
            }
            total += best.unwrap_or(sum(mask) as f64);
        }
        let v = total / faces.len() as f64;
        memo.insert(mask, v);
        v
    }
}
