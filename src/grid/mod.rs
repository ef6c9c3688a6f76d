//! Grids of flat machines across time zones with a central grid scheduler (Ernemann et al.:
//! Ernemann, Hamscher, Yahyapour, "Benefits of Global Grid Computing for Job Scheduling",
//! §III machine, job and scheduling model, §IV-A workloads, §V metrics).
//!
//! - [`site`]: a site — a flat machine of N nodes, its own workload, a time-zone offset;
//! - [`align`]: §IV-A workload alignment (first Monday 00:00 local, Table II counts, cut to
//!   the shortest span for the ALL_* configurations, time-zone shift);
//! - [`local`]: the local schedulers (EASY or conservative backfilling) and the earliest
//!   start each site can offer a job;
//! - [`dispatch`]: the central grid scheduler of §III-C — earliest start on every machine,
//!   then BestFit;
//! - [`engine`]: the grid simulation, with the flat engine's determinism rules;
//! - [`invariants`]: per-site invariants, and every job runs exactly once on exactly one site;
//! - [`metrics`]: §V eq. 1–7 per site and overall, squashed area by local hour and weekday,
//!   the migration matrix;
//! - [`paper`]: the configurations of Table III and the paper's numbers (Tables II, IV–VI);
//!
//! The grid experiment (its JSON, the single-vs-sharing comparison, its link) is the grid mode,
//! [`crate::modes::grid`]. The choices the paper leaves open are documented in `docs/grid.md`.

pub mod align;
pub mod dispatch;
pub mod engine;
pub mod invariants;
pub mod local;
pub mod metrics;
pub mod paper;
pub mod site;

pub use align::{align_workload, AlignedWorkload};
pub use dispatch::{choose_site, Offer};
pub use engine::{GridResult, GridSimulation, GridStep};
pub use local::LocalPolicy;
pub use metrics::{GridMetrics, SiteMetrics};
pub use site::{GridError, Sharing, Site};
