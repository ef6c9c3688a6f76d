//! A flow-level model of network contention from communication and I/O (Mache et al. §2 and
//! §4.1, standing in for the paper's packet-level wormhole simulation in ProcSimity), and an
//! FCFS engine that allocates jobs with any [`NodeAllocator`] and runs them under the model.
//! Equations and the differences from the paper are in `docs/network-model.md`.
//!
//! Every running job i alternates computation and communication. Its traffic is a mix set by
//! the traffic ratio ρ (the fraction of I/O): per link l, w_i(l) = ρ · B_i(l) + (1 − ρ) · A_i(l),
//! with A_i the messages of an all-to-all among its nodes and B_i those of complete-bipartite
//! writes (each of its nodes to each I/O node), both routed XY. The load of a link is
//! L(l) = Σ_k w_k(l) over the running jobs; a job's communication goes at the pace of its most
//! loaded link, b_i = max_{l : w_i(l) > 0} L(l); its progress rate is
//! dp_i/dt = 1 / (C_i · (1 + κ · b_i)), C_i its computation time and κ the communication
//! intensity. Rates change only when a job starts or ends, so progress is piecewise linear and
//! each job's completion time is exact between events.
//!
//! The engine is the one engine loop ([`crate::sim::instant`]) with FCFS and the flow model
//! as its instance ([`FlowRun`]): since the rates change at every start and end, each
//! instant ends by rescheduling every running job's completion.
//!
//! **Phase model** (Liu et al. §2 and §5.2, [`simulate_phases`], [`PhaseConfig`]): instead of
//! the fluid mix, every job runs `rounds` rounds of (a communication phase of `exchanges`
//! all-to-all exchanges, its computation C / rounds, one complete-bipartite write to every I/O
//! node). Each message is `message_mb` MB; a link carries `link_mb_s` MB/s shared by the
//! messages crossing it, each I/O node's disk writes `disk_mb_s` MB/s shared by the messages it
//! receives. A phase goes at the pace of its bottleneck: one exchange takes
//! message · b / link with b the most loaded of the job's links (messages of every job in a
//! communication or I/O phase); the I/O phase takes message · max(b / link, D / disk) with D
//! the messages the disks receive (every job in an I/O phase sends each of its nodes' one
//! message to every I/O node). Rates change whenever any job changes phase; phase ends that
//! are not job ends are processed inside [`Instance::finish_instant`] (up to the next arrival
//! or job end), so the engine loop still sees only arrivals and completions. Choices in
//! `docs/binary-tree.md` ("Phase model").
//!
//! **Separated-classes model** ([`super::separated`]): the same engine and link loads, with
//! the communication and I/O bottlenecks taken separately and service time made of network
//! time; only the rates differ (`Model::Separated`).
//!
//! FCFS lets the head wait when the allocator refuses it although enough nodes are free (the
//! contiguous BT, SBT, DBT of Liu et al.); no other allocator ever refuses.

use std::fmt;

pub use super::layout::job_links;
use super::metrics::{balance_factor, nodes_affected};
use super::separated::SeparatedConfig;
use super::Network;
use crate::alloc::node_allocator::{Node, NodeAllocator};
use crate::machine::mesh::{Mesh, Submesh};
use crate::sim::{Engine, EventQueue, Instance, JobTable, Progress, StepReport};
use crate::workload::Job;

/// Parameters of the flow model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowConfig {
    /// ρ: fraction of I/O traffic, 0 (all communication) ..= 1 (all I/O).
    pub traffic_io: f64,
    /// κ: slowdown per message on the bottleneck link (communication intensity).
    pub kappa: f64,
}

/// Liu et al.'s phase model (§2, §5.2): every job alternates communication and I/O phases.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseConfig {
    /// All-to-all exchanges in each communication phase, i.e. between two I/O phases
    /// (0: I/O only).
    pub exchanges: u32,
    /// Rounds of (communication, computation, I/O) per job (default 1: communicate, then one
    /// I/O operation, as §5.2 says).
    #[serde(default = "one_round")]
    pub rounds: u32,
    /// Size of every message in MB (default 1).
    #[serde(default = "one_mb")]
    pub message_mb: f64,
    /// Link bandwidth in MB/s (default 11.65, §5.1).
    #[serde(default = "paper_link")]
    pub link_mb_s: f64,
    /// Disk write speed of every I/O node in MB/s (default 4.545, §5.1).
    #[serde(default = "paper_disk")]
    pub disk_mb_s: f64,
}

fn one_round() -> u32 {
    1
}
fn one_mb() -> f64 {
    1.0
}
fn paper_link() -> f64 {
    PhaseConfig::PAPER_LINK_MB_S
}
fn paper_disk() -> f64 {
    PhaseConfig::PAPER_DISK_MB_S
}

impl PhaseConfig {
    /// §5.1: fast-ethernet bandwidth, MB/s.
    pub const PAPER_LINK_MB_S: f64 = 11.65;
    /// §5.1: IDE disk write speed, MB/s.
    pub const PAPER_DISK_MB_S: f64 = 4.545;
    /// Largest `exchanges` and `rounds` accepted.
    pub const MAX_COUNT: u32 = 1_000_000;

    /// The paper's bandwidths, 1 MB messages, one round of `exchanges` exchanges then one I/O.
    pub fn paper(exchanges: u32) -> PhaseConfig {
        PhaseConfig {
            exchanges,
            rounds: 1,
            message_mb: 1.0,
            link_mb_s: PhaseConfig::PAPER_LINK_MB_S,
            disk_mb_s: PhaseConfig::PAPER_DISK_MB_S,
        }
    }

