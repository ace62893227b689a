//! The open states gathered into one worker and solved there in one piece, by the core's direct
//! method for cyclic components ([`perfectplay::graph`]): for the games where interval
//! iteration closes too slowly (a long walk that the bounds cross in exponentially many
//! rounds), once few enough states are open.
//!
//! The states that lead out of the open part lead to final values known only within bounds.
//! The values are monotone in those, so the gathered game is solved three times: with every
//! way out at its lower bound (which, less the solve's own error bound, bounds each value from
//! below), at its upper bound (likewise from above), and at its float value (the value
//! reported). Where the ways out are known closely (all of them exact, often), one solve at
//! their values does: a value moves by no more than the ways out, as a play leaves by one
//! at most, so their widest spread, added to the solve's error bound, bounds each value.

use std::collections::HashMap;

use perfectplay::graph::{Graph, Outcome, Target};
use perfectplay::{Bounded, Number, Player};
use timely::worker::Worker;

use super::Work;
use crate::round::{Body, Gathered, Msg, FIGURES};
use crate::DistError;

/// Where the ways out's bounds lie within this part of the precision asked of their values,
/// the gathered states are solved once, not three times (see [`Gathering::solve`]).
const SPREAD: f64 = 1e-3;

/// The worker that solves the gathered states.
pub(super) const SOLVER: u32 = 0;

/// After this many rounds of interval iteration without closing (or sooner, where the bounds
/// stop moving or after [`GATHER_SWEEPS`]), the open states are gathered into one worker and solved there in one piece,
/// if there are at most [`Options::gather`](crate::Options::gather) of them, and no more than a
/// worker's share of all the states or [`GATHER_ANYWAY`].
pub(super) const GATHER_AFTER: u64 = 16;

/// Or sooner, once the iteration has backed up each open state this many times on average
/// (where rounds are long: a dense part, whose every backup reads many successors).
pub(super) const GATHER_SWEEPS: f64 = 32.0;

/// So many open states may be gathered into one worker even beyond its share of the states.
const GATHER_ANYWAY: f64 = 262_144.0;

/// Which of a final value's `[v, lo, hi]` a solve takes for the ways out.
#[derive(Clone, Copy)]
enum Side {
    Value = 0,
    Lower = 1,
    Upper = 2,
}

/// The gathered states, at the worker that solves them.
pub(super) struct Gathering {
    /// The states, in the order they arrived: node `i` of the graph is `nodes[i]`.
    pub(super) nodes: Vec<Gathered>,
    /// The node each outcome leads to, in the order of the nodes' choices and outcomes
    /// (`EXIT` for a way out, `NAMELESS` for a link no state was named for).
    pub(super) targets: Vec<u32>,
}

/// In [`Gathering::targets`], an outcome that leads out of the gathered states.
pub(super) const EXIT: u32 = u32::MAX;
/// In [`Gathering::targets`], an outcome whose link names no gathered state.
pub(super) const NAMELESS: u32 = u32::MAX - 1;

