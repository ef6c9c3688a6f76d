//! Conservative backfilling (Mu'alem & Feitelson; the rigid baseline of Srinivasan et al. §1 and the
//! local "backfilling that does not postpone any next job" of Ernemann et al. §III-C).
//!
//! Every job gets a reservation when it arrives: the earliest time at which its size fits in
//! the free-processor profile for the length of its estimate. When a job completes before its
//! estimate, the freed part of the profile is released and the queue is *compressed*: waiting
//! jobs, in order of their current reservation (ties by arrival), are taken out of the profile
//! and put back at their earliest fit. A job's own old slot is always still free when it is
//! reinserted, so no reservation ever moves later — and no job starts later than the
//! reservation it was first given (checked: [`ConservativeBackfilling::violations`]).
//!
//! The compression is cheap without changing any reservation:
//!
//! * **No trial reinsertion.** Taking a job out and putting it back at its earliest fit moves
//!   it earlier exactly when some start `s` before its reservation `r` has the job's processors
//!   free on [s, min(s + estimate, r)) — its own slot covers everything from `r` to the end of
//!   any earlier fit — and the earliest such `s` is where it goes. [`Profile::fit_before`]
//!   finds it without touching the profile; only a job that moves changes the profile (its
//!   old slot given back, its new one taken).
//! * **Only jobs that may move are visited.** After a compression pass no waiting job can move
//!   (a job moved later in the pass frees time only from its own old reservation on, never
//!   before the reservations already visited), and arrivals, starts and the passing of time
//!   only take room away. So a job can move only into a window that contains an instant
//!   freed since: by the completion or by a job moved earlier in this pass. Such a window lies
//!   in a maximal stretch of at least the job's processors free that meets a freed interval;
//!   it is either the job's estimate long, or it reaches the job's reservation. For every freed
//!   interval the pass records, per level of free processors, the hull of the stretches
//!   meeting it — its length and its end ([`Freed`], upper bounds: stretches only shrink
//!   afterwards, or grow through a later freed interval, which is recorded too). A job moves
//!   only if, at its size, some recorded length is at least its estimate or some recorded end
//!   reaches its reservation; the waiting queue ([`WaitQueue`]) keeps for each chunk of jobs
//!   the fewest processors and the shortest estimate, so a whole chunk is skipped with one such
//!   test. Only the jobs passing it are searched exactly.
//! * Waiting jobs are kept ordered by (reservation, arrival); the pass walks them after the
//!   last job visited, since a moved job only goes behind it. The profile is a vector while
//!   short and a segment tree over chunks when long ([`Profile`]).

use super::profile::Profile;
use super::wait_queue::{Summary, WaitQueue};
use super::{Context, Policy};
use crate::base::event::OrdTime;
use crate::base::{Explainer, Explanation, JobId, Reason, Time};

/// Conservative backfilling with a reservation for every waiting job.
#[derive(Clone, Debug)]
pub struct ConservativeBackfilling {
    profile: Profile,
    /// Waiting jobs by (current reservation, arrival).
    waiting: WaitQueue,
    /// First reservation of each job.
    promised: Vec<Option<Time>>,
    /// Start time of each started job.
    started_at: Vec<Time>,
    /// Times the compression would have moved a job later (a bug if ever non-zero).
    violations: usize,
    scratch: Vec<(OrdTime, JobId)>,
    freed: Freed,
    /// Search every waiting job's earlier fit, not only those that may move (the plain
    /// compression, kept as the reference of a property test).
    visit_every_job: bool,
    explainer: Explainer,
}

/// What a compression pass knows of the stretches of free processors that meet an interval
/// freed during the pass (module docs): for each level, the longest hull and the furthest end.
/// Both are Pareto lists by decreasing level (lengths, ends increasing).
#[derive(Clone, Debug, Default)]
struct Freed {
    len: Vec<(u32, Time)>,
    end: Vec<(u32, Time)>,
    left: Vec<(u32, Time)>,
    right: Vec<(u32, Time)>,
    levels: Vec<u32>,
}

