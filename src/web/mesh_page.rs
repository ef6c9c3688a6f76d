//! The 2D-mesh mode of the page (the `#mesh-mode` panel of `index.html`): the form of a mesh
//! experiment — the machine M(W, H) and window-based scheduling of seed 003 §2–5 (contiguous
//! allocators First Fit, Best Fit, MPL under FCFS, OO, OOCB-k, Window-K, Delay), or the
//! non-contiguous allocators of seed 000 §3 run FCFS under the communication and I/O
//! contention model of seed 000 §4 (I/O nodes on one side, traffic ratio ρ) — the runs (one per
//! selected allocator, in this mode's own simulation worker, see [`super::mesh_worker`]), the
//! results table, the downloads, the share link, the mesh view ([`super::mesh_view`]: jobs on
//! their nodes, link-contention heatmap, play / step / scrub, hover) and the charts (service
//! time vs. traffic ratio, seed 000 Table 2; utilisation and queue over time).
//!
//! Share links are `#m=` followed by the base64url of the JSON of a [`MeshShare`] (the first
//! run's [`MeshExperiment`], the allocators compared and the policy chosen), `.` and its
//! checksum, as for the flat mode ([`super::share`]). Bad input is reported in the `mesh-error`
//! box, naming the field, and leaves the previous results in place.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::Uint8Array;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, Event, File, HtmlAnchorElement, HtmlButtonElement,
    HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, MouseEvent, Worker,
};

use super::dom::{escape, listen, object_url};
use super::format;
use super::mesh_view::{self, Geometry, Line, RunView};
use super::protocol::{FromWorker, MeshReport, ToWorker, TraceInfo};
use super::worker_link::{post_to, post_trace_array, start_worker};
use crate::config::{SwfSource, WorkloadSpec};
use crate::mesh_run::{
    preset_contention_seed000, preset_window_seed003, MeshAllocatorKind, MeshExperiment,
    SEED000_STRATEGIES,
};
pub use crate::mesh_share::{
    experiments_for, field_message, field_name, MeshShare, MAX_MESH_FRAGMENT, MESH_FRAGMENT_PREFIX,
    MESH_SHARE_VERSION,
};
use crate::policy::mesh::MeshPolicyKind;
use crate::workload::synthetic::{Exp000Params, Mesh003Params, SyntheticModel};

/// Traffic ratios of the sweep, in % I/O.
pub const SWEEP_RHOS: [u32; 6] = [0, 20, 40, 60, 80, 100];

/// How a results value is shown.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Count,
    Time,
    Ratio,
    Percent,
    Nodes,
    Messages,
}

/// One results column: where its value is (`summary` or `mesh`), its key, label, unit.
struct Column {
    group: &'static str,
    key: &'static str,
    label: &'static str,
    kind: Kind,
    title: &'static str,
}

const COLUMNS: [Column; 17] = [
    Column {
        group: "summary",
        key: "jobs",
        label: "Jobs",
        kind: Kind::Count,
        title: "Jobs simulated",
    },
    Column {
        group: "summary",
        key: "dropped",
        label: "Dropped",
        kind: Kind::Count,
        title: "Jobs left out (larger than the mesh, unknown size or run time)",
    },
    Column {
        group: "summary",
        key: "mean_wait",
        label: "Mean wait",
        kind: Kind::Time,
        title: "Mean of start − submit",
    },
    Column {
        group: "summary",
        key: "max_wait",
        label: "Max wait",
        kind: Kind::Time,
        title: "Longest start − submit",
    },
    Column {
        group: "summary",
        key: "mean_turnaround",
        label: "Mean turnaround",
        kind: Kind::Time,
        title: "Mean of end − submit (response time)",
    },
    Column {
        group: "summary",
        key: "mean_slowdown",
        label: "Mean slowdown",
        kind: Kind::Ratio,
        title: "Mean of turnaround / service time",
    },
    Column {
        group: "summary",
        key: "mean_bounded_slowdown",
        label: "Mean bounded slowdown",
        kind: Kind::Ratio,
        title: "Mean of max(1, turnaround / max(service, 10))",
    },
    Column {
        group: "summary",
        key: "utilization",
        label: "Utilization",
        kind: Kind::Percent,
        title: "Node-time used / (nodes × makespan)",
    },
    Column {
        group: "summary",
        key: "makespan",
        label: "Makespan",
        kind: Kind::Time,
        title: "Last end − first submit",
    },
    Column {
        group: "summary",
        key: "awrt",
        label: "AWRT",
        kind: Kind::Time,
        title: "Average weighted response time (weights: nodes × run time)",
    },
    Column {
        group: "summary",
        key: "awwt",
        label: "AWWT",
        kind: Kind::Time,
        title: "Average weighted wait time",
    },
    Column {
        group: "summary",
        key: "awsd",
        label: "AWSD",
        kind: Kind::Ratio,
        title: "Average weighted slowdown",
    },
    Column {
        group: "mesh",
        key: "mean_service",
        label: "Mean service",
        kind: Kind::Time,
        title: "Mean of end − start: run time stretched by link contention under non-contiguous \
                allocation (seed 000 Table 2)",
    },
    Column {
        group: "mesh",
        key: "mean_nodes_affected",
        label: "Nodes affected",
        kind: Kind::Nodes,
        title: "Mean nodes of the smallest rectangle enclosing a job's nodes (seed 000 §2.2)",
    },
    Column {
        group: "mesh",
        key: "mean_balance",
        label: "Balance factor",
        kind: Kind::Nodes,
        title: "Mean |nodes above − nodes below the middle I/O link| of a job (seed 000 §2.3)",
    },
    Column {
        group: "mesh",
        key: "max_link_load",
        label: "Max link load",
        kind: Kind::Messages,
        title: "Most messages on any link at any time (weighted by ρ)",
    },
    Column {
        group: "mesh",
        key: "io_hot_spot",
        label: "I/O hot spot",
        kind: Kind::Messages,
        title: "Most messages on any link of the I/O line at any time (seed 000 §2.3)",
    },
];

/// Elements of the mesh panel.
struct Ui {
    doc: Document,
    panel: HtmlElement,
    form: HtmlElement,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    sweep: HtmlButtonElement,
    preset003: HtmlButtonElement,
    preset000: HtmlButtonElement,
    wl003: HtmlInputElement,
    wl000: HtmlInputElement,
    wl_trace: HtmlInputElement,
    wl003_fields: HtmlElement,
    wl000_fields: HtmlElement,
    jobs003: HtmlInputElement,
    rate: HtmlInputElement,
    sides: HtmlSelectElement,
    jobs000: HtmlInputElement,
    interarrival: HtmlInputElement,
    upload: HtmlInputElement,
    trace_label: HtmlElement,
    width: HtmlInputElement,
    height: HtmlInputElement,
    shape: HtmlSelectElement,
    io_side: HtmlSelectElement,
    io_count: HtmlInputElement,
    rho: HtmlInputElement,
    rho_value: HtmlElement,
    seed: HtmlInputElement,
    allocs: Vec<(MeshAllocatorKind, HtmlInputElement)>,
    policy: HtmlSelectElement,
    policy_k: HtmlInputElement,
    policy_k_field: HtmlElement,
    policy_k_label: HtmlElement,
    policy_hint: HtmlElement,
    progress: web_sys::HtmlProgressElement,
    progress_label: HtmlElement,
    error: HtmlElement,
    error_text: HtmlElement,
    caption: HtmlElement,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    head: HtmlElement,
    body: HtmlElement,
    exports: HtmlElement,
    empty: HtmlElement,
    view: HtmlElement,
    run_pick: HtmlSelectElement,
    heat: HtmlInputElement,
    view_note: HtmlElement,
    png: HtmlAnchorElement,
    canvas: HtmlCanvasElement,
    tip: HtmlElement,
    prev: HtmlButtonElement,
    play: HtmlButtonElement,
    step: HtmlButtonElement,
    time: HtmlInputElement,
    time_label: HtmlElement,
    charts: HtmlElement,
    sweep_box: HtmlElement,
    util_box: HtmlElement,
    png_sweep: HtmlAnchorElement,
    png_util: HtmlAnchorElement,
}

