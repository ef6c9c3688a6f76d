//! What the Grid mode of the web app and `schedlab grid` show of a grid experiment (Ernemann et al.
//! §IV-B "Trace_single" vs job sharing, §V metrics, Table IV's "AWRT in % of single"): the
//! comparison of one experiment run twice — each site on its own, then with job sharing —
//! its CSV and JSON, the site clocks of the world-clock strip, and the grid share link
//! (`#g=`, envelope and fragment). No web dependency, so everything here is tested and fuzzed
//! natively.

use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::grid::align::AlignedWorkload;
use crate::grid::engine::GridSimulation;
use crate::grid::local::LocalPolicy;
use crate::grid::metrics::GridMetrics;
use crate::grid::site::Site;
use crate::grid::site::{Sharing, HOUR};
use crate::limits::Limits;
use crate::modes::flat::spec::{ExperimentFile, WorkloadSpec};
use crate::modes::grid::spec::{prepare_sites_with, GridExperiment, GridRunError};
use crate::modes::{Mode, ModeRun, SimOptions, Stepper, Traces};
use crate::sim::instant::Progress;

/// The configurations one comparison runs, in order: the reference, then job sharing.
pub const CONFIGURATIONS: [Sharing; 2] = [Sharing::Single, Sharing::JobSharing];

/// Short label of a configuration.
pub fn sharing_label(s: Sharing) -> &'static str {
    match s {
        Sharing::Single => "Single sites",
        Sharing::JobSharing => "Job sharing",
    }
}

/// One configuration's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridRunReport {
    pub sharing: Sharing,
    pub metrics: GridMetrics,
    /// Per site: jobs read, removed before the Monday, dropped (Table II).
    pub alignment: Vec<AlignedWorkload>,
    /// Invariant violations (must be empty).
    pub violations: Vec<String>,
}

/// An experiment run in every configuration of [`CONFIGURATIONS`]: what the page's JSON
/// download and `schedlab grid --json` both write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridComparison {
    pub experiment: GridExperiment,
    pub runs: Vec<GridRunReport>,
}

/// `exp` with the sharing mode `s`.
pub fn with_sharing(exp: &GridExperiment, s: Sharing) -> GridExperiment {
    let mut e = exp.clone();
    e.sharing = s;
    e
}

/// Runs `exp` in both configurations in one go (the CLI; the worker runs the same steps in
/// slices). `trace(i)` opens site i's trace (called once per configuration for SWF sites).
pub fn run_comparison<'a>(
    exp: &GridExperiment,
    trace: impl FnMut(usize) -> Option<(String, Box<dyn Read + 'a>)>,
) -> Result<GridComparison, GridRunError> {
    run_comparison_with(exp, trace, &Limits::DEFAULT)
}

/// [`run_comparison`] under `limits` (the CLI may raise them).
pub fn run_comparison_with<'a>(
    exp: &GridExperiment,
    mut trace: impl FnMut(usize) -> Option<(String, Box<dyn Read + 'a>)>,
    limits: &Limits,
) -> Result<GridComparison, GridRunError> {
    let mut runs = Vec::with_capacity(CONFIGURATIONS.len());
    // One configuration's sites at a time (the memory of one set of sites, not two).
    for s in CONFIGURATIONS {
        let traces = (0..exp.sites.len()).map(&mut trace).collect();
        let (sites, alignment) = prepare_sites_with(exp, traces, limits)?;
        let result = GridSimulation::new(sites, s, exp.policy)?.run_to_end()?;
        runs.push(GridRunReport {
            sharing: s,
            violations: crate::grid::invariants::check(&result),
            metrics: GridMetrics::from_result(&result),
            alignment,
        });
    }
    Ok(GridComparison {
        experiment: exp.clone(),
        runs,
    })
}

/// `part` as a percentage of `whole` (NaN when `whole` is not positive).
pub fn percent_of(part: f64, whole: f64) -> f64 {
    if whole > 0.0 && whole.is_finite() {
        100.0 * part / whole
    } else {
        f64::NAN
    }
}

/// One row of the CSV download.
const CSV_HEADER: &str = "configuration,site,procs,tz_offset_hours,jobs_submitted,jobs_executed,\
utilization,awrt_s,awwt_s,awsd,awrt_percent_of_single";

