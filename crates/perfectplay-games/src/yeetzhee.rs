//! Yeetzhee (Kick Start 2020 Round F, problem D): place `N` dice one by one, re-rolling each as
//! often as wanted, to end with groups of equal faces of given sizes; the value is the least
//! expected total number of rolls (kept rolls included).
//!
//! # Model
//! Face labels are exchangeable, so a state is the multiset of current group sizes, kept sorted
//! in descending order. A state is *viable* if it can still grow into the target: at most `K`
//! groups and, both sorted descending, each group no larger than the target's.
//! - `Roll(groups)`: chance, cost one roll. The die joins an existing group (each group size with
//!   probability `count / M`) or opens a new group (`(M - g) / M`).
//! - `Rolled(groups, grown)`: Min keeps the die (only if the result is viable) or re-rolls it,
//!   which returns to `Roll(groups)` — a real cycle that the engine solves. The component of a
//!   state is a star (one chance node, a re-roll loop through each outcome), which the engine's
//!   elimination solves in time linear in its size.
//!
//! A state with all `N` dice placed is terminal; being viable, it is exactly the target.

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "yeetzhee",
    summary: "place dice with re-rolls to reach given group sizes; value = least expected rolls",
    params: &[
        ParamSpec {
            name: "dice",
            value: "N",
            help: "number of dice, 1..=127; the dice plus the number of groups at most 128 (the original problem: up to 50)",
            kind: ParamKind::Int { min: 1, max: 127 },
            default: None,
            required: true,
        },
        ParamSpec {
            name: "faces",
            value: "M",
            help: "faces per die, 1..=4294967295 (the original problem: up to 50)",
            kind: ParamKind::Int { min: 1, max: u32::MAX as i64 },
            default: None,
            required: true,
        },
        ParamSpec {
            name: "groups",
            value: "LIST",
            help: "target group sizes, non-decreasing, summing to N, at most M of them, e.g. 1,2",
            kind: ParamKind::IntList {
                min: 0,
                max: 127,
                len: (1, 127),
            },
            default: None,
            required: true,
        },
    ],
    example: &[("dice", "3"), ("faces", "6"), ("groups", "1,2")],
    notation: Some(NOTATION),
    build: |p| Ok(Box::new(Yeetzhee::from_params(p)?) as Box<dyn DynModel>),
};

/// The game for `N` dice with `M` faces and target group sizes.
#[derive(Clone, Debug)]
pub struct Yeetzhee {
    dice: u32,
    faces: u32,
    /// Target sizes, descending.
    target: Vec<u8>,
}

/// A position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// The next die is about to be rolled.
    Roll(Groups),
    /// The die landed: in a group of the given size (`0`: a new group).
    Rolled(Groups, u8),
}

/// The sizes of the groups of equal faces placed so far, largest first, packed in 128 bits:
/// each size `g` is `g` one-bits and a zero, from the low end (at most 50 dice in at most 50
/// groups: 100 bits; the game allows any dice and groups that fit). A copyable key that hashes in one step and never allocates.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Groups(u128);

impl Groups {
    /// The groups with these sizes (any order; each at least 1; the sizes plus their number at
    /// most 128).
    ///
    /// # Panics
    /// If the sizes do not fit the packing (more than 128 bits).
    pub fn from_sizes(sizes: &[u8]) -> Groups {
        let mut sorted = sizes.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let (mut bits, mut at) = (0u128, 0u32);
        for &g in &sorted {
            assert!(g > 0 && at + (g as u32) < 128, "group sizes do not fit");
            bits |= ((1u128 << g) - 1) << at;
            at += g as u32 + 1;
        }
        Groups(bits)
    }

    /// The sizes, largest first.
    pub fn sizes(self) -> Vec<u8> {
        self.iter().map(|(_, g)| g).collect()
    }

    /// `(bit position, size)` of each group, largest first; allocates nothing.
    fn iter(self) -> impl Iterator<Item = (u32, u8)> {
        let (mut bits, mut at) = (self.0, 0u32);
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let g = bits.trailing_ones();
            let group = (at, g as u8);
            bits = bits.checked_shr(g + 1).unwrap_or(0);
            at += g + 1;
            Some(group)
        })
    }

    /// The number of dice placed.
    pub fn dice(self) -> u32 {
        self.0.count_ones()
    }

    /// The groups after a die joins a group of size `grown` (`0`: opens a new group). The first
    /// group of that size grows (the order stays descending): one more one-bit where it starts,
    /// the bits above it moved up by one. A new group of one goes after the others.
    fn grow(self, grown: u8) -> Groups {
        let first = (grown > 0)
            .then(|| self.iter().find(|&(_, g)| g == grown))
            .flatten();
        match first {
            Some((at, _)) => {
                let low = self.0 & ((1u128 << at) - 1);
                Groups(low | (self.0 >> at << (at + 1)) | (1u128 << at))
            }
            None => {
                let end = self.iter().last().map_or(0, |(at, g)| at + g as u32 + 1);
                Groups(self.0 | (1u128 << end))
            }
        }
    }
}

