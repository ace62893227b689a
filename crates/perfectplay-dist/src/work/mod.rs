//! What every worker runs, in rounds ([`Rounds`]): exploration breadth first, a layer per
//! round, each state sent to the worker its bytes hash to; then the solve backwards, first by
//! counting resolved successors (retrograde analysis: a state whose successors are all final
//! is final), then, for what cycles leave, by interval iteration: lower and upper bounds that
//! close in, every bound widened by its rounding, until the start's bounds are within the
//! precision asked.

use std::collections::VecDeque;

use perfectplay::encoded::{EncodedModel, EncodedNode};
use timely::worker::Worker;

use crate::part::{Bounds, Part};
use crate::round::{first_error, total_sent, Body, Figures, Msg, Rounds, Status, FIGURES};
use crate::{DistError, Options};

mod direct;
mod endless;
mod free;
mod iterate;
mod long_run;
mod qualitative;
mod reached;

/// What worker 0 learns at the end.
pub(crate) struct Outcome {
    /// The start's float value and bounds.
    pub v: f64,
    /// See `v`.
    pub lo: f64,
    /// See `v`.
    pub hi: f64,
    /// Where the run asks for them ([`Options::outcomes`]), `[v, lo, hi]` of each of the
    /// start's outcomes, in order; empty otherwise.
    pub outcomes: Vec<[f64; 3]>,
    /// Whether the interval iteration ran (some states lie on cycles).
    pub iterated: bool,
    /// Whether the states the iteration left open were solved in one piece in one worker.
    pub direct: bool,
    /// States in all.
    pub states: u64,
    /// Rounds run.
    pub rounds: u64,
    /// Messages between workers, and their bytes.
    pub messages: u64,
    /// See `messages`.
    pub bytes: u64,
    /// Peak memory of each process, in bytes.
    pub peaks: Vec<u64>,
}

/// Whether bounds `lo` and `hi` are within `precision` of each other, relative to the value
/// (absolute below 1); equal bounds are, infinite ones too (an endless play's worth).
fn within(precision: f64, lo: f64, hi: f64) -> bool {
    let gap = hi - lo;
    lo == hi || (gap.is_finite() && gap <= precision * lo.abs().max(hi.abs()).max(1.0))
}

/// The worker that owns a state: a hash of its bytes, the same on every machine.
fn owner(bytes: &[u8], peers: u32) -> u32 {
    let h = crate::fingerprint(bytes);
    ((h ^ (h >> 32)) % peers as u64) as u32
}

/// The state of one worker through the run.
struct Work<'a> {
    model: &'a dyn EncodedModel,
    options: &'a Options,
    rounds: Rounds,
    part: Part,
    /// The start's number here, if this worker owns it.
    start: Option<u32>,
    /// Messages for the other workers, sent at the end of the round (and, after it, what the
    /// round brought).
    out: Vec<Msg>,
    /// Values for this worker's own links, delivered at once rather than in the next round.
    local: Vec<Msg>,
    /// Open states to back up, in interval iteration.
    queue: VecDeque<usize>,
    /// Whether the players can keep the play going for ever at no cost, once asked.
    trap: Option<bool>,
    /// Whether a total reward's states worth +∞ were found from the graph, where the
    /// maximiser can keep a play going for nothing (see `free`): every other value is finite
    /// and the least fixed point of the backup, and no endless analysis runs.
    finite_total: bool,
    /// The strategy of the endless analysis, where it ran: its loser ends the play surely.
    ending: Option<endless::Ending>,
    /// The side of the bounds that a guess checked against [`Work::ending`]'s strategy bounds
    /// (where its loser can keep the play going at no cost), once it has.
    ended: Option<iterate::Side>,
    /// The side of the bounds that a guess checked as a pre-fixed point bounds whatever the
    /// players do, where the values are known to be the backup's extreme fixed point.
    fixed_point: Option<iterate::Side>,
    /// The most open states that may be gathered into one worker (see `direct`).
    gather_limit: f64,
    /// Where the run collects them ([`reach`]), the bytes of the terminal states this worker
    /// owns.
    reached: Option<Vec<Vec<u8>>>,
    /// The bounds of the start's outcomes, learnt at the end by the first worker of every
    /// process where the run asks for them ([`Options::outcomes`]).
    outcomes: Vec<[f64; 3]>,
    /// Where the iteration must close every open state's bounds, not only the start's, the
    /// precision of each (see `reached`).
    settle_all: Option<f64>,
}

