//! Turns alike ([`Model::turn_shape`]): the local graph of a shape, built once from one of its
//! turns in the model's turn numbering, and every turn of the shape solved on it.
//!
//! A turn of a known shape costs the expansions of its *sites* (the local states with branches
//! that leave the turn, which [`Model::turn_state`] gives from their numbers) and one backup of
//! every state of the template, children first: no hashing, no search for components, no
//! conversion of the numbers of the turn's own branches. A site's branches are read again in
//! each turn, where those that stay in the turn must be the template's (checked) and those
//! that leave may differ in number, place, target and reward. Each backup is [`back_up`] over
//! the same edges in the same order as the exploration of [`crate::explore`] builds, so the
//! values are the same bits either way.

use std::sync::{Arc, RwLock};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::backup::{back_up, back_up_by, consider, edge_numbers, Edge, Kind};
use crate::model::{Model, Node, NodeKind};
use crate::{Number, Rat, SolveError};

use super::exact::{self, Whole};
use super::fast::{Fast, Part};

/// The number of the turn's kept state among a template's numbers.
pub(super) const ROOT: u32 = u32::MAX;

/// The class of a site that shares its exits with no other.
const NO_CLASS: u32 = u32::MAX;

/// The local graph that every turn of one shape has.
pub(crate) struct Template<N> {
    /// The turn's states, every one after the states its branches lead to; the kept state last.
    pub(super) nodes: Vec<Slot>,
    /// The branches of the nodes that stay in the turn, in their order, targets by their place
    /// in `nodes`.
    pub(super) edges: Vec<Edge<N>>,
    /// Per edge: its target's turn number, and the branch's probability and reward as the
    /// model gave them (what a site's branches are checked against).
    given: Vec<Given>,
    /// The template in plain floats with one bound per turn, for a float solve of a template
    /// whose every branch out of the turn is a plain move that a decision gives alone.
    pub(super) fast: Option<Fast>,
    /// How many classes of split sites there are ([`Model::exit_class`]).
    pub(super) classes: usize,
    /// The template in integers over one denominator per level, for an exact solve of a
    /// template whose every branch out of the turn is a plain move that a decision gives
    /// alone, whose rewards are integers and whose probabilities share a small denominator.
    pub(super) whole: Option<Whole>,
}

/// An edge's target's turn number, and its branch's probability and reward.
type Given = (u32, Rat, Rat);

/// A state of a template.
pub(super) struct Slot {
    /// Its number in the turn ([`ROOT`] for the kept state).
    pub(super) index: u32,
    /// Its kind; `None` for a terminal state, whose payoff is in `payoff`.
    pub(super) kind: Option<Kind>,
    pub(super) payoff: Rat,
    /// Whether it is expanded in every turn: it has branches that leave the turn, or it is
    /// the kept state.
    pub(super) site: bool,
    /// Whether it has branches that leave the turn.
    pub(super) exits: bool,
    /// Whether it is a decision (not the kept state) whose branches out of the turn are
    /// plain moves, which [`Model::expand_exits`] gives alone.
    pub(super) split: bool,
    /// Its class among the split sites ([`Model::exit_class`], numbered from zero), or
    /// [`NO_CLASS`].
    pub(super) class: u32,
    /// Its edges in the template's.
    pub(super) from: u32,
    pub(super) to: u32,
}

/// The templates met so far, by shape; `None` where a shape's turn cannot have one.
pub(crate) struct Shapes<N> {
    known: RwLock<FxHashMap<u64, Option<Arc<Template<N>>>>>,
}

/// The scratch of a thread that scans or solves turns on templates.
pub(crate) struct Scratch<M: Model, N> {
    pub(super) node: Node<M::State, M::Move>,
    pub(super) move_rewards: Vec<(u32, Rat)>,
    /// The values of a template's states.
    pub(super) values: Vec<N>,
    /// The edges of a site.
    pub(super) edges: Vec<Edge<N>>,
    /// The values of the kept states that a site's exits lead to.
    pub(super) exits: Vec<N>,
    /// The values of a template's states, in plain floats.
    pub(super) floats: Vec<f64>,
    /// Per class of sites: whether the scan has been there, the best of its moves out of
    /// the turn (bounded or plain floats), in the turn at hand.
    pub(super) class_done: Vec<bool>,
    pub(super) class_values: Vec<Option<N>>,
    pub(super) class_floats: Vec<Option<f64>>,
}

