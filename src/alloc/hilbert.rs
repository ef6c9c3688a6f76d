//! Hilbert-curve one-dimensional allocation (Liu et al. §1, after Leung et al. [3]): the compute
//! nodes are ordered along a Hilbert curve; the free nodes form maximal *intervals* of
//! consecutive curve positions. A request goes into one interval that can hold it — the first
//! (first fit), the smallest (best fit) or the one that keeps the free intervals' size
//! distribution most even (sum of squares) — and, when no interval is large enough, across
//! intervals: the j consecutive free nodes (in curve order) of minimal span (curve distance
//! from the first to the last).
//!
//! **Choices.** The curve is the standard Hilbert curve on the smallest 2^m × 2^m square that
//! covers the mesh, with positions outside the mesh skipped (so a 16 × 22 mesh has jumps where
//! the curve leaves it); an interval is a run of consecutive *mesh* positions. A request takes
//! the start of its interval. Sum of squares: choose the interval that minimises Σ_g N(g)²
//! after the allocation, N(g) being the number of free intervals of length g (the bin-packing
//! sum-of-squares rule Leung et al. adapt); ties keep the first interval. Minimal span ties keep
//! the first window.

use std::collections::BTreeMap;

use super::node::{Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// How an interval is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HilbertFit {
    /// The first interval (in curve order) that can hold the request.
    FirstFit,
    /// The smallest interval that can hold the request.
    BestFit,
    /// The interval minimising the sum of squares of the free-interval size counts.
    SumOfSquares,
}

impl HilbertFit {
    /// `ff`, `bf`, `ss`.
    pub fn as_str(self) -> &'static str {
        match self {
            HilbertFit::FirstFit => "ff",
            HilbertFit::BestFit => "bf",
            HilbertFit::SumOfSquares => "ss",
        }
    }
}

