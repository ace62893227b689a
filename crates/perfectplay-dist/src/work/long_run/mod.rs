//! The long run of a chain ([`Options::long_run`](crate::Options::long_run)): the long-run
//! average of what each step earns, found before any value flows back, in rounds.
//!
//! A finite chain ends up, almost surely, in a bottom strongly connected component, and its
//! long-run average there is one number `g`, the same from every state of the component. The
//! value of a state is the average of those numbers weighed by the probability of ending in
//! each: a total to be found by the usual solve once every state that ends in one component
//! for sure is final at its `g`, and no step earns anything any more.
//!
//! - **Which component.** Every state gets a key (its worker and its number there), and its
//!   *label* is the least key of any state it reaches: a least fixed point, by labels that
//!   flow back along the links round after round. A state from which some step leads to a
//!   state of another label *breaks*; the states that can reach a break are found as a least
//!   fixed point backwards. Every other state reaches states of its own label only, so
//!   every bottom component it reaches holds the state of that key: it reaches exactly one,
//!   almost surely, and that state is in it. Those are the *settled* states; they are closed
//!   under the steps, and a bottom component is all settled. Of the other states, those
//!   whose settled states reached are all of one label (the least and the greatest label
//!   reached, two more flows of the same kind, agree) reach one bottom component too, and
//!   take its average as well: in a chain whose every play ends in one component, all do.
//! - **Its average.** For any values `x` of the states of a label, `g` is an average of the
//!   excess `B(x)(s) - x(s)` of one backup over the states of the component, weighed by the
//!   chain's stationary distribution there (which the component's steps leave as it is), so
//!   `g` lies between the least and the greatest excess over the label's states, certified by
//!   the backup's own rounding bound. The values iterate the lazy chain, `x ← x + (B(x) - x -
//!   c)/2` (`c` the label's last lower bound, which keeps `x` small and changes no excess),
//!   whose excess tends to `g` in every state of the label even where the chain is periodic,
//!   and the bounds close in. Each round every settled state sends its value to the links
//!   that read it, and its excess to the worker of its label's key, which answers with the
//!   label's best bounds so far; the iteration stops once every label's bounds are within
//!   the precision asked. Where that is slow (a chain that mixes slowly), the settled states
//!   of the labels still open are gathered into one worker, if few, and their averages solved
//!   there by renewal ([`renewal`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use timely::worker::Worker;

use super::Work;
use crate::part::Kind;
use crate::round::{total_sent, Body, Msg, FIGURES};
use crate::table::Users;
use crate::work::direct::GATHER_AFTER;
use crate::DistError;

mod renewal;

/// The rounds of the averages' iteration, past the gathering, over which its pace is measured:
/// where fewer labels are open, or the widest open bounds close at a pace that reaches the
/// precision within the run's limit of rounds, it goes on; otherwise it ends with an error at
/// once (a chain that mixes too slowly for this method), rather than at that limit.
const WINDOW: u64 = 1024;

/// Why a model that is not a chain is refused.
const CHAINS_ONLY: &str = "the long run across processes is answered on chains (every state \
     a chance node or a terminal, but for a choice at the start), as one process answers it on \
     DTMCs";

/// A state's key: its worker and its number there, which orders the labels.
fn key(worker: u32, state: u32) -> u64 {
    u64::from(worker) << 32 | u64::from(state)
}

/// The worker of a key's state, which keeps the bounds of that label's average.
fn key_worker(key: u64) -> u32 {
    (key >> 32) as u32
}

