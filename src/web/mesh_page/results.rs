//! The mesh page's results table (one row per allocator, best value per column
//! highlighted), its caption and the downloads.

use super::*;
use crate::modes::flat::spec::ExperimentFile;

pub(super) fn render_head(ui: &Ui, unit: &str) {
    let mut html = String::from(
        r#"<tr><th scope="col" class="policy">Allocator</th><th scope="col" class="policy">Policy</th>"#,
    );
    for c in &COLUMNS {
        let u = match c.kind {
            Kind::Count => "count",
            Kind::Time => unit,
            Kind::Ratio => "ratio",
            Kind::Percent => "%",
            Kind::Nodes => "nodes",
            Kind::Messages => "messages",
        };
        html.push_str(&format!(
            r#"<th scope="col" data-key="{}" title="{}"><span class="label">{}</span><span class="unit">{}</span></th>"#,
            c.key,
            escape(c.title),
            escape(c.label),
            escape(u)
        ));
    }
    html.push_str("</tr>");
    ui.head.set_inner_html(&html);
}

/// A JSON number as the CLI prints it (integers without a fraction), empty if absent.
pub(super) fn raw_value(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(u) => u.to_string(),
            None => format!("{}", n.as_f64().unwrap_or(f64::NAN)),
        },
        _ => String::new(),
    }
}

/// Whether a smaller value of a column is better (`Some(true)`), a larger one
/// (`Some(false)`), or neither (counts).
pub(super) fn lower_is_better(c: &Column) -> Option<bool> {
    match (c.kind, c.key) {
        (Kind::Count, _) => None,
        (_, "utilization") => Some(false),
        _ => Some(true),
    }
}

pub(super) fn render_rows(app: &App, runs: &[Run]) {
    let ui = &app.ui;
    // Per run and column: (raw value, shown text).
    let cells: Vec<Vec<(String, f64, String)>> = runs
        .iter()
        .map(|r| {
            let out = &r.report.output;
            let summary = serde_json::to_value(&out.summary).unwrap_or_default();
            let mesh = serde_json::to_value(&out.mesh).unwrap_or_default();
            COLUMNS
                .iter()
                .map(|c| {
                    let src = if c.group == "summary" {
                        &summary
                    } else {
                        &mesh
                    };
                    let v = src.get(c.key);
                    let raw = raw_value(v);
                    let x = v.and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
                    let shown = if raw.is_empty() {
                        "—".to_string()
                    } else {
                        match c.kind {
                            Kind::Count => format::fixed(x, 0),
                            Kind::Time | Kind::Messages if x.abs() >= 100.0 => format::fixed(x, 0),
                            Kind::Time | Kind::Ratio | Kind::Nodes | Kind::Messages => {
                                format::fixed(x, 2)
                            }
                            Kind::Percent => format::fixed(x * 100.0, 2),
                        }
                    };
                    (raw, x, shown)
                })
                .collect()
        })
        .collect();
    // The best shown value of each comparable column, when the runs differ.
    let best: Vec<Option<String>> = COLUMNS
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let lower = lower_is_better(c)?;
            if runs.len() < 2 {
                return None;
            }
            let vals: Vec<(f64, &String)> = cells
                .iter()
                .map(|row| (row[k].1, &row[k].2))
                .filter(|(x, _)| x.is_finite())
                .collect();
            let (_, text) = vals.iter().copied().reduce(|a, b| {
                let b_better = if lower { b.0 < a.0 } else { b.0 > a.0 };
                if b_better {
                    b
                } else {
                    a
                }
            })?;
            if vals.iter().all(|(_, t)| *t == text) {
                None
            } else {
                Some(text.clone())
            }
        })
        .collect();
    let mut html = String::new();
    for (r, row) in runs.iter().zip(&cells) {
        let out = &r.report.output;
        html.push_str(&format!(
            r#"<tr data-allocator="{}" data-policy="{}"><th scope="row" class="policy">{}</th><td class="policy-cell">{}</td>"#,
            escape(&out.allocator),
            escape(&out.policy),
            escape(&r.exp.allocator.label()),
            escape(&out.policy)
        ));
        for ((c, (raw, _, shown)), b) in COLUMNS.iter().zip(row).zip(&best) {
            let class = if b.as_ref() == Some(shown) {
                r#" class="best""#
            } else {
                ""
            };
            html.push_str(&format!(
                r#"<td data-key="{}" data-value="{}" title="{}"{class}>{}</td>"#,
                c.key,
                escape(raw),
                escape(if raw.is_empty() { "not computed" } else { raw }),
                shown
            ));
        }
        html.push_str("</tr>");
    }
    ui.body.set_inner_html(&html);
    ui.empty.set_hidden(!runs.is_empty());
}

