//! A query on a built state space as a game for perfectplay's engine ([`QueryModel`]): its
//! states are the space's numbers, end components collapsed to one representative, the states
//! the graph analysis decided terminal, and (for `crate::analysis::total`'s strategy iteration) the
//! maximiser's choices fixed and every open state solved.

use perfectplay::{Model, NodeBuilder, Player, Rat};

use crate::analysis::check::OverInitial;
use crate::build::Space;
use crate::program::Program;

/// A state of the query's model: a state of the space (its end component's representative),
/// or the virtual start over several initial states.
pub(crate) type Id = u32;

/// Marks a move label that is an outcome (or an initial state), labelled by the state it leads
/// to; other labels are choices.
pub(crate) const OUTCOME: u32 = 1 << 31;

/// A query on a built space as a game for perfectplay's engine: its states are the space's
/// numbers (an end component's representative stands for all of it), plus a virtual start
/// over several initial states; the states whose value the graph analysis decided are
/// terminal.
pub struct QueryModel<'a> {
    pub(crate) space: &'a Space,
    pub(crate) program: &'a Program,
    /// Per state: the representative of its end component (itself if in none); empty when no
    /// component was collapsed.
    pub(crate) rep: Vec<u32>,
    /// Per representative of a collapsed component: its states (a map, not a list per state:
    /// models have millions of states and few components).
    pub(crate) members: rustc_hash::FxHashMap<u32, Vec<u32>>,
    /// Per state: `Some(payoff)` if its value is known.
    pub(crate) fixed: Few,
    /// Per choice: whether it may be taken, and its reward.
    pub(crate) usable: Vec<bool>,
    pub(crate) reward: Few,
    /// Per state, who decides there (one entry for all when it is the same everywhere).
    pub(crate) player: Vec<Player>,
    pub(crate) dtmc: bool,
    /// Who an endless play counts against: the player who wants to reach the target of a
    /// probability, the one who wants to reach it soon for a reward (an endless play earns
    /// +∞ there).
    pub(crate) endless: Player,
    pub(crate) start: Id,
    pub(crate) over: OverInitial,
    /// The initial states the virtual start chooses among, where not every one: for `min`
    /// over initial states, those whose value is not +∞ (the graph analysis's, which the
    /// model leaves out).
    pub(crate) finite_starts: Option<Vec<u32>>,
    /// In an smg, the engine's player that is the coalition, and the coalition as written
    /// (`<<p1,p2>>`); `None` where one scheduler resolves every choice.
    pub(crate) coalition: Option<(Player, String)>,
    /// What a play's total is: whether the target was reached, or the reward.
    pub(crate) total: &'static str,
    /// An `Fc` query on a stochastic game, which the engine alone does not solve (see
    /// [`crate::analysis::total`]).
    pub(crate) total_game: bool,
    /// Whether a number it depends on is floating point (`pow(x, 0.5)`; see
    /// [`crate::program::eval::CExpr::Inexact`]).
    pub(crate) inexact: bool,
    /// During a step of [`crate::analysis::total`]'s strategy iteration: per state the choice the reward
    /// maximiser follows (`u32::MAX` where it does not decide), and the states the virtual
    /// start spreads over, so that every state is solved.
    pub(crate) step: Option<(Vec<u32>, Vec<u32>)>,
}

/// How a game here shows the start it adds where the model has several initial states (a
/// filter over them), and how `--state` names it.
pub(crate) const INITIAL_STATES: &str = "the initial states";

/// The state that `text` names: the added start ([`INITIAL_STATES`]) as `start`, or a state
/// of `space` as PRISM prints it.
pub(crate) fn parse_state_or_start(
    space: &Space,
    program: &Program,
    text: &str,
    start: u32,
) -> Result<u32, String> {
    match text.trim() {
        INITIAL_STATES => Ok(start),
        text => space.parse_state(program, text),
    }
}

