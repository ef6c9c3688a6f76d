//! The result charts, drawn with plotters on `<canvas>` (plotters' canvas backend): processor
//! utilisation and queue length over simulated time, and the cumulative distribution of wait
//! times, one line per policy, with labelled axes, units and a legend; and for runs with per-job
//! records a Gantt chart (time × processors) whose jobs show their details on hover.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;

use super::chart_access::{self, Access, Point};
use super::format;
use super::protocol::ChartData;
use crate::form::format::AxisFormat;
use crate::metrics::JobRecord;
use crate::policy::PolicyKind;

/// One run's data for the charts.
pub struct Series<'a> {
    pub policy: PolicyKind,
    pub data: &'a ChartData,
}

/// The colour of a policy, the same in every chart.
/// (by its place in the registry, [`crate::policy::POLICIES`]: a new policy gets the next
/// colour without an edit here).
pub fn colour(p: PolicyKind) -> RGBColor {
    POLICY_PALETTE[crate::base::Registered::key(p).0 % POLICY_PALETTE.len()]
}

/// The policies' colours in registry order: FCFS red, EASY blue, conservative green, then
/// orange, violet, grey.
const POLICY_PALETTE: [RGBColor; 6] = [
    RGBColor(0xd1, 0x49, 0x5b),
    RGBColor(0x2e, 0x6f, 0xdf),
    RGBColor(0x1f, 0x9d, 0x7a),
    RGBColor(0xe0, 0x8a, 0x1e),
    RGBColor(0x7b, 0x4f, 0xc9),
    RGBColor(0x4a, 0x4f, 0x5a),
];

fn label(p: PolicyKind) -> &'static str {
    crate::base::Registered::entry(p).short
}

/// A time axis unit for a span of `secs` seconds: divisor and name (every chart's time axis).
pub(crate) fn time_unit(secs: f64) -> (f64, &'static str) {
    if secs > 3.0 * 86_400.0 {
        (86_400.0, "days")
    } else if secs > 3.0 * 3600.0 {
        (3600.0, "hours")
    } else if secs > 180.0 {
        (60.0, "minutes")
    } else {
        (1.0, "seconds")
    }
}

const FONT: &str = "sans-serif";

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

/// One line of a chart: its legend label, colour and (x, y) points.
pub struct Curve<'a> {
    pub label: &'a str,
    pub colour: RGBColor,
    pub points: &'a [(f64, f64)],
}

/// How the ticks of one axis are written.
#[derive(Clone, Copy)]
pub enum TickFormat {
    /// One number format for the whole axis ([`AxisFormat`]; on a log axis, [`short_number`]).
    Numbers,
    /// Each tick by this function (`50 %`, hours of the day).
    Custom(fn(f64) -> String),
}

/// How a chart's axes are labelled.
#[derive(Clone, Copy)]
pub struct Ticks {
    /// Number of tick labels on the x axis.
    pub x_labels: usize,
    /// Width of the y axis' label area, in pixels.
    pub y_area: u32,
    pub x: TickFormat,
    pub y: TickFormat,
}

/// The flat mode's ticks: six on x, one number format per axis.
const FLAT_TICKS: Ticks = Ticks {
    x_labels: 6,
    y_area: 62,
    x: TickFormat::Numbers,
    y: TickFormat::Numbers,
};

/// Y tick labels of the line charts.
const Y_LABELS: usize = 6;

/// The tick labeller of an axis from `lo` to `hi` with about `labels` labels.
fn tick_labeller(
    format: TickFormat,
    (lo, hi): (f64, f64),
    labels: usize,
    log: bool,
) -> impl Fn(f64) -> String {
    let axis = AxisFormat::new(lo, hi, labels);
    move |v| match format {
        TickFormat::Custom(f) => f(v),
        // Powers of ten: 1, 10, 100, 1k, 10k.
        TickFormat::Numbers if log => {
            let s = short_number(v);
            s.strip_suffix(".0").map_or(s.clone(), str::to_string)
        }
        TickFormat::Numbers => axis.label(v),
    }
}

/// What a line chart shows (the flat mode's charts and the mesh view's).
pub struct LineSpec<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub log_x: bool,
    pub lines: &'a [Curve<'a>],
    /// Marks every point with a dot (few points, such as a sweep's).
    pub markers: bool,
    pub ticks: Ticks,
}

