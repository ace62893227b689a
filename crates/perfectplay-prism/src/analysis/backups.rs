//! Step-bounded values in floats by backups over the space: backward induction over the steps
//! that keeps one value per state of the space and two such layers, whatever the bound, so a
//! bound of 10^8 steps costs no more memory than one step (as PRISM's own iteration does).
//! A backup that changes no value repeats for every later step of the same rule, so such
//! steps are skipped; the error bound counts them all the same.
//!
//! The bound: a backup (a mix or an optimum of `reward + Σ p·y`) is non-expansive in the
//! largest difference, so each adds at most its own rounding to the distance from the exact
//! values: the conversion of the probabilities and rewards, the products and the sum of at most
//! `fan` terms, and the division of a chain's uniform mix, each half an ulp relative to the
//! largest reward plus the largest value. After a step that changes nothing the values are a
//! float fixed point, which moves the exact iteration by at most that rounding a step.

use perfectplay::{Player, Rat};

use crate::analysis::check::OverInitial;
use crate::build::Space;

/// The space's choices as float backups.
pub(crate) struct Backups<'a> {
    space: &'a Space,
    dtmc: bool,
    /// Who decides at each state (one entry when it is the same everywhere).
    players: &'a [Player],
    /// Each distinct probability of the space, rounded.
    probability: Vec<f64>,
    /// Each choice's reward, rounded; empty for none.
    reward: Vec<f64>,
    /// The largest reward's size.
    largest_reward: f64,
    /// Values are probabilities: kept within [0, 1], where the exact ones are.
    probabilities: bool,
    /// The relative rounding of one backup.
    rounding: f64,
    /// The rounding of the backups so far, summed.
    pub error: f64,
}

impl<'a> Backups<'a> {
    /// The backups of `space`'s choices, each earning its `reward` (empty for none); a chain
    /// mixes the choices of a state uniformly, as PRISM does, else `players` optimise. The
    /// values are `probabilities`, or rewards.
    pub(crate) fn new(
        space: &'a Space,
        dtmc: bool,
        players: &'a [Player],
        reward: &[Rat],
        probabilities: bool,
    ) -> Backups<'a> {
        let fan = (0..space.len() as u32)
            .map(|s| {
                let sizes = space.choices_of(s).map(|c| space.outcomes_of(c).len() + 1);
                match dtmc {
                    true => sizes.sum(),
                    false => sizes.max().unwrap_or(0),
                }
            })
            .max()
            .unwrap_or(0);
        let reward: Vec<f64> = reward.iter().map(|r| r.to_f64()).collect();
        Backups {
            space,
            dtmc,
            players,
            probability: space.probabilities.iter().map(|p| p.to_f64()).collect(),
            largest_reward: reward.iter().fold(0.0f64, |m, r| m.max(r.abs())),
            probabilities,
            reward,
            // Half an ulp (EPSILON is a whole one) for each term, its product and its
            // conversion, and for the division of a uniform mix.
            rounding: (fan as f64 + 2.0) * f64::EPSILON,
            error: 0.0,
        }
    }

    /// The values `y` (per state of the space) after `steps` more backups, counted backwards:
    /// a state where `fixed` gives a value takes it, the others back up their choices.
    pub(crate) fn run(
        &mut self,
        y: &mut Vec<f64>,
        steps: u64,
        fixed: impl Fn(usize) -> Option<f64> + Sync,
    ) {
        let mut next = vec![0.0; y.len()];
        let mut done = 0;
        while done < steps {
            self.error += self.step_rounding(y);
            done += 1;
            self.backup(y, &mut next, &fixed);
            std::mem::swap(y, &mut next);
            if *y == next {
                break;
            }
        }
        // The steps skipped at a fixed point, which move the exact iteration unless it is
        // one of the exact backups too.
        if done < steps && !self.exact_fixed_point(y, &fixed) {
            self.error += (steps - done) as f64 * self.step_rounding(y);
        }
    }

    /// Whether `y` is a fixed point of the exact backups: decided where every value is 0 or 1
    /// and no reward is earned (a probability that has settled at certainty or at none), by
    /// summing the exact probabilities into the states at 1.
    fn exact_fixed_point(&self, y: &[f64], fixed: &impl Fn(usize) -> Option<f64>) -> bool {
        if !self.reward.is_empty() || y.iter().any(|&v| v != 0.0 && v != 1.0) {
            return false;
        }
        let space = self.space;
        let choice = |c: usize| {
            (space.outcomes_of(c).iter())
                .filter(|&&(_, t)| y[t as usize] == 1.0)
                .try_fold(Rat::ZERO, |sum, &(p, _)| {
                    sum.checked_add(space.probability(p))
                })
        };
        (0..y.len()).all(|s| {
            if let Some(v) = fixed(s) {
                return v == y[s];
            }
            let want = match y[s] == 1.0 {
                true => Rat::ONE,
                false => Rat::ZERO,
            };
            let mut sums = space.choices_of(s as u32).map(choice);
            match (self.dtmc, *self.players.get(s).unwrap_or(&self.players[0])) {
                // A uniform mix is the value only if every choice's sum is.
                (true, _) => sums.all(|x| x == Some(want)),
                (false, Player::Max) => {
                    let all: Option<Vec<Rat>> = sums.collect();
                    all.is_some_and(|all| {
                        all.contains(&want)
                            && (want == Rat::ONE || all.iter().all(|&x| x == Rat::ZERO))
                    })
                }
                (false, Player::Min) => {
                    let all: Option<Vec<Rat>> = sums.collect();
                    all.is_some_and(|all| {
                        all.contains(&want)
                            && (want == Rat::ZERO || all.iter().all(|&x| x == Rat::ONE))
                    })
                }
            }
        })
    }

    /// The rounding one backup of `y` adds at most.
    fn step_rounding(&self, y: &[f64]) -> f64 {
        let largest = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        self.rounding * (self.largest_reward + largest)
    }

    /// One backup of `y` into `next`, on every core where the space is large.
    fn backup(&self, y: &[f64], next: &mut [f64], fixed: &(impl Fn(usize) -> Option<f64> + Sync)) {
        let value = |s: usize| fixed(s).unwrap_or_else(|| self.backup_state(s, y));
        let n = next.len();
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(n / 50_000)
            .max(1);
        if threads == 1 {
            for (s, out) in next.iter_mut().enumerate() {
                *out = value(s);
            }
            return;
        }
        let chunk = n.div_ceil(threads);
        std::thread::scope(|scope| {
            for (i, part) in next.chunks_mut(chunk).enumerate() {
                let value = &value;
                scope.spawn(move || {
                    for (j, out) in part.iter_mut().enumerate() {
                        *out = value(i * chunk + j);
                    }
                });
            }
        });
    }

    /// State `s`'s backup of `y`: the uniform mix of its choices in a chain, else the optimum
    /// of the player who decides there.
    fn backup_state(&self, s: usize, y: &[f64]) -> f64 {
        let space = self.space;
        let choice = |c: usize| {
            let mix = (space.outcomes_of(c).iter())
                .map(|&(p, t)| self.probability[p as usize] * y[t as usize])
                .sum::<f64>();
            self.reward.get(c).copied().unwrap_or(0.0) + mix
        };
        let choices = space.choices_of(s as u32);
        let v = if self.dtmc {
            let k = choices.len() as f64;
            choices.map(choice).sum::<f64>() / k
        } else {
            let player = *self.players.get(s).unwrap_or(&self.players[0]);
            let values = choices.map(choice);
            match player {
                Player::Max => values.fold(f64::NEG_INFINITY, f64::max),
                Player::Min => values.fold(f64::INFINITY, f64::min),
            }
        };
        match self.probabilities {
            true => v.clamp(0.0, 1.0),
            false => v,
        }
    }
}

