//! The model API: what a user implements to describe a game.
//!
//! A game is a [`Model`]: a start state and, for every state, a [`Node`] that says what happens
//! there. A node is one of
//! - **terminal**, with a payoff;
//! - a **decision** of [`Player::Max`] or [`Player::Min`] among labelled moves; a move may be
//!   *random* ([`NodeBuilder::add_random_move`]): chance then draws its outcome, as with a PRISM
//!   action, without a separate chance state;
//! - **chance** over labelled outcomes with exact probabilities.
//!
//! Every move and outcome may carry a step reward that adds to the total. The value of a state is
//! the optimal expected total from it: Max maximises, Min minimises, chance averages.

use std::fmt::Debug;
use std::hash::Hash;

use crate::Rat;

/// The two players. A one-player game uses only one of them; a zero-sum two-player game uses
/// both; a cooperative game gives every decision to the same player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Chooses moves that maximise the expected total.
    Max,
    /// Chooses moves that minimise the expected total.
    Min,
}

impl Player {
    /// Whether `a` is strictly better than `b` for this player.
    pub fn prefers<T: PartialOrd>(self, a: &T, b: &T) -> bool {
        match self {
            Player::Max => a > b,
            Player::Min => a < b,
        }
    }

    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::Max => Player::Min,
            Player::Min => Player::Max,
        }
    }
}

/// A game described state by state. See the crate documentation for a complete example.
///
/// # Contract
/// - `expand` is a pure function of the state: the same state always gives the same node, with
///   its branches in the same order. The engine may call it more than once for a state (to
///   explain a solved position, for instance).
/// - States are compared with `Eq` and `Hash`; two equal states must have equal futures.
/// - **Symmetry reduction.** A model may return *canonical* successors (for example, a sorted
///   multiset instead of a sequence) so that symmetric positions become one state. This is sound
///   when every state it maps together has the same value and the same moves up to relabelling;
///   the engine then solves the quotient game, which has the same value at the start.
/// - The set of states reachable from the start must be finite. Use
///   [`Solver::max_states`](crate::Solver::max_states) to guard against mistakes.
///
/// # The hooks
/// Two methods are required: [`start`](Model::start) and [`expand`](Model::expand). The rest
/// are optional and come in four groups:
/// - **display**: [`show_state`](Model::show_state), [`show_move`](Model::show_move),
///   [`parse_state`](Model::parse_state), [`player_label`](Model::player_label),
///   [`total_name`](Model::total_name) and [`show_end`](Model::show_end), for errors,
///   explanations, exports, play and plots;
/// - **numbering**: [`dense_bound`](Model::dense_bound) and [`dense_index`](Model::dense_index),
///   which spare the engine its hashing;
/// - **sweep order**: [`sweep_len`](Model::sweep_len), [`sweep_state`](Model::sweep_state),
///   [`sweep_window`](Model::sweep_window) and [`transient`](Model::transient), which let the
///   start value be computed as a hand-written dynamic program would (see
///   [`Solver::start_value`](crate::Solver::start_value)).
///
/// - **semantics**: [`endless_play_loser`](Model::endless_play_loser), for games whose two
///   players could keep a play going for ever.
///
/// The optional groups are provided methods of this trait, not traits of their own, because
/// the solver decides at run time whether a model offers them: without specialisation a
/// separate trait could only be reached through a trait object, and `dense_index` and
/// `transient` are called for every successor, where a call that cannot be inlined costs more
/// than the rest of the step. A model that offers none of them is just the two methods.
pub trait Model {
    /// A position of the game. It is cloned when interned and kept for the whole solve, so keep
    /// it small.
    type State: Clone + Eq + Hash + Debug;
    /// The label of a move or of a chance outcome (for example a die face or `"re-roll"`).
    type Move: Clone + Debug;

    /// The start state.
    fn start(&self) -> Self::State;

    /// Describes `state` by filling `node`, which arrives empty.
    ///
    /// Call exactly one of [`NodeBuilder::terminal`], [`NodeBuilder::decision`] or
    /// [`NodeBuilder::chance`], then add moves or outcomes. A decision must have at least one
    /// move; the probabilities of a chance node must lie in (0, 1] and sum to exactly one. The
    /// engine rejects anything else with an error that names the state, and never normalises.
    fn expand(&self, state: &Self::State, node: &mut impl NodeBuilder<Self::State, Self::Move>);

    /// A readable description of `state`, used in errors, explanations and exports. The
    /// default is the `Debug` form.
    fn show_state(&self, state: &Self::State) -> String {
        format!("{state:?}")
    }

    /// A readable description of a move or outcome label. The default is the `Debug` form.
    fn show_move(&self, mv: &Self::Move) -> String {
        format!("{mv:?}")
    }

