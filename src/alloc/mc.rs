//! MC, Minimizing Contention (Mache et al. §2.2 and §3.1; Mache, Lo and Windisch [12]): for every
//! placement of a request-shaped submesh (shell 0), free nodes are taken from shell 0 and then
//! from the successive rectangular rings around it (shell s = nodes at distance s in
//! max(Δx, Δy) from shell 0) until j are found; the cost of a candidate is the sum of the shell
//! numbers of its nodes, and the candidate of minimal cost is allocated.
//!
//! **Choices.** Jobs here ask for a size j, not a shape. Shell 0 is tried in every shape a × b
//! = j that fits the mesh, the squarest first (smallest |a − b|; of a × b and b × a the wider
//! first); when j has no such factorisation, in the squarest a × b ≥ j that fits. Candidates
//! are tried shape by shape, bases row-major; ties keep the first — so among free j-node
//! rectangles MC takes the squarest, the most compact (until then the widest was
//! tried first, and a 16-node job on an empty mesh got a 16 × 1 row: docs/network.md). A candidate of cost 0 is a free a × b = j rectangle, so MC returns a contiguous
//! rectangle whenever a free j-node rectangle exists (tested). Within a shell, nodes are taken
//! in MC's order — shorter sides first, longer sides second, corners last (Mache et al. Property
//! 4) — row-major within each class.
//!
//! **Speed**. Costs come from free-node counts per shell
//! ([`crate::alloc::shells`]). A candidate whose shells 0..=d hold C(0), …, C(d) free nodes
//! costs at least (d + 1) · j − Σₛ min(C(s), j): each of the j nodes costs its shell number,
//! i.e. 1 for every shell s it lies outside of, and shell s leaves out j − min(C(s), j) of
//! them. For each shape, the shell-0 counts of a row of bases are one vectorised pass over the
//! summed-area table; the first shape's most-free base is costed first, to bound the others
//! (if it costs j or more, shell 0 bounds nothing: the first shape's rows are all deepened to
//! shell [`BOUNDED_SHELLS`] and the base with the largest sum is costed next).
//! A row whose bases cannot beat the best cost so far is skipped; while many of its bases
//! (one in [`DEEPEN_BELOW`] or more) still can, the bound is deepened by the next shell for the
//! whole row, up to shell [`BOUNDED_SHELLS`] (on nearly full meshes, where free nodes are
//! scattered and every base's shell 0 is nearly empty, shell 0 alone bounds nothing). Only the
//! bases passing the bound are costed, each shell by shell until its bound exceeds the best;
//! only the winner's nodes are enumerated. The choice is the same as the straightforward
//! search's ([`crate::alloc::shell_reference`], property-tested).

use super::node::{Node, NodeAllocator};
use super::shells::{shell_cost, FreeCounts, PAD};
use crate::machine::mesh::Mesh;

/// The deepest shell counted for a whole row of bases to bound their costs (module docs);
/// the table's padding must cover the rows grown by it.
const BOUNDED_SHELLS: u32 = 3;
const _: () = assert!(BOUNDED_SHELLS <= PAD);

/// A row's bound is deepened by one more shell while at least one base in this many passes
/// it (tuned by instruction counts on 128 × 128 and 22 × 16 at 30–90 % busy: 4, 16 and 128
/// are within 10 % of each other except at 70 % busy, where 16 is the fewest).
const DEEPEN_BELOW: usize = 16;

/// Minimizing Contention.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinimizingContention;

/// Shell-0 shapes (a wide, b high) tried for a request of j nodes on a w × h mesh, in the
/// order they are tried: exact factorisations squarest first, else the squarest cover.
pub fn shapes(j: u32, w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = (1..=j.min(w))
        .rev()
        .filter(|a| j % a == 0 && j / a <= h)
        .map(|a| (a, j / a))
        .collect();
    // Squarest first; the sort is stable, so a × b stays before b × a when a > b.
    v.sort_by_key(|&(a, b)| a.abs_diff(b));
    if v.is_empty() {
        let mut a = 1;
        while a * a < j {
            a += 1;
        }
        let a = a.min(w).max(j.div_ceil(h)).min(w);
        v.push((a, j.div_ceil(a).min(h)));
    }
    v
}

