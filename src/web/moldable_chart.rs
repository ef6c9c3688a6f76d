//! The charts of the moldable mode (Srinivasan et al. §3–5, Figs. 1–11), drawn with plotters on
//! `<canvas>` like [`super::chart`]: the % change of mean turnaround against rigid
//! conservative backfilling, overall and per weight category (grouped bars, one colour per
//! strategy, as the paper's figures), and, for small runs, a Gantt chart (time × processors)
//! of one strategy whose jobs are coloured by the processor count they were given against the
//! trace's count.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{both, plot_gantt_bands, short_number, GanttLayout, PixelRanges, PlotArea};
use super::chart_access::{self, Access, Point};
use super::format;
use crate::base::Registered;
use crate::form::format::AxisFormat;
use crate::metrics::{CategoryStat, JobRecord};
use crate::modes::moldable::run::{MoldJobRecord, MoldableReport};
use crate::policy::moldable::MoldableStrategyKind;

const FONT: &str = "sans-serif";

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

/// Colour of a strategy, by its place in [`crate::policy::moldable::MOLDABLE_STRATEGIES`]
/// (a new strategy gets the next colour without an edit here).
pub fn strategy_colour(k: MoldableStrategyKind) -> RGBColor {
    const P: [RGBColor; 13] = [
        RGBColor(0x4a, 0x4f, 0x5a),
        RGBColor(0x2e, 0x6f, 0xdf),
        RGBColor(0xd1, 0x49, 0x5b),
        RGBColor(0xe0, 0x8a, 0x1e),
        RGBColor(0x7b, 0x4f, 0xc9),
        RGBColor(0x0f, 0x9b, 0xb5),
        RGBColor(0x9c, 0x6b, 0x30),
        RGBColor(0xc2, 0x4f, 0x9e),
        RGBColor(0x6a, 0x9a, 0x1f),
        RGBColor(0x35, 0x4f, 0x8f),
        RGBColor(0xb0, 0x3a, 0x2e),
        RGBColor(0x8a, 0x94, 0xa6),
        RGBColor(0x1f, 0x9d, 0x7a),
    ];
    P[k.key().0 % P.len()]
}

/// `#rrggbb` of a colour (for the HTML legend and table).
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// A category bound as the axis shows it: `8`, `512`, `4.1k`.
fn bound(v: f64) -> String {
    if v < 1000.0 {
        format!("{v:.0}")
    } else {
        short_number(v)
    }
}

/// The weight range of a category as the axis shows it (`8–64`, `≥ 134.2M`), in
/// processor-seconds.
pub fn category_label(c: &CategoryStat) -> String {
    match c.max_weight {
        Some(hi) if c.min_weight <= 0.0 => format!("< {}", bound(hi)),
        Some(hi) => format!("{}–{}", bound(c.min_weight), bound(hi)),
        None => format!("≥ {}", bound(c.min_weight)),
    }
}

/// A legend strip: one swatch and label per entry, centred.
fn legend<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor)],
) -> Result<(), String> {
    let (w, _) = strip.dim_in_pixel();
    let style = TextStyle::from((FONT, 13).into_font())
        .color(&RGBColor(0x1c, 0x24, 0x30))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let widths: Vec<i32> = entries
        .iter()
        .map(|(l, _)| 30 + 7 * l.chars().count() as i32)
        .collect();
    let mut x = (w as i32 - widths.iter().sum::<i32>()).max(0) / 2;
    for ((label, c), width) in entries.iter().zip(widths) {
        strip
            .draw(&Rectangle::new([(x, 10), (x + 14, 22)], c.filled()))
            .map_err(err)?;
        strip
            .draw(&Text::new(label.clone(), (x + 20, 16), style.clone()))
            .map_err(err)?;
        x += width;
    }
    Ok(())
}

/// The groups of the bar chart: all jobs, then every category with jobs in the reference.
fn groups(report: &MoldableReport) -> Vec<(String, Option<usize>)> {
    let mut g = vec![("All jobs".to_string(), None)];
    for c in report.reference.categories.iter().filter(|c| c.jobs > 0) {
        g.push((category_label(c), Some(c.category)));
    }
    g
}

