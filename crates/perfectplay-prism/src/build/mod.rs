//! Building the state space: every state reachable from the initial ones, each with its
//! choices (an unlabelled command, or one enabled command of every module that synchronises on
//! an action) and each choice's distribution over next states. States are packed into words
//! by the variables' ranges ([`crate::build::packed`]) and numbered as found: breadth first,
//! a wave of states expanded on every core (the commands evaluated, the products of
//! synchronised distributions taken) and then numbered on one thread in the wave's order, so
//! that the numbers, the choices and the first error met are those of one thread.
//!
//! Nothing is normalised or guessed: a probability outside [0, 1], a command whose
//! probabilities do not sum to exactly one, an update that leaves a variable's range, and two
//! modules that set one variable in a synchronised step are errors that name the command and
//! the state. A state without an enabled command (a deadlock) gets a self-loop, as in PRISM and
//! Storm.

mod error;
mod expand;
pub(crate) mod index;
pub(crate) mod init;
pub(crate) mod lazy;
pub mod packed;

use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::ops::ControlFlow;

use crate::build::expand::{expand_wave, Ctx, Expanded, Scratch};
use crate::build::packed::{pack, Packed, Word};
use crate::program::{CExpr, Program};
use perfectplay::Rat;

pub use crate::build::error::{BuildError, CommandProblem, InitProblem, StateProblem};

/// A choice of a state: its action and its outcomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The action's number, [`NO_ACTION`] for an unlabelled command (half a word, not an
    /// `Option<usize>`: models have millions of choices).
    action: u16,
    /// The module of an unlabelled command (for smg ownership), or the first module of a
    /// synchronised one.
    module: u16,
    /// The first of its outcomes in [`Space::outcomes`].
    pub first: u32,
}

/// The action of a choice made by an unlabelled command.
const NO_ACTION: u16 = u16::MAX;

/// The action of the self-loop added where no command is enabled: no command's, so no
/// transition reward's either (as in PRISM and Storm).
const ADDED_LOOP: u16 = u16::MAX - 1;

impl Choice {
    /// A choice of `action` (`None`: unlabelled) by `module`, its outcomes from `first` on.
    fn new(action: Option<usize>, module: usize, first: usize) -> Choice {
        Choice {
            action: action.map_or(NO_ACTION, |a| a as u16),
            module: module as u16,
            first: first as u32,
        }
    }

    /// The self-loop of a state where no command is enabled (or that was left unexpanded).
    fn added_loop(first: usize) -> Choice {
        Choice {
            action: ADDED_LOOP,
            module: 0,
            first: first as u32,
        }
    }

    /// The same choice with its outcomes from `first` on (in another space, such as a product
    /// of this one with a counter).
    pub(crate) fn moved_to(&self, first: usize) -> Choice {
        Choice {
            first: first as u32,
            ..*self
        }
    }

    /// The self-loop of a state of a product space whose value is decided there.
    pub(crate) fn decided_loop(first: usize) -> Choice {
        Choice::added_loop(first)
    }

    /// The action's number, `None` for an unlabelled command or an added self-loop.
    pub fn action(&self) -> Option<usize> {
        (self.action < ADDED_LOOP).then_some(self.action as usize)
    }

    /// Whether this is the self-loop added where no command is enabled: no command made it,
    /// and it earns no transition reward.
    pub fn is_added_loop(&self) -> bool {
        self.action == ADDED_LOOP
    }

    /// The module of an unlabelled command, or the first module of a synchronised one.
    pub fn module(&self) -> usize {
        self.module as usize
    }
}

/// The number of `r` among the distinct fractions `values` (which `numbered` indexes), adding
/// it if it is new: millions of probabilities or rewards are then a word each.
pub(crate) fn number_of(numbered: &mut FxHashMap<Rat, u32>, values: &mut Vec<Rat>, r: Rat) -> u32 {
    *numbered.entry(r).or_insert_with(|| {
        values.push(r);
        values.len() as u32 - 1
    })
}