/// The best candidate so far: its cost, its place in MC's order, its base and shape, and the
/// last shell it takes nodes from.
#[derive(Clone, Copy, Debug)]
struct Best {
    cost: u64,
    order: u64,
    base: (u32, u32),
    shape: (u32, u32),
    last: u32,
}

/// The first index of `v` holding at least `t` (a block-wise scan that vectorises). `small`:
/// every value of `v` is below 2^31 (counts of free nodes of a mesh of fewer nodes), so they
/// compare as `i32`, the only comparison SSE2 has.
fn first_at_least(v: &[u32], t: u32, small: bool) -> Option<usize> {
    const B: usize = 32;
    let Some(t1) = t.checked_sub(1) else {
        return (!v.is_empty()).then_some(0);
    };
    let small = small && i32::try_from(t1).is_ok();
    let mut base = 0;
    for block in v.chunks(B) {
        let hit = if small {
            block.iter().fold(false, |h, &c| h | (c as i32 > t1 as i32))
        } else {
            block.iter().any(|&c| c >= t)
        };
        if hit {
            return block.iter().position(|&c| c >= t).map(|i| base + i);
        }
        base += B;
    }
    None
}

/// Chebyshev distance from (x, y) to the rectangle [x1, x2] × [y1, y2].
pub(super) fn dist(x: u32, y: u32, x1: u32, y1: u32, x2: u32, y2: u32) -> u32 {
    let dx = x1.saturating_sub(x).max(x.saturating_sub(x2));
    let dy = y1.saturating_sub(y).max(y.saturating_sub(y2));
    dx.max(dy)
}

/// Order of (x, y) within its shell around the rectangle [x1, x2] × [y1, y2] (Mache et al. §3.1):
/// 0 inside or on the sides of the ring facing the rectangle's shorter sides, 1 on the other
/// sides, 2 on a corner.
pub(super) fn ring_class(x: u32, y: u32, x1: u32, y1: u32, x2: u32, y2: u32) -> u32 {
    let d = dist(x, y, x1, y1, x2, y2);
    if d == 0 {
        return 0;
    }
    let shorter_is_x = (x2 - x1) <= (y2 - y1); // left/right sides are the shorter ones
    let dx = x1.saturating_sub(x).max(x.saturating_sub(x2));
    let dy = y1.saturating_sub(y).max(y.saturating_sub(y2));
    let on_lr = dx == d && dy < d; // left/right side of the ring
    let on_tb = dy == d && dx < d;
    match (on_lr, on_tb) {
        (true, _) if shorter_is_x => 0,
        (_, true) if !shorter_is_x => 0,
        (true, _) | (_, true) => 1,
        _ => 2,
    }
}

