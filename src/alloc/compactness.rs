//! Compactness criteria of Liu et al. §4: the number D of free squares (Definition 1), compact
//! and spatially compact states (Definition 2, Lemma 1), and a checker that runs an allocator
//! on a request stream without departures and reports both after every allocation.
//!
//! **D of a state** ([`square_counts`]): the free nodes are divided into *aligned* squares of
//! side 2^i (0-based corner a multiple of 2^i in both coordinates, lying inside the mesh,
//! 2^i ≤ min(W, H)) — the buddy/quadtree blocks. Aligned squares are nested or disjoint, so
//! the partition into maximal free aligned squares has the fewest squares of all aligned
//! partitions; d_i counts its squares of side 2^i and D = Σ d_i.
//!
//! **Minimal D** ([`min_square_count`]): any partition of f free nodes into squares of 4^i
//! nodes (i ≤ top, 2^top the largest side that fits) has at least
//! ⌊f / 4^top⌋ + (sum of the base-4 digits of f mod 4^top) squares — the powers of 4 are a
//! canonical coin system. We call a state *compact* when its D equals this bound. The bound
//! is over every state with f free nodes (and every square partition, aligned or not), so a
//! state that meets it is minimal under any reading of Definition 1; a state above it is
//! reported not compact even where no allocation of that size from the previous state could
//! have met it (possible only after departures or on meshes whose sides are not powers of
//! two). This is the strict reading.
//!
//! **Spatially compact** ([`is_spatially_compact`], Lemma 1): the free blocks are the
//! maximal entirely free nodes of the orthogonal division ([`crate::alloc::bt_tree`], in the
//! I/O frame of an [`IoLayout`]); the state is spatially compact when no two free blocks have
//! the same size and, for free blocks p bigger than q, the parent of p is an ancestor of q.

use std::fmt;

use super::bt_tree::{Frame, Rect};
use super::node::{IoLayout, Node, NodeAllocator};
use crate::machine::mesh::{Mesh, Submesh};

/// Largest i with 2^i ≤ min(width, height).
fn top_exp(width: u32, height: u32) -> u32 {
    let m = width.min(height).max(1);
    31 - m.leading_zeros()
}

/// d_i for i = 0..=top: the number of maximal free aligned squares of side 2^i.
pub fn square_counts(mesh: &Mesh) -> Vec<u32> {
    let (w, h) = (mesh.width(), mesh.height());
    let top = top_exp(w, h);
    // Free counts by prefix sums over the mesh (x, y 0-based).
    let stride = w as usize + 1;
    let mut pre = vec![0u32; (h as usize + 1) * stride];
    for y in 0..h as usize {
        for x in 0..w as usize {
            let f = u32::from(mesh.is_free(x as u32 + 1, y as u32 + 1));
            pre[(y + 1) * stride + x + 1] =
                f + pre[y * stride + x + 1] + pre[(y + 1) * stride + x] - pre[y * stride + x];
        }
    }
    let all_free = |bx: u32, by: u32, s: u32| -> bool {
        if bx + s > w || by + s > h {
            return false;
        }
        let (x0, y0, x1, y1) = (
            bx as usize,
            by as usize,
            (bx + s) as usize,
            (by + s) as usize,
        );
        pre[y1 * stride + x1] + pre[y0 * stride + x0]
            - pre[y0 * stride + x1]
            - pre[y1 * stride + x0]
            == s * s
    };
    let mut d = vec![0u32; top as usize + 1];
    for i in 0..=top {
        let s = 1u32 << i;
        for by in (0..h).step_by(s as usize) {
            for bx in (0..w).step_by(s as usize) {
                if !all_free(bx, by, s) {
                    continue;
                }
                let ps = 2 * s;
                let parent_free = i < top && all_free(bx / ps * ps, by / ps * ps, ps);
                if !parent_free {
                    d[i as usize] += 1;
                }
            }
        }
    }
    d
}

/// D = Σ d_i of a state (Definition 1).
pub fn square_count(mesh: &Mesh) -> u32 {
    square_counts(mesh).iter().sum()
}

