//! Choosing a moldable job's processor count (Srinivasan et al. §3–4.2): the fair-share limit with its
//! weight fractions (strict, §3; modified square root and corrected modified, §4.2), the
//! candidate counts (12 choices spread over the allowed range, §4), the best-turnaround choice
//! on a free-processor profile (Cirne's greedy rule, §3), and the profile-based evaluation of
//! all partition sizes over the free-time blocks with its early stop (§4.1).
//!
//! Weights are effective sequential run times (ESRT) by the estimate; the sums over the jobs
//! in the system are kept in 2⁻¹⁶ fixed point (`u128`), so adding a job at arrival and taking
//! it away at completion is exact and the fractions never depend on the order of updates.

use crate::base::Time;
use crate::policy::profile::Profile;
use crate::workload::moldable::MoldableJob;
use crate::workload::Job;

/// Which weights the fair share divides (§3, §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightRule {
    /// weight / Σ weights of the jobs in the system (§3).
    Strict,
    /// √weight / Σ √weights (§4.2, "modified").
    Sqrt,
    /// √weight / Σ √weights of the *parallel* jobs (§4.2, "corrected modified").
    SqrtParallel,
}

/// The fair-share limit: a job may take at most min(WF × fraction × N, gap × N) processors
/// (never less than its minimum, never more than its maximum).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FairShare {
    pub rule: WeightRule,
    /// WF: 2 in the previous schemes (§3), 1 in the base strategy (§4).
    pub weight_factor: f64,
    /// Largest share of the machine any job may take (90 %, §3).
    pub gap: f64,
}

impl FairShare {
    /// The previous schemes' fair share (§3): strict, WF 2, gap 90 %.
    pub const fn previous() -> FairShare {
        FairShare {
            rule: WeightRule::Strict,
            weight_factor: 2.0,
            gap: 0.9,
        }
    }

    /// The base strategy's (§4): strict, WF 1, gap 90 %.
    pub const fn base() -> FairShare {
        FairShare {
            rule: WeightRule::Strict,
            weight_factor: 1.0,
            gap: 0.9,
        }
    }

    /// The same with another weight rule.
    pub const fn with_rule(self, rule: WeightRule) -> FairShare {
        FairShare { rule, ..self }
    }

    /// The largest count `shape` may take on `total` processors, the job being in `system`.
    pub fn upper(&self, shape: &MoldableJob, system: &SystemWeights, total: u32) -> u32 {
        self.upper_weighted(shape, shape.esrt, system, total)
    }

    /// [`FairShare::upper`] with the job's weight `weight` instead of its ESRT by the estimate
    /// (`super::readings::WeightBasis`).
    pub fn upper_weighted(
        &self,
        shape: &MoldableJob,
        weight: f64,
        system: &SystemWeights,
        total: u32,
    ) -> u32 {
        let (own, sum) = match self.rule {
            WeightRule::Strict => (fixed(weight), system.strict),
            WeightRule::Sqrt => (fixed(weight.max(0.0).sqrt()), system.sqrt),
            WeightRule::SqrtParallel => {
                let own = fixed(weight.max(0.0).sqrt());
                let sum = if shape.is_sequential() {
                    system.sqrt_parallel + own
                } else {
                    system.sqrt_parallel
                };
                (own, sum)
            }
        };
        let fraction = if sum == 0 {
            1.0
        } else {
            (own as f64 / sum as f64).min(1.0)
        };
        let n = f64::from(total);
        let share = libm::floor(self.weight_factor * fraction * n);
        let gap = libm::floor(self.gap * n);
        let cap = share.min(gap).max(0.0) as u32;
        cap.min(shape.max).max(shape.min)
    }
}

/// 2⁻¹⁶ fixed point of a non-negative weight.
fn fixed(w: f64) -> u128 {
    if w.is_finite() && w > 0.0 {
        libm::round(w * 65536.0) as u128
    } else {
        0
    }
}

