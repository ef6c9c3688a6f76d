//! The phases of a flat or 2D-mesh run, timed alike natively and in the browser:
//! `schedlab bench phases LINK` reads the clock of the process, the web worker's
//! [`crate::web`] bench message reads `performance.now()`, and both call this module, which
//! runs the experiment of a share link's envelope through the library functions of
//! `schedlab run` / `schedlab mesh` and the worker — [`crate::run::prepare`],
//! [`crate::run::simulation`] (with the timeline the page charts),
//! [`crate::run::finish`]; [`crate::mesh_run::prepare_mesh`],
//! [`crate::mesh_run::simulate_mesh`], [`crate::mesh_run::measure_mesh`] — reading the clock
//! between them:
//!
//! * **load**: read or generate the workload, apply the transforms, size the machine (mesh:
//!   give jobs their shapes);
//! * **simulate**: build the engine and run it to the end;
//! * **measure**: the metrics (per-job records, summary; mesh: layout metrics, link loads).
//!
//! The same experiment is run `runs` times, so the figures do not depend on the timer's
//! resolution (the browser's is coarse) and the first run (cold caches; in the browser, code
//! still in the baseline compiler) can be told from the others. The last run's summary comes
//! back too: natively and in the browser it must be identical (the determinism rule).

use serde::{Deserialize, Serialize};

use crate::envelope::Envelope;
use crate::limits::Limits;
use crate::mesh_run::{measure_mesh, mesh_network, prepare_mesh, simulate_mesh};
use crate::metrics::Summary;
use crate::run::{finish, prepare, simulation, TraceInput};

/// Most runs one measurement may ask for.
pub const MAX_RUNS: usize = 1000;

/// The measured phases of `runs` runs of one experiment, milliseconds per run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// `flat` or `mesh`.
    pub mode: String,
    /// The policy (flat) or allocator and policy (mesh) that ran.
    pub label: String,
    /// Jobs simulated per run.
    pub jobs: usize,
    pub load_ms: Vec<f64>,
    pub simulate_ms: Vec<f64>,
    pub measure_ms: Vec<f64>,
    /// The summary of the last run.
    pub summary: Option<Summary>,
}

impl PhaseTimes {
    /// Median of one phase's times (0 when there is none).
    pub fn median(times: &[f64]) -> f64 {
        let mut v = times.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    }

    /// Sum of one phase's times.
    pub fn total(times: &[f64]) -> f64 {
        times.iter().sum()
    }
}

