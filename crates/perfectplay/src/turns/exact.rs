//! A turn of a template in exact integers over one denominator per level.
//!
//! Exact rationals normalise after every operation (a greatest common divisor of numbers that,
//! deep in a game, run to hundreds of digits). On a template whose probabilities are fractions
//! over a common `l` (Yahtzee's over 6^5) and whose rewards are integers, a turn's values need
//! none of it: with `D` the least common multiple of the denominators of the kept states the
//! turn leads to, every state's value is an integer over `D·l^c`, where its *level* `c` is the
//! number of chance nodes on the longest path below it within the turn. A sum over outcomes
//! multiplies each numerator by a probability's numerator (a word) and raises the level by one;
//! a decision compares numerators brought to one level; only the kept state's value is
//! normalised, once. The values are the exact ones, as the rationals give them.

use std::any::Any;

use malachite_base::num::arithmetic::traits::{DivExact, Lcm, Pow};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;

use crate::backup::{consider, Edge, Kind};
use crate::model::Model;
use crate::{Exact, Number, Rat, SolveError};

use super::shape::{Scratch, Template};

/// The integer copy of a template.
pub(super) struct Whole {
    /// The common denominator of the probabilities.
    l: u64,
    /// Per edge: its probability's numerator over `l`, its reward.
    weight: Vec<u64>,
    reward: Vec<Integer>,
    target: Vec<u32>,
    /// Per node: its level, and its payoff if terminal.
    level: Vec<u32>,
    payoff: Vec<Integer>,
}

/// What a turn's values are over: `D` and `l^c` for each level `c`.
pub(super) struct Scale {
    d: Natural,
    /// `D·l^c` by level.
    denominators: Vec<Natural>,
    /// `l^c` by level.
    powers: Vec<Natural>,
}

/// A node of a template as [`Whole::of`] reads it.
pub(super) struct Part<'a, N> {
    pub kind: Option<Kind>,
    pub payoff: Rat,
    pub edges: &'a [Edge<N>],
    /// The probabilities and rewards of its edges as the model gave them.
    pub given: &'a [(u32, Rat, Rat)],
}

/// The exact rational of a number, where it is one ([`Exact`]).
pub(super) fn rational<N: 'static>(n: &N) -> Option<&Rational> {
    (n as &dyn Any).downcast_ref::<Exact>().map(|e| &e.0)
}

/// A rational as the number type `N`, where `N` is [`Exact`].
fn number<N: 'static>(r: Rational) -> Option<N> {
    let boxed: Box<dyn Any> = Box::new(Exact(r));
    boxed.downcast::<N>().ok().map(|b| *b)
}

/// The integer a [`Rat`] is, if it is one.
fn integer(r: Rat) -> Option<Integer> {
    r.is_integer()
        .then(|| Integer::rounding_from(r.to_rational(), RoundingMode::Exact).0)
}

impl Whole {
    /// The integer copy of a template whose nodes (children first) are `parts`: `None` unless
    /// the numbers are `Exact`, every reward and payoff is an integer, every decision's moves are
    /// plain, and the probabilities' common denominator fits in a word.
    pub(super) fn of<N: Number>(parts: &[Part<'_, N>]) -> Option<Whole> {
        if !N::EXACT || rational(&N::zero()).is_none() {
            return None;
        }
        let mut l: u64 = 1;
        for part in parts {
            for (_, p, _) in part.given {
                let (_, d) = p.parts()?;
                let g = gcd(l, d);
                l = (l / g).checked_mul(d)?;
            }
        }
        if l > 1 << 32 {
            return None;
        }
        let mut weight = Vec::new();
        let mut reward = Vec::new();
        let mut target = Vec::new();
        let mut level = Vec::with_capacity(parts.len());
        let mut payoff = Vec::with_capacity(parts.len());
        for part in parts {
            payoff.push(match part.kind {
                None => integer(part.payoff)?,
                Some(_) => Integer::from(0),
            });
            let mut below = 0;
            for (e, (_, p, r)) in part.edges.iter().zip(part.given) {
                if matches!(part.kind, Some(Kind::Decision(_))) && !e.first {
                    return None;
                }
                if e.reward != N::from_rat(*r) {
                    // A random move's reward folded in: not a plain branch.
                    return None;
                }
                let (n, d) = p.parts()?;
                weight.push(u64::try_from(n).ok()? * (l / d));
                reward.push(integer(*r)?);
                target.push(e.target);
                below = below.max(level[e.target as usize]);
            }
            level.push(match part.kind {
                Some(Kind::Chance) => below + 1,
                _ => below,
            });
        }
        Some(Whole {
            l,
            weight,
            reward,
            target,
            level,
            payoff,
        })
    }

    /// The scale of a turn whose exits lead to values over the denominators `exits`.
    pub(super) fn scale<'a>(&self, exits: impl Iterator<Item = &'a Natural>) -> Scale {
        let mut d = Natural::from(1u32);
        for e in exits {
            if *e != d {
                d = (&d).lcm(e);
            }
        }
        let top = self.level.iter().copied().max().unwrap_or(0) as u64;
        let l = Natural::from(self.l);
        let powers: Vec<Natural> = (0..=top).map(|c| (&l).pow(c)).collect();
        let denominators = powers.iter().map(|p| &d * p).collect();
        Scale {
            d,
            denominators,
            powers,
        }
    }

