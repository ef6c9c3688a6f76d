//! The simulation worker's shared pieces (the entry point and the message dispatch are
//! [`super::worker`]): it keeps the successfully read traces by name (the newest ones, see [`KEPT_TRACES`]), runs
//! one experiment at a time through the same
//! [`crate::modes::flat::run`] functions as the CLI, and simulates in slices of about
//! [`SLICE_MS`] milliseconds: between slices it yields to the event loop (a `MessageChannel`
//! round trip, which unlike a resolved promise lets queued `message` events — a
//! [`ToWorker::Cancel`] — run first, and unlike `setTimeout(0)` is not clamped to 4 ms).
//!
//! Memory: a wasm memory never shrinks, so the worker's peak stays for its lifetime. A flat
//! run holds one copy of its jobs, read without their SWF records; a finished run is kept for
//! exports in a compact form — its outcomes (8 bytes a job when its times are whole seconds,
//! [`KeptOutcomes`]), its experiment and its trace's bytes — and its jobs are prepared again
//! when a file is asked for (BENCHMARKS.md, "Memory in the browser tab").

use crate::modes::{ModeRun, SimOptions, Stepper, Traces};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

use super::format;
use super::protocol::{
    ChartData, ExportFormat, FromWorker, PageReport, RunReport, TraceInfo, KEPT_RUNS,
    MAX_EXPLAINED_JOBS, MAX_JOB_RECORDS, MAX_TIMELINE_POINTS, WAIT_QUANTILES,
};
use crate::metrics::{records_iter, JobRecord};
use crate::modes::flat::run::{self, TraceInput};
use crate::modes::flat::spec::{Experiment, MachineSpec};
use crate::sim::{story, JobOutcome, SimResult, TimelinePoint};
use crate::workload::swf::{read_swf_bytes, write_swf_string, ReadOptions};

/// Target wall-clock length of one simulation slice, milliseconds.
pub const SLICE_MS: f64 = 30.0;
/// Minimum interval between two progress messages, milliseconds.
pub const PROGRESS_MS: f64 = 100.0;
/// Instants simulated between two clock readings.
const INSTANTS_PER_CHECK: usize = 256;

/// A trace kept by the worker.
struct StoredTrace {
    name: String,
    bytes: Rc<[u8]>,
    /// The jobs its check kept: what every later read of it keeps.
    jobs: usize,
}

/// `trace` as a run's input, with room made at once for the jobs its check kept, while the
/// worker still holds it: its jobs' vector is then never doubled (and never twice in memory)
/// while it is read.
pub(super) fn trace_input(trace: &NamedTrace) -> TraceInput<'_> {
    let (name, bytes) = trace;
    let jobs = TRACES.with(|t| {
        t.borrow()
            .iter()
            .find(|s| Rc::ptr_eq(&s.bytes, bytes))
            .map_or(0, |s| s.jobs)
    });
    TraceInput::from_bytes(name, bytes).with_jobs_hint(jobs)
}

/// Most traces the worker keeps (a grid has one per site); older ones are also dropped once
/// the kept bytes exceed [`KEPT_TRACE_BYTES`] (the newest trace is always kept).
pub const KEPT_TRACES: usize = crate::modes::grid::spec::MAX_SITES;
/// Bytes of traces kept beyond the newest one.
pub const KEPT_TRACE_BYTES: usize = 600_000_000;

/// A trace file: its name (for messages) and its bytes (plain or gzip SWF).
pub type NamedTrace = (String, Rc<[u8]>);

/// A finished flat run kept for exports, in its compact form: each job's start and end, and
/// what gives its jobs again — the experiment and the trace it read, whose bytes the worker
/// shares with [`TRACES`] (so the run is exported from the right file even after a newer
/// upload of the same name). Its jobs and their SWF records are rebuilt when a file is asked
/// for ([`export`]): preparing an experiment is deterministic, so they are the jobs the run
/// simulated.
pub(super) struct FinishedRun {
    pub(super) id: u32,
    pub(super) experiment: Experiment,
    pub(super) trace: Option<NamedTrace>,
    pub(super) outcomes: KeptOutcomes,
}

/// A finished run's outcomes as kept: each job's start and end as whole seconds after the
/// run's earliest time (8 bytes a job instead of 16) when every one of them reads back as the
/// very `f64` it was — SWF times do — else as they were.
pub(super) enum KeptOutcomes {
    Secs { base: f64, secs: Vec<[u32; 2]> },
    Exact(Vec<JobOutcome>),
}

