//! A reward structure's values on a built space: each choice's reward (state and transition
//! rewards) and each state's state reward, as exact fractions for the engine.

use crate::analysis::error::AnalysisError;
use perfectplay::Rat;

use crate::build::Space;
use crate::program::fast::IntExpr;
use crate::program::value::Q;
use crate::program::{Program, RewardStruct};
use crate::syntax::ast::RewardRef;

/// The reward structure `r` names (the first where it names none).
pub(crate) fn reward_structure<'p>(
    program: &'p Program,
    r: Option<&RewardRef>,
) -> Result<&'p RewardStruct, AnalysisError> {
    match r {
        None => program.rewards.first(),
        Some(RewardRef::Name(name)) => program.rewards.iter().find(|s| s.name == name.name),
        Some(RewardRef::Index(i, _)) => i.checked_sub(1).and_then(|i| program.rewards.get(i)),
    }
    .ok_or_else(|| {
        AnalysisError::NoRewardStructure(match r {
            Some(RewardRef::Name(name)) => Some(name.name.clone()),
            _ => None,
        })
    })
}

fn rat_of(q: Q, what: &str) -> Result<Rat, AnalysisError> {
    let (n, d) = q.parts();
    i64::try_from(n)
        .ok()
        .zip(i64::try_from(d).ok())
        .and_then(|(n, d)| Rat::checked_new(n, d))
        .ok_or_else(|| {
            AnalysisError::Reward(format!("{what} {q} is too large a fraction for the solver"))
        })
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
    let state_guards = state_guards(structure);
    let transition_guards: Vec<IntExpr> = structure
        .transition
        .iter()
        .map(|(_, g, _)| IntExpr::new(g))
        .collect();
    let mut reward = vec![Rat::ZERO; space.choices.len()];
    for s in 0..space.len() as u32 {
        if skip[s as usize] {
            continue;
        }
        space.unpack(program, s, &mut vals);
        let state = state_reward(structure, &state_guards, &vals)?;
        for c in space.choices_of(s) {
            let mut total = state;
            let action = space.choices[c].action();
            // The self-loop added at a deadlock is no command's: no transition reward.
            let commanded = !space.choices[c].is_added_loop();
            for ((a, g, v), fast) in structure.transition.iter().zip(&transition_guards) {
                if commanded && *a == action && fast.holds(g, &vals)? {
                    let x = value_of(v, &vals)?;
                    total = total.checked_add(x).ok_or_else(overflow)?;
                }
            }
            reward[c] = rat_of(total, "a reward")?;
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
    let guards = state_guards(structure);
    (0..space.len() as u32)
        .map(|s| {
            space.unpack(program, s, &mut vals);
            rat_of(state_reward(structure, &guards, &vals)?, "a reward")
        })
        .collect()
}

/// The guards of the state rewards of `structure`, compiled.
fn state_guards(structure: &RewardStruct) -> Vec<IntExpr> {
    structure
        .state
        .iter()
        .map(|(g, _)| IntExpr::new(g))
        .collect()
}

/// The state reward of the state with variable values `vals`.
fn state_reward(
    structure: &RewardStruct,
    guards: &[IntExpr],
    vals: &[i64],
) -> Result<Q, AnalysisError> {
    let mut state = Q::int(0);
    for ((g, v), fast) in structure.state.iter().zip(guards) {
        if fast.holds(g, vals)? {
            let x = value_of(v, vals)?;
            state = state.checked_add(x).ok_or_else(overflow)?;
        }
    }
    Ok(state)
}

/// The value of a numeric reward expression on variable values.
fn value_of(
    e: &crate::program::CExpr,
    vals: &[i64],
) -> Result<crate::program::value::Q, AnalysisError> {
    e.eval(vals)?
        .number()
        .ok_or_else(|| AnalysisError::Reward("a reward is a boolean".into()))
}

/// A reward sum beyond 128-bit fractions.
fn overflow() -> AnalysisError {
    AnalysisError::Reward("a reward overflows".into())
}
