//! Random small games solved by the engine in exact and float arithmetic, compared with brute
//! force over every deterministic stationary strategy, and certified by the checker.

mod common;

use common::{brute_force, profiles, random_game, Rng, Shape};
use perfectplay::verify::verify_solution;
use perfectplay::{solve, solve_exact, Method, Number, Player, Solver};

fn check_many(shape: Shape, players: &[Player], games: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut checked = 0;
    let mut cyclic = 0;
    let mut modular = 0;
    while checked < games {
        let inner = 2 + rng.below(9);
        let game = random_game(&mut rng, inner, shape, players);
        if profiles(&game) > 1 << 9 {
            continue;
        }
        let exact = solve_exact(&game).unwrap_or_else(|e| panic!("{e}\n{game:?}"));
        let float = solve(&game).unwrap_or_else(|e| panic!("{e}\n{game:?}"));
        let expect = brute_force(&game).expect("a strategy that ends the game exists");
        assert_eq!(
            *exact.start_value(),
            expect,
            "exact value differs\n{game:?}"
        );
        let f = *float.start_value();
        let e = expect.to_f64();
        assert!(
            (f - e).abs() <= 1e-9 * e.abs().max(1.0),
            "float {f} vs exact {e}\n{game:?}"
        );
        verify_solution(&game, &exact).unwrap_or_else(|e| panic!("{e}\n{game:?}"));
        // The start value alone, multi-modular where it applies, is the same fraction.
        let (start, stats) = Solver::new(&game)
            .exact_start_value()
            .unwrap_or_else(|e| panic!("{e}\n{game:?}"));
        assert_eq!(start, expect, "exact_start_value differs\n{game:?}");
        assert_eq!(stats.states, exact.stats().states);
        modular += usize::from(matches!(stats.method, Method::Multimodular { .. }));
        // Float and exact agree on every explored state, not only the start.
        for (s, v) in exact.iter() {
            let fv = float.value(s).expect("same states explored");
            assert!((fv - v.to_f64()).abs() <= 1e-9 * v.to_f64().abs().max(1.0));
        }
        cyclic += usize::from(exact.stats().cyclic_components > 0);
        checked += 1;
    }
    if shape == Shape::Acyclic {
        // Only moves within rounding of each other that differ exactly make it fall back.
        assert!(
            modular > games * 9 / 10,
            "multi-modular on {modular} of {games}"
        );
    } else {
        assert!(
            cyclic > games / 4,
            "too few cyclic games generated: {cyclic}"
        );
    }
}

#[test]
fn acyclic_one_player_min() {
    check_many(Shape::Acyclic, &[Player::Min], 150, 1);
}

#[test]
fn acyclic_one_player_max() {
    check_many(Shape::Acyclic, &[Player::Max], 150, 2);
}

#[test]
fn acyclic_two_players() {
    check_many(Shape::Acyclic, &[Player::Max, Player::Min], 150, 3);
}

#[test]
fn cyclic_two_players_stopping() {
    check_many(Shape::Stopping, &[Player::Max, Player::Min], 150, 4);
}

#[test]
fn cyclic_one_player_stopping() {
    check_many(Shape::Stopping, &[Player::Min], 100, 5);
    check_many(Shape::Stopping, &[Player::Max], 100, 6);
}

#[test]
fn cyclic_one_player_with_loops_min() {
    check_many(Shape::Loops, &[Player::Min], 200, 7);
}

#[test]
fn cyclic_one_player_with_loops_max() {
    check_many(Shape::Loops, &[Player::Max], 200, 8);
}
