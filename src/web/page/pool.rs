//! The flat page's load-factor sweeps: a pool of workers runs the (load factor, policy)
//! points in parallel; progress, results and the sweep chart as they finish.

use super::*;
use crate::web::worker_link::{post_trace_to, start_worker};

/// Starts the sweep's worker pool: up to `navigator.hardwareConcurrency` workers (at most
/// [`MAX_POOL`], at most one per point), each running points until none is left.
pub(super) fn start_pool(app: &Rc<App>, points: usize) {
    stop_pool(app);
    let cores = web_sys::window()
        .and_then(|w| {
            js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("hardwareConcurrency")).ok()
        })
        .and_then(|v| v.as_f64())
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map(|c| c as usize)
        .unwrap_or(2);
    let n = cores.min(MAX_POOL).min(points).max(1);
    let gen = app.pool_gen.get();
    for i in 0..n {
        let on_message = {
            let app = Rc::clone(app);
            move |msg: Result<FromWorker, String>| {
                if app.pool_gen.get() != gen {
                    return;
                }
                match msg {
                    Ok(msg) => on_pool_message(&app, i, msg),
                    Err(m) => {
                        show_error(&m);
                        end_batch(&app, "Stopped by an error.");
                    }
                }
            }
        };
        let on_error = {
            let app = Rc::clone(app);
            move |message: String| {
                if app.pool_gen.get() != gen {
                    return;
                }
                show_error(&format!("A sweep simulator failed: {message}"));
                end_batch(&app, "Stopped: a simulator failed.");
            }
        };
        let worker = match start_worker(on_message, Some(Box::new(on_error))) {
            Ok(w) => w,
            Err(e) => {
                if i == 0 {
                    show_error(&format!("The sweep's simulators could not be started: {e}"));
                    end_batch(app, "Stopped: no simulator for the sweep.");
                    return;
                }
                break;
            }
        };
        app.pool.borrow_mut().push(PoolWorker {
            worker,
            running: None,
        });
    }
    sweep_progress(app);
}

/// Terminates the pool's workers (their late messages are ignored).
pub(super) fn stop_pool(app: &App) {
    app.pool_gen.set(app.pool_gen.get().wrapping_add(1));
    for w in app.pool.borrow_mut().drain(..) {
        w.worker.terminate();
    }
}

/// "Sweep: points done / total" in the progress bar.
pub(super) fn sweep_progress(app: &App) {
    let st = app.state.borrow();
    let Some(b) = st.batch.as_ref() else {
        return;
    };
    let total = b.runs.len();
    let workers = app.pool.borrow().len();
    app.ui.progress.set_max(total.max(1) as f64);
    app.ui.progress.set_value(b.finished as f64);
    let elapsed = (js_sys::Date::now() - b.started) / 1000.0;
    let eta = if b.finished > 0 && b.finished < total {
        let left = elapsed / b.finished as f64 * (total - b.finished) as f64;
        format!(" · about {} s left", format::fixed(left, 0))
    } else {
        String::new()
    };
    app.ui.progress_label.set_text_content(Some(&format!(
        "Sweep: {} / {} points done · {} worker{}{eta}",
        b.finished,
        total,
        workers,
        if workers == 1 { "" } else { "s" }
    )));
}

/// Hands pool worker `i` the next point of the sweep, if one is left.
pub(super) fn dispatch(app: &App, i: usize) {
    let msg = {
        let mut guard = app.state.borrow_mut();
        let st = &mut *guard;
        let Some(b) = st.batch.as_mut().filter(|b| b.sweep.is_some()) else {
            return;
        };
        if b.next >= b.runs.len() {
            return;
        }
        let index = b.next;
        b.next += 1;
        st.next_id += 1;
        let id = st.next_id;
        if let Some(w) = app.pool.borrow_mut().get_mut(i) {
            w.running = Some((id, index));
        }
        ToWorker::run_flat(id, b.runs[index].1.clone(), b.trace.clone(), None)
    };
    if let Some(w) = app.pool.borrow().get(i) {
        let _ = w.worker.post_message(&JsValue::from_str(&msg.to_json()));
    }
}

