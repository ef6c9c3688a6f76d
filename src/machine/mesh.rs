//! A 2D mesh multicomputer M(W, H) — Ababneh & Bani-Mohammad §3.1 ("A new
//! window-based job scheduling scheme for 2D mesh multicomputers", 2010).
//!
//! Nodes are addressed as in the paper: column `x` in 1..=W, row `y` in 1..=H, row 1 at the
//! bottom. A w × h submesh is `(x_b, y_b, x_e, y_e)` with base (lower-left corner) `(x_b, y_b)`
//! and end (upper-right corner) `(x_e, y_e)` ([`Submesh`]).
//!
//! The mesh keeps a busy array (the job holding each node, or none), the free-node count and,
//! computed lazily after every change, the list of *maximal free submeshes* (Definition 1: a
//! free submesh that is not a proper subset of any other free submesh; Example 1) together
//! with a capacity profile that answers "is there a free w × h submesh?" in O(1). The free
//! list is what the allocators of [`crate::alloc`] choose from.
//!
//! Fragmentation ([`Mesh::fragmentation`]): free nodes that none of the given requests (the
//! waiting jobs) could use, i.e. nodes outside every free placement of every request.

use std::fmt;

use crate::base::JobId;

/// A submesh `(x_b, y_b, x_e, y_e)`, 1-based, inclusive (Ababneh & Bani-Mohammad §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Submesh {
    /// Base column x_b.
    pub x1: u32,
    /// Base row y_b.
    pub y1: u32,
    /// End column x_e.
    pub x2: u32,
    /// End row y_e.
    pub y2: u32,
}

impl Submesh {
    /// The submesh (x_b, y_b, x_e, y_e).
    pub const fn new(x1: u32, y1: u32, x2: u32, y2: u32) -> Submesh {
        Submesh { x1, y1, x2, y2 }
    }

    /// The w × h submesh with base (x, y) (w, h ≥ 1; arithmetic saturates).
    pub const fn at(x: u32, y: u32, w: u32, h: u32) -> Submesh {
        Submesh {
            x1: x,
            y1: y,
            x2: x.saturating_add(w).saturating_sub(1),
            y2: y.saturating_add(h).saturating_sub(1),
        }
    }

    /// Width w = x_e − x_b + 1 (0 for a malformed submesh with x_e < x_b).
    pub const fn width(&self) -> u32 {
        if self.x2 >= self.x1 {
            (self.x2 - self.x1).saturating_add(1)
        } else {
            0
        }
    }

    /// Height h = y_e − y_b + 1 (0 for a malformed submesh with y_e < y_b).
    pub const fn height(&self) -> u32 {
        if self.y2 >= self.y1 {
            (self.y2 - self.y1).saturating_add(1)
        } else {
            0
        }
    }

    /// Number of nodes w · h (saturating).
    pub const fn size(&self) -> u32 {
        self.width().saturating_mul(self.height())
    }

    /// `true` when `other` lies inside `self`.
    pub const fn contains(&self, other: &Submesh) -> bool {
        self.x1 <= other.x1 && other.x2 <= self.x2 && self.y1 <= other.y1 && other.y2 <= self.y2
    }

    /// `true` when node (x, y) lies inside `self`.
    pub const fn contains_node(&self, x: u32, y: u32) -> bool {
        self.x1 <= x && x <= self.x2 && self.y1 <= y && y <= self.y2
    }

    /// `true` when the two submeshes share a node.
    pub const fn overlaps(&self, other: &Submesh) -> bool {
        self.x1 <= other.x2 && other.x1 <= self.x2 && self.y1 <= other.y2 && other.y1 <= self.y2
    }

    /// A well-formed submesh (base ≤ end, 1-based) inside an M(W, H).
    pub const fn fits_in(&self, width: u32, height: u32) -> bool {
        self.x1 >= 1
            && self.y1 >= 1
            && self.x1 <= self.x2
            && self.y1 <= self.y2
            && self.x2 <= width
            && self.y2 <= height
    }
}

