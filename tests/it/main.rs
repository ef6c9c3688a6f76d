//! Every native test in one binary (one link instead of one per file): a module per concern.
//! The wasm-bindgen tests are `tests/web/`; the browser suites `tests/e2e/`.
#![cfg(not(target_arch = "wasm32"))]

mod architecture;
mod binary_tree;
mod cli;
mod common;
mod exercise_draft;
mod exercise_page;
mod exercises;
mod explain;
mod form;
mod fuzz;
mod gantt;
mod golden;
mod grid;
mod grid_cli;
mod invariants;
mod layering;
mod mesh;
mod mesh_run;
mod modes;
mod moldable;
mod naive;
mod papers;
mod policy_axes;
mod properties;
mod replay;
mod replay_window;
mod schedules;
mod sweep;
mod swf;
mod synthetic;
mod transform;
mod untrusted_input;
mod window;
mod wormhole;
mod wormhole_mesh;