/// The fewest squares of sides 2^i ≤ min(width, height) that f nodes can be divided into:
/// ⌊f / 4^top⌋ plus the base-4 digit sum of f mod 4^top.
pub fn min_square_count(width: u32, height: u32, free: u32) -> u32 {
    let top = top_exp(width, height);
    let big = 1u64 << (2 * top);
    let f = u64::from(free);
    let mut n = f / big;
    let mut r = f % big;
    while r > 0 {
        n += r % 4;
        r /= 4;
    }
    n as u32
}

/// `true` when D of the state is the minimum for its free count (see the module doc).
pub fn is_compact(mesh: &Mesh) -> bool {
    square_count(mesh) == min_square_count(mesh.width(), mesh.height(), mesh.free_count())
}

/// A free block of the orthogonal division and its parent (`None` for the root).
fn blocks(frame: &Frame, r: Rect, parent: Option<Rect>, out: &mut Vec<(Rect, Option<Rect>)>) {
    let s = frame.free_in(r);
    if s == 0 {
        return;
    }
    if s == r.area() {
        out.push((r, parent));
        return;
    }
    if let Some((a, b)) = r.children() {
        blocks(frame, a, Some(r), out);
        blocks(frame, b, Some(r), out);
    }
}

/// The free processor blocks: maximal entirely free nodes of the orthogonal division, in
/// leaf order (I/O coordinates of `io`).
pub fn free_blocks(mesh: &Mesh, io: IoLayout) -> Vec<Rect> {
    let frame = Frame::new(mesh, io);
    let mut v = Vec::new();
    blocks(&frame, frame.root(), None, &mut v);
    v.into_iter().map(|(r, _)| r).collect()
}

/// Lemma 1: at most one free block of each size, and for free blocks p bigger than q the
/// parent of p is an ancestor of q (contains q).
pub fn is_spatially_compact(mesh: &Mesh, io: IoLayout) -> bool {
    let frame = Frame::new(mesh, io);
    let mut v = Vec::new();
    blocks(&frame, frame.root(), None, &mut v);
    for (i, &(p, pp)) in v.iter().enumerate() {
        for &(q, _) in &v[i + 1..] {
            if p.area() == q.area() {
                return false;
            }
        }
        for &(q, _) in &v {
            if p.area() > q.area() && !pp.is_some_and(|par| par.contains(&q)) {
                return false;
            }
        }
    }
    true
}

/// The state after one allocation of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Nodes requested.
    pub request: u32,
    /// Free nodes after the allocation.
    pub free: u32,
    /// D after the allocation.
    pub squares: u32,
    /// The minimum D for that many free nodes.
    pub min_squares: u32,
    /// Lemma 1 holds after the allocation.
    pub spatially_compact: bool,
}

impl Step {
    /// D is minimal.
    pub fn compact(&self) -> bool {
        self.squares == self.min_squares
    }
}

/// Why a stream could not be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The allocator returned `None` for request number `step` (0-based) of `request` nodes.
    Refused { step: usize, request: u32 },
    /// The allocator returned a node that is not free, a duplicate, or the wrong count.
    BadNodes { step: usize, request: u32 },
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Refused { step, request } => {
                write!(f, "request {step} ({request} nodes) was refused")
            }
            StreamError::BadNodes { step, request } => write!(
                f,
                "request {step} ({request} nodes) got nodes that are not {request} distinct \
                 free nodes"
            ),
        }
    }
}

impl std::error::Error for StreamError {}

