//! Maximum Peripheral Length (MPL), the allocator of Ababneh & Bani-Mohammad §3.2 (from Ababneh, Performance
//! Evaluation 66(2), 2009, [3] of the paper):
//!
//! > preference is given to allocating a free submesh that has a maximum boundary length
//! > aligned with the periphery of the mesh system. [...] When no large-enough peripheral
//! > submesh is available, a request is allocated at the base of the first suitable internal
//! > free submesh that can be found; the peripheral length of an internal submesh is equal
//! > to zero.
//!
//! The peripheral length of a w × h submesh is h for touching column 1, h for column W, w for
//! row 1 and w for row H ([`Mesh::peripheral_length`]; in Fig. 1 the 2 × 1 submesh
//! (4, 1, 5, 1) has 3: node (5, 1) lies on two mesh edges, node (4, 1) on one).
//!
//! Candidates are the four corner placements (base, lower-right, upper-left, upper-right) of
//! every maximal free submesh that can hold the request — a placement touching a mesh edge can
//! always slide to such a corner without losing peripheral length, so the maximum over the
//! corners is the maximum over all free placements (checked against brute force below).
//!
//! **Choices where the paper is vague** (`docs/mesh.md`): among placements of equal maximal
//! peripheral length, the one in the *smaller* maximal free submesh wins (best fit: large free
//! submeshes stay whole), then the first in free-list order (base row, base column, end row,
//! end column), then the corner order above. This picks (4, 1, 5, 1) for a 2 × 1 request in
//! Fig. 1's state, as the paper does ((1, 1, 2, 1) has the same length 3 but lies only in the
//! 10-node free submesh (1, 1, 5, 2); (4, 1, 5, 1) is the base of the 6-node (4, 1, 5, 3)).
//! With peripheral length 0 everywhere, the "first suitable internal free submesh" is the first
//! in free-list order, i.e. the request goes where First Fit would put it.

use super::SubmeshAllocator;
use crate::machine::mesh::{free_list_key, peripheral_length, Mesh, Submesh};

/// Maximum Peripheral Length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxPeripheralLength;

/// Ordering key of a candidate: larger peripheral length first, then the smaller free
/// submesh, then free-list order, then corner order.
type Key = (std::cmp::Reverse<u32>, u32, (u32, u32, u32, u32), u8);

/// The four corner placements of a w × h request in free submesh `f` (base, lower-right,
/// upper-left, upper-right).
pub fn corners(f: &Submesh, w: u32, h: u32) -> [Submesh; 4] {
    let xr = f.x2 + 1 - w;
    let yt = f.y2 + 1 - h;
    [
        Submesh::at(f.x1, f.y1, w, h),
        Submesh::at(xr, f.y1, w, h),
        Submesh::at(f.x1, yt, w, h),
        Submesh::at(xr, yt, w, h),
    ]
}

/// MPL's choice given a free list (any order), for an M(`width`, `height`).
pub fn choose(free_list: &[Submesh], width: u32, height: u32, w: u32, h: u32) -> Option<Submesh> {
    let mut best: Option<(Key, Submesh)> = None;
    let mut first_internal: Option<((u32, u32, u32, u32), Submesh)> = None;
    for f in free_list
        .iter()
        .filter(|f| f.width() >= w && f.height() >= h)
    {
        let fk = free_list_key(f);
        if first_internal.is_none_or(|(k, _)| fk < k) {
            first_internal = Some((fk, Submesh::at(f.x1, f.y1, w, h)));
        }
        for (i, c) in corners(f, w, h).into_iter().enumerate() {
            let pl = peripheral_length(&c, width, height);
            if pl == 0 {
                continue;
            }
            let key = (std::cmp::Reverse(pl), f.size(), fk, i as u8);
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, c));
            }
        }
    }
    best.map(|(_, c)| c).or(first_internal.map(|(_, c)| c))
}

