//! Metrics of a finished run: per-job records and the summary (waits, turnaround, slowdowns,
//! utilisation, makespan, the squashed-area-weighted AWRT / AWWT / AWSD of Ernemann et al. eq. 1–7)
//! and mean turnaround per weight category (Srinivasan et al. §2.3).

pub mod category;
pub mod compare;
pub mod compare_view;
pub mod gantt;
pub mod job_record;
pub mod summary;

pub use category::{
    category_of, category_stats, category_stats_by, category_stats_iter, CategoryStat,
    CATEGORY_COUNT,
};
pub use compare::{compare, compare_outcomes, compare_outcomes_with, RunComparison};
pub use job_record::{job_records, records_iter, records_of, JobRecord, BOUNDED_SLOWDOWN_TAU};
pub use summary::Summary;
