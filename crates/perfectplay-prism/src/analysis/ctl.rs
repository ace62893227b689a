//! CTL's path quantifiers, `E [ … ]` (some path) and `A [ … ]` (every path), on a built space:
//! the states where they hold, from the transition graph alone (the choices of an MDP or a
//! game, and the outcomes of each, are all edges; probabilities play no part), as PRISM
//! checks them. Every path is infinite: a deadlock has its added self-loop.
//!
//! Two fixed points do the work, each for either quantifier: `ψ U φ` over a step interval
//! (the least fixed point through ψ for an unbounded one, then steps back) and `G φ` over one
//! (the greatest fixed point). `F`, `X`, `W` and `R` are expressed in them as PRISM defines
//! them: `F φ` is `true U φ`, `X φ` is `true U[1,1] φ`, `ψ W φ` is `¬(¬φ U (¬φ∧¬ψ))` and
//! `ψ R φ` is `¬(¬ψ U ¬φ)`, with the other quantifier on the negated path.

use std::collections::VecDeque;

use crate::analysis::graph::Predecessors;
use crate::build::Space;

/// Which paths a formula speaks of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quantifier {
    /// `E`: some path.
    Some,
    /// `A`: every path.
    Every,
}

impl Quantifier {
    /// The other quantifier: `E ¬π` is `¬A π`.
    pub(crate) fn dual(self) -> Quantifier {
        match self {
            Quantifier::Some => Quantifier::Every,
            Quantifier::Every => Quantifier::Some,
        }
    }
}

/// The steps at which a path formula looks: from `first`, up to `last` (`None`: no end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interval {
    pub first: u32,
    pub last: Option<u32>,
}

/// The transition graph of a space, with its predecessor lists.
pub(crate) struct Graph<'a> {
    space: &'a Space,
    pred: Predecessors,
}

