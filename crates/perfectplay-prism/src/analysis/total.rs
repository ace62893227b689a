//! `R[Fc φ]` on a stochastic game: a play that misses φ earns its total, which is +∞ when it
//! earns a positive reward infinitely often and finite when it ends up earning nothing. The
//! value is the least fixed point of the game's optimality equations (rewards are at least
//! zero), and neither rule the engine knows for an endless play gives it: the minimiser may
//! use a strategy that could keep the play going for ever when the maximiser gains nothing by
//! doing so, and the maximiser may be unable to end the play at all.
//!
//! So it is solved by strategy iteration over the strategies of the reward maximiser (the
//! coalition of an `Rmax`, the other players of an `Rmin`):
//! 1. Against the maximiser's strategy the minimiser faces a Markov decision process. Its
//!    value is zero where the minimiser can keep every reward at zero for ever
//!    ([`Game::zero_for_ever`]), +∞ where it cannot reach those states or φ with probability
//!    one (it would then earn a positive reward infinitely often with positive probability),
//!    and elsewhere the minimum expected reward to reach them, which the engine solves exactly
//!    (every strategy that does not reach them earns +∞).
//! 2. The maximiser switches a move wherever another is clearly better by those values (+∞
//!    beats every number), until none is.
//! 3. Each switch raises the values (a new cycle of zero reward through a switched state
//!    would have values below their own average), so the iteration ends. Its values then
//!    satisfy the optimality equations, so they are no less than their least fixed point,
//!    and they are what the minimiser holds one strategy of the maximiser's to, so no more
//!    than the game's value: they are the value.

use crate::analysis::error::AnalysisError;
use perfectplay::{Model, Number, Player, Rat, Solver};

use crate::analysis::answers::Answer;
use crate::analysis::check::OverInitial;
use crate::analysis::graph::{almost_sure_using, Predecessors, Side};
use crate::analysis::query::QueryModel;
use crate::build::Space;

/// The most strategies the maximiser tries before giving up (each is one solve of the space).
const MAX_ROUNDS: usize = 10_000;

/// A game's graph for the analyses of an `Fc` reward: who maximises the reward in each state,
/// each choice's reward, and the choices that may be taken.
pub struct Game<'a, F> {
    /// The state space.
    pub space: &'a Space,
    /// Its predecessor lists.
    pub pred: &'a Predecessors,
    /// Per choice, its reward (at least zero).
    pub reward: &'a [Rat],
    /// Per choice, whether it may be taken.
    pub usable: &'a [bool],
    /// Whether the reward maximiser decides at a state.
    pub is_max: F,
}

impl<F: Fn(u32) -> bool + Copy> Game<'_, F> {
    /// The `open` states from which the reward minimiser can keep every reward at zero for
    /// ever, or until a `stop` state (which ends the play): the greatest set in which each
    /// minimiser's state has a choice of zero reward, among the usable ones, and each
    /// maximiser's state only such choices (or, where `follow` fixes the maximiser's choice,
    /// that one), every outcome staying in the set or in `stop`.
    pub fn zero_for_ever(&self, stop: &[bool], open: &[bool], follow: Option<&[u32]>) -> Vec<bool> {
        let Game {
            space,
            pred,
            reward,
            usable,
            is_max,
        } = *self;
        let mut inside: Vec<bool> = open.to_vec();
        let counts = |c: usize, s: u32, inside: &[bool]| -> bool {
            let chosen = match follow {
                Some(f) if is_max(s) => f[s as usize] as usize == c,
                _ => usable[c],
            };
            chosen
                && reward[c].is_zero()
                && space
                    .outcomes_of(c)
                    .iter()
                    .all(|&(_, t)| stop[t as usize] || inside[t as usize])
        };
        let keeps = |s: u32, inside: &[bool]| -> bool {
            if is_max(s) && follow.is_none() {
                space
                    .choices_of(s)
                    .filter(|&c| usable[c])
                    .all(|c| counts(c, s, inside))
            } else {
                space.choices_of(s).any(|c| counts(c, s, inside))
            }
        };
        // A worklist: a state that drops out makes its predecessors check again.
        let n = space.len();
        let mut work: Vec<u32> = (0..n as u32).filter(|&s| inside[s as usize]).collect();
        let mut queued = inside.clone();
        while let Some(s) = work.pop() {
            queued[s as usize] = false;
            if !inside[s as usize] || keeps(s, &inside) {
                continue;
            }
            inside[s as usize] = false;
            for &c in pred.of(s) {
                let p = pred.owner[c as usize];
                if inside[p as usize] && !queued[p as usize] {
                    queued[p as usize] = true;
                    work.push(p);
                }
            }
        }
        inside
    }
}

