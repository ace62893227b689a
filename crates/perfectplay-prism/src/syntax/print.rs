//! Printing the syntax tree back as PRISM text that parses to the same tree (the parser's best
//! test: `parse(print(parse(text))) == parse(text)`). Expressions are printed with the
//! parentheses their operators need, no more (but for a negated relation, below).

use std::fmt::{self, Display, Formatter};

use crate::syntax::ast::*;

/// How tightly an expression binds, loosest first; an operand that binds more loosely than
/// its place allows is put in parentheses.
fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ite(..) => 0,
        ExprKind::Binary(op, ..) => match op {
            BinOp::Iff => 1,
            BinOp::Implies => 2,
            BinOp::Or => 3,
            BinOp::And => 4,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 6,
            BinOp::Add | BinOp::Sub => 7,
            BinOp::Mul | BinOp::Div => 8,
        },
        ExprKind::Unary(UnOp::Not, _) => 5,
        ExprKind::Unary(UnOp::Neg, _) => NEGATION,
        _ => 10,
    }
}

/// How tightly a unary minus binds: tighter than every binary operator.
const NEGATION: u8 = 9;

/// `e`, in parentheses unless it binds at least as tightly as `min`.
struct Operand<'a>(&'a Expr, u8);

impl Display for Operand<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if level(self.0) < self.1 {
            write!(f, "({})", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// A step bound: a number or a name as it is, anything else in parentheses.
struct Bound<'a>(&'a Expr);

impl Display for Bound<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.0.kind {
            ExprKind::Int(_) | ExprKind::Name(_) => write!(f, "{}", self.0),
            _ => write!(f, "({})", self.0),
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let me = level(self);
        match &self.kind {
            ExprKind::Int(s) | ExprKind::Real(s) | ExprKind::Name(s) => f.write_str(s),
            ExprKind::Bool(b) => write!(f, "{b}"),
            ExprKind::Label(l) => write!(f, "\"{l}\""),
            // A negated relation or arithmetic keeps its parentheses (`!(s = 0)`), which
            // PRISM does not need but Storm does: it reads `!s = 0` as `(!s) = 0`.
            ExprKind::Unary(UnOp::Not, e) => {
                let min = match e.kind {
                    ExprKind::Unary(UnOp::Not, _) => me,
                    _ => NEGATION,
                };
                write!(f, "!{}", Operand(e, min))
            }
            // `- -x` and `-(-x)` both parse; a space keeps `--` from reading as one token.
            ExprKind::Unary(UnOp::Neg, e) => write!(f, "-{}", Operand(e, me + 1)),
            ExprKind::Binary(op, l, r) => {
                // Left-associative operators take an equal left operand bare; `=>` is
                // right-associative; relations do not chain.
                let (lmin, rmin) = match op {
                    BinOp::Implies => (me + 1, me),
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        (me + 1, me + 1)
                    }
                    // A node with the same operator on its right (a balanced chain, or
                    // parentheses as written) has both sides in parentheses, so that it parses
                    // back as a chain of two.
                    _ if matches!(&r.kind, ExprKind::Binary(o, ..) if o == op) => (me + 1, me + 1),
                    _ => (me, me + 1),
                };
                write!(f, "{} {} {}", Operand(l, lmin), op.text(), Operand(r, rmin))
            }
            ExprKind::Ite(c, a, b) => {
                write!(
                    f,
                    "{} ? {} : {}",
                    Operand(c, 1),
                    Operand(a, 0),
                    Operand(b, 0)
                )
            }
            ExprKind::Call(func, args) => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            ExprKind::Query(q) => write!(f, "{q}"),
            ExprKind::Filter(op, prop, states) => {
                write!(f, "filter({}, {prop}", op.name())?;
                if let Some(s) = states {
                    write!(f, ", {s}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(players) = &self.coalition {
            let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
            write!(f, "<<{}>> ", names.join(", "))?;
        }
        match &self.what {
            Measure::Probability => f.write_str("P")?,
            Measure::Reward(None) => f.write_str("R")?,
            Measure::Reward(Some(RewardRef::Name(n))) => write!(f, "R{{\"{}\"}}", n.name)?,
            Measure::Reward(Some(RewardRef::Index(i, _))) => write!(f, "R{{{i}}}")?,
            Measure::Reward(Some(RewardRef::Time)) => write!(f, "T")?,
            Measure::Exists => f.write_str("E")?,
            Measure::Forall => f.write_str("A")?,
            Measure::LongRun => f.write_str("S")?,
        }
        match self.opt {
            Opt::None => {}
            Opt::Min => f.write_str("min")?,
            Opt::Max => f.write_str("max")?,
        }
        match &self.bound {
            None if matches!(self.what, Measure::Exists | Measure::Forall) => f.write_str(" [ ")?,
            None => f.write_str("=? [ ")?,
            Some((op, b)) => write!(f, "{}{} [ ", op.text(), Operand(b, 7))?,
        }
        match &self.path {
            Path::Eventually(e) => write!(f, "F {e}")?,
            Path::EventuallyCumulative(e) => write!(f, "Fc {e}")?,
            Path::Total => f.write_str("C")?,
            Path::Cumulative(k) => write!(f, "C<={}", Bound(k))?,
            Path::Instant(k) => write!(f, "I={}", Bound(k))?,
            Path::Bounded {
                through,
                steps,
                target,
            } => {
                until_or_eventually(f, through.as_ref())?;
                // The target in parentheses, so that the bound ends where the target begins:
                // `F<=k -x>0` would read `k - x`.
                write!(f, "{steps} ({target})")?;
            }
            Path::RewardBounded {
                through,
                bound,
                target,
            } => {
                until_or_eventually(f, through.as_ref())?;
                let reward = match &bound.reward {
                    None => String::new(),
                    Some(RewardRef::Name(n)) => format!("{{\"{}\"}}", n.name),
                    Some(RewardRef::Index(i, _)) => format!("{{{i}}}"),
                    Some(RewardRef::Time) => String::new(),
                };
                let (op, b) = (bound.op.text(), Bound(&bound.value));
                write!(f, "^{{rew{reward}{op}{b}}} ({target})")?;
            }
            Path::EventuallyZero(e) => write!(f, "F0 {e}")?,
            Path::Until(a, b) => write!(f, "{a} U {b}")?,
            Path::Globally {
                steps: None,
                target,
            } => write!(f, "G {target}")?,
            Path::Globally {
                steps: Some(steps),
                target,
            } => write!(f, "G{steps} ({target})")?,
            Path::WeakUntil(a, b, None) => write!(f, "{a} W {b}")?,
            Path::WeakUntil(a, b, Some(k)) => write!(f, "{a} W{k} {b}")?,
            Path::Release(a, b, None) => write!(f, "{a} R {b}")?,
            Path::Release(a, b, Some(k)) => write!(f, "{a} R{k} {b}")?,
            Path::Next(e) => write!(f, "X {e}")?,
            Path::Now(e) | Path::LongRun(Some(e)) => write!(f, "{e}")?,
            Path::LongRun(None) => f.write_str("S")?,
        }
        f.write_str(" ]")
    }
}

impl Display for Steps {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (&self.from, &self.to) {
            (Some(a), Some(b)) if a == b => write!(f, "={}", Bound(a)),
            (Some(a), Some(b)) => write!(f, "[{a},{b}]"),
            (Some(a), None) if self.from_strict => write!(f, ">{}", Bound(a)),
            (Some(a), None) => write!(f, ">={}", Bound(a)),
            (None, Some(b)) if self.strict => write!(f, "<{}", Bound(b)),
            (None, Some(b)) => write!(f, "<={}", Bound(b)),
            (None, None) => Ok(()),
        }
    }
}

impl Display for ModelType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModelType::Dtmc => "dtmc",
            ModelType::Mdp => "mdp",
            ModelType::Smg => "smg",
        })
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} : ", self.name.name)?;
        match &self.ty {
            VarType::Range(lo, hi) => write!(f, "[{lo}..{hi}]")?,
            VarType::Bool => f.write_str("bool")?,
        }
        if let Some(init) = &self.init {
            write!(f, " init {init}")?;
        }
        f.write_str(";")
    }
}

