//! The second part of the checking pass, once the constants are known: the modules (renamed
//! copies spelled out, the `system` block read), the variables, the commands, and the model's
//! other declarations (labels, reward structures, `init … endinit`, players), each checked
//! and added to the [`Program`].

use std::collections::HashMap;

use crate::program::modules::{check_renaming, compose, rename_module, Composed, Sync};
use crate::program::resolve::{Checker, Scope, Type};
use crate::program::value::Value;
use crate::program::{formula_span, CExpr, Cmd, Program, RewardStruct, Var, BUILTIN_LABELS};
use crate::syntax::ast::*;
use crate::syntax::diagnostic::{Diagnostic, Span};

/// Variables by name: their number and whether boolean.
pub(super) type VarIndex = HashMap<String, (usize, bool)>;

/// Expressions of the model checked against its names, with the type each place needs.
pub(super) struct Typed<'a> {
    pub(super) ck: &'a Checker<'a>,
    pub(super) scope: Scope<'a>,
}

impl Typed<'_> {
    /// `e` resolved, which must be a boolean (`what` says where it stands, for the error).
    fn boolean(&self, e: &Expr, what: &str) -> Result<CExpr, Diagnostic> {
        let (c, t) = self.ck.resolve(e, &self.scope, &mut Vec::new())?;
        if t != Type::Bool {
            return Err(self.ck.error(e.span, format!("{what} must be a boolean")));
        }
        Ok(c)
    }

    /// `e` resolved, which must be a number.
    fn number(&self, e: &Expr, what: &str) -> Result<CExpr, Diagnostic> {
        let (c, t) = self.ck.resolve(e, &self.scope, &mut Vec::new())?;
        if t == Type::Bool {
            return Err(self.ck.error(e.span, format!("{what} must be a number")));
        }
        Ok(c)
    }
}

/// Each action's number, found by name (a model may have thousands of actions), new names
/// numbered in the order they come.
#[derive(Default)]
pub(super) struct ActionNumbers(HashMap<String, usize>);

impl ActionNumbers {
    /// The number of action `a`, added to `actions` if it is new.
    fn of(&mut self, a: &Ident, actions: &mut Vec<String>) -> usize {
        *self.0.entry(a.name.clone()).or_insert_with(|| {
            actions.push(a.name.clone());
            actions.len() - 1
        })
    }
}

/// The names already declared of one kind, where each was first, for the error that names
/// the first place of a second declaration.
#[derive(Default)]
struct FirstSeen<'m>(HashMap<&'m str, Span>);

impl<'m> FirstSeen<'m> {
    /// Notes `name` at `span`: an error that says `what` is declared twice if it was seen.
    fn note(
        &mut self,
        ck: &Checker<'_>,
        name: &'m str,
        span: Span,
        what: impl FnOnce() -> String,
    ) -> Result<(), Diagnostic> {
        match self.0.insert(name, span) {
            Some(first) => {
                let at = ck.place(first);
                Err(ck.error(
                    span,
                    format!("{} is declared twice (first at {at})", what()),
                ))
            }
            None => Ok(()),
        }
    }
}

impl Program {
    /// The modules of `model`, renamed copies spelled out, each named once (their names
    /// noted in the program), and the composition of its `system … endsystem` block, if it has
    /// one other than `||` alone.
    pub(super) fn modules_of(
        &mut self,
        ck: &Checker<'_>,
        model: &Model,
    ) -> Result<(Vec<Module>, Option<Vec<Sync>>), Diagnostic> {
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
        let mut systems = model.items.iter().filter_map(|i| match i {
            Item::System(sys) => Some(sys),
            _ => None,
        });
        let composition = match systems.next() {
            Some(sys) => {
                if let Some(second) = systems.next() {
                    return Err(ck.error(second.span, "a second system … endsystem"));
                }
                compose(ck, sys, &modules, model.model_type)?
            }
            None => None,
        };
        Ok((modules, composition))
    }

