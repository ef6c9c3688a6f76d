//! The run lifecycle a tab shares with the others: the worker ready (traces sent again to a
//! replacement), Cancel, a run cancelled, a run or an upload failed, the worker crashed and
//! replaced — said the same way in every tab, the previous results kept. A tab implements
//! [`TabRun`] (where its state and elements are) and hands its worker's `Ready`, `Cancelled`
//! and `Error` messages to [`on_ready`], [`on_cancelled`] and [`on_error`].

use std::rc::Rc;

use web_sys::{Element, HtmlElement, HtmlProgressElement};

use super::error_box::ErrorBox;
use crate::web::protocol::ToWorker;
use crate::web::worker_link::ModeWorker;

/// What the shared lifecycle needs of a tab.
pub trait TabRun {
    /// The tab's simulation worker.
    fn worker(&self) -> &ModeWorker;
    /// The run in flight.
    fn running(&self) -> Option<u32>;
    /// Records the run in flight (`None`: none).
    fn set_running(&self, id: Option<u32>);
    /// The tab's progress bar and its label.
    fn progress(&self) -> (&HtmlProgressElement, &Element);
    /// The tab's error box.
    fn errors(&self) -> &ErrorBox;
    /// Forgets the upload in flight; `true` when there was one.
    fn drop_pending_upload(&self) -> bool;
    /// What stays when an upload is refused (`The workload is unchanged.`).
    fn upload_kept(&self) -> &'static str;
    /// Shows the tab's trace(s) again after a refused upload.
    fn render_traces(&self);
    /// Enables and disables the tab's controls for its state.
    fn update_controls(&self);
    /// The tab's panel (its `data-worker` says `loading` or `ready`).
    fn panel(&self) -> &HtmlElement;
    /// Records whether the worker is listening.
    fn set_ready(&self, ready: bool);
    /// The traces the tab holds, to send again to a replacement worker.
    fn loaded_traces(&self) -> Vec<(String, Rc<Vec<u8>>)>;
    /// Starts the tab's worker with its message handler.
    fn spawn_worker(self: &Rc<Self>);
    /// What the tab does once its worker is ready (a share link's run starts by itself).
    fn after_ready(self: &Rc<Self>);
}

/// The worker is listening: a replacement worker gets the tab's traces again, the panel says
/// so, and the tab goes on ([`TabRun::after_ready`]).
pub fn on_ready<T: TabRun>(app: &Rc<T>) {
    app.set_ready(true);
    for (name, bytes) in app.loaded_traces() {
        app.worker().post_trace(&name, &bytes);
    }
    let _ = app.panel().set_attribute("data-worker", "ready");
    if app.running().is_none() {
        app.progress().1.set_text_content(Some("Ready."));
    }
    app.update_controls();
    app.after_ready();
}

/// Terminates the tab's worker (its run and upload in flight are dropped) and starts a fresh
/// one.
pub fn replace_worker<T: TabRun>(app: &Rc<T>) {
    app.worker().terminate();
    app.set_ready(false);
    app.set_running(None);
    app.drop_pending_upload();
    let _ = app.panel().set_attribute("data-worker", "loading");
    app.spawn_worker();
}

/// The Cancel button: asks the worker to stop the run in flight at its next slice.
pub fn cancel<T: TabRun>(app: &T) {
    if let Some(id) = app.running() {
        app.worker().post(&ToWorker::Cancel { id: Some(id) });
        app.progress().1.set_text_content(Some("Cancelling…"));
    }
}

/// Run `id` stopped on request: the bar goes back, the previous results stay.
pub fn on_cancelled<T: TabRun>(app: &T, id: u32) {
    if app.running() != Some(id) {
        return;
    }
    app.set_running(None);
    let (bar, label) = app.progress();
    bar.set_value(0.0);
    label.set_text_content(Some("Cancelled; the previous results are kept."));
    app.update_controls();
}

/// The worker's error for run `id` (or, without one, for an upload or a message): said in the
/// tab's error box; a crash (`fatal`) replaces the worker.
pub fn on_error<T: TabRun>(app: &Rc<T>, id: Option<u32>, message: &str, fatal: bool) {
    let was_upload = id.is_none() && app.drop_pending_upload();
    let ours = id.is_some() && app.running() == id;
    if ours {
        app.set_running(None);
        let (bar, label) = app.progress();
        bar.set_value(0.0);
        label.set_text_content(Some("Stopped by an error; the previous results are kept."));
    }
    if was_upload {
        app.errors().show(&format!(
            "This trace cannot be used: {}. {}",
            message.trim_end_matches('.'),
            app.upload_kept()
        ));
        app.render_traces();
    } else if ours || id.is_none() || fatal {
        app.errors().show(message);
    }
    if fatal {
        replace_worker(app);
    }
    app.update_controls();
}
