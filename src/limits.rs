//! Limits on untrusted input, in one place for the CLI, the web worker and every share-link
//! decoder. No paper defines them: they bound what one run may cost (memory, time) so that a
//! typo (`"jobs": 100000000`), a gzip bomb or `/dev/zero` is refused with an error that names
//! the limit and the value instead of exhausting the machine. The sizes of the papers'
//! experiments (Ababneh & Bani-Mohammad §5: 32 × 32 meshes; Ernemann et al. §IV: 6 sites; Mache et al. Table 1: 1000
//! jobs) and of the Parallel Workloads Archive's traces are far below every limit.
//!
//! The constants are the defaults; [`Limits`] carries the ones a run uses, which the CLI may
//! raise with a flag (`--max-jobs`, `--max-inflated-bytes`) where a researcher legitimately
//! needs more. Structural limits (mesh side, sites, sweep points, load factor range) are
//! fixed: they guard indices and loops, not just memory.

use std::fmt;

pub use crate::base::param_error::echo_number;
use crate::base::{ConfigError, OutOfRange, ParamError};

/// Largest file the web page reads into memory (an upload, compressed or not).
pub const MAX_UPLOAD_BYTES: u64 = 512_000_000;
/// Most bytes of SWF text read from one trace (after gzip decompression): a gzip bomb stops
/// here.
pub const MAX_INFLATED_BYTES: u64 = 1 << 30;
/// Most bytes of an experiment file (JSON) the CLI reads.
pub const MAX_DOCUMENT_BYTES: u64 = 16 << 20;
/// Most bytes of `;` header lines kept from one trace (real headers are a few kB); further
/// header lines are read but not kept.
pub const MAX_HEADER_BYTES: u64 = 1 << 20;
/// Most jobs a synthetic model may generate (per model; per site in a grid).
pub const MAX_JOBS: usize = 1_000_000;
/// Most jobs kept from one trace (the largest traces of the Parallel Workloads Archive have
/// about 1.2 million).
pub const MAX_TRACE_JOBS: usize = 2_000_000;
/// Most sites × jobs of a grid experiment (all sites' jobs together, times the number of
/// sites): the grid engine's local schedulers keep state for every job of the grid at every
/// site, about 82 bytes per (site, job) measured, so memory grows with this product (64 sites
/// × 10,000 jobs each would need 3.4 GB). 2^23 keeps a grid below about 700 MB.
pub const MAX_GRID_CELLS: u64 = 1 << 23;
/// Largest side of a 2D mesh (W and H).
pub const MAX_MESH_SIDE: u32 = 256;
/// Most sites of a grid experiment.
pub const MAX_SITES: usize = 64;
/// Most points of a load-factor sweep.
pub const MAX_SWEEP_POINTS: usize = 50;
/// Most points of a sweep file (`schedlab sweep plan`: axes × replications). Each point is a
/// file on disk and a result file after the run, so this bounds the files one plan writes.
pub const MAX_SWEEP_FILE_POINTS: usize = 100_000;
/// Largest load factor (the range is [[`MIN_LOAD_FACTOR`], [`MAX_LOAD_FACTOR`]]).
pub const MAX_LOAD_FACTOR: f64 = 1000.0;
/// Smallest load factor: submit times are divided by the load factor, so a tiny one (1e-320)
/// would turn them into infinities; 0.001 stretches a trace a thousand times.
pub const MIN_LOAD_FACTOR: f64 = 0.001;
/// Largest time in seconds a user may give (a trace's submit time, run time or requested
/// time; a synthetic model's mean interarrival, run or service time): 10^12 s, about 31,700
/// years. With at most [`MIN_LOAD_FACTOR`] stretching and 2^32 processors, every sum and
/// product the metrics take (areas, weighted turnarounds) stays far inside f64's range.
pub const MAX_TIME: f64 = 1e12;
/// Smallest mean time in seconds of a synthetic model and smallest tabulated run time of a
/// moldable profile: a microsecond (Mache et al.'s compute-free contention runs use exactly that);
/// below it (1e-320) run times round to 0 and every ratio to them is undefined.
pub const MIN_TIME: f64 = 1e-6;
/// Most flits per packet of the wormhole model (`network.wormhole.flits`).
pub const MAX_PACKET_FLITS: u32 = 1024;
/// Smallest `network.wormhole.round_length` in seconds: a job of run time C runs C / round
/// length rounds of messages, so below a second a day-long job would send millions of rounds
/// (the model's event bound would stop it, but only after minutes).
pub const MIN_ROUND_LENGTH: f64 = 1.0;
/// Largest `estimate_factor` of a synthetic model (user estimate = run time × factor).
pub const MAX_ESTIMATE_FACTOR: f64 = 1000.0;
/// Most characters of a value (a name, a link, a number) an error message repeats.
pub const MAX_ECHO_CHARS: usize = 80;