    /// The variables: the globals of `model`, then each of `modules`' own, their bounds and
    /// initial values evaluated over `consts`.
    pub(super) fn variables(
        &mut self,
        ck: &Checker<'_>,
        model: &Model,
        modules: &[Module],
        consts: &HashMap<String, Value>,
    ) -> Result<VarIndex, Diagnostic> {
        let globals = model.items.iter().filter_map(|item| match item {
            Item::Global(v) => Some((v, None)),
            _ => None,
        });
        let owned = (modules.iter().enumerate())
            .flat_map(|(i, m)| m.vars.iter().map(move |v| (v, Some(i))));
        let mut var_index = VarIndex::new();
        let no_vars = HashMap::new();
        let scope = Scope {
            consts,
            formulas: &self.formulas,
            vars: &no_vars,
            labels: None,
            inexact: &self.inexact,
            unread_vars: None,
        };
        for (v, module) in globals.chain(owned) {
            let name = &v.name.name;
            if var_index.contains_key(name) || consts.contains_key(name) {
                return Err(ck.error(v.name.span, format!("'{name}' is declared twice")));
            }
            if let Some(f) = formula_span(model, name) {
                let at = ck.place(f);
                return Err(ck.error(
                    v.name.span,
                    format!("'{name}' is a formula (at {at}) and a variable"),
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
                    format!("'{name}' has the empty range [{lo}..{hi}]"),
                ));
            }
            let init = match &v.init {
                Some(e) => int_of(e)?,
                None => lo,
            };
            if init < lo || init > hi {
                return Err(ck.error(
                    v.name.span,
                    format!("'{name}' starts at {init}, outside [{lo}..{hi}]"),
                ));
            }
            var_index.insert(name.clone(), (self.vars.len(), is_bool));
            self.vars.push(Var {
                name: name.clone(),
                lo,
                hi,
                init,
                is_bool,
                module,
            });
        }
        Ok(var_index)
    }

