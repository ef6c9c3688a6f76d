//! The Grid mode of the page (Ernemann et al. §III–V: sites across time zones, single sites vs job
//! sharing, Table IV's "AWRT in % of single", Fig. 4's squashed area by local hour).
//!
//! It owns the `#grid-mode` panel of `index.html` and its own simulation worker (the same
//! `worker` binary as the flat mode, started from [`WORKER_URL`], so the two modes never share
//! state): a site editor (name, nodes, time-zone offset, a synthetic Lublin–Feitelson workload
//! or an uploaded SWF trace per site), the local policy, the seed, "cut to shortest", the
//! Ernemann et al. preset ([`preset_global_grid`]); Run sends one [`ToWorker::Run`] of a grid envelope that the worker
//! simulates twice (single sites, then job sharing, [`super::grid_worker`]); progress drives the
//! world clock (one clock per site, its local time = grid time − offset); the results are a
//! table per configuration, the comparison in % of single, the charts
//! ([`super::grid_chart`]), the migration matrix, CSV/JSON downloads and a share link
//! `#g=<base64url JSON>.<checksum>` ([`GridShare`]). Bad input is reported in `#grid-error`
//! and the previous results stay.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, Event, File, HtmlAnchorElement, HtmlButtonElement, HtmlElement,
    HtmlInputElement, HtmlProgressElement, HtmlSelectElement,
};

use super::dom::{escape, listen};
use super::format;
use super::grid_chart;
use super::kit::by_id;
use super::kit::controls::wire_run_cancel;
use super::kit::downloads::Downloads;
use super::kit::error_box::ErrorBox;
use super::kit::tab::{self, TabController};
use super::kit::upload::LoadedTrace;
use super::protocol::{GridReport, ToWorker, TraceInfo};
use crate::base::Registered;
use crate::form::grid::{self as grid_form, model_jobs, GridFields, SiteRow};
use crate::form::{FieldError, TraceFacts, MAX_JOBS, MAX_PROCS};
use crate::grid::{GridMetrics, LocalPolicy, Sharing};
use crate::modes::grid::link::GridShare;
use crate::modes::grid::run::{
    local_clock, offset_label, offset_words, percent_of, sharing_label, GridComparison,
    CONFIGURATIONS,
};
use crate::modes::grid::spec::{preset_global_grid, MAX_SITES};
use crate::modes::grid::GridExperiment;
use crate::modes::Envelope;

mod controller;
mod link;
mod results;
mod sites;

use controller::*;
use link::*;
pub use link::{fragment_of, parse_fragment};
use results::*;
use sites::*;

#[derive(Default)]
struct State {
    /// The experiment of the run in progress.
    run_exp: Option<GridExperiment>,
    name: Option<String>,
    sites: Vec<SiteRow>,
    traces: Vec<LoadedTrace>,
    /// Upload in progress: site index, file name, bytes.
    pending_upload: Option<(usize, String, web_sys::Blob)>,
    result: Option<GridComparison>,
    /// Grid time of the last progress message.
    last_time: f64,
    last_run: usize,
    /// Run as soon as the worker is ready and every trace is loaded (share links).
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
    tbody: Element,
    add: HtmlButtonElement,
    hint: Element,
    policy: HtmlSelectElement,
    seed: HtmlInputElement,
    cut: HtmlInputElement,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    progress: HtmlProgressElement,
    progress_label: Element,
    errors: ErrorBox,
    clock: Element,
    clock_caption: Element,
    caption: Element,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    tables: Element,
    exports: HtmlElement,
    export_csv: HtmlAnchorElement,
    export_json: HtmlAnchorElement,
    empty: HtmlElement,
    charts: HtmlElement,
    chart_links: Element,
    migrations: Element,
}

struct GridApp {
    ui: Ui,
    state: RefCell<State>,
    tab: TabController<GridApp>,
}