/// A finished run.
struct Run {
    exp: MeshExperiment,
    report: MeshReport,
    view: Option<RunView>,
}

#[derive(Clone, Copy, PartialEq)]
enum BatchKind {
    Compare,
    Sweep,
}

/// Runs in progress: sent one after the other.
struct Batch {
    kind: BatchKind,
    exps: Vec<MeshExperiment>,
    /// Index of the run in flight.
    at: usize,
    /// Id of the run in flight.
    id: u32,
    trace: Option<String>,
    done: Vec<(MeshExperiment, MeshReport)>,
    t0: f64,
}

#[derive(Default)]
struct State {
    ready: bool,
    next_id: u32,
    batch: Option<Batch>,
    runs: Vec<Run>,
    /// The experiment the form edits (keeps what the form does not show: κ, transforms…).
    base: Option<MeshExperiment>,
    trace: Option<TraceInfo>,
    pending_trace: Option<String>,
    /// A share link waiting for the worker.
    auto_run: bool,
    /// The trace a share link names (file name, SHA-256), until the matching file is uploaded.
    link_trace: Option<(String, Option<String>)>,
    t: f64,
    geo: Geometry,
    occ: Vec<Option<usize>>,
    play: Option<i32>,
    blob_urls: Vec<String>,
    sweep_lines: Vec<Line>,
    /// The fragment this page wrote last (a `hashchange` to it is not a new link).
    fragment: String,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    worker: RefCell<Option<Worker>>,
    tick: RefCell<Option<Closure<dyn FnMut()>>>,
    drawing: Cell<bool>,
}

fn by_id<T: JsCast>(doc: &Document, id: &str) -> Option<T> {
    doc.get_element_by_id(id)?.dyn_into::<T>().ok()
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Entry point, called once from [`super::page::start`]. Does nothing if the page has no mesh
/// panel.
pub fn start() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(ui) = build_ui(&doc) else {
        web_sys::console::error_1(&JsValue::from_str(
            "mesh mode: index.html lacks an element of the mesh panel",
        ));
        return;
    };
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State::default()),
        worker: RefCell::new(None),
        tick: RefCell::new(None),
        drawing: Cell::new(false),
    });
    render_head(&app.ui, "time units");
    fill_form(
        &app,
        &preset_window_seed003(),
        &[MeshAllocatorKind::default()],
        None,
    );
    wire(&app);
    spawn_worker(&app);
    update_controls(&app);
    open_fragment(&app);
}

fn build_ui(doc: &Document) -> Option<Ui> {
    // The allocator checkboxes, grouped.
    let mut contig = String::new();
    let mut nodes = String::new();
    for a in MeshAllocatorKind::all() {
        let name = a.as_str();
        let html = format!(
            r#"<label class="choice"><input type="checkbox" id="mesh-alloc-{name}" data-testid="mesh-alloc-{name}" value="{name}"><span>{}</span></label>"#,
            escape(&a.label())
        );
        if a.is_contiguous() {
            contig.push_str(&html);
        } else {
            nodes.push_str(&html);
        }
    }
    doc.get_element_by_id("mesh-alloc-contig")?
        .set_inner_html(&contig);
    doc.get_element_by_id("mesh-alloc-nodes")?
        .set_inner_html(&nodes);
    let mut allocs = Vec::new();
    for a in MeshAllocatorKind::all() {
        allocs.push((a, by_id(doc, &format!("mesh-alloc-{}", a.as_str()))?));
    }
    Some(Ui {
        panel: by_id(doc, "mesh-mode")?,
        form: by_id(doc, "mesh-form")?,
        run: by_id(doc, "mesh-run")?,
        cancel: by_id(doc, "mesh-cancel")?,
        sweep: by_id(doc, "mesh-sweep")?,
        preset003: by_id(doc, "mesh-preset-003")?,
        preset000: by_id(doc, "mesh-preset-000")?,
        wl003: by_id(doc, "mesh-wl-003")?,
        wl000: by_id(doc, "mesh-wl-000")?,
        wl_trace: by_id(doc, "mesh-wl-trace")?,
        wl003_fields: by_id(doc, "mesh-wl-003-fields")?,
        wl000_fields: by_id(doc, "mesh-wl-000-fields")?,
        jobs003: by_id(doc, "mesh-jobs003")?,
        rate: by_id(doc, "mesh-rate")?,
        sides: by_id(doc, "mesh-sides")?,
        jobs000: by_id(doc, "mesh-jobs000")?,
        interarrival: by_id(doc, "mesh-interarrival")?,
        upload: by_id(doc, "mesh-upload")?,
        trace_label: by_id(doc, "mesh-trace-label")?,
        width: by_id(doc, "mesh-width")?,
        height: by_id(doc, "mesh-height")?,
        shape: by_id(doc, "mesh-shape")?,
        io_side: by_id(doc, "mesh-io-side")?,
        io_count: by_id(doc, "mesh-io-count")?,
        rho: by_id(doc, "mesh-rho")?,
        rho_value: by_id(doc, "mesh-rho-value")?,
        seed: by_id(doc, "mesh-seed")?,
        allocs,
        policy: by_id(doc, "mesh-policy")?,
        policy_k: by_id(doc, "mesh-policy-k")?,
        policy_k_field: by_id(doc, "mesh-policy-k-field")?,
        policy_k_label: by_id(doc, "mesh-policy-k-label")?,
        policy_hint: by_id(doc, "mesh-policy-hint")?,
        progress: by_id(doc, "mesh-progress")?,
        progress_label: by_id(doc, "mesh-progress-label")?,
        error: by_id(doc, "mesh-error")?,
        error_text: by_id(doc, "mesh-error-text")?,
        caption: by_id(doc, "mesh-caption")?,
        share: by_id(doc, "mesh-share")?,
        share_link: by_id(doc, "mesh-share-link")?,
        head: by_id(doc, "mesh-results-head")?,
        body: by_id(doc, "mesh-results-body")?,
        exports: by_id(doc, "mesh-exports")?,
        empty: by_id(doc, "mesh-results-empty")?,
        view: by_id(doc, "mesh-view")?,
        run_pick: by_id(doc, "mesh-run-pick")?,
        heat: by_id(doc, "mesh-heat")?,
        view_note: by_id(doc, "mesh-view-note")?,
        png: by_id(doc, "mesh-png")?,
        canvas: by_id(doc, "mesh-canvas")?,
        tip: by_id(doc, "mesh-tip")?,
        prev: by_id(doc, "mesh-prev")?,
        play: by_id(doc, "mesh-play")?,
        step: by_id(doc, "mesh-step")?,
        time: by_id(doc, "mesh-time")?,
        time_label: by_id(doc, "mesh-time-label")?,
        charts: by_id(doc, "mesh-charts")?,
        sweep_box: by_id(doc, "mesh-sweep-box")?,
        util_box: by_id(doc, "mesh-util-box")?,
        png_sweep: by_id(doc, "mesh-png-sweep")?,
        png_util: by_id(doc, "mesh-png-util")?,
        doc: doc.clone(),
    })
}

