//! Share links: the experiment of a run, the policies compared and nothing else, in the URL
//! fragment.
//!
//! A link is `…/#x=` followed by the base64url (no padding) of the JSON of a [`ShareState`],
//! with every value equal to its default left out (model parameters, transforms, machine),
//! then `.` and a checksum of the JSON (8 hex digits of FNV-1a), so that a cut or edited link is
//! refused rather than run as another experiment:
//!
//! ```json
//! {"v": 1, "experiment": { …docs/experiment-format.md… }, "policies": ["fcfs", "easy"]}
//! ```
//!
//! `v` is the version of this envelope (currently [`SHARE_VERSION`]); the experiment carries
//! its own format `version`. A link of another version is refused with a message that says
//! which version it is and which this page reads. An uploaded trace travels as its name and
//! SHA-256 (`workload.swf.name`, `workload.swf.sha256`): the page asks for that file and refuses
//! one with another hash. This module has no web dependency: it is part of the core so that
//! it is tested and fuzzed natively (`tests/it/fuzz.rs`); the mesh (`#m=`,
//! [`crate::modes::mesh::link`]) and grid (`#g=`, [`crate::modes::grid::link::GridShare`]) links use its
//! [`pack_fragment`] / [`unpack_fragment`]. Every decoded experiment is validated, limits
//! included ([`crate::limits`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::modes::flat::spec::{Experiment, MachineSpec, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::workload::synthetic::SyntheticModel;
use crate::workload::transform::Transforms;

/// Version of the share-link envelope this build writes and reads.
pub const SHARE_VERSION: u32 = 1;
/// Prefix of a share link's fragment (after `#`).
pub const FRAGMENT_PREFIX: &str = "x=";
/// Longest fragment accepted.
const MAX_FRAGMENT_CHARS: usize = 16 * 1024;

/// What a share link carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareState {
    /// Envelope version ([`SHARE_VERSION`]).
    pub v: u32,
    /// The experiment (its `policy` is the first of `policies`).
    pub experiment: Experiment,
    /// Policies compared side by side, in order; empty means `experiment.policy` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<PolicyKind>,
    /// A load-factor sweep: every policy at every load factor of the sweep (the experiment's
    /// own `transforms.load_factor` is then the sweep's first). Absent in single-run links and
    /// in links made before sweeps existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
}

/// A sweep: `from`, `from + step`, …, up to `to` (inclusive) of one key of the experiment,
/// the load factor unless `axis` says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub from: f64,
    pub to: f64,
    pub step: f64,
    /// What is swept (left out of links for the load factor, as before axes existed).
    #[serde(default, skip_serializing_if = "SweepAxis::is_load_factor")]
    pub axis: SweepAxis,
}

/// The key a flat sweep varies (`docs/sweeps.md`, "The web page").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepAxis {
    /// `transforms.load_factor` (× arrival rate).
    #[default]
    LoadFactor,
    /// `seed`: the synthetic workload's random numbers (replications by hand).
    Seed,
    /// `workload.synthetic.jobs`: how many jobs the model draws.
    Jobs,
}

impl SweepAxis {
    /// Every axis, in the page's order.
    pub const ALL: [SweepAxis; 3] = [SweepAxis::LoadFactor, SweepAxis::Seed, SweepAxis::Jobs];

    /// Serde's `skip_serializing_if`.
    pub fn is_load_factor(&self) -> bool {
        *self == SweepAxis::LoadFactor
    }

    /// Its key in sweep files and merged results (`load_factor`, `seed`, `jobs`): the page's
    /// `#sweep-axis` option values.
    pub fn key(self) -> &'static str {
        match self {
            SweepAxis::LoadFactor => "load_factor",
            SweepAxis::Seed => "seed",
            SweepAxis::Jobs => "jobs",
        }
    }

    /// The axis of `key` (`load_factor` also for an empty key).
    pub fn parse(key: &str) -> Option<SweepAxis> {
        match key {
            "" => Some(SweepAxis::LoadFactor),
            k => SweepAxis::ALL.into_iter().find(|a| a.key() == k),
        }
    }

    /// The chart's and the table's name of the axis.
    pub fn label(self) -> &'static str {
        match self {
            SweepAxis::LoadFactor => "Load factor",
            SweepAxis::Seed => "Seed",
            SweepAxis::Jobs => "Jobs",
        }
    }

    /// The axis' value in `exp`.
    pub fn value_of(self, exp: &Experiment) -> f64 {
        match (self, &exp.workload) {
            (SweepAxis::LoadFactor, _) => exp.transforms.load_factor,
            (SweepAxis::Seed, _) => exp.seed as f64,
            (SweepAxis::Jobs, crate::modes::flat::spec::WorkloadSpec::Synthetic(m)) => {
                m.jobs() as f64
            }
            (SweepAxis::Jobs, _) => f64::NAN,
        }
    }

    /// Sets the axis to `x` in `exp`; `Err` when the experiment has no such key (jobs of a
    /// trace).
    pub fn apply(self, exp: &mut Experiment, x: f64) -> Result<(), AxisError> {
        match self {
            SweepAxis::LoadFactor => exp.transforms.load_factor = x,
            SweepAxis::Seed => exp.seed = x as u64,
            SweepAxis::Jobs => {
                let mut v = serde_json::to_value(&exp.workload)
                    .map_err(|e| AxisError::Workload(e.to_string()))?;
                match v.get_mut("synthetic").and_then(|m| m.get_mut("jobs")) {
                    Some(j) => *j = serde_json::Value::from(x as u64),
                    None => return Err(AxisError::JobsOfATrace),
                }
                exp.workload =
                    serde_json::from_value(v).map_err(|e| AxisError::Workload(e.to_string()))?;
            }
        }
        Ok(())
    }
}

