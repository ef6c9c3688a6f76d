//! First-come first-served: start jobs strictly in arrival order while the head fits.
//! The baseline of seeds 002–004.

use std::collections::VecDeque;

use super::{Context, Policy};
use crate::base::JobId;

/// Strict FCFS: no job ever overtakes an earlier one.
#[derive(Clone, Debug, Default)]
pub struct Fcfs {
    queue: VecDeque<JobId>,
}

impl Fcfs {
    /// An empty FCFS queue.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Policy for Fcfs {
    fn name(&self) -> &'static str {
        "fcfs"
    }

    fn job_arrived(&mut self, job: JobId, _ctx: &Context<'_>) {
        self.queue.push_back(job);
    }

    fn job_completed(&mut self, _job: JobId, _ctx: &Context<'_>) {}

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let mut free = ctx.free_procs;
        while let Some(&head) = self.queue.front() {
            let procs = ctx.jobs[head].procs_held();
            if procs > free {
                break;
            }
            free -= procs;
            starts.push(head);
            self.queue.pop_front();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }
}
