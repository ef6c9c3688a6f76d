//! Invariants every finished mesh run must satisfy (Ababneh & Bani-Mohammad), checked
//! by replaying the engine's start/end log on a fresh busy array:
//!
//! * every job runs exactly once, not before its submit time, for min(run time, estimate);
//! * every allocation is a w × h rectangle of the job's shape (or h × w when the run switched
//!   orientations), inside the mesh, of nodes that are free at that moment — so no node is ever in two jobs;
//! * the log agrees with the recorded start and end times and placements, in time order;
//! * a policy with a window of K jobs (Window-K; FCFS = Window-1) never starts a job outside
//!   the window: when job j starts, j < h + K where h is the oldest job not yet started.

use super::mesh_engine::{MeshAction, MeshSimResult};

/// Checks `result` (which must carry its log); returns every violation found (empty when all
/// hold).
pub fn check(result: &MeshSimResult) -> Vec<String> {
    let mut errors = Vec::new();
    let (w, h) = (result.width as usize, result.height as usize);
    let n = result.jobs.len();
    for (job, o) in result.jobs.iter().zip(&result.outcomes) {
        if o.start.is_nan() || o.end.is_nan() {
            errors.push(format!("job {} never ran", job.id));
            continue;
        }
        if o.start < job.submit {
            errors.push(format!(
                "job {} starts at {} before its submit time {}",
                job.id, o.start, job.submit
            ));
        }
        // end = start + duration exactly as computed (floating point: not end − start).
        if o.end != o.start + job.duration() {
            errors.push(format!(
                "job {} ran {} instead of {}",
                job.id,
                o.end - o.start,
                job.duration()
            ));
        }
    }
    if result.log.is_empty() && n > 0 {
        errors.push("the run carries no log to replay".into());
        return errors;
    }
    let mut grid = vec![usize::MAX; w * h];
    let mut started = vec![false; n];
    let mut ended = vec![false; n];
    let mut oldest = 0usize;
    let mut last_time = f64::NEG_INFINITY;
    for ev in &result.log {
        if ev.time < last_time {
            errors.push(format!("log goes back in time at {}", ev.time));
        }
        last_time = ev.time;
        match ev.action {
            MeshAction::Start { job, sub } => {
                let Some(j) = result.jobs.get(job) else {
                    errors.push(format!("log starts unknown job #{job}"));
                    continue;
                };
                if started[job] {
                    errors.push(format!("job {} starts twice", j.id));
                    continue;
                }
                started[job] = true;
                if result.outcomes[job].start != ev.time {
                    errors.push(format!("job {} start time disagrees with the log", j.id));
                }
                if result.placements[job] != Some(sub) {
                    errors.push(format!("job {} placement disagrees with the log", j.id));
                }
                let got = (sub.width(), sub.height());
                let rotated = result.switch_orientation && Some((got.1, got.0)) == j.shape;
                if Some(got) != j.shape && !rotated {
                    errors.push(format!("job {} requests {:?} but got {sub}", j.id, j.shape));
                }
                if !sub.fits_in(result.width, result.height) {
                    errors.push(format!("job {} got {sub}, outside the mesh", j.id));
                    continue;
                }
                for y in sub.y1..=sub.y2 {
                    for x in sub.x1..=sub.x2 {
                        let cell = &mut grid[(y as usize - 1) * w + x as usize - 1];
                        if *cell != usize::MAX {
                            errors.push(format!(
                                "node ({x}, {y}) given to job {} while job #{} holds it",
                                j.id, *cell
                            ));
                        }
                        *cell = job;
                    }
                }
                if let Some(k) = result.window {
                    while oldest < n && started[oldest] && oldest != job {
                        oldest += 1;
                    }
                    // `oldest` is the oldest job not started before this one.
                    if job >= oldest.saturating_add(k) {
                        errors.push(format!(
                            "job #{job} started outside the {k}-job window headed by job #{oldest}"
                        ));
                    }
                }
            }
            MeshAction::End { job } => {
                if job >= n || !started[job] || ended[job] {
                    errors.push(format!("log ends job #{job}, which is not running"));
                    continue;
                }
                ended[job] = true;
                if result.outcomes[job].end != ev.time {
                    errors.push(format!("job #{job} end time disagrees with the log"));
                }
                if let Some(sub) = result.placements[job] {
                    if sub.fits_in(result.width, result.height) {
                        for y in sub.y1..=sub.y2 {
                            for x in sub.x1..=sub.x2 {
                                grid[(y as usize - 1) * w + x as usize - 1] = usize::MAX;
                            }
                        }
                    }
                }
            }
        }
    }
    for (i, (s, e)) in started.iter().zip(&ended).enumerate() {
        if !s || !e {
            errors.push(format!(
                "job #{i} is not started and ended exactly once in the log"
            ));
        }
    }
    errors
}
