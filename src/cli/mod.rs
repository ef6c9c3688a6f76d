//! The native command line: `schedlab run` (an experiment file or flags), `schedlab mesh`
//! (a 2D-mesh experiment), `schedlab grid` (a grid experiment, single vs job sharing),
//! `schedlab reproduce`, `schedlab bench`, `schedlab sweep plan|run|merge` (parameter sweeps).
//! Errors go to stderr with exit code 2.

pub mod bench;
pub mod exercise;
pub mod grid;
pub mod limit_args;
pub mod mesh;
pub mod moldable;
pub mod open;
pub mod output_guard;
pub mod reproduce_binary_tree;
pub mod reproduce_grid_sharing;
pub mod reproduce_mc_elongated;
pub mod reproduce_moldable;
pub mod reproduce_window;
pub mod streams;
pub mod sweep;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use limit_args::{LimitArgs, WorkArgs};
pub use streams::io_err;
use streams::{emit_line, open_trace, warn};

use clap::{Args, Parser, Subcommand};

use crate::error::Error;
use crate::metrics::JobRecord;
use crate::modes::flat::run::{
    finish, finish_without_records, prepare_lean, prepare_with, schedule_records, simulation_taking,
};
use crate::modes::flat::spec::{Experiment, MachineSpec, SwfSource, WorkloadSpec};
use crate::policy::PolicyKind;
use crate::sim::story;
use crate::workload::swf::write_swf;

/// schedlab — parallel job scheduling simulator.
#[derive(Parser, Debug)]
#[command(name = "schedlab", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one experiment and print its summary as JSON.
    Run(RunArgs),
    /// Reproduce a paper's tables, e.g. `schedlab reproduce grid-sharing [--json]`.
    Reproduce(ReproduceArgs),
    /// Run one 2D-mesh experiment (Ababneh & Bani-Mohammad window scheduling or Mache et al. contention) and
    /// print its summary and layout metrics as JSON.
    Mesh(mesh::MeshArgs),
    /// Run a grid experiment (JSON) with single sites and with job sharing; compare them.
    Grid(grid::GridArgs),
    /// List every policy and allocator of every mode (the registry), as text or JSON.
    List(ListArgs),
    /// Run one moldable experiment (Srinivasan et al.): strategies against rigid conservative
    /// backfilling, per-category turnaround as JSON.
    Moldable(moldable::MoldableArgs),
    /// Open a share link (`#e=`, or an old `#x=`/`#m=`/`#g=`) or an experiment file: print the
    /// experiment envelope as JSON, its mode and the command that runs it.
    Open(open::OpenArgs),
    /// Parameter sweeps beyond one machine: `sweep plan SWEEP.json --out DIR` (point files,
    /// Slurm and GNU parallel scripts), `sweep run DIR` (every core, resumable), `sweep merge
    /// DIR` (one CSV / JSON row per point). See docs/sweeps.md.
    Sweep(sweep::SweepArgs),
    /// An exercise (docs/exercises.md): its questions with the answers the simulation computes;
    /// `--check-all DIR` checks every exercise of a folder.
    Exercise(exercise::ExerciseArgs),
    /// Developer benchmarks behind BENCHMARKS.md: `schedlab bench traces|queue|mesh|network|…`.
    Bench(bench::BenchArgs),
}

/// `schedlab list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print JSON: {"<family>": [{"name", "pattern", "label", "short", "aliases",
    /// "description", "param"}, …], …}.
    #[arg(long)]
    pub json: bool,
}

fn list_command(a: &ListArgs) -> Result<(), Error> {
    if a.json {
        streams::emit_line(&crate::registry::to_json().to_string())
    } else {
        streams::emit(&crate::registry::to_text())
    }
}

