//! perfectplay solves finite games of chance and strategy exactly.
//!
//! You describe a game as a [`Model`]: a start state and, for every state, whether it is
//! terminal (with a payoff), a decision of [`Player::Max`] or [`Player::Min`], or a chance node
//! with exact probabilities; every move or outcome may carry a step reward. The [`Solver`]
//! explores the states reachable from the start, finds the strongly connected components as it
//! goes, and solves each one as soon as everything it leads to is final. The [`Solution`] holds
//! the value of every explored state (the optimal expected total), the strategy that attains
//! it, and explanations of every move.
//!
//! Games may have cycles (re-rolls, repeated positions) and two players; see
//! [`component`](crate#cycles) below for what the value means then. Numbers are `f64` by
//! default and [`Exact`] rationals on request; the model itself always speaks exact rationals
//! ([`Rat`]), and the engine checks that the outcomes of each chance node sum to exactly one.
//!
//! This crate knows no specific game, and its solvers see only dense state numbers, never your
//! state type.
//!
//! # Example
//! A player races to reach exactly 4 with a die of faces 1–3: each roll costs 1, and
//! overshooting sends her back to 0 (a cycle). At 2 or more she may instead pay 2 to finish at
//! once. What is the least expected cost?
//!
//! ```
//! use perfectplay::{verify, Exact, Model, NodeBuilder, Player, Rat, Solver};
//!
//! struct Race;
//!
//! #[derive(Clone, Debug, PartialEq, Eq, Hash)]
//! enum State {
//!     At(u32),
//!     Rolling(u32),
//!     Done,
//! }
//!
//! impl Model for Race {
//!     type State = State;
//!     type Move = &'static str;
//!
//!     fn start(&self) -> State {
//!         State::At(0)
//!     }
//!
//!     fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, &'static str>) {
//!         match *state {
//!             State::Done => node.terminal(0),
//!             State::At(4) => node.terminal(0),
//!             State::At(n) => {
//!                 node.decision(Player::Min);
//!                 node.add_move("roll", 1, State::Rolling(n));
//!                 if n >= 2 {
//!                     node.add_move("pay", 2, State::Done);
//!                 }
//!             }
//!             State::Rolling(n) => {
//!                 node.chance();
//!                 for face in 1..=3 {
//!                     let next = if n + face > 4 { 0 } else { n + face };
//!                     node.add_outcome("face", Rat::new(1, 3), 0, State::At(next));
//!                 }
//!             }
//!         }
//!     }
//! }
//!
//! let exact = Solver::new(&Race).solve::<Exact>().unwrap();
//! assert_eq!(exact.start_value().to_string(), "28/9");
//! // Float and exact agree, and the independent checker certifies the exact result.
//! let float = Solver::new(&Race).solve::<f64>().unwrap();
//! assert!((float.start_value() - 28.0 / 9.0).abs() < 1e-12);
//! verify::verify_solution(&Race, &exact).unwrap();
//! // At 3 paying 2 beats rolling (1 + 2/3 of a restart worth 28/9).
//! assert_eq!(exact.chosen(&State::At(3)), Some(1));
//! assert_eq!(exact.stats().cyclic_components, 1);
//! ```
//!
//! # Beyond the value
//! The [`Solution`] also answers how to play and what to expect, continuing the example above:
//!
//! ```
//! # use perfectplay::{Exact, Model, NodeBuilder, Player, Rat, Solver};
//! # struct Race;
//! # #[derive(Clone, Debug, PartialEq, Eq, Hash)]
//! # enum State { At(u32), Rolling(u32), Done }
//! # impl Model for Race {
//! #     type State = State;
//! #     type Move = &'static str;
//! #     fn start(&self) -> State { State::At(0) }
//! #     fn expand(&self, state: &State, node: &mut impl NodeBuilder<State, &'static str>) {
//! #         match *state {
//! #             State::Done | State::At(4) => node.terminal(0),
//! #             State::At(n) => {
//! #                 node.decision(Player::Min);
//! #                 node.add_move("roll", 1, State::Rolling(n));
//! #                 if n >= 2 { node.add_move("pay", 2, State::Done); }
//! #             }
//! #             State::Rolling(n) => {
//! #                 node.chance();
//! #                 for face in 1..=3 {
//! #                     let next = if n + face > 4 { 0 } else { n + face };
//! #                     node.add_outcome("face", Rat::new(1, 3), 0, State::At(next));
//! #                 }
//! #             }
//! #         }
//! #     }
//! # }
//! use perfectplay::{verify, DistributionOptions, Number};
//!
//! let solution = Solver::new(&Race).solve::<Exact>().unwrap();
//!
//! // Every move at a state, with its value and its loss against the best.
//! let e = solution.explain(&Race, &State::At(3)).unwrap();
//! assert_eq!(e.branches[0].label, "\"roll\"");
//! assert!(!e.branches[0].optimal && e.branches[1].optimal);
//! assert_eq!(e.branches[0].loss.to_string(), "29/27"); // (1 + 2/3 · 28/9) - 2
//!
//! // The distribution of the total under the strategy; this game has a cycle, so the
//! // computation stops with a stated tail of probability still in play.
//! let d = solution.distribution(&Race, &DistributionOptions::default()).unwrap();
//! assert_eq!(d.mass().add(&d.tail), Exact::one());
//! assert!(d.tail.to_f64() <= 1e-12);
//! assert!((d.mean().to_f64() - 28.0 / 9.0).abs() < 1e-9);
//!
//! // The strategy as a table, which the independent checker re-evaluates.
//! let rows = solution.strategy(&Race).unwrap();
//! let chosen = |s: &State| {
//!     let row = rows.iter().find(|r| r.state == Race.show_state(s))?;
//!     Some(if row.chosen == "\"roll\"" { 0 } else { 1 })
//! };
//! assert_eq!(verify::evaluate_strategy(&Race, chosen, 100).unwrap(), *solution.start_value());
//!
//! // Simulated play with seeded dice: the 95% interval of the mean covers the value.
//! let sim = solution.simulate(&Race, 20_000, 7, 1_000_000).unwrap();
//! let (low, high) = sim.ci95.expect("an interval for 20,000 games");
//! assert!(low <= 28.0 / 9.0 && 28.0 / 9.0 <= high);
//! ```
//!
//! Front ends that pick a game at run time use the same through [`dynamic::DynModel`] and
//! [`dynamic::Solved`], which hide the state and number types.
//!
//! # Cycles
//! A value is the optimal expected total over strategies under which the game ends with
//! probability one. The engine reports, naming a state, when that is not well defined: no
//! strategy ends the game ([`SolveError::NoTermination`]), a player can gain without bound
//! around a cycle ([`SolveError::Divergent`]), or two players can keep a cycle going forever
//! together ([`SolveError::NonStopping`]). It never loops, returns NaN or invents a number.
//!
//! # Numbers
//! Every component is solved by an exact method: a single backup for a state on no cycle,
//! policy (or, for two players, Hoffman–Karp strategy) iteration with direct sparse linear
//! solves for a cyclic component. With [`Exact`] the result is exact. With `f64` the only error
//! is floating-point rounding in those computations, and the solve bounds it: it computes in
//! [`Bounded`] floats, which carry a rigorous bound on their distance to the exact value
//! beside the very float a plain `f64` solve gives, and reports the largest in
//! [`Stats::error_bound`]. Policy iteration switches a move only where another is better
//! beyond the bounds (with `f64`, by more than `1e-12` relative), so two moves within rounding
//! of each other may be taken for each other, and the bound covers what that may cost (see
//! [`Stats::error_bound`]).
//!
//! When only the exact value of the start is wanted, [`Solver::exact_start_value`] gets it
//! without big-rational arithmetic for acyclic games (a certified float strategy evaluated
//! modulo many primes, then rational reconstruction), and falls back to [`Exact`] otherwise.
//!
//! # Large games
//! A model can number its states ([`Model::dense_index`]) so that the engine interns them
//! without hashing. If its game has no cycles it can also list its states with every successor
//! first ([`Model::sweep_state`]); [`Solver::start_value`] then solves them in that order without
//! exploring, as a hand-written dynamic program fills its table, and checks the order as it goes.
//! [`Solver::threads`] spreads such a sweep over several threads, with the same result; a model
//! whose successors lie a bounded distance back in its numbering says so
//! ([`Model::sweep_window`]), and a sweep on one thread then keeps only the values it still needs;
//! an order with runs of empty ranks can jump over them ([`Model::sweep_resume`]).
//! The sweep stores no branch: `expand` describes each state to a builder of the sweep's own
//! ([`NodeBuilder`]), which backs it up as the successors are named. States that one state
//! alone reaches can be marked transient ([`Model::transient`]): the sweep solves them inside
//! that state, without numbering, listing or storing them.
//!
//! A game whose positions fall into *turns* of private randomness (Yahtzee's rolls, Pig's rolls
//! before a hold) can say which states are local to the turn a kept state starts
//! ([`Model::turn_of`]): the engine then stores values for the kept states only, solves each
//! turn in scratch storage on every thread ([`Solver::threads`], the same bits on any number),
//! and answers every query by solving the turn it needs again (see [`Model::has_turns`]).

