//! Paging(i) non-contiguous allocation (Mache et al. §4.1; Lo et al. [8]): the mesh is cut into
//! square pages of side 2^i, numbered row-major (row 1 first, west to east) — which makes
//! layouts perpendicular to west-side I/O nodes, as Mache et al. notes. A request takes free
//! nodes page by page in page order, row-major inside each page.
//!
//! **Choice.** The contract of [`NodeAllocator`] is exactly j nodes, so the last page is used
//! partially (no internal fragmentation), and a partially used page still offers its free
//! nodes to later requests. Pages at the east and north edges of a mesh whose sides are not
//! multiples of 2^i are smaller. Paging(0) is row-major node order.

use super::node::{Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// Paging with pages of side 2^`index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    index: u32,
}

impl Paging {
    /// Pages of side 2^`index` (`index` is capped at 15).
    pub fn new(index: u32) -> Paging {
        Paging {
            index: index.min(15),
        }
    }
}

impl NodeAllocator for Paging {
    fn name(&self) -> &'static str {
        match self.index {
            0 => "paging_0",
            1 => "paging_1",
            2 => "paging_2",
            3 => "paging_3",
            _ => "paging",
        }
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let side = 1u32 << self.index;
        let (w, h) = (mesh.width(), mesh.height());
        let mut v = Vec::with_capacity(j as usize);
        let mut py = 1;
        while py <= h {
            let mut px = 1;
            while px <= w {
                for y in py..=(py + side - 1).min(h) {
                    for x in px..=(px + side - 1).min(w) {
                        if v.len() == j as usize {
                            return Some(v);
                        }
                        if mesh.is_free(x, y) {
                            v.push((x, y));
                        }
                    }
                }
                px += side;
            }
            py += side;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    #[test]
    fn row_major_pages() {
        let mut m = Mesh::new(4, 4).unwrap();
        assert_eq!(
            Paging::new(0).select(&m, 5),
            Some(vec![(1, 1), (2, 1), (3, 1), (4, 1), (1, 2)])
        );
        assert_eq!(
            Paging::new(1).select(&m, 6),
            Some(vec![(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (4, 1)])
        );
        m.allocate(0, Submesh::new(1, 1, 1, 1)).unwrap();
        assert_eq!(
            Paging::new(1).select(&m, 4),
            Some(vec![(2, 1), (1, 2), (2, 2), (3, 1)])
        );
        assert_eq!(Paging::new(1).name(), "paging_1");
    }
}
