//! A flow-level model of network contention from communication and I/O (seed 000 §2 and
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

use std::fmt;

pub use super::layout::job_links;
use super::metrics::{balance_factor, nodes_affected};
use super::Network;
use crate::alloc::node_allocator::{Node, NodeAllocator};
use crate::machine::mesh::{Mesh, Submesh};
use crate::sim::{Engine, EventQueue, Instance, JobTable, StepReport};
use crate::workload::Job;

/// Parameters of the flow model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowConfig {
    /// ρ: fraction of I/O traffic, 0 (all communication) ..= 1 (all I/O).
    pub traffic_io: f64,
    /// κ: slowdown per message on the bottleneck link (communication intensity).
    pub kappa: f64,
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
    /// nodes_affected of its layout (seed 000 §2.2).
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
    /// Every event is processed but jobs still wait (cannot happen with valid sizes).
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
    progress: f64,
    rate: f64,
}

/// Runs `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`, under the flow
/// model `cfg`.
pub fn simulate(
    net: &Network,
    jobs: &[FlowJob],
    alloc: &mut dyn NodeAllocator,
    cfg: FlowConfig,
) -> Result<Vec<FlowRecord>, FlowError> {
    if !(0.0..=1.0).contains(&cfg.traffic_io) {
        return Err(FlowError::BadConfig("traffic_io must be in [0, 1]"));
    }
    if !(cfg.kappa.is_finite() && cfg.kappa >= 0.0) {
        return Err(FlowError::BadConfig("kappa must be finite and ≥ 0"));
    }
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
        let ok =
            j.submit.is_finite() && j.submit >= prev && j.compute.is_finite() && j.compute >= 0.0;
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
        records: vec![None; jobs.len()],
        running: Vec::new(),
        queue_head: 0,
        arrived: 0,
        last: 0.0,
    };
    let records = Engine::with_instance(engine_jobs, run).run_to_end()?;
    Ok(records.into_iter().flatten().collect())
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
    records: Vec<Option<FlowRecord>>,
    running: Vec<Running>,
    /// FCFS: jobs `queue_head..arrived` are waiting.
    queue_head: usize,
    arrived: usize,
    /// The previous instant (progress is linear since then).
    last: f64,
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
        for &(l, a, b) in &r.links {
            self.load_a[l] -= a;
            self.load_b[l] -= b;
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

    /// FCFS: the waiting jobs in arrival order while the first one fits.
    fn decide(&mut self, _d: usize, table: &JobTable, starts: &mut Vec<usize>) {
        let mut free = self.mesh.free_count();
        let mut k = self.queue_head;
        while k < self.arrived && table.jobs()[k].procs <= free {
            starts.push(k);
            free -= table.jobs()[k].procs;
            k += 1;
        }
    }

    fn not_waiting(&self, _d: usize, job: u64) -> FlowError {
        FlowError::BadAllocation { job: job as usize }
    }

    /// Allocates the job's nodes and puts its traffic on the links; its end is set by
    /// [`Instance::finish_instant`] once the rates are known.
    fn start(&mut self, _d: usize, table: &JobTable, i: usize) -> Result<f64, FlowError> {
        let size = table.jobs()[i].procs;
        let nodes = self
            .alloc
            .select(&self.mesh, size)
            .ok_or(FlowError::BadAllocation { job: i })?;
        if nodes.len() != size as usize {
            return Err(FlowError::BadAllocation { job: i });
        }
        for &(x, y) in &nodes {
            self.mesh
                .allocate(i, Submesh::at(x, y, 1, 1))
                .map_err(|_| FlowError::BadAllocation { job: i })?;
        }
        let net = self.net;
        let links = job_links(net, &nodes);
        for &(l, a, b) in &links {
            self.load_a[l] += a;
            self.load_b[l] += b;
        }
        let t = table.now();
        self.records[i] = Some(FlowRecord {
            start: t,
            end: t,
            nodes_affected: nodes_affected(&nodes),
            balance: balance_factor(net, &nodes),
            system_balance: super::metrics::system_balance_factor(net, &self.mesh),
            nodes,
        });
        self.running.push(Running {
            job: i,
            links,
            progress: 0.0,
            rate: 0.0,
        });
        self.queue_head += 1;
        Ok(f64::INFINITY)
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
        let t = table.now();
        for r in self.running.iter_mut() {
            r.progress += r.rate * (t - self.last);
        }
        self.last = t;
        update_rates(
            &mut self.running,
            &self.load_a,
            &self.load_b,
            self.rho,
            self.kappa,
            table.jobs(),
        )?;
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

/// Rates from the current link loads: dp/dt = 1 / (C · (1 + κ · b)), b the load of the job's
/// most loaded link.
fn update_rates(
    running: &mut [Running],
    load_a: &[u64],
    load_b: &[u64],
    rho: f64,
    kappa: f64,
    jobs: &[Job],
) -> Result<(), FlowError> {
    for r in running.iter_mut() {
        let mut b = 0.0f64;
        for &(l, a, bb) in &r.links {
            let own = rho * bb as f64 + (1.0 - rho) * a as f64;
            if own > 0.0 {
                b = b.max(rho * load_b[l] as f64 + (1.0 - rho) * load_a[l] as f64);
            }
        }
        let c = jobs[r.job].run_time;
        r.rate = if c > 0.0 {
            1.0 / (c * (1.0 + kappa * b))
        } else {
            f64::INFINITY
        };
        if r.rate.is_nan() || r.rate <= 0.0 {
            return Err(FlowError::BadConfig(
                "kappa too large: a job would never finish",
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::IoLayout;
    use crate::alloc::plas::Plas;
    use crate::alloc::NodeAllocatorKind;
    use crate::network::{IoSide, NetworkConfig};

    /// An allocator that hands out a fixed list of layouts, one per call.
    struct Fixed(Vec<Vec<Node>>);

    impl NodeAllocator for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn select(&mut self, _mesh: &Mesh, _j: u32) -> Option<Vec<Node>> {
            if self.0.is_empty() {
                None
            } else {
                Some(self.0.remove(0))
            }
        }
    }

    fn fig2_net() -> Network {
        Network::new(NetworkConfig {
            width: 4,
            height: 4,
            io_side: IoSide::West,
            io_count: Some(4),
        })
        .unwrap()
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

    #[test]
    fn fcfs_with_real_allocators_is_deterministic_and_valid() {
        let net = Network::seed000();
        let params = crate::workload::synthetic::exp000::Exp000Params {
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
