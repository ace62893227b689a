//! The syntax tree of a PRISM model and of its properties, as written: names are not resolved
//! and constants not evaluated (that is the checking pass's work). Every node keeps its
//! [`Span`] for diagnostics; spans compare equal, so two trees are equal when they say the
//! same thing.

use crate::syntax::diagnostic::Span;

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// The kind of model a file declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    /// A discrete-time Markov chain.
    Dtmc,
    /// A Markov decision process.
    Mdp,
    /// A turn-based stochastic multi-player game (PRISM-games).
    Smg,
}

/// A whole model file: its type and its declarations in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// `dtmc`, `mdp` or `smg`.
    pub model_type: ModelType,
    /// Where the type keyword is.
    pub type_span: Span,
    /// The declarations.
    pub items: Vec<Item>,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `const [int|double|bool] name [= value];`
    Const(Const),
    /// `formula name = expr;`
    Formula(Ident, Expr),
    /// `label "name" = expr;`
    Label(Ident, Expr),
    /// `global name : type [init expr];`
    Global(VarDecl),
    /// `module name ... endmodule`
    Module(Module),
    /// `module name = base [a=b, ...] endmodule`
    Renamed(Renamed),
    /// `rewards ["name"] ... endrewards`
    Rewards(Rewards),
    /// `init expr endinit`
    Init(Expr),
    /// `player name item, ... endplayer` (smg)
    Player(PlayerDecl),
    /// `system ... endsystem`: how the modules are composed.
    System(System),
}

/// A `system … endsystem` block: the modules composed by PRISM's process-algebra operators.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// The composition.
    pub expr: SysExpr,
    /// Where the block is.
    pub span: Span,
}

/// A composition of modules in a `system … endsystem` block.
#[derive(Clone, Debug, PartialEq)]
pub enum SysExpr {
    /// A module.
    Module(Ident),
    /// `M1 || M2 || …`: synchronised on the actions both sides have (in order, left to right).
    Full(Vec<SysExpr>),
    /// `M1 ||| M2`: interleaved, synchronised on nothing.
    Interleaved(Vec<SysExpr>),
    /// `M1 |[a, b]| M2`: synchronised on the actions listed only.
    Sync(Box<SysExpr>, Vec<Ident>, Box<SysExpr>),
    /// `M / {a, b}`: the actions hidden (made unlabelled) in `M`.
    Hide(Box<SysExpr>, Vec<Ident>),
    /// `M {a <- b, c <- d}`: action `a` renamed `b`, `c` renamed `d`, in `M`.
    Rename(Box<SysExpr>, Vec<(Ident, Ident)>),
}

/// The type of a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstType {
    /// `int`, or no type.
    Int,
    /// `double`.
    Double,
    /// `bool`.
    Bool,
}

/// A constant declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Const {
    /// Its name.
    pub name: Ident,
    /// Its declared type (`None` when untyped: an `int`).
    pub ty: Option<ConstType>,
    /// Its value, or `None` when it is left to be given (on the command line).
    pub value: Option<Expr>,
}

/// The type of a variable.
#[derive(Clone, Debug, PartialEq)]
pub enum VarType {
    /// `[lo..hi]`.
    Range(Expr, Expr),
    /// `bool`.
    Bool,
}

/// A variable declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Its name.
    pub name: Ident,
    /// Its range or `bool`.
    pub ty: VarType,
    /// Its initial value (the lower bound, or false, when absent).
    pub init: Option<Expr>,
}

/// A module.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Its name.
    pub name: Ident,
    /// Its local variables.
    pub vars: Vec<VarDecl>,
    /// Its commands.
    pub commands: Vec<Command>,
}

/// `[action] guard -> updates;`
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// The action label, `None` for `[]`.
    pub action: Option<Ident>,
    /// The guard.
    pub guard: Expr,
    /// The updates with their probabilities; one update without a probability is certain.
    pub updates: Vec<Update>,
    /// Where the command is.
    pub span: Span,
}

/// One probabilistic branch of a command: `prob : (x'=e) & ...`, or `true`.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// The probability (`None` when the command has this one update, written without one).
    pub prob: Option<Expr>,
    /// The assignments; empty for `true`.
    pub assigns: Vec<(Ident, Expr)>,
    /// Where it is.
    pub span: Span,
}

/// `module name = base [old=new, ...] endmodule`.
#[derive(Clone, Debug, PartialEq)]
pub struct Renamed {
    /// The new module's name.
    pub name: Ident,
    /// The module it copies.
    pub base: Ident,
    /// The renamings, applied simultaneously.
    pub renames: Vec<(Ident, Ident)>,
}

