//! The flat page's charts ([`crate::web::chart`]): utilisation, queue, waits, the Gantt chart
//! with hover, the sweep chart, and their PNG/SVG links; the step-by-step replay of the
//! explained runs ([`crate::web::replay_panel`]).

use super::*;
use crate::web::kit::export::{png_on_click, show_link};
use crate::web::protocol::Beside;

/// After a completed batch, first step: the time charts of its runs (or the sweep chart).
/// [`show_run_details`] is the second step.
pub(super) fn draw_charts(app: &App) {
    app.ui.charts.set_hidden(false);
    let sweep = is_sweep(app);
    app.ui.sweep_chart.set_hidden(!sweep);
    app.ui.time_charts.set_hidden(sweep);
    app.ui.gantt_section.set_hidden(sweep);
    if sweep {
        app.ui.per_job_note.set_hidden(true);
        compare::hide(app);
        app.replay.hide();
        draw_sweep_chart(app);
        return;
    }
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref() else {
        return;
    };
    let series: Vec<chart::Series<'_>> = b
        .done
        .iter()
        .zip(&b.charts)
        .map(|((policy, _, _), data)| chart::Series {
            policy: *policy,
            data,
        })
        .collect();
    let drawn = chart::draw_all(&series);
    drop(st);
    // (The links are made after the state is released: they record their object URLs in it.)
    let ids = ["chart-util", "chart-queue", "chart-wait"];
    match drawn {
        Ok(svgs) => {
            for (id, svg) in ids.iter().zip(&svgs) {
                svg_link(app, id, Some(svg));
            }
        }
        Err(m) => show_error(&format!("The charts could not be drawn: {m}")),
    }
    for id in ids {
        png_link(&app.ui, id, true);
    }
}

/// After a completed batch, second step (after [`draw_charts`]): the Gantt chart and its run
/// picker, the comparison of two runs and the step-by-step replay. Nothing for a sweep.
pub(super) fn show_run_details(app: &App) {
    if is_sweep(app) {
        return;
    }
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref() else {
        return;
    };
    let runs: Vec<GanttRun> = b
        .done
        .iter()
        .zip(b.charts.iter().zip(b.records.iter().zip(&b.why)))
        .zip(&b.explanations)
        .filter_map(|(((p, _, _), (c, (r, why))), log)| {
            r.as_ref().map(|r| GanttRun {
                policy: *p,
                procs: c.procs,
                jobs: Rc::clone(r),
                why: why.clone(),
                explanations: log.clone(),
            })
        })
        .collect();
    let replays: Vec<ReplayRun> = runs
        .iter()
        .filter_map(|r| {
            let log = r.explanations.as_ref()?;
            let replay =
                crate::sim::replay::Replay::new(r.procs, (*r.jobs).clone(), (**log).clone());
            Some(ReplayRun::new(
                policy_label(r.policy).to_string(),
                Some(r.policy),
                replay,
            ))
        })
        .collect();
    let ids: Vec<(PolicyKind, u32)> = b.done.iter().map(|&(p, id, _)| (p, id)).collect();
    // Runs too large for per-job records on the page: the worker compares them and sends
    // their replay window by window, from the runs it keeps.
    let largest = b
        .done
        .iter()
        .zip(&b.records)
        .filter(|(_, r)| r.is_none())
        .filter_map(|((_, _, summary), _)| summary.get("jobs").and_then(|v| v.as_u64()))
        .max();
    let mut replays = replays;
    match largest {
        Some(n) => {
            replays = b
                .done
                .iter()
                .zip(&b.charts)
                .map(|(&(p, id, _), c)| {
                    ReplayRun::windowed(policy_label(p).to_string(), Some(p), c.procs, id)
                })
                .collect();
            let (what, these) = if b.done.len() == 1 {
                ("This run has", "it")
            } else {
                ("These runs have", "them")
            };
            app.ui.per_job_note.set_text_content(Some(&format!(
                "{what} {} jobs: the simulator compares runs job by job when asked and sends \
                 the replay a stretch of time at a time. It keeps the last {} runs; after more \
                 runs, run {these} again to compare or replay {these}.",
                format::count(n),
                crate::web::protocol::KEPT_RUNS
            )));
            app.ui.per_job_note.set_hidden(false);
        }
        None => app.ui.per_job_note.set_hidden(true),
    }
    let mut options = String::new();
    for (p, _) in &ids {
        options.push_str(&format!(
            r#"<option value="{}">{}</option>"#,
            p.as_str(),
            escape(policy_label(*p))
        ));
    }
    drop(st);
    app.ui.gantt_policy.set_inner_html(&options);
    {
        let mut st = app.state.borrow_mut();
        st.gantt_runs = runs;
        st.gantt_ids = ids;
    }
    draw_gantt(app);
    compare::fill(app);
    app.replay.show(replays);
}

