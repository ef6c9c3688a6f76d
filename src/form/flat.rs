//! The flat-machine form (`#flat-mode`): the values typed in it → one [`Experiment`] per
//! (load factor, policy), in that order, with the caption of the results; or the first
//! [`FieldError`].

use super::format;
use super::sweep::{Sweep, SweepAxis};
use super::{lenient_number, FieldError, TraceFacts, MAX_JOBS, MAX_PROCS};
use crate::modes::flat::spec::ExperimentFile;
use crate::modes::flat::spec::{Experiment, MachineSpec, SwfSource, WorkloadSpec};
use crate::policy::order::{Estimates, PriorityExpression, QueueOrder};
use crate::policy::{PolicyAxes, PolicyKind};
use crate::workload::synthetic::{LublinParams, SyntheticModel};
use crate::workload::transform::{TimeWindow, Transforms};

/// The Lublin–Feitelson parameters the form edits: key in `LublinParams` (and in the
/// experiment JSON, under `workload.synthetic`), short label, tooltip naming the model's
/// constant. The input of key `k` has id `mp-k`.
pub const MODEL_PARAMS: [(&str, &str, &str); 16] = [
    ("serial_prob", "Serial jobs (probability)", "serial_prob: probability of a serial (1-processor) job (SERIAL_PROB_BATCH)"),
    ("pow2_prob", "Power-of-2 sizes (probability)", "pow2_prob: probability of a power-of-two parallel size (POW2_PROB_BATCH)"),
    ("uprob", "Smaller sizes (probability, uprob)", "uprob: probability of the lower stage [ulow, umed) of the two-stage uniform size (UPROB_BATCH)"),
    ("a1", "Run time, 1st gamma: shape (a1)", "a1: shape of the first run-time gamma (A1_BATCH)"),
    ("b1", "Run time, 1st gamma: scale (b1)", "b1: scale of the first run-time gamma (B1_BATCH)"),
    ("a2", "Run time, 2nd gamma: shape (a2)", "a2: shape of the second run-time gamma (A2_BATCH)"),
    ("b2", "Run time, 2nd gamma: scale (b2)", "b2: scale of the second run-time gamma (B2_BATCH)"),
    ("pa", "Gamma mix: slope (pa)", "pa: slope of the gamma mixing probability p = pa · size + pb (PA_BATCH)"),
    ("pb", "Gamma mix: intercept (pb)", "pb: intercept of the gamma mixing probability p = pa · size + pb (PB_BATCH)"),
    ("aarr", "Interarrival: shape (aarr)", "aarr: shape of the rush-hour log-interarrival gamma (AARR_BATCH)"),
    ("barr", "Interarrival: scale (barr)", "barr: scale of the rush-hour log-interarrival gamma (BARR_BATCH)"),
    ("anum", "Daily cycle: shape (anum)", "anum: shape of the daily-cycle gamma (ANUM_BATCH)"),
    ("bnum", "Daily cycle: scale (bnum)", "bnum: scale of the daily-cycle gamma, in half-hour buckets (BNUM_BATCH)"),
    ("arar", "Rush-hour ratio (arar)", "arar: arrive-rush-to-all ratio multiplying aarr (ARAR_BATCH)"),
    ("start_hour", "Start hour", "start_hour: hour of day at time 0, 0–23 (START)"),
    ("estimate_factor", "Estimate factor", "estimate_factor: user estimate = ⌈run time × factor⌉ (not in the model; 1 = exact)"),
];

/// Keys of [`MODEL_PARAMS`] that hold whole numbers.
pub fn is_integer_param(key: &str) -> bool {
    key == "start_hour"
}

/// The model parameters as JSON values by key (numbers shown as serde_json writes them).
pub fn param_values(params: &LublinParams) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(params) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

