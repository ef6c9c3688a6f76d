//! SCBT, the spatially compact binary-tree allocator of Liu et al. §4.1.1, on the orthogonal
//! division of [`crate::alloc::bt_tree`].
//!
//! A task of k nodes is written in binary, k = Σ d_i · 2^i, and each digit d_i = 1 is a
//! request of z = 2^i nodes, largest first. Each request walks down from the root p:
//!
//! * S(p) = z (the paper's first leaf sub-case, and also any internal node with exactly z free
//!   nodes): all free nodes of p go to the request; done.
//! * otherwise (S(p) > z): if S(L(p)) ≥ z, p ← L(p) (for an entirely free leaf this is the
//!   second sub-case: divide p and go left); else all free nodes of L(p) go to the request,
//!   z ← z − S(L(p)) and p ← R(p) (for a free leaf whose left half is too small this is the
//!   third sub-case, "allocate, subtract, go to R(P(p))", one level down).
//!
//! The walk keeps S(p) ≥ z, so it ends at the latest at a free 1 × 1 leaf with z = 1. Each
//! request therefore takes the first z free nodes in the leaf order of the tree (left subtree
//! before right), and the whole task the first k free nodes in that order — SCBT is first
//! fit along the orthogonal division's curve. Filling an empty mesh without departures it is
//! spatially compact (Lemma 1/2) and compact (Theorem 1); both are tested on power-of-two
//! meshes (`tests/it/binary_tree.rs`). The tree is stateless ([`Frame`]).

use super::bt_tree::{Frame, Rect};
use super::node::{IoLayout, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// The spatially compact BT allocator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpatiallyCompactTree {
    io: IoLayout,
}

impl SpatiallyCompactTree {
    /// SCBT for the I/O line `io`.
    pub fn new(io: IoLayout) -> SpatiallyCompactTree {
        SpatiallyCompactTree { io }
    }
}

/// One request of z nodes from the root (§4.1.1); returns the frame nodes it takes.
fn request(frame: &Frame, mut z: u64) -> Option<Vec<(u32, u32)>> {
    let mut p: Rect = frame.root();
    let mut out = Vec::with_capacity(z as usize);
    if frame.free_in(p) < z {
        return None;
    }
    while z > 0 {
        let s = frame.free_in(p);
        if s == z {
            out.extend(frame.free_nodes_in(p));
            break;
        }
        let (l, r) = p.children()?;
        let sl = frame.free_in(l);
        if sl >= z {
            p = l;
        } else {
            out.extend(frame.free_nodes_in(l));
            z -= sl;
            p = r;
        }
    }
    Some(out)
}

impl NodeAllocator for SpatiallyCompactTree {
    fn name(&self) -> &'static str {
        "scbt"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let mut frame = Frame::new(mesh, self.io);
        let mut out = Vec::with_capacity(j as usize);
        for i in (0..32).rev() {
            if j >> i & 1 == 1 {
                let nodes = request(&frame, 1u64 << i)?;
                out.extend(frame.take(&nodes));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    /// The leaf order of the orthogonal division under `r`.
    fn leaf_order(r: Rect, out: &mut Vec<(u32, u32)>) {
        match r.children() {
            Some((a, b)) => {
                leaf_order(a, out);
                leaf_order(b, out);
            }
            None => out.push((r.c, r.p)),
        }
    }

    #[test]
    fn first_free_nodes_in_leaf_order() {
        let mut m = Mesh::new(8, 4).unwrap();
        // A few busy nodes anywhere (with departures the property still holds).
        for (k, &(x, y)) in [(1, 1), (2, 3), (6, 2), (5, 4)].iter().enumerate() {
            m.allocate(k, Submesh::at(x, y, 1, 1)).unwrap();
        }
        let io = IoLayout::west(4);
        let frame = Frame::new(&m, io);
        let mut order = Vec::new();
        leaf_order(frame.root(), &mut order);
        let free_order: Vec<Node> = order
            .iter()
            .filter(|&&(c, p)| frame.is_free(c, p))
            .map(|&(c, p)| frame.node(c, p))
            .collect();
        for k in 0..=m.free_count() {
            let mut got = SpatiallyCompactTree::new(io).select(&m, k).unwrap();
            let mut want = free_order[..k as usize].to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "k = {k}");
        }
        assert_eq!(SpatiallyCompactTree::new(io).select(&m, 29), None);
    }

    #[test]
    fn binary_digits_and_orthogonal_order() {
        let m = Mesh::new(4, 4).unwrap();
        // 7 = 4 + 2 + 1: the south-west 2 × 2, the next column pair, one node.
        let v = SpatiallyCompactTree::new(IoLayout::west(4))
            .select(&m, 7)
            .unwrap();
        assert_eq!(
            v,
            vec![(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (1, 4), (2, 3)]
        );
    }
}
