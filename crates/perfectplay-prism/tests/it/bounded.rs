//! Step-bounded queries, `P…[ F<=k φ ]`, `P…[ ψ U<=k φ ]`, `R…[ C<=k ]` and `R…[ I=k ]`, on a
//! DTMC, an MDP and a game, against values worked out by hand; bounds as constants and
//! expressions, strict and not; and the errors of what is not supported.

use perfectplay_prism::{analysis_model, check_prop, query_model, Loaded, Props};

fn answers(model: &str, props: &str, exact: bool) -> Vec<Result<String, String>> {
    let loaded = Loaded::new("m.prism", model, &[], 10_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "p", props, &[]).unwrap_or_else(|e| panic!("{e}"));
    props
        .props
        .iter()
        .map(|p| {
            check_prop(&loaded, &props, p, exact)
                .map(|a| match (a.holds, a.exact) {
                    (Some(b), _) => b.to_string(),
                    (None, Some(q)) => q,
                    (None, None) => a.value.to_string(),
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// A coin tossed until heads: heads within k tosses has probability 1 - 2^-k.
const COIN: &str = "dtmc
module coin
  heads : bool;
  [] !heads -> 1/2 : (heads'=true) + 1/2 : true;
  [] heads -> true;
endmodule
";

#[test]
fn a_coin_within_k_tosses() {
    let props = "const int k = 3;\nP=? [ F<=0 heads ]\nP=? [ F<=1 heads ]\nP=? [ F<=k heads ]\n\
                 P=? [ F<k heads ]\nP=? [ F<=(k+2) heads ]\nP=? [ F<=k (heads) ]\nP>=0.875 [ F<=k heads ]";
    for exact in [true, false] {
        let got: Vec<String> = answers(COIN, props, exact)
            .into_iter()
            .map(|a| a.unwrap())
            .collect();
        let want = if exact {
            ["0", "1/2", "7/8", "3/4", "31/32", "7/8", "true"]
        } else {
            ["0", "0.5", "0.875", "0.75", "0.96875", "0.875", "true"]
        };
        assert_eq!(got, want, "exact: {exact}");
    }
}

/// At 0 a fast route reaches the goal 3 with probability 1/2 a step (else back to 0), a slow
/// one surely in three steps (0, 1, 2, 3). Within 3 steps: the best is the slow route (1), the
/// worst is fast then slow (1/2: after a failed fast step, 2 steps are too few for the slow
/// route). Within 2: three quarters at best (fast twice).
const ROUTES: &str = "mdp
module m
  s : [0..3];
  [fast] s=0 -> 1/2 : (s'=3) + 1/2 : (s'=0);
  [slow] s=0 -> (s'=1);
  [] s=1 -> (s'=2);
  [] s=2 -> (s'=3);
  [] s=3 -> true;
endmodule
";

#[test]
fn routes_within_k_steps_in_an_mdp() {
    let props =
        "Pmax=? [ F<=3 s=3 ]\nPmin=? [ F<=3 s=3 ]\nPmax=? [ F<=2 s=3 ]\nPmin=? [ F<=2 s=3 ]\n\
                 Pmax=? [ s!=1 U<=3 s=3 ]\nPmax=? [ F s=3 ]";
    let got: Vec<String> = answers(ROUTES, props, true)
        .into_iter()
        .map(|a| a.unwrap())
        .collect();
    // Through states other than 1, only the fast route: 7/8 within 3 steps.
    assert_eq!(got, ["1", "1/2", "3/4", "0", "7/8", "1"]);
}

/// The same routes as a game: Max picks the route at 0, Min at 1 may stall once (to 2 via 4).
#[test]
fn routes_within_k_steps_in_a_game() {
    let game = "smg
player maxi [fast], [slow] endplayer
player mini [go], [stall] endplayer
module m
  s : [0..4];
  [fast] s=0 -> 1/2 : (s'=3) + 1/2 : (s'=0);
  [slow] s=0 -> (s'=1);
  [go] s=1 -> (s'=2);
  [stall] s=1 -> (s'=4);
  [] s=4 -> (s'=2);
  [] s=2 -> (s'=3);
  [] s=3 -> true;
endmodule
";
    // Within 3 steps Min's stall makes the slow route miss, so Max goes fast: 7/8. Within
    // 4, the slow route arrives even when Min stalls: 1. With Min on Max's side (<<*>>), the
    // slow route is sure within 3.
    let props =
        "<<maxi>> Pmax=? [ F<=3 s=3 ]\n<<maxi>> Pmax=? [ F<=4 s=3 ]\n<<*>> Pmax=? [ F<=3 s=3 ]\n\
                 <<maxi>> P>=0.8 [ F<=3 s=3 ]";
    let got: Vec<String> = answers(game, props, true)
        .into_iter()
        .map(|a| a.unwrap())
        .collect();
    assert_eq!(got, ["7/8", "1", "1", "true"]);
}

/// Rewards over the first k steps and at step k: the coin earns 1 in each state before heads,
/// so `C<=k` is the expected number of tosses among the first k, 2 - 2^(1-k), and `I=k` the
/// probability of no heads yet at step k, 2^-k. On the routes, each step costs 1 (at the goal
/// too: `C<=k` has no target) and the fast route 2 more: within 2 steps the slow route costs
/// 2, the fast one 3, then 1 at the goal or 3 again, 5 in all.
#[test]
fn rewards_over_and_at_k_steps() {
    let coin = format!("{COIN}rewards\n  !heads : 1;\nendrewards\n");
    let props = "R=? [ C<=0 ]\nR=? [ C<=1 ]\nR=? [ C<=3 ]\nR=? [ I=0 ]\nR=? [ I=3 ]";
    let got: Vec<String> = answers(&coin, props, true)
        .into_iter()
        .map(|a| a.unwrap())
        .collect();
    assert_eq!(got, ["0", "1", "7/4", "1", "1/8"]);
    let routes = format!("{ROUTES}rewards\n  true : 1;\n  [fast] true : 2;\nendrewards\n");
    let props = "Rmin=? [ C<=2 ]\nRmax=? [ C<=2 ]\nRmax=? [ I=1 ]";
    let got: Vec<String> = answers(&routes, props, true)
        .into_iter()
        .map(|a| a.unwrap())
        .collect();
    assert_eq!(got, ["2", "5", "1"]);
}

#[test]
fn what_bounded_paths_do_not_support_is_an_error() {
    let props =
        "const double h = 1.5;\nP=? [ F<=h heads ]\nP=? [ F<0 heads ]\nR=? [ F<=2 heads ]\n\
                 P=? [ C<=2 ]\nR=? [ I=-1 ]";
    let got = answers(
        &format!("{COIN}rewards true : 1; endrewards\n"),
        props,
        false,
    );
    let errs: Vec<String> = got.into_iter().map(|a| a.unwrap_err()).collect();
    assert!(errs[0].contains("not a constant integer"), "{}", errs[0]);
    assert!(errs[1].contains("bound <0 counts -1 steps"), "{}", errs[1]);
    assert!(errs[2].contains("a reward query takes"), "{}", errs[2]);
    assert!(errs[3].contains("measure rewards"), "{}", errs[3]);
    assert!(errs[4].contains("counts -1 steps"), "{}", errs[4]);
    assert!(errs[4].contains("bound I="), "{}", errs[4]);
    // A step-bounded property is a game of its own, which `analysis_model` gives for explain
    // and the other commands; `query_model`'s game is the unbounded one.
    let loaded = Loaded::new("m.prism", COIN, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "P=? [ F<=2 heads ]", &[]).unwrap();
    let Err(e) = query_model(&loaded, &props, &props.props[0]) else {
        panic!("a query model for a bounded property");
    };
    assert!(e.to_string().contains("analysis_model"), "{e}");
    let model = analysis_model(&loaded, &props, &props.props[0], true).unwrap();
    let options = perfectplay::dynamic::SolveOptions {
        exact: true,
        ..Default::default()
    };
    let report = model.solve_report(options).unwrap();
    assert_eq!(report.exact.as_deref(), Some("3/4"));
}
