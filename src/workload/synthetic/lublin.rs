//! The Lublin–Feitelson rigid-job model: U. Lublin and D. G. Feitelson, "The workload on
//! parallel supercomputers: modeling the characteristics of rigid jobs", JPDC 63(11),
//! pp. 1105–1122, 2003, as implemented by the authors' C program `m_lublin99.c` (Parallel
//! Workloads Archive), with its batch-job constants as defaults.
//!
//! * Size (§ "number of nodes"): serial with probability `serial_prob`; otherwise log2 of the
//!   size is two-stage uniform on [`ulow`, `umed`) (probability `uprob`) or [`umed`, `uhi`);
//!   with probability `pow2_prob` (taken from the same uniform as the serial decision, as in
//!   the C code) the exponent is rounded, giving a power of two. Size = round(2^exponent),
//!   clamped to the machine (power-of-two jobs to the largest power of two that fits).
//! * Run time: ln(run time) is hyper-gamma, Gamma(`a1`, `b1`) with probability
//!   p = `pa` · size + `pb` (clamped to [0, 1]), else Gamma(`a2`, `b2`); values above
//!   `max_log_run_time` (12, i.e. about two days) are redrawn; run time = ⌊e^x⌋ seconds.
//! * Arrivals: the day is 48 half-hour buckets weighted by the Gamma(`anum`, `bnum`) density
//!   (bucket i gets cdf(i + ½) − cdf(i − ½), i = `cyclic_day_start` … +47, moved cyclically,
//!   normalised to mean 1). Each interarrival draws x ~ Gamma(`aarr` · `arar`, `barr`)
//!   (redrawn above `max_log_interarrival` = 13) and converts e^x seconds at rush-hour rate
//!   into "points" that are spent bucket by bucket, so arrivals are dense in busy buckets and
//!   sparse at night. Time 0 is `start_hour`:00 of day one; the first job arrives after one
//!   interarrival. Submit times are whole seconds, rounded down from the exact arrival clock
//!   (the C code truncates its clock at every step, which makes the daily cycle drift; see
//!   `docs/workload-models.md`).
//!
//! The model has no user estimates: estimate = ⌈run time × `estimate_factor`⌉ (factor 1 by
//! default, i.e. exact). Gamma variates use Marsaglia–Tsang ([`SimRng::gamma`]) instead of
//! the C program's method from Jain's book; the distributions are the same, the streams are
//! not (and could not be: the C code uses `drand48`).

use serde::{Deserialize, Serialize};

use super::{check_positive, check_probability, synthetic_header};
use crate::base::{OutOfRange, ParamError, SimRng};
use crate::workload::{Job, Workload};

/// Half-hour buckets in a day (`BUCKETS`).
pub const BUCKETS: usize = 48;
/// Seconds in one bucket (`SECONDS_IN_BUCKET`).
pub const SECONDS_IN_BUCKET: f64 = 1800.0;
/// Redraw attempts before a rejected gamma value is clamped to its limit instead.
const MAX_REDRAWS: usize = 10_000;
/// Iterations and accuracy of the incomplete-gamma evaluation (`ITER_MAX`, `EPS`).
const ITER_MAX: usize = 1000;
const EPS: f64 = 1e-10;

