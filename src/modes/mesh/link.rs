//! Share links of the 2D-mesh mode (`#m=`, Ababneh & Bani-Mohammad §2–5 window scheduling and Mache et al. §4
//! contention experiments): `m=` followed by the base64url of the JSON of a [`MeshShare`] (the
//! first run's [`MeshExperiment`], the allocators compared and the policy chosen), `.` and its
//! checksum, as for the flat mode ([`crate::modes::flat::link`]). Decoding validates the experiment
//! (limits included, [`crate::limits`]) and names the form's field in every error. No web
//! dependency: the page (`web::mesh_page`) re-exports it, the tests fuzz it natively.

use serde::{Deserialize, Serialize};

use crate::form::mesh::{experiments_for_with, field_message, field_name};
use crate::modes::flat::link::{check_envelope, pack_fragment, unpack_fragment};
use crate::modes::flat::spec::ConfigError;
use crate::modes::mesh::spec::{MeshAllocatorKind, MeshExperiment};
use crate::policy::mesh::MeshPolicyKind;

/// Version of the mesh share-link envelope this build writes and reads.
pub const MESH_SHARE_VERSION: u32 = 1;
/// Prefix of a mesh share link's fragment (after `#`).
pub const MESH_FRAGMENT_PREFIX: &str = "m=";
/// Longest fragment accepted.
pub const MAX_MESH_FRAGMENT: usize = 16_000;

/// What a mesh share link holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshShare {
    /// Envelope version ([`MESH_SHARE_VERSION`]).
    pub v: u32,
    /// The first run's experiment (every other run differs only in allocator and policy).
    pub experiment: MeshExperiment,
    /// The allocators compared, in order.
    pub allocators: Vec<MeshAllocatorKind>,
    /// The policy of the contiguous allocators (`window-240`), when it is not the first run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

impl MeshShare {
    /// The fragment (without `#`): `m=<base64url JSON>.<checksum>`.
    pub fn to_fragment(&self) -> String {
        pack_fragment(MESH_FRAGMENT_PREFIX, &self.to_json())
    }

    /// The link's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a fragment (with or without `#`): `Ok(None)` when it is not a mesh link; `Err`
    /// says why a link cannot be used (damaged, other version, invalid experiment — naming the
    /// key).
    pub fn from_fragment(fragment: &str) -> Result<Option<MeshShare>, String> {
        let Some((text, checksum_ok)) =
            unpack_fragment(fragment, MESH_FRAGMENT_PREFIX, MAX_MESH_FRAGMENT)?
        else {
            return Ok(None);
        };
        check_envelope(
            &text,
            MESH_SHARE_VERSION,
            "mesh share-link",
            Some(checksum_ok),
        )?;
        MeshShare::from_json(&text).map(Some)
    }

    /// Reads a link's JSON: the version first, then the experiment, validated (errors name
    /// the form's field).
    pub fn from_json(text: &str) -> Result<MeshShare, String> {
        MeshShare::from_json_with(text, &crate::limits::Limits::DEFAULT)
    }

    /// [`MeshShare::from_json`] with the experiment validated under `limits` (the CLI may
    /// raise them).
    pub fn from_json_with(text: &str, limits: &crate::limits::Limits) -> Result<MeshShare, String> {
        check_envelope(text, MESH_SHARE_VERSION, "mesh share-link", None)?;
        let share: MeshShare = crate::modes::flat::spec::parse_json(text)
            .map_err(|e| format!("{}: {}", field_name(&e.key), e.message))?;
        share
            .experiment
            .validate_with(limits)
            .map_err(|e| field_message(&prefixed(&e)))?;
        if share.allocators.is_empty() {
            return Err("Allocators: the link names no allocator".into());
        }
        if let Some(p) = &share.policy {
            MeshPolicyKind::parse(p).map_err(|e| format!("Policy: {e}"))?;
        }
        Ok(share)
    }

    /// The experiments of the runs: one per allocator, the contiguous ones under the shared
    /// policy, the non-contiguous ones FCFS. The first error names its field.
    pub fn experiments(&self) -> Result<Vec<MeshExperiment>, String> {
        self.experiments_with(&crate::limits::Limits::DEFAULT)
    }

    /// [`MeshShare::experiments`] validated under `limits`.
    pub fn experiments_with(
        &self,
        limits: &crate::limits::Limits,
    ) -> Result<Vec<MeshExperiment>, String> {
        let policy = match &self.policy {
            Some(p) => MeshPolicyKind::parse(p).map_err(|e| format!("Policy: {e}"))?,
            None => self.experiment.policy,
        };
        experiments_for_with(&self.experiment, &self.allocators, policy, limits)
            .map_err(|e| e.message)
    }
}

/// `e` with its key inside the link's `experiment`.
fn prefixed(e: &ConfigError) -> ConfigError {
    ConfigError {
        key: format!("experiment.{}", e.key),
        message: e.message.clone(),
    }
}

impl crate::modes::ModeLink for MeshShare {
    fn mode(&self) -> crate::modes::Mode {
        crate::modes::Mode::Mesh
    }

    fn state_json(&self) -> String {
        self.to_json()
    }

    fn written_experiment(&self) -> Box<dyn crate::modes::ModeExperiment> {
        crate::modes::experiment_of::<crate::modes::mesh::Mesh>(self.experiment.clone())
    }

    fn experiment(
        &self,
        limits: &crate::limits::Limits,
    ) -> Result<Box<dyn crate::modes::ModeExperiment>, crate::error::Error> {
        let config = |key: &str, message: String| {
            crate::error::Error::Config(ConfigError {
                key: key.into(),
                message,
            })
        };
        let first = self
            .experiments_with(limits)
            .map_err(|m| config("experiment", m))?
            .into_iter()
            .next()
            .ok_or_else(|| config("allocators", "empty".into()))?;
        Ok(crate::modes::experiment_of::<crate::modes::mesh::Mesh>(
            first,
        ))
    }

    fn compared_hint(&self) -> Option<String> {
        (self.allocators.len() > 1)
            .then(|| "the link compares several allocators: add --allocator for each".into())
    }

    fn single_experiment(
        &self,
        limits: &crate::limits::Limits,
    ) -> Result<serde_json::Value, (String, String)> {
        if self.allocators.len() > 1 {
            return Err(crate::modes::one_run_only("allocators", "allocator"));
        }
        let e = self
            .experiments_with(limits)
            .map_err(|m| ("base".to_string(), m))?
            .into_iter()
            .next()
            .ok_or_else(|| ("base.allocators".to_string(), "empty".to_string()))?;
        crate::modes::experiment_value(&e)
    }
}
