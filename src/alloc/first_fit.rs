//! First Fit (Ababneh & Bani-Mohammad §3.2 names it among the contiguous schemes it compares with in [3]):
//! the first free w × h submesh, scanning candidate bases row by row from row 1, left to right.
//!
//! Computed from the free list: the first-fit base is always the base of a maximal free
//! submesh (a first-fit placement can extend neither left nor down, or an earlier base would
//! fit), so it is the smallest base (row, column) among the maximal free submeshes that can
//! hold the request.

use super::SubmeshAllocator;
use crate::machine::mesh::{Mesh, Submesh};

/// First Fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstFit;

impl SubmeshAllocator for FirstFit {
    fn name(&self) -> &'static str {
        "first_fit"
    }

    fn place(&self, mesh: &mut Mesh, w: u32, h: u32) -> Option<Submesh> {
        if !mesh.can_fit(w, h) {
            return None;
        }
        mesh.free_list()
            .iter()
            .filter(|f| f.width() >= w && f.height() >= h)
            .map(|f| (f.y1, f.x1))
            .min()
            .map(|(y, x)| Submesh::at(x, y, w, h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::brute;

    #[test]
    fn matches_brute_force_on_every_small_state() {
        for &(mw, mh) in &brute::SMALL_MESHES {
            for bits in 0..(1u32 << (mw * mh)) {
                let mut m = brute::mesh_from_bits(mw, mh, bits);
                for w in 1..=mw {
                    for h in 1..=mh {
                        let want = brute::placements(&m, w, h).first().copied();
                        assert_eq!(
                            FirstFit.place(&mut m, w, h),
                            want,
                            "{w}×{h}\n{}",
                            m.render()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn fig_1_first_fit() {
        let mut m = Mesh::new(5, 4).unwrap();
        m.allocate(0, Submesh::new(1, 4, 5, 4)).unwrap();
        m.allocate(1, Submesh::new(1, 3, 3, 3)).unwrap();
        assert_eq!(FirstFit.place(&mut m, 2, 1), Some(Submesh::new(1, 1, 2, 1)));
        assert_eq!(FirstFit.place(&mut m, 2, 3), Some(Submesh::new(4, 1, 5, 3)));
        assert_eq!(FirstFit.place(&mut m, 3, 3), None);
        assert_eq!(FirstFit.place(&mut m, 0, 1), None);
        assert_eq!(FirstFit.place(&mut m, 6, 1), None);
    }
}
