//! The rigid job as every policy sees it, with the job semantics of docs/policies.md and
//! Ernemann et al. §III-A: size = allocated processors (field 5) if > 0 else requested (field 8);
//! estimate = requested time (field 9) if > 0 else run time (field 4); a job runs for
//! min(run time, estimate) — it is killed at its estimate.
//!
//! The job's SWF record (18 numbers, three quarters of the job's bytes) sits behind an
//! [`Arc`] in a [`SharedRecord`]: the copies of a job — the simulation's own copy of a
//! workload, the six sites of Ernemann et al.'s CTC_TZ_4 that replay one trace in six time zones —
//! share the record of the parsed trace instead of copying it. [`Job::record_mut`] writes to a
//! job's own record (copying it first when it is shared).
//!
//! A run that writes no SWF output needs none of the fields beyond the job's own values, so the
//! reader can leave the record out ([`crate::workload::swf::ReadOptions::lean`]): the job
//! then holds no allocation besides itself, and [`Job::swf_record`] rebuilds a record from the
//! job's values (as [`Job::new`] fills one) if one is asked for anyway.

use std::ops::Deref;
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
    /// job's copies; absent when the reader was asked to leave records out.
    pub record: SharedRecord,
}

/// Every field unknown: what an absent record reads as.
static UNKNOWN: SwfRecord = SwfRecord::unknown();

/// A job's SWF record shared by the job's copies, or none (a lean workload: see the module
/// documentation). It reads as the record through [`Deref`]; an absent one reads as every field
/// unknown (`-1`), so code that needs the trace's values asks [`Job::swf_record`] or
/// [`SharedRecord::get`]. In JSON it is the record, or `null` when absent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SharedRecord(Option<Arc<SwfRecord>>);

impl SharedRecord {
    /// A record of its own.
    pub fn new(record: SwfRecord) -> SharedRecord {
        SharedRecord(Some(Arc::new(record)))
    }

    /// No record (the job's values only).
    pub const fn none() -> SharedRecord {
        SharedRecord(None)
    }

    /// The record, if it was kept.
    pub fn get(&self) -> Option<&SwfRecord> {
        self.0.as_deref()
    }

    /// The record to write to (copied first when shared), if it was kept.
    pub fn get_mut(&mut self) -> Option<&mut SwfRecord> {
        self.0.as_mut().map(Arc::make_mut)
    }
}

impl Deref for SharedRecord {
    type Target = SwfRecord;

    fn deref(&self) -> &SwfRecord {
        self.0.as_deref().unwrap_or(&UNKNOWN)
    }
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
        let mut record = values_record(id, submit, run_time, estimate, procs);
        edit(&mut record);
        Job {
            record: SharedRecord::new(record),
            ..Job::lean(id, submit, run_time, estimate, procs)
        }
    }

    /// A job without an SWF record ([`Job::swf_record`] rebuilds one from its values).
    pub fn lean(id: u64, submit: Time, run_time: Time, estimate: Time, procs: u32) -> Job {
        Job {
            id,
            submit,
            run_time,
            estimate,
            procs,
            shape: None,
            record: SharedRecord::none(),
        }
    }

    /// The job's SWF record: the one kept, else one rebuilt from the job's values (as
    /// [`Job::new`] fills it).
    pub fn swf_record(&self) -> SwfRecord {
        match self.record.get() {
            Some(r) => *r,
            None => values_record(
                self.id,
                self.submit,
                self.run_time,
                self.estimate,
                self.procs,
            ),
        }
    }

    /// The job's own SWF record, to write to (copied first if another job shares it; rebuilt
    /// from the job's values first when it was left out).
    pub fn record_mut(&mut self) -> &mut SwfRecord {
        let (id, submit, run_time, estimate, procs) = (
            self.id,
            self.submit,
            self.run_time,
            self.estimate,
            self.procs,
        );
        let record = self
            .record
            .0
            .get_or_insert_with(|| Arc::new(values_record(id, submit, run_time, estimate, procs)));
        Arc::make_mut(record)
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

/// The record [`Job::new`] fills from a job's values: number, submit time, run time,
/// processors (allocated and requested), requested time, status 1, the rest unknown.
fn values_record(id: u64, submit: Time, run_time: Time, estimate: Time, procs: u32) -> SwfRecord {
    SwfRecord {
        job_number: id as f64,
        submit_time: submit,
        run_time,
        allocated_procs: procs as f64,
        requested_procs: procs as f64,
        requested_time: estimate,
        status: 1.0,
        ..SwfRecord::unknown()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::swf::{read_swf_bytes, ReadOptions};

    const TRACE: &str = "; MaxProcs: 64\n\
        1 10 0 50 4 -1 -1 4 60 -1 1 7 1 -1 1 -1 -1 -1\n\
        -1 5 0 30.5 -1 -1 -1 8 -1 -1 1 2 1 -1 1 -1 -1 0.5\n";

    #[test]
    fn lean_jobs_have_the_same_values_and_no_record() {
        let full = read_swf_bytes(TRACE.as_bytes(), &ReadOptions::default()).expect("reads");
        let opts = ReadOptions {
            lean: true,
            ..ReadOptions::default()
        };
        let lean = read_swf_bytes(TRACE.as_bytes(), &opts).expect("reads");
        assert_eq!(full.jobs.len(), 2);
        assert_eq!(full.header, lean.header);
        for (f, l) in full.jobs.iter().zip(&lean.jobs) {
            assert_eq!(
                (f.id, f.submit, f.run_time, f.estimate, f.procs, f.shape),
                (l.id, l.submit, l.run_time, l.estimate, l.procs, l.shape)
            );
            assert!(f.record.get().is_some());
            assert!(l.record.get().is_none());
            // An absent record reads as unknown; the rebuilt one holds the job's values.
            assert_eq!(*l.record, SwfRecord::unknown());
            assert_eq!(
                l.swf_record(),
                values_record(l.id, l.submit, l.run_time, l.estimate, l.procs)
            );
        }
        // The job numbered -1 is the second data line; its record keeps the trace's fields.
        assert_eq!(full.jobs[0].id, 2);
        assert_eq!(full.jobs[0].swf_record().think_time, 0.5);
        assert_eq!(full.jobs[0].swf_record().user_id, 2.0);
    }

    #[test]
    fn record_mut_rebuilds_a_left_out_record_and_copies_a_shared_one() {
        let mut lean = Job::lean(3, 10.0, 50.0, 60.0, 4);
        lean.record_mut().user_id = 9.0;
        assert_eq!(
            lean.record.get().map(|r| (r.job_number, r.user_id)),
            Some((3.0, 9.0))
        );

        let a = Job::new(1, 0.0, 5.0, 10.0, 2);
        let mut b = a.clone();
        b.record_mut().submit_time = 7.0;
        assert_eq!(a.record.submit_time, 0.0);
        assert_eq!(b.record.submit_time, 7.0);
    }

    #[test]
    fn records_serialize_as_before_and_absent_ones_as_null() {
        let job = Job::new(1, 0.0, 5.0, 10.0, 2);
        let text = serde_json::to_string(&job).expect("serializes");
        assert!(text.contains(r#""record":{"job_number":1.0"#), "{text}");
        let back: Job = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, job);
        let lean = Job::lean(1, 0.0, 5.0, 10.0, 2);
        let text = serde_json::to_string(&lean).expect("serializes");
        assert!(text.contains(r#""record":null"#), "{text}");
        let back: Job = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, lean);
    }
}
