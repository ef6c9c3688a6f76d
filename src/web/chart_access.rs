//! Charts for keyboard and screen-reader users: each chart drawn on a `<canvas>` gets its data
//! as a table on request (a "Show data as a table" disclosure right after the chart) and
//! keyboard-reachable tooltips — the canvas takes the focus, the arrow keys move a highlighted
//! point (a ring around a line's point, a bar's end) and show the same tooltip as the mouse
//! hover over it.
//!
//! A chart module describes what it drew as an [`Access`] (the table, and the points with
//! their pixel positions and tooltips) and calls [`attach`] after each drawing; the listeners
//! are added once per canvas and read the latest description.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent};

use super::dom::{escape, listen};

/// A point the keys and the mouse can reach: where it is drawn (canvas pixels) and its tooltip.
#[derive(Clone, Debug)]
pub struct Point {
    pub px: f64,
    pub py: f64,
    pub tip: String,
}

/// A chart's data for those who do not see it: a table and its reachable points.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// The table's caption (what the chart shows).
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// In the order the arrow keys walk them.
    pub points: Vec<Point>,
    /// The chart shows its own tooltip on hover (the mesh): the mouse is left to it, the keys
    /// show the same text here.
    pub own_hover: bool,
}

/// At most this many rows (and points) per line of a line chart: longer lines are sampled
/// evenly, their first and last point kept.
pub const MAX_ROWS_PER_LINE: usize = 200;

/// The indices of at most `max` of `n` points, evenly spaced, first and last included.
pub fn sample(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    if max < 2 {
        return vec![0; max];
    }
    (0..max).map(|k| k * (n - 1) / (max - 1)).collect()
}

struct State {
    access: Access,
    at: Option<usize>,
}

thread_local! {
    static CHARTS: RefCell<HashMap<String, State>> = RefCell::new(HashMap::new());
}

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// Shows `access` for the chart in canvas `canvas_id`: its table (replaced, open or closed as
/// it was) and its points for the keys and the mouse.
pub fn attach(canvas_id: &str, access: Access) {
    let Some(doc) = document() else { return };
    let Some(canvas) = doc
        .get_element_by_id(canvas_id)
        .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
    else {
        return;
    };
    put_table(&doc, &canvas, canvas_id, &access);
    let first = CHARTS.with(|c| {
        let mut c = c.borrow_mut();
        let first = !c.contains_key(canvas_id);
        c.insert(canvas_id.to_string(), State { access, at: None });
        first
    });
    hide_tip(&doc);
    let _ = canvas.remove_attribute("data-point");
    if first {
        listen_once(&canvas, canvas_id);
    }
}