impl fmt::Display for Submesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {}, {})", self.x1, self.y1, self.x2, self.y2)
    }
}

/// Serialised as `[x_b, y_b, x_e, y_e]`.
impl serde::Serialize for Submesh {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&[self.x1, self.y1, self.x2, self.y2], s)
    }
}

impl<'de> serde::Deserialize<'de> for Submesh {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [x1, y1, x2, y2] = <[u32; 4] as serde::Deserialize>::deserialize(d)?;
        Ok(Submesh { x1, y1, x2, y2 })
    }
}

/// Error of a mesh operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeshError {
    /// Width or height is 0, or W · H does not fit in 32 bits, or a side exceeds 65,535.
    BadSize { width: u32, height: u32 },
    /// The submesh is malformed or reaches outside the mesh.
    OutOfBounds {
        sub: Submesh,
        width: u32,
        height: u32,
    },
    /// A node of the submesh is already allocated.
    Busy { sub: Submesh, x: u32, y: u32 },
    /// A node of the released submesh is not held by the releasing job.
    NotHeld {
        job: JobId,
        sub: Submesh,
        x: u32,
        y: u32,
    },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::BadSize { width, height } => write!(
                f,
                "a {width} × {height} mesh is not possible (sides 1..=65535, at most 2^32 − 1 nodes)"
            ),
            MeshError::OutOfBounds { sub, width, height } => {
                write!(f, "submesh {sub} is not inside the {width} × {height} mesh")
            }
            MeshError::Busy { sub, x, y } => {
                write!(f, "submesh {sub} is not free: node ({x}, {y}) is allocated")
            }
            MeshError::NotHeld { job, sub, x, y } => write!(
                f,
                "job #{job} releases {sub} but does not hold node ({x}, {y})"
            ),
        }
    }
}

impl std::error::Error for MeshError {}

/// Free nodes, and free nodes that no given request could use (Ababneh & Bani-Mohammad §1: external
/// fragmentation — free processors not allocated because of the shape constraint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragmentation {
    /// Free nodes.
    pub free: u32,
    /// Free nodes outside every free placement of every request.
    pub unusable: u32,
    /// Nodes of the largest free submesh.
    pub largest_free_submesh: u32,
}

/// The lazily computed free list and capacity profile.
#[derive(Clone, Debug, Default)]
struct Analysis {
    /// The free list and profile describe the current state.
    valid: bool,
    /// Only allocations happened since the last computation: the profile is an upper bound
    /// (a request it rejects still does not fit).
    upper: bool,
    /// Maximal free submeshes in discovery order (by end row, then by end column).
    rects: Vec<Submesh>,
    /// `profile[w]` = height of the tallest free submesh at least `w` wide (index 0 unused).
    profile: Vec<u32>,
    // Scratch buffers reused across recomputations.
    heights: Vec<u32>,
    stack: Vec<(u32, u32)>,
}

/// The mesh M(W, H): who holds each node, and the free list.
#[derive(Clone, Debug)]
pub struct Mesh {
    width: u32,
    height: u32,
    /// `owner[(y − 1) · W + (x − 1)]` = job + 1, or 0 when free.
    owner: Vec<u32>,
    /// Busy bits, `words` 64-bit words per row (bit x − 1 of row y − 1).
    bits: Vec<u64>,
    words: usize,
    free: u32,
    analysis: Analysis,
}

impl PartialEq for Mesh {
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width && self.height == other.height && self.owner == other.owner
    }
}

impl Mesh {
    /// An idle M(`width`, `height`).
    pub fn new(width: u32, height: u32) -> Result<Mesh, MeshError> {
        let n = width.checked_mul(height);
        if width == 0 || height == 0 || width > 65_535 || height > 65_535 || n.is_none() {
            return Err(MeshError::BadSize { width, height });
        }
        let n = n.unwrap_or(0);
        let words = (width as usize).div_ceil(64);
        Ok(Mesh {
            width,
            height,
            owner: vec![0; n as usize],
            bits: vec![0; words * height as usize],
            words,
            free: n,
            analysis: Analysis::default(),
        })
    }

