//! Drawing of the 2D-mesh mode: the mesh canvas (plain Canvas 2D) and the mode's charts
//! (plotters, like [`super::chart`]).
//!
//! The canvas shows the machine of Ababneh & Bani-Mohammad §2 / Mache et al. §2.1 at one instant of a run: every
//! compute node a cell, coloured by the job running on it (jobs on neighbouring nodes in
//! different colours of a qualitative palette, [`crate::network::heat::neighbour_colours`]; free
//! nodes blank), the line of I/O nodes on its side (Mache et al. §4.1; positions of the line
//! without an I/O node are routers, drawn as dots), and — toggleable — the link-contention
//! heatmap: every directed link carrying messages at that instant a short bar between its two
//! nodes (eastbound above westbound, northbound right of southbound), coloured by its load
//! ([`crate::network::heat`]: all-to-all communication and writes to the I/O nodes weighted by
//! the run's traffic ratio ρ, as in [`crate::modes::mesh::run::link_loads_at`]) on a scale from 0 to the
//! run's peak, with the legend on the right. Under the packet-level wormhole model (Mache et
//! al. §4.1, [`crate::network::wormhole`]) the heatmap can show instead the **blocked time per
//! link** over the whole run: for how long worms' headers waited for each link
//! ([`crate::modes::mesh::run::MeshLinks`]), in the workload's time unit, on a scale from 0 to
//! the most blocked link — where worms wait.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::CanvasRenderingContext2d;

use super::chart::{line_access, plot_lines, Curve, LineSpec, TickFormat, Ticks};
use super::chart_access::{self, Access, Point};
use super::format;
use super::protocol::MeshReport;
use crate::alloc::compactness::{tree_view, TreeView};
use crate::alloc::node_allocator::IoLayout;
use crate::machine::mesh::{Mesh, Submesh};
use crate::modes::mesh::run::{JobLayout, LinkTimes, MeshJobRecord, MeshLinks};
use crate::modes::mesh::spec::MeshExperiment;
use crate::network::heat::{
    css_hex, heat_colour, loads_at, neighbour_colours, running_waiting, Timeline, JOB_PALETTE,
};
use crate::network::{Dir, Network};

/// At most this many running jobs in the mesh's data table.
pub const MAX_TABLE_JOBS: usize = 500;

/// Width of the mesh area of the canvas (the legend is to its right), canvas pixels.
const MESH_AREA: f64 = 820.0;
const FONT: &str = "sans-serif";

/// The most blocked link and its blocked time (if any worm waited), the blocked time of every
/// link summed, and the share of it on links touching the I/O line.
pub type BlockedSummary<'a> = (Option<(&'a LinkTimes, f64)>, f64, f64);

/// What the heatmap shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heat {
    /// No heatmap.
    Off,
    /// The links' loads at the instant drawn.
    Load,
    /// Blocked time per link over the whole run (wormhole runs only).
    Blocked,
}

/// One finished run, ready to draw at any instant.
pub struct RunView {
    /// Allocator label (`MC-Elongated`) and policy.
    pub title: String,
    pub net: Network,
    pub rho: f64,
    pub jobs: Vec<MeshJobRecord>,
    pub layouts: Vec<JobLayout>,
    /// Submits, starts and ends of the jobs sent.
    pub timeline: Timeline,
    /// Top of the heat scale: the run's highest link load.
    pub peak: f64,
    /// Whether the run had more jobs than were sent.
    pub truncated: bool,
    /// Unit of the time axis (`s` or `time units`).
    pub unit: &'static str,
    /// The wormhole model's per-link counters (`None` under the other models).
    pub links: Option<MeshLinks>,
}

/// Where the mesh was drawn: for hit-testing the mouse.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Geometry {
    pub ox: f64,
    pub oy: f64,
    pub cell: f64,
    pub width: u32,
    pub height: u32,
}

impl Geometry {
    /// Canvas centre of node (x, y) of the extended grid.
    pub fn centre(&self, x: u32, y: u32) -> (f64, f64) {
        (
            self.ox + (f64::from(x) + 0.5) * self.cell,
            self.oy + (f64::from(self.height + 1 - y) + 0.5) * self.cell,
        )
    }

    /// The extended-grid node (x, y) under canvas point (px, py) (I/O line included).
    pub fn node_at(&self, px: f64, py: f64) -> Option<(u32, u32)> {
        if self.cell <= 0.0 {
            return None;
        }
        let gx = ((px - self.ox) / self.cell).floor();
        let gy = ((py - self.oy) / self.cell).floor();
        let (ew, eh) = (f64::from(self.width + 2), f64::from(self.height + 2));
        if gx < 0.0 || gy < 0.0 || gx >= ew || gy >= eh {
            return None;
        }
        Some((gx as u32, (eh - 1.0 - gy) as u32))
    }
}

