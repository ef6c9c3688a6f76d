//! A 2D-mesh experiment as JSON, and running it: the machine M(W, H) of Ababneh & Bani-Mohammad §2 with a
//! contiguous allocator (First Fit, Best Fit, MPL) under a mesh policy (FCFS, OO, OOCB-k,
//! Window-K, Delay — Ababneh & Bani-Mohammad §4–5), or the machine of Mache et al. §4.1 (I/O nodes on one side)
//! with a non-contiguous allocator (Random, Paging, MBS, MC, MC-Elongated, PLAS, Hilbert) run
//! FCFS under the flow-level contention model of [`crate::network::flow`]. Both report the
//! core summary plus the layout metrics of Mache et al. §2.2–2.3. The CLI (`schedlab mesh`) and
//! the web app's 2D-mesh mode go through [`run_mesh`]; the format is documented in
//! `docs/experiment-format.md`.
//!
//! ```json
//! {"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 1000}},
//!  "width": 32, "height": 32, "allocator": "mpl", "policy": "window-240", "seed": 1}
//! ```
//!
//! Which engine runs is decided by the allocator: contiguous allocators use the trace's run
//! times (Ababneh & Bani-Mohammad has no network model); non-contiguous allocators make service times depend
//! on the layouts through the flow model (κ and the traffic ratio under `network`) and run
//! FCFS, as Mache et al. does — or, with `network.phases`, through Liu et al.'s phase model
//! (exchanges and writes at given link and disk speeds). The binary-tree allocators of Liu
//! et al. (`bt`, `sbt_16`, `d_dbt_8`, …) are node allocators; BT, SBT and DBT may make the FCFS
//! head wait although enough nodes are free.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::alloc::node::NodeAllocator;
use crate::alloc::node_allocator::NODE_ALLOCATORS;
use crate::alloc::{AllocatorKind, NodeAllocatorKind, CONTIGUOUS_ALLOCATORS};
use crate::base::{Entry, Registered};
use crate::config::{ConfigError, ExperimentFile, WorkloadSpec};
use crate::error::{Engine, Error};
use crate::limits::Limits;
use crate::machine::mesh::Submesh;
use crate::metrics::{JobRecord, Summary};
use crate::network::flow::{FlowConfig, FlowJob, FlowModel, FlowStepper, PhaseConfig};
pub use crate::network::layout::{
    layout_events, link_loads_at, peak_link_loads, weighted_job_links, JobLayout,
};
use crate::network::metrics::{above_below, nodes_affected};
use crate::network::separated::SeparatedConfig;
use crate::network::{IoSide, Network, NetworkConfig};
use crate::policy::mesh::MeshPolicyKind;
use crate::run::TraceInput;
use crate::sim::mesh_engine::MeshSimulation;
use crate::sim::{JobOutcome, Progress};
use crate::workload::shape::{apply_shapes, ShapeReport, ShapeRule};
use crate::workload::transform::{TransformReport, Transforms};
use crate::workload::Workload;

/// The format version this build reads.
pub const MESH_FORMAT_VERSION: u32 = 1;
/// Largest mesh side accepted (see [`crate::limits`]).
pub use crate::limits::MAX_MESH_SIDE;
/// κ of the flow model by default (the value of `schedlab reproduce mc-elongated`).
pub const DEFAULT_KAPPA: f64 = 0.001;

fn one() -> u32 {
    MESH_FORMAT_VERSION
}

fn half() -> f64 {
    0.5
}

fn default_kappa() -> f64 {
    DEFAULT_KAPPA
}

/// A mesh allocator: contiguous (submesh) or non-contiguous (node set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshAllocatorKind {
    Contiguous(AllocatorKind),
    Nodes(NodeAllocatorKind),
}

impl Default for MeshAllocatorKind {
    fn default() -> Self {
        MeshAllocatorKind::Contiguous(AllocatorKind::Mpl)
    }
}

impl MeshAllocatorKind {
    /// Every allocator, contiguous first, in the order the app lists them.
    pub fn all() -> Vec<MeshAllocatorKind> {
        let mut v: Vec<MeshAllocatorKind> = AllocatorKind::ALL
            .iter()
            .map(|&k| MeshAllocatorKind::Contiguous(k))
            .collect();
        v.extend(
            NodeAllocatorKind::ALL
                .iter()
                .map(|&k| MeshAllocatorKind::Nodes(k)),
        );
        v
    }

    /// The binary-tree allocators of Liu et al. (the paper's 28 settings), as the app lists them
    /// after [`MeshAllocatorKind::all`].
    pub fn trees() -> Vec<MeshAllocatorKind> {
        NodeAllocatorKind::trees()
            .into_iter()
            .map(MeshAllocatorKind::Nodes)
            .collect()
    }

