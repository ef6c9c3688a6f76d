//! The modes of experiment — one folder each, with the same shape:
//!
//! | file | what it holds |
//! |---|---|
//! | `spec.rs` | the experiment as JSON (workload, transforms, seed, name, and the mode's keys) |
//! | `run.rs` | prepare → simulate → measure, behind [`ModeRun`] |
//! | `report.rs` | what a run measured, behind [`Report`]: sweep metrics, exercise values, CSV |
//! | `link.rs` | the link state: the experiment and what the page compares |
//! | `presets.rs` | the papers' presets |
//!
//! [`Envelope`] reads any mode's experiment and is the one place that matches on the mode:
//! [`Envelope::experiment`] hands out a [`ModeExperiment`], which sweeps, exercises, timing and
//! `schedlab open` call without knowing which mode it is.
//!
//! | mode | folder | papers |
//! |---|---|---|
//! | `flat` | [`flat`] | the core experiment (flat policies on one machine) |
//! | `mesh` | [`mesh`] | Ababneh & Bani-Mohammad; Mache, Lo, Garg; Liu, Hsu, Wu |
//! | `grid` | [`grid`] | Ernemann, Hamscher, Yahyapour |
//! | `moldable` | [`moldable`] | Srinivasan, Krishnamoorthy, Sadayappan |

pub mod envelope;
pub mod flat;
pub mod flatten;
pub mod grid;
pub mod mesh;
pub mod moldable;
pub mod timing;

use std::fmt;

use serde_json::Value;

use crate::base::config_error::ConfigError;
use crate::error::Error;
use crate::limits::Limits;
use crate::metrics::Summary;
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::WorkloadSpec;
use crate::sim::instant::Progress;

pub use envelope::Envelope;

/// The kinds of experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One machine of P processors, flat policies (the core experiment).
    Flat,
    /// A 2D mesh: contiguous allocation and window scheduling (Ababneh & Bani-Mohammad) or non-contiguous
    /// allocation under contention (Mache et al.).
    Mesh,
    /// Sites in time zones with job sharing (Ernemann et al.).
    Grid,
    /// Moldable jobs on one machine, strategies against rigid conservative (Srinivasan et al.).
    Moldable,
}

impl Mode {
    /// Every mode, in the page's tab order.
    pub const ALL: [Mode; 4] = [Mode::Flat, Mode::Mesh, Mode::Grid, Mode::Moldable];

    /// The mode's entry: THE registry of modes (one line per mode).
    pub fn entry(self) -> &'static ModeEntry {
        match self {
            Mode::Flat => &flat::ENTRY,
            Mode::Mesh => &mesh::ENTRY,
            Mode::Grid => &grid::ENTRY,
            Mode::Moldable => &moldable::ENTRY,
        }
    }

    /// The name in envelopes and on the page (`flat`, `mesh`, `grid`, `moldable`).
    pub fn as_str(self) -> &'static str {
        self.entry().key
    }

    /// The mode named `s`, if any.
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The CLI command that runs an experiment of this mode.
    pub fn command(self) -> &'static str {
        self.entry().command
    }
}

/// What the layers above need to know of a mode without an experiment in hand: its names,
/// and how a sweep reads and varies its experiment file. Each mode folder has one (`ENTRY`).
pub struct ModeEntry {
    /// The name in envelopes, links and on the page.
    pub key: &'static str,
    /// The CLI command that runs its experiment file.
    pub command: &'static str,
    /// A sweep axis's short names and the experiment keys they stand for
    /// (`load_factor` → `transforms.load_factor`).
    pub axes: &'static [(&'static str, &'static str)],
    /// The list its envelope compares (`allocators`), the experiment key that names the one
    /// run (`allocator`) and that key's default, for modes whose envelope has one.
    pub compared: Option<(&'static str, &'static str, &'static str)>,
    /// The array whose elements each carry a workload (`sites`), when the workload is not
    /// the experiment's own `workload`.
    pub workloads_in: Option<&'static str>,
    /// Reads and validates an experiment file of the mode under the limits.
    pub check: fn(&str, &Limits) -> Result<(), ConfigError>,
}

/// The sweep axes of a mode reading one workload with transforms (flat, mesh, moldable).
pub const WORKLOAD_AXES: [(&str, &str); 3] = [
    ("load_factor", "transforms.load_factor"),
    ("trace", "workload.swf.path"),
    ("jobs", "workload.synthetic.jobs"),
];

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a run's traces come from: the trace a workload reads (`None` for a synthetic one or
/// when the caller has none to give; the run then reports the missing trace).
pub type Traces<'t> = dyn FnMut(&WorkloadSpec) -> Result<Option<TraceInput<'t>>, Error> + 't;

/// What a simulation records beyond what every run records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// The utilisation timeline the page charts (flat runs).
    pub timeline: bool,
    /// Every decision explained in words (flat runs; the replay and the exercises).
    pub explain: bool,
}