fn show_error(app: &App, message: &str) {
    app.ui.error_text.set_text_content(Some(message));
    app.ui.error.set_hidden(false);
}

fn hide_error(app: &App) {
    app.ui.error.set_hidden(true);
}

fn set_progress(app: &App, text: &str) {
    app.ui.progress_label.set_text_content(Some(text));
}

fn wire(app: &Rc<App>) {
    let ui = &app.ui;
    {
        let a = Rc::clone(app);
        listen(&ui.form, "submit", move |ev: Event| {
            ev.prevent_default();
            on_run(&a, BatchKind::Compare);
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.sweep, "click", move |_: Event| {
            on_run(&a, BatchKind::Sweep)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.cancel, "click", move |_: Event| on_cancel(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.preset003, "click", move |_: Event| {
            hide_error(&a);
            fill_form(
                &a,
                &preset_window_seed003(),
                &[MeshAllocatorKind::default()],
                None,
            );
            set_progress(
                &a,
                "Seed 003, Fig. 6: MPL under Window-240 on a 32 × 32 mesh. Press Run.",
            );
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.preset000, "click", move |_: Event| {
            hide_error(&a);
            let allocs = SEED000_STRATEGIES.map(MeshAllocatorKind::Nodes);
            fill_form(&a, &preset_contention_seed000(0.5), &allocs, None);
            set_progress(
                &a,
                "Seed 000: six non-contiguous allocators on a 22 × 16 mesh, ρ = 50 % I/O. Press \
                 Run, or Sweep traffic ratio.",
            );
        });
    }
    for input in [&ui.wl003, &ui.wl000, &ui.wl_trace] {
        let a = Rc::clone(app);
        listen(input, "change", move |_: Event| {
            update_workload_fields(&a.ui)
        });
    }
    for (_, b) in &ui.allocs {
        let a = Rc::clone(app);
        listen(b, "change", move |_: Event| update_policy_ui(&a.ui));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.policy, "change", move |_: Event| {
            update_policy_ui(&a.ui)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.rho, "input", move |_: Event| update_rho_label(&a.ui));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.upload, "change", move |_: Event| {
            let file = a.ui.upload.files().and_then(|f| f.get(0));
            if let Some(file) = file {
                upload(&a, file);
            }
        });
    }
    {
        let a = Rc::clone(app);
        let close: Option<Element> = ui.doc.get_element_by_id("mesh-error-close");
        if let Some(close) = close {
            listen(&close, "click", move |_: Event| hide_error(&a));
        }
    }
    {
        let a = Rc::clone(app);
        listen(&ui.run_pick, "change", move |_: Event| {
            stop_play(&a);
            reset_time(&a);
            draw_view(&a);
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.heat, "change", move |_: Event| draw_view(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.time, "input", move |_: Event| {
            let t = a.ui.time.value_as_number();
            if t.is_finite() {
                a.state.borrow_mut().t = t;
                draw_view(&a);
            }
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.step, "click", move |_: Event| {
            stop_play(&a);
            step(&a, true);
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.prev, "click", move |_: Event| {
            stop_play(&a);
            step(&a, false);
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.play, "click", move |_: Event| toggle_play(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.canvas, "mousemove", move |ev: MouseEvent| {
            hover(&a, &ev)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.canvas, "mouseleave", move |_: MouseEvent| {
            a.ui.tip.set_hidden(true)
        });
    }
    if let Some(w) = web_sys::window() {
        // A mesh link pasted into the address bar of an open page.
        let a = Rc::clone(app);
        listen(&w, "hashchange", move |_: Event| {
            let hash = web_sys::window()
                .and_then(|w| w.location().hash().ok())
                .unwrap_or_default();
            let h = hash.trim_start_matches('#');
            let busy = a.state.borrow().batch.is_some();
            if h.starts_with(MESH_FRAGMENT_PREFIX) && h != a.state.borrow().fragment && !busy {
                a.state.borrow_mut().fragment = h.to_string();
                open_fragment(&a);
            }
        });
    }
    for (link, canvas_id) in [
        (&ui.png, "mesh-canvas"),
        (&ui.png_sweep, "mesh-chart-sweep"),
        (&ui.png_util, "mesh-chart-util"),
    ] {
        let l = link.clone();
        let d = ui.doc.clone();
        listen(link, "click", move |_: Event| {
            if let Some(c) = by_id::<HtmlCanvasElement>(&d, canvas_id) {
                if let Ok(url) = c.to_data_url() {
                    l.set_href(&url);
                }
            }
        });
    }
}

fn spawn_worker(app: &Rc<App>) {
    let a = Rc::clone(app);
    let on_message = move |msg: Result<FromWorker, String>| match msg {
        Ok(msg) => on_worker_message(&a, msg),
        Err(m) => show_error(&a, &m),
    };
    match start_worker(on_message, None) {
        Ok(worker) => *app.worker.borrow_mut() = Some(worker),
        Err(_) => show_error(app, "The simulator of the mesh mode could not be started."),
    }
}

fn post(app: &App, msg: &ToWorker) {
    if let Some(w) = app.worker.borrow().as_ref() {
        post_to(w, msg);
    }
}

fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            let auto = {
                let mut st = app.state.borrow_mut();
                st.ready = true;
                std::mem::take(&mut st.auto_run)
            };
            set_progress(app, "Ready.");
            update_controls(app);
            if auto {
                on_run(app, BatchKind::Compare);
            }
        }
        FromWorker::TraceLoaded(info) => {
            let wanted = app.state.borrow().link_trace.clone();
            if let Some((name, Some(sha))) = &wanted {
                if !info.sha256.eq_ignore_ascii_case(sha) {
                    app.state.borrow_mut().pending_trace = None;
                    show_error(
                        app,
                        &format!(
                            "This link simulates the trace {name:?} with SHA-256 {sha}; the file \
                             {:?} has SHA-256 {}, so it is a different file. Upload the file the \
                             link names.",
                            info.name, info.sha256
                        ),
                    );
                    update_controls(app);
                    return;
                }
            }
            let run_link = wanted.is_some() && app.state.borrow().ready;
            let mut st = app.state.borrow_mut();
            st.link_trace = None;
            st.pending_trace = None;
            app.ui.wl_trace.set_disabled(false);
            app.ui.wl_trace.set_checked(true);
            app.ui.trace_label.set_inner_html(&format!(
                r#"<span class="trace-name">{}</span><small>{} jobs · largest {} processors</small>"#,
                escape(&info.name),
                format::count(info.jobs as u64),
                info.max_job_procs
            ));
            st.trace = Some(info);
            drop(st);
            update_workload_fields(&app.ui);
            update_controls(app);
            if run_link {
                hide_error(app);
                on_run(app, BatchKind::Compare);
            }
        }
        FromWorker::MeshDone { id, report } => on_mesh_done(app, id, *report),
        FromWorker::Error {
            message,
            fatal: true,
            ..
        } => {
            // The worker panicked: drop it and its runs, start a fresh one.
            if let Some(w) = app.worker.borrow_mut().take() {
                w.terminate();
            }
            {
                let mut st = app.state.borrow_mut();
                st.batch = None;
                st.ready = false;
                st.trace = None;
                st.pending_trace = None;
            }
            app.ui.wl_trace.set_disabled(true);
            if app.ui.wl_trace.checked() {
                app.ui.wl003.set_checked(true);
                update_workload_fields(&app.ui);
            }
            show_error(app, &message);
            set_progress(app, "Stopped: the simulator crashed; restarting it.");
            spawn_worker(app);
            update_controls(app);
        }
        FromWorker::Error { id, message, .. } => {
            let current = app.state.borrow().batch.as_ref().map(|b| b.id);
            match id {
                Some(id) if current == Some(id) => {
                    let failed = {
                        let st = app.state.borrow();
                        st.batch
                            .as_ref()
                            .and_then(|b| b.exps.get(b.at))
                            .map(|e| e.allocator.label())
                            .unwrap_or_default()
                    };
                    app.state.borrow_mut().batch = None;
                    show_error(app, &format!("{failed}: {message}"));
                    set_progress(app, "Stopped by an error; the previous results are kept.");
                    update_controls(app);
                }
                Some(_) => {}
                None => {
                    let had = app.state.borrow_mut().pending_trace.take().is_some();
                    show_error(app, &message);
                    if had {
                        app.ui
                            .trace_label
                            .set_text_content(Some("Drop a .swf or .swf.gz trace here, or browse"));
                    }
                    update_controls(app);
                }
            }
        }
        FromWorker::Progress { .. }
        | FromWorker::Done { .. }
        | FromWorker::Cancelled { .. }
        | FromWorker::Exported { .. }
        | FromWorker::GridProgress { .. }
        | FromWorker::GridDone { .. } => {}
    }
}

fn upload(app: &Rc<App>, file: File) {
    hide_error(app);
    let name = file.name();
    if file.size() > super::page::MAX_TRACE_BYTES {
        show_error(
            app,
            &format!("{name}: the file is too large for the browser."),
        );
        return;
    }
    app.ui
        .trace_label
        .set_text_content(Some(&format!("Reading {name}…")));
    let a = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        let buf = match JsFuture::from(file.array_buffer()).await {
            Ok(b) => b,
            Err(_) => {
                show_error(&a, &format!("{name}: cannot read the file."));
                return;
            }
        };
        if let Some(w) = a.worker.borrow().as_ref() {
            post_trace_array(w, &name, &Uint8Array::new(&buf));
        }
        a.state.borrow_mut().pending_trace = Some(name);
        update_controls(&a);
    });
}

fn update_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = st.batch.is_some();
    let blocked = !st.ready || busy || st.pending_trace.is_some();
    ui.run.set_disabled(blocked);
    ui.sweep.set_disabled(blocked);
    ui.cancel.set_disabled(!busy);
    ui.preset003.set_disabled(busy);
    ui.preset000.set_disabled(busy);
    let _ = ui
        .panel
        .set_attribute("data-state", if busy { "running" } else { "idle" });
    let _ = ui
        .panel
        .set_attribute("data-worker", if st.ready { "ready" } else { "loading" });
}

fn update_workload_fields(ui: &Ui) {
    let on003 = ui.wl003.checked();
    let on000 = ui.wl000.checked();
    for i in [&ui.jobs003, &ui.rate] {
        i.set_disabled(!on003);
    }
    ui.sides.set_disabled(!on003);
    for i in [&ui.jobs000, &ui.interarrival] {
        i.set_disabled(!on000);
    }
    let _ = ui
        .wl003_fields
        .class_list()
        .toggle_with_force("off", !on003);
    let _ = ui
        .wl000_fields
        .class_list()
        .toggle_with_force("off", !on000);
}

fn update_rho_label(ui: &Ui) {
    ui.rho_value
        .set_text_content(Some(&format!("{} % I/O", ui.rho.value())));
}

fn selected_allocators(ui: &Ui) -> Vec<MeshAllocatorKind> {
    ui.allocs
        .iter()
        .filter(|(_, b)| b.checked())
        .map(|(a, _)| *a)
        .collect()
}

/// The policy picker applies to contiguous allocators only: disabled (FCFS) when none is
/// selected, with a hint saying why.
fn update_policy_ui(ui: &Ui) {
    let sel = selected_allocators(ui);
    let contig = sel.iter().any(|a| a.is_contiguous());
    let nodes = sel.iter().any(|a| !a.is_contiguous());
    ui.policy.set_disabled(!contig);
    let p = ui.policy.value();
    let needs_k = contig && (p == "oocb" || p == "window");
    ui.policy_k_field.set_hidden(!needs_k);
    ui.policy_k_label.set_text_content(Some(if p == "oocb" {
        "Max bound k"
    } else {
        "Window size K"
    }));
    let hint = match (contig, nodes) {
        (false, true) => {
            "Non-contiguous allocators run FCFS under the contention model (seed 000): the \
             policy is fixed to FCFS."
        }
        (true, true) => "Applies to the contiguous allocators; the non-contiguous ones run FCFS.",
        (true, false) => "Seed 003 §4–5: Window-K considers the first K queued jobs together.",
        (false, false) => "Select at least one allocator.",
    };
    ui.policy_hint.set_text_content(Some(hint));
    let _ = ui
        .policy
        .set_attribute("data-forced", if contig { "false" } else { "true" });
}

fn policy_value(p: MeshPolicyKind) -> (&'static str, Option<u64>) {
    match p {
        MeshPolicyKind::Fcfs => ("fcfs", None),
        MeshPolicyKind::OutOfOrder => ("oo", None),
        MeshPolicyKind::Oocb(k) => ("oocb", Some(u64::from(k))),
        MeshPolicyKind::Window(k) => ("window", Some(k as u64)),
        MeshPolicyKind::Delay => ("delay", None),
    }
}

fn json_name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn from_name<T: for<'de> Deserialize<'de>>(s: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

/// Fills the form from an experiment, the allocators to compare and (if not the experiment's)
/// the contiguous allocators' policy.
fn fill_form(
    app: &App,
    exp: &MeshExperiment,
    allocs: &[MeshAllocatorKind],
    policy: Option<MeshPolicyKind>,
) {
    let ui = &app.ui;
    ui.width.set_value(&exp.width.to_string());
    ui.height.set_value(&exp.height.to_string());
    match &exp.workload {
        WorkloadSpec::Synthetic(SyntheticModel::Mesh003(p)) => {
            ui.wl003.set_checked(true);
            ui.jobs003.set_value(&p.jobs.to_string());
            ui.rate.set_value(&p.arrival_rate.to_string());
            ui.sides.set_value(&json_name(&p.sides));
        }
        WorkloadSpec::Synthetic(SyntheticModel::Exp000(p)) => {
            ui.wl000.set_checked(true);
            ui.jobs000.set_value(&p.jobs.to_string());
            ui.interarrival.set_value(&p.mean_interarrival.to_string());
        }
        WorkloadSpec::Swf(_) if !ui.wl_trace.disabled() => ui.wl_trace.set_checked(true),
        _ => {}
    }
    ui.shape.set_value(&json_name(&exp.shape_rule));
    ui.io_side.set_value(&json_name(&exp.network.io_side));
    ui.io_count.set_value(
        &exp.network
            .io_count
            .map(|c| c.to_string())
            .unwrap_or_default(),
    );
    ui.rho
        .set_value(&format!("{}", (exp.network.traffic_io * 100.0).round()));
    ui.seed.set_value(&exp.seed.to_string());
    let (p, k) = policy_value(policy.unwrap_or(exp.policy));
    ui.policy.set_value(p);
    if let Some(k) = k {
        ui.policy_k.set_value(&k.to_string());
    }
    for (a, b) in &ui.allocs {
        b.set_checked(allocs.contains(a));
    }
    app.state.borrow_mut().base = Some(exp.clone());
    update_workload_fields(ui);
    update_policy_ui(ui);
    update_rho_label(ui);
}

fn num<T: std::str::FromStr>(
    input: &HtmlInputElement,
    label: &str,
    what: &str,
) -> Result<T, String> {
    let v = input.value();
    let v = v.trim();
    v.parse::<T>()
        .map_err(|_| format!("{label}: enter {what} (got {v:?})."))
}

/// Reads the form: the base experiment (first allocator), the allocators and the policy of the
/// contiguous ones. Errors name the field.
fn read_form(
    app: &App,
) -> Result<(MeshExperiment, Vec<MeshAllocatorKind>, MeshPolicyKind), String> {
    let ui = &app.ui;
    let st = app.state.borrow();
    let mut exp = st.base.clone().unwrap_or_else(preset_window_seed003);
    exp.width = num(&ui.width, "Width W", "a whole number of columns")?;
    exp.height = num(&ui.height, "Height H", "a whole number of rows")?;
    let (w, h) = (exp.width, exp.height);
    if ui.wl003.checked() {
        let mut p = match &exp.workload {
            WorkloadSpec::Synthetic(SyntheticModel::Mesh003(p)) => p.clone(),
            _ => Mesh003Params::default(),
        };
        p.jobs = num(&ui.jobs003, "Jobs", "a whole number")?;
        p.arrival_rate = num(&ui.rate, "Arrival rate", "a number of jobs per time unit")?;
        p.sides = from_name(&ui.sides.value()).unwrap_or_default();
        p.width = w;
        p.height = h;
        exp.workload = WorkloadSpec::Synthetic(SyntheticModel::Mesh003(p));
    } else if ui.wl000.checked() {
        let mut p = match &exp.workload {
            WorkloadSpec::Synthetic(SyntheticModel::Exp000(p)) => p.clone(),
            _ => Exp000Params::default(),
        };
        p.jobs = num(&ui.jobs000, "Jobs", "a whole number")?;
        p.mean_interarrival = num(&ui.interarrival, "Mean interarrival", "a number of seconds")?;
        p.procs = w.saturating_mul(h);
        exp.workload = WorkloadSpec::Synthetic(SyntheticModel::Exp000(p));
    } else {
        let Some(t) = st.trace.as_ref() else {
            return Err("Workload: upload a trace first.".into());
        };
        exp.workload = WorkloadSpec::Swf(SwfSource {
            path: None,
            name: Some(t.name.clone()),
            sha256: Some(t.sha256.clone()),
            lenient: false,
        });
    }
    exp.shape_rule = from_name(&ui.shape.value()).unwrap_or_default();
    exp.network.io_side = from_name(&ui.io_side.value()).unwrap_or_default();
    let count = ui.io_count.value();
    exp.network.io_count = if count.trim().is_empty() {
        None
    } else {
        Some(num(
            &ui.io_count,
            "I/O count",
            "a whole number, or nothing for one per row",
        )?)
    };
    let pct: f64 = num(&ui.rho, "Traffic ratio ρ", "a percentage")?;
    // The slider has 5 % steps: keep an exact ratio (from a preset or link) it rounds to.
    if (exp.network.traffic_io * 100.0).round() != pct {
        exp.network.traffic_io = pct / 100.0;
    }
    exp.seed = num(&ui.seed, "Seed", "a whole number ≥ 0")?;
    let allocs = selected_allocators(ui);
    let policy = match ui.policy.value().as_str() {
        "oo" => MeshPolicyKind::OutOfOrder,
        "oocb" => MeshPolicyKind::Oocb(num(&ui.policy_k, "Max bound k", "a whole number")?),
        "window" => {
            let k: usize = num(&ui.policy_k, "Window size K", "a whole number ≥ 1")?;
            if k == 0 {
                return Err("Window size K: must be at least 1 (got 0).".into());
            }
            MeshPolicyKind::Window(k)
        }
        "delay" => MeshPolicyKind::Delay,
        _ => MeshPolicyKind::Fcfs,
    };
    if let Some(&first) = allocs.first() {
        exp.allocator = first;
        exp.policy = if first.is_contiguous() {
            policy
        } else {
            MeshPolicyKind::Fcfs
        };
    }
    Ok((exp, allocs, policy))
}

fn on_run(app: &Rc<App>, kind: BatchKind) {
    if app.state.borrow().batch.is_some() {
        return;
    }
    hide_error(app);
    let built = read_form(app).and_then(|(base, allocs, policy)| {
        let exps = experiments_for(&base, &allocs, policy)?;
        Ok((base, allocs, policy, exps))
    });
    let (base, allocs, policy, exps) = match built {
        Ok(v) => v,
        Err(m) => {
            show_error(app, &m);
            return;
        }
    };
    let exps = match kind {
        BatchKind::Compare => exps,
        BatchKind::Sweep => {
            let nodes: Vec<&MeshExperiment> = exps
                .iter()
                .filter(|e| !e.allocator.is_contiguous())
                .collect();
            if nodes.is_empty() {
                show_error(
                    app,
                    "Sweep traffic ratio: select at least one non-contiguous allocator (the \
                     traffic ratio changes only their service times).",
                );
                return;
            }
            let mut v = Vec::new();
            for e in nodes {
                for r in SWEEP_RHOS {
                    let mut e = e.clone();
                    e.network.traffic_io = f64::from(r) / 100.0;
                    v.push(e);
                }
            }
            v
        }
    };
    let _ = (allocs, policy);
    app.state.borrow_mut().base = Some(base);
    let trace = exps.first().and_then(|e| match &e.workload {
        WorkloadSpec::Swf(s) => s.name.clone(),
        _ => None,
    });
    let id = {
        let mut st = app.state.borrow_mut();
        st.next_id += 1;
        st.next_id
    };
    app.state.borrow_mut().batch = Some(Batch {
        kind,
        exps,
        at: 0,
        id,
        trace,
        done: Vec::new(),
        t0: now_ms(),
    });
    send_current(app);
    update_controls(app);
}

fn send_current(app: &App) {
    let msg = {
        let st = app.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        let Some(e) = b.exps.get(b.at) else {
            return;
        };
        let what = match b.kind {
            BatchKind::Compare => e.allocator.label(),
            BatchKind::Sweep => format!(
                "{} at ρ = {} %",
                e.allocator.label(),
                format::fixed(e.network.traffic_io * 100.0, 0)
            ),
        };
        app.ui.progress.set_value(b.at as f64 / b.exps.len() as f64);
        set_progress(
            app,
            &format!("Running {what} ({} of {})…", b.at + 1, b.exps.len()),
        );
        ToWorker::RunMesh {
            id: b.id,
            experiment: Box::new(e.clone()),
            trace: b.trace.clone(),
            lite: b.kind == BatchKind::Sweep,
        }
    };
    post(app, &msg);
}

fn on_cancel(app: &App) {
    let Some(b) = app.state.borrow_mut().batch.take() else {
        return;
    };
    post(app, &ToWorker::Cancel { id: Some(b.id) });
    set_progress(
        app,
        &format!(
            "Cancelled after {} of {} runs; the previous results are kept.",
            b.done.len(),
            b.exps.len()
        ),
    );
    update_controls(app);
}

fn on_mesh_done(app: &Rc<App>, id: u32, report: MeshReport) {
    let finished = {
        let mut st = app.state.borrow_mut();
        let next_id = st.next_id + 1;
        let Some(b) = st.batch.as_mut() else {
            return;
        };
        if b.id != id {
            return;
        }
        let exp = b.exps[b.at].clone();
        b.done.push((exp, report));
        b.at += 1;
        if b.at < b.exps.len() {
            b.id = next_id;
            st.next_id = next_id;
            None
        } else {
            st.batch.take()
        }
    };
    match finished {
        None => send_current(app),
        Some(b) => {
            app.ui.progress.set_value(1.0);
            let secs = (now_ms() - b.t0) / 1000.0;
            let n = b.done.len();
            match b.kind {
                BatchKind::Compare => finish_compare(app, b.done),
                BatchKind::Sweep => finish_sweep(app, b.done),
            }
            set_progress(
                app,
                &format!(
                    "Done: {n} run{} in {} s.",
                    if n == 1 { "" } else { "s" },
                    format::fixed(secs, 2)
                ),
            );
            update_controls(app);
        }
    }
}

fn finish_compare(app: &Rc<App>, done: Vec<(MeshExperiment, MeshReport)>) {
    stop_play(app);
    let runs: Vec<Run> = done
        .into_iter()
        .map(|(exp, report)| {
            let view = RunView::new(&exp, &report);
            Run { exp, report, view }
        })
        .collect();
    let unit = runs.first().map_or("s", |r| mesh_view::time_unit(&r.exp));
    render_head(&app.ui, unit);
    render_rows(app, &runs);
    render_caption(app, &runs);
    {
        let mut st = app.state.borrow_mut();
        st.runs = runs;
    }
    render_exports(app);
    publish_link(app);
    // The run picker.
    let mut opts = String::new();
    for (i, r) in app.state.borrow().runs.iter().enumerate() {
        let title = r.view.as_ref().map(|v| v.title.clone()).unwrap_or_default();
        opts.push_str(&format!(
            r#"<option value="{i}">{}</option>"#,
            escape(&title)
        ));
    }
    app.ui.run_pick.set_inner_html(&opts);
    app.ui.run_pick.set_value("0");
    app.ui.view.set_hidden(false);
    reset_time(app);
    draw_view(app);
    draw_time_charts(app);
}

fn finish_sweep(app: &App, done: Vec<(MeshExperiment, MeshReport)>) {
    let mut lines: Vec<Line> = Vec::new();
    for (exp, rep) in &done {
        let label = exp.allocator.label();
        let pt = (exp.network.traffic_io * 100.0, rep.output.mesh.mean_service);
        match lines.iter_mut().find(|(l, _)| *l == label) {
            Some((_, pts)) => pts.push(pt),
            None => lines.push((label, vec![pt])),
        }
    }
    let unit = done.first().map_or("s", |(e, _)| mesh_view::time_unit(e));
    app.ui.charts.set_hidden(false);
    app.ui.sweep_box.set_hidden(false);
    if let Err(e) = mesh_view::draw_traffic_sweep("mesh-chart-sweep", &lines, unit) {
        show_error(app, &e);
    }
    let _ = app
        .ui
        .sweep_box
        .set_attribute("data-lines", &lines.len().to_string());
    let _ = app.ui.sweep_box.set_attribute(
        "data-points",
        &serde_json::to_string(&lines).unwrap_or_default(),
    );
    app.state.borrow_mut().sweep_lines = lines;
}

fn render_head(ui: &Ui, unit: &str) {
    let mut html = String::from(
        r#"<tr><th scope="col" class="policy">Allocator</th><th scope="col" class="policy">Policy</th>"#,
    );
    for c in &COLUMNS {
        let u = match c.kind {
            Kind::Count => "count",
            Kind::Time => unit,
            Kind::Ratio => "ratio",
            Kind::Percent => "%",
            Kind::Nodes => "nodes",
            Kind::Messages => "messages",
        };
        html.push_str(&format!(
            r#"<th scope="col" data-key="{}" title="{}"><span class="label">{}</span><span class="unit">{}</span></th>"#,
            c.key,
            escape(c.title),
            escape(c.label),
            escape(u)
        ));
    }
    html.push_str("</tr>");
    ui.head.set_inner_html(&html);
}

/// A JSON number as the CLI prints it (integers without a fraction), empty if absent.
fn raw_value(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(u) => u.to_string(),
            None => format!("{}", n.as_f64().unwrap_or(f64::NAN)),
        },
        _ => String::new(),
    }
}

/// Whether a smaller value of a column is better (`Some(true)`), a larger one
/// (`Some(false)`), or neither (counts).
fn lower_is_better(c: &Column) -> Option<bool> {
    match (c.kind, c.key) {
        (Kind::Count, _) => None,
        (_, "utilization") => Some(false),
        _ => Some(true),
    }
}

fn render_rows(app: &App, runs: &[Run]) {
    let ui = &app.ui;
    // Per run and column: (raw value, shown text).
    let cells: Vec<Vec<(String, f64, String)>> = runs
        .iter()
        .map(|r| {
            let out = &r.report.output;
            let summary = serde_json::to_value(&out.summary).unwrap_or_default();
            let mesh = serde_json::to_value(&out.mesh).unwrap_or_default();
            COLUMNS
                .iter()
                .map(|c| {
                    let src = if c.group == "summary" {
                        &summary
                    } else {
                        &mesh
                    };
                    let v = src.get(c.key);
                    let raw = raw_value(v);
                    let x = v.and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
                    let shown = if raw.is_empty() {
                        "—".to_string()
                    } else {
                        match c.kind {
                            Kind::Count => format::fixed(x, 0),
                            Kind::Time | Kind::Messages if x.abs() >= 100.0 => format::fixed(x, 0),
                            Kind::Time | Kind::Ratio | Kind::Nodes | Kind::Messages => {
                                format::fixed(x, 2)
                            }
                            Kind::Percent => format::fixed(x * 100.0, 2),
                        }
                    };
                    (raw, x, shown)
                })
                .collect()
        })
        .collect();
    // The best shown value of each comparable column, when the runs differ.
    let best: Vec<Option<String>> = COLUMNS
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let lower = lower_is_better(c)?;
            if runs.len() < 2 {
                return None;
            }
            let vals: Vec<(f64, &String)> = cells
                .iter()
                .map(|row| (row[k].1, &row[k].2))
                .filter(|(x, _)| x.is_finite())
                .collect();
            let (_, text) = vals.iter().copied().reduce(|a, b| {
                let b_better = if lower { b.0 < a.0 } else { b.0 > a.0 };
                if b_better {
                    b
                } else {
                    a
                }
            })?;
            if vals.iter().all(|(_, t)| *t == text) {
                None
            } else {
                Some(text.clone())
            }
        })
        .collect();
    let mut html = String::new();
    for (r, row) in runs.iter().zip(&cells) {
        let out = &r.report.output;
        html.push_str(&format!(
            r#"<tr data-allocator="{}" data-policy="{}"><th scope="row" class="policy">{}</th><td class="policy-cell">{}</td>"#,
            escape(&out.allocator),
            escape(&out.policy),
            escape(&r.exp.allocator.label()),
            escape(&out.policy)
        ));
        for ((c, (raw, _, shown)), b) in COLUMNS.iter().zip(row).zip(&best) {
            let class = if b.as_ref() == Some(shown) {
                r#" class="best""#
            } else {
                ""
            };
            html.push_str(&format!(
                r#"<td data-key="{}" data-value="{}" title="{}"{class}>{}</td>"#,
                c.key,
                escape(raw),
                escape(if raw.is_empty() { "not computed" } else { raw }),
                shown
            ));
        }
        html.push_str("</tr>");
    }
    ui.body.set_inner_html(&html);
    ui.empty.set_hidden(!runs.is_empty());
}

fn render_caption(app: &App, runs: &[Run]) {
    let Some(r) = runs.first() else {
        return;
    };
    let e = &r.exp;
    let wl = match &e.workload {
        WorkloadSpec::Synthetic(SyntheticModel::Mesh003(p)) => format!(
            "seed 003 model ({} jobs, λ = {})",
            format::count(p.jobs as u64),
            p.arrival_rate
        ),
        WorkloadSpec::Synthetic(SyntheticModel::Exp000(p)) => format!(
            "seed 000 Table 1 model ({} jobs, mean interarrival {} s)",
            format::count(p.jobs as u64),
            p.mean_interarrival
        ),
        WorkloadSpec::Swf(s) => format!("trace {}", s.name.clone().unwrap_or_default()),
        _ => "workload".into(),
    };
    let io = e
        .network_model()
        .map(|n| n.io_nodes().len())
        .unwrap_or_default();
    let text = format!(
        "{} × {} mesh · {wl} · {} I/O nodes ({}) · ρ = {} % I/O · seed {}",
        e.width,
        e.height,
        io,
        json_name(&e.network.io_side),
        format::fixed(e.network.traffic_io * 100.0, 0),
        e.seed
    );
    app.ui.caption.set_text_content(Some(&text));
}

fn blob_url(app: &App, text: &str, mime: &str) -> Option<String> {
    let url = object_url(text, mime)?;
    app.state.borrow_mut().blob_urls.push(url.clone());
    Some(url)
}

fn render_exports(app: &App) {
    for u in std::mem::take(&mut app.state.borrow_mut().blob_urls) {
        let _ = web_sys::Url::revoke_object_url(&u);
    }
    let (csv, json, per_run) = {
        let st = app.state.borrow();
        let keys: Vec<&str> = COLUMNS.iter().map(|c| c.key).collect();
        let mut csv = format!("allocator,policy,{},mean_system_balance\n", keys.join(","));
        let mut arr = Vec::new();
        let mut per_run = Vec::new();
        for r in &st.runs {
            let out = &r.report.output;
            let summary = serde_json::to_value(&out.summary).unwrap_or_default();
            let mesh = serde_json::to_value(&out.mesh).unwrap_or_default();
            let mut line = vec![out.allocator.clone(), out.policy.clone()];
            for c in &COLUMNS {
                let src = if c.group == "summary" {
                    &summary
                } else {
                    &mesh
                };
                line.push(raw_value(src.get(c.key)));
            }
            line.push(raw_value(mesh.get("mean_system_balance")));
            csv.push_str(&line.join(","));
            csv.push('\n');
            arr.push(serde_json::json!({
                "allocator": out.allocator,
                "policy": out.policy,
                "summary": out.summary,
                "mesh": out.mesh,
            }));
            per_run.push((
                out.allocator.clone(),
                r.exp.allocator.label(),
                r.report.jobs_csv.clone(),
                r.exp.to_json(),
            ));
        }
        (
            csv,
            serde_json::to_string_pretty(&arr).unwrap_or_default(),
            per_run,
        )
    };
    let mut html = String::from(r#"<span class="exports-label">Download</span>"#);
    if let Some(u) = blob_url(app, &csv, "text/csv") {
        html.push_str(&format!(
            r#"<a href="{u}" download="schedlab-mesh-summary.csv" data-testid="mesh-dl-csv">summary CSV</a>"#
        ));
    }
    if let Some(u) = blob_url(app, &json, "application/json") {
        html.push_str(&format!(
            r#"<a href="{u}" download="schedlab-mesh-summary.json" data-testid="mesh-dl-json">summary JSON</a>"#
        ));
    }
    for (name, label, jobs, exp) in per_run {
        html.push_str(&format!(
            r#"<span class="exports-run"><span class="exports-policy">{}</span>"#,
            escape(&label)
        ));
        if let Some(u) = blob_url(app, &jobs, "text/csv") {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-mesh-{name}-jobs.csv" data-testid="mesh-dl-jobs-{name}">per-job CSV</a>"#
            ));
        }
        if let Some(u) = blob_url(app, &exp, "application/json") {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-mesh-{name}.json" data-testid="mesh-dl-exp-{name}" title="The experiment, for schedlab mesh">experiment JSON</a>"#
            ));
        }
        html.push_str("</span>");
    }
    app.ui.exports.set_inner_html(&html);
    app.ui.exports.set_hidden(false);
}

