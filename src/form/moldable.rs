//! The moldable mode's form (Srinivasan et al. §2–5): the plain values of `#moldable-form` — the
//! workload (a Lublin–Feitelson synthetic workload or the uploaded trace), Downey's σ, the
//! range factor RF, the load factor LF in %, the seed and the ticked strategies — read into
//! the [`MoldableShare`] the page runs and links (one experiment, every strategy compared with
//! rigid conservative backfilling). Errors name the field's element; no web dependency.

use super::{number, FieldError, TraceFacts};
use crate::modes::flat::spec::{MachineSpec, WorkloadSpec};
use crate::modes::moldable::link::MoldableShare;
use crate::modes::moldable::spec::{MoldableExperiment, MAX_STRATEGIES};
use crate::policy::moldable::MoldableStrategyKind;
use crate::workload::moldable::MoldableModel;
use crate::workload::synthetic::{LublinParams, SyntheticModel};

/// Jobs of a run whose per-job schedules the page shows (Gantt chart); larger runs show the
/// charts of categories only.
pub const MAX_GANTT_JOBS: usize = 2000;

/// The moldable form as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoldableFields {
    /// `true`: the uploaded trace (`#moldable-wl-trace`); `false`: the synthetic workload.
    pub trace: bool,
    /// `#moldable-jobs`, `#moldable-procs` (synthetic).
    pub jobs: String,
    pub procs: String,
    /// `#moldable-first-jobs` (trace; empty: every job).
    pub first_jobs: String,
    /// `#moldable-sigma`, `#moldable-rf`, `#moldable-lf` (in %), `#moldable-seed`.
    pub sigma: String,
    pub range_factor: String,
    pub load_factor: String,
    pub seed: String,
    /// The ticked strategies (`#moldable-strategies`), in the form's order.
    pub strategies: Vec<String>,
}

impl MoldableFields {
    /// The form showing `share` (numbers as the page writes them); `trace` is whether it reads
    /// a trace.
    pub fn of(share: &MoldableShare) -> MoldableFields {
        let e = &share.experiment;
        let (trace, jobs, procs) = match (&e.workload, &e.machine) {
            (WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)), m) => {
                let procs = match m {
                    MachineSpec::Flat { procs: Some(n) } => *n,
                    _ => p.procs,
                };
                (false, p.jobs.to_string(), procs.to_string())
            }
            _ => (true, String::new(), String::new()),
        };
        let (sigma, rf) = match &e.model {
            MoldableModel::Downey {
                sigma,
                range_factor,
            } => (sigma.to_string(), range_factor.to_string()),
            MoldableModel::Profiles { .. } => (String::new(), String::new()),
        };
        MoldableFields {
            trace,
            jobs,
            procs,
            first_jobs: e
                .transforms
                .first_jobs
                .map(|n| n.to_string())
                .unwrap_or_default(),
            sigma,
            range_factor: rf,
            load_factor: percent(e.transforms.load_factor),
            seed: e.seed.to_string(),
            strategies: share
                .strategies
                .iter()
                .map(|k| k.as_str().to_string())
                .collect(),
        }
    }
}

/// `factor` (1.25) as the percentage the form shows (`125`), rounded to 6 decimals.
fn percent(factor: f64) -> String {
    ((factor * 100.0 * 1e6).round() / 1e6).to_string()
}

/// The preset "Moldable jobs (Srinivasan et al.)": 2,000 Lublin–Feitelson jobs on 128 processors (the
/// size of the SDSC SP2 the paper uses), σ = 1, RF = 2, LF = 125 %, the schemes of §3 and the
/// combined scheme of §5 against rigid conservative backfilling.
pub fn preset_moldable() -> MoldableShare {
    let params = LublinParams {
        jobs: 2000,
        procs: 128,
        ..LublinParams::default()
    };
    let mut exp = MoldableExperiment::new(
        WorkloadSpec::Synthetic(SyntheticModel::Lublin(params)),
        MoldableModel::Downey {
            sigma: 1.0,
            range_factor: 2.0,
        },
        MoldableStrategyKind::Combined,
    );
    exp.name = Some("Moldable jobs (Srinivasan et al.)".into());
    exp.machine = MachineSpec::Flat { procs: Some(128) };
    exp.transforms.load_factor = 1.25;
    exp.seed = 1;
    MoldableShare::new(
        exp,
        vec![
            MoldableStrategyKind::RigidEasy,
            MoldableStrategyKind::SubmitGreedy,
            MoldableStrategyKind::SubmitFairShare,
            MoldableStrategyKind::ScheduleFairShare,
            MoldableStrategyKind::Combined,
        ],
    )
}

