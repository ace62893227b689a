//! Probability 0 and 1 from the graph, in rounds, where the game is one of probabilities (no
//! reward on any move, every terminal worth 0 or 1, an endless play worth the least): the
//! values there are exactly 0 or 1, final before any value flows back, as the one-process
//! engine's graph analyses make them. Interval iteration would only ever bring them within a
//! float of it, which leaves `P>0` of a value 0 (or `P>=1` of a value 1) undecided.
//!
//! - **Probability 0**: the complement of the states from which a positive value is
//!   possible against the minimiser, a least fixed point: a terminal worth 1; a chance node
//!   with an outcome in the set; a maximiser's decision with a choice that has one; a
//!   minimiser's decision all of whose choices have one.
//! - **Probability 1**: the maximiser's almost-sure reachability of the terminals worth 1
//!   against the minimiser, the nested fixed point of [`super::endless`] within the states
//!   that are not worth 0.

use perfectplay::Player;
use timely::worker::Worker;

use super::Work;
use crate::part::{Kind, Part};
use crate::round::{total_sent, Body, Msg, FIGURES};
use crate::DistError;

impl Work<'_> {
    /// Makes final, at 0 or 1 exactly, the states whose value the graph decides, where the
    /// game is one of probabilities (see the module documentation); nothing otherwise.
    pub(super) fn qualitative(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        let endless_least = !self.options.endless_is_infinite
            && self.model.endless_play_loser() == Some(Player::Max);
        let p = &self.part;
        let terminal_ok = |s: usize| {
            p.kind[s] != Kind::Terminal
                || (p.lo[s] == p.hi[s] && p.v[s] == p.lo[s] && (p.v[s] == 0.0 || p.v[s] == 1.0))
        };
        let plain = endless_least
            && p.choice_reward.iter().all(|&r| r == 0.0)
            && p.r.iter().all(|&r| r == 0.0)
            && p.p.iter().all(|&x| x > 0.0)
            && (0..p.len()).all(terminal_ok);
        let mut figures = [0.0; FIGURES];
        figures[0] = f64::from(u8::from(!plain));
        let statuses = self.round(worker, None, figures)?;
        if statuses.iter().any(|s| s.figures[0] != 0.0) {
            return Ok(());
        }
        let positive = self.positive(worker)?;
        let (one, _) = self.almost_sure(worker, Player::Max, positive.clone())?;
        let p = &mut self.part;
        for s in 0..p.len() {
            if p.fin[s] {
                continue;
            }
            let value = match (positive[s], one[s]) {
                (false, _) => 0.0,
                (true, true) => 1.0,
                (true, false) => continue,
            };
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (value, value, value, true);
        }
        Ok(())
    }

    /// Per state, whether a positive value is possible from it against the minimiser (see the
    /// module documentation).
    fn positive(&mut self, worker: &mut Worker) -> Result<Vec<bool>, DistError> {
        let p = &self.part;
        let joined: Vec<bool> = (0..p.len())
            .map(|s| p.kind[s] == Kind::Terminal && p.v[s] > 0.0)
            .collect();
        self.reach_back(worker, joined, |p, marked, t| {
            let reaches = |c: usize| {
                (p.choice_first[c] as usize..p.choice_first[c + 1] as usize)
                    .any(|k| marked[p.link[k] as usize])
            };
            let mut choices = p.first[t] as usize..p.first[t + 1] as usize;
            match p.kind[t] {
                Kind::Terminal => false,
                Kind::Decision(Player::Min) => choices.all(reaches),
                _ => choices.any(reaches),
            }
        })
    }

    /// A least fixed point backwards, in rounds: from the states of `joined`, a state joins
    /// where `joins(part, marked, state)` says it does, `marked` telling per link whether its
    /// successor has joined (marks pass along the links of the states that join). Returns the
    /// set per state.
    pub(super) fn reach_back(
        &mut self,
        worker: &mut Worker,
        mut joined: Vec<bool>,
        joins: impl Fn(&Part, &[bool], usize) -> bool,
    ) -> Result<Vec<bool>, DistError> {
        let mut found: Vec<usize> = (0..joined.len()).filter(|&s| joined[s]).collect();
        let mut marked = vec![false; self.part.links()];
        let me = self.rounds.index;
        let mut mark = |p: &Part, link: u32, joined: &mut [bool], found: &mut Vec<usize>| {
            marked[link as usize] = true;
            for &t in p.users.of(link as usize) {
                let t = t as usize;
                if !joined[t] && joins(p, &marked, t) {
                    joined[t] = true;
                    found.push(t);
                }
            }
        };
        loop {
            while let Some(s) = found.pop() {
                for &(to, link) in self.part.preds.of(s) {
                    match to == me {
                        true => mark(&self.part, link, &mut joined, &mut found),
                        false => self.out.push(Msg {
                            to,
                            body: Body::Mark { link },
                        }),
                    }
                }
            }
            let statuses = self.round(worker, None, [0.0; FIGURES])?;
            if total_sent(&statuses) == 0 {
                return Ok(joined);
            }
            for m in std::mem::take(&mut self.out) {
                if let Body::Mark { link } = m.body {
                    mark(&self.part, link, &mut joined, &mut found);
                }
            }
        }
    }
}