/// Keeps `(level, v)` in a Pareto list (levels decreasing, values increasing).
fn keep(front: &mut Vec<(u32, Time)>, level: u32, v: Time) {
    let i = front.partition_point(|&(l, _)| l >= level);
    if i > 0 && front[i - 1].1 >= v {
        // A level at least as high already has as much.
        return;
    }
    // Drop the entries at this level or below that have no more.
    let mut k = i;
    while k < front.len() && front[k].1 <= v {
        k += 1;
    }
    front.splice(i..k, std::iter::once((level, v)));
}

/// The largest value of a Pareto list at `level` or above (−∞ if none).
fn best(front: &[(u32, Time)], level: u32) -> Time {
    let i = front.partition_point(|&(l, _)| l >= level);
    if i == 0 {
        f64::NEG_INFINITY
    } else {
        front[i - 1].1
    }
}

/// The value of a (level, value) list by decreasing level at `level`: the entry with the
/// smallest level ≥ `level`, or `above` if every level is lower.
fn at_level(list: &[(u32, Time)], level: u32, above: Time) -> Time {
    let i = list.partition_point(|&(l, _)| l >= level);
    if i == 0 {
        above
    } else {
        list[i - 1].1
    }
}

impl Freed {
    fn clear(&mut self) {
        self.len.clear();
        self.end.clear();
    }

    /// Records the stretches of `profile` that meet [a, b) (clipped to `now`).
    fn add(&mut self, profile: &Profile, now: Time, a: Time, b: Time) {
        let a = if a < now { now } else { a };
        if b <= a {
            return;
        }
        let top = profile.max_free(a, b);
        if top == 0 {
            return;
        }
        // Leftwards from a: (level, start of the stretch) for levels from each cap down to the
        // next; levels above the first cap start at a.
        self.left.clear();
        let mut m = profile.free_at(a);
        let mut lo = a;
        if m > 0 {
            let left = &mut self.left;
            profile.walk_back(a, |t, f| {
                if f < m {
                    left.push((m, lo));
                    m = f;
                    if m == 0 {
                        return false;
                    }
                }
                if t <= now {
                    lo = now;
                    return false;
                }
                lo = t;
                true
            });
            if m > 0 {
                self.left.push((m, lo));
            }
        }
        // Rightwards from b: (level, end of the stretch); levels above the first cap end at b.
        self.right.clear();
        let mut m = profile.free_before(b);
        if m > 0 {
            let right = &mut self.right;
            profile.walk_on(b, |t, f| {
                if f < m {
                    right.push((m, t));
                    m = f;
                }
                m > 0
            });
            if m > 0 {
                // The last step lasts forever.
                self.right.push((m, f64::INFINITY));
            }
        }
        self.levels.clear();
        self.levels.push(top);
        let caps = self.left.iter().chain(&self.right).map(|&(l, _)| l);
        self.levels.extend(caps.filter(|&l| l < top));
        self.levels.sort_unstable_by(|x, y| y.cmp(x));
        self.levels.dedup();
        for &l in &self.levels {
            let lo = at_level(&self.left, l, a);
            let hi = at_level(&self.right, l, b);
            // A length computed by subtraction may round below the exact test's
            // `s + estimate <= t`; a relative slack keeps it an upper bound.
            let len = (hi - lo) + 1e-12 * (hi.abs() + lo.abs());
            keep(&mut self.len, l, len);
            keep(&mut self.end, l, hi);
        }
    }

    /// Whether a job of `procs` processors and `estimate`, reserved at `r`, may move.
    #[inline]
    fn may_move(&self, procs: u32, estimate: Time, r: Time) -> bool {
        self.may_fit_in(procs, estimate) || self.may_reach(procs, r)
    }

    /// Whether a recorded stretch of at least `procs` free processors is `estimate` long.
    #[inline]
    fn may_fit_in(&self, procs: u32, estimate: Time) -> bool {
        best(&self.len, procs) >= estimate
    }

    /// Whether a recorded stretch of at least `procs` free processors reaches `r`.
    #[inline]
    fn may_reach(&self, procs: u32, r: Time) -> bool {
        best(&self.end, procs) >= r
    }
}

