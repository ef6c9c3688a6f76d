//! Seeded synthetic workload models.
//!
//! * [`mesh_jobs`] — Ababneh & Bani-Mohammad §5.1: Poisson arrivals, exponential
//!   service times with mean 1, submesh sides uniform or uniform-decreasing on a 2D mesh.
//! * [`exponential_jobs`] — Mache et al. Table 1, workload I: exponential job sizes
//!   (mean 4 × 4 = 16) and exponential interarrival times, 1000 jobs.
//! * [`lublin`] — Lublin and Feitelson, "The workload on parallel supercomputers: modeling the
//!   characteristics of rigid jobs", JPDC 63(11), 2003, with the batch-job constants of the
//!   authors' C implementation `m_lublin99.c`.
//!
//! Every model draws all of its randomness from one [`crate::base::SimRng`] seeded with the
//! experiment seed and does its transcendental math through `libm`, so the same parameters and
//! seed give bit-identical workloads natively and on wasm32. Generated jobs are numbered
//! 1..n in arrival order and their times start at 0. Parameters are plain serde structs whose
//! `Default` is the paper's setting; `validate` names the offending key, and `generate` on
//! parameters that do not validate returns an empty workload instead of panicking.
//! See `docs/workload-models.md`.

pub mod exponential_jobs;
pub mod lublin;
pub mod mesh_jobs;

use serde::{Deserialize, Serialize};

use crate::base::ParamError;
use crate::workload::{SwfHeader, Workload};

pub use exponential_jobs::ExponentialJobsParams;
pub use lublin::LublinParams;
pub use mesh_jobs::{MeshJobsParams, SideDistribution};

/// One synthetic model with its parameters, selected by the `model` key:
/// `{"model": "lublin", "jobs": 5000}`; keys left out take the paper's defaults.
///
/// Unknown keys are rejected: serde hands each parameter struct every key except the
/// `model` tag, and the structs carry `deny_unknown_fields` (tested in `tests/it/synthetic.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum SyntheticModel {
    /// Lublin–Feitelson rigid-job model (batch jobs).
    Lublin(LublinParams),
    /// Ababneh & Bani-Mohammad §5.1 mesh model (submesh shapes, Poisson arrivals).
    /// (`mesh_jobs` is the tag's older name, still read.)
    #[serde(alias = "mesh_jobs")]
    MeshJobs(MeshJobsParams),
    /// Mache et al. Table 1 synthetic workload I (exponential sizes and interarrival times).
    /// (`exponential_jobs` is the tag's older name, still read.)
    #[serde(alias = "exponential_jobs")]
    ExponentialJobs(ExponentialJobsParams),
}

impl Default for SyntheticModel {
    fn default() -> Self {
        SyntheticModel::Lublin(LublinParams::default())
    }
}

impl SyntheticModel {
    /// Generates the workload for `seed`; same parameters and seed, same jobs, bit for bit.
    /// Parameters that fail [`SyntheticModel::validate`] give an empty workload.synthetic.
    pub fn generate(&self, seed: u64) -> Workload {
        match self {
            SyntheticModel::Lublin(p) => p.generate(seed),
            SyntheticModel::MeshJobs(p) => p.generate(seed),
            SyntheticModel::ExponentialJobs(p) => p.generate(seed),
        }
    }

    /// Checks the parameters; the error names the offending key.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            SyntheticModel::Lublin(p) => p.validate(),
            SyntheticModel::MeshJobs(p) => p.validate(),
            SyntheticModel::ExponentialJobs(p) => p.validate(),
        }
    }

    /// Number of jobs the model generates.
    pub fn jobs(&self) -> usize {
        match self {
            SyntheticModel::Lublin(p) => p.jobs,
            SyntheticModel::MeshJobs(p) => p.jobs,
            SyntheticModel::ExponentialJobs(p) => p.jobs,
        }
    }

    /// The `model` tag: `lublin`, `mesh_jobs` or `exponential_jobs`.
    pub fn name(&self) -> &'static str {
        match self {
            SyntheticModel::Lublin(_) => "lublin",
            SyntheticModel::MeshJobs(_) => "mesh_jobs",
            SyntheticModel::ExponentialJobs(_) => "exponential_jobs",
        }
    }

    /// Number of processors of the machine the model was parameterised for.
    pub fn machine_procs(&self) -> u32 {
        match self {
            SyntheticModel::Lublin(p) => p.procs,
            SyntheticModel::MeshJobs(p) => p.width.saturating_mul(p.height),
            SyntheticModel::ExponentialJobs(p) => p.procs,
        }
    }

    /// Mesh (width, height) for the mesh model, `None` for flat machines.
    pub fn mesh_shape(&self) -> Option<(u32, u32)> {
        match self {
            SyntheticModel::MeshJobs(p) => Some((p.width, p.height)),
            _ => None,
        }
    }
}

/// Header shared by the synthetic models: job counts, machine size and a note naming the
/// model and seed. No `UnixStartTime`, so time-zone alignment does not apply.
pub(crate) fn synthetic_header(model: &str, seed: u64, jobs: usize, procs: u32) -> SwfHeader {
    SwfHeader {
        version: Some("2.2".to_string()),
        max_jobs: Some(jobs as u64),
        max_records: Some(jobs as u64),
        max_nodes: Some(u64::from(procs)),
        max_procs: Some(u64::from(procs)),
        notes: vec![format!(
            "Synthetic workload generated by schedlab: model {model}, seed {seed}"
        )],
        ..SwfHeader::default()
    }
}

/// `Err` unless `v` is a positive finite number.
pub(crate) fn check_positive(key: &str, v: f64) -> Result<(), ParamError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ParamError::NotPositive {
            key: key.into(),
            value: v,
        })
    }
}

/// `Err` unless `v` is a probability in [0, 1].
pub(crate) fn check_probability(key: &str, v: f64) -> Result<(), ParamError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ParamError::NotProbability {
            key: key.into(),
            value: v,
        })
    }
}
