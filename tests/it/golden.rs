//! The default experiment of the web app (Lublin–Feitelson model with its defaults, EASY,
//! seed 42) against its golden summary, `tests/golden/default_summary.json`. The wasm test
//! `tests/web/web_determinism.rs` checks the same file in headless Chromium, so together they
//! pin native and wasm32 to bit-identical numbers.
//!
//! After an intended change of the numbers, regenerate the file with
//! `SCHEDLAB_BLESS=1 cargo test --test it golden` and review the diff.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::modes::flat::run::run_experiment;
use schedlab::modes::flat::spec::Experiment;
use schedlab::modes::flat::spec::ExperimentFile;

const EXPERIMENT: &str = include_str!("../golden/default_experiment.json");
const GOLDEN_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/default_summary.json"
);

#[test]
fn default_summary_matches_golden() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let output = run_experiment(&exp, None).expect("default experiment runs");
    let json = serde_json::to_string(&output.summary).expect("summary serialises");
    if std::env::var("SCHEDLAB_BLESS").as_deref() == Ok("1") {
        std::fs::write(GOLDEN_PATH, format!("{json}\n")).expect("write the golden file");
        eprintln!("blessed {GOLDEN_PATH}");
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN_PATH).unwrap_or_default();
    assert_eq!(
        json,
        golden.trim_end(),
        "summary of the default experiment differs from {GOLDEN_PATH}; if the change is \
         intended, rerun with SCHEDLAB_BLESS=1 and review the diff"
    );
}

/// Compares `json` with `tests/golden/NAME.json` (or writes it under `SCHEDLAB_BLESS=1`).
fn check_golden(name: &str, json: &str) {
    let path = format!("{}/tests/golden/{name}.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("SCHEDLAB_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, format!("{json}\n")).expect("write the golden file");
        eprintln!("blessed {path}");
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        json.trim_end(),
        golden.trim_end(),
        "{name} differs from {path}; if the change is intended, rerun with SCHEDLAB_BLESS=1 \
         and review the diff"
    );
}

/// Every mesh preset of the page (window scheduling, contention, binary-tree allocation): its
/// summary and layout metrics, pinned.
#[test]
fn mesh_presets_match_golden() {
    use schedlab::modes::mesh::presets::{preset_binary_tree, preset_contention, preset_window};
    use schedlab::modes::mesh::run::run_mesh;
    for (name, exp) in [
        ("mesh_window", preset_window()),
        ("mesh_contention", preset_contention(0.6)),
        ("mesh_binary_tree", preset_binary_tree()),
    ] {
        let out = run_mesh(&exp, None).expect("preset runs");
        let json = serde_json::to_string(&(&out.summary, &out.mesh)).expect("serialises");
        check_golden(name, &json);
    }
}

/// The grid preset (sites across time zones, single vs job sharing): both runs, pinned.
#[test]
fn grid_preset_matches_golden() {
    let exp = schedlab::modes::grid::spec::preset_global_grid();
    let cmp = schedlab::modes::grid::run::run_comparison(&exp, |_| None).expect("preset runs");
    check_golden("grid_global", &cmp.to_json());
}

/// The moldable preset (fair-share schemes and the combined scheme against rigid
/// conservative): every strategy's row, pinned.
#[test]
fn moldable_preset_matches_golden() {
    let share = schedlab::form::moldable::preset_moldable();
    let report = schedlab::modes::moldable::run::run_moldable_with(
        &share.experiment,
        &share.strategies,
        None,
        &schedlab::limits::Limits::DEFAULT,
    )
    .expect("preset runs");
    check_golden(
        "moldable_preset",
        &schedlab::modes::moldable::run::results_csv(&report),
    );
}
