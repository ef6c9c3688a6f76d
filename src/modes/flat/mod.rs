//! The flat mode: one machine of P processors and the flat policies (FCFS, EASY,
//! conservative — the core experiment; Feitelson's Parallel Workloads Archive traces or the
//! synthetic models of `docs/workload-models.md`).
//!
//! - [`spec`]: the experiment (workload, transforms, machine, policy, seed) as JSON;
//! - [`run`]: prepare (load and transform the workload) → simulate → measure;
//! - [`report`]: what a run measured, for sweeps, exercises and the replay;
//! - [`link`]: the link state (`#x=`: the experiment and the policies compared) and the
//!   fragment codec every mode's link uses.

pub mod link;
pub mod report;
pub mod run;
pub mod spec;

pub use run::Flat;

/// The flat mode in the registry of modes.
pub const ENTRY: crate::modes::ModeEntry = crate::modes::ModeEntry {
    key: "flat",
    command: "schedlab run",
    axes: &[
        crate::modes::WORKLOAD_AXES[0],
        crate::modes::WORKLOAD_AXES[1],
        crate::modes::WORKLOAD_AXES[2],
        ("procs", "machine.flat.procs"),
    ],
    compared: None,
    workloads_in: None,
    check: |text, limits| {
        spec::parse_json::<spec::Experiment>(text).and_then(|e| e.validate_with(limits))
    },
};
