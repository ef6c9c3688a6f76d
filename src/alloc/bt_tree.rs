//! The allocation tree of the binary-tree allocators (Liu et al. §3.1 and the orthogonal
//! division of §4.1), shared by [`crate::alloc::bt`], [`crate::alloc::ncbt`],
//! [`crate::alloc::scbt`] and [`crate::alloc::compactness`].
//!
//! **Frame.** The tree lives in *I/O coordinates* ([`IoLayout`]): `c` = 0, 1, … counts the
//! lines of nodes parallel to the I/O nodes from the I/O side (the paper's x, the I/O nodes
//! being on its left) and `p` = 0, 1, … runs along a line (the paper's y). With west-side I/O
//! nodes (`IoLayout::west`, the paper's setup) node (c, p) is mesh node (c + 1, p + 1).
//!
//! **Tree.** The root is the whole mesh; a rectangle is cut in the middle of its longer side
//! (§3.1); a square is cut across `c` — into the half next to the I/O side and the far half —
//! so the halves of a square are tall (long along the I/O line), and cuts alternate inside
//! squares: this is exactly the orthogonal division of §4.1 (a 2^m × 2^n mesh is first cut
//! into 2^n × 2^n squares, then in alternating directions). The *left* child is the half
//! nearer the I/O side (smaller c) or, for a cut along the line, the half with smaller p. A
//! side of odd length L is cut into ⌈L/2⌉ (left) and ⌊L/2⌋ (right), so meshes whose sides are
//! not powers of two still have a tree down to 1 × 1 leaves.
//!
//! **Stateless.** The tree is never stored: a node's free count S(v) is read from the mesh's
//! busy array (a 2D Fenwick tree over a working copy, [`Frame`]), so releasing a job needs no
//! callback. Nodes chosen earlier in the same `select` call are marked busy in the working
//! copy only.

use super::node::{IoLayout, Node};
use crate::machine::mesh::Mesh;

/// A tree node: the rectangle of nodes c..c + w, p..p + h (0-based, I/O coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rect {
    /// First line (0 = next to the I/O nodes).
    pub c: u32,
    /// First position along the line.
    pub p: u32,
    /// Number of lines (extent across the I/O line).
    pub w: u32,
    /// Extent along the I/O line.
    pub h: u32,
}

impl Rect {
    /// Number of nodes A.
    pub fn area(&self) -> u64 {
        u64::from(self.w) * u64::from(self.h)
    }

    /// The two halves, left (nearer the I/O side, or lower p) first; `None` for a 1 × 1 leaf.
    /// The longer side is cut; a square is cut across c.
    pub fn children(&self) -> Option<(Rect, Rect)> {
        if self.w >= self.h && self.w > 1 {
            let a = self.w.div_ceil(2);
            Some((
                Rect { w: a, ..*self },
                Rect {
                    c: self.c + a,
                    w: self.w - a,
                    ..*self
                },
            ))
        } else if self.h > 1 {
            let a = self.h.div_ceil(2);
            Some((
                Rect { h: a, ..*self },
                Rect {
                    p: self.p + a,
                    h: self.h - a,
                    ..*self
                },
            ))
        } else {
            None
        }
    }

    /// `true` when `o` lies inside `self`.
    pub fn contains(&self, o: &Rect) -> bool {
        o.c >= self.c
            && o.p >= self.p
            && o.c + o.w <= self.c + self.w
            && o.p + o.h <= self.p + self.h
    }

    /// `true` when node (c, p) lies inside.
    pub fn holds(&self, c: u32, p: u32) -> bool {
        c >= self.c && p >= self.p && c < self.c + self.w && p < self.p + self.h
    }

    /// The first `r` nodes of the rectangle in column-first order (§3.1): the line next to
    /// the I/O side first, each line by increasing p.
    pub fn column_first(&self, r: u64) -> Vec<(u32, u32)> {
        (self.c..self.c + self.w)
            .flat_map(|c| (self.p..self.p + self.h).map(move |p| (c, p)))
            .take(r as usize)
            .collect()
    }
}

/// The path from the root down to a tree node (root first), or `None` when `target` is not
/// a node of the tree under `root`.
pub fn path_to(root: Rect, target: Rect) -> Option<Vec<Rect>> {
    let mut path = vec![root];
    let mut cur = root;
    while cur != target {
        let (a, b) = cur.children()?;
        cur = if a.contains(&target) {
            a
        } else if b.contains(&target) {
            b
        } else {
            return None;
        };
        path.push(cur);
    }
    Some(path)
}