/// Why a sweep axis cannot be set in an experiment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisError {
    /// The number of jobs of a trace (only a synthetic model's can be swept).
    JobsOfATrace,
    /// The workload does not go through JSON and back (serde's message).
    Workload(String),
}

impl fmt::Display for AxisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisError::JobsOfATrace => {
                f.write_str("Sweep: the number of jobs can be swept for a synthetic workload only.")
            }
            AxisError::Workload(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for AxisError {}

/// Most points a sweep may have (see [`crate::limits`]).
pub use crate::limits::MAX_SWEEP_POINTS;

/// Why a sweep is not valid: the form's input at fault (`sweep-from`, `sweep-to`,
/// `sweep-step`) and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepError {
    pub field: &'static str,
    pub message: String,
}

impl Sweep {
    /// The load factors of the sweep (rounded to 9 decimals, so that `0.5 + 5 × 0.1` is `1`),
    /// or why the sweep is not valid.
    pub fn points(&self) -> Result<Vec<f64>, String> {
        self.checked_points().map_err(|e| e.message)
    }

    /// [`Sweep::points`], the error naming the input at fault.
    pub fn checked_points(&self) -> Result<Vec<f64>, SweepError> {
        let Sweep {
            from,
            to,
            step,
            axis,
        } = *self;
        let err = |field, message| Err(SweepError { field, message });
        let seed = axis == SweepAxis::Seed;
        if !(from.is_finite() && (from > 0.0 || (seed && from == 0.0))) {
            return err(
                "sweep-from",
                format!(
                    "Sweep: \"from\" must be a number {} 0 (got {}).",
                    if seed { "≥" } else { ">" },
                    crate::limits::echo_number(from)
                ),
            );
        }
        if axis != SweepAxis::LoadFactor {
            for (field, name, x) in [("sweep-from", "from", from), ("sweep-step", "step", step)] {
                if x.fract() != 0.0 || x > 9.0e15 {
                    return err(
                        field,
                        format!(
                            "Sweep: \"{name}\" of {} must be a whole number (got {}).",
                            axis.key(),
                            crate::limits::echo_number(x)
                        ),
                    );
                }
            }
        }
        if !(to.is_finite() && to >= from) {
            return err(
                "sweep-to",
                format!(
                    "Sweep: \"to\" must be a number ≥ \"from\" ({}) (got {}).",
                    crate::limits::echo_number(from),
                    crate::limits::echo_number(to)
                ),
            );
        }
        if !(step.is_finite() && step > 0.0) {
            return err(
                "sweep-step",
                format!(
                    "Sweep: \"step\" must be a number > 0 (got {}).",
                    crate::limits::echo_number(step)
                ),
            );
        }
        let n = ((to - from) / step + 1e-9).floor() + 1.0;
        if n > MAX_SWEEP_POINTS as f64 {
            return err(
                "sweep-step",
                format!(
                    "Sweep: {from} to {to} in steps of {step} is {n} points; at most \
                     {MAX_SWEEP_POINTS}. Use a larger step."
                ),
            );
        }
        let round = |x: f64| (x * 1e9).round() / 1e9;
        Ok((0..n as usize)
            .map(|i| round(from + i as f64 * step))
            .collect())
    }
}

impl ShareState {
    /// The state of a comparison of `policies` on `experiment`.
    pub fn new(experiment: Experiment, policies: Vec<PolicyKind>) -> ShareState {
        ShareState {
            v: SHARE_VERSION,
            experiment,
            policies,
            sweep: None,
        }
    }

    /// The same state with a load-factor sweep.
    pub fn with_sweep(mut self, sweep: Option<Sweep>) -> ShareState {
        self.sweep = sweep;
        self
    }

    /// The policies to run, in order, without repeats (never empty).
    pub fn policies(&self) -> Vec<PolicyKind> {
        let mut out: Vec<PolicyKind> = Vec::new();
        for p in self.policies.iter().copied() {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            out.push(self.experiment.policy);
        }
        out
    }

