//! The checking pass: from the syntax tree to a [`Program`], the model with its constants
//! evaluated, formulas expanded, renamed modules copied, names resolved to variable indices and
//! constant parts folded, and every expression's type checked. Expressions become [`CExpr`]s
//! that evaluate on a state's variable values without looking a name up.

mod constants;
mod declare;
pub(crate) mod eval;
pub(crate) mod fast;
mod modules;
pub(crate) mod order;
pub mod props;
pub(crate) mod resolve;
pub mod value;

use std::collections::{HashMap, HashSet};

use crate::program::value::Value;
use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};

use crate::program::constants::Constants;
use crate::program::declare::{ActionNumbers, Typed};
pub use crate::program::eval::{CExpr, EvalError};
use crate::program::modules::recompose;
pub use crate::program::resolve::Type;
use crate::program::resolve::{Checker, Scope};

/// A state variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its least value (0 for a boolean).
    pub lo: i64,
    /// Its greatest value (1 for a boolean).
    pub hi: i64,
    /// Its initial value.
    pub init: i64,
    /// Whether it is a boolean (0 false, 1 true).
    pub is_bool: bool,
    /// The module that owns it, `None` for a global.
    pub module: Option<usize>,
}

/// An update with resolved expressions: its probability (`None`: the one certain update) and
/// its assignments (variable number, value).
pub type UpdateC = (Option<CExpr>, Vec<(usize, CExpr)>);

/// A command with resolved expressions.
#[derive(Clone, Debug, PartialEq)]
pub struct Cmd {
    /// The module it belongs to.
    pub module: usize,
    /// Its action's number, `None` for `[]`.
    pub action: Option<usize>,
    /// The guard.
    pub guard: CExpr,
    /// The updates: probability (`None`: the one certain update) and assignments.
    pub updates: Vec<UpdateC>,
    /// The command as written, for errors.
    pub text: String,
}

/// A reward structure with resolved expressions.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardStruct {
    /// Its name (empty for an unnamed structure).
    pub name: String,
    /// State rewards: guard and value.
    pub state: Vec<(CExpr, CExpr)>,
    /// Transition rewards: action (`None` for `[]`), guard and value.
    pub transition: Vec<(Option<usize>, CExpr, CExpr)>,
}

/// The checked model.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its type.
    pub model_type: ModelType,
    /// Every constant with its value, in the order declared.
    pub constants: Vec<(String, Value)>,
    /// The constants whose value is floating point (defined with `pow(x, 0.5)`, `log`, or a
    /// fraction beyond the size a value may have): approximations, which an exact solve
    /// refuses.
    pub inexact: HashSet<String>,
    /// The state variables: globals first, then each module's in order.
    pub vars: Vec<Var>,
    /// Module names, in order (renamed copies included).
    pub modules: Vec<String>,
    /// Action names, by number. Where a `system … endsystem` block composes the modules by
    /// more than `||`, each number is one way of stepping together (see `modules::compose`),
    /// so names may repeat, and a hidden one is empty (printed `[]`, as it is unlabelled).
    pub actions: Vec<String>,
    /// Every command.
    pub commands: Vec<Cmd>,
    /// Labels.
    pub labels: Vec<(String, CExpr)>,
    /// Reward structures, in order.
    pub rewards: Vec<RewardStruct>,
    /// `init … endinit`, if given.
    pub init: Option<CExpr>,
    /// For smg: each player's name, the modules whose unlabelled commands and the actions it
    /// controls.
    pub players: Vec<(String, Vec<usize>, Vec<usize>)>,
    /// The names of constants given values that the model does not declare: a properties
    /// file's, or mistakes (see [`crate::check_constants`]).
    pub unclaimed: Vec<String>,
    /// Formulas, for properties.
    formulas: HashMap<String, Expr>,
    /// The model's text and file name, for errors in properties that refer to it.
    file: String,
    src: String,
}

/// Parses `text` (`N=3,p=0.1,b=true`) into constant values given by the user.
pub fn parse_constants(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = part.split_once('=') else {
            return Err(format!("'{part}' is not NAME=VALUE"));
        };
        out.push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok(out)
}

impl Program {
    /// Checks `model` (parsed from `src`, read from `file`) with the values `given` for the
    /// constants it leaves undefined (as text, `("N", "3")`).
    pub fn new(
        file: &str,
        src: &str,
        model: &Model,
        given: &[(String, String)],
    ) -> Result<Program, Diagnostic> {
        let ck = Checker::new(file, src);
        let Constants {
            values: constants,
            by_name: consts,
            inexact,
            formulas,
            unclaimed,
        } = Constants::of(&ck, file, model, given)?;
        let mut program = Program {
            model_type: model.model_type,
            constants,
            inexact,
            vars: Vec::new(),
            modules: Vec::new(),
            actions: Vec::new(),
            commands: Vec::new(),
            labels: Vec::new(),
            rewards: Vec::new(),
            init: None,
            players: Vec::new(),
            unclaimed,
            formulas,
            file: file.to_string(),
            src: src.to_string(),
        };
        program.build(&ck, model, &consts)?;
        Ok(program)
    }