/// A simulation run a few instants at a time (the page's worker slices it so that it can be
/// cancelled and report progress; the CLI runs it to the end — the same instants either way).
pub trait Stepper {
    /// Processes at most `n` instants; `true` when the run is over.
    fn step_instants(&mut self, n: usize) -> Result<bool, Error>;
    /// Jobs completed (over every simulation of the run) and the simulated time so far.
    fn progress(&self) -> Progress;
    /// Which simulation of the run is going (a grid's configuration, a moldable comparison's
    /// strategy), counted from 0.
    fn stage(&self) -> usize {
        0
    }
}

/// What a run measured, as every front end needs it.
pub trait Report {
    /// The numbers a sweep records, as (dotted key, value) in document order.
    fn metrics(&self) -> Vec<(String, Value)>;
    /// The values an exercise's questions point into (`summary.mean_wait`, `jobs.3.start`).
    fn values(&self) -> Value;
    /// Why the run cannot be used although it finished (an invariant violated), if so.
    fn refused(&self) -> Option<String> {
        None
    }
    /// Jobs simulated.
    fn jobs(&self) -> usize;
    /// The core summary, for modes that have one.
    fn summary(&self) -> Option<&Summary> {
        None
    }
    /// A flat run as the replay needs it (only flat runs have one).
    fn replay(self: Box<Self>) -> Option<flat::report::FlatRun> {
        None
    }
}

/// A mode's run: prepare (read and transform the workload, build the machine) → simulate (an
/// engine stepped in slices) → measure. Each mode implements it once, in its `run.rs`, for a
/// marker type ([`flat::Flat`], [`mesh::Mesh`], [`grid::Grid`], [`moldable::Moldable`]).
pub trait ModeRun: 'static {
    /// One experiment: what one run simulates.
    type Experiment: Clone;
    /// The experiment made ready to simulate.
    type Prepared;
    /// The engine of a prepared experiment, borrowing it.
    type Simulation<'p>: Stepper;
    /// What the engine produced, the borrow of the prepared experiment ended.
    type Simulated;
    /// What a run measured.
    type Output: Report + 'static;

    /// The mode.
    const MODE: Mode;

    /// The experiment as the mode's own experiment file (what `schedlab open` writes).
    fn experiment_json(exp: &Self::Experiment) -> String;
    /// The workloads it reads, with their keys in the experiment file.
    fn workloads(exp: &Self::Experiment) -> Vec<(String, &WorkloadSpec)>;
    /// What it runs, in words (`EASY backfilling on 4 processors`).
    fn title(exp: &Self::Experiment) -> String;
    /// The policy, allocator or strategy that runs (`easy`, `mpl Window-240`).
    fn label(exp: &Self::Experiment) -> String;
    /// Reads the workloads and makes the experiment ready to simulate.
    fn prepare(
        exp: &Self::Experiment,
        traces: &mut Traces<'_>,
        limits: &Limits,
    ) -> Result<Self::Prepared, Error>;
    /// The engine, nothing simulated yet.
    fn simulate<'p>(
        exp: &'p Self::Experiment,
        prepared: &'p mut Self::Prepared,
        options: SimOptions,
    ) -> Result<Self::Simulation<'p>, Error>;
    /// Runs the engine to its end (if not there yet).
    fn finish(sim: Self::Simulation<'_>) -> Result<Self::Simulated, Error>;
    /// The metrics of a finished run.
    fn measure(
        exp: &Self::Experiment,
        prepared: Self::Prepared,
        simulated: Self::Simulated,
    ) -> Result<Self::Output, Error>;
}