/// `schedlab reproduce KEY`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Which paper, by its key (`schedlab reproduce --list`; docs/papers.md).
    #[arg(required_unless_present = "list")]
    pub key: Option<String>,
    /// List the papers' keys, authors and titles.
    #[arg(long)]
    pub list: bool,
    /// Print JSON lines {"table", "config", "metric", "ours", "paper"} instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Folder of the SWF traces.
    #[arg(long, default_value = "../shared/traces")]
    pub traces: PathBuf,
    /// Only configurations whose name contains this text (binary-tree: allocator names).
    #[arg(long)]
    pub only: Option<String>,
    /// Worker threads (default: available cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Comma-separated local policies (grid-sharing: easy,conservative).
    #[arg(long)]
    pub policies: Option<String>,
    /// mc-elongated: the contention model, `separated` (default), `flow` or `wormhole`
    /// (docs/network-model.md); binary-tree: `flow` (the phase model, default) or `wormhole`.
    #[arg(long)]
    pub model: Option<String>,
    /// binary-tree: repetitions of (E exchanges, one write) per task (default 1; §5.2's
    /// second reading, docs/binary-tree.md).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// binary-tree: runs per point (default 1000, 20 under `--model wormhole`).
    #[arg(long)]
    pub runs: Option<usize>,
    /// binary-tree: DBT's tolerance ratio of the rectangle's `area` (default) or of its `free`
    /// processors (§3.1's second reading, docs/binary-tree.md).
    #[arg(long)]
    pub dbt_ratio_of: Option<String>,
    /// binary-tree: what SBT's and DBT's imbalance counts as taken, the `request` (default) or
    /// the tree `rectangle` it occupies (§3.1's other reading, docs/binary-tree.md).
    #[arg(long)]
    pub imbalance_counts: Option<String>,
    /// window, moldable: run the readings the paper's text leaves open (a sensitivity table,
    /// docs/reproductions.md) instead of the reproduction.
    #[arg(long)]
    pub readings: bool,
}

/// `schedlab reproduce --list`: one line per paper.
fn list_papers() -> Result<(), Error> {
    let mut text = String::new();
    for p in &crate::base::papers::PAPERS {
        text.push_str(&format!("{:<14} {} — {}\n", p.key, p.authors, p.title));
    }
    streams::emit(&text)
}

/// `--model NAME` of `reproduce`, an error naming `model` if it is not a contention model.
fn parse_model(
    m: Option<&str>,
) -> Result<Option<crate::modes::mesh::spec::ContentionModel>, Error> {
    m.map(|m| {
        crate::modes::mesh::spec::ContentionModel::parse(m).map_err(|e| {
            Error::Config(crate::modes::flat::spec::ConfigError {
                key: "model".into(),
                message: e.to_string(),
            })
        })
    })
    .transpose()
}

