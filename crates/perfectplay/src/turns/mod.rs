//! Turn-local states ([`Model::turn_of`]): values stored for the kept states only.
//!
//! # Method
//! 1. **The kept graph.** From the start, each kept state's turn is scanned (its local states
//!    expanded in scratch storage, depth first) for the kept states it leads to; those are
//!    interned and scanned in turn, a wave of up to [`WAVE`] at a time on every thread, and
//!    merged in the order of the wave, so that the numbering is that of one thread. The scan
//!    also checks the rules of the hook: every local state met must belong to the turn
//!    scanned.
//! 2. **Order.** Tarjan's algorithm on the kept graph gives its strongly connected sets of
//!    kept states (usually single states: Yahtzee's turns fill a box each) in reverse
//!    topological order; each set's *level* is one more than the highest level it leads to.
//! 3. **Solve.** Level by level, every set of a level is solved on its own by the engine of
//!    [`crate::explore`], started at one of its kept states and stopped at every kept state
//!    outside the set, whose value is final ([`Engine::within`]): the turns of a set are one
//!    exploration, its cycles solved as every cycle is, and everything but the values of its
//!    kept states is dropped afterwards. The sets of a level do not depend on each other; they
//!    are solved on every thread, each by itself, so the bits do not depend on the threads.
//!
//! Turns alike ([`Model::turn_shape`]) are scanned and solved on a template of their shape
//! ([`shape`]) instead of being explored: a set of one kept state whose turn has a template
//! expands only the states that leave the turn, and a float solve of it may run in plain
//! floats with one bound for the turn ([`fast`]).
//!
//! Every turn is expanded twice (scanned, then solved), the price of storing no local state.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::explore::Engine;
use crate::memory;
use crate::model::{Model, Node, NodeKind};
use crate::report::{Method, Progress, Stats, Watch};
use crate::states::{InternError, StateSet};
use crate::{Number, SolveError};

mod exact;
mod fast;
mod shape;

use shape::Shapes;

/// Kept states scanned between two merges (and progress reports).
const WAVE: usize = 1 << 14;

/// Sets of kept states solved between two progress reports.
const BATCH: usize = 1 << 12;

/// What a solve over turns leaves: the kept states with their values, and how they group.
pub(crate) struct Kept<S, N> {
    /// The kept states, numbered in the order found; the start is `0`.
    pub states: StateSet<S>,
    /// The value of every kept state.
    pub values: Vec<N>,
    /// The strongly connected set of every kept state, numbered in the order solved.
    pub set: Vec<u32>,
    /// The members of each set, the first being where its exploration starts.
    pub members: Vec<Vec<u32>>,
    /// Counts, time and method.
    pub stats: Stats,
}

/// The kept graph: states, and the kept successors of each in compressed rows.
struct Graph<S> {
    states: StateSet<S>,
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl<S> Graph<S> {
    fn successors(&self, k: usize) -> &[u32] {
        &self.targets[self.offsets[k]..self.offsets[k + 1]]
    }
}

/// The scratch of scanning one turn.
struct Scan<M: Model> {
    node: Node<M::State, M::Move>,
    seen: Seen<M::State>,
    stack: Vec<M::State>,
    /// The kept states met.
    kept: FxHashSet<M::State>,
}

impl<M: Model> Scan<M> {
    fn new(model: &M) -> Self {
        Scan {
            node: Node::new(),
            seen: Seen {
                // A numbering too large for the memory left: hashing, as without one.
                marks: match model.turn_bound() {
                    b if memory::affords((b as u64).saturating_mul(4)) => vec![0; b],
                    _ => Vec::new(),
                },
                turn: 0,
                others: FxHashSet::default(),
                count: 0,
            },
            stack: Vec::new(),
            kept: FxHashSet::default(),
        }
    }
}

/// The local states seen in one scan: marked by their turn numbers ([`Model::turn_index`])
/// with the scan's own mark (so that a new scan clears nothing), or hashed.
struct Seen<S> {
    marks: Vec<u32>,
    turn: u32,
    others: FxHashSet<S>,
    count: usize,
}

impl<S: Clone + Eq + std::hash::Hash> Seen<S> {
    fn clear(&mut self) {
        self.others.clear();
        self.count = 0;
        self.turn = self.turn.wrapping_add(1);
        if self.turn == 0 {
            self.marks.fill(0);
            self.turn = 1;
        }
    }

