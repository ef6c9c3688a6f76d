//! The event queue: completion events ordered by (time, sequence). The sequence number is the
//! order in which events were scheduled, so simultaneous events pop in a fixed, platform-
//! independent order.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{JobId, Time};

/// A totally ordered time key (IEEE total order; simulation times are never NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrdTime(pub Time);

impl Eq for OrdTime {}

impl PartialOrd for OrdTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdTime {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The unsigned integer whose order is [`f64::total_cmp`]'s order of times: the sign bit set
/// for non-negative values, every bit flipped for negative ones. Keys of hot ordered
/// structures compare as integers this way instead of through `total_cmp` at each comparison.
#[inline]
pub fn time_key(t: Time) -> u64 {
    let b = t.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The time of a [`time_key`].
#[inline]
pub fn key_time(k: u64) -> Time {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// A scheduled event: job `job` completes at `time`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Scheduled {
    pub time: OrdTime,
    pub seq: u64,
    pub job: JobId,
}

/// Min-queue of completion events keyed by (time, sequence).
#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    /// (time key, sequence, job): the sequence is unique, so the job never decides.
    heap: BinaryHeap<Reverse<(u64, u64, JobId)>>,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `job` to complete at `time`; returns the sequence number given.
    pub fn push(&mut self, time: Time, job: JobId) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse((time_key(time), seq, job)));
        seq
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(s)| key_time(s.0))
    }

    /// Removes the earliest event.
    pub fn pop(&mut self) -> Option<Scheduled> {
        self.heap.pop().map(|Reverse((time, seq, job))| Scheduled {
            time: OrdTime(key_time(time)),
            seq,
            job,
        })
    }

    /// Removes the earliest event if it is at time `t` and returns its job: the loop over
    /// the completions of one instant, in (time, sequence) order.
    pub fn pop_at(&mut self, t: Time) -> Option<JobId> {
        if self.peek_time() == Some(t) {
            self.pop().map(|s| s.job)
        } else {
            None
        }
    }

    /// Removes every pending event (sequence numbers keep counting).
    pub fn clear(&mut self) {
        self.heap.clear();
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// `true` when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_keys_order_as_total_cmp_and_give_the_time_back() {
        let times = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-310,
            3.0,
            86_400.5,
            f64::INFINITY,
        ];
        for &a in &times {
            assert_eq!(key_time(time_key(a)).to_bits(), a.to_bits());
            for &b in &times {
                assert_eq!(time_key(a).cmp(&time_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn pops_by_time_then_sequence() {
        let mut q = EventQueue::new();
        q.push(5.0, 1);
        q.push(3.0, 2);
        q.push(5.0, 3);
        q.push(3.0, 4);
        let order: Vec<JobId> = std::iter::from_fn(|| q.pop().map(|s| s.job)).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    #[test]
    fn pop_at_takes_only_one_instant_in_sequence_order() {
        let mut q = EventQueue::new();
        q.push(2.0, 7);
        q.push(1.0, 5);
        q.push(1.0, 6);
        assert_eq!(q.pop_at(2.0), None);
        let at_one: Vec<JobId> = std::iter::from_fn(|| q.pop_at(1.0)).collect();
        assert_eq!(at_one, vec![5, 6]);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_at(2.0), Some(7));
    }
}