fn publish_link(app: &App) {
    let share = {
        let st = app.state.borrow();
        let Some(first) = st.runs.first() else {
            return;
        };
        let allocators: Vec<MeshAllocatorKind> = st.runs.iter().map(|r| r.exp.allocator).collect();
        let policy = st
            .runs
            .iter()
            .find(|r| r.exp.allocator.is_contiguous())
            .map(|r| r.exp.policy)
            .filter(|p| *p != first.exp.policy)
            .map(|p| p.label().to_ascii_lowercase());
        MeshShare {
            v: MESH_SHARE_VERSION,
            experiment: first.exp.clone(),
            allocators,
            policy,
        }
    };
    let fragment = share.to_fragment();
    let Some(window) = web_sys::window() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    app.ui.share_link.set_href(&format!("{base}#{fragment}"));
    app.ui.share.set_hidden(false);
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
    app.state.borrow_mut().fragment = fragment;
}

/// Opens a `#m=` link: restores the form and runs it once the worker is ready.
fn open_fragment(app: &Rc<App>) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    match MeshShare::from_fragment(&hash) {
        Ok(None) => {}
        Ok(Some(share)) => {
            let policy = share
                .policy
                .as_deref()
                .and_then(|p| MeshPolicyKind::parse(p).ok());
            fill_form(app, &share.experiment, &share.allocators, policy);
            if let WorkloadSpec::Swf(s) = &share.experiment.workload {
                let name = s.name.clone().unwrap_or_default();
                app.state.borrow_mut().link_trace = Some((name.clone(), s.sha256.clone()));
                show_error(
                    app,
                    &format!(
                        "This link simulates the trace {name:?}: upload it (above); it runs as \
                         soon as the file is read (a different file is refused)."
                    ),
                );
                return;
            }
            let ready = app.state.borrow().ready;
            if ready {
                on_run(app, BatchKind::Compare);
            } else {
                app.state.borrow_mut().auto_run = true;
            }
        }
        Err(m) => {
            let stop = if m.ends_with('.') { "" } else { "." };
            show_error(
                app,
                &format!("This share link cannot be opened: {m}{stop} The form is unchanged."),
            )
        }
    }
}

