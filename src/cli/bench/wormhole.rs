//! `schedlab bench wormhole`: one run of Mache et al.'s Table 1 workload (§4.1: 1000 jobs,
//! exponential sizes of mean 16, the 16 × 22 mesh with 16 west I/O nodes) per allocator under
//! the packet-level wormhole model ([`crate::network::wormhole`]): wall time, messages, events
//! and mean service time as Markdown rows; `--links-csv FILE` writes the per-link messages,
//! flits, held and blocked flit times of a single allocator's run (the figures the mesh view's
//! heatmap could show).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::traces::cfg_err;
use crate::alloc::NodeAllocatorKind;
use crate::cli::streams::io_err;
use crate::error::Error;
use crate::network::flow::{summarize, FlowJob};
use crate::network::wormhole::{simulate_wormhole, WormholeConfig};
use crate::network::Network;
use crate::workload::synthetic::exponential_jobs::ExponentialJobsParams;

/// `schedlab bench wormhole`.
#[derive(Args, Debug)]
pub struct BenchWormholeArgs {
    /// Comma-separated allocators, or `all` (the six of Table 2).
    #[arg(long, default_value = "all")]
    pub allocators: String,
    /// ρ: the share of write rounds, 0 ..= 1.
    #[arg(long, default_value_t = 0.6)]
    pub traffic_io: f64,
    /// Mean interarrival time of the workload (flit times; 746 is the wormhole calibration's
    /// at 60 % I/O).
    #[arg(long, default_value_t = 746.0)]
    pub interarrival: f64,
    /// Workload and allocator seed.
    #[arg(long, default_value_t = 2000)]
    pub seed: u64,
    /// Write the per-link CSV of the run here (one allocator only).
    #[arg(long)]
    pub links_csv: Option<PathBuf>,
}

/// Runs the cases and prints the table.
pub fn bench_wormhole_command(a: &BenchWormholeArgs) -> Result<(), Error> {
    if !(a.traffic_io.is_finite() && (0.0..=1.0).contains(&a.traffic_io)) {
        return Err(cfg_err("--traffic-io must be in [0, 1]".into()));
    }
    if !(a.interarrival.is_finite() && a.interarrival > 0.0) {
        return Err(cfg_err("--interarrival must be > 0".into()));
    }
    let kinds: Vec<NodeAllocatorKind> = if a.allocators.trim() == "all" {
        crate::reproduce::mc_elongated::STRATEGIES.to_vec()
    } else {
        a.allocators
            .split(',')
            .map(|s| NodeAllocatorKind::parse(s.trim()).map_err(|e| cfg_err(e.to_string())))
            .collect::<Result<_, _>>()?
    };
    if a.links_csv.is_some() && kinds.len() != 1 {
        return Err(cfg_err("--links-csv needs exactly one allocator".into()));
    }
    let net = Network::mc_elongated();
    let params = ExponentialJobsParams {
        mean_interarrival: a.interarrival,
        ..ExponentialJobsParams::default()
    };
    let jobs: Vec<FlowJob> = params
        .generate(a.seed)
        .jobs
        .iter()
        .map(FlowJob::of)
        .collect();
    let cfg = WormholeConfig {
        traffic_io: a.traffic_io,
        ..WormholeConfig::default()
    };
    println!("| allocator | ρ | jobs | messages | events | seconds | events/s | mean service | utilisation | most blocked link (flit times) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for k in kinds {
        let start = Instant::now();
        let run = simulate_wormhole(&net, &jobs, k.build(&net, a.seed).as_mut(), cfg)
            .map_err(|e| cfg_err(e.to_string()))?;
        let secs = start.elapsed().as_secs_f64();
        let s = summarize(&net, &jobs, &run.records);
        let worst = run.stats.links.blocked.iter().copied().max().unwrap_or(0);
        println!(
            "| {} | {} | {} | {} | {} | {secs:.2} | {:.0} | {:.1} | {:.3} | {worst} |",
            k.as_str(),
            a.traffic_io,
            jobs.len(),
            run.stats.delivered,
            run.stats.events,
            run.stats.events as f64 / secs.max(1e-9),
            s.mean_service,
            s.utilization
        );
        if let Some(p) = &a.links_csv {
            std::fs::write(p, run.stats.links_csv(&net)).map_err(|e| io_err(p, e))?;
        }
    }
    Ok(())
}
