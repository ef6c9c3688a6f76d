//! The flat tab's zoomable Gantt chart of a whole run, at any size
//! ([`crate::metrics::gantt::Schedule`], sent by the worker for the run picked): only the
//! time window on screen is drawn — its jobs found by a binary search, rasterised into one
//! image in which jobs narrower than a pixel share it — then the axes (time since the first
//! start, in a unit fitting the window; processors), the title, the legend and the colours by
//! user or by job size. Wheel and +/− zoom around the pointer or the centre, drag and the
//! arrow keys pan, Reset (or 0) shows the whole run; the job under the pointer is named in a
//! tooltip with its times in seconds, as in the per-job CSV.
//!
//! The canvas keeps the window it shows in `data-t0` / `data-t1` (seconds since the first
//! start), the jobs drawn in `data-drawn`, the legend's entries in `data-legend` and the last redraw's
//! time in `data-frame-ms`.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{
    CanvasRenderingContext2d, Document, Event, HtmlButtonElement, HtmlCanvasElement, HtmlElement,
    HtmlSelectElement, ImageData, KeyboardEvent, MouseEvent, WheelEvent,
};

use super::dom::listen;
use super::format;
use super::kit::by_id;
use crate::form::format::AxisFormat;
use crate::metrics::gantt::{size_class, size_classes, ticks, Schedule, SizeClass, Values};

/// Plotting area inside the canvas: left, top, right and bottom margins (canvas pixels).
const MARGIN: (f64, f64, f64, f64) = (64.0, 40.0, 14.0, 44.0);
/// Ticks on the time axis and on the processors' axis, at most.
const X_TICKS: usize = 10;
const Y_TICKS: usize = 6;
/// Narrowest window, seconds.
const MIN_SPAN: f64 = 10.0;
/// Users named in the legend, each with a colour of its own.
const TOP_USERS: usize = 6;
/// Categorical colours of users: the first [`TOP_USERS`] for the legend's users, the others
/// shared by every other user.
const USER_PALETTE: [[u8; 3]; 12] = [
    [0x2e, 0x6f, 0xdf],
    [0xe0, 0x8a, 0x1e],
    [0x1f, 0x9d, 0x7a],
    [0xd1, 0x49, 0x5b],
    [0x7b, 0x4f, 0xc9],
    [0x8c, 0x6d, 0x31],
    [0xe3, 0x77, 0xc2],
    [0x4a, 0x4f, 0x5a],
    [0xbc, 0xbd, 0x22],
    [0x17, 0xbe, 0xcf],
    [0x9e, 0xc9, 0xff],
    [0xff, 0xb2, 0x7a],
];
/// The colours of the job-size classes (`metrics::gantt::SIZE_CLASS_BOUNDS`), small to large.
const SIZE_COLOURS: [[u8; 3]; 6] = [
    [0xfd, 0xe7, 0x25],
    [0x7a, 0xd1, 0x51],
    [0x22, 0xa8, 0x84],
    [0x2a, 0x78, 0x8e],
    [0x41, 0x44, 0x87],
    [0x44, 0x01, 0x54],
];

/// How jobs are coloured.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ColourBy {
    User,
    Size,
}

/// What is on screen.
struct View {
    schedule: Rc<Schedule>,
    title: String,
    /// Each job's decision explanations as lines (small runs), by job.
    why: Option<Rc<Vec<Vec<String>>>>,
    /// The window, seconds (absolute).
    t0: f64,
    t1: f64,
    /// Users with the most processor-seconds, most first (the legend).
    top_users: Vec<i32>,
    /// A drag in progress: the pointer's x (canvas pixels) and the window when it began.
    drag: Option<(f64, f64, f64)>,
    /// The raster's pixels, reused between redraws.
    pixels: Vec<u8>,
    /// The image they are copied into for the canvas, reused while the plot keeps its size (a
    /// new one per redraw would leave its bytes to the garbage collector).
    image: Option<ImageData>,
}

