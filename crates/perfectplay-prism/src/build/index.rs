//! Commands indexed by a variable their guards test for equality. Most guards of real models
//! are conjunctions that pin a module's control variable (`s=3 & …`), so a state enables at
//! most the few commands whose pinned value it has: the builder looks those up instead of
//! evaluating every guard in every state.

use crate::program::eval::CExpr;
use crate::program::value::Value;
use crate::program::Program;
use crate::syntax::ast::{BinOp, UnOp};

/// The most entries of one group's table (buckets times the commands in each, about).
const MAX_ENTRIES: u64 = 1 << 16;

/// A group of commands (in program order), bucketed by the value of one variable.
#[derive(Clone, Debug)]
pub struct Indexed {
    /// The variable and its least value, or `None` when no variable is worth it.
    by: Option<(usize, i64)>,
    /// The commands that may be enabled where the variable has value `lo + k`, in order.
    buckets: Vec<Vec<usize>>,
    /// Every command of the group, in order.
    all: Vec<usize>,
}

impl Indexed {
    /// Indexes `commands` of `program` by the variable pinned by the most of their guards.
    pub fn new(program: &Program, commands: Vec<usize>) -> Indexed {
        let pins: Vec<Vec<(usize, i64)>> = commands
            .iter()
            .map(|&c| {
                let mut out = Vec::new();
                pinned(&program.commands[c].guard, &mut out);
                out
            })
            .collect();
        // The variable pinned by the most commands (the first of equals).
        let mut count = vec![0usize; program.vars.len()];
        for p in &pins {
            let mut seen: Vec<usize> = p.iter().map(|&(v, _)| v).collect();
            seen.sort_unstable();
            seen.dedup();
            for v in seen {
                count[v] += 1;
            }
        }
        // The table holds every command that does not pin the variable in every bucket: it
        // must stay small.
        let size = |v: usize| {
            let values = program.vars[v]
                .hi
                .abs_diff(program.vars[v].lo)
                .saturating_add(1);
            values.saturating_mul(1 + (commands.len() - count[v]) as u64)
        };
        let best = (0..program.vars.len())
            .filter(|&v| count[v] >= 2 && size(v) <= MAX_ENTRIES)
            .max_by_key(|&v| (count[v], std::cmp::Reverse(v)));
        let Some(var) = best else {
            return Indexed {
                by: None,
                buckets: Vec::new(),
                all: commands,
            };
        };
        let (lo, hi) = (program.vars[var].lo, program.vars[var].hi);
        let mut buckets = vec![Vec::new(); (hi - lo + 1) as usize];
        for (&c, p) in commands.iter().zip(&pins) {
            // A guard that pins the variable twice to different values holds nowhere; one
            // that pins it outside its range, too.
            let values: Vec<i64> = p
                .iter()
                .filter(|&&(v, _)| v == var)
                .map(|&(_, x)| x)
                .collect();
            match values.first() {
                None => buckets.iter_mut().for_each(|b| b.push(c)),
                Some(&x) if values.iter().all(|&y| y == x) && (lo..=hi).contains(&x) => {
                    buckets[(x - lo) as usize].push(c)
                }
                Some(_) => {}
            }
        }
        Indexed {
            by: Some((var, lo)),
            buckets,
            all: commands,
        }
    }

    /// The commands that may be enabled in a state with variable values `vals`, in order:
    /// every other command's guard is false there.
    #[inline]
    pub fn candidates(&self, vals: &[i64]) -> &[usize] {
        match self.by {
            Some((var, lo)) => &self.buckets[(vals[var] - lo) as usize],
            None => &self.all,
        }
    }
}

/// The `(variable, value)` pairs that guard `e` pins in its top-level conjunction: `x = 3`,
/// `3 = x`, `b`, `!b`.
pub(crate) fn pinned(e: &CExpr, out: &mut Vec<(usize, i64)>) {
    match e {
        CExpr::Binary(BinOp::And, a, b) => {
            pinned(a, out);
            pinned(b, out);
        }
        CExpr::Binary(BinOp::Eq, a, b) => match (&**a, &**b) {
            (CExpr::Var(v) | CExpr::BoolVar(v), CExpr::Const(c))
            | (CExpr::Const(c), CExpr::Var(v) | CExpr::BoolVar(v)) => match c {
                Value::Int(n) => out.push((*v, *n)),
                Value::Bool(b) => out.push((*v, *b as i64)),
                Value::Real(_) | Value::Float(_) => {}
            },
            _ => {}
        },
        CExpr::BoolVar(v) => out.push((*v, 1)),
        CExpr::Unary(UnOp::Not, inner) => {
            if let CExpr::BoolVar(v) = &**inner {
                out.push((*v, 0));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In every valuation the candidates are, in program order, a subset of the group that
    /// holds every enabled command.
    #[test]
    fn candidates_hold_every_enabled_command_in_order() {
        let src = "mdp
module m
  s : [0..3] init 0;
  x : [0..2] init 0;
  b : bool init false;
  [] s=0 & x<2 -> (x'=x+1);
  [] s=1 -> (s'=2);
  [] x=1 & s=1 & b -> (s'=0);
  [] 1=s & s=2 -> (s'=0);
  [] b -> (b'=false);
  [] !b & s=3 -> (b'=true);
  [] s=3 -> (s'=0);
endmodule
";
        let ast = crate::parse_model("m", src).unwrap();
        let program = Program::new("m", src, &ast, &[]).unwrap();
        let all: Vec<usize> = (0..program.commands.len()).collect();
        let group = Indexed::new(&program, all.clone());
        assert_eq!(group.by.map(|(v, _)| v), Some(0), "indexed by s");
        for s in 0..=3 {
            for x in 0..=2 {
                for b in 0..=1 {
                    let vals = [s, x, b];
                    let got = group.candidates(&vals);
                    assert!(got.windows(2).all(|w| w[0] < w[1]));
                    for &c in &all {
                        if program.commands[c].guard.holds(&vals).unwrap() {
                            assert!(got.contains(&c), "command {c} at {vals:?}");
                        }
                    }
                }
            }
        }
        // The guard that pins s to two values holds nowhere and is in no bucket.
        assert!(group.buckets.iter().all(|b| !b.contains(&3)));
    }
}
