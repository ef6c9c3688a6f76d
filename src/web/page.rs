//! The page (the `app` binary): reads the experiment form, sends one run per selected policy
//! to the simulation worker, shows progress, the results table, the charts ([`super::chart`]),
//! the downloads (summary CSV/JSON made here; per-job CSV and SWF schedule made by the worker)
//! and the share link ([`super::share`]), and reports bad input in the inline error box
//! without touching the previous results.
//!
//! The markup lives in `index.html`; this module finds its elements by id, wires the events
//! and renders the results. The page keeps no simulation state: everything is computed by the
//! worker through [`crate::run`], like the CLI.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Document, DragEvent, Element, Event, EventTarget, File, HtmlAnchorElement, HtmlButtonElement,
    HtmlElement, HtmlInputElement, HtmlProgressElement, Worker,
};

use super::chart;
use super::dom::{escape, listen, object_url};
use super::format;
use super::protocol::{ChartData, ExportFormat, FromWorker, RunReport, ToWorker, TraceInfo};
use super::share::{ShareState, Sweep};
use crate::config::{Experiment, MachineSpec, SwfSource, WorkloadSpec};
use crate::metrics::JobRecord;
use crate::policy::PolicyKind;
use crate::workload::synthetic::{LublinParams, SyntheticModel};
use crate::workload::transform::Transforms;

pub use super::worker_link::WORKER_URL;
use super::worker_link::{js_message, post_to, post_trace_to, start_worker};
/// The Lublin–Feitelson parameters the form edits: key in `LublinParams` (and in the
/// experiment JSON, under `workload.synthetic`), short label, tooltip naming the model's
/// constant. Defaults are read from `LublinParams::default()`.
const MODEL_PARAMS: [(&str, &str, &str); 16] = [
    ("serial_prob", "Serial prob.", "serial_prob: probability of a serial (1-processor) job (SERIAL_PROB_BATCH)"),
    ("pow2_prob", "Power-of-2 prob.", "pow2_prob: probability of a power-of-two parallel size (POW2_PROB_BATCH)"),
    ("uprob", "Size uprob", "uprob: probability of the lower stage [ulow, umed) of the two-stage uniform size (UPROB_BATCH)"),
    ("a1", "Run a1", "a1: shape of the first run-time gamma (A1_BATCH)"),
    ("b1", "Run b1", "b1: scale of the first run-time gamma (B1_BATCH)"),
    ("a2", "Run a2", "a2: shape of the second run-time gamma (A2_BATCH)"),
    ("b2", "Run b2", "b2: scale of the second run-time gamma (B2_BATCH)"),
    ("pa", "Mix pa", "pa: slope of the gamma mixing probability p = pa · size + pb (PA_BATCH)"),
    ("pb", "Mix pb", "pb: intercept of the gamma mixing probability p = pa · size + pb (PB_BATCH)"),
    ("aarr", "Arrival aarr", "aarr: shape of the rush-hour log-interarrival gamma (AARR_BATCH)"),
    ("barr", "Arrival barr", "barr: scale of the rush-hour log-interarrival gamma (BARR_BATCH)"),
    ("anum", "Daily anum", "anum: shape of the daily-cycle gamma (ANUM_BATCH)"),
    ("bnum", "Daily bnum", "bnum: scale of the daily-cycle gamma, in half-hour buckets (BNUM_BATCH)"),
    ("arar", "Rush ratio arar", "arar: arrive-rush-to-all ratio multiplying aarr (ARAR_BATCH)"),
    ("start_hour", "Start hour", "start_hour: hour of day at time 0, 0–23 (START)"),
    ("estimate_factor", "Estimate factor", "estimate_factor: user estimate = ⌈run time × factor⌉ (not in the model; 1 = exact)"),
];

/// Keys of `MODEL_PARAMS` that hold whole numbers.
fn is_integer_param(key: &str) -> bool {
    key == "start_hour"
}

/// Largest synthetic workload the form accepts.
pub const MAX_JOBS: usize = crate::limits::MAX_JOBS;
/// Largest machine the form accepts.
pub const MAX_PROCS: u32 = 1 << 20;
/// Largest trace file the page reads into memory.
pub const MAX_TRACE_BYTES: f64 = crate::limits::MAX_UPLOAD_BYTES as f64;

/// How a summary value is shown.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Count,
    Seconds,
    Ratio,
    Percent,
}

/// Whether a smaller value of a column is better (for highlighting), or neither.
#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
    Neither,
}

/// One results column: a summary key, its label, unit and meaning.
struct Column {
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    kind: Kind,
    better: Better,
    title: &'static str,
}

const COLUMNS: [Column; 12] = [
    Column {
        key: "jobs",
        label: "Jobs",
        unit: "count",
        kind: Kind::Count,
        better: Better::Neither,
        title: "Jobs simulated",
    },
    Column {
        key: "dropped",
        label: "Dropped",
        unit: "count",
        kind: Kind::Count,
        better: Better::Neither,
        title: "Jobs and lines left out: unknown run time or size, larger than the machine, \
                malformed",
    },
    Column {
        key: "mean_wait",
        label: "Mean wait",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Mean of start − submit",
    },
    Column {
        key: "max_wait",
        label: "Max wait",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Longest start − submit",
    },
    Column {
        key: "mean_turnaround",
        label: "Mean turnaround",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Mean of end − submit (response time)",
    },
    Column {
        key: "mean_slowdown",
        label: "Mean slowdown",
        unit: "ratio",
        kind: Kind::Ratio,
        better: Better::Lower,
        title: "Mean of turnaround / run time",
    },
    Column {
        key: "mean_bounded_slowdown",
        label: "Mean bounded slowdown",
        unit: "ratio, τ = 10 s",
        kind: Kind::Ratio,
        better: Better::Lower,
        title: "Mean of max(1, turnaround / max(run time, 10 s))",
    },
    Column {
        key: "utilization",
        label: "Utilization",
        unit: "%",
        kind: Kind::Percent,
        better: Better::Higher,
        title: "Processor-seconds used / (processors × makespan)",
    },
    Column {
        key: "makespan",
        label: "Makespan",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Last end − first submit",
    },
    Column {
        key: "awrt",
        label: "AWRT",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Average weighted response time: turnaround weighted by processors × run time \
                (Ernemann et al.)",
    },
    Column {
        key: "awwt",
        label: "AWWT",
        unit: "s",
        kind: Kind::Seconds,
        better: Better::Lower,
        title: "Average weighted wait time: wait weighted by processors × run time",
    },
    Column {
        key: "awsd",
        label: "AWSD",
        unit: "ratio",
        kind: Kind::Ratio,
        better: Better::Lower,
        title: "Average weighted slowdown: slowdown weighted by processors × run time",
    },
];

fn policy_label(p: PolicyKind) -> &'static str {
    match p {
        PolicyKind::Fcfs => "FCFS",
        PolicyKind::Easy => "EASY backfilling",
        PolicyKind::Conservative => "Conservative backfilling",
    }
}

fn policy_short(p: PolicyKind) -> &'static str {
    match p {
        PolicyKind::Fcfs => "FCFS",
        PolicyKind::Easy => "EASY",
        PolicyKind::Conservative => "Conservative",
    }
}

