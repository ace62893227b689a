//! One worker's part of the game: the states it owns (those whose bytes hash to it), each with
//! its choices and outcomes, and the bounds known so far on their values. An outcome is a
//! *slot*, and each slot reads its successor's bounds from a *link*: the successor as this
//! worker knows it, one link per distinct successor of all its states, where the successor's
//! owner sends the bounds once however many slots lead there. Each state keeps its
//! predecessors' links (worker, link), where its own bounds must go.

use perfectplay::encoded::EncodedNode;
use perfectplay::{NodeKind, Player, Rat};

use crate::round::{Gathered, GatheredSlot};
use crate::table::{Preds, StateIds, Users};

/// The kind of an owned state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A terminal; its bounds are set at once.
    Terminal,
    /// A decision of this player.
    Decision(Player),
    /// A chance node: one choice.
    Chance,
}

/// The states one worker owns.
#[derive(Default)]
pub(crate) struct Part {
    /// The bytes of every owned state, with its number here (while exploring).
    ids: StateIds,
    /// The bytes of the successors of the states expanded since the table was last let go,
    /// each with its link less `successors_base` (while exploring).
    successors: StateIds,
    /// The first link of the successors in `successors`.
    successors_base: u32,
    /// The kind of each state.
    pub kind: Vec<Kind>,
    /// Each state's choices: `choices[first[s]..first[s + 1]]`.
    pub first: Vec<u32>,
    /// Each choice's own reward.
    pub choice_reward: Vec<f64>,
    /// Each choice's slots: `slots[choice_first[c]..choice_first[c + 1]]`.
    pub choice_first: Vec<u32>,
    /// Each slot's probability.
    pub p: Vec<f64>,
    /// Each slot's reward.
    pub r: Vec<f64>,
    /// Which of each slot's probability (bit 0) and reward (bit 1) are not exactly their
    /// floats: such a float is within [`CONVERSION`] of the fraction, relatively. Bit 2: the
    /// reward was weighed after the exploration, and its own error bound is in `slot_err`.
    pub inexact: Vec<u8>,
    /// Each slot's reward's error bound, where bit 2 of its `inexact` says so (rewards weighed
    /// by values found in a first solve, [`Options::reached_only`](crate::Options)); empty
    /// where no reward was.
    pub slot_err: Vec<f64>,
    /// The same for each choice's own reward.
    pub choice_err: Vec<f64>,
    /// Each slot's link.
    pub link: Vec<u32>,
    /// The bounds received for each link, and its float value (side by side: a backup reads
    /// all three of each link it weighs).
    pub link_at: Vec<Bounds>,
    /// Whether the link's value is final.
    pub link_fin: Vec<bool>,
    /// The states with a slot on each link (once explored).
    pub users: Users,
    /// Where each state's bounds must go: (worker, link).
    pub preds: Preds,
    /// The bounds of each state's value, and the float value.
    pub lo: Vec<f64>,
    /// See `lo`.
    pub hi: Vec<f64>,
    /// See `lo`.
    pub v: Vec<f64>,
    /// Whether the state's value is final.
    pub fin: Vec<bool>,
}

/// A value's bounds and its float value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// The lower bound.
    pub lo: f64,
    /// The upper bound.
    pub hi: f64,
    /// The value as computed in floats.
    pub v: f64,
}

impl Bounds {
    /// Nothing known yet.
    pub(crate) const UNKNOWN: Bounds = Bounds {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
        v: 0.0,
    };
}

/// The unit round-off of `f64`.
const U: f64 = f64::EPSILON / 2.0;

/// How far a fraction's float may be from it, relatively: a few units of round-off (the
/// numerator and denominator may each round, then their quotient).
const CONVERSION: f64 = 4.0 * U;

/// A fraction as the nearest float, and whether the float is not exactly the fraction (it is
/// for a whole number, or a denominator that is a power of two, both below 2^53).
fn float_of(x: Rat) -> (f64, bool) {
    let exact = x
        .parts()
        .is_some_and(|(n, d)| n.unsigned_abs() < 1 << 53 && d < 1 << 53 && d.is_power_of_two());
    (x.to_f64(), !exact)
}

/// The bound on the distance between a fraction and its float `f`.
pub(crate) fn conversion(f: f64, inexact: bool) -> f64 {
    if inexact {
        CONVERSION * f.abs()
    } else {
        0.0
    }
}

/// `a + b` and its rounding error, exactly (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// A bound computed in floats from `terms` non-negative parts, made safe against the rounding
/// of its own computation.
fn safe(bound: f64, terms: usize) -> f64 {
    if bound == 0.0 {
        return 0.0;
    }
    bound * (1.0 + (terms as f64 + 4.0) * 2.0 * U) + f64::from_bits(1)
}

impl Part {
    /// The number of owned states.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// The number of links.
    pub fn links(&self) -> usize {
        self.link_fin.len()
    }

