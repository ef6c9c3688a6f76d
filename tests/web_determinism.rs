//! wasm32 tests, run in headless Chromium by `scripts/test.sh` (wasm-bindgen-test-runner):
//! the default experiment gives the golden summary bit for bit (as natively, see
//! `tests/golden.rs`); the worker's sliced run gives the same numbers as a run in one go and
//! stops when cancelled; the worker protocol messages survive a JSON round trip.
#![cfg(target_arch = "wasm32")]

use schedlab::config::Experiment;
use schedlab::run::run_experiment;
use std::cell::RefCell;

use schedlab::web::protocol::{FromWorker, RunReport, ToWorker, TraceInfo};
use schedlab::web::worker;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const EXPERIMENT: &str = include_str!("golden/default_experiment.json");
const GOLDEN: &str = include_str!("golden/default_summary.json");

#[wasm_bindgen_test]
fn default_summary_matches_golden() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let output = run_experiment(&exp, None).expect("default experiment runs");
    let json = serde_json::to_string(&output.summary).expect("summary serialises");
    assert_eq!(json, GOLDEN.trim_end());
}

#[wasm_bindgen_test]
async fn sliced_run_matches_run_experiment() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let whole = run_experiment(&exp, None).expect("default experiment runs");
    let progress = RefCell::new(Vec::new());
    worker::activate(1);
    let report = worker::run_sliced(1, &exp, None, &|m| progress.borrow_mut().push(m.clone()))
        .await
        .expect("sliced run succeeds")
        .expect("not cancelled");
    assert_eq!(report.output.summary, whole.summary);
    assert_eq!(report.output.categories, whole.categories);
    assert!(report.jobs.is_none(), "10,000 jobs: no per-job records");
    let progress = progress.into_inner();
    assert!(matches!(
        progress.last(),
        Some(FromWorker::Progress {
            id: 1,
            completed: 10000,
            total: 10000,
            ..
        })
    ));
}

#[wasm_bindgen_test]
async fn cancelled_run_stops() {
    let exp = Experiment::from_json(
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 200000}},
            "transforms": {"load_factor": 2}, "policy": "conservative", "seed": 1}"#,
    )
    .expect("experiment parses");
    worker::activate(2);
    // Runs before the first slice boundary: the run must notice at its first yield.
    wasm_bindgen_futures::spawn_local(async { worker::cancel(Some(2)) });
    let outcome = worker::run_sliced(2, &exp, None, &|_| {}).await;
    assert_eq!(outcome, Ok(None));
}

#[wasm_bindgen_test]
fn protocol_messages_round_trip() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let to_worker = [
        ToWorker::Trace {
            name: "NASA-iPSC-1993-3.1-cln.swf.gz".into(),
        },
        ToWorker::Run {
            id: 7,
            experiment: Box::new(exp.clone()),
            trace: None,
        },
        ToWorker::Run {
            id: 8,
            experiment: Box::new(exp.clone()),
            trace: Some("x.swf".into()),
        },
        ToWorker::Cancel { id: Some(7) },
        ToWorker::Cancel { id: None },
    ];
    for m in &to_worker {
        assert_eq!(&ToWorker::from_json(&m.to_json()).unwrap(), m);
    }

    let mut output = run_experiment(&exp, None).expect("default experiment runs");
    let jobs = Some(output.jobs.iter().take(3).cloned().collect::<Vec<_>>());
    // RunOutput does not serialise its per-job records and timeline; the report carries them.
    output.jobs.clear();
    output.timeline.clear();
    let from_worker = [
        FromWorker::Ready {
            version: "0.1.0".into(),
        },
        FromWorker::TraceLoaded(TraceInfo {
            name: "t.swf".into(),
            bytes: 1234,
            jobs: 10,
            dropped: 1,
            max_job_procs: 64,
            header_procs: Some(128),
        }),
        FromWorker::Progress {
            id: 7,
            completed: 5,
            total: 10,
            sim_time: 1234.5,
        },
        FromWorker::Done {
            id: 7,
            report: Box::new(RunReport {
                output,
                jobs,
                wall_ms: 12.25,
            }),
        },
        FromWorker::Cancelled { id: 7 },
        FromWorker::Error {
            id: None,
            message: "t.swf: empty file".into(),
            fatal: false,
        },
    ];
    for m in &from_worker {
        assert_eq!(&FromWorker::from_json(&m.to_json()).unwrap(), m);
    }
    assert!(ToWorker::from_json(r#"{"type":"launch"}"#).is_err());
}