/// Times `runs` runs (1 ..= [`MAX_RUNS`]) of the experiment of `env` — a flat envelope's
/// experiment (its first policy) or a mesh envelope's first experiment (its first allocator) —
/// with the clock `now_ms` (milliseconds). `trace` is the SWF trace (name, bytes) when the
/// workload reads one. Grid and moldable envelopes are refused.
pub fn time_envelope(
    env: &Envelope,
    trace: Option<(&str, &[u8])>,
    runs: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<PhaseTimes, String> {
    if runs == 0 || runs > MAX_RUNS {
        return Err(format!("runs must be 1 to {MAX_RUNS} (got {runs})"));
    }
    let input = || trace.map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let mut t = PhaseTimes {
        mode: env.mode().as_str().to_string(),
        label: String::new(),
        jobs: 0,
        load_ms: Vec::with_capacity(runs),
        simulate_ms: Vec::with_capacity(runs),
        measure_ms: Vec::with_capacity(runs),
        summary: None,
    };
    match env {
        Envelope::Flat(s) => {
            let exp = &s.experiment;
            t.label = exp.policy.as_str().to_string();
            for _ in 0..runs {
                let t0 = now_ms();
                let prepared = prepare(exp, input()).map_err(|e| e.to_string())?;
                let t1 = now_ms();
                let result = simulation(exp, &prepared, true)
                    .run_to_end()
                    .map_err(|e| e.to_string())?;
                let t2 = now_ms();
                let output = finish(&result, &prepared);
                let t3 = now_ms();
                t.push(t0, t1, t2, t3);
                t.jobs = result.jobs.len();
                t.summary = Some(output.summary);
            }
        }
        Envelope::Mesh(s) => {
            let experiments = s.experiments_with(&Limits::DEFAULT)?;
            let exp = experiments
                .first()
                .ok_or_else(|| "the mesh link has no experiment".to_string())?;
            t.label = format!("{} {}", exp.allocator.as_str(), exp.policy.label());
            for _ in 0..runs {
                let t0 = now_ms();
                let (workload, transform, shapes) =
                    prepare_mesh(exp, input(), &Limits::DEFAULT).map_err(|e| e.to_string())?;
                let net = mesh_network(exp).map_err(|e| e.to_string())?;
                let t1 = now_ms();
                let run = simulate_mesh(exp, &net, &workload).map_err(|e| e.to_string())?;
                let t2 = now_ms();
                let output = measure_mesh(exp, &net, &workload, transform, shapes, run);
                let t3 = now_ms();
                t.push(t0, t1, t2, t3);
                t.jobs = output.jobs.len();
                t.summary = Some(output.summary);
            }
        }
        Envelope::Grid(_) | Envelope::Moldable(_) => {
            return Err(format!(
                "only flat and mesh links are timed (this is a {} link)",
                env.mode()
            ))
        }
    }
    Ok(t)
}

impl PhaseTimes {
    fn push(&mut self, t0: f64, t1: f64, t2: f64, t3: f64) {
        self.load_ms.push(t1 - t0);
        self.simulate_ms.push(t2 - t1);
        self.measure_ms.push(t3 - t2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Experiment, WorkloadSpec};
    use crate::mesh_run::preset_window;
    use crate::mesh_share::{MeshShare, MESH_SHARE_VERSION};
    use crate::policy::PolicyKind;
    use crate::share::ShareState;
    use crate::workload::synthetic::SyntheticModel;

    /// A clock that advances 1 ms per reading.
    fn ticks() -> impl Fn() -> f64 {
        let n = std::cell::Cell::new(0.0);
        move || {
            n.set(n.get() + 1.0);
            n.get()
        }
    }

    fn flat() -> Experiment {
        let model: SyntheticModel =
            serde_json::from_str(r#"{"model": "lublin", "jobs": 500}"#).expect("model");
        let mut exp = Experiment::new(WorkloadSpec::Synthetic(model), PolicyKind::Easy);
        exp.seed = 3;
        exp
    }

    #[test]
    fn phases_run_the_experiment_of_the_link() {
        let exp = flat();
        let env = Envelope::Flat(ShareState::new(exp.clone(), vec![]));
        let t = time_envelope(&env, None, 2, &ticks()).expect("flat runs");
        assert_eq!((t.mode.as_str(), t.load_ms.len()), ("flat", 2));
        assert!(t.simulate_ms.iter().all(|&ms| ms == 1.0));
        let whole = crate::run::run_experiment(&exp, None).expect("runs");
        assert_eq!(t.jobs, whole.summary.jobs);
        assert_eq!(t.summary, Some(whole.summary));

        let exp = preset_window();
        let env = Envelope::Mesh(MeshShare {
            v: MESH_SHARE_VERSION,
            allocators: vec![exp.allocator],
            experiment: exp.clone(),
            policy: None,
        });
        let t = time_envelope(&env, None, 1, &ticks()).expect("mesh runs");
        let whole = crate::mesh_run::run_mesh(&exp, None).expect("mesh runs");
        assert_eq!((t.summary, t.jobs), (Some(whole.summary), whole.jobs.len()));
    }

    #[test]
    fn bad_run_counts_are_refused() {
        let env = Envelope::Flat(ShareState::new(flat(), vec![]));
        assert!(time_envelope(&env, None, 0, &ticks()).is_err());
        assert!(time_envelope(&env, None, MAX_RUNS + 1, &ticks()).is_err());
    }
}
