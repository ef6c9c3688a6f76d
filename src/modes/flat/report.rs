//! What a flat run measured, as every front end needs it ([`Report`]): the sweep's metrics (the
//! summary), the values exercises point into, and the run as the replay needs it.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::base::Explanation;
use crate::metrics::{CategoryStat, JobRecord, Summary};
use crate::modes::flatten::flatten;
use crate::modes::Report;
use crate::sim::TimelinePoint;
use crate::workload::transform::TransformReport;
use crate::workload::DropCounts;

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOutput {
    pub policy: String,
    pub procs: u32,
    pub summary: Summary,
    pub categories: Vec<CategoryStat>,
    pub dropped: DropCounts,
    pub transform: TransformReport,
    #[serde(skip)]
    pub jobs: Vec<JobRecord>,
    #[serde(skip)]
    pub timeline: Vec<TimelinePoint>,
    /// Jobs that started later than the first reservation their policy gave them (must be 0).
    pub late_starts: usize,
}

/// A flat run as the page's replay needs it (`sim::replay::Replay::new`): the machine, the
/// policy, every job's record in arrival order and the decision explanations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlatRun {
    pub procs: u32,
    /// The policy's name (`easy`).
    pub policy: String,
    pub jobs: Vec<JobRecord>,
    pub explanations: Vec<Explanation>,
}

/// A finished flat run: its metrics and, when asked for, its decisions in words.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatReport {
    pub output: RunOutput,
    pub explanations: Vec<Explanation>,
}

impl Report for FlatReport {
    fn metrics(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        flatten("", &self.output.summary, &mut out);
        out
    }

    fn values(&self) -> Value {
        let to_value = |v: Result<Value, serde_json::Error>| v.unwrap_or(Value::Null);
        json!({
            "summary": to_value(serde_json::to_value(&self.output.summary)),
            "procs": self.output.procs,
            "late_starts": self.output.late_starts,
            "jobs": to_value(serde_json::to_value(&self.output.jobs)),
        })
    }

    fn jobs(&self) -> usize {
        self.output.jobs.len()
    }

    fn summary(&self) -> Option<&Summary> {
        Some(&self.output.summary)
    }

    fn replay(self: Box<Self>) -> Option<FlatRun> {
        Some(FlatRun {
            procs: self.output.procs,
            policy: self.output.policy,
            jobs: self.output.jobs,
            explanations: self.explanations,
        })
    }
}
