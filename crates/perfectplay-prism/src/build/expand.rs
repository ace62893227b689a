//! Expanding states for the build ([`super::build_packed`]): a state's enabled commands, the
//! products of synchronised distributions over packed next states, their probabilities as the
//! engine's fractions (exact, or rounded where they are computed in floating point), a
//! wave of states at a time on every thread, each thread with its own scratch.

use std::borrow::Cow;

use crate::build::index::Indexed;
use crate::build::packed::{self, unpack, Word};
use crate::build::{show_values, BuildError, CommandProblem, StateProblem};
use crate::program::fast::IntExpr;
use crate::program::value::{Value, Q};
use crate::program::{CExpr, EvalError, Program};
use perfectplay::Rat;

/// The fewest states of a wave worth a thread of their own.
pub(super) const PER_THREAD: usize = 1 << 10;

/// What the loop of `build_packed` compiled, shared by the threads that expand states.
pub(crate) struct Ctx<'a, K> {
    /// The program, borrowed by a build, owned by a model that expands states when asked
    /// ([`crate::build::lazy`]).
    pub(super) program: Cow<'a, Program>,
    pub(super) layout: Vec<(u32, u32)>,
    /// Per command: whether its probabilities are constants that sum to one.
    pub(super) constant_sum_is_one: Vec<bool>,
    /// Per command: whether its probabilities are computed in floating point.
    pub(super) floating: Vec<bool>,
    pub(super) guards: Vec<IntExpr>,
    pub(super) assigned: Vec<Vec<Vec<IntExpr>>>,
    pub(super) stop: Option<(CExpr, IntExpr)>,
    pub(super) writes: Vec<Vec<usize>>,
    pub(super) unlabelled: Vec<Indexed>,
    pub(super) by_action: Vec<Vec<Indexed>>,
    pub(super) _word: std::marker::PhantomData<K>,
}

/// A thread's scratch for expanding states.
pub(super) struct Scratch<K> {
    vals: Vec<i64>,
    branch: Vec<(Q, K, K)>,
    dist: Vec<(Rat, K)>,
    product: Vec<(Rat, K)>,
    float_dist: Vec<(f64, K)>,
    float_product: Vec<(f64, K)>,
    choices: Vec<(Option<usize>, usize, usize, usize)>,
    combos: Vec<usize>,
    on: Vec<usize>,
    on_start: Vec<usize>,
    pick: Vec<usize>,
    /// Per variable: the stamp of the last synchronised step that set it.
    written: Vec<u64>,
    stamp: u64,
}

impl<K> Scratch<K> {
    pub(super) fn new(vars: usize) -> Self {
        Scratch {
            vals: Vec::new(),
            branch: Vec::new(),
            dist: Vec::new(),
            product: Vec::new(),
            float_dist: Vec::new(),
            float_product: Vec::new(),
            choices: Vec::new(),
            combos: Vec::new(),
            on: Vec::new(),
            on_start: Vec::new(),
            pick: Vec::new(),
            written: vec![0; vars],
            stamp: 0,
        }
    }
}

/// What a state's commands make: its choices (action, module, and their outcomes
/// `dist[from..to]`), or none where it is a deadlock or where the build stops.
pub(crate) struct Expanded<K> {
    pub(crate) stopped: bool,
    pub(crate) choices: Vec<(Option<usize>, usize, usize, usize)>,
    pub(crate) dist: Vec<(Rat, K)>,
}

impl<K> Default for Expanded<K> {
    fn default() -> Self {
        Expanded {
            stopped: false,
            choices: Vec::new(),
            dist: Vec::new(),
        }
    }
}