/// The page's elements.
struct Ui {
    doc: Document,
    body: HtmlElement,
    status: Element,
    form: Element,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    wl_synthetic: HtmlInputElement,
    wl_trace: HtmlInputElement,
    jobs: HtmlInputElement,
    /// The collapsible block of model parameters and its inputs, in `MODEL_PARAMS` order.
    model_params: Element,
    params: Vec<(&'static str, HtmlInputElement)>,
    procs: HtmlInputElement,
    procs_hint: Element,
    load_factor: HtmlInputElement,
    sweep: HtmlInputElement,
    sweep_from: HtmlInputElement,
    sweep_to: HtmlInputElement,
    sweep_step: HtmlInputElement,
    sweep_fields: HtmlElement,
    sweep_hint: HtmlElement,
    sweep_chart: HtmlElement,
    sweep_metric: web_sys::HtmlSelectElement,
    time_charts: HtmlElement,
    gantt_section: HtmlElement,
    seed: HtmlInputElement,
    policies: Vec<(PolicyKind, HtmlInputElement)>,
    upload: HtmlInputElement,
    dropzone: HtmlElement,
    trace_label: Element,
    progress: HtmlProgressElement,
    progress_label: Element,
    results_body: Element,
    results_head: Element,
    caption: Element,
    empty: HtmlElement,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    share_copy: HtmlButtonElement,
    share_notice: HtmlElement,
    share_notice_text: Element,
    exports: HtmlElement,
    charts: HtmlElement,
    gantt_policy: web_sys::HtmlSelectElement,
    gantt_note: Element,
    gantt_box: HtmlElement,
    gantt_canvas: web_sys::HtmlCanvasElement,
    gantt_tip: HtmlElement,
}

/// A trace accepted by the worker (the bytes stay here too, to reload a replaced worker).
struct LoadedTrace {
    info: TraceInfo,
    bytes: Rc<Vec<u8>>,
}

/// The runs of one click on Run: one per selected policy, in order.
struct Batch {
    runs: Vec<(PolicyKind, Experiment)>,
    trace: Option<String>,
    index: usize,
    id: u32,
    caption: String,
    rows: usize,
    wall_ms: f64,
    /// Finished runs: policy, run id, summary.
    done: Vec<(PolicyKind, u32, serde_json::Value)>,
    /// Chart data of the finished runs, in the same order.
    charts: Vec<ChartData>,
    /// Per-job records of the finished runs (runs of at most `MAX_JOB_RECORDS` jobs).
    records: Vec<Option<Rc<Vec<JobRecord>>>>,
    /// A load-factor sweep: `runs` holds every (load factor, policy) point, run in parallel on
    /// the worker pool; `points` their summaries as they arrive (in `runs` order).
    sweep: Option<Sweep>,
    points: Vec<Option<serde_json::Value>>,
    /// Next point of a sweep to hand to a pool worker, and points finished.
    next: usize,
    finished: usize,
    /// `Date.now()` when the batch started (milliseconds).
    started: f64,
}

/// A worker of the sweep pool: ready once it said so (and, with a trace, once the trace is
/// loaded); `running` is the run id and point index it is simulating.
struct PoolWorker {
    worker: Worker,
    running: Option<(u32, usize)>,
}

#[derive(Default)]
struct State {
    ready: bool,
    next_id: u32,
    trace: Option<LoadedTrace>,
    /// A trace sent to the worker and not yet acknowledged: (name, bytes, silent reload).
    pending_trace: Option<(String, Rc<Vec<u8>>, bool)>,
    batch: Option<Batch>,
    /// Machine size typed for the synthetic model, restored when switching back to it.
    synthetic_procs: String,
    /// The experiment of the share link last opened: the base of the runs built from the form
    /// (it keeps what the form does not show: model parameters, other transforms, the name).
    template: Option<Experiment>,
    /// The trace a share link needs before it can run: name and SHA-256 (if the link has one).
    wanted_trace: Option<(String, Option<String>)>,
    /// Run as soon as the worker and the trace are ready (a share link was opened).
    auto_run: bool,
    /// Fragment of the last share link written into the address bar.
    fragment: String,
    /// Runs of the results on screen that the worker can export: run id and policy.
    export_runs: Vec<(u32, PolicyKind)>,
    /// Object URLs of the current downloads (revoked when replaced).
    blob_urls: Vec<String>,
    /// Runs of the results on screen that have per-job records (for the Gantt chart).
    gantt_runs: Vec<(PolicyKind, u32, Rc<Vec<JobRecord>>)>,
    /// The Gantt chart on screen: its layout, jobs and plotting area (for hover).
    gantt: Option<(chart::GanttLayout, Rc<Vec<JobRecord>>, chart::PlotArea)>,
    /// The sweep on screen (policy, load factor, summary), for the metric picker.
    sweep_rows: Vec<(PolicyKind, f64, serde_json::Value)>,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    worker: RefCell<Option<Worker>>,
    /// Workers of the running sweep (terminated when it ends).
    pool: RefCell<Vec<PoolWorker>>,
    /// Bumped when the pool is torn down: messages of an older pool are ignored.
    pool_gen: Cell<u32>,
}

/// Most workers a sweep starts, whatever `navigator.hardwareConcurrency` says.
pub const MAX_POOL: usize = 16;

fn by_id<T: JsCast>(doc: &Document, id: &str) -> T {
    doc.get_element_by_id(id)
        .unwrap_or_else(|| panic!("index.html has no element #{id}"))
        .dyn_into::<T>()
        .unwrap_or_else(|_| panic!("#{id} is not the expected kind of element"))
}

/// Shows `message` in the error box (also used by the panic hook, so it takes no state).
pub fn show_error(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(text) = doc.get_element_by_id("error-text") {
        text.set_text_content(Some(message));
    }
    if let Some(b) = doc
        .get_element_by_id("error")
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        b.set_hidden(false);
    }
}

/// Shows `message` in the banner above every mode's panel (internal errors, whichever tab is
/// open).
fn show_fatal(message: &str) {
    if let Some(b) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("fatal"))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        b.set_text_content(Some(message));
        b.set_hidden(false);
    }
}

fn hide_error() {
    if let Some(b) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("error"))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        b.set_hidden(true);
    }
}

/// Entry point of the `app` binary.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = format!("Internal error — please reload the page and report this: {info}");
        show_error(&message);
        show_fatal(&message);
    }));
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .expect("no document");
    let defaults = LublinParams::default();
    let fields: Element = by_id(&doc, "model-params-fields");
    fields.set_inner_html(&param_fields_html(&defaults));
    let ui = Ui {
        body: doc.body().expect("no body"),
        status: by_id(&doc, "worker-status"),
        form: by_id(&doc, "experiment"),
        run: by_id(&doc, "run"),
        cancel: by_id(&doc, "cancel"),
        wl_synthetic: by_id(&doc, "wl-synthetic"),
        wl_trace: by_id(&doc, "wl-trace"),
        jobs: by_id(&doc, "jobs"),
        model_params: by_id(&doc, "model-params"),
        params: MODEL_PARAMS
            .iter()
            .map(|&(key, _, _)| (key, by_id(&doc, &format!("mp-{key}"))))
            .collect(),
        procs: by_id(&doc, "procs"),
        procs_hint: by_id(&doc, "procs-hint"),
        load_factor: by_id(&doc, "load-factor"),
        sweep: by_id(&doc, "sweep"),
        sweep_from: by_id(&doc, "sweep-from"),
        sweep_to: by_id(&doc, "sweep-to"),
        sweep_step: by_id(&doc, "sweep-step"),
        sweep_fields: by_id(&doc, "sweep-fields"),
        sweep_hint: by_id(&doc, "sweep-hint"),
        sweep_chart: by_id(&doc, "sweep-chart"),
        sweep_metric: by_id(&doc, "sweep-metric"),
        time_charts: by_id(&doc, "time-charts"),
        gantt_section: by_id(&doc, "gantt"),
        seed: by_id(&doc, "seed"),
        policies: PolicyKind::ALL
            .iter()
            .map(|&p| (p, by_id(&doc, &format!("policy-{}", p.as_str()))))
            .collect(),
        upload: by_id(&doc, "upload"),
        dropzone: by_id(&doc, "dropzone"),
        trace_label: by_id(&doc, "trace-label"),
        progress: by_id(&doc, "progress"),
        progress_label: by_id(&doc, "progress-label"),
        results_body: by_id(&doc, "results-body"),
        results_head: by_id(&doc, "results-head"),
        caption: by_id(&doc, "results-caption"),
        empty: by_id(&doc, "results-empty"),
        share: by_id(&doc, "share"),
        share_link: by_id(&doc, "share-link"),
        share_copy: by_id(&doc, "share-copy"),
        share_notice: by_id(&doc, "share-notice"),
        share_notice_text: by_id(&doc, "share-notice-text"),
        exports: by_id(&doc, "exports"),
        charts: by_id(&doc, "chart"),
        gantt_policy: by_id(&doc, "gantt-policy"),
        gantt_note: by_id(&doc, "gantt-note"),
        gantt_box: by_id(&doc, "gantt-box"),
        gantt_canvas: by_id(&doc, "chart-gantt"),
        gantt_tip: by_id(&doc, "gantt-tip"),
        doc,
    };
    // Defaults come from the model, so the form's default experiment is the documented one.
    ui.jobs.set_value(&defaults.jobs.to_string());
    ui.procs.set_value(&defaults.procs.to_string());
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State {
            synthetic_procs: defaults.procs.to_string(),
            ..State::default()
        }),
        worker: RefCell::new(None),
        pool: RefCell::new(Vec::new()),
        pool_gen: Cell::new(0),
    });
    render_head(&app.ui, false);
    let mut options = String::new();
    for c in COLUMNS.iter().filter(|c| c.kind != Kind::Count) {
        options.push_str(&format!(
            r#"<option value="{}">{}</option>"#,
            c.key,
            escape(c.label)
        ));
    }
    app.ui.sweep_metric.set_inner_html(&options);
    app.ui.sweep_metric.set_value("mean_wait");
    super::modes::wire(&app.ui.doc);
    wire(&app);
    update_sweep_fields(&app.ui);
    spawn_worker(&app);
    update_controls(&app);
    open_fragment(&app);
    super::grid_page::start(&app.ui.doc);
    super::mesh_page::start();
}

/// The model parameters as JSON values by key (numbers shown as serde_json writes them).
fn param_values(params: &LublinParams) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(params) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

/// The inputs of the model parameters, prefilled with `defaults`.
fn param_fields_html(defaults: &LublinParams) -> String {
    let values = param_values(defaults);
    let mut html = String::new();
    for (key, label, title) in MODEL_PARAMS {
        let value = values.get(key).map(|v| v.to_string()).unwrap_or_default();
        let (step, mode) = if is_integer_param(key) {
            ("1", "numeric")
        } else {
            ("any", "decimal")
        };
        html.push_str(&format!(
            r#"<label title="{t}"><span>{l}</span><input id="mp-{key}" data-param="{key}" data-testid="param-{key}" type="number" step="{step}" inputmode="{mode}" value="{v}" aria-label="{l} ({key})"></label>"#,
            t = escape(title),
            l = escape(label),
            v = escape(&value),
        ));
    }
    html
}

/// Puts `params` into the model-parameter inputs; opens the block when any differs from its
/// default (so a share link's changes are visible).
fn set_param_inputs(ui: &Ui, params: &LublinParams) {
    let values = param_values(params);
    let defaults = param_values(&LublinParams::default());
    let mut changed = false;
    for (key, input) in &ui.params {
        let v = values.get(*key);
        input.set_value(&v.map(|v| v.to_string()).unwrap_or_default());
        changed |= v != defaults.get(*key);
    }
    if changed {
        let _ = ui.model_params.set_attribute("open", "");
    }
}

/// Reads the model-parameter inputs over `base`; a value that cannot be read names its key.
fn read_param_inputs(ui: &Ui, base: LublinParams) -> Result<LublinParams, String> {
    let mut values = param_values(&base);
    for (key, input) in &ui.params {
        let what = format!("workload.synthetic.{key}");
        let v = if is_integer_param(key) {
            serde_json::Value::from(field::<u32>(input, &what)?)
        } else {
            let x: f64 = field(input, &what)?;
            if !x.is_finite() {
                return Err(format!(
                    "{what}: {:?} is not a finite number.",
                    input.value()
                ));
            }
            serde_json::Value::from(x)
        };
        values.insert((*key).to_string(), v);
    }
    serde_json::from_value(serde_json::Value::Object(values))
        .map_err(|e| format!("Model parameters: {e}"))
}

