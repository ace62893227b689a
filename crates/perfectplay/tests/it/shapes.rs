//! Turns alike (`Model::turn_shape`): random games whose turns are copies of one random turn,
//! each ending its own way (its own number of exits at each place, to its own kept states,
//! with its own rewards), solved on the shared template, by turns without it, and whole: the
//! same bits, the same fractions, on any number of threads, with decisions that give their
//! moves out of the turn alone (`Model::expand_exits`) or not. A model that breaks the promise
//! at a state the engine expands whole is an error naming that state.

use crate::common::Rng;
use perfectplay::{Exact, Method, Model, NodeBuilder, Number, Player, Rat, SolveError, Solver};

/// Where a branch of the template goes.
#[derive(Clone, Debug)]
enum To {
    /// A local state of the same turn, by its number.
    Local(usize),
    /// Out of the turn: each turn has its own branches here (see `Game::exits`).
    Exits(usize),
}

/// A state of the template: a decision of a player or chance, with its branches; a decision
/// may have a random move (a reward, then two local outcomes).
#[derive(Clone, Debug)]
struct Local {
    player: Option<Player>,
    /// Moves or outcomes: probability (one for a move), reward, where to.
    branches: Vec<(Rat, i64, To)>,
    random_move: Option<(i64, [usize; 2])>,
}

/// Kept states in layers, the last ones terminal; every other kept state's turn is the
/// template, with its own exits.
struct Game {
    template: Vec<Local>,
    /// Per kept state: its payoff if terminal.
    payoff: Vec<Option<Rat>>,
    /// Per kept state and exit place: the branches out, one to three (kept state, share of
    /// the place's probability, reward).
    exits: Vec<Vec<Vec<(usize, Rat, i64)>>>,
    turns: bool,
    shapes: bool,
    /// Whether `expand_exits` gives a decision's moves out of the turn alone.
    exits_alone: bool,
    /// Whether `exit_class` gives the decisions with one exit place that place as their
    /// class (true to the game), or every decision class 0 (false to it).
    classes: Option<bool>,
    /// A `turn_bound` other than the template's size (a careless one).
    bound: Option<usize>,
    /// A turn whose branch to this local state from the local state before it earns one more
    /// than the template's, breaking the promise of the shape.
    broken: Option<(usize, usize)>,
}

/// A kept state `(k, None)` or the local state `(k, Some(i))` of its turn.
type State = (usize, Option<usize>);

impl Model for Game {
    type State = State;
    type Move = usize;
    fn start(&self) -> State {
        (0, None)
    }
    fn expand(&self, &(k, at): &State, node: &mut impl NodeBuilder<State, usize>) {
        if let Some(p) = self.payoff[k] {
            return node.terminal(p);
        }
        let i = at.unwrap_or(0);
        let local = &self.template[i];
        match local.player {
            Some(p) => node.decision(p),
            None => node.chance(),
        }
        let mut label = 0;
        let mut emit = |node: &mut dyn FnMut(usize, Rat, i64, State), p: Rat, r: i64, next| {
            label += 1;
            node(label, p, r, next)
        };
        let mut add = |label: usize, p: Rat, r: i64, next: State| match local.player {
            Some(_) => node.add_move(label, r, next),
            None => node.add_outcome(label, p, r, next),
        };
        for (p, r, to) in &local.branches {
            match to {
                To::Local(j) => {
                    let bump = self.broken == Some((k, *j)) && i + 1 == *j;
                    emit(&mut add, *p, r + i64::from(bump), (k, Some(*j)));
                }
                To::Exits(e) => {
                    for &(t, share, reward) in &self.exits[k][*e] {
                        let q = *p * share;
                        emit(&mut add, q, reward, (t, None));
                    }
                }
            }
        }
        if let (Some((r, [a, b])), Some(_)) = (local.random_move, local.player) {
            node.add_random_move(100, r);
            node.add_outcome(101, Rat::new(1, 3), 0, (k, Some(a)));
            node.add_outcome(102, Rat::new(2, 3), 1, (k, Some(b)));
        }
    }
    fn expand_exits(&self, &(k, at): &State, node: &mut impl NodeBuilder<State, usize>) -> bool {
        let local = &self.template[at.unwrap_or(0)];
        let (Some(p), true) = (local.player, self.exits_alone) else {
            return false;
        };
        node.decision(p);
        let mut label = 0;
        for (_, _, to) in &local.branches {
            match to {
                To::Local(_) => label += 1,
                To::Exits(e) => {
                    for &(t, _, reward) in &self.exits[k][*e] {
                        label += 1;
                        node.add_move(label, reward, (t, None));
                    }
                }
            }
        }
        true
    }
    fn exit_class(&self, _: &State, index: usize) -> Option<u32> {
        let local = &self.template[index];
        let places: Vec<usize> = local
            .branches
            .iter()
            .filter_map(|(_, _, to)| match to {
                To::Exits(e) => Some(*e),
                To::Local(_) => None,
            })
            .collect();
        match (self.classes?, local.player, &places[..]) {
            (true, Some(_), &[e]) => Some(e as u32),
            (false, Some(_), [_, ..]) => Some(0),
            _ => None,
        }
    }
    fn has_turns(&self) -> bool {
        self.turns
    }
    fn turn_of(&self, &(k, at): &State) -> Option<State> {
        at.map(|_| (k, None))
    }
    fn turn_bound(&self) -> usize {
        self.bound.unwrap_or(self.template.len())
    }
    fn turn_index(&self, &(_, at): &State) -> Option<usize> {
        at
    }
    fn turn_shape(&self, &(k, _): &State) -> Option<u64> {
        self.shapes.then_some(u64::from(self.payoff[k].is_some()))
    }
    fn turn_state(&self, &(k, _): &State, index: usize) -> Option<State> {
        (index > 0 && index < self.template.len()).then_some((k, Some(index)))
    }
}

