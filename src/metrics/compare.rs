//! Comparing two runs of the same workload job by job: which jobs started
//! earlier or later under run B than under run A and by how much, the distribution of those
//! shifts, and the differences of the summary metrics (Ernemann et al. §IV and Srinivasan et al. §5 compare
//! policies by exactly such per-job and per-metric differences).

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{records_iter, JobRecord, Summary};
use crate::sim::JobOutcome;
use crate::workload::Job;

/// One job under both runs. `shift` = start under B − start under A (negative: B started it
/// earlier).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobDelta {
    pub id: u64,
    pub procs: u32,
    pub submit: f64,
    pub start_a: f64,
    pub start_b: f64,
    pub shift: f64,
}

/// One summary metric under both runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricDelta {
    pub key: &'static str,
    pub label: &'static str,
    pub a: f64,
    pub b: f64,
    /// b − a.
    pub change: f64,
    /// (b − a) / a in %, when a ≠ 0.
    pub percent: Option<f64>,
}

/// The per-job and per-metric differences of run B against run A.
#[derive(Clone, Debug, PartialEq)]
pub struct RunComparison {
    /// In arrival order.
    pub jobs: Vec<JobDelta>,
    /// Jobs B started earlier, later, at the same time.
    pub earlier: usize,
    pub later: usize,
    pub same: usize,
    pub metrics: Vec<MetricDelta>,
}

/// Two runs that are not of the same jobs.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareError {
    /// Different numbers of jobs.
    JobCounts { a: usize, b: usize },
    /// The `index`-th jobs differ (number or submit time).
    DifferentJob { index: usize, a: u64, b: u64 },
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::JobCounts { a, b } => write!(
                f,
                "the runs are not of the same workload: {a} jobs against {b}"
            ),
            CompareError::DifferentJob { index, a, b } => write!(
                f,
                "the runs are not of the same workload: job {} is {a} in one and {b} in the \
                 other (or submitted at another time)",
                index + 1
            ),
        }
    }
}

impl std::error::Error for CompareError {}

/// A compared metric: key, label and how to read it from a summary.
pub type Metric = (&'static str, &'static str, fn(&Summary) -> f64);

/// The summary metrics compared.
pub const METRICS: [Metric; 6] = [
    ("mean_wait", "Mean wait", |s| s.mean_wait),
    ("max_wait", "Max wait", |s| s.max_wait),
    ("mean_turnaround", "Mean turnaround", |s| s.mean_turnaround),
    ("mean_bounded_slowdown", "Mean bounded slowdown", |s| {
        s.mean_bounded_slowdown
    }),
    ("utilization", "Utilisation", |s| s.utilization),
    ("makespan", "Makespan", |s| s.makespan),
];

/// Run B (`b`, `b_jobs`) against run A: the jobs must be the same, in the same order (the
/// per-job records of two runs of one workload).
pub fn compare(
    a: &Summary,
    a_jobs: &[JobRecord],
    b: &Summary,
    b_jobs: &[JobRecord],
) -> Result<RunComparison, CompareError> {
    if a_jobs.len() != b_jobs.len() {
        return Err(CompareError::JobCounts {
            a: a_jobs.len(),
            b: b_jobs.len(),
        });
    }
    compare_records(a, a_jobs, b, b_jobs, a_jobs.len())
}

/// Run B against run A from the jobs and outcomes of each run (what a finished run keeps
/// instead of its records): the records are made one at a time ([`records_iter`]) and each
/// summary is [`Summary::from_iter`] with no dropped job — the numbers [`compare`] gives on
/// the runs' records and `Summary::from_records(records, procs, 0)`, to the bit, without a
/// vector of records.
pub fn compare_outcomes(
    procs: u32,
    a: (&[Job], &[JobOutcome]),
    b: (&[Job], &[JobOutcome]),
) -> Result<RunComparison, CompareError> {
    compare_outcomes_with(
        procs,
        (a.0, || a.1.iter().copied()),
        (b.0, || b.1.iter().copied()),
    )
}

/// [`compare_outcomes`] with each run's outcomes given, in arrival order, by a function that
/// yields them again at each call (a run that keeps them in another form is compared without
/// a vector of them).
pub fn compare_outcomes_with<A, B>(
    procs: u32,
    a: (&[Job], impl Fn() -> A),
    b: (&[Job], impl Fn() -> B),
) -> Result<RunComparison, CompareError>
where
    A: Iterator<Item = JobOutcome>,
    B: Iterator<Item = JobOutcome>,
{
    let sa = Summary::from_iter(records_iter(a.0, (a.1)()), procs, 0);
    let sb = Summary::from_iter(records_iter(b.0, (b.1)()), procs, 0);
    // Room for every started job of A at once: the vector of shifts is never doubled.
    let room = (a.1)()
        .take(a.0.len())
        .filter(|o| !o.start.is_nan())
        .count();
    compare_records(
        &sa,
        records_iter(a.0, (a.1)()),
        &sb,
        records_iter(b.0, (b.1)()),
        room,
    )
}

