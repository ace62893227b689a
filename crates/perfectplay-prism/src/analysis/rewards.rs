//! A reward structure's values on a built space: each choice's reward (state and transition
//! rewards) and each state's state reward, as exact fractions for the engine.

use crate::analysis::error::AnalysisError;
use perfectplay::Rat;

use crate::build::Space;
use crate::program::fast::IntExpr;
use crate::program::value::Value;
use crate::program::value::Q;
use crate::program::{CExpr, Program, RewardStruct};
use crate::syntax::ast::RewardRef;

/// The reward structure of Storm's time operator `T`: 1 in every state, so that a step taken
/// earns one unit of time.
static TIME: std::sync::LazyLock<RewardStruct> = std::sync::LazyLock::new(|| RewardStruct {
    name: "time".to_string(),
    state: vec![(CExpr::Const(Value::Bool(true)), CExpr::Const(Value::Int(1)))],
    transition: Vec::new(),
});

/// The reward structure `r` names (the first where it names none).
pub(crate) fn reward_structure<'p>(
    program: &'p Program,
    r: Option<&RewardRef>,
) -> Result<&'p RewardStruct, AnalysisError> {
    match r {
        None => program.rewards.first(),
        Some(RewardRef::Name(name)) => program.rewards.iter().find(|s| s.name == name.name),
        Some(RewardRef::Index(i, _)) => i.checked_sub(1).and_then(|i| program.rewards.get(i)),
        Some(RewardRef::Time) => Some(&*TIME),
    }
    .ok_or_else(|| {
        AnalysisError::NoRewardStructure(match r {
            Some(RewardRef::Name(name)) => Some(name.name.clone()),
            _ => None,
        })
    })
}

/// A reward structure compiled to be evaluated state by state: a state's state reward, and
/// the transition rewards of a command by its action.
pub(crate) struct Compiled {
    structure: RewardStruct,
    state_guards: Vec<IntExpr>,
    transition_guards: Vec<IntExpr>,
}

impl Compiled {
    /// `structure`, its guards compiled.
    pub(crate) fn new(structure: &RewardStruct) -> Compiled {
        Compiled {
            state_guards: structure
                .state
                .iter()
                .map(|(g, _)| IntExpr::new(g))
                .collect(),
            transition_guards: structure
                .transition
                .iter()
                .map(|(_, g, _)| IntExpr::new(g))
                .collect(),
            structure: structure.clone(),
        }
    }

    /// The state reward of the state with variable values `vals`.
    pub(crate) fn state(&self, vals: &[i64]) -> Result<Q, AnalysisError> {
        let mut state = Q::int(0);
        for ((g, v), fast) in self.structure.state.iter().zip(&self.state_guards) {
            if fast.holds(g, vals)? {
                let x = value_of(v, vals)?;
                state = state.checked_add(x).ok_or_else(overflow)?;
            }
        }
        Ok(state)
    }

    /// The transition rewards of a command labelled `action` (`None` for `[]`) in the state
    /// with variable values `vals`, added to `total`.
    pub(crate) fn transition(
        &self,
        action: Option<usize>,
        vals: &[i64],
        mut total: Q,
    ) -> Result<Q, AnalysisError> {
        let transitions = self.structure.transition.iter();
        for ((a, g, v), fast) in transitions.zip(&self.transition_guards) {
            if *a == action && fast.holds(g, vals)? {
                let x = value_of(v, vals)?;
                total = total.checked_add(x).ok_or_else(overflow)?;
            }
        }
        Ok(total)
    }
}

/// Each choice's reward in `structure`: its state's state rewards and its own transition
/// rewards; zero for the choices of states in `skip` (a target, where nothing is earned).
pub(crate) fn choice_rewards(
    program: &Program,
    space: &Space,
    structure: &RewardStruct,
    skip: &[bool],
) -> Result<Vec<Rat>, AnalysisError> {
    let mut vals = Vec::new();
    let compiled = Compiled::new(structure);
    let mut reward = vec![Rat::ZERO; space.choices.len()];
    for s in 0..space.len() as u32 {
        if skip[s as usize] {
            continue;
        }
        space.unpack(program, s, &mut vals);
        let state = compiled.state(&vals)?;
        for c in space.choices_of(s) {
            let choice = &space.choices[c];
            // The self-loop added at a deadlock is no command's: no transition reward.
            let total = match choice.is_added_loop() {
                true => state,
                false => compiled.transition(choice.action(), &vals, state)?,
            };
            reward[c] = total.rat();
        }
    }
    Ok(reward)
}

/// Each state's state reward in `structure` (what `I=k` measures).
pub(crate) fn state_rewards(
    program: &Program,
    space: &Space,
    structure: &RewardStruct,
) -> Result<Vec<Rat>, AnalysisError> {
    let mut vals = Vec::new();
    let compiled = Compiled::new(structure);
    (0..space.len() as u32)
        .map(|s| {
            space.unpack(program, s, &mut vals);
            Ok(compiled.state(&vals)?.rat())
        })
        .collect()
}

/// The value of a numeric reward expression on variable values.
fn value_of(
    e: &crate::program::CExpr,
    vals: &[i64],
) -> Result<crate::program::value::Q, AnalysisError> {
    match e.eval(vals)? {
        v @ crate::program::value::Value::Float(_) => Err(AnalysisError::Reward(format!(
            "a reward is {v} (only finite rewards are allowed)"
        ))),
        v => v
            .number()
            .ok_or_else(|| AnalysisError::Reward("a reward is a boolean".into())),
    }
}

/// A reward sum beyond the fractions expressions are evaluated in.
fn overflow() -> AnalysisError {
    AnalysisError::Reward("a reward overflows".into())
}
