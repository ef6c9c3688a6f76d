//! The long form of the free-processor [`Profile`](super::profile::Profile) of conservative
//! backfilling (Mu'alem & Feitelson; Srinivasan et al. §1, Ernemann et al. §III-C): the same step function —
//! free processors from each breakpoint until the next — kept in chunks of at most [`CAP`]
//! steps under a segment tree over the chunks.
//!
//! * Each chunk holds its steps' start times and *local* free counts; a step's free count is
//!   its local count plus the pending additions (`lazy`) of its chunk's leaf and every
//!   ancestor in the segment tree. A node's `min` and `max` cover its subtree including its own
//!   `lazy` but not its ancestors'.
//! * Taking or giving back processors over an interval changes the local counts of the (at
//!   most two) chunks cut by its ends and adds to the segment tree over the chunks in between:
//!   O(CAP + log chunks). Splitting a full chunk, dropping an empty one or merging two small
//!   ones rebuilds the segment tree (O(chunks)), at most once per CAP / 4 changed steps.
//! * The earliest fit ([`StepTree::search`]) walks to the right from the step containing its
//!   start and skips, in one step each, every subtree with no step free enough (`max < need`),
//!   every subtree all free enough (`min ≥ need`), and every subtree shorter in time than the
//!   job (which cannot hold a whole fit: only its last free-enough steps matter, found by one
//!   descent) — so a run of too-short free stretches costs one step per such subtree, not one
//!   per stretch.
//! * Each segment-tree node also keeps, lazily rebuilt after a change below it, its
//!   *staircase* ([`Stair`]): for every level of free processors, the longest stretch of steps
//!   free enough that lies inside the node. A node whose longest stretch at the job's size is
//!   shorter than the job's estimate is passed over in one step even when its own stretches
//!   alternate with short busy ones (a 300,000-job burst: 53 s → 4.5 s).
//!
//! The steps are always coalesced (no two neighbours with the same free count), exactly as in
//! the vector form, so both forms list the very same steps.

use std::cell::{Cell, RefCell};

use crate::base::Time;

/// Most steps of a chunk; a fuller one is split in two.
pub(super) const CAP: usize = if cfg!(test) { 8 } else { 128 };
/// A chunk with fewer steps is merged into a neighbour when both fit in half a chunk.
const SMALL: usize = CAP / 8;

/// "No step": larger than any free count a node can reach.
const NONE_MIN: i64 = i64::MAX / 4;
const NONE_MAX: i64 = i64::MIN / 4;

#[derive(Clone, Debug, Default)]
struct Chunk {
    start: Vec<Time>,
    /// Local free counts (see the module docs).
    free: Vec<i64>,
    min: i64,
    max: i64,
    /// The chunk's staircase ([`Stair`], local counts), valid while `fresh`: kept when the
    /// segment tree is rebuilt.
    stair: RefCell<Stair>,
    fresh: Cell<bool>,
}

impl Chunk {
    fn refresh(&mut self) {
        self.min = self.free.iter().copied().min().unwrap_or(NONE_MIN);
        self.max = self.free.iter().copied().max().unwrap_or(NONE_MAX);
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    lazy: i64,
    min: i64,
    max: i64,
}

const PAD: Node = Node {
    lazy: 0,
    min: NONE_MIN,
    max: NONE_MAX,
};

/// A step's place: chunk and index in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    c: usize,
    i: usize,
}

/// What a step of a search decided.
enum Walk {
    /// The answer (a fit at this time, or none).
    Done(Option<Time>),
    Continue,
}

/// One earliest-fit search: `need` processors for `duration` from `from` on; steps from
/// `limit` on count as free enough (module docs of the conservative policy: a job's own slot).
struct Query {
    from: Time,
    need: i64,
    duration: Time,
    limit: Time,
    /// Start of the current stretch of free-enough steps.
    run: Option<Time>,
}

impl Query {
    /// One step starting at `t` with `free` processors.
    #[inline]
    fn step(&mut self, t: Time, free: i64) -> Walk {
        if t >= self.limit {
            return Walk::Done(self.run);
        }
        if let Some(s) = self.run {
            if t >= s + self.duration {
                return Walk::Done(Some(s));
            }
        }
        if free >= self.need {
            if self.run.is_none() {
                self.run = Some(if t < self.from { self.from } else { t });
            }
        } else {
            self.run = None;
        }
        Walk::Continue
    }
}

/// The step function in chunks under a segment tree (module docs).
#[derive(Clone, Debug)]
pub(super) struct StepTree {
    total: i64,
    chunks: Vec<Chunk>,
    /// First start of each chunk.
    first: Vec<Time>,
    /// Segment tree over the chunks: leaves from `mcap` on.
    seg: Vec<Node>,
    /// Each segment-tree node's run staircase ([`Stair`]), recomputed when a search needs it
    /// after a change below the node (`dirty`; every change marks all the ancestors).
    stairs: RefCell<Vec<Stair>>,
    dirty: Vec<Cell<bool>>,
    mcap: usize,
    len: usize,
    /// Chunks before this one only hold steps that ended before the last prune (dropped at
    /// the next rebuild).
    head: usize,
}