impl RunView {
    /// The view of `report`, the run of `exp`; `None` when the experiment's network cannot be
    /// built (it was validated before the run, so this does not happen).
    pub fn new(exp: &MeshExperiment, report: &MeshReport) -> Option<RunView> {
        let net = exp.network_model().ok()?;
        let rho = exp.network.traffic_io;
        let out = &report.output;
        let layouts = out.layouts.clone();
        let jobs = out.jobs.clone();
        let timeline = Timeline::new(
            jobs.iter()
                .map(|j| (j.record.submit, j.record.start, j.record.end)),
        );
        let peak = if report.truncated {
            crate::modes::mesh::run::peak_link_loads(&net, &layouts, rho).0
        } else {
            out.mesh.max_link_load
        };
        let policy = if exp.allocator.is_contiguous() {
            format!(" · {}", out.policy)
        } else {
            String::new()
        };
        Some(RunView {
            title: format!("{}{policy}", exp.allocator.label()),
            net,
            rho,
            jobs,
            layouts,
            timeline,
            peak,
            truncated: report.truncated,
            unit: time_unit(exp),
            links: out.links.clone(),
        })
    }

    /// Blocked time of a link in the run's time unit (flit times × the flit time).
    fn blocked_time(&self, l: &LinkTimes) -> f64 {
        let ft = self.links.as_ref().map_or(1.0, |m| m.flit_time);
        l.blocked as f64 * ft
    }

