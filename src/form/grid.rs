//! The grid site editor (`#grid-mode`): the rows as typed, the policy, seed and "cut" box →
//! one [`GridExperiment`] and the names of the traces it reads; or the first [`FieldError`],
//! naming the site and the field (the `data-testid` of its input, `grid-site-procs-0`).

use super::format;
use super::{FieldError, TraceFacts, MAX_JOBS, MAX_PROCS};
use crate::grid::{LocalPolicy, Sharing};
use crate::modes::flat::spec::ExperimentFile;
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::grid::spec::GRID_FORMAT_VERSION;
use crate::modes::grid::{GridExperiment, SiteSpec};
use crate::workload::synthetic::SyntheticModel;

/// One row of the site editor, as typed.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteRow {
    pub name: String,
    pub procs: String,
    pub tz: String,
    pub trace_mode: bool,
    pub jobs: String,
    /// The synthetic model (its other parameters are kept as they came: preset or link).
    pub model: SyntheticModel,
    /// Name of the loaded trace this site reads.
    pub trace: Option<String>,
    /// A link's trace for this site: name and SHA-256, until a matching file is chosen.
    pub want: Option<(String, Option<String>)>,
    pub lenient: bool,
    pub align_monday: bool,
}

/// The number of jobs of a model the editor shows (Lublin's), if it has one.
pub fn model_jobs(m: &SyntheticModel) -> Option<usize> {
    match m {
        SyntheticModel::Lublin(p) => Some(p.jobs),
        _ => None,
    }
}

impl SiteRow {
    /// The row of a site of an experiment (preset or link).
    pub fn from_spec(s: &SiteSpec) -> SiteRow {
        let (trace_mode, model, want, lenient) = match &s.workload {
            WorkloadSpec::Synthetic(m) => (false, m.clone(), None, false),
            WorkloadSpec::Swf(src) => (
                true,
                SyntheticModel::default(),
                src.name
                    .clone()
                    .or_else(|| src.path.clone())
                    .map(|n| (n, src.sha256.clone())),
                src.lenient,
            ),
        };
        SiteRow {
            name: s.name.clone().unwrap_or_default(),
            procs: s.procs.map(|p| p.to_string()).unwrap_or_default(),
            tz: format!("{}", s.tz_offset_hours),
            trace_mode,
            jobs: model_jobs(&model)
                .map(|j| j.to_string())
                .unwrap_or_default(),
            model,
            trace: None,
            want,
            lenient,
            align_monday: s.align_monday,
        }
    }

    /// The row "Add site" adds as site `n`: 10,000 Lublin jobs on the model's machine.
    pub fn new_site(n: usize) -> SiteRow {
        let mut r = SiteRow::from_spec(&SiteSpec {
            name: Some(format!("Site {n}")),
            procs: None,
            tz_offset_hours: 0.0,
            workload: WorkloadSpec::Synthetic(SyntheticModel::default()),
            align_monday: true,
        });
        r.jobs = "10000".into();
        r
    }
}

/// The editor as typed.
#[derive(Clone, Debug, Default)]
pub struct GridFields {
    pub sites: Vec<SiteRow>,
    /// `#grid-seed`, `#grid-policy`, `#grid-cut`.
    pub seed: String,
    pub policy: String,
    pub cut: bool,
    /// The name of the experiment (kept from a preset or link).
    pub name: Option<String>,
}

/// `#grid-site-FIELD-i`'s `data-testid`.
fn site_field(field: &str, i: usize) -> String {
    format!("grid-site-{field}-{i}")
}

/// A site's machine size: empty (the trace's or model's) or 1 to [`MAX_PROCS`].
fn read_procs(t: &str) -> Option<Option<u32>> {
    match t {
        "" => Some(None),
        t => t
            .parse::<u32>()
            .ok()
            .filter(|p| (1..=MAX_PROCS).contains(p))
            .map(Some),
    }
}

/// A site's time-zone offset in hours: empty (0) or within ±168.
fn read_tz(t: &str) -> Option<f64> {
    match t {
        "" => Some(0.0),
        t => t
            .parse::<f64>()
            .ok()
            .filter(|h| h.is_finite() && h.abs() <= 168.0),
    }
}

/// A site's number of jobs: 1 to [`MAX_JOBS`].
fn read_jobs(t: &str) -> Option<usize> {
    t.parse::<usize>()
        .ok()
        .filter(|j| (1..=MAX_JOBS).contains(j))
}

