//! `schedlab bench`: replays every trace in a folder (and a synthetic workload) with every
//! policy, each case in a fresh child process so that its peak memory (VmHWM) is its own, and
//! prints jobs/s, wall time and peak memory as a Markdown table for BENCHMARKS.md.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::modes::flat::run::{finish, simulation, TraceInput};
use crate::modes::flat::spec::{Experiment, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::workload::synthetic::SyntheticModel;

/// `schedlab bench traces`.
#[derive(Args, Debug)]
pub struct BenchTracesArgs {
    /// Folder of SWF traces (.swf, .swf.gz).
    #[arg(long, default_value = "../shared/traces")]
    pub traces: PathBuf,
    /// Comma-separated policies.
    #[arg(long, default_value = "fcfs,easy,conservative")]
    pub policies: String,
    /// Jobs of the synthetic (Lublin–Feitelson) case; 0 to skip it.
    #[arg(long, default_value_t = 100_000)]
    pub synthetic_jobs: usize,
    /// Only traces whose file name contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// Record decision explanations in every run (their cost; docs/explanations.md).
    #[arg(long)]
    pub explain: bool,
}

/// `schedlab bench case`: one measurement, printed as JSON.
#[derive(Args, Debug)]
pub struct BenchCaseArgs {
    #[arg(long)]
    pub swf: Option<PathBuf>,
    #[arg(long)]
    pub synthetic_jobs: Option<usize>,
    #[arg(long)]
    pub policy: String,
    /// Load factor: submit times × 1 / LF (default 1).
    #[arg(long)]
    pub load_factor: Option<f64>,
    /// Record decision explanations.
    #[arg(long)]
    pub explain: bool,
}

/// One measured case.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchCase {
    pub workload: String,
    pub policy: String,
    pub jobs: usize,
    pub load_seconds: f64,
    pub sim_seconds: f64,
    pub jobs_per_second: f64,
    pub peak_rss_mb: f64,
    pub late_starts: usize,
}

/// Peak resident memory of this process in MB (VmHWM), NaN where /proc is missing.
pub(crate) fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// A configuration error with no key (bad command-line value).
pub(crate) fn cfg_err(message: String) -> Error {
    Error::Config(crate::modes::flat::spec::ConfigError {
        key: String::new(),
        message,
    })
}

