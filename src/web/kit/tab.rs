//! The controller every tab instantiates: its simulation worker (started, ready, crashed and
//! replaced), a batch of runs sent one after the other (one `Run { envelope }` each, answered
//! by `Progress`, then `Done`, `Cancelled` or `Error`), the progress bar and line with the time
//! left, Cancel, errors (of a run, of an upload, of the worker), and the end of a batch — the
//! same words and the same rules in every tab, the previous results always kept.
//!
//! A tab implements [`ModeTab`]: what one run of its batches is ([`ModeTab::Run`]), the worker
//! message of a run, its report, how it words progress, and what it shows once a run or the
//! whole batch is done. The tab keeps a [`TabController`] and hands it its form's runs
//! ([`start`]) and its Cancel ([`cancel`]); everything the worker says goes through
//! [`on_message`].

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{Element, HtmlElement, HtmlProgressElement};

use super::error_box::ErrorBox;
use crate::web::format;
use crate::web::protocol::{FromWorker, PageReport, ToWorker, TraceInfo};
use crate::web::worker_link::ModeWorker;

/// The elements of a tab's run: its panel (`data-state` running/idle, `data-worker`
/// loading/ready), progress bar, progress line and error box.
pub struct RunUi<'a> {
    pub panel: &'a HtmlElement,
    pub bar: &'a HtmlProgressElement,
    pub label: &'a Element,
    pub errors: &'a ErrorBox,
}

impl<'a> RunUi<'a> {
    pub fn new(
        panel: &'a HtmlElement,
        bar: &'a HtmlProgressElement,
        label: &'a Element,
        errors: &'a ErrorBox,
    ) -> Self {
        Self {
            panel,
            bar,
            label,
            errors,
        }
    }
}

/// Where the run in flight is, as its worker says.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunProgress {
    /// The chained simulation of the run (grid: the configuration; moldable: the strategy).
    pub stage: usize,
    pub completed: usize,
    pub total: usize,
    /// Simulated time of the run, seconds.
    pub sim_time: f64,
}

/// A batch of runs: sent one after the other, the one in flight at `at`.
pub struct Batch<R> {
    pub runs: Vec<R>,
    pub at: usize,
    /// The id of the run in flight.
    pub id: u32,
    /// `Date.now()` when the batch started (milliseconds).
    pub started_ms: f64,
}

impl<R> Batch<R> {
    /// The share of the batch done when the run in flight is at `p`.
    pub fn fraction(&self, p: &RunProgress) -> f64 {
        let within = if p.total == 0 {
            0.0
        } else {
            p.completed as f64 / p.total as f64
        };
        (self.at as f64 + within) / self.runs.len().max(1) as f64
    }

    /// The run in flight.
    pub fn current(&self) -> Option<&R> {
        self.runs.get(self.at)
    }
}

