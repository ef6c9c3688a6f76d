//! The runs of the exercise on screen: every flat run in the step-by-step replay
//! ([`super::super::replay_panel`]); mesh and grid runs, which have no replay, as a table — the
//! jobs of a mesh run (submit, size, shape, start, end, wait), the overall summary and the
//! migrations of a grid run. A run stays hidden while a question that reads it is pending
//! (docs/exercises.md, "Predict, then reveal").

use super::*;
use crate::exercise::answers::{hidden_runs, secret_jobs};
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

/// What is on screen of the runs: the runs shown, and each shown flat run's secret jobs.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Shown {
    runs: Vec<String>,
    secrets: Vec<Vec<u64>>,
}

/// Shows the runs of the exercise on screen that no pending question reads ("predict, then
/// reveal": [`hidden_runs`]), and "Reveal the simulation" while some are hidden. Draws again
/// only when the runs shown change; a change of the secret jobs alone keeps the replay where
/// it is.
pub(super) fn render(app: &App) {
    let (shown, replays, others, hidden) = {
        let st = app.state.borrow();
        let Some(c) = st.current.as_ref() else {
            return;
        };
        let Some(worked) = c.worked.as_ref() else {
            return;
        };
        let hidden = hidden_runs(&c.ex, &c.answers);
        let visible: Vec<&crate::exercise::RunResult> = worked
            .runs
            .iter()
            .filter(|r| !hidden.contains(&r.name))
            .collect();
        let flat: Vec<&crate::exercise::RunResult> = visible
            .iter()
            .copied()
            .filter(|r| r.flat.is_some())
            .collect();
        let shown = Shown {
            runs: visible.iter().map(|r| r.name.clone()).collect(),
            secrets: flat
                .iter()
                .map(|r| secret_jobs(&c.ex, &c.answers, &r.name))
                .collect(),
        };
        if c.shown.as_ref() == Some(&shown) {
            return;
        }
        let same_runs = c.shown.as_ref().is_some_and(|s| s.runs == shown.runs);
        let replays: Option<Vec<ReplayRun>> = (!same_runs).then(|| {
            flat.iter()
                .zip(&shown.secrets)
                .filter_map(|(r, secret)| {
                    let f = r.flat.as_ref()?;
                    let replay = Replay::new(f.procs, f.jobs.clone(), f.explanations.clone());
                    let mut run = ReplayRun::new(
                        format!("{}: {}", r.name, r.title),
                        PolicyKind::parse(&f.policy).ok(),
                        replay,
                    );
                    run.secret.clone_from(secret);
                    Some(run)
                })
                .collect()
        });
        let others: String = visible
            .iter()
            .filter(|r| r.flat.is_none())
            .map(|r| run_html(&r.name, &r.title, &r.mode, &r.results))
            .collect();
        (shown, replays, others, hidden.len())
    };
    let secrets = shown.secrets.clone();
    if let Some(c) = app.state.borrow_mut().current.as_mut() {
        c.shown = Some(shown);
    }
    let Some(replays) = replays else {
        app.replay.set_secrets(&secrets);
        return;
    };
    let replayed = !replays.is_empty();
    app.replay.show(replays);
    app.ui.reveal.set_hidden(hidden == 0);
    app.ui.status.set_text_content(Some(if hidden > 0 {
        "Predict first: answer each question, then press Check. The simulation's runs appear \
         below once you have answered the questions about them."
    } else if replayed {
        "Answer each question, then press Check. The runs are below: step through them to see \
         why."
    } else {
        "Answer each question, then press Check. The runs are below."
    }));
    app.ui.runs.set_hidden(others.is_empty());
    app.ui.runs.set_inner_html(&if others.is_empty() {
        String::new()
    } else {
        format!(
            r#"<div class="card-head"><h2>Other runs</h2><p class="caption">Mesh and grid runs have no step-by-step replay: their jobs or summary as simulated.</p></div><div class="ex-run-list">{others}</div>"#
        )
    });
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
