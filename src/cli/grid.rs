//! `schedlab grid EXPERIMENT.json`: runs a grid experiment (Ernemann et al. §III–V, format in
//! `docs/grid.md`) twice — every site on its own, then with job sharing — and prints the
//! comparison the web app's Grid mode shows: utilisation, AWRT, AWWT, AWSD per site and
//! overall, and AWRT in % of single (Table IV style). `--json` prints the
//! [`GridComparison`] exactly as the page's JSON download.

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use clap::Args;

use super::streams::{emit, emit_line, io_err, warn};
use super::LimitArgs;
use crate::error::Error;
use crate::grid::Sharing;
use crate::modes::flat::spec::{SwfSource, WorkloadSpec};
use crate::modes::grid::run::{percent_of, run_comparison_with, sharing_label, GridComparison};
use crate::modes::grid::GridExperiment;

/// `schedlab grid`.
#[derive(Args, Debug)]
pub struct GridArgs {
    /// Grid experiment (JSON, see docs/grid.md); trace paths are relative to its folder.
    pub experiment: PathBuf,
    /// Print the comparison as JSON (what the web app's "JSON" download holds).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs the comparison and prints it.
pub fn grid_command(a: &GridArgs) -> Result<(), Error> {
    let path = &a.experiment;
    let limits = a.limits.limits();
    let text = super::open::experiment_text(path, crate::modes::Mode::Grid, &limits)?;
    let exp: GridExperiment = crate::modes::flat::spec::parse_json(&text)?;
    exp.validate_with(&limits)?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut paths = Vec::with_capacity(exp.sites.len());
    for s in &exp.sites {
        paths.push(match &s.workload {
            WorkloadSpec::Swf(SwfSource { path: Some(p), .. }) => Some(base.join(p)),
            _ => None,
        });
    }
    // Open every trace up front, so a missing file is reported as an I/O error with its path.
    for p in paths.iter().flatten() {
        File::open(p).map_err(|e| io_err(p, e))?;
    }
    let cmp = run_comparison_with(
        &exp,
        |i| {
            let p = paths.get(i)?.as_ref()?;
            let f = File::open(p).ok()?;
            Some((
                p.display().to_string(),
                Box::new(BufReader::new(f)) as Box<dyn std::io::Read>,
            ))
        },
        &limits,
    )?;
    if a.json {
        emit_line(&cmp.to_json())?;
    } else {
        emit(&tables(&cmp))?;
    }
    // A violated invariant means the numbers above cannot be trusted: never exit 0.
    let mut violated = Vec::new();
    for r in &cmp.runs {
        if !r.violations.is_empty() {
            for v in r.violations.iter().take(3) {
                warn(&format!("schedlab: {}: {v}", sharing_label(r.sharing)));
            }
            violated.push(format!(
                "{}: {} invariant violations",
                sharing_label(r.sharing),
                r.violations.len()
            ));
        }
    }
    if violated.is_empty() {
        Ok(())
    } else {
        Err(Error::simulation(
            crate::error::Engine::Grid,
            "",
            violated.join("; "),
        ))
    }
}

/// The comparison as text tables, one per configuration.
fn tables(cmp: &GridComparison) -> String {
    let mut out = String::new();
    let single = cmp.run(Sharing::Single);
    for r in &cmp.runs {
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "{} ({}, {} jobs migrated)",
            sharing_label(r.sharing),
            m.policy.as_str(),
            m.migrated
        );
        let _ = writeln!(
            out,
            "{:<20} {:>8} {:>8} {:>12} {:>12} {:>10} {:>9}",
            "site", "jobs", "util %", "AWRT (s)", "AWWT (s)", "AWSD", "AWRT %"
        );
        for (i, s) in m.sites.iter().enumerate() {
            let b = single.and_then(|x| x.metrics.sites.get(i));
            let _ = writeln!(
                out,
                "{:<20} {:>8} {:>8.2} {:>12.0} {:>12.0} {:>10.2} {:>9.1}",
                s.name,
                s.submitted.jobs,
                100.0 * s.executed.utilization,
                s.submitted.awrt,
                s.submitted.awwt,
                s.submitted.awsd,
                percent_of(s.submitted.awrt, b.map_or(f64::NAN, |b| b.submitted.awrt))
            );
        }
        let o = &m.overall;
        let _ = writeln!(
            out,
            "{:<20} {:>8} {:>8.2} {:>12.0} {:>12.0} {:>10.2} {:>9.1}\n",
            "overall",
            o.jobs,
            100.0 * o.utilization,
            o.awrt,
            o.awwt,
            o.awsd,
            percent_of(o.awrt, single.map_or(f64::NAN, |x| x.metrics.overall.awrt))
        );
    }
    out
}
