//! The Grid mode of the page (seed 002 §III–V: sites across time zones, single sites vs job
//! sharing, Table IV's "AWRT in % of single", Fig. 4's squashed area by local hour).
//!
//! It owns the `#grid-mode` panel of `index.html` and its own simulation worker (the same
//! `worker` binary as the flat mode, started from [`WORKER_URL`], so the two modes never share
//! state): a site editor (name, nodes, time-zone offset, a synthetic Lublin–Feitelson workload
//! or an uploaded SWF trace per site), the local policy, the seed, "cut to shortest", the
//! seed-002 preset ([`preset_global_grid`]); Run sends one [`ToWorker::RunGrid`] that the worker
//! simulates twice (single sites, then job sharing, [`super::grid_worker`]); progress drives the
//! world clock (one clock per site, its local time = grid time − offset); the results are a
//! table per configuration, the comparison in % of single, the charts
//! ([`super::grid_chart`]), the migration matrix, CSV/JSON downloads and a share link
//! `#g=<base64url JSON>.<checksum>` ([`GridShare`]). Bad input is reported in `#grid-error`
//! and the previous results stay.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Document, Element, Event, File, HtmlAnchorElement, HtmlButtonElement, HtmlElement,
    HtmlInputElement, HtmlProgressElement, HtmlSelectElement, Worker,
};

use super::dom::{escape, listen, object_url};
use super::format;
use super::grid_chart;
use super::page::{MAX_JOBS, MAX_PROCS, MAX_TRACE_BYTES};
use super::protocol::{FromWorker, ToWorker, TraceInfo};
use super::worker_link::{js_message, post_to, post_trace_to, start_worker};
use crate::config::{SwfSource, WorkloadSpec};
use crate::grid::spec::{preset_global_grid, GRID_FORMAT_VERSION, MAX_SITES};
use crate::grid::view::{
    local_clock, offset_label, percent_of, sharing_label, GridComparison, GridShare,
    CONFIGURATIONS, GRID_FRAGMENT_PREFIX,
};
use crate::grid::{GridExperiment, GridMetrics, LocalPolicy, Sharing, SiteSpec};
use crate::workload::synthetic::SyntheticModel;

/// One row of the site editor, as typed.
#[derive(Clone, Debug)]
struct SiteRow {
    name: String,
    procs: String,
    tz: String,
    trace_mode: bool,
    jobs: String,
    /// The synthetic model (its other parameters are kept as they came: preset or link).
    model: SyntheticModel,
    /// Name of the loaded trace this site reads.
    trace: Option<String>,
    /// A link's trace for this site: name and SHA-256, until a matching file is chosen.
    want: Option<(String, Option<String>)>,
    lenient: bool,
    align_monday: bool,
}

fn model_jobs(m: &SyntheticModel) -> Option<usize> {
    match m {
        SyntheticModel::Lublin(p) => Some(p.jobs),
        _ => None,
    }
}

impl SiteRow {
    fn from_spec(s: &SiteSpec) -> SiteRow {
        let (trace_mode, model, want, lenient) = match &s.workload {
            WorkloadSpec::Synthetic(m) => (false, m.clone(), None, false),
            WorkloadSpec::Swf(src) => (
                true,
                SyntheticModel::default(),
                src.name
                    .clone()
                    .or_else(|| src.path.clone())
                    .map(|n| (n, src.sha256.clone())),
                src.lenient,
            ),
        };
        SiteRow {
            name: s.name.clone().unwrap_or_default(),
            procs: s.procs.map(|p| p.to_string()).unwrap_or_default(),
            tz: format!("{}", s.tz_offset_hours),
            trace_mode,
            jobs: model_jobs(&model)
                .map(|j| j.to_string())
                .unwrap_or_default(),
            model,
            trace: None,
            want,
            lenient,
            align_monday: s.align_monday,
        }
    }

    fn new_site(n: usize) -> SiteRow {
        let mut r = SiteRow::from_spec(&SiteSpec {
            name: Some(format!("Site {n}")),
            procs: None,
            tz_offset_hours: 0.0,
            workload: WorkloadSpec::Synthetic(SyntheticModel::default()),
            align_monday: true,
        });
        r.jobs = "10000".into();
        r
    }
}

/// A trace uploaded in this mode (kept to send again to a replacement worker).
struct Loaded {
    info: TraceInfo,
    bytes: Rc<Vec<u8>>,
}

#[derive(Default)]
struct State {
    ready: bool,
    next_id: u32,
    running: Option<u32>,
    /// The experiment of the run in progress.
    run_exp: Option<GridExperiment>,
    name: Option<String>,
    sites: Vec<SiteRow>,
    traces: Vec<Loaded>,
    /// Upload in progress: site index, file name, bytes.
    pending_upload: Option<(usize, String, Rc<Vec<u8>>)>,
    result: Option<GridComparison>,
    /// Grid time of the last progress message.
    last_time: f64,
    last_run: usize,
    /// Run as soon as the worker is ready and every trace is loaded (share links).
    auto_run: bool,
    fragment: String,
    blob_urls: Vec<String>,
}

struct Ui {
    panel: HtmlElement,
    notice: HtmlElement,
    notice_text: Element,
    form: Element,
    preset: HtmlButtonElement,
    tbody: Element,
    add: HtmlButtonElement,
    hint: Element,
    policy: HtmlSelectElement,
    seed: HtmlInputElement,
    cut: HtmlInputElement,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    progress: HtmlProgressElement,
    progress_label: Element,
    error: HtmlElement,
    error_text: Element,
    error_close: Element,
    clock: Element,
    clock_caption: Element,
    caption: Element,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    tables: Element,
    exports: HtmlElement,
    export_csv: HtmlAnchorElement,
    export_json: HtmlAnchorElement,
    empty: HtmlElement,
    charts: HtmlElement,
    chart_links: Element,
    migrations: Element,
}

struct GridApp {
    ui: Ui,
    state: RefCell<State>,
    worker: RefCell<Option<Worker>>,
}

fn el<T: JsCast>(doc: &Document, id: &str) -> Result<T, String> {
    doc.get_element_by_id(id)
        .ok_or_else(|| format!("index.html has no element #{id}"))?
        .dyn_into::<T>()
        .map_err(|_| format!("#{id} is not the expected kind of element"))
}

