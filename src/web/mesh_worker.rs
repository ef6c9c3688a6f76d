//! The worker side of the 2D-mesh mode: runs one mesh experiment (Ababneh & Bani-Mohammad §4–5
//! window-based scheduling of submeshes, or Mache et al. §3–4 non-contiguous allocation under
//! the contention model) through the mesh mode's [`crate::modes::ModeRun`] — the functions
//! `schedlab mesh` uses — in slices as every mode runs
//! ([`super::worker_core::run_mode_sliced`]): it yields to the event loop between slices,
//! posts [`FromWorker::Progress`] at most every 100 ms and stops at a slice boundary when
//! cancelled. A finished run is a [`FromWorker::Done`] whose per-job data is cut to
//! [`MAX_MESH_JOBS`] jobs.

use super::protocol::{FromWorker, MeshReport, MAX_MESH_JOBS};
use super::worker_core::{activate, post, post_outcome, run_mode_sliced, stored_trace, NamedTrace};
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::mesh::run::{mesh_jobs_csv, MeshRunOutput};
use crate::modes::mesh::spec::MeshExperiment;
use crate::modes::mesh::Mesh;

/// Instants simulated between two clock readings: few, since one instant of a non-contiguous
/// allocator on a large mesh can take milliseconds.
const INSTANTS_PER_CHECK: usize = 8;

/// Starts a mesh [`ToWorker::Run`]: makes `id` the active run (replacing any other), runs
/// `experiment` in slices and posts its outcome.
pub fn start(id: u32, experiment: MeshExperiment, trace: Option<String>, lite: bool) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = match stored_trace(trace.as_deref()) {
            Ok(stored) => run_sliced(id, &experiment, stored, lite, &post).await,
            Err(e) => Err(e),
        };
        post_outcome(id, outcome);
    });
}

/// Runs mesh experiment `exp` (on the stored trace, if any) in slices, passing progress to
/// `report`. `Ok(None)` when cancelled. The numbers are those of
/// [`crate::modes::mesh::run::run_mesh`].
pub async fn run_sliced(
    id: u32,
    exp: &MeshExperiment,
    trace: Option<NamedTrace>,
    lite: bool,
    report: &dyn Fn(&FromWorker),
) -> Result<Option<MeshReport>, String> {
    let t0 = js_sys::Date::now();
    let mut traces = |_: &WorkloadSpec| {
        Ok(trace
            .as_ref()
            .map(|(name, bytes)| TraceInput::from_bytes(name, bytes)))
    };
    let Some(output) =
        run_mode_sliced::<Mesh>(id, exp, &mut traces, INSTANTS_PER_CHECK, report).await?
    else {
        return Ok(None);
    };
    let mut report = page_report(output, lite);
    report.wall_ms = js_sys::Date::now() - t0;
    Ok(Some(report))
}

/// The report of one mesh run to the end in one call (the bench message's whole-path timing).
pub fn report(exp: &MeshExperiment, trace: Option<&str>, lite: bool) -> Result<MeshReport, String> {
    let t0 = js_sys::Date::now();
    let stored = stored_trace(trace)?;
    let input = stored
        .as_ref()
        .map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let output = crate::modes::mesh::run::run_mesh(exp, input).map_err(|e| e.to_string())?;
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
