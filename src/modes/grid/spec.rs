//! A grid experiment as JSON (Ernemann et al. §III–IV): sites with a machine size, a time-zone
//! offset and a workload each — an SWF trace or a seeded synthetic model, exactly as in a
//! flat [`crate::modes::flat::spec::Experiment`] — plus the sharing mode, the local policy and the seed.
//! [`prepare_sites`] loads, aligns (§IV-A) and cuts the workloads and places them in grid
//! time; [`run_grid`] simulates and measures. The CLI and the page can both go through here.
//!
//! ```json
//! {"sites": [
//!    {"name": "Europe", "procs": 128, "tz_offset_hours": 0,
//!     "workload": {"synthetic": {"model": "lublin", "jobs": 5000}}},
//!    {"name": "America", "procs": 128, "tz_offset_hours": 6,
//!     "workload": {"swf": {"path": "CTC-SP2-1996-3.1-cln.swf.gz"}}}],
//!  "sharing": "job_sharing", "policy": "easy", "seed": 1}
//! ```
//!
//! Synthetic sites get the seed `seed + site index` (so two sites with the same model differ);
//! their time 0 is taken as Monday 00:00 local. Traces are aligned to their first Monday
//! 00:00 local time when they carry a `UnixStartTime` (else they keep their time 0, noted).

use std::fmt;
use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::grid::align::{align_workload, shortest_span, AlignedWorkload};
use crate::grid::engine::GridSimulation;
use crate::grid::local::LocalPolicy;
use crate::grid::metrics::GridMetrics;
use crate::grid::site::{GridError, Sharing, Site};
use crate::limits::{as_u64, Limits};
use crate::modes::flat::spec::{ConfigError, ExperimentFile, SwfSource, WorkloadSpec};
use crate::workload::swf::{read_swf, ReadOptions, SwfError};
use crate::workload::Workload;

/// The format version this build reads.
pub const GRID_FORMAT_VERSION: u32 = 1;

/// Most sites a grid experiment may have (see [`crate::limits`]).
pub use crate::limits::MAX_SITES;

fn one() -> u32 {
    GRID_FORMAT_VERSION
}

fn yes() -> bool {
    true
}

fn job_sharing() -> Sharing {
    Sharing::JobSharing
}

/// One site of a grid experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteSpec {
    /// Label (default: `site N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Nodes of the machine (default: the trace header's MaxProcs, else MaxNodes, else the
    /// synthetic model's machine size, else the largest job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procs: Option<u32>,
    /// Time-zone offset in hours: the site's local Monday 00:00 is at grid time h · 3600.
    #[serde(default)]
    pub tz_offset_hours: f64,
    /// The local workload.
    pub workload: WorkloadSpec,
    /// Align a trace to its first Monday 00:00 local time (§IV-A).
    #[serde(default = "yes")]
    pub align_monday: bool,
}

/// A grid experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridExperiment {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub sites: Vec<SiteSpec>,
    /// `single` or `job_sharing` (default).
    #[serde(default = "job_sharing")]
    pub sharing: Sharing,
    /// `easy` or `conservative`.
    pub policy: LocalPolicy,
    /// Seed of the synthetic workloads.
    #[serde(default)]
    pub seed: u64,
    /// Cut every workload to the span of the shortest (the ALL_* configurations).
    #[serde(default)]
    pub cut_to_shortest: bool,
}

/// Anything that stops a grid experiment.
#[derive(Clone, Debug, PartialEq)]
pub enum GridRunError {
    /// The description is invalid (key and message).
    Config(ConfigError),
    /// A trace cannot be read.
    Swf(SwfError),
    /// A site's trace was not supplied.
    MissingTrace { site: String },
    /// A site has no job left.
    EmptySite { site: String },
    /// The simulation refused a step.
    Grid(GridError),
}

impl fmt::Display for GridRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridRunError::Config(e) => write!(f, "{e}"),
            GridRunError::Swf(e) => write!(f, "{e}"),
            GridRunError::MissingTrace { site } => {
                write!(
                    f,
                    "missing trace: site {site} reads a trace that was not supplied"
                )
            }
            GridRunError::EmptySite { site } => write!(f, "site {site} has no job to simulate"),
            GridRunError::Grid(e) => write!(f, "grid simulation failed: {e}"),
        }
    }
}

impl std::error::Error for GridRunError {}

