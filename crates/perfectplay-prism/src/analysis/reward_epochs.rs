//! Reward-bounded reachability in floats by epochs: the reward a play may still earn under
//! an upper bound (or must still earn to meet a lower one), counted in units of the rewards'
//! greatest common divisor, is the epoch, and the values of every state of the space are
//! backed up epoch by epoch, from no unit left (or one to earn) to the bound, as the
//! step-bounded backups of [`crate::analysis::backups`] do step by step. A choice that earns
//! `u` units reads its successors' values `u` epochs back: 0 where that passes an upper bound,
//! the unbounded query's values (solved once, from every state) where it meets a lower one. A
//! choice that earns nothing reads them in its own epoch, so within an epoch the states are
//! backed up in an order where those successors come first, and one that comes back to its
//! own state is taken until it leaves (the mix of its other outcomes: see
//! [`Backups::backup_with`]). That order exists where the choices that earn nothing close no
//! other cycle among the open states; elsewhere (and in exact solves) the product of
//! [`crate::analysis::reward_bounded`] answers.
//!
//! The memory is one value and one error bound per state for each epoch a choice can reach
//! back (the largest reward in units, plus one), whatever the bound; the time is one backup of
//! every state per epoch, and epochs that change no value (a float fixed point of the whole
//! window) are skipped, their rounding still counted in the error bound.

use crate::analysis::backups::{Backups, Bounded};
use crate::analysis::reward_bounded::RewardBound;
use crate::build::Space;
use crate::syntax::ast::BinOp;
use malachite_base::num::arithmetic::traits::{Ceiling, Floor, Gcd, Lcm};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;
use perfectplay::Rat;

/// The most values (one per state and epoch of the window) the epochs keep.
const MAX_WINDOW_VALUES: usize = 1 << 27;

/// The most backups of an outcome (epochs times outcomes of the space) the epochs do before
/// the product is left to answer (and to refuse, if it is too large as well).
const MAX_WORK: u128 = 100_000_000_000;

/// The fewest states of a level each core backs up (fewer run on one core).
const PER_THREAD: usize = 10_000;

/// The epochs of a reward bound on a space.
pub(crate) struct Epochs {
    /// Per choice, its reward in units.
    units: Vec<u32>,
    /// Whether the bound is a lower one: the epoch is then the units still to earn (from 1;
    /// at none the bound is met and the unbounded query's values hold), else the units a
    /// play may still earn (from 0).
    lower: bool,
    /// The last epoch (the units the bound allows, or asks for); `None` where no play is
    /// within the bound.
    last: Option<u64>,
    /// The open states, each after those a choice that earns nothing leads to, level by
    /// level.
    order: Vec<u32>,
    /// Where each level of `order` ends: a level's states read only earlier levels' values
    /// within an epoch, so they are backed up on every core.
    levels: Vec<usize>,
    /// The epochs a choice can reach back, plus one: the ring of layers kept.
    window: usize,
}

/// A layer of epochs: each state's value beside its error, read together.
type Layer = Vec<(f64, f64)>;

/// What a backup in an epoch reads: the ring of layers, where a choice that earns `u` units
/// leads (`back[u]`), and the values of a lower bound met.
#[derive(Clone, Copy)]
struct Reads<'a> {
    ring: &'a [Layer],
    back: &'a [Back],
    met: &'a Bounded,
}

/// Where a choice that earns some units leads in an epoch: to a layer of the ring, past an
/// upper bound (the play ends at 0), or to a lower bound met (the unbounded query's values).
#[derive(Clone, Copy)]
enum Back {
    Layer(usize),
    Passed,
    Met,
}

