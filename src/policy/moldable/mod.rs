//! Moldable-job scheduling strategies (Srinivasan et al. §3–5): each decides, for a waiting job, *when*
//! it starts and on *how many* processors of its range, behind the [`MoldablePolicy`] trait.
//!
//! | name | paper | mechanism |
//! |---|---|---|
//! | `rigid_conservative` | §1, the reference of every figure | [`rigid`]: conservative backfilling, the trace's size |
//! | `rigid_easy` | §1 | [`rigid`]: EASY backfilling, the trace's size |
//! | `submit_greedy` | §3.1 (Cirne) | [`submit_time`]: best turnaround at submission, then fixed; conservative |
//! | `submit_fair_share` | §3.2 | [`submit_time`] with the fair-share limit (WF 2, gap 90 %) |
//! | `schedule_fair_share` | §3.3 | [`schedule_time`]: choice at start time, EASY, fair share WF 2 |
//! | `base` | §4 | [`schedule_time`], WF 1, 12 processor choices |
//! | `all_sizes` | §4.1 | base evaluating every partition size over the free-time blocks ([`choice::profile_search`]) |
//! | `modified_wf` | §4.2 | base with the square-root weight fraction |
//! | `corrected_wf` | §4.2 | base with the square root over parallel jobs only |
//! | `category_res` | §4.3 | base + one reservation per weight category ([`reservations`]) |
//! | `xfactor_res` | §4.3 | base + a reservation for every job whose Xfactor exceeds k = 4 |
//! | `category_xfactor` | §4.3 | base + both reservations |
//! | `combined` | §5 | corrected weight fraction + category and Xfactor reservations |
//!
//! The strategies are configurations ([`StrategyConfig`]) of three mechanisms, one file each;
//! the choices where the paper is vague are in `docs/moldable.md`. Like a flat policy, a
//! moldable policy is told of arrivals and completions and asked once per instant which jobs
//! to start and on how many processors ([`MoldStart`]); the engine
//! (`sim::moldable_engine`) checks every start (job waiting, count in its range, processors
//! free) and runs the job for T(count).

pub mod choice;
pub mod readings;
pub mod reservations;
pub mod rigid;
pub mod schedule_time;
pub mod submit_time;

use crate::base::{Entry, Family, JobId, Registered, Time, UnknownName};
use crate::machine::RunningSet;
use crate::workload::moldable::MoldableJob;
use crate::workload::Job;

pub use choice::{Choices, FairShare, WeightRule};
pub use reservations::Reservations;

/// One decision: start `job` now on `procs` processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoldStart {
    pub job: JobId,
    pub procs: u32,
}

/// What a moldable policy may look at.
#[derive(Clone, Copy)]
pub struct MoldContext<'a> {
    /// The current instant.
    pub now: Time,
    /// All jobs (the trace's rigid view: size p, run time and estimate on p).
    pub jobs: &'a [Job],
    /// Each job's range and scaling.
    pub shapes: &'a [MoldableJob],
    /// Machine size N.
    pub total_procs: u32,
    /// Idle processors before this call's decisions.
    pub free_procs: u32,
    /// Running jobs (with the count they run on), ordered by expected end.
    pub running: &'a RunningSet,
}

