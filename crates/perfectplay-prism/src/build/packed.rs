//! States packed into machine words by the variables' ranges: each variable takes the bits its
//! range needs, one after another. The builder keeps a state in the narrowest type that holds
//! it ([`Word`]: one word, two, or an array of 4, 8 or 16), and the space stores every state as
//! that many 64-bit words ([`Packed`]).

use std::hash::Hash;

use crate::program::Program;

/// The most bits a state may take (16 words).
pub const MAX_BITS: u32 = 1024;

/// Each variable's `(bit offset, width)` in a packed state, and the total width.
pub fn layout(program: &Program) -> (Vec<(u32, u32)>, u32) {
    let mut layout = Vec::with_capacity(program.vars.len());
    let mut bits = 0u32;
    for v in &program.vars {
        // The span as i128: a range may cover all of i64.
        let span = (v.hi as i128 - v.lo as i128) as u128;
        let width = 128 - span.leading_zeros();
        layout.push((bits, width));
        bits += width;
    }
    (layout, bits)
}

/// A variable's value as the field it is stored in (its distance from the range's low end;
/// the value lies in the range, so the distance fits in 64 bits).
#[inline(always)]
pub fn offset(x: i64, lo: i64) -> u64 {
    x.wrapping_sub(lo) as u64
}

/// The value stored as `field` for a variable whose range starts at `lo`.
#[inline(always)]
pub fn value(field: u64, lo: i64) -> i64 {
    lo.wrapping_add(field as i64)
}