fn ui(doc: &Document) -> Result<Ui, String> {
    Ok(Ui {
        panel: el(doc, "grid-mode")?,
        notice: el(doc, "grid-notice")?,
        notice_text: el(doc, "grid-notice-text")?,
        form: el(doc, "grid-form")?,
        preset: el(doc, "grid-preset")?,
        tbody: el(doc, "grid-sites-body")?,
        add: el(doc, "grid-add-site")?,
        hint: el(doc, "grid-sites-hint")?,
        policy: el(doc, "grid-policy")?,
        seed: el(doc, "grid-seed")?,
        cut: el(doc, "grid-cut")?,
        run: el(doc, "grid-run")?,
        cancel: el(doc, "grid-cancel")?,
        progress: el(doc, "grid-progress")?,
        progress_label: el(doc, "grid-progress-label")?,
        error: el(doc, "grid-error")?,
        error_text: el(doc, "grid-error-text")?,
        error_close: el(doc, "grid-error-close")?,
        clock: el(doc, "grid-clock")?,
        clock_caption: el(doc, "grid-clock-caption")?,
        caption: el(doc, "grid-results-caption")?,
        share: el(doc, "grid-share")?,
        share_link: el(doc, "grid-share-link")?,
        tables: el(doc, "grid-tables")?,
        exports: el(doc, "grid-exports")?,
        export_csv: el(doc, "grid-export-csv")?,
        export_json: el(doc, "grid-export-json")?,
        empty: el(doc, "grid-empty")?,
        charts: el(doc, "grid-charts")?,
        chart_links: el(doc, "grid-chart-links")?,
        migrations: el(doc, "grid-migrations")?,
    })
}

/// Sets up the Grid mode (called once from [`super::page::start`]).
pub fn start(doc: &Document) {
    let ui = match ui(doc) {
        Ok(u) => u,
        Err(m) => {
            web_sys::console::error_1(&JsValue::from_str(&format!("Grid mode disabled: {m}")));
            return;
        }
    };
    let app = Rc::new(GridApp {
        ui,
        state: RefCell::new(State::default()),
        worker: RefCell::new(None),
    });
    load_experiment(&app, &preset_global_grid());
    wire(&app);
    spawn_worker(&app);
    update_controls(&app);
    open_fragment(&app);
}

// ---------------------------------------------------------------- errors and controls

fn show_error(app: &GridApp, message: &str) {
    app.ui.error_text.set_text_content(Some(message));
    app.ui.error.set_hidden(false);
}

fn hide_error(app: &GridApp) {
    app.ui.error.set_hidden(true);
}

fn update_controls(app: &GridApp) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = st.running.is_some();
    ui.run
        .set_disabled(!st.ready || busy || st.pending_upload.is_some());
    ui.cancel.set_disabled(!busy);
    ui.preset.set_disabled(busy);
    ui.add.set_disabled(busy || st.sites.len() >= MAX_SITES);
    let _ = ui
        .panel
        .set_attribute("data-state", if busy { "running" } else { "idle" });
}

// ---------------------------------------------------------------- the site editor

/// Fills the editor with `exp` (preset or share link).
fn load_experiment(app: &GridApp, exp: &GridExperiment) {
    {
        let mut st = app.state.borrow_mut();
        st.sites = exp.sites.iter().map(SiteRow::from_spec).collect();
        st.name = exp.name.clone();
        // A trace of the link that is already loaded (same name and hash) is used as it is.
        let loaded: Vec<(String, String)> = st
            .traces
            .iter()
            .map(|l| (l.info.name.clone(), l.info.sha256.clone()))
            .collect();
        for r in &mut st.sites {
            if let Some((name, sha)) = &r.want {
                let ok = loaded
                    .iter()
                    .any(|(n, s)| n == name && sha.as_ref().is_none_or(|h| h == s));
                if ok {
                    r.trace = Some(name.clone());
                    r.want = None;
                }
            }
        }
    }
    app.ui.policy.set_value(exp.policy.as_str());
    app.ui.seed.set_value(&exp.seed.to_string());
    app.ui.cut.set_checked(exp.cut_to_shortest);
    render_sites(app);
}

