//! EASY backfilling (Lifka; Mu'alem & Feitelson), as used per site in Ernemann et al. §III-C and as
//! the aggressive backfilling of Srinivasan et al. §1, with the job semantics of docs/policies.md:
//!
//! 1. Start queued jobs in arrival order while the head fits.
//! 2. If the head does not fit, its *shadow time* is the earliest time at which enough
//!    processors are free, assuming running jobs end at start + estimate; `extra` is the number
//!    of processors free at the shadow time minus the head's size.
//! 3. Every later queued job, in arrival order, starts now if it fits in the currently free
//!    processors and either ends (by estimate) no later than the shadow time, or uses no more
//!    than `extra` processors — in which case `extra` shrinks by its size. When both hold, the
//!    first applies and `extra` is left as it is (the job is gone by the shadow time).
//!
//! The queue is a [`QueueTree`], so the scan of step 3 jumps from one job that can start to
//! the next and a long queue of jobs that cannot start costs nothing.
//!
//! A decision that starts nothing is remembered ([`Blocked`]): while no job starts or ends
//! (the running set counts its changes) and the same head waits with the same free
//! processors, the shadow time and `extra` are those of the last decision, and every job that
//! was queued then still cannot start — `now` only grows, so `now + estimate` only grows —
//! so the next decision scans only the jobs that arrived since.

use super::queue_tree::{FitQuery, QueueTree};
use super::{Context, Policy};
use crate::base::{Explainer, Explanation, IdMap, JobId, Reason, Time};

/// EASY backfilling with a single reservation for the queue head.
#[derive(Clone, Debug)]
pub struct EasyBackfilling {
    queue: QueueTree,
    /// First shadow time computed for each job while it was the blocked head (a map, not an
    /// array over job ids: a grid site sees ids from the whole grid workload).
    promised: IdMap<Time>,
    /// Scratch: (expected end, procs) of jobs started during the current `decide`.
    just_started: Vec<(Time, u32)>,
    /// Queued jobs that hold no processor (estimate 0): they fit even when none is free.
    zero_held_queued: usize,
    /// The last decision, when it started nothing.
    blocked: Option<Blocked>,
    explainer: Explainer,
}

/// A decision that started nothing: what it saw and what it computed.
#[derive(Clone, Copy, Debug)]
struct Blocked {
    head: JobId,
    free: u32,
    running_changes: u64,
    now: Time,
    shadow: Time,
    extra: u32,
    /// Arrivals scanned (every one of them, none fitting).
    scanned: usize,
}

impl EasyBackfilling {
    /// A policy for a workload of `n_jobs` jobs.
    pub fn new(n_jobs: usize) -> Self {
        EasyBackfilling {
            queue: QueueTree::with_capacity(n_jobs.min(128)),
            promised: IdMap::default(),
            just_started: Vec::new(),
            zero_held_queued: 0,
            blocked: None,
            explainer: Explainer::default(),
        }
    }

    /// Shadow time and extra processors for a head of `head_procs` when `free` are idle now.
    fn shadow(&self, ctx: &Context<'_>, free: u32, head_procs: u32) -> Option<(Time, u32)> {
        let mut avail = free;
        let mut running = ctx
            .running
            .by_expected_end()
            .map(|r| (r.expected_end, r.procs))
            .peekable();
        let mut fresh = self.just_started.iter().copied().peekable();
        let mut next = || -> Option<(Time, u32)> {
            match (running.peek(), fresh.peek()) {
                (Some(a), Some(b)) => {
                    if a.0 <= b.0 {
                        running.next()
                    } else {
                        fresh.next()
                    }
                }
                (Some(_), None) => running.next(),
                (None, Some(_)) => fresh.next(),
                (None, None) => None,
            }
        };
        let mut shadow = None;
        while let Some((end, procs)) = next() {
            match shadow {
                None => {
                    avail += procs;
                    if avail >= head_procs {
                        shadow = Some(end);
                    }
                }
                Some(s) => {
                    if end == s {
                        avail += procs;
                    } else {
                        break;
                    }
                }
            }
        }
        shadow.map(|s| (s, avail - head_procs))
    }
}

