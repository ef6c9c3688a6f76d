//! Hand-computed schedules for FCFS, EASY and conservative backfilling ("Must show").
//! Every expected start time below was worked out by hand; the reasoning is in the comments.

use schedlab::metrics::{job_records, Summary};
use schedlab::policy::PolicyKind;
use schedlab::sim::{invariants, SimResult, Simulation};
use schedlab::workload::Job;

/// (submit, procs, run time, estimate)
type Spec = (f64, u32, f64, f64);

fn run(specs: &[Spec], procs: u32, kind: PolicyKind) -> SimResult {
    let jobs: Vec<Job> = specs
        .iter()
        .enumerate()
        .map(|(i, &(s, p, r, e))| Job::new(i as u64, s, r, e, p))
        .collect();
    let policy = kind.build(jobs.len(), procs);
    let result = Simulation::new(jobs, procs, policy)
        .run_to_end()
        .expect("simulation runs");
    let errors = invariants::check(&result, kind == PolicyKind::Fcfs);
    assert!(errors.is_empty(), "{kind:?}: {errors:?}");
    result
}

fn starts(specs: &[Spec], procs: u32, kind: PolicyKind) -> Vec<f64> {
    run(specs, procs, kind)
        .outcomes
        .iter()
        .map(|o| o.start)
        .collect()
}

/// W1 — 10 processors. j2 (2 procs, 3 s) arrives while j1 waits for j0; it ends at 5 ≤ the
/// shadow time 10, so EASY backfills it (the "ends before the shadow time" case).
const W1: &[Spec] = &[(0.0, 6, 10.0, 10.0), (1.0, 6, 5.0, 5.0), (2.0, 2, 3.0, 3.0)];

#[test]
fn w1_backfill_before_shadow() {
    // FCFS: j1 and j2 both wait for j0 and start at 10.
    assert_eq!(starts(W1, 10, PolicyKind::Fcfs), vec![0.0, 10.0, 10.0]);
    // EASY: shadow(j1) = 10, j2 ends at 2 + 3 = 5 ≤ 10 → starts at 2.
    assert_eq!(starts(W1, 10, PolicyKind::Easy), vec![0.0, 10.0, 2.0]);
    // Conservative: j1 reserved [10, 15), j2 fits in the 4 free processors over [2, 5).
    assert_eq!(
        starts(W1, 10, PolicyKind::Conservative),
        vec![0.0, 10.0, 2.0]
    );
}

#[test]
fn w1_summary_by_hand() {
    let r = run(W1, 10, PolicyKind::Easy);
    let s = Summary::from_records(&job_records(&r), r.procs, 0);
    // waits 0, 9, 0; turnarounds 10, 14, 3.
    assert_eq!(s.jobs, 3);
    assert_eq!(s.mean_wait, 3.0);
    assert_eq!(s.max_wait, 9.0);
    assert_eq!(s.mean_turnaround, 9.0);
    // slowdowns 1, 14/5, 1.
    assert!((s.mean_slowdown - 4.8 / 3.0).abs() < 1e-12);
    // bounded (τ = 10): 1, 1.4, max(1, 3/10) = 1.
    assert!((s.mean_bounded_slowdown - 3.4 / 3.0).abs() < 1e-12);
    // makespan 15 − 0; area 60 + 30 + 6 = 96 → 96 / 150.
    assert_eq!(s.makespan, 15.0);
    assert!((s.utilization - 0.64).abs() < 1e-12);
    // SA 60, 30, 6: AWRT = (600 + 420 + 18) / 96, AWWT = 270 / 96, AWSD = (60 + 84 + 6) / 96.
    assert!((s.awrt - 1038.0 / 96.0).abs() < 1e-12);
    assert!((s.awwt - 270.0 / 96.0).abs() < 1e-12);
    assert!((s.awsd - 150.0 / 96.0).abs() < 1e-12);
}

/// W2 — 10 processors. j1 (8 procs) waits for j0: shadow 10, extra = 10 − 8 = 2.
/// j2 (2 procs, 20 s) runs past the shadow time but fits in `extra` → backfilled, extra = 0.
/// j3 (2 procs, 20 s) would also fit the 2 free processors now, but extra is exhausted and it
/// runs past the shadow time → EASY must not backfill it.
const W2: &[Spec] = &[
    (0.0, 6, 10.0, 10.0),
    (1.0, 8, 5.0, 5.0),
    (2.0, 2, 20.0, 20.0),
    (3.0, 2, 20.0, 20.0),
];

#[test]
fn w2_backfill_into_extra_and_refusal() {
    // FCFS: at 10 j1 (8) and j2 (2) start; j3 waits for j1's end at 15.
    assert_eq!(
        starts(W2, 10, PolicyKind::Fcfs),
        vec![0.0, 10.0, 10.0, 15.0]
    );
    // EASY: j2 at 2 (extra), j3 refused at 3; at 10 j1 starts, j3's shadow is j1's end 15.
    assert_eq!(starts(W2, 10, PolicyKind::Easy), vec![0.0, 10.0, 2.0, 15.0]);
    // Conservative: j1 [10,15); j2 fits over [2,22) (4, 2, 10 free); j3 blocked by [10,15)
    // where 0 are free → reserved at 15.
    assert_eq!(
        starts(W2, 10, PolicyKind::Conservative),
        vec![0.0, 10.0, 2.0, 15.0]
    );
}

/// W3 — early completion: j0 (all 10 procs) estimates 20 s but ends at 5.
const W3: &[Spec] = &[
    (0.0, 10, 5.0, 20.0),
    (1.0, 10, 5.0, 5.0),
    (2.0, 5, 2.0, 10.0),
];

