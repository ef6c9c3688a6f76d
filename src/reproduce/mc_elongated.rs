//! The design of `schedlab reproduce mc-elongated`: Mache et al. §4, Table 2 and
//! Figs. 9–10, with the flow-level contention model of [`crate::network::flow`]: the 16 × 22
//! mesh with 16 west I/O nodes (§4.1), the Table 1 synthetic workload (1000 jobs, exponential
//! sizes of mean 16), FCFS, traffic ratio 100 / 80 / 60 / 40 / 20 / 0 % I/O, and the strategies
//! MC-Elongated, PLAS, MC, Random, MBS and Paging. For every ratio the mean interarrival time
//! is calibrated (with MC-Elongated) so that utilisation lands at 65 % (Table 2: 60–70 %);
//! then every strategy runs the same workload. Prints mean service time and rank next to
//! Table 2, and mean nodes_affected (Fig. 9) and balance factor (Fig. 10) per strategy.
//!
//! Workload II (the SDSC Paragon trace, Table 1) is stood in for by the first 90 days of
//! `SDSC-Par-1996-3.1-cln.swf.gz` when it is in the traces folder (the paper's 6087-job,
//! three-month trace is not published separately): jobs larger than the 352-node mesh dropped,
//! run time as computation time, ratios 100 / 75 / 50 / 25 / 0 % I/O (§4.2: increments of 25 %
//! for the SDSC workload), arrivals sped up by a load factor calibrated (with MC-Elongated) to
//! 65 % utilisation. It runs through [`crate::modes::mesh::run`], the path of the app's 2D-mesh mode.
//! The paper prints no numbers for it ("very similar" to Table 2), so `paper` is null.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::alloc::NodeAllocatorKind;
use crate::error::Error;
use crate::modes::mesh::spec::ContentionModel;
use crate::network::flow::simulate_separated;
use crate::network::flow::{simulate, summarize, FlowConfig, FlowJob, FlowSummary};
use crate::network::separated::SeparatedConfig;
use crate::network::Network;
use crate::reproduce::stats::{paired_ranks, ranks, MeanCi};
use crate::workload::synthetic::exponential_jobs::ExponentialJobsParams;

/// The trace standing in for Workload II.
pub const SDSC_TRACE: &str = "SDSC-Par-1996-3.1-cln.swf.gz";
/// Days of the trace used (the paper's trace spans three months).
pub const SDSC_DAYS: f64 = 90.0;
/// Traffic ratios of the SDSC experiment (§4.2: increments of 25 %).
pub const SDSC_RATIOS: [f64; 5] = [1.0, 0.75, 0.5, 0.25, 0.0];

/// Traffic ratios (fraction of I/O) of Table 2.
pub const RATIOS: [f64; 6] = [1.0, 0.8, 0.6, 0.4, 0.2, 0.0];

/// The strategies of Table 2, in the paper's row order.
pub use crate::modes::mesh::presets::MC_ELONGATED_STRATEGIES as STRATEGIES;

/// Table 2: (mean service time, rank) per strategy (rows as [`STRATEGIES`]) and ratio.
pub const TABLE2: [[(f64, u32); 6]; 6] = [
    [
        (8529.0, 3),
        (6693.6, 2),
        (4948.7, 1),
        (2784.0, 1),
        (1405.0, 1),
        (395.3, 2),
    ],
    [
        (8140.0, 1),
        (6384.6, 1),
        (4929.5, 1),
        (2847.9, 2),
        (1470.9, 2),
        (501.9, 3),
    ],
    [
        (9076.0, 4),
        (7265.1, 4),
        (5481.7, 3),
        (3258.8, 3),
        (1603.4, 3),
        (366.0, 1),
    ],
    [
        (8488.0, 2),
        (7046.6, 3),
        (5563.9, 4),
        (3334.9, 4),
        (1810.0, 4),
        (738.9, 6),
    ],
    [
        (9939.0, 5),
        (8072.3, 5),
        (6004.2, 5),
        (3890.3, 5),
        (2085.2, 5),
        (651.4, 5),
    ],
    [
        (12096.0, 6),
        (9653.6, 6),
        (6911.8, 6),
        (4341.1, 6),
        (2225.7, 6),
        (514.5, 4),
    ],
];

