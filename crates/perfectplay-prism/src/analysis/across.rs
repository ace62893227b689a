//! An unbounded P query, or an R query of `F`, as a game over the model's own states, expanded
//! when asked and written as bytes ([`AcrossModel`]): what a solve that holds only a share of
//! the states (the solve across processes) explores. No state space is built and no graph
//! analysis runs: a state is a packed valuation ([`crate::build::lazy`]), its node is the
//! query's at that state, and the solver that takes it decides the values by bounds that
//! close in.
//!
//! What the query model of a built space decides by graph analysis is left to that solver,
//! with two exceptions that are exact and local: a state that can never leave (a deadlock, or
//! one whose every choice loops back to it) has probability zero of reaching a target it is
//! not in, and a state the query decides (its target, or outside the `ψ` of `ψ U φ`) is
//! terminal.
//!
//! For an R query, a step earns its state's state reward and its command's transition reward
//! (rewards must be at least zero), the target is worth zero, and an endless play is worth +∞
//! against the minimiser: the solver must give that worth to the states from which the target
//! may be missed (PRISM's +∞), and a state that can never leave keeps its loop for it to find.

use std::fmt::Debug;
use std::hash::Hash;

use perfectplay::{Model, NodeBuilder, Player, Rat};

use perfectplay::dynamic::DynModel;

use crate::analysis::check::{validate_query, OverInitial};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::players::{coalition_members, side_of, state_owner};
use crate::analysis::query::{expand_start, OUTCOME};
use crate::analysis::resolved::Resolved;
use crate::analysis::rewards::{rat_of, reward_structure, Compiled};
use crate::build::lazy::{state_bits, Stepper};
use crate::build::packed::Word;
use crate::build::BuildError;
use crate::program::{CExpr, Program};
use crate::syntax::ast::{Measure, ModelType, Opt, Path};

/// A state of the query's game: the virtual start over several initial states, or a state of
/// the model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum At<K> {
    /// The choice (or the mean) over the initial states; the mean too where their range
    /// is asked, which the solve reads from the start's outcomes.
    Start,
    /// A state of the model, packed.
    State(K),
}

/// An unbounded `F` or `U` probability, or an `F` reward, on a model whose states are expanded
/// when asked; see the module documentation.
pub(crate) struct AcrossModel<K> {
    pub(crate) stepper: Stepper<K>,
    pub(crate) initial: Vec<K>,
    pub(crate) over: OverInitial,
    pub(crate) target: CExpr,
    pub(crate) through: Option<CExpr>,
    /// Who optimises as the query says (`Max` for a maximum).
    pub(crate) player: Player,
    /// In an smg with a coalition: its players, as a flag per player.
    pub(crate) members: Option<Vec<bool>>,
    /// Whether every state's commands are chosen uniformly (a DTMC).
    pub(crate) dtmc: bool,
    /// For an R query, its reward structure.
    pub(crate) reward: Option<Compiled>,
}