    /// How the game names `player`, as play and explanations show it (`"A"`, `"Alice"`, `"the
    /// first player"`). The default, `None`, leaves front ends to say `max` or `min`.
    fn player_label(&self, player: Player) -> Option<String> {
        let _ = player;
        None
    }

    /// What the total of a play counts, in a few words (`"moves"`, `"rolls"`, `"first player
    /// wins"`), for the axis of a plot and the end of a played game. The default, `None`,
    /// leaves front ends to say "total".
    fn total_name(&self) -> Option<String> {
        None
    }

    /// How a play that ended in the terminal state `end`, having scored `total` in all (the
    /// step rewards along it and the payoff of `end`), is told in the game's terms (`"A wins"`,
    /// `"all pairs found in 12 moves"`). The default, `None`, leaves front ends to show the
    /// state and the total.
    fn show_end(&self, end: &Self::State, total: Rat) -> Option<String> {
        let _ = (end, total);
        None
    }

    /// An optional numbering of the states, which the engine then uses instead of hashing them
    /// (faster for large games). Return the number of possible numbers here and implement
    /// [`dense_index`](Model::dense_index); the default, `0`, means "no numbering".
    ///
    /// The engine allocates one `u32` per possible number, so keep the bound within a few times
    /// the number of reachable states.
    fn dense_bound(&self) -> usize {
        0
    }

    /// The number of `state`, below [`dense_bound`](Model::dense_bound), when the model offers
    /// a numbering. Different reachable states must get different numbers; the engine checks
    /// this (and the bound) and reports a violation as [`SolveError::InvalidModel`](crate::SolveError::InvalidModel).
    fn dense_index(&self, state: &Self::State) -> Option<usize> {
        let _ = state;
        None
    }

    /// An optional order in which the value of the start state can be computed without
    /// exploring, as a hand-written dynamic program would: return the number of ranks here and
    /// implement [`sweep_state`](Model::sweep_state); the default, `0`, means "no order".
    ///
    /// Used only together with a numbering ([`dense_bound`](Model::dense_bound)), and only
    /// where just the start value is asked for ([`Solver::start_value`](crate::Solver::start_value),
    /// the command line's `solve`); everything else explores.
    fn sweep_len(&self) -> usize {
        0
    }