impl GridComparison {
    /// The run of configuration `s`, if it was made.
    pub fn run(&self, s: Sharing) -> Option<&GridRunReport> {
        self.runs.iter().find(|r| r.sharing == s)
    }

    /// The comparison as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// One line per configuration and site (then `overall`): utilisation of the executing
    /// machine, AWRT / AWWT / AWSD of the site's own jobs (wherever they ran), and AWRT as a
    /// percentage of the same site's AWRT in the single configuration.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(CSV_HEADER);
        out.push('\n');
        let single = self.run(Sharing::Single);
        for r in &self.runs {
            let m = &r.metrics;
            let cfg = r.sharing.as_str();
            for (i, s) in m.sites.iter().enumerate() {
                let base = single.and_then(|x| x.metrics.sites.get(i));
                let pct = percent_of(
                    s.submitted.awrt,
                    base.map_or(f64::NAN, |b| b.submitted.awrt),
                );
                out.push_str(&format!(
                    "{cfg},{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(&s.name),
                    s.procs,
                    s.tz_offset_hours,
                    s.submitted.jobs,
                    s.executed.jobs,
                    s.executed.utilization,
                    s.submitted.awrt,
                    s.submitted.awwt,
                    s.submitted.awsd,
                    pct
                ));
            }
            let procs: u64 = m.sites.iter().map(|s| u64::from(s.procs)).sum();
            let pct = percent_of(
                m.overall.awrt,
                single.map_or(f64::NAN, |x| x.metrics.overall.awrt),
            );
            out.push_str(&format!(
                "{cfg},overall,{procs},,{},{},{},{},{},{},{}\n",
                m.overall.jobs,
                m.overall.jobs,
                m.overall.utilization,
                m.overall.awrt,
                m.overall.awwt,
                m.overall.awsd,
                pct
            ));
        }
        out
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Local time of grid time `t` (seconds) at a site of offset `tz_offset_hours`, as weekday and
/// `HH:MM`: grid time 0 is Monday 00:00 at offset 0, and a site's local time is
/// `t − offset · 3600` (see [`crate::grid::Site::local_time`]), so at grid time 0 a site of
/// offset +6 reads `Sun 18:00`.
pub fn local_clock(t: f64, tz_offset_hours: f64) -> String {
    if !(t.is_finite() && tz_offset_hours.is_finite()) {
        return "–".into();
    }
    let local = (t - tz_offset_hours * HOUR).floor();
    let week = 7.0 * 24.0 * HOUR;
    let s = local.rem_euclid(week);
    let day = ((s / 86_400.0).floor() as usize).min(6);
    let minutes = ((s - day as f64 * 86_400.0) / 60.0).floor() as u32;
    format!("{} {:02}:{:02}", WEEKDAYS[day], minutes / 60, minutes % 60)
}

/// A time-zone offset as the page shows it: `+6 h`, `−3.5 h`, `±0 h`.
/// The offset as the clocks say it: `6 h behind grid time` (a positive offset: the site's
/// local time is grid time − offset, so its Monday starts later), `3.5 h ahead of grid time`,
/// `at grid time`. A site 6 h behind a grid clock on Central European time is on UTC−5.
pub fn offset_words(h: f64) -> String {
    let label = offset_label(h);
    let v = label.trim_start_matches(['+', '−', '±']);
    if h > 0.0 {
        format!("{v} behind grid time")
    } else if h < 0.0 {
        format!("{v} ahead of grid time")
    } else {
        "at grid time".into()
    }
}

/// The offset with its sign: `+6 h`, `−3.5 h`, `±0 h`.
pub fn offset_label(h: f64) -> String {
    let v = if h.fract() == 0.0 {
        format!("{}", h.abs())
    } else {
        format!("{:.2}", h.abs())
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    if h > 0.0 {
        format!("+{v} h")
    } else if h < 0.0 {
        format!("−{v} h")
    } else {
        "±0 h".into()
    }
}

/// The grid mode behind the one [`ModeRun`] shape: a run is the experiment in every
/// configuration of [`CONFIGURATIONS`] (each site on its own, then with job sharing), as the
/// page and `schedlab grid` show it.
pub struct Grid;

/// The sites of every configuration, ready to simulate (each configuration reads its own
/// copy of the workloads).
pub struct PreparedGrid {
    configurations: Vec<(Sharing, Vec<Site>, Vec<AlignedWorkload>)>,
}

/// The configurations' simulations, run one after the other.
pub struct GridStepper {
    policy: LocalPolicy,
    pending: std::vec::IntoIter<(Sharing, Vec<Site>, Vec<AlignedWorkload>)>,
    current: Option<(Sharing, GridSimulation, Vec<AlignedWorkload>)>,
    done: Vec<GridRunReport>,
    total: usize,
    /// The grid time the last finished configuration ended at.
    last_now: f64,
}

impl GridStepper {
    /// Starts the next configuration; `false` when none is left.
    fn next(&mut self) -> Result<bool, Error> {
        let Some((sharing, sites, alignment)) = self.pending.next() else {
            return Ok(false);
        };
        let sim = GridSimulation::new(sites, sharing, self.policy)?;
        self.current = Some((sharing, sim, alignment));
        Ok(true)
    }
}

impl Stepper for GridStepper {
    fn step_instants(&mut self, n: usize) -> Result<bool, Error> {
        if self.current.is_none() && !self.next()? {
            return Ok(true);
        }
        let Some((_, sim, _)) = self.current.as_mut() else {
            return Ok(true);
        };
        if !sim.step_instants(n)? {
            return Ok(false);
        }
        if let Some((sharing, sim, alignment)) = self.current.take() {
            self.last_now = sim.progress().now;
            let result = sim.into_result();
            self.done.push(GridRunReport {
                sharing,
                violations: crate::grid::invariants::check(&result),
                metrics: GridMetrics::from_result(&result),
                alignment,
            });
        }
        Ok(self.pending.len() == 0)
    }

    fn stage(&self) -> usize {
        // The run going, else the last one finished.
        self.done.len() - usize::from(self.current.is_none() && !self.done.is_empty())
    }

    fn progress(&self) -> Progress {
        let finished: usize = self.done.iter().map(|r| r.metrics.overall.jobs).sum();
        match &self.current {
            Some((_, sim, _)) => {
                let p = sim.progress();
                Progress {
                    completed: finished + p.completed,
                    started: finished + p.started,
                    total: self.total,
                    now: p.now,
                }
            }
            None => Progress {
                completed: finished,
                started: finished,
                total: self.total,
                now: self.last_now,
            },
        }
    }
}

impl ModeRun for Grid {
    type Experiment = GridExperiment;
    type Prepared = PreparedGrid;
    type Simulation<'p> = GridStepper;
    type Simulated = Vec<GridRunReport>;
    type Output = GridComparison;

    const MODE: Mode = Mode::Grid;

    fn experiment_json(exp: &GridExperiment) -> String {
        exp.to_json()
    }

    fn workloads(exp: &GridExperiment) -> Vec<(String, &WorkloadSpec)> {
        exp.sites
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("experiment.sites[{i}].workload"), &s.workload))
            .collect()
    }

