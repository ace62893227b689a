//! Every built-in game in exact arithmetic: the distribution of the total sums to one and its
//! mean is the value (up to the stated tail for games with cycles), and the exported strategy,
//! read back by its text and re-evaluated by the independent checker, gives the value. The
//! start value alone (multi-modular for acyclic games, or checked floats for swept games whose
//! numbers stay dyadic) is the same fraction. The float solve is within its error bound.

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
    // Every built-in game gets it by multi-modular evaluation, cycles and all, or exactly in
    // checked floats when it can be swept and its numbers stay dyadic (gold pots, the grid
    // game).
    let by_method = matches!(
        stats.method,
        Method::Multimodular { primes } if primes > 0
    ) || stats.method == Method::CheckedSweep;
    assert!(by_method, "{:?}", stats.method);
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
    floats_within_their_bound(model, &solution);
}

/// The float solve of `model` (every state, and the start alone on one and two threads) is
/// within its error bound of the exact values, compared exactly; and the bound is not far
/// above the error where there is one.
fn floats_within_their_bound<M: Model + Sync>(
    model: &M,
    exact: &perfectplay::Solution<M::State, Exact>,
) where
    M::State: Send + Sync,
{
    let distance = |f: f64, e: &Exact| Exact::of_float(f).unwrap().sub(e).abs();
    let exactly = |b: f64| Exact::of_float(b).unwrap();
    let float = Solver::new(model).solve::<f64>().unwrap();
    let bound = float.stats().error_bound;
    let mut worst = Exact::zero();
    for (s, v) in exact.iter() {
        let f = *float.value(s).expect("the same states");
        let d = distance(f, v);
        assert!(
            d <= exactly(bound),
            "{}: {f} is {} from {v}, beyond the bound {bound:e}",
            model.show_state(s),
            d.to_f64()
        );
        worst = worst.max(d);
    }
    let worst = worst.to_f64();
    // Not far above the error: zero where nothing rounds (integer scores, no chance), else
    // within a few hundred times the largest error.
    assert!(
        (bound == 0.0 && worst == 0.0) || bound <= 1000.0 * worst,
        "bound {bound:e}, error {worst:e}"
    );
    for threads in [1, 2] {
        let (start, stats) = Solver::new(model)
            .threads(threads)
            .start_value::<f64>()
            .unwrap();
        let d = distance(start, exact.start_value());
        assert!(
            d <= exactly(stats.error_bound),
            "start {start} is {} from {}, beyond the bound {:e} ({:?})",
            d.to_f64(),
            exact.start_value(),
            stats.error_bound,
            stats.method
        );
    }
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

/// A win all but certain (an opponent who holds only at the goal, so that a turn of ours is
/// left almost never by a loss): moves that rounding cannot tell apart lie round long turns,
/// and the bound of what they may hide is held to the room left below a sure win, not grown
/// past the whole range of the value. Both the full solve and the start value alone (turn by
/// turn) keep a small bound.
#[test]
fn a_win_all_but_certain_keeps_a_small_bound() {
    let pig = Pig::new(600, Opponent::HoldAt(600)).unwrap();
    let (start, stats) = Solver::new(&pig).start_value::<f64>().unwrap();
    let full = Solver::new(&pig).solve::<f64>().unwrap();
    for (value, bound) in [
        (start, stats.error_bound),
        (*full.start_value(), full.stats().error_bound),
    ] {
        assert!(bound < 1e-6, "bound {bound:e}");
        assert!(value <= 1.0 && value > 1.0 - 1e-8, "{value}");
    }
}
