//! Models seen through their states' bytes ([`Model::encode_state`]): what a solve that moves
//! states between processes works with. It knows no state type: a state is the bytes its
//! model wrote, a node its kind, payoff and branches, the branches' next states again bytes.
//!
//! Every [`Model`] whose states can be shared between threads is an [`EncodedModel`]; one
//! that does not encode its states answers every call with an error that says so.

use std::ops::Range;

use crate::{Model, Node, NodeKind, Player, Rat, SolveError};

/// A model seen through its states' bytes. Implemented for every [`Model`] (see the module
/// documentation); the distributed solve takes it as `&dyn EncodedModel`.
pub trait EncodedModel: Send + Sync {
    /// Whether the model encodes its states ([`Model::encodes_states`]).
    fn encodes(&self) -> bool;

    /// The start state's bytes.
    fn start(&self) -> Result<Vec<u8>, SolveError>;

    /// Describes the state that `state` encodes into `node` (cleared first), checked as the
    /// engine checks every node: an invalid node or bytes that encode no state are
    /// [`SolveError::InvalidModel`].
    fn expand(&self, state: &[u8], node: &mut EncodedNode) -> Result<(), SolveError>;

    /// The state `state` encodes, as the model shows it (for errors and answers).
    fn show(&self, state: &[u8]) -> String;

    /// Who loses a play that never ends ([`Model::endless_play_loser`]).
    fn endless_play_loser(&self) -> Option<Player>;
}

/// The error of a model that cannot move its states between processes.
fn no_encoding() -> SolveError {
    SolveError::Unsupported(
        "this game does not write its states as bytes (Model::encode_state), which a solve \
         across processes needs"
            .to_string(),
    )
}

impl<M> EncodedModel for M
where
    M: Model + Send + Sync,
{
    fn encodes(&self) -> bool {
        self.encodes_states()
    }

    fn start(&self) -> Result<Vec<u8>, SolveError> {
        if !self.encodes_states() {
            return Err(no_encoding());
        }
        let mut out = Vec::new();
        self.encode_state(&self.start(), &mut out);
        Ok(out)
    }

    fn expand(&self, state: &[u8], node: &mut EncodedNode) -> Result<(), SolveError> {
        if !self.encodes_states() {
            return Err(no_encoding());
        }
        let s = self
            .decode_state(state)
            .ok_or_else(|| SolveError::InvalidModel {
                state: format!("{state:?}"),
                reason: "these bytes encode no state of the game (Model::decode_state)".to_string(),
            })?;
        let mut full: Node<M::State, M::Move> = Node::new();
        Model::expand(self, &s, &mut full);
        full.validate().map_err(|reason| SolveError::InvalidModel {
            state: self.show_state(&s),
            reason,
        })?;
        node.clear();
        node.kind = full.kind();
        node.payoff = full.payoff();
        let encode =
            |node: &mut EncodedNode,
             reward: Rat,
             outcomes: &mut dyn Iterator<Item = (Rat, Rat, &M::State)>| {
                let first = node.outcomes.len() as u32;
                for (probability, reward, next) in outcomes {
                    let from = node.bytes.len() as u32;
                    self.encode_state(next, &mut node.bytes);
                    node.outcomes.push(EncodedOutcome {
                        probability,
                        reward,
                        next: from..node.bytes.len() as u32,
                    });
                }
                node.choices.push(EncodedChoice {
                    reward,
                    outcomes: first..node.outcomes.len() as u32,
                });
            };
        match full.kind() {
            NodeKind::Decision(_) => {
                for mv in full.moves() {
                    let mut outcomes = mv
                        .outcomes
                        .iter()
                        .map(|b| (b.probability, b.reward, &b.next));
                    encode(node, mv.reward, &mut outcomes);
                }
            }
            NodeKind::Chance => {
                let mut outcomes = full
                    .branches()
                    .iter()
                    .map(|b| (b.probability, b.reward, &b.next));
                encode(node, Rat::ZERO, &mut outcomes);
            }
            _ => {}
        }
        Ok(())
    }

    fn show(&self, state: &[u8]) -> String {
        match self.decode_state(state) {
            Some(s) => self.show_state(&s),
            None => format!("{state:?}"),
        }
    }

    fn endless_play_loser(&self) -> Option<Player> {
        Model::endless_play_loser(self)
    }
}

