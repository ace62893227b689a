//! `R[ F0 φ ]` where some plays reach φ and some miss it (a play that misses φ counts zero):
//! optimal play depends on the reward earned so far. Small models worked out by hand, where
//! the reward earned is bounded (exact) and where it is not (a certified interval), and random
//! small games against value iteration over the reward earned, float and exact.

use crate::common::{answer, error};
use perfectplay_prism::{analysis_model, check_prop, Loaded, Props};
use proptest::prelude::*;

/// At 0 the scheduler either plays safe (earn 1, then φ or a loss, 1/2 each) or earns 1 and
/// plays again with probability 1/2 (φ 1/4, a loss 1/4). Having earned k, safe is worth
/// (k+1)/2 and one more round (k+2)/4 + (k+1)/4, which is more: the maximiser always plays
/// again, worth V(k) = V(k+1)/2 + (k+1)/4, so V(k) = k/2 + 1 and the value is 1 (a total of
/// k+1 with probability 2^-(k+1)/... summed). The minimiser plays safe: 1/2.
const ROUNDS: &str = "mdp
module m
  s : [0..2] init 0;
  [safe] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [again] s=0 -> 1/2 : (s'=0) + 1/4 : (s'=1) + 1/4 : (s'=2);
endmodule
rewards \"r\"
  [safe] true : 1;
  [again] true : 1;
endrewards
";

#[test]
fn unbounded_reward_gives_a_certified_interval() {
    let (v, q, method, bound) = answer(ROUNDS, "Rmax=? [ F0 s=1 ]", false);
    assert!((v - 1.0).abs() <= 1e-9, "{v}");
    assert!(bound <= 1e-9, "{bound}");
    assert!((v - 1.0).abs() <= bound + 1e-12, "{v} ± {bound}");
    assert_eq!(q, None);
    assert!(method.contains("bounds"), "{method}");
    let (v, ..) = answer(ROUNDS, "Rmin=? [ F0 s=1 ]", false);
    assert!((v - 0.5).abs() <= 1e-9, "{v}");
    // A bound is decided by the interval, for every scheduler (the least value is 1/2 and
    // the greatest 1).
    for (prop, holds) in [
        ("R>=0.4 [ F0 s=1 ]", true),
        ("R>=0.9 [ F0 s=1 ]", false),
        ("R<=1.5 [ F0 s=1 ]", true),
        ("R<=0.9 [ F0 s=1 ]", false),
    ] {
        let loaded = Loaded::new("m.prism", ROUNDS, &[], 1_000).unwrap();
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
        assert_eq!(a.holds, Some(holds), "{prop}");
    }
    // No exact answer: the interval is the answer.
    let e = error(ROUNDS, "Rmax=? [ F0 s=1 ]", true);
    assert!(e.contains("ask for a floating-point answer"), "{e}");
    // F, for comparison, is +∞ for the maximiser (a loss is possible), and Fc counts the lost
    // plays too: 2 for either (every round earns 1, and 2 rounds are expected playing again).
    assert_eq!(answer(ROUNDS, "Rmax=? [ F s=1 ]", false).0, f64::INFINITY);
    assert_eq!(
        answer(ROUNDS, "Rmax=? [ Fc s=1 ]", true).1.as_deref(),
        Some("2")
    );
}

/// A DTMC version: playing again and safe chosen uniformly (PRISM's rule for a DTMC's
/// nondeterminism). With k earned, V(k) = (k+1)/4 + (1/2)(V(k+1)/2 + (k+1)/4) =
/// 3(k+1)/8 + V(k+1)/4; V(k) = ak + b gives a = 1/2, b = 3/8 + 1/8 + b/4, b = 2/3.
#[test]
fn a_dtmc_with_an_unbounded_reward() {
    let dtmc = ROUNDS.replace("mdp", "dtmc");
    let (v, _, _, bound) = answer(&dtmc, "R=? [ F0 s=1 ]", false);
    assert!(
        (v - 2.0 / 3.0).abs() <= 1e-9 && bound <= 1e-9,
        "{v} ± {bound}"
    );
    // Exactly: the reward of each choice weighted by the probability of φ after it.
    let (v, q, method, bound) = answer(&dtmc, "R=? [ F0 s=1 ]", true);
    assert_eq!((q.as_deref(), v, bound), (Some("2/3"), 2.0 / 3.0, 0.0));
    assert!(method.contains("weighted"), "{method}");
}

/// Where the scheduler can earn for ever while φ stays possible, the maximum is +∞: earn as
/// long as it likes, then go for φ.
#[test]
fn earning_for_ever_before_going_for_the_target_is_unbounded() {
    let src = "mdp
module m
  s : [0..2] init 0;
  [earn] s=0 -> (s'=0);
  [go] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
endmodule
rewards \"r\"
  [earn] true : 1;
endrewards
";
    assert_eq!(answer(src, "Rmax=? [ F0 s=1 ]", false).0, f64::INFINITY);
    // The minimiser goes at once, earning nothing: 0, and exactly so (no play earns).
    let (v, q, ..) = answer(src, "Rmin=? [ F0 s=1 ]", true);
    assert_eq!((v, q.as_deref()), (0.0, Some("0")));
    // In a game where the other player also decides in the earning cycle but cannot break
    // it, the earning player earns as long as it likes too: +∞.
    let game = "smg
player p1 [earn], [go] endplayer
player p2 [stay], [leave] endplayer
module m
  s : [0..3] init 0;
  [earn] s=0 -> (s'=3);
  [go] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [stay] s=3 -> (s'=0);
  [leave] s=3 -> (s'=0);
endmodule
rewards \"r\"
  [earn] true : 1;
endrewards
";
    assert_eq!(
        answer(game, "<<p1>> Rmax=? [ F0 s=1 ]", false).0,
        f64::INFINITY
    );
    // Unless the other player can keep away from that cycle: from a new start s=4 it may
    // enter it or take 2 and a half chance of the target, which it does: 1.
    let avoided = game
        .replace("player p2 [stay], [leave]", "player p2 [stay], [leave], [enter], [avoid]")
        .replace("s : [0..3] init 0;", "s : [0..4] init 4;")
        .replace(
            "[stay] s=3 -> (s'=0);",
            "[stay] s=3 -> (s'=0);\n  [enter] s=4 -> (s'=0);\n  [avoid] s=4 -> 1/2 : (s'=1) + 1/2 : (s'=2);",
        )
        .replace("[earn] true : 1;", "[earn] true : 1;\n  [avoid] true : 2;");
    let (v, _, _, bound) = answer(&avoided, "<<p1>> Rmax=? [ F0 s=1 ]", false);
    assert!(
        (v - 1.0).abs() <= bound + 1e-12 && bound <= 1e-9,
        "{v} ± {bound}\n{avoided}"
    );
    // Where the other player can end the cycle only by making the target likelier (3/4
    // against the 1/2 of going for it), the value is still finite: with k earned, the earning
    // player goes for 1/2 of k or earns 1 more, and the other then ends with 3/4 of k+1
    // rather than let it earn on, so V(k) = 3(k+1)/4 and 3/4 at the start. Keeping to the
    // choices that hold the target's probability least, the other player could not stop the
    // earning; the bound comes from its free choice instead.
    let likelier = game.replace(
        "[leave] s=3 -> (s'=0);",
        "[leave] s=3 -> 3/4 : (s'=1) + 1/4 : (s'=2);",
    );
    let (v, _, method, bound) = answer(&likelier, "<<p1>> Rmax=? [ F0 s=1 ]", false);
    assert!(
        (v - 0.75).abs() <= bound + 1e-12 && bound <= 1e-9,
        "{v} ± {bound}"
    );
    assert!(method.contains("bounds"), "{method}");
    // Where the other player can end the cycle without changing the probability of the
    // target, it does, and the value is finite: the earning player (k earned) may go for 1/2
    // of k, or earn 1 more and let the other choose between returning (more to earn) and
    // ending with 1/2 of k+1, which it prefers: (k+1)/2, so 1/2 at the start.
    let ended = game.replace(
        "[leave] s=3 -> (s'=0);",
        "[leave] s=3 -> 1/2 : (s'=1) + 1/2 : (s'=2);",
    );
    let (v, _, method, bound) = answer(&ended, "<<p1>> Rmax=? [ F0 s=1 ]", false);
    assert!(
        (v - 0.5).abs() <= bound + 1e-12 && bound <= 1e-9,
        "{v} ± {bound}"
    );
    assert!(method.contains("bounds"), "{method}");
}

/// With the reward earned bounded (a budget), the product is finite and exact. A budget of 3
/// rounds of ROUNDS, then only safe: V(3) = 2, V(2) = max(3/2, V(3)/2 + 3/4) = 7/4,
/// V(1) = max(1, 7/8 + 1/2) = 11/8, V(0) = max(1/2, 11/16 + 1/4) = 15/16.
#[test]
fn a_bounded_reward_is_exact() {
    let src = &bounded_rounds((0, 0), 1);
    for exact in [false, true] {
        let (v, q, method, bound) = answer(src, "Rmax=? [ F0 s=1 ]", exact);
        assert_eq!(v, 15.0 / 16.0);
        assert_eq!(bound, 0.0);
        assert!(method.contains("over the reward earned"), "{method}");
        if exact {
            assert_eq!(q.as_deref(), Some("15/16"));
        }
        assert_eq!(answer(src, "Rmin=? [ F0 s=1 ]", exact).0, 0.5);
    }
    // Rewards that are fractions count in units of their common denominator.
    let halves = src.replace(": 1;", ": 0.5;");
    let (_, q, ..) = answer(&halves, "Rmax=? [ F0 s=1 ]", true);
    assert_eq!(q.as_deref(), Some("15/32"));
    // explain takes it: the product with the reward earned, its start worth the value.
    let loaded = Loaded::new("m.prism", src, &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "p", "Rmax=? [ F0 s=1 ]", &[]).unwrap();
    let model = analysis_model(&loaded, &props, &props.props[0], true).unwrap();
    let options = perfectplay::dynamic::SolveOptions {
        exact: true,
        ..Default::default()
    };
    let solved = model.solve_dyn(options).unwrap();
    assert_eq!(solved.report().exact.as_deref(), Some("15/16"));
    let start = solved.find("(s=0,b=0)").unwrap();
    let explained = solved.explain(start).unwrap();
    assert_eq!(explained.next.len(), 2, "{explained:?}");
    // Unbounded, explain says why not.
    let loaded = Loaded::new("m.prism", ROUNDS, &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "p", "Rmax=? [ F0 s=1 ]", &[]).unwrap();
    let Err(e) = analysis_model(&loaded, &props, &props.props[0], false) else {
        panic!("explain of an unbounded F0");
    };
    assert!(e.to_string().contains("without bound"), "{e}");
}

/// A random small game: positions 0..n, φ at n, a loss at n+1; at each position a free move
/// and, while the budget lasts, one that earns 1 or 2; each move leads to two positions.
/// A move of a random game: its reward and its two outcomes (weight in quarters, position).
type Move = (u32, [(u32, usize); 2]);

#[derive(Clone, Debug)]
struct Game {
    /// Per position: the free move and the earning one.
    moves: Vec<[Move; 2]>,
    budget: u32,
    smg: bool,
}

impl Game {
    fn n(&self) -> usize {
        self.moves.len()
    }

    /// The game as a DTMC: the enabled commands taken uniformly, as PRISM takes them.
    fn dtmc(&self) -> String {
        let src = self
            .prism()
            .replacen("mdp", "dtmc", 1)
            .replacen("smg", "dtmc", 1);
        src.lines()
            .filter(|l| !l.starts_with("player"))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    fn prism(&self) -> String {
        let n = self.n();
        let mut s = String::new();
        if self.smg {
            s.push_str("smg\n");
            for p in 0..2 {
                let acts: Vec<String> = (0..n)
                    .filter(|x| x % 2 == p)
                    .flat_map(|x| [format!("[f{x}]"), format!("[e{x}]")])
                    .collect();
                if acts.is_empty() {
                    s.push_str(&format!("player p{p} m endplayer\n"));
                } else {
                    s.push_str(&format!("player p{p} {} endplayer\n", acts.join(", ")));
                }
            }
        } else {
            s.push_str("mdp\n");
        }
        s.push_str(&format!(
            "module m\n  x : [0..{}] init 0;\n  b : [0..{}] init 0;\n",
            n + 1,
            self.budget
        ));
        for (x, moves) in self.moves.iter().enumerate() {
            for (i, (r, outs)) in moves.iter().enumerate() {
                let (name, guard, spend) = if i == 0 {
                    (format!("f{x}"), String::new(), String::new())
                } else {
                    (
                        format!("e{x}"),
                        format!(" & b<{}", self.budget),
                        " & (b'=b+1)".to_string(),
                    )
                };
                let _ = r;
                let branches: Vec<String> = outs
                    .iter()
                    .map(|(w, t)| format!("{w}/4 : (x'={t}){spend}"))
                    .collect();
                s.push_str(&format!(
                    "  [{name}] x={x}{guard} -> {};\n",
                    branches.join(" + ")
                ));
            }
        }
        s.push_str("endmodule\nrewards \"r\"\n");
        for (x, moves) in self.moves.iter().enumerate() {
            for (i, (r, _)) in moves.iter().enumerate() {
                let name = if i == 0 { "f" } else { "e" };
                s.push_str(&format!("  [{name}{x}] true : {r};\n"));
            }
        }
        s.push_str("endrewards\n");
        s
    }

    /// Value iteration from zero over (position, budget spent, reward earned): the least
    /// fixed point of the optimality equations, which is the value of a game whose endless
    /// plays are worth zero. `p0_max`: position owners of even number maximise (in an MDP,
    /// everyone does as p0).
    fn value_iteration(&self, p0_max: bool) -> f64 {
        self.value_iteration_cut(p0_max, (self.budget * 2) as usize, |_, _, _| 0.0)
    }

    /// [`Game::value_iteration`] over rewards earned up to `most`, a play that earns more
    /// ending at position x, budget spent b, with `cut(x, b, k)`.
    fn value_iteration_cut(
        &self,
        p0_max: bool,
        most: usize,
        cut: impl Fn(usize, usize, usize) -> f64,
    ) -> f64 {
        let n = self.n();
        let idx =
            |x: usize, b: usize, k: usize| (x * (self.budget as usize + 1) + b) * (most + 3) + k;
        let size = (n + 2) * (self.budget as usize + 1) * (most + 3);
        let mut v = vec![0.0f64; size];
        for b in 0..=self.budget as usize {
            // φ pays what was earned; past the cut (a move earns at most 2), `cut`.
            for k in 0..=most + 2 {
                v[idx(n, b, k)] = k as f64;
            }
            for x in 0..n {
                for k in most + 1..=most + 2 {
                    v[idx(x, b, k)] = cut(x, b, k);
                }
            }
        }
        for _ in 0..100_000 {
            let mut change = 0.0f64;
            for x in 0..n {
                let maximise = !self.smg || (x % 2 == 0) == p0_max;
                let maximise = if self.smg { maximise } else { p0_max };
                for b in 0..=self.budget as usize {
                    for k in 0..=most {
                        let mut best: Option<f64> = None;
                        for (i, (r, outs)) in self.moves[x].iter().enumerate() {
                            if i == 1 && b == self.budget as usize {
                                continue;
                            }
                            let (nb, nk) = (b + i, k + *r as usize);
                            let q: f64 = outs
                                .iter()
                                .map(|&(w, t)| w as f64 / 4.0 * v[idx(t, nb, nk)])
                                .sum();
                            best = Some(match best {
                                None => q,
                                Some(o) if maximise => o.max(q),
                                Some(o) => o.min(q),
                            });
                        }
                        let new = best.expect("the free move");
                        change = change.max((new - v[idx(x, b, k)]).abs());
                        v[idx(x, b, k)] = new;
                    }
                }
            }
            if change < 1e-14 {
                break;
            }
        }
        v[idx(0, 0, 0)]
    }
}

impl Game {
    /// The most reward every player maximising can earn from each (position, budget spent)
    /// before φ or a position from which φ cannot be reached at all, by value iteration from
    /// zero; `None` if it grows without bound.
    fn most_to_earn(&self) -> Option<Vec<Vec<f64>>> {
        let n = self.n();
        let budget = self.budget as usize;
        // Where φ can be reached, over the positions and budgets.
        let mut live = vec![vec![false; budget + 1]; n + 2];
        live[n] = vec![true; budget + 1];
        loop {
            let mut grew = false;
            for x in 0..n {
                for b in 0..=budget {
                    if live[x][b] {
                        continue;
                    }
                    let hits = self.moves[x].iter().enumerate().any(|(i, (_, outs))| {
                        (i == 0 || b < budget) && outs.iter().any(|&(_, t)| live[t][b + i])
                    });
                    if hits {
                        live[x][b] = true;
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        let mut u = vec![vec![0.0f64; budget + 1]; n + 2];
        for _ in 0..100_000 {
            let mut change = 0.0f64;
            for x in 0..n {
                for b in 0..=budget {
                    if !live[x][b] {
                        continue;
                    }
                    let mut best = 0.0f64;
                    for (i, (r, outs)) in self.moves[x].iter().enumerate() {
                        if i == 1 && b == budget {
                            continue;
                        }
                        let q: f64 = *r as f64
                            + outs
                                .iter()
                                .map(|&(w, t)| {
                                    w as f64 / 4.0 * if t < n { u[t][b + i] } else { 0.0 }
                                })
                                .sum::<f64>();
                        best = best.max(q);
                    }
                    change = change.max(best - u[x][b]);
                    u[x][b] = best;
                }
            }
            if u.iter().flatten().any(|&v| v > 1e6) {
                return None;
            }
            if change < 1e-13 {
                return Some(u);
            }
        }
        None
    }
}

impl Game {
    /// As a DTMC (the enabled moves taken uniformly, as PRISM does), the expected reward
    /// earned on the plays that reach φ: by value iteration of the probability of φ, `x`, over
    /// (position, budget spent), then of the reward each move earns weighted by `x` after it.
    fn chain_value(&self) -> f64 {
        let n = self.n();
        let budget = self.budget as usize;
        let enabled = |b: usize| if b < budget { 2 } else { 1 };
        // One sweep of `v(x,b) = Σ_moves 1/k Σ_outcomes w/4 (earn(r, t, b') + v(t, b'))`.
        let sweep = |v: &mut Vec<Vec<f64>>, earn: &dyn Fn(u32, usize, usize) -> f64| {
            let mut change = 0.0f64;
            for x in 0..n {
                for b in 0..=budget {
                    let k = enabled(b);
                    let mut new = 0.0;
                    for (i, (r, outs)) in self.moves[x].iter().enumerate().take(k) {
                        for &(w, t) in outs {
                            let q = w as f64 / 4.0 / k as f64;
                            new += q * (earn(*r, t, b + i) + v[t][b + i]);
                        }
                    }
                    change = change.max((new - v[x][b]).abs());
                    v[x][b] = new;
                }
            }
            change
        };
        let mut x = vec![vec![0.0f64; budget + 1]; n + 2];
        x[n] = vec![1.0; budget + 1];
        while sweep(&mut x, &|_, _, _| 0.0) > 1e-15 {}
        x[n] = vec![0.0; budget + 1];
        let mut w = vec![vec![0.0f64; budget + 1]; n + 2];
        let reach = |t: usize, b: usize| if t == n { 1.0 } else { x[t][b] };
        while sweep(&mut w, &|r, t, b| r as f64 * reach(t, b)) > 1e-15 {}
        w[0][0]
    }
}

fn game() -> impl Strategy<Value = Game> {
    games(0)
}

/// Random games whose free moves earn up to `free` (more than zero: a cycle may earn).
fn games(free: u32) -> impl Strategy<Value = Game> {
    (1usize..=4, 1u32..=3, any::<bool>()).prop_flat_map(move |(n, budget, smg)| {
        let outcome = (1u32..=3, 0..n + 2);
        let moves = prop::collection::vec(
            (
                (0u32..=free, outcome.clone(), 0..n + 2),
                (1u32..=2, outcome, 0..n + 2),
            ),
            n,
        );
        moves.prop_map(move |moves| Game {
            moves: moves
                .into_iter()
                .map(|((r0, (w0, t0), u0), (r1, (w1, t1), u1))| {
                    [
                        (r0, [(w0, t0), (4 - w0, u0)]),
                        (r1, [(w1, t1), (4 - w1, u1)]),
                    ]
                })
                .collect(),
            budget,
            smg,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Float and exact answers agree with value iteration over the reward earned, for either
    /// side maximising.
    #[test]
    fn random_games_agree_with_value_iteration(g in game()) {
        let src = g.prism();
        let n = g.n();
        let props = if g.smg {
            [(true, format!("<<p0>> Rmax=? [ F0 x={n} ]")), (false, format!("<<p0>> Rmin=? [ F0 x={n} ]"))]
        } else {
            [(true, format!("Rmax=? [ F0 x={n} ]")), (false, format!("Rmin=? [ F0 x={n} ]"))]
        };
        for (p0_max, prop) in props {
            let want = g.value_iteration(p0_max);
            let (float, ..) = answer(&src, &prop, false);
            let (exact_f, exact, ..) = answer(&src, &prop, true);
            prop_assert!((float - want).abs() <= 1e-9 * want.max(1.0), "{prop}: {float} vs {want}\n{src}");
            prop_assert!((exact_f - want).abs() <= 1e-9 * want.max(1.0), "{prop}: {exact:?} vs {want}\n{src}");
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Where cycles earn, the certified interval contains the value: it overlaps value
    /// iteration over the reward earned up to a level, with plays past it worth at least 0
    /// and at most what they earned plus what every player could still earn. MDPs and games.
    #[test]
    fn random_games_with_earning_cycles_are_bracketed(g in games(1)) {
        let src = g.prism();
        let n = g.n();
        let coalition = if g.smg { "<<p0>> " } else { "" };
        let Some(u) = g.most_to_earn() else {
            // Every player maximising could earn for ever. In a game the minimiser may still
            // stop that: where the answer is finite, value iteration over the reward earned
            // (plays past the level worth 0, from below) settles on it as the level grows.
            if !g.smg {
                return Ok(());
            }
            for (maximise, prop) in [
                (true, format!("<<p0>> Rmax=? [ F0 x={n} ]")),
                (false, format!("<<p0>> Rmin=? [ F0 x={n} ]")),
            ] {
                let loaded = Loaded::new("m.prism", &src, &[], 1_000_000).unwrap();
                let props = Props::new(&loaded.program, "p", &prop, &[]).unwrap();
                let a = check_prop(&loaded, &props, &props.props[0], false);
                let a = a.map_err(|e| TestCaseError::fail(format!("{prop}: {e}\n{src}")))?;
                let low = g.value_iteration_cut(maximise, 300, |_, _, _| 0.0);
                let lower = g.value_iteration_cut(maximise, 600, |_, _, _| 0.0);
                if a.value.is_infinite() {
                    // +∞: from below, the value keeps growing with the level (by about as
                    // much from 600 to 1200 as from 300 to 600), where a finite one would
                    // settle, its steps shrinking geometrically.
                    let lowest = g.value_iteration_cut(maximise, 1200, |_, _, _| 0.0);
                    prop_assert!(lower > low && lowest - lower >= 0.5 * (lower - low),
                        "{prop}: +∞ but {low} at 300, {lower} at 600 and {lowest} at 1200\n{src}");
                    continue;
                }
                let slack = 1e-9 * lower.max(1.0);
                prop_assert!(a.value + a.error_bound + slack >= lower,
                    "{prop}: {} ± {} below {lower}\n{src}", a.value, a.error_bound);
                if (lower - low).abs() <= 1e-12 && a.error_bound <= 1e-9 {
                    prop_assert!((a.value - lower).abs() <= 1e-8 * lower.max(1.0),
                        "{prop}: {} vs {lower}\n{src}", a.value);
                }
            }
            return Ok(());
        };
        for (maximise, prop) in [
            (true, format!("{coalition}Rmax=? [ F0 x={n} ]")),
            (false, format!("{coalition}Rmin=? [ F0 x={n} ]")),
        ] {
            let most = 400;
            let low = g.value_iteration_cut(maximise, most, |_, _, _| 0.0);
            let high = g.value_iteration_cut(maximise, most, |x, b, k| k as f64 + u[x][b]);
            let (v, _, _, bound) = answer(&src, &prop, false);
            let slack = 1e-9 * high.max(1.0);
            prop_assert!(v + bound + slack >= low && v - bound - slack <= high,
                "{prop}: {v} ± {bound} against [{low}, {high}]\n{src}");
            // Where the reference is tight, so is the answer.
            if high - low <= 1e-12 {
                prop_assert!((v - low).abs() <= 1e-8 * low.max(1.0), "{prop}: {v} vs {low}\n{src}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A DTMC whose cycles earn: the exact answer (the rewards weighted by the probability of
    /// φ) agrees with value iteration, and lies within the float answer's certified interval
    /// (over the reward earned, cut where large: another method).
    #[test]
    fn random_dtmcs_with_earning_cycles_exactly(g in games(1)) {
        let src = g.dtmc();
        let prop = format!("R=? [ F0 x={} ]", g.n());
        let want = g.chain_value();
        let (exact_f, exact, ..) = answer(&src, &prop, true);
        let exact = exact.expect("a fraction");
        let (float, _, _, bound) = answer(&src, &prop, false);
        prop_assert!((exact_f - want).abs() <= 1e-9 * want.max(1.0), "{exact} vs {want}\n{src}");
        // The exact value rounded to the nearest float: half an ulp from it.
        let ulp = f64::EPSILON * exact_f.abs().max(1e-300);
        prop_assert!((exact_f - float).abs() <= bound + ulp, "{exact} vs {float} ± {bound}\n{src}");
    }
}

/// A DTMC's `src` (of [`Game::prism`]) behind a line of `states` states that earns nothing:
/// the game starts once `z` has counted to the line's end.
fn behind_a_line(src: &str, states: u32) -> String {
    let end = states - 1;
    let src = src.replace("] x=", &format!("] z={end} & x="));
    src.replacen(
        "endmodule\n",
        &format!(
            "endmodule\nmodule line\n  z : [0..{end}] init 0;\n  [] z<{end} -> (z'=z+1);\nendmodule\n"
        ),
        1,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// A chain too large for its exact method in floats (50,000 states) is solved in floats,
    /// the probability of φ's error carried through the weighed rewards: the same random
    /// DTMCs behind a line of states that earns nothing, against the exact answer without
    /// the line.
    #[test]
    fn random_dtmcs_too_large_for_the_exact_chain_in_floats(g in games(1)) {
        let src = g.dtmc();
        let prop = format!("R=? [ F0 x={} ]", g.n());
        let (exact, ..) = answer(&src, &prop, true);
        let long = behind_a_line(&src, 50_001);
        let (float, _, method, bound) = answer(&long, &prop, false);
        // Where every play reaches φ, or none, F0 is the plain reward to reach it, or zero.
        let (_, p, ..) = answer(&src, &format!("P=? [ F x={} ]", g.n()), true);
        if !matches!(p.as_deref(), Some("0" | "1")) {
            prop_assert!(method.contains("in floating point"), "{method}");
        }
        prop_assert!((exact - float).abs() <= bound, "{exact} vs {float} ± {bound}\n{src}");
        prop_assert!(bound <= 1e-9 * exact.abs().max(1.0), "{float} ± {bound}\n{src}");
    }
}

/// `F0` (and `Fc` on a game) is solved from one start at a time; its value in every state,
/// as a filter or a nested formula needs, is solved from each state in turn: each equal to
/// the answer of the model started there.
#[test]
fn every_state_value_is_the_model_started_there() {
    let src = |s: u32, b: u32| bounded_rounds((s, b), 2);
    let from_start = src(0, 0);
    let mut sum = malachite_q::Rational::from(0);
    for b in 0..4 {
        for exact in [false, true] {
            let at = format!("filter(state, Rmax=? [ F0 s=1 ], s=0 & b={b})");
            let (v, q, ..) = answer(&from_start, &at, exact);
            let (w, r, ..) = answer(&src(0, b), "Rmax=? [ F0 s=1 ]", exact);
            assert!((v - w).abs() <= 1e-12, "b={b}: {v} vs {w}");
            assert_eq!(q, r, "b={b}");
            if exact {
                sum += q.unwrap().parse::<malachite_q::Rational>().unwrap();
            }
        }
    }
    // Zero wherever the play is over (s=1 reached, s=2 missed).
    let (_, total, ..) = answer(&from_start, "filter(sum, Rmax=? [ F0 s=1 ])", true);
    assert_eq!(total, Some(sum.to_string()));
    // As a state formula: the maximiser's value is below 0.6 only at b=3 (safe's 1/2); the
    // minimiser's (a bound alone, on an MDP) is safe's 1/2 everywhere.
    let (v, ..) = answer(
        &from_start,
        "filter(count, Rmax>=0.6 [ F0 s=1 ], s=0)",
        true,
    );
    assert_eq!(v, 3.0);
    let (v, ..) = answer(&from_start, "filter(count, R>=0.6 [ F0 s=1 ], s=0)", false);
    assert_eq!(v, 0.0);
}

/// At most three rounds of ROUNDS, each earning `again`, started at `(s, b)`.
fn bounded_rounds((s, b): (u32, u32), again: u32) -> String {
    format!(
        "mdp
module m
  s : [0..2] init {s};
  b : [0..3] init {b};
  [safe] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [again] s=0 & b<3 -> 1/2 : (s'=0) & (b'=b+1) + 1/4 : (s'=1) & (b'=b+1) + 1/4 : (s'=2) & (b'=b+1);
endmodule
rewards \"r\"
  [safe] true : 1;
  [again] true : {again};
endrewards
"
    )
}
