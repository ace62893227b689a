//! The distribution of the total under the computed strategy.
//!
//! The value of a game is an expected total; users also want its spread: how likely each total
//! is when every decision follows [`Solution::chosen`]. [`Solution::distribution`] computes it
//! by pushing probability mass forward over pairs *(state, total so far)*, merging equal pairs,
//! and collecting the mass that reaches a terminal state under its final total.
//!
//! The states are taken component by component in topological order (the engine's
//! components, largest number first), so a state's mass is complete when it is spread. A state
//! on no cycle is spread once with its whole distribution of totals so far. A cyclic component
//! takes all the mass that enters it and sends it out:
//! - when the rewards on its branches inside are whole numbers, not negative, the mass is
//!   followed in order of total: at each total, the mass that visits each member solves one
//!   linear system (the branches inside without reward), and the branches with a reward carry
//!   it to later totals. A component without rewards inside is exact: a dice game won or lost
//!   at the end (Pig) gets its exact distribution, with no tail;
//! - otherwise it is followed step by step.
//!
//! Where rewards inside a cycle let plays go on for ever with vanishing probability, the mass
//! still inside is cut once it is at most [`DistributionOptions::tail`] divided by the number
//! of cyclic components (each is entered with probability at most one), and it is reported as
//! [`Distribution::tail`] rather than dropped. An acyclic game has no tail and is exact in
//! [`Exact`](crate::Exact) numbers.
//!
//! The masses of a state are a dense run over consecutive totals while every total is an
//! integer (spreading them along a branch is then a loop over two vectors, far cheaper than a
//! map per state), and a map otherwise.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::linear::System;
use crate::model::{Model, Node, NodeKind};
use crate::{Number, Rat, Solution, SolveError};

/// What a distribution computation says of its progress: the strongly connected sets of
/// states done and in all (for a game solved by turns, sets of turns).
pub type DistributionProgress = dyn Fn(usize, usize) + Send + Sync;

/// Limits of a distribution computation.
#[derive(Clone)]
pub struct DistributionOptions {
    /// The most probability the result may leave out, in games whose plays can go round a
    /// cycle for ever (with vanishing probability).
    pub tail: f64,
    /// Stop following the mass inside one cyclic component after this many rounds (steps, or
    /// totals), even if more than its share of `tail` is still inside.
    pub max_steps: usize,
    /// Fail with [`SolveError::TooLarge`] if more than this many (state, total) pairs are in
    /// play at once.
    pub max_pairs: usize,
    /// Once set (by another thread: a Ctrl-C seen by the caller, say), the computation stops
    /// with [`SolveError::Interrupted`] at its next step.
    pub stop: Option<Arc<AtomicBool>>,
    /// Called now and then with the sets done and the sets in all (for a progress bar).
    pub progress: Option<Arc<DistributionProgress>>,
}

impl std::fmt::Debug for DistributionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistributionOptions")
            .field("tail", &self.tail)
            .field("max_steps", &self.max_steps)
            .field("max_pairs", &self.max_pairs)
            .field("stop", &self.stop)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

impl DistributionOptions {
    /// [`SolveError::Interrupted`] once the stop flag is set.
    fn go_on(&self) -> Result<(), SolveError> {
        match &self.stop {
            Some(flag) if flag.load(Ordering::Relaxed) => {
                Err(SolveError::Interrupted { states: 0 })
            }
            _ => Ok(()),
        }
    }
}

impl Default for DistributionOptions {
    fn default() -> Self {
        DistributionOptions {
            tail: 1e-12,
            max_steps: 1_000_000,
            max_pairs: 20_000_000,
            stop: None,
            progress: None,
        }
    }
}

