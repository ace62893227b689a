//! The engine's contracts: rejected models, undefined values, the SCC finder, deep chains,
//! limits and determinism.

use crate::common::models::{Chain, Ring};
use crate::common::{GNode, Rng, Table};
use perfectplay::{
    solve, solve_exact, Method, Model, Node, NodeBuilder, Player, Rat, SolveError, Solver, Stats,
};

/// The threads a sweep ran on to the end (0 when the solve was no sweep).
fn sweep_threads(stats: &Stats) -> usize {
    match stats.method {
        Method::Sweep { threads } => threads,
        _ => 0,
    }
}

fn t(p: i64) -> GNode {
    GNode::Terminal(Rat::from(p))
}

fn err(game: &Table) -> String {
    solve(game).err().expect("the solve must fail").to_string()
}

#[test]
fn probabilities_must_sum_to_exactly_one() {
    let g = Table(vec![
        GNode::Chance(vec![
            (Rat::new(1, 3), Rat::ZERO, 1),
            (Rat::new(1, 3), Rat::ZERO, 1),
            (Rat::new(1, 3), Rat::ZERO, 1),
            (Rat::new(1, 1_000_000_007), Rat::ZERO, 1),
        ]),
        t(0),
    ]);
    let e = err(&g);
    assert!(e.starts_with("invalid model at state 0:"), "{e}");
    assert!(
        e.contains("sum to 1000000008/1000000007, not exactly 1"),
        "{e}"
    );
}

/// Outcomes that share one denominator take the engine's quick check, which must reject the
/// same things as the full one; a random move's outcomes are checked like chance's.
#[test]
fn probabilities_sharing_a_denominator_are_checked_too() {
    use crate::common::GMove;
    let o = |ps: &[(i64, i64)]| -> Vec<(Rat, Rat, usize)> {
        ps.iter()
            .map(|&(n, d)| (Rat::new(n, d), Rat::ZERO, 1))
            .collect()
    };
    let bad = [
        (o(&[(2, 5), (2, 5)]), "sum to 4/5, not exactly 1"),
        (o(&[(3, 5), (3, 5)]), "sum to 6/5, not exactly 1"),
        (
            o(&[(2, 2), (0, 2)]),
            "probability 0, which is not in (0, 1]",
        ),
        (
            o(&[(3, 2), (-1, 2)]),
            "probability 3/2, which is not in (0, 1]",
        ),
    ];
    for (outcomes, message) in bad {
        let chance = Table(vec![GNode::Chance(outcomes.clone()), t(0)]);
        let random = Table(vec![
            GNode::Mixed(
                Player::Max,
                vec![
                    GMove::Plain(Rat::ZERO, 1),
                    GMove::Random(Rat::ZERO, outcomes),
                ],
            ),
            t(0),
        ]);
        for g in [chance, random] {
            let e = err(&g);
            assert!(e.starts_with("invalid model at state 0:"), "{e}");
            assert!(e.contains(message), "{message}: {e}");
        }
    }
    // Unreduced fractions with different stored denominators that do sum to one.
    let g = Table(vec![GNode::Chance(o(&[(2, 4), (1, 2)])), t(3)]);
    assert_eq!(*solve(&g).unwrap().start_value(), 3.0);
    // Numerators whose sum passes 64 bits, over the largest denominator a probability can
    // have (2^64 - 1 = 3·5·17·257 · 641·65537·6700417): three times (2^63 - 1)/(2^64 - 1) is
    // about 3/2, and must not pass for one.
    let p = Rat::new(i64::MAX, 3 * 5 * 17 * 257) * Rat::new(1, 641 * 65537 * 6700417);
    assert_eq!(p.parts().unwrap().1, u64::MAX);
    let g = Table(vec![GNode::Chance(vec![(p, Rat::ZERO, 1); 3]), t(0)]);
    let e = err(&g);
    assert!(e.starts_with("invalid model at state 0:"), "{e}");
}

#[test]
fn probabilities_must_be_in_range() {
    for p in [Rat::ZERO, Rat::new(-1, 2), Rat::new(3, 2)] {
        let g = Table(vec![t(0), GNode::Chance(vec![(p, Rat::ZERO, 0)])]);
        let g = Table(vec![
            GNode::Decision(Player::Max, vec![(Rat::ZERO, 1)]),
            g.0[1].clone(),
        ]);
        let e = err(&g);
        assert!(e.contains("invalid model at state 1"), "{e}");
        assert!(
            e.contains(&format!("probability {p}, which is not in (0, 1]")),
            "{e}"
        );
    }
}

#[test]
fn a_decision_needs_moves() {
    let g = Table(vec![GNode::Decision(Player::Min, vec![])]);
    assert_eq!(err(&g), "invalid model at state 0: a decision has no moves");
}

struct Sloppy;
impl Model for Sloppy {
    type State = u8;
    type Move = ();
    fn start(&self) -> u8 {
        0
    }
    fn expand(&self, s: &u8, node: &mut impl NodeBuilder<u8, ()>) {
        match s {
            0 => {
                node.decision(Player::Max);
                node.add_move((), 0, 1);
            }
            1 => {
                node.decision(Player::Max);
                node.add_outcome((), Rat::ONE, 0, 2);
            }
            _ => {}
        }
    }
}

#[test]
fn misuse_of_the_node_builder_is_reported() {
    let e = solve(&Sloppy).err().unwrap().to_string();
    assert_eq!(
        e,
        "invalid model at state 1: an outcome was added to a decision whose last move is not random"
    );
}

