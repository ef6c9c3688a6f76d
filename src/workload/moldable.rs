//! Moldable jobs (Srinivasan et al. §2.1–2.2): Downey's speedup model, the processor range a range
//! factor RF gives a rigid job, the run time T(x) on any count x of its range, user-supplied
//! scalability profiles (a table processors → run time per application, interpolated, in place
//! of the paper's NAS Parallel Benchmark data, §6), the effective sequential run time (ESRT)
//! and the 10 exponentially growing weight categories (§2.3, §4.3).
//!
//! **Downey's model.** The seed's formula is garbled; this is Downey's published model
//! (Downey 1997, "A model for speedup of parallel programs"), with A the average parallelism
//! and σ the coefficient of variance in parallelism:
//!
//! * low variance (σ ≤ 1): S(n) = An / (A + σ(n − 1)/2) for 1 ≤ n ≤ A;
//!   S(n) = An / (σ(A − 1/2) + n(1 − σ/2)) for A ≤ n ≤ 2A − 1; S(n) = A for n ≥ 2A − 1;
//! * high variance (σ ≥ 1): S(n) = nA(σ + 1) / (σ(n + A − 1) + A) for 1 ≤ n ≤ A + Aσ − σ;
//!   S(n) = A for n ≥ A + Aσ − σ.
//!
//! Both branches agree at σ = 1, S(1) = 1, and S is continuous at every breakpoint (tested).
//!
//! **From a rigid job to a moldable one** (§2.2): a job that ran on p of the machine's N
//! processors gets the range min = ⌊(1 − 1/RF)·p⌋ + 1, max = p + ⌊(N − p)/RF⌋ — rounded
//! down, so that p always lies in [min, max] (RF = 1: [1, N]) — and A = max. Its effective
//! sequential time is L = T(p)·S(p), so T(x) = L / S(x) = T(p)·S(p)/S(x). We apply this
//! factor S(p)/S(x) to both the trace's run time (what the job really runs) and its estimate
//! (what the scheduler plans with), and return T(p) itself for x = p (no rounding). A
//! sequential job (p = 1) stays sequential: range [1, 1] — §4.2 speaks of "each sequential job
//! can only take at most 1 processor" (`docs/moldable.md`).

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::base::{OutOfRange, Time};
use crate::workload::Job;

/// Number of weight categories (§2.3, §4.3).
pub const CATEGORY_COUNT: usize = 10;

/// Category (0..10) of a job of weight `w` processor-seconds: category k holds
/// [8^k, 8^(k+1)) for k = 1..8, category 0 everything below 8, category 9 everything from 8^9
/// up (our choice: the paper does not list its bounds; docs/metrics.md).
pub fn category_of(weight: f64) -> usize {
    let mut bound = 8.0;
    let mut k = 0;
    while k < CATEGORY_COUNT - 1 && weight >= bound {
        bound *= 8.0;
        k += 1;
    }
    k
}

/// Downey's speedup S(n) of a job of average parallelism `a` (≥ 1) and variance `sigma`
/// (≥ 0) on `n` ≥ 1 processors (module docs). Values of `n` below 1 count as 1.
pub fn downey_speedup(n: f64, a: f64, sigma: f64) -> f64 {
    let n = if n < 1.0 { 1.0 } else { n };
    let a = if a < 1.0 { 1.0 } else { a };
    if sigma <= 1.0 {
        if n <= a {
            a * n / (a + sigma * (n - 1.0) / 2.0)
        } else if n <= 2.0 * a - 1.0 {
            a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0))
        } else {
            a
        }
    } else if n <= a + a * sigma - sigma {
        n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a)
    } else {
        a
    }
}

/// The processor range of a job that ran on `p` of `total` processors under range factor
/// `rf` ≥ 1: (min, max) with min ≤ p ≤ max (module docs). A sequential job stays [1, 1].
pub fn range_of(p: u32, total: u32, rf: f64) -> (u32, u32) {
    let p = p.max(1);
    let total = total.max(p);
    if p == 1 {
        return (1, 1);
    }
    let rf = if rf.is_finite() && rf >= 1.0 { rf } else { 1.0 };
    let min = (libm::floor((1.0 - 1.0 / rf) * f64::from(p)) as u32 + 1).clamp(1, p);
    let max = (p + libm::floor(f64::from(total - p) / rf) as u32).clamp(p, total);
    (min, max)
}

