//! MBS, the Multiple Buddy Strategy (Mache et al. §4.1; Lo et al. [8]; Liu et al. §1): the request
//! j is written in base 4, j = Σ d_i · 4^i, and asks for d_i square blocks of side 2^i; a block
//! size that cannot be found is broken into four requests of the next smaller size, down to
//! single nodes.
//!
//! **Choice — stateless buddies.** Lo et al. keep buddy free lists across allocations; we
//! derive the blocks from the busy array instead: a block of side 2^i is an aligned square
//! (its 0-based corner a multiple of 2^i in both coordinates) lying inside the mesh whose nodes
//! are all free (and not yet chosen for this request). Among the free blocks of a size we take,
//! in row-major block order, first one whose parent block (side 2^(i+1)) is *not* entirely free
//! — a block split off earlier, as a buddy system would — and otherwise the first free block,
//! which splits a larger one. Meshes whose sides are not powers of 2 (16 × 22) simply have no
//! large blocks near the north/east edges.

use super::node::{Node, NodeAllocator};
use crate::machine::mesh::Mesh;

/// The Multiple Buddy Strategy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MultipleBuddy;

/// `true` when the aligned block of side `s` at 0-based (bx, by) lies in the mesh and is free.
fn block_free(mesh: &Mesh, taken: &[bool], bx: u32, by: u32, s: u32) -> bool {
    let (w, h) = (mesh.width(), mesh.height());
    if bx + s > w || by + s > h {
        return false;
    }
    (by..by + s)
        .all(|y| (bx..bx + s).all(|x| mesh.is_free(x + 1, y + 1) && !taken[(y * w + x) as usize]))
}

impl NodeAllocator for MultipleBuddy {
    fn name(&self) -> &'static str {
        "mbs"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let (w, h) = (mesh.width(), mesh.height());
        let mut taken = vec![false; (w * h) as usize];
        let mut out = Vec::with_capacity(j as usize);
        // Largest block side that fits the mesh.
        let mut top = 0;
        while (2u32 << top) <= w.min(h) {
            top += 1;
        }
        // Base-4 digits of j; everything from the top block size up goes to the top size.
        let mut want: Vec<u64> = (0..=top)
            .map(|i| {
                let q = u64::from(j) >> (2 * i);
                if i == top {
                    q
                } else {
                    q % 4
                }
            })
            .collect();
        for i in (0..=top).rev() {
            let s = 1u32 << i;
            let mut need = want[i as usize];
            while need > 0 {
                let mut found = None;
                let mut fallback = None;
                'scan: for by in (0..h).step_by(s as usize) {
                    for bx in (0..w).step_by(s as usize) {
                        if !block_free(mesh, &taken, bx, by, s) {
                            continue;
                        }
                        let ps = 2 * s;
                        let (px, py) = (bx / ps * ps, by / ps * ps);
                        if i < top && !block_free(mesh, &taken, px, py, ps) {
                            found = Some((bx, by));
                            break 'scan;
                        }
                        if fallback.is_none() {
                            fallback = Some((bx, by));
                        }
                    }
                }
                match found.or(fallback) {
                    Some((bx, by)) => {
                        for y in by..by + s {
                            for x in bx..bx + s {
                                taken[(y * w + x) as usize] = true;
                                out.push((x + 1, y + 1));
                            }
                        }
                        need -= 1;
                    }
                    None => {
                        // No block of this size: four requests of the next smaller size.
                        if i == 0 {
                            return None; // unreachable while j ≤ free
                        }
                        want[i as usize - 1] += 4 * need;
                        need = 0;
                    }
                }
            }
        }
        (out.len() == j as usize).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    #[test]
    fn blocks_by_base_four_digits() {
        let m = Mesh::new(8, 8).unwrap();
        // 21 = 1·16 + 1·4 + 1·1: a 4 × 4, a 2 × 2 and one node.
        let v = MultipleBuddy.select(&m, 21).unwrap();
        assert_eq!(v.len(), 21);
        assert!(v[..16]
            .iter()
            .all(|&(x, y)| (1..=4).contains(&x) && (1..=4).contains(&y)));
        // The 2 × 2 comes from a split block next to the 4 × 4 (row-major: (5..6, 1..2)).
        assert_eq!(&v[16..20], &[(5, 1), (6, 1), (5, 2), (6, 2)]);
        // The single node: buddy of that 2 × 2 block's parent first → (7, 1).
        assert_eq!(v[20], (7, 1));
    }

    #[test]
    fn falls_back_to_smaller_blocks() {
        let mut m = Mesh::new(4, 4).unwrap();
        // Break every 2 × 2 block: no 2 × 2 is free, so a 4-node request takes single nodes.
        for (k, &(x, y)) in [(1, 1), (3, 1), (1, 3), (3, 3)].iter().enumerate() {
            m.allocate(k, Submesh::at(x, y, 1, 1)).unwrap();
        }
        let v = MultipleBuddy.select(&m, 4).unwrap();
        assert_eq!(v, vec![(2, 1), (4, 1), (1, 2), (2, 2)]);
        // Large requests on a non-power-of-two mesh still succeed.
        let big = Mesh::new(22, 16).unwrap();
        assert_eq!(MultipleBuddy.select(&big, 352).map(|v| v.len()), Some(352));
    }
}