/// Asks the worker for the schedule of the run picked in the selector (every run, whatever its
/// size); [`show_schedule`] draws it when it comes.
pub(super) fn draw_gantt(app: &App) {
    let ui = &app.ui;
    let wanted = ui.gantt_policy.value();
    let id = app
        .state
        .borrow()
        .gantt_ids
        .iter()
        .find(|(p, _)| p.as_str() == wanted)
        .map(|&(_, id)| id);
    let shown = id.is_some();
    ui.gantt_box.set_hidden(!shown);
    ui.gantt_policy.set_hidden(!shown);
    if let Some(label) = ui
        .doc
        .get_element_by_id("gantt-label")
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        label.set_hidden(!shown);
    }
    png_link(ui, "chart-gantt", shown);
    app.state.borrow_mut().gantt_pending = id;
    match id {
        Some(id) => {
            ui.gantt_note
                .set_text_content(Some("Drawing the schedule of every job…"));
            app.tab.worker.post(&ToWorker::Schedule { id });
        }
        None => {
            app.gantt.clear();
            ui.gantt_note.set_text_content(Some(""));
        }
    }
}

/// Draws the schedule of run `id` sent by the worker
/// ([`crate::metrics::gantt::Schedule::encode`]'s bytes), if it is still the run asked for.
pub(super) fn show_schedule(app: &Rc<App>, id: u32, bytes: &Beside) {
    let run = {
        let mut st = app.state.borrow_mut();
        if st.gantt_pending != Some(id) {
            return;
        }
        st.gantt_pending = None;
        let policy = st.gantt_ids.iter().find(|(_, i)| *i == id).map(|&(p, _)| p);
        policy.map(|p| {
            let why = st
                .gantt_runs
                .iter()
                .find(|r| r.policy == p)
                .and_then(|r| r.why.clone());
            (p, why)
        })
    };
    let Some((policy, why)) = run else {
        return;
    };
    // Decoding and drawing a run of hundreds of thousands of jobs are two main-thread tasks
    // (`defer`), each short enough for the page to take input between them; a schedule asked
    // for since is drawn instead. The worker laid the jobs out; the columns and the layout are
    // read straight from the message's bytes, a piece at a time.
    let s = match crate::metrics::gantt::Schedule::decode_with(bytes.len(), |at, dst| {
        bytes.read(at, dst)
    }) {
        Ok(s) => s,
        Err(e) => {
            show_error(&format!("The Gantt chart could not be drawn: {e}"));
            return;
        }
    };
    let app = Rc::clone(app);
    defer(move || {
        if app.state.borrow().gantt_pending.is_some() {
            return;
        }
        let title = format!(
            "Schedule of {} ({} jobs)",
            crate::base::Registered::entry(policy).short,
            format::count(s.len() as u64)
        );
        let keys = "Wheel, drag, the buttons or the keys (← → pan, + − zoom, 0 the whole run) \
                    on the chart; hover a job for its details";
        let note = if why.is_some() {
            format!("{keys} and why it waited and started when it did.")
        } else {
            format!("{keys}.")
        };
        app.ui.gantt_note.set_text_content(Some(&note));
        app.gantt.show(Rc::new(s), title, why);
    });
}

/// Makes every link `png-{canvas id}` of the flat page (`a[id^="png-chart-"]` in index.html)
/// download its canvas, encoded when clicked.
pub(super) fn wire_png_links(ui: &Ui) {
    let Ok(links) = ui.doc.query_selector_all(r#"a[id^="png-chart-"]"#) else {
        return;
    };
    for i in 0..links.length() {
        if let Some(link) = links
            .get(i)
            .and_then(|n| n.dyn_into::<HtmlAnchorElement>().ok())
        {
            let id = link.id();
            png_on_click(&link, id.trim_start_matches("png-"));
        }
    }
}

/// Shows the link `png-{canvas_id}` (the PNG is made when it is clicked), or hides it.
pub(super) fn png_link(ui: &Ui, canvas_id: &str, shown: bool) {
    if let Ok(link) = by_id::<HtmlAnchorElement>(&ui.doc, &format!("png-{canvas_id}")) {
        link.set_hidden(!shown);
    }
}

/// Points the link `svg-{canvas_id}` at `svg` (hidden when `None`).
pub(super) fn svg_link(app: &App, canvas_id: &str, svg: Option<&str>) {
    if let Ok(link) = by_id(&app.ui.doc, &format!("svg-{canvas_id}")) {
        let url = svg.and_then(|s| app.state.borrow_mut().downloads.url(s, "image/svg+xml"));
        show_link(&link, url);
    }
}

