//! The distribution of the total under the computed strategy.
//!
//! The value of a game is an expected total; users also want its spread: how likely each total
//! is when every decision follows [`Solution::chosen`]. [`Solution::distribution`] computes it
//! by pushing probability mass forward over pairs *(state, total so far)*,
//! merging equal pairs, and collecting the mass that reaches a terminal state under its final
//! total. In an acyclic game each state is visited once, in topological order, with its whole
//! distribution of totals so far; the result is exact (exactly in [`Exact`](crate::Exact)
//! numbers) and has no tail. A game with cycles can run forever with positive
//! probability at every step; the propagation then stops once the mass still in play is at most
//! [`DistributionOptions::tail`], and that mass is reported as [`Distribution::tail`] rather than
//! dropped.
//!
//! The masses of a state are a dense run over consecutive totals while every total is an
//! integer (spreading them along a branch is then a loop over two vectors, which took the
//! PerfectMemory 50x50 distribution from about a minute to a few seconds), and a map otherwise.

use rustc_hash::FxHashMap;

use crate::model::{Model, Node, NodeKind};
use crate::{Number, Rat, Solution, SolveError};

/// Limits of a distribution computation.
#[derive(Clone, Debug, PartialEq)]
pub struct DistributionOptions {
    /// Stop once the probability still in play is at most this (games with cycles).
    pub tail: f64,
    /// Stop after this many steps even if more mass than `tail` is in play.
    pub max_steps: usize,
    /// Fail with [`SolveError::TooLarge`] if more than this many (state, total) pairs are in
    /// play at once.
    pub max_pairs: usize,
}

impl Default for DistributionOptions {
    fn default() -> Self {
        DistributionOptions {
            tail: 1e-12,
            max_steps: 1_000_000,
            max_pairs: 20_000_000,
        }
    }
}

/// The distribution of the total (step rewards plus the terminal payoff) under a strategy.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution<N> {
    /// `(total, probability)` for every total with positive probability, by increasing total.
    pub pmf: Vec<(Rat, N)>,
    /// The probability that was still in play when the computation stopped (zero when every
    /// play ended, as always in an acyclic game).
    pub tail: N,
    /// In a game with cycles, the number of steps propagated; `0` for an acyclic game, where
    /// every play is followed to its end.
    pub steps: usize,
}

impl<N: Number> Distribution<N> {
    /// The probability of all listed totals (one minus [`Distribution::tail`]).
    pub fn mass(&self) -> N {
        self.pmf.iter().fold(N::zero(), |acc, (_, p)| acc.add(p))
    }

    /// `Σ total · probability` over the listed totals: the expected total when the tail is
    /// zero.
    pub fn mean(&self) -> N {
        let mut m = N::zero();
        for (t, p) in &self.pmf {
            m.add_mul(&N::from_rat(*t), p);
        }
        m
    }

    /// The standard deviation of the listed part, normalised by its mass (in `f64`).
    pub fn std(&self) -> f64 {
        let mass = self.mass().to_f64();
        if mass <= 0.0 {
            return 0.0;
        }
        let mean = self.mean().to_f64() / mass;
        let var: f64 = self
            .pmf
            .iter()
            .map(|(t, p)| p.to_f64() * (t.to_f64() - mean).powi(2))
            .sum::<f64>()
            / mass;
        var.sqrt()
    }

    /// `P(total ≤ t)` over the listed totals.
    pub fn cdf(&self, t: Rat) -> N {
        self.pmf
            .iter()
            .take_while(|(x, _)| *x <= t)
            .fold(N::zero(), |acc, (_, p)| acc.add(p))
    }

    /// The smallest total `t` with `P(total ≤ t) ≥ q`, or `None` if the listed totals do not
    /// reach probability `q` (part of it is in the tail).
    pub fn quantile(&self, q: f64) -> Option<Rat> {
        let mut acc = 0.0;
        for (t, p) in &self.pmf {
            acc += p.to_f64();
            if acc >= q - 1e-12 {
                return Some(*t);
            }
        }
        None
    }
}

/// Probability mass by total. While every total is an integer (games that count moves or
/// points) the masses are a run over consecutive totals, and spreading a state's masses along
/// a branch is a loop over two vectors: no hashing, no sorting. A fractional total, or a run
/// much wider than the totals in it, turns it into a map.
enum Masses<N> {
    /// `mass[i]` is the mass of the total `lo + i`; `None` where no play arrives (kept apart
    /// from a float mass that underflows to zero, which is still listed).
    Run {
        lo: i64,
        mass: Vec<Option<N>>,
        count: usize,
    },
    Map(FxHashMap<Rat, N>),
}