fn reproduce_command(a: &ReproduceArgs) -> Result<(), Error> {
    if a.list {
        return list_papers();
    }
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let key = a.key.as_deref().unwrap_or_default();
    let Some(paper) = crate::base::papers::paper(key) else {
        return Err(Error::Config(crate::modes::flat::spec::ConfigError {
            key: "key".into(),
            message: format!(
                "no reproduction for {:?} (available: {}; `schedlab reproduce --list`)",
                crate::limits::echo(key),
                crate::base::papers::keys()
            ),
        }));
    };
    match paper.key {
        "grid-sharing" => {
            let policies = a
                .policies
                .as_deref()
                .unwrap_or("easy,conservative")
                .split(',')
                .map(crate::grid::LocalPolicy::parse)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| {
                    Error::Config(crate::modes::flat::spec::ConfigError {
                        key: "policies".into(),
                        message: e.to_string(),
                    })
                })?;
            reproduce_grid_sharing::reproduce(&reproduce_grid_sharing::GridSharingReproOptions {
                traces: a.traces.clone(),
                json: a.json,
                only: a.only.clone(),
                threads,
                policies,
            })
        }
        "binary-tree" => {
            let model = parse_model(a.model.as_deref())?
                .unwrap_or(crate::modes::mesh::spec::ContentionModel::Flow);
            let dbt_of_free = match a.dbt_ratio_of.as_deref() {
                None | Some("area") => false,
                Some("free") => true,
                Some(other) => {
                    return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                        key: "dbt-ratio-of".into(),
                        message: format!(
                            "expected area or free (got {})",
                            crate::limits::echo_quoted(other)
                        ),
                    }))
                }
            };
            let imbalance_of_rectangle = match a.imbalance_counts.as_deref() {
                None | Some("request") => false,
                Some("rectangle") => true,
                Some(other) => {
                    return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                        key: "imbalance-counts".into(),
                        message: format!(
                            "expected request or rectangle (got {})",
                            crate::limits::echo_quoted(other)
                        ),
                    }))
                }
            };
            let settings = crate::reproduce::binary_tree::BtSettings {
                model,
                rounds: a.rounds.unwrap_or(1),
                dbt_of_free,
                imbalance_of_rectangle,
            };
            let runs = a.runs.unwrap_or(
                if model == crate::modes::mesh::spec::ContentionModel::Wormhole {
                    crate::reproduce::binary_tree::WORMHOLE_RUNS
                } else {
                    crate::reproduce::binary_tree::RUNS
                },
            );
            if !(2..=100_000).contains(&runs) {
                return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                    key: "runs".into(),
                    message: format!("must be between 2 and 100000 (got {runs})"),
                }));
            }
            reproduce_binary_tree::reproduce(&reproduce_binary_tree::BinaryTreeReproOptions {
                json: a.json,
                only: a.only.clone(),
                threads,
                settings,
                runs,
            })
        }
        "mc-elongated" => {
            let model =
                parse_model(a.model.as_deref())?.unwrap_or(crate::reproduce::mc_elongated::MODEL);
            reproduce_mc_elongated::reproduce(&reproduce_mc_elongated::McElongatedReproOptions {
                json: a.json,
                threads,
                traces: a.traces.clone(),
                model,
            })
        }
        "window" if a.readings => reproduce_window::readings(threads, a.json),
        "window" => reproduce_window::reproduce(
            &crate::reproduce::window::WindowReproOptions {
                traces: a.traces.clone(),
                only: a.only.clone(),
                threads,
            },
            a.json,
        ),
        _ => reproduce_moldable::reproduce(
            &crate::reproduce::moldable::MoldableReproOptions {
                traces: a.traces.clone(),
                only: a.only.clone(),
                threads,
                readings: crate::policy::moldable::readings::Readings::DEFAULT,
            },
            a.json,
            a.readings,
        ),
    }
}

/// `schedlab run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Experiment description (JSON, see docs/experiment-format.md).
    pub experiment: Option<PathBuf>,
    /// SWF trace (plain or .gz) — the flag form, instead of an experiment file.
    #[arg(long)]
    pub swf: Option<PathBuf>,
    /// Machine size (default: the trace header's MaxProcs, else MaxNodes).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Policy: fcfs, easy or conservative, optionally with its queue order, backfill order
    /// and estimates: BACKFILLING[:ORDER[:BACKFILL_ORDER[:ESTIMATES]]] (docs/policies.md).
    #[arg(long, long_help = format!("Policy: BACKFILLING[:ORDER[:BACKFILL_ORDER[:ESTIMATES]]], e.g. easy:sjf, easy:arrival:sjf (EASY-SJBF), conservative:wfp3::predicted.\nBackfilling:\n{}\nOrders:\n{}\n  or a priority you write (higher first), e.g. 'wait / estimate'\nEstimates: request (default), exact, predicted, or <f>x (f × run time)", crate::registry::POLICIES.help(), crate::policy::order::ORDERS.help()))]
    pub policy: Option<String>,
    /// The queue order: a built-in order (sjf, wfp3, f1, …) or a priority you write over the
    /// job's attributes, higher first: 'wait / estimate' (docs/policies.md).
    #[arg(long)]
    pub order: Option<String>,
    /// EASY's backfill order, when not the queue order (sjf: EASY-SJBF).
    #[arg(long)]
    pub backfill_order: Option<String>,
    /// The run-time estimates the policy plans with: request, exact, predicted or <f>x.
    #[arg(long)]
    pub estimates: Option<String>,
    /// Load factor: submit times are multiplied by 1/LF.
    #[arg(long)]
    pub load_factor: Option<f64>,
    /// Skip and count malformed SWF lines instead of failing.
    #[arg(long)]
    pub lenient: bool,
    /// Write one CSV row per job.
    #[arg(long)]
    pub jobs_csv: Option<PathBuf>,
    /// Write the simulated schedule as SWF.
    #[arg(long)]
    pub swf_out: Option<PathBuf>,
    /// Write the full report (summary, categories, drops, transforms) as JSON.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Print the story of the job with this trace number — why it waited and why it started
    /// when it did — instead of the summary (docs/explanations.md).
    #[arg(long, value_name = "JOB")]
    pub explain: Option<u64>,
    /// Write every decision explanation of the run as CSV (time,job,kind,text).
    #[arg(long, value_name = "FILE")]
    pub explain_csv: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub work: WorkArgs,
}