/// Most bytes of an exercise file (`crate::exercise`, docs/exercises.md).
pub const MAX_EXERCISE_BYTES: usize = 256 * 1024;
/// Most questions of one exercise.
pub const MAX_EXERCISE_QUESTIONS: usize = 12;
/// Most named runs (experiments) of one exercise.
pub const MAX_EXERCISE_RUNS: usize = 8;
/// Most options of a multiple-choice question, and most hints of a question.
pub const MAX_EXERCISE_OPTIONS: usize = 8;
/// Most characters of one text of an exercise (its text, a prompt, a hint, an explanation).
pub const MAX_EXERCISE_TEXT: usize = 20_000;
/// Most jobs of an exercise's run (inline workload lines, synthetic jobs): exercises are
/// meant to be followed by hand, and a page runs them all when it opens one.
pub const MAX_EXERCISE_JOBS: usize = 1_000;

/// Longest estimated run, in seconds, the command line starts without `--max-work`
/// ([`WorkEstimate`], `crate::work`): ten minutes on the calibration machine.
pub const MAX_WORK_SECONDS: f64 = 600.0;
/// Longest estimated run, in seconds, a share link starts by itself in the page (a browser tab
/// runs the simulator about as fast as the native build, and a link should open at once);
/// above it the page shows the estimate and waits for Run.
pub const PAGE_WORK_SECONDS: f64 = 60.0;

/// What a run will cost before it starts (`crate::work`): abstract work units, the seconds
/// they take at the calibration rate (docs/limits.md, "Work bounds"), and in words what
/// dominates the cost.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkEstimate {
    /// Abstract work units (the model's operations; see `crate::work`).
    pub units: f64,
    /// `units` at the calibration rate: seconds of one core of the calibration machine.
    pub seconds: f64,
    /// What dominates the cost, in words (`conservative backfilling under overload: …`).
    pub why: String,
}

impl WorkEstimate {
    /// `seconds` in words: `about 40 s`, `about 12 min`, `about 3 h`.
    pub fn duration(&self) -> String {
        duration_words(self.seconds)
    }
}

/// A duration in seconds as the estimates say it: `under a second`, `about 40 s`, `about 12
/// min`, `about 3 h`, `about 5 days`.
pub fn duration_words(seconds: f64) -> String {
    if !seconds.is_finite() || seconds >= 1e9 {
        return "more than 30 years".to_string();
    }
    if seconds < 1.0 {
        "under a second".to_string()
    } else if seconds < 90.0 {
        format!("about {:.0} s", seconds)
    } else if seconds < 90.0 * 60.0 {
        format!("about {:.0} min", seconds / 60.0)
    } else if seconds < 48.0 * 3600.0 {
        format!("about {:.0} h", seconds / 3600.0)
    } else {
        format!("about {:.0} days", seconds / 86400.0)
    }
}

/// A run whose [`WorkEstimate`] is above the work bound in force: refused before it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkExceeded {
    /// The estimate.
    pub estimate: WorkEstimate,
    /// The bound in force, in seconds.
    pub max_seconds: f64,
    /// The CLI flag that raises it (`--max-work`), `None` in the page.
    pub flag: Option<&'static str>,
}

