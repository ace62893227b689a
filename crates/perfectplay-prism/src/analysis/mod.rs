//! Answering properties on a built state space: the graph analyses ([`graph`], and [`ctl`] for
//! CTL's `E` and `A`), the query models the engine solves ([`check`] and [`query`] for
//! unbounded queries, [`bounded`] for step bounds, [`reward_bounded`] for bounds on the reward earned, solved in floats by [`backups`] over the
//! space, [`zero`] and [`total`] for the reward variants of games, [`long_run`] for `S` and
//! `R[ S ]`), a property resolved
//! against the model ([`resolved`]), state formulas in
//! every state ([`nested`], with bounds of 0 and 1 from the graph alone: [`qualitative`]), filters ([`filter`]), arithmetic over queries ([`compound`]), who
//! decides where in a stochastic game ([`players`]), and a P query's game for a solve across
//! processes ([`across`]) and its answer read from that solve ([`across_answer`]).

pub(crate) mod across;
pub(crate) mod across_answer;
pub(crate) mod answer;
pub mod answers;
pub(crate) mod backups;
pub(crate) mod bounded;
pub(crate) mod check;
pub(crate) mod compound;
pub(crate) mod ctl;
pub mod error;
pub(crate) mod filter;
pub mod graph;
pub(crate) mod long_run;
pub(crate) mod lump;
pub(crate) mod methods;
pub(crate) mod nested;
pub(crate) mod players;
pub(crate) mod prepared;
pub(crate) mod qualitative;
pub mod query;
pub(crate) mod resolved;
pub(crate) mod reward_bounded;
pub(crate) mod reward_epochs;
pub(crate) mod rewards;
pub(crate) mod total;
pub(crate) mod zero;
