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

/// The joker and bonus rules of Solitaire Yahtzee, as `--rules` names them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum YahtzeeRules {
    FreeJoker,
    ForcedJoker,
    BonusNoJoker,
    NoBonus,
}

/// Solitaire Yahtzee over the boxes in `boxes` (a mask: bits 0–5 the upper boxes, then three
/// and four of a kind, full house, small and large straight, chance, Yahtzee), the direct
/// way: every card (boxes filled, upper total capped at 63, Yahtzee box holding 50) in a flat
/// array, cards with more boxes filled first, each card's turn solved in scratch arrays over
/// the 252 hands and the dice kept, the cards of one layer on `threads` threads.
pub fn yahtzee(boxes: u16, rules: YahtzeeRules, threads: usize) -> f64 {
    // Hands (five dice) and kept dice (up to four) as face counts.
    let mut sets: Vec<[u8; 6]> = Vec::new();
    for a in 0..=5u8 {
        for b in 0..=5 - a {
            for c in 0..=5 - a - b {
                for d in 0..=5 - a - b - c {
                    for e in 0..=5 - a - b - c - d {
                        for f in 0..=5 - a - b - c - d - e {
                            sets.push([a, b, c, d, e, f]);
                        }
                    }
                }
            }
        }
    }
    let count = |s: &[u8; 6]| s.iter().map(|&x| x as usize).sum::<usize>();
    let key = |s: &[u8; 6]| s.iter().fold(0usize, |k, &x| k * 6 + x as usize);
    let mut index = vec![usize::MAX; 6usize.pow(6)];
    let hands: Vec<[u8; 6]> = sets.iter().copied().filter(|s| count(s) == 5).collect();
    let keeps: Vec<[u8; 6]> = sets.iter().copied().filter(|s| count(s) < 5).collect();
    for (i, h) in hands.iter().enumerate() {
        index[key(h)] = i;
    }
    let fact = [1.0, 1.0, 2.0, 6.0, 24.0, 120.0];
    let prob = |r: &[u8; 6]| {
        let n = count(r);
        fact[n] / r.iter().map(|&x| fact[x as usize]).product::<f64>() / 6f64.powi(n as i32)
    };
    // For each kept set: the hands its roll makes, with their probabilities.
    let rolls: Vec<Vec<(usize, f64)>> = keeps
        .iter()
        .map(|k| {
            sets.iter()
                .filter(|r| count(r) == 5 - count(k))
                .map(|r| {
                    let h: Vec<u8> = (0..6).map(|f| k[f] + r[f]).collect();
                    (index[key(&h.try_into().unwrap())], prob(r))
                })
                .collect()
        })
        .collect();
    // For each hand: the kept sets below it.
    let below: Vec<Vec<usize>> = hands
        .iter()
        .map(|h| {
            (0..keeps.len())
                .filter(|&k| (0..6).all(|f| keeps[k][f] <= h[f]))
                .collect()
        })
        .collect();
    let first: Vec<f64> = hands.iter().map(prob).collect();
    // The score of box b for hand h, with joker scores where `joker`.
    let score = |h: &[u8; 6], b: usize, joker: bool| -> f64 {
        let sum: usize = (0..6).map(|f| h[f] as usize * (f + 1)).sum();
        let most = *h.iter().max().unwrap();
        let run = |from: usize, len: usize| (from..from + len).all(|f| h[f] > 0);
        (match b {
            0..=5 => h[b] as usize * (b + 1),
            6 if most >= 3 => sum,
            7 if most >= 4 => sum,
            8 if joker || (h.contains(&3) && h.contains(&2)) => 25,
            9 if joker || run(0, 4) || run(1, 4) || run(2, 4) => 30,
            10 if joker || run(0, 5) || run(1, 5) => 40,
            11 => sum,
            12 if most == 5 => 50,
            _ => 0,
        }) as f64
    };
    let bonus_rules = rules != YahtzeeRules::NoBonus;
    // Cards: filled mask * 128 + upper * 2 + (Yahtzee box holds 50).
    let card =
        |filled: u16, upper: usize, y50: bool| filled as usize * 128 + upper * 2 + y50 as usize;
    let mut value = vec![0.0f64; (1 << 13) * 128];
    let masks: Vec<u16> = (0..1u16 << 13).filter(|m| m & !boxes == 0).collect();
    let layers = boxes.count_ones();
    for filled_count in (0..layers).rev() {
        let layer: Vec<u16> = masks
            .iter()
            .copied()
            .filter(|m| m.count_ones() == filled_count)
            .collect();
        let cards: Vec<(u16, usize, bool)> = layer
            .iter()
            .flat_map(|&m| (0..=63usize).flat_map(move |u| [(m, u, false), (m, u, true)]))
            .filter(|&(m, u, y)| (m & 0x3f != 0 || u == 0) && (!y || m & (1 << 12) != 0))
            .filter(|&(_, _, y)| bonus_rules || !y)
            .collect();
        let solve = |&(filled, upper, y50): &(u16, usize, bool), value: &[f64]| -> f64 {
            let open = boxes & !filled;
            // The best placement of each hand.
            let placed: Vec<f64> = hands
                .iter()
                .map(|h| {
                    let face = h.iter().position(|&x| x == 5);
                    let y_done = filled & (1 << 12) != 0 || boxes & (1 << 12) == 0;
                    let mut allowed = open;
                    let mut joker = false;
                    if let (Some(f), true) = (face, y_done) {
                        let upper_open = open & (1 << f) != 0;
                        match rules {
                            YahtzeeRules::FreeJoker => joker = !upper_open,
                            YahtzeeRules::ForcedJoker => {
                                if upper_open {
                                    allowed = 1 << f;
                                } else if open & !0x3f != 0 {
                                    allowed = open & !0x3f;
                                    joker = true;
                                }
                            }
                            _ => {}
                        }
                    }
                    let extra = if bonus_rules && face.is_some() && y50 {
                        100.0
                    } else {
                        0.0
                    };
                    let mut best = f64::NEG_INFINITY;
                    for b in (0..13).filter(|b| allowed & (1 << b) != 0) {
                        let s = score(h, b, joker);
                        let mut u = upper;
                        let mut r = s + extra;
                        if b < 6 {
                            u = (upper + s as usize).min(63);
                            if upper < 63 && u == 63 {
                                r += 35.0;
                            }
                        }
                        let y = y50 || (b == 12 && s == 50.0 && bonus_rules);
                        best = best.max(r + value[card(filled | 1 << b, u, y)]);
                    }
                    best
                })
                .collect();
            let mut v = placed.clone();
            let mut kept = vec![0.0f64; keeps.len()];
            for _ in 0..2 {
                for (k, outs) in rolls.iter().enumerate() {
                    kept[k] = outs.iter().map(|&(h, p)| p * v[h]).sum();
                }
                for h in 0..hands.len() {
                    let keep = below[h]
                        .iter()
                        .map(|&k| kept[k])
                        .fold(f64::NEG_INFINITY, f64::max);
                    v[h] = placed[h].max(keep);
                }
            }
            (0..hands.len()).map(|h| first[h] * v[h]).sum()
        };
        let chunk = cards.len().div_ceil(threads.max(1)).max(1);
        let results: Vec<Vec<f64>> = std::thread::scope(|scope| {
            let value = &value;
            let handles: Vec<_> = cards
                .chunks(chunk)
                .map(|part| scope.spawn(move || part.iter().map(|c| solve(c, value)).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (c, v) in cards.iter().zip(results.into_iter().flatten()) {
            value[card(c.0, c.1, c.2)] = v;
        }
    }
    value[card(0, 0, false)]
}
