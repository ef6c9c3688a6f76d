//! Random non-contiguous allocation (Mache et al. §4.1, one of the compared strategies; Lo et al.
//! [8]): j free nodes drawn uniformly without replacement, by a partial Fisher–Yates shuffle of
//! the row-major free list driven by the experiment's [`SimRng`].

use super::node::{free_nodes, Node, NodeAllocator};
use crate::base::SimRng;
use crate::machine::mesh::Mesh;

/// Uniformly random free nodes.
#[derive(Clone, Debug)]
pub struct RandomAlloc {
    rng: SimRng,
}

impl RandomAlloc {
    /// An allocator whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> RandomAlloc {
        RandomAlloc {
            rng: SimRng::new(seed),
        }
    }
}

impl NodeAllocator for RandomAlloc {
    fn name(&self) -> &'static str {
        "random"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let mut free = free_nodes(mesh);
        let j = j as usize;
        for i in 0..j {
            let k = self.rng.uniform_int(i as u64, (free.len() - 1) as u64) as usize;
            free.swap(i, k);
        }
        free.truncate(j);
        Some(free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_choice_and_all_nodes_reachable() {
        let m = Mesh::new(4, 4).unwrap();
        let a = RandomAlloc::new(3).select(&m, 5);
        assert_eq!(a, RandomAlloc::new(3).select(&m, 5));
        let mut r = RandomAlloc::new(4);
        let mut seen = [false; 16];
        for _ in 0..200 {
            for (x, y) in r.select(&m, 2).unwrap_or_default() {
                seen[((y - 1) * 4 + x - 1) as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
