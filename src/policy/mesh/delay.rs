//! The delay-based scheme of Kim and Yoon ([20] of Ababneh & Bani-Mohammad, §2.3): "a dynamic threshold value
//! is imposed on the waiting delay of the head of the waiting queue. When this threshold is
//! reached, no other job may be considered for allocation until the head job is served. The
//! threshold value is equal to λW, where λ is the arrival rate of jobs, and W is the average
//! waiting delay of running jobs. The scheduler monitors both parameters."
//!
//! Below the threshold the policy behaves like OO (every waiting job is tried in arrival
//! order); from the threshold on, like FCFS until the head is served.
//!
//! Choices (docs/mesh.md): λ is measured online as the number of jobs arrived so far divided
//! by the time since the first arrival (0 at the first instant); W is the mean waiting delay
//! (start − submit) of the jobs running now (0 when none runs). The head may be overtaken
//! while its wait is strictly below λ·W, taken as a number of time units exactly as the paper
//! states it (λW is dimensionless by Little's law; the paper compares it with a delay anyway).
//!
//! [`DelayReading`] makes the two quantities the text leaves open selectable (for
//! `schedlab reproduce window --readings`): λ measured online or the workload's nominal rate,
//! W over the jobs running now or over every job started so far. The default is the reading
//! above.

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::{JobId, Time};

/// Which arrival rate λ the threshold λ·W uses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum DelayLambda {
    /// Jobs arrived so far / time since the first arrival ("the scheduler monitors both
    /// parameters").
    #[default]
    Measured,
    /// The workload's nominal arrival rate (the λ of the §5.1 Poisson process).
    Nominal(f64),
}

/// Which jobs' waiting delays the W of λ·W averages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DelayWait {
    /// The jobs running now ("the average waiting delay of running jobs", read literally).
    #[default]
    Running,
    /// Every job started so far (running or finished): the running mean wait of the system.
    Started,
}

/// A reading of §2.3's λ and W.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DelayReading {
    pub lambda: DelayLambda,
    pub wait: DelayWait,
}

/// Delay-based non-FCFS scheduling.
#[derive(Clone, Debug, Default)]
pub struct DelayBased {
    reading: DelayReading,
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    events: InstantEvents,
    arrivals: u64,
    first_arrival: Option<Time>,
    /// Wait of each running job, indexed by job (NaN when not running).
    wait_of: Vec<f64>,
    running_wait_sum: f64,
    running: u64,
    /// Sum and count of the waits of every job started so far ([`DelayWait::Started`]).
    started_wait_sum: f64,
    started: u64,
}

impl DelayBased {
    /// No job waiting.
    pub fn new() -> Self {
        Self::default()
    }

    /// No job waiting; λ and W read as `reading` says.
    pub fn with_reading(reading: DelayReading) -> Self {
        Self {
            reading,
            ..Self::default()
        }
    }

    /// The current threshold λ·W at time `now`.
    pub fn threshold(&self, now: Time) -> f64 {
        let lambda = match (self.reading.lambda, self.first_arrival) {
            (DelayLambda::Nominal(rate), _) => rate,
            (DelayLambda::Measured, Some(t0)) if now > t0 => self.arrivals as f64 / (now - t0),
            (DelayLambda::Measured, _) => 0.0,
        };
        let (sum, n) = match self.reading.wait {
            DelayWait::Running => (self.running_wait_sum, self.running),
            DelayWait::Started => (self.started_wait_sum, self.started),
        };
        let w = if n > 0 { sum / n as f64 } else { 0.0 };
        lambda * w
    }

    fn started(&mut self, job: JobId, ctx: &MeshContext<'_>) {
        let wait = ctx.now - ctx.jobs[job].submit;
        if job >= self.wait_of.len() {
            self.wait_of.resize(job + 1, f64::NAN);
        }
        self.wait_of[job] = wait;
        self.running_wait_sum += wait;
        self.running += 1;
        self.started_wait_sum += wait;
        self.started += 1;
    }

    fn may_overtake(&self, head: JobId, ctx: &MeshContext<'_>, threshold: f64) -> bool {
        ctx.now - ctx.jobs[head].submit < threshold
    }
}

impl MeshPolicy for DelayBased {
    fn name(&self) -> String {
        "Delay".into()
    }

    fn job_arrived(&mut self, job: JobId, ctx: &MeshContext<'_>) {
        self.events.arrived.push(job);
        self.arrivals += 1;
        if self.first_arrival.is_none() {
            self.first_arrival = Some(ctx.now);
        }
    }

    fn job_completed(&mut self, job: JobId, _ctx: &MeshContext<'_>) {
        self.events.freed = true;
        if let Some(w) = self.wait_of.get_mut(job) {
            if !w.is_nan() {
                self.running_wait_sum -= *w;
                self.running -= 1;
                *w = f64::NAN;
            }
        }
        if self.running == 0 {
            // Remove the rounding residue of the running sum.
            self.running_wait_sum = 0.0;
        }
    }

    fn decide(&mut self, ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        let (freed, arrived) = self.events.take();
        if freed && !self.waiting.is_empty() {
            let waiting = std::mem::take(&mut self.waiting);
            let mut kept: Vec<JobId> = Vec::with_capacity(waiting.len());
            let mut rest = waiting.iter();
            for &j in rest.by_ref() {
                if let Some(&head) = kept.first() {
                    let threshold = self.threshold(ctx.now);
                    if !self.may_overtake(head, ctx, threshold) {
                        kept.push(j);
                        break;
                    }
                }
                if plan.try_start(j) {
                    self.started(j, ctx);
                } else {
                    kept.push(j);
                }
            }
            kept.extend(rest.copied());
            self.waiting = kept;
        }
        for &j in &arrived {
            let may_try = match self.waiting.first() {
                None => true,
                Some(&head) => {
                    let threshold = self.threshold(ctx.now);
                    self.may_overtake(head, ctx, threshold)
                }
            };
            if may_try && plan.try_start(j) {
                self.started(j, ctx);
            } else {
                self.waiting.push(j);
            }
        }
        self.events.recycle(arrived);
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }
}