impl Epochs {
    /// The epochs of `bound` over `space`, each choice earning
    /// `reward[c]` (none negative), the states `open` backed up (under an upper bound those
    /// of ψ outside φ, under a lower one those of ψ); `None` where they do not apply: choices
    /// that earn nothing closing a cycle among open states (other than a loop back to a
    /// state), or a window or a count of epochs
    /// too large.
    pub(crate) fn plan(
        space: &Space,
        reward: &[Rat],
        bound: &RewardBound,
        open: &[bool],
    ) -> Option<Epochs> {
        let (units, unit) = units(reward)?;
        let window = *units.iter().max().unwrap_or(&0) as usize + 1;
        if window.saturating_mul(space.len()) > MAX_WINDOW_VALUES {
            return None;
        }
        let lower = !bound.upper();
        // Under a lower bound, a state from which no play through open states earns again
        // never meets it: worth 0 in every epoch, so not backed up (nor a cycle).
        let earning;
        let open = match lower {
            true => {
                earning = can_earn(space, &units, open);
                &earning[..]
            }
            false => open,
        };
        let (order, levels) = zero_reward_order(space, &units, open)?;
        let units_of_bound = bound.value.to_rational() / unit;
        let last = match bound.op {
            // The most whole units at or below the bound.
            BinOp::Le => units_of_bound.floor(),
            // Strictly below it.
            BinOp::Lt => units_of_bound.ceiling() - Integer::from(1),
            // The fewest whole units at or above it.
            BinOp::Ge => units_of_bound.ceiling(),
            // Strictly above it.
            _ => units_of_bound.floor() + Integer::from(1),
        };
        let last = match (lower, last < 0) {
            (false, true) => None,
            (true, true) => Some(0),
            // Where nothing is ever earned, every epoch is the first, and a lower bound above
            // nothing is never met.
            (false, false) if window == 1 => Some(0),
            (true, false) if window == 1 && last > 0 => None,
            _ => Some(u64::try_from(&last).ok()?),
        };
        let epochs = u128::from(last.unwrap_or(0)) + 1;
        if epochs.saturating_mul(space.outcomes.len() as u128 + 1) > MAX_WORK {
            return None;
        }
        Some(Epochs {
            units,
            lower,
            last,
            order,
            levels,
            window,
        })
    }

    /// Every state's value and error bound with the whole bound ahead: under an upper bound 1
    /// at a state of `goal`; the backup of `backups` over the epochs at an open state (a lower
    /// bound met worth `met`, the unbounded query's values, given under a lower bound); else 0.
    pub(crate) fn solve(&self, backups: &Backups, goal: &[bool], met: Option<Bounded>) -> Bounded {
        let n = goal.len();
        let (Some(last), met) = (self.last, met) else {
            return Bounded {
                values: vec![0.0; n],
                errors: vec![0.0; n],
            };
        };
        let met = match (self.lower, met) {
            (true, Some(met)) if last == 0 => return met,
            (true, Some(met)) => met,
            (true, None) => unreachable!("a lower bound's epochs are solved with its values met"),
            (false, _) => Bounded {
                values: Vec::new(),
                errors: Vec::new(),
            },
        };
        let upper = !self.lower;
        let first: Layer = (0..n)
            .map(|s| match goal[s] && upper {
                true => (1.0, 0.0),
                false => (0.0, 0.0),
            })
            .collect();
        let window = self.window as u64;
        let mut ring = vec![first; self.window];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let start = u64::from(self.lower);
        for epoch in start..=last {
            let now = (epoch % window) as usize;
            let back: Vec<Back> = (0..window)
                .map(|u| match epoch.checked_sub(u) {
                    Some(e) if e > 0 || upper => Back::Layer((e % window) as usize),
                    _ if upper => Back::Passed,
                    _ => Back::Met,
                })
                .collect();
            let mut from = 0;
            for &end in &self.levels {
                let states = &self.order[from..end];
                from = end;
                let parts = threads.min(states.len() / PER_THREAD).max(1);
                if parts == 1 {
                    for &s in states {
                        let reads = Reads {
                            ring: &ring,
                            back: &back,
                            met: &met,
                        };
                        let v = self.backup(backups, reads, s);
                        ring[now][s as usize] = v;
                    }
                    continue;
                }
                let chunk = states.len().div_ceil(parts);
                let mut out = vec![(0.0, 0.0); states.len()];
                let layers = Reads {
                    ring: &ring,
                    back: &back,
                    met: &met,
                };
                std::thread::scope(|scope| {
                    for (part, slots) in states.chunks(chunk).zip(out.chunks_mut(chunk)) {
                        scope.spawn(move || {
                            for (&s, slot) in part.iter().zip(slots) {
                                *slot = self.backup(backups, layers, s);
                            }
                        });
                    }
                });
                for (&s, v) in states.iter().zip(out) {
                    ring[now][s as usize] = v;
                }
            }
            // Every layer of the window alike, and every choice reading the window: each
            // later epoch is the same float backup of the same values.
            let alike = |layer: &Layer| (layer.iter().zip(&ring[now])).all(|(a, b)| a.0 == b.0);
            let settled = epoch + 1 >= start + window && ring.iter().all(alike);
            if settled && epoch < last {
                let skipped = (last - epoch) as f64;
                // A loop backed up in closed form rounds a few times more than a mix.
                return drift(&ring, now, skipped, 5.0 * backups.rounding());
            }
        }
        let last = &ring[(last % window) as usize];
        Bounded {
            values: last.iter().map(|p| p.0).collect(),
            errors: last.iter().map(|p| p.1).collect(),
        }
    }