/// The free stretches below a segment-tree node, for every level of free processors: for each
/// distinct free count `lv[k]` of the node's steps (ascending, in the node's coordinates: its
/// own and its ancestors' additions left out), the stretches of steps with at least `lv[k]`
/// free — the start of the first step with fewer (`fb`, +∞ if none), the start of the
/// stretch that ends the node (`suf`, NaN if the last step has fewer) and the longest stretch
/// (`best`): from its first step's start to the start of the step with fewer that ends it, or
/// to the node's last step's start. No fit of a job of that many processors can both start and
/// be found complete inside the node if `best` is shorter than its estimate.
#[derive(Clone, Debug, Default)]
struct Stair {
    lv: Vec<i64>,
    fb: Vec<Time>,
    suf: Vec<Time>,
    best: Vec<Time>,
}

impl StepTree {
    /// The steps `(start, free)` (coalesced, by increasing start) of a machine of `total`.
    pub(super) fn from_steps(
        total: u32,
        steps: impl ExactSizeIterator<Item = (Time, u32)>,
    ) -> Self {
        let n = steps.len();
        let per = CAP / 2;
        let mut chunks: Vec<Chunk> = Vec::with_capacity(n / per + 1);
        for (t, f) in steps {
            if chunks.last().is_none_or(|c| c.start.len() >= per) {
                chunks.push(Chunk {
                    start: Vec::with_capacity(CAP + 1),
                    free: Vec::with_capacity(CAP + 1),
                    ..Chunk::default()
                });
            }
            if let Some(c) = chunks.last_mut() {
                c.start.push(t);
                c.free.push(i64::from(f));
            }
        }
        let adds = vec![0; chunks.len()];
        let mut tree = StepTree {
            total: i64::from(total),
            chunks,
            first: Vec::new(),
            seg: Vec::new(),
            stairs: RefCell::new(Vec::new()),
            dirty: Vec::new(),
            mcap: 1,
            len: n,
            head: 0,
        };
        tree.build(adds);
        tree
    }

    /// Number of steps.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Rebuilds `first` and the segment tree from the chunks and each chunk's addition.
    fn build(&mut self, adds: Vec<i64>) {
        let m = self.chunks.len();
        self.mcap = m.max(1).next_power_of_two();
        self.seg.clear();
        self.seg.resize(2 * self.mcap, PAD);
        {
            let st = self.stairs.get_mut();
            st.resize_with(2 * self.mcap, Stair::default);
            st.truncate(2 * self.mcap);
        }
        self.dirty.clear();
        self.dirty.resize_with(2 * self.mcap, || Cell::new(true));
        self.first.clear();
        for (c, ch) in self.chunks.iter_mut().enumerate() {
            ch.refresh();
            self.first.push(ch.start[0]);
            self.seg[self.mcap + c] = Node {
                lazy: adds[c],
                min: ch.min + adds[c],
                max: ch.max + adds[c],
            };
        }
        for i in (1..self.mcap).rev() {
            self.seg[i] = Node {
                lazy: 0,
                min: self.seg[2 * i].min.min(self.seg[2 * i + 1].min),
                max: self.seg[2 * i].max.max(self.seg[2 * i + 1].max),
            };
        }
    }

    /// Each chunk's total addition (its leaf's and all its ancestors' `lazy`).
    fn adds(&self) -> Vec<i64> {
        let mut acc = vec![0i64; 2 * self.mcap];
        for i in 1..2 * self.mcap {
            acc[i] = self.seg[i].lazy + if i > 1 { acc[i / 2] } else { 0 };
        }
        acc[self.mcap..self.mcap + self.chunks.len()].to_vec()
    }

    /// The addition applying to chunk `c`.
    #[inline]
    fn offset(&self, c: usize) -> i64 {
        let mut i = self.mcap + c;
        let mut s = 0;
        while i >= 1 {
            s += self.seg[i].lazy;
            i >>= 1;
        }
        s
    }

    /// Recomputes the leaf of chunk `c` and its ancestors after its local counts changed.
    fn pull_chunk(&mut self, c: usize) {
        self.chunks[c].refresh();
        let i = self.mcap + c;
        self.dirty[i].set(true);
        self.chunks[c].fresh.set(false);
        let lazy = self.seg[i].lazy;
        self.seg[i].min = self.chunks[c].min + lazy;
        self.seg[i].max = self.chunks[c].max + lazy;
        self.pull(i);
    }

    fn pull(&mut self, mut i: usize) {
        while i > 1 {
            i >>= 1;
            self.dirty[i].set(true);
            let (l, r) = (self.seg[2 * i], self.seg[2 * i + 1]);
            self.seg[i].min = l.min.min(r.min) + self.seg[i].lazy;
            self.seg[i].max = l.max.max(r.max) + self.seg[i].lazy;
        }
    }

    /// Marks chunk `c`'s leaf and its ancestors dirty (their staircases are recomputed when a
    /// search next needs them).
    fn mark(&self, c: usize) {
        self.chunks[c].fresh.set(false);
        let mut i = self.mcap + c;
        while i >= 1 {
            self.dirty[i].set(true);
            i >>= 1;
        }
    }

    /// First and last step start below node `i` (chunks `l..r`, `l` existing).
    fn node_times(&self, l: usize, r: usize) -> (Time, Time) {
        let last = &self.chunks[r.min(self.chunks.len()) - 1].start;
        (self.first[l], last[last.len() - 1])
    }

