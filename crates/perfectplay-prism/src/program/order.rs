//! Declarations in the order of their dependencies: which names an expression refers to, and
//! an order of a set of names where each comes after those it uses, found in linear time (the
//! constants of a model may be declared in any order).

use std::collections::{HashMap, HashSet};

use crate::syntax::ast::{Expr, ExprKind};

/// The names `e` refers to, with those of the formulas among them (each formula once).
pub(crate) fn names_in<'e>(
    e: &'e Expr,
    formulas: &'e HashMap<String, Expr>,
    out: &mut Vec<&'e str>,
) {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Name(n) => {
                out.push(n);
                if let Some(f) = formulas.get(n).filter(|_| seen.insert(n)) {
                    stack.push(f);
                }
            }
            ExprKind::Unary(_, a) => stack.push(a),
            ExprKind::Binary(_, a, b) => stack.extend([&**a, &**b]),
            ExprKind::Ite(c, a, b) => stack.extend([&**c, &**a, &**b]),
            ExprKind::Call(_, args) => stack.extend(args),
            ExprKind::Filter(_, a, b) => stack.extend(std::iter::once(&**a).chain(b.as_deref())),
            ExprKind::Int(_)
            | ExprKind::Real(_)
            | ExprKind::Bool(_)
            | ExprKind::Label(_)
            | ExprKind::Query(_) => {}
        }
    }
}

/// `names` ordered so that each comes after the names among them that `uses` lists for it
/// (depth first, in linear time); the error is a name on a cycle.
pub(crate) fn dependency_order<'n, 'u>(
    names: &'n [String],
    uses: impl Fn(&str) -> Vec<&'u str>,
) -> Result<Vec<&'n String>, &'n String> {
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    // 0: not reached, 1: on the current path, 2: done.
    let mut mark = vec![0u8; names.len()];
    let mut out = Vec::with_capacity(names.len());
    for start in 0..names.len() {
        if mark[start] != 0 {
            continue;
        }
        let deps = |i: usize| -> Vec<usize> {
            uses(&names[i])
                .into_iter()
                .filter_map(|n| index.get(n).copied())
                .collect()
        };
        mark[start] = 1;
        let mut path = vec![(start, deps(start), 0usize)];
        while let Some((node, next, at)) = path.last_mut() {
            match next.get(*at).copied() {
                Some(d) => {
                    *at += 1;
                    match mark[d] {
                        0 => {
                            mark[d] = 1;
                            let ds = deps(d);
                            path.push((d, ds, 0));
                        }
                        1 => return Err(&names[d]),
                        _ => {}
                    }
                }
                None => {
                    mark[*node] = 2;
                    out.push(&names[*node]);
                    path.pop();
                }
            }
        }
    }
    Ok(out)
}
