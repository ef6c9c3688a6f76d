//! A window of a finished flat run's replay, for runs too large to replay whole: the jobs
//! around an instant and the decisions that explain them, from which a [`Replay`] shows any
//! instant of the window exactly as the replay of the whole run would.
//!
//! The run's jobs and outcomes are kept (a few dozen bytes a job), its explanations are not
//! (they would be several times that): the window's are recorded by simulating the run again
//! up to the window's end — runs are deterministic, so the decisions are the run's — and only
//! those that the window's instants read are kept:
//!
//! * the window `[t0, t1]` is cut around the instant asked by arrival ([`bounds`]);
//! * its jobs are the contiguous range (in arrival order) of those whose `[submit, end]`
//!   meets the window, widened to the jobs its entries name: every job running or waiting at an
//!   instant of the window is among them;
//! * its entries are those of instants in the window, those of the range's jobs before it (a
//!   reservation or a blocked head recorded earlier) and every entry of the last instant before
//!   it that recorded any (the "last decision" at the window's first instants).
//!
//! So [`Replay::state_at`] of the window equals that of the whole run at every `t` in
//! `[t0, t1]`, up to the job indices, which count from [`ReplayWindow::first`]
//! (tests/it/replay_window.rs checks it).

use serde::{Deserialize, Serialize};

use super::engine::{SimError, Simulation};
use super::instant::JobOutcome;
use super::replay::Replay;
use crate::base::{Explanation, JobId, Reason, Time};
use crate::metrics::JobRecord;
use crate::network::heat::Timeline;
use crate::workload::Job;

/// Jobs arriving in a window, about (fewer at the ends of the run).
pub const WINDOW_ARRIVALS: usize = 1500;
/// Instants simulated between two drains of the explanations.
const INSTANTS_PER_DRAIN: usize = 256;

/// The jobs and decisions of a run around an instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayWindow {
    /// Processors of the machine.
    pub procs: u32,
    /// The window: the replay is exact at every instant of `[t0, t1]`.
    pub t0: Time,
    pub t1: Time,
    /// Index (in the whole run) of the first job of `records`.
    pub first: JobId,
    /// The jobs `first..first + records.len()` of the run.
    pub records: Vec<JobRecord>,
    /// Their explanations (job indices counted from `first`), in the order recorded.
    pub log: Vec<Explanation>,
    /// The run's first and last instants (first submit, last end).
    pub span: (Time, Time),
    /// The run's last instant before `t0` and first after `t1`, if any.
    pub before: Option<Time>,
    pub after: Option<Time>,
    /// The run's instants before `t0`, and in all.
    pub instants_before: usize,
    pub instants: usize,
}

impl ReplayWindow {
    /// The replay of the window's jobs and decisions.
    pub fn replay(&self) -> Replay {
        Replay::new(self.procs, self.records.clone(), self.log.clone())
    }

    /// Whether the replay is exact at `t`.
    pub fn covers(&self, t: Time) -> bool {
        self.t0 <= t && t <= self.t1
    }

    /// The instants a step moves between: those of the window's jobs in `[t0, t1]`, the run's
    /// neighbours of the window ([`ReplayWindow::before`], [`ReplayWindow::after`]) and its
    /// first and last instants — so that a step out of the window lands on the run's next
    /// instant and the slider spans the whole run.
    pub fn timeline(&self) -> Timeline {
        let inside = self
            .records
            .iter()
            .flat_map(|r| [r.submit, r.start, r.end])
            .filter(|t| self.covers(*t));
        let edges = [
            Some(self.span.0),
            Some(self.span.1),
            self.before,
            self.after,
        ];
        Timeline::new(inside.chain(edges.into_iter().flatten()).map(|t| (t, t, t)))
    }

    /// The number (from 1) of the run's last instant at or before `t`, for `t` in the window.
    pub fn instant_number(&self, t: Time) -> usize {
        let inside = Timeline::new(
            self.records
                .iter()
                .flat_map(|r| [r.submit, r.start, r.end])
                .filter(|x| self.t0 <= *x && *x <= t)
                .map(|x| (x, x, x)),
        );
        self.instants_before + inside.len()
    }
}

/// The window around `t` of a run whose jobs (in arrival order) are `jobs`: from the submit of
/// the job arriving a quarter of [`WINDOW_ARRIVALS`] before `t` (or `t`, if earlier) to that
/// of the job arriving the rest after it, or to the run's last end when that job is among the
/// last ones.
pub fn bounds(jobs: &[Job], outcomes: &[JobOutcome], t: Time) -> (Time, Time) {
    let n = jobs.len();
    if n == 0 {
        return (t, t);
    }
    let k = jobs.partition_point(|j| j.submit <= t);
    let before = WINDOW_ARRIVALS / 4;
    let t0 = jobs[k.saturating_sub(before).min(n - 1)].submit.min(t);
    let last_end = outcomes
        .iter()
        .map(|o| o.end)
        .filter(|e| e.is_finite())
        .fold(t, f64::max);
    let t1 = match jobs.get(k + (WINDOW_ARRIVALS - before)) {
        Some(j) => j.submit.max(t),
        None => last_end,
    };
    (t0, t1)
}

