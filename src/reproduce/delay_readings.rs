//! The readings of the Delay scheme that Ababneh & Bani-Mohammad (2010) leave open, and of
//! their "maximum utilization", for `schedlab reproduce window --readings` (§2.3 and §5.2,
//! Figs. 6–7).
//!
//! §2.3 defines Delay ([20]) by "a dynamic threshold value … imposed on the waiting delay of
//! the head of the waiting queue … equal to λW, where λ is the arrival rate of jobs, and W is
//! the average waiting delay of running jobs. The scheduler monitors both parameters." Two
//! quantities admit more than one reading ([`DelayReading`]): λ measured online or the
//! workload's nominal rate, and W over the jobs running now or over every job started so far.
//! §5.2 gives "the maximum utilization values achieved" without saying where a curve is read;
//! each reading's curve is reported with the knee rule of [`super::window::knee`] and with
//! its highest mean over the sweep.
//!
//! Every point runs [`MAX_RUNS`] replications with the workload seeds of the main sweep
//! (common random numbers), with Window-240 and OO beside Delay for the comparison "at which
//! loads does Delay beat Window-240".

use crate::alloc::AllocatorKind;
use crate::error::Error;
use crate::modes::mesh::presets::WINDOW_SWITCH_ORIENTATION;
use crate::policy::mesh::delay::{DelayBased, DelayLambda, DelayReading, DelayWait};
use crate::policy::mesh::{MeshPolicy, MeshPolicyKind};
use crate::reproduce::stats::MeanCi;
use crate::reproduce::window::{
    knee, paper_max_util, seed_of, Knee, PolicyKey, RunMetrics, DECREASING_LOADS, JOBS_PER_RUN,
    MAX_RUNS, SIDE, UNIFORM_LOADS,
};
use crate::sim::mesh_engine::MeshSimulation;
use crate::workload::synthetic::{MeshJobsParams, SideDistribution};

/// One policy variant of the readings experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    /// Delay under one reading of λ and W.
    Delay(DelayLambdaKind, DelayWait),
    /// Window-240 (unaffected by the readings; for comparison).
    Window240,
    /// OO (for comparison).
    Oo,
}

/// λ without its value (the nominal rate is the point's load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayLambdaKind {
    Measured,
    Nominal,
}

/// The variants run, in print order; the first is the reproduction's default reading.
pub const VARIANTS: [Variant; 6] = [
    Variant::Delay(DelayLambdaKind::Measured, DelayWait::Running),
    Variant::Delay(DelayLambdaKind::Nominal, DelayWait::Running),
    Variant::Delay(DelayLambdaKind::Measured, DelayWait::Started),
    Variant::Delay(DelayLambdaKind::Nominal, DelayWait::Started),
    Variant::Window240,
    Variant::Oo,
];

impl Variant {
    /// A label for tables and JSON rows.
    pub fn label(self) -> String {
        match self {
            Variant::Delay(l, w) => format!(
                "Delay (λ {}, W {})",
                match l {
                    DelayLambdaKind::Measured => "measured",
                    DelayLambdaKind::Nominal => "nominal",
                },
                match w {
                    DelayWait::Running => "of running jobs",
                    DelayWait::Started => "of all started jobs",
                }
            ),
            Variant::Window240 => "Window-240".into(),
            Variant::Oo => "OO".into(),
        }
    }

    /// The paper's policy key (for its maximum utilisation).
    pub fn key(self) -> PolicyKey {
        match self {
            Variant::Delay(..) => PolicyKey::Delay,
            Variant::Window240 => PolicyKey::Window(240),
            Variant::Oo => PolicyKey::Oo,
        }
    }

    fn policy(self, load: f64) -> Box<dyn MeshPolicy> {
        match self {
            Variant::Delay(l, wait) => Box::new(DelayBased::with_reading(DelayReading {
                lambda: match l {
                    DelayLambdaKind::Measured => DelayLambda::Measured,
                    DelayLambdaKind::Nominal => DelayLambda::Nominal(load),
                },
                wait,
            })),
            Variant::Window240 => MeshPolicyKind::Window(240).build(),
            Variant::Oo => MeshPolicyKind::OutOfOrder.build(),
        }
    }
}

/// One variant's sweep on one figure.
#[derive(Clone, Debug)]
pub struct Curve {
    pub variant: Variant,
    /// Per load: utilisation (%), mean turnaround and maximum waiting delay, each over the
    /// replications.
    pub points: Vec<CurvePoint>,
    pub knee: Knee,
    /// The paper's maximum utilisation for this policy.
    pub paper: Option<f64>,
}