    /// The state at `rank` of the sweep order (below [`sweep_len`](Model::sweep_len)), or
    /// `None` for a rank that is no state.
    ///
    /// The order must give every state reachable from the start exactly once, and put every
    /// state after all of its successors (so a game with cycles has no such order). It may
    /// give unreachable states too: they are solved and counted like the others. The engine
    /// checks, as it goes, that every successor was solved earlier in the sweep, that no
    /// number is given twice and that the start state is among them, and reports a violation as
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel).
    fn sweep_state(&self, rank: usize) -> Option<Self::State> {
        let _ = rank;
        None
    }

    /// An optional hint for an order with runs of empty ranks (a power-of-two stride per
    /// row, say): the rank where the sweep goes on after `rank`, which held no state
    /// ([`sweep_state`](Model::sweep_state) gave `None`). Every rank in between must hold no
    /// state either. The default, `rank + 1`, tries every rank; a jump saves the sweep from
    /// asking for each empty rank in turn. A value not above `rank` counts as `rank + 1`.
    ///
    /// A jump over a rank that holds a state is caught as the order's other faults are: a
    /// successor or the start state that the sweep never gave is
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel).
    fn sweep_resume(&self, rank: usize) -> usize {
        rank + 1
    }

    /// An optional bound that lets a sweep keep only its latest values, as a dynamic program
    /// that keeps only its last rows: `w > 0` promises that the numbers
    /// ([`dense_index`](Model::dense_index)) of the states increase along the sweep order and
    /// that every successor's number is less than `w` below its state's. The sweep then keeps
    /// the values of the last `w` numbers or more (and the start's), not one per number below
    /// [`dense_bound`](Model::dense_bound): less memory, and values that stay in the cache.
    /// The default, `0`, keeps them all, as does a sweep on several threads
    /// ([`Solver::threads`](crate::Solver::threads)).
    ///
    /// The engine checks both promises as it goes: a number that does not increase, or a
    /// successor whose value is no longer kept, is
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel), never a wrong value.
    fn sweep_window(&self) -> usize {
        0
    }

    /// An optional hint for the sweep ([`sweep_len`](Model::sweep_len)): a *transient* state is
    /// solved inside each state that leads to it, expanded where it is reached, instead of
    /// being numbered, listed in the sweep order and stored, as model checkers eliminate
    /// vanishing states. It suits a state reached from one state only, such as the position
    /// after the first card of a move: the sweep then has fewer states to list, number and
    /// keep. A transient state reached from several states is expanded once for each.
    ///
    /// A transient state needs no number ([`dense_index`](Model::dense_index) is not asked) and
    /// is left out of the sweep order (given there, it is swept like any other). Its successors
    /// must be solved before the state that reaches it, or be transient themselves, at most
    /// [`MAX_TRANSIENT_DEPTH`] deep; more is
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel) (a cycle of transient
    /// states, say). The sweep order must still give the start state. Exploration, and
    /// everything but the sweep, treats transient states as ordinary ones, so values are the
    /// same either way. The default: no state is transient.
    fn transient(&self, state: &Self::State) -> bool {
        let _ = state;
        false
    }

    /// Whether the model marks turn-local states ([`turn_of`](Model::turn_of)). The default,
    /// `false`, keeps every state; `true` lets [`Solver::start_value`](crate::Solver::start_value),
    /// [`Solver::exact_start_value`](crate::Solver::exact_start_value) and the front ends'
    /// solves ([`DynModel`](crate::dynamic::DynModel)) store values only for *kept* states.
    fn has_turns(&self) -> bool {
        false
    }

    /// Turn-local states: `Some(k)` says that `state` is *local* to the turn that the kept
    /// state `k` starts; `None` (the default) says that `state` is *kept*. Used only where
    /// [`has_turns`](Model::has_turns) is true.
    ///
    /// Games of chance often have a "turn" of private randomness: in Yahtzee, the rolls and
    /// keeps between two filled boxes; in Pig, the rolls before a hold. The turn starts are
    /// few, the positions inside turns many. With this hook the engine finds the graph of the
    /// kept states, solves each kept state's turn (the kept state and every local state its
    /// turn reaches) in scratch storage that it drops afterwards, with the values of the kept
    /// states the turn leads to, and stores values for kept states only. Turns that do not
    /// depend on each other are solved on several threads ([`Solver::threads`](crate::Solver::threads))
    /// with the same bits as one. Kept states may form cycles (two players passing the turn,
    /// as in Pig): a strongly connected set of kept states is solved with the local states of
    /// all its turns together. A cycle inside a turn is solved as any cycle is.
    ///
    /// Rules, checked as the engine goes ([`SolveError::InvalidModel`](crate::SolveError::InvalidModel)
    /// names the state): the start state is kept; a local state is reached only inside its own
    /// turn (from its kept state `k` or from states local to `k`); `k` itself is kept. Terminal
    /// states reached from several turns must therefore be kept. The values are those of the
    /// game without the hook: the hook changes what is stored, not what is solved.
    ///
    /// ```
    /// # use perfectplay::{Model, NodeBuilder, Player, Rat, Solver};
    /// /// Three turns; in each, roll a die up to twice and bank the last roll.
    /// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// struct S { turn: u8, rolls: u8, die: u8 }
    /// struct Dice;
    /// impl Model for Dice {
    ///     type State = S;
    ///     type Move = String;
    ///     fn start(&self) -> S { S { turn: 0, rolls: 0, die: 0 } }
    ///     fn expand(&self, s: &S, node: &mut impl NodeBuilder<S, String>) {
    ///         if s.turn == 3 { return node.terminal(0) }
    ///         let next_turn = S { turn: s.turn + 1, rolls: 0, die: 0 };
    ///         node.decision(Player::Max);
    ///         if s.rolls > 0 { node.add_move("bank".into(), s.die as i64, next_turn) }
    ///         if s.rolls < 2 {
    ///             node.add_random_move("roll".into(), 0);
    ///             for d in 1..=6 {
    ///                 let next = S { turn: s.turn, rolls: s.rolls + 1, die: d };
    ///                 node.add_outcome(d.to_string(), Rat::new(1, 6), 0, next);
    ///             }
    ///         }
    ///     }
    ///     fn has_turns(&self) -> bool { true }
    ///     fn turn_of(&self, s: &S) -> Option<S> {
    ///         (s.rolls > 0).then(|| S { turn: s.turn, rolls: 0, die: 0 })
    ///     }
    /// }
    /// let (value, stats) = Solver::new(&Dice).start_value::<f64>().unwrap();
    /// // Keep a 4, 5 or 6 of the first roll, else roll again: 4.25 a turn.
    /// assert!((value - 12.75).abs() < 1e-12);
    /// // Four kept states (the turn starts and the end); the rolls were never stored.
    /// assert!(matches!(stats.method, perfectplay::Method::Turns { kept: 4, .. }));
    /// ```
    fn turn_of(&self, state: &Self::State) -> Option<Self::State> {
        let _ = state;
        None
    }

    /// An optional numbering of the local states of one turn ([`turn_of`](Model::turn_of)),
    /// which spares the engine its hashing when it solves a turn: return the number of
    /// possible numbers here and implement [`turn_index`](Model::turn_index); the default,
    /// `0`, means "no numbering". The engine allocates one `u32` per number for each turn it
    /// solves at a time, so keep it near the size of a turn.
    fn turn_bound(&self) -> usize {
        0
    }

    /// The number of the local state `state` within its turn, below
    /// [`turn_bound`](Model::turn_bound): different local states of one turn get different
    /// numbers (states of different turns may share one). `None` leaves the state to hashing
    /// (kept states always are). The engine checks the numbers and reports a violation as
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel).
    fn turn_index(&self, state: &Self::State) -> Option<usize> {
        let _ = state;
        None
    }

    /// Turns alike: kept states whose turns have the same local moves get the same `Some`
    /// shape, and the engine then solves all of them on one copy of the turn's local graph,
    /// expanding in each turn only the kept state and the local states with branches that
    /// leave the turn (its *sites*). The default, `None`, shares nothing. Needs
    /// [`turn_index`](Model::turn_index) on every local state and
    /// [`turn_state`](Model::turn_state).
    ///
    /// The promise, for two kept states `a` and `b` of one shape that do not end the game:
    /// their turns have the same local states by number (the local state numbered `i` in `a`'s
    /// turn is reached exactly when the one numbered `i` in `b`'s is); `a` and `b`, and each
    /// pair of local states of one number, are the same kind of node whose branches within the
    /// turn are the same (in the same order, to the same numbers, with the same probabilities
    /// and rewards); and the same local states have branches that leave the turn (to kept
    /// states). Those branches may differ from turn to turn in number, place, target and
    /// reward: turns that differ only in how they end, such as Yahtzee's (the dice are rolled
    /// and kept alike, the card decides where a hand may go), share a shape. The engine checks
    /// every state it expands whole against the copy and names one that breaks the promise
    /// ([`SolveError::InvalidModel`](crate::SolveError::InvalidModel)); a local state without
    /// branches out of the turn is not expanded again, and a decision that gives its moves out
    /// of the turn alone ([`expand_exits`](Model::expand_exits)) shows nothing of its other
    /// moves, so neither can be checked. The values are
    /// the same bits as without shapes. A shape whose turn has a cycle of local states, or a
    /// local state without a number, is solved as if it had none; so is a turn whose kept
    /// state leads back to itself.
    fn turn_shape(&self, kept: &Self::State) -> Option<u64> {
        let _ = kept;
        None
    }

    /// The moves of the decision `state` that leave its turn, and only those: where a turn has
    /// a shape ([`turn_shape`](Model::turn_shape)) and its template finds that every branch of
    /// `state` out of the turn is a plain move to a kept state, the engine asks for these moves
    /// alone in every other turn, and takes the moves that stay in the turn from the template.
    /// Fill `node` as [`expand`](Model::expand) would (the same decision, those moves in the
    /// same order) and return `true`; the default returns `false`, and the engine expands the
    /// state whole. A game whose decisions inside a turn have many moves within it and a few
    /// out of it (Yahtzee's: keep any of 31 sets of dice, or score in one of the open boxes)
    /// spares most of its expansions so.
    fn expand_exits(
        &self,
        state: &Self::State,
        node: &mut impl NodeBuilder<Self::State, Self::Move>,
    ) -> bool {
        let _ = (state, node);
        false
    }

    /// Local states that leave the turn alike: where the moves that
    /// [`expand_exits`](Model::expand_exits) gives at the local state numbered `index` are, in
    /// every turn of the shape of `kept`, the same as at every other local state of the same
    /// `Some` class (the same moves to the same kept states with the same rewards, in the same
    /// order), the engine expands one state of each class per turn. Yahtzee's hand leaves the
    /// turn the same way after each of the three rolls (the boxes it may go in are the same),
    /// so the hand is the class. The default, `None`, expands every such state. The engine
    /// checks the promise on the turn it builds its template from.
    fn exit_class(&self, kept: &Self::State, index: usize) -> Option<u32> {
        let _ = (kept, index);
        None
    }

    /// The local state numbered `index` ([`turn_index`](Model::turn_index)) in the turn of the
    /// kept state `kept`, where such a state can be: the inverse of `turn_index`, used with
    /// [`turn_shape`](Model::turn_shape). The default, `None`, turns shapes off.
    fn turn_state(&self, kept: &Self::State, index: usize) -> Option<Self::State> {
        let _ = (kept, index);
        None
    }

    /// Who loses a play that never ends, where two players together could keep a play going
    /// for ever (a cycle through both players' decisions). The default, `None`, allows no such
    /// cycle: every pair of strategies must end the play with probability one, and a cycle that
    /// does not is [`SolveError::NonStopping`](crate::SolveError::NonStopping).
    ///
    /// `Some(p)` says an endless play is the worst outcome for `p`, as in a reachability game,
    /// where a play that never reaches the goal is worth nothing to the player who wants it.
    /// The value is then the best that `p` can guarantee while ending the play. `p` must be able
    /// to end the play, with probability one, from every state of such a cycle; where the other
    /// player can keep it going for ever, the value (the worst for `p`, whatever the cycle earns)
    /// is not computed: [`SolveError::NonStopping`](crate::SolveError::NonStopping) names the
    /// state. A model that can say so decides those states before (a model checker's
    /// qualitative analysis does).
    fn endless_play_loser(&self) -> Option<Player> {
        None
    }

    /// Parses a state written in the game's own notation (the inverse of
    /// [`show_state`](Model::show_state) where the game supports it). The default says the
    /// game has no notation.
    fn parse_state(&self, text: &str) -> Result<Self::State, String> {
        let _ = text;
        Err("this game has no state notation".to_string())
    }

    /// Whether the model writes its states as bytes and reads them back
    /// ([`encode_state`](Model::encode_state), [`decode_state`](Model::decode_state)). Solves
    /// that move states between processes (the distributed solve) need it; the default,
    /// `false`, makes them refuse the model with an error that says so. Everything else works
    /// without it.
    fn encodes_states(&self) -> bool {
        false
    }

    /// Appends `state` to `out` as bytes that [`decode_state`](Model::decode_state) reads back
    /// to an equal state. Equal states must give equal bytes (the bytes are hashed to decide
    /// which process owns a state), and the bytes may depend only on the state and on the
    /// model's parameters, so that every process built from the same command writes the same.
    /// Used only where [`encodes_states`](Model::encodes_states) is true.
    fn encode_state(&self, state: &Self::State, out: &mut Vec<u8>) {
        let _ = (state, out);
    }

    /// The state that `bytes` encodes, as [`encode_state`](Model::encode_state) wrote it, or
    /// `None` for bytes that encode no state.
    fn decode_state(&self, bytes: &[u8]) -> Option<Self::State> {
        let _ = bytes;
        None
    }
}