    /// Recomputes the staircase of node `i` (and of its dirty descendants).
    fn clean(&self, i: usize) {
        if !self.dirty[i].get() {
            return;
        }
        let (l, r) = self.span_of(i);
        let m = self.chunks.len();
        let mut st = self.stairs.borrow_mut();
        let mut out = std::mem::take(&mut st[i]);
        if l >= m {
            out.lv.clear();
            out.fb.clear();
            out.suf.clear();
            out.best.clear();
        } else if i >= self.mcap {
            let ch = &self.chunks[l];
            if !ch.fresh.get() {
                leaf_stair(ch, &mut ch.stair.borrow_mut());
                ch.fresh.set(true);
            }
            let cs = ch.stair.borrow();
            out.lv.clone_from(&cs.lv);
            out.fb.clone_from(&cs.fb);
            out.suf.clone_from(&cs.suf);
            out.best.clone_from(&cs.best);
        } else {
            drop(st);
            self.clean(2 * i);
            self.clean(2 * i + 1);
            st = self.stairs.borrow_mut();
            let mid = (l + r) / 2;
            let (a, b) = (&st[2 * i], &st[2 * i + 1]);
            if mid >= m {
                shift_stair(a, self.seg[2 * i].lazy, &mut out);
            } else {
                let (lf, ll) = self.node_times(l, mid);
                let (rf, rl) = self.node_times(mid, r);
                merge_stairs(
                    (a, self.seg[2 * i].lazy, lf, ll),
                    (b, self.seg[2 * i + 1].lazy, rf, rl),
                    &mut out,
                );
            }
        }
        st[i] = out;
        self.dirty[i].set(false);
    }

    /// The longest stretch below node `i` of steps with at least `need` free processors
    /// (ancestors adding `anc`), in the sense of [`Stair`]; −∞ if no step has that many.
    fn best_at(&self, i: usize, anc: i64, need: i64) -> Time {
        self.clean(i);
        let st = self.stairs.borrow();
        let s = &st[i];
        let v = need - anc - self.seg[i].lazy;
        let k = s.lv.partition_point(|&x| x < v);
        s.best.get(k).copied().unwrap_or(f64::NEG_INFINITY)
    }

    /// Adds `v` to every step of the chunks `l..r`.
    fn add_chunks(&mut self, l: usize, r: usize, v: i64) {
        if l >= r {
            return;
        }
        let (mut a, mut b) = (l + self.mcap, r + self.mcap);
        let (a0, b0) = (a, b - 1);
        while a < b {
            if a & 1 == 1 {
                self.apply(a, v);
                a += 1;
            }
            if b & 1 == 1 {
                b -= 1;
                self.apply(b, v);
            }
            a >>= 1;
            b >>= 1;
        }
        self.pull(a0);
        self.pull(b0);
    }

    #[inline]
    fn apply(&mut self, i: usize, v: i64) {
        let n = &mut self.seg[i];
        n.lazy += v;
        n.min += v;
        n.max += v;
    }

    /// Position of the step containing `t` (the first step if `t` precedes it).
    fn locate(&self, t: Time) -> Pos {
        let h = self.head;
        let c = h + self.first[h..]
            .partition_point(|&f| f <= t)
            .saturating_sub(1);
        let i = self.chunks[c]
            .start
            .partition_point(|&s| s <= t)
            .saturating_sub(1);
        Pos { c, i }
    }

    #[inline]
    fn start(&self, p: Pos) -> Time {
        self.chunks[p.c].start[p.i]
    }

    fn value(&self, p: Pos) -> i64 {
        self.chunks[p.c].free[p.i] + self.offset(p.c)
    }

    fn next(&self, p: Pos) -> Option<Pos> {
        if p.i + 1 < self.chunks[p.c].start.len() {
            Some(Pos { c: p.c, i: p.i + 1 })
        } else if p.c + 1 < self.chunks.len() {
            Some(Pos { c: p.c + 1, i: 0 })
        } else {
            None
        }
    }

    fn prev(&self, p: Pos) -> Option<Pos> {
        if p.i > 0 {
            Some(Pos { c: p.c, i: p.i - 1 })
        } else if p.c > self.head {
            Some(Pos {
                c: p.c - 1,
                i: self.chunks[p.c - 1].start.len() - 1,
            })
        } else {
            None
        }
    }

    /// Free processors at `t`.
    pub(super) fn free_at(&self, t: Time) -> u32 {
        self.value(self.locate(t)) as u32
    }

    /// Makes sure a step starts exactly at `t`.
    fn split_at(&mut self, t: Time) {
        let p = self.locate(t);
        let s = self.start(p);
        if s == t {
            return;
        }
        if t < s {
            // Before the origin: extend the first step backwards.
            self.chunks[p.c].start[p.i] = t;
            self.first[p.c] = t;
            self.mark(p.c);
            return;
        }
        let ch = &mut self.chunks[p.c];
        let f = ch.free[p.i];
        ch.start.insert(p.i + 1, t);
        ch.free.insert(p.i + 1, f);
        self.len += 1;
        if ch.start.len() <= CAP {
            self.mark(p.c);
        } else if p.c + 1 == self.chunks.len() && self.chunks.len() < self.mcap {
            // The last chunk splits into a free leaf: no rebuild.
            self.push_tail(p.c);
        } else {
            self.restructure();
        }
    }