/// The reachable state space.
#[derive(Clone, Debug, Default)]
pub struct Space {
    /// Each variable's bit offset and width in a packed state.
    pub layout: Vec<(u32, u32)>,
    /// The packed states, by number.
    pub states: Packed,
    /// The initial states' numbers.
    pub initial: Vec<u32>,
    /// `choices[choice_start[s]..choice_start[s + 1]]` are state `s`'s choices.
    pub choice_start: Vec<u32>,
    /// Every choice; a choice's outcomes run to the next choice's `first`.
    pub choices: Vec<Choice>,
    /// Every outcome: its probability's number in [`Space::probabilities`] and the next state
    /// (two words: models have millions of outcomes and few distinct probabilities).
    pub outcomes: Vec<(u32, u32)>,
    /// The distinct probabilities of the outcomes.
    pub probabilities: Vec<Rat>,
    /// States that had no enabled command (they got a self-loop).
    pub deadlocks: usize,
    /// States left unexpanded because the build's stop condition held there (each got a
    /// self-loop): see [`build_until`].
    pub stopped: usize,
}

impl Space {
    /// Gives back the room its tables reserved as they grew (up to half of each): the space
    /// lives through every analysis after it.
    fn shrink_to_fit(&mut self) {
        self.states.shrink_to_fit();
        self.choice_start.shrink_to_fit();
        self.choices.shrink_to_fit();
        self.outcomes.shrink_to_fit();
        self.probabilities.shrink_to_fit();
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether there are no states.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The choices of state `s`, as indices into [`Space::choices`].
    pub fn choices_of(&self, s: u32) -> std::ops::Range<usize> {
        self.choice_start[s as usize] as usize..self.choice_start[s as usize + 1] as usize
    }

    /// The probability numbered `p` (the first of an outcome).
    pub fn probability(&self, p: u32) -> Rat {
        self.probabilities[p as usize]
    }

    /// The outcomes of choice `c`: `(probability number, next state)`.
    pub fn outcomes_of(&self, c: usize) -> &[(u32, u32)] {
        let end = self
            .choices
            .get(c + 1)
            .map_or(self.outcomes.len(), |n| n.first as usize);
        &self.outcomes[self.choices[c].first as usize..end]
    }

    /// The variables' values of state `s`, into `out`.
    pub fn unpack(&self, program: &Program, s: u32, out: &mut Vec<i64>) {
        self.states.unpack(&self.layout, program, s as usize, out);
    }

    /// State `s` as PRISM prints it: `(x=1,b=true)`.
    pub fn show(&self, program: &Program, s: u32) -> String {
        let mut vals = Vec::new();
        self.unpack(program, s, &mut vals);
        show_values(program, &vals)
    }

    /// The number of the state written as PRISM prints one, `(x=1,b=true)` (every variable
    /// once, in any order; the parentheses may be left out).
    pub fn parse_state(&self, program: &Program, text: &str) -> Result<u32, String> {
        let inner = text.trim();
        let inner = inner
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(inner);
        let mut vals: Vec<Option<i64>> = vec![None; program.vars.len()];
        for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}' is not NAME=VALUE"))?;
            let (name, value) = (name.trim(), value.trim());
            let i = program
                .vars
                .iter()
                .position(|v| v.name == name)
                .ok_or_else(|| format!("no variable '{name}'"))?;
            let v = &program.vars[i];
            let x = match (v.is_bool, value) {
                (true, "true") => 1,
                (true, "false") => 0,
                (true, _) => return Err(format!("{name} is a boolean, not '{value}'")),
                (false, _) => value
                    .parse::<i64>()
                    .map_err(|_| format!("{name} is an integer, not '{value}'"))?,
            };
            if !(v.lo..=v.hi).contains(&x) {
                return Err(format!(
                    "{name}={x} is outside its range [{}..{}]",
                    v.lo, v.hi
                ));
            }
            if vals[i].replace(x).is_some() {
                return Err(format!("{name} is given twice"));
            }
        }
        let missing: Vec<&str> = program
            .vars
            .iter()
            .zip(&vals)
            .filter(|(_, x)| x.is_none())
            .map(|(v, _)| v.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(format!("no value for {}", missing.join(", ")));
        }
        let vals: Vec<i64> = vals.into_iter().flatten().collect();
        self.states
            .position(&self.layout, program, &vals)
            .map(|s| s as u32)
            .ok_or_else(|| format!("{} is not reachable", show_values(program, &vals)))
    }

    /// The transitions (outcomes).
    pub fn transitions(&self) -> usize {
        self.outcomes.len()
    }
}

/// Values as PRISM prints a state.
pub fn show_values(program: &Program, vals: &[i64]) -> String {
    let parts: Vec<String> = program
        .vars
        .iter()
        .zip(vals)
        .map(|(v, &x)| {
            if v.is_bool {
                format!("{}={}", v.name, x != 0)
            } else {
                format!("{}={x}", v.name)
            }
        })
        .collect();
    format!("({})", parts.join(","))
}

