//! Step-bounded queries: `P…[ F<=k φ ]` and `P…[ ψ U<=k φ ]` (reaching φ within `k` steps,
//! through ψ-states), `R…[ C<=k ]` (the reward of the first `k` steps) and `R…[ I=k ]` (the
//! state reward at step `k`). The game handed to the engine is the product of the space with
//! the steps left ([`BoundedModel`]): acyclic, since every step spends one, so the engine
//! solves it by one backward pass, exactly or in floats.

use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::query::{parse_state_or_start, QueryModel, INITIAL_STATES};
use perfectplay::{Model, NodeBuilder, Number, Player, Rat, Solver};

use crate::analysis::answers::Answer;
use crate::analysis::backups::{at_initial, count_layers, Backups, Bounded};
use crate::analysis::check::{Asked, OverInitial};
use crate::build::Space;
use crate::program::Program;
use crate::syntax::ast::{Measure, ModelType, Path};

/// The most states a product of the space with the steps explores (exact solves, explain and
/// the others): a step bound far beyond the space's size (`F<=100000000` of a small chain) is
/// an error that says so, not a run that fills the memory. (Float checks back values up over
/// the space itself, [`crate::analysis::backups`], and need no limit.)
pub(crate) const PRODUCT_STATES: usize = 50_000_000;

/// A solve's error, said of the product with the steps where it reached the state limit.
fn limit_error(e: perfectplay::SolveError) -> AnalysisError {
    match e {
        perfectplay::SolveError::StateLimit { limit, .. } => too_many_steps(limit),
        e => AnalysisError::Solve(e),
    }
}

/// Why a product with the steps stopped at `limit` states.
pub(crate) fn too_many_steps(limit: usize) -> AnalysisError {
    AnalysisError::TooLarge(format!(
        "the model with the steps counted has more than {limit} states: a step bound this far \
         beyond the model's size is not supported (ask with a smaller bound)"
    ))
}

/// The largest table of numbers [`BoundedModel`] offers: exploring allocates a word per
/// number.
const MAX_NUMBERED: usize = 1 << 27;

/// A state of the product: a state of the space and the steps left; `u32::MAX` for the
/// virtual start over several initial states.
type State = (u32, u32);

/// A step-bounded query on a built space as a game for perfectplay's engine: the space with
/// the steps left. Built by [`crate::analysis_model`] for explain, play, strategy and
/// distribution; `check` solves it for the value.
pub struct BoundedModel<'a> {
    space: &'a Space,
    program: &'a Program,
    goal: Vec<bool>,
    allowed: Vec<bool>,
    /// Each choice's reward (`C<=k`); empty for none.
    reward: Vec<Rat>,
    /// Each state's reward when the steps run out (`I=k`); empty for none.
    instant: Vec<Rat>,
    /// Who decides at each state (one entry when it is the same everywhere).
    players: Vec<Player>,
    dtmc: bool,
    steps: u32,
    /// The first step at which φ counts (`a` of `F[a,b]`, 1 for `X φ`).
    first: u32,
    over: OverInitial,
    /// The engine's player that is the coalition of an smg, and the coalition as written.
    coalition: Option<(Player, String)>,
    /// What a play's total is.
    total: &'static str,
    /// Whether a number it depends on is floating point (see [`crate::program::eval::CExpr::Inexact`]).
    inexact: bool,
}

