//! The grid mode: sites in time zones with job sharing (Ernemann, Hamscher, Yahyapour,
//! "Benefits of Global Grid Computing for Job Scheduling"); the engine is [`crate::grid`].
//!
//! - [`spec`]: the experiment (sites, workloads, sharing, local policy, seed) as JSON,
//!   prepare → simulate → measure, the paper's preset;
//! - [`report`]: what a run measured, for sweeps and exercises;
//! - [`run`]: single vs job sharing compared, its CSV and JSON, site clocks;
//! - [`link`]: the link state (`#g=`).

pub mod link;
pub mod report;
pub mod run;
pub mod spec;

pub use run::Grid;
pub use spec::{run_grid, GridExperiment, GridOutput, GridRunError, SiteSpec};

/// The grid mode in the registry of modes.
pub const ENTRY: crate::modes::ModeEntry = crate::modes::ModeEntry {
    key: "grid",
    command: "schedlab grid",
    axes: &[],
    compared: None,
    workloads_in: Some("sites"),
    check: |text, limits| {
        crate::modes::flat::spec::parse_json::<spec::GridExperiment>(text)
            .and_then(|e| e.validate_with(limits))
    },
};
