//! The flat page's run comparison: pick two finished runs of the batch on
//! screen (same workload, different policies) and see which jobs run B started earlier or later
//! than run A and by how much — a histogram, a sortable table and a CSV of every job — and
//! the differences of the summary metrics ([`crate::metrics::compare`]).

use super::*;
use crate::metrics::compare::{compare, RunComparison};
use crate::metrics::Summary;

/// Rows shown in the table (the CSV has every job).
const MAX_ROWS: usize = 100;
/// Bars of the histogram.
const BINS: usize = 40;
/// The table's columns: header, and the key the rows sort by.
const COLUMNS: [&str; 6] = [
    "Job",
    "Processors",
    "Submit",
    "Start (A)",
    "Start (B)",
    "Shift B − A",
];

/// The comparison's elements and the table's sort order.
pub(super) struct CompareUi {
    section: HtmlElement,
    a: web_sys::HtmlSelectElement,
    b: web_sys::HtmlSelectElement,
    summary: Element,
    metrics: Element,
    head: Element,
    body: Element,
    note: Element,
    csv: HtmlAnchorElement,
    /// Column index and ascending.
    sort: Cell<(usize, bool)>,
}

impl CompareUi {
    /// The elements of `#compare`; the error names a missing one.
    pub(super) fn new(doc: &Document) -> Result<CompareUi, String> {
        Ok(CompareUi {
            section: by_id(doc, "compare")?,
            a: by_id(doc, "compare-a")?,
            b: by_id(doc, "compare-b")?,
            summary: by_id(doc, "compare-summary")?,
            metrics: by_id(doc, "compare-metrics")?,
            head: by_id(doc, "compare-head")?,
            body: by_id(doc, "compare-body")?,
            note: by_id(doc, "compare-note")?,
            csv: by_id(doc, "compare-csv")?,
            sort: Cell::new((5, true)),
        })
    }
}

/// After a batch: offers its runs with per-job records (at least two) as A and B — the first
/// two by default — and draws their comparison; hides the section otherwise.
pub(super) fn fill(app: &App) {
    let ui = &app.ui.compare;
    let runs: Vec<PolicyKind> = app
        .state
        .borrow()
        .gantt_runs
        .iter()
        .map(|r| r.policy)
        .collect();
    ui.section.set_hidden(runs.len() < 2);
    if runs.len() < 2 {
        return;
    }
    let options: String = runs
        .iter()
        .map(|p| {
            format!(
                r#"<option value="{}">{}</option>"#,
                p.as_str(),
                escape(policy_label(*p))
            )
        })
        .collect();
    ui.a.set_inner_html(&options);
    ui.b.set_inner_html(&options);
    ui.a.set_selected_index(0);
    ui.b.set_selected_index(1);
    draw(app);
}

/// Hides the comparison (a sweep is on screen).
pub(super) fn hide(app: &App) {
    app.ui.compare.section.set_hidden(true);
    app.state.borrow_mut().comparison = None;
}

/// The comparison of the runs picked in the two selects.
pub(super) fn draw(app: &App) {
    let ui = &app.ui.compare;
    let pick = |s: &web_sys::HtmlSelectElement| {
        let wanted = s.value();
        app.state
            .borrow()
            .gantt_runs
            .iter()
            .find(|r| r.policy.as_str() == wanted)
            .cloned()
    };
    let (Some(a), Some(b)) = (pick(&ui.a), pick(&ui.b)) else {
        return;
    };
    let (la, lb) = (policy_label(a.policy), policy_label(b.policy));
    let summary = |r: &GanttRun| Summary::from_records(&r.jobs, r.procs, 0);
    let c = match compare(&summary(&a), &a.jobs, &summary(&b), &b.jobs) {
        Ok(c) => c,
        Err(e) => {
            ui.summary.set_text_content(Some(&e.to_string()));
            return;
        }
    };
    ui.summary.set_text_content(Some(&format!(
        "{lb} against {la}: {} of {} jobs start earlier under {lb}, {} later, {} at the same \
         time.",
        format::count(c.earlier as u64),
        format::count(c.jobs.len() as u64),
        format::count(c.later as u64),
        format::count(c.same as u64)
    )));
    ui.metrics.set_inner_html(&metrics_html(&c, la, lb));
    let svg = if c.earlier + c.later > 0 {
        match chart::draw_shift_histogram("chart-compare", &c.histogram(BINS), la, lb) {
            Ok(svg) => Some(svg),
            Err(m) => {
                show_error(&format!("The comparison chart could not be drawn: {m}"));
                None
            }
        }
    } else {
        clear_canvas(&app.ui.doc, "chart-compare");
        None
    };
    png_link(&app.ui, "chart-compare", svg.is_some());
    svg_link(app, "chart-compare", svg.as_deref());
    let csv = app
        .state
        .borrow_mut()
        .downloads
        .url(&c.csv(), "text/csv;charset=utf-8");
    crate::web::kit::export::show_link(&ui.csv, csv);
    table(app, &c);
    app.state.borrow_mut().comparison = Some(c);
}

