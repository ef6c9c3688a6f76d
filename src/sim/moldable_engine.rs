//! The moldable engine (Srinivasan et al. §2–5): the one engine loop ([`super::instant`]) with a
//! [`FlatMachine`] and a [`MoldablePolicy`] as its instance. A decision names a job *and* its
//! processor count ([`MoldStart`]); the engine checks that the job waits, that the count lies
//! in the job's range and that the processors are free, then runs the job for T(count) (the
//! trace's run time scaled by the job's speedup, [`MoldableJob::run_time`]) and tells the
//! machine it ends by start + the estimate scaled the same way (what backfilling plans with).

use std::fmt;

use super::instant::{Engine, Instance, JobOutcome, JobTable, StepReport};
use crate::base::event::EventQueue;
use crate::base::{JobId, Time};
use crate::machine::{FlatMachine, MachineError};
use crate::policy::moldable::{MoldContext, MoldStart, MoldablePolicy, MoldableStrategyKind};
use crate::workload::moldable::MoldableJob;
use crate::workload::Job;

/// A moldable simulation that cannot go on.
#[derive(Clone, Debug, PartialEq)]
pub enum MoldSimError {
    /// The strategy started a job that is not waiting.
    NotWaiting { strategy: String, job: u64 },
    /// The strategy chose a count outside the job's range.
    OutOfRange {
        strategy: String,
        job: u64,
        procs: u32,
        min: u32,
        max: u32,
    },
    /// The strategy's starts do not fit the machine.
    Machine {
        strategy: String,
        error: MachineError,
    },
    /// Every event is processed but jobs are still waiting.
    Stalled { strategy: String, waiting: usize },
    /// The workload and its moldable view differ in length.
    Shapes { jobs: usize, shapes: usize },
}

impl fmt::Display for MoldSimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoldSimError::NotWaiting { strategy, job } => {
                write!(f, "strategy {strategy} started job {job}, which is not waiting")
            }
            MoldSimError::OutOfRange {
                strategy,
                job,
                procs,
                min,
                max,
            } => write!(
                f,
                "strategy {strategy} gave job {job} {procs} processors, outside its range {min}..={max}"
            ),
            MoldSimError::Machine { strategy, error } => {
                write!(f, "strategy {strategy} made an impossible start: {error}")
            }
            MoldSimError::Stalled { strategy, waiting } => write!(
                f,
                "strategy {strategy} left {waiting} jobs waiting after the last event"
            ),
            MoldSimError::Shapes { jobs, shapes } => write!(
                f,
                "{jobs} jobs but {shapes} moldable descriptions"
            ),
        }
    }
}

impl std::error::Error for MoldSimError {}

/// The finished run.
#[derive(Clone, Debug, PartialEq)]
pub struct MoldableResult {
    pub strategy: String,
    pub procs: u32,
    pub jobs: Vec<Job>,
    pub shapes: Vec<MoldableJob>,
    pub outcomes: Vec<JobOutcome>,
    /// The count each job ran on (0: never started).
    pub chosen: Vec<u32>,
    /// The first start time the strategy promised each job, where it keeps promises.
    pub promised: Vec<Option<Time>>,
    /// Partition sizes the strategy evaluated (§4.1's cost).
    pub evaluations: u64,
}

/// The machine, the strategy and the jobs' ranges: the [`Instance`] of the moldable engine.
pub struct Moldable {
    machine: FlatMachine,
    policy: Box<dyn MoldablePolicy>,
    shapes: Vec<MoldableJob>,
    chosen: Vec<u32>,
    held: Vec<u32>,
}

/// A moldable simulation of one workload under one strategy.
pub type MoldableSimulation = Engine<Moldable>;

impl Engine<Moldable> {
    /// A simulation of `jobs` (arrival order, each at most `procs` in size) with their
    /// moldable view `shapes` on `procs` processors under `policy`.
    pub fn moldable(
        jobs: Vec<Job>,
        shapes: Vec<MoldableJob>,
        procs: u32,
        policy: Box<dyn MoldablePolicy>,
    ) -> Result<Self, MoldSimError> {
        if jobs.len() != shapes.len() {
            return Err(MoldSimError::Shapes {
                jobs: jobs.len(),
                shapes: shapes.len(),
            });
        }
        let n = jobs.len();
        Ok(Engine::with_instance(
            jobs,
            Moldable {
                machine: FlatMachine::new(procs, n),
                policy,
                shapes,
                chosen: vec![0; n],
                held: vec![0; n],
            },
        ))
    }

