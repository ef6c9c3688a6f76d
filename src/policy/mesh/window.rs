//! Window-K, the window-based scheme of Ababneh & Bani-Mohammad §4, step for step.
//!
//! The K-way scheduling window (Definition 2) is "a group of up to K successive jobs that
//! start with the oldest job still waiting for allocation". Each window entry is a job
//! descriptor with its allocation state, *done* or *pending*; `win_size` is the number of
//! entries. Jobs that arrive while the window is full wait in the FIFO waiting queue.
//!
//! Arrival of a new job:
//! 1. if `win_size` ≥ K, append the job at the tail of the FIFO waiting queue;
//! 2. if `win_size` < K, attempt allocation for it, increment `win_size` and insert its
//!    descriptor (done or pending) at the tail of the window.
//!
//! Termination of a job (de-allocation):
//! 1. scan the window for the next pending request;
//! 2. if it is the window head and allocation succeeds, move the head to the next pending
//!    request in the window, if any; if none is still pending, move the head to the waiting
//!    request that arrived after the window tail. In both cases adjust `win_size` (the window
//!    again holds up to K successive jobs, refilled from the FIFO queue) and re-start step 1;
//! 3. if it is not the head and allocation succeeds, mark it done;
//! 4. go to step 1 for the next pending request, if any; otherwise return.
//!
//! One clarification the text needs (docs/mesh.md): a job allocated by the arrival step while
//! the window is empty would be a *done* head, which Definition 2 rules out (the window
//! starts with the oldest *waiting* job), so it does not stay in the window. Everything else
//! is literal, including re-starting the scan from the head after the head is served.

use std::collections::VecDeque;

use super::{InstantEvents, MeshContext, MeshPolicy, Planner};
use crate::base::JobId;

/// Allocation state of a window entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Allocated (started) while inside the window.
    Done,
    /// Still waiting for allocation.
    Pending,
}

/// A job descriptor in the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    job: JobId,
    state: EntryState,
}

/// Window-K.
#[derive(Clone, Debug)]
pub struct Window {
    k: usize,
    /// The scheduling window; when not empty its head is pending.
    window: VecDeque<Entry>,
    /// Jobs that arrived while the window was full, in arrival order (all pending).
    fifo: VecDeque<JobId>,
    /// Pending entries in the window.
    pending: usize,
    events: InstantEvents,
}

impl Window {
    /// Window-`k` (a `k` of 0 is taken as 1).
    pub fn new(k: usize) -> Self {
        Window {
            k: k.max(1),
            window: VecDeque::new(),
            fifo: VecDeque::new(),
            pending: 0,
            events: InstantEvents::default(),
        }
    }

    /// K.
    pub fn k(&self) -> usize {
        self.k
    }

    /// `win_size`: entries in the window, done ones included.
    pub fn win_size(&self) -> usize {
        self.window.len()
    }

    /// The window's descriptors, head first.
    pub fn entries(&self) -> Vec<(JobId, EntryState)> {
        self.window.iter().map(|e| (e.job, e.state)).collect()
    }

    /// The FIFO waiting queue behind the window.
    pub fn fifo(&self) -> Vec<JobId> {
        self.fifo.iter().copied().collect()
    }

    /// Arrival steps 1–2.
    fn arrival(&mut self, job: JobId, plan: &mut Planner<'_>) {
        if self.window.len() >= self.k {
            self.fifo.push_back(job);
            return;
        }
        let state = if plan.try_start(job) {
            EntryState::Done
        } else {
            EntryState::Pending
        };
        if self.window.is_empty() && state == EntryState::Done {
            // A served job cannot head the window (Definition 2): the window stays empty.
            return;
        }
        if state == EntryState::Pending {
            self.pending += 1;
        }
        self.window.push_back(Entry { job, state });
    }

    /// The head was served: move it to the next pending request, else past the tail, and
    /// refill the window with successive jobs from the FIFO queue up to K entries.
    fn advance_head(&mut self) {
        self.window.pop_front();
        self.pending -= 1;
        while self
            .window
            .front()
            .is_some_and(|e| e.state == EntryState::Done)
        {
            self.window.pop_front();
        }
        while self.window.len() < self.k {
            let Some(job) = self.fifo.pop_front() else {
                break;
            };
            self.window.push_back(Entry {
                job,
                state: EntryState::Pending,
            });
            self.pending += 1;
        }
    }

    /// De-allocation steps 1–4.
    fn deallocation(&mut self, plan: &mut Planner<'_>) {
        let mut i = 0;
        while self.pending > 0 {
            // Step 1: the next pending request.
            while i < self.window.len() && self.window[i].state == EntryState::Done {
                i += 1;
            }
            let Some(entry) = self.window.get(i).copied() else {
                return;
            };
            if plan.try_start(entry.job) {
                if i == 0 {
                    // Step 2.
                    self.advance_head();
                    i = 0;
                } else {
                    // Step 3.
                    self.window[i].state = EntryState::Done;
                    self.pending -= 1;
                    i += 1;
                }
            } else {
                // Step 4.
                i += 1;
            }
        }
    }
}

impl MeshPolicy for Window {
    fn name(&self) -> String {
        format!("Window-{}", self.k)
    }

    fn job_arrived(&mut self, job: JobId, _ctx: &MeshContext<'_>) {
        self.events.arrived.push(job);
    }

    fn job_completed(&mut self, _job: JobId, _ctx: &MeshContext<'_>) {
        self.events.freed = true;
    }

    fn decide(&mut self, _ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        let (freed, arrived) = self.events.take();
        if freed {
            self.deallocation(plan);
        }
        for &j in &arrived {
            self.arrival(j, plan);
        }
        self.events.recycle(arrived);
    }

    fn queue_len(&self) -> usize {
        self.pending + self.fifo.len()
    }

    fn window(&self) -> Option<usize> {
        Some(self.k)
    }
}
