//! `check --processes N`: PRISM properties solved across processes on loopback, each process
//! expanding and holding its share of the model's states, against `check` in one process;
//! random models as well as QVBS cases, and the errors of what it does not answer.

use crate::common::{fails_with, file, run, text};
use proptest::prelude::*;

/// The QVBS models the tests read.
const QVBS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../perfectplay-prism/tests/qvbs/models"
);

/// A value as the JSON answers write it: a number, or `"inf"` for +∞.
fn number(v: &serde_json::Value) -> f64 {
    match v.as_str() {
        Some("inf") => f64::INFINITY,
        _ => v.as_f64().unwrap_or_else(|| panic!("not a value: {v}")),
    }
}

/// The output of `check MODEL --prop PROP --json -q` (with `extra`), whether it succeeds or not.
fn check_json(model: &str, prop: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["check", model, "--prop", prop, "--json", "-q"];
    args.extend_from_slice(extra);
    run(&args)
}

/// What `check MODEL --prop PROP --json -q` (with `extra`) prints, which must succeed.
fn json(model: &str, prop: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["check", model, "--prop", prop, "--json", "-q"];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The answer in `check --json`'s output `v`, in one process or across processes: the first
/// of its `results`.
fn answer(v: &serde_json::Value) -> &serde_json::Value {
    &v["results"][0]
}

/// `check MODEL --prop PROP` (with `extra`) as JSON: the value, the error bound.
fn value(model: &str, prop: &str, extra: &[&str]) -> (f64, f64) {
    let v = json(model, prop, extra);
    let answer = answer(&v);
    (
        number(&answer["value"]),
        answer["error_bound"].as_f64().unwrap_or(0.0),
    )
}

/// Checks `prop` of `model` across `processes` processes and asserts that `expected` lies
/// within the reported bound, which leaves the precision asked.
fn near(model: &str, prop: &str, processes: &str, expected: f64) {
    let (v, bound) = value(model, prop, &["--processes", processes]);
    assert!(
        (v - expected).abs() <= bound && bound <= 2e-9 * expected.abs().max(1.0),
        "{prop} on {processes} processes: {v} ± {bound}, expected {expected}"
    );
}

/// Checks `prop` of `model` across `processes` processes and in one, and asserts that they
/// agree within the reported bounds.
fn agrees(model: &str, consts: &str, prop: &str, processes: &str) {
    let mut one = vec![];
    let mut across = vec!["--processes", processes];
    if !consts.is_empty() {
        one.extend_from_slice(&["--const", consts]);
        across.extend_from_slice(&["--const", consts]);
    }
    let (truth, truth_bound) = value(model, prop, &one);
    let (v, bound) = value(model, prop, &across);
    if truth.is_infinite() {
        assert_eq!(v, truth, "{model} {consts} {prop} on {processes} processes");
        return;
    }
    // Within the precision asked, unless the open states were solved in one piece by the
    // one-process method, whose bound (that of near ties, say) the run then reports, with
    // the spread of the values the open part is left for.
    assert!(
        bound <= 2e-9 * truth.abs().max(1.0) || bound <= 2.0 * truth_bound,
        "{model} {prop}: the bound {bound} is wider than the precision asked and than one \
         process's {truth_bound}"
    );
    assert!(
        (v - truth).abs() <= bound + truth_bound + 1e-15 * truth.abs().max(1.0),
        "{model} {consts} {prop} on {processes} processes: {v} ± {bound}, but one process \
         says {truth} ± {truth_bound}"
    );
}

#[test]
fn qvbs_probabilities_across_processes_agree_with_one_process() {
    for (model, consts, prop, processes) in [
        ("brp/brp.prism", "N=16,MAX=2", "P=? [ F s=5 ]", "2"),
        (
            "brp/brp.prism",
            "N=16,MAX=2",
            "P=? [ F !(srep=0) & !recv ]",
            "3",
        ),
        (
            "consensus/consensus.2.prism",
            "K=2",
            "Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ]",
            "2",
        ),
        (
            "zeroconf/zeroconf.prism",
            "N=20,K=2,reset=true",
            "Pmin=? [ F (l=4 & ip=1) ]",
            "4",
        ),
        (
            "pacman/pacman.nm",
            "MAXSTEPS=5",
            "Pmax=? [ F \"Crash\" ]",
            "1",
        ),
        // End components whose value lies strictly between 0 and 1.
        (
            "zeroconf/zeroconf.prism",
            "N=20,K=2,reset=true",
            "Pmax=? [ F (l=4 & ip=1) ]",
            "3",
        ),
        (
            "zeroconf/zeroconf.prism",
            "N=20,K=4,reset=false",
            "Pmax=? [ F (l=4 & ip=1) ]",
            "2",
        ),
    ] {
        agrees(&format!("{QVBS}/{model}"), consts, prop, processes);
    }
}

/// Properties that compute with the values of queries, each query solved across the
/// processes in turn and the arithmetic done on their certified bounds: the same value as one
/// process, within a bound that covers both queries' and that the JSON's `lower` and `upper`
/// hold.
#[test]
fn arithmetic_over_queries_across_processes_agrees_with_one_process() {
    let consensus = format!("{QVBS}/consensus/consensus.2.prism");
    let brp = format!("{QVBS}/brp/brp.prism");
    for (model, consts, prop) in [
        (
            &consensus,
            "K=2",
            "1 - Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ]",
        ),
        (
            &consensus,
            "K=2",
            "Pmax=? [ F \"finished\"&!\"agree\" ] - Pmin=? [ F \"finished\"&!\"agree\" ]",
        ),
        (&brp, "N=16,MAX=2", "1000 * P=? [ F s=5 ] + 1"),
        (&brp, "N=16,MAX=2", "max(P=? [ F s=5 ], 1/2000) / 2"),
    ] {
        let one = value(model, prop, &["--const", consts]);
        let all = json(model, prop, &["--const", consts, "--processes", "2"]);
        let v = answer(&all);
        let (x, bound) = (number(&v["value"]), v["error_bound"].as_f64().unwrap());
        let (lower, upper) = (number(&v["lower"]), number(&v["upper"]));
        assert!(
            (x - one.0).abs() <= bound + one.1 + 1e-15 * one.0.abs().max(1.0)
                && bound <= 1e-8 * one.0.abs().max(1.0),
            "{prop}: {x} ± {bound} across processes, {} ± {} in one",
            one.0,
            one.1
        );
        assert!(
            // (Each end rounded outward: a few units of the last place more.)
            lower <= x && x <= upper && upper - lower <= 2.5 * bound + 8.0 * f64::EPSILON * x,
            "{v}"
        );
        assert!(lower <= one.0 + one.1 && one.0 - one.1 <= upper, "{v}");
    }
}

/// Arithmetic, comparisons and logic over queries on a model of several initial states,
/// taken in each of them (a filter over the initial states, or PRISM's default, the range
/// of a number and `forall` of a truth value), a part that reads the state read in each,
/// against one process; a state whose bounds do not tell is named.
#[test]
fn arithmetic_over_queries_in_each_initial_state_across_processes_agrees_with_one_process() {
    let three = file("across_each_initial.prism", THREE);
    let mdp = file("across_each_initial_mdp.prism", REWARDS);
    for (model, prop) in [
        (&three, "1 - P=? [ F \"a\" ]"),
        (&three, "P=? [ F \"a\" ] > 0.3"),
        (&three, "P=? [ F \"a\" ] > 2/3"),
        (&three, "P=? [ F \"a\" ] + R=? [ F \"end\" ]"),
        (&three, "s + P=? [ F \"a\" ]"),
        (&three, "P>0.3 [ F \"a\" ] & P<0.6 [ F \"a\" ]"),
        (&three, "filter(max, 1 - P=? [ F \"a\" ], \"init\")"),
        (&three, "filter(argmin, s - P=? [ F \"a\" ], \"init\")"),
        (&three, "filter(count, P=? [ F \"a\" ] > 0.3, \"init\")"),
        (&three, "filter(avg, P=? [ F \"a\" ] * 2, \"init\")"),
        (&three, "filter(print, P=? [ F \"a\" ] + s, \"init\")"),
        (
            &three,
            "filter(range, P=? [ G !\"a\" ] - P=? [ F \"a\" ], \"init\")",
        ),
        (&three, "filter(first, R=? [ F \"end\" ] / 2, \"init\")"),
        (
            &three,
            "filter(sum, P=? [ F \"a\" ] + filter(max, P=? [ F \"a\" ], \"init\"), \"init\")",
        ),
        (&three, "E [ F \"a\" ] & !A [ X \"end\" ]"),
        (&mdp, "Pmax=? [ F \"done\" ] - Pmin=? [ F \"done\" ]"),
        (&mdp, "Rmin=? [ F \"done\" ] + s"),
        (&mdp, "filter(min, Rmin=? [ F \"done\" ] * 2, \"init\")"),
    ] {
        same_across(model, prop, "2");
    }
    same_across(&three, "s + P=? [ F \"a\" ]", "3");
    // One initial state, whose variables a part reads.
    let game = file("across_each_initial_game.prism", GAME);
    same_across(&game, "x + 1 - <<a>> Pmax=? [ F x=3 ]", "2");
    same_across(
        &game,
        "filter(max, t - <<a>> Pmax=? [ F x=3 ], \"init\")",
        "2",
    );
    fails_with(
        &[
            "check",
            &three,
            "--prop",
            "filter(exists, P=? [ F \"a\" ] >= 2/3, \"init\")",
            "--processes",
            "2",
        ],
        "in state (s=1)",
    );
}

/// Filters over other states than the initial ones of arithmetic and logic over queries and
/// of state formulas (`filter(forall, "a" => P>=1 [ F "b" ])`, PRISM's common form), each
/// query solved in each state found and the expression taken there, against one process: with
/// a condition, over every reachable state, and over none; and properties that ask no query,
/// of the initial states' variables alone, answered without a run.
#[test]
fn filters_of_arithmetic_and_state_formulas_across_processes_agree_with_one_process() {
    let three = file("across_filter_arith.prism", THREE);
    let mdp = file("across_filter_arith_mdp.prism", REWARDS);
    let game = file("across_filter_arith_game.prism", GAME);
    for (model, prop) in [
        (&three, "filter(max, 1 - P=? [ F \"a\" ], s>=1)"),
        (&three, "filter(print, s + P=? [ F \"a\" ], !\"end\")"),
        (&three, "filter(count, P=? [ F \"a\" ] > 0.3)"),
        (
            &three,
            "filter(sum, P=? [ F \"a\" ] + R=? [ F \"end\" ], s<3)",
        ),
        (
            &three,
            "filter(argmax, P=? [ G !\"a\" ] - P=? [ F \"a\" ], s!=4)",
        ),
        (&three, "filter(count, P=? [ F \"a\" ] > 0.3, s>9)"),
        (&three, "filter(forall, P>0.2 [ F \"a\" ] | s=4, s!=3)"),
        (&three, "filter(forall, P>0.2 [ F \"a\" ] | s=4, \"init\")"),
        (&three, "filter(forall, !P>0.2 [ F \"a\" ], s!=3)"),
        (&three, "filter(print, \"a\" => P>=1 [ F \"end\" ])"),
        (&three, "filter(forall, \"end\" | P>0.3 [ X \"a\" ], s>9)"),
        (&three, "filter(count, s>2)"),
        (&three, "filter(exists, E [ G !\"end\" ] & s>0)"),
        (
            &mdp,
            "filter(min, Pmax=? [ F \"done\" ] - Pmin=? [ F \"done\" ], s<3)",
        ),
        (&mdp, "filter(forall, s=2 | Pmax>0 [ F \"done\" ])"),
        (&game, "filter(max, x + <<a>> Pmax=? [ F x=3 ], t=1)"),
        // No query at all: the initial states' variables (one, or two in `mdp`).
        (&three, "filter(sum, s, \"init\")"),
        (&three, "s + 1"),
        (&three, "s > 0 | \"end\""),
        (&mdp, "filter(sum, s, \"init\")"),
        (&mdp, "filter(print, s * 2, \"init\")"),
        (&mdp, "s + 1"),
        (&mdp, "s = 0"),
        (&mdp, "2 + 3"),
    ] {
        same_across(model, prop, "2");
    }
}

/// Comparisons and rounding of query values across processes, decided from the values'
/// certified bounds, against one process (which solves them exactly): on either side of the
/// value, between two queries, with `floor`, `ceil` and `round` on either side of a whole
/// number, and inside arithmetic and `? :`. Where the bounds straddle, the run says so.
#[test]
fn comparisons_of_query_values_across_processes_agree_with_one_process() {
    let brp = format!("{QVBS}/brp/brp.prism");
    let consensus = format!("{QVBS}/consensus/consensus.2.prism");
    // The values are 1.0585016614392e-4 (brp N=4 MAX=2) and 49/128 (consensus 2 K=2, which
    // interval iteration brings within about 2e-14 of it).
    for (model, consts, prop) in [
        (&brp, "N=4,MAX=2", "P=? [ F s=5 ] > 0.0001"),
        (&brp, "N=4,MAX=2", "P=? [ F s=5 ] >= 0.000106"),
        (&brp, "N=4,MAX=2", "P=? [ F s=5 ] < 1/9000"),
        (&brp, "N=4,MAX=2", "P=? [ F s=5 ] != 0"),
        (&brp, "N=4,MAX=2", "P=? [ F s=5 ] <= P=? [ F s=5 ] / 2"),
        (&brp, "N=4,MAX=2", "floor(1e6 * P=? [ F s=5 ])"),
        (&brp, "N=4,MAX=2", "ceil(1e6 * P=? [ F s=5 ]) - 1"),
        (&brp, "N=4,MAX=2", "round(2e4 * P=? [ F s=5 ])"),
        (&brp, "N=4,MAX=2", "round(1e4 * P=? [ F s=5 ])"),
        (
            &brp,
            "N=4,MAX=2",
            "P=? [ F s=5 ] > 0.0001 ? 2 * P=? [ F s=5 ] : 0",
        ),
        (
            &consensus,
            "K=2",
            "Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ] > 0.38",
        ),
        (
            &consensus,
            "K=2",
            "Pmax=? [ F \"finished\"&!\"agree\" ] > Pmin=? [ F \"finished\"&!\"agree\" ]",
        ),
        (
            &consensus,
            "K=2",
            "floor(100 * Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ])",
        ),
    ] {
        let one = json(model, prop, &["--const", consts]);
        let across = json(model, prop, &["--const", consts, "--processes", "2"]);
        let (one, across) = (&answer(&one)["value"], &answer(&across)["value"]);
        match one.as_bool() {
            Some(b) => assert_eq!(across.as_bool(), Some(b), "{prop}: {across} across"),
            None => {
                let (x, y) = (number(one), number(across));
                assert!(
                    (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                    "{prop}: {y} across processes, {x} in one"
                );
            }
        }
    }
    // A bound within the value's certified bounds, and a whole number within them: the
    // value is exactly 49/128.
    for (prop, words) in [
        (
            "Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ] > 49/128",
            "too close to compare within their certified bounds",
        ),
        (
            "floor(128 * Pmin=? [ F \"finished\"&\"all_coins_equal_1\" ])",
            "do not tell which",
        ),
    ] {
        fails_with(
            &[
                "check",
                &consensus,
                "--const",
                "K=2",
                "--prop",
                prop,
                "--processes",
                "2",
            ],
            words,
        );
    }
}

/// Haddad and Monmege's walk, on which interval iteration needs exponentially many rounds:
/// the open states are gathered into one worker and solved there in one piece, with the same
/// answer as one process, on 1 to 4 processes.
#[test]
fn a_walk_that_interval_iteration_cannot_close_across_processes() {
    let model = format!("{QVBS}/haddad-monmege/haddad-monmege.pm");
    for (consts, processes) in [
        ("N=20,p=0.7", "4"),
        ("N=100,p=0.7", "3"),
        ("N=300,p=0.7", "2"),
        ("N=300,p=0.3", "1"),
    ] {
        agrees(&model, consts, "P=? [ F \"Target\" ]", processes);
        agrees(&model, consts, "P=? [ F \"Done\" ]", processes);
    }
    let o = run(&[
        "check",
        &model,
        "--const",
        "N=100,p=0.7",
        "--prop",
        "P=? [ F \"Target\" ]",
        "--processes",
        "2",
        "--json",
        "-q",
    ]);
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let v = answer(&all);
    assert!(
        v["method"].as_str().unwrap().contains("solved directly"),
        "{v}"
    );
}

/// The walk on a torus (`examples/torus.prism`), whose interval iteration would take some
/// hundred thousand rounds: gathered into one worker, the chain is solved there within a
/// tight bound, as in one process, on 2 and 3 processes.
#[test]
fn a_long_walk_on_a_torus_is_gathered_and_solved_across_processes() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perfectplay-prism/examples/torus.prism"
    );
    let prop = "R=? [ F x=30 & y=71 ]";
    let (truth, truth_bound) = value(model, prop, &["--const", "N=100"]);
    for processes in ["2", "3"] {
        let (v, bound) = value(model, prop, &["--const", "N=100", "--processes", processes]);
        assert!(
            bound <= 1e-9 * truth && (v - truth).abs() <= bound + truth_bound,
            "on {processes} processes: {v} ± {bound}, one process {truth} ± {truth_bound}"
        );
    }
}

