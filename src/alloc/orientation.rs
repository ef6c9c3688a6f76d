//! Orientation switching for the contiguous allocators (Ababneh & Bani-Mohammad §3.2: its MPL allocator is
//! that of [3], which lets a request be rotated): a w × h request for which the wrapped
//! allocator finds no free w × h submesh may take a free h × w one, placed by the same rule.
//! The w × h orientation is always tried first, so whenever it fits the choice is the wrapped
//! allocator's; square requests are never retried. Off by default (`docs/mesh.md`).

use super::SubmeshAllocator;
use crate::machine::mesh::{Mesh, Submesh};

/// An allocator that may rotate requests.
pub struct Switching(pub Box<dyn SubmeshAllocator>);

impl SubmeshAllocator for Switching {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn place(&self, mesh: &mut Mesh, w: u32, h: u32) -> Option<Submesh> {
        self.0
            .place(mesh, w, h)
            .or_else(|| (w != h).then(|| self.0.place(mesh, h, w)).flatten())
    }

    fn switches_orientation(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{brute, AllocatorKind};

    #[test]
    fn rotates_only_when_the_request_does_not_fit() {
        // 4 × 3 with (1, 1, 3, 2) busy: free are column 4 (1 × 3) and row 3 (4 × 1).
        let mut m = Mesh::new(4, 3).unwrap();
        m.allocate(0, Submesh::new(1, 1, 3, 2)).unwrap();
        for k in AllocatorKind::ALL {
            let fixed = k.build_with(false);
            let switching = k.build_with(true);
            assert!(!fixed.switches_orientation());
            assert!(switching.switches_orientation());
            assert_eq!(switching.name(), k.as_str());
            // 3 × 1 fits as requested: the wrapped allocator's choice.
            assert_eq!(switching.place(&mut m, 3, 1), fixed.place(&mut m, 3, 1));
            assert_eq!(
                switching.place(&mut m, 3, 1),
                Some(Submesh::new(1, 3, 3, 3))
            );
            // 1 × 4 is taller than the mesh; lying down it takes row 3.
            assert_eq!(fixed.place(&mut m, 1, 4), None);
            assert_eq!(
                switching.place(&mut m, 1, 4),
                Some(Submesh::new(1, 3, 4, 3)),
                "{k:?}"
            );
            // Neither 2 × 3 nor 3 × 2 is free.
            assert_eq!(switching.place(&mut m, 2, 3), None);
        }
    }

    #[test]
    fn a_tall_request_takes_the_free_row_lying_down() {
        // 5 × 4, rows 1–3 busy: only the 5 × 1 row 4 is free.
        let mut m = Mesh::new(5, 4).unwrap();
        m.allocate(0, Submesh::new(1, 1, 5, 3)).unwrap();
        for k in AllocatorKind::ALL {
            assert_eq!(k.build_with(false).place(&mut m, 1, 4), None);
            assert_eq!(
                k.build_with(true).place(&mut m, 1, 4),
                Some(Submesh::new(1, 4, 4, 4)),
                "{k:?}"
            );
        }
    }

    #[test]
    fn switching_equals_the_allocator_on_either_orientation_of_every_small_state() {
        for &(mw, mh) in &brute::SMALL_MESHES[..3] {
            for bits in 0..(1u32 << (mw * mh)) {
                let mut m = brute::mesh_from_bits(mw, mh, bits);
                for k in AllocatorKind::ALL {
                    let (a, s) = (k.build(), k.build_with(true));
                    for w in 1..=mw.max(mh) {
                        for h in 1..=mw.max(mh) {
                            let want = a.place(&mut m, w, h).or_else(|| a.place(&mut m, h, w));
                            assert_eq!(s.place(&mut m, w, h), want, "{k:?} {w}×{h}");
                        }
                    }
                }
            }
        }
    }
}