    fn title(exp: &GridExperiment) -> String {
        let sharing = match exp.sharing {
            Sharing::Single => "single sites",
            Sharing::JobSharing => "job sharing",
        };
        let policy = match exp.policy {
            LocalPolicy::Easy => "EASY",
            LocalPolicy::Conservative => "conservative",
        };
        format!("{} grid sites, {sharing}, {policy}", exp.sites.len())
    }

    fn label(exp: &GridExperiment) -> String {
        format!("{} {}", exp.policy.as_str(), exp.sharing.as_str())
    }

    fn prepare(
        exp: &GridExperiment,
        traces: &mut Traces<'_>,
        limits: &Limits,
    ) -> Result<PreparedGrid, Error> {
        // The sites do not depend on the sharing: each trace read once, the sites copied per
        // configuration.
        let mut readers = Vec::with_capacity(exp.sites.len());
        for (i, site) in exp.sites.iter().enumerate() {
            let again = exp.sites[..i].iter().any(|s| s.workload == site.workload);
            let reader = match &site.workload {
                // Read once by `prepare_sites_with`, which copies it for this site.
                WorkloadSpec::Swf(_) if again => None,
                w => traces(w)?.map(|t| (t.name, t.reader)),
            };
            readers.push(reader);
        }
        let (sites, alignment) = prepare_sites_with(exp, readers, limits)?;
        let mut configurations = Vec::with_capacity(CONFIGURATIONS.len());
        for s in CONFIGURATIONS {
            configurations.push((s, sites.clone(), alignment.clone()));
        }
        Ok(PreparedGrid { configurations })
    }