/// How many transient states ([`Model::transient`]) a sweep expands one inside another.
pub const MAX_TRANSIENT_DEPTH: u32 = 64;

/// One branch of a node: a move of a decision, an outcome of chance, or an outcome of a random
/// move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch<S, M> {
    /// The move or outcome label.
    pub label: M,
    /// The probability of an outcome; one for a move.
    pub probability: Rat,
    /// The step reward collected on this branch.
    pub reward: Rat,
    /// The state this branch leads to.
    pub next: S,
    /// The move the branch belongs to: at a decision, the index of its move (a random move has
    /// one branch per outcome); at a chance node, zero.
    pub group: u32,
}

/// A move whose result is drawn by chance (see [`NodeBuilder::add_random_move`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct RandomMove<M> {
    group: u32,
    label: M,
    reward: Rat,
}

/// One move of a decision, as [`Node::moves`] lists them.
#[derive(Debug, PartialEq, Eq)]
pub struct Move<'a, S, M> {
    /// The move's position among the decision's moves (what [`Solution::chosen`](crate::Solution::chosen) returns).
    pub index: usize,
    /// Its label.
    pub label: &'a M,
    /// The reward of the move itself, collected before any outcome (zero for a plain move,
    /// whose reward is on its one branch).
    pub reward: Rat,
    /// The branches it leads to: one with probability one for a plain move, the outcomes for a
    /// random move.
    pub outcomes: &'a [Branch<S, M>],
    /// Whether the move's result is drawn by chance.
    pub random: bool,
}