#![deny(missing_docs)]

// The model and its numbers: what a user writes against.
mod model;
mod number;
mod rat;

// The solver layer, the one front door (it picks the method)...
mod solver;
// ...the methods, sibling modules that know nothing of each other...
mod explore;
mod multimodular;
mod sweep;
mod turns;
// ...what they share: the backup kernel, interning, cyclic components, linear solves, the
// memory guard and the report of a run.
mod backup;
mod component;
mod linear;
pub mod memory;
mod report;
mod states;

// What a solve leaves, and the queries on it.
pub mod distribution;
pub mod dynamic;
pub mod encoded;
mod error;
pub mod export;
pub mod graph;
pub mod simulate;
mod solution;
mod turned;
pub mod verify;

pub use distribution::{Distribution, DistributionOptions, DistributionProgress};
pub use error::SolveError;
pub use model::{Branch, Model, Move, Node, NodeBuilder, NodeKind, Player, MAX_TRANSIENT_DEPTH};
pub use number::{Bounded, Exact, Number};
pub use rat::{ParseRatError, Rat};
pub use report::{Method, Progress, Stats, Watch};
pub use simulate::{Rng, Simulation};
pub use solution::{BranchValue, Solution, StateExplanation, StrategyRow};
pub use solver::{Solver, PARALLEL_SWEEP_RANKS};
pub use sweep::SweepNumber;

/// Solves `model` in `f64` with default settings.
pub fn solve<M: Model>(model: &M) -> Result<Solution<M::State, f64>, SolveError> {
    Solver::new(model).solve()
}

/// Solves `model` in exact rationals with default settings.
pub fn solve_exact<M: Model>(model: &M) -> Result<Solution<M::State, Exact>, SolveError> {
    Solver::new(model).solve()
}