/// Draws the grouped bars; returns every bar's end (canvas pixels) and tooltip.
fn plot_changes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &MoldableReport,
) -> Result<Vec<Point>, String> {
    root.fill(&WHITE).map_err(err)?;
    let groups = groups(report);
    let ng = groups.len();
    let value = |r: &crate::modes::moldable::run::StrategyRun, g: Option<usize>| -> Option<f64> {
        match g {
            None => Some(r.change.overall_pct),
            Some(k) => r.change.categories_pct.get(k).copied().flatten(),
        }
    };
    let (strip, body) = root.split_vertically(30);
    let entries: Vec<(String, RGBColor)> = report
        .runs
        .iter()
        .filter_map(|r| MoldableStrategyKind::parse(&r.output.strategy).ok())
        .map(|k| (k.entry().short.to_string(), strategy_colour(k)))
        .collect();
    legend(&strip, &entries)?;
    let values = report
        .runs
        .iter()
        .flat_map(|r| groups.iter().filter_map(move |g| value(r, g.1)))
        .filter(|v| v.is_finite());
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = ((hi - lo) * 0.08).max(1.0);
    let (y0, y1) = (lo - if lo < 0.0 { pad } else { 0.0 }, hi + pad);
    let y_ticks = AxisFormat::new(y0, y1, 8);
    let mut tops = Vec::new();
    let mut chart = ChartBuilder::on(&body)
        .margin(10)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..ng as f64, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc("Mean turnaround, % change")
        .x_desc("Weight category (processors × run time of the trace job, processor-seconds)")
        .x_labels(0)
        .y_labels(8)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .light_line_style(RGBColor(0xee, 0xf0, 0xf4))
        .bold_line_style(RGBColor(0xdd, 0xe1, 0xe8))
        .y_label_formatter(&|v| {
            let s = y_ticks.label(*v);
            if *v > 0.0 && !s.is_empty() {
                format!("+{s} %")
            } else {
                format!("{s} %")
            }
        })
        .draw()
        .map_err(err)?;
    // Group names under the axis (the labels of a continuous axis are numbers).
    let base = body.get_base_pixel();
    let style = TextStyle::from((FONT, 12).into_font())
        .color(&RGBColor(0x33, 0x3d, 0x4a))
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (g, (name, _)) in groups.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(g as f64 + 0.5, y0));
        body.draw(&Text::new(
            name.clone(),
            (px - base.0, py - base.1 + 8),
            style.clone(),
        ))
        .map_err(err)?;
    }
    let nr = report.runs.len().max(1) as f64;
    let width = 0.8 / nr;
    for (k, r) in report.runs.iter().enumerate() {
        let c = MoldableStrategyKind::parse(&r.output.strategy)
            .map_or(RGBColor(0x4a, 0x4f, 0x5a), strategy_colour);
        let name = strategy_name(r);
        for (g, grp) in groups.iter().enumerate() {
            if let Some(v) = value(r, grp.1).filter(|v| v.is_finite()) {
                let (px, py) =
                    chart.backend_coord(&(g as f64 + 0.1 + (k as f64 + 0.46) * width, v));
                tops.push(Point {
                    px: f64::from(px),
                    py: f64::from(py),
                    tip: format!(
                        "{name}, {}\nMean turnaround: {} % against rigid conservative backfilling",
                        grp.0,
                        signed(v)
                    ),
                });
            }
        }
        let bars = groups.iter().enumerate().filter_map(|(g, grp)| {
            let v = value(r, grp.1)?;
            v.is_finite().then(|| {
                let x0 = g as f64 + 0.1 + k as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width * 0.92, v)], c.filled())
            })
        });
        chart.draw_series(bars).map_err(err)?;
    }
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (ng as f64, 0.0)],
            RGBColor(0x1c, 0x24, 0x30).stroke_width(1),
        ))
        .map_err(err)?;
    // The first group (all jobs) set apart.
    chart
        .draw_series(LineSeries::new(
            [(1.0, y0), (1.0, y1)],
            RGBColor(0xc8, 0xcd, 0xd6).stroke_width(1),
        ))
        .map_err(err)?;
    Ok(tops)
}

