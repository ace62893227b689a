//! Reward-bounded reachability, Storm's `P…[ F^{rew{"r"}<=b} φ ]` and `P…[ ψ U^{rew{"r"}>b} φ ]`
//! (`<=`, `<`, `>=`, `>`): φ reached, through ψ-states before it, at a point where the reward
//! earned so far (each step's state and transition rewards, as `C<=k` counts them) is within
//! the bound. The query becomes plain reachability on the product of the space with the reward
//! earned so far ([`product`]): under an upper bound a play that passes it goes to a sink worth
//! 0; under a lower bound the count stops once the bound is met, and φ counts from then on.
//! On a DTMC a step from a state of several commands earns their mean reward, whichever is
//! taken, as Storm counts it ([`dtmc_step_reward`]).
//! Rewards must not be negative, so the counts stay finite (each positive reward is at least
//! the least of them). The graph analyses, end components and the exact and float solves are
//! then those of any `F` or `U` query ([`crate::analysis::check`]).

mod game;

pub(crate) use game::model;

use crate::analysis::answers::Answer;
use crate::analysis::backups::{Backups, Bounded};
use crate::analysis::bounded::PRODUCT_STATES;
use crate::analysis::check::{solve_start, Asked};
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::prepared::{prepare_basis, Prepared};
use crate::analysis::query::QueryModel;
use crate::analysis::reward_epochs::Epochs;
use crate::build::{number_of, Choice, Space};
use crate::syntax::ast::{BinOp, Measure, ModelType, Path, Query, RewardRef};
use perfectplay::Rat;
use rustc_hash::FxHashMap;

/// A reward bound resolved against the model: `reward` compared by `op` with `value`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RewardBound {
    /// The reward structure (`None`: the first).
    pub reward: Option<RewardRef>,
    /// `<=`, `<`, `>=` or `>`.
    pub op: BinOp,
    /// The bound.
    pub value: Rat,
}

impl RewardBound {
    /// Whether the bound is an upper one (`<=`, `<`).
    pub(crate) fn upper(&self) -> bool {
        matches!(self.op, BinOp::Le | BinOp::Lt)
    }

    /// Whether a reward earned of `earned` is within the bound.
    pub(crate) fn holds(&self, earned: Rat) -> bool {
        match self.op {
            BinOp::Le => earned <= self.value,
            BinOp::Lt => earned < self.value,
            BinOp::Ge => earned >= self.value,
            _ => earned > self.value,
        }
    }

    /// The count after earning `r` more from `count`; `None` where an upper bound is passed
    /// (no play from there is within it).
    pub(crate) fn after(&self, count: Count, r: Rat) -> Option<Count> {
        match count {
            Count::Met => Some(Count::Met),
            Count::Earned(e) => {
                let e = e + r;
                match (self.upper(), self.holds(e)) {
                    (true, true) => Some(Count::Earned(e)),
                    (true, false) => None,
                    (false, true) => Some(Count::Met),
                    (false, false) => Some(Count::Earned(e)),
                }
            }
        }
    }

    /// The count before any step: nothing earned, or the bound met (`>=0`); `None` where no
    /// play is within the bound (`<0`).
    pub(crate) fn start(&self) -> Option<Count> {
        self.after(Count::Earned(Rat::ZERO), Rat::ZERO)
    }

    /// Whether φ counts where the count is `count`: always under an upper bound (a count
    /// past it is not kept), once it is met under a lower one.
    pub(crate) fn target_counts(&self, count: Count) -> bool {
        self.upper() || count == Count::Met
    }
}

/// The reward counted in a state of the product: the reward earned so far, or (under a lower
/// bound) that the bound is met, after which nothing more needs counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Count {
    /// The reward earned so far.
    Earned(Rat),
    /// A lower bound is met.
    Met,
}