/// A rejected [`ScalabilityProfile`] table. Prints as "`key`: `message`", the key relative to
/// the profile (`points[1]`).
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileError {
    /// No (processors, run time) pair.
    NoPoints,
    /// The processor count of `points[index]` is 0 or not above the previous one.
    Processors { index: usize, got: u32 },
    /// The run time of `points[index]` is not a time ([`crate::limits::check_time`]).
    RunTime { index: usize, range: OutOfRange },
}

impl ProfileError {
    /// The key at fault, relative to the profile: `points` or `points[i]`.
    pub fn key(&self) -> String {
        match self {
            ProfileError::NoPoints => "points".into(),
            ProfileError::Processors { index, .. } | ProfileError::RunTime { index, .. } => {
                format!("points[{index}]")
            }
        }
    }

    /// The message without the key.
    pub fn message(&self) -> String {
        match self {
            ProfileError::NoPoints => "must list at least one (processors, run time) pair".into(),
            ProfileError::Processors { got, .. } => {
                format!("processors must be > 0 and strictly increasing (got {got})")
            }
            ProfileError::RunTime { range, .. } => format!("run time {range}"),
        }
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key(), self.message())
    }
}

impl std::error::Error for ProfileError {}

/// A user-supplied scalability profile (§6): run times of one application on some processor
/// counts, interpolated linearly in between. The job's range is the table's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalabilityProfile {
    /// The application's name (`nas-cg`).
    pub name: String,
    /// (processors, run time) pairs, processors strictly increasing, run times > 0.
    pub points: Vec<(u32, f64)>,
}

impl ScalabilityProfile {
    /// Checks the table; the error names the key under `profiles[i]`.
    pub fn validate(&self) -> Result<(), ProfileError> {
        if self.points.is_empty() {
            return Err(ProfileError::NoPoints);
        }
        let mut last = 0u32;
        for (index, &(p, t)) in self.points.iter().enumerate() {
            if p == 0 || p <= last {
                return Err(ProfileError::Processors { index, got: p });
            }
            crate::limits::check_time(t).map_err(|range| ProfileError::RunTime { index, range })?;
            last = p;
        }
        Ok(())
    }

    /// Smallest and largest tabulated counts.
    pub fn range(&self) -> (u32, u32) {
        let lo = self.points.first().map_or(1, |p| p.0);
        let hi = self.points.last().map_or(1, |p| p.0);
        (lo, hi)
    }

    /// The tabulated run time at `x` processors, linearly interpolated (clamped to the table).
    pub fn time_at(&self, x: u32) -> f64 {
        let Some(&(p0, t0)) = self.points.first() else {
            return 1.0;
        };
        if x <= p0 {
            return t0;
        }
        for w in self.points.windows(2) {
            let ((a, ta), (b, tb)) = (w[0], w[1]);
            if x <= b {
                let f = f64::from(x - a) / f64::from(b - a);
                return ta + (tb - ta) * f;
            }
        }
        self.points.last().map_or(t0, |p| p.1)
    }
}

/// How a moldable job's run time depends on its processor count.
#[derive(Clone, Debug, PartialEq)]
pub enum Scaling {
    /// Downey's model with average parallelism `a` and variance `sigma`.
    Downey { a: f64, sigma: f64 },
    /// Profile number `profile` of the run's table.
    Profile { profile: usize },
}

/// What makes a rigid [`Job`] moldable: its range, its reference count (the trace's p, clamped
/// into the range) and its scaling.
#[derive(Clone, Debug, PartialEq)]
pub struct MoldableJob {
    pub min: u32,
    pub max: u32,
    /// The count the trace's run time and estimate belong to (T(base) = the trace's values).
    pub base: u32,
    pub scaling: Scaling,
    /// Effective sequential run time by the estimate (ESRT, §4.3): L = estimate × S(p) for
    /// Downey; for a profile, min × T_est(min) (our choice: the table has no sequential time).
    pub esrt: f64,
    /// The profile table of a [`Scaling::Profile`] job (shared by the jobs of a run).
    table: Option<Arc<ScalabilityProfile>>,
    /// T(base) by the scaling alone (1/S(base), or the table's time at base).
    time_base: f64,
}

impl MoldableJob {
    /// A job of range [min, max] whose trace values hold on `base`, scaling as `scaling`;
    /// `profiles` holds the tables a [`Scaling::Profile`] refers to.
    pub fn new(
        min: u32,
        max: u32,
        base: u32,
        scaling: Scaling,
        estimate: Time,
        profiles: &[ScalabilityProfile],
    ) -> MoldableJob {
        let table = match &scaling {
            Scaling::Profile { profile } => profiles.get(*profile).cloned().map(Arc::new),
            Scaling::Downey { .. } => None,
        };
        MoldableJob::build(min, max, base, scaling, estimate, table)
    }

