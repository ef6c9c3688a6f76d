//! Property tests over random workloads: the run invariants hold for every policy, and the
//! policies relate as they must ("Must show").
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use schedlab::policy::PolicyKind;
use schedlab::sim::{invariants, SimResult, Simulation};
use schedlab::workload::Job;

const PROCS: u32 = 16;

fn workload() -> impl Strategy<Value = Vec<Job>> {
    // (interarrival, procs, run, estimate slack); small integers create many ties.
    prop::collection::vec((0u32..6, 1u32..=PROCS, 0u32..30, 0u32..20), 1..60).prop_map(|v| {
        let mut t = 0.0;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, p, run, slack))| {
                t += gap as f64;
                // Some jobs are killed at their estimate (slack 0..4 below the run time).
                let est = if slack < 4 {
                    (run as f64 - slack as f64).max(0.0)
                } else {
                    run as f64 + slack as f64
                };
                Job::new(i as u64, t, run as f64, est, p)
            })
            .collect()
    })
}

fn simulate(jobs: &[Job], kind: PolicyKind) -> SimResult {
    let policy = kind.build(jobs.len(), PROCS);
    Simulation::new(jobs.to_vec(), PROCS, policy)
        .run_to_end()
        .expect("simulation runs")
}

/// Conservative backfilling as the engine runs it and with the plain compression
/// (`ConservativeBackfilling::visiting_every_job`): the same first reservations and starts.
fn same_as_plain_compression(jobs: &[Job]) -> Result<(), TestCaseError> {
    use schedlab::policy::ConservativeBackfilling;
    let fast = simulate(jobs, PolicyKind::Conservative);
    let plain = Box::new(ConservativeBackfilling::visiting_every_job(
        jobs.len(),
        PROCS,
    ));
    let plain = Simulation::new(jobs.to_vec(), PROCS, plain)
        .run_to_end()
        .expect("simulation runs");
    let starts = |r: &SimResult| r.outcomes.iter().map(|o| o.start).collect::<Vec<_>>();
    prop_assert_eq!(&fast.promised, &plain.promised);
    prop_assert_eq!(starts(&fast), starts(&plain));
    Ok(())
}