impl KeptOutcomes {
    /// `outcomes` in the narrowest form that gives them back bit for bit.
    pub(super) fn new(outcomes: Vec<JobOutcome>) -> KeptOutcomes {
        let base = outcomes
            .iter()
            .flat_map(|o| [o.start, o.end])
            .fold(f64::INFINITY, f64::min);
        // A time not a whole second after `base` within u32 (or NaN) has no narrow form.
        let secs = |t: f64| {
            let d = t - base;
            (d >= 0.0 && d <= f64::from(u32::MAX))
                .then_some(d as u32)
                .filter(|&s| (base + f64::from(s)).to_bits() == t.to_bits())
        };
        let mut narrow = Vec::with_capacity(outcomes.len());
        for o in &outcomes {
            match (secs(o.start), secs(o.end)) {
                (Some(s), Some(e)) => narrow.push([s, e]),
                _ => return KeptOutcomes::Exact(outcomes),
            }
        }
        KeptOutcomes::Secs { base, secs: narrow }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            KeptOutcomes::Secs { secs, .. } => secs.len(),
            KeptOutcomes::Exact(v) => v.len(),
        }
    }

    /// Each job's outcome, in arrival order.
    pub(super) fn iter(&self) -> impl Iterator<Item = JobOutcome> + '_ {
        (0..self.len()).map(|i| match self {
            KeptOutcomes::Secs { base, secs } => JobOutcome {
                start: base + f64::from(secs[i][0]),
                end: base + f64::from(secs[i][1]),
            },
            KeptOutcomes::Exact(v) => v[i],
        })
    }

    /// The outcomes as the simulation gave them (made for the caller when kept narrow).
    pub(super) fn wide(&self) -> std::borrow::Cow<'_, [JobOutcome]> {
        match self {
            KeptOutcomes::Secs { .. } => std::borrow::Cow::Owned(self.iter().collect()),
            KeptOutcomes::Exact(v) => std::borrow::Cow::Borrowed(v),
        }
    }
}

/// Finished run `id`, if the worker still keeps it (the comparison and the replay of runs of
/// any size read it: [`super::compare_worker`], [`super::replay_worker`]).
pub(super) fn kept_run(id: u32) -> Option<Rc<FinishedRun>> {
    FINISHED.with(|f| f.borrow().iter().find(|r| r.id == id).cloned())
}

/// The channel used to yield to the event loop, with its `message` handler.
type YieldChannel = (MessageChannel, Closure<dyn FnMut(MessageEvent)>);

thread_local! {
    /// Traces read successfully, oldest first (one per name).
    static TRACES: RefCell<VecDeque<StoredTrace>> = const { RefCell::new(VecDeque::new()) };
    /// The run allowed to continue; cancelling clears it.
    pub(super) static ACTIVE: Cell<Option<u32>> = const { Cell::new(None) };
    /// Channel used to yield to the event loop (created on first use).
    static YIELD: RefCell<Option<YieldChannel>> = const { RefCell::new(None) };
    /// Resolvers of the pending yields, oldest first (one channel message wakes one).
    static YIELD_WAITERS: RefCell<VecDeque<js_sys::Function>> = const { RefCell::new(VecDeque::new()) };
    /// The last finished flat runs, oldest first, for exports.
    static FINISHED: RefCell<VecDeque<Rc<FinishedRun>>> = const { RefCell::new(VecDeque::new()) };
}

pub(super) fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Posts a message to the page.
pub fn post(msg: &FromWorker) {
    let _ = scope().post_message(&JsValue::from_str(&msg.to_json()));
}

/// Posts the message that ends run `id`: `done(report)` when it finished,
/// [`FromWorker::Cancelled`] when it was cancelled, [`FromWorker::Error`] when it failed; `id`
/// stops being the active run.
pub(super) fn post_outcome<T: Into<PageReport>>(id: u32, outcome: Result<Option<T>, String>) {
    let msg = match outcome {
        Ok(Some(report)) => FromWorker::Done {
            id,
            report: Box::new(report.into()),
        },
        Ok(None) => FromWorker::Cancelled { id },
        Err(message) => FromWorker::Error {
            id: Some(id),
            message,
            fatal: false,
        },
    };
    cancel(Some(id));
    post(&msg);
}

