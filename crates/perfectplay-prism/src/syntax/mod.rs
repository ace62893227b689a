//! The text of models and properties: tokens ([`lexer`]), the recursive-descent parser
//! ([`parser`]) to the syntax tree ([`ast`]), which prints back as PRISM text ([`mod@print`]), and
//! diagnostics with their place ([`diagnostic`]). Nothing here knows a model's meaning.

pub mod ast;
pub mod diagnostic;
pub(crate) mod lexer;
pub(crate) mod parser;
mod print;