// ---- the mesh view ----

fn current_run(app: &App) -> usize {
    app.ui.run_pick.value().parse().unwrap_or(0)
}

fn reset_time(app: &App) {
    let st = app.state.borrow();
    let Some(view) = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref()) else {
        return;
    };
    let (t0, t1) = (view.timeline.first(), view.timeline.last());
    app.ui.time.set_min(&t0.to_string());
    app.ui.time.set_max(&t1.to_string());
    let t = view.busiest_start(t0 + (t1 - t0) * 0.25, t0 + (t1 - t0) * 0.5);
    let note = if view.truncated {
        format!(
            "Only the first {} jobs of the run are drawn. Hover a node for its job.",
            format::count(view.jobs.len() as u64)
        )
    } else {
        "Hover a node for its job.".to_string()
    };
    app.ui.view_note.set_text_content(Some(&note));
    drop(st);
    app.state.borrow_mut().t = t;
}

fn draw_view(app: &App) {
    if app.drawing.replace(true) {
        return;
    }
    let idx = current_run(app);
    let t = app.state.borrow().t;
    let heat = app.ui.heat.checked();
    let ctx = app
        .ui
        .canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    let drawn = {
        let st = app.state.borrow();
        match (st.runs.get(idx).and_then(|r| r.view.as_ref()), ctx) {
            (Some(view), Some(ctx)) => {
                let (cw, ch) = (
                    f64::from(app.ui.canvas.width()),
                    f64::from(app.ui.canvas.height()),
                );
                let (geo, occ) = view.draw(&ctx, cw, ch, t, heat);
                let (running, waiting) = view.counts_at(t);
                let (t0, t1) = (view.timeline.first(), view.timeline.last());
                Some((geo, occ, running, waiting, t0, t1, view.unit))
            }
            _ => None,
        }
    };
    if let Some((geo, occ, running, waiting, t0, t1, unit)) = drawn {
        app.ui.time.set_value(&t.to_string());
        app.ui.time_label.set_text_content(Some(&format!(
            "t = {} {unit} (of {} – {}) · {running} running · {waiting} waiting",
            format::fixed(t, 2),
            format::fixed(t0, 2),
            format::fixed(t1, 2)
        )));
        let c = &app.ui.canvas;
        let _ = c.set_attribute("data-t", &t.to_string());
        let _ = c.set_attribute("data-running", &running.to_string());
        let _ = c.set_attribute("data-waiting", &waiting.to_string());
        // A busy node's centre in CSS pixels (for tests and tools: where to hover).
        let w = geo.width.max(1);
        let busy = occ.iter().position(Option::is_some).map(|i| {
            let (x, y) = ((i as u32 % w) + 1, (i as u32 / w) + 1);
            let (cx, cy) = geo.centre(x, y);
            let k = f64::from(c.client_width().max(1)) / f64::from(c.width().max(1));
            format!("{},{}", (cx * k).round(), (cy * k).round())
        });
        let _ = c.set_attribute("data-busy-node", &busy.unwrap_or_default());
        let mut st = app.state.borrow_mut();
        st.geo = geo;
        st.occ = occ;
    }
    app.drawing.set(false);
}