impl fmt::Display for WorkExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this run is estimated at {} on this machine ({}), above the limit max_work = {} s",
            self.estimate.duration(),
            self.estimate.why,
            echo_number(self.max_seconds)
        )?;
        if let Some(flag) = self.flag {
            write!(
                f,
                "; raise {flag} (seconds) to run it, e.g. {flag} {}",
                echo_number(suggested_bound(self.estimate.seconds))
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for WorkExceeded {}

/// A round bound above `seconds` (twice the estimate, rounded up to a power of ten's 1, 2 or 5
/// multiple): what the refusal suggests.
fn suggested_bound(seconds: f64) -> f64 {
    let want = (seconds * 2.0).max(1.0);
    if !want.is_finite() || want > 1e15 {
        return 1e15;
    }
    let mut step = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if step * m >= want {
                return step * m;
            }
        }
        step *= 10.0;
    }
}

/// `Err` when `estimate` is above `max_seconds` (`flag`: the CLI flag that raises it).
pub fn check_work(
    estimate: &WorkEstimate,
    max_seconds: f64,
    flag: Option<&'static str>,
) -> Result<(), WorkExceeded> {
    if estimate.seconds > max_seconds {
        Err(WorkExceeded {
            estimate: estimate.clone(),
            max_seconds,
            flag,
        })
    } else {
        Ok(())
    }
}

/// The limits one run uses: the defaults above, or raised by a CLI flag. A sweep plan made
/// with other limits records them (`sweep-plan.json`), hence serde.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Most jobs of a synthetic model ([`MAX_JOBS`]).
    pub max_jobs: usize,
    /// Most jobs kept from one trace ([`MAX_TRACE_JOBS`]).
    pub max_trace_jobs: usize,
    /// Most sites × jobs of a grid experiment ([`MAX_GRID_CELLS`]).
    pub max_grid_cells: u64,
    /// Most bytes of SWF text read from one trace ([`MAX_INFLATED_BYTES`]).
    pub max_inflated_bytes: u64,
    /// Largest load factor ([`MAX_LOAD_FACTOR`]).
    pub max_load_factor: f64,
}

impl Limits {
    /// The defaults: what the web app always uses.
    pub const DEFAULT: Limits = Limits {
        max_jobs: MAX_JOBS,
        max_trace_jobs: MAX_TRACE_JOBS,
        max_grid_cells: MAX_GRID_CELLS,
        max_inflated_bytes: MAX_INFLATED_BYTES,
        max_load_factor: MAX_LOAD_FACTOR,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// A value above its limit: which limit, the value, the limit and how to raise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitExceeded {
    /// The limit's name (`max_jobs`).
    pub limit: &'static str,
    /// What was asked for.
    pub value: u64,
    /// The limit in force.
    pub max: u64,
    /// The CLI flag that raises it, if any (`--max-jobs`).
    pub flag: Option<&'static str>,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is above the limit {} = {}",
            self.value, self.limit, self.max
        )?;
        if let Some(flag) = self.flag {
            write!(f, " (the command line can raise it with {flag})")?;
        }
        Ok(())
    }
}

impl std::error::Error for LimitExceeded {}

/// `Err` naming the limit when `value > max`.
pub fn check(
    limit: &'static str,
    value: u64,
    max: u64,
    flag: Option<&'static str>,
) -> Result<(), LimitExceeded> {
    if value > max {
        Err(LimitExceeded {
            limit,
            value,
            max,
            flag,
        })
    } else {
        Ok(())
    }
}

/// The same check as a [`ConfigError`] on `key`.
pub fn check_key(
    key: &str,
    limit: &'static str,
    value: u64,
    max: u64,
    flag: Option<&'static str>,
) -> Result<(), ConfigError> {
    check(limit, value, max, flag).map_err(|e| ConfigError {
        key: key.to_string(),
        message: e.to_string(),
    })
}

/// `usize` as `u64` (saturating, for messages and comparisons).
pub fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl Limits {
    /// Checks a grid of `sites` sites and `jobs` jobs in all against
    /// [`Limits::max_grid_cells`]; the error is on `key`.
    pub fn check_grid(&self, key: &str, sites: usize, jobs: u64) -> Result<(), ConfigError> {
        let cells = as_u64(sites).saturating_mul(jobs);
        check(
            "max_grid_cells",
            cells,
            self.max_grid_cells,
            Some("--max-grid-cells"),
        )
        .map_err(|e| ConfigError {
            key: key.to_string(),
            message: format!(
                "{sites} sites × {jobs} jobs: {e}; every site's scheduler keeps state for \
                 every job of the grid, so use fewer sites or fewer jobs"
            ),
        })
    }

    /// Checks the jobs of a synthetic model against [`Limits::max_jobs`].
    pub fn check_jobs(&self, key: &str, jobs: usize) -> Result<(), ConfigError> {
        check_key(
            key,
            "max_jobs",
            as_u64(jobs),
            as_u64(self.max_jobs),
            Some("--max-jobs"),
        )
    }
}