    /// Removes the step at `p` (its predecessor now lasts until the next step).
    fn remove(&mut self, p: Pos) {
        let ch = &mut self.chunks[p.c];
        ch.start.remove(p.i);
        ch.free.remove(p.i);
        self.len -= 1;
        let n = ch.start.len();
        if n == 0 {
            self.restructure();
            return;
        }
        if p.i == 0 {
            self.first[p.c] = ch.start[0];
        }
        // Small chunks are merged at the next rebuild.
        self.pull_chunk(p.c);
    }

    /// Splits the last chunk `c` (over full) into the free leaf after it.
    fn push_tail(&mut self, c: usize) {
        let m = c + 1;
        let off_old = self.offset(c);
        let off_new = self.offset(m);
        let ch = &mut self.chunks[c];
        let half = ch.start.len() / 2;
        let mut tail = Chunk {
            start: Vec::with_capacity(CAP + 1),
            free: Vec::with_capacity(CAP + 1),
            ..Chunk::default()
        };
        tail.start.extend_from_slice(&ch.start[half..]);
        tail.free
            .extend(ch.free[half..].iter().map(|&f| f + off_old - off_new));
        ch.start.truncate(half);
        ch.free.truncate(half);
        self.first.push(tail.start[0]);
        self.chunks.push(tail);
        self.pull_chunk(c);
        self.pull_chunk(m);
    }

    /// Splits full chunks, drops empty ones, merges small neighbours; rebuilds the segment
    /// tree.
    fn restructure(&mut self) {
        let adds = self.adds();
        let mut old = std::mem::take(&mut self.chunks);
        old.drain(..self.head);
        let adds = adds[self.head..].to_vec();
        self.head = 0;
        let mut chunks: Vec<Chunk> = Vec::with_capacity(old.len() + 1);
        let mut new_adds: Vec<i64> = Vec::with_capacity(old.len() + 1);
        for (mut ch, add) in old.into_iter().zip(adds) {
            let n = ch.start.len();
            if n == 0 {
                continue;
            }
            if let (Some(prev), Some(&padd)) = (chunks.last_mut(), new_adds.last()) {
                if (n < SMALL || prev.start.len() < SMALL) && prev.start.len() + n <= CAP / 2 {
                    // Merge into the previous chunk, in its terms.
                    prev.start.extend_from_slice(&ch.start);
                    prev.free.extend(ch.free.iter().map(|&f| f + add - padd));
                    prev.fresh.set(false);
                    continue;
                }
            }
            if n > CAP {
                let half = n / 2;
                let start = ch.start.split_off(half);
                let free = ch.free.split_off(half);
                ch.fresh.set(false);
                chunks.push(ch);
                new_adds.push(add);
                let mut tail = Chunk {
                    start: Vec::with_capacity(CAP + 1),
                    free: Vec::with_capacity(CAP + 1),
                    ..Chunk::default()
                };
                tail.start.extend_from_slice(&start);
                tail.free.extend_from_slice(&free);
                chunks.push(tail);
                new_adds.push(add);
            } else {
                chunks.push(ch);
                new_adds.push(add);
            }
        }
        self.chunks = chunks;
        self.build(new_adds);
    }

    /// Adds `v` to the steps from the one starting at `a` to the one before the step
    /// starting at `b` (both exist).
    fn add_between(&mut self, a: Time, b: Time, v: i64) {
        let pa = self.locate(a);
        let pb = self.locate(b);
        if pa.c == pb.c {
            for f in &mut self.chunks[pa.c].free[pa.i..pb.i] {
                *f += v;
            }
            self.pull_chunk(pa.c);
            return;
        }
        for f in &mut self.chunks[pa.c].free[pa.i..] {
            *f += v;
        }
        self.pull_chunk(pa.c);
        for f in &mut self.chunks[pb.c].free[..pb.i] {
            *f += v;
        }
        self.pull_chunk(pb.c);
        self.add_chunks(pa.c + 1, pb.c, v);
    }

    /// Minimum and maximum free count of the steps from the one starting at `a` to the one
    /// before the step starting at `b` (both exist, `a < b`).
    fn min_max_between(&self, a: Time, b: Time) -> (i64, i64) {
        let pa = self.locate(a);
        let pb = self.locate(b);
        let part = |c: usize, r: std::ops::Range<usize>| {
            let off = self.offset(c);
            self.chunks[c].free[r]
                .iter()
                .fold((NONE_MIN, NONE_MAX), |(lo, hi), &f| {
                    (lo.min(f + off), hi.max(f + off))
                })
        };
        if pa.c == pb.c {
            return part(pa.c, pa.i..pb.i);
        }
        let (l1, h1) = part(pa.c, pa.i..self.chunks[pa.c].free.len());
        let (l2, h2) = part(pb.c, 0..pb.i);
        let (l3, h3) = self.query_chunks(1, 0, self.mcap, pa.c + 1, pb.c, 0);
        (l1.min(l2).min(l3), h1.max(h2).max(h3))
    }

