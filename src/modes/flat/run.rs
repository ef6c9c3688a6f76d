//! Running an [`Experiment`] of the flat mode: load and transform the workload, size the
//! machine, simulate under the policy, compute the metrics — [`Flat`]'s [`ModeRun`]. The CLI
//! and the web worker both go through here, which is what makes their numbers identical.

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::base::Registered;
use crate::error::Error;
use crate::limits::Limits;
use crate::metrics::{
    category_stats, category_stats_iter, job_records, records_iter, CategoryStat, JobRecord,
    Summary,
};
use crate::modes::flat::report::{FlatReport, RunOutput};
use crate::modes::flat::spec::{
    ConfigError, Experiment, ExperimentFile, MachineSpec, WorkloadSpec,
};
use crate::modes::{Mode, ModeRun, SimOptions, Stepper, Traces};
use crate::sim::instant::Progress;
use crate::sim::{JobOutcome, SimResult, Simulation};
use crate::workload::swf::{read_swf, ReadOptions, SwfRecord};
use crate::workload::transform::TransformReport;
use crate::workload::{DropCounts, Job, Workload};

/// A trace handed to the runner: a name for messages and a reader (plain or gzip); with
/// `cache`, the parsed form of the same content is shared by every run that reads it.
pub struct TraceInput<'a> {
    pub name: String,
    pub reader: Box<dyn Read + 'a>,
    pub cache: Option<CachedTrace>,
    /// About how many jobs the trace keeps, when known (0 otherwise): room for them is made at
    /// once ([`ReadOptions::jobs_hint`]).
    pub jobs_hint: usize,
}

impl<'a> TraceInput<'a> {
    /// A trace from bytes in memory (uploads, tests).
    pub fn from_bytes(name: &str, bytes: &'a [u8]) -> Self {
        TraceInput {
            name: name.to_string(),
            reader: Box::new(bytes),
            cache: None,
            jobs_hint: 0,
        }
    }

    /// This input, with room for `jobs` jobs made at once when it is read.
    pub fn with_jobs_hint(mut self, jobs: usize) -> Self {
        self.jobs_hint = jobs;
        self
    }
}

/// Parsed traces kept by content, so that the runs of one process that read the same trace
/// (the points of a sweep) parse it once. A run takes a copy of the parsed jobs, so a cached
/// trace gives exactly the workload a fresh parse would.
#[derive(Debug, Default)]
pub struct TraceCache {
    parsed: Mutex<HashMap<String, Arc<Workload>>>,
    hits: AtomicUsize,
}

impl TraceCache {
    /// How many reads the cache answered without parsing.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }
}

/// A trace's identity in a [`TraceCache`]: the cache and the SHA-256 of the trace's bytes.
#[derive(Clone, Debug)]
pub struct CachedTrace {
    pub cache: Arc<TraceCache>,
    pub sha256: String,
}

/// Reads `input` under `opts`, through its cache when it has one: the key is the content, the
/// name (errors name the trace) and every read option, so a hit gives what parsing would.
fn read_trace(input: TraceInput<'_>, opts: &ReadOptions) -> Result<Workload, Error> {
    let Some(c) = input.cache else {
        return Ok(read_swf(input.reader, opts)?);
    };
    let key = format!("{}\u{0}{opts:?}", c.sha256);
    let found = c
        .cache
        .parsed
        .lock()
        .ok()
        .and_then(|m| m.get(&key).cloned());
    if let Some(w) = found {
        c.cache.hits.fetch_add(1, Ordering::Relaxed);
        return Ok(Workload::clone(&w));
    }
    let w = read_swf(input.reader, opts)?;
    if let Ok(mut m) = c.cache.parsed.lock() {
        m.insert(key, Arc::new(w.clone()));
    }
    Ok(w)
}

/// A workload ready to simulate on a machine of `procs` processors.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub workload: Workload,
    pub procs: u32,
    pub transform: TransformReport,
}

