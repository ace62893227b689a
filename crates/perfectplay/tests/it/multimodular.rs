//! `Solver::exact_start_value`: the multi-modular exact evaluation and its fallback to
//! rationals, on games made to hit each of its cases.

use crate::common::{GMove, GNode, Table};
use perfectplay::{solve_exact, Exact, Method, Number, Player, Rat, SolveError, Solver};

fn rat(n: i64, d: i64) -> Rat {
    Rat::new(n, d)
}

/// The start value both ways; returns it with the number of primes used.
fn both(game: &Table) -> (Exact, usize) {
    let (v, stats) = Solver::new(game).exact_start_value().unwrap();
    let direct = solve_exact(game).unwrap();
    assert_eq!(v, *direct.start_value(), "{game:?}");
    assert_eq!(stats.states, direct.stats().states);
    let primes = match stats.method {
        Method::Multimodular { primes } => primes,
        _ => 0,
    };
    (v, primes)
}

/// Two moves of Max whose values differ by 2^-60, far below what `f64` resolves near 1/3.
fn close_moves(better_first: bool) -> Table {
    let third = rat(1, 3);
    let more = third + rat(1, 1 << 60);
    let moves = if better_first {
        vec![(more, 1), (third, 1)]
    } else {
        vec![(third, 1), (more, 1)]
    };
    Table(vec![
        GNode::Decision(Player::Max, moves),
        GNode::Terminal(Rat::ZERO),
    ])
}

#[test]
fn moves_closer_than_rounding_are_decided_exactly() {
    let more = rat(1, 3) + rat(1, 1 << 60);
    for better_first in [true, false] {
        let (v, _) = both(&close_moves(better_first));
        assert_eq!(v.to_string(), more.to_string());
    }
    // Float takes the first of two equal-looking moves. When that is the better one, the
    // difference of the other is reconstructed from its residues and found worse. When it is
    // the worse one, the difference says the other is better, and a second attempt takes it.
    // Either way the value stays multi-modular.
    for better_first in [true, false] {
        let (_, primes) = both(&close_moves(better_first));
        assert!(primes > 0, "{better_first}");
    }
}

/// The same inside a cycle: a retry loop whose two ways out differ by 2^-60, for each player
/// and each order of the moves.
#[test]
fn near_moves_in_a_cycle_are_decided_exactly() {
    let third = rat(1, 3);
    let more = third + rat(1, 1 << 60);
    for player in [Player::Max, Player::Min] {
        for better_first in [true, false] {
            let (a, b) = if better_first == (player == Player::Max) {
                (more, third)
            } else {
                (third, more)
            };
            // 0: a coin that comes back to 0 or goes on to the decision 1; 1: leave with a
            // or with b, or go back to 0 (exactly as good as the better way out, which it
            // leads to).
            let game = Table(vec![
                GNode::Chance(vec![(rat(1, 2), Rat::ZERO, 0), (rat(1, 2), Rat::ZERO, 1)]),
                GNode::Decision(player, vec![(a, 2), (b, 2), (Rat::ZERO, 0)]),
                GNode::Terminal(Rat::ZERO),
            ]);
            let (v, primes) = both(&game);
            let want = if player == Player::Max { more } else { third };
            assert_eq!(v, Exact::from_rat(want), "{player:?} {better_first}");
            // Where the float strategy takes the worse move, a second attempt takes the other.
            assert!(primes > 0, "{player:?} {better_first}");
        }
    }
}

#[test]
fn exactly_tied_moves_stay_multi_modular() {
    // 1/3 as a reward, and as a one-in-three chance of 1: the same value by other roads.
    let game = Table(vec![
        GNode::Decision(Player::Min, vec![(rat(1, 3), 2), (Rat::ZERO, 1)]),
        GNode::Chance(vec![(rat(1, 3), Rat::ZERO, 3), (rat(2, 3), Rat::ZERO, 2)]),
        GNode::Terminal(Rat::ZERO),
        GNode::Terminal(Rat::ONE),
    ]);
    let (v, primes) = both(&game);
    assert_eq!(v.to_string(), "1/3");
    assert!(primes > 0);
}

