//! Merging a plan's results (`schedlab sweep merge`): one row per point — its number, axis
//! values, replication and seed, then its metrics — as CSV and JSON, and the points that are
//! missing, failed or whose result is damaged, by number. The output depends only on the
//! plan and the result files, which depend only on the point files: the same wherever the
//! points ran (locally, GNU parallel, Slurm).
//!
//! ```json
//! {"sweep":"…","mode":"flat","points":12,"columns":["point","policy",…],"rows":[[0,"fcfs",…],…],
//!  "missing":[],"failed":[],"corrupt":[]}
//! ```

use serde::Serialize;
use serde_json::Value;

use super::plan::Manifest;
use super::result::{Outcome, PointResult};
use super::{ranges, SweepSpec};

/// A point's state, judged from its result file.
#[derive(Clone, Debug, PartialEq)]
pub enum PointStatus {
    /// No result file.
    Missing,
    /// A result file that cannot be used (damaged, another point's or another plan's): why.
    Corrupt(String),
    /// The point ran and failed: the error.
    Failed(String),
    /// The point ran: its result.
    Done(PointResult),
}

impl PointStatus {
    /// The status of point `n` of `m` from its result file's text (`None`: no file).
    pub fn judge(m: &Manifest, n: usize, text: Option<&str>) -> PointStatus {
        let Some(text) = text else {
            return PointStatus::Missing;
        };
        match PointResult::from_text(text) {
            Err(why) => PointStatus::Corrupt(why.to_string()),
            Ok(r) if r.point != n => {
                PointStatus::Corrupt(format!("it is the result of point {}", r.point))
            }
            Ok(r) if m.checksums.get(n) != Some(&r.point_checksum) => PointStatus::Corrupt(
                "it is the result of another version of the point (planned again?)".into(),
            ),
            Ok(PointResult {
                outcome: Outcome::Failed(e),
                ..
            }) => PointStatus::Failed(e),
            Ok(r) => PointStatus::Done(r),
        }
    }
}

#[derive(Serialize)]
struct Failure<'a> {
    point: usize,
    error: &'a str,
}

#[derive(Serialize)]
struct Corruption<'a> {
    point: usize,
    reason: &'a str,
}

#[derive(Serialize)]
struct MergedJson<'a> {
    sweep: &'a str,
    mode: &'a str,
    points: usize,
    columns: &'a [String],
    rows: &'a [Vec<Value>],
    missing: &'a [usize],
    failed: Vec<Failure<'a>>,
    corrupt: Vec<Corruption<'a>>,
}

/// A merge: the two files' texts and what is not in them.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub csv: String,
    pub json: String,
    /// Points with a row.
    pub done: usize,
    pub missing: Vec<usize>,
    pub failed: Vec<(usize, String)>,
    pub corrupt: Vec<(usize, String)>,
}

impl Merged {
    /// Every point has a row.
    pub fn complete(&self) -> bool {
        self.missing.is_empty() && self.failed.is_empty() && self.corrupt.is_empty()
    }

    /// `merged 10 of 12 points; missing: 3, 7-8; failed: 5 (why)`.
    pub fn report(&self, points: usize) -> String {
        let mut s = format!("merged {} of {points} points", self.done);
        if !self.missing.is_empty() {
            s.push_str(&format!("; missing: {}", ranges(&self.missing)));
        }
        if !self.corrupt.is_empty() {
            let n: Vec<usize> = self.corrupt.iter().map(|c| c.0).collect();
            s.push_str(&format!(
                "; damaged results (run `schedlab sweep run` again): {}",
                ranges(&n)
            ));
        }
        for (n, e) in &self.failed {
            s.push_str(&format!("; point {n} failed: {e}"));
        }
        s
    }
}

