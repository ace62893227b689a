//! Interval iteration, for the states that retrograde analysis leaves (on cycles, or leading
//! to them): bounds that close in round after round, the guessed side of bounds where the
//! rewards on cycles are of one sign, and the trap analysis that decides when a guess may be
//! trusted.

use perfectplay::Player;
use timely::worker::Worker;

use super::{within, Work};
use crate::part::{Bounds, Kind};
use crate::round::{total_sent, Body, Figures, Msg, FIGURES};
use crate::DistError;

/// How many rounds a guessed bound may move out for before the guess is given up (and tried
/// again once the known side has closed in further). Moves of a few roundings each spread
/// through a large model's cycles round after round before the guess holds.
const GUESS_ROUNDS: usize = 512;

/// The same for a guess checked on the strategy that ends the play (see `Work::guess`): it
/// starts far from a bound, and cannot be tried again later.
const ENDING_ROUNDS: usize = 16 * GUESS_ROUNDS;

/// How far, relative to its size, a guess checked on the strategy that ends the play moves past
/// a backup that leaves it: that guess starts far from a bound, and an iteration that moves out
/// just past each backup would only approach one (see `Work::guess`).
const OVERSHOOT: f64 = 1.0 / 1024.0;

/// How many of its own values a worker takes at once in a round of interval iteration, per
/// open state it holds.
const LOCAL_BUDGET: usize = 16;

/// How many rounds in a row the start's bounds must stand still, while moves still travel,
/// before finer moves travel too. Across processes a wave of moves crosses one hop between
/// workers a round, so the start standing still for a few rounds means only that the wave has
/// not reached it yet; finer moves sent at once then travel with it, and every state moves and
/// is backed up many times more than one worker's Gauss-Seidel rounds need (where the start
/// moves every round, this never counts far).
const STILL_ROUNDS: usize = 32;

/// The most messages a worker sends in a round of interval iteration, as a share of its open
/// states: one `1/SEND_SHARE`. A wave in which every state moves would otherwise go in one
/// round, and a round's messages are held several times over (the sender's, their bytes in
/// flight, the receiver's, each larger than the state's own bounds), which made the exchange
/// the largest part of a worker's peak memory; sent over a few rounds, the later messages
/// also carry bounds that have moved further.
const SEND_SHARE: usize = 8;

/// The least of that room, for small parts.
const MIN_SEND_ROOM: usize = 1 << 14;

/// The side of the open states' bounds still to be guessed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Side {
    /// Both sides are known.
    None,
    /// The upper bounds.
    Upper,
    /// The lower bounds.
    Lower,
}

/// What a guess that did not hold comes to: `false`, to be tried again once the known side
/// has moved on; but where it rested on the strategy that ends the play (`ending`), the known
/// side is held down by the keeper's free cycles and will not move, and the run ends with an
/// error.
fn given_up(ending: bool, keeper: Player) -> Result<bool, DistError> {
    if !ending {
        return Ok(false);
    }
    Err(DistError::Unsupported(format!(
        "the {} can keep the play going for ever at no cost, and a bound from a strategy that \
         surely ends the play did not settle within {ENDING_ROUNDS} rounds (a long walk to the \
         target); solve it in one process",
        match keeper {
            Player::Min => "minimiser",
            Player::Max => "maximiser",
        }
    )))
}

