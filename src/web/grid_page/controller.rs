//! The grid page's controller: its simulation worker, trace uploads, Run (the editor read
//! into [`crate::form::grid`]) and Cancel.

use super::*;
use crate::web::kit::tab_run::{self, TabRun};
use crate::web::kit::upload::read_upload;

pub(super) fn upload(app: &Rc<GridApp>, site: usize, file: File) {
    app.ui.errors.hide();
    let name = file.name();
    let app = Rc::clone(app);
    read_upload(file, move |read| match read {
        Ok(buf) => {
            let bytes = Rc::new(buf.to_vec());
            app.worker.post_trace(&name, &bytes);
            app.state.borrow_mut().pending_upload = Some((site, name, bytes));
            render_sites(&app);
        }
        Err(e) => app.ui.errors.show(&e.message(&name, "schedlab grid")),
    });
}

pub(super) fn spawn_worker(app: &Rc<GridApp>) {
    let (a, b) = (Rc::clone(app), Rc::clone(app));
    app.worker.start_in_panel(
        &app.ui.errors,
        move |msg| on_worker_message(&a, msg),
        move || {
            b.state.borrow_mut().running = None;
            update_controls(&b);
        },
    );
}

pub(super) fn on_worker_message(app: &Rc<GridApp>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => tab_run::on_ready(app),
        FromWorker::TraceLoaded(info) => on_trace_loaded(app, info),
        FromWorker::Progress {
            id,
            stage: run,
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
            let left = crate::work::time_left_words(
                (js_sys::Date::now() - app.state.borrow().started_ms) / 1000.0,
                frac,
            )
            .map(|l| format!(" · {l}"))
            .unwrap_or_default();
            app.ui.progress_label.set_text_content(Some(&format!(
                "{} ({} of {}): {} of {} jobs · grid time {}{left}",
                sharing_label(config),
                run + 1,
                CONFIGURATIONS.len(),
                format::count(completed as u64),
                format::count(total as u64),
                format::duration(sim_time)
            )));
            render_clocks(app, Some((sim_time, config)));
        }
        FromWorker::Done { id, report } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            let PageReport::Grid(report) = *report else {
                return;
            };
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
        FromWorker::Cancelled { id } => tab_run::on_cancelled(&**app, id),
        FromWorker::Error { id, message, fatal } => tab_run::on_error(app, id, &message, fatal),
        _ => {}
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
    let Some((i, name, bytes)) = pending else {
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
pub(super) fn maybe_auto_run(app: &Rc<GridApp>) {
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
    if app.state.borrow().running.is_some() || !app.state.borrow().ready {
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
    let id = {
        let mut st = app.state.borrow_mut();
        st.next_id += 1;
        st.running = Some(st.next_id);
        st.started_ms = js_sys::Date::now();
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
    app.worker.post(&ToWorker::run(
        id,
        Envelope::Grid(GridShare::new(exp)),
        traces,
    ));
}

impl TabRun for GridApp {
    fn worker(&self) -> &ModeWorker {
        &self.worker
    }

    fn running(&self) -> Option<u32> {
        self.state.borrow().running
    }

    fn set_running(&self, id: Option<u32>) {
        self.state.borrow_mut().running = id;
    }

    fn progress(&self) -> (&HtmlProgressElement, &Element) {
        (&self.ui.progress, &self.ui.progress_label)
    }

    fn errors(&self) -> &ErrorBox {
        &self.ui.errors
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

    fn update_controls(&self) {
        update_controls(self);
    }

    fn panel(&self) -> &HtmlElement {
        &self.ui.panel
    }

    fn set_ready(&self, ready: bool) {
        self.state.borrow_mut().ready = ready;
    }

    fn loaded_traces(&self) -> Vec<(String, Rc<Vec<u8>>)> {
        self.state
            .borrow()
            .traces
            .iter()
            .map(|l| (l.info.name.clone(), Rc::clone(&l.bytes)))
            .collect()
    }

    fn spawn_worker(self: &Rc<Self>) {
        spawn_worker(self);
    }

    fn after_ready(self: &Rc<Self>) {
        maybe_auto_run(self);
    }
}
