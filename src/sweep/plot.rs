//! Reading a merged sweep file back for the page: the `merged.json` that
//! `schedlab sweep merge` writes becomes lines of "metric vs. axis" — the x axis the sweep's
//! first numeric axis (`load_factor`, `seed`, `jobs`, `sigma`, …), one line per value of the
//! other axes (a flat sweep's `policy`, a mesh sweep's `allocator`, a moldable sweep's
//! `strategy`), every metric the mean over the replications of its point. [`flat_rows`] gives
//! a flat sweep as the flat page's sweep rows, so that a sweep run on a cluster is plotted by
//! the same chart as a sweep run in the browser. Pure and bounded (the page reads at most
//! [`crate::limits::MAX_DOCUMENT_BYTES`]); every refusal says what the file lacks.

use std::fmt;

use serde_json::{Map, Value};

use crate::base::{Registered, UnknownName};
use crate::policy::PolicyKind;

/// One line point of the page's sweep chart: policy, axis value, the summary's metrics.
pub type SweepRow = (PolicyKind, f64, Value);

/// One line of a merged sweep: its label (the values of the axes other than x, joined by
/// ` · `; numeric ones as `key = value`; empty when x is the only axis) and its points (x, the
/// metrics averaged over replications), in the file's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, Map<String, Value>)>,
}

/// A merged sweep as lines.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedPlot {
    /// The sweep's mode (`flat`, `mesh`, `grid`, `moldable`).
    pub mode: String,
    /// The x axis' key as the sweep file wrote it (`load_factor`).
    pub axis: String,
    /// The other axes, in order (`policy`).
    pub series: Vec<String>,
    pub lines: Vec<Line>,
}

/// Why a merged sweep file cannot be plotted.
#[derive(Clone, Debug, PartialEq)]
pub enum PlotError {
    /// Not JSON (serde's message).
    NotJson(String),
    /// No `mode` string.
    NoMode,
    /// No `columns` list.
    NoColumns,
    /// No `rows` list.
    NoRows,
    /// Row `i` is not a list.
    RowNotAList(usize),
    /// No axis whose every value is a number; the axes there are.
    NoNumericAxis { axes: Vec<String> },
    /// No row merged yet.
    NoRowsYet,
    /// The page's chart plots flat sweeps only; this one is of `mode`.
    NotFlat { mode: String },
    /// A flat sweep varying `other` besides the x `axis` and the policy.
    AnotherAxis { axis: String, other: String },
    /// A line's policy name is unknown.
    Policy(UnknownName),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::NotJson(e) => write!(f, "the file is not a merged sweep (not JSON: {e})"),
            PlotError::NoMode => f.write_str("the file is not a merged sweep (no \"mode\")"),
            PlotError::NoColumns => f.write_str("the merged file has no \"columns\""),
            PlotError::NoRows => f.write_str("the merged file has no \"rows\""),
            PlotError::RowNotAList(i) => write!(f, "row {i} is not a list"),
            PlotError::NoNumericAxis { axes } => write!(
                f,
                "the merged sweep has no numeric axis to plot against (its axes: {})",
                if axes.is_empty() {
                    "none".to_string()
                } else {
                    axes.join(", ")
                }
            ),
            PlotError::NoRowsYet => {
                f.write_str("the merged sweep has no rows yet (run `schedlab sweep run` first)")
            }
            PlotError::NotFlat { mode } => write!(
                f,
                "the page plots merged flat sweeps; this file is a {mode} sweep"
            ),
            PlotError::AnotherAxis { axis, other } => write!(
                f,
                "the chart draws {axis} against one axis, one line per policy; this sweep also \
                 varies {other}"
            ),
            PlotError::Policy(e) => write!(f, "policy: {e}"),
        }
    }
}

impl std::error::Error for PlotError {}

/// A merged file's JSON and its mode.
fn read(text: &str) -> Result<(Value, String), PlotError> {
    let v: Value = serde_json::from_str(text).map_err(|e| PlotError::NotJson(e.to_string()))?;
    let mode = v
        .get("mode")
        .and_then(Value::as_str)
        .ok_or(PlotError::NoMode)?
        .to_string();
    Ok((v, mode))
}

/// Reads a `merged.json` into lines: x is the first axis whose every value is a number.
pub fn merged_plot(text: &str) -> Result<MergedPlot, PlotError> {
    let (v, mode) = read(text)?;
    plot_of(&v, mode)
}

