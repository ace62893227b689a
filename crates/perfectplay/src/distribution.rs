//! The distribution of the total under the computed strategy.
//!
//! The value of a game is an expected total; users also want its spread: how likely each total
//! is when every decision follows [`Solution::chosen`]. [`Solution::distribution`] computes it
//! by pushing probability mass forward one step at a time over pairs *(state, total so far)*,
//! merging equal pairs, and collecting the mass that reaches a terminal state under its final
//! total. An acyclic game is done when all mass has arrived, and the result is exact (exactly in
//! [`Exact`](crate::Exact) numbers). A game with cycles can run forever with positive
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
    /// The number of steps propagated.
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
        let overflow = || SolveError::TooLarge {
            what: "a total does not fit in a 64-bit fraction".to_string(),
        };
        let mut pmf: FxHashMap<Rat, N> = FxHashMap::default();
        let mut live: FxHashMap<(u32, Rat), N> = FxHashMap::default();
        live.insert((0, Rat::ZERO), N::one());
        let mut node = Node::new();
        let mut steps = 0;
        let mut in_play = N::one();
        // Each step moves the mass of every pair along one branch; pairs are taken in a fixed
        // order so that float sums do not depend on hashing.
        while !live.is_empty() && in_play.to_f64() > options.tail && steps < options.max_steps {
            steps += 1;
            let mut pairs: Vec<((u32, Rat), N)> = live.drain().collect();
            pairs.sort_unstable_by_key(|a| a.0);
            for ((id, total), mass) in pairs {
                let state = self.state_at(id as usize);
                node.clear();
                model.expand(state, &mut node);
                let mut send = |next: &S, p: &N, reward: Rat| -> Result<(), SolveError> {
                    let to = self
                        .index_of(next)
                        .ok_or_else(|| SolveError::UnknownState {
                            state: model.show_state(next),
                        })?;
                    let t = total.checked_add(reward).ok_or_else(overflow)?;
                    let slot = live.entry((to as u32, t)).or_insert_with(N::zero);
                    *slot = slot.add(&mass.mul(p));
                    Ok(())
                };
                match node.kind() {
                    NodeKind::Terminal => {
                        let t = total.checked_add(node.payoff()).ok_or_else(overflow)?;
                        let slot = pmf.entry(t).or_insert_with(N::zero);
                        *slot = slot.add(&mass);
                    }
                    NodeKind::Decision(_) => {
                        let i = self.chosen_at(id as usize).unwrap_or(0);
                        let b = &node.branches()[i];
                        send(&b.next, &N::one(), b.reward)?;
                    }
                    NodeKind::Chance => {
                        for b in node.branches() {
                            send(&b.next, &N::from_rat(b.probability), b.reward)?;
                        }
                    }
                    NodeKind::Unset => unreachable!("a solved model sets every node kind"),
                }
            }
            if live.len() > options.max_pairs {
                return Err(SolveError::TooLarge {
                    what: format!(
                        "the distribution needs more than {} (state, total) pairs in play at once",
                        options.max_pairs
                    ),
                });
            }
            in_play = live.values().fold(N::zero(), |acc, p| acc.add(p));
        }
        let mut pmf: Vec<(Rat, N)> = pmf.into_iter().collect();
        pmf.sort_unstable_by_key(|a| a.0);
        Ok(Distribution {
            pmf,
            tail: in_play,
            steps,
        })
    }
}
