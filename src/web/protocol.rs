//! Messages between the page and the simulation worker, as serde JSON.
//!
//! Every message travels as a JSON string in `postMessage`, except a trace upload: the page
//! posts a two-element array `[json, File]` whose JSON is a [`ToWorker::Trace`] and whose
//! second element is the uploaded file (a handle, not its bytes: the worker reads it, keeps the
//! bytes and refers to them by name in later [`ToWorker::Run`] messages, so one upload serves
//! every policy of a comparison).
//!
//! Conversation: the worker posts [`FromWorker::Ready`] once it is listening; the page sends
//! nothing before. A run is answered by [`FromWorker::Progress`] messages (at most every
//! ~100 ms), then exactly one of [`FromWorker::Done`], [`FromWorker::Cancelled`] or
//! [`FromWorker::Error`] with the same `id`. This module has no web dependency, so the tests
//! can round-trip the messages.

use serde::{Deserialize, Serialize};

use crate::base::Explanation;
use crate::exercise::{RunRequest, RunResult};
use crate::metrics::compare_view::{ComparisonView, SortOrder};
use crate::metrics::JobRecord;
use crate::modes::flat::link::ShareState;
use crate::modes::flat::report::RunOutput;
use crate::modes::flat::spec::Experiment;
use crate::modes::grid::run::GridComparison;
use crate::modes::mesh::link::{MeshShare, MESH_SHARE_VERSION};
use crate::modes::mesh::run::MeshRunOutput;
use crate::modes::mesh::spec::MeshExperiment;
use crate::modes::moldable::run::{MoldSchedule, MoldableReport};
use crate::modes::timing::PhaseTimes;
use crate::modes::Envelope;
use crate::sim::replay_window::ReplayWindow;

/// Per-job records are sent with a result only up to this many jobs.
pub const MAX_JOB_RECORDS: usize = 5000;
/// Runs of at most this many jobs record decision explanations (docs/explanations.md), sent
/// with the per-job records.
pub const MAX_EXPLAINED_JOBS: usize = MAX_JOB_RECORDS;
/// The timeline sent for the charts has at most this many points (time-weighted means).
pub const MAX_TIMELINE_POINTS: usize = 400;
/// Wait-time quantiles sent for the distribution chart.
pub const WAIT_QUANTILES: usize = 201;

/// Bytes that travel beside a message's JSON, left where they arrived (a JavaScript array,
/// for the page's message handler) and read a piece at a time: a big schedule is never copied
/// whole into wasm memory.
#[derive(Clone, Default)]
pub struct Beside {
    len: usize,
    read: Option<std::rc::Rc<ReadAt>>,
}

/// Fills a buffer with the bytes from an offset.
type ReadAt = dyn Fn(usize, &mut [u8]);

impl Beside {
    /// `len` bytes, `read(at, dst)` filling `dst` with those from offset `at`.
    pub fn new(len: usize, read: impl Fn(usize, &mut [u8]) + 'static) -> Beside {
        Beside {
            len,
            read: Some(std::rc::Rc::new(read)),
        }
    }

    /// Bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills `dst` with the bytes from offset `at` (zeros where there are none).
    pub fn read(&self, at: usize, dst: &mut [u8]) {
        match &self.read {
            Some(read) if at.saturating_add(dst.len()) <= self.len => read(at, dst),
            _ => dst.fill(0),
        }
    }
}

impl std::fmt::Debug for Beside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Beside({} bytes)", self.len)
    }
}