#[test]
fn every_misuse_of_the_node_builder_is_named() {
    type N = Node<u8, ()>;
    type Case = (&'static str, fn(&mut N));
    let cases: [Case; 6] = [
        ("the model set no node kind", |_| {}),
        ("the node kind was set twice", |n| {
            n.chance();
            n.decision(Player::Max);
        }),
        ("a move was added to a node that is not a decision", |n| {
            n.chance();
            n.add_move((), 0, 1);
        }),
        (
            "an outcome was added to a node that is not a chance node",
            |n| {
                n.terminal(0);
                n.add_outcome((), Rat::ONE, 0, 1);
            },
        ),
        (
            "an outcome was added to a decision whose last move is not random",
            |n| {
                n.decision(Player::Min);
                n.add_random_move((), 0);
                n.add_outcome((), Rat::ONE, 0, 1);
                n.add_move((), 0, 1);
                n.add_outcome((), Rat::ONE, 0, 1);
            },
        ),
        (
            "a random move was added to a node that is not a decision",
            |n| {
                n.chance();
                n.add_random_move((), 0);
            },
        ),
    ];
    for (message, build) in cases {
        let mut node = N::new();
        build(&mut node);
        assert_eq!(node.validate(), Err(message.to_string()));
        // The node is reused: clearing it forgets the misuse.
        node.clear();
        node.chance();
        node.add_outcome((), Rat::ONE, 0, 1);
        assert_eq!(node.validate(), Ok(()));
    }
}

#[test]
fn no_way_out_is_undefined_not_a_hang() {
    // 0 -> 1 -> 0 forever.
    let g = Table(vec![
        GNode::Decision(Player::Min, vec![(Rat::ONE, 1)]),
        GNode::Chance(vec![(Rat::ONE, Rat::ZERO, 0)]),
    ]);
    let e = err(&g);
    assert!(e.starts_with("the value is undefined at state"), "{e}");
}

#[test]
fn a_trap_chance_cannot_avoid_is_undefined() {
    // From 1, chance may go to the closed loop 2 <-> 2; Max can never be sure to end.
    let g = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::ZERO, 3)]),
        GNode::Chance(vec![
            (Rat::new(1, 2), Rat::ZERO, 2),
            (Rat::new(1, 2), Rat::ZERO, 3),
        ]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 2)]),
        t(1),
    ]);
    let e = err(&g);
    assert!(e.contains("undefined at state 2"), "{e}");
}

#[test]
fn a_profitable_loop_diverges() {
    // Max can loop at 0 gaining 1 each time, or leave.
    let g = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::ONE, 0)]),
        t(5),
    ]);
    assert_eq!(
        err(&g),
        "the value diverges at state 0: Max can repeat a cycle through it that gains without bound"
    );
    // The same loop at a cost is fine for Min and for Max alike when it does not pay.
    let g = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::from(-1), 0)]),
        t(5),
    ]);
    assert_eq!(*solve_exact(&g).unwrap().start_value().0.to_string(), *"5");
}

#[test]
fn a_zero_cost_loop_is_not_taken_over_ending() {
    // Min may loop for free at 0 or end with 3; the value is 3 over strategies that end.
    let g = Table(vec![
        GNode::Decision(Player::Min, vec![(Rat::ZERO, 0), (Rat::ZERO, 1)]),
        t(3),
    ]);
    let s = solve_exact(&g).unwrap();
    assert_eq!(s.start_value().to_string(), "3");
    assert_eq!(s.chosen(&0), Some(1));
}

#[test]
fn two_players_who_can_cycle_forever_are_rejected() {
    let g = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::ZERO, 2)]),
        GNode::Decision(Player::Min, vec![(Rat::ZERO, 0), (Rat::ZERO, 2)]),
        t(1),
    ]);
    let e = err(&g);
    assert!(
        e.starts_with("two-player cycle that can repeat forever through state"),
        "{e}"
    );
}

#[test]
fn state_limit_stops_cleanly() {
    let chain = Chain { n: 1000 };
    let e = Solver::new(&chain)
        .max_states(100)
        .solve::<f64>()
        .err()
        .unwrap();
    assert_eq!(
        e,
        SolveError::StateLimit {
            explored: 101,
            limit: 100,
            components: 0
        }
    );
}

#[test]
fn a_long_chain_does_not_overflow_the_stack() {
    // Scaled down from the 10-million-state benchmark; recursion would overflow far earlier.
    let n = 1_000_000;
    let s = solve(&Chain { n }).unwrap();
    assert_eq!(*s.start_value(), n as f64);
    assert_eq!(s.stats().states, n as usize + 1);
}

#[test]
fn a_large_ring_is_one_component_solved_in_linear_time() {
    let s = solve(&Ring { n: 200_000 }).unwrap();
    assert!((s.start_value() - 1.0).abs() < 1e-12);
    assert_eq!(s.stats().largest_component, 200_000);
    let e = solve_exact(&Ring { n: 40 }).unwrap();
    // v = (1 + v') / 2 around the ring: v = 1 - 2^-40 / (1 - 2^-40) ... exactly 1.
    assert_eq!(e.start_value().to_string(), "1");
}

/// Random directed graphs: every node is a Max decision with random moves and a move to the
/// end, so the value exists (zero) whatever the graph.
fn random_graph(rng: &mut Rng, n: usize) -> Table {
    let mut nodes: Vec<GNode> = (0..n)
        .map(|_| {
            let k = rng.below(4);
            let mut moves: Vec<(Rat, usize)> = (0..k).map(|_| (Rat::ZERO, rng.below(n))).collect();
            moves.push((Rat::ZERO, n));
            GNode::Decision(Player::Max, moves)
        })
        .collect();
    nodes.push(t(0));
    Table(nodes)
}

