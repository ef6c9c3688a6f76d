//! The default experiment of the web app (Lublin–Feitelson model with its defaults, EASY,
//! seed 42) against its golden summary, `tests/golden/default_summary.json`. The wasm test
//! `tests/web_determinism.rs` checks the same file in headless Chromium, so together they
//! pin native and wasm32 to bit-identical numbers.
//!
//! After an intended change of the numbers, regenerate the file with
//! `SCHEDLAB_BLESS=1 cargo test --test golden` and review the diff.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::config::Experiment;
use schedlab::config::ExperimentFile;
use schedlab::run::run_experiment;

const EXPERIMENT: &str = include_str!("golden/default_experiment.json");
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
