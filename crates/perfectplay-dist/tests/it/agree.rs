//! The solve across processes gives the value of the one-process engine: on every built-in
//! game, with 1 to 4 processes talking over loopback (here each process is a thread of the
//! test, with its own timely runtime and sockets), the exact value lies within the reported
//! error bound of the reported value. Plus the ways a run must fail: processes started from
//! different commands, a process that never comes, a model without a state encoding.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{exact, hosts};
use perfectplay::dynamic::DynModel;
use perfectplay_dist::{DistError, DistReport, Options, Run};
use perfectplay_games::Params;

/// Runs a solve of `model` across `n` processes (threads here), each with `workers` workers
/// and the fingerprint `fingerprints(i)`; returns process 0's result and the others' errors.
fn run_with(
    model: Arc<dyn DynModel>,
    n: usize,
    workers: usize,
    fingerprint: impl Fn(usize) -> u64,
    options: &Options,
) -> Vec<Result<Option<DistReport>, DistError>> {
    let hosts = hosts(n);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let run = Run {
                    hosts: hosts.clone(),
                    process: i,
                    fingerprint: fingerprint(i),
                };
                let options = Options {
                    workers,
                    ..options.clone()
                };
                let model = Arc::clone(&model);
                scope.spawn(move || perfectplay_dist::solve(model, &run, &options))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Checks that the distributed value of `game` with `params` is within its bound of the
/// exact value, for 1 to 4 processes (and 2 workers on 2 processes): as the run chooses, and
/// by interval iteration alone (no states gathered into one worker).
fn agrees(game: &str, params: &[(&str, &str)]) {
    agrees_with(game, params, &Options::default());
    let iterated = Options {
        gather: 0,
        ..Options::default()
    };
    let method = agrees_with(game, params, &iterated);
    assert!(!method.contains("solved directly"), "{game}: {method}");
}

/// [`agrees`] with `options`; returns the method of the last run.
fn agrees_with(game: &str, params: &[(&str, &str)], options: &Options) -> &'static str {
    let model: Arc<dyn DynModel> = Arc::from(
        perfectplay_games::build(game, &Params::from_pairs(params.iter().copied())).unwrap(),
    );
    let t = exact(model.as_ref()).expect("an exact value");
    let mut method = "";
    for (n, workers) in [(1, 1), (2, 1), (3, 1), (4, 1), (2, 2)] {
        let results = run_with(Arc::clone(&model), n, workers, |_| 7, options);
        let mut results = results.into_iter();
        let report = results.next().unwrap().unwrap().expect("process 0 reports");
        for other in results {
            assert!(other.unwrap().is_none(), "only process 0 reports");
        }
        let slack = 2.0 * t.abs() * f64::EPSILON;
        assert!(
            (report.start.value - t).abs() <= report.start.error_bound + slack,
            "{game} {params:?} on {n}x{workers}: {} ± {} but the value is {t}",
            report.start.value,
            report.start.error_bound
        );
        assert!(report.start.lower <= t + slack && t - slack <= report.start.upper);
        assert!(
            report.start.error_bound <= 1e-8 * t.abs().max(1.0),
            "{report:?}"
        );
        assert_eq!(report.processes, n);
        assert_eq!(report.peak_memory.len(), n);
        if n > 1 {
            assert!(report.messages > 0 && report.bytes > 0);
        }
        method = report.method;
    }
    method
}

/// The states on cycles gathered into one worker and solved there in one piece, at once
/// rather than after the rounds that iteration is given first (a limit of one round of
/// iteration): two players (Pig), and one player with rewards on the cycles (Yeetzhee).
#[test]
fn cycles_solved_in_one_piece_in_one_worker() {
    let options = Options {
        max_rounds: 1,
        ..Options::default()
    };
    for (game, params) in [
        ("pig", &[("goal", "12")][..]),
        ("pig", &[("goal", "10"), ("opponent", "hold-at-4")]),
        (
            "yeetzhee",
            &[("dice", "3"), ("faces", "6"), ("groups", "1,2")],
        ),
        (
            "yeetzhee",
            &[("dice", "6"), ("faces", "4"), ("groups", "1,2,3")],
        ),
    ] {
        let method = agrees_with(game, params, &options);
        assert!(method.contains("solved directly"), "{game}: {method}");
    }
}

#[test]
fn pig_with_its_cycles() {
    agrees("pig", &[("goal", "12")]);
    agrees("pig", &[("goal", "10"), ("opponent", "hold-at-4")]);
}

#[test]
fn gold_pots_in_every_variant() {
    for variant in [
        "competitive-known",
        "cooperative-known",
        "competitive-unknown",
        "cooperative-unknown",
    ] {
        agrees(
            "gold-pots",
            &[("pots", "4,1,2,10,3,7,7,2"), ("variant", variant)],
        );
    }
}

#[test]
fn yeetzhee_with_rewards_on_its_cycles() {
    agrees(
        "yeetzhee",
        &[("dice", "3"), ("faces", "6"), ("groups", "1,2")],
    );
    agrees(
        "yeetzhee",
        &[("dice", "6"), ("faces", "4"), ("groups", "1,2,3")],
    );
}

