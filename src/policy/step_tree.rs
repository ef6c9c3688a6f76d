//! The long form of the free-processor [`Profile`](super::profile::Profile) of conservative
//! backfilling (Mu'alem & Feitelson; seed 004 §1, seed 002 §III-C): the same step function —
//! free processors from each breakpoint until the next — kept in chunks of at most [`CAP`]
//! steps under a segment tree over the chunks (issue 17 item 1).
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
//!
//! The steps are always coalesced (no two neighbours with the same free count), exactly as in
//! the vector form, so both forms list the very same steps.

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
    mcap: usize,
    len: usize,
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
            mcap: 1,
            len: n,
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
        let lazy = self.seg[i].lazy;
        self.seg[i].min = self.chunks[c].min + lazy;
        self.seg[i].max = self.chunks[c].max + lazy;
        self.pull(i);
    }

    fn pull(&mut self, mut i: usize) {
        while i > 1 {
            i >>= 1;
            let (l, r) = (self.seg[2 * i], self.seg[2 * i + 1]);
            self.seg[i].min = l.min.min(r.min) + self.seg[i].lazy;
            self.seg[i].max = l.max.max(r.max) + self.seg[i].lazy;
        }
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
        let c = self.first.partition_point(|&f| f <= t).saturating_sub(1);
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
        } else if p.c > 0 {
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
            return;
        }
        let ch = &mut self.chunks[p.c];
        let f = ch.free[p.i];
        ch.start.insert(p.i + 1, t);
        ch.free.insert(p.i + 1, f);
        self.len += 1;
        if ch.start.len() > CAP {
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
        let small = n < SMALL
            && ((p.c > 0 && self.chunks[p.c - 1].start.len() + n <= CAP / 2)
                || (p.c + 1 < self.chunks.len()
                    && self.chunks[p.c + 1].start.len() + n <= CAP / 2));
        if small {
            self.restructure();
        } else {
            self.pull_chunk(p.c);
        }
    }

    /// Splits full chunks, drops empty ones, merges small neighbours; rebuilds the segment
    /// tree.
    fn restructure(&mut self) {
        let adds = self.adds();
        let old = std::mem::take(&mut self.chunks);
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
                    continue;
                }
            }
            if n > CAP {
                let half = n / 2;
                let start = ch.start.split_off(half);
                let free = ch.free.split_off(half);
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

    /// Drops the steps that ended before `now` (`Profile::prune`).
    pub(super) fn prune(&mut self, now: Time) {
        let p = self.locate(now);
        if p.c == 0 && p.i == 0 {
            return;
        }
        let dropped: usize = self.chunks[..p.c]
            .iter()
            .map(|c| c.start.len())
            .sum::<usize>()
            + p.i;
        self.len -= dropped;
        let ch = &mut self.chunks[p.c];
        ch.start.drain(..p.i);
        ch.free.drain(..p.i);
        if p.c > 0 {
            for c in &mut self.chunks[..p.c] {
                c.start.clear();
                c.free.clear();
            }
            self.restructure();
        } else {
            self.first[0] = self.chunks[0].start[0];
            if self.chunks[0].start.len() < SMALL && self.chunks.len() > 1 {
                self.restructure();
            } else {
                self.pull_chunk(0);
            }
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
    pub(super) fn walk_on(&self, from: Time, mut f: impl FnMut(Time, u32) -> bool) {
        let mut p = self.locate(from);
        if self.start(p) < from {
            match self.next(p) {
                Some(q) => p = q,
                None => return,
            }
        }
        let mut off = self.offset(p.c);
        loop {
            if !f(self.start(p), (self.chunks[p.c].free[p.i] + off) as u32) {
                return;
            }
            match self.next(p) {
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

    /// `Profile::walk_back`.
    pub(super) fn walk_back(&self, to: Time, mut f: impl FnMut(Time, u32) -> bool) {
        let mut p = self.locate(to);
        if self.start(p) >= to {
            match self.prev(p) {
                Some(q) => p = q,
                None => return,
            }
        }
        let mut off = self.offset(p.c);
        loop {
            if !f(self.start(p), (self.chunks[p.c].free[p.i] + off) as u32) {
                return;
            }
            match self.prev(p) {
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
        for (c, ch) in self.chunks.iter().enumerate() {
            let off = self.offset(c);
            for (&t, &v) in ch.start.iter().zip(&ch.free) {
                f(t, (v + off) as u32);
            }
        }
    }

    /// The steps from the one containing `t` on, as (start, free).
    pub(super) fn steps_from(&self, t: Time) -> Vec<(Time, u32)> {
        let p = self.locate(t);
        let mut out = Vec::with_capacity(self.len);
        for c in p.c..self.chunks.len() {
            let off = self.offset(c);
            let ch = &self.chunks[c];
            let from = if c == p.c { p.i } else { 0 };
            for k in from..ch.start.len() {
                out.push((ch.start[k], (ch.free[k] + off) as u32));
            }
        }
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
        if i >= self.mcap {
            return self.scan_chunk(l, 0, a, q);
        }
        let hi_t = if r < m { self.first[r] } else { f64::INFINITY };
        if hi_t <= q.limit && lo_t + q.duration > hi_t {
            // Too short to hold a whole fit: only where the first step not free enough lies
            // (does the current stretch reach far enough?) and where the last one lies (the
            // stretch after it goes on into the next subtree) matter.
            if let Some(s) = q.run {
                let b = self.first_below(i, anc, q.need);
                if self.start(b) >= s + q.duration {
                    return Walk::Done(Some(s));
                }
            }
            let b = self.last_below(i, anc, q.need);
            q.run = match self.next(b) {
                Some(nb) if nb.c < r.min(m) => Some(self.start(nb)),
                _ => None,
            };
            return Walk::Continue;
        }
        if let Walk::Done(x) = self.visit(2 * i, a, q) {
            return Walk::Done(x);
        }
        self.visit(2 * i + 1, a, q)
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