/// The numbers of a worker's states while they flow (see [`Work::least_reached`]).
struct Labels {
    /// Each state's label so far.
    label: Vec<u64>,
    /// Each link's label so far (its successor's).
    link_label: Vec<u64>,
    /// The states whose label moved, to pass on, least first.
    moved: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Labels {
    /// A label for `link`: the states that read it take it where it is less than theirs.
    fn take(&mut self, link: u32, label: u64, users: &Users) {
        let l = link as usize;
        if label >= self.link_label[l] {
            return;
        }
        self.link_label[l] = label;
        for &t in users.of(l) {
            if label < self.label[t as usize] {
                self.label[t as usize] = label;
                self.moved.push(Reverse((label, t)));
            }
        }
    }
}

impl Work<'_> {
    /// Makes every settled state (see the module documentation) final at its component's
    /// long-run average, and lets go of every reward, so that the solve that follows finds
    /// the other states' averages as the values they end with.
    pub(super) fn long_run(&mut self, worker: &mut Worker) -> Result<(), DistError> {
        let mut figures = [0.0; FIGURES];
        // A decision may stand only where no step leads (the choice over a model's initial
        // states): outside the chain, it only weighs the averages of where it leads.
        let p = &self.part;
        let decides = |s: usize| matches!(p.kind[s], Kind::Decision(_));
        figures[0] = f64::from(u8::from(
            (0..p.len()).any(|s| decides(s) && !p.preds.of(s).is_empty()),
        ));
        let statuses = self.round(worker, None, figures)?;
        if statuses.iter().any(|s| s.figures[0] != 0.0) {
            return Err(DistError::Unsupported(CHAINS_ONLY.to_string()));
        }
        let n = self.part.len();
        let me = self.rounds.index;
        let (label, link_label) = self.least_reached(worker, (0..n).map(|s| key(me, s as u32)))?;
        let p = &self.part;
        let breaks: Vec<bool> = (0..p.len())
            .map(|s| {
                matches!(p.kind[s], Kind::Decision(_))
                    || p.slots(s)
                        .any(|k| link_label[p.link[k] as usize] != label[s])
            })
            .collect();
        let unsettled = self.reach_back(worker, breaks, |p, marked, t| {
            p.slots(t).any(|k| marked[p.link[k] as usize])
        })?;
        let settled: Vec<usize> = (0..n).filter(|&s| !unsettled[s]).collect();
        // Of the others, those whose settled states reached are all of one label reach one
        // bottom component too: the least and the greatest label they reach are the same.
        let of_settled = |s: usize, l: u64| if unsettled[s] { u64::MAX } else { l };
        let (least, _) = self.least_reached(worker, (0..n).map(|s| of_settled(s, label[s])))?;
        let (most, _) = self.least_reached(worker, (0..n).map(|s| of_settled(s, !label[s])))?;
        let joined: Vec<usize> = (0..n)
            .filter(|&s| unsettled[s] && least[s] != u64::MAX && least[s] == !most[s])
            .collect();
        let needed: Vec<u64> = joined.iter().map(|&s| least[s]).collect();
        let gains = self.gains(worker, &settled, &label, &needed)?;
        let p = &mut self.part;
        let with = settled.iter().map(|&s| (s, label[s]));
        for (s, l) in with.chain(joined.iter().map(|&s| (s, least[s]))) {
            let (lo, hi) = gains[&l];
            (p.v[s], p.lo[s], p.hi[s], p.fin[s]) = (0.5 * (lo + hi), lo, hi, true);
        }
        // What is left is the weighing of those averages: no step earns any more.
        p.choice_reward.fill(0.0);
        p.choice_err.fill(0.0);
        p.r.fill(0.0);
        for bits in &mut p.inexact {
            *bits &= 1;
        }
        Ok(())
    }

    /// The least of `own` (a number per state, `u64::MAX` for none) over the states that
    /// each state reaches, itself included, and each link's (its successor's), by numbers
    /// flowing back along the links until none moves. A worker passes on its least numbers
    /// first (as Dijkstra's order), so that a number crosses each of its states' links once a
    /// round, not once for every lesser number that follows it.
    fn least_reached(
        &mut self,
        worker: &mut Worker,
        own: impl Iterator<Item = u64>,
    ) -> Result<(Vec<u64>, Vec<u64>), DistError> {
        let me = self.rounds.index;
        let mut at = Labels {
            label: own.collect(),
            link_label: vec![u64::MAX; self.part.links()],
            moved: BinaryHeap::new(),
        };
        at.moved = (at.label.iter().enumerate())
            .filter(|&(_, &l)| l != u64::MAX)
            .map(|(s, &l)| Reverse((l, s as u32)))
            .collect();
        loop {
            while let Some(Reverse((label, s))) = at.moved.pop() {
                let s = s as usize;
                if label != at.label[s] {
                    // Passed on already with a lesser label.
                    continue;
                }
                for &(to, link) in self.part.preds.of(s) {
                    match to == me {
                        true => at.take(link, label, &self.part.users),
                        false => self.out.push(Msg {
                            to,
                            body: Body::Label { link, label },
                        }),
                    }
                }
            }
            let statuses = self.round(worker, None, [0.0; FIGURES])?;
            if total_sent(&statuses) == 0 {
                return Ok((at.label, at.link_label));
            }
            for m in std::mem::take(&mut self.out) {
                if let Body::Label { link, label } = m.body {
                    at.take(link, label, &self.part.users);
                }
            }
        }
    }