fn render_sites(app: &GridApp) {
    let st = app.state.borrow();
    let n = st.sites.len();
    let mut html = String::new();
    for (i, r) in st.sites.iter().enumerate() {
        let k = i + 1;
        let loaded = r
            .trace
            .as_ref()
            .and_then(|t| st.traces.iter().find(|l| &l.info.name == t));
        let placeholder = if r.trace_mode {
            loaded
                .map(|l| {
                    l.info
                        .header_procs
                        .map(|p| p.to_string())
                        .unwrap_or_else(|| l.info.max_job_procs.to_string())
                })
                .unwrap_or_else(|| "from trace".into())
        } else {
            r.model.machine_procs().to_string()
        };
        let workload = if r.trace_mode {
            let (button, detail) = match (loaded, &r.want) {
                (Some(l), _) => (
                    "Replace…".to_string(),
                    format!(
                        "{} · {} jobs",
                        escape(&l.info.name),
                        format::count(l.info.jobs as u64)
                    ),
                ),
                (None, Some((name, _))) => (
                    "Choose file…".to_string(),
                    format!(r#"<span class="want">needs {}</span>"#, escape(name)),
                ),
                (None, None) => ("Choose file…".to_string(), "no file yet".to_string()),
            };
            let reading = st
                .pending_upload
                .as_ref()
                .filter(|p| p.0 == i)
                .map(|p| format!("reading {}…", escape(&p.1)));
            format!(
                r#"<label class="grid-file"><input type="file" data-field="file" accept=".swf,.gz,.swf.gz,text/plain,application/gzip" data-testid="grid-site-file-{i}" aria-label="Site {k} trace file"><span>{button}</span></label><small data-testid="grid-site-trace-{i}">{}</small>"#,
                reading.unwrap_or(detail)
            )
        } else {
            match model_jobs(&r.model) {
                Some(_) => format!(
                    r#"<input type="number" data-field="jobs" min="1" max="{MAX_JOBS}" step="1" inputmode="numeric" value="{}" aria-label="Site {k} jobs" data-testid="grid-site-jobs-{i}"><small>jobs, daily cycle</small>"#,
                    escape(&r.jobs)
                ),
                None => format!(
                    "<small>model {} (from the link)</small>",
                    escape(r.model.name())
                ),
            }
        };
        html.push_str(&format!(
            r#"<tr data-site="{i}" data-testid="grid-site-row">
<td><input type="text" data-field="name" value="{name}" maxlength="60" placeholder="site {k}" aria-label="Site {k} name" data-testid="grid-site-name-{i}"></td>
<td><input type="number" data-field="procs" min="1" max="{MAX_PROCS}" step="1" inputmode="numeric" value="{procs}" placeholder="{placeholder}" aria-label="Site {k} nodes" data-testid="grid-site-procs-{i}"></td>
<td><input type="number" data-field="tz" min="-168" max="168" step="1" inputmode="decimal" value="{tz}" aria-label="Site {k} time-zone offset in hours" data-testid="grid-site-tz-{i}"></td>
<td><select data-field="kind" aria-label="Site {k} workload" data-testid="grid-site-kind-{i}"><option value="synthetic"{syn}>Synthetic — Lublin–Feitelson</option><option value="trace"{trc}>Trace — SWF file</option></select></td>
<td><div class="wl-cell">{workload}</div></td>
<td><button type="button" class="link" data-remove="{i}" data-testid="grid-remove-site-{i}"{dis} title="Remove this site">Remove</button></td>
</tr>"#,
            name = escape(&r.name),
            procs = escape(&r.procs),
            placeholder = escape(&placeholder),
            tz = escape(&r.tz),
            syn = if r.trace_mode { "" } else { " selected" },
            trc = if r.trace_mode { " selected" } else { "" },
            dis = if n <= 1 { " disabled" } else { "" },
        ));
    }
    app.ui.tbody.set_inner_html(&html);
    app.ui.hint.set_text_content(Some(&format!(
        "{n} of at most {MAX_SITES} sites. Offsets in hours: a site of offset +6 starts its \
         Monday 6 hours after a site of offset 0."
    )));
    drop(st);
    update_controls(app);
    if app.state.borrow().running.is_none() {
        render_clocks(app, None);
    }
}

/// Re-renders the editor after the current event handler: replacing the rows may make the
/// browser fire `change` on a removed input, which must not re-enter the running handler.
fn render_sites_later(app: &Rc<GridApp>) {
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move { render_sites(&app) });
}

/// The site row of an event target (its `tr[data-site]`) and the field it edits.
fn row_of(target: &Element) -> Option<(usize, String)> {
    let field = target.get_attribute("data-field")?;
    let tr = target.closest("tr[data-site]").ok()??;
    let i = tr.get_attribute("data-site")?.parse().ok()?;
    Some((i, field))
}

fn on_site_input(app: &GridApp, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some((i, field)) = row_of(&target) else {
        return;
    };
    let value = target
        .dyn_ref::<HtmlInputElement>()
        .map(|e| e.value())
        .or_else(|| target.dyn_ref::<HtmlSelectElement>().map(|s| s.value()))
        .unwrap_or_default();
    let mut st = app.state.borrow_mut();
    let Some(r) = st.sites.get_mut(i) else {
        return;
    };
    match field.as_str() {
        "name" => r.name = value,
        "procs" => r.procs = value,
        "tz" => r.tz = value,
        "jobs" => r.jobs = value,
        _ => {}
    }
    let _ = target.class_list().remove_1("invalid");
}

fn on_site_change(app: &Rc<GridApp>, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some((i, field)) = row_of(&target) else {
        return;
    };
    match field.as_str() {
        "kind" => {
            let v = target
                .dyn_ref::<HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default();
            if let Some(r) = app.state.borrow_mut().sites.get_mut(i) {
                r.trace_mode = v == "trace";
                if !r.trace_mode && model_jobs(&r.model).is_some() && r.jobs.is_empty() {
                    r.jobs = model_jobs(&r.model).unwrap_or(10_000).to_string();
                }
            }
            render_sites_later(app);
        }
        "file" => {
            let Some(input) = target.dyn_ref::<HtmlInputElement>() else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                upload(app, i, file);
            }
        }
        _ => {}
    }
}

fn on_site_click(app: &Rc<GridApp>, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some(i) = target
        .get_attribute("data-remove")
        .and_then(|s| s.parse::<usize>().ok())
    else {
        return;
    };
    {
        let mut st = app.state.borrow_mut();
        if st.sites.len() <= 1 || i >= st.sites.len() || st.running.is_some() {
            return;
        }
        st.sites.remove(i);
        if st.pending_upload.as_ref().is_some_and(|p| p.0 == i) {
            st.pending_upload = None;
        }
    }
    render_sites_later(app);
}

fn add_site(app: &GridApp) {
    {
        let mut st = app.state.borrow_mut();
        if st.sites.len() >= MAX_SITES || st.running.is_some() {
            return;
        }
        let n = st.sites.len() + 1;
        st.sites.push(SiteRow::new_site(n));
    }
    render_sites(app);
}

fn upload(app: &Rc<GridApp>, site: usize, file: File) {
    hide_error(app);
    let name = file.name();
    if file.size() > MAX_TRACE_BYTES {
        show_error(
            app,
            &format!(
                "{name}: the file is too large for the browser ({}, limit {}); use \
                 `schedlab grid` on the command line.",
                format::bytes(file.size() as usize),
                format::bytes(MAX_TRACE_BYTES as usize)
            ),
        );
        return;
    }
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        let buf = match JsFuture::from(file.array_buffer()).await {
            Ok(b) => b,
            Err(e) => {
                show_error(
                    &app,
                    &format!("{name}: cannot read the file: {}", js_message(&e)),
                );
                return;
            }
        };
        let bytes = Rc::new(Uint8Array::new(&buf).to_vec());
        post_trace(&app, &name, &bytes);
        app.state.borrow_mut().pending_upload = Some((site, name, bytes));
        render_sites(&app);
    });
}

// ---------------------------------------------------------------- the worker