impl SubmeshAllocator for MaxPeripheralLength {
    fn name(&self) -> &'static str {
        "mpl"
    }

    fn place(&self, mesh: &mut Mesh, w: u32, h: u32) -> Option<Submesh> {
        if !mesh.can_fit(w, h) {
            return None;
        }
        let (width, height) = (mesh.width(), mesh.height());
        choose(mesh.free_list(), width, height, w, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::brute;

    fn fig1() -> Mesh {
        let mut m = Mesh::new(5, 4).unwrap();
        m.allocate(0, Submesh::new(1, 4, 5, 4)).unwrap();
        m.allocate(1, Submesh::new(1, 3, 3, 3)).unwrap();
        m
    }

    #[test]
    fn fig_1_two_by_one_goes_to_4_1_5_1() {
        let mut m = fig1();
        let got = MaxPeripheralLength.place(&mut m, 2, 1);
        assert_eq!(got, Some(Submesh::new(4, 1, 5, 1)));
        assert_eq!(m.peripheral_length(&Submesh::new(4, 1, 5, 1)), 3);
        assert_eq!(brute::max_pl(&m, 2, 1), Some(3));
    }

    #[test]
    fn internal_requests_go_to_the_first_suitable_free_submesh() {
        // 5 × 5 with a busy ring: only the internal 3 × 3 is free.
        let mut m = Mesh::new(5, 5).unwrap();
        m.allocate(0, Submesh::new(1, 1, 5, 1)).unwrap();
        m.allocate(1, Submesh::new(1, 5, 5, 5)).unwrap();
        m.allocate(2, Submesh::new(1, 2, 1, 4)).unwrap();
        m.allocate(3, Submesh::new(5, 2, 5, 4)).unwrap();
        assert_eq!(
            MaxPeripheralLength.place(&mut m, 2, 2),
            Some(Submesh::new(2, 2, 3, 3))
        );
        assert_eq!(MaxPeripheralLength.place(&mut m, 4, 1), None);
    }

    #[test]
    fn empty_mesh_uses_the_base_corner() {
        let mut m = Mesh::new(32, 32).unwrap();
        assert_eq!(
            MaxPeripheralLength.place(&mut m, 5, 7),
            Some(Submesh::at(1, 1, 5, 7))
        );
        assert_eq!(
            MaxPeripheralLength.place(&mut m, 32, 32),
            Some(Submesh::new(1, 1, 32, 32))
        );
    }

    /// The rule written out over the brute-force free list and every free placement.
    fn reference(m: &Mesh, w: u32, h: u32) -> Option<Submesh> {
        let all = brute::placements(m, w, h);
        let max_pl = all
            .iter()
            .map(|s| peripheral_length(s, m.width(), m.height()))
            .max()?;
        let maximal = brute::maximal(m); // free-list order
        let suitable: Vec<&Submesh> = maximal
            .iter()
            .filter(|f| f.width() >= w && f.height() >= h)
            .collect();
        if max_pl == 0 {
            // Base of the first suitable internal free submesh.
            return suitable.first().map(|f| Submesh::at(f.x1, f.y1, w, h));
        }
        let mut best: Option<(u32, Submesh)> = None;
        for f in &suitable {
            for c in corners(f, w, h) {
                if peripheral_length(&c, m.width(), m.height()) == max_pl
                    && best.is_none_or(|(size, _)| f.size() < size)
                {
                    best = Some((f.size(), c));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    #[test]
    fn matches_brute_force_on_every_small_state() {
        for &(mw, mh) in &brute::SMALL_MESHES {
            for bits in 0..(1u32 << (mw * mh)) {
                let mut m = brute::mesh_from_bits(mw, mh, bits);
                for w in 1..=mw {
                    for h in 1..=mh {
                        let got = MaxPeripheralLength.place(&mut m, w, h);
                        let want = reference(&m, w, h);
                        assert_eq!(got, want, "{w}×{h}\n{}", m.render());
                        if let Some(g) = got {
                            assert!(m.is_submesh_free(&g));
                            // The maximum over *all* free placements, not only corners.
                            assert_eq!(
                                Some(m.peripheral_length(&g)),
                                brute::max_pl(&m, w, h),
                                "{w}×{h}\n{}",
                                m.render()
                            );
                        }
                        if brute::max_pl(&m, w, h) == Some(0) {
                            assert_eq!(got, brute::placements(&m, w, h).first().copied());
                        }
                    }
                }
            }
        }
    }
}
