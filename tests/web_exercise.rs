//! wasm32 tests of the Exercises mode (issue 14 item 3), run in headless Chromium by
//! `scripts/test.sh`: the worker's exercise messages survive JSON, and the worker runs and
//! solves a shipped exercise exactly as `Exercise::work` does (the answers and the replay
//! of its EASY run at the backfill).
#![cfg(target_arch = "wasm32")]

use schedlab::exercise::{catalog, Expected};
use schedlab::sim::replay::Replay;
use schedlab::web::exercise_worker;
use schedlab::web::protocol::{FromWorker, ToWorker};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn exercise_is_run_and_solved_in_the_worker() {
    let (name, text) = catalog::SHIPPED[0];
    let worked = exercise_worker::work(text, name).expect("works");
    // Job 3's start under EASY: 2 s.
    assert_eq!(
        worked.solutions[0].expected,
        Expected::Number {
            value: 2.0,
            tolerance: 0.0
        }
    );
    let easy = worked.runs.iter().find(|r| r.name == "easy").expect("easy");
    let f = easy.flat.clone().expect("flat run data");
    let s = Replay::new(f.procs, f.jobs, f.explanations).state_at(2.0);
    let h = s.head.expect("blocked head");
    assert_eq!((h.id, h.shadow, h.extra), (2, Some(10.0), Some(0)));
    // The messages round-trip.
    let msg = ToWorker::RunExercise {
        id: 4,
        exercise: text.to_string(),
        source: name.to_string(),
    };
    assert_eq!(ToWorker::from_json(&msg.to_json()).unwrap(), msg);
    let done = FromWorker::ExerciseDone {
        id: 4,
        worked: Box::new(worked),
    };
    assert_eq!(FromWorker::from_json(&done.to_json()).unwrap(), done);
    // A broken exercise: the error names the source and the key.
    let e = exercise_worker::work(&text.replace("\"format\": 1", "\"format\": 9"), "t.json")
        .unwrap_err();
    assert!(e.starts_with("t.json: format: "), "{e}");
}