pub(super) fn render_caption(app: &App, runs: &[Run]) {
    let Some(r) = runs.first() else {
        return;
    };
    let e = &r.exp;
    let wl = match &e.workload {
        WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(p)) => format!(
            "Ababneh & Bani-Mohammad model ({} jobs, λ = {})",
            format::count(p.jobs as u64),
            p.arrival_rate
        ),
        WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p)) => format!(
            "Mache et al. Table 1 model ({} jobs, mean interarrival {} s)",
            format::count(p.jobs as u64),
            p.mean_interarrival
        ),
        WorkloadSpec::Swf(s) => format!("trace {}", s.name.clone().unwrap_or_default()),
        _ => "workload".into(),
    };
    let io = e
        .network_model()
        .map(|n| n.io_nodes().len())
        .unwrap_or_default();
    // Non-contiguous runs: which contention model produced the service times.
    let model = match (&e.allocator, &e.network.phases, e.network.model) {
        (MeshAllocatorKind::Nodes(_), Some(_), _) => " · phase model (Liu et al.)".to_string(),
        (MeshAllocatorKind::Nodes(_), None, ContentionModel::Separated) => format!(
            " · separated-classes contention model (κ = {}, σ = {})",
            e.network.kappa, e.network.compute
        ),
        (MeshAllocatorKind::Nodes(_), None, ContentionModel::Flow) => {
            format!(" · flow contention model (κ = {})", e.network.kappa)
        }
        (MeshAllocatorKind::Nodes(_), None, ContentionModel::Wormhole) => {
            let w = e.network.wormhole.unwrap_or_default();
            format!(
                " · packet-level wormhole model ({}-flit worms, flit time {} s, one round per {} s \
                 of run time)",
                w.flits, w.flit_time, w.round_length
            )
        }
        _ => String::new(),
    };
    let text = format!(
        "{} × {} mesh · {wl} · {} I/O nodes ({}) · ρ = {} % I/O{model} · seed {}",
        e.width,
        e.height,
        io,
        option_value(&e.network.io_side),
        format::fixed(e.network.traffic_io * 100.0, 0),
        e.seed
    );
    app.ui.caption.set_text_content(Some(&text));
}

pub(super) fn render_exports(app: &App) {
    app.state.borrow_mut().downloads.revoke_all();
    let (csv, json, per_run) = {
        let st = app.state.borrow();
        let keys: Vec<&str> = COLUMNS.iter().map(|c| c.key).collect();
        let mut csv = format!("allocator,policy,{},mean_system_balance\n", keys.join(","));
        let mut arr = Vec::new();
        let mut per_run = Vec::new();
        for r in &st.runs {
            let out = &r.report.output;
            let summary = serde_json::to_value(&out.summary).unwrap_or_default();
            let mesh = serde_json::to_value(&out.mesh).unwrap_or_default();
            let mut line = vec![out.allocator.clone(), out.policy.clone()];
            for c in &COLUMNS {
                let src = if c.group == "summary" {
                    &summary
                } else {
                    &mesh
                };
                line.push(raw_value(src.get(c.key)));
            }
            line.push(raw_value(mesh.get("mean_system_balance")));
            csv.push_str(&line.join(","));
            csv.push('\n');
            arr.push(serde_json::json!({
                "allocator": out.allocator,
                "policy": out.policy,
                "summary": out.summary,
                "mesh": out.mesh,
            }));
            per_run.push((
                out.allocator.clone(),
                r.exp.allocator.label(),
                r.report.jobs_csv.clone(),
                r.exp.to_json(),
                out.links.as_ref().map(|l| l.csv()),
            ));
        }
        (
            csv,
            serde_json::to_string_pretty(&arr).unwrap_or_default(),
            per_run,
        )
    };
    let mut html = String::from(r#"<span class="exports-label">Download</span>"#);
    if let Some(u) = app.state.borrow_mut().downloads.url(&csv, "text/csv") {
        html.push_str(&format!(
            r#"<a href="{u}" download="schedlab-mesh-summary.csv" data-testid="mesh-dl-csv">summary CSV</a>"#
        ));
    }
    if let Some(u) = app
        .state
        .borrow_mut()
        .downloads
        .url(&json, "application/json")
    {
        html.push_str(&format!(
            r#"<a href="{u}" download="schedlab-mesh-summary.json" data-testid="mesh-dl-json">summary JSON</a>"#
        ));
    }
    for (name, label, jobs, exp, links) in per_run {
        html.push_str(&format!(
            r#"<span class="exports-run"><span class="exports-policy">{}</span>"#,
            escape(&label)
        ));
        if let Some(u) = app.state.borrow_mut().downloads.url(&jobs, "text/csv") {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-mesh-{name}-jobs.csv" data-testid="mesh-dl-jobs-{name}">per-job CSV</a>"#
            ));
        }
        if let Some(u) = app
            .state
            .borrow_mut()
            .downloads
            .url(&exp, "application/json")
        {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-mesh-{name}.json" data-testid="mesh-dl-exp-{name}" title="The experiment, for schedlab mesh">experiment JSON</a>"#
            ));
        }
        // The wormhole model's per-link counters (`schedlab mesh --links-csv`).
        if let Some(u) = links.and_then(|c| app.state.borrow_mut().downloads.url(&c, "text/csv")) {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-mesh-{name}-links.csv" data-testid="mesh-dl-links-{name}" title="Per link: messages, flits, flit times held and blocked (schedlab mesh --links-csv)">links CSV</a>"#
            ));
        }
        html.push_str("</span>");
    }
    app.ui.exports.set_inner_html(&html);
    app.ui.exports.set_hidden(false);
}
