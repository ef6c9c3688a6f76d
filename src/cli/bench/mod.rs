//! `schedlab bench <what>`: the developer benchmarks behind BENCHMARKS.md, one subcommand per
//! capability. None of them is a test: each prints its figures (Markdown rows or JSON) for a
//! person to read and copy into BENCHMARKS.md with the command that made them.

pub mod binary_tree;
pub mod grid;
pub mod mesh;
pub mod moldable;
pub mod network;
pub mod phases;
pub mod queue;
pub mod sweep;
pub mod traces;
pub mod wormhole;

use clap::{Args, Subcommand};

use crate::error::Error;

/// `schedlab bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

/// What to time.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Replay every trace with every flat policy: jobs/s, wall time and peak memory.
    Traces(traces::BenchTracesArgs),
    /// (internal) One `traces` case in a fresh process, for its own peak memory.
    #[command(hide = true)]
    Case(traces::BenchCaseArgs),
    /// EASY and conservative with long queues: a 300,000-job burst, CTC at load factor 100.
    Queue(queue::BenchQueueArgs),
    /// The mesh engine: 10,000 jobs on 32 × 32 under Window-240 with MPL by default.
    Mesh(mesh::BenchMeshArgs),
    /// The non-contiguous allocators: MC-Elongated on 16 × 22 and 128 × 128.
    Network(network::BenchNetworkArgs),
    /// The binary-tree reproduction: task sets × every allocator under the phase model.
    BinaryTree(binary_tree::BenchBinaryTreeArgs),
    /// The grid engine on one configuration of the grid-sharing reproduction (CTC_TZ_4, EASY).
    Grid(grid::BenchGridArgs),
    /// The moldable engine: 5,000 SDSC SP2 jobs under the combined scheme.
    Moldable(moldable::BenchMoldableArgs),
    /// The phases (load, simulate, measure) of any mode's share link experiment, as JSON
    /// (the native side of scripts/bench-browser.mjs).
    Phases(phases::BenchPhasesArgs),
    /// A 10,000-point sweep (flat EASY, 5,000 Lublin–Feitelson jobs each): plan, run, merge.
    Sweep(sweep::BenchSweepArgs),
    /// The packet-level wormhole model: one Table 1 run per allocator (Mache et al. §4.1).
    Wormhole(wormhole::BenchWormholeArgs),
}

/// Runs `schedlab bench <what>`.
pub fn bench_command(a: &BenchArgs) -> Result<(), Error> {
    match &a.what {
        BenchCommand::Traces(a) => traces::bench_traces_command(a),
        BenchCommand::Case(a) => traces::bench_case_command(a),
        BenchCommand::Queue(a) => queue::bench_queue_command(a),
        BenchCommand::Mesh(a) => mesh::bench_mesh_command(a),
        BenchCommand::Network(a) => network::bench_network_command(a),
        BenchCommand::BinaryTree(a) => binary_tree::bench_binary_tree_command(a),
        BenchCommand::Grid(a) => grid::bench_grid_command(a),
        BenchCommand::Moldable(a) => moldable::bench_moldable_command(a),
        BenchCommand::Phases(a) => phases::bench_phases_command(a),
        BenchCommand::Sweep(a) => sweep::bench_sweep_command(a),
        BenchCommand::Wormhole(a) => wormhole::bench_wormhole_command(a),
    }
}