fn step(app: &App, forward: bool) {
    let next = {
        let st = app.state.borrow();
        let Some(view) = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref()) else {
            return;
        };
        if forward {
            view.timeline.next_after(st.t)
        } else {
            view.timeline.prev_before(st.t)
        }
    };
    if let Some(t) = next {
        app.state.borrow_mut().t = t;
        draw_view(app);
    }
}

fn stop_play(app: &App) {
    if let Some(h) = app.state.borrow_mut().play.take() {
        if let Some(w) = web_sys::window() {
            w.clear_interval_with_handle(h);
        }
    }
    app.ui.play.set_text_content(Some("▶ Play"));
}

fn toggle_play(app: &Rc<App>) {
    if app.state.borrow().play.is_some() {
        stop_play(app);
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    if app.tick.borrow().is_none() {
        let a = Rc::downgrade(app);
        *app.tick.borrow_mut() = Some(Closure::<dyn FnMut()>::new(move || {
            let Some(a) = a.upgrade() else {
                return;
            };
            let (t0, t1) = {
                let st = a.state.borrow();
                match st.runs.get(current_run(&a)).and_then(|r| r.view.as_ref()) {
                    Some(v) => (v.timeline.first(), v.timeline.last()),
                    None => (0.0, 0.0),
                }
            };
            let done = {
                let mut st = a.state.borrow_mut();
                st.t = (st.t + (t1 - t0) / 400.0).min(t1);
                st.t >= t1
            };
            draw_view(&a);
            if done {
                stop_play(&a);
            }
        }));
    }
    // From the end, play starts again at the beginning.
    {
        let mut st = app.state.borrow_mut();
        if let Some(v) = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref()) {
            if st.t >= v.timeline.last() {
                st.t = v.timeline.first();
            }
        }
    }
    let handle = app.tick.borrow().as_ref().and_then(|c| {
        window
            .set_interval_with_callback_and_timeout_and_arguments_0(c.as_ref().unchecked_ref(), 40)
            .ok()
    });
    app.state.borrow_mut().play = handle;
    app.ui.play.set_text_content(Some("Pause"));
}

