//! The properties grammar: a properties file (constants, formulas, labels and properties,
//! `;` optional), queries (`P…`, `R…`, `<<…>>`) and their paths, step bounds included, and the
//! properties kept aside when they use a construct this front end does not support.

use super::{Parser, Result};
use crate::syntax::ast::*;
use crate::syntax::diagnostic::Span;
use crate::syntax::lexer::Tok;

/// The most `(` and `!` before a query's path that [`Parser::bracketed_path`] tries as its
/// parentheses and negations: as many as an expression may nest.
const MAX_PREFIX: usize = super::MAX_DEPTH;

/// Why a boolean combination of path formulas is refused.
const COMBINED_PATHS: &str = "boolean combinations of path formulas (LTL, such as \
     (F a) & (G b)) are not supported: a query takes one path formula";

/// `query`'s path negated, as the query of the path itself: `P⋈b [ ¬φ ]` is `P⋈' 1−b [ φ ]`
/// with the comparison turned and min and max swapped (each scheduler's probability of `¬φ`
/// is one minus its probability of `φ`), `P=? [ ¬φ ]` is `1 − P=? [ φ ]`, and `E [ ¬φ ]` is
/// `¬A [ φ ]`. A reward's path cannot be negated.
fn negate(
    what: Measure,
    opt: Opt,
    bound: Option<(BinOp, Expr)>,
    path: Path,
    span: Span,
    query: impl FnOnce(Measure, Opt, Option<(BinOp, Expr)>, Path) -> Expr,
) -> std::result::Result<Expr, &'static str> {
    let expr = |kind| Expr { kind, span };
    let not = |e: Expr| expr(ExprKind::Unary(UnOp::Not, Box::new(e)));
    let opt = match opt {
        Opt::None => Opt::None,
        Opt::Min => Opt::Max,
        Opt::Max => Opt::Min,
    };
    let one = || expr(ExprKind::Int("1".into()));
    let one_minus = |e: Expr| expr(ExprKind::Binary(BinOp::Sub, Box::new(one()), Box::new(e)));
    Ok(match what {
        Measure::Reward(_) => {
            return Err(
                "a reward query's path cannot be negated (PRISM reads it as a co-safe \
                 LTL reward, which is not supported)",
            )
        }
        Measure::LongRun => return Err("the S operator takes a state formula, not a path"),
        Measure::Exists => not(query(Measure::Forall, opt, bound, path)),
        Measure::Forall => not(query(Measure::Exists, opt, bound, path)),
        Measure::Probability => match bound {
            None => one_minus(query(what, opt, None, path)),
            Some((op, b)) => {
                let op = match op {
                    BinOp::Ge => BinOp::Le,
                    BinOp::Gt => BinOp::Lt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Lt => BinOp::Gt,
                    op => op,
                };
                query(what, opt, Some((op, one_minus(b))), path)
            }
        },
    })
}