fn spawn_worker(app: &Rc<GridApp>) {
    let on_message = {
        let app = Rc::clone(app);
        move |msg: Result<FromWorker, String>| match msg {
            Ok(msg) => on_worker_message(&app, msg),
            Err(m) => show_error(&app, &m),
        }
    };
    let on_error = {
        let app = Rc::clone(app);
        move |message: String| {
            show_error(&app, &format!("The simulator failed to load: {message}"));
            app.state.borrow_mut().running = None;
            update_controls(&app);
        }
    };
    match start_worker(on_message, Some(Box::new(on_error))) {
        Ok(worker) => *app.worker.borrow_mut() = Some(worker),
        Err(e) => show_error(app, &format!("The simulator could not be started: {e}")),
    }
}

fn post(app: &GridApp, msg: &ToWorker) {
    if let Some(w) = app.worker.borrow().as_ref() {
        post_to(w, msg);
    }
}

fn post_trace(app: &GridApp, name: &str, bytes: &[u8]) {
    if let Some(w) = app.worker.borrow().as_ref() {
        post_trace_to(w, name, bytes);
    }
}

fn on_worker_message(app: &Rc<GridApp>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            let resend: Vec<(String, Rc<Vec<u8>>)> = {
                let mut st = app.state.borrow_mut();
                st.ready = true;
                st.traces
                    .iter()
                    .map(|l| (l.info.name.clone(), Rc::clone(&l.bytes)))
                    .collect()
            };
            // A replacement worker gets the traces again.
            for (name, bytes) in resend {
                post_trace(app, &name, &bytes);
            }
            let _ = app.ui.panel.set_attribute("data-worker", "ready");
            if app.state.borrow().running.is_none() {
                app.ui.progress_label.set_text_content(Some("Ready."));
            }
            update_controls(app);
            maybe_auto_run(app);
        }
        FromWorker::TraceLoaded(info) => on_trace_loaded(app, info),
        FromWorker::GridProgress {
            id,
            run,
            sim_time,
            completed,
            total,
        } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            {
                let mut st = app.state.borrow_mut();
                st.last_time = sim_time;
                st.last_run = run;
            }
            let frac = if total > 0 {
                completed as f64 / total as f64
            } else {
                0.0
            };
            app.ui.progress.set_value(frac);
            let config = CONFIGURATIONS.get(run).copied().unwrap_or(Sharing::Single);
            app.ui.progress_label.set_text_content(Some(&format!(
                "{} ({} of {}): {} of {} jobs · grid time {}",
                sharing_label(config),
                run + 1,
                CONFIGURATIONS.len(),
                format::count(completed as u64),
                format::count(total as u64),
                format::duration(sim_time)
            )));
            render_clocks(app, Some((sim_time, config)));
        }
        FromWorker::GridDone { id, report } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            let (t, run) = {
                let mut st = app.state.borrow_mut();
                st.running = None;
                st.result = Some(report.comparison);
                (st.last_time, st.last_run)
            };
            app.ui.progress.set_value(1.0);
            app.ui.progress_label.set_text_content(Some(&format!(
                "Done in {:.1} s: both configurations simulated.",
                report.wall_ms / 1000.0
            )));
            update_controls(app);
            render_results(app);
            let config = CONFIGURATIONS
                .get(run)
                .copied()
                .unwrap_or(Sharing::JobSharing);
            render_clocks(app, Some((t, config)));
            publish_link(app);
        }
        FromWorker::Cancelled { id } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            app.state.borrow_mut().running = None;
            app.ui.progress.set_value(0.0);
            app.ui
                .progress_label
                .set_text_content(Some("Cancelled; the previous results are kept."));
            update_controls(app);
        }
        FromWorker::Error { id, message, fatal } => {
            let was_upload = id.is_none() && {
                let mut st = app.state.borrow_mut();
                let p = st.pending_upload.take();
                p.map(|(i, name, _)| (i, name))
            }
            .is_some();
            let ours = id.is_some() && app.state.borrow().running == id;
            if ours {
                app.state.borrow_mut().running = None;
                app.ui.progress.set_value(0.0);
                app.ui
                    .progress_label
                    .set_text_content(Some("Stopped by an error; the previous results are kept."));
            }
            if was_upload {
                show_error(
                    app,
                    &format!(
                        "This trace cannot be used: {}. The site keeps its previous workload.",
                        message.trim_end_matches('.')
                    ),
                );
                render_sites(app);
            } else if ours || id.is_none() || fatal {
                show_error(app, &message);
            }
            if fatal {
                replace_worker(app);
            }
            update_controls(app);
        }
        _ => {}
    }
}

fn replace_worker(app: &Rc<GridApp>) {
    if let Some(w) = app.worker.borrow_mut().take() {
        w.terminate();
    }
    {
        let mut st = app.state.borrow_mut();
        st.ready = false;
        st.running = None;
        st.pending_upload = None;
    }
    let _ = app.ui.panel.set_attribute("data-worker", "loading");
    spawn_worker(app);
}

fn on_trace_loaded(app: &Rc<GridApp>, info: TraceInfo) {
    let pending = {
        let mut st = app.state.borrow_mut();
        match &st.pending_upload {
            Some((_, name, _)) if *name == info.name => st.pending_upload.take(),
            _ => None,
        }
    };
    // A trace sent again to a replacement worker: nothing to do.
    let Some((i, name, bytes)) = pending else {
        return;
    };
    {
        let mut st = app.state.borrow_mut();
        let want = st.sites.get(i).and_then(|r| r.want.clone());
        if let Some((wname, Some(sha))) = want {
            if sha != info.sha256 {
                drop(st);
                show_error(
                    app,
                    &format!(
                        "{name} is not the trace of the link ({wname}): its SHA-256 differs. \
                         Choose the file the link was made with."
                    ),
                );
                render_sites(app);
                return;
            }
        }
        st.traces.retain(|l| l.info.name != info.name);
        st.traces.push(Loaded { info, bytes });
        if let Some(r) = st.sites.get_mut(i) {
            r.trace = Some(name);
            r.want = None;
            r.trace_mode = true;
        }
    }
    render_sites(app);
    maybe_auto_run(app);
}

/// Runs a share link's experiment once the worker is ready and every trace is there.
fn maybe_auto_run(app: &Rc<GridApp>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && st.ready
            && st.running.is_none()
            && st.pending_upload.is_none()
            && st.sites.iter().all(|r| !r.trace_mode || r.trace.is_some())
    };
    if go {
        app.state.borrow_mut().auto_run = false;
        app.ui.notice.set_hidden(true);
        on_run(app);
    }
}

