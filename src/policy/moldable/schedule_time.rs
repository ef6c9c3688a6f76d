//! Schedule-time moldable scheduling (Srinivasan et al. §3 "schedule-time aggressive fair share", the
//! base strategy of §4, the variants of §4.1–4.3 and the combined scheme of §5): a job's
//! processor count is chosen only when it starts, under the fair-share limit of that moment,
//! with aggressive (EASY) backfilling plus the enhanced reservations.
//!
//! At each decision the waiting jobs are visited in arrival order on a fresh free-processor
//! profile of the running jobs (until start + estimate):
//!
//! 1. the job's limit is its fair share *now* (the jobs in the system: running and waiting);
//! 2. its best choice is the count of earliest estimated completion among its candidates
//!    (12 counts spread over [min, limit], or every partition size by the profile search of
//!    §4.1), on the profile holding the running jobs, the jobs started in this pass and the
//!    reservations made so far in this pass;
//! 3. if that choice starts now, the job starts now on it; otherwise, if the job gets a
//!    reservation ([`super::reservations`]: the first such job — EASY —, the first of each
//!    category, any past the Xfactor threshold), its choice is reserved in the profile, so
//!    later jobs only backfill around it; otherwise it waits.
//!
//! Reservations are recomputed at every decision (the count too: it is chosen at start time),
//! so no start time is promised. A job that cannot start now and gets no reservation is
//! skipped without evaluating its counts when even its minimum exceeds the free processors.

use super::choice::{Choices, Chooser, FairShare, SystemWeights};
use super::readings::Readings;
use super::reservations::Reservations;
use super::{MoldContext, MoldStart, MoldablePolicy};
use crate::base::JobId;
use crate::policy::profile::Profile;

/// A schedule-time strategy.
pub struct ScheduleTime {
    name: &'static str,
    fair_share: FairShare,
    chooser: Chooser,
    reservations: Reservations,
    /// Waiting jobs in arrival order.
    queue: Vec<JobId>,
    kept: Vec<JobId>,
    weights: SystemWeights,
    readings: Readings,
}

impl ScheduleTime {
    /// A strategy named `name` (its registry name) for about `n_jobs` jobs.
    pub fn new(
        name: &'static str,
        fair_share: FairShare,
        choices: Choices,
        reservations: Reservations,
        n_jobs: usize,
    ) -> ScheduleTime {
        ScheduleTime {
            name,
            fair_share,
            chooser: Chooser::new(choices),
            reservations,
            queue: Vec::with_capacity(n_jobs.min(1024)),
            kept: Vec::new(),
            weights: SystemWeights::default(),
            readings: Readings::DEFAULT,
        }
    }

    /// The same strategy under other readings of §3–4.3 ([`super::readings`]).
    pub fn with_readings(mut self, readings: Readings) -> ScheduleTime {
        self.readings = readings;
        self
    }
}

impl MoldablePolicy for ScheduleTime {
    fn name(&self) -> &'static str {
        self.name
    }

    fn job_arrived(&mut self, job: JobId, ctx: &MoldContext<'_>) {
        let w = self.readings.weight(&ctx.jobs[job], &ctx.shapes[job]);
        self.weights.add_weighted(&ctx.shapes[job], w);
        self.queue.push(job);
    }

    fn job_completed(&mut self, job: JobId, ctx: &MoldContext<'_>) {
        let w = self.readings.weight(&ctx.jobs[job], &ctx.shapes[job]);
        self.weights.remove_weighted(&ctx.shapes[job], w);
    }

    fn decide(&mut self, ctx: &MoldContext<'_>, starts: &mut Vec<MoldStart>) {
        if self.queue.is_empty() {
            return;
        }
        let now = ctx.now;
        let mut profile = Profile::new(ctx.total_procs, now);
        for r in ctx.running.by_expected_end() {
            profile.reserve(now, r.expected_end, r.procs);
        }
        let mut free = ctx.free_procs;
        let mut pass = self.reservations.pass_with(self.readings);
        let mut kept = std::mem::take(&mut self.kept);
        kept.clear();
        for i in 0..self.queue.len() {
            let j = self.queue[i];
            let (job, shape) = (&ctx.jobs[j], &ctx.shapes[j]);
            let reserve = pass.wants(now, job, shape);
            if !reserve && shape.held(job, shape.min) > free {
                kept.push(j);
                continue;
            }
            let weight = self.readings.weight(job, shape);
            let upper =
                self.fair_share
                    .upper_weighted(shape, weight, &self.weights, ctx.total_procs);
            let Some(c) = self.chooser.pick(&profile, now, job, shape, upper) else {
                kept.push(j);
                continue;
            };
            let held = shape.held(job, c.procs);
            if c.start <= now && held <= free {
                profile.reserve(now, c.end, held);
                free -= held;
                starts.push(MoldStart {
                    job: j,
                    procs: c.procs,
                });
                continue;
            }
            if reserve {
                profile.reserve(c.start, c.end, held);
                pass.took(job, shape);
            }
            kept.push(j);
        }
        std::mem::swap(&mut self.queue, &mut kept);
        self.kept = kept;
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn evaluations(&self) -> u64 {
        self.chooser.evaluations
    }
}
