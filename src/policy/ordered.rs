//! A flat policy with its three axes as parameters (docs/policies.md, "Queue orders,
//! backfilling and estimates"): a backfilling (none, EASY, conservative) over a queue order,
//! with EASY's own backfill order and the run-time estimates of [`super::order`].
//!
//! At every decision the waiting jobs are ranked by the queue order's priority (higher first,
//! ties by arrival), with the estimates of the chosen source, and then:
//!
//! * **none**: jobs start in that order while the next one fits (list scheduling);
//! * **EASY**: the same, then the first job that does not fit — the head of the order — gets the
//!   reservation at its shadow time (when enough processors are free by the running jobs'
//!   estimated ends); the other jobs, in the backfill order, start if they fit now and either
//!   end by the shadow time or use no more than the extra processors (Lifka; Mu'alem &
//!   Feitelson), as [`super::EasyBackfilling`] does in arrival order. The reservation goes to
//!   the head of the order at every decision (Maui's "current highest"): a job of higher
//!   priority that arrives takes it over. In arrival order with estimates that are upper
//!   bounds (request, exact, f ≥ 1) it is a promise, and kept;
//! * **conservative**: every waiting job, in the queue order, gets the earliest reservation
//!   that delays no job ranked before it; those whose reservation is now start. The
//!   reservations are planned again at every decision in the current order (as Srinivasan,
//!   Kettimuthu, Subramani and Sadayappan, "Characterization of backfilling strategies for
//!   parallel job scheduling", 2002, do with priorities): a plan, not a promise — a job of
//!   higher priority that arrives later goes before.
//!
//! A running job whose estimate has passed is expected to run to its request (where it is
//! killed). The arrival-order policies with requested times run as [`super::Fcfs`],
//! [`super::EasyBackfilling`] and [`super::ConservativeBackfilling`], whose data structures are
//! faster; this one is the general case. Its costs: a decision that can start nothing (every
//! waiting job needs more processors than are free) is skipped; a static order keeps the
//! waiting jobs sorted from their arrival; WFP3 and UNICEF keep each job's priority as a
//! function of its wait ([`WaitPriority`]); otherwise every waiting job is ranked at every
//! decision that can start one. Conservative plans a profile of the reservations each time,
//! and stops planning once no job left can start now (unless the decision is explained).

use std::collections::{BTreeMap, HashMap};

use super::order::{attributes, BuiltinOrder, Estimates, PolicyAxes, QueueOrder, WaitPriority};
use super::{Context, Policy, PolicyKind};
use crate::base::{Explainer, Explanation, JobId, Reason, Time};

/// A waiting job's rank under an order, and what starting it takes.
#[derive(Clone, Copy, Debug)]
struct Key {
    priority: f64,
    submit: Time,
    job: JobId,
    estimate: Time,
    /// The processors it holds once started.
    needs: u32,
}

/// Whether `a` goes before `b`: higher priority, then earlier submit, then lower id.
fn before(a: &Key, b: &Key) -> std::cmp::Ordering {
    b.priority
        .total_cmp(&a.priority)
        .then(a.submit.total_cmp(&b.submit))
        .then(a.job.cmp(&b.job))
}

/// The index of the best key (the first of the order) that `accept` accepts, if any.
fn best(keys: &[Key], accept: impl Fn(&Key) -> bool) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, k) in keys.iter().enumerate() {
        if accept(k) && best.is_none_or(|b| before(k, &keys[b]).is_lt()) {
            best = Some(i);
        }
    }
    best
}

/// A decision takes waiting jobs best first. The first few are found by a scan for the best
/// (a decision usually starts one or two jobs); after this many the rest are sorted once, so
/// that a decision starting many jobs costs a sort, not a scan per job. The jobs taken, and
/// their order, are the same either way.
const SCANS_BEFORE_SORT: usize = 4;