    /// Minimum and maximum over chunks `l..r` below node `i` (covering `lo..hi`), whose
    /// ancestors add `anc`.
    fn query_chunks(
        &self,
        i: usize,
        lo: usize,
        hi: usize,
        l: usize,
        r: usize,
        anc: i64,
    ) -> (i64, i64) {
        if r <= lo || hi <= l || l >= r {
            return (NONE_MIN, NONE_MAX);
        }
        if l <= lo && hi <= r {
            return (self.seg[i].min + anc, self.seg[i].max + anc);
        }
        let mid = (lo + hi) / 2;
        let a = anc + self.seg[i].lazy;
        let (l1, h1) = self.query_chunks(2 * i, lo, mid, l, r, a);
        let (l2, h2) = self.query_chunks(2 * i + 1, mid, hi, l, r, a);
        (l1.min(l2), h1.max(h2))
    }

    /// Merges equal neighbours around the step starting at `t`, if there is one.
    fn coalesce_at(&mut self, t: Time) {
        let p = self.locate(t);
        if self.start(p) != t {
            return;
        }
        if let Some(q) = self.prev(p) {
            if self.value(q) == self.value(p) {
                self.remove(p);
            }
        }
    }

    /// Merges equal neighbours at both ends of [a, b) after a change of the steps between.
    fn coalesce(&mut self, a: Time, b: Time) {
        // The step at b first: removing it never moves the one at a.
        self.coalesce_at(b);
        self.coalesce_at(a);
    }

    /// Takes `procs` over [start, end) if that keeps every count ≥ 0 (`Profile::reserve`).
    pub(super) fn reserve(&mut self, start: Time, end: Time, procs: u32) -> bool {
        self.split_at(start);
        self.split_at(end);
        let (lo, _) = self.min_max_between(start, end);
        if lo < i64::from(procs) {
            self.coalesce(start, end);
            return false;
        }
        self.add_between(start, end, -i64::from(procs));
        self.coalesce(start, end);
        true
    }

    /// Gives back `procs` over [start, end), capped at the machine size (`Profile::release`).
    pub(super) fn release(&mut self, start: Time, end: Time, procs: u32) {
        self.split_at(start);
        self.split_at(end);
        let v = i64::from(procs);
        let (_, hi) = self.min_max_between(start, end);
        if hi + v <= self.total {
            self.add_between(start, end, v);
            self.coalesce(start, end);
            return;
        }
        // The cap bites somewhere (never in conservative backfilling, whose releases give
        // back what was taken): step by step, then coalesce every step of the interval.
        let mut p = self.locate(start);
        loop {
            if self.start(p) >= end {
                break;
            }
            let off = self.offset(p.c);
            let f = &mut self.chunks[p.c].free[p.i];
            *f = (*f + off + v).min(self.total) - off;
            self.pull_chunk(p.c);
            match self.next(p) {
                Some(q) => p = q,
                None => break,
            }
        }
        let mut times = Vec::new();
        let mut p = self.locate(start);
        while self.start(p) <= end {
            times.push(self.start(p));
            match self.next(p) {
                Some(q) => p = q,
                None => break,
            }
        }
        for &t in times.iter().rev() {
            self.coalesce_at(t);
        }
    }

    /// Drops the steps that ended before `now` (`Profile::prune`): whole chunks are left
    /// behind `head` until they are half of all, then dropped by a rebuild.
    pub(super) fn prune(&mut self, now: Time) {
        let p = self.locate(now);
        if p.c == self.head && p.i == 0 {
            return;
        }
        let dropped: usize = self.chunks[self.head..p.c]
            .iter()
            .map(|c| c.start.len())
            .sum::<usize>()
            + p.i;
        self.len -= dropped;
        self.head = p.c;
        let ch = &mut self.chunks[p.c];
        ch.start.drain(..p.i);
        ch.free.drain(..p.i);
        self.first[p.c] = ch.start[0];
        ch.fresh.set(false);
        if self.head >= 8 && 2 * self.head >= self.chunks.len() {
            self.restructure();
        } else {
            self.pull_chunk(p.c);
        }
    }

    /// The most processors free at an instant of [start, end) (`Profile::max_free`).
    pub(super) fn max_free(&self, start: Time, end: Time) -> u32 {
        if end <= start {
            return 0;
        }
        let p = self.locate(start);
        // The last step starting before `end` (not before `p`: p starts at or before start).
        let mut last = self.locate(end);
        if self.start(last) >= end && last != p {
            last = self.prev(last).unwrap_or(p);
        }
        let hi = if p.c == last.c {
            let off = self.offset(p.c);
            self.chunks[p.c].free[p.i..=last.i]
                .iter()
                .map(|&f| f + off)
                .max()
                .unwrap_or(0)
        } else {
            let o1 = self.offset(p.c);
            let o2 = self.offset(last.c);
            let h1 = self.chunks[p.c].free[p.i..].iter().map(|&f| f + o1).max();
            let h2 = self.chunks[last.c].free[..=last.i]
                .iter()
                .map(|&f| f + o2)
                .max();
            let (_, h3) = self.query_chunks(1, 0, self.mcap, p.c + 1, last.c, 0);
            h1.unwrap_or(0).max(h2.unwrap_or(0)).max(h3)
        };
        hi.max(0) as u32
    }

    /// Free processors in the last step starting before `t` (the first step if none).
    pub(super) fn free_before(&self, t: Time) -> u32 {
        let p = self.locate(t);
        let q = if self.start(p) < t {
            p
        } else {
            self.prev(p).unwrap_or(p)
        };
        self.value(q) as u32
    }