    /// Variables, modules (renamed copies made), commands, labels, rewards, init, players.
    fn build(
        &mut self,
        ck: &Checker<'_>,
        model: &Model,
        consts: &HashMap<String, Value>,
    ) -> Result<(), Diagnostic> {
        let (modules, composition) = self.modules_of(ck, model)?;
        let var_index = self.variables(ck, model, &modules, consts)?;
        // Taken out while the commands and declarations are added beside them (and put back:
        // a program that fails its checks is dropped anyway).
        let formulas = std::mem::take(&mut self.formulas);
        let inexact = std::mem::take(&mut self.inexact);
        let typed = Typed {
            ck,
            scope: Scope {
                consts,
                formulas: &formulas,
                vars: &var_index,
                labels: None,
                inexact: &inexact,
                unread_vars: None,
            },
        };
        let mut numbers = ActionNumbers::default();
        self.commands_of(&typed, &modules, &mut numbers)?;
        // A composition other than `||` alone: each command of an action, once for each sync
        // its module takes part in on that action, carries the sync's number instead.
        let composed =
            composition.map(|syncs| recompose(&mut self.actions, &mut self.commands, &syncs));
        let init_values = model
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Global(v) => Some(v),
                _ => None,
            })
            .chain(modules.iter().flat_map(|m| &m.vars))
            .any(|v| v.init.is_some());
        self.declarations(&typed, model, composed.as_ref(), &mut numbers, init_values)?;
        self.formulas = formulas;
        self.inexact = inexact;
        self.builtin_labels();
        Ok(())
    }

    /// PRISM's built-in labels, where the model does not define its own: `"init"` (the initial
    /// states) and `"deadlock"` (the states where no command is enabled, which get a
    /// self-loop).
    fn builtin_labels(&mut self) {
        // Balanced, so that thousands of guards make a tree of logarithmic depth.
        let or = |parts: Vec<CExpr>| balanced(BinOp::Or, parts);
        let and = |parts: Vec<CExpr>| balanced(BinOp::And, parts);
        let has = |labels: &[(String, CExpr)], name: &str| labels.iter().any(|(l, _)| l == name);
        if !has(&self.labels, "init") {
            let init = self.init.clone().unwrap_or_else(|| {
                and(self
                    .vars
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match (v.is_bool, v.init) {
                        (true, 1) => CExpr::BoolVar(i),
                        (true, _) => CExpr::Unary(UnOp::Not, Box::new(CExpr::BoolVar(i))),
                        (false, n) => CExpr::Binary(
                            BinOp::Eq,
                            Box::new(CExpr::Var(i)),
                            Box::new(CExpr::Const(Value::Int(n))),
                        ),
                    })
                    .collect())
                .unwrap_or(CExpr::Const(Value::Bool(true)))
            });
            self.labels.push(("init".into(), init));
        }
        if !has(&self.labels, "deadlock") {
            // A command of an action is enabled where one of each module's commands of that
            // action is; an unlabelled command where its guard holds. Guards are grouped by
            // action, then module.
            let mut groups: std::collections::BTreeMap<(Option<usize>, usize), Vec<CExpr>> =
                Default::default();
            for c in &self.commands {
                groups
                    .entry((c.action, c.module))
                    .or_default()
                    .push(c.guard.clone());
            }
            let mut enabled = Vec::new();
            let mut synced: Vec<CExpr> = Vec::new();
            let mut current = None;
            for ((action, _), guards) in groups {
                let any = or(guards).expect("a group has a command");
                if action.is_none() {
                    enabled.push(any);
                    continue;
                }
                if current != action {
                    enabled.extend(and(std::mem::take(&mut synced)));
                    current = action;
                }
                synced.push(any);
            }
            enabled.extend(and(synced));
            let deadlock = match or(enabled) {
                Some(e) => CExpr::Unary(UnOp::Not, Box::new(e)),
                None => CExpr::Const(Value::Bool(true)),
            };
            self.labels.push(("deadlock".into(), deadlock));
        }
    }

    /// Resolves a property's state formula (labels, formulas, constants and variables of the
    /// model and those `extra` adds), from a text read from `file`.
    pub fn resolve_property(
        &self,
        file: &str,
        src: &str,
        e: &Expr,
        extra: &PropertyScope,
    ) -> Result<CExpr, Diagnostic> {
        let (c, t) = self.resolve_in(file, src, e, extra, true)?;
        if t != Type::Bool {
            return Err(Diagnostic::at(
                file,
                src,
                e.span,
                "expected a condition on states",
            ));
        }
        Ok(c)
    }

    /// Resolves an expression of a properties file that reads no variable (a constant's
    /// value), folded to a constant when it can be.
    pub fn resolve_value(
        &self,
        file: &str,
        src: &str,
        e: &Expr,
        extra: &PropertyScope,
    ) -> Result<CExpr, Diagnostic> {
        Ok(self.resolve_in(file, src, e, extra, false)?.0)
    }

    /// Resolves an expression of a properties file that may read the variables and the labels
    /// (PRISM's bare expressions over states, `x + 1` or `"goal"`), of any type.
    pub fn resolve_over_states(
        &self,
        file: &str,
        src: &str,
        e: &Expr,
        extra: &PropertyScope,
    ) -> Result<CExpr, Diagnostic> {
        Ok(self.resolve_in(file, src, e, extra, true)?.0)
    }

    /// Resolves `e` with the model's constants and formulas and those of `extra`, and, if
    /// `states`, the variables and the labels of both.
    fn resolve_in(
        &self,
        file: &str,
        src: &str,
        e: &Expr,
        extra: &PropertyScope,
        states: bool,
    ) -> Result<(CExpr, Type), Diagnostic> {
        let ck = Checker::new(file, src);
        let mut consts: HashMap<String, Value> = self.constants.iter().cloned().collect();
        consts.extend(extra.consts.iter().map(|(k, v)| (k.clone(), *v)));
        let with_extra;
        let formulas = if extra.formulas.is_empty() {
            &self.formulas
        } else {
            with_extra = self
                .formulas
                .iter()
                .chain(&extra.formulas)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            &with_extra
        };
        let vars: HashMap<String, (usize, bool)> = match states {
            true => self
                .vars
                .iter()
                .enumerate()
                .map(|(i, v)| (v.name.clone(), (i, v.is_bool)))
                .collect(),
            false => HashMap::new(),
        };
        let labels: HashMap<String, CExpr> = self
            .labels
            .iter()
            .cloned()
            .chain(extra.labels.iter().map(|(k, v)| (k.clone(), v.clone())))
            .collect();
        let inexact: HashSet<String> = self.inexact.union(&extra.inexact).cloned().collect();
        let scope = Scope {
            consts: &consts,
            formulas,
            vars: &vars,
            labels: states.then_some(&labels),
            inexact: &inexact,
            unread_vars: (!states).then_some(&self.vars),
        };
        ck.resolve(e, &scope, &mut Vec::new())
    }

    /// Whether the model names a constant, a variable or a formula `name`.
    pub fn has_name(&self, name: &str) -> bool {
        self.formulas.contains_key(name)
            || self.constants.iter().any(|(c, _)| c == name)
            || self.vars.iter().any(|v| v.name == name)
    }

    /// The model file's name and text.
    pub fn source(&self) -> (&str, &str) {
        (&self.file, &self.src)
    }
}

