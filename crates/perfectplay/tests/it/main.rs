//! The core's integration tests, one binary (one build of the solvers for all of them): random
//! games against brute force, the engine's contracts, and the methods that must agree.
//! Each module is one file of tests; `common` holds what they share.

mod analysis;
mod brute_force;
mod common;
mod engine;
mod iterative;
mod look_ahead;
mod multimodular;
mod shapes;
mod turns;
