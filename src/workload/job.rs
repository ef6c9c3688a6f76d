//! The rigid job as every policy sees it, with the job semantics of docs/policies.md and
//! Ernemann et al. §III-A: size = allocated processors (field 5) if > 0 else requested (field 8);
//! estimate = requested time (field 9) if > 0 else run time (field 4); a job runs for
//! min(run time, estimate) — it is killed at its estimate.
//!
//! The job's SWF record (18 numbers, three quarters of the job's bytes) sits behind an
//! [`Arc`]: the copies of a job — the simulation's own copy of a workload, the six sites of
//! Ernemann et al.'s CTC_TZ_4 that replay one trace in six time zones — share the record of the
//! parsed trace instead of copying it. [`Job::record_mut`] writes to a job's
//! own record (copying it first when it is shared).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::base::Time;
use crate::workload::swf::SwfRecord;

/// One job of a workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// SWF job number (field 1), or a running number for synthetic jobs.
    pub id: u64,
    /// Submit time (field 2).
    pub submit: Time,
    /// Actual run time from the trace (field 4), never negative for a kept job.
    pub run_time: Time,
    /// The user's estimate (field 9, else the run time).
    pub estimate: Time,
    /// Number of processors (field 5, else field 8).
    pub procs: u32,
    /// Submesh shape (width, height) for mesh machines; `None` on flat machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<(u32, u32)>,
    /// The full SWF record this job came from (synthetic jobs get one too), shared by the
    /// job's copies.
    pub record: Arc<SwfRecord>,
}

impl Job {
    /// Builds a job from the essential values, filling the SWF record consistently.
    pub fn new(id: u64, submit: Time, run_time: Time, estimate: Time, procs: u32) -> Job {
        Job::new_with(id, submit, run_time, estimate, procs, |_| {})
    }

    /// [`Job::new`] with the SWF record changed by `edit` before it is shared (no copy).
    pub fn new_with(
        id: u64,
        submit: Time,
        run_time: Time,
        estimate: Time,
        procs: u32,
        edit: impl FnOnce(&mut SwfRecord),
    ) -> Job {
        let mut record = SwfRecord {
            job_number: id as f64,
            submit_time: submit,
            run_time,
            allocated_procs: procs as f64,
            requested_procs: procs as f64,
            requested_time: estimate,
            status: 1.0,
            ..SwfRecord::unknown()
        };
        edit(&mut record);
        Job {
            id,
            submit,
            run_time,
            estimate,
            procs,
            shape: None,
            record: Arc::new(record),
        }
    }

    /// The job's own SWF record, to write to (copied first if another job shares it).
    pub fn record_mut(&mut self) -> &mut SwfRecord {
        Arc::make_mut(&mut self.record)
    }

    /// How long the job occupies its processors: min(run time, estimate).
    pub fn duration(&self) -> Time {
        if self.run_time < self.estimate {
            self.run_time
        } else {
            self.estimate
        }
    }

    /// Processors the job holds for a positive time: its size, or 0 when its estimate is 0
    /// (such a job can only run for zero time, so it never competes for processors).
    pub fn procs_held(&self) -> u32 {
        if self.estimate > 0.0 {
            self.procs
        } else {
            0
        }
    }

    /// Squashed area of the executed job: processors × duration (Ernemann et al. eq. 2).
    pub fn area(&self) -> f64 {
        self.procs as f64 * self.duration()
    }
}
