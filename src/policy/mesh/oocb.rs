//! Out-of-order with constant bound, OOCB-k (Ababneh & Bani-Mohammad §5): the reservation-free variant of
//! Das Sharma and Pradhan's scheme ([16], §2.2) with Max-Bound k.
//!
//! Every waiting job counts how many later jobs have been allocated while it waited
//! (overtaken it). A later job may be considered for allocation only while the counter of the
//! current head of the FIFO waiting queue is below k: "up to that many subsequent jobs can be
//! allocated the submesh they have requested before having to serve the current waiting queue
//! head". On arrival the new job is attempted if the queue is empty or the head may still be
//! overtaken, else appended (counter 0). After a departure the queue is scanned in arrival
//! order: the head is attempted, later jobs only while the head's counter is below k.
//!
//! Choice (docs/mesh.md): k counts permitted overtakings, so OOCB-0 is FCFS and OOCB-∞ is OO
//! (both checked by tests). The paper's remark "FCFS corresponds to Max-Bound = 1" counts
//! differently; it does not change OOCB-8 by more than one overtaking.

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::JobId;

/// OOCB with Max-Bound `k`.
#[derive(Clone, Debug)]
pub struct Oocb {
    k: u32,
    /// Waiting jobs in arrival order.
    waiting: Vec<JobId>,
    /// Overtake counters, indexed by job.
    counter: Vec<u32>,
    events: InstantEvents,
}

impl Oocb {
    /// OOCB-`k`.
    pub fn new(k: u32) -> Self {
        Oocb {
            k,
            waiting: Vec::new(),
            counter: Vec::new(),
            events: InstantEvents::default(),
        }
    }

    fn count(&self, job: JobId) -> u32 {
        self.counter.get(job).copied().unwrap_or(0)
    }

    fn overtaken(&mut self, job: JobId) {
        if job >= self.counter.len() {
            self.counter.resize(job + 1, 0);
        }
        self.counter[job] = self.counter[job].saturating_add(1);
    }

    /// Current overtake counter of `job` (for tests).
    pub fn overtakes(&self, job: JobId) -> u32 {
        self.count(job)
    }
}

impl MeshPolicy for Oocb {
    fn name(&self) -> String {
        format!("OOCB-{}", self.k)
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
            // Scan in arrival order; `kept` holds the jobs still waiting, oldest first, so
            // kept[0] (if any) is the head while later jobs are considered.
            let waiting = std::mem::take(&mut self.waiting);
            let mut kept: Vec<JobId> = Vec::with_capacity(waiting.len());
            let mut rest = waiting.iter();
            for &j in rest.by_ref() {
                match kept.first() {
                    None => {
                        if !plan.try_start(j) {
                            kept.push(j);
                        }
                    }
                    Some(&head) => {
                        if self.count(head) >= self.k {
                            kept.push(j);
                            break;
                        }
                        if plan.try_start(j) {
                            for &older in &kept {
                                self.overtaken(older);
                            }
                        } else {
                            kept.push(j);
                        }
                    }
                }
            }
            kept.extend(rest.copied());
            self.waiting = kept;
        }
        for &j in &arrived {
            let may_try = match self.waiting.first() {
                None => true,
                Some(&head) => self.count(head) < self.k,
            };
            if may_try && plan.try_start(j) {
                for i in 0..self.waiting.len() {
                    let older = self.waiting[i];
                    self.overtaken(older);
                }
            } else {
                self.waiting.push(j);
            }
        }
        self.events.recycle(arrived);
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }

    fn window(&self) -> Option<usize> {
        (self.k == 0).then_some(1)
    }
}