    /// Width W.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height H.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of nodes N = W · H.
    pub fn size(&self) -> u32 {
        self.width * self.height
    }

    /// Free nodes.
    pub fn free_count(&self) -> u32 {
        self.free
    }

    /// Allocated nodes.
    pub fn busy_count(&self) -> u32 {
        self.size() - self.free
    }

    #[inline]
    fn idx(&self, x: u32, y: u32) -> usize {
        ((y - 1) * self.width + (x - 1)) as usize
    }

    /// The job holding node (x, y); `None` when free or outside the mesh.
    pub fn owner_at(&self, x: u32, y: u32) -> Option<JobId> {
        if x == 0 || y == 0 || x > self.width || y > self.height {
            return None;
        }
        match self.owner[self.idx(x, y)] {
            0 => None,
            o => Some(o as usize - 1),
        }
    }

    /// `true` when node (x, y) exists and is free.
    pub fn is_free(&self, x: u32, y: u32) -> bool {
        x >= 1 && y >= 1 && x <= self.width && y <= self.height && self.owner[self.idx(x, y)] == 0
    }

    /// The busy array, row by row from row 1: job + 1 per node, 0 when free.
    pub fn owners(&self) -> &[u32] {
        &self.owner
    }

    /// The first allocated node of `sub` (row by row), if any; `Err` when `sub` is not inside.
    fn first_busy(&self, sub: &Submesh) -> Result<Option<(u32, u32)>, MeshError> {
        if !sub.fits_in(self.width, self.height) {
            return Err(MeshError::OutOfBounds {
                sub: *sub,
                width: self.width,
                height: self.height,
            });
        }
        for y in sub.y1..=sub.y2 {
            let row = self.idx(sub.x1, y);
            let cells = &self.owner[row..row + sub.width() as usize];
            if let Some(i) = cells.iter().position(|&o| o != 0) {
                return Ok(Some((sub.x1 + i as u32, y)));
            }
        }
        Ok(None)
    }

    /// `true` when `sub` lies inside the mesh and all its nodes are free.
    pub fn is_submesh_free(&self, sub: &Submesh) -> bool {
        matches!(self.first_busy(sub), Ok(None))
    }

    /// Allocates `sub` to `job`. Fails (changing nothing) unless `sub` is inside and free.
    pub fn allocate(&mut self, job: JobId, sub: Submesh) -> Result<(), MeshError> {
        if let Some((x, y)) = self.first_busy(&sub)? {
            return Err(MeshError::Busy { sub, x, y });
        }
        let tag = (job as u32).wrapping_add(1).max(1);
        for y in sub.y1..=sub.y2 {
            let row = self.idx(sub.x1, y);
            self.owner[row..row + sub.width() as usize].fill(tag);
            self.set_bits(y, sub.x1, sub.x2, true);
        }
        self.free -= sub.size();
        self.analysis.valid = false;
        Ok(())
    }

    /// Releases `sub`, which `job` must hold entirely. Fails (changing nothing) otherwise.
    pub fn release(&mut self, job: JobId, sub: Submesh) -> Result<(), MeshError> {
        if !sub.fits_in(self.width, self.height) {
            return Err(MeshError::OutOfBounds {
                sub,
                width: self.width,
                height: self.height,
            });
        }
        let tag = (job as u32).wrapping_add(1).max(1);
        for y in sub.y1..=sub.y2 {
            for x in sub.x1..=sub.x2 {
                if self.owner[self.idx(x, y)] != tag {
                    return Err(MeshError::NotHeld { job, sub, x, y });
                }
            }
        }
        for y in sub.y1..=sub.y2 {
            let row = self.idx(sub.x1, y);
            self.owner[row..row + sub.width() as usize].fill(0);
            self.set_bits(y, sub.x1, sub.x2, false);
        }
        self.free += sub.size();
        self.analysis.valid = false;
        self.analysis.upper = false;
        Ok(())
    }

