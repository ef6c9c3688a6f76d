//! Decision explanations: why a job waited and why it started when it did, as the
//! policies of the grid-sharing and moldable papers decide — FCFS and EASY's head and shadow time (Ernemann et al. §III-C,
//! Srinivasan et al. §1), conservative backfilling's reservations and their compression (Srinivasan et al. §1),
//! a mesh allocator that finds no free submesh (Ababneh & Bani-Mohammad §3) and the grid's site choice (Ernemann
//! et al. §III-D).
//!
//! A policy holds an [`Explainer`]; it is off unless the run asks for it, and then every
//! `record` is one push. While off, `record` is a single test of a flag that is false, so a run
//! without explanations does the same work as before (measured in BENCHMARKS.md). Entries name
//! jobs by [`JobId`] (index in the workload); the text is rendered by [`crate::sim::story`]
//! with the trace's job numbers.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{JobId, Time};

/// Why something happened to a job at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// The job is the head of the queue and does not fit: it needs `needs` processors and
    /// `free` are idle. EASY adds the head's shadow time and the extra processors.
    HeadBlocked {
        needs: u32,
        free: u32,
        shadow: Option<Time>,
        extra: Option<u32>,
    },
    /// Started in queue order: it was the head (or every job before it had started) and its
    /// `needs` processors fit in the `free` idle ones.
    InOrder { needs: u32, free: u32 },
    /// Started first of a queue order other than arrival (docs/policies.md): its `priority`
    /// was the highest of the waiting jobs and its `needs` processors fit in the `free` idle
    /// ones; `passed` is the earliest-submitted job still waiting after it, with that job's
    /// priority — the job it went ahead of.
    ByPriority {
        needs: u32,
        free: u32,
        priority: f64,
        passed: Option<(JobId, f64)>,
    },
    /// Backfilled ahead of the blocked head `head`: it ends (by its estimate) at `end`, no
    /// later than the head's shadow time.
    BeforeShadow {
        head: JobId,
        shadow: Time,
        end: Time,
    },
    /// Backfilled ahead of the blocked head `head` into the extra processors: it ends after
    /// the shadow time, and `extra_left` extra processors remain after it.
    IntoExtra {
        head: JobId,
        shadow: Time,
        end: Time,
        extra_left: u32,
    },
    /// Conservative backfilling reserved `needs` processors from `at` on arrival — the earliest
    /// time they are free for the job's whole estimate.
    Reserved { at: Time, needs: u32 },
    /// Conservative backfilling moved the reservation earlier, from `from` to `to`, after the
    /// early completion of `completed`.
    Moved {
        from: Time,
        to: Time,
        completed: JobId,
    },
    /// Started at its reservation; `first` is the reservation given on arrival.
    AtReservation { first: Time },
    /// A mesh job of `w` × `h` nodes found no free submesh of that shape (nor `h` × `w` when
    /// orientations switch); `free_nodes` were idle and the largest free submesh was
    /// `largest_w` × `largest_h`.
    NoSubmesh {
        w: u32,
        h: u32,
        rotated: bool,
        free_nodes: u32,
        largest_w: u32,
        largest_h: u32,
    },
    /// A mesh job started on the `w` × `h` submesh whose lower-left node is (`x`, `y`).
    Placed { x: u32, y: u32, w: u32, h: u32 },
    /// The grid scheduler sent the job to `chosen` out of `offers` offering sites; `home` is
    /// what its home site offered (`None`: too small), `runner_up` the best other offer and
    /// `decided_by` the rule that put `chosen` ahead of it.
    Dispatched {
        chosen: SiteOffer,
        home_site: u32,
        home: Option<SiteOffer>,
        runner_up: Option<SiteOffer>,
        decided_by: Choice,
        offers: u32,
    },
}

/// What a grid site offered a job: its earliest start there and the nodes left free then
/// (Ernemann et al. §III-C).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteOffer {
    pub site: u32,
    pub start: Time,
    pub left: u32,
}