    /// The name used in files (`mpl`, `first_fit`, `mc_elongated`, `paging_0`, `hilbert_bf`).
    pub fn as_str(self) -> String {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.as_str().to_string(),
            MeshAllocatorKind::Nodes(k) => k.as_str(),
        }
    }

    /// Parses a contiguous or non-contiguous allocator name.
    pub fn parse(s: &str) -> Result<MeshAllocatorKind, String> {
        if let Some((i, p)) = CONTIGUOUS_ALLOCATORS.find(s) {
            if let Some(k) = AllocatorKind::from_key(i, p) {
                return Ok(MeshAllocatorKind::Contiguous(k));
            }
        }
        NodeAllocatorKind::lookup(s)
            .map(MeshAllocatorKind::Nodes)
            .map_err(|_| {
                format!(
                    "unknown allocator {} (expected {}, or {})",
                    crate::limits::echo_quoted(s),
                    CONTIGUOUS_ALLOCATORS.expected().replace(" or ", ", "),
                    NODE_ALLOCATORS.expected()
                )
            })
    }

    /// `true` for First Fit, Best Fit and MPL.
    pub fn is_contiguous(self) -> bool {
        matches!(self, MeshAllocatorKind::Contiguous(_))
    }

    /// Name as in the papers (`MPL`, `MC-Elongated`, `Paging(0)`).
    pub fn label(self) -> String {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.label(),
            MeshAllocatorKind::Nodes(k) => k.label(),
        }
    }

    /// Its registry entry (name, labels, description).
    pub fn entry(self) -> &'static Entry {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.entry(),
            MeshAllocatorKind::Nodes(k) => k.entry(),
        }
    }
}

impl Serialize for MeshAllocatorKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_str())
    }
}

impl<'de> Deserialize<'de> for MeshAllocatorKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        MeshAllocatorKind::parse(&s).map_err(serde::de::Error::custom)
    }
}

fn fcfs() -> MeshPolicyKind {
    MeshPolicyKind::Fcfs
}

/// The contention model of a non-contiguous run (`network.model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentionModel {
    /// The flow model of [`crate::network::flow`]: service C (1 + κ b), b the most loaded link
    /// of the job's mixed traffic.
    #[default]
    Flow,
    /// The separated-classes model of [`crate::network::separated`]: communication paced by
    /// its own all-to-all links, I/O by the I/O paths, service C (σ + κ (ρ b^B + (1 − ρ) b^A)).
    Separated,
    /// The packet-level wormhole model of [`crate::network::wormhole`] (ρ only; its defaults).
    Wormhole,
}

impl ContentionModel {
    /// All three, default first.
    pub const ALL: [ContentionModel; 3] = [
        ContentionModel::Flow,
        ContentionModel::Separated,
        ContentionModel::Wormhole,
    ];

    /// The name in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentionModel::Flow => "flow",
            ContentionModel::Separated => "separated",
            ContentionModel::Wormhole => "wormhole",
        }
    }

    /// Parses `flow`, `separated` or `wormhole`.
    pub fn parse(s: &str) -> Result<ContentionModel, String> {
        ContentionModel::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown contention model {} (expected flow, separated or wormhole)",
                    crate::limits::echo_quoted(s)
                )
            })
    }

    fn is_flow(&self) -> bool {
        *self == ContentionModel::Flow
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The I/O line and the traffic of Mache et al. §4.1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshNetworkSpec {
    /// Side of the I/O nodes (default west).
    #[serde(default)]
    pub io_side: IoSide,
    /// Number of I/O nodes (default one per row, or per column for north/south).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_count: Option<u32>,
    /// ρ: the fraction of I/O in every job's communication, 0 ..= 1 (default 0.5).
    #[serde(default = "half")]
    pub traffic_io: f64,
    /// κ: slowdown per message on a job's most loaded link (default 0.001).
    #[serde(default = "default_kappa")]
    pub kappa: f64,
    /// Liu et al.'s phase model (§2, §5.2) instead of the fluid mix of ρ and κ: every job
    /// alternates all-to-all exchanges and complete-bipartite writes
    /// ([`flow::PhaseConfig`]; default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<PhaseConfig>,
    /// The contention model of ρ and κ: `flow` (default) or `separated`.
    #[serde(default, skip_serializing_if = "ContentionModel::is_flow")]
    pub model: ContentionModel,
    /// σ: weight of the computation term of the separated model, 0 ..= 1 (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub compute: f64,
}

impl Default for MeshNetworkSpec {
    fn default() -> Self {
        MeshNetworkSpec {
            io_side: IoSide::West,
            io_count: None,
            traffic_io: 0.5,
            kappa: DEFAULT_KAPPA,
            phases: None,
            model: ContentionModel::Flow,
            compute: 0.0,
        }
    }
}

/// One mesh run: workload, transforms, mesh, allocator, policy, network, seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshExperiment {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub transforms: Transforms,
    /// W: columns of compute nodes.
    pub width: u32,
    /// H: rows of compute nodes.
    pub height: u32,
    /// Default MPL.
    #[serde(default)]
    pub allocator: MeshAllocatorKind,
    /// Default FCFS; non-contiguous allocators run FCFS only.
    #[serde(default = "fcfs")]
    pub policy: MeshPolicyKind,
    /// How sizes become w × h requests for contiguous allocators (jobs that already carry a
    /// shape fitting the mesh — the `mesh_jobs` model — keep it).
    #[serde(default)]
    pub shape_rule: ShapeRule,
    #[serde(default)]
    pub network: MeshNetworkSpec,
    #[serde(default)]
    pub seed: u64,
    /// Contiguous allocators: a w × h request that does not fit may take an h × w submesh
    /// (orientation switching, [`crate::alloc::orientation`]; default off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub switch_orientation: bool,
}

