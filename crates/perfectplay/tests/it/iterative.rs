//! Components too dense to eliminate are solved in floats by value iteration with a certified
//! error bound: the value lies within the reported bound of an independent computation, and
//! the bound is small.

use perfectplay::{Model, NodeBuilder, Player, Rat, Solver};

/// `n` states, each a chance node (or a decision of `player` among three random moves) whose
/// outcomes go to 45 pseudo-random states with probability 1/50 each and end the game with the
/// rest, earning 1 per step and an end reward that depends on the state. With `uniform`, every
/// state and move ends with probability 1/10 and earns nothing at the end: the value is the
/// expected number of steps, exactly 10.
struct Dense {
    n: u32,
    player: Option<Player>,
    uniform: bool,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^ (x >> 33)
}

const OUTCOMES: u32 = 45;

impl Dense {
    /// The outcomes of move `m` at `s`: `(target, weight of 50)`, the end last (`n`).
    fn outcomes(&self, s: u32, m: u32) -> Vec<(u32, i64)> {
        let stay = if self.uniform {
            OUTCOMES
        } else {
            OUTCOMES - (mix(u64::from(s) * 7 + u64::from(m)) % 5) as u32
        };
        let mut out: Vec<(u32, i64)> = (0..stay)
            .map(|k| {
                let h = mix((u64::from(s) << 20) ^ (u64::from(m) << 10) ^ u64::from(k));
                ((h % u64::from(self.n)) as u32, 1)
            })
            .collect();
        out.push((self.n, 50 - i64::from(stay)));
        out
    }

    fn end_reward(&self, s: u32) -> i64 {
        if self.uniform {
            0
        } else {
            i64::from(s % 7) - 3
        }
    }

    fn moves(&self) -> u32 {
        if self.player.is_some() {
            3
        } else {
            1
        }
    }
}

impl Model for Dense {
    type State = u32;
    type Move = u32;

    fn start(&self) -> u32 {
        0
    }

    fn expand(&self, &s: &u32, node: &mut impl NodeBuilder<u32, u32>) {
        if s == self.n {
            return node.terminal(0);
        }
        let add = |node: &mut _, m: u32| {
            for (k, (t, w)) in self.outcomes(s, m).into_iter().enumerate() {
                let end = if t == self.n { self.end_reward(s) } else { 0 };
                NodeBuilder::add_outcome(node, k as u32, Rat::new(w, 50), 1 + end, t);
            }
        };
        match self.player {
            None => {
                node.chance();
                add(node, 0);
            }
            Some(p) => {
                node.decision(p);
                for m in 0..3 {
                    node.add_random_move(m, 0);
                    add(node, m);
                }
            }
        }
    }

    fn dense_bound(&self) -> usize {
        self.n as usize + 1
    }

    fn dense_index(&self, &s: &u32) -> Option<usize> {
        Some(s as usize)
    }
}

/// The values by plain Gauss–Seidel value iteration until nothing changes in `f64`.
fn reference(game: &Dense) -> Vec<f64> {
    let n = game.n as usize;
    let mut v = vec![0.0f64; n + 1];
    for _ in 0..100_000 {
        let mut change = 0.0f64;
        for s in 0..n {
            let q = |m: u32| -> f64 {
                game.outcomes(s as u32, m)
                    .iter()
                    .map(|&(t, w)| {
                        let end = if t == game.n {
                            game.end_reward(s as u32)
                        } else {
                            0
                        };
                        w as f64 / 50.0 * ((1 + end) as f64 + v[t as usize])
                    })
                    .sum()
            };
            let values = (0..game.moves()).map(q);
            let new = match game.player {
                Some(Player::Min) => values.fold(f64::INFINITY, f64::min),
                _ => values.fold(f64::NEG_INFINITY, f64::max),
            };
            change = change.max((new - v[s]).abs());
            v[s] = new;
        }
        if change == 0.0 {
            break;
        }
    }
    v
}

fn check(game: Dense) {
    let (value, stats) = Solver::new(&game).start_value::<f64>().unwrap();
    assert!(stats.error_bound > 0.0, "not iterated: {stats:?}");
    assert!(
        stats.error_bound < 1e-9,
        "loose bound {}",
        stats.error_bound
    );
    let expect = if game.uniform {
        10.0
    } else {
        reference(&game)[0]
    };
    assert!(
        (value - expect).abs() <= stats.error_bound + 1e-12 * expect.abs(),
        "{value} against {expect}, bound {}",
        stats.error_bound
    );
}

#[test]
fn a_dense_markov_chain_is_iterated_within_its_bound() {
    for uniform in [true, false] {
        check(Dense {
            n: 1100,
            player: None,
            uniform,
        });
    }
}

#[test]
fn dense_decisions_are_iterated_within_the_bound() {
    for player in [Player::Max, Player::Min] {
        for uniform in [true, false] {
            check(Dense {
                n: 300,
                player: Some(player),
                uniform,
            });
        }
    }
}