/// Entry point: parses arguments, runs, returns the process exit code.
pub fn main_with_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let outcome = streams::guard_prints(|| match cli.command {
        Command::Run(a) => run_command(&a),
        Command::Bench(a) => bench::bench_command(&a),
        Command::Reproduce(a) => reproduce_command(&a),
        Command::Mesh(a) => mesh::mesh_command(&a),
        Command::Grid(a) => grid::grid_command(&a),
        Command::List(a) => list_command(&a),
        Command::Open(a) => open::open_command(&a),
        Command::Sweep(a) => sweep::sweep_command(&a),
        Command::Exercise(a) => exercise::exercise_command(&a),
        Command::Moldable(a) => moldable::moldable_command(&a),
    });
    match outcome {
        // The reader of the output went away (`| head`): nothing more to say.
        Ok(()) | Err(Error::ClosedPipe) => 0,
        Err(e) => {
            warn(&capped(&format!("schedlab: {e}")));
            2
        }
    }
}

/// Most characters of one error message: whatever a message repeats (each value is already
/// cut to `limits::MAX_ECHO_CHARS`), stderr never receives a megabyte.
const MAX_MESSAGE_CHARS: usize = 4000;

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters.
fn capped(message: &str) -> String {
    let n = message.chars().count();
    if n <= MAX_MESSAGE_CHARS {
        return message.to_string();
    }
    let head: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    format!("{head}… (message cut: {n} characters)")
}

/// Builds the experiment from a file and/or flags; returns it with the trace path to open.
pub fn experiment_from_args(a: &RunArgs) -> Result<(Experiment, Option<PathBuf>), Error> {
    let (mut exp, mut trace_path) = match (&a.experiment, &a.swf) {
        (Some(path), _) => {
            let text = open::experiment_text(path, crate::modes::Mode::Flat, &a.limits.limits())?;
            let exp: Experiment = crate::modes::flat::spec::parse_json(&text)?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let trace = match &exp.workload {
                WorkloadSpec::Swf(SwfSource { path: Some(p), .. }) => Some(base.join(p)),
                _ => None,
            };
            (exp, trace)
        }
        (None, Some(swf)) => {
            let exp = Experiment::for_trace(&swf.display().to_string(), PolicyKind::Easy);
            (exp, None)
        }
        (None, None) => {
            return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                key: String::new(),
                message: "give an experiment file or --swf PATH".into(),
            }))
        }
    };
    if let Some(swf) = &a.swf {
        exp.workload = WorkloadSpec::Swf(SwfSource {
            path: Some(swf.display().to_string()),
            ..SwfSource::default()
        });
        trace_path = Some(swf.clone());
    }
    let config = |key: &str, message: String| {
        Error::Config(crate::modes::flat::spec::ConfigError {
            key: key.into(),
            message,
        })
    };
    if let Some(p) = &a.policy {
        let (kind, axes) =
            crate::policy::order::parse_policy(p).map_err(|e| config("policy", e.to_string()))?;
        exp.policy = kind;
        if !axes.is_default() {
            exp.queue = axes;
        }
    }
    if let Some(o) = &a.order {
        exp.queue.order = crate::policy::order::QueueOrder::parse(o)
            .map_err(|e| config("queue.order", e.to_string()))?;
    }
    if let Some(o) = &a.backfill_order {
        exp.queue.backfill_order = Some(
            crate::policy::order::QueueOrder::parse(o)
                .map_err(|e| config("queue.backfill_order", e.to_string()))?,
        );
    }
    if let Some(e) = &a.estimates {
        exp.queue.estimates = crate::policy::order::Estimates::parse(e)
            .map_err(|e| config("queue.estimates", e.to_string()))?;
    }
    if let Some(p) = a.procs {
        exp.machine = MachineSpec::Flat { procs: Some(p) };
    }
    if let Some(lf) = a.load_factor {
        exp.transforms.load_factor = lf;
    }
    if a.lenient {
        if let WorkloadSpec::Swf(src) = &mut exp.workload {
            src.lenient = true;
        }
    }
    exp.validate_with(&a.limits.limits())?;
    Ok((exp, trace_path))
}

