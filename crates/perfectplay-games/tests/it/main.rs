//! The built-in games' integration tests, one binary: results, notation, encoding, parameters and
//! the benchmarks' hand-written baselines.
//! Each module is one file of tests.

mod against_baselines;
mod distribution_from;
mod encoding;
mod notation;
mod params_fuzz;
mod results;