/// The Gantt chart's elements and what it shows.
pub struct GanttView {
    canvas: HtmlCanvasElement,
    ctx: CanvasRenderingContext2d,
    tip: HtmlElement,
    colour_by: HtmlSelectElement,
    view: RefCell<Option<View>>,
}

impl GanttView {
    /// Finds the chart's elements (`#chart-gantt`, `#gantt-tip`, `#gantt-colour`,
    /// `#gantt-zoom-in`, `#gantt-zoom-out`, `#gantt-reset`) and wires their events.
    pub fn mount(doc: &Document) -> Result<Rc<GanttView>, String> {
        let canvas: HtmlCanvasElement = by_id(doc, "chart-gantt")?;
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
            .ok_or("no 2D context for #chart-gantt")?;
        let g = Rc::new(GanttView {
            canvas,
            ctx,
            tip: by_id(doc, "gantt-tip")?,
            colour_by: by_id(doc, "gantt-colour")?,
            view: RefCell::new(None),
        });
        for (id, f) in [
            ("gantt-zoom-in", 0.5),
            ("gantt-zoom-out", 2.0),
            ("gantt-reset", 0.0),
        ] {
            let b: HtmlButtonElement = by_id(doc, id)?;
            let g = Rc::clone(&g);
            listen(b.as_ref(), "click", move |_: Event| {
                if f == 0.0 {
                    g.reset();
                } else {
                    g.zoom(f, None);
                }
            });
        }
        {
            let g2 = Rc::clone(&g);
            listen(g.colour_by.as_ref(), "change", move |_: Event| g2.draw());
        }
        let target = g.canvas.clone();
        {
            let g = Rc::clone(&g);
            listen(target.as_ref(), "wheel", move |ev: WheelEvent| {
                if g.view.borrow().is_none() {
                    return;
                }
                ev.prevent_default();
                let x = g.canvas_x(ev.offset_x());
                g.zoom(if ev.delta_y() < 0.0 { 0.8 } else { 1.25 }, Some(x));
            });
        }
        {
            let g = Rc::clone(&g);
            listen(target.as_ref(), "mousedown", move |ev: MouseEvent| {
                let x = g.canvas_x(ev.offset_x());
                if let Some(v) = g.view.borrow_mut().as_mut() {
                    v.drag = Some((x, v.t0, v.t1));
                }
            });
        }
        for name in ["mouseup", "mouseleave"] {
            let g = Rc::clone(&g);
            listen(target.as_ref(), name, move |ev: MouseEvent| {
                if let Some(v) = g.view.borrow_mut().as_mut() {
                    v.drag = None;
                }
                if ev.type_() == "mouseleave" {
                    g.tip.set_hidden(true);
                }
            });
        }
        {
            let g = Rc::clone(&g);
            listen(target.as_ref(), "mousemove", move |ev: MouseEvent| {
                g.on_move(&ev)
            });
        }
        {
            let g = Rc::clone(&g);
            listen(target.as_ref(), "keydown", move |ev: KeyboardEvent| {
                let done = match ev.key().as_str() {
                    "ArrowLeft" => g.pan(-0.2),
                    "ArrowRight" => g.pan(0.2),
                    "+" | "=" | "ArrowUp" => g.zoom(0.5, None),
                    "-" | "_" | "ArrowDown" => g.zoom(2.0, None),
                    "0" | "Home" => g.reset(),
                    _ => false,
                };
                if done {
                    ev.prevent_default();
                }
            });
        }
        Ok(g)
    }

    /// Shows `schedule` whole, titled `title`; `why` holds each job's explanations (small runs).
    pub fn show(&self, schedule: Rc<Schedule>, title: String, why: Option<Rc<Vec<Vec<String>>>>) {
        let mut area: std::collections::HashMap<i32, f64> = std::collections::HashMap::new();
        for j in 0..schedule.len() {
            *area.entry(schedule.user(j)).or_default() +=
                f64::from(schedule.size(j)) * (schedule.end(j) - schedule.start(j));
        }
        let mut users: Vec<(i32, f64)> = area.into_iter().collect();
        users.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // A workload without users (the synthetic model) is coloured by job size.
        if schedule.users().all(|u| u < 0) {
            self.colour_by.set_value("size");
        }
        let (t0, t1) = (schedule.layout.t0, schedule.layout.t1);
        *self.view.borrow_mut() = Some(View {
            schedule,
            title,
            why,
            t0,
            t1,
            top_users: users.into_iter().take(TOP_USERS).map(|(u, _)| u).collect(),
            drag: None,
            pixels: Vec::new(),
            image: None,
        });
        self.tip.set_hidden(true);
        self.draw();
    }

