//! The waiting jobs of conservative backfilling (Mu'alem & Feitelson; Srinivasan et al. §1, Ernemann et al.
//! §III-C) ordered by (current reservation, arrival) — the order of its decisions and of its
//! compression.
//!
//! The jobs are kept in sorted chunks of at most [`CAP`] jobs (one chunk is a sorted vector:
//! the fastest form for short queues). Each job carries its processors and estimate, and each
//! chunk the smallest of both ([`Summary`]), so that a compression pass can skip, in one
//! test, every chunk none of whose jobs can move ([`WaitQueue::next_where`]); a long queue
//! costs one test per chunk, not one per job.
//!
//! A compression pass walks the queue after the last job it visited: a job moved by the pass
//! only ever moves *earlier*, i.e. behind it, so the walk never meets a job twice and never
//! skips one.

use crate::base::event::OrdTime;
use crate::base::{JobId, Time};

/// A waiting job's place: (reservation, job).
pub type Key = (OrdTime, JobId);

/// Most jobs of a chunk; a fuller one is split in two.
pub const CAP: usize = if cfg!(test) { 8 } else { 64 };
/// A chunk this short is merged into a neighbour when both fit in three quarters of a chunk.
const SMALL: usize = CAP / 8;

/// What a chunk's jobs have at least: the first key, the fewest processors of a job holding
/// any (`u32::MAX` if none does) and the shortest estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub first: Key,
    pub procs: u32,
    pub estimate: Time,
}

#[derive(Clone, Debug, Default)]
struct Chunk {
    keys: Vec<Key>,
    procs: Vec<u32>,
    est: Vec<Time>,
    min_procs: u32,
    min_est: Time,
}

impl Chunk {
    fn refresh(&mut self) {
        self.min_procs = self
            .procs
            .iter()
            .copied()
            .filter(|&p| p > 0)
            .min()
            .unwrap_or(u32::MAX);
        self.min_est = self.est.iter().copied().fold(f64::INFINITY, f64::min);
    }

    fn add(&mut self, i: usize, k: Key, procs: u32, est: Time) {
        self.keys.insert(i, k);
        self.procs.insert(i, procs);
        self.est.insert(i, est);
        if procs > 0 {
            self.min_procs = self.min_procs.min(procs);
        }
        self.min_est = self.min_est.min(est);
    }

    fn split_off(&mut self, at: usize) -> Chunk {
        let mut tail = Chunk {
            keys: self.keys.split_off(at),
            procs: self.procs.split_off(at),
            est: self.est.split_off(at),
            ..Chunk::default()
        };
        tail.refresh();
        self.refresh();
        tail
    }

    fn append(&mut self, mut other: Chunk) {
        self.keys.append(&mut other.keys);
        self.procs.append(&mut other.procs);
        self.est.append(&mut other.est);
        self.min_procs = self.min_procs.min(other.min_procs);
        self.min_est = self.min_est.min(other.min_est);
    }
}

/// Waiting jobs by (reservation, arrival), with each one's processors and estimate.
#[derive(Clone, Debug, Default)]
pub struct WaitQueue {
    chunks: Vec<Chunk>,
    len: usize,
}

impl WaitQueue {
    /// Number of waiting jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when nobody waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk holding `k` or where it would go: the first whose last key is ≥ `k` (the last
    /// chunk if none).
    fn chunk_for(&self, k: &Key) -> usize {
        let c = self
            .chunks
            .partition_point(|ch| ch.keys.last().is_some_and(|l| l < k));
        c.min(self.chunks.len().saturating_sub(1))
    }

    /// Adds a waiting job holding `procs` processors for at most `estimate`.
    pub fn insert(&mut self, k: Key, procs: u32, estimate: Time) {
        if self.chunks.is_empty() {
            let mut ch = Chunk {
                min_procs: u32::MAX,
                min_est: f64::INFINITY,
                ..Chunk::default()
            };
            ch.add(0, k, procs, estimate);
            self.chunks.push(ch);
            self.len = 1;
            return;
        }
        let c = self.chunk_for(&k);
        let ch = &mut self.chunks[c];
        let i = ch.keys.partition_point(|x| *x < k);
        ch.add(i, k, procs, estimate);
        self.len += 1;
        if ch.keys.len() > CAP {
            let tail = ch.split_off(CAP / 2);
            self.chunks.insert(c + 1, tail);
        }
    }

