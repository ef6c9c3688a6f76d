//! The reservations of the schedule-time strategies (Srinivasan et al. §3, §4.3): EASY's single
//! reservation for the first waiting job, category-based reservations (the jobs fall in 10
//! weight categories with exponentially growing bounds; the first waiting job of each category
//! that cannot start holds a reservation — "a reservation depth of one for each partition")
//! and Xfactor-based reservations (every waiting job whose Xfactor = (queue time + ESRT) /
//! ESRT exceeds k holds one; k = 4 in the paper).
//!
//! A job's category for the scheduler is that of its requested processors × estimate (the
//! scheduler cannot know the actual run time the metrics' categories use; `docs/moldable.md`).

use super::readings::Readings;
use crate::base::Time;
use crate::workload::moldable::{category_of, MoldableJob, CATEGORY_COUNT};
use crate::workload::Job;

/// Which waiting jobs get a reservation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reservations {
    /// The first waiting job that cannot start (EASY).
    pub head: bool,
    /// The first waiting job of each weight category.
    pub category: bool,
    /// Every waiting job whose Xfactor exceeds this threshold k.
    pub xfactor: Option<f64>,
}

/// The paper's Xfactor threshold k (§4.3).
pub const XFACTOR_K: f64 = 4.0;

impl Reservations {
    /// EASY: the head only.
    pub const HEAD: Reservations = Reservations {
        head: true,
        category: false,
        xfactor: None,
    };
    /// One per category (the head is the first of its category, so it keeps one too).
    pub const CATEGORY: Reservations = Reservations {
        head: true,
        category: true,
        xfactor: None,
    };
    /// The head and every job past the Xfactor threshold.
    pub const XFACTOR: Reservations = Reservations {
        head: true,
        category: false,
        xfactor: Some(XFACTOR_K),
    };
    /// Both enhanced policies.
    pub const BOTH: Reservations = Reservations {
        head: true,
        category: true,
        xfactor: Some(XFACTOR_K),
    };

    /// A fresh pass over the queue (one per decision).
    pub fn pass(self) -> ReservationPass {
        self.pass_with(Readings::DEFAULT)
    }

    /// A fresh pass whose categories and Xfactors follow `readings`.
    pub fn pass_with(self, readings: Readings) -> ReservationPass {
        ReservationPass {
            rules: self,
            readings,
            head_taken: false,
            taken: [false; CATEGORY_COUNT],
        }
    }
}

/// The scheduler's weight category of `job`: requested processors × estimate.
pub fn scheduler_category(job: &Job) -> usize {
    category_of(f64::from(job.procs) * job.estimate)
}

/// Xfactor of `job` at `now`: (queue time + ESRT) / ESRT (1 for a job of no ESRT).
pub fn xfactor(now: Time, job: &Job, shape: &MoldableJob) -> f64 {
    xfactor_over(now, job, shape.esrt)
}

/// Xfactor of `job` at `now` on the time scale `scale`: (queue time + scale) / scale (1 when
/// the scale is not positive).
pub fn xfactor_over(now: Time, job: &Job, scale: f64) -> f64 {
    if scale > 0.0 {
        (now - job.submit + scale) / scale
    } else {
        1.0
    }
}

/// Which reservations are still free in one pass over the queue (arrival order).
#[derive(Clone, Debug)]
pub struct ReservationPass {
    rules: Reservations,
    readings: Readings,
    head_taken: bool,
    taken: [bool; CATEGORY_COUNT],
}

impl ReservationPass {
    /// `true` when `job`, if it cannot start now, gets a reservation.
    pub fn wants(&self, now: Time, job: &Job, shape: &MoldableJob) -> bool {
        (self.rules.head && !self.head_taken)
            || (self.rules.category && !self.taken[self.category(job, shape)])
            || self.rules.xfactor.is_some_and(|k| {
                xfactor_over(now, job, self.readings.xfactor_scale(job, shape)) > k
            })
    }

    /// The scheduler's category of `job` under this pass's readings.
    fn category(&self, job: &Job, shape: &MoldableJob) -> usize {
        if self.readings.category == Readings::DEFAULT.category {
            scheduler_category(job)
        } else {
            category_of(self.readings.category_weight(job, shape))
        }
    }

    /// `job` took a reservation.
    pub fn took(&mut self, job: &Job, shape: &MoldableJob) {
        self.head_taken = true;
        if self.rules.category {
            let c = self.category(job, shape);
            self.taken[c] = true;
        }
    }

    /// `true` when no later job can get a reservation by position (head or category): only
    /// the Xfactor rule is left.
    pub fn positions_taken(&self) -> bool {
        (!self.rules.head || self.head_taken)
            && (!self.rules.category || self.taken.iter().all(|&t| t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::moldable::Scaling;

    #[test]
    fn xfactor_threshold_and_categories() {
        let job = Job::new(1, 0.0, 10.0, 10.0, 1);
        let shape = MoldableJob::new(1, 1, 1, Scaling::Downey { a: 1.0, sigma: 0.0 }, 10.0, &[]);
        assert_eq!(xfactor(0.0, &job, &shape), 1.0);
        assert_eq!(xfactor(30.0, &job, &shape), 4.0);
        let pass = Reservations::XFACTOR.pass();
        let mut p = pass.clone();
        p.took(&job, &shape);
        assert!(!p.wants(30.0, &job, &shape));
        assert!(p.wants(30.5, &job, &shape));
        let mut c = Reservations::CATEGORY.pass();
        assert!(c.wants(0.0, &job, &shape));
        c.took(&job, &shape);
        assert!(!c.wants(0.0, &job, &shape));
        let big = Job::new(2, 0.0, 1e6, 1e6, 64);
        assert!(c.wants(0.0, &big, &shape));
        assert!(!c.positions_taken());
    }
}
