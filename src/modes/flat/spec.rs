//! The experiment description: one serde JSON format (workload, transforms, machine, policy,
//! seed) read by the CLI and carried by the web app's share links. Documented in
//! `docs/experiment-format.md`. Unknown keys and bad values are rejected with a message that
//! names the key.

use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::policy::{PolicyAxes, PolicyKind};
use crate::workload::synthetic::SyntheticModel;
use crate::workload::transform::Transforms;

/// The current format version.
pub const FORMAT_VERSION: u32 = 1;

fn default_version() -> u32 {
    FORMAT_VERSION
}

/// One simulation run: a workload, how to transform it, a machine, a policy and a seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Format version (currently 1).
    #[serde(default = "default_version")]
    pub version: u32,
    /// Free-text label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub transforms: Transforms,
    #[serde(default)]
    pub machine: MachineSpec,
    pub policy: PolicyKind,
    /// The policy's queue order, backfill order and run-time estimates (docs/policies.md);
    /// absent: arrival order and the user's requests, the policies of the papers.
    #[serde(default, skip_serializing_if = "PolicyAxes::is_default")]
    pub queue: PolicyAxes,
    /// Seed of every random choice in the run (synthetic workloads).
    #[serde(default)]
    pub seed: u64,
}

/// Where the jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// A trace in the Standard Workload Format.
    Swf(SwfSource),
    /// A seeded synthetic model.
    Synthetic(SyntheticModel),
}

/// An SWF trace: a path (CLI) or an uploaded file identified by name and SHA-256 (web).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwfSource {
    /// File path, relative to the experiment file's folder (CLI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// File name as uploaded (web).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Lower-case hex SHA-256 of the file as uploaded (web share links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Skip and count malformed lines instead of failing.
    #[serde(default)]
    pub lenient: bool,
}

/// The machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MachineSpec {
    /// Identical processors; `procs` defaults to the trace header's MaxProcs, else MaxNodes,
    /// else the synthetic model's machine size, else the largest job.
    Flat {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        procs: Option<u32>,
    },
}

impl Default for MachineSpec {
    fn default() -> Self {
        MachineSpec::Flat { procs: None }
    }
}

pub use crate::base::ConfigError;

/// What every mode's experiment file is ([`Experiment`], `MeshExperiment`, `GridExperiment`):
/// serde JSON, checked by one path — parse (errors name the key), then `validate_with` the
/// limits. Import it to call `from_json`, `to_json` and `validate`.
pub trait ExperimentFile: Serialize + serde::de::DeserializeOwned + Sized {
    /// Checks what serde cannot (version, sizes, ranges, models) under `limits`.
    fn check(&self, limits: &Limits) -> Result<(), ConfigError>;

    /// [`ExperimentFile::check`] under the default [`Limits`].
    fn validate(&self) -> Result<(), ConfigError> {
        self.check(&Limits::DEFAULT)
    }

    /// Parses and validates an experiment from JSON text.
    fn from_json(text: &str) -> Result<Self, ConfigError> {
        let exp: Self = parse_json(text)?;
        exp.validate()?;
        Ok(exp)
    }

    /// The experiment as pretty JSON.
    fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl ExperimentFile for Experiment {
    fn check(&self, limits: &Limits) -> Result<(), ConfigError> {
        self.validate_with(limits)
    }
}

/// Parses JSON text into `T` strictly; an error names the key path (`workload.synthetic.jobs`).
/// Strict means: nothing but white space after the document (a second document, `garbage`,
/// a trailing `,` or NUL is refused with its position), and an object wherever `T` has a
/// struct (serde would also accept an array of the fields in order, so `"flat": []` would
/// pass for `"flat": {}`).
pub fn parse_json<T: serde::de::DeserializeOwned + Serialize>(
    text: &str,
) -> Result<T, ConfigError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut *de).map_err(|e| ConfigError {
        key: crate::limits::echo(&e.path().to_string()),
        message: crate::limits::echo_backticked(&e.inner().to_string()),
    })?;
    de.end().map_err(|e| ConfigError {
        key: ".".into(),
        message: format!(
            "trailing data after the JSON document (line {}, column {}): a file holds one \
             document and nothing after it",
            e.line(),
            e.column()
        ),
    })?;
    check_objects(text, &value)?;
    Ok(value)
}