impl From<GridError> for GridRunError {
    fn from(e: GridError) -> Self {
        GridRunError::Grid(e)
    }
}

impl ExperimentFile for GridExperiment {
    fn check(&self, limits: &Limits) -> Result<(), ConfigError> {
        self.validate_with(limits)
    }
}

impl GridExperiment {
    /// Checks what serde cannot — version, number of sites, sizes, offsets, models — under
    /// `limits` (the CLI may raise them; [`ExperimentFile::validate`]: the default [`Limits`]):
    /// every site's model within `max_jobs`, sites × all models' jobs within `max_grid_cells`.
    pub fn validate_with(&self, limits: &Limits) -> Result<(), ConfigError> {
        let err = |key: String, message: String| ConfigError { key, message };
        if self.version != GRID_FORMAT_VERSION {
            return Err(err(
                "version".into(),
                format!(
                    "grid format version {} is not supported (this build reads {})",
                    self.version, GRID_FORMAT_VERSION
                ),
            ));
        }
        if self.sites.is_empty() || self.sites.len() > MAX_SITES {
            return Err(err(
                "sites".into(),
                format!("needs 1 to {MAX_SITES} sites (got {})", self.sites.len()),
            ));
        }
        let mut total_jobs = 0u64;
        for (i, s) in self.sites.iter().enumerate() {
            if s.procs == Some(0) {
                return Err(err(format!("sites[{i}].procs"), "must be > 0".into()));
            }
            if !(s.tz_offset_hours.is_finite() && s.tz_offset_hours.abs() <= 168.0) {
                return Err(err(
                    format!("sites[{i}].tz_offset_hours"),
                    format!(
                        "must be within ±168 (got {})",
                        crate::limits::echo_number(s.tz_offset_hours)
                    ),
                ));
            }
            match &s.workload {
                WorkloadSpec::Swf(src) => {
                    if src.path.is_none() && src.name.is_none() {
                        return Err(err(
                            format!("sites[{i}].workload.swf"),
                            "needs a `path` (or, in the web app, a `name`)".into(),
                        ));
                    }
                }
                WorkloadSpec::Synthetic(m) => {
                    m.validate().map_err(|e| {
                        err(format!("sites[{i}].workload.synthetic"), e.to_string())
                    })?;
                    limits.check_jobs(&format!("sites[{i}].workload.synthetic.jobs"), m.jobs())?;
                    total_jobs = total_jobs.saturating_add(as_u64(m.jobs()));
                }
            }
        }
        limits.check_grid("sites", self.sites.len(), total_jobs)
    }

    /// Label of site `i`.
    pub fn site_name(&self, i: usize) -> String {
        self.sites
            .get(i)
            .and_then(|s| s.name.clone())
            .unwrap_or_else(|| format!("site {}", i + 1))
    }
}

