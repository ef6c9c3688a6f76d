//! The free-processor profile used by conservative backfilling (Mu'alem & Feitelson; seed 004
//! §1): a step function of the number of free processors over future time, built from running
//! jobs (until start + estimate) and reservations.

use crate::base::Time;

/// One step: `free` processors from `start` until the next step's start.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    start: Time,
    free: u32,
}

/// Free processors over time. The last step extends to infinity.
#[derive(Clone, Debug)]
pub struct Profile {
    total: u32,
    steps: Vec<Step>,
}

impl Profile {
    /// An idle machine of `total` processors from time `origin` on.
    pub fn new(total: u32, origin: Time) -> Self {
        Profile {
            total,
            steps: vec![Step {
                start: origin,
                free: total,
            }],
        }
    }

    /// Index of the step containing `t` (the first step if `t` precedes it).
    fn index_at(&self, t: Time) -> usize {
        // Number of steps starting at or before t, minus one.
        let n = self.steps.partition_point(|s| s.start <= t);
        n.saturating_sub(1)
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].start == t {
            return i;
        }
        if t < self.steps[i].start {
            // Before the origin: extend the first step backwards.
            self.steps[i].start = t;
            return i;
        }
        let free = self.steps[i].free;
        self.steps.insert(i + 1, Step { start: t, free });
        i + 1
    }

    /// Free processors at time `t`.
    pub fn free_at(&self, t: Time) -> u32 {
        self.steps[self.index_at(t)].free
    }

    /// Takes `procs` processors over [start, end). Returns `false` (and changes nothing) if
    /// that would make the free count negative somewhere.
    pub fn reserve(&mut self, start: Time, end: Time, procs: u32) -> bool {
        if end <= start || procs == 0 {
            return true;
        }
        let a = self.split_at(start);
        let b = self.split_at(end);
        if self.steps[a..b].iter().any(|s| s.free < procs) {
            self.coalesce(a, b);
            return false;
        }
        for s in &mut self.steps[a..b] {
            s.free -= procs;
        }
        self.coalesce(a, b);
        true
    }

    /// Gives back `procs` processors over [start, end) (capped at the machine size).
    pub fn release(&mut self, start: Time, end: Time, procs: u32) {
        if end <= start || procs == 0 {
            return;
        }
        let a = self.split_at(start);
        let b = self.split_at(end);
        for s in &mut self.steps[a..b] {
            s.free = (s.free + procs).min(self.total);
        }
        self.coalesce(a, b);
    }

    /// Merges equal neighbours around the index range [a, b].
    fn coalesce(&mut self, a: usize, b: usize) {
        let lo = a.saturating_sub(1);
        let hi = (b + 1).min(self.steps.len().saturating_sub(1));
        let mut i = hi;
        while i > lo {
            if self.steps[i].free == self.steps[i - 1].free {
                self.steps.remove(i);
            }
            i -= 1;
        }
    }

    /// Earliest time ≥ `from` at which `procs` processors are free for `duration`.
    /// A zero-length job needs the processors free at its start instant.
    /// Returns `None` only if `procs` exceeds the machine.
    pub fn earliest_fit(&self, from: Time, procs: u32, duration: Time) -> Option<Time> {
        if procs > self.total {
            return None;
        }
        let n = self.steps.len();
        let mut i = self.index_at(from);
        loop {
            let s = if self.steps[i].start > from {
                self.steps[i].start
            } else {
                from
            };
            let end = s + duration;
            let mut k = i;
            let mut blocked = None;
            loop {
                if self.steps[k].free < procs {
                    blocked = Some(k);
                    break;
                }
                k += 1;
                if k >= n || self.steps[k].start >= end {
                    break;
                }
            }
            match blocked {
                None => return Some(s),
                Some(k) => {
                    if k + 1 >= n {
                        // The last step is never reserved forever; defensive stop.
                        return None;
                    }
                    i = k + 1;
                }
            }
        }
    }

    /// The most processors free at any instant of [start, end) (0 if the interval is empty).
    pub fn max_free(&self, start: Time, end: Time) -> u32 {
        if end <= start {
            return 0;
        }
        let mut best = 0;
        for s in &self.steps[self.index_at(start)..] {
            if s.start >= end {
                break;
            }
            best = best.max(s.free);
        }
        best
    }

    /// The free-time blocks from `t` on, as (start, free) pairs: the block containing `t`
    /// (its start moved up to `t`), then every later one; the last lasts forever (seed 004
    /// §4.1's list of free-time blocks).
    pub fn blocks_from(&self, t: Time) -> impl Iterator<Item = (Time, u32)> + '_ {
        self.steps[self.index_at(t)..]
            .iter()
            .map(move |s| (if s.start < t { t } else { s.start }, s.free))
    }

    /// Drops steps that ended before `now`.
    pub fn prune(&mut self, now: Time) {
        let i = self.index_at(now);
        if i > 0 {
            self.steps.drain(..i);
        }
    }

    /// Number of steps (for tests and benchmarks).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// `true` if the profile has no step (never: there is always one).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The steps as (start, free) pairs.
    pub fn steps(&self) -> Vec<(Time, u32)> {
        self.steps.iter().map(|s| (s.start, s.free)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_and_fit() {
        let mut p = Profile::new(10, 0.0);
        assert!(p.reserve(0.0, 10.0, 6));
        assert!(p.reserve(5.0, 20.0, 3));
        assert_eq!(p.steps(), vec![(0.0, 4), (5.0, 1), (10.0, 7), (20.0, 10)]);
        assert_eq!(p.earliest_fit(0.0, 4, 5.0), Some(0.0));
        assert_eq!(p.earliest_fit(0.0, 4, 6.0), Some(10.0));
        assert_eq!(p.earliest_fit(0.0, 8, 1.0), Some(20.0));
        assert_eq!(p.earliest_fit(0.0, 11, 1.0), None);
        assert!(!p.reserve(6.0, 7.0, 2));
        p.release(5.0, 20.0, 3);
        assert_eq!(p.steps(), vec![(0.0, 4), (10.0, 10)]);
        p.prune(12.0);
        assert_eq!(p.steps(), vec![(10.0, 10)]);
    }

    #[test]
    fn zero_length_needs_the_start_instant() {
        let mut p = Profile::new(4, 0.0);
        assert!(p.reserve(0.0, 5.0, 4));
        assert_eq!(p.earliest_fit(0.0, 1, 0.0), Some(5.0));
    }
}
