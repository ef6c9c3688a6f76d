//! A moldable experiment as JSON, and running it (seed 004 §2–5): a rigid workload (a trace or
//! a synthetic model, with the flat mode's transforms — `first_jobs`, `load_factor` for the
//! paper's LF 100/125/150 % — and machine) made moldable by Downey's model with one σ and one
//! range factor, or by user-supplied scalability profiles ([`MoldableModel`]), then scheduled
//! by one or more strategies ([`MoldableStrategyKind`]) and measured against rigid
//! conservative backfilling: overall and per-category mean turnaround as % change (§2.3), plus
//! the core summary. `schedlab moldable` and the envelope's `moldable` mode go through here.
//!
//! ```json
//! {"workload": {"swf": {"path": "SDSC-SP2-1998-4.2-cln.swf.gz"}},
//!  "transforms": {"first_jobs": 5000, "load_factor": 1.25},
//!  "model": {"downey": {"sigma": 1.0, "range_factor": 2.0}},
//!  "strategy": "combined"}
//! ```

use serde::{Deserialize, Serialize};

use crate::base::Registered;
use crate::config::{ConfigError, Experiment, MachineSpec, WorkloadSpec};
use crate::error::{Engine as EngineKind, Error};
use crate::limits::Limits;
use crate::metrics::{category_stats_by, CategoryStat, JobRecord, Summary, CATEGORY_COUNT};
use crate::policy::moldable::MoldableStrategyKind;
use crate::policy::PolicyKind;
use crate::run::{prepare_with, Prepared, TraceInput};
use crate::share::check_envelope;
use crate::sim::moldable_engine::{MoldableResult, MoldableSimulation};
use crate::sim::moldable_invariants;
use crate::workload::moldable::{MoldableJob, MoldableModel};
use crate::workload::transform::Transforms;

/// The format version this build reads.
pub const MOLDABLE_FORMAT_VERSION: u32 = 1;
/// Version of the moldable mode's state inside an envelope.
pub const MOLDABLE_SHARE_VERSION: u32 = 1;
/// Most strategies one comparison runs.
pub const MAX_STRATEGIES: usize = 32;

fn one() -> u32 {
    MOLDABLE_FORMAT_VERSION
}

fn combined() -> MoldableStrategyKind {
    MoldableStrategyKind::Combined
}

/// One moldable run: workload, transforms, machine, moldable model, strategy, seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoldableExperiment {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub transforms: Transforms,
    #[serde(default)]
    pub machine: MachineSpec,
    /// How jobs become moldable (default Downey, σ = 0, RF = 1).
    #[serde(default)]
    pub model: MoldableModel,
    /// Default `combined` (§5).
    #[serde(default = "combined")]
    pub strategy: MoldableStrategyKind,
    #[serde(default)]
    pub seed: u64,
}

impl MoldableExperiment {
    /// An experiment on `workload` with Downey's model (σ, RF) and `strategy`.
    pub fn new(
        workload: WorkloadSpec,
        model: MoldableModel,
        strategy: MoldableStrategyKind,
    ) -> MoldableExperiment {
        MoldableExperiment {
            version: MOLDABLE_FORMAT_VERSION,
            name: None,
            workload,
            transforms: Transforms::default(),
            machine: MachineSpec::default(),
            model,
            strategy,
            seed: 0,
        }
    }

    /// Parses and validates an experiment from JSON text (errors name the key).
    pub fn from_json(text: &str) -> Result<MoldableExperiment, ConfigError> {
        let exp: MoldableExperiment = crate::config::parse_json(text)?;
        exp.validate()?;
        Ok(exp)
    }

    /// The experiment as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// [`MoldableExperiment::validate_with`] the default [`Limits`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_with(&Limits::DEFAULT)
    }

    /// Checks what serde cannot: the version, the workload, transforms and machine (as the flat
    /// mode does, limits included) and the model's values.
    pub fn validate_with(&self, limits: &Limits) -> Result<(), ConfigError> {
        crate::config::check_version(self.version, MOLDABLE_FORMAT_VERSION)?;
        self.flat().validate_with(limits)?;
        self.model
            .validate()
            .map_err(|(key, message)| ConfigError { key, message })
    }

    /// The flat experiment that loads the same rigid workload on the same machine.
    pub fn flat(&self) -> Experiment {
        Experiment {
            version: crate::config::FORMAT_VERSION,
            name: self.name.clone(),
            workload: self.workload.clone(),
            transforms: self.transforms.clone(),
            machine: self.machine.clone(),
            policy: PolicyKind::Conservative,
            seed: self.seed,
        }
    }
}

