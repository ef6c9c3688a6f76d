//! What a mesh run measured, as every front end needs it ([`Report`]): the sweep's metrics
//! (the summary, then the layout metrics of Mache et al. §2.2–2.3 under `mesh.`) and the
//! values exercises point into.

use serde_json::{json, Value};

use super::run::MeshRunOutput;
use crate::metrics::Summary;
use crate::modes::flatten::flatten;
use crate::modes::Report;

impl Report for MeshRunOutput {
    fn metrics(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        flatten("", &self.summary, &mut out);
        flatten("mesh", &self.mesh, &mut out);
        out
    }

    fn values(&self) -> Value {
        let to_value = |v: Result<Value, serde_json::Error>| v.unwrap_or(Value::Null);
        json!({
            "summary": to_value(serde_json::to_value(&self.summary)),
            "mesh": to_value(serde_json::to_value(&self.mesh)),
            "jobs": to_value(serde_json::to_value(&self.jobs)),
        })
    }

    fn jobs(&self) -> usize {
        self.jobs.len()
    }

    fn summary(&self) -> Option<&Summary> {
        Some(&self.summary)
    }
}
