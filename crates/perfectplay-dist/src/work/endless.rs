//! Plays that never end, where they are worth infinitely much (PRISM's expected reward to
//! reach a target is +∞ wherever the target may be missed): the states from which the player
//! an endless play is against cannot make the play end with probability one take that worth as
//! their final value, before any value flows back.
//!
//! Those states are the complement of the loser's almost-sure reachability of the terminals, a
//! nested fixed point computed in rounds as the other analyses are: the greatest set `X` such
//! that from every state of `X` the play reaches a terminal by moves that stay in `X`, where
//! "reaches" is a least fixed point: a terminal (or a state already final, whose play has a
//! known finite worth from there on, as for the states a total reward finds worth zero); a
//! state of the loser with a choice whose
//! outcomes all lie in `X` and one of them in the set found so far; any other state (chance,
//! the other player) whose every choice is such. Where a state falls out of `X`, its
//! predecessors' links are marked and the reachability starts again, until `X` stands.
//!
//! The last reachability also gives the loser a strategy that ends the play with probability
//! one whatever the other player does ([`Ending`]): in each of its states, the choice by which
//! the state joined the set (every outcome stays in `X`, one leads to a state that joined
//! before), so that from anywhere a play has a positive chance of a terminal within `|X|`
//! steps and never leaves `X`.

use perfectplay::Player;
use timely::worker::Worker;

use super::Work;
use crate::part::Kind;
use crate::round::{total_sent, Body, Msg, FIGURES};
use crate::DistError;

/// The loser of an endless play and, for each of its states that can end the play surely, the
/// choice (its number among the part's choices) of a strategy that does so; `u32::MAX`
/// elsewhere.
pub(super) struct Ending {
    /// The player an endless play is against.
    pub loser: Player,
    /// Per state, the choice that ends the play (see the module documentation).
    pub choice: Vec<u32>,
}

/// Per link: whether its successor is in a set (of one step of the analysis).
struct Marks {
    /// The successor is in the set `X` of states that may still end the play surely.
    alive: Vec<bool>,
    /// The successor is in the reachability set found so far.
    ends: Vec<bool>,
}

