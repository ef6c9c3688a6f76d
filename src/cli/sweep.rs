//! `schedlab sweep plan|run|merge`: parameter sweeps beyond one machine
//! (`docs/sweeps.md`). `plan` expands a sweep file into a folder of numbered point files, a
//! manifest and the Slurm / GNU parallel scripts; `run` runs points on every core, skipping
//! those with a valid result (resumable; a damaged result is run again); `merge` writes one
//! CSV and one JSON table and names missing or failed points. The sweep logic is
//! [`crate::sweep`]; this module only parses flags, reads and writes files, runs threads and
//! prints.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::output_guard::{owned_dir, refuse_if_input, write_text};
use super::streams::{io_err, open_trace, read_document, warn};
use super::LimitArgs;
use crate::error::Error;
use crate::modes::flat::run::{CachedTrace, TraceCache, TraceInput};
use crate::sweep::plan::{
    parallel_script, parse_points, point_file, slurm_script, LOGS_DIR, MANIFEST, POINTS_DIR,
    RESULTS_DIR,
};
use crate::sweep::result::Outcome;
use crate::sweep::{
    checksum64, merge, plan, ranges, run_point, Manifest, Merged, PointResult, PointStatus,
    SweepError, SweepSpec,
};

/// `schedlab sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: SweepCommand,
}

/// The sweep subcommands.
#[derive(Subcommand, Debug)]
pub enum SweepCommand {
    /// Expand a sweep file into DIR: points/NNNNNN.json (one experiment envelope each),
    /// sweep-plan.json, run-slurm.sh (sbatch job array) and run-parallel.sh (GNU parallel).
    Plan(PlanArgs),
    /// Run the points of a plan on this machine (every core); points with a valid result are
    /// skipped, damaged results are run again.
    Run(SweepRunArgs),
    /// Merge a plan's results into DIR/merged.csv and DIR/merged.json (one row per point);
    /// missing, failed or damaged points are named by number (exit code 2).
    Merge(MergeArgs),
}

/// `schedlab sweep plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The sweep file (JSON, docs/sweeps.md); trace paths are relative to its folder.
    pub sweep: PathBuf,
    /// The plan folder (created; planning the same sweep again keeps its results).
    #[arg(long)]
    pub out: PathBuf,
    /// Points per Slurm array task / GNU parallel job (default: at most 1000 tasks).
    #[arg(long)]
    pub chunk: Option<usize>,
    /// Most Slurm array tasks running at once (the `%M` of `--array=0-N%M`).
    #[arg(long, default_value_t = 100)]
    pub max_concurrent: usize,
    /// Limits every point is planned under (recorded in sweep-plan.json when not the
    /// defaults, so that every run of the plan — local, Slurm, GNU parallel — uses them).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `schedlab sweep run`.
