//! Aggressive out-of-order scheduling, OO (Ababneh & Bani-Mohammad §2.4, [1]): jobs are considered for
//! allocation in arrival order without having to wait for the head of the waiting queue —
//! a new job is allocated at once if a submesh is free, and after every departure all waiting
//! jobs are tried in arrival order. The lookahead is unbounded, so large jobs can wait for a
//! very long time (indefinite postponement). OO is Window-K with unbounded K (checked by the
//! tests schedule for schedule).

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::JobId;

/// Greedy out-of-order scheduling.
#[derive(Clone, Debug, Default)]
pub struct OutOfOrder {
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    events: InstantEvents,
}

impl OutOfOrder {
    /// No job waiting.
    pub fn new() -> Self {
        Self::default()
    }
}

impl MeshPolicy for OutOfOrder {
    fn name(&self) -> String {
        "OO".into()
    }

    fn job_arrived(&mut self, job: JobId, _ctx: &MeshContext<'_>) {
        self.events.arrived.push(job);
    }

    fn job_completed(&mut self, _job: JobId, _ctx: &MeshContext<'_>) {
        self.events.freed = true;
    }

    fn decide(&mut self, _ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        let (freed, arrived) = self.events.take();
        if freed && !self.waiting.is_empty() {
            self.waiting.retain(|&j| !plan.try_start(j));
        }
        for &j in &arrived {
            if !plan.try_start(j) {
                self.waiting.push(j);
            }
        }
        self.events.recycle(arrived);
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }
}
