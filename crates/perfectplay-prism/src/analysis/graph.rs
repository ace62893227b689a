//! Graph analyses of a built state space, before any number is computed: which states reach a
//! target with probability zero or one under some or every scheduler, and the maximal end
//! components (sets of states a scheduler can keep the play in for ever). The quantitative
//! solve needs them: a state whose value is decided here is no unknown there, and an end
//! component, collapsed to one state, can no longer trap a strategy.
//!
//! The algorithms are the standard ones (Baier and Katoen, *Principles of Model Checking*,
//! 10.6): attractors, the nested fixed points of `Prob1E` and `Prob1A`, and the iterated
//! strongly-connected-component refinement of maximal end components. For a stochastic game
//! each state's choices belong to an ally or an adversary of reaching the target ([`Side`]),
//! which makes the same fixed points the game's.

use crate::build::Space;

/// For each state, the choices that lead into it: `pred[start[t]..start[t + 1]]` are the
/// choices with an outcome `t`.
pub struct Predecessors {
    start: Vec<u32>,
    choices: Vec<u32>,
    /// The state of each choice.
    pub owner: Vec<u32>,
}

impl Predecessors {
    /// The predecessor lists of `space`.
    pub fn new(space: &Space) -> Predecessors {
        let n = space.len();
        let mut owner = vec![0u32; space.choices.len()];
        let mut count = vec![0u32; n + 1];
        for s in 0..n as u32 {
            for c in space.choices_of(s) {
                owner[c] = s;
                for &(_, t) in space.outcomes_of(c) {
                    count[t as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut choices = vec![0u32; count[n] as usize];
        for (c, &s) in owner.iter().enumerate() {
            let _ = s;
            for &(_, t) in space.outcomes_of(c) {
                choices[fill[t as usize] as usize] = c as u32;
                fill[t as usize] += 1;
            }
        }
        Predecessors {
            start: count,
            choices,
            owner,
        }
    }

    /// The choices with an outcome `t` (a choice may appear more than once).
    pub fn of(&self, t: u32) -> &[u32] {
        &self.choices[self.start[t as usize] as usize..self.start[t as usize + 1] as usize]
    }
}

/// Who resolves the choices of a state, for the analyses of reaching a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A scheduler (or player) that wants the target: some choice is enough.
    Ally,
    /// One that does not: every choice must lead there.
    Adversary,
    /// Chance (a DTMC's choices are mixed uniformly): every choice is taken.
    Chance,
}

/// The states from which `target` (itself included) is reached with positive probability
/// along `through` states, when each state's choices are resolved by `side` (the attractor):
/// a state joins once some choice can lead into the set (an ally or chance), or every one
/// can (an adversary).
pub fn reach(
    space: &Space,
    pred: &Predecessors,
    target: &[bool],
    through: &[bool],
    side: impl Fn(u32) -> Side,
) -> Vec<bool> {
    let none = vec![false; space.choices.len()];
    attract(space, pred, target, &none, through, side)
}

/// The states from which a choice of `taken` is taken with positive probability along
/// `through` states (itself one of them), when each state's choices are resolved by `side`:
/// [`reach`] with choices for its target (an adversary's state joins once each of its choices
/// is in `taken` or can lead into the set).
pub(crate) fn reach_choice(
    space: &Space,
    pred: &Predecessors,
    taken: &[bool],
    through: &[bool],
    side: impl Fn(u32) -> Side,
) -> Vec<bool> {
    attract(space, pred, &vec![false; space.len()], taken, through, side)
}

/// The attractor of the states `target` and the choices `taken` (see [`reach`] and
/// [`reach_choice`]).
fn attract(
    space: &Space,
    pred: &Predecessors,
    target: &[bool],
    taken: &[bool],
    through: &[bool],
    side: impl Fn(u32) -> Side,
) -> Vec<bool> {
    let n = space.len();
    let mut inside = target.to_vec();
    let mut hit = taken.to_vec();
    let mut left: Vec<u32> = (0..n as u32)
        .map(|s| space.choices_of(s).len() as u32)
        .collect();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| target[s as usize]).collect();
    for s in 0..n as u32 {
        let choices = space.choices_of(s);
        let some = choices.clone().filter(|&c| taken[c]).count() as u32;
        left[s as usize] -= some;
        let joins = match side(s) {
            Side::Ally | Side::Chance => some > 0,
            Side::Adversary => left[s as usize] == 0 && some > 0,
        };
        if joins && !inside[s as usize] && through[s as usize] {
            inside[s as usize] = true;
            stack.push(s);
        }
    }
    while let Some(t) = stack.pop() {
        for &c in pred.of(t) {
            if hit[c as usize] {
                continue;
            }
            hit[c as usize] = true;
            let s = pred.owner[c as usize];
            left[s as usize] -= 1;
            let joins = match side(s) {
                Side::Ally | Side::Chance => true,
                Side::Adversary => left[s as usize] == 0,
            };
            if joins && !inside[s as usize] && through[s as usize] {
                inside[s as usize] = true;
                stack.push(s);
            }
        }
    }
    inside
}

/// The states from which `target` is reached with probability one along `through` states,
/// when each state's choices are resolved by `side` (a nested fixed point: the states that
/// reach the target with positive probability without the risk of leaving the candidates,
/// until the candidates stay the same; `Prob1E` for an ally, `Prob1A` for an adversary).
pub fn almost_sure(
    space: &Space,
    pred: &Predecessors,
    target: &[bool],
    through: &[bool],
    side: impl Fn(u32) -> Side,
) -> Vec<bool> {
    almost_sure_using(space, pred, target, through, side, usize::MAX, |_| true)
        .expect("no limit on the rounds")
}

/// [`almost_sure`] in at most `rounds` rounds of the outer fixed point (each a pass over the
/// space), or `None` if it needs more, with only the choices that `usable` admits: a state's
/// other choices do not exist for the analysis.
pub fn almost_sure_using(
    space: &Space,
    pred: &Predecessors,
    target: &[bool],
    through: &[bool],
    side: impl Fn(u32) -> Side,
    rounds: usize,
    usable: impl Fn(usize) -> bool,
) -> Option<Vec<bool>> {
    let n = space.len();
    let mut keep: Vec<bool> = (0..n).map(|s| target[s] || through[s]).collect();
    for _ in 0..rounds {
        let stays =
            |c: usize, keep: &[bool]| space.outcomes_of(c).iter().all(|&(_, u)| keep[u as usize]);
        // An adversary or chance must not be able to leave the candidates at all.
        let safe: Vec<bool> = (0..n as u32)
            .map(|s| match side(s) {
                Side::Ally => true,
                Side::Adversary | Side::Chance => space
                    .choices_of(s)
                    .filter(|&c| usable(c))
                    .all(|c| stays(c, &keep)),
            })
            .collect();
        let mut reach = target.to_vec();
        let mut hit = vec![false; space.choices.len()];
        let mut left: Vec<u32> = (0..n as u32)
            .map(|s| space.choices_of(s).filter(|&c| usable(c)).count() as u32)
            .collect();
        let mut stack: Vec<u32> = (0..n as u32).filter(|&s| target[s as usize]).collect();
        while let Some(t) = stack.pop() {
            for &c in pred.of(t) {
                if hit[c as usize] || !usable(c as usize) {
                    continue;
                }
                hit[c as usize] = true;
                let s = pred.owner[c as usize];
                let su = s as usize;
                if reach[su] || !keep[su] || !safe[su] {
                    continue;
                }
                left[su] -= 1;
                let joins = match side(s) {
                    Side::Ally => stays(c as usize, &keep),
                    Side::Chance => true,
                    Side::Adversary => left[su] == 0,
                };
                if joins {
                    reach[su] = true;
                    stack.push(s);
                }
            }
        }
        if reach == keep {
            return Some(keep);
        }
        keep = reach;
    }
    None
}

/// The maximal end components among the states `within`, using only the choices `allowed`
/// (a choice counts only if every outcome stays in the component): each as its states.
pub fn end_components(
    space: &Space,
    pred: &Predecessors,
    within: &[bool],
    allowed: &[bool],
) -> Vec<Vec<u32>> {
    let n = space.len();
    let mut alive: Vec<bool> = within.to_vec();
    let mut usable: Vec<bool> = allowed.to_vec();
    // The component each state was last found in; choices leaving it are dropped.
    let mut comp = vec![u32::MAX; n];
    loop {
        // Drop the choices that leave the live states (or their component), then, one after
        // the other, the states left without a choice and the choices that lead into them.
        let mut count = vec![0u32; n];
        let mut dead = Vec::new();
        for s in 0..n as u32 {
            if !alive[s as usize] {
                for c in space.choices_of(s) {
                    usable[c] = false;
                }
                continue;
            }
            for c in space.choices_of(s) {
                if usable[c]
                    && space
                        .outcomes_of(c)
                        .iter()
                        .any(|&(_, t)| !alive[t as usize] || comp[t as usize] != comp[s as usize])
                {
                    usable[c] = false;
                }
                count[s as usize] += usable[c] as u32;
            }
            if count[s as usize] == 0 {
                dead.push(s);
            }
        }
        while let Some(t) = dead.pop() {
            if !alive[t as usize] {
                continue;
            }
            alive[t as usize] = false;
            for &c in pred.of(t) {
                if usable[c as usize] {
                    usable[c as usize] = false;
                    let s = pred.owner[c as usize] as usize;
                    count[s] -= 1;
                    if count[s] == 0 && alive[s] {
                        dead.push(s as u32);
                    }
                }
            }
        }
        let next = sccs(space, &alive, &usable);
        let stable = (0..n).all(|s| !alive[s] || next[s] == comp[s]);
        comp = next;
        if stable {
            break;
        }
    }
    let mut groups: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for s in 0..n as u32 {
        if alive[s as usize] {
            groups.entry(comp[s as usize]).or_default().push(s);
        }
    }
    groups.into_values().collect()
}

/// The strongly connected components of the live states over the usable choices (iterative
/// Tarjan): each live state's component number.
pub(crate) fn sccs(space: &Space, alive: &[bool], usable: &[bool]) -> Vec<u32> {
    let n = space.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on = vec![false; n];
    let mut comp = vec![u32::MAX; n];
    let mut stack = Vec::new();
    let mut next_index = 0u32;
    let mut next_comp = 0u32;
    let succ = |s: u32| -> Vec<u32> {
        space
            .choices_of(s)
            .filter(|&c| usable[c])
            .flat_map(|c| space.outcomes_of(c).iter().map(|&(_, t)| t))
            .filter(|&t| alive[t as usize])
            .collect()
    };
    for root in 0..n as u32 {
        if !alive[root as usize] || index[root as usize] != u32::MAX {
            continue;
        }
        let mut frames: Vec<(u32, Vec<u32>, usize)> = vec![(root, succ(root), 0)];
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on[root as usize] = true;
        while let Some((s, out, i)) = frames.last_mut() {
            let s = *s;
            if *i < out.len() {
                let t = out[*i];
                *i += 1;
                if index[t as usize] == u32::MAX {
                    index[t as usize] = next_index;
                    low[t as usize] = next_index;
                    next_index += 1;
                    stack.push(t);
                    on[t as usize] = true;
                    let o = succ(t);
                    frames.push((t, o, 0));
                } else if on[t as usize] {
                    low[s as usize] = low[s as usize].min(index[t as usize]);
                }
            } else {
                frames.pop();
                if let Some((p, _, _)) = frames.last() {
                    low[*p as usize] = low[*p as usize].min(low[s as usize]);
                }
                if low[s as usize] == index[s as usize] {
                    loop {
                        let t = stack.pop().expect("on the stack");
                        on[t as usize] = false;
                        comp[t as usize] = next_comp;
                        if t == s {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// The `open` states reached from `initial` through `open` states.
pub(crate) fn reachable(space: &Space, initial: &[u32], open: &[bool]) -> Vec<bool> {
    let mut seen = vec![false; space.len()];
    let mut stack: Vec<u32> = initial
        .iter()
        .copied()
        .filter(|&i| open[i as usize])
        .collect();
    for &s in &stack {
        seen[s as usize] = true;
    }
    while let Some(s) = stack.pop() {
        for c in space.choices_of(s) {
            for &(_, t) in space.outcomes_of(c) {
                if open[t as usize] && !seen[t as usize] {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
    }
    seen
}