/// Runs `alloc` on `requests` in order without departures, allocating each job on `mesh`
/// (job ids 0, 1, … — the mesh should start empty of those ids), and returns the state
/// after every allocation. A request larger than the free count ends the stream.
pub fn run_stream(
    alloc: &mut dyn NodeAllocator,
    mesh: &mut Mesh,
    requests: &[u32],
    io: IoLayout,
) -> Result<Vec<Step>, StreamError> {
    let mut steps = Vec::with_capacity(requests.len());
    for (step, &request) in requests.iter().enumerate() {
        if request > mesh.free_count() {
            break;
        }
        let nodes: Vec<Node> = alloc
            .select(mesh, request)
            .ok_or(StreamError::Refused { step, request })?;
        if nodes.len() != request as usize {
            return Err(StreamError::BadNodes { step, request });
        }
        for &(x, y) in &nodes {
            mesh.allocate(step, Submesh::at(x, y, 1, 1))
                .map_err(|_| StreamError::BadNodes { step, request })?;
        }
        steps.push(Step {
            request,
            free: mesh.free_count(),
            squares: square_count(mesh),
            min_squares: min_square_count(mesh.width(), mesh.height(), mesh.free_count()),
            spatially_compact: is_spatially_compact(mesh, io),
        });
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_of_a_state() {
        let mut m = Mesh::new(4, 4).unwrap();
        assert_eq!(square_counts(&m), vec![0, 0, 1]);
        m.allocate(0, Submesh::at(1, 1, 1, 1)).unwrap();
        // 15 = 3 · 4 + 3 · 1.
        assert_eq!(square_counts(&m), vec![3, 3, 0]);
        assert!(is_compact(&m));
        // A hole in a second 2 × 2 square: 14 free could be 3 · 4 + 2 · 1 (5 squares); we
        // have 2 squares of 4 and 6 single nodes.
        m.allocate(1, Submesh::at(3, 3, 1, 1)).unwrap();
        assert_eq!(square_count(&m), 8);
        assert_eq!(min_square_count(4, 4, 14), 5);
        assert!(!is_compact(&m));
        // Non-square mesh: 8 × 4 holds two 4 × 4 squares at most.
        assert_eq!(min_square_count(8, 4, 32), 2);
        assert_eq!(min_square_count(8, 4, 31), 1 + 3 + 3);
        assert_eq!(square_count(&Mesh::new(8, 4).unwrap()), 2);
        // 5 × 3: squares of side ≤ 2; the east column and north row are single nodes.
        assert_eq!(square_counts(&Mesh::new(5, 3).unwrap()), vec![7, 2]);
    }

    #[test]
    fn lemma1_blocks() {
        let io = IoLayout::west(4);
        let mut m = Mesh::new(4, 4).unwrap();
        assert!(is_spatially_compact(&m, io));
        // First node in leaf order busy: free blocks 1, 2, 4, 8 nested.
        m.allocate(0, Submesh::at(1, 1, 1, 1)).unwrap();
        let b = free_blocks(&m, io);
        let areas: Vec<u64> = b.iter().map(Rect::area).collect();
        assert_eq!(areas, vec![1, 2, 4, 8]);
        assert!(is_spatially_compact(&m, io));
        // A busy node elsewhere: two blocks of 1 → not spatially compact.
        m.allocate(1, Submesh::at(4, 4, 1, 1)).unwrap();
        assert!(!is_spatially_compact(&m, io));
        // Busy (1, 2) alone: blocks 1 at (1, 1), 2 (column 2 of the south-west square), 4, 8,
        // nested — spatially compact although not a prefix of the leaf order.
        let mut m = Mesh::new(4, 4).unwrap();
        m.allocate(0, Submesh::at(1, 2, 1, 1)).unwrap();
        assert!(is_spatially_compact(&m, io));
        // Busy (3, 1): the west half (8), then inside the east half 1 at (3, 2), 2 (column 4,
        // rows 1–2) and 4 (the north-east square), each bigger block's parent holding the
        // smaller ones.
        let mut m = Mesh::new(4, 4).unwrap();
        m.allocate(0, Submesh::at(3, 1, 1, 1)).unwrap();
        assert!(is_spatially_compact(&m, io));
        // Busy (1, 1) and (3, 3): blocks 1, 2 in the west, 1, 2 in the east → not.
        let mut m = Mesh::new(4, 4).unwrap();
        m.allocate(0, Submesh::at(1, 1, 1, 1)).unwrap();
        m.allocate(1, Submesh::at(3, 3, 1, 1)).unwrap();
        assert!(!is_spatially_compact(&m, io));
    }

    #[test]
    fn stream_reports_every_step() {
        let mut m = Mesh::new(4, 4).unwrap();
        let mut a = crate::alloc::scbt::SpatiallyCompactTree::new(IoLayout::west(4));
        let steps = run_stream(&mut a, &mut m, &[3, 5, 7, 9], IoLayout::west(4)).unwrap();
        assert_eq!(steps.len(), 3);
        assert!(steps.iter().all(|s| s.compact() && s.spatially_compact));
        assert_eq!(steps[2].free, 1);
    }
}

/// What the app's mesh view overlays for Liu et al. (§3.1, §4): the allocation tree's nodes
/// that are split by the current allocation (partly busy, outlined), the free blocks (maximal
/// entirely free tree nodes, shaded), and D against its minimum. Rectangles are given by two
/// opposite corner nodes in mesh coordinates (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeView {
    /// Partly busy tree nodes, root first (depth-first, left child first).
    pub split: Vec<(Node, Node)>,
    /// Free blocks, in leaf order.
    pub free: Vec<(Node, Node)>,
    /// D: free squares of sizes 2^i (Definition 1).
    pub d: u32,
    /// The smallest D any state with this many free nodes can have.
    pub d_min: u32,
    /// Lemma 1 holds (at most one free block of each size, nested).
    pub spatially_compact: bool,
}