/// Kosaraju's algorithm on the non-terminal part: component labels by reachability.
fn kosaraju(game: &Table) -> Vec<Option<usize>> {
    let n = game.0.len();
    let succ = |x: usize| -> Vec<usize> {
        match &game.0[x] {
            GNode::Decision(..) | GNode::Mixed(..) => game.0[x]
                .moves()
                .iter()
                .flat_map(|(_, outs)| outs.iter().map(|o| o.2))
                .collect(),
            GNode::Chance(o) => o.iter().map(|(_, _, t)| *t).collect(),
            GNode::Terminal(_) => vec![],
        }
    };
    let mut order = Vec::new();
    let mut seen = vec![false; n];
    for s in 0..n {
        if seen[s] {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        seen[s] = true;
        while let Some((x, i)) = stack.pop() {
            let next = succ(x);
            if i < next.len() {
                stack.push((x, i + 1));
                let y = next[i];
                if !seen[y] {
                    seen[y] = true;
                    stack.push((y, 0));
                }
            } else {
                order.push(x);
            }
        }
    }
    let mut pred = vec![Vec::new(); n];
    for x in 0..n {
        for y in succ(x) {
            pred[y].push(x);
        }
    }
    let mut label = vec![None; n];
    let mut c = 0;
    for &s in order.iter().rev() {
        if label[s].is_some() {
            continue;
        }
        let mut stack = vec![s];
        label[s] = Some(c);
        while let Some(x) = stack.pop() {
            for &y in &pred[x] {
                if label[y].is_none() {
                    label[y] = Some(c);
                    stack.push(y);
                }
            }
        }
        c += 1;
    }
    label
}

#[test]
fn scc_finder_agrees_with_kosaraju() {
    let mut rng = Rng(11);
    for round in 0..300 {
        let n = 1 + rng.below(40);
        let g = random_graph(&mut rng, n);
        let s = solve(&g).unwrap();
        let expect = kosaraju(&g);
        // Compare partitions of the explored, non-terminal states.
        let explored: Vec<usize> = (0..n).filter(|x| s.value(x).is_some()).collect();
        for &a in &explored {
            for &b in &explored {
                assert_eq!(
                    s.component(&a) == s.component(&b),
                    expect[a] == expect[b],
                    "round {round}: states {a} and {b}\n{g:?}"
                );
            }
            // Components are numbered in reverse topological order.
            if let GNode::Decision(_, m) = &g.0[a] {
                for (_, t) in m {
                    if let (Some(ca), Some(ct)) = (s.component(&a), s.component(t)) {
                        assert!(ct <= ca);
                    }
                }
            }
        }
        assert_eq!(s.component(&n), None, "the terminal has no component");
    }
}

#[test]
fn solving_is_deterministic() {
    let mut rng = Rng(99);
    for _ in 0..20 {
        let g = crate::common::random_game(
            &mut rng,
            10,
            crate::common::Shape::Stopping,
            &[Player::Max, Player::Min],
        );
        let a = solve(&g).unwrap();
        let b = solve(&g).unwrap();
        let va: Vec<(usize, f64, Option<usize>)> =
            a.iter().map(|(s, v)| (*s, *v, a.chosen(s))).collect();
        let vb: Vec<(usize, f64, Option<usize>)> =
            b.iter().map(|(s, v)| (*s, *v, b.chosen(s))).collect();
        assert_eq!(va, vb);
    }
}

#[test]
fn explain_lists_moves_with_losses() {
    let g = Table(vec![
        GNode::Decision(
            Player::Min,
            vec![(Rat::from(2), 1), (Rat::ONE, 1), (Rat::ONE, 2)],
        ),
        t(0),
        t(0),
    ]);
    let s = solve_exact(&g).unwrap();
    let e = s.explain(&g, &0).unwrap();
    let summary: Vec<(String, bool, bool)> = e
        .branches
        .iter()
        .map(|b| (b.loss.to_string(), b.optimal, b.chosen))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("1".to_string(), false, false),
            ("0".to_string(), true, true),
            ("0".to_string(), true, false)
        ]
    );
    assert_eq!(s.optimal_moves(&g, &0).unwrap(), vec![1, 2]);
    assert!(matches!(
        s.explain(&g, &7),
        Err(SolveError::UnknownState { .. })
    ));
}

/// One chance state with `n` outcomes, each a Min decision: keep (ending with a cost that
/// depends on the outcome) or re-roll at cost 1 — the shape of Yeetzhee's components, scaled up.
struct Star {
    n: u32,
}
impl Model for Star {
    type State = (u8, u32);
    type Move = &'static str;
    fn start(&self) -> (u8, u32) {
        (0, 0)
    }
    fn expand(&self, &(kind, i): &(u8, u32), node: &mut impl NodeBuilder<(u8, u32), &'static str>) {
        match kind {
            0 => {
                node.chance();
                for j in 0..self.n {
                    node.add_outcome("face", Rat::new(1, self.n as i64), 0, (1, j));
                }
            }
            1 => {
                node.decision(Player::Min);
                node.add_move("keep", (i % 100) as i64, (2, 0));
                node.add_move("re-roll", 1, (0, 0));
            }
            _ => node.terminal(0),
        }
    }
}

#[test]
fn a_star_component_costs_linear_time() {
    // 100,001 states in one component; a cubic method would not finish. Keeping the outcomes
    // worth at most the threshold t solves t = (1 + mean of kept) ... ; check optimality instead
    // of a formula: every re-rolled outcome costs more than re-rolling.
    let g = Star { n: 100_000 };
    let s = solve(&g).unwrap();
    assert_eq!(s.stats().largest_component, 100_001);
    let v = *s.start_value();
    for j in [0u32, 5, 50, 99] {
        let keep = s.chosen(&(1, j)) == Some(0);
        assert_eq!(keep, (j % 100) as f64 <= v + 1.0, "outcome {j}, value {v}");
    }
    // The same game with 100 faces, exactly, certified by the checker.
    let small = Star { n: 100 };
    let e = solve_exact(&small).unwrap();
    perfectplay::verify::verify_solution(&small, &e).unwrap();
    assert!((perfectplay::Number::to_f64(e.start_value()) - v).abs() < 1e-9);
}

/// A [`Table`] numbered densely by a given map from state to number, and swept in a given
/// order if one is set, leaving out the states `transient` picks (but the start).
struct Numbered<'a> {
    game: &'a Table,
    bound: usize,
    number: fn(usize) -> Option<usize>,
    /// The state at a rank of the sweep, given the number of states.
    sweep: Option<fn(usize, usize) -> Option<usize>>,
    transient: fn(usize) -> bool,
}

