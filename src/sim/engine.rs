//! The discrete-event engine for flat machines (Srinivasan et al. §2, Ernemann et al. §III-C's local
//! machines): the one engine loop ([`super::instant`]) with a [`FlatMachine`] and a
//! [`Policy`] as its instance.
//!
//! At each instant: all completions at that time (by (time, sequence)), then all arrivals at
//! that time (in arrival order), then the policy is asked once which jobs to start; each start
//! is validated (the job waits, the processors are free). `step` processes one instant,
//! `step_until(t)` every instant up to `t`, `step_instants(n)` at most `n` instants — so a web
//! worker can report progress and stop.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::instant::{Engine, Instance, JobTable};
pub use super::instant::{JobOutcome, Progress, StepReport};
use crate::base::event::EventQueue;
use crate::base::{Explanation, JobId, Time};
use crate::machine::{FlatMachine, MachineError};
use crate::policy::{Context, Policy};
use crate::workload::Job;

/// One point of the utilisation / queue-length timeline.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint {
    pub time: Time,
    /// Processors in use from this time on.
    pub busy: u32,
    /// Jobs waiting from this time on.
    pub queued: u32,
}

/// A simulation that cannot go on.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The policy started a job that is not waiting.
    NotWaiting { policy: String, job: u64 },
    /// The policy's starts do not fit the machine.
    Machine { policy: String, error: MachineError },
    /// Every event is processed but jobs are still waiting on an idle machine.
    Stalled { policy: String, waiting: usize },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::NotWaiting { policy, job } => {
                write!(f, "policy {policy} started job {job}, which is not waiting")
            }
            SimError::Machine { policy, error } => {
                write!(f, "policy {policy} made an impossible start: {error}")
            }
            SimError::Stalled { policy, waiting } => write!(
                f,
                "policy {policy} left {waiting} jobs waiting after the last event"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// The finished run: when each job started and ended, plus the policy's promises.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    pub policy: String,
    pub procs: u32,
    pub jobs: Vec<Job>,
    pub outcomes: Vec<JobOutcome>,
    /// First reservation each job was given, where the policy gives reservations.
    pub promised: Vec<Option<Time>>,
    pub timeline: Vec<TimelinePoint>,
    /// Why each job waited and started, when the run recorded it
    /// ([`Engine::with_explanations`]); empty otherwise.
    pub explanations: Vec<Explanation>,
}

/// The flat machine and its policy: the [`Instance`] of the flat engine.
pub struct Flat {
    machine: FlatMachine,
    policy: Box<dyn Policy>,
    timeline: Option<Vec<TimelinePoint>>,
}

/// A flat-machine simulation of one workload under one policy.
pub type Simulation = Engine<Flat>;

impl Engine<Flat> {
    /// A simulation of `jobs` (in arrival order, each at most `procs` in size) on a flat
    /// machine of `procs` processors under `policy`.
    pub fn new(jobs: Vec<Job>, procs: u32, policy: Box<dyn Policy>) -> Self {
        let machine = FlatMachine::new(procs, jobs.len());
        Engine::with_instance(
            jobs,
            Flat {
                machine,
                policy,
                timeline: None,
            },
        )
    }

    /// Records busy processors and queue length at every change (for charts).
    pub fn with_timeline(mut self) -> Self {
        self.instance_mut().0.timeline = Some(Vec::new());
        self
    }

    /// Records why each job waited and started (`crate::base::explain`).
    pub fn with_explanations(mut self) -> Self {
        self.instance_mut().0.policy.explain(true);
        self
    }

    /// The explanations recorded since the last call (empty unless
    /// [`Engine::with_explanations`]); they are not in the result afterwards.
    pub fn take_explanations(&mut self) -> Vec<Explanation> {
        self.instance_mut().0.policy.take_explanations()
    }
}

impl Flat {
    fn machine_error(&self, error: MachineError) -> SimError {
        SimError::Machine {
            policy: self.policy.full_name(),
            error,
        }
    }
}

/// What a flat policy sees (on a flat machine or a grid site).
pub(crate) fn context<'a>(table: &'a JobTable, machine: &'a FlatMachine) -> Context<'a> {
    Context {
        now: table.now(),
        jobs: table.jobs(),
        total_procs: machine.total(),
        free_procs: machine.free(),
        running: machine.running(),
    }
}

impl Instance for Flat {
    type Start = JobId;
    type Error = SimError;
    type Report = StepReport;
    type Output = SimResult;

    fn job_of(start: JobId) -> JobId {
        start
    }

    fn complete(&mut self, table: &JobTable, j: JobId) -> Result<(), SimError> {
        if table.jobs()[j].procs_held() > 0 {
            self.machine
                .release(j)
                .map_err(|error| self.machine_error(error))?;
        }
        let ctx = context(table, &self.machine);
        self.policy.job_completed(j, &ctx);
        Ok(())
    }

    fn arrive(&mut self, table: &JobTable, j: JobId) -> Result<(), SimError> {
        let ctx = context(table, &self.machine);
        self.policy.job_arrived(j, &ctx);
        Ok(())
    }

    fn decide(&mut self, _d: usize, table: &JobTable, starts: &mut Vec<JobId>) {
        self.policy.decide(&context(table, &self.machine), starts);
    }

    fn not_waiting(&self, _d: usize, job: u64) -> SimError {
        SimError::NotWaiting {
            policy: self.policy.full_name(),
            job,
        }
    }

    fn start(&mut self, _d: usize, table: &JobTable, j: JobId) -> Result<Time, SimError> {
        let job = &table.jobs()[j];
        let now = table.now();
        let held = job.procs_held();
        if held > 0 {
            self.machine
                .start(j, held, now, now + job.estimate)
                .map_err(|error| self.machine_error(error))?;
        }
        Ok(now + job.duration())
    }

    fn stalled(&self, waiting: usize) -> SimError {
        SimError::Stalled {
            policy: self.policy.full_name(),
            waiting,
        }
    }

    fn finish_instant(
        &mut self,
        table: &JobTable,
        _completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<StepReport, SimError> {
        if let Some(tl) = self.timeline.as_mut() {
            let point = TimelinePoint {
                time: report.time,
                busy: self.machine.total() - self.machine.free(),
                queued: table.waiting() as u32,
            };
            match tl.last_mut() {
                Some(last) if last.time == report.time => *last = point,
                Some(last) if last.busy == point.busy && last.queued == point.queued => {}
                _ => tl.push(point),
            }
        }
        Ok(report)
    }

    fn result(mut self, table: JobTable) -> SimResult {
        let n = table.jobs().len();
        let explanations = self.policy.take_explanations();
        let promised = (0..n).map(|j| self.policy.promised_start(j)).collect();
        let (jobs, outcomes) = table.into_parts();
        SimResult {
            policy: self.policy.full_name(),
            procs: self.machine.total(),
            jobs,
            outcomes,
            promised,
            timeline: self.timeline.unwrap_or_default(),
            explanations,
        }
    }
}
