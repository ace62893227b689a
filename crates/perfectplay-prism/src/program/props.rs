//! A properties file read against a model: its constants (given, defined, or left for the
//! properties that use them), its formulas and labels, and its properties in order, those
//! written with unsupported constructs kept aside with their error.

/// Why a properties file's properties cannot be checked as a whole (what has a place in the
/// text is a [`crate::Diagnostic`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropsError {
    /// Constants of the properties file that the property uses and no value is given for.
    #[error(
        "undefined constant{} '{}' of the properties (give {} a value)",
        if .0.len() > 1 { "s" } else { "" },
        .0.join("', '"),
        if .0.len() > 1 { "them" } else { "it" }
    )]
    Undefined(Vec<String>),
    /// Properties that refer to each other by name in a circle (the names, quoted, in order).
    #[error("properties refer to each other in a circle: {}", .0.join(" → "))]
    Circle(Vec<String>),
    /// A property refers by name to one written with a construct that is not supported.
    #[error(
        "property \"{0}\" is used here, and it is written with a construct that is not supported"
    )]
    UsesUnsupported(String),
    /// A properties file's constant whose value depends on the model's variables.
    #[error("a constant must not depend on variables")]
    ConstantOnVariables,
    /// A problem with a place in the text (the front door's [`crate::Error`] has it as its
    /// `Text`).
    #[error("{}", .0.render())]
    Text(Diagnostic),
}

impl From<Diagnostic> for PropsError {
    fn from(d: Diagnostic) -> PropsError {
        PropsError::Text(d)
    }
}

use crate::program::value::Value;
use crate::program::{CExpr, Program, PropertyScope};
use crate::syntax::ast::{ExprKind, Item, Path, PropertiesFile};
use crate::syntax::diagnostic::Diagnostic;
use crate::syntax::parser::parse_properties;

/// A property to check: its name (if any), its text as printed, and where it came from.
#[derive(Clone)]
pub struct Prop {
    /// Its name in the properties file.
    pub name: Option<String>,
    /// The property as PRISM text.
    pub text: String,
    pub(crate) expr: crate::syntax::ast::Expr,
    /// Why it cannot be checked, for a property written with a construct outside the
    /// supported language (its `expr` is then a placeholder).
    unsupported: Option<Diagnostic>,
    /// Why a reference to another property by its name cannot be followed (a circle).
    unresolved: Option<PropsError>,
    pub(crate) file: String,
    pub(crate) src: String,
}

impl Prop {
    /// The same property (name, text, source) with `expr` in place of its expression, as
    /// a default filter wraps it.
    pub(crate) fn with_expr(&self, expr: crate::syntax::ast::Expr) -> Prop {
        Prop {
            expr,
            ..self.clone()
        }
    }
}

/// The properties of a properties file (or of one property's text), with the file's
/// constants evaluated against the model's.
#[derive(Clone)]
pub struct Props {
    /// The properties in order.
    pub props: Vec<Prop>,
    /// The file's constants, formulas and labels.
    pub(crate) scope: PropertyScope,
    /// Constants the file declares without a value and nobody gave.
    undefined: Vec<String>,
}