/// Position of (x, y) (0-based) on the Hilbert curve filling an n × n square (n a power of 2).
pub fn hilbert_index(n: u32, mut x: u32, mut y: u32) -> u64 {
    let mut d = 0u64;
    let mut s = n / 2;
    while s > 0 {
        let rx = u32::from(x & s > 0);
        let ry = u32::from(y & s > 0);
        d += u64::from(s) * u64::from(s) * u64::from((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = n - 1 - x;
                y = n - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}

/// Hilbert-curve allocation.
#[derive(Clone, Debug)]
pub struct Hilbert {
    fit: HilbertFit,
    /// Mesh size the cached order is for.
    size: (u32, u32),
    /// Mesh nodes in curve order.
    order: Vec<Node>,
}

impl Hilbert {
    /// Hilbert-curve allocation with the given fit.
    pub fn new(fit: HilbertFit) -> Hilbert {
        Hilbert {
            fit,
            size: (0, 0),
            order: Vec::new(),
        }
    }

    /// The mesh's nodes in curve order.
    pub fn curve(&mut self, w: u32, h: u32) -> &[Node] {
        if self.size != (w, h) {
            let mut n = 1;
            while n < w.max(h) {
                n *= 2;
            }
            let mut v: Vec<(u64, Node)> = (1..=h)
                .flat_map(|y| (1..=w).map(move |x| (x, y)))
                .map(|(x, y)| (hilbert_index(n, x - 1, y - 1), (x, y)))
                .collect();
            v.sort_unstable();
            self.order = v.into_iter().map(|(_, p)| p).collect();
            self.size = (w, h);
        }
        &self.order
    }
}

impl NodeAllocator for Hilbert {
    fn name(&self) -> &'static str {
        match self.fit {
            HilbertFit::FirstFit => "hilbert_ff",
            HilbertFit::BestFit => "hilbert_bf",
            HilbertFit::SumOfSquares => "hilbert_ss",
        }
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        if j == 0 {
            return Some(Vec::new());
        }
        let fit = self.fit;
        let order = self.curve(mesh.width(), mesh.height());
        // Free intervals (start, length) in curve order.
        let mut intervals: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let (x, y) = order[i];
            if mesh.is_free(x, y) {
                let s = i;
                while i < order.len() && mesh.is_free(order[i].0, order[i].1) {
                    i += 1;
                }
                intervals.push((s, i - s));
            } else {
                i += 1;
            }
        }
        let j = j as usize;
        let fitting = intervals.iter().copied().filter(|&(_, l)| l >= j);
        let chosen = match fit {
            HilbertFit::FirstFit => fitting.clone().next(),
            HilbertFit::BestFit => fitting.clone().min_by_key(|&(s, l)| (l, s)),
            HilbertFit::SumOfSquares => {
                let mut count: BTreeMap<usize, i64> = BTreeMap::new();
                for &(_, l) in &intervals {
                    *count.entry(l).or_default() += 1;
                }
                let get = |m: &BTreeMap<usize, i64>, l: usize| m.get(&l).copied().unwrap_or(0);
                // Change of Σ N(g)² when an interval of length l shrinks to l − j.
                fitting.clone().min_by_key(|&(s, l)| {
                    let nl = get(&count, l);
                    let mut delta = -2 * nl + 1;
                    if l > j {
                        delta += 2 * get(&count, l - j) + 1;
                    }
                    (delta, s)
                })
            }
        };
        if let Some((s, _)) = chosen {
            return Some(order[s..s + j].to_vec());
        }
        // Across intervals: j consecutive free positions of minimal span.
        let free_pos: Vec<usize> = (0..order.len())
            .filter(|&p| mesh.is_free(order[p].0, order[p].1))
            .collect();
        let start =
            (0..=free_pos.len() - j).min_by_key(|&a| (free_pos[a + j - 1] - free_pos[a], a))?;
        Some(
            free_pos[start..start + j]
                .iter()
                .map(|&p| order[p])
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    #[test]
    fn curve_is_a_hamiltonian_path_of_unit_steps() {
        for n in [2u32, 4, 8, 16] {
            let mut pts: Vec<(u64, u32, u32)> = (0..n)
                .flat_map(|y| (0..n).map(move |x| (hilbert_index(n, x, y), x, y)))
                .collect();
            pts.sort_unstable();
            for (k, p) in pts.iter().enumerate() {
                assert_eq!(p.0, k as u64);
            }
            for w in pts.windows(2) {
                assert_eq!(
                    w[0].1.abs_diff(w[1].1) + w[0].2.abs_diff(w[1].2),
                    1,
                    "n={n}"
                );
            }
        }
        assert_eq!(hilbert_index(2, 0, 0), 0);
        let mut h = Hilbert::new(HilbertFit::FirstFit);
        assert_eq!(h.curve(2, 2), &[(1, 1), (1, 2), (2, 2), (2, 1)]);
        assert_eq!(h.curve(22, 16).len(), 352);
    }

    #[test]
    fn fits_choose_the_expected_interval() {
        // A 2 × 2 mesh: curve order (1,1), (1,2), (2,2), (2,1).
        let mut m = Mesh::new(2, 2).unwrap();
        m.allocate(0, Submesh::at(1, 2, 1, 1)).unwrap();
        // Free intervals: [(1,1)] and [(2,2),(2,1)].
        let ff = Hilbert::new(HilbertFit::FirstFit).select(&m, 1);
        assert_eq!(ff, Some(vec![(1, 1)]));
        let bf = Hilbert::new(HilbertFit::BestFit).select(&m, 1);
        assert_eq!(bf, Some(vec![(1, 1)]));
        let two = Hilbert::new(HilbertFit::BestFit).select(&m, 2);
        assert_eq!(two, Some(vec![(2, 2), (2, 1)]));
        // No interval of 3: minimal span over the free positions 0, 2, 3.
        let three = Hilbert::new(HilbertFit::FirstFit).select(&m, 3);
        assert_eq!(three, Some(vec![(1, 1), (2, 2), (2, 1)]));
        // Sum of squares: intervals of lengths 1 and 2 and a request of 1. Taking the single
        // node leaves {2}: Σ = 1; taking from the pair leaves {1, 1}: Σ = 4.
        let ss = Hilbert::new(HilbertFit::SumOfSquares).select(&m, 1);
        assert_eq!(ss, Some(vec![(1, 1)]));
    }
}
