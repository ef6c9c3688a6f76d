//! Running a moldable experiment (Srinivasan et al. §2–5): a rigid workload (a trace or
//! a synthetic model, with the flat mode's transforms — `first_jobs`, `load_factor` for the
//! paper's LF 100/125/150 % — and machine) made moldable by Downey's model with one σ and one
//! range factor, or by user-supplied scalability profiles ([`MoldableModel`]), then scheduled
//! by one or more strategies ([`MoldableStrategyKind`]) and measured against rigid
//! conservative backfilling: overall and per-category mean turnaround as % change (§2.3), plus
//! the core summary. `schedlab moldable` and the envelope's `moldable` mode go through here.

use serde::{Deserialize, Serialize};

use crate::base::Registered;
use crate::error::{Engine as EngineKind, Error};
use crate::limits::Limits;
use crate::metrics::{category_stats_by, CategoryStat, JobRecord, Summary, CATEGORY_COUNT};
use crate::modes::flat::run::{prepare_with, Prepared, TraceInput};
use crate::modes::flat::spec::{ConfigError, WorkloadSpec};
use crate::modes::moldable::spec::{MoldableExperiment, MAX_STRATEGIES};
use crate::modes::{Mode, ModeRun, SimOptions, Stepper, Traces};
use crate::policy::moldable::MoldableStrategyKind;
use crate::sim::instant::Progress;
use crate::sim::moldable_engine::{MoldableResult, MoldableSimulation};
use crate::sim::moldable_invariants;
use crate::workload::moldable::{MoldableJob, MoldableModel};

/// A rigid workload prepared for the machine and its moldable view.
#[derive(Clone, Debug)]
pub struct PreparedMoldable {
    pub prepared: Prepared,
    pub shapes: Vec<MoldableJob>,
}

/// Loads, transforms and fits the workload (as `schedlab run` does), then makes it moldable.
pub fn prepare_moldable(
    exp: &MoldableExperiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<PreparedMoldable, Error> {
    exp.validate_with(limits)?;
    let prepared = prepare_with(&exp.flat(), trace, limits)?;
    let shapes = exp.model.apply(&prepared.workload.jobs, prepared.procs);
    Ok(PreparedMoldable { prepared, shapes })
}

/// The simulation of `kind` on a prepared workload, not yet run (the page's worker steps it
/// in slices; [`simulate`] runs it to the end).
pub fn simulation(
    p: &PreparedMoldable,
    kind: MoldableStrategyKind,
) -> Result<MoldableSimulation, Error> {
    MoldableSimulation::moldable_by_kind(
        p.prepared.workload.jobs.clone(),
        p.shapes.clone(),
        p.prepared.procs,
        kind,
    )
    .map_err(|e| sim_error(kind, &e))
}

fn sim_error(kind: MoldableStrategyKind, e: &dyn std::fmt::Display) -> Error {
    Error::simulation(EngineKind::Moldable, kind.as_str(), e)
}

/// Checks a finished run's invariants (an error names the first violation).
pub fn checked(
    kind: MoldableStrategyKind,
    result: MoldableResult,
) -> Result<MoldableResult, Error> {
    let violations = moldable_invariants::check(&result);
    if let Some(first) = violations.first() {
        return Err(sim_error(
            kind,
            &format!(
                "{} invariant violation(s), the first: {first}",
                violations.len()
            ),
        ));
    }
    Ok(result)
}

/// Runs `kind` on a prepared workload; the run's invariants are checked.
pub fn simulate(p: &PreparedMoldable, kind: MoldableStrategyKind) -> Result<MoldableResult, Error> {
    let result = simulation(p, kind)?
        .run_to_end()
        .map_err(|e| sim_error(kind, &e))?;
    checked(kind, result)
}

/// The metrics of one moldable run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldableOutput {
    pub strategy: String,
    pub label: String,
    pub procs: u32,
    /// The core summary (utilisation by the counts the jobs ran on).
    pub summary: Summary,
    /// Mean turnaround per weight category, a job's category by its rigid weight (the trace's
    /// processors × run time, §2.3), whatever count it ran on.
    pub categories: Vec<CategoryStat>,
    /// Mean over jobs of chosen count / the trace's count.
    pub mean_procs_ratio: f64,
    /// Partition sizes evaluated (§4.1's cost).
    pub evaluations: u64,
}

