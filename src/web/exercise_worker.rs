//! The worker side of the Exercises mode (issue 14 item 3): runs every run of an exercise and
//! solves its questions with [`crate::exercise::Exercise::work`] — the functions `schedlab
//! exercise` uses — and posts a [`FromWorker::ExerciseDone`]. Exercises are tiny (a handful of
//! jobs per run), so a run is one call.

use super::protocol::{FromWorker, ToWorker};
use super::worker::post;
use crate::exercise::{Exercise, Worked};

/// Handles a [`ToWorker::RunExercise`] (other messages are ignored).
pub fn handle(msg: ToWorker) {
    if let ToWorker::RunExercise {
        id,
        exercise,
        source,
    } = msg
    {
        post(&match work(&exercise, &source) {
            Ok(worked) => FromWorker::ExerciseDone {
                id,
                worked: Box::new(worked),
            },
            Err(message) => FromWorker::Error {
                id: Some(id),
                message,
                fatal: false,
            },
        });
    }
}

/// The exercise `text` (from `source`) parsed, run and solved; the error names the source and
/// the key.
pub fn work(text: &str, source: &str) -> Result<Worked, String> {
    let ex = Exercise::from_json(text, source).map_err(|e| e.to_string())?;
    ex.work(source).map_err(|e| e.to_string())
}
