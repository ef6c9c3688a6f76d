//! The moldable mode of the page (Srinivasan et al. §2–5: moldable jobs under Downey's speedup model,
//! the strategies of §3–5 against rigid conservative backfilling).
//!
//! It owns the `#moldable-mode` panel of `index.html` and its own simulation worker (the same
//! `worker` binary, so the modes never share state): the workload (Lublin–Feitelson or an
//! uploaded trace with its first jobs), σ, the range factor, the load factor, the seed, the
//! strategies (checkboxes from the registry) and the preset "Moldable jobs (Srinivasan et al.)"; Run
//! reads the form through [`crate::form::moldable`] and sends one
//! [`ToWorker::Run`] of a moldable envelope ([`super::moldable_worker`]); the results are a table per
//! strategy, the % change per weight category ([`super::moldable_chart`]), for small runs a
//! Gantt chart of the processor count each job was given, downloads (report JSON, results
//! CSV, per-job CSV) and a share link (`#e=` of mode `moldable`). Bad input is reported in
//! `#moldable-error` and the previous results stay.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, HtmlAnchorElement, HtmlButtonElement, HtmlCanvasElement, HtmlElement,
    HtmlInputElement, HtmlProgressElement, HtmlSelectElement, MouseEvent,
};

use super::chart::{GanttLayout, PlotArea};
use super::dom::listen;
use super::kit::by_id;
use super::kit::controls::wire_run_cancel;
use super::kit::downloads::Downloads;
use super::kit::error_box::ErrorBox;
use super::kit::export::png_on_click;
use super::kit::tab::{self, TabController};
use super::kit::upload::on_file_chosen;
use super::kit::upload::LoadedTrace;
use super::protocol::{MoldablePageReport, ToWorker, TraceInfo};
use crate::form::moldable::{self as moldable_form, MoldableFields};
use crate::modes::envelope::Envelope;
use crate::modes::moldable::link::MoldableShare;
use crate::modes::moldable::run::MoldJobRecord;
use crate::modes::Mode;

mod controller;
mod results;

use controller::*;
use results::*;

#[derive(Default)]
struct State {
    /// The experiment the form edits (what it does not show is kept from here).
    base: Option<MoldableShare>,
    trace: Option<LoadedTrace>,
    /// Upload in progress: file name and bytes.
    pending_upload: Option<(String, web_sys::Blob)>,
    /// A link's trace, by name and SHA-256, until it is uploaded.
    want_trace: Option<(String, Option<String>)>,
    /// The last finished run.
    result: Option<(MoldableShare, MoldablePageReport)>,
    /// The Gantt chart drawn: its layout, jobs and plotting area (for hover).
    gantt: Option<(GanttLayout, Vec<MoldJobRecord>, PlotArea)>,
    /// Run as soon as the worker is ready and the trace is there (share links).
    auto_run: bool,
    fragment: String,
    downloads: Downloads,
}

struct Ui {
    panel: HtmlElement,
    notice: HtmlElement,
    notice_text: Element,
    form: Element,
    preset: HtmlButtonElement,
    wl_synthetic: HtmlInputElement,
    wl_trace: HtmlInputElement,
    jobs: HtmlInputElement,
    procs: HtmlInputElement,
    upload: HtmlInputElement,
    trace_label: Element,
    first_jobs: HtmlInputElement,
    sigma: HtmlInputElement,
    rf: HtmlInputElement,
    lf: HtmlInputElement,
    seed: HtmlInputElement,
    strategies: Element,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    progress: HtmlProgressElement,
    progress_label: Element,
    errors: ErrorBox,
    caption: Element,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    head: Element,
    body: Element,
    exports: HtmlElement,
    export_json: HtmlAnchorElement,
    export_csv: HtmlAnchorElement,
    export_jobs: HtmlAnchorElement,
    empty: HtmlElement,
    charts: HtmlElement,
    png_changes: HtmlAnchorElement,
    svg_changes: HtmlAnchorElement,
    gantt_box: HtmlElement,
    gantt_pick: HtmlSelectElement,
    gantt_note: Element,
    gantt_canvas: HtmlCanvasElement,
    gantt_tip: HtmlElement,
    png_gantt: HtmlAnchorElement,
    svg_gantt: HtmlAnchorElement,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    tab: TabController<App>,
}

