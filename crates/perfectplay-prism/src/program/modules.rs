//! The modules a model composes: copies of a module under a renaming (`module M2 = M1 [ … ]
//! endmodule`), with the checks of the renaming, and the `system … endsystem` block, which
//! composes them by PRISM's process-algebra operators.

use std::collections::{BTreeSet, HashMap};

use crate::program::resolve::Checker;
use crate::program::Cmd;
use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};

/// A renaming that maps each name once, no two names to one, and every variable of `base` to
/// a new one (as PRISM requires: a copy's variables are its own).
pub(super) fn check_renaming(
    ck: &Checker<'_>,
    base: &Module,
    r: &Renamed,
) -> Result<(), Diagnostic> {
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
    if let Some(v) = base
        .vars
        .iter()
        .find(|v| !from.contains_key(v.name.name.as_str()))
    {
        return Err(ck.error(
            r.name.span,
            format!(
                "module '{}' must rename variable '{}' of module '{}' (at {}): a copy's \
                 variables are its own",
                r.name.name,
                v.name.name,
                base.name.name,
                ck.place(v.name.span)
            ),
        ));
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

/// One way the composed system moves on an action (a *sync*): the name it goes by (`None`
/// where it is hidden, which makes it unlabelled), and the modules that take part, each with
/// the action its own commands carry. A step takes one enabled command of each part, as a
/// synchronised action does.
#[derive(Clone, Debug)]
pub(super) struct Sync {
    pub name: Option<String>,
    pub parts: Vec<(usize, String)>,
}

/// What a `system … endsystem` block composes: its syncs, or `None` where it composes every
/// module with `||` alone, in any order and grouping, which is what PRISM does without a block
/// (every action synchronises all the modules that have it). Every module must appear once.
pub(super) fn compose(
    ck: &Checker<'_>,
    sys: &System,
    modules: &[Module],
    model_type: ModelType,
) -> Result<Option<Vec<Sync>>, Diagnostic> {
    let mut used = vec![false; modules.len()];
    let (syncs, _) = syncs_of(ck, &sys.expr, modules, &mut used)?;
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(ck.error(
            sys.span,
            format!(
                "system … endsystem leaves out module '{}' (PRISM composes every module)",
                modules[i].name.name
            ),
        ));
    }
    if plain(&sys.expr) {
        return Ok(None);
    }
    if model_type == ModelType::Smg {
        return Err(ck.error(
            sys.span,
            "system … endsystem with |||, |[…]|, hiding or renaming in an smg: players own \
             actions by name, and these change names; compose the modules with || alone",
        ));
    }
    Ok(Some(syncs))
}

/// The commands recomposed by `syncs` (see [`Sync`]): the actions become the syncs, named
/// as they go (a hidden one unnamed), and each command of an action is copied once for
/// each sync its module takes part in on it (none where the action is blocked).
pub(super) fn recompose(
    actions: &mut Vec<String>,
    commands: &mut Vec<Cmd>,
    syncs: &[Sync],
) -> Composed {
    let names = std::mem::take(actions);
    let mut takes: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (k, sync) in syncs.iter().enumerate() {
        let name = sync.name.clone().unwrap_or_default();
        by_name.entry(name.clone()).or_default().push(k);
        actions.push(name);
        for (m, a) in &sync.parts {
            takes.entry((*m, a.as_str())).or_default().push(k);
        }
    }
    for c in std::mem::take(commands) {
        let Some(a) = c.action else {
            commands.push(c);
            continue;
        };
        for &k in takes
            .get(&(c.module, names[a].as_str()))
            .into_iter()
            .flatten()
        {
            commands.push(Cmd {
                action: Some(k),
                ..c.clone()
            });
        }
    }
    Composed { by_name }
}

/// The actions of a recomposed program, by name: what a reward item's action stands for.
pub(super) struct Composed {
    /// The syncs of each name (`""` for the hidden ones).
    by_name: HashMap<String, Vec<usize>>,
}

impl Composed {
    /// The actions on which a transition reward of `[a]` (`None` for `[]`) is earned: each
    /// sync named `a`; for `[]`, the unlabelled commands and each hidden sync too, as hidden
    /// steps are unlabelled ones (as in PRISM).
    pub(super) fn reward_actions(&self, a: Option<&str>) -> Vec<Option<usize>> {
        let syncs = self.by_name.get(a.unwrap_or("")).into_iter().flatten();
        let unlabelled = a.is_none().then_some(None);
        unlabelled
            .into_iter()
            .chain(syncs.map(|&k| Some(k)))
            .collect()
    }
}

/// Whether a composition is of modules by `||` alone.
fn plain(e: &SysExpr) -> bool {
    match e {
        SysExpr::Module(_) => true,
        SysExpr::Full(parts) => parts.iter().all(plain),
        _ => false,
    }
}

/// The syncs of composition `e` and its alphabet (the actions its modules name, renamed, less
/// those hidden), marking the modules it uses in `used`.
fn syncs_of(
    ck: &Checker<'_>,
    e: &SysExpr,
    modules: &[Module],
    used: &mut [bool],
) -> Result<(Vec<Sync>, BTreeSet<String>), Diagnostic> {
    Ok(match e {
        SysExpr::Module(m) => {
            let Some(i) = modules.iter().position(|d| d.name.name == m.name) else {
                return Err(ck.error(m.span, format!("no module '{}'", m.name)));
            };
            if std::mem::replace(&mut used[i], true) {
                return Err(ck.error(
                    m.span,
                    format!("module '{}' appears twice in system … endsystem", m.name),
                ));
            }
            let alphabet: BTreeSet<String> = modules[i]
                .commands
                .iter()
                .filter_map(|c| c.action.as_ref().map(|a| a.name.clone()))
                .collect();
            let syncs = alphabet
                .iter()
                .map(|a| Sync {
                    name: Some(a.clone()),
                    parts: vec![(i, a.clone())],
                })
                .collect();
            (syncs, alphabet)
        }
        SysExpr::Full(parts) | SysExpr::Interleaved(parts) => {
            let full = matches!(e, SysExpr::Full(_));
            let mut parts = parts.iter();
            let first = parts.next().expect("a composition has operands");
            let mut acc = syncs_of(ck, first, modules, used)?;
            for p in parts {
                let next = syncs_of(ck, p, modules, used)?;
                let on: BTreeSet<String> = match full {
                    true => acc.1.intersection(&next.1).cloned().collect(),
                    false => BTreeSet::new(),
                };
                acc = parallel(ck, e, acc, next, &on)?;
            }
            acc
        }
        SysExpr::Sync(a, actions, b) => {
            let a = syncs_of(ck, a, modules, used)?;
            let b = syncs_of(ck, b, modules, used)?;
            let on = actions.iter().map(|x| x.name.clone()).collect();
            parallel(ck, e, a, b, &on)?
        }
        SysExpr::Hide(inner, actions) => {
            let (mut syncs, mut alphabet) = syncs_of(ck, inner, modules, used)?;
            let hidden: BTreeSet<&str> = actions.iter().map(|x| x.name.as_str()).collect();
            for s in &mut syncs {
                if s.name.as_deref().is_some_and(|n| hidden.contains(n)) {
                    s.name = None;
                }
            }
            alphabet.retain(|a| !hidden.contains(a.as_str()));
            (syncs, alphabet)
        }
        SysExpr::Rename(inner, pairs) => {
            let mut to: HashMap<&str, &str> = HashMap::new();
            for (a, b) in pairs {
                if to.insert(&a.name, &b.name).is_some() {
                    return Err(ck.error(a.span, format!("action '{}' is renamed twice", a.name)));
                }
            }
            let (mut syncs, alphabet) = syncs_of(ck, inner, modules, used)?;
            let rename = |a: &str| to.get(a).map_or(a, |b| *b).to_string();
            for s in &mut syncs {
                s.name = s.name.as_deref().map(rename);
            }
            let alphabet = alphabet.iter().map(|a| rename(a)).collect();
            (syncs, alphabet)
        }
    })
}

/// `a` and `b` in parallel, synchronised on the actions `on`: the syncs of either side on any
/// other action (or hidden) as they are, and for each action of `on` every pair of a sync of
/// `a` and one of `b` on it (none where a side has none: the action is blocked).
fn parallel(
    ck: &Checker<'_>,
    e: &SysExpr,
    (a, alpha_a): (Vec<Sync>, BTreeSet<String>),
    (b, alpha_b): (Vec<Sync>, BTreeSet<String>),
    on: &BTreeSet<String>,
) -> Result<(Vec<Sync>, BTreeSet<String>), Diagnostic> {
    let shared = |s: &Sync| s.name.as_ref().is_some_and(|n| on.contains(n));
    let mut out: Vec<Sync> = a.iter().chain(&b).filter(|s| !shared(s)).cloned().collect();
    for x in a.iter().filter(|s| shared(s)) {
        for y in b.iter().filter(|s| s.name == x.name) {
            if out.len() >= MAX_SYNCS {
                return Err(ck.error(
                    span_of(e),
                    format!(
                        "this composition has more than {MAX_SYNCS} ways for modules to \
                         step together"
                    ),
                ));
            }
            out.push(Sync {
                name: x.name.clone(),
                parts: x.parts.iter().chain(&y.parts).cloned().collect(),
            });
        }
    }
    Ok((out, alpha_a.union(&alpha_b).cloned().collect()))
}

/// The most ways for modules to step together a composition may have (each a copy of the
/// commands that take part).
const MAX_SYNCS: usize = 1 << 16;

/// Where a composition starts: its first module.
fn span_of(e: &SysExpr) -> Span {
    match e {
        SysExpr::Module(m) => m.span,
        SysExpr::Full(parts) | SysExpr::Interleaved(parts) => span_of(&parts[0]),
        SysExpr::Sync(a, ..) | SysExpr::Hide(a, _) | SysExpr::Rename(a, _) => span_of(a),
    }
}
