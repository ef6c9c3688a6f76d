//! Ababneh & Bani-Mohammad §5.1 ("A new window-based job scheduling scheme for 2D
//! mesh multicomputers", 2010): the synthetic mesh workload.synthetic.
//!
//! Jobs arrive as a Poisson process (exponential interarrival times, rate λ =
//! `arrival_rate` jobs per time unit), their service times are exponential with mean one
//! time unit (`mean_service`), and the width and height of the requested submesh are drawn
//! independently, either uniform on [1, L] or from the "uniform-decreasing" distribution:
//! the side falls in [1, l1], [l1+1, l2], [l2+1, l3], [l3+1, L] with probabilities
//! p1, p2, p3, p4 and is uniform within its range. Defaults: L = 32 (a 32 × 32 mesh),
//! p1 = 0.4, p2 = p3 = p4 = 0.2, l1 = 4, l2 = 8, l3 = 16, 10,000 jobs per run.
//!
//! Time is in the paper's simulation time units (floating point, not seconds). The first job
//! arrives at time 0; each later job after an exponential interarrival time. Estimates are
//! exact (the paper assumes no estimates; schedulers that need one get the true run time).

use serde::{Deserialize, Serialize};

use super::{check_probability, synthetic_header};
use crate::base::{ParamError, SimRng};
use crate::workload::{Job, Workload};

/// How a submesh side length is drawn (Ababneh & Bani-Mohammad §5.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideDistribution {
    /// Uniform on [1, L].
    Uniform,
    /// Piecewise uniform on [1, l1], [l1+1, l2], [l2+1, l3], [l3+1, L] with p1..p4.
    #[default]
    UniformDecreasing,
}

/// Parameters of the Ababneh & Bani-Mohammad §5.1 mesh model; defaults are the paper's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MeshJobsParams {
    /// Number of jobs (paper: 10,000 per run).
    pub jobs: usize,
    /// Mesh width W; widths are drawn on [1, W] (paper: L = 32).
    pub width: u32,
    /// Mesh height H; heights are drawn on [1, H] (paper: L = 32).
    pub height: u32,
    /// Side-length distribution, `uniform` or `uniform_decreasing` (default).
    pub sides: SideDistribution,
    /// Poisson arrival rate λ in jobs per time unit. The paper sweeps the load; the default
    /// 4.5 is its "moderate" point for the uniform-decreasing sides (Fig. 9, offered load
    /// ≈ 0.41 on 32 × 32). For uniform sides use ≈ 1–2.5 (Figs. 4–6, 8, 11).
    pub arrival_rate: f64,
    /// Mean of the exponential service time (paper: 1 time unit).
    pub mean_service: f64,
    /// P(side in [1, l1]) (paper: 0.4).
    pub p1: f64,
    /// P(side in [l1+1, l2]) (paper: 0.2).
    pub p2: f64,
    /// P(side in [l2+1, l3]) (paper: 0.2).
    pub p3: f64,
    /// P(side in [l3+1, L]) (paper: 0.2).
    pub p4: f64,
    /// Upper end of the first range (paper: 4).
    pub l1: u32,
    /// Upper end of the second range (paper: 8).
    pub l2: u32,
    /// Upper end of the third range (paper: 16).
    pub l3: u32,
}

impl Default for MeshJobsParams {
    fn default() -> Self {
        MeshJobsParams {
            jobs: 10_000,
            width: 32,
            height: 32,
            sides: SideDistribution::UniformDecreasing,
            arrival_rate: 4.5,
            mean_service: 1.0,
            p1: 0.4,
            p2: 0.2,
            p3: 0.2,
            p4: 0.2,
            l1: 4,
            l2: 8,
            l3: 16,
        }
    }
}