/// What kind of node a state is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Not set yet (a model that sets no kind is rejected).
    Unset,
    /// The game is over; the payoff is in [`Node::payoff`].
    Terminal,
    /// A player chooses one of the moves.
    Decision(Player),
    /// Chance picks an outcome with its probability.
    Chance,
}

/// The calls by which [`Model::expand`] describes a state: its kind, then its moves or
/// outcomes.
///
/// Call exactly one of [`terminal`](NodeBuilder::terminal),
/// [`decision`](NodeBuilder::decision) or [`chance`](NodeBuilder::chance), then add moves or
/// outcomes. [`Node`] records what it is told (for exploring, explaining and checking); the
/// engine's sweep ([`Model::sweep_len`]) uses a builder of its own that backs the state up as
/// the branches arrive and stores none of them. A model sees only these calls, so it works
/// with both. The trait is sealed: only this crate implements it.
pub trait NodeBuilder<S, M>: sealed::Sealed {
    /// Makes this a terminal state with the given payoff.
    fn terminal(&mut self, payoff: impl Into<Rat>);

    /// Makes this a decision of `player`; add the moves with
    /// [`add_move`](NodeBuilder::add_move) or [`add_random_move`](NodeBuilder::add_random_move).
    fn decision(&mut self, player: Player);

    /// Makes this a chance node; add the outcomes with [`add_outcome`](NodeBuilder::add_outcome).
    fn chance(&mut self);

    /// Adds a move of a decision, collecting `reward` on the way to `next`.
    fn add_move(&mut self, mv: M, reward: impl Into<Rat>, next: S);