/// `v` as a CSV field.
fn csv_field(v: &Value) -> String {
    let text = match v {
        Value::Null => return String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Merges the points' statuses (point `n` at index `n`) into CSV and JSON.
pub fn merge(spec: &SweepSpec, statuses: &[PointStatus]) -> Merged {
    let mut columns: Vec<String> = vec!["point".into()];
    columns.extend(spec.axes.iter().map(|a| a.key.clone()));
    columns.push("replication".into());
    columns.push("seed".into());
    let fixed = columns.len();
    // Metric columns in the order of the first result that names them.
    let mut metric_names: Vec<String> = Vec::new();
    for s in statuses {
        if let PointStatus::Done(PointResult {
            outcome: Outcome::Metrics(m),
            ..
        }) = s
        {
            for (k, _) in m {
                if !metric_names.contains(k) {
                    metric_names.push(k.clone());
                }
            }
        }
    }
    columns.extend(metric_names.iter().cloned());
    let mut rows = Vec::new();
    let (mut missing, mut failed, mut corrupt) = (Vec::new(), Vec::new(), Vec::new());
    for (n, s) in statuses.iter().enumerate() {
        let metrics = match s {
            PointStatus::Missing => {
                missing.push(n);
                continue;
            }
            PointStatus::Corrupt(why) => {
                corrupt.push((n, why.clone()));
                continue;
            }
            PointStatus::Failed(e) => {
                failed.push((n, e.clone()));
                continue;
            }
            PointStatus::Done(PointResult {
                outcome: Outcome::Metrics(m),
                ..
            }) => m,
            PointStatus::Done(PointResult {
                outcome: Outcome::Failed(e),
                ..
            }) => {
                failed.push((n, e.clone()));
                continue;
            }
        };
        let (_, r) = spec.indices(n);
        let seed = spec.point_experiment(n).map(|(_, s)| s).unwrap_or(0);
        let mut row: Vec<Value> = Vec::with_capacity(columns.len());
        row.push(Value::from(n));
        row.extend(spec.values(n).into_iter().cloned());
        row.push(Value::from(r));
        row.push(Value::from(seed));
        debug_assert_eq!(row.len(), fixed);
        for name in &metric_names {
            let v = metrics
                .iter()
                .find(|(k, _)| k == name)
                .map_or(Value::Null, |(_, v)| v.clone());
            row.push(v);
        }
        rows.push(row);
    }
    let mut csv = columns
        .iter()
        .map(|c| csv_field(&Value::from(c.as_str())))
        .collect::<Vec<_>>()
        .join(",");
    csv.push('\n');
    for row in &rows {
        csv.push_str(&row.iter().map(csv_field).collect::<Vec<_>>().join(","));
        csv.push('\n');
    }
    let json = serde_json::to_string(&MergedJson {
        sweep: spec.name.as_deref().unwrap_or(""),
        mode: spec.mode.as_str(),
        points: statuses.len(),
        columns: &columns,
        rows: &rows,
        missing: &missing,
        failed: failed
            .iter()
            .map(|(point, error)| Failure {
                point: *point,
                error,
            })
            .collect(),
        corrupt: corrupt
            .iter()
            .map(|(point, reason)| Corruption {
                point: *point,
                reason,
            })
            .collect(),
    })
    .unwrap_or_default();
    let done = rows.len();
    Merged {
        csv,
        json: json + "\n",
        done,
        missing,
        failed,
        corrupt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_axis_values_and_gaps_are_reported() {
        let spec = SweepSpec::from_json(
            r#"{"base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
                {"model": "lublin", "jobs": 5}}, "policy": "easy"}},
                "axes": [{"key": "policy", "values": ["fcfs", "easy"]}], "replications": 2}"#,
            "s",
        )
        .unwrap();
        let done = |n: usize, w: f64| {
            PointStatus::Done(PointResult {
                point: n,
                point_checksum: String::new(),
                outcome: Outcome::Metrics(vec![("mean_wait".into(), Value::from(w))]),
            })
        };
        let st = vec![
            done(0, 1.5),
            PointStatus::Missing,
            PointStatus::Failed("boom, \"x\"".into()),
            done(3, 2.0),
        ];
        let m = merge(&spec, &st);
        assert_eq!(
            m.csv,
            format!(
                "point,policy,replication,seed,mean_wait\n0,fcfs,0,0,1.5\n3,easy,1,{},2.0\n",
                crate::sweep::replica_seed(0, 1)
            )
        );
        assert!(!m.complete());
        assert_eq!(m.missing, vec![1]);
        assert_eq!(
            m.report(4),
            "merged 2 of 4 points; missing: 1; point 2 failed: boom, \"x\""
        );
        let v: Value = serde_json::from_str(&m.json).unwrap();
        assert_eq!(v["rows"][1][1], "easy");
        assert_eq!(v["failed"][0]["point"], 2);
    }
}