impl<M: Model, N> Scratch<M, N> {
    pub(crate) fn new() -> Self {
        Scratch {
            node: Node::new(),
            move_rewards: Vec::new(),
            values: Vec::new(),
            edges: Vec::new(),
            exits: Vec::new(),
            floats: Vec::new(),
            class_done: Vec::new(),
            class_values: Vec::new(),
            class_floats: Vec::new(),
        }
    }
}

impl<N: Number> Shapes<N> {
    pub(crate) fn new() -> Self {
        Shapes {
            known: RwLock::new(FxHashMap::default()),
        }
    }

    /// The template of the turn of `k`, built from that turn if its shape is new; `None` where
    /// the model gives no shape or the shape's turn cannot have a template.
    pub(crate) fn of<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        limit: usize,
    ) -> Result<Option<Arc<Template<N>>>, SolveError> {
        let Some(shape) = model.turn_shape(k) else {
            return Ok(None);
        };
        if let Some(known) = self
            .known
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&shape)
        {
            return Ok(known.clone());
        }
        let built = build::<M, N>(model, k, limit)?.map(Arc::new);
        let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
        Ok(known.entry(shape).or_insert(built).clone())
    }
}

/// Why a template breaks down: a model that breaks the promise of its shape.
fn broken<M: Model>(model: &M, state: &M::State, reason: String) -> SolveError {
    SolveError::InvalidModel {
        state: model.show_state(state),
        reason,
    }
}

/// The local state numbered `index` in the turn of `k`, checked to be one.
fn state_at<M: Model>(model: &M, k: &M::State, index: u32) -> Result<M::State, SolveError> {
    match model.turn_state(k, index as usize) {
        Some(s) if model.turn_index(&s) == Some(index as usize) && model.turn_of(&s).as_ref() == Some(k) => {
            Ok(s)
        }
        Some(s) => Err(broken(
            model,
            &s,
            format!(
                "turn_state gives it as number {index} of the turn of {}, but turn_of and turn_index do not place it there",
                model.show_state(k)
            ),
        )),
        None => Err(broken(
            model,
            k,
            format!("turn_shape gives its turn a shape, but turn_state has no state numbered {index} in it"),
        )),
    }
}