/// The product of a space with the reward earned so far, made ready for an `F` or `U` query.
struct Product {
    /// The product as a space of its own (each state's variables those of its state in the
    /// space).
    space: Space,
    /// Each state's state of the space (the sink: the first initial state's, never read).
    of: Vec<u32>,
    /// The states where φ is reached within the bound.
    goal: Vec<bool>,
    /// The states where the play may go on (ψ, and not the sink of a bound passed).
    allowed: Vec<bool>,
}

/// The product of `space` with the reward earned so far under `bound`, each choice earning
/// `reward[c]`: reached from the initial states, breadth first; a state whose value is
/// decided (φ within the bound, or ψ broken) is not expanded, and a play that passes an upper
/// bound goes to one sink. An error past [`PRODUCT_STATES`] states.
fn product(
    space: &Space,
    reward: &[Rat],
    bound: &RewardBound,
    goal: &[bool],
    allowed: &[bool],
) -> Result<Product, AnalysisError> {
    let reached = |s: u32, count: Count| goal[s as usize] && bound.target_counts(count);
    let mut probabilities = space.probabilities.clone();
    let mut numbered: FxHashMap<Rat, u32> = probabilities
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, i as u32))
        .collect();
    let one = number_of(&mut numbered, &mut probabilities, Rat::ONE);
    let mut out = Product {
        space: Space {
            layout: space.layout.clone(),
            states: crate::build::packed::Packed::new(space.states.stride()),
            probabilities: Vec::new(),
            ..Space::default()
        },
        of: Vec::new(),
        goal: Vec::new(),
        allowed: Vec::new(),
    };
    let mut index: FxHashMap<(u32, Count), u32> = FxHashMap::default();
    let mut queue: Vec<(u32, Count)> = Vec::new();
    let mut sink: Option<u32> = None;
    let mut number = |key: (u32, Count), queue: &mut Vec<(u32, Count)>| -> u32 {
        *index.entry(key).or_insert_with(|| {
            queue.push(key);
            queue.len() as u32 - 1
        })
    };
    let start = match bound.start() {
        Some(count) => count,
        // `<0`: no play is within the bound.
        None => Count::Met,
    };
    let none_within = bound.upper() && !bound.holds(Rat::ZERO);
    for &i in &space.initial {
        let s = number((i, start), &mut queue);
        out.space.initial.push(s);
    }
    let mut next = 0;
    while next < queue.len() {
        if queue.len() > PRODUCT_STATES {
            return Err(AnalysisError::TooLarge(format!(
                "the model with the reward earned counted has more than {PRODUCT_STATES} \
                 states: a reward bound this far beyond the rewards' size is not supported"
            )));
        }
        let (s, count) = queue[next];
        let me = next as u32;
        next += 1;
        out.space.states.push_words(space.states.get(s as usize));
        out.of.push(s);
        out.space.choice_start.push(out.space.choices.len() as u32);
        let is_sink = sink == Some(me) || none_within;
        let is_goal = !is_sink && reached(s, count);
        out.goal.push(is_goal);
        out.allowed.push(!is_sink && allowed[s as usize]);
        if is_sink || is_goal || !allowed[s as usize] {
            out.space
                .choices
                .push(Choice::decided_loop(out.space.outcomes.len()));
            out.space.outcomes.push((one, me));
            out.space.stopped += 1;
            continue;
        }
        for c in space.choices_of(s) {
            let r = reward[c];
            let count = bound.after(count, r);
            out.space
                .choices
                .push(space.choices[c].moved_to(out.space.outcomes.len()));
            for &(p, t) in space.outcomes_of(c) {
                let to = match count {
                    Some(count) => number((t, count), &mut queue),
                    None => *sink.get_or_insert_with(|| {
                        // The sink: a state of its own, which no key names.
                        queue.push((s, Count::Met));
                        queue.len() as u32 - 1
                    }),
                };
                out.space.outcomes.push((p, to));
            }
        }
    }
    out.space.choice_start.push(out.space.choices.len() as u32);
    out.space.probabilities = probabilities;
    Ok(out)
}