    /// Adds a move whose result is drawn by chance ("roll the die", "turn a card"), collecting
    /// `reward` when it is played; add its outcomes next with
    /// [`add_outcome`](NodeBuilder::add_outcome). This describes in one state what would
    /// otherwise take a chance state after the move, and the engine solves it without that
    /// extra state.
    fn add_random_move(&mut self, mv: M, reward: impl Into<Rat>);

    /// Adds an outcome with its exact probability, collecting `reward` on the way to `next`:
    /// an outcome of a chance node, or of the random move added last to a decision.
    fn add_outcome(&mut self, label: M, probability: Rat, reward: impl Into<Rat>, next: S);

    /// Says that the state cannot be described, for the model's own reason (an expression it
    /// cannot evaluate in this state, a rule the state breaks): the engine stops with
    /// [`SolveError::InvalidModel`](crate::SolveError::InvalidModel), naming the state and
    /// `reason`, whatever else was called.
    fn fail(&mut self, reason: impl Into<String>);
}

/// Keeps [`NodeBuilder`] implemented only here, so that methods can be added to it.
pub(crate) mod sealed {
    pub trait Sealed {}
}

impl<S, M> sealed::Sealed for Node<S, M> {}

/// What every builder keeps of a node besides its branches: the kind, the count of moves and
/// branches, the first misuse of the calls, and the quick check of the distributions. It
/// decides whether a node is plainly valid; anything else is left to [`Node`]'s detailed
/// check, which names the fault.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    kind: NodeKind,
    moves: u32,
    branches: u32,
    misuse: Option<&'static str>,
    tally: Tally,
}

impl Shape {
    /// An empty node.
    pub(crate) const FRESH: Shape = Shape {
        kind: NodeKind::Unset,
        moves: 0,
        branches: 0,
        misuse: None,
        tally: Tally::FRESH,
    };

    /// The kind set so far.
    #[inline(always)]
    pub(crate) fn kind(&self) -> NodeKind {
        self.kind
    }

    #[inline(always)]
    fn set_kind(&mut self, kind: NodeKind) {
        if self.kind != NodeKind::Unset {
            self.misuse = Some("the node kind was set twice");
        }
        self.kind = kind;
    }

    /// [`NodeBuilder::terminal`].
    #[inline(always)]
    pub(crate) fn terminal(&mut self) {
        self.set_kind(NodeKind::Terminal);
    }

    /// [`NodeBuilder::decision`].
    #[inline(always)]
    pub(crate) fn decision(&mut self, player: Player) {
        self.set_kind(NodeKind::Decision(player));
    }

    /// [`NodeBuilder::chance`].
    #[inline(always)]
    pub(crate) fn chance(&mut self) {
        self.set_kind(NodeKind::Chance);
        self.tally.open(0);
    }

    /// [`NodeBuilder::fail`]: the node is invalid, whatever else is added; the detailed
    /// check gives the model's reason.
    #[inline(always)]
    pub(crate) fn fail(&mut self) {
        self.misuse = Some("the model could not describe the state");
    }

    /// [`NodeBuilder::add_move`]: the move's index.
    #[inline(always)]
    pub(crate) fn add_move(&mut self) -> u32 {
        if !matches!(self.kind, NodeKind::Decision(_)) {
            self.misuse = Some("a move was added to a node that is not a decision");
        }
        self.tally.close();
        self.branches += 1;
        self.moves += 1;
        self.moves - 1
    }

    /// [`NodeBuilder::add_random_move`]: the move's index.
    #[inline(always)]
    pub(crate) fn add_random_move(&mut self) -> u32 {
        if !matches!(self.kind, NodeKind::Decision(_)) {
            self.misuse = Some("a random move was added to a node that is not a decision");
        }
        self.tally.open(self.moves);
        self.moves += 1;
        self.moves - 1
    }

    /// [`NodeBuilder::add_outcome`]: the group of the outcome (see [`Branch::group`]).
    #[inline(always)]
    pub(crate) fn add_outcome(&mut self, probability: Rat) -> u32 {
        let mut group = self.tally.open;
        if group == CLOSED {
            self.misuse = Some(match self.kind {
                NodeKind::Decision(_) => {
                    "an outcome was added to a decision whose last move is not random"
                }
                _ => "an outcome was added to a node that is not a chance node",
            });
            group = 0;
        }
        self.tally.outcome(probability);
        self.branches += 1;
        group
    }

    /// Whether the node is valid by the quick check, kept as it was filled (see `Tally`):
    /// every distribution's outcomes share one denominator. `false` means "not shown valid
    /// here"; [`Node::validate`] then decides and names the fault.
    #[inline(always)]
    pub(crate) fn is_plainly_valid(&self) -> bool {
        if self.misuse.is_some() || !self.tally.plain || !self.tally.closes() {
            return false;
        }
        match self.kind {
            NodeKind::Unset => false,
            NodeKind::Terminal => self.branches == 0,
            // `chance()` opened the distribution, and `closes` saw an outcome.
            NodeKind::Chance => true,
            NodeKind::Decision(_) => self.moves > 0,
        }
    }
}

