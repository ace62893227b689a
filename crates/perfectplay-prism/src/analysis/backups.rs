//! Step-bounded values in floats by backups over the space: backward induction over the steps
//! that keeps one value per state of the space and two such layers, whatever the bound, so a
//! bound of 10^8 steps costs no more memory than one step (as PRISM's own iteration does).
//! A backup that changes no value repeats for every later step of the same rule, so such
//! steps are skipped; the error bound counts them all the same.
//!
//! The bound is kept per state, beside the value. A backup (a mix or an optimum of
//! `reward + Σ p·y`) moves errors as the largest of its choices' mixes of the successors'
//! errors (at an optimum, of the choices within their errors of the best), and adds its own
//! rounding: the conversion of the probabilities and rewards, the
//! products and the sum of at most `fan` terms, and the division of a chain's uniform mix, each
//! half an ulp relative to the terms' sizes, which for terms of one sign is the value itself
//! (for an optimum too: the chosen choice's value bounds it). A backup that provably did not
//! round (numbers that convert exactly, products and sums checked exact by a fused
//! multiply-add and TwoSum, as where successors are worth 0 or 1) adds nothing, so values
//! that are exact in floats keep a zero bound. After a step that changes
//! no value the values are a float fixed point; the errors go on until they settle too (then
//! they bound every later step), or for a while, and then the steps left are bounded in one
//! go (see [`Backups::drift`]).

use perfectplay::{Bounded as Interval, Number, Player, Rat};

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
    /// Whether each of [`Backups::probability`] is the exact probability.
    probability_exact: Vec<bool>,
    /// Each choice's reward, rounded; empty for none.
    reward: Vec<f64>,
    /// Whether each of [`Backups::reward`] is the exact reward.
    reward_exact: Vec<bool>,
    /// Some reward is negative: a value's size does not bound its terms' sizes.
    signed: bool,
    /// Values are probabilities: kept within [0, 1], where the exact ones are.
    probabilities: bool,
    /// The relative rounding of one backup.
    rounding: f64,
    /// The cores a backup may use.
    threads: usize,
}

/// Values in every state of the space with a bound on each one's error.
pub(crate) struct Bounded {
    /// Per state, the value.
    pub values: Vec<f64>,
    /// Per state, a bound on the distance from its value to the exact one.
    pub errors: Vec<f64>,
}

impl Bounded {
    /// State `s`'s value and the bound on its error.
    fn of(&self, s: u32) -> (f64, f64) {
        (self.values[s as usize], self.errors[s as usize])
    }

