//! Free-node counts per shell for the concentric searches of MC (Mache et al. §3.1, Mache, Lo and
//! Windisch [12]) and MC-Elongated (Mache et al. §3.2, Fig. 6).
//!
//! Shell s around a rectangle R is the ring of nodes at Chebyshev distance s from R, so the
//! nodes within distance s of R are exactly the rectangle R grown by s on every side (clipped
//! to the mesh). A summed-area table over the free nodes ([`FreeCounts`]) gives the number of
//! free nodes in any rectangle in O(1), hence the cumulative count C(s) of free nodes within
//! distance s, and the cost of taking the j nearest free nodes shell by shell — the sum of
//! their shell numbers, Σₛ s · (min(C(s), j) − min(C(s − 1), j)) — without visiting a node
//! ([`shell_cost`]). The allocators then enumerate only the winning candidate's nodes.
//!
//! The straightforward versions (a histogram of every free node's distance, per candidate)
//! are kept in [`crate::alloc::shell_reference`] as the tests' oracle and the benchmark's
//! "before".

use crate::machine::mesh::Mesh;

/// Columns of padding on each side of every row of a [`FreeCounts::padded`] table: column
/// x < 0 repeats column 0 and x > W repeats column W, so the counts of rectangles grown by up
/// to `PAD` columns past the mesh's sides (clipped) are differences of contiguous slices.
pub const PAD: u32 = 4;

/// Summed-area table of the free nodes of a mesh.
#[derive(Clone, Debug, Default)]
pub struct FreeCounts {
    width: u32,
    height: u32,
    /// Columns of padding on each side of a row (0 or [`PAD`]).
    pad: u32,
    /// `sat[y · (W + 1 + 2 pad) + pad + x]` = free nodes in [1, x] × [1, y] (row 0 and
    /// column 0 are zero), for x in −pad..=W + pad clamped to 0..=W.
    sat: Vec<u32>,
}

impl FreeCounts {
    /// The table of `mesh`'s free nodes.
    pub fn new(mesh: &Mesh) -> FreeCounts {
        FreeCounts::with_padding(mesh, 0)
    }

    /// The table of `mesh`'s free nodes with [`PAD`] columns of padding, for
    /// [`FreeCounts::padded_row`].
    pub fn padded(mesh: &Mesh) -> FreeCounts {
        FreeCounts::with_padding(mesh, PAD)
    }

    fn with_padding(mesh: &Mesh, padding: u32) -> FreeCounts {
        let (w, h) = (mesh.width() as usize, mesh.height() as usize);
        let pad = padding as usize;
        let stride = w + 1 + 2 * pad;
        let mut sat = vec![0u32; stride * (h + 1)];
        let owners = mesh.owners();
        for y in 1..=h {
            let (prev, cur) = sat[(y - 1) * stride..(y + 1) * stride].split_at_mut(stride);
            let row = &owners[(y - 1) * w..y * w];
            let mut run = 0u32;
            for (c, &o) in cur[pad + 1..].iter_mut().zip(row) {
                run += u32::from(o == 0);
                *c = run;
            }
            for c in &mut cur[pad + w + 1..] {
                *c = run;
            }
            for (c, &p) in cur.iter_mut().zip(prev.iter()) {
                *c += p;
            }
        }
        FreeCounts {
            width: w as u32,
            height: h as u32,
            pad: padding,
            sat,
        }
    }

    /// Row `y` of the table (clamped to 0..=H) with its padding: element `pad + x` is the
    /// number of free nodes in [1, x] × [1, y] for x = −pad..=W + pad, x clamped to 0..=W
    /// (pad = [`PAD`] for a [`FreeCounts::padded`] table, else 0).
    pub fn padded_row(&self, y: u32) -> &[u32] {
        let stride = self.width as usize + 1 + 2 * self.pad as usize;
        let y = y.min(self.height) as usize;
        &self.sat[y * stride..(y + 1) * stride]
    }

    /// Free nodes in [x1, x2] × [y1, y2] (1-based, inclusive); 0 when the rectangle is empty
    /// or not inside the mesh.
    pub fn count(&self, x1: u32, y1: u32, x2: u32, y2: u32) -> u32 {
        if x1 == 0 || y1 == 0 || x1 > x2 || y1 > y2 || x2 > self.width || y2 > self.height {
            return 0;
        }
        let s = self.width as usize + 1 + 2 * self.pad as usize;
        let at = |x: u32, y: u32| self.sat[y as usize * s + self.pad as usize + x as usize];
        at(x2, y2) + at(x1 - 1, y1 - 1) - at(x1 - 1, y2) - at(x2, y1 - 1)
    }

