//! The worker side of the 2D-mesh mode: runs one mesh experiment (Ababneh & Bani-Mohammad §4–5 window-based
//! scheduling of submeshes, or Mache et al. §3–4 non-contiguous allocation under the contention
//! model) through [`crate::mesh_run::run_mesh`], exactly as `schedlab mesh` does, and posts a
//! [`FromWorker::MeshDone`] whose per-job data is cut to [`MAX_MESH_JOBS`] jobs.
//!
//! Mesh runs are fast (10,000 jobs in about 0.1 s), so a run is one call; the page runs the
//! allocators of a comparison one after the other and stops sending them when cancelled.

use super::protocol::{FromWorker, MeshReport, ToWorker, MAX_MESH_JOBS};
use super::worker_core::{post, stored_trace};
use crate::mesh_run::{mesh_jobs_csv, run_mesh, MeshExperiment, MeshRunOutput};
use crate::run::TraceInput;

/// Handles a [`ToWorker::RunMesh`] (other messages are ignored).
pub fn handle(msg: ToWorker) {
    if let ToWorker::RunMesh {
        id,
        experiment,
        trace,
        lite,
    } = msg
    {
        run(id, &experiment, trace.as_deref(), lite);
    }
}

/// Runs mesh experiment `exp` (on the stored trace `trace`, if named) and posts the answer.
pub fn run(id: u32, exp: &MeshExperiment, trace: Option<&str>, lite: bool) {
    post(&match report(exp, trace, lite) {
        Ok(report) => FromWorker::MeshDone {
            id,
            report: Box::new(report),
        },
        Err(message) => FromWorker::Error {
            id: Some(id),
            message,
            fatal: false,
        },
    });
}

/// The report of one mesh run (what [`run`] posts).
pub fn report(exp: &MeshExperiment, trace: Option<&str>, lite: bool) -> Result<MeshReport, String> {
    let t0 = js_sys::Date::now();
    let stored = stored_trace(trace)?;
    let input = stored
        .as_ref()
        .map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let output = run_mesh(exp, input).map_err(|e| e.to_string())?;
    let mut report = page_report(output, lite);
    report.wall_ms = js_sys::Date::now() - t0;
    Ok(report)
}

/// What the page gets of a finished mesh run (`wall_ms` left at 0): the per-job CSV of every
/// job and the per-job data cut to [`MAX_MESH_JOBS`] jobs — neither for a `lite` run.
pub fn page_report(mut output: MeshRunOutput, lite: bool) -> MeshReport {
    let total_jobs = output.jobs.len();
    let jobs_csv = if lite {
        String::new()
    } else {
        mesh_jobs_csv(&output)
    };
    let keep = if lite { 0 } else { MAX_MESH_JOBS };
    output.jobs.truncate(keep);
    output.layouts.truncate(keep);
    MeshReport {
        truncated: output.jobs.len() < total_jobs,
        output,
        total_jobs,
        jobs_csv,
        wall_ms: 0.0,
    }
}
