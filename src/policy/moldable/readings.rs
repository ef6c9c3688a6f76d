//! The readings of Srinivasan, Krishnamoorthy and Sadayappan ("A robust scheduling strategy for
//! moldable scheduling of parallel jobs") that the text leaves open, as options of the
//! schedule-time strategies (`schedlab reproduce moldable --readings`; the default is the
//! reproduction's reading):
//!
//! * **the weight of the fair share** (§3, §4.2): "the effective sequential run time" (§3),
//!   "total processor-seconds needed" (§4.2). §2.2 defines the effective sequential run time
//!   as L = T(n)·S(n) from the job's *run time* T(n); the scheduler only knows the estimate.
//!   [`WeightBasis::Estimate`] (default): ESRT by the estimate; [`WeightBasis::Actual`]: by
//!   the actual run time.
//! * **the Xfactor's scale** (§4.3): "Xfactor = (Queue time + ESRT) / ESRT … a job is given a
//!   reservation as soon as its elapsed queue time exceeds 3 times its sequential wall-clock
//!   limit" (k = 4, which the paper gives and which is kept). [`XfactorScale::SequentialEstimate`]
//!   (default): ESRT by the estimate (the "sequential wall-clock limit");
//!   [`XfactorScale::SequentialActual`]: ESRT by the run time (§2.2's L);
//!   [`XfactorScale::RequestedEstimate`]: the wall-clock limit at the trace's processor count
//!   (the usual Xfactor, not sequential — outside the text, reported as a bound).
//! * **the scheduler's weight category** (§4.3: "we partition the jobs into categories based
//!   on their weights"): [`CategoryBasis::RequestedEstimate`] (default): requested processors
//!   × estimate; [`CategoryBasis::RequestedActual`]: requested processors × actual run time —
//!   the "workload-based weights" the metric's categories use (§2.3), an oracle;
//!   [`CategoryBasis::Weight`]: the fair share's weight (§3: "Weight refers to the effective
//!   sequential run time"), by the estimate or the run time as [`WeightBasis`] says (equal to
//!   the default at σ = 0, where S(n) = n).

use crate::workload::moldable::MoldableJob;
use crate::workload::Job;

/// The weight the fair share divides (§3, §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WeightBasis {
    /// ESRT by the estimate (the sequential wall-clock limit).
    #[default]
    Estimate,
    /// ESRT by the actual run time (§2.2's L = T(n)·S(n); "processor-seconds needed").
    Actual,
}

/// The time scale of the Xfactor (§4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum XfactorScale {
    /// ESRT by the estimate.
    #[default]
    SequentialEstimate,
    /// ESRT by the actual run time.
    SequentialActual,
    /// The estimate at the trace's processor count (not sequential).
    RequestedEstimate,
}

/// What the scheduler's weight category is computed from (§4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CategoryBasis {
    /// Requested processors × estimate.
    #[default]
    RequestedEstimate,
    /// Requested processors × actual run time (the metric's categories).
    RequestedActual,
    /// The fair share's weight (ESRT, by [`Readings::weight`]).
    Weight,
}

/// One reading of §3–4.3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Readings {
    pub weight: WeightBasis,
    pub xfactor: XfactorScale,
    pub category: CategoryBasis,
}

impl Readings {
    /// The reproduction's reading (ESRT by the estimate everywhere, categories by the estimate).
    pub const DEFAULT: Readings = Readings {
        weight: WeightBasis::Estimate,
        xfactor: XfactorScale::SequentialEstimate,
        category: CategoryBasis::RequestedEstimate,
    };

    /// Every combination, the default first.
    pub fn all() -> Vec<Readings> {
        let mut out = Vec::new();
        for weight in [WeightBasis::Estimate, WeightBasis::Actual] {
            for xfactor in [
                XfactorScale::SequentialEstimate,
                XfactorScale::SequentialActual,
                XfactorScale::RequestedEstimate,
            ] {
                for category in [
                    CategoryBasis::RequestedEstimate,
                    CategoryBasis::RequestedActual,
                    CategoryBasis::Weight,
                ] {
                    out.push(Readings {
                        weight,
                        xfactor,
                        category,
                    });
                }
            }
        }
        out
    }

    /// A short label: `W est · X seq-est · C est` (C W: the category by the weight W).
    pub fn label(&self) -> String {
        format!(
            "W {} · X {} · C {}",
            match self.weight {
                WeightBasis::Estimate => "est",
                WeightBasis::Actual => "act",
            },
            match self.xfactor {
                XfactorScale::SequentialEstimate => "seq-est",
                XfactorScale::SequentialActual => "seq-act",
                XfactorScale::RequestedEstimate => "req-est",
            },
            match self.category {
                CategoryBasis::RequestedEstimate => "est",
                CategoryBasis::RequestedActual => "act",
                CategoryBasis::Weight => "W",
            }
        )
    }

    /// The fair-share weight of `job`.
    pub fn weight(&self, job: &Job, shape: &MoldableJob) -> f64 {
        match self.weight {
            WeightBasis::Estimate => shape.esrt,
            WeightBasis::Actual => actual_esrt(job, shape),
        }
    }

    /// The Xfactor's time scale of `job`.
    pub fn xfactor_scale(&self, job: &Job, shape: &MoldableJob) -> f64 {
        match self.xfactor {
            XfactorScale::SequentialEstimate => shape.esrt,
            XfactorScale::SequentialActual => actual_esrt(job, shape),
            XfactorScale::RequestedEstimate => job.estimate,
        }
    }

    /// The weight the scheduler's category is taken from.
    pub fn category_weight(&self, job: &Job, shape: &MoldableJob) -> f64 {
        match self.category {
            CategoryBasis::RequestedEstimate => f64::from(job.procs) * job.estimate,
            CategoryBasis::RequestedActual => f64::from(job.procs) * job.run_time,
            CategoryBasis::Weight => self.weight(job, shape),
        }
    }
}

/// ESRT by the actual run time: the ESRT by the estimate × run time / estimate (the run time
/// and the estimate scale alike, `docs/moldable.md`); the estimate's ESRT when the estimate is
/// not positive.
pub fn actual_esrt(job: &Job, shape: &MoldableJob) -> f64 {
    if job.estimate > 0.0 {
        shape.esrt * job.run_time / job.estimate
    } else {
        shape.esrt
    }
}