    /// Certified bounds `(lo, hi)` on the long-run average of every label of the `settled`
    /// states and of the labels `needed` here, each bracket within the precision asked (see
    /// the module documentation).
    fn gains(
        &mut self,
        worker: &mut Worker,
        settled: &[usize],
        label: &[u64],
        needed: &[u64],
    ) -> Result<HashMap<u64, (f64, f64)>, DistError> {
        let me = self.rounds.index;
        let precision = self.options.precision;
        let close = |(lo, hi): (f64, f64)| super::within(precision, lo, hi);
        let mut x = vec![0.0; self.part.len()];
        let mut link_x = vec![0.0; self.part.links()];
        // The best bounds so far: at the worker of each label's key, of its own labels; at
        // every worker, of the labels of its settled states, as last told.
        let mut best: HashMap<u64, (f64, f64)> = HashMap::new();
        let mut known: HashMap<u64, (f64, f64)> = HashMap::new();
        let mut rounds = 0u64;
        // The open labels and the widest of their bounds, at the last window's end.
        let mut last_window: Option<(f64, f64)> = None;
        loop {
            // Each settled state's excess over its label, and its value one lazy step on; a
            // label's states rest once its bounds have closed (only they read their values).
            let closed = |l: &u64| known.get(l).is_some_and(|&b| close(b));
            let mut parts: HashMap<u64, (f64, f64)> = HashMap::new();
            let mut moves = Vec::with_capacity(settled.len());
            for &s in settled.iter().filter(|&&s| !closed(&label[s])) {
                let (lo, hi) = match self.part.kind[s] {
                    Kind::Terminal => (self.part.lo[s], self.part.hi[s]),
                    _ => self.part.excess(s, &link_x, x[s], None),
                };
                let part = parts.entry(label[s]).or_insert((lo, hi));
                *part = (part.0.min(lo), part.1.max(hi));
                let shift = known.get(&label[s]).map_or(0.0, |b| b.0);
                moves.push((s, x[s] + 0.5 * (0.5 * (lo + hi) - shift)));
            }
            for (s, next) in moves {
                x[s] = next;
                for &(to, link) in self.part.preds.of(s) {
                    self.out.push(Msg {
                        to,
                        body: Body::Level { link, x: next },
                    });
                }
            }
            // A label this worker needs without states of it to iterate: asked all the same.
            for at in needed.iter().filter(|l| !closed(l)) {
                parts
                    .entry(*at)
                    .or_insert((f64::INFINITY, f64::NEG_INFINITY));
            }
            for (at, (lo, hi)) in parts {
                self.out.push(Msg {
                    to: key_worker(at),
                    body: Body::Gain {
                        label: at,
                        lo,
                        hi,
                        from: me,
                    },
                });
            }
            self.round(worker, None, [0.0; FIGURES])?;
            // The values, and at each label's worker the round's excesses, combined into
            // its best bounds; the bounds go back to the workers that sent them.
            let mut round: HashMap<u64, (f64, f64, Vec<u32>)> = HashMap::new();
            for m in std::mem::take(&mut self.out) {
                match m.body {
                    Body::Level { link, x } => link_x[link as usize] = x,
                    Body::Gain {
                        label: at,
                        lo,
                        hi,
                        from,
                    } => {
                        let r = round.entry(at).or_insert((lo, hi, Vec::new()));
                        (r.0, r.1) = (r.0.min(lo), r.1.max(hi));
                        r.2.push(from);
                    }
                    _ => {}
                }
            }
            let (mut open, mut widest) = (0usize, 0.0f64);
            for (at, (lo, hi, from)) in round {
                let b = best.entry(at).or_insert((lo, hi));
                *b = (b.0.max(lo), b.1.min(hi));
                open += usize::from(!close(*b));
                if !close(*b) {
                    widest = widest.max((b.1 - b.0) / b.0.abs().max(b.1.abs()).max(1.0));
                }
                for to in from {
                    self.out.push(Msg {
                        to,
                        body: Body::Gain {
                            label: at,
                            lo: b.0,
                            hi: b.1,
                            from: me,
                        },
                    });
                }
            }
            let mut figures = [0.0; FIGURES];
            figures[0] = open as f64;
            figures[1] = widest;
            let statuses = self.round(worker, None, figures)?;
            for m in std::mem::take(&mut self.out) {
                if let Body::Gain {
                    label: at, lo, hi, ..
                } = m.body
                {
                    known.insert(at, (lo, hi));
                }
            }
            if statuses.iter().all(|s| s.figures[0] == 0.0) {
                return Ok(known);
            }
            rounds += 1;
            // The pace, every `WINDOW` rounds past the gathering: where the open labels are
            // as many and their widest bounds close at a pace that reaches the precision only
            // past the run's limit of rounds, the run ends now rather than then.
            if rounds > GATHER_AFTER && (rounds - GATHER_AFTER) % WINDOW == 0 {
                let now = (
                    statuses.iter().map(|s| s.figures[0]).sum::<f64>(),
                    statuses.iter().map(|s| s.figures[1]).fold(0.0, f64::max),
                );
                if let Some((open, widest)) = last_window {
                    let pace = now.1 / widest;
                    let left = match (now.0 < open, pace < 1.0) {
                        (true, _) => 0.0,
                        (false, true) => (precision / now.1).ln() / pace.ln() * WINDOW as f64,
                        (false, false) => f64::INFINITY,
                    };
                    if rounds as f64 + left > self.options.max_rounds as f64 {
                        return Err(DistError::Solve(format!(
                            "the long-run averages close too slowly across processes: after \
                             {rounds} rounds of the iteration their bounds are {:.2e} apart, \
                             relatively, against {:.2e} {WINDOW} rounds before, a pace that \
                             closes them only past the run's {} rounds (a chain that mixes \
                             slowly, such as a long symmetric walk, whose bottom component has \
                             more states than one worker may gather); check it in one \
                             process, which solves each bottom component directly",
                            now.1, widest, self.options.max_rounds
                        )));
                    }
                }
                last_window = Some(now);
            }
            if rounds == GATHER_AFTER {
                // Slow: the settled states of the labels still open, if few, are solved in
                // one worker by renewal.
                let open: Vec<usize> = (settled.iter().copied())
                    .filter(|&s| known.get(&label[s]).is_none_or(|&b| !close(b)))
                    .collect();
                let mut figures = [0.0; FIGURES];
                figures[0] = open.len() as f64;
                figures[1] = self.part.len() as f64;
                let statuses = self.round(worker, None, figures)?;
                let sum = |i: usize| statuses.iter().map(|s| s.figures[i]).sum::<f64>();
                self.limit_gathering(sum(1));
                if sum(0) > 0.0 && sum(0) <= self.gather_limit {
                    for (at, (lo, hi)) in self.renewal(worker, &open)? {
                        let k = known.entry(at).or_insert((lo, hi));
                        *k = (k.0.max(lo), k.1.min(hi));
                        if key_worker(at) == me {
                            let b = best.entry(at).or_insert((lo, hi));
                            *b = (b.0.max(lo), b.1.min(hi));
                        }
                    }
                }
            }
            if rounds >= self.options.max_rounds {
                return Err(DistError::Solve(format!(
                    "the long-run averages did not close within {rounds} rounds of the \
                     iteration (a chain that mixes slowly, such as a long symmetric walk); \
                     check it in one process, which solves each bottom component directly"
                )));
            }
        }
    }
}
