//! Workloads: the job model, the Standard Workload Format reader and writer, synthetic
//! models and transforms (load factor, windows, time-zone alignment).

pub mod job;
pub mod moldable;
pub mod shape;
pub mod swf;
pub mod synthetic;
pub mod transform;

use serde::{Deserialize, Serialize};

pub use job::{Job, SharedRecord};
pub use swf::{SwfHeader, SwfRecord};

/// Jobs removed from a workload, counted by reason (Ababneh & Bani-Mohammad §5.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropCounts {
    /// Run time < 0 (unknown run time, e.g. cancelled before start).
    pub negative_runtime: usize,
    /// Size ≤ 0 (neither allocated nor requested processors known).
    pub nonpositive_size: usize,
    /// Size larger than the machine.
    pub too_large: usize,
    /// Malformed lines skipped in lenient mode.
    pub malformed_lines: usize,
}

impl DropCounts {
    /// All dropped jobs and skipped lines.
    pub fn total(&self) -> usize {
        self.negative_runtime + self.nonpositive_size + self.too_large + self.malformed_lines
    }
}

/// A workload ready for simulation: jobs sorted by submit time (ties by file position).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Header of the source trace (synthetic models fill MaxJobs, MaxProcs and a note).
    pub header: SwfHeader,
    /// Kept jobs in arrival order.
    pub jobs: Vec<Job>,
    /// What was dropped while reading and fitting.
    pub dropped: DropCounts,
}

impl Workload {
    /// A workload from jobs in any order: sorts stably by submit time.
    pub fn from_jobs(header: SwfHeader, mut jobs: Vec<Job>) -> Workload {
        // Traces are usually sorted already: then no sort (whose scratch buffer would be up
        // to 8 MB) is needed, and a stable sort would change nothing.
        if !jobs.is_sorted_by(|a, b| a.submit.total_cmp(&b.submit).is_le()) {
            jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit));
        }
        Workload {
            header,
            jobs,
            dropped: DropCounts::default(),
        }
    }

    /// Removes jobs larger than `procs` processors, counting them in `dropped.too_large`.
    pub fn fit_to_machine(&mut self, procs: u32) {
        let before = self.jobs.len();
        self.jobs.retain(|j| j.procs <= procs);
        self.dropped.too_large += before - self.jobs.len();
    }

    /// Largest job size, 0 for an empty workload.
    pub fn max_procs(&self) -> u32 {
        self.jobs.iter().map(|j| j.procs).max().unwrap_or(0)
    }
}