    /// The most blocked link (and its blocked time), the blocked time of every link summed, and
    /// the share of that sum on links that touch the I/O line; `None` without link counters.
    pub fn blocked_summary(&self) -> Option<BlockedSummary<'_>> {
        let m = self.links.as_ref()?;
        let mut top: Option<(&LinkTimes, f64)> = None;
        let (mut total, mut io) = (0.0, 0.0);
        for l in &m.links {
            let b = self.blocked_time(l);
            total += b;
            let on_line = |p: [u32; 2]| {
                self.net
                    .is_io_line(crate::network::NetNode::new(p[0], p[1]))
            };
            if on_line(l.from) || on_line(l.to) {
                io += b;
            }
            if b > 0.0 && top.is_none_or(|(_, t)| b > t) {
                top = Some((l, b));
            }
        }
        let share = if total > 0.0 { io / total } else { 0.0 };
        Some((top, total, share))
    }

    /// Top of the blocked-time scale: the most blocked link's time (0 if none waited).
    pub fn blocked_peak(&self) -> f64 {
        self.links.as_ref().map_or(0.0, |m| {
            m.links
                .iter()
                .map(|l| self.blocked_time(l))
                .fold(0.0, f64::max)
        })
    }

    /// Jobs running and waiting at `t`.
    pub fn counts_at(&self, t: f64) -> (usize, usize) {
        running_waiting(
            self.jobs
                .iter()
                .map(|j| (j.record.submit, j.record.start, j.record.end)),
            t,
        )
    }

    /// The start time in [from, to] with the most jobs running (the first start after `from`
    /// if none is in the interval): where the view opens.
    pub fn busiest_start(&self, from: f64, to: f64) -> f64 {
        let mut starts: Vec<f64> = self
            .layouts
            .iter()
            .map(|l| l.start)
            .filter(|&s| s >= from && s <= to)
            .collect();
        starts.sort_by(f64::total_cmp);
        starts.dedup();
        let step = (starts.len() / 200).max(1);
        let mut best = (0usize, self.timeline.next_after(from).unwrap_or(from));
        for &s in starts.iter().step_by(step) {
            let n = self
                .layouts
                .iter()
                .filter(|l| l.start <= s && s < l.end)
                .count();
            if n > best.0 {
                best = (n, s);
            }
        }
        best.1
    }

    /// For each compute node (index (y − 1) · W + x − 1), the job running on it at `t`.
    pub fn occupancy(&self, t: f64) -> Vec<Option<usize>> {
        let (w, h) = (self.net.width(), self.net.height());
        let mut occ = vec![None; (w * h) as usize];
        for (i, l) in self.layouts.iter().enumerate() {
            if l.start <= t && t < l.end {
                for (x, y) in l.node_list() {
                    if (1..=w).contains(&x) && (1..=h).contains(&y) {
                        occ[((y - 1) * w + x - 1) as usize] = Some(i);
                    }
                }
            }
        }
        occ
    }

    /// Draws the mesh at time `t` into a canvas of `cw` × `ch` pixels; returns where the grid
    /// is and the occupancy drawn.
    pub fn draw(
        &self,
        ctx: &CanvasRenderingContext2d,
        cw: f64,
        ch: f64,
        t: f64,
        heat: Heat,
        tree: bool,
    ) -> (Geometry, Vec<Option<usize>>) {
        let (w, h) = (self.net.width(), self.net.height());
        let (ew, eh) = (f64::from(w + 2), f64::from(h + 2));
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, cw, ch);
        let top = 44.0;
        let cell = ((MESH_AREA - 30.0) / ew)
            .min((ch - top - 16.0) / eh)
            .max(1.0);
        let ox = 16.0 + ((MESH_AREA - 30.0) - cell * ew) / 2.0;
        let oy = top + ((ch - top - 16.0) - cell * eh) / 2.0;
        let geo = Geometry {
            ox,
            oy,
            cell,
            width: w,
            height: h,
        };
        let centre = |x: u32, y: u32| {
            (
                ox + (f64::from(x) + 0.5) * cell,
                oy + (eh - 1.0 - f64::from(y) + 0.5) * cell,
            )
        };
        // Title.
        let (running, waiting) = self.counts_at(t);
        let occ = self.occupancy(t);
        let tree_view = if tree { self.tree_view(&occ) } else { None };
        ctx.set_fill_style_str("#1c2430");
        ctx.set_font(&format!("600 17px {FONT}"));
        ctx.set_text_align("left");
        ctx.set_text_baseline("alphabetic");
        let _ = ctx.fill_text(&self.title, 16.0, 24.0);
        ctx.set_font(&format!("14px {FONT}"));
        ctx.set_fill_style_str("#5c6878");
        let d_note = tree_view.as_ref().map_or(String::new(), |v| {
            format!(
                " · D = {} free squares (minimum {}){}",
                v.d,
                v.d_min,
                if v.spatially_compact {
                    ", spatially compact"
                } else {
                    ""
                }
            )
        });
        let _ = ctx.fill_text(
            &format!(
                "{} × {} mesh · t = {} {} · {} running · {} waiting{d_note}",
                w,
                h,
                format::fixed(t, 2),
                self.unit,
                running,
                waiting
            ),
            16.0,
            40.0,
        );
        // Nodes: inset so that the links show between them.
        let inset = if heat == Heat::Off {
            cell * 0.06
        } else {
            cell * 0.2
        };
        let side = (cell - 2.0 * inset).max(1.0);
        ctx.set_line_width(1.0);
        // Jobs on neighbouring nodes in clearly different colours.
        let ids: Vec<u64> = self.jobs.iter().map(|j| j.record.id).collect();
        let colours = neighbour_colours(&occ, w, &ids);
        for y in 1..=h {
            for x in 1..=w {
                let (cx, cy) = centre(x, y);
                let (px, py) = (cx - side / 2.0, cy - side / 2.0);
                match occ[((y - 1) * w + x - 1) as usize] {
                    Some(i) => {
                        let c = colours.get(i).copied().flatten().unwrap_or(JOB_PALETTE[0]);
                        ctx.set_fill_style_str(&css_hex(c));
                        ctx.fill_rect(px, py, side, side);
                    }
                    None => {
                        ctx.set_fill_style_str("#ffffff");
                        ctx.fill_rect(px, py, side, side);
                        ctx.set_stroke_style_str("#c6cedb");
                        ctx.stroke_rect(px + 0.5, py + 0.5, side - 1.0, side - 1.0);
                    }
                }
            }
        }
        // The I/O line: I/O nodes as dark diamonds, the other positions as router dots.
        let io: Vec<(u32, u32)> = self.net.io_nodes().iter().map(|n| (n.x, n.y)).collect();
        let line: Vec<(u32, u32)> = match self.net.io_side() {
            crate::network::IoSide::West => (1..=h).map(|y| (0, y)).collect(),
            crate::network::IoSide::East => (1..=h).map(|y| (w + 1, y)).collect(),
            crate::network::IoSide::South => (1..=w).map(|x| (x, 0)).collect(),
            crate::network::IoSide::North => (1..=w).map(|x| (x, h + 1)).collect(),
        };
        for &(x, y) in &line {
            let (cx, cy) = centre(x, y);
            if io.contains(&(x, y)) {
                io_marker(ctx, cx, cy, side * 0.62);
            } else {
                ctx.set_fill_style_str("#8a94a3");
                ctx.begin_path();
                let _ = ctx.arc(cx, cy, (side * 0.12).max(1.5), 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        }
        // Links: a bar between the two squares (and a little of each), eastbound above
        // westbound, northbound right of southbound.
        let thick = (cell * 0.13).clamp(1.5, 5.0);
        let off = thick * 0.75;
        let bar = |from: (u32, u32), to: (u32, u32), colour: &str, width: f64| {
            let (ax, ay) = centre(from.0, from.1);
            let (bx, by) = centre(to.0, to.1);
            let (dx, dy) = (bx - ax, by - ay);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (ux, uy) = (dx / len, dy / len);
            let reach = side / 2.0 + 0.5;
            let (sx, sy) = (ax + ux * reach, ay + uy * reach);
            let (tx, ty) = (bx - ux * reach, by - uy * reach);
            let (nx, ny) = match link_dir(from, to) {
                Dir::East => (0.0, -off),
                Dir::West => (0.0, off),
                Dir::North => (off, 0.0),
                Dir::South => (-off, 0.0),
            };
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(width);
            ctx.begin_path();
            ctx.move_to(sx + nx, sy + ny);
            ctx.line_to(tx + nx, ty + ny);
            ctx.stroke();
        };
        match (heat, &self.links) {
            (Heat::Load, _) => {
                // Links with messages at t.
                let loads = loads_at(&self.net, &self.layouts, self.rho, t);
                for (i, &v) in loads.iter().enumerate() {
                    if v <= 0.0 {
                        continue;
                    }
                    let l = self.net.link_at(i);
                    let to = l.to();
                    bar(
                        (l.from.x, l.from.y),
                        (to.x, to.y),
                        &css_hex(heat_colour(v, self.peak)),
                        thick,
                    );
                }
            }
            (Heat::Blocked, Some(m)) => {
                // Every link a worm crossed: grey if no header ever waited for it, else
                // coloured by its blocked time; the most blocked on top.
                let peak = self.blocked_peak();
                let mut order: Vec<&LinkTimes> = m.links.iter().collect();
                order.sort_by_key(|l| l.blocked);
                for l in order {
                    let from = (l.from[0], l.from[1]);
                    let to = (l.to[0], l.to[1]);
                    if l.blocked == 0 {
                        bar(from, to, "#b4bcc8", (thick * 0.5).max(1.0));
                    } else {
                        let b = self.blocked_time(l);
                        bar(from, to, &css_hex(heat_colour(b, peak)), thick);
                    }
                }
            }
            _ => {}
        }
        ctx.set_line_width(1.0);
        if let Some(v) = &tree_view {
            draw_tree(ctx, &geo, v);
        }
        self.draw_legend(ctx, cw, heat, tree, running);
        (geo, occ)
    }

    /// The Liu et al. allocation tree of the mesh as `occ` occupies it (None if the mesh cannot
    /// be built).
    fn tree_view(&self, occ: &[Option<usize>]) -> Option<TreeView> {
        let (w, h) = (self.net.width(), self.net.height());
        let mut mesh = Mesh::new(w, h).ok()?;
        for y in 1..=h {
            for x in 1..=w {
                if let Some(Some(i)) = occ.get(((y - 1) * w + x - 1) as usize) {
                    mesh.allocate(*i, Submesh::at(x, y, 1, 1)).ok()?;
                }
            }
        }
        Some(tree_view(&mesh, IoLayout::of(&self.net)))
    }

    /// The legend right of the mesh: node markers, the allocation tree's marks when it is
    /// shown and, with the heatmap, the colour scale.
    fn draw_legend(
        &self,
        ctx: &CanvasRenderingContext2d,
        cw: f64,
        heat: Heat,
        tree: bool,
        running: usize,
    ) {
        let x0 = MESH_AREA + 10.0;
        let mut y = 70.0;
        ctx.set_text_align("left");
        ctx.set_text_baseline("middle");
        ctx.set_font(&format!("600 14px {FONT}"));
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text("Legend", x0, y);
        y += 26.0;
        ctx.set_font(&format!("13px {FONT}"));
        // A job's nodes.
        ctx.set_fill_style_str(&css_hex(JOB_PALETTE[0]));
        ctx.fill_rect(x0, y - 8.0, 16.0, 16.0);
        ctx.set_fill_style_str(&css_hex(JOB_PALETTE[1]));
        ctx.fill_rect(x0 + 19.0, y - 8.0, 16.0, 16.0);
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text(
            &format!("Busy node (one colour per job; {running} running)"),
            x0 + 44.0,
            y,
        );
        y += 24.0;
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(x0, y - 8.0, 16.0, 16.0);
        ctx.set_stroke_style_str("#c6cedb");
        ctx.stroke_rect(x0 + 0.5, y - 7.5, 15.0, 15.0);
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text("Free node", x0 + 44.0, y);
        y += 24.0;
        io_marker(ctx, x0 + 8.0, y, 14.0);
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text(
            &format!(
                "I/O node ({} on the {} side)",
                self.net.io_nodes().len(),
                side_name(self.net.io_side())
            ),
            x0 + 44.0,
            y,
        );
        y += 24.0;
        ctx.set_fill_style_str("#8a94a3");
        ctx.begin_path();
        let _ = ctx.arc(x0 + 8.0, y, 2.5, 0.0, std::f64::consts::TAU);
        ctx.fill();
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text("Router of the I/O line (no I/O node)", x0 + 44.0, y);
        if tree {
            y += 24.0;
            ctx.set_stroke_style_str("#1c2430");
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x0 + 1.0, y - 7.0, 14.0, 14.0);
            ctx.set_line_width(1.0);
            ctx.set_fill_style_str("#1c2430");
            let _ = ctx.fill_text("Tree node split by running jobs (Liu et al.)", x0 + 44.0, y);
            y += 24.0;
            ctx.set_fill_style_str("rgba(31, 157, 122, 0.22)");
            ctx.fill_rect(x0, y - 8.0, 16.0, 16.0);
            ctx.set_fill_style_str("#1c2430");
            let _ = ctx.fill_text("Free block (largest free tree node)", x0 + 44.0, y);
        }
        y += 40.0;
        let bar_w = (cw - x0 - 30.0).max(60.0);
        match heat {
            Heat::Off => {
                ctx.set_fill_style_str("#5c6878");
                let _ = ctx.fill_text("Heatmap off: tick it to see link loads.", x0, y);
                return;
            }
            Heat::Blocked if self.links.is_some() => {
                self.draw_blocked_legend(ctx, x0, y, bar_w);
                return;
            }
            _ => {}
        }
        ctx.set_font(&format!("600 14px {FONT}"));
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text("Link load (messages on the link)", x0, y);
        y += 18.0;
        ctx.set_font(&format!("12px {FONT}"));
        ctx.set_fill_style_str("#5c6878");
        let _ = ctx.fill_text(
            &format!(
                "ρ = {} % I/O: {}·writes + {}·all-to-all",
                format::fixed(self.rho * 100.0, 0),
                format::fixed(self.rho, 2),
                format::fixed(1.0 - self.rho, 2)
            ),
            x0,
            y,
        );
        y += 20.0;
        y = colour_bar(ctx, x0, y, bar_w, self.peak, "");
        ctx.set_fill_style_str("#5c6878");
        let _ = ctx.fill_text("0 = idle link; right end = the run's peak", x0, y);
        y += 18.0;
        let _ = ctx.fill_text("(highest load of any link at any time).", x0, y);
        y += 24.0;
        let _ = ctx.fill_text("Bars: eastbound above westbound,", x0, y);
        y += 18.0;
        let _ = ctx.fill_text("northbound right of southbound (XY routing).", x0, y);
        if self.truncated {
            y += 26.0;
            ctx.set_fill_style_str("#a15c00");
            let _ = ctx.fill_text("Only the first jobs of this run are drawn.", x0, y);
        }
    }

    /// The blocked-time legend: what a bar's colour means, its scale in the run's time unit,
    /// and where the worms waited most.
    fn draw_blocked_legend(&self, ctx: &CanvasRenderingContext2d, x0: f64, y0: f64, bar_w: f64) {
        let mut y = y0;
        ctx.set_text_align("left");
        ctx.set_font(&format!("600 14px {FONT}"));
        ctx.set_fill_style_str("#1c2430");
        let _ = ctx.fill_text(&format!("Blocked time per link ({})", self.unit), x0, y);
        y += 18.0;
        ctx.set_font(&format!("12px {FONT}"));
        ctx.set_fill_style_str("#5c6878");
        let _ = ctx.fill_text("Whole run: time worms' headers waited", x0, y);
        y += 16.0;
        let ft = self.links.as_ref().map_or(1.0, |m| m.flit_time);
        let _ = ctx.fill_text(
            &format!("for the link (flit times × {ft} {}).", self.unit),
            x0,
            y,
        );
        y += 20.0;
        let peak = self.blocked_peak();
        y = colour_bar(ctx, x0, y, bar_w, peak, self.unit);
        ctx.set_fill_style_str("#5c6878");
        let _ = ctx.fill_text("Right end = the most blocked link.", x0, y);
        y += 22.0;
        ctx.set_stroke_style_str("#b4bcc8");
        ctx.set_line_width(2.0);
        ctx.begin_path();
        ctx.move_to(x0, y);
        ctx.line_to(x0 + 22.0, y);
        ctx.stroke();
        ctx.set_line_width(1.0);
        let _ = ctx.fill_text("carried worms, never blocked", x0 + 30.0, y);
        y += 18.0;
        let _ = ctx.fill_text("No bar: no worm crossed the link.", x0, y);
        y += 24.0;
        if let Some((top, total, io_share)) = self.blocked_summary() {
            ctx.set_fill_style_str("#1c2430");
            match top {
                Some((l, b)) => {
                    let d = match link_dir((l.from[0], l.from[1]), (l.to[0], l.to[1])) {
                        Dir::East => "east",
                        Dir::West => "west",
                        Dir::North => "north",
                        Dir::South => "south",
                    };
                    let _ = ctx.fill_text(
                        &format!(
                            "Most blocked: ({}, {}) → {d}, {} {}",
                            l.from[0],
                            l.from[1],
                            short(b),
                            self.unit
                        ),
                        x0,
                        y,
                    );
                    y += 18.0;
                    let _ = ctx.fill_text(
                        &format!(
                            "All links: {} {}, {} % next to the I/O line.",
                            short(total),
                            self.unit,
                            format::fixed(io_share * 100.0, 0)
                        ),
                        x0,
                        y,
                    );
                }
                None => {
                    let _ = ctx.fill_text("No worm was ever blocked.", x0, y);
                }
            }
            y += 24.0;
        }
        ctx.set_fill_style_str("#5c6878");
        let _ = ctx.fill_text("Bars: eastbound above westbound,", x0, y);
        y += 18.0;
        let _ = ctx.fill_text("northbound right of southbound (XY routing).", x0, y);
    }

    /// The link of the blocked-time heatmap drawn nearest canvas point (px, py), within a third
    /// of a cell of its bar's middle; `None` without link counters.
    pub fn link_at(&self, geo: &Geometry, px: f64, py: f64) -> Option<&LinkTimes> {
        let m = self.links.as_ref()?;
        let mut best: Option<(&LinkTimes, f64)> = None;
        for l in &m.links {
            let (mx, my) = bar_middle(geo, l);
            let d = (mx - px).hypot(my - py);
            if d <= geo.cell / 3.0 && best.is_none_or(|(_, e)| d < e) {
                best = Some((l, d));
            }
        }
        best.map(|(l, _)| l)
    }

    /// The tooltip of a link of the blocked-time heatmap: what crossed it and for how long it
    /// was held and waited for.
    pub fn link_tooltip(&self, l: &LinkTimes) -> String {
        let ft = self.links.as_ref().map_or(1.0, |m| m.flit_time);
        let d = match link_dir((l.from[0], l.from[1]), (l.to[0], l.to[1])) {
            Dir::East => "east",
            Dir::West => "west",
            Dir::North => "north",
            Dir::South => "south",
        };
        format!(
            "Link ({}, {}) → {d} · {} worms, {} flits\nheld {} {u} · blocked {} {u} (whole run)",
            l.from[0],
            l.from[1],
            format::count(l.messages),
            format::count(l.flits),
            format::fixed(l.held as f64 * ft, 0),
            format::fixed(l.blocked as f64 * ft, 0),
            u = self.unit
        )
    }

    /// The most blocked link's bar middle, canvas pixels (for tests and tools: where to hover).
    pub fn most_blocked_at(&self, geo: &Geometry) -> Option<(f64, f64)> {
        let (l, _) = self.blocked_summary()?.0?;
        Some(bar_middle(geo, l))
    }

    /// The jobs on the mesh as drawn (`occ`, `geo`) for those who do not see it: a table of the
    /// running jobs (at most [`MAX_TABLE_JOBS`]) and, per job, its first node's centre with the
    /// hover's tooltip there, for the arrow keys.
    pub fn access(&self, occ: &[Option<usize>], geo: &Geometry, t: f64) -> Access {
        let w = self.net.width().max(1);
        let mut first: Vec<(usize, u32, u32)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (k, o) in occ.iter().enumerate() {
            if let Some(i) = *o {
                if seen.insert(i) {
                    first.push((i, k as u32 % w + 1, k as u32 / w + 1));
                }
            }
        }
        first.sort_unstable();
        first.truncate(MAX_TABLE_JOBS);
        let mut access = Access {
            caption: format!(
                "Jobs running at t = {} {} (their first node: lowest row, then column)",
                format::fixed(t, 2),
                self.unit
            ),
            columns: [
                "Job",
                "Nodes",
                "Submesh",
                "First node",
                "Submit",
                "Start",
                "End",
            ]
            .iter()
            .map(|c| (*c).to_string())
            .collect(),
            own_hover: true,
            ..Access::default()
        };
        for (i, x, y) in first {
            let Some(j) = self.jobs.get(i) else { continue };
            let r = &j.record;
            let (px, py) = geo.centre(x, y);
            if let Some(tip) = self.tooltip(occ, x, y) {
                access.points.push(Point { px, py, tip });
            }
            access.rows.push(vec![
                r.id.to_string(),
                r.procs.to_string(),
                if j.w > 0 {
                    format!("{} × {}", j.w, j.h)
                } else {
                    "–".into()
                },
                format!("({x}, {y})"),
                format::fixed(r.submit, 2),
                format::fixed(r.start, 2),
                format::fixed(r.end, 2),
            ]);
        }
        access
    }

    /// The tooltip text for node (x, y) at `t` (compute node or I/O-line position).
    pub fn tooltip(&self, occ: &[Option<usize>], x: u32, y: u32) -> Option<String> {
        let (w, h) = (self.net.width(), self.net.height());
        if (1..=w).contains(&x) && (1..=h).contains(&y) {
            return Some(
                match occ.get(((y - 1) * w + x - 1) as usize).copied().flatten() {
                    Some(i) => {
                        let j = self.jobs.get(i)?;
                        let r = &j.record;
                        let shape = if j.w > 0 {
                            format!(" ({} × {} submesh)", j.w, j.h)
                        } else {
                            String::new()
                        };
                        format!(
                        "Job {} · {} node{}{}\nsubmit {} · start {} · end {}\nwaited {} {} · node ({x}, {y})",
                        r.id,
                        r.procs,
                        if r.procs == 1 { "" } else { "s" },
                        shape,
                        format::fixed(r.submit, 2),
                        format::fixed(r.start, 2),
                        format::fixed(r.end, 2),
                        format::fixed(r.wait, 2),
                        self.unit
                    )
                    }
                    None => format!("Free node ({x}, {y})"),
                },
            );
        }
        let io = self.net.io_nodes().iter().any(|n| n.x == x && n.y == y);
        let on_line = self.net.is_io_line(crate::network::NetNode::new(x, y));
        if io {
            Some(format!("I/O node ({x}, {y})"))
        } else if on_line {
            Some(format!("Router of the I/O line ({x}, {y})"))
        } else {
            None
        }
    }
}