/// What a tab tells its [`TabController`].
pub trait ModeTab: Sized + 'static {
    /// One run of a batch: what the tab needs to send it and to label its results.
    type Run;
    /// What the worker reports of a finished run (the tab's [`PageReport`] variant).
    type Report: TryFrom<PageReport>;

    /// The tab's controller.
    fn controller(&self) -> &TabController<Self>;
    /// The tab's run elements.
    fn run_ui(&self) -> RunUi<'_>;
    /// The worker message that starts `run` under `id`.
    fn message(&self, id: u32, run: &Self::Run) -> ToWorker;
    /// The progress line of the run in flight (`left`: the time left of the batch, in words,
    /// once worth saying).
    fn progress_text(
        &self,
        batch: &Batch<Self::Run>,
        p: &RunProgress,
        left: Option<&str>,
    ) -> String;
    /// Each progress message of the run in flight, after the bar and line moved (the grid's
    /// clocks).
    fn on_progress(&self, _p: &RunProgress) {}
    /// The run in flight of `batch` (its `at` and `id`) finished (the flat tab adds its row at
    /// once).
    fn on_run_done(&self, _batch: &Batch<Self::Run>, _report: &Self::Report) {}
    /// The whole batch finished: show it. `secs`: the batch's wall time.
    fn on_batch_done(self: &Rc<Self>, done: Vec<(Self::Run, Self::Report)>, secs: f64);
    /// The progress line once a batch of `runs` runs finished in `secs` seconds (`None`: the
    /// tab says it itself once its results are shown).
    fn done_text(&self, runs: usize, secs: f64) -> Option<String> {
        Some(format!(
            "Done: {runs} run{} in {} s.",
            if runs == 1 { "" } else { "s" },
            format::fixed(secs, 2)
        ))
    }
    /// The progress line after Cancel, `done` of `runs` runs finished.
    fn cancelled_text(&self, done: usize, runs: usize) -> String {
        if runs == 1 {
            "Cancelled; the previous results are kept.".to_string()
        } else {
            format!("Cancelled after {done} of {runs} runs; the previous results are kept.")
        }
    }
    /// The tab is busy: a batch runs (the flat tab also while a sweep's pool runs and while
    /// a finished batch is being shown).
    fn busy(&self) -> bool {
        self.controller().busy()
    }
    /// The batch stopped before its end (Cancel, an error, the worker lost or a run held).
    fn on_stopped(&self) {}
    /// The name of a run in an error ("MC-Elongated: …"), if the batch has several.
    fn run_name(&self, _run: &Self::Run) -> Option<String> {
        None
    }
    /// A trace was read by the worker.
    fn on_trace_loaded(self: &Rc<Self>, info: TraceInfo);
    /// A message only this tab's mode uses (the flat tab's `Held` and `Exported`).
    fn on_other(self: &Rc<Self>, _msg: FromWorker) {}
    /// Enables and disables the tab's own controls (the controller sets the panel's
    /// `data-state` and `data-worker` before).
    fn update_controls(&self);
    /// The traces the tab holds, sent again to a replacement worker.
    fn loaded_traces(&self) -> Vec<(String, web_sys::Blob)> {
        Vec::new()
    }
    /// Forgets the upload in flight; `true` when there was one.
    fn drop_pending_upload(&self) -> bool;
    /// What stays when an upload is refused ("The workload is unchanged.").
    fn upload_kept(&self) -> &'static str {
        "The workload is unchanged."
    }
    /// Shows the tab's trace(s) as before a refused upload.
    fn render_traces(&self);
    /// The worker crashed and is being replaced: forget what it held that the tab cannot send
    /// again.
    fn on_worker_lost(&self) {}
    /// The worker is listening (a share link's run may start now).
    fn after_ready(self: &Rc<Self>) {}
}

struct State<T: ModeTab> {
    ready: bool,
    next_id: u32,
    batch: Option<Batch<T::Run>>,
    /// The reports of the batch's finished runs, in order.
    done: Vec<T::Report>,
}

/// The run state of a tab and its worker.
pub struct TabController<T: ModeTab> {
    pub worker: ModeWorker,
    state: RefCell<State<T>>,
}

impl<T: ModeTab> Default for TabController<T> {
    fn default() -> Self {
        Self {
            worker: ModeWorker::default(),
            state: RefCell::new(State {
                ready: false,
                next_id: 0,
                batch: None,
                done: Vec::new(),
            }),
        }
    }
}

impl<T: ModeTab> TabController<T> {
    /// The worker is listening.
    pub fn ready(&self) -> bool {
        self.state.borrow().ready
    }

    /// A batch is running.
    pub fn busy(&self) -> bool {
        self.state.borrow().batch.is_some()
    }

    /// The id of the run in flight.
    pub fn running(&self) -> Option<u32> {
        self.state.borrow().batch.as_ref().map(|b| b.id)
    }

    /// Reads the batch in flight, if any.
    pub fn with_batch<V>(&self, f: impl FnOnce(&Batch<T::Run>) -> V) -> Option<V> {
        self.state.borrow().batch.as_ref().map(f)
    }

    fn next_id(&self) -> u32 {
        let mut st = self.state.borrow_mut();
        st.next_id += 1;
        st.next_id
    }
}

/// Sets the panel's state attributes, then the tab's controls.
pub fn refresh<T: ModeTab>(app: &T) {
    let c = app.controller();
    let ui = app.run_ui();
    let _ = ui
        .panel
        .set_attribute("data-state", if app.busy() { "running" } else { "idle" });
    let _ = ui
        .panel
        .set_attribute("data-worker", if c.ready() { "ready" } else { "loading" });
    app.update_controls();
}

