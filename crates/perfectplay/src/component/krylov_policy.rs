//! Policy iteration over Krylov evaluations, for a component in which one player has choices
//! and that elimination finds too costly, with a certificate that bounds the answer through
//! the found policy's own expected steps.
//!
//! Certified value iteration ([`Component::iterate`]) multiplies its residual by the most
//! expected steps to leave under any strategy. Where some strategy wanders (a walk that
//! avoids its goal), that is far more than the optimal play's steps, and its sweeps advance
//! one step of the walk each. Here each policy's chain is solved as a linear system
//! ([`Chain`]), the policy improved until no move is clearly better, and the values
//! bounded by a sub- and a super-solution built from the last policy's steps
//! ([`Component::certify`]). Nothing rests on the Krylov solves: where the certificate's
//! bound is not tight, value iteration runs as well and the tighter answer is kept.

use super::krylov::{Chain, TOLERANCE};
use super::{Component, Solved};
use crate::backup::Kind;
use crate::{Number, Player};

/// The most policies evaluated before policy iteration gives up (value iteration then takes
/// the component alone).
const MAX_ROUNDS: usize = 64;

/// A move replaces the policy's only where it is better by this much relative to the values'
/// size: less is within what the evaluations' rounding may blur.
const CLEARLY_BETTER: f64 = 1e-11;

/// The relative residual at which a policy's evaluation stops while the policy is still
/// changing, and how much better than the policy's a move must then be to replace it: enough
/// to find the better moves; the last policy is evaluated to rounding, and improved on by
/// [`CLEARLY_BETTER`].
const LOOSE: f64 = 1e-8;
const LOOSELY_BETTER: f64 = 1e-6;

/// Gauss–Seidel sweeps of the Bellman operator between a loose evaluation and the
/// improvement it leads to: they carry an improvement far along a walk at the cost of a few
/// products with the matrix, where each policy iteration alone moves it a little.
const SWEEPS: usize = 32;

/// The bound, relative to the largest value (at least one), beyond which the certificate is
/// not tight: value iteration may do better.
const ACCEPTED: f64 = 1e-9;

/// The unit roundoff of `f64`.
const UNIT: f64 = f64::EPSILON / 2.0;

impl<N: Number> Component<N> {
    /// The one player whose decisions have more than one move, if exactly one player's do.
    fn sole_chooser(&self) -> Option<Player> {
        let mut chooser = None;
        for x in 0..self.n() {
            if let Kind::Decision(p) = self.kind[x] {
                if self.start[x + 1] - self.start[x] > 1 {
                    match chooser {
                        None => chooser = Some(p),
                        Some(q) if q != p => return None,
                        Some(_) => {}
                    }
                }
            }
        }
        chooser
    }

    /// The component solved by policy iteration over Krylov evaluations and certified by
    /// [`Component::certify`], for a component in which one player has choices and that
    /// every strategy leaves, and whether its bound is tight ([`ACCEPTED`]). `None` where
    /// some evaluation fails or nothing can be certified. `edges` are
    /// [`Component::float_edges`].
    pub(super) fn improved(&self, edges: &[(usize, f64, f64)]) -> Option<(Solved<N>, bool)> {
        let player = self.sole_chooser()?;
        let (v, steps, policy) = self.krylov_policy(edges, player)?;
        let v_max = v.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let w: Vec<f64> = steps.iter().map(|&s| 1.01 * s.max(0.0)).collect();
        let bound = self.certify(edges, &v, &w, &policy)?;
        let tight = bound <= ACCEPTED * v_max;
        Some((self.finished(&v, policy, bound)?, tight))
    }

