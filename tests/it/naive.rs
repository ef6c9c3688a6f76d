//! The naive reference schedulers — EASY in any queue and backfill order (for `properties.rs`
//! and `policy_axes.rs`), conservative in any queue order and `policy_axes.rs`'s list
//! scheduler — and their event loop: time moves from one arrival or end to the next; at each
//! instant the ends are taken first, then the arrivals, then `starts` says which waiting jobs
//! start now — asked again while zero-length jobs it started end at once. Recomputing
//! everything at every instant is the point: these are definitions, not implementations.

use schedlab::workload::Job;

/// What a reference scheduler sees at instant `t`.
pub struct Instant<'a> {
    pub t: f64,
    /// Waiting jobs (indices), in arrival order until the scheduler reorders them; it removes
    /// those it starts.
    pub waiting: &'a mut Vec<usize>,
    /// Running jobs (indices).
    pub running: &'a [usize],
    /// Start time of every job that has started.
    pub start: &'a [f64],
    /// Idle processors.
    pub free: u32,
}

/// The start time of every job of `jobs` on `procs` processors under `starts`.
pub fn simulate(
    jobs: &[Job],
    procs: u32,
    mut starts: impl FnMut(&mut Instant<'_>) -> Vec<usize>,
) -> Vec<f64> {
    let n = jobs.len();
    let mut start = vec![f64::NAN; n];
    let mut end = vec![f64::NAN; n];
    let mut arrived = 0;
    let mut waiting: Vec<usize> = Vec::new();
    let mut running: Vec<usize> = Vec::new();
    loop {
        let next_arrival = jobs.get(arrived).map(|j| j.submit);
        let next_end = running
            .iter()
            .map(|&j| end[j])
            .fold(f64::INFINITY, f64::min);
        let t = match next_arrival {
            Some(a) if a < next_end => a,
            _ if next_end.is_finite() => next_end,
            _ => break,
        };
        // Completions, then arrivals.
        running.retain(|&j| end[j] > t);
        while arrived < n && jobs[arrived].submit <= t {
            waiting.push(arrived);
            arrived += 1;
        }
        // Repeat until nothing more starts at t (zero-length jobs end at t again).
        loop {
            let used: u32 = running.iter().map(|&j| jobs[j].procs_held()).sum();
            let started = starts(&mut Instant {
                t,
                waiting: &mut waiting,
                running: &running,
                start: &start,
                free: procs - used,
            });
            for &j in &started {
                start[j] = t;
                end[j] = t + jobs[j].duration();
                running.push(j);
            }
            let before = running.len();
            running.retain(|&j| end[j] > t);
            if started.is_empty() || running.len() == before {
                break;
            }
        }
    }
    start
}

/// EASY written straight from its definition (docs/policies.md): at every instant the waiting
/// jobs are ranked by `queue_order` and start in that order while the next one fits; the first
/// that does not (the head) gets the earliest time by which enough processors are free by the
/// running jobs' estimated ends (the shadow time); the others, ranked by `backfill_order`, start
/// if they fit now and either end by the shadow time or use no more than the processors the
/// head leaves free then. Each order sorts the jobs it is given at instant `t`, in place
/// (arrival order leaves them as they are).
pub fn easy(
    jobs: &[Job],
    procs: u32,
    queue_order: impl Fn(&mut [usize], f64),
    backfill_order: impl Fn(&mut [usize], f64),
) -> Vec<f64> {
    let held = |j: usize| jobs[j].procs_held();
    simulate(jobs, procs, |now| {
        let (t, mut free) = (now.t, now.free);
        let queue = &mut *now.waiting;
        queue_order(queue, t);
        let mut started = Vec::new();
        while let Some(&h) = queue.first() {
            if held(h) > free {
                break;
            }
            free -= held(h);
            started.push(h);
            queue.remove(0);
        }
        if let Some(&h) = queue.first() {
            // Expected ends of the running jobs and of those just started, by their estimates.
            let mut ends: Vec<(f64, u32)> = now
                .running
                .iter()
                .map(|&j| (now.start[j] + jobs[j].estimate, held(j)))
                .chain(started.iter().map(|&j| (t + jobs[j].estimate, held(j))))
                .collect();
            ends.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut avail = free;
            let mut shadow = f64::INFINITY;
            for &(e, p) in &ends {
                avail += p;
                if avail >= held(h) {
                    shadow = e;
                    break;
                }
            }
            // Processors free at the shadow time: all that end by then.
            let at_shadow = free
                + ends
                    .iter()
                    .filter(|(e, _)| *e <= shadow)
                    .map(|(_, p)| p)
                    .sum::<u32>();
            let mut extra = at_shadow.saturating_sub(held(h));
            backfill_order(&mut queue[1..], t);
            let mut i = 1;
            while i < queue.len() {
                let j = queue[i];
                let fits = held(j) <= free;
                let short = t + jobs[j].estimate <= shadow;
                if fits && (short || held(j) <= extra) {
                    if !short {
                        extra -= held(j);
                    }
                    free -= held(j);
                    started.push(j);
                    queue.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        started
    })
}

/// Conservative backfilling written from its definition (docs/policies.md): at every instant
/// the waiting jobs are ranked by `queue_order`, and each in turn gets the earliest time from
/// which enough processors stay free for its estimate, given the running jobs (busy until
/// their estimated ends) and the reservations of the jobs ranked before it; those whose time
/// is now start. The candidate times are now and every end of a busy interval; a candidate
/// fits when the free processors at it and at every change inside its window suffice.
pub fn conservative(jobs: &[Job], procs: u32, queue_order: impl Fn(&mut [usize], f64)) -> Vec<f64> {
    let held = |j: usize| jobs[j].procs_held();
    simulate(jobs, procs, |now| {
        let t = now.t;
        queue_order(now.waiting, t);
        // Busy intervals [from, to) and their processors.
        let mut busy: Vec<(f64, f64, u32)> = now
            .running
            .iter()
            .map(|&j| (t, now.start[j] + jobs[j].estimate, held(j)))
            .collect();
        let free_at = |busy: &[(f64, f64, u32)], x: f64| {
            procs
                - busy
                    .iter()
                    .filter(|b| b.0 <= x && x < b.1)
                    .map(|b| b.2)
                    .sum::<u32>()
        };
        let mut started = Vec::new();
        for &j in now.waiting.iter() {
            let (len, need) = (jobs[j].estimate, held(j));
            let mut points: Vec<f64> = std::iter::once(t)
                .chain(busy.iter().flat_map(|b| [b.0, b.1]))
                .filter(|&x| x >= t)
                .collect();
            points.sort_by(f64::total_cmp);
            points.dedup();
            let fits = |c: f64| {
                points
                    .iter()
                    .filter(|&&x| x > c && x < c + len)
                    .chain([&c])
                    .all(|&x| free_at(&busy, x) >= need)
            };
            let at = points
                .iter()
                .copied()
                .find(|&c| fits(c))
                .expect("every processor is free once every busy interval ends");
            if need > 0 {
                busy.push((at, at + len, need));
            }
            if at == t {
                started.push(j);
            }
        }
        now.waiting.retain(|j| !started.contains(j));
        started
    })
}