/// The smallest tree node under `root` holding every node of `nodes` (I/O coordinates).
pub fn smallest_holding(root: Rect, nodes: &[(u32, u32)]) -> Rect {
    let mut cur = root;
    while let Some((a, b)) = cur.children() {
        if nodes.iter().all(|&(c, p)| a.holds(c, p)) {
            cur = a;
        } else if nodes.iter().all(|&(c, p)| b.holds(c, p)) {
            cur = b;
        } else {
            break;
        }
    }
    cur
}

/// A working copy of a mesh's busy array in I/O coordinates, with free counts per rectangle.
#[derive(Clone, Debug)]
pub struct Frame {
    cols: u32,
    len: u32,
    /// Mesh node of frame node (c, p), at c · len + p.
    nodes: Vec<Node>,
    busy: Vec<bool>,
    /// 2D Fenwick tree of free nodes, (cols + 1) × (len + 1), 1-based.
    prefix: Vec<u64>,
}

impl Frame {
    /// The state of `mesh` seen from the I/O line `io`.
    pub fn new(mesh: &Mesh, io: IoLayout) -> Frame {
        let (cols, len) = (io.lines(mesh), io.line_len(mesh));
        let mut nodes = Vec::with_capacity((cols * len) as usize);
        let mut busy = Vec::with_capacity((cols * len) as usize);
        for c in 0..cols {
            for p in 0..len {
                let (x, y) = io.node(mesh, c, p + 1);
                nodes.push((x, y));
                busy.push(!mesh.is_free(x, y));
            }
        }
        let mut f = Frame {
            cols,
            len,
            nodes,
            busy,
            prefix: Vec::new(),
        };
        f.rebuild();
        f
    }

    /// Builds the 2D Fenwick tree of free counts (linear time, one dimension at a time).
    fn rebuild(&mut self) {
        let (cols, len) = (self.cols as usize, self.len as usize);
        let stride = len + 1;
        let mut t = vec![0u64; (cols + 1) * stride];
        for c in 0..cols {
            for p in 0..len {
                t[(c + 1) * stride + p + 1] = u64::from(!self.busy[c * len + p]);
            }
        }
        for i in 1..=cols {
            for j in 1..=len {
                let k = j + (j & j.wrapping_neg());
                if k <= len {
                    t[i * stride + k] += t[i * stride + j];
                }
            }
        }
        for j in 1..=len {
            for i in 1..=cols {
                let k = i + (i & i.wrapping_neg());
                if k <= cols {
                    t[k * stride + j] += t[i * stride + j];
                }
            }
        }
        self.prefix = t;
    }

    /// Free nodes with c' < c and p' < p.
    fn prefix_free(&self, c: usize, p: usize) -> u64 {
        let stride = self.len as usize + 1;
        let mut sum = 0;
        let mut i = c;
        while i > 0 {
            let mut j = p;
            while j > 0 {
                sum += self.prefix[i * stride + j];
                j -= j & j.wrapping_neg();
            }
            i -= i & i.wrapping_neg();
        }
        sum
    }

    /// One fewer free node at (c, p).
    fn mark_busy(&mut self, c: usize, p: usize) {
        let (cols, len) = (self.cols as usize, self.len as usize);
        let stride = len + 1;
        let mut i = c + 1;
        while i <= cols {
            let mut j = p + 1;
            while j <= len {
                self.prefix[i * stride + j] -= 1;
                j += j & j.wrapping_neg();
            }
            i += i & i.wrapping_neg();
        }
    }

    /// The whole mesh.
    pub fn root(&self) -> Rect {
        Rect {
            c: 0,
            p: 0,
            w: self.cols,
            h: self.len,
        }
    }

    /// Mesh node of frame node (c, p).
    pub fn node(&self, c: u32, p: u32) -> Node {
        self.nodes[(c * self.len + p) as usize]
    }

    /// `true` when frame node (c, p) is free (in the mesh and not taken in this call).
    pub fn is_free(&self, c: u32, p: u32) -> bool {
        c < self.cols && p < self.len && !self.busy[(c * self.len + p) as usize]
    }

    /// S(v): free nodes of `r` (a rectangle inside the frame).
    pub fn free_in(&self, r: Rect) -> u64 {
        let (c0, p0) = (r.c as usize, r.p as usize);
        let (c1, p1) = (c0 + r.w as usize, p0 + r.h as usize);
        (self.prefix_free(c1, p1) + self.prefix_free(c0, p0))
            - (self.prefix_free(c0, p1) + self.prefix_free(c1, p0))
    }

    /// `true` when every node of `r` is free.
    pub fn all_free(&self, r: Rect) -> bool {
        self.free_in(r) == r.area()
    }

