//! Conservative backfilling (Mu'alem & Feitelson; the rigid baseline of seed 004 §1 and the
//! local "backfilling that does not postpone any next job" of seed 002 §III-C).
//!
//! Every job gets a reservation when it arrives: the earliest time at which its size fits in
//! the free-processor profile for the length of its estimate. When a job completes before its
//! estimate, the freed part of the profile is released and the queue is *compressed*: waiting
//! jobs, in order of their current reservation (ties by arrival), are taken out of the profile
//! and put back at their earliest fit. A job's own old slot is always still free when it is
//! reinserted, so no reservation ever moves later — and no job starts later than the
//! reservation it was first given (checked: [`ConservativeBackfilling::violations`]).
//!
//! Issue 17 makes the compression cheap without changing any reservation:
//!
//! * **No trial reinsertion.** Taking a job out and putting it back at its earliest fit moves
//!   it earlier exactly when some start `s` before its reservation `r` has the job's processors
//!   free on [s, min(s + estimate, r)) — its own slot covers everything from `r` to the end of
//!   any earlier fit — and the earliest such `s` is where it goes. [`Profile::fit_before`]
//!   finds it without touching the profile; only a job that moves changes the profile (its
//!   old slot given back, its new one taken).
//! * **Two cheap tests first.** A job moves if the processors free just before `r` are enough
//!   (the free stretch reaching `r` is a fit), and otherwise only if some stretch of at least
//!   its size free processors *ending before `r`* is at least its estimate long. The pass walks
//!   the profile from now along with the queue and keeps, for every level of free processors,
//!   the longest such stretch seen ([`Stretches`]) — exact, since a job that moves (and may
//!   cut stretches behind the walk) sends the walk back to now. Only jobs passing a test are
//!   searched.
//! * Waiting jobs are kept ordered by (reservation, arrival) ([`WaitQueue`]); the pass walks
//!   it with a cursor, since a moved job only goes behind it. The profile is a vector while
//!   short and a segment tree over chunks when long ([`Profile`]).
//!
//! (The first pass of issue 17 skipped every job larger than the most processors free at an
//! instant freed since the last pass; the tests above subsume it: a job that could not move
//! after the previous pass can only move into a stretch containing such an instant.)

use super::profile::Profile;
use super::wait_queue::{Cursor, WaitQueue};
use super::{Context, Policy};
use crate::base::event::OrdTime;
use crate::base::{Explainer, Explanation, JobId, Reason, Time};

/// Conservative backfilling with a reservation for every waiting job.
#[derive(Clone, Debug)]
pub struct ConservativeBackfilling {
    profile: Profile,
    /// Waiting jobs by (current reservation, arrival).
    waiting: WaitQueue,
    /// Current reservation of each waiting job.
    reservation: Vec<Time>,
    /// First reservation of each job.
    promised: Vec<Option<Time>>,
    /// Start time of each started job.
    started_at: Vec<Time>,
    /// Times the compression would have moved a job later (a bug if ever non-zero).
    violations: usize,
    scratch: Vec<(OrdTime, JobId)>,
    stretches: Stretches,
    explainer: Explainer,
}

/// The free stretches of the profile seen by a compression pass: for each level of free
/// processors, the longest stretch at that level or above that ended before the pass's
/// position (as an upper bound), and the stretches still open there.
#[derive(Clone, Debug, Default)]
struct Stretches {
    /// Steps starting before `until` are seen.
    until: Time,
    started: bool,
    /// Open stretches: (level, start), levels increasing from the bottom.
    open: Vec<(u32, Time)>,
    /// Pareto-longest closed stretches: (level, length), levels decreasing, lengths
    /// increasing.
    closed: Vec<(u32, Time)>,
}

impl Stretches {
    fn reset(&mut self, now: Time) {
        self.until = now;
        self.started = false;
        self.open.clear();
        self.closed.clear();
    }

    /// Sees every step of `profile` starting before `to` (from the one containing `now`).
    fn advance(&mut self, profile: &Profile, now: Time, to: Time) {
        if self.started && to <= self.until {
            return;
        }
        let (open, closed) = (&mut self.open, &mut self.closed);
        profile.for_steps(self.until, to, !self.started, |t, free| {
            let t = if t < now { now } else { t };
            let mut from = t;
            while let Some(&(level, s)) = open.last() {
                if level <= free {
                    break;
                }
                open.pop();
                // A length computed by subtraction may round below the exact test's
                // `s + estimate <= t`; a relative slack keeps it an upper bound.
                close(closed, level, (t - s) + 1e-12 * (t.abs() + s.abs()));
                from = s;
            }
            if open.last().is_none_or(|&(level, _)| level < free) {
                open.push((free, from));
            }
        });
        self.started = true;
        self.until = to;
    }

    /// Whether a closed stretch of at least `procs` free processors may be `estimate` long.
    fn may_fit(&self, procs: u32, estimate: Time) -> bool {
        self.closed
            .iter()
            .any(|&(l, n)| l >= procs && n >= estimate)
    }
}