/// The template of `k`'s turn: `None` where a local state has no number or the turn has a
/// cycle (the exploration then solves it, and reports what the model does wrong, if anything).
fn build<M: Model, N: Number>(
    model: &M,
    k: &M::State,
    limit: usize,
) -> Result<Option<Template<N>>, SolveError> {
    /// A state found: its slot (edges not yet placed) and its branches that stay in the turn,
    /// by the turn numbers of their targets.
    struct Found<N> {
        slot: Slot,
        edges: Vec<(u32, Edge<N>, Given)>,
    }
    let bound = model.turn_bound();
    if bound == 0 || !crate::memory::affords((bound as u64).saturating_mul(4)) {
        return Ok(None);
    }
    // Per turn number: the state's place in `found`, `SEEN` while it waits for its expansion.
    const NONE: u32 = u32::MAX;
    const SEEN: u32 = u32::MAX - 1;
    let mut place = vec![NONE; bound];
    let mut found: Vec<Found<N>> = Vec::new();
    let mut node = Node::new();
    let mut move_rewards = Vec::new();
    // Depth first, each state expanded when first reached; a state met again while on the
    // path closes a cycle.
    let mut on_path: Vec<bool> = Vec::new();
    let mut post: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, usize)> = Vec::new();
    let mut index = ROOT;
    let mut state = k.clone();
    loop {
        node.clear();
        model.expand(&state, &mut node);
        node.validate()
            .map_err(|reason| broken(model, &state, reason))?;
        let kind = match node.kind() {
            // A kept state that ends the game has no turn to share.
            NodeKind::Terminal if index == ROOT => return Ok(None),
            NodeKind::Terminal => None,
            NodeKind::Chance => Some(Kind::Chance),
            NodeKind::Decision(p) => Some(Kind::Decision(p)),
            NodeKind::Unset => unreachable!("validate rejects unset nodes"),
        };
        move_rewards.clear();
        move_rewards.extend(node.random_rewards().filter(|(_, r)| !r.is_zero()));
        let mut edges = Vec::new();
        // The kept state is expanded in every turn, so that its kind is checked.
        let mut site = index == ROOT;
        let mut has_exits = false;
        let mut split = index != ROOT && matches!(kind, Some(Kind::Decision(_)));
        let mut group = u32::MAX;
        let branches = node.branches();
        for (at, b) in branches.iter().enumerate() {
            let first = b.group != group;
            group = b.group;
            match model.turn_of(&b.next) {
                None => {
                    site = true;
                    has_exits = true;
                    let alone = branches.get(at + 1).is_none_or(|c| c.group != b.group);
                    split &= first && alone && b.probability == Rat::ONE;
                }
                Some(t) if t == *k => {
                    let Some(j) = model.turn_index(&b.next).filter(|&j| j < bound) else {
                        return Ok(None);
                    };
                    if place[j] == NONE {
                        if found.len() + 1 >= limit {
                            return Err(SolveError::StateLimit {
                                explored: found.len() + 1,
                                limit,
                                components: 0,
                            });
                        }
                        place[j] = SEEN;
                    }
                    let (prob, reward) = edge_numbers::<N, _, _>(b, &move_rewards);
                    let edge = Edge {
                        target: 0,
                        prob,
                        reward,
                        first,
                    };
                    edges.push((j as u32, edge, (j as u32, b.probability, b.reward)));
                }
                Some(_) => return Ok(None),
            }
        }
        let me = found.len() as u32;
        if index != ROOT {
            place[index as usize] = me;
        }
        found.push(Found {
            slot: Slot {
                index,
                kind,
                payoff: node.payoff(),
                site,
                exits: has_exits,
                split: split && site && {
                    let mut alone = Node::new();
                    model.expand_exits(&state, &mut alone)
                },
                class: NO_CLASS,
                from: 0,
                to: 0,
            },
            edges,
        });
        on_path.push(true);
        frames.push((me, 0));
        // On to the next state not yet expanded.
        let mut next = None;
        while let Some(&mut (at, ref mut j)) = frames.last_mut() {
            let edges = &found[at as usize].edges;
            if *j < edges.len() {
                let i = edges[*j].0;
                *j += 1;
                match place[i as usize] {
                    SEEN => {
                        next = Some(i);
                        break;
                    }
                    p if on_path[p as usize] => return Ok(None),
                    _ => continue,
                }
            }
            on_path[at as usize] = false;
            post.push(at);
            frames.pop();
        }
        let Some(i) = next else {
            break;
        };
        index = i;
        state = state_at(model, k, i)?;
    }
    // The states in post-order: the children of each before it, the kept state last.
    let mut order = vec![0u32; found.len()];
    for (i, &f) in post.iter().enumerate() {
        order[f as usize] = i as u32;
    }
    let mut found: Vec<Option<Found<N>>> = found.into_iter().map(Some).collect();
    let mut nodes = Vec::with_capacity(found.len());
    let mut edges = Vec::new();
    let mut given = Vec::new();
    for &f in &post {
        let Found { mut slot, edges: e } = found[f as usize].take().expect("each state once");
        slot.from = edges.len() as u32;
        for (i, mut edge, g) in e {
            edge.target = order[place[i as usize] as usize];
            edges.push(edge);
            given.push(g);
        }
        slot.to = edges.len() as u32;
        nodes.push(slot);
    }
    let classes = classify(model, k, &mut nodes)?;
    // Plain floats where every branch out of the turn is a move a decision gives alone.
    let fast = (!N::EXACT && nodes.iter().all(|s| s.split || !s.exits)).then(|| {
        let payoffs: Vec<N> = nodes.iter().map(|s| N::from_rat(s.payoff)).collect();
        let parts: Vec<Part<'_, N>> = nodes
            .iter()
            .zip(&payoffs)
            .map(|(s, payoff)| Part {
                kind: s.kind,
                payoff,
                edges: &edges[s.from as usize..s.to as usize],
                exits: s.exits,
            })
            .collect();
        Fast::of(&parts)
    });
    // Integers over one denominator per level, likewise, in an exact solve.
    let whole = if N::EXACT && nodes.iter().all(|s| s.split || !s.exits) {
        let parts: Vec<exact::Part<'_, N>> = nodes
            .iter()
            .map(|s| exact::Part {
                kind: s.kind,
                payoff: s.payoff,
                edges: &edges[s.from as usize..s.to as usize],
                given: &given[s.from as usize..s.to as usize],
            })
            .collect();
        Whole::of(&parts)
    } else {
        None
    };
    Ok(Some(Template {
        whole,
        nodes,
        edges,
        given,
        fast,
        classes,
    }))
}