impl Model for Numbered<'_> {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        0
    }
    fn expand(&self, s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
        self.game.expand(s, node)
    }
    fn dense_bound(&self) -> usize {
        self.bound
    }
    fn dense_index(&self, s: &usize) -> Option<usize> {
        (self.number)(*s)
    }
    fn sweep_len(&self) -> usize {
        self.sweep.map_or(0, |_| self.game.0.len() + 1)
    }
    fn sweep_state(&self, rank: usize) -> Option<usize> {
        self.sweep
            .and_then(|order| order(self.game.0.len(), rank))
            .filter(|s| !self.transient(s))
    }
    fn transient(&self, s: &usize) -> bool {
        *s != 0 && (self.transient)(*s)
    }
}

#[test]
fn a_dense_numbering_gives_the_same_solution() {
    let mut rng = Rng(21);
    for shape in [
        crate::common::Shape::Acyclic,
        crate::common::Shape::Stopping,
        crate::common::Shape::Loops,
    ] {
        for _ in 0..50 {
            let game = crate::common::random_game(&mut rng, 8, shape, &[Player::Min, Player::Max]);
            let dense = Numbered {
                game: &game,
                bound: game.0.len(),
                number: Some,
                sweep: None,
                transient: |_| false,
            };
            let (a, b) = (solve_exact(&game), solve_exact(&dense));
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.start_value(), b.start_value());
                    for (s, v) in a.iter() {
                        assert_eq!(b.value(s), Some(v));
                        assert_eq!(b.chosen(s), a.chosen(s));
                        // The lookup through the numbering finds the same number.
                        assert_eq!(b.number_of(&dense, s), b.index_of(s));
                        assert_eq!(a.number_of(&game, s), a.index_of(s));
                    }
                    // A state never explored has no number either way.
                    let never = game.0.len() + 5;
                    assert_eq!(b.number_of(&dense, &never), None);
                    let unreached = (0..game.0.len()).find(|s| a.index_of(s).is_none());
                    if let Some(u) = unreached {
                        assert_eq!(b.number_of(&dense, &u), None);
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!("{:?} vs {:?}", a.err(), b.err()),
            }
        }
    }
}

#[test]
fn a_bad_dense_numbering_is_a_model_error() {
    let game = Table(vec![
        GNode::Chance(vec![
            (Rat::new(1, 2), Rat::ZERO, 1),
            (Rat::new(1, 2), Rat::ZERO, 2),
        ]),
        t(1),
        t(3),
    ]);
    // Two states share a number.
    let shared = Numbered {
        game: &game,
        bound: 3,
        number: |s| Some(s.min(1)),
        sweep: None,
        transient: |_| false,
    };
    let e = solve(&shared).err().unwrap().to_string();
    assert!(e.contains("same number as state 1"), "{e}");
    // A number beyond the bound, and no number at all.
    let beyond = Numbered {
        game: &game,
        bound: 2,
        number: Some,
        sweep: None,
        transient: |_| false,
    };
    let e = solve(&beyond).err().unwrap().to_string();
    assert!(e.contains("not a number below dense_bound (2)"), "{e}");
    let none = Numbered {
        game: &game,
        bound: 3,
        number: |s| (s != 2).then_some(s),
        sweep: None,
        transient: |_| false,
    };
    let e = solve(&none).err().unwrap().to_string();
    assert!(e.contains("dense_index gave None"), "{e}");
}

/// `game` numbered by its indices and swept in `order`.
fn swept(game: &Table, order: fn(usize, usize) -> Option<usize>) -> Numbered<'_> {
    Numbered {
        game,
        bound: game.0.len(),
        number: Some,
        sweep: Some(order),
        transient: |_| false,
    }
}

/// Acyclic random games have every edge to a higher number: sweeping down is an order.
fn downwards(n: usize, rank: usize) -> Option<usize> {
    (rank < n).then(|| n - 1 - rank)
}

#[test]
fn a_sweep_gives_the_values_of_exploring() {
    let mut rng = Rng(33);
    for players in [
        &[Player::Min][..],
        &[Player::Max],
        &[Player::Min, Player::Max],
    ] {
        for _ in 0..100 {
            let game =
                crate::common::random_game(&mut rng, 10, crate::common::Shape::Acyclic, players);
            let swept = swept(&game, downwards);
            let (value, stats) = Solver::new(&swept).start_value::<f64>().unwrap();
            assert!(stats.method.swept());
            assert_eq!(
                stats.states,
                game.0.len(),
                "unreachable states are swept too"
            );
            // The same operations in the same order: the same bits.
            assert_eq!(
                value.to_bits(),
                solve(&game).unwrap().start_value().to_bits()
            );
            let (exact, _) = Solver::new(&swept)
                .start_value::<perfectplay::Exact>()
                .unwrap();
            assert_eq!(exact, crate::common::brute_force(&game).unwrap());
        }
    }
}

#[test]
fn a_sweep_that_is_no_order_is_a_model_error() {
    let mut rng = Rng(34);
    let err = |game: &Table, order: fn(usize, usize) -> Option<usize>| {
        Solver::new(&swept(game, order))
            .start_value::<f64>()
            .expect_err("an error")
            .to_string()
    };
    let game =
        crate::common::random_game(&mut rng, 10, crate::common::Shape::Acyclic, &[Player::Max]);
    // Upwards: the start comes first, before its successors.
    let e = err(&game, |n, r| (r < n).then_some(r));
    assert!(
        e.contains("is not solved before it in the model's sweep order"),
        "{e}"
    );
    // A state twice.
    let e = err(&game, |n, r| downwards(n, r).or(Some(n - 1)));
    assert!(e.contains("twice"), "{e}");
    // The start left out.
    let e = err(&game, |n, r| downwards(n, r).filter(|&s| s != 0));
    assert!(e.contains("never gives the start state"), "{e}");
    // A game with cycles has no order.
    let cyclic = loop {
        let g =
            crate::common::random_game(&mut rng, 10, crate::common::Shape::Loops, &[Player::Min]);
        if solve(&g).unwrap().stats().cyclic_components > 0 {
            break g;
        }
    };
    let e = err(&cyclic, downwards);
    assert!(e.contains("a game with cycles has no such order"), "{e}");
}

