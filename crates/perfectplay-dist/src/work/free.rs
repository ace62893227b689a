//! Plays that may go on for ever collecting nothing: the greatest set of states in which a play
//! can be kept, with probability one, on moves that collect nothing, found in rounds by
//! removing the states that cannot keep it (each removal marks its predecessors' links).
//!
//! Two questions ask it:
//! - **The trap analysis** of interval iteration: can the players together keep the play
//!   going for ever at no cost? Where they can, the backup has fixed points beside the values.
//! - **A total reward** ([`Options::total`](crate::Options::total), PRISM's `R [ C ]`): the
//!   states from which the minimiser can keep every reward at zero for ever, whatever the
//!   maximiser does, are worth exactly zero, before any value flows back. The play ending at a
//!   terminal worth zero counts as collecting nothing.
//!   Every endless play from the other states then collects a positive reward infinitely
//!   often (the moves a play takes infinitely often form a set in which it can be kept, and
//!   it collects something there), so it is worth +∞, which the endless analysis gives,
//!   provided the players together cannot keep the play going for nothing among those states
//!   either. Where they can, the maximiser may prefer a finite total to ending the play. If
//!   it alone decides there (`Rmax [ C ]` of an MDP), the states worth +∞ are found from the
//!   graph instead: those from which it can reach, with positive probability, a set where it
//!   keeps the play for ever and collects a reward again and again (an end component with a
//!   reward). Every other value is then finite, and the least fixed point of the backup
//!   (rewards are at least zero, and an endless play's total is what it collected), so a
//!   checked guess bounds it from above whatever cycles the maximiser may keep to. Where the
//!   minimiser decides too, the run refuses.

use perfectplay::Player;
use timely::worker::Worker;

use super::Work;
use crate::part::{Kind, Part};
use crate::round::{Body, Msg, FIGURES};
use crate::DistError;

/// Who may keep a play in the set: at the other states, every choice must keep it.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Keeper {
    /// Either player, at their own decisions (with the other's help).
    Both,
    /// The minimiser alone, whatever the maximiser does.
    Min,
}

