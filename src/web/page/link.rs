//! The flat page's share links ([`crate::web::share`]): opening a link (form, trace check,
//! automatic run), publishing the link of the last run, copying and forgetting it.

use super::*;
use crate::modes::envelope::Envelope;
use crate::modes::Mode;

/// Opens the share link in the address bar, if there is one: restores the form and runs it
/// (after asking for its trace, if it uses one). A damaged or unsupported link is reported in
/// the error box and leaves the form as it was.
pub(super) fn open_fragment(app: &Rc<App>) {
    let hash = crate::web::kit::share_link::location_hash();
    match crate::web::kit::share_link::open(&hash, Mode::Flat) {
        Ok(None | Some(Envelope::Mesh(_) | Envelope::Grid(_) | Envelope::Moldable(_))) => {}
        Ok(Some(Envelope::Flat(state))) => {
            if is_busy(app) {
                show_error(
                    "A run is in progress: cancel it, then open the share link again (reload \
                     the page).",
                );
                return;
            }
            app.state.borrow_mut().fragment = hash.trim_start_matches('#').to_string();
            apply_share(app, state);
        }
        Err(m) => show_error(&format!(
            "This share link cannot be opened: {m} The form is unchanged."
        )),
    }
}

/// Fills the form from a share link and arranges for it to run.
pub(super) fn apply_share(app: &Rc<App>, state: ShareState) {
    hide_error();
    let ui = &app.ui;
    let policies = state.policies();
    for (p, b) in &ui.policies {
        b.set_checked(policies.contains(p));
    }
    let exp = &state.experiment;
    let [order, expression, backfill_order, estimates] = flat::axes_fields(&exp.queue);
    ui.queue_order.set_value(&order);
    ui.queue_expr.set_value(&expression);
    ui.backfill_order.set_value(&backfill_order);
    // A factor the list does not offer (`3x`) gets its own option.
    if ui
        .estimates
        .query_selector(&format!("option[value=\"{estimates}\"]"))
        .ok()
        .flatten()
        .is_none()
    {
        if let Ok(o) = ui.doc.create_element("option") {
            o.set_text_content(Some(&exp.queue.estimates.label()));
            let _ = o.set_attribute("value", &estimates);
            let _ = ui.estimates.append_child(&o);
        }
    }
    ui.estimates.set_value(&estimates);
    update_policy_builder(ui);
    ui.seed.set_value(&exp.seed.to_string());
    ui.load_factor
        .set_value(&exp.transforms.load_factor.to_string());
    ui.sweep.set_checked(state.sweep.is_some());
    if let Some(s) = &state.sweep {
        ui.sweep_axis.set_value(s.axis.key());
        ui.sweep_from.set_value(&s.from.to_string());
        ui.sweep_to.set_value(&s.to.to_string());
        ui.sweep_step.set_value(&s.step.to_string());
    }
    update_sweep_fields(ui);
    let t = &exp.transforms;
    ui.first_jobs
        .set_value(&t.first_jobs.map(|n| n.to_string()).unwrap_or_default());
    let days = |s: f64| (s / 86_400.0).to_string();
    let (from, to) = t
        .time_window
        .as_ref()
        .map_or((String::new(), String::new()), |w| {
            (
                days(w.start),
                if w.end >= crate::limits::MAX_TIME {
                    String::new()
                } else {
                    days(w.end)
                },
            )
        });
    ui.window_from.set_value(&from);
    ui.window_to.set_value(&to);
    let MachineSpec::Flat {
        procs: machine_procs,
    } = exp.machine;
    let wanted = match &exp.workload {
        WorkloadSpec::Synthetic(model) => {
            ui.wl_synthetic.set_checked(true);
            on_mode_change(app);
            match model {
                SyntheticModel::Lublin(p) => {
                    ui.jobs.set_value(&p.jobs.to_string());
                    ui.procs.set_value(&p.procs.to_string());
                    set_param_inputs(ui, p);
                }
                _ => {
                    ui.jobs.set_value("");
                    ui.procs
                        .set_value(&machine_procs.map(|p| p.to_string()).unwrap_or_default());
                }
            }
            app.state.borrow_mut().synthetic_procs = ui.procs.value();
            None
        }
        WorkloadSpec::Swf(src) => {
            let name = src
                .name
                .clone()
                .or_else(|| {
                    src.path
                        .as_deref()
                        .map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string())
                })
                .unwrap_or_default();
            Some((name, src.sha256.clone().map(|h| h.to_ascii_lowercase())))
        }
    };
    {
        let mut st = app.state.borrow_mut();
        st.template = Some(state.experiment.clone());
        st.auto_run = true;
        st.wanted_trace = None;
    }
    ui.share_notice.set_hidden(true);
    if let Some((name, sha)) = wanted {
        let loaded = app.state.borrow().trace.as_ref().map(|t| t.info.clone());
        let matches = loaded
            .as_ref()
            .is_some_and(|i| trace_matches(i, &name, &sha));
        if matches {
            ui.wl_trace.set_disabled(false);
            ui.wl_trace.set_checked(true);
            on_mode_change(app);
            restore_trace_procs(app);
        } else {
            let hash = sha
                .as_deref()
                .map(|h| format!(" (SHA-256 {}…{})", &h[..12], &h[h.len() - 6..]))
                .unwrap_or_default();
            ui.share_notice_text.set_text_content(Some(&format!(
                "This share link replays the trace {name}{hash}. Drop or browse that file \
                 above to run the experiment; a file with different contents is refused."
            )));
            ui.share_notice.set_hidden(false);
            app.state.borrow_mut().wanted_trace = Some((name, sha));
        }
    }
    update_procs_hint(app);
    update_controls(app);
    maybe_auto_run(app);
}