/// The curves of one line per policy, in each policy's colour.
fn policy_curves(lines: &[(PolicyKind, Vec<(f64, f64)>)]) -> Vec<Curve<'_>> {
    lines
        .iter()
        .map(|(p, pts)| Curve {
            label: label(*p),
            colour: colour(*p),
            points: pts,
        })
        .collect()
}

/// A line chart of `lines` (x, y) in the canvas `canvas_id`; returns the same chart as SVG.
#[allow(clippy::too_many_arguments)]
fn line_chart(
    canvas_id: &str,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    x_range: (f64, f64),
    y_range: (f64, f64),
    log_x: bool,
    lines: &[(PolicyKind, Vec<(f64, f64)>)],
) -> Result<String, String> {
    let curves = policy_curves(lines);
    let spec = LineSpec {
        title,
        x_desc,
        y_desc,
        x_range,
        y_range,
        log_x,
        lines: &curves,
        markers: false,
        ticks: FLAT_TICKS,
    };
    render(canvas_id, &spec)
}

/// Draws `spec` in the canvas `canvas_id`; returns the plotting area's pixel ranges and the
/// same chart as SVG.
fn render(canvas_id: &str, spec: &LineSpec<'_>) -> Result<String, String> {
    let (ranges, svg) = both(canvas_id, |r| plot_lines(r, spec), |r| plot_lines(r, spec))?;
    chart_access::attach(canvas_id, line_access(spec, &[(spec, ranges)]));
    Ok(svg)
}

/// A value in a tooltip or a data table: 4 significant digits, thousands separated.
fn value_text(v: f64) -> String {
    format::significant(v, 4)
}

/// The data of line charts drawn in one canvas (each with its plotting area's pixel ranges) as
/// a table and keyboard points: one row per point (at most
/// [`chart_access::MAX_ROWS_PER_LINE`] per line, evenly sampled), columns line, x, y; the
/// table's caption is `first`'s title.
pub fn line_access(first: &LineSpec<'_>, charts: &[(&LineSpec<'_>, PixelRanges)]) -> Access {
    let mut access = Access {
        caption: first.title.to_string(),
        columns: vec!["Line".into(), first.x_desc.into(), first.y_desc.into()],
        ..Access::default()
    };
    if charts.len() > 1 {
        access.columns = vec!["Chart, line".into(), "x".into(), "y".into()];
    }
    for (spec, (xr, yr)) in charts {
        let (x0, x1) = spec.x_range;
        let (y0, y1) = spec.y_range;
        let (x0, x1) = if spec.log_x {
            (x0.max(1.0).ln(), x1.max(10.0).ln())
        } else {
            (x0, x1)
        };
        let fx = |x: f64| {
            let x = if spec.log_x { x.max(1e-300).ln() } else { x };
            f64::from(xr.start) + (x - x0) / (x1 - x0).max(1e-300) * f64::from(xr.end - xr.start)
        };
        let fy = |y: f64| {
            f64::from(yr.end) - (y - y0) / (y1 - y0).max(1e-300) * f64::from(yr.end - yr.start)
        };
        for line in spec.lines {
            let name = if charts.len() > 1 {
                format!("{}: {}", spec.title, line.label)
            } else {
                line.label.to_string()
            };
            for i in chart_access::sample(line.points.len(), chart_access::MAX_ROWS_PER_LINE) {
                let (x, y) = line.points[i];
                let (xs, ys) = (value_text(x), value_text(y));
                access.points.push(Point {
                    px: fx(x),
                    py: fy(y),
                    tip: format!("{name}\n{}: {xs}\n{}: {ys}", spec.x_desc, spec.y_desc),
                });
                access.rows.push(if charts.len() > 1 {
                    vec![
                        name.clone(),
                        format!("{}: {xs}", spec.x_desc),
                        format!("{}: {ys}", spec.y_desc),
                    ]
                } else {
                    vec![name.clone(), xs, ys]
                });
            }
        }
    }
    access
}

/// The dash pattern of the `i`-th line of a chart, (dash, gap) in pixels: the first line solid
/// and wider, the others dashed, dotted, long-dashed… and drawn over it, so that a line lying
/// on another stays visible.
pub fn dash(i: usize) -> Option<(u32, u32)> {
    const DASHES: [Option<(u32, u32)>; 6] = [
        None,
        Some((9, 5)),
        Some((2, 4)),
        Some((16, 5)),
        Some((5, 3)),
        Some((12, 3)),
    ];
    DASHES[i % DASHES.len()]
}

