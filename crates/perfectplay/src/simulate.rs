//! Playing a solved game at random: seeded chance, computed strategy for every decision.
//!
//! [`Solution::simulate`] plays many games and reports the mean total with a 95% confidence
//! interval, a check of the computed value that shares nothing with the solver but the chosen
//! moves. [`Rng`] is the seeded generator behind it (SplitMix64: small, fast, and the same
//! sequence on every platform), public so that front ends draw chance the same way.

use crate::model::{Model, Node, NodeKind};
use crate::{Number, Rat, Solution, SolveError};
use std::ops::ControlFlow;

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
    /// The 95% confidence interval of the mean; `None` for a single game, which has none.
    pub ci95: Option<(f64, f64)>,
    /// How the interval was made: `"wilson"` (Wilson's score interval) when every total is one
    /// of two values (a win or a loss), `"normal"` (the normal approximation) otherwise.
    pub interval: &'static str,
}

/// The 97.5% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's score interval for a proportion of `k` in `n`.
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At the ends the interval reaches 0 or 1 exactly (rounding would leave 0.9999999999999999).
    let low = if k == 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if k == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// How many simulated games [`Solution::simulate_watched`] plays between two reports.
pub const SIMULATION_REPORT: usize = 1024;

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
        self.simulate_watched(model, games, seed, max_steps, &mut |_| {
            ControlFlow::Continue(())
        })
    }

    /// [`Solution::simulate`], telling `played` the number of games finished after every
    /// [`SIMULATION_REPORT`] games and at the end (for a progress bar); where it answers
    /// [`ControlFlow::Break`] (a Ctrl-C, say), the run stops with
    /// [`SolveError::Interrupted`].
    pub fn simulate_watched<M: Model<State = S>>(
        &self,
        model: &M,
        games: usize,
        seed: u64,
        max_steps: usize,
        played: &mut dyn FnMut(usize) -> ControlFlow<()>,
    ) -> Result<Simulation, SolveError> {
        let start = self.state_at(0).clone();
        play(model, start, games, seed, max_steps, played, |state| {
            let id = self
                .number_of(model, state)
                .ok_or_else(|| SolveError::UnknownState {
                    state: model.show_state(state),
                })?;
            Ok(self.chosen_at(id).unwrap_or(0))
        })
    }
}

/// Plays `games` games from `start` as [`Solution::simulate_watched`] does, the strategy's
/// move at a decision given by `chosen`.
pub(crate) fn play<M: Model>(
    model: &M,
    start: M::State,
    games: usize,
    seed: u64,
    max_steps: usize,
    played: &mut dyn FnMut(usize) -> ControlFlow<()>,
    mut chosen: impl FnMut(&M::State) -> Result<usize, SolveError>,
) -> Result<Simulation, SolveError> {
    let mut rng = Rng::new(seed);
    let mut node = Node::new();
    // Welford's running mean and sum of squared deviations.
    let (mut mean, mut m2) = (0.0f64, 0.0f64);
    // The distinct totals while there are at most two, and how often the first came.
    let mut two: Vec<f64> = Vec::with_capacity(2);
    let mut binary = true;
    let mut first_count = 0usize;
    for g in 0..games {
        let mut state = start.clone();
        let mut total = 0.0f64;
        let mut steps = 0usize;
        loop {
            node.clear();
            model.expand(&state, &mut node);
            // Expanded again after the solve: a model that fails now is an error.
            node.validate().map_err(|reason| SolveError::InvalidModel {
                state: model.show_state(&state),
                reason,
            })?;
            let b = match node.kind() {
                NodeKind::Terminal => {
                    total += node.payoff().to_f64();
                    break;
                }
                NodeKind::Decision(_) => {
                    let chosen = chosen(&state)?;
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
                NodeKind::Unset => unreachable!("validated above"),
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
        if binary {
            match two.iter().position(|&t| t == total) {
                Some(i) => first_count += usize::from(i == 0),
                None if two.len() < 2 => {
                    first_count += usize::from(two.is_empty());
                    two.push(total);
                }
                None => binary = false,
            }
        }
        let delta = total - mean;
        mean += delta / (g + 1) as f64;
        m2 += delta * (total - mean);
        if (g + 1) % SIMULATION_REPORT == 0 && played(g + 1).is_break() {
            return Err(SolveError::Interrupted { states: 0 });
        }
    }
    let _ = played(games);
    let n = games.max(1) as f64;
    let var = if games > 1 { m2 / (n - 1.0) } else { 0.0 };
    // Two outcomes (or one of them only, when it is a 0 or a 1 of a win probability): the
    // proportion's interval, mapped onto the two totals.
    if two.len() == 1 && (two[0] == 0.0 || two[0] == 1.0) {
        two.push(1.0 - two[0]);
    }
    let (ci95, interval) = match (games, binary, two.as_slice()) {
        (0 | 1, _, _) => (None, "normal"),
        (_, true, &[a, b]) => {
            let (lo, hi) = wilson(first_count as f64, n);
            // The proportion is of the first total, `a`: the mean is `b + (a - b) p`.
            let (x, y) = (b + (a - b) * lo, b + (a - b) * hi);
            (Some((x.min(y), x.max(y))), "wilson")
        }
        _ => {
            let half = Z95 * (var / n).sqrt();
            (Some((mean - half, mean + half)), "normal")
        }
    };
    Ok(Simulation {
        games,
        mean,
        std: var.sqrt(),
        ci95,
        interval,
    })
}