/// The table after the chart (after its scrolling box, when it has one).
fn put_table(doc: &Document, canvas: &HtmlCanvasElement, id: &str, a: &Access) {
    let box_id = format!("{id}-data-table");
    let table_box = match doc.get_element_by_id(&box_id) {
        Some(d) => d,
        None => {
            let (Ok(d), Ok(b)) = (doc.create_element("details"), doc.create_element("div")) else {
                return;
            };
            d.set_id(&format!("{id}-data"));
            let _ = d.set_attribute("class", "chart-data");
            let _ = d.set_attribute("data-testid", &format!("{id}-data"));
            d.set_inner_html("<summary>Show data as a table</summary>");
            b.set_id(&box_id);
            let _ = b.set_attribute("class", "table-scroll");
            // A scroll box: reachable by the keyboard, named for screen readers.
            let _ = b.set_attribute("tabindex", "0");
            let _ = b.set_attribute("role", "region");
            let _ = d.append_child(&b);
            let anchor: web_sys::Element = canvas
                .parent_element()
                .filter(|p| p.class_list().contains("chart-scroll"))
                .unwrap_or_else(|| canvas.clone().unchecked_into());
            // A chart that is one cell of a row of charts gets a cell of its own (the chart
            // and its table), so that the table takes no cell of the row.
            let in_row = anchor.parent_element().is_some_and(|p| {
                let c = p.class_list();
                c.contains("charts") || c.contains("grid-chart-pair")
            });
            match doc.create_element("div") {
                Ok(cell) if in_row => {
                    let _ = cell.set_attribute("class", "chart-cell");
                    let _ = anchor.before_with_node_1(&cell);
                    let _ = cell.append_child(&anchor);
                    let _ = cell.append_child(&d);
                }
                _ => {
                    let _ = anchor.after_with_node_1(&d);
                }
            }
            b
        }
    };
    let head: String = a
        .columns
        .iter()
        .map(|c| format!("<th scope=\"col\">{}</th>", escape(c)))
        .collect();
    let body: String = a
        .rows
        .iter()
        .map(|r| {
            let cells: String = r
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if i == 0 {
                        format!("<th scope=\"row\">{}</th>", escape(v))
                    } else {
                        format!("<td>{}</td>", escape(v))
                    }
                })
                .collect();
            format!("<tr>{cells}</tr>")
        })
        .collect();
    let _ = table_box.set_attribute("aria-label", &format!("Data of the chart: {}", a.caption));
    let html = format!(
        "<table><caption>{}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
        escape(&a.caption)
    );
    // Unchanged while a replay stands still: the table (and a reader's place in it) stays.
    if table_box.get_attribute("data-len").as_deref() != Some(&html.len().to_string())
        || table_box.inner_html() != html
    {
        table_box.set_inner_html(&html);
        let _ = table_box.set_attribute("data-len", &html.len().to_string());
    }
}

/// The tooltip every chart of this module shares.
fn tip(doc: &Document) -> Option<HtmlElement> {
    if let Some(t) = doc.get_element_by_id("chart-tip") {
        return t.dyn_into().ok();
    }
    let t: HtmlElement = doc.create_element("div").ok()?.dyn_into().ok()?;
    t.set_id("chart-tip");
    let _ = t.set_attribute("class", "chart-tip");
    let _ = t.set_attribute("role", "status");
    let _ = t.set_attribute("data-testid", "chart-tip");
    t.set_hidden(true);
    doc.body()?.append_child(&t).ok()?;
    Some(t)
}

/// The ring around the point the keys or the mouse reached.
fn mark(doc: &Document) -> Option<HtmlElement> {
    if let Some(m) = doc.get_element_by_id("chart-mark") {
        return m.dyn_into().ok();
    }
    let m: HtmlElement = doc.create_element("div").ok()?.dyn_into().ok()?;
    m.set_id("chart-mark");
    let _ = m.set_attribute("class", "chart-mark");
    let _ = m.set_attribute("aria-hidden", "true");
    m.set_hidden(true);
    doc.body()?.append_child(&m).ok()?;
    Some(m)
}

fn hide_tip(doc: &Document) {
    if let Some(t) = tip(doc) {
        t.set_hidden(true);
    }
    if let Some(m) = mark(doc) {
        m.set_hidden(true);
    }
}

/// Shows point `i` of chart `id`: the tooltip next to it and a ring around it.
fn show(canvas: &HtmlCanvasElement, id: &str, i: usize) {
    let Some(doc) = document() else { return };
    let Some(p) = CHARTS.with(|c| {
        let mut c = c.borrow_mut();
        let st = c.get_mut(id)?;
        let p = st.access.points.get(i)?.clone();
        st.at = Some(i);
        Some(p)
    }) else {
        return;
    };
    let Some(t) = tip(&doc) else { return };
    let rect = canvas.get_bounding_client_rect();
    let k = rect.width() / f64::from(canvas.width().max(1));
    let (sx, sy) = web_sys::window().map_or((0.0, 0.0), |w| {
        (w.scroll_x().unwrap_or(0.0), w.scroll_y().unwrap_or(0.0))
    });
    let (x, y) = (rect.left() + sx + p.px * k, rect.top() + sy + p.py * k);
    t.set_text_content(Some(&p.tip));
    t.set_hidden(false);
    let w = f64::from(t.offset_width());
    let left = if p.px * k + 16.0 + w > rect.width() {
        x - w - 12.0
    } else {
        x + 14.0
    };
    let _ = t.set_attribute(
        "style",
        &format!("left: {:.0}px; top: {:.0}px", left.max(0.0), y + 12.0),
    );
    if let Some(m) = mark(&doc) {
        m.set_hidden(false);
        let _ = m.set_attribute(
            "style",
            &format!("left: {:.0}px; top: {:.0}px", x - 7.0, y - 7.0),
        );
    }
    let _ = canvas.set_attribute("data-point", &i.to_string());
    let _ = canvas.set_attribute("data-point-at", &format!("{:.0},{:.0}", p.px * k, p.py * k));
}

