//! The long-run averages whose iteration closes too slowly (a chain that mixes slowly, such as
//! a long symmetric walk), gathered into one worker where their states are few, and solved
//! there by renewal, as one process solves them: from the state `r` of a label's key, which
//! lies in the label's bottom component, a cycle back to `r` earns `R` on average in `L` steps
//! on average, and the average is `R / L`. Both are totals until `r` of the chain of the
//! label's settled states (closed under the steps, and every one of them reaches `r` almost
//! surely), solved by the core's direct method for cycles ([`perfectplay::graph`]) with a
//! certified bound each, and the quotient's bounds are taken from theirs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use perfectplay::graph::{Graph, Outcome, Target};
use perfectplay::{Bounded, Number};
use timely::worker::Worker;

use crate::round::{Body, Msg, FIGURES};
use crate::work::direct::{Gathering, SOLVER};
use crate::work::Work;
use crate::DistError;

/// A gathered state's key, the label it gives the states that reach it.
fn key(g: &crate::round::Gathered) -> u64 {
    super::key(g.owner, g.state)
}

impl Gathering {
    /// Each gathered node's successors, by node; `None` where a node is not a chance node
    /// of the gathered states alone (then nothing is solved here).
    fn successors(&self) -> Option<Vec<Vec<u32>>> {
        let mut at = 0;
        let mut all = Vec::with_capacity(self.nodes.len());
        for g in &self.nodes {
            let [(_, _, slots)] = &g.choices[..] else {
                return None;
            };
            if g.max.is_some() {
                return None;
            }
            let targets = &self.targets[at..at + slots.len()];
            at += slots.len();
            if targets.iter().any(|&t| t as usize >= self.nodes.len()) {
                return None;
            }
            all.push(targets.to_vec());
        }
        Some(all)
    }

    /// Each node's label, the least key of the nodes it reaches, by labels passed back
    /// least first.
    fn labels(&self, successors: &[Vec<u32>]) -> Vec<u64> {
        let n = self.nodes.len();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, next) in successors.iter().enumerate() {
            for &t in next {
                preds[t as usize].push(i as u32);
            }
        }
        let mut label: Vec<u64> = self.nodes.iter().map(key).collect();
        let mut moved: BinaryHeap<Reverse<(u64, u32)>> =
            (0..n).map(|i| Reverse((label[i], i as u32))).collect();
        while let Some(Reverse((at, i))) = moved.pop() {
            if at != label[i as usize] {
                continue;
            }
            for &p in &preds[i as usize] {
                if at < label[p as usize] {
                    label[p as usize] = at;
                    moved.push(Reverse((at, p)));
                }
            }
        }
        label
    }

    /// The long-run average of each label of the gathered states, `(lo, hi)`, by renewal (see
    /// the module documentation); `None` where the states are not all a chain's settled
    /// states or a solve fails.
    pub(super) fn renewal(&self) -> Option<HashMap<u64, (f64, f64)>> {
        let successors = self.successors()?;
        let label = self.labels(&successors);
        let mut classes: HashMap<u64, Vec<u32>> = HashMap::new();
        for (i, &l) in label.iter().enumerate() {
            classes.entry(l).or_default().push(i as u32);
        }
        let mut averages = HashMap::with_capacity(classes.len());
        for (l, members) in classes {
            let root = *members
                .iter()
                .find(|&&i| key(&self.nodes[i as usize]) == l)?;
            let total = |steps: bool| self.cycle(&members, root, &successors, steps);
            let (r, r_err) = total(false)?;
            let (steps, steps_err) = total(true)?;
            averages.insert(l, quotient((r, r_err), (steps, steps_err))?);
        }
        Some(averages)
    }

    /// The total from `root` back to `root` over the class `members` (the cycle's reward, or
    /// its steps where `steps`), with a certified bound on its error.
    fn cycle(
        &self,
        members: &[u32],
        root: u32,
        successors: &[Vec<u32>],
        steps: bool,
    ) -> Option<(f64, f64)> {
        // Graph nodes: every member but the root in order, then the root's own step.
        let mut index: HashMap<u32, u32> = HashMap::with_capacity(members.len());
        for &i in members.iter().filter(|&&i| i != root) {
            index.insert(i, index.len() as u32);
        }
        let bounded = |(value, radius): (f64, f64)| Bounded { value, radius };
        let mut graph = Graph::new();
        let mut add = |i: u32| -> Option<()> {
            let g = &self.nodes[i as usize];
            let (reward, err, slots) = &g.choices[0];
            let mut outcomes = Vec::with_capacity(slots.len());
            for (slot, &t) in slots.iter().zip(&successors[i as usize]) {
                let to = match t == root {
                    true => Target::Exit(Bounded::exact(0.0)),
                    false => Target::Node(*index.get(&t)?),
                };
                let reward = match steps {
                    true => Bounded::exact(1.0),
                    false => bounded(slot.r).add(&bounded((*reward, *err))),
                };
                outcomes.push(Outcome {
                    probability: bounded(slot.p),
                    reward,
                    to,
                });
            }
            graph.add_chance(outcomes);
            Some(())
        };
        for &i in members.iter().filter(|&&i| i != root) {
            add(i)?;
        }
        add(root)?;
        let solved = graph.solve(None).ok()?;
        let last = graph.len() - 1;
        Some((solved.values[last], solved.error_bounds[last]))
    }
}

