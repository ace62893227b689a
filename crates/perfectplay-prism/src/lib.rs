//! The PRISM modelling language as a front end of perfectplay: models of type `dtmc`, `mdp`
//! and PRISM-games' turn-based `smg`, and their properties.
//!
//! This crate reads text; the core (`perfectplay`) knows nothing of it. [`parse_model`] and
//! [`parse_properties`] build the syntax tree ([`ast`]), which prints back as PRISM text
//! ([`std::fmt::Display`]) that parses to the same tree; [`program`] checks it, [`build`] makes
//! the state space, [`graph`] and [`check`] answer queries with perfectplay's engine, and
//! [`Loaded`], [`Props`] and [`check_prop`] are the front door. Every error is a [`Diagnostic`] that names the file, line and column and shows the line
//! with a caret. Constructs outside the supported language (bounded and LTL paths, CTMC
//! operators, other model types) are reported by name.
//!
//! ```
//! use perfectplay_prism::{parse_model, parse_properties};
//!
//! let model = parse_model("coin.prism", "dtmc
//! module coin
//!   x : [0..2];
//!   [] x=0 -> 1/2 : (x'=1) + 1/2 : (x'=2);
//! endmodule
//! label \"heads\" = x=1;").unwrap();
//! assert_eq!(parse_model("again", &model.to_string()).unwrap(), model);
//!
//! let props = parse_properties("--prop", "P=? [ F \"heads\" ]").unwrap();
//! assert_eq!(props.properties[0].expr.to_string(), "P=? [ F \"heads\" ]");
//!
//! let e = parse_model("bad.prism", "dtmc\nmodule m\n  x : [0..1]\nendmodule").unwrap_err();
//! assert_eq!(e.headline(), "bad.prism:4:1: expected ';', found 'endmodule'");
//! ```

#![deny(missing_docs)]

pub mod ast;
mod bounded;
pub mod build;
pub mod check;
mod compound;
mod ctl;
mod error;
mod eval;
mod fast;
mod filter;
pub mod graph;
mod index;
mod init;
mod lexer;
mod nested;
mod order;
pub mod packed;
mod parser;
mod print;
pub mod program;
mod props;
mod query;
mod resolve;
mod resolved;
mod rewards;
mod session;
mod total;
pub mod value;
mod zero;

pub use error::{Diagnostic, Span};
pub use parser::{parse_expr, parse_model, parse_properties};
pub use props::{Prop, Props};
pub use query::QueryModel;
pub use session::{
    all_properties, analysis_model, check_constants, check_prop, find_property, parse_program,
    query_model, read_source, Error, Loaded, LookupError, MAX_SOURCE_BYTES,
};

/// The value of a numeric reward expression on variable values.
pub(crate) fn build_value(e: &program::CExpr, vals: &[i64]) -> Result<value::Q, String> {
    e.eval(vals)
        .map_err(|err| err.to_string())?
        .number()
        .ok_or_else(|| "a reward is a boolean".to_string())
}