    /// Marks `s` (numbered `index` in its turn, if it is): whether it is new. A number out
    /// of range is left to hashing here; the solve reports it.
    fn insert(&mut self, s: &S, index: Option<usize>) -> bool {
        let fresh = match index.and_then(|i| self.marks.get_mut(i)) {
            Some(mark) if *mark == self.turn => false,
            Some(mark) => {
                *mark = self.turn;
                true
            }
            None => self.others.insert(s.clone()),
        };
        self.count += usize::from(fresh);
        fresh
    }
}

/// Solves `model` by its turns in `N` on up to `threads` threads, stopping beyond `limit`
/// kept states or `limit` states in one turn.
pub(crate) fn solve<M, N>(
    model: &M,
    limit: usize,
    mut watch: Watch<'_>,
    threads: usize,
) -> Result<Kept<M::State, N>, SolveError>
where
    M: Model + Sync,
    M::State: Send + Sync,
    N: Number,
{
    let started = Instant::now();
    let stop = watch.stop_flag();
    let start = model.start();
    if let Some(k) = model.turn_of(&start) {
        return Err(SolveError::InvalidModel {
            state: model.show_state(&start),
            reason: format!(
                "the start state must be kept, and Model::turn_of makes it local to {}",
                model.show_state(&k)
            ),
        });
    }
    let shapes = Shapes::<N>::new();
    let graph = explore_graph(
        model, &shapes, start, limit, &mut watch, stop, threads, started,
    )?;
    let (set, members, levels) = order(&graph);
    let kept = graph.states.len();
    let mut values = vec![N::zero(); kept];
    let mut stats = Stats {
        method: Method::Turns { kept, threads },
        ..Stats::default()
    };
    let mut done = 0;
    for level in levels {
        for batch in level.chunks(BATCH) {
            let scratch = || (shape::Scratch::new(), FxHashMap::default());
            let solved = parallel_with(batch.len(), threads, scratch, |(scratch, near), i| {
                let s = batch[i] as usize;
                let sets = Sets {
                    graph: &graph,
                    near,
                    set: &set,
                    values: &values,
                };
                solve_set::<M, N>(model, &shapes, scratch, sets, s, &members[s], limit, stop)
            });
            for (i, result) in solved.into_iter().enumerate() {
                let (vals, turn) = result?;
                for (&k, v) in members[batch[i] as usize].iter().zip(vals) {
                    values[k as usize] = v;
                }
                stats.states += turn.states;
                stats.cyclic_components += turn.cyclic_components;
                stats.largest_component = stats.largest_component.max(turn.largest_component);
                stats.error_bound += turn.error_bound;
                stats.iterated += turn.iterated;
                stats.components += turn.components;
            }
            done += batch.len();
            watch.report(&Progress {
                states: kept,
                components: done,
                seconds: started.elapsed().as_secs_f64(),
                primes: 0,
            })?;
        }
    }
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(Kept {
        states: graph.states,
        values,
        set,
        members,
        stats,
    })
}

/// Finds the kept states from `start` and the kept successors of each.
#[allow(clippy::too_many_arguments)]
fn explore_graph<M, N>(
    model: &M,
    shapes: &Shapes<N>,
    start: M::State,
    limit: usize,
    watch: &mut Watch<'_>,
    stop: Option<&AtomicBool>,
    threads: usize,
    started: Instant,
) -> Result<Graph<M::State>, SolveError>
where
    M: Model + Sync,
    M::State: Send + Sync,
    N: Number,
{
    let mut states = StateSet::for_model(model, 1024);
    intern(model, &mut states, &start, limit)?;
    let mut offsets = vec![0];
    let mut targets: Vec<u32> = Vec::new();
    let mut done = 0;
    while done < states.len() {
        let end = states.len().min(done + WAVE);
        let wave: Vec<M::State> = (done..end).map(|i| states.get(i).clone()).collect();
        let found = parallel_with(
            wave.len(),
            threads,
            || (Scan::new(model), shape::Scratch::new()),
            |(scan, scratch), i| {
                if stop.is_some_and(|f| f.load(Ordering::Relaxed)) {
                    return Err(SolveError::Interrupted { states: 0 });
                }
                match shapes.of(model, &wave[i], limit)? {
                    Some(t) => t.scan(model, &wave[i], scratch, &mut scan.kept),
                    None => scan_turn(model, &wave[i], limit, scan),
                }
            },
        );
        for successors in found {
            let first = targets.len();
            for s in successors? {
                targets.push(intern(model, &mut states, &s, limit)?);
            }
            targets[first..].sort_unstable();
            let mut kept = first;
            for i in first..targets.len() {
                if i == first || targets[i] != targets[kept - 1] {
                    targets[kept] = targets[i];
                    kept += 1;
                }
            }
            targets.truncate(kept);
            offsets.push(targets.len());
        }
        done = end;
        memory::check(states.len())?;
        watch.report(&Progress {
            states: states.len(),
            components: 0,
            seconds: started.elapsed().as_secs_f64(),
            primes: 0,
        })?;
    }
    Ok(Graph {
        states,
        offsets,
        targets,
    })
}

/// `f` of every index below `n` on up to `threads` threads (the calling thread among them),
/// each thread with a scratch of its own made by `scratch`; the results in the order of the
/// indices.
fn parallel_with<T: Send, W>(
    n: usize,
    threads: usize,
    scratch: impl Fn() -> W + Sync,
    f: impl Fn(&mut W, usize) -> T + Sync,
) -> Vec<T> {
    if threads <= 1 || n <= 1 {
        let mut w = scratch();
        return (0..n).map(|i| f(&mut w, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    // Small pieces keep the threads busy to the end; one item each would cost a lock apiece.
    let piece = (n / (threads * 8)).max(1);
    let work = || {
        let mut w = scratch();
        loop {
            let from = next.fetch_add(piece, Ordering::Relaxed);
            if from >= n {
                break;
            }
            let to = (from + piece).min(n);
            let results: Vec<T> = (from..to).map(|i| f(&mut w, i)).collect();
            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
            for (i, r) in (from..to).zip(results) {
                out[i] = Some(r);
            }
        }
    };
    // The calling thread works too: every index is run even where no thread can be started.
    memory::on_threads(vec![&work; threads.min(n)]);
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every index was run"))
        .collect()
}

/// Interns a kept state.
fn intern<M: Model>(
    model: &M,
    states: &mut StateSet<M::State>,
    s: &M::State,
    limit: usize,
) -> Result<u32, SolveError> {
    match states.insert(model, s) {
        Ok((id, fresh)) => {
            if fresh && (id >= limit || id >= u32::MAX as usize) {
                return Err(SolveError::StateLimit {
                    explored: id + 1,
                    limit,
                    components: 0,
                });
            }
            Ok(id as u32)
        }
        Err(e) => Err(SolveError::InvalidModel {
            state: model.show_state(s),
            reason: match e {
                InternError::OutOfRange(i) => format!(
                    "dense_index gave {i:?}, not a number below dense_bound ({})",
                    model.dense_bound()
                ),
                InternError::Collision(j) => format!(
                    "dense_index gives it the same number as state {}",
                    model.show_state(states.get(j as usize))
                ),
                InternError::OutOfTurnRange(_) => unreachable!("kept states are not turn-numbered"),
            },
        }),
    }
}

/// The kept states that the turn of `k` leads to, checking that every local
/// state it meets is local to `k`.
fn scan_turn<M: Model>(
    model: &M,
    k: &M::State,
    limit: usize,
    scan: &mut Scan<M>,
) -> Result<Vec<M::State>, SolveError> {
    let Scan {
        node,
        seen,
        stack,
        kept,
    } = scan;
    seen.clear();
    stack.clear();
    kept.clear();
    // Each kept state once, in the order first met (a turn names its next turns many times).
    let mut out = Vec::new();
    let mut at = k.clone();
    loop {
        node.clear();
        model.expand(&at, node);
        node.validate().map_err(|reason| SolveError::InvalidModel {
            state: model.show_state(&at),
            reason,
        })?;
        if node.kind() != NodeKind::Terminal {
            for b in node.branches() {
                match model.turn_of(&b.next) {
                    None => {
                        if kept.insert(b.next.clone()) {
                            out.push(b.next.clone());
                        }
                    }
                    Some(t) if t == *k => {
                        if seen.insert(&b.next, model.turn_index(&b.next)) {
                            stack.push(b.next.clone());
                            if seen.count >= limit {
                                return Err(SolveError::StateLimit {
                                    explored: seen.count,
                                    limit,
                                    components: 0,
                                });
                            }
                            if seen.count % (1 << 16) == 0 {
                                memory::check(seen.count)?;
                            }
                        }
                    }
                    Some(t) => {
                        return Err(SolveError::InvalidModel {
                            state: model.show_state(&b.next),
                            reason: format!(
                                "Model::turn_of makes it local to {}, but the turn of {} reaches it (from {})",
                                model.show_state(&t),
                                model.show_state(k),
                                model.show_state(&at)
                            ),
                        })
                    }
                }
            }
        }
        match stack.pop() {
            Some(next) => at = next,
            None => break,
        }
    }
    Ok(out)
}

/// The strongly connected sets of the kept graph in reverse topological order (Tarjan's
/// algorithm without recursion): each kept state's set, each set's members (the first is the
/// state that closed it), and the sets by level.
fn order<S: Clone + Eq + std::hash::Hash>(
    graph: &Graph<S>,
) -> (Vec<u32>, Vec<Vec<u32>>, Vec<Vec<u32>>) {
    const UNSEEN: u32 = u32::MAX;
    let n = graph.states.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut set = vec![UNSEEN; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut level: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        frames.push((root, 0));
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut next)) = frames.last_mut() {
            let succ = graph.successors(v as usize);
            if *next < succ.len() {
                let w = succ[*next];
                *next += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    frames.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let number = members.len() as u32;
                let mut these = Vec::new();
                loop {
                    let w = stack.pop().expect("the root is on the stack");
                    on_stack[w as usize] = false;
                    set[w as usize] = number;
                    these.push(w);
                    if w == v {
                        break;
                    }
                }
                these.reverse();
                // Every set it leads to was closed before it.
                let mut l = 0;
                for &m in &these {
                    for &w in graph.successors(m as usize) {
                        let s = set[w as usize];
                        if s != number {
                            l = l.max(level[s as usize] + 1);
                        }
                    }
                }
                level.push(l);
                members.push(these);
            }
        }
    }
    let top = level.iter().copied().max().unwrap_or(0) as usize;
    let mut levels = vec![Vec::new(); top + 1];
    for (s, &l) in level.iter().enumerate() {
        levels[l as usize].push(s as u32);
    }
    (set, members, levels)
}

/// The figures of one set's exploration that add up into the solve's.
struct TurnStats {
    states: usize,
    components: usize,
    cyclic_components: usize,
    largest_component: usize,
    error_bound: f64,
    iterated: usize,
}

/// The kept states with their sets, and the values of the sets solved so far.
struct Sets<'a, S, N> {
    graph: &'a Graph<S>,
    /// Scratch: the values of the kept states that the turn solved leads to.
    near: &'a mut FxHashMap<S, N>,
    set: &'a [u32],
    values: &'a [N],
}

/// Solves the set `s` of kept states (`members`, every set it leads to solved in `values`):
/// the values of its members, in order. A set of one kept state whose turn has a template
/// ([`Model::turn_shape`]) is solved on it.
#[allow(clippy::too_many_arguments)]
fn solve_set<M, N>(
    model: &M,
    shapes: &Shapes<N>,
    scratch: &mut shape::Scratch<M, N>,
    sets: Sets<'_, M::State, N>,
    s: usize,
    members: &[u32],
    limit: usize,
    stop: Option<&AtomicBool>,
) -> Result<(Vec<N>, TurnStats), SolveError>
where
    M: Model + Sync,
    M::State: Send + Sync,
    N: Number,
{
    if stop.is_some_and(|f| f.load(Ordering::Relaxed)) {
        return Err(SolveError::Interrupted { states: 0 });
    }
    let Sets {
        graph,
        near,
        set,
        values,
    } = sets;
    let kept = &graph.states;
    let one = members.len() == 1;
    let root = kept.get(members[0] as usize);
    if let (true, Some(t)) = (one, shapes.of(model, root, limit)?) {
        // The turn's exits are looked up among the few kept states it leads to, not all.
        near.clear();
        for &k in graph.successors(members[0] as usize) {
            if set[k as usize] as usize != s {
                near.insert(kept.get(k as usize).clone(), values[k as usize].clone());
            }
        }
        let value_of = |state: &M::State| match near.get(state) {
            Some(v) => Ok(Some(v.clone())),
            None => match kept.find(model, state) {
                Some(k) if set[k] as usize == s => Ok(None),
                Some(k) => Ok(Some(values[k].clone())),
                None => Err(unscanned(model, state)),
            },
        };
        if let Some(v) = t.solve(model, root, scratch, value_of)? {
            let stats = TurnStats {
                states: t.len(),
                components: t.inner(),
                cyclic_components: 0,
                largest_component: 0,
                error_bound: 0.0,
                iterated: 0,
            };
            return Ok((vec![v], stats));
        }
    }
    let explored = solve_turn(model, kept, set, values, s, members[0], one, limit, stop)?;
    let vals = members
        .iter()
        .map(|&k| {
            let i = explored
                .states
                .get_index_of(kept.get(k as usize))
                .expect("every member of a set is reached from its first");
            explored.values[i].clone()
        })
        .collect();
    let st = &explored.stats;
    let bounds = explored.boundary;
    Ok((
        vals,
        TurnStats {
            states: st.states - bounds,
            components: st.components,
            cyclic_components: st.cyclic_components,
            largest_component: st.largest_component,
            error_bound: st.error_bound,
            iterated: st.iterated,
        },
    ))
}

/// One exploration of a set's turns, from its kept state `root`: every state of the turns with
/// its value and chosen move, and the kept states outside the set that it reached (final, with
/// their values).
pub(crate) struct Turn<S, N> {
    /// The states explored, the root first.
    pub states: StateSet<S>,
    /// Their values.
    pub values: Vec<N>,
    /// Their chosen moves.
    pub choices: Vec<u32>,
    /// Their components (as [`crate::explore`] numbers them).
    pub component: Vec<u32>,
    /// The exploration's figures.
    pub stats: Stats,
    /// How many of the states are kept states of other sets.
    pub boundary: usize,
}

/// Explores and solves the turns of the set `s` from its kept state `root` (its only kept
/// state where `one_turn`), with the values of the other sets' kept states from `values`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_turn<M, N>(
    model: &M,
    kept: &StateSet<M::State>,
    set: &[u32],
    values: &[N],
    s: usize,
    root: u32,
    one_turn: bool,
    limit: usize,
    stop: Option<&AtomicBool>,
) -> Result<Turn<M::State, N>, SolveError>
where
    M: Model + Sync,
    M::State: Send + Sync,
    N: Number,
{
    let hits = AtomicUsize::new(0);
    let boundary = |state: &M::State| -> Result<Option<N>, SolveError> {
        if model.turn_of(state).is_some() {
            return Ok(None);
        }
        let Some(k) = kept.find(model, state) else {
            return Err(unscanned(model, state));
        };
        if set[k] as usize == s {
            return Ok(None);
        }
        hits.fetch_add(1, Ordering::Relaxed);
        Ok(Some(values[k].clone()))
    };
    let engine = Engine::<M, N, ()>::within(
        model,
        limit,
        Watch::new(None, stop),
        (),
        kept.get(root as usize).clone(),
        &boundary,
        one_turn,
    );
    let explored = engine.run()?.0;
    Ok(Turn {
        states: explored.states,
        values: explored.values,
        choices: explored.choices,
        component: explored.component,
        stats: explored.stats,
        boundary: hits.load(Ordering::Relaxed),
    })
}

/// A kept state that a turn reaches when solved but not when scanned.
fn unscanned<M: Model>(model: &M, state: &M::State) -> SolveError {
    SolveError::InvalidModel {
        state: model.show_state(state),
        reason: "a turn reaches this kept state when solved but not when scanned: expand must \
                 be a pure function of the state"
            .to_string(),
    }
}
