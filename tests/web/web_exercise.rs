//! wasm32 tests of the Exercises mode, run in headless Chromium by
//! `scripts/test.sh`: the worker's exercise messages survive JSON, and the worker's runs solved
//! by the page give what `Exercise::work` gives (the answers and the replay of the EASY run at
//! the backfill).
#![cfg(target_arch = "wasm32")]

use schedlab::exercise::{catalog, Exercise, Expected};
use schedlab::sim::replay::Replay;
use schedlab::web::exercise_worker;
use schedlab::web::protocol::{FromWorker, ToWorker};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn exercise_runs_in_the_worker_and_is_solved_by_the_page() {
    let (name, text) = catalog::SHIPPED[0];
    let ex = Exercise::from_json(text, name).expect("valid");
    let requests = ex.run_requests();
    // The messages round-trip.
    let msg = ToWorker::RunExercise {
        id: 4,
        runs: requests.clone(),
    };
    assert_eq!(ToWorker::from_json(&msg.to_json()).unwrap(), msg);
    let runs = exercise_worker::run_all(&requests).expect("runs");
    let done = FromWorker::ExerciseDone {
        id: 4,
        runs: runs.clone(),
    };
    assert_eq!(FromWorker::from_json(&done.to_json()).unwrap(), done);
    let solutions = ex.solve_from(name, &runs).expect("solves");
    assert_eq!(solutions, ex.solve(name).expect("solves natively"));
    // Job 3's start under EASY: 2 s.
    assert_eq!(
        solutions[0].expected,
        Expected::Number {
            value: 2.0,
            tolerance: 0.0
        }
    );
    let easy = runs.iter().find(|r| r.name == "easy").expect("easy");
    let f = easy.flat.clone().expect("flat run data");
    let s = Replay::new(f.procs, f.jobs, f.explanations).state_at(2.0);
    let h = s.head.expect("blocked head");
    assert_eq!((h.id, h.shadow, h.extra), (2, Some(10.0), Some(0)));
    // A run that cannot be done: the error names its key.
    let mut bad = requests.clone();
    bad[0].workloads.clear();
    let e = exercise_worker::run_all(&bad).unwrap_err();
    assert!(e.starts_with("runs.easy: "), "{e}");
}