    /// Checks the ranges; the error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.exchanges > Self::MAX_COUNT {
            return Err((
                "exchanges",
                format!(
                    "must be at most {} (got {})",
                    Self::MAX_COUNT,
                    self.exchanges
                ),
            ));
        }
        if self.rounds == 0 || self.rounds > Self::MAX_COUNT {
            return Err((
                "rounds",
                format!(
                    "must be between 1 and {} (got {})",
                    Self::MAX_COUNT,
                    self.rounds
                ),
            ));
        }
        for (key, v) in [
            ("message_mb", self.message_mb),
            ("link_mb_s", self.link_mb_s),
            ("disk_mb_s", self.disk_mb_s),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= 1e12) {
                return Err((
                    key,
                    format!(
                        "must be a number > 0 and ≤ 1e12 (got {})",
                        crate::limits::echo_number(v)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// What a job is doing in the phase model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PhaseKind {
    /// All-to-all exchanges (work: their number).
    Comm,
    /// Computation (work: seconds).
    Compute,
    /// One complete-bipartite write (work: 1).
    Io,
}

/// One job of the flow engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowJob {
    /// Arrival time.
    pub submit: f64,
    /// Number of nodes.
    pub size: u32,
    /// C: computation time (the service time with no network cost).
    pub compute: f64,
}

impl FlowJob {
    /// The flow job of a workload job: its submit time, size, and run time as computation.
    pub fn of(job: &Job) -> FlowJob {
        FlowJob {
            submit: job.submit,
            size: job.procs,
            compute: job.run_time,
        }
    }
}

/// What happened to one job.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRecord {
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
    /// Its nodes.
    pub nodes: Vec<Node>,
    /// nodes_affected of its layout (Mache et al. §2.2).
    pub nodes_affected: u64,
    /// Its per-job balance factor (§2.3).
    pub balance: u64,
    /// System balance factor right after it started.
    pub system_balance: u64,
}

impl FlowRecord {
    /// Service time end − start.
    pub fn service(&self) -> f64 {
        self.end - self.start
    }
}

/// Means over a run.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowSummary {
    /// Jobs run.
    pub jobs: usize,
    /// Mean service time (end − start).
    pub mean_service: f64,
    /// Mean waiting time (start − submit).
    pub mean_wait: f64,
    /// Mean turnaround time (end − submit).
    pub mean_turnaround: f64,
    /// Mean nodes_affected.
    pub mean_nodes_affected: f64,
    /// Mean per-job balance factor.
    pub mean_balance: f64,
    /// Mean system balance factor at job starts.
    pub mean_system_balance: f64,
    /// Σ size · service / (nodes · (last end − first submit)).
    pub utilization: f64,
}

/// A run that cannot be done.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowError {
    /// The job needs more nodes than the mesh has, or none.
    BadSize { job: usize, size: u32, nodes: u32 },
    /// Submit time or computation time is not a finite non-negative number, or jobs are not
    /// in submit order.
    BadTime { job: usize },
    /// A model parameter is out of range.
    BadConfig(&'static str),
    /// The allocator returned an impossible set of nodes.
    BadAllocation { job: usize },
    /// Every event is processed but jobs still wait (the allocator refused a job on a mesh
    /// with nothing running; cannot happen with valid sizes and the repository's allocators).
    Stalled { waiting: usize },
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::BadSize { job, size, nodes } => {
                write!(f, "job #{job} needs {size} nodes; the mesh has {nodes}")
            }
            FlowError::BadTime { job } => write!(
                f,
                "job #{job}: submit and compute times must be finite, ≥ 0 and in submit order"
            ),
            FlowError::BadConfig(what) => write!(f, "flow model: {what}"),
            FlowError::BadAllocation { job } => {
                write!(
                    f,
                    "the allocator gave job #{job} an impossible set of nodes"
                )
            }
            FlowError::Stalled { waiting } => {
                write!(f, "{waiting} jobs still wait after the last event")
            }
        }
    }
}

impl std::error::Error for FlowError {}

/// A running job: its links with (all-to-all, bipartite) message counts.
struct Running {
    job: usize,
    links: Vec<(usize, u64, u64)>,
    /// Fluid model: the links carrying some of its weighted traffic (ρ · writes + (1 − ρ) ·
    /// all-to-all > 0), the only ones its bottleneck is taken over.
    hot: Vec<usize>,
    /// Fluid model: fraction done. Phase model: work done in the current phase.
    progress: f64,
    rate: f64,
    /// Phase model: the phases (kind, work) of one round (empty in the fluid model), the
    /// number of phases in all rounds, and the current one.
    program: Vec<(PhaseKind, f64)>,
    phases: u64,
    phase: u64,
    size: u64,
    /// Phase model: the links its exchanges use, and those its writes use.
    comm_links: Vec<usize>,
    io_links: Vec<usize>,
}

impl Running {
    fn current(&self) -> Option<(PhaseKind, f64)> {
        let n = self.program.len() as u64;
        (n > 0)
            .then(|| self.program.get((self.phase % n) as usize).copied())
            .flatten()
    }
    fn kind(&self) -> Option<PhaseKind> {
        self.current().map(|p| p.0)
    }
    fn work(&self) -> f64 {
        self.current().map_or(1.0, |p| p.1)
    }
    fn last_phase(&self) -> bool {
        self.phase + 1 >= self.phases
    }
    /// Time from `now` to the end of the current phase (fluid model: of the job).
    fn phase_end(&self, now: f64) -> f64 {
        let rest = (self.work() - self.progress).max(0.0);
        if rest == 0.0 {
            now
        } else {
            now + rest / self.rate
        }
    }
    /// Advances the current phase (fluid and separated models: the job) by `dt` seconds.
    fn advance(&mut self, dt: f64) {
        if dt > 0.0 {
            if self.rate.is_finite() {
                self.progress += self.rate * dt;
            } else {
                self.progress = self.work();
            }
        }
    }
}

/// Link and disk loads of the phase model: messages of the jobs in a communication phase
/// (`a`) and in an I/O phase (`b`), and the messages every disk receives (`disk`).
struct PhaseLoads<'l> {
    a: &'l mut [u64],
    b: &'l mut [u64],
    disk: &'l mut u64,
}

