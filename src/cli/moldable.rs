//! `schedlab moldable EXP.json [--strategy a,b,…]`: one moldable experiment
//! ([`crate::modes::moldable::run`], Srinivasan et al. §2–5) — the rigid workload made moldable, each strategy
//! run and compared with rigid conservative backfilling. Prints a JSON summary: per strategy
//! the core summary, the mean turnaround per weight category and the % change against rigid
//! conservative (overall and per category). Reads envelopes of mode `moldable` too.

use std::path::PathBuf;

use clap::Args;

use super::streams::{emit_line, open_trace};
use super::LimitArgs;
use crate::error::Error;
use crate::modes::flat::spec::{ConfigError, SwfSource, WorkloadSpec};
use crate::modes::moldable::run::run_moldable_with;
use crate::modes::moldable::spec::MoldableExperiment;
use crate::policy::moldable::MoldableStrategyKind;

/// `schedlab moldable`.
#[derive(Args, Debug)]
pub struct MoldableArgs {
    /// Moldable experiment (JSON, docs/moldable.md) or an envelope of mode `moldable`.
    pub experiment: PathBuf,
    /// Strategies to compare with rigid conservative (comma-separated; default: the
    /// experiment's `strategy`, or the envelope's `strategies`).
    #[arg(long, long_help = format!("Moldable strategies (comma-separated):\n{}", crate::registry::MOLDABLE_STRATEGIES.help()))]
    pub strategy: Option<String>,
    /// Write the whole report (every run's summary and categories) as JSON.
    #[arg(long)]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Parses `a,b,c` into strategies; the error names the key `strategy`.
pub fn parse_strategies(s: &str) -> Result<Vec<MoldableStrategyKind>, Error> {
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(MoldableStrategyKind::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::Config(ConfigError {
                key: "strategy".into(),
                message: e.to_string(),
            })
        })
}

/// Runs `schedlab moldable`.
pub fn moldable_command(a: &MoldableArgs) -> Result<(), Error> {
    let text = super::open::experiment_text(
        &a.experiment,
        crate::modes::Mode::Moldable,
        &a.limits.limits(),
    )?;
    let exp: MoldableExperiment = crate::modes::flat::spec::parse_json(&text)?;
    let mut strategies = match &a.strategy {
        Some(s) => parse_strategies(s)?,
        None => Vec::new(),
    };
    if strategies.is_empty() && a.strategy.is_none() {
        // An envelope names the strategies it compares.
        if let Ok(Some(crate::modes::envelope::Envelope::Moldable(s))) =
            crate::modes::envelope::Envelope::from_document_with(
                &super::streams::read_document(&a.experiment)?,
                &a.limits.limits(),
            )
        {
            strategies = s.strategies;
        }
    }
    exp.validate_with(&a.limits.limits())?;
    let base = a.experiment.parent().map(PathBuf::from).unwrap_or_default();
    let trace_path = match &exp.workload {
        WorkloadSpec::Swf(SwfSource { path: Some(p), .. }) => Some(base.join(p)),
        _ => None,
    };
    let mut inputs = vec![a.experiment.as_path()];
    inputs.extend(trace_path.as_deref());
    super::output_guard::refuse_outputs_that_are_inputs(&[a.report.as_deref()], &inputs)?;
    let trace = trace_path.as_deref().map(open_trace).transpose()?;
    let report = run_moldable_with(&exp, &strategies, trace, &a.limits.limits())?;
    if let Some(path) = &a.report {
        let text = serde_json::to_string_pretty(&report).map_err(|e| super::io_err(path, e))?;
        super::write_file(path, |w| {
            use std::io::Write;
            writeln!(w, "{text}")
        })?;
    }
    let cats = |c: &[crate::metrics::CategoryStat]| -> Vec<serde_json::Value> {
        c.iter()
            .map(|s| serde_json::json!({"category": s.category, "jobs": s.jobs, "mean_turnaround": s.mean_turnaround}))
            .collect()
    };
    let brief = serde_json::json!({
        "procs": report.procs,
        "jobs": report.jobs,
        "dropped": report.dropped,
        "model": report.model,
        "load_factor": report.load_factor,
        "reference": {
            "strategy": report.reference.strategy,
            "summary": report.reference.summary,
            "categories": cats(&report.reference.categories),
        },
        "strategies": report.runs.iter().map(|r| serde_json::json!({
            "strategy": r.output.strategy,
            "label": r.output.label,
            "summary": r.output.summary,
            "categories": cats(&r.output.categories),
            "mean_procs_ratio": r.output.mean_procs_ratio,
            "change_vs_rigid_conservative": r.change,
        })).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&brief).map_err(|e| Error::Io {
        path: "stdout".into(),
        message: e.to_string(),
    })?;
    emit_line(&text)
}