impl PartialEq for Beside {
    fn eq(&self, other: &Beside) -> bool {
        self.len == other.len
            && match (&self.read, &other.read) {
                (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// A trace file that travels beside this message (the browser's `File`); the worker reads
    /// it, checks that it parses and answers [`FromWorker::TraceLoaded`] or [`FromWorker::Error`] (with no `id`).
    Trace { name: String },
    /// Run the experiment of `envelope`, any mode, in slices: answered by
    /// [`FromWorker::Progress`] messages (at most every ~100 ms), then exactly one of
    /// [`FromWorker::Done`] (its [`PageReport`] of the envelope's mode), [`FromWorker::Held`],
    /// [`FromWorker::Cancelled`] or [`FromWorker::Error`] with the same `id`. What runs:
    /// flat and mesh, the experiment of the envelope (`experiment`); grid, the experiment in
    /// every configuration of [`crate::modes::grid::run::CONFIGURATIONS`] (single sites, then
    /// job sharing); moldable, rigid conservative backfilling and every strategy of
    /// `strategies`. `traces` names traces sent earlier that its SWF workloads read.
    Run {
        id: u32,
        envelope: Box<Envelope>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        traces: Vec<String>,
        /// A work bound in seconds (a share link's flat run, which starts by itself): a run
        /// estimated above it is not simulated but answered by [`FromWorker::Held`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_work: Option<f64>,
        /// Leave the per-job data out of a mesh report (traffic-ratio sweeps need only the
        /// summary).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        lite: bool,
    },
    /// Stop run `id` (any run when `None`) at its next slice boundary.
    Cancel {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u32>,
    },
    /// Write a file of finished run `id` (the worker keeps the last [`KEPT_RUNS`] runs);
    /// answered by [`FromWorker::Exported`] or [`FromWorker::Error`] with no `id`.
    Export { id: u32, format: ExportFormat },
    /// The schedule of finished run `id` for the Gantt chart of any size: answered by
    /// [`FromWorker::Schedule`] (its bytes beside the JSON) or [`FromWorker::Error`] with no
    /// `id`.
    Schedule { id: u32 },
    /// Compare finished runs `a` and `b` (kept by the worker, any size) job by job: answered
    /// by [`FromWorker::Compared`] — the first [`COMPARE_ROWS`] rows in `sort` order — or
    /// [`FromWorker::CompareFailed`].
    Compare { a: u32, b: u32, sort: SortOrder },
    /// The CSV of every job of the comparison of runs `a` and `b`
    /// ([`crate::metrics::RunComparison::csv`]): answered by [`FromWorker::ComparedCsv`] or
    /// [`FromWorker::CompareFailed`].
    CompareCsv { a: u32, b: u32 },
    /// The window of finished run `id`'s replay around time `t` (its first instant when
    /// `None`), for a run too large to replay whole ([`crate::sim::replay_window`]): answered
    /// by [`FromWorker::ReplayWindow`] or [`FromWorker::ReplayFailed`].
    ReplayWindow {
        id: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        t: Option<f64>,
    },
    /// Exercises mode: do the runs of an exercise ([`crate::exercise::Exercise::run_requests`],
    /// each simulated by [`RunRequest::run`], the functions of `schedlab exercise`); answered
    /// by [`FromWorker::ExerciseDone`] or [`FromWorker::Error`] (naming the run's key) with the
    /// same `id`. The page parsed and validated the exercise and solves its questions from the
    /// results; the worker reads no exercise file (its bundle stays without that parser).
    RunExercise { id: u32, runs: Vec<RunRequest> },
    /// Time the phases of a flat or mesh share link's experiment over `runs` runs
    /// ([`crate::modes::timing`]), then the page's whole path for it (`scripts/bench-browser.mjs`; the
    /// page never sends it). Answered by a [`BenchReply`] — not a [`FromWorker`], so no page
    /// handles it — or a [`FromWorker::Error`] with the same `id`.
    Bench {
        id: u32,
        /// The share link or its fragment (`#e=…`, `#x=…`, `#m=…`).
        link: String,
        runs: usize,
        /// A trace sent earlier, for a workload that reads one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trace: Option<String>,
        /// Time the phases only (not the page's path): for profiling.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        phases_only: bool,
    },
}

impl ToWorker {
    /// A [`ToWorker::Run`] of `envelope` reading the traces `traces`.
    pub fn run(id: u32, envelope: Envelope, traces: Vec<String>) -> ToWorker {
        ToWorker::Run {
            id,
            envelope: Box::new(envelope),
            traces,
            max_work: None,
            lite: false,
        }
    }

    /// A [`ToWorker::Run`] of one flat experiment.
    pub fn run_flat(
        id: u32,
        experiment: Experiment,
        trace: Option<String>,
        max_work: Option<f64>,
    ) -> ToWorker {
        ToWorker::Run {
            id,
            envelope: Box::new(Envelope::Flat(ShareState::new(experiment, vec![]))),
            traces: trace.into_iter().collect(),
            max_work,
            lite: false,
        }
    }

    /// A [`ToWorker::Run`] of one mesh experiment (`lite`: without the per-job data).
    pub fn run_mesh(
        id: u32,
        experiment: MeshExperiment,
        trace: Option<String>,
        lite: bool,
    ) -> ToWorker {
        let allocators = vec![experiment.allocator];
        ToWorker::Run {
            id,
            envelope: Box::new(Envelope::Mesh(MeshShare {
                v: MESH_SHARE_VERSION,
                experiment,
                allocators,
                policy: None,
            })),
            traces: trace.into_iter().collect(),
            max_work: None,
            lite,
        }
    }
}

/// The worker's answer to a [`ToWorker::Bench`]: `{"type": "benched", …}`, milliseconds per
/// run throughout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReply {
    /// Always `benched`.
    #[serde(rename = "type")]
    pub kind: String,
    pub id: u32,
    /// Load, simulate and measure, through the library calls `schedlab bench phases` times.
    pub phases: PhaseTimes,
    /// Building what the page gets beyond the metrics from a finished run (flat: the chart
    /// data, per-job records and explanations of small runs; mesh: the per-job CSV and the
    /// cut to [`MAX_MESH_JOBS`] jobs).
    pub report_ms: Vec<f64>,
    /// Writing the page's result message as JSON.
    pub json_ms: Vec<f64>,
    /// Its length, bytes.
    pub json_bytes: usize,
    /// The page's whole path: what the worker does for a Run (flat: in slices with progress
    /// messages and yields to the event loop) or RunMesh message, JSON included.
    pub page_ms: Vec<f64>,
}

/// Files the worker writes from a finished run, exactly as `schedlab run` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// One line per job (`--jobs-csv`): header `id,submit,start,end,procs,…`.
    JobsCsv,
    /// The simulated schedule in the Standard Workload Format (`--swf-out`).
    Swf,
}

/// Rows of a comparison's job table sent by the worker ([`ToWorker::Compare`]); the CSV has
/// every job.
pub const COMPARE_ROWS: usize = 100;
/// Bars of a comparison's histogram of start shifts.
pub const COMPARE_BINS: usize = 40;

/// Finished runs the worker keeps for [`ToWorker::Export`] (one comparison of every policy).
pub const KEPT_RUNS: usize = 3;

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker is listening.
    Ready { version: String },
    /// A trace was read successfully and is kept under `name`.
    TraceLoaded(TraceInfo),
    /// Run `id` has completed `completed` of `total` jobs (over every simulation of the run:
    /// a grid's configurations, a moldable comparison's strategies); the simulated clock of
    /// simulation `stage` (counted from 0) is at `sim_time` seconds.
    Progress {
        id: u32,
        completed: usize,
        total: usize,
        sim_time: f64,
        #[serde(default, skip_serializing_if = "is_zero")]
        stage: usize,
    },
    /// Run `id` finished.
    Done { id: u32, report: Box<PageReport> },
    /// Run `id` stopped on request.
    Cancelled { id: u32 },
    /// Run `id` was not started: its work estimate is above the `max_work` it was sent with;
    /// `message` says how long it would take and why.
    Held { id: u32, message: String },
    /// The file asked for by [`ToWorker::Export`].
    Exported {
        id: u32,
        format: ExportFormat,
        text: String,
    },
    /// The schedule of run `id` ([`ToWorker::Schedule`]): the page's message is the array
    /// `[json, Uint8Array]`, the bytes those of [`crate::metrics::gantt::Schedule::encode`]
    /// (made readable in `bytes` by the page's message handler, where they stay).
    Schedule {
        id: u32,
        #[serde(skip)]
        bytes: Beside,
    },
    /// The comparison of runs `a` and `b` asked for by [`ToWorker::Compare`].
    Compared {
        a: u32,
        b: u32,
        view: Box<ComparisonView>,
    },
    /// The CSV asked for by [`ToWorker::CompareCsv`].
    ComparedCsv { a: u32, b: u32, text: String },
    /// The window of run `id`'s replay asked for by [`ToWorker::ReplayWindow`].
    ReplayWindow { id: u32, window: Box<ReplayWindow> },
    /// Runs `a` and `b` could not be compared ([`ToWorker::Compare`],
    /// [`ToWorker::CompareCsv`]): `message` says why.
    CompareFailed { a: u32, b: u32, message: String },
    /// No window of run `id`'s replay could be made ([`ToWorker::ReplayWindow`]): `message`
    /// says why.
    ReplayFailed { id: u32, message: String },
    /// Run `id` (or, with no `id`, a trace upload or an unreadable message) failed. `fatal`
    /// means the worker panicked and must be replaced.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u32>,
        message: String,
        #[serde(default)]
        fatal: bool,
    },
    /// The runs of exercise `id`, done, in the order asked.
    ExerciseDone { id: u32, runs: Vec<RunResult> },
}

