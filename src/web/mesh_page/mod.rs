//! The 2D-mesh mode of the page (the `#mesh-mode` panel of `index.html`): the form of a mesh
//! experiment — the machine M(W, H) and window-based scheduling of Ababneh & Bani-Mohammad §2–5 (contiguous
//! allocators First Fit, Best Fit, MPL under FCFS, OO, OOCB-k, Window-K, Delay), or the
//! non-contiguous allocators of Mache et al. §3 run FCFS under the communication and I/O
//! contention model of Mache et al. §4 (I/O nodes on one side, traffic ratio ρ) — the runs (one per
//! selected allocator, in this mode's own simulation worker, see [`super::mesh_worker`]), the
//! results table, the downloads, the share link, the mesh view ([`super::mesh_view`]: jobs on
//! their nodes, link-contention heatmap, play / step / scrub, hover) and the charts (service
//! time vs. traffic ratio, Mache et al. Table 2; utilisation and queue over time).
//!
//! Share links are `#m=` followed by the base64url of the JSON of a [`MeshShare`] (the first
//! run's [`MeshExperiment`], the allocators compared and the policy chosen), `.` and its
//! checksum, as for the flat mode ([`super::share`]). Bad input is reported in the `mesh-error`
//! box, naming the field, and leaves the previous results in place.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, Event, File, HtmlAnchorElement, HtmlButtonElement,
    HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, MouseEvent,
};

use super::dom::{escape, listen};
use super::format;
use super::kit::by_id;
use super::kit::controls::wire_run_cancel;
use super::kit::downloads::Downloads;
use super::kit::error_box::ErrorBox;
use super::kit::export::png_on_click;
use super::kit::picker::{checkboxes_html, Choice};
use super::kit::playback::{Pace, Playback};
use super::kit::tab::{self, TabController};
use super::kit::upload::on_file_chosen;
use super::mesh_view::{self, Geometry, Line, RunView};
use super::protocol::{MeshReport, ToWorker, TraceInfo};
use crate::base::Registered;
use crate::form::mesh::{self, experiments_for, option_value, MeshFields, MeshWorkload};
use crate::form::{FieldError, TraceFacts};
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::mesh::presets::{
    binary_tree_allocators, preset_binary_tree, preset_contention, preset_window,
    MC_ELONGATED_STRATEGIES,
};
use crate::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment};
use crate::policy::mesh::MeshPolicyKind;
use crate::policy::mesh::MESH_POLICIES;
use crate::workload::synthetic::SyntheticModel;

mod controller;
mod form;
mod link;
mod results;
mod view;

use controller::*;
use form::*;
use link::*;
pub use link::{MeshShare, MAX_MESH_FRAGMENT, MESH_FRAGMENT_PREFIX, MESH_SHARE_VERSION};
use results::*;
use view::*;

/// How a results value is shown.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Count,
    Time,
    Ratio,
    Percent,
    Nodes,
    Messages,
}

/// One results column: where its value is (`summary` or `mesh`), its key, label, unit.
struct Column {
    group: &'static str,
    key: &'static str,
    label: &'static str,
    kind: Kind,
    title: &'static str,
}