// ---------------------------------------------------------------- running

/// The experiment of the editor, and the names of the traces it reads.
fn build_experiment(app: &GridApp) -> Result<(GridExperiment, Vec<String>), String> {
    let st = app.state.borrow();
    if st.sites.is_empty() {
        return Err("Add at least one site.".into());
    }
    let mut sites = Vec::with_capacity(st.sites.len());
    let mut traces = Vec::new();
    for (i, r) in st.sites.iter().enumerate() {
        let label = if r.name.trim().is_empty() {
            format!("site {}", i + 1)
        } else {
            r.name.trim().to_string()
        };
        let who = format!("Site {} ({label})", i + 1);
        let procs = match r.procs.trim() {
            "" => None,
            t => match t.parse::<u32>() {
                Ok(p) if (1..=MAX_PROCS).contains(&p) => Some(p),
                _ => {
                    return Err(format!(
                        "{who}: the number of nodes must be a whole number from 1 to {} \
                         (got {t:?}), or empty for the trace's or model's size.",
                        format::count(u64::from(MAX_PROCS))
                    ))
                }
            },
        };
        let tz = match r.tz.trim() {
            "" => 0.0,
            t => match t.parse::<f64>() {
                Ok(h) if h.is_finite() && h.abs() <= 168.0 => h,
                _ => {
                    return Err(format!(
                        "{who}: the time-zone offset must be a number of hours between −168 \
                         and 168 (got {t:?})."
                    ))
                }
            },
        };
        let workload = if r.trace_mode {
            let loaded = r
                .trace
                .as_ref()
                .and_then(|t| st.traces.iter().find(|l| &l.info.name == t));
            let Some(l) = loaded else {
                let what = r
                    .want
                    .as_ref()
                    .map(|(n, _)| format!("the trace {n} (from the link)"))
                    .unwrap_or_else(|| "a trace file (.swf or .swf.gz)".into());
                return Err(format!(
                    "{who}: choose {what}, or switch the site to a synthetic workload."
                ));
            };
            if !traces.contains(&l.info.name) {
                traces.push(l.info.name.clone());
            }
            WorkloadSpec::Swf(SwfSource {
                path: None,
                name: Some(l.info.name.clone()),
                sha256: Some(l.info.sha256.clone()),
                lenient: r.lenient,
            })
        } else {
            let mut model = r.model.clone();
            if let SyntheticModel::Lublin(p) = &mut model {
                p.jobs = match r.jobs.trim().parse::<usize>() {
                    Ok(j) if (1..=MAX_JOBS).contains(&j) => j,
                    _ => {
                        return Err(format!(
                            "{who}: the number of jobs must be a whole number from 1 to {} \
                             (got {:?}).",
                            format::count(MAX_JOBS as u64),
                            r.jobs.trim()
                        ))
                    }
                };
                // Job sizes are drawn for the site's machine, as in the flat mode.
                if let Some(n) = procs {
                    p.procs = n;
                }
            }
            WorkloadSpec::Synthetic(model)
        };
        sites.push(SiteSpec {
            name: (!r.name.trim().is_empty()).then(|| r.name.trim().to_string()),
            procs,
            tz_offset_hours: tz,
            workload,
            align_monday: r.align_monday,
        });
    }
    let seed = match app.ui.seed.value().trim().parse::<u64>() {
        Ok(s) => s,
        Err(_) => {
            return Err(format!(
                "The seed must be a whole number ≥ 0 (got {:?}).",
                app.ui.seed.value()
            ))
        }
    };
    let policy = LocalPolicy::parse(&app.ui.policy.value())?;
    let exp = GridExperiment {
        version: GRID_FORMAT_VERSION,
        name: st.name.clone(),
        sites,
        sharing: Sharing::JobSharing,
        policy,
        seed,
        cut_to_shortest: app.ui.cut.checked(),
    };
    exp.validate().map_err(|e| format!("Invalid grid: {e}"))?;
    Ok((exp, traces))
}

/// Outlines the editor's inputs that [`build_experiment`] refuses.
fn mark_invalid(app: &GridApp) {
    let procs_ok =
        |t: &str| t.is_empty() || t.parse::<u32>().is_ok_and(|p| (1..=MAX_PROCS).contains(&p));
    let tz_ok = |t: &str| {
        t.is_empty()
            || t.parse::<f64>()
                .is_ok_and(|h| h.is_finite() && h.abs() <= 168.0)
    };
    let jobs_ok = |t: &str| {
        t.parse::<usize>()
            .is_ok_and(|j| (1..=MAX_JOBS).contains(&j))
    };
    let st = app.state.borrow();
    for (i, r) in st.sites.iter().enumerate() {
        let bad = [
            ("procs", !procs_ok(r.procs.trim())),
            ("tz", !tz_ok(r.tz.trim())),
            (
                "jobs",
                !r.trace_mode && model_jobs(&r.model).is_some() && !jobs_ok(r.jobs.trim()),
            ),
        ];
        for (field, invalid) in bad {
            if let Ok(Some(e)) = app
                .ui
                .tbody
                .query_selector(&format!("[data-testid=\"grid-site-{field}-{i}\"]"))
            {
                let _ = if invalid {
                    e.class_list().add_1("invalid")
                } else {
                    e.class_list().remove_1("invalid")
                };
            }
        }
    }
}

fn on_run(app: &Rc<GridApp>) {
    if app.state.borrow().running.is_some() || !app.state.borrow().ready {
        return;
    }
    hide_error(app);
    let (exp, traces) = match build_experiment(app) {
        Ok(x) => x,
        Err(m) => {
            show_error(app, &m);
            mark_invalid(app);
            return;
        }
    };
    let id = {
        let mut st = app.state.borrow_mut();
        st.next_id += 1;
        st.running = Some(st.next_id);
        st.run_exp = Some(exp.clone());
        st.last_time = 0.0;
        st.last_run = 0;
        st.next_id
    };
    app.ui.notice.set_hidden(true);
    app.ui.progress.set_value(0.0);
    app.ui
        .progress_label
        .set_text_content(Some("Preparing the workloads…"));
    update_controls(app);
    render_clocks(app, Some((0.0, Sharing::Single)));
    post(
        app,
        &ToWorker::RunGrid {
            id,
            experiment: Box::new(exp),
            traces,
        },
    );
}

