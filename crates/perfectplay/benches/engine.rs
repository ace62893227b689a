//! Engine benchmarks: a 10-million-state chain (deep exploration without recursion) and a
//! large cyclic ring (one big component through the sparse solver).

use perfectplay::{solve, Model, Node, Player, Rat};

fn main() {
    divan::main();
}

/// `0 -> 1 -> … -> n`: one Min move per step with reward 1.
struct Chain(u64);

impl Model for Chain {
    type State = u64;
    type Move = ();
    fn start(&self) -> u64 {
        0
    }
    fn expand(&self, s: &u64, node: &mut Node<u64, ()>) {
        if *s == self.0 {
            return node.terminal(0);
        }
        node.decision(Player::Min);
        node.add_move((), 1, s + 1);
    }
}

/// A ring of chance states, each going on with probability 1/2 or ending.
struct Ring(u32);

impl Model for Ring {
    type State = u32;
    type Move = ();
    fn start(&self) -> u32 {
        0
    }
    fn expand(&self, s: &u32, node: &mut Node<u32, ()>) {
        if *s == u32::MAX {
            return node.terminal(0);
        }
        node.chance();
        node.add_outcome((), Rat::new(1, 2), 1, (s + 1) % self.0);
        node.add_outcome((), Rat::new(1, 2), 0, u32::MAX);
    }
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn chain_10_million() -> f64 {
    let s = solve(&Chain(10_000_000)).expect("solves");
    assert_eq!(*s.start_value(), 1e7);
    *s.start_value()
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn ring_1_million_one_component() -> f64 {
    *solve(&Ring(1_000_000)).expect("solves").start_value()
}
