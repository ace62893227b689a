//! Solitaire Yahtzee: the expected final score under optimal play.
//!
//! # Rules
//! Five six-sided dice; 13 turns. A turn is up to three rolls: the first rolls all five dice;
//! before each of the other two the player keeps any of the dice and rolls the rest. After any
//! roll the player may stop and must score the hand in exactly one open box:
//!
//! | box | name | score |
//! |---|---|---|
//! | Aces … Sixes | `1s` … `6s` | the sum of the dice showing that face |
//! | Three of a kind | `3k` | the sum of all dice, if three show one face |
//! | Four of a kind | `4k` | the sum of all dice, if four show one face |
//! | Full house | `fh` | 25, for three of one face and two of another |
//! | Small straight | `ss` | 30, for four faces in sequence |
//! | Large straight | `ls` | 40, for five faces in sequence |
//! | Chance | `ch` | the sum of all dice |
//! | Yahtzee | `y` | 50, for five of a kind |
//!
//! A hand that does not qualify scores 0 in its box. Upper bonus: 35 once the six upper boxes
//! total 63 or more. Yahtzee bonus: 100 for each further Yahtzee while the Yahtzee box holds
//! 50. A *joker* is a Yahtzee rolled when the Yahtzee box is filled (with 50 or 0); `--rules`
//! says what it may do:
//! - `free-joker` (the default; Verhoeff's rules): a Yahtzee may go in any open box; when its
//!   face's upper box is filled too, full house, small and large straight score in full;
//! - `forced-joker` (Hasbro's placement): its face's upper box if open; else any open lower box,
//!   the three scoring in full; else any open upper box, for 0;
//! - `bonus-no-joker`: the 100 bonus, no joker scores; `no-bonus`: neither.
//!
//! `--boxes` plays a reduced game with some of the boxes only (one turn per box).
//!
//! # Model
//! A turn start (the boxes filled, the upper total capped at 63, whether the Yahtzee box holds
//! 50) is a *kept* state; the rolls and keeps of its turn are *local* to it
//! ([`Model::turn_of`]), so the engine stores the turn starts only and solves each turn in
//! scratch storage. Inside a turn a position is the dice after roll 1, 2 or 3, or the dice
//! kept before roll 2 or 3 (a chance node over the rest): keeping is a move to such a
//! position, and dice are multisets, so a turn has at most 1,177 positions. Every probability
//! is a multiple of 6^-5.
//!
//! Every turn rolls and keeps alike, and only the card decides where a hand may go: the turns
//! share one shape ([`Model::turn_shape`]), a rolled hand lists its boxes alone
//! ([`Model::expand_exits`]), and a hand goes in the same boxes after any roll
//! ([`Model::exit_class`]), so the engine builds the turn once and expands, in each turn, one
//! hand's boxes per hand.
//!
//! # Notation
//! `filled 1s 3s fh y50, upper 4, to roll` (a turn start; `y50` or `y0` for the Yahtzee box,
//! `filled -` for none), `filled -, upper 0, dice 1 1 3 5 6 after roll 1`, and `filled -,
//! upper 0, kept 1 1 before roll 2`.

use std::sync::OnceLock;

use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::{GameError, GameSpec, ParamKind, ParamSpec, Params};

/// The game's entry in the catalog.
pub const SPEC: GameSpec = GameSpec {
    name: "yahtzee",
    summary: "Solitaire Yahtzee (5 dice, 3 rolls, 13 boxes); value = expected final score",
    params: &[
        ParamSpec {
            name: "rules",
            value: "R",
            help: "free-joker (Verhoeff's rules; 254.5896), forced-joker (Hasbro's placement; 254.5877), bonus-no-joker (253.9702) or no-bonus (245.8708)",
            kind: ParamKind::Choice(RULE_NAMES),
            default: Some("free-joker"),
            required: false,
        },
        ParamSpec {
            name: "boxes",
            value: "B,…",
            help: "the boxes played, one turn each, of 1s 2s 3s 4s 5s 6s 3k 4k fh ss ls ch y (all 13 by default; fewer for a small game)",
            kind: ParamKind::Word,
            default: Some("all"),
            required: false,
        },
    ],
    example: &[("boxes", "1s,2s,3k,y")],
    notation: Some(
        "'filled 1s 3s fh y50, upper 4, to roll' (a turn start), 'filled -, upper 0, dice 1 1 3 5 6 after roll 1', 'filled 1s, upper 2, kept 1 1 before roll 2'",
    ),
    build: |p| Ok(Box::new(Yahtzee::from_params(p)?) as Box<dyn DynModel>),
};

/// The names `--rules` takes, in the order of [`Rules`].
const RULE_NAMES: &[&str] = &["free-joker", "forced-joker", "bonus-no-joker", "no-bonus"];