/// A walk from 0 to `len`, one point per step, swept downwards with every other rank empty
/// and a given jump after an empty rank (`Model::sweep_resume`).
struct Gapped {
    len: usize,
    resume: fn(usize) -> usize,
}

impl Model for Gapped {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        0
    }
    fn expand(&self, &s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
        if s == self.len {
            return node.terminal(0);
        }
        node.decision(Player::Max);
        node.add_move(0, 1, s + 1);
    }
    fn dense_bound(&self) -> usize {
        self.len + 1
    }
    fn dense_index(&self, &s: &usize) -> Option<usize> {
        Some(s)
    }
    fn sweep_len(&self) -> usize {
        2 * (self.len + 1)
    }
    fn sweep_state(&self, rank: usize) -> Option<usize> {
        (rank % 2 == 0).then(|| self.len - rank / 2)
    }
    fn sweep_resume(&self, rank: usize) -> usize {
        (self.resume)(rank)
    }
}

#[test]
fn a_sweep_jumps_over_empty_ranks_as_the_model_says_and_no_further() {
    for threads in [1, 2] {
        let run = |resume: fn(usize) -> usize| {
            let g = Gapped { len: 9_000, resume };
            Solver::new(&g).threads(threads).start_value::<f64>()
        };
        // A jump to the next rank, and one that is no jump (taken as the next rank).
        for resume in [|r| r + 1, |_| 0] {
            let (value, stats) = run(resume).unwrap();
            assert_eq!((value, sweep_threads(&stats) > 0), (9_000.0, true));
        }
        // Jumps over states are caught: every jump lands on an empty rank, so the start is
        // never given (on two threads, a chunk's first state finds its successor unsolved).
        let e = run(|r| r + 2).expect_err("an error").to_string();
        assert!(
            e.contains("never gives the start state")
                || e.contains("is not solved before it in the model's sweep order"),
            "{e}"
        );
    }
}

#[test]
fn a_parallel_sweep_gives_the_bits_of_one_thread() {
    let mut rng = Rng(36);
    for (round, threads) in [2, 3, 4, 2, 3, 4].into_iter().enumerate() {
        // Thousands of states make many runs of ranks, in flight at once.
        let inner = 1000 + 900 * round;
        let players = [&[Player::Min][..], &[Player::Min, Player::Max]][round % 2];
        let game =
            crate::common::random_game(&mut rng, inner, crate::common::Shape::Acyclic, players);
        let one = Solver::new(&swept(&game, downwards))
            .start_value::<f64>()
            .unwrap();
        let (value, stats) = Solver::new(&swept(&game, downwards))
            .threads(threads)
            .start_value::<f64>()
            .unwrap();
        assert_eq!(value.to_bits(), one.0.to_bits(), "round {round}");
        assert_eq!(
            (stats.states, stats.components),
            (one.1.states, one.1.components)
        );
        assert!(stats.method.swept() && sweep_threads(&one.1) == 1);
        // Successors are anywhere above a state: threads seldom wait, and all stay.
        assert_eq!(sweep_threads(&stats), threads, "round {round}");
    }
}

#[test]
fn a_parallel_sweep_reports_model_errors() {
    let mut rng = Rng(37);
    let game = crate::common::random_game(
        &mut rng,
        5000,
        crate::common::Shape::Acyclic,
        &[Player::Max],
    );
    let err = |game: &Table, order: fn(usize, usize) -> Option<usize>| {
        Solver::new(&swept(game, order))
            .threads(3)
            .start_value::<f64>()
            .expect_err("an error")
            .to_string()
    };
    // The wrong order fails at its first state, as with one thread.
    let e = err(&game, |n, r| (r < n).then_some(r));
    assert!(e.contains("state 0: its successor"), "{e}");
    assert!(e.contains("is not solved before it"), "{e}");
    let e = err(&game, |n, r| downwards(n, r).or(Some(n - 1)));
    assert!(e.contains("twice"), "{e}");
    let e = err(&game, |n, r| downwards(n, r).filter(|&s| s != 0));
    assert!(e.contains("never gives the start state"), "{e}");
    // A game with cycles fails rather than waiting forever.
    for _ in 0..5 {
        let cyclic =
            crate::common::random_game(&mut rng, 5000, crate::common::Shape::Loops, &[Player::Min]);
        let e = err(&cyclic, downwards);
        assert!(e.contains("a game with cycles has no such order"), "{e}");
    }
    // A model that panics on one thread: the panic reaches the caller, and nothing hangs.
    struct Panics<'a>(Numbered<'a>);
    impl Model for Panics<'_> {
        type State = usize;
        type Move = usize;
        fn start(&self) -> usize {
            0
        }
        fn expand(&self, s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
            assert!(*s != 2000, "the model's own bug");
            self.0.expand(s, node)
        }
        fn dense_bound(&self) -> usize {
            self.0.dense_bound()
        }
        fn dense_index(&self, s: &usize) -> Option<usize> {
            self.0.dense_index(s)
        }
        fn sweep_len(&self) -> usize {
            self.0.sweep_len()
        }
        fn sweep_state(&self, rank: usize) -> Option<usize> {
            self.0.sweep_state(rank)
        }
    }
    let panics = Panics(swept(&game, downwards));
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Solver::new(&panics).threads(3).start_value::<f64>()
    }));
    assert!(caught.is_err());
    let e = Solver::new(&swept(&game, downwards))
        .threads(2)
        .max_states(2000)
        .start_value::<f64>();
    assert!(
        matches!(e, Err(SolveError::StateLimit { limit: 2000, explored, .. }) if explored > 2000),
        "{e:?}"
    );
}

#[test]
fn a_sweep_keeps_the_state_limit_and_needs_a_numbering() {
    let mut rng = Rng(35);
    let game =
        crate::common::random_game(&mut rng, 10, crate::common::Shape::Acyclic, &[Player::Max]);
    let e = Solver::new(&swept(&game, downwards))
        .max_states(5)
        .start_value::<f64>();
    assert!(
        matches!(e, Err(SolveError::StateLimit { limit: 5, .. })),
        "{e:?}"
    );
    // Without a numbering the engine explores instead.
    let unnumbered = Numbered {
        bound: 0,
        ..swept(&game, downwards)
    };
    let (value, stats) = Solver::new(&unnumbered).start_value::<f64>().unwrap();
    assert!(!stats.method.swept());
    assert_eq!(value, *solve(&game).unwrap().start_value());
}