/// A node described through bytes: its kind, a terminal's payoff, and its choices (a
/// decision's moves, or a chance node's one draw), each with the outcomes it leads to.
#[derive(Clone, Debug)]
pub struct EncodedNode {
    kind: NodeKind,
    payoff: Rat,
    choices: Vec<EncodedChoice>,
    outcomes: Vec<EncodedOutcome>,
    bytes: Vec<u8>,
}

/// A move of a decision, or the draw of a chance node.
#[derive(Clone, Debug)]
pub struct EncodedChoice {
    /// The reward collected before any outcome (a random move's own reward; zero otherwise).
    pub reward: Rat,
    outcomes: Range<u32>,
}

/// An outcome of a choice: a plain move has one, with probability one.
#[derive(Clone, Debug)]
pub struct EncodedOutcome {
    /// Its exact probability.
    pub probability: Rat,
    /// The reward collected on the way.
    pub reward: Rat,
    next: Range<u32>,
}

impl Default for EncodedNode {
    fn default() -> Self {
        EncodedNode {
            kind: NodeKind::Unset,
            payoff: Rat::ZERO,
            choices: Vec::new(),
            outcomes: Vec::new(),
            bytes: Vec::new(),
        }
    }
}

impl EncodedNode {
    /// An empty node.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the node, keeping its buffers.
    pub fn clear(&mut self) {
        self.kind = NodeKind::Unset;
        self.payoff = Rat::ZERO;
        self.choices.clear();
        self.outcomes.clear();
        self.bytes.clear();
    }

    /// The kind of node.
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// The player of a decision, `None` elsewhere.
    pub fn player(&self) -> Option<Player> {
        match self.kind {
            NodeKind::Decision(p) => Some(p),
            _ => None,
        }
    }

    /// A terminal node's payoff (zero otherwise).
    pub fn payoff(&self) -> Rat {
        self.payoff
    }

    /// The choices: a decision's moves in order, or a chance node's one draw; none at a
    /// terminal.
    pub fn choices(&self) -> &[EncodedChoice] {
        &self.choices
    }

    /// The outcomes of `choice`.
    pub fn outcomes(&self, choice: &EncodedChoice) -> &[EncodedOutcome] {
        &self.outcomes[choice.outcomes.start as usize..choice.outcomes.end as usize]
    }

    /// The bytes of the state an outcome leads to.
    pub fn next(&self, outcome: &EncodedOutcome) -> &[u8] {
        &self.bytes[outcome.next.start as usize..outcome.next.end as usize]
    }
}

/// Reads the fixed-width little-endian numbers that models write with
/// [`Model::encode_state`] (`out.extend_from_slice(&x.to_le_bytes())`), failing on bytes too
/// short, and on bytes left over at [`finish`](Reader::finish).
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    fn take<const K: usize>(&mut self) -> Option<[u8; K]> {
        let (head, rest) = self.rest.split_first_chunk::<K>()?;
        self.rest = rest;
        Some(*head)
    }

    /// The next byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }

    /// The next `u16`.
    pub fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }

    /// The next `u32`.
    pub fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }

    /// The next `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }

    /// The next `u128`.
    pub fn u128(&mut self) -> Option<u128> {
        self.take().map(u128::from_le_bytes)
    }

    /// `value` if every byte was read, `None` if some are left.
    pub fn finish<T>(self, value: T) -> Option<T> {
        self.rest.is_empty().then_some(value)
    }
}