    /// State `s`'s backup in an epoch, from what it reads.
    /// A choice that earns nothing and comes back to `s` is backed up with it: the mix of
    /// its other outcomes (see [`Backups::backup_with`]).
    fn backup(&self, backups: &Backups, Reads { ring, back, met }: Reads, s: u32) -> (f64, f64) {
        let s = s as usize;
        backups.backup_with(s, |c, t| match back[self.units[c] as usize] {
            Back::Layer(_) if t == s && self.units[c] == 0 => None,
            Back::Layer(layer) => Some(ring[layer][t]),
            Back::Passed => Some((0.0, 0.0)),
            Back::Met => Some((met.values[t], met.errors[t])),
        })
    }
}

/// Layer `last` of `ring`, a float fixed point of the epochs, with its errors widened to
/// bound `skipped` more exact epochs: each backup mixes the errors of the window into at most
/// their largest, then adds its rounding, at most `rounding` times a value (a probability, at
/// most 1) and widens by `1 + rounding`.
fn drift(ring: &[Layer], last: usize, skipped: f64, rounding: f64) -> Bounded {
    let largest = (ring.iter().flatten()).fold(0.0f64, |m, p| m.max(p.1));
    let widened = (largest + skipped * rounding) * (skipped * rounding).exp() * (1.0 + rounding);
    Bounded {
        values: ring[last].iter().map(|p| p.0).collect(),
        errors: vec![widened.next_up(); ring[last].len()],
    }
}