/// Whether the uploaded trace `info` is the one a link asks for: same SHA-256 when the link
/// has one, else same name.
pub(super) fn trace_matches(info: &TraceInfo, name: &str, sha: &Option<String>) -> bool {
    match sha {
        Some(h) => h.eq_ignore_ascii_case(&info.sha256),
        None => info.name == name,
    }
}

/// Checks a freshly uploaded trace against the trace a share link waits for. A different
/// file is refused (error box; the previous trace is given back to the worker).
pub(super) fn accept_for_link(app: &Rc<App>, info: &TraceInfo) -> bool {
    let wanted = app.state.borrow().wanted_trace.clone();
    let Some((name, sha)) = wanted else {
        return true;
    };
    if trace_matches(info, &name, &sha) {
        app.state.borrow_mut().wanted_trace = None;
        app.ui.share_notice.set_hidden(true);
        return true;
    }
    show_error(&format!(
        "{} is not the trace of this share link: its SHA-256 is {}, the link needs {name} with \
         SHA-256 {}. Choose that file, or \u{201c}Forget this link\u{201d} to use another trace.",
        info.name,
        info.sha256,
        sha.as_deref().unwrap_or("(none given)")
    ));
    // The worker now holds the refused file: give it the previous trace back.
    let previous = app.state.borrow().trace.as_ref().map(LoadedTrace::resend);
    if let Some((name, file)) = previous {
        app.tab.worker.post_trace(&name, &file);
        app.state.borrow_mut().pending_trace = Some((name, file, true));
    }
    false
}

/// After a link's trace is loaded: the machine size the link asks for (empty: the header's).
pub(super) fn restore_trace_procs(app: &App) {
    let procs = app.state.borrow().template.as_ref().and_then(|t| {
        if !matches!(t.workload, WorkloadSpec::Swf(_)) {
            return None;
        }
        let MachineSpec::Flat { procs } = t.machine;
        Some(procs)
    });
    if let Some(p) = procs {
        app.ui
            .procs
            .set_value(&p.map(|p| p.to_string()).unwrap_or_default());
    }
}

/// Runs the experiment of an opened share link once everything it needs is there.
pub(super) fn maybe_auto_run(app: &Rc<App>) {
    let go = {
        let st = app.state.borrow();
        st.auto_run
            && app.tab.ready()
            && st.batch.is_none()
            && st.pending_trace.is_none()
            && st.wanted_trace.is_none()
    };
    if go {
        {
            let mut st = app.state.borrow_mut();
            st.auto_run = false;
            st.from_link = true;
        }
        on_run(app);
        app.state.borrow_mut().from_link = false;
    }
}

/// "Forget this link": stop waiting for the link's trace; the form stays as it is.
pub(super) fn forget_link(app: &App) {
    {
        let mut st = app.state.borrow_mut();
        st.wanted_trace = None;
        st.auto_run = false;
        st.template = None;
    }
    app.ui.share_notice.set_hidden(true);
    hide_error();
}

/// After a completed batch: its share link in the results header and in the address bar.
pub(super) fn publish_link(app: &App) {
    let state = {
        let st = app.state.borrow();
        st.batch
            .as_ref()
            .and_then(|b| flat::share_state(&b.runs, b.sweep))
    };
    let Some(state) = state else {
        return;
    };
    let fragment = Envelope::Flat(state).to_fragment();
    if fragment.is_empty() {
        return;
    }
    app.ui.share_copy.set_text_content(Some("Copy link"));
    crate::web::kit::share_link::publish(&app.ui.share, &app.ui.share_link, &fragment);
    app.state.borrow_mut().fragment = fragment;
}

/// Copies the share link to the clipboard (navigator.clipboard, where available).
pub(super) fn copy_link(app: &Rc<App>) {
    crate::web::kit::share_link::copy(&app.ui.share_link.href(), &app.ui.share_copy);
}
