//! The game that finds the reachable states where a condition holds ([`ReachModel`]), for a
//! filter over other states than the initial ones.

use std::fmt::Debug;
use std::hash::Hash;

use perfectplay::{Model, NodeBuilder, Player};

use perfectplay::dynamic::DynModel;

use crate::analysis::error::AnalysisError;
use crate::analysis::query::INITIAL_STATES;
use crate::build::lazy::{state_bits, Stepper};
use crate::build::packed::Word;
use crate::build::BuildError;
use crate::program::{CExpr, Program};

use super::{encode_packed, packed_words};

/// A state of [`ReachModel`]'s game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Reach<K> {
    /// The choice among several initial states.
    Start,
    /// A state of the model, on the way.
    At(K),
    /// A state of the model that satisfies the condition: found.
    Found(K),
}

/// The game that finds the reachable states where a condition holds (the states of a filter),
/// for an exploration across processes that collects its terminals: every state of the model
/// is a decision among its successors (probabilities play no part), and one that satisfies
/// the condition may also stop there, which is a terminal that names it. A state with no
/// successor but itself loops, so that the only terminals are the states found.
pub(crate) struct ReachModel<K> {
    stepper: Stepper<K>,
    initial: Vec<K>,
    states: Option<CExpr>,
}

impl<K: Word + Debug + Send + Sync> ReachModel<K> {
    /// State `s`'s node into `node`, or the reason it cannot be given.
    fn expand_state(&self, s: K, node: &mut impl NodeBuilder<Reach<K>, u32>) -> Result<(), String> {
        let here = || self.stepper.show(&s);
        let found = match &self.states {
            None => true,
            Some(c) => {
                let mut vals = Vec::new();
                self.stepper.values(&s, &mut vals);
                c.holds(&vals)
                    .map_err(|e| format!("in state {}: {e}", here()))?
            }
        };
        let mut next: Vec<K> = self
            .stepper
            .expand(s, |ex| {
                let mut next: Vec<K> = Vec::with_capacity(ex.dist.len());
                for &(_, t) in &ex.dist {
                    if !next.contains(&t) {
                        next.push(t);
                    }
                }
                next
            })
            .map_err(|e| e.to_string())?;
        node.decision(Player::Max);
        if found {
            node.add_move(0, 0, Reach::Found(s));
        }
        if next.is_empty() {
            next.push(s);
        }
        for (i, t) in next.into_iter().enumerate() {
            node.add_move(i as u32 + 1, 0, Reach::At(t));
        }
        Ok(())
    }
}

impl<K: Word + Debug + Send + Sync> Model for ReachModel<K> {
    type State = Reach<K>;
    type Move = u32;

    fn start(&self) -> Reach<K> {
        match self.initial[..] {
            [only] => Reach::At(only),
            _ => Reach::Start,
        }
    }

    fn expand(&self, state: &Reach<K>, node: &mut impl NodeBuilder<Reach<K>, u32>) {
        match *state {
            Reach::Start => {
                node.decision(Player::Max);
                for (i, &s) in self.initial.iter().enumerate() {
                    node.add_move(i as u32, 0, Reach::At(s));
                }
            }
            Reach::At(s) => {
                if let Err(reason) = self.expand_state(s, node) {
                    node.fail(reason);
                }
            }
            Reach::Found(_) => node.terminal(0),
        }
    }

    fn show_state(&self, state: &Reach<K>) -> String {
        match state {
            Reach::Start => INITIAL_STATES.to_string(),
            Reach::At(s) | Reach::Found(s) => self.stepper.show(s),
        }
    }

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &Reach<K>, out: &mut Vec<u8>) {
        match state {
            Reach::Start => out.push(0),
            Reach::At(s) => encode_packed(1, s, out),
            Reach::Found(s) => encode_packed(2, s, out),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<Reach<K>> {
        let (&tag, rest) = bytes.split_first()?;
        if tag == 0 {
            return rest.is_empty().then_some(Reach::Start);
        }
        let words = packed_words(rest, K::WORDS)?;
        if !self.stepper.is_state(&words) {
            return None;
        }
        let s = K::load(&words);
        match tag {
            1 => Some(Reach::At(s)),
            2 => Some(Reach::Found(s)),
            _ => None,
        }
    }
}

/// The game that finds the reachable states of `program` where `states` holds (every one
/// where it is `None`), for a filter across processes; see [`ReachModel`]. The terminals its
/// exploration collects are the states to give [`across_model`](super::across_model).
pub(crate) fn reach_model(
    program: Program,
    states: Option<CExpr>,
) -> Result<Box<dyn DynModel>, AnalysisError> {
    fn of<K: Word + Debug + Send + Sync + 'static>(
        program: Program,
        states: Option<CExpr>,
    ) -> Result<Box<dyn DynModel>, AnalysisError> {
        let stepper = Stepper::<K>::new(program);
        let initial = stepper.initial()?;
        Ok(Box::new(ReachModel {
            stepper,
            initial,
            states,
        }))
    }
    by_width!(&program, of(program, states))
}