/// The answer to an `Fc` query on a stochastic game, by this strategy iteration: in floats,
/// or exactly with `exact` (and where a float solve fails).
pub fn answer(
    mut model: QueryModel,
    over: OverInitial,
    exact: bool,
) -> Result<Answer, AnalysisError> {
    /// The value at the start (`None` for +∞).
    fn at_start<N: Number>(
        model: &QueryModel,
        values: &[Option<N>],
        over: OverInitial,
    ) -> Option<N> {
        let mut init = model
            .space
            .initial
            .iter()
            .map(|&i| values[i as usize].clone());
        let first = init.next().expect("an initial state");
        // `None` (+∞) is above every number.
        let above = |a: &Option<N>, b: &Option<N>| match (a, b) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => a > b,
            _ => false,
        };
        match over {
            OverInitial::Only => first,
            OverInitial::Max => init.fold(first, |a, b| if above(&b, &a) { b } else { a }),
            OverInitial::Min => init.fold(first, |a, b| if above(&a, &b) { b } else { a }),
            OverInitial::Avg => {
                let k = model.space.initial.len() as i64;
                init.try_fold(first?, |a, b| Some(a.add(&b?)))
                    .map(|sum| sum.mul(&N::from_rat(Rat::new(1, k))))
            }
        }
    }
    let answer = |value: f64, exact: Option<String>, method, states, error_bound| Answer {
        value,
        exact,
        method,
        states,
        holds: None,
        error_bound,
        listed: None,
    };
    if !exact {
        if let Ok(solved) = solve::<f64>(&mut model) {
            let v = at_start(&model, &solved.values, over).unwrap_or(f64::INFINITY);
            let method = if solved.iterated {
                "strategy iteration, value iteration with a certified bound"
            } else {
                "strategy iteration"
            };
            return Ok(answer(v, None, method, solved.states, solved.error_bound));
        }
    }
    let solved = solve::<perfectplay::Exact>(&mut model)?;
    let v = at_start(&model, &solved.values, over);
    let value = v.as_ref().map_or(f64::INFINITY, |v| v.to_f64());
    let fraction = v.filter(|_| exact).and_then(|v| v.exact_string());
    let method = "exact strategy iteration";
    Ok(answer(value, fraction, method, solved.states, 0.0))
}