fn on_cancel(app: &GridApp) {
    let id = app.state.borrow().running;
    if let Some(id) = id {
        post(app, &ToWorker::Cancel { id: Some(id) });
        app.ui.progress_label.set_text_content(Some("Cancelling…"));
    }
}

// ---------------------------------------------------------------- world clock

/// The clocks of the sites: of the run in progress (or just finished) at grid time `t`, else
/// of the editor at grid time 0.
fn render_clocks(app: &GridApp, at: Option<(f64, Sharing)>) {
    let st = app.state.borrow();
    let sites: Vec<(String, f64)> = match (&at, &st.run_exp) {
        (Some(_), Some(exp)) => exp
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| (exp.site_name(i), s.tz_offset_hours))
            .collect(),
        _ => st
            .sites
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let name = if r.name.trim().is_empty() {
                    format!("site {}", i + 1)
                } else {
                    r.name.trim().to_string()
                };
                (name, r.tz.trim().parse::<f64>().unwrap_or(0.0))
            })
            .collect(),
    };
    let t = at.map_or(0.0, |a| a.0);
    let mut html = String::new();
    for (i, (name, h)) in sites.iter().enumerate() {
        html.push_str(&format!(
            r#"<div class="clock" data-testid="grid-clock-site" data-site="{i}" style="--site: {c}"><div class="clock-site" title="{n}">{n}</div><div class="clock-time" data-testid="grid-clock-time">{time}</div><div class="clock-tz">offset {off}</div></div>"#,
            c = grid_chart::css(grid_chart::site_colour(i)),
            n = escape(name),
            time = local_clock(t, *h),
            off = escape(&offset_label(*h)),
        ));
    }
    app.ui.clock.set_inner_html(&html);
    let _ = app.ui.clock.set_attribute("data-time", &t.to_string());
    let caption = match at {
        Some((t, s)) if st.running.is_some() => format!(
            "Simulating {}: grid time {}.",
            sharing_label(s).to_lowercase(),
            format::duration(t),
        ),
        Some((t, s)) => format!(
            "End of the simulation ({}): grid time {}.",
            sharing_label(s).to_lowercase(),
            format::duration(t),
        ),
        None => "Local time at each site at grid time 0 (Monday 00:00 at offset 0); it runs \
                 with the simulation."
            .to_string(),
    };
    app.ui.clock_caption.set_text_content(Some(&caption));
}

// ---------------------------------------------------------------- results

/// A table cell with its raw value for tests and tooltips.
fn cell(key: &str, v: f64, shown: String, title: &str, class: &str) -> String {
    format!(
        r#"<td data-key="{key}" data-value="{v}" title="{}" class="{class}">{shown}</td>"#,
        escape(title)
    )
}

fn seconds_cell(key: &str, v: f64) -> String {
    cell(
        key,
        v,
        format::fixed(v, 0),
        &format!("{v} s ≈ {}", format::duration(v)),
        "",
    )
}

fn config_table(r: &crate::grid::view::GridRunReport) -> String {
    let m: &GridMetrics = &r.metrics;
    let cfg = r.sharing.as_str();
    let mut rows = String::new();
    for (i, s) in m.sites.iter().enumerate() {
        rows.push_str(&format!(
            r#"<tr data-site="{i}"><th title="offset {off}">{name}</th>{jobs}{ran}{util}{awrt}{awwt}{awsd}</tr>"#,
            off = escape(&offset_label(s.tz_offset_hours)),
            name = escape(&s.name),
            jobs = cell("jobs", s.submitted.jobs as f64, format::count(s.submitted.jobs as u64), "jobs of this site's users", ""),
            ran = cell("executed", s.executed.jobs as f64, format::count(s.executed.jobs as u64), "jobs run on this site's machine", ""),
            util = cell("utilization", s.executed.utilization, format::fixed(100.0 * s.executed.utilization, 1), &format!("{}", s.executed.utilization), ""),
            awrt = seconds_cell("awrt", s.submitted.awrt),
            awwt = seconds_cell("awwt", s.submitted.awwt),
            awsd = cell("awsd", s.submitted.awsd, format::fixed(s.submitted.awsd, 2), &format!("{}", s.submitted.awsd), ""),
        ));
    }
    let o = &m.overall;
    rows.push_str(&format!(
        r#"<tr data-site="overall" class="overall"><th>Whole grid</th>{jobs}{ran}{util}{awrt}{awwt}{awsd}</tr>"#,
        jobs = cell("jobs", o.jobs as f64, format::count(o.jobs as u64), "all jobs", ""),
        ran = cell("executed", o.jobs as f64, format::count(o.jobs as u64), "all jobs", ""),
        util = cell("utilization", o.utilization, format::fixed(100.0 * o.utilization, 1), &format!("{}", o.utilization), ""),
        awrt = seconds_cell("awrt", o.awrt),
        awwt = seconds_cell("awwt", o.awwt),
        awsd = cell("awsd", o.awsd, format::fixed(o.awsd, 2), &format!("{}", o.awsd), ""),
    ));
    let note = match r.sharing {
        Sharing::Single => "every site schedules only its own jobs".to_string(),
        Sharing::JobSharing => format!(
            "the grid scheduler sends each job to the earliest start; {} jobs migrated",
            format::count(m.migrated as u64)
        ),
    };
    format!(
        r#"<div class="grid-table-block" data-config="{cfg}"><h3>{label} <small>{note} · {policy}</small></h3><div class="table-wrap"><table data-testid="grid-table-{cfg}" data-config="{cfg}"><thead><tr><th class="policy">Site</th><th title="Jobs submitted by this site's users"><span class="label">Jobs</span><span class="unit">submitted</span></th><th title="Jobs run on this site's machine"><span class="label">Ran here</span><span class="unit">jobs</span></th><th title="Squashed area run on the machine / (nodes × its schedule length)"><span class="label">Utilisation</span><span class="unit">%</span></th><th title="Average weighted response time of this site's jobs (weight: squashed area)"><span class="label">AWRT</span><span class="unit">seconds</span></th><th title="Average weighted wait time"><span class="label">AWWT</span><span class="unit">seconds</span></th><th title="Average weighted slowdown"><span class="label">AWSD</span><span class="unit">ratio</span></th></tr></thead><tbody>{rows}</tbody></table></div></div>"#,
        label = sharing_label(r.sharing),
        policy = policy_label(m.policy),
    )
}