/// `Err` unless `lf` is a load factor in [[`MIN_LOAD_FACTOR`], [`MAX_LOAD_FACTOR`]].
pub fn check_load_factor(lf: f64) -> Result<(), OutOfRange> {
    check_load_factor_up_to(lf, MAX_LOAD_FACTOR)
}

/// [`check_load_factor`] against another maximum (`schedlab run --max-load-factor`).
pub fn check_load_factor_up_to(lf: f64, max: f64) -> Result<(), OutOfRange> {
    if lf.is_finite() && lf >= MIN_LOAD_FACTOR && lf <= max {
        Ok(())
    } else {
        Err(OutOfRange {
            min: MIN_LOAD_FACTOR,
            max,
            unit: "",
            value: lf,
        })
    }
}

/// `Err` unless `v` is a time in [[`MIN_TIME`], [`MAX_TIME`]] (a mean of a synthetic model, a
/// tabulated run time).
pub fn check_time(v: f64) -> Result<(), OutOfRange> {
    if v.is_finite() && (MIN_TIME..=MAX_TIME).contains(&v) {
        Ok(())
    } else {
        Err(OutOfRange {
            min: MIN_TIME,
            max: MAX_TIME,
            unit: " seconds",
            value: v,
        })
    }
}

/// [`check_time`], the error naming `key`.
pub fn check_mean_time(key: &str, v: f64) -> Result<(), ParamError> {
    check_time(v).map_err(|range| ParamError::OutOfRange {
        key: key.into(),
        range,
    })
}

/// `text` as an error message repeats a user's value: whole when at most [`MAX_ECHO_CHARS`]
/// characters, else its first characters and how long it was.
pub fn echo(text: &str) -> String {
    let n = text.chars().count();
    if n <= MAX_ECHO_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(MAX_ECHO_CHARS).collect();
    format!("{head}… ({n} characters)")
}

/// [`echo`] of `text` quoted as Rust's `{:?}` quotes it.
pub fn echo_quoted(text: &str) -> String {
    let n = text.chars().count();
    if n <= MAX_ECHO_CHARS {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(MAX_ECHO_CHARS).collect();
    format!("{head:?}… ({n} characters)")
}

/// A reader's message (serde's) with every `` `quoted` `` value cut by [`echo`]: an unknown
/// key or name of a megabyte is not repeated whole.
pub fn echo_backticked(message: &str) -> String {
    if !message.contains('`') {
        return message.to_string();
    }
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                echo(part)
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_limit_and_the_value() {
        let e = Limits::DEFAULT
            .check_jobs("workload.synthetic.jobs", 100_000_000)
            .unwrap_err();
        assert_eq!(e.key, "workload.synthetic.jobs");
        assert_eq!(
            e.message,
            "100000000 is above the limit max_jobs = 1000000 (the command line can raise it \
             with --max-jobs)"
        );
        assert!(Limits::DEFAULT.check_jobs("k", MAX_JOBS).is_ok());
        assert!(check_load_factor(1000.0).is_ok());
        assert_eq!(
            check_load_factor(5000.0).unwrap_err().to_string(),
            "must be a number ≥ 0.001 and ≤ 1000 (got 5000)"
        );
        assert_eq!(
            check_load_factor(1e-320).unwrap_err().to_string(),
            "must be a number ≥ 0.001 and ≤ 1000 (got 1e-320)"
        );
        assert!(check_load_factor(MIN_LOAD_FACTOR).is_ok());
        assert_eq!(echo_number(1e300), "1e300");
        assert_eq!(echo_number(1.5), "1.5");
        let long = "x".repeat(1_000_000);
        assert_eq!(
            echo(&long).chars().count(),
            MAX_ECHO_CHARS + "… (1000000 characters)".chars().count()
        );
        assert!(check_load_factor(0.0).is_err());
        assert!(check_load_factor(f64::NAN).is_err());
    }
}