    fn simulate<'p>(
        exp: &'p GridExperiment,
        prepared: &'p mut PreparedGrid,
        _: SimOptions,
    ) -> Result<GridStepper, Error> {
        let configurations = std::mem::take(&mut prepared.configurations);
        let total = configurations
            .iter()
            .map(|(_, sites, _)| sites.iter().map(|s| s.jobs.len()).sum::<usize>())
            .sum();
        Ok(GridStepper {
            policy: exp.policy,
            pending: configurations.into_iter(),
            current: None,
            done: Vec::new(),
            total,
            last_now: 0.0,
        })
    }

    fn finish(mut sim: GridStepper) -> Result<Vec<GridRunReport>, Error> {
        while !sim.step_instants(usize::MAX)? {}
        Ok(sim.done)
    }

    fn measure(
        exp: &GridExperiment,
        _: PreparedGrid,
        runs: Vec<GridRunReport>,
    ) -> Result<GridComparison, Error> {
        Ok(GridComparison {
            experiment: exp.clone(),
            runs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::*;
    use crate::modes::flat::spec::WorkloadSpec;
    use crate::modes::grid::link::*;
    use crate::modes::grid::spec::preset_global_grid;
    use crate::workload::synthetic::SyntheticModel;

    #[test]
    fn clocks_follow_the_offset_convention() {
        assert_eq!(local_clock(0.0, 0.0), "Mon 00:00");
        assert_eq!(local_clock(0.0, 6.0), "Sun 18:00");
        assert_eq!(local_clock(6.0 * HOUR, 6.0), "Mon 00:00");
        assert_eq!(local_clock(90_061.0, 0.0), "Tue 01:01");
        assert_eq!(local_clock(7.0 * 86_400.0 + 59.0, 0.0), "Mon 00:00");
        assert_eq!(local_clock(0.0, -1.5), "Mon 01:30");
        assert_eq!(local_clock(f64::NAN, 0.0), "–");
        assert_eq!(offset_label(6.0), "+6 h");
        assert_eq!(offset_label(-3.5), "−3.5 h");
        assert_eq!(offset_label(0.0), "±0 h");
        assert_eq!(offset_words(6.0), "6 h behind grid time");
        assert_eq!(offset_words(-3.5), "3.5 h ahead of grid time");
        assert_eq!(offset_words(0.0), "at grid time");
    }

    #[test]
    fn share_round_trip_and_version() {
        let mut exp = preset_global_grid();
        if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut exp.sites[1].workload {
            p.jobs = 777;
        }
        let json = GridShare::new(exp.clone()).to_json();
        assert!(json.contains("777"));
        assert!(
            !json.contains("serial_prob"),
            "defaults are left out: {json}"
        );
        let back = GridShare::from_json(&json).map(|s| s.experiment);
        assert_eq!(back, Ok(exp));
        let future = json.replacen("\"v\":1", "\"v\":9", 1);
        let e = GridShare::from_json(&future).map(|_| ()).unwrap_err();
        assert!(e.0.contains("format 9"), "{e}");
        assert!(GridShare::from_json("{\"v\":1}").is_err());
        assert!(GridShare::from_json("not json").is_err());
    }

    #[test]
    fn comparison_runs_both_configurations_like_run_grid() {
        let mut exp = preset_global_grid();
        for s in &mut exp.sites {
            if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut s.workload {
                p.jobs = 300;
            }
        }
        let cmp = run_comparison(&exp, |_| None).expect("runs");
        assert_eq!(cmp.runs.len(), 2);
        for r in &cmp.runs {
            let direct = crate::modes::grid::run_grid(&with_sharing(&exp, r.sharing), vec![])
                .expect("run_grid runs");
            assert_eq!(direct.metrics, r.metrics);
            assert!(r.violations.is_empty());
        }
        let single = cmp.run(Sharing::Single).expect("single");
        assert_eq!(single.metrics.migrated, 0);
        let csv = cmp.to_csv();
        assert_eq!(csv.lines().count(), 1 + 2 * 5);
        assert!(csv
            .lines()
            .nth(5)
            .unwrap_or("")
            .starts_with("single,overall,512,,"));
        let back: GridComparison = serde_json::from_str(&cmp.to_json()).expect("json");
        assert_eq!(back.runs[1].metrics.overall, cmp.runs[1].metrics.overall);
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
