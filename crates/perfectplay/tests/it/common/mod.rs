//! Random small games and a brute-force solver that shares no code with the engine.
#![allow(dead_code)]

pub mod models;

use perfectplay::{Exact, Model, NodeBuilder, Number, Player, Rat};

/// The library's seeded generator with the helpers the tests need, so that failures
/// reproduce from the seed.
pub struct Rng {
    inner: perfectplay::Rng,
}

/// A generator with this seed (named like the type, so that `Rng(seed)` reads as a value).
#[allow(non_snake_case)]
pub fn Rng(seed: u64) -> Rng {
    Rng {
        inner: perfectplay::Rng::new(seed),
    }
}

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.inner.next_u64()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
}

#[derive(Clone, Debug)]
pub enum GNode {
    Terminal(Rat),
    Decision(Player, Vec<(Rat, usize)>),
    /// A decision whose moves may be random (a reward, then chance over outcomes).
    Mixed(Player, Vec<GMove>),
    Chance(Vec<(Rat, Rat, usize)>),
}

/// Outcomes of chance: (probability, reward, target).
pub type Outcomes = Vec<(Rat, Rat, usize)>;

#[derive(Clone, Debug)]
pub enum GMove {
    Plain(Rat, usize),
    Random(Rat, Outcomes),
}