fn render_head(ui: &Ui, sweep: bool) {
    let mut html = String::from(r#"<tr><th scope="col" class="policy">Policy</th>"#);
    if sweep {
        html.push_str(
            r#"<th scope="col" class="load" title="Arrival rate multiplier of this run"><span class="label">Load factor</span><span class="unit">×</span></th>"#,
        );
    }
    for c in &COLUMNS {
        html.push_str(&format!(
            r#"<th scope="col" data-key="{}" title="{}"><span class="label">{}</span><span class="unit">{}</span></th>"#,
            c.key,
            escape(c.title),
            escape(c.label),
            escape(c.unit)
        ));
    }
    html.push_str("</tr>");
    ui.results_head.set_inner_html(&html);
}

fn wire(app: &Rc<App>) {
    let ui = &app.ui;
    {
        let app = Rc::clone(app);
        listen(ui.form.as_ref(), "submit", move |ev: Event| {
            ev.prevent_default();
            on_run(&app);
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.cancel.as_ref(), "click", move |_: Event| on_cancel(&app));
    }
    {
        let app = Rc::clone(app);
        listen(ui.sweep.as_ref(), "change", move |_: Event| {
            update_sweep_fields(&app.ui)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.sweep_metric.as_ref(), "change", move |_: Event| {
            draw_sweep_chart(&app)
        });
    }
    if let Some(reset) = ui.doc.get_element_by_id("model-params-reset") {
        let app = Rc::clone(app);
        listen(reset.as_ref(), "click", move |_: Event| {
            let defaults = LublinParams::default();
            let values = param_values(&defaults);
            for (key, input) in &app.ui.params {
                input.set_value(&values.get(*key).map(|v| v.to_string()).unwrap_or_default());
            }
        });
    }
    if let Some(close) = ui.doc.get_element_by_id("error-close") {
        listen(close.as_ref(), "click", |_: Event| hide_error());
    }
    {
        let app = Rc::clone(app);
        listen(ui.share_copy.as_ref(), "click", move |_: Event| {
            copy_link(&app)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.exports.as_ref(), "click", move |ev: Event| {
            let button = ev
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|e| e.closest("button[data-export]").ok().flatten());
            if let Some(b) = button {
                request_export(&app, &b);
            }
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.gantt_policy.as_ref(), "change", move |_: Event| {
            draw_gantt(&app)
        });
    }
    {
        let app = Rc::clone(app);
        listen(
            ui.gantt_canvas.as_ref(),
            "mousemove",
            move |ev: web_sys::MouseEvent| gantt_hover(&app, &ev),
        );
    }
    {
        let app = Rc::clone(app);
        listen(ui.gantt_canvas.as_ref(), "mouseleave", move |_: Event| {
            app.ui.gantt_tip.set_hidden(true)
        });
    }
    if let Some(forget) = ui.doc.get_element_by_id("share-forget") {
        let app = Rc::clone(app);
        listen(forget.as_ref(), "click", move |_: Event| forget_link(&app));
    }
    if let Some(w) = web_sys::window() {
        let app = Rc::clone(app);
        listen(w.as_ref(), "hashchange", move |_: Event| {
            let hash = location_hash();
            if hash.trim_start_matches('#') != app.state.borrow().fragment {
                open_fragment(&app);
            }
        });
    }
    for radio in [&ui.wl_synthetic, &ui.wl_trace] {
        let app = Rc::clone(app);
        listen(radio.as_ref(), "change", move |_: Event| {
            on_mode_change(&app)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.upload.as_ref(), "change", move |_: Event| {
            let file = app.ui.upload.files().and_then(|f| f.get(0));
            if let Some(file) = file {
                upload(&app, file);
            }
            // Choosing the same file again must fire `change` again.
            app.ui.upload.set_value("");
        });
    }
    let dz: &EventTarget = ui.dropzone.as_ref();
    for ev in ["dragenter", "dragover"] {
        let app = Rc::clone(app);
        listen(dz, ev, move |e: DragEvent| {
            e.prevent_default();
            if !is_busy(&app) {
                let _ = app.ui.dropzone.class_list().add_1("dragover");
            }
        });
    }
    {
        let app = Rc::clone(app);
        listen(dz, "dragleave", move |_: DragEvent| {
            let _ = app.ui.dropzone.class_list().remove_1("dragover");
        });
    }
    {
        let app = Rc::clone(app);
        listen(dz, "drop", move |e: DragEvent| {
            e.prevent_default();
            let _ = app.ui.dropzone.class_list().remove_1("dragover");
            if is_busy(&app) {
                return;
            }
            let file = e
                .data_transfer()
                .and_then(|dt| dt.files())
                .and_then(|f| f.get(0));
            if let Some(file) = file {
                upload(&app, file);
            }
        });
    }
    // A file dropped next to the drop zone must not make the browser navigate away.
    if let Some(w) = web_sys::window() {
        for ev in ["dragover", "drop"] {
            listen(w.as_ref(), ev, move |e: DragEvent| e.prevent_default());
        }
    }
}

fn is_busy(app: &App) -> bool {
    app.state.borrow().batch.is_some()
}

fn spawn_worker(app: &Rc<App>) {
    let on_message = {
        let app = Rc::clone(app);
        move |msg: Result<FromWorker, String>| match msg {
            Ok(msg) => on_worker_message(&app, msg),
            Err(m) => show_error(&m),
        }
    };
    let on_error = {
        let app = Rc::clone(app);
        move |message: String| {
            set_status(&app.ui, "error", "Simulator failed");
            show_error(&format!("The simulator failed to load: {message}"));
            end_batch(&app, "Stopped: the simulator failed.");
        }
    };
    match start_worker(on_message, Some(Box::new(on_error))) {
        Ok(worker) => *app.worker.borrow_mut() = Some(worker),
        Err(e) => {
            set_status(&app.ui, "error", "Simulator unavailable");
            show_error(&format!("The simulator could not be started: {e}"));
        }
    }
}

fn post(app: &App, msg: &ToWorker) {
    if let Some(w) = app.worker.borrow().as_ref() {
        post_to(w, msg);
    }
}

fn post_trace(app: &App, name: &str, bytes: &[u8]) {
    if let Some(w) = app.worker.borrow().as_ref() {
        post_trace_to(w, name, bytes);
    }
}

/// Shows the sweep's from/to/step inputs instead of the single load factor, or the reverse.
fn update_sweep_fields(ui: &Ui) {
    let sweep = ui.sweep.checked();
    ui.sweep_fields.set_hidden(!sweep);
    ui.sweep_hint.set_hidden(!sweep);
    ui.load_factor.set_disabled(sweep);
}

fn set_status(ui: &Ui, state: &str, text: &str) {
    ui.status.set_text_content(Some(text));
    let _ = ui.status.set_attribute("data-state", state);
}

/// Enables and disables the controls for the current state.
fn update_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = st.batch.is_some();
    let loading = st.pending_trace.is_some();
    ui.run.set_disabled(!st.ready || busy || loading);
    ui.cancel.set_disabled(!busy);
    let _ = ui
        .body
        .set_attribute("data-state", if busy { "running" } else { "idle" });
    let _ = ui
        .body
        .set_attribute("data-worker", if st.ready { "ready" } else { "loading" });
    // The form is frozen while a batch runs (its experiments are already built).
    if let Ok(fieldsets) = ui.doc.query_selector_all("#experiment fieldset") {
        for i in 0..fieldsets.length() {
            if let Some(el) = fieldsets.get(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                if busy {
                    let _ = el.set_attribute("disabled", "");
                } else {
                    let _ = el.remove_attribute("disabled");
                }
            }
        }
    }
    ui.wl_trace.set_disabled(busy || st.trace.is_none());
    let synthetic = ui.wl_synthetic.checked();
    ui.jobs.set_disabled(busy || !synthetic);
    for (_, input) in &ui.params {
        input.set_disabled(busy || !synthetic);
    }
    let _ = ui
        .dropzone
        .class_list()
        .toggle_with_force("disabled", busy || loading);
    if st.ready {
        if busy {
            set_status(ui, "busy", "Simulating…");
        } else if loading {
            set_status(ui, "busy", "Reading trace…");
        } else {
            set_status(ui, "ready", "Simulator ready");
        }
    }
}

fn on_mode_change(app: &App) {
    let ui = &app.ui;
    let synthetic = ui.wl_synthetic.checked();
    {
        let mut st = app.state.borrow_mut();
        if synthetic {
            if ui.procs.value().trim().is_empty() {
                ui.procs.set_value(&st.synthetic_procs);
            }
        } else {
            st.synthetic_procs = ui.procs.value();
            ui.procs.set_value("");
        }
    }
    update_procs_hint(app);
    update_controls(app);
}

fn update_procs_hint(app: &App) {
    let ui = &app.ui;
    let st = app.state.borrow();
    if ui.wl_synthetic.checked() {
        ui.procs.set_required(true);
        ui.procs.set_placeholder("");
        ui.procs_hint
            .set_text_content(Some("Job sizes are drawn for this machine."));
    } else {
        ui.procs.set_required(false);
        let header = st.trace.as_ref().and_then(|t| t.info.header_procs);
        match header {
            Some(p) => {
                ui.procs.set_placeholder(&format!("{p} (trace)"));
                ui.procs_hint
                    .set_text_content(Some("Empty: the size in the trace header."));
            }
            None => {
                let largest = st.trace.as_ref().map(|t| t.info.max_job_procs).unwrap_or(0);
                ui.procs
                    .set_placeholder(&format!("{largest} (largest job)"));
                ui.procs_hint
                    .set_text_content(Some("Empty: the largest job (no size in the header)."));
            }
        }
    }
}

fn upload(app: &Rc<App>, file: File) {
    hide_error();
    let name = file.name();
    if file.size() > MAX_TRACE_BYTES {
        show_error(&format!(
            "{name}: the file is too large for the browser ({}, limit {}); use the \
             command-line tool.",
            format::bytes(file.size() as usize),
            format::bytes(MAX_TRACE_BYTES as usize)
        ));
        return;
    }
    app.ui
        .trace_label
        .set_text_content(Some(&format!("Reading {name}…")));
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        let buf = match JsFuture::from(file.array_buffer()).await {
            Ok(b) => b,
            Err(e) => {
                show_error(&format!("{name}: cannot read the file: {}", js_message(&e)));
                render_trace_label(&app);
                return;
            }
        };
        let bytes = Rc::new(Uint8Array::new(&buf).to_vec());
        post_trace(&app, &name, &bytes);
        app.state.borrow_mut().pending_trace = Some((name, bytes, false));
        update_controls(&app);
    });
}

fn render_trace_label(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    match &st.trace {
        Some(t) => {
            let i = &t.info;
            let mut details = format!(
                "{} jobs · largest job {} processors",
                format::count(i.jobs as u64),
                format::count(u64::from(i.max_job_procs))
            );
            if let Some(p) = i.header_procs {
                details.push_str(&format!(" · machine {}", format::count(p)));
            }
            if i.dropped > 0 {
                details.push_str(&format!(" · {} dropped", format::count(i.dropped as u64)));
            }
            if i.span_seconds > 0.0 {
                details.push_str(&format!(" · spans {:.0} days", i.span_seconds / 86_400.0));
            }
            if let Some(tz) = &i.time_zone {
                details.push_str(&format!(" · {tz}"));
            }
            details.push_str(&format!(" · {}", format::bytes(i.bytes)));
            ui.trace_label.set_inner_html(&format!(
                r#"<strong class="trace-name">{}</strong><small>{}</small><small class="replace">Drop or <u>browse</u> to replace</small>"#,
                escape(&i.name),
                escape(&details)
            ));
            let _ = ui.body.set_attribute("data-trace", &i.name);
        }
        None => {
            ui.trace_label.set_inner_html(
                "<span>Drop a <code>.swf</code> or <code>.swf.gz</code> trace here, or <u>browse</u></span>",
            );
        }
    }
}

fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            let reload = {
                let mut st = app.state.borrow_mut();
                if !st.ready && st.batch.is_none() && st.next_id == 0 {
                    app.ui.progress_label.set_text_content(Some("Ready."));
                }
                st.ready = true;
                st.trace
                    .as_ref()
                    .map(|t| (t.info.name.clone(), Rc::clone(&t.bytes)))
            };
            // A replacement worker gets the current trace again.
            if let Some((name, bytes)) = reload {
                post_trace(app, &name, &bytes);
                app.state.borrow_mut().pending_trace = Some((name, bytes, true));
            }
            update_controls(app);
            maybe_auto_run(app);
        }
        FromWorker::TraceLoaded(info) => {
            let pending = app.state.borrow_mut().pending_trace.take();
            if let Some((name, bytes, silent)) = pending {
                if name == info.name {
                    if !silent && !accept_for_link(app, &info) {
                        render_trace_label(app);
                        update_controls(app);
                        return;
                    }
                    app.state.borrow_mut().trace = Some(LoadedTrace { info, bytes });
                    if !silent {
                        app.ui.wl_trace.set_disabled(false);
                        app.ui.wl_trace.set_checked(true);
                        on_mode_change(app);
                        restore_trace_procs(app);
                    }
                }
            }
            render_trace_label(app);
            update_procs_hint(app);
            update_controls(app);
            maybe_auto_run(app);
        }
        FromWorker::Progress {
            id,
            completed,
            total,
            sim_time,
        } => {
            let st = app.state.borrow();
            let Some(b) = st.batch.as_ref().filter(|b| b.id == id) else {
                return;
            };
            let ui = &app.ui;
            ui.progress.set_max(total.max(1) as f64);
            ui.progress.set_value(completed as f64);
            let policy = b.runs[b.index].0;
            ui.progress_label.set_text_content(Some(&format!(
                "{} ({} of {}): {} / {} jobs · simulated time {}",
                policy_short(policy),
                b.index + 1,
                b.runs.len(),
                format::count(completed as u64),
                format::count(total as u64),
                format::duration(sim_time)
            )));
        }
        FromWorker::Done { id, report } => on_done(app, id, *report),
        FromWorker::Exported { id, format, text } => save_export(app, id, format, &text),
        FromWorker::GridProgress { .. }
        | FromWorker::GridDone { .. }
        | FromWorker::MeshDone { .. } => {}
        FromWorker::Cancelled { id } => {
            if current_id(app) == Some(id) {
                end_batch(app, "Cancelled.");
            }
        }
        FromWorker::Error { id, message, fatal } => {
            if fatal {
                replace_worker(app);
            }
            match id {
                Some(id) if current_id(app) == Some(id) => {
                    show_error(&message);
                    end_batch(app, "Stopped by an error.");
                }
                Some(_) => {}
                None => {
                    let had_pending = app.state.borrow_mut().pending_trace.take().is_some();
                    show_error(&message);
                    if had_pending {
                        render_trace_label(app);
                    }
                    if fatal {
                        end_batch(app, "Stopped: the simulator crashed.");
                    }
                    update_controls(app);
                }
            }
        }
    }
}

