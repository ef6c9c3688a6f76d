//! MC, Minimizing Contention (seed 000 §2.2 and §3.1; Mache, Lo and Windisch [12]): for every
//! placement of a request-shaped submesh (shell 0), free nodes are taken from shell 0 and then
//! from the successive rectangular rings around it (shell s = nodes at distance s in
//! max(Δx, Δy) from shell 0) until j are found; the cost of a candidate is the sum of the shell
//! numbers of its nodes, and the candidate of minimal cost is allocated.
//!
//! **Choices.** Jobs here ask for a size j, not a shape. Shell 0 is tried in every shape a × b
//! = j that fits the mesh (widest first); when j has no such factorisation, in the squarest
//! a × b ≥ j that fits. Candidates are tried shape by shape, bases row-major; ties keep the
//! first. A candidate of cost 0 is a free a × b = j rectangle, so MC returns a contiguous
//! rectangle whenever a free j-node rectangle exists (tested). Within a shell, nodes are taken
//! in MC's order — shorter sides first, longer sides second, corners last (seed 000 Property
//! 4) — row-major within each class.

use super::node_allocator::{free_nodes, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// Minimizing Contention.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinimizingContention;

/// Shell-0 shapes (a wide, b high) tried for a request of j nodes on a w × h mesh.
pub fn shapes(j: u32, w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = (1..=j.min(w))
        .rev()
        .filter(|a| j % a == 0 && j / a <= h)
        .map(|a| (a, j / a))
        .collect();
    if v.is_empty() {
        let mut a = 1;
        while a * a < j {
            a += 1;
        }
        let a = a.min(w).max(j.div_ceil(h)).min(w);
        v.push((a, j.div_ceil(a).min(h)));
    }
    v
}

/// Chebyshev distance from (x, y) to the rectangle [x1, x2] × [y1, y2].
fn dist(x: u32, y: u32, x1: u32, y1: u32, x2: u32, y2: u32) -> u32 {
    let dx = x1.saturating_sub(x).max(x.saturating_sub(x2));
    let dy = y1.saturating_sub(y).max(y.saturating_sub(y2));
    dx.max(dy)
}

impl NodeAllocator for MinimizingContention {
    fn name(&self) -> &'static str {
        "mc"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        if j == 0 {
            return Some(Vec::new());
        }
        let (w, h) = (mesh.width(), mesh.height());
        let free = free_nodes(mesh);
        let maxd = w.max(h) as usize + 1;
        let mut hist = vec![0u32; maxd];
        // (cost, rectangle)
        let mut best: Option<(u64, (u32, u32, u32, u32))> = None;
        'shapes: for (a, b) in shapes(j, w, h) {
            for y1 in 1..=h - b + 1 {
                for x1 in 1..=w - a + 1 {
                    let (x2, y2) = (x1 + a - 1, y1 + b - 1);
                    hist.fill(0);
                    for &(x, y) in &free {
                        hist[dist(x, y, x1, y1, x2, y2) as usize] += 1;
                    }
                    let (mut need, mut cost) = (u64::from(j), 0u64);
                    for (s, &n) in hist.iter().enumerate() {
                        let take = need.min(u64::from(n));
                        cost += take * s as u64;
                        need -= take;
                        if need == 0 {
                            break;
                        }
                    }
                    if best.is_none_or(|(c, _)| cost < c) {
                        best = Some((cost, (x1, y1, x2, y2)));
                        if cost == 0 {
                            break 'shapes;
                        }
                    }
                }
            }
        }
        let (_, (x1, y1, x2, y2)) = best?;
        let shorter_is_x = (x2 - x1) <= (y2 - y1); // left/right sides are the shorter ones
        let class = |x: u32, y: u32| -> u32 {
            let d = dist(x, y, x1, y1, x2, y2);
            if d == 0 {
                return 0;
            }
            let dx = x1.saturating_sub(x).max(x.saturating_sub(x2));
            let dy = y1.saturating_sub(y).max(y.saturating_sub(y2));
            let on_lr = dx == d && dy < d; // left/right side of the ring
            let on_tb = dy == d && dx < d;
            match (on_lr, on_tb) {
                (true, _) if shorter_is_x => 0,
                (_, true) if !shorter_is_x => 0,
                (true, _) | (_, true) => 1,
                _ => 2,
            }
        };
        let mut order: Vec<(u32, u32, u32, u32, u32)> = free
            .iter()
            .map(|&(x, y)| (dist(x, y, x1, y1, x2, y2), class(x, y), y, x, 0))
            .collect();
        order.sort_unstable();
        Some(
            order
                .iter()
                .take(j as usize)
                .map(|&(_, _, y, x, _)| (x, y))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::tests::random_mesh;
    use crate::base::SimRng;

    #[test]
    fn shapes_prefer_exact_factorisations() {
        assert_eq!(shapes(6, 4, 4), vec![(3, 2), (2, 3)]);
        assert_eq!(shapes(7, 4, 4), vec![(3, 3)]);
        assert_eq!(shapes(7, 8, 8), vec![(7, 1), (1, 7)]);
        assert_eq!(shapes(13, 4, 4), vec![(4, 4)]);
        assert_eq!(shapes(1, 1, 1), vec![(1, 1)]);
    }

    fn is_rectangle(v: &[Node]) -> bool {
        let x1 = v.iter().map(|n| n.0).min().unwrap_or(0);
        let x2 = v.iter().map(|n| n.0).max().unwrap_or(0);
        let y1 = v.iter().map(|n| n.1).min().unwrap_or(0);
        let y2 = v.iter().map(|n| n.1).max().unwrap_or(0);
        ((x2 - x1 + 1) * (y2 - y1 + 1)) as usize == v.len()
    }

    /// MC returns a contiguous rectangle whenever a free rectangle of j nodes exists.
    #[test]
    fn contiguous_rectangle_whenever_one_exists() {
        let mut rng = SimRng::new(11);
        for &(w, h) in &[(4, 4), (6, 5), (8, 8), (22, 16)] {
            for _ in 0..30 {
                let p = rng.uniform01() * 0.7;
                let m = random_mesh(&mut rng, w, h, p);
                for j in 1..=m.free_count().min(24) {
                    let exists = shapes(j, w, h).iter().any(|&(a, b)| {
                        a * b == j && !crate::alloc::brute::placements(&m, a, b).is_empty()
                    });
                    let v = MinimizingContention.select(&m, j).unwrap();
                    assert_eq!(v.len(), j as usize);
                    if exists {
                        assert!(is_rectangle(&v), "j={j} {v:?}\n{}", m.render());
                    }
                }
            }
        }
    }

    #[test]
    fn ring_order_shorter_sides_first() {
        let mut m = Mesh::new(5, 5).unwrap();
        // Busy centre row except (3, 3): a request of 3 must spread out.
        for (k, x) in [1u32, 2, 4, 5].into_iter().enumerate() {
            m.allocate(k, crate::machine::mesh::Submesh::at(x, 3, 1, 1))
                .unwrap();
        }
        let v = MinimizingContention.select(&m, 2).unwrap();
        assert_eq!(v.len(), 2);
        assert!(is_rectangle(&v));
    }
}
