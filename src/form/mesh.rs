//! The 2D-mesh form (`#mesh-mode`): the values typed in it → the base experiment, the
//! allocators and the contiguous allocators' policy ([`read`]), then one [`MeshExperiment`] per
//! allocator ([`experiments_for`]) or per (non-contiguous allocator, traffic ratio)
//! ([`sweep_experiments`]); or the first [`FieldError`], naming the field.

use serde::{Deserialize, Serialize};

use super::{number, FieldError, TraceFacts};
use crate::base::Registered;
use crate::modes::flat::spec::{ConfigError, WorkloadSpec};
use crate::modes::mesh::presets::preset_window;
use crate::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment, WormholeSpec};
use crate::network::flow::PhaseConfig;
use crate::policy::mesh::{MeshPolicyKind, MESH_POLICIES};
use crate::workload::synthetic::{ExponentialJobsParams, MeshJobsParams, SyntheticModel};

/// Traffic ratios of the sweep, in % I/O.
pub const SWEEP_RHOS: [u32; 6] = [0, 20, 40, 60, 80, 100];

/// The workload chosen in the mesh form, with its fields as typed.
#[derive(Clone, Debug)]
pub enum MeshWorkload {
    /// Ababneh & Bani-Mohammad's synthetic model: `#mesh-mesh_jobs`, `#mesh-rate`, `#mesh-sides`.
    MeshJobs {
        jobs: String,
        rate: String,
        sides: String,
    },
    /// Mache et al.'s synthetic model: `#mesh-exp_jobs`, `#mesh-interarrival`.
    ExponentialJobs { jobs: String, interarrival: String },
    /// The uploaded trace.
    Trace,
}

/// The mesh form as typed.
#[derive(Clone, Debug)]
pub struct MeshFields {
    /// `#mesh-width`, `#mesh-height`.
    pub width: String,
    pub height: String,
    pub workload: MeshWorkload,
    /// `#mesh-shape`, `#mesh-io-side` (option values: the JSON names).
    pub shape: String,
    pub io_side: String,
    /// `#mesh-io-count` (empty: one per row).
    pub io_count: String,
    /// `#mesh-rho`, in % I/O.
    pub rho: String,
    /// `#mesh-exchanges`: empty = the fluid traffic mix of ρ (Mache et al.); a whole number = Liu
    /// et al.'s phase model with that many all-to-all exchanges between two writes.
    pub exchanges: String,
    /// `#mesh-model`: the contention model of the non-contiguous allocators (`flow`,
    /// `separated`, `wormhole`); empty = the edited experiment's.
    pub model: String,
    /// The wormhole model's parameters (Mache et al. §4.1; read only when `model` is
    /// `wormhole`).
    pub wormhole: WormholeFields,
    /// `#mesh-seed`.
    pub seed: String,
    /// The ticked allocators, in the form's order.
    pub allocators: Vec<MeshAllocatorKind>,
    /// `#mesh-policy` (`fcfs`, `oo`, `oocb`, `window`, `delay`) and `#mesh-policy-k`.
    pub policy: String,
    pub policy_k: String,
}

/// The wormhole model's fields as typed (`network.wormhole`, docs/network-model.md).
#[derive(Clone, Debug, Default)]
pub struct WormholeFields {
    /// `#mesh-worm-flits`: flits per packet.
    pub flits: String,
    /// `#mesh-worm-flit-time`: seconds per flit time.
    pub flit_time: String,
    /// `#mesh-worm-round`: seconds of a job's run time per round of its traffic.
    pub round_length: String,
}

impl WormholeFields {
    /// The fields showing `spec`.
    pub fn of(spec: &WormholeSpec) -> WormholeFields {
        WormholeFields {
            flits: spec.flits.to_string(),
            flit_time: spec.flit_time.to_string(),
            round_length: spec.round_length.to_string(),
        }
    }
}

/// The form's inputs of the wormhole parameters: (key under `network.wormhole`, input id,
/// label).
pub const WORMHOLE_FIELDS: [(&str, &str, &str); 3] = [
    ("flits", "mesh-worm-flits", "Flits per packet"),
    ("flit_time", "mesh-worm-flit-time", "Flit time"),
    ("round_length", "mesh-worm-round", "Round length"),
];