    /// Frees every node.
    pub fn clear(&mut self) {
        self.owner.fill(0);
        self.bits.fill(0);
        self.free = self.size();
        self.analysis.valid = false;
        self.analysis.upper = false;
    }

    /// Sets (busy) or clears the bits of columns x1..=x2 in row y (1-based).
    fn set_bits(&mut self, y: u32, x1: u32, x2: u32, busy: bool) {
        let base = (y as usize - 1) * self.words;
        let (s, e) = (x1 as usize - 1, x2 as usize); // [s, e)
        let mut i = s;
        while i < e {
            let word = i / 64;
            let lo = i % 64;
            let hi = (e - word * 64).min(64);
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            if busy {
                self.bits[base + word] |= mask;
            } else {
                self.bits[base + word] &= !mask;
            }
            i = word * 64 + hi;
        }
    }

    /// `true` when columns s..e (0-based, half-open) of row `y` (0-based) are all free.
    #[inline]
    fn row_range_free(&self, y: usize, s: usize, e: usize) -> bool {
        let base = y * self.words;
        let mut i = s;
        while i < e {
            let word = i / 64;
            let lo = i % 64;
            let hi = (e - word * 64).min(64);
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            if self.bits[base + word] & mask != 0 {
                return false;
            }
            i = word * 64 + hi;
        }
        true
    }

    /// Makes this mesh's busy array a copy of `other`'s (same size required; otherwise the
    /// whole mesh is replaced).
    pub fn copy_from(&mut self, other: &Mesh) {
        if self.owner.len() == other.owner.len() && self.bits.len() == other.bits.len() {
            self.owner.copy_from_slice(&other.owner);
            self.bits.copy_from_slice(&other.bits);
        } else {
            self.owner = other.owner.clone();
            self.bits = other.bits.clone();
        }
        self.width = other.width;
        self.height = other.height;
        self.words = other.words;
        self.free = other.free;
        self.analysis.valid = false;
        self.analysis.upper = false;
    }

    /// Length of the submesh's boundary on the mesh periphery (Ababneh & Bani-Mohammad §3.2): h for touching
    /// column 1, h for column W, w for row 1, w for row H. Equivalently, the number of
    /// (node, mesh edge) incidences of its nodes. 0 for an internal submesh.
    pub fn peripheral_length(&self, sub: &Submesh) -> u32 {
        peripheral_length(sub, self.width, self.height)
    }

    fn refresh(&mut self) {
        if self.analysis.valid {
            return;
        }
        if self.words == 1 {
            self.compute_by_rows();
        } else {
            self.compute_by_histogram();
        }
    }