impl MeshJobsParams {
    /// Checks the parameters; the error names the offending key.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.jobs == 0 {
            return Err(ParamError::zero("workload.synthetic.jobs"));
        }
        if self.width == 0 {
            return Err(ParamError::zero("workload.synthetic.width"));
        }
        if self.height == 0 {
            return Err(ParamError::zero("workload.synthetic.height"));
        }
        if self.width.checked_mul(self.height).is_none() {
            return Err(ParamError::rule(
                "workload.synthetic.width",
                "× workload.synthetic.height must fit in 32 bits",
            ));
        }
        // Interarrivals have mean 1 / arrival_rate: a time in [MIN_TIME, MAX_TIME].
        if !(self.arrival_rate.is_finite()
            && self.arrival_rate >= 1.0 / crate::limits::MAX_TIME
            && self.arrival_rate <= 1.0 / crate::limits::MIN_TIME)
        {
            return Err(ParamError::rule_got(
                "workload.synthetic.arrival_rate",
                "must be a number ≥ 1e-12 and ≤ 1e6 per second",
                self.arrival_rate,
            ));
        }
        crate::limits::check_mean_time("workload.synthetic.mean_service", self.mean_service)?;
        if self.sides == SideDistribution::UniformDecreasing {
            check_probability("workload.synthetic.p1", self.p1)?;
            check_probability("workload.synthetic.p2", self.p2)?;
            check_probability("workload.synthetic.p3", self.p3)?;
            check_probability("workload.synthetic.p4", self.p4)?;
            let sum = self.p1 + self.p2 + self.p3 + self.p4;
            if (sum - 1.0).abs() > 1e-9 {
                return Err(ParamError::rule_got(
                    "workload.synthetic.p1",
                    "+ p2 + p3 + p4 must be 1",
                    sum,
                ));
            }
            if self.l1 == 0 {
                return Err(ParamError::zero("workload.synthetic.l1"));
            }
            if self.l2 <= self.l1 {
                return Err(ParamError::rule(
                    "workload.synthetic.l2",
                    "must be > workload.synthetic.l1",
                ));
            }
            if self.l3 <= self.l2 {
                return Err(ParamError::rule(
                    "workload.synthetic.l3",
                    "must be > workload.synthetic.l2",
                ));
            }
            let side = self.width.min(self.height);
            if self.l3 >= side {
                return Err(ParamError::rule(
                    "workload.synthetic.l3",
                    format!("must be < the smaller mesh side ({side})"),
                ));
            }
        }
        Ok(())
    }

    /// Generates the workload; an empty one if the parameters do not validate.
    pub fn generate(&self, seed: u64) -> Workload {
        let procs = self.width.saturating_mul(self.height);
        let header = synthetic_header("mesh_jobs", seed, self.jobs, procs);
        if self.validate().is_err() {
            return Workload::from_jobs(header, Vec::new());
        }
        let mut rng = SimRng::new(seed);
        let mean_interarrival = 1.0 / self.arrival_rate;
        let mut t = 0.0;
        let mut jobs = Vec::with_capacity(self.jobs.min(crate::limits::MAX_JOBS));
        for i in 0..self.jobs {
            if i > 0 {
                t += rng.exponential(mean_interarrival);
            }
            let w = self.side(&mut rng, self.width);
            let h = self.side(&mut rng, self.height);
            let run = rng.exponential(self.mean_service);
            let mut job = Job::new(i as u64 + 1, t, run, run, w * h);
            job.shape = Some((w, h));
            jobs.push(job);
        }
        Workload::from_jobs(header, jobs)
    }

    /// One side length on [1, `max`].
    fn side(&self, rng: &mut SimRng, max: u32) -> u32 {
        match self.sides {
            SideDistribution::Uniform => rng.uniform_int(1, u64::from(max)) as u32,
            SideDistribution::UniformDecreasing => {
                let u = rng.uniform01();
                let (lo, hi) = if u < self.p1 {
                    (1, self.l1)
                } else if u < self.p1 + self.p2 {
                    (self.l1 + 1, self.l2)
                } else if u < self.p1 + self.p2 + self.p3 {
                    (self.l2 + 1, self.l3)
                } else {
                    (self.l3 + 1, max)
                };
                rng.uniform_int(u64::from(lo), u64::from(hi)) as u32
            }
        }
    }
}
