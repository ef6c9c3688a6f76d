//! `schedlab bench binary-tree`: the speed benchmark of Liu et al.'s reproduction (the
//! target: 1000 Liu et al. runs — 16 tasks each on the 16 × 16 mesh, phase model — with every
//! allocator of the reproduction in under 30 s). Times `runs` task sets × every allocator of
//! [`crate::reproduce::binary_tree::kinds`] at each exchange count asked for, on `threads` threads
//! through the reproduction's own `par_map`; prints a Markdown table row per exchange count.

use std::time::Instant;

use clap::Args;

use super::traces::cfg_err;
use crate::error::Error;
use crate::reproduce::binary_tree::{kinds, network, run_one, tasks, SEED};
use crate::reproduce::parallel::par_map;

/// `schedlab bench binary-tree`.
#[derive(Args, Debug)]
pub struct BenchBinaryTreeArgs {
    /// Task sets (runs) per allocator.
    #[arg(long, default_value_t = 1000)]
    pub runs: usize,
    /// Comma-separated exchange counts between two I/O phases.
    #[arg(long, default_value = "0,4,64")]
    pub exchanges: String,
    /// Worker threads (default 1).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// Runs the cases and prints the table.
pub fn bench_binary_tree_command(a: &BenchBinaryTreeArgs) -> Result<(), Error> {
    if a.runs == 0 || a.runs > 1_000_000 {
        return Err(cfg_err("--runs must be between 1 and 1000000".into()));
    }
    let xs: Vec<u32> = a
        .exchanges
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|&x| x <= 1_000_000)
                .ok_or_else(|| cfg_err(format!("--exchanges: bad count {s:?}")))
        })
        .collect::<Result<_, _>>()?;
    let net = network();
    let kinds = kinds();
    let sets: Vec<_> = (0..a.runs).map(tasks).collect();
    println!("| exchanges | allocators | runs | simulations | seconds | simulations/s |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for x in xs {
        let t = Instant::now();
        let done = par_map(&kinds, a.threads, |&k| {
            let mut n = 0usize;
            for (r, jobs) in sets.iter().enumerate() {
                run_one(&net, k, x, jobs, SEED + r as u64)?;
                n += 1;
            }
            Ok(n)
        })?;
        let secs = t.elapsed().as_secs_f64();
        let sims: usize = done.iter().sum();
        println!(
            "| {x} | {} | {} | {sims} | {secs:.2} | {:.0} |",
            kinds.len(),
            a.runs,
            sims as f64 / secs
        );
    }
    Ok(())
}
