//! A job's story in words: the decision explanations of a run
//! ([`crate::base::explain`]) rendered with the trace's job numbers, and put together per job —
//! when it arrived, what blocked it while it waited (its own entries and the blocked heads it
//! waited behind), why it started, and which earlier jobs it overtook. Used by
//! `schedlab run --explain JOB` / `--explain-csv` and by the page.

use crate::base::{Choice, Explanation, JobId, Reason, SiteOffer, Time};
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

/// What explanations name: jobs (by their trace numbers) and, in a grid, sites.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub jobs: &'a [Job],
    pub sites: &'a [String],
}

impl<'a> Names<'a> {
    /// The jobs of a run on one machine.
    pub fn jobs(jobs: &'a [Job]) -> Self {
        Names { jobs, sites: &[] }
    }

    fn job(&self, j: JobId) -> u64 {
        self.jobs.get(j).map(|x| x.id).unwrap_or(j as u64)
    }

    fn site(&self, s: u32) -> String {
        match self.sites.get(s as usize) {
            Some(name) => format!("site {name}"),
            None => format!("site {}", s + 1),
        }
    }
}

/// `1234567.5` → `"1,234,567.5"`: a number of seconds as [`time_text`] prints it, its whole
/// part in groups of three digits.
pub fn grouped_text(t: Time) -> String {
    let s = time_text(t);
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => ("\u{2212}", r),
        None => ("", s.as_str()),
    };
    let (whole, frac) = rest.split_once('.').map_or((rest, ""), |(w, f)| (w, f));
    if !whole.bytes().all(|b| b.is_ascii_digit()) {
        return s;
    }
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    format!("{sign}{out}")
}

/// A span of at least a minute in days, hours and whole minutes (`302271` → `"3 d 11 h 57 min"`,
/// the seconds cut off as a clock shows them; under an hour also seconds: `"4 min 10 s"`),
/// parts that are 0 left out; `None` under a
/// minute (the seconds say it) or for a value that is no finite number.
pub fn readable_span(d: Time) -> Option<String> {
    let a = d.abs();
    if !(60.0..1e15).contains(&a) {
        return None;
    }
    let parts: Vec<(u64, &str)> = if a < 3600.0 {
        let s = a.floor() as u64;
        vec![(s / 60, "min"), (s % 60, "s")]
    } else {
        let m = (a / 60.0).floor() as u64;
        vec![(m / 1440, "d"), (m / 60 % 24, "h"), (m % 60, "min")]
    };
    let text: Vec<String> = parts
        .into_iter()
        .filter(|p| p.0 > 0)
        .map(|(n, u)| format!("{n} {u}"))
        .collect();
    let sign = if d < 0.0 { "\u{2212}" } else { "" };
    Some(format!("{sign}{}", text.join(" ")))
}

/// A span of seconds for reading: `"8 s"`, `"3,600 s (1 h)"`, `"302,271 s (3 d 11 h 57 min)"`.
pub fn span_text(d: Time) -> String {
    match readable_span(d) {
        Some(r) => format!("{} s ({r})", grouped_text(d)),
        None => format!("{} s", grouped_text(d)),
    }
}

/// An instant of simulated time for reading: `"t = 10 s"`, `"t = 302,271 s (3 d 11 h 57 min)"`
/// (the seconds of the run's clock, and how long that is from time 0).
pub fn at_text(t: Time) -> String {
    format!("t = {}", span_text(t))
}