/// Takes keys best first, by the rule of [`SCANS_BEFORE_SORT`]: scans for the best while it has
/// taken fewer than that many, then sorts the keys once and walks them. Used by the decision's
/// jobs in order and by EASY's backfill, which take the same jobs in the same order either way.
struct BestFirst {
    /// The keys are sorted (given so, or after the scans): the best left is at `next` or after.
    sorted: bool,
    /// In sorted keys, the first not yet taken or passed over.
    next: usize,
    scans: usize,
}

impl BestFirst {
    /// A picker over keys that are `sorted` already, or not.
    fn new(sorted: bool) -> BestFirst {
        BestFirst {
            sorted,
            next: 0,
            scans: 0,
        }
    }

    /// The index of the best key of `keys` that `accept` accepts, if any. In sorted keys, those
    /// it passes over are not looked at again: `accept` must reject them from then on.
    fn find(&mut self, keys: &mut [Key], accept: impl Fn(&Key) -> bool) -> Option<usize> {
        if !self.sorted && self.scans == SCANS_BEFORE_SORT {
            keys.sort_unstable_by(before);
            self.sorted = true;
        }
        if self.sorted {
            while self.next < keys.len() && !accept(&keys[self.next]) {
                self.next += 1;
            }
            (self.next < keys.len()).then_some(self.next)
        } else {
            self.scans += 1;
            best(keys, accept)
        }
    }

    /// Takes key `i`, the one `find` returned: unsorted keys lose it now; sorted ones keep it
    /// before `next` (the caller drops the taken keys at the end).
    fn take(&mut self, keys: &mut Vec<Key>, i: usize) {
        if self.sorted {
            self.next += 1;
        } else {
            keys.swap_remove(i);
        }
    }
}

/// A running job as the policy planned it.
#[derive(Clone, Copy, Debug)]
struct Running {
    job: JobId,
    start: Time,
    procs: u32,
    /// Its estimate when it started.
    estimate: Time,
}

/// A waiting job under an order that reads the wait (WFP3, UNICEF) with fixed estimates: its
/// priority as a function of the wait, so that ranking the queue reads no job.
#[derive(Clone, Copy, Debug)]
struct ByWait {
    submit: Time,
    job: JobId,
    estimate: Time,
    needs: u32,
    priority: WaitPriority,
}

/// Per-user run times for predicted estimates: the last two of each user.
#[derive(Clone, Debug, Default)]
struct Predictor {
    last_two: HashMap<i64, (Option<Time>, Option<Time>)>,
}

impl Predictor {
    fn predict(&self, user: i64, request: Time) -> Time {
        match self.last_two.get(&user) {
            Some((Some(a), Some(b))) => ((a + b) / 2.0).min(request),
            Some((Some(a), None)) => a.min(request),
            _ => request,
        }
    }

    fn record(&mut self, user: i64, run: Time) {
        let e = self.last_two.entry(user).or_default();
        *e = (Some(run), e.0);
    }
}

/// A flat policy with a queue order, a backfill order and an estimates source.
#[derive(Clone, Debug)]
pub struct OrderedBackfilling {
    backfill: PolicyKind,
    axes: PolicyAxes,
    /// Waiting jobs in arrival order.
    queue: Vec<JobId>,
    /// How many waiting jobs need each number of processors (0: an estimate of 0, which holds
    /// none): when the fewest any of them needs exceed the free ones, nothing can start.
    needs: BTreeMap<u32, usize>,
    /// The queue order reads neither the wait nor the clock, and the estimates do not change:
    /// each job's key is computed once, on arrival, and kept in `sorted` (FCFS and EASY).
    static_order: bool,
    /// A static order's waiting jobs, best first.
    sorted: Vec<Key>,
    /// The queue order is WFP3 or UNICEF and the estimates do not change: the waiting jobs'
    /// priorities as functions of their wait, in arrival order (FCFS, EASY, conservative).
    by_wait: Option<BuiltinOrder>,
    waiting: Vec<ByWait>,
    /// The estimates bound the run times, so a running job's expected end never changes:
    /// `running` is kept by expected end.
    ends_fixed: bool,
    running: Vec<Running>,
    predictor: Predictor,
    promised: HashMap<JobId, Time>,
    explainer: Explainer,
    /// Scratch.
    stack: Vec<f64>,
    ranked: Vec<Key>,
    fewest_after: Vec<u32>,
}