impl PhaseLoads<'_> {
    /// Adds (`on`) or removes a running job's traffic of its current phase.
    fn apply(&mut self, r: &Running, on: bool) {
        let add = |x: &mut u64, v: u64| {
            if on {
                *x += v
            } else {
                *x -= v
            }
        };
        match r.kind() {
            Some(PhaseKind::Comm) => {
                for &(l, a, _) in &r.links {
                    add(&mut self.a[l], a);
                }
            }
            Some(PhaseKind::Io) => {
                for &(l, _, b) in &r.links {
                    add(&mut self.b[l], b);
                }
                add(self.disk, r.size);
            }
            Some(PhaseKind::Compute) | None => {}
        }
    }
}

/// Runs `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`, under the flow
/// model `cfg`.
pub fn simulate(
    net: &Network,
    jobs: &[FlowJob],
    alloc: &mut dyn NodeAllocator,
    cfg: FlowConfig,
) -> Result<Vec<FlowRecord>, FlowError> {
    FlowStepper::of(net, jobs, alloc, FlowModel::Fluid(cfg))?.finish()
}

/// Runs `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`, under Liu
/// et al.'s phase model `phases` (a job's `compute` is its computation time, split evenly over
/// its rounds).
pub fn simulate_phases(
    net: &Network,
    jobs: &[FlowJob],
    alloc: &mut dyn NodeAllocator,
    phases: PhaseConfig,
) -> Result<Vec<FlowRecord>, FlowError> {
    FlowStepper::of(net, jobs, alloc, FlowModel::Phases(phases))?.finish()
}

/// Which model paces a flow-engine run, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FlowModel {
    /// The fluid mix of this module.
    Fluid(FlowConfig),
    /// Liu et al.'s phase model.
    Phases(PhaseConfig),
    /// The separated-classes model of [`super::separated`].
    Separated(SeparatedConfig),
}

/// How the engine paces the running jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Model {
    /// The fluid mix of this module (ρ and κ of the [`FlowConfig`]).
    Fluid,
    /// Liu et al.'s phase model.
    Phases(PhaseConfig),
    /// The separated-classes model of [`super::separated`].
    Separated(SeparatedConfig),
}

/// A flow-engine run stepped a few instants at a time (the page's worker runs a mesh run in
/// slices so that it can be cancelled); the same instants, in the same order, as a run to the
/// end.
pub struct FlowStepper<'a> {
    engine: Engine<FlowRun<'a>>,
}

impl<'a> FlowStepper<'a> {
    /// The run of `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`,
    /// under `model` (`cfg` gives ρ and κ of the fluid model); nothing simulated yet.
    pub(super) fn new(
        net: &'a Network,
        jobs: &[FlowJob],
        alloc: &'a mut dyn NodeAllocator,
        cfg: FlowConfig,
        model: Model,
    ) -> Result<FlowStepper<'a>, FlowError> {
        let (phases, separated) = match model {
            Model::Fluid => (None, None),
            Model::Phases(p) => (Some(p), None),
            Model::Separated(s) => (None, Some(s)),
        };
        let mesh =
            Mesh::new(net.width(), net.height()).map_err(|_| FlowError::BadConfig("mesh size"))?;
        let n = mesh.size();
        let mut prev = 0.0;
        for (i, j) in jobs.iter().enumerate() {
            if j.size == 0 || j.size > n {
                return Err(FlowError::BadSize {
                    job: i,
                    size: j.size,
                    nodes: n,
                });
            }
            let ok = j.submit.is_finite()
                && j.submit >= prev
                && j.compute.is_finite()
                && j.compute >= 0.0;
            if !ok {
                return Err(FlowError::BadTime { job: i });
            }
            prev = j.submit;
        }
        let engine_jobs = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| Job::new(i as u64, j.submit, j.compute, j.compute, j.size))
            .collect();
        let run = FlowRun {
            net,
            alloc,
            rho: cfg.traffic_io,
            kappa: cfg.kappa,
            mesh,
            load_a: vec![0u64; net.link_slots()],
            load_b: vec![0u64; net.link_slots()],
            weighted: Vec::new(),
            link_buffers: LinkBuffers::default(),
            records: vec![None; jobs.len()],
            running: Vec::new(),
            queue_head: 0,
            arrived: 0,
            last: 0.0,
            pending_error: None,
            phases,
            separated,
            disk: 0,
        };
        Ok(FlowStepper {
            engine: Engine::with_instance(engine_jobs, run),
        })
    }

    /// The run of `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`,
    /// under `model`, whose parameters are checked first; nothing simulated yet.
    pub fn of(
        net: &'a Network,
        jobs: &[FlowJob],
        alloc: &'a mut dyn NodeAllocator,
        model: FlowModel,
    ) -> Result<FlowStepper<'a>, FlowError> {
        match model {
            FlowModel::Fluid(cfg) => {
                if !(0.0..=1.0).contains(&cfg.traffic_io) {
                    return Err(FlowError::BadConfig("traffic_io must be in [0, 1]"));
                }
                if !(cfg.kappa.is_finite() && cfg.kappa >= 0.0) {
                    return Err(FlowError::BadConfig("kappa must be finite and ≥ 0"));
                }
                FlowStepper::new(net, jobs, alloc, cfg, Model::Fluid)
            }
            FlowModel::Phases(phases) => {
                phases
                    .validate()
                    .map_err(|_| FlowError::BadConfig("phase model parameter out of range"))?;
                let cfg = FlowConfig {
                    traffic_io: 0.0,
                    kappa: 0.0,
                };
                FlowStepper::new(net, jobs, alloc, cfg, Model::Phases(phases))
            }
            FlowModel::Separated(sep) => {
                sep.validate()
                    .map_err(|_| FlowError::BadConfig("separated model parameter out of range"))?;
                let cfg = FlowConfig {
                    traffic_io: sep.traffic_io,
                    kappa: sep.kappa,
                };
                FlowStepper::new(net, jobs, alloc, cfg, Model::Separated(sep))
            }
        }
    }

    /// Processes at most `n` instants; `true` when the run is over.
    pub fn step_instants(&mut self, n: usize) -> Result<bool, FlowError> {
        self.engine.step_instants(n)
    }

    /// Jobs completed and the simulated time so far.
    pub fn progress(&self) -> Progress {
        self.engine.progress()
    }

    /// Runs to the end; every job's record, in arrival order.
    pub fn finish(self) -> Result<Vec<FlowRecord>, FlowError> {
        let records = self.engine.run_to_end()?;
        Ok(records.into_iter().flatten().collect())
    }
}