#[test]
fn the_acyclic_games() {
    agrees("perfect-memory", &[("rows", "3"), ("cols", "4")]);
    agrees(
        "subset-sum-extreme",
        &[("blocks", "1,2,3,4"), ("faces", "6,5,3")],
    );
    agrees("grid-game", &[("grid", "3 -1 4; 1 5 -9; 2 6 5")]);
    agrees("yahtzee", &[("boxes", "1s,y")]);
}

#[test]
fn processes_of_different_commands_refuse_each_other() {
    let model: Arc<dyn DynModel> =
        Arc::from(perfectplay_games::build("pig", &Params::from_pairs([("goal", "5")])).unwrap());
    let options = Options {
        connect_timeout: Duration::from_secs(5),
        ..Options::default()
    };
    let results = run_with(model, 2, 1, |i| i as u64, &options);
    for r in results {
        assert!(matches!(r, Err(DistError::Mismatch(_))), "{r:?}");
    }
}

#[test]
fn a_process_that_never_comes_is_an_error() {
    let model: Arc<dyn DynModel> =
        Arc::from(perfectplay_games::build("pig", &Params::from_pairs([("goal", "5")])).unwrap());
    let run = Run {
        hosts: hosts(2),
        process: 0,
        fingerprint: 1,
    };
    let options = Options {
        connect_timeout: Duration::from_secs(1),
        ..Options::default()
    };
    let error = perfectplay_dist::solve(model, &run, &options).unwrap_err();
    assert!(
        matches!(&error, DistError::Network(m) if m.contains("process 1")),
        "{error}"
    );
}

/// A game with no state encoding.
struct Opaque;

impl perfectplay::Model for Opaque {
    type State = u8;
    type Move = u8;
    fn start(&self) -> u8 {
        0
    }
    fn expand(&self, s: &u8, node: &mut impl perfectplay::NodeBuilder<u8, u8>) {
        match s {
            0 => {
                node.decision(perfectplay::Player::Max);
                node.add_move(0, 1, 1);
            }
            _ => node.terminal(0),
        }
    }
}

#[test]
fn a_model_without_an_encoding_is_refused() {
    let run = Run::default();
    let error = perfectplay_dist::solve(Arc::new(Opaque), &run, &Options::default()).unwrap_err();
    assert!(
        matches!(&error, DistError::Unsupported(m) if m.contains("encode_state")),
        "{error}"
    );
}

/// A symmetric walk on `0..=top` held at both ends, each step earning 1 at 0: a chain whose one
/// bottom component mixes slowly (its long-run average is `1/(top + 1)`).
struct Walk {
    top: u16,
}

impl perfectplay::Model for Walk {
    type State = u16;
    type Move = u8;
    fn start(&self) -> u16 {
        0
    }
    fn expand(&self, &s: &u16, node: &mut impl perfectplay::NodeBuilder<u16, u8>) {
        let half = perfectplay::Rat::new(1, 2);
        let earned = i64::from(s == 0);
        node.chance();
        node.add_outcome(0, half, earned, s.saturating_sub(1));
        node.add_outcome(1, half, earned, (s + 1).min(self.top));
    }
    fn encodes_states(&self) -> bool {
        true
    }
    fn encode_state(&self, s: &u16, out: &mut Vec<u8>) {
        out.extend_from_slice(&s.to_le_bytes());
    }
    fn decode_state(&self, bytes: &[u8]) -> Option<u16> {
        let s = u16::from_le_bytes(bytes.try_into().ok()?);
        (s <= self.top).then_some(s)
    }
}

/// A long run that mixes too slowly for the rounds the run may take, with its states never
/// gathered into one worker, ends with an error as soon as its pace shows it (after two
/// windows of the iteration), not at the limit of rounds; given the rounds, it closes.
#[test]
fn a_long_run_that_mixes_too_slowly_ends_early_with_an_error() {
    let model: Arc<dyn DynModel> = Arc::new(Walk { top: 300 });
    let options = Options {
        long_run: true,
        gather: 0,
        max_rounds: 20_000,
        ..Options::default()
    };
    for result in run_with(Arc::clone(&model), 2, 1, |_| 1, &options) {
        match result {
            Err(DistError::Solve(m)) => {
                assert!(m.contains("close too slowly"), "{m}");
                let rounds: u64 = m
                    .split("after ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(rounds < 5_000, "{m}");
            }
            other => panic!("{:?}", other.map(|r| r.map(|r| r.start))),
        }
    }
    // A shorter walk closes within its rounds.
    let model: Arc<dyn DynModel> = Arc::new(Walk { top: 8 });
    let report = run_with(model, 2, 1, |_| 1, &options)
        .remove(0)
        .unwrap()
        .unwrap();
    let truth = 1.0 / 9.0;
    assert!(
        (report.start.value - truth).abs() <= report.start.error_bound,
        "{:?}",
        report.start
    );
}
