//! The worker side of the Grid mode (Ernemann et al. §III–V): runs a grid experiment in every
//! configuration of [`CONFIGURATIONS`] — each site on its own ("Trace_single", §IV-B), then with
//! job sharing (§III-C) — through the same steps as [`crate::modes::grid::run::run_comparison`] and
//! `schedlab grid`, in slices of about [`SLICE_MS`] like [`super::worker_core::run_sliced`]: it yields
//! to the event loop between slices, stops at a slice boundary when cancelled and posts
//! [`FromWorker::GridProgress`] at most every [`PROGRESS_MS`].

use crate::modes::flat::spec::ExperimentFile;
use std::io::Read;

use super::protocol::{FromWorker, GridReport};
use super::worker_core::{
    activate, is_active, post, post_outcome, step_in_slices, stored_trace, yield_to_event_loop,
    NamedTrace,
};
use crate::grid::metrics::GridMetrics;
use crate::grid::GridSimulation;
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::grid::run::{GridComparison, GridRunReport, CONFIGURATIONS};
use crate::modes::grid::spec::prepare_sites;
use crate::modes::grid::GridExperiment;

/// Instants simulated between two clock readings.
const INSTANTS_PER_CHECK: usize = 256;

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Handles [`super::protocol::ToWorker::RunGrid`]: makes `id` the active run (replacing any
/// other), runs it and posts its outcome.
pub fn start(id: u32, experiment: GridExperiment, traces: Vec<String>) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = run_grid_sliced(id, &experiment, &traces, &post).await;
        post_outcome(id, outcome, |report| FromWorker::GridDone { id, report });
    });
}

/// The stored trace of every site of `exp` (`None` for synthetic sites); an error names the
/// site whose trace is not loaded. `traces` must list every name the sites use.
fn site_traces(exp: &GridExperiment, traces: &[String]) -> Result<Vec<Option<NamedTrace>>, String> {
    exp.sites
        .iter()
        .enumerate()
        .map(|(i, s)| match &s.workload {
            WorkloadSpec::Synthetic(_) => Ok(None),
            WorkloadSpec::Swf(src) => {
                let name = src.name.as_deref().or(src.path.as_deref()).unwrap_or("");
                if !traces.iter().any(|t| t == name) {
                    return Err(format!(
                        "Site {}: its trace {name:?} was not sent with the run.",
                        exp.site_name(i)
                    ));
                }
                stored_trace(Some(name)).map_err(|e| format!("Site {}: {e}", exp.site_name(i)))
            }
        })
        .collect()
}

/// Runs `exp` in every configuration in slices, passing progress to `report`. `Ok(None)` when
/// cancelled. The numbers are those of [`crate::modes::grid::run::run_comparison`].
pub async fn run_grid_sliced(
    id: u32,
    exp: &GridExperiment,
    traces: &[String],
    report: &dyn Fn(&FromWorker),
) -> Result<Option<GridReport>, String> {
    let t0 = now_ms();
    exp.validate().map_err(|e| e.to_string())?;
    let stored = site_traces(exp, traces)?;
    let mut runs = Vec::with_capacity(CONFIGURATIONS.len());
    let mut done_before = 0usize;
    let mut last_progress = f64::NEG_INFINITY;
    for (k, sharing) in CONFIGURATIONS.into_iter().enumerate() {
        let readers: Vec<Option<(String, Box<dyn Read + '_>)>> = stored
            .iter()
            .map(|t| {
                t.as_ref()
                    .map(|(name, bytes)| (name.clone(), Box::new(&bytes[..]) as Box<dyn Read + '_>))
            })
            .collect();
        let (sites, alignment) = prepare_sites(exp, readers).map_err(|e| e.to_string())?;
        let mut sim = GridSimulation::new(sites, sharing, exp.policy).map_err(|e| e.to_string())?;
        let jobs = sim.progress().total;
        let total = jobs * CONFIGURATIONS.len();
        let progress = |sim: &GridSimulation| {
            let p = sim.progress();
            report(&FromWorker::GridProgress {
                id,
                run: k,
                sim_time: p.now,
                completed: done_before + p.completed,
                total,
            });
        };
        progress(&sim);
        let step = |sim: &mut GridSimulation| {
            sim.step_instants(INSTANTS_PER_CHECK)
                .map_err(|e| e.to_string())
        };
        if !step_in_slices(id, &mut sim, step, &progress, &mut last_progress).await? {
            return Ok(None);
        }
        progress(&sim);
        done_before += jobs;
        let result = sim.run_to_end().map_err(|e| e.to_string())?;
        runs.push(GridRunReport {
            sharing,
            violations: crate::grid::invariants::check(&result),
            metrics: GridMetrics::from_result(&result),
            alignment,
        });
        // Let a Cancel sent during the last slice stop the next configuration.
        yield_to_event_loop().await;
        if !is_active(id) {
            return Ok(None);
        }
    }
    Ok(Some(GridReport {
        comparison: GridComparison {
            experiment: exp.clone(),
            runs,
        },
        wall_ms: now_ms() - t0,
    }))
}