fn plot_of(v: &Value, mode: String) -> Result<MergedPlot, PlotError> {
    let columns: Vec<&str> = v
        .get("columns")
        .and_then(Value::as_array)
        .ok_or(PlotError::NoColumns)?
        .iter()
        .map(|c| c.as_str().unwrap_or(""))
        .collect();
    let rows = v
        .get("rows")
        .and_then(Value::as_array)
        .ok_or(PlotError::NoRows)?;
    let cells: Vec<&Vec<Value>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| r.as_array().ok_or(PlotError::RowNotAList(i)))
        .collect::<Result<_, _>>()?;
    // The axes sit between `point` and `replication`; the metrics follow `seed`.
    let last_axis = columns
        .iter()
        .position(|c| *c == "replication")
        .unwrap_or(columns.len());
    let axes: Vec<usize> = (1..last_axis).collect();
    let numeric = |c: usize| cells.iter().all(|r| r.get(c).is_some_and(Value::is_number));
    let x = axes
        .iter()
        .copied()
        .find(|&c| numeric(c))
        .ok_or_else(|| PlotError::NoNumericAxis {
            axes: axes.iter().map(|&c| columns[c].to_string()).collect(),
        })?;
    let series: Vec<usize> = axes.iter().copied().filter(|&c| c != x).collect();
    // (A `seed` axis is a column of its own before `replication`.)
    let first_metric = columns
        .iter()
        .skip(last_axis)
        .position(|c| *c == "seed")
        .map_or(columns.len(), |s| last_axis + s + 1);
    // (label, x) → (sums, counts) per metric column.
    let mut keys: Vec<(String, f64)> = Vec::new();
    let mut sums: Vec<Vec<(f64, u32)>> = Vec::new();
    for row in &cells {
        let xv = row.get(x).and_then(Value::as_f64).unwrap_or(f64::NAN);
        let label = series
            .iter()
            .map(|&c| match row.get(c) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => format!("{} = {other}", columns[c]),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join(" · ");
        let k = match keys.iter().position(|(l, y)| *l == label && *y == xv) {
            Some(k) => k,
            None => {
                keys.push((label, xv));
                sums.push(vec![(0.0, 0); columns.len()]);
                keys.len() - 1
            }
        };
        for (c, cell) in row.iter().enumerate().skip(first_metric) {
            if let (Some(y), Some(acc)) = (cell.as_f64(), sums[k].get_mut(c)) {
                acc.0 += y;
                acc.1 += 1;
            }
        }
    }
    if keys.is_empty() {
        return Err(PlotError::NoRowsYet);
    }
    let mut lines: Vec<Line> = Vec::new();
    for ((label, xv), acc) in keys.into_iter().zip(sums) {
        let mut m = Map::new();
        for (c, &(s, n)) in acc.iter().enumerate().skip(first_metric) {
            if n > 0 {
                m.insert(columns[c].to_string(), Value::from(s / f64::from(n)));
            }
        }
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => l.points.push((xv, m)),
            None => lines.push(Line {
                label,
                points: vec![(xv, m)],
            }),
        }
    }
    Ok(MergedPlot {
        mode,
        axis: columns[x].to_string(),
        series: series.iter().map(|&c| columns[c].to_string()).collect(),
        lines,
    })
}

/// A flat sweep's `merged.json` as the flat page's sweep rows (policy, x, metrics) and the x
/// axis' key. A sweep without a `policy` axis plots under `default_policy` (the base
/// experiment's, which the merged file does not record); a flat sweep varying another axis
/// besides x and `policy` is refused (the page's chart draws one line per policy).
pub fn flat_rows(
    text: &str,
    default_policy: PolicyKind,
) -> Result<(String, Vec<SweepRow>), PlotError> {
    let (v, mode) = read(text)?;
    if mode != "flat" {
        return Err(PlotError::NotFlat { mode });
    }
    let plot = plot_of(&v, mode)?;
    if let Some(other) = plot.series.iter().find(|s| *s != "policy") {
        return Err(PlotError::AnotherAxis {
            axis: plot.axis,
            other: other.clone(),
        });
    }
    let mut rows = Vec::new();
    for line in plot.lines {
        let p = if plot.series.is_empty() {
            default_policy
        } else {
            PolicyKind::lookup(&line.label).map_err(PlotError::Policy)?
        };
        for (x, m) in line.points {
            rows.push((p, x, Value::Object(m)));
        }
    }
    Ok((plot.axis, rows))
}