/// Numbers the classes of the split sites ([`Model::exit_class`]) of the turn of `k`, checking
/// on this turn that the sites of a class leave it alike: how many there are.
fn classify<M: Model>(model: &M, k: &M::State, nodes: &mut [Slot]) -> Result<usize, SolveError> {
    // By class and player: the best move out of the turn is each player's own.
    let mut number: FxHashMap<(u32, bool), u32> = FxHashMap::default();
    // Per class: the moves out of the turn of its first site.
    let mut moves: Vec<Vec<(M::State, Rat)>> = Vec::new();
    let mut node = Node::new();
    for slot in nodes.iter_mut().filter(|s| s.split) {
        let Some(c) = model.exit_class(k, slot.index as usize) else {
            continue;
        };
        let state = state_at(model, k, slot.index)?;
        node.clear();
        model.expand_exits(&state, &mut node);
        let these: Vec<(M::State, Rat)> = node
            .branches()
            .iter()
            .map(|b| (b.next.clone(), b.reward))
            .collect();
        let next = number.len() as u32;
        let max = slot.kind == Some(Kind::Decision(crate::Player::Max));
        let class = *number.entry((c, max)).or_insert(next);
        if class == next {
            moves.push(these);
        } else if moves[class as usize] != these {
            return Err(broken(
                model,
                &state,
                format!(
                    "exit_class puts it in class {c} in the turn of {}, but it leaves the turn \
                     otherwise than another state of that class",
                    model.show_state(k)
                ),
            ));
        }
        slot.class = class;
    }
    Ok(number.len())
}

impl<N: Number> Template<N> {
    /// How many states each turn of the shape has, its kept state included.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// How many of them are not terminal.
    pub(crate) fn inner(&self) -> usize {
        self.nodes.iter().filter(|n| n.kind.is_some()).count()
    }

