//! Turn-local states (`Model::turn_of`): random games given a turn structure are solved by
//! turns and by exploring every state, and against brute force; the bits do not depend on the
//! threads; the hook's rules are checked.

use std::collections::VecDeque;

use crate::common::{brute_force, profiles, random_game, Rng, Shape, Table};
use perfectplay::dynamic::{DynModel, SolveOptions};
use perfectplay::{
    DistributionOptions, Exact, Method, Model, NodeBuilder, Number, Player, Rat, SolveError, Solver,
};

/// A table game with a turn structure: `turn[s]` is the kept state whose turn `s` is local to.
struct Turns {
    table: Table,
    turn: Vec<Option<usize>>,
    /// Whether the hook is offered (without it, the same game is explored as a whole).
    on: bool,
    /// The numbers of local states within their turn (`turn_index`), if given: `s % modulus`.
    modulus: Option<usize>,
}

impl Model for Turns {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        0
    }
    fn expand(&self, s: &usize, node: &mut impl NodeBuilder<usize, usize>) {
        self.table.expand(s, node)
    }
    fn has_turns(&self) -> bool {
        self.on
    }
    fn turn_of(&self, s: &usize) -> Option<usize> {
        self.turn[*s]
    }
    fn turn_bound(&self) -> usize {
        self.modulus.unwrap_or(0)
    }
    fn turn_index(&self, s: &usize) -> Option<usize> {
        self.turn[*s].and(self.modulus.map(|m| s % m))
    }
    fn parse_state(&self, text: &str) -> Result<usize, String> {
        match text.parse() {
            Ok(s) if s < self.table.0.len() => Ok(s),
            _ => Err(format!("no state {text}")),
        }
    }
}

/// The successors of every state of a table.
fn successors(table: &Table) -> Vec<Vec<usize>> {
    (0..table.0.len())
        .map(|s| {
            let mut node = perfectplay::Node::new();
            table.expand(&s, &mut node);
            node.branches().iter().map(|b| b.next).collect()
        })
        .collect()
}

/// A turn structure for `table`: the start, the terminals and a random third of the others
/// are kept; every other state is local to the one kept state whose turn reaches it, or kept
/// where two turns reach it (until that holds everywhere).
fn with_turns(table: Table, rng: &mut Rng) -> Turns {
    let n = table.0.len();
    let next = successors(&table);
    let mut kept: Vec<bool> = (0..n)
        .map(|s| s == 0 || next[s].is_empty() || rng.chance(1, 3))
        .collect();
    loop {
        let mut owner: Vec<Option<usize>> = vec![None; n];
        let mut conflict = None;
        for k in (0..n).filter(|&k| kept[k]) {
            let mut queue = VecDeque::from([k]);
            let mut seen = vec![false; n];
            while let Some(s) = queue.pop_front() {
                for &t in &next[s] {
                    if kept[t] || seen[t] {
                        continue;
                    }
                    seen[t] = true;
                    match owner[t] {
                        Some(o) if o != k => conflict = conflict.or(Some(t)),
                        _ => owner[t] = Some(k),
                    }
                    queue.push_back(t);
                }
            }
        }
        match conflict {
            Some(t) => kept[t] = true,
            None => {
                return Turns {
                    table,
                    turn: (0..n)
                        .map(|s| if kept[s] { None } else { owner[s] })
                        .collect(),
                    on: true,
                    // Every other game numbers its local states (state numbers are unique).
                    modulus: rng.chance(1, 2).then_some(n),
                };
            }
        }
    }
}

/// Random games of every shape that stops, one and two players, with turns.
fn games(count: u64) -> impl Iterator<Item = (u64, Turns)> {
    (0..count).map(|seed| {
        let mut rng = Rng(seed);
        let shape = [Shape::Acyclic, Shape::Stopping][seed as usize % 2];
        let players: &[Player] = if seed % 3 == 0 {
            &[Player::Max]
        } else {
            &[Player::Max, Player::Min]
        };
        let inner = 4 + rng.below(9);
        let table = random_game(&mut rng, inner, shape, players);
        (seed, with_turns(table, &mut rng))
    })
}

