//! Random small games solved by the engine in exact and float arithmetic, compared with brute
//! force over every deterministic stationary strategy, and certified by the checker.

use crate::common::{brute_force, profiles, random_game, Rng, Shape};
use perfectplay::verify::verify_solution;
use perfectplay::{solve, solve_exact, Exact, Method, Number, Player, Solution, Solver};

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
        within_bound(&exact, &float, &game);
        cyclic += usize::from(exact.stats().cyclic_components > 0);
        checked += 1;
    }
    // Only moves within rounding of each other that differ exactly make it fall back.
    assert!(
        modular > games * 9 / 10,
        "multi-modular on {modular} of {games}"
    );
    if shape != Shape::Acyclic {
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

/// A table whose endless plays are worth zero, the least payoff: a reachability game.
struct Reach(crate::common::Table);

impl perfectplay::Model for Reach {
    type State = usize;
    type Move = usize;
    fn start(&self) -> usize {
        0
    }
    fn expand(&self, s: &usize, node: &mut impl perfectplay::NodeBuilder<usize, usize>) {
        self.0.expand(s, node)
    }
    fn endless_play_loser(&self) -> Option<Player> {
        Some(Player::Max)
    }
}

/// Float and exact agree on every explored state, not only the start, within the float
/// solve's error bound (compared exactly), and the bound is not far above the true error, or a
/// rounding of the values where they are exact: a near tie's bound must not be the largest
/// loss of the other player's moves, nor the whole range of the values.
fn within_bound(
    exact: &Solution<usize, Exact>,
    float: &Solution<usize, f64>,
    game: &impl std::fmt::Debug,
) {
    let bound = float.stats().error_bound;
    let bound_exact = Exact::of_float(bound).unwrap();
    let (mut worst, mut scale) = (0.0f64, 1.0f64);
    for (s, v) in exact.iter() {
        let fv = float.value(s).expect("same states explored");
        let error = Exact::of_float(*fv).unwrap().sub(v).abs();
        assert!(
            error <= bound_exact,
            "float {fv} vs exact {v}: error {} above the bound {bound:e}\n{game:?}",
            error.to_f64()
        );
        worst = worst.max(error.to_f64());
        scale = scale.max(v.to_f64().abs());
    }
    let floor = worst.max(f64::EPSILON * scale);
    assert!(
        bound <= 500.0 * floor,
        "bound {bound:e} against an error of {worst:e}\n{game:?}"
    );
}

/// One player in reachability games, endless plays worth zero: where the player may keep the
/// play going (Max, who loses it) or could not (Min, or the engine refuses), the multi-modular
/// start value is the brute-force value, and the method applies to almost every game.
#[test]
fn one_player_endless_play_multimodular() {
    for (player, seed) in [(Player::Max, 21), (Player::Min, 22)] {
        let mut rng = Rng(seed);
        let (mut solved, mut modular) = (0, 0);
        let mut tries = 0;
        while solved < 300 && tries < 5000 {
            tries += 1;
            let inner = 2 + rng.below(8);
            let game = random_game(&mut rng, inner, Shape::Reach, &[player]);
            if profiles(&game) > 1 << 9 {
                continue;
            }
            let reach = Reach(game);
            let Ok(exact) = solve_exact(&reach) else {
                continue;
            };
            let expect = crate::common::brute_force_with(&reach.0, true).expect("a value");
            assert_eq!(*exact.start_value(), expect, "{:?}", reach.0);
            let (start, stats) = Solver::new(&reach).exact_start_value().unwrap();
            assert_eq!(start, expect, "exact start value\n{:?}", reach.0);
            modular += usize::from(matches!(stats.method, Method::Multimodular { .. }));
            let float = solve(&reach).unwrap_or_else(|e| panic!("{e}\n{:?}", reach.0));
            within_bound(&exact, &float, &reach.0);
            solved += 1;
        }
        assert!(solved >= 300, "{player:?}: solved {solved}");
        assert!(
            modular > solved * 9 / 10,
            "{player:?}: {modular} of {solved}"
        );
    }
}

/// Two players who together could keep a play going for ever, Max losing an endless play:
/// where Max can end the play from every state of its cycles, the engine's value is the
/// brute-force game value with endless plays worth zero, in exact and float arithmetic;
/// elsewhere it declines with an error, never a value.
#[test]
fn cyclic_two_players_endless_play_lost_by_max() {
    let mut rng = Rng(9);
    let (mut solved, mut declined, mut rescued) = (0, 0, 0);
    while solved + declined < 1500 {
        let inner = 2 + rng.below(8);
        let game = random_game(&mut rng, inner, Shape::Reach, &[Player::Max, Player::Min]);
        if profiles(&game) > 1 << 9 {
            continue;
        }
        let expect = crate::common::brute_force_with(&game, true).expect("a value");
        let reach = Reach(game);
        let stopping = solve_exact(&reach.0).is_ok();
        match solve_exact(&reach) {
            Ok(exact) => {
                assert_eq!(*exact.start_value(), expect, "exact value\n{:?}", reach.0);
                // Multi-modular where it applies (no cycle through both players' decisions).
                let (start, _) = Solver::new(&reach).exact_start_value().unwrap();
                assert_eq!(start, expect, "exact start value\n{:?}", reach.0);
                let float = solve(&reach).unwrap_or_else(|e| panic!("{e}\n{:?}", reach.0));
                within_bound(&exact, &float, &reach.0);
                solved += 1;
                rescued += usize::from(!stopping);
            }
            Err(err) => {
                assert!(
                    matches!(err, perfectplay::SolveError::NonStopping { .. }),
                    "{err}"
                );
                declined += 1;
            }
        }
    }
    // The endless-play rule must matter: games solved only thanks to it.
    assert!(solved > 1000, "solved {solved}, declined {declined}");
    assert!(
        rescued > 20,
        "only {rescued} solved games were not stopping ({solved} solved, {declined} declined)"
    );
}