/// The box names, in box order: the six upper boxes, then the lower ones.
const BOX_NAMES: [&str; 13] = [
    "1s", "2s", "3s", "4s", "5s", "6s", "3k", "4k", "fh", "ss", "ls", "ch", "y",
];
const THREE_KIND: usize = 6;
const FOUR_KIND: usize = 7;
const FULL_HOUSE: usize = 8;
const SMALL: usize = 9;
const LARGE: usize = 10;
const CHANCE: usize = 11;
const YAHTZEE: usize = 12;
/// What the upper boxes must total for the bonus.
const UPPER_GOAL: u8 = 63;

/// Which joker and bonus rule is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// A joker goes anywhere; full score where its face's upper box is filled (Verhoeff).
    FreeJoker,
    /// A joker goes to its face's upper box if open, else a lower box in full, else an upper
    /// box for 0 (Hasbro).
    ForcedJoker,
    /// The Yahtzee bonus without joker scores.
    BonusNoJoker,
    /// Neither the Yahtzee bonus nor joker scores.
    NoBonus,
}

impl Rules {
    fn bonus(self) -> bool {
        self != Rules::NoBonus
    }
}

/// Solitaire Yahtzee with a rule set and the boxes played.
#[derive(Clone, Debug)]
pub struct Yahtzee {
    rules: Rules,
    /// The boxes of the game, as a mask over [`BOX_NAMES`].
    boxes: u16,
}

/// Where a turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Nothing rolled yet: the turn's start (a kept state).
    Start,
    /// The dice (a hand, by its number) after roll 1, 2 or 3.
    Rolled {
        /// Which roll it was, 1 to 3.
        roll: u8,
        /// The hand's number in the table of hands.
        hand: u16,
    },
    /// The dice kept (a multiset of 0–4 dice, by its number) before roll 2 or 3.
    Kept {
        /// The roll about to be made, 2 or 3.
        roll: u8,
        /// The kept dice's number in the table of multisets.
        kept: u16,
    },
}

/// A position of Solitaire Yahtzee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// The boxes filled, a mask over the box order.
    filled: u16,
    /// The upper total, capped at 63.
    upper: u8,
    /// Whether the Yahtzee box holds 50 (only tracked where the bonus is played).
    y50: bool,
    phase: Phase,
}

impl State {
    /// The state in one word: the engine hashes every successor, and one word hashes in one
    /// step where the fields would take six.
    fn word(&self) -> u64 {
        let (tag, roll, dice) = match self.phase {
            Phase::Start => (0u64, 0u64, 0u64),
            Phase::Rolled { roll, hand } => (1, roll as u64, hand as u64),
            Phase::Kept { roll, kept } => (2, roll as u64, kept as u64),
        };
        self.filled as u64
            | (self.upper as u64) << 16
            | (self.y50 as u64) << 24
            | tag << 25
            | roll << 27
            | dice << 32
    }
}

impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.word());
    }
}

/// A move or chance outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Keep these dice (a multiset's number) and roll the rest.
    Keep(u16),
    /// Score the hand in this box.
    Score(u8),
    /// The dice rolled, as a multiset's number.
    Roll(u16),
}

/// Multisets of dice: a count per face, packed 3 bits a face.
type Counts = [u8; 6];

/// The tables every state shares.
struct Tables {
    /// Every multiset of 0 to 5 dice, by number; hands (5 dice) are numbered first.
    sets: Vec<Counts>,
    /// The number of each multiset, by its packed counts.
    index: std::collections::HashMap<u32, u16>,
    /// Per multiset of `n` dice: the multisets of `5 - n` dice it can be completed by rolling,
    /// each with the hand it makes and its probability.
    rolls: Vec<Vec<(u16, u16, Rat)>>,
    /// Per hand: the multisets it can keep (every sub-multiset but itself).
    keeps: Vec<Vec<u16>>,
    /// Per hand: the score of every box before jokers.
    scores: Vec<[u8; 13]>,
}

const HANDS: usize = 252;
/// Multisets of 0 to 5 dice.
const SETS: usize = 462;

fn pack(c: &Counts) -> u32 {
    c.iter()
        .enumerate()
        .map(|(i, &n)| (n as u32) << (3 * i))
        .sum()
}

fn size(c: &Counts) -> u8 {
    c.iter().sum()
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        // Every count vector with at most 5 dice, hands (exactly 5) first.
        let mut all = Vec::new();
        for n in (0..=5u8).rev() {
            let mut c = [0u8; 6];
            fill(&mut c, 0, n, &mut all);
        }
        let index = all
            .iter()
            .enumerate()
            .map(|(i, c)| (pack(c), i as u16))
            .collect::<std::collections::HashMap<_, _>>();
        let rolls = all
            .iter()
            .map(|kept| {
                let n = 5 - size(kept);
                let total = 6i64.pow(n as u32);
                all.iter()
                    .enumerate()
                    .filter(|(_, r)| size(r) == n)
                    .map(|(i, r)| {
                        let mut hand = *kept;
                        for f in 0..6 {
                            hand[f] += r[f];
                        }
                        (i as u16, index[&pack(&hand)], Rat::new(ways(r), total))
                    })
                    .collect()
            })
            .collect();
        let keeps = all[..HANDS]
            .iter()
            .map(|hand| {
                let mut subs = Vec::new();
                let mut c = [0u8; 6];
                subsets(hand, &mut c, 0, &mut subs);
                subs.into_iter()
                    .filter(|s| s != hand)
                    .map(|s| index[&pack(&s)])
                    .collect()
            })
            .collect();
        let scores = all[..HANDS].iter().map(box_scores).collect();
        Tables {
            sets: all,
            index,
            rolls,
            keeps,
            scores,
        }
    })
}