    /// The numerator of a kept state's value `v` (over `D`, level 0).
    pub(super) fn exit(scale: &Scale, v: &Rational) -> Integer {
        let (n, den) = v.to_numerator_and_denominator();
        let n = n * (&scale.d).div_exact(&den);
        Integer::from_sign_and_abs(*v >= 0u32, n)
    }

    /// The numerator of node `i` (not terminal, of `kind`) over `D·l^level`, from its edges
    /// (`from..to` in the template's) and the numerators of the nodes below, with `extra` the
    /// best of moves out of the turn (over `D`, level 0) for a decision that has some.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn back_up(
        &self,
        scale: &Scale,
        i: usize,
        kind: Kind,
        from: usize,
        to: usize,
        values: &[Integer],
        extra: Option<&Integer>,
    ) -> Integer {
        let me = self.level[i];
        // The numerator of edge `e`'s `r + v`, brought to level `at`.
        let q = |e: usize, at: u32| -> Integer {
            let t = self.target[e] as usize;
            let c = self.level[t];
            let v = &values[t] * Integer::from(&scale.powers[(at - c) as usize]);
            if self.reward[e] == 0u32 {
                v
            } else {
                &self.reward[e] * Integer::from(&scale.denominators[at as usize]) + v
            }
        };
        match kind {
            Kind::Chance => {
                let at = me - 1;
                let mut sum = Integer::from(0);
                for e in from..to {
                    sum += q(e, at) * Integer::from(self.weight[e]);
                }
                sum
            }
            Kind::Decision(player) => {
                let mut best: Option<Integer> =
                    extra.map(|x| x * Integer::from(&scale.powers[me as usize]));
                for e in from..to {
                    let v = q(e, me);
                    if best.as_ref().is_none_or(|b| player.prefers(&v, b)) {
                        best = Some(v);
                    }
                }
                best.expect("a decision has a move")
            }
        }
    }

    /// The value of the kept state (node `i`, the last) from its numerator.
    pub(super) fn value<N: Number>(&self, scale: &Scale, i: usize, n: Integer) -> Option<N> {
        let den = Integer::from(&scale.denominators[self.level[i] as usize]);
        number(Rational::from_integers(n, den))
    }

    /// The payoff of terminal node `i`, over `D` (level 0).
    pub(super) fn payoff(&self, scale: &Scale, i: usize) -> Integer {
        &self.payoff[i] * Integer::from(&scale.d)
    }
}

/// The greatest common divisor of two words.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl<N: Number> Template<N> {
    /// [`Template::solve`] in integers over one denominator per level (see the
    /// module doc): `None` where it cannot be (a decision did not give its moves out of
    /// the turn alone, or a reward out of the turn is not an integer), and the turn is solved
    /// in rationals instead. First every site's best move out of the turn (one per class), as
    /// a rational; then the common denominator of those; then the backups.
    pub(super) fn solve_whole<M: Model>(
        &self,
        whole: &Whole,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        value_of: &impl Fn(&M::State) -> Result<Option<N>, SolveError>,
    ) -> Result<Option<Option<N>>, SolveError> {
        let n = self.nodes.len();
        // Per node: the place of its best move out of the turn in `outs`.
        let mut out_of = vec![u32::MAX; n];
        let mut outs: Vec<N> = Vec::new();
        let mut class_out = vec![u32::MAX; self.classes];
        for (i, slot) in self.nodes.iter().enumerate() {
            if !slot.site {
                continue;
            }
            if let Some(&o) = class_out.get(slot.class as usize) {
                if o != u32::MAX {
                    out_of[i] = o;
                    continue;
                }
            }
            let (state, exits_only) = self.expand_site(model, k, slot, scratch, false)?;
            if !exits_only {
                if slot.exits {
                    return Ok(None);
                }
                self.check_within(model, k, slot, &state, &scratch.node)?;
                continue;
            }
            let Some(Kind::Decision(player)) = slot.kind else {
                unreachable!("split sites are decisions")
            };
            let mut out = None;
            for b in scratch.node.branches() {
                if !b.reward.is_integer() {
                    return Ok(None);
                }
                let Some(value) = value_of(&b.next)? else {
                    return Ok(Some(None));
                };
                consider(player, &mut out, N::from_rat(b.reward).add(&value));
            }
            out_of[i] = outs.len() as u32;
            if let Some(c) = class_out.get_mut(slot.class as usize) {
                *c = outs.len() as u32;
            }
            outs.push(out.expect("a valid decision has a move"));
        }
        let rationals: Vec<&malachite_q::Rational> = outs
            .iter()
            .map(|o| rational(o).expect("exact numbers"))
            .collect();
        let scale = whole.scale(rationals.iter().map(|r| r.denominator_ref()));
        let outs: Vec<_> = rationals.iter().map(|r| Whole::exit(&scale, r)).collect();
        let mut values = Vec::with_capacity(n);
        for (i, slot) in self.nodes.iter().enumerate() {
            let v = match slot.kind {
                None => whole.payoff(&scale, i),
                Some(kind) => {
                    let extra = outs.get(out_of[i] as usize);
                    let (from, to) = (slot.from as usize, slot.to as usize);
                    whole.back_up(&scale, i, kind, from, to, &values, extra)
                }
            };
            values.push(v);
        }
        let root = values.pop().expect("a template has its kept state");
        Ok(whole.value(&scale, n - 1, root).map(Some))
    }
}