/// FCFS on a mesh under the flow model: the [`Instance`] of the flow engine. Completion times
/// depend on everyone's rates, so they are rescheduled at the end of every instant.
struct FlowRun<'a> {
    net: &'a Network,
    alloc: &'a mut dyn NodeAllocator,
    rho: f64,
    kappa: f64,
    mesh: Mesh,
    load_a: Vec<u64>,
    load_b: Vec<u64>,
    /// Scratch: ρ · load_b + (1 − ρ) · load_a per link ([`update_rates`]).
    weighted: Vec<f64>,
    /// Scratch of [`links_with`].
    link_buffers: LinkBuffers,
    records: Vec<Option<FlowRecord>>,
    running: Vec<Running>,
    /// FCFS: jobs `queue_head..arrived` are waiting.
    queue_head: usize,
    arrived: usize,
    /// The previous instant (progress is linear since then).
    last: f64,
    /// An impossible allocation found by `decide`, reported by the next `start`.
    pending_error: Option<FlowError>,
    /// Liu et al.'s phase model instead of the fluid mix.
    phases: Option<PhaseConfig>,
    /// The separated-classes model instead of the fluid mix.
    separated: Option<SeparatedConfig>,
    /// Phase model: messages each disk receives from the jobs in an I/O phase.
    disk: u64,
}

impl FlowRun<'_> {
    fn loads(&mut self) -> PhaseLoads<'_> {
        PhaseLoads {
            a: &mut self.load_a,
            b: &mut self.load_b,
            disk: &mut self.disk,
        }
    }

    /// Phase model, end of an instant: advances every running job to now, then processes the
    /// phase ends that come before the next arrival and the next job end (each changes the
    /// loads, hence every rate), and schedules the completion of every job in its last phase
    /// at the rates then in force. The engine's next instant (an arrival or the first of those
    /// completions) therefore has no phase end before it.
    fn finish_phases(&mut self, table: &JobTable, completions: &mut EventQueue, p: &PhaseConfig) {
        let mut now = table.now();
        for r in self.running.iter_mut() {
            r.advance(now - self.last);
        }
        let next_arrival = table
            .jobs()
            .get(self.arrived)
            .map_or(f64::INFINITY, |j| j.submit);
        loop {
            self.phase_rates(p);
            let mut first: Option<(f64, usize)> = None;
            for (k, r) in self.running.iter().enumerate() {
                let end = r.phase_end(now);
                if first.is_none_or(|(e, _)| end < e) {
                    first = Some((end, k));
                }
            }
            let Some((end, k)) = first else { break };
            if self.running[k].last_phase() || end >= next_arrival {
                break;
            }
            for r in self.running.iter_mut() {
                r.advance(end - now);
            }
            now = end;
            let r = self.running.remove(k);
            self.loads().apply(&r, false);
            let mut r = r;
            r.phase += 1;
            r.progress = 0.0;
            self.loads().apply(&r, true);
            self.running.insert(k, r);
        }
        self.last = now;
        completions.clear();
        for r in &self.running {
            if r.last_phase() {
                let end = r.phase_end(now);
                if end.is_finite() {
                    completions.push(end, r.job);
                }
            }
        }
    }

    /// Phase model: every running job's rate in its current phase (work per second).
    fn phase_rates(&mut self, p: &PhaseConfig) {
        let (a, b, disk) = (&self.load_a, &self.load_b, self.disk);
        for r in self.running.iter_mut() {
            let kind = r.kind();
            let bottleneck = |own: &[usize]| -> f64 {
                own.iter().map(|&l| a[l] + b[l]).max().unwrap_or(0) as f64
            };
            r.rate = match kind {
                Some(PhaseKind::Comm) => {
                    let m = bottleneck(&r.comm_links);
                    if m > 0.0 {
                        p.link_mb_s / (p.message_mb * m)
                    } else {
                        f64::INFINITY
                    }
                }
                Some(PhaseKind::Io) => {
                    let m = bottleneck(&r.io_links);
                    let secs = p.message_mb * (m / p.link_mb_s).max(disk as f64 / p.disk_mb_s);
                    if secs > 0.0 {
                        1.0 / secs
                    } else {
                        f64::INFINITY
                    }
                }
                Some(PhaseKind::Compute) | None => 1.0,
            };
        }
    }

    /// Asks the allocator for job `i`'s nodes and takes them, recording its layout metrics
    /// (the system balance right after it). `Ok(false)`: the allocator refused (the job
    /// waits).
    fn take_nodes(&mut self, table: &JobTable, i: usize) -> Result<bool, FlowError> {
        let size = table.jobs()[i].procs;
        let Some(nodes) = self.alloc.select(&self.mesh, size) else {
            return Ok(false);
        };
        if nodes.len() != size as usize {
            return Err(FlowError::BadAllocation { job: i });
        }
        for &(x, y) in &nodes {
            self.mesh
                .allocate(i, Submesh::at(x, y, 1, 1))
                .map_err(|_| FlowError::BadAllocation { job: i })?;
        }
        let net = self.net;
        let t = table.now();
        self.records[i] = Some(FlowRecord {
            start: t,
            end: t,
            nodes_affected: nodes_affected(&nodes),
            balance: balance_factor(net, &nodes),
            system_balance: super::metrics::system_balance_factor(net, &self.mesh),
            nodes,
        });
        Ok(true)
    }
}