/// The time unit of an experiment's workload: the Ababneh & Bani-Mohammad model is in abstract time units.
pub fn time_unit(exp: &MeshExperiment) -> &'static str {
    match &exp.workload {
        crate::modes::flat::spec::WorkloadSpec::Synthetic(
            crate::workload::synthetic::SyntheticModel::MeshJobs(_),
        ) => "time units",
        _ => "s",
    }
}

fn side_name(s: crate::network::IoSide) -> &'static str {
    match s {
        crate::network::IoSide::West => "west",
        crate::network::IoSide::East => "east",
        crate::network::IoSide::North => "north",
        crate::network::IoSide::South => "south",
    }
}

/// The heat colour scale from 0 to `peak` at (x0, y), `bar_w` wide, labelled at 0, the middle
/// and the end (with `unit` after the last label if any); returns the y below it.
fn colour_bar(
    ctx: &CanvasRenderingContext2d,
    x0: f64,
    y: f64,
    bar_w: f64,
    peak: f64,
    unit: &str,
) -> f64 {
    let steps = 120;
    for k in 0..steps {
        let f = f64::from(k) / f64::from(steps - 1);
        ctx.set_fill_style_str(&css_hex(heat_colour(f, 1.0)));
        ctx.fill_rect(
            x0 + bar_w * f64::from(k) / f64::from(steps),
            y,
            bar_w / f64::from(steps) + 0.6,
            16.0,
        );
    }
    ctx.set_stroke_style_str("#8a94a3");
    ctx.stroke_rect(x0 + 0.5, y + 0.5, bar_w - 1.0, 15.0);
    let y = y + 28.0;
    ctx.set_fill_style_str("#1c2430");
    ctx.set_font(&format!("12px {FONT}"));
    for (f, align) in [(0.0, "left"), (0.5, "center"), (1.0, "right")] {
        ctx.set_text_align(align);
        let text = if f == 1.0 && !unit.is_empty() {
            format!("{} {unit}", short(peak * f))
        } else {
            short(peak * f)
        };
        let _ = ctx.fill_text(&text, x0 + bar_w * f, y);
    }
    ctx.set_text_align("left");
    y + 20.0
}

