//! The flat tab (started by the app shell, [`super::app`]): reads the experiment form, sends one run per selected policy
//! to the simulation worker, shows progress, the results table, the charts ([`super::chart`]),
//! the downloads (summary CSV/JSON made here; per-job CSV and SWF schedule made by the worker)
//! and the share link ([`super::share`]), and reports bad input in the inline error box
//! without touching the previous results.
//!
//! The markup lives in `index.html`; this module finds its elements by id, wires the events
//! and renders the results. The page keeps no simulation state: everything is computed by the
//! worker through [`crate::modes::flat::run`], like the CLI.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, DragEvent, Element, Event, EventTarget, File, HtmlAnchorElement, HtmlButtonElement,
    HtmlElement, HtmlInputElement, HtmlProgressElement, Worker,
};

use super::chart;
use super::dom::{defer, escape, listen, SeenGate};
use super::format;
use super::kit::by_id;
use super::kit::controls::wire_run_cancel;
use super::kit::downloads::Downloads;
use super::kit::error_box::ErrorBox;
use super::kit::upload::on_file_chosen;
use super::kit::upload::LoadedTrace;
use super::protocol::{
    ChartData, ExportFormat, FromWorker, PageReport, RunReport, ToWorker, TraceInfo,
};
use super::replay_panel::{ReplayPanel, ReplayRun};
use super::share::{ShareState, Sweep, SweepAxis};
use crate::base::{Explanation, Registered};
use crate::form::flat::{self, is_integer_param, param_values, FlatFields, MODEL_PARAMS};
use crate::form::{FieldError, TraceFacts};
use crate::metrics::JobRecord;
use crate::modes::flat::spec::{Experiment, MachineSpec, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::workload::synthetic::{LublinParams, SyntheticModel};

use super::kit::tab::{self, TabController};
pub use super::worker_link::WORKER_URL;

mod charts;
mod cluster;
mod compare;
mod controller;
mod link;
mod pool;
mod results;

use charts::*;
use controller::*;
use link::*;
use pool::*;
use results::*;

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
    p.entry().label
}

fn policy_short(p: PolicyKind) -> &'static str {
    p.entry().short
}

/// The page's elements.
struct Ui {
    doc: Document,
    body: HtmlElement,
    errors: ErrorBox,
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
    sweep_axis: web_sys::HtmlSelectElement,
    /// The policy builder.
    queue_order: web_sys::HtmlSelectElement,
    queue_expr_field: HtmlElement,
    queue_expr: HtmlInputElement,
    queue_expr_note: Element,
    backfill_order: web_sys::HtmlSelectElement,
    estimates: web_sys::HtmlSelectElement,
    sweep_from: HtmlInputElement,
    sweep_to: HtmlInputElement,
    sweep_step: HtmlInputElement,
    sweep_fields: HtmlElement,
    sweep_hint: HtmlElement,
    sweep_cluster: HtmlElement,
    sweep_file: HtmlAnchorElement,
    sweep_merged: HtmlInputElement,
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
    /// How the comparison and the replay of runs above `MAX_JOB_RECORDS` jobs are made (by the
    /// worker, from the runs it keeps).
    per_job_note: HtmlElement,
    first_jobs: HtmlInputElement,
    window_from: HtmlInputElement,
    window_to: HtmlInputElement,
    gantt_box: HtmlElement,
    compare: compare::CompareUi,
}

/// Each job's decision explanations, as lines (`RunReport::why`).
type Why = Vec<Vec<String>>;

/// A finished run that has per-job records: what its Gantt chart and hover need (and its
/// decision explanations, for the replay).
#[derive(Clone)]
struct GanttRun {
    policy: PolicyKind,
    procs: u32,
    jobs: Rc<Vec<JobRecord>>,
    why: Option<Rc<Why>>,
    explanations: Option<Rc<Vec<Explanation>>>,
}

