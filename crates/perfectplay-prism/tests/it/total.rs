//! `R[Fc φ]` on stochastic games: a play that misses φ earns its total. Small games worked out
//! by hand, where neither rule for endless plays that `F` uses gives the answer, and random
//! small games against value iteration from zero (which converges to the least fixed point of
//! the optimality equations, the value), float and exact.

use perfectplay_prism::{check_prop, Loaded, Props};
use proptest::prelude::*;

/// The value of `prop` on the model `src`, as a float and, with `exact`, a fraction.
fn answer(src: &str, prop: &str, exact: bool) -> (f64, Option<String>) {
    let loaded = Loaded::new("game.prism", src, &[], 1_000_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "prop", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
    let a = check_prop(&loaded, &props, &props.props[0], exact)
        .unwrap_or_else(|e| panic!("{prop}: {e}"));
    (a.value, a.exact)
}

/// Min at 0 may finish for 5 or hand over to Max at 1, who may finish for 3 or hand the play
/// back for nothing. Handing back for ever earns Max nothing more, so Max finishes: Min hands
/// over, 3. With `F` an endless play is +∞, which Max would choose: Min finishes, 5. With a
/// loop at 1 that pays, Max would loop for ever (+∞ for `Fc` too), so Min finishes, 5; the
/// loop is +∞ from 1.
#[test]
fn the_minimiser_may_hand_over_when_looping_gains_the_maximiser_nothing() {
    let game = |pay: u32, start: u32| {
        format!(
            "smg
player mini [finish5], [hand] endplayer
player maxi [finish3], [back], [loop] endplayer
module m
  x : [0..2] init {start};
  [finish5] x=0 -> (x'=2);
  [hand] x=0 -> (x'=1);
  [finish3] x=1 -> (x'=2);
  [back] x=1 -> (x'=0);
  [loop] x=1 -> (x'=1);
endmodule
rewards \"r\"
  [finish5] true : 5;
  [finish3] true : 3;
  [loop] true : {pay};
endrewards
"
        )
    };
    for exact in [false, true] {
        let free = game(0, 0);
        assert_eq!(answer(&free, "<<mini>> Rmin=? [ Fc x=2 ]", exact).0, 3.0);
        assert_eq!(answer(&free, "<<maxi>> Rmax=? [ Fc x=2 ]", exact).0, 3.0);
        assert_eq!(answer(&free, "<<mini>> Rmin=? [ F x=2 ]", exact).0, 5.0);
        let paid = game(1, 0);
        assert_eq!(answer(&paid, "<<mini>> Rmin=? [ Fc x=2 ]", exact).0, 5.0);
        assert_eq!(answer(&paid, "<<maxi>> Rmax=? [ Fc x=2 ]", exact).0, 5.0);
        let inf = f64::INFINITY;
        assert_eq!(
            answer(&game(1, 1), "<<maxi>> Rmax=? [ Fc x=2 ]", exact).0,
            inf
        );
    }
}

/// Max at 0 can only pass to Min at 1, who may send the play back earning 1, or finish for 2
/// (or, with the third choice, stay at 1 for nothing). Max cannot end the play at all; Min
/// sending it back for ever would pay +∞, so Min finishes: 2. Where Min can stay for nothing,
/// the value is 0.
#[test]
fn the_maximiser_cannot_end_the_play() {
    let game = |stay: bool| {
        format!(
            "smg
player maxi [pass] endplayer
player mini [again], [finish], [stay] endplayer
module m
  x : [0..2] init 0;
  [pass] x=0 -> (x'=1);
  [again] x=1 -> (x'=0);
  [finish] x=1 -> (x'=2);
  [stay] x=1 & {stay} -> (x'=1);
endmodule
rewards \"r\"
  [again] true : 1;
  [finish] true : 2;
endrewards
"
        )
    };
    for exact in [false, true] {
        let a = answer(&game(false), "<<maxi>> Rmax=? [ Fc x=2 ]", exact);
        assert_eq!(a.0, 2.0);
        if exact {
            assert_eq!(a.1.as_deref(), Some("2"));
        }
        let a = answer(&game(true), "<<mini>> Rmin=? [ Fc x=2 ]", exact);
        assert_eq!(a.0, 0.0);
    }
}

/// A random small game: per state its owner (0 or 1) and its choices, each an action with a
/// reward and one or two outcomes (probability one half each). State `n` is the target.
#[derive(Clone, Debug)]
struct Game {
    owner: Vec<u8>,
    choices: Vec<Vec<(u32, Vec<usize>)>>,
}

impl Game {
    fn n(&self) -> usize {
        self.owner.len()
    }

    /// The game in the PRISM language, each choice its own action.
    fn prism(&self) -> String {
        let n = self.n();
        let mut actions = [Vec::new(), Vec::new()];
        let mut commands = String::new();
        let mut rewards = String::new();
        for (s, cs) in self.choices.iter().enumerate() {
            for (i, (r, outs)) in cs.iter().enumerate() {
                let a = format!("a{s}_{i}");
                actions[self.owner[s] as usize].push(format!("[{a}]"));
                let update = match outs.as_slice() {
                    [t] => format!("(x'={t})"),
                    [t, u] => format!("1/2 : (x'={t}) + 1/2 : (x'={u})"),
                    _ => unreachable!(),
                };
                commands.push_str(&format!("  [{a}] x={s} -> {update};\n"));
                rewards.push_str(&format!("  [{a}] true : {r};\n"));
            }
        }
        let player = |k: usize, name: &str| {
            if actions[k].is_empty() {
                // A player needs something to own: the target's loop.
                format!("player {name} [end{k}] endplayer\n")
            } else {
                format!("player {name} {} endplayer\n", actions[k].join(", "))
            }
        };
        format!(
            "smg\n{}{}module m\n  x : [0..{n}] init 0;\n{commands}  [end0] x={n} -> true;\n  [end1] false -> true;\nendmodule\nrewards \"r\"\n{rewards}endrewards\n",
            player(0, "p0"),
            player(1, "p1")
        )
    }

    /// Value iteration from zero, with player 0 optimising as `p0_max` says: the values after
    /// many rounds, +∞ where they still grow.
    fn value_iteration(&self, p0_max: bool) -> Vec<f64> {
        let n = self.n();
        let round = |v: &[f64]| -> Vec<f64> {
            (0..=n)
                .map(|s| {
                    if s == n {
                        return 0.0;
                    }
                    let worths = self.choices[s].iter().map(|(r, outs)| {
                        *r as f64 + outs.iter().map(|&t| v[t]).sum::<f64>() / outs.len() as f64
                    });
                    if (self.owner[s] == 0) == p0_max {
                        worths.fold(f64::NEG_INFINITY, f64::max)
                    } else {
                        worths.fold(f64::INFINITY, f64::min)
                    }
                })
                .collect()
        };
        let mut v = vec![0.0; n + 1];
        for _ in 0..20_000 {
            v = round(&v);
        }
        let mut w = v.clone();
        for _ in 0..20_000 {
            w = round(&w);
        }
        v.iter()
            .zip(&w)
            .map(|(a, b)| if b - a > 1e-6 { f64::INFINITY } else { *b })
            .collect()
    }
}

fn game() -> impl Strategy<Value = Game> {
    (2usize..6).prop_flat_map(|n| {
        let choice = (
            prop_oneof![3 => Just(0u32), 1 => Just(1u32), 1 => Just(2u32)],
            prop::collection::vec(0..=n, 1..=2),
        );
        (
            prop::collection::vec(0u8..2, n),
            prop::collection::vec(prop::collection::vec(choice, 1..=3), n),
        )
            .prop_map(|(owner, choices)| Game { owner, choices })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Float and exact answers at the start agree with value iteration from zero, for either
    /// player maximising.
    #[test]
    fn random_games_agree_with_value_iteration(g in game()) {
        let src = g.prism();
        for (p0_max, prop) in [(true, "<<p0>> Rmax=? [ Fc x=N ]"), (false, "<<p0>> Rmin=? [ Fc x=N ]")] {
            let prop = prop.replace('N', &g.n().to_string());
            let want = g.value_iteration(p0_max)[0];
            let (float, _) = answer(&src, &prop, false);
            let (exact_f, exact) = answer(&src, &prop, true);
            if want.is_infinite() {
                prop_assert!(float.is_infinite() && exact_f.is_infinite(), "{prop}: {float} {exact_f} vs +∞\n{src}");
            } else {
                prop_assert!((float - want).abs() <= 1e-9 * want.max(1.0), "{prop}: {float} vs {want}\n{src}");
                prop_assert!((exact_f - want).abs() <= 1e-9 * want.max(1.0), "{prop}: {exact:?} vs {want}\n{src}");
            }
        }
    }
}

/// explain, strategy and play take `Fc` on a game: the game with the maximiser's strategy
/// found, its other choices worth what leaving the strategy once is worth.
#[test]
fn explain_takes_a_total_reward_game() {
    use perfectplay::dynamic::SolveOptions;
    let src = "smg
player mini [finish5], [hand] endplayer
player maxi [finish3], [back], [loop] endplayer
module m
  x : [0..2] init 0;
  [finish5] x=0 -> (x'=2);
  [hand] x=0 -> (x'=1);
  [finish3] x=1 -> (x'=2);
  [back] x=1 -> 1/2 : (x'=0) + 1/2 : (x'=2);
  [loop] x=1 -> (x'=1);
endmodule
rewards \"r\"
  [finish5] true : 5;
  [finish3] true : 3;
  [back] true : 1;
endrewards
";
    // Min hands over (3 against 5); Max at 1 finishes for 3, or goes back for 1 and then,
    // half the time, Min's 3 again: 1 + 3/2 = 5/2; looping for ever earns nothing more (0).
    let loaded = Loaded::new("game.prism", src, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "<<mini>> Rmin=? [ Fc x=2 ]", &[]).unwrap();
    assert_eq!(
        answer(src, "<<mini>> Rmin=? [ Fc x=2 ]", true).1.as_deref(),
        Some("3")
    );
    let Err(e) = perfectplay_prism::query_model(&loaded, &props, &props.props[0]) else {
        panic!("a query model for Fc on a game");
    };
    assert!(e.to_string().contains("analysis_model"), "{e}");
    let model = perfectplay_prism::analysis_model(&loaded, &props, &props.props[0], true).unwrap();
    let options = SolveOptions {
        exact: true,
        ..Default::default()
    };
    let solved = model.solve_dyn(options).unwrap();
    assert_eq!(solved.report().exact.as_deref(), Some("3"));
    let worth = |state: &str| -> Vec<(String, String, bool)> {
        let id = solved.find(state).unwrap();
        let explained = solved.explain(id).unwrap().explanation;
        explained
            .branches
            .iter()
            .map(|b| (b.label.clone(), b.value.exact.clone().unwrap(), b.optimal))
            .collect()
    };
    assert_eq!(
        worth("(x=0)"),
        [
            ("[finish5]".to_string(), "5".to_string(), false),
            ("[hand]".to_string(), "3".to_string(), true)
        ]
    );
    assert_eq!(
        worth("(x=1)"),
        [
            ("[finish3]".to_string(), "3".to_string(), true),
            ("[back]".to_string(), "5/2".to_string(), false),
            ("[loop]".to_string(), "3".to_string(), true)
        ]
    );
}

/// `R[ F0 φ ]` (a play that misses φ counts zero) where it is decided without the reward
/// earned so far: equal to `F` when every play reaches φ almost surely whatever anyone does,
/// zero when no play can reach φ.
#[test]
fn zero_for_a_missed_target_where_every_play_or_none_reaches_it() {
    // A coin flipped until heads, a flip earning 1: every play ends, after 2 flips on
    // average. Heads comes surely; "x=2" never does; with a second coin that may lose the
    // play (x=3), some plays reach heads and some do not.
    let coin = |lose: &str| {
        format!(
            "dtmc
module coin
  x : [0..3] init 0;
  [] x=0 -> 1/2 : (x'=1) + 1/2 : (x'={lose});
  [] x>0 -> true;
endmodule
rewards \"flips\"
  x=0 : 1;
endrewards
"
        )
    };
    let sure = coin("0");
    for exact in [false, true] {
        let (v, q) = answer(&sure, "R=? [ F0 x=1 ]", exact);
        assert_eq!(v, 2.0);
        if exact {
            assert_eq!(q.as_deref(), Some("2"));
        }
        assert_eq!(answer(&sure, "R=? [ F0 x=2 ]", exact).0, 0.0);
    }
    // Where some plays miss φ, the reward earned decides (`zero.rs`): here one flip is
    // earned, and kept with probability 1/2.
    let (v, q) = answer(&coin("3"), "R=? [ F0 x=1 ]", true);
    assert_eq!((v, q.as_deref()), (0.5, Some("1/2")));
    // The engine's other queries take F0 where it is F as that query.
    let loaded = Loaded::new("coin.prism", &sure, &[], 1_000).unwrap();
    let props = Props::new(&loaded.program, "p", "R=? [ F0 x=1 ]", &[]).unwrap();
    let model = perfectplay_prism::query_model(&loaded, &props, &props.props[0]).unwrap();
    let solved = perfectplay::solve(&model).unwrap();
    assert_eq!(*solved.start_value(), 2.0);

    // A game in which Max may stop (earning 1) or go (earning 2) to Min, who ends the play
    // either way: φ (x>=2) is reached surely, so F0 is F for either side.
    let game = "smg
player maxi [go], [stop] endplayer
player mini [left], [right] endplayer
module m
  x : [0..3] init 0;
  [stop] x=0 -> (x'=2);
  [go] x=0 -> (x'=1);
  [left] x=1 -> 1/2 : (x'=2) + 1/2 : (x'=3);
  [right] x=1 -> (x'=3);
endmodule
rewards \"r\"
  [stop] true : 1;
  [go] true : 2;
  [left] true : 4;
endrewards
";
    for (prop, want) in [
        ("<<maxi>> Rmax=? [ F0 x>=2 ]", "2"),
        ("<<maxi>> Rmin=? [ F0 x>=2 ]", "1"),
        ("<<mini>> Rmax=? [ F0 x>=2 ]", "1"),
        ("<<*>> Rmax=? [ F0 x>=2 ]", "6"),
        ("<<maxi>> Rmax>=2 [ F0 x>=2 ]", "true"),
    ] {
        let loaded = Loaded::new("game.prism", game, &[], 1_000).unwrap();
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
        let got = match a.holds {
            Some(b) => b.to_string(),
            None => a.exact.unwrap(),
        };
        assert_eq!(got, want, "{prop}");
    }
}

/// `R[ C ]`, PRISM's total reward of the whole play, is `Fc` of a target never reached: worked
/// out by hand on an MDP (Max earns 1 per round of a loop it leaves by chance, 4 in all; Min
/// stops at once for 3), +∞ where a rewarding loop can go on for ever, and the same answers
/// as `Fc false` on the game above. A P query with a reward path is an error, not `F`.
#[test]
fn total_reward_is_the_cumulative_reward_of_a_target_never_reached() {
    let mdp = |loop_pays: u32| {
        format!(
            "mdp
module m
  x : [0..2];
  [a] x=0 -> 1/2 : (x'=1) + 1/2 : (x'=2);
  [b] x=0 -> (x'=2);
  [] x=1 -> (x'=0);
  [c] x=2 -> true;
endmodule
rewards
  [a] true : 1;
  [b] true : 3;
  [c] true : {loop_pays};
  x=1 : 2;
endrewards
"
        )
    };
    for exact in [false, true] {
        assert_eq!(answer(&mdp(0), "Rmax=? [ C ]", exact).0, 4.0);
        assert_eq!(answer(&mdp(0), "Rmin=? [ C ]", exact).0, 3.0);
        assert_eq!(answer(&mdp(1), "Rmin=? [ C ]", exact).0, f64::INFINITY);
        assert_eq!(
            answer(&mdp(0), "Rmax=? [ C ]", exact),
            answer(&mdp(0), "Rmax=? [ Fc false ]", exact)
        );
    }
    let loaded = Loaded::new("m.prism", &mdp(0), &[], 100).unwrap();
    for prop in ["Pmax=? [ Fc x=2 ]", "Pmax=? [ F0 x=2 ]", "Pmax=? [ C ]"] {
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let Err(err) = check_prop(&loaded, &props, &props.props[0], false) else {
            panic!("{prop}: an answer");
        };
        let err = err.to_string();
        assert!(err.contains("measure rewards"), "{prop}: {err}");
    }
}
