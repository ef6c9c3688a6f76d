//! Local scheduling at each site (Ernemann et al. §III-C): "backfilling" that does not postpone any
//! next job in the list — conservative backfilling — or EASY backfilling, where only the next
//! job is not delayed. Both are the flat-machine policies of [`crate::policy`], used as they
//! are; this module adds what the central grid scheduler needs from a site: the earliest
//! start time it can offer a new job ([`LocalScheduler::offer`]).
//!
//! * **Conservative backfilling** keeps a reservation for every waiting job in its
//!   free-processor [`Profile`]; the offer is the earliest fit in that very profile — exactly
//!   the reservation the job gets if it is sent there.
//! * **EASY backfilling** keeps no reservations beyond the queue head. The offer is the
//!   earliest fit in a *projected* profile: running jobs until start + estimate, then every
//!   job waiting at the site placed at its earliest fit in arrival order (the greedy list
//!   schedule §III-C starts from). EASY may later start the job earlier (by backfilling) or
//!   later (a backfilled job may take its place) — the offer is the grid scheduler's
//!   prediction, not a promise. The projection is cached and rebuilt only after the site
//!   changed (a start or completion there); a job sent to the site is appended to it, which
//!   is what a rebuild would do.

use crate::base::{Entry, Family, JobId, Registered, Time, UnknownName};
use crate::machine::FlatMachine;
use crate::policy::profile::Profile;
use crate::policy::{ConservativeBackfilling, EasyBackfilling, Policy};
use crate::workload::Job;

/// The local scheduling strategy of every site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalPolicy {
    /// EASY backfilling (only the queue head is never delayed).
    Easy,
    /// Conservative backfilling (the paper's "backfilling": no job is ever delayed).
    Conservative,
}

/// The local strategies of a grid site, each named once: `label` is the paper's name, `short`
/// the page's.
pub const GRID_POLICIES: Family = Family {
    key: "grid_policy",
    noun: "grid policy",
    sep: '-',
    entries: &[
        Entry::plain(
            "easy",
            "EASY backfilling",
            "EASY backfilling at every site; the offer to the grid scheduler is the earliest fit in a projected profile (Ernemann et al. §III-C).",
        ),
        Entry {
            short: "Conservative backfilling",
            ..Entry::aliased(
                "conservative",
                &["cons", "backfilling"],
                "backfilling",
                "The paper's \"backfilling\" (conservative): no waiting job is ever delayed; the offer is its reservation (Ernemann et al. §III-C).",
            )
        },
    ],
};

crate::base::registry::registered_enum!(LocalPolicy, GRID_POLICIES, LocalPolicy::ALL);

impl LocalPolicy {
    /// Both strategies, EASY first (the paper's main results use EASY).
    pub const ALL: [LocalPolicy; 2] = [LocalPolicy::Easy, LocalPolicy::Conservative];

    /// `easy` or `conservative`.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// The paper's name: "EASY backfilling" or "backfilling".
    pub fn paper_name(self) -> &'static str {
        self.entry().label
    }

    /// Parses `easy`, `conservative`, `cons` or `backfilling`; the error lists the names.
    pub fn parse(s: &str) -> Result<LocalPolicy, UnknownName> {
        LocalPolicy::lookup(s)
    }
}

/// The concrete policy of a site.
#[derive(Clone, Debug)]
enum Local {
    Easy(EasyBackfilling),
    Conservative(ConservativeBackfilling),
}

/// A site's local scheduler plus what the grid scheduler asks of it.
#[derive(Clone, Debug)]
pub struct LocalScheduler {
    local: Local,
    /// Jobs sent to this site and not started yet, in arrival order.
    waiting: Vec<JobId>,
    /// EASY only: the cached projected profile, `None` when stale.
    projection: Option<Profile>,
    scratch: Vec<(Time, u32)>,
    /// How often the EASY projection was rebuilt (for benchmarks).
    rebuilds: u64,
}

