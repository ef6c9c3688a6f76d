//! A job's story in words (issue 14): the decision explanations of a run
//! ([`crate::base::explain`]) rendered with the trace's job numbers, and put together per job —
//! when it arrived, what blocked it while it waited (its own entries and the blocked heads it
//! waited behind), why it started, and which earlier jobs it overtook. Used by
//! `schedlab run --explain JOB` / `--explain-csv` and by the page.

use crate::base::{Explanation, JobId, Reason, Time};
use crate::sim::JobOutcome;
use crate::workload::Job;

/// At most this many blocked heads are listed in one story; the rest are counted.
pub const MAX_HEADS_LISTED: usize = 8;

/// A time as the runs print it: whole seconds without decimals, otherwise up to 3 decimals.
pub fn time_text(t: Time) -> String {
    if t.fract() == 0.0 && t.abs() < 1e15 {
        format!("{t:.0}")
    } else {
        let s = format!("{t:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The trace's number of job `j`.
fn number(jobs: &[Job], j: JobId) -> u64 {
    jobs.get(j).map(|x| x.id).unwrap_or(j as u64)
}

/// A short name for the kind of `reason` (CSV column `kind`, JSON `kind`).
pub fn kind(reason: &Reason) -> &'static str {
    match reason {
        Reason::HeadBlocked { .. } => "head_blocked",
        Reason::InOrder { .. } => "in_order",
        Reason::BeforeShadow { .. } => "before_shadow",
        Reason::IntoExtra { .. } => "into_extra",
        Reason::Reserved { .. } => "reserved",
        Reason::Moved { .. } => "moved",
        Reason::AtReservation { .. } => "at_reservation",
        Reason::NoSubmesh { .. } => "no_submesh",
        Reason::Placed { .. } => "placed",
    }
}

/// `reason` in words, naming jobs by their trace numbers.
pub fn reason_text(reason: &Reason, jobs: &[Job]) -> String {
    let t = time_text;
    match *reason {
        Reason::HeadBlocked {
            needs,
            free,
            shadow,
            extra,
        } => {
            let mut s = format!("blocked at the head of the queue: needs {needs}, {free} free");
            if let Some(shadow) = shadow {
                s += &format!(
                    "; shadow time t={} (enough processors free by the running jobs' estimates)",
                    t(shadow)
                );
                if let Some(extra) = extra {
                    s += &format!(", {extra} extra then");
                }
            }
            s
        }
        Reason::InOrder { needs, free } => {
            format!("started in queue order: needs {needs}, {free} free")
        }
        Reason::BeforeShadow { head, shadow, end } => format!(
            "backfilled ahead of head job {}: ends by its estimate at t={}, no later than the \
             head's shadow time t={}",
            number(jobs, head),
            t(end),
            t(shadow)
        ),
        Reason::IntoExtra {
            head,
            shadow,
            end,
            extra_left,
        } => format!(
            "backfilled ahead of head job {} into the extra processors: ends at t={}, after the \
             shadow time t={}, on processors the head does not need ({extra_left} extra left)",
            number(jobs, head),
            t(end),
            t(shadow)
        ),
        Reason::Reserved { at, needs } => format!(
            "reserved {needs} processors from t={} (the earliest time they are free for its \
             whole estimate)",
            t(at)
        ),
        Reason::Moved {
            from,
            to,
            completed,
        } => format!(
            "reservation moved earlier, from t={} to t={}, by the early completion of job {}",
            t(from),
            t(to),
            number(jobs, completed)
        ),
        Reason::AtReservation { first } => {
            format!("started at its reservation (first promised t={})", t(first))
        }
        Reason::NoSubmesh {
            w,
            h,
            rotated,
            free_nodes,
            largest_w,
            largest_h,
        } => {
            let nor = if rotated && w != h {
                format!(" (nor {h}×{w})")
            } else {
                String::new()
            };
            format!(
                "no free {w}×{h} submesh{nor}: {free_nodes} nodes free, the largest free \
                 submesh is {largest_w}×{largest_h}"
            )
        }
        Reason::Placed { x, y, w, h } => {
            format!("placed on the {w}×{h} submesh at ({x}, {y})")
        }
    }
}

/// Quotes a CSV field when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Header of [`csv_line`].
pub const CSV_HEADER: &str = "time,job,kind,text";

/// One explanation as a CSV row (`time,job,kind,text`; job = the trace's number).
pub fn csv_line(e: &Explanation, jobs: &[Job]) -> String {
    format!(
        "{},{},{},{}",
        time_text(e.time),
        number(jobs, e.job),
        kind(&e.reason),
        csv_field(&reason_text(&e.reason, jobs))
    )
}

/// The index of the job with trace number `id`, if there is one.
pub fn job_with_number(jobs: &[Job], id: u64) -> Option<JobId> {
    jobs.iter().position(|j| j.id == id)
}

/// The story of job `j`, one line each: arrival, every explanation of its own, the blocked
/// heads it waited behind (at most [`MAX_HEADS_LISTED`]), its start with the earlier jobs it
/// overtook, and its end. `log` is a run's explanations in the order recorded.
pub fn story(j: JobId, jobs: &[Job], outcomes: &[JobOutcome], log: &[Explanation]) -> Vec<String> {
    let Some(job) = jobs.get(j) else {
        return Vec::new();
    };
    let t = time_text;
    let outcome = outcomes.get(j).copied().filter(|o| !o.start.is_nan());
    let start = outcome.map(|o| o.start);
    let mut lines = vec![format!(
        "Job {}: {} processors, estimate {} s, run time {} s; arrived at t={}.",
        job.id,
        job.procs,
        t(job.estimate),
        t(job.run_time),
        t(job.submit)
    )];
    // A blocked head this job waited behind: an earlier job's entry while it waited (the
    // decisions of its start instant included).
    let behind = |e: &&Explanation| e.job < j && matches!(e.reason, Reason::HeadBlocked { .. });
    let recorded_on_arrival = log.iter().filter(behind).any(|e| e.time == job.submit);
    // The head that was already blocked when the job arrived (its entry is not repeated while
    // it stays blocked the same way), unless the arrival instant recorded one.
    let blocked_on_arrival = log
        .iter()
        .filter(behind)
        .filter(|e| e.time < job.submit && !recorded_on_arrival)
        .next_back()
        .filter(|e| {
            outcomes
                .get(e.job)
                .is_none_or(|o| o.start.is_nan() || o.start > job.submit)
        });
    if let Some(e) = blocked_on_arrival {
        lines.push(format!(
            "On arrival: head job {} was {} (since t={}).",
            number(jobs, e.job),
            reason_text(&e.reason, jobs),
            t(e.time)
        ));
    }
    let mut heads = 0usize;
    for e in log {
        if e.job == j {
            lines.push(format!(
                "t={}: {}.",
                t(e.time),
                reason_text(&e.reason, jobs)
            ));
        } else if behind(&e) && e.time >= job.submit && start.is_none_or(|s| e.time <= s) {
            heads += 1;
            if heads <= MAX_HEADS_LISTED {
                lines.push(format!(
                    "t={}: waited behind head job {}, {}.",
                    t(e.time),
                    number(jobs, e.job),
                    reason_text(&e.reason, jobs)
                ));
            }
        }
    }
    if heads > MAX_HEADS_LISTED {
        lines.push(format!(
            "… and {} more blocked heads while it waited.",
            heads - MAX_HEADS_LISTED
        ));
    }
    match outcome {
        Some(o) => {
            let overtaken: Vec<u64> = (0..j)
                .filter(|&k| outcomes.get(k).is_some_and(|ok| ok.start > o.start))
                .map(|k| number(jobs, k))
                .collect();
            let mut s = format!(
                "Started at t={} after waiting {} s; ended at t={}.",
                t(o.start),
                t(o.start - job.submit),
                t(o.end)
            );
            if !overtaken.is_empty() {
                let shown: Vec<String> = overtaken
                    .iter()
                    .take(MAX_HEADS_LISTED)
                    .map(u64::to_string)
                    .collect();
                let more = overtaken.len().saturating_sub(MAX_HEADS_LISTED);
                s += &format!(
                    " It overtook {} earlier job{} (arrived before it, started after it): {}{}.",
                    overtaken.len(),
                    if overtaken.len() == 1 { "" } else { "s" },
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                );
            }
            lines.push(s);
        }
        None => lines.push("Never started.".to_string()),
    }
    lines
}