/// A random game: a template of up to 12 local states (0 is the kept state's own node), kept
/// states in up to 4 layers of up to 5.
fn random_game(seed: u64) -> Game {
    let mut rng = Rng(seed);
    let n = 2 + rng.below(11);
    let mut places = 0;
    let mut template = Vec::new();
    // Half the games leave their turns by decisions only (and the kept state's node stays in
    // the turn): a float solve then runs in plain floats with one bound a turn.
    let by_decisions = rng.chance(1, 2);
    let mut shared = Vec::new();
    for i in 0..n {
        let mut player = match rng.below(3) {
            0 => Some(Player::Max),
            1 => Some(Player::Min),
            _ => None,
        };
        let reward = |rng: &mut Rng| rng.range(-2, 3);
        let mut targets: Vec<To> = (i + 1..n)
            .filter(|_| rng.chance(1, 2))
            .map(To::Local)
            .collect();
        if by_decisions && player.is_none() && targets.is_empty() {
            player = Some(Player::Max);
        }
        let stays = by_decisions && (player.is_none() || i == 0) && !targets.is_empty();
        // Every state has a way out of the turn or on within it; most have exit places,
        // which decisions may share (they then leave the turn alike: `exit_class`).
        if !stays && (targets.is_empty() || rng.chance(2, 3)) {
            let at = rng.below(targets.len() + 1);
            let place = match (player, shared.len()) {
                (Some(_), n) if n > 0 && rng.chance(1, 2) => shared[rng.below(n)],
                _ => {
                    places += 1;
                    if player.is_some() {
                        shared.push(places - 1);
                    }
                    places - 1
                }
            };
            targets.insert(at, To::Exits(place));
        }
        let count = targets.len() as i64;
        let branches = targets
            .into_iter()
            .map(|to| {
                let p = if player.is_some() {
                    Rat::ONE
                } else {
                    Rat::new(1, count)
                };
                (p, reward(&mut rng), to)
            })
            .collect();
        let random_move = (player.is_some() && i + 2 < n && rng.chance(1, 3))
            .then(|| (reward(&mut rng), [i + 1 + rng.below(n - i - 1), n - 1]));
        template.push(Local {
            player,
            branches,
            random_move,
        });
    }
    // Kept states in layers; each exit place of each turn leads to the layers below, by one
    // to three branches.
    let layers = 2 + rng.below(3);
    let mut layer_of = vec![0];
    for l in 1..layers {
        for _ in 0..1 + rng.below(5) {
            layer_of.push(l);
        }
    }
    let kept = layer_of.len();
    let mut payoff = Vec::new();
    let mut exits = Vec::new();
    for k in 0..kept {
        let last = layer_of[k] + 1 == layers;
        payoff.push(last.then(|| Rat::from(rng.range(-5, 5))));
        let below: Vec<usize> = (0..kept).filter(|&t| layer_of[t] > layer_of[k]).collect();
        let mut mine = vec![Vec::new(); places];
        if !last {
            for local in &template {
                for (_, _, to) in &local.branches {
                    let To::Exits(e) = *to else { continue };
                    let count = 1 + rng.below(3);
                    let share = Rat::new(1, count as i64);
                    mine[e] = (0..count)
                        .map(|_| {
                            let t = below[rng.below(below.len())];
                            (t, share, rng.range(-3, 3))
                        })
                        .collect();
                }
            }
        }
        exits.push(mine);
    }
    Game {
        template,
        payoff,
        exits,
        turns: true,
        shapes: true,
        exits_alone: true,
        classes: Some(true),
        bound: None,
        broken: None,
    }
}

/// Asserts that the float `f` is within its solve's error bound of the exact value.
fn within(seed: u64, f: f64, stats: &perfectplay::Stats, exact: &Exact) {
    let error = Exact::of_float(f).unwrap().sub(exact).abs();
    assert!(
        error <= Exact::of_float(stats.error_bound).unwrap(),
        "seed {seed}: {f} is {:e} from {exact}, bound {:e}",
        error.to_f64(),
        stats.error_bound
    );
}

