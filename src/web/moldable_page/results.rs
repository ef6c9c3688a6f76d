//! The moldable page's results: the table (the reference, then one row per strategy, best
//! value per column in bold), the caption, the downloads, the % change chart and the Gantt
//! chart of the schedule picked (with the job under the mouse).

use super::*;
use crate::base::Registered;
use crate::modes::moldable::run::{jobs_csv, results_csv, MoldableOutput};
use crate::policy::moldable::MoldableStrategyKind;
use crate::web::dom::escape;
use crate::web::format;
use crate::web::kit::export::show_link;
use crate::web::moldable_chart;

/// A column of the table: key (`data-key`), label, unit, tooltip, value of a row, digits.
struct Column {
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    title: &'static str,
    value: fn(&MoldableOutput, Option<f64>) -> f64,
    digits: usize,
    /// Whether smaller is better (`None`: not compared).
    lower: Option<bool>,
}

const COLUMNS: [Column; 7] = [
    Column {
        key: "change_pct",
        label: "Change",
        unit: "% vs. rigid cons.",
        title: "% change of the mean turnaround against rigid conservative backfilling (negative = better)",
        value: |_, c| c.unwrap_or(0.0),
        digits: 1,
        lower: Some(true),
    },
    Column {
        key: "mean_turnaround",
        label: "Mean turnaround",
        unit: "s",
        title: "Mean of end − submit over all jobs",
        value: |o, _| o.summary.mean_turnaround,
        digits: 0,
        lower: Some(true),
    },
    Column {
        key: "mean_wait",
        label: "Mean wait",
        unit: "s",
        title: "Mean of start − submit",
        value: |o, _| o.summary.mean_wait,
        digits: 0,
        lower: Some(true),
    },
    Column {
        key: "mean_bounded_slowdown",
        label: "Bounded slowdown",
        unit: "mean",
        title: "Mean of max(1, turnaround / max(run time, 10 s))",
        value: |o, _| o.summary.mean_bounded_slowdown,
        digits: 2,
        lower: Some(true),
    },
    Column {
        key: "utilization",
        label: "Utilisation",
        unit: "%",
        title: "Processor-seconds used by the counts the jobs ran on / (processors × makespan)",
        value: |o, _| o.summary.utilization * 100.0,
        digits: 1,
        lower: Some(false),
    },
    Column {
        key: "mean_procs_ratio",
        label: "Processors given",
        unit: "× trace",
        title: "Mean over jobs of the count given / the trace's count",
        value: |o, _| o.mean_procs_ratio,
        digits: 2,
        lower: None,
    },
    Column {
        key: "evaluations",
        label: "Sizes evaluated",
        unit: "count",
        title: "Partition sizes the strategy evaluated (the cost of the choice, §4.1)",
        value: |o, _| o.evaluations as f64,
        digits: 0,
        lower: None,
    },
];

fn label_of(strategy: &str) -> String {
    MoldableStrategyKind::parse(strategy)
        .map_or_else(|_| strategy.to_string(), |k| k.entry().label.to_string())
}

fn swatch(strategy: &str) -> String {
    MoldableStrategyKind::parse(strategy).map_or_else(
        |_| String::new(),
        |k| {
            format!(
                r#"<span class="swatch" style="background:{}"></span>"#,
                moldable_chart::css(moldable_chart::strategy_colour(k))
            )
        },
    )
}

