//! The rigid references of Srinivasan et al. (§1, §3: every figure is the % change against rigid
//! conservative backfilling): the existing flat policies ([`ConservativeBackfilling`],
//! [`EasyBackfilling`]) run unchanged on the trace's size, behind the moldable trait. Under
//! Downey's model the trace's size p is in every job's range and T(p) is the trace's run time,
//! so `rigid_conservative` under the moldable engine is exactly the flat engine's
//! conservative run (tested). Under scalability profiles the size is the trace's p clamped
//! into the profile's range.

use super::{MoldContext, MoldStart, MoldablePolicy};
use crate::base::{JobId, Time};
use crate::policy::{ConservativeBackfilling, Context, EasyBackfilling, Policy};
use crate::workload::Job;

/// A flat policy on the trace's sizes.
pub struct Rigid {
    name: &'static str,
    inner: Box<dyn Policy>,
    /// The jobs with size = the reference count, when some differ from the trace's size.
    resized: Option<Vec<Job>>,
    checked: bool,
    buf: Vec<JobId>,
}

impl Rigid {
    /// Conservative (`true`) or EASY backfilling for `n_jobs` jobs on `procs` processors.
    pub fn new(name: &'static str, conservative: bool, n_jobs: usize, procs: u32) -> Rigid {
        let inner: Box<dyn Policy> = if conservative {
            Box::new(ConservativeBackfilling::new(n_jobs, procs))
        } else {
            Box::new(EasyBackfilling::new(n_jobs))
        };
        Rigid {
            name,
            inner,
            resized: None,
            checked: false,
            buf: Vec::new(),
        }
    }

    /// Builds the resized job list once, if some reference count differs from the trace's.
    fn ensure(&mut self, ctx: &MoldContext<'_>) {
        if self.checked {
            return;
        }
        self.checked = true;
        if ctx
            .jobs
            .iter()
            .zip(ctx.shapes)
            .any(|(j, s)| j.procs != s.base)
        {
            self.resized = Some(
                ctx.jobs
                    .iter()
                    .zip(ctx.shapes)
                    .map(|(j, s)| Job {
                        procs: s.base,
                        ..j.clone()
                    })
                    .collect(),
            );
        }
    }
}

fn flat<'a>(ctx: &MoldContext<'a>, jobs: &'a [Job]) -> Context<'a> {
    Context {
        now: ctx.now,
        jobs,
        total_procs: ctx.total_procs,
        free_procs: ctx.free_procs,
        running: ctx.running,
    }
}

impl MoldablePolicy for Rigid {
    fn name(&self) -> &'static str {
        self.name
    }

    fn job_arrived(&mut self, job: JobId, ctx: &MoldContext<'_>) {
        self.ensure(ctx);
        let jobs = self.resized.as_deref().unwrap_or(ctx.jobs);
        self.inner.job_arrived(job, &flat(ctx, jobs));
    }

    fn job_completed(&mut self, job: JobId, ctx: &MoldContext<'_>) {
        self.ensure(ctx);
        let jobs = self.resized.as_deref().unwrap_or(ctx.jobs);
        self.inner.job_completed(job, &flat(ctx, jobs));
    }

    fn decide(&mut self, ctx: &MoldContext<'_>, starts: &mut Vec<MoldStart>) {
        self.buf.clear();
        self.ensure(ctx);
        let jobs = self.resized.as_deref().unwrap_or(ctx.jobs);
        self.inner.decide(&flat(ctx, jobs), &mut self.buf);
        starts.extend(self.buf.iter().map(|&j| MoldStart {
            job: j,
            procs: ctx.shapes[j].base,
        }));
    }

    fn queue_len(&self) -> usize {
        self.inner.queue_len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.inner.promised_start(job)
    }
}
