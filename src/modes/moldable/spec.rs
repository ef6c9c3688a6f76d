//! A moldable experiment as JSON (Srinivasan et al. §2–5): a rigid workload (a trace or a
//! synthetic model, with the flat mode's transforms — `first_jobs`, `load_factor` for the
//! paper's LF 100/125/150 % — and machine) made moldable by Downey's model with one σ and one
//! range factor, or by user-supplied scalability profiles ([`MoldableModel`]), and the
//! strategy ([`MoldableStrategyKind`]) that schedules it.
//!
//! ```json
//! {"workload": {"swf": {"path": "SDSC-SP2-1998-4.2-cln.swf.gz"}},
//!  "transforms": {"first_jobs": 5000, "load_factor": 1.25},
//!  "model": {"downey": {"sigma": 1.0, "range_factor": 2.0}},
//!  "strategy": "combined"}
//! ```

use crate::limits::Limits;
use crate::modes::flat::spec::{ConfigError, Experiment, MachineSpec, WorkloadSpec};
use crate::policy::moldable::MoldableStrategyKind;
use crate::policy::PolicyKind;
use crate::workload::moldable::MoldableModel;
use crate::workload::transform::Transforms;
use serde::{Deserialize, Serialize};

/// The format version this build reads.
pub const MOLDABLE_FORMAT_VERSION: u32 = 1;
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
        let exp: MoldableExperiment = crate::modes::flat::spec::parse_json(text)?;
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
        crate::modes::flat::spec::check_version(self.version, MOLDABLE_FORMAT_VERSION)?;
        self.flat().validate_with(limits)?;
        self.model
            .validate()
            .map_err(|(key, message)| ConfigError { key, message })
    }

    /// The flat experiment that loads the same rigid workload on the same machine.
    pub fn flat(&self) -> Experiment {
        Experiment {
            version: crate::modes::flat::spec::FORMAT_VERSION,
            name: self.name.clone(),
            workload: self.workload.clone(),
            transforms: self.transforms.clone(),
            machine: self.machine.clone(),
            policy: PolicyKind::Conservative,
            queue: Default::default(),
            seed: self.seed,
        }
    }
}
