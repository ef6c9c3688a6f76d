//! The browser front end (wasm32 only; the only module that uses `web-sys`).
//!
//! * [`app`] — the app shell (`app` binary): the panic report, the registry pickers, the tabs;
//!   it starts every tab.
//! * [`page`] — the flat tab: the experiment form, progress, results table, downloads, share
//!   links, charts, sweeps (one file per concern).
//! * [`kit`] — panel pieces shared by the tabs: one `by_id`, the error box with inline
//!   field marks, downloads, the Run/Cancel controls. Each mode's form → experiments step is
//!   the pure [`crate::form`] (tested natively).
//! * [`chart`] — the result charts (plotters on `<canvas>`); [`chart_access`] — every chart's
//!   data as a table on request and its points reachable by the arrow keys, with tooltips.
//! * [`worker`] — the simulation worker (`worker` binary): runs any mode's experiment in slices
//!   through its [`crate::modes::ModeRun`], exactly as the CLI does.
//! * [`protocol`] — the JSON messages between the two: one `Run { envelope }` /
//!   `Done { report }` pair for every mode.
//! * [`share`] — share links (the experiment in the URL fragment).
//! * [`modes`] — the Flat machine / 2D mesh / Grid / Moldable jobs / Exercises tabs.
//! * [`dom`] — listeners, HTML escaping, download URLs shared by the pages.
//! * [`format`] — number formatting (re-exported from [`crate::form::format`]).
//! * [`worker_link`] — starting a worker from a page and posting to it.
//! * [`bench_worker`] — the worker's bench message: the phases of a run timed as
//!   `schedlab bench phases` times them natively (scripts/bench-browser.mjs).
//! * [`grid_page`], [`grid_worker`], [`grid_chart`] — the Grid mode (Ernemann et al.): its panel,
//!   its worker side (single sites vs job sharing in slices) and its charts.
//! * [`moldable_page`], [`moldable_worker`], [`moldable_chart`] — the moldable mode (Srinivasan
//!   et al.): its form, results, Gantt chart and share links; its runs in the worker (one strategy
//!   after the other, in slices); the % change per weight category and the Gantt chart.
//! * [`mesh_page`], [`mesh_view`], [`mesh_worker`] — the 2D-mesh mode: its form, results and
//!   share links; the mesh canvas (jobs, I/O nodes, link-contention heatmap) and its charts;
//!   its runs in the worker.
//! * [`replay_panel`] — the step-by-step replay of a flat run, on the flat page and
//!   in the Exercises mode.
//! * [`exercise_page`], [`exercise_worker`] — the Exercises mode: the shipped
//!   exercises, exercise files and `#ex=` links, questions checked against the simulation,
//!   answers kept in the browser and exported; its runs and solutions in the worker.
//!
//! Trunk builds both binaries from `index.html` (see `Trunk.toml`); the worker is loaded from
//! `worker_loader.js`, the shim Trunk writes for `data-loader-shim`.

pub mod app;
pub mod bench_worker;
pub mod chart;
pub mod chart_access;
pub mod compare_worker;
pub mod dom;
pub mod exercise_page;
pub mod exercise_worker;
pub mod gantt_view;
pub use crate::form::format;
pub mod grid_chart;
pub mod grid_page;
pub mod grid_worker;
pub mod kit;
pub mod mesh_page;
pub mod mesh_view;
pub mod mesh_worker;
pub mod modes;
pub mod moldable_chart;
pub mod moldable_page;
pub mod moldable_worker;
pub mod page;
pub mod protocol;
pub mod replay_panel;
pub mod replay_worker;
pub mod share;
pub mod worker;
pub mod worker_core;
pub mod worker_link;