    /// The free nodes of `r`, column-first.
    pub fn free_nodes_in(&self, r: Rect) -> Vec<(u32, u32)> {
        r.column_first(r.area())
            .into_iter()
            .filter(|&(c, p)| self.is_free(c, p))
            .collect()
    }

    /// Marks frame nodes taken (busy in this working copy) and returns their mesh nodes.
    pub fn take(&mut self, nodes: &[(u32, u32)]) -> Vec<Node> {
        let mut out = Vec::with_capacity(nodes.len());
        for &(c, p) in nodes {
            let i = (c * self.len + p) as usize;
            if !self.busy[i] {
                self.busy[i] = true;
                self.mark_busy(c as usize, p as usize);
            }
            out.push(self.node(c, p));
        }
        out
    }

    /// Frame coordinates of mesh node `n`, if it is in the frame.
    pub fn frame_of(&self, n: Node) -> Option<(u32, u32)> {
        let i = self.nodes.iter().position(|&m| m == n)?;
        Some((i as u32 / self.len, i as u32 % self.len))
    }
}

/// How a search chooses between two children that could both hold the request (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Balance {
    /// BT: the left child first.
    Left,
    /// SBT: imbalance tolerance α, one global value.
    Static(u64),
    /// DBT: imbalance tolerance α = area(v) / `den` for the rectangle v whose children are
    /// compared (a ratio 1/den of its size).
    Dynamic(u64),
    /// DBT under the second reading of §3.1 (docs/binary-tree.md): α = free(v) / `den`, a
    /// ratio of the processors still available in v (equal to [`Balance::Dynamic`] on an
    /// empty rectangle, tighter as it fills).
    DynamicFree(u64),
    /// SBT, counting the tree rectangle the request takes (its area A, the smallest tree
    /// rectangle of the heavier child holding r; log₂ A − 1 < log₂ r ≤ log₂ A on a
    /// power-of-two mesh) instead of r in the imbalance: §3.1's other reading of "available
    /// processors" after the allocation (docs/binary-tree.md).
    StaticRect(u64),
    /// DBT (ratio of the rectangle's size), counting A instead of r as [`Balance::StaticRect`].
    DynamicRect(u64),
}

/// Area of the tree rectangle a contiguous request of `r` nodes takes under `rect`: descend
/// into the larger child while it holds r.
fn unit_area(mut rect: Rect, r: u64) -> u64 {
    while let Some((a, b)) = rect.children() {
        let big = if a.area() >= b.area() { a } else { b };
        if big.area() >= r {
            rect = big;
        } else {
            break;
        }
    }
    rect.area()
}

impl Balance {
    /// The children of `parent` in the order the search tries them, for a request of `r`
    /// nodes. SBT/DBT: the heavier-loaded child (fewer free nodes; the left one on a tie)
    /// first if, after putting the request there, the children's free counts differ by at
    /// most α — i.e. S(lighter) − (S(heavier) − r) ≤ α — else the lighter child first.
    pub fn order(self, frame: &Frame, parent: Rect, a: Rect, b: Rect, r: u64) -> [Rect; 2] {
        let (sa, sb) = (frame.free_in(a), frame.free_in(b));
        let (heavy, light, sh, sl) = if sa <= sb {
            (a, b, sa, sb)
        } else {
            (b, a, sb, sa)
        };
        // Imbalance after the allocation: |(S_h − r) − S_l| = S_l − S_h + r (S_h ≤ S_l).
        let taken = match self {
            Balance::StaticRect(_) | Balance::DynamicRect(_) => unit_area(heavy, r),
            _ => r,
        };
        let imbalance = sl - sh + taken;
        let ok = match self {
            Balance::Left => return [a, b],
            Balance::Static(alpha) | Balance::StaticRect(alpha) => imbalance <= alpha,
            Balance::DynamicRect(den) => imbalance.saturating_mul(den.max(1)) <= parent.area(),
            Balance::Dynamic(den) => imbalance.saturating_mul(den.max(1)) <= parent.area(),
            Balance::DynamicFree(den) => imbalance.saturating_mul(den.max(1)) <= sa + sb,
        };
        if ok {
            [heavy, light]
        } else {
            [light, heavy]
        }
    }
}

