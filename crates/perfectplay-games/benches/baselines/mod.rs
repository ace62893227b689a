//! Hand-written dynamic programs for the seed games and Pig: the baselines the engine is
//! measured against. Each solves one problem the direct way, in `f64`, with the known optimal
//! play or the problem's own recursion; they live with the benchmarks, not in the product.

#![allow(dead_code)]

use std::collections::HashMap;

/// PerfectMemory: the classic (u, k) recursion with the known-optimal play.
pub fn perfect_memory(cells: usize) -> f64 {
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

/// Gold pots, competitive with full information: the interval DP on the first player's total.
pub fn gold_pots_competitive(pots: &[u32]) -> f64 {
    let n = pots.len();
    // best[i][len]: the first player's total from pots[i..i+len], by parity of who moves.
    let mut prev = vec![0i64; n + 1];
    for len in 1..=n {
        let first = (n - len) % 2 == 0;
        let mut cur = vec![0i64; n + 1];
        for i in 0..=n - len {
            let (l, r) = (pots[i] as i64, pots[i + len - 1] as i64);
            let (take_l, take_r) = if first {
                (l + prev[i + 1], r + prev[i])
            } else {
                (prev[i + 1], prev[i])
            };
            cur[i] = if first {
                take_l.max(take_r)
            } else {
                take_l.min(take_r)
            };
        }
        prev = cur;
    }
    prev[0] as f64
}

/// Grid game: Alice crosses a row, Bob a column, Alice collects the cell; DP over the crossed
/// row and column sets (equal sizes), Alice maximising and Bob minimising.
pub fn grid_game(grid: &[Vec<i64>]) -> i64 {
    let n = grid.len();
    let full = (1usize << n) - 1;
    let mut memo = vec![i64::MIN; 1 << (2 * n)];
    fn go(grid: &[Vec<i64>], rows: usize, cols: usize, full: usize, memo: &mut [i64]) -> i64 {
        if rows == full {
            return 0;
        }
        let key = rows << grid.len() | cols;
        if memo[key] != i64::MIN {
            return memo[key];
        }
        let mut best = i64::MIN;
        for r in (0..grid.len()).filter(|r| rows >> r & 1 == 0) {
            let mut worst = i64::MAX;
            for c in (0..grid.len()).filter(|c| cols >> c & 1 == 0) {
                let v = grid[r][c] + go(grid, rows | 1 << r, cols | 1 << c, full, memo);
                worst = worst.min(v);
            }
            best = best.max(worst);
        }
        memo[key] = best;
        best
    }
    go(grid, 0, 0, full, &mut memo)
}

/// SubsetSumExtreme: expected final sum over the remaining-block masks, memoised, taking the
/// best removal for each roll.
pub fn subset_sum_extreme(blocks: &[u32], faces: &[u32]) -> f64 {
    let n = blocks.len();
    // The sum of every mask, each from a smaller one.
    let mut sum = vec![0u32; 1 << n];
    for m in 1..1usize << n {
        let low = m.trailing_zeros() as usize;
        sum[m] = sum[m & (m - 1)] + blocks[low];
    }
    let mut e = vec![0.0f64; 1 << n];
    // Masks in increasing order: removing blocks gives a smaller mask.
    for mask in 0..1usize << n {
        let mut v = 0.0;
        for &f in faces {
            let mut best = f64::INFINITY;
            let mut sub = mask;
            while sub != 0 {
                if sum[sub] == f {
                    best = best.min(e[mask & !sub]);
                }
                sub = (sub - 1) & mask;
            }
            v += if best.is_finite() {
                best
            } else {
                sum[mask] as f64
            };
        }
        e[mask] = v / faces.len() as f64;
    }
    e[(1 << n) - 1]
}

/// Yeetzhee: expected rolls over sorted group sizes, with the re-roll fixed point solved by the
/// prefix rule (keep the outcomes whose expected remainder is below the state's value).
pub fn yeetzhee(dice: usize, faces: usize, target: &[usize]) -> f64 {
    let mut goal: Vec<usize> = target.to_vec();
    goal.sort_unstable_by(|a, b| b.cmp(a));
    fn viable(g: &[usize], goal: &[usize]) -> bool {
        g.len() <= goal.len() && g.iter().zip(goal).all(|(a, b)| a <= b)
    }
    fn go(
        g: Vec<usize>,
        dice: usize,
        faces: usize,
        goal: &[usize],
        memo: &mut HashMap<Vec<usize>, f64>,
    ) -> f64 {
        if g.iter().sum::<usize>() == dice {
            return 0.0;
        }
        if let Some(&v) = memo.get(&g) {
            return v;
        }
        // Outcomes: join a group of size s (probability count(s)/M) or open a new group.
        let mut outcomes: Vec<(f64, f64)> = Vec::new();
        let mut i = 0;
        while i < g.len() {
            let mut j = i;
            while j < g.len() && g[j] == g[i] {
                j += 1;
            }
            let mut next = g.clone();
            next[i] += 1;
            if viable(&next, goal) {
                let p = (j - i) as f64 / faces as f64;
                outcomes.push((go(next, dice, faces, goal, memo), p));
            }
            i = j;
        }
        if g.len() < faces {
            let mut next = g.clone();
            next.push(1);
            next.sort_unstable_by(|a, b| b.cmp(a));
            if viable(&next, goal) {
                let p = (faces - g.len()) as f64 / faces as f64;
                outcomes.push((go(next, dice, faces, goal, memo), p));
            }
        }
        outcomes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut num, mut den, mut best) = (1.0, 0.0, f64::INFINITY);
        for (v, p) in outcomes {
            num += p * v;
            den += p;
            best = best.min(num / den);
        }
        memo.insert(g, best);
        best
    }
    go(Vec::new(), dice, faces, &goal, &mut HashMap::new())
}

/// Pig with both players optimal: win probabilities of the player to move at (i, j, k), score
/// pairs solved from the top down, each pair's cycle by value iteration to 1e-14.
pub fn pig(goal: usize) -> f64 {
    let g = goal;
    // p[i][j][k]: chance that the player to move (score i, turn total k) beats score j.
    let mut p = vec![vec![vec![0.0f64; g]; g]; g];
    for sum in (0..2 * g - 1).rev() {
        for i in (0..g).rev() {
            let Some(j) = sum.checked_sub(i).filter(|&j| j < g) else {
                continue;
            };
            if j > i {
                continue;
            }
            // Iterate the pair (i, j) and (j, i) together until they settle.
            loop {
                let mut change: f64 = 0.0;
                for (a, b) in [(i, j), (j, i)] {
                    for k in (0..g - a).rev() {
                        let mut roll = (1.0 - p[b][a][0]) / 6.0;
                        for face in 2..=6 {
                            roll += if a + k + face >= g {
                                1.0
                            } else {
                                p[a][b][k + face]
                            } / 6.0;
                        }
                        // Holding is allowed with a positive turn total (a + k < g here).
                        let hold = if k == 0 { 0.0 } else { 1.0 - p[b][a + k][0] };
                        let v = roll.max(hold);
                        change = change.max((v - p[a][b][k]).abs());
                        p[a][b][k] = v;
                    }
                }
                if change < 1e-14 {
                    break;
                }
            }
        }
    }
    p[0][0][0]
}
