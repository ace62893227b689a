//! The solve across processes against the one-process engine, one binary.
//! Each module is one file of tests; `common` holds what they share.

mod agree;
mod common;
mod random;
