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

use serde::{Deserialize, Serialize};

use crate::alloc::node::NodeAllocator;
use crate::error::{Engine, Error};
use crate::limits::Limits;
use crate::machine::mesh::Submesh;
use crate::metrics::{JobRecord, Summary};
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::{ConfigError, ExperimentFile, WorkloadSpec};
use crate::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment};
use crate::modes::{Mode, ModeRun, SimOptions, Stepper, Traces};
use crate::network::flow::{FlowConfig, FlowJob, FlowModel, FlowStepper};
pub use crate::network::layout::{
    layout_events, link_loads_at, peak_link_loads, weighted_job_links, JobLayout,
};
use crate::network::metrics::{above_below, nodes_affected};
use crate::network::separated::SeparatedConfig;
use crate::network::Network;
use crate::sim::mesh_engine::MeshSimulation;
use crate::sim::{JobOutcome, Progress};
use crate::workload::shape::{apply_shapes, ShapeReport};
use crate::workload::transform::TransformReport;
use crate::workload::Workload;

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
    /// The wormhole model's per-link counters (`network.model = "wormhole"`); absent under
    /// the other models, whose JSON is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<MeshLinks>,
}

/// One link of a wormhole run (Mache et al. §4.1: two unidirectional links between
/// neighbours, the I/O line's included): what crossed it and for how long it was held and
/// waited for, in flit times ([`crate::network::wormhole::LinkStats`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkTimes {
    /// The link's ends on the extended grid (the I/O line is column or row 0 or W + 1 / H + 1).
    pub from: [u32; 2],
    pub to: [u32; 2],
    /// Messages (worms) and flits that crossed it.
    pub messages: u64,
    pub flits: u64,
    /// Flit times a worm held it.
    pub held: u64,
    /// Flit times headers spent blocked waiting for it, summed over the waiting worms.
    pub blocked: u64,
}

/// The per-link counters of a wormhole mesh run ([`MeshRunOutput::links`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshLinks {
    /// Seconds per flit time (`network.wormhole.flit_time`): `held` and `blocked` × this are
    /// seconds.
    pub flit_time: f64,
    /// Every link that carried a message, in [`Network::link_index`] order.
    pub links: Vec<LinkTimes>,
}

impl MeshLinks {
    /// The links of `net` that carried a message in `stats`.
    pub fn of(
        net: &Network,
        stats: &crate::network::wormhole::FabricStats,
        flit_time: f64,
    ) -> MeshLinks {
        let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        let links = net
            .links()
            .filter_map(|l| {
                let i = net.link_index(l);
                let messages = at(&stats.links.messages, i);
                (messages > 0).then(|| {
                    let to = l.to();
                    LinkTimes {
                        from: [l.from.x, l.from.y],
                        to: [to.x, to.y],
                        messages,
                        flits: at(&stats.links.flits, i),
                        held: at(&stats.links.held, i),
                        blocked: at(&stats.links.blocked, i),
                    }
                })
            })
            .collect();
        MeshLinks { flit_time, links }
    }

    /// Header of [`MeshLinks::csv`] (that of `schedlab bench wormhole --links-csv`).
    pub const CSV_HEADER: &'static str = "from_x,from_y,to_x,to_y,messages,flits,held,blocked";