impl Model for BoundedModel<'_> {
    type State = State;
    type Move = u32;

    fn start(&self) -> State {
        match self.space.initial[..] {
            [only] => (only, self.steps),
            _ => (u32::MAX, self.steps),
        }
    }

    fn expand(&self, &(s, left): &State, node: &mut impl NodeBuilder<State, u32>) {
        if s == u32::MAX {
            // The virtual start: the initial states, aggregated as the filter says.
            return crate::analysis::query::expand_start(
                &self.space.initial,
                self.over,
                node,
                |i| (i, left),
            );
        }
        let i = s as usize;
        if self.goal[i] && self.steps - left >= self.first {
            return node.terminal(1);
        }
        if !self.allowed[i] {
            return node.terminal(0);
        }
        if left == 0 {
            return node.terminal(self.instant.get(i).copied().unwrap_or(Rat::ZERO));
        }
        let reward = |c: usize| self.reward.get(c).copied().unwrap_or(Rat::ZERO);
        let player = *self.players.get(i).unwrap_or(&self.players[0]);
        crate::analysis::query::expand_choices(
            self.space,
            s,
            self.dtmc,
            player,
            node,
            |_| true,
            reward,
            |_, t| (t, left - 1),
        );
    }

    /// Numbered by the steps left, then the state: `left · n + s`, the virtual start last.
    /// Offered where the table is small enough for exploring too (see [`Model::dense_bound`]).
    fn dense_bound(&self) -> usize {
        let n = self.space.len();
        match (self.steps as usize + 1).checked_mul(n) {
            Some(b) if b < MAX_NUMBERED => b + 1,
            _ => 0,
        }
    }

    fn dense_index(&self, &(s, left): &State) -> Option<usize> {
        let n = self.space.len();
        Some(match s {
            u32::MAX => (self.steps as usize + 1) * n,
            s => left as usize * n + s as usize,
        })
    }

    /// The states with no step left first, then one, and so on: each step's successors have
    /// one step fewer, so the sweep (for the value alone) keeps two layers.
    fn sweep_len(&self) -> usize {
        self.dense_bound()
    }

    fn sweep_state(&self, rank: usize) -> Option<State> {
        let n = self.space.len();
        let layers = (self.steps as usize + 1) * n;
        match rank {
            r if r < layers => Some(((r % n) as u32, (r / n) as u32)),
            r if r == layers && self.space.initial.len() > 1 => Some((u32::MAX, self.steps)),
            _ => None,
        }
    }

    fn sweep_window(&self) -> usize {
        2 * self.space.len()
    }

    fn show_state(&self, &(s, left): &State) -> String {
        match s {
            u32::MAX => format!("{INITIAL_STATES}, {left} steps left"),
            _ => format!("{}, {left} steps left", self.space.show(self.program, s)),
        }
    }

    fn show_move(&self, &m: &u32) -> String {
        crate::analysis::query::show_move(self.space, self.program, m)
    }

    /// A state as PRISM prints it, `(x=1,b=true)`, with the steps left after a comma as
    /// [`Model::show_state`] writes them, `(x=1), 2 steps left`; every step of the bound
    /// left if that is left out.
    fn parse_state(&self, text: &str) -> Result<State, String> {
        let suffixes = ["steps left", "step left"];
        let (state, left) =
            match crate::analysis::query::split_count(text, &suffixes, "(x=1), 2 steps left")? {
                Some((state, left)) => {
                    let left = left.parse::<u32>().ok().filter(|&l| l <= self.steps);
                    let left = left.ok_or_else(|| {
                        format!(
                            "'{text}': the steps left are a number from 0 to {}",
                            self.steps
                        )
                    })?;
                    (state, left)
                }
                None => (text, self.steps),
            };
        Ok((
            parse_state_or_start(self.space, self.program, state, u32::MAX)?,
            left,
        ))
    }

    fn total_name(&self) -> Option<String> {
        Some(self.total.to_string())
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(crate::analysis::query::side_label(&self.coalition, player))
    }
}

/// The steps a step-bounded query looks at: up to `last`, its target counting from `first`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    /// The last step (`k` of `<=k`, `b` of `[a,b]`).
    pub last: u32,
    /// The first step at which the target counts (`a` of `[a,b]`, 1 for `X`, else 0).
    pub first: u32,
}

