//! Invariants of a finished grid run (Ernemann et al. §III-A's machine and job model; the flat
//! checks of [`crate::sim::invariants`] applied to every site):
//!
//! * every job was sent to exactly one site, ran there exactly once, for min(run time,
//!   estimate), never before its submit time;
//! * a job only runs on a machine at least as large as it;
//! * in [`Sharing::Single`] every job runs at its own site;
//! * per site: capacity is never exceeded and no job starts later than the first reservation
//!   its site's policy gave it (EASY's head promise, every conservative reservation);
//! * with conservative backfilling, no job starts later than the start the grid scheduler
//!   allocated it by (the offer is the site's reservation).

use super::engine::{GridResult, NO_SITE};
use super::local::LocalPolicy;
use super::site::Sharing;
use crate::sim::{invariants, JobOutcome, SimResult};

/// Checks `result`; returns every violation found (empty when all hold).
pub fn check(result: &GridResult) -> Vec<String> {
    let mut errors = Vec::new();
    let n = result.jobs.len();
    if result.site_of.len() != n || result.outcomes.len() != n || result.home.len() != n {
        errors.push("result vectors differ in length".to_string());
        return errors;
    }
    let ns = result.sites.len();
    let mut placed = 0usize;
    for j in 0..n {
        let job = &result.jobs[j];
        let s = result.site_of[j];
        if s == NO_SITE {
            errors.push(format!("job {} (#{j}) was never sent to a site", job.id));
            continue;
        }
        if s >= ns {
            errors.push(format!("job {} sent to unknown site {s}", job.id));
            continue;
        }
        if result.sharing == Sharing::Single && s != result.home[j] {
            errors.push(format!(
                "job {} ran at site {s} instead of its own site {} in single mode",
                job.id, result.home[j]
            ));
        }
        if let (LocalPolicy::Conservative, Some(Some(offer))) =
            (result.policy, result.offered.get(j))
        {
            if result.outcomes[j].start > *offer {
                errors.push(format!(
                    "job {} starts at {} after the start {} it was allocated by",
                    job.id, result.outcomes[j].start, offer
                ));
            }
        }
        placed += 1;
    }
    if placed != n {
        errors.push(format!("{placed} of {n} jobs placed on a site"));
    }
    // One site's copy of its jobs at a time, not every site's at once.
    for (s, info) in result.sites.iter().enumerate() {
        let mut r = SimResult {
            policy: result.policy.as_str().to_string(),
            procs: info.procs,
            jobs: Vec::new(),
            outcomes: Vec::new(),
            promised: Vec::new(),
            timeline: Vec::new(),
            explanations: Vec::new(),
        };
        for j in (0..n).filter(|&j| result.site_of[j] == s) {
            r.jobs.push(result.jobs[j].clone());
            r.outcomes.push(result.outcomes[j]);
            r.promised.push(result.promised.get(j).copied().flatten());
        }
        for e in invariants::check(&r, false) {
            errors.push(format!("site {} ({}): {e}", s, info.name));
        }
    }
    errors
}

/// Outcome of job `j` at its site, for tests: `(site, outcome)`.
pub fn placement(result: &GridResult, j: usize) -> Option<(usize, JobOutcome)> {
    let s = *result.site_of.get(j)?;
    if s == NO_SITE {
        return None;
    }
    Some((s, *result.outcomes.get(j)?))
}