impl std::fmt::Debug for Groups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.sizes())
    }
}

/// A move or outcome of Yeetzhee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// The die shows the face of a group of this size.
    Joins(u8),
    /// The die shows a face not placed yet.
    NewFace,
    /// Keep the die where it landed.
    Keep,
    /// Roll the die again.
    ReRoll,
}

impl Yeetzhee {
    /// The game; `groups` must be non-decreasing, sum to `dice`, and number at most `faces`.
    pub fn new(dice: u32, faces: u32, groups: &[u32]) -> Result<Self, GameError> {
        if !(1..=127).contains(&dice) {
            return Err(GameError::param(
                "dice",
                format!("{dice} is out of range 1..=127"),
            ));
        }
        if faces == 0 {
            return Err(GameError::param("faces", "a die needs at least 1 face"));
        }
        if groups.is_empty() {
            return Err(GameError::param(
                "groups",
                "expected at least one group size",
            ));
        }
        if groups.contains(&0) {
            return Err(GameError::param("groups", "group sizes must be at least 1"));
        }
        if groups.windows(2).any(|w| w[0] > w[1]) {
            return Err(GameError::param(
                "groups",
                "group sizes must be non-decreasing",
            ));
        }
        if groups.len() as u32 > faces {
            return Err(GameError::param(
                "groups",
                format!(
                    "{} groups need at least {} faces, and there are {faces}",
                    groups.len(),
                    groups.len()
                ),
            ));
        }
        let sum: u64 = groups.iter().map(|&g| u64::from(g)).sum();
        if sum != u64::from(dice) {
            return Err(GameError::param(
                "groups",
                format!("the group sizes sum to {sum}, not to the {dice} dice"),
            ));
        }
        // A position packs each group as its size in one-bits and a zero (see [`Groups`]).
        if dice as usize + groups.len() > 128 {
            return Err(GameError::param(
                "groups",
                format!(
                    "{dice} dice in {} groups take {} bits of a position, more than its 128",
                    groups.len(),
                    dice as usize + groups.len()
                ),
            ));
        }
        let target = groups.iter().rev().map(|&g| g as u8).collect();
        Ok(Yeetzhee {
            dice,
            faces,
            target,
        })
    }

    /// Builds from `--dice`, `--faces` and `--groups`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        let dice = p.int("dice", 1, 127)?;
        let faces = p.int("faces", 1, u32::MAX)?;
        let groups = p.int_list("groups", 0, 127, (1, 127))?;
        Yeetzhee::new(dice, faces, &groups)
    }

    /// Whether the groups still fit the target: no more groups than it has, and the `i`-th
    /// largest group no larger than its `i`-th largest size.
    fn viable(&self, groups: Groups) -> bool {
        let mut target = self.target.iter();
        groups
            .iter()
            .all(|(_, g)| target.next().is_some_and(|&a| g <= a))
    }
}

impl Model for Yeetzhee {
    type State = State;
    type Move = Label;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        match *state {
            State::Roll(groups) => {
                out.push(0);
                out.extend_from_slice(&groups.0.to_le_bytes());
            }
            State::Rolled(groups, size) => {
                out.push(1);
                out.extend_from_slice(&groups.0.to_le_bytes());
                out.push(size);
            }
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let state = match (r.u8()?, Groups(r.u128()?)) {
            (0, groups) => State::Roll(groups),
            (1, groups) => State::Rolled(groups, r.u8()?),
            _ => return None,
        };
        r.finish(state)
    }

    fn start(&self) -> State {
        State::Roll(Groups::default())
    }

    fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, Label>) {
        match *state {
            State::Roll(groups) => {
                if groups.dice() == self.dice {
                    return node.terminal(0);
                }
                node.chance();
                let m = self.faces as i64;
                // Sizes come largest first, so equal sizes are adjacent.
                let mut sizes = groups.iter().map(|(_, g)| g).peekable();
                let mut placed = 0;
                while let Some(size) = sizes.next() {
                    let mut count = 1;
                    while sizes.next_if_eq(&size).is_some() {
                        count += 1;
                    }
                    placed += count;
                    node.add_outcome(
                        Label::Joins(size),
                        Rat::new(count, m),
                        1,
                        State::Rolled(groups, size),
                    );
                }
                let fresh = self.faces as i64 - placed;
                if fresh > 0 {
                    node.add_outcome(
                        Label::NewFace,
                        Rat::new(fresh, m),
                        1,
                        State::Rolled(groups, 0),
                    );
                }
            }
            State::Rolled(groups, grown) => {
                node.decision(Player::Min);
                let next = groups.grow(grown);
                if self.viable(next) {
                    node.add_move(Label::Keep, 0, State::Roll(next));
                }
                node.add_move(Label::ReRoll, 0, State::Roll(groups));
            }
        }
    }

    fn player_label(&self, _player: Player) -> Option<String> {
        Some("the player".to_string())
    }

    fn total_name(&self) -> Option<String> {
        Some("rolls".to_string())
    }

    fn show_end(&self, _end: &State, total: Rat) -> Option<String> {
        Some(format!("every group is complete, after {total} rolls"))
    }

    fn show_state(&self, s: &State) -> String {
        let list = |g: Groups| {
            let v: Vec<String> = g.sizes().iter().map(u8::to_string).collect();
            format!("[{}]", v.join(","))
        };
        match *s {
            State::Roll(g) => format!("groups {} to roll", list(g)),
            State::Rolled(g, 0) => format!("groups {} rolled a new face", list(g)),
            State::Rolled(g, k) => format!("groups {} rolled into a group of {k}", list(g)),
        }
    }

    fn show_move(&self, mv: &Label) -> String {
        match *mv {
            Label::Joins(size) => format!("joins a group of {size}"),
            Label::NewFace => "a new face".to_string(),
            Label::Keep => "keep".to_string(),
            Label::ReRoll => "re-roll".to_string(),
        }
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        let bad = || crate::notation::bad(text, NOTATION);
        let (head, sizes, rest) = crate::notation::split_list(text, '[', ']').ok_or_else(bad)?;
        let total: u32 = sizes.iter().sum();
        if head != "groups" || sizes.contains(&0) || total > self.dice || sizes.len() > 50 {
            return Err(bad());
        }
        // Canonical: largest group first.
        let groups = Groups::from_sizes(&sizes.iter().map(|&g| g as u8).collect::<Vec<_>>());
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["to", "roll"] => Ok(State::Roll(groups)),
            ["rolled", "a", "new", "face"] => Ok(State::Rolled(groups, 0)),
            ["rolled", "into", "a", "group", "of", k] => match k.parse::<u8>() {
                Ok(k) if k > 0 => Ok(State::Rolled(groups, k)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

/// How states are written.
const NOTATION: &str = "'groups [G1,G2,...] to roll', 'groups [...] rolled a new face' or \
    'groups [...] rolled into a group of K', listing the sizes of the groups of equal faces \
    placed so far (e.g. 'groups [2,1] to roll')";

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::{solve, solve_exact, verify::verify_solution};

    #[test]
    fn samples() {
        let g = Yeetzhee::new(3, 6, &[1, 2]).unwrap();
        let s = solve_exact(&g).unwrap();
        assert_eq!(s.start_value().to_string(), "47/10");
        verify_solution(&g, &s).unwrap();
        let g = Yeetzhee::new(5, 2, &[5]).unwrap();
        assert_eq!(solve_exact(&g).unwrap().start_value().to_string(), "9");
        assert_eq!(*solve(&g).unwrap().start_value(), 9.0);
    }

    #[test]
    fn analysis_example_state() {
        // N=3, M=2, A=(1,2): from one placed die, 2.5 more rolls.
        let g = Yeetzhee::new(3, 2, &[1, 2]).unwrap();
        let s = solve_exact(&g).unwrap();
        let one = State::Roll(Groups::from_sizes(&[1]));
        assert_eq!(s.value(&one).unwrap().to_string(), "5/2");
    }

    #[test]
    fn largest_known_case_is_fast_and_star_shaped() {
        let g = Yeetzhee::new(50, 50, &[1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 9, 13]).unwrap();
        let s = solve(&g).unwrap();
        let rolls = s
            .iter()
            .filter(|(st, _)| matches!(st, State::Roll(_)))
            .count();
        assert_eq!(rolls, 58_927);
        assert!(s.stats().largest_component <= 15);
    }

    #[test]
    fn packed_groups_round_trip() {
        for sizes in [
            vec![],
            vec![1],
            vec![50],
            vec![13, 9, 6, 5, 4, 3, 2, 2, 2, 1, 1, 1, 1],
        ] {
            let g = Groups::from_sizes(&sizes);
            assert_eq!(g.sizes(), sizes);
            assert_eq!(g.dice(), sizes.iter().map(|&x| x as u32).sum::<u32>());
        }
        let fifty_ones = Groups::from_sizes(&[1; 50]);
        assert_eq!(fifty_ones.sizes(), vec![1; 50]);
        assert_eq!(Groups::from_sizes(&[1, 2]).grow(1).sizes(), vec![2, 2]);
        assert_eq!(Groups::from_sizes(&[2, 2]).grow(2).sizes(), vec![3, 2]);
        assert_eq!(Groups::from_sizes(&[2]).grow(0).sizes(), vec![2, 1]);
    }

    #[test]
    fn bad_groups_name_the_option() {
        let e = |d, f, g: &[u32]| Yeetzhee::new(d, f, g).unwrap_err().to_string();
        assert_eq!(
            e(3, 6, &[2, 1]),
            "groups: group sizes must be non-decreasing"
        );
        assert_eq!(
            e(3, 6, &[1, 1]),
            "groups: the group sizes sum to 2, not to the 3 dice"
        );
        assert_eq!(
            e(3, 2, &[1, 1, 1]),
            "groups: 3 groups need at least 3 faces, and there are 2"
        );
    }
}
