//! Where a sweep keeps its values: a whole table, or the ring of a window.

use super::Fail;
use crate::Number;

/// Where a sweep keeps its values.
pub(super) trait Values<N> {
    /// Called with the number of each state before it is solved; an error says why the
    /// number cannot come now.
    fn claim(&mut self, at: usize) -> Result<(), String> {
        let _ = at;
        Ok(())
    }
    /// Why a successor may be missing, besides a wrong order.
    fn why_missing(&self) -> &'static str {
        ""
    }
    /// The size of the table (the model's `dense_bound`).
    fn bound(&self) -> usize;
    /// The value of `at`, if it is solved now.
    fn solved(&self, at: usize) -> Option<N>;
    /// Whether the successor `at` is solved, after waiting for threads that may still solve
    /// it.
    fn ready(&mut self, at: usize) -> Result<bool, Fail>;
    /// `reward` plus the value of `at`, which is solved.
    fn plus_value(&self, reward: &N, at: usize) -> N;
    /// Records the value of `at`; false if it was solved already.
    fn set(&mut self, at: usize, value: N) -> bool;
}

/// The one-thread sweep's table.
pub(super) struct Table<N> {
    pub(super) values: Vec<N>,
    /// Per number, one bit: solved.
    pub(super) solved: Vec<u64>,
}

impl<N: Number> Values<N> for Table<N> {
    fn bound(&self) -> usize {
        self.values.len()
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<N> {
        (self.solved[at / 64] >> (at % 64) & 1 == 1).then(|| self.values[at].clone())
    }

    #[inline(always)]
    fn ready(&mut self, at: usize) -> Result<bool, Fail> {
        Ok(self.solved[at / 64] >> (at % 64) & 1 == 1)
    }

    #[inline(always)]
    fn plus_value(&self, reward: &N, at: usize) -> N {
        reward.add(&self.values[at])
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: N) -> bool {
        let bit = 1 << (at % 64);
        let fresh = self.solved[at / 64] & bit == 0;
        self.values[at] = value;
        self.solved[at / 64] |= bit;
        fresh
    }
}

/// The values of a sweep with a window ([`crate::Model::sweep_window`]): the value of number `x`
/// sits in slot `x % len` (`len` a power of two), tagged `x + 1`, until a later number takes
/// the slot. The numbers must increase, so a tag identifies its value for good.
pub(super) struct Ring<N> {
    bound: usize,
    slots: Vec<Slot<N>>,
    /// The number of the state being solved, once one is.
    last: Option<usize>,
    /// The start state's number, and its value once solved.
    start: usize,
    start_value: Option<N>,
}

/// A slot of a [`Ring`]: a value and its number plus one (zero: empty).
#[derive(Clone)]
pub(super) struct Slot<N> {
    tag: usize,
    value: N,
}

impl<N: Number> Ring<N> {
    pub(super) fn new(bound: usize, len: usize, start: usize) -> Self {
        debug_assert!(len.is_power_of_two());
        Ring {
            bound,
            slots: vec![
                Slot {
                    tag: 0,
                    value: N::zero(),
                };
                len
            ],
            last: None,
            start,
            start_value: None,
        }
    }

    /// The slot of number `at`.
    #[inline(always)]
    fn index(&self, at: usize) -> usize {
        at & (self.slots.len() - 1)
    }

    #[inline(always)]
    fn slot(&self, at: usize) -> &Slot<N> {
        &self.slots[self.index(at)]
    }
}

impl<N: Number> Values<N> for Ring<N> {
    fn claim(&mut self, at: usize) -> Result<(), String> {
        match self.last {
            Some(last) if at <= last => Err(format!(
                "its number (dense_index) is {at}, after {last} in the model's sweep order; \
                 with a sweep window (sweep_window) numbers must increase along the order"
            )),
            _ => {
                self.last = Some(at);
                Ok(())
            }
        }
    }

    fn why_missing(&self) -> &'static str {
        ", or its number is not within the model's sweep window (sweep_window) below the \
         state's"
    }

    fn bound(&self) -> usize {
        self.bound
    }

    #[inline(always)]
    fn solved(&self, at: usize) -> Option<N> {
        if at == self.start {
            return self.start_value.clone();
        }
        let slot = self.slot(at);
        (slot.tag == at + 1).then(|| slot.value.clone())
    }

    #[inline(always)]
    fn ready(&mut self, at: usize) -> Result<bool, Fail> {
        Ok(self.slot(at).tag == at + 1)
    }

    #[inline(always)]
    fn plus_value(&self, reward: &N, at: usize) -> N {
        reward.add(&self.slot(at).value)
    }

    #[inline(always)]
    fn set(&mut self, at: usize, value: N) -> bool {
        if at == self.start {
            self.start_value = Some(value.clone());
        }
        let i = self.index(at);
        self.slots[i] = Slot { tag: at + 1, value };
        // `claim` saw to it that no number comes twice.
        true
    }
}