impl Props {
    /// Parses the properties `src` read from `file`; `given` holds values for constants the
    /// file leaves undefined.
    pub fn new(
        program: &Program,
        file: &str,
        src: &str,
        given: &[(String, String)],
    ) -> Result<Props, PropsError> {
        let parsed: PropertiesFile = parse_properties(file, src)?;
        let mut scope = PropertyScope::default();
        let mut undefined = Vec::new();
        for item in &parsed.items {
            let name = match item {
                Item::Const(c) => &c.name,
                Item::Formula(n, _) | Item::Label(n, _) => n,
                _ => unreachable!("a properties file declares constants, formulas and labels"),
            };
            let model_has = match item {
                Item::Label(..) => program.labels.iter().any(|(l, _)| *l == name.name),
                _ => program.has_name(&name.name),
            };
            if model_has
                || scope.consts.contains_key(&name.name)
                || scope.formulas.contains_key(&name.name)
                || scope.labels.contains_key(&name.name)
                || undefined.contains(&name.name)
            {
                return Err(PropsError::Text(Diagnostic::at(
                    file,
                    src,
                    name.span,
                    format!("'{}' is defined twice", name.name),
                )));
            }
            match item {
                Item::Formula(n, e) => {
                    scope.formulas.insert(n.name.clone(), e.clone());
                }
                Item::Label(n, e) => {
                    let c = program.resolve_property(file, src, e, &scope)?;
                    scope.labels.insert(n.name.clone(), c);
                }
                Item::Const(c) => {
                    let (value, inexact) =
                        match (&c.value, given.iter().find(|(n, _)| *n == c.name.name)) {
                            (Some(_), Some((_, text))) => {
                                return Err(PropsError::Text(Diagnostic::at(
                                    file,
                                    src,
                                    c.name.span,
                                    format!(
                                        "constant '{0}' is defined in the properties and given \
                                         the value {0}={text} as well: only a constant left \
                                         undefined takes one",
                                        c.name.name
                                    ),
                                )));
                            }
                            (None, Some((_, text))) => {
                                let file = format!("the value given for {}", c.name.name);
                                let e = crate::syntax::parser::parse_expr(&file, text)?;
                                const_of(program, &file, text, &e, &scope)?
                            }
                            (Some(e), None) => const_of(program, file, src, e, &scope)?,
                            (None, None) => {
                                // As in PRISM, only the properties that use it need its value.
                                undefined.push(c.name.name.clone());
                                continue;
                            }
                        };
                    if inexact {
                        scope.inexact.insert(c.name.name.clone());
                    }
                    scope.consts.insert(c.name.name.clone(), value);
                }
                _ => unreachable!("matched above"),
            }
        }
        let mut kept = parsed.unsupported.into_iter().peekable();
        let mut parsed = parsed.properties.into_iter();
        let mut props = Vec::new();
        loop {
            let prop = match kept.next_if(|u| u.index == props.len()) {
                Some(u) => Prop {
                    name: u.name.map(|n| n.name),
                    text: u.text,
                    expr: crate::syntax::ast::Expr {
                        kind: ExprKind::Bool(false),
                        span: crate::syntax::diagnostic::Span::default(),
                    },
                    unsupported: Some(u.error),
                    unresolved: None,
                    file: file.to_string(),
                    src: src.to_string(),
                },
                None => match parsed.next() {
                    Some(p) => Prop {
                        name: p.name.map(|n| n.name),
                        text: p.expr.to_string(),
                        expr: p.expr,
                        unsupported: None,
                        unresolved: None,
                        file: file.to_string(),
                        src: src.to_string(),
                    },
                    None => break,
                },
            };
            props.push(prop);
        }
        let is_label = |name: &str| {
            matches!(name, "init" | "deadlock")
                || scope.labels.contains_key(name)
                || program.labels.iter().any(|(l, _)| l == name)
        };
        inline_references(&mut props, is_label);
        Ok(Props {
            props,
            scope,
            undefined,
        })
    }

    /// Whether the file declares constant `name` (with a value or without).
    pub fn declares(&self, name: &str) -> bool {
        self.scope.consts.contains_key(name) || self.undefined.iter().any(|u| u == name)
    }

    /// An error for a property written with an unsupported construct, or naming the
    /// constants of the file that `prop` uses and nobody defined.
    pub(crate) fn defined_for(&self, prop: &Prop) -> Result<(), PropsError> {
        if let Some(d) = &prop.unsupported {
            return Err(PropsError::Text(d.clone()));
        }
        if let Some(e) = &prop.unresolved {
            return Err(e.clone());
        }
        let missing: Vec<&str> = self
            .undefined
            .iter()
            .filter(|n| mentions(&prop.expr, n))
            .map(String::as_str)
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(PropsError::Undefined(
            missing.into_iter().map(String::from).collect(),
        ))
    }
}