/// Prepare → simulate → measure `exp` to the end.
pub fn run<M: ModeRun>(
    exp: &M::Experiment,
    traces: &mut Traces<'_>,
    limits: &Limits,
    options: SimOptions,
) -> Result<M::Output, Error> {
    let mut prepared = M::prepare(exp, traces, limits)?;
    let sim = M::simulate(exp, &mut prepared, options)?;
    let simulated = M::finish(sim)?;
    M::measure(exp, prepared, simulated)
}

/// An experiment of any mode, for callers that do not care which: what sweeps, exercises,
/// timing and `schedlab open` need. [`Envelope::experiment`] makes one.
pub trait ModeExperiment {
    /// Its mode.
    fn mode(&self) -> Mode;
    /// The mode's experiment file.
    fn experiment_json(&self) -> String;
    /// The workloads it reads, with their keys in the experiment file.
    fn workloads(&self) -> Vec<(String, &WorkloadSpec)>;
    /// What it runs, in words.
    fn title(&self) -> String;
    /// The policy, allocator or strategy that runs.
    fn label(&self) -> String;
    /// Prepare → simulate → measure, to the end.
    fn run(
        &self,
        traces: &mut Traces<'_>,
        limits: &Limits,
        options: SimOptions,
    ) -> Result<Box<dyn Report>, Error>;
    /// [`ModeExperiment::run`] `runs` times, reading `now_ms` between the phases.
    fn time(
        &self,
        traces: &mut Traces<'_>,
        runs: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<timing::PhaseTimes, Error>;
}

/// A mode's link state (the experiment and what the page compares), whatever the mode:
/// implemented once per mode in its `link.rs`; [`Envelope::link`] is the one dispatch.
pub trait ModeLink {
    /// Its mode.
    fn mode(&self) -> Mode;
    /// The state's JSON (the envelope adds `v` and `mode`).
    fn state_json(&self) -> String;
    /// The experiment of its first run (a mesh link's first allocator under its policy).
    fn experiment(&self, limits: &Limits) -> Result<Box<dyn ModeExperiment>, Error>;
    /// The experiment as written in the link's `experiment`, whatever the page compares
    /// (what an exercise's run is).
    fn written_experiment(&self) -> Box<dyn ModeExperiment>;
    /// When the page compares several runs: how to run the others with the CLI.
    fn compared_hint(&self) -> Option<String> {
        None
    }
    /// The experiment file of its one run as JSON, for a sweep's base; a link that compares
    /// several runs is refused, naming the key and the axis to make of it.
    fn single_experiment(&self, limits: &Limits) -> Result<Value, (String, String)>;
}

/// The refusal of a sweep base that compares several runs (`policies`): make them an axis.
pub fn one_run_only(key: &str, axis: &str) -> (String, String) {
    (
        format!("base.{key}"),
        format!(
            "a sweep point runs one experiment: make the {key} an axis \
             ({{\"key\": \"{axis}\", \"values\": […]}}) instead"
        ),
    )
}

/// `exp` as JSON, for [`ModeLink::single_experiment`].
pub fn experiment_value<T: serde::Serialize>(exp: &T) -> Result<Value, (String, String)> {
    serde_json::to_value(exp).map_err(|e| ("base".to_string(), e.to_string()))
}

/// `exp` as a [`ModeExperiment`] of mode `M`.
pub fn experiment_of<M: ModeRun>(exp: M::Experiment) -> Box<dyn ModeExperiment> {
    Box::new(Experiment::<M>(exp))
}

/// The experiment of a mode `M`, as a [`ModeExperiment`].
pub struct Experiment<M: ModeRun>(pub M::Experiment);

impl<M: ModeRun> ModeExperiment for Experiment<M> {
    fn mode(&self) -> Mode {
        M::MODE
    }

    fn experiment_json(&self) -> String {
        M::experiment_json(&self.0)
    }

    fn workloads(&self) -> Vec<(String, &WorkloadSpec)> {
        M::workloads(&self.0)
    }

    fn title(&self) -> String {
        M::title(&self.0)
    }

    fn label(&self) -> String {
        M::label(&self.0)
    }

    fn run(
        &self,
        traces: &mut Traces<'_>,
        limits: &Limits,
        options: SimOptions,
    ) -> Result<Box<dyn Report>, Error> {
        Ok(Box::new(run::<M>(&self.0, traces, limits, options)?))
    }

    fn time(
        &self,
        traces: &mut Traces<'_>,
        runs: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<timing::PhaseTimes, Error> {
        timing::time::<M>(&self.0, traces, runs, now_ms)
    }
}
