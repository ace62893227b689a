//! The modules a model composes: copies of a module under a renaming (`module M2 = M1 [ … ]
//! endmodule`), with the checks of the renaming, and the `system … endsystem` block, checked
//! to say what PRISM does without one.

use std::collections::HashMap;

use crate::program::resolve::Checker;
use crate::syntax::ast::*;
use crate::syntax::diagnostic::Diagnostic;

/// A renaming that maps each name once and no two names to one.
pub(super) fn check_renaming(ck: &Checker<'_>, r: &Renamed) -> Result<(), Diagnostic> {
    let mut from: HashMap<&str, &Ident> = HashMap::new();
    let mut to: HashMap<&str, &Ident> = HashMap::new();
    for (a, b) in &r.renames {
        if let Some(first) = from.insert(&a.name, b) {
            return Err(ck.error(
                a.span,
                format!(
                    "'{}' is renamed twice, to '{}' (at {}) and to '{}'",
                    a.name,
                    first.name,
                    ck.place(first.span),
                    b.name
                ),
            ));
        }
        if let Some(first) = to.insert(&b.name, a) {
            return Err(ck.error(
                b.span,
                format!(
                    "'{}' (at {}) and '{}' are both renamed to '{}'",
                    first.name,
                    ck.place(first.span),
                    a.name,
                    b.name
                ),
            ));
        }
    }
    Ok(())
}

/// A copy of `base` under the renaming of `r`, its formulas expanded first.
pub(super) fn rename_module(
    base: &Module,
    r: &Renamed,
    formulas: &HashMap<String, Expr>,
) -> Module {
    let map: HashMap<&str, &str> = r
        .renames
        .iter()
        .map(|(a, b)| (a.name.as_str(), b.name.as_str()))
        .collect();
    let ident = |i: &Ident| Ident {
        name: map
            .get(i.name.as_str())
            .map_or(i.name.clone(), |s| s.to_string()),
        span: i.span,
    };
    let expr = |e: &Expr| rename_expr(e, &map, formulas, 0);
    Module {
        name: r.name.clone(),
        vars: base
            .vars
            .iter()
            .map(|v| VarDecl {
                name: ident(&v.name),
                ty: match &v.ty {
                    VarType::Range(lo, hi) => VarType::Range(expr(lo), expr(hi)),
                    VarType::Bool => VarType::Bool,
                },
                init: v.init.as_ref().map(expr),
            })
            .collect(),
        commands: base
            .commands
            .iter()
            .map(|c| Command {
                action: c.action.as_ref().map(ident),
                guard: expr(&c.guard),
                updates: c
                    .updates
                    .iter()
                    .map(|u| Update {
                        prob: u.prob.as_ref().map(expr),
                        assigns: u.assigns.iter().map(|(v, e)| (ident(v), expr(e))).collect(),
                        span: u.span,
                    })
                    .collect(),
                span: c.span,
            })
            .collect(),
    }
}

/// `e` with formulas expanded and names renamed simultaneously.
fn rename_expr(
    e: &Expr,
    map: &HashMap<&str, &str>,
    formulas: &HashMap<String, Expr>,
    depth: usize,
) -> Expr {
    let kind = match &e.kind {
        ExprKind::Name(n) => match formulas.get(n) {
            // A formula that uses itself is left for the checking pass to report.
            Some(f) if depth < 64 => return rename_expr(f, map, formulas, depth + 1),
            _ => ExprKind::Name(map.get(n.as_str()).map_or(n.clone(), |s| s.to_string())),
        },
        ExprKind::Unary(op, a) => {
            ExprKind::Unary(*op, Box::new(rename_expr(a, map, formulas, depth)))
        }
        ExprKind::Binary(op, a, b) => ExprKind::Binary(
            *op,
            Box::new(rename_expr(a, map, formulas, depth)),
            Box::new(rename_expr(b, map, formulas, depth)),
        ),
        ExprKind::Ite(a, b, c) => ExprKind::Ite(
            Box::new(rename_expr(a, map, formulas, depth)),
            Box::new(rename_expr(b, map, formulas, depth)),
            Box::new(rename_expr(c, map, formulas, depth)),
        ),
        ExprKind::Call(f, args) => ExprKind::Call(
            *f,
            args.iter()
                .map(|a| rename_expr(a, map, formulas, depth))
                .collect(),
        ),
        other => other.clone(),
    };
    Expr { kind, span: e.span }
}

/// A `system … endsystem` block is understood where it says what PRISM does without one:
/// every module once, composed with `||` (or with `|||` where no action is shared, which is
/// then the same); any other composition is an error that says so.
pub(super) fn check_system(
    ck: &Checker<'_>,
    sys: &System,
    modules: &[Module],
) -> Result<(), Diagnostic> {
    let unsupported = |what: &str| {
        ck.error(
            sys.span,
            format!(
                "system … endsystem {what}: only every module once, composed with || (or ||| \
                 where no action is shared), is supported, as when the block is absent"
            ),
        )
    };
    let Some((listed, interleaved)) = &sys.parallel else {
        return Err(unsupported(
            "in this form (hiding, renaming, |[…]|, or || mixed with |||)",
        ));
    };
    for m in listed {
        if !modules.iter().any(|d| d.name.name == m.name) {
            return Err(ck.error(m.span, format!("no module '{}'", m.name)));
        }
        if listed.iter().filter(|o| o.name == m.name).count() > 1 {
            return Err(unsupported(&format!("names '{}' twice", m.name)));
        }
    }
    if let Some(missing) = modules
        .iter()
        .find(|d| !listed.iter().any(|m| m.name == d.name.name))
    {
        return Err(unsupported(&format!("leaves out '{}'", missing.name.name)));
    }
    if *interleaved {
        let actions = |m: &Module| -> Vec<String> {
            m.commands
                .iter()
                .filter_map(|c| c.action.as_ref().map(|a| a.name.clone()))
                .collect()
        };
        for (i, a) in modules.iter().enumerate() {
            let mine = actions(a);
            for b in &modules[i + 1..] {
                if let Some(shared) = actions(b).iter().find(|x| mine.contains(x)) {
                    return Err(unsupported(&format!(
                        "interleaves '{}' and '{}', which share [{shared}]",
                        a.name.name, b.name.name
                    )));
                }
            }
        }
    }
    Ok(())
}
