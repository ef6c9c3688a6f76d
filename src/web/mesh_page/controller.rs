//! The mesh page's controller: its simulation worker, trace uploads, the controls' states,
//! Run / Sweep traffic ratio (one run after the other) and Cancel, and each finished run.

use super::*;
use crate::web::kit::upload::read_upload;

pub(super) fn set_progress(app: &App, text: &str) {
    app.ui.progress_label.set_text_content(Some(text));
}

pub(super) fn spawn_worker(app: &Rc<App>) {
    let a = Rc::clone(app);
    let on_message = move |msg: Result<FromWorker, String>| match msg {
        Ok(msg) => on_worker_message(&a, msg),
        Err(m) => a.ui.errors.show(&m),
    };
    if app.worker.start(on_message, None).is_err() {
        app.ui
            .errors
            .show("The simulator of the mesh mode could not be started.");
    }
}

pub(super) fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            let (auto, held) = {
                let mut st = app.state.borrow_mut();
                st.ready = true;
                (std::mem::take(&mut st.auto_run), st.held_link.take())
            };
            set_progress(app, held.as_deref().unwrap_or("Ready."));
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
                    app.ui.errors.show(&format!(
                        "This link simulates the trace {name:?} with SHA-256 {sha}; the file \
                             {:?} has SHA-256 {}, so it is a different file. Upload the file the \
                             link names.",
                        info.name, info.sha256
                    ));
                    update_controls(app);
                    return;
                }
            }
            let run_link = wanted.is_some() && app.state.borrow().ready;
            let jobs = info.jobs;
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
                app.ui.errors.hide();
                // The link's runs on the trace just read: held above the page's work bound.
                let held = read_form(app).ok().and_then(|(base, allocs, _)| {
                    crate::work::estimate_mesh_batch(&base, &allocs, Some(jobs))
                        .and_then(|e| crate::work::page_hold_message(&e))
                });
                match held {
                    Some(text) => set_progress(app, &text),
                    None => on_run(app, BatchKind::Compare),
                }
            }
        }
        FromWorker::Done { id, report } => {
            if let PageReport::Mesh(report) = *report {
                on_mesh_done(app, id, report);
            }
        }
        FromWorker::Progress {
            id,
            completed,
            total,
            ..
        } => on_run_progress(app, id, completed, total),
        FromWorker::Error {
            message,
            fatal: true,
            ..
        } => {
            // The worker panicked: drop it and its runs, start a fresh one.
            app.worker.terminate();
            {
                let mut st = app.state.borrow_mut();
                st.batch = None;
                st.ready = false;
                st.trace = None;
                st.pending_trace = None;
            }
            app.ui.wl_trace.set_disabled(true);
            if app.ui.wl_trace.checked() {
                app.ui.wl_mesh_jobs.set_checked(true);
                update_workload_fields(&app.ui);
            }
            app.ui.errors.show(&message);
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
                    app.ui.errors.show(&format!("{failed}: {message}"));
                    set_progress(app, "Stopped by an error; the previous results are kept.");
                    update_controls(app);
                }
                Some(_) => {}
                None => {
                    let had = app.state.borrow_mut().pending_trace.take().is_some();
                    app.ui.errors.show(&message);
                    if had {
                        app.ui
                            .trace_label
                            .set_text_content(Some("Drop a .swf or .swf.gz trace here, or browse"));
                    }
                    update_controls(app);
                }
            }
        }
        FromWorker::Cancelled { .. }
        | FromWorker::Held { .. }
        | FromWorker::Exported { .. }
        | FromWorker::ExerciseDone { .. } => {}
    }
}

pub(super) fn upload(app: &Rc<App>, file: File) {
    app.ui.errors.hide();
    let name = file.name();
    let a = Rc::clone(app);
    let n = name.clone();
    let reading = read_upload(file, move |read| match read {
        Ok(buf) => {
            a.worker.post_trace_array(&n, &buf);
            a.state.borrow_mut().pending_trace = Some(n);
            update_controls(&a);
        }
        Err(e) => a.ui.errors.show(&e.message(&n, "schedlab mesh")),
    });
    if reading {
        app.ui
            .trace_label
            .set_text_content(Some(&format!("Reading {name}…")));
    }
}