fn replace_worker(app: &Rc<App>) {
    if let Some(w) = app.worker.borrow_mut().take() {
        w.terminate();
    }
    app.state.borrow_mut().ready = false;
    spawn_worker(app);
}

fn current_id(app: &App) -> Option<u32> {
    app.state.borrow().batch.as_ref().map(|b| b.id)
}

fn end_batch(app: &App, note: &str) {
    stop_pool(app);
    let finished = app.state.borrow_mut().batch.take();
    if finished.is_some() {
        app.ui.progress_label.set_text_content(Some(note));
    }
    update_controls(app);
}

fn on_cancel(app: &App) {
    let sweep = app
        .state
        .borrow()
        .batch
        .as_ref()
        .is_some_and(|b| b.sweep.is_some());
    if sweep {
        // The pool's workers are stopped at once; the results on screen stay.
        end_batch(app, "Cancelled.");
        return;
    }
    let id = current_id(app);
    if let Some(id) = id {
        post(app, &ToWorker::Cancel { id: Some(id) });
        app.ui.progress_label.set_text_content(Some("Cancelling…"));
        app.ui.cancel.set_disabled(true);
    }
}

fn on_run(app: &Rc<App>) {
    if is_busy(app) || !app.state.borrow().ready {
        return;
    }
    hide_error();
    let batch = match build_batch(app) {
        Ok(b) => b,
        Err(m) => {
            show_error(&m);
            return;
        }
    };
    if batch.sweep.is_some() {
        let total = batch.runs.len();
        app.ui.progress.set_max(total as f64);
        app.ui.progress.set_value(0.0);
        app.state.borrow_mut().batch = Some(batch);
        update_controls(app);
        start_pool(app, total);
        return;
    }
    let first = ToWorker::Run {
        id: batch.id,
        experiment: Box::new(batch.runs[0].1.clone()),
        trace: batch.trace.clone(),
    };
    app.ui.progress.set_value(0.0);
    app.ui.progress_label.set_text_content(Some(&format!(
        "{} (1 of {}): preparing the workload…",
        policy_short(batch.runs[0].0),
        batch.runs.len()
    )));
    app.state.borrow_mut().batch = Some(batch);
    update_controls(app);
    post(app, &first);
}

fn field<T: std::str::FromStr>(input: &HtmlInputElement, what: &str) -> Result<T, String> {
    input
        .value()
        .trim()
        .replace([',', '_', ' '], "")
        .parse::<T>()
        .map_err(|_| format!("{what}: {:?} is not a valid value.", input.value()))
}