    /// The exploration is over: the states' and successors' bytes, kept only to find them
    /// again, are let go, the links learn their states, and every table gives back the room
    /// its growth left unused.
    pub fn explored(&mut self) {
        self.ids = StateIds::default();
        self.successors = StateIds::default();
        self.preds.pack();
        let part = &*self;
        let uses = || {
            (0..part.len()).flat_map(move |s| part.slots(s).map(move |k| (part.link[k], s as u32)))
        };
        self.users = Users::new(self.links(), uses);
        self.kind.shrink_to_fit();
        self.first.shrink_to_fit();
        self.choice_reward.shrink_to_fit();
        self.choice_first.shrink_to_fit();
        self.p.shrink_to_fit();
        self.r.shrink_to_fit();
        self.inexact.shrink_to_fit();
        self.slot_err.shrink_to_fit();
        self.choice_err.shrink_to_fit();
        self.link.shrink_to_fit();
        self.link_at.shrink_to_fit();
        self.link_fin.shrink_to_fit();
        self.lo.shrink_to_fit();
        self.hi.shrink_to_fit();
        self.v.shrink_to_fit();
        self.fin.shrink_to_fit();
    }

    /// The states expanded this round are recorded. Once the successors' bytes, kept to find
    /// a successor's link again, outnumber this worker's own states, they are let go, which
    /// keeps that table from growing past the states' own: a successor that later states
    /// lead to again then gets a link of its own, which its owner serves as any other. Where
    /// plays come back to states met long before (cycles), the table seldom outgrows the
    /// states and the links stay shared; where they move on, layer by layer (the built-in
    /// games), little sharing is lost.
    pub fn round_recorded(&mut self) {
        if self.successors.len() > self.ids.len() {
            self.successors = StateIds::default();
            self.successors_base = self.links() as u32;
        }
    }

    /// The number of the state `bytes` here, and whether it is new.
    pub fn intern(&mut self, bytes: &[u8]) -> (u32, bool) {
        let (id, new) = self.ids.intern(bytes);
        if new {
            self.preds.push_state();
        }
        (id, new)
    }

    /// Records the expansion of state `id` (the next to be recorded, in order of numbers), and
    /// calls `successor` with each new link and the bytes of the state it stands for.
    pub fn record(&mut self, id: u32, node: &EncodedNode, mut successor: impl FnMut(u32, &[u8])) {
        debug_assert_eq!(id as usize, self.kind.len());
        if self.first.is_empty() {
            self.first.push(0);
            self.choice_first.push(0);
        }
        let kind = match node.kind() {
            NodeKind::Decision(p) => Kind::Decision(p),
            NodeKind::Chance => Kind::Chance,
            _ => Kind::Terminal,
        };
        self.kind.push(kind);
        if kind == Kind::Terminal {
            let (value, inexact) = float_of(node.payoff());
            let err = conversion(value, inexact);
            self.lo.push(value - safe(err, 1));
            self.hi.push(value + safe(err, 1));
            self.v.push(value);
            self.fin.push(true);
        } else {
            self.lo.push(f64::NEG_INFINITY);
            self.hi.push(f64::INFINITY);
            self.v.push(0.0);
            self.fin.push(false);
        }
        for choice in node.choices() {
            let (reward, inexact) = float_of(choice.reward);
            let err = conversion(reward, inexact);
            self.choice_reward.push(reward);
            self.choice_err.push(err);
            for outcome in node.outcomes(choice) {
                let (p, p_inexact) = float_of(outcome.probability);
                let (r, r_inexact) = float_of(outcome.reward);
                self.p.push(p);
                self.r.push(r);
                self.inexact.push(p_inexact as u8 | (r_inexact as u8) << 1);
                let next = node.next(outcome);
                let (link, new) = self.successors.intern(next);
                let link = self.successors_base + link;
                self.link.push(link);
                if new {
                    self.link_at.push(Bounds::UNKNOWN);
                    self.link_fin.push(false);
                    successor(link, next);
                }
            }
            self.choice_first.push(self.p.len() as u32);
        }
        self.first.push(self.choice_reward.len() as u32);
    }

    /// The bound on the distance between slot `k`'s reward and the exact one: the rounding of
    /// the model's fraction, or, for a reward weighed after the exploration, its own bound.
    #[inline]
    pub fn reward_err(&self, k: usize) -> f64 {
        match self.inexact[k] {
            bits if bits & 4 != 0 => self.slot_err[k],
            bits => conversion(self.r[k], bits & 2 != 0),
        }
    }

    /// The slots of state `s`.
    pub fn slots(&self, s: usize) -> std::ops::Range<usize> {
        let choices = self.first[s] as usize..self.first[s + 1] as usize;
        if choices.is_empty() {
            return 0..0;
        }
        self.choice_first[choices.start] as usize..self.choice_first[choices.end] as usize
    }