/// BT search (§3.1) under `rect` for a request of `r` ≥ 1 nodes: descend into children that
/// are large enough (area ≥ r), in the order of `balance`, down to the smallest rectangles
/// that hold the request (area ≥ r, no child with area ≥ r: log2 A − 1 < log2 R ≤ log2 A on
/// a power-of-two mesh); such a rectangle is taken if it is entirely free, otherwise the
/// search backtracks (external fragmentation) and tries the sibling. Subtrees with fewer
/// than r free nodes are skipped. On success pushes the path below `rect` (excluding
/// `rect`, ending at the chosen rectangle) onto `path`.
pub fn find(frame: &Frame, rect: Rect, r: u64, balance: Balance, path: &mut Vec<Rect>) -> bool {
    if frame.free_in(rect) < r {
        return false;
    }
    let order: Vec<Rect> = match rect.children() {
        Some((a, b)) if a.area() >= r && b.area() >= r => {
            balance.order(frame, rect, a, b, r).to_vec()
        }
        Some((a, _)) if a.area() >= r => vec![a],
        Some((_, b)) if b.area() >= r => vec![b],
        _ => return frame.all_free(rect),
    };
    for ch in order {
        path.push(ch);
        if find(frame, ch, r, balance, path) {
            return true;
        }
        path.pop();
    }
    false
}

/// Like [`find`] from the root; returns the path root → chosen rectangle.
pub fn find_from_root(frame: &Frame, r: u64, balance: Balance) -> Option<Vec<Rect>> {
    let root = frame.root();
    let mut path = vec![root];
    find(frame, root, r, balance, &mut path).then_some(path)
}

/// The dependent search of §3.2: after the previous sub-request went to the last rectangle
/// A of `prev` (a root → A path), start at A's parent, sibling of A first, then A itself;
/// failing that, climb: the sibling of each further ancestor in turn, up to the root (so
/// the whole tree is searched, nearest subtrees first). Returns the new root → rectangle
/// path.
pub fn find_near(frame: &Frame, prev: &[Rect], r: u64, balance: Balance) -> Option<Vec<Rect>> {
    if prev.len() < 2 {
        return find_from_root(frame, r, balance);
    }
    for k in (1..prev.len()).rev() {
        let (parent, cur) = (prev[k - 1], prev[k]);
        let (a, b) = parent.children()?;
        let sib = if a == cur { b } else { a };
        let mut tries = vec![sib];
        if k == prev.len() - 1 {
            tries.push(cur);
        }
        for t in tries {
            if t.area() < r {
                continue;
            }
            let mut path = prev[..k].to_vec();
            path.push(t);
            if find(frame, t, r, balance, &mut path) {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::Submesh;
    use crate::network::IoSide;

    #[test]
    fn orthogonal_division_cuts_longer_side_squares_across_c() {
        let root = Rect {
            c: 0,
            p: 0,
            w: 8,
            h: 4,
        };
        let (a, b) = root.children().unwrap();
        assert_eq!((a.w, a.h, b.c), (4, 4, 4));
        // A square is cut across c: two tall halves.
        let (aa, ab) = a.children().unwrap();
        assert_eq!((aa.w, aa.h, ab.c), (2, 4, 2));
        // … which are cut along the line.
        let (x, y) = aa.children().unwrap();
        assert_eq!((x.w, x.h, y.p), (2, 2, 2));
        // Odd sides: left gets the larger half.
        let odd = Rect {
            c: 0,
            p: 0,
            w: 5,
            h: 3,
        };
        let (l, r) = odd.children().unwrap();
        assert_eq!((l.w, r.c, r.w), (3, 3, 2));
        assert_eq!(
            path_to(root, x).unwrap(),
            vec![root, a, aa, x],
            "path to a node"
        );
    }

    #[test]
    fn frame_counts_and_io_sides() {
        let mut m = Mesh::new(4, 2).unwrap();
        m.allocate(0, Submesh::at(1, 1, 1, 2)).unwrap();
        let f = Frame::new(&m, IoLayout::west(2));
        assert_eq!(f.node(0, 0), (1, 1));
        assert_eq!(f.free_in(f.root()), 6);
        assert_eq!(
            f.free_in(Rect {
                c: 0,
                p: 0,
                w: 2,
                h: 2
            }),
            2
        );
        // East I/O: line 0 is column 4.
        let east = IoLayout {
            side: IoSide::East,
            middle_twice: 3,
        };
        let f = Frame::new(&m, east);
        assert_eq!(f.node(0, 0), (4, 1));
        assert_eq!(
            f.free_in(Rect {
                c: 3,
                p: 0,
                w: 1,
                h: 2
            }),
            0
        );
        // South I/O: lines are rows, 2 lines of length 4.
        let south = IoLayout {
            side: IoSide::South,
            middle_twice: 5,
        };
        let f = Frame::new(&m, south);
        assert_eq!((f.root().w, f.root().h), (2, 4));
        assert_eq!(f.frame_of((3, 2)), Some((1, 2)));
    }
}