/// The file `format` of finished run `id`, byte for byte what `schedlab run` writes
/// (`--jobs-csv`, `--swf-out`). The run's jobs are prepared again from its experiment and
/// trace — without the SWF records for the CSV, with them for the SWF — and paired with the
/// kept outcomes.
pub fn export(id: u32, format: ExportFormat) -> Result<String, String> {
    let kept = FINISHED.with(|f| f.borrow().iter().find(|r| r.id == id).cloned());
    let Some(finished) = kept else {
        return Err(
            "That run is no longer kept by the simulator: run the experiment again \
                    to export it."
                .into(),
        );
    };
    let input = finished.trace.as_ref().map(trace_input);
    let limits = &crate::limits::Limits::DEFAULT;
    let prepared = match format {
        ExportFormat::JobsCsv => run::prepare_lean(&finished.experiment, input, limits),
        ExportFormat::Swf => run::prepare_with(&finished.experiment, input, limits),
    }
    .map_err(|e| e.to_string())?;
    let jobs = &prepared.workload.jobs;
    if jobs.len() != finished.outcomes.len() {
        return Err(format!(
            "The simulator could not rebuild that run ({} jobs prepared, {} simulated): run \
             the experiment again to export it.",
            jobs.len(),
            finished.outcomes.len()
        ));
    }
    let outcomes = finished.outcomes.wide();
    Ok(match format {
        ExportFormat::JobsCsv => {
            let mut out = String::with_capacity(jobs.len() * 80 + 100);
            out.push_str(JobRecord::CSV_HEADER);
            out.push('\n');
            for r in records_iter(jobs, outcomes.iter()) {
                out.push_str(&r.csv_line());
                out.push('\n');
            }
            out
        }
        ExportFormat::Swf => write_swf_string(
            &prepared.workload.header,
            run::schedule_records_iter(jobs, &outcomes),
        ),
    })
}

/// The schedule of finished run `id` for the page's Gantt chart, laid out and encoded
/// ([`crate::metrics::gantt::Schedule::encode`]) into a JavaScript array a piece at a time (the
/// bytes are never whole in wasm memory): its jobs are prepared again, as for the per-job CSV,
/// without their SWF records; each job's user is read from the trace's lines by job number
/// ([`users_by_job`]), 16 bytes a job instead of a record of 150. The layout is computed here,
/// off the page's thread and out of its memory. Nothing of it is kept.
pub fn schedule(id: u32) -> Result<js_sys::Uint8Array, String> {
    use crate::metrics::gantt::{Row, Schedule};
    let kept = FINISHED.with(|f| f.borrow().iter().find(|r| r.id == id).cloned());
    let Some(finished) = kept else {
        return Err(
            "That run is no longer kept by the simulator: run the experiment again to see \
             its Gantt chart."
                .into(),
        );
    };
    let input = finished.trace.as_ref().map(trace_input);
    let prepared = run::prepare_lean(&finished.experiment, input, &crate::limits::Limits::DEFAULT)
        .map_err(|e| e.to_string())?;
    let jobs = &prepared.workload.jobs;
    // Read after the preparation, whose transient memory it can then reuse.
    let users = finished
        .trace
        .as_ref()
        .map(|(_, bytes)| users_by_job(bytes, jobs.len()))
        .unwrap_or_default();
    if jobs.len() != finished.outcomes.len() {
        return Err(format!(
            "The simulator could not rebuild that run ({} jobs prepared, {} simulated): run \
             the experiment again to see its Gantt chart.",
            jobs.len(),
            finished.outcomes.len()
        ));
    }
    let rows = || {
        jobs.iter()
            .zip(finished.outcomes.iter())
            .filter(|(_, o)| !o.start.is_nan())
            .map(|(j, o)| Row::from(&JobRecord::of(j, &o)))
    };
    let user_of = |id: u64| {
        users
            .binary_search_by_key(&id, |&(job, _)| job)
            .map_or(-1, |k| users[k].1)
    };
    let columns = Schedule::columns(prepared.procs, rows, rows().map(|r| user_of(r.id)));
    // The jobs and users are no longer needed: their memory serves the layout.
    drop(users);
    drop(prepared);
    let s = columns.laid_out();
    let out = js_sys::Uint8Array::new_with_length(s.encoded_len() as u32);
    let mut at = 0u32;
    s.write(&mut |piece| {
        let end = at + piece.len() as u32;
        out.subarray(at, end).copy_from(piece);
        at = end;
    });
    Ok(out)
}