/// The middle of link `l`'s bar as [`RunView::draw`] draws it (offset to its side of the pair
/// of links between the two nodes).
fn bar_middle(geo: &Geometry, l: &LinkTimes) -> (f64, f64) {
    let off = (geo.cell * 0.13).clamp(1.5, 5.0) * 0.75;
    let (ax, ay) = geo.centre(l.from[0], l.from[1]);
    let (bx, by) = geo.centre(l.to[0], l.to[1]);
    let (nx, ny) = match link_dir((l.from[0], l.from[1]), (l.to[0], l.to[1])) {
        Dir::East => (0.0, -off),
        Dir::West => (0.0, off),
        Dir::North => (off, 0.0),
        Dir::South => (-off, 0.0),
    };
    ((ax + bx) / 2.0 + nx, (ay + by) / 2.0 + ny)
}

/// The direction of the link between neighbours `from` and `to` of the extended grid.
fn link_dir(from: (u32, u32), to: (u32, u32)) -> Dir {
    if to.0 > from.0 {
        Dir::East
    } else if to.0 < from.0 {
        Dir::West
    } else if to.1 > from.1 {
        Dir::North
    } else {
        Dir::South
    }
}

/// An I/O node: a dark diamond of size `s` centred on (cx, cy).
fn io_marker(ctx: &CanvasRenderingContext2d, cx: f64, cy: f64, s: f64) {
    let r = (s / 2.0).max(3.0);
    ctx.set_fill_style_str("#16202e");
    ctx.begin_path();
    ctx.move_to(cx, cy - r);
    ctx.line_to(cx + r, cy);
    ctx.line_to(cx, cy + r);
    ctx.line_to(cx - r, cy);
    ctx.close_path();
    ctx.fill();
}

