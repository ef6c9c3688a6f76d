//! Invariants every finished moldable run must satisfy (Srinivasan et al. §2.2; ARCHITECTURE.md,
//! invariant 5): the core ones — processors never over-committed, no job before its submit
//! time, every job run exactly once — plus every job ran on a count inside its range, for
//! exactly T(count), and no job started after a start time its strategy promised.

use super::moldable_engine::MoldableResult;
use crate::base::event::OrdTime;

/// Checks `result`; returns every violation found (empty when all hold).
pub fn check(result: &MoldableResult) -> Vec<String> {
    let mut errors = Vec::new();
    let mut edges: Vec<(OrdTime, i64)> = Vec::with_capacity(result.jobs.len() * 2);
    for (i, (job, o)) in result.jobs.iter().zip(&result.outcomes).enumerate() {
        if o.start.is_nan() || o.end.is_nan() {
            errors.push(format!("job {} (#{i}) never ran", job.id));
            continue;
        }
        let (Some(shape), Some(&x)) = (result.shapes.get(i), result.chosen.get(i)) else {
            errors.push(format!("job {} (#{i}) has no moldable description", job.id));
            continue;
        };
        if o.start < job.submit {
            errors.push(format!(
                "job {} starts at {} before its submit time {}",
                job.id, o.start, job.submit
            ));
        }
        if !shape.allows(x) {
            errors.push(format!(
                "job {} ran on {x} processors, outside its range {}..={}",
                job.id, shape.min, shape.max
            ));
            continue;
        }
        let t = shape.run_time(job, x);
        if o.end != o.start + t {
            errors.push(format!(
                "job {} ran {} s on {x} processors instead of T({x}) = {t} s",
                job.id,
                o.end - o.start
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
        let held = shape.held(job, x);
        if o.end > o.start && held > 0 {
            edges.push((OrdTime(o.start), i64::from(held)));
            edges.push((OrdTime(o.end), -i64::from(held)));
        }
    }
    // Releases sort before acquisitions at the same time.
    edges.sort();
    let mut busy = 0i64;
    for (t, d) in edges {
        busy += d;
        if busy > i64::from(result.procs) {
            errors.push(format!(
                "{busy} processors busy at time {} on a {}-processor machine",
                t.0, result.procs
            ));
            break;
        }
    }
    errors
}