    /// The SHA-256 the link requires of its trace (SWF workloads with a hash only).
    pub fn trace_sha256(&self) -> Option<&str> {
        match &self.experiment.workload {
            WorkloadSpec::Swf(src) => src.sha256.as_deref(),
            WorkloadSpec::Synthetic(_) => None,
        }
    }

    /// The state as compact JSON, every value equal to its default left out of the experiment.
    pub fn to_json(&self) -> String {
        serde_json::to_value(self)
            .map(|mut v| {
                if let Some(exp) = v.get_mut("experiment") {
                    compact_experiment(exp);
                }
                v.to_string()
            })
            .unwrap_or_default()
    }

    /// The fragment (without `#`): `x=` + base64url(JSON) + `.` + checksum (the old flat link;
    /// pages now write [`crate::modes::envelope::Envelope::to_fragment`]).
    pub fn to_fragment(&self) -> String {
        pack_fragment(FRAGMENT_PREFIX, &self.to_json())
    }

    /// Reads a fragment (with or without the leading `#`). `Ok(None)` when it is not a share
    /// link (empty, or another anchor such as `#about`); `Err` says why a link is unusable.
    pub fn from_fragment(fragment: &str) -> Result<Option<ShareState>, String> {
        let Some((text, checksum_ok)) =
            unpack_fragment(fragment, FRAGMENT_PREFIX, MAX_FRAGMENT_CHARS)?
        else {
            return Ok(None);
        };
        check_envelope(&text, SHARE_VERSION, "share-link", Some(checksum_ok))?;
        ShareState::from_json(&text).map(Some)
    }

    /// Reads the state's JSON: the version first, then the experiment and the sweep, validated.
    pub fn from_json(text: &str) -> Result<ShareState, String> {
        ShareState::from_json_with(text, &crate::limits::Limits::DEFAULT)
    }

    /// [`ShareState::from_json`] with the experiment validated under `limits` (the CLI may
    /// raise them).
    pub fn from_json_with(
        text: &str,
        limits: &crate::limits::Limits,
    ) -> Result<ShareState, String> {
        check_envelope(text, SHARE_VERSION, "share-link", None)?;
        let state: ShareState = crate::modes::flat::spec::parse_json(text)
            .map_err(|e| format!("the link's experiment is invalid: {}: {}", e.key, e.message))?;
        state
            .experiment
            .validate_with(limits)
            .map_err(|e| format!("the link's experiment is invalid: {e}"))?;
        if let Some(sweep) = &state.sweep {
            sweep
                .points()
                .map_err(|e| format!("the link's sweep is invalid: {e}"))?;
        }
        Ok(state)
    }
}

/// Leaves out of an experiment's JSON what equals its default (model parameters, transforms,
/// machine), which the reader fills in again: the same experiment in a shorter link.
fn compact_experiment(exp: &mut serde_json::Value) {
    use serde_json::Value;
    let Some(obj) = exp.as_object_mut() else {
        return;
    };
    let prune = |v: &mut Value, default: &Value, keep: &str| {
        if let (Some(o), Some(d)) = (v.as_object_mut(), default.as_object()) {
            o.retain(|k, x| k == keep || d.get(k) != Some(x));
        }
    };
    if let Some(model) = obj.get_mut("workload").and_then(|w| w.get_mut("synthetic")) {
        compact_model(model);
    }
    if let Ok(d) = serde_json::to_value(Transforms::default()) {
        if let Some(t) = obj.get_mut("transforms") {
            prune(t, &d, "");
        }
    }
    if obj
        .get("transforms")
        .and_then(|t| t.as_object())
        .is_some_and(|t| t.is_empty())
    {
        obj.remove("transforms");
    }
    if serde_json::to_value(MachineSpec::default()).ok().as_ref() == obj.get("machine") {
        obj.remove("machine");
    }
}

/// Leaves out of a synthetic model's JSON what equals the model's default (keeps `model`).
pub fn compact_model(model: &mut serde_json::Value) {
    let default = model
        .get("model")
        .cloned()
        .and_then(|name| {
            serde_json::from_value::<SyntheticModel>(serde_json::json!({ "model": name })).ok()
        })
        .and_then(|m| serde_json::to_value(m).ok());
    if let (Some(o), Some(d)) = (
        model.as_object_mut(),
        default.as_ref().and_then(|d| d.as_object()),
    ) {
        o.retain(|k, x| k == "model" || d.get(k) != Some(x));
    }
}

/// Just the version of a link's JSON (every other key is ignored).
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    v: Option<u64>,
}