/// Metrics of a finished run.
pub fn measure(result: &MoldableResult, dropped: usize) -> MoldableOutput {
    let mut records = Vec::with_capacity(result.jobs.len());
    let mut weights = Vec::with_capacity(result.jobs.len());
    let mut ratio = 0.0;
    for ((job, o), &x) in result.jobs.iter().zip(&result.outcomes).zip(&result.chosen) {
        if o.start.is_nan() {
            continue;
        }
        let mut r = JobRecord::of(job, o);
        r.procs = x;
        records.push(r);
        weights.push(f64::from(job.procs) * job.duration());
        ratio += f64::from(x) / f64::from(job.procs.max(1));
    }
    let n = records.len().max(1) as f64;
    let kind = MoldableStrategyKind::parse(&result.strategy).ok();
    MoldableOutput {
        label: kind.map_or_else(|| result.strategy.clone(), |k| k.entry().label.to_string()),
        strategy: result.strategy.clone(),
        procs: result.procs,
        summary: Summary::from_records(&records, result.procs, dropped),
        categories: category_stats_by(&records, |i, _| weights[i]),
        mean_procs_ratio: ratio / n,
        evaluations: result.evaluations,
    }
}

/// % change of mean turnaround against the reference (negative = better).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub overall_pct: f64,
    /// One per category; `null` where the category has no job.
    pub categories_pct: Vec<Option<f64>>,
}

fn pct(reference: f64, value: f64) -> f64 {
    if reference > 0.0 {
        100.0 * (value - reference) / reference
    } else {
        0.0
    }
}

/// `output` against `reference` (same workload): overall and per category.
pub fn change(reference: &MoldableOutput, output: &MoldableOutput) -> Change {
    Change {
        overall_pct: pct(
            reference.summary.mean_turnaround,
            output.summary.mean_turnaround,
        ),
        categories_pct: (0..CATEGORY_COUNT)
            .map(|k| {
                let (r, o) = (reference.categories.get(k)?, output.categories.get(k)?);
                (r.jobs > 0 && o.jobs > 0).then(|| pct(r.mean_turnaround, o.mean_turnaround))
            })
            .collect(),
    }
}

/// One strategy of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyRun {
    pub output: MoldableOutput,
    /// Against rigid conservative backfilling.
    pub change: Change,
}

/// A comparison: the rigid conservative reference and every strategy asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldableReport {
    pub procs: u32,
    pub jobs: usize,
    pub dropped: usize,
    pub model: MoldableModel,
    pub load_factor: f64,
    pub reference: MoldableOutput,
    pub runs: Vec<StrategyRun>,
}

/// One job of a moldable run as the page's Gantt chart and the per-job CSV show it: the core
/// record (its `procs` the count the job ran on), the trace's count and the job's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldJobRecord {
    #[serde(flatten)]
    pub record: JobRecord,
    /// The count the trace ran the job on (its rigid size).
    pub trace_procs: u32,
    /// The job's range of counts (§2.2).
    pub min: u32,
    pub max: u32,
}

impl MoldJobRecord {
    /// The CSV header, in field order.
    pub const CSV_HEADER: &'static str =
        "strategy,id,submit,start,end,procs,trace_procs,min,max,run_time,wait,turnaround";

    /// This job as a CSV line of strategy `strategy` (no newline).
    pub fn csv_line(&self, strategy: &str) -> String {
        let r = &self.record;
        format!(
            "{strategy},{},{},{},{},{},{},{},{},{},{},{}",
            r.id,
            r.submit,
            r.start,
            r.end,
            r.procs,
            self.trace_procs,
            self.min,
            self.max,
            r.end - r.start,
            r.wait,
            r.turnaround
        )
    }
}

