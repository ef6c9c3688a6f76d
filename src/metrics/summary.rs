//! The run summary. Definitions (see docs/metrics.md):
//! - wait = start − submit; turnaround = end − submit; means over all simulated jobs;
//! - slowdown = turnaround / (end − start) (1 for zero-length jobs); bounded slowdown
//!   = max(1, turnaround / max(end − start, 10 s));
//! - makespan = last end − first submit; utilisation = Σ procs·(end − start) / (P · makespan);
//! - AWRT, AWWT, AWSD: Ernemann et al. eq. (1)–(7), each job weighted by its squashed area
//!   SA_j = procs_j · (end_j − start_j).

use serde::{Deserialize, Serialize};

use super::JobRecord;

/// Summary metrics of one run. The field names are the JSON keys the CLI prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub jobs: usize,
    pub dropped: usize,
    pub mean_wait: f64,
    pub max_wait: f64,
    pub mean_turnaround: f64,
    pub mean_slowdown: f64,
    pub mean_bounded_slowdown: f64,
    pub utilization: f64,
    pub makespan: f64,
    pub awrt: f64,
    pub awwt: f64,
    pub awsd: f64,
}

impl Summary {
    /// Summary of `records` (one per simulated job) on a machine of `procs` processors.
    pub fn from_records(records: &[JobRecord], procs: u32, dropped: usize) -> Summary {
        Self::from_iter(records, procs, dropped)
    }

    /// [`Summary::from_records`] of records produced one at a time (no vector of them).
    pub fn from_iter<R: std::borrow::Borrow<JobRecord>>(
        records: impl IntoIterator<Item = R>,
        procs: u32,
        dropped: usize,
    ) -> Summary {
        let mut n = 0;
        let mut s = Summary {
            jobs: 0,
            dropped,
            mean_wait: 0.0,
            max_wait: 0.0,
            mean_turnaround: 0.0,
            mean_slowdown: 0.0,
            mean_bounded_slowdown: 0.0,
            utilization: 0.0,
            makespan: 0.0,
            awrt: 0.0,
            awwt: 0.0,
            awsd: 0.0,
        };
        let (mut wait, mut turn, mut sd, mut bsd) = (0.0, 0.0, 0.0, 0.0);
        let (mut total_sa, mut sa_resp, mut sa_wait, mut sa_sd) = (0.0, 0.0, 0.0, 0.0);
        let mut first_submit = f64::INFINITY;
        let mut last_end = f64::NEG_INFINITY;
        for r in records {
            let r = r.borrow();
            n += 1;
            wait += r.wait;
            turn += r.turnaround;
            sd += r.slowdown;
            bsd += r.bounded_slowdown;
            if r.wait > s.max_wait {
                s.max_wait = r.wait;
            }
            let sa = r.procs as f64 * (r.end - r.start);
            total_sa += sa;
            sa_resp += sa * r.turnaround;
            sa_wait += sa * r.wait;
            sa_sd += sa * r.slowdown;
            if r.submit < first_submit {
                first_submit = r.submit;
            }
            if r.end > last_end {
                last_end = r.end;
            }
        }
        if n == 0 {
            return s;
        }
        s.jobs = n;
        let nf = n as f64;
        s.mean_wait = wait / nf;
        s.mean_turnaround = turn / nf;
        s.mean_slowdown = sd / nf;
        s.mean_bounded_slowdown = bsd / nf;
        s.makespan = last_end - first_submit;
        if s.makespan > 0.0 && procs > 0 {
            s.utilization = total_sa / (procs as f64 * s.makespan);
        }
        if total_sa > 0.0 {
            s.awrt = sa_resp / total_sa;
            s.awwt = sa_wait / total_sa;
            s.awsd = sa_sd / total_sa;
        }
        s
    }
}