/// Bounds on `r / l` from `r` and `l` with their error bounds, `l` known positive; `None`
/// where it is not.
fn quotient((r, r_err): (f64, f64), (l, l_err): (f64, f64)) -> Option<(f64, f64)> {
    let (r_lo, r_hi) = ((r - r_err).next_down(), (r + r_err).next_up());
    let (l_lo, l_hi) = ((l - l_err).next_down(), (l + l_err).next_up());
    if !(l_lo > 0.0 && l_hi.is_finite() && r_lo.is_finite() && r_hi.is_finite()) {
        return None;
    }
    let lo = (r_lo / l_lo).min(r_lo / l_hi).next_down();
    let hi = (r_hi / l_lo).max(r_hi / l_hi).next_up();
    Some((lo, hi))
}

impl Work<'_> {
    /// Gathers `states` (the settled states of the labels still open, in every worker) into
    /// one worker and solves their labels' averages there by renewal; returns each label's
    /// bounds, the same in every worker, or nothing where they could not be solved there.
    pub(super) fn renewal(
        &mut self,
        worker: &mut Worker,
        states: &[usize],
    ) -> Result<HashMap<u64, (f64, f64)>, DistError> {
        self.send_gathered(states);
        self.round(worker, None, [0.0; FIGURES])?;
        if self.rounds.index == SOLVER {
            let averages = self.gathering().renewal().unwrap_or_default();
            for to in 0..self.rounds.peers {
                for (&label, &(lo, hi)) in &averages {
                    self.out.push(Msg {
                        to,
                        body: Body::Gain {
                            label,
                            lo,
                            hi,
                            from: SOLVER,
                        },
                    });
                }
            }
        }
        self.round(worker, None, [0.0; FIGURES])?;
        let mut averages = HashMap::new();
        for m in std::mem::take(&mut self.out) {
            if let Body::Gain { label, lo, hi, .. } = m.body {
                averages.insert(label, (lo, hi));
            }
        }
        Ok(averages)
    }
}

#[cfg(test)]
mod tests {
    use super::quotient;

    /// The quotient's bounds hold the quotient of any numbers within the bounds given.
    #[test]
    fn a_quotient_of_bounded_numbers_is_bounded() {
        let (lo, hi) = quotient((3.0, 0.5), (2.0, 0.25)).unwrap();
        assert!(lo <= 2.5 / 2.25 && 3.5 / 1.75 <= hi && hi - lo < 0.91);
        let (lo, hi) = quotient((-1.0, 0.5), (4.0, 1.0)).unwrap();
        assert!(lo <= -1.5 / 3.0 && -0.5 / 5.0 <= hi);
        assert!(quotient((1.0, 0.0), (0.5, 0.5)).is_none());
    }
}