/// The product of `space` with the steps left for the step-bounded `query`, its state
/// formulas resolved.
pub(crate) fn model<'a>(
    asked: Asked<'a, '_>,
    bound: Steps,
) -> Result<BoundedModel<'a>, AnalysisError> {
    let Asked {
        program,
        space,
        query,
        over,
        ..
    } = asked;
    let crate::analysis::check::Basis {
        goal,
        allowed,
        players,
        coalition,
        ..
    } = asked.basis_of(query)?;
    let (mut reward, mut instant) = (Vec::new(), Vec::new());
    if let Measure::Reward(r) = &query.what {
        let structure = crate::analysis::rewards::reward_structure(program, r.as_ref())?;
        match query.path {
            Path::Cumulative(_) => {
                reward = crate::analysis::rewards::choice_rewards(
                    program,
                    space,
                    structure,
                    &vec![false; space.len()],
                )?
            }
            Path::Instant(_) => {
                instant = crate::analysis::rewards::state_rewards(program, space, structure)?
            }
            _ => {
                return Err(unsupported(
                    "a reward query takes F φ, Fc φ, F0 φ, C, C<=k or I=k",
                ))
            }
        }
    }

    Ok(BoundedModel {
        space,
        program,
        goal,
        allowed,
        reward,
        instant,
        players,
        dtmc: program.model_type == ModelType::Dtmc,
        steps: bound.last,
        first: bound.first,
        over,
        coalition,
        total: match (&query.what, &query.path) {
            (Measure::Probability, _) => "target reached in time (1) or not (0)",
            (_, Path::Instant(_)) => "reward at the last step",
            _ => "reward over the steps",
        },
        inexact: asked.inexact_of(query),
    })
}

/// The value of the step-bounded `query` at the start: the probability of reaching `target`
/// within `steps` steps through `through`-states, or the reward of `C<=k` or `I=k`, optimised
/// as `query` says; `exact` solves in rationals.
pub(crate) fn check(asked: Asked, steps: Steps, exact: bool) -> Result<Answer, AnalysisError> {
    let (space, over) = (asked.space, asked.over);
    let model = model(asked, steps)?;
    let inexact = model.inexact;
    if exact && inexact {
        return Err(AnalysisError::Inexact);
    }
    if !exact {
        let method = match inexact {
            true => "backups over the steps, from floating-point inputs",
            false => "backups over the steps",
        };
        return Ok(at_start(space, over, bounded_floats(&model), method));
    }
    model.fits()?;
    let (v, stats) = Solver::new(&model)
        .max_states(PRODUCT_STATES)
        .exact_start_value()
        .map_err(limit_error)?;
    Ok(Answer {
        value: v.to_f64(),
        exact: v.exact_string(),
        method: "backward induction over the steps",
        states: stats.states,
        holds: None,
        error_bound: 0.0,
        listed: None,
    })
}

/// A state of [`LowerModel`]: a state of the space and the steps taken, up to the bound;
/// at the bound, a state of the unbounded query's model. `u32::MAX` is the virtual start.
type Counted = (u32, u32);

/// A lower step bound alone, `P…[ ψ U>=k φ ]` (`F>=k`, `>k`, and `G`, `W` and `R` by their
/// duals): φ at some step from `k` on, ψ at every step before it. The game is the space with
/// the steps taken: for the first `k` steps only ψ matters (a state outside ψ ends the play
/// at 0); from step `k` on it is the unbounded `ψ U φ`, with the graph analyses and end
/// components of [`crate::analysis::check`]'s model, which is `tail`. Optimal play in the first part is
/// backward induction with the tail's values at step `k`, as in any product with a counter.
pub struct LowerModel<'a> {
    tail: crate::analysis::query::QueryModel<'a>,
    allowed: Vec<bool>,
    players: Vec<Player>,
    dtmc: bool,
    first: u32,
    over: OverInitial,
}