impl<'a> Work<'a> {
    /// A worker's work, before anything is explored.
    fn new(worker: &mut Worker, model: &'a dyn EncodedModel, options: &'a Options) -> Self {
        Work {
            model,
            options,
            rounds: Rounds::new(worker),
            part: Part::default(),
            start: None,
            out: Vec::new(),
            local: Vec::new(),
            queue: VecDeque::new(),
            trap: None,
            finite_total: false,
            ending: None,
            ended: None,
            fixed_point: None,
            gather_limit: 0.0,
            reached: None,
            outcomes: Vec::new(),
            settle_all: None,
        }
    }
}

/// Runs worker `worker` of the solve: where the run asks for them, the bounds of the start's
/// outcomes, which the first worker of every process learns, and worker 0's outcome.
pub(crate) fn run(
    worker: &mut Worker,
    model: &dyn EncodedModel,
    options: &Options,
    per_process: usize,
) -> Result<(Vec<[f64; 3]>, Option<Outcome>), DistError> {
    let mut work = Work::new(worker, model, options);
    work.explore(worker)?;
    work.part.explored();
    if options.long_run {
        work.long_run(worker)?;
    }
    if options.total {
        work.zero_for_ever(worker)?;
    }
    if options.reached_only {
        // The probability first, then the rewards weighed by it: every value is finite.
        work.weigh_by_reach(worker)?;
    } else if options.endless_is_infinite && !work.finite_total {
        if let Some(loser) = model.endless_play_loser() {
            work.endless(worker, loser)?;
        }
    } else if options.qualitative {
        work.qualitative(worker)?;
    }
    let iterated = work.retrograde(worker)?;
    let direct = iterated && work.iterate(worker)?;
    let outcome = work.finish(worker, iterated, direct, per_process)?;
    Ok((std::mem::take(&mut work.outcomes), outcome))
}

/// Runs worker `worker` of an exploration that collects the terminal states ([`crate::reach`]):
/// every worker returns the bytes of all of them, sorted, and worker 0 the run's figures too
/// (its start's value is not solved).
pub(crate) fn reach(
    worker: &mut Worker,
    model: &dyn EncodedModel,
    options: &Options,
    per_process: usize,
) -> Result<(Vec<Vec<u8>>, Option<Outcome>), DistError> {
    let mut work = Work::new(worker, model, options);
    work.reached = Some(Vec::new());
    work.explore(worker)?;
    let peers = work.rounds.peers;
    for bytes in work.reached.take().unwrap_or_default() {
        for to in 0..peers {
            work.out.push(Msg {
                to,
                body: Body::Reached(bytes.clone()),
            });
        }
    }
    work.round(worker, None, [0.0; FIGURES])?;
    let mut all: Vec<Vec<u8>> = std::mem::take(&mut work.out)
        .into_iter()
        .filter_map(|m| match m.body {
            Body::Reached(bytes) => Some(bytes),
            _ => None,
        })
        .collect();
    all.sort_unstable();
    let outcome = work.finish(worker, false, false, per_process)?;
    Ok((all, outcome))
}

