//! Maps keyed by job id with a cheap hash.
//!
//! The engine's per-job lookups (a running job's expected end, a reservation promised to a
//! job) are keyed by [`JobId`], a small integer the simulator assigns, never user text, so
//! they need no protection against chosen collisions. std's default SipHash was a tenth of an
//! EASY run's instructions on the largest trace; rustc's Fx hash (a multiplication per word,
//! from the `rustc-hash` crate) spreads consecutive ids over the table as well. Nothing
//! iterates these maps, so the order of their entries never reaches an output.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use super::JobId;

/// A `HashMap` from job id, hashed with rustc's Fx hash (the `rustc-hash` crate).
pub type IdMap<V> = HashMap<JobId, V, FxBuildHasher>;

/// An empty [`IdMap`] with room for `n` entries.
pub fn id_map_with_capacity<V>(n: usize) -> IdMap<V> {
    IdMap::with_capacity_and_hasher(n, FxBuildHasher)
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