/// A reward structure.
#[derive(Clone, Debug, PartialEq)]
pub struct Rewards {
    /// Its name, `None` for an unnamed structure.
    pub name: Option<Ident>,
    /// Its items.
    pub items: Vec<RewardItem>,
    /// Where the `rewards` keyword is.
    pub span: Span,
}

/// `guard : value;` (a state reward) or `[action] guard : value;` (a transition reward).
#[derive(Clone, Debug, PartialEq)]
pub struct RewardItem {
    /// `None` for a state reward; `Some(None)` for `[]`, `Some(Some(a))` for `[a]`.
    pub action: Option<Option<Ident>>,
    /// The states (and, with an action, transitions) it applies to.
    pub guard: Expr,
    /// The reward.
    pub value: Expr,
}

/// `player name m1, [a], ... endplayer`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerDecl {
    /// The player's name.
    pub name: Ident,
    /// What it controls: modules (their unlabelled commands) and actions.
    pub controls: Vec<Controlled>,
}

/// Something a player controls.
#[derive(Clone, Debug, PartialEq)]
pub enum Controlled {
    /// A module's unlabelled commands.
    Module(Ident),
    /// Every transition with this action.
    Action(Ident),
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
}

/// Binary operators, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `<=>`
    Iff,
    /// `=>`
    Implies,
    /// `|`
    Or,
    /// `&`
    And,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (always real division)
    Div,
}

impl BinOp {
    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Iff => "<=>",
            BinOp::Implies => "=>",
            BinOp::Or => "|",
            BinOp::And => "&",
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }
}

/// The built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)`
    Round,
    /// `pow(x, y)`
    Pow,
    /// `mod(i, n)`
    Mod,
    /// `log(x, base)`
    Log,
}

impl Func {
    /// Every function with its name.
    pub const ALL: [(Func, &'static str); 8] = [
        (Func::Min, "min"),
        (Func::Max, "max"),
        (Func::Floor, "floor"),
        (Func::Ceil, "ceil"),
        (Func::Round, "round"),
        (Func::Pow, "pow"),
        (Func::Mod, "mod"),
        (Func::Log, "log"),
    ];

    /// The function's name.
    pub fn name(self) -> &'static str {
        Func::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .expect("every function is listed")
    }
}

impl Expr {
    /// `self` with each part for which `f` gives a replacement replaced, the others rebuilt
    /// from their rewritten parts (a query's state formulas and a filter's among them).
    pub(crate) fn try_rewrite<E>(
        &self,
        f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>, E>,
    ) -> Result<Expr, E> {
        if let Some(replaced) = f(self)? {
            return Ok(replaced);
        }
        let mut go = |e: &Expr| e.try_rewrite(f);
        let kind = match &self.kind {
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(go(a)?)),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, Box::new(go(a)?), Box::new(go(b)?)),
            ExprKind::Ite(c, a, b) => {
                ExprKind::Ite(Box::new(go(c)?), Box::new(go(a)?), Box::new(go(b)?))
            }
            ExprKind::Call(func, args) => {
                ExprKind::Call(*func, args.iter().map(&mut go).collect::<Result<_, _>>()?)
            }
            ExprKind::Query(q) => {
                let mut q = Query::clone(q);
                q.path = q.path.try_map(&mut go)?;
                ExprKind::Query(Box::new(q))
            }
            ExprKind::Filter(op, inner, states) => ExprKind::Filter(
                *op,
                Box::new(go(inner)?),
                match states {
                    Some(s) => Some(Box::new(go(s)?)),
                    None => None,
                },
            ),
            other => other.clone(),
        };
        Ok(Expr {
            kind,
            span: self.span,
        })
    }
}

impl Path {
    /// The path with its state formulas rewritten by `f`.
    pub(crate) fn try_map<E>(
        &self,
        f: &mut dyn FnMut(&Expr) -> Result<Expr, E>,
    ) -> Result<Path, E> {
        Ok(match self {
            Path::Eventually(a) => Path::Eventually(f(a)?),
            Path::EventuallyCumulative(a) => Path::EventuallyCumulative(f(a)?),
            Path::EventuallyZero(a) => Path::EventuallyZero(f(a)?),
            Path::Next(a) => Path::Next(f(a)?),
            Path::Now(a) => Path::Now(f(a)?),
            Path::LongRun(Some(a)) => Path::LongRun(Some(f(a)?)),
            Path::Globally { steps, target } => Path::Globally {
                steps: steps.clone(),
                target: f(target)?,
            },
            Path::Until(a, b) => Path::Until(f(a)?, f(b)?),
            Path::WeakUntil(a, b, k) => Path::WeakUntil(f(a)?, f(b)?, k.clone()),
            Path::Release(a, b, k) => Path::Release(f(a)?, f(b)?, k.clone()),
            Path::Bounded {
                through,
                steps,
                target,
            } => Path::Bounded {
                through: match through {
                    Some(t) => Some(f(t)?),
                    None => None,
                },
                steps: steps.clone(),
                target: f(target)?,
            },
            Path::RewardBounded {
                through,
                bound,
                target,
            } => Path::RewardBounded {
                through: match through {
                    Some(t) => Some(f(t)?),
                    None => None,
                },
                bound: bound.clone(),
                target: f(target)?,
            },
            other => other.clone(),
        })
    }
}