/// Judges a link's JSON `text` before its content: its envelope version `v` must be
/// `version` (else the message names both, `kind` saying which link: `share-link`,
/// `mesh share-link`, `grid-link`), then its checksum must match (`checksum_ok`, `None` when
/// the caller checks it later). The version comes first so that a link of another version
/// is never judged by this version's rules.
pub fn check_envelope(
    text: &str,
    version: u32,
    kind: &str,
    checksum_ok: Option<bool>,
) -> Result<(), String> {
    let envelope: Envelope = serde_json::from_str(text)
        .map_err(|e| format!("the link is damaged (its content is not valid JSON: {e})"))?;
    match envelope.v {
        Some(v) if v == u64::from(version) => {}
        Some(v) => {
            return Err(format!(
                "the link was made by a version of schedlab that writes {kind} format {v}; \
                 this page reads format {version} only. Open it with a matching version of \
                 schedlab, or rebuild the experiment by hand."
            ))
        }
        None => {
            return Err("the link is damaged (it has no format version `v`; was it edited?)".into())
        }
    }
    if checksum_ok == Some(false) {
        return Err(
            "the link is damaged (its checksum does not match: was it cut or edited?)".into(),
        );
    }
    Ok(())
}

/// A share-link fragment: `prefix` + base64url (no padding) of `json` + `.` + its checksum.
pub fn pack_fragment(prefix: &str, json: &str) -> String {
    format!(
        "{prefix}{}.{}",
        base64url_encode(json.as_bytes()),
        checksum(json.as_bytes())
    )
}

/// The JSON text of a fragment made by [`pack_fragment`] with `prefix` (the leading `#`
/// optional) and whether its checksum matches: `Ok(None)` when the fragment is not of this
/// kind, `Err` when it is too long or not text. The caller judges the version before the
/// checksum, so that a link of another version is never judged by this version's rules.
pub fn unpack_fragment(
    fragment: &str,
    prefix: &str,
    max_chars: usize,
) -> Result<Option<(String, bool)>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let Some(data) = f.strip_prefix(prefix) else {
        return Ok(None);
    };
    if data.len() > max_chars {
        return Err(format!(
            "the link is too long ({} characters; at most {max_chars})",
            data.len()
        ));
    }
    let (data, check) = data.rsplit_once('.').unwrap_or((data, ""));
    let bytes = base64url_decode(data).ok_or_else(|| {
        "the link is damaged (it is not valid base64url; was it cut or edited?)".to_string()
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| "the link is damaged (its content is not text)".to_string())?;
    let ok = check == checksum(text.as_bytes());
    Ok(Some((text, ok)))
}

/// FNV-1a (32 bits) of `data` as 8 lower-case hex digits: catches a cut or edited link.
pub fn checksum(data: &[u8]) -> String {
    let h = data.iter().fold(0x811c_9dc5_u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}")
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5).
pub fn base64url_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// Decodes base64url (padding and the standard alphabet's `+` `/` tolerated); `None` if it is
/// not base64.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A single leftover character, or leftover bits that are not zero, cannot come from an
    // encoder.
    if text.len() % 4 == 1 || acc != 0 {
        return None;
    }
    Some(out)
}

impl crate::modes::ModeLink for ShareState {
    fn mode(&self) -> crate::modes::Mode {
        crate::modes::Mode::Flat
    }

    fn state_json(&self) -> String {
        self.to_json()
    }

    fn written_experiment(&self) -> Box<dyn crate::modes::ModeExperiment> {
        crate::modes::experiment_of::<crate::modes::flat::Flat>(self.experiment.clone())
    }

    fn experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<Box<dyn crate::modes::ModeExperiment>, crate::error::Error> {
        Ok(crate::modes::experiment_of::<crate::modes::flat::Flat>(
            self.experiment.clone(),
        ))
    }

    fn compared_hint(&self) -> Option<String> {
        (self.policies().len() > 1 || self.sweep.is_some()).then(|| {
            "the link compares several policies or load factors: add --policy for each".into()
        })
    }

    fn single_experiment(
        &self,
        _: &crate::limits::Limits,
    ) -> Result<serde_json::Value, (String, String)> {
        if self.policies().len() > 1 {
            return Err(crate::modes::one_run_only("policies", "policy"));
        }
        if self.sweep.is_some() {
            return Err((
                "base.sweep".into(),
                "make the load factors an axis ({\"key\": \"load_factor\", \"from\": …, \
                 \"to\": …, \"step\": …}) instead"
                    .into(),
            ));
        }
        let mut e = self.experiment.clone();
        e.policy = self.policies().first().copied().unwrap_or(e.policy);
        crate::modes::experiment_value(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_errors_in_words() {
        assert_eq!(
            AxisError::JobsOfATrace.to_string(),
            "Sweep: the number of jobs can be swept for a synthetic workload only."
        );
        assert_eq!(AxisError::Workload("bad".into()).to_string(), "bad");
    }
}
