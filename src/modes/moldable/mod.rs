//! The moldable mode: moldable jobs on one machine (Srinivasan, Krishnamoorthy, Sadayappan,
//! moldable scheduling with Downey's speedup model), strategies against rigid conservative
//! backfilling.
//!
//! - [`report`]: what a run measured, for sweeps and exercises;
//! - [`spec`]: the experiment as JSON;
//! - [`run`]: prepare → simulate → measure, the comparison with rigid conservative, its CSVs;
//! - [`link`]: the link state (the experiment and the strategies compared).

pub mod link;
pub mod report;
pub mod run;
pub mod spec;

pub use run::Moldable;

/// The moldable mode in the registry of modes.
pub const ENTRY: crate::modes::ModeEntry = crate::modes::ModeEntry {
    key: "moldable",
    command: "schedlab moldable",
    axes: &[
        crate::modes::WORKLOAD_AXES[0],
        crate::modes::WORKLOAD_AXES[1],
        crate::modes::WORKLOAD_AXES[2],
        ("procs", "machine.flat.procs"),
        ("sigma", "model.downey.sigma"),
        ("range_factor", "model.downey.range_factor"),
    ],
    compared: Some(("strategies", "strategy", "combined")),
    workloads_in: None,
    check: |text, limits| {
        crate::modes::flat::spec::parse_json::<spec::MoldableExperiment>(text)
            .and_then(|e| e.validate_with(limits))
    },
};