/// An MDP with a deadlock at `s=2` (whose loop is no command: it earns the state reward alone)
/// and one at `s=3`, transition rewards for `[]` and `[a]`, and state rewards.
const STEPS: &str = "mdp
module m
  s : [0..3] init 0;
  [a] s<2 -> 0.5:(s'=s+1) + 0.5:(s'=s);
  [b] s=1 -> 0.25:(s'=3) + 0.75:(s'=0);
endmodule
rewards
  [] true : 1;
  [a] true : 2;
  s>=2 : 0.5;
  s=1 : 3;
endrewards
label \"end\" = s>=2;
";

/// Step bounds of every form across processes, on an MDP and a DTMC: the product of the states
/// with the steps taken, explored and solved like any other game, against one process. Some
/// values by hand: `Pmax=? [ F<=4 s=3 ]` is 17/64 and `Rmax=? [ I=6 ]` 631/512 (the exact
/// one-process answers agree).
#[test]
fn step_bounds_across_processes_agree_with_one_process() {
    let model = file("across_steps.prism", STEPS);
    near(&model, "Pmax=? [ F<=4 s=3 ]", "2", 17.0 / 64.0);
    near(&model, "Rmax=? [ I=6 ]", "3", 631.0 / 512.0);
    for (prop, processes) in [
        ("Rmax=? [ C<=10 ]", "2"),
        ("Rmin=? [ C<=10 ]", "3"),
        ("Rmin=? [ I=6 ]", "1"),
        ("Pmin=? [ X s=1 ]", "2"),
        ("Pmax=? [ F=3 s=1 ]", "3"),
        ("Pmin=? [ F>=2 s=3 ]", "2"),
        ("Pmin=? [ s<2 U>=2 \"end\" ]", "2"),
        ("Pmax=? [ G<=3 s<2 ]", "4"),
        ("Pmin=? [ s<2 W<=3 s=3 ]", "2"),
        ("Pmax=? [ s<2 R<=3 s=1 ]", "2"),
        ("filter(avg, Pmax=? [ F<=2 \"end\" ], \"init\")", "2"),
    ] {
        agrees(&model, "", prop, processes);
    }
    let brp = format!("{QVBS}/brp/brp.prism");
    for (prop, processes) in [
        ("P=? [ F<=20 s=5 ]", "2"),
        ("P=? [ F[4,9] s=5 ]", "3"),
        ("P=? [ !(s=4) U<=12 s=5 ]", "2"),
        ("P=? [ G<=10 s!=5 ]", "2"),
    ] {
        agrees(&brp, "N=16,MAX=2", prop, processes);
    }
    // A lower bound alone on a model whose ends are deadlocks: each loops while the steps
    // before the bound are counted.
    let three = file("across_steps_three.prism", THREE);
    for prop in [
        "filter(min, P=? [ F>=2 \"a\" ], \"init\")",
        "filter(max, P=? [ F>3 \"a\" ], \"init\")",
        "filter(avg, P=? [ \"end\" U>=2 s=4 ], \"init\")",
    ] {
        agrees(&three, "", prop, "2");
    }
}

