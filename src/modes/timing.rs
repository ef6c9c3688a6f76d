//! The phases of a run of any mode, timed alike natively and in the browser:
//! `schedlab bench phases LINK` reads the clock of the process, the web worker's bench
//! message reads `performance.now()`, and both call this module, which runs the experiment of
//! a share link's envelope through its mode's [`ModeRun`] — the functions of `schedlab run`,
//! `mesh`, `grid` and `moldable` and of the worker — reading the clock between the phases:
//!
//! * **load** ([`ModeRun::prepare`]): read or generate the workload, apply the transforms,
//!   size the machine (mesh: give jobs their shapes; grid: align the sites' workloads);
//! * **simulate** ([`ModeRun::simulate`], [`ModeRun::finish`]): build the engine and run it to
//!   the end (flat: with the timeline the page charts);
//! * **measure** ([`ModeRun::measure`]): the metrics (per-job records, summary; mesh: layout
//!   metrics, link loads).
//!
//! The same experiment is run `runs` times, so the figures do not depend on the timer's
//! resolution (the browser's is coarse) and the first run (cold caches; in the browser, code
//! still in the baseline compiler) can be told from the others. The last run's summary comes
//! back too: natively and in the browser it must be identical (the determinism rule).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{ModeRun, Report, SimOptions, Traces};
use crate::error::Error;
use crate::limits::Limits;
use crate::metrics::Summary;

/// Most runs one measurement may ask for.
pub const MAX_RUNS: usize = 1000;

/// The measured phases of `runs` runs of one experiment, milliseconds per run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// The mode (`flat`, `mesh`, `grid`, `moldable`).
    pub mode: String,
    /// The policy (flat), allocator and policy (mesh), local policy (grid) or strategy
    /// (moldable) that ran.
    pub label: String,
    /// Jobs simulated per run.
    pub jobs: usize,
    pub load_ms: Vec<f64>,
    pub simulate_ms: Vec<f64>,
    pub measure_ms: Vec<f64>,
    /// The summary of the last run (modes that have one).
    pub summary: Option<Summary>,
}

impl PhaseTimes {
    /// Median of one phase's times (0 when there is none).
    pub fn median(times: &[f64]) -> f64 {
        let mut v = times.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    }

    /// Sum of one phase's times.
    pub fn total(times: &[f64]) -> f64 {
        times.iter().sum()
    }

    fn push(&mut self, t0: f64, t1: f64, t2: f64, t3: f64) {
        self.load_ms.push(t1 - t0);
        self.simulate_ms.push(t2 - t1);
        self.measure_ms.push(t3 - t2);
    }
}

/// A measurement's run count outside 1 ..= [`MAX_RUNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunsOutOfRange {
    /// The count asked for.
    pub runs: usize,
}

impl fmt::Display for RunsOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "runs must be 1 to {MAX_RUNS} (got {})", self.runs)
    }
}

impl std::error::Error for RunsOutOfRange {}

/// The one bound on a measurement's run count: 1 ..= [`MAX_RUNS`].
pub fn check_runs(runs: usize) -> Result<(), RunsOutOfRange> {
    if runs == 0 || runs > MAX_RUNS {
        return Err(RunsOutOfRange { runs });
    }
    Ok(())
}

/// Times `runs` runs (1 ..= [`MAX_RUNS`]) of `exp` with the clock `now_ms` (milliseconds).
pub fn time<M: ModeRun>(
    exp: &M::Experiment,
    traces: &mut Traces<'_>,
    runs: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<PhaseTimes, Error> {
    check_runs(runs).map_err(|e| {
        Error::Config(crate::base::config_error::ConfigError {
            key: String::new(),
            message: e.to_string(),
        })
    })?;
    let mut t = PhaseTimes {
        mode: M::MODE.as_str().to_string(),
        label: M::label(exp),
        jobs: 0,
        load_ms: Vec::with_capacity(runs),
        simulate_ms: Vec::with_capacity(runs),
        measure_ms: Vec::with_capacity(runs),
        summary: None,
    };
    let options = SimOptions {
        timeline: true,
        explain: false,
    };
    for _ in 0..runs {
        let t0 = now_ms();
        let mut prepared = M::prepare(exp, traces, &Limits::DEFAULT)?;
        let t1 = now_ms();
        let sim = M::simulate(exp, &mut prepared, options)?;
        let simulated = M::finish(sim)?;
        let t2 = now_ms();
        let output = M::measure(exp, prepared, simulated)?;
        let t3 = now_ms();
        t.push(t0, t1, t2, t3);
        t.jobs = output.jobs();
        t.summary = output.summary().cloned();
    }
    Ok(t)
}
