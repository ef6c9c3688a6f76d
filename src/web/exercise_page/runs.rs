//! The runs of the exercise on screen: every flat run in the step-by-step replay
//! ([`super::super::replay_panel`]); mesh and grid runs, which have no replay, as a table — the
//! jobs of a mesh run (submit, size, shape, start, end, wait), the overall summary and the
//! migrations of a grid run.

use super::*;
use crate::policy::PolicyKind;
use crate::sim::replay::Replay;
use crate::sim::story::time_text;
use crate::web::replay_panel::ReplayRun;
use serde_json::Value;

/// Summary keys shown for a mesh or grid run, with their labels.
const SUMMARY: [(&str, &str); 6] = [
    ("jobs", "Jobs"),
    ("mean_wait", "Mean wait (s)"),
    ("mean_turnaround", "Mean turnaround (s)"),
    ("utilization", "Utilization"),
    ("makespan", "Makespan (s)"),
    ("awrt", "AWRT (s)"),
];

/// Mesh keys shown for a mesh run (Mache et al.: service time stretched by contention, link
/// loads).
const MESH: [(&str, &str); 3] = [
    ("mean_service", "Mean service (s)"),
    ("max_link_load", "Max link load"),
    ("io_hot_spot", "I/O hot spot"),
];

/// Shows the runs of the exercise on screen.
pub(super) fn render(app: &App) {
    let (replays, others) = {
        let st = app.state.borrow();
        let Some(worked) = st.current.as_ref().and_then(|c| c.worked.as_ref()) else {
            return;
        };
        let replays: Vec<ReplayRun> = worked
            .runs
            .iter()
            .filter_map(|r| {
                let f = r.flat.as_ref()?;
                let replay = Replay::new(f.procs, f.jobs.clone(), f.explanations.clone());
                Some(ReplayRun::new(
                    format!("{}: {}", r.name, r.title),
                    PolicyKind::parse(&f.policy).ok(),
                    replay,
                ))
            })
            .collect();
        let others: String = worked
            .runs
            .iter()
            .filter(|r| r.flat.is_none())
            .map(|r| run_html(&r.name, &r.title, &r.mode, &r.results))
            .collect();
        (replays, others)
    };
    let replayed = !replays.is_empty();
    app.replay.show(replays);
    app.ui.status.set_text_content(Some(if replayed {
        "Answer each question, then press Check. The runs are below: step through them to see \
         why."
    } else {
        "Answer each question, then press Check. The runs are below."
    }));
    app.ui.runs.set_hidden(others.is_empty());
    if !others.is_empty() {
        app.ui.runs.set_inner_html(&format!(
            r#"<div class="card-head"><h2>Other runs</h2><p class="caption">Mesh and grid runs have no step-by-step replay: their jobs or summary as simulated.</p></div><div class="ex-run-list">{others}</div>"#
        ));
    }
}

fn number(v: &Value) -> String {
    v.as_f64().map(time_text).unwrap_or_else(|| "—".into())
}

/// One mesh or grid run as tables.
fn run_html(name: &str, title: &str, mode: &str, results: &Value) -> String {
    let mut h = format!(
        r#"<div class="ex-run" data-testid="ex-run-{}" data-mode="{}"><h3>{}: {}</h3>"#,
        escape(name),
        escape(mode),
        escape(name),
        escape(title)
    );
    if let Some(jobs) = results.get("jobs").and_then(Value::as_array) {
        h.push_str(r#"<table class="replay-table"><thead><tr><th>Job</th><th>Submit</th><th>Size</th><th>Shape</th><th>Start</th><th>End</th><th>Wait</th></tr></thead><tbody>"#);
        for j in jobs.iter().take(100) {
            let shape = match (
                j.get("w").and_then(Value::as_u64),
                j.get("h").and_then(Value::as_u64),
            ) {
                (Some(w), Some(h)) if w > 0 && h > 0 => format!("{w} × {h}"),
                _ => "—".into(),
            };
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                number(&j["id"]),
                number(&j["submit"]),
                number(&j["procs"]),
                shape,
                number(&j["start"]),
                number(&j["end"]),
                number(&j["wait"])
            ));
        }
        h.push_str("</tbody></table>");
    }
    let summary = results.get("summary").or_else(|| results.get("overall"));
    if let Some(s) = summary {
        h.push_str(r#"<table class="replay-table ex-summary"><tbody>"#);
        for (key, label) in SUMMARY {
            if let Some(v) = s.get(key) {
                let text = if key == "utilization" {
                    v.as_f64()
                        .map(|u| format!("{} %", crate::web::format::fixed(u * 100.0, 1)))
                        .unwrap_or_default()
                } else {
                    number(v)
                };
                h.push_str(&format!("<tr><th>{label}</th><td>{text}</td></tr>"));
            }
        }
        if let Some(m) = results.get("mesh") {
            for (key, label) in MESH {
                if let Some(v) = m.get(key) {
                    h.push_str(&format!("<tr><th>{label}</th><td>{}</td></tr>", number(v)));
                }
            }
        }
        if let Some(m) = results.get("migrated") {
            h.push_str(&format!(
                "<tr><th>Jobs migrated</th><td>{}</td></tr>",
                number(m)
            ));
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</div>");
    h
}
