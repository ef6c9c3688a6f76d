//! The discrete-event engine for flat machines.
//!
//! Time advances from instant to instant. At each instant the engine processes, in this
//! order: all completions at that time (by (time, sequence)), then all arrivals at that time
//! (in arrival order), then asks the policy once which jobs to start, validates the decisions
//! and applies them. `step` processes one instant, `step_until(t)` every instant up to `t`,
//! `step_instants(n)` at most `n` instants — so a web worker can report progress and stop.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::event::EventQueue;
use super::{JobId, Time};
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

/// What one call of [`Simulation::step`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    pub time: Time,
    pub completions: usize,
    pub arrivals: usize,
    pub starts: usize,
}

/// Where a job ended up.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobOutcome {
    pub start: Time,
    pub end: Time,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobState {
    Future,
    Waiting,
    Running,
    Done,
}

/// Progress of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub completed: usize,
    pub started: usize,
    pub total: usize,
    pub now: Time,
}

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
}

/// A flat-machine simulation of one workload under one policy.
pub struct Simulation {
    jobs: Vec<Job>,
    machine: FlatMachine,
    policy: Box<dyn Policy>,
    completions: EventQueue,
    state: Vec<JobState>,
    outcomes: Vec<JobOutcome>,
    next_arrival: usize,
    now: Time,
    started: usize,
    completed: usize,
    waiting: usize,
    starts_buf: Vec<JobId>,
    timeline: Option<Vec<TimelinePoint>>,
}

impl Simulation {
    /// A simulation of `jobs` (in arrival order, each at most `procs` in size) on a flat
    /// machine of `procs` processors under `policy`.
    pub fn new(jobs: Vec<Job>, procs: u32, policy: Box<dyn Policy>) -> Self {
        let n = jobs.len();
        Simulation {
            machine: FlatMachine::new(procs, n),
            policy,
            completions: EventQueue::new(),
            state: vec![JobState::Future; n],
            outcomes: vec![
                JobOutcome {
                    start: f64::NAN,
                    end: f64::NAN
                };
                n
            ],
            next_arrival: 0,
            now: jobs.first().map(|j| j.submit).unwrap_or(0.0),
            started: 0,
            completed: 0,
            waiting: 0,
            starts_buf: Vec::new(),
            timeline: None,
            jobs,
        }
    }

    /// Records busy processors and queue length at every change (for charts).
    pub fn with_timeline(mut self) -> Self {
        self.timeline = Some(Vec::new());
        self
    }

    /// The jobs being simulated.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    fn context<'a>(now: Time, jobs: &'a [Job], machine: &'a FlatMachine) -> Context<'a> {
        Context {
            now,
            jobs,
            total_procs: machine.total(),
            free_procs: machine.free(),
            running: machine.running(),
        }
    }

    /// Processes the next instant. `Ok(None)` when the run is over.
    pub fn step(&mut self) -> Result<Option<StepReport>, SimError> {
        let Some(t) = self.next_time() else {
            if self.waiting > 0 {
                return Err(SimError::Stalled {
                    policy: self.policy.name().to_string(),
                    waiting: self.waiting,
                });
            }
            return Ok(None);
        };
        self.now = t;
        let mut report = StepReport {
            time: t,
            completions: 0,
            arrivals: 0,
            starts: 0,
        };

        // 1. Completions at t.
        while let Some(j) = self.completions.pop_at(t) {
            if self.jobs[j].procs_held() > 0 {
                self.machine
                    .release(j)
                    .map_err(|error| self.machine_error(error))?;
            }
            self.state[j] = JobState::Done;
            self.completed += 1;
            report.completions += 1;
            let ctx = Self::context(self.now, &self.jobs, &self.machine);
            self.policy.job_completed(j, &ctx);
        }

        // 2. Arrivals at t.
        while self.next_arrival < self.jobs.len() && self.jobs[self.next_arrival].submit <= t {
            let j = self.next_arrival;
            self.next_arrival += 1;
            self.state[j] = JobState::Waiting;
            self.waiting += 1;
            report.arrivals += 1;
            let ctx = Self::context(self.now, &self.jobs, &self.machine);
            self.policy.job_arrived(j, &ctx);
        }

        // 3. Decisions.
        let mut starts = std::mem::take(&mut self.starts_buf);
        starts.clear();
        {
            let ctx = Self::context(self.now, &self.jobs, &self.machine);
            self.policy.decide(&ctx, &mut starts);
        }
        for &j in &starts {
            self.start_job(j)?;
        }
        report.starts = starts.len();
        self.starts_buf = starts;

        if let Some(tl) = self.timeline.as_mut() {
            let point = TimelinePoint {
                time: t,
                busy: self.machine.total() - self.machine.free(),
                queued: self.waiting as u32,
            };
            match tl.last_mut() {
                Some(last) if last.time == t => *last = point,
                Some(last) if last.busy == point.busy && last.queued == point.queued => {}
                _ => tl.push(point),
            }
        }
        Ok(Some(report))
    }

    fn machine_error(&self, error: MachineError) -> SimError {
        SimError::Machine {
            policy: self.policy.name().to_string(),
            error,
        }
    }

    fn start_job(&mut self, j: JobId) -> Result<(), SimError> {
        if self.state.get(j) != Some(&JobState::Waiting) {
            return Err(SimError::NotWaiting {
                policy: self.policy.name().to_string(),
                job: self.jobs.get(j).map(|x| x.id).unwrap_or(j as u64),
            });
        }
        let job = &self.jobs[j];
        let (held, estimate, duration) = (job.procs_held(), job.estimate, job.duration());
        if held > 0 {
            self.machine
                .start(j, held, self.now, self.now + estimate)
                .map_err(|error| self.machine_error(error))?;
        }
        self.state[j] = JobState::Running;
        self.waiting -= 1;
        self.started += 1;
        let end = self.now + duration;
        self.outcomes[j] = JobOutcome {
            start: self.now,
            end,
        };
        self.completions.push(end, j);
        Ok(())
    }

    /// The result so far (complete once [`is_finished`](Self::is_finished)).
    pub fn into_result(self) -> SimResult {
        let promised = (0..self.jobs.len())
            .map(|j| self.policy.promised_start(j))
            .collect();
        SimResult {
            policy: self.policy.name().to_string(),
            procs: self.machine.total(),
            jobs: self.jobs,
            outcomes: self.outcomes,
            promised,
            timeline: self.timeline.unwrap_or_default(),
        }
    }
}

crate::sim::impl_stepping!(Simulation, SimError, SimResult);
