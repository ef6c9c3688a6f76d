//! The worker's half of the job-by-job comparison of runs of any size ([`ToWorker::Compare`],
//! [`ToWorker::CompareCsv`]): the two runs' jobs are prepared again from their experiments
//! (deterministic: the jobs they simulated) and paired with the kept outcomes
//! ([`crate::metrics::compare_outcomes_with`], no vector of records nor of outcomes); only the view — counts,
//! metrics, histogram, the first rows in the order asked — crosses to the page. The last
//! comparison is kept (its per-job shifts, 48 bytes a job) so that sorting another column or
//! asking for the CSV does not compute it again.
//!
//! [`ToWorker::Compare`]: super::protocol::ToWorker::Compare
//! [`ToWorker::CompareCsv`]: super::protocol::ToWorker::CompareCsv

use std::cell::RefCell;
use std::rc::Rc;

use super::protocol::{COMPARE_BINS, COMPARE_ROWS};
use super::worker_core::{kept_run, FinishedRun};
use crate::metrics::compare_view::{ComparisonView, SortOrder};
use crate::metrics::{compare_outcomes_with, RunComparison};
use crate::modes::flat::run::{self, Prepared};
use crate::modes::flat::spec::Experiment;

thread_local! {
    /// The last comparison: runs A and B and their comparison.
    static LAST: RefCell<Option<(u32, u32, Rc<RunComparison>)>> = const { RefCell::new(None) };
}

/// The words of a run no longer kept.
const NOT_KEPT: &str = "That run is no longer kept by the simulator (it keeps the last few \
                        runs): run the experiment again to compare it.";

/// The comparison of runs `a` and `b` as the page shows it, its rows in `sort` order.
pub fn view(a: u32, b: u32, sort: SortOrder) -> Result<ComparisonView, String> {
    let c = comparison(a, b)?;
    Ok(ComparisonView::of(&c, sort, COMPARE_ROWS, COMPARE_BINS))
}

/// The CSV of every job of the comparison of runs `a` and `b`.
pub fn csv(a: u32, b: u32) -> Result<String, String> {
    Ok(comparison(a, b)?.csv())
}

/// The comparison of runs `a` and `b`: the kept one, or computed (and kept).
fn comparison(a: u32, b: u32) -> Result<Rc<RunComparison>, String> {
    let kept = LAST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(x, y, _)| (*x, *y) == (a, b))
            .map(|(_, _, c)| Rc::clone(c))
    });
    if let Some(c) = kept {
        return Ok(c);
    }
    // Free the previous comparison before building the next one.
    LAST.with(|l| l.borrow_mut().take());
    let (ra, rb) = (kept_run(a).ok_or(NOT_KEPT)?, kept_run(b).ok_or(NOT_KEPT)?);
    let pa = rebuild(&ra)?;
    let pb = if same_jobs(&ra.experiment, &rb.experiment) {
        None
    } else {
        Some(rebuild(&rb)?)
    };
    let jobs_b = pb.as_ref().unwrap_or(&pa);
    // The kept outcomes are read as kept, one at a time: no vector of them is made.
    let c = compare_outcomes_with(
        pa.procs,
        (&pa.workload.jobs, || ra.outcomes.iter()),
        (&jobs_b.workload.jobs, || rb.outcomes.iter()),
    )
    .map_err(|e| format!("These runs cannot be compared: {e}."))?;
    let c = Rc::new(c);
    LAST.with(|l| *l.borrow_mut() = Some((a, b, Rc::clone(&c))));
    Ok(c)
}

/// Whether two experiments prepare the same jobs: they differ in nothing but the policy, its
/// queue order and the label.
fn same_jobs(x: &Experiment, y: &Experiment) -> bool {
    let mut y = y.clone();
    y.policy = x.policy;
    y.queue = x.queue.clone();
    y.name = x.name.clone();
    *x == y
}

/// The jobs of a kept run, prepared again (without their SWF records), checked against its
/// outcomes.
pub(super) fn rebuild(r: &FinishedRun) -> Result<Prepared, String> {
    let input = r.trace.as_ref().map(super::worker_core::trace_input);
    let prepared = run::prepare_lean(&r.experiment, input, &crate::limits::Limits::DEFAULT)
        .map_err(|e| e.to_string())?;
    if prepared.workload.jobs.len() != r.outcomes.len() {
        return Err(format!(
            "The simulator could not rebuild that run ({} jobs prepared, {} simulated): run \
             the experiment again.",
            prepared.workload.jobs.len(),
            r.outcomes.len()
        ));
    }
    Ok(prepared)
}