/// κ of both models (docs/network-model.md): the flow model's slowdown per message on the
/// bottleneck link; the separated model's time of one message per unit of a job's length.
pub const KAPPA: f64 = 0.001;
/// The contention model of the reproduction by default (the
/// separated-classes model, as the app's preset; `--model flow` gives the flow model's
/// results).
pub const MODEL: ContentionModel = crate::modes::mesh::presets::MC_ELONGATED_MODEL;
/// σ of the separated-classes model: no computation term (service time is network time).
pub const COMPUTE: f64 = crate::modes::mesh::presets::MC_ELONGATED_COMPUTE;
/// Target utilisation of the interarrival calibration.
pub const TARGET_UTIL: f64 = 0.65;
/// The wormhole model of the reproduction (`--model wormhole`): [`WormholeConfig::default`]
/// (8-flit packets, 1 s flits, one round per 7150 s of a job's length) at ratio `rho`.
///
/// [`WormholeConfig::default`]: crate::network::wormhole::WormholeConfig
pub fn wormhole(rho: f64) -> crate::network::wormhole::WormholeConfig {
    crate::network::wormhole::WormholeConfig {
        traffic_io: rho,
        ..Default::default()
    }
}
/// Workload seed.
pub const SEED: u64 = 2000;

/// One JSON row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `table2`, `fig9` or `fig10`.
    pub figure: &'static str,
    /// Strategy name.
    pub policy: String,
    /// Percent of I/O traffic.
    pub traffic_io: u32,
    /// `mean_service`, `rank`, `nodes_affected`, `balance_factor`, `system_balance_factor`,
    /// `utilization`, `mean_interarrival`.
    pub metric: &'static str,
    /// Our value.
    pub ours: f64,
    /// The paper's value, when it gives one.
    pub paper: Option<f64>,
}

fn err(message: String) -> Error {
    Error::Config(crate::modes::flat::spec::ConfigError {
        key: "reproduce mc-elongated".into(),
        message,
    })
}

fn jobs_for(mean_interarrival: f64, seed: u64) -> Vec<FlowJob> {
    let p = ExponentialJobsParams {
        mean_interarrival,
        ..ExponentialJobsParams::default()
    };
    p.generate(seed).jobs.iter().map(FlowJob::of).collect()
}

fn run(
    net: &Network,
    model: ContentionModel,
    kind: NodeAllocatorKind,
    rho: f64,
    ia: f64,
) -> Result<FlowSummary, Error> {
    run_seeded(net, model, kind, rho, ia, SEED)
}

/// One run with workload and allocator seeded by `seed`.
fn run_seeded(
    net: &Network,
    model: ContentionModel,
    kind: NodeAllocatorKind,
    rho: f64,
    ia: f64,
    seed: u64,
) -> Result<FlowSummary, Error> {
    let jobs = jobs_for(ia, seed);
    let mut a = kind.build(net, seed);
    let recs = match model {
        ContentionModel::Flow => simulate(
            net,
            &jobs,
            a.as_mut(),
            FlowConfig {
                traffic_io: rho,
                kappa: KAPPA,
            },
        ),
        ContentionModel::Separated => simulate_separated(
            net,
            &jobs,
            a.as_mut(),
            SeparatedConfig {
                traffic_io: rho,
                kappa: KAPPA,
                compute: COMPUTE,
            },
        ),
        ContentionModel::Wormhole => {
            let w =
                crate::network::wormhole::simulate_wormhole(net, &jobs, a.as_mut(), wormhole(rho))
                    .map_err(|e| err(e.to_string()))?;
            return Ok(summarize(net, &jobs, &w.records));
        }
    }
    .map_err(|e| err(e.to_string()))?;
    Ok(summarize(net, &jobs, &recs))
}