/// Runs one case in this process and prints its JSON.
pub fn bench_case_command(a: &BenchCaseArgs) -> Result<(), Error> {
    let policy = PolicyKind::parse(&a.policy).map_err(|e| cfg_err(e.to_string()))?;
    let t0 = Instant::now();
    let (exp, trace, label) = match (&a.swf, a.synthetic_jobs) {
        (Some(path), _) => {
            let exp = Experiment::for_trace(&path.display().to_string(), policy);
            let f = std::fs::File::open(path).map_err(|e| Error::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            let trace = TraceInput {
                name: path.display().to_string(),
                reader: Box::new(std::io::BufReader::new(f)),
                cache: None,
                jobs_hint: 0,
            };
            let label = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (exp, Some(trace), label)
        }
        (None, Some(n)) => {
            let model: SyntheticModel = serde_json::from_value(serde_json::json!({
                "model": "lublin",
                "jobs": n,
            }))
            .map_err(|e| cfg_err(e.to_string()))?;
            let mut exp = Experiment::new(WorkloadSpec::Synthetic(model), policy);
            exp.seed = 1;
            (exp, None, format!("Lublin–Feitelson synthetic, {n} jobs"))
        }
        (None, None) => return Err(cfg_err("bench case needs --swf or --synthetic-jobs".into())),
    };
    let mut exp = exp;
    let mut label = label;
    if let Some(lf) = a.load_factor {
        exp.transforms.load_factor = lf;
        label = format!("{label}, load factor {lf:e}");
    }
    // The benchmark's own job count and load factor are what was asked for, not limit breaches.
    let limits = crate::limits::Limits {
        max_jobs: a.synthetic_jobs.unwrap_or(0).max(crate::limits::MAX_JOBS),
        max_load_factor: f64::MAX,
        ..crate::limits::Limits::DEFAULT
    };
    let prepared = crate::modes::flat::run::prepare_with(&exp, trace, &limits)?;
    let load_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let sim = simulation(&exp, &prepared, false);
    let sim = if a.explain {
        sim.with_explanations()
    } else {
        sim
    };
    let result = sim.run_to_end()?;
    let sim_seconds = t1.elapsed().as_secs_f64();
    let out = finish(&result, &prepared);
    let policy = if a.explain {
        format!(
            "{}, explained ({} entries)",
            policy.as_str(),
            result.explanations.len()
        )
    } else {
        policy.as_str().to_string()
    };
    let case = BenchCase {
        workload: label,
        policy,
        jobs: out.summary.jobs,
        load_seconds,
        sim_seconds,
        jobs_per_second: out.summary.jobs as f64 / sim_seconds.max(1e-9),
        peak_rss_mb: peak_rss_mb(),
        late_starts: out.late_starts,
    };
    println!(
        "{}",
        serde_json::to_string(&case).map_err(|e| cfg_err(e.to_string()))?
    );
    Ok(())
}

fn traces_in(dir: &Path, only: Option<&str>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                    name.is_some_and(|n| {
                        (n.ends_with(".swf") || n.ends_with(".swf.gz"))
                            && only.is_none_or(|o| n.contains(o))
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Runs every case in a child process and prints the Markdown table.
pub fn bench_traces_command(a: &BenchTracesArgs) -> Result<(), Error> {
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: "current executable".into(),
        message: e.to_string(),
    })?;
    let policies: Vec<PolicyKind> = a
        .policies
        .split(',')
        .map(PolicyKind::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| cfg_err(e.to_string()))?;
    let mut cases: Vec<Vec<String>> = Vec::new();
    for trace in traces_in(&a.traces, a.only.as_deref()) {
        for p in &policies {
            cases.push(vec![
                "bench".into(),
                "case".into(),
                "--swf".into(),
                trace.display().to_string(),
                "--policy".into(),
                p.as_str().into(),
            ]);
        }
    }
    if a.synthetic_jobs > 0 {
        for p in &policies {
            cases.push(vec![
                "bench".into(),
                "case".into(),
                "--synthetic-jobs".into(),
                a.synthetic_jobs.to_string(),
                "--policy".into(),
                p.as_str().into(),
            ]);
        }
    }
    if a.explain {
        for c in &mut cases {
            c.push("--explain".into());
        }
    }
    print_cases(&exe, &cases, None)
}

/// Runs each case in a child process (killed after `timeout` seconds, if given) and prints
/// one Markdown row per case.
pub(crate) fn print_cases(
    exe: &Path,
    cases: &[Vec<String>],
    timeout: Option<f64>,
) -> Result<(), Error> {
    println!("| workload | policy | jobs | load (s) | simulate (s) | jobs/s | peak RSS (MB) |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let io = |e: std::io::Error| Error::Io {
        path: exe.display().to_string(),
        message: e.to_string(),
    };
    for args in cases {
        let mut child = Command::new(exe)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io)?;
        let t0 = Instant::now();
        if let Some(limit) = timeout {
            while child.try_wait().map_err(io)?.is_none() {
                if t0.elapsed().as_secs_f64() > limit {
                    child.kill().map_err(io)?;
                    let _ = child.wait();
                    println!(
                        "| {} | did not finish in {limit} s | | | | | |",
                        args.join(" ")
                    );
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        let out = child.wait_with_output().map_err(io)?;
        if !out.status.success() {
            if timeout.is_none_or(|l| t0.elapsed().as_secs_f64() <= l) {
                eprintln!(
                    "bench case {:?} failed: {}",
                    args,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let Ok(c) = serde_json::from_str::<BenchCase>(text.trim()) else {
            eprintln!("bench case {args:?}: unreadable output {text:?}");
            continue;
        };
        println!(
            "| {} | {} | {} | {:.2} | {:.3} | {:.0} | {:.1} |",
            c.workload,
            c.policy,
            c.jobs,
            c.load_seconds,
            c.sim_seconds,
            c.jobs_per_second,
            c.peak_rss_mb
        );
    }
    Ok(())
}