impl ExperimentFile for MeshExperiment {
    fn check(&self, limits: &Limits) -> Result<(), ConfigError> {
        self.validate_with(limits)
    }
}

impl MeshExperiment {
    /// Checks what serde cannot — version, sizes, ranges, the policy–allocator pairing — under
    /// `limits` (the CLI may raise them; [`ExperimentFile::validate`]: the default [`Limits`]).
    pub fn validate_with(&self, limits: &Limits) -> Result<(), ConfigError> {
        let err = |key: &str, message: String| ConfigError {
            key: key.to_string(),
            message,
        };
        crate::config::check_version(self.version, MESH_FORMAT_VERSION)?;
        for (key, v) in [("width", self.width), ("height", self.height)] {
            if v == 0 || v > MAX_MESH_SIDE {
                return Err(err(
                    key,
                    format!("must be between 1 and {MAX_MESH_SIDE} (got {v})"),
                ));
            }
        }
        // The workload and transforms follow the flat experiment's rules (and key names).
        let mut probe =
            crate::config::Experiment::new(self.workload.clone(), crate::policy::PolicyKind::Fcfs);
        probe.transforms = self.transforms.clone();
        probe.validate_with(limits)?;
        if !self.allocator.is_contiguous() && self.policy != MeshPolicyKind::Fcfs {
            return Err(err(
                "policy",
                format!(
                    "{} is a non-contiguous allocator, which runs FCFS under the contention \
                     model (Mache et al.); got {}",
                    self.allocator.label(),
                    self.policy.label()
                ),
            ));
        }
        let n = &self.network;
        if !(n.traffic_io.is_finite() && (0.0..=1.0).contains(&n.traffic_io)) {
            return Err(err(
                "network.traffic_io",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.traffic_io)
                ),
            ));
        }
        if !(n.kappa.is_finite() && (0.0..=1.0).contains(&n.kappa)) {
            return Err(err(
                "network.kappa",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.kappa)
                ),
            ));
        }
        if let Some(p) = &n.phases {
            p.validate()
                .map_err(|(key, m)| err(&format!("network.phases.{key}"), m))?;
            if n.model != ContentionModel::Flow {
                return Err(err(
                    "network.model",
                    format!(
                        "{} cannot be combined with network.phases (the phase model replaces \
                         the traffic mix); use flow or leave it out",
                        n.model.as_str()
                    ),
                ));
            }
        }
        if !(n.compute.is_finite() && (0.0..=1.0).contains(&n.compute)) {
            return Err(err(
                "network.compute",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.compute)
                ),
            ));
        }
        self.network_model()
            .map_err(|m| err("network.io_count", m))?;
        Ok(())
    }

    /// The compute mesh with its I/O line.
    pub fn network_model(&self) -> Result<Network, String> {
        Network::new(NetworkConfig {
            width: self.width,
            height: self.height,
            io_side: self.network.io_side,
            io_count: self.network.io_count,
        })
        .map_err(|e| e.to_string())
    }
}

/// One job of a mesh run: what the per-job CSV holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshJobRecord {
    /// The core per-job record (wait, turnaround, slowdowns; `end − start` is the service).
    #[serde(flatten)]
    pub record: JobRecord,
    /// Submesh width and height (contiguous allocators), 0 × 0 otherwise.
    pub w: u32,
    pub h: u32,
    /// nodes_affected of its layout (Mache et al. §2.2).
    pub nodes_affected: u64,
    /// Its balance factor around the middle I/O link (§2.3).
    pub balance: u64,
    /// System balance factor right after it started.
    pub system_balance: u64,
}

