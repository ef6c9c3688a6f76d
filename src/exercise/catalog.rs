//! The shipped exercises (`www/exercises/*.json`), compiled in with
//! `include_str!` so the page can list and open them without fetching; `tests/it/exercises.rs`
//! solves every one of them against the simulation.

use super::{Exercise, ExerciseError};

/// (file name, text) of every shipped exercise, in teaching order.
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "01-fcfs-vs-easy.json",
        include_str!("../../www/exercises/01-fcfs-vs-easy.json"),
    ),
    (
        "02-easy-vs-conservative.json",
        include_str!("../../www/exercises/02-easy-vs-conservative.json"),
    ),
    (
        "03-bad-estimates.json",
        include_str!("../../www/exercises/03-bad-estimates.json"),
    ),
    (
        "04-mesh-fragmentation.json",
        include_str!("../../www/exercises/04-mesh-fragmentation.json"),
    ),
    (
        "05-window-vs-fcfs.json",
        include_str!("../../www/exercises/05-window-vs-fcfs.json"),
    ),
    (
        "06-io-vs-communication.json",
        include_str!("../../www/exercises/06-io-vs-communication.json"),
    ),
    (
        "07-grid-time-zones.json",
        include_str!("../../www/exercises/07-grid-time-zones.json"),
    ),
    (
        "08-load-and-saturation.json",
        include_str!("../../www/exercises/08-load-and-saturation.json"),
    ),
    (
        "09-sjf-starves-a-wide-job.json",
        include_str!("../../www/exercises/09-sjf-starves-a-wide-job.json"),
    ),
    (
        "10-predicted-run-times.json",
        include_str!("../../www/exercises/10-predicted-run-times.json"),
    ),
];

/// (id, title) of every shipped exercise, in order (an exercise that does not parse — which
/// the tests rule out — is left out).
pub fn list() -> Vec<(String, String)> {
    SHIPPED
        .iter()
        .filter_map(|(name, text)| Exercise::from_json(text, name).ok())
        .map(|e| (e.id, e.title))
        .collect()
}

/// The shipped exercise with id `id`, parsed.
pub fn get(id: &str) -> Option<Result<Exercise, ExerciseError>> {
    SHIPPED
        .iter()
        .map(|(name, text)| Exercise::from_json(text, name))
        .find(|e| matches!(e, Ok(e) if e.id == id))
}