/// A random acyclic game of `n` states whose moves and outcomes lead at most `span` states
/// on, the first of each state exactly `span` on where there is room; the last three states
/// are terminal.
fn local_game(rng: &mut Rng, n: usize, span: usize) -> Table {
    let reward = |rng: &mut Rng| Rat::new(rng.range(-4, 4), rng.range(1, 3));
    let mut nodes = Vec::with_capacity(n);
    for x in 0..n - 3 {
        let room = span.min(n - 1 - x);
        // The first successor is `room` on, the others anywhere up to it.
        let mut first = Some(x + room);
        let mut next = |rng: &mut Rng| first.take().unwrap_or_else(|| x + 1 + rng.below(room));
        nodes.push(match rng.below(3) {
            0 => GNode::Chance(vec![
                (Rat::new(1, 3), reward(rng), next(rng)),
                (Rat::new(2, 3), reward(rng), next(rng)),
            ]),
            k => {
                let player = [Player::Min, Player::Max][k - 1];
                let moves = 1 + rng.below(3);
                GNode::Decision(
                    player,
                    (0..moves).map(|_| (reward(rng), next(rng))).collect(),
                )
            }
        });
    }
    for _ in 0..3 {
        nodes.push(GNode::Terminal(Rat::from(rng.range(-9, 9))));
    }
    Table(nodes)
}

/// A [`Table`] from state `start`, numbered along a sweep from the last state down (state `s`
/// gets `n - 1 - s`), with a sweep window.
struct Windowed<'a> {
    game: &'a Table,
    start: usize,
    window: usize,
    /// The state at a rank of the sweep, given the number of states.
    order: fn(usize, usize) -> Option<usize>,
}

impl Model for Windowed<'_> {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        self.start
    }
    fn expand(&self, s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
        self.game.expand(s, node)
    }
    fn dense_bound(&self) -> usize {
        self.game.0.len()
    }
    fn dense_index(&self, s: &usize) -> Option<usize> {
        let n = self.game.0.len();
        (*s < n).then(|| n - 1 - s)
    }
    fn sweep_len(&self) -> usize {
        self.game.0.len() + 1
    }
    fn sweep_state(&self, rank: usize) -> Option<usize> {
        (self.order)(self.game.0.len(), rank)
    }
    fn sweep_window(&self) -> usize {
        self.window
    }
}

#[test]
fn a_sweep_window_gives_the_values_of_the_whole_table() {
    let mut rng = Rng(38);
    for span in [1, 2, 5, 7, 8, 9, 30, 100] {
        for start in [0, 700] {
            let game = local_game(&mut rng, 3000, span);
            let windowed = |window| Windowed {
                game: &game,
                start,
                window,
                order: downwards,
            };
            // The least window, one larger, and none (the whole table).
            let (whole, stats) = Solver::new(&windowed(0)).start_value::<f64>().unwrap();
            assert!(stats.method.swept());
            for window in [span + 1, span + 2] {
                let (value, stats) = Solver::new(&windowed(window)).start_value::<f64>().unwrap();
                assert!(stats.method.swept());
                assert_eq!(stats.states, 3000, "every state is swept");
                assert_eq!(value.to_bits(), whole.to_bits(), "span {span}");
                let (exact, _) = Solver::new(&windowed(window))
                    .start_value::<perfectplay::Exact>()
                    .unwrap();
                let explored = solve_exact(&windowed(0)).unwrap();
                assert_eq!(&exact, explored.start_value(), "span {span}");
                let explored = solve(&windowed(0)).unwrap();
                assert_eq!(explored.start_value().to_bits(), value.to_bits());
            }
        }
    }
}

#[test]
fn a_sweep_window_that_is_not_kept_is_a_model_error() {
    let mut rng = Rng(39);
    let game = local_game(&mut rng, 3000, 30);
    let err = |window, order: fn(usize, usize) -> Option<usize>| {
        let model = Windowed {
            game: &game,
            start: 0,
            window,
            order,
        };
        Solver::new(&model)
            .start_value::<f64>()
            .expect_err("an error")
            .to_string()
    };
    // Successors 30 numbers back, with a window of 4 (8 values kept).
    let e = err(4, downwards);
    assert!(e.contains("is not solved before it"), "{e}");
    assert!(e.contains("sweep window"), "{e}");
    // A number that does not increase: a state twice, or two terminal states (numbers 0 and
    // 1) the other way round.
    let e = err(31, |n, r| downwards(n, r).or(Some(n - 1)));
    assert!(e.contains("numbers must increase"), "{e}");
    let e = err(31, |n, r| downwards(n, r ^ usize::from(r < 2)));
    assert!(e.contains("its number (dense_index) is 0, after 1"), "{e}");
    // The start left out.
    let e = err(31, |n, r| downwards(n, r).filter(|&s| s != 0));
    assert!(e.contains("never gives the start state"), "{e}");
}