    /// Free list and profile for meshes up to 64 wide: for every bottom row, AND the free
    /// bits of the rows above it one by one; every run of free columns is a free submesh that
    /// cannot widen, and it is maximal when it can grow neither down nor up.
    fn compute_by_rows(&mut self) {
        let w = self.width as usize;
        let h = self.height as usize;
        let mut a = std::mem::take(&mut self.analysis);
        a.rects.clear();
        a.profile.clear();
        a.profile.resize(w + 2, 0);
        let full = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let free_row = |y: usize| !self.bits[y] & full;
        for y1 in 0..h {
            let below = if y1 > 0 { free_row(y1 - 1) } else { 0 };
            let mut cur = free_row(y1);
            let mut y2 = y1;
            while cur != 0 {
                let above = if y2 + 1 < h { free_row(y2 + 1) } else { 0 };
                let ht = (y2 - y1 + 1) as u32;
                let mut rest = cur;
                while rest != 0 {
                    let s = rest.trailing_zeros();
                    let len = (!(rest >> s)).trailing_zeros().min(64 - s);
                    let mask = if len == 64 {
                        u64::MAX
                    } else {
                        ((1u64 << len) - 1) << s
                    };
                    rest &= !mask;
                    let pw = &mut a.profile[len as usize];
                    if *pw < ht {
                        *pw = ht;
                    }
                    if below & mask != mask && above & mask != mask {
                        a.rects.push(Submesh {
                            x1: s + 1,
                            y1: y1 as u32 + 1,
                            x2: s + len,
                            y2: y2 as u32 + 1,
                        });
                    }
                }
                y2 += 1;
                if y2 >= h {
                    break;
                }
                cur &= free_row(y2);
            }
        }
        for i in (1..w).rev() {
            if a.profile[i] < a.profile[i + 1] {
                a.profile[i] = a.profile[i + 1];
            }
        }
        a.valid = true;
        a.upper = true;
        self.analysis = a;
    }

    /// Free list and profile for any width: row by row, the histogram of free run lengths
    /// downwards, with a stack of increasing heights (each popped entry is a free submesh
    /// that cannot widen or grow down; it is maximal when it cannot grow up either).
    fn compute_by_histogram(&mut self) {
        let w = self.width as usize;
        let h = self.height as usize;
        let mut a = std::mem::take(&mut self.analysis);
        a.rects.clear();
        a.profile.clear();
        a.profile.resize(w + 2, 0);
        a.heights.clear();
        a.heights.resize(w, 0);
        for y in 0..h {
            let row = &self.bits[y * self.words..(y + 1) * self.words];
            for (x, hx) in a.heights.iter_mut().enumerate() {
                let busy = (row[x / 64] >> (x % 64)) & 1;
                *hx = (*hx + 1) * (1 - busy as u32);
            }
            let has_above = y + 1 < h;
            a.stack.clear();
            for c in 0..=w {
                let hc = if c < w { a.heights[c] } else { 0 };
                let mut start = c as u32;
                while let Some(&(s, ht)) = a.stack.last() {
                    if ht <= hc {
                        break;
                    }
                    a.stack.pop();
                    // Columns s..c-1 (0-based), rows y-ht+1..=y: free, maximal left, right
                    // and downwards.
                    let width = c - s as usize;
                    if a.profile[width] < ht {
                        a.profile[width] = ht;
                    }
                    if !(has_above && self.row_range_free(y + 1, s as usize, c)) {
                        a.rects.push(Submesh {
                            x1: s + 1,
                            y1: y as u32 + 2 - ht,
                            x2: c as u32,
                            y2: y as u32 + 1,
                        });
                    }
                    start = s;
                }
                if hc > 0 && a.stack.last().is_none_or(|&(_, ht)| ht < hc) {
                    a.stack.push((start, hc));
                }
            }
        }
        for i in (1..w).rev() {
            if a.profile[i] < a.profile[i + 1] {
                a.profile[i] = a.profile[i + 1];
            }
        }
        a.valid = true;
        a.upper = true;
        self.analysis = a;
    }

    /// The free list computed by the general (histogram) method, for tests.
    #[cfg(test)]
    fn free_list_by_histogram(&mut self) -> Vec<Submesh> {
        self.compute_by_histogram();
        let mut v = self.analysis.rects.clone();
        v.sort_by_key(free_list_key);
        v
    }

    /// `true` when some free w × h submesh exists (O(1) once the free list is current).
    pub fn can_fit(&mut self, w: u32, h: u32) -> bool {
        if w == 0 || h == 0 || w > self.width || h > self.height || w * h > self.free {
            return false;
        }
        if self.analysis.upper && self.analysis.profile[w as usize] < h {
            // Only allocations since the profile was computed: still no room.
            return false;
        }
        self.refresh();
        self.analysis.profile[w as usize] >= h
    }