/// Reads the form over `base` (the experiment it edits, keeping what the form does not show:
/// the synthetic model's other parameters, a link's name; the preset if none). `trace` is the
/// uploaded trace, if any.
pub fn read(
    f: &MoldableFields,
    base: Option<&MoldableShare>,
    trace: Option<&TraceFacts>,
) -> Result<MoldableShare, FieldError> {
    let mut exp = base.map_or_else(|| preset_moldable().experiment, |b| b.experiment.clone());
    if f.trace {
        let Some(t) = trace else {
            return Err(FieldError::new(
                "moldable-upload",
                "Workload: upload a trace first.",
            ));
        };
        exp.workload = t.workload(false);
        exp.machine = MachineSpec::Flat { procs: None };
        let first = f.first_jobs.trim();
        exp.transforms.first_jobs = if first.is_empty() {
            None
        } else {
            Some(number(
                "moldable-first-jobs",
                first,
                "First jobs",
                "a whole number, or nothing for every job",
            )?)
        };
    } else {
        let mut p = match &exp.workload {
            WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) => p.clone(),
            _ => LublinParams::default(),
        };
        p.jobs = number("moldable-jobs", &f.jobs, "Jobs", "a whole number")?;
        p.procs = number(
            "moldable-procs",
            &f.procs,
            "Processors",
            "a whole number of processors",
        )?;
        exp.machine = MachineSpec::Flat {
            procs: Some(p.procs),
        };
        exp.workload = WorkloadSpec::Synthetic(SyntheticModel::Lublin(p));
        exp.transforms.first_jobs = None;
    }
    let sigma: f64 = number("moldable-sigma", &f.sigma, "σ", "a number ≥ 0")?;
    let range_factor: f64 = number(
        "moldable-rf",
        &f.range_factor,
        "Range factor RF",
        "a number ≥ 1",
    )?;
    exp.model = MoldableModel::Downey {
        sigma,
        range_factor,
    };
    let lf: f64 = number(
        "moldable-lf",
        &f.load_factor,
        "Load factor LF",
        "a percentage such as 100 or 125",
    )?;
    exp.transforms.load_factor = lf / 100.0;
    exp.seed = number(
        "moldable-seed",
        &f.seed,
        "Random seed",
        "a whole number ≥ 0",
    )?;
    let strategies = f
        .strategies
        .iter()
        .map(|s| {
            MoldableStrategyKind::parse(s)
                .map_err(|m| FieldError::new("moldable-strategies", format!("Strategies: {m}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if strategies.is_empty() {
        return Err(FieldError::new(
            "moldable-strategies",
            "Strategies: tick at least one (each is compared with rigid conservative backfilling).",
        ));
    }
    if strategies.len() > MAX_STRATEGIES {
        return Err(FieldError::new(
            "moldable-strategies",
            format!("Strategies: at most {MAX_STRATEGIES}."),
        ));
    }
    // The experiment's own strategy (what `schedlab moldable` runs without `--strategy`):
    // kept while ticked, else the last ticked.
    if !strategies.contains(&exp.strategy) {
        if let Some(&last) = strategies.last() {
            exp.strategy = last;
        }
    }
    exp.validate().map_err(|e| config_error(&e))?;
    Ok(MoldableShare::new(exp, strategies))
}

/// A configuration error of the experiment as an error of the form's field.
pub fn config_error(e: &crate::modes::flat::spec::ConfigError) -> FieldError {
    let (field, name) = match e.key.as_str() {
        "model.downey.sigma" => ("moldable-sigma", "σ"),
        "model.downey.range_factor" => ("moldable-rf", "Range factor RF"),
        "transforms.load_factor" => ("moldable-lf", "Load factor LF"),
        "transforms.first_jobs" => ("moldable-first-jobs", "First jobs"),
        k if k.ends_with(".jobs") => ("moldable-jobs", "Jobs"),
        k if k.ends_with("procs") => ("moldable-procs", "Processors"),
        _ => ("moldable-form", ""),
    };
    let key = if name.is_empty() {
        e.key.as_str()
    } else {
        name
    };
    let message = if key.is_empty() {
        e.message.clone()
    } else {
        format!("{key}: {}", e.message)
    };
    FieldError::new(field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> MoldableFields {
        MoldableFields::of(&preset_moldable())
    }

    #[test]
    fn the_preset_reads_back_to_itself() {
        let f = fields();
        assert_eq!(f.jobs, "2000");
        assert_eq!(f.procs, "128");
        assert_eq!(f.sigma, "1");
        assert_eq!(f.range_factor, "2");
        assert_eq!(f.load_factor, "125");
        assert_eq!(
            f.strategies,
            [
                "rigid_easy",
                "submit_greedy",
                "submit_fair_share",
                "schedule_fair_share",
                "combined"
            ]
        );
        let preset = preset_moldable();
        assert_eq!(read(&f, Some(&preset), None), Ok(preset.clone()));
        assert_eq!(read(&f, None, None), Ok(preset));
    }

    #[test]
    fn fields_change_the_experiment() {
        let mut f = fields();
        f.sigma = "0".into();
        f.range_factor = "4".into();
        f.load_factor = "100".into();
        f.strategies = vec!["base".into(), "all_sizes".into()];
        let s = read(&f, None, None).unwrap();
        assert_eq!(
            s.experiment.model,
            MoldableModel::Downey {
                sigma: 0.0,
                range_factor: 4.0
            }
        );
        assert_eq!(s.experiment.transforms.load_factor, 1.0);
        assert_eq!(s.experiment.strategy, MoldableStrategyKind::AllSizes);
        assert_eq!(
            s.strategies,
            [MoldableStrategyKind::Base, MoldableStrategyKind::AllSizes]
        );
    }

    #[test]
    fn a_trace_workload_names_the_upload() {
        let mut f = fields();
        f.trace = true;
        f.first_jobs = "5000".into();
        let err = read(&f, None, None).unwrap_err();
        assert_eq!(err.field, "moldable-upload");
        let t = TraceFacts {
            name: "SDSC-SP2.swf.gz".into(),
            sha256: "ab".repeat(32),
            max_job_procs: 128,
            header_procs: Some(128),
        };
        let s = read(&f, None, Some(&t)).unwrap();
        match &s.experiment.workload {
            WorkloadSpec::Swf(src) => {
                assert_eq!(src.name.as_deref(), Some("SDSC-SP2.swf.gz"));
                assert_eq!(src.sha256.as_deref(), Some(t.sha256.as_str()));
            }
            w => panic!("not a trace: {w:?}"),
        }
        assert_eq!(s.experiment.transforms.first_jobs, Some(5000));
        assert_eq!(s.experiment.machine, MachineSpec::Flat { procs: None });
        assert!(MoldableFields::of(&s).trace);
    }

    #[test]
    fn bad_values_name_their_field() {
        let cases = [
            ("sigma", "-1", "moldable-sigma", "σ:"),
            ("sigma", "x", "moldable-sigma", "σ: enter a number"),
            ("rf", "0.5", "moldable-rf", "Range factor RF:"),
            ("lf", "0", "moldable-lf", "Load factor LF:"),
            ("jobs", "ten", "moldable-jobs", "Jobs: enter a whole number"),
            ("seed", "-3", "moldable-seed", "Random seed:"),
        ];
        for (what, value, field, start) in cases {
            let mut f = fields();
            match what {
                "sigma" => f.sigma = value.into(),
                "rf" => f.range_factor = value.into(),
                "lf" => f.load_factor = value.into(),
                "jobs" => f.jobs = value.into(),
                _ => f.seed = value.into(),
            }
            let e = read(&f, None, None).unwrap_err();
            assert_eq!(e.field, field, "{what}={value}: {e:?}");
            assert!(
                e.message.starts_with(start),
                "{what}={value}: {}",
                e.message
            );
        }
        let mut f = fields();
        f.strategies.clear();
        assert_eq!(
            read(&f, None, None).unwrap_err().field,
            "moldable-strategies"
        );
        f.strategies = vec!["sjf".into()];
        let e = read(&f, None, None).unwrap_err();
        assert!(e.message.contains("sjf"), "{}", e.message);
    }
}