impl Gathering {
    /// The graph of the gathered states with the ways out at `side` of their final values, or
    /// `None` where one of them is infinite on a move that may matter, or a link is not named.
    fn graph(&self, side: Side) -> Option<Graph> {
        let m = self.nodes.len() as u32;
        let mut at = 0;
        let mut graph = Graph::new();
        // The random moves of decisions: each a chance node of its own, after the states.
        let mut random: Vec<Vec<Outcome>> = Vec::new();
        let bounded = |(value, radius): (f64, f64)| Bounded { value, radius };
        for g in &self.nodes {
            let mut moves: Vec<(Bounded, Vec<Outcome>)> = Vec::new();
            for (reward, err, slots) in &g.choices {
                let mut outcomes = Vec::with_capacity(slots.len());
                let mut dropped = false;
                let targets = &self.targets[at..at + slots.len()];
                at += slots.len();
                for (slot, &target) in slots.iter().zip(targets) {
                    let to = match slot.to {
                        Ok(_) if target == NAMELESS => return None,
                        Ok(_) => Target::Node(target),
                        Err(b) => {
                            let x = b[side as usize];
                            if !x.is_finite() {
                                // A way out to an endless play's worth: a move its player
                                // never takes (none other can be solved here).
                                let worst = match g.max {
                                    Some(true) => f64::NEG_INFINITY,
                                    Some(false) => f64::INFINITY,
                                    None => return None,
                                };
                                if b[1] == worst && b[2] == worst {
                                    dropped = true;
                                    break;
                                }
                                return None;
                            }
                            Target::Exit(Bounded::exact(x))
                        }
                    };
                    outcomes.push(Outcome {
                        probability: bounded(slot.p),
                        reward: bounded(slot.r),
                        to,
                    });
                }
                if !dropped {
                    moves.push((bounded((*reward, *err)), outcomes));
                }
            }
            match g.max {
                None => {
                    // A chance node's own reward goes onto each of its outcomes.
                    let (reward, outcomes) = moves.pop()?;
                    graph.add_chance(outcomes.into_iter().map(|o| Outcome {
                        reward: o.reward.add(&reward),
                        ..o
                    }));
                }
                Some(max) => {
                    if moves.is_empty() {
                        return None;
                    }
                    let player = if max { Player::Max } else { Player::Min };
                    let mut edges = Vec::with_capacity(moves.len());
                    for (reward, outcomes) in moves {
                        let plain = outcomes.len() == 1
                            && outcomes[0].probability.value == 1.0
                            && outcomes[0].probability.radius == 0.0;
                        if plain {
                            edges.push((reward.add(&outcomes[0].reward), outcomes[0].to));
                        } else {
                            edges.push((reward, Target::Node(m + random.len() as u32)));
                            random.push(outcomes);
                        }
                    }
                    graph.add_decision(player, edges);
                }
            }
        }
        for outcomes in random {
            graph.add_chance(outcomes);
        }
        Some(graph)
    }

    /// The gathered states `nodes`, their links found by `names`: the state (owner, number)
    /// each waiting link (worker, link) stands for.
    fn new(nodes: Vec<Gathered>, names: &HashMap<(u32, u32), (u32, u32)>) -> Gathering {
        let index: HashMap<(u32, u32), u32> = (nodes.iter().enumerate())
            .map(|(i, g)| ((g.owner, g.state), i as u32))
            .collect();
        let slots = nodes.iter().flat_map(|g| {
            (g.choices.iter()).flat_map(move |(_, _, slots)| slots.iter().map(move |s| (g, s)))
        });
        let targets = slots
            .map(|(g, slot)| match slot.to {
                Ok(link) => (names.get(&(g.owner, link)))
                    .and_then(|state| index.get(state))
                    .map_or(NAMELESS, |&i| i),
                Err(_) => EXIT,
            })
            .collect();
        Gathering { nodes, targets }
    }

    /// How far the finite ways out's values lie above their lower bounds and below their
    /// upper bounds, at most.
    fn spread(&self) -> (f64, f64) {
        let exits = (self.nodes.iter())
            .flat_map(|g| g.choices.iter().flat_map(|(_, _, slots)| slots))
            .filter_map(|slot| slot.to.err())
            .filter(|b| b[0].is_finite());
        exits.fold((0.0, 0.0), |(below, above), [v, lo, hi]| {
            (f64::max(below, v - lo), f64::max(above, hi - v))
        })
    }