/// The per-job schedule of a finished run (jobs that started), in arrival order.
pub fn schedule_of(result: &MoldableResult) -> Vec<MoldJobRecord> {
    result
        .jobs
        .iter()
        .zip(&result.outcomes)
        .zip(result.chosen.iter().zip(&result.shapes))
        .filter(|((_, o), _)| !o.start.is_nan())
        .map(|((job, o), (&x, shape))| {
            let mut record = JobRecord::of(job, o);
            record.procs = x;
            MoldJobRecord {
                record,
                trace_procs: job.procs,
                min: shape.min,
                max: shape.max,
            }
        })
        .collect()
}

/// The schedule of one strategy of a comparison (the page's Gantt chart).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoldSchedule {
    pub strategy: MoldableStrategyKind,
    pub jobs: Vec<MoldJobRecord>,
}

/// Runs the reference and `strategies` on one prepared workload.
pub fn compare(
    p: &PreparedMoldable,
    model: &MoldableModel,
    load_factor: f64,
    strategies: &[MoldableStrategyKind],
) -> Result<MoldableReport, Error> {
    let mut c = Comparison::new(p, model, load_factor)?;
    for &k in strategies {
        c.add(p, k)?;
    }
    Ok(c.report)
}

/// A comparison built one strategy at a time (the page's worker yields between strategies):
/// the report so far and, where asked, each run's schedule.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub report: MoldableReport,
    /// The schedule of the reference, then of every strategy added, when kept.
    pub schedules: Vec<MoldSchedule>,
    keep_schedules: bool,
    dropped: usize,
}

impl Comparison {
    /// Runs the rigid conservative reference; no strategy yet.
    pub fn new(
        p: &PreparedMoldable,
        model: &MoldableModel,
        load_factor: f64,
    ) -> Result<Comparison, Error> {
        let reference = simulate(p, MoldableStrategyKind::RigidConservative)?;
        Ok(Comparison::of_reference(
            p,
            model,
            load_factor,
            &reference,
            false,
        ))
    }

    /// A comparison over the finished rigid conservative run `reference` of `p`, keeping
    /// every run's per-job schedule if `keep_schedules`.
    pub fn of_reference(
        p: &PreparedMoldable,
        model: &MoldableModel,
        load_factor: f64,
        reference: &MoldableResult,
        keep_schedules: bool,
    ) -> Comparison {
        let dropped = p.prepared.workload.dropped.total();
        let schedules = if keep_schedules {
            vec![MoldSchedule {
                strategy: MoldableStrategyKind::RigidConservative,
                jobs: schedule_of(reference),
            }]
        } else {
            Vec::new()
        };
        Comparison {
            report: MoldableReport {
                procs: p.prepared.procs,
                jobs: p.prepared.workload.jobs.len(),
                dropped,
                model: model.clone(),
                load_factor,
                reference: measure(reference, dropped),
                runs: Vec::new(),
            },
            schedules,
            keep_schedules,
            dropped,
        }
    }

    /// Runs strategy `kind` and adds it (rigid conservative reuses the reference).
    pub fn add(&mut self, p: &PreparedMoldable, kind: MoldableStrategyKind) -> Result<(), Error> {
        if kind == MoldableStrategyKind::RigidConservative {
            self.add_reference_again();
        } else {
            self.add_result(kind, &simulate(p, kind)?);
        }
        Ok(())
    }

    /// Adds rigid conservative as a strategy of its own (its run is the reference).
    pub fn add_reference_again(&mut self) {
        if self.keep_schedules {
            let jobs = self
                .schedules
                .first()
                .map(|s| s.jobs.clone())
                .unwrap_or_default();
            self.schedules.push(MoldSchedule {
                strategy: MoldableStrategyKind::RigidConservative,
                jobs,
            });
        }
        let output = self.report.reference.clone();
        self.push(output);
    }

    /// Adds the finished (and [`checked`]) run `result` of strategy `kind`.
    pub fn add_result(&mut self, kind: MoldableStrategyKind, result: &MoldableResult) {
        if self.keep_schedules {
            self.schedules.push(MoldSchedule {
                strategy: kind,
                jobs: schedule_of(result),
            });
        }
        let output = measure(result, self.dropped);
        self.push(output);
    }