/// An MDP whose rewards make a bound on the reward earned matter: from `s=0` (worth 1 a
/// step), `a` gambles on `s=2`, whose command earns 2, and `s=1`, which earns nothing and
/// may return; `b` goes to `s=3`, which earns 1/2 a step until it leaves. "z" is earned only
/// at the deadlock `s=4`, whose loop earns it: a lower bound on it is met by waiting there.
const REWARD_BOUNDED: &str = "mdp
module m
  s : [0..4] init 0;
  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [b] s=0 -> (s'=3);
  [] s=1 -> 1/3 : (s'=0) + 2/3 : (s'=4);
  [c] s=2 -> (s'=4);
  [] s=3 -> 1/4 : (s'=3) + 3/4 : (s'=4);
endmodule
rewards \"r\"
  s=0 : 1;
  [c] true : 2;
  s=3 : 1/2;
endrewards
rewards \"z\"
  s=4 : 1;
endrewards
";

#[test]
fn reward_bounds_across_processes_agree_with_one_process_and_by_hand() {
    let model = file("across_reward_bounded.prism", REWARD_BOUNDED);
    for processes in ["1", "2", "3", "4"] {
        // By `b`, within 3 when `s=3` is left within 4 steps: 1 - (1/4)^4.
        near(
            &model,
            "Pmax=? [ F^{rew{\"r\"}<=3} s=4 ]",
            processes,
            255.0 / 256.0,
        );
        // `a` throughout, and `b` once 2 is earned (from where it cannot stay within 3):
        // 1/2 + 1/2 (2/3 + 1/3 · 1/3) = 8/9.
        near(
            &model,
            "Pmin=? [ F^{rew{\"r\"}<=3} s=4 ]",
            processes,
            8.0 / 9.0,
        );
    }
    for (prop, processes) in [
        ("Pmax=? [ F^{rew{\"r\"}>=3} s=4 ]", "2"),
        ("Pmin=? [ F^{rew{\"r\"}>2} s=4 ]", "3"),
        ("Pmax=? [ s<3 U^{rew{\"r\"}<5/2} s=4 ]", "2"),
        ("Pmin=? [ s!=1 U^{rew{\"r\"}>=1} s=4 ]", "2"),
        ("Pmax=? [ F^{rew{\"z\"}>=2} s=4 ]", "2"),
        ("Pmax=? [ F^{rew{\"z\"}<0} s=4 ]", "2"),
        ("Pmin=? [ F^{rew{\"z\"}>=0} s=4 ]", "3"),
        ("filter(avg, Pmax=? [ F^{rew<=5/2} s=4 ], \"init\")", "2"),
    ] {
        agrees(&model, "", prop, processes);
    }
    for prop in [
        "P>=0.9 [ F^{rew{\"r\"}<=3} s=4 ]",
        "Pmin<0.9 [ F^{rew{\"r\"}<=3} s=4 ]",
    ] {
        same_across(&model, prop, "2");
    }
    // A chain of several initial states, each command chosen uniformly.
    let three = file("across_reward_bounded_three.prism", THREE);
    for prop in [
        "P=? [ F^{rew<=2} \"a\" ]",
        "P=? [ F^{rew>=2} \"end\" ]",
        "filter(max, P=? [ F^{rew>1} \"a\" ], \"init\")",
    ] {
        same_across(&three, prop, "2");
    }
}

/// A ring of ten states that the maximiser may go round for ever (one end component), each
/// offering a gamble that wins with probability `(s+1)/20`: every state of the ring is worth
/// the best gamble, 1/2, which the upper bounds reach only by a guess checked on the whole ring.
const RING: &str = "mdp
module m
  s : [0..11] init 0;
  [] s<10 -> (s'=mod(s+1,10));
  [] s<10 -> (s+1)/20 : (s'=10) + (19-s)/20 : (s'=11);
  [] s>=10 -> true;
endmodule
";

#[test]
fn an_end_component_worth_between_zero_and_one_across_processes() {
    let model = file("across_ring.prism", RING);
    for processes in ["1", "2", "3", "4"] {
        near(&model, "Pmax=? [ F s=10 ]", processes, 0.5);
        agrees(&model, "", "Pmax=? [ F s=11 ]", processes);
        agrees(&model, "", "Pmin=? [ F s=10 ]", processes);
    }
}

#[test]
fn qvbs_rewards_across_processes_agree_with_one_process() {
    for (model, consts, prop, processes) in [
        ("leader_sync/leader_sync.3-2.prism", "", "R=? [ C ]", "2"),
        ("leader_sync/leader_sync.4-2.prism", "", "R=? [ C ]", "3"),
        ("csma/csma.2-2.prism", "", "Rmin=? [ C ]", "2"),
        (
            "consensus/consensus.2.prism",
            "K=2",
            "R{\"steps\"}max=? [ F \"finished\" ]",
            "2",
        ),
        (
            "consensus/consensus.2.prism",
            "K=2",
            "R{\"steps\"}min=? [ F \"finished\" ]",
            "3",
        ),
        (
            "csma/csma.2-2.prism",
            "",
            "R{\"time\"}min=? [ F \"all_delivered\" ]",
            "2",
        ),
        (
            "firewire_abst/firewire_abst.prism",
            "delay=3",
            "R{\"time\"}max=? [ F \"done\" ]",
            "4",
        ),
        (
            "herman/herman.5.prism",
            "",
            "filter(max, R=? [ F \"stable\" ], \"init\")",
            "2",
        ),
        (
            "leader_sync/leader_sync.3-2.prism",
            "",
            "R{\"num_rounds\"}=? [ F \"elected\" ]",
            "2",
        ),
    ] {
        agrees(&format!("{QVBS}/{model}"), consts, prop, processes);
    }
}

/// An MDP with rewards: from `s=0`, `[a]` may loop or reach the target through `s=1`; `[b]`
/// may fall into `s=2`, which never leaves (+∞).
const REWARDS: &str = "mdp
module m
  s : [0..3];
  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=0);
  [b] s=0 -> 1/3 : (s'=2) + 2/3 : (s'=3);
  [] s=1 -> 1/2 : (s'=3) + 1/2 : (s'=0);
  [] s=2 -> true;
endmodule
init s=0 | s=2 endinit
rewards \"r\"
  s<3 : 1;
  [a] true : 2;
endrewards
label \"done\" = s=3;
";

/// The values of [`REWARDS`] worked out by hand: from `s=0`, always `[a]` costs `x` with
/// `x = 3 + (1/2) x + (1/2) y` and `y = 1 + (1/2) x`, so `x = 14`.
#[test]
fn rewards_across_processes_agree_with_one_process_and_by_hand() {
    let model = file("across_rewards.prism", REWARDS);
    for (prop, expected) in [
        ("filter(min, Rmin=? [ F \"done\" ], \"init\")", 14.0),
        (
            "filter(max, Rmin=? [ F \"done\" ], \"init\")",
            f64::INFINITY,
        ),
        (
            "filter(min, Rmax=? [ F \"done\" ], \"init\")",
            f64::INFINITY,
        ),
        (
            "filter(avg, Rmin=? [ F \"done\" ], \"init\")",
            f64::INFINITY,
        ),
    ] {
        let (v, bound) = value(&model, prop, &["--processes", "2"]);
        assert!(
            v == expected || (v - expected).abs() <= bound,
            "{prop}: {v} ± {bound}, expected {expected}"
        );
        agrees(&model, "", prop, "2");
    }
    let game = file(
        "across_game_rewards.prism",
        &format!("{GAME}rewards\n  true : 1;\nendrewards\n"),
    );
    for prop in [
        "<<a>> Rmin=? [ F x=3 ]",
        "<<b>> Rmin=? [ F x=3 ]",
        "<<a>> Rmax=? [ F x=3 ]",
        "<<a,b>> Rmin=? [ F x=3 ]",
    ] {
        agrees(&game, "", prop, "3");
    }
}

#[test]
fn rewards_across_processes_that_cannot_be_bounded_are_errors() {
    // A reward below zero.
    let negative = file(
        "across_negative.prism",
        &REWARDS.replace("s<3 : 1;", "s<3 : -1;"),
    );
    fails_with(
        &[
            "check",
            &negative,
            "--prop",
            "filter(min, Rmin=? [ F \"done\" ], \"init\")",
            "--processes",
            "2",
        ],
        "rewards of at least zero",
    );
}

/// An MDP for total rewards: from `s=0`, `[a]` earns 1 and goes to `s=1` or the deadlock
/// `s=2`, half and half; `[b]` earns 3 and ends in the deadlock `s=3`; `[c]` leads to `s=4`,
/// which may circle for nothing (`[e]`) or end in the deadlock `s=5`, which earns 1 a step for
/// ever. From `s=1` (which earns 1), back to `s=0` or to `s=3`, half and half.
const TOTAL: &str = "mdp
module m
  s : [0..5] init 0;
  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [b] s=0 -> (s'=3);
  [c] s=0 -> (s'=4);
  [] s=1 -> 1/2 : (s'=0) + 1/2 : (s'=3);
  [e] s=4 -> (s'=4);
  [f] s=4 -> (s'=5);
endmodule
rewards
  [a] true : 1;
  [b] true : 3;
  s=1 : 1;
  s=5 : 1;
endrewards
";

/// `check --processes N` of `prop`, which must fail with an error that contains `words`.
fn refused_across(model: &str, prop: &str, processes: &str, words: &str) {
    fails_with(
        &["check", model, "--prop", prop, "--processes", processes],
        words,
    );
}

/// The total reward (`C`, `Fc`) across processes, against values worked out by hand. In
/// [`TOTAL`], the minimiser can keep every reward at zero for ever from `s=0` (`[c]`, then
/// `[e]` for ever), so `Rmin [ C ]` is 0; the maximiser can reach the deadlock that earns for
/// ever, so `Rmax [ C ]` is +∞. Without `[c]`: `[a]` is worth `x = 1 + (1/2)(1 + x/2)`, so
/// `x = 2`, and `[b]` is worth 3. In a chain that leaves a cycle for a deadlock that earns
/// nothing or for a circle of its own that earns nothing: `x = 1 + y/2`, `y = 2 + x/2` gives
/// `x = 8/3`. Where the maximiser may circle for nothing beside a reward, see
/// [`a_maximiser_that_may_circle_for_nothing_beside_a_reward_across_processes`].
#[test]
fn totals_across_processes_agree_with_one_process_and_by_hand() {
    let model = file("across_total.prism", TOTAL);
    let no_c = file(
        "across_total_no_c.prism",
        &TOTAL.replace("[c] s=0 -> (s'=4);", ""),
    );
    let chain = file(
        "across_total_chain.prism",
        "dtmc\nmodule m\n  s : [0..3] init 0;\n  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);\n  \
         [] s=1 -> 1/2 : (s'=0) + 1/2 : (s'=3);\n  [] s=2 -> (s'=2);\nendmodule\n\
         rewards\n  s=0 : 1;\n  [] s=1 : 2;\nendrewards\n",
    );
    for processes in ["1", "2", "3", "4"] {
        near(&model, "Rmin=? [ C ]", processes, 0.0);
        near(&no_c, "Rmin=? [ C ]", processes, 2.0);
        near(&no_c, "Rmax=? [ C ]", processes, 3.0);
        near(&no_c, "Rmin=? [ Fc s=1 ]", processes, 1.0);
        near(&chain, "R=? [ C ]", processes, 8.0 / 3.0);
        near(&chain, "R=? [ Fc s=1 ]", processes, 1.0);
    }
    for (model, prop) in [
        (&model, "Rmin=? [ C ]"),
        (&no_c, "Rmin=? [ C ]"),
        (&no_c, "Rmax=? [ C ]"),
        (&no_c, "Rmax=? [ Fc s=2 ]"),
        (&chain, "R=? [ C ]"),
        (&chain, "filter(max, R=? [ C ], \"init\")"),
    ] {
        agrees(model, "", prop, "2");
    }
    // The deadlock `s=5` earns for ever, and the maximiser may circle at `s=4` for nothing
    // (or go there).
    for processes in ["1", "2", "4"] {
        let (v, _) = value(&model, "Rmax=? [ C ]", &["--processes", processes]);
        assert_eq!(v, f64::INFINITY, "on {processes} processes");
    }
    let earning = file(
        "across_total_earning.prism",
        &TOTAL.replace("[e] s=4 -> (s'=4);", ""),
    );
    for processes in ["1", "3"] {
        let (v, _) = value(&earning, "Rmax=? [ C ]", &["--processes", processes]);
        assert_eq!(v, f64::INFINITY, "on {processes} processes");
    }
}

/// An MDP whose maximiser may circle for ever for nothing at `s=0` (`[a]`) and `s=2` (`[d]`)
/// beside moves that collect, none of which it can repeat for ever: `[b]` leaves for the
/// deadlock `s=3` half the time, `[g]` too. So `x0 = 1 + x2/2` and `x2 = max(3, 2 + x0/2)`:
/// `x0 = 8/3`, `x2 = 10/3`. With `[h]`, a loop at `s=1` that earns 1 each time, `[b]` reaches
/// an endless gain: +∞.
const FREE_MAX: &str = "mdp
module m
  s : [0..4] init 0;
  [a] s=0 -> (s'=0);
  [b] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [] s=1 -> (s'=3);
  [d] s=2 -> (s'=2);
  [e] s=2 -> (s'=4);
  [g] s=2 -> 1/2 : (s'=0) + 1/2 : (s'=3);
endmodule
rewards
  [b] true : 1;
  [e] true : 3;
  [g] true : 2;
endrewards
";

/// `Rmax [ C ]` where the maximiser may keep the play going for nothing beside moves that
/// collect: the states worth +∞ are found from the graph, and the others are the least fixed
/// point of the backup, bounded from above by a checked guess whatever free cycles the
/// maximiser may keep to. On 1 to 4 processes, by hand and against one process; a game whose
/// minimiser decides too is still refused.
#[test]
fn a_maximiser_that_may_circle_for_nothing_beside_a_reward_across_processes() {
    let model = file("across_free_max.prism", FREE_MAX);
    let earning = file(
        "across_free_max_earning.prism",
        &FREE_MAX
            .replace(
                "[] s=1 -> (s'=3);",
                "[] s=1 -> (s'=3);\n  [h] s=1 -> (s'=1);",
            )
            .replace("[g] true : 2;", "[g] true : 2;\n  [h] true : 1;"),
    );
    for processes in ["1", "2", "3", "4"] {
        near(&model, "Rmax=? [ C ]", processes, 8.0 / 3.0);
        near(&model, "Rmax=? [ Fc s=4 ]", processes, 8.0 / 3.0);
        near(&model, "Rmin=? [ C ]", processes, 0.0);
        let (v, _) = value(&earning, "Rmax=? [ C ]", &["--processes", processes]);
        assert_eq!(v, f64::INFINITY, "on {processes} processes");
    }
    for prop in [
        "Rmax=? [ C ]",
        "Rmax=? [ Fc s=3 ]",
        "filter(max, Rmax=? [ C ])",
        "filter(min, Rmax=? [ C ], s<4)",
    ] {
        agrees(&model, "", prop, "2");
        agrees(&earning, "", prop, "2");
    }
    // The maximiser may circle for nothing at `s=0`, and the minimiser decides there too.
    let game = file(
        "across_free_max_game.prism",
        "smg\nplayer a m1 endplayer\nplayer b m2 endplayer\nglobal t : [0..1] init 0;\n\
         global s : [0..3] init 0;\nmodule m1\n  [] t=0 & s=0 -> (t'=0);\n  \
         [] t=0 & s=0 -> (t'=1);\n  [] t=0 & s=1 -> (t'=0);\n  [] t=0 & s=2 -> (t'=0);\n  \
         [] t=0 & s=2 -> (s'=3);\nendmodule\nmodule m2\n  [] t=1 & s=0 -> (s'=1) & (t'=0);\n  \
         [] t=1 & s=0 -> (s'=2) & (t'=0);\nendmodule\nrewards\n  s=1 & t=0 : 1;\n  \
         s=2 & t=0 : 1;\nendrewards\n",
    );
    refused_across(
        &game,
        "<<a>> Rmax=? [ C ]",
        "2",
        "the minimiser decides too",
    );
}

/// An MDP whose minimiser may circle for ever at no cost (`[a]` and `[b]`), though PRISM
/// counts only the plays that reach the target: from `s=0` or `s=1`, `[c]` costs 1 and
/// reaches `s=2` or goes back to `s=0`, half and half, so `x = 1 + x/2` and `x = 2`; `[d]`
/// costs 5 and never reaches it.
const FREE_LOOP: &str = "mdp
module m
  s : [0..3] init 0;
  [a] s=0 -> (s'=1);
  [b] s=1 -> (s'=0);
  [c] s=1 -> 1/2 : (s'=2) + 1/2 : (s'=0);
  [d] s=0 -> (s'=3);
endmodule
rewards
  [c] true : 1;
  [d] true : 5;
endrewards
";

/// The minimiser's free cycles hold the lower bounds down (they are a fixed point of the
/// backup below the value); the strategy that ends the play bounds the value from above, and
/// the lower bound is then guessed and checked. On 1 to 4 processes.
#[test]
fn a_minimiser_that_may_circle_for_ever_at_no_cost_across_processes() {
    let model = file("across_free_loop.prism", FREE_LOOP);
    for processes in ["1", "2", "3", "4"] {
        near(&model, "Rmin=? [ F s=2 ]", processes, 2.0);
    }
    // Where nothing but the free loop is on a cycle, the bounds start from the exit's value
    // and stand still apart before any guess: `[b]` costs 1 and ends the play.
    let only_loop = file(
        "across_only_free_loop.prism",
        "mdp\nmodule m\n  s : [0..1] init 0;\n  [a] s=0 -> (s'=0);\n  [b] s=0 -> (s'=1);\nendmodule\nrewards\n  [b] true : 1;\nendrewards\n",
    );
    near(&only_loop, "Rmin=? [ F s=1 ]", "2", 1.0);
    for prop in [
        "Rmin=? [ F s=2 ]",
        "Rmax=? [ F s=2 ]",
        "Rmin=? [ F s=2 | s=3 ]",
        "Rmax=? [ F s=2 | s=3 ]",
    ] {
        agrees(&model, "", prop, "2");
    }
}

/// A game whose players together may circle for nothing (`a` from `s=2` to `s=1`, `b` back),
/// though `b` may end the play from `s=1`: the backup is zero on that circle, a fixed point far
/// below the value (across processes this answered 0 where the value is 35/8).
const SHARED_LOOP: &str = "smg
player a m1 endplayer
player b m2 endplayer
global t : [0..1] init 0;
global s : [0..2] init 2;
module m1
  [] t=0 & s=0 -> (s'=2) & (t'=1);
  [] t=0 & s=1 -> (s'=2) & (t'=1);
  [] t=0 & s=2 -> (s'=0) & (t'=1);
  [] t=0 & s=2 -> (s'=1) & (t'=1);
endmodule
module m2
  [] t=1 & s=0 -> 3/4 : (s'=2) & (t'=0) + 1/4 : (s'=0) & (t'=0);
  [] t=1 & s=1 -> 1/2 : (s'=1) & (t'=0) + 1/2 : (s'=0) & (t'=0);
  [] t=1 & s=1 -> (s'=2) & (t'=0);
  [] t=1 & s=2 -> 2/5 : (s'=0) & (t'=0) + 3/5 : (s'=1) & (t'=0);
  [] t=1 & s=2 -> (s'=1) & (t'=0);
endmodule
rewards
  s=1 & t=0 : 1/2;
  s=2 & t=1 : 3;
endrewards
";

#[test]
fn a_cycle_both_players_keep_for_nothing_across_processes() {
    let game = file("across_shared_loop.prism", SHARED_LOOP);
    for prop in ["<<b>> Rmin=? [ F s=0 ]", "<<a>> Rmax=? [ F s=0 ]"] {
        near(&game, prop, "2", 4.375);
        agrees(&game, "", prop, "3");
    }
}

/// A DTMC with two initial states, an absorbing failure and a deadlock.
const CHAIN: &str = "dtmc
module m
  s : [0..4];
  [] s=0 -> 1/2 : (s'=1) + 1/4 : (s'=2) + 1/4 : (s'=0);
  [] s=1 -> 1/3 : (s'=0) + 1/3 : (s'=3) + 1/3 : (s'=4);
  [] s=2 -> true;
endmodule
init s=0 | s=1 endinit
label \"done\" = s=3;
";

/// A turn-based game: player `a` moves at t=0, `b` at t=1.
const GAME: &str = "smg
player a m1 endplayer
player b m2 endplayer
global t : [0..1] init 0;
global x : [0..3] init 0;
module m1
  [] t=0 & x<3 -> 1/2 : (x'=x+1) & (t'=1) + 1/2 : (t'=1);
  [] t=0 & x<3 -> (x'=0) & (t'=1);
endmodule
module m2
  [] t=1 & x<3 -> 2/3 : (t'=0) + 1/3 : (x'=0) & (t'=0);
  [] t=1 & x<3 -> (t'=0);
endmodule
";

/// An MDP whose every play reaches `s=4` almost surely: at 0, `[a]` earns 2 beside the state's
/// 1 and leads to 1 (which returns to 0 with probability 7/10) or 3, `[b]` leads to 3; so the
/// most reward to 4 is `x = 3 + (7/20) x`, 60/13, and the least 1. No play reaches `s=2`.
const F0_SURE: &str = "mdp
module m
  s : [0..4] init 0;
  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=3);
  [b] s=0 -> (s'=3);
  [] s=1 -> 3/10 : (s'=4) + 7/10 : (s'=0);
  [] s=2 -> (s'=2);
  [] s=3 -> 9/10 : (s'=4) + 1/10 : (s'=3);
  [] s=4 -> true;
endmodule
rewards \"r\"
  s=0 : 1;
  [a] true : 2;
endrewards
";

/// A game whose every play reaches `s=5` almost surely (the circle through 2 the second
/// player may keep is left with probability 1/2 each time), and, with `[b5]` (a loop at 2),
/// one where some plays may miss it.
const F0_GAME: &str = "smg
player p1 [a1], [a2], [a3], [a5] endplayer
player p2 [b1], [b2], [b3], [b4], [b5] endplayer
const bool LOOP;
module m
  s : [0..5] init 0;
  [a1] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [a2] s=0 -> (s'=3);
  [a3] s=3 -> 3/5 : (s'=5) + 2/5 : (s'=0);
  [a5] s=5 -> true;
  [b1] s=1 -> (s'=5);
  [b2] s=1 -> 1/2 : (s'=5) + 1/2 : (s'=3);
  [b3] s=2 -> (s'=0);
  [b4] s=2 -> (s'=5);
  [b5] s=2 & LOOP -> (s'=2);
endmodule
rewards \"r\"
  s=0 : 1;
  [b2] true : 3;
  [b3] true : 2;
endrewards
";

/// `R[ F0 φ ]` across processes: where every play reaches φ almost surely it is `R[ F φ ]`,
/// and where none can, 0, alone, compared with a bound, in arithmetic, under filters and in
/// each of several initial states, on a chain, an MDP and a game, against one process and by
/// hand; where some plays may miss φ and others reach it in an MDP or a game (optimal play
/// then depends on the reward earned, which the processes' game does not count), it is
/// refused by name. (A chain answers it whatever reaches: see
/// [`f0_on_a_chain_across_processes_agrees_with_one_process_and_by_hand`].)
#[test]
fn f0_across_processes_where_every_play_or_none_reaches_the_target() {
    let mdp = file("across_f0.prism", F0_SURE);
    near(&mdp, "R{\"r\"}max=? [ F0 s=4 ]", "2", 60.0 / 13.0);
    near(&mdp, "R{\"r\"}min=? [ F0 s=4 ]", "3", 1.0);
    for prop in [
        "R{\"r\"}max=? [ F0 s=2 ]",
        "R{\"r\"}max>=4.6 [ F0 s=4 ]",
        "R{\"r\"}max>=4.7 [ F0 s=4 ]",
        "R{\"r\"}min=? [ F0 s=4 ] + R{\"r\"}max=? [ F0 s=4 ]",
        "filter(max, R{\"r\"}min=? [ F0 s=4 ], s<4)",
        "filter(printall, R{\"r\"}max=? [ F0 s=4 ])",
    ] {
        same_across(&mdp, prop, "2");
    }
    let game = file("across_f0_game.prism", F0_GAME);
    for prop in [
        "<<p1>> R{\"r\"}max=? [ F0 s=5 ]",
        "<<p2>> R{\"r\"}max=? [ F0 s=5 ]",
        "<<p1, p2>> R{\"r\"}max=? [ F0 s=5 ]",
    ] {
        let one = json(&game, prop, &["--const", "LOOP=false"]);
        let across = json(&game, prop, &["--const", "LOOP=false", "--processes", "2"]);
        assert!(
            same_answer(answer(&one), answer(&across)),
            "{prop}: {across}, {one}"
        );
    }
    let loops = ["--const", "LOOP=true", "--processes", "2"];
    let between = "here some plays may miss φ and others reach it";
    let o = check_json(&game, "<<p1>> R{\"r\"}max=? [ F0 s=5 ]", &loops);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains(between), "{}", text(&o.stderr));
    // A chain of several initial states: the range over them, and each alone.
    let chain = file(
        "across_f0_chain.prism",
        "dtmc
module m
  s : [0..3];
  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [] s=1 -> (s'=3);
  [] s=2 -> 1/2 : (s'=2) + 1/2 : (s'=3);
  [] s=3 -> true;
endmodule
init s<3 endinit
rewards s<3 : 1; endrewards
",
    );
    same_across(&chain, "R=? [ F0 s=3 ]", "2");
    same_across(&chain, "filter(avg, R=? [ F0 s=3 ])", "3");
}

/// A chain on which some plays reach `x=3` and others `x=4`, which they never leave (see
/// [`f0_on_a_chain_across_processes_agrees_with_one_process_and_by_hand`]).
const F0_CHAIN: &str = "dtmc
module m
  x : [0..5] init 0;
  [] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);
  [] x=1 -> 0.3:(x'=0) + 0.3:(x'=3) + 0.4:(x'=4);
  [] x=2 -> 0.5:(x'=2) + 0.5:(x'=1);
  [] x=3 -> true;
  [] x=4 -> true;
endmodule
rewards
  x=0 : 1;
  x=1 : 2;
  [] x=2 : 3;
endrewards
";

/// `R[ F0 φ ]` on a chain where some plays reach φ and others miss it, across processes. In
/// [`F0_CHAIN`], from `x=0` half the plays go to `x=1` and half to `x=2`; `x=1` goes back to
/// `x=0`, to `x=3` or to `x=4`, and `x=2` stays or goes to `x=1`, each step earning 1 at
/// `x=0`, 2 at `x=1` and 3 from `x=2`. With `a, b, c` the probabilities of reaching `x=3`
/// from `x=0, 1, 2`: `b = 3/7`, and `a = c = b`. The reward on the plays that reach,
/// `v(s) = Σ p·(r·w(t) + v(t))`: `v0 = (1/2)(b + v1) + (1/2)(b + v2)`, `v1 = 0.3(2a + v0) +
/// 0.3·2 + 0`, `v2 = 0.5(3c + v2) + 0.5(3b + v1)` give `v0 = 180/49`, `v1 = 96/49`,
/// `v2 = 222/49`; to `x=4`, 240/49, and the two add up to the reward to reach either, 60/7.
#[test]
fn f0_on_a_chain_across_processes_agrees_with_one_process_and_by_hand() {
    let chain = file("across_f0_between.prism", F0_CHAIN);
    near(&chain, "R=? [ F0 x=3 ]", "2", 180.0 / 49.0);
    near(&chain, "R=? [ F0 x=4 ]", "3", 240.0 / 49.0);
    near(&chain, "R=? [ F0 x>=3 ]", "2", 60.0 / 7.0);
    same_across(&chain, "R=? [ F0 x=2 ]", "2");
    same_across(&chain, "filter(print, R=? [ F0 x=3 ], true)", "3");
    same_across(&chain, "R=? [ F0 x=3 ] / R=? [ F x>=3 ]", "2");
    same_across(&chain, "R>=3.6 [ F0 x=3 ]", "2");
    // Plays that surely miss: none reaches `x=5`, every state is worth 0.
    near(&chain, "R=? [ F0 x=5 ]", "2", 0.0);
}

#[test]
fn property_forms_across_processes_agree_with_one_process() {
    let chain = file("across_chain.prism", CHAIN);
    for prop in [
        "filter(max, P=? [ F \"done\" ], \"init\")",
        "filter(min, P=? [ F s=3 ], \"init\")",
        "filter(avg, P=? [ F s=3 ], \"init\")",
        "filter(avg, P=? [ G s!=3 ], \"init\")",
        "filter(max, P=? [ s!=2 U s=3 ], \"init\")",
    ] {
        agrees(&chain, "", prop, "2");
    }
    let game = file("across_game.prism", GAME);
    for prop in [
        "<<a>> Pmax=? [ F x=3 ]",
        "<<a>> Pmin=? [ F x=3 ]",
        "<<b>> Pmax=? [ F x=3 ]",
        "<<a,b>> Pmax=? [ F x=3 ]",
        "Pmax=? [ F x=3 ]",
        "<<a>> Pmax=? [ G x<3 ]",
    ] {
        agrees(&game, "", prop, "3");
    }
}

/// `check MODEL --prop PROP --json -q` (with `extra`) of a property that compares its value
/// with a bound: whether it holds.
fn holds(model: &str, prop: &str, extra: &[&str]) -> bool {
    let v = json(model, prop, extra);
    answer(&v)["value"]
        .as_bool()
        .unwrap_or_else(|| panic!("{prop} {extra:?}: not true or false: {v}"))
}

/// Properties that compare their value with a bound, across processes, against one process:
/// on either side of the value and at it, every comparison, a complement (`G`), the least or
/// greatest value an MDP's schedulers give (as PRISM checks `P>=b` and `P<=b`), a coalition's,
/// and an expected reward. Where the certified bounds straddle the bound, the run says so.
#[test]
fn bound_comparisons_across_processes_agree_with_one_process() {
    let steps = file("across_bound_steps.prism", STEPS);
    let game = file("across_bound_game.prism", GAME);
    let mut cases: Vec<(&str, String)> = Vec::new();
    // `Pmin=? [ F s=3 ]` and `Pmax` of STEPS are 0 and 1 (the minimiser takes `a` at `s=1`
    // to the deadlock at 2; the maximiser takes `b`, and back at 0 comes to 1 again): the
    // bounds at them and between. Those values are found from the graph across processes
    // too, exactly, so a bound at them is decided.
    for b in ["0", "0.25", "1/3", "1"] {
        for op in [">=", ">", "<=", "<"] {
            cases.push((&steps, format!("P{op}{b} [ F s=3 ]")));
            cases.push((&steps, format!("P{op}{b} [ G s!=3 ]")));
        }
    }
    for b in ["2", "4.5", "100"] {
        cases.push((&steps, format!("R<={b} [ F \"end\" ]")));
        cases.push((&steps, format!("R>{b} [ F \"end\" ]")));
    }
    for prop in [
        "<<a>> P>=0.5 [ F x=3 ]",
        "<<a>> P<0.5 [ F x=3 ]",
        "<<b>> P>0.2 [ F x=3 ]",
        "P>=0.1 [ F x=3 ]",
    ] {
        cases.push((&game, prop.to_string()));
    }
    for (model, prop) in &cases {
        let truth = holds(model, prop, &[]);
        for processes in ["1", "2"] {
            assert_eq!(
                holds(model, prop, &["--processes", processes]),
                truth,
                "{prop} on {processes} processes"
            );
        }
    }
    // consensus.2 K=8: the least probability is 0.46875047683..., bounded across processes
    // to about 2e-12: a bound inside those bounds cannot be decided there.
    let consensus = format!("{QVBS}/consensus/consensus.2.prism");
    let prop = "P>=0.468750476837 [ F \"finished\"&\"all_coins_equal_1\" ]";
    fails_with(
        &[
            "check",
            &consensus,
            "--const",
            "K=8",
            "--prop",
            prop,
            "--processes",
            "2",
        ],
        "on both sides of the bound",
    );
}

/// `check MODEL --prop PROP --json` (with `extra`) of a property without a filter on a model
/// with several initial states: the least and the greatest of its values there, each with an
/// error bound.
fn range(model: &str, prop: &str, extra: &[&str]) -> [(f64, f64); 2] {
    let v = json(model, prop, extra);
    // The states of the least and the greatest value are listed.
    let answer = answer(&v);
    let bound = answer["error_bound"].as_f64().unwrap_or(0.0);
    let listed = &answer["listed"];
    ["min", "max"].map(|end| (number(&listed[end]["value"]), bound))
}

/// Three initial states whose probabilities of `"a"` are 1/4, 2/3 and 1/3 (through a cycle
/// at `s=1`), and whose expected steps to an end are 1, 2 and 1.
const THREE: &str = "dtmc
module m
  s : [0..5];
  [] s=0 -> 1/4 : (s'=3) + 3/4 : (s'=4);
  [] s=1 -> 1/4 : (s'=3) + 1/4 : (s'=4) + 1/2 : (s'=5);
  [] s=5 -> 1/2 : (s'=1) + 1/2 : (s'=3);
  [] s=2 -> 1/3 : (s'=3) + 2/3 : (s'=4);
endmodule
init s<=2 endinit
rewards
  s<3 | s=5 : 1;
endrewards
label \"a\" = s=3;
label \"end\" = s>=3 & s<=4;
";

/// Whether `across` (the output of a check across processes) gives the answer `one` (one
/// process's) gives: the same truth, or values within their error bounds, and the same
/// states listed with such values.
fn same_answer(one: &serde_json::Value, across: &serde_json::Value) -> bool {
    let near = |a: &serde_json::Value, b: &serde_json::Value, bound: f64| match a.as_bool() {
        Some(t) => b.as_bool() == Some(t),
        None => number(a) == number(b) || (number(a) - number(b)).abs() <= bound,
    };
    let bound = one["error_bound"].as_f64().unwrap_or(0.0)
        + across["error_bound"].as_f64().unwrap_or(0.0)
        + 1e-12;
    let states = |v: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
        let listed = &v["listed"];
        let list = match listed.get("states") {
            Some(states) => states.as_array().unwrap().clone(),
            None => ["min", "max"]
                .into_iter()
                .filter_map(|end| listed.get(end).cloned())
                .collect(),
        };
        list.iter()
            .map(|x| (x["state"].as_str().unwrap().to_string(), x["value"].clone()))
            .collect()
    };
    let (a, b) = (states(one), states(across));
    near(&one["value"], &across["value"], bound)
        && a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|((s, x), (t, y))| s == t && near(x, y, bound))
}

/// Asserts that `check MODEL --prop PROP` across `processes` processes gives the answer one
/// process gives ([`same_answer`]).
fn same_across(model: &str, prop: &str, processes: &str) {
    let one = json(model, prop, &[]);
    let across = json(model, prop, &["--processes", processes]);
    assert!(
        same_answer(answer(&one), answer(&across)),
        "{prop} on {processes} processes: {across}, one process: {one}"
    );
}

/// Filters over other states than the initial ones across processes (found by an exploration
/// of their own first), every operator, on a chain, an MDP and a game, with a condition of
/// variables, of labels, none (every reachable state), and one no reachable state meets,
/// against one process.
#[test]
fn filters_over_other_states_across_processes_agree_with_one_process() {
    let chain = file("across_filters_other.prism", THREE);
    let mdp = file("across_filters_mdp.prism", REWARDS);
    let game = file(
        "across_filters_game.prism",
        &format!("{GAME}rewards\n  true : 1;\nendrewards\n"),
    );
    let mut cases: Vec<(&str, String)> = Vec::new();
    for states in [", s>=1", "", ", \"a\" | s=5", ", !\"end\"", ", s>9"] {
        for op in [
            "max", "min", "avg", "sum", "first", "range", "argmin", "argmax", "print",
        ] {
            cases.push((&chain, format!("filter({op}, P=? [ F \"a\" ]{states})")));
            cases.push((&chain, format!("filter({op}, R=? [ F \"end\" ]{states})")));
            cases.push((&chain, format!("filter({op}, P=? [ F<=2 \"a\" ]{states})")));
        }
        for op in ["forall", "exists", "count", "print"] {
            cases.push((&chain, format!("filter({op}, P>=0.3 [ F \"a\" ]{states})")));
        }
    }
    for (states, game_states, ops) in [
        (", s<3", ", x<3", ["max", "min", "avg", "print"]),
        ("", "", ["argmax", "sum", "range", "first"]),
    ] {
        for op in ops {
            cases.push((&mdp, format!("filter({op}, Pmax=? [ F \"done\" ]{states})")));
            cases.push((&mdp, format!("filter({op}, Rmin=? [ F \"done\" ]{states})")));
            let query = "<<a>> Pmax=? [ F x=3 ]";
            cases.push((&game, format!("filter({op}, {query}{game_states})")));
        }
    }
    cases.push((&mdp, "filter(count, Pmin>=0.5 [ F \"done\" ])".to_string()));
    cases.push((
        &game,
        "filter(forall, <<b>> Rmin<=4 [ F x=3 ], x<3)".to_string(),
    ));
    for (model, prop) in &cases {
        let one = check_json(model, prop, &[]);
        let across = check_json(model, prop, &["--processes", "2"]);
        if !one.status.success() {
            // No reachable state meets the condition of a maximum, say: the same error.
            assert_eq!(
                text(&one.stderr),
                text(&across.stderr),
                "{prop}: one process and across processes fail alike"
            );
            continue;
        }
        assert!(across.status.success(), "{prop}: {}", text(&across.stderr));
        let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
        let across: serde_json::Value = serde_json::from_slice(&across.stdout).unwrap();
        assert!(
            same_answer(answer(&v), answer(&across)),
            "{prop}: {across}, one process: {v}"
        );
    }
    // On 3 processes, and under arithmetic.
    same_across(&chain, "filter(max, P=? [ F \"a\" ], s>=1)", "3");
    let (v, bound) = value(
        &chain,
        "1 - filter(min, P=? [ F \"a\" ], s>=1)",
        &["--processes", "2"],
    );
    assert!(
        (v - 1.0).abs() <= bound,
        "{v} ± {bound}: s=4 never reaches \"a\""
    );
}

/// State formulas nested in properties across processes, each checked in every reachable
/// state first (innermost first, in runs of their own), against one process: inside `F`,
/// `U`, `G` and `X`, inside each other, in a filter's condition and in its query, under
/// arithmetic and a bound, on a chain of three initial states, an MDP and a game, on 2 and 3
/// processes; a formula whose value no bound tells is an error.
#[test]
fn nested_state_formulas_across_processes_agree_with_one_process() {
    let chain = file("across_nested.prism", THREE);
    let mdp = file("across_nested_mdp.prism", REWARDS);
    let game = file("across_nested_game.prism", GAME);
    let cases = [
        (&chain, "P=? [ F P>=0.5 [ X \"a\" ] ]"),
        (&chain, "P=? [ F P>0.5 [ X \"a\" ] ]"),
        (&chain, "P=? [ F P<0.3 [ F \"a\" ] ]"),
        (&chain, "P=? [ P>0.2 [ F \"a\" ] U \"a\" ]"),
        (&chain, "P=? [ G P>0.2 [ F \"a\" ] ]"),
        (&chain, "P=? [ X P>=0.5 [ X \"a\" ] ]"),
        (&chain, "P>=0.5 [ F P>=0.5 [ X \"a\" ] ]"),
        (&chain, "R=? [ F P>=0.5 [ X \"a\" ] | \"end\" ]"),
        (&chain, "P=? [ F P>0.4 [ F P>=0.5 [ X \"a\" ] ] ]"),
        (&chain, "filter(max, P=? [ F \"a\" ], P<0.5 [ F \"a\" ])"),
        (
            &chain,
            "filter(print, P=? [ F \"a\" ], P>0.3 [ F \"a\" ] & s<3)",
        ),
        (&chain, "filter(count, P>0.3 [ F \"a\" ])"),
        (&chain, "filter(forall, P>0 [ F P>=0.5 [ X \"a\" ] ], s<3)"),
        (&mdp, "Pmax=? [ F Pmin>=0.5 [ F \"done\" ] & s!=0 ]"),
        (&mdp, "Rmin=? [ F Pmax>0.6 [ X \"done\" ] | \"done\" ]"),
        (&mdp, "filter(min, Pmin=? [ F \"done\" ], Pmax>0 [ X s=1 ])"),
        (&game, "<<a>> Pmax=? [ F <<b>> Pmin>0.2 [ X x=2 ] ]"),
        (&game, "<<b>> Pmin=? [ G !<<a>> Pmax>=0.5 [ X x=3 ] ]"),
        (&game, "1 - <<a>> Pmax=? [ F <<b>> Pmin>0.2 [ X x=2 ] ]"),
        (&chain, "P=? [ F E [ G \"a\" ] ]"),
    ];
    for (model, prop) in cases {
        same_across(model, prop, "2");
    }
    same_across(&chain, "P=? [ F P>0.4 [ F P>=0.5 [ X \"a\" ] ] ]", "3");
    // The value 2/3 at s=1, through a cycle, lies within its bounds, on either side of 2/3
    // (the value 1/2 of `X` at s=5 is exact, and decided).
    fails_with(
        &[
            "check",
            &chain,
            "--prop",
            "P=? [ F P>=2/3 [ F \"a\" ] ]",
            "--processes",
            "2",
        ],
        "P>=2 / 3 [ F \"a\" ] in state (s=1): the value lies between",
    );
}

/// CTL's `E` and `A` across processes, as P queries with a bound on the game of the model's
/// paths (`E` a positive probability for its maximiser, `A` a probability of one for its
/// minimiser), against one process, which checks them on the graph: alone, nested, under
/// filters and logic, with step bounds, of finite and of infinite paths (`E [ G φ ]`,
/// `A [ F φ ]`, unbounded `W` and `R`), on a chain, an MDP and a game.
#[test]
fn ctl_across_processes_agrees_with_one_process() {
    // From 0: to 1 or 2; from 1: back to 0 or on to 3; 2 and 3 absorb.
    let chain = file(
        "across_ctl.prism",
        "dtmc
module m
  s : [0..3] init 0;
  [] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);
  [] s=1 -> 0.5:(s'=0) + 0.5:(s'=3);
endmodule
",
    );
    let three = file("across_ctl_three.prism", THREE);
    let mdp = file("across_ctl_mdp.prism", REWARDS);
    let game = file("across_ctl_game.prism", GAME);
    let mut cases: Vec<(&str, &str)> = [
        "E [ F s=3 ]",
        "A [ G s<3 ]",
        "E [ s<2 U s=3 ]",
        "A [ X s>=1 ]",
        "E [ X s=3 ]",
        "E [ F<=1 s=3 ]",
        "E [ F<=2 s=3 ]",
        "E [ F=3 s=1 ]",
        "E [ F=2 s=1 ]",
        "E [ F>=5 s=0 ]",
        "A [ G>=1 s!=0 ]",
        "E [ G<=3 s<2 ]",
        "A [ s<2 W s=3 ]",
        "A [ s=1 R s<2 ]",
        "A [ F<=2 s>=2 ]",
        "E [ s<2 W<=2 s=3 ]",
        "E [ F A [ G s=2 ] ]",
        "E [ F A [ X s=3 ] ]",
        "A [ G E [ F s>=2 ] ]",
        "P>0.2 [ F s=3 ] & E [ F s=2 ]",
        "!E [ X s=3 ]",
        "filter(forall, E [ F s>=2 ])",
        "filter(count, E [ F s=3 ])",
        "filter(count, A [ G s<2 ])",
        "filter(exists, A [ G s=2 ], s<2)",
        "P=? [ F E [ X s=3 ] ]",
        "E [ s<2 ]",
        // Of infinite paths: 0 and 1 circle for ever, with probability zero.
        "E [ G s<2 ]",
        "A [ F s=3 ]",
        "A [ F s>=2 ]",
        "A [ s<2 U s>=2 ]",
        "E [ s<2 W s=3 ]",
        "E [ s=2 R s<2 ]",
        "A [ F>=1 s=3 ]",
        "E [ G>=2 s<2 ]",
        "filter(count, E [ G s<2 ])",
        "filter(forall, A [ F s>=2 ], s=2)",
        "!A [ F s>=2 ] & E [ F s=3 ]",
        "P=? [ F A [ F s=3 ] ]",
        "E [ F E [ G s<2 ] ]",
    ]
    .into_iter()
    .map(|p| (chain.as_str(), p))
    .collect();
    for p in [
        "E [ F \"a\" ]",
        "A [ G !\"a\" ]",
        "E [ F>=2 \"a\" ]",
        "A [ \"end\" R s<6 ]",
        "filter(count, E [ X \"a\" ])",
        "P=? [ F A [ X \"end\" ] ]",
        "A [ F \"end\" ]",
        "E [ G !\"end\" ]",
        "filter(count, A [ F \"end\" ])",
        "filter(argmin, P=? [ F A [ F \"end\" ] ])",
    ] {
        cases.push((&three, p));
    }
    for p in [
        "E [ F \"done\" ]",
        "A [ X s!=1 ]",
        "Pmax=? [ F A [ X \"done\" ] ]",
        "E [ G !\"done\" ]",
        "A [ F \"done\" ]",
        "filter(count, A [ F \"done\" ])",
    ] {
        cases.push((&mdp, p));
    }
    for p in [
        "E [ F x=3 ]",
        "A [ G x<3 ]",
        "A [ X t=1 ]",
        "<<a>> Pmax=? [ F E [ X x=2 ] ]",
        "E [ G x<3 ]",
        "A [ F x=3 ]",
        "A [ x<2 U x>=2 ]",
    ] {
        cases.push((&game, p));
    }
    for (model, prop) in cases {
        same_across(model, prop, "2");
    }
}

/// Filters over the initial states across processes, every operator, against one process;
/// a bound without a filter holds where it holds in every initial state, as in PRISM.
#[test]
fn filters_over_initial_states_across_processes_agree_with_one_process() {
    let model = file("across_filters.prism", THREE);
    let mut props: Vec<String> = Vec::new();
    for op in [
        "max", "min", "avg", "sum", "first", "range", "argmin", "argmax", "print", "printall",
    ] {
        props.push(format!("filter({op}, P=? [ F \"a\" ], \"init\")"));
        props.push(format!("filter({op}, P=? [ G !\"a\" ], \"init\")"));
        props.push(format!("filter({op}, R=? [ F \"end\" ], \"init\")"));
    }
    for op in ["forall", "exists", "count", "first", "print", "printall"] {
        for b in ["0.2", "0.3", "0.4", "0.6"] {
            props.push(format!("filter({op}, P>={b} [ F \"a\" ], \"init\")"));
            props.push(format!("filter({op}, P<{b} [ G !\"a\" ], \"init\")"));
        }
        props.push(format!("filter({op}, R<=1.5 [ F \"end\" ], \"init\")"));
    }
    for b in ["0.2", "0.3", "0.6"] {
        props.push(format!("P>={b} [ F \"a\" ]"));
        props.push(format!("P<={b} [ F \"a\" ]"));
    }
    for prop in &props {
        let v = json(&model, prop, &[]);
        let one = answer(&v);
        for processes in ["1", "2"] {
            let across = json(&model, prop, &["--processes", processes]);
            assert!(
                same_answer(one, answer(&across)),
                "{prop} on {processes} processes: {across}, one process: {one}"
            );
        }
    }
    // What a filter cannot take is told before the solve.
    for (prop, error) in [
        (
            "filter(state, P=? [ F \"a\" ], \"init\")",
            "takes one state, and 3 satisfy",
        ),
        (
            "filter(sum, P>=0.5 [ F \"a\" ], \"init\")",
            "takes a number",
        ),
        (
            "filter(count, P=? [ F \"a\" ], \"init\")",
            "takes true or false",
        ),
    ] {
        fails_with(
            &["check", &model, "--prop", prop, "--processes", "2"],
            error,
        );
    }
}

/// Without a filter, a property on a model with several initial states is the range of its
/// values there, as in PRISM: across processes as in one.
#[test]
fn ranges_over_initial_states_across_processes_agree_with_one_process() {
    let chain = file("across_range_chain.prism", CHAIN);
    let rewards = file("across_range_rewards.prism", REWARDS);
    for (model, prop) in [
        (&chain, "P=? [ F s=3 ]"),
        (&chain, "P=? [ G s!=3 ]"),
        (&chain, "P=? [ s!=2 U \"done\" ]"),
        (&rewards, "Rmin=? [ F \"done\" ]"),
        (&rewards, "Pmax=? [ F \"done\" ]"),
        (&rewards, "Pmin=? [ G !\"done\" ]"),
    ] {
        let truth = range(model, prop, &[]);
        for processes in ["1", "2", "3"] {
            let across = range(model, prop, &["--processes", processes]);
            for ((v, bound), (t, t_bound)) in across.into_iter().zip(truth) {
                assert!(
                    v == t
                        || ((v - t).abs() <= bound + t_bound && bound <= 2e-9 * t.abs().max(1.0)),
                    "{prop} on {processes} processes: {across:?}, one process: {truth:?}"
                );
            }
        }
    }
}

/// As [`agrees`] on two processes, but where `may_refuse`, the run may instead refuse because a
/// maximiser can circle for nothing beside a reward (a total's refusal).
fn agrees_or_refused(model: &str, prop: &str, may_refuse: bool) {
    if may_refuse {
        let o = check_json(model, prop, &["--processes", "2"]);
        if !o.status.success() {
            let stderr = text(&o.stderr);
            assert!(
                o.status.code() == Some(2) && stderr.contains("on moves that collect nothing"),
                "{prop}: {stderr}"
            );
            return;
        }
    }
    agrees(model, "", prop, "2");
}

/// A random MDP (or DTMC) of `n` states as PRISM text: state `s` has one or two commands, each
/// with up to three outcomes of weights from `w`; state 0 is the target.
fn random_model(dtmc: bool, n: usize, w: &[u8]) -> String {
    let mut out = format!(
        "{}\nmodule m\n  s : [0..{}] init {};\n",
        if dtmc { "dtmc" } else { "mdp" },
        n - 1,
        n - 1
    );
    let mut k = 0;
    let mut next = || {
        k += 1;
        w[k % w.len()] as usize
    };
    for s in 0..n {
        let commands = if dtmc { 1 } else { 1 + next() % 2 };
        for _ in 0..commands {
            let outcomes = 1 + next() % 3;
            let targets: Vec<usize> = (0..outcomes).map(|_| next() % n).collect();
            let weights: Vec<usize> = (0..outcomes).map(|_| 1 + next() % 4).collect();
            let total: usize = weights.iter().sum();
            let updates: Vec<String> = targets
                .iter()
                .zip(&weights)
                .map(|(t, w)| format!("{w}/{total} : (s'={t})"))
                .collect();
            out += &format!("  [] s={s} -> {};\n", updates.join(" + "));
        }
    }
    out + "endmodule\n"
}

/// A random turn-based game of `n` positions as PRISM text: player `a` moves at `t=0`, `b` at
/// `t=1`, each with one or two commands per position of up to two outcomes, weights from `w`;
/// steps from two positions earn (so that the players may circle for nothing elsewhere).
fn random_game(n: usize, w: &[u8]) -> String {
    let mut out = format!(
        "smg\nplayer a m1 endplayer\nplayer b m2 endplayer\nglobal t : [0..1] init 0;\n\
         global s : [0..{}] init {};\n",
        n - 1,
        n - 1
    );
    let mut k = 0;
    let mut next = || {
        k += 1;
        w[k % w.len()] as usize
    };
    for (module, turn) in [("m1", 0), ("m2", 1)] {
        out += &format!("module {module}\n");
        for s in 0..n {
            for _ in 0..1 + next() % 2 {
                let outcomes = 1 + next() % 2;
                let targets: Vec<usize> = (0..outcomes).map(|_| next() % n).collect();
                let weights: Vec<usize> = (0..outcomes).map(|_| 1 + next() % 3).collect();
                let total: usize = weights.iter().sum();
                let updates: Vec<String> = targets
                    .iter()
                    .zip(&weights)
                    .map(|(to, w)| format!("{w}/{total} : (s'={to}) & (t'={})", 1 - turn))
                    .collect();
                out += &format!("  [] t={turn} & s={s} -> {};\n", updates.join(" + "));
            }
        }
        out += "endmodule\n";
    }
    out + "rewards\n  s=1 & t=0 : 1/2;\n  s=2 & t=1 : 3;\nendrewards\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 27, ..ProptestConfig::default() })]

    /// Random games whose players may circle for nothing, alone or together: expected rewards,
    /// probabilities and reward-bounded probabilities across two processes against one
    /// process.
    #[test]
    fn random_games_across_processes_agree_with_one_process(
        n in 2usize..7,
        w in proptest::collection::vec(any::<u8>(), 24),
        which in 0usize..12,
    ) {
        let model = file("across_random_game.prism", &random_game(n, &w));
        let prop = [
            "<<a>> Rmin=? [ F s=0 ]",
            "<<b>> Rmin=? [ F s=0 ]",
            "<<a>> Rmax=? [ F s=0 ]",
            "<<a,b>> Rmin=? [ F s=0 ]",
            "<<a>> Pmin=? [ F s=0 ]",
            "<<b>> Pmax=? [ F s=0 ]",
            "<<a>> Rmin=? [ C ]",
            "<<b>> Rmax=? [ C ]",
            "<<a,b>> Rmin=? [ Fc s=0 ]",
            "<<a>> Pmax=? [ F^{rew<=2} s=0 ]",
            "<<b>> Pmin=? [ F^{rew>=1/2} s=0 ]",
            "<<a,b>> Pmax=? [ t=0 | s>1 U^{rew<7/2} s=0 ]",
        ][which];
        agrees_or_refused(&model, prop, (6..9).contains(&which));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random chains and MDPs with cycles, end components and states that cannot reach the
    /// target: CTL of finite and infinite paths (on the game of paths) across two processes
    /// against one process, which checks them on the graph.
    #[test]
    fn random_ctl_across_processes_agrees_with_one_process(
        dtmc in any::<bool>(),
        n in 2usize..9,
        w in proptest::collection::vec(any::<u8>(), 24),
        which in 0usize..12,
    ) {
        let model = file("across_random_ctl.prism", &random_model(dtmc, n, &w));
        let prop = [
            "E [ G s!=0 ]",
            "A [ F s=0 ]",
            "A [ s!=1 U s=0 ]",
            "E [ s>0 W s=1 ]",
            "E [ s=0 R s!=1 ]",
            "A [ G>=2 s!=0 ]",
            "E [ F<=2 s=0 ]",
            "A [ X s>=1 ]",
            "filter(count, E [ G s>=1 ])",
            "filter(forall, A [ F s=0 ] | s=1)",
            "E [ F A [ G s!=0 ] ]",
            "A [ G E [ F s=0 ] ]",
        ][which];
        same_across(&model, prop, "2");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Random chains and MDPs with cycles, end components and states that cannot reach the
    /// target: the probability across two processes against one process.
    #[test]
    fn random_models_across_processes_agree_with_one_process(
        dtmc in any::<bool>(),
        n in 2usize..9,
        w in proptest::collection::vec(any::<u8>(), 24),
        max in any::<bool>(),
        reward in any::<bool>(),
        free in any::<bool>(),
    ) {
        if reward {
            // Every step costs, or (`free`) only a step from `s=1` does, so that a player may
            // circle for ever at no cost: the answer may be +∞ but is always given.
            let rewards = if free { "s=1 : 1/2;" } else { "true : 1;\n  s=1 : 1/2;" };
            let text = random_model(dtmc, n, &w) + "rewards\n  " + rewards + "\nendrewards\n";
            let model = file("across_random_rewards.prism", &text);
            let prop = match (dtmc, max) {
                (true, _) => "R=? [ F s=0 ]",
                (false, true) => "Rmax=? [ F s=0 ]",
                (false, false) => "Rmin=? [ F s=0 ]",
            };
            agrees(&model, "", prop, "2");
            // The total, which only a maximiser circling for nothing beside a reward makes
            // the run refuse.
            let total = match (dtmc, max) {
                (true, _) => "R=? [ C ]",
                (false, true) => "Rmax=? [ C ]",
                (false, false) => "Rmin=? [ C ]",
            };
            agrees_or_refused(&model, total, max && !dtmc);
            return Ok(());
        }
        let model = file("across_random.prism", &random_model(dtmc, n, &w));
        let prop = match (dtmc, max) {
            (true, _) => "P=? [ F s=0 ]",
            (false, true) => "Pmax=? [ F s=0 ]",
            (false, false) => "Pmin=? [ F s=0 ]",
        };
        let (truth, _) = value(&model, prop, &[]);
        let o = run(&["check", &model, "--prop", prop, "--json", "-q", "--processes", "2"]);
        // End components, whatever their value, are answered: never refused, never wrong.
        prop_assert!(o.status.success(), "{}", text(&o.stderr));
        let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let v = answer(&all);
        let (lower, upper) = (v["lower"].as_f64().unwrap(), v["upper"].as_f64().unwrap());
        let (v, bound) = (v["value"].as_f64().unwrap(), v["error_bound"].as_f64().unwrap());
        prop_assert!((v - truth).abs() <= bound + 1e-15, "{v} ± {bound} against {truth}");
        // The bounds hold the true value, and a probability's lie in [0, 1].
        prop_assert!(lower <= truth + 1e-15 && truth <= upper + 1e-15, "[{lower}, {upper}] against {truth}");
        prop_assert!((0.0..=1.0).contains(&lower) && (0.0..=1.0).contains(&upper), "[{lower}, {upper}]");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Random chains and MDPs whose only rewards are earned at `s=1` and by the command of
    /// `s=2`, so that cycles earn nothing elsewhere: reward-bounded probabilities, upper and
    /// lower bounds, across two processes against one process.
    #[test]
    fn random_reward_bounds_across_processes_agree_with_one_process(
        dtmc in any::<bool>(),
        n in 2usize..7,
        w in proptest::collection::vec(any::<u8>(), 24),
        max in any::<bool>(),
        which in 0usize..4,
    ) {
        let rewards = "rewards\n  s=1 : 1/2;\n  [] s=2 : 1;\nendrewards\n";
        let model = file("across_random_reward_bounded.prism", &(random_model(dtmc, n, &w) + rewards));
        let opt = match (dtmc, max) {
            (true, _) => "",
            (false, true) => "max",
            (false, false) => "min",
        };
        let path = [
            "F^{rew<=2} s=0",
            "F^{rew<1} s=0",
            "F^{rew>=3/2} s=0",
            "s!=1 U^{rew>1/2} s=0",
        ][which];
        agrees(&model, "", &format!("P{opt}=? [ {path} ]"), "2");
    }
}

/// A chain with a periodic bottom component (`s=1`, `s=2`), one that `s=4` and `s=5` share,
/// and a deadlock (`s=6`), which `s=3` chooses between by its two commands; the long-run
/// averages by hand: the periodic pair spends half its steps in `s=1`; in the other,
/// `π(4) = π(5)/2`, so `π(4) = 1/3`. `S [ "a" ]` is `1/2·1/2 + 1/2·(1/2·1/3 + 1/2·1) = 7/12`;
/// `R [ S ]` earns 2 in `s=1` (1 a step), 3 by the command of `s=4` and 1 in `s=5` (`1 + 2/3`),
/// and 7 for ever at the deadlock: `1/2·1 + 1/2·(1/2·5/3 + 1/2·7) = 8/3`.
const LONG_RUN: &str = "dtmc
module m
  s : [0..6] init 0;
  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=3);
  [] s=1 -> (s'=2);
  [] s=2 -> (s'=1);
  [] s=3 -> 3/10 : (s'=4) + 7/10 : (s'=5);
  [] s=3 -> (s'=6);
  [] s=4 -> (s'=5);
  [] s=5 -> 1/2 : (s'=4) + 1/2 : (s'=5);
endmodule
label \"a\" = s=1 | s=4 | s=6;
rewards
  s=1 : 2;
  [] s=4 : 3;
  s=5 : 1;
  s=6 : 7;
endrewards
";

/// The long run (`S`, `R [ S ]`) across 1 to 4 processes, by hand ([`LONG_RUN`]), under a
/// bound, a filter and from several initial states, against one process; and refused on an
/// MDP as in one process.
#[test]
fn the_long_run_across_processes_agrees_with_one_process_and_by_hand() {
    let model = file("across_long_run.prism", LONG_RUN);
    for processes in ["1", "2", "3", "4"] {
        near(&model, "S=? [ \"a\" ]", processes, 7.0 / 12.0);
        near(&model, "R=? [ S ]", processes, 8.0 / 3.0);
    }
    for prop in [
        "S>=0.58 [ \"a\" ]",
        "S<0.58 [ \"a\" ]",
        "filter(max, S=? [ s=5 ], s>=3)",
        "filter(print, R=? [ S ], s=3 | s=4)",
        "1 - S=? [ \"a\" ]",
        "P=? [ F S>0.6 [ \"a\" ] ]",
    ] {
        same_across(&model, prop, "2");
    }
    let several = file(
        "across_long_run_init.prism",
        &LONG_RUN
            .replace("init 0;", ";")
            .replace("endmodule", "endmodule\ninit s=0 | s=3 endinit"),
    );
    same_across(&several, "S=? [ \"a\" ]", "3");
    same_across(&several, "filter(avg, R=? [ S ], \"init\")", "2");
    let mdp = file("across_long_run.nm", &LONG_RUN.replace("dtmc", "mdp"));
    refused_across(&mdp, "S=? [ \"a\" ]", "2", "answered on DTMCs");
    // A listing prints of each state's value only the digits the answer's bound leaves
    // known: every digit printed is right.
    let o = run(&[
        "check",
        &model,
        "--prop",
        "filter(print, S=? [ s=5 ], s>=3)",
        "--processes",
        "3",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listed: Vec<String> = text(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("  (s="))
        .map(str::to_string)
        .collect();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for (line, truth) in listed.iter().zip([1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        let shown = line.split_once(": ").unwrap().1;
        let (digits, bound) = match shown.split_once(" (± ") {
            Some((d, b)) => (d, b.trim_end_matches(')').parse::<f64>().unwrap()),
            None => (shown, 0.0),
        };
        let v: f64 = digits.parse().unwrap();
        let last = 10f64.powi(-(digits.len() as i32 - 2));
        assert!(
            (v - truth).abs() <= bound + last,
            "{line}: {digits} is not within {bound} of {truth}"
        );
    }
    // A symmetric walk on 0..=100, held at both ends: its steps keep the uniform distribution,
    // so a tenth of 101 states is `10/101` of the time, and `s` is 50 on average. It mixes
    // too slowly for the iteration, so its states are gathered and solved by renewal.
    let walk = file(
        "across_long_run_walk.prism",
        "dtmc\nmodule m\n  s : [0..100] init 0;\n  \
         [] s<100 -> 1/2 : (s'=s+1) + 1/2 : (s'=max(s-1, 0));\n  \
         [] s=100 -> 1/2 : (s'=100) + 1/2 : (s'=99);\nendmodule\n\
         rewards\n  true : s;\nendrewards\n",
    );
    near(&walk, "S=? [ s<10 ]", "2", 10.0 / 101.0);
    near(&walk, "R=? [ S ]", "3", 50.0);
    // Rewards of both signs: a state earning -1 half of the time, another 1/4 a step.
    let signs = file(
        "across_long_run_signs.prism",
        "dtmc\nmodule m\n  s : [0..1] init 0;\n  [] true -> 1/2 : (s'=0) + 1/2 : (s'=1);\n\
         endmodule\nrewards\n  s=1 : -1;\n  s=0 : 1/4;\nendrewards\n",
    );
    near(&signs, "R=? [ S ]", "2", -3.0 / 8.0);
    // Herman's ring from every state: each ends in the stable states, most of them through
    // states that other states' keys set apart (settled by the least and greatest label).
    let herman = format!("{QVBS}/herman/herman.7.prism");
    agrees(
        &herman,
        "",
        "filter(min, S=? [ \"stable\" ], \"init\")",
        "3",
    );
    agrees(
        &herman,
        "",
        "filter(avg, S=? [ num_tokens=1 ], num_tokens>1)",
        "2",
    );
}

/// A random chain of `n` states ([`random_model`]), state 1 a deadlock where `deadlock`.
fn random_chain(n: usize, w: &[u8], deadlock: bool) -> String {
    let text = random_model(true, n, w);
    match deadlock {
        true => text.replace("  [] s=1 ->", "  [] false ->"),
        false => text,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random chains, with bottom components of every shape (periodic ones, deadlocks, states
    /// that reach several): the long-run fraction of steps in `s=0` and the long-run reward
    /// per step (rewards of both signs) across two processes against one process.
    #[test]
    fn random_long_runs_across_processes_agree_with_one_process(
        n in 2usize..9,
        w in proptest::collection::vec(any::<u8>(), 24),
        deadlock in any::<bool>(),
    ) {
        let text = random_chain(n, &w, deadlock)
            + "rewards\n  s=1 : 1/2;\n  [] s=2 : 3;\n  s<3 : 1;\n  s=3 : -2;\nendrewards\n";
        let model = file("across_random_long_run.prism", &text);
        agrees(&model, "", "S=? [ s=0 ]", "2");
        agrees(&model, "", "R=? [ S ]", "2");
    }

    /// Random chains whose plays may reach `s=0`, end elsewhere or circle for ever, with a
    /// state of two commands (each taken half of the time, with transition rewards of their
    /// own) and a deadlock: `R[ F0 s=0 ]` in every state across two processes against one
    /// process (which solves a chain's F0 exactly by its own method).
    #[test]
    fn random_f0_on_chains_across_processes_agree_with_one_process(
        n in 2usize..9,
        w in proptest::collection::vec(any::<u8>(), 24),
        deadlock in any::<bool>(),
    ) {
        let text = random_chain(n, &w, deadlock).replace("endmodule\n", "  [a] s=n-1 -> (s'=max(s-1, 0));\nendmodule\n")
            + "rewards\n  s=1 : 1/2;\n  [] s=2 : 3;\n  [a] true : 5;\n  s<3 : 1;\nendrewards\n";
        let text = text.replace("s=n-1", &format!("s={}", n - 1));
        let model = file("across_random_f0.prism", &text);
        agrees(&model, "", "R=? [ F0 s=0 ]", "2");
        same_across(&model, "filter(print, R=? [ F0 s=0 ], true)", "2");
    }
}

#[test]
fn what_check_across_processes_does_not_answer_is_an_error() {
    // Arithmetic with the state's variables and a filter over other states.
    let one = file(
        "across_one_init.prism",
        &CHAIN.replace("init s=0 | s=1 endinit", ""),
    );
    fails_with(
        &[
            "check",
            &one,
            "--prop",
            "s + filter(max, P=? [ F s=3 ], s>0)",
            "--processes",
            "2",
        ],
        "not with the variables of the initial state",
    );
    let chain = file(
        "across_refused.prism",
        &CHAIN.replace("endinit", "endinit\nrewards true : 1; endrewards"),
    );
    let across = |prop: &'static str| -> Vec<String> {
        ["check", &chain, "--prop", prop, "--processes", "2"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    for (prop, words) in [
        (
            "filter(max, P>=0.5 [ F<=3 s=3 ], \"init\")",
            "check this property in one process",
        ),
        ("P=? [ F<=100001 s=3 ]", "at most 100000 steps"),
        // A reward bound far beyond the rewards: as many rounds, so refused alike.
        (
            "P=? [ F^{rew>=1000000} s=3 ]",
            "at most 100000 times a reward the model earns",
        ),
        // A filter over other states is checked before its states are sought.
        (
            "filter(max, P=? [ F<=100001 s=3 ], s>0)",
            "at most 100000 steps",
        ),
        ("filter(count, P=? [ F s=3 ], s>0)", "takes true or false"),
    ] {
        let args = across(prop);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_with(&args, words);
    }
    fails_with(
        &[
            "check",
            &chain,
            "--prop",
            "filter(max, P=? [ F s=3 ], \"init\")",
            "--processes",
            "2",
            "--exact",
        ],
        "--exact is not available across processes",
    );
    // A state whose command cannot be evaluated: the run ends with the model's own error.
    let broken = file(
        "across_broken.prism",
        "dtmc\nmodule m\n  s : [0..2] init 0;\n  [] s<2 -> (s'=s+1);\n  [] s=2 -> (s'=3);\nendmodule\n",
    );
    fails_with(
        &[
            "check",
            &broken,
            "--prop",
            "P=? [ F s=5 ]",
            "--processes",
            "2",
        ],
        "outside its range",
    );
}

/// The `results` of `check MODEL ARGS --json -q`, with its exit code.
fn results(model: &str, args: &[&str]) -> (Option<i32>, Vec<serde_json::Value>) {
    let mut all = vec!["check", model, "--json", "-q"];
    all.extend_from_slice(args);
    let o = run(&all);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{all:?}: {e}: {}", text(&o.stderr)));
    (o.status.code(), v["results"].as_array().unwrap().clone())
}

#[test]
fn several_properties_across_processes_agree_with_one_process() {
    let chain = file(
        "across_several.prism",
        &CHAIN.replace("endinit", "endinit\nrewards \"r\" true : 1; endrewards"),
    );
    let props = file(
        "across_several.props",
        "\"reach\": P=? [ F s=3 ];\n\
         R=? [ F s>=2 ];\n\
         filter(count, P=? [ F s=3 ], s>0);\n\
         P>0.3 [ F \"done\" ];\n\
         filter(max, P=? [ F<=100001 s=3 ], s>0);\n\
         \"never\": E [ G s<3 ];\n\
         filter(sum, s, \"init\");\n\
         P=? [ X s=1 ];\n",
    );
    let (code, one) = results(&chain, &[&props]);
    assert_eq!(
        code,
        Some(2),
        "a property of the file is an error in one process"
    );
    for processes in ["2", "3"] {
        let (code, across) = results(&chain, &[&props, "--processes", processes]);
        // Some fail (here and there, or only across processes), the rest are answered.
        assert_eq!(code, Some(2));
        assert_eq!(one.len(), across.len());
        let mut answered = 0;
        for (o, a) in one.iter().zip(&across) {
            assert_eq!(o["property"], a["property"]);
            assert_eq!(o["name"], a["name"]);
            if o.get("error").is_some() {
                assert!(a.get("error").is_some(), "{a}");
                continue;
            }
            let refused = a["error"]
                .as_str()
                .is_some_and(|e| e.contains("in one process"));
            if refused {
                continue;
            }
            answered += 1;
            match o["value"].as_bool() {
                Some(holds) => assert_eq!(a["value"].as_bool(), Some(holds), "{a}"),
                None => {
                    let (truth, v) = (number(&o["value"]), number(&a["value"]));
                    let bound = a["error_bound"].as_f64().unwrap();
                    assert!((truth - v).abs() <= bound + 1e-12, "{o} against {a}");
                }
            }
        }
        // Of the eight: one an error in both, one refused across processes.
        assert_eq!(answered, 6, "{across:?}");
    }
    // All answered: exit code 0, and each property's answer in the order asked.
    let (code, across) = results(
        &chain,
        &[
            "--prop",
            "P=? [ F s=4 ]",
            "--prop",
            "P=? [ F s=3 ]",
            "--processes",
            "2",
        ],
    );
    assert_eq!(code, Some(0));
    let values: Vec<f64> = across.iter().map(|a| number(&a["value"])).collect();
    assert!((values[0] - 2.0 / 7.0).abs() < 1e-9 && (values[1] - 2.0 / 7.0).abs() < 1e-9);
    // A filter's states are found once for every property that asks for them.
    let filters = [
        "filter(max, P=? [ F s=3 ], s>0)",
        "filter(avg, P=? [ F s=3 ], s>0)",
    ];
    let (code, across) = results(
        &chain,
        &[
            "--prop",
            filters[0],
            "--prop",
            filters[1],
            "--processes",
            "2",
        ],
    );
    assert_eq!(code, Some(0));
    let method = |a: &serde_json::Value| a["method"].as_str().unwrap().to_string();
    assert!(
        method(&across[0]).contains("states found first"),
        "{across:?}"
    );
    assert!(
        !method(&across[1]).contains("states found first"),
        "{across:?}"
    );
    for (prop, a) in filters.iter().zip(&across) {
        let (truth, _) = value(&chain, prop, &[]);
        assert!((truth - number(&a["value"])).abs() <= 1e-9, "{prop}: {a}");
    }
}

#[test]
fn ranges_of_constants_across_processes_agree_with_one_process() {
    let model = file(
        "across_ranges.prism",
        "dtmc\nconst int N;\nmodule m\n  s : [0..10];\n  [] s<N -> 1/2 : (s'=s+1) + 1/2 : (s'=0);\nendmodule\nlabel \"done\" = s=N;\n",
    );
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            &model,
            "--prop",
            "P=? [ F<=3 \"done\" ]",
            "--prop",
            "P=? [ F<=2 \"done\" ]",
            "--const",
            "N=1:4",
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        text(&o.stdout)
    };
    let one = check(&[]);
    assert!(one.contains("N=4:\nP=? [ F<=3 (\"done\") ]: 0\n"), "{one}");
    assert_eq!(check(&["--processes", "2"]), one);
    assert_eq!(check(&["--processes", "3"]), one);
}