/// The flat form as typed: every text as in its input.
#[derive(Clone, Debug, Default)]
pub struct FlatFields {
    /// The ticked policies, in the form's order.
    pub policies: Vec<PolicyKind>,
    /// `#seed`.
    pub seed: String,
    /// `#sweep-from`, `#sweep-to`, `#sweep-step` when "Sweep" is ticked.
    pub sweep: Option<[String; 3]>,
    /// `#sweep-axis`: the key swept ([`crate::modes::flat::link::SweepAxis::key`]; empty: load factor).
    pub sweep_axis: String,
    /// `#load-factor`.
    pub load_factor: String,
    /// `#procs` (empty: the trace's size).
    pub procs: String,
    /// The synthetic workload is chosen (else the uploaded trace).
    pub synthetic: bool,
    /// `#jobs`.
    pub jobs: String,
    /// A trace's part (`transforms.first_jobs`, `transforms.time_window`): `#first-jobs`, and
    /// `#window-from` / `#window-to` in days after the first submit (empty: the whole trace).
    pub first_jobs: String,
    pub window_from: String,
    pub window_to: String,
    /// The model-parameter inputs (`#mp-KEY`): key and text.
    pub params: Vec<(String, String)>,
    /// The policy builder: `#queue-order` (a built-in order's name, or `expression`),
    /// `#queue-expr` (the priority written), `#backfill-order` (empty: the queue order),
    /// `#estimates`. Empty strings: the papers' policies.
    pub order: String,
    pub expression: String,
    pub backfill_order: String,
    pub estimates: String,
}

/// The value of `#queue-order` that means "a priority you write" (`#queue-expr`).
pub const WRITTEN_ORDER: &str = "expression";

/// The builder's fields for `axes` (a share link's): `#queue-order`, `#queue-expr`,
/// `#backfill-order`, `#estimates`.
pub fn axes_fields(axes: &PolicyAxes) -> [String; 4] {
    let (order, expression) = match &axes.order {
        QueueOrder::Builtin(_) => (axes.order.name(), String::new()),
        QueueOrder::Expression(e) => (WRITTEN_ORDER.to_string(), e.text().to_string()),
    };
    [
        order,
        expression,
        axes.backfill_order
            .as_ref()
            .map(QueueOrder::name)
            .unwrap_or_default(),
        axes.estimates.name(),
    ]
}

/// The policy axes of the builder's fields; the error names the field (for an expression, its
/// column).
pub fn policy_axes(f: &FlatFields) -> Result<PolicyAxes, FieldError> {
    let mut axes = PolicyAxes::default();
    let order = f.order.trim();
    if order == WRITTEN_ORDER {
        axes.order = match PriorityExpression::parse(&f.expression) {
            Ok(e) => QueueOrder::Expression(Box::new(e)),
            Err(e) => return Err(FieldError::new("queue-expr", format!("Priority, {e}."))),
        };
    } else if !order.is_empty() {
        axes.order = QueueOrder::parse(order)
            .map_err(|e| FieldError::new("queue-order", format!("Queue order: {e}.")))?;
    }
    if !f.backfill_order.trim().is_empty() {
        axes.backfill_order = Some(
            QueueOrder::parse(&f.backfill_order)
                .map_err(|e| FieldError::new("backfill-order", format!("Backfill order: {e}.")))?,
        );
    }
    if !f.estimates.trim().is_empty() {
        axes.estimates = Estimates::parse(&f.estimates)
            .map_err(|e| FieldError::new("estimates", format!("Estimates: {e}.")))?;
    }
    Ok(axes)
}

/// The runs of one click on Run.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatBatch {
    /// One run per (load factor, policy), load factors outer.
    pub runs: Vec<(PolicyKind, Experiment)>,
    /// Name of the uploaded trace the runs read.
    pub trace: Option<String>,
    /// The caption of the results (workload, load, seed).
    pub caption: String,
    /// The sweep, when one was asked for.
    pub sweep: Option<Sweep>,
}

/// The share state of a batch's runs (one per policy and load factor): the first run's
/// experiment, the policies in order without repeats, the sweep. `None` for no runs.
pub fn share_state(
    runs: &[(PolicyKind, Experiment)],
    sweep: Option<Sweep>,
) -> Option<crate::modes::flat::link::ShareState> {
    let (_, first) = runs.first()?;
    let mut policies: Vec<PolicyKind> = Vec::new();
    for (p, _) in runs {
        if !policies.contains(p) {
            policies.push(*p);
        }
    }
    Some(crate::modes::flat::link::ShareState::new(first.clone(), policies).with_sweep(sweep))
}