/// The runs of one click on Run: one per selected policy, in order.
struct Batch {
    runs: Vec<(PolicyKind, Experiment)>,
    trace: Option<String>,
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
    /// Each record's decision explanations, in the same order (`RunReport::why`).
    why: Vec<Option<Rc<Why>>>,
    /// Each run's explanations as recorded, in the same order (`RunReport::explanations`).
    explanations: Vec<Option<Rc<Vec<Explanation>>>>,
    /// A load-factor sweep: `runs` holds every (load factor, policy) point, run in parallel on
    /// the worker pool; `points` their summaries as they arrive (in `runs` order).
    sweep: Option<Sweep>,
    points: Vec<Option<serde_json::Value>>,
    /// Next point of a sweep to hand to a pool worker, and points finished.
    next: usize,
    finished: usize,
    /// `Date.now()` when the batch started (milliseconds).
    started: f64,
    /// The work bound of the batch's runs in seconds: a share link's batch, which starts by
    /// itself, is held above [`crate::limits::PAGE_WORK_SECONDS`] (docs/limits.md).
    max_work: Option<f64>,
}

/// A worker of the sweep pool: ready once it said so (and, with a trace, once the trace is
/// loaded); `running` is the run id and point index it is simulating.
struct PoolWorker {
    worker: Worker,
    running: Option<(u32, usize)>,
}

#[derive(Default)]
struct State {
    next_id: u32,
    trace: Option<LoadedTrace>,
    /// A trace sent to the worker and not yet acknowledged: (name, bytes, silent reload).
    pending_trace: Option<(String, web_sys::Blob, bool)>,
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
    /// The next batch is a share link's, started by itself (see `Batch::max_work`).
    from_link: bool,
    /// Fragment of the last share link written into the address bar.
    fragment: String,
    /// Runs of the results on screen that the worker can export: run id and policy.
    export_runs: Vec<(u32, PolicyKind)>,
    /// Object URLs of the current downloads (revoked when replaced).
    downloads: Downloads,
    /// Runs of the results on screen that have per-job records (for the Gantt chart).
    gantt_runs: Vec<GanttRun>,
    /// The runs of the results on screen whose schedule the Gantt chart can show: policy and
    /// run id (every finished run, whatever its size).
    gantt_ids: Vec<(PolicyKind, u32)>,
    /// The run whose schedule was asked of the worker and not yet received.
    gantt_pending: Option<u32>,
    /// The run comparison on screen (re-sorted in place).
    comparison: Option<crate::metrics::RunComparison>,
    /// The sweep on screen (policy, axis value, summary), for the metric picker.
    sweep_rows: Vec<(PolicyKind, f64, serde_json::Value)>,
    /// The x axis of the sweep on screen: its key (`load_factor`, or a merged file's axis).
    sweep_x: String,
    /// An uploaded merged sweep of another mode on screen (drawn instead of `sweep_rows`).
    sweep_lines: Option<crate::sweep::plot::MergedPlot>,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    /// The step-by-step replay card (`#replay`).
    replay: Rc<ReplayPanel>,
    /// The zoomable Gantt chart of the run picked (`#chart-gantt`).
    gantt: Rc<super::gantt_view::GanttView>,
    tab: TabController<App>,
    /// Workers of the running sweep (terminated when it ends).
    pool: RefCell<Vec<PoolWorker>>,
    /// Bumped when the pool is torn down: messages of an older pool are ignored.
    pool_gen: Cell<u32>,
}

/// Jobs of the page's default run: small enough that every per-job view (the Gantt chart's
/// hover explanations, the comparison, the replay) shows at once.
pub const PAGE_JOBS: usize = 1000;

/// Most workers a sweep starts, whatever `navigator.hardwareConcurrency` says.
pub const MAX_POOL: usize = 16;