    /// The maximal free submeshes in the mesh's internal (discovery) order — by end row, then
    /// end column. Allocators use this; see [`Mesh::maximal_free_submeshes`] for the sorted list.
    pub fn free_list(&mut self) -> &[Submesh] {
        self.refresh();
        &self.analysis.rects
    }

    /// The maximal free submeshes (Definition 1), in free-list order: by base row, base
    /// column, end row, end column.
    pub fn maximal_free_submeshes(&mut self) -> Vec<Submesh> {
        let mut v = self.free_list().to_vec();
        v.sort_by_key(free_list_key);
        v
    }

    /// Free nodes, free nodes no request in `requests` (w, h) could use, and the largest free
    /// submesh. A free node is usable when it lies in some free w × h placement of some request.
    pub fn fragmentation(&mut self, requests: &[(u32, u32)]) -> Fragmentation {
        let largest = self
            .free_list()
            .iter()
            .map(Submesh::size)
            .max()
            .unwrap_or(0);
        let (w, h) = (self.width as usize, self.height as usize);
        // busy[(y)(w+1) + x]: 2D prefix sums of busy nodes, 0-based with a zero border.
        let mut pre = vec![0u32; (w + 1) * (h + 1)];
        for y in 0..h {
            for x in 0..w {
                let b = u32::from(self.owner[y * w + x] != 0);
                pre[(y + 1) * (w + 1) + x + 1] =
                    b + pre[y * (w + 1) + x + 1] + pre[(y + 1) * (w + 1) + x]
                        - pre[y * (w + 1) + x];
            }
        }
        let mut shapes: Vec<(u32, u32)> = requests
            .iter()
            .copied()
            .filter(|&(rw, rh)| rw >= 1 && rh >= 1 && rw <= self.width && rh <= self.height)
            .collect();
        shapes.sort_unstable();
        shapes.dedup();
        // covered: 2D difference array of the union of all free placements.
        let mut diff = vec![0i32; (w + 1) * (h + 1)];
        for (rw, rh) in shapes {
            let (rw, rh) = (rw as usize, rh as usize);
            for y in 0..=h - rh {
                for x in 0..=w - rw {
                    let busy = pre[(y + rh) * (w + 1) + x + rw] + pre[y * (w + 1) + x]
                        - pre[y * (w + 1) + x + rw]
                        - pre[(y + rh) * (w + 1) + x];
                    if busy == 0 {
                        diff[y * (w + 1) + x] += 1;
                        diff[y * (w + 1) + x + rw] -= 1;
                        diff[(y + rh) * (w + 1) + x] -= 1;
                        diff[(y + rh) * (w + 1) + x + rw] += 1;
                    }
                }
            }
        }
        // Prefix-sum the difference array in place; a node is covered when its sum is > 0.
        let mut unusable = 0;
        for y in 0..h {
            for x in 0..w {
                let mut v = diff[y * (w + 1) + x];
                if x > 0 {
                    v += diff[y * (w + 1) + x - 1];
                }
                if y > 0 {
                    v += diff[(y - 1) * (w + 1) + x];
                }
                if x > 0 && y > 0 {
                    v -= diff[(y - 1) * (w + 1) + x - 1];
                }
                diff[y * (w + 1) + x] = v;
                if v == 0 && self.owner[y * w + x] == 0 {
                    unusable += 1;
                }
            }
        }
        Fragmentation {
            free: self.free,
            unusable,
            largest_free_submesh: largest,
        }
    }

    /// The mesh as text, top row first: `.` free, `#` busy (for tests and messages).
    pub fn render(&self) -> String {
        let mut s = String::new();
        for y in (1..=self.height).rev() {
            for x in 1..=self.width {
                s.push(if self.owner[self.idx(x, y)] == 0 {
                    '.'
                } else {
                    '#'
                });
            }
            s.push('\n');
        }
        s
    }
}

