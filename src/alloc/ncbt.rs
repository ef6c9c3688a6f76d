//! The non-contiguous binary-tree allocators (NCBT) of Liu et al. §3.2: ind-BT, ind-SBT,
//! ind-DBT (independent) and d-BT, d-SBT, d-DBT (dependent).
//!
//! A request of j nodes is split as MBS splits it ([`crate::alloc::mbs`]): j = Σ d_i · 4^i
//! asks for d_i sub-requests of 4^i nodes, largest first; each sub-request is placed by the
//! BT search of [`bt_tree::find`] (with the BT, SBT or DBT child rule) and takes a whole
//! entirely free tree rectangle of 4^i nodes (a 2^i × 2^i square on a power-of-two mesh; on
//! other meshes the first 4^i nodes, column-first, of the smallest rectangle that holds it).
//! A sub-request that finds no free rectangle is broken into four sub-requests of the next
//! smaller size, as in MBS, down to single nodes — so the NCBT allocators always succeed when
//! j nodes are free.
//!
//! * **Independent**: every sub-request is searched from the root.
//! * **Dependent**: the first sub-request is searched from the root; each next one starts at
//!   the parent of the rectangle A the previous sub-request got, A's sibling first (then A's
//!   own subtree, then the sibling of each further ancestor up to the root,
//!   [`bt_tree::find_near`]). The chain is kept only inside one `select` call.

use super::bt_tree::{self, Balance, Frame, Rect};
use super::node::{IoLayout, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// ind-BT/SBT/DBT or d-BT/SBT/DBT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonContiguousTree {
    io: IoLayout,
    balance: Balance,
    dependent: bool,
    name: &'static str,
}

/// One placed sub-request: its tree rectangle (I/O coordinates) and mesh nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubAllocation {
    /// The tree rectangle the sub-request was placed in.
    pub rect: Rect,
    /// Its nodes, column-first.
    pub nodes: Vec<Node>,
}

impl NonContiguousTree {
    /// The allocator for the I/O line `io`, with the child rule `balance`, `dependent` or
    /// independent sub-requests, reporting `name`.
    pub fn new(
        io: IoLayout,
        balance: Balance,
        dependent: bool,
        name: &'static str,
    ) -> NonContiguousTree {
        NonContiguousTree {
            io,
            balance,
            dependent,
            name,
        }
    }

    /// The sub-requests of a request of j nodes as placed, in order (`None` when fewer than
    /// j nodes are free).
    pub fn place(&self, mesh: &Mesh, j: u32) -> Option<Vec<SubAllocation>> {
        if j > mesh.free_count() {
            return None;
        }
        let mut frame = Frame::new(mesh, self.io);
        // Base-4 digits of j, largest size first.
        let mut top = 0usize;
        while 4u64.pow(top as u32 + 1) <= u64::from(j) {
            top += 1;
        }
        let mut want: Vec<u64> = (0..=top)
            .map(|i| u64::from(j) / 4u64.pow(i as u32) % 4)
            .collect();
        let mut prev: Option<Vec<Rect>> = None;
        let mut out = Vec::new();
        for i in (0..=top).rev() {
            let z = 4u64.pow(i as u32);
            while want[i] > 0 {
                let found = match (&prev, self.dependent) {
                    (Some(p), true) => bt_tree::find_near(&frame, p, z, self.balance),
                    _ => bt_tree::find_from_root(&frame, z, self.balance),
                };
                match found {
                    Some(path) => {
                        let rect = *path.last()?;
                        let nodes = frame.take(&rect.column_first(z));
                        out.push(SubAllocation { rect, nodes });
                        prev = Some(path);
                        want[i] -= 1;
                    }
                    None if i > 0 => {
                        // No free rectangle of this size: four of the next smaller size.
                        want[i - 1] += 4 * want[i];
                        want[i] = 0;
                    }
                    None => return None, // unreachable while j ≤ free
                }
            }
        }
        Some(out)
    }
}