impl Parser<'_> {
    /// Moves past the property that starts at token `from`: to just after a `;` outside
    /// brackets, or to the first token outside brackets on a later line, or to the end.
    fn skip_property(&mut self, from: usize) {
        self.pos = from;
        let mut depth = 0usize;
        while self.peek().tok != Tok::End {
            let t = self.peek();
            if depth == 0 && self.pos > from {
                let gap = &self.src[self.toks[self.pos - 1].span.end..t.span.start];
                if t.tok == Tok::Punct(";") {
                    self.bump();
                    return;
                }
                // A line break ends the property only where an expression can end (not after
                // `>>` of a coalition or an operator, where the property goes on).
                let prev = self.toks[self.pos - 1].tok;
                let can_end = matches!(
                    prev,
                    Tok::Ident
                        | Tok::Int
                        | Tok::Real
                        | Tok::Str
                        | Tok::Punct(")")
                        | Tok::Punct("]")
                        | Tok::Punct("}")
                );
                if gap.contains('\n') && can_end {
                    return;
                }
            }
            match t.tok {
                Tok::Punct("(") | Tok::Punct("[") | Tok::Punct("{") => depth += 1,
                Tok::Punct(")") | Tok::Punct("]") | Tok::Punct("}") => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            self.bump();
        }
    }

    pub(super) fn properties(&mut self) -> Result<PropertiesFile> {
        self.in_property = true;
        let mut file = PropertiesFile::default();
        while self.peek().tok != Tok::End {
            if self.is_kw("const") || self.is_kw("label") || self.is_kw("formula") {
                file.items.push(self.item()?);
                continue;
            }
            let name = if self.peek().tok == Tok::Str && self.peek_at(1).tok == Tok::Punct(":") {
                let n = self.string("a property's name")?;
                self.bump();
                Some(n)
            } else {
                None
            };
            let from = self.pos;
            self.hit_unsupported.set(false);
            let expr = match self.expr() {
                Ok(expr) => expr,
                Err(error) if self.hit_unsupported.get() => {
                    self.skip_property(from);
                    let end = self.toks[self.pos.max(from + 1) - 1].span.end;
                    let text = self.src[self.toks[from].span.start..end]
                        .trim_end_matches(';')
                        .trim()
                        .to_string();
                    file.unsupported.push(Unsupported {
                        index: file.properties.len() + file.unsupported.len(),
                        name,
                        text,
                        error,
                    });
                    continue;
                }
                Err(error) => return Err(error),
            };
            file.properties.push(Property { name, expr });
            // As in PRISM, a `;` after a property is optional: a property ends where its
            // expression can go no further, and the next one starts there.
            self.eat_punct(";");
        }
        Ok(file)
    }

    /// A reward structure after its `{`, up to and with the `}`: `"name"` or a number.
    fn reward_ref(&mut self) -> Result<RewardRef> {
        let r = if self.peek().tok == Tok::Str {
            RewardRef::Name(self.string("a reward structure's name")?)
        } else if self.peek().tok == Tok::Int {
            let t = self.bump();
            let n: usize = self
                .text(t)
                .parse()
                .map_err(|_| self.error(t.span, "a reward structure's number is too large"))?;
            RewardRef::Index(n, t.span)
        } else {
            return Err(self.error(
                self.peek().span,
                format!(
                    "expected a reward structure (\"name\" or a number), found {}",
                    self.found()
                ),
            ));
        };
        self.expect_punct("}")?;
        Ok(r)
    }

    /// `P…` / `R…` after an optional coalition: `opt=? [ path ]`.
    pub(super) fn query(&mut self, coalition: Option<Vec<Ident>>, start: Span) -> Result<Expr> {
        let t = self.bump();
        let word = self.text(t);
        let (what, mut opt) = match word {
            "P" => (Measure::Probability, Opt::None),
            "Pmin" => (Measure::Probability, Opt::Min),
            "Pmax" => (Measure::Probability, Opt::Max),
            "R" => (Measure::Reward(None), Opt::None),
            "Rmin" => (Measure::Reward(None), Opt::Min),
            "Rmax" => (Measure::Reward(None), Opt::Max),
            "E" => (Measure::Exists, Opt::None),
            "A" => (Measure::Forall, Opt::None),
            "S" => (Measure::LongRun, Opt::None),
            "T" => (Measure::Reward(Some(RewardRef::Time)), Opt::None),
            "Tmin" => (Measure::Reward(Some(RewardRef::Time)), Opt::Min),
            "Tmax" => (Measure::Reward(Some(RewardRef::Time)), Opt::Max),
            "Smin" | "Smax" => {
                return Err(self.unsupported(
                    t.span,
                    "S takes no min or max: long-run averages (S=? [ φ ], R=? [ S ]) are \
                     answered on DTMCs, as in PRISM",
                ))
            }
            _ => unreachable!("called at a query"),
        };
        let what = match what {
            Measure::Reward(None) if self.eat_punct("{") => {
                Measure::Reward(Some(self.reward_ref()?))
            }
            w => w,
        };
        if opt == Opt::None {
            if self.eat_kw("min") {
                opt = Opt::Min;
            } else if self.eat_kw("max") {
                opt = Opt::Max;
            }
        }
        let ctl = matches!(what, Measure::Exists | Measure::Forall);
        let bound = if ctl {
            None
        } else if self.is_punct("=") && self.peek_at(1).tok == Tok::Punct("?") {
            self.bump();
            self.bump();
            None
        } else {
            let op = match self.peek().tok {
                Tok::Punct("<") => BinOp::Lt,
                Tok::Punct("<=") => BinOp::Le,
                Tok::Punct(">") => BinOp::Gt,
                Tok::Punct(">=") => BinOp::Ge,
                _ => {
                    return Err(self.error(
                        self.peek().span,
                        format!(
                            "expected '=?' or a bound (such as '>=0.5') after {word}, found {}",
                            self.found()
                        ),
                    ))
                }
            };
            self.bump();
            Some((op, self.sum()?))
        };
        self.expect_punct("[")?;
        let (path, negated) = match what {
            // The S operator's state formula: the long-run fraction of steps where it holds.
            Measure::LongRun => (Path::LongRun(Some(self.expr()?)), false),
            _ => self.bracketed_path()?,
        };
        self.no_temporal_here()?;
        let states = self.states_of_interest()?;
        let end = self.expect_punct("]")?;
        let span = start.to(end);
        let query = |what, opt, bound, path| Expr {
            kind: ExprKind::Query(Box::new(Query {
                coalition,
                what,
                opt,
                bound,
                path,
                span,
            })),
            span,
        };
        let query = if negated {
            negate(what, opt, bound, path, span, query)
                .map_err(|message| self.unsupported(span, message))?
        } else {
            query(what, opt, bound, path)
        };
        Ok(match states {
            None => query,
            Some((op, states)) => Expr {
                kind: ExprKind::Filter(op, Box::new(query), Some(Box::new(states))),
                span,
            },
        })
    }

    /// PRISM's older filter inside a query's brackets, `P=? [ F φ {ψ} ]` with `{min}` or
    /// `{max}` after it, or both: the query over the states of ψ, as `filter(first, …, ψ)`
    /// (the value in the first of them, which is the one where only one state is meant),
    /// `filter(min|max, …, ψ)`, or `filter(range, …, ψ)` (both values at once).
    fn states_of_interest(&mut self) -> Result<Option<(FilterOp, Expr)>> {
        if !self.eat_punct("{") {
            return Ok(None);
        }
        let states = self.expr()?;
        self.expect_punct("}")?;
        let mut op = FilterOp::First;
        while self.eat_punct("{") {
            let t = self.peek();
            op = match (op, self.text(t)) {
                (FilterOp::First | FilterOp::Min, "min") => FilterOp::Min,
                (FilterOp::First | FilterOp::Max, "max") => FilterOp::Max,
                (FilterOp::Min | FilterOp::Max | FilterOp::Range, "min" | "max") => FilterOp::Range,
                _ => {
                    return Err(self.error(
                        t.span,
                        format!("expected {{min}} or {{max}}, found {}", self.found()),
                    ))
                }
            };
            self.bump();
            self.expect_punct("}")?;
        }
        Ok(Some((op, states)))
    }

    /// The path in a query's brackets, and whether it is negated: a path formula alone, or
    /// one in parentheses and behind negations (`(F φ)`, `!(F φ)`, `!F φ`), which PRISM
    /// accepts as the same simple path formula. A prefix of `(` and `!` is tried from the
    /// longest down, since it may as well open a state formula (`(s=1) U φ`, `!"a" U φ`).
    fn bracketed_path(&mut self) -> Result<(Path, bool)> {
        let from = self.pos;
        let mut prefix = 0;
        while prefix < MAX_PREFIX && (self.is_punct("(") || self.is_punct("!")) {
            prefix += 1;
            self.bump();
        }
        self.pos = from;
        let (unsupported, depth) = (self.hit_unsupported.get(), self.depth);
        // The error of a trial whose path parsed but whose parentheses did not close.
        let mut unclosed = None;
        for k in (1..=prefix).rev() {
            let ops: Vec<bool> = self.toks[from..from + k]
                .iter()
                .map(|t| t.tok == Tok::Punct("!"))
                .collect();
            (self.pos, self.depth) = (from + k, depth);
            let Ok(path) = self.path() else {
                continue;
            };
            // A negation must apply to a temporal operator, not to the state formula that
            // starts the path: `!"a" U φ` is `(!"a") U φ`.
            let temporal = |w: &str| matches!(w, "F" | "G" | "X" | "Fc" | "F0");
            let operator_first = temporal(self.text(self.toks[from + k]));
            if matches!(path, Path::Now(_)) || (ops[k - 1] && !operator_first) {
                continue;
            }
            let opened = ops.iter().filter(|&&not| !not).count();
            let closed = (0..opened).all(|_| self.eat_punct(")"));
            if closed && (self.is_punct("]") || self.is_punct("{")) {
                self.hit_unsupported.set(unsupported);
                let negated = ops.iter().filter(|&&not| not).count() % 2 == 1;
                return Ok((path, negated));
            }
            if unclosed.is_none() {
                // A path followed by a connective is a boolean combination of paths: LTL.
                let connective = ["&", "|", "=>", "<=>"].iter().any(|c| self.is_punct(c));
                unclosed = Some(if closed && connective {
                    (self.unsupported(self.peek().span, COMBINED_PATHS), true)
                } else {
                    let found = self.found();
                    let message = format!("expected ')' or the end of the path, found {found}");
                    (self.error(self.peek().span, message), false)
                });
            }
        }
        (self.pos, self.depth) = (from, depth);
        self.hit_unsupported.set(unsupported);
        match (self.path(), unclosed) {
            (Ok(path), _) => Ok((path, false)),
            (Err(_), Some((error, refused))) => {
                self.hit_unsupported.set(unsupported || refused);
                Err(error)
            }
            (Err(error), None) => Err(error),
        }
    }

    fn path(&mut self) -> Result<Path> {
        let t = self.peek();
        let word = if t.tok == Tok::Ident {
            self.text(t)
        } else {
            ""
        };
        let is_bound = |t: Tok| {
            matches!(
                t,
                Tok::Punct("<=")
                    | Tok::Punct("<")
                    | Tok::Punct(">=")
                    | Tok::Punct(">")
                    | Tok::Punct("=")
                    | Tok::Punct("[")
                    | Tok::Punct("^")
            )
        };
        let bounded = |p: &Self| is_bound(p.peek().tok);
        // `F<=k` or `C<=k`, seen from `F` or `C` itself.
        let bounded_after = |p: &Self| is_bound(p.peek_at(1).tok);
        // Storm's other spelling of a reward bound, `F{"r"}<=b φ`, seen from `F`: no
        // expression starts with `{`.
        let reward_after = |p: &Self| p.peek_at(1).tok == Tok::Punct("{");
        match word {
            "F" if bounded_after(self) || reward_after(self) => {
                self.bump();
                self.bounded_path(None)
            }
            "F" | "Fc" | "F0" => {
                self.bump();
                if bounded(self) {
                    return Err(self.unsupported(
                        self.peek().span,
                        "bounded Fc and F0 are not supported (F<=k is)",
                    ));
                }
                let target = self.expr()?;
                Ok(match word {
                    "F" => Path::Eventually(target),
                    "Fc" => Path::EventuallyCumulative(target),
                    _ => Path::EventuallyZero(target),
                })
            }
            "G" => {
                self.bump();
                let steps = if bounded(self) {
                    Some(self.step_bound()?)
                } else {
                    None
                };
                let target = self.expr()?;
                Ok(Path::Globally { steps, target })
            }
            "X" => {
                self.bump();
                if bounded(self) {
                    return Err(self.unsupported(self.peek().span, "X takes no step bound"));
                }
                Ok(Path::Next(self.expr()?))
            }
            "C" if !bounded_after(self) => {
                self.bump();
                Ok(Path::Total)
            }
            "C" if self.peek_at(1).tok == Tok::Punct("<=") => {
                self.bump();
                self.bump();
                Ok(Path::Cumulative(self.bound_expr()?))
            }
            "I" if self.peek_at(1).tok == Tok::Punct("=") => {
                self.bump();
                self.bump();
                Ok(Path::Instant(self.bound_expr()?))
            }
            "C" | "I" => Err(self.unsupported(
                t.span,
                format!("the reward operator '{word}' takes C<=k or I=k (and C alone)"),
            )),
            "S" => {
                self.bump();
                Ok(Path::LongRun(None))
            }
            _ => {
                let left = self.expr()?;
                for (kw, weak) in [("W", true), ("R", false)] {
                    if self.is_kw(kw) {
                        self.bump();
                        let steps = if bounded(self) {
                            Some(self.step_bound()?)
                        } else {
                            None
                        };
                        let right = self.expr()?;
                        return Ok(if weak {
                            Path::WeakUntil(left, right, steps)
                        } else {
                            Path::Release(left, right, steps)
                        });
                    }
                }
                // A state formula alone: φ in the first state.
                if self.is_punct("]") || self.is_punct("{") {
                    return Ok(Path::Now(left));
                }
                if !self.is_kw("U") {
                    return Err(self.error(
                        self.peek().span,
                        format!(
                            "expected 'U', 'W', 'R' or the end of the path, found {}",
                            self.found()
                        ),
                    ));
                }
                self.bump();
                if bounded(self) || self.is_punct("{") {
                    return self.bounded_path(Some(left));
                }
                let right = self.expr()?;
                Ok(Path::Until(left, right))
            }
        }
    }
    /// The rest of `F` or `ψ U` (`through`) from its bound on: a step bound (`F<=k φ`) or,
    /// in Storm's syntax, a bound on the steps or the reward earned (`F^{steps<=k} φ`,
    /// `F^{rew{"r"}<=b} φ`, and Storm's other spelling of the latter, `F{"r"}<=b φ`).
    fn bounded_path(&mut self, through: Option<Expr>) -> Result<Path> {
        if self.eat_punct("{") {
            let reward = Some(self.reward_ref()?);
            let (op, value) = self.reward_comparison()?;
            let target = self.expr()?;
            return Ok(Path::RewardBounded {
                through,
                bound: RewardBound { reward, op, value },
                target,
            });
        }
        if !self.eat_punct("^") {
            let steps = self.step_bound()?;
            let target = self.expr()?;
            return Ok(Path::Bounded {
                through,
                steps,
                target,
            });
        }
        self.expect_punct("{")?;
        let t = self.peek();
        let word = if t.tok == Tok::Ident {
            self.text(t)
        } else {
            ""
        };
        let reward = match word {
            // Discrete time is counted in steps.
            "steps" | "time" => None,
            "rew" => Some(()),
            _ => {
                return Err(self.error(
                    t.span,
                    format!(
                        "expected 'steps', 'time' or 'rew{{\"r\"}}' in a bound after '^', found {}",
                        self.found()
                    ),
                ))
            }
        };
        self.bump();
        let path = match reward {
            None => {
                let steps = self.step_bound()?;
                self.close_caret_bound()?;
                let target = self.expr()?;
                Path::Bounded {
                    through,
                    steps,
                    target,
                }
            }
            Some(()) => {
                let reward = match self.eat_punct("{") {
                    true => Some(self.reward_ref()?),
                    false => None,
                };
                let (op, value) = self.reward_comparison()?;
                self.close_caret_bound()?;
                let target = self.expr()?;
                Path::RewardBounded {
                    through,
                    bound: RewardBound { reward, op, value },
                    target,
                }
            }
        };
        Ok(path)
    }

    /// The comparison of a reward bound after its reward structure: `<=`, `<`, `>=` or `>`,
    /// and the bound.
    fn reward_comparison(&mut self) -> Result<(BinOp, Expr)> {
        let op = match self.peek().tok {
            Tok::Punct("<=") => BinOp::Le,
            Tok::Punct("<") => BinOp::Lt,
            Tok::Punct(">=") => BinOp::Ge,
            Tok::Punct(">") => BinOp::Gt,
            _ => {
                return Err(self.error(
                    self.peek().span,
                    format!(
                        "expected <=, <, >= or > after the reward, found {}",
                        self.found()
                    ),
                ))
            }
        };
        self.bump();
        Ok((op, self.sum()?))
    }

    /// The `}` that ends a bound after `^`; several bounds at once are refused by name.
    fn close_caret_bound(&mut self) -> Result<()> {
        if self.is_punct(",") {
            return Err(self.unsupported(
                self.peek().span,
                "several bounds on one path (F^{steps<=k, rew{\"r\"}<=b}) are not supported: \
                 one bound is",
            ));
        }
        self.expect_punct("}").map(|_| ())
    }

    /// A step bound after `F`, `U`, `G`, `W` or `R`: `<=k`, `<k`, `>=k`, `>k`, `=k` or `[a,b]`.
    fn step_bound(&mut self) -> Result<Steps> {
        if self.is_punct("^") {
            return Err(self.unsupported(
                self.peek().span,
                "bounds after '^' belong to F and U (F^{rew{\"r\"}<=b} φ); G, W and R take \
                 step bounds (G<=k)",
            ));
        }
        let steps = |from, from_strict, to, strict| Steps {
            from,
            from_strict,
            to,
            strict,
        };
        if self.eat_punct("[") {
            let from = self.sum()?;
            self.expect_punct(",")?;
            let to = self.sum()?;
            self.expect_punct("]")?;
            return Ok(steps(Some(from), false, Some(to), false));
        }
        for (punct, upper, strict) in [
            ("<=", true, false),
            ("<", true, true),
            (">=", false, false),
            (">", false, true),
        ] {
            if self.eat_punct(punct) {
                let k = self.bound_expr()?;
                return Ok(if upper {
                    steps(None, false, Some(k), strict)
                } else {
                    steps(Some(k), strict, None, false)
                });
            }
        }
        self.expect_punct("=")?;
        let k = self.bound_expr()?;
        Ok(steps(Some(k.clone()), false, Some(k), false))
    }

    /// The number of a step bound: a sum (`k+1`), except that a name followed by `(` is the
    /// bound alone, not a call, as in PRISM (`F<=k (x=1)`).
    fn bound_expr(&mut self) -> Result<Expr> {
        let t = self.peek();
        if t.tok == Tok::Ident && self.peek_at(1).tok == Tok::Punct("(") {
            let word = self.text(t).to_string();
            if !Func::ALL.iter().any(|(_, n)| *n == word) && word != "func" {
                self.bump();
                return Ok(Expr {
                    kind: ExprKind::Name(word),
                    span: t.span,
                });
            }
        }
        self.sum()
    }
}
