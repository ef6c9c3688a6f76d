//! The design of `schedlab reproduce window`: the experiments of Ababneh & Bani-Mohammad §5.1–5.5
//! (Ababneh and Bani-Mohammad 2010) on a 32 × 32 mesh with MPL allocation.
//!
//! * Figs. 2–7: FCFS, OOCB-8, Delay, Window-10/120/240 and OO over a sweep of arrival rates
//!   past saturation, uniform side lengths (Figs. 4–6) and uniform-decreasing ones (Figs. 2, 3,
//!   7): mean turnaround, maximum waiting delay, utilisation; the maximum utilisation of each
//!   policy is printed next to the paper's (Fig. 6: 55 / 56.7 / 69.2 / 78.38 / 78.43 %,
//!   Fig. 7: 51 / 52.7 / 69.1 / 72.5 / 73 % for FCFS / OOCB-8 / Delay / Window-240 / OO).
//! * Figs. 8–11: Window-K against K at the paper's loads (2.5 uniform; 4.5 and 7.5
//!   uniform-decreasing).
//!
//! * Figs. 15–18 (§5.4–5.5), when the traces are in `--traces`: SDSC Paragon 1996 (batch
//!   partition, 22 × 16, Paragon shape rule) and SDSC Blue Horizon (12 × 12 nodes of 8
//!   processors, square transformation), mean turnaround and maximum waiting delay against
//!   the load factor (submit times × 1/LF, LF = 0.1, 0.2, …). A trace run whose waiting queue
//!   exceeds [`QUEUE_CAP`] jobs is stopped and reported as saturated (`null`).
//!
//! Each point is 10,000 jobs a run; runs are repeated, with independent seeds shared by all
//! policies at the same point (common random numbers), until the 95 % confidence half-width
//! of the mean turnaround is at most 5 % of it — at least [`MIN_RUNS`], at most [`MAX_RUNS`]
//! runs (the paper's figures used 100–200 runs; see `docs/reproductions.md`). All runs are
//! seeded from the point, so the output is the same for any number of threads.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::alloc::AllocatorKind;
use crate::error::Error;
use crate::modes::mesh::presets::WINDOW_SWITCH_ORIENTATION;
use crate::policy::mesh::MeshPolicyKind;
use crate::reproduce::stats::{ci_ranks, MeanCi};
use crate::sim::mesh_engine::MeshSimulation;
use crate::workload::shape::{apply_shapes, ShapeRule};
use crate::workload::swf::{read_swf, ReadOptions};
use crate::workload::synthetic::{MeshJobsParams, SideDistribution};
use crate::workload::transform::scale_load;
use crate::workload::{Job, Workload};

/// Fewest runs per point.
pub const MIN_RUNS: usize = 3;
/// Most runs per point (the stopping rule usually ends earlier).
pub const MAX_RUNS: usize = 10;
/// Target relative error of the mean turnaround (95 % confidence half-width / mean).
pub const TARGET_REL_ERROR: f64 = 0.05;
/// Jobs per run (§5.1).
pub const JOBS_PER_RUN: usize = 10_000;
/// Mesh side L (§5.1).
pub const SIDE: u32 = 32;

/// A trace run is stopped (saturated) once this many jobs wait.
pub const QUEUE_CAP: usize = 5_000;

/// What `schedlab reproduce window` runs.
#[derive(Clone, Debug)]
pub struct WindowReproOptions {
    /// Folder of SWF traces (the §5.4 experiments run for the traces found there).
    pub traces: PathBuf,
    /// Only figures whose name (`fig2` … `fig11`) contains one of these comma-separated texts.
    pub only: Option<String>,
    /// Worker threads.
    pub threads: usize,
}

/// One output row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub figure: String,
    pub policy: String,
    pub load: Option<f64>,
    pub metric: String,
    pub ours: f64,
    pub paper: Option<f64>,
}

/// A simulated point: side distribution, arrival rate, policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    pub uniform: bool,
    /// Arrival rate × 1000 (exact key).
    pub load_milli: u32,
    pub policy: PolicyKey,
}

/// Orderable policy key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PolicyKey {
    Fcfs,
    Oocb(u32),
    Delay,
    Window(usize),
    Oo,
}