#[test]
fn turns_give_the_values_of_exploring_and_of_brute_force() {
    let mut compared = 0;
    for (seed, mut game) in games(400) {
        let (by_turns, stats) = Solver::new(&game).start_value::<Exact>().unwrap();
        assert!(matches!(stats.method, Method::Turns { .. }), "{seed}");
        // The whole game evaluated modulo primes, cycles and all, gives the same fraction.
        let (modular, stats) = Solver::new(&game).exact_start_value().unwrap();
        assert_eq!(modular, by_turns, "seed {seed}");
        assert!(
            matches!(stats.method, Method::Multimodular { .. }),
            "{seed}"
        );
        game.on = false;
        let explored = perfectplay::solve_exact(&game).unwrap();
        assert_eq!(by_turns, *explored.start_value(), "seed {seed}");
        if profiles(&game.table) <= 5_000 {
            let brute = brute_force(&game.table).expect("stopping games have values");
            assert_eq!(by_turns, brute, "seed {seed}");
            compared += 1;
        }
        // Floats agree with the exact value within their error bound, compared exactly.
        game.on = true;
        let (f, stats) = Solver::new(&game).start_value::<f64>().unwrap();
        let error = Exact::of_float(f).unwrap().sub(&by_turns).abs();
        assert!(
            error <= Exact::of_float(stats.error_bound).unwrap(),
            "seed {seed}: {f} is {:e} from {by_turns}, bound {:e}",
            error.to_f64(),
            stats.error_bound
        );
    }
    assert!(compared > 200, "{compared}");
}

#[test]
fn the_bits_do_not_depend_on_the_threads() {
    for (seed, game) in games(200) {
        let one = Solver::new(&game)
            .threads(1)
            .start_value::<f64>()
            .unwrap()
            .0;
        for threads in [2, 3, 4] {
            let many = Solver::new(&game)
                .threads(threads)
                .start_value::<f64>()
                .unwrap()
                .0;
            assert_eq!(
                one.to_bits(),
                many.to_bits(),
                "seed {seed}, {threads} threads"
            );
        }
    }
}

/// Every query of the front ends agrees with the game explored as a whole: the value and
/// explanation of every state, the strategy's values, the distribution.
#[test]
fn queries_agree_with_the_game_explored_whole() {
    for (seed, game) in games(150) {
        let options = || SolveOptions {
            exact: true,
            ..SolveOptions::default()
        };
        let plain = Turns {
            table: game.table.clone(),
            turn: game.turn.clone(),
            on: false,
            modulus: None,
        };
        let turns = game.solve_dyn(options()).unwrap();
        let whole = plain.solve_dyn(options()).unwrap();
        assert_eq!(turns.report().exact, whole.report().exact, "seed {seed}");
        let mut reached = 0;
        for s in 0..game.table.0.len() {
            let (a, b) = (turns.find(&format!("{s}")), whole.find(&format!("{s}")));
            let (Ok(a), Ok(b)) = (a, b) else {
                // Unreachable in one, unreachable in the other.
                assert!(
                    turns.find(&s.to_string()).is_err() && whole.find(&s.to_string()).is_err(),
                    "seed {seed}, state {s}"
                );
                continue;
            };
            reached += 1;
            // The values of every branch; which of equal moves is chosen may differ where a
            // cycle's strategy iteration starts elsewhere.
            let seen = |e: perfectplay::dynamic::Explained| {
                let x = e.explanation;
                let branches: Vec<_> = x
                    .branches
                    .into_iter()
                    .map(|b| (b.label, b.next, b.value, b.loss, b.optimal))
                    .collect();
                (x.state, x.kind, x.value, branches)
            };
            let (x, y) = (
                seen(turns.explain(a).unwrap()),
                seen(whole.explain(b).unwrap()),
            );
            assert_eq!(x, y, "seed {seed}, state {s}");
        }
        assert!(reached >= 1);
        let values = |solved: &dyn perfectplay::dynamic::Solved| {
            let mut rows: Vec<(String, Option<String>)> = solved
                .strategy()
                .unwrap()
                .into_iter()
                .map(|r| (r.state, r.value.exact))
                .collect();
            rows.sort();
            rows
        };
        assert_eq!(values(&*turns), values(&*whole), "seed {seed}");
        let d = DistributionOptions::default();
        let acyclic = seed % 2 == 0;
        match (turns.distribution(&d), whole.distribution(&d)) {
            (Ok(a), Ok(b)) if acyclic => assert_eq!(a, b, "seed {seed}"),
            // Through cycles the flow may cut a tail of at most 1e-12.
            (Ok(a), Ok(_)) => {
                let v = turns.report().value;
                assert!(
                    (a.mean.float - v).abs() < 1e-6 * (1.0 + v.abs()),
                    "seed {seed}"
                );
            }
            // A cycle inside a turn: refused, by name.
            (Err(SolveError::Unsupported(m)), _) => assert!(m.contains("cycles inside"), "{m}"),
            (a, b) => panic!("seed {seed}: {a:?} vs {b:?}"),
        }
        let (a, b) = (
            turns.simulate(200, seed).unwrap(),
            whole.simulate(200, seed).unwrap(),
        );
        if acyclic {
            assert_eq!(a.mean, b.mean, "seed {seed}");
        }
    }
}