/// Reads the form into one experiment per selected policy.
fn build_batch(app: &App) -> Result<Batch, String> {
    let ui = &app.ui;
    let mut st = app.state.borrow_mut();
    let policies: Vec<PolicyKind> = ui
        .policies
        .iter()
        .filter(|(_, b)| b.checked())
        .map(|(p, _)| *p)
        .collect();
    if policies.is_empty() {
        return Err("Choose at least one policy.".into());
    }
    let seed: u64 = field(&ui.seed, "Seed (a whole number ≥ 0)")?;
    let sweep = if ui.sweep.checked() {
        Some(Sweep {
            from: field(&ui.sweep_from, "Sweep from")?,
            to: field(&ui.sweep_to, "Sweep to")?,
            step: field(&ui.sweep_step, "Sweep step")?,
        })
    } else {
        None
    };
    let loads = match &sweep {
        Some(s) => s.points()?,
        None => vec![field(&ui.load_factor, "Load factor")?],
    };
    for &load_factor in &loads {
        crate::limits::check_load_factor(load_factor).map_err(|m| format!("Load factor {m}."))?;
    }
    let load_factor = loads.first().copied().unwrap_or(1.0);
    let procs_text = ui.procs.value();
    let procs: Option<u32> = if procs_text.trim().is_empty() {
        None
    } else {
        let p: u32 = field(&ui.procs, "Machine size (processors)")?;
        if p == 0 || p > MAX_PROCS {
            return Err(format!(
                "Machine size must be between 1 and {} processors.",
                format::count(u64::from(MAX_PROCS))
            ));
        }
        Some(p)
    };
    // The link's experiment is the base only for its own kind of workload.
    let template = st
        .template
        .clone()
        .filter(|t| matches!(t.workload, WorkloadSpec::Synthetic(_)) == ui.wl_synthetic.checked());
    let transforms = Transforms {
        load_factor,
        ..template
            .as_ref()
            .map(|t| t.transforms.clone())
            .unwrap_or_default()
    };
    let synthetic_template = template.as_ref().and_then(|t| match &t.workload {
        WorkloadSpec::Synthetic(m) => Some((m.clone(), t.machine.clone())),
        WorkloadSpec::Swf(_) => None,
    });
    let swf_template = template.as_ref().and_then(|t| match &t.workload {
        WorkloadSpec::Swf(src) => Some(src.clone()),
        WorkloadSpec::Synthetic(_) => None,
    });
    let (workload, machine, trace, what) = if let (true, Some((model, _))) = (
        ui.wl_synthetic.checked(),
        synthetic_template
            .as_ref()
            .filter(|(m, _)| !matches!(m, SyntheticModel::Lublin(_))),
    ) {
        // A model the form cannot edit (from a share link): run it as the link says.
        let name = serde_json::to_value(model)
            .ok()
            .and_then(|v| v.get("model").and_then(|m| m.as_str()).map(String::from))
            .unwrap_or_default();
        let what = match procs {
            Some(p) => format!(
                "synthetic workload ({name}) from the share link, {} processors",
                format::count(u64::from(p))
            ),
            None => format!("synthetic workload ({name}) from the share link"),
        };
        (
            WorkloadSpec::Synthetic(model.clone()),
            MachineSpec::Flat { procs },
            None,
            what,
        )
    } else if ui.wl_synthetic.checked() {
        let jobs: usize = field(&ui.jobs, "Jobs")?;
        if jobs == 0 || jobs > MAX_JOBS {
            return Err(format!(
                "Jobs must be between 1 and {}.",
                format::count(MAX_JOBS as u64)
            ));
        }
        let Some(procs) = procs else {
            return Err("Machine size: enter the number of processors.".into());
        };
        let (base, machine) = match &synthetic_template {
            Some((SyntheticModel::Lublin(p), machine)) => (p.clone(), machine.clone()),
            _ => (LublinParams::default(), MachineSpec::Flat { procs: None }),
        };
        let params = LublinParams {
            jobs,
            procs,
            ..read_param_inputs(ui, base)?
        };
        let what = format!(
            "Lublin–Feitelson synthetic workload, {} jobs, {} processors",
            format::count(jobs as u64),
            format::count(u64::from(procs))
        );
        (
            WorkloadSpec::Synthetic(SyntheticModel::Lublin(params)),
            machine,
            None,
            what,
        )
    } else {
        let Some(t) = st.trace.as_ref() else {
            return Err("Upload a trace first (.swf or .swf.gz).".into());
        };
        let name = t.info.name.clone();
        if let Some(p) = procs.filter(|&p| p < t.info.max_job_procs) {
            return Err(format!(
                "Machine size: {p} processors is smaller than the largest job of {name} \
                 ({} processors). Enlarge the machine, or leave the field empty to use the \
                 trace's.",
                format::count(u64::from(t.info.max_job_procs))
            ));
        }
        let machine_procs = procs
            .map(u64::from)
            .or(t.info.header_procs)
            .unwrap_or(u64::from(t.info.max_job_procs));
        let what = format!("{name}, {} processors", format::count(machine_procs));
        let lenient = swf_template.as_ref().is_some_and(|s| s.lenient);
        (
            WorkloadSpec::Swf(SwfSource {
                name: Some(name.clone()),
                sha256: Some(t.info.sha256.clone()).filter(|h| h.len() == 64),
                lenient,
                ..SwfSource::default()
            }),
            MachineSpec::Flat { procs },
            Some(name),
            what,
        )
    };
    let mut runs = Vec::new();
    for &lf in &loads {
        for p in &policies {
            let mut exp = Experiment::new(workload.clone(), *p);
            exp.transforms = Transforms {
                load_factor: lf,
                ..transforms.clone()
            };
            exp.machine = machine.clone();
            exp.seed = seed;
            exp.name = template.as_ref().and_then(|t| t.name.clone());
            exp.validate().map_err(|e| e.to_string())?;
            runs.push((*p, exp));
        }
    }
    st.next_id += 1;
    let load_text = match &sweep {
        Some(s) => format!(
            "load factor {} to {} step {} ({} points)",
            s.from,
            s.to,
            s.step,
            loads.len()
        ),
        None => format!("load factor {load_factor}"),
    };
    let mut caption = format!("{what} · {load_text} · seed {seed}");
    if let Some(name) = template.as_ref().and_then(|t| t.name.as_deref()) {
        caption = format!("{name} — {caption}");
    }
    let runs_len = runs.len();
    Ok(Batch {
        runs,
        trace,
        index: 0,
        id: st.next_id,
        caption,
        rows: 0,
        wall_ms: 0.0,
        done: Vec::new(),
        charts: Vec::new(),
        records: Vec::new(),
        points: vec![None; if sweep.is_some() { runs_len } else { 0 }],
        sweep,
        next: 0,
        finished: 0,
        started: js_sys::Date::now(),
    })
}

fn on_done(app: &App, id: u32, report: RunReport) {
    let next = {
        let mut guard = app.state.borrow_mut();
        let st = &mut *guard;
        let Some(b) = st.batch.as_mut().filter(|b| b.id == id) else {
            return;
        };
        let policy = b.runs[b.index].0;
        if b.rows == 0 {
            // First result of this batch: the previous results make way.
            app.ui.results_body.set_inner_html("");
            render_head(&app.ui, false);
            app.ui.caption.set_text_content(Some(&b.caption));
            app.ui.empty.set_hidden(true);
            app.ui.share.set_hidden(true);
            app.ui.exports.set_hidden(true);
            app.ui.charts.set_hidden(true);
        }
        add_row(
            &app.ui,
            policy,
            None,
            &serde_json::to_value(&report.output.summary).unwrap_or_default(),
        );
        b.done.push((
            policy,
            id,
            serde_json::to_value(&report.output.summary).unwrap_or_default(),
        ));
        b.charts.push(report.charts.clone());
        b.records.push(report.jobs.clone().map(Rc::new));
        b.rows += 1;
        b.wall_ms += report.wall_ms;
        b.index += 1;
        if b.index < b.runs.len() {
            st.next_id += 1;
            b.id = st.next_id;
            Some(ToWorker::Run {
                id: b.id,
                experiment: Box::new(b.runs[b.index].1.clone()),
                trace: b.trace.clone(),
            })
        } else {
            None
        }
    };
    match next {
        Some(msg) => post(app, &msg),
        None => {
            highlight_best(&app.ui);
            publish_link(app);
            render_exports(app);
            draw_charts(app);
            let (n, ms) = app
                .state
                .borrow()
                .batch
                .as_ref()
                .map(|b| (b.runs.len(), b.wall_ms))
                .unwrap_or((0, 0.0));
            end_batch(
                app,
                &format!(
                    "Done: {} run{} in {} s.",
                    n,
                    if n == 1 { "" } else { "s" },
                    format::fixed(ms / 1000.0, 2)
                ),
            );
        }
    }
}

