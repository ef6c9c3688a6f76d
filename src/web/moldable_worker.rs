//! The worker side of the moldable mode (Srinivasan et al. §2–5): prepares the experiment's workload
//! once ([`crate::modes::moldable::run::prepare_moldable`], as `schedlab moldable` does), then runs
//! rigid conservative backfilling (the reference) and every strategy asked for, one after the
//! other, each in slices (as the flat mode's runs): it
//! yields to the event loop between slices, stops at a slice boundary when cancelled and
//! posts [`FromWorker::Progress`] (jobs completed over every run) at most every
//! 100 ms. Every run's invariants are checked as on the CLI.

use super::protocol::{FromWorker, MoldablePageReport};
use super::worker_core::{activate, is_active, post, post_outcome, step_in_slices, stored_trace};
use super::worker_core::{yield_to_event_loop, NamedTrace};
use crate::form::moldable::MAX_GANTT_JOBS;
use crate::limits::Limits;
use crate::modes::flat::run::TraceInput;
use crate::modes::moldable::link::MoldableShare;
use crate::modes::moldable::run::{checked, prepare_moldable, simulation, Comparison};
use crate::modes::moldable::spec::MAX_STRATEGIES;
use crate::policy::moldable::MoldableStrategyKind;
use crate::sim::moldable_engine::MoldableSimulation;

/// Instants simulated between two clock readings.
const INSTANTS_PER_CHECK: usize = 256;

/// Starts a moldable [`super::protocol::ToWorker::Run`]: makes `id` the active run (replacing
/// any other), runs it and posts its outcome.
pub fn start(id: u32, share: MoldableShare, trace: Option<String>) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = match stored_trace(trace.as_deref()) {
            Ok(stored) => run_sliced(id, &share, stored, &post).await,
            Err(e) => Err(e),
        };
        post_outcome(id, outcome);
    });
}

/// Runs the comparison of `share` in slices, passing progress to `report`. `Ok(None)` when
/// cancelled. The numbers are those of [`crate::modes::moldable::run::run_moldable_with`].
pub async fn run_sliced(
    id: u32,
    share: &MoldableShare,
    trace: Option<NamedTrace>,
    report: &dyn Fn(&FromWorker),
) -> Result<Option<MoldablePageReport>, String> {
    let t0 = js_sys::Date::now();
    if share.strategies.is_empty() || share.strategies.len() > MAX_STRATEGIES {
        return Err(format!(
            "Strategies: name between 1 and {MAX_STRATEGIES} strategies."
        ));
    }
    let exp = &share.experiment;
    let input = trace
        .as_ref()
        .map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let p = prepare_moldable(exp, input, &Limits::DEFAULT).map_err(|e| e.to_string())?;
    let jobs = p.prepared.workload.jobs.len();
    // The reference, then every strategy but rigid conservative (which is the reference).
    let mut kinds = vec![MoldableStrategyKind::RigidConservative];
    kinds.extend(
        share
            .strategies
            .iter()
            .filter(|&&k| k != MoldableStrategyKind::RigidConservative),
    );
    let total = jobs * kinds.len();
    let mut done_before = 0usize;
    let mut last_progress = f64::NEG_INFINITY;
    let mut results = Vec::with_capacity(kinds.len());
    // The progress line's clock starts at the first arrival.
    let origin = super::worker_core::first_submit(&p.prepared.workload.jobs);
    for &kind in &kinds {
        let mut sim = simulation(&p, kind).map_err(|e| e.to_string())?;
        let progress = |sim: &MoldableSimulation| {
            let pr = sim.progress();
            report(&FromWorker::Progress {
                id,
                completed: done_before + pr.completed,
                total,
                sim_time: pr.now - origin,
                stage: results.len(),
            });
        };
        progress(&sim);
        let step = |sim: &mut MoldableSimulation| {
            sim.step_instants(INSTANTS_PER_CHECK)
                .map_err(|e| e.to_string())
        };
        if !step_in_slices(id, &mut sim, step, &progress, &mut last_progress).await? {
            return Ok(None);
        }
        done_before += jobs;
        let result = checked(kind, sim.run_to_end().map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        results.push((kind, result));
        // Let a Cancel sent during the last slice stop the next strategy.
        yield_to_event_loop().await;
        if !is_active(id) {
            return Ok(None);
        }
    }
    let mut runs = results.into_iter();
    let Some((_, reference)) = runs.next() else {
        return Err("no reference run".into());
    };
    let mut c = Comparison::of_reference(
        &p,
        &exp.model,
        exp.transforms.load_factor,
        &reference,
        jobs <= MAX_GANTT_JOBS,
    );
    let mut others = runs.collect::<Vec<_>>().into_iter();
    for &k in &share.strategies {
        if k == MoldableStrategyKind::RigidConservative {
            c.add_reference_again();
        } else if let Some((kind, result)) = others.next() {
            c.add_result(kind, &result);
        }
    }
    Ok(Some(MoldablePageReport {
        report: c.report,
        schedules: c.schedules,
        wall_ms: js_sys::Date::now() - t0,
    }))
}