    /// Each gathered state's `[v, lo, hi]`, or `None` where the graph cannot be solved here.
    fn solve(&self, endless: Option<Player>, precision: f64) -> Option<Vec<[f64; 3]>> {
        // A value moves no more than the ways out do (a play leaves once at most): where they
        // are known closely, the solve at their values bounds the values at once.
        let (below, above) = self.spread();
        if below.max(above) <= SPREAD * precision {
            let v = self.graph(Side::Value)?.solve(endless).ok()?;
            let widen = |d: f64, e: f64| (d + e) * (1.0 + 4.0 * f64::EPSILON);
            return (v.values.iter().zip(&v.error_bounds))
                .map(|(&x, &e)| {
                    let lower = (x - widen(below, e)).next_down();
                    let upper = (x + widen(above, e)).next_up();
                    (lower.is_finite() && upper.is_finite()).then_some([x, lower, upper])
                })
                .collect();
        }
        let mut solved = Vec::with_capacity(3);
        for side in [Side::Value, Side::Lower, Side::Upper] {
            solved.push(self.graph(side)?.solve(endless).ok()?);
        }
        let (v, lo, hi) = (&solved[0], &solved[1], &solved[2]);
        (0..self.nodes.len())
            .map(|i| {
                let lower = (lo.values[i] - lo.error_bounds[i]).next_down();
                let upper = (hi.values[i] + hi.error_bounds[i]).next_up();
                (lower.is_finite() && upper.is_finite() && lower <= upper)
                    .then(|| [v.values[i].clamp(lower, upper), lower, upper])
            })
            .collect()
    }
}