    /// The commands of `modules`, in order, each checked: an update changes only its own
    /// module's (or global) variables, each at most once, with a value of its type, and a
    /// command with several updates gives each a probability.
    pub(super) fn commands_of(
        &mut self,
        typed: &Typed<'_>,
        modules: &[Module],
        numbers: &mut ActionNumbers,
    ) -> Result<(), Diagnostic> {
        let ck = typed.ck;
        for (mi, m) in modules.iter().enumerate() {
            for c in &m.commands {
                let guard = typed.boolean(&c.guard, "a guard")?;
                let mut updates = Vec::new();
                for u in &c.updates {
                    let prob = match &u.prob {
                        Some(p) => Some(typed.number(p, "a probability")?),
                        None => None,
                    };
                    let mut assigns = Vec::new();
                    for (var, e) in &u.assigns {
                        let vi = self.assigned(typed, m, mi, var, &assigns)?;
                        let (ce, t) = ck.resolve(e, &typed.scope, &mut Vec::new())?;
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
                let action = c.action.as_ref().map(|a| numbers.of(a, &mut self.actions));
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
        Ok(())
    }

    /// The number of variable `var`, which a command of module `m` (number `mi`) updates,
    /// beside those in `assigns`: one it may change, not yet changed.
    fn assigned(
        &self,
        typed: &Typed<'_>,
        m: &Module,
        mi: usize,
        var: &Ident,
        assigns: &[(usize, CExpr)],
    ) -> Result<usize, Diagnostic> {
        let ck = typed.ck;
        let Some(&(vi, _)) = typed.scope.vars.get(&var.name) else {
            return Err(ck.error(var.span, format!("unknown variable '{}'", var.name)));
        };
        if let Some(owner) = self.vars[vi].module.filter(|&owner| owner != mi) {
            return Err(ck.error(
                var.span,
                format!(
                    "module '{}' cannot change '{}', a variable of module '{}'",
                    m.name.name, var.name, self.modules[owner]
                ),
            ));
        }
        if assigns.iter().any(|(x, _)| *x == vi) {
            return Err(ck.error(
                var.span,
                format!("'{}' is updated twice in one update", var.name),
            ));
        }
        Ok(vi)
    }

    /// The labels, reward structures, `init … endinit` and players of `model`, in order, with
    /// each transition reward's action numbered by `numbers`, or by `composed` (the
    /// composition's commands) where the model has one. `init_values`: whether a variable
    /// has its own initial value, which `init … endinit` cannot be mixed with.
    pub(super) fn declarations(
        &mut self,
        typed: &Typed<'_>,
        model: &Model,
        composed: Option<&Composed>,
        numbers: &mut ActionNumbers,
        init_values: bool,
    ) -> Result<(), Diagnostic> {
        let ck = typed.ck;
        let mut labels = FirstSeen::default();
        let mut rewards = FirstSeen::default();
        let mut players = Players::default();
        for item in &model.items {
            match item {
                Item::Label(n, e) => {
                    labels.note(ck, &n.name, n.span, || format!("label \"{}\"", n.name))?;
                    if BUILTIN_LABELS.contains(&n.name.as_str()) {
                        return Err(ck.error(
                            n.span,
                            format!("label \"{}\" is built in and cannot be redefined", n.name),
                        ));
                    }
                    let c = typed.boolean(e, "a label")?;
                    self.labels.push((n.name.clone(), c));
                }
                Item::Rewards(r) => {
                    let name = r.name.as_ref().map_or(String::new(), |n| n.name.clone());
                    if let Some(n) = &r.name {
                        rewards.note(ck, &n.name, r.span, || {
                            format!("reward structure \"{name}\"")
                        })?;
                    }
                    let s = self.reward_struct(typed, r, name, composed, numbers)?;
                    self.rewards.push(s);
                }
                Item::Init(e) => {
                    if self.init.is_some() {
                        return Err(ck.error(e.span, "a second init … endinit"));
                    }
                    if init_values {
                        return Err(ck.error(
                            e.span,
                            "init … endinit and variables with init values cannot be mixed",
                        ));
                    }
                    self.init = Some(typed.boolean(e, "init … endinit")?);
                }
                Item::Player(p) => {
                    if model.model_type != ModelType::Smg {
                        return Err(ck.error(p.name.span, "players belong to smg models"));
                    }
                    let player = players.of(ck, p, &self.modules, &self.actions)?;
                    self.players.push(player);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reward structure `r`, named `name`, with its items checked.
    fn reward_struct(
        &mut self,
        typed: &Typed<'_>,
        r: &Rewards,
        name: String,
        composed: Option<&Composed>,
        numbers: &mut ActionNumbers,
    ) -> Result<RewardStruct, Diagnostic> {
        let mut s = RewardStruct {
            name,
            state: Vec::new(),
            transition: Vec::new(),
        };
        for it in &r.items {
            let g = typed.boolean(&it.guard, "a reward's guard")?;
            let v = typed.number(&it.value, "a reward")?;
            match (&it.action, composed) {
                (None, _) => s.state.push((g, v)),
                (Some(a), Some(composed)) => {
                    let name = a.as_ref().map(|a| a.name.as_str());
                    for k in composed.reward_actions(name) {
                        s.transition.push((k, g.clone(), v.clone()));
                    }
                }
                (Some(a), None) => {
                    let a = a.as_ref().map(|a| numbers.of(a, &mut self.actions));
                    s.transition.push((a, g, v));
                }
            }
        }
        Ok(s)
    }
}

/// The players declared so far, and who controls each module and action: each is one
/// player's, and players have distinct names.
#[derive(Default)]
struct Players<'m> {
    names: FirstSeen<'m>,
    module_owner: HashMap<usize, &'m str>,
    action_owner: HashMap<usize, &'m str>,
}

impl<'m> Players<'m> {
    /// Player `p`: its name and the numbers of the modules and actions it controls, among
    /// `modules` and `actions`.
    fn of(
        &mut self,
        ck: &Checker<'_>,
        p: &'m PlayerDecl,
        modules: &[String],
        actions: &[String],
    ) -> Result<(String, Vec<usize>, Vec<usize>), Diagnostic> {
        let find = |names: &[String], id: &Ident, what: &str| {
            (names.iter().position(|x| *x == id.name))
                .ok_or_else(|| ck.error(id.span, format!("unknown {what} '{}'", id.name)))
        };
        let name = p.name.name.as_str();
        self.names
            .note(ck, name, p.name.span, || format!("player '{name}'"))?;
        let mut ms = Vec::new();
        let mut acts = Vec::new();
        for c in &p.controls {
            let (i, owners, what, id) = match c {
                Controlled::Module(m) => (
                    find(modules, m, "module")?,
                    &mut self.module_owner,
                    "module",
                    m,
                ),
                Controlled::Action(a) => (
                    find(actions, a, "action")?,
                    &mut self.action_owner,
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
        Ok((p.name.name.clone(), ms, acts))
    }
}
