//! The mesh view of a finished run ([`crate::web::mesh_view`]) at the playback's time
//! ([`crate::web::kit::playback`]: the time slider, play / step), hover, and the charts over
//! time and of the traffic-ratio sweep.

use super::*;
use crate::web::mesh_view::Heat;

pub(super) fn current_run(app: &App) -> usize {
    app.ui.run_pick.value().parse().unwrap_or(0)
}

pub(super) fn reset_time(app: &App) {
    let st = app.state.borrow();
    let Some(view) = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref()) else {
        return;
    };
    let (t0, t1) = (view.timeline.first(), view.timeline.last());
    let t = view.busiest_start(t0 + (t1 - t0) * 0.25, t0 + (t1 - t0) * 0.5);
    let note = if view.truncated {
        format!(
            "Only the first {} jobs of the run are drawn. Hover a node for its job.",
            format::count(view.jobs.len() as u64)
        )
    } else {
        "Hover a node for its job.".to_string()
    };
    app.ui.view_note.set_text_content(Some(&note));
    let timeline = view.timeline.clone();
    drop(st);
    app.playback.set_timeline(timeline, t);
}

/// What the heatmap shows for run `idx`: off, link load, or — for a wormhole run, when chosen
/// — blocked time per link. The blocked-time choice is offered only for runs that have it.
fn heat_choice(app: &App, idx: usize) -> Heat {
    let has_links = app
        .state
        .borrow()
        .runs
        .get(idx)
        .and_then(|r| r.view.as_ref())
        .is_some_and(|v| v.links.is_some());
    let kind = &app.ui.worm.heat_kind;
    if let Ok(Some(o)) = kind.query_selector("option[value=blocked]") {
        let _ = o.toggle_attribute_with_force("disabled", !has_links);
    }
    if !has_links && kind.value() == "blocked" {
        kind.set_value("load");
    }
    let _ = kind.set_attribute("data-available", if has_links { "blocked" } else { "load" });
    match (app.ui.heat.checked(), kind.value() == "blocked") {
        (false, _) => Heat::Off,
        (true, true) => Heat::Blocked,
        (true, false) => Heat::Load,
    }
}

pub(super) fn draw_view(app: &App) {
    if app.drawing.replace(true) {
        return;
    }
    let idx = current_run(app);
    let t = app.playback.time();
    let heat = heat_choice(app, idx);
    let tree = app.ui.tree.checked();
    let ctx = app
        .ui
        .canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    let drawn = {
        let st = app.state.borrow();
        match (st.runs.get(idx).and_then(|r| r.view.as_ref()), ctx) {
            (Some(view), Some(ctx)) => {
                let (cw, ch) = (
                    f64::from(app.ui.canvas.width()),
                    f64::from(app.ui.canvas.height()),
                );
                let (geo, occ) = view.draw(&ctx, cw, ch, t, heat, tree);
                let (running, waiting) = view.counts_at(t);
                let (t0, t1) = (view.timeline.first(), view.timeline.last());
                Some((geo, occ, running, waiting, t0, t1, view.unit))
            }
            _ => None,
        }
    };
    if let Some((geo, occ, running, waiting, t0, t1, unit)) = drawn {
        app.ui.time_label.set_text_content(Some(&format!(
            "t = {} {unit} (of {} – {}) · {running} running · {waiting} waiting",
            format::fixed(t, 2),
            format::fixed(t0, 2),
            format::fixed(t1, 2)
        )));
        let c = &app.ui.canvas;
        let _ = c.set_attribute("data-t", &t.to_string());
        let _ = c.set_attribute(
            "data-heat",
            match heat {
                Heat::Off => "off",
                Heat::Load => "load",
                Heat::Blocked => "blocked",
            },
        );
        let _ = c.set_attribute("data-running", &running.to_string());
        let _ = c.set_attribute("data-waiting", &waiting.to_string());
        // A busy node's centre in CSS pixels (for tests and tools: where to hover).
        let w = geo.width.max(1);
        let busy = occ.iter().position(Option::is_some).map(|i| {
            let (x, y) = ((i as u32 % w) + 1, (i as u32 / w) + 1);
            let (cx, cy) = geo.centre(x, y);
            let k = f64::from(c.client_width().max(1)) / f64::from(c.width().max(1));
            format!("{},{}", (cx * k).round(), (cy * k).round())
        });
        let _ = c.set_attribute("data-busy-node", &busy.unwrap_or_default());
        // For tests and tools: the job index on every node, row by row from the bottom (-1 free;
        // meshes up to 4096 nodes), and where node (x, y) is drawn: its centre in canvas pixels
        // is (ox + (x + 0.5) · cell, oy + (height + 1 − y + 0.5) · cell).
        let nodes = if occ.len() <= 4096 {
            occ.iter()
                .map(|o| o.map_or_else(|| "-1".to_string(), |i| i.to_string()))
                .collect::<Vec<_>>()
                .join(",")
        } else {
            String::new()
        };
        let _ = c.set_attribute("data-node-jobs", &nodes);
        let _ = c.set_attribute(
            "data-geo",
            &format!(
                "{},{},{},{},{}",
                geo.ox, geo.oy, geo.cell, geo.width, geo.height
            ),
        );
        // The most blocked link's bar in CSS pixels, when the blocked-time heatmap is drawn.
        let blocked = (heat == Heat::Blocked)
            .then(|| {
                let st = app.state.borrow();
                let view = st.runs.get(idx).and_then(|r| r.view.as_ref())?;
                let (mx, my) = view.most_blocked_at(&geo)?;
                let k = f64::from(c.client_width().max(1)) / f64::from(c.width().max(1));
                Some(format!("{},{}", (mx * k).round(), (my * k).round()))
            })
            .flatten();
        let _ = c.set_attribute("data-blocked-link", &blocked.unwrap_or_default());
        let access = {
            let st = app.state.borrow();
            st.runs
                .get(idx)
                .and_then(|r| r.view.as_ref())
                .map(|v| v.access(&occ, &geo, t))
        };
        if let Some(a) = access {
            crate::web::chart_access::attach("mesh-canvas", a);
        }
        let mut st = app.state.borrow_mut();
        st.geo = geo;
        st.occ = occ;
    }
    app.drawing.set(false);
}

