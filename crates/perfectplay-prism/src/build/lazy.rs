//! States expanded one at a time, when asked, without a state space ([`Stepper`]): for a
//! solve that holds only some of the states (the solve across processes,
//! `crate::analysis::across`). The commands are compiled once, as for the build, and expand a
//! state exactly as the build does: the same choices in the same order, the same errors.

use std::borrow::Cow;
use std::sync::Mutex;

use crate::build::expand::{Ctx, Expanded, Scratch};
use crate::build::packed::{self, pack, unpack, Word};
use crate::build::{show_values, BuildError};
use crate::program::Program;

/// The most initial states a model may have here (as many as the build allows at most).
const MAX_INITIAL: usize = 1 << 20;

/// A program's states packed as `K`, expanded when asked.
pub(crate) struct Stepper<K> {
    ctx: Ctx<'static, K>,
    /// Scratch for the threads that expand states at once, taken and put back.
    scratch: Mutex<Vec<Scratch<K>>>,
}

impl<K: Word> Stepper<K> {
    /// Compiles `program` (whose states must fit in `K`; see [`state_bits`]).
    pub(crate) fn new(program: Program) -> Self {
        let (layout, _) = packed::layout(&program);
        Stepper {
            ctx: Ctx::new(Cow::Owned(program), layout, None),
            scratch: Mutex::new(Vec::new()),
        }
    }

    /// The program.
    pub(crate) fn program(&self) -> &Program {
        &self.ctx.program
    }

    /// The initial states, in the order the build numbers them.
    pub(crate) fn initial(&self) -> Result<Vec<K>, BuildError> {
        let program = self.program();
        let valuations: Vec<Vec<i64>> = match &program.init {
            None => vec![program.vars.iter().map(|v| v.init).collect()],
            Some(init) => crate::build::init::initial_valuations(program, init, MAX_INITIAL)?,
        };
        let mut states: Vec<K> = Vec::with_capacity(valuations.len());
        for vals in &valuations {
            let s = pack(&self.ctx.layout, program, vals);
            if !states.contains(&s) {
                states.push(s);
            }
        }
        Ok(states)
    }

    /// Expands `state` and gives `f` its choices.
    pub(crate) fn expand<R>(
        &self,
        state: K,
        f: impl FnOnce(&Expanded<K>) -> R,
    ) -> Result<R, BuildError> {
        let program = self.program();
        let taken = self.scratch.lock().map(|mut s| s.pop()).ok().flatten();
        let mut scratch = taken.unwrap_or_else(|| Scratch::new(program.vars.len()));
        let mut out = Expanded::default();
        let result = self.ctx.expand(state, &mut scratch, &mut out);
        let answer = result.map(|()| f(&out));
        if let Ok(mut pool) = self.scratch.lock() {
            pool.push(scratch);
        }
        answer
    }

    /// The variables' values in `state`.
    pub(crate) fn values(&self, state: &K, out: &mut Vec<i64>) {
        unpack(&self.ctx.layout, self.program(), state, out);
    }

    /// `state` as PRISM prints states: `(x=1,b=true)`.
    pub(crate) fn show(&self, state: &K) -> String {
        let mut vals = Vec::new();
        self.values(state, &mut vals);
        show_values(self.program(), &vals)
    }

    /// Whether `words` (as [`Word::store`] writes them) is a state of this program: every
    /// variable's field within its range and no bit outside the fields.
    pub(crate) fn is_state(&self, words: &[u64]) -> bool {
        if words.len() != K::WORDS {
            return false;
        }
        let s = K::load(words);
        let mut fields = K::ZERO;
        for (var, &(shift, width)) in self.program().vars.iter().zip(&self.ctx.layout) {
            fields = fields.or(K::field(shift, width));
            if s.get(shift, width) > (var.hi - var.lo) as u64 {
                return false;
            }
        }
        s.replace(fields, K::ZERO) == K::ZERO
    }
}

/// The bits a state of `program` takes, which decide the word `K` of a [`Stepper`].
pub(crate) fn state_bits(program: &Program) -> u32 {
    packed::layout(program).1
}