/// What an expression is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A whole number, as written (it may exceed 64 bits).
    Int(String),
    /// A decimal or scientific literal, as written (read as the exact decimal).
    Real(String),
    /// `true` or `false`.
    Bool(bool),
    /// A variable, constant or formula.
    Name(String),
    /// `"label"` (in properties and filters).
    Label(String),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A function call.
    Call(Func, Vec<Expr>),
    /// A probability or reward query (properties only).
    Query(Box<Query>),
    /// `filter(op, prop, states)` (properties only).
    Filter(FilterOp, Box<Expr>, Option<Box<Expr>>),
}

/// The operation of a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterOp {
    /// `max`
    Max,
    /// `min`
    Min,
    /// `avg`
    Avg,
    /// `sum`
    Sum,
    /// `first`
    First,
    /// `forall`
    Forall,
    /// `exists`
    Exists,
    /// `count`
    Count,
    /// `state`
    State,
    /// `print`
    Print,
    /// `argmin`
    Argmin,
    /// `argmax`
    Argmax,
    /// `printall`
    Printall,
    /// `range`
    Range,
}

impl FilterOp {
    /// Every operation with its name.
    pub const ALL: [(FilterOp, &'static str); 14] = [
        (FilterOp::Max, "max"),
        (FilterOp::Min, "min"),
        (FilterOp::Avg, "avg"),
        (FilterOp::Sum, "sum"),
        (FilterOp::First, "first"),
        (FilterOp::Forall, "forall"),
        (FilterOp::Exists, "exists"),
        (FilterOp::Count, "count"),
        (FilterOp::State, "state"),
        (FilterOp::Print, "print"),
        (FilterOp::Argmin, "argmin"),
        (FilterOp::Argmax, "argmax"),
        (FilterOp::Printall, "printall"),
        (FilterOp::Range, "range"),
    ];

    /// The operation's name.
    pub fn name(self) -> &'static str {
        FilterOp::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .expect("every operation is listed")
    }
}

/// Which optimum a query asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    /// `P=?`, `R=?`: a DTMC's value (an error on an MDP).
    None,
    /// `Pmin=?`, `Rmin=?`
    Min,
    /// `Pmax=?`, `Rmax=?`
    Max,
}

/// `P…=? [ path ]` or `R{"r"}…=? [ path ]`, maybe behind `<<coalition>>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// `<<p1, p2>>` (smg): the players of the coalition, by name or number; `Some(vec![])` for
    /// `<<>>`.
    pub coalition: Option<Vec<Ident>>,
    /// Probability or reward, with the reward structure.
    pub what: Measure,
    /// min, max or neither.
    pub opt: Opt,
    /// `P>=0.5 [ … ]`: the comparison and the bound, for a query that asks whether the value
    /// meets a bound; `None` for `=?`.
    pub bound: Option<(BinOp, Expr)>,
    /// What is measured along the paths.
    pub path: Path,
    /// Where the query is.
    pub span: Span,
}

/// What a query measures.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// `P`
    Probability,
    /// `R`, `R{"name"}` or `R{index}`.
    Reward(Option<RewardRef>),
    /// CTL's `E [ … ]`: some path satisfies the path formula (true or false; no bound).
    Exists,
    /// CTL's `A [ … ]`: every path does.
    Forall,
    /// `S`: the long-run (steady-state) probability of a state formula, with
    /// [`Path::LongRun`] holding it.
    LongRun,
}

/// How a query names a reward structure.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardRef {
    /// `{"name"}`
    Name(Ident),
    /// `{1}`: the first structure is 1.
    Index(usize, Span),
    /// Storm's time operator, `T=? [ F φ ]` (`Tmin`, `Tmax`): the expected time, on these
    /// discrete-time models the number of steps, as a reward of 1 in every state.
    Time,
}

