//! The worker side of the Exercises mode: simulates the runs of an exercise,
//! each [`RunRequest`] through [`RunRequest::run`] — the functions `schedlab exercise` uses —
//! and posts a [`FromWorker::ExerciseDone`]. The page parses and validates the exercise and
//! solves its questions from these results ([`crate::exercise::Exercise::solve_from`]), so the
//! worker needs no exercise or envelope parser. Exercises are tiny (a handful of jobs per run),
//! so the runs are one call.

use super::protocol::{FromWorker, ToWorker};
use super::worker_core::post;
use crate::exercise::{RunRequest, RunResult};

/// Handles a [`ToWorker::RunExercise`] (other messages are ignored).
pub fn handle(msg: ToWorker) {
    if let ToWorker::RunExercise { id, runs } = msg {
        post(&match run_all(&runs) {
            Ok(runs) => FromWorker::ExerciseDone { id, runs },
            Err(message) => FromWorker::Error {
                id: Some(id),
                message,
                fatal: false,
            },
        });
    }
}

/// Every run done, in order; the error names the run's key (`runs.easy: …`).
pub fn run_all(runs: &[RunRequest]) -> Result<Vec<RunResult>, String> {
    runs.iter()
        .map(|r| r.run().map_err(|m| format!("{}: {m}", r.key)))
        .collect()
}