/// [`compare`] over records made one at a time (the runs must yield the same jobs in the same
/// order), with room for `room` jobs made at once.
fn compare_records<R: Borrow<JobRecord>, S: Borrow<JobRecord>>(
    a: &Summary,
    a_jobs: impl IntoIterator<Item = R>,
    b: &Summary,
    b_jobs: impl IntoIterator<Item = S>,
    room: usize,
) -> Result<RunComparison, CompareError> {
    let (mut xs, mut ys) = (a_jobs.into_iter(), b_jobs.into_iter());
    let mut jobs = Vec::with_capacity(room);
    let (mut earlier, mut later, mut same) = (0, 0, 0);
    let mut index = 0;
    loop {
        let (x, y) = match (xs.next(), ys.next()) {
            (Some(x), Some(y)) => (x, y),
            (None, None) => break,
            (x, y) => {
                let rest = |first: bool, n: usize| index + usize::from(first) + n;
                return Err(CompareError::JobCounts {
                    a: rest(x.is_some(), xs.count()),
                    b: rest(y.is_some(), ys.count()),
                });
            }
        };
        let (x, y) = (x.borrow(), y.borrow());
        if x.id != y.id || x.submit != y.submit {
            return Err(CompareError::DifferentJob {
                index,
                a: x.id,
                b: y.id,
            });
        }
        let shift = y.start - x.start;
        if shift < 0.0 {
            earlier += 1;
        } else if shift > 0.0 {
            later += 1;
        } else {
            same += 1;
        }
        jobs.push(JobDelta {
            id: x.id,
            procs: x.procs,
            submit: x.submit,
            start_a: x.start,
            start_b: y.start,
            shift,
        });
        index += 1;
    }
    let metrics = METRICS
        .iter()
        .map(|&(key, label, value)| {
            let (va, vb) = (value(a), value(b));
            MetricDelta {
                key,
                label,
                a: va,
                b: vb,
                change: vb - va,
                percent: (va != 0.0).then(|| (vb - va) / va * 100.0),
            }
        })
        .collect();
    Ok(RunComparison {
        jobs,
        earlier,
        later,
        same,
        metrics,
    })
}

/// One bar of the shift histogram: jobs with lo ≤ shift < hi (the last bar includes hi).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: usize,
}

impl RunComparison {
    /// The shifts of the jobs that moved (earlier or later), in bars of equal width — the
    /// span of the shifts over `bins` — whose edges are whole multiples of the width, so that
    /// 0 is an edge and no bar holds both jobs that started earlier and jobs that started
    /// later (`bins` or a bar or two more); jobs that did not move are
    /// [`RunComparison::same`]. The last bar includes its upper edge.
    pub fn histogram(&self, bins: usize) -> Vec<Bin> {
        let moved = || self.jobs.iter().map(|j| j.shift).filter(|s| *s != 0.0);
        let (lo, hi) = moved().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        if bins == 0 || lo > hi {
            return Vec::new();
        }
        let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
        let width = span / bins as f64;
        let first = libm::floor(lo / width);
        let last = libm::ceil(hi / width).max(first + 1.0);
        let n = (last - first) as usize;
        let mut out: Vec<Bin> = (0..n)
            .map(|i| Bin {
                lo: (first + i as f64) * width,
                hi: (first + i as f64 + 1.0) * width,
                count: 0,
            })
            .collect();
        for s in moved() {
            // floor(s / width) < 0 exactly when s < 0: a bar's jobs share their sign.
            let i = (libm::floor(s / width) - first).clamp(0.0, (n - 1) as f64) as usize;
            out[i].count += 1;
        }
        out
    }

    /// Header of [`RunComparison::csv`].
    pub const CSV_HEADER: &'static str = "job,procs,submit,start_a,start_b,shift";

