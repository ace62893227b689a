//! A recursive-descent parser from tokens to the syntax tree ([`crate::syntax::ast`]). Errors name the
//! file, line and column, and what was expected; constructs outside the supported language
//! (LTL paths, CTMC operators, other model types) are reported by name.
//! Declarations are here; properties in `props.rs`, expressions in `expr.rs`.

use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};
use crate::syntax::lexer::{tokens, Tok, Token};

mod expr;
mod props;

/// Parses a model file's text; `file` names it in errors.
pub fn parse_model(file: &str, src: &str) -> Result<Model, Diagnostic> {
    let mut p = Parser::new(file, src)?;
    let model = p.model()?;
    Ok(model)
}

/// Parses a properties file (or the text of one property); `file` names it in errors.
pub fn parse_properties(file: &str, src: &str) -> Result<PropertiesFile, Diagnostic> {
    let mut p = Parser::new(file, src)?;
    p.properties()
}

/// Parses one expression (a constant's value given on the command line, say).
pub fn parse_expr(file: &str, src: &str) -> Result<Expr, Diagnostic> {
    let mut p = Parser::new(file, src)?;
    let e = p.expr()?;
    p.expect_end()?;
    Ok(e)
}

type Result<T, E = Diagnostic> = std::result::Result<T, E>;

/// Names that start a model's top-level declaration.
const MODEL_TYPES: [(&str, Option<ModelType>); 15] = [
    ("dtmc", Some(ModelType::Dtmc)),
    ("probabilistic", Some(ModelType::Dtmc)),
    ("mdp", Some(ModelType::Mdp)),
    ("nondeterministic", Some(ModelType::Mdp)),
    ("smg", Some(ModelType::Smg)),
    ("ctmc", None),
    ("stochastic", None),
    ("pta", None),
    ("csg", None),
    ("tsg", None),
    ("pomdp", None),
    ("popta", None),
    ("imdp", None),
    ("imc", None),
    ("lts", None),
];

struct Parser<'a> {
    file: &'a str,
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// Whether properties may appear (queries, filters).
    in_property: bool,
    /// How deep the expression being parsed is nested (see [`MAX_DEPTH`]).
    depth: usize,
    /// Set when an error is a construct of PRISM outside the supported language, not a
    /// mistake: a properties file then keeps that property aside and reads on.
    hit_unsupported: std::cell::Cell<bool>,
}

/// The deepest an expression may nest (parentheses, operators, a chain of operators counting
/// one level per operator): deeper ones are an error, not a stack overflow in the passes that
/// walk the tree.
pub const MAX_DEPTH: usize = 400;

impl<'a> Parser<'a> {
    fn new(file: &'a str, src: &'a str) -> Result<Self> {
        let toks = tokens(src).map_err(|(span, m)| Diagnostic::at(file, src, span, m))?;
        Ok(Parser {
            file,
            src,
            toks,
            pos: 0,
            in_property: false,
            depth: 0,
            hit_unsupported: std::cell::Cell::new(false),
        })
    }