/// Peripheral length of `sub` in an M(`width`, `height`) (see [`Mesh::peripheral_length`]).
pub fn peripheral_length(sub: &Submesh, width: u32, height: u32) -> u32 {
    let (w, h) = (sub.width(), sub.height());
    let mut pl = 0;
    if sub.x1 == 1 {
        pl += h;
    }
    if sub.x2 == width {
        pl += h;
    }
    if sub.y1 == 1 {
        pl += w;
    }
    if sub.y2 == height {
        pl += w;
    }
    pl
}

/// Free-list order: base row, base column, end row, end column.
pub fn free_list_key(s: &Submesh) -> (u32, u32, u32, u32) {
    (s.y1, s.x1, s.y2, s.x2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 1 of Ababneh & Bani-Mohammad: M(5, 4) with row 4 and nodes (1..3, 3) allocated.
    fn fig1() -> Mesh {
        let mut m = Mesh::new(5, 4).unwrap();
        m.allocate(0, Submesh::new(1, 4, 5, 4)).unwrap();
        m.allocate(1, Submesh::new(1, 3, 3, 3)).unwrap();
        m
    }

    #[test]
    fn example_1_maximal_free_submeshes() {
        let mut m = fig1();
        assert_eq!(
            m.maximal_free_submeshes(),
            vec![Submesh::new(1, 1, 5, 2), Submesh::new(4, 1, 5, 3)]
        );
        // (4, 1, 5, 3) is the free 2 × 3 submesh S1 of §3.1.
        let s1 = Submesh::new(4, 1, 5, 3);
        assert_eq!((s1.width(), s1.height()), (2, 3));
        assert!(m.is_submesh_free(&s1));
        // (1, 1, 3, 2) is free but not maximal.
        assert!(m.is_submesh_free(&Submesh::new(1, 1, 3, 2)));
        assert_eq!(m.free_count(), 12);
        assert!(m.can_fit(2, 3));
        assert!(m.can_fit(5, 2));
        assert!(!m.can_fit(3, 3));
        assert!(!m.can_fit(5, 3));
    }

    #[test]
    fn allocate_and_release_check_ownership() {
        let mut m = Mesh::new(4, 4).unwrap();
        let a = Submesh::at(1, 1, 2, 2);
        m.allocate(7, a).unwrap();
        assert_eq!(m.owner_at(2, 2), Some(7));
        assert_eq!(m.free_count(), 12);
        assert!(matches!(
            m.allocate(8, Submesh::at(2, 2, 2, 2)),
            Err(MeshError::Busy { x: 2, y: 2, .. })
        ));
        assert!(matches!(
            m.allocate(8, Submesh::at(4, 4, 2, 1)),
            Err(MeshError::OutOfBounds { .. })
        ));
        assert!(matches!(
            m.release(8, a),
            Err(MeshError::NotHeld { job: 8, .. })
        ));
        m.release(7, a).unwrap();
        assert_eq!(m.free_count(), 16);
        assert_eq!(m.maximal_free_submeshes(), vec![Submesh::new(1, 1, 4, 4)]);
        assert!(Mesh::new(0, 3).is_err());
        assert!(Mesh::new(70_000, 1).is_err());
    }

    #[test]
    fn peripheral_length_of_fig_1_candidates() {
        let m = fig1();
        assert_eq!(m.peripheral_length(&Submesh::new(4, 1, 5, 1)), 3);
        assert_eq!(m.peripheral_length(&Submesh::new(1, 1, 2, 1)), 3);
        assert_eq!(m.peripheral_length(&Submesh::new(2, 2, 3, 2)), 0);
        assert_eq!(m.peripheral_length(&Submesh::new(1, 1, 5, 4)), 18);
    }

    #[test]
    fn fragmentation_counts_unusable_free_nodes() {
        let mut m = fig1();
        // A 2 × 3 request can only use (4..5, 1..3): the other 6 free nodes are unusable.
        let f = m.fragmentation(&[(2, 3)]);
        assert_eq!(f.free, 12);
        assert_eq!(f.unusable, 6);
        assert_eq!(f.largest_free_submesh, 10);
        // A 1 × 1 request can use every free node; a 6 × 1 request none.
        assert_eq!(m.fragmentation(&[(1, 1)]).unusable, 0);
        assert_eq!(m.fragmentation(&[(6, 1)]).unusable, 12);
        assert_eq!(m.fragmentation(&[]).unusable, 12);
    }

    /// Every free submesh, by brute force.
    fn brute_maximal(m: &Mesh) -> Vec<Submesh> {
        let mut free = Vec::new();
        for y1 in 1..=m.height() {
            for x1 in 1..=m.width() {
                for y2 in y1..=m.height() {
                    for x2 in x1..=m.width() {
                        let s = Submesh::new(x1, y1, x2, y2);
                        if m.is_submesh_free(&s) {
                            free.push(s);
                        }
                    }
                }
            }
        }
        let mut max: Vec<Submesh> = free
            .iter()
            .copied()
            .filter(|s| !free.iter().any(|t| t != s && t.contains(s)))
            .collect();
        max.sort_by_key(free_list_key);
        max
    }

    fn mesh_from_bits(w: u32, h: u32, bits: u32) -> Mesh {
        let mut m = Mesh::new(w, h).unwrap();
        for i in 0..w * h {
            if bits >> i & 1 == 1 {
                m.allocate(i as usize, Submesh::at(i % w + 1, i / w + 1, 1, 1))
                    .unwrap();
            }
        }
        m
    }

    #[test]
    fn wide_meshes_use_the_histogram_method_and_agree() {
        // 70 wide needs two words per row; 64 wide is the widest one-word mesh.
        let mut rng = crate::base::SimRng::new(3);
        for &(w, h) in &[(70, 6), (64, 5), (33, 7)] {
            for _ in 0..60 {
                let mut m = Mesh::new(w, h).unwrap();
                for job in 0..12 {
                    let rw = rng.uniform_int(1, u64::from(w) / 3) as u32;
                    let rh = rng.uniform_int(1, u64::from(h)) as u32;
                    let x = rng.uniform_int(1, u64::from(w - rw + 1)) as u32;
                    let y = rng.uniform_int(1, u64::from(h - rh + 1)) as u32;
                    let _ = m.allocate(job, Submesh::at(x, y, rw, rh));
                }
                let fast = m.maximal_free_submeshes();
                assert_eq!(fast, brute_maximal(&m), "{w}×{h}\n{}", m.render());
                assert_eq!(m.free_list_by_histogram(), fast);
                for rw in [1, 2, 5, 20, 33, 64, 70] {
                    for rh in 1..=h {
                        let any = fast.iter().any(|s| s.width() >= rw && s.height() >= rh);
                        m.analysis.valid = false;
                        assert_eq!(m.can_fit(rw, rh), any);
                    }
                }
            }
        }
    }

    #[test]
    fn free_list_matches_brute_force_on_every_small_state() {
        for &(w, h) in &[
            (1, 1),
            (3, 1),
            (1, 4),
            (2, 3),
            (3, 3),
            (4, 3),
            (3, 4),
            (5, 2),
        ] {
            for bits in 0..(1u32 << (w * h)) {
                let mut m = mesh_from_bits(w, h, bits);
                let fast = m.maximal_free_submeshes();
                assert_eq!(fast, brute_maximal(&m), "state\n{}", m.render());
                assert_eq!(m.free_list_by_histogram(), fast);
                for rw in 1..=w {
                    for rh in 1..=h {
                        let any = fast.iter().any(|s| s.width() >= rw && s.height() >= rh);
                        assert_eq!(m.can_fit(rw, rh), any, "{rw}×{rh} in\n{}", m.render());
                    }
                }
            }
        }
    }
}