/// The rule of the grid scheduler that decided between the chosen site and the runner-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// Only one site could take the job.
    OnlyOffer,
    /// The earliest start.
    EarliestStart,
    /// Same start; BestFit: fewer nodes left.
    BestFit,
    /// Same start and nodes left: the home site.
    Home,
    /// Same start and nodes left, neither is home: the lower site index.
    LowerIndex,
}

/// One explanation: at `time`, `reason` applied to `job`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub time: Time,
    pub job: JobId,
    pub reason: Reason,
}

/// The explanations of one run, or nothing when explanations are off.
#[derive(Clone, Debug, Default)]
pub struct Explainer {
    on: bool,
    log: Vec<Explanation>,
    /// What each waiting job's last "blocked" entry said ([`blocking_key`]), so that a job
    /// blocked the same way at every instant is recorded once.
    last_blocked: HashMap<JobId, [u64; 3]>,
}

impl Explainer {
    /// An explainer that records (`on`) or does nothing.
    pub fn new(on: bool) -> Self {
        Explainer {
            on,
            ..Explainer::default()
        }
    }

    /// Whether entries are recorded.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Records `reason` for `job` at `time`. A blocking reason ([`Reason::HeadBlocked`],
    /// [`Reason::NoSubmesh`]) is recorded only when it differs, in what [`blocking_key`]
    /// keeps, from the job's last blocking entry since its last other entry: a head whose
    /// shadow time stays put while the idle count changes at every completion is recorded
    /// once.
    #[inline]
    pub fn record(&mut self, time: Time, job: JobId, reason: Reason) {
        if self.on {
            self.push(time, job, reason);
        }
    }

    fn push(&mut self, time: Time, job: JobId, reason: Reason) {
        match blocking_key(&reason) {
            Some(key) => {
                if self.last_blocked.insert(job, key) == Some(key) {
                    return;
                }
            }
            None => {
                self.last_blocked.remove(&job);
            }
        }
        self.log.push(Explanation { time, job, reason });
    }

    /// Every entry since the last call, in the order recorded. What it remembers of each
    /// job's blocking entries stays, so that a run drained as it goes records the entries it
    /// would have recorded without the drains.
    pub fn take(&mut self) -> Vec<Explanation> {
        std::mem::take(&mut self.log)
    }
}

/// What makes two blocking entries of a job different: the shadow time of a blocked head (its
/// idle and extra counts vary at every completion without changing what the job waits for),
/// the shape and largest free submesh of a mesh job. `None` for the other reasons.
pub fn blocking_key(reason: &Reason) -> Option<[u64; 3]> {
    match *reason {
        Reason::HeadBlocked { needs, shadow, .. } => {
            Some([u64::from(needs), shadow.map_or(u64::MAX, f64::to_bits), 0])
        }
        Reason::NoSubmesh {
            w,
            h,
            largest_w,
            largest_h,
            ..
        } => Some([
            u64::from(w) << 32 | u64::from(h),
            u64::from(largest_w) << 32 | u64::from(largest_h),
            1,
        ]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_records_nothing_and_repeated_blocks_are_recorded_once() {
        let blocked = Reason::HeadBlocked {
            needs: 4,
            free: 2,
            shadow: Some(10.0),
            extra: Some(0),
        };
        let mut off = Explainer::new(false);
        off.record(0.0, 1, blocked);
        assert!(off.take().is_empty());

        let mut on = Explainer::new(true);
        on.record(0.0, 1, blocked);
        let fewer_free = Reason::HeadBlocked {
            needs: 4,
            free: 1,
            shadow: Some(10.0),
            extra: Some(0),
        };
        on.record(1.0, 1, fewer_free);
        on.record(2.0, 1, Reason::InOrder { needs: 4, free: 4 });
        on.record(3.0, 2, blocked);
        let log = on.take();
        assert_eq!(
            log.iter().map(|e| (e.time, e.job)).collect::<Vec<_>>(),
            vec![(0.0, 1), (2.0, 1), (3.0, 2)]
        );
    }
}