    /// Expands the site `slot` of the turn of `k` into `scratch.node` (with its random moves'
    /// rewards), checking its kind: the state expanded, and whether the node holds only the
    /// moves that leave the turn ([`Model::expand_exits`], at a split site). The scan of a
    /// turn checks its states' numbers ([`Model::turn_state`]) and that its exits leave the
    /// turn; its solve, which expands the same states again, does not.
    pub(super) fn expand_site<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        slot: &Slot,
        scratch: &mut Scratch<M, N>,
        scanning: bool,
    ) -> Result<(M::State, bool), SolveError> {
        let state = match (slot.index, scanning) {
            (ROOT, _) => k.clone(),
            (index, true) => state_at(model, k, index)?,
            (index, false) => match model.turn_state(k, index as usize) {
                Some(s) => s,
                None => return state_at(model, k, index).map(|s| (s, false)),
            },
        };
        let Scratch {
            node, move_rewards, ..
        } = scratch;
        node.clear();
        let exits_only = slot.split && model.expand_exits(&state, node);
        if !exits_only {
            node.clear();
            model.expand(&state, node);
        }
        node.validate()
            .map_err(|reason| broken(model, &state, reason))?;
        let same = match node.kind() {
            NodeKind::Chance => slot.kind == Some(Kind::Chance),
            NodeKind::Decision(p) => slot.kind == Some(Kind::Decision(p)),
            _ => false,
        };
        move_rewards.clear();
        move_rewards.extend(node.random_rewards().filter(|(_, r)| !r.is_zero()));
        if !same || (exits_only && node.random_rewards().next().is_some()) {
            return Err(self.differs(model, k, &state));
        }
        Ok((state, exits_only))
    }

    /// Whether the branch `b` (numbered `index` in the turn) is the template's edge `at`.
    fn fits<S, L>(&self, at: usize, to: u32, index: usize, b: &crate::Branch<S, L>) -> bool {
        at < to as usize && self.given[at] == (index as u32, b.probability, b.reward)
    }

    /// Checks a site without exits (the kept state), expanded whole, against the template:
    /// its branches stay in the turn and are the template's.
    pub(super) fn check_within<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        slot: &Slot,
        state: &M::State,
        node: &Node<M::State, M::Move>,
    ) -> Result<(), SolveError> {
        let mut at = slot.from as usize;
        for b in node.branches() {
            match model.turn_index(&b.next) {
                Some(index) if self.fits(at, slot.to, index, b) => at += 1,
                _ => return Err(self.differs(model, k, state)),
            }
        }
        if at != slot.to as usize {
            return Err(self.differs(model, k, state));
        }
        Ok(())
    }

    /// The error of a state whose branches within the turn are not the template's.
    #[cold]
    fn differs<M: Model>(&self, model: &M, k: &M::State, state: &M::State) -> SolveError {
        broken(
            model,
            state,
            format!(
                "turn_shape gives the turn of {} a shape whose other turns go on from this state \
                 otherwise (other branches within the turn, or another kind of node)",
                model.show_state(k)
            ),
        )
    }

    /// The kept states that the turn of `k` leads to, each once, in the order met.
    pub(crate) fn scan<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        seen: &mut FxHashSet<M::State>,
    ) -> Result<Vec<M::State>, SolveError> {
        seen.clear();
        let mut out = Vec::new();
        scratch.class_done.clear();
        scratch.class_done.resize(self.classes, false);
        for slot in self.nodes.iter().filter(|s| s.site) {
            if slot.class != NO_CLASS {
                if scratch.class_done[slot.class as usize] {
                    continue;
                }
                scratch.class_done[slot.class as usize] = true;
            }
            let (state, exits_only) = self.expand_site(model, k, slot, scratch, true)?;
            let mut at = slot.from as usize;
            for b in scratch.node.branches() {
                match model.turn_index(&b.next).filter(|_| !exits_only) {
                    Some(index) => {
                        if !self.fits(at, slot.to, index, b) {
                            return Err(self.differs(model, k, &state));
                        }
                        at += 1;
                    }
                    None => {
                        leaves(model, k, &b.next)?;
                        if seen.insert(b.next.clone()) {
                            out.push(b.next.clone());
                        }
                    }
                }
            }
            if !exits_only && at != slot.to as usize {
                return Err(self.differs(model, k, &state));
            }
        }
        Ok(out)
    }

    /// The value of `k`, its turn solved with the values `value_of` gives the kept states it
    /// leads to; `None` where `value_of` has none (the turn leads back into its own set).
    pub(crate) fn solve<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        value_of: impl Fn(&M::State) -> Result<Option<N>, SolveError>,
    ) -> Result<Option<N>, SolveError> {
        if let Some(fast) = &self.fast {
            if let Some(solved) = self.solve_fast(fast, model, k, scratch, &value_of)? {
                return Ok(solved);
            }
        }
        if let Some(whole) = &self.whole {
            if let Some(solved) = self.solve_whole(whole, model, k, scratch, &value_of)? {
                return Ok(solved);
            }
        }
        scratch.class_values.clear();
        scratch.class_values.resize(self.classes, None);
        let mut values = std::mem::take(&mut scratch.values);
        let mut edges = std::mem::take(&mut scratch.edges);
        let mut exits = std::mem::take(&mut scratch.exits);
        values.clear();
        values.resize(self.nodes.len(), N::zero());
        let result = self.fill(
            model,
            k,
            scratch,
            &value_of,
            &mut values,
            &mut edges,
            &mut exits,
        );
        // The kept state is the last.
        let result = result.map(|complete| complete.then(|| values[values.len() - 1].clone()));
        scratch.values = values;
        scratch.edges = edges;
        scratch.exits = exits;
        result
    }

    /// The work of [`Template::solve`], into `values` (with `edges` and `exits` for scratch):
    /// false where the turn leads back into its own set.
    #[allow(clippy::too_many_arguments)]
    fn fill<M: Model>(
        &self,
        model: &M,
        k: &M::State,
        scratch: &mut Scratch<M, N>,
        value_of: &impl Fn(&M::State) -> Result<Option<N>, SolveError>,
        values: &mut [N],
        edges: &mut Vec<Edge<N>>,
        exits: &mut Vec<N>,
    ) -> Result<bool, SolveError> {
        let n = self.nodes.len();
        for (i, slot) in self.nodes.iter().enumerate() {
            let Some(kind) = slot.kind else {
                values[i] = N::from_rat(slot.payoff);
                continue;
            };
            let own = &self.edges[slot.from as usize..slot.to as usize];
            if !slot.site {
                values[i] = back_up(kind, own, values).0;
                continue;
            }
            if let (Kind::Decision(player), Some(Some(out))) =
                (kind, scratch.class_values.get(slot.class as usize))
            {
                // A site of a class met before in this turn: its moves out of the turn are
                // known (and a decision's value does not depend on the order of its moves).
                let out = out.clone();
                let mut best = (!own.is_empty()).then(|| back_up(kind, own, values).0);
                consider(player, &mut best, out);
                values[i] = best.expect("a valid decision has a move");
                continue;
            }
            let (state, exits_only) = self.expand_site(model, k, slot, scratch, false)?;
            if exits_only {
                // The best of the moves out of the turn, then of those within it (from the
                // template): a decision's value does not depend on the order of its moves
                // (nor what it knows of rounding: see `Number::absorb`).
                let Kind::Decision(player) = kind else {
                    unreachable!("split sites are decisions")
                };
                let mut out = None;
                for b in scratch.node.branches() {
                    let Some(value) = value_of(&b.next)? else {
                        return Ok(false);
                    };
                    consider(player, &mut out, N::from_rat(b.reward).add(&value));
                }
                let out = out.expect("a valid decision has a move");
                if let Some(c) = scratch.class_values.get_mut(slot.class as usize) {
                    *c = Some(out.clone());
                }
                let mut best = (!own.is_empty()).then(|| back_up(kind, own, values).0);
                consider(player, &mut best, out);
                values[i] = best.expect("a valid decision has a move");
                continue;
            }
            // The site's edges in the order of its branches, with the turn's own `first`
            // marks; an exit's target is its place in `exits`, after the template's states.
            edges.clear();
            exits.clear();
            let mut group = u32::MAX;
            for b in scratch.node.branches() {
                let first = b.group != group;
                group = b.group;
                let edge = match model.turn_index(&b.next) {
                    Some(index) => {
                        let at = slot.from as usize + edges.len() - exits.len();
                        if !self.fits(at, slot.to, index, b) {
                            return Err(self.differs(model, k, &state));
                        }
                        Edge {
                            first,
                            ..self.edges[at].clone()
                        }
                    }
                    None => {
                        let Some(value) = value_of(&b.next)? else {
                            return Ok(false);
                        };
                        exits.push(value);
                        let (prob, reward) = edge_numbers::<N, _, _>(b, &scratch.move_rewards);
                        Edge {
                            target: (n + exits.len() - 1) as u32,
                            prob,
                            reward,
                            first,
                        }
                    }
                };
                edges.push(edge);
            }
            if edges.len() - exits.len() != own.len() {
                return Err(self.differs(model, k, &state));
            }
            let q = |e: &Edge<N>| {
                let t = e.target as usize;
                e.reward.add(if t < n { &values[t] } else { &exits[t - n] })
            };
            values[i] = back_up_by(kind, edges, q).0;
        }
        Ok(true)
    }
}

/// Checks that `next`, reached by a branch that leaves the turn of `k`, is a kept state.
fn leaves<M: Model>(model: &M, k: &M::State, next: &M::State) -> Result<(), SolveError> {
    match model.turn_of(next) {
        None => Ok(()),
        Some(t) => Err(broken(
            model,
            next,
            format!(
                "Model::turn_of makes it local to {}, but the turn of {} reaches it with no turn number",
                model.show_state(&t),
                model.show_state(k)
            ),
        )),
    }
}