    /// Open state `s` as this worker sends it to be solved with the others in one place: each
    /// outcome leads to another open state by its link, or out to its link's final value.
    pub fn gathered(&self, owner: u32, s: usize) -> Gathered {
        let max = match self.kind[s] {
            Kind::Decision(player) => Some(player == Player::Max),
            _ => None,
        };
        let choices = (self.first[s] as usize..self.first[s + 1] as usize)
            .map(|c| {
                let slots = (self.choice_first[c] as usize..self.choice_first[c + 1] as usize)
                    .map(|k| {
                        let (p, inexact) = (self.p[k], self.inexact[k]);
                        let r = self.r[k];
                        let l = self.link[k] as usize;
                        let b = self.link_at[l];
                        GatheredSlot {
                            p: (p, conversion(p, inexact & 1 != 0)),
                            r: (r, self.reward_err(k)),
                            to: match self.link_fin[l] {
                                true => Err([b.v, b.lo, b.hi]),
                                false => Ok(l as u32),
                            },
                        }
                    })
                    .collect();
                (self.choice_reward[c], self.choice_err[c], slots)
            })
            .collect();
        Gathered {
            owner,
            state: s as u32,
            max,
            choices,
        }
    }

    /// Bellman's backup of state `s` from its links' bounds: `(v, lo, hi)`, the float value
    /// and bounds widened by every rounding behind them (of the sums, and of the model's
    /// fractions to floats), so that they stay bounds on the exact value.
    pub fn backup(&self, s: usize) -> (f64, f64, f64) {
        let player = match self.kind[s] {
            Kind::Terminal => return (self.v[s], self.lo[s], self.hi[s]),
            Kind::Decision(p) => Some(p),
            Kind::Chance => None,
        };
        let mut best: Option<(f64, f64, f64)> = None;
        for c in self.first[s] as usize..self.first[s + 1] as usize {
            let v = self.sum_from(c, |l| self.link_at[l].v, 0.0).0;
            let (lo, lo_err) = self.sum_from(c, |l| self.link_at[l].lo, 0.0);
            let (hi, hi_err) = self.sum_from(c, |l| self.link_at[l].hi, 0.0);
            let (lo, hi) = (lo - lo_err, hi + hi_err);
            best = Some(match (best, player) {
                (None, _) => (v, lo, hi),
                (Some(b), Some(Player::Min)) => (b.0.min(v), b.1.min(lo), b.2.min(hi)),
                (Some(b), _) => (b.0.max(v), b.1.max(lo), b.2.max(hi)),
            });
        }
        best.unwrap_or((0.0, 0.0, 0.0))
    }

    /// Bounds on how far state `s`'s backup with the links' values `x` exceeds `base`:
    /// `B(x)(s) - base`. Every outcome is taken relative to `base` before it is weighed (the
    /// exact probabilities sum to one), so where the outcomes equal `base`, as on a cycle of
    /// equal values, the excess is exactly zero, with no rounding to hide its sign.
    ///
    /// `only` weighs that one choice of the state's instead of the best (a strategy fixed for
    /// it).
    pub fn excess(&self, s: usize, x: &[f64], base: f64, only: Option<usize>) -> (f64, f64) {
        let player = match self.kind[s] {
            Kind::Terminal => return (self.lo[s] - base, self.hi[s] - base),
            Kind::Decision(p) => Some(p),
            Kind::Chance => None,
        };
        let choices = match only {
            Some(c) => c..c + 1,
            None => self.first[s] as usize..self.first[s + 1] as usize,
        };
        let mut best: Option<(f64, f64)> = None;
        for c in choices {
            let (sum, err) = self.sum_from(c, |l| x[l], base);
            let (lo, hi) = (sum - err, sum + err);
            best = Some(match (best, player) {
                (None, _) => (lo, hi),
                (Some(b), Some(Player::Min)) => (b.0.min(lo), b.1.min(hi)),
                (Some(b), _) => (b.0.max(lo), b.1.max(hi)),
            });
        }
        best.unwrap_or((-base, -base))
    }

    /// The expected value of choice `c` with the links' values `x` less `base`, each outcome
    /// taken relative to `base` (the exact fractions sum to one), and a bound on its distance
    /// from the exact figure (zero when every step was exact).
    #[inline]
    fn sum_from(&self, c: usize, x: impl Fn(usize) -> f64, base: f64) -> (f64, f64) {
        let mut acc = self.choice_reward[c];
        let mut err = self.choice_err[c];
        let slots = self.choice_first[c] as usize..self.choice_first[c + 1] as usize;
        let terms = slots.len();
        for k in slots {
            let (p, r, inexact) = (self.p[k], self.r[k], self.inexact[k]);
            let x = x(self.link[k] as usize);
            if !x.is_finite() || !acc.is_finite() {
                // An unknown side of a bound: infinite, with nothing to round.
                acc += p * x;
                continue;
            }
            let (d, e0) = two_sum(x, -base);
            let (y, e1) = two_sum(r, d);
            let t = p * y;
            let e2 = p.mul_add(y, -t);
            let (next, e3) = two_sum(acc, t);
            acc = next;
            err += p * (e0.abs() + e1.abs()) + e2.abs() + e3.abs();
            if inexact != 0 {
                let p_err = conversion(p, inexact & 1 != 0);
                let r_err = self.reward_err(k);
                err += p_err * (y.abs() + r_err) + p * r_err;
            }
        }
        match acc.is_finite() {
            true => (acc, safe(err, 5 * terms + 1)),
            false => (acc, 0.0),
        }
    }
}