/// The window `[t0, t1]` of the run that `sim` simulates again — the run of the jobs it holds
/// (in arrival order) whose outcomes were `outcomes` — on `procs` processors. `sim` records
/// explanations here and, once past `t1`, gives its jobs back (no other copy of them is
/// needed: a run of any size is replayed with one).
pub fn window(
    mut sim: Simulation,
    outcomes: &[JobOutcome],
    procs: u32,
    (t0, t1): (Time, Time),
) -> Result<ReplayWindow, SimError> {
    let started = |i: usize| outcomes.get(i).filter(|o| !o.start.is_nan());
    // The jobs whose [submit, end] meets the window: a contiguous range covering them.
    let jobs = sim.jobs();
    let meets: Vec<usize> = (0..jobs.len().min(outcomes.len()))
        .filter(|&i| jobs[i].submit <= t1 && started(i).is_some_and(|o| o.end >= t0))
        .collect();
    let (mut lo, mut hi) = match (meets.first(), meets.last()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        _ => (0, 0),
    };
    sim = sim.with_explanations();
    // (order recorded, entry): the entries kept, and those of the last instant before t0 that
    // are not kept anyway.
    let mut kept: Vec<(usize, Explanation)> = Vec::new();
    let mut last_before: Vec<(usize, Explanation)> = Vec::new();
    let mut seq = 0usize;
    let (range_lo, range_hi) = (lo, hi);
    loop {
        let done = sim.step_instants(INSTANTS_PER_DRAIN)?;
        for e in sim.take_explanations() {
            seq += 1;
            if e.time > t1 {
                continue;
            }
            let in_range = (range_lo..range_hi).contains(&e.job);
            if e.time >= t0 || in_range {
                kept.push((seq, e));
            }
            if e.time < t0 {
                if last_before.first().is_some_and(|(_, x)| x.time < e.time) {
                    last_before.clear();
                }
                if !in_range {
                    last_before.push((seq, e));
                }
            }
        }
        if done || sim.now() > t1 {
            break;
        }
    }
    let jobs = sim.into_jobs();
    // Entries of the last instant before t0 only: older ones of jobs out of the range go.
    let last_instant = kept
        .iter()
        .chain(&last_before)
        .map(|(_, e)| e.time)
        .filter(|t| *t < t0)
        .fold(f64::NEG_INFINITY, f64::max);
    last_before.retain(|(_, e)| e.time == last_instant);
    kept.extend(last_before);
    kept.sort_by_key(|(s, _)| *s);
    for (_, e) in &kept {
        for j in std::iter::once(e.job).chain(named(e.reason)) {
            lo = lo.min(j);
            hi = hi.max(j + 1);
        }
    }
    hi = hi.min(jobs.len()).min(outcomes.len());
    let records: Vec<JobRecord> = (lo..hi)
        .map(|i| {
            let o = started(i).copied().unwrap_or(JobOutcome {
                start: jobs[i].submit,
                end: jobs[i].submit,
            });
            JobRecord::of(&jobs[i], &o)
        })
        .collect();
    let log = kept
        .into_iter()
        .filter(|(_, e)| (lo..hi).contains(&e.job))
        .map(|(_, mut e)| {
            // Every job it names is in the window's range, so at or after `lo`.
            e.job -= lo;
            if let Some(j) = named_mut(&mut e.reason) {
                *j -= lo;
            }
            e
        })
        .collect();
    // Every started job's submit, start and end, sorted: the submits first, so that the jobs
    // are freed before the room for the rest is made; no doubling, and sorted in place, without
    // a merge buffer (times equal under `total_cmp` have the same bits, so the order they were
    // gathered in and an unstable sort give the same vector).
    let started = jobs.iter().zip(outcomes).filter(|(_, o)| !o.start.is_nan());
    let mut all: Vec<Time> = Vec::with_capacity(started.clone().count());
    all.extend(started.map(|(j, _)| j.submit));
    let n = jobs.len();
    drop(jobs);
    all.reserve_exact(2 * all.len());
    for o in outcomes.iter().take(n).filter(|o| !o.start.is_nan()) {
        all.extend([o.start, o.end]);
    }
    all.sort_unstable_by(f64::total_cmp);
    all.dedup();
    let below = all.partition_point(|&x| x < t0);
    let above = all.partition_point(|&x| x <= t1);
    Ok(ReplayWindow {
        procs,
        t0,
        t1,
        first: lo,
        records,
        log,
        span: (
            all.first().copied().unwrap_or(t0),
            all.last().copied().unwrap_or(t1),
        ),
        before: below.checked_sub(1).and_then(|i| all.get(i).copied()),
        after: all.get(above).copied(),
        instants_before: below,
        instants: all.len(),
    })
}

/// The job an entry names besides its own, if any: the one passed, the head, the one whose
/// completion moved it.
fn named(mut r: Reason) -> Option<JobId> {
    named_mut(&mut r).copied()
}

/// [`named`], to count it anew.
fn named_mut(r: &mut Reason) -> Option<&mut JobId> {
    match r {
        Reason::ByPriority {
            passed: Some((j, _)),
            ..
        } => Some(j),
        Reason::BeforeShadow { head, .. } | Reason::IntoExtra { head, .. } => Some(head),
        Reason::Moved { completed, .. } => Some(completed),
        _ => None,
    }
}
