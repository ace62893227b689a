//! Resolving expressions: names to variable indices, constants and formulas (expanded), types
//! checked, and the parts that read no variable folded to constants.

use std::collections::{HashMap, HashSet};

use crate::program::eval::CExpr;
use crate::program::value::{Value, Q};
use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};

/// The type of an expression, as the checking pass infers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `bool`
    Bool,
    /// `int`
    Int,
    /// `double`
    Real,
}

/// What a name stands for while resolving.
pub(crate) struct Scope<'a> {
    pub consts: &'a HashMap<String, Value>,
    pub formulas: &'a HashMap<String, Expr>,
    /// Variables: number and whether boolean.
    pub vars: &'a HashMap<String, (usize, bool)>,
    pub labels: Option<&'a HashMap<String, CExpr>>,
    /// The constants among `consts` defined by a value that need not be rational
    /// ([`CExpr::Inexact`]).
    pub inexact: &'a HashSet<String>,
    /// The model's variables where the expression may read none (a step bound, a value that
    /// must be constant): a name among them is an error that says so, not an unknown name.
    pub unread_vars: Option<&'a [super::Var]>,
}

/// The checking pass over one text (a model or a property file).
pub(crate) struct Checker<'a> {
    pub file: &'a str,
    pub src: &'a str,
    /// How deep `resolve` is nested, formulas expanded (see [`MAX_RESOLVE_DEPTH`]).
    depth: std::cell::Cell<usize>,
    /// Nodes resolved so far (see [`MAX_RESOLVED`]).
    nodes: std::cell::Cell<usize>,
    /// While an error leaves nested formulas: the innermost one it arose in and what it says
    /// there (see `in_formula`).
    failed_in: std::cell::RefCell<Option<(String, String)>>,
    /// How many enclosing parts never evaluate the one being resolved (the right side of
    /// `false & …`, a branch of `true ? … : …`): an error in folding it is no error there, as
    /// PRISM's evaluation short-circuits, and it is left unfolded.
    skipped: std::cell::Cell<usize>,
}

/// The deepest an expression may be once its formulas are expanded: deeper is an error, not a
/// stack overflow in the passes that walk it.
pub(crate) const MAX_RESOLVE_DEPTH: usize = 800;

/// The most nodes the expressions of one text may have once their formulas are expanded (a
/// formula used twice in the next, and that in the next, doubles at every step).
pub(crate) const MAX_RESOLVED: usize = 20_000_000;

impl<'a> Checker<'a> {
    /// The pass over `src`, read from `file`.
    pub(crate) fn new(file: &'a str, src: &'a str) -> Checker<'a> {
        Checker {
            file,
            src,
            depth: Default::default(),
            nodes: Default::default(),
            failed_in: Default::default(),
            skipped: Default::default(),
        }
    }
}