/// The metric rows: A, B, B − A and the change in %.
fn metrics_html(c: &RunComparison, la: &str, lb: &str) -> String {
    let mut h = format!(
        "<thead><tr><th>Metric</th><th>{}</th><th>{}</th><th>B − A</th><th>Change</th></tr>\
         </thead><tbody>",
        escape(&format!("A: {la}")),
        escape(&format!("B: {lb}"))
    );
    for m in &c.metrics {
        h.push_str(&format!(
            "<tr data-key=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            m.key,
            escape(m.label),
            metric_text(m.key, m.a, false),
            metric_text(m.key, m.b, false),
            metric_text(m.key, m.change, true),
            m.percent.map_or("—".to_string(), |p| format!("{p:+.1} %")
                .replace('-', "−"))
        ));
    }
    h.push_str("</tbody>");
    h
}

/// The job table, sorted by the chosen column, first [`MAX_ROWS`] rows.
fn table(app: &App, c: &RunComparison) {
    let ui = &app.ui.compare;
    let (col, asc) = ui.sort.get();
    let head: String = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mark = match (i == col, asc) {
                (true, true) => " ▲",
                (true, false) => " ▼",
                _ => "",
            };
            format!(
                r#"<th data-col="{i}" title="Sort by this column">{}{mark}</th>"#,
                escape(name)
            )
        })
        .collect();
    ui.head.set_inner_html(&format!("<tr>{head}</tr>"));
    let key = |j: &crate::metrics::compare::JobDelta| match col {
        0 => j.id as f64,
        1 => f64::from(j.procs),
        2 => j.submit,
        3 => j.start_a,
        4 => j.start_b,
        _ => j.shift,
    };
    let mut rows: Vec<_> = c.jobs.iter().collect();
    rows.sort_by(|x, y| {
        let o = key(x).total_cmp(&key(y)).then(x.id.cmp(&y.id));
        if asc {
            o
        } else {
            o.reverse()
        }
    });
    let body: String = rows
        .iter()
        .take(MAX_ROWS)
        .map(|j| {
            let class = if j.shift < 0.0 {
                "earlier"
            } else if j.shift > 0.0 {
                "later"
            } else {
                ""
            };
            format!(
                r#"<tr class="{class}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                j.id,
                format::count(u64::from(j.procs)),
                format::duration(j.submit),
                format::duration(j.start_a),
                format::duration(j.start_b),
                signed_duration(j.shift)
            )
        })
        .collect();
    ui.body.set_inner_html(&body);
    ui.note.set_text_content(Some(&format!(
        "Showing {} of {} jobs; click a column to sort. The CSV has every job.",
        format::count(rows.len().min(MAX_ROWS) as u64),
        format::count(rows.len() as u64)
    )));
}

/// A metric's value as the results table shows it: times as durations, utilisation in %,
/// slowdowns with two decimals; `signed` for a difference.
fn metric_text(key: &str, v: f64, signed: bool) -> String {
    let sign = if signed && v > 0.0 { "+" } else { "" };
    match key {
        "utilization" if signed => {
            format!("{sign}{} points", format::fixed(v * 100.0, 1)).replace('-', "−")
        }
        "utilization" => format!("{} %", format::fixed(v * 100.0, 1)),
        "mean_bounded_slowdown" => format!("{sign}{}", format::fixed(v, 2)).replace('-', "−"),
        _ if signed => signed_duration(v),
        _ => format::duration(v),
    }
}

/// A shift with its sign ("−2.5 h", "+10 s", "0 s").
fn signed_duration(d: f64) -> String {
    if d < 0.0 {
        format!("−{}", format::duration(-d))
    } else if d > 0.0 {
        format!("+{}", format::duration(d))
    } else {
        format::duration(0.0)
    }
}

/// Redraws on a change of either run; sorts on a click in the table's head.
pub(super) fn wire(app: &Rc<App>) {
    let ui = &app.ui.compare;
    for select in [&ui.a, &ui.b] {
        let app = Rc::clone(app);
        listen(select.as_ref(), "change", move |_: Event| draw(&app));
    }
    let app2 = Rc::clone(app);
    listen(ui.head.as_ref(), "click", move |ev: Event| {
        sort_click(&app2, &ev)
    });
}

/// Sorts by the clicked column (again: reverses the order).
fn sort_click(app: &App, ev: &Event) {
    let Some(col) = ev
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .and_then(|e| e.closest("th[data-col]").ok().flatten())
        .and_then(|th| th.get_attribute("data-col"))
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let ui = &app.ui.compare;
    let (old, asc) = ui.sort.get();
    ui.sort.set((col, if old == col { !asc } else { true }));
    let c = app.state.borrow_mut().comparison.take();
    if let Some(c) = c {
        table(app, &c);
        app.state.borrow_mut().comparison = Some(c);
    }
}

/// Blanks a canvas (no chart to show).
fn clear_canvas(doc: &Document, id: &str) {
    if let Ok(canvas) = by_id::<web_sys::HtmlCanvasElement>(doc, id) {
        if let Ok(Some(ctx)) = canvas.get_context("2d") {
            if let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() {
                ctx.clear_rect(
                    0.0,
                    0.0,
                    f64::from(canvas.width()),
                    f64::from(canvas.height()),
                );
            }
        }
    }
}
