//! The one engine loop: the rules of an instant (Ernemann et al. §III, Ababneh & Bani-Mohammad §5 — both papers'
//! event-driven simulators), the job table, the start bookkeeping and the stall check, written
//! once and shared by every engine.
//!
//! Time advances from instant to instant. At each instant [`Engine::step`] processes, in this
//! order:
//!
//! 1. every completion at that time, in (time, sequence) order (the sequence number is the
//!    order in which completions were scheduled);
//! 2. every arrival at that time, in arrival order;
//! 3. the decisions: each decider (one per machine; a grid has one per site, in site order) is
//!    asked once which jobs to start; every start is checked — the job is waiting, then the
//!    machine accepts it ([`Instance::start`]) — and refused with the instance's error
//!    otherwise.
//!
//! A job that starts and ends at the same instant completes in a second pass over that time
//! (its completion is scheduled at `now`, which is the next instant), after which the
//! deciders are asked again. When no event is left but jobs still wait, the run has stalled.
//!
//! What differs between engines — the machine, the policy, what a decision names, extra
//! bookkeeping — is an [`Instance`]; the flat ([`super::engine`]), mesh
//! ([`super::mesh_engine`]), grid ([`crate::grid::engine`]) and flow
//! ([`crate::network::flow`]) engines are `Engine<TheirInstance>`, statically dispatched.

use serde::{Deserialize, Serialize};

use crate::base::event::EventQueue;
use crate::base::{JobId, Time};
use crate::workload::Job;

/// What one call of [`Engine::step`] did.
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

/// Progress of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub completed: usize,
    pub started: usize,
    pub total: usize,
    pub now: Time,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobState {
    Future,
    Waiting,
    Running,
    Done,
}

/// The jobs of a run (in arrival order) and where each one is: not arrived, waiting, running,
/// done; when it started and ended; the clock and the counts.
#[derive(Clone, Debug)]
pub struct JobTable {
    jobs: Vec<Job>,
    state: Vec<JobState>,
    outcomes: Vec<JobOutcome>,
    next_arrival: usize,
    now: Time,
    started: usize,
    completed: usize,
    waiting: usize,
}

impl JobTable {
    fn new(jobs: Vec<Job>) -> JobTable {
        let n = jobs.len();
        JobTable {
            state: vec![JobState::Future; n],
            outcomes: vec![
                JobOutcome {
                    start: f64::NAN,
                    end: f64::NAN,
                };
                n
            ],
            next_arrival: 0,
            now: jobs.first().map(|j| j.submit).unwrap_or(0.0),
            started: 0,
            completed: 0,
            waiting: 0,
            jobs,
        }
    }

    /// The jobs, in arrival order.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The current instant.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of jobs waiting.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// `true` when job `j` has arrived and not started.
    pub fn is_waiting(&self, j: JobId) -> bool {
        self.state.get(j) == Some(&JobState::Waiting)
    }

    /// The trace's id of job `j` (its index if there is no such job).
    pub fn id_of(&self, j: JobId) -> u64 {
        self.jobs.get(j).map(|x| x.id).unwrap_or(j as u64)
    }

    /// When job `j` started and ended, once it has started.
    pub fn outcome(&self, j: JobId) -> Option<JobOutcome> {
        self.outcomes.get(j).copied().filter(|o| !o.start.is_nan())
    }

    /// Start and end of every job (NaN where not started).
    pub fn outcomes(&self) -> &[JobOutcome] {
        &self.outcomes
    }

    /// The jobs and their outcomes, for a result.
    pub fn into_parts(self) -> (Vec<Job>, Vec<JobOutcome>) {
        (self.jobs, self.outcomes)
    }
}

/// The machine- and policy-specific half of an engine: what [`Engine`] asks at each step of
/// an instant. Every hook gets the job table read-only; the engine alone changes job states.
pub trait Instance {
    /// What a decision names: a job, or a job and where it goes.
    type Start: Copy;
    /// Why the run cannot go on.
    type Error;
    /// What a step reports.
    type Report;
    /// The finished run.
    type Output;