/// Reads the wormhole fields: every value in range, or the error naming its input.
pub fn read_wormhole(f: &WormholeFields) -> Result<WormholeSpec, FieldError> {
    let spec = WormholeSpec {
        flits: number(
            "mesh-worm-flits",
            &f.flits,
            "Flits per packet",
            "a whole number of flits",
        )?,
        flit_time: number(
            "mesh-worm-flit-time",
            &f.flit_time,
            "Flit time",
            "a number of seconds per flit",
        )?,
        round_length: number(
            "mesh-worm-round",
            &f.round_length,
            "Round length",
            "a number of seconds of run time per round",
        )?,
    };
    spec.validate().map_err(|(key, m)| {
        let (id, label) = WORMHOLE_FIELDS
            .iter()
            .find(|(k, _, _)| *k == key)
            .map_or(("mesh-model", "Wormhole"), |(_, id, label)| (*id, *label));
        FieldError::new(id, format!("{label}: {m}."))
    })?;
    Ok(spec)
}

/// The JSON name of a unit variant (`"uniform"`), the value of its `<option>`.
pub fn option_value<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The unit variant of an `<option>` value, if it is one.
pub fn from_option<T: for<'de> Deserialize<'de>>(s: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

/// Reads the form over `base` (the experiment it edits, keeping what it does not show: κ,
/// transforms…; Ababneh & Bani-Mohammad's preset if none): the base experiment (first allocator), the
/// allocators and the policy of the contiguous ones. `trace` is the uploaded trace, if any.
pub fn read(
    f: &MeshFields,
    base: Option<&MeshExperiment>,
    trace: Option<&TraceFacts>,
) -> Result<(MeshExperiment, Vec<MeshAllocatorKind>, MeshPolicyKind), FieldError> {
    let mut exp = base.cloned().unwrap_or_else(preset_window);
    exp.width = number(
        "mesh-width",
        &f.width,
        "Width W",
        "a whole number of columns",
    )?;
    exp.height = number(
        "mesh-height",
        &f.height,
        "Height H",
        "a whole number of rows",
    )?;
    let (w, h) = (exp.width, exp.height);
    match &f.workload {
        MeshWorkload::MeshJobs { jobs, rate, sides } => {
            let mut p = match &exp.workload {
                WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(p)) => p.clone(),
                _ => MeshJobsParams::default(),
            };
            p.jobs = number("mesh-mesh_jobs", jobs, "Jobs", "a whole number")?;
            p.arrival_rate = number(
                "mesh-rate",
                rate,
                "Arrival rate",
                "a number of jobs per time unit",
            )?;
            p.sides = from_option(sides).unwrap_or_default();
            p.width = w;
            p.height = h;
            exp.workload = WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(p));
        }
        MeshWorkload::ExponentialJobs { jobs, interarrival } => {
            let mut p = match &exp.workload {
                WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p)) => p.clone(),
                _ => ExponentialJobsParams::default(),
            };
            p.jobs = number("mesh-exp_jobs", jobs, "Jobs", "a whole number")?;
            p.mean_interarrival = number(
                "mesh-interarrival",
                interarrival,
                "Mean interarrival",
                "a number of seconds",
            )?;
            p.procs = w.saturating_mul(h);
            exp.workload = WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p));
        }
        MeshWorkload::Trace => {
            let Some(t) = trace else {
                return Err(FieldError::new(
                    "mesh-upload",
                    "Workload: upload a trace first.",
                ));
            };
            exp.workload = t.workload(false);
        }
    }
    exp.shape_rule = from_option(&f.shape).unwrap_or_default();
    exp.network.io_side = from_option(&f.io_side).unwrap_or_default();
    exp.network.io_count = if f.io_count.trim().is_empty() {
        None
    } else {
        Some(number(
            "mesh-io-count",
            &f.io_count,
            "I/O count",
            "a whole number, or nothing for one per row",
        )?)
    };
    let pct: f64 = number("mesh-rho", &f.rho, "Traffic ratio ρ", "a percentage")?;
    // The slider has 5 % steps: keep an exact ratio (from a preset or link) it rounds to.
    if (exp.network.traffic_io * 100.0).round() != pct {
        exp.network.traffic_io = pct / 100.0;
    }
    let model = f.model.trim();
    if !model.is_empty() {
        exp.network.model = ContentionModel::parse(model)
            .map_err(|m| FieldError::new("mesh-model", format!("Network model: {m}.")))?;
    }
    exp.network.wormhole = if exp.network.model == ContentionModel::Wormhole {
        let w = read_wormhole(&f.wormhole)?;
        // The defaults are left out, so an experiment at the defaults reads as before.
        (w != WormholeSpec::default()).then_some(w)
    } else {
        None
    };
    let exchanges = f.exchanges.trim();
    exp.network.phases = if exchanges.is_empty() {
        None
    } else {
        let n: u32 = number(
            "mesh-exchanges",
            exchanges,
            "Exchanges",
            "a whole number, or nothing for the traffic ratio",
        )?;
        if n > PhaseConfig::MAX_COUNT {
            return Err(FieldError::new(
                "mesh-exchanges",
                format!("Exchanges: at most {} (got {n}).", PhaseConfig::MAX_COUNT),
            ));
        }
        if exp.network.model == ContentionModel::Wormhole {
            return Err(FieldError::new(
                "mesh-exchanges",
                "Phases: Liu et al.'s phase model runs on the flow model, not the wormhole \
                 model; leave Phases empty, or choose another network model.",
            ));
        }
        // Keep a link's or preset's speeds and message size; change the exchanges only.
        let mut p = exp.network.phases.unwrap_or_else(|| PhaseConfig::paper(n));
        p.exchanges = n;
        // The phase model replaces the traffic mix and its contention model.
        exp.network.model = ContentionModel::Flow;
        Some(p)
    };
    exp.seed = number("mesh-seed", &f.seed, "Random seed", "a whole number ≥ 0")?;
    let policy = policy_of(&f.policy, &f.policy_k)?;
    let allocs = f.allocators.clone();
    if let Some(&first) = allocs.first() {
        exp.allocator = first;
        exp.policy = if first.is_contiguous() {
            policy
        } else {
            MeshPolicyKind::Fcfs
        };
    }
    Ok((exp, allocs, policy))
}