impl Work<'_> {
    /// The greatest set within `kept` (per state) in which `keeper` keeps the play on moves
    /// that collect nothing (on any move, where `free` is false: the outcomes of probability
    /// zero then do not count); `inside` tells, per link, whether its successor may be kept,
    /// and `gone` lists the states outside `kept` whose predecessors' links are still to be
    /// marked. Returns the set, the links' marks, and whether the set is empty in every worker.
    fn keep(
        &mut self,
        worker: &mut Worker,
        mut kept: Vec<bool>,
        mut inside: Vec<bool>,
        mut gone: Vec<usize>,
        keeper: Keeper,
        free: bool,
    ) -> Result<(Vec<bool>, Vec<bool>, bool), DistError> {
        let stays = |p: &Part, inside: &[bool], c: usize| match free {
            true => {
                p.choice_reward[c] == 0.0
                    && (p.choice_first[c] as usize..p.choice_first[c + 1] as usize)
                        .all(|k| inside[p.link[k] as usize] && p.r[k] == 0.0)
            }
            false => stays_in(p, inside, c),
        };
        let me = self.rounds.index;
        let mut check: Vec<usize> = (0..kept.len()).filter(|&s| kept[s]).collect();
        loop {
            // This worker's own removals are taken at once, until none is left.
            while !check.is_empty() || !gone.is_empty() {
                while let Some(s) = check.pop() {
                    if !kept[s] {
                        continue;
                    }
                    let p = &self.part;
                    let mut choices = p.first[s] as usize..p.first[s + 1] as usize;
                    let keeps = match (p.kind[s], keeper) {
                        (Kind::Decision(_), Keeper::Both) | (Kind::Decision(Player::Min), _) => {
                            choices.any(|c| stays(p, &inside, c))
                        }
                        _ => choices.all(|c| stays(p, &inside, c)),
                    };
                    if !keeps {
                        kept[s] = false;
                        gone.push(s);
                    }
                }
                for s in gone.drain(..) {
                    for &(to, link) in self.part.preds.of(s) {
                        if to == me {
                            inside[link as usize] = false;
                            let users = self.part.users.of(link as usize);
                            check.extend(users.iter().map(|&t| t as usize));
                        } else {
                            self.out.push(Msg {
                                to,
                                body: Body::Mark { link },
                            });
                        }
                    }
                }
            }
            // Counted here, not by the round: states queued for iteration wait meanwhile.
            let mut figures = [0.0; FIGURES];
            figures[0] = kept.iter().filter(|&&k| k).count() as f64;
            figures[1] = self.out.len() as f64;
            let statuses = self.round(worker, None, figures)?;
            if statuses.iter().all(|s| s.figures[1] == 0.0) {
                let empty = statuses.iter().all(|s| s.figures[0] == 0.0);
                return Ok((kept, inside, empty));
            }
            for m in self.out.drain(..) {
                if let Body::Mark { link } = m.body {
                    inside[link as usize] = false;
                    let users = self.part.users.of(link as usize);
                    check.extend(users.iter().map(|&t| t as usize));
                }
            }
        }
    }

    /// Whether the players together can keep the play going for ever, with probability one, on
    /// moves that collect nothing, among the `open` states (those not final): the greatest set
    /// where each decision has such a move and chance's every outcome is such. A cycle that
    /// needs both players' moves counts: the backup has a fixed point that circles there for
    /// nothing whoever chooses it (a maximiser content with an endless play, a minimiser
    /// content with the cycle's zero), below the value. Where no such set exists, the backup
    /// has one fixed point, which makes a checked guess a bound.
    pub(super) fn trapped(
        &mut self,
        worker: &mut Worker,
        open: &[usize],
    ) -> Result<bool, DistError> {
        let p = &self.part;
        let inside: Vec<bool> = p.link_fin.iter().map(|&f| !f).collect();
        let mut kept = vec![false; p.len()];
        for &s in open {
            kept[s] = true;
        }
        let (_, _, empty) = self.keep(worker, kept, inside, Vec::new(), Keeper::Both, true)?;
        Ok(!empty)
    }

    /// For a total reward (see the module documentation): the states from which the minimiser
    /// keeps every reward at zero for ever are made final at zero; then, where the players
    /// together could keep the play going for nothing among the other states, the run
    /// refuses. Before any value flows back (only terminals are final).
    pub(super) fn zero_for_ever(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        let p = &self.part;
        let n = p.len();
        let worth_zero = |s: usize| p.kind[s] == Kind::Terminal && p.v[s] == 0.0 && p.hi[s] == 0.0;
        let kept: Vec<bool> = (0..n)
            .map(|s| p.kind[s] != Kind::Terminal || worth_zero(s))
            .collect();
        let gone = (0..n).filter(|&s| !kept[s]).collect();
        let inside = vec![true; p.links()];
        let (zero, _, _) = self.keep(worker, kept, inside, gone, Keeper::Min, true)?;
        let p = &mut self.part;
        for s in (0..n).filter(|&s| zero[s] && p.kind[s] != Kind::Terminal) {
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (0.0, 0.0, 0.0, true);
        }
        // Among the others, only a maximiser's help can keep a play going for nothing.
        let mut figures = [0.0; FIGURES];
        figures[0] = f64::from(u8::from(
            (0..n).any(|s| !p.fin[s] && p.kind[s] == Kind::Decision(Player::Max)),
        ));
        let statuses = self.round(worker, None, figures)?;
        if statuses.iter().all(|s| s.figures[0] == 0.0) {
            self.trap = Some(false);
            return Ok(());
        }
        let p = &self.part;
        let kept: Vec<bool> = p.fin.iter().map(|&f| !f).collect();
        let gone = (0..n).filter(|&s| p.fin[s]).collect();
        let inside = vec![true; p.links()];
        let (_, _, empty) = self.keep(worker, kept, inside, gone, Keeper::Both, true)?;
        if empty {
            self.trap = Some(false);
            return Ok(());
        }
        // Free cycles: with the maximiser alone deciding, its +∞ is found from the graph.
        let p = &self.part;
        let mut figures = [0.0; FIGURES];
        figures[0] = f64::from(u8::from(
            (0..n).any(|s| !p.fin[s] && p.kind[s] == Kind::Decision(Player::Min)),
        ));
        let statuses = self.round(worker, None, figures)?;
        if statuses.iter().any(|s| s.figures[0] != 0.0) {
            return Err(DistError::Unsupported(
                "the players together can keep the play going for ever on moves that collect \
                 nothing, where the maximiser could also collect a reward and the minimiser \
                 decides too: a bound across processes cannot yet tell such a play apart from \
                 one that collects for ever; check this property in one process"
                    .to_string(),
            ));
        }
        self.unbounded_total(worker)?;
        self.finite_total = true;
        Ok(())
    }

    /// For a total reward where the maximiser alone decides among the open states and can keep
    /// a play going for nothing: the states from which it can collect a reward infinitely
    /// often with positive probability are made final at +∞ (see the module documentation).
    /// They are those that can reach, with positive probability, a set `X` in which the play
    /// can be kept surely and from every state of which a move that collects and stays in `X`
    /// can be reached within it: a nested fixed point, `X` the greatest set where the play can
    /// be kept, cut to the states that reach such a move, until it stands.
    fn unbounded_total(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        let n = self.part.len();
        let mut x: Vec<bool> = self.part.fin.iter().map(|&f| !f).collect();
        loop {
            let gone = (0..n).filter(|&s| !x[s]).collect();
            let inside = vec![true; self.part.links()];
            let (kept, inside, empty) = self.keep(worker, x, inside, gone, Keeper::Both, false)?;
            x = kept;
            if empty {
                break;
            }
            let p = &self.part;
            let collects = |c: usize| {
                p.choice_reward[c] > 0.0
                    || (p.choice_first[c] as usize..p.choice_first[c + 1] as usize)
                        .any(|k| p.r[k] > 0.0 && p.p[k] > 0.0)
            };
            let rewarding: Vec<bool> = (0..n)
                .map(|s| {
                    x[s] && (p.first[s] as usize..p.first[s + 1] as usize)
                        .any(|c| stays_in(p, &inside, c) && collects(c))
                })
                .collect();
            let reaching = self.reach_back(worker, rewarding, |p, marked, t| {
                x[t] && (p.first[t] as usize..p.first[t + 1] as usize)
                    .any(|c| stays_in(p, &inside, c) && may_reach(p, marked, c))
            })?;
            let mut figures = [0.0; FIGURES];
            figures[0] = (0..n).filter(|&s| x[s] && !reaching[s]).count() as f64;
            let statuses = self.round(worker, None, figures)?;
            x = reaching;
            if statuses.iter().all(|s| s.figures[0] == 0.0) {
                break;
            }
        }
        let unbounded = self.reach_back(worker, x, |p, marked, t| {
            !p.fin[t]
                && (p.first[t] as usize..p.first[t + 1] as usize).any(|c| may_reach(p, marked, c))
        })?;
        let p = &mut self.part;
        for s in (0..n).filter(|&s| unbounded[s]) {
            let inf = f64::INFINITY;
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (inf, inf, inf, true);
        }
        Ok(())
    }
}

/// Whether some outcome of choice `c` of positive probability leads to a state marked
/// `marked` (per link).
fn may_reach(p: &Part, marked: &[bool], c: usize) -> bool {
    (p.choice_first[c] as usize..p.choice_first[c + 1] as usize)
        .any(|k| p.p[k] > 0.0 && marked[p.link[k] as usize])
}

/// Whether every outcome of choice `c` of positive probability leads to a state marked
/// `inside` (per link).
fn stays_in(p: &Part, inside: &[bool], c: usize) -> bool {
    (p.choice_first[c] as usize..p.choice_first[c + 1] as usize)
        .all(|k| inside[p.link[k] as usize] || p.p[k] == 0.0)
}