/// The stroke width of the `i`-th line of a chart.
fn line_width(i: usize) -> u32 {
    if i == 0 {
        3
    } else {
        2
    }
}

/// A legend entry: its label, colour and dash pattern ([`dash`]).
pub type LegendEntry<'a> = (&'a str, RGBColor, Option<(u32, u32)>);

/// Height of one row of the legend strip under a line chart, in pixels.
pub const LEGEND_ROW: u32 = 20;

/// The width of a legend entry labelled `label`, in pixels (13 px text, about 7 px a
/// character; a 24 px line sample before it).
fn entry_width(label: &str) -> i32 {
    30 + 7 * label.chars().count() as i32 + 18
}

/// The rows of a legend of `labels` in `width` pixels: the entries' indices, row by row.
fn legend_rows(labels: &[&str], width: u32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = i32::MAX;
    for (i, l) in labels.iter().enumerate() {
        let w = entry_width(l);
        if used.saturating_add(w) > width as i32 - 8 {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(i);
        }
        used += w;
    }
    rows
}

/// The height of the legend strip of `labels` in `width` pixels.
pub fn legend_height(labels: &[&str], width: u32) -> u32 {
    6 + LEGEND_ROW * legend_rows(labels, width).len() as u32
}

/// A legend strip in `area`: per entry a line sample in its colour and dash pattern and its
/// label, in centred rows — outside the plot, so that it never hides a line.
pub fn legend_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry<'_>],
) -> Result<(), String> {
    let (w, _) = area.dim_in_pixel();
    let labels: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let style = TextStyle::from((FONT, 13).into_font())
        .color(&RGBColor(0x1c, 0x24, 0x30))
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (r, row) in legend_rows(&labels, w).iter().enumerate() {
        let total: i32 = row.iter().map(|&i| entry_width(labels[i])).sum();
        let mut x = ((w as i32 - total) / 2).max(4);
        let y = (LEGEND_ROW as i32) * r as i32 + LEGEND_ROW as i32 / 2 + 2;
        for &i in row {
            let (label, c, pattern) = entries[i];
            match pattern {
                None => area
                    .draw(&PathElement::new(
                        vec![(x, y), (x + 24, y)],
                        c.stroke_width(3),
                    ))
                    .map_err(err)?,
                Some((d, g)) => {
                    let mut s = x;
                    while s < x + 24 {
                        let e = (s + d as i32).min(x + 24);
                        area.draw(&PathElement::new(vec![(s, y), (e, y)], c.stroke_width(2)))
                            .map_err(err)?;
                        s = e + g as i32;
                    }
                }
            }
            area.draw(&Text::new(label.to_string(), (x + 30, y), style.clone()))
                .map_err(err)?;
            x += entry_width(label);
        }
    }
    Ok(())
}

/// Draws `spec` on any plotters backend (canvas on the page, SVG for downloads): the lines in
/// their colours and dash patterns, the legend in a strip under the chart; returns the plotting
/// area's pixel ranges.
pub fn plot_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &LineSpec<'_>,
) -> Result<PixelRanges, String> {
    root.fill(&WHITE).map_err(err)?;
    let (x0, x1) = spec.x_range;
    let (y0, y1) = spec.y_range;
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let y1 = if y1 > y0 { y1 } else { y0 + 1.0 };
    let fx = tick_labeller(spec.ticks.x, (x0, x1), spec.ticks.x_labels, spec.log_x);
    let fy = tick_labeller(spec.ticks.y, (y0, y1), Y_LABELS, false);
    let (w, h) = root.dim_in_pixel();
    let labels: Vec<&str> = spec.lines.iter().map(|l| l.label).collect();
    let (plot, strip) = root.split_vertically(h.saturating_sub(legend_height(&labels, w)));
    let entries: Vec<LegendEntry<'_>> = spec
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.label, l.colour, dash(i)))
        .collect();
    legend_strip(&strip, &entries)?;
    let mut b = ChartBuilder::on(&plot);
    b.caption(spec.title, (FONT, 17))
        .margin(12)
        .margin_bottom(4)
        // Room for the last x label centred on the right edge ("24:00").
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(spec.ticks.y_area);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(spec.x_desc)
                .y_desc(spec.y_desc)
                .x_labels(spec.ticks.x_labels)
                .y_labels(Y_LABELS)
                .label_style((FONT, 13))
                .axis_desc_style((FONT, 14))
                .light_line_style(RGBColor(0xee, 0xf0, 0xf4))
                .bold_line_style(RGBColor(0xdd, 0xe1, 0xe8))
                .x_label_formatter(&|v| fx(*v))
                .y_label_formatter(&|v| fy(*v))
                .draw()
                .map_err(err)?;
            for (i, line) in spec.lines.iter().enumerate() {
                let c = line.colour;
                let pts = line.points;
                let style = c.stroke_width(line_width(i));
                match dash(i) {
                    None => chart
                        .draw_series(LineSeries::new(pts.iter().copied(), style))
                        .map(|_| ())
                        .map_err(err)?,
                    Some((d, g)) => chart
                        .draw_series(DashedLineSeries::new(pts.iter().copied(), d, g, style))
                        .map(|_| ())
                        .map_err(err)?,
                }
                if spec.markers {
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                        .map_err(err)?;
                }
            }
            chart.plotting_area().get_pixel_range()
        }};
    }
    let ranges = if spec.log_x {
        body!(b
            .build_cartesian_2d((x0.max(1.0)..x1.max(10.0)).log_scale(), y0..y1)
            .map_err(err)?)
    } else {
        body!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(err)?)
    };
    // In the root's pixels (the strip is below the plot, so the plot's origin is the root's).
    Ok(ranges)
}

