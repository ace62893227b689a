//! Results beyond the value, on random games: the distribution of the total, the exported
//! strategy re-evaluated independently, simulated play, and the type-erased interface.

use crate::common::{profiles, random_game, GMove, GNode, Rng, Shape, Table};
use perfectplay::dynamic::DynModel;
use perfectplay::verify::evaluate_strategy;
use perfectplay::{solve, solve_exact, DistributionOptions, Exact, Model, Number, Player, Rat};

/// A random game of 2 to 9 inner states.
fn small_game(rng: &mut Rng, shape: Shape, players: &[Player]) -> Table {
    let inner = 2 + rng.below(8);
    random_game(rng, inner, shape, players)
}

#[test]
fn acyclic_distribution_is_exact_and_its_mean_is_the_value() {
    let mut rng = Rng(11);
    for _ in 0..150 {
        let inner = 2 + rng.below(9);
        let game = random_game(&mut rng, inner, Shape::Acyclic, &[Player::Min, Player::Max]);
        let exact = solve_exact(&game).unwrap();
        let d = exact
            .distribution(&game, &DistributionOptions::default())
            .unwrap();
        assert_eq!(d.tail, Exact::zero(), "{game:?}");
        assert_eq!(d.mass(), Exact::one(), "{game:?}");
        assert_eq!(d.mean(), *exact.start_value(), "{game:?}");
        // Totals are listed once each, in increasing order, with positive probability.
        assert!(d.pmf.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(d.pmf.iter().all(|(_, p)| *p > Exact::zero()));
        // Float agrees.
        let float = solve(&game).unwrap();
        let f = float
            .distribution(&game, &DistributionOptions::default())
            .unwrap();
        assert!((f.mass() - 1.0).abs() < 1e-12);
        assert!((f.mean() - float.start_value()).abs() < 1e-9 * float.start_value().abs().max(1.0));
    }
}

/// Checks the distribution of a game with cycles that may be cut: in exact numbers the listed
/// mass and the tail add up to one exactly and the tail is within the bound; float numbers
/// list the same totals with the same probabilities; and the mean approaches the value as the
/// bound shrinks. Whether anything was cut.
fn check_cut_distribution(game: &Table) -> bool {
    let exact = solve_exact(game).unwrap();
    let options = DistributionOptions {
        tail: 1e-6,
        ..DistributionOptions::default()
    };
    let d = exact.distribution(game, &options).unwrap();
    assert_eq!(d.mass().add(&d.tail), Exact::one(), "{game:?}");
    assert!(d.tail.to_f64() <= 1e-6, "{game:?}");
    let float = solve(game).unwrap();
    let f = float.distribution(game, &options).unwrap();
    assert_eq!(f.pmf.len(), d.pmf.len(), "{game:?}");
    for ((t, p), (u, q)) in f.pmf.iter().zip(&d.pmf) {
        assert_eq!(t, u);
        assert!((p - q.to_f64()).abs() < 1e-12, "{game:?}");
    }
    let f = float
        .distribution(game, &DistributionOptions::default())
        .unwrap();
    let v = *float.start_value();
    assert!(
        (f.mean() - v).abs() < 1e-6 * v.abs().max(1.0),
        "mean {} vs value {v}\n{game:?}",
        f.mean()
    );
    d.tail > Exact::zero()
}

/// Random rewards (fractions, either sign), whose cycles are followed step by step unless their
/// rewards happen to be whole and not negative; then the same games with whole, non-negative
/// step costs, whose cycles are followed in order of total.
#[test]
fn cyclic_distribution_reports_its_tail() {
    let mut rng = Rng(12);
    for whole in [false, true] {
        let mut with_tail = 0;
        for _ in 0..100 {
            let game = small_game(&mut rng, Shape::Stopping, &[Player::Min, Player::Max]);
            let game = match whole {
                false => game,
                true => rewarded(&game, |r| Rat::from(r.parts().unwrap().0.abs()), |p| p),
            };
            with_tail += usize::from(check_cut_distribution(&game));
        }
        assert!(
            with_tail > 10,
            "too few games with a tail: {with_tail} ({whole})"
        );
    }
}

/// The game with every step reward replaced by `step(r)` and every payoff by `end(p)`.
fn rewarded(game: &Table, step: impl Fn(Rat) -> Rat, end: impl Fn(Rat) -> Rat) -> Table {
    let outs = |o: &Vec<(Rat, Rat, usize)>| o.iter().map(|&(p, r, t)| (p, step(r), t)).collect();
    Table(
        game.0
            .iter()
            .map(|n| match n {
                GNode::Terminal(p) => GNode::Terminal(end(*p)),
                GNode::Decision(pl, m) => {
                    GNode::Decision(*pl, m.iter().map(|&(r, t)| (step(r), t)).collect())
                }
                GNode::Mixed(pl, m) => GNode::Mixed(
                    *pl,
                    m.iter()
                        .map(|mv| match mv {
                            GMove::Plain(r, t) => GMove::Plain(step(*r), *t),
                            GMove::Random(r, o) => GMove::Random(step(*r), outs(o)),
                        })
                        .collect(),
                ),
                GNode::Chance(o) => GNode::Chance(outs(o)),
            })
            .collect(),
    )
}

/// Games with cycles but rewards only at the end (a game won or lost, as Pig): the total is the
/// payoff where play ends, and its distribution is exact, with no tail. Each probability is
/// checked against an independent evaluation of the same strategy in a game that pays one
/// exactly at the terminals with that payoff.
#[test]
fn cycles_without_step_rewards_give_exact_distributions() {
    let mut rng = Rng(15);
    let mut cyclic = 0;
    for i in 0..120 {
        let (shape, players): (_, &[Player]) = match i % 3 {
            0 => (Shape::Loops, &[Player::Min]),
            1 => (Shape::Stopping, &[Player::Min, Player::Max]),
            _ => (Shape::Stopping, &[Player::Max]),
        };
        let game = small_game(&mut rng, shape, players);
        let game = rewarded(&game, |_| Rat::ZERO, |p| p);
        let Ok(exact) = solve_exact(&game) else {
            continue; // a Loops game may have no value without step costs
        };
        cyclic += usize::from(exact.stats().cyclic_components > 0);
        let d = exact
            .distribution(&game, &DistributionOptions::default())
            .unwrap();
        assert_eq!((d.tail.clone(), d.steps), (Exact::zero(), 0), "{game:?}");
        assert_eq!(d.mass(), Exact::one(), "{game:?}");
        assert_eq!(d.mean(), *exact.start_value(), "{game:?}");
        let choice = |s: &usize| exact.chosen(s);
        for (t, p) in &d.pmf {
            let hits = rewarded(&game, |r| r, |q| Rat::from(i64::from(q == *t)));
            let want = evaluate_strategy(&hits, choice, 10_000).unwrap();
            assert_eq!(*p, want, "P(total = {t})\n{game:?}");
        }
        let f = solve(&game)
            .unwrap()
            .distribution(&game, &DistributionOptions::default())
            .unwrap();
        assert_eq!(f.pmf.len(), d.pmf.len());
        for ((t, p), (u, q)) in f.pmf.iter().zip(&d.pmf) {
            assert_eq!(t, u);
            assert!((p - q.to_f64()).abs() < 1e-12, "{game:?}");
        }
    }
    assert!(cyclic > 30, "too few games with cycles: {cyclic}");
}

#[test]
fn exported_strategy_reevaluated_independently_gives_the_value() {
    let mut rng = Rng(13);
    for shape in [Shape::Acyclic, Shape::Stopping, Shape::Loops] {
        for _ in 0..60 {
            let game = small_game(&mut rng, shape, &[Player::Min]);
            if profiles(&game) > 1 << 9 {
                continue;
            }
            let exact = solve_exact(&game).unwrap();
            let rows = exact.strategy(&game).unwrap();
            // Read the strategy back by its text only, as a user of the export would.
            let choice = |s: &<crate::common::Table as Model>::State| {
                let name = game.show_state(s);
                let row = rows.iter().find(|r| r.state == name)?;
                let mut node = perfectplay::Node::new();
                game.expand(s, &mut node);
                let found = node
                    .moves()
                    .position(|m| game.show_move(m.label) == row.chosen);
                found
            };
            let v = evaluate_strategy(&game, choice, 10_000).unwrap();
            assert_eq!(v, *exact.start_value(), "{shape:?}\n{game:?}");
            for r in &rows {
                assert!(r.optimal.contains(&r.chosen), "{r:?}");
            }
        }
    }
}

#[test]
fn simulated_mean_is_near_the_value() {
    let mut rng = Rng(14);
    let mut inside = 0;
    let trials = 40;
    for _ in 0..trials {
        let game = small_game(&mut rng, Shape::Stopping, &[Player::Min, Player::Max]);
        let Ok(solution) = solve(&game) else {
            continue;
        };
        let s = solution
            .simulate(&game, 4000, rng.next(), 1_000_000)
            .unwrap();
        let v = *solution.start_value();
        let (low, high) = s.ci95.expect("an interval for 4,000 games");
        inside += usize::from(low <= v && v <= high);
    }
    // A 95% interval misses now and then; far more misses would mean a wrong strategy.
    assert!(inside >= trials * 8 / 10, "{inside} of {trials}");
}

/// A watched simulation reports its games as they finish, ending with all of them, and gives
/// the same summary as an unwatched one.
#[test]
fn a_watched_simulation_reports_its_progress() {
    let mut rng = Rng(16);
    let game = small_game(&mut rng, Shape::Stopping, &[Player::Max]);
    let solution = solve(&game).unwrap();
    let mut seen = Vec::new();
    let watched = solution
        .simulate_watched(&game, 3000, 9, 1_000_000, &mut |n| {
            seen.push(n);
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(seen, vec![1024, 2048, 3000]);
    assert_eq!(
        watched,
        solution.simulate(&game, 3000, 9, 1_000_000).unwrap()
    );
}

#[test]
fn type_erased_interface_matches_the_typed_one() {
    let mut rng = Rng(15);
    let game = random_game(&mut rng, 8, Shape::Stopping, &[Player::Min]);
    let typed = solve_exact(&game).unwrap();
    let solved = game
        .solve_dyn(perfectplay::dynamic::SolveOptions {
            exact: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(solved.states(), typed.len());
    assert_eq!(
        solved.report().exact.as_deref(),
        Some(typed.start_value().to_string().as_str())
    );
    for id in 0..solved.states() {
        let e = solved.explain(id).unwrap();
        let state = typed.state_at(id);
        assert_eq!(e.explanation.state, game.show_state(state));
        assert_eq!(
            e.explanation.value.exact.as_deref(),
            Some(typed.value_at(id).to_string().as_str())
        );
        for (b, next) in e.explanation.branches.iter().zip(&e.next) {
            if b.outcomes.is_empty() {
                assert_eq!(next.len(), 1);
                assert_eq!(b.next, game.show_state(typed.state_at(next[0].1)));
            } else {
                // A random move: its outcomes in order, with their probabilities.
                assert_eq!(next.len(), b.outcomes.len());
                for (o, (p, id)) in b.outcomes.iter().zip(next) {
                    assert_eq!(o.probability, *p);
                    assert_eq!(o.next, game.show_state(typed.state_at(*id)));
                }
            }
        }
    }
    let d = solved
        .distribution(&DistributionOptions::default())
        .unwrap();
    let last = d.pmf.last().unwrap();
    assert!((last.2.float + d.tail.float - 1.0).abs() < 1e-12);
    assert!(matches!(
        solved.explain(solved.states()),
        Err(perfectplay::SolveError::UnknownState { .. })
    ));
}
