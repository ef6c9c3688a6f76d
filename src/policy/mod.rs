//! Scheduling policies for flat machines, one file each behind the [`Policy`] trait.
//!
//! A policy is told of arrivals and completions and asked, once per simulated instant (after
//! all completions and then all arrivals at that instant), which waiting jobs to start now.
//! It returns decisions; the engine validates and applies them — a policy never mutates the
//! machine.

pub mod conservative;
pub mod easy;
pub mod fcfs;
pub mod mesh;
pub mod moldable;
pub mod order;
pub mod ordered;
pub mod profile;
pub mod queue_tree;
mod step_tree;
pub mod wait_queue;

pub use conservative::ConservativeBackfilling;
pub use easy::EasyBackfilling;
pub use fcfs::Fcfs;
pub use order::PolicyAxes;
pub use ordered::OrderedBackfilling;

use crate::base::{Entry, Explanation, Family, JobId, Registered, Time, UnknownName};
use crate::machine::RunningSet;
use crate::workload::Job;

/// What a policy may look at when it decides.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The current instant.
    pub now: Time,
    /// All jobs of the workload, indexed by [`JobId`].
    pub jobs: &'a [Job],
    /// Machine size.
    pub total_procs: u32,
    /// Idle processors before this call's decisions.
    pub free_procs: u32,
    /// Running jobs, ordered by expected end.
    pub running: &'a RunningSet,
}

/// A scheduling policy.
pub trait Policy {
    /// Short name (`fcfs`, `easy`, `conservative`).
    fn name(&self) -> &'static str;
    /// The name with the policy's parameters (`easy:sjf`), as reports write it.
    fn full_name(&self) -> String {
        self.name().to_string()
    }
    /// `job` was submitted at `ctx.now`.
    fn job_arrived(&mut self, job: JobId, ctx: &Context<'_>);
    /// `job` finished at `ctx.now`; its processors are already free in `ctx`.
    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>);
    /// Appends the jobs to start now, in order, to `starts`. The total size of the started
    /// jobs must fit in `ctx.free_procs`.
    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>);
    /// Number of jobs waiting in the policy's queue.
    fn queue_len(&self) -> usize;
    /// The first start time this policy promised `job` (a reservation), if it gave one.
    fn promised_start(&self, _job: JobId) -> Option<Time> {
        None
    }
    /// Starts (or stops) recording why jobs wait and start ([`crate::base::explain`]).
    fn explain(&mut self, _on: bool) {}
    /// The explanations recorded so far (empty when off); the policy's log is emptied.
    fn take_explanations(&mut self) -> Vec<Explanation> {
        Vec::new()
    }
}

/// The flat-machine policies by name, as written in experiment files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    Fcfs,
    Easy,
    Conservative,
}

/// The flat-machine policies, each named once (file name, labels, description).
pub const POLICIES: Family = Family {
    key: "policy",
    noun: "policy",
    sep: '-',
    entries: &[
        Entry::plain("fcfs", "FCFS", "First come, first served; no backfilling."),
        Entry {
            short: "EASY",
            ..Entry::plain(
                "easy",
                "EASY backfilling",
                "Backfilling with a reservation for the first queued job only.",
            )
        },
        Entry {
            short: "Conservative",
            ..Entry::aliased(
                "conservative",
                &["cons"],
                "Conservative backfilling",
                "Backfilling with a reservation for every queued job.",
            )
        },
    ],
};

crate::base::registry::registered_enum!(PolicyKind, POLICIES, PolicyKind::ALL);

impl PolicyKind {
    /// All flat-machine policies, in [`POLICIES`] order.
    pub const ALL: [PolicyKind; 3] = [PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative];

    /// A fresh policy instance for a workload of `n_jobs` jobs on `procs` processors.
    pub fn build(self, n_jobs: usize, procs: u32) -> Box<dyn Policy> {
        match self {
            PolicyKind::Fcfs => Box::new(Fcfs::new()),
            PolicyKind::Easy => Box::new(EasyBackfilling::new(n_jobs)),
            PolicyKind::Conservative => Box::new(ConservativeBackfilling::new(n_jobs, procs)),
        }
    }

    /// A fresh policy over `axes` (queue order, backfill order, estimates): this one's own
    /// data structures for the papers' policies (arrival order, requested times), else
    /// [`OrderedBackfilling`].
    pub fn build_with(self, axes: &PolicyAxes, n_jobs: usize, procs: u32) -> Box<dyn Policy> {
        if axes.is_default() {
            self.build(n_jobs, procs)
        } else {
            Box::new(OrderedBackfilling::new(self, axes.clone()))
        }
    }

    /// The name used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// Parses a name; the error lists the valid ones.
    pub fn parse(s: &str) -> Result<PolicyKind, UnknownName> {
        PolicyKind::lookup(s)
    }
}