impl Work<'_> {
    /// Interval iteration on the states retrograde analysis left (the *open* states).
    ///
    /// Where no move on a cycle collects a reward, the open values lie between 0 and the
    /// values the cycles can be left for, and both bounds close in from there. Where the
    /// rewards on cycles are all of one sign (and so are the values the cycles are left for),
    /// one side starts at 0 and the other is found as optimistic value iteration does: once
    /// the known side settles, a guess a little beyond it is checked to be a bound (one
    /// backup from the guess stays inside it, which for values that are the least, or the
    /// greatest, fixed point of the backup proves it) and then closes in like the other.
    ///
    /// Where the bounds close too slowly and few states are open, those are solved in one
    /// piece in one worker instead (see `direct`); returns whether they were.
    pub(super) fn iterate(&mut self, worker: &mut Worker) -> Result<bool, DistError> {
        let first = self.first_bounds();
        let statuses = self.round(worker, None, first)?;
        let any = |i: usize| statuses.iter().any(|s| s.figures[i] != 0.0);
        let (inside, negative, positive) = (any(0), any(3), any(4));
        self.limit_gathering(statuses.iter().map(|s| s.figures[6]).sum());
        let lo0 = statuses.iter().map(|s| s.figures[1]).fold(0.0, f64::min);
        let hi0 = statuses.iter().map(|s| s.figures[2]).fold(0.0, f64::max);
        let (lo0, hi0, mut guess) = match (inside, negative, positive) {
            (false, _, _) => (lo0, hi0, Side::None),
            (true, false, _) => (0.0, f64::INFINITY, Side::Upper),
            (true, _, false) => (f64::NEG_INFINITY, 0.0, Side::Lower),
            (true, true, true) => {
                let open: Vec<usize> = (0..self.part.len())
                    .filter(|&s| !self.part.fin[s])
                    .collect();
                let open_total = statuses.iter().map(|s| s.figures[5]).sum();
                if self.try_direct(worker, &open, open_total)? {
                    return Ok(true);
                }
                return Err(DistError::Unsupported(
                    "this game collects rewards of both signs on its cycles (or leaves them \
                     for values of both signs); the solve across processes bounds cycles whose \
                     rewards and exits are all of one sign"
                        .to_string(),
                ));
            }
        };
        // No move on a cycle collects anything, the exits are of one sign, and an endless play
        // is the worst for the player the exits favour (a reachability probability): the
        // values are then the least fixed point of the backup (the greatest, for exits of
        // the other sign), however the other player keeps a play going, and a checked guess
        // bounds them with no trap analysis.
        // So are a total reward's, once its states worth +∞ are found from the graph.
        self.fixed_point = match self.model.endless_play_loser() {
            _ if self.finite_total => Some(Side::Upper),
            Some(Player::Max) if !inside && !negative => Some(Side::Upper),
            Some(Player::Min) if !inside && !positive => Some(Side::Lower),
            _ => None,
        };
        let open: Vec<usize> = (0..self.part.len())
            .filter(|&s| !self.part.fin[s])
            .collect();
        let middle = if lo0.is_finite() && hi0.is_finite() {
            0.5 * (lo0 + hi0)
        } else {
            0.0
        };
        {
            let p = &mut self.part;
            for &s in &open {
                (p.lo[s], p.hi[s], p.v[s]) = (lo0, hi0, middle);
            }
            for l in 0..p.links() {
                if !p.link_fin[l] {
                    p.link_at[l] = Bounds {
                        lo: lo0,
                        hi: hi0,
                        v: middle,
                    };
                }
            }
        }
        let finite = |x: f64| if x.is_finite() { x.abs() } else { 0.0 };
        let scale = finite(lo0).max(finite(hi0)).max(1.0);
        let floor = scale * f64::EPSILON;
        let precision = self.options.precision;
        // Bounds travel when they move by more than `delta`: coarse moves first, finer ones
        // once nothing moves that much, so that a state is not sent again for every tiny gain.
        let mut delta = 0.1 * scale;
        let mut sent_lo: Vec<f64> = self.part.lo.clone();
        let mut sent_hi: Vec<f64> = self.part.hi.clone();
        let n = self.part.len();
        let mut queued = vec![false; n];
        let mut remote = vec![false; n];
        self.queue.extend(open.iter().copied());
        for &s in &open {
            queued[s] = true;
        }
        let me = self.rounds.index;
        let (mut last_known, mut next_try, mut wait) = (f64::NAN, 0, 8);
        // The sides guessed where the bounds stood still apart (each at most once).
        let mut stuck_tried: Vec<Side> = Vec::new();
        let (mut last_lo, mut last_hi, mut finer) = (f64::NAN, f64::NAN, false);
        // Rounds in a row in which the start's bounds stood still while moves travelled.
        let mut still = 0;
        let (first_round, mut gathered) = (self.rounds.rounds, false);
        // The backups of the iteration so far, in all workers.
        let mut backups = 0.0;
        // The states whose bounds moved for another worker's links and are not sent yet: at
        // most `send_room` messages go in a round, the rest wait for the next (and send the
        // bounds they have then).
        let mut changed: Vec<usize> = Vec::new();
        let send_room = (open.len() / SEND_SHARE).max(MIN_SEND_ROOM);
        loop {
            // A state whose bounds moved by more than `delta` writes them into this worker's
            // own links at once (their states are queued, as in Gauss-Seidel), and into the
            // others' once, at the end of the round (or of a later one, past `send_room`). A
            // budget per round keeps rounds short.
            let full = LOCAL_BUDGET * open.len().max(1);
            let mut budget = full;
            while budget > 0 {
                let Some(s) = self.queue.pop_front() else {
                    break;
                };
                budget -= 1;
                queued[s] = false;
                let (v, lo, hi) = self.part.backup(s);
                let p = &mut self.part;
                p.lo[s] = p.lo[s].max(lo);
                p.hi[s] = p.hi[s].min(hi).max(p.lo[s]);
                p.v[s] = if v.is_finite() {
                    v.clamp(p.lo[s], p.hi[s])
                } else {
                    p.lo[s]
                };
                if p.lo[s] - sent_lo[s] <= delta && sent_hi[s] - p.hi[s] <= delta {
                    continue;
                }
                (sent_lo[s], sent_hi[s]) = (p.lo[s], p.hi[s]);
                for &(to, link) in p.preds.of(s) {
                    if to != me {
                        if !remote[s] {
                            remote[s] = true;
                            changed.push(s);
                        }
                        continue;
                    }
                    let l = link as usize;
                    p.link_at[l] = Bounds {
                        lo: p.lo[s],
                        hi: p.hi[s],
                        v: p.v[s],
                    };
                    for &t in p.users.of(l) {
                        let t = t as usize;
                        if !p.fin[t] && !queued[t] {
                            queued[t] = true;
                            self.queue.push_back(t);
                        }
                    }
                }
            }
            let mut k = 0;
            while k < changed.len() && self.out.len() < send_room {
                let s = changed[k];
                remote[s] = false;
                self.send_to(s, false, true);
                k += 1;
            }
            changed.drain(..k);
            let mut figures = [0.0; FIGURES];
            if let Some(s) = self.start {
                let s = s as usize;
                figures[..5].copy_from_slice(&match self.start_watch(s) {
                    Some([v, lo, hi]) => [1.0, v, lo, hi, 0.0],
                    None => {
                        let p = &self.part;
                        [1.0, p.v[s], p.lo[s], p.hi[s], 1.0]
                    }
                });
            }
            figures[5] = open.len() as f64;
            figures[6] = (full - budget) as f64;
            if let Some(precision) = self.settle_all {
                let p = &self.part;
                let apart = open
                    .iter()
                    .filter(|&&s| !within(precision, p.lo[s], p.hi[s]));
                figures[7] = apart.count() as f64;
            }
            let statuses = self.round(worker, None, figures)?;
            backups += statuses.iter().map(|s| s.figures[6]).sum::<f64>();
            let at_start = statuses
                .iter()
                .find(|s| s.figures[0] == 1.0)
                .map(|s| s.figures)
                .unwrap_or_default();
            let (lo, hi) = (at_start[2], at_start[3]);
            // Open states still apart where every state must close (see `reached`).
            let apart: f64 = statuses.iter().map(|s| s.figures[7]).sum();
            if at_start[4] == 1.0 && apart == 0.0 {
                self.queue.clear();
                return Ok(false);
            }
            for m in std::mem::take(&mut self.out) {
                if let Some(l) = self.receive(m) {
                    for &s in self.part.users.of(l) {
                        let s = s as usize;
                        if !self.part.fin[s] && !queued[s] {
                            queued[s] = true;
                            self.queue.push_back(s);
                        }
                    }
                }
            }
            let quiet = total_sent(&statuses) == 0;
            // Bounds that close too slowly, or not at all: the open states in one piece.
            let open_total: f64 = statuses.iter().map(|s| s.figures[5]).sum();
            let slow = self.rounds.rounds - first_round >= super::direct::GATHER_AFTER
                || backups >= super::direct::GATHER_SWEEPS * open_total
                || (quiet && delta <= floor)
                || self.rounds.rounds + 1 >= self.options.max_rounds;
            if slow && !gathered {
                gathered = true;
                if self.try_direct(worker, &open, open_total)? {
                    return Ok(true);
                }
            }
            if self.rounds.rounds >= self.options.max_rounds {
                return Err(DistError::Solve(format!(
                    "the bounds on the value did not close within {} rounds (they are [{lo}, \
                     {hi}]); the value may be unbounded",
                    self.options.max_rounds
                )));
            }
            // The side of the start's bounds that is known has settled, or nothing moves at
            // all: time to guess the other side (again less often after each failure).
            let known = if guess == Side::Upper { lo } else { hi };
            let settled = (known - last_known).abs() <= 0.1 * precision * known.abs().max(1.0);
            last_known = known;
            let mut guessed = false;
            if guess != Side::None && (quiet || (settled && self.rounds.rounds >= next_try)) {
                let quick = !gathered && open_total <= self.gather_limit;
                let holds = match self.guess(worker, &open, guess, quick) {
                    Err(e @ DistError::Unsupported(_)) => {
                        return self.direct_or(worker, &open, open_total, gathered, e)
                    }
                    holds => holds?,
                };
                if holds {
                    guess = Side::None;
                    guessed = true;
                } else {
                    next_try = self.rounds.rounds + wait;
                    wait *= 2;
                }
            }
            if quiet && !guessed && delta <= floor && guess == Side::None {
                // Both sides were known but stay apart: a cycle a player can keep going (an
                // end component) holds one side up. Where every reward and exit is of one
                // sign, the values are the least (or greatest) fixed point of the backup, and
                // a guess checked as a pre-fixed point bounds them all the same.
                let side = match (self.ended, negative, positive) {
                    // The side the keeper's free cycles held down, once the other is bounded
                    // through the strategy that ends the play (see `guess`).
                    (Some(Side::Upper), _, _) => Side::Lower,
                    (Some(Side::Lower), _, _) => Side::Upper,
                    (_, false, _) => Side::Upper,
                    (_, _, false) => Side::Lower,
                    _ => Side::None,
                };
                if side != Side::None && !stuck_tried.contains(&side) {
                    stuck_tried.push(side);
                    let quick = !gathered && open_total <= self.gather_limit;
                    guessed = match self.guess(worker, &open, side, quick) {
                        Err(e @ DistError::Unsupported(_)) => {
                            return self.direct_or(worker, &open, open_total, gathered, e)
                        }
                        holds => holds?,
                    };
                }
            }
            if quiet && !guessed {
                if delta <= floor && at_start[4] == 1.0 {
                    // The start is within the precision, and the other states as close as
                    // these floats bring them (where every state must close).
                    self.queue.clear();
                    return Ok(false);
                }
                if delta <= floor {
                    return Err(DistError::Solve(match guess {
                        Side::None => format!(
                            "the bounds on the value do not close (they stay [{lo}, {hi}]): a \
                             cycle the players can keep repeating for ever; solve it in one \
                             process, which decides such cycles"
                        ),
                        _ => format!(
                            "the value could not be bounded on both sides (it is at least {lo} \
                             and at most {hi}): it may be unbounded, a cycle that gains for ever"
                        ),
                    }));
                }
                delta = (delta / 8.0).max(floor);
            }
            still = match !quiet && lo == last_lo && hi == last_hi {
                true => still + 1,
                false => 0,
            };
            if still >= STILL_ROUNDS && delta > floor {
                // The start's bounds stand still while states elsewhere still move (values
                // that grow without bound, say): finer moves must travel too.
                still = 0;
                delta = (delta / 8.0).max(floor);
                finer = true;
            }
            (last_lo, last_hi) = (lo, hi);
            if quiet || guessed || std::mem::take(&mut finer) {
                for &s in &open {
                    if !queued[s] {
                        queued[s] = true;
                        self.queue.push_back(s);
                    }
                }
            }
        }
    }

    /// Guesses the missing side of every open state's bounds a little beyond the known one and
    /// checks it: the guesses go to the links, and the guess holds if every open state's
    /// backup from them stays inside its guess (then the guesses bound the values: they are a
    /// pre-fixed point of a backup whose least fixed point, or greatest, the values are). Where
    /// a backup leaves its guess, the guess moves out past it and the check runs again, at once
    /// for this worker's own predecessors and round after round across processes, at most
    /// [`GUESS_ROUNDS`] times (`quick`, where the open states may be gathered instead:
    /// [`GATHER_AFTER`](super::direct::GATHER_AFTER) times, and no state's guess is given up).
    /// A guess that holds becomes the bounds; returns whether one did.
    ///
    /// The check weighs each outcome relative to the state's own guess, so that an end
    /// component (a cycle a player may keep to, whose states share their value) holds a guess
    /// exactly: its staying moves back up to no excess at all, with no rounding that could put
    /// it on the wrong side of zero. That is what closes the upper bounds of a maximum
    /// probability over end components that the plain iteration leaves at one.
    ///
    /// Where the players can keep the play going at no cost (`trapped`), the backup has fixed
    /// points beside the values (an endless play counted as worth nothing), and a guess need
    /// not bound them. The *keeper* is the player an endless play at no cost would serve
    /// against that side's bound (the minimiser against an upper one). But where an endless
    /// play is worth infinitely much against the keeper, the endless analysis gave the keeper
    /// a strategy that ends the play surely whatever the other player does
    /// ([`Ending`](super::endless::Ending)), and the keeper's states are then checked on that
    /// strategy's choice alone: a pre-fixed point of that backup bounds the value of the
    /// strategy (every play under it ends, so that backup has one fixed point), which bounds
    /// the value. Such a guess starts far from that value (the known side is held down by the
    /// free cycles), and where it fails it moves past the backup by a part of its size
    /// ([`OVERSHOOT`]), which a value a little above the strategy's holds (where the rewards
    /// are of one sign); the iteration then brings it down. The other side's guess, once the
    /// bounds stand still, is checked plainly: a post-fixed point lies below the value of
    /// every strategy of the keeper that ends the play, hence below the value; so is any
    /// guess of that side wherever the endless analysis ran, with no trap analysis.
    fn guess(
        &mut self,
        worker: &mut Worker,
        open: &[usize],
        side: Side,
        quick: bool,
    ) -> Result<bool, DistError> {
        let keeper = match side {
            Side::Lower => Player::Max,
            _ => Player::Min,
        };
        // Where an endless play is worth infinitely much against the other player, the guess
        // is checked plainly, free cycles or not (see above).
        let other_side = matches!(&self.ending, Some(e) if e.loser != keeper);
        if self.trap.is_none() && self.fixed_point != Some(side) && !other_side {
            let trapped = self.trapped(worker, open)?;
            self.trap = Some(trapped);
        }
        let trapped = self.trap == Some(true) && !other_side;
        let ending = match &self.ending {
            Some(e) if trapped && e.loser == keeper => Some(e.choice.clone()),
            _ => None,
        };
        if trapped && ending.is_none() {
            return Err(DistError::Unsupported(format!(
                "the {} can keep the play going for ever on moves that collect nothing, which \
                 the one-process engine rules out (a play must end) but a bound across \
                 processes cannot yet tell apart; solve it in one process",
                if side == Side::Upper {
                    "minimiser"
                } else {
                    "maximiser"
                }
            )));
        }
        let precision = self.options.precision;
        let upper = side == Side::Upper;
        let mut guessed = vec![0.0; self.part.len()];
        let mut changed: Vec<usize> = open.to_vec();
        for &s in open {
            let known = if upper {
                self.part.lo[s]
            } else {
                self.part.hi[s]
            };
            // Zero is guessed as it is: states that cannot reach a payoff (a trap where the
            // value is zero) back up to exactly zero, which a guess a little beyond would not,
            // by the rounding of the sums that check it.
            let step = 0.5 * precision * known.abs().max(1.0);
            guessed[s] = match (known == 0.0, upper) {
                (true, _) => 0.0,
                (false, true) => known + step,
                (false, false) => known - step,
            };
        }
        let at = &self.part.link_at;
        let mut links: Vec<f64> = match upper {
            true => at.iter().map(|b| b.hi).collect(),
            false => at.iter().map(|b| b.lo).collect(),
        };
        let me = self.rounds.index;
        let n = self.part.len();
        let mut is_open = vec![false; n];
        for &s in open {
            is_open[s] = true;
        }
        // This worker's own links take a guess at once; the others' by message, each round.
        for &s in open {
            for &(to, link) in self.part.preds.of(s) {
                if to == me {
                    links[link as usize] = guessed[s];
                }
            }
        }
        // Every open state is checked in the first round; after it, those whose links took a
        // new guess (this worker's at once, the others' by message), and those a round's
        // budget left: a guess that held holds until one of its links moves.
        let mut queued = is_open.clone();
        let mut moved = vec![false; n];
        let mut queue: std::collections::VecDeque<usize> = open.iter().copied().collect();
        // (A guess that rests on `ending` has no other chance: it is given longer.)
        // (Where the open states may be gathered instead, a guess that does not hold soon is
        // dropped for that, which goes as fast on a long walk as on a short one, where a guess
        // crosses between workers one hop a round.)
        let rounds = if quick {
            super::direct::GATHER_AFTER as usize
        } else if ending.is_some() {
            ENDING_ROUNDS
        } else {
            GUESS_ROUNDS
        };
        for round in 0..rounds {
            for &s in &changed {
                for &(to, link) in self.part.preds.of(s) {
                    if to != me {
                        self.out.push(Msg {
                            to,
                            body: Body::Guess {
                                link,
                                bound: guessed[s],
                            },
                        });
                    }
                }
            }
            self.round(worker, None, [0.0; FIGURES])?;
            for m in self.out.drain(..) {
                if let Body::Guess { link, bound } = m.body {
                    links[link as usize] = bound;
                    for &t in self.part.users.of(link as usize) {
                        let t = t as usize;
                        if is_open[t] && !queued[t] {
                            queued[t] = true;
                            queue.push_back(t);
                        }
                    }
                }
            }
            for &s in &changed {
                moved[s] = false;
            }
            changed.clear();
            // A guess that keeps moving out is given up for that state (an infinite bound,
            // which always holds): its value may be infinite.
            let give_up = !quick && round >= rounds / 2;
            // A state whose guess moves out passes it to this worker's own predecessors at
            // once, which are checked again in the same round (within a budget, past which
            // the round counts as unfinished and the rest wait for the next).
            let mut budget = LOCAL_BUDGET * open.len().max(1);
            while budget > 0 {
                let Some(s) = queue.pop_front() else {
                    break;
                };
                queued[s] = false;
                budget -= 1;
                // (An infinite guess holds as it is.)
                let base = guessed[s];
                if !base.is_finite() {
                    continue;
                }
                // Checked as an excess over the guess itself, so that a cycle of equal
                // guesses (an end component) backs up to exactly its guess. A guess that moves
                // out moves past its backup by twice the rounding in doubt, so that the next
                // check, of the same sums, holds.
                // The choice a keeper's state is checked on, where the guess rests on
                // `ending`.
                let only = match &ending {
                    Some(choice) if self.part.kind[s] == Kind::Decision(keeper) => Some(choice[s]),
                    _ => None,
                };
                let (lo, hi) = match only {
                    // (A keeper's state that cannot end the play surely has an infinite
                    // value, and its guess holds as an infinite one.)
                    Some(u32::MAX) => (f64::NEG_INFINITY, f64::INFINITY),
                    c => self.part.excess(s, &links, base, c.map(|c| c as usize)),
                };
                if (upper && hi <= 0.0) || (!upper && lo >= 0.0) {
                    continue;
                }
                // (Past the backup by a part of its size too, where the guess rests on
                // `ending`: see above.)
                let (backup, doubt) = (base + if upper { hi } else { lo }, 2.0 * (hi - lo));
                let doubt = doubt
                    + if ending.is_some() {
                        OVERSHOOT * backup.abs()
                    } else {
                        0.0
                    };
                let next = if upper {
                    (backup + doubt).max(base.next_up())
                } else {
                    (backup - doubt).min(base.next_down())
                };
                guessed[s] = match (give_up, upper) {
                    (false, _) => next,
                    (true, true) => f64::INFINITY,
                    (true, false) => f64::NEG_INFINITY,
                };
                if !moved[s] {
                    moved[s] = true;
                    changed.push(s);
                }
                for &(to, link) in self.part.preds.of(s) {
                    if to != me {
                        continue;
                    }
                    links[link as usize] = guessed[s];
                    for &t in self.part.users.of(link as usize) {
                        let t = t as usize;
                        if is_open[t] && !queued[t] {
                            queued[t] = true;
                            queue.push_back(t);
                        }
                    }
                }
            }
            let mut figures = [0.0; FIGURES];
            // (Where the budget ran out, not every state was checked again: another round.)
            figures[0] = (changed.len() + queue.len()) as f64;
            // (Where the start stands for its outcomes, one of them may be worth +∞ and make
            // their mean so: the guess goes on for the others.)
            if let Some(start) = self.start.filter(|_| !self.options.outcomes) {
                figures[1] = (!guessed[start as usize].is_finite()) as u8 as f64;
            }
            let statuses = self.round(worker, None, figures)?;
            if statuses.iter().any(|s| s.figures[1] != 0.0) {
                // The start's own guess was given up: no bound came of it.
                return given_up(ending.is_some(), keeper);
            }
            if statuses.iter().all(|s| s.figures[0] == 0.0) {
                let p = &mut self.part;
                for &s in open {
                    if upper {
                        p.hi[s] = p.hi[s].min(guessed[s]);
                    } else {
                        p.lo[s] = p.lo[s].max(guessed[s]);
                    }
                }
                for (l, &bound) in links.iter().enumerate() {
                    if upper {
                        p.link_at[l].hi = p.link_at[l].hi.min(bound);
                    } else {
                        p.link_at[l].lo = p.link_at[l].lo.max(bound);
                    }
                }
                if ending.is_some() {
                    self.ended = Some(side);
                }
                return Ok(true);
            }
        }
        if quick {
            return Ok(false);
        }
        given_up(ending.is_some(), keeper)
    }

    /// For the open states: whether a move on a cycle collects a reward; bounds from the final
    /// values the cycles can be left for (with the rewards on the way); whether a reward on a
    /// cycle or a way out is below zero, and whether one is above. As a round's figures.
    fn first_bounds(&self) -> Figures {
        let p = &self.part;
        let (mut inside, mut lo, mut hi) = (false, 0.0f64, 0.0f64);
        let (mut negative, mut positive) = (false, false);
        for s in (0..p.len()).filter(|&s| !p.fin[s] && p.kind[s] != Kind::Terminal) {
            for c in p.first[s] as usize..p.first[s + 1] as usize {
                let slots = p.choice_first[c] as usize..p.choice_first[c + 1] as usize;
                let reward = p.choice_reward[c];
                let fin = |k: usize| p.link_fin[p.link[k] as usize];
                if reward != 0.0 && slots.clone().any(|k| !fin(k)) {
                    inside = true;
                    negative |= reward < 0.0;
                    positive |= reward > 0.0;
                }
                for k in slots {
                    let l = p.link[k] as usize;
                    if fin(k) && p.link_at[l].lo.is_infinite() {
                        // A way out to an endless play's worth (see `endless`): a choice
                        // the player it is against never takes, and no bound of the others.
                        continue;
                    }
                    if !fin(k) {
                        inside |= p.r[k] != 0.0;
                        negative |= p.r[k] < 0.0;
                        positive |= p.r[k] > 0.0;
                        continue;
                    }
                    let (a, b) = (
                        reward + p.r[k] + p.link_at[l].lo,
                        reward + p.r[k] + p.link_at[l].hi,
                    );
                    let s =
                        4.0 * f64::EPSILON * (reward.abs() + p.r[k].abs() + a.abs().max(b.abs()))
                            + p.choice_err[c]
                            + p.reward_err(k);
                    lo = lo.min(a - s);
                    hi = hi.max(b + s);
                    negative |= a - s < 0.0;
                    positive |= b + s > 0.0;
                }
            }
        }
        let flag = |b: bool| b as u8 as f64;
        let mut figures = [0.0; FIGURES];
        figures[..5].copy_from_slice(&[flag(inside), lo, hi, flag(negative), flag(positive)]);
        figures[5] = (0..p.len()).filter(|&s| !p.fin[s]).count() as f64;
        figures[6] = p.len() as f64;
        figures
    }
}