    /// Forgets the run shown (the canvas is cleared).
    pub fn clear(&self) {
        *self.view.borrow_mut() = None;
        self.tip.set_hidden(true);
        let (w, h) = self.size();
        self.ctx.clear_rect(0.0, 0.0, w, h);
    }

    fn size(&self) -> (f64, f64) {
        (
            f64::from(self.canvas.width()),
            f64::from(self.canvas.height()),
        )
    }

    /// A mouse event's x in canvas pixels.
    fn canvas_x(&self, offset_x: i32) -> f64 {
        let cw = f64::from(self.canvas.client_width().max(1));
        f64::from(offset_x) * f64::from(self.canvas.width()) / cw
    }

    /// Multiplies the window's span by `factor` around canvas x `at` (the centre when `None`).
    fn zoom(&self, factor: f64, at: Option<f64>) -> bool {
        {
            let mut v = self.view.borrow_mut();
            let Some(v) = v.as_mut() else {
                return false;
            };
            let (w, _) = self.size();
            let pw = w - MARGIN.0 - MARGIN.2;
            let frac = at.map_or(0.5, |x| ((x - MARGIN.0) / pw).clamp(0.0, 1.0));
            let full = v.schedule.layout.t1 - v.schedule.layout.t0;
            let span = ((v.t1 - v.t0) * factor).clamp(MIN_SPAN.min(full), full);
            let pivot = v.t0 + frac * (v.t1 - v.t0);
            let t0 = pivot - frac * span;
            (v.t0, v.t1) = clamp_window(t0, span, v.schedule.layout.t0, v.schedule.layout.t1);
        }
        self.draw();
        true
    }

    /// Moves the window by `frac` of its span.
    fn pan(&self, frac: f64) -> bool {
        {
            let mut v = self.view.borrow_mut();
            let Some(v) = v.as_mut() else {
                return false;
            };
            let span = v.t1 - v.t0;
            (v.t0, v.t1) = clamp_window(
                v.t0 + frac * span,
                span,
                v.schedule.layout.t0,
                v.schedule.layout.t1,
            );
        }
        self.draw();
        true
    }

    /// Shows the whole run.
    fn reset(&self) -> bool {
        {
            let mut v = self.view.borrow_mut();
            let Some(v) = v.as_mut() else {
                return false;
            };
            (v.t0, v.t1) = (v.schedule.layout.t0, v.schedule.layout.t1);
        }
        self.draw();
        true
    }

    fn on_move(&self, ev: &MouseEvent) {
        let x = self.canvas_x(ev.offset_x());
        let ch = f64::from(self.canvas.client_height().max(1));
        let y = f64::from(ev.offset_y()) * f64::from(self.canvas.height()) / ch;
        let panned = {
            let mut v = self.view.borrow_mut();
            let Some(v) = v.as_mut() else {
                return;
            };
            match v.drag {
                Some((x0, t0, t1)) if (x - x0).abs() >= 2.0 => {
                    let (w, _) = self.size();
                    let dt = (x - x0) / (w - MARGIN.0 - MARGIN.2) * (t1 - t0);
                    (v.t0, v.t1) =
                        clamp_window(t0 - dt, t1 - t0, v.schedule.layout.t0, v.schedule.layout.t1);
                    true
                }
                _ => false,
            }
        };
        if panned {
            self.tip.set_hidden(true);
            self.draw();
            return;
        }
        let text = self.tip_at(x, y);
        let cw = f64::from(self.canvas.client_width().max(1));
        super::replay_panel::place_tip(&self.tip, text.as_deref(), ev, cw);
    }