/// The description of one state, filled in by [`Model::expand`] through [`NodeBuilder`]: a
/// record of every call, which the engine then reads.
///
/// The engine reuses one `Node` for every state, so filling it allocates nothing once its
/// buffer has grown.
#[derive(Clone, Debug)]
pub struct Node<S, M> {
    shape: Shape,
    payoff: Rat,
    branches: Vec<Branch<S, M>>,
    random: Vec<RandomMove<M>>,
    /// The model's own reason why the state cannot be described ([`NodeBuilder::fail`]).
    failure: Option<String>,
}

/// The quick check of a node's distributions, kept while they are added: every distribution
/// closed so far had outcomes sharing one denominator whose numerators (each in `1..=den`)
/// sum to it, and so far the open one (of a chance node, or of the last random move) does
/// too. Anything else is left to the detailed check, which decides and names the fault.
#[derive(Clone, Copy, Debug)]
struct Tally {
    /// No distribution so far needs the detailed check.
    plain: bool,
    /// The group of the open distribution's outcomes (0 at a chance node, the last move's at
    /// a decision whose last move is random), or `CLOSED`.
    open: u32,
    /// The open distribution's shared denominator; 0 before its first outcome.
    den: u64,
    /// The sum of its numerators so far.
    sum: u128,
}

/// `Tally::open` when no distribution is open.
const CLOSED: u32 = u32::MAX;

impl Tally {
    const FRESH: Tally = Tally {
        plain: true,
        open: CLOSED,
        den: 0,
        sum: 0,
    };

    /// Whether the open distribution, if any, is complete and sums to one.
    #[inline]
    fn closes(&self) -> bool {
        self.open == CLOSED || (self.den != 0 && self.sum == self.den as u128)
    }

    /// Ends the open distribution (a new move starts).
    #[inline]
    fn close(&mut self) {
        self.plain &= self.closes();
        self.open = CLOSED;
    }

    /// Opens the distribution of outcome group `group`.
    #[inline]
    fn open(&mut self, group: u32) {
        self.close();
        self.open = group;
        self.den = 0;
        self.sum = 0;
    }

    /// Counts an outcome of the open distribution.
    #[inline]
    fn outcome(&mut self, p: Rat) {
        // A big fraction counts as an outcome out of range: checked in detail later.
        let (n, d) = p.raw().unwrap_or((0, 1));
        if self.den == 0 {
            self.den = d;
        }
        // Without branches; the sum has 128 bits, so it cannot overflow (and it counts only
        // while every outcome is in `1..=d`).
        self.plain &= (d == self.den) & (n > 0) & (n as u64 <= d);
        self.sum += n as u64 as u128;
    }
}

impl<S, M> Default for Node<S, M> {
    fn default() -> Self {
        Node {
            shape: Shape::FRESH,
            payoff: Rat::ZERO,
            branches: Vec::new(),
            random: Vec::new(),
            failure: None,
        }
    }
}

impl<S, M> NodeBuilder<S, M> for Node<S, M> {
    fn fail(&mut self, reason: impl Into<String>) {
        self.failure = Some(reason.into());
        self.shape.fail();
    }

    #[inline]
    fn terminal(&mut self, payoff: impl Into<Rat>) {
        self.shape.terminal();
        self.payoff = payoff.into();
    }

    #[inline]
    fn decision(&mut self, player: Player) {
        self.shape.decision(player);
    }

    #[inline]
    fn chance(&mut self) {
        self.shape.chance();
    }

    #[inline]
    fn add_move(&mut self, mv: M, reward: impl Into<Rat>, next: S) {
        let group = self.shape.add_move();
        self.branches.push(Branch {
            label: mv,
            probability: Rat::ONE,
            reward: reward.into(),
            next,
            group,
        });
    }

    #[inline]
    fn add_random_move(&mut self, mv: M, reward: impl Into<Rat>) {
        let group = self.shape.add_random_move();
        self.random.push(RandomMove {
            group,
            label: mv,
            reward: reward.into(),
        });
    }

    #[inline]
    fn add_outcome(&mut self, label: M, probability: Rat, reward: impl Into<Rat>, next: S) {
        let group = self.shape.add_outcome(probability);
        self.branches.push(Branch {
            label,
            probability,
            reward: reward.into(),
            next,
            group,
        });
    }
}

impl<S, M> Node<S, M> {
    /// An empty node.
    pub fn new() -> Self {
        Self::default()
    }

    /// The kind of node.
    pub fn kind(&self) -> NodeKind {
        self.shape.kind
    }

    /// The payoff of a terminal node (zero otherwise).
    pub fn payoff(&self) -> Rat {
        self.payoff
    }

