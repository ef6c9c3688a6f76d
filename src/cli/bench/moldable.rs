//! `schedlab bench moldable`: the speed benchmark of the moldable engine (Srinivasan et al.) — by
//! default one run of the first 5,000 jobs of the SDSC SP2 trace under the combined scheme
//! (§5) at σ = 1, RF = 2, LF 125 % (target < 1 s natively, release build) — printing the time
//! and jobs/s as a Markdown table row per strategy.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::traces::cfg_err;
use crate::cli::streams::open_trace;
use crate::error::Error;
use crate::limits::Limits;
use crate::modes::flat::spec::{SwfSource, WorkloadSpec};
use crate::modes::moldable::run::{measure, prepare_moldable, simulate};
use crate::modes::moldable::spec::MoldableExperiment;
use crate::workload::moldable::MoldableModel;

/// `schedlab bench moldable`.
#[derive(Args, Debug)]
pub struct BenchMoldableArgs {
    /// The SWF trace.
    #[arg(long, default_value = "../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz")]
    pub swf: PathBuf,
    /// Comma-separated strategies (`schedlab list` names them).
    #[arg(long, default_value = "combined")]
    pub strategies: String,
    /// Jobs (the first N of the trace).
    #[arg(long, default_value_t = 5000)]
    pub jobs: usize,
    /// σ of Downey's model.
    #[arg(long, default_value_t = 1.0)]
    pub sigma: f64,
    /// Range factor RF.
    #[arg(long, default_value_t = 2.0)]
    pub range_factor: f64,
    /// Load factor (1.25 = 125 %).
    #[arg(long, default_value_t = 1.25)]
    pub load_factor: f64,
    /// Runs per strategy (the table shows the fastest).
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
}

/// Runs the cases and prints the table.
pub fn bench_moldable_command(a: &BenchMoldableArgs) -> Result<(), Error> {
    let strategies = crate::cli::moldable::parse_strategies(&a.strategies)?;
    let mut exp = MoldableExperiment::new(
        WorkloadSpec::Swf(SwfSource {
            path: Some(a.swf.display().to_string()),
            ..SwfSource::default()
        }),
        MoldableModel::Downey {
            sigma: a.sigma,
            range_factor: a.range_factor,
        },
        strategies
            .first()
            .copied()
            .unwrap_or(crate::policy::moldable::MoldableStrategyKind::Combined),
    );
    exp.transforms.first_jobs = Some(a.jobs);
    exp.transforms.load_factor = a.load_factor;
    let t0 = Instant::now();
    let p = prepare_moldable(&exp, Some(open_trace(&a.swf)?), &Limits::DEFAULT)?;
    let load = t0.elapsed().as_secs_f64();
    println!(
        "| trace | jobs | σ | RF | LF | strategy | simulate (s, best of {}) | jobs/s | evaluations | mean turnaround (s) |",
        a.runs.max(1)
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|");
    for k in strategies {
        let mut best = f64::INFINITY;
        let mut out = None;
        for _ in 0..a.runs.max(1) {
            let t = Instant::now();
            let r = simulate(&p, k)?;
            best = best.min(t.elapsed().as_secs_f64());
            out = Some(measure(&r, 0));
        }
        let out = out.ok_or_else(|| cfg_err("no run".into()))?;
        let n = p.prepared.workload.jobs.len();
        println!(
            "| {} | {n} | {} | {} | {} | {} | {best:.3} | {:.0} | {} | {:.0} |",
            a.swf
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
            a.sigma,
            a.range_factor,
            a.load_factor,
            k.as_str(),
            n as f64 / best.max(1e-9),
            out.evaluations,
            out.summary.mean_turnaround
        );
    }
    println!("\n(loading and preparing the trace: {load:.3} s)");
    Ok(())
}