#[test]
fn turns_on_a_template_are_the_turns_solved_each_and_the_game_solved_whole() {
    for seed in 0..300 {
        let mut game = random_game(seed);
        let (shared, stats) = Solver::new(&game).threads(1).start_value::<f64>().unwrap();
        assert!(matches!(stats.method, Method::Turns { .. }), "{seed}");
        let exact = Solver::new(&game).start_value::<Exact>().unwrap().0;
        for threads in [2, 3] {
            let many = Solver::new(&game)
                .threads(threads)
                .start_value::<f64>()
                .unwrap()
                .0;
            assert_eq!(
                shared.to_bits(),
                many.to_bits(),
                "seed {seed}, {threads} threads"
            );
        }
        game.shapes = false;
        let (each, each_stats) = Solver::new(&game).threads(1).start_value::<f64>().unwrap();
        assert_eq!(shared.to_bits(), each.to_bits(), "seed {seed}");
        assert_eq!(stats.states, each_stats.states, "seed {seed}");
        // The bounds may differ (one for the whole turn, or one per operation); both hold.
        within(seed, shared, &stats, &exact);
        within(seed, each, &each_stats, &exact);
        game.turns = false;
        let whole = perfectplay::solve_exact(&game).unwrap();
        assert_eq!(exact, *whole.start_value(), "seed {seed}");
    }
}

#[test]
fn a_turn_that_breaks_its_shapes_promise_at_an_expanded_state_is_an_error() {
    // A game whose turns have a site with a branch to another local state: one turn earns
    // more on that branch than the template says.
    let found = (0..300).find_map(|seed| {
        let game = random_game(seed);
        // The local states every turn reaches.
        let mut reached = vec![false; game.template.len()];
        reached[0] = true;
        for (i, l) in game.template.iter().enumerate() {
            if reached[i] {
                for (_, _, to) in &l.branches {
                    if let To::Local(j) = *to {
                        reached[j] = true;
                    }
                }
                for j in l.random_move.map_or([i, i], |(_, to)| to) {
                    reached[j] = true;
                }
            }
        }
        let site = |l: &Local| {
            l.branches
                .iter()
                .any(|(_, _, to)| matches!(to, To::Exits(_)))
        };
        // A turn other than the start's (whose turn the template is built from), reached
        // from the start's turn.
        let k = game
            .template
            .iter()
            .zip(&reached)
            .filter(|&(_, &r)| r)
            .flat_map(|(l, _)| &l.branches)
            .filter_map(|(_, _, to)| match to {
                To::Exits(e) => Some(&game.exits[0][*e]),
                To::Local(_) => None,
            })
            .flatten()
            .map(|&(t, _, _)| t)
            .find(|&t| game.payoff[t].is_none())?;
        // A site every turn reaches, with a branch to the next local state.
        let i = (0..game.template.len()).find(|&i| {
            let l = &game.template[i];
            reached[i]
                && site(l)
                && l.branches
                    .iter()
                    .any(|(_, _, to)| matches!(to, To::Local(j) if *j == i + 1))
        })?;
        Some((seed, k, i, i + 1))
    });
    let (seed, k, i, j) = found.expect("some game has such a site");
    let mut game = random_game(seed);
    game.broken = Some((k, j));
    // A decision that gives its moves out of the turn alone shows nothing of the others.
    game.exits_alone = false;
    match Solver::new(&game).threads(1).start_value::<f64>() {
        Err(SolveError::InvalidModel { state, reason }) => {
            assert!(reason.contains("turn_shape"), "{reason}");
            assert_eq!(
                state,
                format!("{:?}", (k, if i == 0 { None } else { Some(i) }))
            );
        }
        other => panic!("seed {seed}: {other:?}"),
    }
}

#[test]
fn a_class_whose_states_leave_the_turn_otherwise_is_an_error() {
    let mut refused = 0;
    for seed in 0..100 {
        let mut game = random_game(seed);
        let truth = Solver::new(&game).start_value::<Exact>().unwrap().0;
        // Every decision that leaves the turn in one class, true or not.
        game.classes = Some(false);
        match Solver::new(&game).start_value::<Exact>() {
            Ok((v, _)) => assert_eq!(v, truth, "seed {seed}"),
            Err(SolveError::InvalidModel { reason, .. }) => {
                assert!(reason.contains("exit_class"), "{reason}");
                refused += 1;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    assert!(refused > 10, "{refused}");
}

#[test]
fn a_turn_numbering_too_large_for_memory_is_hashed_instead() {
    for seed in 0..20 {
        let mut game = random_game(seed);
        let (v, _) = Solver::new(&game).start_value::<f64>().unwrap();
        let exact = Solver::new(&game).start_value::<Exact>().unwrap().0;
        // Far beyond any machine's memory at four bytes a number.
        game.bound = Some(1 << 60);
        let (w, _) = Solver::new(&game).start_value::<f64>().unwrap();
        assert_eq!(v.to_bits(), w.to_bits(), "seed {seed}");
        assert_eq!(Solver::new(&game).start_value::<Exact>().unwrap().0, exact);
    }
}