/// The [`TreeView`] of `mesh` seen from the I/O line `io`.
pub fn tree_view(mesh: &Mesh, io: IoLayout) -> TreeView {
    let frame = Frame::new(mesh, io);
    let corners = |r: Rect| {
        (
            frame.node(r.c, r.p),
            frame.node(r.c + r.w - 1, r.p + r.h - 1),
        )
    };
    let mut split = Vec::new();
    let mut stack = vec![frame.root()];
    while let Some(r) = stack.pop() {
        let s = frame.free_in(r);
        if s == 0 || s == r.area() {
            continue;
        }
        split.push(corners(r));
        if let Some((a, b)) = r.children() {
            stack.push(b);
            stack.push(a);
        }
    }
    let mut blocks_found = Vec::new();
    blocks(&frame, frame.root(), None, &mut blocks_found);
    TreeView {
        split,
        free: blocks_found.into_iter().map(|(r, _)| corners(r)).collect(),
        d: square_count(mesh),
        d_min: min_square_count(mesh.width(), mesh.height(), mesh.free_count()),
        spatially_compact: is_spatially_compact(mesh, io),
    }
}

#[cfg(test)]
mod tree_view_tests {
    use super::*;
    use crate::machine::mesh::Submesh;

    #[test]
    fn the_view_of_a_4_by_4_mesh_with_one_corner_taken() {
        // 4 × 4, I/O on the west; node (1, 1) busy: the root, its left half (lines 0–1), that
        // half's lower quarter (positions 0–1) … down to the 1 × 1 leaf's parent are split.
        let mut mesh = Mesh::new(4, 4).unwrap();
        mesh.allocate(0, Submesh::new(1, 1, 1, 1)).unwrap();
        let v = tree_view(&mesh, IoLayout::west(4));
        assert_eq!(v.split.first(), Some(&((1, 1), (4, 4))));
        assert_eq!(v.split.len(), 4, "{:?}", v.split);
        // Free blocks: 15 nodes = the other half (8), a 2 × 2 (4), a 1 × 2 (2), a node (1).
        let sizes: Vec<u32> = v
            .free
            .iter()
            .map(|&((x0, y0), (x1, y1))| (x0.abs_diff(x1) + 1) * (y0.abs_diff(y1) + 1))
            .collect();
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![1, 2, 4, 8], "{:?}", v.free);
        assert_eq!(v.d, square_count(&mesh));
        assert_eq!(v.d_min, min_square_count(4, 4, 15));
        assert!(v.d >= v.d_min);
        // An empty mesh: nothing split, one free block, D = 1 (one 4 × 4 square).
        let empty = Mesh::new(4, 4).unwrap();
        let e = tree_view(&empty, IoLayout::west(4));
        assert!(e.split.is_empty());
        assert_eq!(e.free, vec![((1, 1), (4, 4))]);
        assert_eq!((e.d, e.d_min), (1, 1));
    }
}