fn ui(doc: &Document) -> Result<Ui, String> {
    Ok(Ui {
        panel: by_id(doc, "moldable-mode")?,
        notice: by_id(doc, "moldable-notice")?,
        notice_text: by_id(doc, "moldable-notice-text")?,
        form: by_id(doc, "moldable-form")?,
        preset: by_id(doc, "moldable-preset")?,
        wl_synthetic: by_id(doc, "moldable-wl-synthetic")?,
        wl_trace: by_id(doc, "moldable-wl-trace")?,
        jobs: by_id(doc, "moldable-jobs")?,
        procs: by_id(doc, "moldable-procs")?,
        upload: by_id(doc, "moldable-upload")?,
        trace_label: by_id(doc, "moldable-trace-label")?,
        first_jobs: by_id(doc, "moldable-first-jobs")?,
        sigma: by_id(doc, "moldable-sigma")?,
        rf: by_id(doc, "moldable-rf")?,
        lf: by_id(doc, "moldable-lf")?,
        seed: by_id(doc, "moldable-seed")?,
        strategies: by_id(doc, "moldable-strategies")?,
        run: by_id(doc, "moldable-run")?,
        cancel: by_id(doc, "moldable-cancel")?,
        progress: by_id(doc, "moldable-progress")?,
        progress_label: by_id(doc, "moldable-progress-label")?,
        errors: ErrorBox::find(doc, "moldable-error", "moldable-mode")?.wired(),
        caption: by_id(doc, "moldable-caption")?,
        share: by_id(doc, "moldable-share")?,
        share_link: by_id(doc, "moldable-share-link")?,
        head: by_id(doc, "moldable-results-head")?,
        body: by_id(doc, "moldable-results-body")?,
        exports: by_id(doc, "moldable-exports")?,
        export_json: by_id(doc, "moldable-export-json")?,
        export_csv: by_id(doc, "moldable-export-csv")?,
        export_jobs: by_id(doc, "moldable-export-jobs")?,
        empty: by_id(doc, "moldable-empty")?,
        charts: by_id(doc, "moldable-charts")?,
        png_changes: by_id(doc, "moldable-png-changes")?,
        svg_changes: by_id(doc, "moldable-svg-changes")?,
        gantt_box: by_id(doc, "moldable-gantt-box")?,
        gantt_pick: by_id(doc, "moldable-gantt-pick")?,
        gantt_note: by_id(doc, "moldable-gantt-note")?,
        gantt_canvas: by_id(doc, "moldable-gantt")?,
        gantt_tip: by_id(doc, "moldable-gantt-tip")?,
        png_gantt: by_id(doc, "moldable-png-gantt")?,
        svg_gantt: by_id(doc, "moldable-svg-gantt")?,
    })
}

/// Sets up the moldable mode (called once from [`super::app::start`], after the registry's
/// pickers are filled).
pub fn start(doc: &Document) {
    let ui = match ui(doc) {
        Ok(u) => u,
        Err(m) => {
            web_sys::console::error_1(&JsValue::from_str(&format!("Moldable mode disabled: {m}")));
            return;
        }
    };
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State::default()),
        tab: TabController::default(),
    });
    load_share(&app, &moldable_form::preset_moldable());
    wire(&app);
    tab::spawn_worker_when_shown(&app);
    tab::refresh(&*app);
    open_fragment(&app);
}

// ---------------------------------------------------------------- form