fn user_of(job: &crate::workload::Job) -> i64 {
    job.record.get().map_or(-1, |r| r.user_id as i64)
}

impl OrderedBackfilling {
    /// `backfill` (FCFS: none) over `axes`.
    pub fn new(backfill: PolicyKind, axes: PolicyAxes) -> Self {
        // Conservative plans every job at every decision (`rank`): it keeps no sorted keys.
        let static_order = axes.order.is_static()
            && axes.estimates != Estimates::Predicted
            && backfill != PolicyKind::Conservative;
        let ends_fixed = axes.estimates.bounds_run_time();
        let by_wait = match axes.order {
            QueueOrder::Builtin(b) if b.reads_wait() && axes.estimates != Estimates::Predicted => {
                Some(b)
            }
            _ => None,
        };
        OrderedBackfilling {
            backfill,
            axes,
            queue: Vec::new(),
            needs: BTreeMap::new(),
            static_order,
            sorted: Vec::new(),
            by_wait,
            waiting: Vec::new(),
            ends_fixed,
            running: Vec::new(),
            predictor: Predictor::default(),
            promised: HashMap::new(),
            explainer: Explainer::default(),
            stack: Vec::new(),
            ranked: Vec::new(),
            fewest_after: Vec::new(),
        }
    }

    /// The estimate the policy plans a waiting `job` with.
    fn estimate(&self, job: &crate::workload::Job) -> Time {
        match self.axes.estimates {
            Estimates::Predicted => self.predictor.predict(user_of(job), job.estimate),
            e => e.of(job),
        }
    }

    /// The expected end of a running job at `now`: start + estimate, or its request once the
    /// estimate has passed.
    fn expected_end(r: &Running, request: Time, now: Time) -> Time {
        let end = r.start + r.estimate;
        if end <= now && r.estimate < request {
            r.start + request
        } else {
            end
        }
    }

    /// The key of `j` under `order`.
    fn key(&mut self, ctx: &Context<'_>, order: &QueueOrder, j: JobId) -> Key {
        let job = &ctx.jobs[j];
        let estimate = self.estimate(job);
        Key {
            priority: order.priority(&attributes(job, ctx.now, estimate), &mut self.stack),
            submit: job.submit,
            job: j,
            estimate,
            needs: job.procs_held(),
        }
    }

    /// (expected end, procs) of the running jobs and those started in this decision, by end.
    fn ends(&self, ctx: &Context<'_>) -> Vec<(Time, u32)> {
        let mut ends: Vec<(Time, u32)> = self
            .running
            .iter()
            .map(|r| {
                let request = ctx.jobs[r.job].estimate;
                (Self::expected_end(r, request, ctx.now), r.procs)
            })
            .collect();
        ends.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        ends
    }

    /// Records `j` as started now (the waiting queue is trimmed once per decision).
    fn start(&mut self, ctx: &Context<'_>, j: JobId, est: Time, starts: &mut Vec<JobId>) {
        starts.push(j);
        let r = Running {
            job: j,
            start: ctx.now,
            procs: ctx.jobs[j].procs_held(),
            estimate: est,
        };
        if self.ends_fixed {
            // Kept by expected end (then processors), as `ends` would sort them.
            let key = (r.start + r.estimate, r.procs);
            let at = self
                .running
                .partition_point(|x| (x.start + x.estimate, x.procs) <= key);
            self.running.insert(at, r);
        } else {
            self.running.push(r);
        }
    }

    /// The head's shadow time and the processors free then (`avail`): the earliest expected
    /// end by which `head_needs` processors are free, `free` being idle now.
    fn shadow(&self, ctx: &Context<'_>, free: u32, head_needs: u32) -> Option<(Time, u32)> {
        let mut avail = free;
        let mut shadow = None;
        let mut visit = |end: Time, procs: u32| -> bool {
            match shadow {
                None => {
                    avail += procs;
                    if avail >= head_needs {
                        shadow = Some(end);
                    }
                    true
                }
                Some(s) if end == s => {
                    avail += procs;
                    true
                }
                Some(_) => false,
            }
        };
        if self.ends_fixed {
            for r in &self.running {
                if !visit(r.start + r.estimate, r.procs) {
                    break;
                }
            }
        } else {
            for (end, procs) in self.ends(ctx) {
                if !visit(end, procs) {
                    break;
                }
            }
        }
        shadow.map(|s| (s, avail))
    }

