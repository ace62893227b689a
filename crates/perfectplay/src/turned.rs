//! What a solve by turns ([`Model::turn_of`]) leaves, and the queries on it: the values of the
//! kept states are stored; everything about a local state (its value, its best move, what
//! every other move loses) comes from solving its turn again, on demand, with the stored
//! values of the kept states it leads to. The last turn solved is kept, so that walking
//! through one turn (play, explain, a simulated game) solves it once.
//!
//! States are numbered as a [`Solution`]'s are, the start `0`: the kept states in the order
//! found, then local states in the order they are first asked about.

use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::distribution::{self, Distribution, DistributionOptions, Masses, Step};
use crate::model::{Model, Node, NodeKind};
use crate::report::Stats;
use crate::turns::{self, Kept};
use crate::{memory, Number, Solution, SolveError, StateExplanation, StrategyRow};

/// The kept states' values of a solve by turns, and the turns solved again on demand.
pub(crate) struct TurnSolution<S, N> {
    kept: Kept<S, N>,
    /// The state limit of one turn.
    limit: usize,
    local: Mutex<Local<S>>,
    /// The last set of turns solved, by its number.
    cache: Mutex<Option<Cached<S, N>>>,
}

/// A set's number with its turns solved.
type Cached<S, N> = (u32, Arc<Solution<S, N>>);

/// Local states numbered as they are asked about.
struct Local<S> {
    ids: FxHashMap<S, usize>,
    states: Vec<S>,
}