/// Expands the states of `wave` into `out` (each with its error, if any), in contiguous runs
/// on up to one thread per scratch.
pub(super) fn expand_wave<K: Word + Send + Sync>(
    ctx: &Ctx<'_, K>,
    wave: &[K],
    scratches: &mut [Scratch<K>],
    out: &mut Vec<(Expanded<K>, Option<BuildError>)>,
) {
    if out.len() < wave.len() {
        out.resize_with(wave.len(), || (Expanded::default(), None));
    }
    let out = &mut out[..wave.len()];
    let threads = scratches.len().min(wave.len() / PER_THREAD).max(1);
    let run =
        |states: &[K], outs: &mut [(Expanded<K>, Option<BuildError>)], sc: &mut Scratch<K>| {
            for (&here, (o, e)) in states.iter().zip(outs) {
                *e = ctx.expand(here, sc, o).err();
            }
        };
    if threads == 1 {
        return run(wave, out, &mut scratches[0]);
    }
    let chunk = wave.len().div_ceil(threads);
    let run = &run;
    let jobs: Vec<_> = wave
        .chunks(chunk)
        .zip(out.chunks_mut(chunk))
        .zip(scratches.iter_mut())
        .map(|((states, outs), sc)| move || run(states, outs, sc))
        .collect();
    perfectplay::memory::on_threads(jobs);
}

impl<'a, K: Word> Ctx<'a, K> {
    /// Compiles `program` for expanding states packed by `layout`: the commands grouped and
    /// indexed, their guards and updates compiled; a state where `stop` holds is not
    /// expanded.
    pub(crate) fn new(
        source: Cow<'a, Program>,
        layout: Vec<(u32, u32)>,
        stop: Option<CExpr>,
    ) -> Self {
        let program: &Program = &source;
        // Unlabelled commands by module (runs of program order), and labelled ones by action and
        // module, each group indexed by a variable its guards pin.
        let mut unlabelled: Vec<Vec<usize>> = Vec::new();
        let mut by_action: Vec<Vec<Vec<usize>>> = vec![Vec::new(); program.actions.len()];
        for (i, c) in program.commands.iter().enumerate() {
            match c.action {
                None => match unlabelled.last_mut() {
                    Some(run) if program.commands[run[0]].module == c.module => run.push(i),
                    _ => unlabelled.push(vec![i]),
                },
                Some(a) => {
                    let modules = &mut by_action[a];
                    match modules
                        .iter_mut()
                        .find(|cs| program.commands[cs[0]].module == c.module)
                    {
                        Some(cs) => cs.push(i),
                        None => modules.push(vec![i]),
                    }
                }
            }
        }
        let unlabelled: Vec<Indexed> = unlabelled
            .into_iter()
            .map(|cs| Indexed::new(program, cs))
            .collect();
        let by_action: Vec<Vec<Indexed>> = by_action
            .into_iter()
            .map(|modules| {
                modules
                    .into_iter()
                    .map(|cs| Indexed::new(program, cs))
                    .collect()
            })
            .collect();
        let constant_sum_is_one: Vec<bool> = program
            .commands
            .iter()
            .map(|cmd| {
                let mut sum = Some(Q::int(0));
                for (prob, _) in &cmd.updates {
                    let p = match prob {
                        None => Some(Q::int(1)),
                        Some(CExpr::Const(v)) => v.number(),
                        Some(_) => None,
                    };
                    sum = match (sum, p) {
                        (Some(s), Some(p)) if p >= Q::int(0) && p <= Q::int(1) => s.checked_add(p),
                        _ => None,
                    };
                }
                sum == Some(Q::int(1))
            })
            .collect();
        // Commands whose probabilities are computed in floating point (`pow(x, 0.5)`, `log`; see
        // `CExpr::Inexact`): their probabilities sum to one up to rounding, and their products
        // are made fractions that sum to one (see `rounded_distribution`).
        let floating: Vec<bool> = program
            .commands
            .iter()
            .map(|cmd| {
                cmd.updates
                    .iter()
                    .any(|(p, _)| p.as_ref().is_some_and(CExpr::inexact))
            })
            .collect();
        // Guards and assignments compiled for the loop.
        let guards: Vec<IntExpr> = program
            .commands
            .iter()
            .map(|c| IntExpr::new(&c.guard))
            .collect();
        let assigned: Vec<Vec<Vec<IntExpr>>> = program
            .commands
            .iter()
            .map(|c| {
                c.updates
                    .iter()
                    .map(|(_, assigns)| assigns.iter().map(|(_, e)| IntExpr::new(e)).collect())
                    .collect()
            })
            .collect();
        let stop = stop.map(|e| {
            let fast = IntExpr::new(&e);
            (e, fast)
        });
        // Per command: the variables its updates set.
        let writes: Vec<Vec<usize>> = program
            .commands
            .iter()
            .map(|cmd| {
                let mut vars: Vec<usize> = cmd
                    .updates
                    .iter()
                    .flat_map(|(_, assigns)| assigns.iter().map(|(var, _)| *var))
                    .collect();
                vars.sort_unstable();
                vars.dedup();
                vars
            })
            .collect();
        Ctx {
            program: source,
            layout,
            constant_sum_is_one,
            floating,
            guards,
            assigned,
            stop,
            writes,
            unlabelled,
            by_action,
            _word: std::marker::PhantomData,
        }
    }

