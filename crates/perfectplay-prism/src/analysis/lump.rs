//! Lumping a Markov chain's query by probabilistic bisimulation, before an exact solve.
//!
//! Two states of a DTMC are *bisimilar* when they have the same known value (or none), the
//! same expected reward per step, and the same probability of moving into each class of
//! bisimilar states. Bisimilar states have the same value for every reachability
//! probability and expected reward, so the engine needs to solve only one state per class:
//! the query model's `rep` maps every state to its class's representative, and the
//! representative's outcomes lead to representatives. Symmetric models (herman's ring, where
//! a configuration and its rotations behave alike) shrink by the size of their symmetry
//! group, which is what makes a dense cyclic chain solvable in rationals.
//!
//! The classes are found by signature refinement: every round, a state's signature is its
//! class, its expected reward and the sorted list of (class, probability) of its outcomes;
//! states with equal signatures stay together. Every round only splits classes, and the
//! rounds stop when none splits: the partition is then a bisimulation (the coarsest one
//! that refines the first). The comparisons are exact, on the model's rational
//! probabilities. A chain that does not shrink to at most half its states in some round is
//! left as it is, so a model without symmetry pays a round or two.

use perfectplay::Rat;
use rustc_hash::FxHashMap;

use crate::analysis::query::QueryModel;

/// A state's signature: its class, its expected reward per step, and its outcomes'
/// classes with their probabilities (sorted by class, one entry per class).
type Signature = (u32, Rat, Vec<(u32, Rat)>);

/// `model` with bisimilar states lumped (see the module docs), where it is a DTMC whose
/// states stand for themselves and lumping shrinks it to at most half its states; `model` as it was
/// otherwise. The values at the start and at every state are those of `model`.
pub(crate) fn lumped(mut model: QueryModel<'_>) -> QueryModel<'_> {
    if !model.dtmc || !model.members.is_empty() || model.step.is_some() || model.total_game {
        return model;
    }
    if let Some(rep) = classes(&model) {
        if let Some(&start) = rep.get(model.start as usize) {
            model.start = start;
        }
        model.rep = rep;
    }
    model
}

/// Each state's representative (the least state of its class), or `None` where lumping
/// does not pay (or a sum of probabilities leaves the machine-word fractions).
fn classes(model: &QueryModel<'_>) -> Option<Vec<u32>> {
    let space = model.space;
    let n = space.len();
    // The first classes: one per known value, and one for every open state.
    let mut known: FxHashMap<Rat, u32> = FxHashMap::default();
    let mut class: Vec<u32> = (0..n)
        .map(|s| match model.fixed_value(s) {
            Some(v) => {
                let next = known.len() as u32 + 1;
                *known.entry(v).or_insert(next)
            }
            None => 0,
        })
        .collect();
    // Classes of open states are numbered from `fresh` on, below `n + 2`.
    let fresh = known.len() as u32 + 1;
    let mut count = known.len() + usize::from(class.contains(&0));
    let mut outs: Vec<(u32, Rat)> = Vec::new();
    let mut sums: Vec<Option<Rat>> = vec![None; n + 2];
    loop {
        let mut numbered: FxHashMap<Signature, u32> = FxHashMap::default();
        let mut next = vec![0u32; n];
        for s in 0..n {
            if class[s] != 0 && class[s] < fresh {
                // A state of known value keeps its class.
                next[s] = class[s];
                continue;
            }
            let reward = signature(model, s as u32, &class, &mut sums, &mut outs)?;
            let key = (class[s], reward, std::mem::take(&mut outs));
            next[s] = match numbered.get(&key) {
                Some(&c) => {
                    outs = key.2;
                    c
                }
                None => {
                    let c = fresh + numbered.len() as u32;
                    numbered.insert(key, c);
                    c
                }
            };
            if known.len() + numbered.len() > n / 2 {
                return None;
            }
        }
        let now = known.len() + numbered.len();
        class = next;
        if now == count {
            break;
        }
        count = now;
    }
    let mut first = vec![u32::MAX; n + 2];
    Some(
        (0..n as u32)
            .map(|s| {
                let f = &mut first[class[s as usize] as usize];
                if *f == u32::MAX {
                    *f = s;
                }
                *f
            })
            .collect(),
    )
}

/// State `s`'s expected reward per step, with its outcomes' classes and probabilities
/// (summed per class, sorted by class) in `outs`; `None` where a sum leaves the word-sized
/// fractions (the lumping is then given up, and `sums` not cleared). `sums` is a scratch
/// sum per class, all `None` between calls.
fn signature(
    model: &QueryModel<'_>,
    s: u32,
    class: &[u32],
    sums: &mut [Option<Rat>],
    outs: &mut Vec<(u32, Rat)>,
) -> Option<Rat> {
    let space = model.space;
    outs.clear();
    let choices = space.choices_of(s);
    let k = choices.len();
    let share = Rat::new(1, k.max(1) as i64);
    let mut reward = Rat::ZERO;
    for c in choices {
        let r = model.reward_of(c);
        reward = reward + if k == 1 { r } else { r * share };
        for &(p, t) in space.outcomes_of(c) {
            let p = space.probability(p);
            let p = if k == 1 { p } else { p * share };
            let to = class[t as usize];
            let sum = &mut sums[to as usize];
            *sum = Some(match *sum {
                None => {
                    outs.push((to, Rat::ZERO));
                    p
                }
                Some(q) => q + p,
            });
        }
    }
    for (to, p) in outs.iter_mut() {
        *p = sums[*to as usize]
            .take()
            .expect("a class listed has its sum");
    }
    outs.sort_unstable_by_key(|&(c, _)| c);
    Some(reward)
}