/// Replaces each reference to another property by its name (`"safe" & "live"`, PRISM's way of
/// reusing a named property, written as a label where no label has that name) by that
/// property's formula, so that every property stands on its own; a property that refers to
/// itself, directly or not, is an error.
fn inline_references(props: &mut [Prop], is_label: impl Fn(&str) -> bool) {
    let named: Vec<(String, usize)> = props
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((p.name.clone()?, i)))
        .collect();
    if named.is_empty() {
        return;
    }
    fn inline(
        i: usize,
        props: &[Prop],
        named: &[(String, usize)],
        is_label: &dyn Fn(&str) -> bool,
        stack: &mut Vec<usize>,
    ) -> Result<crate::syntax::ast::Expr, PropsError> {
        if stack.contains(&i) {
            let names: Vec<String> = stack
                .iter()
                .chain([&i])
                .map(|&j| format!("\"{}\"", props[j].name.as_deref().unwrap_or("?")))
                .collect();
            return Err(PropsError::Circle(names));
        }
        stack.push(i);
        let e = props[i].expr.try_rewrite(&mut |e| match &e.kind {
            ExprKind::Label(l) if !is_label(l) => match named.iter().find(|(n, _)| n == l) {
                Some(&(_, j)) if props[j].unsupported.is_none() => {
                    inline(j, props, named, is_label, stack).map(Some)
                }
                Some(_) => Err(PropsError::UsesUnsupported(l.clone())),
                None => Ok(None),
            },
            _ => Ok(None),
        });
        stack.pop();
        e
    }
    for i in 0..props.len() {
        if props[i].unsupported.is_some() {
            continue;
        }
        match inline(i, props, &named, &is_label, &mut Vec::new()) {
            Ok(e) => props[i].expr = e,
            // Kept for the property's own check, which reports it.
            Err(e) => props[i].unresolved = Some(e),
        }
    }
}

/// Whether `e` mentions the name `name` anywhere, queries and their paths included.
fn mentions(e: &crate::syntax::ast::Expr, name: &str) -> bool {
    use crate::syntax::ast::Expr;
    let any = |es: &[&Expr]| es.iter().any(|e| mentions(e, name));
    match &e.kind {
        ExprKind::Name(n) => n == name,
        ExprKind::Unary(_, a) => mentions(a, name),
        ExprKind::Binary(_, a, b) => any(&[a, b]),
        ExprKind::Ite(c, a, b) => any(&[c, a, b]),
        ExprKind::Call(_, args) => args.iter().any(|a| mentions(a, name)),
        ExprKind::Filter(_, a, b) => {
            mentions(a, name) || b.as_ref().is_some_and(|b| mentions(b, name))
        }
        ExprKind::Query(q) => {
            q.bound.as_ref().is_some_and(|(_, b)| mentions(b, name))
                || match &q.path {
                    Path::Eventually(t)
                    | Path::EventuallyCumulative(t)
                    | Path::EventuallyZero(t) => mentions(t, name),
                    Path::Until(a, b) => any(&[a, b]),
                    Path::WeakUntil(a, b, k) | Path::Release(a, b, k) => {
                        any(&[a, b]) || k.as_ref().is_some_and(|s| steps_mention(s, name))
                    }
                    Path::Next(t) | Path::Now(t) | Path::LongRun(Some(t)) => mentions(t, name),
                    Path::Globally { steps, target } => {
                        mentions(target, name)
                            || steps.as_ref().is_some_and(|s| steps_mention(s, name))
                    }
                    Path::Total | Path::LongRun(None) => false,
                    Path::Cumulative(k) | Path::Instant(k) => mentions(k, name),
                    Path::Bounded {
                        through,
                        steps,
                        target,
                    } => {
                        mentions(target, name)
                            || steps_mention(steps, name)
                            || through.as_ref().is_some_and(|t| mentions(t, name))
                    }
                    Path::RewardBounded {
                        through,
                        bound,
                        target,
                    } => {
                        mentions(target, name)
                            || mentions(&bound.value, name)
                            || through.as_ref().is_some_and(|t| mentions(t, name))
                    }
                }
        }
        ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Bool(_) | ExprKind::Label(_) => false,
    }
}

/// The value of a property file's constant expression `e`, and whether it need not be rational
/// (see [`CExpr::Inexact`]).
pub(crate) fn const_of(
    program: &Program,
    file: &str,
    src: &str,
    e: &crate::syntax::ast::Expr,
    scope: &PropertyScope,
) -> Result<(Value, bool), PropsError> {
    match program.resolve_value(file, src, e, scope)? {
        CExpr::Const(v) => Ok((v, false)),
        CExpr::Inexact(inner) => match *inner {
            CExpr::Const(v) => Ok((v, true)),
            _ => Err(PropsError::ConstantOnVariables),
        },
        _ => Err(PropsError::ConstantOnVariables),
    }
}

/// Whether a step bound mentions `name`.
fn steps_mention(steps: &crate::syntax::ast::Steps, name: &str) -> bool {
    [&steps.from, &steps.to]
        .into_iter()
        .flatten()
        .any(|e| mentions(e, name))
}