/// The `data-testid`s of the editor's inputs that [`experiment`] refuses, with whether each
/// is invalid (every procs, tz and — for rows with a model's job count — jobs input).
pub fn site_inputs_validity(sites: &[SiteRow]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (i, r) in sites.iter().enumerate() {
        out.push((site_field("procs", i), read_procs(r.procs.trim()).is_none()));
        out.push((site_field("tz", i), read_tz(r.tz.trim()).is_none()));
        out.push((
            site_field("jobs", i),
            !r.trace_mode && model_jobs(&r.model).is_some() && read_jobs(r.jobs.trim()).is_none(),
        ));
    }
    out
}

/// The experiment of the editor, and the names of the traces it reads. `traces` are the
/// traces uploaded in this mode.
pub fn experiment(
    f: &GridFields,
    traces: &[TraceFacts],
) -> Result<(GridExperiment, Vec<String>), FieldError> {
    if f.sites.is_empty() {
        return Err(FieldError::new("grid-add-site", "Add at least one site."));
    }
    let mut sites = Vec::with_capacity(f.sites.len());
    let mut used = Vec::new();
    for (i, r) in f.sites.iter().enumerate() {
        let label = if r.name.trim().is_empty() {
            format!("site {}", i + 1)
        } else {
            r.name.trim().to_string()
        };
        let who = format!("Site {} ({label})", i + 1);
        let t = r.procs.trim();
        let Some(procs) = read_procs(t) else {
            return Err(FieldError::new(
                site_field("procs", i),
                format!(
                    "{who}: the number of nodes must be a whole number from 1 to {} (got \
                     {t:?}), or empty for the trace's or model's size.",
                    format::count(u64::from(MAX_PROCS))
                ),
            ));
        };
        let t = r.tz.trim();
        let Some(tz) = read_tz(t) else {
            return Err(FieldError::new(
                site_field("tz", i),
                format!(
                    "{who}: the time-zone offset must be a number of hours between −168 and \
                     168 (got {t:?})."
                ),
            ));
        };
        let workload = if r.trace_mode {
            let loaded = r
                .trace
                .as_ref()
                .and_then(|t| traces.iter().find(|l| &l.name == t));
            let Some(l) = loaded else {
                let what = r
                    .want
                    .as_ref()
                    .map(|(n, _)| format!("the trace {n} (from the link)"))
                    .unwrap_or_else(|| "a trace file (.swf or .swf.gz)".into());
                return Err(FieldError::new(
                    site_field("file", i),
                    format!("{who}: choose {what}, or switch the site to a synthetic workload."),
                ));
            };
            if !used.contains(&l.name) {
                used.push(l.name.clone());
            }
            l.workload(r.lenient)
        } else {
            let mut model = r.model.clone();
            if let SyntheticModel::Lublin(p) = &mut model {
                let Some(jobs) = read_jobs(r.jobs.trim()) else {
                    return Err(FieldError::new(
                        site_field("jobs", i),
                        format!(
                            "{who}: the number of jobs must be a whole number from 1 to {} \
                             (got {:?}).",
                            format::count(MAX_JOBS as u64),
                            r.jobs.trim()
                        ),
                    ));
                };
                p.jobs = jobs;
                // Job sizes are drawn for the site's machine, as in the flat mode.
                if let Some(n) = procs {
                    p.procs = n;
                }
            }
            WorkloadSpec::Synthetic(model)
        };
        sites.push(SiteSpec {
            name: (!r.name.trim().is_empty()).then(|| r.name.trim().to_string()),
            procs,
            tz_offset_hours: tz,
            workload,
            align_monday: r.align_monday,
        });
    }
    let Ok(seed) = f.seed.trim().parse::<u64>() else {
        return Err(FieldError::new(
            "grid-seed",
            format!("The seed must be a whole number ≥ 0 (got {:?}).", f.seed),
        ));
    };
    let policy =
        LocalPolicy::parse(&f.policy).map_err(|e| FieldError::new("grid-policy", e.to_string()))?;
    let exp = GridExperiment {
        version: GRID_FORMAT_VERSION,
        name: f.name.clone(),
        sites,
        sharing: Sharing::JobSharing,
        policy,
        seed,
        cut_to_shortest: f.cut,
    };
    exp.validate()
        .map_err(|e| FieldError::new("grid-form", format!("Invalid grid: {e}")))?;
    Ok((exp, used))
}
