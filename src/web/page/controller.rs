//! The flat page's controller: its simulation worker (start, replace, messages), the
//! controls' states, trace uploads, Run (the form read into plain fields, turned into
//! experiments by [`crate::form::flat`]) and Cancel, and each finished run.

use super::*;
use crate::web::kit::tab::{self, Batch as TabBatch, ModeTab, RunProgress, RunUi, TabController};
use crate::web::kit::upload::check_upload;

/// The current batch is a load-factor sweep.
pub(super) fn is_sweep(app: &App) -> bool {
    app.state
        .borrow()
        .batch
        .as_ref()
        .is_some_and(|b| b.sweep.is_some())
}

pub(super) fn is_busy(app: &App) -> bool {
    app.state.borrow().batch.is_some()
}

/// Shows the sweep's axis and from/to/step inputs when "Sweep" is ticked; the load factor or
/// seed field is disabled while it is the swept key (the jobs field keeps its workload rule).
pub(super) fn update_sweep_fields(ui: &Ui) {
    let sweep = ui.sweep.checked();
    ui.sweep_fields.set_hidden(!sweep);
    ui.sweep_hint.set_hidden(!sweep);
    ui.sweep_cluster.set_hidden(!sweep);
    let axis = SweepAxis::parse(&ui.sweep_axis.value()).unwrap_or_default();
    ui.load_factor
        .set_disabled(sweep && axis == SweepAxis::LoadFactor);
    ui.seed.set_disabled(sweep && axis == SweepAxis::Seed);
}

pub(super) fn set_status(ui: &Ui, state: &str, text: &str) {
    ui.status.set_text_content(Some(text));
    let _ = ui.status.set_attribute("data-state", state);
}

/// The panel's state and every control, for the current state.
pub(super) fn update_controls(app: &App) {
    tab::refresh(app);
}

/// Enables and disables the controls for the current state.
fn set_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = st.batch.is_some();
    let ready = app.tab.ready();
    let loading = st.pending_trace.is_some();
    ui.run.set_disabled(!ready || busy || loading);
    ui.cancel.set_disabled(!busy);
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
    if ready {
        if busy {
            set_status(ui, "busy", "Simulating…");
        } else if loading {
            set_status(ui, "busy", "Reading trace…");
        } else {
            set_status(ui, "ready", "Simulator ready");
        }
    }
}