    /// `Profile::walk_on`.
    pub(super) fn walk_on(&self, from: Time, f: impl FnMut(Time, u32) -> bool) {
        let mut p = self.locate(from);
        if self.start(p) < from {
            match self.next(p) {
                Some(q) => p = q,
                None => return,
            }
        }
        self.walk_from(p, Self::next, f);
    }

    /// `Profile::walk_back`.
    pub(super) fn walk_back(&self, to: Time, f: impl FnMut(Time, u32) -> bool) {
        let mut p = self.locate(to);
        if self.start(p) >= to {
            match self.prev(p) {
                Some(q) => p = q,
                None => return,
            }
        }
        self.walk_from(p, Self::prev, f);
    }

    /// Calls `f(start, free)` for the step at `p` and the steps `step` leads to, until `f`
    /// returns false or the steps end.
    fn walk_from(
        &self,
        mut p: Pos,
        step: impl Fn(&Self, Pos) -> Option<Pos>,
        mut f: impl FnMut(Time, u32) -> bool,
    ) {
        let mut off = self.offset(p.c);
        loop {
            if !f(self.start(p), (self.chunks[p.c].free[p.i] + off) as u32) {
                return;
            }
            match step(self, p) {
                Some(q) => {
                    if q.c != p.c {
                        off = self.offset(q.c);
                    }
                    p = q;
                }
                None => return,
            }
        }
    }

    /// Every step as (start, free), by increasing start.
    pub(super) fn for_each(&self, mut f: impl FnMut(Time, u32)) {
        let first = self.locate(f64::NEG_INFINITY);
        self.walk_from(first, Self::next, |t, v| {
            f(t, v);
            true
        });
    }

    /// The steps from the one containing `t` on, as (start, free).
    pub(super) fn steps_from(&self, t: Time) -> Vec<(Time, u32)> {
        let mut out = Vec::with_capacity(self.len);
        self.walk_from(self.locate(t), Self::next, |s, v| {
            out.push((s, v));
            true
        });
        out
    }

    /// Earliest time ≥ `from`, before `limit`, from which `procs` processors are free for
    /// `duration` — steps from `limit` on counting as free enough — or `None` if there is none
    /// before `limit` (module docs). With `limit` = +∞ this is `Profile::earliest_fit`.
    pub(super) fn search(
        &self,
        from: Time,
        procs: u32,
        duration: Time,
        limit: Time,
    ) -> Option<Time> {
        let mut q = Query {
            from,
            need: i64::from(procs),
            duration,
            limit,
            run: None,
        };
        let p = self.locate(from);
        let off = self.offset(p.c);
        if let Walk::Done(x) = self.scan_chunk(p.c, p.i, off, &mut q) {
            return x;
        }
        // Every subtree to the right of chunk p.c, left to right; `anc` is the sum of the
        // strict ancestors' additions of node `i`.
        let mut i = self.mcap + p.c;
        let mut anc = off - self.seg[i].lazy;
        loop {
            while i & 1 == 1 {
                i >>= 1;
                anc -= self.seg[i].lazy;
            }
            if i <= 1 {
                return q.run;
            }
            i += 1;
            if let Walk::Done(x) = self.visit(i, anc, &mut q) {
                return x;
            }
        }
    }

    /// The chunks `l..r` below node `i`.
    #[inline]
    fn span_of(&self, i: usize) -> (usize, usize) {
        let level = self.mcap.trailing_zeros() - (usize::BITS - 1 - i.leading_zeros());
        let l = (i << level) - self.mcap;
        (l, l + (1 << level))
    }

    fn visit(&self, i: usize, anc: i64, q: &mut Query) -> Walk {
        let m = self.chunks.len();
        let (l, r) = self.span_of(i);
        if l >= m {
            return Walk::Continue;
        }
        let lo_t = self.first[l];
        if lo_t >= q.limit {
            return Walk::Done(q.run);
        }
        if let Some(s) = q.run {
            if lo_t >= s + q.duration {
                return Walk::Done(Some(s));
            }
        }
        let n = self.seg[i];
        if n.max + anc < q.need {
            q.run = None;
            return Walk::Continue;
        }
        if n.min + anc >= q.need {
            if q.run.is_none() {
                q.run = Some(if lo_t < q.from { q.from } else { lo_t });
            }
            return Walk::Continue;
        }
        let a = anc + n.lazy;
        let hi_t = if r < m { self.first[r] } else { f64::INFINITY };
        if hi_t <= q.limit && (lo_t + q.duration > hi_t || self.too_short(i, l, r, anc, q)) {
            return self.skip_short(i, r, anc, q);
        }
        if i >= self.mcap {
            return self.scan_chunk(l, 0, a, q);
        }
        if let Walk::Done(x) = self.visit(2 * i, a, q) {
            return Walk::Done(x);
        }
        self.visit(2 * i + 1, a, q)
    }

    /// Whether no stretch below node `i` (chunks `l..r`) that starts there is long enough to
    /// be found complete there ([`Stair`]; a relative slack keeps the computed lengths upper
    /// bounds of the exact test `s + duration <= t`).
    fn too_short(&self, i: usize, l: usize, r: usize, anc: i64, q: &Query) -> bool {
        if q.duration <= 0.0 {
            return false;
        }
        let (lo, last) = self.node_times(l, r);
        let slack = 1e-12 * (lo.abs() + last.abs());
        self.best_at(i, anc, q.need) + slack < q.duration
    }

