//! Grid share links (`#g=`, [`crate::modes::grid::link::GridShare`]): writing, reading, opening one
//! and publishing the link of the last run.

use super::*;
use crate::modes::envelope::Envelope;
use crate::modes::Mode;

/// The fragment (without `#`) of a link to `exp`: the experiment envelope of mode grid
/// (`e=` + base64url(JSON) + `.` + checksum).
pub fn fragment_of(exp: &GridExperiment) -> String {
    Envelope::Grid(GridShare::new(exp.clone())).to_fragment()
}

/// Reads a grid link's fragment (with or without `#`; `#e=` of mode grid or an old `#g=`):
/// `Ok(None)` when it is no grid link.
pub fn parse_fragment(fragment: &str) -> Result<Option<GridExperiment>, String> {
    match crate::web::kit::share_link::open(fragment, Mode::Grid)? {
        Some(Envelope::Grid(s)) => Ok(Some(s.experiment)),
        _ => Ok(None),
    }
}

pub(super) fn open_fragment(app: &Rc<GridApp>) {
    let hash = crate::web::kit::share_link::location_hash();
    match parse_fragment(&hash) {
        Ok(None) => {}
        Ok(Some(exp)) => {
            if app.tab.busy() {
                app.ui
                    .errors
                    .show("A grid run is in progress: cancel it, then open the link again.");
                return;
            }
            app.ui.errors.hide();
            app.state.borrow_mut().fragment = hash.trim_start_matches('#').to_string();
            load_experiment(app, &exp);
            let missing: Vec<String> = app
                .state
                .borrow()
                .sites
                .iter()
                .enumerate()
                .filter(|(_, r)| r.trace_mode && r.trace.is_none())
                .map(|(i, r)| {
                    format!(
                        "{} (site {})",
                        r.want.as_ref().map_or("?", |w| w.0.as_str()),
                        i + 1
                    )
                })
                .collect();
            if missing.is_empty() {
                app.ui.notice.set_hidden(true);
            } else {
                app.ui.notice_text.set_text_content(Some(&format!(
                    "This link uses trace files that stay on the computer they were uploaded \
                     from: {}. Choose them in the site rows; the grid runs once all are there.",
                    missing.join(", ")
                )));
                app.ui.notice.set_hidden(false);
            }
            app.state.borrow_mut().auto_run = true;
            maybe_auto_run(app);
        }
        Err(m) => app.ui.errors.show(&format!(
            "This grid link cannot be opened: {m}. The sites are unchanged."
        )),
    }
}

pub(super) fn publish_link(app: &GridApp) {
    let Some(exp) = app
        .state
        .borrow()
        .result
        .as_ref()
        .map(|c| c.experiment.clone())
    else {
        return;
    };
    let fragment = fragment_of(&exp);
    crate::web::kit::share_link::publish(&app.ui.share, &app.ui.share_link, &fragment);
    app.state.borrow_mut().fragment = fragment;
}