/// A state of a product of the model's states with a count, as its `show_state` writes it
/// (`(x=1), 2 steps left`), split into the model's state and the count's text, where the
/// text ends in one of `suffixes`; `None` where it ends in none (the whole text is then the
/// model's state). The model's state ends at its last parenthesis, or for one written
/// without parentheses at its last comma; `example` shows how to write it where neither is
/// there.
pub(crate) fn split_count<'a>(
    text: &'a str,
    suffixes: &[&str],
    example: &str,
) -> Result<Option<(&'a str, &'a str)>, String> {
    let text = text.trim();
    let Some(rest) = suffixes.iter().find_map(|s| text.strip_suffix(s)) else {
        return Ok(None);
    };
    let (state, count) = match rest.rfind(')') {
        Some(end) => (&rest[..=end], &rest[end + 1..]),
        None => rest
            .rsplit_once(',')
            .ok_or_else(|| format!("write the state, then a comma and the count: {example}"))?,
    };
    Ok(Some((
        state.trim(),
        count.trim_start_matches([' ', ',']).trim(),
    )))
}

/// A move as the engine's games here label them: a choice as its action, `[act]`, or `[] of
/// module m` for an unlabelled command; an outcome ([`OUTCOME`]) as the state it leads to.
pub(crate) fn show_move(space: &Space, program: &Program, m: u32) -> String {
    if m & OUTCOME != 0 {
        return space.show(program, m & !OUTCOME);
    }
    let choice = &space.choices[m as usize];
    match choice.action() {
        Some(a) => format!("[{}]", program.actions[a]),
        None if choice.is_added_loop() => "[] (no command is enabled: stay)".to_string(),
        None => format!("[] of module {}", program.modules[choice.module()]),
    }
}

/// Who `player` is in a game of `coalition` (the engine's player that is the coalition, and
/// the coalition as written): the coalition or the other players of an smg, else the one
/// scheduler.
pub(crate) fn side_label(coalition: &Option<(Player, String)>, player: Player) -> String {
    match coalition {
        Some((side, text)) if *side == player => format!("the coalition {text}"),
        Some(_) => "the other players".to_string(),
        None => "the scheduler".to_string(),
    }
}

/// One optional fraction per state or choice, from few distinct values (a payoff of 0 or 1, a
/// reward): a byte or a word each, not the 24 bytes of an `Option<Rat>`, for models of millions
/// of states, and nothing per entry when all are the same (the rewards of a probability).
pub(crate) struct Few {
    ids: Ids,
    values: Vec<Rat>,
}

/// Each entry's number in [`Few`]'s values ([`Few::NONE`] for none).
enum Ids {
    /// Every entry the same.
    All(u32),
    /// A byte each, for fewer than 255 values ([`Few::NONE`] is 255).
    Bytes(Vec<u8>),
    /// A word each.
    Words(Vec<u32>),
}

impl Few {
    /// The id of `None`.
    const NONE: u32 = u32::MAX;

    pub(crate) fn of(all: impl IntoIterator<Item = Option<Rat>>) -> Few {
        let mut numbered = Default::default();
        let mut values = Vec::new();
        let words: Vec<u32> = all
            .into_iter()
            .map(|x| match x {
                None => Few::NONE,
                Some(r) => crate::build::number_of(&mut numbered, &mut values, r),
            })
            .collect();
        let first = words.first().copied().unwrap_or(Few::NONE);
        let ids = if words.iter().all(|&id| id == first) {
            Ids::All(first)
        } else if values.len() < u8::MAX as usize {
            Ids::Bytes(
                words
                    .iter()
                    .map(|&id| id.min(u8::MAX as u32) as u8)
                    .collect(),
            )
        } else {
            Ids::Words(words)
        };
        Few { ids, values }
    }

    fn get(&self, i: usize) -> Option<Rat> {
        let id = match &self.ids {
            Ids::All(id) => *id,
            Ids::Bytes(b) if b[i] == u8::MAX => Few::NONE,
            Ids::Bytes(b) => b[i] as u32,
            Ids::Words(w) => w[i],
        };
        match id {
            Few::NONE => None,
            id => Some(self.values[id as usize]),
        }
    }

    /// An entry known to be there (a reward).
    fn at(&self, i: usize) -> Rat {
        self.get(i).expect("every choice has a reward")
    }
}