/// Each job's user (SWF field 12) by job number (field 1), sorted by job number (for a later
/// number, its last line), read line by line from a trace's bytes (plain or gzip); lines that
/// are comments or do not parse are passed over, and an unknown user (−1) is left out. Room
/// for `jobs` lines is made at once (the trace's jobs, as prepared), not by doubling.
pub fn users_by_job(bytes: &[u8], jobs: usize) -> Vec<(u64, i32)> {
    use std::io::{BufRead, BufReader, Read};
    let input: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(bytes))
    } else {
        Box::new(bytes)
    };
    let mut users = Vec::with_capacity(jobs);
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim_start();
        if text.starts_with(';') {
            continue;
        }
        let mut fields = text.split_ascii_whitespace();
        let id = fields.next().and_then(|f| f.parse::<f64>().ok());
        let user = fields.nth(10).and_then(|f| f.parse::<f64>().ok());
        if let (Some(id), Some(user)) = (id, user) {
            if id >= 0.0 && user >= 0.0 && user <= f64::from(i32::MAX) {
                users.push((id as u64, user as i32));
            }
        }
    }
    // Stable, so a number's lines keep their order; the last of each is kept (as a map's
    // insertions would).
    users.sort_by_key(|&(id, _)| id);
    users.dedup_by(|later, earlier| {
        if later.0 == earlier.0 {
            earlier.1 = later.1;
            true
        } else {
            false
        }
    });
    users
}

/// Posts [`FromWorker::Schedule`] with `bytes` beside it (transferred, not copied).
pub fn post_schedule(id: u32, bytes: &js_sys::Uint8Array) {
    let arr = js_sys::Array::new();
    arr.push(&JsValue::from_str(
        &FromWorker::Schedule {
            id,
            bytes: Default::default(),
        }
        .to_json(),
    ));
    arr.push(bytes);
    let transfer = js_sys::Array::of1(&bytes.buffer());
    if scope().post_message_with_transfer(&arr, &transfer).is_err() {
        let _ = scope().post_message(&arr);
    }
}

/// Makes `id` the run allowed to go on (any other run stops at its next slice boundary).
pub fn activate(id: u32) {
    ACTIVE.with(|a| a.set(Some(id)));
}

/// Stops run `id` (any run when `None`) at its next slice boundary.
pub fn cancel(id: Option<u32>) {
    ACTIVE.with(|a| {
        if id.is_none() || a.get() == id {
            a.set(None);
        }
    });
}

/// The stored trace called `name`, if a name is given.
pub(super) fn stored_trace(name: Option<&str>) -> Result<Option<NamedTrace>, String> {
    let Some(want) = name else {
        return Ok(None);
    };
    TRACES
        .with(|t| {
            t.borrow()
                .iter()
                .find(|s| s.name == want)
                .map(|s| (s.name.clone(), Rc::clone(&s.bytes)))
        })
        .map(Some)
        .ok_or_else(|| format!("the trace {want:?} is not loaded; upload it again"))
}