/// Replications per (ratio, strategy) for the confidence intervals: workload and allocator
/// seeds [`SEED`], [`SEED`] + 1, …, all at the ratio's calibrated interarrival time, the same
/// seeds for every strategy (common random numbers).
pub const REPLICATIONS: usize = 10;

/// Mean service times of every replication: ratio index → per strategy, per replication.
pub type Replications = BTreeMap<usize, Vec<Vec<f64>>>;

/// Runs [`REPLICATIONS`] seeds of every (ratio, strategy) of `sweep` on `threads` threads.
pub fn run_replications(
    sweep: &BTreeMap<usize, (f64, Vec<FlowSummary>)>,
    model: ContentionModel,
    threads: usize,
) -> Result<Replications, Error> {
    let net = Network::mc_elongated();
    let tasks: Vec<(usize, f64, usize, usize)> = sweep
        .iter()
        .flat_map(|(&r, &(ia, _))| {
            (0..STRATEGIES.len())
                .flat_map(move |k| (0..REPLICATIONS).map(move |rep| (r, ia, k, rep)))
        })
        .collect();
    let done = super::parallel::par_map(&tasks, threads, |&(r, ia, k, rep)| {
        let s = run_seeded(&net, model, STRATEGIES[k], RATIOS[r], ia, SEED + rep as u64)?;
        Ok(s.mean_service)
    })?;
    let mut out: Replications = BTreeMap::new();
    for (&(r, _, k, _), v) in tasks.iter().zip(done) {
        let per = out
            .entry(r)
            .or_insert_with(|| vec![Vec::new(); STRATEGIES.len()]);
        per[k].push(v);
    }
    Ok(out)
}

/// The paper's spread of Table 2 at ratio index `r`: (slowest − fastest) / fastest, %.
pub fn paper_spread(r: usize) -> f64 {
    let v: Vec<f64> = TABLE2.iter().map(|row| row[r].0).collect();
    spread(&v)
}

/// (largest − smallest) / smallest of `v`, in percent.
pub fn spread(v: &[f64]) -> f64 {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    100.0 * (hi - lo) / lo
}

/// The confidence-interval rows (figure `table2_ci`): per strategy the mean service time over
/// the replications with its 95 % half-width, and its rank claimed only where the 95 % interval
/// of the paired differences (same seeds) excludes zero (paper's rank beside it); per ratio the spread of the means (paper's beside it).
pub fn replication_rows(reps: &Replications) -> Vec<Row> {
    let mut rows = Vec::new();
    for (&r, per) in reps {
        let pct = libm::round(RATIOS[r] * 100.0) as u32;
        let cis: Vec<MeanCi> = per.iter().map(|v| MeanCi::of(v)).collect();
        let rk = paired_ranks(per);
        for (k, ci) in cis.iter().enumerate() {
            let (pt, pr) = TABLE2[k][r];
            for (metric, ours, paper) in [
                ("mean_service", ci.mean, Some(pt)),
                ("mean_service_ci95", ci.half_width, None),
                ("replications", ci.n as f64, None),
                ("rank_within_noise", f64::from(rk[k]), Some(f64::from(pr))),
            ] {
                rows.push(Row {
                    figure: "table2_ci",
                    policy: STRATEGIES[k].as_str(),
                    traffic_io: pct,
                    metric,
                    ours,
                    paper,
                });
            }
        }
        let means: Vec<f64> = cis.iter().map(|c| c.mean).collect();
        rows.push(Row {
            figure: "table2_ci",
            policy: "all".into(),
            traffic_io: pct,
            metric: "spread_percent",
            ours: spread(&means),
            paper: Some(paper_spread(r)),
        });
    }
    rows
}