/// The ticked strategy boxes, in the form's order.
fn ticked(app: &App) -> Vec<String> {
    let Ok(nodes) = app.ui.strategies.query_selector_all("input[type=checkbox]") else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|i| nodes.item(i)?.dyn_into::<HtmlInputElement>().ok())
        .filter(|b| b.checked())
        .map(|b| b.value())
        .collect()
}

/// The form as typed.
fn fields(app: &App) -> MoldableFields {
    let ui = &app.ui;
    MoldableFields {
        trace: ui.wl_trace.checked(),
        jobs: ui.jobs.value(),
        procs: ui.procs.value(),
        first_jobs: ui.first_jobs.value(),
        sigma: ui.sigma.value(),
        range_factor: ui.rf.value(),
        load_factor: ui.lf.value(),
        seed: ui.seed.value(),
        strategies: ticked(app),
    }
}

/// Shows `share` in the form and makes it the experiment the form edits.
fn load_share(app: &App, share: &MoldableShare) {
    let f = MoldableFields::of(share);
    let ui = &app.ui;
    if !f.trace {
        ui.jobs.set_value(&f.jobs);
        ui.procs.set_value(&f.procs);
    }
    ui.first_jobs.set_value(&f.first_jobs);
    ui.sigma.set_value(&f.sigma);
    ui.rf.set_value(&f.range_factor);
    ui.lf.set_value(&f.load_factor);
    ui.seed.set_value(&f.seed);
    if let Ok(nodes) = ui.strategies.query_selector_all("input[type=checkbox]") {
        for b in
            (0..nodes.length()).filter_map(|i| nodes.item(i)?.dyn_into::<HtmlInputElement>().ok())
        {
            b.set_checked(f.strategies.contains(&b.value()));
        }
    }
    let want = match &share.experiment.workload {
        crate::modes::flat::spec::WorkloadSpec::Swf(src) => Some((
            src.name
                .clone()
                .or_else(|| src.path.clone())
                .unwrap_or_default(),
            src.sha256.clone(),
        )),
        crate::modes::flat::spec::WorkloadSpec::Synthetic(_) => None,
    };
    {
        let mut st = app.state.borrow_mut();
        st.base = Some(share.clone());
        st.want_trace = want.filter(|(name, sha)| {
            st.trace.as_ref().is_none_or(|t| {
                t.info.name != *name || sha.as_ref().is_some_and(|s| *s != t.info.sha256)
            })
        });
    }
    set_workload(app, f.trace);
}

/// Ticks the workload radio (`trace` only when a trace is there or wanted).
fn set_workload(app: &App, trace: bool) {
    let ui = &app.ui;
    let has = app.state.borrow().trace.is_some();
    ui.wl_trace.set_disabled(!has);
    ui.wl_trace.set_checked(trace && has);
    ui.wl_synthetic.set_checked(!(trace && has));
    render_trace_label(app);
}

fn render_trace_label(app: &App) {
    let st = app.state.borrow();
    let text = if let Some((name, _)) = &st.pending_upload {
        format!("Reading {name}…")
    } else if let Some(t) = &st.trace {
        format!(
            "{} — {} jobs, {} processors",
            t.info.name,
            super::format::count(t.info.jobs as u64),
            t.info.header_procs.map_or_else(
                || format!("largest job {}", t.info.max_job_procs),
                |p| p.to_string()
            )
        )
    } else if let Some((name, _)) = &st.want_trace {
        format!("The link's trace {name}: choose that file")
    } else {
        String::new()
    };
    if text.is_empty() {
        app.ui.trace_label.set_inner_html(
            "<span>Drop a <code>.swf</code> or <code>.swf.gz</code> trace here, or <u>browse</u></span>",
        );
    } else {
        app.ui.trace_label.set_text_content(Some(&text));
    }
}