/// Draws "metric vs. axis" of the sweep on screen (load factor, seed, jobs, or a merged
/// file's axis), for the metric in the picker.
pub(super) fn draw_sweep_chart(app: &App) {
    let key = app.ui.sweep_metric.value();
    if app.state.borrow().sweep_lines.is_some() {
        draw_merged_lines(app, &key);
        return;
    }
    let Some(col) = COLUMNS.iter().find(|c| c.key == key) else {
        return;
    };
    let scale = if col.kind == Kind::Percent {
        100.0
    } else {
        1.0
    };
    let lines = {
        let st = app.state.borrow();
        let mut lines: Vec<(PolicyKind, Vec<(f64, f64)>)> = Vec::new();
        for (p, lf, summary) in &st.sweep_rows {
            let y = summary
                .get(col.key)
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN)
                * scale;
            if !y.is_finite() {
                continue;
            }
            match lines.iter_mut().find(|(q, _)| q == p) {
                Some((_, pts)) => pts.push((*lf, y)),
                None => lines.push((*p, vec![(*lf, y)])),
            }
        }
        lines
    };
    if lines.is_empty() {
        return;
    }
    let x_desc = x_description(&app.state.borrow().sweep_x);
    match chart::draw_sweep(col.label, col.unit, &x_desc, &lines) {
        Ok(svg) => svg_link(app, "chart-sweep", Some(&svg)),
        Err(m) => show_error(&format!("The sweep chart could not be drawn: {m}")),
    }
    png_link(&app.ui, "chart-sweep", true);
}

/// The x axis' description for a sweep axis key.
fn x_description(key: &str) -> String {
    match SweepAxis::parse(key) {
        Some(SweepAxis::LoadFactor) => "Load factor (× arrival rate)".to_string(),
        Some(a) => a.label().to_string(),
        None => key.to_string(),
    }
}

/// Draws an uploaded merged sweep of another mode than flat: metric `key` vs. its axis, a
/// line per allocator / strategy (colours in turn).
fn draw_merged_lines(app: &App, key: &str) {
    let (series, axis) = {
        let st = app.state.borrow();
        let Some(plot) = st.sweep_lines.as_ref() else {
            return;
        };
        let col = COLUMNS.iter().find(|c| c.key == key);
        let scale = if col.is_some_and(|c| c.kind == Kind::Percent) {
            100.0
        } else {
            1.0
        };
        (plot.series(key, scale), plot.axis.clone())
    };
    let curves: Vec<chart::Curve<'_>> = series
        .iter()
        .enumerate()
        .filter(|(_, (_, pts))| !pts.is_empty())
        .map(|(i, (label, pts))| chart::Curve {
            label: if label.is_empty() { key } else { label },
            colour: chart::series_colour(i),
            points: pts,
        })
        .collect();
    if curves.is_empty() {
        return;
    }
    let (label, unit) = COLUMNS
        .iter()
        .find(|c| c.key == key)
        .map_or((key, ""), |c| (c.label, c.unit));
    match chart::draw_sweep_curves(label, unit, &x_description(&axis), &curves) {
        Ok(svg) => svg_link(app, "chart-sweep", Some(&svg)),
        Err(m) => show_error(&format!("The sweep chart could not be drawn: {m}")),
    }
    png_link(&app.ui, "chart-sweep", true);
}

/// Fills the sweep's metric picker: the summary's columns (`None`), or an uploaded merged
/// sweep's metrics; keeps the metric shown when the new list has it, else `preferred`, else
/// the first.
pub(super) fn fill_sweep_metrics(ui: &Ui, metrics: Option<&[String]>, preferred: &str) {
    let current = ui.sweep_metric.value();
    let mut keys: Vec<(String, String)> = Vec::new();
    match metrics {
        None => {
            for c in COLUMNS.iter().filter(|c| c.kind != Kind::Count) {
                keys.push((c.key.to_string(), c.label.to_string()));
            }
        }
        Some(list) => {
            for k in list {
                let label = COLUMNS
                    .iter()
                    .find(|c| c.key == k)
                    .map_or(k.as_str(), |c| c.label);
                keys.push((k.clone(), label.to_string()));
            }
        }
    }
    let mut options = String::new();
    for (k, label) in &keys {
        options.push_str(&format!(
            r#"<option value="{}">{}</option>"#,
            escape(k),
            escape(label)
        ));
    }
    // The user's pick stays while the offered metrics stay the same; a file with other
    // metrics (a moldable merge after a flat one) starts from its preferred metric.
    let list: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    let list = list.join(" ");
    let same_list = ui.sweep_metric.get_attribute("data-keys").as_deref() == Some(list.as_str());
    let _ = ui.sweep_metric.set_attribute("data-keys", &list);
    ui.sweep_metric.set_inner_html(&options);
    let has = |k: &str| keys.iter().any(|(x, _)| x == k);
    let pick = if same_list && !current.is_empty() && has(&current) {
        current
    } else if has(preferred) {
        preferred.to_string()
    } else {
        keys.first().map(|(k, _)| k.clone()).unwrap_or_default()
    };
    ui.sweep_metric.set_value(&pick);
}