    fn push(&mut self, output: MoldableOutput) {
        self.report.runs.push(StrategyRun {
            change: change(&self.report.reference, &output),
            output,
        });
    }
}

/// Loads the experiment's workload and compares `strategies` (the experiment's own when
/// empty) with rigid conservative backfilling.
pub fn run_moldable_with(
    exp: &MoldableExperiment,
    strategies: &[MoldableStrategyKind],
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<MoldableReport, Error> {
    if strategies.len() > MAX_STRATEGIES {
        return Err(Error::Config(ConfigError {
            key: "strategies".into(),
            message: format!("at most {MAX_STRATEGIES} strategies"),
        }));
    }
    let p = prepare_moldable(exp, trace, limits)?;
    let own = [exp.strategy];
    let list = if strategies.is_empty() {
        &own[..]
    } else {
        strategies
    };
    compare(&p, &exp.model, exp.transforms.load_factor, list)
}

/// The results as CSV, one row per run (the reference first, then every strategy): mean
/// turnaround and wait, utilisation, mean processors given / the trace's, partition sizes
/// evaluated, the % change of mean turnaround against the reference overall and per weight
/// category (empty where a category has no job).
pub fn results_csv(report: &MoldableReport) -> String {
    let mut out = String::from(
        "strategy,reference,jobs,mean_turnaround,mean_wait,utilization,mean_procs_ratio,evaluations,change_pct",
    );
    for k in 0..CATEGORY_COUNT {
        out.push_str(&format!(",change_pct_category_{k}"));
    }
    out.push('\n');
    let none = Change {
        overall_pct: 0.0,
        categories_pct: report
            .reference
            .categories
            .iter()
            .map(|c| (c.jobs > 0).then_some(0.0))
            .collect(),
    };
    let rows = std::iter::once((&report.reference, &none, true))
        .chain(report.runs.iter().map(|r| (&r.output, &r.change, false)));
    for (o, c, is_ref) in rows {
        let s = &o.summary;
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{}",
            o.strategy,
            is_ref,
            s.jobs,
            s.mean_turnaround,
            s.mean_wait,
            s.utilization,
            o.mean_procs_ratio,
            o.evaluations,
            c.overall_pct
        ));
        for k in 0..CATEGORY_COUNT {
            out.push(',');
            if let Some(Some(v)) = c.categories_pct.get(k) {
                out.push_str(&v.to_string());
            }
        }
        out.push('\n');
    }
    out
}

/// The per-job schedules as CSV ([`MoldJobRecord::CSV_HEADER`]), one block per schedule.
pub fn jobs_csv(schedules: &[MoldSchedule]) -> String {
    let mut out = String::from(MoldJobRecord::CSV_HEADER);
    out.push('\n');
    for s in schedules {
        for j in &s.jobs {
            out.push_str(&j.csv_line(s.strategy.as_str()));
            out.push('\n');
        }
    }
    out
}

/// The moldable mode behind the one [`ModeRun`] shape: a run is rigid conservative
/// backfilling (the reference), then the experiment's strategy on the same moldable workload.
pub struct Moldable;

/// The reference and the strategy, simulated one after the other.
pub struct MoldableStepper<'p> {
    prepared: &'p PreparedMoldable,
    pending: std::vec::IntoIter<MoldableStrategyKind>,
    current: Option<(MoldableStrategyKind, MoldableSimulation)>,
    done: Vec<(MoldableStrategyKind, MoldableResult)>,
    runs: usize,
    /// The simulated time the last finished run ended at.
    last_now: f64,
}

impl MoldableStepper<'_> {
    /// Starts the next run; `false` when none is left.
    fn next(&mut self) -> Result<bool, Error> {
        let Some(kind) = self.pending.next() else {
            return Ok(false);
        };
        self.current = Some((kind, simulation(self.prepared, kind)?));
        Ok(true)
    }
}