impl MeshJobRecord {
    /// Header of [`mesh_jobs_csv`].
    pub const CSV_HEADER: &'static str = "id,submit,start,end,procs,run_time,estimate,wait,\
        turnaround,slowdown,bounded_slowdown,service,w,h,nodes_affected,balance,system_balance";
}

/// Means of the layout metrics over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeshMetrics {
    /// `contiguous`, `flow` (the flow model, or Liu et al.'s phases on its engine) or `separated`
    /// (the separated-classes contention model): what produced the service times.
    pub engine: String,
    /// Mean service time end − start (Mache et al. Table 2).
    pub mean_service: f64,
    pub mean_nodes_affected: f64,
    pub mean_balance: f64,
    pub mean_system_balance: f64,
    /// The most loaded link at any time (messages weighted by the traffic ratio).
    pub max_link_load: f64,
    /// The most loaded link of the I/O line at any time.
    pub io_hot_spot: f64,
}

/// Everything a mesh run produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshRunOutput {
    pub allocator: String,
    pub policy: String,
    pub width: u32,
    pub height: u32,
    pub summary: Summary,
    pub mesh: MeshMetrics,
    pub transform: TransformReport,
    pub shapes: ShapeReport,
    /// Per job, in arrival order.
    pub jobs: Vec<MeshJobRecord>,
    /// Per job, same order.
    pub layouts: Vec<JobLayout>,
}

/// The per-job CSV of a mesh run.
pub fn mesh_jobs_csv(out: &MeshRunOutput) -> String {
    let mut s = String::with_capacity(out.jobs.len() * 96 + 200);
    s.push_str(MeshJobRecord::CSV_HEADER);
    s.push('\n');
    for j in &out.jobs {
        let r = &j.record;
        s.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            r.csv_line(),
            r.end - r.start,
            j.w,
            j.h,
            j.nodes_affected,
            j.balance,
            j.system_balance,
        ));
    }
    s
}

/// A mesh run that could not be done.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshRunError(pub String);

impl fmt::Display for MeshRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mesh run failed: {}", self.0)
    }
}

/// Loads and transforms the workload and gives every job a size (and a shape for contiguous
/// allocators) that fits the mesh.
pub fn prepare_mesh(
    exp: &MeshExperiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<(Workload, TransformReport, ShapeReport), Error> {
    exp.validate_with(limits)?;
    let (mut workload, _) = crate::run::load_workload(&exp.workload, exp.seed, trace, limits)?;
    let transform = exp.transforms.apply(&mut workload);
    let (w, h) = (exp.width, exp.height);
    let mut shapes = ShapeReport::default();
    if exp.allocator.is_contiguous() {
        let shaped = workload.jobs.iter().all(|j| {
            j.shape
                .is_some_and(|(a, b)| a >= 1 && b >= 1 && a <= w && b <= h)
        });
        if shaped {
            shapes.shaped = workload.jobs.len();
        } else {
            shapes = apply_shapes(&mut workload, w, h, exp.shape_rule);
        }
    } else {
        workload.fit_to_machine(w * h);
        for j in &mut workload.jobs {
            j.shape = None;
        }
    }
    crate::run::check_times(&workload, !exp.allocator.is_contiguous())?;
    if workload.jobs.is_empty() {
        return Err(Error::EmptyWorkload(format!(
            "no job left to simulate on the {w} × {h} mesh (dropped: {})",
            crate::run::describe_drops(&workload.dropped)
        )));
    }
    Ok((workload, transform, shapes))
}

/// Runs a mesh experiment end to end under the default [`Limits`].
pub fn run_mesh(
    exp: &MeshExperiment,
    trace: Option<TraceInput<'_>>,
) -> Result<MeshRunOutput, Error> {
    run_mesh_with(exp, trace, &Limits::DEFAULT)
}

/// [`run_mesh`] under `limits` (the CLI may raise them): [`prepare_mesh`], then
/// [`simulate_mesh`], then [`measure_mesh`].
pub fn run_mesh_with(
    exp: &MeshExperiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<MeshRunOutput, Error> {
    let (workload, transform, shapes) = prepare_mesh(exp, trace, limits)?;
    let net = mesh_network(exp)?;
    let run = simulate_mesh(exp, &net, &workload)?;
    Ok(measure_mesh(exp, &net, &workload, transform, shapes, run))
}

/// The machine of `exp` (the mesh with its I/O nodes), an error naming `network` if it cannot
/// be built.
pub fn mesh_network(exp: &MeshExperiment) -> Result<Network, Error> {
    exp.network_model().map_err(|m| {
        Error::Config(ConfigError {
            key: "network".into(),
            message: m,
        })
    })
}

/// What the engine of a mesh run produced: per job (arrival order) its outcome and layout, and
/// which engine ran (`contiguous`, `flow` or `separated`, see [`MeshMetrics::engine`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSimulated {
    pub outcomes: Vec<JobOutcome>,
    pub layouts: Vec<JobLayout>,
    pub engine: &'static str,
}

/// Simulates the prepared `workload` ([`prepare_mesh`]) on `net` ([`mesh_network`]) with the
/// engine `exp.allocator` selects, to the end.
pub fn simulate_mesh(
    exp: &MeshExperiment,
    net: &Network,
    workload: &Workload,
) -> Result<MeshSimulated, Error> {
    let mut alloc = node_allocator(exp, net);
    let alloc = alloc.as_deref_mut().map(|a| a as &mut dyn NodeAllocator);
    let mut stepper = MeshStepper::new(exp, net, workload, alloc)?;
    while !stepper.step_instants(usize::MAX)? {}
    stepper.finish()
}

/// The non-contiguous allocator of `exp` built for `net` (`None` for a contiguous one): what
/// a [`MeshStepper`] borrows.
pub fn node_allocator(exp: &MeshExperiment, net: &Network) -> Option<Box<dyn NodeAllocator>> {
    match exp.allocator {
        MeshAllocatorKind::Contiguous(_) => None,
        MeshAllocatorKind::Nodes(kind) => Some(kind.build(net, exp.seed)),
    }
}

/// A mesh run being simulated, a few instants at a time: the page's worker runs it in slices
/// (so that it can be cancelled and report progress), [`simulate_mesh`] to the end — the same
/// instants in the same order either way.
pub struct MeshStepper<'a> {
    exp: &'a MeshExperiment,
    jobs: usize,
    engine: Stepping<'a>,
}

