//! Reading a merged sweep file back for the page (issue 15 item 4): the `merged.json` that
//! `schedlab sweep merge` writes for a flat sweep over `policy` × `load_factor` becomes the
//! flat page's sweep rows (policy, load factor, summary), each metric averaged over the
//! replications of its point — so a sweep run on a cluster is plotted by the same chart as a
//! sweep run in the browser. Pure and bounded (the page reads at most
//! [`crate::limits::MAX_DOCUMENT_BYTES`]); every refusal says what the file lacks.

use serde_json::{Map, Value};

use crate::base::Registered;
use crate::policy::PolicyKind;

/// One line point of the page's sweep chart: policy, load factor, the summary's metrics.
pub type SweepRow = (PolicyKind, f64, Value);

/// The rows of a flat sweep's `merged.json`, in the file's order of first appearance, every
/// metric the mean over the point's replications. A sweep without a `policy` axis plots under
/// `default_policy` (the base experiment's, which the merged file does not record).
pub fn flat_rows(text: &str, default_policy: PolicyKind) -> Result<Vec<SweepRow>, String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("the file is not a merged sweep (not JSON: {e})"))?;
    let mode = v.get("mode").and_then(Value::as_str).unwrap_or("");
    if mode != "flat" {
        return Err(format!(
            "the page plots merged flat sweeps; this file is {}",
            if mode.is_empty() {
                "not a merged sweep (no \"mode\")".to_string()
            } else {
                format!("a {mode} sweep")
            }
        ));
    }
    let columns: Vec<&str> = v
        .get("columns")
        .and_then(Value::as_array)
        .ok_or("the merged file has no \"columns\"")?
        .iter()
        .map(|c| c.as_str().unwrap_or(""))
        .collect();
    let col = |name: &str| columns.iter().position(|c| *c == name);
    let lf = col("load_factor").ok_or(
        "the merged sweep has no load_factor axis (the page's chart is metric vs. load factor)",
    )?;
    let policy = col("policy");
    let first_metric = col("seed").map_or(columns.len(), |s| s + 1);
    let rows = v
        .get("rows")
        .and_then(Value::as_array)
        .ok_or("the merged file has no \"rows\"")?;
    // (policy, load factor) → (sums, counts) per metric column.
    let mut keys: Vec<(PolicyKind, f64)> = Vec::new();
    let mut sums: Vec<Vec<(f64, u32)>> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let cells = row
            .as_array()
            .ok_or_else(|| format!("row {i} is not a list"))?;
        let x = cells
            .get(lf)
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("row {i}: load_factor is not a number"))?;
        let p = match policy {
            Some(c) => {
                let name = cells.get(c).and_then(Value::as_str).unwrap_or("");
                PolicyKind::lookup(name).map_err(|e| format!("row {i}: {e}"))?
            }
            None => default_policy,
        };
        let k = match keys.iter().position(|&(q, y)| q == p && y == x) {
            Some(k) => k,
            None => {
                keys.push((p, x));
                sums.push(vec![(0.0, 0); columns.len()]);
                keys.len() - 1
            }
        };
        for (c, cell) in cells.iter().enumerate().skip(first_metric) {
            if let (Some(y), Some(acc)) = (cell.as_f64(), sums[k].get_mut(c)) {
                acc.0 += y;
                acc.1 += 1;
            }
        }
    }
    if keys.is_empty() {
        return Err("the merged sweep has no rows yet (run `schedlab sweep run` first)".into());
    }
    Ok(keys
        .into_iter()
        .zip(sums)
        .map(|((p, x), acc)| {
            let mut m = Map::new();
            for (c, &(s, n)) in acc.iter().enumerate().skip(first_metric) {
                if n > 0 {
                    m.insert(columns[c].to_string(), Value::from(s / f64::from(n)));
                }
            }
            (p, x, Value::Object(m))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MERGED: &str = r#"{"sweep": "s", "mode": "flat", "points": 4,
        "columns": ["point", "policy", "load_factor", "replication", "seed", "mean_wait", "jobs"],
        "rows": [[0, "fcfs", 0.5, 0, 1, 10.0, 100], [1, "fcfs", 0.5, 1, 2, 20.0, 100],
                 [2, "easy", 0.5, 0, 1, 4.0, 100], [3, "easy", 1.0, 0, 1, 8.0, 100]],
        "missing": [], "failed": [], "corrupt": []}"#;

    #[test]
    fn replications_average_and_policies_split() {
        let rows = flat_rows(MERGED, PolicyKind::Easy).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].0, rows[0].1), (PolicyKind::Fcfs, 0.5));
        assert_eq!(rows[0].2["mean_wait"], 15.0);
        assert_eq!(rows[0].2["jobs"], 100.0);
        assert_eq!((rows[2].0, rows[2].1), (PolicyKind::Easy, 1.0));
        assert_eq!(rows[2].2["mean_wait"], 8.0);
    }

    #[test]
    fn what_cannot_be_plotted_is_refused_saying_why() {
        assert!(flat_rows("{", PolicyKind::Easy)
            .unwrap_err()
            .contains("not JSON"));
        let mesh = MERGED.replace("\"flat\"", "\"mesh\"");
        assert!(flat_rows(&mesh, PolicyKind::Easy)
            .unwrap_err()
            .contains("a mesh sweep"));
        let no_lf = MERGED.replace("\"load_factor\"", "\"seedx\"");
        assert!(flat_rows(&no_lf, PolicyKind::Easy)
            .unwrap_err()
            .contains("load_factor"));
        let bad = MERGED.replace("\"easy\", 1.0", "\"sjf\", 1.0");
        assert!(flat_rows(&bad, PolicyKind::Easy)
            .unwrap_err()
            .contains("row 3"));
        let empty = MERGED.replace(
            r#"[[0, "fcfs", 0.5, 0, 1, 10.0, 100], [1, "fcfs", 0.5, 1, 2, 20.0, 100],
                 [2, "easy", 0.5, 0, 1, 4.0, 100], [3, "easy", 1.0, 0, 1, 8.0, 100]]"#,
            "[]",
        );
        assert!(flat_rows(&empty, PolicyKind::Easy)
            .unwrap_err()
            .contains("no rows"));
        // Without a policy axis, the rows plot under the given policy.
        let one = r#"{"mode": "flat", "columns": ["point", "load_factor", "replication", "seed", "mean_wait"],
            "rows": [[0, 0.5, 0, 1, 3.0]]}"#;
        assert_eq!(
            flat_rows(one, PolicyKind::Conservative).unwrap()[0].0,
            PolicyKind::Conservative
        );
    }
}