    /// Drops the jobs started in this decision from the waiting queue (a static order's sorted
    /// keys have dropped them already: `start_in_order`, `decide_easy`).
    fn trim_queue(&mut self, ctx: &Context<'_>, starts: &[JobId], from: usize) {
        let started = &starts[from..];
        if started.is_empty() {
            return;
        }
        self.queue.retain(|j| !started.contains(j));
        self.waiting.retain(|w| !started.contains(&w.job));
        for &j in started {
            let needs = ctx.jobs[j].procs_held();
            if let Some(n) = self.needs.get_mut(&needs) {
                *n -= 1;
                if *n == 0 {
                    self.needs.remove(&needs);
                }
            }
        }
    }

    /// How many waiting jobs hold no processor.
    fn zero_held(&self) -> usize {
        self.needs.get(&0).copied().unwrap_or(0)
    }

    /// The fewest processors a waiting job needs.
    fn fewest_needed(&self) -> Option<u32> {
        self.needs.keys().next().copied()
    }

    /// Ends a decision of `decide_list` or `decide_easy`: a static order's sorted keys (lent to
    /// `self.ranked` by `keys`) given back, then the jobs started dropped.
    fn finish(&mut self, ctx: &Context<'_>, starts: &[JobId], from: usize) {
        if self.static_order {
            std::mem::swap(&mut self.ranked, &mut self.sorted);
        }
        self.trim_queue(ctx, starts, from);
    }

    /// The keys of every waiting job under the queue order, in `self.ranked` (unsorted), and
    /// how many waiting jobs hold no processor.
    fn keys(&mut self, ctx: &Context<'_>) -> usize {
        let mut keys = std::mem::take(&mut self.ranked);
        keys.clear();
        if self.static_order {
            // Kept in order since each job arrived: lent to the decision, given back by
            // `finish`.
            std::mem::swap(&mut keys, &mut self.sorted);
        } else if self.by_wait.is_some() {
            keys.extend(self.waiting.iter().map(|w| Key {
                priority: w.priority.at(ctx.now - w.submit),
                submit: w.submit,
                job: w.job,
                estimate: w.estimate,
                needs: w.needs,
            }));
        } else {
            let order = std::mem::take(&mut self.axes.order);
            for i in 0..self.queue.len() {
                let j = self.queue[i];
                keys.push(self.key(ctx, &order, j));
            }
            self.axes.order = order;
        }
        self.ranked = keys;
        self.zero_held()
    }

    /// Starts the best waiting jobs of `self.ranked` while they fit; the first that does not
    /// is returned (with its processors) and left in `self.ranked`.
    fn start_in_order(
        &mut self,
        ctx: &Context<'_>,
        free: &mut u32,
        starts: &mut Vec<JobId>,
    ) -> Option<(JobId, u32)> {
        let mut keys = std::mem::take(&mut self.ranked);
        let mut head = None;
        // Sorted keys (a static order, or after a few scans): those started are dropped
        // together at the end.
        let mut pick = BestFirst::new(self.static_order);
        while let Some(i) = pick.find(&mut keys, |_| true) {
            let Key {
                job: j,
                estimate: est,
                needs,
                ..
            } = keys[i];
            if needs > *free {
                head = Some((j, needs));
                break;
            }
            if self.explainer.is_on() {
                let reason = if self.axes.order.is_arrival() {
                    Reason::InOrder { needs, free: *free }
                } else {
                    // The job it went ahead of: the earliest submitted of those still waiting.
                    let passed = keys[pick.next..]
                        .iter()
                        .filter(|k| k.job != j && k.submit < keys[i].submit)
                        .min_by(|a, b| a.submit.total_cmp(&b.submit).then(a.job.cmp(&b.job)))
                        .map(|k| (k.job, k.priority));
                    Reason::ByPriority {
                        needs,
                        free: *free,
                        priority: keys[i].priority,
                        passed,
                    }
                };
                self.explainer.record(ctx.now, j, reason);
            }
            *free -= needs;
            self.start(ctx, j, est, starts);
            pick.take(&mut keys, i);
        }
        if pick.sorted {
            keys.drain(..pick.next);
        }
        if let Some((j, needs)) = head {
            if needs > *free {
                let blocked = Reason::HeadBlocked {
                    needs,
                    free: *free,
                    shadow: None,
                    extra: None,
                };
                if self.backfill == PolicyKind::Fcfs {
                    self.explainer.record(ctx.now, j, blocked);
                }
            }
        }
        self.ranked = keys;
        head
    }

