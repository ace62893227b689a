//! An independent checker of values and strategies, in exact arithmetic.
//!
//! It shares no code with the solvers: it explores the model again with its own map, and checks
//! three facts at every reachable state.
//! 1. **Optimality equations.** A terminal's value is its payoff; a chance node's value is
//!    `Σ p (r + v')`; a decision's value is the best move value for its player, where a move is
//!    worth `r + v'`, or `R + Σ p (r + v')` for a random move with reward `R`.
//! 2. **The strategy attains them.** At every decision the strategy's move is worth the
//!    state's value.
//! 3. **The strategy ends the game.** In the chain that the strategy leaves (chance plus the
//!    chosen moves), every state reaches a terminal state.
//!
//! Together these certify the result. By (2) and (3) the values are those of the strategy
//! (a chain that ends with probability one has a unique solution of `v = r + P v`). By (1), for
//! a one-player game and any other strategy `μ` that ends the game, `v ≤ T_μ v ≤ … → v_μ`
//! (for Min; reversed for Max), so no such strategy does better. For two players in a game
//! where every play ends, (1) makes `v` the unique fixed point of each player's best-response
//! problem against the other's strategy, so neither can gain by deviating.

use std::collections::HashMap;
use std::hash::Hash;

use crate::{Exact, Model, Node, NodeKind, Number, Player, Solution};

/// What the checker looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Reachable states checked.
    pub states: usize,
    /// Decision states among them.
    pub decisions: usize,
}

/// Checks values and a strategy against a model (see the module documentation).
///
/// `value` gives the claimed value of a state and `choice` the index of the move the strategy
/// plays at a decision (in the model's order). The error names the first state that fails.
pub fn verify<M: Model>(
    model: &M,
    value: impl Fn(&M::State) -> Option<Exact>,
    choice: impl Fn(&M::State) -> Option<usize>,
) -> Result<Verified, String> {
    let mut index: HashMap<M::State, usize> = HashMap::new();
    let mut order: Vec<M::State> = Vec::new();
    let mut succ: Vec<Vec<usize>> = Vec::new();
    let mut terminal: Vec<bool> = Vec::new();
    let start = model.start();
    index.insert(start.clone(), 0);
    order.push(start);
    let mut decisions = 0;
    let mut node = Node::new();
    let mut i = 0;
    while i < order.len() {
        let s = order[i].clone();
        let name = model.show_state(&s);
        node.clear();
        model.expand(&s, &mut node);
        node.validate()
            .map_err(|e| format!("state {name}: invalid node: {e}"))?;
        let v = value(&s).ok_or_else(|| format!("state {name}: no value given"))?;
        let mut q = Vec::new();
        let mut next = Vec::new();
        for b in node.branches() {
            let vn = value(&b.next)
                .ok_or_else(|| format!("state {}: no value given", model.show_state(&b.next)))?;
            q.push(Exact::from_rat(b.reward).add(&vn));
            let id = match index.get(&b.next) {
                Some(&id) => id,
                None => {
                    index.insert(b.next.clone(), order.len());
                    order.push(b.next.clone());
                    order.len() - 1
                }
            };
            next.push(id);
        }
        let mut used = next.clone();
        match node.kind() {
            NodeKind::Terminal => {
                let p = Exact::from_rat(node.payoff());
                if v != p {
                    return Err(format!("state {name}: value {v} but payoff {p}"));
                }
            }
            NodeKind::Chance => {
                let mut sum = Exact::zero();
                for (b, qb) in node.branches().iter().zip(&q) {
                    sum = sum.add(&Exact::from_rat(b.probability).mul(qb));
                }
                if v != sum {
                    return Err(format!("state {name}: value {v} but expectation {sum}"));
                }
            }
            NodeKind::Decision(player) => {
                decisions += 1;
                // A move's worth: its reward plus the expectation over its branches (one
                // branch of probability one for a plain move).
                let mut worth = Vec::new();
                let mut leaves = Vec::new();
                let mut at = 0;
                for m in node.moves() {
                    let mut w = Exact::from_rat(m.reward);
                    for (b, qb) in m.outcomes.iter().zip(&q[at..]) {
                        w = w.add(&Exact::from_rat(b.probability).mul(qb));
                    }
                    worth.push(w);
                    leaves.push(next[at..at + m.outcomes.len()].to_vec());
                    at += m.outcomes.len();
                }
                let q = worth;
                let best = q
                    .iter()
                    .cloned()
                    .reduce(|a, b| match player {
                        Player::Max => a.max(b),
                        Player::Min => a.min(b),
                    })
                    .expect("validated: a decision has moves");
                if v != best {
                    return Err(format!("state {name}: value {v} but best move {best}"));
                }
                let c = choice(&s).ok_or_else(|| format!("state {name}: no move chosen"))?;
                let qc = q
                    .get(c)
                    .ok_or_else(|| format!("state {name}: chosen move {c} does not exist"))?;
                if *qc != v {
                    return Err(format!(
                        "state {name}: chosen move {c} is worth {qc}, not {v}"
                    ));
                }
                used = leaves[c].clone();
            }
            NodeKind::Unset => unreachable!("validated"),
        }
        terminal.push(node.kind() == NodeKind::Terminal);
        succ.push(used);
        i += 1;
    }
    // (3) Every state reaches a terminal in the strategy's chain: backward search.
    let n = order.len();
    let mut preds = vec![Vec::new(); n];
    for (x, s) in succ.iter().enumerate() {
        for &y in s {
            preds[y].push(x);
        }
    }
    let mut ends: Vec<bool> = terminal.clone();
    let mut stack: Vec<usize> = (0..n).filter(|&x| terminal[x]).collect();
    while let Some(y) = stack.pop() {
        for &x in &preds[y] {
            if !ends[x] {
                ends[x] = true;
                stack.push(x);
            }
        }
    }
    if let Some(x) = ends.iter().position(|e| !e) {
        return Err(format!(
            "state {}: the strategy never ends the game from there",
            model.show_state(&order[x])
        ));
    }
    Ok(Verified {
        states: n,
        decisions,
    })
}

