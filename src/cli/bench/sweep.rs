//! `schedlab bench sweep`: times a large sweep end to end through the same functions as
//! `schedlab sweep plan|run|merge` — by default 10,000 points of flat EASY on 5,000
//! Lublin–Feitelson jobs each (one seed per point) — and compares the run with `schedlab
//! bench`'s measure (simulated jobs per second of one core, here on the same 5,000-job
//! workloads) times the threads used. Prints a Markdown table for BENCHMARKS.md. Implements
//! no paper section (speed is shown by benchmarks, never by timed tests).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::cli::streams::{emit, io_err};
use crate::cli::sweep::{merge_dir, plan_dir, run_dir};
use crate::cli::LimitArgs;
use crate::error::Error;
use crate::modes::flat::run::{finish, prepare, simulation};
use crate::modes::flat::spec::{Experiment, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::workload::synthetic::SyntheticModel;

/// `schedlab bench sweep`.
#[derive(Args, Debug)]
pub struct BenchSweepArgs {
    /// Points of the sweep (one seed each).
    #[arg(long, default_value_t = 10_000)]
    pub points: usize,
    /// Lublin–Feitelson jobs per point.
    #[arg(long, default_value_t = 5_000)]
    pub jobs_per_point: usize,
    /// Worker threads of the run (default: available cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Plan folder (default: a fresh folder in the temp dir, removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Points simulated one by one for the single-core reference.
    #[arg(long, default_value_t = 100)]
    pub reference_points: usize,
}

/// Runs the benchmark and prints the table.
pub fn bench_sweep_command(a: &BenchSweepArgs) -> Result<(), Error> {
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let dir = a.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("schedlab-bench sweep-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
    let sweep = dir.join("sweep.json");
    let text = serde_json::json!({
        "version": 1,
        "name": format!("bench sweep: {} points, flat EASY, Lublin–Feitelson {} jobs", a.points, a.jobs_per_point),
        "base": {"v": 2, "mode": "flat", "experiment": {
            "workload": {"synthetic": {"model": "lublin", "jobs": a.jobs_per_point}},
            "policy": "easy"}},
        "axes": [{"key": "seed", "from": 1, "to": a.points.max(1), "step": 1}],
    })
    .to_string();
    std::fs::write(&sweep, text).map_err(|e| io_err(&sweep, e))?;
    let plan = dir.join("plan");

    // Single-core reference, as `schedlab bench` measures it (simulation only), and the whole
    // point (generate + simulate + metrics) for comparison.
    let (mut sim_s, mut point_s, mut ref_jobs) = (0.0, 0.0, 0usize);
    let ref_cpu0 = cpu_seconds();
    for seed in 1..=a.reference_points.max(1) as u64 {
        let model: SyntheticModel = serde_json::from_value(
            serde_json::json!({"model": "lublin", "jobs": a.jobs_per_point}),
        )
        .map_err(|e| super::traces::cfg_err(e.to_string()))?;
        let mut exp = Experiment::new(WorkloadSpec::Synthetic(model), PolicyKind::Easy);
        exp.seed = seed;
        let t0 = Instant::now();
        let prepared = prepare(&exp, None)?;
        let t1 = Instant::now();
        let result = simulation(&exp, &prepared, false).run_to_end()?;
        sim_s += t1.elapsed().as_secs_f64();
        ref_jobs += finish(&result, &prepared).summary.jobs;
        point_s += t0.elapsed().as_secs_f64();
    }
    let ref_cpu = cpu_seconds() - ref_cpu0;
    let bench_rate = ref_jobs as f64 / sim_s.max(1e-9);
    let point_rate = ref_jobs as f64 / point_s.max(1e-9);
    let point_cpu_rate = ref_jobs as f64 / ref_cpu.max(1e-9);

    let t = Instant::now();
    let planned = plan_dir(&sweep, &plan, None, 100, &LimitArgs::default())?;
    let plan_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cpu0 = cpu_seconds();
    let ran = run_dir(&plan, threads, None, &LimitArgs::default())?;
    let run_s = t.elapsed().as_secs_f64();
    let run_cpu = cpu_seconds() - cpu0;
    let t = Instant::now();
    let merged = merge_dir(&plan, None, None)?;
    let merge_s = t.elapsed().as_secs_f64();
    let jobs = planned.points * a.jobs_per_point;
    let rate = jobs as f64 / run_s.max(1e-9);
    let mut out = String::new();
    out.push_str(
        "| step | points | threads | seconds | CPU seconds | jobs/s | jobs per CPU-second | vs bench × threads | per CPU-second vs bench |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    out.push_str(&format!(
        "| plan | {} | 1 | {plan_s:.2} | — | — | — | — | — |\n",
        planned.points
    ));
    out.push_str(&format!(
        "| run | {} | {threads} | {run_s:.2} | {run_cpu:.2} | {rate:.0} | {:.0} | {:.0} % | {:.0} % |\n",
        ran.ran,
        jobs as f64 / run_cpu.max(1e-9),
        100.0 * rate / (bench_rate * threads as f64),
        100.0 * jobs as f64 / run_cpu.max(1e-9) / bench_rate
    ));
    out.push_str(&format!(
        "| merge | {} | 1 | {merge_s:.2} | — | — | — | — | — |\n",
        merged.done
    ));
    out.push_str(&format!(
        "\nsingle-core reference on {} of these workloads: `bench` measure (simulate only) \
         {bench_rate:.0} jobs/s; whole point (generate + simulate + metrics) {point_rate:.0} \
         jobs/s wall, {point_cpu_rate:.0} jobs per CPU-second; run skipped {} points that \
         already had a result\n",
        a.reference_points.max(1),
        ran.skipped
    ));
    emit(&out)?;
    if a.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if merged.complete() {
        Ok(())
    } else {
        Err(Error::Io {
            path: plan.display().to_string(),
            message: merged.report(planned.points),
        })
    }
}

/// User + system CPU time of this process so far (Linux `/proc/self/stat`, 100 ticks per
/// second; 0 elsewhere): how much of the machine the run got on a shared host.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name in parentheses: state is field 3; utime 14, stime 15.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}