/// The front end's default: every core for a large sweep that keeps every value, one thread
/// for a small sweep or one with a window.
#[test]
fn a_large_sweep_without_a_window_runs_on_every_core_by_default() {
    use perfectplay::dynamic::{DynModel, SolveOptions};
    use perfectplay::PARALLEL_SWEEP_RANKS;
    /// Counting down from 1,000 by 1 or 2, with `ranks` ranks in its sweep (the rest empty).
    struct Countdown {
        ranks: usize,
        window: usize,
    }
    impl Model for Countdown {
        type State = u32;
        type Move = u32;
        fn start(&self) -> u32 {
            1000
        }
        fn expand(&self, &n: &u32, node: &mut impl NodeBuilder<u32, u32>) {
            if n == 0 {
                return node.terminal(0);
            }
            node.decision(Player::Min);
            node.add_move(1, 1, n - 1);
            if n >= 2 {
                node.add_move(2, 1, n - 2);
            }
        }
        fn dense_bound(&self) -> usize {
            1001
        }
        fn dense_index(&self, &n: &u32) -> Option<usize> {
            Some(n as usize)
        }
        fn sweep_len(&self) -> usize {
            self.ranks
        }
        fn sweep_state(&self, rank: usize) -> Option<u32> {
            (rank <= 1000).then_some(rank as u32)
        }
        fn sweep_window(&self) -> usize {
            self.window
        }
    }
    let threads = |ranks, window| {
        let r = Countdown { ranks, window }
            .solve_report(SolveOptions::default())
            .unwrap();
        assert_eq!(r.value, 500.0);
        assert!(r.stats.method.swept());
        sweep_threads(&r.stats)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    assert_eq!(threads(PARALLEL_SWEEP_RANKS, 0), cores);
    assert_eq!(threads(PARALLEL_SWEEP_RANKS - 1, 0), 1);
    assert_eq!(threads(PARALLEL_SWEEP_RANKS, 3), 1);
}

/// A random acyclic game whose numbers are all dyadic: rewards in halves, coin flips of 1/2 and
/// 1/4, and, if `thirds`, one chance node with a probability of 1/3 somewhere.
fn dyadic_game(rng: &mut Rng, inner: usize, thirds: bool) -> Table {
    let n = inner + 3;
    let reward = |rng: &mut Rng| Rat::new(rng.range(-6, 6), 2);
    let mut nodes = Vec::with_capacity(n);
    for x in 0..inner {
        let forward = |rng: &mut Rng| x + 1 + rng.below(n - x - 1);
        nodes.push(match rng.below(3) {
            0 => GNode::Chance(vec![
                (Rat::new(1, 2), reward(rng), forward(rng)),
                (Rat::new(1, 4), reward(rng), forward(rng)),
                (Rat::new(1, 4), reward(rng), forward(rng)),
            ]),
            k => GNode::Decision(
                [Player::Max, Player::Min][k - 1],
                (0..1 + rng.below(3))
                    .map(|_| (reward(rng), forward(rng)))
                    .collect(),
            ),
        });
    }
    if thirds {
        nodes[inner - 1] = GNode::Chance(vec![
            (Rat::new(1, 3), reward(rng), inner),
            (Rat::new(2, 3), reward(rng), inner + 1),
        ]);
    }
    for _ in 0..3 {
        nodes.push(GNode::Terminal(Rat::from(rng.range(-9, 9))));
    }
    Table(nodes)
}

/// The exact start value of a sweepable game whose numbers stay dyadic comes from checked floats
/// (no primes); one rounding anywhere sends it to the other methods, with the same answer.
#[test]
fn dyadic_games_are_exact_in_checked_floats() {
    let mut rng = Rng(36);
    for round in 0..200 {
        let thirds = round % 2 == 1;
        let game = dyadic_game(&mut rng, 12, thirds);
        let (value, stats) = Solver::new(&swept(&game, downwards))
            .exact_start_value()
            .unwrap();
        assert_eq!(
            value,
            crate::common::brute_force(&game).unwrap(),
            "round {round}"
        );
        // Outcomes of 1/2 and 1/4 have no common denominator, so the sweep solves those
        // states from a recorded node: the same bits as exploring.
        let (float, _) = Solver::new(&swept(&game, downwards))
            .start_value::<f64>()
            .unwrap();
        assert_eq!(
            float.to_bits(),
            solve(&game).unwrap().start_value().to_bits(),
            "round {round}"
        );
        // The sweep solves every state of the table, the one with a third too.
        assert_eq!(stats.method.swept(), !thirds, "round {round}: {stats:?}");
        if stats.method.swept() {
            assert_eq!(stats.method, Method::CheckedSweep);
        }
    }
}

#[test]
fn transient_states_are_solved_inside_the_states_that_reach_them() {
    let mut rng = Rng(40);
    // Every third state, every other state (more often transient inside transient, which
    // the recorded node solves), or none. A transient state is solved once per path of
    // transient states to it, so not too many.
    let picks: [fn(usize) -> bool; 3] = [|s| s % 3 == 1, |s| s % 2 == 1, |_| false];
    for players in [&[Player::Max][..], &[Player::Min, Player::Max]] {
        for round in 0..100 {
            let game =
                crate::common::random_game(&mut rng, 12, crate::common::Shape::Acyclic, players);
            let explored = solve(&game).unwrap();
            for transient in picks {
                let model = Numbered {
                    transient,
                    ..swept(&game, downwards)
                };
                for threads in [1, 2] {
                    let (value, stats) = Solver::new(&model)
                        .threads(threads)
                        .start_value::<f64>()
                        .unwrap();
                    assert!(stats.method.swept());
                    assert_eq!(
                        value.to_bits(),
                        explored.start_value().to_bits(),
                        "round {round}, {threads} threads"
                    );
                }
                let (exact, _) = Solver::new(&model)
                    .start_value::<perfectplay::Exact>()
                    .unwrap();
                assert_eq!(
                    exact,
                    crate::common::brute_force(&game).unwrap(),
                    "round {round}"
                );
            }
        }
    }
}

#[test]
fn transient_states_in_a_cycle_are_a_model_error() {
    // 0 -> 1 <-> 2, with 1 and 2 transient: the sweep would expand them forever.
    let game = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ONE, 1)]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 2), (Rat::ZERO, 3)]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 1)]),
        GNode::Terminal(Rat::ZERO),
    ]);
    let model = Numbered {
        transient: |s| s == 1 || s == 2,
        ..swept(&game, downwards)
    };
    for threads in [1, 2] {
        let e = Solver::new(&model)
            .threads(threads)
            .start_value::<f64>()
            .expect_err("a cycle of transient states")
            .to_string();
        assert!(
            e.contains("transient states (Model::transient) lie more than 64 deep"),
            "{e}"
        );
    }
}

/// A walk down from `n` to 0, one state a step, numbered and swept when `swept`.
struct Walk {
    n: u32,
    swept: bool,
}

