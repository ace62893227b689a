//! Every built-in game in exact arithmetic: the distribution of the total sums to one and its
//! mean is the value (up to the stated tail for games with cycles), and the exported strategy,
//! read back by its text and re-evaluated by the independent checker, gives the value. The
//! start value alone (multi-modular for acyclic games, or checked floats for swept games whose
//! numbers stay dyadic) is the same fraction.

use perfectplay::verify::evaluate_strategy;
use perfectplay::{solve_exact, DistributionOptions, Exact, Method, Model, Node, Number, Solver};
use perfectplay_games::{
    gold_pots::{GoldPots, Variant},
    grid_game::GridGame,
    perfect_memory::PerfectMemory,
    pig::{Opponent, Pig},
    subset_sum_extreme::SubsetSumExtreme,
    yeetzhee::Yeetzhee,
};

fn check<M: Model + Sync>(model: &M)
where
    M::State: Send + Sync,
{
    let solution = solve_exact(model).unwrap();
    let value = solution.start_value().clone();
    let (start, stats) = Solver::new(model).exact_start_value().unwrap();
    assert_eq!(start, value);
    // Acyclic games get it by multi-modular evaluation, or exactly in checked floats when they
    // can be swept and their numbers stay dyadic (gold pots, the grid game).
    let acyclic = solution.stats().cyclic_components == 0;
    let by_method = matches!(
        stats.method,
        Method::Multimodular { primes } if primes > 0
    ) || stats.method == Method::CheckedSweep;
    assert_eq!(by_method, acyclic, "{:?}", stats.method);
    let d = solution
        .distribution(model, &DistributionOptions::default())
        .unwrap();
    assert_eq!(d.mass().add(&d.tail), Exact::one());
    if d.tail == Exact::zero() {
        assert_eq!(d.mean(), value);
    } else {
        assert!((d.mean().to_f64() - value.to_f64()).abs() < 1e-9 * value.to_f64().max(1.0));
    }
    let rows = solution.strategy(model).unwrap();
    let choice = |s: &M::State| {
        let name = model.show_state(s);
        let row = rows.iter().find(|r| r.state == name)?;
        let mut node = Node::new();
        model.expand(s, &mut node);
        let found = node
            .moves()
            .position(|m| model.show_move(m.label) == row.chosen);
        found
    };
    assert_eq!(evaluate_strategy(model, choice, 5_000).unwrap(), value);
}

#[test]
fn perfect_memory() {
    check(&PerfectMemory::new(2, 3).unwrap());
    check(&PerfectMemory::new(4, 4).unwrap());
}

#[test]
fn perfect_memory_start_values_at_many_sizes() {
    for rows in 1..=7 {
        for cols in 1..=7 {
            let Ok(game) = PerfectMemory::new(rows, cols) else {
                continue;
            };
            let direct = solve_exact(&game).unwrap();
            let (start, stats) = Solver::new(&game).exact_start_value().unwrap();
            assert_eq!(start, *direct.start_value(), "{rows}x{cols}");
            // Checked floats give up at the first probability that is not dyadic.
            let by_method = matches!(
                stats.method,
                Method::Multimodular { primes } if primes > 0
            ) || stats.method == Method::CheckedSweep;
            assert!(by_method, "{rows}x{cols}: {:?}", stats.method);
        }
    }
}

#[test]
fn subset_sum_extreme() {
    check(&SubsetSumExtreme::new(&[1, 2, 3], &[6, 5]).unwrap());
    check(&SubsetSumExtreme::new(&[1, 2, 3, 4, 5], &[1, 2, 3, 4, 5, 6]).unwrap());
}

#[test]
fn yeetzhee() {
    check(&Yeetzhee::new(3, 6, &[1, 2]).unwrap());
    check(&Yeetzhee::new(4, 3, &[1, 1, 2]).unwrap());
}

#[test]
fn gold_pots() {
    for v in [
        Variant::CompetitiveKnown,
        Variant::CooperativeKnown,
        Variant::CompetitiveUnknown,
        Variant::CooperativeUnknown,
    ] {
        check(&GoldPots::new(&[4, 1, 2, 10, 3, 7], v).unwrap());
    }
}

#[test]
fn grid_game() {
    let grid = perfectplay_games::grid_game::parse_grid("1 2 3; 4 5 6; 7 8 -9").unwrap();
    check(&GridGame::new(grid).unwrap());
}

#[test]
fn pig() {
    check(&Pig::new(5, Opponent::Optimal).unwrap());
    check(&Pig::new(5, Opponent::HoldAt(2)).unwrap());
}
