//! What a grid experiment measured, as every front end needs it ([`Report`]): the sweep's
//! metrics (Ernemann et al. §V's overall metrics, jobs migrated and invariant violations,
//! under `single.` and `sharing.`), and for exercises the metrics of the experiment's
//! own configuration.

use serde_json::Value;

use super::run::{GridComparison, GridRunReport};
use crate::metrics::Summary;
use crate::modes::flatten::flatten;
use crate::modes::Report;

impl GridComparison {
    /// The run of the experiment's own sharing configuration.
    pub fn own_run(&self) -> Option<&GridRunReport> {
        self.runs
            .iter()
            .find(|r| r.sharing == self.experiment.sharing)
    }
}

impl Report for GridComparison {
    fn metrics(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for r in &self.runs {
            let p = r.sharing.as_str();
            flatten(p, &r.metrics.overall, &mut out);
            out.push((format!("{p}.migrated"), Value::from(r.metrics.migrated)));
            out.push((format!("{p}.violations"), Value::from(r.violations.len())));
        }
        out
    }

    fn values(&self) -> Value {
        self.own_run()
            .and_then(|r| serde_json::to_value(&r.metrics).ok())
            .unwrap_or(Value::Null)
    }

    fn refused(&self) -> Option<String> {
        let v = self.own_run()?.violations.first()?;
        Some(format!("grid invariant violated: {v}"))
    }

    fn jobs(&self) -> usize {
        self.own_run().map_or(0, |r| r.metrics.overall.jobs)
    }

    fn summary(&self) -> Option<&Summary> {
        self.own_run().map(|r| &r.metrics.overall)
    }
}
