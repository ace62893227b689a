//! Random small games with cycles (one and two players, chance, rewards of one sign) solved
//! across 1 and 2 processes: wherever the one-process engine gives an exact value, the
//! distributed value is within its reported bound of it, or the run refuses the game with an
//! error (a cycle it cannot yet bound); never a wrong value. Most games must be answered.

use std::sync::Arc;

use crate::common::{exact, hosts};
use perfectplay::dynamic::DynModel;
use perfectplay::encoded::Reader;
use perfectplay::{Model, NodeBuilder, Player, Rat};
use perfectplay_dist::{Options, Run};

/// One state of a random game.
#[derive(Clone, Debug)]
enum Kind {
    Terminal(i64),
    Decision(Player, Vec<(i64, u16)>),
    Chance(Vec<(Rat, i64, u16)>),
}

/// A random game over numbered states.
struct Random {
    states: Vec<Kind>,
}

impl Model for Random {
    type State = u16;
    type Move = u16;

    fn start(&self) -> u16 {
        0
    }

    fn expand(&self, &s: &u16, node: &mut impl NodeBuilder<u16, u16>) {
        match &self.states[s as usize] {
            Kind::Terminal(x) => node.terminal(*x),
            Kind::Decision(player, moves) => {
                node.decision(*player);
                for (i, &(reward, next)) in moves.iter().enumerate() {
                    node.add_move(i as u16, reward, next);
                }
            }
            Kind::Chance(outcomes) => {
                node.chance();
                for (i, &(p, reward, next)) in outcomes.iter().enumerate() {
                    node.add_outcome(i as u16, p, reward, next);
                }
            }
        }
    }

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, s: &u16, out: &mut Vec<u8>) {
        out.extend_from_slice(&s.to_le_bytes());
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<u16> {
        let mut r = Reader::new(bytes);
        let s = r.u16()?;
        r.finish(s)
    }
}

/// A small linear congruential generator: the cases are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A random game of `n` states: a few terminals, decisions of one or both players, chance
/// nodes with probabilities in halves, thirds and sixths; rewards zero, or all of one sign.
fn game(rng: &mut Lcg, n: u16, players: u64, sign: i64) -> Random {
    let reward = |rng: &mut Lcg| match sign {
        0 => 0,
        _ => sign * rng.below(3) as i64,
    };
    let states = (0..n)
        .map(|s| {
            let target = |rng: &mut Lcg| rng.below(n as u64) as u16;
            match rng.below(10) {
                _ if s + 1 == n => Kind::Terminal(rng.below(5) as i64 * sign.max(0)),
                0 | 1 => Kind::Terminal(if sign < 0 {
                    -(rng.below(5) as i64)
                } else {
                    rng.below(5) as i64
                }),
                2..=5 => {
                    let player = if rng.below(players) == 0 {
                        Player::Max
                    } else {
                        Player::Min
                    };
                    let moves = (0..1 + rng.below(3))
                        .map(|_| (reward(rng), target(rng)))
                        .collect();
                    Kind::Decision(player, moves)
                }
                _ => {
                    let den = [2, 3, 6][rng.below(3) as usize];
                    let mut left = den;
                    let mut outcomes = Vec::new();
                    while left > 0 {
                        let k = 1 + rng.below(left as u64) as i64;
                        outcomes.push((Rat::new(k, den), reward(rng), target(rng)));
                        left -= k;
                    }
                    Kind::Chance(outcomes)
                }
            }
        })
        .collect();
    Random { states }
}

#[test]
fn random_games_agree_with_the_exact_values() {
    let mut rng = Lcg(12345);
    let (mut solved, mut compared, mut refused) = (0, 0, 0);
    for case in 0..240 {
        let sign = [0, 0, 1, -1][case % 4];
        let players = 1 + (case as u64 / 4) % 2;
        let n = 2 + rng.below(14) as u16;
        let model: Arc<dyn DynModel> = Arc::new(game(&mut rng, n, players, sign));
        let Some(truth) = exact(model.as_ref()) else {
            continue;
        };
        solved += 1;
        // Interval iteration alone (nothing gathered), as the run chooses, and with a limit
        // of one round of iteration (the states on cycles gathered into one worker at once
        // and solved there in one piece).
        let runs = [(1, Some(0), None), (2, Some(0), None), (2, None, None)];
        let gathered = [(1, None, Some(1)), (2, None, Some(1))];
        for (processes, gather, max_rounds) in runs.into_iter().chain(gathered) {
            let options = Options {
                max_rounds: max_rounds.unwrap_or(Options::default().max_rounds),
                gather: gather.unwrap_or(Options::default().gather),
                ..Options::default()
            };
            let hosts = hosts(processes);
            let results: Vec<_> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..processes)
                    .map(|i| {
                        let run = Run {
                            hosts: hosts.clone(),
                            process: i,
                            fingerprint: 3,
                        };
                        let (model, options) = (Arc::clone(&model), &options);
                        scope.spawn(move || perfectplay_dist::solve(model, &run, options))
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let report = match &results[0] {
                Ok(Some(r)) => r.clone(),
                Ok(None) => panic!("case {case}: process 0 gave no report"),
                Err(e) => {
                    // Gathered, the cycles are solved as in one process, which solved them.
                    assert!(max_rounds.is_none(), "case {case} on {processes}: {e}");
                    refused += 1;
                    continue;
                }
            };
            let slack = 4.0 * truth.abs() * f64::EPSILON;
            assert!(
                (report.start.value - truth).abs() <= report.start.error_bound + slack,
                "case {case} on {processes} ({max_rounds:?}): {} ± {} but the value is {truth}",
                report.start.value,
                report.start.error_bound
            );
            compared += 1;
        }
    }
    assert!(solved >= 100, "{solved} solved in one process");
    assert!(
        refused * 10 <= compared,
        "{refused} refused against {compared} answered"
    );
}
