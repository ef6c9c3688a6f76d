//! The worker side of the 2D-mesh mode: runs one mesh experiment (Ababneh & Bani-Mohammad §4–5
//! window-based scheduling of submeshes, or Mache et al. §3–4 non-contiguous allocation under
//! the contention model) with the functions `schedlab mesh` uses ([`crate::modes::mesh::run`]), in
//! slices as the other modes' runs: it yields to the event loop between slices, posts
//! [`FromWorker::Progress`] at most every 100 ms and stops at a slice boundary when cancelled.
//! A finished run is a [`FromWorker::MeshDone`] whose per-job data is cut to
//! [`MAX_MESH_JOBS`] jobs.

use super::protocol::{FromWorker, MeshReport, ToWorker, MAX_MESH_JOBS};
use super::worker_core::{activate, post, post_outcome, step_in_slices, stored_trace, NamedTrace};
use crate::limits::Limits;
use crate::modes::flat::run::TraceInput;
use crate::modes::mesh::run::{
    measure_mesh, mesh_jobs_csv, mesh_network, node_allocator, prepare_mesh, MeshRunOutput,
    MeshStepper,
};
use crate::modes::mesh::spec::MeshExperiment;

/// Instants simulated between two clock readings: few, since one instant of a non-contiguous
/// allocator on a large mesh can take milliseconds.
const INSTANTS_PER_CHECK: usize = 8;

/// Handles a [`ToWorker::RunMesh`] (other messages are ignored): makes its `id` the active run
/// (replacing any other), runs it in slices and posts its outcome.
pub fn handle(msg: ToWorker) {
    if let ToWorker::RunMesh {
        id,
        experiment,
        trace,
        lite,
    } = msg
    {
        activate(id);
        wasm_bindgen_futures::spawn_local(async move {
            let outcome = match stored_trace(trace.as_deref()) {
                Ok(stored) => run_sliced(id, &experiment, stored, lite, &post).await,
                Err(e) => Err(e),
            };
            post_outcome(id, outcome, |report| FromWorker::MeshDone { id, report });
        });
    }
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
    let input = trace
        .as_ref()
        .map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let (workload, transform, shapes) =
        prepare_mesh(exp, input, &Limits::DEFAULT).map_err(|e| e.to_string())?;
    let net = mesh_network(exp).map_err(|e| e.to_string())?;
    let mut alloc = node_allocator(exp, &net);
    let mut stepper = MeshStepper::new(
        exp,
        &net,
        &workload,
        alloc
            .as_deref_mut()
            .map(|a| a as &mut dyn crate::alloc::node::NodeAllocator),
    )
    .map_err(|e| e.to_string())?;
    let progress = |s: &MeshStepper<'_>| {
        let p = s.progress();
        report(&FromWorker::Progress {
            id,
            completed: p.completed,
            total: p.total,
            sim_time: p.now,
        });
    };
    progress(&stepper);
    let mut last_progress = js_sys::Date::now();
    let step = |s: &mut MeshStepper<'_>| {
        s.step_instants(INSTANTS_PER_CHECK)
            .map_err(|e| e.to_string())
    };
    if !step_in_slices(id, &mut stepper, step, &progress, &mut last_progress).await? {
        return Ok(None);
    }
    progress(&stepper);
    let run = stepper.finish().map_err(|e| e.to_string())?;
    let output = measure_mesh(exp, &net, &workload, transform, shapes, run);
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