impl<'a> Graph<'a> {
    pub(crate) fn new(space: &'a Space) -> Graph<'a> {
        Graph {
            space,
            pred: Predecessors::new(space),
        }
    }

    /// The states one step of `q` from `z`: with some successor in `z` (`E X`), or with every
    /// successor in it (`A X`).
    fn next(&self, q: Quantifier, z: &[bool]) -> Vec<bool> {
        let space = self.space;
        (0..space.len() as u32)
            .map(|s| {
                let mut targets = space
                    .choices_of(s)
                    .flat_map(|c| space.outcomes_of(c).iter().map(|&(_, t)| t as usize));
                match q {
                    Quantifier::Some => targets.any(|t| z[t]),
                    Quantifier::Every => targets.all(|t| z[t]),
                }
            })
            .collect()
    }

    /// `steps` times `z := add ∨ (keep ∧ X_q z)` (`keep`/`add` `None` for true/false), stopping
    /// early once `z` no longer changes (each round is the same map).
    fn back(
        &self,
        q: Quantifier,
        mut z: Vec<bool>,
        keep: Option<&[bool]>,
        add: Option<&[bool]>,
        steps: u32,
    ) -> Vec<bool> {
        for _ in 0..steps {
            let mut next = self.next(q, &z);
            for (s, x) in next.iter_mut().enumerate() {
                *x = add.is_some_and(|a| a[s]) || (keep.is_none_or(|k| k[s]) && *x);
            }
            if next == z {
                break;
            }
            z = next;
        }
        z
    }

    /// The number of edges (outcomes of choices) leaving each state.
    fn out_degree(&self) -> Vec<u32> {
        let space = self.space;
        (0..space.len() as u32)
            .map(|s| {
                space
                    .choices_of(s)
                    .map(|c| space.outcomes_of(c).len() as u32)
                    .sum()
            })
            .collect()
    }

    /// `Q [ ψ U φ ]` unbounded, the least fixed point of `z = φ ∨ (ψ ∧ X_q z)`: backwards from
    /// φ through ψ; for `A`, a state joins once every one of its edges leads in.
    fn until_unbounded(&self, q: Quantifier, psi: &[bool], phi: &[bool]) -> Vec<bool> {
        let mut z = phi.to_vec();
        let mut missing = match q {
            Quantifier::Every => self.out_degree(),
            Quantifier::Some => Vec::new(),
        };
        let mut queue: VecDeque<u32> = (0..z.len() as u32).filter(|&s| z[s as usize]).collect();
        while let Some(t) = queue.pop_front() {
            for &c in self.pred.of(t) {
                let s = self.pred.owner[c as usize] as usize;
                if z[s] || !psi[s] {
                    continue;
                }
                let joins = match q {
                    Quantifier::Some => true,
                    Quantifier::Every => {
                        missing[s] -= 1;
                        missing[s] == 0
                    }
                };
                if joins {
                    z[s] = true;
                    queue.push_back(s as u32);
                }
            }
        }
        z
    }

    /// `Q [ G φ ]` unbounded, the greatest fixed point of `z = φ ∧ X_q z`. `E`: φ-states with
    /// an edge into the set, removed until none lacks one; `A`: the states from which no
    /// state outside φ can be reached.
    fn globally_unbounded(&self, q: Quantifier, phi: &[bool]) -> Vec<bool> {
        let n = phi.len();
        match q {
            Quantifier::Every => {
                let not_phi: Vec<bool> = phi.iter().map(|p| !p).collect();
                let bad = self.until_unbounded(Quantifier::Some, &vec![true; n], &not_phi);
                bad.iter().map(|b| !b).collect()
            }
            Quantifier::Some => {
                let space = self.space;
                let mut z = phi.to_vec();
                let mut inside: Vec<u32> = (0..n as u32)
                    .map(|s| {
                        space
                            .choices_of(s)
                            .flat_map(|c| space.outcomes_of(c))
                            .filter(|&&(_, t)| phi[t as usize])
                            .count() as u32
                    })
                    .collect();
                let mut queue: VecDeque<u32> = (0..n as u32)
                    .filter(|&s| z[s as usize] && inside[s as usize] == 0)
                    .collect();
                for &s in &queue {
                    z[s as usize] = false;
                }
                while let Some(t) = queue.pop_front() {
                    for &c in self.pred.of(t) {
                        let s = self.pred.owner[c as usize] as usize;
                        if !z[s] {
                            continue;
                        }
                        inside[s] -= 1;
                        if inside[s] == 0 {
                            z[s] = false;
                            queue.push_back(s as u32);
                        }
                    }
                }
                z
            }
        }
    }

    /// `Q [ ψ U^I φ ]`: φ at a step of the interval, ψ at every step before it.
    pub(crate) fn until(
        &self,
        q: Quantifier,
        psi: &[bool],
        phi: &[bool],
        steps: Interval,
    ) -> Vec<bool> {
        // From the interval's first step on: within last - first steps, or unbounded.
        let from_first = match steps.last {
            None => self.until_unbounded(q, psi, phi),
            Some(last) => self.back(q, phi.to_vec(), Some(psi), Some(phi), last - steps.first),
        };
        // Before it, ψ must hold and φ does not count.
        self.back(q, from_first, Some(psi), None, steps.first)
    }

    /// `Q [ G^I φ ]`: φ at every step of the interval.
    pub(crate) fn globally(&self, q: Quantifier, phi: &[bool], steps: Interval) -> Vec<bool> {
        let from_first = match steps.last {
            None => self.globally_unbounded(q, phi),
            Some(last) => self.back(q, phi.to_vec(), Some(phi), None, last - steps.first),
        };
        self.back(q, from_first, None, None, steps.first)
    }
}

/// `¬set`.
pub(crate) fn not(set: &[bool]) -> Vec<bool> {
    set.iter().map(|b| !b).collect()
}

/// `a ∧ b`.
pub(crate) fn and(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x && *y).collect()
}