fn hide(canvas: &HtmlCanvasElement, id: &str) {
    CHARTS.with(|c| {
        if let Some(st) = c.borrow_mut().get_mut(id) {
            st.at = None;
        }
    });
    if let Some(doc) = document() {
        hide_tip(&doc);
    }
    let _ = canvas.remove_attribute("data-point");
}

/// The point a key moves to from `at` among `n`, or `None` for a key that is not ours.
pub fn step(key: &str, at: Option<usize>, n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let big = (n / 10).max(1);
    let last = n - 1;
    Some(match (key, at) {
        ("ArrowRight" | "ArrowDown" | "ArrowLeft" | "ArrowUp" | "PageUp" | "PageDown", None) => 0,
        ("ArrowRight" | "ArrowDown", Some(i)) => (i + 1).min(last),
        ("ArrowLeft" | "ArrowUp", Some(i)) => i.saturating_sub(1),
        ("PageDown", Some(i)) => (i + big).min(last),
        ("PageUp", Some(i)) => i.saturating_sub(big),
        ("Home", _) => 0,
        ("End", _) => last,
        _ => return None,
    })
}

fn listen_once(canvas: &HtmlCanvasElement, id: &str) {
    let _ = canvas.set_attribute("tabindex", "0");
    let label = canvas.get_attribute("aria-label").unwrap_or_default();
    if !label.contains("arrow keys") {
        let _ = canvas.set_attribute(
            "aria-label",
            &format!(
                "{label}. Arrow keys move through its points; the table under it holds its data"
            ),
        );
    }
    let (c, key_id) = (canvas.clone(), id.to_string());
    listen(canvas, "keydown", move |ev: KeyboardEvent| {
        let key = ev.key();
        if key == "Escape" {
            hide(&c, &key_id);
            return;
        }
        let next = CHARTS.with(|m| {
            let m = m.borrow();
            let st = m.get(&key_id)?;
            step(&key, st.at, st.access.points.len())
        });
        if let Some(i) = next {
            ev.prevent_default();
            show(&c, &key_id, i);
        }
    });
    let (c, move_id) = (canvas.clone(), id.to_string());
    listen(canvas, "mousemove", move |ev: MouseEvent| {
        let k = f64::from(c.width().max(1)) / f64::from(c.client_width().max(1));
        let (x, y) = (f64::from(ev.offset_x()) * k, f64::from(ev.offset_y()) * k);
        let near = CHARTS.with(|m| {
            let m = m.borrow();
            let st = m.get(&move_id)?;
            if st.access.own_hover {
                return Some(None);
            }
            Some(nearest(&st.access.points, x, y, 30.0 * k))
        });
        match near {
            Some(Some(i)) => show(&c, &move_id, i),
            Some(None) => {}
            None => hide(&c, &move_id),
        }
    });
    for event in ["mouseleave", "blur"] {
        let (c, out_id) = (canvas.clone(), id.to_string());
        listen(canvas, event, move |_: web_sys::Event| hide(&c, &out_id));
    }
}

/// The point nearest (x, y) within `radius` pixels, if any.
pub fn nearest(points: &[Point], x: f64, y: f64, radius: f64) -> Option<usize> {
    points
        .iter()
        .enumerate()
        .map(|(i, p)| (i, (p.px - x).hypot(p.py - y)))
        .filter(|&(_, d)| d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}