pub(super) fn on_mode_change(app: &App) {
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

pub(super) fn update_procs_hint(app: &App) {
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

pub(super) fn upload(app: &Rc<App>, file: File) {
    hide_error();
    let name = file.name();
    match check_upload(file) {
        Ok(file) => {
            // The file itself goes to the worker, which reads it: the page holds no bytes.
            app.tab.worker.post_trace(&name, &file);
            app.state.borrow_mut().pending_trace = Some((name.clone(), file, false));
            update_controls(app);
            app.ui
                .trace_label
                .set_text_content(Some(&format!("Reading {name}…")));
        }
        Err(e) => show_error(&e.message(&name, "schedlab run")),
    }
}

pub(super) fn render_trace_label(app: &App) {
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

/// A trace read by the worker: the upload becomes the workload (a share link's trace only
/// when it is the file the link names).
pub(super) fn on_trace_loaded(app: &Rc<App>, info: TraceInfo) {
    let pending = app.state.borrow_mut().pending_trace.take();
    if let Some((name, file, silent)) = pending {
        if name == info.name {
            if !silent && !accept_for_link(app, &info) {
                render_trace_label(app);
                tab::refresh(&**app);
                return;
            }
            app.state.borrow_mut().trace = Some(LoadedTrace { info, file });
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
    tab::refresh(&**app);
    maybe_auto_run(app);
}

/// One run of a flat batch: a policy's experiment.
pub(super) struct FlatRun {
    policy: PolicyKind,
    exp: Experiment,
    /// The uploaded trace it reads.
    trace: Option<String>,
    /// Its work bound (a share link's run), seconds.
    max_work: Option<f64>,
}

impl ModeTab for App {
    type Run = FlatRun;
    type Report = RunReport;

    fn controller(&self) -> &TabController<Self> {
        &self.tab
    }

    fn run_ui(&self) -> RunUi<'_> {
        RunUi::new(
            &self.ui.body,
            &self.ui.progress,
            &self.ui.progress_label,
            &self.ui.errors,
        )
    }

    fn message(&self, id: u32, run: &FlatRun) -> ToWorker {
        ToWorker::run_flat(id, run.exp.clone(), run.trace.clone(), run.max_work)
    }

    fn progress_text(
        &self,
        batch: &TabBatch<FlatRun>,
        p: &RunProgress,
        left: Option<&str>,
    ) -> String {
        let Some(run) = batch.current() else {
            return String::new();
        };
        let mut text = format!(
            "{} ({} of {}): {} / {} jobs · simulated time {} since the first arrival",
            policy_short(run.policy),
            batch.at + 1,
            batch.runs.len(),
            format::count(p.completed as u64),
            format::count(p.total as u64),
            format::duration(p.sim_time)
        );
        if let Some(left) = left {
            text.push_str(" · ");
            text.push_str(left);
        }
        text
    }

    fn on_run_done(&self, batch: &TabBatch<FlatRun>, report: &RunReport) {
        if let Some(run) = batch.current() {
            add_run(self, batch.id, run.policy, report);
        }
    }

    fn done_text(&self, _runs: usize, _secs: f64) -> Option<String> {
        // Said by `finish_batch` once the results are shown.
        None
    }

    fn on_batch_done(self: &Rc<Self>, _done: Vec<(FlatRun, RunReport)>, _secs: f64) {
        highlight_best(&self.ui);
        finish_batch(
            self,
            |b| b.wall_ms,
            |n, ms| {
                format!(
                    "Done: {} run{} in {} s.",
                    n,
                    if n == 1 { "" } else { "s" },
                    format::fixed(ms / 1000.0, 2)
                )
            },
        );
    }

    fn busy(&self) -> bool {
        is_busy(self)
    }

    fn cancelled_text(&self, done: usize, runs: usize) -> String {
        // The flat tab shows each run as it finishes: those stay, the earlier results are gone.
        if done == 0 {
            "Cancelled; the previous results are kept.".to_string()
        } else {
            format!("Cancelled after {done} of {runs} runs; those are shown.")
        }
    }

    fn on_stopped(&self) {
        stop_pool(self);
        let stopped = self.state.borrow_mut().batch.take();
        // Rows of the batch already on screen say that the batch did not finish.
        if let Some(b) = stopped.filter(|b| b.rows > 0 && b.sweep.is_none()) {
            self.ui.caption.set_text_content(Some(&format!(
                "{} — stopped after {} of {} runs: only those are shown",
                b.caption,
                b.rows,
                b.runs.len()
            )));
            let _ = self.ui.caption.set_attribute("data-stopped", "true");
        }
    }

    fn on_trace_loaded(self: &Rc<Self>, info: TraceInfo) {
        on_trace_loaded(self, info);
    }

    fn on_other(self: &Rc<Self>, msg: FromWorker) {
        match msg {
            FromWorker::Held { id, message } if self.tab.running() == Some(id) => {
                tab::stop(&**self, &message);
            }
            FromWorker::Exported { id, format, text } => save_export(self, id, format, &text),
            FromWorker::Schedule { id, bytes } => show_schedule(self, id, &bytes),
            FromWorker::Compared { a, b, view } => compare::show_remote(self, a, b, &view),
            FromWorker::ComparedCsv { text, .. } => compare::save_csv(self, &text),
            FromWorker::ReplayWindow { id, window } => self.replay.window_loaded(id, *window),
            FromWorker::CompareFailed { a, b, message } => {
                compare::show_failure(self, a, b, &message)
            }
            FromWorker::ReplayFailed { id, message } => self.replay.window_failed(id, &message),
            _ => {}
        }
    }

    fn update_controls(&self) {
        set_controls(self);
    }

    fn loaded_traces(&self) -> Vec<(String, web_sys::Blob)> {
        self.state
            .borrow()
            .trace
            .iter()
            .map(LoadedTrace::resend)
            .collect()
    }

    fn drop_pending_upload(&self) -> bool {
        self.state.borrow_mut().pending_trace.take().is_some()
    }

    fn render_traces(&self) {
        render_trace_label(self);
    }

    fn after_ready(self: &Rc<Self>) {
        maybe_auto_run(self);
    }
}

pub(super) fn current_id(app: &App) -> Option<u32> {
    app.state.borrow().batch.as_ref().map(|b| b.id)
}

pub(super) fn end_batch(app: &App, note: &str) {
    stop_pool(app);
    let finished = app.state.borrow_mut().batch.take();
    if finished.is_some() {
        app.ui.progress_label.set_text_content(Some(note));
    }
    update_controls(app);
}

/// Cancel: a sweep's pool is stopped at once; a batch's run in flight through the tab's
/// controller. The results on screen stay.
pub(super) fn on_cancel(app: &App) {
    if is_sweep(app) {
        end_batch(app, "Cancelled.");
    } else {
        tab::cancel(app);
    }
}

pub(super) fn on_run(app: &Rc<App>) {
    if is_busy(app) || !app.tab.ready() {
        return;
    }
    hide_error();
    let batch = match build_batch(app) {
        Ok(b) => b,
        Err(e) => {
            if let Some(b) = error_box() {
                b.show_field(&e);
            }
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
    let runs: Vec<FlatRun> = batch
        .runs
        .iter()
        .map(|(policy, exp)| FlatRun {
            policy: *policy,
            exp: exp.clone(),
            trace: batch.trace.clone(),
            max_work: batch.max_work,
        })
        .collect();
    let first = format!(
        "{} (1 of {}): preparing the workload…",
        policy_short(batch.runs[0].0),
        batch.runs.len()
    );
    app.state.borrow_mut().batch = Some(batch);
    tab::start(app, runs, &first);
}

/// The flat form as typed.
pub(super) fn read_fields(ui: &Ui) -> FlatFields {
    FlatFields {
        policies: ui
            .policies
            .iter()
            .filter(|(_, b)| b.checked())
            .map(|(p, _)| *p)
            .collect(),
        seed: ui.seed.value(),
        sweep_axis: ui.sweep_axis.value(),
        sweep: ui.sweep.checked().then(|| {
            [
                ui.sweep_from.value(),
                ui.sweep_to.value(),
                ui.sweep_step.value(),
            ]
        }),
        load_factor: ui.load_factor.value(),
        procs: ui.procs.value(),
        synthetic: ui.wl_synthetic.checked(),
        jobs: ui.jobs.value(),
        first_jobs: ui.first_jobs.value(),
        window_from: ui.window_from.value(),
        window_to: ui.window_to.value(),
        params: ui
            .params
            .iter()
            .map(|(key, input)| ((*key).to_string(), input.value()))
            .collect(),
        order: ui.queue_order.value(),
        expression: ui.queue_expr.value(),
        backfill_order: ui.backfill_order.value(),
        estimates: ui.estimates.value(),
    }
}

/// The form's experiments (one per selected policy and load factor), over the share link's
/// template and the uploaded trace, if any.
pub(super) fn read_form(app: &App) -> Result<flat::FlatBatch, FieldError> {
    let st = app.state.borrow();
    let trace = st.trace.as_ref().map(|t| TraceFacts {
        name: t.info.name.clone(),
        sha256: t.info.sha256.clone(),
        max_job_procs: t.info.max_job_procs,
        header_procs: t.info.header_procs,
    });
    flat::experiments(&read_fields(&app.ui), st.template.as_ref(), trace.as_ref())
}

/// Reads the form into one experiment per selected policy (and load factor).
pub(super) fn build_batch(app: &App) -> Result<Batch, FieldError> {
    let b = read_form(app)?;
    let mut st = app.state.borrow_mut();
    st.next_id += 1;
    let runs_len = b.runs.len();
    Ok(Batch {
        runs: b.runs,
        trace: b.trace,
        id: st.next_id,
        caption: b.caption,
        rows: 0,
        wall_ms: 0.0,
        done: Vec::new(),
        charts: Vec::new(),
        records: Vec::new(),
        why: Vec::new(),
        explanations: Vec::new(),
        points: vec![None; if b.sweep.is_some() { runs_len } else { 0 }],
        sweep: b.sweep,
        next: 0,
        finished: 0,
        started: js_sys::Date::now(),
        // A share link's batch starts by itself: its runs are held above the page's work bound.
        max_work: std::mem::take(&mut st.from_link).then_some(crate::limits::PAGE_WORK_SECONDS),
    })
}

/// A run of the batch finished (`id`: its worker run, for exports): its row at once (the
/// first makes the previous results make way), its charts and records kept for the end.
fn add_run(app: &App, id: u32, policy: PolicyKind, report: &RunReport) {
    let mut st = app.state.borrow_mut();
    let Some(b) = st.batch.as_mut() else {
        return;
    };
    if b.rows == 0 {
        app.ui.results_body.set_inner_html("");
        render_head(&app.ui, None);
        app.ui.caption.set_text_content(Some(&b.caption));
        let _ = app.ui.caption.remove_attribute("data-stopped");
        app.ui.empty.set_hidden(true);
        app.ui.share.set_hidden(true);
        app.ui.exports.set_hidden(true);
        app.ui.charts.set_hidden(true);
        app.replay.hide();
    }
    let summary = serde_json::to_value(&report.output.summary).unwrap_or_default();
    add_row(&app.ui, policy, None, &summary);
    b.done.push((policy, id, summary));
    b.charts.push(report.charts.clone());
    b.records.push(report.jobs.clone().map(Rc::new));
    b.why.push(report.why.clone().map(Rc::new));
    b.explanations
        .push(report.explanations.clone().map(Rc::new));
    b.rows += 1;
    b.wall_ms += report.wall_ms;
}

/// Shows a finished batch and ends it, in three main-thread tasks so that no single one holds
/// the page (the page never freezes: on a slow machine the charts of one finished run
/// took over 100 ms in one go): the share link and downloads now, the time charts
/// ([`draw_charts`]) next, then the Gantt chart, comparison and replay
/// ([`show_run_details`]), after which the batch ends with `note(runs, elapsed(batch))` (ms)
/// in the progress line. The batch stays busy until then, so Run stays disabled; Cancel is
/// disabled, there being nothing left to cancel.
pub(super) fn finish_batch(
    app: &Rc<App>,
    elapsed: impl Fn(&Batch) -> f64,
    note: impl FnOnce(usize, f64) -> String + 'static,
) {
    publish_link(app);
    render_exports(app);
    app.ui.cancel.set_disabled(true);
    let (id, runs, ms) = match app.state.borrow().batch.as_ref() {
        Some(b) => (b.id, b.runs.len(), elapsed(b)),
        None => return,
    };
    let still_ours = move |app: &App| current_id(app) == Some(id);
    let app = Rc::clone(app);
    defer(move || {
        if !still_ours(&app) {
            return;
        }
        draw_charts(&app);
        defer(move || {
            if !still_ours(&app) {
                return;
            }
            show_run_details(&app);
            end_batch(&app, &note(runs, ms));
        });
    });
}