    /// The job a decision starts.
    fn job_of(start: Self::Start) -> JobId;

    /// Job `j` completed at `table.now()`: free its resources and tell the policy.
    fn complete(&mut self, table: &JobTable, j: JobId) -> Result<(), Self::Error>;

    /// Job `j` arrived at `table.now()` (it is waiting): place it and tell the policy.
    fn arrive(&mut self, table: &JobTable, j: JobId) -> Result<(), Self::Error>;

    /// How many deciders are asked at each instant (in order `0..deciders()`).
    fn deciders(&self) -> usize {
        1
    }

    /// Decider `d` appends the jobs to start now to `starts` (which is empty).
    fn decide(&mut self, d: usize, table: &JobTable, starts: &mut Vec<Self::Start>);

    /// Decider `d` started job `j` (trace id `job`), which is not waiting.
    fn not_waiting(&self, d: usize, job: u64) -> Self::Error;

    /// Checks that decider `d` may start `start` (whose job is waiting) and takes the machine
    /// for it; returns when the job ends (`now` + its duration for a fixed run time).
    fn start(
        &mut self,
        d: usize,
        table: &JobTable,
        start: Self::Start,
    ) -> Result<Time, Self::Error>;

    /// Decider `d`'s starts were applied (`table` shows them running).
    fn started(&mut self, _d: usize, _table: &JobTable, _starts: &[Self::Start]) {}

    /// A start was refused: restore whatever the decisions changed.
    fn refused(&mut self) {}

    /// Every event is processed but `waiting` jobs still wait.
    fn stalled(&self, waiting: usize) -> Self::Error;

    /// End of an instant: the instance may reschedule the running jobs' completions
    /// (`completions`) and turns the counts into its report.
    fn finish_instant(
        &mut self,
        table: &JobTable,
        completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<Self::Report, Self::Error>;

    /// The result of the run (complete once it is finished).
    fn result(self, table: JobTable) -> Self::Output;
}

/// One workload on one machine under one policy: the job table, the completion queue and the
/// instance.
pub struct Engine<I: Instance> {
    table: JobTable,
    completions: EventQueue,
    instance: I,
    starts_buf: Vec<I::Start>,
}

impl<I: Instance> Engine<I> {
    /// An engine for `jobs` (in arrival order, already validated by the instance).
    pub fn with_instance(jobs: Vec<Job>, instance: I) -> Self {
        Engine {
            table: JobTable::new(jobs),
            completions: EventQueue::new(),
            instance,
            starts_buf: Vec::new(),
        }
    }

    /// The job table.
    pub fn table(&self) -> &JobTable {
        &self.table
    }

    /// The jobs being simulated.
    pub fn jobs(&self) -> &[Job] {
        &self.table.jobs
    }

    /// Current time.
    pub fn now(&self) -> Time {
        self.table.now
    }

    /// The machine- and policy-specific half.
    pub fn instance(&self) -> &I {
        &self.instance
    }

    /// The machine- and policy-specific half, mutable (with the job table).
    pub fn instance_mut(&mut self) -> (&mut I, &JobTable) {
        (&mut self.instance, &self.table)
    }

    /// How far the run is.
    pub fn progress(&self) -> Progress {
        Progress {
            completed: self.table.completed,
            started: self.table.started,
            total: self.table.jobs.len(),
            now: self.table.now,
        }
    }

    /// `true` once every job has arrived and every completion is processed.
    pub fn is_finished(&self) -> bool {
        self.table.next_arrival >= self.table.jobs.len() && self.completions.is_empty()
    }

    /// Time of the next instant, if any.
    pub fn next_time(&self) -> Option<Time> {
        let arrival = self
            .table
            .jobs
            .get(self.table.next_arrival)
            .map(|j| j.submit);
        match (arrival, self.completions.peek_time()) {
            (Some(a), Some(c)) => Some(if c <= a { c } else { a }),
            (a, c) => a.or(c),
        }
    }