/// A rigid workload prepared for the machine and its moldable view.
#[derive(Clone, Debug)]
pub struct PreparedMoldable {
    pub prepared: Prepared,
    pub shapes: Vec<MoldableJob>,
}

/// Loads, transforms and fits the workload (as `schedlab run` does), then makes it moldable.
pub fn prepare_moldable(
    exp: &MoldableExperiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<PreparedMoldable, Error> {
    exp.validate_with(limits)?;
    let prepared = prepare_with(&exp.flat(), trace, limits)?;
    let shapes = exp.model.apply(&prepared.workload.jobs, prepared.procs);
    Ok(PreparedMoldable { prepared, shapes })
}

/// Runs `kind` on a prepared workload; the run's invariants are checked.
pub fn simulate(p: &PreparedMoldable, kind: MoldableStrategyKind) -> Result<MoldableResult, Error> {
    let err = |e: &dyn std::fmt::Display| Error::simulation(EngineKind::Moldable, kind.as_str(), e);
    let sim = MoldableSimulation::moldable_by_kind(
        p.prepared.workload.jobs.clone(),
        p.shapes.clone(),
        p.prepared.procs,
        kind,
    )
    .map_err(|e| err(&e))?;
    let result = sim.run_to_end().map_err(|e| err(&e))?;
    let violations = moldable_invariants::check(&result);
    if let Some(first) = violations.first() {
        return Err(err(&format!(
            "{} invariant violation(s), the first: {first}",
            violations.len()
        )));
    }
    Ok(result)
}

/// The metrics of one moldable run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldableOutput {
    pub strategy: String,
    pub label: String,
    pub procs: u32,
    /// The core summary (utilisation by the counts the jobs ran on).
    pub summary: Summary,
    /// Mean turnaround per weight category, a job's category by its rigid weight (the trace's
    /// processors × run time, §2.3), whatever count it ran on.
    pub categories: Vec<CategoryStat>,
    /// Mean over jobs of chosen count / the trace's count.
    pub mean_procs_ratio: f64,
    /// Partition sizes evaluated (§4.1's cost).
    pub evaluations: u64,
}

/// Metrics of a finished run.
pub fn measure(result: &MoldableResult, dropped: usize) -> MoldableOutput {
    let mut records = Vec::with_capacity(result.jobs.len());
    let mut weights = Vec::with_capacity(result.jobs.len());
    let mut ratio = 0.0;
    for ((job, o), &x) in result.jobs.iter().zip(&result.outcomes).zip(&result.chosen) {
        if o.start.is_nan() {
            continue;
        }
        let mut r = JobRecord::of(job, o);
        r.procs = x;
        records.push(r);
        weights.push(f64::from(job.procs) * job.duration());
        ratio += f64::from(x) / f64::from(job.procs.max(1));
    }
    let n = records.len().max(1) as f64;
    let kind = MoldableStrategyKind::parse(&result.strategy).ok();
    MoldableOutput {
        label: kind.map_or_else(|| result.strategy.clone(), |k| k.entry().label.to_string()),
        strategy: result.strategy.clone(),
        procs: result.procs,
        summary: Summary::from_records(&records, result.procs, dropped),
        categories: category_stats_by(&records, |i, _| weights[i]),
        mean_procs_ratio: ratio / n,
        evaluations: result.evaluations,
    }
}

/// % change of mean turnaround against the reference (negative = better).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub overall_pct: f64,
    /// One per category; `null` where the category has no job.
    pub categories_pct: Vec<Option<f64>>,
}

fn pct(reference: f64, value: f64) -> f64 {
    if reference > 0.0 {
        100.0 * (value - reference) / reference
    } else {
        0.0
    }
}

/// `output` against `reference` (same workload): overall and per category.
pub fn change(reference: &MoldableOutput, output: &MoldableOutput) -> Change {
    Change {
        overall_pct: pct(
            reference.summary.mean_turnaround,
            output.summary.mean_turnaround,
        ),
        categories_pct: (0..CATEGORY_COUNT)
            .map(|k| {
                let (r, o) = (reference.categories.get(k)?, output.categories.get(k)?);
                (r.jobs > 0 && o.jobs > 0).then(|| pct(r.mean_turnaround, o.mean_turnaround))
            })
            .collect(),
    }
}

/// One strategy of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyRun {
    pub output: MoldableOutput,
    /// Against rigid conservative backfilling.
    pub change: Change,
}

/// A comparison: the rigid conservative reference and every strategy asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldableReport {
    pub procs: u32,
    pub jobs: usize,
    pub dropped: usize,
    pub model: MoldableModel,
    pub load_factor: f64,
    pub reference: MoldableOutput,
    pub runs: Vec<StrategyRun>,
}