    /// The tooltip of the job at canvas pixel (x, y), if any (its number and times are also
    /// put in the tip's `data-job`, `data-start`, `data-end`).
    fn tip_at(&self, x: f64, y: f64) -> Option<String> {
        let v = self.view.borrow();
        let v = v.as_ref()?;
        let (w, h) = self.size();
        let (pw, ph) = (w - MARGIN.0 - MARGIN.2, h - MARGIN.1 - MARGIN.3);
        if x < MARGIN.0 || x > MARGIN.0 + pw || y < MARGIN.1 || y > MARGIN.1 + ph {
            return None;
        }
        let s = &v.schedule;
        let t = v.t0 + (x - MARGIN.0) / pw * (v.t1 - v.t0);
        let p = (MARGIN.1 + ph - y) / ph * f64::from(s.layout.rows * s.layout.per_row);
        let slack = (v.t1 - v.t0) / pw;
        let j = s.job_at(t, p, slack)?;
        let (submit, start, end) = (s.submit(j), s.start(j), s.end(j));
        let _ = self.tip.set_attribute("data-job", &s.id(j).to_string());
        let _ = self.tip.set_attribute("data-start", &start.to_string());
        let _ = self.tip.set_attribute("data-end", &end.to_string());
        let user = if s.user(j) >= 0 {
            format!(" · user {}", s.user(j))
        } else {
            String::new()
        };
        let mut text = format!(
            "Job {} · {} processor{}{user}\nsubmit {submit} s · start {start} s · end {end} s\n\
             waited {} · ran {}",
            s.id(j),
            format::count(u64::from(s.size(j))),
            if s.size(j) == 1 { "" } else { "s" },
            format::duration(start - submit),
            format::duration(end - start),
        );
        if let Some(lines) = v.why.as_ref().and_then(|w| w.get(j)) {
            if !lines.is_empty() {
                text.push_str("\nWhy:");
                let skipped = lines.len().saturating_sub(8);
                if skipped > 0 {
                    text.push_str(&format!("\n… {skipped} earlier"));
                }
                for line in &lines[skipped..] {
                    text.push('\n');
                    text.push_str(line);
                }
            }
        }
        Some(text)
    }