    fn decide_list(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let from = starts.len();
        self.keys(ctx);
        let mut free = ctx.free_procs;
        self.start_in_order(ctx, &mut free, starts);
        self.finish(ctx, starts, from);
    }

    fn decide_easy(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let from = starts.len();
        let zero_held = self.keys(ctx);
        let mut free = ctx.free_procs;
        let head = self.start_in_order(ctx, &mut free, starts);
        let Some((head, head_needs)) = head else {
            self.finish(ctx, starts, from);
            return;
        };
        // A promise only in arrival order (in another order a job of higher priority may
        // arrive and become the head) and with estimates that are upper bounds (a prediction
        // can fall short, and the shadow time with it: Tsafrir et al.'s EASY++ delays heads).
        let promise = self.axes.order.is_arrival()
            && self.axes.estimates.bounds_run_time()
            && !self.promised.contains_key(&head);
        // Nothing can start: skip the shadow time, unless it is promised or explained.
        let zero_left = zero_held
            > starts[from..]
                .iter()
                .filter(|&&j| ctx.jobs[j].procs_held() == 0)
                .count();
        if free == 0 && !zero_left && !promise && !self.explainer.is_on() {
            self.finish(ctx, starts, from);
            return;
        }
        // The head's shadow time and the extra processors then.
        let Some((shadow, avail)) = self.shadow(ctx, free, head_needs) else {
            self.finish(ctx, starts, from);
            return;
        };
        let mut extra = avail - head_needs;
        if promise {
            self.promised.insert(head, shadow);
        }
        let blocked = Reason::HeadBlocked {
            needs: head_needs,
            free,
            shadow: Some(shadow),
            extra: Some(extra),
        };
        self.explainer.record(ctx.now, head, blocked);
        // Backfill the others in the backfill order: a job that fits now and either ends by the
        // shadow time or fits in the extra processors starts. One that does not when its turn
        // comes never will (the free and extra processors only shrink), so taking the best that
        // does, again and again, starts the same jobs in the same order. A static order's own
        // keys are scanned in place; other candidates are picked by scans, then sorted.
        let in_place = self.static_order && self.axes.backfill_order.is_none();
        let mut keys = std::mem::take(&mut self.ranked);
        let mut candidates = if in_place {
            Vec::new()
        } else {
            let mut c: Vec<Key> = keys
                .iter()
                .copied()
                .filter(|k| k.job != head && k.needs <= free)
                .collect();
            if let Some(order) = self.axes.backfill_order.clone() {
                for k in c.iter_mut() {
                    *k = self.key(ctx, &order, k.job);
                }
            }
            c
        };
        let backfilled_from = starts.len();
        let list = if in_place { &mut keys } else { &mut candidates };
        let mut pick = BestFirst::new(in_place);
        loop {
            if free == 0 && zero_held == 0 {
                break;
            }
            let qualifies = |k: &Key| {
                k.job != head
                    && k.needs <= free
                    && (ctx.now + k.estimate <= shadow || k.needs <= extra)
            };
            let Some(i) = pick.find(list, qualifies) else {
                break;
            };
            let Key {
                job: j,
                estimate: est,
                needs,
                ..
            } = list[i];
            let end = ctx.now + est;
            let reason = if end <= shadow {
                Reason::BeforeShadow { head, shadow, end }
            } else {
                extra -= needs;
                Reason::IntoExtra {
                    head,
                    shadow,
                    end,
                    extra_left: extra,
                }
            };
            self.explainer.record(ctx.now, j, reason);
            free -= needs;
            self.start(ctx, j, est, starts);
            // Sorted keys keep it (in place, the static order's keys drop the backfilled jobs
            // below, in one pass).
            pick.take(list, i);
        }
        if self.static_order && starts.len() > backfilled_from {
            // A static order's keys: those backfilled leave them (those started in order
            // already have).
            let backfilled = &starts[backfilled_from..];
            keys.retain(|k| !backfilled.contains(&k.job));
        }
        candidates.clear();
        self.ranked = keys;
        self.finish(ctx, starts, from);
    }

