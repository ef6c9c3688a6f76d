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

use super::profile::Profile;
use super::{Context, Policy};
use crate::base::{JobId, Time};

/// Conservative backfilling with a reservation for every waiting job.
#[derive(Clone, Debug)]
pub struct ConservativeBackfilling {
    profile: Profile,
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    /// Current reservation of each waiting job.
    reservation: Vec<Time>,
    /// First reservation of each job.
    promised: Vec<Option<Time>>,
    /// Start time of each started job.
    started_at: Vec<Time>,
    /// Times the compression would have moved a job later (a bug if ever non-zero).
    violations: usize,
    scratch: Vec<JobId>,
}

impl ConservativeBackfilling {
    /// A policy for `n_jobs` jobs on `procs` processors.
    pub fn new(n_jobs: usize, procs: u32) -> Self {
        ConservativeBackfilling {
            profile: Profile::new(procs, f64::NEG_INFINITY),
            waiting: Vec::new(),
            reservation: vec![f64::NAN; n_jobs],
            promised: vec![None; n_jobs],
            started_at: vec![f64::NAN; n_jobs],
            violations: 0,
            scratch: Vec::new(),
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

    /// Reinserts every waiting job at its earliest fit, in order of current reservation.
    fn compress(&mut self, ctx: &Context<'_>) {
        let mut order = std::mem::take(&mut self.scratch);
        order.clear();
        order.extend_from_slice(&self.waiting);
        let res = &self.reservation;
        order.sort_by(|&a, &b| res[a].total_cmp(&res[b]).then(a.cmp(&b)));
        for &j in &order {
            let job = &ctx.jobs[j];
            let (procs, est) = (job.procs_held(), job.estimate);
            let old = self.reservation[j];
            if procs == 0 {
                continue;
            }
            self.profile.release(old, old + est, procs);
            let new = match self.profile.earliest_fit(ctx.now, procs, est) {
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
        self.waiting.push(job);
    }

    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let expected_end = self.started_at[job] + j.estimate;
        if ctx.now < expected_end && j.procs_held() > 0 {
            self.profile.release(ctx.now, expected_end, j.procs_held());
            self.profile.prune(ctx.now);
            self.compress(ctx);
        }
    }

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let mut free = ctx.free_procs;
        let now = ctx.now;
        let res = &self.reservation;
        let before = starts.len();
        // Due jobs in order of reservation, ties by arrival.
        let mut due: Vec<JobId> = self
            .waiting
            .iter()
            .copied()
            .filter(|&j| res[j] <= now)
            .collect();
        if due.is_empty() {
            return;
        }
        due.sort_by(|&a, &b| res[a].total_cmp(&res[b]).then(a.cmp(&b)));
        for j in due {
            let procs = ctx.jobs[j].procs_held();
            if procs <= free {
                free -= procs;
                starts.push(j);
                self.started_at[j] = now;
            }
        }
        if starts.len() > before {
            let started = &starts[before..];
            self.waiting.retain(|j| !started.contains(j));
        }
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.promised.get(job).copied().flatten()
    }
}