/// Reads the trace (within the byte and job limits of `limits`), or generates the synthetic
/// workload with `seed`; returns the jobs and, for a model, the machine size it was
/// parameterised for.
pub fn load_workload(
    spec: &WorkloadSpec,
    seed: u64,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<(Workload, Option<u32>), Error> {
    load(spec, seed, trace, limits, false)
}

/// [`load_workload`], the trace's SWF records left out when `lean` ([`ReadOptions::lean`]).
fn load(
    spec: &WorkloadSpec,
    seed: u64,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
    lean: bool,
) -> Result<(Workload, Option<u32>), Error> {
    match spec {
        WorkloadSpec::Swf(src) => {
            let Some(input) = trace else {
                let what = src
                    .path
                    .clone()
                    .or_else(|| src.name.clone())
                    .unwrap_or_default();
                return Err(Error::MissingTrace(format!(
                    "the experiment reads the trace {what:?}, which was not supplied"
                )));
            };
            let opts = ReadOptions {
                lean,
                jobs_hint: input.jobs_hint,
                ..ReadOptions::limited(&input.name, src.lenient, limits)
            };
            Ok((read_trace(input, &opts)?, None))
        }
        WorkloadSpec::Synthetic(model) => Ok((model.generate(seed), Some(model.machine_procs()))),
    }
}

/// Loads, transforms and fits the experiment's workload under the default [`Limits`].
pub fn prepare(exp: &Experiment, trace: Option<TraceInput<'_>>) -> Result<Prepared, Error> {
    prepare_with(exp, trace, &Limits::DEFAULT)
}

/// [`prepare`] under `limits` (the CLI may raise them).
pub fn prepare_with(
    exp: &Experiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<Prepared, Error> {
    prepare_as(exp, trace, limits, false)
}

/// [`prepare_with`] without the trace's SWF records, for a run that writes no SWF output:
/// about half the memory per job ([`crate::workload::job`]); every other output is the same.
/// A policy that reads the users' numbers (predicted estimates, or a priority over `user` or
/// `queue`) keeps the records.
pub fn prepare_lean(
    exp: &Experiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
) -> Result<Prepared, Error> {
    prepare_as(exp, trace, limits, !exp.queue.needs_users())
}

fn prepare_as(
    exp: &Experiment,
    trace: Option<TraceInput<'_>>,
    limits: &Limits,
    lean: bool,
) -> Result<Prepared, Error> {
    exp.validate_with(limits)?;
    let (mut workload, model_procs) = load(&exp.workload, exp.seed, trace, limits, lean)?;
    let transform = exp.transforms.apply(&mut workload);
    let procs = match exp.machine {
        MachineSpec::Flat { procs: Some(p) } => p,
        MachineSpec::Flat { procs: None } => workload
            .header
            .max_procs
            .filter(|&p| p > 0)
            .or(workload.header.max_nodes.filter(|&p| p > 0))
            .map(|p| p.min(u32::MAX as u64) as u32)
            .or(model_procs)
            .unwrap_or_else(|| workload.max_procs().max(1)),
    };
    workload.fit_to_machine(procs);
    check_times(&workload, false)?;
    if workload.jobs.is_empty() {
        return Err(Error::EmptyWorkload(format!(
            "no job left to simulate on {procs} processors (dropped: {})",
            describe_drops(&workload.dropped)
        )));
    }
    Ok(Prepared {
        workload,
        procs,
        transform,
    })
}

/// Refuses a workload (after its transforms) with a job whose submit time, run time or
/// estimate is not a finite number — or, when `nonnegative_submit` (the contention model's
/// engines), a job submitted before time 0 — as an error on the key `workload` naming the
/// job, instead of letting an engine stop on it. The validated ranges (docs/limits.md) keep
/// every time finite; this is the last check before an engine.
pub fn check_times(workload: &Workload, nonnegative_submit: bool) -> Result<(), Error> {
    use crate::limits::echo_number;
    for j in &workload.jobs {
        let finite = j.submit.is_finite() && j.run_time.is_finite() && j.estimate.is_finite();
        if !finite {
            return Err(Error::Config(ConfigError {
                key: "workload".into(),
                message: format!(
                    "job {}: submit time {}, run time {} and estimate {} must be finite numbers \
                     (docs/limits.md lists the ranges that keep them so)",
                    j.id,
                    echo_number(j.submit),
                    echo_number(j.run_time),
                    echo_number(j.estimate)
                ),
            }));
        }
        if nonnegative_submit && j.submit < 0.0 {
            return Err(Error::Config(ConfigError {
                key: "workload".into(),
                message: format!(
                    "job {}: submit time {} is before 0: the contention model (non-contiguous \
                     allocators) needs submit times ≥ 0",
                    j.id,
                    echo_number(j.submit)
                ),
            }));
        }
    }
    Ok(())
}

/// "3 with negative run time, 1 larger than the machine" or "none".
pub fn describe_drops(d: &DropCounts) -> String {
    let mut parts = Vec::new();
    if d.negative_runtime > 0 {
        parts.push(format!("{} with negative run time", d.negative_runtime));
    }
    if d.nonpositive_size > 0 {
        parts.push(format!("{} with no size", d.nonpositive_size));
    }
    if d.too_large > 0 {
        parts.push(format!("{} larger than the machine", d.too_large));
    }
    if d.malformed_lines > 0 {
        parts.push(format!("{} malformed lines", d.malformed_lines));
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// Builds the simulation of a prepared workload under the experiment's policy.
pub fn simulation(exp: &Experiment, prepared: &Prepared, timeline: bool) -> Simulation {
    simulation_of(
        exp,
        prepared.workload.jobs.clone(),
        prepared.procs,
        timeline,
    )
}

/// [`simulation`] that moves the prepared jobs into the simulation instead of copying them,
/// for a caller that needs them only through the result ([`SimResult::jobs`]); `prepared`
/// keeps its header, drops and transform report.
pub fn simulation_taking(exp: &Experiment, prepared: &mut Prepared, timeline: bool) -> Simulation {
    let jobs = std::mem::take(&mut prepared.workload.jobs);
    simulation_of(exp, jobs, prepared.procs, timeline)
}

fn simulation_of(exp: &Experiment, jobs: Vec<Job>, procs: u32, timeline: bool) -> Simulation {
    let policy = exp.policy.build_with(&exp.queue, jobs.len(), procs);
    let sim = Simulation::new(jobs, procs, policy);
    if timeline {
        sim.with_timeline()
    } else {
        sim
    }
}

/// Metrics of a finished simulation.
pub fn finish(result: &SimResult, prepared: &Prepared) -> RunOutput {
    let jobs = job_records(result);
    let summary = Summary::from_records(&jobs, result.procs, prepared.workload.dropped.total());
    let categories = category_stats(&jobs);
    output_of(result, prepared, summary, categories, jobs)
}

/// [`finish`] without the per-job records (`jobs` left empty), for a caller that needs only
/// the metrics of a large run (the page): the summary and the categories are computed from the
/// records one at a time, in the same order, so they are [`finish`]'s to the bit.
pub fn finish_without_records(result: &SimResult, prepared: &Prepared) -> RunOutput {
    let records = || records_iter(&result.jobs, &result.outcomes);
    let summary = Summary::from_iter(records(), result.procs, prepared.workload.dropped.total());
    let categories = category_stats_iter(records());
    output_of(result, prepared, summary, categories, Vec::new())
}

fn output_of(
    result: &SimResult,
    prepared: &Prepared,
    summary: Summary,
    categories: Vec<CategoryStat>,
    jobs: Vec<JobRecord>,
) -> RunOutput {
    let late_starts = result
        .outcomes
        .iter()
        .zip(&result.promised)
        .filter(|(o, p)| matches!(p, Some(p) if o.start > *p))
        .count();
    RunOutput {
        policy: result.policy.clone(),
        procs: result.procs,
        categories,
        summary,
        dropped: prepared.workload.dropped,
        transform: prepared.transform.clone(),
        jobs,
        timeline: result.timeline.clone(),
        late_starts,
    }
}

/// Loads, simulates and measures an experiment in one call.
pub fn run_experiment(exp: &Experiment, trace: Option<TraceInput<'_>>) -> Result<RunOutput, Error> {
    let prepared = prepare(exp, trace)?;
    let result = simulation(exp, &prepared, true).run_to_end()?;
    Ok(finish(&result, &prepared))
}

/// The simulated schedule as SWF records: the original records with wait time and run time
/// set to what happened in the simulation.
pub fn schedule_records(result: &SimResult) -> Vec<SwfRecord> {
    schedule_records_iter(&result.jobs, &result.outcomes).collect()
}

/// [`schedule_records`] of `jobs` that ran as `outcomes` (the same order), one at a time.
pub fn schedule_records_iter<'a>(
    jobs: &'a [Job],
    outcomes: &'a [JobOutcome],
) -> impl Iterator<Item = SwfRecord> + 'a {
    jobs.iter()
        .zip(outcomes)
        .filter(|(_, o)| !o.start.is_nan())
        .map(|(job, o)| {
            let mut r = job.swf_record();
            r.wait_time = o.start - job.submit;
            r.run_time = o.end - o.start;
            r.submit_time = job.submit;
            r
        })
}

/// The flat mode behind the one [`ModeRun`] shape.
pub struct Flat;

/// A flat engine as a [`Stepper`].
impl Stepper for Simulation {
    fn step_instants(&mut self, n: usize) -> Result<bool, Error> {
        Ok(crate::sim::instant::Engine::step_instants(self, n)?)
    }

    fn progress(&self) -> Progress {
        crate::sim::instant::Engine::progress(self)
    }
}

impl ModeRun for Flat {
    type Experiment = Experiment;
    type Prepared = Prepared;
    type Simulation<'p> = Simulation;
    type Simulated = SimResult;
    type Output = FlatReport;

    const MODE: Mode = Mode::Flat;

    fn experiment_json(exp: &Experiment) -> String {
        exp.to_json()
    }

    fn workloads(exp: &Experiment) -> Vec<(String, &WorkloadSpec)> {
        vec![("experiment.workload".into(), &exp.workload)]
    }

    fn title(exp: &Experiment) -> String {
        let mut policy = exp.policy.entry().label.to_string();
        if !exp.queue.is_default() {
            policy = format!("{policy} ({})", exp.queue.label());
        }
        match exp.machine {
            MachineSpec::Flat { procs: Some(p) } => format!("{policy} on {p} processors"),
            _ => policy,
        }
    }

    fn label(exp: &Experiment) -> String {
        format!("{}{}", exp.policy.as_str(), exp.queue.suffix())
    }

    fn prepare(
        exp: &Experiment,
        traces: &mut Traces<'_>,
        limits: &Limits,
    ) -> Result<Prepared, Error> {
        let trace = traces(&exp.workload)?;
        prepare_with(exp, trace, limits)
    }

    fn simulate<'p>(
        exp: &'p Experiment,
        prepared: &'p mut Prepared,
        options: SimOptions,
    ) -> Result<Simulation, Error> {
        let sim = simulation(exp, prepared, options.timeline);
        Ok(if options.explain {
            sim.with_explanations()
        } else {
            sim
        })
    }

    fn finish(sim: Simulation) -> Result<SimResult, Error> {
        Ok(sim.run_to_end()?)
    }

    fn measure(
        _: &Experiment,
        prepared: Prepared,
        mut result: SimResult,
    ) -> Result<FlatReport, Error> {
        let explanations = std::mem::take(&mut result.explanations);
        Ok(FlatReport {
            output: finish(&result, &prepared),
            explanations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::flat::spec::{SwfSource, WorkloadSpec};
    use crate::policy::PolicyKind;

    const TRACE: &str = "; MaxProcs: 8\n\
        1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n\
        2 5 0 30 8 -1 -1 8 40 -1 1 1 1 -1 1 -1 -1 -1\n\
        3 6 0 5 2 -1 -1 2 5 -1 1 1 1 -1 1 -1 -1 -1\n";

    fn input(cache: &Arc<TraceCache>, name: &str) -> TraceInput<'static> {
        TraceInput {
            name: name.into(),
            reader: Box::new(TRACE.as_bytes()),
            cache: Some(CachedTrace {
                cache: Arc::clone(cache),
                sha256: "same-content".into(),
            }),
            jobs_hint: 0,
        }
    }

    #[test]
    fn finishing_without_records_gives_the_same_metrics() {
        for text in [
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 3000}}, "policy": "easy", "seed": 3}"#,
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 2000}}, "policy": "conservative", "seed": 8}"#,
        ] {
            let exp = Experiment::from_json(text).unwrap();
            let prepared = prepare(&exp, None).unwrap();
            let result = simulation(&exp, &prepared, true).run_to_end().unwrap();
            let mut whole = finish(&result, &prepared);
            let lean = finish_without_records(&result, &prepared);
            assert!(lean.jobs.is_empty() && whole.jobs.len() == prepared.workload.jobs.len());
            whole.jobs.clear();
            assert_eq!(
                serde_json::to_string(&lean).unwrap(),
                serde_json::to_string(&whole).unwrap()
            );
            assert_eq!(lean, whole);
        }
    }

    #[test]
    fn a_cached_trace_is_parsed_once_and_gives_what_a_parse_gives() {
        let mut exp = Experiment::for_trace("t.swf", PolicyKind::Easy);
        let cache = Arc::new(TraceCache::default());
        let fresh = prepare(
            &exp,
            Some(TraceInput::from_bytes("t.swf", TRACE.as_bytes())),
        );
        let first = prepare(&exp, Some(input(&cache, "t.swf")));
        let second = prepare(&exp, Some(input(&cache, "t.swf")));
        assert_eq!(cache.hits(), 1);
        let (fresh, first, second) = (fresh.unwrap(), first.unwrap(), second.unwrap());
        assert_eq!(first.workload, fresh.workload);
        assert_eq!(second.workload, fresh.workload);
        assert_eq!(second.procs, 8);
        // Another name (errors name the trace) or other read options: parsed again.
        prepare(&exp, Some(input(&cache, "u.swf"))).unwrap();
        if let WorkloadSpec::Swf(SwfSource { lenient, .. }) = &mut exp.workload {
            *lenient = true;
        }
        prepare(&exp, Some(input(&cache, "t.swf"))).unwrap();
        assert_eq!(cache.hits(), 1);
        // A transform applies to the run's own copy, never to the cached jobs.
        exp.transforms.first_jobs = Some(1);
        let cut = prepare(&exp, Some(input(&cache, "t.swf"))).unwrap();
        assert_eq!(cut.workload.jobs.len(), 1);
        let again = prepare(&exp, Some(input(&cache, "t.swf"))).unwrap();
        assert_eq!(cache.hits(), 3);
        assert_eq!(again.workload.jobs.len(), 1);
        exp.transforms.first_jobs = None;
        let all = prepare(&exp, Some(input(&cache, "t.swf"))).unwrap();
        assert_eq!(all.workload.jobs.len(), 3);
    }
}