    /// [`MoldableJob::new`] with the job's table already shared. Nothing is stored per count,
    /// so a range as wide as any machine costs nothing.
    fn build(
        min: u32,
        max: u32,
        base: u32,
        scaling: Scaling,
        estimate: Time,
        table: Option<Arc<ScalabilityProfile>>,
    ) -> MoldableJob {
        let max = max.max(min.max(1));
        let min = min.max(1);
        let base = base.clamp(min, max);
        let mut job = MoldableJob {
            min,
            max,
            base,
            scaling,
            esrt: 0.0,
            table,
            time_base: 1.0,
        };
        job.time_base = job.time(base);
        job.esrt = match &job.scaling {
            Scaling::Downey { a, sigma } => estimate * downey_speedup(f64::from(base), *a, *sigma),
            Scaling::Profile { .. } => f64::from(min) * estimate * job.time(min) / job.time_base,
        };
        job
    }

    /// The run time on `x` processors by the scaling alone (any unit).
    fn time(&self, x: u32) -> f64 {
        match &self.scaling {
            Scaling::Downey { a, sigma } => 1.0 / downey_speedup(f64::from(x), *a, *sigma),
            Scaling::Profile { .. } => self.table.as_ref().map_or(1.0, |p| p.time_at(x)),
        }
    }

    /// A rigid job: range [p, p], linear speedup up to p (so its ESRT is p × estimate).
    pub fn rigid(p: u32, estimate: Time) -> MoldableJob {
        let a = f64::from(p.max(1));
        MoldableJob::new(p, p, p, Scaling::Downey { a, sigma: 0.0 }, estimate, &[])
    }

    /// T(x)/T(base), or `None` when `x` is outside the range.
    pub fn factor(&self, x: u32) -> Option<f64> {
        if !self.allows(x) {
            return None;
        }
        Some(if x == self.base {
            1.0
        } else {
            self.time(x) / self.time_base
        })
    }

    /// `true` when `x` is in the range.
    pub fn allows(&self, x: u32) -> bool {
        (self.min..=self.max).contains(&x)
    }

    /// `true` for a sequential job (it can only take one processor).
    pub fn is_sequential(&self) -> bool {
        self.max == 1
    }

    /// What `job` really runs on `x` processors: T(x) by its run time (min(run, estimate)).
    pub fn run_time(&self, job: &Job, x: u32) -> Time {
        let d = job.duration();
        match self.factor(x) {
            Some(f) if x != self.base => d * f,
            _ => d,
        }
    }

    /// What the scheduler plans for `job` on `x` processors: T(x) by its estimate.
    pub fn estimate(&self, job: &Job, x: u32) -> Time {
        match self.factor(x) {
            Some(f) if x != self.base => job.estimate * f,
            _ => job.estimate,
        }
    }

    /// Processors `job` holds on `x` processors: `x`, or 0 when it runs for no time by its
    /// estimate (as [`Job::procs_held`]).
    pub fn held(&self, job: &Job, x: u32) -> u32 {
        if job.estimate > 0.0 {
            x
        } else {
            0
        }
    }
}

/// How the jobs of a run become moldable (§2.2): Downey's model with one σ and one range
/// factor for every job, or user-supplied scalability profiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MoldableModel {
    /// σ and RF for all jobs of the run (the paper's first kind of experiment).
    Downey {
        /// σ ≥ 0: 0 = linear speedup, larger = poorer scalability.
        sigma: f64,
        /// RF ≥ 1: 1 = any count from 1 to the machine; larger = narrower ranges.
        range_factor: f64,
    },
    /// Each job takes one application's profile, chosen by job id (the paper's §6 took NAS
    /// benchmarks at random; our choice: profile = job id mod the number of profiles, so the
    /// assignment needs no random number and is the same for every strategy).
    Profiles { profiles: Vec<ScalabilityProfile> },
}

impl Default for MoldableModel {
    fn default() -> Self {
        MoldableModel::Downey {
            sigma: 0.0,
            range_factor: 1.0,
        }
    }
}

/// Largest σ accepted (Downey's high-variance branch is defined for any σ; beyond this the
/// model says little).
pub const MAX_SIGMA: f64 = 100.0;
/// Largest range factor accepted.
pub const MAX_RANGE_FACTOR: f64 = 1.0e6;
/// Most profiles, and most points per profile.
pub const MAX_PROFILES: usize = 1000;