    /// The largest error bound.
    pub(crate) fn error_bound(&self) -> f64 {
        self.errors.iter().fold(0.0, |m: f64, &e| m.max(e))
    }
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
        let (reward, reward_exact): (Vec<f64>, _) = reward.iter().map(|&r| converted(r)).unzip();
        let (probability, probability_exact) =
            space.probabilities.iter().map(|&p| converted(p)).unzip();
        Backups {
            space,
            dtmc,
            players,
            probability,
            probability_exact,
            signed: reward.iter().any(|&r| r < 0.0),
            probabilities,
            reward,
            reward_exact,
            // Half an ulp (EPSILON is a whole one) for each term, its product and its
            // conversion, and for the division of a uniform mix; and a little over, as the
            // bound itself is computed in floats.
            rounding: (fan as f64 + 3.0) * f64::EPSILON,
            threads: std::thread::available_parallelism().map_or(1, |t| t.get()),
        }
    }

    /// The relative rounding of one backup.
    pub(crate) fn rounding(&self) -> f64 {
        self.rounding
    }

    /// The values (per state of the space) after `steps` more backups, counted backwards: a
    /// state where `fixed` gives a value takes it (exactly), the others back up their choices.
    pub(crate) fn run(
        &self,
        now: &mut Bounded,
        steps: u64,
        fixed: impl Fn(usize) -> Option<f64> + Sync,
    ) {
        let n = now.values.len();
        let mut next = Bounded {
            values: vec![0.0; n],
            errors: vec![0.0; n],
        };
        let mut done = 0;
        // The step from which the values stopped changing (a float fixed point stays one),
        // and whether the errors stopped too.
        let mut settled: Option<u64> = None;
        let mut errors_settled = false;
        while done < steps {
            done += 1;
            self.backup(now, &mut next, &fixed);
            std::mem::swap(now, &mut next);
            if now.values != next.values {
                continue;
            }
            // The errors go on, for as many steps again as the values took (at least a
            // thousand), until they settle too.
            if settled.is_none() && self.exact_fixed_point(&now.values, &fixed) {
                // The exact backups keep these values: the errors only mix from here on.
                self.mix_errors(now, steps - done, done, &fixed);
                errors_settled = true;
                break;
            }
            let since = *settled.get_or_insert(done);
            if now.errors == next.errors {
                errors_settled = true;
                break;
            }
            if done - since >= since.max(1000) {
                break;
            }
        }
        if done < steps && !errors_settled {
            self.drift(now, steps - done, &fixed);
        }
    }

    /// The errors of `now`, whose values the exact backups keep, after `steps` more backups
    /// (`done` were taken to get here): each exact backup moves a state's distance from
    /// these values by at most the largest of its successors' distances over its choices
    /// that can be optimal (all of them in a chain; at an optimum, those within the errors
    /// and roundings of the best, judged with every error at the largest one, which no later
    /// error passes), so the largest error of any state reachable over such choices bounds
    /// every later step: computed over the strongly connected components, each after those
    /// it reaches. A state is exact after some steps where it comes to depend only on exact
    /// states ([`Backups::settled_exactly`]).
    fn mix_errors(
        &self,
        now: &mut Bounded,
        steps: u64,
        done: u64,
        fixed: &impl Fn(usize) -> Option<f64>,
    ) {
        let largest = now.error_bound();
        if largest == 0.0 || steps == 0 {
            return;
        }
        let space = self.space;
        let n = now.values.len();
        let open: Vec<bool> = (0..n).map(|s| fixed(s).is_none()).collect();
        let usable = self.near_choices(&now.values, largest, &open);
        let comp = crate::analysis::graph::sccs(space, &open, &usable);
        // Each component's largest error, then that of everything it reaches: the
        // components are numbered after every one they reach.
        let count = (0..n).filter(|&s| open[s]).map(|s| comp[s] + 1).max();
        let mut reach = vec![0.0f64; count.unwrap_or(0) as usize];
        let mut order: Vec<usize> = (0..n).filter(|&s| open[s]).collect();
        order.sort_unstable_by_key(|&s| comp[s]);
        for &s in &order {
            let k = comp[s] as usize;
            reach[k] = reach[k].max(now.errors[s]);
        }
        for &s in &order {
            let k = comp[s] as usize;
            let further = (space.choices_of(s as u32).filter(|&c| usable[c]))
                .flat_map(|c| space.outcomes_of(c).iter())
                .map(|&(_, t)| t as usize)
                .filter(|&t| open[t] && comp[t] as usize != k)
                .fold(0.0, |m: f64, t| m.max(reach[comp[t] as usize]));
            reach[k] = reach[k].max(further);
        }
        let exact = self.settled_exactly(&now.values, &open, &usable, steps.min(done.max(64)));
        for s in 0..n {
            now.errors[s] = match open[s] && !exact[s] {
                true => reach[comp[s] as usize],
                false => 0.0,
            };
        }
    }

    /// Per choice, whether it can be optimal at values `y` (within errors of at most
    /// `largest`): every choice of a chain, and at an optimum those near the best, as
    /// [`Backups::backup_with`] judges it.
    fn near_choices(&self, y: &[f64], largest: f64, open: &[bool]) -> Vec<bool> {
        let space = self.space;
        let mut usable = vec![self.dtmc; space.choices.len()];
        if self.dtmc {
            return usable;
        }
        for s in (0..y.len()).filter(|&s| open[s]) {
            let size = match self.signed {
                true => 2.0 * self.size(s, |_, t| y[t]),
                false => 0.0,
            };
            let v = y[s];
            for c in space.choices_of(s as u32) {
                let cv = self.reward.get(c).copied().unwrap_or(0.0)
                    + (space.outcomes_of(c).iter())
                        .map(|&(p, t)| self.probability[p as usize] * y[t as usize])
                        .sum::<f64>();
                usable[c] = self.near(cv, largest, v, largest, size);
            }
        }
        usable
    }

    /// The states whose exact value after at most `steps` more backups is their value in
    /// `y`, values that the exact backups keep (each 0 or 1: [`Backups::exact_fixed_point`]),
    /// found a step at a time: a state whose usable choices all lead only to exact states
    /// (its exact backup is then its value), or, for probabilities, one at the end its player
    /// seeks (1 for a maximiser, 0 for a minimiser) with a choice that leads only to exact
    /// states there (no choice can do better).
    fn settled_exactly(&self, y: &[f64], open: &[bool], usable: &[bool], steps: u64) -> Vec<bool> {
        let space = self.space;
        let n = y.len();
        let mut exact: Vec<bool> = open.iter().map(|&o| !o).collect();
        for _ in 0..steps {
            let before = exact.clone();
            let leads_to = |c: usize, x: Option<f64>| {
                (space.outcomes_of(c).iter())
                    .all(|&(_, t)| before[t as usize] && x.is_none_or(|x| y[t as usize] == x))
            };
            let mut changed = false;
            for s in (0..n).filter(|&s| !before[s]) {
                let mut choices = space.choices_of(s as u32);
                let player = *self.players.get(s).unwrap_or(&self.players[0]);
                let extreme = match player {
                    Player::Max => 1.0,
                    Player::Min => 0.0,
                };
                let at_end = !self.dtmc && self.probabilities && y[s] == extreme;
                let sure = (at_end && choices.clone().any(|c| leads_to(c, Some(extreme))))
                    || choices.all(|c| !usable[c] || leads_to(c, None));
                if sure {
                    exact[s] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        exact
    }

    /// Adds to `now`'s errors how far `skipped` more exact backups can move from its values,
    /// a float fixed point (where the errors did not settle as well; errors that settle are a
    /// bound for every later step, as a backup of them computed rounding up gives them back).
    /// The errors mix over the steps into at most the largest of them, and the values (not
    /// the exact backups' fixed point, which [`Backups::run`] tells apart) move by each
    /// backup's rounding: at most `rounding` times each value (terms of one sign), so where
    /// every open state mixes or maximises (no choice's mix of the values passes a value by
    /// more than that) by `(1 + rounding)^skipped - 1` times the state's own value; elsewhere
    /// (a minimiser's other choices may lead higher) by the largest state's rounding a step.
    fn drift(&self, now: &mut Bounded, skipped: u64, fixed: &impl Fn(usize) -> Option<f64>) {
        let largest = now.error_bound();
        let n = now.values.len();
        let open = |s: &usize| fixed(*s).is_none();
        let minimiser = |s: usize| {
            !self.dtmc && *self.players.get(s).unwrap_or(&self.players[0]) == Player::Min
        };
        let nonnegative = now.values.iter().all(|&v| v >= 0.0);
        if !self.signed && nonnegative && !(0..n).filter(open).any(minimiser) {
            let factor = (skipped as f64 * self.rounding).exp_m1() * (1.0 + self.rounding);
            for (e, v) in now.errors.iter_mut().zip(&now.values) {
                *e = (largest + factor * v).next_up();
            }
            return;
        }
        let rounding = (0..n)
            .filter(open)
            .map(|s| self.rounding * self.size(s, |_, t| now.values[t]))
            .fold(0.0, f64::max);
        let drift = skipped as f64 * rounding * (1.0 + f64::EPSILON);
        for e in &mut now.errors {
            *e = (largest + drift).next_up();
        }
    }

    /// One backup of `now` into `next`, on every core where the space is large.
    fn backup(
        &self,
        now: &Bounded,
        next: &mut Bounded,
        fixed: &(impl Fn(usize) -> Option<f64> + Sync),
    ) {
        let state = |s: usize| match fixed(s) {
            Some(v) => (v, 0.0),
            None => self.backup_state(s, now),
        };
        let n = now.values.len();
        let threads = self.threads.min(n / 50_000).max(1);
        let chunk = n.div_ceil(threads).max(1);
        let parts = next
            .values
            .chunks_mut(chunk)
            .zip(next.errors.chunks_mut(chunk));
        let fill = |i: usize, (values, errors): (&mut [f64], &mut [f64])| {
            for (j, (v, e)) in values.iter_mut().zip(errors).enumerate() {
                (*v, *e) = state(i * chunk + j);
            }
        };
        if threads == 1 {
            parts.enumerate().for_each(|(i, part)| fill(i, part));
            return;
        }
        std::thread::scope(|scope| {
            for (i, part) in parts.enumerate() {
                let fill = &fill;
                scope.spawn(move || fill(i, part));
            }
        });
    }

    /// State `s`'s backup of `now`: the uniform mix of its choices in a chain, else the
    /// optimum of the player who decides there; and the bound on its error.
    fn backup_state(&self, s: usize, now: &Bounded) -> (f64, f64) {
        self.backup_with(s, |_, t| Some((now.values[t], now.errors[t])))
    }

    /// State `s`'s backup as [`Backups::backup_state`] does it, where `successor(c, t)` is
    /// the value of state `t` after choice `c` and the bound on its error, or `None` for an
    /// outcome that comes back to `s` to be backed up with it (probabilities only): a choice,
    /// taken again and again until it leaves, is then worth the mix of its other outcomes,
    /// their probabilities made to sum to one (in a chain, the mix of every choice's). A
    /// choice that only comes back is worth nothing, as a play that stays for ever reaches
    /// nothing.
    pub(crate) fn backup_with(
        &self,
        s: usize,
        successor: impl Fn(usize, usize) -> Option<(f64, f64)>,
    ) -> (f64, f64) {
        let space = self.space;
        // A choice's value and the mix of its successors' errors, over the outcomes that
        // leave, with their probability (1 where every outcome leaves). Where every outcome
        // leads to the same value with the same error, the choice is worth its reward plus
        // that value, within that error: its probabilities sum to one exactly, though their
        // floats may not.
        let sums = |c: usize| {
            let r = self.reward.get(c).copied().unwrap_or(0.0);
            let (mut v, mut e) = (r, 0.0);
            let (mut leaving, mut back) = (0.0, false);
            let mut same: Option<(f64, f64)> = None;
            let mut alike = true;
            for &(p, t) in space.outcomes_of(c) {
                let p = self.probability[p as usize];
                match successor(c, t as usize) {
                    Some((tv, te)) => {
                        v += p * tv;
                        e += p * te;
                        leaving += p;
                        alike &= *same.get_or_insert((tv, te)) == (tv, te);
                    }
                    None => back = true,
                }
            }
            match same {
                Some((tv, te)) if alike && !back => (r + tv, te, None),
                _ => (v, e, back.then_some(leaving)),
            }
        };
        // Whether choice `c`'s value (where every outcome leaves) is computed without
        // rounding: exact numbers, products and sums, as where the successors are worth 0
        // and 1. Checked only where no error is carried, as it then decides the bound.
        let exact_choice = |c: usize| {
            let (mut v, mut exact) = match self.reward.get(c) {
                Some(&r) => (r, self.reward_exact[c]),
                None => (0.0, true),
            };
            // One value after every outcome: the choice is worth the reward plus it.
            let outcomes = space.outcomes_of(c);
            let first = outcomes
                .first()
                .and_then(|&(_, t)| successor(c, t as usize));
            if let Some((tv, _)) = first {
                let alike = outcomes.iter().all(|&(_, t)| {
                    successor(c, t as usize).is_some_and(|(x, _)| x.to_bits() == tv.to_bits())
                });
                if alike {
                    return exact && Interval::sum_is_exact(v, tv);
                }
            }
            for &(p, t) in space.outcomes_of(c) {
                let Some((tv, _)) = successor(c, t as usize) else {
                    return false;
                };
                if tv == 0.0 {
                    // (Nothing, exactly, whatever the probability.)
                    continue;
                }
                let (p, p_exact) = (
                    self.probability[p as usize],
                    self.probability_exact[p as usize],
                );
                let term = p * tv;
                exact = exact
                    && p_exact
                    && p.mul_add(tv, -term) == 0.0
                    && Interval::sum_is_exact(v, term);
                if !exact {
                    return false;
                }
                v += term;
            }
            true
        };
        // The mix over the outcomes that leave, with probability `leaving`: the values, the
        // quotient's rounding and that of the probabilities summed (each at most the
        // rounding of a backup, relative to the value, which the values' one sign bounds).
        let rounding = self.rounding;
        let leave = |(v, e, leaving): (f64, f64, Option<f64>)| match leaving {
            None => (v, e),
            Some(0.0) => (0.0, 0.0),
            Some(leaving) => {
                let w = v / leaving;
                (
                    w,
                    (e / leaving + 3.0 * rounding * w.abs()) * (1.0 + 3.0 * rounding),
                )
            }
        };
        let choice = |c: usize| leave(sums(c));
        let choices = space.choices_of(s as u32);
        // Where rewards of both signs keep the value from bounding the terms, their size.
        let signed_size = match self.signed {
            true => Some(self.size(s, |c, t| successor(c, t).map_or(0.0, |x| x.0))),
            false => None,
        };
        // The value, the errors it carries, and whether it is computed without rounding
        // (looked into only where no error is carried).
        let (v, e, exact) = if self.dtmc {
            let k = choices.len() as f64;
            // The sums over every choice, and over those that leave: where none comes back
            // their mean, else their quotient (a choice that never comes back leaves with
            // probability one).
            let (mut v, mut e, mut leaving, mut back) = (0.0, 0.0, 0.0, false);
            let mut sum_exact = true;
            for (cv, ce, cl) in choices.clone().map(sums) {
                sum_exact &= Interval::sum_is_exact(v, cv);
                (v, e) = (v + cv, e + ce);
                leaving += cl.unwrap_or(1.0);
                back |= cl.is_some();
            }
            match back.then_some(leaving) {
                None => {
                    let mean = v / k;
                    let exact = e == 0.0
                        && few_digits(mean)
                        && sum_exact
                        && mean.mul_add(k, -v) == 0.0
                        && choices.clone().all(exact_choice);
                    (mean, e / k, exact)
                }
                leaving => {
                    let (v, e) = leave((v, e, leaving));
                    (v, e, false)
                }
            }
        } else {
            let max = *self.players.get(s).unwrap_or(&self.players[0]) == Player::Max;
            let mut best: Option<(f64, f64, usize)> = None;
            // Each choice's value, error and number, while they fit here.
            let mut seen = [(0.0, 0.0, 0); NEAR_CHOICES];
            let (mut count, mut e): (usize, f64) = (0, 0.0);
            for c in choices.clone() {
                let (cv, ce) = choice(c);
                e = e.max(ce);
                if let Some(slot) = seen.get_mut(count) {
                    *slot = (cv, ce, c);
                }
                count += 1;
                // (Of equal values, one computed exactly is kept.)
                let sure = |&(_, e, c): &(f64, f64, usize)| e == 0.0 && exact_choice(c);
                let new = (cv, ce, c);
                best = Some(match best {
                    Some(b) if b.0 == cv && b.1 > 0.0 && sure(&new) => new,
                    Some(b) if (max && b.0 >= cv) || (!max && b.0 <= cv) => b,
                    _ => new,
                });
            }
            let Some((v, be, b)) = best else {
                return (0.0, 0.0);
            };
            // A probability exactly at the end the player seeks (0 for a minimiser, 1 for a
            // maximiser) is the optimum whatever the other choices are worth.
            let extreme = if max { 1.0 } else { 0.0 };
            if self.probabilities && v == extreme && be == 0.0 && exact_choice(b) {
                return (v, 0.0);
            }
            // A choice further from the best than both errors and both roundings cannot
            // overtake it: the error is then the largest of the choices near it (of all,
            // where there were too many to keep), and the value is exact where theirs are.
            let signed = 2.0 * signed_size.unwrap_or(0.0);
            let near = |&&(cv, ce, _): &&(f64, f64, usize)| self.near(cv, ce, v, be, signed);
            let kept = count <= NEAR_CHOICES;
            if kept {
                e = seen[..count]
                    .iter()
                    .filter(near)
                    .fold(be, |m, &(_, ce, _)| m.max(ce));
            }
            let exact = e == 0.0
                && few_digits(v)
                && match kept {
                    true => seen[..count]
                        .iter()
                        .filter(near)
                        .all(|&(_, _, c)| exact_choice(c)),
                    false => choices.clone().all(exact_choice),
                };
            (v, e, exact)
        };
        let v = match self.probabilities {
            true => v.clamp(0.0, 1.0),
            false => v,
        };
        // The backup's own rounding, where it may have rounded; the errors carried, with
        // the rounding of their own sums.
        let own = match exact {
            true => 0.0,
            false => self.rounding * signed_size.unwrap_or(v.abs()),
        };
        let e = (e + own) * (1.0 + self.rounding);
        (v, e)
    }

    /// Whether a choice worth `cv` (within `ce`) may overtake, or tie with, the best one,
    /// worth `v` (within `be`): not further apart than both errors and both roundings, with
    /// `signed` the size of the terms where rewards of both signs keep the values from
    /// bounding them (else 0). (NaN, from infinities, is near.)
    fn near(&self, cv: f64, ce: f64, v: f64, be: f64, signed: f64) -> bool {
        let apart = (cv - v).abs();
        let doubt = (ce + be) * (1.0 + self.rounding)
            + self.rounding * (cv.abs() + v.abs() + signed + apart);
        let far = apart > doubt * (1.0 + self.rounding);
        !far
    }

    /// A bound on the size of the terms of state `s`'s backup of `y` (where rewards of both
    /// signs keep the value from bounding it): the largest choice's sum of sizes.
    fn size(&self, s: usize, y: impl Fn(usize, usize) -> f64) -> f64 {
        let space = self.space;
        (space.choices_of(s as u32).map(|c| {
            let r = self.reward.get(c).copied().unwrap_or(0.0).abs();
            (space.outcomes_of(c).iter())
                .map(|&(p, t)| self.probability[p as usize] * y(c, t as usize).abs())
                .sum::<f64>()
                + r
        }))
        .fold(0.0, f64::max)
            * (1.0 + self.rounding)
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
                .fold(Rat::ZERO, |sum, &(p, _)| sum + space.probability(p))
        };
        (0..y.len()).all(|s| {
            if let Some(v) = fixed(s) {
                return v == y[s];
            }
            let want = match y[s] == 1.0 {
                true => Rat::ONE,
                false => Rat::ZERO,
            };
            let sums: Vec<Rat> = space.choices_of(s as u32).map(choice).collect();
            let (least, most) = (sums.iter().min(), sums.iter().max());
            match (self.dtmc, *self.players.get(s).unwrap_or(&self.players[0])) {
                // A uniform mix of sums within [0, 1] is 0 or 1 only if every sum is.
                (true, _) => least == Some(&want) && most == Some(&want),
                (false, Player::Max) => most == Some(&want),
                (false, Player::Min) => least == Some(&want),
            }
        })
    }
}

/// The value at the initial states of `space`, aggregated as `over` says, and a bound on its
/// error, from every state's.
pub(crate) fn at_initial(space: &Space, over: OverInitial, at: &Bounded) -> (f64, f64) {
    let initial = &space.initial;
    let value = |&i: &u32| at.values[i as usize];
    let error = initial
        .iter()
        .fold(0.0, |m: f64, &i| m.max(at.errors[i as usize]));
    match over {
        OverInitial::Only => (value(&initial[0]), error),
        OverInitial::Max => extreme_of(initial.iter().map(|&i| at.of(i)), true),
        OverInitial::Min => extreme_of(initial.iter().map(|&i| at.of(i)), false),
        OverInitial::Avg => {
            // The mean in the float arithmetic that bounds its own rounding (the same value
            // as a plain float sum and division): no rounding at all where the sum is exact.
            let sum = initial.iter().fold(Interval::exact(0.0), |sum, i| {
                sum.add(&Interval::exact(value(i)))
            });
            let mean = sum.div(&Interval::exact(initial.len() as f64));
            let rounding = Interval::bound(mean.radius);
            let bound = match error + rounding {
                0.0 => 0.0,
                b => b.next_up(),
            };
            (mean.value, bound)
        }
    }
}

/// The greatest (or least) of `values` (each a value and a bound on its error), and a bound
/// on its error: the largest error of a value that may be the extreme one, whose distance from
/// it is within both errors. (A value further off lies below the extreme's own least, so it
/// cannot be the extreme of the exact values; the exact extreme is then within the errors of
/// the values near it.)
fn extreme_of(values: impl Iterator<Item = (f64, f64)> + Clone, greatest: bool) -> (f64, f64) {
    let pick = |a: f64, b: f64| if greatest { a.max(b) } else { a.min(b) };
    let start = if greatest {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let best = values.clone().fold(start, |m, (v, _)| pick(m, v));
    let best_error = values
        .clone()
        .filter(|&(v, _)| v == best)
        .fold(0.0, |m: f64, (_, e)| m.max(e));
    // Apart beyond doubt: the difference, rounded, with room for its rounding and the sum's.
    let far = |v: f64, e: f64| {
        let apart = (best - v).abs();
        apart * (1.0 - 4.0 * f64::EPSILON) > (e + best_error) * (1.0 + 4.0 * f64::EPSILON)
    };
    let error = values
        .filter(|&(v, e)| !far(v, e))
        .fold(best_error, |m, (_, e)| m.max(e));
    (best, error)
}

/// How many states a product of `space` with the steps explores in `steps` steps from the
/// states set in `layer` (which it leaves at the last step's), where a state moves on when
/// `moves(s)`, added to `total`: the sizes of the sets of states reachable at each step,
/// summed, a set a step, stopping past `limit`. Far cheaper than exploring the product, so a
/// bound too large for it is refused at once. The sets are eventually periodic: a set equal to
/// one of the last [`PERIODS`] (by a hash of it; a collision only misjudges the size, and the
/// engine's own limit still holds) repeats its period's sizes for every step left.
pub(crate) fn count_layers(
    space: &Space,
    layer: &mut Vec<bool>,
    steps: u64,
    moves: impl Fn(usize) -> bool,
    total: &mut usize,
    limit: usize,
) {
    use std::hash::{Hash, Hasher};
    let n = space.len();
    let mut next = vec![false; n];
    // The last steps' sets, by hash, and their sizes.
    let mut recent: std::collections::VecDeque<(u64, usize)> = Default::default();
    for taken in 0..steps {
        let size = layer.iter().filter(|&&b| b).count();
        if size == 0 || *total > limit {
            return;
        }
        let mut hasher = rustc_hash::FxHasher::default();
        layer.hash(&mut hasher);
        let hash = hasher.finish();
        if let Some(back) = recent.iter().rev().position(|&(h, _)| h == hash) {
            // The sets of the last `period` steps come round again, from this one on.
            let period = back + 1;
            let sizes: Vec<usize> = recent.iter().rev().take(period).map(|&(_, s)| s).collect();
            let left = (steps - taken) as usize;
            let per_period: usize = sizes.iter().sum();
            let rest: usize = sizes.iter().rev().take(left % period).sum();
            let cycles = (left / period).saturating_mul(per_period);
            *total = total.saturating_add(cycles).saturating_add(rest);
            return;
        }
        if recent.len() == PERIODS {
            recent.pop_front();
        }
        recent.push_back((hash, size));
        *total += size;
        next.iter_mut().for_each(|b| *b = false);
        for s in (0..n).filter(|&s| layer[s] && moves(s)) {
            for c in space.choices_of(s as u32) {
                for &(_, t) in space.outcomes_of(c) {
                    next[t as usize] = true;
                }
            }
        }
        std::mem::swap(layer, &mut next);
    }
}

/// The longest period of the sets of states reachable step by step that [`count_layers`]
/// recognises.
const PERIODS: usize = 64;

/// The most choices of a state whose values a backup keeps, to leave out of its error those
/// far from the best; a state with more takes the largest error of them all.
const NEAR_CHOICES: usize = 16;

/// `r` in floats, and whether that is `r` itself.
fn converted(r: Rat) -> (f64, bool) {
    let x = Interval::from_rat(r);
    (x.value, x.radius == 0.0)
}

/// Whether `x` has at most ten binary digits after the point (as 0, 1, halves, quarters and
/// whole numbers do): the values whose backups are worth proving exact, as a value that
/// needs more digits has rarely been computed without rounding.
fn few_digits(x: f64) -> bool {
    let scaled = x * 1024.0;
    scaled == scaled.trunc()
}
