//! The first part of the checking pass: the model's constants and formulas declared (each name
//! once, as one or the other), the values the user gives matched to the constants the model
//! leaves undefined, and every constant evaluated, in an order where each comes after those it
//! names.

use std::collections::{HashMap, HashSet};

use crate::program::order::{dependency_order, names_in};
use crate::program::resolve::{Checker, Scope};
use crate::program::value::{Value, Q};
use crate::syntax::ast::{Const, ConstType, Expr, Item, Model};
use crate::syntax::diagnostic::{Diagnostic, Span};

/// A model's constants, evaluated, and its formulas.
pub(super) struct Constants {
    /// The constants in the order the model declares them, with their values.
    pub(super) values: Vec<(String, Value)>,
    /// The same by name.
    pub(super) by_name: HashMap<String, Value>,
    /// The constants whose value need not be rational (see [`super::Program::inexact`]).
    pub(super) inexact: HashSet<String>,
    /// Formulas by name, as written.
    pub(super) formulas: HashMap<String, Expr>,
    /// The names given values that the model does not declare.
    pub(super) unclaimed: Vec<String>,
}

/// The constants and formulas a model declares, by name, and the constants' order.
struct Declared<'m> {
    consts: HashMap<String, &'m Const>,
    order: Vec<String>,
    formulas: HashMap<String, Expr>,
}

impl Constants {
    /// The constants of `model` (read from `file`, checked by `ck`) evaluated, with the
    /// values `given` for those it leaves undefined (as text, `("N", "3")`).
    pub(super) fn of(
        ck: &Checker<'_>,
        file: &str,
        model: &Model,
        given: &[(String, String)],
    ) -> Result<Constants, Diagnostic> {
        let declared = declarations(ck, model)?;
        let unclaimed = check_given(ck, file, &declared, given)?;
        let (by_name, inexact) = evaluate(ck, &declared, given)?;
        let values = declared
            .order
            .iter()
            .map(|n| (n.clone(), by_name[n]))
            .collect();
        Ok(Constants {
            values,
            by_name,
            inexact,
            formulas: declared.formulas,
            unclaimed,
        })
    }
}

/// The constants and formulas of `model`: no name declared twice, or as both.
fn declarations<'m>(ck: &Checker<'_>, model: &'m Model) -> Result<Declared<'m>, Diagnostic> {
    let mut consts: HashMap<String, &Const> = HashMap::new();
    let mut order = Vec::new();
    let mut formulas: HashMap<String, Expr> = HashMap::new();
    let mut formula_names: HashMap<&str, Span> = HashMap::new();
    for item in &model.items {
        match item {
            Item::Const(c) => {
                let name = &c.name.name;
                if let Some(first) = consts.get(name) {
                    let at = ck.place(first.name.span);
                    return Err(ck.error(
                        c.name.span,
                        format!("constant '{name}' is declared twice (first at {at})"),
                    ));
                }
                if let Some(&f) = formula_names.get(name.as_str()) {
                    let at = ck.place(f);
                    return Err(ck.error(
                        c.name.span,
                        format!("'{name}' is a formula (at {at}) and a constant"),
                    ));
                }
                consts.insert(name.clone(), c);
                order.push(name.clone());
            }
            Item::Formula(n, e) => {
                if let Some(&first) = formula_names.get(n.name.as_str()) {
                    let at = ck.place(first);
                    return Err(ck.error(
                        n.span,
                        format!("formula '{}' is declared twice (first at {at})", n.name),
                    ));
                }
                if let Some(c) = consts.get(&n.name) {
                    let at = ck.place(c.name.span);
                    return Err(ck.error(
                        n.span,
                        format!("'{}' is a constant (at {at}) and a formula", n.name),
                    ));
                }
                formula_names.insert(&n.name, n.span);
                formulas.insert(n.name.clone(), e.clone());
            }
            _ => {}
        }
    }
    Ok(Declared {
        consts,
        order,
        formulas,
    })
}