    /// Policy iteration of `player`, each policy's chain solved as a [`Chain`]: the last
    /// policy's values and expected steps (each with a last entry, zero, for the way out), and
    /// the policy. It starts from the moves of best reward, evaluates loosely while the policy
    /// changes much ([`LOOSE`]), and a move replaces the policy's where it is better by
    /// [`CLEARLY_BETTER`] of the values' size.
    fn krylov_policy(
        &self,
        edges: &[(usize, f64, f64)],
        player: Player,
    ) -> Option<(Vec<f64>, Vec<f64>, Vec<u32>)> {
        let n = self.n();
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        let konst_max = edges.iter().fold(0.0f64, |m, e| m.max(e.2.abs()));
        let better = |a: f64, b: f64, tolerance: f64| match player {
            Player::Max => a > b + tolerance,
            Player::Min => a < b - tolerance,
        };
        // The move of `x` best against `v`, and its value.
        let best = |v: &[f64], x: usize| {
            let mut best = (out(x)[0].2 + v[out(x)[0].0], 0u32);
            for (i, e) in out(x).iter().enumerate().skip(1) {
                let q = e.2 + v[e.0];
                if better(q, best.0, 0.0) {
                    best = (q, i as u32);
                }
            }
            best
        };
        let zero = vec![0.0f64; n + 1];
        let mut policy: Vec<u32> = (0..n)
            .map(|x| match self.kind[x] {
                Kind::Chance => u32::MAX,
                Kind::Decision(_) => best(&zero, x).1,
            })
            .collect();
        // The chance nodes, numbered among themselves: the policy's chain is solved over
        // them alone, each decision passed through on its way (a policy whose decisions
        // closed a cycle would keep the play: the component has none).
        let chances: Vec<usize> = (0..n).filter(|&x| self.kind[x] == Kind::Chance).collect();
        let mut number = vec![u32::MAX; n + 1];
        for (i, &x) in chances.iter().enumerate() {
            number[x] = i as u32;
        }
        number[n] = chances.len() as u32;
        let mut last: Option<Vec<f64>> = None;
        let mut loose = true;
        for _ in 0..MAX_ROUNDS {
            let folded = Folded::new(self, edges, &policy, &chances, &number)?;
            let chain = Chain::new(&folded.start, &folded.edges)?;
            let (tolerance, clearly) = match loose {
                true => (LOOSE, LOOSELY_BETTER),
                false => (TOLERANCE, CLEARLY_BETTER),
            };
            let core = chain.values(last.as_deref(), tolerance)?;
            let mut v = folded.expand(self, edges, &policy, &core, false)?;
            let scale = v.iter().fold(konst_max, |m, x| m.max(x.abs())).max(1.0);
            if loose {
                for _ in 0..SWEEPS {
                    for x in (0..n).rev() {
                        v[x] = match self.kind[x] {
                            Kind::Chance => out(x).iter().map(|e| e.1 * (e.2 + v[e.0])).sum(),
                            Kind::Decision(_) => best(&v, x).0,
                        };
                    }
                }
            }
            let mut changed = false;
            for x in 0..n {
                if self.kind[x] == Kind::Decision(player) {
                    let (q, i) = best(&v, x);
                    let e = out(x)[policy[x] as usize];
                    if better(q, e.2 + v[e.0], clearly * scale) {
                        policy[x] = i;
                        changed = true;
                    }
                }
            }
            if !changed && loose {
                loose = false;
                last = Some(core);
                continue;
            }
            if !changed {
                let b: Vec<f64> = folded.hops.iter().map(|h| 1.0 + h).collect();
                let steps = folded.expand(self, edges, &policy, &chain.solve(&b)?, true)?;
                return Some((v, steps, policy));
            }
            last = Some(core);
        }
        None
    }