/// The value at the initial states of `space`, aggregated as `over` says, from every state's
/// value, and the rounding of that aggregate.
pub(crate) fn at_initial(space: &Space, over: OverInitial, values: &[f64]) -> (f64, f64) {
    let at = |&i: &u32| values[i as usize];
    let initial = &space.initial;
    match over {
        OverInitial::Only => (at(&initial[0]), 0.0),
        OverInitial::Max => (
            initial.iter().map(at).fold(f64::NEG_INFINITY, f64::max),
            0.0,
        ),
        OverInitial::Min => (initial.iter().map(at).fold(f64::INFINITY, f64::min), 0.0),
        OverInitial::Avg => {
            let sum = initial.iter().map(at).sum::<f64>();
            let largest = initial.iter().map(at).fold(0.0f64, |m, v| m.max(v.abs()));
            let k = initial.len() as f64;
            (sum / k, (k + 1.0) * f64::EPSILON * largest)
        }
    }
}

/// How many states a product of `space` with the steps explores in `steps` steps from the
/// states set in `layer` (which it leaves at the last step's), where a state moves on when
/// `moves(s)`, added to `total`: the sizes of the sets of states reachable at each step,
/// summed, a set a step, stopping past `limit`; a set that repeats the one before repeats
/// for ever. Far cheaper than exploring the product, so a bound too large for it is refused
/// at once.
pub(crate) fn count_layers(
    space: &Space,
    layer: &mut Vec<bool>,
    steps: u64,
    moves: impl Fn(usize) -> bool,
    total: &mut usize,
    limit: usize,
) {
    let n = space.len();
    let mut before = vec![false; n];
    for taken in 0..steps {
        let size = layer.iter().filter(|&&b| b).count();
        if size == 0 || *total > limit {
            return;
        }
        if taken > 0 && *layer == before {
            let left = (steps - taken) as usize;
            *total = total.saturating_add(left.saturating_mul(size));
            return;
        }
        *total += size;
        before.iter_mut().for_each(|b| *b = false);
        for s in (0..n).filter(|&s| layer[s] && moves(s)) {
            for c in space.choices_of(s as u32) {
                for &(_, t) in space.outcomes_of(c) {
                    before[t as usize] = true;
                }
            }
        }
        std::mem::swap(layer, &mut before);
    }
}
