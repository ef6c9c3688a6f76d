//! The straightforward MC (Mache et al. §3.1) and MC-Elongated (Mache et al. §3.2) as they were
//! before the per-shell counts of `shells.rs`: for every candidate, a histogram of every free node's shell number
//! (O(candidates × free nodes) per decision). Kept unchanged as the oracle of the property
//! tests that the fast versions ([`crate::alloc::mc`], [`crate::alloc::mc_elongated`], through
//! [`crate::alloc::shells`]) choose exactly the same nodes in the same order, and as the
//! "before" of `schedlab bench network --reference`.

use super::mc::{dist, ring_class, shapes};
use super::mc_elongated::{dist as dist_line, take_by_shells, McElongated};
use super::node::{free_nodes, IoLayout, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// MC as it was before the per-shell counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McReference;

/// MC-Elongated as it was before the per-shell counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McElongatedReference {
    io: IoLayout,
}

impl McElongatedReference {
    /// MC-Elongated (straightforward) for the I/O line `io`.
    pub fn new(io: IoLayout) -> McElongatedReference {
        McElongatedReference { io }
    }

    /// Shell 0 of column `i` (`McElongated::shell0`: the shell-0 rule did not change).
    fn shell0(&self, mesh: &Mesh, i: u32, j: u32, below_first: bool) -> (u32, u32, u32, u32) {
        McElongated::new(self.io).shell0(mesh, i, j, below_first)
    }
}

/// The cost of a candidate from its shell histogram: the sum of the shell numbers of the `j`
/// nearest free nodes.
fn histogram_cost(hist: &[u32], j: u32) -> u64 {
    let (mut need, mut cost) = (u64::from(j), 0u64);
    for (s, &n) in hist.iter().enumerate() {
        let take = need.min(u64::from(n));
        cost += take * s as u64;
        need -= take;
        if need == 0 {
            break;
        }
    }
    cost
}

impl NodeAllocator for McReference {
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
                    let cost = histogram_cost(&hist, j);
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
        let mut order: Vec<(u32, u32, u32, u32, u32)> = free
            .iter()
            .map(|&(x, y)| {
                (
                    dist(x, y, x1, y1, x2, y2),
                    ring_class(x, y, x1, y1, x2, y2),
                    y,
                    x,
                    0,
                )
            })
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

impl NodeAllocator for McElongatedReference {
    fn name(&self) -> &'static str {
        "mc_elongated"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        if j == 0 {
            return Some(Vec::new());
        }
        let io = self.io;
        let (lines, k) = (io.lines(mesh), io.line_len(mesh));
        // Free nodes in line coordinates.
        let mut free: Vec<(u32, u32)> = Vec::with_capacity(mesh.free_count() as usize);
        for c in 0..lines {
            for p in 1..=k {
                let (x, y) = io.node(mesh, c, p);
                if mesh.is_free(x, y) {
                    free.push((c, p));
                }
            }
        }
        let mut hist = vec![0u32; lines.max(k) as usize + 1];
        let imbalance = io.imbalance(mesh);
        let mut best: Option<(u64, (u32, u32, u32, u32))> = None;
        for i in 0..lines {
            let r = self.shell0(mesh, i, j, imbalance >= 0);
            hist.fill(0);
            for &(c, p) in &free {
                hist[dist_line(c, p, r) as usize] += 1;
            }
            let cost = histogram_cost(&hist, j);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, r));
            }
        }
        let (_, r) = best?;
        take_by_shells(mesh, io, &free, r, j, imbalance)
    }
}

