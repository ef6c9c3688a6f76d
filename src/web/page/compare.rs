//! The flat page's run comparison: pick two finished runs of the batch on
//! screen (same workload, different policies) and see which jobs run B started earlier or later
//! than run A and by how much — a histogram, a sortable table and a CSV of every job — and
//! the differences of the summary metrics ([`crate::metrics::compare`]).
//!
//! Runs with per-job records on the page (at most `MAX_JOB_RECORDS` jobs) are compared here;
//! larger runs are compared by the worker, which keeps the last finished runs: the page asks
//! for the view of two of them ([`ToWorker::Compare`]: counts, metrics, histogram, the first
//! rows in the order chosen), asks again on a click on a column, and asks for the CSV of every
//! job when its link is clicked. Both paths show the same [`ComparisonView`]. After a batch
//! the worker is asked only once the card has come into view (or the user picked runs or a
//! sort order): until then it says the comparison is on its way, and a batch that ends with the
//! card below the fold costs the worker no comparison.

use super::*;
use crate::metrics::compare::{compare, MetricDelta};
use crate::metrics::compare_view::{ComparisonView, SortOrder, COLUMNS};
use crate::metrics::Summary;
use crate::web::protocol::{COMPARE_BINS as BINS, COMPARE_ROWS as MAX_ROWS};

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
    /// The table's order.
    sort: Cell<SortOrder>,
    /// The runs are compared by the worker (too large for per-job records on the page): the
    /// runs offered, by policy, with their run ids.
    remote: RefCell<Vec<(PolicyKind, u32)>>,
    /// The runs (A, B) whose comparison was asked of the worker and not yet received.
    pending: Cell<Option<(u32, u32)>>,
    /// Holds a comparison until the card is seen (in view, focused, or the user picked runs or
    /// an order) since the batch's runs were offered.
    gate: SeenGate,
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
            sort: Cell::new(SortOrder::default()),
            remote: RefCell::new(Vec::new()),
            pending: Cell::new(None),
            gate: SeenGate::new(),
        })
    }
}

/// After a batch: offers its runs (at least two) as A and B — the first two by default — and
/// draws their comparison; hides the section otherwise. Runs without per-job records on the
/// page are compared by the worker.
pub(super) fn fill(app: &App) {
    let ui = &app.ui.compare;
    let (local, all): (Vec<PolicyKind>, Vec<(PolicyKind, u32)>) = {
        let st = app.state.borrow();
        (
            st.gantt_runs.iter().map(|r| r.policy).collect(),
            st.gantt_ids.clone(),
        )
    };
    let remote = local.len() < all.len();
    let runs: Vec<PolicyKind> = if remote {
        all.iter().map(|(p, _)| *p).collect()
    } else {
        local
    };
    *ui.remote.borrow_mut() = if remote { all } else { Vec::new() };
    ui.pending.set(None);
    ui.gate.reset();
    app.state.borrow_mut().comparison = None;
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
    app.ui.compare.pending.set(None);
    app.ui.compare.gate.drop_held();
    app.ui.compare.remote.borrow_mut().clear();
    app.state.borrow_mut().comparison = None;
}

/// The runs picked as A and B among those the worker compares: policy and run id.
fn picked(ui: &CompareUi) -> Option<((PolicyKind, u32), (PolicyKind, u32))> {
    let runs = ui.remote.borrow();
    let find = |s: &web_sys::HtmlSelectElement| {
        let wanted = s.value();
        runs.iter().find(|(p, _)| p.as_str() == wanted).copied()
    };
    Some((find(&ui.a)?, find(&ui.b)?))
}

/// The comparison of the runs picked in the two selects: computed here for runs with per-job
/// records, asked of the worker otherwise.
pub(super) fn draw(app: &App) {
    let ui = &app.ui.compare;
    if !ui.remote.borrow().is_empty() {
        ask(app);
        return;
    }
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
    let summary = |r: &GanttRun| Summary::from_records(&r.jobs, r.procs, 0);
    let c = match compare(&summary(&a), &a.jobs, &summary(&b), &b.jobs) {
        Ok(c) => c,
        Err(e) => {
            ui.summary.set_text_content(Some(&e.to_string()));
            return;
        }
    };
    let csv = app
        .state
        .borrow_mut()
        .downloads
        .url(&c.csv(), "text/csv;charset=utf-8");
    crate::web::kit::export::show_link(&ui.csv, csv);
    render(
        app,
        &ComparisonView::of(&c, ui.sort.get(), MAX_ROWS, BINS),
        a.policy,
        b.policy,
    );
    app.state.borrow_mut().comparison = Some(c);
}

/// The run ids of the runs picked, for a comparison by the worker.
fn remote_ids(ui: &CompareUi) -> Option<(u32, u32)> {
    picked(ui).map(|((_, a), (_, b))| (a, b))
}

/// Asks the worker for the comparison of the runs picked, in the table's order; the section
/// says it is on its way until [`show_remote`] draws it. Until the card is seen the question
/// is held, the previous batch's comparison cleared (the gate in [`wire`] asks it).
fn ask(app: &App) {
    let ui = &app.ui.compare;
    let Some((a, b)) = remote_ids(ui) else {
        return;
    };
    let _ = ui.section.set_attribute("aria-busy", "true");
    ui.note
        .set_text_content(Some("Comparing the runs job by job in the simulator…"));
    if !ui.gate.pass() {
        // Asked once the card is seen (the gate's release in [`wire`]).
        ui.pending.set(None);
        ui.summary.set_text_content(None);
        ui.metrics.set_inner_html("");
        ui.body.set_inner_html("");
        ui.csv.set_hidden(true);
        clear_canvas(&app.ui.doc, "chart-compare");
        return;
    }
    ui.pending.set(Some((a, b)));
    app.tab.worker.post(&ToWorker::Compare {
        a,
        b,
        sort: ui.sort.get(),
    });
}

