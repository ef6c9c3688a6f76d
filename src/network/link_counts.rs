//! Messages per link in closed form (Mache et al. §2.1 and §4.1: all-to-all communication
//! among a job's nodes and complete-bipartite writes to the I/O line, XY routing): prefix sums
//! over the extended grid instead of walking every route, O(links + nodes) per job instead of
//! O(nodes² × hops), with exactly the integer counts of [`super::layout::job_links`]. Used by
//! the flow engine, the layout metrics and the mesh view's heatmap.

use super::{Dir, Network};

/// Messages on every link (indexed by [`Network::link_index`]) when every node of `from`
/// sends one message to every node of `to` along its XY route (X in the sender's row, then Y
/// in the receiver's column). A pair with equal ends sends nothing. Every node must be a node
/// of `net` (compute node or I/O-line position); others are ignored.
pub fn pair_link_counts(net: &Network, from: &[(u32, u32)], to: &[(u32, u32)]) -> Vec<u64> {
    let mut counts = Vec::new();
    pair_link_counts_into(net, from, to, &mut LinkScratch::default(), &mut counts);
    counts
}

/// Buffers reused by [`pair_link_counts_into`] and [`weighted_link_vector_into`] (a run
/// computes these vectors for every job; fresh multi-megabyte vectors on large meshes cost
/// more in page faults than in arithmetic).
#[derive(Clone, Debug, Default)]
pub struct LinkScratch {
    a_grid: Vec<u64>,
    b_grid: Vec<u64>,
    a: Vec<u64>,
    b: Vec<u64>,
    io: Vec<(u32, u32)>,
}

/// [`pair_link_counts`] into `counts` (resized to [`Network::link_slots`]), with `scratch`'s
/// buffers.
pub fn pair_link_counts_into(
    net: &Network,
    from: &[(u32, u32)],
    to: &[(u32, u32)],
    scratch: &mut LinkScratch,
    counts: &mut Vec<u64>,
) {
    let ew = net.width() as usize + 2;
    let eh = net.height() as usize + 2;
    let inside = |&&(x, y): &&(u32, u32)| (x as usize) < ew && (y as usize) < eh;
    // Senders per row and column index; receivers per column and row index.
    let a_grid = &mut scratch.a_grid;
    let b_grid = &mut scratch.b_grid;
    a_grid.clear();
    a_grid.resize(ew * eh, 0);
    b_grid.clear();
    b_grid.resize(ew * eh, 0);
    for &(x, y) in from.iter().filter(inside) {
        a_grid[y as usize * ew + x as usize] += 1;
    }
    for &(x, y) in to.iter().filter(inside) {
        b_grid[y as usize * ew + x as usize] += 1;
    }
    // Receivers with x ≤ c, senders with y ≤ r (prefix sums over columns / rows).
    let mut b_x_le = vec![0u64; ew];
    let mut a_y_le = vec![0u64; eh];
    for y in 0..eh {
        for x in 0..ew {
            b_x_le[x] += b_grid[y * ew + x];
            a_y_le[y] += a_grid[y * ew + x];
        }
    }
    for c in 1..ew {
        b_x_le[c] += b_x_le[c - 1];
    }
    for r in 1..eh {
        a_y_le[r] += a_y_le[r - 1];
    }
    let b_total = b_x_le[ew - 1];
    let a_total = a_y_le[eh - 1];
    counts.clear();
    counts.resize(net.link_slots(), 0);
    let idx = |x: usize, y: usize, d: Dir| (y * ew + x) * 4 + d as usize;
    // East (c, y) → (c + 1, y): senders in row y with x ≤ c, receivers with x ≥ c + 1.
    // West (c + 1, y) → (c, y): senders in row y with x ≥ c + 1, receivers with x ≤ c.
    for y in 0..eh {
        let row = &a_grid[y * ew..(y + 1) * ew];
        let row_total: u64 = row.iter().sum();
        if row_total == 0 {
            continue;
        }
        let mut le = 0u64;
        for c in 0..ew - 1 {
            le += row[c];
            let ge = row_total - le;
            counts[idx(c, y, Dir::East)] = le * (b_total - b_x_le[c]);
            counts[idx(c + 1, y, Dir::West)] = ge * b_x_le[c];
        }
    }
    // North (x, r) → (x, r + 1): senders with y ≤ r, receivers in column x with y ≥ r + 1.
    // South (x, r + 1) → (x, r): senders with y ≥ r + 1, receivers in column x with y ≤ r.
    for x in 0..ew {
        let col_total: u64 = (0..eh).map(|y| b_grid[y * ew + x]).sum();
        if col_total == 0 {
            continue;
        }
        let mut le = 0u64;
        for r in 0..eh - 1 {
            le += b_grid[r * ew + x];
            let ge = col_total - le;
            counts[idx(x, r, Dir::North)] = a_y_le[r] * ge;
            counts[idx(x, r + 1, Dir::South)] = (a_total - a_y_le[r]) * le;
        }
    }
}

/// A job's weighted messages per link (dense, indexed by [`Network::link_index`]):
/// ρ · (writes to every I/O node) + (1 − ρ) · (all-to-all), the same values as
/// [`super::layout::weighted_job_links`] gives for its non-zero links.
pub fn weighted_link_vector(net: &Network, nodes: &[(u32, u32)], rho: f64) -> Vec<f64> {
    let mut out = Vec::new();
    weighted_link_vector_into(net, nodes, rho, &mut LinkScratch::default(), &mut out);
    out
}

/// [`weighted_link_vector`] into `out`, with `scratch`'s buffers.
pub fn weighted_link_vector_into(
    net: &Network,
    nodes: &[(u32, u32)],
    rho: f64,
    scratch: &mut LinkScratch,
    out: &mut Vec<f64>,
) {
    let (mut a, mut b, mut io) = (
        std::mem::take(&mut scratch.a),
        std::mem::take(&mut scratch.b),
        std::mem::take(&mut scratch.io),
    );
    io.clear();
    io.extend(net.io_nodes().iter().map(|n| (n.x, n.y)));
    pair_link_counts_into(net, nodes, nodes, scratch, &mut a);
    pair_link_counts_into(net, nodes, &io, scratch, &mut b);
    out.clear();
    out.extend(a.iter().zip(&b).map(|(&a, &b)| {
        if a == 0 && b == 0 {
            0.0
        } else {
            rho * b as f64 + (1.0 - rho) * a as f64
        }
    }));
    (scratch.a, scratch.b, scratch.io) = (a, b, io);
}