/// Reads an uploaded trace once to check it and describe it; keeps it only if it parses.
pub(super) fn load_trace(name: String, bytes: Vec<u8>) {
    // The description needs no SWF record: read lean (about half the memory per job).
    let opts = ReadOptions {
        lean: true,
        ..ReadOptions::limited(&name, false, &crate::limits::Limits::DEFAULT)
    };
    match read_swf_bytes(&bytes, &opts) {
        Ok(w) => {
            let header_procs = w
                .header
                .max_procs
                .filter(|&p| p > 0)
                .or(w.header.max_nodes.filter(|&p| p > 0));
            let info = TraceInfo {
                name: name.clone(),
                bytes: bytes.len(),
                jobs: w.jobs.len(),
                dropped: w.dropped.total(),
                max_job_procs: w.max_procs(),
                header_procs,
                sha256: sha256_hex(&bytes),
                span_seconds: match (w.jobs.first(), w.jobs.last()) {
                    (Some(a), Some(b)) => b.submit - a.submit,
                    _ => 0.0,
                },
                time_zone: w.header.time_zone_string.clone(),
            };
            TRACES.with(|t| {
                let mut t = t.borrow_mut();
                t.retain(|s| s.name != name);
                t.push_back(StoredTrace {
                    name,
                    bytes: bytes.into(),
                    jobs: w.jobs.len(),
                });
                let mut total: usize = t.iter().map(|s| s.bytes.len()).sum();
                while t.len() > 1
                    && (t.len() > KEPT_TRACES
                        || total - t.back().map_or(0, |s| s.bytes.len()) > KEPT_TRACE_BYTES)
                {
                    total -= t.pop_front().map_or(0, |s| s.bytes.len());
                }
            });
            post(&FromWorker::TraceLoaded(info));
        }
        Err(e) => post(&FromWorker::Error {
            id: None,
            message: e.to_string(),
            fatal: false,
        }),
    }
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Lets the event loop run queued tasks (incoming messages) before the next slice.
pub(super) async fn yield_to_event_loop() {
    let promise = Promise::new(&mut |resolve, _reject| {
        YIELD_WAITERS.with(|w| w.borrow_mut().push_back(resolve));
        YIELD.with(|y| {
            let mut y = y.borrow_mut();
            if y.is_none() {
                if let Ok(channel) = MessageChannel::new() {
                    let wake = Closure::<dyn FnMut(MessageEvent)>::new(|_ev: MessageEvent| {
                        if let Some(f) = YIELD_WAITERS.with(|w| w.borrow_mut().pop_front()) {
                            let _ = f.call0(&JsValue::NULL);
                        }
                    });
                    channel
                        .port1()
                        .set_onmessage(Some(wake.as_ref().unchecked_ref()));
                    *y = Some((channel, wake));
                }
            }
            match y.as_ref() {
                Some((channel, _)) => {
                    let _ = channel.port2().post_message(&JsValue::NULL);
                }
                // No channel: resolve at once (a microtask; cancellation then waits for the end).
                None => {
                    if let Some(f) = YIELD_WAITERS.with(|w| w.borrow_mut().pop_front()) {
                        let _ = f.call0(&JsValue::NULL);
                    }
                }
            }
        });
    });
    let _ = JsFuture::from(promise).await;
}

pub(super) fn is_active(id: u32) -> bool {
    ACTIVE.with(Cell::get) == Some(id)
}

/// Advances `sim` with `step` (which answers `true` once the run is over) in slices of about
/// [`SLICE_MS`], calls `progress` at most every [`PROGRESS_MS`] (`last_progress` is the time
/// of the previous call), and yields to the event loop between slices. `Ok(false)` when run
/// `id` was cancelled meanwhile.
pub(super) async fn step_in_slices<S>(
    id: u32,
    sim: &mut S,
    step: impl Fn(&mut S) -> Result<bool, String>,
    progress: &dyn Fn(&S),
    last_progress: &mut f64,
) -> Result<bool, String> {
    loop {
        let slice_start = now_ms();
        while now_ms() - slice_start < SLICE_MS {
            if step(sim)? {
                return Ok(true);
            }
        }
        if now_ms() - *last_progress >= PROGRESS_MS {
            progress(sim);
            *last_progress = now_ms();
        }
        yield_to_event_loop().await;
        if !is_active(id) {
            return Ok(false);
        }
    }
}

/// The first submit time of `jobs` (0 without jobs): where the charts' time axis and the
/// progress line's simulated time start.
pub(super) fn first_submit(jobs: &[crate::workload::Job]) -> f64 {
    let t = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
    if t.is_finite() {
        t
    } else {
        0.0
    }
}

/// Runs `exp` of mode `M` through its [`ModeRun`] — prepare, then its [`Stepper`] in slices of
/// about [`SLICE_MS`] (`instants` instants between two clock readings), then finish and
/// measure — passing [`FromWorker::Progress`] messages to `report` at most every
/// [`PROGRESS_MS`]. Every mode run this way has the same progress and cancel semantics.
/// `Ok(None)` when run `id` was cancelled.
pub(super) async fn run_mode_sliced<M: ModeRun>(
    id: u32,
    exp: &M::Experiment,
    traces: &mut Traces<'_>,
    instants: usize,
    report: &dyn Fn(&FromWorker),
) -> Result<Option<M::Output>, String> {
    let text = |e: crate::error::Error| e.to_string();
    let mut prepared = M::prepare(exp, traces, &crate::limits::Limits::DEFAULT).map_err(text)?;
    let mut sim = M::simulate(exp, &mut prepared, SimOptions::default()).map_err(text)?;
    let progress = |s: &M::Simulation<'_>| {
        let p = s.progress();
        report(&FromWorker::Progress {
            id,
            completed: p.completed,
            total: p.total,
            sim_time: p.now,
            stage: s.stage(),
        });
    };
    progress(&sim);
    let mut last_progress = now_ms();
    let step = |s: &mut M::Simulation<'_>| s.step_instants(instants).map_err(text);
    if !step_in_slices(id, &mut sim, step, &progress, &mut last_progress).await? {
        return Ok(None);
    }
    progress(&sim);
    let simulated = M::finish(sim).map_err(text)?;
    M::measure(exp, prepared, simulated).map(Some).map_err(text)
}

