//! The engine against the hand-written dynamic programs of the benchmarks: two independent
//! implementations of every game must agree, on random instances as well as the benchmarked
//! ones.

#[path = "../../benches/baselines/mod.rs"]
mod baselines;

use perfectplay::solve;
use perfectplay_games::{
    gold_pots::{GoldPots, Variant},
    grid_game::GridGame,
    perfect_memory::PerfectMemory,
    pig::{Opponent, Pig},
    subset_sum_extreme::SubsetSumExtreme,
    yeetzhee::Yeetzhee,
};

/// The library's seeded generator, drawing below a bound.
struct Rng(perfectplay::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(perfectplay::Rng::new(seed))
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

#[test]
fn perfect_memory() {
    for rows in 1..=4u32 {
        for cols in (1..=50u32).filter(|c| rows * c % 2 == 0) {
            let e = *solve(&PerfectMemory::new(rows, cols).unwrap())
                .unwrap()
                .start_value();
            let b = baselines::perfect_memory((rows * cols) as usize);
            assert!(close(e, b), "{rows}x{cols}");
        }
    }
}

/// Boards beyond the original problem's 50 × 50: the engine's own limit is the numbering of the
/// positions (`MAX_CELLS`).
#[test]
fn perfect_memory_beyond_the_contest() {
    use perfectplay_games::perfect_memory::MAX_CELLS;
    for (rows, cols) in [(51, 52), (3, 998), (1, 4000), (7, 100)] {
        let e = *solve(&PerfectMemory::new(rows, cols).unwrap())
            .unwrap()
            .start_value();
        let b = baselines::perfect_memory((rows * cols) as usize);
        assert!(close(e, b), "{rows}x{cols}: {e} vs {b}");
    }
    assert!(PerfectMemory::new(1, MAX_CELLS).is_ok());
    let e = PerfectMemory::new(1, MAX_CELLS + 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 20000"), "{e}");
}

#[test]
fn gold_pots() {
    let mut rng = Rng::new(1);
    for _ in 0..100 {
        let pots: Vec<u32> = (0..rng.below(40)).map(|_| rng.below(1000) as u32).collect();
        let e = *solve(&GoldPots::new(&pots, Variant::CompetitiveKnown).unwrap())
            .unwrap()
            .start_value();
        assert_eq!(e, baselines::gold_pots_competitive(&pots), "{pots:?}");
    }
}

#[test]
fn grid_game() {
    let mut rng = Rng::new(2);
    for _ in 0..100 {
        let n = 1 + rng.below(5) as usize;
        let grid: Vec<Vec<i64>> = (0..n)
            .map(|_| (0..n).map(|_| rng.below(201) as i64 - 100).collect())
            .collect();
        let e = *solve(&GridGame::new(grid.clone()).unwrap())
            .unwrap()
            .start_value();
        assert_eq!(e, baselines::grid_game(&grid) as f64, "{grid:?}");
    }
}

#[test]
fn subset_sum_extreme() {
    let mut rng = Rng::new(3);
    for _ in 0..60 {
        let blocks: Vec<u32> = (0..1 + rng.below(8))
            .map(|_| 1 + rng.below(12) as u32)
            .collect();
        let faces: Vec<u32> = (0..1 + rng.below(6))
            .map(|_| 1 + rng.below(15) as u32)
            .collect();
        let e = *solve(&SubsetSumExtreme::new(&blocks, &faces).unwrap())
            .unwrap()
            .start_value();
        let mut sorted = blocks.clone();
        sorted.sort_unstable();
        assert!(
            close(e, baselines::subset_sum_extreme(&sorted, &faces)),
            "{blocks:?} {faces:?}"
        );
    }
}

/// The engine and the hand-written program agree on Yeetzhee with these faces and groups.
fn yeetzhee_agrees(faces: u32, groups: &[u32]) {
    let dice: u32 = groups.iter().sum();
    let e = *solve(&Yeetzhee::new(dice, faces, groups).unwrap())
        .unwrap()
        .start_value();
    let g: Vec<usize> = groups.iter().map(|&x| x as usize).collect();
    let b = baselines::yeetzhee(dice as usize, faces as usize, &g);
    assert!(close(e, b), "{dice} {faces} {groups:?}: {e} vs {b}");
}

#[test]
fn yeetzhee() {
    let mut rng = Rng::new(4);
    let mut done = 0;
    while done < 60 {
        let faces = 1 + rng.below(8) as u32;
        let k = 1 + rng.below(faces.min(5) as u64) as usize;
        let mut groups: Vec<u32> = (0..k).map(|_| 1 + rng.below(4) as u32).collect();
        groups.sort_unstable();
        yeetzhee_agrees(faces, &groups);
        done += 1;
    }
}

/// Beyond the original problem's 50 dice and 50 faces: up to 127 dice (a position packs the
/// dice and the groups in 128 bits) and any face count that fits a `u32`.
#[test]
fn yeetzhee_beyond_the_contest() {
    let mut rng = Rng::new(5);
    for _ in 0..12 {
        let faces = [3, 60, 1_000_000, u32::MAX][rng.below(4) as usize];
        let k = 1 + rng.below(3) as usize;
        let mut groups: Vec<u32> = (0..k).map(|_| 1 + rng.below(40) as u32).collect();
        groups.sort_unstable();
        yeetzhee_agrees(faces, &groups);
    }
    // 127 dice in one group fit; 64 dice in 65 groups do not.
    assert!(Yeetzhee::new(127, 2, &[127]).is_ok());
    let e = Yeetzhee::new(65, 100, &[1; 65]).unwrap_err().to_string();
    assert!(e.contains("more than its 128"), "{e}");
}

#[test]
fn pig() {
    for goal in [1, 2, 5, 10, 20, 30] {
        let e = *solve(&Pig::new(goal, Opponent::Optimal).unwrap())
            .unwrap()
            .start_value();
        let b = baselines::pig(goal as usize);
        assert!((e - b).abs() < 1e-12, "{goal}: {e} vs {b}");
    }
}

/// Reduced Yahtzee (three or four random boxes, every rule) against the hand-written solver.
#[test]
fn yahtzee_reduced() {
    use perfectplay_games::yahtzee::{Rules, Yahtzee};
    const NAMES: [&str; 13] = [
        "1s", "2s", "3s", "4s", "5s", "6s", "3k", "4k", "fh", "ss", "ls", "ch", "y",
    ];
    let mut rng = Rng::new(37);
    for i in 0..8 {
        let mut mask = 0u16;
        while mask.count_ones() < 3 + (i % 2) {
            mask |= 1 << rng.below(13);
        }
        // Every other game plays the Yahtzee box, where the rules differ.
        if i % 2 == 0 {
            mask |= 1 << 12;
        }
        let names: Vec<&str> = (0..13)
            .filter(|b| mask & (1 << b) != 0)
            .map(|b| NAMES[b])
            .collect();
        for (rules, theirs) in [
            (Rules::FreeJoker, baselines::YahtzeeRules::FreeJoker),
            (Rules::ForcedJoker, baselines::YahtzeeRules::ForcedJoker),
            (Rules::BonusNoJoker, baselines::YahtzeeRules::BonusNoJoker),
            (Rules::NoBonus, baselines::YahtzeeRules::NoBonus),
        ] {
            let game = Yahtzee::with_boxes(rules, &names).unwrap();
            let (mine, _) = perfectplay::Solver::new(&game)
                .start_value::<f64>()
                .unwrap();
            let want = baselines::yahtzee(mask, theirs, 1);
            assert!(close(mine, want), "{names:?} {rules:?}: {mine} vs {want}");
        }
    }
}