impl MoldableModel {
    /// Checks the values; the error is `(key, message)` with the key below `model`.
    pub fn validate(&self) -> Result<(), (String, String)> {
        match self {
            MoldableModel::Downey {
                sigma,
                range_factor,
            } => {
                if !(sigma.is_finite() && (0.0..=MAX_SIGMA).contains(sigma)) {
                    return Err((
                        "model.downey.sigma".into(),
                        format!(
                            "must be a number in 0 ..= {MAX_SIGMA} (got {})",
                            crate::limits::echo_number(*sigma)
                        ),
                    ));
                }
                if !(range_factor.is_finite() && (1.0..=MAX_RANGE_FACTOR).contains(range_factor)) {
                    return Err((
                        "model.downey.range_factor".into(),
                        format!(
                            "must be a number in 1 ..= {MAX_RANGE_FACTOR} (got {})",
                            crate::limits::echo_number(*range_factor)
                        ),
                    ));
                }
            }
            MoldableModel::Profiles { profiles } => {
                if profiles.is_empty() || profiles.len() > MAX_PROFILES {
                    return Err((
                        "model.profiles.profiles".into(),
                        format!("must list 1 ..= {MAX_PROFILES} profiles"),
                    ));
                }
                for (i, p) in profiles.iter().enumerate() {
                    if p.points.len() > MAX_PROFILES {
                        return Err((
                            format!("model.profiles.profiles[{i}].points"),
                            format!("at most {MAX_PROFILES} points"),
                        ));
                    }
                    p.validate().map_err(|e| {
                        (
                            format!("model.profiles.profiles[{i}].{}", e.key()),
                            e.message(),
                        )
                    })?;
                }
            }
        }
        Ok(())
    }

