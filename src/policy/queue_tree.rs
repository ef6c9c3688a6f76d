//! The waiting queue of EASY backfilling (Ernemann et al. §III-C, Srinivasan et al. §1) kept as a segment tree
//! over arrival positions, so that the backfill scan visits only jobs that can start.
//!
//! Each arrival gets the next position; a leaf holds the job's processors and estimate while it
//! waits and "nothing" once it started. Every inner node holds the *staircase* of its subtree:
//! the Pareto-minimal (processors, estimate) pairs — for each size, the shortest estimate among
//! the jobs of at most that size — so that the scan can jump to the next waiting job, in arrival
//! order, that fits the free processors and either ends by the shadow time or fits the extra
//! processors, in O(log n) per job found instead of one step per queued job. A node
//! keeps at most [`STAIRS`] points; a longer staircase is cut by giving its last point the
//! smallest estimate of the dropped ones, which can only make a node look more promising than
//! it is (a descent into it may then come back empty; the scan goes on to the right), never
//! hide a job. With the minimum size and the minimum estimate alone, a node whose smallest job
//! and shortest job differ looked promising whenever both did; with 300,000 mixed jobs queued,
//! most descents then failed. The tree doubles when it is full, so it never needs to know the
//! number of arrivals in advance.

use crate::base::{JobId, Time};

/// Fewest leaves of the tree once positions are dropped (a low tree for short queues).
const MIN_CAP: usize = 128;

/// Stretches of at most this many positions are scanned one by one (so a short queue never
/// builds the tree).
const LINEAR: usize = 48;

/// Most points of a node's staircase.
const STAIRS: usize = 4;

/// The Pareto-minimal (processors, estimate) pairs of a subtree, by increasing processors and
/// strictly decreasing estimate; `len == 0` when no job of the subtree waits.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    est: [Time; STAIRS],
    procs: [u32; STAIRS],
    len: u32,
}

const EMPTY: Node = Node {
    est: [f64::INFINITY; STAIRS],
    procs: [u32::MAX; STAIRS],
    len: 0,
};

impl Node {
    fn leaf(procs: u32, estimate: Time) -> Node {
        let mut n = EMPTY;
        n.procs[0] = procs;
        // A NaN estimate never ends by the shadow time, as +∞ does not, and must not hide
        // the job's size from the staircase.
        n.est[0] = if estimate.is_nan() {
            f64::INFINITY
        } else {
            estimate
        };
        n.len = 1;
        n
    }

    /// Appends (p, e) to a staircase being built by increasing p: kept only if e is below the
    /// last estimate (a point of equal size replaces the last one); past [`STAIRS`] points the
    /// last point takes the smaller estimate (module docs).
    #[inline]
    fn push(&mut self, p: u32, e: Time) {
        let n = self.len as usize;
        if n > 0 {
            // Estimates are never NaN here (`Node::leaf`).
            if e >= self.est[n - 1] {
                return;
            }
            if self.procs[n - 1] == p || n == STAIRS {
                self.est[n - 1] = e;
                return;
            }
        }
        self.procs[n] = p;
        self.est[n] = e;
        self.len += 1;
    }
}

#[inline]
fn merge(a: &Node, b: &Node) -> Node {
    if b.len == 0 {
        return *a;
    }
    if a.len == 0 {
        return *b;
    }
    if a.len == 1 && b.len == 1 {
        // Two single jobs (the bottom of the tree): the smaller, then the other if shorter.
        let (x, y) = if a.procs[0] <= b.procs[0] {
            (a, b)
        } else {
            (b, a)
        };
        let mut out = *x;
        if y.est[0] < x.est[0] {
            if y.procs[0] == x.procs[0] {
                out.est[0] = y.est[0];
            } else {
                out.procs[1] = y.procs[0];
                out.est[1] = y.est[0];
                out.len = 2;
            }
        }
        return out;
    }
    let mut out = EMPTY;
    let (mut i, mut j) = (0, 0);
    let (na, nb) = (a.len as usize, b.len as usize);
    while i < na || j < nb {
        let take_a = j >= nb || (i < na && a.procs[i] <= b.procs[j]);
        if take_a {
            out.push(a.procs[i], a.est[i]);
            i += 1;
        } else {
            out.push(b.procs[j], b.est[j]);
            j += 1;
        }
    }
    out
}

/// What a waiting job must satisfy to be found by [`QueueTree::next_fit`]: `procs ≤ free` and
/// either `now + estimate ≤ shadow` or `procs ≤ extra`.
#[derive(Clone, Copy, Debug)]
pub struct FitQuery {
    pub free: u32,
    pub extra: u32,
    pub now: Time,
    pub shadow: Time,
}