/// The mesh policy of the picker's value `name` (a [`MESH_POLICIES`] name; unknown = FCFS)
/// with its parameter from the text `k` when it has one (error on `mesh-policy-k`).
pub fn policy_of(name: &str, k: &str) -> Result<MeshPolicyKind, FieldError> {
    let Some(i) = MESH_POLICIES.position(name) else {
        return Ok(MeshPolicyKind::Fcfs);
    };
    let param = match MESH_POLICIES.entries[i].param {
        None => None,
        Some(p) => {
            let what = if p.min >= 1 {
                format!("a whole number ≥ {}", p.min)
            } else {
                "a whole number".to_string()
            };
            let v: u64 = number("mesh-policy-k", k, p.label, &what)?;
            if v < p.min || v > p.max {
                let bound = if v < p.min {
                    format!("must be at least {}", p.min)
                } else {
                    format!("must be at most {}", p.max)
                };
                return Err(FieldError::new(
                    "mesh-policy-k",
                    format!("{}: {bound} (got {v}).", p.label),
                ));
            }
            Some(v)
        }
    };
    Ok(MeshPolicyKind::from_key(i, param).unwrap_or(MeshPolicyKind::Fcfs))
}

/// One experiment per allocator from `base`: contiguous allocators under `policy`,
/// non-contiguous ones FCFS (Mache et al. runs them FCFS only). Each is validated; an error names
/// the field.
pub fn experiments_for(
    base: &MeshExperiment,
    allocators: &[MeshAllocatorKind],
    policy: MeshPolicyKind,
) -> Result<Vec<MeshExperiment>, FieldError> {
    experiments_for_with(base, allocators, policy, &crate::limits::Limits::DEFAULT)
}

/// [`experiments_for`] validated under `limits` (a sweep planned with `--max-*`).
pub fn experiments_for_with(
    base: &MeshExperiment,
    allocators: &[MeshAllocatorKind],
    policy: MeshPolicyKind,
    limits: &crate::limits::Limits,
) -> Result<Vec<MeshExperiment>, FieldError> {
    if allocators.is_empty() {
        return Err(FieldError::new(
            "mesh-alloc-contig",
            "Allocators: select at least one allocator.",
        ));
    }
    allocators
        .iter()
        .map(|&a| {
            let mut e = base.clone();
            e.allocator = a;
            e.policy = if a.is_contiguous() {
                policy
            } else {
                MeshPolicyKind::Fcfs
            };
            e.validate_with(limits).map_err(|ce| config_error(&ce))?;
            Ok(e)
        })
        .collect()
}

