//! Interning of user states to dense ids: by hashing, or by the model's own numbering when it
//! offers one ([`Model::dense_index`]).
//!
//! Hashing is the general path. A model whose states map cheaply to small integers can skip it:
//! the engine then keeps one `u32` slot per possible number, and interning is an array access.
//! The engine still compares the state already in a slot with the new one, so a numbering that
//! is not one-to-one is reported as a model error rather than silently merging states.

use std::hash::{BuildHasher, BuildHasherDefault, Hash};
use std::sync::OnceLock;

use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
use indexmap::IndexMap;
use rustc_hash::{FxHashMap, FxHasher};

use crate::Model;

/// States in the order found; a map to nothing, for its raw entries (hash once, clone only a
/// new state).
type Hashed<S> = IndexMap<S, (), BuildHasherDefault<FxHasher>>;

/// A slot holds `id + 1`, so that a fresh table is all zeros: the allocator hands out zeroed
/// pages lazily, and numbers the game never reaches cost no memory.
const EMPTY: u32 = 0;

/// The explored states, numbered `0, 1, …` in the order they were found.
pub(crate) enum StateSet<S> {
    Hashed(Hashed<S>),
    Dense {
        /// Per number, `id + 1` of the state with that number, or `EMPTY`. Kept after the solve
        /// for lookups with the model ([`StateSet::find`]).
        slots: Vec<u32>,
        states: Vec<S>,
        /// A hash index built on first lookup by state without the model
        /// ([`StateSet::get_index_of`]).
        lookup: OnceLock<FxHashMap<S, u32>>,
    },
    Turn(TurnSet<S>),
}

/// The states of one turn ([`Model::turn_of`]) where the model numbers them within a turn
/// ([`Model::turn_index`]): numbered states by slot, the others (the kept states at the
/// turn's edge) by hash.
pub(crate) struct TurnSet<S> {
    /// Per turn number, `id + 1` of the state with that number, or `EMPTY`.
    slots: Vec<u32>,
    /// The states without a turn number.
    others: FxHashMap<S, u32>,
    states: Vec<S>,
    /// A hash index of every state, built on first lookup without the model.
    lookup: OnceLock<FxHashMap<S, u32>>,
}

/// Why a state could not be interned.
pub(crate) enum InternError {
    /// `dense_index` gave no number, or one not below `dense_bound`.
    OutOfRange(Option<usize>),
    /// `turn_index` gave a number not below `turn_bound`.
    OutOfTurnRange(usize),
    /// Two different states got the same number; the id of the one interned first.
    Collision(u32),
}

impl<S: Clone + Eq + Hash> StateSet<S> {
    /// The set for `model`: dense if it offers a numbering and the memory left affords its
    /// table of slots (hashed otherwise: it grows with the states found, under the engine's
    /// memory check); room for `capacity` states.
    pub fn for_model<M: Model<State = S>>(model: &M, capacity: usize) -> Self {
        let slot_bytes = std::mem::size_of::<u32>() as u64;
        match model.dense_bound() {
            0 => StateSet::Hashed(Hashed::default()),
            bound if !crate::memory::affords(bound as u64 * slot_bytes) => {
                StateSet::Hashed(Hashed::default())
            }
            bound => StateSet::Dense {
                slots: vec![EMPTY; bound],
                states: Vec::with_capacity(capacity),
                lookup: OnceLock::new(),
            },
        }
    }

    /// An empty set that hashes its states.
    pub fn hashed() -> Self {
        StateSet::Hashed(Hashed::default())
    }

    /// An empty set for the states of one turn of `model`: by the model's turn numbering
    /// where it has one ([`Model::turn_bound`]), else hashed.
    pub fn for_turn<M: Model<State = S>>(model: &M) -> Self {
        let slot_bytes = std::mem::size_of::<u32>() as u64;
        match model.turn_bound() {
            0 => StateSet::hashed(),
            // A numbering too large for the memory left is no help: hashing, as without one.
            bound if !crate::memory::affords((bound as u64).saturating_mul(slot_bytes)) => {
                StateSet::hashed()
            }
            bound => StateSet::Turn(TurnSet {
                slots: vec![EMPTY; bound],
                others: FxHashMap::default(),
                states: Vec::new(),
                lookup: OnceLock::new(),
            }),
        }
    }