/// Runs experiment `exp` (on the trace `(name, bytes)` for SWF workloads) in slices, passing
/// [`FromWorker::Progress`] messages to `report` at most every [`PROGRESS_MS`], and stops at a
/// slice boundary once `id` is no longer the active run (see [`activate`], [`cancel`]).
/// `Ok(None)` when cancelled. The numbers are those of [`run::run_experiment`].
pub async fn run_sliced(
    id: u32,
    exp: &Experiment,
    trace: Option<NamedTrace>,
    report: &dyn Fn(&FromWorker),
) -> Result<Option<RunReport>, String> {
    match run_bounded(id, exp, trace, None, report).await? {
        Bounded::Ran(outcome) => Ok(outcome.map(|r| *r)),
        Bounded::Held(message) => Err(message),
    }
}

/// How a run sent with a work bound ended: run (finished, or `None` when cancelled), or held
/// before it was simulated, with the words that say why.
pub enum Bounded {
    Ran(Option<Box<RunReport>>),
    Held(String),
}

/// [`run_sliced`] with a work bound in seconds (a share link's run, which starts by itself): a
/// run whose estimate from the prepared workload is above `max_work` is not simulated
/// (docs/limits.md, "Work bounds").
pub async fn run_bounded(
    id: u32,
    exp: &Experiment,
    trace: Option<NamedTrace>,
    max_work: Option<f64>,
    report: &dyn Fn(&FromWorker),
) -> Result<Bounded, String> {
    let t0 = now_ms();
    let input = trace.as_ref().map(trace_input);
    // Without the SWF records (an export rebuilds them), and one copy of the jobs: the
    // simulation takes them.
    let mut prepared = run::prepare_lean(exp, input, &crate::limits::Limits::DEFAULT)
        .map_err(|e| e.to_string())?;
    if let MachineSpec::Flat { procs: Some(p) } = exp.machine {
        let too_large = prepared.workload.dropped.too_large;
        if too_large > 0 {
            return Err(format!(
                "The machine ({} processors) is smaller than {} of the jobs. Enlarge it, or \
                 leave the machine size empty to use the trace's.",
                format::count(u64::from(p)),
                format::count(too_large as u64)
            ));
        }
    }
    if let Some(max_seconds) = max_work {
        let estimate = crate::work::estimate_flat(exp, &prepared.workload, prepared.procs);
        if estimate.seconds > max_seconds {
            return Ok(Bounded::Held(format!(
                "This run is estimated at {} in this tab ({}); press Run to start it.",
                estimate.duration(),
                estimate.why
            )));
        }
    }
    let explain = prepared.workload.jobs.len() <= MAX_EXPLAINED_JOBS;
    // The progress line's clock starts at the first arrival, as the charts' time axis does
    // (a trace's clock may start long before its first job).
    let origin = first_submit(&prepared.workload.jobs);
    let mut sim = run::simulation_taking(exp, &mut prepared, true);
    if explain {
        sim = sim.with_explanations();
    }
    let progress = |sim: &crate::sim::Simulation| {
        let p = sim.progress();
        report(&FromWorker::Progress {
            id,
            completed: p.completed,
            total: p.total,
            sim_time: p.now - origin,
            stage: 0,
        });
    };
    progress(&sim);
    let mut last_progress = now_ms();
    let step = |sim: &mut crate::sim::Simulation| {
        sim.step_instants(INSTANTS_PER_CHECK)
            .map_err(|e| e.to_string())
    };
    if !step_in_slices(id, &mut sim, step, &progress, &mut last_progress).await? {
        return Ok(Bounded::Ran(None));
    }
    progress(&sim);
    let mut result = sim.into_result();
    // The timeline moves into the output (run::finish would copy it).
    let timeline = std::mem::take(&mut result.timeline);
    // The page gets per-job records of small runs only: no vector of them for a large one.
    let mut output = if result.jobs.len() <= MAX_JOB_RECORDS {
        run::finish(&result, &prepared)
    } else {
        run::finish_without_records(&result, &prepared)
    };
    output.timeline = timeline;
    let mut report = page_report(&result, output, explain);
    let outcomes = std::mem::take(&mut result.outcomes);
    drop(result);
    let finished = FinishedRun {
        id,
        experiment: exp.clone(),
        trace,
        outcomes: KeptOutcomes::new(outcomes),
    };
    FINISHED.with(|f| {
        let mut f = f.borrow_mut();
        f.push_back(Rc::new(finished));
        while f.len() > KEPT_RUNS {
            f.pop_front();
        }
    });
    report.wall_ms = now_ms() - t0;
    Ok(Bounded::Ran(Some(Box::new(report))))
}