impl Policy for EasyBackfilling {
    fn name(&self) -> &'static str {
        "easy"
    }

    fn job_arrived(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        if j.procs_held() == 0 {
            self.zero_held_queued += 1;
        }
        self.queue.push(job, j.procs_held(), j.estimate);
    }

    fn job_completed(&mut self, _job: JobId, _ctx: &Context<'_>) {}

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let jobs = ctx.jobs;
        let mut free = ctx.free_procs;
        self.just_started.clear();
        let starts_at_entry = starts.len();

        // 1. Start from the head while it fits.
        let mut head_pos = None;
        while let Some(pos) = self.queue.head() {
            let j = self.queue.job(pos);
            let job = &jobs[j];
            if job.procs_held() > free {
                head_pos = Some(pos);
                break;
            }
            let in_order = Reason::InOrder {
                needs: job.procs_held(),
                free,
            };
            self.explainer.record(ctx.now, j, in_order);
            free -= job.procs_held();
            starts.push(j);
            self.just_started
                .push((ctx.now + job.estimate, job.procs_held()));
            if job.procs_held() == 0 {
                self.zero_held_queued -= 1;
            }
            self.queue.remove(pos);
        }
        let Some(head_pos) = head_pos else {
            return;
        };
        let head = self.queue.job(head_pos);
        let blocked_before = self.blocked.take().filter(|b| {
            b.head == head
                && b.free == free
                && b.running_changes == ctx.running.changes()
                && b.now <= ctx.now
                && starts.len() == starts_at_entry
                && !self.explainer.is_on()
        });
        let (shadow, extra, mut from) = if let Some(b) = blocked_before {
            // Nothing changed but arrivals: only they can start (module docs).
            let from = self.queue.position_of_arrival(b.scanned).max(head_pos + 1);
            (b.shadow, b.extra, from)
        } else {
            let needs_promise = !self.promised.contains_key(&head);
            // Nothing can start: skip the shadow time, unless it is to be explained.
            if free == 0 && !needs_promise && self.zero_held_queued == 0 && !self.explainer.is_on()
            {
                return;
            }
            self.just_started
                .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));

            // 2. Shadow time and extra processors of the blocked head.
            let Some((shadow, extra)) = self.shadow(ctx, free, jobs[head].procs_held()) else {
                return;
            };
            self.promised.entry(head).or_insert(shadow);
            let blocked = Reason::HeadBlocked {
                needs: jobs[head].procs_held(),
                free,
                shadow: Some(shadow),
                extra: Some(extra),
            };
            self.explainer.record(ctx.now, head, blocked);
            (shadow, extra, head_pos + 1)
        };

        // 3. Backfill later jobs in arrival order: only those that fit and end by the shadow
        // time or fit the extra processors are visited; the scan stops when no processor is
        // left (unless a job holding none waits).
        let mut q = FitQuery {
            free,
            extra,
            now: ctx.now,
            shadow,
        };
        while q.free > 0 || self.zero_held_queued > 0 {
            let Some(pos) = self.queue.next_fit(from, &q) else {
                if starts.len() == starts_at_entry && !self.explainer.is_on() {
                    // Every queued job was looked at and none starts.
                    self.blocked = Some(Blocked {
                        head,
                        free,
                        running_changes: ctx.running.changes(),
                        now: ctx.now,
                        shadow,
                        extra,
                        scanned: self.queue.arrivals(),
                    });
                }
                break;
            };
            let j = self.queue.job(pos);
            let job = &jobs[j];
            let procs = job.procs_held();
            q.free -= procs;
            let end = ctx.now + job.estimate;
            let reason = if end <= shadow {
                if procs == 0 {
                    self.zero_held_queued -= 1;
                }
                Reason::BeforeShadow { head, shadow, end }
            } else {
                q.extra -= procs;
                Reason::IntoExtra {
                    head,
                    shadow,
                    end,
                    extra_left: q.extra,
                }
            };
            self.explainer.record(ctx.now, j, reason);
            starts.push(j);
            self.queue.remove(pos);
            from = pos + 1;
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.promised.get(&job).copied()
    }

    fn explain(&mut self, on: bool) {
        self.explainer = Explainer::new(on);
    }

    fn take_explanations(&mut self) -> Vec<Explanation> {
        self.explainer.take()
    }
}