impl<N> Default for Masses<N> {
    fn default() -> Self {
        Masses::Run {
            lo: 0,
            mass: Vec::new(),
            count: 0,
        }
    }
}

/// The masses of one state in order of total, ready to be spread.
enum Entries<N> {
    Run { lo: i64, mass: Vec<Option<N>> },
    Sorted(Vec<(Rat, N)>),
}

/// A run may span at most this many totals more than eight times the totals in it.
const RUN_SLACK: i64 = 1 << 12;

fn overflow() -> SolveError {
    SolveError::TooLarge {
        what: "a total does not fit in a 64-bit fraction".to_string(),
    }
}

/// The integer `r`, if it is one.
fn integer(r: Rat) -> Option<i64> {
    let (n, d) = r.raw();
    let (n, d) = (n as i128, d as i128);
    (n % d == 0).then(|| (n / d) as i64)
}

/// Adds `mass` to a run's entry, counting the entry if it was empty.
fn put<N: Number>(slot: &mut Option<N>, mass: N, count: &mut usize) {
    match slot {
        Some(m) => *m = m.add(&mass),
        None => {
            *slot = Some(mass);
            *count += 1;
        }
    }
}

/// `m · p`, or `m` itself for the mass that reaches a terminal.
fn scaled<N: Number>(m: &N, p: Option<&N>) -> N {
    match p {
        Some(p) => m.mul(p),
        None => m.clone(),
    }
}

impl<N: Number> Masses<N> {
    /// All the mass at total zero: the start of play.
    fn start() -> Self {
        Masses::Run {
            lo: 0,
            mass: vec![Some(N::one())],
            count: 1,
        }
    }

    /// How many totals have mass.
    fn len(&self) -> usize {
        match self {
            Masses::Run { count, .. } => *count,
            Masses::Map(m) => m.len(),
        }
    }

    /// The total mass.
    fn sum(&self) -> N {
        let add = |acc: N, p: &N| acc.add(p);
        match self {
            Masses::Run { mass, .. } => mass.iter().flatten().fold(N::zero(), add),
            Masses::Map(m) => m.values().fold(N::zero(), add),
        }
    }

    /// Widens a run to cover the totals `first..=last`; `false` (and no change) if the run
    /// would be mostly empty, or for a map.
    fn cover(&mut self, first: i64, last: i64) -> bool {
        let Masses::Run { lo, mass, count } = self else {
            return false;
        };
        if mass.is_empty() {
            *lo = first;
        }
        let new_lo = (*lo).min(first);
        let new_hi = (*lo + mass.len() as i64 - 1).max(last);
        let width = new_hi as i128 - new_lo as i128 + 1;
        let entries = (*count + (last - first) as usize + 1) as i128;
        if width > 8 * entries + RUN_SLACK as i128 {
            return false;
        }
        if new_lo < *lo {
            // As much room again below as the run is long (within the slack), so that totals
            // arriving in decreasing order cost amortised constant time, not a shift each.
            let room = (mass.len() as i64).min(RUN_SLACK);
            let new_lo = new_lo.checked_sub(room).unwrap_or(new_lo);
            let extra = (*lo - new_lo) as usize;
            mass.splice(0..0, std::iter::repeat_with(|| None).take(extra));
            *lo = new_lo;
        }
        mass.resize_with((new_hi - *lo + 1) as usize, || None);
        true
    }

    /// Turns a run into a map.
    fn make_map(&mut self) {
        if let Masses::Run { lo, mass, .. } = self {
            let run = Entries::Run {
                lo: *lo,
                mass: std::mem::take(mass),
            };
            *self = Masses::Map(run.into_list().into_iter().collect());
        }
    }

    /// Adds `mass` at `total`.
    fn add(&mut self, total: Rat, mass: N) {
        if let Some(t) = integer(total) {
            if self.cover(t, t) {
                let Masses::Run {
                    lo,
                    mass: run,
                    count,
                } = self
                else {
                    unreachable!("covered by a run")
                };
                put(&mut run[(t - *lo) as usize], mass, count);
                return;
            }
        }
        self.make_map();
        let Masses::Map(map) = self else {
            unreachable!("a map now")
        };
        match map.get_mut(&total) {
            Some(m) => *m = m.add(&mass),
            None => {
                map.insert(total, mass);
            }
        }
    }