/// The flat panel's error box (found each time: the panic hook has no state).
fn error_box() -> Option<ErrorBox> {
    let doc = web_sys::window().and_then(|w| w.document())?;
    ErrorBox::find(&doc, "error", "flat-mode").ok()
}

/// Shows `message` in the error box (also used by the panic hook, so it takes no state).
pub fn show_error(message: &str) {
    if let Some(b) = error_box() {
        b.show(message);
    }
}

pub fn show_fatal(message: &str) {
    if let Some(b) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| by_id::<HtmlElement>(&d, "fatal").ok())
    {
        b.set_text_content(Some(message));
        b.set_hidden(false);
    }
}

fn hide_error() {
    if let Some(b) = error_box() {
        b.hide();
    }
}

/// Entry point of the `app` binary.
pub fn start(doc: &Document) {
    let defaults = LublinParams::default();
    let ui = match build_ui(doc.clone(), &defaults) {
        Ok(ui) => ui,
        Err(m) => {
            show_fatal(&format!("The page is incomplete — please reload it: {m}"));
            return;
        }
    };
    if let Some(b) = error_box() {
        b.wired();
    }
    // Defaults come from the model, so the form's default experiment is the documented one.
    ui.jobs.set_value(&PAGE_JOBS.to_string());
    ui.procs.set_value(&defaults.procs.to_string());
    let replay = match by_id::<HtmlElement>(&ui.doc, "replay")
        .and_then(|root| ReplayPanel::mount(&ui.doc, root, "replay"))
    {
        Ok(r) => r,
        Err(m) => {
            show_fatal(&format!("The page is incomplete — please reload it: {m}"));
            return;
        }
    };
    let gantt = match super::gantt_view::GanttView::mount(&ui.doc) {
        Ok(g) => g,
        Err(m) => {
            show_fatal(&format!("The page is incomplete — please reload it: {m}"));
            return;
        }
    };
    let app = Rc::new(App {
        ui,
        replay,
        gantt,
        state: RefCell::new(State {
            synthetic_procs: defaults.procs.to_string(),
            ..State::default()
        }),
        tab: TabController::default(),
        pool: RefCell::new(Vec::new()),
        pool_gen: Cell::new(0),
    });
    render_head(&app.ui, None);
    fill_sweep_metrics(&app.ui, None, "mean_wait");
    wire(&app);
    update_sweep_fields(&app.ui);
    tab::spawn_worker(&app);
    tab::refresh(&*app);
    open_fragment(&app);
}