    fn error(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.file, self.src, span, message)
    }

    /// Whether the next tokens are `n` bars written together (`||` for 2, `|||` for 3) and not
    /// followed by another.
    fn bars(&self, n: usize) -> bool {
        let together = |k: usize| {
            let t = self.peek_at(k);
            t.tok == Tok::Punct("|") && (k == 0 || self.peek_at(k - 1).span.end == t.span.start)
        };
        (0..n).all(together) && !together(n)
    }

    /// A system block's composition, with PRISM's precedence: `||` binds loosest, then `|||`,
    /// then `|[…]|`, then hiding and renaming.
    fn system_full(&mut self) -> Result<SysExpr> {
        // Parentheses and `|||` (whose right side is a whole composition) nest.
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(
                self.peek().span,
                format!("the system block nests more than {MAX_DEPTH} levels deep"),
            ));
        }
        let mut parts = vec![self.system_interleaved()?];
        while self.bars(2) {
            self.bump();
            self.bump();
            parts.push(self.system_sync()?);
        }
        self.depth -= 1;
        Ok(match parts.len() {
            1 => parts.pop().expect("one part"),
            _ => SysExpr::Full(parts),
        })
    }

    fn system_interleaved(&mut self) -> Result<SysExpr> {
        let mut parts = vec![self.system_sync()?];
        while self.bars(3) {
            for _ in 0..3 {
                self.bump();
            }
            parts.push(self.system_full()?);
        }
        Ok(match parts.len() {
            1 => parts.pop().expect("one part"),
            _ => SysExpr::Interleaved(parts),
        })
    }

    fn system_sync(&mut self) -> Result<SysExpr> {
        let left = self.system_hide_rename()?;
        if !(self.is_punct("|") && matches!(self.peek_at(1).tok, Tok::Punct("["))) {
            return Ok(left);
        }
        self.bump();
        self.bump();
        let actions = self.system_actions()?;
        self.expect_punct("]")?;
        self.expect_punct("|")?;
        let right = self.system_hide_rename()?;
        Ok(SysExpr::Sync(Box::new(left), actions, Box::new(right)))
    }

    /// Actions separated by commas (those of `|[…]|` or of hiding).
    fn system_actions(&mut self) -> Result<Vec<Ident>> {
        let mut actions = vec![self.ident("an action")?];
        while self.eat_punct(",") {
            actions.push(self.ident("an action")?);
        }
        Ok(actions)
    }

    fn system_hide_rename(&mut self) -> Result<SysExpr> {
        let mut e = self.system_atom()?;
        loop {
            if self.is_punct("/") && matches!(self.peek_at(1).tok, Tok::Punct("{")) {
                self.bump();
                self.bump();
                let actions = self.system_actions()?;
                self.expect_punct("}")?;
                e = SysExpr::Hide(Box::new(e), actions);
            } else if self.eat_punct("{") {
                let mut pairs = Vec::new();
                loop {
                    let from = self.ident("an action")?;
                    self.expect_punct("<")?;
                    self.expect_punct("-")?;
                    pairs.push((from, self.ident("an action")?));
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                self.expect_punct("}")?;
                e = SysExpr::Rename(Box::new(e), pairs);
            } else {
                return Ok(e);
            }
        }
    }

    fn system_atom(&mut self) -> Result<SysExpr> {
        if self.eat_punct("(") {
            let e = self.system_full()?;
            self.expect_punct(")")?;
            return Ok(e);
        }
        Ok(SysExpr::Module(self.ident("a module")?))
    }

    /// The error for a construct PRISM has and this front end does not support.
    fn unsupported(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.hit_unsupported.set(true);
        self.error(span, message)
    }

    fn peek(&self) -> Token {
        self.toks[self.pos]
    }

    fn peek_at(&self, ahead: usize) -> Token {
        self.toks[(self.pos + ahead).min(self.toks.len() - 1)]
    }

    fn text(&self, t: Token) -> &'a str {
        &self.src[t.span.start..t.span.end]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.tok != Tok::End {
            self.pos += 1;
        }
        t
    }

    /// What the next token is, for "expected …, found …".
    fn found(&self) -> String {
        let t = self.peek();
        match t.tok {
            Tok::End => "the end of the text".to_string(),
            _ => format!("'{}'", self.text(t)),
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek().tok, Tok::Punct(q) if q == p)
    }

    fn is_kw(&self, kw: &str) -> bool {
        self.peek().tok == Tok::Ident && self.text(self.peek()) == kw
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let yes = self.is_kw(kw);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_punct(&mut self, p: &str) -> Result<Span> {
        if self.is_punct(p) {
            return Ok(self.bump().span);
        }
        Err(self.error(
            self.peek().span,
            format!("expected '{p}', found {}", self.found()),
        ))
    }

    fn expect_kw(&mut self, kw: &str) -> Result<Span> {
        if self.is_kw(kw) {
            return Ok(self.bump().span);
        }
        Err(self.error(
            self.peek().span,
            format!("expected '{kw}', found {}", self.found()),
        ))
    }

    fn expect_end(&self) -> Result<()> {
        match self.peek().tok {
            Tok::End => Ok(()),
            _ => Err(self.error(
                self.peek().span,
                format!("expected the end of the text, found {}", self.found()),
            )),
        }
    }

    fn ident(&mut self, what: &str) -> Result<Ident> {
        let t = self.peek();
        if t.tok == Tok::Ident && !is_keyword(self.text(t)) {
            self.bump();
            return Ok(Ident {
                name: self.text(t).to_string(),
                span: t.span,
            });
        }
        Err(self.error(t.span, format!("expected {what}, found {}", self.found())))
    }

    /// A quoted name, without its quotes.
    fn string(&mut self, what: &str) -> Result<Ident> {
        let t = self.peek();
        if t.tok == Tok::Str {
            self.bump();
            let text = self.text(t);
            return Ok(Ident {
                name: text[1..text.len() - 1].to_string(),
                span: t.span,
            });
        }
        Err(self.error(t.span, format!("expected {what}, found {}", self.found())))
    }

    // ---- models -------------------------------------------------------------------------

    fn model(&mut self) -> Result<Model> {
        let mut model_type = None;
        let mut items = Vec::new();
        loop {
            let t = self.peek();
            if t.tok == Tok::End {
                break;
            }
            let word = self.text(t);
            if let Some(&(_, kind)) = MODEL_TYPES.iter().find(|(w, _)| *w == word) {
                let Some(kind) = kind else {
                    return Err(self.error(
                        t.span,
                        format!("model type '{word}' is not supported (dtmc, mdp and smg are)"),
                    ));
                };
                if model_type.is_some() {
                    return Err(self.error(t.span, "a second model type"));
                }
                self.bump();
                model_type = Some((kind, t.span));
                continue;
            }
            items.push(self.item()?);
        }
        // PRISM takes a model without a type for an MDP.
        let (model_type, type_span) = model_type.unwrap_or((ModelType::Mdp, Span::new(0, 0)));
        Ok(Model {
            model_type,
            type_span,
            items,
        })
    }

    /// A declaration of a model or properties file.
    fn item(&mut self) -> Result<Item> {
        let t = self.peek();
        let word = if t.tok == Tok::Ident {
            self.text(t)
        } else {
            ""
        };
        match word {
            "const" | "prob" | "rate" => self.constant().map(Item::Const),
            "formula" => {
                self.bump();
                let name = self.ident("a formula's name")?;
                self.expect_punct("=")?;
                let e = self.expr()?;
                self.expect_punct(";")?;
                Ok(Item::Formula(name, e))
            }
            "label" => {
                self.bump();
                let name = self.string("a label's name in quotes")?;
                self.expect_punct("=")?;
                let e = self.expr()?;
                self.expect_punct(";")?;
                Ok(Item::Label(name, e))
            }
            "global" => {
                self.bump();
                self.var_decl().map(Item::Global)
            }
            "module" => self.module(),
            "rewards" => self.rewards().map(Item::Rewards),
            "init" => {
                self.bump();
                let e = self.expr()?;
                self.expect_kw("endinit")?;
                Ok(Item::Init(e))
            }
            "player" => self.player().map(Item::Player),
            "system" => {
                self.bump();
                let expr = self.system_full()?;
                let end = self.expect_kw("endsystem")?;
                Ok(Item::System(System {
                    expr,
                    span: t.span.to(end),
                }))
            }
            _ => Err(self.error(
                t.span,
                format!(
                    "expected a declaration (const, formula, label, global, module, rewards, \
                     init, player), found {}",
                    self.found()
                ),
            )),
        }
    }

    fn constant(&mut self) -> Result<Const> {
        // `prob` and `rate` declare double constants, as in PRISM's older files.
        let ty = if self.eat_kw("prob") || self.eat_kw("rate") {
            Some(ConstType::Double)
        } else {
            self.expect_kw("const")?;
            if self.eat_kw("int") {
                Some(ConstType::Int)
            } else if self.eat_kw("double") {
                Some(ConstType::Double)
            } else if self.eat_kw("bool") {
                Some(ConstType::Bool)
            } else {
                None
            }
        };
        let name = self.ident("a constant's name")?;
        let value = if self.eat_punct("=") {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_punct(";")?;
        Ok(Const { name, ty, value })
    }

    fn var_decl(&mut self) -> Result<VarDecl> {
        let name = self.ident("a variable's name")?;
        self.expect_punct(":")?;
        let ty = if self.eat_kw("bool") {
            VarType::Bool
        } else if self.eat_punct("[") {
            let lo = self.expr()?;
            self.expect_punct("..")?;
            let hi = self.expr()?;
            self.expect_punct("]")?;
            VarType::Range(lo, hi)
        } else if self.is_kw("int") || self.is_kw("double") || self.is_kw("clock") {
            return Err(self.error(
                self.peek().span,
                "unbounded variables are not supported: give a range [lo..hi]",
            ));
        } else {
            return Err(self.error(
                self.peek().span,
                format!(
                    "expected a range [lo..hi] or 'bool', found {}",
                    self.found()
                ),
            ));
        };
        let init = if self.eat_kw("init") {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect_punct(";")?;
        Ok(VarDecl { name, ty, init })
    }

    fn module(&mut self) -> Result<Item> {
        self.expect_kw("module")?;
        let name = self.ident("a module's name")?;
        if self.eat_punct("=") {
            let base = self.ident("the name of the module to copy")?;
            self.expect_punct("[")?;
            let mut renames = Vec::new();
            loop {
                let old = self.rename_name()?;
                self.expect_punct("=")?;
                let new = self.rename_name()?;
                renames.push((old, new));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("]")?;
            self.expect_kw("endmodule")?;
            return Ok(Item::Renamed(Renamed {
                name,
                base,
                renames,
            }));
        }
        let mut vars = Vec::new();
        let mut commands = Vec::new();
        loop {
            if self.eat_kw("endmodule") {
                break;
            }
            match self.peek().tok {
                Tok::Punct("[") => commands.push(self.command()?),
                Tok::Ident if !self.is_kw("endmodule") => vars.push(self.var_decl()?),
                _ => {
                    return Err(self.error(
                        self.peek().span,
                        format!(
                            "expected a variable, a command '[...] guard -> updates;' or \
                             'endmodule', found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(Item::Module(Module {
            name,
            vars,
            commands,
        }))
    }

    /// A name in a renaming: any identifier, keywords of expressions aside.
    fn rename_name(&mut self) -> Result<Ident> {
        self.ident("a name to rename")
    }

    fn command(&mut self) -> Result<Command> {
        let start = self.expect_punct("[")?;
        let action = if self.is_punct("]") {
            None
        } else {
            Some(self.ident("an action name")?)
        };
        self.expect_punct("]")?;
        let guard = self.expr()?;
        self.expect_punct("->")?;
        let mut updates = Vec::new();
        loop {
            updates.push(self.update()?);
            if !self.eat_punct("+") {
                break;
            }
        }
        let end = self.expect_punct(";")?;
        Ok(Command {
            action,
            guard,
            updates,
            span: start.to(end),
        })
    }

    /// Whether the next tokens start assignments (`(x' = …)` or `true`) rather than a
    /// probability.
    fn at_assignments(&self) -> bool {
        let (a, b, c) = (self.peek(), self.peek_at(1), self.peek_at(2));
        let assignment =
            a.tok == Tok::Punct("(") && b.tok == Tok::Ident && c.tok == Tok::Punct("'");
        let plain_true = a.tok == Tok::Ident
            && self.text(a) == "true"
            && matches!(b.tok, Tok::Punct(";") | Tok::Punct("+"));
        assignment || plain_true
    }

    fn update(&mut self) -> Result<Update> {
        let start = self.peek().span;
        let prob = if self.at_assignments() {
            None
        } else {
            let p = self.expr()?;
            self.expect_punct(":")?;
            Some(p)
        };
        let mut assigns = Vec::new();
        if !self.eat_kw("true") {
            loop {
                self.expect_punct("(")?;
                let var = self.ident("a variable to update")?;
                self.expect_punct("'")?;
                self.expect_punct("=")?;
                let e = self.expr()?;
                self.expect_punct(")")?;
                assigns.push((var, e));
                if !self.eat_punct("&") {
                    break;
                }
            }
        }
        let end = self.toks[self.pos.saturating_sub(1)].span;
        Ok(Update {
            prob,
            assigns,
            span: start.to(end),
        })
    }

    fn rewards(&mut self) -> Result<Rewards> {
        let span = self.expect_kw("rewards")?;
        let name = if self.peek().tok == Tok::Str {
            Some(self.string("a reward structure's name")?)
        } else {
            None
        };
        let mut items = Vec::new();
        while !self.eat_kw("endrewards") {
            let action = if self.eat_punct("[") {
                let a = if self.is_punct("]") {
                    None
                } else {
                    Some(self.ident("an action name")?)
                };
                self.expect_punct("]")?;
                Some(a)
            } else {
                None
            };
            let guard = self.expr()?;
            self.expect_punct(":")?;
            let value = self.expr()?;
            self.expect_punct(";")?;
            items.push(RewardItem {
                action,
                guard,
                value,
            });
        }
        Ok(Rewards { name, items, span })
    }

    fn player(&mut self) -> Result<PlayerDecl> {
        self.expect_kw("player")?;
        let name = self.ident("a player's name")?;
        let mut controls = Vec::new();
        while !self.eat_kw("endplayer") {
            if !controls.is_empty() {
                self.expect_punct(",")?;
            }
            if self.eat_punct("[") {
                let a = self.ident("an action name")?;
                self.expect_punct("]")?;
                controls.push(Controlled::Action(a));
            } else {
                controls.push(Controlled::Module(self.ident("a module name or [action]")?));
            }
        }
        Ok(PlayerDecl { name, controls })
    }
}

/// Whether the token `ahead` of the parser's position continues an operator such as `P`: `=`,
/// `{`, `min`, `max` or a bound.
fn is_operator_start(p: &Parser<'_>, ahead: usize) -> bool {
    let t = p.peek_at(ahead);
    match t.tok {
        Tok::Punct("=")
        | Tok::Punct("!=")
        | Tok::Punct("{")
        | Tok::Punct("<")
        | Tok::Punct("<=")
        | Tok::Punct(">")
        | Tok::Punct(">=") => true,
        Tok::Ident => matches!(p.text(t), "min" | "max"),
        _ => false,
    }
}

/// Words that cannot name a variable, constant or formula.
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "const"
            | "int"
            | "double"
            | "bool"
            | "formula"
            | "label"
            | "global"
            | "module"
            | "endmodule"
            | "rewards"
            | "endrewards"
            | "init"
            | "endinit"
            | "player"
            | "endplayer"
            | "system"
            | "endsystem"
            | "true"
            | "false"
            | "dtmc"
            | "mdp"
            | "smg"
            | "ctmc"
            | "pta"
            | "probabilistic"
            | "nondeterministic"
            | "stochastic"
    )
}