    /// Adds the masses of `src`, each times `p` (if given), at their totals plus `shift`.
    fn add_shifted(
        &mut self,
        src: &Entries<N>,
        shift: Rat,
        p: Option<&N>,
    ) -> Result<(), SolveError> {
        if let (
            Entries::Run {
                lo: from,
                mass: src,
            },
            Some(s),
        ) = (src, integer(shift))
        {
            if src.is_empty() {
                return Ok(());
            }
            let first = from.checked_add(s).ok_or_else(overflow)?;
            let last = first
                .checked_add(src.len() as i64 - 1)
                .ok_or_else(overflow)?;
            if self.cover(first, last) {
                let Masses::Run { lo, mass, count } = self else {
                    unreachable!("covered by a run")
                };
                let at = (first - *lo) as usize;
                for (slot, m) in mass[at..].iter_mut().zip(src) {
                    if let Some(m) = m {
                        put(slot, scaled(m, p), count);
                    }
                }
                return Ok(());
            }
        }
        for (total, m) in src.iter() {
            self.add(total.checked_add(shift).ok_or_else(overflow)?, scaled(m, p));
        }
        Ok(())
    }

    /// The masses by increasing total, so that float sums do not depend on hashing. A run
    /// loses its empty ends (the room it kept for growth), so that spreading it does not pass
    /// that room on to the next states, where it would add up along every path.
    fn entries(self) -> Entries<N> {
        match self {
            Masses::Run { lo, mut mass, .. } => {
                let Some(first) = mass.iter().position(Option::is_some) else {
                    return Entries::Run {
                        lo,
                        mass: Vec::new(),
                    };
                };
                let last = mass.iter().rposition(Option::is_some).expect("one is some");
                mass.truncate(last + 1);
                mass.drain(..first);
                Entries::Run {
                    lo: lo + first as i64,
                    mass,
                }
            }
            Masses::Map(map) => {
                let mut v: Vec<(Rat, N)> = map.into_iter().collect();
                v.sort_unstable_by_key(|e| e.0);
                Entries::Sorted(v)
            }
        }
    }
}

impl<N: Clone> Entries<N> {
    fn iter(&self) -> Box<dyn Iterator<Item = (Rat, &N)> + '_> {
        match self {
            Entries::Run { lo, mass } => Box::new(
                mass.iter()
                    .enumerate()
                    .filter_map(move |(i, m)| Some((Rat::from(*lo + i as i64), m.as_ref()?))),
            ),
            Entries::Sorted(v) => Box::new(v.iter().map(|(t, m)| (*t, m))),
        }
    }

    /// `(total, mass)` by increasing total.
    fn into_list(self) -> Vec<(Rat, N)> {
        match self {
            Entries::Run { lo, mass } => mass
                .into_iter()
                .enumerate()
                .filter_map(|(i, m)| Some((Rat::from(lo + i as i64), m?)))
                .collect(),
            Entries::Sorted(v) => v,
        }
    }
}

/// Where the strategy goes from one state.
enum Step<N> {
    /// A terminal state with its payoff.
    End(Rat),
    /// `(next state, probability, reward)` for each branch the strategy uses.
    Go(Vec<(u32, N, Rat)>),
}

impl<S: Clone + Eq + std::hash::Hash, N: Number> Solution<S, N> {
    /// The distribution of the total when every decision follows the computed strategy. See
    /// the [module documentation](crate::distribution) for how cycles are handled.
    ///
    /// `model` must be the model that was solved.
    pub fn distribution<M: Model<State = S>>(
        &self,
        model: &M,
        options: &DistributionOptions,
    ) -> Result<Distribution<N>, SolveError> {
        if self.stats().cyclic_components == 0 {
            self.distribution_acyclic(model)
        } else {
            self.distribution_by_steps(model, options)
        }
    }

    /// The branches the strategy uses at state `id`.
    fn step<M: Model<State = S>>(
        &self,
        model: &M,
        id: u32,
        node: &mut Node<S, M::Move>,
    ) -> Result<Step<N>, SolveError> {
        node.clear();
        model.expand(self.state_at(id as usize), node);
        let index = |next: &S| {
            self.index_of(next)
                .map(|i| i as u32)
                .ok_or_else(|| SolveError::UnknownState {
                    state: model.show_state(next),
                })
        };
        Ok(match node.kind() {
            NodeKind::Terminal => Step::End(node.payoff()),
            NodeKind::Decision(_) => {
                let chosen = self.chosen_at(id as usize).unwrap_or(0);
                let m = node.moves().nth(chosen).expect("the chosen move exists");
                let overflow = || SolveError::TooLarge {
                    what: "a reward does not fit in a 64-bit fraction".to_string(),
                };
                Step::Go(
                    m.outcomes
                        .iter()
                        .map(|b| {
                            let r = b.reward.checked_add(m.reward).ok_or_else(overflow)?;
                            Ok((index(&b.next)?, N::from_rat(b.probability), r))
                        })
                        .collect::<Result<_, SolveError>>()?,
                )
            }
            NodeKind::Chance => Step::Go(
                node.branches()
                    .iter()
                    .map(|b| Ok((index(&b.next)?, N::from_rat(b.probability), b.reward)))
                    .collect::<Result<_, SolveError>>()?,
            ),
            NodeKind::Unset => unreachable!("a solved model sets every node kind"),
        })
    }