impl Instance for FlowRun<'_> {
    type Start = usize;
    type Error = FlowError;
    type Report = StepReport;
    type Output = Vec<Option<FlowRecord>>;

    fn job_of(start: usize) -> usize {
        start
    }

    fn complete(&mut self, table: &JobTable, j: usize) -> Result<(), FlowError> {
        let Some(k) = self.running.iter().position(|r| r.job == j) else {
            return Ok(());
        };
        let r = self.running.remove(k);
        if self.phases.is_some() {
            self.loads().apply(&r, false);
        } else {
            for &(l, a, b) in &r.links {
                self.load_a[l] -= a;
                self.load_b[l] -= b;
            }
        }
        if let Some(rec) = self.records[r.job].as_mut() {
            rec.end = table.now();
            for &(x, y) in &rec.nodes {
                let _ = self.mesh.release(r.job, Submesh::at(x, y, 1, 1));
            }
        }
        Ok(())
    }

    fn arrive(&mut self, _table: &JobTable, _j: usize) -> Result<(), FlowError> {
        self.arrived += 1;
        Ok(())
    }

    /// FCFS: the waiting jobs in arrival order while the first one fits — enough nodes are free
    /// and the allocator accepts it (a contiguous allocator may refuse; the head then waits for
    /// a completion). Each accepted job's nodes are taken here, in order, so the next job is
    /// allocated on the mesh the previous ones left; [`Instance::start`] does the rest.
    fn decide(&mut self, _d: usize, table: &JobTable, starts: &mut Vec<usize>) {
        let mut k = self.queue_head;
        while k < self.arrived && table.jobs()[k].procs <= self.mesh.free_count() {
            match self.take_nodes(table, k) {
                Ok(true) => starts.push(k),
                Ok(false) => break,
                Err(e) => {
                    // Reported by `start`, which the engine calls for this job next.
                    self.pending_error = Some(e);
                    starts.push(k);
                    break;
                }
            }
            k += 1;
        }
    }

    fn not_waiting(&self, _d: usize, job: u64) -> FlowError {
        FlowError::BadAllocation { job: job as usize }
    }

    /// Puts the job's traffic on the links (its nodes were taken by [`Instance::decide`]); its
    /// end is set by [`Instance::finish_instant`] once the rates are known.
    fn start(&mut self, _d: usize, table: &JobTable, i: usize) -> Result<f64, FlowError> {
        if let Some(e) = self.pending_error.take() {
            return Err(e);
        }
        let Some(rec) = self.records.get(i).and_then(Option::as_ref) else {
            return Err(FlowError::BadAllocation { job: i });
        };
        let links = links_with(self.net, &rec.nodes, &mut self.link_buffers);
        let size = rec.nodes.len() as u64;
        let mut r = Running {
            job: i,
            links,
            hot: Vec::new(),
            progress: 0.0,
            rate: 0.0,
            program: Vec::new(),
            phases: 1,
            phase: 0,
            size,
            comm_links: Vec::new(),
            io_links: Vec::new(),
        };
        if let Some(p) = self.phases {
            r.comm_links = r.links.iter().filter(|x| x.1 > 0).map(|x| x.0).collect();
            r.io_links = r.links.iter().filter(|x| x.2 > 0).map(|x| x.0).collect();
            r.program = round_program(&p, table.jobs()[i].run_time);
            r.phases = r.program.len() as u64 * u64::from(p.rounds.max(1));
            self.loads().apply(&r, true);
        } else {
            let rho = self.rho;
            r.hot = r
                .links
                .iter()
                .filter(|&&(_, a, bb)| rho * bb as f64 + (1.0 - rho) * a as f64 > 0.0)
                .map(|x| x.0)
                .collect();
            for &(l, a, b) in &r.links {
                self.load_a[l] += a;
                self.load_b[l] += b;
            }
        }
        self.running.push(r);
        self.queue_head += 1;
        Ok(f64::INFINITY)
    }

    fn refused(&mut self) {
        // A refused start ends the run with an error; nothing to restore.
    }

    fn stalled(&self, waiting: usize) -> FlowError {
        FlowError::Stalled { waiting }
    }

    /// Advances every running job's progress to now, recomputes the rates from the link
    /// loads and reschedules each completion at now + (1 − progress) / rate.
    fn finish_instant(
        &mut self,
        table: &JobTable,
        completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<StepReport, FlowError> {
        if let Some(p) = self.phases {
            self.finish_phases(table, completions, &p);
            return Ok(report);
        }
        let t = table.now();
        for r in self.running.iter_mut() {
            r.advance(t - self.last);
        }
        self.last = t;
        match self.separated {
            None => update_rates(
                &mut self.running,
                &self.load_a,
                &self.load_b,
                (self.rho, self.kappa),
                table.jobs(),
                &mut self.weighted,
            )?,
            Some(s) => separated_rates(
                &mut self.running,
                &self.load_a,
                &self.load_b,
                &s,
                table.jobs(),
            )?,
        }
        completions.clear();
        for r in &self.running {
            let finish = t + (1.0 - r.progress) / r.rate;
            if finish.is_finite() {
                completions.push(finish, r.job);
            }
        }
        Ok(report)
    }

    fn result(self, _table: JobTable) -> Vec<Option<FlowRecord>> {
        self.records
    }
}

/// [`links_with`] with fresh buffers.
/// Runs `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`, under the
/// separated-classes model `cfg` (a job's `compute` is its length C).
pub fn simulate_separated(
    net: &Network,
    jobs: &[FlowJob],
    alloc: &mut dyn NodeAllocator,
    cfg: SeparatedConfig,
) -> Result<Vec<FlowRecord>, FlowError> {
    FlowStepper::of(net, jobs, alloc, FlowModel::Separated(cfg))?.finish()
}

#[cfg(test)]
fn links_of(net: &Network, nodes: &[Node]) -> Vec<(usize, u64, u64)> {
    links_with(net, nodes, &mut LinkBuffers::default())
}

/// Buffers [`links_with`] reuses from one job to the next.
#[derive(Clone, Debug, Default)]
struct LinkBuffers {
    scratch: super::link_counts::LinkScratch,
    a: Vec<u64>,
    b: Vec<u64>,
}