/// `12345.6` → `"12.3k"`, `0.5` → `"0.5"`: short tick labels.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    s.replace(".0k", "k").replace(".0M", "M")
}

/// Draws the three charts into the canvases `chart-util`, `chart-queue` and `chart-wait`;
/// returns them as SVG, in that order.
pub fn draw_all(runs: &[Series<'_>]) -> Result<Vec<String>, String> {
    let t0 = runs
        .iter()
        .filter_map(|r| r.data.timeline.first().map(|p| p.0))
        .fold(f64::INFINITY, f64::min);
    let t1 = runs
        .iter()
        .filter_map(|r| r.data.timeline.last().map(|p| p.0))
        .fold(f64::NEG_INFINITY, f64::max);
    let (t0, t1) = if t0.is_finite() && t1.is_finite() {
        (t0, t1)
    } else {
        (0.0, 1.0)
    };
    let (div, unit) = time_unit(t1 - t0);
    let x_desc = format!("Simulated time ({unit})");
    let util: Vec<(PolicyKind, Vec<(f64, f64)>)> = runs
        .iter()
        .map(|r| {
            let procs = f64::from(r.data.procs.max(1));
            let pts = r
                .data
                .timeline
                .iter()
                .map(|&(t, busy, _)| ((t - t0) / div, 100.0 * busy / procs))
                .collect();
            (r.policy, pts)
        })
        .collect();
    let util_svg = line_chart(
        "chart-util",
        "Utilisation over time",
        &x_desc,
        "Processors busy (%)",
        (0.0, (t1 - t0) / div),
        (0.0, 105.0),
        false,
        &util,
    )?;
    let mut qmax: f64 = 1.0;
    let queue: Vec<(PolicyKind, Vec<(f64, f64)>)> = runs
        .iter()
        .map(|r| {
            let pts: Vec<(f64, f64)> = r
                .data
                .timeline
                .iter()
                .map(|&(t, _, q)| ((t - t0) / div, q))
                .collect();
            qmax = pts.iter().map(|p| p.1).fold(qmax, f64::max);
            (r.policy, pts)
        })
        .collect();
    let queue_svg = line_chart(
        "chart-queue",
        "Queue length over time",
        &x_desc,
        "Jobs waiting",
        (0.0, (t1 - t0) / div),
        (0.0, qmax * 1.08),
        false,
        &queue,
    )?;
    let wmax = runs
        .iter()
        .filter_map(|r| r.data.wait_quantiles.last().copied())
        .fold(10.0, f64::max);
    let cdf: Vec<(PolicyKind, Vec<(f64, f64)>)> = runs
        .iter()
        .map(|r| {
            let n = r.data.wait_quantiles.len();
            let pts = r
                .data
                .wait_quantiles
                .iter()
                .enumerate()
                .map(|(i, &w)| (w.max(1.0), 100.0 * i as f64 / (n.max(2) - 1) as f64))
                .collect();
            (r.policy, pts)
        })
        .collect();
    let wait_svg = line_chart(
        "chart-wait",
        "Wait time distribution (CDF)",
        "Wait (seconds, log scale; < 1 s shown at 1 s)",
        "Jobs waiting at most this long (%)",
        (1.0, wmax * 1.2),
        (0.0, 100.0),
        true,
        &cdf,
    )?;
    Ok(vec![util_svg, queue_svg, wait_svg])
}

/// Draws "metric vs. axis" into the canvas `chart-sweep`: one line per policy through its
/// (axis value, value) points; `metric` and `unit` label the y axis, `x_desc` the x axis
/// (`Load factor (× arrival rate)`, `Seed`, …). Returns it as SVG.
pub fn draw_sweep(
    metric: &str,
    unit: &str,
    x_desc: &str,
    lines: &[(PolicyKind, Vec<(f64, f64)>)],
) -> Result<String, String> {
    draw_sweep_curves(metric, unit, x_desc, &policy_curves(lines))
}

/// The colour of the `i`-th line of a chart whose lines are no policies (a merged mesh or
/// moldable sweep's allocators or strategies): the policies' palette in turn.
pub fn series_colour(i: usize) -> RGBColor {
    POLICY_PALETTE[i % POLICY_PALETTE.len()]
}

/// [`draw_sweep`] of any curves (a merged sweep of another mode: a line per allocator or
/// strategy). The y axis starts at 0, or below it for negative values (% changes).
pub fn draw_sweep_curves(
    metric: &str,
    unit: &str,
    x_desc: &str,
    curves: &[Curve<'_>],
) -> Result<String, String> {
    let xs = curves.iter().flat_map(|c| c.points.iter().map(|q| q.0));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (x0, x1) = if x0.is_finite() && x1.is_finite() {
        (x0, x1)
    } else {
        (0.0, 1.0)
    };
    // A little room either side, so that the end points' dots are whole.
    let pad = if x1 > x0 { (x1 - x0) * 0.04 } else { 0.1 };
    let ys = || {
        curves
            .iter()
            .flat_map(|c| c.points.iter().map(|q| q.1))
            .filter(|y| y.is_finite())
    };
    let ymax = ys().fold(0.0, f64::max);
    let ymin = ys().fold(0.0, f64::min);
    // "Load factor (× arrival rate)" → "load factor".
    let x_name = x_desc.split(" (").next().unwrap_or(x_desc).to_lowercase();
    let title = format!("{metric} vs. {x_name}");
    let y_desc = if unit.is_empty() {
        metric.to_string()
    } else {
        format!("{metric} ({unit})")
    };
    let y_range = (
        if ymin < 0.0 { ymin * 1.1 } else { 0.0 },
        if ymax > 0.0 { ymax * 1.1 } else { 1.0 },
    );
    let spec = LineSpec {
        title: &title,
        x_desc,
        y_desc: &y_desc,
        x_range: (x0 - pad, x1 + pad),
        y_range,
        log_x: false,
        lines: curves,
        markers: true,
        ticks: FLAT_TICKS,
    };
    render("chart-sweep", &spec)
}

/// Draws on the canvas `id` with `f`, then the same chart as SVG with `g` (the same drawing
/// for the other backend); returns what `f` returned and the SVG.
pub fn both<T>(
    id: &str,
    f: impl Fn(&DrawingArea<CanvasBackend, Shift>) -> Result<T, String>,
    g: impl Fn(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<T, String>,
) -> Result<(T, String), String> {
    let backend = CanvasBackend::new(id).ok_or_else(|| format!("no canvas #{id}"))?;
    let size = backend.get_size();
    let root = backend.into_drawing_area();
    let out = f(&root)?;
    root.present().map_err(err)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        g(&root)?;
        root.present().map_err(err)?;
    }
    Ok((out, svg))
}

/// Largest machine drawn in the Gantt chart (one band of pixels per processor at most).
pub const MAX_GANTT_PROCS: u32 = 4096;

/// One band of a Gantt chart: (job index, start, end, first processor, processor count).
pub type GanttBand = (usize, f64, f64, u32, u32);

/// Where each job is drawn in the Gantt chart: processors given greedily (lowest free first)
/// in order of start time, as bands of consecutive processors.
pub struct GanttLayout {
    pub procs: u32,
    /// First start and last end, seconds.
    pub t0: f64,
    pub t1: f64,
    /// (job index, start, end, first processor, processor count).
    pub bands: Vec<GanttBand>,
}

impl GanttLayout {
    /// The layout of `jobs` on `procs` processors; `None` if there is nothing to draw or the
    /// machine is larger than [`MAX_GANTT_PROCS`].
    pub fn new(jobs: &[JobRecord], procs: u32) -> Option<GanttLayout> {
        if jobs.is_empty() || procs == 0 || procs > MAX_GANTT_PROCS {
            return None;
        }
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by(|&a, &b| jobs[a].start.total_cmp(&jobs[b].start).then(a.cmp(&b)));
        let mut free_at = vec![f64::NEG_INFINITY; procs as usize];
        let mut bands = Vec::new();
        for &i in &order {
            let j = &jobs[i];
            let mut need = j.procs;
            let mut run: Option<u32> = None;
            let mut p = 0u32;
            while p < procs && need > 0 {
                let slot = &mut free_at[p as usize];
                if *slot <= j.start {
                    *slot = j.end;
                    need -= 1;
                    run.get_or_insert(p);
                } else if let Some(s) = run.take() {
                    bands.push((i, j.start, j.end, s, p - s));
                }
                p += 1;
            }
            if let Some(s) = run {
                bands.push((i, j.start, j.end, s, p - s));
            }
        }
        let t0 = jobs.iter().map(|j| j.start).fold(f64::INFINITY, f64::min);
        let t1 = jobs.iter().map(|j| j.end).fold(f64::NEG_INFINITY, f64::max);
        Some(GanttLayout {
            procs,
            t0,
            t1: if t1 > t0 { t1 } else { t0 + 1.0 },
            bands,
        })
    }

    /// The part of the layout between times `t0` and `t1` (bands cut to it).
    pub fn window(&self, t0: f64, t1: f64) -> GanttLayout {
        let bands = self
            .bands
            .iter()
            .filter(|b| b.2 > t0 && b.1 < t1)
            .map(|&(i, s, e, p0, n)| (i, s.max(t0), e.min(t1), p0, n))
            .collect();
        GanttLayout {
            procs: self.procs,
            t0,
            t1: if t1 > t0 { t1 } else { t0 + 1.0 },
            bands,
        }
    }

    /// The job drawn at time `t` (seconds) on processor `p`, if any.
    pub fn job_at(&self, t: f64, p: f64) -> Option<usize> {
        self.bands
            .iter()
            .find(|&&(_, s, e, p0, n)| {
                t >= s && t < e && p >= f64::from(p0) && p < f64::from(p0 + n)
            })
            .map(|b| b.0)
    }
}

/// Pixel rectangle of a chart's plotting area and the data it spans: maps the mouse back to
/// (time, processor).
#[derive(Clone, Debug)]
pub struct PlotArea {
    pub px: (i32, i32),
    pub py: (i32, i32),
    /// Time at the left and right edges, seconds.
    pub t: (f64, f64),
    pub procs: f64,
}

impl PlotArea {
    /// The area of a Gantt chart whose plotting area spans the pixel ranges `xr`, `yr`.
    pub fn of(
        xr: std::ops::Range<i32>,
        yr: std::ops::Range<i32>,
        layout: &GanttLayout,
    ) -> PlotArea {
        PlotArea {
            px: (xr.start, xr.end),
            py: (yr.start, yr.end),
            t: (layout.t0, layout.t1),
            procs: f64::from(layout.procs),
        }
    }

    /// (time in seconds, processor) at canvas pixel (x, y), if inside the plotting area.
    pub fn at(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let (x0, x1) = (f64::from(self.px.0), f64::from(self.px.1));
        let (y0, y1) = (f64::from(self.py.0), f64::from(self.py.1));
        if x < x0 || x > x1 || y < y0 || y > y1 || x1 <= x0 || y1 <= y0 {
            return None;
        }
        let t = self.t.0 + (x - x0) / (x1 - x0) * (self.t.1 - self.t.0);
        let p = (y1 - y) / (y1 - y0) * self.procs;
        Some((t, p))
    }
}

/// Draws the Gantt chart of one run into the canvas `chart-gantt`; returns its plotting area
/// (for hover) and the same chart as SVG.
pub fn draw_gantt(
    policy: PolicyKind,
    layout: &GanttLayout,
    jobs: &[JobRecord],
) -> Result<(PlotArea, String), String> {
    let ((xr, yr), svg) = both(
        "chart-gantt",
        |r| plot_gantt(r, policy, layout, jobs),
        |r| plot_gantt(r, policy, layout, jobs),
    )?;
    Ok((PlotArea::of(xr, yr, layout), svg))
}

/// Pixel ranges (x, y) of a chart's plotting area.
pub type PixelRanges = (std::ops::Range<i32>, std::ops::Range<i32>);

/// Draws a Gantt chart on any plotters backend; returns the plotting area's pixel ranges.
fn plot_gantt<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    policy: PolicyKind,
    layout: &GanttLayout,
    jobs: &[JobRecord],
) -> Result<PixelRanges, String> {
    root.fill(&WHITE).map_err(err)?;
    let c = colour(policy);
    let shades = [0.35, 0.5, 0.65, 0.8, 0.95];
    plot_gantt_bands(
        root,
        &format!("Schedule of {} ({} jobs)", label(policy), jobs.len()),
        layout,
        &|i| c.mix(shades[jobs.get(i).map_or(0, |j| j.id as usize) % shades.len()]),
    )
}

/// The axes (time since the first start × processors) and the bands of a Gantt chart in
/// `area`, job `i` in colour `colour(i)`; returns the plotting area's pixel ranges.
pub fn plot_gantt_bands<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    layout: &GanttLayout,
    colour: &dyn Fn(usize) -> RGBAColor,
) -> Result<PixelRanges, String> {
    plot_gantt_axes(
        area,
        title,
        "Simulated time since the first start",
        layout,
        colour,
    )
}

