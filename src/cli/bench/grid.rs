//! `schedlab bench grid`: times the grid engine (Ernemann et al.) on one configuration of Table III
//! — by default CTC_TZ_4 with EASY backfilling, six CTC sites, about 475,000 jobs — and
//! prints load time, simulation time, jobs/s and peak memory as a Markdown row.

use super::traces::{cfg_err, peak_rss_mb};
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::error::Error;
use crate::grid::paper::{self, Trace};
use crate::grid::{GridMetrics, LocalPolicy};

use crate::cli::reproduce_grid_sharing::{config_sites, load_some_traces, run_sites};

/// `schedlab bench grid`.
#[derive(Args, Debug)]
pub struct BenchGridArgs {
    /// Folder holding the Ernemann et al. traces.
    #[arg(long, default_value = "../shared/traces")]
    pub traces: PathBuf,
    /// Configuration of Table III (e.g. CTC_TZ_4, LANL_single, ALL_org).
    #[arg(long, default_value = "CTC_TZ_4")]
    pub config: String,
    /// Local policy: easy or conservative.
    #[arg(long, default_value = "easy")]
    pub policy: String,
}

/// Runs the benchmark and prints one Markdown table.
pub fn bench_grid_command(a: &BenchGridArgs) -> Result<(), Error> {
    let policy = LocalPolicy::parse(&a.policy).map_err(|e| cfg_err(e.to_string()))?;
    let mut configs: Vec<_> = Trace::ALL
        .iter()
        .flat_map(|&t| paper::uniform_configs(t))
        .collect();
    configs.extend(paper::all_configs());
    let Some(config) = configs.into_iter().find(|c| c.name == a.config) else {
        return Err(cfg_err(format!(
            "unknown configuration {:?} (e.g. CTC_TZ_4, KTH_single, ALL_org)",
            a.config
        )));
    };
    let t0 = Instant::now();
    // Only the traces this configuration uses (CTC_TZ_4: CTC alone).
    let wanted: Vec<Trace> = config.sites.iter().map(|&(t, _)| t).collect();
    let (workloads, _missing) = load_some_traces(&a.traces, &wanted)?;
    let load = t0.elapsed().as_secs_f64();
    // The sites' jobs share the parsed trace's SWF records (`Job::record`); dropping the
    // aligned workloads here frees only their own job vectors, the records live on.
    let t_run = Instant::now();
    let sites = config_sites(&config, &workloads, None)?;
    drop(workloads);
    let run = run_sites(&config, policy, sites, t_run)?;
    let m: &GridMetrics = &run.metrics;
    println!("| configuration | policy | sites | jobs | load+align (s) | build+simulate (s) | jobs/s | migrated | projections | peak RSS (MB) |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {} | {:.2} | {:.2} | {:.0} | {} | {} | {:.0} |",
        config.name,
        policy.as_str(),
        config.sites.len(),
        run.jobs,
        load,
        run.seconds,
        run.jobs as f64 / run.seconds.max(1e-9),
        m.migrated,
        run.projection_rebuilds,
        peak_rss_mb()
    );
    if !run.violations.is_empty() {
        eprintln!("schedlab: {} invariant violations", run.violations.len());
    }
    Ok(())
}