/// The weights of the jobs in the system (running and waiting), in fixed point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemWeights {
    strict: u128,
    sqrt: u128,
    sqrt_parallel: u128,
}

impl SystemWeights {
    /// `shape`'s job entered the system.
    pub fn add(&mut self, shape: &MoldableJob) {
        self.add_weighted(shape, shape.esrt);
    }

    /// `shape`'s job, of weight `weight`, entered the system.
    pub fn add_weighted(&mut self, shape: &MoldableJob, weight: f64) {
        let r = fixed(weight.max(0.0).sqrt());
        self.strict += fixed(weight);
        self.sqrt += r;
        if !shape.is_sequential() {
            self.sqrt_parallel += r;
        }
    }

    /// `shape`'s job left the system.
    pub fn remove(&mut self, shape: &MoldableJob) {
        self.remove_weighted(shape, shape.esrt);
    }

    /// `shape`'s job, of weight `weight`, left the system.
    pub fn remove_weighted(&mut self, shape: &MoldableJob, weight: f64) {
        let r = fixed(weight.max(0.0).sqrt());
        self.strict = self.strict.saturating_sub(fixed(weight));
        self.sqrt = self.sqrt.saturating_sub(r);
        if !shape.is_sequential() {
            self.sqrt_parallel = self.sqrt_parallel.saturating_sub(r);
        }
    }
}

/// Which counts are evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choices {
    /// At most k counts spread evenly over [min, upper] (both ends included; every count when
    /// the range holds k or fewer). The base strategy uses 12 (§4).
    Even(u32),
    /// Every partition size, by the profile-based search over the free-time blocks (§4.1).
    Profile,
}

/// The counts of [`Choices::Even`]: c_i = min + round(i·(upper − min)/(k − 1)), i = 0..k.
pub fn even_counts(min: u32, upper: u32, k: u32, out: &mut Vec<u32>) {
    out.clear();
    let upper = upper.max(min);
    let span = upper - min;
    if k <= 1 || span < k {
        out.extend(min..=upper);
        return;
    }
    let d = u64::from(k - 1);
    for i in 0..u64::from(k) {
        let c = min + ((i * u64::from(span) * 2 + d) / (2 * d)) as u32;
        if out.last() != Some(&c) {
            out.push(c);
        }
    }
}

/// One evaluated choice: `procs` processors from `start` to `end` (by the estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub procs: u32,
    pub start: Time,
    pub end: Time,
}

/// The choice of `x` processors for `job` on `profile` from `now`, if the machine has them.
fn evaluate(
    profile: &Profile,
    now: Time,
    job: &Job,
    shape: &MoldableJob,
    x: u32,
) -> Option<Choice> {
    let est = shape.estimate(job, x);
    let start = profile.earliest_fit(now, shape.held(job, x), est)?;
    Some(Choice {
        procs: x,
        start,
        end: start + est,
    })
}

/// `true` when `c` beats `best`: earlier completion, ties to fewer processors.
fn better(c: &Choice, best: &Option<Choice>) -> bool {
    match best {
        None => true,
        Some(b) => c.end < b.end || (c.end == b.end && c.procs < b.procs),
    }
}

/// The best-turnaround choice among `counts` (Cirne's greedy rule, §3): earliest completion
/// by the estimate, ties to fewer processors.
pub fn best_of(
    profile: &Profile,
    now: Time,
    job: &Job,
    shape: &MoldableJob,
    counts: &[u32],
) -> Option<Choice> {
    let mut best = None;
    for &x in counts {
        if let Some(c) = evaluate(profile, now, job, shape, x) {
            if better(&c, &best) {
                best = Some(c);
            }
        }
    }
    best
}