/// Interarrival time giving ≈ [`TARGET_UTIL`] with MC-Elongated at traffic ratio `rho`:
/// (interarrival, utilisation there).
///
/// Flow model: five fixed-point steps ia ← ia · util / target from 500 (utilisation is close to
/// proportional to the arrival rate there, since computation dominates service time).
/// Separated model: service time grows with the load, so utilisation is far steeper in the
/// arrival rate and the fixed-point steps oscillate; the interarrival is bracketed by doubling
/// and halving from 500, then bisected (geometrically) [`BISECTIONS`] times.
pub fn calibrate(net: &Network, model: ContentionModel, rho: f64) -> Result<(f64, f64), Error> {
    let util = |ia: f64| -> Result<f64, Error> {
        Ok(run(net, model, NodeAllocatorKind::McElongated, rho, ia)?.utilization)
    };
    if model == ContentionModel::Flow {
        let mut ia = 500.0;
        let mut u = 0.0;
        for _ in 0..5 {
            u = util(ia)?;
            if u <= 0.0 {
                break;
            }
            ia *= u / TARGET_UTIL;
        }
        return Ok((ia, u));
    }
    bisect_util(500.0, util)
}

/// The x (an interarrival time or its like) where `util`, falling as x grows, crosses
/// [`TARGET_UTIL`]: bracketed by doubling and halving from `x0`, then bisected geometrically
/// [`BISECTIONS`] times; (x, util(x)) of the bracket's end nearer the target.
fn bisect_util(
    x0: f64,
    mut util: impl FnMut(f64) -> Result<f64, Error>,
) -> Result<(f64, f64), Error> {
    // lo gives ≥ target, hi < target.
    let (mut lo, mut hi) = (x0, x0);
    let mut u_lo = util(lo)?;
    let mut u_hi = u_lo;
    let mut steps = 0;
    while u_hi >= TARGET_UTIL && steps < 30 {
        lo = hi;
        u_lo = u_hi;
        hi *= 2.0;
        u_hi = util(hi)?;
        steps += 1;
    }
    while u_lo < TARGET_UTIL && steps < 30 {
        hi = lo;
        u_hi = u_lo;
        lo /= 2.0;
        u_lo = util(lo)?;
        steps += 1;
    }
    for _ in 0..BISECTIONS {
        let mid = libm::sqrt(lo * hi);
        let u = util(mid)?;
        if u >= TARGET_UTIL {
            lo = mid;
            u_lo = u;
        } else {
            hi = mid;
            u_hi = u;
        }
    }
    Ok(
        if (u_lo - TARGET_UTIL).abs() <= (u_hi - TARGET_UTIL).abs() {
            (lo, u_lo)
        } else {
            (hi, u_hi)
        },
    )
}

/// Bisection steps of the separated model's calibration (the bracket shrinks to 2^(1/2^12)
/// ≈ 1.0002 of its width ratio).
pub const BISECTIONS: usize = 12;

/// Calibrates and runs every ratio × strategy: ratio index → (interarrival, summaries).
pub fn run_sweep(
    model: ContentionModel,
    threads: usize,
) -> Result<BTreeMap<usize, (f64, Vec<FlowSummary>)>, Error> {
    let net = Network::mc_elongated();
    let work: Vec<usize> = (0..RATIOS.len()).collect();
    let done = super::parallel::par_map(&work, threads, |&r| {
        let rho = RATIOS[r];
        let (ia, _) = calibrate(&net, model, rho)?;
        let sums = STRATEGIES
            .iter()
            .map(|&k| run(&net, model, k, rho, ia))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((ia, sums))
    })?;
    Ok(work.into_iter().zip(done).collect())
}

