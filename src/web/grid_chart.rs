//! The charts of the Grid mode (Ernemann et al. §V, Table IV and Fig. 4), drawn with plotters on
//! `<canvas>` like [`super::chart`]: AWRT, AWWT and AWSD of every site and of the whole grid,
//! single sites vs job sharing (grouped bars, three panels because the units differ), and the
//! squashed area by local hour of day, one line per site (Fig. 4), for each configuration.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::grid::metrics::GridMetrics;
use crate::grid::Sharing;
use crate::modes::grid::run::{sharing_label, GridComparison};

const FONT: &str = "sans-serif";

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

/// Colour of a configuration's bars.
pub fn config_colour(s: Sharing) -> RGBColor {
    match s {
        Sharing::Single => RGBColor(0x8a, 0x94, 0xa6),
        Sharing::JobSharing => RGBColor(0x2e, 0x6f, 0xdf),
    }
}

/// Colour of site `i` (cycles after eight sites), the same in every chart and clock.
pub fn site_colour(i: usize) -> RGBColor {
    const P: [RGBColor; 8] = [
        RGBColor(0x2e, 0x6f, 0xdf),
        RGBColor(0xd1, 0x49, 0x5b),
        RGBColor(0x1f, 0x9d, 0x7a),
        RGBColor(0xe0, 0x8a, 0x1e),
        RGBColor(0x7b, 0x4f, 0xc9),
        RGBColor(0x0f, 0x9b, 0xb5),
        RGBColor(0x9c, 0x6b, 0x30),
        RGBColor(0x5c, 0x68, 0x78),
    ];
    P[i % P.len()]
}

/// `#rrggbb` of a colour (for the HTML clocks).
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

use super::chart::{both, line_access, plot_lines, Curve, LineSpec, TickFormat, Ticks};
use super::chart_access::{self, Access, Point};
use super::format;
use crate::form::format::AxisFormat;

/// The width of a label's character at 12 px, about (for fitting group names under bars).
const LABEL_CHAR_PX: f64 = 7.0;

/// At most `n` characters of `s`, with `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// One metric of the bar chart: title, axis label, divisor, and its value in a summary.
type Metric = (
    &'static str,
    &'static str,
    f64,
    fn(&GridMetrics, Option<usize>) -> f64,
);

fn awrt(m: &GridMetrics, s: Option<usize>) -> f64 {
    s.and_then(|i| m.sites.get(i))
        .map_or(m.overall.awrt, |x| x.submitted.awrt)
}
fn awwt(m: &GridMetrics, s: Option<usize>) -> f64 {
    s.and_then(|i| m.sites.get(i))
        .map_or(m.overall.awwt, |x| x.submitted.awwt)
}
fn awsd(m: &GridMetrics, s: Option<usize>) -> f64 {
    s.and_then(|i| m.sites.get(i))
        .map_or(m.overall.awsd, |x| x.submitted.awsd)
}

const METRICS: [Metric; 3] = [
    ("AWRT", "AWRT (hours)", 3600.0, awrt),
    ("AWWT", "AWWT (hours)", 3600.0, awwt),
    ("AWSD", "AWSD (dimensionless)", 1.0, awsd),
];

