//! `schedlab bench mesh`: the speed benchmark of Ababneh & Bani-Mohammad's mesh simulation — by default one
//! 10,000-job run on a 32 × 32 mesh under Window-240 with MPL allocation (target:
//! ≥ 100,000 jobs/s natively) — printing jobs/s as a Markdown table row per case.

use super::traces::cfg_err;
use std::time::Instant;

use clap::Args;

use crate::alloc::AllocatorKind;
use crate::error::Error;
use crate::policy::mesh::MeshPolicyKind;
use crate::sim::mesh_engine::MeshSimulation;
use crate::workload::synthetic::{MeshJobsParams, SideDistribution};

/// `schedlab bench mesh`.
#[derive(Args, Debug)]
pub struct BenchMeshArgs {
    /// Comma-separated mesh policies (fcfs, oo, oocb-8, window-240, delay).
    #[arg(long, default_value = "window-240")]
    pub policies: String,
    /// Allocator: mpl, first_fit or best_fit.
    #[arg(long, default_value = "mpl")]
    pub allocator: String,
    /// Side lengths: uniform or uniform_decreasing.
    #[arg(long, default_value = "uniform")]
    pub sides: String,
    /// Arrival rate λ (jobs per time unit); default 2.5 (Fig. 8's load, uniform sides).
    #[arg(long, default_value_t = 2.5)]
    pub load: f64,
    /// Jobs per run.
    #[arg(long, default_value_t = 10_000)]
    pub jobs: usize,
    /// Mesh side L (an L × L mesh).
    #[arg(long, default_value_t = 32)]
    pub side: u32,
    /// Runs per case (different seeds); the table shows their total.
    #[arg(long, default_value_t = 5)]
    pub runs: u64,
}

/// Parses `uniform` / `uniform_decreasing`.
pub fn parse_sides(s: &str) -> Result<SideDistribution, Error> {
    match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "uniform" => Ok(SideDistribution::Uniform),
        "uniform_decreasing" | "decreasing" => Ok(SideDistribution::UniformDecreasing),
        other => Err(cfg_err(format!(
            "unknown side distribution {other:?} (expected uniform or uniform_decreasing)"
        ))),
    }
}

/// Runs the cases and prints the table.
pub fn bench_mesh_command(a: &BenchMeshArgs) -> Result<(), Error> {
    let allocator = AllocatorKind::parse(&a.allocator).map_err(|e| cfg_err(e.to_string()))?;
    let policies: Vec<MeshPolicyKind> = a
        .policies
        .split(',')
        .map(MeshPolicyKind::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| cfg_err(e.to_string()))?;
    let sides = parse_sides(&a.sides)?;
    let params = MeshJobsParams {
        jobs: a.jobs,
        width: a.side,
        height: a.side,
        sides,
        arrival_rate: a.load,
        ..MeshJobsParams::default()
    };
    params.validate().map_err(|e| cfg_err(e.to_string()))?;
    println!("| mesh | sides | load | policy | allocator | runs | jobs | simulate (s) | jobs/s | utilisation |");
    println!("|---|---|---:|---|---|---:|---:|---:|---:|---:|");
    for policy in policies {
        let mut seconds = 0.0;
        let mut jobs = 0usize;
        let mut util = 0.0;
        for seed in 1..=a.runs.max(1) {
            let workload = params.generate(seed);
            let n = workload.jobs.len();
            let sim = MeshSimulation::by_kind(workload.jobs, a.side, a.side, allocator, policy)
                .map_err(|e| cfg_err(e.to_string()))?
                .without_log();
            let t0 = Instant::now();
            let result = sim.run_to_end().map_err(|e| cfg_err(e.to_string()))?;
            seconds += t0.elapsed().as_secs_f64();
            jobs += n;
            util += result.summary().utilization;
        }
        println!(
            "| {0}×{0} | {1} | {2} | {3} | {4} | {5} | {6} | {7:.3} | {8:.0} | {9:.3} |",
            a.side,
            a.sides,
            a.load,
            policy.label(),
            allocator.as_str(),
            a.runs.max(1),
            jobs,
            seconds,
            jobs as f64 / seconds.max(1e-9),
            util / a.runs.max(1) as f64
        );
    }
    Ok(())
}