/// The Table 2 / Fig. 9 / Fig. 10 rows of a sweep, ratio by ratio.
pub fn table2_rows(sweep: &BTreeMap<usize, (f64, Vec<FlowSummary>)>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (&r, (ia, sums)) in sweep {
        let pct = libm::round(RATIOS[r] * 100.0) as u32;
        let services: Vec<f64> = sums.iter().map(|s| s.mean_service).collect();
        let rk = ranks(&services);
        for (k, s) in sums.iter().enumerate() {
            let policy = STRATEGIES[k].as_str();
            let (pt, pr) = TABLE2[k][r];
            let mut push = |figure, metric, ours, paper| {
                rows.push(Row {
                    figure,
                    policy: policy.clone(),
                    traffic_io: pct,
                    metric,
                    ours,
                    paper,
                })
            };
            push("table2", "mean_service", s.mean_service, Some(pt));
            push("table2", "rank", f64::from(rk[k]), Some(f64::from(pr)));
            push("table2", "utilization", s.utilization, None);
            push("table2", "mean_interarrival", *ia, None);
            push("fig9", "nodes_affected", s.mean_nodes_affected, None);
            push("fig10", "balance_factor", s.mean_balance, None);
            push(
                "fig10",
                "system_balance_factor",
                s.mean_system_balance,
                None,
            );
        }
    }
    rows
}

/// One ratio of the SDSC experiment: (load factor, outputs per strategy).
pub type SdscRatio = (f64, Vec<crate::modes::mesh::run::MeshRunOutput>);

/// The Workload II stand-in: its results, or why it did not run.
pub enum SdscPart {
    /// Ratio index → (load factor, outputs per strategy).
    Ran(BTreeMap<usize, SdscRatio>),
    /// The trace could not be read: its path and the reason.
    Skipped { path: String, reason: String },
}

/// Everything `reproduce mc-elongated` computes.
pub struct McElongatedReproOutput {
    /// The contention model it ran under.
    pub model: ContentionModel,
    /// Ratio index (into [`RATIOS`]) → (calibrated mean interarrival, summaries per strategy).
    pub sweep: BTreeMap<usize, (f64, Vec<FlowSummary>)>,
    /// Mean service time of every replication ([`run_replications`]).
    pub replications: Replications,
    pub sdsc: SdscPart,
}

impl McElongatedReproOutput {
    /// All JSON rows: Table 2 / Figs. 9–10, then the SDSC part.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = table2_rows(&self.sweep);
        rows.extend(replication_rows(&self.replications));
        if let SdscPart::Ran(results) = &self.sdsc {
            rows.extend(sdsc_rows(results));
        }
        rows
    }
}

/// Runs the whole reproduction on `threads` threads; the SDSC part when `traces` holds its
/// trace.
pub fn reproduce(
    model: ContentionModel,
    threads: usize,
    traces: &std::path::Path,
) -> Result<McElongatedReproOutput, Error> {
    let sweep = run_sweep(model, threads)?;
    let replications = run_replications(&sweep, model, threads)?;
    let path = traces.join(SDSC_TRACE);
    let sdsc = match std::fs::read(&path) {
        Ok(bytes) => SdscPart::Ran(run_sdsc(&bytes, model, threads)?),
        Err(e) => SdscPart::Skipped {
            path: path.display().to_string(),
            reason: e.to_string(),
        },
    };
    Ok(McElongatedReproOutput {
        model,
        sweep,
        replications,
        sdsc,
    })
}

fn sdsc_experiment(
    model: ContentionModel,
    kind: NodeAllocatorKind,
    rho: f64,
    load_factor: f64,
) -> crate::modes::mesh::spec::MeshExperiment {
    use crate::modes::mesh::spec::{MeshAllocatorKind, MeshExperiment, MeshNetworkSpec};
    let mut exp = MeshExperiment {
        workload: crate::modes::flat::spec::WorkloadSpec::Swf(
            crate::modes::flat::spec::SwfSource {
                path: Some(SDSC_TRACE.into()),
                ..Default::default()
            },
        ),
        allocator: MeshAllocatorKind::Nodes(kind),
        network: MeshNetworkSpec {
            traffic_io: rho,
            kappa: KAPPA,
            model,
            compute: match model {
                ContentionModel::Separated => COMPUTE,
                ContentionModel::Flow | ContentionModel::Wormhole => 0.0,
            },
            ..MeshNetworkSpec::default()
        },
        ..crate::modes::mesh::presets::preset_contention(rho)
    };
    exp.name = Some("Mache et al. Workload II stand-in".into());
    exp.transforms.time_window = Some(crate::workload::transform::TimeWindow {
        start: 0.0,
        end: SDSC_DAYS * 86_400.0,
    });
    exp.transforms.load_factor = load_factor;
    exp
}