/// Pushes every count vector from face `f` on with `left` dice still to place.
fn fill(c: &mut Counts, f: usize, left: u8, out: &mut Vec<Counts>) {
    if f == 5 {
        c[5] = left;
        out.push(*c);
        return;
    }
    for k in (0..=left).rev() {
        c[f] = k;
        fill(c, f + 1, left - k, out);
    }
    c[f] = 0;
}

/// Pushes every sub-multiset of `hand` from face `f` on.
fn subsets(hand: &Counts, c: &mut Counts, f: usize, out: &mut Vec<Counts>) {
    if f == 6 {
        out.push(*c);
        return;
    }
    for k in 0..=hand[f] {
        c[f] = k;
        subsets(hand, c, f + 1, out);
    }
    c[f] = 0;
}

/// The number of ordered rolls that give the multiset `c`.
fn ways(c: &Counts) -> i64 {
    let fact = |n: u8| (1..=n as i64).product::<i64>();
    fact(size(c)) / c.iter().map(|&k| fact(k)).product::<i64>()
}

/// Whether the faces `from..from + len` (0-based) all show.
fn run(c: &Counts, from: usize, len: usize) -> bool {
    (from..from + len).all(|f| c[f] > 0)
}

fn is_small(c: &Counts) -> bool {
    run(c, 0, 4) || run(c, 1, 4) || run(c, 2, 4)
}

fn is_large(c: &Counts) -> bool {
    run(c, 0, 5) || run(c, 1, 5)
}

/// The score of every box for a hand, without jokers.
fn box_scores(c: &Counts) -> [u8; 13] {
    let sum: u8 = c.iter().enumerate().map(|(f, &n)| n * (f as u8 + 1)).sum();
    let most = *c.iter().max().expect("six faces");
    let mut s = [0u8; 13];
    for f in 0..6 {
        s[f] = c[f] * (f as u8 + 1);
    }
    s[THREE_KIND] = if most >= 3 { sum } else { 0 };
    s[FOUR_KIND] = if most >= 4 { sum } else { 0 };
    s[FULL_HOUSE] = if c.contains(&3) && c.contains(&2) {
        25
    } else {
        0
    };
    s[SMALL] = if is_small(c) { 30 } else { 0 };
    s[LARGE] = if is_large(c) { 40 } else { 0 };
    s[CHANCE] = sum;
    s[YAHTZEE] = if most == 5 { 50 } else { 0 };
    s
}

/// The dice of a multiset, in ascending order, as `1 1 3 5 6` (`-` for none).
fn show_dice(c: &Counts) -> String {
    let dice: Vec<String> = (0..6)
        .flat_map(|f| std::iter::repeat_n((f + 1).to_string(), c[f] as usize))
        .collect();
    if dice.is_empty() {
        "-".to_string()
    } else {
        dice.join(" ")
    }
}

impl Yahtzee {
    /// Yahtzee under `rules` with every box.
    pub fn new(rules: Rules) -> Self {
        Yahtzee {
            rules,
            boxes: (1 << 13) - 1,
        }
    }

    /// The game with only the boxes in `names` (box names as [`SPEC`] lists them).
    pub fn with_boxes(rules: Rules, names: &[&str]) -> Result<Self, GameError> {
        let mut boxes = 0u16;
        for name in names {
            let Some(b) = BOX_NAMES.iter().position(|n| n == name) else {
                return Err(GameError::param(
                    "boxes",
                    format!("'{name}' is no box; the boxes are {}", BOX_NAMES.join(" ")),
                ));
            };
            if boxes & (1 << b) != 0 {
                return Err(GameError::param(
                    "boxes",
                    format!("'{name}' is named twice"),
                ));
            }
            boxes |= 1 << b;
        }
        if boxes == 0 {
            return Err(GameError::param("boxes", "name at least one box"));
        }
        Ok(Yahtzee { rules, boxes })
    }

    /// Builds from `--rules` and `--boxes`.
    pub fn from_params(p: &Params) -> Result<Self, GameError> {
        let rules = match p.required("rules")? {
            "free-joker" => Rules::FreeJoker,
            "forced-joker" => Rules::ForcedJoker,
            "bonus-no-joker" => Rules::BonusNoJoker,
            "no-bonus" => Rules::NoBonus,
            other => {
                return Err(GameError::param(
                    "rules",
                    format!("'{other}' is no rule set; use {}", RULE_NAMES.join(", ")),
                ))
            }
        };
        match p.required("boxes")? {
            "all" => Ok(Yahtzee::new(rules)),
            text => {
                let names: Vec<&str> = text
                    .split([',', ' '])
                    .map(str::trim)
                    .filter(|w| !w.is_empty())
                    .collect();
                Yahtzee::with_boxes(rules, &names)
            }
        }
    }