    /// A command's branches in a state: probability, the bits of the variables it sets, and
    /// their new values in place.
    fn branches(&self, c: usize, vals: &[i64], out: &mut Vec<(Q, K, K)>) -> Result<(), BuildError> {
        let program = &*self.program;
        let cmd = &program.commands[c];
        let state_text = || show_values(program, vals);
        let command = |problem: CommandProblem| BuildError::Command {
            command: cmd.text.clone(),
            state: state_text(),
            problem,
        };
        let fail = |e: EvalError| command(CommandProblem::Eval(e));
        out.clear();
        // A command whose probabilities are constants that sum to one (the usual case) is
        // checked once, not in every state.
        let checked = self.constant_sum_is_one[c];
        let mut sum = Q::int(0);
        let mut float_sum = 0.0f64;
        for ((prob, assigns), fast) in cmd.updates.iter().zip(&self.assigned[c]) {
            let p = match prob {
                None => Q::int(1),
                Some(e) => match e.eval(vals).map_err(fail)? {
                    // Infinite (`1/0`).
                    v @ Value::Float(_) => {
                        return Err(command(CommandProblem::ProbabilityOutside(v.to_string())))
                    }
                    v => v
                        .number()
                        .ok_or_else(|| fail(EvalError::Type("a probability is a boolean")))?,
                },
            };
            if p < Q::int(0) || p > Q::int(1) {
                return Err(command(CommandProblem::ProbabilityOutside(p.brief())));
            }
            if self.floating[c] {
                float_sum += p.to_f64();
            } else if !checked {
                sum = sum
                    .checked_add(p)
                    .ok_or_else(|| fail(EvalError::Overflow))?;
            }
            let (mut mask, mut bits) = (K::ZERO, K::ZERO);
            for ((var, e), fast) in assigns.iter().zip(fast) {
                let v = match fast.eval(vals) {
                    Some(v) => v,
                    None => match e.eval(vals).map_err(fail)? {
                        Value::Bool(b) => b as i64,
                        Value::Int(n) => n,
                        Value::Real(_) | Value::Float(_) => {
                            unreachable!("checked: integer updates")
                        }
                    },
                };
                let var_d = &program.vars[*var];
                if v < var_d.lo || v > var_d.hi {
                    return Err(command(CommandProblem::OutOfRange {
                        var: var_d.name.clone(),
                        value: v,
                        lo: var_d.lo,
                        hi: var_d.hi,
                    }));
                }
                let (shift, width) = self.layout[*var];
                let field = K::field(shift, width);
                mask = mask.or(field);
                bits = bits.replace(field, K::at(packed::offset(v, var_d.lo), shift));
            }
            if p > Q::int(0) {
                out.push((p, mask, bits));
            }
        }
        if self.floating[c] {
            // Computed in floating point: one up to rounding, as PRISM and Storm check.
            if (float_sum - 1.0).abs() > FLOAT_SUM_TOLERANCE || float_sum.is_nan() {
                return Err(command(CommandProblem::Sum(float_sum.to_string())));
            }
        } else if !checked && sum != Q::int(1) {
            return Err(command(CommandProblem::Sum(sum.brief())));
        }
        Ok(())
    }

