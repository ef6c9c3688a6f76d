//! Per-job metrics: wait, turnaround (response), slowdown and bounded slowdown.

use serde::{Deserialize, Serialize};

use crate::sim::{JobOutcome, SimResult};
use crate::workload::Job;

/// τ of the bounded slowdown, in seconds (Feitelson et al.).
pub const BOUNDED_SLOWDOWN_TAU: f64 = 10.0;

/// One row of the per-job table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// SWF job number.
    pub id: u64,
    pub submit: f64,
    pub start: f64,
    pub end: f64,
    pub procs: u32,
    /// Actual run time from the trace.
    pub run_time: f64,
    pub estimate: f64,
    /// start − submit.
    pub wait: f64,
    /// end − submit (response time).
    pub turnaround: f64,
    /// turnaround / (end − start); 1 for a job that ran for zero time.
    pub slowdown: f64,
    /// max(1, turnaround / max(end − start, τ)).
    pub bounded_slowdown: f64,
}

impl JobRecord {
    /// The CSV header, in field order.
    pub const CSV_HEADER: &'static str =
        "id,submit,start,end,procs,run_time,estimate,wait,turnaround,slowdown,bounded_slowdown";

    /// This record as a CSV line (no newline).
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.id,
            self.submit,
            self.start,
            self.end,
            self.procs,
            self.run_time,
            self.estimate,
            self.wait,
            self.turnaround,
            self.slowdown,
            self.bounded_slowdown
        )
    }
}

impl JobRecord {
    /// The record of `job` that ran from `outcome.start` to `outcome.end`.
    pub fn of(job: &Job, outcome: &JobOutcome) -> JobRecord {
        let run = outcome.end - outcome.start;
        let turnaround = outcome.end - job.submit;
        let slowdown = if run > 0.0 { turnaround / run } else { 1.0 };
        let bounded = turnaround / run.max(BOUNDED_SLOWDOWN_TAU);
        JobRecord {
            id: job.id,
            submit: job.submit,
            start: outcome.start,
            end: outcome.end,
            procs: job.procs,
            run_time: job.run_time,
            estimate: job.estimate,
            wait: outcome.start - job.submit,
            turnaround,
            slowdown,
            bounded_slowdown: if bounded > 1.0 { bounded } else { 1.0 },
        }
    }
}

/// Records of the jobs that started (outcomes with a start time), in order.
pub fn records_of(jobs: &[Job], outcomes: &[JobOutcome]) -> Vec<JobRecord> {
    records_iter(jobs, outcomes).collect()
}

/// [`records_of`] one record at a time, for a caller that needs no vector of them; the
/// outcomes are a slice or any iterator of them in arrival order (a run that keeps them in
/// another form).
pub fn records_iter<'a, O>(
    jobs: &'a [Job],
    outcomes: impl IntoIterator<Item = O> + 'a,
) -> impl Iterator<Item = JobRecord> + 'a
where
    O: std::borrow::Borrow<JobOutcome>,
{
    jobs.iter()
        .zip(outcomes)
        .filter(|(_, o)| !o.borrow().start.is_nan())
        .map(|(job, o)| JobRecord::of(job, o.borrow()))
}

/// Per-job records of a run, in arrival order. Jobs that never started (an interrupted run)
/// are left out.
pub fn job_records(result: &SimResult) -> Vec<JobRecord> {
    records_of(&result.jobs, &result.outcomes)
}
