//! The 2D-mesh mode: contiguous submesh allocation with window scheduling (Ababneh &
//! Bani-Mohammad, "window-based scheduling"), non-contiguous allocation under network
//! contention (Mache, Lo, Garg, "MC-Elongated") and binary-tree I/O allocation (Liu, Hsu, Wu).
//!
//! - [`spec`]: the experiment as JSON (allocator union, contention model, network);
//! - [`run`]: prepare → simulate (sliced, [`run::MeshStepper`]) → measure, the per-job CSV;
//! - [`presets`]: the papers' presets;
//! - [`report`]: what a run measured, for sweeps and exercises;
//! - [`link`]: the link state (`#m=`: the experiment, the allocators compared).

pub mod link;
pub mod presets;
pub mod report;
pub mod run;
pub mod spec;

pub use run::Mesh;

/// The mesh mode in the registry of modes.
pub const ENTRY: crate::modes::ModeEntry = crate::modes::ModeEntry {
    key: "mesh",
    command: "schedlab mesh",
    axes: &[
        crate::modes::WORKLOAD_AXES[0],
        crate::modes::WORKLOAD_AXES[1],
        crate::modes::WORKLOAD_AXES[2],
        ("traffic_io", "network.traffic_io"),
        ("kappa", "network.kappa"),
    ],
    compared: Some(("allocators", "allocator", "mpl")),
    workloads_in: None,
    check: |text, limits| {
        crate::modes::flat::spec::parse_json::<spec::MeshExperiment>(text)
            .and_then(|e| e.validate_with(limits))
    },
};