/// What the page gets of a finished run (`wall_ms` left at 0): its metrics `output` without
/// the timeline, the chart data (decimated timeline, wait quantiles), the per-job records of
/// runs of at most [`MAX_JOB_RECORDS`] jobs and, when `explain`, each started job's
/// explanations as lines.
pub(super) fn page_report(
    result: &SimResult,
    mut output: crate::modes::flat::report::RunOutput,
    explain: bool,
) -> RunReport {
    let why = explain.then(|| {
        let lines = story::by_job(&story::Names::jobs(&result.jobs), &result.explanations);
        // Aligned with the records: the jobs that started, in arrival order.
        lines
            .into_iter()
            .zip(&result.outcomes)
            .filter(|(_, o)| !o.start.is_nan())
            .map(|(l, _)| l)
            .collect()
    });
    let explanations = explain.then(|| result.explanations.clone());
    let mut waits: Vec<f64> = records_iter(&result.jobs, &result.outcomes)
        .map(|r| r.wait)
        .collect();
    // The per-job records go to the page only for small runs; either way the output sent
    // (which serialises without them) no longer holds them.
    let all = std::mem::take(&mut output.jobs);
    let jobs = (waits.len() <= MAX_JOB_RECORDS && all.len() == waits.len()).then_some(all);
    let charts = ChartData {
        procs: output.procs,
        timeline: decimate(&output.timeline, MAX_TIMELINE_POINTS),
        wait_quantiles: quantiles(&mut waits, WAIT_QUANTILES),
    };
    output.timeline = Vec::new();
    RunReport {
        output,
        jobs,
        why,
        explanations,
        wall_ms: 0.0,
        charts,
    }
}

/// The step function `points` (each value holds from its time to the next point's) as
/// time-weighted means over at most `n` equal intervals: (interval start, busy, queued).
pub fn decimate(points: &[TimelinePoint], n: usize) -> Vec<(f64, f64, f64)> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    if points.len() <= n || n == 0 {
        return points
            .iter()
            .map(|p| (p.time, f64::from(p.busy), f64::from(p.queued)))
            .collect();
    }
    let (t0, t1) = (first.time, last.time);
    let width = (t1 - t0) / n as f64;
    if !(width > 0.0 && width.is_finite()) {
        return vec![(t0, f64::from(last.busy), f64::from(last.queued))];
    }
    let mut busy = vec![0.0; n];
    let mut queued = vec![0.0; n];
    let bucket = |t: f64| (((t - t0) / width).max(0.0) as usize).min(n - 1);
    for w in points.windows(2) {
        let (a, b) = (w[0].time, w[1].time);
        if b <= a {
            continue;
        }
        for k in bucket(a)..=bucket(b) {
            let lo = a.max(t0 + k as f64 * width);
            let hi = b.min(t0 + (k + 1) as f64 * width);
            if hi > lo {
                busy[k] += f64::from(w[0].busy) * (hi - lo);
                queued[k] += f64::from(w[0].queued) * (hi - lo);
            }
        }
    }
    (0..n)
        .map(|k| (t0 + k as f64 * width, busy[k] / width, queued[k] / width))
        .collect()
}

/// `m` evenly spaced quantiles of `values` (sorted in place), from the smallest to the largest.
pub fn quantiles(values: &mut [f64], m: usize) -> Vec<f64> {
    if values.is_empty() || m < 2 {
        return Vec::new();
    }
    values.sort_by(f64::total_cmp);
    let last = values.len() - 1;
    (0..m)
        .map(|i| values[(i * last + (m - 1) / 2) / (m - 1)])
        .collect()
}