#[derive(Args, Debug)]
pub struct SweepRunArgs {
    /// The plan folder (made by `schedlab sweep plan`).
    pub dir: PathBuf,
    /// Worker threads (default: available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Only these points: `7`, `0-99`, `0-9,20` (what each Slurm / GNU parallel task runs).
    #[arg(long)]
    pub points: Option<String>,
    /// Limits of every point run (over the limits the plan recorded, by default the
    /// defaults).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `schedlab sweep merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The plan folder.
    pub dir: PathBuf,
    /// Where to write the CSV (default DIR/merged.csv).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Where to write the JSON (default DIR/merged.json).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Runs `schedlab sweep …`.
pub fn sweep_command(a: &SweepArgs) -> Result<(), Error> {
    match &a.command {
        SweepCommand::Plan(p) => {
            let s = plan_dir(&p.sweep, &p.out, p.chunk, p.max_concurrent, &p.limits)?;
            warn(&format!(
                "planned {} points in {} ({} tasks of up to {} points): run them with \
                 `schedlab sweep run {dir}`, `bash {dir}/run-parallel.sh` or `sbatch \
                 {dir}/run-slurm.sh`, then `schedlab sweep merge {dir}`",
                s.points,
                p.out.display(),
                s.tasks,
                s.chunk,
                dir = p.out.display()
            ));
            Ok(())
        }
        SweepCommand::Run(r) => {
            let jobs = r.jobs.unwrap_or_else(default_threads);
            let s = run_dir(&r.dir, jobs, r.points.as_deref(), &r.limits)?;
            let mut text = format!(
                "{} points: {} already had a result, {} run",
                s.selected, s.skipped, s.ran
            );
            if s.recomputed > 0 {
                text.push_str(&format!(" ({} of them had a damaged result)", s.recomputed));
            }
            warn(&text);
            if s.failed.is_empty() {
                Ok(())
            } else {
                Err(Error::Io {
                    path: r.dir.display().to_string(),
                    message: format!(
                        "{} points failed: {} (see their result files, or `schedlab sweep merge`)",
                        s.failed.len(),
                        ranges(&s.failed)
                    ),
                })
            }
        }
        SweepCommand::Merge(m) => {
            let merged = merge_dir(&m.dir, m.csv.as_deref(), m.json.as_deref())?;
            let points =
                merged.done + merged.missing.len() + merged.failed.len() + merged.corrupt.len();
            if merged.complete() {
                warn(&merged.report(points));
                Ok(())
            } else {
                Err(Error::Io {
                    path: m.dir.display().to_string(),
                    message: merged.report(points),
                })
            }
        }
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// A [`SweepError`] as the CLI's error (its text names the file first).
fn sweep_err(e: SweepError) -> Error {
    let text = e.to_string();
    let (path, message) = text.split_once(": ").unwrap_or(("sweep", &text));
    Error::Io {
        path: path.to_string(),
        message: message.to_string(),
    }
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    write_text(path, text)
}

/// Creates a folder of the plan (refused when it is a symlink: schedlab writes into folders
/// of its own only).
fn mkdir(path: &Path) -> Result<(), Error> {
    owned_dir(path).map_err(Error::from)
}

fn absolute(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|e| io_err(path, e))
}

/// What a plan made.
#[derive(Clone, Copy, Debug)]
pub struct PlanSummary {
    pub points: usize,
    pub chunk: usize,
    pub tasks: usize,
}

/// `schedlab sweep plan`: reads the sweep, writes the plan folder; every point is validated
/// under `limits`.
pub fn plan_dir(
    sweep: &Path,
    out: &Path,
    chunk: Option<usize>,
    max_concurrent: usize,
    limits: &LimitArgs,
) -> Result<PlanSummary, Error> {
    let text = read_document(sweep)?;
    let file = sweep.display().to_string();
    let spec = SweepSpec::from_json_with(&text, &file, &limits.limits()).map_err(sweep_err)?;
    let base = absolute(
        sweep
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    )?;
    let rebase = |p: &str| base.join(p).display().to_string();
    let plan = plan(&spec, &file, &rebase, chunk).map_err(sweep_err)?;
    mkdir(&out.join(POINTS_DIR))?;
    mkdir(&out.join(RESULTS_DIR))?;
    mkdir(&out.join(LOGS_DIR))?;
    let dir = absolute(out)?;
    // The sweep file itself may sit inside the plan folder: no output may replace it.
    let outputs = (0..plan.points.len())
        .map(|n| dir.join(POINTS_DIR).join(point_file(n)))
        .chain(
            [MANIFEST, "run-slurm.sh", "run-parallel.sh"]
                .into_iter()
                .map(|f| dir.join(f)),
        );
    for out in outputs {
        refuse_if_input(&out, [sweep])?;
    }
    for (n, p) in plan.points.iter().enumerate() {
        write(&dir.join(POINTS_DIR).join(point_file(n)), p)?;
    }
    let m = &plan.manifest;
    write(&dir.join(MANIFEST), &(m.to_json() + "\n"))?;
    let exe = std::env::current_exe().map_err(|e| io_err(Path::new("schedlab"), e))?;
    let (d, x) = (dir.display().to_string(), exe.display().to_string());
    let name = spec.name.as_deref().unwrap_or("");
    for (f, script) in [
        (
            "run-slurm.sh",
            slurm_script(m, name, &d, &x, max_concurrent),
        ),
        ("run-parallel.sh", parallel_script(m, name, &d, &x)),
    ] {
        let path = dir.join(f);
        write(&path, &script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| io_err(&path, e))?;
        }
    }
    Ok(PlanSummary {
        points: m.points,
        chunk: m.chunk,
        tasks: m.tasks(),
    })
}

/// Reads a plan folder's manifest.
pub fn read_manifest(dir: &Path) -> Result<(Manifest, SweepSpec), Error> {
    let path = dir.join(MANIFEST);
    let text = read_document(&path)?;
    Manifest::from_json(&text, &path.display().to_string()).map_err(sweep_err)
}

/// A point's result file's text, `None` when there is none (an unreadable one is damaged:
/// its text is then the reason, which never passes the checksum).
fn read_result(path: &Path) -> Option<String> {
    match read_document(path) {
        Ok(t) => Some(t),
        Err(Error::Io { message, .. }) if path.exists() => Some(message),
        Err(_) => None,
    }
}

/// What a local run did.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    pub selected: usize,
    pub skipped: usize,
    pub ran: usize,
    /// Points run again because their result was damaged.
    pub recomputed: usize,
    pub failed: Vec<usize>,
}