impl ConservativeBackfilling {
    /// A policy for `n_jobs` jobs on `procs` processors.
    pub fn new(n_jobs: usize, procs: u32) -> Self {
        ConservativeBackfilling {
            profile: Profile::new(procs, f64::NEG_INFINITY),
            waiting: WaitQueue::default(),
            promised: vec![None; n_jobs],
            started_at: vec![f64::NAN; n_jobs],
            violations: 0,
            scratch: Vec::new(),
            freed: Freed::default(),
            explainer: Explainer::default(),
            visit_every_job: false,
        }
    }

    /// The same policy with the plain compression: every waiting job's earlier fit is
    /// searched, none is skipped by the freed-stretch test (module docs). For tests: its
    /// schedules must equal [`ConservativeBackfilling::new`]'s.
    #[doc(hidden)]
    pub fn visiting_every_job(n_jobs: usize, procs: u32) -> Self {
        ConservativeBackfilling {
            visit_every_job: true,
            ..ConservativeBackfilling::new(n_jobs, procs)
        }
    }

    /// How often a reservation would have moved later (always 0 unless there is a bug).
    pub fn violations(&self) -> usize {
        self.violations
    }

    /// The free-processor profile (running jobs and every reservation): where a new job
    /// would be reserved now (used by the grid scheduler, Ernemann et al. §III-C).
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Moves every waiting job, in order of current reservation, to its earliest fit if that
    /// is earlier, after [now, freed_until) was released by the early completion of
    /// `completed`; only jobs that may move are visited (module docs).
    fn compress(&mut self, ctx: &Context<'_>, completed: JobId, freed_until: Time) {
        let now = ctx.now;
        self.freed.clear();
        self.freed.add(&self.profile, now, now, freed_until);
        let mut after = None;
        loop {
            let (freed, profile, every) = (&self.freed, &self.profile, self.visit_every_job);
            let chunk = |s: &Summary| {
                let r = s.first.0 .0;
                every || r < now || (s.procs != u32::MAX && freed.may_move(s.procs, s.estimate, r))
            };
            let job = |(OrdTime(r), _): (OrdTime, JobId), procs: u32, est: Time| {
                // Due (a violation, counted below); nothing held or already at now: stays.
                // A stretch reaching the reservation must end just before it (exact check).
                procs > 0
                    && (r < now
                        || (r != now
                            && (every
                                || freed.may_fit_in(procs, est)
                                || (freed.may_reach(procs, r) && profile.free_before(r) >= procs))))
            };
            let Some((key, procs, est)) = self.waiting.next_where(after, chunk, job) else {
                break;
            };
            after = Some(key);
            let (OrdTime(old), j) = key;
            if old < now {
                // A waiting job is due at its reservation; reinserting it would have put it
                // back where it is and counted a violation.
                self.violations += 1;
                continue;
            }
            let Some(new) = self.profile.fit_before(now, procs, est, old) else {
                continue;
            };
            self.profile.release(old, old + est, procs);
            if !self.profile.reserve(new, new + est, procs) {
                self.violations += 1;
            }
            let moved = Reason::Moved {
                from: old,
                to: new,
                completed,
            };
            self.explainer.record(now, j, moved);
            self.waiting.remove(&key);
            self.waiting.insert((OrdTime(new), j), procs, est);
            self.freed.add(&self.profile, now, old, old + est);
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
        self.promised[job] = Some(start);
        let reserved = Reason::Reserved {
            at: start,
            needs: procs,
        };
        self.explainer.record(ctx.now, job, reserved);
        self.waiting.insert((OrdTime(start), job), procs, est);
    }

    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>) {
        let j = &ctx.jobs[job];
        let expected_end = self.started_at[job] + j.estimate;
        if ctx.now < expected_end && j.procs_held() > 0 {
            self.profile.release(ctx.now, expected_end, j.procs_held());
            self.profile.prune(ctx.now);
            self.compress(ctx, job, expected_end);
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