/// Each choice's reward in units, and the unit: the greatest common divisor of the positive
/// rewards (1 where there are none); `None` where a reward's count of units does not fit a
/// `u32`.
fn units(reward: &[Rat]) -> Option<(Vec<u32>, Rational)> {
    let mut distinct: Vec<Rat> = reward.iter().copied().filter(|r| r.is_positive()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.is_empty() {
        return Some((vec![0; reward.len()], Rational::from(1)));
    }
    let parts: Vec<(Natural, Natural)> = (distinct.iter())
        .map(|r| {
            let (num, den) = r.to_rational().to_numerator_and_denominator();
            (num, den)
        })
        .collect();
    // Over the denominators' least common multiple, the rewards are whole numbers.
    let common = (parts.iter()).fold(Natural::from(1u32), |l, (_, d)| l.lcm(d));
    let whole: Vec<Natural> = (parts.iter()).map(|(n, d)| n * (&common / d)).collect();
    let gcd = (whole.iter()).fold(Natural::from(0u32), |g, w| g.gcd(w));
    let mut of: rustc_hash::FxHashMap<Rat, u32> = Default::default();
    for (r, w) in distinct.iter().zip(&whole) {
        of.insert(*r, u32::try_from(&(w / &gcd)).ok()?);
    }
    let units = (reward.iter())
        .map(|r| of.get(r).copied().unwrap_or(0))
        .collect();
    Some((units, Rational::from_naturals(gcd, common)))
}

/// The edges between open states, by their heads: the tails of the edges into `t` are
/// `before[start[t]..start[t + 1]]`.
struct Predecessors {
    start: Vec<usize>,
    before: Vec<u32>,
}

/// The [`Predecessors`] of the open states (`open[s]`) along the choices `choices(c)` takes.
fn predecessors(space: &Space, open: &[bool], choices: impl Fn(usize) -> bool) -> Predecessors {
    let n = space.len();
    let successors = |s: usize| {
        (space.choices_of(s as u32))
            .filter(|&c| choices(c))
            .flat_map(|c| space.outcomes_of(c).iter().map(|&(_, t)| t as usize))
            .filter(move |&t| open[t] && t != s)
    };
    let mut start = vec![0usize; n + 1];
    for s in (0..n).filter(|&s| open[s]) {
        successors(s).for_each(|t| start[t + 1] += 1);
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut before = vec![0u32; start[n]];
    for s in (0..n).filter(|&s| open[s]) {
        for t in successors(s) {
            before[fill[t]] = s as u32;
            fill[t] += 1;
        }
    }
    Predecessors { start, before }
}

/// The open states (`open[s]`) from which a play through open states can take a choice that
/// earns (`units[c] > 0`).
fn can_earn(space: &Space, units: &[u32], open: &[bool]) -> Vec<bool> {
    let n = space.len();
    let choices = |_: usize| true;
    let Predecessors { start, before } = predecessors(space, open, choices);
    let earns = |s: usize| space.choices_of(s as u32).any(|c| units[c] > 0);
    let mut can = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&s| open[s] && earns(s)).collect();
    stack.iter().for_each(|&s| can[s] = true);
    while let Some(t) = stack.pop() {
        for &s in &before[start[t]..start[t + 1]] {
            if !can[s as usize] {
                can[s as usize] = true;
                stack.push(s as usize);
            }
        }
    }
    can
}

/// The open states (`open[s]`) in an order where each comes after every open state that a
/// choice of it that earns nothing (`units[c] == 0`) can lead to; `None` where such choices
/// close a cycle among them (other than a loop back to a state). The order is by levels, each level's
/// states depending on earlier levels' alone; the second vector holds where each level ends.
fn zero_reward_order(
    space: &Space,
    units: &[u32],
    open: &[bool],
) -> Option<(Vec<u32>, Vec<usize>)> {
    let n = space.len();
    let Predecessors { start, before } = predecessors(space, open, |c| units[c] == 0);
    // Per state, the edges to successors not yet placed.
    let mut waiting = vec![0u32; n];
    before.iter().for_each(|&s| waiting[s as usize] += 1);
    // Level by level (a state's level is one past its successors' deepest), each level in
    // the order of the states' numbers, for the memory's sake.
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&s| open[s as usize] && waiting[s as usize] == 0)
        .collect();
    let mut levels = Vec::new();
    let mut level = 0;
    while level < order.len() {
        let end = order.len();
        for i in level..end {
            let t = order[i] as usize;
            for &s in &before[start[t]..start[t + 1]] {
                waiting[s as usize] -= 1;
                if waiting[s as usize] == 0 {
                    order.push(s);
                }
            }
        }
        order[end..].sort_unstable();
        levels.push(end);
        level = end;
    }
    let open_count = open.iter().filter(|&&o| o).count();
    (order.len() == open_count).then_some((order, levels))
}