fn run_command(a: &RunArgs) -> Result<(), Error> {
    let (exp, trace_path) = experiment_from_args(a)?;
    let inputs: Vec<&Path> = a
        .experiment
        .iter()
        .chain(trace_path.iter())
        .map(PathBuf::as_path)
        .collect();
    output_guard::refuse_outputs_that_are_inputs(
        &[
            a.jobs_csv.as_deref(),
            a.swf_out.as_deref(),
            a.report.as_deref(),
            a.explain_csv.as_deref(),
        ],
        &inputs,
    )?;
    a.work.max_seconds()?;
    let trace = trace_path.as_deref().map(open_trace).transpose()?;
    // The trace's SWF records are kept only for the SWF output.
    let mut prepared = if a.swf_out.is_some() {
        prepare_with(&exp, trace, &a.limits.limits())?
    } else {
        prepare_lean(&exp, trace, &a.limits.limits())?
    };
    a.work.check(&crate::work::estimate_flat(
        &exp,
        &prepared.workload,
        prepared.procs,
    ))?;
    let explained_job = match a.explain {
        Some(number) => Some(
            story::job_with_number(&prepared.workload.jobs, number).ok_or_else(|| {
                Error::Config(crate::modes::flat::spec::ConfigError {
                    key: "explain".into(),
                    message: format!(
                        "no job number {number} among the {} simulated jobs (dropped jobs are not \
                     simulated)",
                        prepared.workload.jobs.len()
                    ),
                })
            })?,
        ),
        None => None,
    };
    let explain = a.explain.is_some() || a.explain_csv.is_some();
    // The simulation takes the jobs (the result gives them back): one copy in memory.
    let sim = simulation_taking(&exp, &mut prepared, false);
    let sim = if explain {
        sim.with_explanations()
    } else {
        sim
    };
    let result = sim.run_to_end()?;
    // Per-job records only for the outputs that list them (the CSV, the full report).
    let output = if a.jobs_csv.is_some() || a.report.is_some() {
        finish(&result, &prepared)
    } else {
        finish_without_records(&result, &prepared)
    };
    if let Some(path) = &a.explain_csv {
        write_file(path, |w| {
            writeln!(w, "{}", story::CSV_HEADER)?;
            for e in &result.explanations {
                writeln!(
                    w,
                    "{}",
                    story::csv_line(e, &story::Names::jobs(&result.jobs))
                )?;
            }
            Ok(())
        })?;
    }
    if let Some(path) = &a.jobs_csv {
        write_file(path, |w| {
            writeln!(w, "{}", JobRecord::CSV_HEADER)?;
            for r in &output.jobs {
                writeln!(w, "{}", r.csv_line())?;
            }
            Ok(())
        })?;
    }
    if let Some(path) = &a.swf_out {
        let records = schedule_records(&result);
        write_file(path, |w| write_swf(w, &prepared.workload.header, &records))?;
    }
    if let Some(path) = &a.report {
        let text = serde_json::to_string_pretty(&output).map_err(|e| io_err(path, e))?;
        write_file(path, |w| writeln!(w, "{text}"))?;
    }
    if let Some(j) = explained_job {
        let lines = story::story(
            j,
            &story::Names::jobs(&result.jobs),
            &result.outcomes,
            &result.explanations,
        );
        return emit_line(&lines.join("\n"));
    }
    let text = serde_json::to_string_pretty(&output.summary).map_err(|e| Error::Io {
        path: "stdout".into(),
        message: e.to_string(),
    })?;
    emit_line(&text)
}

/// Writes an output file through [`output_guard::write_output`] (a temporary file renamed
/// into place; the previous file is kept on any error).
fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), Error> {
    output_guard::write_output(path, body)
}