    /// The choices of the state `here` into `out`.
    pub(super) fn expand(
        &self,
        here: K,
        sc: &mut Scratch<K>,
        out: &mut Expanded<K>,
    ) -> Result<(), BuildError> {
        let program = &*self.program;
        let Scratch {
            vals,
            branch,
            dist,
            product,
            float_dist,
            float_product,
            choices,
            combos,
            on,
            on_start,
            pick,
            written,
            stamp,
        } = sc;
        out.stopped = false;
        out.choices.clear();
        out.dist.clear();
        unpack(&self.layout, program, &here, vals);
        let vals = &*vals;
        let state_text = || show_values(program, vals);
        let fail = |cmd: usize, e: EvalError| BuildError::Command {
            command: program.commands[cmd].text.clone(),
            state: state_text(),
            problem: CommandProblem::Eval(e),
        };
        let in_state = |problem: StateProblem| BuildError::State {
            state: state_text(),
            problem,
        };
        let enabled = |cmd: usize| {
            self.guards[cmd]
                .holds(&program.commands[cmd].guard, vals)
                .map_err(|e| fail(cmd, e))
        };
        let stopped = match &self.stop {
            Some((e, fast)) => fast
                .holds(e, vals)
                .map_err(|e| in_state(StateProblem::Eval(e)))?,
            None => false,
        };
        out.stopped = stopped;
        // The choices: action, module, and their commands `combos[from..to]`.
        choices.clear();
        combos.clear();
        for group in self.unlabelled.iter().filter(|_| !stopped) {
            for &c in group.candidates(vals) {
                if enabled(c)? {
                    combos.push(c);
                    choices.push((
                        None,
                        program.commands[c].module,
                        combos.len() - 1,
                        combos.len(),
                    ));
                }
            }
        }
        for (a, modules) in self.by_action.iter().enumerate() {
            if modules.is_empty() || stopped {
                continue;
            }
            // Each module's enabled commands, `on[on_start[k]..on_start[k + 1]]`.
            on.clear();
            on_start.clear();
            for group in modules {
                on_start.push(on.len());
                for &c in group.candidates(vals) {
                    if enabled(c)? {
                        on.push(c);
                    }
                }
                if on.len() == on_start[on_start.len() - 1] {
                    on_start.clear();
                    break;
                }
            }
            if on_start.is_empty() {
                continue;
            }
            on_start.push(on.len());
            let modules_on = on_start.len() - 1;
            // Every combination of one enabled command per module.
            pick.clear();
            pick.resize(modules_on, 0);
            loop {
                let from = combos.len();
                combos.extend((0..modules_on).map(|k| on[on_start[k] + pick[k]]));
                choices.push((
                    Some(a),
                    program.commands[combos[from]].module,
                    from,
                    combos.len(),
                ));
                let mut k = modules_on;
                while k > 0 {
                    k -= 1;
                    pick[k] += 1;
                    if on_start[k] + pick[k] < on_start[k + 1] {
                        break;
                    }
                    pick[k] = 0;
                    if k == 0 {
                        k = usize::MAX;
                        break;
                    }
                }
                if k == usize::MAX {
                    break;
                }
            }
        }
        for &(action, module, from, to) in choices.iter() {
            let combo = &combos[from..to];
            // Two synchronised commands must not set the same variable.
            if combo.len() > 1 {
                *stamp += 1;
                for &c in combo {
                    for &var in &self.writes[c] {
                        if written[var] == *stamp {
                            return Err(in_state(StateProblem::SharedVariable {
                                var: program.vars[var].name.clone(),
                                command: program.commands[c].text.clone(),
                            }));
                        }
                        written[var] = *stamp;
                    }
                }
            }
            // The product of the commands' distributions over packed next states: each
            // branch clears the bits of the variables it sets and puts in their new values.
            // Where a command's probabilities are floating point, the product is taken in
            // floats and rounded to the engine's fractions; otherwise it is exact, however
            // long its fractions grow.
            let float = combo.iter().any(|&c| self.floating[c]);
            dist.clear();
            dist.push((Rat::ONE, here));
            float_dist.clear();
            float_dist.push((1.0, here));
            for &c in combo {
                if float {
                    self.branches(c, vals, branch)?;
                    float_product.clear();
                    for &(p, state) in float_dist.iter() {
                        for &(q, mask, bits) in branch.iter() {
                            float_product.push((p * q.to_f64(), state.replace(mask, bits)));
                        }
                    }
                    std::mem::swap(float_dist, float_product);
                    continue;
                }
                self.branches(c, vals, branch)?;
                if let [(p, mask, bits)] = branch[..] {
                    if p == Q::int(1) {
                        for d in dist.iter_mut() {
                            d.1 = d.1.replace(mask, bits);
                        }
                        continue;
                    }
                }
                product.clear();
                for &(p, state) in dist.iter() {
                    for &(q, mask, bits) in branch.iter() {
                        let q = q.rat();
                        let pq = if p.is_one() { q } else { p * q };
                        product.push((pq, state.replace(mask, bits)));
                    }
                }
                std::mem::swap(dist, product);
            }
            if float {
                let rounded =
                    rounded_distribution(float_dist.iter().map(|&(p, _)| p)).map_err(|p| {
                        in_state(StateProblem::Rounding {
                            probability: format!("{p:e}"),
                            tolerance: format!("{ROUNDING_TOLERANCE:e}"),
                        })
                    })?;
                dist.clear();
                dist.extend(
                    rounded
                        .into_iter()
                        .zip(float_dist.iter())
                        .map(|(q, &(_, packed))| (q, packed)),
                );
            }
            let first = out.dist.len();
            out.dist.extend(dist.iter().copied());
            out.choices.push((action, module, first, out.dist.len()));
        }
        Ok(())
    }
}