/// [`plot_gantt_bands`] with the x axis described as `x_desc` (its unit appended), time 0 at
/// `layout.t0`.
fn plot_gantt_axes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    layout: &GanttLayout,
    colour: &dyn Fn(usize) -> RGBAColor,
) -> Result<PixelRanges, String> {
    let (div, unit) = time_unit(layout.t1 - layout.t0);
    let x1 = (layout.t1 - layout.t0) / div;
    let procs = f64::from(layout.procs);
    let (x_ticks, y_ticks) = (
        AxisFormat::new(0.0, x1, 10),
        AxisFormat::counts(0.0, procs, 6),
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 17))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(62)
        .build_cartesian_2d(0.0..x1, 0.0..procs)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(format!("{x_desc} ({unit})"))
        .y_desc("Processors")
        .x_labels(10)
        .y_labels(6)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .disable_mesh()
        .x_label_formatter(&|v| x_ticks.label(*v))
        .y_label_formatter(&|v| y_ticks.label(*v))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(layout.bands.iter().map(|&(i, s, e, p0, n)| {
            Rectangle::new(
                [
                    ((s - layout.t0) / div, f64::from(p0)),
                    ((e - layout.t0) / div, f64::from(p0 + n)),
                ],
                colour(i).filled(),
            )
        }))
        .map_err(err)?;
    Ok(chart.plotting_area().get_pixel_range())
}

