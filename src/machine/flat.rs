//! A flat machine: `total` identical processors, any free subset of which a job may use.
//! It also keeps the running jobs ordered by their expected end (start + estimate), which is
//! what backfilling policies need to compute shadow times.
//!
//! The set holds only the running jobs (a map from job to expected end beside the ordered
//! map), never an array over all job ids: in a grid every site's machine sees ids from the
//! whole grid workload, and six id-sized arrays were most of the grid benchmark's memory
//!.

use std::collections::BTreeMap;

use crate::base::event::time_key;
use crate::base::{id_map_with_capacity, IdMap, JobId, Time};

/// A job currently holding processors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningJob {
    pub job: JobId,
    pub procs: u32,
    pub start: Time,
    /// start + estimate: the latest the job can end (it is killed at its estimate).
    pub expected_end: Time,
}

/// Running jobs indexed by expected end.
#[derive(Clone, Debug, Default)]
pub struct RunningSet {
    /// Keyed by ([`time_key`] of the expected end, job): integer comparisons.
    by_end: BTreeMap<(u64, JobId), RunningJob>,
    /// Expected end of each running job (the only lookup by job id).
    end_of: IdMap<Time>,
    /// Insertions and removals so far.
    changes: u64,
}

impl RunningSet {
    /// An empty set (`n_jobs` is a capacity hint, capped so grids don't pay per site).
    pub fn with_jobs(n_jobs: usize) -> Self {
        RunningSet {
            by_end: BTreeMap::new(),
            end_of: id_map_with_capacity(n_jobs.min(1024)),
            changes: 0,
        }
    }

    fn insert(&mut self, r: RunningJob) {
        self.changes += 1;
        self.end_of.insert(r.job, r.expected_end);
        self.by_end.insert((time_key(r.expected_end), r.job), r);
    }

    fn remove(&mut self, job: JobId) -> Option<RunningJob> {
        let end = self.end_of.remove(&job)?;
        self.changes += 1;
        self.by_end.remove(&(time_key(end), job))
    }

    /// The running job `job`, if it is running.
    pub fn get(&self, job: JobId) -> Option<&RunningJob> {
        let end = *self.end_of.get(&job)?;
        self.by_end.get(&(time_key(end), job))
    }

    /// Running jobs in order of expected end (ties by job id).
    pub fn by_expected_end(&self) -> impl Iterator<Item = &RunningJob> + '_ {
        self.by_end.values()
    }

    /// How many times a job started or ended here: a policy that sees the same count twice
    /// sees the same set (it may keep what it computed from it).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Number of running jobs.
    pub fn len(&self) -> usize {
        self.by_end.len()
    }

    /// `true` when nothing runs.
    pub fn is_empty(&self) -> bool {
        self.by_end.is_empty()
    }
}

/// Error when a start or release does not fit the machine's state.
#[derive(Clone, Debug, PartialEq)]
pub enum MachineError {
    /// Not enough free processors.
    NoCapacity { job: JobId, procs: u32, free: u32 },
    /// The job is already running.
    AlreadyRunning(JobId),
    /// The job is not running.
    NotRunning(JobId),
}

impl std::fmt::Display for MachineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MachineError::NoCapacity { job, procs, free } => write!(
                f,
                "job #{job} needs {procs} processors but only {free} are free"
            ),
            MachineError::AlreadyRunning(j) => write!(f, "job #{j} is already running"),
            MachineError::NotRunning(j) => write!(f, "job #{j} is not running"),
        }
    }
}

/// A pool of identical processors.
#[derive(Clone, Debug)]
pub struct FlatMachine {
    total: u32,
    free: u32,
    running: RunningSet,
}

impl FlatMachine {
    /// A machine of `total` processors, expecting job ids below `n_jobs`.
    pub fn new(total: u32, n_jobs: usize) -> Self {
        FlatMachine {
            total,
            free: total,
            running: RunningSet::with_jobs(n_jobs),
        }
    }

    /// Number of processors.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Number of idle processors.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// The running jobs.
    pub fn running(&self) -> &RunningSet {
        &self.running
    }

    /// Starts a job of `procs` processors at `now` that will end by `expected_end`.
    pub fn start(
        &mut self,
        job: JobId,
        procs: u32,
        now: Time,
        expected_end: Time,
    ) -> Result<(), MachineError> {
        if self.running.end_of.contains_key(&job) {
            return Err(MachineError::AlreadyRunning(job));
        }
        if procs > self.free {
            return Err(MachineError::NoCapacity {
                job,
                procs,
                free: self.free,
            });
        }
        self.free -= procs;
        self.running.insert(RunningJob {
            job,
            procs,
            start: now,
            expected_end,
        });
        Ok(())
    }

    /// Releases the processors of a finished job.
    pub fn release(&mut self, job: JobId) -> Result<RunningJob, MachineError> {
        let r = self
            .running
            .remove(job)
            .ok_or(MachineError::NotRunning(job))?;
        self.free += r.procs;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_and_release_track_capacity() {
        let mut m = FlatMachine::new(10, 4);
        m.start(0, 4, 0.0, 10.0).unwrap();
        m.start(1, 6, 0.0, 5.0).unwrap();
        assert_eq!(m.free(), 0);
        assert!(matches!(
            m.start(2, 1, 0.0, 1.0),
            Err(MachineError::NoCapacity { .. })
        ));
        let ends: Vec<_> = m.running().by_expected_end().map(|r| r.job).collect();
        assert_eq!(ends, vec![1, 0]);
        m.release(1).unwrap();
        assert_eq!(m.free(), 6);
        assert!(m.release(1).is_err());
    }
}