impl QueryModel<'_> {
    /// The state that stands for `s`: its end component's representative.
    fn rep(&self, s: u32) -> u32 {
        self.rep.get(s as usize).copied().unwrap_or(s)
    }

    /// The state of this model that stands for state `s` of the space: its end component's
    /// representative, or itself.
    pub(crate) fn stands_for(&self, s: u32) -> u32 {
        self.rep(s)
    }

    /// Who decides at state `s`.
    pub(crate) fn player_of(&self, s: u32) -> Player {
        *self.player.get(s as usize).unwrap_or(&self.player[0])
    }

    /// The value of state `s` if the graph analysis decided it.
    pub(crate) fn fixed_value(&self, s: usize) -> Option<Rat> {
        self.fixed.get(s)
    }

    /// The reward of choice `c`.
    pub(crate) fn reward_of(&self, c: usize) -> Rat {
        self.reward.at(c)
    }

    /// Makes the model one step of [`crate::analysis::total`]'s strategy iteration: the states with a
    /// known value, the maximiser's choices, and the states to solve.
    pub(crate) fn set_step(
        &mut self,
        fixed: Vec<Option<Rat>>,
        follow: Vec<u32>,
        spread: Vec<u32>,
        usable: Vec<bool>,
    ) {
        self.fixed = Few::of(fixed);
        self.usable = usable;
        self.step = Some((follow, spread));
    }

    /// Ends the strategy iteration, with the states of known value and the usable choices as
    /// before it.
    pub(crate) fn clear_step(&mut self, fixed: Vec<Option<Rat>>, usable: Vec<bool>) {
        self.fixed = Few::of(fixed);
        self.usable = usable;
        self.step = None;
    }

    /// Expands state `s` (or the virtual start) into `node` as [`Model::expand`] does, each
    /// successor `t` given as `to(t)`: for a product whose later part is this model.
    pub(crate) fn expand_mapped<S>(
        &self,
        s: Id,
        node: &mut impl NodeBuilder<S, u32>,
        to: impl Fn(Id) -> S,
    ) {
        if s as usize == self.space.len() {
            if let Some((_, spread)) = &self.step {
                node.chance();
                let p = Rat::new(1, spread.len().max(1) as i64);
                for &i in spread {
                    node.add_outcome(i | OUTCOME, p, 0, to(i));
                }
                return;
            }
            // The virtual start: one move (or outcome) per initial state.
            let initial = self.finite_starts.as_deref().unwrap_or(&self.space.initial);
            return expand_start(initial, self.over, node, |i| to(self.rep(i)));
        }
        if let Some(p) = self.fixed.get(s as usize) {
            return node.terminal(p);
        }
        if let Some((follow, _)) = &self.step {
            let c = follow[s as usize];
            if c != u32::MAX {
                // The maximiser's fixed choice: chance over its outcomes.
                let c = c as usize;
                node.chance();
                for &(p, t) in self.space.outcomes_of(c) {
                    let p = self.space.probability(p);
                    node.add_outcome(t | OUTCOME, p, self.reward.at(c), to(self.rep(t)));
                }
                return;
            }
        }
        let single = [s];
        let members: &[u32] = match self.members.get(&s) {
            Some(m) => m,
            None => &single,
        };
        if self.dtmc {
            node.chance();
            let k = self.space.choices_of(s).len() as i64;
            let share = Rat::new(1, k);
            for c in self.space.choices_of(s) {
                for &(p, t) in self.space.outcomes_of(c) {
                    let p = self.space.probability(p);
                    let p = if k == 1 { p } else { p * share };
                    node.add_outcome(t | OUTCOME, p, self.reward.at(c), to(self.rep(t)));
                }
            }
            return;
        }
        node.decision(self.player_of(s));
        for &m in members {
            for c in self.space.choices_of(m) {
                if !self.usable[c] {
                    continue;
                }
                let outs = self.space.outcomes_of(c);
                if outs.len() == 1 {
                    node.add_move(c as u32, self.reward.at(c), to(self.rep(outs[0].1)));
                } else {
                    node.add_random_move(c as u32, self.reward.at(c));
                    for &(p, t) in outs {
                        let p = self.space.probability(p);
                        node.add_outcome(t | OUTCOME, p, 0, to(self.rep(t)));
                    }
                }
            }
        }
    }

    /// Whether the query is an `Fc` reward on a stochastic game, which `check` solves by
    /// strategy iteration over the reward maximiser's strategies, each step an engine solve:
    /// the engine alone would not give its value.
    pub fn is_total_game(&self) -> bool {
        self.total_game
    }

    /// Whether a number the query depends on is floating point (the model computes `pow`
    /// with an exponent that is not whole, `log`, or a fraction beyond the size a value may
    /// have): then an exact solve is no exact answer ([`crate::analysis_model`] refuses it).
    pub fn is_inexact(&self) -> bool {
        self.inexact
    }
}