impl Model for LowerModel<'_> {
    type State = Counted;
    type Move = u32;

    fn start(&self) -> Counted {
        match self.tail.space.initial[..] {
            [only] => (only, 0),
            _ => (u32::MAX, 0),
        }
    }

    fn expand(&self, &(s, taken): &Counted, node: &mut impl NodeBuilder<Counted, u32>) {
        let space = self.tail.space;
        if s == u32::MAX {
            return crate::analysis::query::expand_start(&space.initial, self.over, node, |i| {
                (i, 0)
            });
        }
        if taken == self.first {
            return self.tail.expand_mapped(s, node, |t| (t, taken));
        }
        if !self.allowed[s as usize] {
            return node.terminal(0);
        }
        let player = *self.players.get(s as usize).unwrap_or(&self.players[0]);
        let next = |t: u32| match taken + 1 == self.first {
            true => (self.tail.stands_for(t), self.first),
            false => (t, taken + 1),
        };
        crate::analysis::query::expand_choices(
            space,
            s,
            self.dtmc,
            player,
            node,
            |_| true,
            |_| Rat::ZERO,
            |_, t| next(t),
        );
    }

    fn show_state(&self, &(s, taken): &Counted) -> String {
        match s {
            u32::MAX => INITIAL_STATES.to_string(),
            _ if taken == self.first => format!(
                "{}, {taken} steps or more taken",
                self.tail.space.show(self.tail.program, s)
            ),
            _ => format!(
                "{}, {taken} steps taken",
                self.tail.space.show(self.tail.program, s)
            ),
        }
    }

    fn show_move(&self, &m: &u32) -> String {
        crate::analysis::query::show_move(self.tail.space, self.tail.program, m)
    }

    /// A state as PRISM prints it, `(x=1,b=true)`, with the steps taken after a comma as
    /// [`Model::show_state`] writes them, `(x=1), 2 steps taken` (`3 steps or more taken`
    /// from the bound's first step on, where a count at or beyond it stops); no step taken if
    /// that is left out.
    fn parse_state(&self, text: &str) -> Result<Counted, String> {
        let suffixes = ["steps or more taken", "steps taken", "step taken"];
        let (state, taken) =
            match crate::analysis::query::split_count(text, &suffixes, "(x=1), 2 steps taken")? {
                Some((state, taken)) => {
                    let taken = taken
                        .parse::<u32>()
                        .map_err(|_| format!("'{text}': the steps taken are a number from 0 on"))?;
                    (state, taken.min(self.first))
                }
                None => (text, 0),
            };
        let (space, program) = (self.tail.space, self.tail.program);
        Ok((
            parse_state_or_start(space, program, state, u32::MAX)?,
            taken,
        ))
    }

    fn total_name(&self) -> Option<String> {
        Some("target reached after the bound (1) or not (0)".to_string())
    }

    fn player_label(&self, player: Player) -> Option<String> {
        Some(crate::analysis::query::side_label(
            &self.tail.coalition,
            player,
        ))
    }

    fn endless_play_loser(&self) -> Option<Player> {
        self.tail.endless_play_loser()
    }
}

/// The product of `space` with the steps taken for `query` with a lower step bound alone,
/// φ counting from step `first` (at least 1), its state formulas resolved.
pub(crate) fn lower_model<'a>(
    asked: Asked<'a, '_>,
    first: u32,
) -> Result<LowerModel<'a>, AnalysisError> {
    let (program, query) = (asked.program, asked.query);
    if !matches!(query.what, Measure::Probability) {
        return Err(unsupported("a lower step bound belongs to P queries"));
    }
    let basis = asked.basis_of(query)?;
    let (allowed, players) = (basis.allowed.clone(), basis.players.clone());
    let kind = crate::analysis::check::model_type(program, query);
    let inexact = asked.inexact_of(query);
    let (space, over) = (asked.space, asked.over);
    let tail = match crate::analysis::prepared::prepare_basis(
        program, space, query, basis, kind, over, inexact,
    )? {
        crate::analysis::prepared::Prepared::Model(tail) => *tail,
        crate::analysis::prepared::Prepared::Infinite => unreachable!("a probability is finite"),
    };
    Ok(LowerModel {
        tail,
        allowed,
        players,
        dtmc: kind == ModelType::Dtmc,
        first,
        over,
    })
}