/// The links of a job's traffic with (all-to-all, bipartite write) message counts, in link
/// index order: [`job_links`]'s values, from the closed-form counts of
/// [`super::link_counts::pair_link_counts`] (O(links + nodes) instead of walking every route).
fn links_with(net: &Network, nodes: &[Node], buf: &mut LinkBuffers) -> Vec<(usize, u64, u64)> {
    let io: Vec<Node> = net.io_nodes().iter().map(|n| (n.x, n.y)).collect();
    let LinkBuffers { scratch, a, b } = buf;
    super::link_counts::pair_link_counts_into(net, nodes, nodes, scratch, a);
    super::link_counts::pair_link_counts_into(net, nodes, &io, scratch, b);
    a.iter()
        .zip(b.iter())
        .enumerate()
        .filter(|(_, (&x, &y))| x > 0 || y > 0)
        .map(|(i, (&x, &y))| (i, x, y))
        .collect()
}

/// The phases of one round of a job with computation time `compute`: `exchanges` all-to-all
/// exchanges (if any), compute / rounds seconds of computation (if any), one I/O write.
fn round_program(p: &PhaseConfig, compute: f64) -> Vec<(PhaseKind, f64)> {
    let per_round = compute / f64::from(p.rounds.max(1));
    let mut v = Vec::with_capacity(3);
    if p.exchanges > 0 {
        v.push((PhaseKind::Comm, f64::from(p.exchanges)));
    }
    if per_round > 0.0 {
        v.push((PhaseKind::Compute, per_round));
    }
    v.push((PhaseKind::Io, 1.0));
    v
}

/// Rates from the current link loads: dp/dt = 1 / (C · (1 + κ · b)), b the load of the job's
/// most loaded link.
fn update_rates(
    running: &mut [Running],
    load_a: &[u64],
    load_b: &[u64],
    (rho, kappa): (f64, f64),
    jobs: &[Job],
    weighted: &mut Vec<f64>,
) -> Result<(), FlowError> {
    let w = |l: usize| rho * load_b[l] as f64 + (1.0 - rho) * load_a[l] as f64;
    // When the running jobs' links outnumber the links, the weighted load of every link is
    // computed once (same expression, same value) rather than once per job using it.
    let visits: usize = running.iter().map(|r| r.hot.len()).sum();
    let shared = visits > load_a.len();
    if shared {
        weighted.clear();
        weighted.extend((0..load_a.len()).map(w));
    }
    for r in running.iter_mut() {
        let b = if shared {
            r.hot.iter().fold(0.0f64, |b, &l| b.max(weighted[l]))
        } else {
            r.hot.iter().fold(0.0f64, |b, &l| b.max(w(l)))
        };
        r.rate = rate_of(jobs[r.job].run_time * (1.0 + kappa * b))?;
    }
    Ok(())
}

/// The progress rate of a job whose service takes `secs` at the current loads: 1 / secs, or
/// infinite (it ends at once) when secs is 0; an error when no finite positive rate exists.
fn rate_of(secs: f64) -> Result<f64, FlowError> {
    let rate = if secs > 0.0 {
        1.0 / secs
    } else {
        f64::INFINITY
    };
    if rate.is_nan() || rate <= 0.0 {
        return Err(FlowError::BadConfig(
            "kappa too large: a job would never finish",
        ));
    }
    Ok(rate)
}

/// Rates of the separated-classes model: dp/dt = 1 / (C · S), S = σ + κ (ρ b^B + (1 − ρ) b^A)
/// ([`SeparatedConfig::slowdown`]); a job with C = 0 or S = 0 ends at once.
fn separated_rates(
    running: &mut [Running],
    load_a: &[u64],
    load_b: &[u64],
    s: &SeparatedConfig,
    jobs: &[Job],
) -> Result<(), FlowError> {
    for r in running.iter_mut() {
        let (ba, bb) = s.bottlenecks(&r.links, load_a, load_b);
        r.rate = rate_of(jobs[r.job].run_time * s.slowdown(ba, bb))?;
    }
    Ok(())
}

/// Means over a run's records; `jobs` gives the submit times (same order as the records).
pub fn summarize(net: &Network, jobs: &[FlowJob], records: &[FlowRecord]) -> FlowSummary {
    let m = records.len().max(1) as f64;
    let sum = |f: &dyn Fn(usize, &FlowRecord) -> f64| -> f64 {
        records
            .iter()
            .enumerate()
            .map(|(i, r)| f(i, r))
            .sum::<f64>()
            / m
    };
    let first = jobs.first().map_or(0.0, |j| j.submit);
    let last = records.iter().map(|r| r.end).fold(first, f64::max);
    let work: f64 = records
        .iter()
        .map(|r| r.nodes.len() as f64 * r.service())
        .sum();
    let span = (last - first) * f64::from(net.width() * net.height());
    FlowSummary {
        jobs: records.len(),
        mean_service: sum(&|_, r| r.service()),
        mean_wait: sum(&|i, r| r.start - jobs.get(i).map_or(r.start, |j| j.submit)),
        mean_turnaround: sum(&|i, r| r.end - jobs.get(i).map_or(r.start, |j| j.submit)),
        mean_nodes_affected: sum(&|_, r| r.nodes_affected as f64),
        mean_balance: sum(&|_, r| r.balance as f64),
        mean_system_balance: sum(&|_, r| r.system_balance as f64),
        utilization: if span > 0.0 { work / span } else { 0.0 },
    }
}

/// An allocator that hands out a fixed list of layouts, one per call (tests of the
/// contention models).
#[cfg(test)]
pub(crate) struct FixedLayouts(pub Vec<Vec<Node>>);

#[cfg(test)]
impl NodeAllocator for FixedLayouts {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn select(&mut self, _mesh: &crate::machine::mesh::Mesh, _j: u32) -> Option<Vec<Node>> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::IoLayout;
    use crate::alloc::plas::Plas;
    use crate::alloc::NodeAllocatorKind;

    use super::FixedLayouts as Fixed;

    fn fig2_net() -> Network {
        crate::network::fig2_network()
    }