impl<S, N> TurnSolution<S, N>
where
    S: Clone + Eq + std::hash::Hash + Send + Sync,
    N: Number,
{
    pub(crate) fn new(kept: Kept<S, N>, limit: usize) -> Self {
        TurnSolution {
            kept,
            limit,
            local: Mutex::new(Local {
                ids: FxHashMap::default(),
                states: Vec::new(),
            }),
            cache: Mutex::new(None),
        }
    }

    /// The value of the start.
    pub(crate) fn start_value(&self) -> &N {
        &self.kept.values[0]
    }

    /// The figures of the solve.
    pub(crate) fn stats(&self) -> &Stats {
        &self.kept.stats
    }

    /// The states numbered so far: every kept state, and the local ones asked about.
    pub(crate) fn len(&self) -> usize {
        self.kept.states.len() + self.lock_local().states.len()
    }

    fn lock_local(&self) -> std::sync::MutexGuard<'_, Local<S>> {
        self.local.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state numbered `id`, if any.
    pub(crate) fn state_at(&self, id: usize) -> Option<S> {
        let kept = self.kept.states.len();
        if id < kept {
            return Some(self.kept.states.get(id).clone());
        }
        self.lock_local().states.get(id - kept).cloned()
    }

    /// The number of a kept state.
    fn kept_id<M: Model<State = S>>(&self, model: &M, state: &S) -> Option<usize> {
        self.kept.states.find(model, state)
    }

    /// The number of `state`, numbering it if it is local and new (the caller knows it is in
    /// a turn); fails only where the numbering outgrows the memory.
    pub(crate) fn number<M: Model<State = S>>(
        &self,
        model: &M,
        state: &S,
    ) -> Result<usize, SolveError> {
        if model.turn_of(state).is_none() {
            return self
                .kept_id(model, state)
                .ok_or_else(|| SolveError::UnknownState {
                    state: model.show_state(state),
                });
        }
        let kept = self.kept.states.len();
        let mut local = self.lock_local();
        if let Some(&i) = local.ids.get(state) {
            return Ok(kept + i);
        }
        let i = local.states.len();
        if i % (1 << 16) == 0 {
            memory::check(kept + i)?;
        }
        local.states.push(state.clone());
        local.ids.insert(state.clone(), i);
        Ok(kept + i)
    }

    /// The set of turns that `state` belongs to: the set of its kept state.
    fn set_of<M: Model<State = S>>(&self, model: &M, state: &S) -> Result<u32, SolveError> {
        let start = model.turn_of(state).unwrap_or_else(|| state.clone());
        let k = self
            .kept_id(model, &start)
            .ok_or_else(|| SolveError::UnknownState {
                state: model.show_state(state),
            })?;
        Ok(self.kept.set[k])
    }

    /// The turns of set `s`, solved again (or kept from the last call).
    fn turn<M>(&self, model: &M, s: u32) -> Result<Arc<Solution<S, N>>, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, solution)) = &*cache {
            if *at == s {
                return Ok(Arc::clone(solution));
            }
        }
        let members = &self.kept.members[s as usize];
        let turn = turns::solve_turn(
            model,
            &self.kept.states,
            &self.kept.set,
            &self.kept.values,
            s as usize,
            members[0],
            members.len() == 1,
            self.limit,
            None,
        )?;
        let solution = Arc::new(Solution::new(
            turn.states,
            turn.values,
            turn.choices,
            turn.component,
            turn.stats,
        ));
        *cache = Some((s, Arc::clone(&solution)));
        Ok(solution)
    }

    /// The solved turn that holds `state`, which must be reachable in it.
    pub(crate) fn turn_of<M>(&self, model: &M, state: &S) -> Result<Arc<Solution<S, N>>, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        let turn = self.turn(model, self.set_of(model, state)?)?;
        if turn.number_of(model, state).is_none() {
            return Err(SolveError::UnknownState {
                state: model.show_state(state),
            });
        }
        Ok(turn)
    }

    /// The number of a state given in the game's notation, checked to be reachable.
    pub(crate) fn find<M>(&self, model: &M, state: &S) -> Result<usize, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        if model.turn_of(state).is_some() {
            self.turn_of(model, state)?;
        }
        self.number(model, state)
    }

    /// [`Solution::explain`] of a state of any turn.
    pub(crate) fn explain<M>(&self, model: &M, state: &S) -> Result<StateExplanation<N>, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        self.turn_of(model, state)?.explain(model, state)
    }

    /// The move the strategy plays at the decision `state`.
    pub(crate) fn chosen<M>(&self, model: &M, state: &S) -> Result<usize, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        Ok(self.turn_of(model, state)?.chosen(state).unwrap_or(0))
    }

    /// The strategy's rows, turn by turn in the order the kept states were found.
    pub(crate) fn strategy_rows<'a, M>(
        &'a self,
        model: &'a M,
    ) -> impl Iterator<Item = Result<StrategyRow<N>, SolveError>> + 'a
    where
        M: Model<State = S> + Sync,
    {
        let mut done = FxHashSet::default();
        (0..self.kept.states.len()).flat_map(move |k| {
            let s = self.kept.set[k];
            let rows: Vec<Result<StrategyRow<N>, SolveError>> = if done.insert(s) {
                self.rows_of_set(model, s)
            } else {
                Vec::new()
            };
            rows
        })
    }

    /// The strategy's rows for the states of the turns of set `s`.
    fn rows_of_set<M>(&self, model: &M, s: u32) -> Vec<Result<StrategyRow<N>, SolveError>>
    where
        M: Model<State = S> + Sync,
    {
        let turn = match self.turn(model, s) {
            Ok(t) => t,
            Err(e) => return vec![Err(e)],
        };
        let mine = |state: &S| match model.turn_of(state) {
            Some(_) => true,
            None => self
                .kept_id(model, state)
                .is_some_and(|k| self.kept.set[k] == s),
        };
        turn.strategy_rows(model)
            .filter(|r| r.as_ref().map_or(true, |r| mine(turn.state_at(r.id))))
            .map(|r| {
                let mut r = r?;
                r.id = self.number(model, turn.state_at(r.id))?;
                Ok(r)
            })
            .collect()
    }

    /// The distribution of the total from state number `from` under the strategy: the flow
    /// of [`crate::distribution`] over the kept states, each step the way the turn of a kept
    /// state leads (under the strategy) to the kept states after it, with the reward earned
    /// on the way. From a local state, the play first finishes its turn.
    pub(crate) fn distribution<M>(
        &self,
        model: &M,
        from: usize,
        options: &DistributionOptions,
    ) -> Result<Distribution<N>, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        let from_state = self
            .state_at(from)
            .ok_or_else(|| SolveError::UnknownState {
                state: format!("number {from}"),
            })?;
        let kept = self.kept.states.len();
        let mut node = Node::new();
        // A kept state alone in its set may be terminal (the end of the game); a set of
        // several never is.
        let mut terminal = vec![false; kept];
        for g in &self.kept.members {
            if let [k] = g[..] {
                node.clear();
                model.expand(self.kept.states.get(k as usize), &mut node);
                terminal[k as usize] = node.kind() == NodeKind::Terminal;
            }
        }
        // Sets in topological order from the start: the reverse of the order solved.
        let live: Vec<&[u32]> = self
            .kept
            .members
            .iter()
            .rev()
            .map(Vec::as_slice)
            .filter(|g| !terminal[g[0] as usize])
            .collect();
        let cyclic = live.iter().filter(|g| g.len() > 1).count();
        let in_group = |id: u32| (id as usize) < kept && !terminal[id as usize];
        let step = |id: u32| -> Result<Step<N>, SolveError> {
            let id = id as usize;
            let state = self
                .state_at(id)
                .expect("the flow only reaches numbered states");
            if id >= kept || terminal[id] {
                let mut node = Node::new();
                model.expand(&state, &mut node);
                return Ok(Step::End(node.payoff()));
            }
            self.exits(model, &state)
        };
        let start = if from < kept {
            vec![(from as u32, N::one(), crate::Rat::ZERO)]
        } else {
            match self.exits(model, &from_state)? {
                Step::Go(exits) => exits,
                Step::End(_) => unreachable!("exits are listed"),
            }
        };
        distribution::flow(&live, in_group, step, &start, cyclic, options)
    }

    /// Where the rest of the turn from `from` (a kept state, or a local one) leads under the
    /// strategy: every kept state it reaches (or terminal local state, numbered), with the
    /// reward on the way and its probability. The turn's local states are taken in a
    /// topological order of the moves the strategy plays; a cycle among them is refused.
    fn exits<M>(&self, model: &M, from: &S) -> Result<Step<N>, SolveError>
    where
        M: Model<State = S> + Sync,
    {
        let start = model.turn_of(from).unwrap_or_else(|| from.clone());
        let turn = self.turn_of(model, from)?;
        let root = turn
            .number_of(model, &start)
            .expect("a turn holds its start") as u32;
        let begin = turn.number_of(model, from).expect("checked by turn_of") as u32;
        let mut node = Node::new();
        // Depth first from `from` through local states under the strategy: the states in
        // post-order, each with its branches.
        let mut steps: FxHashMap<u32, Vec<(u32, N, crate::Rat)>> = FxHashMap::default();
        let mut post = Vec::new();
        let mut on_path = FxHashSet::default();
        let mut frames: Vec<(u32, usize)> = vec![(begin, 0)];
        let inside = |i: u32| i == root || model.turn_of(turn.state_at(i as usize)).is_some();
        while let Some(&mut (at, ref mut next)) = frames.last_mut() {
            if *next == 0 && !steps.contains_key(&at) {
                on_path.insert(at);
                let branches = match turn.step(model, at, &mut node)? {
                    Step::Go(b) => b,
                    Step::End(_) => Vec::new(),
                };
                steps.insert(at, branches);
            }
            let branches = &steps[&at];
            if *next < branches.len() {
                let to = branches[*next].0;
                *next += 1;
                if to == root || !inside(to) {
                    continue;
                }
                if on_path.contains(&to) {
                    return Err(SolveError::Unsupported(format!(
                        "the distribution of a game with turn-local states needs turns without \
                         cycles inside, and the turn of {} has one through {}",
                        model.show_state(&start),
                        model.show_state(turn.state_at(to as usize))
                    )));
                }
                if !steps.contains_key(&to) {
                    frames.push((to, 0));
                }
                continue;
            }
            on_path.remove(&at);
            post.push(at);
            frames.pop();
        }
        let mut pending: FxHashMap<u32, Masses<N>> = FxHashMap::default();
        pending.insert(begin, Masses::start());
        let mut out: FxHashMap<u32, Masses<N>> = FxHashMap::default();
        for &at in post.iter().rev() {
            let Some(masses) = pending.remove(&at) else {
                continue;
            };
            let branches = &steps[&at];
            if branches.is_empty() {
                // A terminal local state: an exit of its own.
                out.entry(at).or_default().add_shifted(
                    &masses.entries(),
                    crate::Rat::ZERO,
                    None,
                )?;
                continue;
            }
            let masses = masses.entries();
            for (to, p, reward) in branches {
                let target = if *to == root || !inside(*to) {
                    out.entry(*to).or_default()
                } else {
                    pending.entry(*to).or_default()
                };
                target.add_shifted(&masses, *reward, Some(p))?;
            }
        }
        let mut exits: Vec<(u32, Masses<N>)> = out.into_iter().collect();
        exits.sort_unstable_by_key(|(i, _)| *i);
        let mut go = Vec::new();
        for (i, masses) in exits {
            let id = self.number(model, turn.state_at(i as usize))? as u32;
            for (total, p) in masses.entries().into_list() {
                go.push((id, p, total));
            }
        }
        Ok(Step::Go(go))
    }
}
