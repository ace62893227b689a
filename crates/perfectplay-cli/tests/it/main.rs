//! The command line's integration tests, one binary, over the real `perfectplay` built by Cargo.
//! Each module is one file of tests; `common` holds what they share.

mod check;
mod check_across;
mod cli;
mod common;
mod distributed;
mod docs;
mod edges;
mod fuzz_args;
mod language;
mod serve;