const COLUMNS: [Column; 17] = [
    Column {
        group: "summary",
        key: "jobs",
        label: "Jobs",
        kind: Kind::Count,
        title: "Jobs simulated",
    },
    Column {
        group: "summary",
        key: "dropped",
        label: "Dropped",
        kind: Kind::Count,
        title: "Jobs left out (larger than the mesh, unknown size or run time)",
    },
    Column {
        group: "summary",
        key: "mean_wait",
        label: "Mean wait",
        kind: Kind::Time,
        title: "Mean of start − submit",
    },
    Column {
        group: "summary",
        key: "max_wait",
        label: "Max wait",
        kind: Kind::Time,
        title: "Longest start − submit",
    },
    Column {
        group: "summary",
        key: "mean_turnaround",
        label: "Mean turnaround",
        kind: Kind::Time,
        title: "Mean of end − submit (response time)",
    },
    Column {
        group: "summary",
        key: "mean_slowdown",
        label: "Mean slowdown",
        kind: Kind::Ratio,
        title: "Mean of turnaround / service time",
    },
    Column {
        group: "summary",
        key: "mean_bounded_slowdown",
        label: "Mean bounded slowdown",
        kind: Kind::Ratio,
        title: "Mean of max(1, turnaround / max(service, 10))",
    },
    Column {
        group: "summary",
        key: "utilization",
        label: "Utilization",
        kind: Kind::Percent,
        title: "Node-time used / (nodes × makespan)",
    },
    Column {
        group: "summary",
        key: "makespan",
        label: "Makespan",
        kind: Kind::Time,
        title: "Last end − first submit",
    },
    Column {
        group: "summary",
        key: "awrt",
        label: "AWRT",
        kind: Kind::Time,
        title: "Average weighted response time (weights: nodes × run time)",
    },
    Column {
        group: "summary",
        key: "awwt",
        label: "AWWT",
        kind: Kind::Time,
        title: "Average weighted wait time",
    },
    Column {
        group: "summary",
        key: "awsd",
        label: "AWSD",
        kind: Kind::Ratio,
        title: "Average weighted slowdown",
    },
    Column {
        group: "mesh",
        key: "mean_service",
        label: "Mean service",
        kind: Kind::Time,
        title: "Mean of end − start: run time stretched by link contention under non-contiguous \
                allocation (Mache et al. Table 2)",
    },
    Column {
        group: "mesh",
        key: "mean_nodes_affected",
        label: "Nodes affected",
        kind: Kind::Nodes,
        title: "Mean nodes of the smallest rectangle enclosing a job's nodes (Mache et al. §2.2)",
    },
    Column {
        group: "mesh",
        key: "mean_balance",
        label: "Balance factor",
        kind: Kind::Nodes,
        title: "Mean |nodes above − nodes below the middle I/O link| of a job (Mache et al. §2.3)",
    },
    Column {
        group: "mesh",
        key: "max_link_load",
        label: "Max link load",
        kind: Kind::Messages,
        title: "Most messages on any link at any time (weighted by ρ)",
    },
    Column {
        group: "mesh",
        key: "io_hot_spot",
        label: "I/O hot spot",
        kind: Kind::Messages,
        title: "Most messages on any link of the I/O line at any time (Mache et al. §2.3)",
    },
];

/// Elements of the mesh panel.
struct Ui {
    panel: HtmlElement,
    form: HtmlElement,
    run: HtmlButtonElement,
    cancel: HtmlButtonElement,
    sweep: HtmlButtonElement,
    preset_window: HtmlButtonElement,
    preset_contention: HtmlButtonElement,
    preset_binary_tree: HtmlButtonElement,
    trees_box: HtmlElement,
    exchanges: HtmlInputElement,
    tree: HtmlInputElement,
    wl_mesh_jobs: HtmlInputElement,
    wl_exponential: HtmlInputElement,
    wl_trace: HtmlInputElement,
    wl_mesh_jobs_fields: HtmlElement,
    wl_exponential_fields: HtmlElement,
    mesh_jobs: HtmlInputElement,
    rate: HtmlInputElement,
    sides: HtmlSelectElement,
    exp_jobs: HtmlInputElement,
    interarrival: HtmlInputElement,
    upload: HtmlInputElement,
    trace_label: HtmlElement,
    width: HtmlInputElement,
    height: HtmlInputElement,
    shape: HtmlSelectElement,
    io_side: HtmlSelectElement,
    io_count: HtmlInputElement,
    rho: HtmlInputElement,
    rho_value: HtmlElement,
    seed: HtmlInputElement,
    allocs: Vec<(MeshAllocatorKind, HtmlInputElement)>,
    policy: HtmlSelectElement,
    policy_k: HtmlInputElement,
    policy_k_field: HtmlElement,
    policy_k_label: HtmlElement,
    policy_hint: HtmlElement,
    progress: web_sys::HtmlProgressElement,
    progress_label: HtmlElement,
    errors: ErrorBox,
    caption: HtmlElement,
    share: HtmlElement,
    share_link: HtmlAnchorElement,
    head: HtmlElement,
    body: HtmlElement,
    exports: HtmlElement,
    empty: HtmlElement,
    view: HtmlElement,
    run_pick: HtmlSelectElement,
    heat: HtmlInputElement,
    view_note: HtmlElement,
    png: HtmlAnchorElement,
    canvas: HtmlCanvasElement,
    tip: HtmlElement,
    prev: HtmlButtonElement,
    play: HtmlButtonElement,
    step: HtmlButtonElement,
    time: HtmlInputElement,
    time_label: HtmlElement,
    charts: HtmlElement,
    sweep_box: HtmlElement,
    util_box: HtmlElement,
    png_sweep: HtmlAnchorElement,
    png_util: HtmlAnchorElement,
    worm: WormUi,
}