/// What a finished run sends to the page: its mode's report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageReport {
    Flat(RunReport),
    Mesh(MeshReport),
    Grid(GridReport),
    Moldable(MoldablePageReport),
}

/// Each mode's report in and out of [`PageReport`]: `From` to send it, `TryFrom` for the
/// page's tab of that mode (another mode's report is handed back).
macro_rules! page_report_variants {
    ($($variant:ident($report:ty)),* $(,)?) => {$(
        impl From<$report> for PageReport {
            fn from(r: $report) -> PageReport {
                PageReport::$variant(r)
            }
        }

        impl TryFrom<PageReport> for $report {
            type Error = PageReport;

            fn try_from(r: PageReport) -> Result<$report, PageReport> {
                match r {
                    PageReport::$variant(r) => Ok(r),
                    other => Err(other),
                }
            }
        }
    )*};
}

page_report_variants!(
    Flat(RunReport),
    Mesh(MeshReport),
    Grid(GridReport),
    Moldable(MoldablePageReport),
);

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of a moldable comparison as sent to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldablePageReport {
    /// What `schedlab moldable --report` writes.
    pub report: MoldableReport,
    /// The reference's schedule, then each strategy's, for runs of at most
    /// [`crate::form::moldable::MAX_GANTT_JOBS`] jobs (else empty).
    #[serde(default)]
    pub schedules: Vec<MoldSchedule>,
    /// Wall-clock time of the runs in the worker, milliseconds.
    pub wall_ms: f64,
}