impl NodeAllocator for MinimizingContention {
    fn name(&self) -> &'static str {
        "mc"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        if j == 0 {
            return Some(Vec::new());
        }
        let (w, h) = (mesh.width(), mesh.height());
        let free = FreeCounts::padded(mesh);
        let max_shell = w.max(h);
        // The row bounds sum shells 0..=k, each at most the mesh's size (k = 0 if the sum
        // could overflow).
        let k = if mesh.size().checked_mul(BOUNDED_SHELLS + 1).is_some() {
            BOUNDED_SHELLS
        } else {
            0
        };
        let small = i32::try_from(u64::from(mesh.size()) * u64::from(k + 1)).is_ok();
        let cost = |x1: u32, y1: u32, a: u32, b: u32, limit: u64| {
            let (x2, y2) = (x1 + a - 1, y1 + b - 1);
            shell_cost(j, limit, max_shell, |s| free.within(x1, y1, x2, y2, s))
        };
        // Candidates in MC's order (shape, then base row-major) are numbered by `order`. A
        // candidate wins with a lower cost, or the same cost and an earlier place (ties keep
        // the first).
        let mut best: Option<Best> = None;
        // Per base of the current shape: C(0) plus min(C(s), j) for the shells counted so far.
        let mut sums = Vec::new();
        let area = u64::from(w) * u64::from(h);
        for (si, (a, b)) in shapes(j, w, h).into_iter().enumerate() {
            let (nx, ny) = ((w - a + 1) as usize, (h - b + 1) as usize);
            let first = si as u64 * area;
            if best.is_some_and(|b| b.cost == 0 && b.order < first) {
                break;
            }
            // Adds min(C(s), j) at the bases of row y1 to `dst` (s = 0: sets it): after
            // shells 0..=d, a candidate costs at least (d + 1) · j minus its sum (module docs).
            let add_shell = |y1: usize, s: u32, dst: &mut [u32]| {
                let y1 = y1 as u32;
                let (lo, hi) = (
                    free.padded_row((y1 - 1).saturating_sub(s)),
                    free.padded_row(y1 + b - 1 + s),
                );
                // Base x1 = 1 + i: columns x1 − s − 1 and x1 + a − 1 + s, padded by PAD.
                let (l, r) = ((PAD - s) as usize, (PAD + a + s) as usize);
                let cols = lo[l..l + nx]
                    .iter()
                    .zip(&lo[r..r + nx])
                    .zip(hi[l..l + nx].iter().zip(&hi[r..r + nx]));
                if s == 0 {
                    // Unclamped: C(0) ≤ a · b, which is j except for a cover shape, where a
                    // larger sum only weakens the bound (and saves an emulated vector min).
                    for (d, ((&l1, &l2), (&h1, &h2))) in dst.iter_mut().zip(cols) {
                        *d = (h2 - h1) - (l2 - l1);
                    }
                } else {
                    for (d, ((&l1, &l2), (&h1, &h2))) in dst.iter_mut().zip(cols) {
                        *d += ((h2 - h1) - (l2 - l1)).min(j);
                    }
                }
            };
            let order = |at: usize| first + ((at / nx) as u64) * u64::from(w) + (at % nx) as u64;
            // Costs candidate `at` if it can still win; `level` − `c` bounds its cost from
            // below (`c`: its sum over shells 0..=d, `level` = (d + 1) · j).
            let consider = |at: usize, c: u32, level: u32, best: &mut Option<Best>| {
                let o = order(at);
                // The highest cost this candidate may have and still win.
                let lim = match *best {
                    None => u64::MAX,
                    Some(b) if o < b.order => b.cost,
                    Some(b) => match b.cost.checked_sub(1) {
                        Some(l) => l,
                        None => return,
                    },
                };
                if u64::from(level.saturating_sub(c)) > lim {
                    return;
                }
                let base = ((at % nx) as u32 + 1, (at / nx) as u32 + 1);
                if let Some((cost, last)) = cost(base.0, base.1, a, b, lim) {
                    *best = Some(Best {
                        cost,
                        order: o,
                        base,
                        shape: (a, b),
                        last,
                    });
                }
            };
            // The least sum at `level` that passes the bound of the best so far.
            let need_at = |level: u32, best: &Option<Best>| {
                let loose = best.map_or(u64::MAX, |b| b.cost);
                u64::from(level).saturating_sub(loose) as u32
            };
            // Considers the candidates of row y1 (`vals`: their sums up to shell `depth`), skipping
            // fast those whose bound exceeds the best cost so far. While many candidates
            // pass (at least one in DEEPEN_BELOW), the bound is first deepened by the next
            // shell for the whole row (one vectorised pass each, from `depth`, the shell its
            // sums already reach, up to shell k). `true` when no later candidate can win.
            let scan_row = |y1: usize, vals: &mut [u32], depth: u32, best: &mut Option<Best>| {
                let off = (y1 - 1) * nx;
                let mut level = j * (depth + 1);
                for s in depth + 1..=k {
                    let need = need_at(level, best);
                    let Some(at) = first_at_least(vals, need, small) else {
                        return false;
                    };
                    let n = vals[at..].iter().filter(|&&v| v >= need).count();
                    if n * DEEPEN_BELOW < nx {
                        break;
                    }
                    add_shell(y1, s, vals);
                    level += j;
                }
                let mut i = 0;
                while i < vals.len() {
                    let need = need_at(level, best);
                    let Some(d) = first_at_least(&vals[i..], need, small) else {
                        return false;
                    };
                    i += d;
                    if best.is_some_and(|b| b.cost == 0 && b.order <= order(off + i)) {
                        return true;
                    }
                    consider(off + i, vals[i], level, best);
                    i += 1;
                }
                false
            };
            sums.resize(nx * ny, 0);
            if best.is_none() {
                // First shape: every base's shell-0 count, then the most-free base (the first
                // of them) costed first, to bound the others.
                for (y1, row) in (1..=ny).zip(sums.chunks_mut(nx)) {
                    add_shell(y1, 0, row);
                }
                let most = |sums: &[u32]| {
                    let top = sums.iter().copied().max().unwrap_or(0);
                    first_at_least(sums, top, small).unwrap_or(0)
                };
                let top_at = most(&sums);
                if let Some(&c) = sums.get(top_at) {
                    consider(top_at, c, j, &mut best);
                }
                let mut depth = 0;
                if k > 0 && best.is_some_and(|b| b.cost >= u64::from(j)) {
                    // Shell 0 bounds nothing (every base passes it): every row is deepened
                    // to shell k, and the base with the largest sum costed next.
                    for (y1, row) in (1..=ny).zip(sums.chunks_mut(nx)) {
                        for s in 1..=k {
                            add_shell(y1, s, row);
                        }
                    }
                    depth = k;
                    let top_at = most(&sums);
                    if let Some(&c) = sums.get(top_at) {
                        consider(top_at, c, j * (k + 1), &mut best);
                    }
                }
                for (y1, row) in (1..=ny).zip(sums.chunks_mut(nx)) {
                    if scan_row(y1, row, depth, &mut best) {
                        break;
                    }
                }
            } else {
                // Later shapes are bounded by the best so far: row by row.
                for (y1, row) in (1..=ny).zip(sums.chunks_mut(nx)) {
                    add_shell(y1, 0, row);
                    if scan_row(y1, row, 0, &mut best) {
                        break;
                    }
                }
            }
        }
        let Best {
            base: (x1, y1),
            shape: (a, b),
            last,
            ..
        } = best?;
        let (x2, y2) = (x1 + a - 1, y1 + b - 1);
        // Only the nodes up to the last shell used can be chosen.
        let (bx1, by1) = (
            x1.saturating_sub(last).max(1),
            y1.saturating_sub(last).max(1),
        );
        let (bx2, by2) = ((x2 + last).min(w), (y2 + last).min(h));
        let mut order: Vec<(u32, u32, u32, u32)> = Vec::new();
        for y in by1..=by2 {
            for x in bx1..=bx2 {
                if mesh.is_free(x, y) {
                    order.push((
                        dist(x, y, x1, y1, x2, y2),
                        ring_class(x, y, x1, y1, x2, y2),
                        y,
                        x,
                    ));
                }
            }
        }
        order.sort_unstable();
        (order.len() >= j as usize).then(|| {
            order
                .iter()
                .take(j as usize)
                .map(|&(_, _, y, x)| (x, y))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::tests::random_mesh;
    use crate::base::SimRng;

    #[test]
    fn shapes_prefer_exact_factorisations() {
        assert_eq!(shapes(6, 4, 4), vec![(3, 2), (2, 3)]);
        assert_eq!(shapes(7, 4, 4), vec![(3, 3)]);
        assert_eq!(shapes(7, 8, 8), vec![(7, 1), (1, 7)]);
        assert_eq!(
            shapes(16, 22, 16),
            vec![(4, 4), (8, 2), (2, 8), (16, 1), (1, 16)]
        );
        assert_eq!(
            shapes(12, 22, 16),
            vec![(4, 3), (3, 4), (6, 2), (2, 6), (12, 1), (1, 12)]
        );
        assert_eq!(shapes(13, 4, 4), vec![(4, 4)]);
        assert_eq!(shapes(1, 1, 1), vec![(1, 1)]);
    }

    #[test]
    fn first_at_least_is_the_first_position() {
        let mut rng = SimRng::new(4);
        for n in [0usize, 1, 31, 32, 33, 100] {
            let v: Vec<u32> = (0..n).map(|_| rng.uniform_int(0, 9) as u32).collect();
            for t in 0..=11 {
                let want = v.iter().position(|&c| c >= t);
                assert_eq!(first_at_least(&v, t, true), want);
                assert_eq!(first_at_least(&v, t, false), want);
            }
        }
        assert_eq!(first_at_least(&[u32::MAX, 5], u32::MAX, false), Some(0));
    }

    fn is_rectangle(v: &[Node]) -> bool {
        let x1 = v.iter().map(|n| n.0).min().unwrap_or(0);
        let x2 = v.iter().map(|n| n.0).max().unwrap_or(0);
        let y1 = v.iter().map(|n| n.1).min().unwrap_or(0);
        let y2 = v.iter().map(|n| n.1).max().unwrap_or(0);
        ((x2 - x1 + 1) * (y2 - y1 + 1)) as usize == v.len()
    }

    /// MC returns a contiguous rectangle whenever a free rectangle of j nodes exists.
    #[test]
    fn contiguous_rectangle_whenever_one_exists() {
        let mut rng = SimRng::new(11);
        for &(w, h) in &[(4, 4), (6, 5), (8, 8), (22, 16)] {
            for _ in 0..30 {
                let p = rng.uniform01() * 0.7;
                let m = random_mesh(&mut rng, w, h, p);
                for j in 1..=m.free_count().min(24) {
                    let exists = shapes(j, w, h).iter().any(|&(a, b)| {
                        a * b == j && !crate::alloc::brute::placements(&m, a, b).is_empty()
                    });
                    let v = MinimizingContention.select(&m, j).unwrap();
                    assert_eq!(v.len(), j as usize);
                    if exists {
                        assert!(is_rectangle(&v), "j={j} {v:?}\n{}", m.render());
                    }
                }
            }
        }
    }

    /// Of the free j-node rectangles MC takes the squarest: 16 nodes on an empty 22 × 16 mesh
    /// are the 4 × 4 square at the first base, 12 nodes a 4 × 3 block; with the first four
    /// rows' left part busy so that no 4 × 4 fits there, still a square elsewhere.
    #[test]
    fn squarest_free_rectangle_first() {
        let bbox = |v: &[Node]| {
            let w = v.iter().map(|n| n.0).max().unwrap_or(0)
                - v.iter().map(|n| n.0).min().unwrap_or(0)
                + 1;
            let h = v.iter().map(|n| n.1).max().unwrap_or(0)
                - v.iter().map(|n| n.1).min().unwrap_or(0)
                + 1;
            (w, h)
        };
        let m = Mesh::new(22, 16).unwrap();
        let v = MinimizingContention.select(&m, 16).unwrap();
        assert!(is_rectangle(&v));
        assert_eq!(bbox(&v), (4, 4));
        assert_eq!(v.iter().map(|n| (n.0, n.1)).min(), Some((1, 1)));
        assert_eq!(bbox(&MinimizingContention.select(&m, 12).unwrap()), (4, 3));
        let mut m = Mesh::new(8, 8).unwrap();
        m.allocate(0, crate::machine::mesh::Submesh::at(1, 1, 5, 1))
            .unwrap();
        let v = MinimizingContention.select(&m, 4).unwrap();
        assert!(is_rectangle(&v));
        assert_eq!(bbox(&v), (2, 2));
    }

    #[test]
    fn ring_order_shorter_sides_first() {
        let mut m = Mesh::new(5, 5).unwrap();
        // Busy centre row except (3, 3): a request of 3 must spread out.
        for (k, x) in [1u32, 2, 4, 5].into_iter().enumerate() {
            m.allocate(k, crate::machine::mesh::Submesh::at(x, 3, 1, 1))
                .unwrap();
        }
        let v = MinimizingContention.select(&m, 2).unwrap();
        assert_eq!(v.len(), 2);
        assert!(is_rectangle(&v));
    }
}
