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

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::{JobId, Time};

/// Delay-based non-FCFS scheduling.
#[derive(Clone, Debug, Default)]
pub struct DelayBased {
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    events: InstantEvents,
    arrivals: u64,
    first_arrival: Option<Time>,
    /// Wait of each running job, indexed by job (NaN when not running).
    wait_of: Vec<f64>,
    running_wait_sum: f64,
    running: u64,
}

impl DelayBased {
    /// No job waiting.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current threshold λ·W at time `now`.
    pub fn threshold(&self, now: Time) -> f64 {
        let lambda = match self.first_arrival {
            Some(t0) if now > t0 => self.arrivals as f64 / (now - t0),
            _ => 0.0,
        };
        let w = if self.running > 0 {
            self.running_wait_sum / self.running as f64
        } else {
            0.0
        };
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