    /// Passes over node `i` (chunks up to `r`), whose every stretch starting in it is too
    /// short for a fit found in it: only where the first step not free enough lies (does the
    /// current stretch reach far enough?) and where the last one lies (the stretch after it
    /// goes on into the next subtree) matter.
    fn skip_short(&self, i: usize, r: usize, anc: i64, q: &mut Query) -> Walk {
        if let Some(s) = q.run {
            let b = self.first_below(i, anc, q.need);
            if self.start(b) >= s + q.duration {
                return Walk::Done(Some(s));
            }
        }
        let b = self.last_below(i, anc, q.need);
        q.run = match self.next(b) {
            Some(nb) if nb.c < r.min(self.chunks.len()) => Some(self.start(nb)),
            _ => None,
        };
        Walk::Continue
    }

    fn scan_chunk(&self, c: usize, from_i: usize, off: i64, q: &mut Query) -> Walk {
        let ch = &self.chunks[c];
        for k in from_i..ch.start.len() {
            if let Walk::Done(x) = q.step(ch.start[k], ch.free[k] + off) {
                return Walk::Done(x);
            }
        }
        Walk::Continue
    }

    /// The first step below node `i` (ancestors adding `anc`) with fewer than `need` free;
    /// the node has one.
    fn first_below(&self, mut i: usize, mut anc: i64, need: i64) -> Pos {
        while i < self.mcap {
            anc += self.seg[i].lazy;
            i = if self.seg[2 * i].min + anc < need {
                2 * i
            } else {
                2 * i + 1
            };
        }
        let c = i - self.mcap;
        let off = anc + self.seg[i].lazy;
        let k = self.chunks[c]
            .free
            .iter()
            .position(|&f| f + off < need)
            .unwrap_or(0);
        Pos { c, i: k }
    }

    /// The last step below node `i` with fewer than `need` free; the node has one.
    fn last_below(&self, mut i: usize, mut anc: i64, need: i64) -> Pos {
        while i < self.mcap {
            anc += self.seg[i].lazy;
            i = if self.seg[2 * i + 1].min + anc < need {
                2 * i + 1
            } else {
                2 * i
            };
        }
        let c = i - self.mcap;
        let off = anc + self.seg[i].lazy;
        let k = self.chunks[c]
            .free
            .iter()
            .rposition(|&f| f + off < need)
            .unwrap_or(0);
        Pos { c, i: k }
    }
}

/// The staircase of one chunk (local counts): for every distinct count, the first step below
/// it, the start of the last stretch and the longest stretch, from prefix and suffix minima
/// and each step's widest stretch (previous and next smaller count).
fn leaf_stair(ch: &Chunk, out: &mut Stair) {
    let (t, f) = (&ch.start, &ch.free);
    let n = f.len();
    out.lv.clear();
    out.lv.extend_from_slice(f);
    out.lv.sort_unstable();
    out.lv.dedup();
    let k = out.lv.len();
    out.fb.clear();
    out.fb.resize(k, f64::INFINITY);
    out.suf.clear();
    out.suf.resize(k, f64::NAN);
    out.best.clear();
    out.best.resize(k, f64::NEG_INFINITY);
    // First step below each level: prefix minima, levels from the top.
    let mut p = 0;
    let mut pm = i64::MAX;
    for j in (0..k).rev() {
        while p < n && pm.min(f[p]) >= out.lv[j] {
            pm = pm.min(f[p]);
            p += 1;
        }
        out.fb[j] = if p < n { t[p] } else { f64::INFINITY };
    }
    // Last step below each level: suffix minima, levels from the top.
    let mut q = n;
    let mut sm = i64::MAX;
    for j in (0..k).rev() {
        while q > 0 && sm.min(f[q - 1]) >= out.lv[j] {
            sm = sm.min(f[q - 1]);
            q -= 1;
        }
        // Steps q.. have at least lv[j]; q - 1 (if any) has fewer.
        out.suf[j] = if q < n { t[q] } else { f64::NAN };
    }
    // Each step's widest stretch at its own count: previous and next smaller.
    let mut left = vec![0usize; n];
    let mut stack: Vec<usize> = Vec::with_capacity(n);
    for j in 0..n {
        while stack.last().is_some_and(|&x| f[x] >= f[j]) {
            stack.pop();
        }
        left[j] = stack.last().map_or(0, |&x| x + 1);
        stack.push(j);
    }
    stack.clear();
    for j in (0..n).rev() {
        while stack.last().is_some_and(|&x| f[x] >= f[j]) {
            stack.pop();
        }
        let end = stack.last().map_or(t[n - 1], |&x| t[x]);
        let len = end - t[left[j]];
        let lvl = out.lv.partition_point(|&x| x < f[j]);
        if len > out.best[lvl] {
            out.best[lvl] = len;
        }
        stack.push(j);
    }
    for j in (0..k.saturating_sub(1)).rev() {
        if out.best[j + 1] > out.best[j] {
            out.best[j] = out.best[j + 1];
        }
    }
}