/// Starts the tab's worker with [`on_message`] as its handler.
pub fn spawn_worker<T: ModeTab>(app: &Rc<T>) {
    let (a, b) = (Rc::clone(app), Rc::clone(app));
    app.controller().worker.start_in_panel(
        app.run_ui().errors,
        move |msg| on_message(&a, msg),
        move || {
            b.controller().state.borrow_mut().batch = None;
            b.on_stopped();
            refresh(&*b);
        },
    );
}

/// The event [`crate::web::modes::show_mode`] fires on a mode's panel each time it shows it.
pub const SHOWN_EVENT: &str = "schedlab-shown";

/// Starts the tab's worker now if its panel is shown, else the first time it is shown
/// ([`SHOWN_EVENT`]): a tab the user does not open costs the page no worker — an idle one is
/// about 9 MiB of the tab's memory (BENCHMARKS.md, "Memory in the browser tab"). Until its
/// worker is ready the tab's Run stays disabled, as at any start.
pub fn spawn_worker_when_shown<T: ModeTab + 'static>(app: &Rc<T>) {
    let panel = app.run_ui().panel.clone();
    if !panel.hidden() {
        spawn_worker(app);
        return;
    }
    let app = Rc::clone(app);
    let started = std::cell::Cell::new(false);
    crate::web::dom::listen(panel.as_ref(), SHOWN_EVENT, move |_: web_sys::Event| {
        if !started.replace(true) {
            spawn_worker(&app);
        }
    });
}

/// Starts a batch of `runs` (ignored while one runs, before the worker is ready, or when
/// empty); `first` is the progress line until the worker's first progress.
pub fn start<T: ModeTab>(app: &Rc<T>, runs: Vec<T::Run>, first: &str) {
    let c = app.controller();
    if c.busy() || !c.ready() || runs.is_empty() {
        return;
    }
    let id = c.next_id();
    let msg = app.message(id, &runs[0]);
    {
        let mut st = c.state.borrow_mut();
        st.done.clear();
        st.batch = Some(Batch {
            runs,
            at: 0,
            id,
            started_ms: js_sys::Date::now(),
        });
    }
    let ui = app.run_ui();
    ui.bar.set_max(1.0);
    ui.bar.set_value(0.0);
    ui.label.set_text_content(Some(first));
    refresh(&**app);
    c.worker.post(&msg);
}

/// Cancel: the batch ends at once (the worker stops the run in flight at its next slice and
/// its late answers are ignored); the finished runs of the batch are dropped, the previous
/// results stay.
pub fn cancel<T: ModeTab>(app: &T) {
    let c = app.controller();
    let Some(b) = c.state.borrow_mut().batch.take() else {
        return;
    };
    c.state.borrow_mut().done.clear();
    c.worker.post(&ToWorker::Cancel { id: Some(b.id) });
    app.on_stopped();
    let ui = app.run_ui();
    ui.bar.set_value(0.0);
    ui.label
        .set_text_content(Some(&app.cancelled_text(b.at, b.runs.len())));
    refresh(app);
}

/// Ends the batch in flight without a result (a share link's run the worker held above the
/// page's work bound): `text` in the progress line.
pub fn stop<T: ModeTab>(app: &T, text: &str) {
    let c = app.controller();
    {
        let mut st = c.state.borrow_mut();
        st.batch = None;
        st.done.clear();
    }
    let ui = app.run_ui();
    ui.bar.set_value(0.0);
    ui.label.set_text_content(Some(text));
    app.on_stopped();
    refresh(app);
}

/// Terminates the tab's worker (its run and upload in flight are dropped) and starts a fresh
/// one, which gets the tab's traces again once ready.
pub fn replace_worker<T: ModeTab>(app: &Rc<T>) {
    let c = app.controller();
    c.worker.terminate();
    {
        let mut st = c.state.borrow_mut();
        st.ready = false;
        st.batch = None;
        st.done.clear();
    }
    app.drop_pending_upload();
    app.on_stopped();
    app.on_worker_lost();
    refresh(&**app);
    spawn_worker(app);
}

/// Everything the tab's worker says.
pub fn on_message<T: ModeTab>(app: &Rc<T>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => on_ready(app),
        FromWorker::TraceLoaded(info) => app.on_trace_loaded(info),
        FromWorker::Progress {
            id,
            stage,
            completed,
            total,
            sim_time,
        } => on_progress(
            &**app,
            id,
            RunProgress {
                stage,
                completed,
                total,
                sim_time,
            },
        ),
        FromWorker::Done { id, report } => {
            if app.controller().running() != Some(id) {
                return;
            }
            if let Ok(report) = T::Report::try_from(*report) {
                on_done(app, report);
            }
        }
        // Cancel already ended the batch.
        FromWorker::Cancelled { .. } => {}
        FromWorker::Error { id, message, fatal } => on_error(app, id, &message, fatal),
        other => app.on_other(other),
    }
}

