//! The waiting queue of EASY backfilling (seed 002 §III-C, seed 004 §1) kept as a segment tree
//! over arrival positions, so that the backfill scan visits only jobs that can start.
//!
//! Each arrival gets the next position; a leaf holds the job's processors and estimate while it
//! waits and "nothing" once it started. Every inner node holds the minimum processors and the
//! minimum estimate below it, so the scan can jump to the next waiting job, in arrival order,
//! that fits the free processors and either ends by the shadow time or fits the extra
//! processors — in O(log n) per job found instead of one step per queued job. The tree doubles
//! when it is full, so it never needs to know the number of arrivals in advance.

use crate::base::{JobId, Time};

/// Minimum processors and estimate of a subtree (`u32::MAX`, +∞ when empty).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    procs: u32,
    estimate: Time,
}

const EMPTY: Node = Node {
    procs: u32::MAX,
    estimate: f64::INFINITY,
};

fn merge(a: Node, b: Node) -> Node {
    Node {
        procs: a.procs.min(b.procs),
        estimate: if b.estimate < a.estimate {
            b.estimate
        } else {
            a.estimate
        },
    }
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
    fn may_hold(&self, n: Node) -> bool {
        n.procs != u32::MAX
            && n.procs <= self.free
            && (n.procs <= self.extra || self.now + n.estimate <= self.shadow)
    }
}

/// Waiting jobs in arrival order, searchable by size and estimate.
#[derive(Clone, Debug, Default)]
pub struct QueueTree {
    /// Leaves start at `cap`; node `i` has children `2i` and `2i + 1`.
    nodes: Vec<Node>,
    cap: usize,
    /// Job at each position (valid while the position waits).
    jobs: Vec<JobId>,
    /// Positions below `head` have all left the queue.
    head: usize,
    len: usize,
}

impl QueueTree {
    /// An empty queue with room for `n` arrivals before it grows.
    pub fn with_capacity(n: usize) -> Self {
        let cap = n.max(1).next_power_of_two();
        QueueTree {
            nodes: vec![EMPTY; 2 * cap],
            cap,
            jobs: Vec::with_capacity(n),
            head: 0,
            len: 0,
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
            self.nodes[i] = merge(self.nodes[2 * i], self.nodes[2 * i + 1]);
        }
    }

    fn grow(&mut self) {
        let cap = (self.cap * 2).max(1);
        let mut nodes = vec![EMPTY; 2 * cap];
        nodes[cap..cap + self.cap].copy_from_slice(&self.nodes[self.cap..2 * self.cap]);
        for i in (1..cap).rev() {
            nodes[i] = merge(nodes[2 * i], nodes[2 * i + 1]);
        }
        self.nodes = nodes;
        self.cap = cap;
    }

    /// Appends `job` (holding `procs` processors for up to `estimate`) at the tail.
    /// Positions handed out before are invalid after a push (the tree may drop the
    /// positions before the head).
    pub fn push(&mut self, job: JobId, procs: u32, estimate: Time) {
        if self.head >= 1024 && 2 * self.head >= self.jobs.len() {
            self.drop_before_head();
        }
        let pos = self.jobs.len();
        if pos >= self.cap {
            self.grow();
        }
        self.jobs.push(job);
        self.len += 1;
        self.set(pos, Node { procs, estimate });
    }

    /// Renumbers the positions from the head on to start at 0, so that the tree's size
    /// follows the queue's length rather than the number of arrivals so far.
    fn drop_before_head(&mut self) {
        let head = self.head;
        let live = self.jobs.len() - head;
        let cap = live.max(1024).next_power_of_two();
        let mut nodes = vec![EMPTY; 2 * cap];
        nodes[cap..cap + live]
            .copy_from_slice(&self.nodes[self.cap + head..self.cap + head + live]);
        for i in (1..cap).rev() {
            nodes[i] = merge(nodes[2 * i], nodes[2 * i + 1]);
        }
        self.nodes = nodes;
        self.cap = cap;
        self.jobs.drain(..head);
        self.jobs.shrink_to(cap);
        self.head = 0;
    }

    /// Position of the first waiting job.
    pub fn head(&mut self) -> Option<usize> {
        while self.head < self.jobs.len() && self.nodes[self.head + self.cap] == EMPTY {
            self.head += 1;
        }
        (self.head < self.jobs.len()).then_some(self.head)
    }

    /// The job waiting at `pos`.
    pub fn job(&self, pos: usize) -> JobId {
        self.jobs[pos]
    }

    /// Takes the job at `pos` out of the queue.
    pub fn remove(&mut self, pos: usize) {
        if self.nodes[pos + self.cap] != EMPTY {
            self.len -= 1;
            self.set(pos, EMPTY);
        }
    }

    /// First waiting position ≥ `from` whose job satisfies `q`.
    pub fn next_fit(&self, from: usize, q: &FitQuery) -> Option<usize> {
        if from >= self.cap {
            return None;
        }
        let mut i = from + self.cap;
        if q.may_hold(self.nodes[i]) {
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
            if !q.may_hold(self.nodes[i]) {
                continue;
            }
            // Descend to its first matching leaf; the two minima of a node may come from
            // different leaves, so a descent can fail and the walk goes on to the right.
            while i < self.cap {
                let l = 2 * i;
                if q.may_hold(self.nodes[l]) {
                    i = l;
                } else if q.may_hold(self.nodes[l + 1]) {
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