impl Display for Command {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let action = self.action.as_ref().map_or("", |a| a.name.as_str());
        write!(f, "[{action}] {} -> ", self.guard)?;
        for (i, u) in self.updates.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            if let Some(p) = &u.prob {
                // A probability that is an if-then-else needs parentheses before its `:`.
                write!(f, "{} : ", Operand(p, 1))?;
            }
            if u.assigns.is_empty() {
                f.write_str("true")?;
            }
            for (j, (var, e)) in u.assigns.iter().enumerate() {
                if j > 0 {
                    f.write_str(" & ")?;
                }
                write!(f, "({}'={e})", var.name)?;
            }
        }
        f.write_str(";")
    }
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::Const(c) => {
                f.write_str("const ")?;
                match c.ty {
                    Some(ConstType::Int) => f.write_str("int ")?,
                    Some(ConstType::Double) => f.write_str("double ")?,
                    Some(ConstType::Bool) => f.write_str("bool ")?,
                    None => {}
                }
                f.write_str(&c.name.name)?;
                if let Some(v) = &c.value {
                    write!(f, " = {v}")?;
                }
                f.write_str(";")
            }
            Item::Formula(n, e) => write!(f, "formula {} = {e};", n.name),
            Item::Label(n, e) => write!(f, "label \"{}\" = {e};", n.name),
            Item::Global(v) => write!(f, "global {v}"),
            Item::Module(m) => {
                writeln!(f, "module {}", m.name.name)?;
                for v in &m.vars {
                    writeln!(f, "  {v}")?;
                }
                for c in &m.commands {
                    writeln!(f, "  {c}")?;
                }
                f.write_str("endmodule")
            }
            Item::Renamed(r) => {
                let pairs: Vec<String> = r
                    .renames
                    .iter()
                    .map(|(a, b)| format!("{}={}", a.name, b.name))
                    .collect();
                write!(
                    f,
                    "module {} = {} [{}] endmodule",
                    r.name.name,
                    r.base.name,
                    pairs.join(", ")
                )
            }
            Item::Rewards(r) => {
                f.write_str("rewards")?;
                if let Some(n) = &r.name {
                    write!(f, " \"{}\"", n.name)?;
                }
                writeln!(f)?;
                for i in &r.items {
                    f.write_str("  ")?;
                    if let Some(a) = &i.action {
                        write!(f, "[{}] ", a.as_ref().map_or("", |a| a.name.as_str()))?;
                    }
                    writeln!(f, "{} : {};", i.guard, i.value)?;
                }
                f.write_str("endrewards")
            }
            Item::Init(e) => write!(f, "init {e} endinit"),
            Item::Player(p) => {
                let items: Vec<String> = p
                    .controls
                    .iter()
                    .map(|c| match c {
                        Controlled::Module(m) => m.name.clone(),
                        Controlled::Action(a) => format!("[{}]", a.name),
                    })
                    .collect();
                write!(f, "player {} {} endplayer", p.name.name, items.join(", "))
            }
            Item::System(sys) => write!(f, "system {} endsystem", sys.expr),
        }
    }
}