    /// Sends the masses of a state along its step: into `pmf` at a terminal state, else into
    /// the masses of the next states in `targets`.
    fn spread(
        step: &Step<N>,
        masses: Entries<N>,
        pmf: &mut Masses<N>,
        targets: &mut FxHashMap<u32, Masses<N>>,
    ) -> Result<(), SolveError> {
        match step {
            Step::End(payoff) => pmf.add_shifted(&masses, *payoff, None),
            Step::Go(branches) => {
                for (to, p, reward) in branches {
                    let target = targets.entry(*to).or_default();
                    target.add_shifted(&masses, *reward, Some(p))?;
                }
                Ok(())
            }
        }
    }

    /// An acyclic game: each state once, in topological order (components by decreasing
    /// number), carrying its whole distribution of totals so far. Exact, with no tail.
    fn distribution_acyclic<M: Model<State = S>>(
        &self,
        model: &M,
    ) -> Result<Distribution<N>, SolveError> {
        let mut order: Vec<u32> = (0..self.len() as u32)
            .filter(|&i| self.component_at(i as usize).is_some())
            .collect();
        order.sort_unstable_by_key(|&i| std::cmp::Reverse(self.component_at(i as usize)));
        let mut pending: FxHashMap<u32, Masses<N>> = FxHashMap::default();
        pending.insert(0, Masses::start());
        let mut pmf = Masses::default();
        let mut node = Node::new();
        // Terminal states have no component, so they are not in `order`: the mass that reaches
        // one goes into the result right after its predecessor (or at once, for the start).
        let start_terminal = self.component_at(0).is_none();
        for id in order.into_iter().chain(start_terminal.then_some(0)) {
            let Some(masses) = pending.remove(&id) else {
                continue;
            };
            let step = self.step(model, id, &mut node)?;
            Self::spread(&step, masses.entries(), &mut pmf, &mut pending)?;
            if let Step::Go(branches) = &step {
                for &(to, _, _) in branches {
                    if self.component_at(to as usize).is_some() {
                        continue;
                    }
                    if let Some(m) = pending.remove(&to) {
                        let end = self.step(model, to, &mut node)?;
                        Self::spread(&end, m.entries(), &mut pmf, &mut pending)?;
                    }
                }
            }
        }
        Ok(Distribution {
            pmf: pmf.entries().into_list(),
            tail: N::zero(),
            steps: 0,
        })
    }