/// `12345.6` → `"12.3k"`: scale labels.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A colour per line of a chart (an allocator), by its position.
pub fn line_colour(i: usize) -> RGBColor {
    const C: [RGBColor; 12] = [
        RGBColor(0x2e, 0x6f, 0xdf),
        RGBColor(0xd1, 0x49, 0x5b),
        RGBColor(0x1f, 0x9d, 0x7a),
        RGBColor(0xe0, 0x8a, 0x1e),
        RGBColor(0x7b, 0x4f, 0xc9),
        RGBColor(0x4a, 0x4f, 0x5a),
        RGBColor(0x0f, 0xa3, 0xb1),
        RGBColor(0xb5, 0x5d, 0x9c),
        RGBColor(0x8c, 0x6d, 0x1f),
        RGBColor(0x5b, 0x8d, 0x3a),
        RGBColor(0x9a, 0x2e, 0x2e),
        RGBColor(0x33, 0x33, 0x99),
    ];
    C[i % C.len()]
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("chart: {e:?}")
}

/// Points (x, y) of a line.
pub type Points = Vec<(f64, f64)>;
/// One line of a chart: its label and points.
pub type Line = (String, Points);

/// The mesh charts' ticks: seven on x, one number format per axis.
const MESH_TICKS: Ticks = Ticks {
    x_labels: 7,
    y_area: 66,
    x: TickFormat::Numbers,
    y: TickFormat::Numbers,
};