/// Reads the model-parameter texts over `base`; a value that cannot be read names its key.
pub fn read_params(
    params: &[(String, String)],
    base: LublinParams,
) -> Result<LublinParams, FieldError> {
    let mut values = param_values(&base);
    for (key, text) in params {
        let id = format!("mp-{key}");
        let what = format!("workload.synthetic.{key}");
        let v = if is_integer_param(key) {
            serde_json::Value::from(lenient_number::<u32>(&id, text, &what)?)
        } else {
            let x: f64 = lenient_number(&id, text, &what)?;
            if !x.is_finite() {
                return Err(FieldError::new(
                    id,
                    format!(
                        "{what}: {} is not a finite number.",
                        crate::limits::echo_quoted(text)
                    ),
                ));
            }
            serde_json::Value::from(x)
        };
        values.insert(key.clone(), v);
    }
    serde_json::from_value(serde_json::Value::Object(values))
        .map_err(|e| FieldError::new("model-params", format!("Model parameters: {e}")))
}

/// The input of a configuration error's key, or the form.
fn field_of_key(key: &str) -> String {
    match key {
        "seed" => "seed".into(),
        "machine.procs" | "workload.synthetic.procs" => "procs".into(),
        "transforms.load_factor" => "load-factor".into(),
        "workload.synthetic.jobs" => "jobs".into(),
        "transforms.first_jobs" => "first-jobs".into(),
        k if k.starts_with("transforms.time_window") => "window-from".into(),
        k => match k.strip_prefix("workload.synthetic.") {
            Some(p) if MODEL_PARAMS.iter().any(|(m, _, _)| *m == p) => format!("mp-{p}"),
            _ => "experiment".into(),
        },
    }
}

/// Seconds per day (the time window's fields are in days).
const DAY: f64 = 86_400.0;

/// The part of a trace the form asks for: its first jobs and its time window (both `None`
/// when the fields are empty); the error names the field.
pub fn trace_part(f: &FlatFields) -> Result<(Option<usize>, Option<TimeWindow>), FieldError> {
    let first = f.first_jobs.trim();
    let first_jobs = if first.is_empty() {
        None
    } else {
        let n: usize = lenient_number("first-jobs", first, "First jobs (a whole number ≥ 1)")?;
        if n == 0 {
            return Err(FieldError::new(
                "first-jobs",
                "First jobs must be at least 1 (leave it empty for every job).",
            ));
        }
        Some(n)
    };
    let (from, to) = (f.window_from.trim(), f.window_to.trim());
    let window = if from.is_empty() && to.is_empty() {
        None
    } else {
        let start: f64 = if from.is_empty() {
            0.0
        } else {
            lenient_number("window-from", from, "Time window from (days)")?
        };
        let end: f64 = if to.is_empty() {
            crate::limits::MAX_TIME
        } else {
            let d: f64 = lenient_number("window-to", to, "Time window to (days)")?;
            d * DAY
        };
        let start = start * DAY;
        if !(start.is_finite() && start >= 0.0) {
            return Err(FieldError::new(
                "window-from",
                "Time window: from must be a number of days ≥ 0.",
            ));
        }
        if !(end.is_finite() && end > start) {
            return Err(FieldError::new(
                "window-to",
                "Time window: to must be later than from.",
            ));
        }
        Some(TimeWindow { start, end })
    };
    Ok((first_jobs, window))
}

