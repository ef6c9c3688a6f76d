//! The papers' presets of the mesh mode: Ababneh & Bani-Mohammad's window-based scheduling
//! experiment, Mache, Lo, Garg's contention experiment (Table 1 jobs, the I/O ratios of
//! Table 2 and their calibrated interarrivals) and Liu, Hsu, Wu's binary-tree allocation.

use crate::alloc::{AllocatorKind, NodeAllocatorKind};
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::mesh::spec::{
    ContentionModel, MeshAllocatorKind, MeshExperiment, MeshNetworkSpec, MESH_FORMAT_VERSION,
};
use crate::network::flow::PhaseConfig;
use crate::policy::mesh::MeshPolicyKind;
use crate::workload::shape::ShapeRule;
use crate::workload::transform::Transforms;

/// Orientation switching in Ababneh & Bani-Mohammad's experiments (`schedlab reproduce window` and the app's
/// preset): on, as the MPL allocator of the paper's [3] allows (`docs/reproductions.md`).
pub const WINDOW_SWITCH_ORIENTATION: bool = true;

/// Ababneh & Bani-Mohammad's Fig. 6 experiment: 32 × 32 mesh, uniform side lengths, Window-240 with MPL
/// switching orientations as in `schedlab reproduce window`.
pub fn preset_window() -> MeshExperiment {
    use crate::workload::synthetic::{MeshJobsParams, SideDistribution, SyntheticModel};
    let params = MeshJobsParams {
        jobs: 1000,
        sides: SideDistribution::Uniform,
        arrival_rate: 1.5,
        ..MeshJobsParams::default()
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Window-based scheduling (Ababneh & Bani-Mohammad)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(params)),
        transforms: Transforms::default(),
        width: 32,
        height: 32,
        allocator: MeshAllocatorKind::Contiguous(AllocatorKind::Mpl),
        policy: MeshPolicyKind::Window(240),
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec::default(),
        seed: 1,
        switch_orientation: WINDOW_SWITCH_ORIENTATION,
    }
}

/// The six strategies of Mache et al.'s Table 2, in the paper's row order.
pub const MC_ELONGATED_STRATEGIES: [NodeAllocatorKind; 6] = [
    NodeAllocatorKind::McElongated,
    NodeAllocatorKind::Plas,
    NodeAllocatorKind::Mc,
    NodeAllocatorKind::Random,
    NodeAllocatorKind::Mbs,
    NodeAllocatorKind::Paging(0),
];

/// Mache et al.'s calibrated mean interarrival times (ratio of I/O, seconds): what `schedlab
/// reproduce mc-elongated` finds under the separated-classes model (MC-Elongated at 65 %
/// utilisation, [`crate::reproduce::mc_elongated::calibrate`]), rounded to 0.1 s (tested).
pub const MC_ELONGATED_INTERARRIVALS: [(f64, f64); 6] = [
    (0.0, 75.5),
    (0.2, 91.0),
    (0.4, 140.9),
    (0.6, 224.1),
    (0.8, 340.6),
    (1.0, 487.4),
];

/// The mean interarrival time of Mache et al.'s experiment at traffic ratio `traffic_io`: linear
/// between the calibrated points of [`MC_ELONGATED_INTERARRIVALS`] (clamped to 0 ..= 1).
pub fn mc_elongated_interarrival(traffic_io: f64) -> f64 {
    let rho = if traffic_io.is_finite() {
        traffic_io.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let pts = MC_ELONGATED_INTERARRIVALS;
    for w in pts.windows(2) {
        let ((r0, a0), (r1, a1)) = (w[0], w[1]);
        if rho <= r1 {
            return a0 + (a1 - a0) * (rho - r0) / (r1 - r0);
        }
    }
    pts[pts.len() - 1].1
}

/// The contention model of Mache et al.'s experiment (`schedlab reproduce mc-elongated` and the app's
/// preset): the separated-classes model with no computation term.
pub const MC_ELONGATED_MODEL: ContentionModel = ContentionModel::Separated;
/// σ of Mache et al.'s experiment: no computation term (the paper's service time is
/// message-passing time).
pub const MC_ELONGATED_COMPUTE: f64 = 0.0;

/// Mache et al.'s experiment: 22 × 16 mesh (16 rows), 16 west I/O nodes, the Table 1 workload
/// (exponential sizes, mean 16), MC-Elongated, traffic ratio `traffic_io`, the separated-classes
/// contention model (κ = 0.001, σ = 0) as `schedlab reproduce mc-elongated` runs it, at the
/// interarrival time that reproduction calibrates for 65 % utilisation
/// ([`mc_elongated_interarrival`]; Table 2: 60–70 %).
pub fn preset_contention(traffic_io: f64) -> MeshExperiment {
    use crate::workload::synthetic::{ExponentialJobsParams, SyntheticModel};
    let params = ExponentialJobsParams {
        mean_interarrival: libm::round(mc_elongated_interarrival(traffic_io) * 10.0) / 10.0,
        ..ExponentialJobsParams::default()
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Communication vs. I/O contention (Mache et al.)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(params)),
        transforms: Transforms::default(),
        width: 22,
        height: 16,
        allocator: MeshAllocatorKind::Nodes(NodeAllocatorKind::McElongated),
        policy: MeshPolicyKind::Fcfs,
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec {
            traffic_io,
            model: MC_ELONGATED_MODEL,
            compute: MC_ELONGATED_COMPUTE,
            ..MeshNetworkSpec::default()
        },
        seed: 2000,
        switch_orientation: false,
    }
}

/// The allocators of the Liu et al. preset: Fig. 6's DBT and d-DBT (ratio 1/8), MBS and PLAS.
pub fn binary_tree_allocators() -> Vec<MeshAllocatorKind> {
    ["dbt_8", "d_dbt_8", "mbs", "plas"]
        .iter()
        .filter_map(|n| MeshAllocatorKind::parse(n).ok())
        .collect()
}

/// The app's "Binary-tree allocation (Liu et al.)" preset: §5.1's 16 × 16 mesh with 16 I/O nodes
/// on the west side, 16 tasks of exponential size (mean 16) arriving within about a
/// millisecond (the paper submits them all at time 0; exponential interarrivals of mean 10^-4 s
/// keep the model's arrivals), no computation (10^-6 s), and the phase model with 4 exchanges
/// between two writes at the paper's link and disk speeds (`docs/binary-tree.md`).
pub fn preset_binary_tree() -> MeshExperiment {
    use crate::workload::synthetic::{ExponentialJobsParams, SyntheticModel};
    let params = ExponentialJobsParams {
        jobs: 16,
        procs: 256,
        mean_size: 16.0,
        mean_interarrival: 1e-4,
        mean_run_time: 1e-6,
    };
    MeshExperiment {
        version: MESH_FORMAT_VERSION,
        name: Some("Binary-tree allocation (Liu et al.)".into()),
        workload: WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(params)),
        transforms: Transforms::default(),
        width: 16,
        height: 16,
        allocator: binary_tree_allocators()
            .first()
            .copied()
            .unwrap_or_default(),
        policy: MeshPolicyKind::Fcfs,
        shape_rule: ShapeRule::Square,
        network: MeshNetworkSpec {
            io_count: Some(16),
            phases: Some(PhaseConfig::paper(4)),
            ..MeshNetworkSpec::default()
        },
        seed: 1001,
        switch_orientation: false,
    }
}