/// The hook's rules, each broken once.
#[test]
fn broken_turn_structures_are_errors_naming_the_state() {
    use crate::common::GNode;
    let t = |p: i64| GNode::Terminal(Rat::from(p));
    // 0 and 1 are kept; 2 is local to 0 but reached from 1's turn too.
    let table = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 2), (Rat::ZERO, 1)]),
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 2), (Rat::ZERO, 3)]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 3)]),
        t(0),
    ]);
    let game = Turns {
        table: table.clone(),
        turn: vec![None, None, Some(0), None],
        on: true,
        modulus: None,
    };
    let e = Solver::new(&game)
        .start_value::<f64>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("state 2") && e.contains("local to 0") && e.contains("turn of 1"),
        "{e}"
    );
    // A local start.
    let game = Turns {
        table: table.clone(),
        turn: vec![Some(1), None, Some(0), None],
        on: true,
        modulus: None,
    };
    let e = Solver::new(&game)
        .start_value::<f64>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("start state must be kept"), "{e}");
    // A state local to a state that is itself local.
    let game = Turns {
        table,
        turn: vec![None, Some(0), Some(1), None],
        on: true,
        modulus: None,
    };
    let e = Solver::new(&game)
        .start_value::<f64>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("state 2") && e.contains("local to 1"), "{e}");
}

/// A turn numbering that gives two local states of one turn one number is an error.
#[test]
fn a_turn_numbering_that_collides_is_an_error() {
    use crate::common::GNode;
    let table = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::ZERO, 2)]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 3)]),
        GNode::Decision(Player::Max, vec![(Rat::ONE, 3)]),
        GNode::Terminal(Rat::ZERO),
    ]);
    let game = Turns {
        table,
        turn: vec![None, Some(0), Some(0), None],
        on: true,
        modulus: Some(1),
    };
    let e = Solver::new(&game)
        .start_value::<f64>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("turn_index gives it the same number as state 1"),
        "{e}"
    );
}

/// A cycle inside a turn is solved as any cycle: a coin tossed until heads, inside one turn.
#[test]
fn a_cycle_inside_a_turn_is_solved() {
    use crate::common::GNode;
    let h = Rat::new(1, 2);
    let table = Table(vec![
        GNode::Decision(Player::Max, vec![(Rat::ZERO, 1), (Rat::from(1), 2)]),
        GNode::Chance(vec![(h, Rat::from(1), 1), (h, Rat::ZERO, 2)]),
        GNode::Terminal(Rat::ZERO),
    ]);
    let game = Turns {
        table,
        turn: vec![None, Some(0), None],
        on: true,
        modulus: None,
    };
    let (v, _) = Solver::new(&game).exact_start_value().unwrap();
    assert_eq!(v, Exact::from_rat(Rat::from(1)));
    let solved = game.solve_dyn(SolveOptions::default()).unwrap();
    let e = solved.explain(solved.find("1").unwrap()).unwrap();
    assert_eq!(e.explanation.value.float, 1.0);
}