/// The distribution of the total (step rewards plus the terminal payoff) under a strategy.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution<N> {
    /// `(total, probability)` for every total with positive probability, by increasing total.
    pub pmf: Vec<(Rat, N)>,
    /// The probability of the plays cut short inside a cycle (zero when every play was
    /// followed to its end, as always in an acyclic game or one whose cycles carry no reward).
    pub tail: N,
    /// The most rounds (steps, or totals) followed inside one cyclic component from which mass
    /// was cut; `0` when every play was followed to its end (always in an acyclic game).
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
pub(crate) enum Masses<N> {
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
pub(crate) enum Entries<N> {
    Run { lo: i64, mass: Vec<Option<N>> },
    Sorted(Vec<(Rat, N)>),
}

/// A run may span at most this many totals more than eight times the totals in it.
const RUN_SLACK: i64 = 1 << 12;

/// The integer `r`, if it is one.
fn integer(r: Rat) -> Option<i64> {
    let (n, d) = r.raw()?;
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
    pub(crate) fn start() -> Self {
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
    pub(crate) fn add_shifted(
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
            // A run that would pass 64-bit totals goes entry by entry, as exact fractions.
            let span = from
                .checked_add(s)
                .and_then(|first| Some((first, first.checked_add(src.len() as i64 - 1)?)));
            if let Some((first, _)) = span.filter(|&(first, last)| self.cover(first, last)) {
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
            self.add(total + shift, scaled(m, p));
        }
        Ok(())
    }

    /// The masses by increasing total, so that float sums do not depend on hashing. A run
    /// loses its empty ends (the room it kept for growth), so that spreading it does not pass
    /// that room on to the next states, where it would add up along every path.
    pub(crate) fn entries(self) -> Entries<N> {
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
    pub(crate) fn into_list(self) -> Vec<(Rat, N)> {
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
pub(crate) enum Step<N> {
    /// A terminal state with its payoff.
    End(Rat),
    /// `(next state, probability, reward)` for each branch the strategy uses.
    Go(Vec<(u32, N, Rat)>),
}

/// The state of one distribution computation.
struct Flow<N> {
    /// Mass waiting at states not processed yet.
    pending: FxHashMap<u32, Masses<N>>,
    /// Mass that reached a terminal state, by final total.
    pmf: Masses<N>,
    /// Mass left inside cyclic components.
    tail: N,
    /// See [`Distribution::steps`].
    steps: usize,
    /// The most mass a component may leave inside.
    limit: f64,
    system: System<N>,
}

impl<N: Number> Flow<N> {
    /// Leaves `left` inside a component after `rounds` rounds: it goes to the tail.
    fn cut(&mut self, left: &N, rounds: usize) {
        self.tail = self.tail.add(left);
        self.steps = self.steps.max(rounds);
    }
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
        self.distribution_from(model, 0, options)
    }

    /// [`Solution::distribution`] of a play that starts at state number `from` (as
    /// [`Solution::index_of`] numbers states) instead of the start.
    pub fn distribution_from<M: Model<State = S>>(
        &self,
        model: &M,
        from: usize,
        options: &DistributionOptions,
    ) -> Result<Distribution<N>, SolveError> {
        if from >= self.len() {
            return Err(SolveError::UnknownState {
                state: format!("number {from}"),
            });
        }
        // Components by decreasing number are in topological order from the start (the
        // engine numbers a component after every component it can reach).
        let component = |i: u32| self.component_at(i as usize);
        let mut order: Vec<u32> = (0..self.len() as u32)
            .filter(|&i| component(i).is_some())
            .collect();
        order.sort_unstable_by_key(|&i| (std::cmp::Reverse(component(i)), i));
        let groups: Vec<&[u32]> = order
            .chunk_by(|&a, &b| component(a) == component(b))
            .collect();
        let mut node = Node::new();
        flow(
            &groups,
            |id| component(id).is_some(),
            |id| self.step(model, id, &mut node),
            &[(from as u32, N::one(), Rat::ZERO)],
            self.stats().cyclic_components,
            options,
        )
    }
}

/// The distribution of the total over a graph whose strongly connected sets of non-terminal
/// states are `groups`, in topological order, with `step` saying where the strategy goes from
/// a state; `in_group` tells the non-terminal states. The play starts as `start` says:
/// `(state, probability, total so far)`, state 0 with probability one and nothing won for a
/// play from the start. `cyclic` is the number of cyclic sets (the tail allowed is shared
/// between them).
pub(crate) fn flow<N: Number>(
    groups: &[&[u32]],
    in_group: impl Fn(u32) -> bool,
    mut step: impl FnMut(u32) -> Result<Step<N>, SolveError>,
    start: &[(u32, N, Rat)],
    cyclic: usize,
    options: &DistributionOptions,
) -> Result<Distribution<N>, SolveError> {
    let mut flow = Flow {
        pending: FxHashMap::default(),
        pmf: Masses::default(),
        tail: N::zero(),
        steps: 0,
        // Each cyclic component is entered with probability at most one, so leaving at
        // most this much in each keeps the whole tail within `options.tail`.
        limit: options.tail / cyclic.max(1) as f64,
        system: System::new(0),
    };
    let one = Masses::<N>::start().entries();
    for (at, p, total) in start {
        flow.pending
            .entry(*at)
            .or_default()
            .add_shifted(&one, *total, Some(p))?;
    }
    // Moves the mass waiting at terminal state `id`, if any, into the result.
    let flush =
        |flow: &mut Flow<N>, step: &mut dyn FnMut(u32) -> Result<Step<N>, SolveError>, id: u32| {
            let Some(m) = flow.pending.remove(&id) else {
                return Ok(());
            };
            match step(id)? {
                Step::End(payoff) => flow.pmf.add_shifted(&m.entries(), payoff, None),
                Step::Go(_) => unreachable!("a state in no component is terminal"),
            }
        };
    // Terminal states have no component: the mass that reaches one goes into the result
    // right after its predecessors (or at once, for where the play starts).
    for &(at, _, _) in start {
        if !in_group(at) {
            flush(&mut flow, &mut step, at)?;
        }
    }
    let mut steps = Vec::new();
    for (done, &members) in groups.iter().enumerate() {
        if let Some(progress) = &options.progress {
            if done % 1024 == 0 {
                progress(done, groups.len());
            }
        }
        if !members.iter().any(|i| flow.pending.contains_key(i)) {
            continue; // the strategy never gets here
        }
        options.go_on()?;
        steps.clear();
        for &id in members {
            match step(id)? {
                Step::Go(branches) => steps.push(branches),
                Step::End(_) => unreachable!("a terminal state is in no component"),
            }
        }
        let cyclic = members.len() > 1 || steps[0].iter().any(|b| b.0 == members[0]);
        if !cyclic {
            let masses = flow
                .pending
                .remove(&members[0])
                .expect("checked above")
                .entries();
            for (to, p, reward) in &steps[0] {
                let target = flow.pending.entry(*to).or_default();
                target.add_shifted(&masses, *reward, Some(p))?;
            }
        } else {
            through_cycle(members, &steps, &mut flow, options)?;
        }
        for branches in &steps {
            for &(to, _, _) in branches {
                if !in_group(to) {
                    flush(&mut flow, &mut step, to)?;
                }
            }
        }
    }
    if let Some(progress) = &options.progress {
        progress(groups.len(), groups.len());
    }
    Ok(Distribution {
        pmf: flow.pmf.entries().into_list(),
        tail: flow.tail,
        steps: flow.steps,
    })
}

/// Sends the mass entering a cyclic component (`members`, with the branches the strategy
/// uses at each) out to the states after it: by total (`by_totals`) when the rewards
/// inside are whole and not negative, else step by step until at most `flow.limit` of it
/// is left inside, which goes to the tail.
fn through_cycle<N: Number>(
    members: &[u32],
    steps: &[Vec<(u32, N, Rat)>],
    flow: &mut Flow<N>,
    options: &DistributionOptions,
) -> Result<(), SolveError> {
    let local: FxHashMap<u32, usize> = members.iter().enumerate().map(|(k, &id)| (id, k)).collect();
    let entering: Vec<Option<Entries<N>>> = members
        .iter()
        .map(|id| flow.pending.remove(id).map(Masses::entries))
        .collect();
    // Rewards inside that are whole and not negative: follow the mass by total.
    let rising = steps
        .iter()
        .flatten()
        .all(|(to, _, r)| !local.contains_key(to) || (integer(*r).is_some_and(|r| r >= 0)));
    if rising && by_totals(&entering, steps, &local, flow, options)? {
        return Ok(());
    }
    // Step by step.
    let mut live: Vec<Option<Entries<N>>> = entering;
    let mut count = 0;
    loop {
        let in_play = live
            .iter()
            .flatten()
            .flat_map(Entries::iter)
            .fold(N::zero(), |acc, (_, m)| acc.add(m));
        if in_play.to_f64() <= flow.limit || count >= options.max_steps {
            if in_play > N::zero() {
                flow.cut(&in_play, count);
            }
            break;
        }
        count += 1;
        options.go_on()?;
        let mut next: Vec<Masses<N>> = (0..members.len()).map(|_| Masses::default()).collect();
        for (k, masses) in live.iter().enumerate() {
            let Some(masses) = masses else { continue };
            for (to, p, r) in &steps[k] {
                let target = match local.get(to) {
                    Some(&j) => &mut next[j],
                    None => flow.pending.entry(*to).or_default(),
                };
                target.add_shifted(masses, *r, Some(p))?;
            }
        }
        let pairs: usize = next.iter().map(Masses::len).sum();
        if pairs > options.max_pairs {
            return Err(SolveError::TooLarge {
                what: format!(
                    "the distribution needs more than {} (state, total) pairs in play at once",
                    options.max_pairs
                ),
            });
        }
        live = next
            .into_iter()
            .map(|m| (m.len() > 0).then(|| m.entries()))
            .collect();
    }
    Ok(())
}

/// Sends the mass through a component whose rewards inside are whole numbers, not
/// negative, in order of total: at each total `t`, the mass that visits each member is
/// `v = m_t + A_0ᵀ v`, with `m_t` the mass arriving at total `t` (from outside, or along a
/// branch inside with a positive reward) and `A_0` the branches inside without reward;
/// then `v` moves on along the branches with a reward. Without rewards inside, every total
/// is done after one system and nothing is cut. Otherwise plays can stay inside for ever
/// (with vanishing probability), and the mass still scheduled is cut once it is at most
/// `flow.limit`. `false` (and nothing sent) if the system is singular: the strategy would
/// keep some mass inside for ever.
fn by_totals<N: Number>(
    entering: &[Option<Entries<N>>],
    steps: &[Vec<(u32, N, Rat)>],
    local: &FxHashMap<u32, usize>,
    flow: &mut Flow<N>,
    options: &DistributionOptions,
) -> Result<bool, SolveError> {
    let n = steps.len();
    let mut schedule: BTreeMap<Rat, Vec<(usize, N)>> = BTreeMap::new();
    for (k, e) in entering.iter().enumerate() {
        for (t, m) in e.iter().flat_map(Entries::iter) {
            schedule.entry(t).or_default().push((k, m.clone()));
        }
    }
    let still = steps
        .iter()
        .flatten()
        .any(|(to, _, r)| r.is_zero() && local.contains_key(to));
    let mut count = 0;
    while let Some((total, arriving)) = schedule.pop_first() {
        options.go_on()?;
        let mut v = vec![N::zero(); n];
        for (k, m) in arriving {
            v[k] = v[k].add(&m);
        }
        if still {
            let system = &mut flow.system;
            system.reset(n);
            system.c = v;
            for (k, branches) in steps.iter().enumerate() {
                for (to, p, r) in branches {
                    match local.get(to) {
                        Some(&j) if r.is_zero() => {
                            system.add(j, k as u32, p.clone());
                        }
                        _ => {}
                    }
                }
            }
            v = match system.solve() {
                Ok(v) => v,
                // The same system at every total: only the first can fail.
                Err(_) => return Ok(false),
            };
        }
        count += 1;
        for (k, mass) in v.iter().enumerate() {
            if *mass == N::zero() {
                continue;
            }
            for (to, p, r) in &steps[k] {
                let at = total + *r;
                match local.get(to) {
                    Some(_) if r.is_zero() => {}
                    Some(&j) => schedule.entry(at).or_default().push((j, mass.mul(p))),
                    None => flow.pending.entry(*to).or_default().add(at, mass.mul(p)),
                }
            }
        }
        let in_play: f64 = schedule.values().flatten().map(|(_, m)| m.to_f64()).sum();
        if !schedule.is_empty() && (in_play <= flow.limit || count >= options.max_steps) {
            let left = schedule
                .values()
                .flatten()
                .fold(N::zero(), |acc, (_, m)| acc.add(m));
            flow.cut(&left, count);
            break;
        }
    }
    Ok(true)
}

impl<S: Clone + Eq + std::hash::Hash, N: Number> Solution<S, N> {
    /// The branches the strategy uses at state `id`.
    pub(crate) fn step<M: Model<State = S>>(
        &self,
        model: &M,
        id: u32,
        node: &mut Node<S, M::Move>,
    ) -> Result<Step<N>, SolveError> {
        node.clear();
        model.expand(self.state_at(id as usize), node);
        // Expanded again after the solve: a model that fails now (a Python game interrupted
        // by Ctrl-C, say) is an error, not a node taken as solved.
        node.validate().map_err(|reason| SolveError::InvalidModel {
            state: model.show_state(self.state_at(id as usize)),
            reason,
        })?;
        let index = |next: &S| {
            self.number_of(model, next)
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
                Step::Go(
                    m.outcomes
                        .iter()
                        .map(|b| {
                            let r = b.reward + m.reward;
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
            NodeKind::Unset => unreachable!("validated above"),
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
                    *want_shifted.entry(t + shift).or_insert(0.0) += m * 0.5;
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
    /// (Passing the room on made each state's run wider than the last, so that memory grew
    /// with the square of the chain's length.)
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
    fn a_total_beyond_64_bits_is_exact_not_a_wrap() {
        let beyond: Rat = "9223372036854775808".parse().unwrap();
        let mut masses = Masses::<f64>::start();
        let src = Masses::<f64>::start().entries();
        masses.add_shifted(&src, Rat::from(i64::MAX), None).unwrap();
        let src = masses.entries();
        let mut next = Masses::<f64>::default();
        next.add_shifted(&src, Rat::from(1), None).unwrap();
        let totals: Vec<Rat> = next.entries().iter().map(|(t, _)| t).collect();
        assert_eq!(totals, [Rat::from(1), beyond]);
        // The same at the end of a run.
        let mut run = Masses::<f64>::default();
        run.add(Rat::from(i64::MAX - 1), 1.0);
        run.add(Rat::from(i64::MAX), 1.0);
        assert!(matches!(run, Masses::Run { .. }));
        let src = run.entries();
        let mut next = Masses::<f64>::default();
        next.add_shifted(&src, Rat::from(1), None).unwrap();
        let totals: Vec<Rat> = next.entries().iter().map(|(t, _)| t).collect();
        assert_eq!(totals, [Rat::from(i64::MAX), beyond]);
    }
}
