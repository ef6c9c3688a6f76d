//! Workload alignment of Ernemann et al. §IV-A: "we removed all jobs until the first Monday at
//! midnight. Note, that the alignment is related to the local time and so the time
//! differences corresponding to the given time zones are maintained." Table II reports the
//! jobs left; for the ALL_* configurations "all workloads are cut to span only 11 month caused
//! by the smallest workload trace" (§IV-B).
//!
//! [`align_workload`] removes the jobs larger than the site's machine, then applies
//! [`align_first_monday_detailed`] of the workload transforms (the first Monday 00:00 local
//! time at or after the trace's `UnixStartTime`, in the zone of its `TimeZoneString`,
//! daylight saving included), so time 0 of the aligned workload is that Monday midnight,
//! local. [`AlignedWorkload::site`] cuts a copy to a span measured from that Monday and moves
//! it to a time-zone offset ([`crate::grid::Site::from_local`]).

use serde::{Deserialize, Serialize};

use super::site::Site;
use crate::base::Time;
use crate::workload::transform::align_first_monday_detailed;
use crate::workload::{DropCounts, Job, Workload};

/// A workload aligned to its first Monday 00:00 local time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlignedWorkload {
    /// Short name (`CTC`).
    pub name: String,
    /// Machine size the jobs were fitted to.
    pub procs: u32,
    /// Jobs in local time: 0 = the first Monday 00:00 local, sorted by submit time.
    #[serde(skip)]
    pub jobs: Vec<Job>,
    /// `MaxJobs` of the trace header, if given (the paper's "number of jobs").
    pub header_jobs: Option<u64>,
    /// Jobs kept by the reader (after the drops below).
    pub read: usize,
    /// Jobs dropped while reading, plus those larger than the machine.
    pub dropped: DropCounts,
    /// Jobs submitted before the first Monday 00:00 local time (removed).
    pub removed_before_monday: usize,
    /// That Monday as a Unix time, when the trace has a `UnixStartTime`.
    pub monday_utc: Option<i64>,
    /// Remarks (zone taken from a numeric offset, alignment skipped, …).
    pub notes: Vec<String>,
}

/// Fits `w` to a machine of `procs` nodes and aligns it (see the module docs). Without a
/// `UnixStartTime` the workload keeps its own time 0 and a note says so.
pub fn align_workload(name: &str, mut w: Workload, procs: u32) -> AlignedWorkload {
    w.fit_to_machine(procs);
    let read = w.jobs.len();
    let header_jobs = w.header.max_jobs;
    let mut notes = Vec::new();
    let (removed, monday) = match align_first_monday_detailed(&mut w) {
        Ok(a) => {
            if let Some(n) = a.zone_note {
                notes.push(n);
            }
            (a.removed, Some(a.monday_utc))
        }
        Err(e) => {
            notes.push(format!("not aligned: {e}"));
            (0, None)
        }
    };
    AlignedWorkload {
        name: name.to_string(),
        procs,
        jobs: w.jobs,
        header_jobs,
        read,
        dropped: w.dropped,
        removed_before_monday: removed,
        monday_utc: monday,
        notes,
    }
}

impl AlignedWorkload {
    /// Jobs left after the alignment (Table II, "Number of Jobs").
    pub fn kept(&self) -> usize {
        self.jobs.len()
    }

    /// Kept jobs as a percentage of the jobs read (Table II, "% of original").
    pub fn percent_kept(&self) -> f64 {
        if self.read == 0 {
            0.0
        } else {
            100.0 * self.kept() as f64 / self.read as f64
        }
    }

    /// Seconds from the Monday to the last submit time: the span of the workload.
    pub fn span(&self) -> Time {
        self.jobs.last().map(|j| j.submit).unwrap_or(0.0)
    }

    /// The jobs submitted at most `span` seconds after the Monday.
    pub fn cut(&self, span: Time) -> Vec<Job> {
        self.jobs
            .iter()
            .filter(|j| j.submit <= span)
            .cloned()
            .collect()
    }

    /// A site running this workload at `tz_offset_hours`, cut to `span` if given.
    pub fn site(&self, name: &str, tz_offset_hours: f64, span: Option<Time>) -> Site {
        let jobs = match span {
            Some(s) => self.cut(s),
            None => self.jobs.clone(),
        };
        Site::from_local(name, self.procs, tz_offset_hours, jobs)
    }
}

/// The span of the shortest workload (the ALL_* cut, §IV-B).
pub fn shortest_span(workloads: &[&AlignedWorkload]) -> Option<Time> {
    workloads.iter().map(|w| w.span()).reduce(f64::min)
}
