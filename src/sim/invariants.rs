//! Invariants every finished flat-machine run must satisfy (ARCHITECTURE.md, product rule 5):
//! capacity never exceeded, no job before its submit time, every job run exactly once for
//! min(run time, estimate), reservations honoured, and for FCFS starts in arrival order.

use super::SimResult;
use crate::base::event::OrdTime;

/// Checks `result`; returns every violation found (empty when all hold).
/// `in_order` additionally requires start times non-decreasing in arrival order (FCFS).
pub fn check(result: &SimResult, in_order: bool) -> Vec<String> {
    let mut errors = Vec::new();
    let mut edges: Vec<(OrdTime, i64)> = Vec::with_capacity(result.jobs.len() * 2);
    let mut last_start = f64::NEG_INFINITY;
    for (i, (job, o)) in result.jobs.iter().zip(&result.outcomes).enumerate() {
        if o.start.is_nan() || o.end.is_nan() {
            errors.push(format!("job {} (#{i}) never ran", job.id));
            continue;
        }
        if o.start < job.submit {
            errors.push(format!(
                "job {} starts at {} before its submit time {}",
                job.id, o.start, job.submit
            ));
        }
        // The engine ends a job at start + duration; `end - start` may differ from the
        // duration in its last bit when start is not a whole number (a grid site's time-zone
        // shift, exponential arrival times), which is no violation.
        if o.end != o.start + job.duration() {
            errors.push(format!(
                "job {} ran {} s instead of min(run, estimate) = {} s",
                job.id,
                o.end - o.start,
                job.duration()
            ));
        }
        if let Some(Some(p)) = result.promised.get(i) {
            if o.start > *p {
                errors.push(format!(
                    "job {} starts at {} after its reservation {}",
                    job.id, o.start, p
                ));
            }
        }
        if in_order {
            if o.start < last_start {
                errors.push(format!(
                    "job {} starts at {} before an earlier arrival started ({})",
                    job.id, o.start, last_start
                ));
            }
            last_start = last_start.max(o.start);
        }
        if job.procs > result.procs {
            errors.push(format!("job {} is larger than the machine", job.id));
        }
        if o.end > o.start {
            edges.push((OrdTime(o.start), job.procs as i64));
            edges.push((OrdTime(o.end), -(job.procs as i64)));
        }
    }
    // Releases sort before acquisitions at the same time.
    edges.sort();
    let mut busy = 0i64;
    for (t, d) in edges {
        busy += d;
        if busy > result.procs as i64 {
            errors.push(format!(
                "{busy} processors busy at time {} on a {}-processor machine",
                t.0, result.procs
            ));
            break;
        }
    }
    errors
}