    /// Interns `s`: its id and whether it is new. The state is cloned only when it is new.
    #[inline(always)]
    pub fn insert<M: Model<State = S>>(
        &mut self,
        model: &M,
        s: &S,
    ) -> Result<(usize, bool), InternError> {
        match self {
            StateSet::Hashed(set) => {
                let hash = set.hasher().hash_one(s);
                Ok(
                    match set.raw_entry_mut_v1().from_key_hashed_nocheck(hash, s) {
                        RawEntryMut::Occupied(e) => (e.index(), false),
                        RawEntryMut::Vacant(e) => {
                            let id = e.index();
                            e.insert_hashed_nocheck(hash, s.clone(), ());
                            (id, true)
                        }
                    },
                )
            }
            StateSet::Turn(set) => {
                let Some(i) = model.turn_index(s) else {
                    let next = set.states.len() as u32;
                    return Ok(match set.others.entry(s.clone()) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            (*e.get() as usize, false)
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(next);
                            set.states.push(s.clone());
                            (next as usize, true)
                        }
                    });
                };
                let Some(slot) = set.slots.get_mut(i) else {
                    return Err(InternError::OutOfTurnRange(i));
                };
                if *slot == EMPTY {
                    set.states.push(s.clone());
                    *slot = set.states.len() as u32;
                    return Ok((set.states.len() - 1, true));
                }
                let id = *slot - 1;
                if set.states[id as usize] == *s {
                    Ok((id as usize, false))
                } else {
                    Err(InternError::Collision(id))
                }
            }
            StateSet::Dense { slots, states, .. } => {
                let i = model.dense_index(s);
                let Some(slot) = i.and_then(|i| slots.get_mut(i)) else {
                    return Err(InternError::OutOfRange(i));
                };
                if *slot == EMPTY {
                    states.push(s.clone());
                    *slot = states.len() as u32;
                    return Ok((states.len() - 1, true));
                }
                let id = *slot - 1;
                if states[id as usize] == *s {
                    Ok((id as usize, false))
                } else {
                    Err(InternError::Collision(id))
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            StateSet::Hashed(set) => set.len(),
            StateSet::Dense { states, .. } => states.len(),
            StateSet::Turn(set) => set.states.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The state with id `i`.
    pub fn get(&self, i: usize) -> &S {
        match self {
            StateSet::Hashed(set) => set.get_index(i).expect("an interned id").0,
            StateSet::Dense { states, .. } => &states[i],
            StateSet::Turn(set) => &set.states[i],
        }
    }

    /// The id of `s`, if explored.
    pub fn get_index_of(&self, s: &S) -> Option<usize> {
        match self {
            StateSet::Hashed(set) => set.get_index_of(s),
            StateSet::Dense { states, lookup, .. }
            | StateSet::Turn(TurnSet { states, lookup, .. }) => lookup
                .get_or_init(|| {
                    states
                        .iter()
                        .enumerate()
                        .map(|(i, s)| (s.clone(), i as u32))
                        .collect()
                })
                .get(s)
                .map(|&i| i as usize),
        }
    }

    pub fn iter(&self) -> Box<dyn Iterator<Item = &S> + '_> {
        match self {
            StateSet::Hashed(set) => Box::new(set.keys()),
            StateSet::Dense { states, .. } => Box::new(states.iter()),
            StateSet::Turn(set) => Box::new(set.states.iter()),
        }
    }

    /// The id of `s`, if explored, found through the model's numbering where it has one (an
    /// array access and a comparison; no hash index is built).
    pub fn find<M: Model<State = S>>(&self, model: &M, s: &S) -> Option<usize> {
        match self {
            StateSet::Hashed(set) => set.get_index_of(s),
            StateSet::Dense { slots, states, .. } => {
                let slot = *slots.get(model.dense_index(s)?)?;
                let id = slot.checked_sub(1)? as usize;
                (states[id] == *s).then_some(id)
            }
            StateSet::Turn(set) => match model.turn_index(s) {
                None => set.others.get(s).map(|&i| i as usize),
                Some(i) => {
                    let id = set.slots.get(i)?.checked_sub(1)? as usize;
                    (set.states[id] == *s).then_some(id)
                }
            },
        }
    }
}