/// Draws the comparison of runs `a` and `b` sent by the worker, if it is still the one asked.
pub(super) fn show_remote(app: &App, a: u32, b: u32, view: &ComparisonView) {
    let ui = &app.ui.compare;
    if ui.pending.get() != Some((a, b)) || remote_ids(ui) != Some((a, b)) {
        return;
    }
    ui.pending.set(None);
    let _ = ui.section.remove_attribute("aria-busy");
    let Some(((pa, _), (pb, _))) = picked(ui) else {
        return;
    };
    // The CSV is made by the worker when its link is clicked ([`ask_csv`]).
    ui.csv.set_href("#");
    ui.csv.set_hidden(false);
    render(app, view, pa, pb);
}

/// Runs `a` and `b` could not be compared by the worker (a run no longer kept): says why
/// instead of the comparison.
pub(super) fn show_failure(app: &App, a: u32, b: u32, message: &str) {
    let ui = &app.ui.compare;
    if remote_ids(ui) != Some((a, b)) {
        return;
    }
    ui.pending.set(None);
    let _ = ui.section.remove_attribute("aria-busy");
    ui.summary.set_text_content(Some(message));
    ui.metrics.set_inner_html("");
    ui.body.set_inner_html("");
    ui.note.set_text_content(None);
    ui.csv.set_hidden(true);
    clear_canvas(&app.ui.doc, "chart-compare");
}

/// A click on the CSV link of a comparison made by the worker: asks for the file
/// ([`save_csv`] downloads it).
fn ask_csv(app: &App, ev: &Event) {
    let ui = &app.ui.compare;
    if ui.remote.borrow().is_empty() {
        return;
    }
    ev.prevent_default();
    if let Some((a, b)) = remote_ids(ui) {
        hide_error();
        app.tab.worker.post(&ToWorker::CompareCsv { a, b });
    }
}

/// Downloads the CSV of the comparison sent by the worker.
pub(super) fn save_csv(app: &App, text: &str) {
    super::results::save_text(app, text, "text/csv;charset=utf-8", "schedlab-compare.csv");
}

/// Shows `view`, the comparison of run B (policy `pb`) against run A (`pa`).
fn render(app: &App, view: &ComparisonView, pa: PolicyKind, pb: PolicyKind) {
    let ui = &app.ui.compare;
    let (la, lb) = (policy_label(pa), policy_label(pb));
    ui.summary.set_text_content(Some(&format!(
        "{lb} against {la}: {} of {} jobs start earlier under {lb}, {} later, {} at the same \
         time.",
        format::count(view.earlier as u64),
        format::count(view.jobs as u64),
        format::count(view.later as u64),
        format::count(view.same as u64)
    )));
    ui.metrics
        .set_inner_html(&metrics_html(&view.metric_deltas(), la, lb));
    let svg = if view.earlier + view.later > 0 {
        match chart::draw_shift_histogram("chart-compare", &view.histogram, la, lb) {
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
    table(app, view);
}

/// The metric rows: A, B, B − A and the change in %.
fn metrics_html(metrics: &[MetricDelta], la: &str, lb: &str) -> String {
    let mut h = format!(
        "<thead><tr><th>Metric</th><th>{}</th><th>{}</th><th>B − A</th><th>Change</th></tr>\
         </thead><tbody>",
        escape(&format!("A: {la}")),
        escape(&format!("B: {lb}"))
    );
    for m in metrics {
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

/// The job table: the rows of `view` (the first [`MAX_ROWS`] in the chosen order).
fn table(app: &App, view: &ComparisonView) {
    let ui = &app.ui.compare;
    let SortOrder {
        column: col,
        ascending: asc,
    } = ui.sort.get();
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
    let rows = &view.rows;
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
                r#"<tr class="{class}" data-job="{}" data-start-a="{}" data-start-b="{}" data-shift="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                j.id,
                j.start_a,
                j.start_b,
                j.shift,
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
        format::count(view.jobs as u64)
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

/// Redraws on a change of either run; sorts on a click in the table's head; asks a comparison
/// held when the card comes into view or takes the focus.
pub(super) fn wire(app: &Rc<App>) {
    let ui = &app.ui.compare;
    for select in [&ui.a, &ui.b] {
        let app = Rc::clone(app);
        listen(select.as_ref(), "change", move |_: Event| {
            app.ui.compare.gate.see();
            draw(&app)
        });
    }
    {
        let weak = Rc::downgrade(app);
        ui.gate.watch(&ui.section, move || {
            if let Some(app) = weak.upgrade() {
                ask(&app);
            }
        });
    }
    let app2 = Rc::clone(app);
    listen(ui.head.as_ref(), "click", move |ev: Event| {
        sort_click(&app2, &ev)
    });
    let app3 = Rc::clone(app);
    listen(ui.csv.as_ref(), "click", move |ev: Event| {
        ask_csv(&app3, &ev)
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
    ui.gate.see();
    let old = ui.sort.get();
    ui.sort.set(SortOrder {
        column: col,
        ascending: if old.column == col {
            !old.ascending
        } else {
            true
        },
    });
    if !ui.remote.borrow().is_empty() {
        ask(app);
        return;
    }
    let view = app
        .state
        .borrow()
        .comparison
        .as_ref()
        .map(|c| ComparisonView::of(c, ui.sort.get(), MAX_ROWS, BINS));
    if let Some(view) = view {
        table(app, &view);
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