impl PolicyKey {
    pub fn kind(self) -> MeshPolicyKind {
        match self {
            PolicyKey::Fcfs => MeshPolicyKind::Fcfs,
            PolicyKey::Oocb(k) => MeshPolicyKind::Oocb(k),
            PolicyKey::Delay => MeshPolicyKind::Delay,
            PolicyKey::Window(k) => MeshPolicyKind::Window(k),
            PolicyKey::Oo => MeshPolicyKind::OutOfOrder,
        }
    }
}

impl Point {
    pub fn load(&self) -> f64 {
        f64::from(self.load_milli) / 1000.0
    }
}

/// Metrics of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunMetrics {
    pub turnaround: f64,
    pub mean_wait: f64,
    pub max_wait: f64,
    pub utilization: f64,
}

/// Aggregated metrics of a point.
#[derive(Clone, Debug, Default)]
pub struct PointStats {
    pub runs: Vec<RunMetrics>,
}

impl PointStats {
    pub fn mean(&self, f: impl Fn(&RunMetrics) -> f64) -> f64 {
        if self.runs.is_empty() {
            return f64::NAN;
        }
        self.runs.iter().map(f).sum::<f64>() / self.runs.len() as f64
    }

    /// The values of one metric over the runs.
    pub fn values(&self, f: impl Fn(&RunMetrics) -> f64) -> Vec<f64> {
        self.runs.iter().map(f).collect()
    }

    /// 95 % confidence half-width of the mean turnaround over its mean.
    pub fn rel_error(&self) -> f64 {
        if self.runs.len() < 2 {
            return f64::INFINITY;
        }
        MeanCi::of(&self.values(|r| r.turnaround)).rel_error()
    }
}

/// Paper values of Figs. 6 and 7 (maximum utilisation, %).
pub fn paper_max_util(uniform: bool, p: PolicyKey) -> Option<f64> {
    let v = match (uniform, p) {
        (true, PolicyKey::Fcfs) => 55.0,
        (true, PolicyKey::Oocb(8)) => 56.7,
        (true, PolicyKey::Delay) => 69.2,
        (true, PolicyKey::Window(240)) => 78.38,
        (true, PolicyKey::Oo) => 78.43,
        (false, PolicyKey::Fcfs) => 51.0,
        (false, PolicyKey::Oocb(8)) => 52.7,
        (false, PolicyKey::Delay) => 69.1,
        (false, PolicyKey::Window(240)) => 72.5,
        (false, PolicyKey::Oo) => 73.0,
        _ => return None,
    };
    Some(v)
}

/// Utilisation gain (percentage points) below which the next load of a sweep no longer raises
/// utilisation: the curve has reached its saturation plateau.
pub const KNEE_GAIN: f64 = 1.0;

/// The saturation knee of one policy's utilisation-against-load sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knee {
    /// The knee's load; `None` when utilisation still rises at the last swept load (the
    /// utilisation is then read at the last load).
    pub load: Option<f64>,
    /// Utilisation (%) at the knee, with its 95 % interval over the replications.
    pub util: MeanCi,
    /// The highest mean utilisation (%) anywhere in the sweep.
    pub sweep_max: f64,
}

/// The knee of a sweep `(load, utilisation %)` in load order: the first load whose next load
/// gains at most max([`KNEE_GAIN`], the two 95 % half-widths summed) points of utilisation —
/// past it the system is saturated and utilisation stays on its plateau. The maximum
/// utilisation of Figs. 6–7 is read there ("FCFS saturates for system utilization values of
/// about 55 %", §5.2).
pub fn knee(curve: &[(f64, MeanCi)]) -> Knee {
    let sweep_max = curve
        .iter()
        .map(|(_, u)| u.mean)
        .fold(f64::NEG_INFINITY, f64::max);
    for pair in curve.windows(2) {
        let ((load, u), (_, next)) = (pair[0], pair[1]);
        let noise = (u.half_width + next.half_width).max(KNEE_GAIN);
        if next.mean - u.mean <= noise {
            return Knee {
                load: Some(load),
                util: u,
                sweep_max,
            };
        }
    }
    let last = curve.last().map_or(
        MeanCi {
            mean: f64::NAN,
            half_width: f64::INFINITY,
            n: 0,
        },
        |&(_, u)| u,
    );
    Knee {
        load: None,
        util: last,
        sweep_max,
    }
}