    /// The boxes a hand may go in at a turn start, with their scores and the reward of each
    /// (the score plus any upper bonus and Yahtzee bonus), and the state after.
    fn placements(&self, at: &State, hand: u16, mut each: impl FnMut(usize, i64, State)) {
        let t = tables();
        let c = &t.sets[hand as usize];
        let mut scores = t.scores[hand as usize];
        let open = self.boxes & !at.filled;
        let face = c.iter().position(|&n| n == 5);
        let y_filled = at.filled & (1 << YAHTZEE) != 0 || self.boxes & (1 << YAHTZEE) == 0;
        let bonus = if self.rules.bonus() && face.is_some() && at.y50 {
            100
        } else {
            0
        };
        let mut allowed = open;
        if let (Some(f), true) = (face, y_filled) {
            let upper_open = open & (1 << f) != 0;
            let joker_scores = |s: &mut [u8; 13]| {
                s[FULL_HOUSE] = 25;
                s[SMALL] = 30;
                s[LARGE] = 40;
            };
            match self.rules {
                Rules::FreeJoker if !upper_open => joker_scores(&mut scores),
                Rules::ForcedJoker => {
                    let lower = open & !0x3f;
                    if upper_open {
                        allowed = 1 << f;
                    } else if lower != 0 {
                        allowed = lower;
                        joker_scores(&mut scores);
                    }
                }
                _ => {}
            }
        }
        for b in 0..13 {
            if allowed & (1 << b) == 0 {
                continue;
            }
            let score = scores[b];
            let mut next = State {
                filled: at.filled | 1 << b,
                upper: at.upper,
                y50: at.y50,
                phase: Phase::Start,
            };
            let mut reward = score as i64 + bonus;
            if b < 6 {
                next.upper = (at.upper + score).min(UPPER_GOAL);
                if at.upper < UPPER_GOAL && next.upper >= UPPER_GOAL {
                    reward += 35;
                }
            }
            if b == YAHTZEE && score == 50 && self.rules.bonus() {
                next.y50 = true;
            }
            each(b, reward, next);
        }
    }
}