/// The result of a grid comparison as sent to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridReport {
    pub comparison: GridComparison,
    /// Wall-clock time of the runs in the worker, milliseconds.
    pub wall_ms: f64,
}

/// Jobs (records and layouts) sent with a mesh result at most; the per-job CSV always has
/// every job.
pub const MAX_MESH_JOBS: usize = 5000;

/// The result of one 2D-mesh run as sent to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshReport {
    /// The run, with `jobs` and `layouts` cut to the first [`MAX_MESH_JOBS`] jobs (empty for a
    /// `lite` run).
    pub output: MeshRunOutput,
    /// Jobs of the run.
    pub total_jobs: usize,
    /// `true` when `jobs` and `layouts` hold fewer than `total_jobs` jobs.
    pub truncated: bool,
    /// The per-job CSV of every job (`schedlab mesh --jobs-csv`); empty for a `lite` run.
    #[serde(default)]
    pub jobs_csv: String,
    /// Wall-clock time of the run in the worker, milliseconds.
    pub wall_ms: f64,
}

/// What the worker learnt from an uploaded trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceInfo {
    pub name: String,
    /// Size of the file as uploaded.
    pub bytes: usize,
    /// Jobs kept by the reader.
    pub jobs: usize,
    /// Jobs and lines the reader dropped.
    pub dropped: usize,
    /// Largest job, in processors.
    pub max_job_procs: u32,
    /// Machine size from the header (`MaxProcs`, else `MaxNodes`), if any.
    pub header_procs: Option<u64>,
    /// Lower-case hex SHA-256 of the file as uploaded (share links name traces by it).
    #[serde(default)]
    pub sha256: String,
    /// Seconds from the first to the last submit time.
    #[serde(default)]
    pub span_seconds: f64,
    /// The header's time zone (`TimeZoneString`), if any.
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// The result of one run as sent to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Summary, weight categories, drops, transforms (`RunOutput` serialised without its
    /// per-job records and timeline).
    pub output: RunOutput,
    /// Per-job records, when the run has at most [`MAX_JOB_RECORDS`] jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<Vec<JobRecord>>,
    /// Why each job of `jobs` (same order) waited and started — its decision explanations as
    /// lines — when the run has at most [`MAX_EXPLAINED_JOBS`] jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<Vec<Vec<String>>>,
    /// The run's decision explanations as recorded (the step-by-step replay,
    /// [`crate::sim::replay`]), when the run has at most [`MAX_EXPLAINED_JOBS`] jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanations: Option<Vec<Explanation>>,
    /// Wall-clock time of the run in the worker, milliseconds.
    pub wall_ms: f64,
    /// What the charts need.
    #[serde(default)]
    pub charts: ChartData,
}

/// A run reduced for the charts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChartData {
    /// Machine size, processors.
    pub procs: u32,
    /// (start of interval in seconds, mean busy processors, mean queued jobs) over at most
    /// [`MAX_TIMELINE_POINTS`] equal intervals of the run (time-weighted means).
    pub timeline: Vec<(f64, f64, f64)>,
    /// Wait times at the quantiles 0, 1/(n−1), …, 1 (seconds), n = [`WAIT_QUANTILES`].
    pub wait_quantiles: Vec<f64>,
}

impl ToWorker {
    /// The message as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses a message; the error names the offending key.
    pub fn from_json(text: &str) -> Result<ToWorker, String> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| format!("bad message to worker: {e}"))
    }
}

impl FromWorker {
    /// The message as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses a message; the error names the offending key.
    pub fn from_json(text: &str) -> Result<FromWorker, String> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| format!("bad message from worker: {e}"))
    }
}