impl<K: Word + Debug + Send + Sync> AcrossModel<K> {
    /// The query's node at the state `s` into `node`, or the reason it cannot be given.
    fn expand_state(&self, s: K, node: &mut impl NodeBuilder<At<K>, u32>) -> Result<(), String> {
        let mut vals = Vec::new();
        self.stepper.values(&s, &mut vals);
        let here = || self.stepper.show(&s);
        let holds = |e: &CExpr| {
            e.holds(&vals)
                .map_err(|e| format!("in state {}: {e}", here()))
        };
        if holds(&self.target)? {
            node.terminal(if self.reward.is_some() { 0 } else { 1 });
            return Ok(());
        }
        if let Some(psi) = &self.through {
            if !holds(psi)? {
                node.terminal(0);
                return Ok(());
            }
        }
        // What a step by a command labelled `action` earns here (zero for a probability).
        let state_reward = match &self.reward {
            Some(r) => Some(
                r.state(&vals)
                    .map_err(|e| format!("in state {}: {e}", here()))?,
            ),
            None => None,
        };
        let earned = |action: Option<usize>| -> Result<Rat, String> {
            let (Some(r), Some(state)) = (&self.reward, state_reward) else {
                return Ok(Rat::ZERO);
            };
            let total = r
                .transition(action, &vals, state)
                .and_then(|q| rat_of(q, "a reward"))
                .map_err(|e| format!("in state {}: {e}", here()))?;
            match total < Rat::ZERO {
                true => Err(format!(
                    "in state {}: a reward of {total}; across processes, R queries need \
                     rewards of at least zero",
                    here()
                )),
                false => Ok(total),
            }
        };
        self.stepper
            .expand(s, |ex| -> Result<(), String> {
                if ex.dist.iter().all(|&(_, t)| t == s) {
                    // It never leaves (a deadlock, or loops alone), and it is not in the
                    // target: a probability of zero, or a reward of +∞, which the solver
                    // finds from the loop.
                    match self.reward {
                        None => node.terminal(0),
                        Some(_) => {
                            node.chance();
                            node.add_outcome(OUTCOME, Rat::ONE, 0, At::State(s));
                        }
                    }
                    return Ok(());
                }
                if self.dtmc {
                    // Every enabled command alike, as in PRISM.
                    node.chance();
                    let k = ex.choices.len() as i64;
                    for &(action, _, from, to) in &ex.choices {
                        let reward = earned(action)?;
                        for (i, &(p, t)) in ex.dist[from..to].iter().enumerate() {
                            let p = if k == 1 {
                                p
                            } else {
                                p.checked_mul(Rat::new(1, k)).ok_or_else(|| {
                                    format!(
                                        "in state {}: a probability shared among {k} commands \
                                         is too long a fraction",
                                        here()
                                    )
                                })?
                            };
                            node.add_outcome(i as u32 | OUTCOME, p, reward, At::State(t));
                        }
                    }
                    return Ok(());
                }
                let player = match &self.members {
                    Some(members) => {
                        let choices = ex.choices.iter().map(|&(a, m, _, _)| Some((a, m)));
                        let owner = state_owner(self.stepper.program(), choices, here)
                            .map_err(|e| e.to_string())?;
                        side_of(members, owner, self.player)
                    }
                    None => self.player,
                };
                node.decision(player);
                for (c, &(action, _, from, to)) in ex.choices.iter().enumerate() {
                    let reward = earned(action)?;
                    match ex.dist[from..to] {
                        [(_, t)] => node.add_move(c as u32, reward, At::State(t)),
                        ref outcomes => {
                            node.add_random_move(c as u32, reward);
                            for (i, &(p, t)) in outcomes.iter().enumerate() {
                                node.add_outcome(i as u32 | OUTCOME, p, 0, At::State(t));
                            }
                        }
                    }
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?
    }
}

impl<K: Word + Debug + Send + Sync> Model for AcrossModel<K> {
    type State = At<K>;
    type Move = u32;

    fn start(&self) -> At<K> {
        match self.initial[..] {
            [only] => At::State(only),
            _ => At::Start,
        }
    }

    fn expand(&self, state: &At<K>, node: &mut impl NodeBuilder<At<K>, u32>) {
        match *state {
            At::Start => expand_start(
                &(0..self.initial.len() as u32).collect::<Vec<_>>(),
                self.over,
                node,
                |i| At::State(self.initial[i as usize]),
            ),
            At::State(s) => {
                if let Err(reason) = self.expand_state(s, node) {
                    node.fail(reason);
                }
            }
        }
    }

    fn show_state(&self, state: &At<K>) -> String {
        match state {
            At::Start => "the initial states".to_string(),
            At::State(s) => self.stepper.show(s),
        }
    }

    /// A play that never reaches the target is worth zero for a probability, the worst for the
    /// maximiser, and +∞ for a reward, the worst for the minimiser.
    fn endless_play_loser(&self) -> Option<Player> {
        Some(match self.reward {
            None => Player::Max,
            Some(_) => Player::Min,
        })
    }

    fn encodes_states(&self) -> bool {
        true
    }

    fn encode_state(&self, state: &At<K>, out: &mut Vec<u8>) {
        match state {
            At::Start => out.push(0),
            At::State(s) => {
                out.push(1);
                let mut words = Vec::with_capacity(K::WORDS);
                s.store(&mut words);
                for w in words {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Option<At<K>> {
        match bytes.split_first()? {
            (0, []) => Some(At::Start),
            (1, rest) if rest.len() == 8 * K::WORDS => {
                let words: Vec<u64> = rest
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("eight bytes")))
                    .collect();
                self.stepper
                    .is_state(&words)
                    .then(|| At::State(K::load(&words)))
            }
            _ => None,
        }
    }
}

/// A query's game for a solve across processes, and whether its start stands for several
/// initial states whose range of values is asked (a property without a filter on a model
/// with several initial states, as PRISM answers it): the start is then a chance node over
/// them, and the solve reports the least and greatest of its outcomes.
pub(crate) type AcrossGame = (Box<dyn DynModel>, bool);

/// The game of the resolved query `r` on `program`, with states packed as `K`.
fn model_of<K: Word + Debug + Send + Sync + 'static>(
    program: Program,
    r: &Resolved,
) -> Result<AcrossGame, AnalysisError> {
    let query = &r.query;
    let kind = crate::analysis::check::model_type(&program, query);
    let player = if query.opt == Opt::Max {
        Player::Max
    } else {
        Player::Min
    };
    let members = match &query.coalition {
        Some(c) if kind == ModelType::Smg => Some(coalition_members(&program, c)?),
        _ => None,
    };
    let reward = match &query.what {
        Measure::Reward(structure) => Some(Compiled::new(reward_structure(
            &program,
            structure.as_ref(),
        )?)),
        _ => None,
    };
    let stepper = Stepper::<K>::new(program);
    let initial = stepper.initial()?;
    let range = r.over == OverInitial::Only && initial.len() > 1;
    let over = if range { OverInitial::Avg } else { r.over };
    validate_query(stepper.program(), query, over, initial.len())?;
    let model = Box::new(AcrossModel {
        stepper,
        initial,
        over,
        target: r.target.clone(),
        through: r.through.clone(),
        player,
        members,
        dtmc: kind == ModelType::Dtmc,
        reward,
    });
    Ok((model, range))
}

/// What the solve across processes answers.
pub(crate) const NOT_ACROSS: &str = "across processes, P queries of F, U, G, W and R and R \
     queries of F, without step bounds, are answered (at the initial states, or a filter's \
     max, min or avg over them); check this property in one process";

/// The game of the resolved query `r` on `program` for a solve across processes (see the
/// module documentation); an error for a query of another kind.
pub(crate) fn across_model(program: Program, r: &Resolved) -> Result<AcrossGame, AnalysisError> {
    let plain = match r.query.what {
        Measure::Probability => matches!(r.query.path, Path::Eventually(_) | Path::Until(..)),
        Measure::Reward(_) => matches!(r.query.path, Path::Eventually(_)),
        _ => false,
    };
    if !plain || r.steps.is_some() || r.first > 0 || r.query.bound.is_some() {
        return Err(unsupported(NOT_ACROSS));
    }
    match state_bits(&program) {
        0..=64 => model_of::<u64>(program, r),
        65..=128 => model_of::<u128>(program, r),
        129..=256 => model_of::<[u64; 4]>(program, r),
        257..=512 => model_of::<[u64; 8]>(program, r),
        513..=crate::build::packed::MAX_BITS => model_of::<[u64; 16]>(program, r),
        bits => Err(AnalysisError::Build(BuildError::StateBits {
            bits,
            most: crate::build::packed::MAX_BITS,
        })),
    }
}