/// The engine behind a [`MeshStepper`].
enum Stepping<'a> {
    Contiguous(Box<MeshSimulation<Box<dyn crate::policy::mesh::MeshPolicy>>>),
    Flow(Box<FlowStepper<'a>>),
    Wormhole(Box<crate::network::wormhole::WormholeStepper<'a>>),
}

impl<'a> MeshStepper<'a> {
    /// The run of the prepared `workload` on `net` under `exp`; `alloc` is
    /// [`node_allocator`]'s (`None` for a contiguous allocator). Nothing simulated yet.
    pub fn new(
        exp: &'a MeshExperiment,
        net: &'a Network,
        workload: &Workload,
        alloc: Option<&'a mut dyn NodeAllocator>,
    ) -> Result<MeshStepper<'a>, Error> {
        let jobs = &workload.jobs;
        let engine = match (exp.allocator, alloc) {
            (MeshAllocatorKind::Contiguous(kind), _) => {
                let sim = MeshSimulation::by_kind_with(
                    jobs.clone(),
                    exp.width,
                    exp.height,
                    kind,
                    exp.switch_orientation,
                    exp.policy,
                )
                .map_err(|e| Error::simulation(Engine::Mesh, exp.policy.label(), e))?
                .without_log();
                Stepping::Contiguous(Box::new(sim))
            }
            (MeshAllocatorKind::Nodes(_), Some(alloc)) => {
                let fjobs: Vec<FlowJob> = jobs.iter().map(FlowJob::of).collect();
                let model = match (exp.network.phases, exp.network.model) {
                    (None, ContentionModel::Wormhole) => {
                        let w = crate::network::wormhole::stepper(
                            net,
                            &fjobs,
                            alloc,
                            exp.network.traffic_io,
                        )
                        .map_err(|e| Error::simulation(Engine::Flow, exp.allocator.label(), e))?;
                        return Ok(MeshStepper {
                            exp,
                            jobs: jobs.len(),
                            engine: Stepping::Wormhole(Box::new(w)),
                        });
                    }
                    (Some(p), _) => FlowModel::Phases(p),
                    (None, ContentionModel::Flow) => FlowModel::Fluid(FlowConfig {
                        traffic_io: exp.network.traffic_io,
                        kappa: exp.network.kappa,
                    }),
                    (None, ContentionModel::Separated) => FlowModel::Separated(SeparatedConfig {
                        traffic_io: exp.network.traffic_io,
                        kappa: exp.network.kappa,
                        compute: exp.network.compute,
                    }),
                };
                let stepper = FlowStepper::of(net, &fjobs, alloc, model).map_err(|e| {
                    Error::simulation(Engine::Flow, exp.allocator.label(), e.to_string())
                })?;
                Stepping::Flow(Box::new(stepper))
            }
            (MeshAllocatorKind::Nodes(_), None) => {
                return Err(Error::simulation(
                    Engine::Flow,
                    exp.allocator.label(),
                    "no node allocator was built for the run".to_string(),
                ))
            }
        };
        Ok(MeshStepper {
            exp,
            jobs: jobs.len(),
            engine,
        })
    }

    fn flow_error(&self, m: String) -> Error {
        Error::simulation(Engine::Flow, self.exp.allocator.label(), m)
    }

    fn mesh_error(&self, m: impl fmt::Display) -> Error {
        Error::simulation(Engine::Mesh, self.exp.policy.label(), m.to_string())
    }

    /// Processes at most `n` instants; `true` when the run is over.
    pub fn step_instants(&mut self, n: usize) -> Result<bool, Error> {
        let stepped = match &mut self.engine {
            Stepping::Contiguous(sim) => sim.step_instants(n).map_err(|e| e.to_string()),
            Stepping::Flow(f) => f.step_instants(n).map_err(|e| e.to_string()),
            Stepping::Wormhole(w) => w.step_instants(n).map_err(|e| e.to_string()),
        };
        stepped.map_err(|m| match self.engine {
            Stepping::Contiguous(_) => self.mesh_error(m),
            Stepping::Flow(_) | Stepping::Wormhole(_) => self.flow_error(m),
        })
    }

    /// Jobs completed and the simulated time so far.
    pub fn progress(&self) -> Progress {
        match &self.engine {
            Stepping::Contiguous(sim) => sim.progress(),
            Stepping::Flow(f) => f.progress(),
            Stepping::Wormhole(w) => w.progress(),
        }
    }

    /// Runs to the end (if not there yet); every job's outcome and layout.
    pub fn finish(self) -> Result<MeshSimulated, Error> {
        let exp = self.exp;
        match self.engine {
            Stepping::Contiguous(sim) => {
                let result = sim.run_to_end().map_err(|e| {
                    Error::simulation(Engine::Mesh, exp.policy.label(), e.to_string())
                })?;
                let layouts = result
                    .placements
                    .iter()
                    .zip(&result.outcomes)
                    .enumerate()
                    .map(|(i, (p, o))| JobLayout {
                        job: i,
                        start: o.start,
                        end: o.end,
                        rect: p.map(rect_of),
                        nodes: Vec::new(),
                    })
                    .collect::<Vec<_>>();
                Ok(MeshSimulated {
                    outcomes: result.outcomes,
                    layouts,
                    engine: "contiguous",
                })
            }
            engine @ (Stepping::Flow(_) | Stepping::Wormhole(_)) => {
                let fail = |m: String| Error::simulation(Engine::Flow, exp.allocator.label(), m);
                let recs = match engine {
                    Stepping::Wormhole(w) => {
                        (*w).finish().map(|r| r.records).map_err(|e| e.to_string())
                    }
                    Stepping::Flow(f) => (*f).finish().map_err(|e| e.to_string()),
                    Stepping::Contiguous(_) => Ok(Vec::new()),
                }
                .map_err(fail)?;
                if recs.len() != self.jobs {
                    return Err(fail(format!(
                        "the flow engine finished {} of {} jobs",
                        recs.len(),
                        self.jobs
                    )));
                }
                let outcomes = recs
                    .iter()
                    .map(|r| JobOutcome {
                        start: r.start,
                        end: r.end,
                    })
                    .collect();
                let layouts = recs
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| JobLayout {
                        job: i,
                        start: r.start,
                        end: r.end,
                        rect: None,
                        nodes: r.nodes.iter().map(|&(x, y)| [x, y]).collect(),
                    })
                    .collect();
                let engine = match (exp.network.phases, exp.network.model) {
                    (None, ContentionModel::Separated) => "separated",
                    (None, ContentionModel::Wormhole) => "wormhole",
                    _ => "flow",
                };
                Ok(MeshSimulated {
                    outcomes,
                    layouts,
                    engine,
                })
            }
        }
    }
}