/// Parameters of the Lublin–Feitelson model; defaults are the batch-job constants of
/// `m_lublin99.c` (`*_BATCH`) on a 128-processor machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LublinParams {
    /// Number of jobs to generate (the C program's `SIZE` is 50,000; default 10,000).
    pub jobs: usize,
    /// Machine size in processors; sizes are clamped to it (C: 2^UHI = 128).
    pub procs: u32,
    /// Probability of a serial (1-processor) job (`SERIAL_PROB_BATCH` = 0.2927).
    pub serial_prob: f64,
    /// Probability of a power-of-two parallel job (`POW2_PROB_BATCH` = 0.6686).
    pub pow2_prob: f64,
    /// log2 of the smallest parallel size (`ULOW_BATCH` = 1.2).
    pub ulow: f64,
    /// Break point of the two-stage uniform (`UMED_BATCH` = 5); `null` = `uhi` − 2.
    pub umed: Option<f64>,
    /// log2 of the largest size (`UHI_BATCH` = 7); `null` = log2(`procs`).
    pub uhi: Option<f64>,
    /// Probability of the lower stage [`ulow`, `umed`) (`UPROB_BATCH` = 0.875).
    pub uprob: f64,
    /// Shape of the first run-time gamma (`A1_BATCH` = 6.57).
    pub a1: f64,
    /// Scale of the first run-time gamma (`B1_BATCH` = 0.823).
    pub b1: f64,
    /// Shape of the second run-time gamma (`A2_BATCH` = 639.1).
    pub a2: f64,
    /// Scale of the second run-time gamma (`B2_BATCH` = 0.0156).
    pub b2: f64,
    /// Slope of p = pa · size + pb (`PA_BATCH` = −0.003).
    pub pa: f64,
    /// Intercept of p = pa · size + pb (`PB_BATCH` = 0.6986).
    pub pb: f64,
    /// Shape of the rush-hour log-interarrival gamma (`AARR_BATCH` = 6.0415).
    pub aarr: f64,
    /// Scale of the rush-hour log-interarrival gamma (`BARR_BATCH` = 0.8531).
    pub barr: f64,
    /// Shape of the daily-cycle gamma (`ANUM_BATCH` = 6.1271).
    pub anum: f64,
    /// Scale of the daily-cycle gamma, in buckets (`BNUM_BATCH` = 5.2740).
    pub bnum: f64,
    /// Arrive-rush-to-all ratio multiplying `aarr` (`ARAR_BATCH` = 1.0519).
    pub arar: f64,
    /// Hour of day at time 0, 0–23 (`START` = 0, midnight).
    pub start_hour: u32,
    /// First bucket index of the cyclic day, 1–48 (`CYCLIC_DAY_START` = 11; the C comment
    /// speaks of hours but the code uses it as a half-hour bucket index).
    pub cyclic_day_start: u32,
    /// Largest accepted ln(run time) (`TOO_MUCH_TIME` = 12).
    pub max_log_run_time: f64,
    /// Largest accepted ln(interarrival time) (`TOO_MUCH_ARRIVE_TIME` = 13).
    pub max_log_interarrival: f64,
    /// Estimate = ⌈run time × factor⌉; the model has no estimates (default 1: exact).
    pub estimate_factor: f64,
}

impl Default for LublinParams {
    fn default() -> Self {
        LublinParams {
            jobs: 10_000,
            procs: 128,
            serial_prob: 0.2927,
            pow2_prob: 0.6686,
            ulow: 1.2,
            umed: None,
            uhi: None,
            uprob: 0.875,
            a1: 6.57,
            b1: 0.823,
            a2: 639.1,
            b2: 0.0156,
            pa: -0.003,
            pb: 0.6986,
            aarr: 6.0415,
            barr: 0.8531,
            anum: 6.1271,
            bnum: 5.2740,
            arar: 1.0519,
            start_hour: 0,
            cyclic_day_start: 11,
            max_log_run_time: 12.0,
            max_log_interarrival: 13.0,
            estimate_factor: 1.0,
        }
    }
}

impl LublinParams {
    /// `uhi`, or log2(`procs`) when unset (7 for 128 processors).
    pub fn uhi_value(&self) -> f64 {
        self.uhi
            .unwrap_or_else(|| libm::log2(f64::from(self.procs.max(1))))
    }

    /// `umed`, or `uhi` − 2 when unset (5 for 128 processors), but never below `ulow`.
    pub fn umed_value(&self) -> f64 {
        self.umed
            .unwrap_or_else(|| (self.uhi_value() - 2.0).max(self.ulow))
    }