/// The value at the start of the P query `asked`, whose path is reward-bounded (`bound`);
/// `exact` solves in
/// rationals. In floats by epochs where they apply ([`Epochs`]), else (and exactly) on the
/// product.
pub(crate) fn check(
    asked: Asked,
    bound: &RewardBound,
    exact: bool,
) -> Result<Answer, AnalysisError> {
    let (space, over) = (asked.space, asked.over);
    if !exact {
        if let Some(f) = epoch_floats(asked, bound)? {
            use crate::analysis::methods::{in_every_state_then, named};
            let method = match bound.upper() {
                true => named!(f.inexact, "backups over the reward left"),
                false => {
                    in_every_state_then!(f.iterated, f.inexact, "backups over the reward to earn")
                }
            };
            let (at, iterated) = (f.at, f.iterated);
            let floats = crate::analysis::bounded::Floats { at, iterated };
            return Ok(crate::analysis::bounded::at_start(
                space, over, floats, method,
            ));
        }
    }
    with_model(asked, bound, exact, |model, _| {
        // An exact solve of a chain is worth a pass that lumps its bisimilar states.
        let model = match exact {
            true => crate::analysis::lump::lumped(model),
            false => model,
        };
        let inexact = model.is_inexact();
        let methods = crate::analysis::methods::product_then!(inexact, "the reward earned counted");
        solve_start(&model, exact, usize::MAX, methods)
    })
}

/// What the reward-bounded P query `query` counts, once checked: each choice's reward, the
/// plain `F` or `U` query that stands for it, whether a number it depends on is floating
/// point, and the basis of that plain query.
struct Counted {
    reward: Vec<Rat>,
    plain: Query,
    inexact: bool,
    basis: crate::analysis::check::Basis,
}

/// What a reward bound counts for a step of a DTMC from a state whose commands earn
/// `rewards` (each state and transition rewards): their mean, as Storm counts it. A chain's
/// path is its states, not the commands taken; a step's reward is the state's expected one.
pub(crate) fn dtmc_step_reward(rewards: impl ExactSizeIterator<Item = Rat>) -> Rat {
    let k = rewards.len() as i64;
    rewards.fold(Rat::ZERO, |sum, r| sum + r) * Rat::new(1, k.max(1))
}

/// The [`Counted`] of the reward-bounded P query `query`; an error for a reward query, for
/// negative rewards, and (`exact`) for floating-point numbers.
fn counted(asked: Asked, bound: &RewardBound, exact: bool) -> Result<Counted, AnalysisError> {
    let Asked {
        program,
        space,
        query,
        through,
        ..
    } = asked;
    if !matches!(query.what, Measure::Probability) {
        return Err(unsupported("a reward bound on a path belongs to P queries"));
    }
    let structure = crate::analysis::rewards::reward_structure(program, bound.reward.as_ref())?;
    let mut reward = crate::analysis::rewards::choice_rewards(
        program,
        space,
        structure,
        &vec![false; space.len()],
    )?;
    if reward.iter().any(|r| *r < Rat::ZERO) {
        return Err(unsupported(format!(
            "a reward bound counts the rewards of \"{}\", some of which are negative: only \
             rewards of zero or more are bounded",
            structure.name
        )));
    }
    if crate::analysis::check::model_type(program, query) == ModelType::Dtmc {
        for s in 0..space.len() as u32 {
            let choices = space.choices_of(s);
            if choices.len() > 1 {
                let mean = dtmc_step_reward(choices.clone().map(|c| reward[c]));
                reward[choices].fill(mean);
            }
        }
    }
    let mut plain = query.clone();
    plain.path = match through {
        Some(_) => Path::Until(dummy(query), dummy(query)),
        None => Path::Eventually(dummy(query)),
    };
    // Inexact where the query's numbers are, or the rewards it counts.
    let counted = Query {
        what: Measure::Reward(bound.reward.clone()),
        ..plain.clone()
    };
    let inexact = asked.inexact_of(&counted);
    if exact && inexact {
        return Err(AnalysisError::Inexact);
    }
    let basis = asked.basis_of(&plain)?;
    Ok(Counted {
        reward,
        plain,
        inexact,
        basis,
    })
}