/// The value at the start of `query` with a lower step bound alone: φ at some step from
/// `first` on, through ψ-states before it (see [`LowerModel`]); `exact` solves in rationals.
/// In floats the steps are backups over the space ([`lower_floats`]), as many as the bound
/// whatever the space's size; exactly, the product with the steps is solved.
pub(crate) fn check_lower(asked: Asked, first: u32, exact: bool) -> Result<Answer, AnalysisError> {
    let (space, over) = (asked.space, asked.over);
    let mut model = lower_model(asked, first)?;
    let inexact = model.tail.is_inexact();
    if exact && inexact {
        return Err(AnalysisError::Inexact);
    }
    if !exact {
        if let Some(floats) = lower_floats(&mut model) {
            let method = crate::analysis::methods::in_every_state_then!(
                floats.iterated,
                inexact,
                "backups over the steps"
            );
            return Ok(at_start(space, over, floats, method));
        }
    }
    model.fits()?;
    let methods =
        crate::analysis::methods::product_then!(inexact, "the steps taken up to the bound");
    crate::analysis::check::solve_start(&model, exact, PRODUCT_STATES, methods)
}

impl LowerModel<'_> {
    /// An error if the product with the steps would pass [`PRODUCT_STATES`], found before
    /// exploring it.
    pub(crate) fn fits(&self) -> Result<(), AnalysisError> {
        let allowed = |s: usize| self.allowed[s];
        product_fits(self.tail.space, &[(self.first, &allowed)])
    }
}

/// An error if a product of `space` with the steps would pass [`PRODUCT_STATES`] states: its
/// steps taken from the initial states in `phases`, each a number of steps and whether a
/// state moves on in them ([`count_layers`]).
fn product_fits(
    space: &Space,
    phases: &[(u32, &dyn Fn(usize) -> bool)],
) -> Result<(), AnalysisError> {
    let mut layer = vec![false; space.len()];
    for &i in &space.initial {
        layer[i as usize] = true;
    }
    let mut total = 0;
    for &(steps, moves) in phases {
        count_layers(
            space,
            &mut layer,
            steps.into(),
            moves,
            &mut total,
            PRODUCT_STATES,
        );
    }
    match total > PRODUCT_STATES {
        true => Err(exact_too_large()),
        false => Ok(()),
    }
}

/// Why explain, play and the others, which solve the product with the steps, refuse a step
/// bound far beyond the space's size (where [`BoundedModel::fits`] or [`LowerModel::fits`]
/// fails).
pub(crate) fn analysis_too_large() -> AnalysisError {
    AnalysisError::TooLarge(format!(
        "the model with the steps counted, which explaining or playing a step bound solves, has \
         more than {PRODUCT_STATES} states (checking the property answers it, by backups over \
         the model's states)"
    ))
}

/// Why the exact solve of a step bound far beyond the space's size is refused.
fn exact_too_large() -> AnalysisError {
    AnalysisError::TooLarge(format!(
        "the model with the steps counted, which the exact solve of a step bound explores, has \
         more than {PRODUCT_STATES} states (a float solve answers it, by backups over the \
         model's states)"
    ))
}

/// Float values in every state of the space, from [`lower_floats`] or [`bounded_floats`].
pub(crate) struct Floats {
    /// Per state of the space, the value with no step taken yet and its error bound.
    pub at: Bounded,
    /// Whether the engine's solve of an unbounded query iterated values (else it solved
    /// directly, or there was none).
    pub iterated: bool,
}

/// The float values of `model`'s lower step bound in every state of the space: the unbounded
/// query (the tail) solved by the engine from every state, then `first` backups over the
/// space ([`Backups`]), 0 outside ψ, which is backward induction over the steps taken.
/// `None` where the engine's float solve of the tail fails (the caller then solves the
/// product exactly).
pub(crate) fn lower_floats(model: &mut LowerModel) -> Option<Floats> {
    let Floats { mut at, iterated } = tail_floats(&mut model.tail)?;
    let backups = Backups::new(model.tail.space, model.dtmc, &model.players, &[], true);
    let allowed = &model.allowed;
    backups.run(&mut at, model.first.into(), |s| {
        (!allowed[s]).then_some(0.0)
    });
    Some(Floats { at, iterated })
}

