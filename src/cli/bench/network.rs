//! `schedlab bench network`: the speed benchmark of Mache et al.'s non-contiguous allocators
//! (§3.2: MC-Elongated is O(n^1.5) per decision). Targets: MC-Elongated allocation
//! decisions on a 16 × 22 mesh ≥ 20,000/s and on a 128 × 128 mesh ≥ 200/s, and the whole
//! `reproduce mc-elongated` synthetic sweep under 2 minutes. Each case times `select` on fixed
//! random busy states (every node busy with probability `busy`, seeded) for request sizes
//! 1 + (7919 · i mod 40); prints a Markdown table row per case.
//!
//! `--reference` also times, on the same states and sizes, the straightforward MC and
//! MC-Elongated kept in [`crate::alloc::shell_reference`] (the "before" of the per-shell counts,
//! whose target is ≥ 10,000 decisions/s each on 128 × 128); `--sizes` picks the meshes.

use super::traces::cfg_err;
use std::time::Instant;

use clap::Args;

use crate::alloc::node_allocator::IoLayout;
use crate::alloc::shell_reference::{McElongatedReference, McReference};
use crate::alloc::{NodeAllocator, NodeAllocatorKind};
use crate::base::SimRng;
use crate::error::Error;
use crate::machine::mesh::{Mesh, Submesh};
use crate::network::{IoSide, Network, NetworkConfig};

/// `schedlab bench network`.
#[derive(Args, Debug)]
pub struct BenchNetworkArgs {
    /// Comma-separated allocators (default: MC-Elongated only; `all` for every one).
    #[arg(long, default_value = "mc_elongated")]
    pub allocators: String,
    /// Fraction of busy nodes in the timed states.
    #[arg(long, default_value_t = 0.5)]
    pub busy: f64,
    /// Minimum seconds per case.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Also time the full `reproduce mc-elongated` sweep.
    #[arg(long)]
    pub sweep: bool,
    /// Also time the straightforward MC / MC-Elongated (before the per-shell counts) when listed.
    #[arg(long)]
    pub reference: bool,
    /// Comma-separated meshes W×H (default: 22x16,128x128).
    #[arg(long, default_value = "22x16,128x128")]
    pub sizes: String,
    /// Run exactly this many decisions per case instead of timing for `--seconds` (the same
    /// work for every binary: for instruction counts, e.g. under callgrind; 80 decisions
    /// cover every state and request size the same number of times).
    #[arg(long)]
    pub decisions: Option<u64>,
}

/// How long a case runs: at least some seconds, or an exact number of decisions.
#[derive(Clone, Copy, Debug)]
enum Budget {
    Seconds(f64),
    Decisions(u64),
}

/// Times `select` on `states` for the budget (the clock read every `chunk` decisions):
/// (decisions, seconds).
fn time_select(
    alloc: &mut dyn NodeAllocator,
    states: &[Mesh],
    budget: Budget,
    chunk: u64,
) -> (u64, f64) {
    let start = Instant::now();
    let mut n = 0u64;
    let mut chosen = 0usize;
    let (seconds, chunk, rounds) = match budget {
        Budget::Seconds(s) => (s, chunk, u64::MAX),
        Budget::Decisions(d) => (f64::INFINITY, d, 1),
    };
    for _ in 0..rounds {
        if start.elapsed().as_secs_f64() >= seconds {
            break;
        }
        for _ in 0..chunk {
            let m = &states[(n % states.len() as u64) as usize];
            let j = 1 + (n as u32).wrapping_mul(7919) % 40;
            chosen += alloc.select(m, j).map_or(0, |v| v.len());
            n += 1;
        }
    }
    std::hint::black_box(chosen);
    (n, start.elapsed().as_secs_f64())
}

/// Runs the cases and prints the table.
pub fn bench_network_command(a: &BenchNetworkArgs) -> Result<(), Error> {
    if !(0.0..1.0).contains(&a.busy) {
        return Err(cfg_err("--busy must be in [0, 1)".into()));
    }
    if !(a.seconds.is_finite() && a.seconds > 0.0) {
        return Err(cfg_err("--seconds must be > 0".into()));
    }
    let budget = match a.decisions {
        Some(0) => return Err(cfg_err("--decisions must be > 0".into())),
        Some(d) => Budget::Decisions(d),
        None => Budget::Seconds(a.seconds),
    };
    let kinds: Vec<NodeAllocatorKind> = if a.allocators.trim() == "all" {
        NodeAllocatorKind::ALL.to_vec()
    } else {
        a.allocators
            .split(',')
            .map(|s| NodeAllocatorKind::parse(s).map_err(|e| cfg_err(e.to_string())))
            .collect::<Result<_, _>>()?
    };
    println!("| allocator | mesh | busy | decisions | seconds | decisions/s |");
    println!("|---|---|---|---|---|---|");
    let sizes: Vec<(u32, u32)> = a
        .sizes
        .split(',')
        .map(|t| {
            let (w, h) = t.trim().split_once(['x', '×']).unwrap_or((t, ""));
            match (w.trim().parse(), h.trim().parse()) {
                (Ok(w), Ok(h)) => Ok((w, h)),
                _ => Err(cfg_err(format!("--sizes: `{t}` is not W×H"))),
            }
        })
        .collect::<Result<_, _>>()?;
    for (w, h) in sizes {
        let net = Network::new(NetworkConfig {
            width: w,
            height: h,
            io_side: IoSide::West,
            io_count: None,
        })
        .map_err(|e| cfg_err(e.to_string()))?;
        let mut rng = SimRng::new(1);
        let states: Vec<Mesh> = (0..8)
            .map(|_| {
                let mut m = Mesh::new(w, h).map_err(|e| cfg_err(e.to_string()))?;
                let mut job = 0;
                for y in 1..=h {
                    for x in 1..=w {
                        if rng.bernoulli(a.busy) {
                            m.allocate(job, Submesh::at(x, y, 1, 1))
                                .map_err(|e| cfg_err(e.to_string()))?;
                            job += 1;
                        }
                    }
                }
                Ok(m)
            })
            .collect::<Result<_, Error>>()?;
        for &k in &kinds {
            let mut alloc = k.build(&net, 1);
            let (n, s) = time_select(alloc.as_mut(), &states, budget, 16);
            println!(
                "| {} | {w} × {h} | {:.2} | {n} | {s:.2} | {:.0} |",
                k.as_str(),
                a.busy,
                n as f64 / s
            );
            let io = IoLayout::of(&net);
            let mut reference: Box<dyn NodeAllocator> = match k {
                NodeAllocatorKind::Mc if a.reference => Box::new(McReference),
                NodeAllocatorKind::McElongated if a.reference => {
                    Box::new(McElongatedReference::new(io))
                }
                _ => continue,
            };
            let (n, s) = time_select(reference.as_mut(), &states, budget, 1);
            let rate = n as f64 / s;
            let digits = if rate < 10.0 { 2 } else { 0 };
            println!(
                "| {} (reference) | {w} × {h} | {:.2} | {n} | {s:.2} | {rate:.digits$} |",
                k.as_str(),
                a.busy,
            );
        }
    }
    if a.sweep {
        let start = Instant::now();
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        // Calibration and every run, without printing the tables.
        crate::reproduce::mc_elongated::run_sweep(crate::reproduce::mc_elongated::MODEL, threads)?;
        println!(
            "\n`reproduce mc-elongated` synthetic sweep: {:.2} s ({threads} threads)",
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