impl Work<'_> {
    /// Gives the worth of an endless play (+∞ against the minimiser, −∞ against the
    /// maximiser) as the final value of every state from which `loser` cannot make the play end
    /// with probability one, whatever the other player does; see the module documentation.
    pub(super) fn endless(&mut self, worker: &mut Worker, loser: Player) -> Result<(), DistError> {
        let n = self.part.len();
        let (alive, choice) = self.almost_sure(worker, loser, vec![true; n])?;
        let worth = match loser {
            Player::Min => f64::INFINITY,
            Player::Max => f64::NEG_INFINITY,
        };
        let p = &mut self.part;
        for s in (0..n).filter(|&s| !alive[s]) {
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (worth, worth, worth, true);
        }
        self.ending = Some(Ending { loser, choice });
        Ok(())
    }

    /// The greatest set `X` within `alive` (this worker's states) from which `player` makes
    /// the play reach a terminal of `X` with probability one whatever the other player does
    /// (see the module documentation, where `X` starts as every state), as `alive` per state,
    /// with the choice of each of `player`'s states in it by which it does so (`u32::MAX`
    /// elsewhere).
    pub(super) fn almost_sure(
        &mut self,
        worker: &mut Worker,
        player: Player,
        mut alive: Vec<bool>,
    ) -> Result<(Vec<bool>, Vec<u32>), DistError> {
        let n = self.part.len();
        let links = self.part.links();
        let mut choice = vec![u32::MAX; n];
        let mut marks = Marks {
            alive: vec![true; links],
            ends: vec![false; links],
        };
        // The states outside `X` from the start leave it first.
        let outside: Vec<usize> = (0..n).filter(|&s| !alive[s]).collect();
        alive.iter_mut().for_each(|a| *a = true);
        self.leave(worker, &outside, &mut alive, &mut marks)?;
        loop {
            let ends = self.reach(worker, player, &alive, &mut marks, &mut choice)?;
            // `X` shrinks to what reaches the terminals within it.
            let leaving: Vec<usize> = (0..n).filter(|&s| alive[s] && !ends[s]).collect();
            if !self.leave(worker, &leaving, &mut alive, &mut marks)? {
                return Ok((alive, choice));
            }
        }
    }

    /// Takes `states` out of `X` (`alive`), marking their predecessors' links, in a round;
    /// returns whether any worker took a state out.
    fn leave(
        &mut self,
        worker: &mut Worker,
        states: &[usize],
        alive: &mut [bool],
        marks: &mut Marks,
    ) -> Result<bool, DistError> {
        let me = self.rounds.index;
        for &s in states {
            alive[s] = false;
            for &(to, link) in self.part.preds.of(s) {
                match to == me {
                    true => marks.alive[link as usize] = false,
                    false => self.out.push(Msg {
                        to,
                        body: Body::Mark { link },
                    }),
                }
            }
        }
        let mut figures = [0.0; FIGURES];
        figures[0] = states.len() as f64;
        let statuses = self.round(worker, None, figures)?;
        for m in self.out.drain(..) {
            if let Body::Mark { link } = m.body {
                marks.alive[link as usize] = false;
            }
        }
        Ok(statuses.iter().any(|s| s.figures[0] != 0.0))
    }

    /// The least fixed point of the analysis within `alive` (the set `X`): per state, whether
    /// `loser` makes the play reach a terminal from it, with positive probability at each step
    /// and never leaving `X`; `choice` takes, for each of the loser's states that joins, the
    /// choice it joined by.
    fn reach(
        &mut self,
        worker: &mut Worker,
        loser: Player,
        alive: &[bool],
        marks: &mut Marks,
        choice: &mut [u32],
    ) -> Result<Vec<bool>, DistError> {
        let p = &self.part;
        let mut ends: Vec<bool> = (0..p.len())
            .map(|s| (p.kind[s] == Kind::Terminal || p.fin[s]) && alive[s])
            .collect();
        let mut found: Vec<usize> = (0..p.len()).filter(|&s| ends[s]).collect();
        marks.ends.iter_mut().for_each(|e| *e = false);
        let me = self.rounds.index;
        loop {
            while let Some(s) = found.pop() {
                for &(to, link) in self.part.preds.of(s) {
                    if to != me {
                        self.out.push(Msg {
                            to,
                            body: Body::Mark { link },
                        });
                        continue;
                    }
                    self.join(link, loser, alive, marks, &mut ends, &mut found, choice);
                }
            }
            let statuses = self.round(worker, None, [0.0; FIGURES])?;
            if total_sent(&statuses) == 0 {
                return Ok(ends);
            }
            for m in std::mem::take(&mut self.out) {
                if let Body::Mark { link } = m.body {
                    self.join(link, loser, alive, marks, &mut ends, &mut found, choice);
                }
            }
        }
    }

    /// Marks `link`'s successor as in the reachability set; each state of the link joins the
    /// set (into `ends`, and `found` to pass it on, with the loser's choice into `choice`) if
    /// it now reaches.
    #[allow(clippy::too_many_arguments)]
    fn join(
        &self,
        link: u32,
        loser: Player,
        alive: &[bool],
        marks: &mut Marks,
        ends: &mut [bool],
        found: &mut Vec<usize>,
        choice: &mut [u32],
    ) {
        marks.ends[link as usize] = true;
        for &t in self.part.users.of(link as usize) {
            let t = t as usize;
            if alive[t] && !ends[t] {
                if let Some(c) = self.reaches(t, loser, marks) {
                    ends[t] = true;
                    found.push(t);
                    choice[t] = c;
                }
            }
        }
    }

    /// Whether state `s` joins the reachability set: a choice of the loser's, or every choice
    /// of anyone else's, has all its outcomes in `X` and one in the set. `Some` of the loser's
    /// first such choice (`u32::MAX` for the others' states) where it joins.
    fn reaches(&self, s: usize, loser: Player, marks: &Marks) -> Option<u32> {
        let p = &self.part;
        let good = |c: usize| {
            let slots = p.choice_first[c] as usize..p.choice_first[c + 1] as usize;
            let link = |k: usize| p.link[k] as usize;
            slots.clone().all(|k| marks.alive[link(k)])
                && slots.into_iter().any(|k| marks.ends[link(k)])
        };
        let mut choices = p.first[s] as usize..p.first[s + 1] as usize;
        match p.kind[s] {
            Kind::Terminal => Some(u32::MAX),
            Kind::Decision(player) if player == loser => {
                choices.find(|&c| good(c)).map(|c| c as u32)
            }
            _ => choices.all(good).then_some(u32::MAX),
        }
    }
}
