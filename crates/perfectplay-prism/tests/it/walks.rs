//! Long random walks: a chain whose walks take many steps, too costly to eliminate, is solved
//! within a tight certified bound. The expected time for the fair walk on an `N × N` torus to
//! hit a point comes from the walk's eigenvalues (the Fourier sum over the torus), a
//! computation that shares nothing with the solver.

use crate::common::answer;

/// The torus walk of `examples/torus.prism`, from `(0, 0)`, one step earning 1.
fn torus(n: u32) -> String {
    include_str!("../../examples/torus.prism")
        .replace("const int N;", &format!("const int N = {n};"))
}

/// The expected steps of the walk on the `n × n` torus from `(0, 0)` to `(a, b)`: the sum over
/// every frequency `k ≠ 0` of `(1 - cos(2π k·(a, b) / n)) / (1 - λ_k)`, with `λ_k` the mean of
/// the two cosines of `k`.
fn hitting_time(n: u32, a: u32, b: u32) -> f64 {
    let angle = |k: u32| 2.0 * std::f64::consts::PI * f64::from(k) / f64::from(n);
    let mut sum = 0.0;
    for k1 in 0..n {
        for k2 in 0..n {
            if (k1, k2) != (0, 0) {
                let lambda = (angle(k1).cos() + angle(k2).cos()) / 2.0;
                let phase = angle((k1 * a + k2 * b) % n);
                sum += (1.0 - phase.cos()) / (1.0 - lambda);
            }
        }
    }
    sum
}

#[test]
fn a_long_walk_on_a_torus_is_solved_within_a_tight_bound() {
    let (n, a, b) = (100, 30, 71);
    let (value, _, method, bound) = answer(&torus(n), &format!("R=? [ F x={a} & y={b} ]"), false);
    let expected = hitting_time(n, a, b);
    assert!(expected > 10_000.0, "{expected}");
    assert!(
        (value - expected).abs() <= bound + 1e-10 * expected,
        "{value} against {expected}, bound {bound:e} ({method})"
    );
    assert!(bound > 0.0 && bound <= 1e-9 * expected, "{bound:e}");
}