    /// Removes a waiting job; `false` if it was not there.
    pub fn remove(&mut self, k: &Key) -> bool {
        if self.chunks.is_empty() {
            return false;
        }
        let c = self.chunk_for(k);
        let ch = &mut self.chunks[c];
        let Ok(i) = ch.keys.binary_search(k) else {
            return false;
        };
        ch.keys.remove(i);
        let procs = ch.procs.remove(i);
        let est = ch.est.remove(i);
        self.len -= 1;
        let n = ch.keys.len();
        if n == 0 {
            self.chunks.remove(c);
            return true;
        }
        if (procs > 0 && procs == ch.min_procs) || est == ch.min_est {
            ch.refresh();
        }
        if n <= SMALL {
            // Merge with the smaller neighbour if both fit in three quarters of a chunk.
            let left = (c > 0).then(|| self.chunks[c - 1].keys.len());
            let right = self.chunks.get(c + 1).map(|x| x.keys.len());
            let into = match (left, right) {
                (Some(l), Some(r)) if r < l => Some(c),
                (Some(_), _) => Some(c - 1),
                (None, Some(_)) => Some(c),
                (None, None) => None,
            };
            if let Some(a) = into {
                if self.chunks[a].keys.len() + self.chunks[a + 1].keys.len() <= 3 * CAP / 4 {
                    let b = self.chunks.remove(a + 1);
                    self.chunks[a].append(b);
                }
            }
        }
        true
    }

    /// Appends to `out`, in order, every job whose key is at most `upto`.
    pub fn up_to(&self, upto: Key, out: &mut Vec<Key>) {
        for ch in &self.chunks {
            if ch.keys.last().is_some_and(|l| *l <= upto) {
                out.extend_from_slice(&ch.keys);
            } else {
                let n = ch.keys.partition_point(|x| *x <= upto);
                out.extend_from_slice(&ch.keys[..n]);
                return;
            }
        }
    }

    /// The first job after `after` (from the start if `None`) for which `job(key, procs,
    /// estimate)` holds, skipping every chunk for which `chunk(summary)` is false (it must
    /// be false only if `job` is false for each of the chunk's jobs).
    pub fn next_where(
        &self,
        after: Option<Key>,
        mut chunk: impl FnMut(&Summary) -> bool,
        mut job: impl FnMut(Key, u32, Time) -> bool,
    ) -> Option<(Key, u32, Time)> {
        let (c0, mut i) = match after {
            None => (0, 0),
            Some(a) => {
                let c = self
                    .chunks
                    .partition_point(|ch| ch.keys.last().is_some_and(|l| *l <= a));
                if c >= self.chunks.len() {
                    return None;
                }
                (c, self.chunks[c].keys.partition_point(|x| *x <= a))
            }
        };
        for ch in &self.chunks[c0..] {
            let s = Summary {
                first: ch.keys[0],
                procs: ch.min_procs,
                estimate: ch.min_est,
            };
            if chunk(&s) {
                for k in i..ch.keys.len() {
                    if job(ch.keys[k], ch.procs[k], ch.est[k]) {
                        return Some((ch.keys[k], ch.procs[k], ch.est[k]));
                    }
                }
            }
            i = 0;
        }
        None
    }
}