impl Stepper for MoldableStepper<'_> {
    fn step_instants(&mut self, n: usize) -> Result<bool, Error> {
        if self.current.is_none() && !self.next()? {
            return Ok(true);
        }
        let Some((kind, sim)) = self.current.as_mut() else {
            return Ok(true);
        };
        let kind = *kind;
        if !sim.step_instants(n).map_err(|e| sim_error(kind, &e))? {
            return Ok(false);
        }
        if let Some((kind, sim)) = self.current.take() {
            self.last_now = sim.progress().now;
            self.done.push((kind, checked(kind, sim.into_result())?));
        }
        Ok(self.pending.len() == 0)
    }

    fn stage(&self) -> usize {
        // The run going, else the last one finished.
        self.done.len() - usize::from(self.current.is_none() && !self.done.is_empty())
    }

    fn progress(&self) -> Progress {
        let jobs = self.prepared.prepared.workload.jobs.len();
        let before = jobs * self.done.len();
        let (completed, started, now) =
            self.current
                .as_ref()
                .map_or((0, 0, self.last_now), |(_, sim)| {
                    let p = sim.progress();
                    (p.completed, p.started, p.now)
                });
        Progress {
            completed: before + completed,
            started: before + started,
            total: jobs * self.runs,
            now,
        }
    }
}

impl ModeRun for Moldable {
    type Experiment = MoldableExperiment;
    type Prepared = PreparedMoldable;
    type Simulation<'p> = MoldableStepper<'p>;
    type Simulated = Vec<(MoldableStrategyKind, MoldableResult)>;
    type Output = MoldableReport;

    const MODE: Mode = Mode::Moldable;

    fn experiment_json(exp: &MoldableExperiment) -> String {
        exp.to_json()
    }

    fn workloads(exp: &MoldableExperiment) -> Vec<(String, &WorkloadSpec)> {
        vec![("experiment.workload".into(), &exp.workload)]
    }

    fn title(exp: &MoldableExperiment) -> String {
        format!(
            "{} against rigid conservative backfilling",
            exp.strategy.entry().label
        )
    }

    fn label(exp: &MoldableExperiment) -> String {
        exp.strategy.as_str().to_string()
    }

    fn prepare(
        exp: &MoldableExperiment,
        traces: &mut Traces<'_>,
        limits: &Limits,
    ) -> Result<PreparedMoldable, Error> {
        let trace = traces(&exp.workload)?;
        prepare_moldable(exp, trace, limits)
    }