fn add_row(ui: &Ui, policy: PolicyKind, load: Option<f64>, summary: &serde_json::Value) {
    let mut html = format!(
        r#"<th scope="row" class="policy" title="{}">{}</th>"#,
        escape(policy_label(policy)),
        escape(policy_short(policy))
    );
    if let Some(lf) = load {
        html.push_str(&format!(r#"<td class="load">{lf}</td>"#));
    }
    for c in &COLUMNS {
        let v = summary.get(c.key);
        let raw = raw_value(v);
        let x = v.and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        let shown = match c.kind {
            Kind::Count => format::fixed(x, 0),
            Kind::Seconds => format::fixed(x, 0),
            Kind::Ratio => format::fixed(x, 2),
            Kind::Percent => format::fixed(x * 100.0, 2),
        };
        let title = match c.kind {
            Kind::Seconds if x.abs() >= 60.0 => format!("{raw} s ≈ {}", format::duration(x)),
            Kind::Seconds => format!("{raw} s"),
            _ => raw.clone(),
        };
        html.push_str(&format!(
            r#"<td data-key="{}" data-value="{}" title="{}">{}</td>"#,
            c.key,
            escape(&raw),
            escape(&title),
            shown
        ));
    }
    let row = match ui.doc.create_element("tr") {
        Ok(r) => r,
        Err(_) => return,
    };
    let _ = row.set_attribute("data-policy", policy.as_str());
    if let Some(lf) = load {
        let _ = row.set_attribute("data-load", &lf.to_string());
    }
    row.set_inner_html(&html);
    let _ = ui.results_body.append_child(&row);
}

/// Marks the best value of each comparable column (when several policies ran).
fn highlight_best(ui: &Ui) {
    let Ok(rows) = ui.results_body.query_selector_all("tr") else {
        return;
    };
    if rows.length() < 2 {
        return;
    }
    for c in &COLUMNS {
        if c.better == Better::Neither {
            continue;
        }
        let Ok(cells) = ui
            .results_body
            .query_selector_all(&format!(r#"td[data-key="{}"]"#, c.key))
        else {
            continue;
        };
        let cells: Vec<Element> = (0..cells.length())
            .filter_map(|i| cells.get(i).and_then(|n| n.dyn_into::<Element>().ok()))
            .collect();
        let value = |e: &Element| {
            e.get_attribute("data-value")
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let best =
            cells
                .iter()
                .map(value)
                .filter(|v| v.is_finite())
                .fold(None, |acc: Option<f64>, v| match (acc, c.better) {
                    (None, _) => Some(v),
                    (Some(a), Better::Lower) => Some(a.min(v)),
                    (Some(a), _) => Some(a.max(v)),
                });
        // Compare what is shown: values equal at the displayed precision are equally good.
        let Some(best_text) = cells
            .iter()
            .find(|e| Some(value(e)) == best)
            .and_then(|e| e.text_content())
        else {
            continue;
        };
        let shown = |e: &Element| e.text_content().unwrap_or_default();
        if cells.iter().all(|e| shown(e) == best_text) {
            continue;
        }
        for e in &cells {
            if shown(e) == best_text {
                let _ = e.class_list().add_1("best");
            }
        }
    }
}

/// The address bar's fragment, with its `#` (empty if none).
fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Opens the share link in the address bar, if there is one: restores the form and runs it
/// (after asking for its trace, if it uses one). A damaged or unsupported link is reported in
/// the error box and leaves the form as it was.
fn open_fragment(app: &Rc<App>) {
    let hash = location_hash();
    match ShareState::from_fragment(&hash) {
        Ok(None) => {}
        Ok(Some(state)) => {
            if is_busy(app) {
                show_error(
                    "A run is in progress: cancel it, then open the share link again (reload \
                     the page).",
                );
                return;
            }
            app.state.borrow_mut().fragment = hash.trim_start_matches('#').to_string();
            apply_share(app, state);
        }
        Err(m) => show_error(&format!(
            "This share link cannot be opened: {m} The form is unchanged."
        )),
    }
}

/// Fills the form from a share link and arranges for it to run.
fn apply_share(app: &Rc<App>, state: ShareState) {
    hide_error();
    let ui = &app.ui;
    let policies = state.policies();
    for (p, b) in &ui.policies {
        b.set_checked(policies.contains(p));
    }
    let exp = &state.experiment;
    ui.seed.set_value(&exp.seed.to_string());
    ui.load_factor
        .set_value(&exp.transforms.load_factor.to_string());
    ui.sweep.set_checked(state.sweep.is_some());
    if let Some(s) = &state.sweep {
        ui.sweep_from.set_value(&s.from.to_string());
        ui.sweep_to.set_value(&s.to.to_string());
        ui.sweep_step.set_value(&s.step.to_string());
    }
    update_sweep_fields(ui);
    let MachineSpec::Flat {
        procs: machine_procs,
    } = exp.machine;
    let wanted = match &exp.workload {
        WorkloadSpec::Synthetic(model) => {
            ui.wl_synthetic.set_checked(true);
            on_mode_change(app);
            match model {
                SyntheticModel::Lublin(p) => {
                    ui.jobs.set_value(&p.jobs.to_string());
                    ui.procs.set_value(&p.procs.to_string());
                    set_param_inputs(ui, p);
                }
                _ => {
                    ui.jobs.set_value("");
                    ui.procs
                        .set_value(&machine_procs.map(|p| p.to_string()).unwrap_or_default());
                }
            }
            app.state.borrow_mut().synthetic_procs = ui.procs.value();
            None
        }
        WorkloadSpec::Swf(src) => {
            let name = src
                .name
                .clone()
                .or_else(|| {
                    src.path
                        .as_deref()
                        .map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string())
                })
                .unwrap_or_default();
            Some((name, src.sha256.clone().map(|h| h.to_ascii_lowercase())))
        }
    };
    {
        let mut st = app.state.borrow_mut();
        st.template = Some(state.experiment.clone());
        st.auto_run = true;
        st.wanted_trace = None;
    }
    ui.share_notice.set_hidden(true);
    if let Some((name, sha)) = wanted {
        let loaded = app.state.borrow().trace.as_ref().map(|t| t.info.clone());
        let matches = loaded
            .as_ref()
            .is_some_and(|i| trace_matches(i, &name, &sha));
        if matches {
            ui.wl_trace.set_disabled(false);
            ui.wl_trace.set_checked(true);
            on_mode_change(app);
            restore_trace_procs(app);
        } else {
            let hash = sha
                .as_deref()
                .map(|h| format!(" (SHA-256 {}…{})", &h[..12], &h[h.len() - 6..]))
                .unwrap_or_default();
            ui.share_notice_text.set_text_content(Some(&format!(
                "This share link replays the trace {name}{hash}. Drop or browse that file \
                 above to run the experiment; a file with different contents is refused."
            )));
            ui.share_notice.set_hidden(false);
            app.state.borrow_mut().wanted_trace = Some((name, sha));
        }
    }
    update_procs_hint(app);
    update_controls(app);
    maybe_auto_run(app);
}

/// Whether the uploaded trace `info` is the one a link asks for: same SHA-256 when the link
/// has one, else same name.
fn trace_matches(info: &TraceInfo, name: &str, sha: &Option<String>) -> bool {
    match sha {
        Some(h) => h.eq_ignore_ascii_case(&info.sha256),
        None => info.name == name,
    }
}

/// Checks a freshly uploaded trace against the trace a share link waits for. A different
/// file is refused (error box; the previous trace is given back to the worker).
fn accept_for_link(app: &Rc<App>, info: &TraceInfo) -> bool {
    let wanted = app.state.borrow().wanted_trace.clone();
    let Some((name, sha)) = wanted else {
        return true;
    };
    if trace_matches(info, &name, &sha) {
        app.state.borrow_mut().wanted_trace = None;
        app.ui.share_notice.set_hidden(true);
        return true;
    }
    show_error(&format!(
        "{} is not the trace of this share link: its SHA-256 is {}, the link needs {name} with \
         SHA-256 {}. Choose that file, or \u{201c}Forget this link\u{201d} to use another trace.",
        info.name,
        info.sha256,
        sha.as_deref().unwrap_or("(none given)")
    ));
    // The worker now holds the refused file: give it the previous trace back.
    let previous = app
        .state
        .borrow()
        .trace
        .as_ref()
        .map(|t| (t.info.name.clone(), Rc::clone(&t.bytes)));
    if let Some((name, bytes)) = previous {
        post_trace(app, &name, &bytes);
        app.state.borrow_mut().pending_trace = Some((name, bytes, true));
    }
    false
}

/// After a link's trace is loaded: the machine size the link asks for (empty: the header's).
fn restore_trace_procs(app: &App) {
    let procs = app.state.borrow().template.as_ref().and_then(|t| {
        if !matches!(t.workload, WorkloadSpec::Swf(_)) {
            return None;
        }
        let MachineSpec::Flat { procs } = t.machine;
        Some(procs)
    });
    if let Some(p) = procs {
        app.ui
            .procs
            .set_value(&p.map(|p| p.to_string()).unwrap_or_default());
    }
}

/// Runs the experiment of an opened share link once everything it needs is there.
fn maybe_auto_run(app: &Rc<App>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && st.ready
            && st.batch.is_none()
            && st.pending_trace.is_none()
            && st.wanted_trace.is_none()
    };
    if go {
        app.state.borrow_mut().auto_run = false;
        on_run(app);
    }
}

/// "Forget this link": stop waiting for the link's trace; the form stays as it is.
fn forget_link(app: &App) {
    {
        let mut st = app.state.borrow_mut();
        st.wanted_trace = None;
        st.auto_run = false;
        st.template = None;
    }
    app.ui.share_notice.set_hidden(true);
    hide_error();
}

/// After a completed batch: its share link in the results header and in the address bar.
fn publish_link(app: &App) {
    let state = {
        let st = app.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        let Some((_, first)) = b.runs.first() else {
            return;
        };
        let mut policies: Vec<PolicyKind> = Vec::new();
        for (p, _) in &b.runs {
            if !policies.contains(p) {
                policies.push(*p);
            }
        }
        ShareState::new(first.clone(), policies).with_sweep(b.sweep)
    };
    let fragment = state.to_fragment();
    if fragment.is_empty() {
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    app.ui.share_link.set_href(&format!("{base}#{fragment}"));
    app.ui.share_copy.set_text_content(Some("Copy link"));
    app.ui.share.set_hidden(false);
    app.state.borrow_mut().fragment = fragment.clone();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
}

/// Copies the share link to the clipboard (navigator.clipboard, where available).
fn copy_link(app: &Rc<App>) {
    let href = app.ui.share_link.href();
    let Some(window) = web_sys::window() else {
        return;
    };
    let clipboard = js_sys::Reflect::get(&window.navigator(), &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null());
    let write = clipboard.as_ref().and_then(|c| {
        js_sys::Reflect::get(c, &JsValue::from_str("writeText"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .and_then(|f| f.call1(c, &JsValue::from_str(&href)).ok())
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
    });
    let button = app.ui.share_copy.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let ok = match write {
            Some(p) => JsFuture::from(p).await.is_ok(),
            None => false,
        };
        button.set_text_content(Some(if ok {
            "Copied"
        } else {
            "Copy failed: right-click the link"
        }));
    });
}

/// A summary value as the CLI prints it (integers without a fraction), empty if absent.
fn raw_value(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                format!("{}", n.as_f64().unwrap_or(f64::NAN))
            }
        }
        _ => String::new(),
    }
}

/// An object URL for a download of `text` (kept in the state, revoked when replaced).
fn blob_url(app: &App, text: &str, mime: &str) -> Option<String> {
    let url = object_url(text, mime)?;
    app.state.borrow_mut().blob_urls.push(url.clone());
    Some(url)
}

/// After a completed batch: download links for the summary (CSV, JSON, made here) and buttons
/// for each run's per-job CSV and SWF schedule (made by the worker on request).
fn render_exports(app: &App) {
    let (done, experiments, sweep) = {
        let st = app.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        let exps: Vec<Experiment> = b.runs.iter().map(|(_, e)| e.clone()).collect();
        (b.done.clone(), exps, b.sweep.is_some())
    };
    for url in std::mem::take(&mut app.state.borrow_mut().blob_urls) {
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    let mut csv = String::from(if sweep {
        "policy,load_factor"
    } else {
        "policy"
    });
    for c in &COLUMNS {
        csv.push(',');
        csv.push_str(c.key);
    }
    csv.push('\n');
    let mut json = Vec::new();
    for (i, (policy, _, summary)) in done.iter().enumerate() {
        csv.push_str(policy.as_str());
        if sweep {
            let lf = experiments
                .get(i)
                .map(|e| e.transforms.load_factor)
                .unwrap_or(f64::NAN);
            csv.push_str(&format!(",{lf}"));
        }
        for c in &COLUMNS {
            csv.push(',');
            csv.push_str(&raw_value(summary.get(c.key)));
        }
        csv.push('\n');
        json.push(serde_json::json!({
            "policy": policy.as_str(),
            "experiment": experiments.get(i),
            "summary": summary,
        }));
    }
    let json = serde_json::to_string_pretty(&json).unwrap_or_default();
    let csv_url = blob_url(app, &csv, "text/csv").unwrap_or_default();
    let json_url = blob_url(app, &json, "application/json").unwrap_or_default();
    let mut html = format!(
        r#"<span class="exports-label">Download</span>
<a href="{csv_url}" download="schedlab-summary.csv" data-testid="export-summary-csv">Summary CSV</a>
<a href="{json_url}" download="schedlab-summary.json" data-testid="export-summary-json">Summary JSON</a>"#
    );
    // (A sweep's runs were made by its pool, gone now: no per-run files.)
    for (policy, id, _) in done.iter().filter(|_| !sweep) {
        let p = policy.as_str();
        html.push_str(&format!(
            r#"<span class="exports-run"><span class="exports-policy">{short}</span><button type="button" class="link" data-export="jobs_csv" data-run="{id}" data-testid="export-jobs-{p}" title="One line per job: id, submit, start, end, processors, …">jobs CSV</button><button type="button" class="link" data-export="swf" data-run="{id}" data-testid="export-swf-{p}" title="The simulated schedule in the Standard Workload Format">schedule SWF</button></span>"#,
            short = escape(policy_short(*policy)),
        ));
    }
    app.ui.exports.set_inner_html(&html);
    app.ui.exports.set_hidden(false);
    app.state.borrow_mut().export_runs = done.iter().map(|(p, id, _)| (*id, *p)).collect();
}

/// Asks the worker for a per-run file (button `b` of the export bar).
fn request_export(app: &App, b: &Element) {
    let id = b
        .get_attribute("data-run")
        .and_then(|s| s.parse::<u32>().ok());
    let format = match b.get_attribute("data-export").as_deref() {
        Some("jobs_csv") => Some(ExportFormat::JobsCsv),
        Some("swf") => Some(ExportFormat::Swf),
        _ => None,
    };
    if let (Some(id), Some(format)) = (id, format) {
        hide_error();
        post(app, &ToWorker::Export { id, format });
    }
}

/// Saves a file made by the worker: a download through a temporary link.
fn save_export(app: &App, id: u32, format: ExportFormat, text: &str) {
    let policy = app
        .state
        .borrow()
        .export_runs
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p.as_str())
        .unwrap_or("run");
    let (name, mime) = match format {
        ExportFormat::JobsCsv => (format!("schedlab-{policy}-jobs.csv"), "text/csv"),
        ExportFormat::Swf => (format!("schedlab-{policy}-schedule.swf"), "text/plain"),
    };
    let Some(url) = blob_url(app, text, mime) else {
        show_error("The browser could not create the file to download.");
        return;
    };
    let Ok(a) = app
        .ui
        .doc
        .create_element("a")
        .and_then(|e| e.dyn_into::<HtmlAnchorElement>().map_err(JsValue::from))
    else {
        return;
    };
    a.set_href(&url);
    a.set_download(&name);
    a.set_hidden(true);
    let _ = app.ui.body.append_child(&a);
    a.click();
    let _ = app.ui.body.remove_child(&a);
}

/// After a completed batch: the charts of its runs.
fn draw_charts(app: &App) {
    app.ui.charts.set_hidden(false);
    let sweep = app
        .state
        .borrow()
        .batch
        .as_ref()
        .is_some_and(|b| b.sweep.is_some());
    app.ui.sweep_chart.set_hidden(!sweep);
    app.ui.time_charts.set_hidden(sweep);
    app.ui.gantt_section.set_hidden(sweep);
    if sweep {
        draw_sweep_chart(app);
        return;
    }
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref() else {
        return;
    };
    let series: Vec<chart::Series<'_>> = b
        .done
        .iter()
        .zip(&b.charts)
        .map(|((policy, _, _), data)| chart::Series {
            policy: *policy,
            data,
        })
        .collect();
    let drawn = chart::draw_all(&series);
    let runs: Vec<(PolicyKind, u32, Rc<Vec<JobRecord>>)> = b
        .done
        .iter()
        .zip(b.charts.iter().zip(&b.records))
        .filter_map(|((p, _, _), (c, r))| r.as_ref().map(|r| (*p, c.procs, Rc::clone(r))))
        .collect();
    let mut options = String::new();
    for (p, _, _) in &runs {
        options.push_str(&format!(
            r#"<option value="{}">{}</option>"#,
            p.as_str(),
            escape(policy_label(*p))
        ));
    }
    drop(st);
    // (The links are made after the state is released: they record their object URLs in it.)
    let ids = ["chart-util", "chart-queue", "chart-wait"];
    match drawn {
        Ok(svgs) => {
            for (id, svg) in ids.iter().zip(&svgs) {
                svg_link(app, id, Some(svg));
            }
        }
        Err(m) => show_error(&format!("The charts could not be drawn: {m}")),
    }
    for id in ids {
        png_link(&app.ui, id, true);
    }
    app.ui.gantt_policy.set_inner_html(&options);
    app.state.borrow_mut().gantt_runs = runs;
    draw_gantt(app);
}

/// Draws the Gantt chart of the run picked in the selector (runs with per-job records on
/// machines of at most `chart::MAX_GANTT_PROCS` processors).
fn draw_gantt(app: &App) {
    let ui = &app.ui;
    ui.gantt_tip.set_hidden(true);
    let wanted = ui.gantt_policy.value();
    let run = app
        .state
        .borrow()
        .gantt_runs
        .iter()
        .find(|(p, _, _)| p.as_str() == wanted)
        .map(|(p, procs, jobs)| (*p, *procs, Rc::clone(jobs)));
    let layout = run
        .as_ref()
        .and_then(|(_, procs, jobs)| chart::GanttLayout::new(jobs, *procs));
    let drawn = match (run, layout) {
        (Some((policy, _, jobs)), Some(layout)) => {
            match chart::draw_gantt(policy, &layout, &jobs) {
                Ok((area, svg)) => {
                    svg_link(app, "chart-gantt", Some(&svg));
                    Some((layout, jobs, area))
                }
                Err(m) => {
                    show_error(&format!("The Gantt chart could not be drawn: {m}"));
                    None
                }
            }
        }
        _ => None,
    };
    let shown = drawn.is_some();
    ui.gantt_box.set_hidden(!shown);
    ui.gantt_policy.set_hidden(!shown);
    if let Some(label) = ui
        .doc
        .get_element_by_id("gantt-label")
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        label.set_hidden(!shown);
    }
    png_link(ui, "chart-gantt", shown);
    if !shown {
        svg_link(app, "chart-gantt", None);
    }
    ui.gantt_note.set_text_content(Some(&if shown {
        "Hover a job for its details.".to_string()
    } else {
        format!(
            "Gantt chart: for runs of up to {} jobs on up to {} processors.",
            format::count(super::protocol::MAX_JOB_RECORDS as u64),
            format::count(u64::from(chart::MAX_GANTT_PROCS))
        )
    }));
    app.state.borrow_mut().gantt = drawn;
}

