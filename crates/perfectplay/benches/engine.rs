//! Engine benchmarks: a 10-million-state chain (deep exploration without recursion) and a
//! large cyclic ring (one big component through the sparse solver).

use perfectplay::solve;

#[path = "../tests/it/common/models.rs"]
mod models;
use models::{Chain, Ring};

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn chain_10_million() -> f64 {
    let s = solve(&Chain { n: 10_000_000 }).expect("solves");
    assert_eq!(*s.start_value(), 1e7);
    *s.start_value()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn ring_1_million_one_component() -> f64 {
    *solve(&Ring { n: 1_000_000 }).expect("solves").start_value()
}