impl Work<'_> {
    /// Sets how many open states may be gathered, of `states` in all: no more than a worker's
    /// share of them, or few in any case (and within the limit asked).
    pub(super) fn limit_gathering(&mut self, states: f64) {
        let share = (states / self.rounds.peers as f64).max(GATHER_ANYWAY);
        self.gather_limit = (self.options.gather as f64).min(share);
    }

    /// What an error `e` of the iteration comes to (one that every worker meets alike: a
    /// refusal): the open states solved in one piece, if that was not `tried` yet and they are
    /// few enough (`Ok(true)`), else the error.
    pub(super) fn direct_or(
        &mut self,
        worker: &mut Worker,
        open: &[usize],
        open_total: f64,
        tried: bool,
        e: DistError,
    ) -> Result<bool, DistError> {
        match !tried && self.try_direct(worker, open, open_total)? {
            true => Ok(true),
            false => Err(e),
        }
    }

    /// The open states solved in one piece, where there are few enough of them
    /// (`open_total`, in all workers); returns whether they were.
    pub(super) fn try_direct(
        &mut self,
        worker: &mut Worker,
        open: &[usize],
        open_total: f64,
    ) -> Result<bool, DistError> {
        let solved = open_total <= self.gather_limit && self.solve_open_directly(worker, open)?;
        if solved {
            self.queue.clear();
        }
        Ok(solved)
    }

    /// Sends `states` to the worker that solves gathered states, each with the links that
    /// wait for its value, for the round that follows.
    pub(super) fn send_gathered(&mut self, states: &[usize]) {
        let me = self.rounds.index;
        for &s in states {
            for &(at, link) in self.part.preds.of(s) {
                self.out.push(Msg {
                    to: SOLVER,
                    body: Body::Name {
                        owner: me,
                        at,
                        link,
                        state: s as u32,
                    },
                });
            }
            self.out.push(Msg {
                to: SOLVER,
                body: Body::Node(Box::new(self.part.gathered(me, s))),
            });
        }
    }

    /// At the worker that solves them, the states gathered by the round after
    /// [`Work::send_gathered`], taken from what the round brought.
    pub(super) fn gathering(&mut self) -> Gathering {
        let (mut nodes, mut names) = (Vec::new(), HashMap::new());
        for m in self.out.drain(..) {
            match m.body {
                Body::Name {
                    owner,
                    at,
                    link,
                    state,
                } => {
                    names.insert((at, link), (owner, state));
                }
                Body::Node(g) => nodes.push(*g),
                _ => {}
            }
        }
        Gathering::new(nodes, &names)
    }

    /// Gathers the open states into one worker and solves them there in one piece; returns
    /// whether that worked (then every state is final and the links hold its values), in
    /// every worker alike. Three rounds: the states go to the solver; their values come back;
    /// the values go on to the links that wait for them.
    pub(super) fn solve_open_directly(
        &mut self,
        worker: &mut Worker,
        open: &[usize],
    ) -> Result<bool, DistError> {
        let me = self.rounds.index;
        self.send_gathered(open);
        self.round(worker, None, [0.0; FIGURES])?;
        let mut figures = [0.0; FIGURES];
        if me == SOLVER {
            let gathering = self.gathering();
            if let Some(values) =
                gathering.solve(self.model.endless_play_loser(), self.options.precision)
            {
                figures[0] = 1.0;
                for (g, [v, lo, hi]) in gathering.nodes.iter().zip(values) {
                    self.out.push(Msg {
                        to: g.owner,
                        body: Body::Solved {
                            state: g.state,
                            v,
                            lo,
                            hi,
                        },
                    });
                }
            }
        }
        let statuses = self.round(worker, None, figures)?;
        if statuses.iter().all(|s| s.figures[0] == 0.0) {
            self.out.clear();
            return Ok(false);
        }
        for m in std::mem::take(&mut self.out) {
            if let Body::Solved { state, v, lo, hi } = m.body {
                let (p, s) = (&mut self.part, state as usize);
                p.lo[s] = p.lo[s].max(lo);
                p.hi[s] = p.hi[s].min(hi).max(p.lo[s]);
                p.v[s] = v.clamp(p.lo[s], p.hi[s]);
                p.fin[s] = true;
            }
        }
        for &s in open {
            self.send(s);
        }
        while let Some(m) = self.local.pop() {
            self.receive(m);
        }
        self.round(worker, None, [0.0; FIGURES])?;
        for m in std::mem::take(&mut self.out) {
            self.receive(m);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::GatheredSlot;

    /// A walk between two states, each leaving (with probability 1/4 a step) to a way out
    /// known only within bounds, the other to a way out that is exact: the values are the
    /// exits' averages, weighed by where the walk leaves.
    fn walk(out: [f64; 3]) -> Gathering {
        let slot = |p: f64, to| GatheredSlot {
            p: (p, 0.0),
            r: (0.0, 0.0),
            to,
        };
        let node = |state: u32, other: u32, exit: [f64; 3]| Gathered {
            owner: 0,
            state,
            max: None,
            choices: vec![(0.0, 0.0, vec![slot(0.75, Ok(other)), slot(0.25, Err(exit))])],
        };
        // Link `l` of worker 0 stands for its state `l`.
        let names = [((0, 0), (0, 0)), ((0, 1), (0, 1))].into();
        Gathering::new(vec![node(0, 1, out), node(1, 0, [0.0; 3])], &names)
    }

    /// From state 0 the walk leaves by its own way out with probability 4/7, from state 1
    /// with 3/7; the bounds follow the way out's bounds, solved once where they are close
    /// and three times where they are not.
    #[test]
    fn the_ways_out_bound_the_values_once_or_three_times() {
        let (p0, p1) = (4.0 / 7.0, 3.0 / 7.0);
        for (out, precision) in [([1.0, 1.0, 1.0], 1e-9), ([1.0, 0.5, 2.0], 1e-9)] {
            let solved = walk(out).solve(None, precision).unwrap();
            for (&[v, lo, hi], p) in solved.iter().zip([p0, p1]) {
                assert!((v - p * out[0]).abs() < 1e-12, "{v}");
                // Three solves give each state its own bounds: p times the way out's.
                assert!((lo - p * out[1]).abs() < 1e-12 && lo <= p * out[1], "{lo}");
                assert!((hi - p * out[2]).abs() < 1e-12 && hi >= p * out[2], "{hi}");
            }
        }
        // One solve, the way out's spread allowed by a coarse precision: the widest spread
        // about each value.
        let solved = walk([1.0, 0.5, 2.0]).solve(None, 1e4).unwrap();
        for (&[v, lo, hi], p) in solved.iter().zip([p0, p1]) {
            assert!((v - p).abs() < 1e-12, "{v}");
            assert!(lo <= p * 0.5 && (lo - (p - 0.5)).abs() < 1e-12, "{lo}");
            assert!(hi >= p * 2.0 && (hi - (p + 1.0)).abs() < 1e-12, "{hi}");
        }
    }
}