/// The flat panel's elements (its model-parameter inputs written first); the error names the
/// missing element.
fn build_ui(doc: Document, defaults: &LublinParams) -> Result<Ui, String> {
    by_id::<Element>(&doc, "model-params-fields")?.set_inner_html(&param_fields_html(defaults));
    Ok(Ui {
        body: doc.body().ok_or("the page has no body")?,
        errors: ErrorBox::find(&doc, "error", "flat-mode")?,
        status: by_id(&doc, "worker-status")?,
        form: by_id(&doc, "experiment")?,
        run: by_id(&doc, "run")?,
        cancel: by_id(&doc, "cancel")?,
        wl_synthetic: by_id(&doc, "wl-synthetic")?,
        wl_trace: by_id(&doc, "wl-trace")?,
        jobs: by_id(&doc, "jobs")?,
        model_params: by_id(&doc, "model-params")?,
        params: MODEL_PARAMS
            .iter()
            .map(|&(key, _, _)| Ok((key, by_id(&doc, &format!("mp-{key}"))?)))
            .collect::<Result<_, String>>()?,
        procs: by_id(&doc, "procs")?,
        procs_hint: by_id(&doc, "procs-hint")?,
        load_factor: by_id(&doc, "load-factor")?,
        sweep: by_id(&doc, "sweep")?,
        sweep_axis: by_id(&doc, "sweep-axis")?,
        queue_order: by_id(&doc, "queue-order")?,
        queue_expr_field: by_id(&doc, "queue-expr-field")?,
        queue_expr: by_id(&doc, "queue-expr")?,
        queue_expr_note: by_id(&doc, "queue-expr-note")?,
        backfill_order: by_id(&doc, "backfill-order")?,
        estimates: by_id(&doc, "estimates")?,
        sweep_from: by_id(&doc, "sweep-from")?,
        sweep_to: by_id(&doc, "sweep-to")?,
        sweep_step: by_id(&doc, "sweep-step")?,
        sweep_fields: by_id(&doc, "sweep-fields")?,
        sweep_hint: by_id(&doc, "sweep-hint")?,
        sweep_cluster: by_id(&doc, "sweep-cluster")?,
        sweep_file: by_id(&doc, "sweep-file")?,
        sweep_merged: by_id(&doc, "sweep-merged")?,
        sweep_chart: by_id(&doc, "sweep-chart")?,
        sweep_metric: by_id(&doc, "sweep-metric")?,
        time_charts: by_id(&doc, "time-charts")?,
        gantt_section: by_id(&doc, "gantt")?,
        seed: by_id(&doc, "seed")?,
        policies: PolicyKind::ALL
            .iter()
            .map(|&p| Ok((p, by_id(&doc, &format!("policy-{}", p.as_str()))?)))
            .collect::<Result<_, String>>()?,
        upload: by_id(&doc, "upload")?,
        dropzone: by_id(&doc, "dropzone")?,
        trace_label: by_id(&doc, "trace-label")?,
        progress: by_id(&doc, "progress")?,
        progress_label: by_id(&doc, "progress-label")?,
        results_body: by_id(&doc, "results-body")?,
        results_head: by_id(&doc, "results-head")?,
        caption: by_id(&doc, "results-caption")?,
        empty: by_id(&doc, "results-empty")?,
        share: by_id(&doc, "share")?,
        share_link: by_id(&doc, "share-link")?,
        share_copy: by_id(&doc, "share-copy")?,
        share_notice: by_id(&doc, "share-notice")?,
        share_notice_text: by_id(&doc, "share-notice-text")?,
        exports: by_id(&doc, "exports")?,
        charts: by_id(&doc, "chart")?,
        gantt_policy: by_id(&doc, "gantt-policy")?,
        gantt_note: by_id(&doc, "gantt-note")?,
        per_job_note: by_id(&doc, "per-job-note")?,
        first_jobs: by_id(&doc, "first-jobs")?,
        window_from: by_id(&doc, "window-from")?,
        window_to: by_id(&doc, "window-to")?,
        gantt_box: by_id(&doc, "gantt-box")?,
        compare: compare::CompareUi::new(&doc)?,
        doc,
    })
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

fn render_head(ui: &Ui, sweep: Option<SweepAxis>) {
    let mut html = String::from(r#"<tr><th scope="col" class="policy">Policy</th>"#);
    match sweep {
        Some(SweepAxis::LoadFactor) => html.push_str(
            r#"<th scope="col" class="load" title="Arrival rate multiplier of this run"><span class="label">Load factor</span><span class="unit">×</span></th>"#,
        ),
        Some(axis) => html.push_str(&format!(
            r#"<th scope="col" class="load" title="The swept key of this run ({})"><span class="label">{}</span></th>"#,
            axis.key(),
            axis.label()
        )),
        None => {}
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

/// The builder's choices beyond the registry's orders: "a priority you write" after the
/// built-in orders, and EASY's backfill order ("the queue order", then every built-in one).
fn fill_policy_builder(ui: &Ui) {
    if let Ok(o) = ui
        .queue_order
        .owner_document()
        .map_or(Err(JsValue::NULL), |d| d.create_element("option"))
    {
        o.set_text_content(Some("A priority you write…"));
        let _ = o.set_attribute("value", flat::WRITTEN_ORDER);
        let _ = ui.queue_order.append_child(&o);
    }
    ui.backfill_order.set_inner_html(&format!(
        r#"<option value="">the queue order</option>{}"#,
        super::kit::picker::options_html(&crate::policy::order::ORDERS)
    ));
}

/// Shows the priority field when "A priority you write…" is chosen, and says at once where
/// the priority typed is wrong (its column, under a copy of the text).
fn update_policy_builder(ui: &Ui) {
    let written = ui.queue_order.value() == flat::WRITTEN_ORDER;
    ui.queue_expr_field.set_hidden(!written);
    let text = ui.queue_expr.value();
    let error = (written && !text.trim().is_empty())
        .then(|| crate::policy::order::PriorityExpression::parse(&text).err())
        .flatten();
    let _ = ui
        .queue_expr
        .class_list()
        .toggle_with_force("invalid", error.is_some());
    let _ = ui.queue_expr.set_attribute(
        "aria-invalid",
        if error.is_some() { "true" } else { "false" },
    );
    match error {
        Some(e) => {
            let _ = ui.queue_expr_note.set_attribute("class", "expr-error");
            ui.queue_expr_note.set_text_content(Some(&format!(
                "{}\nColumn {}: {}",
                e.pointer(&text),
                e.column,
                e.message
            )));
        }
        None => {
            let _ = ui.queue_expr_note.set_attribute("class", "hint");
            ui.queue_expr_note.set_text_content(Some(
                "Attributes: wait, submit, estimate, request, procs, area, user, queue, now; + − * / ^, log, log2, log10, sqrt, exp, abs, min, max, pow.",
            ));
        }
    }
}

fn wire(app: &Rc<App>) {
    fill_policy_builder(&app.ui);
    update_policy_builder(&app.ui);
    for (el, ev) in [
        (
            app.ui.queue_order.as_ref() as &web_sys::EventTarget,
            "change",
        ),
        (app.ui.queue_expr.as_ref(), "input"),
    ] {
        let a = Rc::clone(app);
        listen(el, ev, move |_: Event| update_policy_builder(&a.ui));
    }
    let ui = &app.ui;
    wire_run_cancel(app, ui.form.as_ref(), ui.cancel.as_ref(), on_run, on_cancel);
    wire_png_links(ui);
    {
        let app = Rc::clone(app);
        listen(ui.sweep.as_ref(), "change", move |_: Event| {
            update_sweep_fields(&app.ui)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.sweep_axis.as_ref(), "change", move |_: Event| {
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
    compare::wire(app);
    {
        // A large run's replay asks the worker for its windows.
        let weak = Rc::downgrade(app);
        app.replay.on_window_request(move |id, t| {
            if let Some(app) = weak.upgrade() {
                app.tab.worker.post(&ToWorker::ReplayWindow { id, t });
            }
        });
    }
    if let Some(hint) = ui.doc.get_element_by_id("exercises-hint") {
        let doc = ui.doc.clone();
        listen(hint.as_ref(), "click", move |ev: Event| {
            ev.prevent_default();
            if let Some(tab) = doc
                .get_element_by_id("mode-exercises")
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
            {
                tab.click();
            }
        });
    }
    if let Some(forget) = ui.doc.get_element_by_id("share-forget") {
        let app = Rc::clone(app);
        listen(forget.as_ref(), "click", move |_: Event| forget_link(&app));
    }
    if let Some(w) = web_sys::window() {
        let app = Rc::clone(app);
        listen(w.as_ref(), "hashchange", move |_: Event| {
            let hash = crate::web::kit::share_link::location_hash();
            if hash.trim_start_matches('#') != app.state.borrow().fragment {
                open_fragment(&app);
            }
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.sweep_file.as_ref(), "click", move |ev: Event| {
            cluster::prepare_sweep_file(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.sweep_merged.as_ref(), "change", move |_: Event| {
            cluster::plot_merged(&app)
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
        on_file_chosen(&ui.upload, move |file| upload(&app, file));
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
