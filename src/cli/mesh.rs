//! `schedlab mesh EXP.json`: one 2D-mesh experiment ([`crate::modes::mesh::run`]; Ababneh & Bani-Mohammad's
//! contiguous allocation and window scheduling, or Mache et al.'s non-contiguous allocation under
//! the contention model). Prints `{"summary": …, "mesh": …}` as JSON — the numbers the web
//! app's 2D-mesh mode shows — and optionally writes the per-job CSV and the full report.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::streams::{emit_line, open_trace};
use super::{io_err, write_file, LimitArgs, WorkArgs};
use crate::error::Error;
use crate::modes::flat::spec::{ConfigError, SwfSource, WorkloadSpec};
use crate::modes::mesh::run::{
    measure_mesh, mesh_jobs_csv, mesh_network, prepare_mesh, simulate_mesh,
};
use crate::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment};
use crate::policy::mesh::MeshPolicyKind;

/// `schedlab mesh`.
#[derive(Args, Debug)]
pub struct MeshArgs {
    /// Mesh experiment (JSON, see docs/experiment-format.md, "Mesh experiments").
    pub experiment: PathBuf,
    /// Override the allocator (`schedlab list` names them all).
    #[arg(long, long_help = crate::registry::mesh_allocator_help())]
    pub allocator: Option<String>,
    /// Override the policy (fcfs, oo, oocb-<k>, window-<K>, delay).
    #[arg(long, long_help = format!("Mesh policy (contiguous allocators):\n{}", crate::registry::MESH_POLICIES.help()))]
    pub policy: Option<String>,
    /// Override the traffic ratio: fraction of I/O, 0 ..= 1.
    #[arg(long)]
    pub traffic_io: Option<f64>,
    /// Override the contention model of non-contiguous allocators: flow, separated or wormhole
    /// (sets `network.model`).
    #[arg(long)]
    pub network_model: Option<String>,
    /// Contiguous allocators: a w × h request that does not fit may take an h × w submesh
    /// (sets `switch_orientation`).
    #[arg(long)]
    pub switch_orientation: bool,
    /// Write one CSV row per job (with service time and layout metrics).
    #[arg(long)]
    pub jobs_csv: Option<PathBuf>,
    /// Write the whole output (summary, layout metrics, per-job records, layouts) as JSON.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Wormhole model only: write one CSV row per link that carried a message
    /// (`from_x,from_y,to_x,to_y,messages,flits,held,blocked`; times in flit times).
    #[arg(long)]
    pub links_csv: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub work: WorkArgs,
}

fn key_err(key: &str, message: String) -> Error {
    Error::Config(ConfigError {
        key: key.into(),
        message,
    })
}

/// Reads the experiment file and applies the overrides.
pub fn mesh_experiment_from_args(a: &MeshArgs) -> Result<(MeshExperiment, Option<PathBuf>), Error> {
    let text =
        super::open::experiment_text(&a.experiment, crate::modes::Mode::Mesh, &a.limits.limits())?;
    let mut exp: MeshExperiment = crate::modes::flat::spec::parse_json(&text)?;
    if let Some(s) = &a.allocator {
        exp.allocator =
            MeshAllocatorKind::parse(s).map_err(|e| key_err("allocator", e.to_string()))?;
    }
    if let Some(s) = &a.policy {
        exp.policy = MeshPolicyKind::parse(s).map_err(|e| key_err("policy", e.to_string()))?;
    }
    if let Some(r) = a.traffic_io {
        exp.network.traffic_io = r;
    }
    if let Some(m) = &a.network_model {
        exp.network.model =
            ContentionModel::parse(m).map_err(|e| key_err("network.model", e.to_string()))?;
    }
    if a.switch_orientation {
        exp.switch_orientation = true;
    }
    exp.validate_with(&a.limits.limits())?;
    let base = a.experiment.parent().map(PathBuf::from).unwrap_or_default();
    let trace = match &exp.workload {
        WorkloadSpec::Swf(SwfSource { path: Some(p), .. }) => Some(base.join(p)),
        _ => None,
    };
    Ok((exp, trace))
}

/// Whether a run of `exp` measures per-link held and blocked times (the wormhole model).
fn has_link_counters(exp: &MeshExperiment) -> bool {
    !exp.allocator.is_contiguous()
        && exp.network.phases.is_none()
        && exp.network.model == ContentionModel::Wormhole
}

/// Runs `schedlab mesh`.
pub fn mesh_command(a: &MeshArgs) -> Result<(), Error> {
    let (exp, trace_path) = mesh_experiment_from_args(a)?;
    let mut inputs = vec![a.experiment.as_path()];
    inputs.extend(trace_path.as_deref());
    super::output_guard::refuse_outputs_that_are_inputs(
        &[
            a.jobs_csv.as_deref(),
            a.report.as_deref(),
            a.links_csv.as_deref(),
        ],
        &inputs,
    )?;
    if a.links_csv.is_some() && !has_link_counters(&exp) {
        return Err(key_err(
            "--links-csv",
            "needs the wormhole model (network.model = \"wormhole\", a non-contiguous \
             allocator, no network.phases): only it measures held and blocked time per link"
                .into(),
        ));
    }
    // A synthetic model is estimated from its job count before it is generated (a 10^6-job
    // model on a 256 × 256 mesh is refused at once), then every run from its prepared jobs.
    a.work.max_seconds()?;
    if let Some(estimate) = crate::work::estimate_mesh_spec(&exp) {
        a.work.check(&estimate)?;
    }
    let limits = a.limits.limits();
    let trace = trace_path.as_deref().map(open_trace).transpose()?;
    let (workload, transform, shapes) = prepare_mesh(&exp, trace, &limits)?;
    a.work.check(&crate::work::estimate_mesh(&exp, &workload))?;
    let net = mesh_network(&exp)?;
    let run = simulate_mesh(&exp, &net, &workload)?;
    let out = measure_mesh(&exp, &net, &workload, transform, shapes, run);
    if let Some(path) = &a.jobs_csv {
        let csv = mesh_jobs_csv(&out);
        write_file(path, |w| w.write_all(csv.as_bytes()))?;
    }
    if let (Some(path), Some(links)) = (&a.links_csv, &out.links) {
        let csv = links.csv();
        write_file(path, |w| w.write_all(csv.as_bytes()))?;
    }
    if let Some(path) = &a.report {
        let text = serde_json::to_string(&out).map_err(|e| io_err(path, e))?;
        write_file(path, |w| writeln!(w, "{text}"))?;
    }
    let brief = serde_json::json!({
        "allocator": out.allocator,
        "policy": out.policy,
        "summary": out.summary,
        "mesh": out.mesh,
        "shapes": out.shapes,
    });
    let text = serde_json::to_string_pretty(&brief).map_err(|e| Error::Io {
        path: "stdout".into(),
        message: e.to_string(),
    })?;
    emit_line(&text)
}