impl GNode {
    /// The moves of a decision as (move reward, outcomes); a plain move has one outcome of
    /// probability one carrying its reward.
    pub fn moves(&self) -> Vec<(Rat, Outcomes)> {
        match self {
            GNode::Decision(_, moves) => moves
                .iter()
                .map(|&(r, t)| (Rat::ZERO, vec![(Rat::ONE, r, t)]))
                .collect(),
            GNode::Mixed(_, moves) => moves
                .iter()
                .map(|m| match m {
                    GMove::Plain(r, t) => (Rat::ZERO, vec![(Rat::ONE, *r, *t)]),
                    GMove::Random(r, outs) => (*r, outs.clone()),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn player(&self) -> Option<Player> {
        match self {
            GNode::Decision(p, _) | GNode::Mixed(p, _) => Some(*p),
            _ => None,
        }
    }
}

/// A game given as an explicit table; state 0 is the start.
#[derive(Clone, Debug)]
pub struct Table(pub Vec<GNode>);

impl Model for Table {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        0
    }
    fn expand(&self, s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
        match &self.0[*s] {
            GNode::Terminal(p) => node.terminal(*p),
            GNode::Decision(player, moves) => {
                node.decision(*player);
                for (i, (r, t)) in moves.iter().enumerate() {
                    node.add_move(i, *r, *t);
                }
            }
            GNode::Mixed(player, moves) => {
                node.decision(*player);
                for (i, m) in moves.iter().enumerate() {
                    match m {
                        GMove::Plain(r, t) => node.add_move(i, *r, *t),
                        GMove::Random(r, outs) => {
                            node.add_random_move(i, *r);
                            for (j, (p, r, t)) in outs.iter().enumerate() {
                                node.add_outcome(100 + j, *p, *r, *t);
                            }
                        }
                    }
                }
            }
            GNode::Chance(outs) => {
                node.chance();
                for (i, (p, r, t)) in outs.iter().enumerate() {
                    node.add_outcome(i, *p, *r, *t);
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every edge goes to a higher-numbered state.
    Acyclic,
    /// Only chance nodes have backward edges, and each of those ends the game directly with
    /// probability at least 1/5, so every play ends whatever the players do.
    Stopping,
    /// One player, backward moves allowed (self-loops too); rewards have the sign that makes
    /// looping unattractive, so values exist; chance nodes with backward edges can end directly.
    Loops,
    /// A reachability game: backward moves allowed for both players, no rewards, terminal
    /// payoffs of zero or more (an endless play is worth zero, the least).
    Reach,
}

/// Random probabilities: weights 1..=4 normalised exactly.
fn probs(rng: &mut Rng, k: usize) -> Vec<Rat> {
    let w: Vec<i64> = (0..k).map(|_| rng.range(1, 4)).collect();
    let total: i64 = w.iter().sum();
    w.iter().map(|&x| Rat::new(x, total)).collect()
}

/// A random game with `inner` non-terminal states and a few terminals after them.
pub fn random_game(rng: &mut Rng, inner: usize, shape: Shape, players: &[Player]) -> Table {
    let terminals = 3;
    let n = inner + terminals;
    let mut nodes = Vec::with_capacity(n);
    let reward = |rng: &mut Rng, player: Option<Player>| -> Rat {
        let (n, d) = (rng.range(-3, 3), rng.range(1, 2));
        let r = Rat::new(n, d);
        match (shape, player) {
            (Shape::Loops, Some(Player::Min)) => Rat::new(n.abs(), d),
            (Shape::Loops, Some(Player::Max)) => Rat::new(-n.abs(), d),
            (Shape::Reach, _) => Rat::ZERO,
            _ => r,
        }
    };
    let solo = players.len() == 1;
    for x in 0..inner {
        let forward = |rng: &mut Rng| x + 1 + rng.below(n - x - 1);
        // Outcomes of chance at state x (a chance node or a random move), with a direct way out
        // whenever one may go back.
        let outcomes = |rng: &mut Rng, player: Option<Player>| -> Outcomes {
            let k = 1 + rng.below(3);
            let back_allowed = shape != Shape::Acyclic && rng.chance(1, 2);
            let mut targets: Vec<usize> = (0..k)
                .map(|_| {
                    if back_allowed && rng.chance(1, 2) {
                        rng.below(x + 1)
                    } else {
                        forward(rng)
                    }
                })
                .collect();
            if back_allowed {
                // A direct way out, so that cycles through chance always end.
                targets.push(inner + rng.below(terminals));
            }
            let mut ps = probs(rng, targets.len());
            if back_allowed {
                // Make the exit at least 1/5: replace the weights by 1..=4 plus 4 of 20 for it.
                let k = targets.len() - 1;
                let w: Vec<i64> = (0..k).map(|_| rng.range(1, 4)).collect();
                let rest: i64 = w.iter().sum();
                let total = rest * 5 / 4 + 1;
                ps = w.iter().map(|&a| Rat::new(a, total)).collect();
                ps.push(Rat::new(total - rest, total));
            }
            targets
                .into_iter()
                .zip(ps)
                .map(|(t, p)| (p, reward(rng, player), t))
                .collect()
        };
        if rng.chance(1, 2) {
            let player = players[rng.below(players.len())];
            let k = 1 + rng.below(3);
            let mixed = rng.chance(1, 3);
            let mut moves = Vec::new();
            for i in 0..k {
                if mixed && rng.chance(1, 2) {
                    let r = reward(rng, solo.then_some(player));
                    moves.push(GMove::Random(r, outcomes(rng, solo.then_some(player))));
                    continue;
                }
                let back = match shape {
                    Shape::Loops => i > 0 && rng.chance(1, 3),
                    // Min's first move goes forward, and Max's mostly, so that Max can
                    // often end the play.
                    Shape::Reach if player == Player::Max && i == 0 => rng.chance(1, 4),
                    Shape::Reach => i > 0 && rng.chance(1, 2),
                    _ => false,
                };
                let t = if back { rng.below(x + 1) } else { forward(rng) };
                moves.push(GMove::Plain(reward(rng, solo.then_some(player)), t));
            }
            if mixed {
                nodes.push(GNode::Mixed(player, moves));
            } else {
                let plain = moves
                    .into_iter()
                    .map(|m| match m {
                        GMove::Plain(r, t) => (r, t),
                        GMove::Random(..) => unreachable!("only mixed decisions have them"),
                    })
                    .collect();
                nodes.push(GNode::Decision(player, plain));
            }
        } else {
            let player = solo.then(|| players[0]);
            nodes.push(GNode::Chance(outcomes(rng, player)));
        }
    }
    for _ in 0..terminals {
        let low = if shape == Shape::Reach { 0 } else { -5 };
        nodes.push(GNode::Terminal(Rat::new(
            rng.range(low, 5),
            rng.range(1, 3),
        )));
    }
    Table(nodes)
}

/// Dense exact Gaussian elimination: solves `v = c + A v`; `None` if singular.
pub fn solve_dense(mut a: Vec<Vec<Exact>>, mut c: Vec<Exact>) -> Option<Vec<Exact>> {
    let n = c.len();
    // Turn v = c + A v into (I - A) v = c.
    for (i, row) in a.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let id = if i == j { Exact::one() } else { Exact::zero() };
            *x = id.sub(x);
        }
    }
    for col in 0..n {
        let piv = (col..n).find(|&r| a[r][col] != Exact::zero())?;
        a.swap(col, piv);
        c.swap(col, piv);
        let p = a[col][col].clone();
        for j in col..n {
            a[col][j] = a[col][j].div(&p);
        }
        c[col] = c[col].div(&p);
        for r in 0..n {
            if r != col && a[r][col] != Exact::zero() {
                let f = a[r][col].clone();
                for j in col..n {
                    let d = f.mul(&a[col][j]);
                    a[r][j] = a[r][j].sub(&d);
                }
                let d = f.mul(&c[col]);
                c[r] = c[r].sub(&d);
            }
        }
    }
    Some(c)
}

/// The value of state 0 when every decision follows `profile` (a move index per state), or
/// `None` if the play from state 0 does not end with probability one.
pub fn evaluate(game: &Table, profile: &[usize]) -> Option<Exact> {
    evaluate_with(game, profile, false)
}

/// As [`evaluate`]; with `endless_zero`, a play that never ends is worth zero (for games
/// without rewards) instead of making the profile not count.
pub fn evaluate_with(game: &Table, profile: &[usize], endless_zero: bool) -> Option<Exact> {
    let n = game.0.len();
    let succ = |x: usize| -> Vec<(Exact, Exact, usize)> {
        match &game.0[x] {
            GNode::Terminal(_) => vec![],
            GNode::Decision(..) | GNode::Mixed(..) => {
                let (reward, outs) = game.0[x].moves().swap_remove(profile[x]);
                outs.iter()
                    .map(|(p, r, t)| {
                        let r = Exact::from_rat(*r).add(&Exact::from_rat(reward));
                        (Exact::from_rat(*p), r, *t)
                    })
                    .collect()
            }
            GNode::Chance(outs) => outs
                .iter()
                .map(|(p, r, t)| (Exact::from_rat(*p), Exact::from_rat(*r), *t))
                .collect(),
        }
    };
    // States that can reach a terminal; then those that cannot reach a state that cannot.
    let mut can = vec![false; n];
    loop {
        let mut changed = false;
        for x in 0..n {
            let ok =
                matches!(game.0[x], GNode::Terminal(_)) || succ(x).iter().any(|(_, _, t)| can[*t]);
            if ok && !can[x] {
                can[x] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut reach = vec![false; n];
    let mut stack = vec![0];
    reach[0] = true;
    while let Some(x) = stack.pop() {
        for (_, _, t) in succ(x) {
            if !reach[t] {
                reach[t] = true;
                stack.push(t);
            }
        }
    }
    if !endless_zero && (0..n).any(|x| reach[x] && !can[x]) {
        return None;
    }
    // A state that cannot end keeps the value zero: it is no unknown.
    let ids: Vec<usize> = (0..n).filter(|&x| reach[x] && can[x]).collect();
    if !can[0] {
        return Some(Exact::zero());
    }
    let local = |x: usize| ids.iter().position(|&y| y == x).expect("reachable");
    let m = ids.len();
    let mut a = vec![vec![Exact::zero(); m]; m];
    let mut c = vec![Exact::zero(); m];
    for (i, &x) in ids.iter().enumerate() {
        if let GNode::Terminal(p) = game.0[x] {
            c[i] = Exact::from_rat(p);
        }
        for (p, r, t) in succ(x) {
            c[i] = c[i].add(&p.mul(&r));
            if can[t] {
                let j = local(t);
                a[i][j] = a[i][j].add(&p);
            }
        }
    }
    let v = solve_dense(a, c)?;
    Some(v[local(0)].clone())
}

/// The optimum over deterministic stationary strategies, by enumeration. One player (or none):
/// the best over strategies whose play from the start ends with probability one. Two players:
/// max over Max's strategies of min over Min's. `None` if nothing qualifies.
pub fn brute_force(game: &Table) -> Option<Exact> {
    brute_force_with(game, false)
}

/// As [`brute_force`]; with `endless_zero`, a play that never ends is worth zero.
pub fn brute_force_with(game: &Table, endless_zero: bool) -> Option<Exact> {
    let deciders = |who: Player| -> Vec<usize> {
        (0..game.0.len())
            .filter(|&x| game.0[x].player() == Some(who))
            .collect()
    };
    let moves = |x: usize| game.0[x].moves().len().max(1);
    let maxs = deciders(Player::Max);
    let mins = deciders(Player::Min);
    let each = |list: &[usize], f: &mut dyn FnMut(&[usize])| {
        let mut choice = vec![0usize; list.len()];
        loop {
            f(&choice);
            let mut i = 0;
            loop {
                if i == list.len() {
                    return;
                }
                choice[i] += 1;
                if choice[i] < moves(list[i]) {
                    break;
                }
                choice[i] = 0;
                i += 1;
            }
        }
    };
    let mut best_overall: Option<Exact> = None;
    let mut profile = vec![0usize; game.0.len()];
    each(&maxs, &mut |cmax| {
        for (i, &x) in maxs.iter().enumerate() {
            profile[x] = cmax[i];
        }
        let mut worst: Option<Exact> = None;
        let mut prof = profile.clone();
        each(&mins, &mut |cmin| {
            for (i, &x) in mins.iter().enumerate() {
                prof[x] = cmin[i];
            }
            if let Some(v) = evaluate_with(game, &prof, endless_zero) {
                if worst.as_ref().is_none_or(|w| v < *w) {
                    worst = Some(v);
                }
            }
        });
        if let Some(w) = worst {
            if best_overall.as_ref().is_none_or(|b| w > *b) {
                best_overall = Some(w);
            }
        }
    });
    best_overall
}

/// Number of stationary deterministic strategy profiles (to keep brute force small).
pub fn profiles(game: &Table) -> usize {
    game.0.iter().map(|n| n.moves().len().max(1)).product()
}