/// `50` → `"50 %"`: the traffic ratio's ticks.
fn percent(v: f64) -> String {
    format!("{v:.0} %")
}

/// The curves of `lines`, coloured by position.
fn curves(lines: &[Line]) -> Vec<Curve<'_>> {
    lines
        .iter()
        .enumerate()
        .map(|(i, (label, points))| Curve {
            label,
            colour: line_colour(i),
            points,
        })
        .collect()
}

/// "Mean service time vs. traffic ratio" (Mache et al. Table 2) in the canvas `canvas_id`: one
/// line per allocator through its (% I/O, mean service) points.
pub fn draw_traffic_sweep(canvas_id: &str, lines: &[Line], unit: &str) -> Result<(), String> {
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| format!("no canvas #{canvas_id}"))?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (ymin, ymax) = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .filter(|y| y.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
    // Zoomed on the values (the allocators differ by a few per cent), with some room below
    // for the legend.
    let span = (ymax - ymin).max(ymax * 0.02).max(1e-9);
    let y0 = (ymin - span * 0.45).max(0.0);
    let y1 = ymax + span * 0.08;
    let y_desc = format!("Mean service time ({unit})");
    let lines = curves(lines);
    let spec = LineSpec {
        title: "Service time vs. traffic ratio, per allocator",
        x_desc: "Traffic ratio ρ (% I/O in each job's messages)",
        y_desc: &y_desc,
        x_range: (-3.0, 103.0),
        y_range: if ymax > 0.0 { (y0, y1) } else { (0.0, 1.0) },
        log_x: false,
        lines: &lines,
        markers: true,
        ticks: Ticks {
            x: TickFormat::Custom(percent),
            ..MESH_TICKS
        },
    };
    let ranges = plot_lines(&root, &spec)?;
    root.present().map_err(err)?;
    chart_access::attach(canvas_id, line_access(&spec, &[(&spec, ranges)]));
    Ok(())
}