impl Model for QueryModel<'_> {
    type State = Id;
    type Move = u32;

    fn start(&self) -> Id {
        match self.step {
            Some(_) => self.space.len() as Id,
            None => self.start,
        }
    }

    fn expand(&self, &s: &Id, node: &mut impl NodeBuilder<Id, u32>) {
        self.expand_mapped(s, node, |t| t)
    }

    fn total_name(&self) -> Option<String> {
        Some(self.total.to_string())
    }

    /// An smg's sides are the coalition and the other players; elsewhere one scheduler
    /// resolves every choice, and play names no sides.
    fn player_label(&self, player: Player) -> Option<String> {
        Some(side_label(&self.coalition, player))
    }

    fn show_state(&self, &s: &Id) -> String {
        if s as usize == self.space.len() {
            return INITIAL_STATES.to_string();
        }
        self.space.show(self.program, s)
    }

    /// A choice as its action, `[act]`, or `[] of module m` for an unlabelled command; an
    /// outcome as the state it leads to.
    fn show_move(&self, &m: &u32) -> String {
        show_move(self.space, self.program, m)
    }

    fn parse_state(&self, text: &str) -> Result<Id, String> {
        let start = self.space.len() as u32;
        let s = parse_state_or_start(self.space, self.program, text, start)?;
        Ok(self.rep(s))
    }

    fn dense_bound(&self) -> usize {
        self.space.len() + 1
    }

    fn dense_index(&self, &s: &Id) -> Option<usize> {
        Some(s as usize)
    }

    fn endless_play_loser(&self) -> Option<Player> {
        Some(self.endless)
    }
}

/// The virtual start of a product over `space`'s initial states (`initial`), aggregated as
/// `over` says: a chance node for the mean, else a decision of the side that the filter's
/// `max` or `min` names. `state` gives the product's state of each initial state.
pub(crate) fn expand_start<S>(
    initial: &[u32],
    over: OverInitial,
    node: &mut impl NodeBuilder<S, u32>,
    state: impl Fn(u32) -> S,
) {
    if over == OverInitial::Avg {
        node.chance();
        let p = Rat::new(1, initial.len() as i64);
        for &i in initial {
            node.add_outcome(i | OUTCOME, p, 0, state(i));
        }
    } else {
        node.decision(if over == OverInitial::Min {
            Player::Min
        } else {
            Player::Max
        });
        for &i in initial {
            node.add_move(i | OUTCOME, 0, state(i));
        }
    }
}

/// The choices of state `s` of `space` as a node of a product game: chance over every enabled
/// command of a DTMC (uniformly, as in PRISM), else a decision of `player` among the choices
/// `c` that `keep(c)`, each with reward `reward(c)` and its outcomes leading to `next(c, t)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand_choices<S>(
    space: &Space,
    s: u32,
    dtmc: bool,
    player: Player,
    node: &mut impl NodeBuilder<S, u32>,
    keep: impl Fn(usize) -> bool,
    reward: impl Fn(usize) -> Rat,
    next: impl Fn(usize, u32) -> S,
) {
    let choices = space.choices_of(s);
    if dtmc {
        node.chance();
        let k = choices.len() as i64;
        for c in choices {
            for &(p, t) in space.outcomes_of(c) {
                let p = space.probability(p);
                let p = if k == 1 { p } else { p * Rat::new(1, k) };
                node.add_outcome(t | OUTCOME, p, reward(c), next(c, t));
            }
        }
        return;
    }
    node.decision(player);
    for c in choices.filter(|&c| keep(c)) {
        let outs = space.outcomes_of(c);
        if let [(_, t)] = outs {
            node.add_move(c as u32, reward(c), next(c, *t));
        } else {
            node.add_random_move(c as u32, reward(c));
            for &(p, t) in outs {
                node.add_outcome(t | OUTCOME, space.probability(p), 0, next(c, t));
            }
        }
    }
}

