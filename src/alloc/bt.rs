//! The contiguous binary-tree allocators of Liu et al. §3.1: BT, SBT (static imbalance
//! tolerance) and DBT (dynamic imbalance tolerance), on the allocation tree of
//! [`crate::alloc::bt_tree`].
//!
//! A request of R nodes goes to the first entirely free tree rectangle of the smallest size
//! that holds it (area A with A/2 < R ≤ A on a power-of-two mesh), found by a depth-first
//! search that backtracks to the sibling on external fragmentation ([`bt_tree::find`]); the
//! job gets the first R nodes of the rectangle column-first (the line next to the I/O side
//! first), a wide front towards the I/O nodes. BT tries the left child first; SBT and DBT
//! choose between two children that could both hold the request by the imbalance rule of
//! [`Balance::order`]. The search backtracks whatever the rule, so all three find a free
//! rectangle whenever one of the right size exists — and return `None` when none does, even
//! if R nodes are free (contiguous allocation, external fragmentation). See
//! `docs/binary-tree.md`.

use super::bt_tree::{self, Balance, Frame};
use super::node::{IoLayout, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// BT, SBT or DBT (contiguous).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryTree {
    io: IoLayout,
    balance: Balance,
    name: &'static str,
}

impl BinaryTree {
    /// The allocator for the I/O line `io`, choosing children by `balance`, reporting `name`.
    pub fn new(io: IoLayout, balance: Balance, name: &'static str) -> BinaryTree {
        BinaryTree { io, balance, name }
    }

    /// The rectangle (I/O coordinates) and the chosen nodes, without the mesh mapping.
    pub fn place(&self, mesh: &Mesh, j: u32) -> Option<(bt_tree::Rect, Vec<Node>)> {
        let r = u64::from(j);
        if r == 0 || r > u64::from(mesh.free_count()) {
            return None;
        }
        let mut frame = Frame::new(mesh, self.io);
        let path = bt_tree::find_from_root(&frame, r, self.balance)?;
        let rect = *path.last()?;
        let nodes = frame.take(&rect.column_first(r));
        Some((rect, nodes))
    }
}

impl NodeAllocator for BinaryTree {
    fn name(&self) -> &'static str {
        self.name
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j == 0 {
            return Some(Vec::new());
        }
        self.place(mesh, j).map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    fn bt() -> BinaryTree {
        BinaryTree::new(IoLayout::west(8), Balance::Left, "bt")
    }

    fn put(m: &mut Mesh, job: usize, v: &[Node]) {
        for &(x, y) in v {
            m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
        }
    }

    #[test]
    fn smallest_rectangle_column_first() {
        let m = Mesh::new(8, 8).unwrap();
        // 5 nodes: a rectangle of 8 (2 wide, 4 tall, next to the I/O side), two columns.
        let v = bt().select(&m, 5).unwrap();
        assert_eq!(v, vec![(1, 1), (1, 2), (1, 3), (1, 4), (2, 1)]);
        // 16 nodes: the south-west 4 × 4 square.
        let (r, _) = bt().place(&m, 16).unwrap();
        assert_eq!((r.c, r.p, r.w, r.h), (0, 0, 4, 4));
        // 17: a 4 × 8 half, column-first.
        let v = bt().select(&m, 17).unwrap();
        assert_eq!(v[8], (2, 1));
        assert_eq!(v[16], (3, 1));
    }

    #[test]
    fn backtracks_on_external_fragmentation() {
        let mut m = Mesh::new(4, 4).unwrap();
        // One busy node in each 2 × 2 square except the north-east one: 12 free nodes, but
        // only one free rectangle of 4.
        put(&mut m, 0, &[(1, 1), (1, 3), (3, 1)]);
        let (r, v) = bt().place(&m, 4).unwrap();
        assert_eq!((r.c, r.p), (2, 2));
        assert_eq!(v, vec![(3, 3), (3, 4), (4, 3), (4, 4)]);
        // No free 8-rectangle although 13 nodes are free: contiguous BT fails.
        assert_eq!(bt().select(&m, 5), None);
        assert_eq!(bt().select(&m, 0), Some(vec![]));
    }

    #[test]
    fn tolerance_chooses_heavier_or_lighter_child() {
        let mut m = Mesh::new(4, 4).unwrap();
        // West half (2 × 4) has 2 busy nodes: it is the heavier child of the root.
        put(&mut m, 0, &[(1, 1), (1, 2)]);
        let west_first = |bal| {
            BinaryTree::new(IoLayout::west(4), bal, "x")
                .place(&m, 2)
                .unwrap()
                .0
                .c
                < 2
        };
        // Heavier (west): imbalance after = 8 − 6 + 2 = 4.
        assert!(west_first(Balance::Static(4)));
        assert!(!west_first(Balance::Static(3)));
        // DBT at the root (area 16): ratio 1/4 → α = 4 (heavier), 1/8 → α = 2 (lighter).
        assert!(west_first(Balance::Dynamic(4)));
        assert!(!west_first(Balance::Dynamic(8)));
        // BT ignores the load.
        assert!(west_first(Balance::Left));
    }
}