fn policy_label(p: LocalPolicy) -> &'static str {
    match p {
        LocalPolicy::Easy => "EASY backfilling",
        LocalPolicy::Conservative => "conservative backfilling",
    }
}

fn pct_cell(key: &str, v: f64) -> String {
    let class = if !v.is_finite() {
        ""
    } else if v < 100.0 {
        "better"
    } else if v > 100.0 {
        "worse"
    } else {
        ""
    };
    cell(
        key,
        v,
        format!("{} %", format::fixed(v, 1)),
        &format!("{v}"),
        class,
    )
}

fn compare_table(cmp: &GridComparison) -> String {
    let (Some(a), Some(b)) = (cmp.run(Sharing::Single), cmp.run(Sharing::JobSharing)) else {
        return String::new();
    };
    let (a, b) = (&a.metrics, &b.metrics);
    let mut rows = String::new();
    let mut row = |site: &str,
                   name: &str,
                   sa: &crate::metrics::Summary,
                   sb: &crate::metrics::Summary,
                   ua: f64,
                   ub: f64| {
        rows.push_str(&format!(
            r#"<tr data-site="{site}"{cls}><th>{name}</th>{}{}{}{}{}</tr>"#,
            pct_cell("awrt_pct", percent_of(sb.awrt, sa.awrt)),
            pct_cell("awwt_pct", percent_of(sb.awwt, sa.awwt)),
            pct_cell("awsd_pct", percent_of(sb.awsd, sa.awsd)),
            cell(
                "util_single",
                ua,
                format::fixed(100.0 * ua, 1),
                &format!("{ua}"),
                ""
            ),
            cell(
                "util_sharing",
                ub,
                format::fixed(100.0 * ub, 1),
                &format!("{ub}"),
                ""
            ),
            cls = if site == "overall" {
                r#" class="overall""#
            } else {
                ""
            },
            name = escape(name),
        ));
    };
    for (i, (x, y)) in a.sites.iter().zip(&b.sites).enumerate() {
        row(
            &i.to_string(),
            &x.name,
            &x.submitted,
            &y.submitted,
            x.executed.utilization,
            y.executed.utilization,
        );
    }
    row(
        "overall",
        "Whole grid",
        &a.overall,
        &b.overall,
        a.overall.utilization,
        b.overall.utilization,
    );
    format!(
        r#"<div class="grid-table-block" data-config="compare"><h3>Benefit of job sharing <small>job sharing in % of single sites, as in Table IV of seed 002 (below 100 % is better)</small></h3><div class="table-wrap"><table data-testid="grid-table-compare"><thead><tr><th class="policy">Site</th><th><span class="label">AWRT</span><span class="unit">% of single</span></th><th><span class="label">AWWT</span><span class="unit">% of single</span></th><th><span class="label">AWSD</span><span class="unit">% of single</span></th><th><span class="label">Utilisation, single</span><span class="unit">%</span></th><th><span class="label">Utilisation, sharing</span><span class="unit">%</span></th></tr></thead><tbody>{rows}</tbody></table></div></div>"#
    )
}

