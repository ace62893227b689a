//! The initial states of `init … endinit`: every valuation of the variables where the
//! expression holds, found by a depth-first search that gives the variables one at a time and
//! cuts a branch as soon as the expression is false whatever the rest. The variables its
//! top-level conjunction pins (`x = 3`, `b`, `!b`) take that one value, so a model whose
//! initial states fix most variables is not enumerated over the product of all their ranges.

use crate::build::{BuildError, InitProblem};
use crate::program::eval::CExpr;
use crate::program::Program;
use crate::syntax::ast::{BinOp, UnOp};

/// The most partial valuations the search visits before it gives up.
const MAX_VISITS: u64 = 1 << 26;

/// The valuations where `init` holds, in the order of the variables' values (the first
/// variable slowest); at most `max_states` of them.
pub(crate) fn initial_valuations(
    program: &Program,
    init: &CExpr,
    max_states: usize,
) -> Result<Vec<Vec<i64>>, BuildError> {
    let n = program.vars.len();
    // Each variable's values: its range, or the one value the conjunction pins.
    let mut domain: Vec<(i64, i64)> = program.vars.iter().map(|v| (v.lo, v.hi)).collect();
    let mut pins = Vec::new();
    crate::build::index::pinned(init, &mut pins);
    for (v, x) in pins {
        // A pin outside the range, or two different pins, leave no value.
        let (lo, hi) = domain[v];
        domain[v] = (lo.max(x), hi.min(x));
    }
    let mut search = Search {
        init,
        domain: &domain,
        vals: program.vars.iter().map(|v| v.lo).collect(),
        assigned: vec![false; n],
        found: Vec::new(),
        visits: 0,
        max_states,
    };
    search.run(0)?;
    if search.found.is_empty() {
        return Err(BuildError::Init(InitProblem::NoState));
    }
    Ok(search.found)
}

struct Search<'a> {
    init: &'a CExpr,
    domain: &'a [(i64, i64)],
    vals: Vec<i64>,
    assigned: Vec<bool>,
    found: Vec<Vec<i64>>,
    visits: u64,
    max_states: usize,
}

impl Search<'_> {
    /// Gives variable `i` and the ones after it every value the expression allows.
    fn run(&mut self, i: usize) -> Result<(), BuildError> {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Err(BuildError::Init(InitProblem::TooManyValuations));
        }
        match holds(self.init, &self.vals, &self.assigned)
            .map_err(|e| BuildError::Init(InitProblem::Eval(e)))?
        {
            Some(false) => return Ok(()),
            Some(true) if i == self.vals.len() => {
                if self.found.len() >= self.max_states {
                    return Err(BuildError::StateLimit {
                        limit: self.max_states,
                        initial: true,
                    });
                }
                self.found.push(self.vals.clone());
                // The list grows with the model: stopped before memory runs out, as a build is.
                if self.found.len() % (1 << 16) == 0 {
                    perfectplay::memory::check(self.found.len())
                        .map_err(|e| BuildError::Init(InitProblem::Memory(e)))?;
                }
                return Ok(());
            }
            _ => {}
        }
        let (lo, hi) = self.domain[i];
        self.assigned[i] = true;
        for x in lo..=hi {
            self.vals[i] = x;
            self.run(i + 1)?;
        }
        self.assigned[i] = false;
        self.vals[i] = lo;
        Ok(())
    }
}

/// Whether every variable `e` reads is assigned.
fn decided(e: &CExpr, assigned: &[bool]) -> bool {
    match e {
        CExpr::Const(_) => true,
        CExpr::Var(i) | CExpr::BoolVar(i) => assigned[*i],
        CExpr::States(_) => assigned.iter().all(|&a| a),
        CExpr::Unary(_, a) | CExpr::Inexact(a) => decided(a, assigned),
        CExpr::Binary(_, a, b) => decided(a, assigned) && decided(b, assigned),
        CExpr::Ite(c, a, b) => decided(c, assigned) && decided(a, assigned) && decided(b, assigned),
        CExpr::Call(_, args) => args.iter().all(|a| decided(a, assigned)),
    }
}

/// The truth of boolean `e` on the assigned variables: `None` where it depends on the others.
fn holds(
    e: &CExpr,
    vals: &[i64],
    assigned: &[bool],
) -> Result<Option<bool>, crate::program::eval::EvalError> {
    if decided(e, assigned) {
        return e.holds(vals).map(Some);
    }
    let part = |e| holds(e, vals, assigned);
    // A side that is evaluated only when the other allows it: its error counts only once the
    // other is known (until then the branch is undecided, and its leaves evaluate in full).
    let unless = |e, stop: bool| match part(e) {
        Ok(Some(b)) if b == stop => Some(b),
        _ => None,
    };
    Ok(match e {
        CExpr::Unary(UnOp::Not, a) => part(a)?.map(|b| !b),
        CExpr::Binary(BinOp::And, a, b) => match part(a)? {
            Some(false) => Some(false),
            Some(true) => part(b)?,
            None => unless(b, false),
        },
        CExpr::Binary(BinOp::Or, a, b) => match part(a)? {
            Some(true) => Some(true),
            Some(false) => part(b)?,
            None => unless(b, true),
        },
        CExpr::Binary(BinOp::Implies, a, b) => match part(a)? {
            Some(false) => Some(true),
            Some(true) => part(b)?,
            None => unless(b, true),
        },
        CExpr::Ite(c, a, b) if decided(c, assigned) => {
            if c.holds(vals)? {
                part(a)?
            } else {
                part(b)?
            }
        }
        _ => None,
    })
}