/// How a job is drawn in the replay's Gantt chart at the replay's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Band {
    /// Running now: the policy's colour.
    Running,
    /// Ended.
    Done,
    /// Waiting now: where it will run, pale amber.
    Queued,
    /// Not arrived yet.
    Future,
}

/// What a frame of the replay's Gantt chart says: its title, the x axis' description (its unit
/// is appended; time 0 is the layout's `t0`), the running jobs' colour and the time of the
/// cursor.
pub struct ReplayFrame<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub colour: RGBColor,
    pub t: f64,
}

/// Draws the replay's Gantt chart of a run into canvas `canvas_id`: job `i`
/// shaded by `band(i)` (running jobs in the frame's colour) and numbered `label(i)` where it
/// fits, a vertical cursor at the frame's time. Canvas only (it is redrawn at every step);
/// returns the plotting area for hover.
pub fn draw_replay_gantt(
    canvas_id: &str,
    frame: &ReplayFrame<'_>,
    layout: &GanttLayout,
    band: &dyn Fn(usize) -> Band,
    label: &dyn Fn(usize) -> String,
) -> Result<PlotArea, String> {
    let ReplayFrame {
        title,
        x_desc,
        colour,
        t,
    } = *frame;
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| format!("no canvas #{canvas_id}"))?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (xr, yr) = plot_gantt_axes(&root, title, x_desc, layout, &|i| match band(i) {
        Band::Running => colour.mix(0.9),
        Band::Done => RGBColor(0x9a, 0xa3, 0xb0).mix(0.45),
        Band::Queued => RGBColor(0xe0, 0x8a, 0x1e).mix(0.35),
        Band::Future => RGBColor(0x9a, 0xa3, 0xb0).mix(0.15),
    })?;
    let area = PlotArea::of(xr.clone(), yr.clone(), layout);
    let span = layout.t1 - layout.t0;
    let px = |t: f64| xr.start as f64 + (t - layout.t0) / span * (xr.end - xr.start) as f64;
    let py =
        |p: f64| yr.end as f64 - p / f64::from(layout.procs.max(1)) * (yr.end - yr.start) as f64;
    // A white edge around every band, so that neighbours in one colour stay apart.
    if span > 0.0 {
        for &(_, s, e, p0, n) in &layout.bands {
            let (x0, x1) = (px(s).round() as i32, px(e).round() as i32);
            let (y0, y1) = (
                py(f64::from(p0 + n)).round() as i32,
                py(f64::from(p0)).round() as i32,
            );
            if x1 - x0 >= 3 && y1 - y0 >= 3 {
                root.draw(&Rectangle::new([(x0, y0), (x1, y1)], WHITE.stroke_width(1)))
                    .map_err(err)?;
            }
        }
    }
    // Each job's number on its tallest band, where there is room.
    if span > 0.0 {
        let jobs = layout.bands.iter().map(|b| b.0 + 1).max().unwrap_or(0);
        let mut tallest: Vec<Option<&GanttBand>> = vec![None; jobs];
        for b in &layout.bands {
            if tallest[b.0].is_none_or(|t| b.4 > t.4) {
                tallest[b.0] = Some(b);
            }
        }
        let style = (FONT, 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        for &(i, s, e, p0, n) in tallest.into_iter().flatten() {
            let (x0, x1) = (px(s), px(e));
            let (y0, y1) = (py(f64::from(p0 + n)), py(f64::from(p0)));
            let text = label(i);
            if x1 - x0 >= 8.0 * text.len() as f64 + 6.0 && y1 - y0 >= 14.0 {
                let at = (
                    ((x0 + x1) / 2.0).round() as i32,
                    ((y0 + y1) / 2.0).round() as i32,
                );
                root.draw(&Text::new(text, at, style.clone()))
                    .map_err(err)?;
            }
        }
    }
    if t >= layout.t0 && t <= layout.t1 && span > 0.0 {
        let x = px(t).round() as i32;
        let cursor = RGBColor(0xb0, 0x1e, 0x2e);
        root.draw(&PathElement::new(
            vec![(x, yr.start - 4), (x, yr.end)],
            cursor.stroke_width(2),
        ))
        .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(area)
}

/// The run comparison's histogram: how many jobs run B started how much
/// earlier (green, left of 0) or later (red) than run A, jobs that did not move left out.
pub fn draw_shift_histogram(
    id: &str,
    bins: &[crate::metrics::compare::Bin],
    a: &str,
    b: &str,
) -> Result<String, String> {
    let draw = |root: &DrawingArea<_, Shift>| plot_shift_histogram(root, bins, a, b);
    both(id, draw, |root| plot_shift_histogram(root, bins, a, b)).map(|((), svg)| svg)
}

fn plot_shift_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    bins: &[crate::metrics::compare::Bin],
    a: &str,
    b: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let (Some(first), Some(last)) = (bins.first(), bins.last()) else {
        return Ok(());
    };
    let span = first.lo.abs().max(last.hi.abs());
    let (div, unit) = time_unit(span);
    let (x0, x1) = ((first.lo / div).min(0.0), (last.hi / div).max(0.0));
    let pad = ((x1 - x0) * 0.02).max(1e-9);
    let top = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64 * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "Start shift of the {} jobs that moved: {b} minus {a}",
                crate::form::format::count(bins.iter().map(|bin| bin.count as u64).sum())
            ),
            (FONT, 18).into_font(),
        )
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(format!(
            "Start shift ({unit}); negative: {b} starts the job earlier"
        ))
        .y_desc("Jobs")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    let earlier = RGBColor(46, 139, 87);
    let later = RGBColor(200, 60, 60);
    chart
        .draw_series(bins.iter().filter(|bin| bin.count > 0).map(|bin| {
            let c = if bin.lo + bin.hi < 0.0 {
                earlier
            } else {
                later
            };
            Rectangle::new(
                [(bin.lo / div, 0.0), (bin.hi / div, bin.count as f64)],
                c.filled(),
            )
        }))
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), (0.0, top)],
            BLACK.stroke_width(1),
        )))
        .map_err(err)?;
    Ok(())
}
