//! Scalable test models shared by the tests and the benchmarks.

use perfectplay::{Model, NodeBuilder, Player, Rat};

/// `0 -> 1 -> … -> n`, one Min move per step with reward 1.
pub struct Chain {
    pub n: u64,
}

impl Model for Chain {
    type State = u64;
    type Move = ();
    fn start(&self) -> u64 {
        0
    }
    fn expand(&self, s: &u64, node: &mut impl NodeBuilder<u64, ()>) {
        if *s == self.n {
            return node.terminal(0);
        }
        node.decision(Player::Min);
        node.add_move((), 1, s + 1);
    }
}

/// A ring of `n` chance states: each goes on to the next with probability 1/2 (reward 1) or
/// ends; the last returns to the first. One big cyclic component.
pub struct Ring {
    pub n: u32,
}

impl Model for Ring {
    type State = u32;
    type Move = ();
    fn start(&self) -> u32 {
        0
    }
    fn expand(&self, s: &u32, node: &mut impl NodeBuilder<u32, ()>) {
        if *s == u32::MAX {
            return node.terminal(0);
        }
        node.chance();
        node.add_outcome((), Rat::new(1, 2), 1, (s + 1) % self.n);
        node.add_outcome((), Rat::new(1, 2), 0, u32::MAX);
    }
}