    #[test]
    fn alone_the_service_time_follows_the_bottleneck() {
        let net = fig2_net();
        let job = [FlowJob {
            submit: 0.0,
            size: 4,
            compute: 10.0,
        }];
        let io = FlowConfig {
            traffic_io: 1.0,
            kappa: 0.01,
        };
        // Block layout: the busiest link carries 8 writes (the rung from (1, 4) and the
        // middle I/O link); parallel: 4. Service = C · (1 + κ · b).
        let block = vec![(1, 3), (2, 3), (1, 4), (2, 4)];
        let parallel = vec![(1, 1), (1, 2), (1, 3), (1, 4)];
        let r = simulate(&net, &job, &mut Fixed(vec![block.clone()]), io).unwrap();
        assert!(
            (r[0].service() - 10.0 * (1.0 + 0.01 * 8.0)).abs() < 1e-9,
            "{r:?}"
        );
        let r = simulate(&net, &job, &mut Fixed(vec![parallel]), io).unwrap();
        assert!(
            (r[0].service() - 10.0 * (1.0 + 0.01 * 4.0)).abs() < 1e-9,
            "{r:?}"
        );
        // Pure communication: a 2 × 2 block's all-to-all loads each link with 2 messages.
        let comm = FlowConfig {
            traffic_io: 0.0,
            kappa: 0.01,
        };
        let r = simulate(&net, &job, &mut Fixed(vec![block]), comm).unwrap();
        assert!(
            (r[0].service() - 10.0 * (1.0 + 0.01 * 2.0)).abs() < 1e-9,
            "{r:?}"
        );
    }

    #[test]
    fn interference_slows_both_jobs_and_progress_is_fractional() {
        let net = fig2_net();
        let comm = FlowConfig {
            traffic_io: 0.0,
            kappa: 0.1,
        };
        let jobs = [
            FlowJob {
                submit: 0.0,
                size: 2,
                compute: 10.0,
            },
            FlowJob {
                submit: 5.0,
                size: 2,
                compute: 10.0,
            },
        ];
        // Interleaved on row 1: (1,1)-(3,1) and (2,1)-(4,1) share the links (2,1)→(3,1) and
        // (3,1)→(2,1): alone b = 1, together b = 2.
        let mut a = Fixed(vec![vec![(1, 1), (3, 1)], vec![(2, 1), (4, 1)]]);
        let r = simulate(&net, &jobs, &mut a, comm).unwrap();
        // Job 0: 5 s at rate 1/11 → 5/11 done; then rate 1/12 → 12 · 6/11 more seconds.
        let end0 = 5.0 + 12.0 * 6.0 / 11.0;
        assert!((r[0].end - end0).abs() < 1e-9, "{r:?}");
        // Job 1: rate 1/12 until job 0 ends, then 1/11.
        let done1 = (end0 - 5.0) / 12.0;
        let end1 = end0 + (1.0 - done1) * 11.0;
        assert!((r[1].end - end1).abs() < 1e-9, "{r:?}");
        // Side by side (separate columns) they do not interfere.
        let mut b = Fixed(vec![vec![(1, 1), (1, 2)], vec![(3, 1), (3, 2)]]);
        let r = simulate(&net, &jobs, &mut b, comm).unwrap();
        assert!((r[0].service() - 11.0).abs() < 1e-9);
        assert!((r[1].service() - 11.0).abs() < 1e-9);
    }

    /// Allocates only on an empty mesh (a caricature of a contiguous allocator's refusals).
    struct EmptyOnly;