// proptest is a native-only dev-dependency (Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn job_of(j: JobId) -> (u32, Time) {
        ((j % 5) as u32, (j % 7) as f64)
    }

    fn check(q: &WaitQueue, r: &BTreeMap<Key, (u32, Time)>) -> Result<(), TestCaseError> {
        prop_assert_eq!(q.len(), r.len());
        let mut total = 0;
        for ch in &q.chunks {
            prop_assert!(!ch.keys.is_empty() && ch.keys.len() <= CAP);
            let mut c2 = ch.clone();
            c2.refresh();
            prop_assert_eq!((c2.min_procs, c2.min_est), (ch.min_procs, ch.min_est));
            total += ch.keys.len();
        }
        prop_assert_eq!(total, r.len());
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        /// Inserts, removes, due prefixes and filtered walks that move jobs earlier give what
        /// a plain `BTreeMap` gives (small chunks under test: many splits and merges).
        #[test]
        fn matches_a_btreemap(ops in prop::collection::vec((0u8..4, 0u32..3000, 0usize..150), 1..60)) {
            let mut q = WaitQueue::default();
            let mut r: BTreeMap<Key, (u32, Time)> = BTreeMap::new();
            let mut next_job = 0usize;
            for (kind, t, n) in ops {
                match kind {
                    0 => {
                        // A burst of n arrivals.
                        for i in 0..n {
                            let k = (OrdTime(f64::from((t + i as u32 * 7919) % 5000)), next_job);
                            let (p, e) = job_of(next_job);
                            next_job += 1;
                            q.insert(k, p, e);
                            r.insert(k, (p, e));
                        }
                    }
                    1 => {
                        // Remove up to n jobs (every third of the queue).
                        let ks: Vec<Key> = r.keys().step_by(3).take(n).copied().collect();
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
                        let want: Vec<Key> = r.range(..=upto).map(|(k, _)| *k).collect();
                        prop_assert_eq!(got, want);
                    }
                    _ => {
                        // A walk visiting the jobs holding 1 to t % 5 processors with an
                        // estimate of at most n % 7 (chunks skipped by their summary) and
                        // moving those with an odd id earlier: it meets exactly the matching
                        // jobs, once, in order.
                        let (pp, ee) = (t % 5, (n % 7) as f64);
                        let want: Vec<Key> = r
                            .iter()
                            .filter(|(_, &(p, e))| p > 0 && p <= pp && e <= ee)
                            .map(|(k, _)| *k)
                            .collect();
                        let mut seen = Vec::new();
                        let mut after = None;
                        while let Some((k, p, e)) = q.next_where(
                            after,
                            |s| s.procs <= pp && s.estimate <= ee,
                            |_, p, e| p > 0 && p <= pp && e <= ee,
                        ) {
                            prop_assert_eq!(r.get(&k).copied(), Some((p, e)));
                            seen.push(k);
                            after = Some(k);
                            if k.1 % 2 == 1 {
                                let moved = (OrdTime(k.0 .0 - f64::from(t / 10) - 0.5), k.1);
                                prop_assert!(q.remove(&k));
                                q.insert(moved, p, e);
                                r.remove(&k);
                                r.insert(moved, (p, e));
                            }
                        }
                        prop_assert_eq!(seen, want);
                    }
                }
                check(&q, &r)?;
            }
            let mut all = Vec::new();
            let mut after = None;
            while let Some((k, _, _)) = q.next_where(after, |_| true, |_, _, _| true) {
                all.push(k);
                after = Some(k);
            }
            prop_assert_eq!(all, r.keys().copied().collect::<Vec<_>>());
        }

        /// A chunk whose summary rules out every job is skipped: walks that visit only jobs of
        /// a given size never visit more chunks' jobs than needed (checked by counting).
        #[test]
        fn summaries_skip_chunks(sizes in prop::collection::vec(1u32..4, 1..200)) {
            let mut q = WaitQueue::default();
            for (j, &p) in sizes.iter().enumerate() {
                q.insert((OrdTime(j as f64), j), p, 1.0);
            }
            let mut visited = 0;
            let mut after = None;
            while let Some((k, _, _)) = q.next_where(after, |s| s.procs <= 1, |_, p, _| {
                visited += 1;
                p <= 1
            }) {
                after = Some(k);
            }
            let with_ones: usize = q
                .chunks
                .iter()
                .filter(|c| c.procs.contains(&1))
                .map(|c| c.keys.len())
                .sum();
            prop_assert!(visited <= with_ones);
        }
    }
}