/// A finished run.
struct Run {
    exp: MeshExperiment,
    report: MeshReport,
    view: Option<RunView>,
}

#[derive(Clone, Copy, PartialEq)]
enum BatchKind {
    Compare,
    Sweep,
}

/// One run of a mesh batch (a comparison of allocators, or a traffic-ratio sweep).
struct MeshRun {
    kind: BatchKind,
    exp: MeshExperiment,
    /// The uploaded trace it reads.
    trace: Option<String>,
}

#[derive(Default)]
struct State {
    runs: Vec<Run>,
    /// The experiment the form edits (keeps what the form does not show: κ, transforms…).
    base: Option<MeshExperiment>,
    trace: Option<TraceInfo>,
    pending_trace: Option<String>,
    /// A share link waiting for the worker.
    auto_run: bool,
    /// A share link held by the page's work bound ([`crate::limits::PAGE_WORK_SECONDS`]): the
    /// estimate shown, once the worker is ready, instead of running it.
    held_link: Option<String>,
    /// The trace a share link names (file name, SHA-256), until the matching file is uploaded.
    link_trace: Option<(String, Option<String>)>,
    geo: Geometry,
    occ: Vec<Option<usize>>,
    downloads: Downloads,
    sweep_lines: Vec<Line>,
    /// The fragment this page wrote last (a `hashchange` to it is not a new link).
    fragment: String,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    tab: TabController<App>,
    /// The mesh view's time: Back / Play / Step and the slider.
    playback: Rc<Playback>,
    drawing: Cell<bool>,
}

/// Entry point, called once from [`super::app::start`]. Does nothing if the page has no mesh
/// panel.
pub fn start() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let ui = match build_ui(&doc) {
        Ok(ui) => ui,
        Err(m) => {
            web_sys::console::error_1(&JsValue::from_str(&format!("mesh mode: {m}")));
            return;
        }
    };
    let playback = Playback::new(
        ui.prev.clone(),
        ui.play.clone(),
        ui.step.clone(),
        ui.time.clone(),
        Pace::Continuous { steps: 400.0 },
    );
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State::default()),
        tab: TabController::default(),
        playback,
        drawing: Cell::new(false),
    });
    {
        let a = Rc::downgrade(&app);
        app.playback.on_change(move || {
            if let Some(a) = a.upgrade() {
                draw_view(&a);
            }
        });
    }
    render_head(&app.ui, "time units");
    fill_form(
        &app,
        &preset_window(),
        &[MeshAllocatorKind::default()],
        None,
    );
    wire(&app);
    tab::spawn_worker_when_shown(&app);
    tab::refresh(&*app);
    open_fragment(&app);
}

