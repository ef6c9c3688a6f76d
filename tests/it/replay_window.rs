//! Per-job views of runs of any size: a window of a run's replay
//! (`sim::replay_window`), recorded by simulating the run again, shows every instant of the
//! window exactly as the replay of the whole run does; and the comparison of two runs from
//! their jobs and outcomes (what the worker keeps, `metrics::compare_outcomes`) is the
//! comparison of their per-job records (`metrics::compare`).
#![cfg(not(target_arch = "wasm32"))]

use schedlab::metrics::compare_view::{first_rows, SortOrder};
use schedlab::metrics::{compare, compare_outcomes, compare_outcomes_with, job_records, Summary};
use schedlab::policy::PolicyKind;
use schedlab::sim::replay::{Replay, ReplayState};
use schedlab::sim::replay_window::{bounds, window};
use schedlab::sim::{SimResult, Simulation};
use schedlab::workload::synthetic::LublinParams;
use schedlab::workload::Job;

const PROCS: u32 = 64;

fn jobs() -> Vec<Job> {
    LublinParams {
        jobs: 4000,
        procs: PROCS,
        ..LublinParams::default()
    }
    .generate(11)
    .jobs
}

fn simulation(jobs: &[Job], kind: PolicyKind) -> Simulation {
    Simulation::new(jobs.to_vec(), PROCS, kind.build(jobs.len(), PROCS))
}

fn run(jobs: &[Job], kind: PolicyKind) -> SimResult {
    simulation(jobs, kind)
        .with_explanations()
        .run_to_end()
        .expect("runs")
}

/// `s` with its job indices counted from `first` instead of from 0.
fn from(first: usize, mut s: ReplayState) -> ReplayState {
    for j in &mut s.running {
        j.job += first;
    }
    for q in &mut s.queue {
        q.job += first;
    }
    if let Some(h) = &mut s.head {
        h.job += first;
    }
    for d in &mut s.decisions {
        d.job += first;
    }
    for v in [&mut s.arrived, &mut s.started, &mut s.ended] {
        for j in v.iter_mut() {
            *j += first;
        }
    }
    s
}

#[test]
fn a_window_shows_its_instants_as_the_whole_replay_does() {
    let jobs = jobs();
    for kind in [PolicyKind::Easy, PolicyKind::Conservative, PolicyKind::Fcfs] {
        let r = run(&jobs, kind);
        let whole = Replay::new(PROCS, job_records(&r), r.explanations.clone());
        let (first, last) = (whole.timeline().first(), whole.timeline().last());
        let mut checked = 0;
        for frac in [0.0, 0.1, 0.5, 0.93, 1.0] {
            let t = first + frac * (last - first);
            let (t0, t1) = bounds(&jobs, &r.outcomes, t);
            assert!(t0 <= t && t <= t1, "{kind:?} {t}: [{t0}, {t1}]");
            let w =
                window(simulation(&jobs, kind), &r.outcomes, PROCS, (t0, t1)).expect("runs again");
            assert!(w.records.len() < jobs.len() || frac == 0.0 || frac == 1.0);
            assert_eq!(w.span, (first, last));
            let part = w.replay();
            let tl = w.timeline();
            assert_eq!((tl.first(), tl.last()), (first, last));
            let mut times: Vec<f64> = whole
                .records()
                .iter()
                .flat_map(|j| [j.submit, j.start, j.end])
                .filter(|x| w.covers(*x))
                .collect();
            times.extend([t0, t1, t, (t0 + t1) / 2.0]);
            times.sort_by(f64::total_cmp);
            times.dedup();
            for &x in times.iter().step_by(3).chain([t0, t1].iter()) {
                assert_eq!(
                    from(w.first, part.state_at(x)),
                    whole.state_at(x),
                    "{kind:?} at {x} in [{t0}, {t1}]"
                );
                assert_eq!(w.instant_number(x), whole.timeline().count_upto(x));
                checked += 1;
            }
            // A step out of the window lands on the run's next and previous instants.
            assert_eq!(tl.next_after(t1), whole.timeline().next_after(t1));
            assert_eq!(tl.prev_before(t0), whole.timeline().prev_before(t0));
        }
        assert!(checked > 300, "{kind:?}: {checked} instants");
    }
}

#[test]
fn the_comparison_from_outcomes_is_that_of_the_records() {
    let jobs = jobs();
    let a = run(&jobs, PolicyKind::Fcfs);
    let b = run(&jobs, PolicyKind::Easy);
    let (ra, rb) = (job_records(&a), job_records(&b));
    let expected = compare(
        &Summary::from_records(&ra, PROCS, 0),
        &ra,
        &Summary::from_records(&rb, PROCS, 0),
        &rb,
    )
    .expect("same jobs");
    let got =
        compare_outcomes(PROCS, (&a.jobs, &a.outcomes), (&b.jobs, &b.outcomes)).expect("same jobs");
    assert_eq!(got, expected);
    assert!(got.earlier > 0 && got.later > 0);
    // Outcomes given one at a time, as a run that keeps them in another form gives them.
    let again = compare_outcomes_with(
        PROCS,
        (&a.jobs, || a.outcomes.iter().copied()),
        (&b.jobs, || b.outcomes.iter().copied()),
    )
    .expect("same jobs");
    assert_eq!(again, expected);
    for column in 0..6 {
        for ascending in [true, false] {
            let order = SortOrder { column, ascending };
            let mut all = expected.jobs.clone();
            all.sort_by(|x, y| order.cmp(x, y));
            assert_eq!(first_rows(&got, order, 100), all[..100]);
        }
    }
    assert!(compare_outcomes(
        PROCS,
        (&a.jobs, &a.outcomes),
        (&b.jobs[1..], &b.outcomes[1..])
    )
    .is_err());
}
