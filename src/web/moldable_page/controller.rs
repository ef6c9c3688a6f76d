//! The moldable page's controller: its simulation worker, the trace upload, Run (the form read
//! into [`crate::form::moldable`]) and Cancel.

use super::*;
use crate::form::TraceFacts;
use crate::web::format;
use crate::web::kit::tab::{self, Batch, ModeTab, RunProgress, RunUi, TabController};
use crate::web::kit::upload::check_upload;

pub(super) fn upload(app: &Rc<App>, file: web_sys::File) {
    app.ui.errors.hide();
    let name = file.name();
    match check_upload(file) {
        Ok(file) => {
            app.tab.worker.post_trace(&name, &file);
            app.state.borrow_mut().pending_upload = Some((name, file));
            render_trace_label(app);
            tab::refresh(&**app);
        }
        Err(e) => app.ui.errors.show(&e.message(&name, "schedlab moldable")),
    }
}

pub(super) fn on_trace_loaded(app: &Rc<App>, info: TraceInfo) {
    let pending = {
        let mut st = app.state.borrow_mut();
        match &st.pending_upload {
            Some((name, _)) if *name == info.name => st.pending_upload.take(),
            _ => None,
        }
    };
    // A trace sent again to a replacement worker: nothing to do.
    let Some((name, file)) = pending else {
        return;
    };
    let want = app.state.borrow().want_trace.clone();
    if let Some((wname, Some(sha))) = want {
        if sha != info.sha256 {
            app.ui.errors.show(&format!(
                "{name} is not the trace of the link ({wname}): its SHA-256 differs. Choose \
                 the file the link was made with."
            ));
            render_trace_label(app);
            tab::refresh(&**app);
            return;
        }
    }
    {
        let mut st = app.state.borrow_mut();
        st.trace = Some(LoadedTrace { info, file });
        st.want_trace = None;
    }
    app.ui.notice.set_hidden(true);
    set_workload(app, true);
    tab::refresh(&**app);
    maybe_auto_run(app);
}

/// Runs a share link's experiment once the worker is ready and its trace is there.
pub(super) fn maybe_auto_run(app: &Rc<App>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && app.tab.ready()
            && !app.tab.busy()
            && st.pending_upload.is_none()
            && st.want_trace.is_none()
    };
    if go {
        app.state.borrow_mut().auto_run = false;
        on_run(app);
    }
}

pub(super) fn on_run(app: &Rc<App>) {
    if app.tab.busy() || !app.tab.ready() {
        return;
    }
    app.ui.errors.hide();
    let facts = app.state.borrow().trace.as_ref().map(|l| TraceFacts {
        name: l.info.name.clone(),
        sha256: l.info.sha256.clone(),
        max_job_procs: l.info.max_job_procs,
        header_procs: l.info.header_procs,
    });
    let base = app.state.borrow().base.clone();
    let share = match moldable_form::read(&fields(app), base.as_ref(), facts.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            app.ui.errors.show_field(&e);
            return;
        }
    };
    let trace = if app.ui.wl_trace.checked() {
        facts.map(|f| f.name)
    } else {
        None
    };
    app.state.borrow_mut().base = Some(share.clone());
    app.ui.notice.set_hidden(true);
    tab::start(
        app,
        vec![MoldableRun { share, trace }],
        "Preparing the workload…",
    );
}

/// One moldable run: the experiment and the name of the trace it reads.
pub(super) struct MoldableRun {
    share: MoldableShare,
    trace: Option<String>,
}

impl ModeTab for App {
    type Run = MoldableRun;
    type Report = MoldablePageReport;

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

    fn message(&self, id: u32, run: &MoldableRun) -> ToWorker {
        ToWorker::run(
            id,
            Envelope::Moldable(run.share.clone()),
            run.trace.iter().cloned().collect(),
        )
    }

    fn progress_text(
        &self,
        batch: &Batch<MoldableRun>,
        p: &RunProgress,
        left: Option<&str>,
    ) -> String {
        // The reference, then each strategy: one chained simulation each.
        let runs = batch.current().map_or(1, |r| 1 + r.share.strategies.len());
        let per_run = (p.total / runs.max(1)).max(1);
        format!(
            "Run {} of {}: {} of {} jobs · simulated time {} since the first arrival{}",
            (p.completed / per_run + 1).min(runs),
            runs,
            format::count((p.completed % per_run) as u64),
            format::count(per_run as u64),
            format::duration(p.sim_time),
            left.map(|l| format!(" · {l}")).unwrap_or_default()
        )
    }

    fn done_text(&self, _runs: usize, secs: f64) -> Option<String> {
        Some(format!("Done in {secs:.1} s."))
    }

    fn on_batch_done(self: &Rc<Self>, done: Vec<(MoldableRun, MoldablePageReport)>, _secs: f64) {
        let Some((run, report)) = done.into_iter().next() else {
            return;
        };
        self.state.borrow_mut().result = Some((run.share, report));
        render_results(self);
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
            .trace
            .iter()
            .map(LoadedTrace::resend)
            .collect()
    }

    fn drop_pending_upload(&self) -> bool {
        self.state.borrow_mut().pending_upload.take().is_some()
    }

    fn render_traces(&self) {
        render_trace_label(self);
    }

    fn after_ready(self: &Rc<Self>) {
        maybe_auto_run(self);
    }
}
