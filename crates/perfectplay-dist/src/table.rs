//! The tables of a worker's part that grow with every state it owns, laid out flat: the
//! states' bytes (to find a state again while exploring), each state's predecessors' links,
//! and each link's states.
//! A state costs a few words in each, where a map of boxed bytes and a vector per state cost
//! an allocation or two apiece.

use std::hash::Hasher;

use rustc_hash::FxHasher;

/// No entry (an empty place of [`StateIds`]'s table; the end of a list of [`Preds`]).
const NONE: u32 = u32::MAX;

/// The owned states' bytes, one after the other, and an open-addressing table of their
/// numbers by the bytes' hash (linear probing, at most half full).
#[derive(Default)]
pub(crate) struct StateIds {
    /// Every state's bytes, in order of numbers.
    bytes: Vec<u8>,
    /// Where each state's bytes end in `bytes` (they start where the previous state's end).
    ends: Vec<usize>,
    /// State numbers by hash ([`NONE`] where empty); its length is a power of two.
    table: Vec<u32>,
}

/// The hash of `bytes` as a place among `2^bits` (the hash's high bits, its best mixed).
fn hash(bytes: &[u8], bits: u32) -> usize {
    let mut h = FxHasher::default();
    h.write(bytes);
    (h.finish() >> (64 - bits)) as usize
}

impl StateIds {
    /// The bytes of state `id`.
    fn get(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.bytes[start..self.ends[id]]
    }

    /// The place of `bytes` in the table: where they are, or the empty place where they go.
    fn place(&self, bytes: &[u8]) -> usize {
        let mask = self.table.len() - 1;
        let mut at = hash(bytes, self.table.len().trailing_zeros());
        loop {
            let id = self.table[at];
            if id == NONE || self.get(id) == bytes {
                return at;
            }
            at = (at + 1) & mask;
        }
    }

    /// The number of states in the table.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The number of the state `bytes`, and whether it is new (numbered next).
    pub fn intern(&mut self, bytes: &[u8]) -> (u32, bool) {
        if 2 * (self.ends.len() + 1) > self.table.len() {
            self.grow();
        }
        let at = self.place(bytes);
        if self.table[at] != NONE {
            return (self.table[at], false);
        }
        let id = self.ends.len() as u32;
        self.bytes.extend_from_slice(bytes);
        self.ends.push(self.bytes.len());
        self.table[at] = id;
        (id, true)
    }

    /// Doubles the table and places every state again.
    fn grow(&mut self) {
        let len = (2 * self.table.len()).max(1024);
        self.table = vec![NONE; len];
        for id in 0..self.ends.len() as u32 {
            let at = self.place(self.get(id));
            self.table[at] = id;
        }
    }
}

/// Each state's predecessors' links (worker, link): while exploring, a list per state threaded
/// through one table (newest first); once packed, state by state in the order they came.
#[derive(Default)]
pub(crate) struct Preds {
    /// Each state's newest entry in `links` ([`NONE`] for none), while exploring.
    head: Vec<u32>,
    /// Entries and the entry before each of the same state, while exploring.
    links: Vec<((u32, u32), u32)>,
    /// Once packed: state `s`'s predecessors are `list[first[s]..first[s + 1]]`.
    first: Vec<u32>,
    /// See `first`.
    list: Vec<(u32, u32)>,
}

impl Preds {
    /// A new state, with no predecessor yet.
    pub fn push_state(&mut self) {
        self.head.push(NONE);
    }

    /// Adds predecessor link `pred` of state `s`.
    pub fn add(&mut self, s: u32, pred: (u32, u32)) {
        let s = s as usize;
        let at = u32::try_from(self.links.len()).expect("fewer than 2^32 predecessors per worker");
        self.links.push((pred, self.head[s]));
        self.head[s] = at;
    }