/// `out` = `a` with its levels raised by `d`.
fn shift_stair(a: &Stair, d: i64, out: &mut Stair) {
    out.lv.clear();
    out.lv.extend(a.lv.iter().map(|&x| x + d));
    out.fb.clone_from(&a.fb);
    out.suf.clone_from(&a.suf);
    out.best.clone_from(&a.best);
}

/// The staircase of two neighbouring nodes, each given as (staircase, its own addition,
/// first step start, last step start).
fn merge_stairs(a: (&Stair, i64, Time, Time), b: (&Stair, i64, Time, Time), out: &mut Stair) {
    let (sa, da, af, _) = a;
    let (sb, db, bf, bl) = b;
    out.lv.clear();
    out.fb.clear();
    out.suf.clear();
    out.best.clear();
    let (mut i, mut j) = (0, 0);
    // The value of a node's staircase at level v: the entry with the smallest level ≥ v, or
    // "no step that free" past its top.
    let get = |s: &Stair, k: usize, first: Time| -> (Time, Time, Time) {
        if k < s.lv.len() {
            (s.fb[k], s.suf[k], s.best[k])
        } else {
            (first, f64::NAN, f64::NEG_INFINITY)
        }
    };
    while i < sa.lv.len() || j < sb.lv.len() {
        let va = sa.lv.get(i).map_or(i64::MAX, |&x| x + da);
        let vb = sb.lv.get(j).map_or(i64::MAX, |&x| x + db);
        let v = va.min(vb);
        let (afb, asuf, abest) = get(sa, i, af);
        let (bfb, bsuf, bbest) = get(sb, j, bf);
        let fb = if afb.is_finite() { afb } else { bfb };
        let all_b = bfb == f64::INFINITY;
        let suf = if all_b {
            if asuf.is_nan() {
                bf
            } else {
                asuf
            }
        } else {
            bsuf
        };
        let mut best = abest.max(bbest);
        if !asuf.is_nan() {
            let end = if all_b { bl } else { bfb };
            best = best.max(end - asuf);
        }
        out.lv.push(v);
        out.fb.push(fb);
        out.suf.push(suf);
        out.best.push(best);
        if va == v {
            i += 1;
        }
        if vb == v {
            j += 1;
        }
    }
}

// proptest is a native-only dev-dependency (Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The longest stretch of steps with at least `need` free among `steps`, as [`Stair`]
    /// measures it (to the start of the step that ends it, or of the last step).
    fn naive_best(steps: &[(Time, i64)], need: i64) -> Time {
        let mut best = f64::NEG_INFINITY;
        let mut run: Option<Time> = None;
        for &(t, f) in steps {
            if f >= need {
                run.get_or_insert(t);
            } else if let Some(s) = run.take() {
                best = best.max(t - s);
            }
        }
        if let (Some(s), Some(&(t, _))) = (run, steps.last()) {
            best = best.max(t - s);
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// After any reservations, releases and prunes, every node's staircase gives, for
        /// every level, the longest stretch a brute-force pass over its steps finds.
        #[test]
        fn stairs_match_a_naive_scan(
            ops in prop::collection::vec((0u8..3, 0u32..300, 1u32..40, 1u32..6), 1..200),
        ) {
            let mut t = StepTree::from_steps(8, [(0.0, 8u32)].into_iter());
            let mut pruned = 0.0;
            for (kind, s, d, p) in ops {
                let (a, b) = (pruned + f64::from(s), pruned + f64::from(s + d));
                match kind {
                    0 => {
                        t.reserve(a, b, p);
                    }
                    1 => t.release(a, b, p),
                    _ => {
                        pruned += f64::from(s) / 8.0;
                        t.prune(pruned);
                    }
                }
                let m = t.chunks.len();
                for c in 0..m {
                    let i = t.mcap + c;
                    if t.chunks[c].fresh.get() {
                        let mut fresh = Stair::default();
                        leaf_stair(&t.chunks[c], &mut fresh);
                        prop_assert_eq!(&fresh.lv, &t.chunks[c].stair.borrow().lv, "cache: op {:?} chunk {}", (kind, s, d, p), c);
                    }
                    if !t.dirty[i].get() {
                        let mut fresh = Stair::default();
                        leaf_stair(&t.chunks[c], &mut fresh);
                        prop_assert_eq!(&fresh.lv, &t.stairs.borrow()[i].lv, "op {:?} chunk {}", (kind, s, d, p), c);
                    }
                }
                for i in 1..2 * t.mcap {
                    let (l, r) = t.span_of(i);
                    if l >= m {
                        continue;
                    }
                    let mut anc = 0;
                    let mut k = i / 2;
                    while k >= 1 {
                        anc += t.seg[k].lazy;
                        k /= 2;
                    }
                    let mut steps = Vec::new();
                    for c in l..r.min(m) {
                        let off = t.offset(c);
                        for (&st, &f) in t.chunks[c].start.iter().zip(&t.chunks[c].free) {
                            steps.push((st, f + off));
                        }
                    }
                    for need in 0..=9 {
                        prop_assert_eq!(t.best_at(i, anc, need), naive_best(&steps, need),
                            "node {} chunks {}..{} of {} head {} mcap {} need {} steps {:?} stair {:?}",
                            i, l, r, m, t.head, t.mcap, need, steps, t.stairs.borrow()[i]);
                    }
                }
            }
        }
    }
}