/// The metrics of a simulated mesh run ([`simulate_mesh`]): per-job records, the summary, the
/// layout metrics of Mache et al. §2.2–2.3 and the peak link loads.
pub fn measure_mesh(
    exp: &MeshExperiment,
    net: &Network,
    workload: &Workload,
    transform: TransformReport,
    shapes: ShapeReport,
    run: MeshSimulated,
) -> MeshRunOutput {
    let MeshSimulated {
        outcomes,
        layouts,
        engine,
    } = run;
    let jobs = &workload.jobs;
    let records: Vec<JobRecord> = jobs
        .iter()
        .zip(&outcomes)
        .map(|(j, o)| JobRecord::of(j, o))
        .collect();
    let dropped = workload.dropped.total();
    let summary = Summary::from_records(&records, exp.width * exp.height, dropped);
    // Per job, one pass over its nodes: nodes above / below the middle I/O link, dispersal.
    let sides: Vec<(u64, u64, u64)> = layouts
        .iter()
        .map(|l| {
            let nodes = l.node_list();
            let (a, b) = above_below(net, &nodes);
            (a, b, nodes_affected(&nodes))
        })
        .collect();
    let system = system_balance_at_starts(&layouts, &sides);
    let mut mesh_jobs = Vec::with_capacity(records.len());
    for (((record, layout), &(a, b, dispersal)), sys) in
        records.into_iter().zip(&layouts).zip(&sides).zip(&system)
    {
        let (w, h) = match layout.rect {
            Some([_, _, w, h]) => (w, h),
            None => (0, 0),
        };
        mesh_jobs.push(MeshJobRecord {
            record,
            w,
            h,
            nodes_affected: dispersal,
            // The per-job balance factor of §2.3 (network::metrics::balance_factor).
            balance: a.abs_diff(b),
            system_balance: *sys,
        });
    }
    let n = mesh_jobs.len().max(1) as f64;
    let mean = |f: &dyn Fn(&MeshJobRecord) -> f64| mesh_jobs.iter().map(f).sum::<f64>() / n;
    let (max_link_load, io_hot_spot) = peak_link_loads(net, &layouts, exp.network.traffic_io);
    let mesh = MeshMetrics {
        engine: engine.to_string(),
        mean_service: mean(&|j| j.record.end - j.record.start),
        mean_nodes_affected: mean(&|j| j.nodes_affected as f64),
        mean_balance: mean(&|j| j.balance as f64),
        mean_system_balance: mean(&|j| j.system_balance as f64),
        max_link_load,
        io_hot_spot,
    };
    MeshRunOutput {
        allocator: exp.allocator.as_str(),
        policy: exp.policy.label(),
        width: exp.width,
        height: exp.height,
        summary,
        mesh,
        transform,
        shapes,
        jobs: mesh_jobs,
        layouts,
    }
}