fn on_ready<T: ModeTab>(app: &Rc<T>) {
    let c = app.controller();
    c.state.borrow_mut().ready = true;
    for (name, file) in app.loaded_traces() {
        c.worker.post_trace(&name, &file);
    }
    if !c.busy() {
        app.run_ui().label.set_text_content(Some("Ready."));
    }
    refresh(&**app);
    app.after_ready();
}

fn on_progress<T: ModeTab>(app: &T, id: u32, p: RunProgress) {
    let c = app.controller();
    let st = c.state.borrow();
    let Some(b) = st.batch.as_ref().filter(|b| b.id == id) else {
        return;
    };
    let fraction = b.fraction(&p);
    let elapsed = (js_sys::Date::now() - b.started_ms) / 1000.0;
    let left = crate::work::time_left_words(elapsed, fraction);
    let ui = app.run_ui();
    ui.bar.set_value(fraction);
    ui.label
        .set_text_content(Some(&app.progress_text(b, &p, left.as_deref())));
    drop(st);
    app.on_progress(&p);
}

fn on_done<T: ModeTab>(app: &Rc<T>, report: T::Report) {
    let c = app.controller();
    // The tab sees the finished run at once.
    let index = {
        let st = c.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        app.on_run_done(b, &report);
        b.at
    };
    // The next run is sent, or the batch ends.
    let next = {
        let mut guard = c.state.borrow_mut();
        let st = &mut *guard;
        st.done.push(report);
        let Some(b) = st.batch.as_mut() else {
            return;
        };
        b.at = index + 1;
        if b.at < b.runs.len() {
            st.next_id += 1;
            b.id = st.next_id;
            Some(b.id)
        } else {
            None
        }
    };
    if let Some(id) = next {
        let msg = c.with_batch(|b| b.current().map(|r| app.message(id, r)));
        if let Some(msg) = msg.flatten() {
            c.worker.post(&msg);
        }
        return;
    }
    let (batch, reports) = {
        let mut st = c.state.borrow_mut();
        (st.batch.take(), std::mem::take(&mut st.done))
    };
    let Some(batch) = batch else {
        return;
    };
    let secs = (js_sys::Date::now() - batch.started_ms) / 1000.0;
    let runs = batch.runs.len();
    let ui = app.run_ui();
    ui.bar.set_value(1.0);
    if let Some(text) = app.done_text(runs, secs) {
        ui.label.set_text_content(Some(&text));
    }
    refresh(&**app);
    app.on_batch_done(batch.runs.into_iter().zip(reports).collect(), secs);
}

/// The worker's error for run `id` (or, without one, for an upload or a message): said in the
/// tab's error box; a crash (`fatal`) replaces the worker.
fn on_error<T: ModeTab>(app: &Rc<T>, id: Option<u32>, message: &str, fatal: bool) {
    let c = app.controller();
    let ui = app.run_ui();
    let ours = id.is_some() && c.running() == id;
    let was_upload = id.is_none() && app.drop_pending_upload();
    if ours {
        let name = c.with_batch(|b| b.current().and_then(|r| app.run_name(r)));
        {
            let mut st = c.state.borrow_mut();
            st.batch = None;
            st.done.clear();
        }
        ui.bar.set_value(0.0);
        ui.label
            .set_text_content(Some("Stopped by an error; the previous results are kept."));
        match name.flatten() {
            Some(name) => ui.errors.show(&format!("{name}: {message}")),
            None => ui.errors.show(message),
        }
    } else if was_upload {
        ui.errors.show(&format!(
            "This trace cannot be used: {}. {}",
            message.trim_end_matches('.'),
            app.upload_kept()
        ));
        app.render_traces();
    } else if id.is_none() || fatal {
        ui.errors.show(message);
    }
    if fatal {
        ui.label
            .set_text_content(Some("Stopped: the simulator crashed; restarting it."));
        replace_worker(app);
    }
    refresh(&**app);
}
