//! PLAS, the Parallel Layout Allocation Strategy (Mache et al. §2.3, §3.1 and Fig. 5; Mache, Lo,
//! Livingston and Garg [11, 10]): a fixed scanning order — lines parallel to the I/O nodes
//! ("columns"), starting with the one next to the I/O nodes, each scanned middle-out around the
//! middle I/O link — and first fit: the first j free nodes in that order.
//!
//! **Choice — Fig. 5.** We do not have the figure; within a column the order is by distance
//! from the middle I/O link, the node below before the node above at the same distance
//! ([`IoLayout::middle_out`]). Filling an empty mesh without departures, every prefix of this
//! order is balanced to within one node, so the system balance factor is 0 whenever an even
//! number of nodes is allocated (Mache et al. Property 4, tested).

use super::node::{IoLayout, Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// PLAS for a given I/O line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plas {
    io: IoLayout,
}

impl Plas {
    /// PLAS for the I/O line `io`.
    pub fn new(io: IoLayout) -> Plas {
        Plas { io }
    }
}

impl NodeAllocator for Plas {
    fn name(&self) -> &'static str {
        "plas"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let order = self.io.middle_out(self.io.line_len(mesh));
        let mut v = Vec::with_capacity(j as usize);
        for c in 0..self.io.lines(mesh) {
            for &p in &order {
                if v.len() == j as usize {
                    return Some(v);
                }
                let (x, y) = self.io.node(mesh, c, p);
                if mesh.is_free(x, y) {
                    v.push((x, y));
                }
            }
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::tests::fill_without_departures;

    #[test]
    fn scans_columns_from_the_io_side_middle_out() {
        let m = Mesh::new(22, 16).unwrap();
        let mut p = Plas::new(IoLayout::west(16));
        let v = p.select(&m, 18).unwrap();
        assert_eq!(&v[..4], &[(1, 8), (1, 9), (1, 7), (1, 10)]);
        assert_eq!(&v[16..], &[(2, 8), (2, 9)]);
    }

    /// Mache et al. Property 4.
    #[test]
    fn balanced_when_filling_an_empty_mesh() {
        fill_without_departures(|io| Box::new(Plas::new(io)), false, 0);
    }
}