fn sdsc_run(
    bytes: &[u8],
    model: ContentionModel,
    kind: NodeAllocatorKind,
    rho: f64,
    load_factor: f64,
) -> Result<crate::modes::mesh::run::MeshRunOutput, Error> {
    let exp = sdsc_experiment(model, kind, rho, load_factor);
    crate::modes::mesh::run::run_mesh(
        &exp,
        Some(crate::modes::flat::run::TraceInput::from_bytes(
            SDSC_TRACE, bytes,
        )),
    )
}

/// Load factor giving ≈ [`TARGET_UTIL`] with MC-Elongated at ratio `rho`: five fixed-point
/// steps under the flow model, bisection on 1 / load factor under the separated model (as
/// [`calibrate`]).
fn sdsc_calibrate(bytes: &[u8], model: ContentionModel, rho: f64) -> Result<f64, Error> {
    let util = |lf: f64| -> Result<f64, Error> {
        Ok(
            sdsc_run(bytes, model, NodeAllocatorKind::McElongated, rho, lf)?
                .summary
                .utilization,
        )
    };
    if model != ContentionModel::Flow {
        return Ok(1.0 / bisect_util(1.0, |x| util(1.0 / x))?.0);
    }
    let mut lf = 1.0;
    for _ in 0..5 {
        let util = util(lf)?;
        if util <= 0.0 {
            break;
        }
        lf *= TARGET_UTIL / util;
    }
    Ok(lf)
}

/// Runs the SDSC experiment on `threads` threads: ratio index → (load factor, outputs).
pub fn run_sdsc(
    bytes: &[u8],
    model: ContentionModel,
    threads: usize,
) -> Result<BTreeMap<usize, SdscRatio>, Error> {
    let work: Vec<usize> = (0..SDSC_RATIOS.len()).collect();
    let done = super::parallel::par_map(&work, threads, |&r| {
        let rho = SDSC_RATIOS[r];
        let lf = sdsc_calibrate(bytes, model, rho)?;
        let outs = STRATEGIES
            .iter()
            .map(|&k| sdsc_run(bytes, model, k, rho, lf))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((lf, outs))
    })?;
    Ok(work.into_iter().zip(done).collect())
}