fn render_table(app: &App, report: &crate::modes::moldable::run::MoldableReport) {
    let ui = &app.ui;
    let mut head = String::from(r#"<tr><th scope="col" class="policy">Strategy</th>"#);
    for c in &COLUMNS {
        head.push_str(&format!(
            r#"<th scope="col" data-key="{}" title="{}"><span class="label">{}</span><span class="unit">{}</span></th>"#,
            c.key,
            escape(c.title),
            escape(c.label),
            escape(c.unit)
        ));
    }
    head.push_str("</tr>");
    ui.head.set_inner_html(&head);
    // The reference, then every strategy: (name, shown label, output, change).
    let mut rows: Vec<(String, String, &MoldableOutput, Option<f64>)> = vec![(
        report.reference.strategy.clone(),
        format!("{} (reference)", label_of(&report.reference.strategy)),
        &report.reference,
        None,
    )];
    for r in &report.runs {
        rows.push((
            r.output.strategy.clone(),
            label_of(&r.output.strategy),
            &r.output,
            Some(r.change.overall_pct),
        ));
    }
    let best: Vec<Option<f64>> = COLUMNS
        .iter()
        .map(|c| {
            let lower = c.lower?;
            let vals = rows
                .iter()
                .skip(usize::from(c.key == "change_pct"))
                .map(|r| (c.value)(r.2, r.3));
            let b = vals.filter(|v| v.is_finite()).reduce(|a, b| {
                if (lower && b < a) || (!lower && b > a) {
                    b
                } else {
                    a
                }
            })?;
            (rows.len() > 2).then_some(b)
        })
        .collect();
    let mut html = String::new();
    for (i, (name, label, out, change)) in rows.iter().enumerate() {
        html.push_str(&format!(
            r#"<tr data-strategy="{}" data-reference="{}"><td class="policy-cell">{}{}</td>"#,
            escape(name),
            i == 0,
            swatch(name),
            escape(label)
        ));
        for (c, b) in COLUMNS.iter().zip(&best) {
            let v = (c.value)(out, *change);
            let shown = if c.key == "change_pct" {
                if i == 0 {
                    "—".to_string()
                } else {
                    format!(
                        "{}{}",
                        if v > 0.0 { "+" } else { "" },
                        format::fixed(v, c.digits)
                    )
                }
            } else {
                format::fixed(v, c.digits)
            };
            let bold = b.is_some_and(|b| b == v) && !(i == 0 && c.key == "change_pct");
            html.push_str(&format!(
                r#"<td data-key="{}" data-value="{}" title="{}"{}>{}</td>"#,
                c.key,
                v,
                v,
                if bold { r#" class="best""# } else { "" },
                escape(&shown)
            ));
        }
        html.push_str("</tr>");
    }
    ui.body.set_inner_html(&html);
}

/// Shows the last finished run: caption, table, downloads, charts.
pub(super) fn render_results(app: &App) {
    let st = app.state.borrow();
    let Some((share, page)) = st.result.as_ref() else {
        return;
    };
    let ui = &app.ui;
    let report = &page.report;
    let model = match &report.model {
        crate::workload::moldable::MoldableModel::Downey {
            sigma,
            range_factor,
        } => format!("Downey σ = {sigma}, range factor {range_factor}"),
        crate::workload::moldable::MoldableModel::Profiles { .. } => {
            "scalability profiles".to_string()
        }
    };
    let workload = match &share.experiment.workload {
        crate::modes::flat::spec::WorkloadSpec::Swf(src) => src.name.clone().unwrap_or_default(),
        crate::modes::flat::spec::WorkloadSpec::Synthetic(_) => "Lublin–Feitelson".to_string(),
    };
    ui.caption.set_text_content(Some(&format!(
        "{workload}: {} jobs on {} processors, {model}, load factor {} %{}. Change = mean \
         turnaround against rigid conservative backfilling on the same workload.",
        format::count(report.jobs as u64),
        format::count(u64::from(report.procs)),
        format::fixed(report.load_factor * 100.0, 0),
        if report.dropped > 0 {
            format!(", {} dropped", format::count(report.dropped as u64))
        } else {
            String::new()
        }
    )));
    render_table(app, report);
    ui.empty.set_hidden(true);
    let schedules = page.schedules.clone();
    let json = serde_json::to_string_pretty(report).unwrap_or_default();
    let csv = results_csv(report);
    let jobs = (!schedules.is_empty()).then(|| jobs_csv(&schedules));
    drop(st);
    {
        let mut st = app.state.borrow_mut();
        st.downloads.revoke_all();
        let json_url = st.downloads.url(&json, "application/json");
        let csv_url = st.downloads.url(&csv, "text/csv");
        let jobs_url = jobs.and_then(|j| st.downloads.url(&j, "text/csv"));
        drop(st);
        show_link(&ui.export_json, json_url);
        show_link(&ui.export_csv, csv_url);
        show_link(&ui.export_jobs, jobs_url);
    }
    ui.exports.set_hidden(false);
    ui.charts.set_hidden(false);
    draw_changes(app);
    fill_gantt_pick(app);
    draw_gantt(app);
}

fn svg_url(app: &App, svg: &str) -> Option<String> {
    app.state.borrow_mut().downloads.url(svg, "image/svg+xml")
}

fn draw_changes(app: &App) {
    let report = match app.state.borrow().result.as_ref() {
        Some((_, p)) => p.report.clone(),
        None => return,
    };
    match moldable_chart::draw_changes("moldable-chart-changes", &report) {
        Ok(svg) => {
            app.ui.png_changes.set_hidden(false);
            show_link(&app.ui.svg_changes, svg_url(app, &svg));
        }
        Err(m) => app
            .ui
            .errors
            .show(&format!("The category chart could not be drawn: {m}")),
    }
}

/// One option per schedule (the reference, then each strategy not already listed).
fn fill_gantt_pick(app: &App) {
    let st = app.state.borrow();
    let Some((_, page)) = st.result.as_ref() else {
        return;
    };
    let mut seen = Vec::new();
    let mut html = String::new();
    for (i, s) in page.schedules.iter().enumerate() {
        if seen.contains(&s.strategy) {
            continue;
        }
        seen.push(s.strategy);
        html.push_str(&format!(
            r#"<option value="{i}">{}</option>"#,
            escape(s.strategy.entry().label)
        ));
    }
    let last = page.schedules.len().saturating_sub(1);
    drop(st);
    app.ui.gantt_pick.set_inner_html(&html);
    // The last strategy asked for (the preset's combined scheme) first.
    app.ui.gantt_pick.set_value(&last.to_string());
}

/// Draws the schedule picked (runs of at most [`moldable_form::MAX_GANTT_JOBS`] jobs).
pub(super) fn draw_gantt(app: &App) {
    let ui = &app.ui;
    ui.gantt_tip.set_hidden(true);
    let pick: Option<usize> = ui.gantt_pick.value().parse().ok();
    let (sched, procs, jobs) = {
        let st = app.state.borrow();
        let Some((_, page)) = st.result.as_ref() else {
            return;
        };
        (
            pick.and_then(|i| page.schedules.get(i)).cloned(),
            page.report.procs,
            page.report.jobs,
        )
    };
    let drawn = sched.and_then(|s| {
        let (layout, _) = moldable_chart::layout(&s.jobs, procs)?;
        let title = format!(
            "{}: each job on the processors it was given ({} jobs)",
            s.strategy.entry().label,
            format::count(s.jobs.len() as u64)
        );
        match moldable_chart::draw_gantt("moldable-gantt", &title, &layout, &s.jobs) {
            Ok((area, svg)) => {
                ui.png_gantt.set_hidden(false);
                show_link(&ui.svg_gantt, svg_url(app, &svg));
                Some((layout, s.jobs, area))
            }
            Err(m) => {
                ui.errors
                    .show(&format!("The Gantt chart could not be drawn: {m}"));
                None
            }
        }
    });
    let shown = drawn.is_some();
    ui.gantt_box.set_hidden(!shown);
    ui.gantt_note.set_text_content(Some(&if shown {
        "Hover a job for the processors it was given.".to_string()
    } else {
        format!(
            "Gantt chart: for runs of up to {} jobs (this one has {}).",
            format::count(moldable_form::MAX_GANTT_JOBS as u64),
            format::count(jobs as u64)
        )
    }));
    if !shown {
        // Keep the picker's line visible with the note, without a chart.
        ui.gantt_box.set_hidden(false);
        let _ = ui.gantt_canvas.set_attribute("hidden", "");
    } else {
        let _ = ui.gantt_canvas.remove_attribute("hidden");
    }
    app.state.borrow_mut().gantt = drawn;
}

/// Shows the job under the mouse in the Gantt chart.
pub(super) fn gantt_hover(app: &App, ev: &MouseEvent) {
    let ui = &app.ui;
    let canvas = &ui.gantt_canvas;
    let rect = canvas.get_bounding_client_rect();
    if rect.width() <= 0.0 || rect.height() <= 0.0 {
        return;
    }
    let sx = f64::from(canvas.width()) / rect.width();
    let sy = f64::from(canvas.height()) / rect.height();
    let x = (f64::from(ev.client_x()) - rect.left()) * sx;
    let y = (f64::from(ev.client_y()) - rect.top()) * sy;
    let text = {
        let st = app.state.borrow();
        st.gantt.as_ref().and_then(|(layout, jobs, area)| {
            let (t, p) = area.at(x, y)?;
            let j = jobs.get(layout.job_at(t, p)?)?;
            let r = &j.record;
            Some(format!(
                "Job {} · {} processors (trace {}, range {}–{}) · submit {} · wait {} · ran {}",
                r.id,
                r.procs,
                j.trace_procs,
                j.min,
                j.max,
                format::duration(r.submit),
                format::duration(r.wait),
                format::duration(r.end - r.start)
            ))
        })
    };
    match text {
        Some(t) => {
            ui.gantt_tip.set_text_content(Some(&t));
            let left = f64::from(ev.client_x()) - rect.left() + 14.0;
            let top = f64::from(ev.client_y()) - rect.top() + 14.0;
            let _ = ui.gantt_tip.set_attribute(
                "style",
                &format!(
                    "left:{}px;top:{}px",
                    left.min(rect.width() - 260.0).max(0.0),
                    top
                ),
            );
            ui.gantt_tip.set_hidden(false);
        }
        None => ui.gantt_tip.set_hidden(true),
    }
}