    /// A bound on how far the value of the component lies from `v`, whatever `v` is: a
    /// super-solution `u = v + τ↑ w` (`B u ≤ u`) and a sub-solution `l = v − τ↓ w`
    /// (`B l ≥ l`) of the Bellman operator `B`, whose one fixed point (every strategy pair
    /// leaves the component) then lies between them by monotonicity, so the bound is
    /// `max(τ↑, τ↓) · max w`. `w` (a last entry, zero, for the way out) need only fall by at
    /// least a little along the moves of `policy` and at chance (`w ≥ 1 + P_policy w` nearly:
    /// the policy's expected steps, enlarged).
    ///
    /// At each node, with `g = Q(v) − v` for a move's backup `Q` and `d = w − P w` along it:
    /// - chance, and a decision's move where one move suffices (Min's for `u`, Max's for
    ///   `l`: the policy's), asks `g ≤ τ↑ d` and `−g ≤ τ↓ d`;
    /// - every move of Max asks `g ≤ τ↑ d`, every move of Min `−g ≤ τ↓ d`: where `d > 0` that
    ///   is a least `τ`, where `d ≤ 0` a most (when `g` has the sign that allows any).
    ///
    /// Each `g` grows by its node's rounding and the edges' radii (a constant's error, a
    /// probability's conversion) and each `d` shrinks by its own, so the bound holds for the
    /// model as given. `None` where the least `τ` exceeds a most, or numbers overflow.
    pub(super) fn certify(
        &self,
        edges: &[(usize, f64, f64)],
        v: &[f64],
        w: &[f64],
        policy: &[u32],
    ) -> Option<f64> {
        let n = self.n();
        let out = |x: usize| &edges[self.start[x] as usize..self.start[x + 1] as usize];
        let v_max = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let w_max = w.iter().fold(0.0f64, |m, &x| m.max(x));
        // The least and the most `τ` each side allows: `(up, down)`.
        let mut least = (0.0f64, 0.0f64);
        let mut most = (f64::INFINITY, f64::INFINITY);
        // `h ≤ τ d` for a `τ` of `least`/`most` (`None` where no `τ` will do).
        let ask = |h: f64, d: f64, least: &mut f64, most: &mut f64| -> Option<()> {
            if d > 0.0 {
                *least = least.max(h / d);
            } else if h > 0.0 {
                return None;
            } else if d < 0.0 {
                *most = most.min(h / d);
            }
            Some(())
        };
        for x in 0..n {
            let exact = self.out(x);
            let k = exact.len() as f64;
            let (mut doubt, mut probs, mut weighed) = (0.0f64, 0.0f64, 0.0f64);
            for (e, f) in exact.iter().zip(out(x)) {
                let size = f.2.abs() + v_max;
                doubt = doubt.max(e.konst.radius() + 2.0 * (k + 4.0) * UNIT * size);
                probs += e.prob.radius();
                weighed += e.prob.radius() * size;
            }
            // What rounding and the model's radii may add to a backup of `v`, and take from
            // a fall of `w`.
            let err = doubt + weighed;
            let slack = w_max * (probs + 2.0 * (k + 4.0) * UNIT);
            match self.kind[x] {
                Kind::Chance => {
                    let q: f64 = out(x).iter().map(|e| e.1 * (e.2 + v[e.0])).sum();
                    let fall = w[x] - out(x).iter().map(|e| e.1 * w[e.0]).sum::<f64>();
                    let (g, d) = (q - v[x], fall - slack);
                    if d <= 0.0 {
                        return None;
                    }
                    least.0 = least.0.max((g + err) / d);
                    least.1 = least.1.max((err - g) / d);
                }
                Kind::Decision(player) => {
                    let along =
                        |e: &(usize, f64, f64)| (e.2 + v[e.0] - v[x], w[x] - w[e.0] - slack);
                    let (g, d) = along(&out(x)[policy[x] as usize]);
                    if d <= 0.0 {
                        return None;
                    }
                    match player {
                        Player::Max => {
                            least.1 = least.1.max((err - g) / d);
                            for e in out(x) {
                                let (g, d) = along(e);
                                ask(g + err, d, &mut least.0, &mut most.0)?;
                            }
                        }
                        Player::Min => {
                            least.0 = least.0.max((g + err) / d);
                            for e in out(x) {
                                let (g, d) = along(e);
                                ask(err - g, d, &mut least.1, &mut most.1)?;
                            }
                        }
                    }
                }
            }
        }
        // The divisions' own rounding: a few units more on the least, less on the most.
        let grow = 1.0 + 8.0 * UNIT;
        let fits = |least: f64, most: f64| least * grow <= most / grow;
        if !(fits(least.0, most.0) && fits(least.1, most.1)) {
            return None;
        }
        let bound = least.0.max(least.1) * grow * w_max * grow;
        bound.is_finite().then_some(bound)
    }
}

/// A policy's chain over the chance nodes of a component alone: an edge into a decision is
/// drawn on to the chance node (or the way out) that the decision's chosen moves reach, with
/// their rewards added. This halves the nodes of a walk whose every step passes a decision,
/// and the steps a Krylov solve must span.
struct Folded {
    /// The chain's edges, as [`Chain::new`] takes them: `(number, p, reward)`.
    start: Vec<u32>,
    edges: Vec<(usize, f64, f64)>,
    /// Per chance node, the decisions its step passes, expected.
    hops: Vec<f64>,
}

impl Folded {
    /// The chain of `policy` over `chances` (`number` gives each its place there, and the
    /// way out `chances.len()`). `None` where a decision's moves closed a cycle.
    fn new<N: Number>(
        c: &Component<N>,
        edges: &[(usize, f64, f64)],
        policy: &[u32],
        chances: &[usize],
        number: &[u32],
    ) -> Option<Self> {
        let mut folded = Folded {
            start: Vec::with_capacity(chances.len() + 1),
            edges: Vec::new(),
            hops: Vec::with_capacity(chances.len()),
        };
        for &x in chances {
            folded.start.push(folded.edges.len() as u32);
            let mut hops = 0.0;
            for &(to, p, konst) in &edges[c.start[x] as usize..c.start[x + 1] as usize] {
                let (to, add, passed) = through(c, edges, policy, to)?;
                folded.edges.push((number[to] as usize, p, konst + add));
                hops += p * passed as f64;
            }
            folded.hops.push(hops);
        }
        folded.start.push(folded.edges.len() as u32);
        Some(folded)
    }