/// Nodes busy (%) and jobs waiting over time, one line per run, side by side in the canvas
/// `canvas_id`.
pub fn draw_over_time(
    canvas_id: &str,
    busy: &[Line],
    waiting: &[Line],
    unit: &str,
) -> Result<(), String> {
    let backend = CanvasBackend::new(canvas_id).ok_or_else(|| format!("no canvas #{canvas_id}"))?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (left, right) = root.split_horizontally(root.dim_in_pixel().0 / 2);
    let range = |ls: &[Line]| {
        ls.iter().flat_map(|(_, p)| p.iter().copied()).fold(
            (f64::INFINITY, f64::NEG_INFINITY, 0.0f64),
            |(a, b, m), (x, y)| (a.min(x), b.max(x), m.max(y)),
        )
    };
    let (x0, x1, _) = range(busy);
    let (x0, x1) = if x0.is_finite() { (x0, x1) } else { (0.0, 1.0) };
    let x_desc = format!("Simulated time ({unit})");
    let (busy, waiting_lines) = (curves(busy), curves(waiting));
    let util = LineSpec {
        title: "Utilisation over time",
        x_desc: &x_desc,
        y_desc: "Nodes busy (%)",
        x_range: (x0, x1),
        y_range: (0.0, 105.0),
        log_x: false,
        lines: &busy,
        markers: false,
        ticks: MESH_TICKS,
    };
    let left_ranges = plot_lines(&left, &util)?;
    let (_, _, wmax) = range(waiting);
    let queue = LineSpec {
        title: "Queue over time",
        x_desc: &x_desc,
        y_desc: "Jobs waiting",
        x_range: (x0, x1),
        y_range: (0.0, if wmax > 0.0 { wmax * 1.1 } else { 1.0 }),
        log_x: false,
        lines: &waiting_lines,
        markers: false,
        ticks: MESH_TICKS,
    };
    let right_ranges = plot_lines(&right, &queue)?;
    root.present().map_err(err)?;
    let mut access = line_access(&util, &[(&util, left_ranges), (&queue, right_ranges)]);
    access.caption = "Utilisation and queue over time".to_string();
    chart_access::attach(canvas_id, access);
    Ok(())
}

/// (time, % nodes busy) and (time, jobs waiting) of a run sampled at `n` + 1 instants of
/// [first submit, last end].
pub fn over_time(view: &RunView, n: usize) -> (Points, Points) {
    let (t0, t1) = (view.timeline.first(), view.timeline.last());
    let nodes = f64::from(view.net.width() * view.net.height()).max(1.0);
    let mut busy = Vec::with_capacity(n + 1);
    let mut wait = Vec::with_capacity(n + 1);
    for k in 0..=n {
        let t = t0 + (t1 - t0) * k as f64 / n.max(1) as f64;
        let mut used = 0u64;
        let mut waiting = 0usize;
        for j in &view.jobs {
            let r = &j.record;
            if r.start <= t && t < r.end {
                used += u64::from(r.procs);
            } else if r.submit <= t && t < r.start {
                waiting += 1;
            }
        }
        busy.push((t, used as f64 / nodes * 100.0));
        wait.push((t, waiting as f64));
    }
    (busy, wait)
}

/// The pixel box of the tree node with corners `a`, `b` (mesh coordinates).
fn node_box(geo: &Geometry, a: (u32, u32), b: (u32, u32)) -> (f64, f64, f64, f64) {
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    let (lx, ty) = geo.centre(x0, y1);
    let (rx, by) = geo.centre(x1, y0);
    let half = geo.cell / 2.0;
    (lx - half, ty - half, rx - lx + geo.cell, by - ty + geo.cell)
}

/// Liu et al.'s overlay: free blocks shaded green, the tree nodes the jobs split outlined
/// (thicker nearer the root).
fn draw_tree(ctx: &CanvasRenderingContext2d, geo: &Geometry, v: &TreeView) {
    ctx.set_fill_style_str("rgba(31, 157, 122, 0.22)");
    for &(a, b) in &v.free {
        let (x, y, w, h) = node_box(geo, a, b);
        ctx.fill_rect(x + 1.0, y + 1.0, w - 2.0, h - 2.0);
    }
    ctx.set_stroke_style_str("#1c2430");
    let n = v.split.len().max(1) as f64;
    for (i, &(a, b)) in v.split.iter().enumerate() {
        let (x, y, w, h) = node_box(geo, a, b);
        ctx.set_line_width(if i == 0 {
            2.5
        } else {
            (2.0 - i as f64 / n).max(1.0)
        });
        ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
    }
    ctx.set_line_width(1.0);
}
