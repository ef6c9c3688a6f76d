//! Mache et al. Table 1 ("Job scheduling that minimizes network contention
//! due to both communication and I/O"), synthetic workload I: job sizes exponential with mean
//! 4 × 4 = 16 processors, exponential interarrival times ("mean varies"), 1000 jobs, on the
//! 16 × 22 = 352-node Intel Paragon batch partition of §4.1.
//!
//! The paper gives no run-time distribution (its service times come out of a network
//! simulation), so run times are exponential with mean `mean_run_time`. The defaults follow
//! Table 2, whose first column uses interarrival time 500 for a utilization of 60–70 %: with
//! mean size 16 the run-time mean 7150 makes the offered load 16 · 7150 / (500 · 352) ≈ 0.65.
//!
//! Sizes: an exponential sample with mean `mean_size` is rounded to the nearest integer and
//! clamped to [1, `procs`]; rounding to nearest keeps the mean at ≈ 16.03 (the clamp at 1 adds
//! P(X < 0.5) ≈ 0.03). The first job arrives at time 0; estimates are exact (= run time).

use serde::{Deserialize, Serialize};

use super::{check_positive, synthetic_header};
use crate::base::{ParamError, SimRng};
use crate::workload::{Job, Workload};

/// Parameters of Mache et al.'s synthetic workload I; defaults are Table 1 (and Table 2 for the
/// times the paper leaves open).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExponentialJobsParams {
    /// Number of jobs (Table 1: 1000).
    pub jobs: usize,
    /// Machine size: sizes are clamped to [1, procs] (§4.1: 16 × 22 = 352).
    pub procs: u32,
    /// Mean of the exponential job size before rounding (Table 1: 4 × 4 = 16).
    pub mean_size: f64,
    /// Mean exponential interarrival time in seconds (Table 1: "varies"; Table 2: 500).
    pub mean_interarrival: f64,
    /// Mean exponential run time in seconds (not in the paper; 7150 gives load ≈ 0.65).
    pub mean_run_time: f64,
}

impl Default for ExponentialJobsParams {
    fn default() -> Self {
        ExponentialJobsParams {
            jobs: 1000,
            procs: 352,
            mean_size: 16.0,
            mean_interarrival: 500.0,
            mean_run_time: 7150.0,
        }
    }
}

impl ExponentialJobsParams {
    /// Checks the parameters; the error names the offending key.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.jobs == 0 {
            return Err(ParamError::zero("workload.synthetic.jobs"));
        }
        if self.procs == 0 {
            return Err(ParamError::zero("workload.synthetic.procs"));
        }
        check_positive("workload.synthetic.mean_size", self.mean_size)?;
        crate::limits::check_mean_time(
            "workload.synthetic.mean_interarrival",
            self.mean_interarrival,
        )?;
        crate::limits::check_mean_time("workload.synthetic.mean_run_time", self.mean_run_time)?;
        Ok(())
    }

    /// Generates the workload; an empty one if the parameters do not validate.
    pub fn generate(&self, seed: u64) -> Workload {
        let header = synthetic_header("exponential_jobs", seed, self.jobs, self.procs);
        if self.validate().is_err() {
            return Workload::from_jobs(header, Vec::new());
        }
        let mut rng = SimRng::new(seed);
        let mut t = 0.0;
        let mut jobs = Vec::with_capacity(self.jobs.min(crate::limits::MAX_JOBS));
        for i in 0..self.jobs {
            if i > 0 {
                t += rng.exponential(self.mean_interarrival);
            }
            let size = libm::round(rng.exponential(self.mean_size));
            let procs = size.clamp(1.0, f64::from(self.procs)) as u32;
            let run = rng.exponential(self.mean_run_time);
            jobs.push(Job::new(i as u64 + 1, t, run, run, procs));
        }
        Workload::from_jobs(header, jobs)
    }
}
