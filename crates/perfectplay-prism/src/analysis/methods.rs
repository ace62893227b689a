//! The names of the methods an answer reports: each a literal, built here by macros from
//! its parts, so that the variants of a method (from floating-point inputs, iterated or not)
//! are spelled once.

/// A method's name (a literal), followed by ", from floating-point inputs" where `$inexact`
/// (a number the model computes in floating point was rounded to be given).
macro_rules! named {
    ($inexact:expr, $name:expr) => {
        match $inexact {
            false => $name,
            true => concat!($name, ", from floating-point inputs"),
        }
    };
}
pub(crate) use named;

/// The name of a method that solves the unbounded query in every state (by value iteration
/// where `$iterated`), then does `$then` (a literal), [`named`] as `$inexact` says.
macro_rules! in_every_state_then {
    ($iterated:expr, $inexact:expr, $then:literal) => {
        match $iterated {
            false => $crate::analysis::methods::named!(
                $inexact,
                concat!("policy iteration in every state, then ", $then)
            ),
            true => $crate::analysis::methods::named!(
                $inexact,
                concat!(
                    "value iteration with a certified bound in every state, then ",
                    $then
                )
            ),
        }
    };
}
pub(crate) use in_every_state_then;

/// The names [`crate::analysis::check::solve_start`] takes for a product model that `$product` (a literal) describes,
/// [`named`] as `$inexact` says.
macro_rules! product_then {
    ($inexact:expr, $product:literal) => {
        move |how| match how {
            $crate::analysis::check::Solve::Direct => $crate::analysis::methods::named!(
                $inexact,
                concat!($product, ", then policy iteration")
            ),
            $crate::analysis::check::Solve::Iterated => $crate::analysis::methods::named!(
                $inexact,
                concat!($product, ", then value iteration with a certified bound")
            ),
            $crate::analysis::check::Solve::Exact => concat!($product, ", then an exact solve"),
        }
    };
}
pub(crate) use product_then;