/// Builds the state space of `program`, stopping beyond `max_states` states.
pub fn build(program: &Program, max_states: usize) -> Result<Space, BuildError> {
    build_with_progress(program, max_states, &mut |_, _| ControlFlow::Continue(()))
}

/// How many states between two calls of the progress callback.
const PROGRESS_EVERY: usize = 1 << 16;

/// [`build`], calling `progress(expanded, found)` every 65,536 expanded states; where it
/// answers [`ControlFlow::Break`] (a Ctrl-C, say), the build stops with an error.
pub fn build_with_progress(
    program: &Program,
    max_states: usize,
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<Space, BuildError> {
    build_until(program, max_states, None, progress)
}

/// [`build_with_progress`], except that a state where `stop` holds is not expanded: it gets a
/// self-loop, as a deadlock does (and counts in [`Space::stopped`], not as a deadlock). A
/// property decides nothing after its target (the φ of `F φ`, the φ or ¬ψ of `ψ U φ`), so
/// building up to it answers the property on fewer states, as Storm's builder does.
pub fn build_until(
    program: &Program,
    max_states: usize,
    stop: Option<&CExpr>,
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<Space, BuildError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS);
    build_on(program, max_states, stop, progress, threads)
}

/// [`build_until`] on up to `threads` threads.
fn build_on(
    program: &Program,
    max_states: usize,
    stop: Option<&CExpr>,
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    threads: usize,
) -> Result<Space, BuildError> {
    let (layout, bits) = packed::layout(program);
    // A choice keeps its action and module in half a word each.
    // Actions are numbered below ADDED_LOOP.
    let most = ADDED_LOOP as usize;
    for (count, what) in [
        (program.actions.len(), "actions"),
        (program.modules.len(), "modules"),
    ] {
        if count > most {
            return Err(BuildError::TooMany { what, count, most });
        }
    }
    // The narrowest word that holds a state.
    let build = match bits {
        0..=64 => build_packed::<u64>,
        65..=128 => build_packed::<u128>,
        129..=256 => build_packed::<[u64; 4]>,
        257..=512 => build_packed::<[u64; 8]>,
        513..=packed::MAX_BITS => build_packed::<[u64; 16]>,
        _ => {
            return Err(BuildError::StateBits {
                bits,
                most: packed::MAX_BITS,
            })
        }
    };
    let mut space = build(program, layout, max_states, stop, progress, threads)?;
    space.shrink_to_fit();
    Ok(space)
}