    /// One CSV row per link that carried a message (times in flit times), in link index
    /// order: the same text as [`crate::network::wormhole::FabricStats::links_csv`].
    pub fn csv(&self) -> String {
        let mut s = String::with_capacity(self.links.len() * 40 + 64);
        s.push_str(Self::CSV_HEADER);
        s.push('\n');
        for l in &self.links {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                l.from[0], l.from[1], l.to[0], l.to[1], l.messages, l.flits, l.held, l.blocked
            ));
        }
        s
    }
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
    let (mut workload, _) =
        crate::modes::flat::run::load_workload(&exp.workload, exp.seed, trace, limits)?;
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
    crate::modes::flat::run::check_times(&workload, !exp.allocator.is_contiguous())?;
    if workload.jobs.is_empty() {
        return Err(Error::EmptyWorkload(format!(
            "no job left to simulate on the {w} × {h} mesh (dropped: {})",
            crate::modes::flat::run::describe_drops(&workload.dropped)
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
    exp.network_model().map_err(|e| {
        Error::Config(ConfigError {
            key: "network".into(),
            message: e.to_string(),
        })
    })
}

/// What the engine of a mesh run produced: per job (arrival order) its outcome and layout,
/// which engine ran (`contiguous`, `flow`, `separated` or `wormhole`, see
/// [`MeshMetrics::engine`]) and, for the wormhole model, its per-link counters.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSimulated {
    pub outcomes: Vec<JobOutcome>,
    pub layouts: Vec<JobLayout>,
    pub engine: &'static str,
    pub links: Option<MeshLinks>,
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
                        let w = crate::network::wormhole::WormholeStepper::new(
                            net,
                            &fjobs,
                            alloc,
                            exp.wormhole_config(),
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
                    links: None,
                })
            }
            engine @ (Stepping::Flow(_) | Stepping::Wormhole(_)) => {
                let fail = |m: String| Error::simulation(Engine::Flow, exp.allocator.label(), m);
                let (recs, links) = match engine {
                    Stepping::Wormhole(w) => {
                        let net = w.network();
                        (*w).finish()
                            .map(|r| {
                                let links = MeshLinks::of(
                                    net,
                                    &r.stats,
                                    exp.wormhole_config().flit_seconds,
                                );
                                (r.records, Some(links))
                            })
                            .map_err(|e| e.to_string())
                    }
                    Stepping::Flow(f) => {
                        (*f).finish().map(|r| (r, None)).map_err(|e| e.to_string())
                    }
                    Stepping::Contiguous(_) => Ok((Vec::new(), None)),
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
                    links,
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
        links,
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
        links,
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

/// The mesh mode behind the one [`ModeRun`] shape.
pub struct Mesh;

/// A mesh experiment made ready to simulate: the workload shaped for the mesh, the network
/// and the node allocator (none for a contiguous allocator).
pub struct PreparedMesh {
    pub workload: Workload,
    pub transform: TransformReport,
    pub shapes: ShapeReport,
    pub net: Network,
    pub alloc: Option<Box<dyn NodeAllocator>>,
}

impl Stepper for MeshStepper<'_> {
    fn step_instants(&mut self, n: usize) -> Result<bool, Error> {
        MeshStepper::step_instants(self, n)
    }

    fn progress(&self) -> Progress {
        MeshStepper::progress(self)
    }
}

impl ModeRun for Mesh {
    type Experiment = MeshExperiment;
    type Prepared = PreparedMesh;
    type Simulation<'p> = MeshStepper<'p>;
    type Simulated = MeshSimulated;
    type Output = MeshRunOutput;

    const MODE: Mode = Mode::Mesh;

    fn experiment_json(exp: &MeshExperiment) -> String {
        exp.to_json()
    }

    fn workloads(exp: &MeshExperiment) -> Vec<(String, &WorkloadSpec)> {
        vec![("experiment.workload".into(), &exp.workload)]
    }

    fn title(exp: &MeshExperiment) -> String {
        let policy = if exp.allocator.is_contiguous() {
            format!(" · {}", exp.policy.label())
        } else {
            String::new()
        };
        format!(
            "{}{policy} on a {} × {} mesh",
            exp.allocator.label(),
            exp.width,
            exp.height
        )
    }

    fn label(exp: &MeshExperiment) -> String {
        format!("{} {}", exp.allocator.as_str(), exp.policy.label())
    }

    fn prepare(
        exp: &MeshExperiment,
        traces: &mut Traces<'_>,
        limits: &Limits,
    ) -> Result<PreparedMesh, Error> {
        let trace = traces(&exp.workload)?;
        let (workload, transform, shapes) = prepare_mesh(exp, trace, limits)?;
        let net = mesh_network(exp)?;
        let alloc = node_allocator(exp, &net);
        Ok(PreparedMesh {
            workload,
            transform,
            shapes,
            net,
            alloc,
        })
    }

    fn simulate<'p>(
        exp: &'p MeshExperiment,
        prepared: &'p mut PreparedMesh,
        _: SimOptions,
    ) -> Result<MeshStepper<'p>, Error> {
        let PreparedMesh {
            workload,
            net,
            alloc,
            ..
        } = prepared;
        let alloc = alloc.as_deref_mut().map(|a| a as &mut dyn NodeAllocator);
        MeshStepper::new(exp, net, workload, alloc)
    }

    fn finish(mut sim: MeshStepper<'_>) -> Result<MeshSimulated, Error> {
        while !sim.step_instants(usize::MAX)? {}
        sim.finish()
    }

    fn measure(
        exp: &MeshExperiment,
        p: PreparedMesh,
        run: MeshSimulated,
    ) -> Result<MeshRunOutput, Error> {
        Ok(measure_mesh(
            exp,
            &p.net,
            &p.workload,
            p.transform,
            p.shapes,
            run,
        ))
    }
}