    /// Processes the next instant. `Ok(None)` when the run is over.
    pub fn step(&mut self) -> Result<Option<I::Report>, I::Error> {
        let Some(t) = self.next_time() else {
            if self.table.waiting > 0 {
                return Err(self.instance.stalled(self.table.waiting));
            }
            return Ok(None);
        };
        self.table.now = t;
        let mut report = StepReport {
            time: t,
            completions: 0,
            arrivals: 0,
            starts: 0,
        };

        // 1. Completions at t, in (time, sequence) order.
        while let Some(j) = self.completions.pop_at(t) {
            self.instance.complete(&self.table, j)?;
            self.table.state[j] = JobState::Done;
            self.table.outcomes[j].end = t;
            self.table.completed += 1;
            report.completions += 1;
        }

        // 2. Arrivals at t, in arrival order.
        while (self.table.jobs.get(self.table.next_arrival)).is_some_and(|job| job.submit <= t) {
            let j = self.table.next_arrival;
            self.table.next_arrival += 1;
            self.table.state[j] = JobState::Waiting;
            self.table.waiting += 1;
            report.arrivals += 1;
            self.instance.arrive(&self.table, j)?;
        }

        // 3. Decisions: each decider once, every start checked.
        let mut starts = std::mem::take(&mut self.starts_buf);
        for d in 0..self.instance.deciders() {
            starts.clear();
            self.instance.decide(d, &self.table, &mut starts);
            for &s in &starts {
                self.start(d, s)?;
            }
            report.starts += starts.len();
            self.instance.started(d, &self.table, &starts);
        }
        self.starts_buf = starts;

        self.instance
            .finish_instant(&self.table, &mut self.completions, report)
            .map(Some)
    }

    /// Checks and applies one start of decider `d`.
    fn start(&mut self, d: usize, s: I::Start) -> Result<(), I::Error> {
        let j = I::job_of(s);
        if !self.table.is_waiting(j) {
            self.instance.refused();
            return Err(self.instance.not_waiting(d, self.table.id_of(j)));
        }
        let end = match self.instance.start(d, &self.table, s) {
            Ok(end) => end,
            Err(e) => {
                self.instance.refused();
                return Err(e);
            }
        };
        let table = &mut self.table;
        table.state[j] = JobState::Running;
        table.waiting -= 1;
        table.started += 1;
        table.outcomes[j] = JobOutcome {
            start: table.now,
            end,
        };
        self.completions.push(end, j);
        Ok(())
    }

    /// Processes every instant with time ≤ `t`. Returns `true` when the run is over.
    pub fn step_until(&mut self, t: Time) -> Result<bool, I::Error> {
        while let Some(next) = self.next_time() {
            if next > t {
                return Ok(false);
            }
            self.step()?;
        }
        self.step()?;
        Ok(true)
    }

    /// Processes at most `n` instants. Returns `true` when the run is over.
    pub fn step_instants(&mut self, n: usize) -> Result<bool, I::Error> {
        for _ in 0..n {
            if self.step()?.is_none() {
                return Ok(true);
            }
        }
        Ok(self.is_finished())
    }

    /// Runs to the end.
    pub fn run(&mut self) -> Result<(), I::Error> {
        while self.step()?.is_some() {}
        Ok(())
    }

    /// The result so far (complete once [`is_finished`](Self::is_finished)).
    pub fn into_result(self) -> I::Output {
        self.instance.result(self.table)
    }

    /// The jobs, taken back from the engine (the rest of it dropped): for a caller that gave
    /// the engine its only copy and needs the jobs once it is done with the run.
    pub fn into_jobs(self) -> Vec<Job> {
        self.table.jobs
    }

    /// Runs to the end and returns the result.
    pub fn run_to_end(mut self) -> Result<I::Output, I::Error> {
        self.run()?;
        Ok(self.into_result())
    }
}
