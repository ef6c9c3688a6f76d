//! The moldable page's controller: its simulation worker, the trace upload, Run (the form read
//! into [`crate::form::moldable`]) and Cancel.

use super::*;
use crate::form::TraceFacts;
use crate::web::format;
use crate::web::kit::tab_run::{self, TabRun};
use crate::web::kit::upload::read_upload;

pub(super) fn upload(app: &Rc<App>, file: web_sys::File) {
    app.ui.errors.hide();
    let name = file.name();
    let app = Rc::clone(app);
    read_upload(file, move |read| match read {
        Ok(buf) => {
            let bytes = Rc::new(buf.to_vec());
            app.worker.post_trace(&name, &bytes);
            app.state.borrow_mut().pending_upload = Some((name, bytes));
            render_trace_label(&app);
            update_controls(&app);
        }
        Err(e) => app.ui.errors.show(&e.message(&name, "schedlab moldable")),
    });
}

pub(super) fn spawn_worker(app: &Rc<App>) {
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

fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => tab_run::on_ready(app),
        FromWorker::TraceLoaded(info) => on_trace_loaded(app, info),
        FromWorker::Progress {
            id,
            completed,
            total,
            sim_time,
            ..
        } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            let runs = app
                .state
                .borrow()
                .run_share
                .as_ref()
                .map_or(1, |s| 1 + s.strategies.len());
            let frac = if total > 0 {
                completed as f64 / total as f64
            } else {
                0.0
            };
            app.ui.progress.set_value(frac);
            let per_run = (total / runs.max(1)).max(1);
            let left = crate::work::time_left_words(
                (js_sys::Date::now() - app.state.borrow().started_ms) / 1000.0,
                frac,
            )
            .map(|l| format!(" · {l}"))
            .unwrap_or_default();
            app.ui.progress_label.set_text_content(Some(&format!(
                "Run {} of {}: {} of {} jobs · simulated time {}{left}",
                (completed / per_run + 1).min(runs),
                runs,
                format::count((completed % per_run) as u64),
                format::count(per_run as u64),
                format::duration(sim_time)
            )));
        }
        FromWorker::Done { id, report } => {
            if app.state.borrow().running != Some(id) {
                return;
            }
            let PageReport::Moldable(report) = *report else {
                return;
            };
            let wall = report.wall_ms;
            {
                let mut st = app.state.borrow_mut();
                st.running = None;
                let share = st.run_share.take();
                if let Some(share) = share {
                    st.result = Some((share, report));
                }
            }
            app.ui.progress.set_value(1.0);
            app.ui
                .progress_label
                .set_text_content(Some(&format!("Done in {:.1} s.", wall / 1000.0)));
            update_controls(app);
            render_results(app);
            publish_link(app);
        }
        FromWorker::Cancelled { id } => tab_run::on_cancelled(&**app, id),
        FromWorker::Error { id, message, fatal } => tab_run::on_error(app, id, &message, fatal),
        _ => {}
    }
}

fn on_trace_loaded(app: &Rc<App>, info: TraceInfo) {
    let pending = {
        let mut st = app.state.borrow_mut();
        match &st.pending_upload {
            Some((name, _)) if *name == info.name => st.pending_upload.take(),
            _ => None,
        }
    };
    // A trace sent again to a replacement worker: nothing to do.
    let Some((name, bytes)) = pending else {
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
            update_controls(app);
            return;
        }
    }
    {
        let mut st = app.state.borrow_mut();
        st.trace = Some(Loaded { info, bytes });
        st.want_trace = None;
    }
    app.ui.notice.set_hidden(true);
    set_workload(app, true);
    update_controls(app);
    maybe_auto_run(app);
}

/// Runs a share link's experiment once the worker is ready and its trace is there.
pub(super) fn maybe_auto_run(app: &Rc<App>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && st.ready
            && st.running.is_none()
            && st.pending_upload.is_none()
            && st.want_trace.is_none()
    };
    if go {
        app.state.borrow_mut().auto_run = false;
        on_run(app);
    }
}

pub(super) fn on_run(app: &Rc<App>) {
    if app.state.borrow().running.is_some() || !app.state.borrow().ready {
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
    let id = {
        let mut st = app.state.borrow_mut();
        st.next_id += 1;
        st.running = Some(st.next_id);
        st.started_ms = js_sys::Date::now();
        st.run_share = Some(share.clone());
        st.base = Some(share.clone());
        st.next_id
    };
    app.ui.notice.set_hidden(true);
    app.ui.progress.set_value(0.0);
    app.ui
        .progress_label
        .set_text_content(Some("Preparing the workload…"));
    update_controls(app);
    app.worker.post(&ToWorker::run(
        id,
        Envelope::Moldable(share),
        trace.into_iter().collect(),
    ));
}

impl TabRun for App {
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
        "The workload is unchanged."
    }

    fn render_traces(&self) {
        render_trace_label(self);
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
            .trace
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