impl Model for Yahtzee {
    type State = State;
    type Move = Move;

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &State, out: &mut Vec<u8>) {
        out.extend_from_slice(&state.word().to_le_bytes());
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<State> {
        let mut r = Reader::new(bytes);
        let word = r.u64()?;
        let field = |at: u32, bits: u32| (word >> at) & ((1 << bits) - 1);
        let (roll, dice) = (field(27, 5) as u8, field(32, 32));
        let phase = match field(25, 2) {
            0 => Phase::Start,
            1 if dice < HANDS as u64 => Phase::Rolled {
                roll,
                hand: dice as u16,
            },
            2 if dice < SETS as u64 => Phase::Kept {
                roll,
                kept: dice as u16,
            },
            _ => return None,
        };
        let state = State {
            filled: field(0, 16) as u16,
            upper: field(16, 8) as u8,
            y50: field(24, 1) == 1,
            phase,
        };
        (state.word() == word && state.upper <= 63)
            .then_some(())
            .and_then(|()| r.finish(state))
    }

    fn start(&self) -> State {
        State {
            filled: 0,
            upper: 0,
            y50: false,
            phase: Phase::Start,
        }
    }

    fn expand(&self, s: &State, node: &mut impl NodeBuilder<State, Move>) {
        let t = tables();
        let at = |phase| State { phase, ..*s };
        match s.phase {
            Phase::Start if s.filled == self.boxes => node.terminal(0),
            Phase::Start | Phase::Kept { .. } => {
                let (roll, kept) = match s.phase {
                    Phase::Kept { roll, kept } => (roll, kept),
                    _ => (1, t.index[&0]),
                };
                node.chance();
                for &(dice, hand, p) in &t.rolls[kept as usize] {
                    node.add_outcome(Move::Roll(dice), p, 0, at(Phase::Rolled { roll, hand }));
                }
            }
            Phase::Rolled { roll, hand } => {
                node.decision(Player::Max);
                if roll < 3 {
                    for &kept in &t.keeps[hand as usize] {
                        let next = at(Phase::Kept {
                            roll: roll + 1,
                            kept,
                        });
                        node.add_move(Move::Keep(kept), 0, next);
                    }
                }
                self.placements(s, hand, |b, reward, next| {
                    node.add_move(Move::Score(b as u8), reward, next)
                });
            }
        }
    }

    fn has_turns(&self) -> bool {
        true
    }

    fn turn_of(&self, s: &State) -> Option<State> {
        (s.phase != Phase::Start).then_some(State {
            phase: Phase::Start,
            ..*s
        })
    }

    /// Within a turn, the position is its phase and dice: the hands after rolls 1 to 3, then
    /// the dice kept before rolls 2 and 3.
    fn turn_bound(&self) -> usize {
        3 * HANDS + 2 * SETS
    }

    fn turn_index(&self, s: &State) -> Option<usize> {
        match s.phase {
            Phase::Start => None,
            Phase::Rolled { roll, hand } => Some((roll as usize - 1) * HANDS + hand as usize),
            Phase::Kept { roll, kept } => {
                Some(3 * HANDS + (roll as usize - 2) * SETS + kept as usize)
            }
        }
    }

    /// Every turn rolls and keeps alike: the card decides only where a hand may go, which
    /// leaves the turn. The end has a shape of its own (no turn at all).
    fn turn_shape(&self, kept: &State) -> Option<u64> {
        Some(u64::from(kept.filled == self.boxes))
    }

    /// The boxes a rolled hand may go in, without the sets of dice it may keep (those stay
    /// in the turn, alike in every turn).
    fn expand_exits(&self, s: &State, node: &mut impl NodeBuilder<State, Move>) -> bool {
        let Phase::Rolled { hand, .. } = s.phase else {
            return false;
        };
        node.decision(Player::Max);
        self.placements(s, hand, |b, reward, next| {
            node.add_move(Move::Score(b as u8), reward, next)
        });
        true
    }

    /// A hand goes in the same boxes after any roll: the hand is the class.
    fn exit_class(&self, _kept: &State, index: usize) -> Option<u32> {
        (index < 3 * HANDS).then_some((index % HANDS) as u32)
    }

    fn turn_state(&self, kept: &State, index: usize) -> Option<State> {
        let phase = if index < 3 * HANDS {
            Phase::Rolled {
                roll: (index / HANDS) as u8 + 1,
                hand: (index % HANDS) as u16,
            }
        } else if index < 3 * HANDS + 2 * SETS {
            let j = index - 3 * HANDS;
            Phase::Kept {
                roll: (j / SETS) as u8 + 2,
                kept: (j % SETS) as u16,
            }
        } else {
            return None;
        };
        Some(State { phase, ..*kept })
    }

    fn player_label(&self, _player: Player) -> Option<String> {
        Some("the player".to_string())
    }

    fn total_name(&self) -> Option<String> {
        Some("score".to_string())
    }

    fn show_end(&self, _end: &State, total: Rat) -> Option<String> {
        Some(format!("every box is filled: final score {total}"))
    }

    fn show_state(&self, s: &State) -> String {
        let t = tables();
        let filled: Vec<&str> = (0..13)
            .filter(|&b| s.filled & (1 << b) != 0)
            .map(|b| match b {
                YAHTZEE if self.rules.bonus() && s.y50 => "y50",
                YAHTZEE if self.rules.bonus() => "y0",
                _ => BOX_NAMES[b],
            })
            .collect();
        let filled = if filled.is_empty() {
            "-".to_string()
        } else {
            filled.join(" ")
        };
        let head = format!("filled {filled}, upper {}", s.upper);
        match s.phase {
            Phase::Start => format!("{head}, to roll"),
            Phase::Rolled { roll, hand } => format!(
                "{head}, dice {} after roll {roll}",
                show_dice(&t.sets[hand as usize])
            ),
            Phase::Kept { roll, kept } => format!(
                "{head}, kept {} before roll {roll}",
                show_dice(&t.sets[kept as usize])
            ),
        }
    }

    fn show_move(&self, mv: &Move) -> String {
        let t = tables();
        match *mv {
            Move::Keep(k) => format!("keep {}", show_dice(&t.sets[k as usize])),
            Move::Score(b) => format!("score {}", BOX_NAMES[b as usize]),
            Move::Roll(r) => show_dice(&t.sets[r as usize]),
        }
    }

    fn parse_state(&self, text: &str) -> Result<State, String> {
        parse(self, text)
    }
}

