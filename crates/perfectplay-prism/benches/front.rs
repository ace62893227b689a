//! The front door on large model texts: parsing and checking (no state space to speak of) of
//! models with 100,000 constants defined in reverse order, 100,000 labels and 100,000 reward
//! structures. Each pass is linear in the text; these show it.

use perfectplay_prism::parse_program;

fn main() {
    divan::main();
}

const COIN: &str =
    "module m\n  x : [0..1] init 0;\n  [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=0);\nendmodule\n";

/// A model whose `n` constants each use the one declared after it.
fn reversed_constants(n: usize) -> String {
    let mut src = String::from("dtmc\n");
    for i in (1..n).rev() {
        src.push_str(&format!("const int c{i} = c{} + 1;\n", i - 1));
    }
    src.push_str("const int c0 = 0;\n");
    src.push_str(COIN);
    src
}

/// A model with `n` declarations made by `item`.
fn many(n: usize, item: impl Fn(usize) -> String) -> String {
    let mut src = format!("dtmc\n{COIN}");
    for i in 0..n {
        src.push_str(&item(i));
    }
    src
}

#[divan::bench(args = [10_000, 100_000], sample_count = 3, sample_size = 1)]
fn constants_in_reverse_order(bencher: divan::Bencher, n: usize) {
    let src = reversed_constants(n);
    bencher.bench(|| parse_program("many.prism", &src, &[]).unwrap());
}

#[divan::bench(args = [10_000, 100_000], sample_count = 3, sample_size = 1)]
fn labels(bencher: divan::Bencher, n: usize) {
    let src = many(n, |i| format!("label \"l{i}\" = x=1;\n"));
    bencher.bench(|| parse_program("many.prism", &src, &[]).unwrap());
}

#[divan::bench(args = [10_000, 100_000], sample_count = 3, sample_size = 1)]
fn reward_structures(bencher: divan::Bencher, n: usize) {
    let src = many(n, |i| format!("rewards \"r{i}\" x=0 : {i}; endrewards\n"));
    bencher.bench(|| parse_program("many.prism", &src, &[]).unwrap());
}