impl FitQuery {
    /// Whether one job satisfies the query.
    #[inline]
    fn holds(&self, procs: u32, estimate: Time) -> bool {
        procs <= self.free && (procs <= self.extra || self.now + estimate <= self.shadow)
    }

    /// `false` only if no job below `n` satisfies the query.
    #[inline]
    fn may_hold(&self, n: &Node) -> bool {
        if n.len == 0 || n.procs[0] > self.free {
            return false;
        }
        if n.procs[0] <= self.extra {
            return true;
        }
        // The shortest estimate among the jobs of at most `free` processors.
        let mut k = 0;
        while k + 1 < n.len as usize && n.procs[k + 1] <= self.free {
            k += 1;
        }
        self.now + n.est[k] <= self.shadow
    }
}

/// One arrival: the job, its size and estimate, and whether it still waits.
#[derive(Clone, Copy, Debug)]
struct Item {
    job: JobId,
    procs: u32,
    estimate: Time,
    waiting: bool,
}

/// Waiting jobs in arrival order, searchable by size and estimate.
///
/// Arrivals enter the tree lazily, at the first [`QueueTree::next_fit`] over more than
/// [`LINEAR`] positions: while the queue is short the tree is never touched.
#[derive(Clone, Debug, Default)]
pub struct QueueTree {
    /// Leaves start at `cap`; node `i` has children `2i` and `2i + 1`.
    nodes: Vec<Node>,
    cap: usize,
    /// Every position's arrival.
    items: Vec<Item>,
    /// Positions from `flushed` on are not in `nodes` yet.
    flushed: usize,
    /// Positions below `head` have all left the queue.
    head: usize,
    len: usize,
    /// Arrivals whose positions were dropped (position = arrival number − `dropped`).
    dropped: usize,
}

impl QueueTree {
    /// An empty queue with room for `n` arrivals before it grows.
    pub fn with_capacity(n: usize) -> Self {
        let cap = n.max(1).next_power_of_two();
        QueueTree {
            nodes: vec![EMPTY; 2 * cap],
            cap,
            items: Vec::with_capacity(n),
            flushed: 0,
            head: 0,
            len: 0,
            dropped: 0,
        }
    }