/// A total reward over a space (see [`total_model`]): what each choice earns until a state
/// of known value, and who may take which choice.
pub(crate) struct Total {
    /// Per state, the value the play ends with there, if it ends there.
    pub fixed: Vec<Option<Rat>>,
    /// Per choice, whether it may be taken.
    pub usable: Vec<bool>,
    /// Per choice, what it earns.
    pub reward: Vec<Rat>,
    /// Who decides in each state (one entry where it is the same everywhere).
    pub player: Vec<Player>,
    /// Whether the space is a chain (its choices taken uniformly at random).
    pub dtmc: bool,
    /// In an smg, the coalition's player and the coalition as written.
    pub coalition: Option<(Player, String)>,
}

impl Total {
    /// The total of a chain on `space`: `reward` per choice until the states of `fixed`.
    pub(crate) fn of_chain(space: &Space, fixed: Vec<Option<Rat>>, reward: Vec<Rat>) -> Total {
        Total {
            fixed,
            usable: vec![true; space.choices.len()],
            reward,
            player: vec![Player::Max],
            dtmc: true,
            coalition: None,
        }
    }
}

/// The `total` reward on `space` until a state of known value, as a query's model over the
/// virtual start (the initial states as `over` takes them).
pub(crate) fn total_model<'a>(
    space: &'a Space,
    program: &'a Program,
    total: Total,
    over: OverInitial,
) -> crate::analysis::query::QueryModel<'a> {
    let Total {
        fixed,
        usable,
        reward,
        player,
        dtmc,
        coalition,
    } = total;
    QueryModel {
        space,
        program,
        rep: Vec::new(),
        members: Default::default(),
        fixed: Few::of(fixed),
        usable,
        reward: Few::of(reward.into_iter().map(Some)),
        player,
        dtmc,
        endless: Player::Min,
        start: space.len() as u32,
        over,
        finite_starts: None,
        total: "reward",
        coalition,
        total_game: !dtmc,
        inexact: false,
        step: None,
    }
}

/// The values of `model` (a query's model after its graph analyses) at every state: solved
/// at the states of `region` by spreading the start over them, known where the analyses
/// fixed them, `None` elsewhere; and a bound on the error of every value (zero in rationals).
pub(crate) fn values_in<N: perfectplay::Number>(
    model: &mut QueryModel,
    region: &[bool],
) -> Result<(Vec<Option<N>>, f64), crate::analysis::error::AnalysisError> {
    let n = model.space.len();
    let fixed: Vec<Option<Rat>> = (0..n).map(|s| model.fixed_value(s)).collect();
    let mut spread: Vec<u32> = (0..n as u32)
        .filter(|&s| region[s as usize] && fixed[s as usize].is_none())
        .map(|s| model.stands_for(s))
        .collect();
    spread.sort_unstable();
    spread.dedup();
    let mut values: Vec<Option<N>> = fixed.iter().map(|f| f.map(N::from_rat)).collect();
    if spread.is_empty() {
        return Ok((values, 0.0));
    }
    let usable = model.usable.clone();
    model.set_step(fixed.clone(), vec![u32::MAX; n], spread, usable.clone());
    let solved = perfectplay::Solver::new(&*model)
        .solve::<N>()
        .map_err(crate::analysis::error::AnalysisError::Solve);
    model.clear_step(fixed, usable);
    let solution = solved?;
    for (s, v) in values.iter_mut().enumerate() {
        if v.is_none() {
            *v = solution.value(&model.stands_for(s as u32)).cloned();
        }
    }
    Ok((values, solution.stats().error_bound))
}