/// Reads the notation of [`Yahtzee::show_state`].
fn parse(game: &Yahtzee, text: &str) -> Result<State, String> {
    let t = tables();
    let bad = |why: &str| {
        format!(
            "'{text}' is not a Yahtzee position ({why}); write 'filled 1s 3s fh y50, upper 4, to roll', \
             'filled -, upper 0, dice 1 1 3 5 6 after roll 1' or 'filled 1s, upper 2, kept 1 1 before roll 2'"
        )
    };
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [filled, upper, phase] = parts.as_slice() else {
        return Err(bad("three parts, separated by commas"));
    };
    let mut s = game.start();
    let Some(names) = filled.strip_prefix("filled") else {
        return Err(bad("it starts with 'filled'"));
    };
    for name in names.split_whitespace().filter(|&w| w != "-") {
        let (b, y50) = match name {
            "y50" => (YAHTZEE, true),
            "y0" | "y" => (YAHTZEE, false),
            _ => match BOX_NAMES.iter().position(|&n| n == name) {
                Some(b) => (b, false),
                None => return Err(bad(&format!("'{name}' is no box"))),
            },
        };
        if game.boxes & (1 << b) == 0 {
            return Err(bad(&format!("this game has no box {name}")));
        }
        if s.filled & (1 << b) != 0 {
            return Err(bad(&format!("box {name} is named twice")));
        }
        s.filled |= 1 << b;
        s.y50 |= y50 && game.rules.bonus();
    }
    let upper = upper
        .strip_prefix("upper")
        .and_then(|u| u.trim().parse::<u64>().ok())
        .ok_or_else(|| bad("the second part is 'upper N'"))?;
    let most: u32 = (0..6)
        .filter(|&f| s.filled & (1 << f) != 0)
        .map(|f| 5 * (f + 1))
        .sum();
    if upper > UPPER_GOAL as u64 || upper > most as u64 {
        return Err(bad(&format!(
            "the upper total is at most 63 and what the filled upper boxes can hold ({most})"
        )));
    }
    s.upper = upper as u8;
    if s.filled == game.boxes && *phase != "to roll" {
        return Err(bad("every box is filled: the game is over"));
    }
    let dice = |words: &str| -> Result<Counts, String> {
        let mut c = [0u8; 6];
        for w in words.split_whitespace().filter(|&w| w != "-") {
            match w.parse::<usize>() {
                Ok(f @ 1..=6) => c[f - 1] += 1,
                _ => return Err(bad(&format!("'{w}' is no die"))),
            }
        }
        Ok(c)
    };
    let roll_of = |w: &str, from: u8| -> Result<u8, String> {
        match w.trim().parse::<u8>() {
            Ok(r) if (from..=3).contains(&r) => Ok(r),
            _ => Err(bad(&format!("the roll is {from} to 3"))),
        }
    };
    s.phase = if *phase == "to roll" {
        Phase::Start
    } else if let Some(rest) = phase.strip_prefix("dice") {
        let (d, r) = rest
            .split_once("after roll")
            .ok_or_else(|| bad("'dice … after roll N'"))?;
        let c = dice(d)?;
        if size(&c) != 5 {
            return Err(bad("a hand is five dice"));
        }
        Phase::Rolled {
            roll: roll_of(r, 1)?,
            hand: t.index[&pack(&c)],
        }
    } else if let Some(rest) = phase.strip_prefix("kept") {
        let (d, r) = rest
            .split_once("before roll")
            .ok_or_else(|| bad("'kept … before roll N'"))?;
        let c = dice(d)?;
        if size(&c) > 4 {
            return Err(bad("at most four dice are kept"));
        }
        Phase::Kept {
            roll: roll_of(r, 2)?,
            kept: t.index[&pack(&c)],
        }
    } else {
        return Err(bad("the last part is 'to roll', 'dice …' or 'kept …'"));
    };
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfectplay::Solver;

    fn hand(dice: &[usize]) -> u16 {
        let mut c = [0u8; 6];
        for &d in dice {
            c[d - 1] += 1;
        }
        tables().index[&pack(&c)]
    }

    /// The placements of a hand at a card: box name and reward.
    fn placed(game: &Yahtzee, card: &str, dice: &[usize]) -> Vec<(String, i64)> {
        let s = game.parse_state(card).unwrap();
        let mut out = Vec::new();
        game.placements(&s, hand(dice), |b, r, _| {
            out.push((BOX_NAMES[b].to_string(), r))
        });
        out
    }

    #[test]
    fn tables_have_the_right_sizes() {
        let t = tables();
        assert_eq!(t.sets.len(), 462);
        assert_eq!(t.sets[..HANDS].iter().filter(|c| size(c) == 5).count(), 252);
        let total: Rat = t.rolls[t.index[&0] as usize]
            .iter()
            .fold(Rat::ZERO, |a, r| a + r.2);
        assert_eq!(total, Rat::ONE);
        assert_eq!(t.keeps[hand(&[1, 2, 3, 4, 5]) as usize].len(), 31);
        assert_eq!(t.keeps[hand(&[6, 6, 6, 6, 6]) as usize].len(), 5);
    }

    #[test]
    fn scores_of_hand_checked_hands() {
        let s = |d: &[usize]| tables().scores[hand(d) as usize];
        // 1s 2s 3s 4s 5s 6s 3k 4k fh ss ls ch y
        assert_eq!(
            s(&[1, 1, 1, 2, 2]),
            [3, 4, 0, 0, 0, 0, 7, 0, 25, 0, 0, 7, 0]
        );
        assert_eq!(
            s(&[6, 6, 6, 6, 2]),
            [0, 2, 0, 0, 0, 24, 26, 26, 0, 0, 0, 26, 0]
        );
        assert_eq!(
            s(&[1, 2, 3, 4, 6]),
            [1, 2, 3, 4, 0, 6, 0, 0, 0, 30, 0, 16, 0]
        );
        assert_eq!(
            s(&[3, 4, 5, 6, 3]),
            [0, 0, 6, 4, 5, 6, 0, 0, 0, 30, 0, 21, 0]
        );
        assert_eq!(
            s(&[2, 3, 4, 5, 6]),
            [0, 2, 3, 4, 5, 6, 0, 0, 0, 30, 40, 20, 0]
        );
        assert_eq!(
            s(&[5, 5, 5, 5, 5]),
            [0, 0, 0, 0, 25, 0, 25, 25, 0, 0, 0, 25, 50]
        );
        assert_eq!(
            s(&[1, 3, 4, 5, 5]),
            [1, 0, 3, 4, 10, 0, 0, 0, 0, 0, 0, 18, 0]
        );
        assert_eq!(
            s(&[1, 3, 4, 5, 6]),
            [1, 0, 3, 4, 5, 6, 0, 0, 0, 30, 0, 19, 0]
        );
        assert_eq!(
            s(&[1, 2, 4, 5, 6]),
            [1, 2, 0, 4, 5, 6, 0, 0, 0, 0, 0, 18, 0]
        );
    }

    #[test]
    fn jokers_follow_each_rule() {
        let free = Yahtzee::new(Rules::FreeJoker);
        let forced = Yahtzee::new(Rules::ForcedJoker);
        let plain = Yahtzee::new(Rules::BonusNoJoker);
        let none = Yahtzee::new(Rules::NoBonus);
        let y = [4, 4, 4, 4, 4];
        // Yahtzee box open: a Yahtzee scores 50 there, and nothing is a joker.
        let first = placed(&free, "filled -, upper 0, to roll", &y);
        assert!(first.contains(&("y".into(), 50)) && first.contains(&("fh".into(), 0)));
        // Yahtzee box 50, 4s open: free choice, no joker scores, bonus 100 everywhere.
        let card = "filled y50, upper 0, to roll";
        let p = placed(&free, card, &y);
        assert!(p.contains(&("4s".into(), 120)) && p.contains(&("fh".into(), 100)));
        assert_eq!(placed(&forced, card, &y), vec![("4s".into(), 120)]);
        assert!(placed(&plain, card, &y).contains(&("fh".into(), 100)));
        // 4s filled too: jokers score in full under both joker rules.
        let card = "filled 4s y50, upper 12, to roll";
        let p = placed(&free, card, &y);
        assert!(p.contains(&("fh".into(), 125)) && p.contains(&("ls".into(), 140)));
        assert!(p.contains(&("1s".into(), 100)));
        let p = placed(&forced, card, &y);
        assert!(p.contains(&("ss".into(), 130)) && !p.iter().any(|(b, _)| b == "1s"));
        let p = placed(&plain, card, &y);
        assert!(p.contains(&("fh".into(), 100)) && p.contains(&("ch".into(), 120)));
        // Yahtzee box 0: no bonus; jokers still under the joker rules.
        let card = "filled 4s y0, upper 12, to roll";
        assert!(placed(&free, card, &y).contains(&("fh".into(), 25)));
        assert!(placed(&plain, card, &y).contains(&("fh".into(), 0)));
        assert!(placed(&none, "filled 4s y, upper 12, to roll", &y).contains(&("ls".into(), 0)));
        // Forced: lower boxes all filled, so an open upper box for 0.
        let card = "filled 4s 3k 4k fh ss ls ch y50, upper 12, to roll";
        assert_eq!(
            placed(&forced, card, &y),
            ["1s", "2s", "3s", "5s", "6s"].map(|b| (b.to_string(), 100))
        );
        // Reaching 63 pays the upper bonus once.
        let p = placed(
            &free,
            "filled 1s 2s 3s 4s 5s, upper 45, to roll",
            &[6, 6, 6, 1, 2],
        );
        assert!(p.contains(&("6s".into(), 18 + 35)));
        let p = placed(
            &free,
            "filled 1s 2s 3s 4s 6s, upper 63, to roll",
            &[5, 5, 5, 1, 2],
        );
        assert!(p.contains(&("5s".into(), 15)));
    }

    #[test]
    fn notation_round_trips() {
        let game = Yahtzee::new(Rules::FreeJoker);
        for text in [
            "filled -, upper 0, to roll",
            "filled 1s 3s fh y50, upper 4, to roll",
            "filled 2s, upper 6, dice 1 1 3 5 6 after roll 2",
            "filled 6s y0, upper 18, kept 6 6 before roll 3",
            "filled ch, upper 0, kept - before roll 2",
        ] {
            let s = game.parse_state(text).unwrap();
            assert_eq!(game.show_state(&s), text);
        }
        for bad in [
            "filled zz, upper 0, to roll",
            "filled 1s, upper 9, to roll",
            "filled -, upper 0, dice 1 2 after roll 1",
            "filled -, upper 0, kept 1 1 before roll 1",
            "upper 0, to roll",
        ] {
            assert!(game.parse_state(bad).is_err(), "{bad}");
        }
        // An upper total beyond any byte is out of range, not malformed.
        let e = game.parse_state("filled 1s, upper 999999999999, to roll");
        assert!(e.unwrap_err().contains("the upper total is at most 63"));
    }

    /// One box: the best expected score of one turn aimed at that box, by hand.
    #[test]
    fn one_box_games_match_hand_computations() {
        let value = |boxes: &[&str]| {
            let g = Yahtzee::with_boxes(Rules::FreeJoker, boxes).unwrap();
            Solver::new(&g).start_value::<f64>().unwrap().0
        };
        // Chance alone: each die on its own, kept when it beats what rolling it again is
        // worth: 3.5 on the last roll, then 4.25 (keep 4 or more), then 14/3 (keep 5 or 6).
        let third = 3.5;
        let second = (4.0 + 5.0 + 6.0) / 6.0 + 0.5 * third; // keep 4+, else 3.5
        let first = (5.0 + 6.0) / 6.0 + (4.0 / 6.0) * second; // keep 5+, else second
        assert!((value(&["ch"]) - 5.0 * first).abs() < 1e-12);
        // Yahtzee alone: the chance of five of a kind in three rolls, 2,783,176/6^10 by the
        // classic count, scores 50.
        let p = 2_783_176.0 / 60_466_176.0;
        assert!((value(&["y"]) - 50.0 * p).abs() < 1e-9, "{}", value(&["y"]));
    }

    /// The game without its turns: every state explored and stored, by the engine's other
    /// path, for the queries to agree with.
    struct Whole(Yahtzee);

    impl Model for Whole {
        type State = State;
        type Move = Move;
        fn start(&self) -> State {
            self.0.start()
        }
        fn expand(&self, s: &State, node: &mut impl NodeBuilder<State, Move>) {
            self.0.expand(s, node)
        }
        fn show_state(&self, s: &State) -> String {
            self.0.show_state(s)
        }
        fn show_move(&self, m: &Move) -> String {
            self.0.show_move(m)
        }
        fn parse_state(&self, text: &str) -> Result<State, String> {
            self.0.parse_state(text)
        }
    }

    /// The turns solved on their shared template (in floats: plain ones with a bound per
    /// turn; exactly: integers over a power of 6^5) give the values of the whole game
    /// explored, to the bit and to the fraction, under every rule.
    #[test]
    fn turns_alike_give_the_whole_games_values() {
        for rules in [
            Rules::FreeJoker,
            Rules::ForcedJoker,
            Rules::BonusNoJoker,
            Rules::NoBonus,
        ] {
            let game = Yahtzee::with_boxes(rules, &["3s", "fh", "y"]).unwrap();
            let whole = Whole(game.clone());
            let (a, stats) = Solver::new(&game).start_value::<f64>().unwrap();
            let (b, _) = Solver::new(&whole).start_value::<f64>().unwrap();
            assert_eq!(a.to_bits(), b.to_bits(), "{rules:?}");
            assert!(stats.error_bound < 1e-9, "{}", stats.error_bound);
            let x = Solver::new(&game)
                .start_value::<perfectplay::Exact>()
                .unwrap()
                .0;
            let y = Solver::new(&whole).exact_start_value().unwrap().0;
            assert_eq!(x, y, "{rules:?}");
        }
    }

    /// Explanations inside turns, the strategy's values and the exact distribution of the
    /// score of a two-box game: by turns as by exploring the whole game.
    #[test]
    fn queries_by_turns_agree_with_the_whole_game() {
        use perfectplay::dynamic::{DynModel, SolveOptions};
        let game = Yahtzee::with_boxes(Rules::FreeJoker, &["3s", "y"]).unwrap();
        let whole = Whole(game.clone());
        let exact = || SolveOptions {
            exact: true,
            ..SolveOptions::default()
        };
        let a = game.solve_dyn(exact()).unwrap();
        let b = whole.solve_dyn(exact()).unwrap();
        assert_eq!(a.report().exact, b.report().exact);
        for text in [
            "filled -, upper 0, to roll",
            "filled -, upper 0, dice 3 3 3 5 6 after roll 1",
            "filled y50, upper 0, dice 3 3 3 3 3 after roll 2",
            "filled 3s, upper 9, kept 6 6 before roll 3",
        ] {
            let x = a.explain(a.find(text).unwrap()).unwrap().explanation;
            let y = b.explain(b.find(text).unwrap()).unwrap().explanation;
            assert_eq!(x, y, "{text}");
        }
        let d = perfectplay::DistributionOptions::default();
        assert_eq!(a.distribution(&d).unwrap(), b.distribution(&d).unwrap());
        let rows = |s: &dyn perfectplay::dynamic::Solved| {
            let mut r: Vec<_> = s
                .strategy()
                .unwrap()
                .into_iter()
                .map(|r| (r.state, r.value.exact, r.chosen))
                .collect();
            r.sort();
            r
        };
        assert_eq!(rows(&*a), rows(&*b));
    }

    #[test]
    #[ignore = "four full solves, about two minutes: cargo test -- --ignored"]
    fn published_values() {
        for (rules, v) in [
            (Rules::FreeJoker, 254.5896095),
            (Rules::ForcedJoker, 254.5877287),
            (Rules::BonusNoJoker, 253.9702412),
            (Rules::NoBonus, 245.8707745),
        ] {
            let (value, _) = Solver::new(&Yahtzee::new(rules))
                .start_value::<f64>()
                .unwrap();
            assert!((value - v).abs() < 5e-8, "{rules:?}: {value}");
        }
    }
}