    /// Checks the parameters; the error names the offending key.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.jobs == 0 {
            return Err(ParamError::zero("workload.synthetic.jobs"));
        }
        if self.procs == 0 {
            return Err(ParamError::zero("workload.synthetic.procs"));
        }
        check_probability("workload.synthetic.serial_prob", self.serial_prob)?;
        check_probability("workload.synthetic.pow2_prob", self.pow2_prob)?;
        if self.serial_prob + self.pow2_prob > 1.0 + 1e-12 {
            return Err(ParamError::rule(
                "workload.synthetic.serial_prob",
                "+ workload.synthetic.pow2_prob must be ≤ 1",
            ));
        }
        check_probability("workload.synthetic.uprob", self.uprob)?;
        if !(self.ulow.is_finite() && self.ulow >= 0.0) {
            return Err(ParamError::rule_got(
                "workload.synthetic.ulow",
                "must be ≥ 0",
                self.ulow,
            ));
        }
        let (umed, uhi) = (self.umed_value(), self.uhi_value());
        if !(uhi.is_finite() && uhi <= 31.0) {
            return Err(ParamError::rule_got(
                "workload.synthetic.uhi",
                "must be a finite number ≤ 31",
                uhi,
            ));
        }
        if !(umed.is_finite() && umed >= self.ulow) {
            return Err(ParamError::rule_got(
                "workload.synthetic.umed",
                "must be ≥ workload.synthetic.ulow",
                umed,
            ));
        }
        if uhi < umed {
            return Err(ParamError::rule_got(
                "workload.synthetic.uhi",
                "must be ≥ workload.synthetic.umed",
                uhi,
            ));
        }
        check_positive("workload.synthetic.a1", self.a1)?;
        check_positive("workload.synthetic.b1", self.b1)?;
        check_positive("workload.synthetic.a2", self.a2)?;
        check_positive("workload.synthetic.b2", self.b2)?;
        if !self.pa.is_finite() {
            return Err(ParamError::NotFinite {
                key: "workload.synthetic.pa".into(),
            });
        }
        if !self.pb.is_finite() {
            return Err(ParamError::NotFinite {
                key: "workload.synthetic.pb".into(),
            });
        }
        check_positive("workload.synthetic.aarr", self.aarr)?;
        check_positive("workload.synthetic.barr", self.barr)?;
        check_positive("workload.synthetic.anum", self.anum)?;
        check_positive("workload.synthetic.bnum", self.bnum)?;
        check_positive("workload.synthetic.arar", self.arar)?;
        if self.start_hour > 23 {
            return Err(ParamError::rule(
                "workload.synthetic.start_hour",
                "must be in 0..=23",
            ));
        }
        if !(1..=48).contains(&self.cyclic_day_start) {
            return Err(ParamError::rule(
                "workload.synthetic.cyclic_day_start",
                "must be in 1..=48",
            ));
        }
        check_positive("workload.synthetic.max_log_run_time", self.max_log_run_time)?;
        if self.max_log_run_time > 40.0 {
            return Err(ParamError::rule(
                "workload.synthetic.max_log_run_time",
                "must be ≤ 40",
            ));
        }
        check_positive(
            "workload.synthetic.max_log_interarrival",
            self.max_log_interarrival,
        )?;
        if self.max_log_interarrival > 40.0 {
            return Err(ParamError::rule(
                "workload.synthetic.max_log_interarrival",
                "must be ≤ 40",
            ));
        }
        if !(self.estimate_factor.is_finite()
            && self.estimate_factor >= 1.0
            && self.estimate_factor <= crate::limits::MAX_ESTIMATE_FACTOR)
        {
            return Err(ParamError::OutOfRange {
                key: "workload.synthetic.estimate_factor".into(),
                range: OutOfRange {
                    min: 1.0,
                    max: crate::limits::MAX_ESTIMATE_FACTOR,
                    unit: "",
                    value: self.estimate_factor,
                },
            });
        }
        if self.daily_weights().is_none() {
            return Err(ParamError::rule(
                "workload.synthetic.anum",
                "/ workload.synthetic.bnum leave no arrivals in the day's 48 buckets",
            ));
        }
        Ok(())
    }

    /// The normalised weights (mean 1) of the 48 half-hour buckets of the day, bucket 0 =
    /// 00:00–00:30, as `arrive_init` computes them; `None` if they are degenerate.
    pub fn daily_weights(&self) -> Option<[f64; BUCKETS]> {
        let mut w = [0.0; BUCKETS];
        let start = self.cyclic_day_start as usize;
        let mut sum = 0.0;
        for i in start..start + BUCKETS {
            let x = i as f64;
            let idx = (i + BUCKETS - 1) % BUCKETS;
            let v =
                gamma_cdf(x + 0.5, self.anum, self.bnum) - gamma_cdf(x - 0.5, self.anum, self.bnum);
            let v = if v.is_finite() && v > 0.0 { v } else { 0.0 };
            w[idx] = v;
            sum += v;
        }
        let mean = sum / BUCKETS as f64;
        if !(mean.is_finite() && mean > 0.0) {
            return None;
        }
        for v in &mut w {
            *v /= mean;
        }
        Some(w)
    }

    /// Generates the workload; an empty one if the parameters do not validate.
    pub fn generate(&self, seed: u64) -> Workload {
        let header = synthetic_header("lublin", seed, self.jobs, self.procs);
        let weights = match (self.validate(), self.daily_weights()) {
            (Ok(()), Some(w)) => w,
            _ => return Workload::from_jobs(header, Vec::new()),
        };
        let mut rng = SimRng::new(seed);
        let mut arrivals = Arrivals {
            weights,
            bucket: (self.start_hour as usize * BUCKETS / 24) % BUCKETS,
            points: 0.0,
            reminder: 0.0,
            time: 0.0,
            alpha: self.aarr * self.arar,
            beta: self.barr,
            max_log: self.max_log_interarrival,
        };
        let (umed, uhi) = (self.umed_value(), self.uhi_value());
        let mut jobs = Vec::with_capacity(self.jobs.min(crate::limits::MAX_JOBS));
        for i in 0..self.jobs {
            let submit = arrivals.next(&mut rng);
            let procs = self.nodes(&mut rng, umed, uhi);
            let run = self.run_time(&mut rng, procs);
            let estimate = libm::ceil(run * self.estimate_factor);
            // m_lublin99.c writes the job type to field 15 (queue): 1 = batch.
            jobs.push(Job::new_with(
                i as u64 + 1,
                submit,
                run,
                estimate,
                procs,
                |r| r.queue = 1.0,
            ));
        }
        Workload::from_jobs(header, jobs)
    }

    /// `calc_number_of_nodes`: serial, power-of-two or other parallel size.
    fn nodes(&self, rng: &mut SimRng, umed: f64, uhi: f64) -> u32 {
        let u = rng.uniform01();
        if u < self.serial_prob {
            return 1;
        }
        let mut par = rng.two_stage_uniform(self.ulow, umed, uhi, self.uprob);
        let pow2 = u < self.serial_prob + self.pow2_prob;
        if pow2 {
            par = libm::floor(par + 0.5);
        }
        let n = libm::floor(libm::exp2(par) + 0.5);
        let max = f64::from(self.procs);
        if n <= max {
            return (n as u32).max(1);
        }
        if pow2 {
            // Largest power of two that fits the machine.
            1u32 << (31 - self.procs.leading_zeros())
        } else {
            self.procs
        }
    }

    /// `time_from_nodes`: ⌊e^x⌋ with x hyper-gamma, p = pa · nodes + pb.
    fn run_time(&self, rng: &mut SimRng, nodes: u32) -> f64 {
        let p = (self.pa * f64::from(nodes) + self.pb).clamp(0.0, 1.0);
        let mut hg = 0.0;
        for _ in 0..MAX_REDRAWS {
            hg = rng.hyper_gamma(self.a1, self.b1, self.a2, self.b2, p);
            if hg <= self.max_log_run_time {
                break;
            }
        }
        libm::floor(libm::exp(hg.min(self.max_log_run_time)))
    }
}