/// The values of `model` (an Fc game after its graph analyses) at every state (`None` for
/// +∞), by strategy iteration over the reward maximiser's strategies (see the module's
/// notes), with the largest certified error bound of the solves (zero when each was direct)
/// and the states solved last.
pub fn solve<N: Number>(model: &mut QueryModel) -> Result<Solved<N>, AnalysisError> {
    let space = model.space;
    let n = space.len();
    let pred = Predecessors::new(space);
    let maxes: Vec<bool> = (0..n as u32)
        .map(|s| model.player_of(s) == Player::Max)
        .collect();
    let is_max = |s: u32| maxes[s as usize];
    let usable = model.usable.clone();
    let reward: Vec<Rat> = (0..space.choices.len())
        .map(|c| model.reward_of(c))
        .collect();
    let game = Game {
        space,
        pred: &pred,
        reward: &reward,
        usable: &usable,
        is_max,
    };
    let base: Vec<Option<Rat>> = (0..n).map(|s| model.fixed_value(s)).collect();
    let stop: Vec<bool> = base.iter().map(|f| f.is_some()).collect();
    let open: Vec<bool> = stop.iter().map(|f| !f).collect();
    // The maximiser starts with its first usable choice everywhere.
    let mut follow = vec![u32::MAX; n];
    for s in 0..n as u32 {
        if open[s as usize] && is_max(s) {
            follow[s as usize] =
                space
                    .choices_of(s)
                    .find(|&c| usable[c])
                    .ok_or(AnalysisError::Internal(
                        "a maximiser's state without a usable choice",
                    ))? as u32;
        }
    }
    let mut solved = Solved {
        values: Vec::new(),
        error_bound: 0.0,
        iterated: false,
        states: 0,
        rounds: 0,
        follow: Vec::new(),
        fixed: Vec::new(),
        usable: Vec::new(),
    };
    let mut last_usable = Vec::new();
    while solved.rounds < MAX_ROUNDS {
        solved.rounds += 1;
        // Against the maximiser's strategy: where the minimiser can stay at zero (the value is
        // zero), and where it cannot reach that or the end with probability one (+∞).
        let zero = game.zero_for_ever(&stop, &open, Some(&follow));
        let fine: Vec<bool> = (0..n).map(|s| stop[s] || zero[s]).collect();
        let rest: Vec<bool> = fine.iter().map(|f| !f).collect();
        let choice_counts = |c: usize| {
            let s = pred.owner[c];
            usable[c] && (!is_max(s) || follow[s as usize] as usize == c)
        };
        let finite = almost_sure_using(
            space,
            &pred,
            &fine,
            &rest,
            |_| Side::Ally,
            usize::MAX,
            choice_counts,
        )
        .expect("no limit on the rounds");
        let fixed: Vec<Option<Rat>> = (0..n)
            .map(|s| if zero[s] { Some(Rat::ZERO) } else { base[s] })
            .collect();
        let spread: Vec<u32> = (0..n as u32)
            .filter(|&s| finite[s as usize] && !fine[s as usize])
            .collect();
        // The minimiser never moves where the value is +∞.
        let step_usable: Vec<bool> = (0..space.choices.len())
            .map(|c| {
                usable[c]
                    && space
                        .outcomes_of(c)
                        .iter()
                        .all(|&(_, t)| finite[t as usize])
            })
            .collect();
        last_usable.clone_from(&step_usable);
        let solution = if spread.is_empty() {
            None
        } else {
            model.set_step(fixed.clone(), follow.clone(), spread, step_usable);
            let solution = Solver::new(&*model).solve::<N>();
            Some(solution.map_err(|e| {
                model.clear_step(base.clone(), usable.clone());
                AnalysisError::Solve(e)
            })?)
        };
        if let Some(solution) = &solution {
            solved.states = solution.len();
            solved.error_bound = solved.error_bound.max(solution.stats().error_bound);
            solved.iterated |= solution.stats().iterated > 0;
        }
        let values: Vec<Option<N>> = (0..n as u32)
            .map(|s| match (fixed[s as usize], &solution) {
                (Some(v), _) => Some(N::from_rat(v)),
                _ if !finite[s as usize] => None,
                (None, Some(solution)) => solution.value(&s).cloned(),
                (None, None) => None,
            })
            .collect();
        let worth = |c: usize| -> Option<N> {
            let mut q = N::from_rat(reward[c]);
            for &(p, t) in space.outcomes_of(c) {
                q.add_mul(
                    &N::from_rat(space.probability(p)),
                    values[t as usize].as_ref()?,
                );
            }
            Some(q)
        };
        let better = |a: &Option<N>, b: &Option<N>| match (a, b) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => N::clearly_better(a, b),
            _ => false,
        };
        let mut switched = false;
        for s in 0..n as u32 {
            if !open[s as usize] || !is_max(s) {
                continue;
            }
            let mut best = follow[s as usize] as usize;
            let mut best_worth = worth(best);
            for c in space.choices_of(s) {
                if usable[c] && c != best {
                    let w = worth(c);
                    if better(&w, &best_worth) {
                        best = c;
                        best_worth = w;
                    }
                }
            }
            if best != follow[s as usize] as usize {
                follow[s as usize] = best as u32;
                switched = true;
            }
        }
        if !switched {
            model.clear_step(base, usable);
            solved.values = values;
            solved.follow = follow;
            solved.fixed = fixed;
            solved.usable = last_usable;
            return Ok(solved);
        }
    }
    model.clear_step(base, usable);
    Err(AnalysisError::TooLarge(format!(
        "the maximiser's strategy still improved after {MAX_ROUNDS} rounds"
    )))
}

/// What [`solve`] found.
pub struct Solved<N> {
    /// Per state, its value; `None` for +∞.
    pub values: Vec<Option<N>>,
    /// The largest error bound of the solves (rounding included; see
    /// [`perfectplay::Stats::error_bound`]).
    pub error_bound: f64,
    /// Whether a solve iterated a component (too costly to solve directly).
    pub iterated: bool,
    /// The states the last solve explored.
    pub states: usize,
    /// The maximiser's strategies tried.
    pub rounds: usize,
    /// The maximiser's optimal strategy: per state its choice (`u32::MAX` where it does not
    /// decide).
    pub follow: Vec<u32>,
    /// Per state, its value where the last step knew it before solving: φ, and where the
    /// minimiser keeps every reward at zero for ever.
    pub fixed: Vec<Option<Rat>>,
    /// The choices of the last step: none that may lead where the value is +∞.
    pub usable: Vec<bool>,
}

/// An `Fc` game on an smg for explain, play, strategy and distribution, once [`solve`] has
/// found the maximiser's strategy: the space twice over. In the first copy the maximiser
/// decides among all its choices, but only its strategy's choice stays in that copy; every
/// other leads into the second copy, where the maximiser keeps to its strategy. The minimiser
/// decides in both. Both copies are then Markov decision processes of the minimiser's against
/// one strategy of the maximiser's, which the engine solves (as each step of [`solve`] does),
/// and the first copy's values are the game's: its strategy's choice is optimal, and every
/// other choice shows what leaving the strategy once is worth.
pub struct AnalysisModel<'a> {
    model: QueryModel<'a>,
    /// The maximiser's strategy, the states of known value and the usable choices, as
    /// [`Solved`] has them.
    follow: Vec<u32>,
    fixed: Vec<Option<Rat>>,
    usable: Vec<bool>,
}

