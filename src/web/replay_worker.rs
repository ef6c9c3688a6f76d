//! The worker's half of the replay of runs of any size ([`ToWorker::ReplayWindow`]): the
//! kept run's jobs are prepared again and its experiment simulated again up to the end of the
//! window around the time asked, recording only the explanations that the window needs
//! ([`crate::sim::replay_window`]); the simulation holds the one copy of the jobs and gives it
//! back to the window. The window — its jobs' records and those explanations — crosses to the
//! page. Nothing of it is kept.
//!
//! [`ToWorker::ReplayWindow`]: super::protocol::ToWorker::ReplayWindow

use super::compare_worker::rebuild;
use super::worker_core::kept_run;
use crate::modes::flat::run;
use crate::sim::replay_window::{self, ReplayWindow};

/// The window of kept run `id`'s replay around `t` (its first arrival when `None`).
pub fn window(id: u32, t: Option<f64>) -> Result<ReplayWindow, String> {
    let r = kept_run(id).ok_or(
        "That run is no longer kept by the simulator (it keeps the last few runs): run the \
         experiment again to replay it.",
    )?;
    let mut prepared = rebuild(&r)?;
    let jobs = &prepared.workload.jobs;
    let t = t
        .filter(|t| t.is_finite())
        .unwrap_or_else(|| jobs.first().map_or(0.0, |j| j.submit));
    let outcomes = r.outcomes.wide();
    let bounds = replay_window::bounds(jobs, &outcomes, t);
    // The simulation takes the one copy of the jobs and gives them back to the window.
    let sim = run::simulation_taking(&r.experiment, &mut prepared, false);
    replay_window::window(sim, &outcomes, prepared.procs, bounds).map_err(|e| e.to_string())
}
