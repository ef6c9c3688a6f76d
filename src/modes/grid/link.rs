//! The grid mode's link state (`#g=`, and the envelope's `grid` mode): the experiment, both
//! configurations of which the page compares (Ernemann et al. §IV-B: each site on its own,
//! then job sharing). Decoding validates the experiment, limits included.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::modes::grid::spec::GridExperiment;

/// Version of the grid share-link envelope this build writes and reads.
pub const GRID_SHARE_VERSION: u32 = 1;
/// Prefix of a grid share link's fragment (after `#`).
pub const GRID_FRAGMENT_PREFIX: &str = "g=";
/// Longest grid link fragment accepted.
pub const MAX_GRID_FRAGMENT: usize = 64 * 1024;

/// What a grid share link carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridShare {
    /// Envelope version ([`GRID_SHARE_VERSION`]).
    pub v: u32,
    /// The experiment (its `sharing` is ignored: both configurations run). Uploaded traces
    /// travel as `workload.swf.name` and `workload.swf.sha256`.
    pub experiment: GridExperiment,
}

/// Why a grid share link cannot be opened.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareError(pub String);

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShareError {}

impl GridShare {
    pub fn new(experiment: GridExperiment) -> GridShare {
        GridShare {
            v: GRID_SHARE_VERSION,
            experiment,
        }
    }

    /// The envelope as compact JSON, every synthetic-model parameter equal to its default left
    /// out (the reader fills it in again).
    pub fn to_json(&self) -> String {
        let Ok(mut v) = serde_json::to_value(self) else {
            return String::new();
        };
        if let Some(sites) = v
            .get_mut("experiment")
            .and_then(|e| e.get_mut("sites"))
            .and_then(|s| s.as_array_mut())
        {
            for site in sites {
                if let Some(model) = site
                    .get_mut("workload")
                    .and_then(|w| w.get_mut("synthetic"))
                {
                    crate::modes::flat::link::compact_model(model);
                }
            }
        }
        v.to_string()
    }

    /// The fragment (without `#`): `g=` + base64url(JSON) + `.` + checksum.
    pub fn to_fragment(&self) -> String {
        crate::modes::flat::link::pack_fragment(GRID_FRAGMENT_PREFIX, &self.to_json())
    }

    /// Reads a grid link's fragment (with or without `#`): `Ok(None)` when it is no grid
    /// link; the version is judged first (by [`GridShare::from_json`]), then the checksum.
    pub fn from_fragment(fragment: &str) -> Result<Option<GridShare>, ShareError> {
        let Some((text, checksum_ok)) = crate::modes::flat::link::unpack_fragment(
            fragment,
            GRID_FRAGMENT_PREFIX,
            MAX_GRID_FRAGMENT,
        )
        .map_err(ShareError)?
        else {
            return Ok(None);
        };
        let share = GridShare::from_json(&text)?;
        if !checksum_ok {
            return Err(ShareError(
                "the link is damaged (its checksum does not match: was it cut or edited?)".into(),
            ));
        }
        Ok(Some(share))
    }

    /// Reads the JSON of a link: the version first (a link of another version is refused with
    /// a message naming both versions), then the experiment, validated.
    pub fn from_json(text: &str) -> Result<GridShare, ShareError> {
        GridShare::from_json_with(text, &Limits::DEFAULT)
    }

    /// [`GridShare::from_json`] with the experiment validated under `limits` (the CLI may
    /// raise them).
    pub fn from_json_with(text: &str, limits: &Limits) -> Result<GridShare, ShareError> {
        crate::modes::flat::link::check_envelope(text, GRID_SHARE_VERSION, "grid-link", None)
            .map_err(ShareError)?;
        let share: GridShare = crate::modes::flat::spec::parse_json(text).map_err(|e| {
            ShareError(format!(
                "the link's experiment is invalid: {}: {}",
                e.key, e.message
            ))
        })?;
        share
            .experiment
            .validate_with(limits)
            .map_err(|e| ShareError(format!("the link's experiment is invalid: {e}")))?;
        Ok(share)
    }
}

impl crate::modes::ModeLink for GridShare {
    fn mode(&self) -> crate::modes::Mode {
        crate::modes::Mode::Grid
    }

    fn state_json(&self) -> String {
        self.to_json()
    }

    fn written_experiment(&self) -> Box<dyn crate::modes::ModeExperiment> {
        crate::modes::experiment_of::<crate::modes::grid::Grid>(self.experiment.clone())
    }

    fn experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<Box<dyn crate::modes::ModeExperiment>, crate::error::Error> {
        Ok(crate::modes::experiment_of::<crate::modes::grid::Grid>(
            self.experiment.clone(),
        ))
    }

    fn single_experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<serde_json::Value, (String, String)> {
        crate::modes::experiment_value(&self.experiment)
    }
}