impl Work<'_> {
    /// A round with `figures`; fails at every worker if any worker failed.
    fn round(
        &mut self,
        worker: &mut Worker,
        error: Option<String>,
        figures: Figures,
    ) -> Result<Vec<Status>, DistError> {
        let statuses = self.rounds.round(
            worker,
            &mut self.out,
            self.local.len() + self.queue.len(),
            Status {
                error,
                figures,
                ..Status::default()
            },
        );
        match first_error(&statuses) {
            Some(e) => Err(DistError::Solve(e)),
            None => Ok(statuses),
        }
    }

    /// Explores breadth first, a layer a round, until a round sends no state.
    fn explore(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        let peers = self.rounds.peers;
        let mut error = None;
        if self.rounds.index == 0 {
            match self.model.start() {
                Ok(bytes) => self.out.push(Msg {
                    to: owner(&bytes, peers),
                    body: Body::State { bytes, back: None },
                }),
                Err(e) => error = Some(e.to_string()),
            }
        }
        let mut node = EncodedNode::new();
        let mut fresh: Vec<(u32, Vec<u8>)> = Vec::new();
        loop {
            let mut figures = [0.0; FIGURES];
            figures[0] = self.part.len() as f64;
            let statuses = self.round(worker, error.take(), figures)?;
            let states: f64 = statuses.iter().map(|s| s.figures[0]).sum();
            if let Some(limit) = self.options.max_states {
                if states > limit as f64 {
                    return Err(DistError::StateLimit {
                        explored: states as u64,
                        limit,
                    });
                }
            }
            if total_sent(&statuses) == 0 {
                return Ok(());
            }
            fresh.clear();
            for m in self.out.drain(..) {
                if let Body::State { bytes, back } = m.body {
                    let (id, new) = self.part.intern(&bytes);
                    match back {
                        Some(b) => self.part.preds.add(id, b),
                        None => self.start = Some(id),
                    }
                    if new {
                        fresh.push((id, bytes));
                    }
                }
            }
            let me = self.rounds.index;
            for (id, bytes) in &fresh {
                if let Err(e) = self.model.expand(bytes, &mut node) {
                    error = Some(e.to_string());
                    self.out.clear();
                    break;
                }
                if let (Some(reached), perfectplay::NodeKind::Terminal) =
                    (&mut self.reached, node.kind())
                {
                    reached.push(bytes.clone());
                }
                let out = &mut self.out;
                self.part.record(*id, &node, |link, next| {
                    out.push(Msg {
                        to: owner(next, peers),
                        body: Body::State {
                            bytes: next.to_vec(),
                            back: Some((me, link)),
                        },
                    })
                });
            }
            self.part.round_recorded();
        }
    }

    /// The bounds the iteration watches to decide its next steps (see `iterate`), `[v, lo,
    /// hi]`, while they are further apart than the precision asked (relative to the value,
    /// absolute below 1; equal bounds are close enough where they are infinite too, an
    /// endless play's worth): the start's own, or, where the run asks for the range of the
    /// start's outcomes ([`Options::outcomes`]), the first of theirs that are; `None` once they
    /// are all close enough.
    fn start_watch(&self, s: usize) -> Option<[f64; 3]> {
        let precision = self.options.precision;
        let open = |b: &[f64; 3]| !within(precision, b[1], b[2]);
        let p = &self.part;
        match self.options.outcomes {
            true => p
                .slots(s)
                .map(|k| {
                    let b = p.link_at[p.link[k] as usize];
                    [b.v, b.lo, b.hi]
                })
                .find(open),
            false => Some([p.v[s], p.lo[s], p.hi[s]]).filter(open),
        }
    }

    /// `[v, lo, hi]` of each of the start's outcomes, in order.
    fn start_outcomes(&self, s: usize) -> Vec<[f64; 3]> {
        let p = &self.part;
        p.slots(s)
            .map(|k| {
                let b = p.link_at[p.link[k] as usize];
                [b.v, b.lo, b.hi]
            })
            .collect()
    }

    /// Sends the bounds of state `s` to the links that wait for them.
    fn send(&mut self, s: usize) {
        self.send_to(s, true, true);
    }

    /// Sends the bounds of state `s` to the links of this worker (`local`) and of the others
    /// (`remote`).
    fn send_to(&mut self, s: usize, local: bool, remote: bool) {
        let p = &self.part;
        let me = self.rounds.index;
        for &(to, link) in p.preds.of(s) {
            let queue = match to == me {
                true if local => &mut self.local,
                false if remote => &mut self.out,
                _ => continue,
            };
            queue.push(Msg {
                to,
                body: Body::Value {
                    link,
                    v: p.v[s],
                    lo: p.lo[s],
                    hi: p.hi[s],
                    fin: p.fin[s],
                },
            });
        }
    }

    /// Writes a received value into its link; returns the link.
    fn receive(&mut self, m: Msg) -> Option<usize> {
        let Body::Value {
            link,
            v,
            lo,
            hi,
            fin,
        } = m.body
        else {
            return None;
        };
        let (p, l) = (&mut self.part, link as usize);
        p.link_at[l] = Bounds { lo, hi, v };
        p.link_fin[l] = fin;
        Some(l)
    }

    /// Retrograde analysis: final values flow back until no state becomes final (values for
    /// this worker's own slots at once, the others' at the end of each round). Returns
    /// whether states are left (on cycles, or leading to them).
    fn retrograde(&mut self, worker: &mut Worker) -> Result<bool, DistError> {
        let n = self.part.len();
        // Per state, its links not yet final.
        let mut pending = vec![0u32; n];
        for l in 0..self.part.links() {
            for &s in self.part.users.of(l) {
                pending[s as usize] += 1;
            }
        }
        for s in 0..n {
            if self.part.fin[s] {
                self.send(s);
            }
        }
        // The states not final yet (counted once, then as they settle: a round each across a
        // long chain must not cost a pass over every state).
        let mut left = self.part.fin.iter().filter(|&&f| !f).count();
        loop {
            while let Some(m) = self.local.pop() {
                left -= self.settle(m, &mut pending);
            }
            let mut figures = [0.0; FIGURES];
            figures[0] = left as f64;
            let statuses = self.round(worker, None, figures)?;
            if total_sent(&statuses) == 0 {
                return Ok(statuses.iter().map(|s| s.figures[0]).sum::<f64>() > 0.0);
            }
            for m in std::mem::take(&mut self.out) {
                left -= self.settle(m, &mut pending);
            }
        }
    }

    /// Takes a final value into its link; a state whose links are all final becomes final and
    /// sends its value on. Returns how many states became final.
    fn settle(&mut self, m: Msg, pending: &mut [u32]) -> usize {
        let Some(l) = self.receive(m) else { return 0 };
        let mut settled = 0;
        for i in 0..self.part.users.of(l).len() {
            let s = self.part.users.of(l)[i] as usize;
            if self.part.fin[s] {
                // Final before its successors were (an endless play's worth): already sent.
                continue;
            }
            pending[s] -= 1;
            if pending[s] == 0 {
                let (v, lo, hi) = self.part.backup(s);
                let p = &mut self.part;
                (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (v, lo, hi, true);
                self.send(s);
                settled += 1;
            }
        }
        settled
    }

    /// The last round: every worker's counts and its process's peak memory to everyone;
    /// worker 0 makes the outcome of them.
    fn finish(
        &mut self,
        worker: &mut Worker,
        iterated: bool,
        direct: bool,
        per_process: usize,
    ) -> Result<Option<Outcome>, DistError> {
        let mut figures = [0.0; FIGURES];
        figures[0] = self.part.len() as f64;
        if self.rounds.index as usize % per_process == 0 {
            figures[1] = crate::peak_memory().unwrap_or(0) as f64;
        }
        figures[2] = self.rounds.messages as f64;
        figures[3] = self.rounds.bytes as f64;
        if let Some(s) = self.start {
            let (p, s) = (&self.part, s as usize);
            figures[4..8].copy_from_slice(&[1.0, p.v[s], p.lo[s], p.hi[s]]);
            if self.options.outcomes {
                // To the first worker of every process.
                let bounds = self.start_outcomes(s);
                for to in (0..self.rounds.peers).step_by(per_process) {
                    self.out.push(Msg {
                        to,
                        body: Body::Outcomes(bounds.clone()),
                    });
                }
            }
        }
        let rounds = self.rounds.rounds + 1;
        let statuses = self.round(worker, None, figures)?;
        self.outcomes = self
            .out
            .drain(..)
            .find_map(|m| match m.body {
                Body::Outcomes(bounds) => Some(bounds),
                _ => None,
            })
            .unwrap_or_default();
        if self.rounds.index != 0 {
            return Ok(None);
        }
        let outcomes = self.outcomes.clone();
        let at_start = statuses
            .iter()
            .find(|s| s.figures[4] == 1.0)
            .map(|s| s.figures)
            .ok_or_else(|| DistError::Solve("no worker holds the start state".to_string()))?;
        let sum = |i: usize| statuses.iter().map(|s| s.figures[i]).sum::<f64>() as u64;
        Ok(Some(Outcome {
            v: at_start[5],
            lo: at_start[6],
            hi: at_start[7],
            outcomes,
            iterated,
            direct,
            states: sum(0),
            rounds,
            messages: sum(2),
            bytes: sum(3),
            peaks: statuses
                .chunks(per_process)
                .map(|c| c[0].figures[1] as u64)
                .collect(),
        }))
    }
}
