//! First-come first-served: start jobs strictly in arrival order while the head fits.
//! The baseline of the grid-sharing, window and moldable papers (docs/papers.md).

use std::collections::VecDeque;

use super::{Context, Policy};
use crate::base::{Explainer, Explanation, JobId, Reason};

/// Strict FCFS: no job ever overtakes an earlier one.
#[derive(Clone, Debug, Default)]
pub struct Fcfs {
    queue: VecDeque<JobId>,
    explainer: Explainer,
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
                let blocked = Reason::HeadBlocked {
                    needs: procs,
                    free,
                    shadow: None,
                    extra: None,
                };
                self.explainer.record(ctx.now, head, blocked);
                break;
            }
            let in_order = Reason::InOrder { needs: procs, free };
            self.explainer.record(ctx.now, head, in_order);
            free -= procs;
            starts.push(head);
            self.queue.pop_front();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn explain(&mut self, on: bool) {
        self.explainer = Explainer::new(on);
    }

    fn take_explanations(&mut self) -> Vec<Explanation> {
        self.explainer.take()
    }
}