/// Arrival rates swept for uniform sides (Figs. 4–6): past OO's saturation near 3.
pub const UNIFORM_LOADS: [f64; 8] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0];
/// Arrival rates swept for uniform-decreasing sides (Figs. 2, 3, 7): past OO's near 8.
pub const DECREASING_LOADS: [f64; 10] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
/// The compared policies of Figs. 2–7.
pub const SWEEP_POLICIES: [PolicyKey; 7] = [
    PolicyKey::Fcfs,
    PolicyKey::Oocb(8),
    PolicyKey::Delay,
    PolicyKey::Window(10),
    PolicyKey::Window(120),
    PolicyKey::Window(240),
    PolicyKey::Oo,
];
/// Window sizes of Figs. 8–11 (plus OO, the unbounded window).
pub const WINDOW_SIZES: [usize; 13] = [1, 2, 5, 10, 20, 40, 80, 120, 160, 240, 320, 480, 960];

/// A figure: which points it needs and how to print them.
pub struct Figure {
    pub name: &'static str,
    pub title: &'static str,
    pub uniform: bool,
    pub kind: FigureKind,
}

pub enum FigureKind {
    /// Metric against load for the sweep policies.
    Sweep(&'static str),
    /// Maximum utilisation over the sweep, with the paper's values.
    MaxUtil,
    /// Metric against window size K at one load.
    Window(&'static str, f64),
}

pub const FIGURES: [Figure; 10] = [
    Figure {
        name: "fig2",
        title: "Fig. 2 — mean turnaround, uniform-decreasing sides",
        uniform: false,
        kind: FigureKind::Sweep("mean_turnaround"),
    },
    Figure {
        name: "fig3",
        title: "Fig. 3 — maximum waiting delay, uniform-decreasing sides",
        uniform: false,
        kind: FigureKind::Sweep("max_wait"),
    },
    Figure {
        name: "fig4",
        title: "Fig. 4 — mean turnaround, uniform sides",
        uniform: true,
        kind: FigureKind::Sweep("mean_turnaround"),
    },
    Figure {
        name: "fig5",
        title: "Fig. 5 — maximum waiting delay, uniform sides",
        uniform: true,
        kind: FigureKind::Sweep("max_wait"),
    },
    Figure {
        name: "fig6",
        title: "Fig. 6 — utilisation (%), uniform sides",
        uniform: true,
        kind: FigureKind::MaxUtil,
    },
    Figure {
        name: "fig7",
        title: "Fig. 7 — utilisation (%), uniform-decreasing sides",
        uniform: false,
        kind: FigureKind::MaxUtil,
    },
    Figure {
        name: "fig8",
        title: "Fig. 8 — mean turnaround vs K, λ = 2.5, uniform sides",
        uniform: true,
        kind: FigureKind::Window("mean_turnaround", 2.5),
    },
    Figure {
        name: "fig9",
        title: "Fig. 9 — maximum waiting delay vs K, λ = 4.5, uniform-decreasing sides",
        uniform: false,
        kind: FigureKind::Window("max_wait", 4.5),
    },
    Figure {
        name: "fig10",
        title: "Fig. 10 — maximum waiting delay vs K, λ = 7.5, uniform-decreasing sides",
        uniform: false,
        kind: FigureKind::Window("max_wait", 7.5),
    },
    Figure {
        name: "fig11",
        title: "Fig. 11 — maximum waiting delay vs K, λ = 2.5, uniform sides",
        uniform: true,
        kind: FigureKind::Window("max_wait", 2.5),
    },
];

pub fn milli(x: f64) -> u32 {
    libm::round(x * 1000.0) as u32
}

impl Figure {
    pub fn points(&self) -> Vec<Point> {
        let mut v = Vec::new();
        match self.kind {
            FigureKind::Sweep(_) | FigureKind::MaxUtil => {
                let loads: &[f64] = if self.uniform {
                    &UNIFORM_LOADS
                } else {
                    &DECREASING_LOADS
                };
                for &l in loads {
                    for &p in &SWEEP_POLICIES {
                        v.push(Point {
                            uniform: self.uniform,
                            load_milli: milli(l),
                            policy: p,
                        });
                    }
                }
            }
            FigureKind::Window(_, l) => {
                for &k in &WINDOW_SIZES {
                    v.push(Point {
                        uniform: self.uniform,
                        load_milli: milli(l),
                        policy: PolicyKey::Window(k),
                    });
                }
                v.push(Point {
                    uniform: self.uniform,
                    load_milli: milli(l),
                    policy: PolicyKey::Oo,
                });
            }
        }
        v
    }
}

/// SplitMix64 finaliser: well-spread seeds from small integers.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The workload seed of run `rep` at (sides, load): shared by all policies.
pub(crate) fn seed_of(uniform: bool, load_milli: u32, rep: usize) -> u64 {
    mix(0x5EED_0003 ^ (u64::from(uniform) << 60) ^ (u64::from(load_milli) << 20) ^ rep as u64)
}

fn sim_err(p: &Point, e: impl std::fmt::Display) -> Error {
    Error::simulation(
        crate::error::Engine::Mesh,
        format!(
            "window {} sides, λ = {}, {}",
            if p.uniform {
                "uniform"
            } else {
                "uniform-decreasing"
            },
            p.load(),
            p.policy.kind().label()
        ),
        e,
    )
}

/// One run of a point.
fn run_point(p: &Point, rep: usize) -> Result<RunMetrics, Error> {
    let params = MeshJobsParams {
        jobs: JOBS_PER_RUN,
        width: SIDE,
        height: SIDE,
        sides: if p.uniform {
            SideDistribution::Uniform
        } else {
            SideDistribution::UniformDecreasing
        },
        arrival_rate: p.load(),
        ..MeshJobsParams::default()
    };
    let workload = params.generate(seed_of(p.uniform, p.load_milli, rep));
    let sim = MeshSimulation::by_kind_with(
        workload.jobs,
        SIDE,
        SIDE,
        AllocatorKind::Mpl,
        WINDOW_SWITCH_ORIENTATION,
        p.policy.kind(),
    )
    .map_err(|e| sim_err(p, e))?
    .without_log();
    let s = sim.run_to_end().map_err(|e| sim_err(p, e))?.summary();
    Ok(RunMetrics {
        turnaround: s.mean_turnaround,
        mean_wait: s.mean_wait,
        max_wait: s.max_wait,
        utilization: s.utilization,
    })
}

/// Runs `tasks` on `threads` threads; results in task order.
fn run_tasks(tasks: &[(Point, usize)], threads: usize) -> Result<Vec<RunMetrics>, Error> {
    super::parallel::par_map(tasks, threads, |(p, rep)| run_point(p, *rep))
}

/// Everything `reproduce window` computes.
pub struct WindowReproOutput {
    /// The synthetic figures selected.
    pub figures: Vec<&'static Figure>,
    /// Every simulated synthetic point with its runs.
    pub stats: BTreeMap<Point, PointStats>,
    /// The trace experiments run, each with its wall time in seconds.
    pub trace_tables: Vec<(TraceTable, f64)>,
    /// Selected trace experiments whose trace is not in the folder.
    pub missing_traces: Vec<&'static TraceExp>,
    /// Wall time of the synthetic part, and of everything, in seconds.
    pub synthetic_seconds: f64,
    pub seconds: f64,
    /// The JSON rows.
    pub rows: Vec<Row>,
}

/// Runs the reproduction.
pub fn reproduce(o: &WindowReproOptions) -> Result<WindowReproOutput, Error> {
    let started = Instant::now();
    let filters: Vec<String> = o
        .only
        .as_deref()
        .map(|s| {
            s.split(',')
                .map(|t| t.trim().to_ascii_lowercase())
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let figures: Vec<&'static Figure> = FIGURES
        .iter()
        .filter(|f| {
            filters.is_empty()
                || filters
                    .iter()
                    .any(|t| f.name == t.as_str() || t == "synthetic")
        })
        .collect();
    let traces: Vec<&'static TraceExp> = TRACES
        .iter()
        .filter(|t| {
            filters.is_empty()
                || filters
                    .iter()
                    .any(|f| f == t.figures.0 || f == t.figures.1 || f == "traces")
        })
        .collect();
    if figures.is_empty() && traces.is_empty() {
        return Err(Error::Config(crate::modes::flat::spec::ConfigError {
            key: "only".into(),
            message: "no window figure matches (fig2 … fig11, fig15 … fig18, synthetic, traces)"
                .into(),
        }));
    }
    let mut stats: BTreeMap<Point, PointStats> = BTreeMap::new();
    for f in &figures {
        for p in f.points() {
            stats.entry(p).or_default();
        }
    }
    // Rounds: MIN_RUNS runs for every point, then one more run for every point above the
    // target error, until all meet it or have MAX_RUNS runs.
    let mut round = 0;
    loop {
        let mut tasks = Vec::new();
        for (p, s) in &stats {
            let n = s.runs.len();
            let want = if round == 0 {
                MIN_RUNS
            } else if n < MAX_RUNS && s.rel_error() > TARGET_REL_ERROR {
                n + 1
            } else {
                n
            };
            for rep in n..want {
                tasks.push((*p, rep));
            }
        }
        if tasks.is_empty() {
            break;
        }
        let results = run_tasks(&tasks, o.threads)?;
        for ((p, _), r) in tasks.iter().zip(results) {
            if let Some(s) = stats.get_mut(p) {
                s.runs.push(r);
            }
        }
        round += 1;
    }
    let mut rows = rows(&figures, &stats);
    let synthetic_seconds = started.elapsed().as_secs_f64();
    let mut trace_tables = Vec::new();
    let mut missing_traces = Vec::new();
    for t in traces {
        let path = o.traces.join(t.file);
        if !path.is_file() {
            missing_traces.push(t);
            continue;
        }
        let t0 = Instant::now();
        let table = run_trace_experiment(t, &path, o.threads)?;
        rows.extend(table.rows());
        trace_tables.push((table, t0.elapsed().as_secs_f64()));
    }
    Ok(WindowReproOutput {
        figures,
        stats,
        trace_tables,
        missing_traces,
        synthetic_seconds,
        seconds: started.elapsed().as_secs_f64(),
        rows,
    })
}

pub fn label(p: PolicyKey) -> String {
    p.kind().label()
}

/// The row of a point's mean turnaround (`mean_turnaround`) or maximum wait (any other
/// metric name).
fn metric_row(f: &Figure, p: &Point, s: &PointStats, metric: &str) -> Row {
    let value = match metric {
        "mean_turnaround" => s.mean(|r| r.turnaround),
        _ => s.mean(|r| r.max_wait),
    };
    Row {
        figure: f.name.into(),
        policy: label(p.policy),
        load: Some(p.load()),
        metric: metric.into(),
        ours: value,
        paper: None,
    }
}

fn rows(figures: &[&Figure], stats: &BTreeMap<Point, PointStats>) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in figures {
        match f.kind {
            FigureKind::Sweep(metric) => {
                for p in f.points() {
                    let Some(s) = stats.get(&p) else { continue };
                    rows.push(metric_row(f, &p, s, metric));
                    if metric == "mean_turnaround" {
                        for (m, v) in [
                            ("mean_wait", s.mean(|r| r.mean_wait)),
                            ("runs", s.runs.len() as f64),
                            ("turnaround_rel_error", s.rel_error()),
                        ] {
                            rows.push(Row {
                                figure: f.name.into(),
                                policy: label(p.policy),
                                load: Some(p.load()),
                                metric: m.into(),
                                ours: v,
                                paper: None,
                            });
                        }
                    }
                }
            }
            FigureKind::MaxUtil => {
                let mut curves: BTreeMap<PolicyKey, Vec<(f64, MeanCi)>> = BTreeMap::new();
                for p in f.points() {
                    let Some(s) = stats.get(&p) else { continue };
                    let u = MeanCi::of(&s.values(|r| 100.0 * r.utilization));
                    for (metric, ours) in [
                        ("utilization_percent", u.mean),
                        ("utilization_ci95_percent", u.half_width),
                    ] {
                        rows.push(Row {
                            figure: f.name.into(),
                            policy: label(p.policy),
                            load: Some(p.load()),
                            metric: metric.into(),
                            ours,
                            paper: None,
                        });
                    }
                    curves.entry(p.policy).or_default().push((p.load(), u));
                }
                let knees: Vec<(PolicyKey, Knee)> =
                    curves.iter().map(|(&p, curve)| (p, knee(curve))).collect();
                let paper_policies: Vec<&(PolicyKey, Knee)> = knees
                    .iter()
                    .filter(|(p, _)| paper_max_util(f.uniform, *p).is_some())
                    .collect();
                // Highest utilisation first: rank by the negated intervals.
                let negated: Vec<MeanCi> = paper_policies
                    .iter()
                    .map(|(_, k)| MeanCi {
                        mean: -k.util.mean,
                        ..k.util
                    })
                    .collect();
                let rank_of: BTreeMap<PolicyKey, u32> = paper_policies
                    .iter()
                    .map(|(p, _)| *p)
                    .zip(ci_ranks(&negated))
                    .collect();
                let paper_rank = |p: PolicyKey| -> Option<f64> {
                    let mine = paper_max_util(f.uniform, p)?;
                    let above = paper_policies
                        .iter()
                        .filter_map(|(q, _)| paper_max_util(f.uniform, *q))
                        .filter(|&v| v > mine)
                        .count();
                    Some(1.0 + above as f64)
                };
                for (p, k) in &knees {
                    let mut push = |metric: &str, ours: f64, paper: Option<f64>| {
                        rows.push(Row {
                            figure: f.name.into(),
                            policy: label(*p),
                            load: None,
                            metric: metric.into(),
                            ours,
                            paper,
                        })
                    };
                    push(
                        "max_utilization_percent",
                        k.util.mean,
                        paper_max_util(f.uniform, *p),
                    );
                    push("max_utilization_ci95_percent", k.util.half_width, None);
                    push("knee_load", k.load.unwrap_or(f64::NAN), None);
                    push("sweep_max_utilization_percent", k.sweep_max, None);
                    if let Some(r) = rank_of.get(p) {
                        push("rank_within_noise", f64::from(*r), paper_rank(*p));
                    }
                }
            }
            FigureKind::Window(metric, _) => {
                for p in f.points() {
                    let Some(s) = stats.get(&p) else { continue };
                    rows.push(metric_row(f, &p, s, metric));
                }
            }
        }
    }
    rows
}

/// A trace experiment of §5.4–5.5.
pub struct TraceExp {
    /// File in the traces folder.
    pub file: &'static str,
    /// Name as in the paper.
    pub label: &'static str,
    pub width: u32,
    pub height: u32,
    pub rule: ShapeRule,
    /// Processors per mesh node (Blue Horizon: 8-processor SMP nodes).
    pub procs_per_node: u32,
    /// Only jobs of this SWF partition (Paragon: the 352-node batch partition).
    pub partition: Option<f64>,
    /// (turnaround figure, maximum-wait figure).
    pub figures: (&'static str, &'static str),
    /// Largest load factor of the sweep (steps of 0.1 from 0.1).
    pub max_lf: f64,
}

/// The trace experiments we can run (the 1995 Paragon trace, Figs. 13–14, is not in the
/// Parallel Workloads Archive set we use).
pub const TRACES: [TraceExp; 2] = [
    TraceExp {
        file: "SDSC-Par-1996-3.1-cln.swf.gz",
        label: "SDSC Paragon 1996 (sdsc-96), 22 × 16",
        width: 22,
        height: 16,
        rule: ShapeRule::Paragon,
        procs_per_node: 1,
        partition: Some(2.0),
        figures: ("fig15", "fig16"),
        max_lf: 2.0,
    },
    TraceExp {
        file: "SDSC-BLUE-2000-4.2-cln.swf.gz",
        label: "SDSC Blue Horizon 2000–2003, 12 × 12",
        width: 12,
        height: 12,
        rule: ShapeRule::Square,
        procs_per_node: 8,
        partition: None,
        figures: ("fig17", "fig18"),
        max_lf: 2.0,
    },
];

/// Policies of Figs. 13–18.
pub const TRACE_POLICIES: [PolicyKey; 6] = [
    PolicyKey::Fcfs,
    PolicyKey::Oocb(8),
    PolicyKey::Delay,
    PolicyKey::Window(10),
    PolicyKey::Window(240),
    PolicyKey::Oo,
];

/// Results of one trace experiment.
pub struct TraceTable {
    pub label: &'static str,
    pub figures: (&'static str, &'static str),
    pub jobs: usize,
    pub dropped: usize,
    pub offered_load_lf1: f64,
    pub lfs: Vec<f64>,
    /// (lf index, policy) → (mean turnaround, max wait, utilisation); NaN when saturated.
    pub cells: BTreeMap<(usize, PolicyKey), (f64, f64, f64)>,
}

fn trace_err(path: &std::path::Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Reads, filters and shapes a trace: jobs of the partition, sizes in nodes, shapes by the
/// rule, estimates = run times (the paper assumes no estimates).
pub fn load_trace(t: &TraceExp, path: &std::path::Path) -> Result<Workload, Error> {
    let f = std::fs::File::open(path).map_err(|e| trace_err(path, e))?;
    let opts = ReadOptions::limited(
        &path.display().to_string(),
        false,
        &crate::limits::Limits::DEFAULT,
    );
    let mut w = read_swf(std::io::BufReader::new(f), &opts).map_err(|e| trace_err(path, e))?;
    if let Some(p) = t.partition {
        w.jobs.retain(|j| j.record.partition == p);
    }
    let ppn = t.procs_per_node.max(1);
    for j in &mut w.jobs {
        j.procs = j.procs.div_ceil(ppn);
        j.estimate = j.run_time;
    }
    apply_shapes(&mut w, t.width, t.height, t.rule);
    Ok(w)
}

/// Runs `jobs` at load factor `lf`; `None` when the queue passes [`QUEUE_CAP`].
fn run_trace_point(
    t: &TraceExp,
    base: &Workload,
    lf: f64,
    p: PolicyKey,
) -> Result<Option<(f64, f64, f64)>, Error> {
    let mut w = Workload {
        header: Default::default(),
        jobs: base.jobs.clone(),
        dropped: Default::default(),
    };
    scale_load(&mut w, lf);
    let err = |error: crate::sim::mesh_engine::MeshSimError| {
        let context = format!("window {} LF {lf} {}", t.label, p.kind().label());
        Error::simulation(crate::error::Engine::Mesh, context, error)
    };
    let mut sim = MeshSimulation::by_kind_with(
        w.jobs,
        t.width,
        t.height,
        AllocatorKind::Mpl,
        WINDOW_SWITCH_ORIENTATION,
        p.kind(),
    )
    .map_err(err)?
    .without_log();
    while !sim.step_instants(4096).map_err(err)? {
        if sim.policy().queue_len() > QUEUE_CAP {
            return Ok(None);
        }
    }
    let s = sim.into_result().summary();
    Ok(Some((s.mean_turnaround, s.max_wait, s.utilization)))
}

fn offered_load(jobs: &[Job], width: u32, height: u32) -> f64 {
    let (Some(first), Some(last)) = (jobs.first(), jobs.last()) else {
        return 0.0;
    };
    let span = last.submit - first.submit;
    let work: f64 = jobs.iter().map(|j| f64::from(j.procs) * j.duration()).sum();
    if span > 0.0 {
        work / (f64::from(width * height) * span)
    } else {
        0.0
    }
}

/// Runs every (load factor, policy) of a trace experiment.
pub fn run_trace_experiment(
    t: &TraceExp,
    path: &std::path::Path,
    threads: usize,
) -> Result<TraceTable, Error> {
    let w = load_trace(t, path)?;
    let steps = libm::round(t.max_lf * 10.0) as usize;
    let lfs: Vec<f64> = (1..=steps).map(|i| i as f64 / 10.0).collect();
    let tasks: Vec<(usize, PolicyKey)> = (0..lfs.len())
        .flat_map(|i| TRACE_POLICIES.iter().map(move |&p| (i, p)))
        .collect();
    let results = super::parallel::par_map(&tasks, threads, |&(li, p)| {
        run_trace_point(t, &w, lfs[li], p)
    })?;
    let mut cells = BTreeMap::new();
    for (&(li, p), r) in tasks.iter().zip(results) {
        cells.insert((li, p), r.unwrap_or((f64::NAN, f64::NAN, f64::NAN)));
    }
    Ok(TraceTable {
        label: t.label,
        figures: t.figures,
        jobs: w.jobs.len(),
        dropped: w.dropped.total(),
        offered_load_lf1: offered_load(&w.jobs, t.width, t.height),
        lfs,
        cells,
    })
}

impl TraceTable {
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        for (&(li, p), &(turn, max_wait, _)) in &self.cells {
            for (fig, metric, v) in [
                (self.figures.0, "mean_turnaround_seconds", turn),
                (self.figures.1, "max_wait_seconds", max_wait),
            ] {
                rows.push(Row {
                    figure: fig.into(),
                    policy: label(p),
                    load: Some(self.lfs[li]),
                    metric: metric.into(),
                    ours: v,
                    paper: None,
                });
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_uses_student_t() {
        let s = PointStats {
            runs: [10.0, 12.0, 11.0]
                .iter()
                .map(|&t| RunMetrics {
                    turnaround: t,
                    ..RunMetrics::default()
                })
                .collect(),
        };
        // mean 11, s = 1, half-width 4.303 / √3.
        assert!((s.rel_error() - 4.303 / 3f64.sqrt() / 11.0).abs() < 1e-12);
    }

    #[test]
    fn traces_are_filtered_sized_in_nodes_and_shaped() {
        let dir = std::env::temp_dir().join(format!("schedlab-window-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.swf");
        // job submit wait run procs cpu mem req_procs req_time req_mem status uid gid exe
        // queue partition preceding think
        let text = "; MaxProcs: 1152\n\
            1 0 0 100 17 -1 -1 17 50 -1 1 1 1 1 1 2 -1 -1\n\
            2 10 0 200 64 -1 -1 64 300 -1 1 1 1 1 1 1 -1 -1\n\
            3 20 0 -1 8 -1 -1 8 300 -1 1 1 1 1 1 2 -1 -1\n";
        std::fs::write(&path, text).unwrap();
        let paragon = TraceExp {
            partition: Some(2.0),
            ..TRACES[0]
        };
        let w = load_trace(&paragon, &path).unwrap();
        assert_eq!(w.jobs.len(), 1); // partition 1 filtered, negative run time dropped
                                     // 17 = 17 × 1 fits a 22-wide mesh (w ≥ h): no enlargement needed.
        assert_eq!(w.jobs[0].shape, Some((17, 1)));
        assert_eq!(w.jobs[0].estimate, 100.0); // estimates are the run times
        let blue = TraceExp {
            partition: None,
            ..TRACES[1]
        };
        let w = load_trace(&blue, &path).unwrap();
        // 17 processors → 3 nodes (1 × 3); 64 → 8 nodes (2 × 4).
        let shapes: Vec<_> = w.jobs.iter().map(|j| j.shape).collect();
        assert_eq!(shapes, vec![Some((1, 3)), Some((2, 4))]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_knee_is_the_first_load_the_next_one_does_not_raise() {
        let ci = |mean, half_width| MeanCi {
            mean,
            half_width,
            n: 5,
        };
        // 48.1 → 48.2 gains 0.1 point: knee at 2.0.
        let curve = [
            (1.0, ci(26.7, 0.2)),
            (2.0, ci(48.1, 0.3)),
            (3.0, ci(48.2, 0.3)),
            (4.0, ci(48.9, 0.3)),
        ];
        let k = knee(&curve);
        assert_eq!(k.load, Some(2.0));
        assert_eq!(k.util.mean, 48.1);
        assert_eq!(k.sweep_max, 48.9);
        // A gain of 1.5 points inside ±1 intervals is noise too.
        let k = knee(&[(1.0, ci(60.0, 1.0)), (2.0, ci(61.5, 1.0))]);
        assert_eq!(k.load, Some(1.0));
        // Still rising at the last load: no knee, read at the last load.
        let k = knee(&[(1.0, ci(60.0, 0.1)), (2.0, ci(65.0, 0.1))]);
        assert_eq!((k.load, k.util.mean), (None, 65.0));
    }

    #[test]
    fn figures_need_the_expected_points() {
        assert_eq!(FIGURES[0].points().len(), 70);
        assert_eq!(FIGURES[6].points().len(), WINDOW_SIZES.len() + 1);
        // Common random numbers: the seed does not depend on the policy.
        assert_eq!(seed_of(true, 2500, 0), seed_of(true, 2500, 0));
        assert_ne!(seed_of(true, 2500, 0), seed_of(true, 2500, 1));
        assert_ne!(seed_of(true, 2500, 0), seed_of(false, 2500, 0));
    }
}
