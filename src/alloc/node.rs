//! What a non-contiguous allocator is (Mache et al. §3; Liu et al. §1): the [`NodeAllocator`]
//! trait, which returns any set of j distinct free nodes of a 2D mesh, and the helpers the
//! allocators share: the free-node list and the geometry of the I/O line ([`IoLayout`]:
//! "columns" parallel to the I/O nodes, numbered from the I/O side, and the middle-out order
//! around the middle I/O link of Mache et al. §2.3). The allocators by name are
//! [`super::node_allocator`].

use crate::machine::mesh::Mesh;
use crate::network::{IoSide, Network};

/// A compute node (x, y), 1-based as in [`Mesh`].
pub type Node = (u32, u32);

/// Chooses which free nodes a job of j nodes gets (not necessarily a rectangle).
pub trait NodeAllocator {
    /// Short name (as in [`NodeAllocatorKind::as_str`]).
    fn name(&self) -> &'static str;
    /// j distinct free nodes of `mesh`, or `None` when fewer than j nodes are free (j = 0 gives
    /// an empty set). Does not allocate. A contiguous allocator (BT, SBT, DBT of Liu et al.) may
    /// also return `None` when j nodes are free but not in a shape it accepts.
    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>>;
}

/// The free nodes of a mesh, row by row from row 1.
pub fn free_nodes(mesh: &Mesh) -> Vec<Node> {
    let mut v = Vec::with_capacity(mesh.free_count() as usize);
    for y in 1..=mesh.height() {
        for x in 1..=mesh.width() {
            if mesh.is_free(x, y) {
                v.push((x, y));
            }
        }
    }
    v
}

/// Geometry of the I/O line as the I/O-aware allocators (PLAS, MC-Elongated) see it: lines of
/// nodes parallel to the I/O nodes ("columns", Mache et al. §3.2), numbered 0, 1, … from the I/O
/// side, and positions 1..=len along each line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoLayout {
    /// Side of the I/O nodes.
    pub side: IoSide,
    /// Twice the coordinate of the middle I/O link along the line ([`Network::middle_twice`]).
    pub middle_twice: u32,
}

impl IoLayout {
    /// The layout of a network's I/O line.
    pub fn of(net: &Network) -> IoLayout {
        IoLayout {
            side: net.io_side(),
            middle_twice: net.middle_twice(),
        }
    }

    /// Mache et al. §4.1 for a mesh `height` rows high: one I/O node per row on the west side.
    pub fn west(height: u32) -> IoLayout {
        IoLayout {
            side: IoSide::West,
            middle_twice: height + 1,
        }
    }

    /// Number of lines (columns parallel to the I/O side) of `mesh`.
    pub fn lines(&self, mesh: &Mesh) -> u32 {
        if self.side.is_vertical() {
            mesh.width()
        } else {
            mesh.height()
        }
    }

    /// Length of a line (k in Mache et al. §3.2).
    pub fn line_len(&self, mesh: &Mesh) -> u32 {
        if self.side.is_vertical() {
            mesh.height()
        } else {
            mesh.width()
        }
    }

    /// The node at position `p` (1-based) of line `c` (0 = next to the I/O nodes).
    pub fn node(&self, mesh: &Mesh, c: u32, p: u32) -> Node {
        match self.side {
            IoSide::West => (c + 1, p),
            IoSide::East => (mesh.width() - c, p),
            IoSide::South => (p, c + 1),
            IoSide::North => (p, mesh.height() - c),
        }
    }

    /// (line, position) of a node.
    pub fn line_pos(&self, mesh: &Mesh, n: Node) -> (u32, u32) {
        let (x, y) = n;
        match self.side {
            IoSide::West => (x - 1, y),
            IoSide::East => (mesh.width() - x, y),
            IoSide::South => (y - 1, x),
            IoSide::North => (mesh.height() - y, x),
        }
    }

    /// Distance level of position `p` from the middle I/O link: |2p − middle_twice| (smaller
    /// is nearer; positions on either side at the same distance share a level).
    pub fn level(&self, p: u32) -> u32 {
        (2 * p).abs_diff(self.middle_twice)
    }

    /// −1 below the middle, +1 above it, 0 level with it.
    pub fn side_of(&self, p: u32) -> i64 {
        match (2 * p).cmp(&self.middle_twice) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }
    }

    /// Positions 1..=len in middle-out order (Mache et al. Fig. 5): by level, below before above.
    pub fn middle_out(&self, len: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (1..=len).collect();
        v.sort_by_key(|&p| (self.level(p), self.side_of(p)));
        v
    }

    /// (above − below) over the allocated nodes of `mesh`.
    pub fn imbalance(&self, mesh: &Mesh) -> i64 {
        let mut s = 0;
        for c in 0..self.lines(mesh) {
            for p in 1..=self.line_len(mesh) {
                let (x, y) = self.node(mesh, c, p);
                if !mesh.is_free(x, y) {
                    s += self.side_of(p);
                }
            }
        }
        s
    }
}