/// A deliberately naive EASY written straight from its definition (docs/policies.md),
/// recomputing everything at every instant: the engine's EASY must give exactly the same start
/// times.
fn reference_easy(jobs: &[Job], procs: u32) -> Vec<f64> {
    crate::naive::easy(jobs, procs, |_, _| {}, |_, _| {})
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn invariants_hold_for_every_policy(jobs in workload()) {
        for kind in PolicyKind::ALL {
            let r = simulate(&jobs, kind);
            let errors = invariants::check(&r, kind == PolicyKind::Fcfs);
            prop_assert!(errors.is_empty(), "{:?}: {:?}", kind, errors);
        }
    }

    #[test]
    fn conservative_reserves_every_job_and_keeps_every_promise(jobs in workload()) {
        let r = simulate(&jobs, PolicyKind::Conservative);
        for (o, p) in r.outcomes.iter().zip(&r.promised) {
            let p = p.expect("every job gets a reservation");
            prop_assert!(o.start <= p);
        }
    }

    #[test]
    fn conservative_with_exact_estimates_starts_every_job_at_its_reservation(jobs in workload()) {
        let exact: Vec<Job> = jobs
            .iter()
            .map(|j| Job::new(j.id, j.submit, j.run_time, j.run_time, j.procs))
            .collect();
        let r = simulate(&exact, PolicyKind::Conservative);
        for (o, p) in r.outcomes.iter().zip(&r.promised) {
            prop_assert_eq!(Some(o.start), *p);
        }
    }

    #[test]
    fn same_input_same_schedule(jobs in workload()) {
        for kind in PolicyKind::ALL {
            prop_assert_eq!(simulate(&jobs, kind).outcomes, simulate(&jobs, kind).outcomes);
        }
    }

    #[test]
    fn easy_matches_the_naive_reference(jobs in workload()) {
        let r = simulate(&jobs, PolicyKind::Easy);
        let engine: Vec<f64> = r.outcomes.iter().map(|o| o.start).collect();
        prop_assert_eq!(engine, reference_easy(&jobs, PROCS));
    }

    /// Conservative's compression skips the jobs that cannot move; the plain
    /// compression, which searches every waiting job's earlier fit, gives the same schedule.
    #[test]
    fn conservative_skipping_matches_the_plain_compression(jobs in workload()) {
        same_as_plain_compression(&jobs)?;
    }

    #[test]
    fn the_first_job_never_waits(jobs in workload()) {
        for kind in PolicyKind::ALL {
            let r = simulate(&jobs, kind);
            prop_assert_eq!(r.outcomes[0].start, jobs[0].submit);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The same on queues long enough to fill several chunks of the waiting queue: up to 600
    /// jobs arriving faster than they run, most of them finishing before their estimate.
    #[test]
    fn conservative_skipping_matches_the_plain_compression_on_long_queues(
        v in prop::collection::vec((0u32..3, 1u32..=PROCS, 1u32..40, 0u32..60), 100..600)
    ) {
        let mut t = 0.0;
        let jobs: Vec<Job> = v
            .into_iter()
            .enumerate()
            .map(|(i, (gap, p, run, slack))| {
                t += gap as f64;
                Job::new(i as u64, t, run as f64, (run + slack) as f64, p)
            })
            .collect();
        same_as_plain_compression(&jobs)?;
    }
}

// ----------------------------------------------------------------------------------------
// The data structures behind EASY and conservative against simple references.
// ----------------------------------------------------------------------------------------

mod queue_tree_reference {
    use proptest::prelude::*;
    use schedlab::policy::queue_tree::{FitQuery, QueueTree};

    #[derive(Clone, Debug)]
    enum Op {
        Push(u32, u32),
        Remove(usize),
        Query(usize, u32, u32, u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u32..12, 0u32..40).prop_map(|(p, e)| Op::Push(p, e)),
            2 => (0usize..10_000).prop_map(Op::Remove),
            2 => (0usize..10_000, 0u32..14, 0u32..8, 0u32..50)
                .prop_map(|(f, free, extra, s)| Op::Query(f, free, extra, s)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// `next_fit` finds exactly the first waiting job (in arrival order, from a position
        /// on) that a linear scan of the queue finds; sizes and estimates are drawn from
        /// small ranges, so staircases are often longer than a node keeps.
        #[test]
        fn next_fit_is_the_first_match_of_a_linear_scan(ops in prop::collection::vec(op(), 1..400)) {
            let mut t = QueueTree::with_capacity(2);
            // (procs, estimate, waiting) by job id = arrival order.
            let mut jobs: Vec<(u32, f64, bool)> = Vec::new();
            for op in ops {
                match op {
                    Op::Push(p, e) => {
                        t.push(jobs.len(), p, e as f64);
                        jobs.push((p, e as f64, true));
                    }
                    Op::Remove(k) => {
                        let waiting: Vec<usize> = (0..jobs.len()).filter(|&j| jobs[j].2).collect();
                        if waiting.is_empty() {
                            continue;
                        }
                        let j = waiting[k % waiting.len()];
                        // The tree's position of job j: positions follow arrival order from
                        // the head's job on.
                        let h = t.head().expect("a job waits");
                        let pos = h + j - t.job(h);
                        prop_assert_eq!(t.job(pos), j);
                        t.remove(pos);
                        jobs[j].2 = false;
                    }
                    Op::Query(k, free, extra, s) => {
                        let Some(h) = t.head() else {
                            prop_assert!(jobs.iter().all(|j| !j.2));
                            continue;
                        };
                        let first = t.job(h);
                        let from_job = first + k % (jobs.len() - first + 1);
                        let q = FitQuery { free, extra, now: 10.0, shadow: 10.0 + s as f64 };
                        let want = (from_job..jobs.len()).find(|&j| {
                            let (p, e, w) = jobs[j];
                            w && p <= free && (p <= extra || 10.0 + e <= q.shadow)
                        });
                        let got = t.next_fit(h + (from_job - first), &q).map(|pos| t.job(pos));
                        prop_assert_eq!(got, want);
                    }
                }
                prop_assert_eq!(t.len(), jobs.iter().filter(|j| j.2).count());
            }
        }
    }
}