/// A moldable scheduling strategy.
pub trait MoldablePolicy {
    /// Its registry name.
    fn name(&self) -> &'static str;
    /// `job` was submitted at `ctx.now`.
    fn job_arrived(&mut self, job: JobId, ctx: &MoldContext<'_>);
    /// `job` finished at `ctx.now`; its processors are already free.
    fn job_completed(&mut self, job: JobId, ctx: &MoldContext<'_>);
    /// Appends the jobs to start now, each with its count, to `starts`.
    fn decide(&mut self, ctx: &MoldContext<'_>, starts: &mut Vec<MoldStart>);
    /// Jobs waiting.
    fn queue_len(&self) -> usize;
    /// The first start time promised to `job`, where the strategy keeps its promises
    /// (conservative reservations, EASY's head).
    fn promised_start(&self, _job: JobId) -> Option<Time> {
        None
    }
    /// Partition sizes evaluated so far (the cost of the choice; §4.1).
    fn evaluations(&self) -> u64 {
        0
    }
}

/// The strategies, by name (the `moldable_strategy` family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoldableStrategyKind {
    RigidConservative,
    RigidEasy,
    SubmitGreedy,
    SubmitFairShare,
    ScheduleFairShare,
    Base,
    AllSizes,
    ModifiedWf,
    CorrectedWf,
    CategoryRes,
    XfactorRes,
    CategoryXfactor,
    Combined,
}

const fn e(
    name: &'static str,
    label: &'static str,
    short: &'static str,
    description: &'static str,
) -> Entry {
    Entry {
        name,
        aliases: &[],
        label,
        short,
        description,
        param: None,
    }
}

/// Every moldable strategy, named once.
pub const MOLDABLE_STRATEGIES: Family = Family {
    key: "moldable_strategy",
    noun: "moldable strategy",
    sep: '-',
    entries: &[
        e(
            "rigid_conservative",
            "Rigid conservative backfilling",
            "Rigid cons.",
            "The trace's size, conservative backfilling: the reference of Srinivasan et al.'s figures.",
        ),
        e(
            "rigid_easy",
            "Rigid EASY backfilling",
            "Rigid EASY",
            "The trace's size, EASY (aggressive) backfilling.",
        ),
        e(
            "submit_greedy",
            "Submit-time greedy",
            "Greedy",
            "Cirne's greedy choice: the count of best turnaround at submission, then fixed; conservative backfilling (Srinivasan et al. §3).",
        ),
        e(
            "submit_fair_share",
            "Submit-time fair share",
            "Submit FS",
            "Greedy choice at submission capped by the fair share (weight factor 2, gap factor 90 %); conservative (Srinivasan et al. §3).",
        ),
        e(
            "schedule_fair_share",
            "Schedule-time aggressive fair share",
            "Schedule FS",
            "Count chosen at start time under the fair share (weight factor 2), EASY backfilling (Srinivasan et al. §3).",
        ),
        e(
            "base",
            "Base strategy",
            "Base",
            "Schedule-time aggressive fair share with weight factor 1 and 12 processor choices (Srinivasan et al. §4).",
        ),
        e(
            "all_sizes",
            "All partition sizes",
            "All sizes",
            "Base strategy evaluating every partition size over the free-time blocks, with the early stop (Srinivasan et al. §4.1).",
        ),
        e(
            "modified_wf",
            "Modified weight fraction",
            "Modified WF",
            "Base strategy with the square-root weight fraction (Srinivasan et al. §4.2).",
        ),
        e(
            "corrected_wf",
            "Corrected modified weight fraction",
            "Corrected WF",
            "Base strategy with the square-root weight fraction over parallel jobs only (Srinivasan et al. §4.2).",
        ),
        e(
            "category_res",
            "Category-based reservations",
            "Category res.",
            "Base strategy with one reservation per weight category (10 categories; Srinivasan et al. §4.3).",
        ),
        e(
            "xfactor_res",
            "Xfactor-based reservations",
            "Xfactor res.",
            "Base strategy reserving every job whose Xfactor exceeds k = 4 (Srinivasan et al. §4.3).",
        ),
        e(
            "category_xfactor",
            "Category + Xfactor reservations",
            "Cat.+Xfactor",
            "Base strategy with both enhanced reservation policies (Srinivasan et al. §4.3).",
        ),
        e(
            "combined",
            "Combined scheme",
            "Combined",
            "Corrected modified weight fraction with category and Xfactor reservations, 12 choices, schedule-time EASY (Srinivasan et al. §5).",
        ),
    ],
};

crate::base::registry::registered_serde!(MoldableStrategyKind);

impl Registered for MoldableStrategyKind {
    fn family() -> &'static Family {
        &MOLDABLE_STRATEGIES
    }
    fn key(self) -> (usize, Option<u64>) {
        (self as usize, None)
    }
    fn from_key(i: usize, _: Option<u64>) -> Option<MoldableStrategyKind> {
        MoldableStrategyKind::ALL.get(i).copied()
    }
}

/// How a strategy is put together from the mechanisms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StrategyConfig {
    /// The trace's size under conservative (`true`) or EASY backfilling.
    Rigid { conservative: bool },
    /// Count chosen at submission among `choices`, capped by `fair_share` if any;
    /// conservative backfilling with the count fixed.
    SubmitTime {
        fair_share: Option<FairShare>,
        choices: Choices,
    },
    /// Count chosen at start time under `fair_share`; EASY backfilling plus `reservations`.
    ScheduleTime {
        fair_share: FairShare,
        choices: Choices,
        reservations: Reservations,
    },
}