    /// The same under strategy `kind`.
    pub fn moldable_by_kind(
        jobs: Vec<Job>,
        shapes: Vec<MoldableJob>,
        procs: u32,
        kind: MoldableStrategyKind,
    ) -> Result<Self, MoldSimError> {
        let policy = kind.build(jobs.len(), procs);
        Engine::moldable(jobs, shapes, procs, policy)
    }
}

impl Moldable {
    fn name(&self) -> String {
        self.policy.name().to_string()
    }
}

fn context<'a>(
    table: &'a JobTable,
    machine: &'a FlatMachine,
    shapes: &'a [MoldableJob],
) -> MoldContext<'a> {
    MoldContext {
        now: table.now(),
        jobs: table.jobs(),
        shapes,
        total_procs: machine.total(),
        free_procs: machine.free(),
        running: machine.running(),
    }
}

impl Instance for Moldable {
    type Start = MoldStart;
    type Error = MoldSimError;
    type Report = StepReport;
    type Output = MoldableResult;

    fn job_of(start: MoldStart) -> JobId {
        start.job
    }

    fn complete(&mut self, table: &JobTable, j: JobId) -> Result<(), MoldSimError> {
        if self.held[j] > 0 {
            self.machine
                .release(j)
                .map_err(|error| MoldSimError::Machine {
                    strategy: self.name(),
                    error,
                })?;
        }
        let ctx = context(table, &self.machine, &self.shapes);
        self.policy.job_completed(j, &ctx);
        Ok(())
    }

    fn arrive(&mut self, table: &JobTable, j: JobId) -> Result<(), MoldSimError> {
        let ctx = context(table, &self.machine, &self.shapes);
        self.policy.job_arrived(j, &ctx);
        Ok(())
    }

    fn decide(&mut self, _d: usize, table: &JobTable, starts: &mut Vec<MoldStart>) {
        let ctx = context(table, &self.machine, &self.shapes);
        self.policy.decide(&ctx, starts);
    }

    fn not_waiting(&self, _d: usize, job: u64) -> MoldSimError {
        MoldSimError::NotWaiting {
            strategy: self.name(),
            job,
        }
    }

    fn start(&mut self, _d: usize, table: &JobTable, s: MoldStart) -> Result<Time, MoldSimError> {
        let j = s.job;
        let job = &table.jobs()[j];
        let shape = &self.shapes[j];
        if !shape.allows(s.procs) {
            return Err(MoldSimError::OutOfRange {
                strategy: self.name(),
                job: job.id,
                procs: s.procs,
                min: shape.min,
                max: shape.max,
            });
        }
        let now = table.now();
        let held = shape.held(job, s.procs);
        let est = shape.estimate(job, s.procs);
        let run = shape.run_time(job, s.procs);
        if held > 0 {
            self.machine
                .start(j, held, now, now + est)
                .map_err(|error| MoldSimError::Machine {
                    strategy: self.policy.name().to_string(),
                    error,
                })?;
        }
        self.chosen[j] = s.procs;
        self.held[j] = held;
        Ok(now + run)
    }

    fn stalled(&self, waiting: usize) -> MoldSimError {
        MoldSimError::Stalled {
            strategy: self.name(),
            waiting,
        }
    }

    fn finish_instant(
        &mut self,
        _table: &JobTable,
        _completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<StepReport, MoldSimError> {
        Ok(report)
    }

    fn result(self, table: JobTable) -> MoldableResult {
        let n = table.jobs().len();
        let promised = (0..n).map(|j| self.policy.promised_start(j)).collect();
        let evaluations = self.policy.evaluations();
        let strategy = self.name();
        let (jobs, outcomes) = table.into_parts();
        MoldableResult {
            strategy,
            procs: self.machine.total(),
            jobs,
            shapes: self.shapes,
            outcomes,
            chosen: self.chosen,
            promised,
            evaluations,
        }
    }
}