enum Did {
    Skipped,
    Ran { recomputed: bool, failed: bool },
}

/// `schedlab sweep run`: the selected points on `jobs` threads, each point's result written
/// when it finishes; every point runs under the plan's limits with `limits`' flags applied.
pub fn run_dir(
    dir: &Path,
    jobs: usize,
    points: Option<&str>,
    limits: &LimitArgs,
) -> Result<RunSummary, Error> {
    let (m, _) = read_manifest(dir)?;
    let limits = limits.over(m.limits.unwrap_or_default());
    let selected: Vec<usize> = match points {
        Some(s) => parse_points(s, m.points).map_err(|message| Error::Io {
            path: "--points".into(),
            message,
        })?,
        None => (0..m.points).collect(),
    };
    let points_dir = dir.join(POINTS_DIR);
    let results_dir = dir.join(RESULTS_DIR);
    mkdir(&results_dir)?;
    // Points that read the same trace share its parsed form (one parse per trace and set of
    // read options, not one per point); results are those of a fresh parse.
    let cache = Arc::new(TraceCache::default());
    let did = crate::reproduce::parallel::par_map(&selected, jobs, |&n| {
        let result_path = results_dir.join(point_file(n));
        let status = PointStatus::judge(&m, n, read_result(&result_path).as_deref());
        let recomputed = match status {
            PointStatus::Done(_) => return Ok(Did::Skipped),
            PointStatus::Corrupt(_) => true,
            PointStatus::Missing | PointStatus::Failed(_) => false,
        };
        let point_path = points_dir.join(point_file(n));
        let text = read_document(&point_path)?;
        let sum = checksum64(text.as_bytes());
        let outcome = if m.checksums.get(n) != Some(&sum) {
            Outcome::Failed(format!(
                "{} was changed after planning: plan the sweep again",
                point_path.display()
            ))
        } else {
            match run_point(&text, &mut |p| cached_trace(Path::new(p), &cache), &limits) {
                Ok(metrics) => Outcome::Metrics(metrics),
                Err(e) => Outcome::Failed(e.to_string()),
            }
        };
        let failed = matches!(outcome, Outcome::Failed(_));
        let r = PointResult {
            point: n,
            point_checksum: sum,
            outcome,
        };
        write(&result_path, &r.to_text())?;
        Ok(Did::Ran { recomputed, failed })
    })?;
    let mut s = RunSummary {
        selected: selected.len(),
        ..RunSummary::default()
    };
    for (n, d) in selected.iter().zip(did) {
        match d {
            Did::Skipped => s.skipped += 1,
            Did::Ran { recomputed, failed } => {
                s.ran += 1;
                s.recomputed += usize::from(recomputed);
                if failed {
                    s.failed.push(*n);
                }
            }
        }
    }
    Ok(s)
}

/// `schedlab sweep merge`: reads every result, writes the CSV and the JSON.
pub fn merge_dir(dir: &Path, csv: Option<&Path>, json: Option<&Path>) -> Result<Merged, Error> {
    let (m, spec) = read_manifest(dir)?;
    let results_dir = dir.join(RESULTS_DIR);
    let statuses: Vec<PointStatus> = (0..m.points)
        .map(|n| {
            let text = read_result(&results_dir.join(point_file(n)));
            PointStatus::judge(&m, n, text.as_deref())
        })
        .collect();
    let merged = merge(&spec, &statuses);
    let csv = csv.map_or_else(|| dir.join("merged.csv"), Path::to_path_buf);
    let json = json.map_or_else(|| dir.join("merged.json"), Path::to_path_buf);
    // The plan's own files are the inputs: neither table may replace one of them.
    let manifest = dir.join(MANIFEST);
    let plan_files: Vec<PathBuf> = (0..m.points)
        .flat_map(|n| {
            [
                results_dir.join(point_file(n)),
                dir.join(POINTS_DIR).join(point_file(n)),
            ]
        })
        .chain([manifest])
        .collect();
    for out in [&csv, &json] {
        refuse_if_input(out, plan_files.iter().map(PathBuf::as_path))?;
    }
    write(&csv, &merged.csv)?;
    write(&json, &merged.json)?;
    Ok(merged)
}

/// Opens a point's trace with its content's SHA-256 (read in chunks, never held whole), so
/// that `cache` parses it once.
fn cached_trace(path: &Path, cache: &Arc<TraceCache>) -> Result<TraceInput<'static>, Error> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| io_err(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(buf.get(..n).unwrap_or_default());
    }
    let sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut input = open_trace(path)?;
    input.cache = Some(CachedTrace {
        cache: Arc::clone(cache),
        sha256,
    });
    Ok(input)
}