/// The runs of "Sweep traffic ratio": every non-contiguous experiment of `exps` at each ratio
/// of [`SWEEP_RHOS`].
pub fn sweep_experiments(exps: &[MeshExperiment]) -> Result<Vec<MeshExperiment>, FieldError> {
    let nodes: Vec<&MeshExperiment> = exps
        .iter()
        .filter(|e| !e.allocator.is_contiguous())
        .collect();
    if nodes.is_empty() {
        return Err(FieldError::new(
            "mesh-alloc-contig",
            "Sweep traffic ratio: select at least one non-contiguous allocator (the traffic \
             ratio changes only their service times).",
        ));
    }
    let mut v = Vec::new();
    for e in nodes {
        for r in SWEEP_RHOS {
            let mut e = e.clone();
            e.network.traffic_io = f64::from(r) / 100.0;
            v.push(e);
        }
    }
    Ok(v)
}

/// The form's name for an experiment key (`width` → `Width W`).
pub fn field_name(key: &str) -> String {
    let k = key.strip_prefix("experiment.").unwrap_or(key);
    let name = match k {
        "width" => "Width W",
        "height" => "Height H",
        "policy" => "Policy",
        "allocator" => "Allocator",
        "seed" => "Random seed",
        "shape_rule" => "Job shapes",
        "network.traffic_io" => "Traffic ratio ρ",
        "network.io_count" => "I/O count",
        "network.io_side" => "I/O side",
        "network.kappa" => "κ",
        "network.model" => "Network model",
        "network.wormhole.flits" => "Flits per packet",
        "network.wormhole.flit_time" => "Flit time",
        "network.wormhole.round_length" => "Round length",
        "version" => "Format version",
        "allocators" => "Allocators",
        "workload.synthetic.jobs" => "Jobs",
        _ if k.starts_with("workload.synthetic.mesh_jobs.jobs")
            || k.starts_with("workload.synthetic.exponential_jobs.jobs") =>
        {
            "Jobs"
        }
        _ if k.contains("arrival_rate") => "Arrival rate",
        _ if k.contains("mean_interarrival") => "Mean interarrival",
        _ if k.starts_with("workload") => "Workload",
        _ if k.starts_with("transforms") => "Transforms",
        _ => return k.to_string(),
    };
    name.to_string()
}

/// The input of an experiment key, or the form.
fn field_id(key: &str) -> &'static str {
    let k = key.strip_prefix("experiment.").unwrap_or(key);
    match k {
        "width" => "mesh-width",
        "height" => "mesh-height",
        "seed" => "mesh-seed",
        "shape_rule" => "mesh-shape",
        "network.traffic_io" => "mesh-rho",
        "network.io_count" => "mesh-io-count",
        "network.io_side" => "mesh-io-side",
        "network.model" | "network.wormhole" => "mesh-model",
        "network.wormhole.flits" => "mesh-worm-flits",
        "network.wormhole.flit_time" => "mesh-worm-flit-time",
        "network.wormhole.round_length" => "mesh-worm-round",
        "policy" => "mesh-policy-k",
        _ if k.starts_with("workload.synthetic.mesh_jobs.jobs") => "mesh-mesh_jobs",
        _ if k.starts_with("workload.synthetic.exponential_jobs.jobs") => "mesh-exp_jobs",
        _ if k.contains("arrival_rate") => "mesh-rate",
        _ if k.contains("mean_interarrival") => "mesh-interarrival",
        _ => "mesh-form",
    }
}

/// A configuration error as the form shows it: `Width W: must be between 1 and 256 (got 0)`.
pub fn field_message(e: &ConfigError) -> String {
    if e.key.is_empty() {
        e.message.clone()
    } else {
        format!("{}: {}", field_name(&e.key), e.message)
    }
}

/// A configuration error as a [`FieldError`] of the form.
pub fn config_error(e: &ConfigError) -> FieldError {
    FieldError::new(field_id(&e.key), field_message(e))
}