/// Checks that each constant is `given` one value at most, and only one the model leaves
/// undefined, and that every one it leaves undefined is given one; the names given that the
/// model does not declare (a properties file's, kept for the front end to check that one
/// declares them).
fn check_given(
    ck: &Checker<'_>,
    file: &str,
    declared: &Declared<'_>,
    given: &[(String, String)],
) -> Result<Vec<String>, Diagnostic> {
    let mut values: HashMap<&str, &str> = HashMap::new();
    for (name, value) in given {
        if let Some(first) = values.insert(name, value) {
            return Err(Diagnostic::plain(
                file,
                format!("constant '{name}' is given two values, {name}={first} and {name}={value}"),
            ));
        }
        if let Some(c) = declared.consts.get(name).filter(|c| c.value.is_some()) {
            return Err(ck.error(
                c.name.span,
                format!(
                    "constant '{name}' is defined in the model and given the value \
                     {name}={value} as well: only a constant left undefined takes one"
                ),
            ));
        }
    }
    let missing: Vec<&str> = declared
        .order
        .iter()
        .filter(|n| declared.consts[*n].value.is_none() && !given.iter().any(|(g, _)| g == *n))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(Diagnostic::plain(
            file,
            format!(
                "undefined constants: {} (give them values: {})",
                missing.join(", "),
                missing
                    .iter()
                    .map(|m| format!("{m}=..."))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ));
    }
    Ok(given
        .iter()
        .filter(|(name, _)| !declared.consts.contains_key(name))
        .map(|(name, _)| name.clone())
        .collect())
}

/// Every constant's value, by name, and the names of those whose value need not be rational:
/// evaluated in an order where every one comes after those it names (through formulas too),
/// so that one pass evaluates them all.
fn evaluate(
    ck: &Checker<'_>,
    declared: &Declared<'_>,
    given: &[(String, String)],
) -> Result<(HashMap<String, Value>, HashSet<String>), Diagnostic> {
    let Declared {
        consts: decls,
        order,
        formulas,
    } = declared;
    let mut consts: HashMap<String, Value> = HashMap::new();
    let mut inexact: HashSet<String> = HashSet::new();
    let no_vars = HashMap::new();
    let no_formulas = HashMap::new();
    let parsed_given: HashMap<&str, Expr> = given
        .iter()
        .filter(|(name, _)| decls.contains_key(name))
        .map(|(name, text)| {
            crate::syntax::parser::parse_expr(&format!("the value given for {name}"), text)
                .map(|e| (name.as_str(), e))
        })
        .collect::<Result<_, _>>()?;
    let none = HashMap::new();
    let evaluation = dependency_order(order, |name| {
        let mut names = Vec::new();
        match parsed_given.get(name) {
            Some(e) => names_in(e, &none, &mut names),
            None => names_in(
                decls[name].value.as_ref().expect("checked above"),
                formulas,
                &mut names,
            ),
        }
        names
    })
    .map_err(|name| {
        ck.error(
            decls[name].name.span,
            format!("constant '{name}' is defined in terms of itself"),
        )
    })?;
    for name in evaluation {
        let c = decls[name];
        // A value given is read in its own text, without the model's formulas.
        let given_text;
        let (checker, e, formulas_seen) = match parsed_given.get(name.as_str()) {
            Some(e) => {
                let text = &given.iter().find(|(g, _)| g == name).expect("given").1;
                given_text = Checker::new("the value given", text);
                (&given_text, e, &no_formulas)
            }
            None => (ck, c.value.as_ref().expect("checked above"), formulas),
        };
        let scope = Scope {
            consts: &consts,
            formulas: formulas_seen,
            vars: &no_vars,
            labels: None,
            inexact: &inexact,
            unread_vars: None,
        };
        let (resolved, _) = checker.resolve(e, &scope, &mut Vec::new())?;
        let Some(value) = constant_of(resolved, name, &mut inexact) else {
            return Err(checker.error(
                e.span,
                format!("constant '{name}' must not depend on variables"),
            ));
        };
        let value = match (c.ty.unwrap_or(ConstType::Int), value) {
            (ConstType::Int, Value::Int(_)) | (ConstType::Bool, Value::Bool(_)) => value,
            (ConstType::Double, Value::Int(n)) => Value::Real(Q::int(n)),
            (ConstType::Double, Value::Real(_) | Value::Float(_)) => value,
            (ConstType::Int, Value::Real(_) | Value::Float(_)) if c.ty.is_none() => value,
            (t, v) => {
                return Err(ck.error(
                    c.name.span,
                    format!(
                        "constant '{name}' is {} but its value {v} is {}",
                        match t {
                            ConstType::Int => "int",
                            ConstType::Double => "double",
                            ConstType::Bool => "bool",
                        },
                        v.type_name()
                    ),
                ))
            }
        };
        consts.insert(name.clone(), value);
    }
    Ok((consts, inexact))
}

/// The value of constant `name` resolved as `c`, noting in `inexact` whether it need not be
/// rational; `None` if it is no constant.
fn constant_of(c: super::CExpr, name: &str, inexact: &mut HashSet<String>) -> Option<Value> {
    use super::CExpr;
    match c {
        CExpr::Const(v) => Some(v),
        CExpr::Inexact(inner) => match *inner {
            CExpr::Const(v) => {
                inexact.insert(name.to_string());
                Some(v)
            }
            _ => None,
        },
        _ => None,
    }
}