    fn decide_conservative(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        let from = starts.len();
        self.keys(ctx);
        let mut ranked = std::mem::take(&mut self.ranked);
        ranked.sort_unstable_by(before);
        let mut profile = Profile::new(ctx.now, ctx.free_procs, &self.ends(ctx));
        // The fewest processors any job from each rank on needs: once fewer are free now, no
        // job left can start now, and the rest of the plan (which only places them later) is
        // needed only to explain it.
        let mut fewest_after = std::mem::take(&mut self.fewest_after);
        fewest_after.clear();
        if !self.explainer.is_on() {
            fewest_after.extend(ranked.iter().rev().scan(u32::MAX, |m, k| {
                *m = (*m).min(k.needs);
                Some(*m)
            }));
            fewest_after.reverse();
        }
        for (
            rank,
            &Key {
                job: j,
                estimate: est,
                needs,
                ..
            },
        ) in ranked.iter().enumerate()
        {
            if fewest_after
                .get(rank)
                .is_some_and(|&fewest| profile.free_now() < fewest)
            {
                break;
            }
            let at = profile.earliest(needs, est);
            profile.reserve(at, est, needs);
            if at <= ctx.now {
                self.explainer.record(
                    ctx.now,
                    j,
                    Reason::InOrder {
                        needs,
                        free: ctx.free_procs,
                    },
                );
                self.start(ctx, j, est, starts);
            } else {
                // A plan, not a promise: the next decision plans again in the order.
                self.explainer
                    .record(ctx.now, j, Reason::Reserved { at, needs });
            }
        }
        self.ranked = ranked;
        self.fewest_after = fewest_after;
        self.trim_queue(ctx, starts, from);
    }
}

/// The next float after `t` (`f64::next_up`, which this crate's minimum Rust predates).
fn just_after(t: Time) -> Time {
    if !t.is_finite() {
        t
    } else if t == 0.0 {
        f64::from_bits(1)
    } else if t > 0.0 {
        f64::from_bits(t.to_bits() + 1)
    } else {
        f64::from_bits(t.to_bits() - 1)
    }
}

/// Free processors over time: steps (from, free) in time order, the last one lasting forever.
struct Profile {
    steps: Vec<(Time, u32)>,
}

impl Profile {
    fn new(now: Time, free: u32, ends: &[(Time, u32)]) -> Profile {
        let mut steps = vec![(now, free)];
        for &(end, procs) in ends {
            // A running job expected to end by now has not ended yet: free just after.
            let end = if end > now { end } else { just_after(now) };
            let last = steps.len() - 1;
            if steps[last].0 == end {
                steps[last].1 += procs;
            } else {
                let f = steps[last].1 + procs;
                steps.push((end, f));
            }
        }
        Profile { steps }
    }

    /// The processors free now (the first step).
    fn free_now(&self) -> u32 {
        self.steps.first().map_or(0, |s| s.1)
    }