/// The paths a query measures.
#[derive(Clone, Debug, PartialEq)]
pub enum Path {
    /// `F φ`: eventually φ.
    Eventually(Expr),
    /// `ψ U φ`: φ through ψ-states.
    Until(Expr, Expr),
    /// `Fc φ`: rewards of paths that never reach φ count (PRISM-games' cumulative variant).
    EventuallyCumulative(Expr),
    /// `F0 φ`: paths that never reach φ count zero (PRISM-games).
    EventuallyZero(Expr),
    /// `C`: the total reward of the whole play, PRISM's unbounded cumulative reward (`Fc`
    /// with a target never reached).
    Total,
    /// `C<=k`: the reward earned in the first `k` steps.
    Cumulative(Expr),
    /// `I=k`: the state reward at step `k`.
    Instant(Expr),
    /// The long run: `S` in `R=? [ S ]` (`None`, the long-run average reward per step), and
    /// the state formula of the `S` operator (`Some(φ)` in `S=? [ φ ]`, the long-run fraction
    /// of steps in φ-states).
    LongRun(Option<Expr>),
    /// `G φ`: φ for ever; with a step bound (`G<=k φ`, `G[a,b] φ`), over those steps.
    Globally {
        /// The step bound, if any.
        steps: Option<Steps>,
        /// φ.
        target: Expr,
    },
    /// `ψ W φ`: ψ until φ, or ψ for ever; with a step bound, `¬(¬φ U~k (¬φ∧¬ψ))` as PRISM
    /// defines it.
    WeakUntil(Expr, Expr, Option<Steps>),
    /// `ψ R φ`: φ until and including the first ψ-state, or φ for ever; with a step bound,
    /// `¬(¬ψ U~k ¬φ)` as PRISM defines it.
    Release(Expr, Expr, Option<Steps>),
    /// `X φ`: φ in the next state.
    Next(Expr),
    /// `φ` alone, a state formula as a path (LTL's reading, which PRISM follows): φ in the
    /// first state.
    Now(Expr),
    /// `F<=k φ` or `ψ U<=k φ` (`<k`, `>=k`, `>k`, `=k`, `[a,b]`): φ at a step the bound
    /// allows, through ψ-states before it.
    Bounded {
        /// ψ, for an until.
        through: Option<Expr>,
        /// The step bound.
        steps: Steps,
        /// φ.
        target: Expr,
    },
    /// `F^{rew{"r"}<=b} φ` or `ψ U^{rew{"r"}<=b} φ` (`<`, `>=`, `>`; Storm's reward bound): φ
    /// reached, through ψ-states before it, at a point where the reward earned so far is
    /// within the bound.
    RewardBounded {
        /// ψ, for an until.
        through: Option<Expr>,
        /// The bound on the reward earned.
        bound: RewardBound,
        /// φ.
        target: Expr,
    },
}

/// A bound on the reward earned along a path, `rew{"r"}<=b` in `F^{rew{"r"}<=b} φ`.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardBound {
    /// The reward structure (`None`: the first, `rew` alone).
    pub reward: Option<RewardRef>,
    /// The comparison: `<=`, `<`, `>=` or `>`.
    pub op: BinOp,
    /// The bound `b`, a constant.
    pub value: Expr,
}

/// A step bound of a path: `<=k`, `<k` (strict), `>=k`, `>k` (strict), `=k`, or `[a,b]` (from
/// step `a` to step `b`).
#[derive(Clone, Debug, PartialEq)]
pub struct Steps {
    /// The first step that counts: `a` of `[a,b]`, `k` of `>=k`, `>k` and `=k`; `None` for
    /// `<=k` and `<k`.
    pub from: Option<Expr>,
    /// Whether `from` is strict (`>k`: the first step that counts is `k+1`).
    pub from_strict: bool,
    /// The last step: `k` of `<=k`, `<k` and `=k`, `b` of `[a,b]`; `None` for `>=k` and `>k`.
    pub to: Option<Expr>,
    /// Whether `to` is strict (`<k`).
    pub strict: bool,
}

/// A property of a properties file: `"name": expr;` or `expr;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// Its name, if it has one.
    pub name: Option<Ident>,
    /// What it asks.
    pub expr: Expr,
}

/// A properties file: constants, labels and formulas it declares, and its properties.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PropertiesFile {
    /// `const`, `label` and `formula` declarations.
    pub items: Vec<Item>,
    /// The properties in order.
    pub properties: Vec<Property>,
    /// Properties written with constructs of PRISM outside the supported language (bounded
    /// and LTL paths, other operators and filters), kept as written with the error that names
    /// the construct, so that the file's other properties can still be checked.
    pub unsupported: Vec<Unsupported>,
}

/// A property the parser kept aside (see [`PropertiesFile::unsupported`]).
#[derive(Clone, Debug)]
pub struct Unsupported {
    /// Its place among all the file's properties, counting from zero.
    pub index: usize,
    /// Its name, if it has one.
    pub name: Option<Ident>,
    /// Its text as written.
    pub text: String,
    /// What is not supported, and where.
    pub error: crate::syntax::diagnostic::Diagnostic,
}

/// Equal when they say the same thing, wherever they were read from.
impl PartialEq for Unsupported {
    fn eq(&self, o: &Unsupported) -> bool {
        (self.index, &self.name, &self.text) == (o.index, &o.name, &o.text)
    }
}