impl Model for Walk {
    type State = u32;
    type Move = &'static str;
    fn start(&self) -> u32 {
        self.n
    }
    fn expand(&self, &k: &u32, node: &mut impl NodeBuilder<u32, &'static str>) {
        if k == 0 {
            return node.terminal(0);
        }
        node.decision(Player::Max);
        node.add_move("step", 1, k - 1);
    }
    fn dense_bound(&self) -> usize {
        if self.swept {
            self.n as usize + 1
        } else {
            0
        }
    }
    fn dense_index(&self, &k: &u32) -> Option<usize> {
        self.swept.then_some(k as usize)
    }
    fn sweep_len(&self) -> usize {
        self.dense_bound()
    }
    fn sweep_state(&self, rank: usize) -> Option<u32> {
        Some(rank as u32)
    }
}

/// A stop flag set from the progress callback ends exploring and sweeping solves, with the
/// states reached; unset, it changes nothing.
#[test]
fn a_stop_flag_interrupts_a_solve() {
    use std::sync::atomic::{AtomicBool, Ordering};
    for swept in [false, true] {
        let walk = Walk { n: 300_000, swept };
        let stop = AtomicBool::new(false);
        let mut on_progress = |_: &perfectplay::Progress| stop.store(true, Ordering::Relaxed);
        let err = Solver::new(&walk)
            .on_progress(&mut on_progress)
            .stop_on(&stop)
            .start_value::<f64>()
            .expect_err("interrupted");
        match err {
            SolveError::Interrupted { states } => {
                assert!((1 << 16..300_000).contains(&states), "{states}")
            }
            e => panic!("{e}"),
        }
        let idle = AtomicBool::new(false);
        let (v, _) = Solver::new(&walk)
            .stop_on(&idle)
            .start_value::<f64>()
            .unwrap();
        assert_eq!(v, 300_000.0);
    }
}

/// A solve that shares its model keeps it alive for the queries after the caller's handle is
/// gone.
#[test]
fn a_shared_solve_owns_its_model() {
    use perfectplay::dynamic::{DynModel, SolveOptions};
    use std::sync::Arc;
    let model: Arc<dyn DynModel> = Arc::new(Walk { n: 5, swept: false });
    let solved = Arc::clone(&model)
        .solve_shared(SolveOptions {
            exact: true,
            ..Default::default()
        })
        .unwrap();
    drop(model);
    assert_eq!(solved.report().exact.as_deref(), Some("5"));
    assert_eq!(solved.states(), 6);
    let e = solved.explain(0).unwrap();
    assert_eq!(e.explanation.state, "5");
    assert_eq!(e.next, vec![vec![(Rat::ONE, 1)]]);
}

/// A re-roll that succeeds once in `odds`: state 0 is a choice between stopping (worth
/// `stop`) and rolling (one step), which comes back to 0 unless it hits, worth `prize` more.
struct Longshot {
    odds: i64,
    stop: i64,
    prize: i64,
}

impl Model for Longshot {
    type State = u8;
    type Move = &'static str;
    fn start(&self) -> u8 {
        0
    }
    fn expand(&self, s: &u8, node: &mut impl NodeBuilder<u8, &'static str>) {
        match s {
            0 => {
                node.decision(Player::Max);
                node.add_move("stop", self.stop, 2);
                node.add_move("roll", -1, 1);
            }
            1 => {
                node.chance();
                node.add_outcome("hit", Rat::new(1, self.odds), self.prize, 2);
                node.add_outcome("miss", Rat::new(self.odds - 1, self.odds), 0, 0);
            }
            _ => node.terminal(0),
        }
    }
}

/// Loops that come back with probability within 1e-9 of one: the float value keeps its
/// digits (the pivot is summed from the exits, not `1 - (1 - ε)`), and agrees with the exact
/// one to a few rounding errors.
#[test]
fn near_certain_loops_keep_their_float_digits() {
    for odds in [3, 1_000_003, 4_294_967_295, 1 << 40] {
        // Rolling costs `odds` steps on average and wins `prize`; stopping wins `stop`.
        let g = Longshot {
            odds,
            stop: 1,
            prize: 3 * odds,
        };
        let float = *solve(&g).unwrap().start_value();
        let exact = perfectplay::Number::to_f64(solve_exact(&g).unwrap().start_value());
        assert_eq!(exact, (2 * odds) as f64, "{odds}");
        let error = (float - exact).abs() / exact;
        assert!(error < 1e-14, "odds {odds}: {float} vs {exact} ({error:e})");
    }
}

/// A float value beyond floating point's range (a payoff of 2^2000, a sum of 2^1023 twice) is
/// an error that says to solve exactly, never an infinity; the exact solve gives the value.
#[test]
fn float_values_beyond_range_are_errors_and_exact_ones_answer() {
    let huge: Rat = format!("{}", malachite_nz::natural::Natural::from(1u32) << 2000u64)
        .parse()
        .unwrap();
    let half = Rat::new(1, 2);
    let g = Table(vec![
        GNode::Chance(vec![(half, Rat::ZERO, 1), (half, Rat::ZERO, 2)]),
        GNode::Terminal(huge),
        t(0),
    ]);
    let e = err(&g);
    assert!(e.contains("beyond floating point's range"), "{e}");
    let e = Solver::new(&g)
        .start_value::<f64>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("solve in exact arithmetic"), "{e}");
    let exact = solve_exact(&g).unwrap();
    assert_eq!(exact.start_value().0, (huge * half).to_rational());
    // Payoffs within range whose total is not: 2^1023 + 2^1023.
    let big: Rat = format!("{}", malachite_nz::natural::Natural::from(1u32) << 1023u64)
        .parse()
        .unwrap();
    let g = Table(vec![
        GNode::Chance(vec![(Rat::ONE, big, 1)]),
        GNode::Terminal(big),
    ]);
    assert!(err(&g).contains("beyond floating point's range"));
    assert_eq!(
        solve_exact(&g).unwrap().start_value().0,
        (big + big).to_rational()
    );
}
