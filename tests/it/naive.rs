//! The event loop of the naive reference schedulers (`properties.rs`'s EASY, `policy_axes.rs`'s
//! list scheduler in a priority order): time moves from one arrival or end to the next; at each
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