pub(super) fn hover(app: &App, ev: &MouseEvent) {
    let c = &app.ui.canvas;
    let cw = f64::from(c.client_width().max(1));
    let scale = f64::from(c.width()) / cw;
    let (ox, oy) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
    let text = {
        let st = app.state.borrow();
        let view = st.runs.get(current_run(app)).and_then(|r| r.view.as_ref());
        let on_link = (c.get_attribute("data-heat").as_deref() == Some("blocked"))
            .then(|| view.and_then(|v| v.link_at(&st.geo, ox * scale, oy * scale)))
            .flatten();
        match (view, on_link, st.geo.node_at(ox * scale, oy * scale)) {
            (Some(v), Some(l), _) => Some(v.link_tooltip(l)),
            (Some(v), None, Some((x, y))) => v.tooltip(&st.occ, x, y),
            _ => None,
        }
    };
    let tip = &app.ui.tip;
    match text {
        Some(t) => {
            tip.set_text_content(Some(&t));
            tip.set_hidden(false);
            let w = f64::from(tip.offset_width());
            let left = if ox + 16.0 + w > cw {
                ox - w - 12.0
            } else {
                ox + 16.0
            };
            let _ = tip.set_attribute(
                "style",
                &format!("left: {}px; top: {}px", left.max(0.0), oy + 14.0),
            );
        }
        None => tip.set_hidden(true),
    }
}

pub(super) fn draw_time_charts(app: &App) {
    let (busy, waiting, unit) = {
        let st = app.state.borrow();
        let mut busy: Vec<Line> = Vec::new();
        let mut waiting: Vec<Line> = Vec::new();
        let mut unit = "s";
        for r in &st.runs {
            if let Some(v) = &r.view {
                let (b, w) = mesh_view::over_time(v, 200);
                busy.push((v.title.clone(), b));
                waiting.push((v.title.clone(), w));
                unit = v.unit;
            }
        }
        (busy, waiting, unit)
    };
    if busy.is_empty() {
        return;
    }
    app.ui.charts.set_hidden(false);
    app.ui.util_box.set_hidden(false);
    if let Err(e) = mesh_view::draw_over_time("mesh-chart-util", &busy, &waiting, unit) {
        app.ui.errors.show(&e);
    }
}