    /// The moldable view of every job of a run on `total` processors. With profiles, a
    /// table's counts above `total` are cut to `total`.
    pub fn apply(&self, jobs: &[Job], total: u32) -> Vec<MoldableJob> {
        match self {
            MoldableModel::Downey {
                sigma,
                range_factor,
            } => jobs
                .iter()
                .map(|j| {
                    let (min, max) = range_of(j.procs, total, *range_factor);
                    let scaling = Scaling::Downey {
                        a: f64::from(max),
                        sigma: *sigma,
                    };
                    MoldableJob::new(min, max, j.procs, scaling, j.estimate, &[])
                })
                .collect(),
            MoldableModel::Profiles { profiles } => {
                let tables: Vec<Arc<ScalabilityProfile>> =
                    profiles.iter().cloned().map(Arc::new).collect();
                jobs.iter()
                    .map(|j| {
                        let k = (j.id % profiles.len().max(1) as u64) as usize;
                        let (lo, hi) = profiles.get(k).map_or((1, 1), ScalabilityProfile::range);
                        let hi = hi.min(total).max(1);
                        let lo = lo.min(hi);
                        let base = j.procs.clamp(lo, hi);
                        let scaling = Scaling::Profile { profile: k };
                        let table = tables.get(k).cloned();
                        MoldableJob::build(lo, hi, base, scaling, j.estimate, table)
                    })
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn speedup_of_one_processor_is_one() {
        for &a in &[1.0, 2.0, 7.5, 64.0, 430.0] {
            for &s in &[0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 10.0] {
                assert!(close(downey_speedup(1.0, a, s), 1.0), "A={a} σ={s}");
            }
        }
    }

    #[test]
    fn speedup_is_continuous_at_every_breakpoint() {
        let eps = 1e-7;
        for &a in &[2.0, 5.0, 64.0, 128.0] {
            for &s in &[0.0, 0.3, 0.5, 0.99, 1.0] {
                for b in [a, 2.0 * a - 1.0] {
                    let (l, r) = (downey_speedup(b - eps, a, s), downey_speedup(b + eps, a, s));
                    assert!((l - r).abs() < 1e-4, "A={a} σ={s} at {b}: {l} vs {r}");
                }
                // The second piece meets the first at A and reaches A at 2A − 1.
                let second = |n: f64| a * n / (s * (a - 0.5) + n * (1.0 - s / 2.0));
                assert!(close(second(a), a * a / (a + s * (a - 1.0) / 2.0)));
                assert!(close(second(2.0 * a - 1.0), a));
            }
            for &s in &[1.0, 1.01, 1.5, 2.0, 4.0] {
                let b = a + a * s - s;
                let (l, r) = (downey_speedup(b - eps, a, s), downey_speedup(b + eps, a, s));
                assert!((l - r).abs() < 1e-4, "A={a} σ={s} at {b}: {l} vs {r}");
                assert!(close(downey_speedup(b, a, s), a));
            }
            // Both branches agree at σ = 1.
            for n in [1.0, 2.0, a / 2.0, a] {
                let lo = a * n / (a + (n - 1.0) / 2.0);
                let hi = n * a * 2.0 / (n + a - 1.0 + a);
                assert!(close(lo, hi));
            }
        }
    }

    #[test]
    fn speedup_is_linear_at_sigma_zero_and_capped_at_a() {
        assert!(close(downey_speedup(10.0, 64.0, 0.0), 10.0));
        assert!(close(downey_speedup(200.0, 64.0, 0.0), 64.0));
        assert!(close(downey_speedup(1000.0, 64.0, 2.0), 64.0));
        // Non-decreasing in n.
        for &s in &[0.0, 0.5, 1.0, 2.0] {
            let mut last = 0.0;
            for n in 1..300 {
                let v = downey_speedup(f64::from(n), 64.0, s);
                assert!(v >= last - 1e-12);
                last = v;
            }
        }
    }

    #[test]
    fn ranges_contain_the_rigid_size() {
        assert_eq!(range_of(16, 128, 1.0), (1, 128));
        assert_eq!(range_of(16, 128, 2.0), (9, 72));
        assert_eq!(range_of(16, 128, 4.0), (13, 44));
        assert_eq!(range_of(1, 128, 1.0), (1, 1));
        assert_eq!(range_of(128, 128, 3.0), (86, 128));
        for p in 1..=128 {
            for rf in [1.0, 1.5, 2.0, 3.0, 4.0, 100.0] {
                let (lo, hi) = range_of(p, 128, rf);
                assert!(1 <= lo && lo <= p && p <= hi && hi <= 128);
            }
        }
    }

    #[test]
    fn run_time_follows_the_speedup_and_is_exact_at_p() {
        let job = Job::new(1, 0.0, 100.0, 200.0, 8);
        let m = MoldableModel::Downey {
            sigma: 0.0,
            range_factor: 1.0,
        }
        .apply(std::slice::from_ref(&job), 64)
        .remove(0);
        assert_eq!((m.min, m.max, m.base), (1, 64, 8));
        assert_eq!(m.run_time(&job, 8), 100.0);
        assert_eq!(m.estimate(&job, 8), 200.0);
        assert!(close(m.run_time(&job, 16), 50.0));
        assert!(close(m.run_time(&job, 1), 800.0));
        assert!(close(m.esrt, 1600.0));
        assert_eq!(m.factor(0), None);
        assert_eq!(m.factor(65), None);
    }

    #[test]
    fn profiles_interpolate() {
        let p = ScalabilityProfile {
            name: "cg".into(),
            points: vec![(4, 100.0), (8, 60.0), (16, 40.0)],
        };
        assert!(p.validate().is_ok());
        assert_eq!(p.time_at(4), 100.0);
        assert_eq!(p.time_at(6), 80.0);
        assert_eq!(p.time_at(12), 50.0);
        assert_eq!(p.time_at(32), 40.0);
        let job = Job::new(3, 0.0, 30.0, 30.0, 8);
        let model = MoldableModel::Profiles {
            profiles: vec![p.clone()],
        };
        let m = model.apply(std::slice::from_ref(&job), 128).remove(0);
        assert_eq!((m.min, m.max, m.base), (4, 16, 8));
        assert!(close(m.run_time(&job, 16), 20.0));
        assert!(close(m.run_time(&job, 4), 50.0));
        let bad = ScalabilityProfile {
            name: "x".into(),
            points: vec![(4, 1.0), (4, 2.0)],
        };
        assert_eq!(
            bad.validate().unwrap_err().to_string(),
            "points[1]: processors must be > 0 and strictly increasing (got 4)"
        );
        let slow = ScalabilityProfile {
            name: "x".into(),
            points: vec![(4, 0.0)],
        };
        assert_eq!(
            slow.validate().unwrap_err().to_string(),
            "points[0]: run time must be a number ≥ 0.000001 and ≤ 1000000000000 seconds (got 0)"
        );
        let empty = ScalabilityProfile {
            name: "x".into(),
            points: Vec::new(),
        };
        assert_eq!(
            empty.validate().unwrap_err().to_string(),
            "points: must list at least one (processors, run time) pair"
        );
        let e = MoldableModel::Profiles {
            profiles: vec![bad],
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.0, "model.profiles.profiles[0].points[1]");
    }

    #[test]
    fn categories_grow_by_eight() {
        assert_eq!(category_of(7.9), 0);
        assert_eq!(category_of(8.0), 1);
        assert_eq!(category_of(64.0), 2);
        assert_eq!(category_of(1e12), 9);
    }
}
