//! Submit-time moldable scheduling (Srinivasan et al. §3): Cirne's greedy strategy — at submission the
//! job takes the count of best turnaround on the schedule as it stands, and keeps it — and the
//! submit-time fair-share strategy of [14], the same with the count capped by the fair share
//! of that moment (weight factor 2, gap factor 90 %). Both schedule by conservative
//! backfilling: the chosen count and its estimate are reserved at submission; when a job ends
//! before its estimate, the waiting jobs are moved to their earliest fit in order of
//! reservation (the count stays fixed), so no job starts later than its first reservation
//! (checked after every run).

use std::collections::BTreeSet;
use std::ops::Bound;

use super::choice::{Choices, Chooser, FairShare, SystemWeights};
use super::{MoldContext, MoldStart, MoldablePolicy};
use crate::base::event::OrdTime;
use crate::base::{JobId, Time};
use crate::policy::profile::Profile;

/// A submit-time strategy.
pub struct SubmitTime {
    name: &'static str,
    fair_share: Option<FairShare>,
    chooser: Chooser,
    profile: Profile,
    /// Waiting jobs by (reservation, arrival).
    waiting: BTreeSet<(OrdTime, JobId)>,
    reservation: Vec<Time>,
    /// Chosen count, its estimated run time and the processors it holds.
    chosen: Vec<(u32, Time, u32)>,
    promised: Vec<Option<Time>>,
    started_at: Vec<Time>,
    weights: SystemWeights,
    /// The fair share's weight ([`super::readings::WeightBasis`]).
    readings: super::readings::Readings,
    scratch: Vec<(OrdTime, JobId)>,
}

impl SubmitTime {
    /// A strategy for `n_jobs` jobs on `procs` processors.
    pub fn new(
        name: &'static str,
        fair_share: Option<FairShare>,
        choices: Choices,
        n_jobs: usize,
        procs: u32,
    ) -> SubmitTime {
        SubmitTime {
            name,
            fair_share,
            chooser: Chooser::new(choices),
            profile: Profile::new(procs, f64::NEG_INFINITY),
            waiting: BTreeSet::new(),
            reservation: vec![f64::NAN; n_jobs],
            chosen: vec![(0, 0.0, 0); n_jobs],
            promised: vec![None; n_jobs],
            started_at: vec![f64::NAN; n_jobs],
            weights: SystemWeights::default(),
            readings: super::readings::Readings::DEFAULT,
            scratch: Vec::new(),
        }
    }

    /// The same strategy with the fair share's weight read as `readings` says.
    pub fn with_readings(mut self, readings: super::readings::Readings) -> SubmitTime {
        self.readings = readings;
        self
    }

    /// Moves every waiting job to its earliest fit, in order of reservation.
    fn compress(&mut self, now: Time) {
        let mut order = std::mem::take(&mut self.scratch);
        order.clear();
        order.extend(self.waiting.iter().copied());
        for &(OrdTime(old), j) in &order {
            let (_, est, held) = self.chosen[j];
            if held == 0 || old <= now {
                continue;
            }
            self.profile.release(old, old + est, held);
            let new = match self.profile.earliest_fit(now, held, est) {
                Some(s) if s <= old => s,
                _ => old,
            };
            self.profile.reserve(new, new + est, held);
            if new != old {
                self.reservation[j] = new;
                self.waiting.remove(&(OrdTime(old), j));
                self.waiting.insert((OrdTime(new), j));
            }
        }
        self.scratch = order;
    }
}

impl MoldablePolicy for SubmitTime {
    fn name(&self) -> &'static str {
        self.name
    }

    fn job_arrived(&mut self, j: JobId, ctx: &MoldContext<'_>) {
        let (job, shape) = (&ctx.jobs[j], &ctx.shapes[j]);
        let weight = self.readings.weight(job, shape);
        self.weights.add_weighted(shape, weight);
        let upper = match &self.fair_share {
            Some(fs) => fs.upper_weighted(shape, weight, &self.weights, ctx.total_procs),
            None => shape.max,
        };
        let Some(c) = self.chooser.pick(&self.profile, ctx.now, job, shape, upper) else {
            // Larger than the machine: such jobs are dropped before simulating.
            return;
        };
        let held = shape.held(job, c.procs);
        self.profile.reserve(c.start, c.end, held);
        self.chosen[j] = (c.procs, shape.estimate(job, c.procs), held);
        self.reservation[j] = c.start;
        self.promised[j] = Some(c.start);
        self.waiting.insert((OrdTime(c.start), j));
    }

    fn job_completed(&mut self, j: JobId, ctx: &MoldContext<'_>) {
        let weight = self.readings.weight(&ctx.jobs[j], &ctx.shapes[j]);
        self.weights.remove_weighted(&ctx.shapes[j], weight);
        let (_, est, held) = self.chosen[j];
        let expected_end = self.started_at[j] + est;
        if ctx.now < expected_end && held > 0 {
            self.profile.release(ctx.now, expected_end, held);
            self.profile.prune(ctx.now);
            self.compress(ctx.now);
        }
    }

    fn decide(&mut self, ctx: &MoldContext<'_>, starts: &mut Vec<MoldStart>) {
        let now = ctx.now;
        let mut free = ctx.free_procs;
        let key = OrdTime(if now == 0.0 { 0.0 } else { now });
        let mut due = std::mem::take(&mut self.scratch);
        due.clear();
        due.extend(
            self.waiting
                .range((Bound::Unbounded, Bound::Included((key, JobId::MAX))))
                .copied(),
        );
        for &(res, j) in &due {
            let (procs, _, held) = self.chosen[j];
            if held <= free {
                free -= held;
                starts.push(MoldStart { job: j, procs });
                self.started_at[j] = now;
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

    fn evaluations(&self) -> u64 {
        self.chooser.evaluations
    }
}
