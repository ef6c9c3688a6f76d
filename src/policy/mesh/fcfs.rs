//! First-come first-served on a mesh (Ababneh & Bani-Mohammad §2): the head of the FIFO waiting queue is
//! considered before any later job; while it does not fit, nothing starts. FCFS is Window-1
//! (§6: "the extreme schemes FCFS (K = 1) and greedy out-of-order scheduling (unbounded K)"),
//! which the tests check schedule for schedule.

use std::collections::VecDeque;

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::JobId;

/// Strict FCFS with a submesh allocator.
#[derive(Clone, Debug, Default)]
pub struct MeshFcfs {
    queue: VecDeque<JobId>,
    events: InstantEvents,
}

impl MeshFcfs {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }
}

impl MeshPolicy for MeshFcfs {
    fn name(&self) -> String {
        "FCFS".into()
    }

    fn job_arrived(&mut self, job: JobId, _ctx: &MeshContext<'_>) {
        self.events.arrived.push(job);
    }

    fn job_completed(&mut self, _job: JobId, _ctx: &MeshContext<'_>) {
        self.events.freed = true;
    }

    fn decide(&mut self, _ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        let (_, arrived) = self.events.take();
        self.queue.extend(arrived.iter().copied());
        self.events.recycle(arrived);
        while let Some(&head) = self.queue.front() {
            if !plan.try_start(head) {
                break;
            }
            self.queue.pop_front();
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn window(&self) -> Option<usize> {
        Some(1)
    }
}