/// A state of [`AnalysisModel`]: a state of the space, and whether the maximiser has left its
/// strategy (the second copy).
type Layered = (u32, bool);

impl<'a> AnalysisModel<'a> {
    /// The game of `model` (an `Fc` query on an smg after its graph analyses), with the
    /// maximiser's strategy found by [`solve`] (in rationals with `exact`, so that no near
    /// tie decides it); an error where the value at the start is +∞.
    pub fn new(mut model: QueryModel<'a>, exact: bool) -> Result<AnalysisModel<'a>, AnalysisError> {
        fn parts<N: Number>(
            model: &mut QueryModel,
        ) -> Result<(Solved<N>, Vec<bool>), AnalysisError> {
            let solved = solve::<N>(model)?;
            let infinite = solved.values.iter().map(Option::is_none).collect();
            Ok((solved, infinite))
        }
        let (follow, fixed, usable, infinite) = if exact {
            let (s, infinite) = parts::<perfectplay::Exact>(&mut model)?;
            (s.follow, s.fixed, s.usable, infinite)
        } else {
            let (s, infinite) = parts::<f64>(&mut model)?;
            (s.follow, s.fixed, s.usable, infinite)
        };
        let start = model.start();
        let start_infinite = if (start as usize) < model.space.len() {
            infinite[start as usize]
        } else {
            model.space.initial.iter().any(|&i| infinite[i as usize])
        };
        if start_infinite {
            return Err(AnalysisError::Infinite(
                "the value at the start is +∞ (a play earns for ever)".into(),
            ));
        }
        Ok(AnalysisModel {
            model,
            follow,
            fixed,
            usable,
        })
    }
}

impl AnalysisModel<'_> {
    /// What follows a state of the second copy, where the maximiser keeps to its strategy.
    fn keeping(&self) -> String {
        let side = crate::analysis::query::side_label(&self.model.coalition, Player::Max);
        format!(", {side} keeping to the strategy found from here")
    }
}

impl Model for AnalysisModel<'_> {
    type State = Layered;
    type Move = u32;

    fn start(&self) -> Layered {
        (self.model.start(), false)
    }

    fn expand(&self, &(s, left): &Layered, node: &mut impl perfectplay::NodeBuilder<Layered, u32>) {
        let space = self.model.space;
        if s as usize == space.len() {
            return crate::analysis::query::expand_start(
                &space.initial,
                self.model.over,
                node,
                |i| (self.model.stands_for(i), false),
            );
        }
        if let Some(v) = self.fixed[s as usize] {
            return node.terminal(v);
        }
        let usable = &self.usable;
        let reward = |c: usize| self.model.reward_of(c);
        let strategy = self.follow[s as usize];
        if strategy != u32::MAX && left {
            // The second copy: the maximiser keeps to its strategy.
            let c = strategy as usize;
            node.chance();
            for &(p, t) in space.outcomes_of(c) {
                let p = space.probability(p);
                node.add_outcome(t | crate::analysis::query::OUTCOME, p, reward(c), (t, true));
            }
            return;
        }
        node.decision(self.model.player_of(s));
        for c in space.choices_of(s).filter(|&c| usable[c]) {
            // Leaving the strategy leads into the second copy.
            let after = left || (strategy != u32::MAX && strategy as usize != c);
            let outs = space.outcomes_of(c);
            if let [(_, t)] = outs {
                node.add_move(c as u32, reward(c), (*t, after));
            } else {
                node.add_random_move(c as u32, reward(c));
                for &(p, t) in outs {
                    let p = space.probability(p);
                    node.add_outcome(t | crate::analysis::query::OUTCOME, p, 0, (t, after));
                }
            }
        }
    }

    fn show_state(&self, &(s, left): &Layered) -> String {
        let shown = self.model.show_state(&s);
        if left {
            format!("{shown}{}", self.keeping())
        } else {
            shown
        }
    }

    fn show_move(&self, m: &u32) -> String {
        self.model.show_move(m)
    }

    /// A state as PRISM prints it, `(x=1)`, or as [`Model::show_state`] writes one of the
    /// second copy, where the maximiser keeps to its strategy: `(x=1), max keeping to the
    /// strategy found from here`.
    fn parse_state(&self, text: &str) -> Result<Layered, String> {
        match text.trim().strip_suffix(self.keeping().as_str()) {
            Some(state) => Ok((self.model.parse_state(state)?, true)),
            None => Ok((self.model.parse_state(text)?, false)),
        }
    }

    fn total_name(&self) -> Option<String> {
        self.model.total_name()
    }

    fn player_label(&self, player: Player) -> Option<String> {
        self.model.player_label(player)
    }

    fn endless_play_loser(&self) -> Option<Player> {
        self.model.endless_play_loser()
    }
}