// proptest is a native-only dev-dependency (Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::alloc::mc::MinimizingContention;
    use crate::alloc::mc_elongated::McElongated;
    use crate::alloc::node_allocator::tests::random_mesh;
    use crate::base::SimRng;
    use crate::machine::mesh::Submesh;
    use crate::network::{IoSide, Network, NetworkConfig};
    use proptest::prelude::*;

    const SIDES: [IoSide; 4] = [IoSide::West, IoSide::East, IoSide::South, IoSide::North];

    /// A busy state of a w × h mesh: each node busy with probability `p`, then (when
    /// `blocks`) random rectangles busy too, as jobs leave them in the flow engine.
    fn state(seed: u64, w: u32, h: u32, p: f64, blocks: u32) -> Mesh {
        let mut rng = SimRng::new(seed);
        let mut m = random_mesh(&mut rng, w, h, p);
        // Job numbers of the blocks' nodes follow every number `random_mesh` can have used.
        let mut job = (w * h) as usize;
        for _ in 0..blocks {
            let x1 = rng.uniform_int(1, u64::from(w)) as u32;
            let y1 = rng.uniform_int(1, u64::from(h)) as u32;
            let x2 = rng.uniform_int(u64::from(x1), u64::from(w.min(x1 + 6))) as u32;
            let y2 = rng.uniform_int(u64::from(y1), u64::from(h.min(y1 + 6))) as u32;
            for y in y1..=y2 {
                for x in x1..=x2 {
                    if m.is_free(x, y) {
                        m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
                        job += 1;
                    }
                }
            }
        }
        m
    }

    /// The I/O line of a w × h machine with the I/O nodes on `side` (`io_count` of them, 0 for
    /// one per line position), as `NodeAllocatorKind::build` reads it.
    fn layout(w: u32, h: u32, side: IoSide, io_count: u32) -> IoLayout {
        let len = if side.is_vertical() { h } else { w };
        let net = Network::new(NetworkConfig {
            width: w,
            height: h,
            io_side: side,
            io_count: (io_count > 0).then_some(io_count.min(len)),
        })
        .unwrap();
        IoLayout::of(&net)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Fast MC chooses exactly the nodes, in the same order, of the straightforward one.
        #[test]
        fn mc_same_as_reference(
            seed in any::<u64>(), w in 1u32..=20, h in 1u32..=20, p in 0.0f64..0.95,
            blocks in 0u32..6, jf in 0.0f64..1.0,
        ) {
            let m = state(seed, w, h, p, blocks);
            let free = m.free_count();
            for j in [0, 1, 2, (f64::from(free) * jf) as u32, free, free + 1] {
                prop_assert_eq!(
                    MinimizingContention.select(&m, j),
                    McReference.select(&m, j),
                    "j={}\n{}", j, m.render()
                );
            }
        }

        /// Fast MC-Elongated chooses exactly the nodes, in the same order, of the
        /// straightforward one, for every side of the I/O nodes and I/O counts.
        #[test]
        fn mc_elongated_same_as_reference(
            seed in any::<u64>(), w in 1u32..=24, h in 1u32..=24, p in 0.0f64..0.95,
            blocks in 0u32..6, jf in 0.0f64..1.0, side in 0usize..4, io_count in 0u32..8,
        ) {
            let m = state(seed, w, h, p, blocks);
            let io = layout(w, h, SIDES[side], io_count);
            let free = m.free_count();
            for j in [0, 1, 2, (f64::from(free) * jf) as u32, free, free + 1] {
                prop_assert_eq!(
                    McElongated::new(io).select(&m, j),
                    McElongatedReference::new(io).select(&m, j),
                    "j={} {:?}\n{}", j, io, m.render()
                );
            }
        }

        /// Both, along a run: jobs of exponential sizes arrive and leave (each decision on
        /// the state the previous ones left), as in the flow engine.
        #[test]
        fn same_as_reference_along_a_run(
            seed in any::<u64>(), w in 1u32..=40, h in 1u32..=40, side in 0usize..4,
            io_count in 0u32..4, mean in 1.0f64..40.0,
        ) {
            let io = layout(w, h, SIDES[side], io_count);
            let mut rng = SimRng::new(seed);
            let mut m = Mesh::new(w, h).unwrap();
            let mut held: Vec<Vec<Node>> = Vec::new();
            let mut fast = McElongated::new(io);
            let mut slow = McElongatedReference::new(io);
            for step in 0..30 {
                if !held.is_empty() && rng.bernoulli(0.4) {
                    let k = rng.uniform_int(0, held.len() as u64 - 1) as usize;
                    for (x, y) in held.swap_remove(k) {
                        let job = m.owner_at(x, y).unwrap();
                        m.release(job, Submesh::at(x, y, 1, 1)).unwrap();
                    }
                    continue;
                }
                let j = (rng.exponential(mean) as u32).max(1);
                let mc = MinimizingContention.select(&m, j);
                prop_assert_eq!(&mc, &McReference.select(&m, j), "step {} j={}\n{}", step, j, m.render());
                let v = fast.select(&m, j);
                prop_assert_eq!(&v, &slow.select(&m, j), "step {} j={} {:?}\n{}", step, j, io, m.render());
                // Alternate which allocator's choice the run continues with.
                let Some(v) = (if step % 2 == 0 { v } else { mc }) else { continue };
                let job = step as usize;
                for &(x, y) in &v {
                    m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
                }
                held.push(v);
            }
        }
    }

    /// Larger meshes, non-square, every side of the I/O nodes.
    #[test]
    fn larger_meshes_same_as_reference() {
        let mut rng = SimRng::new(23);
        for &(w, h) in &[(64, 48), (33, 70)] {
            for side in SIDES {
                let io = layout(w, h, side, 0);
                let m = state(rng.next_u64(), w, h, rng.uniform01() * 0.9, 20);
                for j in [1, 7, 16, 33, 48, 100] {
                    assert_eq!(
                        McElongated::new(io).select(&m, j),
                        McElongatedReference::new(io).select(&m, j),
                        "{w}×{h} {side:?} j={j}"
                    );
                    if side == IoSide::West {
                        assert_eq!(
                            MinimizingContention.select(&m, j),
                            McReference.select(&m, j),
                            "{w}×{h} j={j}"
                        );
                    }
                }
            }
        }
    }

    /// MC on nearly full meshes, where its row bounds are deepened past shell 0 (free nodes
    /// scattered, so most candidates pass the shell-0 bound).
    #[test]
    fn mc_on_nearly_full_meshes_same_as_reference() {
        let mut rng = SimRng::new(29);
        for &(w, h, p) in &[(64, 48, 0.9), (48, 64, 0.85), (70, 33, 0.95)] {
            let m = state(rng.next_u64(), w, h, p, 0);
            for j in [1, 6, 12, 17, 30, 40] {
                assert_eq!(
                    MinimizingContention.select(&m, j),
                    McReference.select(&m, j),
                    "{w}×{h} p={p} j={j}"
                );
            }
        }
    }
}
