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

use super::chart::{both, short_number};

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

fn plot_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    cmp: &GridComparison,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let Some(first) = cmp.runs.first() else {
        return Ok(());
    };
    // Groups: the whole grid, then each site (its own users' jobs).
    let mut groups: Vec<(String, Option<usize>)> = vec![("Whole grid".to_string(), None)];
    for (i, s) in first.metrics.sites.iter().enumerate() {
        groups.push((s.name.clone(), Some(i)));
    }
    let ng = groups.len();
    // The legend in a strip above the three panels, so that it never hides a bar.
    let (strip, body) = root.split_vertically(30);
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
    let label_chars = (90 / ng.max(1)).clamp(3, 12);
    for (panel, &(title, y_desc, div, value)) in panels.iter().zip(METRICS.iter()) {
        let vmax = cmp
            .runs
            .iter()
            .flat_map(|r| groups.iter().map(move |g| value(&r.metrics, g.1) / div))
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ymax = if vmax > 0.0 { vmax * 1.15 } else { 1.0 };
        let mut chart = ChartBuilder::on(panel)
            .caption(title, (FONT, 16))
            .margin(10)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..ng as f64, 0.0..ymax)
            .map_err(err)?;
        let names: Vec<String> = groups.iter().map(|g| clip(&g.0, label_chars)).collect();
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
            .y_label_formatter(&|v| short_number(*v))
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
    Ok(())
}

/// The grouped bars of AWRT / AWWT / AWSD in the canvas `id`; returns them as SVG.
pub fn draw_metrics(id: &str, cmp: &GridComparison) -> Result<String, String> {
    both(id, |r| plot_bars(r, cmp), |r| plot_bars(r, cmp)).map(|((), svg)| svg)
}

fn plot_load<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    m: &GridMetrics,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let lines: Vec<(String, Vec<(f64, f64)>)> = m
        .sites
        .iter()
        .map(|s| {
            let pts = s
                .load_by_hour
                .iter()
                .enumerate()
                .map(|(h, v)| (h as f64 + 0.5, v / 3600.0))
                .collect();
            (s.name.clone(), pts)
        })
        .collect();
    let ymax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    // Room above the lines for the legend.
    let ymax = if ymax > 0.0 {
        ymax * (1.2 + 0.12 * lines.len().min(8) as f64)
    } else {
        1.0
    };
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 16))
        .margin(12)
        .margin_right(26)
        .x_label_area_size(42)
        .y_label_area_size(62)
        .build_cartesian_2d(0.0..24.0, 0.0..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("Local hour of day")
        .y_desc("Squashed area (node·hours)")
        .x_labels(25)
        .y_labels(6)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .light_line_style(RGBColor(0xee, 0xf0, 0xf4))
        .bold_line_style(RGBColor(0xdd, 0xe1, 0xe8))
        .x_label_formatter(&|v: &f64| {
            let h = v.round();
            if (v - h).abs() < 1e-6 && (h as i64) % 3 == 0 {
                format!("{:02}:00", h as i64)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| short_number(*v))
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in lines.iter().enumerate() {
        let c = site_colour(i);
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
            .map_err(err)?
            .label(clip(name, 18))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(0xc6, 0xce, 0xdb))
        .label_font((FONT, 12))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Squashed area by local hour of day, one line per site, of configuration `m`, in the canvas
/// `id`; returns it as SVG.
pub fn draw_load(id: &str, title: &str, m: &GridMetrics) -> Result<String, String> {
    both(id, |r| plot_load(r, title, m), |r| plot_load(r, title, m)).map(|((), svg)| svg)
}