/// The profile-based search of §4.1: the free-time blocks are visited from the first; each
/// block's free count, cut to `upper` (a count below the job's minimum is ignored), is
/// evaluated; the search stops at the first block starting at or after the best completion
/// seen so far. Returns the best choice and the number of counts evaluated.
pub fn profile_search(
    profile: &Profile,
    now: Time,
    job: &Job,
    shape: &MoldableJob,
    upper: u32,
) -> (Option<Choice>, u32) {
    let mut best: Option<Choice> = None;
    let mut evaluated = 0u32;
    let mut seen: Vec<u32> = Vec::new();
    for (start, free) in profile.blocks_from(now) {
        if matches!(best, Some(b) if start >= b.end) {
            break;
        }
        let x = free.min(upper);
        if x < shape.min || seen.contains(&x) {
            continue;
        }
        seen.push(x);
        evaluated += 1;
        if let Some(c) = evaluate(profile, now, job, shape, x) {
            if better(&c, &best) {
                best = Some(c);
            }
        }
    }
    if best.is_none() {
        // Every block was below the minimum (a profile of reservations only): the range's
        // top always fits once everything has ended.
        evaluated += 1;
        best = evaluate(profile, now, job, shape, upper);
    }
    (best, evaluated)
}

/// Picks counts under one [`Choices`] rule and counts the evaluations.
#[derive(Clone, Debug)]
pub struct Chooser {
    pub choices: Choices,
    /// Counts evaluated so far.
    pub evaluations: u64,
    scratch: Vec<u32>,
}

impl Chooser {
    /// A chooser under `choices`.
    pub fn new(choices: Choices) -> Chooser {
        Chooser {
            choices,
            evaluations: 0,
            scratch: Vec::new(),
        }
    }

    /// `job`'s best choice on `profile` from `now` with fair-share limit `upper`.
    pub fn pick(
        &mut self,
        profile: &Profile,
        now: Time,
        job: &Job,
        shape: &MoldableJob,
        upper: u32,
    ) -> Option<Choice> {
        match self.choices {
            Choices::Even(k) => {
                even_counts(shape.min, upper, k, &mut self.scratch);
                self.evaluations += self.scratch.len() as u64;
                best_of(profile, now, job, shape, &self.scratch)
            }
            Choices::Profile => {
                let (c, n) = profile_search(profile, now, job, shape, upper);
                self.evaluations += u64::from(n);
                c
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::moldable::Scaling;

    #[test]
    fn twelve_counts_spread_over_the_range() {
        let mut v = Vec::new();
        even_counts(1, 128, 12, &mut v);
        assert_eq!(v.len(), 12);
        assert_eq!((v[0], v[11]), (1, 128));
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        even_counts(3, 7, 12, &mut v);
        assert_eq!(v, vec![3, 4, 5, 6, 7]);
        even_counts(5, 5, 12, &mut v);
        assert_eq!(v, vec![5]);
    }

    fn linear(min: u32, max: u32, p: u32, est: f64) -> MoldableJob {
        MoldableJob::new(
            min,
            max,
            p,
            Scaling::Downey {
                a: f64::from(max),
                sigma: 0.0,
            },
            est,
            &[],
        )
    }

    #[test]
    fn fair_share_caps_by_weight_and_gap() {
        let a = linear(1, 100, 10, 100.0); // ESRT 1000
        let b = linear(1, 100, 10, 300.0); // ESRT 3000
        let mut w = SystemWeights::default();
        w.add(&a);
        w.add(&b);
        let fs = FairShare::base();
        assert_eq!(fs.upper(&a, &w, 100), 25);
        assert_eq!(fs.upper(&b, &w, 100), 75);
        assert_eq!(FairShare::previous().upper(&b, &w, 100), 90);
        let sq = fs.with_rule(WeightRule::Sqrt);
        // √1000 / (√1000 + √3000) = 1 / (1 + √3) ≈ 0.366.
        assert_eq!(sq.upper(&a, &w, 100), 36);
        w.remove(&b);
        assert_eq!(fs.upper(&a, &w, 100), 90);
        w.remove(&a);
        assert_eq!(w, SystemWeights::default());
    }
}