/// State of the arrival process of one job type (`current`, `points`, `reminder`,
/// `time_from_begin` of `m_lublin99.c`).
struct Arrivals {
    weights: [f64; BUCKETS],
    bucket: usize,
    points: f64,
    reminder: f64,
    time: f64,
    alpha: f64,
    beta: f64,
    max_log: f64,
}

impl Arrivals {
    /// `calc_next_arrive` followed by reading `time_from_begin`: the next arrival time.
    fn next(&mut self, rng: &mut SimRng) -> f64 {
        let mut gam = 0.0;
        for _ in 0..MAX_REDRAWS {
            gam = rng.gamma(self.alpha, self.beta);
            if gam <= self.max_log {
                break;
            }
        }
        self.points += libm::exp(gam.min(self.max_log)) / SECONDS_IN_BUCKET;
        let mut next = 0.0;
        while self.points > self.weights[self.bucket] {
            self.points -= self.weights[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            next += SECONDS_IN_BUCKET;
        }
        let new_reminder = self.points / self.weights[self.bucket];
        next += SECONDS_IN_BUCKET * (new_reminder - self.reminder);
        self.reminder = new_reminder;
        // The C code keeps time_from_begin in an unsigned long and so truncates after every
        // step; the lost ≈ 0.5 s per job accumulate and slide the clock behind the bucket
        // bookkeeping (≈ 7 h per 50,000 jobs), which smears the daily cycle. We keep the
        // exact time and round down only the submit time we emit.
        self.time += next.max(0.0);
        libm::floor(self.time)
    }
}

/// Cdf of Gamma(`alpha`, `beta`) at `x` (regularised lower incomplete gamma of x / beta),
/// series or continued fraction as in Numerical Recipes §6.2 (`gamcdf`, `gser`, `gcf`).
fn gamma_cdf(x: f64, alpha: f64, beta: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let x = x / beta;
    let log_prefactor = -x + alpha * libm::log(x) - libm::lgamma(alpha);
    if x < alpha + 1.0 {
        // Series.
        let mut ap = alpha;
        let mut del = 1.0 / alpha;
        let mut sum = del;
        for _ in 0..ITER_MAX {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * EPS {
                break;
            }
        }
        (sum * libm::exp(log_prefactor)).clamp(0.0, 1.0)
    } else {
        // Continued fraction (modified Lentz).
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - alpha;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..=ITER_MAX {
            let i = i as f64;
            let an = -i * (i - alpha);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < EPS {
                break;
            }
        }
        (1.0 - libm::exp(log_prefactor) * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_cdf_matches_closed_forms() {
        // Gamma(1, b) is exponential: cdf = 1 − e^(−x/b).
        for &x in &[0.1, 1.0, 2.5, 10.0] {
            let want = 1.0 - libm::exp(-x / 2.0);
            assert!((gamma_cdf(x, 1.0, 2.0) - want).abs() < 1e-9);
        }
        // Gamma(2, 1): cdf = 1 − (1 + x) e^(−x).
        for &x in &[0.5, 3.0, 8.0] {
            let want = 1.0 - (1.0 + x) * libm::exp(-x);
            assert!((gamma_cdf(x, 2.0, 1.0) - want).abs() < 1e-9);
        }
        assert_eq!(gamma_cdf(0.0, 2.0, 1.0), 0.0);
    }

    #[test]
    fn default_weights_peak_in_the_afternoon() {
        let w = LublinParams::default()
            .daily_weights()
            .unwrap_or([0.0; BUCKETS]);
        let mean = w.iter().sum::<f64>() / BUCKETS as f64;
        assert!((mean - 1.0).abs() < 1e-12);
        let peak = (0..BUCKETS)
            .max_by(|&a, &b| w[a].total_cmp(&w[b]))
            .unwrap_or(0);
        // Mode of Gamma(6.1271, 5.274) is ≈ 27 buckets → bucket 26, 13:00–13:30.
        assert!((24..=30).contains(&peak), "peak bucket {peak}");
        assert!(w[8] < 0.2 * w[peak], "04:00 vs peak: {} {}", w[8], w[peak]);
    }

    #[test]
    fn nodes_are_clamped_to_non_power_of_two_machines() {
        let p = LublinParams {
            procs: 100,
            uhi: Some(7.0),
            ..LublinParams::default()
        };
        let mut rng = SimRng::new(3);
        for _ in 0..20_000 {
            let n = p.nodes(&mut rng, p.umed_value(), p.uhi_value());
            assert!((1..=100).contains(&n));
        }
    }
}
