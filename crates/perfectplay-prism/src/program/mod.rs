//! The checking pass: from the syntax tree to a [`Program`], the model with its constants
//! evaluated, formulas expanded, renamed modules copied, names resolved to variable indices and
//! constant parts folded, and every expression's type checked. Expressions become [`CExpr`]s
//! that evaluate on a state's variable values without looking a name up.

pub(crate) mod eval;
pub(crate) mod fast;
mod modules;
pub(crate) mod order;
pub mod props;
pub(crate) mod resolve;
pub mod value;

use std::collections::{HashMap, HashSet};

use crate::program::value::{Value, Q};
use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};

pub use crate::program::eval::{CExpr, EvalError};
use crate::program::modules::{check_renaming, compose, recompose, rename_module};
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
        let whole = Span::new(0, 0);
        // Constants, in an order that respects their dependencies.
        let mut decls: HashMap<String, &Const> = HashMap::new();
        let mut order = Vec::new();
        let mut formulas: HashMap<String, Expr> = HashMap::new();
        let mut formula_names: HashMap<&str, Span> = HashMap::new();
        for item in &model.items {
            match item {
                Item::Const(c) => {
                    let name = &c.name.name;
                    if let Some(first) = decls.get(name) {
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
                    decls.insert(name.clone(), c);
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
                    if let Some(c) = decls.get(&n.name) {
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
        // Each constant given one value, and only to a constant the model leaves undefined.
        let mut values: HashMap<&str, &str> = HashMap::new();
        for (name, value) in given {
            if let Some(first) = values.insert(name, value) {
                return Err(Diagnostic::plain(
                    file,
                    format!(
                        "constant '{name}' is given two values, {name}={first} and {name}={value}"
                    ),
                ));
            }
            if let Some(c) = decls.get(name).filter(|c| c.value.is_some()) {
                return Err(ck.error(
                    c.name.span,
                    format!(
                        "constant '{name}' is defined in the model and given the value \
                         {name}={value} as well: only a constant left undefined takes one"
                    ),
                ));
            }
        }
        // Values for constants the model does not declare are a properties file's: kept for
        // the front end to check that one declares them.
        let unclaimed: Vec<String> = given
            .iter()
            .filter(|(name, _)| !decls.contains_key(name))
            .map(|(name, _)| name.clone())
            .collect();
        let missing: Vec<&str> = order
            .iter()
            .filter(|n| decls[*n].value.is_none() && !given.iter().any(|(g, _)| g == *n))
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
        let mut consts: HashMap<String, Value> = HashMap::new();
        let mut inexact: HashSet<String> = HashSet::new();
        let no_vars = HashMap::new();
        let no_formulas = HashMap::new();
        // The constants in an order where every one comes after those it names (through
        // formulas too): one pass evaluates them all.
        let parsed_given: HashMap<&str, Expr> = given
            .iter()
            .filter(|(name, _)| decls.contains_key(name))
            .map(|(name, text)| {
                crate::syntax::parser::parse_expr(&format!("the value given for {name}"), text)
                    .map(|e| (name.as_str(), e))
            })
            .collect::<Result<_, _>>()?;
        let none = HashMap::new();
        let evaluation = crate::program::order::dependency_order(&order, |name| {
            let mut names = Vec::new();
            match parsed_given.get(name) {
                Some(e) => crate::program::order::names_in(e, &none, &mut names),
                None => crate::program::order::names_in(
                    decls[name].value.as_ref().expect("checked above"),
                    &formulas,
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
                None => (&ck, c.value.as_ref().expect("checked above"), &formulas),
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
        let _ = whole;
        let constants = order.iter().map(|n| (n.clone(), consts[n])).collect();
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
        // Modules with renamed copies spelled out.
        let mut modules: Vec<Module> = Vec::new();
        for item in &model.items {
            match item {
                Item::Module(m) => modules.push(m.clone()),
                Item::Renamed(r) => {
                    let Some(base) = model.items.iter().find_map(|i| match i {
                        Item::Module(m) if m.name.name == r.base.name => Some(m),
                        _ => None,
                    }) else {
                        return Err(
                            ck.error(r.base.span, format!("no module '{}' to copy", r.base.name))
                        );
                    };
                    check_renaming(ck, base, r)?;
                    modules.push(rename_module(base, r, &self.formulas));
                }
                _ => {}
            }
        }
        for m in &modules {
            if self.modules.contains(&m.name.name) {
                return Err(ck.error(
                    m.name.span,
                    format!("module '{}' is declared twice", m.name.name),
                ));
            }
            self.modules.push(m.name.name.clone());
        }
        let mut composition = None;
        let mut systems = model.items.iter().filter_map(|i| match i {
            Item::System(sys) => Some(sys),
            _ => None,
        });
        if let Some(sys) = systems.next() {
            if let Some(second) = systems.next() {
                return Err(ck.error(second.span, "a second system … endsystem"));
            }
            composition = compose(ck, sys, &modules, model.model_type)?;
        }
        // Variables: globals, then each module's.
        let mut decls: Vec<(&VarDecl, Option<usize>)> = Vec::new();
        for item in &model.items {
            if let Item::Global(v) = item {
                decls.push((v, None));
            }
        }
        for (i, m) in modules.iter().enumerate() {
            for v in &m.vars {
                decls.push((v, Some(i)));
            }
        }
        let mut var_index: HashMap<String, (usize, bool)> = HashMap::new();
        let no_vars = HashMap::new();
        let scope = Scope {
            consts,
            formulas: &self.formulas,
            vars: &no_vars,
            labels: None,
            inexact: &self.inexact,
            unread_vars: None,
        };
        for (v, module) in &decls {
            if var_index.contains_key(&v.name.name) || consts.contains_key(&v.name.name) {
                return Err(ck.error(v.name.span, format!("'{}' is declared twice", v.name.name)));
            }
            if let Some(f) = formula_span(model, &v.name.name) {
                let at = ck.place(f);
                return Err(ck.error(
                    v.name.span,
                    format!("'{}' is a formula (at {at}) and a variable", v.name.name),
                ));
            }
            let int_of = |e: &Expr| -> Result<i64, Diagnostic> {
                match ck.resolve(e, &scope, &mut Vec::new())? {
                    (CExpr::Const(Value::Int(n)), _) => Ok(n),
                    (CExpr::Const(Value::Bool(b)), _) if v.ty == VarType::Bool => Ok(b as i64),
                    _ => Err(ck.error(e.span, "expected a constant integer")),
                }
            };
            let (lo, hi, is_bool) = match &v.ty {
                VarType::Bool => (0, 1, true),
                VarType::Range(lo, hi) => (int_of(lo)?, int_of(hi)?, false),
            };
            if lo > hi {
                return Err(ck.error(
                    v.name.span,
                    format!("'{}' has the empty range [{lo}..{hi}]", v.name.name),
                ));
            }
            let init = match &v.init {
                Some(e) => int_of(e)?,
                None => lo,
            };
            if init < lo || init > hi {
                return Err(ck.error(
                    v.name.span,
                    format!("'{}' starts at {init}, outside [{lo}..{hi}]", v.name.name),
                ));
            }
            var_index.insert(v.name.name.clone(), (self.vars.len(), is_bool));
            self.vars.push(Var {
                name: v.name.name.clone(),
                lo,
                hi,
                init,
                is_bool,
                module: *module,
            });
        }
        let scope = Scope {
            consts,
            formulas: &self.formulas,
            vars: &var_index,
            labels: None,
            inexact: &self.inexact,
            unread_vars: None,
        };
        let bool_of = |e: &Expr, what: &str| -> Result<CExpr, Diagnostic> {
            let (c, t) = ck.resolve(e, &scope, &mut Vec::new())?;
            if t != Type::Bool {
                return Err(ck.error(e.span, format!("{what} must be a boolean")));
            }
            Ok(c)
        };
        let num_of = |e: &Expr, what: &str| -> Result<CExpr, Diagnostic> {
            let (c, t) = ck.resolve(e, &scope, &mut Vec::new())?;
            if t == Type::Bool {
                return Err(ck.error(e.span, format!("{what} must be a number")));
            }
            Ok(c)
        };
        // Each action's number, found by name (a model may have thousands of actions).
        let mut numbers: std::collections::HashMap<String, usize> = self
            .actions
            .iter()
            .enumerate()
            .map(|(i, a)| (a.clone(), i))
            .collect();
        let mut action_of = |a: &Ident, actions: &mut Vec<String>| -> usize {
            *numbers.entry(a.name.clone()).or_insert_with(|| {
                actions.push(a.name.clone());
                actions.len() - 1
            })
        };
        for (mi, m) in modules.iter().enumerate() {
            for c in &m.commands {
                let guard = bool_of(&c.guard, "a guard")?;
                let mut updates = Vec::new();
                for u in &c.updates {
                    let prob = match &u.prob {
                        Some(p) => Some(num_of(p, "a probability")?),
                        None => None,
                    };
                    let mut assigns = Vec::new();
                    for (var, e) in &u.assigns {
                        let Some(&(vi, _)) = var_index.get(&var.name) else {
                            return Err(
                                ck.error(var.span, format!("unknown variable '{}'", var.name))
                            );
                        };
                        if let Some(owner) = self.vars[vi].module {
                            if owner != mi {
                                return Err(ck.error(
                                    var.span,
                                    format!(
                                        "module '{}' cannot change '{}', a variable of module '{}'",
                                        m.name.name, var.name, self.modules[owner]
                                    ),
                                ));
                            }
                        }
                        if assigns.iter().any(|(x, _)| *x == vi) {
                            return Err(ck.error(
                                var.span,
                                format!("'{}' is updated twice in one update", var.name),
                            ));
                        }
                        let (ce, t) = ck.resolve(e, &scope, &mut Vec::new())?;
                        if (t == Type::Bool) != self.vars[vi].is_bool {
                            return Err(ck.error(
                                e.span,
                                format!("'{}' gets a value of the wrong type", var.name),
                            ));
                        }
                        if t == Type::Real {
                            return Err(ck.error(
                                e.span,
                                format!(
                                    "'{}' is an integer and gets a value that is not",
                                    var.name
                                ),
                            ));
                        }
                        assigns.push((vi, ce));
                    }
                    updates.push((prob, assigns));
                }
                if updates.len() > 1 && updates.iter().any(|(p, _)| p.is_none()) {
                    return Err(ck.error(
                        c.span,
                        "every update of a command with several needs a probability",
                    ));
                }
                let action = c.action.as_ref().map(|a| action_of(a, &mut self.actions));
                self.commands.push(Cmd {
                    module: mi,
                    action,
                    guard,
                    updates,
                    text: ck.src[c.span.start..c.span.end]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            }
        }
        // A composition other than `||` alone: each command of an action, once for each sync
        // its module takes part in on that action, carries the sync's number instead.
        let composed =
            composition.map(|syncs| recompose(&mut self.actions, &mut self.commands, &syncs));
        let mut label_spans: HashMap<&str, Span> = HashMap::new();
        let mut reward_spans: HashMap<&str, Span> = HashMap::new();
        // Each module is one player's, and each action; players have distinct names.
        let mut player_names: HashMap<&str, Span> = HashMap::new();
        let mut module_owner: HashMap<usize, &str> = HashMap::new();
        let mut action_owner: HashMap<usize, &str> = HashMap::new();
        for item in &model.items {
            match item {
                Item::Label(n, e) => {
                    if let Some(first) = label_spans.insert(&n.name, n.span) {
                        let at = ck.place(first);
                        return Err(ck.error(
                            n.span,
                            format!("label \"{}\" is declared twice (first at {at})", n.name),
                        ));
                    }
                    if BUILTIN_LABELS.contains(&n.name.as_str()) {
                        return Err(ck.error(
                            n.span,
                            format!("label \"{}\" is built in and cannot be redefined", n.name),
                        ));
                    }
                    let c = bool_of(e, "a label")?;
                    self.labels.push((n.name.clone(), c));
                }
                Item::Rewards(r) => {
                    let name = r.name.as_ref().map_or(String::new(), |n| n.name.clone());
                    if let Some(first) = r
                        .name
                        .as_ref()
                        .and_then(|n| reward_spans.insert(&n.name, r.span))
                    {
                        let at = ck.place(first);
                        return Err(ck.error(
                            r.span,
                            format!(
                                "reward structure \"{name}\" is declared twice (first at {at})"
                            ),
                        ));
                    }
                    let mut s = RewardStruct {
                        name,
                        state: Vec::new(),
                        transition: Vec::new(),
                    };
                    for it in &r.items {
                        let g = bool_of(&it.guard, "a reward's guard")?;
                        let v = num_of(&it.value, "a reward")?;
                        match &it.action {
                            None => s.state.push((g, v)),
                            Some(a) => match &composed {
                                Some(composed) => {
                                    let name = a.as_ref().map(|a| a.name.as_str());
                                    for k in composed.reward_actions(name) {
                                        s.transition.push((k, g.clone(), v.clone()));
                                    }
                                }
                                None => {
                                    let a = a.as_ref().map(|a| action_of(a, &mut self.actions));
                                    s.transition.push((a, g, v));
                                }
                            },
                        }
                    }
                    self.rewards.push(s);
                }
                Item::Init(e) => {
                    if self.init.is_some() {
                        return Err(ck.error(e.span, "a second init … endinit"));
                    }
                    if decls.iter().any(|(v, _)| v.init.is_some()) {
                        return Err(ck.error(
                            e.span,
                            "init … endinit and variables with init values cannot be mixed",
                        ));
                    }
                    self.init = Some(bool_of(e, "init … endinit")?);
                }
                Item::Player(p) => {
                    if model.model_type != ModelType::Smg {
                        return Err(ck.error(p.name.span, "players belong to smg models"));
                    }
                    let find = |names: &[String], id: &Ident, what: &str| {
                        names.iter().position(|x| *x == id.name).ok_or_else(|| {
                            ck.error(id.span, format!("unknown {what} '{}'", id.name))
                        })
                    };
                    let name = p.name.name.as_str();
                    if let Some(first) = player_names.insert(name, p.name.span) {
                        let at = ck.place(first);
                        return Err(ck.error(
                            p.name.span,
                            format!("player '{name}' is declared twice (first at {at})"),
                        ));
                    }
                    let mut ms = Vec::new();
                    let mut acts = Vec::new();
                    for c in &p.controls {
                        let (i, owners, what, id) = match c {
                            Controlled::Module(m) => (
                                find(&self.modules, m, "module")?,
                                &mut module_owner,
                                "module",
                                m,
                            ),
                            Controlled::Action(a) => (
                                find(&self.actions, a, "action")?,
                                &mut action_owner,
                                "action",
                                a,
                            ),
                        };
                        if let Some(other) = owners.insert(i, name) {
                            let whose = match other == name {
                                true => format!("twice by player '{name}'"),
                                false => format!("by players '{other}' and '{name}'"),
                            };
                            return Err(ck.error(
                                id.span,
                                format!("{what} '{}' is controlled {whose}", id.name),
                            ));
                        }
                        match c {
                            Controlled::Module(_) => ms.push(i),
                            Controlled::Action(_) => acts.push(i),
                        }
                    }
                    self.players.push((p.name.name.clone(), ms, acts));
                }
                _ => {}
            }
        }
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

/// The value of constant `name` resolved as `c`, noting in `inexact` whether it need not be
/// rational; `None` if it is no constant.
fn constant_of(c: CExpr, name: &str, inexact: &mut HashSet<String>) -> Option<Value> {
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