/// Shows the job under the mouse in the Gantt chart.
fn gantt_hover(app: &App, ev: &web_sys::MouseEvent) {
    let ui = &app.ui;
    let canvas = &ui.gantt_canvas;
    let cw = f64::from(canvas.client_width().max(1));
    let ch = f64::from(canvas.client_height().max(1));
    let x = f64::from(ev.offset_x()) * f64::from(canvas.width()) / cw;
    let y = f64::from(ev.offset_y()) * f64::from(canvas.height()) / ch;
    let text = {
        let st = app.state.borrow();
        st.gantt.as_ref().and_then(|(layout, jobs, area)| {
            let (t, p) = area.at(x, y)?;
            let j = jobs.get(layout.job_at(t, p)?)?;
            Some(format!(
                "Job {} · {} processor{}\nsubmit {} · start {} · end {}\nwaited {} · ran {}",
                j.id,
                format::count(u64::from(j.procs)),
                if j.procs == 1 { "" } else { "s" },
                format::duration(j.submit),
                format::duration(j.start),
                format::duration(j.end),
                format::duration(j.wait),
                format::duration(j.end - j.start)
            ))
        })
    };
    match text {
        Some(t) => {
            ui.gantt_tip.set_text_content(Some(&t));
            let left = f64::from(ev.offset_x()) + 14.0;
            let left = if left > cw - 260.0 {
                left - 290.0
            } else {
                left
            };
            let _ = ui.gantt_tip.set_attribute(
                "style",
                &format!(
                    "left: {left:.0}px; top: {:.0}px",
                    f64::from(ev.offset_y()) + 14.0
                ),
            );
            ui.gantt_tip.set_hidden(false);
        }
        None => ui.gantt_tip.set_hidden(true),
    }
}