    /// A game with cycles: every (state, total) pair moves one branch per step until the mass
    /// still in play is at most `options.tail`.
    fn distribution_by_steps<M: Model<State = S>>(
        &self,
        model: &M,
        options: &DistributionOptions,
    ) -> Result<Distribution<N>, SolveError> {
        let mut pmf = Masses::default();
        let mut live: FxHashMap<u32, Masses<N>> = FxHashMap::default();
        live.insert(0, Masses::start());
        let mut node = Node::new();
        let mut steps = 0;
        let mut in_play = N::one();
        while !live.is_empty() && in_play.to_f64() > options.tail && steps < options.max_steps {
            steps += 1;
            let mut states: Vec<(u32, Masses<N>)> = live.drain().collect();
            states.sort_unstable_by_key(|e| e.0);
            let mut pairs = 0usize;
            for (id, masses) in states {
                let step = self.step(model, id, &mut node)?;
                Self::spread(&step, masses.entries(), &mut pmf, &mut live)?;
            }
            for m in live.values() {
                pairs += m.len();
            }
            if pairs > options.max_pairs {
                return Err(SolveError::TooLarge {
                    what: format!(
                        "the distribution needs more than {} (state, total) pairs in play at once",
                        options.max_pairs
                    ),
                });
            }
            in_play = live.values().fold(N::zero(), |acc, m| acc.add(&m.sum()));
        }
        Ok(Distribution {
            pmf: pmf.entries().into_list(),
            tail: in_play,
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Masses built by `add` and `add_shifted` against a plain ordered map, across the change
    /// from a run to a map (a fractional total, or a total far from the others).
    #[test]
    fn runs_and_maps_hold_the_same_masses() {
        let far = Rat::from(1_000_000_000i64);
        let cases: [&[Rat]; 4] = [
            &[Rat::from(3), Rat::from(-2), Rat::from(3), Rat::from(7)],
            &[Rat::from(5), Rat::new(1, 2), Rat::from(5), Rat::from(6)],
            &[Rat::from(1), far, Rat::from(2), Rat::from(1)],
            &[Rat::new(4, 2), Rat::from(2), Rat::from(-40)],
        ];
        for totals in cases {
            let mut masses = Masses::<f64>::default();
            let mut expected = BTreeMap::new();
            for (i, &t) in totals.iter().enumerate() {
                let m = 1.0 / (i + 2) as f64;
                masses.add(t, m);
                *expected.entry(t).or_insert(0.0) += m;
            }
            assert_eq!(masses.len(), expected.len());
            // Shifted by a fraction, then by an integer, scaled by a half each time.
            let mut shifted = Masses::<f64>::start();
            let src = masses.entries();
            for shift in [Rat::new(1, 3), Rat::from(10)] {
                shifted.add_shifted(&src, shift, Some(&0.5)).unwrap();
            }
            let list = src.into_list();
            let want: Vec<(Rat, f64)> = expected.into_iter().collect();
            assert_eq!(list, want);
            assert!(list.iter().all(|(_, m)| *m > 0.0));
            let mut want_shifted = BTreeMap::from([(Rat::ZERO, 1.0)]);
            for shift in [Rat::new(1, 3), Rat::from(10)] {
                for &(t, m) in &want {
                    *want_shifted
                        .entry(t.checked_add(shift).unwrap())
                        .or_insert(0.0) += m * 0.5;
                }
            }
            let got = shifted.entries().into_list();
            assert_eq!(got, want_shifted.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn totals_arriving_in_decreasing_order_stay_a_run() {
        let mut masses = Masses::<f64>::default();
        for t in (-3000..=0).rev() {
            masses.add(Rat::from(t), 1.0);
        }
        assert!(matches!(masses, Masses::Run { .. }));
        assert_eq!(masses.len(), 3001);
        let list = masses.entries().into_list();
        assert_eq!(list.len(), 3001);
        assert_eq!(list[0], (Rat::from(-3000), 1.0));
        assert_eq!(list[3000], (Rat::ZERO, 1.0));
    }

    /// The room a run keeps below its totals stays with it: spread along a chain of states
    /// whose totals each arrive in decreasing order, the runs stay as wide as their totals.
    /// (Passing the room on made each state's run wider than the last; PerfectMemory 30x30
    /// took minutes and gigabytes.)
    #[test]
    fn a_run_spreads_only_the_totals_it_holds() {
        let mut src = Masses::<f64>::start().entries();
        for _ in 0..20 {
            let mut next = Masses::<f64>::default();
            for shift in [2, 1] {
                next.add_shifted(&src, Rat::from(shift), Some(&0.5))
                    .unwrap();
            }
            src = next.entries();
            let Entries::Run { lo, mass } = &src else {
                panic!("integer totals stay a run")
            };
            assert!(mass.first().unwrap().is_some() && mass.last().unwrap().is_some());
            assert_eq!(*lo + mass.len() as i64 - 1, 2 * (*lo));
        }
        let Entries::Run { lo, mass } = src else {
            unreachable!()
        };
        assert_eq!((lo, mass.len()), (20, 21));
        assert!((mass.iter().flatten().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_total_beyond_64_bits_is_an_error_not_a_wrap() {
        let mut masses = Masses::<f64>::start();
        let src = Masses::<f64>::start().entries();
        masses.add_shifted(&src, Rat::from(i64::MAX), None).unwrap();
        let src = masses.entries();
        let mut next = Masses::<f64>::default();
        assert!(next.add_shifted(&src, Rat::from(1), None).is_err());
        // The same at the end of a run.
        let mut run = Masses::<f64>::default();
        run.add(Rat::from(i64::MAX - 1), 1.0);
        run.add(Rat::from(i64::MAX), 1.0);
        assert!(matches!(run, Masses::Run { .. }));
        let src = run.entries();
        let mut next = Masses::<f64>::default();
        assert!(next.add_shifted(&src, Rat::from(1), None).is_err());
    }
}
