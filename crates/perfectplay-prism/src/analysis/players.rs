//! Who decides where in a stochastic game (smg): a state belongs to the player that controls
//! its choices (a module's unlabelled commands, or an action), and a query's coalition
//! optimises as the query says while every other player does the opposite. The built space's
//! analyses (`owners`) and the solve across processes (`across.rs`, one state at a time) share
//! these rules.

use perfectplay::Player;

use crate::analysis::error::{unsupported, AnalysisError};
use crate::build::Space;
use crate::program::Program;

/// Who decides in each state of an smg: the coalition's players optimise as the query says
/// (`best`), every other player the opposite. A state belongs to the player that controls its
/// choices: a module's unlabelled commands, or an action.
pub(crate) fn owners(
    program: &Program,
    space: &Space,
    coalition: &[crate::syntax::ast::Ident],
    best: Player,
) -> Result<Vec<Player>, AnalysisError> {
    let members = coalition_members(program, coalition)?;
    (0..space.len() as u32)
        .map(|s| {
            let choices = space.choices_of(s).map(|c| {
                let ch = &space.choices[c];
                (!ch.is_added_loop()).then(|| (ch.action(), ch.module()))
            });
            let owner = state_owner(program, choices, || space.show(program, s))?;
            Ok(side_of(&members, owner, best))
        })
        .collect()
}

/// The coalition's players, as a flag per player of `program`.
pub(crate) fn coalition_members(
    program: &Program,
    coalition: &[crate::syntax::ast::Ident],
) -> Result<Vec<bool>, AnalysisError> {
    let mut members = vec![false; program.players.len()];
    for id in coalition {
        if id.name == "*" {
            // `<<*>>`: every player.
            members.iter_mut().for_each(|m| *m = true);
            continue;
        }
        let i = match id.name.parse::<usize>() {
            Ok(k) if (1..=program.players.len()).contains(&k) => k - 1,
            Ok(k) => return Err(unsupported(format!("no player number {k}"))),
            Err(_) => program
                .players
                .iter()
                .position(|(name, _, _)| *name == id.name)
                .ok_or_else(|| unsupported(format!("no player '{}'", id.name)))?,
        };
        members[i] = true;
    }
    Ok(members)
}

/// The engine's player of a state owned by player `owner` of the smg (`None` for a deadlock,
/// which decides nothing): `best` for the coalition, the other for the rest.
pub(crate) fn side_of(members: &[bool], owner: Option<usize>, best: Player) -> Player {
    match owner {
        Some(o) if !members[o] => best.other(),
        _ => best,
    }
}

/// The player of `program` that controls a state's choices, given each choice's action and
/// module (`None` for a deadlock's self-loop, which belongs to nobody); an error, naming the
/// state as `show` gives it, where two players or none control them.
pub(crate) fn state_owner(
    program: &Program,
    choices: impl ExactSizeIterator<Item = Option<(Option<usize>, usize)>>,
    show: impl Fn() -> String,
) -> Result<Option<usize>, AnalysisError> {
    let count = choices.len();
    let mut owner = None;
    for choice in choices {
        let o = choice.and_then(|(action, module)| {
            program
                .players
                .iter()
                .position(|(_, modules, actions)| match action {
                    Some(a) => actions.contains(&a),
                    None => modules.contains(&module),
                })
        });
        // A deadlock's self-loop belongs to nobody: it decides nothing.
        let Some(o) = o else {
            if count == 1 {
                continue;
            }
            return Err(AnalysisError::Players(format!(
                "state {}: a choice that no player controls",
                show()
            )));
        };
        if owner.is_some_and(|p| p != o) {
            return Err(AnalysisError::Players(format!(
                "state {}: choices of two players ({} and {})",
                show(),
                program.players[owner.unwrap_or(0)].0,
                program.players[o].0
            )));
        }
        owner = Some(o);
    }
    Ok(owner)
}
