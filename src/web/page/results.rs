//! The flat page's results: table rows (best value per column highlighted) and the downloads
//! (summary CSV/JSON made here; per-job CSV and SWF schedule asked of the worker).

use super::*;

pub(super) fn add_row(ui: &Ui, policy: PolicyKind, load: Option<f64>, summary: &serde_json::Value) {
    let mut html = format!(
        r#"<th scope="row" class="policy" title="{}">{}</th>"#,
        escape(policy_label(policy)),
        escape(policy_short(policy))
    );
    if let Some(lf) = load {
        html.push_str(&format!(r#"<td class="load">{lf}</td>"#));
    }
    for c in &COLUMNS {
        let v = summary.get(c.key);
        let raw = raw_value(v);
        let x = v.and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        let shown = match c.kind {
            Kind::Count => format::fixed(x, 0),
            Kind::Seconds => format::fixed(x, 0),
            Kind::Ratio => format::fixed(x, 2),
            Kind::Percent => format::fixed(x * 100.0, 2),
        };
        // The figure to 6 significant digits with its unit (the exact value is `data-value`).
        let exact = format::significant(x, 6);
        let title = match c.kind {
            Kind::Seconds if x.abs() >= 60.0 => format!("{exact} s ≈ {}", format::duration(x)),
            Kind::Seconds => format!("{exact} s"),
            Kind::Percent => format!("{} %", format::significant(x * 100.0, 6)),
            Kind::Count => format!("{exact} {}", c.unit),
            Kind::Ratio => exact,
        };
        html.push_str(&format!(
            r#"<td data-key="{}" data-value="{}" title="{}">{}</td>"#,
            c.key,
            escape(&raw),
            escape(&title),
            shown
        ));
    }
    let row = match ui.doc.create_element("tr") {
        Ok(r) => r,
        Err(_) => return,
    };
    let _ = row.set_attribute("data-policy", policy.as_str());
    if let Some(lf) = load {
        let _ = row.set_attribute("data-load", &lf.to_string());
    }
    row.set_inner_html(&html);
    let _ = ui.results_body.append_child(&row);
}

/// Marks the best value of each comparable column (when several policies ran).
pub(super) fn highlight_best(ui: &Ui) {
    let Ok(rows) = ui.results_body.query_selector_all("tr") else {
        return;
    };
    if rows.length() < 2 {
        return;
    }
    for c in &COLUMNS {
        if c.better == Better::Neither {
            continue;
        }
        let Ok(cells) = ui
            .results_body
            .query_selector_all(&format!(r#"td[data-key="{}"]"#, c.key))
        else {
            continue;
        };
        let cells: Vec<Element> = (0..cells.length())
            .filter_map(|i| cells.get(i).and_then(|n| n.dyn_into::<Element>().ok()))
            .collect();
        let value = |e: &Element| {
            e.get_attribute("data-value")
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let best =
            cells
                .iter()
                .map(value)
                .filter(|v| v.is_finite())
                .fold(None, |acc: Option<f64>, v| match (acc, c.better) {
                    (None, _) => Some(v),
                    (Some(a), Better::Lower) => Some(a.min(v)),
                    (Some(a), _) => Some(a.max(v)),
                });
        // Compare what is shown: values equal at the displayed precision are equally good.
        let Some(best_text) = cells
            .iter()
            .find(|e| Some(value(e)) == best)
            .and_then(|e| e.text_content())
        else {
            continue;
        };
        let shown = |e: &Element| e.text_content().unwrap_or_default();
        if cells.iter().all(|e| shown(e) == best_text) {
            continue;
        }
        for e in &cells {
            if shown(e) == best_text {
                let _ = e.class_list().add_1("best");
            }
        }
    }
}

/// A summary value as the CLI prints it (integers without a fraction), empty if absent.
pub(super) fn raw_value(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                format!("{}", n.as_f64().unwrap_or(f64::NAN))
            }
        }
        _ => String::new(),
    }
}

/// An object URL for a download of `text` (kept in the state, revoked when replaced).
/// After a completed batch: download links for the summary (CSV, JSON, made here) and buttons
/// for each run's per-job CSV and SWF schedule (made by the worker on request).
pub(super) fn render_exports(app: &App) {
    let (done, experiments, sweep) = {
        let st = app.state.borrow();
        let Some(b) = st.batch.as_ref() else {
            return;
        };
        let exps: Vec<Experiment> = b.runs.iter().map(|(_, e)| e.clone()).collect();
        (b.done.clone(), exps, b.sweep.map(|s| s.axis))
    };
    app.state.borrow_mut().downloads.revoke_all();
    let mut csv = String::from("policy");
    if let Some(axis) = sweep {
        csv.push(',');
        csv.push_str(axis.key());
    }
    for c in &COLUMNS {
        csv.push(',');
        csv.push_str(c.key);
    }
    csv.push('\n');
    let mut json = Vec::new();
    for (i, (policy, _, summary)) in done.iter().enumerate() {
        csv.push_str(policy.as_str());
        if let Some(axis) = sweep {
            let x = experiments
                .get(i)
                .map(|e| axis.value_of(e))
                .unwrap_or(f64::NAN);
            csv.push_str(&format!(",{x}"));
        }
        for c in &COLUMNS {
            csv.push(',');
            csv.push_str(&raw_value(summary.get(c.key)));
        }
        csv.push('\n');
        json.push(serde_json::json!({
            "policy": policy.as_str(),
            "experiment": experiments.get(i),
            "summary": summary,
        }));
    }
    let json = serde_json::to_string_pretty(&json).unwrap_or_default();
    let csv_url = app
        .state
        .borrow_mut()
        .downloads
        .url(&csv, "text/csv")
        .unwrap_or_default();
    let json_url = app
        .state
        .borrow_mut()
        .downloads
        .url(&json, "application/json")
        .unwrap_or_default();
    let mut html = format!(
        r#"<span class="exports-label">Download</span>
<a href="{csv_url}" download="schedlab-summary.csv" data-testid="export-summary-csv">Summary CSV</a>
<a href="{json_url}" download="schedlab-summary.json" data-testid="export-summary-json">Summary JSON</a>"#
    );
    // (A sweep's runs were made by its pool, gone now: no per-run files.)
    for (policy, id, _) in done.iter().filter(|_| sweep.is_none()) {
        let p = policy.as_str();
        html.push_str(&format!(
            r#"<span class="exports-run"><span class="exports-policy">{short}</span><button type="button" class="link" data-export="jobs_csv" data-run="{id}" data-testid="export-jobs-{p}" title="One line per job: id, submit, start, end, processors, …">jobs CSV</button><button type="button" class="link" data-export="swf" data-run="{id}" data-testid="export-swf-{p}" title="The simulated schedule in the Standard Workload Format">schedule SWF</button></span>"#,
            short = escape(policy_short(*policy)),
        ));
    }
    app.ui.exports.set_inner_html(&html);
    app.ui.exports.set_hidden(false);
    app.state.borrow_mut().export_runs = done.iter().map(|(p, id, _)| (*id, *p)).collect();
}

/// Asks the worker for a per-run file (button `b` of the export bar).
pub(super) fn request_export(app: &App, b: &Element) {
    let id = b
        .get_attribute("data-run")
        .and_then(|s| s.parse::<u32>().ok());
    let format = match b.get_attribute("data-export").as_deref() {
        Some("jobs_csv") => Some(ExportFormat::JobsCsv),
        Some("swf") => Some(ExportFormat::Swf),
        _ => None,
    };
    if let (Some(id), Some(format)) = (id, format) {
        hide_error();
        app.tab.worker.post(&ToWorker::Export { id, format });
    }
}

/// Saves a file made by the worker: a download through a temporary link.
pub(super) fn save_export(app: &App, id: u32, format: ExportFormat, text: &str) {
    let policy = app
        .state
        .borrow()
        .export_runs
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p.as_str())
        .unwrap_or("run");
    let (name, mime) = match format {
        ExportFormat::JobsCsv => (format!("schedlab-{policy}-jobs.csv"), "text/csv"),
        ExportFormat::Swf => (format!("schedlab-{policy}-schedule.swf"), "text/plain"),
    };
    save_text(app, text, mime, &name);
}

/// Downloads `text` as the file `name` (of type `mime`) through a temporary link; an error
/// line if the browser cannot make the file.
pub(super) fn save_text(app: &App, text: &str, mime: &str, name: &str) {
    let Some(url) = app.state.borrow_mut().downloads.url(text, mime) else {
        show_error("The browser could not create the file to download.");
        return;
    };
    let Ok(a) = app
        .ui
        .doc
        .create_element("a")
        .and_then(|e| e.dyn_into::<HtmlAnchorElement>().map_err(JsValue::from))
    else {
        return;
    };
    a.set_href(&url);
    a.set_download(name);
    a.set_hidden(true);
    let _ = app.ui.body.append_child(&a);
    a.click();
    let _ = app.ui.body.remove_child(&a);
}
