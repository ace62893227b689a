//! The web explorer of perfectplay: a solved game served to a browser on this machine.
//!
//! A front end solves a game (any [`Solved`](perfectplay::dynamic::Solved): a built-in game, a PRISM model's property, a
//! Python game), describes it in an [`About`], and hands both to [`Server::run`]. The server
//! answers the page (its assets are inside the binary: no network needed) and a JSON API that
//! the page uses, one position at a time, so that a game of millions of states stays quick to
//! browse; a game with turn-local states solves the turn it is asked about again, as
//! `explain` does.
//!
//! | request | answer |
//! |---|---|
//! | `GET /api/game` | what is solved: name, title, summary, notation, details, the solve's report |
//! | `GET /api/explain?state=S` (or `?id=N`) | exactly what `explain --state S --json` prints; the state's number in the header `X-State-Id` |
//! | `GET /api/view?id=N` | the same position as an HTML fragment (the page shows it; notebooks too) |
//! | `GET /api/distribution?id=N[&tail=EPS]` | what `distribution --json` prints, for the play from state `N` on |
//! | `GET /api/play?id=N[&seed=S]` | a play from state `N` to its end under the optimal strategy, chance drawn with seed `S` |
//! | `GET /api/strategy.csv`, `/api/strategy.json` | the file `strategy --out` writes, as a download |
//!
//! Bad input (an unknown state, a malformed query) is answered with status 400 and
//! `{"error": "..."}`, the message the command line would print; the server goes on serving.
//! Only the page's own assets and this API are served, never a file from disk; a request head
//! is at most [`http::MAX_REQUEST`] bytes.

mod api;
pub mod html;
pub mod http;
mod server;

pub use api::{About, Explorer};
pub use server::{Server, Stopper};
