//! wasm32 tests of the moldable mode (Srinivasan et al.), run in headless Chromium by `scripts/test.sh`:
//! the worker's moldable messages survive JSON; the worker's sliced comparison has the numbers
//! of `run_moldable_with` (what `schedlab moldable` prints) with one schedule per run, and
//! reports progress over every run; a cancelled comparison stops; moldable share links
//! round-trip through the one envelope.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use schedlab::form::moldable::preset_moldable;
use schedlab::limits::Limits;
use schedlab::modes::envelope::Envelope;
use schedlab::modes::flat::spec::WorkloadSpec;
use schedlab::modes::moldable::link::MoldableShare;
use schedlab::modes::moldable::run::run_moldable_with;
use schedlab::policy::moldable::MoldableStrategyKind;
use schedlab::web::moldable_worker;
use schedlab::web::protocol::{FromWorker, ToWorker};
use schedlab::web::worker;
use schedlab::workload::synthetic::SyntheticModel;
use wasm_bindgen_test::wasm_bindgen_test;

/// The preset on `jobs` jobs, rigid conservative among the strategies too.
fn small(jobs: usize) -> MoldableShare {
    let mut s = preset_moldable();
    if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut s.experiment.workload {
        p.jobs = jobs;
    }
    s.strategies
        .insert(1, MoldableStrategyKind::RigidConservative);
    s
}

#[wasm_bindgen_test]
fn moldable_messages_and_links_round_trip() {
    let run = ToWorker::run(4, Envelope::Moldable(small(100)), vec!["t.swf".into()]);
    assert_eq!(ToWorker::from_json(&run.to_json()).unwrap(), run);
    let env = Envelope::Moldable(small(100));
    let fragment = env.to_fragment();
    assert!(fragment.starts_with("e="), "{fragment}");
    assert_eq!(Envelope::from_fragment(&fragment).unwrap(), Some(env));
}

#[wasm_bindgen_test]
async fn the_worker_comparison_has_the_numbers_of_the_cli() {
    let share = small(300);
    let progress = RefCell::new(Vec::new());
    worker::activate(7);
    let report = moldable_worker::run_sliced(7, &share, None, &|m: &FromWorker| {
        if let FromWorker::Progress {
            completed, total, ..
        } = m
        {
            progress.borrow_mut().push((*completed, *total));
        }
    })
    .await
    .unwrap()
    .unwrap();
    let direct =
        run_moldable_with(&share.experiment, &share.strategies, None, &Limits::DEFAULT).unwrap();
    assert_eq!(report.report, direct);
    // The reference, then one schedule per strategy, in the strategies' order.
    let names: Vec<&str> = report
        .schedules
        .iter()
        .map(|s| s.strategy.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "rigid_conservative",
            "rigid_easy",
            "rigid_conservative",
            "submit_greedy",
            "submit_fair_share",
            "schedule_fair_share",
            "combined"
        ]
    );
    assert!(report.schedules.iter().all(|s| s.jobs.len() == 300));
    assert_eq!(report.schedules[0].jobs, report.schedules[2].jobs);
    // Progress: 6 runs (rigid conservative once) of 300 jobs, never past the total.
    let p = progress.borrow();
    assert!(!p.is_empty());
    assert!(p.iter().all(|&(c, t)| t == 6 * 300 && c <= t), "{p:?}");
    assert!(p.windows(2).all(|w| w[0].0 <= w[1].0), "{p:?}");
    // Re-encoded as the worker posts it.
    let done = FromWorker::Done {
        id: 7,
        report: Box::new(report.into()),
    };
    assert_eq!(FromWorker::from_json(&done.to_json()).unwrap(), done);
}

#[wasm_bindgen_test]
async fn a_cancelled_comparison_stops() {
    let share = small(200);
    worker::activate(9);
    worker::cancel(Some(9));
    let out = moldable_worker::run_sliced(9, &share, None, &|_: &FromWorker| {})
        .await
        .unwrap();
    assert!(out.is_none());
}