impl LocalScheduler {
    /// A fresh scheduler for job ids below `n_jobs` on a machine of `procs` nodes.
    pub fn new(kind: LocalPolicy, n_jobs: usize, procs: u32) -> LocalScheduler {
        let local = match kind {
            LocalPolicy::Easy => Local::Easy(EasyBackfilling::new(n_jobs)),
            LocalPolicy::Conservative => {
                Local::Conservative(ConservativeBackfilling::new(n_jobs, procs))
            }
        };
        LocalScheduler {
            local,
            waiting: Vec::new(),
            projection: None,
            scratch: Vec::new(),
            rebuilds: 0,
        }
    }

    /// The flat-machine policy, to be told of arrivals and completions and asked to decide.
    pub fn policy_mut(&mut self) -> &mut dyn Policy {
        match &mut self.local {
            Local::Easy(p) => p,
            Local::Conservative(p) => p,
        }
    }

    /// The flat-machine policy (read only).
    pub fn policy(&self) -> &dyn Policy {
        match &self.local {
            Local::Easy(p) => p,
            Local::Conservative(p) => p,
        }
    }

    /// Jobs sent here and not started yet, in arrival order.
    pub fn waiting(&self) -> &[JobId] {
        &self.waiting
    }

    /// How often the EASY projection was rebuilt.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// The earliest start this site can offer `job` at `now`, with the number of nodes that
    /// would still be free at that instant once the job is placed (BestFit's measure). `None`
    /// if the job is larger than the machine.
    pub fn offer(
        &mut self,
        job: &Job,
        jobs: &[Job],
        machine: &FlatMachine,
        now: Time,
    ) -> Option<(Time, u32)> {
        if job.procs > machine.total() {
            return None;
        }
        let held = job.procs_held();
        let profile = match &self.local {
            Local::Conservative(p) => p.profile(),
            Local::Easy(_) => {
                if self.projection.is_none() {
                    self.projection = Some(self.build_projection(jobs, machine, now));
                    self.rebuilds += 1;
                }
                self.projection.as_ref()?
            }
        };
        let start = if held == 0 {
            now
        } else {
            profile.earliest_fit(now, held, job.estimate)?
        };
        let free = profile.free_at(start).saturating_sub(held);
        Some((start, free))
    }

    /// Running jobs until start + estimate, then the waiting jobs at their earliest fit in
    /// arrival order. Running jobs go in by decreasing expected end, so that each one only
    /// lowers the first step of the profile.
    fn build_projection(&mut self, jobs: &[Job], machine: &FlatMachine, now: Time) -> Profile {
        let mut p = Profile::new(machine.total(), now);
        self.scratch.clear();
        self.scratch.extend(
            machine
                .running()
                .by_expected_end()
                .map(|r| (r.expected_end, r.procs)),
        );
        for &(end, procs) in self.scratch.iter().rev() {
            // Running jobs always fit the machine; a refusal would only mean end ≤ now.
            let _ = p.reserve(now, end, procs);
        }
        for &j in &self.waiting {
            if let Some(job) = jobs.get(j) {
                place(&mut p, job, now);
            }
        }
        p
    }

    /// `job` (id `j`) was sent to this site at `now`: it waits here; the EASY projection
    /// gets it at its earliest fit, which is what a rebuild would give.
    pub fn dispatched(&mut self, j: JobId, job: &Job, now: Time) {
        self.waiting.push(j);
        if let Some(p) = self.projection.as_mut() {
            place(p, job, now);
        }
    }

    /// Jobs of this site started or completed: the projection is stale. `still_waiting`
    /// tells which of the waiting jobs have not started.
    pub fn changed(&mut self, still_waiting: impl Fn(JobId) -> bool) {
        self.projection = None;
        self.waiting.retain(|&j| still_waiting(j));
    }

    /// A job of this site completed: the projection is stale.
    pub fn completed(&mut self) {
        self.projection = None;
    }
}

/// Reserves `job` at its earliest fit from `now` on.
fn place(p: &mut Profile, job: &Job, now: Time) {
    let held = job.procs_held();
    if held == 0 {
        return;
    }
    if let Some(s) = p.earliest_fit(now, held, job.estimate) {
        let _ = p.reserve(s, s + job.estimate, held);
    }
}