/// What the flat page's chart shows of an uploaded merged file.
#[derive(Clone, Debug, PartialEq)]
pub enum PagePlot {
    /// A flat sweep: the page's sweep rows (a line per policy, in the policies' colours) and
    /// the x axis' key.
    Flat { axis: String, rows: Vec<SweepRow> },
    /// Another mode's sweep: a line per allocator (mesh), strategy (moldable), … .
    Lines(MergedPlot),
}

/// Reads an uploaded `merged.json` for the page: a flat sweep as [`flat_rows`], any other
/// mode as [`merged_plot`].
pub fn page_plot(text: &str, default_policy: PolicyKind) -> Result<PagePlot, PlotError> {
    let (_, mode) = read(text)?;
    if mode == "flat" {
        let (axis, rows) = flat_rows(text, default_policy)?;
        Ok(PagePlot::Flat { axis, rows })
    } else {
        merged_plot(text).map(PagePlot::Lines)
    }
}

impl MergedPlot {
    /// The metrics its points carry (those of its first point, in key order): the page's
    /// metric picker for it.
    pub fn metrics(&self) -> Vec<String> {
        self.lines
            .first()
            .and_then(|l| l.points.first())
            .map(|(_, m)| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Each line's (x, metric) points, the metric scaled by `scale`; points without the
    /// metric are left out.
    pub fn series(&self, metric: &str, scale: f64) -> Vec<(String, Vec<(f64, f64)>)> {
        self.lines
            .iter()
            .map(|l| {
                let pts = l
                    .points
                    .iter()
                    .filter_map(|(x, m)| Some((*x, m.get(metric)?.as_f64()? * scale)))
                    .filter(|(_, y)| y.is_finite())
                    .collect();
                (l.label.clone(), pts)
            })
            .collect()
    }
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
        let (axis, rows) = flat_rows(MERGED, PolicyKind::Easy).unwrap();
        assert_eq!(axis, "load_factor");
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].0, rows[0].1), (PolicyKind::Fcfs, 0.5));
        assert_eq!(rows[0].2["mean_wait"], 15.0);
        assert_eq!(rows[0].2["jobs"], 100.0);
        assert_eq!((rows[2].0, rows[2].1), (PolicyKind::Easy, 1.0));
        assert_eq!(rows[2].2["mean_wait"], 8.0);
    }

    #[test]
    fn any_numeric_axis_is_x_and_other_axes_make_lines() {
        // A flat seed sweep: x = seed (the axis' column, before the fixed `seed` column).
        let seeds = MERGED.replace("\"load_factor\"", "\"seed\"");
        let (axis, rows) = flat_rows(&seeds, PolicyKind::Easy).unwrap();
        assert_eq!(axis, "seed");
        assert_eq!(
            rows[1],
            (
                PolicyKind::Easy,
                0.5,
                serde_json::json!({"mean_wait": 4.0, "jobs": 100.0})
            )
        );
        // A moldable sweep: strategy × sigma, two replications; a line per strategy.
        let moldable = r#"{"mode": "moldable",
            "columns": ["point", "strategy", "sigma", "replication", "seed", "change.overall_pct"],
            "rows": [[0, "base", 0.5, 0, 4, -10.0], [1, "base", 0.5, 1, 9, -20.0],
                     [2, "base", 2.0, 0, 4, 5.0], [4, "combined", 0.5, 0, 4, -30.0]]}"#;
        let p = merged_plot(moldable).unwrap();
        assert_eq!((p.mode.as_str(), p.axis.as_str()), ("moldable", "sigma"));
        assert_eq!(p.series, vec!["strategy".to_string()]);
        assert_eq!(p.lines.len(), 2);
        assert_eq!(p.lines[0].label, "base");
        let pts: Vec<(f64, f64)> = p.lines[0]
            .points
            .iter()
            .map(|(x, m)| (*x, m["change.overall_pct"].as_f64().unwrap()))
            .collect();
        assert_eq!(pts, vec![(0.5, -15.0), (2.0, 5.0)]);
        assert_eq!(p.lines[1].label, "combined");
        assert_eq!(p.metrics(), vec!["change.overall_pct".to_string()]);
        assert_eq!(
            p.series("change.overall_pct", 1.0),
            vec![
                ("base".to_string(), vec![(0.5, -15.0), (2.0, 5.0)]),
                ("combined".to_string(), vec![(0.5, -30.0)]),
            ]
        );
        assert!(matches!(
            page_plot(moldable, PolicyKind::Easy),
            Ok(PagePlot::Lines(q)) if q == p
        ));
        assert!(matches!(
            page_plot(MERGED, PolicyKind::Easy),
            Ok(PagePlot::Flat { axis, rows }) if axis == "load_factor" && rows.len() == 3
        ));
        // A mesh sweep: allocator × traffic_io × kappa: x the first numeric axis, kappa in
        // the label.
        let mesh = r#"{"mode": "mesh",
            "columns": ["point", "allocator", "traffic_io", "kappa", "replication", "seed", "mesh.mean_service"],
            "rows": [[0, "mpl", 0.2, 1, 0, 0, 3.0], [1, "mpl", 0.8, 1, 0, 0, 4.0],
                     [2, "mpl", 0.2, 2, 0, 0, 5.0]]}"#;
        let p = merged_plot(mesh).unwrap();
        assert_eq!(p.axis, "traffic_io");
        let labels: Vec<&str> = p.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["mpl · kappa = 1", "mpl · kappa = 2"]);
        assert_eq!(p.lines[0].points.len(), 2);
    }

    #[test]
    fn what_cannot_be_plotted_is_refused_saying_why() {
        assert!(flat_rows("{", PolicyKind::Easy)
            .unwrap_err()
            .to_string()
            .contains("not JSON"));
        let mesh = MERGED.replace("\"flat\"", "\"mesh\"");
        assert!(flat_rows(&mesh, PolicyKind::Easy)
            .unwrap_err()
            .to_string()
            .contains("a mesh sweep"));
        assert!(merged_plot(r#"{"columns": []}"#)
            .unwrap_err()
            .to_string()
            .contains("no \"mode\""));
        // The mode is judged first (the page's refusal of `{"mode": "mesh"}`).
        assert_eq!(
            flat_rows(r#"{"mode": "mesh"}"#, PolicyKind::Easy)
                .unwrap_err()
                .to_string(),
            "the page plots merged flat sweeps; this file is a mesh sweep"
        );
        let no_numeric = MERGED
            .replace(", 0.5,", ", \"a\",")
            .replace(", 1.0,", ", \"b\",");
        let e = flat_rows(&no_numeric, PolicyKind::Easy)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "the merged sweep has no numeric axis to plot against (its axes: policy, load_factor)"
        );
        let bad = MERGED.replace("\"easy\", 1.0", "\"sjf\", 1.0");
        assert!(flat_rows(&bad, PolicyKind::Easy)
            .unwrap_err()
            .to_string()
            .starts_with("policy: "));
        let traces = r#"{"mode": "flat", "columns": ["point", "trace", "load_factor", "replication", "seed", "mean_wait"],
            "rows": [[0, "a.swf", 0.5, 0, 1, 3.0]]}"#;
        assert_eq!(
            flat_rows(traces, PolicyKind::Easy).unwrap_err().to_string(),
            "the chart draws load_factor against one axis, one line per policy; this sweep also \
             varies trace"
        );
        let empty = MERGED.replace(
            r#"[[0, "fcfs", 0.5, 0, 1, 10.0, 100], [1, "fcfs", 0.5, 1, 2, 20.0, 100],
                 [2, "easy", 0.5, 0, 1, 4.0, 100], [3, "easy", 1.0, 0, 1, 8.0, 100]]"#,
            "[]",
        );
        assert!(flat_rows(&empty, PolicyKind::Easy)
            .unwrap_err()
            .to_string()
            .contains("no rows"));
        // Without a policy axis, the rows plot under the given policy.
        let one = r#"{"mode": "flat", "columns": ["point", "load_factor", "replication", "seed", "mean_wait"],
            "rows": [[0, 0.5, 0, 1, 3.0]]}"#;
        assert_eq!(
            flat_rows(one, PolicyKind::Conservative).unwrap().1[0].0,
            PolicyKind::Conservative
        );
    }

    #[test]
    fn the_other_refusals_in_words() {
        let cases = [
            (PlotError::NoColumns, "the merged file has no \"columns\""),
            (PlotError::NoRows, "the merged file has no \"rows\""),
            (PlotError::RowNotAList(2), "row 2 is not a list"),
            (
                PlotError::NoNumericAxis { axes: Vec::new() },
                "the merged sweep has no numeric axis to plot against (its axes: none)",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
        assert_eq!(
            merged_plot(r#"{"mode": "mesh", "columns": [], "rows": [1]}"#),
            Err(PlotError::RowNotAList(0))
        );
    }
}
