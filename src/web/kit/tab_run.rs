//! The run lifecycle a tab shares with the others: a run cancelled, a run or an upload failed,
//! the worker crashed and replaced — said the same way in every tab, the previous results
//! kept. A tab implements [`TabRun`] (where its state and elements are) and hands its worker's
//! `Cancelled` and `Error` messages to [`on_cancelled`] and [`on_error`].

use std::rc::Rc;

use web_sys::{Element, HtmlProgressElement};

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
    /// Terminates the tab's worker and starts a fresh one.
    fn replace_worker(self: &Rc<Self>);
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
        app.replace_worker();
    }
    app.update_controls();
}