    /// Draws the window on screen.
    pub fn draw(&self) {
        let started = now_ms();
        let by = if self.colour_by.value() == "size" {
            ColourBy::Size
        } else {
            ColourBy::User
        };
        let mut guard = self.view.borrow_mut();
        let Some(v) = guard.as_mut() else {
            return;
        };
        let ctx = &self.ctx;
        let (w, h) = self.size();
        let (pw, ph) = (w - MARGIN.0 - MARGIN.2, h - MARGIN.1 - MARGIN.3);
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, w, h);
        let (iw, ih) = (pw.max(1.0) as usize, ph.max(1.0) as usize);
        v.pixels.clear();
        v.pixels.resize(iw * ih * 4, 0);
        for px in v.pixels.chunks_exact_mut(4) {
            px.copy_from_slice(&[0xf4, 0xf6, 0xf9, 0xff]);
        }
        let s = Rc::clone(&v.schedule);
        let top = v.top_users.clone();
        let mut pixels = std::mem::take(&mut v.pixels);
        // The column's kind chosen once, not per job.
        let window = (v.t0, v.t1, iw, ih);
        let draw = |colour: &dyn Fn(usize) -> [u8; 3], pixels: &mut Vec<u8>| {
            s.raster(window.0, window.1, window.2, window.3, colour, pixels)
        };
        let drawn = match (by, s.sizes(), s.user_ids()) {
            (ColourBy::Size, Values::Narrow(c), _) => {
                draw(&|j| size_colour(u32::from(c[j])), &mut pixels)
            }
            (ColourBy::Size, Values::Wide(c), _) => draw(&|j| size_colour(c[j]), &mut pixels),
            (ColourBy::User, _, Values::Narrow(c)) => {
                draw(&|j| user_colour(i32::from(c[j]), &top), &mut pixels)
            }
            (ColourBy::User, _, Values::Wide(c)) => draw(&|j| user_colour(c[j], &top), &mut pixels),
        };
        let (w32, h32) = (iw as u32, ih as u32);
        let reused = v
            .image
            .take()
            .filter(|img| img.width() == w32 && img.height() == h32)
            .and_then(|img| {
                // Its pixels are copied in place, through a view on them.
                let data = js_sys::Reflect::get(&img, &"data".into()).ok()?;
                let data = data.dyn_into::<js_sys::Uint8ClampedArray>().ok()?;
                if data.length() as usize != pixels.len() {
                    return None;
                }
                data.copy_from(&pixels);
                Some(img)
            });
        v.image = reused.or_else(|| {
            ImageData::new_with_u8_clamped_array_and_sh(Clamped(&pixels[..]), w32, h32).ok()
        });
        if let Some(img) = &v.image {
            let _ = ctx.put_image_data(img, MARGIN.0, MARGIN.1);
        }
        v.pixels = pixels;
        // Axes.
        ctx.set_stroke_style_str("#5b6475");
        ctx.set_line_width(1.0);
        ctx.begin_path();
        ctx.move_to(MARGIN.0 - 0.5, MARGIN.1);
        ctx.line_to(MARGIN.0 - 0.5, MARGIN.1 + ph + 0.5);
        ctx.line_to(MARGIN.0 + pw, MARGIN.1 + ph + 0.5);
        ctx.stroke();
        ctx.set_fill_style_str("#1d2433");
        ctx.set_font("13px sans-serif");
        let (div, unit) = super::chart::time_unit(v.t1 - v.t0);
        let base = s.layout.t0;
        let (a, b) = ((v.t0 - base) / div, (v.t1 - base) / div);
        ctx.set_text_align("center");
        ctx.set_text_baseline("top");
        // One number format per axis, as every other chart ([`AxisFormat`]).
        let x_format = AxisFormat::new(a, b, X_TICKS);
        for t in ticks(a, b, X_TICKS) {
            let x = MARGIN.0 + (t - a) / (b - a) * pw;
            ctx.fill_rect(x - 0.5, MARGIN.1 + ph, 1.0, 5.0);
            let _ = ctx.fill_text(&x_format.label(t), x, MARGIN.1 + ph + 7.0);
        }
        let _ = ctx.fill_text(
            &format!("Simulated time since the first start ({unit})"),
            MARGIN.0 + pw / 2.0,
            MARGIN.1 + ph + 25.0,
        );
        let procs = f64::from(s.layout.rows * s.layout.per_row);
        ctx.set_text_align("right");
        ctx.set_text_baseline("middle");
        let y_format = AxisFormat::counts(0.0, procs, Y_TICKS);
        for p in ticks(0.0, procs, Y_TICKS) {
            let y = MARGIN.1 + ph - p / procs * ph;
            ctx.fill_rect(MARGIN.0 - 5.0, y - 0.5, 5.0, 1.0);
            let _ = ctx.fill_text(&y_format.label(p), MARGIN.0 - 8.0, y);
        }
        ctx.save();
        let _ = ctx.translate(14.0, MARGIN.1 + ph / 2.0);
        let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
        ctx.set_text_align("center");
        let _ = ctx.fill_text("Processors", 0.0, 0.0);
        ctx.restore();
        // Title and legend.
        ctx.set_text_align("left");
        ctx.set_text_baseline("alphabetic");
        ctx.set_font("bold 15px sans-serif");
        let _ = ctx.fill_text(&v.title, MARGIN.0, 18.0);
        ctx.set_font("12px sans-serif");
        let shown = if (v.t1 - v.t0) >= (s.layout.t1 - s.layout.t0) * 0.9999 {
            "the whole run".to_string()
        } else {
            // The window's bounds to about a thousandth of its span.
            let bounds = AxisFormat::new(a, b, 1000);
            format!("{}–{} {unit}", bounds.label(a), bounds.label(b))
        };
        let _ = ctx.fill_text(
            &format!(
                "Showing {shown}: {} jobs in view",
                format::count(drawn as u64)
            ),
            MARGIN.0,
            34.0,
        );
        let entries: Vec<(String, [u8; 3])> = match by {
            ColourBy::Size => size_classes(s.procs)
                .iter()
                .map(|c| (size_label(c), SIZE_COLOURS[c.class]))
                .collect(),
            ColourBy::User => {
                let mut e: Vec<(String, [u8; 3])> = v
                    .top_users
                    .iter()
                    .map(|&u| {
                        let name = if u >= 0 {
                            format!("user {u}")
                        } else {
                            "unknown user".to_string()
                        };
                        (name, user_colour(u, &v.top_users))
                    })
                    .collect();
                e.push((
                    "other users (colours repeat)".to_string(),
                    [0xdd, 0xdd, 0xdd],
                ));
                e
            }
        };
        let label = if by == ColourBy::Size {
            "Processors:"
        } else {
            "Most processor-time:"
        };
        let widths: Vec<f64> = entries.iter().map(|(l, _)| text_width(l) + 24.0).collect();
        let lw = text_width(label) + 8.0;
        let total: f64 = widths.iter().sum::<f64>() + lw;
        let mut x = (w - MARGIN.2 - total).max(MARGIN.0 + 360.0);
        let y = 18.0;
        ctx.set_fill_style_str("#5b6475");
        let _ = ctx.fill_text(label, x, y);
        x += lw;
        for ((l, c), wd) in entries.iter().zip(&widths) {
            if x + wd > w {
                break;
            }
            ctx.set_fill_style_str(&format!("rgb({},{},{})", c[0], c[1], c[2]));
            ctx.fill_rect(x, y - 10.0, 12.0, 12.0);
            ctx.set_fill_style_str("#1d2433");
            let _ = ctx.fill_text(l, x + 16.0, y);
            x += wd;
        }
        let c = &self.canvas;
        let legend: Vec<&str> = entries.iter().map(|(l, _)| l.as_str()).collect();
        let _ = c.set_attribute("data-legend", &legend.join("; "));
        let _ = c.set_attribute("data-t0", &(v.t0 - base).to_string());
        let _ = c.set_attribute("data-t1", &(v.t1 - base).to_string());
        let _ = c.set_attribute("data-drawn", &drawn.to_string());
        let _ = c.set_attribute("data-jobs", &s.len().to_string());
        let _ = c.set_attribute("data-frame-ms", &format!("{:.2}", now_ms() - started));
    }
}

