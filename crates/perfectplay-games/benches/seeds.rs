//! The seed games at their largest official sizes, and next to PerfectMemory a hand-written
//! dynamic program for the same problem (the baseline lives here, not in the product).

use perfectplay::{solve, solve_exact, Exact, Number};
use perfectplay_games::gold_pots::{GoldPots, Variant};
use perfectplay_games::grid_game::GridGame;
use perfectplay_games::perfect_memory::PerfectMemory;
use perfectplay_games::subset_sum_extreme::SubsetSumExtreme;
use perfectplay_games::yeetzhee::Yeetzhee;

fn main() {
    divan::main();
}

/// The classic (u, k) recursion with the known-optimal play, in f64: the baseline.
fn perfect_memory_dp(cells: usize) -> f64 {
    let half = cells / 2;
    let mut e = vec![vec![0.0f64; half + 2]; cells + 1];
    for u in 1..=cells {
        for k in 0..=half.min(u) {
            if (u - k) % 2 == 1 || k > cells - u {
                continue;
            }
            let (uf, kf) = (u as f64, k as f64);
            let mut v = 0.0;
            if k > 0 {
                v += kf / uf * (1.0 + e[u - 1][k - 1]);
            }
            if u > k {
                let rest = u - 1;
                let mut w = (1.0 / rest as f64) * (1.0 + e[u - 2][k]);
                if k > 0 {
                    w += kf / rest as f64 * (2.0 + e[u - 2][k]);
                }
                if u - 2 > k {
                    w += (u - 2 - k) as f64 / rest as f64 * (1.0 + e[u - 2][k + 2]);
                }
                v += (uf - kf) / uf * w;
            }
            e[u][k] = v;
        }
    }
    e[cells][0]
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn perfect_memory_50x50_engine() -> f64 {
    *solve(&PerfectMemory::new(50, 50).unwrap())
        .unwrap()
        .start_value()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn perfect_memory_50x50_exact_engine() -> f64 {
    solve_exact(&PerfectMemory::new(50, 50).unwrap())
        .unwrap()
        .start_value()
        .to_f64()
}

#[divan::bench(sample_count = 10)]
fn perfect_memory_50x50_baseline_dp() -> f64 {
    let v = perfect_memory_dp(2500);
    assert!((v - 2016.6207229777647).abs() < 1e-9);
    v
}

#[divan::bench(sample_count = 5)]
fn yeetzhee_50_largest() -> f64 {
    let g = Yeetzhee::new(50, 50, &[1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 9, 13]).unwrap();
    *solve(&g).unwrap().start_value()
}

#[divan::bench(sample_count = 5)]
fn subset_sum_extreme_12_blocks_exact() -> Exact {
    let b = [968, 423, 592, 419, 321, 253, 62, 42, 12, 32, 2, 4];
    solve_exact(&SubsetSumExtreme::new(&b, &b).unwrap())
        .unwrap()
        .start_value()
        .clone()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn gold_pots_2000_competitive() -> f64 {
    let pots: Vec<u32> = (0..2000).map(|i| (i * 7919 % 1001) as u32).collect();
    *solve(&GoldPots::new(&pots, Variant::CompetitiveKnown).unwrap())
        .unwrap()
        .start_value()
}

#[divan::bench(sample_count = 5)]
fn grid_game_8_search() -> f64 {
    let grid: Vec<Vec<i64>> = (0..8)
        .map(|i| (0..8).map(|j| (i * 37 + j * 91) % 2001 - 1000).collect())
        .collect();
    *solve(&GridGame::new(grid).unwrap()).unwrap().start_value()
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