/// All ones in the low `width` bits (`width` at most 64).
#[inline(always)]
fn low_ones(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A packed state as the builder handles it: the bits of every variable, with the operations
/// an update needs.
pub trait Word: Copy + Eq + Hash {
    /// How many 64-bit words it is stored as.
    const WORDS: usize;
    /// No bits set.
    const ZERO: Self;
    /// The bits of the field of `width` bits at `shift`.
    fn field(shift: u32, width: u32) -> Self;
    /// `x` (at most the field's width) placed at `shift`.
    fn at(x: u64, shift: u32) -> Self;
    /// The field of `width` bits at `shift`.
    fn get(&self, shift: u32, width: u32) -> u64;
    /// The bits of `self` outside `mask`, with those of `bits`: an update's result.
    fn replace(self, mask: Self, bits: Self) -> Self;
    /// The union of two sets of bits.
    fn or(self, other: Self) -> Self;
    /// Appends the words it is stored as.
    fn store(&self, out: &mut Vec<u64>);
    /// The state stored as `words` (exactly [`Word::WORDS`] of them).
    fn load(words: &[u64]) -> Self;
}

/// [`Word`] for a machine integer of `$words` 64-bit words, given how it is stored and loaded.
macro_rules! native_word {
    ($t:ty, $words:expr, $store:expr, $load:expr) => {
        impl Word for $t {
            const WORDS: usize = $words;
            const ZERO: $t = 0;
            #[inline(always)]
            fn field(shift: u32, width: u32) -> $t {
                if width == 0 {
                    0
                } else {
                    (low_ones(width) as $t) << shift
                }
            }
            #[inline(always)]
            fn at(x: u64, shift: u32) -> $t {
                if x == 0 {
                    0
                } else {
                    (x as $t) << shift
                }
            }
            #[inline(always)]
            fn get(&self, shift: u32, width: u32) -> u64 {
                if width == 0 {
                    0
                } else {
                    ((self >> shift) as u64) & low_ones(width)
                }
            }
            #[inline(always)]
            fn replace(self, mask: $t, bits: $t) -> $t {
                (self & !mask) | bits
            }
            #[inline(always)]
            fn or(self, other: $t) -> $t {
                self | other
            }
            fn store(&self, out: &mut Vec<u64>) {
                ($store)(*self, out)
            }
            #[inline(always)]
            fn load(words: &[u64]) -> $t {
                ($load)(words)
            }
        }
    };
}

native_word!(
    u64,
    1,
    |s: u64, out: &mut Vec<u64>| out.push(s),
    |w: &[u64]| w[0]
);
native_word!(
    u128,
    2,
    |s: u128, out: &mut Vec<u64>| out.extend([s as u64, (s >> 64) as u64]),
    |w: &[u64]| w[0] as u128 | (w[1] as u128) << 64
);

/// The field of `width` bits at `shift` of the words `w` (it may span two words).
#[inline]
fn read(w: &[u64], shift: u32, width: u32) -> u64 {
    if width == 0 {
        return 0;
    }
    let (i, o) = ((shift / 64) as usize, shift % 64);
    let mut x = w[i] >> o;
    if o + width > 64 {
        x |= w[i + 1] << (64 - o);
    }
    x & low_ones(width)
}

/// Sets the bits of `x` at `shift` in `w` (which has them clear).
#[inline]
fn write(w: &mut [u64], x: u64, shift: u32) {
    if x == 0 {
        return;
    }
    let (i, o) = ((shift / 64) as usize, shift % 64);
    w[i] |= x << o;
    if o > 0 && i + 1 < w.len() {
        w[i + 1] |= x >> (64 - o);
    }
}

impl<const N: usize> Word for [u64; N] {
    const WORDS: usize = N;
    const ZERO: [u64; N] = [0; N];
    #[inline]
    fn field(shift: u32, width: u32) -> [u64; N] {
        let mut w = [0; N];
        write(&mut w, low_ones(width), shift);
        w
    }
    #[inline]
    fn at(x: u64, shift: u32) -> [u64; N] {
        let mut w = [0; N];
        write(&mut w, x, shift);
        w
    }
    #[inline]
    fn get(&self, shift: u32, width: u32) -> u64 {
        read(self, shift, width)
    }
    #[inline]
    fn replace(mut self, mask: [u64; N], bits: [u64; N]) -> [u64; N] {
        for ((s, m), b) in self.iter_mut().zip(mask).zip(bits) {
            *s = (*s & !m) | b;
        }
        self
    }
    #[inline]
    fn or(mut self, other: [u64; N]) -> [u64; N] {
        for (s, o) in self.iter_mut().zip(other) {
            *s |= o;
        }
        self
    }
    fn store(&self, out: &mut Vec<u64>) {
        out.extend_from_slice(self);
    }
    #[inline]
    fn load(words: &[u64]) -> [u64; N] {
        words.try_into().expect("a state of N words")
    }
}

/// The state of variable values `vals` packed as a `K`.
pub fn pack<K: Word>(layout: &[(u32, u32)], program: &Program, vals: &[i64]) -> K {
    let mut s = K::ZERO;
    for (((shift, _), v), &x) in layout.iter().zip(&program.vars).zip(vals) {
        s = s.or(K::at(offset(x, v.lo), *shift));
    }
    s
}

/// The variables' values of the packed state `s`, into `out`.
#[inline]
pub fn unpack<K: Word>(layout: &[(u32, u32)], program: &Program, s: &K, out: &mut Vec<i64>) {
    out.clear();
    for ((shift, width), v) in layout.iter().zip(&program.vars) {
        out.push(value(s.get(*shift, *width), v.lo));
    }
}

/// The packed states of a space, by number: each as the same number of 64-bit words, one
/// after another (one word where the variables fit in 64 bits, the usual case).
#[derive(Clone, Debug)]
pub struct Packed {
    /// Words per state.
    stride: usize,
    /// The states' words.
    words: Vec<u64>,
}

impl Default for Packed {
    fn default() -> Packed {
        Packed::new(1)
    }
}

impl Packed {
    /// An empty list of states of `stride` words each.
    pub(crate) fn new(stride: usize) -> Packed {
        Packed {
            stride,
            words: Vec::new(),
        }
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.words.len() / self.stride
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The words of state number `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &[u64] {
        &self.words[i * self.stride..(i + 1) * self.stride]
    }

    /// Adds a state.
    #[inline]
    pub(crate) fn push<K: Word>(&mut self, s: &K) {
        debug_assert_eq!(K::WORDS, self.stride);
        s.store(&mut self.words);
    }

    /// Adds a state given as its words (as [`Packed::get`] returns them).
    pub(crate) fn push_words(&mut self, words: &[u64]) {
        debug_assert_eq!(words.len(), self.stride);
        self.words.extend_from_slice(words);
    }

    /// Gives back the room reserved beyond the states added.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
    }

    /// The words per state.
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// The variables' values of state number `i`, into `out`.
    pub fn unpack(&self, layout: &[(u32, u32)], program: &Program, i: usize, out: &mut Vec<i64>) {
        let w = self.get(i);
        out.clear();
        for ((shift, width), v) in layout.iter().zip(&program.vars) {
            out.push(value(read(w, *shift, *width), v.lo));
        }
    }

    /// The number of the state with variable values `vals`, by search.
    pub fn position(
        &self,
        layout: &[(u32, u32)],
        program: &Program,
        vals: &[i64],
    ) -> Option<usize> {
        let mut w = vec![0u64; self.stride];
        for (((shift, _), v), &x) in layout.iter().zip(&program.vars).zip(vals) {
            write(&mut w, offset(x, v.lo), *shift);
        }
        (0..self.len()).position(|i| self.get(i) == w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type reads back what it was given, on fields that span words.
    fn round_trip<K: Word + std::fmt::Debug>() {
        let fields = [
            (0u32, 3u32, 5u64),
            (3, 64, u64::MAX - 7),
            (67, 1, 1),
            (68, 60, 12345),
        ];
        let mut s = K::ZERO;
        for &(shift, width, x) in fields.iter().filter(|f| f.0 + f.1 <= 64 * K::WORDS as u32) {
            s = s.or(K::at(x, shift));
            assert_eq!(s.get(shift, width), x, "{shift} {width}");
        }
        let mut words = Vec::new();
        s.store(&mut words);
        assert_eq!(words.len(), K::WORDS);
        assert_eq!(K::load(&words), s);
        for &(shift, width, x) in fields.iter().filter(|f| f.0 + f.1 <= 64 * K::WORDS as u32) {
            assert_eq!(read(&words, shift, width), x);
            let cleared = s.replace(K::field(shift, width), K::ZERO);
            assert_eq!(cleared.get(shift, width), 0);
            let back = cleared.replace(K::field(shift, width), K::at(x, shift));
            assert_eq!(back, s);
        }
    }

    #[test]
    fn fields_round_trip_in_every_width() {
        round_trip::<u64>();
        round_trip::<u128>();
        round_trip::<[u64; 4]>();
        round_trip::<[u64; 16]>();
    }
}
