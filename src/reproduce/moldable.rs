//! The design of `schedlab reproduce moldable`: the experiments of Srinivasan et al. (Srinivasan,
//! Krishnamoorthy and Sadayappan, "A robust scheduling strategy for moldable scheduling of
//! parallel jobs", §3–5) on the first 5,000 jobs of the SDSC SP2 and CTC SP2 traces, every
//! job made moldable by Downey's model with one σ and one range factor RF for the run, each
//! strategy's mean turnaround (overall and per weight category) as % change against rigid
//! conservative backfilling on the same jobs at the same load factor:
//!
//! * Figs. 1–3 (§3.1): the submit-time and schedule-time fair-share schemes — CTC LF 100 %
//!   RF 1 at σ = 0 and σ = 1, SDSC LF 125 % RF 1 σ = 2;
//! * §4.1: the base strategy (12 choices) against all partition sizes (SDSC, LF 100 %, σ 0);
//! * Fig. 4 (§4.2): modified and corrected modified weight fractions against the base;
//! * Fig. 5 (§4.3): category-based, Xfactor-based and both reservations against the base;
//! * Figs. 6–11 (§5): the combined scheme (and the base strategy, for reference) for RF 1–4 —
//!   SDSC and CTC at σ = 0 LF 100 % (6, 7), σ = 0 LF 125 % (8, 9), σ = 1 LF 125 % (10, 11).
//!
//! The paper gives plots only, so there are no numbers to compare with; its claims are
//! checked instead ([`Claim`]), each reported as holding or not with the numbers behind it
//! (`docs/reproductions.md`). Every run is independent and deterministic; they go through
//! [`par_map`], so the output is the same for any number of threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::base::Registered;
use crate::error::Error;
use crate::limits::Limits;
use crate::metrics::CATEGORY_COUNT;
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::{SwfSource, WorkloadSpec};
use crate::modes::moldable::run::checked;
use crate::modes::moldable::run::{
    change, measure, prepare_moldable, simulate, Change, MoldableOutput, PreparedMoldable,
};
use crate::modes::moldable::spec::MoldableExperiment;
use crate::policy::moldable::readings::Readings;
use crate::policy::moldable::MoldableStrategyKind as K;
use crate::reproduce::parallel::par_map;
use crate::sim::moldable_engine::{MoldableResult, MoldableSimulation};
use crate::workload::moldable::MoldableModel;
use crate::workload::transform::scale_load;

/// Jobs per trace (§2.2).
pub const JOBS: usize = 5000;
/// A category change within this many % counts as "comparable" to rigid conservative.
pub const COMPARABLE_PCT: f64 = 5.0;
/// Categories with fewer jobs than this are shown but not used to judge a claim (their mean
/// turnaround rests on too few jobs).
pub const MIN_CATEGORY_JOBS: usize = 5;

/// The two traces of the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Trace {
    Sdsc,
    Ctc,
}

impl Trace {
    /// The file in the traces folder.
    pub fn file(self) -> &'static str {
        match self {
            Trace::Sdsc => "SDSC-SP2-1998-4.2-cln.swf.gz",
            Trace::Ctc => "CTC-SP2-1996-3.1-cln.swf.gz",
        }
    }

    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Trace::Sdsc => "SDSC SP2",
            Trace::Ctc => "CTC SP2",
        }
    }
}

/// One figure of the paper: a trace, a load factor, σ, the range factors and the strategies.
#[derive(Clone, Debug)]
pub struct Figure {
    pub name: &'static str,
    pub title: &'static str,
    pub trace: Trace,
    /// Load factor as a fraction (1.25 = 125 %).
    pub load_factor: f64,
    pub sigma: f64,
    pub range_factors: &'static [f64],
    pub strategies: &'static [K],
}

const RF1: &[f64] = &[1.0];
const RF1_4: &[f64] = &[1.0, 2.0, 3.0, 4.0];
const PREVIOUS: &[K] = &[K::SubmitFairShare, K::ScheduleFairShare];
const COMBINED: &[K] = &[K::Base, K::Combined];

