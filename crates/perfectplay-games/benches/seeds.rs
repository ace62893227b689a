//! The seed games and Pig at their largest official sizes, each next to a hand-written dynamic
//! program for the same problem (`baselines/`, which lives here, not in the product).

mod baselines;

use perfectplay::{solve, solve_exact, Exact, Number, Solver};
use perfectplay_games::gold_pots::{GoldPots, Variant};
use perfectplay_games::grid_game::GridGame;
use perfectplay_games::perfect_memory::PerfectMemory;
use perfectplay_games::pig::{Opponent, Pig};
use perfectplay_games::subset_sum_extreme::SubsetSumExtreme;
use perfectplay_games::yeetzhee::Yeetzhee;

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn perfect_memory_50x50_engine() -> f64 {
    *solve(&PerfectMemory::new(50, 50).unwrap())
        .unwrap()
        .start_value()
}

/// The start value as `perfectplay solve` computes it: a sweep in the game's own order.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn perfect_memory_50x50_start_value_engine() -> f64 {
    let g = PerfectMemory::new(50, 50).unwrap();
    Solver::new(&g).start_value::<f64>().unwrap().0
}

/// The exact start value as `perfectplay solve --exact` computes it (multi-modular).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn perfect_memory_50x50_exact_engine() -> f64 {
    Solver::new(&PerfectMemory::new(50, 50).unwrap())
        .exact_start_value()
        .unwrap()
        .0
        .to_f64()
}

/// Every state's exact value in big rationals (what `explain --exact` and the other
/// whole-solution commands need).
#[divan::bench(sample_count = 1, sample_size = 1)]
fn perfect_memory_50x50_exact_all_states_engine() -> f64 {
    solve_exact(&PerfectMemory::new(50, 50).unwrap())
        .unwrap()
        .start_value()
        .to_f64()
}

#[divan::bench(sample_count = 10)]
fn perfect_memory_50x50_baseline_dp() -> f64 {
    let v = baselines::perfect_memory(2500);
    assert!((v - 2016.6207229777647).abs() < 1e-9);
    v
}

const YEETZHEE_GROUPS: [u32; 13] = [1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 9, 13];

#[divan::bench(sample_count = 5)]
fn yeetzhee_50_largest_engine() -> f64 {
    let g = Yeetzhee::new(50, 50, &YEETZHEE_GROUPS).unwrap();
    *solve(&g).unwrap().start_value()
}

#[divan::bench(sample_count = 5)]
fn yeetzhee_50_largest_baseline_dp() -> f64 {
    let groups: Vec<usize> = YEETZHEE_GROUPS.iter().map(|&g| g as usize).collect();
    baselines::yeetzhee(50, 50, &groups)
}

const BLOCKS: [u32; 12] = [968, 423, 592, 419, 321, 253, 62, 42, 12, 32, 2, 4];

#[divan::bench(sample_count = 5)]
fn subset_sum_extreme_12_blocks_exact_engine() -> Exact {
    solve_exact(&SubsetSumExtreme::new(&BLOCKS, &BLOCKS).unwrap())
        .unwrap()
        .start_value()
        .clone()
}

#[divan::bench(sample_count = 5)]
fn subset_sum_extreme_12_blocks_engine() -> f64 {
    *solve(&SubsetSumExtreme::new(&BLOCKS, &BLOCKS).unwrap())
        .unwrap()
        .start_value()
}

#[divan::bench(sample_count = 5)]
fn subset_sum_extreme_12_blocks_baseline_dp() -> f64 {
    baselines::subset_sum_extreme(&BLOCKS, &BLOCKS)
}

fn pots() -> Vec<u32> {
    (0..2000).map(|i| (i * 7919 % 1001) as u32).collect()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn gold_pots_2000_competitive_engine() -> f64 {
    *solve(&GoldPots::new(&pots(), Variant::CompetitiveKnown).unwrap())
        .unwrap()
        .start_value()
}

/// The start value as `perfectplay solve` computes it: a sweep in the game's own order.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn gold_pots_2000_competitive_start_value_engine() -> f64 {
    let g = GoldPots::new(&pots(), Variant::CompetitiveKnown).unwrap();
    Solver::new(&g).start_value::<f64>().unwrap().0
}

#[divan::bench(sample_count = 5)]
fn gold_pots_2000_competitive_baseline_dp() -> f64 {
    baselines::gold_pots_competitive(&pots())
}

fn grid8() -> Vec<Vec<i64>> {
    (0..8)
        .map(|i| (0..8).map(|j| (i * 37 + j * 91) % 2001 - 1000).collect())
        .collect()
}

#[divan::bench(sample_count = 5)]
fn grid_game_8_search_engine() -> f64 {
    *solve(&GridGame::new(grid8()).unwrap())
        .unwrap()
        .start_value()
}

/// The start value as `perfectplay solve` computes it: a sweep in the game's own order.
#[divan::bench(sample_count = 5)]
fn grid_game_8_search_start_value_engine() -> f64 {
    let g = GridGame::new(grid8()).unwrap();
    Solver::new(&g).start_value::<f64>().unwrap().0
}

/// The same sweep on two threads (`perfectplay solve --threads 2`).
#[divan::bench(sample_count = 5)]
fn grid_game_8_search_start_value_2_threads_engine() -> f64 {
    let g = GridGame::new(grid8()).unwrap();
    Solver::new(&g).threads(2).start_value::<f64>().unwrap().0
}

#[divan::bench(sample_count = 5)]
fn grid_game_8_baseline_dp() -> i64 {
    baselines::grid_game(&grid8())
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn pig_100_engine() -> f64 {
    *solve(&Pig::new(100, Opponent::Optimal).unwrap())
        .unwrap()
        .start_value()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn pig_100_baseline_dp() -> f64 {
    baselines::pig(100)
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn grid_game_1000_assignment() -> i64 {
    let grid: Vec<Vec<i64>> = (0..1000)
        .map(|i| {
            (0..1000)
                .map(|j| (i * 37 + j * 91 + i * j) % 2001 - 1000)
                .collect()
        })
        .collect();
    GridGame::new(grid).unwrap().assignment_value()
}

/// The distribution of the total, from a solution computed beforehand (`perfectplay
/// distribution`): acyclic, cycles without rewards (exact), and re-roll cycles that cost a
/// roll (cut at the default tail).
mod distribution {
    use super::*;
    use perfectplay::{DistributionOptions, Model};

    fn bench<M: Model>(bencher: divan::Bencher, game: M) {
        let solution = solve(&game).unwrap();
        let options = DistributionOptions::default();
        bencher.bench_local(|| solution.distribution(&game, &options).unwrap().pmf.len());
    }

    #[divan::bench(sample_count = 3, sample_size = 1)]
    fn perfect_memory_50x50(bencher: divan::Bencher) {
        bench(bencher, PerfectMemory::new(50, 50).unwrap());
    }

    #[divan::bench(sample_count = 3, sample_size = 1)]
    fn pig_100(bencher: divan::Bencher) {
        bench(bencher, Pig::new(100, Opponent::Optimal).unwrap());
    }

    #[divan::bench(sample_count = 3, sample_size = 1)]
    fn yeetzhee_50_largest(bencher: divan::Bencher) {
        bench(bencher, Yeetzhee::new(50, 50, &YEETZHEE_GROUPS).unwrap());
    }
}