/// Runs the reference and `strategies` on one prepared workload.
pub fn compare(
    p: &PreparedMoldable,
    model: &MoldableModel,
    load_factor: f64,
    strategies: &[MoldableStrategyKind],
) -> Result<MoldableReport, Error> {
    let dropped = p.prepared.workload.dropped.total();
    let reference = measure(
        &simulate(p, MoldableStrategyKind::RigidConservative)?,
        dropped,
    );
    let mut runs = Vec::with_capacity(strategies.len());
    for &k in strategies {
        let output = if k == MoldableStrategyKind::RigidConservative {
            reference.clone()
        } else {
            measure(&simulate(p, k)?, dropped)
        };
        runs.push(StrategyRun {
            change: change(&reference, &output),
            output,
        });
    }
    Ok(MoldableReport {
        procs: p.prepared.procs,
        jobs: p.prepared.workload.jobs.len(),
        dropped,
        model: model.clone(),
        load_factor,
        reference,
        runs,
    })
}

/// Loads the experiment's workload and compares `strategies` (the experiment's own when
/// empty) with rigid conservative backfilling.
pub fn run_moldable_with(
    exp: &MoldableExperiment,
    strategies: &[MoldableStrategyKind],
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<MoldableReport, Error> {
    if strategies.len() > MAX_STRATEGIES {
        return Err(Error::Config(ConfigError {
            key: "strategies".into(),
            message: format!("at most {MAX_STRATEGIES} strategies"),
        }));
    }
    let p = prepare_moldable(exp, trace, limits)?;
    let own = [exp.strategy];
    let list = if strategies.is_empty() {
        &own[..]
    } else {
        strategies
    };
    compare(&p, &exp.model, exp.transforms.load_factor, list)
}

/// The moldable mode's state in an experiment envelope: the experiment and the strategies
/// compared (each against rigid conservative backfilling).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoldableShare {
    /// State version ([`MOLDABLE_SHARE_VERSION`]).
    pub v: u32,
    pub experiment: MoldableExperiment,
    /// The strategies compared, in order.
    pub strategies: Vec<MoldableStrategyKind>,
}

impl MoldableShare {
    /// The state of `experiment` comparing `strategies`.
    pub fn new(experiment: MoldableExperiment, strategies: Vec<MoldableStrategyKind>) -> Self {
        MoldableShare {
            v: MOLDABLE_SHARE_VERSION,
            experiment,
            strategies,
        }
    }

    /// The state's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads the state's JSON: the version first, then every key (errors name it, below
    /// `experiment.` for the experiment's), the experiment validated with the default limits.
    pub fn from_json(text: &str) -> Result<MoldableShare, String> {
        MoldableShare::from_json_with(text, &Limits::DEFAULT)
    }

    /// [`MoldableShare::from_json`] with the experiment validated under `limits` (the CLI may
    /// raise them).
    pub fn from_json_with(text: &str, limits: &Limits) -> Result<MoldableShare, String> {
        check_envelope(text, MOLDABLE_SHARE_VERSION, "moldable experiment", None)?;
        let share: MoldableShare =
            crate::config::parse_json(text).map_err(|e| format!("{}: {}", e.key, e.message))?;
        share
            .experiment
            .validate_with(limits)
            .map_err(|e| format!("experiment.{}: {}", e.key, e.message))?;
        if share.strategies.is_empty() {
            return Err("strategies: name at least one moldable strategy".into());
        }
        if share.strategies.len() > MAX_STRATEGIES {
            return Err(format!("strategies: at most {MAX_STRATEGIES}"));
        }
        Ok(share)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::synthetic::SyntheticModel;

    fn exp() -> MoldableExperiment {
        MoldableExperiment::new(
            WorkloadSpec::Synthetic(SyntheticModel::default()),
            MoldableModel::Downey {
                sigma: 1.0,
                range_factor: 2.0,
            },
            MoldableStrategyKind::Combined,
        )
    }

    #[test]
    fn experiments_round_trip_and_errors_name_the_key() {
        let e = exp();
        assert_eq!(MoldableExperiment::from_json(&e.to_json()), Ok(e.clone()));
        let mut v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        v["model"]["downey"]["sigma"] = serde_json::json!(-1);
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "model.downey.sigma");
        v["model"]["downey"]["sigma"] = serde_json::json!(0);
        v["strategy"] = serde_json::json!("sjf");
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "strategy");
        assert!(err.message.contains("sjf") && err.message.contains("combined"));
        v["strategy"] = serde_json::json!("base");
        v["transforms"] = serde_json::json!({"load_factor": 0});
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "transforms.load_factor");
        let s = MoldableShare::new(e, vec![MoldableStrategyKind::Base]);
        assert_eq!(MoldableShare::from_json(&s.to_json()), Ok(s));
    }
}