impl MoldableStrategyKind {
    /// Every strategy, in [`MOLDABLE_STRATEGIES`] order.
    pub const ALL: [MoldableStrategyKind; 13] = [
        MoldableStrategyKind::RigidConservative,
        MoldableStrategyKind::RigidEasy,
        MoldableStrategyKind::SubmitGreedy,
        MoldableStrategyKind::SubmitFairShare,
        MoldableStrategyKind::ScheduleFairShare,
        MoldableStrategyKind::Base,
        MoldableStrategyKind::AllSizes,
        MoldableStrategyKind::ModifiedWf,
        MoldableStrategyKind::CorrectedWf,
        MoldableStrategyKind::CategoryRes,
        MoldableStrategyKind::XfactorRes,
        MoldableStrategyKind::CategoryXfactor,
        MoldableStrategyKind::Combined,
    ];

    /// The name used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// Parses a name; the error lists the valid ones.
    pub fn parse(s: &str) -> Result<MoldableStrategyKind, UnknownName> {
        MoldableStrategyKind::lookup(s)
    }

    /// The strategy's configuration (module table; `docs/moldable.md`).
    pub fn config(self) -> StrategyConfig {
        use MoldableStrategyKind as K;
        let twelve = Choices::Even(12);
        let base = FairShare::base();
        let sched = |fair_share, choices, reservations| StrategyConfig::ScheduleTime {
            fair_share,
            choices,
            reservations,
        };
        match self {
            K::RigidConservative => StrategyConfig::Rigid { conservative: true },
            K::RigidEasy => StrategyConfig::Rigid {
                conservative: false,
            },
            K::SubmitGreedy => StrategyConfig::SubmitTime {
                fair_share: None,
                choices: twelve,
            },
            K::SubmitFairShare => StrategyConfig::SubmitTime {
                fair_share: Some(FairShare::previous()),
                choices: twelve,
            },
            K::ScheduleFairShare => sched(FairShare::previous(), twelve, Reservations::HEAD),
            K::Base => sched(base, twelve, Reservations::HEAD),
            K::AllSizes => sched(base, Choices::Profile, Reservations::HEAD),
            K::ModifiedWf => sched(base.with_rule(WeightRule::Sqrt), twelve, Reservations::HEAD),
            K::CorrectedWf => sched(
                base.with_rule(WeightRule::SqrtParallel),
                twelve,
                Reservations::HEAD,
            ),
            K::CategoryRes => sched(base, twelve, Reservations::CATEGORY),
            K::XfactorRes => sched(base, twelve, Reservations::XFACTOR),
            K::CategoryXfactor => sched(base, twelve, Reservations::BOTH),
            K::Combined => sched(
                base.with_rule(WeightRule::SqrtParallel),
                twelve,
                Reservations::BOTH,
            ),
        }
    }

    /// A fresh strategy for `n_jobs` jobs on `procs` processors under other readings of
    /// §3–4.3 ([`readings`]): the fair-share weight for the submit- and schedule-time
    /// strategies, the Xfactor and category readings for the schedule-time ones; the rigid
    /// references are built as by [`MoldableStrategyKind::build`].
    pub fn build_with(
        self,
        n_jobs: usize,
        procs: u32,
        readings: readings::Readings,
    ) -> Box<dyn MoldablePolicy> {
        match self.config() {
            StrategyConfig::ScheduleTime {
                fair_share,
                choices,
                reservations,
            } => Box::new(
                schedule_time::ScheduleTime::new(
                    self.as_str(),
                    fair_share,
                    choices,
                    reservations,
                    n_jobs,
                )
                .with_readings(readings),
            ),
            StrategyConfig::SubmitTime {
                fair_share,
                choices,
            } => Box::new(
                submit_time::SubmitTime::new(self.as_str(), fair_share, choices, n_jobs, procs)
                    .with_readings(readings),
            ),
            StrategyConfig::Rigid { .. } => self.build(n_jobs, procs),
        }
    }

    /// A fresh strategy for `n_jobs` jobs on `procs` processors.
    pub fn build(self, n_jobs: usize, procs: u32) -> Box<dyn MoldablePolicy> {
        let name = self.as_str();
        match self.config() {
            StrategyConfig::Rigid { conservative } => {
                Box::new(rigid::Rigid::new(name, conservative, n_jobs, procs))
            }
            StrategyConfig::SubmitTime {
                fair_share,
                choices,
            } => Box::new(submit_time::SubmitTime::new(
                name, fair_share, choices, n_jobs, procs,
            )),
            StrategyConfig::ScheduleTime {
                fair_share,
                choices,
                reservations,
            } => Box::new(schedule_time::ScheduleTime::new(
                name,
                fair_share,
                choices,
                reservations,
                n_jobs,
            )),
        }
    }
}