fn migrations_table(cmp: &GridComparison) -> String {
    let Some(r) = cmp.run(Sharing::JobSharing) else {
        return String::new();
    };
    let m = &r.metrics;
    let n = m.sites.len();
    let mut head = String::from(r#"<th class="corner">home ↓ · ran at →</th>"#);
    for s in &m.sites {
        head.push_str(&format!("<th>{}</th>", escape(&s.name)));
    }
    head.push_str("<th>Total</th>");
    let mut body = String::new();
    let mut col_tot = vec![0usize; n];
    for (h, row) in m.migrations.iter().enumerate() {
        let name = m.sites.get(h).map(|s| s.name.as_str()).unwrap_or("?");
        body.push_str(&format!(r#"<tr data-home="{h}"><th>{}</th>"#, escape(name)));
        for (e, &v) in row.iter().enumerate() {
            if let Some(c) = col_tot.get_mut(e) {
                *c += v;
            }
            let class = if h == e {
                "diag"
            } else if v > 0 {
                "moved"
            } else {
                ""
            };
            body.push_str(&format!(
                r#"<td data-home="{h}" data-exec="{e}" data-value="{v}" class="{class}">{}</td>"#,
                format::count(v as u64)
            ));
        }
        body.push_str(&format!(
            "<td>{}</td></tr>",
            format::count(row.iter().sum::<usize>() as u64)
        ));
    }
    body.push_str(r#"<tr class="overall"><th>Total</th>"#);
    for c in &col_tot {
        body.push_str(&format!("<td>{}</td>", format::count(*c as u64)));
    }
    body.push_str(&format!(
        "<td>{}</td></tr>",
        format::count(col_tot.iter().sum::<usize>() as u64)
    ));
    format!(
        r#"<h3>Jobs migrated between sites (job sharing)</h3><p class="caption" data-testid="grid-migrated" data-migrated="{mig}">{mig_s} of {all} jobs ran at another site than their home site (rows: home site; columns: site that ran the job; the diagonal stayed home). With single sites no job leaves its site.</p><div class="table-wrap"><table data-testid="grid-migrations-table" data-migrated="{mig}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"#,
        mig = m.migrated,
        mig_s = format::count(m.migrated as u64),
        all = format::count(m.overall.jobs as u64),
    )
}

fn blob_url(app: &GridApp, text: &str, mime: &str) -> Option<String> {
    let url = object_url(text, mime)?;
    app.state.borrow_mut().blob_urls.push(url.clone());
    Some(url)
}

fn render_results(app: &GridApp) {
    let Some(cmp) = app.state.borrow().result.clone() else {
        return;
    };
    let ui = &app.ui;
    let mut html = String::from(r#"<div class="grid-results-tables">"#);
    for r in &cmp.runs {
        html.push_str(&config_table(r));
    }
    html.push_str("</div>");
    html.push_str(&compare_table(&cmp));
    ui.tables.set_inner_html(&html);
    ui.empty.set_hidden(true);
    let exp = &cmp.experiment;
    let jobs = cmp.runs.first().map_or(0, |r| r.metrics.overall.jobs);
    ui.caption.set_text_content(Some(&format!(
        "{}{} sites · {} jobs · {} · seed {}{}",
        exp.name
            .as_ref()
            .map(|n| format!("{n} · "))
            .unwrap_or_default(),
        exp.sites.len(),
        format::count(jobs as u64),
        policy_label(exp.policy),
        exp.seed,
        if exp.cut_to_shortest {
            " · cut to the shortest workload"
        } else {
            ""
        }
    )));
    for url in std::mem::take(&mut app.state.borrow_mut().blob_urls) {
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    if let Some(u) = blob_url(app, &cmp.to_csv(), "text/csv") {
        ui.export_csv.set_href(&u);
    }
    if let Some(u) = blob_url(app, &cmp.to_json(), "application/json") {
        ui.export_json.set_href(&u);
    }
    ui.exports.set_hidden(false);
    let violations: usize = cmp.runs.iter().map(|r| r.violations.len()).sum();
    if violations > 0 {
        show_error(
            app,
            &format!(
                "Internal check: {violations} schedule invariant violations — please report this."
            ),
        );
    }
    // Charts.
    ui.charts.set_hidden(false);
    ui.migrations.set_inner_html(&migrations_table(&cmp));
    let mut errors = Vec::new();
    let mut links = Vec::new();
    match grid_chart::draw_metrics("grid-chart-metrics", &cmp) {
        Ok(svg) => links.push(("metrics", "AWRT / AWWT / AWSD", svg)),
        Err(e) => errors.push(e),
    }
    for (id, s, file, label) in [
        (
            "grid-chart-load-single",
            Sharing::Single,
            "load-single",
            "load, single",
        ),
        (
            "grid-chart-load-sharing",
            Sharing::JobSharing,
            "load-sharing",
            "load, job sharing",
        ),
    ] {
        if let Some(r) = cmp.run(s) {
            let title = format!("Squashed area by local hour — {}", sharing_label(s));
            match grid_chart::draw_load(id, &title, &r.metrics) {
                Ok(svg) => links.push((file, label, svg)),
                Err(e) => errors.push(e),
            }
        }
    }
    let mut html = String::from(r#"<span class="exports-label">Charts as SVG</span>"#);
    for (file, label, svg) in &links {
        if let Some(u) = blob_url(app, svg, "image/svg+xml") {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-grid-{file}.svg" data-testid="grid-svg-{file}">{label}</a>"#
            ));
        }
    }
    ui.chart_links.set_inner_html(&html);
    if !errors.is_empty() {
        web_sys::console::error_1(&JsValue::from_str(&errors.join("; ")));
    }
}

// ---------------------------------------------------------------- share links

/// The fragment (without `#`) of a link to `exp`: `g=` + base64url(JSON) + `.` + checksum.
pub fn fragment_of(exp: &GridExperiment) -> String {
    GridShare::new(exp.clone()).to_fragment()
}

/// Reads a grid link's fragment (with or without `#`): `Ok(None)` when it is no grid link.
pub fn parse_fragment(fragment: &str) -> Result<Option<GridExperiment>, String> {
    GridShare::from_fragment(fragment)
        .map(|s| s.map(|s| s.experiment))
        .map_err(|e| e.to_string())
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

fn open_fragment(app: &Rc<GridApp>) {
    let hash = location_hash();
    match parse_fragment(&hash) {
        Ok(None) => {}
        Ok(Some(exp)) => {
            if app.state.borrow().running.is_some() {
                show_error(
                    app,
                    "A grid run is in progress: cancel it, then open the link again.",
                );
                return;
            }
            hide_error(app);
            app.state.borrow_mut().fragment = hash.trim_start_matches('#').to_string();
            load_experiment(app, &exp);
            let missing: Vec<String> = app
                .state
                .borrow()
                .sites
                .iter()
                .enumerate()
                .filter(|(_, r)| r.trace_mode && r.trace.is_none())
                .map(|(i, r)| {
                    format!(
                        "{} (site {})",
                        r.want.as_ref().map_or("?", |w| w.0.as_str()),
                        i + 1
                    )
                })
                .collect();
            if missing.is_empty() {
                app.ui.notice.set_hidden(true);
            } else {
                app.ui.notice_text.set_text_content(Some(&format!(
                    "This link uses trace files that stay on the computer they were uploaded \
                     from: {}. Choose them in the site rows; the grid runs once all are there.",
                    missing.join(", ")
                )));
                app.ui.notice.set_hidden(false);
            }
            app.state.borrow_mut().auto_run = true;
            maybe_auto_run(app);
        }
        Err(m) => show_error(
            app,
            &format!("This grid link cannot be opened: {m}. The sites are unchanged."),
        ),
    }
}

fn publish_link(app: &GridApp) {
    let Some(exp) = app
        .state
        .borrow()
        .result
        .as_ref()
        .map(|c| c.experiment.clone())
    else {
        return;
    };
    let fragment = fragment_of(&exp);
    let Some(window) = web_sys::window() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    app.ui.share_link.set_href(&format!("{base}#{fragment}"));
    app.ui.share.set_hidden(false);
    app.state.borrow_mut().fragment = fragment.clone();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
}

// ---------------------------------------------------------------- wiring

fn wire(app: &Rc<GridApp>) {
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
        listen(ui.preset.as_ref(), "click", move |_: Event| {
            if app.state.borrow().running.is_some() {
                return;
            }
            hide_error(&app);
            app.ui.notice.set_hidden(true);
            app.state.borrow_mut().auto_run = false;
            load_experiment(&app, &preset_global_grid());
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.add.as_ref(), "click", move |_: Event| add_site(&app));
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "input", move |ev: Event| {
            on_site_input(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "change", move |ev: Event| {
            on_site_change(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "click", move |ev: Event| {
            on_site_click(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.error_close.as_ref(), "click", move |_: Event| {
            hide_error(&app)
        });
    }
    if let Some(w) = web_sys::window() {
        let app = Rc::clone(app);
        listen(w.as_ref(), "hashchange", move |_: Event| {
            let hash = location_hash();
            let h = hash.trim_start_matches('#');
            if h.starts_with(GRID_FRAGMENT_PREFIX) && h != app.state.borrow().fragment {
                open_fragment(&app);
            }
        });
    }
}