/// `parts` joined by `op` in a balanced tree (depth logarithmic in their number); `None` for
/// none.
fn balanced(op: BinOp, mut parts: Vec<CExpr>) -> Option<CExpr> {
    while parts.len() > 1 {
        let mut next = Vec::with_capacity(parts.len().div_ceil(2));
        let mut it = parts.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => CExpr::Binary(op, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        parts = next;
    }
    parts.pop()
}

/// What a properties file adds to a model's names: its constants (with their values), its
/// formulas and its labels (resolved against the model).
#[derive(Clone, Debug, Default)]
pub struct PropertyScope {
    /// Constants by name.
    pub consts: HashMap<String, Value>,
    /// Formulas by name, as written.
    pub formulas: HashMap<String, Expr>,
    /// Labels by name, resolved.
    pub labels: HashMap<String, CExpr>,
    /// The constants whose value need not be rational (see [`Program::inexact`]).
    pub inexact: HashSet<String>,
}

/// The labels every model has, which a model cannot define.
const BUILTIN_LABELS: [&str; 2] = ["init", "deadlock"];

/// Where formula `name` is declared, if it is one.
fn formula_span(model: &Model, name: &str) -> Option<Span> {
    model.items.iter().find_map(|i| match i {
        Item::Formula(n, _) if n.name == name => Some(n.span),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::parse_model;

    /// The machine-integer evaluation agrees with the exact one wherever it answers, and
    /// declines (for the exact one to answer or to name the error) on divisions, rationals
    /// and overflow.
    #[test]
    fn integer_evaluation_agrees_or_declines() {
        let src = "mdp\nconst double h = 0.5;\nmodule m\n  x : [-5..5];\n  b : bool;\nendmodule\n";
        let model = parse_model("t", src).unwrap();
        let program = Program::new("t", src, &model, &[]).unwrap();
        let cases = [
            ("x * 3 - 2 > 1 & !b", Some(true)),
            ("x = 2 ? b : !b | x > 4", Some(false)),
            ("min(x, 1) + max(x, 7) = 8", Some(true)),
            ("mod(-x, 3) = 1 & pow(x, 2) = 4", Some(true)),
            ("x / 2 = 1", None),
            ("x * h = 1", None),
            ("pow(x, 62) * 4 > 0", None),
            ("b => x = 3", Some(true)),
        ];
        for (text, expect) in cases {
            let e = crate::syntax::parser::parse_expr("e", text).unwrap();
            let c = program
                .resolve_property("e", text, &e, &PropertyScope::default())
                .unwrap();
            let vals = [2, 0];
            let int = c.eval_int(&vals).map(|v| v != 0);
            assert_eq!(int, expect, "{text}");
            if let Ok(Value::Bool(exact)) = c.eval(&vals) {
                assert!(int.is_none_or(|i| i == exact), "{text}");
            }
        }
    }
}