#[test]
fn w3_early_completion_moves_reservations_earlier() {
    assert_eq!(starts(W3, 10, PolicyKind::Fcfs), vec![0.0, 5.0, 10.0]);
    // EASY: j1's shadow is 20 (promised), it starts at 5 when j0 ends early.
    let easy = run(W3, 10, PolicyKind::Easy);
    assert_eq!(easy.outcomes[1].start, 5.0);
    assert_eq!(easy.promised[1], Some(20.0));
    assert_eq!(easy.outcomes[2].start, 10.0);
    // Conservative: reservations j1 → 20, j2 → 25 at arrival; j0's early end compresses
    // them to 5 and 10.
    let cons = run(W3, 10, PolicyKind::Conservative);
    assert_eq!(cons.promised[1], Some(20.0));
    assert_eq!(cons.promised[2], Some(25.0));
    assert_eq!(cons.outcomes[1].start, 5.0);
    assert_eq!(cons.outcomes[2].start, 10.0);
    assert_eq!(cons.outcomes[2].end, 12.0);
}

/// W4 — EASY and conservative differ. j1 (8 procs) is the head with shadow 10, extra 2.
/// j2 (10 procs) would be reserved by conservative at [20, 30). j3 (2 procs, 50 s) fits in
/// EASY's extra processors and is backfilled at 3 — delaying j2 (not the head) to 53.
/// Conservative refuses j3 at 3 because it would overlap j2's reservation, and gives it 30.
const W4: &[Spec] = &[
    (0.0, 5, 10.0, 10.0),
    (1.0, 8, 10.0, 10.0),
    (2.0, 10, 10.0, 10.0),
    (3.0, 2, 50.0, 50.0),
];

#[test]
fn w4_easy_delays_a_non_head_job_conservative_does_not() {
    assert_eq!(
        starts(W4, 10, PolicyKind::Fcfs),
        vec![0.0, 10.0, 20.0, 30.0]
    );
    assert_eq!(starts(W4, 10, PolicyKind::Easy), vec![0.0, 10.0, 53.0, 3.0]);
    assert_eq!(
        starts(W4, 10, PolicyKind::Conservative),
        vec![0.0, 10.0, 20.0, 30.0]
    );
}

/// W5 — simultaneity: completions at an instant are processed before arrivals at it, and a
/// zero-estimate job (holds no processor for any positive time) starts at once.
const W5: &[Spec] = &[
    (0.0, 5, 10.0, 10.0),
    (10.0, 5, 5.0, 5.0),
    (10.0, 1, 0.0, 0.0),
];

#[test]
fn w5_completion_before_arrival_and_zero_length_job() {
    for kind in PolicyKind::ALL {
        let r = run(W5, 5, kind);
        assert_eq!(r.outcomes[1].start, 10.0, "{kind:?}");
        assert_eq!(r.outcomes[2].start, 10.0, "{kind:?}");
        assert_eq!(r.outcomes[2].end, 10.0, "{kind:?}");
    }
}

/// W6 — a job whose run time exceeds its estimate is killed at the estimate.
const W6: &[Spec] = &[(0.0, 4, 100.0, 50.0), (0.0, 4, 10.0, 10.0)];

#[test]
fn w6_killed_at_estimate() {
    for kind in PolicyKind::ALL {
        let r = run(W6, 4, kind);
        assert_eq!(r.outcomes[0].end, 50.0, "{kind:?}");
        assert_eq!(r.outcomes[1].start, 50.0, "{kind:?}");
        assert_eq!(r.outcomes[1].end, 60.0, "{kind:?}");
    }
}

/// W7 — the EASY head loop: several jobs start at one instant in arrival order, the first one
/// that does not fit stops the loop even though a later one would fit (that one may only be
/// backfilled): 8 processors, j0 runs; at 5 j1 (4), j2 (6), j3 (2) arrive.
const W7: &[Spec] = &[
    (0.0, 4, 10.0, 10.0),
    (5.0, 4, 10.0, 10.0),
    (5.0, 6, 10.0, 10.0),
    (5.0, 2, 100.0, 100.0),
];

#[test]
fn w7_head_loop_then_backfill() {
    // FCFS: j1 starts at 5 (4 free), j2 must wait until both j0 (10) and j1 (15) free 6.
    // At 10 only 4 + 0 free... j0 ends at 10 → 4 free, j1 runs until 15 → j2 at 15; j3 after.
    assert_eq!(starts(W7, 8, PolicyKind::Fcfs), vec![0.0, 5.0, 15.0, 15.0]);
    // EASY at 5: j1 starts (free 0). j2 blocked: shadow = 10 (j0 frees 4 → 4 < 6), then 15
    // (j1 frees 4 → 8 ≥ 6) → shadow 15, extra 2. j3 has no free processor now (0).
    // At 10: free 4; j2 still blocked (shadow 15, extra 2); j3 (2 procs, ends 110 > 15)
    // fits extra 2 → backfilled at 10.
    assert_eq!(starts(W7, 8, PolicyKind::Easy), vec![0.0, 5.0, 15.0, 10.0]);
    // Conservative at 5: j1 [5,15); j2 needs 6 → reserved at 15 ([15,25)); j3 needs 2 over
    // 100 s: [5,10) has 0 free → at 10: [10,15) 4 free, [15,25) 8 − 6 = 2 free, later 8 → 10.
    assert_eq!(
        starts(W7, 8, PolicyKind::Conservative),
        vec![0.0, 5.0, 15.0, 10.0]
    );
}
