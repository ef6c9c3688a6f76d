//! The mesh page's controller: its simulation worker, trace uploads, the controls' states,
//! Run / Sweep traffic ratio (one run after the other) and Cancel, and each finished run.

use super::*;
use crate::web::kit::tab::{self, Batch, ModeTab, RunProgress, RunUi};
use crate::web::kit::upload::check_upload;

pub(super) fn set_progress(app: &App, text: &str) {
    app.ui.progress_label.set_text_content(Some(text));
}

/// A trace read by the worker: kept when it is the one a share link names (which then runs).
pub(super) fn on_trace_loaded(app: &Rc<App>, info: TraceInfo) {
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
    let run_link = wanted.is_some() && app.tab.ready();
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

pub(super) fn upload(app: &Rc<App>, file: File) {
    app.ui.errors.hide();
    let name = file.name();
    match check_upload(file) {
        Ok(file) => {
            app.tab.worker.post_trace(&name, &file);
            app.state.borrow_mut().pending_trace = Some(name.clone());
            update_controls(app);
            app.ui
                .trace_label
                .set_text_content(Some(&format!("Reading {name}…")));
        }
        Err(e) => app.ui.errors.show(&e.message(&name, "schedlab mesh")),
    }
}

pub(super) fn update_controls(app: &App) {
    tab::refresh(app);
}

/// Enables and disables the tab's own controls (the controller set the panel's state).
fn set_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = app.tab.busy();
    let blocked = !app.tab.ready() || busy || st.pending_trace.is_some();
    ui.run.set_disabled(blocked);
    ui.sweep.set_disabled(blocked);
    ui.cancel.set_disabled(!busy);
    ui.preset_window.set_disabled(busy);
    ui.preset_contention.set_disabled(busy);
    ui.preset_binary_tree.set_disabled(busy);
}

pub(super) fn on_run(app: &Rc<App>, kind: BatchKind) {
    if app.tab.busy() {
        return;
    }
    app.ui.errors.hide();
    let built = read_form(app).and_then(|(base, allocs, policy)| {
        let exps = experiments_for(&base, &allocs, policy)?;
        Ok((base, exps))
    });
    let (base, exps) = match built {
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
    app.state.borrow_mut().base = Some(base);
    let trace = exps.first().and_then(|e| match &e.workload {
        WorkloadSpec::Swf(s) => s.name.clone(),
        _ => None,
    });
    let n = exps.len();
    let runs: Vec<MeshRun> = exps
        .into_iter()
        .map(|exp| MeshRun {
            kind,
            exp,
            trace: trace.clone(),
        })
        .collect();
    let first = runs
        .first()
        .map(|r| running_label(r, 0, n, None))
        .unwrap_or_default();
    tab::start(app, runs, &first);
}

/// "Running MC-Elongated (2 of 6)…", with the time left when known.
fn running_label(r: &MeshRun, at: usize, of: usize, left: Option<&str>) -> String {
    let e = &r.exp;
    let what = match r.kind {
        BatchKind::Compare => e.allocator.label(),
        BatchKind::Sweep => format!(
            "{} at ρ = {} %",
            e.allocator.label(),
            format::fixed(e.network.traffic_io * 100.0, 0)
        ),
    };
    let mut text = format!("Running {what} ({} of {of})…", at + 1);
    if let Some(left) = left {
        text.push(' ');
        text.push_str(left);
        text.push_str("; Cancel stops it.");
    }
    text
}

impl ModeTab for App {
    type Run = MeshRun;
    type Report = MeshReport;

    fn controller(&self) -> &TabController<Self> {
        &self.tab
    }

    fn run_ui(&self) -> RunUi<'_> {
        RunUi::new(
            &self.ui.panel,
            &self.ui.progress,
            &self.ui.progress_label,
            &self.ui.errors,
        )
    }

    fn message(&self, id: u32, run: &MeshRun) -> ToWorker {
        ToWorker::run_mesh(
            id,
            run.exp.clone(),
            run.trace.clone(),
            run.kind == BatchKind::Sweep,
        )
    }

    fn progress_text(&self, batch: &Batch<MeshRun>, p: &RunProgress, left: Option<&str>) -> String {
        let Some(r) = batch.current() else {
            return String::new();
        };
        let mut text = running_label(r, batch.at, batch.runs.len(), left);
        text.push_str(&format!(
            " {} of {} jobs done.",
            format::count(p.completed as u64),
            format::count(p.total as u64)
        ));
        text
    }

    fn run_name(&self, run: &MeshRun) -> Option<String> {
        Some(run.exp.allocator.label())
    }

    fn on_batch_done(self: &Rc<Self>, done: Vec<(MeshRun, MeshReport)>, _secs: f64) {
        let kind = done.first().map_or(BatchKind::Compare, |(r, _)| r.kind);
        let done: Vec<(MeshExperiment, MeshReport)> =
            done.into_iter().map(|(r, rep)| (r.exp, rep)).collect();
        match kind {
            BatchKind::Compare => finish_compare(self, done),
            BatchKind::Sweep => finish_sweep(self, done),
        }
    }

    fn on_trace_loaded(self: &Rc<Self>, info: TraceInfo) {
        on_trace_loaded(self, info);
    }

    fn update_controls(&self) {
        set_controls(self);
    }

    fn drop_pending_upload(&self) -> bool {
        self.state.borrow_mut().pending_trace.take().is_some()
    }

    fn render_traces(&self) {
        let st = self.state.borrow();
        match &st.trace {
            Some(info) => self.ui.trace_label.set_inner_html(&trace_label_html(info)),
            None => self
                .ui
                .trace_label
                .set_text_content(Some("Drop a .swf or .swf.gz trace here, or browse")),
        }
    }

    fn on_worker_lost(&self) {
        // The worker kept the uploaded trace (this tab does not keep its bytes).
        {
            let mut st = self.state.borrow_mut();
            st.trace = None;
            st.pending_trace = None;
        }
        self.ui.wl_trace.set_disabled(true);
        if self.ui.wl_trace.checked() {
            self.ui.wl_mesh_jobs.set_checked(true);
            update_workload_fields(&self.ui);
        }
    }

    fn after_ready(self: &Rc<Self>) {
        let (auto, held) = {
            let mut st = self.state.borrow_mut();
            (std::mem::take(&mut st.auto_run), st.held_link.take())
        };
        if let Some(held) = held {
            set_progress(self, &held);
        }
        if auto {
            on_run(self, BatchKind::Compare);
        }
    }
}

/// The trace's name and size, as the upload box shows it.
fn trace_label_html(info: &TraceInfo) -> String {
    format!(
        r#"<span class="trace-name">{}</span><small>{} jobs · largest {} processors</small>"#,
        escape(&info.name),
        format::count(info.jobs as u64),
        info.max_job_procs
    )
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
