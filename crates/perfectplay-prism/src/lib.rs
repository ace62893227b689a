//! The PRISM modelling language as a front end of perfectplay: models of type `dtmc`, `mdp`
//! and PRISM-games' turn-based `smg`, and their properties.
//!
//! This crate reads text; the core (`perfectplay`) knows nothing of it. [`parse_model`] and
//! [`parse_properties`] build the syntax tree ([`ast`]), which prints back as PRISM text
//! ([`std::fmt::Display`]) that parses to the same tree; [`program`] checks it, [`build`] makes
//! the state space, [`graph`] and the analyses answer queries with perfectplay's engine (each
//! property's [`Answer`]), and [`Loaded`], [`Props`] and [`check_prop`] are the front door.
//! Every error is a [`Diagnostic`] that names the file, line and column and shows the line
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

// The pipeline, each layer using only those before it: the text's syntax, the checked program
// (with its properties), the built state space, and the analyses that answer queries; the
// session module is the front door over all of them.
mod analysis;
pub mod build;
mod error;
pub mod program;
mod session;
mod syntax;

pub use analysis::answers::{Answer, Listed, StateValueText};
pub use analysis::error::AnalysisError;
pub use analysis::graph;
pub use analysis::query::QueryModel;
pub use build::packed;
pub use build::Loaded;
pub use error::{Error, LookupError};
pub use program::props::{Prop, Props};
pub use program::value;
pub use session::{
    across_property, across_query, all_properties, analysis_model, check_constants, check_prop,
    find_property, parse_program, query_model, read_source, AcrossAnswer, AcrossFind, AcrossNested,
    AcrossProperty, AcrossQuery, AcrossReading, AcrossStep, Bounds, Found, MAX_SOURCE_BYTES,
};
pub use syntax::ast;
pub use syntax::diagnostic::{Diagnostic, Span};
pub use syntax::parser::{parse_expr, parse_model, parse_properties};