/// The sites of `exp` ready to simulate, with what the alignment did per site. `traces[i]`
/// is site i's trace (a name for messages and a reader), `None` for synthetic sites.
pub fn prepare_sites(
    exp: &GridExperiment,
    traces: Vec<Option<(String, Box<dyn Read + '_>)>>,
) -> Result<(Vec<Site>, Vec<AlignedWorkload>), GridRunError> {
    prepare_sites_with(exp, traces, &Limits::DEFAULT)
}

/// [`prepare_sites`] under `limits` (the CLI may raise them): traces are read within the
/// byte and job limits, and sites × all sites' jobs stay within `max_grid_cells`.
pub fn prepare_sites_with(
    exp: &GridExperiment,
    mut traces: Vec<Option<(String, Box<dyn Read + '_>)>>,
    limits: &Limits,
) -> Result<(Vec<Site>, Vec<AlignedWorkload>), GridRunError> {
    exp.validate_with(limits).map_err(GridRunError::Config)?;
    let mut total_jobs = 0u64;
    traces.resize_with(exp.sites.len(), || None);
    let mut aligned = Vec::with_capacity(exp.sites.len());
    // Each trace read once: sites with the same source (path or uploaded file, same options)
    // take a copy of the first one's jobs, the last of them the jobs themselves.
    let mut read: Vec<(&SwfSource, Workload)> = Vec::new();
    for (i, (spec, trace)) in exp.sites.iter().zip(traces).enumerate() {
        let name = exp.site_name(i);
        let used_later = exp.sites[i + 1..]
            .iter()
            .any(|s| s.workload == spec.workload);
        let (mut w, model_procs) = match &spec.workload {
            WorkloadSpec::Swf(src) => {
                if let Some(at) = read.iter().position(|(s, _)| *s == src) {
                    let w = if used_later {
                        read[at].1.clone()
                    } else {
                        read.swap_remove(at).1
                    };
                    (w, None)
                } else {
                    let Some((source, reader)) = trace else {
                        return Err(GridRunError::MissingTrace { site: name });
                    };
                    // No grid output needs a job's SWF record: read without them (about half
                    // the memory per job, `workload/job.rs`).
                    let opts = ReadOptions {
                        lean: true,
                        ..ReadOptions::limited(&source, src.lenient, limits)
                    };
                    let w = read_swf(reader, &opts).map_err(GridRunError::Swf)?;
                    if used_later {
                        read.push((src, w.clone()));
                    }
                    (w, None)
                }
            }
            WorkloadSpec::Synthetic(model) => (
                model.generate(exp.seed.wrapping_add(i as u64)),
                Some(model.machine_procs()),
            ),
        };
        let procs = spec
            .procs
            .or_else(|| {
                w.header
                    .max_procs
                    .filter(|&p| p > 0)
                    .or(w.header.max_nodes.filter(|&p| p > 0))
                    .map(|p| p.min(u32::MAX as u64) as u32)
            })
            .or(model_procs)
            .unwrap_or_else(|| w.max_procs().max(1));
        if !spec.align_monday {
            // Keep the trace's own time 0: an alignment without a start time is a no-op.
            w.header.unix_start_time = None;
        }
        total_jobs = total_jobs.saturating_add(as_u64(w.jobs.len()));
        limits
            .check_grid("sites", exp.sites.len(), total_jobs)
            .map_err(GridRunError::Config)?;
        let mut a = align_workload(&name, w, procs);
        if !spec.align_monday {
            a.notes.clear();
        }
        if a.jobs.is_empty() {
            return Err(GridRunError::EmptySite { site: name });
        }
        aligned.push(a);
    }
    let span = if exp.cut_to_shortest {
        shortest_span(&aligned.iter().collect::<Vec<_>>())
    } else {
        None
    };
    let sites = aligned
        .iter()
        .zip(&exp.sites)
        .map(|(a, s)| a.site(&a.name, s.tz_offset_hours, span))
        .collect();
    Ok((sites, aligned))
}

/// Everything a grid run produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridOutput {
    pub metrics: GridMetrics,
    /// Per site: jobs read, removed before the Monday, dropped (Table II).
    pub alignment: Vec<AlignedWorkload>,
    /// Invariant violations (must be empty).
    pub violations: Vec<String>,
}

/// Loads, simulates and measures a grid experiment in one call.
pub fn run_grid(
    exp: &GridExperiment,
    traces: Vec<Option<(String, Box<dyn Read + '_>)>>,
) -> Result<GridOutput, GridRunError> {
    let (sites, alignment) = prepare_sites(exp, traces)?;
    let result = GridSimulation::new(sites, exp.sharing, exp.policy)?.run_to_end()?;
    Ok(GridOutput {
        violations: crate::grid::invariants::check(&result),
        metrics: GridMetrics::from_result(&result),
        alignment,
    })
}

/// Ernemann et al.'s "global grid across time zones" on synthetic workloads with daily cycles
/// (Lublin–Feitelson, 128 nodes per site), four sites 6 hours apart, EASY, job sharing — a
/// preset that runs without uploads.
pub fn preset_global_grid() -> GridExperiment {
    let site = |name: &str, h: f64| SiteSpec {
        name: Some(name.to_string()),
        procs: None,
        tz_offset_hours: h,
        workload: WorkloadSpec::Synthetic(crate::workload::synthetic::SyntheticModel::default()),
        align_monday: true,
    };
    GridExperiment {
        version: GRID_FORMAT_VERSION,
        name: Some("Global grid across time zones (Ernemann et al.)".into()),
        sites: vec![
            site("Europe", 0.0),
            site("Americas East", 6.0),
            site("Pacific", 12.0),
            site("Asia", 18.0),
        ],
        sharing: Sharing::JobSharing,
        policy: LocalPolicy::Easy,
        seed: 1,
        cut_to_shortest: false,
    }
}