fn hover(app: &App, ev: &MouseEvent) {
    let c = &app.ui.canvas;
    let cw = f64::from(c.client_width().max(1));
    let scale = f64::from(c.width()) / cw;
    let (ox, oy) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
    let text = {
        let st = app.state.borrow();
        let view = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref());
        match (view, st.geo.node_at(ox * scale, oy * scale)) {
            (Some(v), Some((x, y))) => v.tooltip(&st.occ, x, y),
            _ => None,
        }
    };
    let tip = &app.ui.tip;
    match text {
        Some(t) => {
            tip.set_text_content(Some(&t));
            tip.set_hidden(false);
            let w = f64::from(tip.offset_width());
            let left = if ox + 16.0 + w > cw {
                ox - w - 12.0
            } else {
                ox + 16.0
            };
            let _ = tip.set_attribute(
                "style",
                &format!("left: {}px; top: {}px", left.max(0.0), oy + 14.0),
            );
        }
        None => tip.set_hidden(true),
    }
}

fn draw_time_charts(app: &App) {
    let (busy, waiting, unit) = {
        let st = app.state.borrow();
        let mut busy: Vec<Line> = Vec::new();
        let mut waiting: Vec<Line> = Vec::new();
        let mut unit = "s";
        for r in &st.runs {
            if let Some(v) = &r.view {
                let (b, w) = mesh_view::over_time(v, 200);
                busy.push((v.title.clone(), b));
                waiting.push((v.title.clone(), w));
                unit = v.unit;
            }
        }
        (busy, waiting, unit)
    };
    if busy.is_empty() {
        return;
    }
    app.ui.charts.set_hidden(false);
    app.ui.util_box.set_hidden(false);
    if let Err(e) = mesh_view::draw_over_time("mesh-chart-util", &busy, &waiting, unit) {
        show_error(app, &e);
    }
}