pub(super) fn on_pool_message(app: &Rc<App>, i: usize, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            // With a trace, the worker first gets the file; it runs once it has read it.
            let trace = {
                let st = app.state.borrow();
                let wanted = st.batch.as_ref().and_then(|b| b.trace.clone());
                wanted.and_then(|name| {
                    st.trace
                        .as_ref()
                        .filter(|t| t.info.name == name)
                        .map(|t| (name, t.file.clone()))
                })
            };
            match trace {
                Some((name, file)) => {
                    if let Some(w) = app.pool.borrow().get(i) {
                        post_trace_to(&w.worker, &name, &file);
                    }
                }
                None => dispatch(app, i),
            }
        }
        FromWorker::TraceLoaded(_) => dispatch(app, i),
        FromWorker::Progress { .. } | FromWorker::Cancelled { .. } => {}
        FromWorker::Exported { .. }
        | FromWorker::Schedule { .. }
        | FromWorker::Compared { .. }
        | FromWorker::ComparedCsv { .. }
        | FromWorker::ReplayWindow { .. }
        | FromWorker::CompareFailed { .. }
        | FromWorker::ReplayFailed { .. }
        | FromWorker::ExerciseDone { .. }
        | FromWorker::Held { .. } => {}
        FromWorker::Done { id, report } => {
            let PageReport::Flat(report) = *report else {
                return;
            };
            let running = app.pool.borrow().get(i).and_then(|w| w.running);
            let Some((_, index)) = running.filter(|(rid, _)| *rid == id) else {
                return;
            };
            if let Some(w) = app.pool.borrow_mut().get_mut(i) {
                w.running = None;
            }
            let complete = {
                let mut st = app.state.borrow_mut();
                let Some(b) = st.batch.as_mut().filter(|b| b.sweep.is_some()) else {
                    return;
                };
                if let Some(slot) = b.points.get_mut(index) {
                    *slot = Some(serde_json::to_value(&report.output.summary).unwrap_or_default());
                }
                b.finished += 1;
                b.wall_ms += report.wall_ms;
                b.finished == b.runs.len()
            };
            sweep_progress(app);
            if complete {
                finish_sweep(app);
            } else {
                dispatch(app, i);
            }
        }
        FromWorker::Error { message, .. } => {
            show_error(&message);
            end_batch(app, "Stopped by an error.");
        }
    }
}

/// All points of the sweep are in: the table (one row per policy and load factor), the
/// chart, the downloads and the share link.
pub(super) fn finish_sweep(app: &Rc<App>) {
    stop_pool(app);
    let (rows, axis) = {
        let mut st = app.state.borrow_mut();
        let Some(b) = st.batch.as_mut() else {
            return;
        };
        let axis = b.sweep.map(|s| s.axis).unwrap_or_default();
        let rows: Vec<(PolicyKind, f64, serde_json::Value)> = b
            .runs
            .iter()
            .zip(&b.points)
            .map(|((p, e), s)| (*p, axis.value_of(e), s.clone().unwrap_or_default()))
            .collect();
        b.done = rows.iter().map(|(p, _, s)| (*p, 0, s.clone())).collect();
        b.rows = rows.len();
        (rows, axis)
    };
    let ui = &app.ui;
    ui.results_body.set_inner_html("");
    render_head(ui, Some(axis));
    if let Some(caption) = app.state.borrow().batch.as_ref().map(|b| b.caption.clone()) {
        ui.caption.set_text_content(Some(&caption));
    }
    ui.empty.set_hidden(true);
    for (p, lf, s) in &rows {
        add_row(ui, *p, Some(*lf), s);
    }
    {
        let mut st = app.state.borrow_mut();
        st.sweep_rows = rows;
        st.sweep_x = axis.key().to_string();
        st.sweep_lines = None;
        st.gantt_runs.clear();
        st.gantt_ids.clear();
        st.gantt_pending = None;
    }
    fill_sweep_metrics(ui, None, "mean_wait");
    finish_batch(
        app,
        |b| js_sys::Date::now() - b.started,
        |n, ms| {
            format!(
                "Done: sweep of {n} runs in {} s.",
                format::fixed(ms / 1000.0, 2)
            )
        },
    );
}
