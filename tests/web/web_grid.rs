//! wasm32 tests of the Grid mode (Ernemann et al.), run in headless Chromium by `scripts/test.sh`:
//! the worker's sliced grid run gives exactly the numbers of `run_comparison` (what
//! `schedlab grid` prints), stops when cancelled, the grid messages survive a JSON round trip
//! and a grid share link restores its experiment.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use schedlab::modes::flat::spec::WorkloadSpec;
use schedlab::modes::grid::link::GridShare;
use schedlab::modes::grid::run::run_comparison;
use schedlab::modes::grid::spec::preset_global_grid;
use schedlab::modes::grid::GridExperiment;
use schedlab::modes::Envelope;
use schedlab::web::grid_page::{fragment_of, parse_fragment};
use schedlab::web::grid_worker::run_grid_sliced;
use schedlab::web::protocol::{FromWorker, GridReport, PageReport, ToWorker};
use schedlab::web::worker;
use schedlab::workload::synthetic::SyntheticModel;
use wasm_bindgen_test::wasm_bindgen_test;

fn small_preset(jobs: usize) -> GridExperiment {
    let mut exp = preset_global_grid();
    for s in &mut exp.sites {
        if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut s.workload {
            p.jobs = jobs;
        }
    }
    exp
}

#[wasm_bindgen_test]
async fn sliced_grid_run_matches_run_comparison() {
    let exp = small_preset(2000);
    let whole = run_comparison(&exp, |_| None).expect("comparison runs");
    let progress = RefCell::new(Vec::new());
    worker::activate(11);
    let report = run_grid_sliced(11, &exp, &[], &|m| progress.borrow_mut().push(m.clone()))
        .await
        .expect("sliced grid run succeeds")
        .expect("not cancelled");
    assert_eq!(report.comparison, whole);
    assert!(matches!(
        progress.into_inner().last(),
        Some(FromWorker::Progress {
            id: 11,
            stage: 1,
            completed: 16000,
            total: 16000,
            ..
        })
    ));
}

#[wasm_bindgen_test]
async fn cancelled_grid_run_stops() {
    let exp = small_preset(100_000);
    worker::activate(12);
    wasm_bindgen_futures::spawn_local(async { worker::cancel(Some(12)) });
    let outcome = run_grid_sliced(12, &exp, &[], &|_| {}).await;
    assert_eq!(outcome, Ok(None));
}

#[wasm_bindgen_test]
fn grid_messages_and_links_round_trip() {
    let exp = small_preset(500);
    let msg = ToWorker::run(
        3,
        Envelope::Grid(GridShare::new(exp.clone())),
        vec!["CTC.swf.gz".into()],
    );
    assert_eq!(ToWorker::from_json(&msg.to_json()), Ok(msg));
    let cmp = run_comparison(&exp, |_| None).expect("comparison runs");
    let done = FromWorker::Done {
        id: 3,
        report: Box::new(PageReport::Grid(GridReport {
            comparison: cmp,
            wall_ms: 1.5,
        })),
    };
    // (The alignment's jobs are not sent: compare what travels.)
    let text = done.to_json();
    assert_eq!(FromWorker::from_json(&text).map(|m| m.to_json()), Ok(text));
    let fragment = fragment_of(&exp);
    assert!(fragment.starts_with("e="));
    assert_eq!(
        parse_fragment(&format!("#{fragment}")),
        Ok(Some(exp.clone()))
    );
    // An old `#g=` link still opens.
    let old = schedlab::modes::grid::link::GridShare::new(exp.clone()).to_fragment();
    assert!(old.starts_with("g="));
    assert_eq!(parse_fragment(&format!("#{old}")), Ok(Some(exp)));
    assert_eq!(parse_fragment("#x=abc"), Ok(None));
    let cut = &fragment[..fragment.len() - 3];
    assert!(parse_fragment(cut).is_err());
}
