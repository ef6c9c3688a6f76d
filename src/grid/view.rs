//! What the Grid mode of the web app and `schedlab grid` show of a grid experiment (Ernemann et al.
//! §IV-B "Trace_single" vs job sharing, §V metrics, Table IV's "AWRT in % of single"): the
//! comparison of one experiment run twice — each site on its own, then with job sharing —
//! its CSV and JSON, the site clocks of the world-clock strip, and the grid share link
//! (`#g=`, envelope and fragment). No web dependency, so everything here is tested and fuzzed
//! natively.

use std::fmt;
use std::io::Read;

use serde::{Deserialize, Serialize};

use super::align::AlignedWorkload;
use super::engine::GridSimulation;
use super::metrics::GridMetrics;
use super::site::{Sharing, HOUR};
use super::spec::{prepare_sites_with, GridExperiment, GridRunError};
use crate::limits::Limits;

/// The configurations one comparison runs, in order: the reference, then job sharing.
pub const CONFIGURATIONS: [Sharing; 2] = [Sharing::Single, Sharing::JobSharing];

/// Version of the grid share-link envelope this build writes and reads.
pub const GRID_SHARE_VERSION: u32 = 1;
/// Prefix of a grid share link's fragment (after `#`).
pub const GRID_FRAGMENT_PREFIX: &str = "g=";
/// Longest grid link fragment accepted.
pub const MAX_GRID_FRAGMENT: usize = 64 * 1024;

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
    for s in CONFIGURATIONS {
        let traces = (0..exp.sites.len()).map(&mut trace).collect();
        let (sites, alignment) = prepare_sites_with(exp, traces, limits)?;
        let result = GridSimulation::new(sites, s, exp.policy)?.run_to_end()?;
        runs.push(GridRunReport {
            sharing: s,
            violations: super::invariants::check(&result),
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

/// What a grid share link carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridShare {
    /// Envelope version ([`GRID_SHARE_VERSION`]).
    pub v: u32,
    /// The experiment (its `sharing` is ignored: both configurations run). Uploaded traces
    /// travel as `workload.swf.name` and `workload.swf.sha256`.
    pub experiment: GridExperiment,
}

/// Why a grid share link cannot be opened.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareError(pub String);

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShareError {}

impl GridShare {
    pub fn new(experiment: GridExperiment) -> GridShare {
        GridShare {
            v: GRID_SHARE_VERSION,
            experiment,
        }
    }

    /// The envelope as compact JSON, every synthetic-model parameter equal to its default left
    /// out (the reader fills it in again).
    pub fn to_json(&self) -> String {
        let Ok(mut v) = serde_json::to_value(self) else {
            return String::new();
        };
        if let Some(sites) = v
            .get_mut("experiment")
            .and_then(|e| e.get_mut("sites"))
            .and_then(|s| s.as_array_mut())
        {
            for site in sites {
                if let Some(model) = site
                    .get_mut("workload")
                    .and_then(|w| w.get_mut("synthetic"))
                {
                    crate::share::compact_model(model);
                }
            }
        }
        v.to_string()
    }

    /// The fragment (without `#`): `g=` + base64url(JSON) + `.` + checksum.
    pub fn to_fragment(&self) -> String {
        crate::share::pack_fragment(GRID_FRAGMENT_PREFIX, &self.to_json())
    }

    /// Reads a grid link's fragment (with or without `#`): `Ok(None)` when it is no grid
    /// link; the version is judged first (by [`GridShare::from_json`]), then the checksum.
    pub fn from_fragment(fragment: &str) -> Result<Option<GridShare>, ShareError> {
        let Some((text, checksum_ok)) =
            crate::share::unpack_fragment(fragment, GRID_FRAGMENT_PREFIX, MAX_GRID_FRAGMENT)
                .map_err(ShareError)?
        else {
            return Ok(None);
        };
        let share = GridShare::from_json(&text)?;
        if !checksum_ok {
            return Err(ShareError(
                "the link is damaged (its checksum does not match: was it cut or edited?)".into(),
            ));
        }
        Ok(Some(share))
    }

    /// Reads the JSON of a link: the version first (a link of another version is refused with
    /// a message naming both versions), then the experiment, validated.
    pub fn from_json(text: &str) -> Result<GridShare, ShareError> {
        GridShare::from_json_with(text, &Limits::DEFAULT)
    }

    /// [`GridShare::from_json`] with the experiment validated under `limits` (the CLI may
    /// raise them).
    pub fn from_json_with(text: &str, limits: &Limits) -> Result<GridShare, ShareError> {
        crate::share::check_envelope(text, GRID_SHARE_VERSION, "grid-link", None)
            .map_err(ShareError)?;
        let share: GridShare = crate::config::parse_json(text).map_err(|e| {
            ShareError(format!(
                "the link's experiment is invalid: {}: {}",
                e.key, e.message
            ))
        })?;
        share
            .experiment
            .validate_with(limits)
            .map_err(|e| ShareError(format!("the link's experiment is invalid: {e}")))?;
        Ok(share)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WorkloadSpec;
    use crate::grid::spec::preset_global_grid;
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
            let direct = crate::grid::run_grid(&with_sharing(&exp, r.sharing), vec![])
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