#[test]
fn long_games_need_many_primes() {
    // At step k a die with k + 2 faces ends the game on a 1 with payoff -k, else play goes
    // on; every step may also be skipped for a reward of 1/(k + 1). The value's denominator
    // is about lcm(2..2000): thousands of bits, so many rounds of primes.
    let n = 2000;
    let mut nodes = Vec::new();
    for k in 0..n {
        let ch = 2 * k + 1;
        let next = if k + 1 < n { 2 * k + 2 } else { 2 * n };
        nodes.push(GNode::Decision(
            Player::Max,
            vec![(Rat::ZERO, ch), (rat(1, k as i64 + 1), next)],
        ));
        let faces = k as i64 + 2;
        nodes.push(GNode::Chance(vec![
            (rat(1, faces), rat(-(k as i64), 1), 2 * n),
            (rat(faces - 1, faces), rat(1, faces), next),
        ]));
    }
    nodes.push(GNode::Terminal(Rat::ZERO));
    let game = Table(nodes);
    let (v, primes) = both(&game);
    assert!(primes >= 48, "{primes} primes for {v}");
    assert!(v.denominator_string().len() > 300);
}

#[test]
fn rewards_beyond_64_bits() {
    // Skipping forced moves would add their rewards beyond a 64-bit fraction: the skipped
    // state gets a step of its own and the evaluation stays multi-modular.
    let game = Table(vec![
        GNode::Decision(Player::Max, vec![(rat(i64::MAX, 7), 1)]),
        GNode::Decision(Player::Max, vec![(rat(i64::MAX, 5), 2)]),
        GNode::Terminal(rat(i64::MAX, 3)),
    ]);
    let (v, primes) = both(&game);
    assert!(primes > 0);
    assert!(v.to_f64() > 0.6 * i64::MAX as f64);
    // A random move's reward that does not add up with its outcome's: rationals instead.
    let game = Table(vec![
        GNode::Mixed(
            Player::Max,
            vec![GMove::Random(
                rat(i64::MAX, 7),
                vec![(rat(1, 2), rat(i64::MAX, 5), 1), (rat(1, 2), Rat::ZERO, 1)],
            )],
        ),
        GNode::Terminal(Rat::ONE),
    ]);
    let (_, primes) = both(&game);
    assert_eq!(primes, 0);
}

#[test]
fn cycles_stay_multi_modular_and_limits_hold() {
    let cyclic = Table(vec![
        GNode::Chance(vec![(rat(1, 2), Rat::ONE, 0), (rat(1, 2), Rat::ZERO, 1)]),
        GNode::Terminal(Rat::ZERO),
    ]);
    let (v, primes) = both(&cyclic);
    assert_eq!(v.to_string(), "1");
    assert!(primes > 0);
    let long = Table(
        (0..100)
            .map(|k| GNode::Decision(Player::Min, vec![(Rat::ONE, k + 1)]))
            .chain([GNode::Terminal(Rat::ZERO)])
            .collect(),
    );
    let err = Solver::new(&long)
        .max_states(10)
        .exact_start_value()
        .unwrap_err();
    assert!(matches!(err, SolveError::StateLimit { .. }), "{err}");
}

/// Outcomes whose numerators are large: many that share a denominator and add up to more than
/// 2^32 (the modular sums must be reduced part way), and numerators of 2^32 and beyond (reduced
/// one by one), with rewards that make every outcome count.
#[test]
fn large_numerators_sharing_a_denominator() {
    let (d, big) = (1i64 << 40, 1i64 << 37);
    let many: Vec<(Rat, Rat, usize)> = (0..8)
        .map(|i| (rat(big, d), rat(2 * i + 1, 7), 1 + i as usize))
        .collect();
    let mut nodes = vec![GNode::Chance(many)];
    for i in 0..8 {
        // Below 2^32 each, 2^35 together (shared denominator 2^36 * 3).
        let m = (1i64 << 31) + i;
        let rest = 3 * (1i64 << 36) - 15 * m;
        let mut outs: Vec<(Rat, Rat, usize)> = (0..15)
            .map(|j| (rat(m, 3 << 36), rat(j - 7, 11), 9))
            .collect();
        outs.push((rat(rest, 3 << 36), rat(i, 1), 10));
        nodes.push(GNode::Chance(outs));
    }
    nodes.push(GNode::Terminal(rat(5, 13)));
    nodes.push(GNode::Terminal(rat(-2, 9)));
    let game = Table(nodes);
    let (_, primes) = both(&game);
    assert!(primes > 0, "the game should stay multi-modular");
}