/// One load of a [`Curve`].
#[derive(Clone, Copy, Debug)]
pub struct CurvePoint {
    pub load: f64,
    pub util: MeanCi,
    pub turnaround: MeanCi,
    pub max_wait: MeanCi,
}

/// Figs. 6 (uniform sides) and 7 (uniform-decreasing).
#[derive(Clone, Debug)]
pub struct ReadingsFigure {
    pub name: &'static str,
    pub uniform: bool,
    pub curves: Vec<Curve>,
}

fn run_one(uniform: bool, load: f64, v: Variant, rep: usize) -> Result<RunMetrics, Error> {
    let params = MeshJobsParams {
        jobs: JOBS_PER_RUN,
        width: SIDE,
        height: SIDE,
        sides: if uniform {
            SideDistribution::Uniform
        } else {
            SideDistribution::UniformDecreasing
        },
        arrival_rate: load,
        ..MeshJobsParams::default()
    };
    let load_milli = (load * 1000.0).round() as u32;
    let workload = params.generate(seed_of(uniform, load_milli, rep));
    let err = |e: &dyn std::fmt::Display| {
        Error::simulation(
            crate::error::Engine::Mesh,
            format!("window readings, λ = {load}, {}", v.label()),
            e,
        )
    };
    let sim = MeshSimulation::new(
        workload.jobs,
        SIDE,
        SIDE,
        AllocatorKind::Mpl.build_with(WINDOW_SWITCH_ORIENTATION),
        v.policy(load),
    )
    .map_err(|e| err(&e))?
    .without_log();
    let s = sim.run_to_end().map_err(|e| err(&e))?.summary();
    Ok(RunMetrics {
        turnaround: s.mean_turnaround,
        mean_wait: s.mean_wait,
        max_wait: s.max_wait,
        utilization: s.utilization,
    })
}

/// Runs every variant over the loads of Figs. 6 and 7, [`MAX_RUNS`] replications a point, on
/// `threads` threads (the result does not depend on the thread count).
pub fn run(threads: usize) -> Result<Vec<ReadingsFigure>, Error> {
    let figs: [(&'static str, bool, &[f64]); 2] = [
        ("fig6", true, &UNIFORM_LOADS),
        ("fig7", false, &DECREASING_LOADS),
    ];
    let mut tasks = Vec::new();
    for (_, uniform, loads) in figs {
        for v in VARIANTS {
            for &l in loads {
                for rep in 0..MAX_RUNS {
                    tasks.push((uniform, l, v, rep));
                }
            }
        }
    }
    let results =
        super::parallel::par_map(&tasks, threads, |&(u, l, v, rep)| run_one(u, l, v, rep))?;
    let mut it = results.into_iter();
    let mut out = Vec::new();
    for (name, uniform, loads) in figs {
        let mut curves = Vec::new();
        for v in VARIANTS {
            let mut points = Vec::new();
            for &load in loads {
                let runs: Vec<RunMetrics> = it.by_ref().take(MAX_RUNS).collect();
                let of =
                    |f: fn(&RunMetrics) -> f64| MeanCi::of(&runs.iter().map(f).collect::<Vec<_>>());
                points.push(CurvePoint {
                    load,
                    util: of(|r| 100.0 * r.utilization),
                    turnaround: of(|r| r.turnaround),
                    max_wait: of(|r| r.max_wait),
                });
            }
            let k = knee(&points.iter().map(|p| (p.load, p.util)).collect::<Vec<_>>());
            curves.push(Curve {
                variant: v,
                points,
                knee: k,
                paper: paper_max_util(uniform, v.key()),
            });
        }
        out.push(ReadingsFigure {
            name,
            uniform,
            curves,
        });
    }
    Ok(out)
}

/// The loads at which `a`'s mean beats `b`'s by more than both 95 % half-widths (`higher`:
/// larger is better, else smaller is better).
pub fn loads_where_beats(
    a: &Curve,
    b: &Curve,
    metric: fn(&CurvePoint) -> MeanCi,
    higher: bool,
) -> Vec<f64> {
    a.points
        .iter()
        .zip(&b.points)
        .filter(|(pa, pb)| {
            let (x, y) = (metric(pa), metric(pb));
            let gap = if higher {
                x.mean - y.mean
            } else {
                y.mean - x.mean
            };
            gap > x.half_width + y.half_width
        })
        .map(|(pa, _)| pa.load)
        .collect()
}
