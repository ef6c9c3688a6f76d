//! The flat page's controller: its simulation worker (start, replace, messages), the
//! controls' states, trace uploads, Run (the form read into plain fields, turned into
//! experiments by [`crate::form::flat`]) and Cancel, and each finished run.

use super::*;
use crate::web::kit::upload::{read_upload, UploadError};

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

pub(super) fn spawn_worker(app: &Rc<App>) {
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
    if let Err(e) = app.worker.start(on_message, Some(Box::new(on_error))) {
        {
            set_status(&app.ui, "error", "Simulator unavailable");
            show_error(&format!("The simulator could not be started: {e}"));
        }
    }
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

/// Enables and disables the controls for the current state.
pub(super) fn update_controls(app: &App) {
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
    let a = Rc::clone(app);
    let n = name.clone();
    let reading = read_upload(file, move |read| match read {
        Ok(buf) => {
            let bytes = Rc::new(buf.to_vec());
            a.worker.post_trace(&n, &bytes);
            a.state.borrow_mut().pending_trace = Some((n, bytes, false));
            update_controls(&a);
        }
        Err(e @ UploadError::TooLarge(_)) => show_error(&e.message(&n, "schedlab run")),
        Err(e) => {
            show_error(&e.message(&n, "schedlab run"));
            render_trace_label(&a);
        }
    });
    if reading {
        app.ui
            .trace_label
            .set_text_content(Some(&format!("Reading {name}…")));
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

pub(super) fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
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
                app.worker.post_trace(&name, &bytes);
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
            ..
        } => {
            let st = app.state.borrow();
            let Some(b) = st.batch.as_ref().filter(|b| b.id == id) else {
                return;
            };
            let ui = &app.ui;
            ui.progress.set_max(total.max(1) as f64);
            ui.progress.set_value(completed as f64);
            let policy = b.runs[b.index].0;
            let mut text = format!(
                "{} ({} of {}): {} / {} jobs · simulated time {}",
                policy_short(policy),
                b.index + 1,
                b.runs.len(),
                format::count(completed as u64),
                format::count(total as u64),
                format::duration(sim_time)
            );
            // The time left of the batch at its pace so far, once that is worth saying.
            let within = completed as f64 / total.max(1) as f64;
            let fraction = (b.index as f64 + within) / b.runs.len().max(1) as f64;
            let elapsed = (js_sys::Date::now() - b.started) / 1000.0;
            if let Some(left) = crate::work::time_left_words(elapsed, fraction) {
                text.push_str(" · ");
                text.push_str(&left);
            }
            ui.progress_label.set_text_content(Some(&text));
        }
        FromWorker::Done { id, report } => {
            if let PageReport::Flat(report) = *report {
                on_done(app, id, report);
            }
        }
        FromWorker::Held { id, message } => on_held(app, id, &message),
        FromWorker::Exported { id, format, text } => save_export(app, id, format, &text),
        FromWorker::ExerciseDone { .. } => {}
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

pub(super) fn replace_worker(app: &Rc<App>) {
    app.worker.terminate();
    app.state.borrow_mut().ready = false;
    spawn_worker(app);
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

pub(super) fn on_cancel(app: &App) {
    let sweep = is_sweep(app);
    if sweep {
        // The pool's workers are stopped at once; the results on screen stay.
        end_batch(app, "Cancelled.");
        return;
    }
    let id = current_id(app);
    if let Some(id) = id {
        app.worker.post(&ToWorker::Cancel { id: Some(id) });
        app.ui.progress_label.set_text_content(Some("Cancelling…"));
        app.ui.cancel.set_disabled(true);
    }
}

/// A share link's run that the worker did not start (its estimate is above the page's work
/// bound): the batch ends, the label says how long it would take, and Run starts it.
fn on_held(app: &App, id: u32, message: &str) {
    {
        let mut st = app.state.borrow_mut();
        if st.batch.as_ref().map(|b| b.id) != Some(id) {
            return;
        }
        st.batch = None;
    }
    app.ui.progress.set_value(0.0);
    app.ui.progress_label.set_text_content(Some(message));
    update_controls(app);
}

pub(super) fn on_run(app: &Rc<App>) {
    if is_busy(app) || !app.state.borrow().ready {
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
    let first = ToWorker::run_flat(
        batch.id,
        batch.runs[0].1.clone(),
        batch.trace.clone(),
        batch.max_work,
    );
    app.ui.progress.set_value(0.0);
    app.ui.progress_label.set_text_content(Some(&format!(
        "{} (1 of {}): preparing the workload…",
        policy_short(batch.runs[0].0),
        batch.runs.len()
    )));
    app.state.borrow_mut().batch = Some(batch);
    update_controls(app);
    app.worker.post(&first);
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
        params: ui
            .params
            .iter()
            .map(|(key, input)| ((*key).to_string(), input.value()))
            .collect(),
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
        index: 0,
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

pub(super) fn on_done(app: &Rc<App>, id: u32, report: RunReport) {
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
            render_head(&app.ui, None);
            app.ui.caption.set_text_content(Some(&b.caption));
            app.ui.empty.set_hidden(true);
            app.ui.share.set_hidden(true);
            app.ui.exports.set_hidden(true);
            app.ui.charts.set_hidden(true);
            app.replay.hide();
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
        b.why.push(report.why.clone().map(Rc::new));
        b.explanations
            .push(report.explanations.clone().map(Rc::new));
        b.rows += 1;
        b.wall_ms += report.wall_ms;
        b.index += 1;
        if b.index < b.runs.len() {
            st.next_id += 1;
            b.id = st.next_id;
            Some(ToWorker::run_flat(
                b.id,
                b.runs[b.index].1.clone(),
                b.trace.clone(),
                b.max_work,
            ))
        } else {
            None
        }
    };
    match next {
        Some(msg) => app.worker.post(&msg),
        None => {
            highlight_best(&app.ui);
            finish_batch(
                app,
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
    }
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
