//! Maps keyed by job id with a cheap hash.
//!
//! The engine's per-job lookups (a running job's expected end, a reservation promised to a
//! job) are keyed by [`JobId`], a small integer the simulator assigns, never user text, so
//! they need no protection against chosen collisions. std's default SipHash was a tenth of an
//! EASY run's instructions on the largest trace; one multiplication (the Fx hash of rustc)
//! spreads consecutive ids over the table as well. Nothing iterates these maps, so the order
//! of their entries never reaches an output.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::JobId;

/// A `HashMap` from job id, hashed with [`IdHasher`].
pub type IdMap<V> = HashMap<JobId, V, BuildHasherDefault<IdHasher>>;

/// An empty [`IdMap`] with room for `n` entries.
pub fn id_map_with_capacity<V>(n: usize) -> IdMap<V> {
    IdMap::with_capacity_and_hasher(n, BuildHasherDefault::default())
}

/// The Fx hash: each word is folded in by a rotation, an exclusive or and one multiplication
/// by an odd constant, whose high bits (the ones the table uses) depend on every bit of a key.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_a_std_map_holds() {
        let mut fast: IdMap<u64> = id_map_with_capacity(4);
        let mut std_map = HashMap::new();
        for i in 0..10_000usize {
            let k = i.wrapping_mul(7919) % 3_001;
            fast.insert(k, i as u64);
            std_map.insert(k, i as u64);
            if i % 3 == 0 {
                assert_eq!(fast.remove(&(i % 97)), std_map.remove(&(i % 97)));
            }
        }
        assert_eq!(fast.len(), std_map.len());
        for (k, v) in &std_map {
            assert_eq!(fast.get(k), Some(v));
        }
    }
}