/// The experiments of the flat form. `template` is the experiment of the share link that
/// filled the form, if any (the base of the workload it describes); `trace` the uploaded
/// trace, if any.
pub fn experiments(
    f: &FlatFields,
    template: Option<&Experiment>,
    trace: Option<&TraceFacts>,
) -> Result<FlatBatch, FieldError> {
    let policies = &f.policies;
    if policies.is_empty() {
        return Err(FieldError::new(
            "policy-fcfs",
            "Choose at least one policy.",
        ));
    }
    let seed: u64 = lenient_number("seed", &f.seed, "Random seed (a whole number ≥ 0)")?;
    let axes = policy_axes(f)?;
    let sweep = match &f.sweep {
        Some([from, to, step]) => Some(Sweep {
            axis: SweepAxis::parse(&f.sweep_axis).ok_or_else(|| {
                FieldError::new(
                    "sweep-axis",
                    format!("Sweep: unknown axis {:?}.", f.sweep_axis),
                )
            })?,
            from: lenient_number("sweep-from", from, "Sweep from")?,
            to: lenient_number("sweep-to", to, "Sweep to")?,
            step: lenient_number("sweep-step", step, "Sweep step")?,
        }),
        None => None,
    };
    let axis = sweep.map(|s| s.axis).unwrap_or_default();
    // The swept values of another axis than the load factor; the load factor is then the
    // field's.
    let (loads, others) = match &sweep {
        Some(s) if s.axis == SweepAxis::LoadFactor => (s.checked_points()?, vec![None]),
        Some(s) => (
            vec![lenient_number(
                "load-factor",
                &f.load_factor,
                "Load factor",
            )?],
            s.checked_points()?.into_iter().map(Some).collect(),
        ),
        None => (
            vec![lenient_number(
                "load-factor",
                &f.load_factor,
                "Load factor",
            )?],
            vec![None],
        ),
    };
    for &load_factor in &loads {
        if let Err(m) = crate::limits::check_load_factor(load_factor) {
            return Err(FieldError::new(
                if sweep.is_some_and(|s| s.axis == SweepAxis::LoadFactor) {
                    "sweep-from"
                } else {
                    "load-factor"
                },
                format!("Load factor {m}."),
            ));
        }
    }
    let load_factor = loads.first().copied().unwrap_or(1.0);
    let procs: Option<u32> = if f.procs.trim().is_empty() {
        None
    } else {
        let p: u32 = lenient_number("procs", &f.procs, "Machine size (processors)")?;
        if p == 0 || p > MAX_PROCS {
            return Err(FieldError::new(
                "procs",
                format!(
                    "Machine size must be between 1 and {} processors.",
                    format::count(u64::from(MAX_PROCS))
                ),
            ));
        }
        Some(p)
    };
    // The link's experiment is the base only for its own kind of workload.
    let template =
        template.filter(|t| matches!(t.workload, WorkloadSpec::Synthetic(_)) == f.synthetic);
    let transforms = Transforms {
        load_factor,
        ..template.map(|t| t.transforms.clone()).unwrap_or_default()
    };
    let synthetic_template = template.and_then(|t| match &t.workload {
        WorkloadSpec::Synthetic(m) => Some((m, &t.machine)),
        WorkloadSpec::Swf(_) => None,
    });
    let swf_template = template.and_then(|t| match &t.workload {
        WorkloadSpec::Swf(src) => Some(src),
        WorkloadSpec::Synthetic(_) => None,
    });
    let (workload, machine, trace_name, what) = if let (true, Some((model, _))) = (
        f.synthetic,
        synthetic_template.filter(|(m, _)| !matches!(m, SyntheticModel::Lublin(_))),
    ) {
        // A model the form cannot edit (from a share link): run it as the link says.
        let name = serde_json::to_value(model)
            .ok()
            .and_then(|v| v.get("model").and_then(|m| m.as_str()).map(String::from))
            .unwrap_or_default();
        let what = match procs {
            Some(p) => format!(
                "synthetic workload ({name}) from the share link, {} processors",
                format::count(u64::from(p))
            ),
            None => format!("synthetic workload ({name}) from the share link"),
        };
        (
            WorkloadSpec::Synthetic(model.clone()),
            MachineSpec::Flat { procs },
            None,
            what,
        )
    } else if f.synthetic {
        let jobs: usize = lenient_number("jobs", &f.jobs, "Jobs")?;
        if jobs == 0 || jobs > MAX_JOBS {
            return Err(FieldError::new(
                "jobs",
                format!(
                    "Jobs must be between 1 and {}.",
                    format::count(MAX_JOBS as u64)
                ),
            ));
        }
        let Some(procs) = procs else {
            return Err(FieldError::new(
                "procs",
                "Machine size: enter the number of processors.",
            ));
        };
        let (base, machine) = match synthetic_template {
            Some((SyntheticModel::Lublin(p), machine)) => (p.clone(), machine.clone()),
            _ => (LublinParams::default(), MachineSpec::Flat { procs: None }),
        };
        let params = LublinParams {
            jobs,
            procs,
            ..read_params(&f.params, base)?
        };
        let what = format!(
            "Lublin–Feitelson synthetic workload, {} jobs, {} processors",
            format::count(jobs as u64),
            format::count(u64::from(procs))
        );
        (
            WorkloadSpec::Synthetic(SyntheticModel::Lublin(params)),
            machine,
            None,
            what,
        )
    } else {
        let Some(t) = trace else {
            return Err(FieldError::new(
                "upload",
                "Upload a trace first (.swf or .swf.gz).",
            ));
        };
        let name = t.name.clone();
        if let Some(p) = procs.filter(|&p| p < t.max_job_procs) {
            return Err(FieldError::new(
                "procs",
                format!(
                    "Machine size: {p} processors is smaller than the largest job of {name} \
                     ({} processors). Enlarge the machine, or leave the field empty to use the \
                     trace's.",
                    format::count(u64::from(t.max_job_procs))
                ),
            ));
        }
        let machine_procs = procs
            .map(u64::from)
            .or(t.header_procs)
            .unwrap_or(u64::from(t.max_job_procs));
        let what = format!("{name}, {} processors", format::count(machine_procs));
        let lenient = swf_template.is_some_and(|s| s.lenient);
        (
            WorkloadSpec::Swf(SwfSource {
                name: Some(name.clone()),
                sha256: Some(t.sha256.clone()).filter(|h| h.len() == 64),
                lenient,
                ..SwfSource::default()
            }),
            MachineSpec::Flat { procs },
            Some(name),
            what,
        )
    };
    let mut transforms = transforms;
    if !f.synthetic {
        (transforms.first_jobs, transforms.time_window) = trace_part(f)?;
    }
    let mut runs = Vec::new();
    for &lf in &loads {
        for x in &others {
            for p in policies {
                let mut exp = Experiment::new(workload.clone(), *p);
                exp.queue = axes.clone();
                exp.transforms = Transforms {
                    load_factor: lf,
                    ..transforms.clone()
                };
                exp.machine = machine.clone();
                exp.seed = seed;
                exp.name = template.and_then(|t| t.name.clone());
                if let Some(x) = x {
                    axis.apply(&mut exp, *x)
                        .map_err(|e| FieldError::new("sweep-axis", e.to_string()))?;
                }
                exp.validate().map_err(|e| {
                    let field = match (&sweep, field_of_key(&e.key)) {
                        (Some(s), f) if f == s.axis.key().replace('_', "-") => {
                            "sweep-from".to_string()
                        }
                        (_, f) => f,
                    };
                    FieldError::new(field, e.to_string())
                })?;
                runs.push((*p, exp));
            }
        }
    }
    let points = loads.len() * others.len();
    let load_text = match &sweep {
        Some(s) => format!(
            "{} {} to {} step {} ({points} points)",
            s.axis.label().to_lowercase(),
            s.from,
            s.to,
            s.step,
        ),
        None => format!("load factor {load_factor}"),
    };
    let seed_text = match &sweep {
        Some(s) if s.axis == SweepAxis::Seed => String::new(),
        _ => format!(" · seed {seed}"),
    };
    let load_text = match &sweep {
        Some(s) if s.axis != SweepAxis::LoadFactor => {
            format!("load factor {load_factor} · {load_text}")
        }
        _ => load_text,
    };
    let mut caption = format!("{what} · {load_text}{seed_text}");
    if !axes.is_default() {
        caption = format!("{caption} · {}", axes.label());
    }
    if let Some(name) = template.and_then(|t| t.name.as_deref()) {
        caption = format!("{name} — {caption}");
    }
    Ok(FlatBatch {
        runs,
        trace: trace_name,
        caption,
        sweep,
    })
}