fn rect_of(s: Submesh) -> [u32; 4] {
    [s.x1, s.y1, s.x2 - s.x1 + 1, s.y2 - s.y1 + 1]
}

/// The system balance factor (§2.3) right after each job started: |Σ above − Σ below| over
/// the running jobs' nodes, from each job's (above, below, …) in `sides`.
fn system_balance_at_starts(layouts: &[JobLayout], sides: &[(u64, u64, u64)]) -> Vec<u64> {
    let mut out = vec![0; layouts.len()];
    let (mut above, mut below) = (0i64, 0i64);
    for (_, start, i) in layout_events(layouts) {
        let (a, b) = (sides[i].0 as i64, sides[i].1 as i64);
        if start {
            above += a;
            below += b;
            out[i] = above.abs_diff(below);
        } else {
            above -= a;
            below -= b;
        }
    }
    out
}

/// Orientation switching in Ababneh & Bani-Mohammad's experiments (`schedlab reproduce window` and the app's
/// preset): on, as the MPL allocator of the paper's [3] allows (`docs/reproductions.md`).
pub const WINDOW_SWITCH_ORIENTATION: bool = true;

/// Ababneh & Bani-Mohammad's Fig. 6 experiment: 32 × 32 mesh, uniform side lengths, Window-240 with MPL
/// switching orientations as in `schedlab reproduce window`.
pub fn preset_window() -> MeshExperiment {
    use crate::workload::synthetic::{MeshJobsParams, SideDistribution, SyntheticModel};
    let params = MeshJobsParams {
        jobs: 1000,
        sides: SideDistribution::Uniform,
        arrival_rate: 1.5,
        ..MeshJobsParams::default()
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Window-based scheduling (Ababneh & Bani-Mohammad)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(params)),
        transforms: Transforms::default(),
        width: 32,
        height: 32,
        allocator: MeshAllocatorKind::Contiguous(AllocatorKind::Mpl),
        policy: MeshPolicyKind::Window(240),
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec::default(),
        seed: 1,
        switch_orientation: WINDOW_SWITCH_ORIENTATION,
    }
}

/// The six strategies of Mache et al.'s Table 2, in the paper's row order.
pub const MC_ELONGATED_STRATEGIES: [NodeAllocatorKind; 6] = [
    NodeAllocatorKind::McElongated,
    NodeAllocatorKind::Plas,
    NodeAllocatorKind::Mc,
    NodeAllocatorKind::Random,
    NodeAllocatorKind::Mbs,
    NodeAllocatorKind::Paging(0),
];