/// About the width of `s` in the 12 px font, canvas pixels.
fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 7.0
}

/// The window of `span` seconds starting near `t0`, kept inside `[lo, hi]`.
fn clamp_window(t0: f64, span: f64, lo: f64, hi: f64) -> (f64, f64) {
    let span = span.min(hi - lo);
    let t0 = t0.clamp(lo, hi - span);
    (t0, t0 + span)
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// A user's colour: the legend's users (`top`, the most processor-time first) one colour each,
/// the others one of the remaining colours by their number; an unknown user grey.
fn user_colour(u: i32, top: &[i32]) -> [u8; 3] {
    if u < 0 {
        return [0xb0, 0xb4, 0xbc];
    }
    if let Some(k) = top.iter().position(|&t| t == u) {
        return USER_PALETTE[k % USER_PALETTE.len()];
    }
    let rest = USER_PALETTE.len() - TOP_USERS;
    USER_PALETTE[TOP_USERS + (u as usize).wrapping_mul(7) % rest]
}

/// A size class's legend label: "1", "2–4", "257–1,152".
fn size_label(c: &SizeClass) -> String {
    if c.lo == c.hi {
        format::count(u64::from(c.lo))
    } else {
        format!(
            "{}–{}",
            format::count(u64::from(c.lo)),
            format::count(u64::from(c.hi))
        )
    }
}

fn size_colour(p: u32) -> [u8; 3] {
    SIZE_COLOURS[size_class(p)]
}
