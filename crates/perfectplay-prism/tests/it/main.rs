//! The PRISM front end's integration tests, one binary: the QVBS suite, the property language,
//! the errors and the crate's layout.
//! Each module is one file of tests; `common` holds what they share.

mod as_prism;
mod bounded;
mod build;
mod common;
mod corpus;
mod errors;
mod filters;
mod games;
mod layers;
mod long_numbers;
mod long_run;
mod lump;
mod nested;
mod numbers;
mod overflow;
mod paths;
mod qvbs;
mod reward_bounds;
mod syntax;
mod total;
mod walks;
mod zero;
