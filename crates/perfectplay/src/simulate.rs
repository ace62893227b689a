//! Playing a solved game at random: seeded chance, computed strategy for every decision.
//!
//! [`Solution::simulate`] plays many games and reports the mean total with a 95% confidence
//! interval, a check of the computed value that shares nothing with the solver but the chosen
//! moves. [`Rng`] is the seeded generator behind it (SplitMix64: small, fast, and the same
//! sequence on every platform), public so that front ends draw chance the same way.

use crate::model::{Model, Node, NodeKind};
use crate::{Number, Rat, Solution, SolveError};

/// A seeded pseudo-random generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An index drawn with the given probabilities (which sum to one); rounding can only
    /// favour the last index.
    pub fn pick(&mut self, probabilities: impl IntoIterator<Item = Rat>) -> usize {
        let u = self.next_f64();
        let mut acc = 0.0;
        let mut last = 0;
        for (i, p) in probabilities.into_iter().enumerate() {
            acc += p.to_f64();
            last = i;
            if u < acc {
                return i;
            }
        }
        last
    }
}

/// The result of [`Solution::simulate`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Simulation {
    /// Games played.
    pub games: usize,
    /// The mean total.
    pub mean: f64,
    /// The sample standard deviation of the total.
    pub std: f64,
    /// The 95% confidence interval of the mean (normal approximation).
    pub ci95: (f64, f64),
}

impl<S: Clone + Eq + std::hash::Hash, N: Number> Solution<S, N> {
    /// Plays `games` games from the start, drawing chance with [`Rng::new(seed)`](Rng::new) and
    /// playing the computed strategy at every decision, and summarises the totals. A game that
    /// takes more than `max_steps` steps is an error (it would signal a strategy that does not
    /// end the game, which the solver never returns).
    pub fn simulate<M: Model<State = S>>(
        &self,
        model: &M,
        games: usize,
        seed: u64,
        max_steps: usize,
    ) -> Result<Simulation, SolveError> {
        let mut rng = Rng::new(seed);
        let mut node = Node::new();
        // Welford's running mean and sum of squared deviations.
        let (mut mean, mut m2) = (0.0f64, 0.0f64);
        for g in 0..games {
            let mut state = self.state_at(0).clone();
            let mut total = 0.0f64;
            let mut steps = 0usize;
            loop {
                node.clear();
                model.expand(&state, &mut node);
                let b = match node.kind() {
                    NodeKind::Terminal => {
                        total += node.payoff().to_f64();
                        break;
                    }
                    NodeKind::Decision(_) => {
                        let id = self.number_of(model, &state).ok_or_else(|| {
                            SolveError::UnknownState {
                                state: model.show_state(&state),
                            }
                        })?;
                        let chosen = self.chosen_at(id).unwrap_or(0);
                        let m = node.moves().nth(chosen).expect("the chosen move exists");
                        total += m.reward.to_f64();
                        match m.outcomes {
                            [only] => only,
                            all => &all[rng.pick(all.iter().map(|b| b.probability))],
                        }
                    }
                    NodeKind::Chance => {
                        &node.branches()[rng.pick(node.branches().iter().map(|b| b.probability))]
                    }
                    NodeKind::Unset => unreachable!("a solved model sets every node kind"),
                };
                total += b.reward.to_f64();
                state = b.next.clone();
                steps += 1;
                if steps > max_steps {
                    return Err(SolveError::TooLarge {
                        what: format!("a simulated game ran past {max_steps} steps"),
                    });
                }
            }
            let delta = total - mean;
            mean += delta / (g + 1) as f64;
            m2 += delta * (total - mean);
        }
        let n = games.max(1) as f64;
        let var = if games > 1 { m2 / (n - 1.0) } else { 0.0 };
        let half = 1.959_963_984_540_054 * (var / n).sqrt();
        Ok(Simulation {
            games,
            mean,
            std: var.sqrt(),
            ci95: (mean - half, mean + half),
        })
    }
}