    /// The moves or outcomes, in the order the model added them; a random move contributes
    /// one branch per outcome (see [`Branch::group`] and [`Node::moves`]).
    pub fn branches(&self) -> &[Branch<S, M>] {
        &self.branches
    }

    /// The moves of a decision in order, each with the branches it leads to.
    pub fn moves(&self) -> impl Iterator<Item = Move<'_, S, M>> + '_ {
        let mut at = 0;
        let mut random = self.random.iter().peekable();
        (0..self.shape.moves as usize).map(move |index| {
            let len = self.branches[at..]
                .iter()
                .take_while(|b| b.group as usize == index)
                .count();
            let outcomes = &self.branches[at..at + len];
            at += len;
            match random.next_if(|r| r.group as usize == index) {
                Some(r) => Move {
                    index,
                    label: &r.label,
                    reward: r.reward,
                    outcomes,
                    random: true,
                },
                None => Move {
                    index,
                    label: &outcomes[0].label,
                    reward: Rat::ZERO,
                    outcomes,
                    random: false,
                },
            }
        })
    }

    /// `(move index, reward)` of each random move.
    pub(crate) fn random_rewards(&self) -> impl Iterator<Item = (u32, Rat)> + '_ {
        self.random.iter().map(|r| (r.group, r.reward))
    }

    /// Empties the node for reuse.
    pub fn clear(&mut self) {
        self.shape = Shape::FRESH;
        self.payoff = Rat::ZERO;
        self.branches.clear();
        self.random.clear();
        self.failure = None;
    }

    /// Checks the node against the contract of [`Model::expand`]; the error is a sentence
    /// without the state, which the caller adds.
    #[inline]
    pub fn validate(&self) -> Result<(), String> {
        if self.is_plainly_valid() {
            return Ok(());
        }
        self.validate_in_detail()
    }

    /// The check of [`Node::validate`] for the usual node (see [`Shape::is_plainly_valid`]).
    #[inline]
    fn is_plainly_valid(&self) -> bool {
        self.shape.is_plainly_valid()
    }

    fn validate_in_detail(&self) -> Result<(), String> {
        if let Some(reason) = &self.failure {
            return Err(reason.clone());
        }
        if let Some(m) = self.shape.misuse {
            return Err(m.to_string());
        }
        match self.shape.kind {
            NodeKind::Unset => Err("the model set no node kind".to_string()),
            NodeKind::Terminal if !self.branches.is_empty() => {
                Err("a terminal node has moves or outcomes".to_string())
            }
            NodeKind::Terminal => Ok(()),
            NodeKind::Decision(_) if self.shape.moves == 0 => {
                Err("a decision has no moves".to_string())
            }
            NodeKind::Decision(_) => {
                // Each random move's outcomes are the run of branches in its group.
                for r in &self.random {
                    let first = self.branches.partition_point(|b| b.group < r.group);
                    let len = self.branches[first..]
                        .iter()
                        .take_while(|b| b.group == r.group)
                        .count();
                    check_distribution(&self.branches[first..first + len])
                        .map_err(|e| format!("random move {}: {e}", r.group))?;
                }
                Ok(())
            }
            NodeKind::Chance => check_distribution(&self.branches),
        }
    }
}

/// Checks that `outcomes` form a probability distribution: non-empty, each probability in
/// (0, 1], summing to exactly one.
fn check_distribution<S, M>(outcomes: &[Branch<S, M>]) -> Result<(), String> {
    if outcomes.is_empty() {
        return Err("a chance node has no outcomes".to_string());
    }
    for (i, b) in outcomes.iter().enumerate() {
        let p = b.probability;
        if !p.is_positive() || p > Rat::ONE {
            return Err(format!(
                "outcome {i} has probability {p}, which is not in (0, 1]"
            ));
        }
    }
    // Fast path: every denominator divides the largest one, `d`; then the sum is one exactly
    // when the numerators scaled to `d` add up to `d`.
    let d = outcomes
        .iter()
        .map(|b| b.probability.raw().map(|(_, d)| d))
        .try_fold(0, |d, den| Some(den?.max(d)));
    if let Some(d) = d.filter(|&d| d > 0) {
        let scaled = outcomes.iter().try_fold(0u128, |acc, b| {
            let (n, den) = b.probability.raw()?;
            if den == d {
                // The usual case, and no division.
                return Some(acc + n as u128);
            }
            (d % den == 0).then(|| acc + n as u128 * (d / den) as u128)
        });
        if scaled == Some(d as u128) {
            return Ok(());
        }
    }
    let sum = crate::number::exact_sum(outcomes.iter().map(|b| b.probability));
    if sum != <crate::Exact as crate::Number>::one() {
        return Err(format!(
            "the outcome probabilities sum to {sum}, not exactly 1"
        ));
    }
    Ok(())
}
