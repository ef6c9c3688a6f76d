//! What a moldable experiment measured, as every front end needs it ([`Report`]): the sweep's
//! metrics (the strategy's summary, its processors against the trace's, and Srinivasan et
//! al. §2.3's % change of mean turnaround overall and per weight category against rigid
//! conservative backfilling) and the values exercises point into (the whole comparison).

use serde_json::Value;

use super::run::MoldableReport;
use crate::metrics::Summary;
use crate::modes::flatten::flatten;
use crate::modes::Report;

impl Report for MoldableReport {
    fn metrics(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        let Some(run) = self.runs.first() else {
            return out;
        };
        flatten("", &run.output.summary, &mut out);
        out.push((
            "mean_procs_ratio".into(),
            Value::from(run.output.mean_procs_ratio),
        ));
        out.push((
            "change.overall_pct".into(),
            Value::from(run.change.overall_pct),
        ));
        for (k, c) in run.change.categories_pct.iter().enumerate() {
            out.push((format!("change.category_{k}_pct"), Value::from(*c)));
        }
        out
    }

    fn values(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn jobs(&self) -> usize {
        self.jobs
    }

    fn summary(&self) -> Option<&Summary> {
        self.runs.first().map(|r| &r.output.summary)
    }
}