/// Draws the grouped bars; returns every bar's top centre (canvas pixels) and tooltip.
fn plot_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    cmp: &GridComparison,
) -> Result<Vec<Point>, String> {
    root.fill(&WHITE).map_err(err)?;
    let mut tops = Vec::new();
    let Some(first) = cmp.runs.first() else {
        return Ok(tops);
    };
    // Groups: the whole grid, then each site (its own users' jobs).
    let mut groups: Vec<(String, Option<usize>)> = vec![("Whole grid".to_string(), None)];
    for (i, s) in first.metrics.sites.iter().enumerate() {
        groups.push((s.name.clone(), Some(i)));
    }
    let ng = groups.len();
    // Names under the bars when every name fits under its group; otherwise short keys ("All",
    // "1", "2", …) and a key strip at the bottom naming them, so that no two labels overlap.
    let (cw, ch) = root.dim_in_pixel();
    let group_px = (f64::from(cw) / METRICS.len() as f64 - 76.0) / ng.max(1) as f64;
    let fits = groups
        .iter()
        .all(|g| g.0.chars().count() as f64 * LABEL_CHAR_PX <= group_px - 6.0);
    let keyed = !fits;
    let (root_top, key_strip) =
        root.split_vertically(if keyed { ch.saturating_sub(24) } else { ch });
    if keyed {
        let keys: Vec<String> = groups
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, g)| format!("{i} = {}", g.0))
            .collect();
        let text = format!("Sites: {}", keys.join(" · "));
        key_strip
            .draw(&Text::new(
                clip(&text, (f64::from(cw) / LABEL_CHAR_PX) as usize),
                (i32::try_from(cw / 2).unwrap_or(0), 10),
                TextStyle::from((FONT, 12).into_font())
                    .color(&RGBColor(0x33, 0x3d, 0x4a))
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(err)?;
    }
    // The legend in a strip above the three panels, so that it never hides a bar.
    let (strip, body) = root_top.split_vertically(30);
    let (w, _) = strip.dim_in_pixel();
    let legend_style = TextStyle::from((FONT, 13).into_font())
        .color(&RGBColor(0x1c, 0x24, 0x30))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut x = w as i32 / 2 - 110 * cmp.runs.len() as i32 / 2;
    for r in &cmp.runs {
        let c = config_colour(r.sharing);
        strip
            .draw(&Rectangle::new([(x, 10), (x + 14, 22)], c.filled()))
            .map_err(err)?;
        strip
            .draw(&Text::new(
                sharing_label(r.sharing),
                (x + 20, 16),
                legend_style.clone(),
            ))
            .map_err(err)?;
        x += 120;
    }
    let panels = body.split_evenly((1, METRICS.len()));
    for (panel, &(title, y_desc, div, value)) in panels.iter().zip(METRICS.iter()) {
        let vmax = cmp
            .runs
            .iter()
            .flat_map(|r| groups.iter().map(move |g| value(&r.metrics, g.1) / div))
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ymax = if vmax > 0.0 { vmax * 1.15 } else { 1.0 };
        let y_ticks = AxisFormat::new(0.0, ymax, 6);
        let mut chart = ChartBuilder::on(panel)
            .caption(title, (FONT, 16))
            .margin(10)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..ng as f64, 0.0..ymax)
            .map_err(err)?;
        let names: Vec<String> = groups
            .iter()
            .enumerate()
            .map(|(i, g)| match (keyed, i) {
                (false, _) => g.0.clone(),
                (true, 0) => "All".to_string(),
                (true, i) => i.to_string(),
            })
            .collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc(y_desc)
            .x_desc("Site (its users' jobs)")
            .x_labels(0)
            .y_labels(6)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .light_line_style(RGBColor(0xee, 0xf0, 0xf4))
            .bold_line_style(RGBColor(0xdd, 0xe1, 0xe8))
            .y_label_formatter(&|v| y_ticks.label(*v))
            .draw()
            .map_err(err)?;
        // Group names under the axis (the labels of a continuous axis are numbers).
        let base = panel.get_base_pixel();
        let style = TextStyle::from((FONT, 12).into_font())
            .color(&RGBColor(0x33, 0x3d, 0x4a))
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (g, name) in names.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(g as f64 + 0.5, 0.0));
            panel
                .draw(&Text::new(
                    name.clone(),
                    (px - base.0, py - base.1 + 8),
                    style.clone(),
                ))
                .map_err(err)?;
        }
        let nr = cmp.runs.len().max(1) as f64;
        let width = 0.8 / nr;
        for (k, r) in cmp.runs.iter().enumerate() {
            let c = config_colour(r.sharing);
            for (g, grp) in groups.iter().enumerate() {
                let v = value(&r.metrics, grp.1) / div;
                if v.is_finite() {
                    let x = g as f64 + 0.1 + (k as f64 + 0.46) * width;
                    let (px, py) = chart.backend_coord(&(x, v));
                    tops.push(Point {
                        px: f64::from(px),
                        py: f64::from(py),
                        tip: format!(
                            "{}, {}\n{y_desc}: {}",
                            grp.0,
                            sharing_label(r.sharing),
                            format::significant(v, 4)
                        ),
                    });
                }
            }
            let bars = groups.iter().enumerate().filter_map(|(g, grp)| {
                let v = value(&r.metrics, grp.1) / div;
                v.is_finite().then(|| {
                    let x0 = g as f64 + 0.1 + k as f64 * width;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.92, v)], c.filled())
                })
            });
            chart.draw_series(bars).map_err(err)?;
        }
    }
    Ok(tops)
}