    /// A solution over the chance nodes, `core`, extended to every node of the component
    /// (and a last entry, zero, for the way out): a decision's is what its moves add on the
    /// way (the rewards, or for `steps` one a decision passed) plus the chance node's it
    /// reaches.
    fn expand<N: Number>(
        &self,
        c: &Component<N>,
        edges: &[(usize, f64, f64)],
        policy: &[u32],
        core: &[f64],
        steps: bool,
    ) -> Option<Vec<f64>> {
        let n = c.n();
        let mut full = vec![0.0; n + 1];
        let mut i = 0;
        for x in 0..n {
            if c.kind[x] == Kind::Chance {
                full[x] = core[i];
                i += 1;
            }
        }
        for x in 0..n {
            if c.kind[x] != Kind::Chance {
                let (to, add, passed) = through(c, edges, policy, x)?;
                full[x] = full[to] + if steps { passed as f64 } else { add };
            }
        }
        Some(full)
    }
}

/// Where `policy`'s moves lead from node `x` (`x` itself unless a decision; the way out is
/// `c.n()`), with the rewards and the number of decisions on the way. `None` where they close
/// a cycle.
fn through<N: Number>(
    c: &Component<N>,
    edges: &[(usize, f64, f64)],
    policy: &[u32],
    mut x: usize,
) -> Option<(usize, f64, usize)> {
    let n = c.n();
    let (mut add, mut passed) = (0.0, 0);
    while x < n && c.kind[x] != Kind::Chance {
        let (to, _, konst) = edges[(c.start[x] + policy[x]) as usize];
        add += konst;
        x = to;
        passed += 1;
        if passed > n {
            return None;
        }
    }
    Some((x, add, passed))
}

#[cfg(test)]
mod tests {
    use super::super::{Component, LocalEdge, EXIT};
    use crate::backup::Kind;
    use crate::linear::System;
    use crate::{Bounded, Exact, Number, Player, Rat};
    use proptest::prelude::*;

    /// A node: chance with `(to, p, reward)` outcomes, or a decision of `Player` with
    /// `(to, reward)` moves; `None` is the way out.
    #[derive(Clone, Debug)]
    enum Node {
        Chance(Vec<(Option<u32>, Rat, Rat)>),
        Decision(Player, Vec<(Option<u32>, Rat)>),
    }

    fn component<N: Number>(nodes: &[Node]) -> Component<N> {
        let mut c = Component {
            kind: Vec::new(),
            start: Vec::new(),
            edges: Vec::new(),
            forced: Vec::new(),
        };
        let one = Rat::new(1, 1);
        for node in nodes {
            c.start.push(c.edges.len() as u32);
            let (kind, out): (Kind, Vec<_>) = match node {
                Node::Chance(out) => (Kind::Chance, out.clone()),
                Node::Decision(p, out) => (
                    Kind::Decision(*p),
                    out.iter().map(|&(to, r)| (to, one, r)).collect(),
                ),
            };
            c.kind.push(kind);
            for (to, p, r) in out {
                c.edges.push(LocalEdge {
                    to: to.unwrap_or(EXIT),
                    prob: N::from_rat(p),
                    konst: N::from_rat(r),
                });
            }
        }
        c.start.push(c.edges.len() as u32);
        c
    }

    /// Every value of `solved` within its radius of `exact`'s.
    fn within(solved: &super::Solved<Bounded>, exact: &super::Solved<Exact>) -> Result<(), String> {
        for (x, (f, e)) in solved.values.iter().zip(&exact.values).enumerate() {
            let error = Exact::of_float(f.value).unwrap().sub(e).abs();
            let bound = Exact::of_float(Bounded::bound(f.radius)).unwrap();
            if error > bound {
                return Err(format!(
                    "node {x}: {} against {}, radius {:e}",
                    f.value,
                    e.to_f64(),
                    f.radius
                ));
            }
        }
        Ok(())
    }