/// Checks an exact [`Solution`] with [`verify`].
pub fn verify_solution<M: Model>(
    model: &M,
    solution: &Solution<M::State, Exact>,
) -> Result<Verified, String>
where
    M::State: Hash + Eq,
{
    verify(
        model,
        |s| solution.value(s).cloned(),
        |s| solution.chosen(s),
    )
}

/// The exact value of the start state when every decision plays `choice` (a move index in the
/// model's order): an independent evaluation of a strategy, for instance one read back from an
/// exported file. It explores only the states the strategy reaches (at most `max_states`) and
/// solves `v = r + P v` on them by dense Gaussian elimination in exact arithmetic, so it is
/// meant for small games. It fails, naming a state, if the strategy has no move somewhere or
/// does not end the game with probability one.
pub fn evaluate_strategy<M: Model>(
    model: &M,
    choice: impl Fn(&M::State) -> Option<usize>,
    max_states: usize,
) -> Result<Exact, String> {
    let mut index: HashMap<M::State, usize> = HashMap::new();
    let mut order: Vec<M::State> = vec![model.start()];
    index.insert(order[0].clone(), 0);
    // Row x of the system: constant and (column, coefficient) pairs.
    let mut rows: Vec<(Exact, Vec<(usize, Exact)>)> = Vec::new();
    let mut node = Node::new();
    while rows.len() < order.len() {
        let s = order[rows.len()].clone();
        let name = model.show_state(&s);
        node.clear();
        model.expand(&s, &mut node);
        node.validate()
            .map_err(|e| format!("state {name}: invalid node: {e}"))?;
        let mut konst = Exact::from_rat(node.payoff());
        // The branches the strategy uses: all outcomes at chance, the chosen move's at a
        // decision (with the move's own reward).
        let used: Vec<usize> = match node.kind() {
            NodeKind::Terminal => Vec::new(),
            NodeKind::Chance => (0..node.branches().len()).collect(),
            NodeKind::Decision(_) => {
                let c = choice(&s).ok_or_else(|| format!("state {name}: no move chosen"))?;
                let m = node
                    .moves()
                    .nth(c)
                    .ok_or_else(|| format!("state {name}: chosen move {c} does not exist"))?;
                konst = konst.add(&Exact::from_rat(m.reward));
                let first = node.branches().iter().position(|b| b.group as usize == c);
                let first = first.expect("a move has branches");
                (first..first + m.outcomes.len()).collect()
            }
            NodeKind::Unset => unreachable!("validated"),
        };
        let mut coeffs = Vec::new();
        for i in used {
            let b = &node.branches()[i];
            let p = Exact::from_rat(b.probability);
            konst = konst.add(&p.mul(&Exact::from_rat(b.reward)));
            let id = match index.get(&b.next) {
                Some(&id) => id,
                None => {
                    if order.len() >= max_states {
                        return Err(format!(
                            "the strategy reaches more than {max_states} states"
                        ));
                    }
                    index.insert(b.next.clone(), order.len());
                    order.push(b.next.clone());
                    order.len() - 1
                }
            };
            coeffs.push((id, p));
        }
        rows.push((konst, coeffs));
    }
    // Dense (I - P) v = r, Gauss–Jordan with exact pivots.
    let n = order.len();
    let mut a = vec![vec![Exact::zero(); n + 1]; n];
    for (x, (konst, coeffs)) in rows.into_iter().enumerate() {
        a[x][x] = Exact::one();
        for (y, p) in coeffs {
            a[x][y] = a[x][y].sub(&p);
        }
        a[x][n] = konst;
    }
    for col in 0..n {
        let pivot = (col..n)
            .find(|&r| a[r][col] != Exact::zero())
            .ok_or_else(|| {
                format!(
                    "state {}: the strategy does not end the game with probability 1",
                    model.show_state(&order[col])
                )
            })?;
        a.swap(col, pivot);
        let inv = Exact::one().div(&a[col][col]);
        for k in col..=n {
            a[col][k] = a[col][k].mul(&inv);
        }
        for r in 0..n {
            if r != col && a[r][col] != Exact::zero() {
                let f = a[r][col].clone();
                for k in col..=n {
                    let d = f.mul(&a[col][k]);
                    a[r][k] = a[r][k].sub(&d);
                }
            }
        }
    }
    Ok(a[0][n].clone())
}