    /// Number of waiting jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when nobody waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn set(&mut self, pos: usize, n: Node) {
        let mut i = pos + self.cap;
        self.nodes[i] = n;
        while i > 1 {
            i /= 2;
            let m = merge(&self.nodes[2 * i], &self.nodes[2 * i + 1]);
            if m == self.nodes[i] {
                // Nothing changes above either.
                break;
            }
            self.nodes[i] = m;
        }
    }

    /// Puts the pending arrivals into the tree.
    fn flush(&mut self) {
        for pos in self.flushed..self.items.len() {
            let it = self.items[pos];
            if it.waiting {
                self.set(pos, Node::leaf(it.procs, it.estimate));
            }
        }
        self.flushed = self.items.len();
    }

    fn grow(&mut self) {
        let cap = (self.cap * 2).max(1);
        let mut nodes = vec![EMPTY; 2 * cap];
        nodes[cap..cap + self.cap].copy_from_slice(&self.nodes[self.cap..2 * self.cap]);
        for i in (1..cap).rev() {
            nodes[i] = merge(&nodes[2 * i], &nodes[2 * i + 1]);
        }
        self.nodes = nodes;
        self.cap = cap;
    }

    /// Appends `job` (holding `procs` processors for up to `estimate`) at the tail.
    /// Positions handed out before are invalid after a push (the tree may drop the
    /// positions before the head).
    pub fn push(&mut self, job: JobId, procs: u32, estimate: Time) {
        if self.head >= MIN_CAP && 2 * self.head >= self.items.len() {
            self.drop_before_head();
        }
        let pos = self.items.len();
        if pos >= self.cap {
            self.grow();
        }
        self.items.push(Item {
            job,
            procs,
            estimate,
            waiting: true,
        });
        self.len += 1;
    }

    /// Renumbers the positions from the head on to start at 0, so that the tree's size
    /// follows the queue's length rather than the number of arrivals so far.
    fn drop_before_head(&mut self) {
        let head = self.head;
        self.items.drain(..head);
        self.dropped += head;
        self.flushed = self.flushed.saturating_sub(head);
        let cap = self.items.len().max(MIN_CAP).next_power_of_two();
        let mut nodes = vec![EMPTY; 2 * cap];
        for (pos, it) in self.items[..self.flushed].iter().enumerate() {
            if it.waiting {
                nodes[cap + pos] = Node::leaf(it.procs, it.estimate);
            }
        }
        for i in (1..cap).rev() {
            nodes[i] = merge(&nodes[2 * i], &nodes[2 * i + 1]);
        }
        self.nodes = nodes;
        self.cap = cap;
        self.items.shrink_to(cap);
        self.head = 0;
    }

    /// Number of arrivals so far: a count that, unlike a position, a push never renumbers.
    pub fn arrivals(&self) -> usize {
        self.dropped + self.items.len()
    }

    /// The current position of arrival number `k` (0 if it was dropped: it left the queue).
    pub fn position_of_arrival(&self, k: usize) -> usize {
        k.saturating_sub(self.dropped)
    }

    /// Position of the first waiting job.
    pub fn head(&mut self) -> Option<usize> {
        while self.head < self.items.len() && !self.items[self.head].waiting {
            self.head += 1;
        }
        (self.head < self.items.len()).then_some(self.head)
    }

    /// The job waiting at `pos`.
    pub fn job(&self, pos: usize) -> JobId {
        self.items[pos].job
    }

    /// Takes the job at `pos` out of the queue.
    pub fn remove(&mut self, pos: usize) {
        if self.items[pos].waiting {
            self.items[pos].waiting = false;
            self.len -= 1;
            if pos < self.flushed {
                self.set(pos, EMPTY);
            }
        }
    }

    /// First waiting position ≥ `from` whose job satisfies `q`.
    pub fn next_fit(&mut self, from: usize, q: &FitQuery) -> Option<usize> {
        if self.items.len().saturating_sub(from) <= LINEAR {
            // A short stretch: a plain scan, and the tree is left for long queues.
            return (from..self.items.len()).find(|&pos| {
                let it = &self.items[pos];
                it.waiting && q.holds(it.procs, it.estimate)
            });
        }
        self.flush();
        if from >= self.cap {
            return None;
        }
        let mut i = from + self.cap;
        if q.may_hold(&self.nodes[i]) {
            return Some(from);
        }
        loop {
            // The next subtree to the right of `i`.
            while i & 1 == 1 {
                i >>= 1;
            }
            if i == 0 {
                return None;
            }
            i += 1;
            if !q.may_hold(&self.nodes[i]) {
                continue;
            }
            // Descend to its first matching leaf; a cut staircase may promise a job that is
            // not there, so a descent can fail and the walk goes on to the right.
            while i < self.cap {
                let l = 2 * i;
                if q.may_hold(&self.nodes[l]) {
                    i = l;
                } else if q.may_hold(&self.nodes[l + 1]) {
                    i = l + 1;
                } else {
                    break;
                }
            }
            if i >= self.cap {
                return Some(i - self.cap);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_before_the_head_are_dropped() {
        let mut t = QueueTree::with_capacity(4);
        for j in 0..5000 {
            t.push(j, 1, 1.0);
            if j % 2 == 1 {
                // Start the two oldest.
                for _ in 0..2 {
                    let h = t.head().unwrap();
                    t.remove(h);
                }
            }
        }
        assert!(t.cap <= 2048, "cap {}", t.cap);
        assert!(t.is_empty());
        t.push(9999, 3, 2.0);
        let h = t.head().unwrap();
        assert_eq!(t.job(h), 9999);
    }

    fn naive(items: &[Option<(u32, f64)>], from: usize, q: &FitQuery) -> Option<usize> {
        (from..items.len()).find(|&i| {
            items[i].is_some_and(|(p, e)| p <= q.free && (p <= q.extra || q.now + e <= q.shadow))
        })
    }

    #[test]
    fn next_fit_matches_a_linear_scan() {
        let mut rng = crate::base::SimRng::new(7);
        for round in 0..40 {
            let mut t = QueueTree::with_capacity(3);
            let mut items = Vec::new();
            let n = 1 + round * 3;
            for j in 0..n {
                let p = (rng.next_u64() % 9) as u32;
                let e = (rng.next_u64() % 50) as f64;
                t.push(j, p, e);
                items.push(Some((p, e)));
            }
            for (pos, item) in items.iter_mut().enumerate() {
                if rng.next_u64() % 3 == 0 {
                    t.remove(pos);
                    *item = None;
                }
            }
            for _ in 0..30 {
                let q = FitQuery {
                    free: (rng.next_u64() % 10) as u32,
                    extra: (rng.next_u64() % 5) as u32,
                    now: 3.0,
                    shadow: 3.0 + (rng.next_u64() % 60) as f64,
                };
                let from = (rng.next_u64() as usize) % (n + 1);
                assert_eq!(
                    t.next_fit(from, &q),
                    naive(&items, from, &q),
                    "round {round}"
                );
            }
            let head = items.iter().position(|x| x.is_some());
            assert_eq!(head.map(|h| t.job(h)), head);
            assert_eq!(t.head(), head);
            assert_eq!(t.len(), items.iter().flatten().count());
        }
    }
}