    /// The earliest step start from which `needs` processors are free for `len` seconds.
    /// A step with too few free processors rules out every candidate start up to it (each of
    /// their windows reaches it), so the next candidate is the step after it: one pass.
    fn earliest(&self, needs: u32, len: Time) -> Time {
        let mut i = 0;
        'candidate: while let Some(&(t, _)) = self.steps.get(i) {
            for (k, &(u, f)) in self.steps.iter().enumerate().skip(i) {
                if u >= t + len && u > t {
                    break;
                }
                if f < needs {
                    i = k + 1;
                    continue 'candidate;
                }
            }
            return t;
        }
        // The last step has every processor free once all running jobs end.
        self.steps.last().map_or(0.0, |s| s.0)
    }

    /// Takes `needs` processors over [at, at + len).
    fn reserve(&mut self, at: Time, len: Time, needs: u32) {
        if needs == 0 {
            return;
        }
        // A job planned for no time still holds its processors for an instant.
        let until = if len > 0.0 { at + len } else { just_after(at) };
        let [from, to] =
            [at, until].map(
                |t| match self.steps.binary_search_by(|s| s.0.total_cmp(&t)) {
                    Ok(i) => i,
                    Err(i) => {
                        let before = if i > 0 { self.steps[i - 1].1 } else { 0 };
                        self.steps.insert(i, (t, before));
                        i
                    }
                },
            );
        // `until` was placed after `at`'s step was: `from` still indexes `at`.
        for s in &mut self.steps[from..to] {
            s.1 = s.1.saturating_sub(needs);
        }
    }
}

impl Policy for OrderedBackfilling {
    fn name(&self) -> &'static str {
        self.backfill.as_str()
    }

    fn full_name(&self) -> String {
        format!("{}{}", self.backfill.as_str(), self.axes.suffix())
    }

    fn job_arrived(&mut self, job: JobId, ctx: &Context<'_>) {
        *self.needs.entry(ctx.jobs[job].procs_held()).or_default() += 1;
        self.queue.push(job);
        if let Some(b) = self.by_wait {
            let j = &ctx.jobs[job];
            let estimate = self.estimate(j);
            if let Some(priority) = b.by_wait(estimate, j.procs as f64) {
                self.waiting.push(ByWait {
                    submit: j.submit,
                    job,
                    estimate,
                    needs: j.procs_held(),
                    priority,
                });
            }
        }
        if self.static_order {
            let order = std::mem::take(&mut self.axes.order);
            let key = self.key(ctx, &order, job);
            self.axes.order = order;
            let at = self.sorted.partition_point(|k| before(k, &key).is_lt());
            self.sorted.insert(at, key);
        }
    }

    fn job_completed(&mut self, job: JobId, ctx: &Context<'_>) {
        if let Some(i) = self.running.iter().position(|r| r.job == job) {
            let r = if self.ends_fixed {
                self.running.remove(i)
            } else {
                self.running.swap_remove(i)
            };
            if self.axes.estimates == Estimates::Predicted {
                self.predictor
                    .record(user_of(&ctx.jobs[job]), ctx.now - r.start);
            }
        }
    }

    fn decide(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobId>) {
        if self.queue.is_empty() {
            return;
        }
        // Nothing can start when every waiting job needs more processors than are free (an
        // arrival on a full machine, a completion that frees too few): skip the ranking, unless
        // the decision is explained, or a new arrival-order head is still to be promised its
        // shadow time. Conservative starts only a job whose reservation is now, so it too
        // starts nothing, and it keeps no plan between decisions.
        if self.fewest_needed().is_some_and(|n| n > ctx.free_procs)
            && !self.explainer.is_on()
            && !(self.axes.order.is_arrival()
                && self.axes.estimates.bounds_run_time()
                && self.backfill == PolicyKind::Easy
                && !self.promised.contains_key(&self.queue[0]))
        {
            return;
        }
        match self.backfill {
            PolicyKind::Fcfs => self.decide_list(ctx, starts),
            PolicyKind::Easy => self.decide_easy(ctx, starts),
            PolicyKind::Conservative => self.decide_conservative(ctx, starts),
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn promised_start(&self, job: JobId) -> Option<Time> {
        self.promised.get(&job).copied()
    }

    fn explain(&mut self, on: bool) {
        self.explainer = Explainer::new(on);
    }

    fn take_explanations(&mut self) -> Vec<Explanation> {
        self.explainer.take()
    }
}