    fn simulate<'p>(
        exp: &'p MoldableExperiment,
        prepared: &'p mut PreparedMoldable,
        _: SimOptions,
    ) -> Result<MoldableStepper<'p>, Error> {
        let mut kinds = vec![MoldableStrategyKind::RigidConservative];
        if exp.strategy != MoldableStrategyKind::RigidConservative {
            kinds.push(exp.strategy);
        }
        Ok(MoldableStepper {
            prepared,
            runs: kinds.len(),
            pending: kinds.into_iter(),
            current: None,
            done: Vec::new(),
            last_now: 0.0,
        })
    }

    fn finish(mut sim: MoldableStepper<'_>) -> Result<Self::Simulated, Error> {
        while !sim.step_instants(usize::MAX)? {}
        Ok(sim.done)
    }

    fn measure(
        exp: &MoldableExperiment,
        p: PreparedMoldable,
        runs: Self::Simulated,
    ) -> Result<MoldableReport, Error> {
        let mut runs = runs.into_iter();
        let Some((_, reference)) = runs.next() else {
            return Err(sim_error(exp.strategy, &"no reference run"));
        };
        let mut c = Comparison::of_reference(
            &p,
            &exp.model,
            exp.transforms.load_factor,
            &reference,
            false,
        );
        match runs.next() {
            Some((kind, result)) => c.add_result(kind, &result),
            None => c.add_reference_again(),
        }
        Ok(c.report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::flat::spec::MachineSpec;
    use crate::modes::moldable::link::MoldableShare;
    use crate::modes::moldable::spec::*;
    use crate::workload::synthetic::SyntheticModel;

    fn exp() -> MoldableExperiment {
        MoldableExperiment::new(
            WorkloadSpec::Synthetic(SyntheticModel::default()),
            MoldableModel::Downey {
                sigma: 1.0,
                range_factor: 2.0,
            },
            MoldableStrategyKind::Combined,
        )
    }

    #[test]
    fn a_comparison_built_step_by_step_equals_compare_and_keeps_the_schedules() {
        let mut e = exp();
        e.workload = WorkloadSpec::Synthetic(SyntheticModel::Lublin(
            crate::workload::synthetic::LublinParams {
                jobs: 300,
                procs: 64,
                ..Default::default()
            },
        ));
        e.machine = MachineSpec::Flat { procs: Some(64) };
        e.seed = 3;
        let kinds = [
            MoldableStrategyKind::SubmitGreedy,
            MoldableStrategyKind::RigidConservative,
            MoldableStrategyKind::Combined,
        ];
        let p = prepare_moldable(&e, None, &Limits::DEFAULT).unwrap();
        let whole = compare(&p, &e.model, 1.0, &kinds).unwrap();
        let reference = simulate(&p, MoldableStrategyKind::RigidConservative).unwrap();
        let mut c = Comparison::of_reference(&p, &e.model, 1.0, &reference, true);
        for k in kinds {
            if k == MoldableStrategyKind::RigidConservative {
                c.add_reference_again();
            } else {
                c.add_result(k, &simulate(&p, k).unwrap());
            }
        }
        assert_eq!(c.report, whole);
        // The reference, then one schedule per strategy, every job inside its range and
        // running T(chosen count).
        let names: Vec<&str> = c.schedules.iter().map(|s| s.strategy.as_str()).collect();
        assert_eq!(
            names,
            [
                "rigid_conservative",
                "submit_greedy",
                "rigid_conservative",
                "combined"
            ]
        );
        assert_eq!(whole.runs[1].change.overall_pct, 0.0);
        for s in &c.schedules {
            assert_eq!(s.jobs.len(), 300);
            for (j, (job, shape)) in s
                .jobs
                .iter()
                .zip(p.prepared.workload.jobs.iter().zip(&p.shapes))
            {
                let r = &j.record;
                assert_eq!(r.id, job.id);
                assert!(j.min <= r.procs && r.procs <= j.max, "{j:?}");
                assert_eq!(j.trace_procs, job.procs);
                assert_eq!(r.end, r.start + shape.run_time(job, r.procs), "{j:?}");
                assert!(r.start >= r.submit);
            }
        }
        // Rigid conservative runs every job on the trace's count.
        assert!(c.schedules[0]
            .jobs
            .iter()
            .all(|j| j.record.procs == j.trace_procs));
        // Combined molds some job to another count.
        assert!(c.schedules[3]
            .jobs
            .iter()
            .any(|j| j.record.procs != j.trace_procs));
        let csv = results_csv(&whole);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 1 + 3);
        assert!(lines[0].starts_with("strategy,reference,jobs,mean_turnaround"));
        assert!(lines[1].starts_with("rigid_conservative,true,300,"));
        assert!(lines[2].starts_with("submit_greedy,false,300,"));
        assert_eq!(lines[0].split(',').count(), lines[4].split(',').count());
        let jobs = jobs_csv(&c.schedules);
        assert_eq!(jobs.lines().count(), 1 + 4 * 300);
        let first = &c.schedules[3].jobs[0];
        assert!(jobs.contains(&first.csv_line("combined")));
    }

    #[test]
    fn experiments_round_trip_and_errors_name_the_key() {
        let e = exp();
        assert_eq!(MoldableExperiment::from_json(&e.to_json()), Ok(e.clone()));
        let mut v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        v["model"]["downey"]["sigma"] = serde_json::json!(-1);
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "model.downey.sigma");
        v["model"]["downey"]["sigma"] = serde_json::json!(0);
        v["strategy"] = serde_json::json!("sjf");
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "strategy");
        assert!(err.message.contains("sjf") && err.message.contains("combined"));
        v["strategy"] = serde_json::json!("base");
        v["transforms"] = serde_json::json!({"load_factor": 0});
        let err = MoldableExperiment::from_json(&v.to_string()).unwrap_err();
        assert_eq!(err.key, "transforms.load_factor");
        let s = MoldableShare::new(e, vec![MoldableStrategyKind::Base]);
        assert_eq!(MoldableShare::from_json(&s.to_json()), Ok(s));
    }
}