/// [`build_until`] with states packed as `K`s by `layout`.
fn build_packed<K: Word + Send + Sync>(
    program: &Program,
    layout: Vec<(u32, u32)>,
    max_states: usize,
    stop: Option<&CExpr>,
    progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    threads: usize,
) -> Result<Space, BuildError> {
    let mut space = Space {
        layout,
        states: Packed::new(K::WORDS),
        ..Space::default()
    };
    // Each state's number.
    let mut index: FxHashMap<K, u32> = FxHashMap::default();
    // The probabilities' numbers.
    let mut numbered = FxHashMap::default();
    // Initial states.
    let init_vals: Vec<Vec<i64>> = match &program.init {
        None => vec![program.vars.iter().map(|v| v.init).collect()],
        Some(init) => crate::build::init::initial_valuations(program, init, max_states)?,
    };
    for vals in &init_vals {
        let p: K = pack(&space.layout, program, vals);
        let id = space.states.len() as u32;
        if *index.entry(p).or_insert(id) == id {
            space.states.push(&p);
            space.initial.push(id);
        }
    }
    let ctx = Ctx::new(Cow::Borrowed(program), space.layout.clone(), stop.cloned());
    let mut scratches: Vec<Scratch<K>> = (0..threads.max(1))
        .map(|_| Scratch::new(program.vars.len()))
        .collect();
    let mut expanded: Vec<(Expanded<K>, Option<BuildError>)> = Vec::new();
    let mut last_probability: Option<(Rat, u32)> = None;
    let mut s = 0usize;
    while s < space.states.len() {
        // A wave of states expanded on every thread, then numbered here in order: the
        // numbers are those of one thread.
        let end = space.states.len().min(s + WAVE);
        let wave: Vec<K> = (s..end).map(|i| K::load(space.states.get(i))).collect();
        expand_wave(&ctx, &wave, &mut scratches, &mut expanded);
        for (out, error) in expanded[..wave.len()].iter_mut() {
            if s % PROGRESS_EVERY == 0 && s > 0 {
                if progress(s, space.states.len()).is_break() {
                    return Err(BuildError::Interrupted { after: s });
                }
                // Stopped with an error before the machine (or the process's limit) runs out.
                perfectplay::memory::check(space.states.len()).map_err(BuildError::Memory)?;
            }
            if let Some(e) = error.take() {
                return Err(e);
            }
            space.choice_start.push(space.choices.len() as u32);
            if out.choices.is_empty() {
                if out.stopped {
                    space.stopped += 1;
                } else {
                    space.deadlocks += 1;
                }
                space.choices.push(Choice::added_loop(space.outcomes.len()));
                let one = number_of(&mut numbered, &mut space.probabilities, Rat::ONE);
                space.outcomes.push((one, s as u32));
                s += 1;
                continue;
            }
            for &(action, module, from, to) in &out.choices {
                space
                    .choices
                    .push(Choice::new(action, module, space.outcomes.len()));
                for &(p, packed) in &out.dist[from..to] {
                    let fresh = space.states.len() as u32;
                    let id = *index.entry(packed).or_insert(fresh);
                    if id == fresh {
                        if space.states.len() >= max_states {
                            return Err(BuildError::StateLimit {
                                limit: max_states,
                                initial: false,
                            });
                        }
                        space.states.push(&packed);
                    }
                    // The last probability's number, as outcomes repeat their probabilities.
                    if let Some((q, number)) = last_probability {
                        if q == p {
                            space.outcomes.push((number, id));
                            continue;
                        }
                    }
                    let number = number_of(&mut numbered, &mut space.probabilities, p);
                    last_probability = Some((p, number));
                    space.outcomes.push((number, id));
                }
            }
            s += 1;
        }
    }
    space.choice_start.push(space.choices.len() as u32);
    Ok(space)
}

/// States expanded between two merges into the space (and on every thread at once).
const WAVE: usize = 1 << 14;

/// The most threads a build uses.
const MAX_THREADS: usize = 8;

/// A model, checked and built.
pub struct Loaded {
    /// The checked model.
    pub program: Program,
    /// Its reachable states.
    pub space: Space,
    /// Seconds spent building (and, from `Loaded::new`, parsing and checking).
    pub build_seconds: f64,
    /// Where the build stopped (see `Loaded::for_properties`): the conditions of the
    /// properties it was built for, all of which hold in every unexpanded state; empty for a
    /// full build.
    pub(crate) decided: Vec<CExpr>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The space built on several threads is the one built on one: the same states in the
    /// same order, the same choices and outcomes, the same probabilities.
    #[test]
    fn threads_build_the_same_space() {
        for (file, constants) in [
            ("csma/csma.2-4.prism", vec![]),
            (
                "consensus/consensus.4.prism",
                vec![("K".to_string(), "2".to_string())],
            ),
        ] {
            let path = format!("{}/tests/qvbs/models/{file}", env!("CARGO_MANIFEST_DIR"));
            let src = std::fs::read_to_string(&path).unwrap();
            let ast = crate::syntax::parser::parse_model(&path, &src).unwrap();
            let program = Program::new(&path, &src, &ast, &constants).unwrap();
            let mut go = |_: usize, _: usize| ControlFlow::Continue(());
            let one = build_on(&program, usize::MAX, None, &mut go, 1).unwrap();
            assert!(
                one.len() > 4 * super::expand::PER_THREAD,
                "{file}: {}",
                one.len()
            );
            for threads in [2, 3] {
                let many = build_on(&program, usize::MAX, None, &mut go, threads).unwrap();
                assert_eq!(one.len(), many.len(), "{file}");
                for s in 0..one.len() as u32 {
                    assert_eq!(one.states.get(s as usize), many.states.get(s as usize));
                }
                assert_eq!(one.choice_start, many.choice_start, "{file}");
                assert_eq!(one.choices, many.choices, "{file}");
                assert_eq!(one.outcomes, many.outcomes, "{file}");
                assert_eq!(one.probabilities, many.probabilities, "{file}");
                assert_eq!(one.deadlocks, many.deadlocks, "{file}");
            }
        }
    }
}