/// Mache et al.'s calibrated mean interarrival times (ratio of I/O, seconds): what `schedlab
/// reproduce mc-elongated` finds under the separated-classes model (MC-Elongated at 65 %
/// utilisation, [`crate::reproduce::mc_elongated::calibrate`]), rounded to 0.1 s (tested).
pub const MC_ELONGATED_INTERARRIVALS: [(f64, f64); 6] = [
    (0.0, 75.5),
    (0.2, 91.0),
    (0.4, 140.9),
    (0.6, 224.1),
    (0.8, 340.6),
    (1.0, 487.4),
];

/// The mean interarrival time of Mache et al.'s experiment at traffic ratio `traffic_io`: linear
/// between the calibrated points of [`MC_ELONGATED_INTERARRIVALS`] (clamped to 0 ..= 1).
pub fn mc_elongated_interarrival(traffic_io: f64) -> f64 {
    let rho = if traffic_io.is_finite() {
        traffic_io.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let pts = MC_ELONGATED_INTERARRIVALS;
    for w in pts.windows(2) {
        let ((r0, a0), (r1, a1)) = (w[0], w[1]);
        if rho <= r1 {
            return a0 + (a1 - a0) * (rho - r0) / (r1 - r0);
        }
    }
    pts[pts.len() - 1].1
}

/// The contention model of Mache et al.'s experiment (`schedlab reproduce mc-elongated` and the app's
/// preset): the separated-classes model with no computation term.
pub const MC_ELONGATED_MODEL: ContentionModel = ContentionModel::Separated;
/// σ of Mache et al.'s experiment: no computation term (the paper's service time is
/// message-passing time).
pub const MC_ELONGATED_COMPUTE: f64 = 0.0;

/// Mache et al.'s experiment: 22 × 16 mesh (16 rows), 16 west I/O nodes, the Table 1 workload
/// (exponential sizes, mean 16), MC-Elongated, traffic ratio `traffic_io`, the separated-classes
/// contention model (κ = 0.001, σ = 0) as `schedlab reproduce mc-elongated` runs it, at the
/// interarrival time that reproduction calibrates for 65 % utilisation
/// ([`mc_elongated_interarrival`]; Table 2: 60–70 %).
pub fn preset_contention(traffic_io: f64) -> MeshExperiment {
    use crate::workload::synthetic::{ExponentialJobsParams, SyntheticModel};
    let params = ExponentialJobsParams {
        mean_interarrival: libm::round(mc_elongated_interarrival(traffic_io) * 10.0) / 10.0,
        ..ExponentialJobsParams::default()
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Communication vs. I/O contention (Mache et al.)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(params)),
        transforms: Transforms::default(),
        width: 22,
        height: 16,
        allocator: MeshAllocatorKind::Nodes(NodeAllocatorKind::McElongated),
        policy: MeshPolicyKind::Fcfs,
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec {
            traffic_io,
            model: MC_ELONGATED_MODEL,
            compute: MC_ELONGATED_COMPUTE,
            ..MeshNetworkSpec::default()
        },
        seed: 2000,
        switch_orientation: false,
    }
}

/// The allocators of the Liu et al. preset: Fig. 6's DBT and d-DBT (ratio 1/8), MBS and PLAS.
pub fn binary_tree_allocators() -> Vec<MeshAllocatorKind> {
    ["dbt_8", "d_dbt_8", "mbs", "plas"]
        .iter()
        .filter_map(|n| MeshAllocatorKind::parse(n).ok())
        .collect()
}

/// The app's "Binary-tree allocation (Liu et al.)" preset: §5.1's 16 × 16 mesh with 16 I/O nodes
/// on the west side, 16 tasks of exponential size (mean 16) arriving within about a
/// millisecond (the paper submits them all at time 0; exponential interarrivals of mean 10^-4 s
/// keep the model's arrivals), no computation (10^-6 s), and the phase model with 4 exchanges
/// between two writes at the paper's link and disk speeds (`docs/binary-tree.md`).
pub fn preset_binary_tree() -> MeshExperiment {
    use crate::workload::synthetic::{ExponentialJobsParams, SyntheticModel};
    let params = ExponentialJobsParams {
        jobs: 16,
        procs: 256,
        mean_size: 16.0,
        mean_interarrival: 1e-4,
        mean_run_time: 1e-6,
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Binary-tree allocation (Liu et al.)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(params)),
        transforms: Transforms::default(),
        width: 16,
        height: 16,
        allocator: binary_tree_allocators()
            .first()
            .copied()
            .unwrap_or_default(),
        policy: MeshPolicyKind::Fcfs,
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec {
            io_count: Some(16),
            phases: Some(PhaseConfig::paper(4)),
            ..MeshNetworkSpec::default()
        },
        seed: 1001,
        switch_orientation: false,
    }
}