/// The JSON rows (figure `sdsc`) of the SDSC experiment.
pub fn sdsc_rows(results: &BTreeMap<usize, SdscRatio>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (&r, (lf, outs)) in results {
        let pct = libm::round(SDSC_RATIOS[r] * 100.0) as u32;
        let services: Vec<f64> = outs.iter().map(|x| x.mesh.mean_service).collect();
        let rk = ranks(&services);
        for (k, x) in outs.iter().enumerate() {
            let policy = STRATEGIES[k].as_str();
            for (metric, ours) in [
                ("mean_service", x.mesh.mean_service),
                ("rank", f64::from(rk[k])),
                ("utilization", x.summary.utilization),
                ("load_factor", *lf),
                ("nodes_affected", x.mesh.mean_nodes_affected),
                ("balance_factor", x.mesh.mean_balance),
            ] {
                rows.push(Row {
                    figure: "sdsc",
                    policy: policy.clone(),
                    traffic_io: pct,
                    metric,
                    ours,
                    paper: None,
                });
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads() {
        assert_eq!(spread(&[100.0, 150.0, 120.0]), 50.0);
        // Table 2 at 100 % I/O: 8140 (PLAS) … 12096 (Paging).
        assert!((paper_spread(0) - 100.0 * (12096.0 - 8140.0) / 8140.0).abs() < 1e-9);
    }

    /// The app's preset is the reproduction's experiment: same model, κ, σ, seed, workload,
    /// and at every ratio of Table 2 the interarrival time the calibration finds.
    #[test]
    fn the_preset_runs_the_reproductions_settings() {
        let net = Network::mc_elongated();
        assert_eq!(
            crate::modes::mesh::presets::MC_ELONGATED_INTERARRIVALS.map(|p| p.0),
            [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
        );
        for (r, &(rho, ia)) in crate::modes::mesh::presets::MC_ELONGATED_INTERARRIVALS
            .iter()
            .enumerate()
        {
            let exp = crate::modes::mesh::presets::preset_contention(rho);
            assert_eq!(exp.network.model, MODEL);
            assert_eq!(exp.network.kappa, KAPPA);
            assert_eq!(exp.network.compute, COMPUTE);
            assert_eq!(exp.network.traffic_io, rho);
            assert_eq!(exp.seed, SEED);
            let crate::modes::flat::spec::WorkloadSpec::Synthetic(
                crate::workload::synthetic::SyntheticModel::ExponentialJobs(p),
            ) = &exp.workload
            else {
                panic!("Mache et al. preset workload");
            };
            assert_eq!(p.mean_interarrival, ia);
            assert_eq!(
                ExponentialJobsParams {
                    mean_interarrival: ia,
                    ..ExponentialJobsParams::default()
                },
                *p
            );
            // RATIOS is Table 2's order (100 % first).
            assert_eq!(RATIOS[5 - r], rho);
            let (found, util) = calibrate(&net, MODEL, rho).unwrap();
            assert_eq!(libm::round(found * 10.0) / 10.0, ia, "ρ {rho}");
            assert!((util - TARGET_UTIL).abs() < 0.01, "ρ {rho}: {util}");
        }
    }

    /// Replication rows by hand: three seeds, every strategy 10 s slower than the one above
    /// it on every seed (paired differences without noise: strict ranks), means 100 … 150.
    #[test]
    fn replication_rows_carry_means_ranks_and_spreads() {
        let per: Vec<Vec<f64>> = (0..6)
            .map(|k| {
                let base = 100.0 + 10.0 * k as f64;
                vec![base - 2.0, base, base + 2.0]
            })
            .collect();
        let mut reps = Replications::new();
        reps.insert(5, per);
        let rows = replication_rows(&reps);
        // 4 rows per strategy + the spread.
        assert_eq!(rows.len(), 6 * 4 + 1);
        assert!(rows
            .iter()
            .all(|r| r.figure == "table2_ci" && r.traffic_io == 0));
        let get = |policy: &str, metric: &str| {
            rows.iter()
                .find(|r| r.policy == policy && r.metric == metric)
                .unwrap()
        };
        let mc = get("mc", "mean_service");
        assert_eq!((mc.ours, mc.paper), (120.0, Some(366.0)));
        // s = 2, half-width t(0.975, 2) · 2 / √3.
        let hw = get("mc", "mean_service_ci95").ours;
        assert!((hw - 4.303 * 2.0 / libm::sqrt(3.0)).abs() < 1e-9, "{hw}");
        let rank = get("paging_0", "rank_within_noise");
        assert_eq!((rank.ours, rank.paper), (6.0, Some(4.0)));
        assert_eq!(get("mc_elongated", "rank_within_noise").ours, 1.0);
        let sp = get("all", "spread_percent");
        assert_eq!(sp.ours, 50.0);
        assert!((sp.paper.unwrap() - 100.0 * (738.9 - 366.0) / 366.0).abs() < 1e-9);
    }

    #[test]
    fn table2_is_complete() {
        assert!(TABLE2
            .iter()
            .flatten()
            .all(|&(t, r)| t > 0.0 && (1..=6).contains(&r)));
    }
}