    /// One CSV row per job, in arrival order, after [`RunComparison::CSV_HEADER`].
    pub fn csv(&self) -> String {
        let mut s = String::from(Self::CSV_HEADER);
        s.push('\n');
        for j in &self.jobs {
            s.push_str(&format!(
                "{},{},{},{},{},{}\n",
                j.id, j.procs, j.submit, j.start_a, j.start_b, j.shift
            ));
        }
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::base::Time;

    fn rec(id: u64, submit: Time, start: Time) -> JobRecord {
        rec_on(id, submit, start, 2)
    }

    /// A 10-second job of `procs` processors submitted at `submit`, started at `start`.
    pub(crate) fn rec_on(id: u64, submit: Time, start: Time, procs: u32) -> JobRecord {
        JobRecord {
            id,
            submit,
            start,
            end: start + 10.0,
            procs,
            run_time: 10.0,
            estimate: 10.0,
            wait: start - submit,
            turnaround: start + 10.0 - submit,
            slowdown: (start + 10.0 - submit) / 10.0,
            bounded_slowdown: (start + 10.0 - submit) / 10.0,
        }
    }

    #[test]
    fn shifts_counts_metrics_and_histogram_by_hand() {
        let a = vec![rec(1, 0.0, 0.0), rec(2, 1.0, 10.0), rec(3, 2.0, 20.0)];
        let b = vec![rec(1, 0.0, 0.0), rec(2, 1.0, 30.0), rec(3, 2.0, 2.0)];
        let (sa, sb) = (
            Summary::from_records(&a, 4, 0),
            Summary::from_records(&b, 4, 0),
        );
        let c = compare(&sa, &a, &sb, &b).unwrap();
        assert_eq!(
            c.jobs.iter().map(|j| j.shift).collect::<Vec<_>>(),
            vec![0.0, 20.0, -18.0]
        );
        assert_eq!((c.earlier, c.later, c.same), (1, 1, 1));
        // Mean wait: A (0 + 9 + 18) / 3 = 9, B (0 + 29 + 0) / 3 = 29/3.
        let w = c.metrics[0];
        assert_eq!(w.key, "mean_wait");
        assert_eq!((w.a, w.b), (9.0, 29.0 / 3.0));
        assert!((w.percent.unwrap() - (29.0 / 3.0 - 9.0) / 9.0 * 100.0).abs() < 1e-12);
        // Moved jobs: −18 and +20; the span 38 over 2 bars is 19 wide, the edges multiples
        // of 19: [−19, 0), [0, 19), [19, 38].
        let bar = |lo: f64, hi: f64, count: usize| Bin { lo, hi, count };
        assert_eq!(
            c.histogram(2),
            vec![bar(-19.0, 0.0, 1), bar(0.0, 19.0, 0), bar(19.0, 38.0, 1)]
        );
        // One shift only: a bar of 1 / bins of it (or of 1 s) from its multiple.
        let one = RunComparison {
            jobs: c.jobs.iter().filter(|j| j.shift == 20.0).cloned().collect(),
            ..c.clone()
        };
        assert_eq!(one.histogram(4), vec![bar(20.0, 25.0, 1)]);
        assert_eq!(
            c.csv(),
            "job,procs,submit,start_a,start_b,shift\n1,2,0,0,0,0\n2,2,1,10,30,20\n3,2,2,20,2,-18\n"
        );
    }

    /// On shifts of every kind — at a bar's edge, tiny, one sign only — every job that moved
    /// is in exactly one bar, that bar holds it, and no bar holds both signs.
    #[test]
    fn histogram_bars_hold_one_sign_and_every_moved_job() {
        let sets: [&[f64]; 6] = [
            &[-18.0, 20.0, 0.0],
            &[-3.0, -2.0, -1.0, 1.0, 2.0, 3.0],
            &[-1e-9, 1e-9, 7200.0, -7200.0, 3600.0],
            &[-50.0, -40.0, -0.5],
            &[0.25, 0.5, 100.0, 99.75],
            &[-86_400.0 * 11.0, -0.1, 0.1, 86_400.0 * 0.3],
        ];
        let delta = |shift: f64| JobDelta {
            id: 0,
            procs: 1,
            submit: 0.0,
            start_a: 0.0,
            start_b: shift,
            shift,
        };
        for shifts in sets {
            for bins in [1, 2, 3, 7, 40] {
                let c = RunComparison {
                    jobs: shifts.iter().map(|&s| delta(s)).collect(),
                    earlier: 0,
                    later: 0,
                    same: 0,
                    metrics: Vec::new(),
                };
                let h = c.histogram(bins);
                let moved: Vec<f64> = shifts.iter().copied().filter(|s| *s != 0.0).collect();
                assert_eq!(h.iter().map(|b| b.count).sum::<usize>(), moved.len());
                assert!(h.len() <= bins + 2, "{shifts:?} {bins}: {} bars", h.len());
                for b in &h {
                    assert!(b.hi <= 0.0 || b.lo >= 0.0, "{shifts:?} {bins}: bar {b:?}");
                }
                for s in moved {
                    let last = h.len() - 1;
                    let within = h
                        .iter()
                        .enumerate()
                        .filter(|(i, b)| b.lo <= s && (s < b.hi || (*i == last && s <= b.hi)));
                    assert_eq!(within.count(), 1, "{shifts:?} {bins}: {s}");
                }
            }
        }
    }

    #[test]
    fn different_workloads_are_refused() {
        let a = vec![rec(1, 0.0, 0.0), rec(2, 1.0, 10.0)];
        let b = vec![rec(1, 0.0, 0.0), rec(7, 1.0, 10.0)];
        let s = Summary::from_records(&a, 4, 0);
        assert_eq!(
            compare(&s, &a, &s, &b),
            Err(CompareError::DifferentJob {
                index: 1,
                a: 2,
                b: 7
            })
        );
        assert_eq!(
            compare(&s, &a, &s, &a[..1]),
            Err(CompareError::JobCounts { a: 2, b: 1 })
        );
        assert!(compare(&s, &a, &s, &a[..1])
            .unwrap_err()
            .to_string()
            .contains("2 jobs against 1"));
    }
}