/// A priority for reading: 4 significant digits (−estimate, WFP3's cubes, F1–F4's scores).
fn priority_text(p: f64) -> String {
    if !p.is_finite() {
        return if p > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let digits = if p == 0.0 {
        0
    } else {
        (p.abs().log10().floor() as i32).max(-6)
    };
    let decimals = (3 - digits).clamp(0, 6) as usize;
    let s = format!("{p:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A short name for the kind of `reason` (CSV column `kind`, JSON `kind`).
pub fn kind(reason: &Reason) -> &'static str {
    match reason {
        Reason::HeadBlocked { .. } => "head_blocked",
        Reason::InOrder { .. } => "in_order",
        Reason::ByPriority { .. } => "by_priority",
        Reason::BeforeShadow { .. } => "before_shadow",
        Reason::IntoExtra { .. } => "into_extra",
        Reason::Reserved { .. } => "reserved",
        Reason::Moved { .. } => "moved",
        Reason::AtReservation { .. } => "at_reservation",
        Reason::NoSubmesh { .. } => "no_submesh",
        Reason::Placed { .. } => "placed",
        Reason::Dispatched { .. } => "dispatched",
    }
}

/// `reason` in words, naming jobs by their trace numbers.
pub fn reason_text(reason: &Reason, names: &Names<'_>) -> String {
    let t = at_text;
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
                    "; shadow time {} (enough processors free by the running jobs' estimates)",
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
        Reason::ByPriority {
            needs,
            free,
            priority,
            passed,
        } => {
            let mut s = format!(
                "started first in the queue order: priority {}, the highest waiting",
                priority_text(priority)
            );
            if let Some((job, p)) = passed {
                s += &format!(
                    "; went ahead of job {} (submitted earlier, priority {} < {})",
                    names.job(job),
                    priority_text(p),
                    priority_text(priority)
                );
            }
            s + &format!("; needs {needs}, {free} free")
        }
        Reason::BeforeShadow { head, shadow, end } => format!(
            "backfilled ahead of head job {}: ends by its estimate at {}, no later than the \
             head's shadow time {}",
            names.job(head),
            t(end),
            t(shadow)
        ),
        Reason::IntoExtra {
            head,
            shadow,
            end,
            extra_left,
        } => format!(
            "backfilled ahead of head job {} into the extra processors: ends at {}, after the \
             shadow time {}, on processors the head does not need ({extra_left} extra left)",
            names.job(head),
            t(end),
            t(shadow)
        ),
        Reason::Reserved { at, needs } => format!(
            "reserved {needs} processor{} from {} (the earliest time {} free for its \
             whole estimate)",
            if needs == 1 { "" } else { "s" },
            t(at),
            if needs == 1 { "it is" } else { "they are" }
        ),
        Reason::Moved {
            from,
            to,
            completed,
        } => format!(
            "reservation moved earlier, from {} to {}, by the early completion of job {}",
            t(from),
            t(to),
            names.job(completed)
        ),
        Reason::AtReservation { first } => {
            format!("started at its reservation (first promised {})", t(first))
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
        Reason::Dispatched {
            chosen,
            home_site,
            home,
            runner_up,
            decided_by,
            offers,
        } => dispatch_text(
            &chosen, home_site, home, runner_up, decided_by, offers, names,
        ),
    }
}

/// The grid scheduler's choice in words (Ernemann et al. §III-C).
fn dispatch_text(
    chosen: &SiteOffer,
    home_site: u32,
    home: Option<SiteOffer>,
    runner_up: Option<SiteOffer>,
    decided_by: Choice,
    offers: u32,
    names: &Names<'_>,
) -> String {
    let t = at_text;
    let verb = if chosen.site == home_site {
        "kept at its home".to_string()
    } else {
        "migrated to".to_string()
    };
    let mut s = format!(
        "{verb} {}: earliest start {} with {} nodes left (of {offers} offering site{})",
        names.site(chosen.site),
        t(chosen.start),
        chosen.left,
        if offers == 1 { "" } else { "s" }
    );
    if chosen.site != home_site {
        match home {
            Some(h) => {
                s += &format!(
                    "; at its home {} it would start at {}",
                    names.site(home_site),
                    t(h.start)
                );
                if h.start > chosen.start {
                    s += &format!(", {} later", span_text(h.start - chosen.start));
                }
            }
            None => s += &format!("; its home {} is too small", names.site(home_site)),
        }
    }
    if let Some(r) = runner_up {
        let other = names.site(r.site);
        s += &match decided_by {
            Choice::OnlyOffer => String::new(),
            Choice::EarliestStart => format!(
                "; it starts {} earlier than at {other}, which offers {}",
                span_text(r.start - chosen.start),
                t(r.start)
            ),
            Choice::BestFit => format!(
                "; same start as {other}, and BestFit leaves fewer nodes free ({} vs {})",
                chosen.left, r.left
            ),
            Choice::Home => {
                format!("; same start and nodes left as {other}: the home site wins the tie")
            }
            Choice::LowerIndex => {
                format!("; same start and nodes left as {other}: the lower site index wins the tie")
            }
        };
    } else {
        s += "; the only site that can take it";
    }
    s
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
pub fn csv_line(e: &Explanation, names: &Names<'_>) -> String {
    format!(
        "{},{},{},{}",
        time_text(e.time),
        names.job(e.job),
        kind(&e.reason),
        csv_field(&reason_text(&e.reason, names))
    )
}

/// Each job's own entries as lines `t = … s: text`, indexed by job — one pass over `log`, for
/// showing every job's reasons at once (the page's Gantt hover).
pub fn by_job(names: &Names<'_>, log: &[Explanation]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); names.jobs.len()];
    for e in log {
        if let Some(lines) = out.get_mut(e.job) {
            lines.push(format!(
                "{}: {}",
                at_text(e.time),
                reason_text(&e.reason, names)
            ));
        }
    }
    out
}

/// The index of the job with trace number `id`, if there is one.
pub fn job_with_number(jobs: &[Job], id: u64) -> Option<JobId> {
    jobs.iter().position(|j| j.id == id)
}

/// The story of job `j`, one line each: arrival, every explanation of its own, the blocked
/// heads it waited behind (at most [`MAX_HEADS_LISTED`]), its start with the earlier jobs it
/// overtook, and its end. `log` is a run's explanations in the order recorded.
pub fn story(
    j: JobId,
    names: &Names<'_>,
    outcomes: &[JobOutcome],
    log: &[Explanation],
) -> Vec<String> {
    let Some(job) = names.jobs.get(j) else {
        return Vec::new();
    };
    let t = at_text;
    let outcome = outcomes.get(j).copied().filter(|o| !o.start.is_nan());
    let start = outcome.map(|o| o.start);
    let mut lines = vec![format!(
        "Job {}: {} processors, estimate {}, run time {}; arrived at {}.",
        job.id,
        job.procs,
        span_text(job.estimate),
        span_text(job.run_time),
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
        .rfind(|e| behind(e) && e.time < job.submit && !recorded_on_arrival)
        .filter(|e| {
            outcomes
                .get(e.job)
                .is_none_or(|o| o.start.is_nan() || o.start > job.submit)
        });
    if let Some(e) = blocked_on_arrival {
        lines.push(format!(
            "On arrival: head job {} was {} (since {}).",
            names.job(e.job),
            reason_text(&e.reason, names),
            t(e.time)
        ));
    }
    let mut heads = 0usize;
    for e in log {
        if e.job == j {
            lines.push(format!("{}: {}.", t(e.time), reason_text(&e.reason, names)));
        } else if behind(&e) && e.time >= job.submit && start.is_none_or(|s| e.time <= s) {
            heads += 1;
            if heads <= MAX_HEADS_LISTED {
                lines.push(format!(
                    "{}: waited behind head job {}, {}.",
                    t(e.time),
                    names.job(e.job),
                    reason_text(&e.reason, names)
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
                .map(|k| names.job(k))
                .collect();
            let mut s = format!(
                "Started at {} after waiting {}; ended at {}.",
                t(o.start),
                span_text(o.start - job.submit),
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