/// The grouped bars of AWRT / AWWT / AWSD in the canvas `id`; returns them as SVG.
pub fn draw_metrics(id: &str, cmp: &GridComparison) -> Result<String, String> {
    let (points, svg) = both(id, |r| plot_bars(r, cmp), |r| plot_bars(r, cmp))?;
    let mut rows = Vec::new();
    if let Some(first) = cmp.runs.first() {
        let groups = std::iter::once(("Whole grid".to_string(), None)).chain(
            first
                .metrics
                .sites
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name.clone(), Some(i))),
        );
        for (name, site) in groups {
            for r in &cmp.runs {
                let mut row = vec![format!("{name}, {}", sharing_label(r.sharing))];
                for &(_, _, div, value) in &METRICS {
                    row.push(format::significant(value(&r.metrics, site) / div, 4));
                }
                rows.push(row);
            }
        }
    }
    chart_access::attach(
        id,
        Access {
            caption: "AWRT, AWWT and AWSD per site, single sites and job sharing".into(),
            columns: std::iter::once("Site, configuration".to_string())
                .chain(METRICS.iter().map(|m| m.1.to_string()))
                .collect(),
            rows,
            points,
            own_hover: false,
        },
    );
    Ok(svg)
}

/// `9.0` → `"09:00"` every third hour; the other ticks unlabelled.
fn hour_tick(v: f64) -> String {
    let h = v.round();
    if (v - h).abs() < 1e-6 && (h as i64) % 3 == 0 {
        format!("{:02}:00", h as i64)
    } else {
        String::new()
    }
}

/// The lines of the squashed area by local hour, one per site: (site name, points).
fn load_lines(m: &GridMetrics) -> Vec<(String, Vec<(f64, f64)>)> {
    m.sites
        .iter()
        .map(|s| {
            let pts = s
                .load_by_hour
                .iter()
                .enumerate()
                .map(|(h, v)| (h as f64 + 0.5, v / 3600.0))
                .collect();
            (clip(&s.name, 18), pts)
        })
        .collect()
}

/// The line chart of `lines` (a line chart of [`super::chart`], the legend under it).
fn load_spec<'a>(title: &'a str, curves: &'a [Curve<'a>]) -> LineSpec<'a> {
    let ymax = curves
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    LineSpec {
        title,
        x_desc: "Local hour of day",
        y_desc: "Squashed area (node·hours)",
        x_range: (0.0, 24.0),
        y_range: (0.0, if ymax > 0.0 { ymax * 1.08 } else { 1.0 }),
        log_x: false,
        lines: curves,
        markers: false,
        ticks: Ticks {
            x_labels: 25,
            y_area: 62,
            x: TickFormat::Custom(hour_tick),
            y: TickFormat::Numbers,
        },
    }
}

/// Squashed area by local hour of day, one line per site, of configuration `m`, in the canvas
/// `id`; returns it as SVG.
pub fn draw_load(id: &str, title: &str, m: &GridMetrics) -> Result<String, String> {
    let lines = load_lines(m);
    let curves: Vec<Curve<'_>> = lines
        .iter()
        .enumerate()
        .map(|(i, (name, pts))| Curve {
            label: name,
            colour: site_colour(i),
            points: pts,
        })
        .collect();
    let spec = load_spec(title, &curves);
    let (ranges, svg) = both(id, |r| plot_lines(r, &spec), |r| plot_lines(r, &spec))?;
    chart_access::attach(id, line_access(&spec, &[(&spec, ranges)]));
    Ok(svg)
}
