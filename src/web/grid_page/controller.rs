//! The grid page's controller: its simulation worker, trace uploads, Run (the editor read
//! into [`crate::form::grid`]) and Cancel.

use super::*;
use crate::web::kit::tab::{Batch, ModeTab, RunProgress, RunUi};
use crate::web::kit::upload::check_upload;

pub(super) fn upload(app: &Rc<GridApp>, site: usize, file: File) {
    app.ui.errors.hide();
    let name = file.name();
    match check_upload(file) {
        Ok(file) => {
            app.tab.worker.post_trace(&name, &file);
            app.state.borrow_mut().pending_upload = Some((site, name, file));
            render_sites(app);
        }
        Err(e) => app.ui.errors.show(&e.message(&name, "schedlab grid")),
    }
}

pub(super) fn on_trace_loaded(app: &Rc<GridApp>, info: TraceInfo) {
    let pending = {
        let mut st = app.state.borrow_mut();
        match &st.pending_upload {
            Some((_, name, _)) if *name == info.name => st.pending_upload.take(),
            _ => None,
        }
    };
    // A trace sent again to a replacement worker: nothing to do.
    let Some((i, name, file)) = pending else {
        return;
    };
    {
        let mut st = app.state.borrow_mut();
        let want = st.sites.get(i).and_then(|r| r.want.clone());
        if let Some((wname, Some(sha))) = want {
            if sha != info.sha256 {
                drop(st);
                app.ui.errors.show(&format!(
                    "{name} is not the trace of the link ({wname}): its SHA-256 differs. \
                         Choose the file the link was made with."
                ));
                render_sites(app);
                return;
            }
        }
        st.traces.retain(|l| l.info.name != info.name);
        st.traces.push(LoadedTrace { info, file });
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
pub(super) fn maybe_auto_run(app: &Rc<GridApp>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && app.tab.ready()
            && !app.tab.busy()
            && st.pending_upload.is_none()
            && st.sites.iter().all(|r| !r.trace_mode || r.trace.is_some())
    };
    if go {
        app.state.borrow_mut().auto_run = false;
        app.ui.notice.set_hidden(true);
        on_run(app);
    }
}

/// The experiment of the editor, and the names of the traces it reads.
pub(super) fn build_experiment(app: &GridApp) -> Result<(GridExperiment, Vec<String>), FieldError> {
    let st = app.state.borrow();
    let fields = GridFields {
        sites: st.sites.clone(),
        seed: app.ui.seed.value(),
        policy: app.ui.policy.value(),
        cut: app.ui.cut.checked(),
        name: st.name.clone(),
    };
    let traces: Vec<TraceFacts> = st
        .traces
        .iter()
        .map(|l| TraceFacts {
            name: l.info.name.clone(),
            sha256: l.info.sha256.clone(),
            max_job_procs: l.info.max_job_procs,
            header_procs: l.info.header_procs,
        })
        .collect();
    grid_form::experiment(&fields, &traces)
}

/// Outlines the editor's inputs that [`build_experiment`] refuses.
pub(super) fn mark_invalid(app: &GridApp) {
    let st = app.state.borrow();
    for (testid, invalid) in grid_form::site_inputs_validity(&st.sites) {
        if let Ok(Some(e)) = app
            .ui
            .tbody
            .query_selector(&format!("[data-testid=\"{testid}\"]"))
        {
            let _ = if invalid {
                e.class_list().add_1("invalid")
            } else {
                e.class_list().remove_1("invalid")
            };
        }
    }
}

pub(super) fn on_run(app: &Rc<GridApp>) {
    if app.tab.busy() || !app.tab.ready() {
        return;
    }
    app.ui.errors.hide();
    let (exp, traces) = match build_experiment(app) {
        Ok(x) => x,
        Err(e) => {
            app.ui.errors.show_field(&e);
            mark_invalid(app);
            return;
        }
    };
    {
        let mut st = app.state.borrow_mut();
        st.run_exp = Some(exp.clone());
        st.last_time = 0.0;
        st.last_run = 0;
    }
    app.ui.notice.set_hidden(true);
    tab::start(
        app,
        vec![GridRun { exp, traces }],
        "Preparing the workloads…",
    );
    render_clocks(app, Some((0.0, Sharing::Single)));
}

/// One grid run: the experiment (simulated in both configurations) and the traces it reads.
pub(super) struct GridRun {
    exp: GridExperiment,
    traces: Vec<String>,
}

impl ModeTab for GridApp {
    type Run = GridRun;
    type Report = GridReport;

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

    fn message(&self, id: u32, run: &GridRun) -> ToWorker {
        ToWorker::run(
            id,
            Envelope::Grid(GridShare::new(run.exp.clone())),
            run.traces.clone(),
        )
    }

    fn progress_text(
        &self,
        _batch: &Batch<GridRun>,
        p: &RunProgress,
        left: Option<&str>,
    ) -> String {
        let config = CONFIGURATIONS
            .get(p.stage)
            .copied()
            .unwrap_or(Sharing::Single);
        format!(
            "{} ({} of {}): {} of {} jobs · grid time {}{}",
            sharing_label(config),
            p.stage + 1,
            CONFIGURATIONS.len(),
            format::count(p.completed as u64),
            format::count(p.total as u64),
            format::duration(p.sim_time),
            left.map(|l| format!(" · {l}")).unwrap_or_default()
        )
    }

    fn on_progress(&self, p: &RunProgress) {
        {
            let mut st = self.state.borrow_mut();
            st.last_time = p.sim_time;
            st.last_run = p.stage;
        }
        let config = CONFIGURATIONS
            .get(p.stage)
            .copied()
            .unwrap_or(Sharing::Single);
        render_clocks(self, Some((p.sim_time, config)));
    }

    fn done_text(&self, _runs: usize, secs: f64) -> Option<String> {
        Some(format!(
            "Done in {secs:.1} s: both configurations simulated."
        ))
    }

    fn on_batch_done(self: &Rc<Self>, done: Vec<(GridRun, GridReport)>, _secs: f64) {
        let Some((_, GridReport { comparison, .. })) = done.into_iter().next() else {
            return;
        };
        let (t, run) = {
            let mut st = self.state.borrow_mut();
            st.result = Some(comparison);
            (st.last_time, st.last_run)
        };
        render_results(self);
        let config = CONFIGURATIONS
            .get(run)
            .copied()
            .unwrap_or(Sharing::JobSharing);
        render_clocks(self, Some((t, config)));
        publish_link(self);
    }

    fn on_trace_loaded(self: &Rc<Self>, info: TraceInfo) {
        on_trace_loaded(self, info);
    }

    fn update_controls(&self) {
        set_controls(self);
    }

    fn loaded_traces(&self) -> Vec<(String, web_sys::Blob)> {
        self.state
            .borrow()
            .traces
            .iter()
            .map(LoadedTrace::resend)
            .collect()
    }

    fn drop_pending_upload(&self) -> bool {
        self.state.borrow_mut().pending_upload.take().is_some()
    }

    fn upload_kept(&self) -> &'static str {
        "The site keeps its previous workload."
    }

    fn render_traces(&self) {
        render_sites(self);
    }

    fn after_ready(self: &Rc<Self>) {
        maybe_auto_run(self);
    }
}