/// Keeps `(level, len)` among the Pareto-longest closed stretches.
fn close(closed: &mut Vec<(u32, Time)>, level: u32, len: Time) {
    if closed.iter().any(|&(l, n)| l >= level && n >= len) {
        return;
    }
    closed.retain(|&(l, n)| !(l <= level && n <= len));
    let i = closed.partition_point(|&(l, _)| l > level);
    closed.insert(i, (level, len));
}

impl ConservativeBackfilling {
    /// A policy for `n_jobs` jobs on `procs` processors.
    pub fn new(n_jobs: usize, procs: u32) -> Self {
        ConservativeBackfilling {
            profile: Profile::new(procs, f64::NEG_INFINITY),
            waiting: WaitQueue::default(),
            reservation: vec![f64::NAN; n_jobs],
            promised: vec![None; n_jobs],
            started_at: vec![f64::NAN; n_jobs],
            violations: 0,
            scratch: Vec::new(),
            stretches: Stretches::default(),
            explainer: Explainer::default(),
        }
    }

    /// How often a reservation would have moved later (always 0 unless there is a bug).
    pub fn violations(&self) -> usize {
        self.violations
    }

    /// The free-processor profile (running jobs and every reservation): where a new job
    /// would be reserved now (used by the grid scheduler, seed 002 §III-C).
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Moves every waiting job, in order of current reservation, to its earliest fit if that
    /// is earlier, after [now, …) was released by the early completion of `completed`
    /// (module docs).
    fn compress(&mut self, ctx: &Context<'_>, completed: JobId) {
        let now = ctx.now;
        self.stretches.reset(now);
        let mut cur = Cursor::default();
        while let Some((OrdTime(old), j)) = self.waiting.next(&mut cur) {
            let job = &ctx.jobs[j];
            let (procs, est) = (job.procs_held(), job.estimate);
            if procs == 0 || old == now {
                // Nothing held, or already at the earliest possible start.
                continue;
            }
            if old < now {
                // A waiting job is due at its reservation; reinserting it would have put it
                // back where it is and counted a violation.
                self.violations += 1;
                continue;
            }
            self.stretches.advance(&self.profile, now, old);
            if self.profile.free_before(old) < procs && !self.stretches.may_fit(procs, est) {
                continue;
            }
            let Some(new) = self.profile.fit_before(now, procs, est, old) else {
                continue;
            };
            self.profile.release(old, old + est, procs);
            if !self.profile.reserve(new, new + est, procs) {
                self.violations += 1;
            }
            self.reservation[j] = new;
            let moved = Reason::Moved {
                from: old,
                to: new,
                completed,
            };
            self.explainer.record(now, j, moved);
            self.waiting.remove(&(OrdTime(old), j));
            self.waiting.insert((OrdTime(new), j));
            // The stretches seen so far may be cut by the new slot: see them again.
            self.stretches.reset(now);
        }
    }
}

impl Policy for ConservativeBackfilling {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn job_arrived(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let (procs, est) = (j.procs_held(), j.estimate);
        let start = if procs == 0 {
            ctx.now
        } else {
            match self.profile.earliest_fit(ctx.now, procs, est) {
                Some(s) => s,
                // Larger than the machine: the engine drops such jobs before simulating.
                None => return,
            }
        };
        if !self.profile.reserve(start, start + est, procs) {
            self.violations += 1;
        }
        self.reservation[job] = start;
        self.promised[job] = Some(start);
        let reserved = Reason::Reserved {
            at: start,
            needs: procs,
        };
        self.explainer.record(ctx.now, job, reserved);
        self.waiting.insert((OrdTime(start), job));
    }

    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let expected_end = self.started_at[job] + j.estimate;
        if ctx.now < expected_end && j.procs_held() > 0 {
            self.profile.release(ctx.now, expected_end, j.procs_held());
            self.profile.prune(ctx.now);
            self.compress(ctx, job);
        }
    }

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let mut free = ctx.free_procs;
        let now = ctx.now;
        // Steps that ended before now are never read again (every search starts at now).
        self.profile.prune(now);
        // Due jobs (reservation ≤ now) in order of reservation, ties by arrival; +0 is the
        // largest zero in the total order, so a reservation at -0 is due at +0 and vice versa.
        let key = OrdTime(if now == 0.0 { 0.0 } else { now });
        let mut due = std::mem::take(&mut self.scratch);
        due.clear();
        self.waiting.up_to((key, JobId::MAX), &mut due);
        for &(res, j) in &due {
            let procs = ctx.jobs[j].procs_held();
            if procs <= free {
                free -= procs;
                starts.push(j);
                self.started_at[j] = now;
                if self.explainer.is_on() {
                    let first = self.promised[j].unwrap_or(now);
                    self.explainer
                        .record(now, j, Reason::AtReservation { first });
                }
                self.waiting.remove(&(res, j));
            }
        }
        self.scratch = due;
    }

    fn queue_len(&self) -> usize {
        self.waiting.len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.promised.get(job).copied().flatten()
    }

    fn explain(&mut self, on: bool) {
        self.explainer = Explainer::new(on);
    }

    fn take_explanations(&mut self) -> Vec<Explanation> {
        self.explainer.take()
    }
}