/// Points the link `png-{canvas_id}` at the canvas as a PNG (hidden when `shown` is false).
fn png_link(ui: &Ui, canvas_id: &str, shown: bool) {
    let link = ui
        .doc
        .get_element_by_id(&format!("png-{canvas_id}"))
        .and_then(|e| e.dyn_into::<HtmlAnchorElement>().ok());
    let canvas = ui
        .doc
        .get_element_by_id(canvas_id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok());
    if let (Some(link), Some(canvas)) = (link, canvas) {
        match canvas.to_data_url().ok().filter(|_| shown) {
            Some(url) => {
                link.set_href(&url);
                link.set_hidden(false);
            }
            None => link.set_hidden(true),
        }
    }
}

/// Points the link `svg-{canvas_id}` at `svg` (hidden when `None`).
fn svg_link(app: &App, canvas_id: &str, svg: Option<&str>) {
    let Some(link) = app
        .ui
        .doc
        .get_element_by_id(&format!("svg-{canvas_id}"))
        .and_then(|e| e.dyn_into::<HtmlAnchorElement>().ok())
    else {
        return;
    };
    match svg.and_then(|s| blob_url(app, s, "image/svg+xml")) {
        Some(url) => {
            link.set_href(&url);
            link.set_hidden(false);
        }
        None => link.set_hidden(true),
    }
}

/// Draws "metric vs. load factor" of the sweep on screen, for the metric in the picker.
fn draw_sweep_chart(app: &App) {
    let key = app.ui.sweep_metric.value();
    let Some(col) = COLUMNS.iter().find(|c| c.key == key) else {
        return;
    };
    let scale = if col.kind == Kind::Percent {
        100.0
    } else {
        1.0
    };
    let lines = {
        let st = app.state.borrow();
        let mut lines: Vec<(PolicyKind, Vec<(f64, f64)>)> = Vec::new();
        for (p, lf, summary) in &st.sweep_rows {
            let y = summary
                .get(col.key)
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN)
                * scale;
            if !y.is_finite() {
                continue;
            }
            match lines.iter_mut().find(|(q, _)| q == p) {
                Some((_, pts)) => pts.push((*lf, y)),
                None => lines.push((*p, vec![(*lf, y)])),
            }
        }
        lines
    };
    if lines.is_empty() {
        return;
    }
    match chart::draw_sweep(col.label, col.unit, &lines) {
        Ok(svg) => svg_link(app, "chart-sweep", Some(&svg)),
        Err(m) => show_error(&format!("The sweep chart could not be drawn: {m}")),
    }
    png_link(&app.ui, "chart-sweep", true);
}

/// Starts the sweep's worker pool: up to `navigator.hardwareConcurrency` workers (at most
/// [`MAX_POOL`], at most one per point), each running points until none is left.
fn start_pool(app: &Rc<App>, points: usize) {
    stop_pool(app);
    let cores = web_sys::window()
        .and_then(|w| {
            js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("hardwareConcurrency")).ok()
        })
        .and_then(|v| v.as_f64())
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map(|c| c as usize)
        .unwrap_or(2);
    let n = cores.min(MAX_POOL).min(points).max(1);
    let gen = app.pool_gen.get();
    for i in 0..n {
        let on_message = {
            let app = Rc::clone(app);
            move |msg: Result<FromWorker, String>| {
                if app.pool_gen.get() != gen {
                    return;
                }
                match msg {
                    Ok(msg) => on_pool_message(&app, i, msg),
                    Err(m) => {
                        show_error(&m);
                        end_batch(&app, "Stopped by an error.");
                    }
                }
            }
        };
        let on_error = {
            let app = Rc::clone(app);
            move |message: String| {
                if app.pool_gen.get() != gen {
                    return;
                }
                show_error(&format!("A sweep simulator failed: {message}"));
                end_batch(&app, "Stopped: a simulator failed.");
            }
        };
        let worker = match start_worker(on_message, Some(Box::new(on_error))) {
            Ok(w) => w,
            Err(e) => {
                if i == 0 {
                    show_error(&format!("The sweep's simulators could not be started: {e}"));
                    end_batch(app, "Stopped: no simulator for the sweep.");
                    return;
                }
                break;
            }
        };
        app.pool.borrow_mut().push(PoolWorker {
            worker,
            running: None,
        });
    }
    sweep_progress(app);
}

/// Terminates the pool's workers (their late messages are ignored).
fn stop_pool(app: &App) {
    app.pool_gen.set(app.pool_gen.get().wrapping_add(1));
    for w in app.pool.borrow_mut().drain(..) {
        w.worker.terminate();
    }
}

/// "Sweep: points done / total" in the progress bar.
fn sweep_progress(app: &App) {
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref() else {
        return;
    };
    let total = b.runs.len();
    let workers = app.pool.borrow().len();
    app.ui.progress.set_max(total.max(1) as f64);
    app.ui.progress.set_value(b.finished as f64);
    let elapsed = (js_sys::Date::now() - b.started) / 1000.0;
    let eta = if b.finished > 0 && b.finished < total {
        let left = elapsed / b.finished as f64 * (total - b.finished) as f64;
        format!(" · about {} s left", format::fixed(left, 0))
    } else {
        String::new()
    };
    app.ui.progress_label.set_text_content(Some(&format!(
        "Sweep: {} / {} points done · {} worker{}{eta}",
        b.finished,
        total,
        workers,
        if workers == 1 { "" } else { "s" }
    )));
}

/// Hands pool worker `i` the next point of the sweep, if one is left.
fn dispatch(app: &App, i: usize) {
    let msg = {
        let mut guard = app.state.borrow_mut();
        let st = &mut *guard;
        let Some(b) = st.batch.as_mut().filter(|b| b.sweep.is_some()) else {
            return;
        };
        if b.next >= b.runs.len() {
            return;
        }
        let index = b.next;
        b.next += 1;
        st.next_id += 1;
        let id = st.next_id;
        if let Some(w) = app.pool.borrow_mut().get_mut(i) {
            w.running = Some((id, index));
        }
        ToWorker::Run {
            id,
            experiment: Box::new(b.runs[index].1.clone()),
            trace: b.trace.clone(),
        }
    };
    if let Some(w) = app.pool.borrow().get(i) {
        let _ = w.worker.post_message(&JsValue::from_str(&msg.to_json()));
    }
}

fn on_pool_message(app: &Rc<App>, i: usize, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            // With a trace, the worker first gets the file; it runs once it has read it.
            let trace = {
                let st = app.state.borrow();
                let wanted = st.batch.as_ref().and_then(|b| b.trace.clone());
                wanted.and_then(|name| {
                    st.trace
                        .as_ref()
                        .filter(|t| t.info.name == name)
                        .map(|t| (name, Rc::clone(&t.bytes)))
                })
            };
            match trace {
                Some((name, bytes)) => {
                    if let Some(w) = app.pool.borrow().get(i) {
                        post_trace_to(&w.worker, &name, &bytes);
                    }
                }
                None => dispatch(app, i),
            }
        }
        FromWorker::TraceLoaded(_) => dispatch(app, i),
        FromWorker::Progress { .. } | FromWorker::Cancelled { .. } => {}
        FromWorker::Exported { .. }
        | FromWorker::GridProgress { .. }
        | FromWorker::GridDone { .. }
        | FromWorker::MeshDone { .. } => {}
        FromWorker::Done { id, report } => {
            let running = app.pool.borrow().get(i).and_then(|w| w.running);
            let Some((_, index)) = running.filter(|(rid, _)| *rid == id) else {
                return;
            };
            if let Some(w) = app.pool.borrow_mut().get_mut(i) {
                w.running = None;
            }
            let complete = {
                let mut st = app.state.borrow_mut();
                let Some(b) = st.batch.as_mut().filter(|b| b.sweep.is_some()) else {
                    return;
                };
                if let Some(slot) = b.points.get_mut(index) {
                    *slot = Some(serde_json::to_value(&report.output.summary).unwrap_or_default());
                }
                b.finished += 1;
                b.wall_ms += report.wall_ms;
                b.finished == b.runs.len()
            };
            sweep_progress(app);
            if complete {
                finish_sweep(app);
            } else {
                dispatch(app, i);
            }
        }
        FromWorker::Error { message, .. } => {
            show_error(&message);
            end_batch(app, "Stopped by an error.");
        }
    }
}

/// All points of the sweep are in: the table (one row per policy and load factor), the
/// chart, the downloads and the share link.
fn finish_sweep(app: &App) {
    stop_pool(app);
    let rows: Vec<(PolicyKind, f64, serde_json::Value)> = {
        let mut st = app.state.borrow_mut();
        let Some(b) = st.batch.as_mut() else {
            return;
        };
        let rows: Vec<(PolicyKind, f64, serde_json::Value)> = b
            .runs
            .iter()
            .zip(&b.points)
            .map(|((p, e), s)| (*p, e.transforms.load_factor, s.clone().unwrap_or_default()))
            .collect();
        b.done = rows.iter().map(|(p, _, s)| (*p, 0, s.clone())).collect();
        b.rows = rows.len();
        rows
    };
    let ui = &app.ui;
    ui.results_body.set_inner_html("");
    render_head(ui, true);
    if let Some(caption) = app.state.borrow().batch.as_ref().map(|b| b.caption.clone()) {
        ui.caption.set_text_content(Some(&caption));
    }
    ui.empty.set_hidden(true);
    for (p, lf, s) in &rows {
        add_row(ui, *p, Some(*lf), s);
    }
    {
        let mut st = app.state.borrow_mut();
        st.sweep_rows = rows;
        st.gantt_runs.clear();
        st.gantt = None;
    }
    publish_link(app);
    render_exports(app);
    draw_charts(app);
    let (n, ms) = app
        .state
        .borrow()
        .batch
        .as_ref()
        .map(|b| (b.runs.len(), js_sys::Date::now() - b.started))
        .unwrap_or((0, 0.0));
    end_batch(
        app,
        &format!(
            "Done: sweep of {n} runs in {} s.",
            format::fixed(ms / 1000.0, 2)
        ),
    );
}