/// Refuses an array in `text` where `parsed` (what it was read into) has an object: the
/// document is read again as a JSON tree and compared with `parsed` written back.
fn check_objects<T: Serialize>(text: &str, parsed: &T) -> Result<(), ConfigError> {
    let (Ok(input), Ok(output)) = (
        serde_json::from_str::<serde_json::Value>(text),
        serde_json::to_value(parsed),
    ) else {
        return Ok(());
    };
    match array_for_object(&input, &output, String::new()) {
        Some(key) => Err(ConfigError {
            key: if key.is_empty() { ".".into() } else { key },
            message: "expected an object {…}, found an array".into(),
        }),
        None => Ok(()),
    }
}

/// The key path of the first place where `input` has an array and `output` an object.
fn array_for_object(
    input: &serde_json::Value,
    output: &serde_json::Value,
    path: String,
) -> Option<String> {
    use serde_json::Value;
    match (input, output) {
        (Value::Array(_), Value::Object(_)) => Some(path),
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(k, v)| {
            let sub = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            array_for_object(v, b.get(k)?, sub)
        }),
        (Value::Array(a), Value::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| array_for_object(x, y, format!("{path}[{i}]"))),
        _ => None,
    }
}

/// Rejects a document of another format version, naming the key `version`.
pub fn check_version(found: u32, supported: u32) -> Result<(), ConfigError> {
    if found == supported {
        return Ok(());
    }
    Err(ConfigError {
        key: "version".into(),
        message: format!(
            "format version {found} is not supported (this build reads version {supported})"
        ),
    })
}

impl Experiment {
    /// An experiment on the workload `workload` with everything else at its default.
    pub fn new(workload: WorkloadSpec, policy: PolicyKind) -> Experiment {
        Experiment {
            version: FORMAT_VERSION,
            name: None,
            workload,
            transforms: Transforms::default(),
            machine: MachineSpec::default(),
            policy,
            queue: Default::default(),
            seed: 0,
        }
    }

    /// An experiment replaying the SWF trace at `path` under `policy`.
    pub fn for_trace(path: &str, policy: PolicyKind) -> Experiment {
        Experiment::new(
            WorkloadSpec::Swf(SwfSource {
                path: Some(path.to_string()),
                ..SwfSource::default()
            }),
            policy,
        )
    }

    /// Checks values serde cannot — version, ranges, model parameters — under `limits` (the
    /// CLI may raise them; [`ExperimentFile::validate`] uses the default [`Limits`]).
    pub fn validate_with(&self, limits: &Limits) -> Result<(), ConfigError> {
        let err = |key: &str, message: String| ConfigError {
            key: key.to_string(),
            message,
        };
        check_version(self.version, FORMAT_VERSION)?;
        match &self.workload {
            WorkloadSpec::Swf(src) => {
                if src.path.is_none() && src.name.is_none() {
                    return Err(err(
                        "workload.swf",
                        "needs a `path` (or, in the web app, a `name`)".into(),
                    ));
                }
                if let Some(h) = &src.sha256 {
                    if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(err(
                            "workload.swf.sha256",
                            "must be 64 hexadecimal digits".into(),
                        ));
                    }
                }
            }
            WorkloadSpec::Synthetic(model) => {
                model.validate()?;
                limits.check_jobs("workload.synthetic.jobs", model.jobs())?;
            }
        }
        self.transforms.validate_up_to(limits.max_load_factor)?;
        match self.machine {
            MachineSpec::Flat { procs: Some(0) } => {
                return Err(err("machine.flat.procs", "must be at least 1".into()))
            }
            MachineSpec::Flat { .. } => {}
        }
        Ok(())
    }
}
