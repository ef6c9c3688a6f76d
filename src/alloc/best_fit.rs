//! Best Fit over the free list: the request goes to the base of the *smallest* maximal free
//! submesh (Definition 1 of Ababneh & Bani-Mohammad) that can hold it; ties go to the first in free-list
//! order (base row, base column, end row, end column). Keeping large free submeshes intact
//! for large requests is the idea of the best-fit schemes Ababneh & Bani-Mohammad cites ([15], [20]).

use super::SubmeshAllocator;
use crate::machine::mesh::{free_list_key, Mesh, Submesh};

/// Best Fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BestFit;

impl SubmeshAllocator for BestFit {
    fn name(&self) -> &'static str {
        "best_fit"
    }

    fn place(&self, mesh: &mut Mesh, w: u32, h: u32) -> Option<Submesh> {
        if !mesh.can_fit(w, h) {
            return None;
        }
        mesh.free_list()
            .iter()
            .filter(|f| f.width() >= w && f.height() >= h)
            .min_by_key(|f| (f.size(), free_list_key(f)))
            .map(|f| Submesh::at(f.x1, f.y1, w, h))
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
                let maximal = brute::maximal(&m);
                for w in 1..=mw {
                    for h in 1..=mh {
                        // Smallest suitable maximal free submesh, first in free-list order.
                        let mut want: Option<Submesh> = None;
                        for f in maximal.iter().filter(|f| f.width() >= w && f.height() >= h) {
                            if want.is_none_or(|b| f.size() < b.size()) {
                                want = Some(*f);
                            }
                        }
                        let want = want.map(|f| Submesh::at(f.x1, f.y1, w, h));
                        let got = BestFit.place(&mut m, w, h);
                        assert_eq!(got, want, "{w}×{h}\n{}", m.render());
                        if let Some(g) = got {
                            assert!(m.is_submesh_free(&g));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fig_1_best_fit_prefers_the_small_free_submesh() {
        let mut m = Mesh::new(5, 4).unwrap();
        m.allocate(0, Submesh::new(1, 4, 5, 4)).unwrap();
        m.allocate(1, Submesh::new(1, 3, 3, 3)).unwrap();
        // (4, 1, 5, 3) has 6 nodes, (1, 1, 5, 2) has 10.
        assert_eq!(BestFit.place(&mut m, 2, 1), Some(Submesh::new(4, 1, 5, 1)));
        assert_eq!(BestFit.place(&mut m, 3, 1), Some(Submesh::new(1, 1, 3, 1)));
    }
}