fn ui(doc: &Document) -> Result<Ui, String> {
    Ok(Ui {
        panel: by_id(doc, "grid-mode")?,
        notice: by_id(doc, "grid-notice")?,
        notice_text: by_id(doc, "grid-notice-text")?,
        form: by_id(doc, "grid-form")?,
        preset: by_id(doc, "grid-preset")?,
        tbody: by_id(doc, "grid-sites-body")?,
        add: by_id(doc, "grid-add-site")?,
        hint: by_id(doc, "grid-sites-hint")?,
        policy: by_id(doc, "grid-policy")?,
        seed: by_id(doc, "grid-seed")?,
        cut: by_id(doc, "grid-cut")?,
        run: by_id(doc, "grid-run")?,
        cancel: by_id(doc, "grid-cancel")?,
        progress: by_id(doc, "grid-progress")?,
        progress_label: by_id(doc, "grid-progress-label")?,
        errors: ErrorBox::find(doc, "grid-error", "grid-mode")?.wired(),
        clock: by_id(doc, "grid-clock")?,
        clock_caption: by_id(doc, "grid-clock-caption")?,
        caption: by_id(doc, "grid-results-caption")?,
        share: by_id(doc, "grid-share")?,
        share_link: by_id(doc, "grid-share-link")?,
        tables: by_id(doc, "grid-tables")?,
        exports: by_id(doc, "grid-exports")?,
        export_csv: by_id(doc, "grid-export-csv")?,
        export_json: by_id(doc, "grid-export-json")?,
        empty: by_id(doc, "grid-empty")?,
        charts: by_id(doc, "grid-charts")?,
        chart_links: by_id(doc, "grid-chart-links")?,
        migrations: by_id(doc, "grid-migrations")?,
    })
}

/// Sets up the Grid mode (called once from [`super::app::start`]).
pub fn start(doc: &Document) {
    let ui = match ui(doc) {
        Ok(u) => u,
        Err(m) => {
            web_sys::console::error_1(&JsValue::from_str(&format!("Grid mode disabled: {m}")));
            return;
        }
    };
    let app = Rc::new(GridApp {
        ui,
        state: RefCell::new(State::default()),
        tab: TabController::default(),
    });
    load_experiment(&app, &preset_global_grid());
    wire(&app);
    tab::spawn_worker_when_shown(&app);
    tab::refresh(&*app);
    open_fragment(&app);
}

// ---------------------------------------------------------------- errors and controls

/// Enables and disables the tab's own controls (the controller sets the panel's state).
fn set_controls(app: &GridApp) {
    let st = app.state.borrow();
    let ui = &app.ui;
    let busy = app.tab.busy();
    ui.run
        .set_disabled(!app.tab.ready() || busy || st.pending_upload.is_some());
    ui.cancel.set_disabled(!busy);
    ui.preset.set_disabled(busy);
    ui.add.set_disabled(busy || st.sites.len() >= MAX_SITES);
}

// ---------------------------------------------------------------- wiring

fn wire(app: &Rc<GridApp>) {
    let ui = &app.ui;
    wire_run_cancel(
        app,
        ui.form.as_ref(),
        ui.cancel.as_ref(),
        on_run,
        |a: &GridApp| tab::cancel(a),
    );
    {
        let app = Rc::clone(app);
        listen(ui.preset.as_ref(), "click", move |_: Event| {
            if app.tab.busy() {
                return;
            }
            app.ui.errors.hide();
            app.ui.notice.set_hidden(true);
            app.state.borrow_mut().auto_run = false;
            load_experiment(&app, &preset_global_grid());
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.add.as_ref(), "click", move |_: Event| add_site(&app));
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "input", move |ev: Event| {
            on_site_input(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "change", move |ev: Event| {
            on_site_change(&app, &ev)
        });
    }
    {
        let app = Rc::clone(app);
        listen(ui.tbody.as_ref(), "click", move |ev: Event| {
            on_site_click(&app, &ev)
        });
    }
    if let Some(w) = web_sys::window() {
        let app = Rc::clone(app);
        listen(w.as_ref(), "hashchange", move |_: Event| {
            let hash = crate::web::kit::share_link::location_hash();
            let h = hash.trim_start_matches('#');
            if super::kit::share_link::is_link_of(h, crate::modes::Mode::Grid)
                && h != app.state.borrow().fragment
            {
                open_fragment(&app);
            }
        });
    }
}
