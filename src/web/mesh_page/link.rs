//! Mesh share links: the experiment envelope of mode mesh ([`crate::modes::envelope`]: a
//! [`MeshShare`] — the first run's [`MeshExperiment`], the allocators compared and the policy
//! chosen); opening one (old `#m=` links too) and publishing the link of the last runs.

use super::*;
use crate::modes::envelope::Envelope;
use crate::modes::Mode;

pub use crate::modes::mesh::link::{
    MeshShare, MAX_MESH_FRAGMENT, MESH_FRAGMENT_PREFIX, MESH_SHARE_VERSION,
};

pub(super) fn publish_link(app: &App) {
    let share = {
        let st = app.state.borrow();
        let Some(first) = st.runs.first() else {
            return;
        };
        let allocators: Vec<MeshAllocatorKind> = st.runs.iter().map(|r| r.exp.allocator).collect();
        let policy = st
            .runs
            .iter()
            .find(|r| r.exp.allocator.is_contiguous())
            .map(|r| r.exp.policy)
            .filter(|p| *p != first.exp.policy)
            .map(|p| p.label().to_ascii_lowercase());
        MeshShare {
            v: MESH_SHARE_VERSION,
            experiment: first.exp.clone(),
            allocators,
            policy,
        }
    };
    let fragment = Envelope::Mesh(share).to_fragment();
    crate::web::kit::share_link::publish(&app.ui.share, &app.ui.share_link, &fragment);
    app.state.borrow_mut().fragment = fragment;
}

/// Opens a mesh link (`#e=` of mode mesh, or an old `#m=`): restores the form and runs it once the worker is ready.
pub(super) fn open_fragment(app: &Rc<App>) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    match crate::web::kit::share_link::open(&hash, Mode::Mesh) {
        Ok(None | Some(Envelope::Flat(_) | Envelope::Grid(_) | Envelope::Moldable(_))) => {}
        Ok(Some(Envelope::Mesh(share))) => {
            let policy = share
                .policy
                .as_deref()
                .and_then(|p| MeshPolicyKind::parse(p).ok());
            fill_form(app, &share.experiment, &share.allocators, policy);
            if let WorkloadSpec::Swf(s) = &share.experiment.workload {
                let name = s.name.clone().unwrap_or_default();
                app.state.borrow_mut().link_trace = Some((name.clone(), s.sha256.clone()));
                app.ui.errors.show(&format!(
                    "This link simulates the trace {name:?}: upload it (above); it runs as \
                         soon as the file is read (a different file is refused)."
                ));
                return;
            }
            // A run estimated above the page's work bound is not started by the link: the
            // estimate is shown and Run stays enabled (docs/limits.md, "Work bounds").
            let held = crate::work::estimate_mesh_batch(&share.experiment, &share.allocators, None)
                .and_then(|e| crate::work::page_hold_message(&e));
            let ready = app.tab.ready();
            match (held, ready) {
                (Some(text), true) => set_progress(app, &text),
                (Some(text), false) => app.state.borrow_mut().held_link = Some(text),
                (None, true) => on_run(app, BatchKind::Compare),
                (None, false) => app.state.borrow_mut().auto_run = true,
            }
        }
        Err(m) => {
            let stop = if m.ends_with('.') { "" } else { "." };
            app.ui.errors.show(&format!(
                "This share link cannot be opened: {m}{stop} The form is unchanged."
            ))
        }
    }
}