impl Checker<'_> {
    pub(crate) fn error(&self, span: Span, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.file, self.src, span, msg)
    }

    /// The message of an error `message` that leaves formula `name` (`stack` holds the formulas
    /// around it): named by the formula where it is used and the innermost one, where it
    /// arose, not the whole chain between.
    fn in_formula(&self, name: &str, message: String, stack: &[String]) -> String {
        let mut failed = self.failed_in.borrow_mut();
        let (inner, body) = failed.get_or_insert_with(|| (name.to_string(), message));
        let text = match inner == name {
            true => format!("in formula '{name}': {body}"),
            false => format!("in formula '{name}' (through '{inner}'): {body}"),
        };
        if stack.is_empty() {
            *failed = None;
        }
        text
    }

    /// `line L, column C` of `span`, to name a second place in a message.
    pub(crate) fn place(&self, span: Span) -> String {
        let d = Diagnostic::at(self.file, self.src, span, "");
        format!("line {}, column {}", d.line, d.column)
    }

    /// Resolves `e` in `scope`, folding constant parts; `stack` holds the formulas being
    /// expanded (a formula that uses itself is an error).
    pub(crate) fn resolve(
        &self,
        e: &Expr,
        scope: &Scope<'_>,
        stack: &mut Vec<String>,
    ) -> Result<(CExpr, Type), Diagnostic> {
        let depth = self.depth.get();
        let nodes = self.nodes.get() + 1;
        self.nodes.set(nodes);
        if depth >= MAX_RESOLVE_DEPTH {
            return Err(self.error(
                e.span,
                format!("with its formulas expanded, the expression nests more than {MAX_RESOLVE_DEPTH} levels deep"),
            ));
        }
        if nodes > MAX_RESOLVED {
            return Err(self.error(
                e.span,
                format!("with their formulas expanded, the expressions have more than {MAX_RESOLVED} parts"),
            ));
        }
        self.depth.set(depth + 1);
        let r = self.resolve_node(e, scope, stack);
        self.depth.set(depth);
        r
    }

    /// Resolves `e` as [`Checker::resolve`] does, as a part that is never evaluated when `skip`.
    fn resolve_part(
        &self,
        e: &Expr,
        scope: &Scope<'_>,
        stack: &mut Vec<String>,
        skip: bool,
    ) -> Result<(CExpr, Type), Diagnostic> {
        self.skipped.set(self.skipped.get() + skip as usize);
        let r = self.resolve(e, scope, stack);
        self.skipped.set(self.skipped.get() - skip as usize);
        r
    }

    fn resolve_node(
        &self,
        e: &Expr,
        scope: &Scope<'_>,
        stack: &mut Vec<String>,
    ) -> Result<(CExpr, Type), Diagnostic> {
        let (c, t) = match &e.kind {
            ExprKind::Int(s) => {
                let n: i64 = s
                    .parse()
                    .map_err(|_| self.error(e.span, format!("{s} does not fit in 64 bits")))?;
                (CExpr::Const(Value::Int(n)), Type::Int)
            }
            ExprKind::Real(s) => match Q::parse_decimal(s) {
                Some(q) => (CExpr::Const(Value::Real(q)), Type::Real),
                // Beyond the size a fraction may have (`1e-100000`): the nearest double, as
                // PRISM reads every literal (0 or ±∞ at that size), marked inexact so that
                // exact solves refuse it.
                None => {
                    let v = s
                        .parse::<f64>()
                        .ok()
                        .and_then(Value::of_f64)
                        .ok_or_else(|| self.error(e.span, format!("{s} is not a number")))?;
                    let c = CExpr::Const(v);
                    (CExpr::Inexact(Box::new(c)), Type::Real)
                }
            },
            ExprKind::Bool(b) => (CExpr::Const(Value::Bool(*b)), Type::Bool),
            ExprKind::Name(n) => {
                if let Some(&(i, is_bool)) = scope.vars.get(n) {
                    match is_bool {
                        true => (CExpr::BoolVar(i), Type::Bool),
                        false => (CExpr::Var(i), Type::Int),
                    }
                } else if let Some(v) = scope.consts.get(n) {
                    let t = match v {
                        Value::Bool(_) => Type::Bool,
                        Value::Int(_) => Type::Int,
                        Value::Real(_) | Value::Float(_) => Type::Real,
                    };
                    match scope.inexact.contains(n) {
                        true => (CExpr::Inexact(Box::new(CExpr::Const(*v))), t),
                        false => (CExpr::Const(*v), t),
                    }
                } else if let Some(f) = scope.formulas.get(n) {
                    if stack.contains(n) {
                        return Err(self.error(
                            e.span,
                            format!("formula '{n}' is defined in terms of itself"),
                        ));
                    }
                    if stack.is_empty() {
                        self.failed_in.take();
                    }
                    stack.push(n.clone());
                    let r = self.resolve(f, scope, stack);
                    stack.pop();
                    // A formula written in the model is reported where it is used.
                    r.map_err(|d| self.error(e.span, self.in_formula(n, d.message, stack)))?
                } else if scope
                    .unread_vars
                    .is_some_and(|vs| vs.iter().any(|v| v.name == *n))
                {
                    return Err(self.error(
                        e.span,
                        format!(
                            "'{n}' is a variable of the model, and this must be a constant (it \
                             is taken once, not in each state)"
                        ),
                    ));
                } else {
                    return Err(self.error(e.span, format!("unknown name '{n}'")));
                }
            }
            ExprKind::Label(l) => match scope.labels.and_then(|ls| ls.get(l)) {
                Some(c) => (c.clone(), Type::Bool),
                None => return Err(self.error(e.span, format!("unknown label \"{l}\""))),
            },
            ExprKind::Unary(op, a) => {
                let (ca, ta) = self.resolve(a, scope, stack)?;
                match (op, ta) {
                    (UnOp::Not, Type::Bool) => {}
                    (UnOp::Neg, Type::Int | Type::Real) => {}
                    (UnOp::Not, _) => return Err(self.error(e.span, "'!' needs a boolean")),
                    (UnOp::Neg, _) => return Err(self.error(e.span, "'-' needs a number")),
                }
                (CExpr::Unary(*op, Box::new(ca)), ta)
            }
            ExprKind::Binary(op, a, b) => {
                let (ca, ta) = self.resolve(a, scope, stack)?;
                // The connectives look at their right side only when they must.
                let skip = matches!(
                    (op, &ca),
                    (
                        BinOp::And | BinOp::Implies,
                        CExpr::Const(Value::Bool(false))
                    ) | (BinOp::Or, CExpr::Const(Value::Bool(true)))
                );
                let (cb, tb) = self.resolve_part(b, scope, stack, skip)?;
                let numeric = |t: Type| t != Type::Bool;
                let t =
                    match op {
                        BinOp::Iff | BinOp::Implies | BinOp::Or | BinOp::And => {
                            if ta != Type::Bool || tb != Type::Bool {
                                return Err(self
                                    .error(e.span, format!("'{}' needs two booleans", op.text())));
                            }
                            Type::Bool
                        }
                        BinOp::Eq | BinOp::Ne => {
                            if (ta == Type::Bool) != (tb == Type::Bool) {
                                return Err(self.error(
                                    e.span,
                                    format!("'{}' compares a boolean with a number", op.text()),
                                ));
                            }
                            Type::Bool
                        }
                        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                            if !numeric(ta) || !numeric(tb) {
                                return Err(self
                                    .error(e.span, format!("'{}' needs two numbers", op.text())));
                            }
                            Type::Bool
                        }
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                            if !numeric(ta) || !numeric(tb) {
                                return Err(self
                                    .error(e.span, format!("'{}' needs two numbers", op.text())));
                            }
                            if *op == BinOp::Div || ta == Type::Real || tb == Type::Real {
                                Type::Real
                            } else {
                                Type::Int
                            }
                        }
                    };
                (CExpr::Binary(*op, Box::new(ca), Box::new(cb)), t)
            }
            ExprKind::Ite(c, a, b) => {
                let (cc, tc) = self.resolve(c, scope, stack)?;
                let known = match cc {
                    CExpr::Const(Value::Bool(b)) => Some(b),
                    _ => None,
                };
                let (ca, ta) = self.resolve_part(a, scope, stack, known == Some(false))?;
                let (cb, tb) = self.resolve_part(b, scope, stack, known == Some(true))?;
                if tc != Type::Bool {
                    return Err(self.error(c.span, "the condition of '? :' must be a boolean"));
                }
                let t = match (ta, tb) {
                    (x, y) if x == y => x,
                    (Type::Int, Type::Real) | (Type::Real, Type::Int) => Type::Real,
                    _ => {
                        return Err(
                            self.error(e.span, "the branches of '? :' mix a boolean and a number")
                        )
                    }
                };
                (CExpr::Ite(Box::new(cc), Box::new(ca), Box::new(cb)), t)
            }
            ExprKind::Call(f, args) => {
                let mut cs = Vec::new();
                let mut ts = Vec::new();
                for a in args {
                    let (c, t) = self.resolve(a, scope, stack)?;
                    if t == Type::Bool {
                        return Err(self.error(a.span, format!("{}() takes numbers", f.name())));
                    }
                    cs.push(c);
                    ts.push(t);
                }
                // Rounding a floating-point constant that is clear of the rounding boundary
                // gives the whole number exactly (`ceil(log(5, 2))` is 3).
                if matches!(f, Func::Floor | Func::Ceil | Func::Round) {
                    if let CExpr::Inexact(inner) = &cs[0] {
                        if let CExpr::Const(v) = **inner {
                            if v.number().is_some_and(|q| clear_of_rounding(q, *f)) {
                                cs[0] = CExpr::Const(v);
                            }
                        }
                    }
                }
                let all_int = ts.iter().all(|t| *t == Type::Int);
                let t = match f {
                    Func::Min | Func::Max => {
                        if all_int {
                            Type::Int
                        } else {
                            Type::Real
                        }
                    }
                    Func::Floor | Func::Ceil | Func::Round => Type::Int,
                    Func::Mod => {
                        if !all_int {
                            return Err(self.error(e.span, "mod() takes two integers"));
                        }
                        Type::Int
                    }
                    Func::Pow => {
                        if all_int {
                            Type::Int
                        } else {
                            Type::Real
                        }
                    }
                    Func::Log => Type::Real,
                };
                // A power with an exponent that may not be whole, and a logarithm, need not be
                // rational: computed in floating point and marked.
                let rational = match f {
                    Func::Pow => ts[1] == Type::Int || cs[1].is_whole(),
                    Func::Log => match (&cs[0], &cs[1]) {
                        (CExpr::Const(x), CExpr::Const(b)) => x
                            .number()
                            .zip(b.number())
                            .is_some_and(|(x, b)| crate::program::eval::exact_log(x, b).is_some()),
                        _ => false,
                    },
                    _ => true,
                };
                let call = CExpr::Call(*f, cs);
                match rational {
                    true => (call, t),
                    false => (CExpr::Inexact(Box::new(call)), t),
                }
            }
            ExprKind::Query(_) | ExprKind::Filter(..) => {
                return Err(self.error(e.span, "a query cannot appear inside an expression here"))
            }
        };
        Ok((self.fold(c, t, e.span)?, t))
    }

    /// `c` (of type `t`) evaluated now if it reads no variable: exactly, or, where a fraction
    /// outgrows the size a value may have (`pow(0.99, 100000)`), in floating point as PRISM
    /// and Storm compute it, marked inexact.
    fn fold(&self, c: CExpr, t: Type, span: Span) -> Result<CExpr, Diagnostic> {
        fn constant(c: &CExpr) -> bool {
            match c {
                CExpr::Const(_) => true,
                CExpr::Var(_) | CExpr::BoolVar(_) | CExpr::States(_) => false,
                CExpr::Unary(_, a) => constant(a),
                CExpr::Binary(_, a, b) => constant(a) && constant(b),
                CExpr::Ite(a, b, d) => constant(a) && constant(b) && constant(d),
                CExpr::Call(_, args) => args.iter().all(constant),
                CExpr::Inexact(a) => constant(a),
            }
        }
        if matches!(c, CExpr::Const(_)) || !constant(&c) {
            return Ok(c);
        }
        if let CExpr::Inexact(a) = &c {
            if matches!(**a, CExpr::Const(_)) {
                return Ok(c);
            }
        }
        // A folded part keeps the mark of an inexact one inside it.
        let inexact = c.inexact();
        let mark = |v| match inexact {
            true => CExpr::Inexact(Box::new(CExpr::Const(v))),
            false => CExpr::Const(v),
        };
        let folded = match c.eval(&[]) {
            Ok(v) => Ok(mark(v)),
            Err(crate::program::eval::EvalError::Overflow) if t != Type::Int => c
                .approximate()
                .map(|v| CExpr::Inexact(Box::new(CExpr::Const(v)))),
            Err(e) => Err(e),
        };
        match folded {
            Ok(c) => Ok(c),
            // A part never evaluated stays as it is.
            Err(_) if self.skipped.get() > 0 => Ok(c),
            Err(e) => Err(self.error(span, e.to_string())),
        }
    }
}

/// Whether the floating-point value `q` is far enough from where rounding by `f` jumps (a
/// whole number for `floor` and `ceil`, a half for `round`) that no rounding error of the
/// computation that gave it can change the result.
fn clear_of_rounding(q: Q, f: Func) -> bool {
    let x = q.to_f64();
    let shifted = if f == Func::Round { x + 0.5 } else { x };
    let gap = (shifted - shifted.round()).abs();
    gap > 1e-9 * x.abs().max(1.0)
}