    /// Free nodes within Chebyshev distance `s` of [x1, x2] × [y1, y2] (the rectangle grown
    /// by `s` on every side, clipped to the mesh).
    pub fn within(&self, x1: u32, y1: u32, x2: u32, y2: u32, s: u32) -> u32 {
        self.count(
            x1.saturating_sub(s).max(1),
            y1.saturating_sub(s).max(1),
            x2.saturating_add(s).min(self.width),
            y2.saturating_add(s).min(self.height),
        )
    }
}

/// The cost of taking `j` free nodes shell by shell (sum of their shell numbers) and the last
/// shell used, given `within(s)` = free nodes within distance s (non-decreasing in s), or
/// `None` when the cost is certainly above `limit` (checked after each shell with the bound
/// cost so far + (nodes still needed) · (s + 1)) or when fewer than `j` nodes lie within
/// distance `max_shell`.
pub fn shell_cost(
    j: u32,
    limit: u64,
    max_shell: u32,
    within: impl Fn(u32) -> u32,
) -> Option<(u64, u32)> {
    let (mut taken, mut cost) = (0u32, 0u64);
    for s in 0..=max_shell {
        let c = within(s).min(j);
        cost += u64::from(s) * u64::from(c.saturating_sub(taken));
        taken = taken.max(c);
        if taken == j {
            return (cost <= limit).then_some((cost, s));
        }
        if cost + u64::from(j - taken) * (u64::from(s) + 1) > limit {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::tests::random_mesh;
    use crate::base::SimRng;

    #[test]
    fn counts_match_a_scan() {
        let mut rng = SimRng::new(3);
        for &(w, h) in &[(1, 1), (5, 3), (3, 7), (9, 9)] {
            let m = random_mesh(&mut rng, w, h, 0.4);
            for (f, pad) in [(FreeCounts::new(&m), 0), (FreeCounts::padded(&m), PAD)] {
                check_table(&m, &f, pad);
            }
        }
    }

    /// `f` counts `m`'s free nodes in every rectangle, and its rows padded by `pad` columns
    /// give the clipped counts.
    fn check_table(m: &Mesh, f: &FreeCounts, pad: u32) {
        let (w, h) = (m.width(), m.height());
        for x1 in 1..=w {
            for x2 in x1..=w {
                for y1 in 1..=h {
                    for y2 in y1..=h {
                        let scan = (y1..=y2)
                            .flat_map(|y| (x1..=x2).map(move |x| (x, y)))
                            .filter(|&(x, y)| m.is_free(x, y))
                            .count() as u32;
                        assert_eq!(f.count(x1, y1, x2, y2), scan);
                    }
                }
            }
        }
        assert_eq!(f.count(0, 1, 1, 1), 0);
        assert_eq!(f.count(1, 1, w + 1, 1), 0);
        assert_eq!(f.within(1, 1, 1, 1, 100), m.free_count());
        // Padded rows: clipped counts by differences of slices.
        for y in 0..=h + 2 {
            let row = f.padded_row(y);
            assert_eq!(row.len(), (w + 1 + 2 * pad) as usize);
            for x in 0..row.len() as u32 {
                let clamped = x.saturating_sub(pad).min(w);
                let want = if clamped == 0 || y == 0 {
                    0
                } else {
                    f.count(1, 1, clamped, y.min(h))
                };
                assert_eq!(row[x as usize], want, "{w}×{h} y={y} x={x}");
            }
        }
    }

    #[test]
    fn cost_sums_shell_numbers() {
        // Cumulative counts 2, 5, 9, …: j = 6 takes 2 at cost 0, 3 at cost 1, 1 at cost 2.
        let c = |s: u32| [2, 5, 9, 20][s.min(3) as usize];
        assert_eq!(shell_cost(6, u64::MAX, 10, c), Some((5, 2)));
        assert_eq!(shell_cost(6, 5, 10, c), Some((5, 2)));
        assert_eq!(shell_cost(6, 4, 10, c), None);
        assert_eq!(shell_cost(2, 0, 10, c), Some((0, 0)));
        assert_eq!(shell_cost(21, u64::MAX, 10, c), None);
        assert_eq!(shell_cost(6, u64::MAX, 1, c), None);
    }
}
