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

/// Probability mass by total.
type Masses<N> = FxHashMap<Rat, N>;

/// Where the strategy goes from one state.
enum Step<N> {
    /// A terminal state with its payoff.
    End(Rat),
    /// `(next state, probability, reward)` for each branch the strategy uses.
    Go(Vec<(u32, N, Rat)>),
}

fn add_to<N: Number>(masses: &mut Masses<N>, total: Rat, mass: N) {
    match masses.get_mut(&total) {
        Some(m) => *m = m.add(&mass),
        None => {
            masses.insert(total, mass);
        }
    }
}

/// The entries of `masses` by increasing total, so that float sums do not depend on hashing.
fn sorted<N>(masses: Masses<N>) -> Vec<(Rat, N)> {
    let mut v: Vec<(Rat, N)> = masses.into_iter().collect();
    v.sort_unstable_by_key(|e| e.0);
    v
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
        masses: Vec<(Rat, N)>,
        pmf: &mut Masses<N>,
        targets: &mut FxHashMap<u32, Masses<N>>,
    ) -> Result<(), SolveError> {
        let overflow = || SolveError::TooLarge {
            what: "a total does not fit in a 64-bit fraction".to_string(),
        };
        match step {
            Step::End(payoff) => {
                for (total, mass) in masses {
                    add_to(pmf, total.checked_add(*payoff).ok_or_else(overflow)?, mass);
                }
            }
            Step::Go(branches) => {
                for (to, p, reward) in branches {
                    let target = targets.entry(*to).or_default();
                    for (total, mass) in &masses {
                        let t = total.checked_add(*reward).ok_or_else(overflow)?;
                        add_to(target, t, mass.mul(p));
                    }
                }
            }
        }
        Ok(())
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
        pending.insert(0, Masses::from_iter([(Rat::ZERO, N::one())]));
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
            Self::spread(&step, sorted(masses), &mut pmf, &mut pending)?;
            if let Step::Go(branches) = &step {
                for &(to, _, _) in branches {
                    if self.component_at(to as usize).is_some() {
                        continue;
                    }
                    if let Some(m) = pending.remove(&to) {
                        let end = self.step(model, to, &mut node)?;
                        Self::spread(&end, sorted(m), &mut pmf, &mut pending)?;
                    }
                }
            }
        }
        Ok(Distribution {
            pmf: sorted(pmf),
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
        live.insert(0, Masses::from_iter([(Rat::ZERO, N::one())]));
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
                Self::spread(&step, sorted(masses), &mut pmf, &mut live)?;
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
            in_play = live
                .values()
                .flat_map(|m| m.values())
                .fold(N::zero(), |acc, p| acc.add(p));
        }
        Ok(Distribution {
            pmf: sorted(pmf),
            tail: in_play,
            steps,
        })
    }
}
