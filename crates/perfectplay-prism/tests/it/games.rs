//! Games in the PRISM language against perfectplay's own models of them: Pig as a PRISM-games
//! `smg` (`examples/pig.prism`) gives the built-in `solve pig` value for several goals, to the
//! bit in floats and exactly; Pig against hold-at-K as an `mdp` (`examples/pig_hold.prism`)
//! gives the built-in game against that opponent; and small games worked out by hand.

use std::path::Path;

use perfectplay::{solve, solve_exact};
use perfectplay_games::pig::{Opponent, Pig};
use perfectplay_prism::{check_prop, parse_program, Loaded, Props};

fn example(name: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    (
        path.display().to_string(),
        std::fs::read_to_string(&path).unwrap(),
    )
}

/// The answer to `prop` on the model `src`, as a float and, with `exact`, a fraction.
fn answer(
    file: &str,
    src: &str,
    consts: &[(&str, String)],
    prop: &str,
    exact: bool,
) -> (f64, Option<String>) {
    let consts: Vec<(String, String)> = consts
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let loaded = Loaded::new(file, src, &consts, 10_000_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "prop", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
    let a = check_prop(&loaded, &props, &props.props[0], exact).unwrap_or_else(|e| panic!("{e}"));
    (a.value, a.exact)
}

#[test]
fn pig_as_a_stochastic_game_is_the_built_in_pig() {
    let (file, src) = example("pig.prism");
    for goal in [1u16, 2, 5, 9, 16, 25] {
        let prop = "<<first>> Pmax=? [ F \"first_wins\" ]";
        let (v, _) = answer(&file, &src, &[("GOAL", goal.to_string())], prop, false);
        let pig = Pig::new(goal, Opponent::Optimal).unwrap();
        assert_eq!(v, *solve(&pig).unwrap().start_value(), "goal {goal}");
        // The coalition by number, and the second player's view: the complement.
        let (by_number, _) = answer(
            &file,
            &src,
            &[("GOAL", goal.to_string())],
            "<<1>> Pmax=? [ F won=1 ]",
            false,
        );
        assert_eq!(by_number, v);
        let (second, _) = answer(
            &file,
            &src,
            &[("GOAL", goal.to_string())],
            "<<second>> Pmax=? [ F won=2 ]",
            false,
        );
        assert!((second - (1.0 - v)).abs() < 1e-12, "goal {goal}");
    }
    let (_, exact) = answer(
        &file,
        &src,
        &[("GOAL", "8".into())],
        "<<first>> Pmax=? [ F \"first_wins\" ]",
        true,
    );
    let pig = Pig::new(8, Opponent::Optimal).unwrap();
    assert_eq!(
        exact.unwrap(),
        solve_exact(&pig).unwrap().start_value().to_string()
    );
}

#[test]
fn pig_against_hold_at_k_as_an_mdp_is_the_built_in_game() {
    let (file, src) = example("pig_hold.prism");
    for (goal, k) in [(10u16, 4u16), (20, 20), (30, 7)] {
        let consts = [("GOAL", goal.to_string()), ("K", k.to_string())];
        let (v, _) = answer(&file, &src, &consts, "Pmax=? [ F won=1 ]", false);
        let pig = Pig::new(goal, Opponent::HoldAt(k)).unwrap();
        let expect = *solve(&pig).unwrap().start_value();
        assert!(
            (v - expect).abs() < 1e-12,
            "goal {goal}, K {k}: {v} against {expect}"
        );
    }
}

/// A game worked out by hand. Max at 0 may stop, winning with probability 1/2, or move to 1,
/// where Min flips one of two biased coins: one wins for Max with probability 3/4, the other
/// with 2/3. Min takes the second; 2/3 beats stopping, so Max goes: the value is 2/3.
#[test]
fn a_small_game_worked_out_by_hand() {
    let src = "smg
player maxi [go], [stop] endplayer
player mini [three_quarters], [two_thirds] endplayer
module m
  x : [0..3] init 0;
  [go] x=0 -> (x'=1);
  [stop] x=0 -> 1/2 : (x'=2) + 1/2 : (x'=3);
  [three_quarters] x=1 -> 3/4 : (x'=2) + 1/4 : (x'=3);
  [two_thirds] x=1 -> 2/3 : (x'=2) + 1/3 : (x'=3);
endmodule
";
    let (v, exact) = answer("hand.prism", src, &[], "<<maxi>> Pmax=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("2/3"), "{v}");
    // Min's coalition minimising the same target is the same game.
    let (_, exact) = answer("hand.prism", src, &[], "<<mini>> Pmin=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("2/3"));
    // Max's coalition minimising: Max stops (1/2) rather than let Min pick 3/4.
    let (_, exact) = answer("hand.prism", src, &[], "<<maxi>> Pmin=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("1/2"));
    // Every player together (`<<*>>`): Max goes and Min picks 3/4.
    let (_, exact) = answer("hand.prism", src, &[], "<<*>> Pmax=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("3/4"));
    // Without a coalition every player optimises alike, as in an MDP (as PRISM-games reads
    // it): 3/4 for the greatest, 1/2 for the least (stop, which beats 2/3 through Min).
    let (_, exact) = answer("hand.prism", src, &[], "Pmax=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("3/4"));
    let (_, exact) = answer("hand.prism", src, &[], "Pmin=? [ F x=2 ]", true);
    assert_eq!(exact.as_deref(), Some("1/2"));
    // A bound without a coalition holds for every scheduler: the least value meets 1/2.
    let loaded = Loaded::new("hand.prism", src, &[], 100).unwrap();
    for (prop, holds) in [("P>=0.5 [ F x=2 ]", true), ("P>0.5 [ F x=2 ]", false)] {
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
        assert_eq!(a.holds, Some(holds), "{prop}");
    }
}

/// A game in which the two players together can keep the play going for ever: Max at 0 may
/// stop, winning with probability 2/5, or go to 1, where Min may send the play back or flip a
/// coin that wins for Max with probability 1/4. An endless play never reaches the goal.
/// - Max maximising: if Max goes, Min sends the play back for ever (worth 0), so Max stops:
///   2/5.
/// - Max minimising against Min maximising: Max goes every time; Min's coin (1/4) beats the
///   endless play (0): 1/4. Value iteration from above stays at 2/5 here (2/5 is a fixed
///   point of the Bellman equations), so the end component decides the answer.
#[test]
fn a_game_with_an_end_component_worked_out_by_hand() {
    let src = "smg
player maxi [go], [stop] endplayer
player mini [back], [coin] endplayer
module m
  x : [0..3] init 0;
  [go] x=0 -> (x'=1);
  [stop] x=0 -> 2/5 : (x'=2) + 3/5 : (x'=3);
  [back] x=1 -> (x'=0);
  [coin] x=1 -> 1/4 : (x'=2) + 3/4 : (x'=3);
endmodule
";
    for exact in [false, true] {
        let ask = |prop: &str| answer("loop.prism", src, &[], prop, exact);
        let fraction = |(v, e): (f64, Option<String>)| e.unwrap_or_else(|| v.to_string());
        let (two_fifths, quarter) = if exact {
            ("2/5", "1/4")
        } else {
            ("0.4", "0.25")
        };
        assert_eq!(fraction(ask("<<maxi>> Pmax=? [ F x=2 ]")), two_fifths);
        assert_eq!(fraction(ask("<<mini>> Pmin=? [ F x=2 ]")), two_fifths);
        assert_eq!(fraction(ask("<<maxi>> Pmin=? [ F x=2 ]")), quarter);
        assert_eq!(fraction(ask("<<mini>> Pmax=? [ F x=2 ]")), quarter);
    }
}

/// Rewards in a game with an end component: Min at 0 may pay 3 to finish, go to the sink (3),
/// which never finishes, or ask Max (at 1), who may finish for 1 or send the play back.
/// - Min minimising: asking lets Max send the play back for ever, which never finishes (+∞),
///   so Min pays: 3. Value iteration from zero stays at 1 here.
/// - Min maximising: the sink never finishes: +∞.
/// - Max minimising, Min maximising, without the sink: Min asks (Max must finish, for 1, or
///   the play is endless, +∞, the worst for Max) only if 1 beats paying 3: Min pays, 3.
#[test]
fn a_reward_game_with_an_end_component_worked_out_by_hand() {
    let src = "smg
player mini [pay], [ask], [sink] endplayer
player maxi [back], [finish] endplayer
const bool SINK;
module m
  x : [0..3] init 0;
  [pay] x=0 -> (x'=2);
  [ask] x=0 -> (x'=1);
  [sink] x=0 & SINK -> (x'=3);
  [back] x=1 -> (x'=0);
  [finish] x=1 -> (x'=2);
endmodule
rewards \"cost\"
  [pay] true : 3;
  [finish] true : 1;
endrewards
label \"done\" = x=2;
";
    for exact in [false, true] {
        let ask = |prop: &str, sink: bool| {
            let consts = [("SINK", sink.to_string())];
            answer("reward.prism", src, &consts, prop, exact).0
        };
        assert_eq!(ask("<<mini>> Rmin=? [ F \"done\" ]", true), 3.0);
        assert_eq!(ask("<<maxi>> Rmax=? [ F \"done\" ]", true), 3.0);
        assert_eq!(ask("<<mini>> Rmax=? [ F \"done\" ]", true), f64::INFINITY);
        assert_eq!(ask("<<mini>> Rmax=? [ F \"done\" ]", false), 3.0);
        assert_eq!(ask("<<maxi>> Rmin=? [ F \"done\" ]", false), 3.0);
    }
}

/// A DTMC's commands enabled together are taken with equal probability: the state that may
/// stay or move moves with probability one, after two steps on average (a scheduler that
/// always stays would make it +∞). Its `Rmin` and `Rmax` are that one value too, as in PRISM
/// (a DTMC has one scheduler), in floats and exactly.
#[test]
fn a_dtmc_mixes_its_enabled_commands() {
    let src = "dtmc
module m
  x : [0..1] init 0;
  [] x=0 -> (x'=1);
  [] x=0 -> (x'=0);
endmodule
rewards true : 1; endrewards
";
    let steps = answer("mix.prism", src, &[], "R=? [ F x=1 ]", true);
    assert_eq!(steps.1.as_deref(), Some("2"));
    let reach = answer("mix.prism", src, &[], "P=? [ F x=1 ]", true);
    assert_eq!(reach.1.as_deref(), Some("1"));
    for exact in [false, true] {
        for prop in ["Rmin=? [ F x=1 ]", "Rmax=? [ F x=1 ]"] {
            assert_eq!(answer("mix.prism", src, &[], prop, exact).0, 2.0, "{prop}");
        }
        for prop in ["Pmin=? [ X x=0 ]", "Pmax=? [ X x=0 ]"] {
            assert_eq!(answer("mix.prism", src, &[], prop, exact).0, 0.5, "{prop}");
        }
    }
}

/// `R[Fc φ]`: a play that misses φ earns its total. In the DTMC half the plays end in a
/// bottom component that earns nothing (worth what was earned before, 2) or, with the other
/// reward structure, something at every step (+∞). In the MDP a scheduler may stay at 0 for
/// ever earning nothing (the minimum, 0; `F` would make that +∞), go to φ for 3, or (with
/// `C`) to a trap that earns 1 a step (the maximum, +∞).
#[test]
fn cumulative_rewards_worked_out_by_hand() {
    let dtmc = "dtmc
module m
  x : [0..2] init 0;
  [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=2);
  [] x>0 -> true;
endmodule
rewards \"r\"
  x=0 : 2;
endrewards
rewards \"all\"
  x!=1 : 1;
endrewards
";
    let mdp = "mdp
const bool C;
module m
  x : [0..2] init 0;
  [stay] x=0 -> (x'=0);
  [go] x=0 -> (x'=1);
  [trap] x=0 & C -> (x'=2);
  [] x>0 -> true;
endmodule
rewards \"r\"
  [go] true : 3;
  x=2 : 1;
endrewards
";
    let inf = f64::INFINITY;
    for exact in [false, true] {
        let d = |prop: &str| answer("fc.prism", dtmc, &[], prop, exact).0;
        assert_eq!(d("R{\"r\"}=? [ Fc x=1 ]"), 2.0);
        assert_eq!(d("R{\"r\"}=? [ F x=1 ]"), inf);
        assert_eq!(d("R{\"all\"}=? [ Fc x=1 ]"), inf);
        for (c, rmin_fc, rmax_fc) in [(true, 0.0, inf), (false, 0.0, 3.0)] {
            let consts = [("C", c.to_string())];
            let m = |prop: &str| answer("fc.prism", mdp, &consts, prop, exact).0;
            assert_eq!(m("Rmin=? [ Fc x=1 ]"), rmin_fc, "C={c}");
            assert_eq!(m("Rmax=? [ Fc x=1 ]"), rmax_fc, "C={c}");
            assert_eq!(m("Rmin=? [ F x=1 ]"), 3.0, "C={c}");
            assert_eq!(m("Rmax=? [ F x=1 ]"), inf, "C={c}");
        }
    }
}

/// `perfectplay check` builds a model only as far as its properties need: a state where every
/// asked property is decided (φ or ¬ψ of `ψ U φ`) is not expanded, and a property the build
/// was not made for is refused rather than answered on too few states.
#[test]
fn a_build_for_properties_stops_where_they_are_decided() {
    let src = "dtmc
module m
  x : [0..4] init 0;
  [] x=0 -> 1/3:(x'=1) + 2/3:(x'=2);
  [] x=1 -> 1/2:(x'=3) + 1/2:(x'=0);
  [] x=2 -> (x'=4);
  [] x>=3 -> (x'=0);
endmodule
";
    let program = parse_program("chain", src, &[]).unwrap();
    let until = Props::new(&program, "p", "P=? [ x!=2 U x=3 ]", &[]).unwrap();
    let reach = Props::new(&program, "p", "P=? [ F x=4 ]", &[]).unwrap();
    let nothing = &mut |_, _| std::ops::ControlFlow::Continue(());
    // x = 4 lies beyond the until's decided states 2 and 3: p0 = p1 / 3, p1 = 1/2 + p0 / 2.
    let l = Loaded::for_properties(program.clone(), &[(&until, 0)], 100, nothing).unwrap();
    assert_eq!(
        (l.space.len(), l.space.stopped, l.space.deadlocks),
        (4, 2, 0)
    );
    let a = check_prop(&l, &until, &until.props[0], true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("1/5"));
    let e = check_prop(&l, &reach, &reach.props[0], false)
        .err()
        .unwrap();
    assert!(e.to_string().contains("built for other properties"), "{e}");
    // Built for both, a state is left out only where both are decided: none here.
    let both = [(&until, 0), (&reach, 0)];
    let l = Loaded::for_properties(program, &both, 100, nothing).unwrap();
    assert_eq!((l.space.len(), l.space.stopped), (5, 0));
    for (props, _) in both {
        let a = check_prop(&l, props, &props.props[0], true).unwrap();
        let want = if std::ptr::eq(props, &until) {
            "1/5"
        } else {
            "1"
        };
        assert_eq!(a.exact.as_deref(), Some(want));
    }
}
