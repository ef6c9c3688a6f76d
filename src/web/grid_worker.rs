//! The worker side of the Grid mode (Ernemann et al. §III–V): runs a grid experiment in every
//! configuration of [`CONFIGURATIONS`] — each site on its own ("Trace_single", §IV-B), then with
//! job sharing (§III-C) — through the same steps as [`crate::modes::grid::run::run_comparison`] and
//! `schedlab grid` — the grid mode's [`crate::modes::ModeRun`] — in slices, as every mode runs
//! ([`super::worker_core::run_mode_sliced`]): it yields to the event loop between slices,
//! stops at a slice boundary when cancelled and posts [`FromWorker::Progress`] (its `stage`
//! is the configuration) at most every 100 ms.

use super::protocol::{FromWorker, GridReport};
use super::worker_core::{activate, post, post_outcome, run_mode_sliced, stored_trace, NamedTrace};
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::{ExperimentFile, WorkloadSpec};
use crate::modes::grid::{Grid, GridExperiment};

/// Instants simulated between two clock readings.
const INSTANTS_PER_CHECK: usize = 256;

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Starts a grid [`super::protocol::ToWorker::Run`]: makes `id` the active run (replacing any
/// other), runs it and posts its outcome.
pub fn start(id: u32, experiment: GridExperiment, traces: Vec<String>) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = run_grid_sliced(id, &experiment, &traces, &post).await;
        post_outcome(id, outcome);
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

/// Runs `exp` in every configuration in slices through the grid mode's [`ModeRun`]
/// ([`Grid`]), passing progress to `report` (its `stage` is the configuration). `Ok(None)`
/// when cancelled. The numbers are those of [`crate::modes::grid::run::run_comparison`].
pub async fn run_grid_sliced(
    id: u32,
    exp: &GridExperiment,
    traces: &[String],
    report: &dyn Fn(&FromWorker),
) -> Result<Option<GridReport>, String> {
    let t0 = now_ms();
    exp.validate().map_err(|e| e.to_string())?;
    let stored = site_traces(exp, traces)?;
    let mut next = stored.iter().cycle();
    // The sites' workloads are asked for in site order, once per configuration.
    let mut traces = |_: &WorkloadSpec| {
        Ok(next
            .next()
            .and_then(Option::as_ref)
            .map(|(name, bytes)| TraceInput::from_bytes(name, bytes)))
    };
    let Some(comparison) =
        run_mode_sliced::<Grid>(id, exp, &mut traces, INSTANTS_PER_CHECK, report).await?
    else {
        return Ok(None);
    };
    Ok(Some(GridReport {
        comparison,
        wall_ms: now_ms() - t0,
    }))
}