    /// Lays the lists out state by state, each in the order its entries came.
    pub fn pack(&mut self) {
        let n = self.head.len();
        let mut first = vec![0u32; n + 1];
        for s in 0..n {
            let mut count = 0;
            let mut at = self.head[s];
            while at != NONE {
                count += 1;
                at = self.links[at as usize].1;
            }
            first[s + 1] = first[s] + count;
        }
        let mut list = vec![(0, 0); self.links.len()];
        for s in 0..n {
            // Newest first in the list: written from the back of the state's range.
            let mut end = first[s + 1] as usize;
            let mut at = self.head[s];
            while at != NONE {
                end -= 1;
                let (pred, next) = self.links[at as usize];
                list[end] = pred;
                at = next;
            }
        }
        (self.head, self.links) = (Vec::new(), Vec::new());
        (self.first, self.list) = (first, list);
    }

    /// The predecessors' links of state `s` (once packed).
    pub fn of(&self, s: usize) -> &[(u32, u32)] {
        &self.list[self.first[s] as usize..self.first[s + 1] as usize]
    }
}

/// The states that read each link, each once, in order of numbers.
#[derive(Default)]
pub(crate) struct Users {
    /// Link `l`'s states are `list[first[l]..first[l + 1]]`.
    first: Vec<u32>,
    /// See `first`.
    list: Vec<u32>,
}

impl Users {
    /// The states of `links` links from `uses`, which gives every (link, state) pair of a slot
    /// in order of states (a pair may come more than once), each time it is called.
    pub fn new<I: Iterator<Item = (u32, u32)>>(links: usize, uses: impl Fn() -> I) -> Users {
        // The last state counted for each link, so that a state is counted once per link.
        let mut last = vec![NONE; links];
        let mut first = vec![0u32; links + 1];
        for (l, s) in uses() {
            if std::mem::replace(&mut last[l as usize], s) != s {
                first[l as usize + 1] += 1;
            }
        }
        for l in 0..links {
            first[l + 1] += first[l];
        }
        let mut next: Vec<u32> = first[..links].to_vec();
        let mut list = vec![0u32; first[links] as usize];
        last.iter_mut().for_each(|x| *x = NONE);
        for (l, s) in uses() {
            let l = l as usize;
            if std::mem::replace(&mut last[l], s) != s {
                list[next[l] as usize] = s;
                next[l] += 1;
            }
        }
        Users { first, list }
    }

    /// The states that read link `l`.
    pub fn of(&self, l: usize) -> &[u32] {
        &self.list[self.first[l] as usize..self.first[l + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_found_again_across_growth() {
        let mut ids = StateIds::default();
        let states: Vec<Vec<u8>> = (0..5000u32)
            .map(|i| i.to_le_bytes()[..1 + (i % 4) as usize].to_vec())
            .collect();
        let mut first_seen = std::collections::HashMap::new();
        for bytes in &states {
            let (id, new) = ids.intern(bytes);
            match first_seen.get(bytes) {
                Some(&known) => assert!(!new && id == known),
                None => {
                    assert!(new);
                    assert_eq!(id as usize, first_seen.len());
                    first_seen.insert(bytes.clone(), id);
                }
            }
            assert_eq!(ids.get(id), &bytes[..]);
        }
        for (bytes, &id) in &first_seen {
            assert_eq!(ids.intern(bytes), (id, false));
        }
    }

    #[test]
    fn packed_predecessors_keep_their_order() {
        let mut preds = Preds::default();
        for _ in 0..4 {
            preds.push_state();
        }
        let added = [
            (2, (0, 1)),
            (0, (1, 7)),
            (2, (3, 2)),
            (3, (0, 0)),
            (2, (1, 1)),
        ];
        for &(s, p) in &added {
            preds.add(s, p);
        }
        preds.pack();
        assert_eq!(preds.of(0), &[(1, 7)]);
        assert!(preds.of(1).is_empty());
        assert_eq!(preds.of(2), &[(0, 1), (3, 2), (1, 1)]);
        assert_eq!(preds.of(3), &[(0, 0)]);
    }

    #[test]
    fn each_link_lists_its_states_once() {
        let uses = [(1, 0), (1, 0), (0, 0), (1, 2), (2, 2), (1, 3)];
        let users = Users::new(4, || uses.iter().copied());
        assert_eq!(users.of(0), &[0]);
        assert_eq!(users.of(1), &[0, 2, 3]);
        assert_eq!(users.of(2), &[2]);
        assert!(users.of(3).is_empty());
    }
}