/// The figures reproduced, in the paper's order.
pub const FIGURES: &[Figure] = &[
    Figure {
        name: "fig1",
        title: "Fig. 1 — previous schemes, CTC, LF 100 %, σ = 0, RF 1",
        trace: Trace::Ctc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1,
        strategies: PREVIOUS,
    },
    Figure {
        name: "fig2",
        title: "Fig. 2 — previous schemes, CTC, LF 100 %, σ = 1, RF 1",
        trace: Trace::Ctc,
        load_factor: 1.0,
        sigma: 1.0,
        range_factors: RF1,
        strategies: PREVIOUS,
    },
    Figure {
        name: "fig3",
        title: "Fig. 3 — previous schemes, SDSC, LF 125 %, σ = 2, RF 1",
        trace: Trace::Sdsc,
        load_factor: 1.25,
        sigma: 2.0,
        range_factors: RF1,
        strategies: PREVIOUS,
    },
    Figure {
        name: "sec4.1",
        title:
            "§4.1 — 12 processor choices (base) vs all partition sizes, SDSC, LF 100 %, σ = 0, RF 1",
        trace: Trace::Sdsc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1,
        strategies: &[K::Base, K::AllSizes],
    },
    Figure {
        name: "fig4",
        title: "Fig. 4 — weight fractions, SDSC, LF 100 %, σ = 0, RF 1",
        trace: Trace::Sdsc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1,
        strategies: &[K::Base, K::ModifiedWf, K::CorrectedWf],
    },
    Figure {
        name: "fig5",
        title: "Fig. 5 — enhanced reservations, SDSC, LF 100 %, σ = 0, RF 1",
        trace: Trace::Sdsc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1,
        strategies: &[K::Base, K::CategoryRes, K::XfactorRes, K::CategoryXfactor],
    },
    Figure {
        name: "fig6",
        title: "Fig. 6 — combined scheme, SDSC, LF 100 %, σ = 0",
        trace: Trace::Sdsc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
    Figure {
        name: "fig7",
        title: "Fig. 7 — combined scheme, CTC, LF 100 %, σ = 0",
        trace: Trace::Ctc,
        load_factor: 1.0,
        sigma: 0.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
    Figure {
        name: "fig8",
        title: "Fig. 8 — combined scheme, SDSC, LF 125 %, σ = 0",
        trace: Trace::Sdsc,
        load_factor: 1.25,
        sigma: 0.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
    Figure {
        name: "fig9",
        title: "Fig. 9 — combined scheme, CTC, LF 125 %, σ = 0",
        trace: Trace::Ctc,
        load_factor: 1.25,
        sigma: 0.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
    Figure {
        name: "fig10",
        title: "Fig. 10 — combined scheme, SDSC, LF 125 %, σ = 1",
        trace: Trace::Sdsc,
        load_factor: 1.25,
        sigma: 1.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
    Figure {
        name: "fig11",
        title: "Fig. 11 — combined scheme, CTC, LF 125 %, σ = 1",
        trace: Trace::Ctc,
        load_factor: 1.25,
        sigma: 1.0,
        range_factors: RF1_4,
        strategies: COMBINED,
    },
];

/// What `schedlab reproduce moldable` runs.
#[derive(Clone, Debug)]
pub struct MoldableReproOptions {
    /// Folder of the SWF traces.
    pub traces: PathBuf,
    /// Only figures whose name contains one of these comma-separated texts.
    pub only: Option<String>,
    /// Worker threads.
    pub threads: usize,
    /// The readings of §3–4.3 the text leaves open ([`Readings::DEFAULT`]: the reproduction's).
    pub readings: Readings,
}

/// A simulated point (exact keys: load factor, σ and RF in thousandths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    pub trace: Trace,
    pub lf_milli: u32,
    pub sigma_milli: u32,
    pub rf_milli: u32,
    pub strategy: K,
}

fn milli(x: f64) -> u32 {
    libm::round(x * 1000.0) as u32
}

/// One output row: a strategy's mean turnaround in one category (or overall) at one point,
/// against rigid conservative.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub figure: String,
    pub trace: String,
    pub load_factor: f64,
    pub sigma: f64,
    pub range_factor: f64,
    pub strategy: String,
    /// `overall` or `category_<k>`.
    pub metric: String,
    pub jobs: usize,
    pub rigid_mean_turnaround: f64,
    pub mean_turnaround: f64,
    /// % change against rigid conservative (negative = better).
    pub ours_pct: Option<f64>,
    /// The paper's value: always `null` (it gives plots only).
    pub paper: Option<f64>,
}

/// A claim of the paper, checked.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: &'static str,
    pub section: &'static str,
    pub text: &'static str,
    /// `None` when a figure it needs was not run.
    pub holds: Option<bool>,
    pub evidence: String,
}

/// One strategy at one point with its comparison.
#[derive(Clone, Debug)]
pub struct Cell {
    pub output: MoldableOutput,
    pub change: Change,
}

/// Everything the reproduction computed.
#[derive(Clone, Debug)]
pub struct MoldableReproOutput {
    pub figures: Vec<&'static Figure>,
    /// Rigid conservative at (trace, LF in thousandths).
    pub reference: BTreeMap<(Trace, u32), MoldableOutput>,
    pub cells: BTreeMap<Point, Cell>,
    pub rows: Vec<Row>,
    pub claims: Vec<Claim>,
    /// Traces not found: their figures are skipped.
    pub missing: Vec<Trace>,
    /// (trace, jobs kept, machine size).
    pub workloads: Vec<(Trace, usize, u32)>,
    pub runs: usize,
    pub seconds: f64,
}

fn load(path: &Path) -> Result<PreparedMoldable, Error> {
    let mut exp = MoldableExperiment::new(
        WorkloadSpec::Swf(SwfSource {
            path: Some(path.display().to_string()),
            ..SwfSource::default()
        }),
        MoldableModel::default(),
        K::Combined,
    );
    exp.transforms.first_jobs = Some(JOBS);
    let f = std::fs::File::open(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let input = TraceInput {
        name: path.display().to_string(),
        reader: Box::new(std::io::BufReader::new(f)),
        cache: None,
        jobs_hint: 0,
    };
    prepare_moldable(&exp, Some(input), &Limits::DEFAULT)
}

/// The workload of `base` (LF 100 %, σ 0, RF 1) at load factor `lf` with model (σ, RF).
fn at(base: &PreparedMoldable, lf: f64, sigma: f64, rf: f64) -> PreparedMoldable {
    let mut prepared = base.prepared.clone();
    scale_load(&mut prepared.workload, lf);
    let model = MoldableModel::Downey {
        sigma,
        range_factor: rf,
    };
    let shapes = model.apply(&prepared.workload.jobs, prepared.procs);
    PreparedMoldable { prepared, shapes }
}

/// Runs `kind` on `p` under `readings` (as [`simulate`] for the default readings); the run's
/// invariants are checked.
pub fn simulate_with(
    p: &PreparedMoldable,
    kind: K,
    readings: Readings,
) -> Result<MoldableResult, Error> {
    if readings == Readings::DEFAULT {
        return simulate(p, kind);
    }
    let err = |e: &dyn std::fmt::Display| {
        Error::simulation(
            crate::error::Engine::Moldable,
            format!("{} ({})", kind.as_str(), readings.label()),
            e,
        )
    };
    let policy = kind.build_with(p.prepared.workload.jobs.len(), p.prepared.procs, readings);
    let result = MoldableSimulation::moldable(
        p.prepared.workload.jobs.clone(),
        p.shapes.clone(),
        p.prepared.procs,
        policy,
    )
    .map_err(|e| err(&e))?
    .run_to_end()
    .map_err(|e| err(&e))?;
    checked(kind, result)
}

/// Runs the figures selected by `o` and checks the claims.
pub fn reproduce(o: &MoldableReproOptions) -> Result<MoldableReproOutput, Error> {
    let t0 = Instant::now();
    let wanted: Vec<String> = o
        .only
        .as_deref()
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default();
    let mut figures: Vec<&'static Figure> = FIGURES
        .iter()
        .filter(|f| wanted.is_empty() || wanted.iter().any(|w| f.name.contains(w.as_str())))
        .collect();
    let mut bases: BTreeMap<Trace, PreparedMoldable> = BTreeMap::new();
    let mut missing = Vec::new();
    for t in [Trace::Sdsc, Trace::Ctc] {
        if !figures.iter().any(|f| f.trace == t) {
            continue;
        }
        let path = o.traces.join(t.file());
        if !path.exists() {
            missing.push(t);
            continue;
        }
        bases.insert(t, load(&path)?);
    }
    figures.retain(|f| bases.contains_key(&f.trace));
    let workloads = bases
        .iter()
        .map(|(t, b)| (*t, b.prepared.workload.jobs.len(), b.prepared.procs))
        .collect();

    // Every distinct run: the references (rigid conservative depends on the trace and the
    // load only), then each (trace, LF, σ, RF, strategy).
    let mut points: Vec<Point> = Vec::new();
    for f in &figures {
        let reference = Point {
            trace: f.trace,
            lf_milli: milli(f.load_factor),
            sigma_milli: 0,
            rf_milli: 1000,
            strategy: K::RigidConservative,
        };
        points.push(reference);
        for &rf in f.range_factors {
            for &s in f.strategies {
                points.push(Point {
                    trace: f.trace,
                    lf_milli: milli(f.load_factor),
                    sigma_milli: milli(f.sigma),
                    rf_milli: milli(rf),
                    strategy: s,
                });
            }
        }
    }
    points.sort();
    points.dedup();
    let outputs = par_map(&points, o.threads, |p| {
        let base = bases
            .get(&p.trace)
            .ok_or_else(|| Error::MissingTrace(p.trace.file().into()))?;
        let w = at(
            base,
            f64::from(p.lf_milli) / 1000.0,
            f64::from(p.sigma_milli) / 1000.0,
            f64::from(p.rf_milli) / 1000.0,
        );
        let r = simulate_with(&w, p.strategy, o.readings)?;
        Ok(measure(&r, w.prepared.workload.dropped.total()))
    })?;
    let mut reference = BTreeMap::new();
    let mut cells = BTreeMap::new();
    let mut by_point: BTreeMap<Point, MoldableOutput> = BTreeMap::new();
    for (p, out) in points.iter().zip(outputs) {
        if p.strategy == K::RigidConservative {
            reference.insert((p.trace, p.lf_milli), out);
        } else {
            by_point.insert(*p, out);
        }
    }
    for (p, out) in by_point {
        if let Some(r) = reference.get(&(p.trace, p.lf_milli)) {
            cells.insert(
                p,
                Cell {
                    change: change(r, &out),
                    output: out,
                },
            );
        }
    }
    let rows = rows(&figures, &reference, &cells);
    let claims = claims(&figures, &cells);
    Ok(MoldableReproOutput {
        figures,
        reference,
        runs: points.len(),
        cells,
        rows,
        claims,
        missing,
        workloads,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The point of figure `f` at range factor `rf` for strategy `s`.
pub fn point(f: &Figure, rf: f64, s: K) -> Point {
    Point {
        trace: f.trace,
        lf_milli: milli(f.load_factor),
        sigma_milli: milli(f.sigma),
        rf_milli: milli(rf),
        strategy: s,
    }
}

fn rows(
    figures: &[&'static Figure],
    reference: &BTreeMap<(Trace, u32), MoldableOutput>,
    cells: &BTreeMap<Point, Cell>,
) -> Vec<Row> {
    let mut out = Vec::new();
    for f in figures {
        let Some(r) = reference.get(&(f.trace, milli(f.load_factor))) else {
            continue;
        };
        for &rf in f.range_factors {
            for &s in f.strategies {
                let Some(c) = cells.get(&point(f, rf, s)) else {
                    continue;
                };
                let row = |metric: String, jobs, rigid, mean, pct| Row {
                    figure: f.name.to_string(),
                    trace: f.trace.label().to_string(),
                    load_factor: f.load_factor,
                    sigma: f.sigma,
                    range_factor: rf,
                    strategy: s.name(),
                    metric,
                    jobs,
                    rigid_mean_turnaround: rigid,
                    mean_turnaround: mean,
                    ours_pct: pct,
                    paper: None,
                };
                out.push(row(
                    "overall".into(),
                    c.output.summary.jobs,
                    r.summary.mean_turnaround,
                    c.output.summary.mean_turnaround,
                    Some(c.change.overall_pct),
                ));
                for k in 0..CATEGORY_COUNT {
                    let (Some(rc), Some(oc)) = (r.categories.get(k), c.output.categories.get(k))
                    else {
                        continue;
                    };
                    if oc.jobs == 0 {
                        continue;
                    }
                    out.push(row(
                        format!("category_{k}"),
                        oc.jobs,
                        rc.mean_turnaround,
                        oc.mean_turnaround,
                        c.change.categories_pct.get(k).copied().flatten(),
                    ));
                }
            }
        }
    }
    out
}

/// The categories of a cell with enough jobs to judge, with their % change.
fn judged(c: &Cell) -> Vec<(usize, f64)> {
    c.output
        .categories
        .iter()
        .filter(|s| s.jobs >= MIN_CATEGORY_JOBS)
        .filter_map(|s| {
            Some((
                s.category,
                c.change.categories_pct.get(s.category).copied()??,
            ))
        })
        .collect()
}

/// The worst (largest) category change of a cell: (category, %).
fn worst(c: &Cell) -> Option<(usize, f64)> {
    judged(c).into_iter().max_by(|a, b| a.1.total_cmp(&b.1))
}

fn fmt_worst(c: &Cell) -> String {
    match worst(c) {
        Some((k, v)) => format!("worst category {k}: {v:+.1} %"),
        None => "no category with enough jobs".into(),
    }
}

fn claims(figures: &[&'static Figure], cells: &BTreeMap<Point, Cell>) -> Vec<Claim> {
    let fig = |name: &str| figures.iter().find(|f| f.name == name).copied();
    let cell = |name: &str, rf: f64, s: K| fig(name).and_then(|f| cells.get(&point(f, rf, s)));
    let mut out = Vec::new();

    // §3.1, Fig. 1.
    let (sub, sch) = (
        cell("fig1", 1.0, K::SubmitFairShare),
        cell("fig1", 1.0, K::ScheduleFairShare),
    );
    out.push(match (sub, sch) {
        (Some(a), Some(b)) => {
            let a_bad = judged(a).iter().filter(|x| x.1 > COMPARABLE_PCT).count();
            let b_ok = judged(b).iter().all(|x| x.1 <= COMPARABLE_PCT);
            Claim {
                id: "fig1",
                section: "§3.1",
                text: "σ = 0 (CTC, LF 100 %, RF 1): both fair-share schemes improve the overall turnaround; several categories suffer under submit-time fair share; schedule-time aggressive is better than rigid for all categories",
                holds: Some(a.change.overall_pct < 0.0 && b.change.overall_pct < 0.0 && a_bad >= 2 && b_ok),
                evidence: format!(
                    "submit-time: overall {:+.1} %, {a_bad} categories worse than +{COMPARABLE_PCT} % ({}); schedule-time: overall {:+.1} %, {}",
                    a.change.overall_pct,
                    fmt_worst(a),
                    b.change.overall_pct,
                    fmt_worst(b)
                ),
            }
        }
        _ => not_run("fig1", "§3.1"),
    });

    // §3.1, Figs. 2–3.
    for (name, text) in [
        ("fig2", "σ = 1 (CTC, LF 100 %, RF 1): the overall turnaround improves, but categories suffer greatly under both fair-share schemes"),
        ("fig3", "σ = 2 (SDSC, LF 125 %, RF 1): both fair-share schemes are inefficient (categories degrade)"),
    ] {
        let (a, b) = (
            cell(name, 1.0, K::SubmitFairShare),
            cell(name, 1.0, K::ScheduleFairShare),
        );
        out.push(match (a, b) {
            (Some(a), Some(b)) => {
                let degrades = |c: &Cell| worst(c).is_some_and(|w| w.1 > COMPARABLE_PCT);
                let holds = degrades(a) && degrades(b);
                Claim {
                    id: name,
                    section: "§3.1",
                    text,
                    holds: Some(if name == "fig2" {
                        holds && a.change.overall_pct < 0.0 && b.change.overall_pct < 0.0
                    } else {
                        holds
                    }),
                    evidence: format!(
                        "submit-time: overall {:+.1} %, {}; schedule-time: overall {:+.1} %, {}",
                        a.change.overall_pct,
                        fmt_worst(a),
                        b.change.overall_pct,
                        fmt_worst(b)
                    ),
                }
            }
            _ => not_run(name, "§3.1"),
        });
    }

    // §4.1.
    out.push(match (cell("sec4.1", 1.0, K::Base), cell("sec4.1", 1.0, K::AllSizes)) {
        (Some(b), Some(a)) => {
            // Lighter categories: the lower half of the categories with enough jobs.
            let jb = judged(b);
            let light: Vec<usize> = jb.iter().map(|x| x.0).take(jb.len().div_ceil(2)).collect();
            let mean = |c: &Cell| {
                let v: Vec<f64> = light
                    .iter()
                    .filter_map(|&k| c.output.categories.get(k).map(|s| s.mean_turnaround))
                    .collect();
                v.iter().sum::<f64>() / v.len().max(1) as f64
            };
            let (mb, ma) = (mean(b), mean(a));
            Claim {
                id: "sec4.1",
                section: "§4.1",
                text: "evaluating all partition sizes hurts the lighter categories compared with 12 choices, and degrades the overall performance",
                holds: Some(ma > mb && a.output.summary.mean_turnaround > b.output.summary.mean_turnaround),
                evidence: format!(
                    "mean turnaround of the lighter categories {light:?}: 12 choices {mb:.0} s, all sizes {ma:.0} s; overall {:.0} s vs {:.0} s ({} vs {} counts evaluated)",
                    b.output.summary.mean_turnaround,
                    a.output.summary.mean_turnaround,
                    b.output.evaluations,
                    a.output.evaluations
                ),
            }
        }
        _ => not_run("sec4.1", "§4.1"),
    });

    // §4.2, Fig. 4.
    out.push(
        match (
            cell("fig4", 1.0, K::Base),
            cell("fig4", 1.0, K::ModifiedWf),
            cell("fig4", 1.0, K::CorrectedWf),
        ) {
            (Some(b), Some(m), Some(c)) => Claim {
                id: "fig4",
                section: "§4.2",
                text: "the corrected modified weight fraction improves the overall turnaround over the base strategy and over the modified one",
                holds: Some(
                    c.output.summary.mean_turnaround < b.output.summary.mean_turnaround
                        && c.output.summary.mean_turnaround < m.output.summary.mean_turnaround,
                ),
                evidence: format!(
                    "overall vs rigid: base {:+.1} %, modified {:+.1} %, corrected {:+.1} %",
                    b.change.overall_pct, m.change.overall_pct, c.change.overall_pct
                ),
            },
            _ => not_run("fig4", "§4.2"),
        },
    );

    // §4.3, Fig. 5.
    out.push(
        match (
            cell("fig5", 1.0, K::Base),
            cell("fig5", 1.0, K::CategoryRes),
            cell("fig5", 1.0, K::XfactorRes),
            cell("fig5", 1.0, K::CategoryXfactor),
        ) {
            (Some(b), Some(c), Some(x), Some(both)) => {
                let better = judged(c)
                    .iter()
                    .filter(|(k, v)| {
                        b.change.categories_pct.get(*k).copied().flatten().is_some_and(|bv| *v <= bv)
                    })
                    .count();
                let n = judged(c).len();
                Claim {
                    id: "fig5",
                    section: "§4.3",
                    text: "category-based reservations improve almost all categories over the base; combined with Xfactor reservations the overall turnaround beats either alone",
                    holds: Some(
                        better * 4 >= n * 3
                            && both.output.summary.mean_turnaround
                                < c.output.summary.mean_turnaround
                            && both.output.summary.mean_turnaround
                                < x.output.summary.mean_turnaround,
                    ),
                    evidence: format!(
                        "category-based no worse than base in {better} of {n} categories; overall vs rigid: base {:+.1} %, category {:+.1} %, Xfactor {:+.1} %, both {:+.1} %",
                        b.change.overall_pct,
                        c.change.overall_pct,
                        x.change.overall_pct,
                        both.change.overall_pct
                    ),
                }
            }
            _ => not_run("fig5", "§4.3"),
        },
    );

    // §5, Figs. 6–11.
    let mut evidence = Vec::new();
    let mut holds = true;
    let mut any = false;
    for name in ["fig6", "fig7", "fig8", "fig9", "fig10", "fig11"] {
        let Some(f) = fig(name) else { continue };
        for &rf in f.range_factors {
            let Some(c) = cells.get(&point(f, rf, K::Combined)) else {
                continue;
            };
            any = true;
            let w = worst(c);
            let ok = c.change.overall_pct < 0.0 && w.is_none_or(|w| w.1 <= COMPARABLE_PCT);
            holds &= ok;
            evidence.push(format!(
                "{name} RF {rf}: overall {:+.1} %, {}{}",
                c.change.overall_pct,
                fmt_worst(c),
                if ok { "" } else { " ✗" }
            ));
        }
    }
    out.push(Claim {
        id: "fig6-11",
        section: "§5",
        text: "the combined scheme is better than or comparable to rigid conservative backfilling overall and for every category (σ ∈ {0, 1}, LF ∈ {100, 125} %, RF 1–4, both traces)",
        holds: any.then_some(holds),
        evidence: evidence.join("; "),
    });
    out
}

fn not_run(id: &'static str, section: &'static str) -> Claim {
    Claim {
        id,
        section,
        text: "",
        holds: None,
        evidence: "not run (figure not selected or trace missing)".into(),
    }
}