fn build_ui(doc: &Document) -> Result<Ui, String> {
    // The allocator checkboxes, grouped.
    let all: Vec<(MeshAllocatorKind, String, String, &'static str)> = MeshAllocatorKind::all()
        .into_iter()
        .map(|a| (a, a.as_str().to_string(), a.label(), a.entry().description))
        .collect();
    let group = |contiguous: bool| {
        let choices: Vec<Choice<'_>> = all
            .iter()
            .filter(|(a, _, _, _)| a.is_contiguous() == contiguous)
            .map(|(_, name, label, description)| Choice {
                name,
                label,
                description,
            })
            .collect();
        checkboxes_html("mesh-alloc", &choices, false, false)
    };
    by_id::<Element>(doc, "mesh-alloc-contig")?.set_inner_html(&group(true));
    by_id::<Element>(doc, "mesh-alloc-nodes")?.set_inner_html(&group(false));
    let trees: Vec<(MeshAllocatorKind, String, String, &'static str)> = MeshAllocatorKind::trees()
        .into_iter()
        .map(|a| (a, a.as_str(), a.label(), a.entry().description))
        .collect();
    let tree_choices: Vec<Choice<'_>> = trees
        .iter()
        .map(|(_, name, label, description)| Choice {
            name,
            label,
            description,
        })
        .collect();
    by_id::<Element>(doc, "mesh-alloc-trees")?.set_inner_html(&checkboxes_html(
        "mesh-alloc",
        &tree_choices,
        false,
        false,
    ));
    let mut allocs = Vec::new();
    for a in MeshAllocatorKind::all()
        .into_iter()
        .chain(MeshAllocatorKind::trees())
    {
        allocs.push((a, by_id(doc, &format!("mesh-alloc-{}", a.as_str()))?));
    }
    Ok(Ui {
        panel: by_id(doc, "mesh-mode")?,
        form: by_id(doc, "mesh-form")?,
        run: by_id(doc, "mesh-run")?,
        cancel: by_id(doc, "mesh-cancel")?,
        sweep: by_id(doc, "mesh-sweep")?,
        preset_window: by_id(doc, "mesh-preset-window")?,
        preset_contention: by_id(doc, "mesh-preset-contention")?,
        preset_binary_tree: by_id(doc, "mesh-preset-binary-tree")?,
        trees_box: by_id(doc, "mesh-alloc-trees-box")?,
        exchanges: by_id(doc, "mesh-exchanges")?,
        tree: by_id(doc, "mesh-tree")?,
        wl_mesh_jobs: by_id(doc, "mesh-wl-mesh-jobs")?,
        wl_exponential: by_id(doc, "mesh-wl-exponential")?,
        wl_trace: by_id(doc, "mesh-wl-trace")?,
        wl_mesh_jobs_fields: by_id(doc, "mesh-wl-mesh-jobs-fields")?,
        wl_exponential_fields: by_id(doc, "mesh-wl-exponential-fields")?,
        mesh_jobs: by_id(doc, "mesh-mesh_jobs")?,
        rate: by_id(doc, "mesh-rate")?,
        sides: by_id(doc, "mesh-sides")?,
        exp_jobs: by_id(doc, "mesh-exp_jobs")?,
        interarrival: by_id(doc, "mesh-interarrival")?,
        upload: by_id(doc, "mesh-upload")?,
        trace_label: by_id(doc, "mesh-trace-label")?,
        width: by_id(doc, "mesh-width")?,
        height: by_id(doc, "mesh-height")?,
        shape: by_id(doc, "mesh-shape")?,
        io_side: by_id(doc, "mesh-io-side")?,
        io_count: by_id(doc, "mesh-io-count")?,
        rho: by_id(doc, "mesh-rho")?,
        rho_value: by_id(doc, "mesh-rho-value")?,
        seed: by_id(doc, "mesh-seed")?,
        allocs,
        policy: by_id(doc, "mesh-policy")?,
        policy_k: by_id(doc, "mesh-policy-k")?,
        policy_k_field: by_id(doc, "mesh-policy-k-field")?,
        policy_k_label: by_id(doc, "mesh-policy-k-label")?,
        policy_hint: by_id(doc, "mesh-policy-hint")?,
        progress: by_id(doc, "mesh-progress")?,
        progress_label: by_id(doc, "mesh-progress-label")?,
        errors: ErrorBox::find(doc, "mesh-error", "mesh-mode")?.wired(),
        caption: by_id(doc, "mesh-caption")?,
        share: by_id(doc, "mesh-share")?,
        share_link: by_id(doc, "mesh-share-link")?,
        head: by_id(doc, "mesh-results-head")?,
        body: by_id(doc, "mesh-results-body")?,
        exports: by_id(doc, "mesh-exports")?,
        empty: by_id(doc, "mesh-results-empty")?,
        view: by_id(doc, "mesh-view")?,
        run_pick: by_id(doc, "mesh-run-pick")?,
        heat: by_id(doc, "mesh-heat")?,
        view_note: by_id(doc, "mesh-view-note")?,
        png: by_id(doc, "mesh-png")?,
        canvas: by_id(doc, "mesh-canvas")?,
        tip: by_id(doc, "mesh-tip")?,
        prev: by_id(doc, "mesh-prev")?,
        play: by_id(doc, "mesh-play")?,
        step: by_id(doc, "mesh-step")?,
        time: by_id(doc, "mesh-time")?,
        time_label: by_id(doc, "mesh-time-label")?,
        charts: by_id(doc, "mesh-charts")?,
        sweep_box: by_id(doc, "mesh-sweep-box")?,
        util_box: by_id(doc, "mesh-util-box")?,
        png_sweep: by_id(doc, "mesh-png-sweep")?,
        png_util: by_id(doc, "mesh-png-util")?,
        worm: WormUi::find(doc)?,
    })
}

fn wire(app: &Rc<App>) {
    let ui = &app.ui;
    wire_run_cancel(
        app,
        ui.form.as_ref(),
        ui.cancel.as_ref(),
        |a| on_run(a, BatchKind::Compare),
        |a: &App| tab::cancel(a),
    );
    {
        let a = Rc::clone(app);
        listen(&ui.sweep, "click", move |_: Event| {
            on_run(&a, BatchKind::Sweep)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.preset_window, "click", move |_: Event| {
            a.ui.errors.hide();
            fill_form(&a, &preset_window(), &[MeshAllocatorKind::default()], None);
            set_progress(
                &a,
                "Ababneh & Bani-Mohammad, Fig. 6: MPL under Window-240 on a 32 × 32 mesh. Press Run.",
            );
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.preset_contention, "click", move |_: Event| {
            a.ui.errors.hide();
            let allocs = MC_ELONGATED_STRATEGIES.map(MeshAllocatorKind::Nodes);
            fill_form(&a, &preset_contention(0.5), &allocs, None);
            set_progress(
                &a,
                "Mache et al.: six non-contiguous allocators on a 22 × 16 mesh, ρ = 50 % I/O. Press \
                 Run, or Sweep traffic ratio.",
            );
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.preset_binary_tree, "click", move |_: Event| {
            a.ui.errors.hide();
            fill_form(&a, &preset_binary_tree(), &binary_tree_allocators(), None);
            let _ = a.ui.trees_box.set_attribute("open", "");
            set_progress(
                &a,
                "Liu et al., Fig. 6: DBT(1/8), d-DBT(1/8), MBS and PLAS on a 16 × 16 mesh, 16 tasks \
                 at time 0, 4 exchanges between writes. Press Run.",
            );
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.tree, "change", move |_: Event| draw_view(&a));
    }
    for input in [&ui.wl_mesh_jobs, &ui.wl_exponential, &ui.wl_trace] {
        let a = Rc::clone(app);
        listen(input, "change", move |_: Event| {
            update_workload_fields(&a.ui)
        });
    }
    for (_, b) in &ui.allocs {
        let a = Rc::clone(app);
        listen(b, "change", move |_: Event| update_policy_ui(&a.ui));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.policy, "change", move |_: Event| {
            update_policy_ui(&a.ui)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.rho, "input", move |_: Event| update_rho_label(&a.ui));
    }
    {
        let a = Rc::clone(app);
        on_file_chosen(&ui.upload, move |file| upload(&a, file));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.run_pick, "change", move |_: Event| {
            reset_time(&a);
            draw_view(&a);
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.heat, "change", move |_: Event| draw_view(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.canvas, "mousemove", move |ev: MouseEvent| {
            hover(&a, &ev)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.canvas, "mouseleave", move |_: MouseEvent| {
            a.ui.tip.set_hidden(true)
        });
    }
    if let Some(w) = web_sys::window() {
        // A mesh link pasted into the address bar of an open page.
        let a = Rc::clone(app);
        listen(&w, "hashchange", move |_: Event| {
            let hash = web_sys::window()
                .and_then(|w| w.location().hash().ok())
                .unwrap_or_default();
            let h = hash.trim_start_matches('#');
            let busy = a.tab.busy();
            if super::kit::share_link::is_link_of(h, crate::modes::Mode::Mesh)
                && h != a.state.borrow().fragment
                && !busy
            {
                a.state.borrow_mut().fragment = h.to_string();
                open_fragment(&a);
            }
        });
    }
    wire_worm(app);
    png_on_click(&ui.png, "mesh-canvas");
    png_on_click(&ui.png_sweep, "mesh-chart-sweep");
    png_on_click(&ui.png_util, "mesh-chart-util");
}

// ---- the mesh view ----