/// The float values in every state of the space of the reward-bounded P query `query`, by
/// epochs ([`Epochs`]), whether a number it depends on is floating point, and whether the
/// unbounded query's values (a lower bound's) were iterated; `None` where epochs do not apply
/// (the product answers).
pub(crate) fn epoch_floats(
    asked: Asked,
    bound: &RewardBound,
) -> Result<Option<EpochFloats>, AnalysisError> {
    let (program, space, over) = (asked.program, asked.space, asked.over);
    let Counted {
        reward,
        plain,
        inexact,
        basis,
    } = counted(asked, bound, false)?;
    let (goal, allowed) = (basis.goal.clone(), basis.allowed.clone());
    let lower = !bound.upper();
    let open: Vec<bool> = (0..space.len())
        .map(|s| allowed[s] && (lower || !goal[s]))
        .collect();
    let kind = crate::analysis::check::model_type(program, &plain);
    let dtmc = kind == ModelType::Dtmc;
    let Some(epochs) = Epochs::plan(space, &reward, bound, &open) else {
        return Ok(None);
    };
    let players = basis.players.clone();
    // A lower bound met: the unbounded query from there, solved once from every state.
    let (met, iterated) = match lower {
        false => (None, false),
        true => {
            let prepared = prepare_basis(program, space, &plain, basis, kind, over, inexact)?;
            let Prepared::Model(mut tail) = prepared else {
                return Err(AnalysisError::Internal("a probability is finite"));
            };
            match crate::analysis::bounded::tail_floats(&mut tail) {
                Some(floats) => (Some(floats.at), floats.iterated),
                None => return Ok(None),
            }
        }
    };
    let backups = Backups::new(space, dtmc, &players, &[], true);
    Ok(Some(EpochFloats {
        at: epochs.solve(&backups, &goal, met),
        inexact,
        iterated,
    }))
}

/// The float values of a reward-bounded query by epochs (see [`epoch_floats`]).
pub(crate) struct EpochFloats {
    /// Every state's value and error bound.
    pub at: Bounded,
    /// Whether a number the query depends on is floating point.
    pub inexact: bool,
    /// Whether the engine's solve of the unbounded query (a lower bound's) iterated values.
    pub iterated: bool,
}

/// Calls `solve` with the model the engine solves for the reward-bounded P query `query`
/// (see [`check`]), and each initial state's state in it (in the order of the space's
/// initial states), and returns what it returns.
pub(crate) fn with_model<R>(
    asked: Asked,
    bound: &RewardBound,
    exact: bool,
    solve: impl FnOnce(QueryModel<'_>, &[u32]) -> Result<R, AnalysisError>,
) -> Result<R, AnalysisError> {
    let (program, space, over) = (asked.program, asked.space, asked.over);
    let Counted {
        reward,
        plain,
        inexact,
        mut basis,
    } = counted(asked, bound, exact)?;
    let product = product(space, &reward, bound, &basis.goal, &basis.allowed)?;
    let Product {
        space: product_space,
        of,
        goal,
        allowed,
    } = product;
    (basis.goal, basis.allowed) = (goal, allowed);
    if basis.players.len() > 1 {
        basis.players = of.iter().map(|&s| basis.players[s as usize]).collect();
    }
    let kind = crate::analysis::check::model_type(program, &plain);
    let model = match prepare_basis(program, &product_space, &plain, basis, kind, over, inexact)? {
        Prepared::Model(model) => *model,
        Prepared::Infinite => return Err(AnalysisError::Internal("a probability is finite")),
    };
    solve(model, &product_space.initial)
}

/// A placeholder state formula for the plain query that stands for the reward-bounded one
/// (its formulas are resolved apart).
fn dummy(query: &Query) -> crate::syntax::ast::Expr {
    crate::syntax::ast::Expr {
        kind: crate::syntax::ast::ExprKind::Bool(true),
        span: query.span,
    }
}
