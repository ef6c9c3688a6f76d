//! The waiting jobs of conservative backfilling (Mu'alem & Feitelson; seed 004 §1, seed 002
//! §III-C) ordered by (current reservation, arrival) — the order of its decisions and of its
//! compression (issue 17). A sorted vector while the queue is short (the fastest form then),
//! a B-tree from [`TO_SET`] jobs on (back below [`TO_VEC`]).
//!
//! A compression pass walks the queue with a [`Cursor`] while it moves jobs: a job moved by
//! the pass only ever moves *earlier*, i.e. behind the cursor, so the walk never meets a job
//! twice and never skips one.

use std::collections::BTreeSet;
use std::ops::Bound;

use crate::base::event::OrdTime;
use crate::base::JobId;

/// A waiting job's place: (reservation, job).
pub type Key = (OrdTime, JobId);

/// Queues longer than this are kept in a B-tree.
pub const TO_SET: usize = 2048;
/// A B-tree shorter than this becomes a vector again.
pub const TO_VEC: usize = 512;

/// Waiting jobs by (reservation, arrival).
#[derive(Clone, Debug, Default)]
pub struct WaitQueue {
    vec: Vec<Key>,
    set: Option<BTreeSet<Key>>,
}

/// Where a walk over the queue is: after `last` (at `idx` in the vector form).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cursor {
    last: Option<Key>,
    idx: usize,
}

impl WaitQueue {
    /// Number of waiting jobs.
    pub fn len(&self) -> usize {
        match &self.set {
            Some(s) => s.len(),
            None => self.vec.len(),
        }
    }

    /// `true` when nobody waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn settle(&mut self) {
        match &self.set {
            None if self.vec.len() > TO_SET => {
                self.set = Some(self.vec.drain(..).collect());
            }
            Some(s) if s.len() < TO_VEC => {
                self.vec = s.iter().copied().collect();
                self.set = None;
            }
            _ => {}
        }
    }

    /// Adds a waiting job.
    pub fn insert(&mut self, k: Key) {
        match &mut self.set {
            Some(s) => {
                s.insert(k);
            }
            None => {
                let i = self.vec.partition_point(|x| *x < k);
                self.vec.insert(i, k);
                self.settle();
            }
        }
    }

    /// Removes a waiting job; `false` if it was not there.
    pub fn remove(&mut self, k: &Key) -> bool {
        let found = match &mut self.set {
            Some(s) => s.remove(k),
            None => match self.vec.binary_search(k) {
                Ok(i) => {
                    self.vec.remove(i);
                    true
                }
                Err(_) => false,
            },
        };
        if found && self.set.is_some() {
            self.settle();
        }
        found
    }

    /// The next job after the cursor, which moves past it. Jobs inserted before the cursor
    /// (a job moved earlier by the walk) do not disturb it.
    pub fn next(&self, cur: &mut Cursor) -> Option<Key> {
        let k = match &self.set {
            Some(s) => match cur.last {
                None => s.iter().next().copied(),
                Some(l) => s
                    .range((Bound::Excluded(l), Bound::Unbounded))
                    .next()
                    .copied(),
            },
            None => {
                // The walk's own moves keep the next job at `idx`; anything else (a form
                // change) is found again by a search.
                let ok = self
                    .vec
                    .get(cur.idx)
                    .is_some_and(|x| cur.last.is_none_or(|l| *x > l))
                    && (cur.idx == 0 || cur.last.is_some_and(|l| self.vec[cur.idx - 1] <= l));
                if !ok {
                    cur.idx = match cur.last {
                        None => 0,
                        Some(l) => self.vec.partition_point(|x| *x <= l),
                    };
                }
                self.vec.get(cur.idx).copied()
            }
        };
        if let Some(k) = k {
            cur.last = Some(k);
            cur.idx += 1;
        }
        k
    }

    /// Appends to `out`, in order, every job whose key is at most `upto`.
    pub fn up_to(&self, upto: Key, out: &mut Vec<Key>) {
        match &self.set {
            Some(s) => out.extend(s.range((Bound::Unbounded, Bound::Included(upto))).copied()),
            None => {
                let n = self.vec.partition_point(|x| *x <= upto);
                out.extend_from_slice(&self.vec[..n]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        /// Inserts, removes, due prefixes and walks that move jobs earlier give what a plain
        /// `BTreeSet` gives, in both forms (the queue crosses [`TO_SET`] and back).
        #[test]
        fn matches_a_btreeset(ops in prop::collection::vec((0u8..4, 0u32..3000, 0usize..1500), 1..60)) {
            let mut q = WaitQueue::default();
            let mut r: BTreeSet<Key> = BTreeSet::new();
            let mut next_job = 0usize;
            for (kind, t, n) in ops {
                match kind {
                    0 => {
                        // A burst of n arrivals.
                        for i in 0..n {
                            let k = (OrdTime(f64::from((t + i as u32 * 7919) % 5000)), next_job);
                            next_job += 1;
                            q.insert(k);
                            r.insert(k);
                        }
                    }
                    1 => {
                        // Remove up to n jobs (every third of the queue).
                        let ks: Vec<Key> = r.iter().step_by(3).take(n).copied().collect();
                        for k in ks {
                            prop_assert!(q.remove(&k));
                            r.remove(&k);
                        }
                        prop_assert!(!q.remove(&(OrdTime(-1.0), 0)));
                    }
                    2 => {
                        let upto = (OrdTime(f64::from(t)), JobId::MAX);
                        let mut got = Vec::new();
                        q.up_to(upto, &mut got);
                        let want: Vec<Key> = r.range(..=upto).copied().collect();
                        prop_assert_eq!(got, want);
                    }
                    _ => {
                        // A walk moving every job with an odd id earlier by t / 10 + 0.5: it
                        // meets every job once, in order.
                        let n_before = r.len();
                        let mut cur = Cursor::default();
                        let mut seen = Vec::new();
                        while let Some(k) = q.next(&mut cur) {
                            seen.push(k);
                            if k.1 % 2 == 1 {
                                let moved = (OrdTime(k.0 .0 - f64::from(t / 10) - 0.5), k.1);
                                prop_assert!(q.remove(&k));
                                q.insert(moved);
                                r.remove(&k);
                                r.insert(moved);
                            }
                        }
                        prop_assert_eq!(seen.len(), n_before);
                        let mut sorted = seen.clone();
                        sorted.sort();
                        prop_assert_eq!(seen, sorted);
                    }
                }
                prop_assert_eq!(q.len(), r.len());
            }
            let mut cur = Cursor::default();
            let mut all = Vec::new();
            while let Some(k) = q.next(&mut cur) {
                all.push(k);
            }
            prop_assert_eq!(all, r.into_iter().collect::<Vec<_>>());
        }
    }
}