    /// A ring of `m` places that ends at place 0, each place a decision of `player`
    /// between a fair step either way (earning 1) and a step on with probability 3/4, back
    /// with 1/4 (earning 2). Strategies that keep to the fair step take some `m²/4` steps;
    /// the drift some `2m`.
    fn ring(m: u32, player: Player) -> Vec<Node> {
        let place = |p: u32| (p % m != 0).then(|| 3 * (p % m - 1));
        let (half, quarter, three) = (Rat::new(1, 2), Rat::new(1, 4), Rat::new(3, 4));
        let mut nodes = Vec::new();
        for p in 1..m {
            let x = 3 * (p - 1);
            nodes.push(Node::Decision(
                player,
                vec![(Some(x + 1), Rat::new(0, 1)), (Some(x + 2), Rat::new(0, 1))],
            ));
            let one = Rat::new(1, 1);
            nodes.push(Node::Chance(vec![
                (place(p + 1), half, one),
                (place(p + m - 1), half, one),
            ]));
            let two = Rat::new(2, 1);
            nodes.push(Node::Chance(vec![
                (place(p + 1), three, two),
                (place(p + m - 1), quarter, two),
            ]));
        }
        nodes
    }

    /// Min's and Max's rings: policy iteration finds the optimum, and the certificate bounds
    /// it from the found policy's own steps. Min's drift takes a hundredth of the steps of the
    /// strategies that keep to the fair walk, so its bound is far tighter than one from
    /// theirs; Max's optimum is the fair walk itself.
    #[test]
    fn rings_are_bounded_by_the_found_policys_steps() {
        for player in [Player::Min, Player::Max] {
            let nodes = ring(200, player);
            let float = component::<Bounded>(&nodes);
            let edges = float.float_edges();
            let (solved, tight) = float.improved(&edges).expect("a certificate");
            assert!(tight);
            let exact = component::<Exact>(&nodes)
                .solve(&mut System::new(0), None)
                .expect("every play ends");
            within(&solved, &exact).unwrap();
            let top = exact.values.iter().fold(0.0f64, |m, v| m.max(v.to_f64()));
            let tight = match player {
                Player::Min => 1e-11,
                Player::Max => 1e-9,
            };
            assert!(solved.bound <= tight * top, "{:e} at {top}", solved.bound);
            assert_eq!(
                solved
                    .policy
                    .iter()
                    .zip(&exact.policy)
                    .filter(|(a, b)| a != b)
                    .count(),
                0,
                "{player:?}"
            );
        }
    }

    /// A random component of one player's choices that every strategy leaves: a chance node
    /// goes back one node or stays, and on (to the way out after the last node) at least half
    /// the time; a decision has one to three moves, each on to a later node or out. Rewards
    /// have both signs.
    fn random_component() -> impl Strategy<Value = Vec<Node>> {
        let node = (
            any::<bool>(),
            prop::collection::vec((0..=1u32, 1i64..8, -5i64..10), 0..4),
            prop::collection::vec((1u32..6, -5i64..10), 1..4),
        );
        (2usize..40, any::<bool>(), prop::collection::vec(node, 40)).prop_map(|(n, max, raw)| {
            let player = if max { Player::Max } else { Player::Min };
            let later = |x: usize, step: u32| {
                let to = x + step as usize;
                (to < n).then_some(to as u32)
            };
            raw.into_iter()
                .take(n)
                .enumerate()
                .map(|(x, (decision, back, moves))| match decision {
                    true => Node::Decision(
                        player,
                        moves
                            .into_iter()
                            .map(|(step, r)| (later(x, step), Rat::new(r, 3)))
                            .collect(),
                    ),
                    false => {
                        let back_weight: i64 = back.iter().map(|o| o.1).sum();
                        let weight = back_weight.max(1);
                        let total = back_weight + weight;
                        Node::Chance(
                            back.into_iter()
                                .map(|(step, w, r)| {
                                    let to = (x as u32).saturating_sub(step);
                                    (Some(to), Rat::new(w, total), Rat::new(r, 3))
                                })
                                .chain([(later(x, 1), Rat::new(weight, total), Rat::new(1, 2))])
                                .collect(),
                        )
                    }
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Policy iteration over Krylov evaluations, certified, against the exact solve:
        /// every value within its bound, wherever the certificate takes the answer.
        #[test]
        fn random_components_agree_with_the_exact_solve(nodes in random_component()) {
            let float = component::<Bounded>(&nodes);
            prop_assume!(float.trap(None).is_none());
            let exact = component::<Exact>(&nodes)
                .solve(&mut System::new(0), None)
                .expect("every play ends");
            let edges = float.float_edges();
            if let Some((solved, _)) = float.improved(&edges) {
                within(&solved, &exact).map_err(TestCaseError::fail)?;
            }
            let solved = float.iterate().expect("every play ends");
            within(&solved, &exact).map_err(TestCaseError::fail)?;
        }
    }
}