/// How far from one the probabilities of a command computed in floating point may sum (their
/// rounding; PRISM and Storm allow as much and more).
const FLOAT_SUM_TOLERANCE: f64 = 1e-9;

/// The denominator of probabilities rounded from floating point.
const ROUNDED: i64 = 1 << 60;

/// How far, relatively, making a distribution computed in floating point sum to exactly one
/// may move its largest probability, or rounding a probability to a fraction of [`ROUNDED`]
/// may move it (2^-60 is below 10^-18, so that holds for every probability above about 10^-9).
const ROUNDING_TOLERANCE: f64 = 1e-9;

/// A distribution computed in floating point (`probs`, summing to one up to rounding) as
/// fractions that sum to exactly one, what the rounding leaves over given to the largest:
/// each rounded to the nearest fraction of [`ROUNDED`] where that moves none by more than
/// [`ROUNDING_TOLERANCE`] of itself (a few units of 2^-60, far below the rounding of the
/// floats themselves), else each kept as the exact binary fraction the float is (a long
/// fraction, for the distributions with a probability below about 10^-9). A probability that
/// is not a number, or a largest one that the sum's rounding would move by more than the
/// tolerance, is the error.
fn rounded_distribution(probs: impl Iterator<Item = f64>) -> Result<Vec<Rat>, f64> {
    let probs: Vec<f64> = probs.collect();
    if let Some(&p) = probs.iter().find(|p| !p.is_finite() || **p < 0.0) {
        return Err(p);
    }
    let Some(largest) = (0..probs.len()).max_by(|&i, &j| probs[i].total_cmp(&probs[j])) else {
        return Ok(Vec::new());
    };
    let moved = |q: Rat, p: f64| (q.to_f64() - p).abs() > ROUNDING_TOLERANCE * p;
    let mut nums: Vec<i64> = probs
        .iter()
        .map(|&p| (p * ROUNDED as f64).round() as i64)
        .collect();
    let total: i64 = nums.iter().sum();
    nums[largest] += ROUNDED - total;
    let rounded: Vec<Rat> = nums.iter().map(|&n| Rat::new(n, ROUNDED)).collect();
    if !rounded.iter().zip(&probs).any(|(&q, &p)| moved(q, p)) {
        return Ok(rounded);
    }
    let exact = |p: f64| {
        malachite_q::Rational::try_from(p)
            .map(Rat::from_rational)
            .map_err(|_| p)
    };
    let mut kept = probs
        .iter()
        .map(|&p| exact(p))
        .collect::<Result<Vec<Rat>, f64>>()?;
    let others = (0..kept.len())
        .filter(|&i| i != largest)
        .fold(Rat::ZERO, |sum, i| sum + kept[i]);
    kept[largest] = Rat::ONE - others;
    if kept[largest] < Rat::ZERO || moved(kept[largest], probs[largest]) {
        return Err(probs[largest]);
    }
    Ok(kept)
}