    impl NodeAllocator for EmptyOnly {
        fn name(&self) -> &'static str {
            "empty_only"
        }
        fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
            (mesh.free_count() == mesh.size())
                .then(|| crate::alloc::node_allocator::free_nodes(mesh))
                .map(|mut v| {
                    v.truncate(j as usize);
                    v
                })
        }
    }

    #[test]
    fn closed_form_links_equal_route_walking() {
        let mut rng = crate::base::SimRng::new(8);
        for net in [Network::mc_elongated(), fig2_net()] {
            for _ in 0..30 {
                let m = crate::alloc::node_allocator::tests::random_mesh(
                    &mut rng,
                    net.width(),
                    net.height(),
                    0.4,
                );
                let nodes = crate::alloc::node_allocator::free_nodes(&m);
                assert_eq!(links_of(&net, &nodes), job_links(&net, &nodes));
            }
        }
    }

    #[test]
    fn a_refused_head_waits_for_a_completion_and_blocks_the_queue() {
        let net = fig2_net();
        let cfg = FlowConfig {
            traffic_io: 0.5,
            kappa: 0.01,
        };
        let job = |submit, size| FlowJob {
            submit,
            size,
            compute: 10.0,
        };
        let jobs = [job(0.0, 2), job(0.0, 2), job(1.0, 1)];
        let r = simulate(&net, &jobs, &mut EmptyOnly, cfg).unwrap();
        // Job 1 fits by count (14 free nodes) but is refused until job 0 ends; job 2 (FCFS)
        // waits behind it although the allocator would not even be asked.
        assert_eq!(r[0].start, 0.0);
        assert_eq!(r[1].start, r[0].end);
        assert_eq!(r[2].start, r[1].end);
        assert!(r.iter().all(|x| x.end > x.start));
    }

    #[test]
    fn phase_model_alone_follows_link_and_disk_bottlenecks() {
        let net = fig2_net();
        let p = PhaseConfig::paper(2);
        let (link, disk) = (p.link_mb_s, p.disk_mb_s);
        let job = [FlowJob {
            submit: 0.0,
            size: 4,
            compute: 0.0,
        }];
        // A column of 4: the all-to-all puts 4 messages on the link between rows 2 and 3;
        // the I/O write sends 4 messages to each disk and at most 4 over any link.
        let column = vec![(1, 1), (1, 2), (1, 3), (1, 4)];
        let r = simulate_phases(&net, &job, &mut Fixed(vec![column.clone()]), p).unwrap();
        let want = 2.0 * 4.0 / link + (4.0 / link).max(4.0 / disk);
        assert!((r[0].service() - want).abs() < 1e-9, "{r:?}");
        // A 2 × 2 block: exchanges load 2 per link; the write to the far I/O nodes puts
        // 8 messages on the I/O line link between rows 2 and 3 (8/11.65 < 4/4.545: the
        // disks still decide).
        let block = vec![(1, 1), (2, 1), (1, 2), (2, 2)];
        let r = simulate_phases(&net, &job, &mut Fixed(vec![block]), p).unwrap();
        let want = 2.0 * 2.0 / link + (8.0 / link).max(4.0 / disk);
        assert!((r[0].service() - want).abs() < 1e-9, "{r:?}");
        // Compute time and rounds: 3 rounds of (2 exchanges, 1 s, one write).
        let p3 = PhaseConfig { rounds: 3, ..p };
        let job = [FlowJob {
            compute: 3.0,
            ..job[0]
        }];
        let r = simulate_phases(&net, &job, &mut Fixed(vec![column]), p3).unwrap();
        let want = 3.0 * (2.0 * 4.0 / link + 1.0 + 4.0 / disk);
        assert!((r[0].service() - want).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn phase_changes_of_one_job_change_the_others_rates() {
        let net = fig2_net();
        let p = PhaseConfig::paper(1);
        let (link, disk) = (p.link_mb_s, p.disk_mb_s);
        let jobs = [
            FlowJob {
                submit: 0.0,
                size: 2,
                compute: 0.0,
            },
            FlowJob {
                submit: 0.0,
                size: 2,
                compute: 0.2,
            },
        ];
        let mut a = Fixed(vec![vec![(1, 1), (1, 2)], vec![(3, 1), (3, 2)]]);
        let r = simulate_phases(&net, &jobs, &mut a, p).unwrap();
        // Both exchange alone (1 message per link), 1/link s. Job 0 then writes alone (2
        // messages per disk) until job 1 has computed 0.2 s; then the disks take 4 messages
        // per write, and job 1 finishes alone.
        let comm = 1.0 / link;
        let alone = 2.0 / disk;
        let shared = 4.0 / disk;
        let done0 = 0.2 / alone;
        let end0 = comm + 0.2 + (1.0 - done0) * shared;
        assert!((r[0].end - end0).abs() < 1e-9, "{r:?}");
        let done1 = (end0 - comm - 0.2) / shared;
        let end1 = end0 + (1.0 - done1) * alone;
        assert!((r[1].end - end1).abs() < 1e-9, "{r:?}");
        // Deterministic, and pure I/O with every tree allocator finishes every job.
        let r2 = simulate_phases(
            &net,
            &jobs,
            &mut Fixed(vec![vec![(1, 1), (1, 2)], vec![(3, 1), (3, 2)]]),
            p,
        )
        .unwrap();
        assert_eq!(r, r2);
        let bad = PhaseConfig {
            disk_mb_s: 0.0,
            ..p
        };
        assert!(simulate_phases(&net, &jobs, &mut Fixed(Vec::new()), bad).is_err());
        assert_eq!(
            PhaseConfig { rounds: 0, ..p }.validate().map_err(|e| e.0),
            Err("rounds")
        );
    }

    #[test]
    fn binary_tree_allocators_run_under_fcfs() {
        let net = Network::mc_elongated();
        let params = crate::workload::synthetic::exponential_jobs::ExponentialJobsParams {
            jobs: 120,
            mean_interarrival: 200.0,
            ..Default::default()
        };
        let jobs: Vec<FlowJob> = params.generate(5).jobs.iter().map(FlowJob::of).collect();
        let cfg = FlowConfig {
            traffic_io: 0.6,
            kappa: 0.002,
        };
        for k in NodeAllocatorKind::trees() {
            let r = simulate(&net, &jobs, k.build(&net, 1).as_mut(), cfg).unwrap();
            assert_eq!(r.len(), jobs.len(), "{}", k.as_str());
            for (i, x) in r.iter().enumerate() {
                assert!(x.start >= jobs[i].submit);
                assert_eq!(x.nodes.len(), jobs[i].size as usize);
            }
            assert!(
                r.windows(2).all(|w| w[0].start <= w[1].start),
                "{}",
                k.as_str()
            );
            let r = simulate_phases(
                &net,
                &jobs,
                k.build(&net, 1).as_mut(),
                PhaseConfig::paper(3),
            )
            .unwrap();
            assert_eq!(r.len(), jobs.len(), "{}", k.as_str());
            assert!(r.iter().all(|x| x.end > x.start));
        }
    }

    #[test]
    fn fcfs_with_real_allocators_is_deterministic_and_valid() {
        let net = Network::mc_elongated();
        let params = crate::workload::synthetic::exponential_jobs::ExponentialJobsParams {
            jobs: 150,
            ..Default::default()
        };
        let jobs: Vec<FlowJob> = params.generate(3).jobs.iter().map(FlowJob::of).collect();
        let cfg = FlowConfig {
            traffic_io: 0.6,
            kappa: 0.002,
        };
        for k in NodeAllocatorKind::ALL {
            let r1 = simulate(&net, &jobs, k.build(&net, 1).as_mut(), cfg).unwrap();
            let r2 = simulate(&net, &jobs, k.build(&net, 1).as_mut(), cfg).unwrap();
            assert_eq!(r1, r2);
            assert_eq!(r1.len(), jobs.len());
            // FCFS: starts in arrival order, never before submit, service ≥ compute.
            for (i, r) in r1.iter().enumerate() {
                assert!(r.start >= jobs[i].submit);
                assert!(r.service() >= jobs[i].compute - 1e-6);
                assert_eq!(r.nodes.len(), jobs[i].size as usize);
            }
            assert!(r1.windows(2).all(|w| w[0].start <= w[1].start));
            let s = summarize(&net, &jobs, &r1);
            assert!(s.utilization > 0.0 && s.utilization <= 1.0);
        }
        let mut p = Plas::new(IoLayout::of(&net));
        let bad = [FlowJob {
            submit: 0.0,
            size: 400,
            compute: 1.0,
        }];
        assert!(simulate(&net, &bad, &mut p, cfg).is_err());
        let bad_cfg = FlowConfig {
            traffic_io: 1.5,
            kappa: 0.0,
        };
        assert!(simulate(&net, &jobs, &mut p, bad_cfg).is_err());
        let huge = FlowConfig {
            traffic_io: 1.0,
            kappa: f64::MAX,
        };
        assert!(simulate(&net, &jobs, &mut p, huge).is_err());
    }
}
