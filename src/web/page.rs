//! The page (the `app` binary): reads the experiment form, sends one run per selected policy
//! to the simulation worker, shows progress and the results table, and reports bad input in
//! the inline error box without touching the previous results.
//!
//! The markup lives in `index.html`; this module finds its elements by id, wires the events
//! and renders the results. The page keeps no simulation state: everything is computed by the
//! worker through [`crate::run`], like the CLI.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Document, DragEvent, Element, ErrorEvent, Event, EventTarget, File, HtmlButtonElement,
    HtmlElement, HtmlInputElement, HtmlProgressElement, MessageEvent, Worker,
};

use super::format;
use super::protocol::{FromWorker, RunReport, ToWorker, TraceInfo};
use crate::config::{Experiment, MachineSpec, SwfSource, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::workload::synthetic::{LublinParams, SyntheticModel};
use crate::workload::transform::Transforms;

/// Script of the worker, as written by Trunk's loader shim for the `worker` binary.
pub const WORKER_URL: &str = "./worker_loader.js";
/// Largest synthetic workload the form accepts.
pub const MAX_JOBS: usize = 1_000_000;
/// Largest machine the form accepts.
pub const MAX_PROCS: u32 = 1 << 20;
/// Largest trace file the page reads into memory.
pub const MAX_TRACE_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

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
    procs: HtmlInputElement,
    procs_hint: Element,
    load_factor: HtmlInputElement,
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
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    worker: RefCell<Option<Worker>>,
}

fn by_id<T: JsCast>(doc: &Document, id: &str) -> T {
    doc.get_element_by_id(id)
        .unwrap_or_else(|| panic!("index.html has no element #{id}"))
        .dyn_into::<T>()
        .unwrap_or_else(|_| panic!("#{id} is not the expected kind of element"))
}

/// Adds an event listener that lives as long as the page.
fn listen<E>(target: &EventTarget, event: &str, f: impl FnMut(E) + 'static)
where
    E: FromWasmAbi + 'static,
{
    let c = Closure::<dyn FnMut(E)>::new(f);
    let _ = target.add_event_listener_with_callback(event, c.as_ref().unchecked_ref());
    c.forget();
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
        show_error(&format!(
            "Internal error — please reload the page and report this: {info}"
        ));
    }));
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .expect("no document");
    let ui = Ui {
        body: doc.body().expect("no body"),
        status: by_id(&doc, "worker-status"),
        form: by_id(&doc, "experiment"),
        run: by_id(&doc, "run"),
        cancel: by_id(&doc, "cancel"),
        wl_synthetic: by_id(&doc, "wl-synthetic"),
        wl_trace: by_id(&doc, "wl-trace"),
        jobs: by_id(&doc, "jobs"),
        procs: by_id(&doc, "procs"),
        procs_hint: by_id(&doc, "procs-hint"),
        load_factor: by_id(&doc, "load-factor"),
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
        doc,
    };
    // Defaults come from the model, so the form's default experiment is the documented one.
    let defaults = LublinParams::default();
    ui.jobs.set_value(&defaults.jobs.to_string());
    ui.procs.set_value(&defaults.procs.to_string());
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State {
            synthetic_procs: defaults.procs.to_string(),
            ..State::default()
        }),
        worker: RefCell::new(None),
    });
    render_head(&app.ui);
    wire(&app);
    spawn_worker(&app);
    update_controls(&app);
}