/// Enables and disables the tab's own controls (the controller sets the panel's state).
fn set_controls(app: &App) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = app.tab.busy();
    ui.run
        .set_disabled(!app.tab.ready() || busy || st.pending_upload.is_some());
    ui.cancel.set_disabled(!busy);
    ui.preset.set_disabled(busy);
}

// ---------------------------------------------------------------- wiring

fn wire(app: &Rc<App>) {
    let ui = &app.ui;
    wire_run_cancel(
        app,
        ui.form.as_ref(),
        ui.cancel.as_ref(),
        on_run,
        |a: &App| tab::cancel(a),
    );
    png_on_click(&ui.png_changes, "moldable-chart-changes");
    png_on_click(&ui.png_gantt, "moldable-gantt");
    {
        let app = Rc::clone(app);
        listen(ui.preset.as_ref(), "click", move |_: Event| {
            if app.tab.busy() {
                return;
            }
            app.ui.errors.hide();
            app.ui.notice.set_hidden(true);
            app.state.borrow_mut().auto_run = false;
            load_share(&app, &moldable_form::preset_moldable());
        });
    }
    {
        let app = Rc::clone(app);
        on_file_chosen(&ui.upload, move |file| upload(&app, file));
    }
    {
        let app = Rc::clone(app);
        listen(ui.gantt_pick.as_ref(), "change", move |_: Event| {
            draw_gantt(&app)
        });
    }
    {
        let app = Rc::clone(app);
        listen(
            ui.gantt_canvas.as_ref(),
            "mousemove",
            move |ev: MouseEvent| gantt_hover(&app, &ev),
        );
    }
    {
        let app = Rc::clone(app);
        listen(ui.gantt_canvas.as_ref(), "mouseleave", move |_: Event| {
            app.ui.gantt_tip.set_hidden(true)
        });
    }
    if let Some(w) = web_sys::window() {
        let app = Rc::clone(app);
        listen(w.as_ref(), "hashchange", move |_: Event| {
            let hash = crate::web::kit::share_link::location_hash();
            let h = hash.trim_start_matches('#');
            if super::kit::share_link::is_link_of(h, Mode::Moldable)
                && h != app.state.borrow().fragment
            {
                open_fragment(&app);
            }
        });
    }
}

// ---------------------------------------------------------------- share links

/// Opens the address bar's link if it is a moldable one: fills the form and runs it (once
/// the link's trace, if any, is uploaded).
fn open_fragment(app: &Rc<App>) {
    let hash = crate::web::kit::share_link::location_hash();
    match super::kit::share_link::open(&hash, Mode::Moldable) {
        Ok(Some(Envelope::Moldable(share))) => {
            if app.tab.busy() {
                app.ui
                    .errors
                    .show("A moldable run is in progress: cancel it, then open the link again.");
                return;
            }
            app.ui.errors.hide();
            app.state.borrow_mut().fragment = hash.trim_start_matches('#').to_string();
            load_share(app, &share);
            let want = app.state.borrow().want_trace.clone();
            match want {
                Some((name, _)) => {
                    app.ui.notice_text.set_text_content(Some(&format!(
                        "This link uses the trace file {name}, which stays on the computer it \
                         was uploaded from. Choose it below; the experiment runs once it is \
                         there."
                    )));
                    app.ui.notice.set_hidden(false);
                }
                None => app.ui.notice.set_hidden(true),
            }
            app.state.borrow_mut().auto_run = true;
            maybe_auto_run(app);
        }
        Ok(_) => {}
        Err(m) => app.ui.errors.show(&format!(
            "This moldable link cannot be opened: {m}. The form is unchanged."
        )),
    }
}

fn publish_link(app: &App) {
    let Some(share) = app.state.borrow().result.as_ref().map(|r| r.0.clone()) else {
        return;
    };
    let fragment = Envelope::Moldable(share).to_fragment();
    super::kit::share_link::publish(&app.ui.share, &app.ui.share_link, &fragment);
    app.state.borrow_mut().fragment = fragment;
}