impl NodeAllocator for NonContiguousTree {
    fn name(&self) -> &'static str {
        self.name
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        let subs = self.place(mesh, j)?;
        Some(subs.into_iter().flat_map(|s| s.nodes).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::compactness::free_blocks;
    use crate::machine::mesh::Submesh;

    fn put(m: &mut Mesh, job: usize, v: &[Node]) {
        for &(x, y) in v {
            m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
        }
    }

    fn alloc(dependent: bool) -> NonContiguousTree {
        NonContiguousTree::new(IoLayout::west(4), Balance::Left, dependent, "x")
    }

    fn sorted(mut v: Vec<Node>) -> Vec<Node> {
        v.sort_unstable();
        v
    }

    /// Fig. 1 (ind-BT) and Fig. 2 (d-BT) of the paper — the figures themselves are lost, so
    /// these are our trees for tasks of 5 then 3 nodes on an empty 4 × 4 mesh. Task 5 = 4 + 1:
    /// the south-west 2 × 2 square, then a single node; task 3 = 1 + 1 + 1. On an empty mesh
    /// both variants give the same trees (the sibling the dependent search tries first is
    /// also the next free leaf in left-first order).
    #[test]
    fn fig1_fig2_tasks_of_5_and_3_on_an_empty_mesh() {
        for dependent in [false, true] {
            let mut a = alloc(dependent);
            let mut m = Mesh::new(4, 4).unwrap();
            let t5 = a.place(&m, 5).unwrap();
            let rects: Vec<(u32, u32, u32, u32)> = t5
                .iter()
                .map(|s| (s.rect.c, s.rect.p, s.rect.w, s.rect.h))
                .collect();
            assert_eq!(rects, vec![(0, 0, 2, 2), (0, 2, 1, 1)]);
            let v5: Vec<Node> = t5.into_iter().flat_map(|s| s.nodes).collect();
            assert_eq!(v5, vec![(1, 1), (1, 2), (2, 1), (2, 2), (1, 3)]);
            put(&mut m, 0, &v5);
            let v3 = a.select(&m, 3).unwrap();
            assert_eq!(v3, vec![(1, 4), (2, 3), (2, 4)]);
            put(&mut m, 1, &v3);
            // The tree after both tasks: the west half is allocated, the east half (2 × 4) is
            // one free block.
            let free: Vec<(u32, u32, u32, u32)> = free_blocks(&m, IoLayout::west(4))
                .iter()
                .map(|r| (r.c, r.p, r.w, r.h))
                .collect();
            assert_eq!(free, vec![(2, 0, 2, 4)]);
        }
    }

    /// Where the variants differ: a free node far from the rest (at (1, 1)) and the tasks of
    /// Fig. 1/2. ind-BT puts task 5's single node in that hole; d-BT puts it next to the
    /// 2 × 2 square, in the sibling of the square's parent-level neighbour.
    #[test]
    fn dependent_keeps_sub_requests_together() {
        let mut m = Mesh::new(4, 4).unwrap();
        // West half busy except (1, 1).
        let west: Vec<Node> = (1..=2)
            .flat_map(|x| (1..=4).map(move |y| (x, y)))
            .filter(|&n| n != (1, 1))
            .collect();
        put(&mut m, 0, &west);
        let ind = alloc(false).select(&m, 5).unwrap();
        assert_eq!(ind, vec![(3, 1), (3, 2), (4, 1), (4, 2), (1, 1)]);
        let dep = alloc(true).select(&m, 5).unwrap();
        assert_eq!(dep, vec![(3, 1), (3, 2), (4, 1), (4, 2), (3, 3)]);
        // Task 3 after d-BT's task 5: three single nodes, each next to the previous.
        put(&mut m, 1, &dep);
        let d3 = alloc(true).select(&m, 3).unwrap();
        assert_eq!(d3, vec![(1, 1), (3, 4), (4, 3)]);
        let i3 = alloc(false).select(&m, 3).unwrap();
        assert_eq!(sorted(i3), vec![(1, 1), (3, 4), (4, 3)]);
    }

    #[test]
    fn breaks_missing_sizes_into_four() {
        let mut m = Mesh::new(4, 4).unwrap();
        // One busy node in every 2 × 2 square: a request of 4 takes four single nodes.
        put(&mut m, 0, &[(1, 1), (3, 1), (1, 3), (3, 3)]);
        for dep in [false, true] {
            let subs = alloc(dep).place(&m, 4).unwrap();
            assert_eq!(subs.len(), 4);
            assert!(subs.iter().all(|s| s.rect.area() == 1));
        }
        assert_eq!(alloc(true).select(&m, 13), None);
        assert_eq!(alloc(true).select(&m, 12).map(|v| v.len()), Some(12));
        assert_eq!(alloc(false).select(&m, 0), Some(vec![]));
    }
}
