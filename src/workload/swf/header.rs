//! The SWF header: `;`-prefixed `Key: value` comment lines at the top of a trace.
//! Real headers are messy, so every value is optional and parsing never fails.

use serde::{Deserialize, Serialize};

/// What could be read from a trace header. Unreadable values stay `None`; every header line is
/// also kept verbatim in `lines` so the writer can reproduce it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SwfHeader {
    pub version: Option<String>,
    pub computer: Option<String>,
    pub installation: Option<String>,
    pub acknowledge: Option<String>,
    pub information: Option<String>,
    pub conversion: Option<String>,
    pub max_jobs: Option<u64>,
    pub max_records: Option<u64>,
    pub preemption: Option<String>,
    pub unix_start_time: Option<i64>,
    /// Offset of local time from UTC in seconds as written in `TimeZone` (old field).
    pub time_zone: Option<i64>,
    /// Olson name, e.g. `US/Eastern`.
    pub time_zone_string: Option<String>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub max_nodes: Option<u64>,
    pub max_procs: Option<u64>,
    pub max_runtime: Option<u64>,
    pub max_memory: Option<u64>,
    pub allow_overuse: Option<String>,
    pub max_queues: Option<u64>,
    pub queues: Vec<String>,
    pub max_partitions: Option<u64>,
    pub partitions: Vec<String>,
    pub notes: Vec<String>,
    /// Every header line as it appeared, without the leading `;`.
    pub lines: Vec<String>,
}
