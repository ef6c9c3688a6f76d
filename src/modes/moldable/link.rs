//! The moldable mode's link state (the envelope's `moldable` mode): the experiment and the
//! strategies compared, each against rigid conservative backfilling (Srinivasan et al. §2.3).
//! Decoding validates every key, limits included.

use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::modes::flat::link::check_envelope;
use crate::modes::moldable::spec::{MoldableExperiment, MAX_STRATEGIES};
use crate::policy::moldable::MoldableStrategyKind;

/// Version of the moldable mode's state inside an envelope.
pub const MOLDABLE_SHARE_VERSION: u32 = 1;

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
        let share: MoldableShare = crate::modes::flat::spec::parse_json(text)
            .map_err(|e| format!("{}: {}", e.key, e.message))?;
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

impl crate::modes::ModeLink for MoldableShare {
    fn mode(&self) -> crate::modes::Mode {
        crate::modes::Mode::Moldable
    }

    fn state_json(&self) -> String {
        self.to_json()
    }

    fn written_experiment(&self) -> Box<dyn crate::modes::ModeExperiment> {
        crate::modes::experiment_of::<crate::modes::moldable::Moldable>(self.experiment.clone())
    }

    fn experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<Box<dyn crate::modes::ModeExperiment>, crate::error::Error> {
        Ok(crate::modes::experiment_of::<
            crate::modes::moldable::Moldable,
        >(self.experiment.clone()))
    }

    fn compared_hint(&self) -> Option<String> {
        (self.strategies.len() > 1).then(|| {
            let names: Vec<&str> = self.strategies.iter().map(|k| k.as_str()).collect();
            format!(
                "the link compares several strategies: add --strategy {}",
                names.join(",")
            )
        })
    }

    fn single_experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<serde_json::Value, (String, String)> {
        if self.strategies.len() > 1 {
            return Err(crate::modes::one_run_only("strategies", "strategy"));
        }
        let mut e = self.experiment.clone();
        e.strategy = self.strategies.first().copied().unwrap_or(e.strategy);
        crate::modes::experiment_value(&e)
    }
}
