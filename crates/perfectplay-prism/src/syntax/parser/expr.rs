//! The expression grammar, loosest first: `? :`, `<=>`, `=>`, `|`, `&`, `!`, relations, `+ -`,
//! `* /`, unary minus; in properties also queries (`P…`, `R…`, `<<…>>`) and filters.

use super::{is_operator_start, Parser, Result};
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;

/// The longest chain of one associative operator (`&`, `|`, `+`) kept as written, left to
/// right; longer ones are balanced trees (see `Parser::chain`).
pub(crate) const LONG_CHAIN: usize = 16;

/// `parts` (at least two) joined by `op` in a balanced tree, in order: the left half takes the
/// extra part, so that three parts are `(a op b) op c`, as written.
fn balanced(op: BinOp, mut parts: Vec<Expr>) -> Expr {
    if parts.len() == 1 {
        return parts.pop().expect("one part");
    }
    let right = parts.split_off(parts.len().div_ceil(2));
    Parser::binary(op, balanced(op, parts), balanced(op, right))
}

impl Parser<'_> {
    /// One level deeper into the expression; an error beyond [`super::MAX_DEPTH`].
    fn deeper(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > super::MAX_DEPTH {
            let span = self.peek().span;
            return Err(self.error(
                span,
                format!(
                    "the expression nests more than {} levels deep",
                    super::MAX_DEPTH
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn expr(&mut self) -> Result<Expr> {
        let depth = self.depth;
        self.deeper()?;
        let e = self.ternary();
        self.depth = depth;
        e
    }

    fn ternary(&mut self) -> Result<Expr> {
        let c = self.iff()?;
        if self.eat_punct("?") {
            let a = self.expr()?;
            self.expect_punct(":")?;
            let b = self.expr()?;
            let span = c.span.to(b.span);
            return Ok(Expr {
                kind: ExprKind::Ite(Box::new(c), Box::new(a), Box::new(b)),
                span,
            });
        }
        Ok(c)
    }

    fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
        let span = l.span.to(r.span);
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            span,
        }
    }

    fn iff(&mut self) -> Result<Expr> {
        let mut l = self.implies()?;
        while self.eat_punct("<=>") {
            let r = self.implies()?;
            self.deeper()?;
            l = Self::binary(BinOp::Iff, l, r);
        }
        Ok(l)
    }

    fn implies(&mut self) -> Result<Expr> {
        let l = self.or()?;
        if self.eat_punct("=>") {
            let r = self.implies()?;
            return Ok(Self::binary(BinOp::Implies, l, r));
        }
        Ok(l)
    }

    fn or(&mut self) -> Result<Expr> {
        let mut parts = vec![self.and()?];
        while self.eat_punct("|") {
            parts.push(self.and()?);
        }
        self.chain(BinOp::Or, parts)
    }

    fn and(&mut self) -> Result<Expr> {
        let mut parts = vec![self.not()?];
        while self.eat_punct("&") {
            parts.push(self.not()?);
        }
        self.chain(BinOp::And, parts)
    }

    /// `parts` joined by the associative `op`: left to right as written, and, for a chain
    /// longer than [`LONG_CHAIN`] (a generated model's conjunction of hundreds of terms), as a
    /// balanced tree of the same order, whose depth grows with the logarithm of the length.
    /// The printer puts both halves of a balanced node in parentheses, so the tree prints and
    /// parses back to itself.
    fn chain(&mut self, op: BinOp, parts: Vec<Expr>) -> Result<Expr> {
        if parts.len() <= LONG_CHAIN {
            let mut parts = parts.into_iter();
            let mut l = parts.next().expect("a chain has a first part");
            for r in parts {
                self.deeper()?;
                l = Self::binary(op, l, r);
            }
            return Ok(l);
        }
        for _ in 0..usize::BITS - (parts.len() - 1).leading_zeros() {
            self.deeper()?;
        }
        Ok(balanced(op, parts))
    }

    fn not(&mut self) -> Result<Expr> {
        if self.is_punct("!") {
            let start = self.bump().span;
            self.deeper()?;
            let e = self.not()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
                span,
            });
        }
        self.relation()
    }

    fn relation(&mut self) -> Result<Expr> {
        let l = self.sum()?;
        let op = match self.peek().tok {
            Tok::Punct("=") => BinOp::Eq,
            Tok::Punct("!=") => BinOp::Ne,
            Tok::Punct("<") => BinOp::Lt,
            Tok::Punct("<=") => BinOp::Le,
            Tok::Punct(">") => BinOp::Gt,
            Tok::Punct(">=") => BinOp::Ge,
            _ => return Ok(l),
        };
        self.bump();
        let r = self.sum()?;
        Ok(Self::binary(op, l, r))
    }

    pub(super) fn sum(&mut self) -> Result<Expr> {
        let mut parts = vec![self.product()?];
        let mut ops = Vec::new();
        loop {
            let op = match self.peek().tok {
                Tok::Punct("+") => BinOp::Add,
                Tok::Punct("-") => BinOp::Sub,
                _ => break,
            };
            self.bump();
            parts.push(self.product()?);
            ops.push(op);
        }
        // A sum of many terms is a chain; with a subtraction among them, it is left to right.
        if ops.iter().all(|op| *op == BinOp::Add) {
            return self.chain(BinOp::Add, parts);
        }
        let mut parts = parts.into_iter();
        let mut l = parts.next().expect("a sum has a first term");
        for (op, r) in ops.into_iter().zip(parts) {
            self.deeper()?;
            l = Self::binary(op, l, r);
        }
        Ok(l)
    }

    fn product(&mut self) -> Result<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek().tok {
                Tok::Punct("*") => BinOp::Mul,
                Tok::Punct("/") => BinOp::Div,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.unary()?;
            self.deeper()?;
            l = Self::binary(op, l, r);
        }
    }

    fn unary(&mut self) -> Result<Expr> {
        if self.is_punct("-") {
            let start = self.bump().span;
            self.deeper()?;
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(UnOp::Neg, Box::new(e)),
                span,
            });
        }
        self.power()
    }

    /// `a ^ b`, PRISM's `pow(a, b)` (and read as that call): tighter than a minus before it
    /// (`-2^2` is -4), grouped from the right (`2^3^2` is 2^9), with a minus allowed in the
    /// exponent (`2^-1`).
    fn power(&mut self) -> Result<Expr> {
        let base = self.primary()?;
        if !self.eat_punct("^") {
            return Ok(base);
        }
        self.deeper()?;
        let exponent = self.unary()?;
        let span = base.span.to(exponent.span);
        Ok(Expr {
            kind: ExprKind::Call(Func::Pow, vec![base, exponent]),
            span,
        })
    }

    fn primary(&mut self) -> Result<Expr> {
        let t = self.peek();
        let leaf = |kind| Ok(Expr { kind, span: t.span });
        match t.tok {
            Tok::Int => {
                self.bump();
                leaf(ExprKind::Int(self.text(t).to_string()))
            }
            Tok::Real => {
                self.bump();
                leaf(ExprKind::Real(self.text(t).to_string()))
            }
            Tok::Str => {
                let s = self.string("a label")?;
                leaf(ExprKind::Label(s.name))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                if self.in_property {
                    self.no_temporal_here()?;
                }
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Punct("<<") if self.in_property => {
                self.bump();
                let mut players = Vec::new();
                while !self.eat_punct(">>") {
                    if !players.is_empty() {
                        self.expect_punct(",")?;
                    }
                    let p = self.peek();
                    if p.tok == Tok::Int || (p.tok == Tok::Punct("*") && players.is_empty()) {
                        self.bump();
                        players.push(Ident {
                            name: self.text(p).to_string(),
                            span: p.span,
                        });
                    } else {
                        players.push(self.ident("a player's name or number")?);
                    }
                }
                if self.is_punct("(") {
                    return Err(self.unsupported(
                        self.peek().span,
                        "multi-objective queries (<<...>> ( … & … )) are not supported",
                    ));
                }
                if !self.at_query() {
                    return Err(self.error(
                        self.peek().span,
                        format!("expected P or R after <<...>>, found {}", self.found()),
                    ));
                }
                self.query(Some(players), t.span)
            }
            Tok::Ident => {
                let word = self.text(t);
                match word {
                    "true" | "false" => {
                        self.bump();
                        leaf(ExprKind::Bool(word == "true"))
                    }
                    _ if self.in_property && self.at_query() => self.query(None, t.span),
                    "filter" if self.in_property => self.filter(),
                    "F" | "G" | "X" if self.in_property && starts_operand(self, 1) => {
                        Err(self.unsupported(t.span, NESTED_TEMPORAL))
                    }
                    "L" if self.in_property
                        && (is_operator_start(self, 1)
                            || self.peek_at(1).tok == Tok::Punct("[")) =>
                    {
                        Err(self.unsupported(
                            t.span,
                            format!(
                                "the operator '{word}' is not supported (P, R, S, T, E and A are)"
                            ),
                        ))
                    }
                    "func" if self.peek_at(1).tok == Tok::Punct("(") => self.func_call(),
                    "multi" if self.peek_at(1).tok == Tok::Punct("(") => Err(self.unsupported(
                        t.span,
                        "multi-objective queries (multi(…)) are not supported",
                    )),
                    _ => {
                        if let Some(&(f, _)) = Func::ALL.iter().find(|(_, n)| *n == word) {
                            if self.peek_at(1).tok == Tok::Punct("(") {
                                return self.call(f);
                            }
                        }
                        if self.peek_at(1).tok == Tok::Punct("(") {
                            return Err(self.error(
                                t.span,
                                format!(
                                    "unknown function '{word}' (min, max, floor, ceil, round, \
                                     pow, mod and log are)"
                                ),
                            ));
                        }
                        let id = self.ident("an expression")?;
                        Ok(Expr {
                            kind: ExprKind::Name(id.name),
                            span: id.span,
                        })
                    }
                }
            }
            _ => Err(self.error(
                t.span,
                format!("expected an expression, found {}", self.found()),
            )),
        }
    }

    /// An error where a formula inside a query's path goes on with a temporal operator
    /// (`(a U b) U c`): LTL, which is not supported.
    pub(super) fn no_temporal_here(&self) -> Result<()> {
        let t = self.peek();
        if t.tok == Tok::Ident && matches!(self.text(t), "U" | "W" | "R") {
            return Err(self.unsupported(t.span, NESTED_TEMPORAL));
        }
        Ok(())
    }

    /// Whether a probability or reward query starts here.
    fn at_query(&self) -> bool {
        let t = self.peek();
        if t.tok != Tok::Ident {
            return false;
        }
        match self.text(t) {
            "Pmin" | "Pmax" | "Rmin" | "Rmax" | "Tmin" | "Tmax" => true,
            "P" | "R" | "S" => is_operator_start(self, 1),
            "T" => is_operator_start(self, 1) && self.peek_at(1).tok != Tok::Punct("{"),
            "E" | "A" => self.peek_at(1).tok == Tok::Punct("["),
            // `Smax=? [ φ ]`, which the query refuses by name.
            "Smin" | "Smax" => {
                self.peek_at(1).tok == Tok::Punct("=") && self.peek_at(2).tok == Tok::Punct("?")
            }
            _ => false,
        }
    }

    fn call(&mut self, f: Func) -> Result<Expr> {
        let start = self.bump().span;
        self.expect_punct("(")?;
        self.call_args(f, start)
    }

    /// `func(min, a, b)`: PRISM's other way to write a call.
    fn func_call(&mut self) -> Result<Expr> {
        let start = self.bump().span;
        self.expect_punct("(")?;
        let t = self.peek();
        let word = self.text(t);
        let Some(&(f, _)) = Func::ALL.iter().find(|(_, n)| *n == word) else {
            return Err(self.error(
                t.span,
                "expected a function's name (min, max, floor, ceil, round, pow, mod or log)",
            ));
        };
        self.bump();
        self.expect_punct(",")?;
        self.call_args(f, start)
    }

    /// The arguments of a call of `f` that began at `start`, after its `(`.
    fn call_args(&mut self, f: Func, start: crate::syntax::diagnostic::Span) -> Result<Expr> {
        let mut args = vec![self.expr()?];
        while self.eat_punct(",") {
            args.push(self.expr()?);
        }
        let end = self.expect_punct(")")?;
        let span = start.to(end);
        let ok = match f {
            Func::Min | Func::Max => !args.is_empty(),
            Func::Floor | Func::Ceil | Func::Round => args.len() == 1,
            Func::Pow | Func::Mod | Func::Log => args.len() == 2,
        };
        if !ok {
            return Err(self.error(
                span,
                format!(
                    "{}() takes {} arguments, not {}",
                    f.name(),
                    match f {
                        Func::Min | Func::Max => "one or more",
                        Func::Floor | Func::Ceil | Func::Round => "one",
                        _ => "two",
                    },
                    args.len()
                ),
            ));
        }
        Ok(Expr {
            kind: ExprKind::Call(f, args),
            span,
        })
    }

    fn filter(&mut self) -> Result<Expr> {
        let start = self.bump().span;
        self.expect_punct("(")?;
        let t = self.peek();
        let op = FilterOp::ALL
            .iter()
            .find(|(_, n)| t.tok == Tok::Ident && *n == self.text(t))
            .map(|(op, _)| *op)
            .ok_or_else(|| {
                self.error(
                    t.span,
                    format!(
                        "expected a filter operation (max, min, ...), found {}",
                        self.found()
                    ),
                )
            })?;
        self.bump();
        self.expect_punct(",")?;
        let prop = self.expr()?;
        let states = if self.eat_punct(",") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        let end = self.expect_punct(")")?;
        let span = start.to(end);
        Ok(Expr {
            kind: ExprKind::Filter(op, Box::new(prop), states),
            span,
        })
    }
}

/// Why a path with more than one temporal operator is refused.
const NESTED_TEMPORAL: &str = "temporal operators inside a path (LTL, such as F G φ or \
     (a U b) U c) are not supported: a P query takes one of F, G, X, U, W or R";

/// Whether the token `ahead` can begin an operand: a temporal operator stands before one.
fn starts_operand(p: &Parser<'_>, ahead: usize) -> bool {
    let t = p.peek_at(ahead);
    matches!(
        t.tok,
        Tok::Ident
            | Tok::Int
            | Tok::Real
            | Tok::Str
            | Tok::Punct("(")
            | Tok::Punct("!")
            | Tok::Punct("-")
    )
}
