//! Sites of a grid (Ernemann et al. §III-A): each site has one flat machine (an MPP of identical
//! single-processor nodes, space-shared, no preemption), its own local workload and a
//! time-zone offset. Also the two grid modes of §III-C/§IV-B and the grid's error type.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::base::Time;
use crate::machine::MachineError;
use crate::workload::{Job, SwfHeader, Workload};

/// Seconds in an hour.
pub const HOUR: f64 = 3_600.0;

/// One site: a flat machine of `procs` nodes with its local workload.
///
/// `jobs` are in *grid time* and arrival order: grid time 0 is Monday 00:00 local time at a
/// site with offset 0, and a site with offset `h` hours has its own local Monday 00:00 at grid
/// time `h · 3600` (Table III's "(CTC, +6h)"). The local time of a grid time `t` at this site
/// is therefore `t − h · 3600` seconds after its local Monday 00:00 ([`Site::local_time`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Site {
    /// Name shown in reports (e.g. `CTC#2`).
    pub name: String,
    /// Number of nodes of the machine.
    pub procs: u32,
    /// Time-zone offset in hours (Table III); local Monday 00:00 is at grid time h · 3600.
    pub tz_offset_hours: f64,
    /// The local workload in grid time, sorted by submit time.
    pub jobs: Vec<Job>,
}

impl Site {
    /// A site with jobs given in its *local* time (0 = local Monday 00:00); they are sorted
    /// stably by submit time and moved to grid time by adding `tz_offset_hours · 3600` to
    /// each submit time — the arithmetic of
    /// [`shift_time_zone`](crate::workload::transform::shift_time_zone) of the workload transforms —
    /// but unlike that transform the SWF records are left as read: the sites that replay one
    /// trace share its records, so a record's submit time stays the trace's
    /// local one and the grid time is [`Job::submit`] (nothing in the grid reads records).
    pub fn from_local(name: &str, procs: u32, tz_offset_hours: f64, jobs: Vec<Job>) -> Site {
        let mut jobs = Workload::from_jobs(SwfHeader::default(), jobs).jobs;
        if tz_offset_hours.is_finite() && tz_offset_hours != 0.0 {
            let d = tz_offset_hours * HOUR;
            for job in &mut jobs {
                job.submit += d;
            }
        }
        Site {
            name: name.to_string(),
            procs,
            tz_offset_hours,
            jobs,
        }
    }

    /// Seconds since this site's local Monday 00:00 at grid time `t`.
    pub fn local_time(&self, t: Time) -> Time {
        t - self.tz_offset_hours * HOUR
    }
}

/// How jobs are scheduled in the grid (§III-C, §IV-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sharing {
    /// Each site schedules only its own jobs ("Trace_single", the reference).
    Single,
    /// Job sharing: the central grid scheduler sends every job to the machine with the
    /// earliest start, ties by BestFit (see [`crate::grid::dispatch`]).
    JobSharing,
}

impl Sharing {
    /// `single` or `sharing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sharing::Single => "single",
            Sharing::JobSharing => "sharing",
        }
    }
}

/// Everything that can make a grid run impossible.
#[derive(Clone, Debug, PartialEq)]
pub enum GridError {
    /// The grid has no site.
    NoSites,
    /// A site has a machine of 0 nodes.
    EmptyMachine { site: String },
    /// A time-zone offset that is not a finite number of hours within ±168.
    BadOffset { site: String },
    /// More sites than the engine can index.
    TooManySites(usize),
    /// A job is larger than its home machine (remove such jobs before building the grid).
    JobTooLarge {
        site: String,
        job: u64,
        procs: u32,
        machine: u32,
    },
    /// A job has a submit time, run time or estimate that is not a finite number ≥ 0
    /// (negative submit times are allowed).
    BadJob {
        site: String,
        job: u64,
        field: &'static str,
    },
    /// A local policy started a job that is not waiting at that site.
    NotWaiting {
        site: String,
        policy: String,
        job: u64,
    },
    /// A local policy's starts do not fit its machine.
    Machine {
        site: String,
        policy: String,
        error: MachineError,
    },
    /// Every event is processed but jobs still wait.
    Stalled { waiting: usize },
    /// No site can ever run a job (cannot happen after the size check; defensive).
    NoSiteFits { job: u64 },
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridError::NoSites => write!(f, "the grid has no site"),
            GridError::EmptyMachine { site } => write!(f, "site {site} has a machine of 0 nodes"),
            GridError::BadOffset { site } => {
                write!(f, "site {site} needs a time-zone offset within ±168 hours")
            }
            GridError::TooManySites(n) => write!(f, "{n} sites are more than the grid supports"),
            GridError::JobTooLarge {
                site,
                job,
                procs,
                machine,
            } => write!(
                f,
                "job {job} of site {site} needs {procs} nodes but the machine has {machine}"
            ),
            GridError::BadJob { site, job, field } => {
                write!(f, "job {job} of site {site} has an invalid {field}")
            }
            GridError::NotWaiting { site, policy, job } => write!(
                f,
                "policy {policy} at site {site} started job {job}, which is not waiting there"
            ),
            GridError::Machine {
                site,
                policy,
                error,
            } => {
                write!(
                    f,
                    "policy {policy} at site {site} made an impossible start: {error}"
                )
            }
            GridError::Stalled { waiting } => {
                write!(f, "{waiting} jobs still wait after the last event")
            }
            GridError::NoSiteFits { job } => write!(f, "no machine of the grid fits job {job}"),
        }
    }
}

impl std::error::Error for GridError {}