impl Display for Model {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.model_type)?;
        for item in &self.items {
            writeln!(f, "\n{item}")?;
        }
        Ok(())
    }
}

impl Display for PropertiesFile {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{item}")?;
        }
        let mut kept = self.unsupported.iter().peekable();
        let mut props = self.properties.iter();
        for i in 0..self.properties.len() + self.unsupported.len() {
            let (name, text) = match kept.next_if(|u| u.index == i) {
                Some(u) => (&u.name, u.text.clone()),
                None => match props.next() {
                    Some(p) => (&p.name, p.expr.to_string()),
                    None => break,
                },
            };
            if let Some(n) = name {
                write!(f, "\"{}\": ", n.name)?;
            }
            writeln!(f, "{text};")?;
        }
        Ok(())
    }
}

impl fmt::Display for SysExpr {
    /// The composition as written, every compound operand in parentheses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let operand = |e: &SysExpr| match e {
            SysExpr::Module(m) => m.name.clone(),
            e => format!("({e})"),
        };
        let names = |ids: &[Ident]| {
            ids.iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            SysExpr::Module(m) => f.write_str(&m.name),
            SysExpr::Full(parts) | SysExpr::Interleaved(parts) => {
                let op = match self {
                    SysExpr::Full(_) => " || ",
                    _ => " ||| ",
                };
                let parts: Vec<String> = parts.iter().map(operand).collect();
                f.write_str(&parts.join(op))
            }
            SysExpr::Sync(a, actions, b) => {
                write!(f, "{} |[{}]| {}", operand(a), names(actions), operand(b))
            }
            SysExpr::Hide(e, actions) => write!(f, "{} / {{{}}}", operand(e), names(actions)),
            SysExpr::Rename(e, pairs) => {
                let pairs: Vec<String> = pairs
                    .iter()
                    .map(|(a, b)| format!("{} <- {}", a.name, b.name))
                    .collect();
                write!(f, "{} {{{}}}", operand(e), pairs.join(", "))
            }
        }
    }
}

/// The head of a bounded path: `ψ U` of an until, `F` where there is no `ψ`.
fn until_or_eventually(f: &mut fmt::Formatter<'_>, through: Option<&Expr>) -> fmt::Result {
    match through {
        Some(psi) => write!(f, "{psi} U"),
        None => f.write_str("F"),
    }
}