pub(super) fn update_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = st.batch.is_some();
    let blocked = !st.ready || busy || st.pending_trace.is_some();
    ui.run.set_disabled(blocked);
    ui.sweep.set_disabled(blocked);
    ui.cancel.set_disabled(!busy);
    ui.preset_window.set_disabled(busy);
    ui.preset_contention.set_disabled(busy);
    ui.preset_binary_tree.set_disabled(busy);
    let _ = ui
        .panel
        .set_attribute("data-state", if busy { "running" } else { "idle" });
    let _ = ui
        .panel
        .set_attribute("data-worker", if st.ready { "ready" } else { "loading" });
}

pub(super) fn on_run(app: &Rc<App>, kind: BatchKind) {
    if app.state.borrow().batch.is_some() {
        return;
    }
    app.ui.errors.hide();
    let built = read_form(app).and_then(|(base, allocs, policy)| {
        let exps = experiments_for(&base, &allocs, policy)?;
        Ok((base, allocs, policy, exps))
    });
    let (base, allocs, policy, exps) = match built {
        Ok(v) => v,
        Err(e) => {
            app.ui.errors.show_field(&e);
            return;
        }
    };
    let exps = match kind {
        BatchKind::Compare => exps,
        BatchKind::Sweep => match mesh::sweep_experiments(&exps) {
            Ok(v) => v,
            Err(e) => {
                app.ui.errors.show_field(&e);
                return;
            }
        },
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

pub(super) fn send_current(app: &App) {
    let msg = {
        let st = app.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        let Some(e) = b.exps.get(b.at) else {
            return;
        };
        app.ui.progress.set_value(b.at as f64 / b.exps.len() as f64);
        set_progress(app, &running_label(b, e, None));
        ToWorker::run_mesh(b.id, e.clone(), b.trace.clone(), b.kind == BatchKind::Sweep)
    };
    app.worker.post(&msg);
}

/// The run in flight has completed `completed` of its `total` jobs: the bar moves within the
/// run's share of the batch.
fn on_run_progress(app: &App, id: u32, completed: usize, total: usize) {
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref().filter(|b| b.id == id) else {
        return;
    };
    let within = if total == 0 {
        0.0
    } else {
        completed as f64 / total as f64
    };
    let fraction = (b.at as f64 + within) / b.exps.len().max(1) as f64;
    app.ui.progress.set_value(fraction);
    // The time left, from the batch's pace so far (shown once it is worth saying).
    let elapsed = (now_ms() - b.t0) / 1000.0;
    if let Some(e) = b.exps.get(b.at) {
        let left = crate::work::time_left_words(elapsed, fraction);
        let mut text = running_label(b, e, left.as_deref());
        text.push_str(&format!(
            " {} of {} jobs done.",
            format::count(completed as u64),
            format::count(total as u64)
        ));
        set_progress(app, &text);
    }
}

/// "Running MC-Elongated (2 of 6)…", with the time left when known.
fn running_label(b: &Batch, e: &MeshExperiment, left: Option<&str>) -> String {
    let what = match b.kind {
        BatchKind::Compare => e.allocator.label(),
        BatchKind::Sweep => format!(
            "{} at ρ = {} %",
            e.allocator.label(),
            format::fixed(e.network.traffic_io * 100.0, 0)
        ),
    };
    let mut text = format!("Running {what} ({} of {})…", b.at + 1, b.exps.len());
    if let Some(left) = left {
        text.push(' ');
        text.push_str(left);
        text.push_str("; Cancel stops it.");
    }
    text
}

pub(super) fn on_cancel(app: &App) {
    let Some(b) = app.state.borrow_mut().batch.take() else {
        return;
    };
    app.worker.post(&ToWorker::Cancel { id: Some(b.id) });
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

pub(super) fn on_mesh_done(app: &Rc<App>, id: u32, report: MeshReport) {
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

pub(super) fn finish_compare(app: &Rc<App>, done: Vec<(MeshExperiment, MeshReport)>) {
    app.playback.stop();
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

pub(super) fn finish_sweep(app: &App, done: Vec<(MeshExperiment, MeshReport)>) {
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
        app.ui.errors.show(&e);
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
