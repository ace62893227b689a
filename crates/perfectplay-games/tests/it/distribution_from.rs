//! The distribution of what is still to be won from any state, mid-turn states of games with
//! turn-local states included: its mass is one and its mean is the state's value, exactly in
//! exact arithmetic. States are taken along the branches of the start and of the states they
//! lead to, and along simulated plays.

use perfectplay::dynamic::{DynModel, SolveOptions, Solved};
use perfectplay::{DistributionOptions, Rng};
use perfectplay_games::{build, Params};

fn solved(game: &str, params: &[(&str, &str)], exact: bool) -> Box<dyn Solved + Send + Sync> {
    let mut p = Params::new();
    for (k, v) in params {
        p.set(*k, *v);
    }
    let model: std::sync::Arc<dyn DynModel> = build(game, &p).unwrap().into();
    model
        .solve_shared(SolveOptions {
            exact,
            ..SolveOptions::default()
        })
        .unwrap()
}

/// Up to `count` states met on plays from the start that pick branches at random.
fn sample(solved: &dyn Solved, count: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut ids = Vec::new();
    while ids.len() < count {
        let mut id = 0;
        for _ in 0..40 {
            ids.push(id);
            let e = solved.explain(id).unwrap();
            if e.next.is_empty() || ids.len() >= count {
                break;
            }
            let pick = (rng.next_u64() % e.next.len() as u64) as usize;
            id = e.follow(pick, &mut rng).next;
        }
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

fn check(game: &str, params: &[(&str, &str)], count: usize) {
    let exact = solved(game, params, true);
    let float = solved(game, params, false);
    let options = DistributionOptions::default();
    for id in sample(exact.as_ref(), count, 11) {
        let e = exact.explain(id).unwrap();
        let d = exact.distribution_from(id, &options).unwrap();
        let state = &e.explanation.state;
        assert_eq!(d.tail.exact.as_deref(), Some("0"), "{game} {state}");
        let total: f64 = d.pmf.iter().map(|(_, p, _)| p.float).sum();
        assert!((total - 1.0).abs() < 1e-12, "{game} {state}: mass {total}");
        assert_eq!(d.mean.exact, e.explanation.value.exact, "{game} {state}");
        // The float solve numbers states alike; its distribution agrees.
        let id_float = float.find(state).unwrap();
        let f = float.distribution_from(id_float, &options).unwrap();
        assert!((f.mean.float - d.mean.float).abs() < 1e-9, "{game} {state}");
    }
}

#[test]
fn yahtzee_from_mid_turn_states() {
    check("yahtzee", &[("boxes", "1s,6s,y")], 30);
}

#[test]
fn acyclic_games_from_any_state() {
    check("perfect-memory", &[("rows", "2"), ("cols", "3")], 20);
    check(
        "subset-sum-extreme",
        &[("blocks", "1,2,3,4,5"), ("faces", "1,2,3,4,5,6")],
        20,
    );
}

/// A game whose plays can go round a cycle for ever: the tail is within the default bound and
/// the mean within it of the value.
fn check_cyclic(game: &str, params: &[(&str, &str)]) {
    let s = solved(game, params, false);
    let options = DistributionOptions::default();
    for id in sample(s.as_ref(), 25, 3) {
        let e = s.explain(id).unwrap();
        let d = s.distribution_from(id, &options).unwrap();
        let value = e.explanation.value.float;
        assert!(d.tail.float <= 1e-12, "{}", e.explanation.state);
        assert!(
            (d.mean.float - value).abs() < 1e-9,
            "{}: {} vs {value}",
            e.explanation.state,
            d.mean.float
        );
    }
    assert!(s.distribution_from(usize::MAX, &options).is_err());
}

#[test]
fn games_with_cycles_from_any_state() {
    check_cyclic("pig", &[("goal", "12")]);
    check_cyclic(
        "yeetzhee",
        &[("dice", "4"), ("faces", "4"), ("groups", "2,2")],
    );
}
