//! The `--max-*` flags of `schedlab run`, `mesh`, `grid`, `moldable` and `sweep plan|run`:
//! raise a limit of [`crate::limits`] for one run, where a researcher legitimately needs more
//! than the web app allows; and `--max-work` of `run` and `mesh`, the time budget
//! ([`crate::work`]). Implements no paper section.

use clap::Args;

use crate::error::Error;
use crate::limits::{check_work, echo_number, Limits, WorkEstimate, MAX_WORK_SECONDS};
use crate::modes::flat::spec::ConfigError;

/// Flags that raise (or lower) the limits of one run.
#[derive(Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// Most jobs a synthetic model may generate (default 1000000).
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<usize>,
    /// Most jobs read from one trace (default 2000000).
    #[arg(long, value_name = "N")]
    pub max_trace_jobs: Option<usize>,
    /// Most sites × jobs of a grid experiment (default 8388608).
    #[arg(long, value_name = "N")]
    pub max_grid_cells: Option<u64>,
    /// Most bytes of SWF text read from one trace, after gzip decompression (default
    /// 1073741824).
    #[arg(long, value_name = "BYTES")]
    pub max_inflated_bytes: Option<u64>,
    /// Largest load factor (default 1000, as in the web app).
    #[arg(long, value_name = "LF")]
    pub max_load_factor: Option<f64>,
}

impl LimitArgs {
    /// The defaults with the flags given applied.
    pub fn limits(&self) -> Limits {
        self.over(Limits::DEFAULT)
    }

    /// `d` with the flags given applied (`sweep run`: over the limits its plan recorded).
    pub fn over(&self, d: Limits) -> Limits {
        Limits {
            max_jobs: self.max_jobs.unwrap_or(d.max_jobs),
            max_trace_jobs: self.max_trace_jobs.unwrap_or(d.max_trace_jobs),
            max_grid_cells: self.max_grid_cells.unwrap_or(d.max_grid_cells),
            max_inflated_bytes: self.max_inflated_bytes.unwrap_or(d.max_inflated_bytes),
            max_load_factor: self.max_load_factor.unwrap_or(d.max_load_factor),
        }
    }
}

/// The `--max-work` flag of `schedlab run` and `schedlab mesh`: the longest estimated run
/// started ([`crate::work`], docs/limits.md, "Work bounds").
#[derive(Args, Debug, Clone, Default)]
pub struct WorkArgs {
    /// Longest estimated run in seconds on the calibration machine (default 600): a run
    /// estimated above it is refused before it starts, with the estimate (docs/limits.md).
    #[arg(long, value_name = "SECONDS")]
    pub max_work: Option<f64>,
}

impl WorkArgs {
    /// The bound in force, in seconds; an error on `--max-work` unless it is a number ≥ 0.
    pub fn max_seconds(&self) -> Result<f64, ConfigError> {
        match self.max_work {
            None => Ok(MAX_WORK_SECONDS),
            Some(s) if s >= 0.0 => Ok(s),
            Some(s) => Err(ConfigError {
                key: "--max-work".into(),
                message: format!("must be a number of seconds ≥ 0 (got {})", echo_number(s)),
            }),
        }
    }

    /// `Err` ([`Error::TooMuchWork`]) when `estimate` is above the bound in force.
    pub fn check(&self, estimate: &WorkEstimate) -> Result<(), Error> {
        check_work(estimate, self.max_seconds()?, Some("--max-work"))?;
        Ok(())
    }
}