/// A strategy's short name.
fn strategy_name(r: &crate::modes::moldable::run::StrategyRun) -> String {
    MoldableStrategyKind::parse(&r.output.strategy).map_or_else(
        |_| r.output.strategy.clone(),
        |k| k.entry().short.to_string(),
    )
}

/// A % change with its sign, 3 significant digits: `+12.3`, `−4.56`.
fn signed(v: f64) -> String {
    let s = format::significant(v, 3);
    if v > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// The grouped bars of % change per category in the canvas `id`; returns them as SVG.
pub fn draw_changes(id: &str, report: &MoldableReport) -> Result<String, String> {
    let (points, svg) = both(id, |r| plot_changes(r, report), |r| plot_changes(r, report))?;
    let groups = groups(report);
    let rows = report
        .runs
        .iter()
        .map(|r| {
            let mut row = vec![strategy_name(r)];
            for (_, g) in &groups {
                let v = match g {
                    None => Some(r.change.overall_pct),
                    Some(k) => r.change.categories_pct.get(*k).copied().flatten(),
                };
                row.push(v.filter(|v| v.is_finite()).map_or("–".into(), signed));
            }
            row
        })
        .collect();
    chart_access::attach(
        id,
        Access {
            caption: "Mean turnaround, % change against rigid conservative backfilling, per \
                      weight category (processor-seconds)"
                .into(),
            columns: std::iter::once("Strategy".to_string())
                .chain(groups.iter().map(|g| g.0.clone()))
                .collect(),
            rows,
            points,
            own_hover: false,
        },
    );
    Ok(svg)
}

/// Colour of a job in the Gantt chart: fewer processors than the trace, as many, or more.
pub fn count_colour(j: &MoldJobRecord) -> RGBColor {
    match j.record.procs.cmp(&j.trace_procs) {
        std::cmp::Ordering::Less => RGBColor(0x2e, 0x6f, 0xdf),
        std::cmp::Ordering::Equal => RGBColor(0x8a, 0x94, 0xa6),
        std::cmp::Ordering::Greater => RGBColor(0xe0, 0x8a, 0x1e),
    }
}

/// The legend of the Gantt chart's colours.
pub const COUNT_LEGEND: [(&str, RGBColor); 3] = [
    (
        "Fewer processors than the trace",
        RGBColor(0x2e, 0x6f, 0xdf),
    ),
    ("As many as the trace", RGBColor(0x8a, 0x94, 0xa6)),
    ("More than the trace", RGBColor(0xe0, 0x8a, 0x1e)),
];

/// The Gantt layout of a schedule (each job on the count it was given).
pub fn layout(jobs: &[MoldJobRecord], procs: u32) -> Option<(GanttLayout, Vec<JobRecord>)> {
    let records: Vec<JobRecord> = jobs.iter().map(|j| j.record.clone()).collect();
    GanttLayout::new(&records, procs).map(|l| (l, records))
}

fn plot_gantt<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    layout: &GanttLayout,
    jobs: &[MoldJobRecord],
) -> Result<PixelRanges, String> {
    root.fill(&WHITE).map_err(err)?;
    let (strip, body) = root.split_vertically(30);
    let entries: Vec<(String, RGBColor)> = COUNT_LEGEND
        .iter()
        .map(|(l, c)| (l.to_string(), *c))
        .collect();
    legend(&strip, &entries)?;
    let shades = [0.55, 0.7, 0.85, 1.0];
    plot_gantt_bands(&body, title, layout, &|i| {
        jobs.get(i).map_or(BLACK.mix(0.5), |j| {
            count_colour(j).mix(shades[j.record.id as usize % shades.len()])
        })
    })
}

/// Draws the Gantt chart of one schedule into the canvas `id`; returns its plotting area (for
/// hover) and the same chart as SVG.
pub fn draw_gantt(
    id: &str,
    title: &str,
    layout: &GanttLayout,
    jobs: &[MoldJobRecord],
) -> Result<(PlotArea, String), String> {
    let ((xr, yr), svg) = both(
        id,
        |r| plot_gantt(r, title, layout, jobs),
        |r| plot_gantt(r, title, layout, jobs),
    )?;
    Ok((PlotArea::of(xr, yr, layout), svg))
}