/// The float values of the unbounded query `tail` in every state of its space, solved by the
/// engine from every state at once, each with the solve's error bound; `None` where the
/// engine's float solve fails.
pub(crate) fn tail_floats(tail: &mut QueryModel) -> Option<Floats> {
    let n = tail.space.len();
    // The tail from every state: its start spreads over every state that stands for itself.
    let spread = (0..n as u32).filter(|&s| tail.stands_for(s) == s).collect();
    tail.step = Some((vec![u32::MAX; n], spread));
    let solution = Solver::new(&*tail).solve::<f64>();
    tail.step = None;
    let solution = solution.ok()?;
    let tail_bound = solution.stats().error_bound;
    let iterated = solution.stats().iterated > 0;
    // A value the graph analyses fixed (a probability of 0 or 1) is exact: only the solved
    // ones carry the solve's bound.
    let (values, errors) = (0..n as u32)
        .map(|s| match tail.fixed_value(s as usize) {
            Some(p) => {
                let x = <perfectplay::Bounded as perfectplay::Number>::from_rat(p);
                Some((x.value, perfectplay::Bounded::bound(x.radius)))
            }
            None => Some((*solution.value(&tail.stands_for(s))?, tail_bound)),
        })
        .collect::<Option<(Vec<f64>, Vec<f64>)>>()?;
    drop(solution);
    let at = Bounded { values, errors };
    Some(Floats { at, iterated })
}

/// The float values of `model`'s step-bounded query in every state of the space, with every
/// step of the bound left: backward induction over the steps left by [`Backups`], the target
/// at 1 (where it counts), a state outside ψ at 0, and at the last step the state reward of
/// `I=k` (else 0).
pub(crate) fn bounded_floats(model: &BoundedModel) -> Floats {
    let space = model.space;
    let (goal, allowed) = (&model.goal, &model.allowed);
    let probabilities = model.reward.is_empty() && model.instant.is_empty();
    let (players, reward) = (&model.players, &model.reward);
    let backups = Backups::new(space, model.dtmc, players, reward, probabilities);
    // The values with no step left, which count the target if its window reaches the end.
    let counts = model.steps >= model.first;
    // Each with its error: none but a state reward's rounding.
    let (values, errors) = (0..space.len())
        .map(|s| match () {
            _ if goal[s] && counts => (1.0, 0.0),
            _ if !allowed[s] => (0.0, 0.0),
            _ => model.instant.get(s).map_or((0.0, 0.0), |&r| {
                let x = perfectplay::Bounded::from_rat(r);
                (x.value, perfectplay::Bounded::bound(x.radius))
            }),
        })
        .unzip();
    let mut at = Bounded { values, errors };
    // The steps where the target counts, then those before its window.
    let window = model.steps.saturating_sub(model.first);
    backups.run(&mut at, window.into(), |s| match () {
        _ if goal[s] => Some(1.0),
        _ if !allowed[s] => Some(0.0),
        _ => None,
    });
    let before = model.steps - window;
    backups.run(&mut at, before.into(), |s| (!allowed[s]).then_some(0.0));
    Floats {
        at,
        iterated: false,
    }
}

impl BoundedModel<'_> {
    /// An error if the product with the steps would pass [`PRODUCT_STATES`], found before
    /// exploring it: the steps before the target's window, then those in it.
    pub(crate) fn fits(&self) -> Result<(), AnalysisError> {
        let window = self.steps.saturating_sub(self.first);
        let (goal, allowed) = (&self.goal, &self.allowed);
        let before = |s: usize| allowed[s];
        let within = |s: usize| allowed[s] && !goal[s];
        product_fits(
            self.space,
            &[(self.steps - window, &before), (window, &within)],
        )
    }
}

/// The answer at the initial states, aggregated as `over` says, from the values of
/// [`lower_floats`] or [`bounded_floats`], named by `method`.
pub(crate) fn at_start(
    space: &Space,
    over: OverInitial,
    floats: Floats,
    method: &'static str,
) -> Answer {
    let (value, error_bound) = at_initial(space, over, &floats.at);
    Answer {
        value,
        exact: None,
        method,
        states: space.len(),
        holds: None,
        error_bound,
        listed: None,
    }
}