fn render_head(ui: &Ui) {
    let mut html = String::from(r#"<tr><th scope="col" class="policy">Policy</th>"#);
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

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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
    if let Some(close) = ui.doc.get_element_by_id("error-close") {
        listen(close.as_ref(), "click", |_: Event| hide_error());
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
    let worker = match Worker::new(WORKER_URL) {
        Ok(w) => w,
        Err(e) => {
            set_status(&app.ui, "error", "Simulator unavailable");
            show_error(&format!(
                "The simulator could not be started: {}",
                js_message(&e)
            ));
            return;
        }
    };
    {
        let app = Rc::clone(app);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let text = ev.data().as_string().unwrap_or_default();
            match FromWorker::from_json(&text) {
                Ok(msg) => on_worker_message(&app, msg),
                Err(m) => show_error(&m),
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
    }
    {
        let app = Rc::clone(app);
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |ev: ErrorEvent| {
            ev.prevent_default();
            set_status(&app.ui, "error", "Simulator failed");
            show_error(&format!("The simulator failed to load: {}", ev.message()));
            end_batch(&app, "Stopped: the simulator failed.");
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
    }
    *app.worker.borrow_mut() = Some(worker);
}

fn js_message(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

fn post(app: &App, msg: &ToWorker) {
    if let Some(w) = app.worker.borrow().as_ref() {
        let _ = w.post_message(&JsValue::from_str(&msg.to_json()));
    }
}

fn post_trace(app: &App, name: &str, bytes: &[u8]) {
    let arr = Array::new();
    arr.push(&JsValue::from_str(
        &ToWorker::Trace {
            name: name.to_string(),
        }
        .to_json(),
    ));
    arr.push(&Uint8Array::from(bytes));
    if let Some(w) = app.worker.borrow().as_ref() {
        let _ = w.post_message(&arr);
    }
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
            "{name}: the file is too large for the browser ({}); use the command-line tool.",
            format::bytes(file.size() as usize)
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
        }
        FromWorker::TraceLoaded(info) => {
            let pending = app.state.borrow_mut().pending_trace.take();
            if let Some((name, bytes, silent)) = pending {
                if name == info.name {
                    app.state.borrow_mut().trace = Some(LoadedTrace { info, bytes });
                    if !silent {
                        app.ui.wl_trace.set_disabled(false);
                        app.ui.wl_trace.set_checked(true);
                        on_mode_change(app);
                    }
                }
            }
            render_trace_label(app);
            update_procs_hint(app);
            update_controls(app);
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
    let finished = app.state.borrow_mut().batch.take();
    if finished.is_some() {
        app.ui.progress_label.set_text_content(Some(note));
    }
    update_controls(app);
}

fn on_cancel(app: &App) {
    let id = current_id(app);
    if let Some(id) = id {
        post(app, &ToWorker::Cancel { id: Some(id) });
        app.ui.progress_label.set_text_content(Some("Cancelling…"));
        app.ui.cancel.set_disabled(true);
    }
}

fn on_run(app: &App) {
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
    let load_factor: f64 = field(&ui.load_factor, "Load factor")?;
    if !(load_factor.is_finite() && load_factor > 0.0 && load_factor <= 1000.0) {
        return Err(format!(
            "Load factor must be a number > 0 and ≤ 1000 (got {load_factor})."
        ));
    }
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
    let transforms = Transforms {
        load_factor,
        ..Transforms::default()
    };
    let (workload, machine, trace, what) = if ui.wl_synthetic.checked() {
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
        let params = LublinParams {
            jobs,
            procs,
            ..LublinParams::default()
        };
        let what = format!(
            "Lublin–Feitelson synthetic workload, {} jobs, {} processors",
            format::count(jobs as u64),
            format::count(u64::from(procs))
        );
        (
            WorkloadSpec::Synthetic(SyntheticModel::Lublin(params)),
            MachineSpec::Flat { procs: None },
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
        (
            WorkloadSpec::Swf(SwfSource {
                name: Some(name.clone()),
                ..SwfSource::default()
            }),
            MachineSpec::Flat { procs },
            Some(name),
            what,
        )
    };
    let mut runs = Vec::new();
    for p in &policies {
        let mut exp = Experiment::new(workload.clone(), *p);
        exp.transforms = transforms.clone();
        exp.machine = machine.clone();
        exp.seed = seed;
        exp.validate().map_err(|e| e.to_string())?;
        runs.push((*p, exp));
    }
    st.next_id += 1;
    let caption = format!("{what} · load factor {load_factor} · seed {seed}");
    Ok(Batch {
        runs,
        trace,
        index: 0,
        id: st.next_id,
        caption,
        rows: 0,
        wall_ms: 0.0,
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
            app.ui.caption.set_text_content(Some(&b.caption));
            app.ui.empty.set_hidden(true);
        }
        add_row(&app.ui, policy, &report);
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

fn add_row(ui: &Ui, policy: PolicyKind, report: &RunReport) {
    let summary = serde_json::to_value(&report.output.summary).unwrap_or_default();
    let mut html = format!(
        r#"<th scope="row" class="policy" title="{}">{}</th>"#,
        escape(policy_label(policy)),
        escape(policy_short(policy))
    );
    for c in &COLUMNS {
        let v = summary.get(c.key);
        let raw = match v {
            Some(serde_json::Value::Number(n)) => {
                if let Some(u) = n.as_u64() {
                    u.to_string()
                } else {
                    format!("{}", n.as_f64().unwrap_or(f64::NAN))
                }
            }
            _ => String::new(),
        };
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
