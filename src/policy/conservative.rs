//! Conservative backfilling (Mu'alem & Feitelson; the rigid baseline of seed 004 §1 and the
//! local "backfilling that does not postpone any next job" of seed 002 §III-C).
//!
//! Every job gets a reservation when it arrives: the earliest time at which its size fits in
//! the free-processor profile for the length of its estimate. When a job completes before its
//! estimate, the freed part of the profile is released and the queue is *compressed*: waiting
//! jobs, in order of their current reservation (ties by arrival), are taken out of the profile
//! and put back at their earliest fit. A job's own old slot is always still free when it is
//! reinserted, so no reservation ever moves later — and no job starts later than the
//! reservation it was first given (checked: [`ConservativeBackfilling::violations`]).
//!
//! Issue 17 makes the compression touch only jobs that can move. After a compression pass no
//! waiting job can move (a job freed later in the pass only frees time at or after its own
//! reservation, which is never before the reservations already visited), and arrivals only take
//! processors. So a job can move earlier only into a window that contains an instant freed
//! since: by the completion, or by a job that moved earlier in this pass. A job larger than the
//! most processors free at any such instant before its reservation is left where it is
//! without touching the profile — exactly what the full reinsertion would do. Waiting jobs are
//! kept ordered by (reservation, arrival), so neither `decide` nor the compression sorts.

use std::collections::BTreeSet;
use std::ops::Bound;

use super::profile::Profile;
use super::{Context, Policy};
use crate::base::event::OrdTime;
use crate::base::{Explainer, Explanation, JobId, Reason, Time};

/// Conservative backfilling with a reservation for every waiting job.
#[derive(Clone, Debug)]
pub struct ConservativeBackfilling {
    profile: Profile,
    /// Waiting jobs by (current reservation, arrival).
    waiting: BTreeSet<(OrdTime, JobId)>,
    /// Current reservation of each waiting job.
    reservation: Vec<Time>,
    /// First reservation of each job.
    promised: Vec<Option<Time>>,
    /// Start time of each started job.
    started_at: Vec<Time>,
    /// Times the compression would have moved a job later (a bug if ever non-zero).
    violations: usize,
    scratch: Vec<(OrdTime, JobId)>,
    /// Intervals freed during the current compression pass.
    freed: Vec<(Time, Time)>,
    explainer: Explainer,
}

impl ConservativeBackfilling {
    /// A policy for `n_jobs` jobs on `procs` processors.
    pub fn new(n_jobs: usize, procs: u32) -> Self {
        ConservativeBackfilling {
            profile: Profile::new(procs, f64::NEG_INFINITY),
            waiting: BTreeSet::new(),
            reservation: vec![f64::NAN; n_jobs],
            promised: vec![None; n_jobs],
            started_at: vec![f64::NAN; n_jobs],
            violations: 0,
            scratch: Vec::new(),
            freed: Vec::new(),
            explainer: Explainer::default(),
        }
    }

    /// How often a reservation would have moved later (always 0 unless there is a bug).
    pub fn violations(&self) -> usize {
        self.violations
    }

    /// The free-processor profile (running jobs and every reservation): where a new job
    /// would be reserved now (used by the grid scheduler, seed 002 §III-C).
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The most processors free at an instant of `freed` within [from, to).
    fn max_freed(&self, from: Time, to: Time) -> u32 {
        self.freed
            .iter()
            .map(|&(a, b)| self.profile.max_free(a.max(from), b.min(to)))
            .max()
            .unwrap_or(0)
    }

    /// Reinserts every waiting job at its earliest fit, in order of current reservation,
    /// after [now, freed_until) was released by the early completion of `completed`; jobs
    /// that cannot move are skipped (module docs).
    fn compress(&mut self, ctx: &Context<'_>, completed: JobId, freed_until: Time) {
        let now = ctx.now;
        let mut order = std::mem::take(&mut self.scratch);
        order.clear();
        order.extend(self.waiting.iter().copied());
        self.freed.clear();
        self.freed.push((now, freed_until));
        // Most processors free at a freed instant of [now, seen).
        let mut most = 0;
        let mut seen = now;
        for &(OrdTime(old), j) in &order {
            let job = &ctx.jobs[j];
            let (procs, est) = (job.procs_held(), job.estimate);
            if procs == 0 || old == now {
                // Nothing held, or already at the earliest possible start.
                continue;
            }
            if old > now {
                if old > seen {
                    most = most.max(self.max_freed(seen, old));
                    seen = old;
                }
                if procs > most {
                    continue;
                }
            }
            self.profile.release(old, old + est, procs);
            let new = match self.profile.earliest_fit(now, procs, est) {
                Some(s) if s <= old => s,
                _ => {
                    self.violations += 1;
                    old
                }
            };
            if !self.profile.reserve(new, new + est, procs) {
                self.violations += 1;
            }
            self.reservation[j] = new;
            if new != old {
                let moved = Reason::Moved {
                    from: old,
                    to: new,
                    completed,
                };
                self.explainer.record(now, j, moved);
                self.waiting.remove(&(OrdTime(old), j));
                self.waiting.insert((OrdTime(new), j));
                self.freed.push((old, old + est));
                most = self.max_freed(now, seen);
            }
        }
        self.scratch = order;
    }
}

impl Policy for ConservativeBackfilling {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn job_arrived(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let (procs, est) = (j.procs_held(), j.estimate);
        let start = if procs == 0 {
            ctx.now
        } else {
            match self.profile.earliest_fit(ctx.now, procs, est) {
                Some(s) => s,
                // Larger than the machine: the engine drops such jobs before simulating.
                None => return,
            }
        };
        if !self.profile.reserve(start, start + est, procs) {
            self.violations += 1;
        }
        self.reservation[job] = start;
        self.promised[job] = Some(start);
        let reserved = Reason::Reserved {
            at: start,
            needs: procs,
        };
        self.explainer.record(ctx.now, job, reserved);
        self.waiting.insert((OrdTime(start), job));
    }

    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let expected_end = self.started_at[job] + j.estimate;
        if ctx.now < expected_end && j.procs_held() > 0 {
            self.profile.release(ctx.now, expected_end, j.procs_held());
            self.profile.prune(ctx.now);
            self.compress(ctx, job, expected_end);
        }
    }

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let mut free = ctx.free_procs;
        let now = ctx.now;
        // Due jobs (reservation ≤ now) in order of reservation, ties by arrival; +0 is the
        // largest zero in the total order, so a reservation at -0 is due at +0 and vice versa.
        let key = OrdTime(if now == 0.0 { 0.0 } else { now });
        let mut due = std::mem::take(&mut self.scratch);
        due.clear();
        due.extend(
            self.waiting
                .range((Bound::Unbounded, Bound::Included((key, JobId::MAX))))
                .copied(),
        );
        for &(res, j) in &due {
            let procs = ctx.jobs[j].procs_held();
            if procs <= free {
                free -= procs;
                starts.push(j);
                self.started_at[j] = now;
                if self.explainer.is_on() {
                    let first = self.promised[j].unwrap_or(now);
                    self.explainer
                        .record(now, j, Reason::AtReservation { first });
                }
                self.waiting.remove(&(res, j));
            }
        }
        self.scratch = due;
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.promised.get(job).copied().flatten()
    }

    fn explain(&mut self, on: bool) {
        self.explainer = Explainer::new(on);
    }

    fn take_explanations(&mut self) -> Vec<Explanation> {
        self.explainer.take()
    }
}
