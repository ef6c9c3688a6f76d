//! Every mode's presets, run through the worker's own sliced paths, give the numbers pinned in
//! `tests/golden/` — the files `tests/it/golden.rs` checks natively with the functions the CLI
//! calls. Together: the worker and the CLI agree, number for number, in every mode.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test;

use schedlab::form::moldable::preset_moldable;
use schedlab::modes::grid::spec::preset_global_grid;
use schedlab::modes::mesh::presets::{preset_binary_tree, preset_contention, preset_window};
use schedlab::modes::moldable::run::results_csv;
use schedlab::web::grid_worker::run_grid_sliced;
use schedlab::web::{mesh_worker, moldable_worker, worker};

const MESH_WINDOW: &str = include_str!("../golden/mesh_window.json");
const MESH_CONTENTION: &str = include_str!("../golden/mesh_contention.json");
const MESH_BINARY_TREE: &str = include_str!("../golden/mesh_binary_tree.json");
const GRID_GLOBAL: &str = include_str!("../golden/grid_global.json");
const MOLDABLE_PRESET: &str = include_str!("../golden/moldable_preset.json");

#[wasm_bindgen_test]
async fn mesh_presets_in_the_worker_match_the_native_golden_files() {
    for (id, golden, exp) in [
        (41, MESH_WINDOW, preset_window()),
        (42, MESH_CONTENTION, preset_contention(0.6)),
        (43, MESH_BINARY_TREE, preset_binary_tree()),
    ] {
        worker::activate(id);
        let report = mesh_worker::run_sliced(id, &exp, None, false, &|_| {})
            .await
            .expect("the preset runs")
            .expect("not cancelled");
        let json = serde_json::to_string(&(&report.output.summary, &report.output.mesh))
            .expect("serialises");
        assert_eq!(json, golden.trim_end(), "mesh preset {id}");
    }
}

#[wasm_bindgen_test]
async fn a_cancelled_mesh_run_stops() {
    let exp = preset_contention(0.6);
    worker::activate(44);
    worker::cancel(Some(44));
    let out = mesh_worker::run_sliced(44, &exp, None, false, &|_| {})
        .await
        .expect("no error");
    assert!(out.is_none());
}

#[wasm_bindgen_test]
async fn the_grid_preset_in_the_worker_matches_the_native_golden_file() {
    let exp = preset_global_grid();
    worker::activate(45);
    let report = run_grid_sliced(45, &exp, &[], &|_| {})
        .await
        .expect("the preset runs")
        .expect("not cancelled");
    assert_eq!(report.comparison.to_json(), GRID_GLOBAL.trim_end());
}

#[wasm_bindgen_test]
async fn the_moldable_preset_in_the_worker_matches_the_native_golden_file() {
    let share = preset_moldable();
    worker::activate(46);
    let report = moldable_worker::run_sliced(46, &share, None, &|_| {})
        .await
        .expect("the preset runs")
        .expect("not cancelled");
    assert_eq!(
        results_csv(&report.report).trim_end(),
        MOLDABLE_PRESET.trim_end()
    );
}
