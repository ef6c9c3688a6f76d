//! The flat policy's axes (docs/policies.md, "Queue orders, backfilling and estimates"):
//! hand-computed schedules for every queue order and every backfilling variant, the invariants
//! after every run, and property tests of each axis against a naive implementation written
//! straight from its definition.

use proptest::prelude::*;
use schedlab::policy::order::{parse_policy, BuiltinOrder};
use schedlab::policy::{OrderedBackfilling, PolicyKind};
use schedlab::sim::{invariants, SimResult, Simulation};
use schedlab::workload::Job;

/// (submit, procs, run time, estimate)
type Spec = (f64, u32, f64, f64);

fn jobs_of(specs: &[Spec]) -> Vec<Job> {
    specs
        .iter()
        .enumerate()
        .map(|(i, &(s, p, r, e))| Job::new(i as u64, s, r, e, p))
        .collect()
}

/// Runs `policy` (a name such as `easy:sjf`) through [`OrderedBackfilling`] — also for the
/// default axes, so that the general policy is what is tested — and checks the invariants
/// (reservations honoured, killed at the request, capacity).
fn run_jobs(jobs: Vec<Job>, procs: u32, policy: &str) -> SimResult {
    let (kind, axes) = parse_policy(policy).expect("policy name");
    let result = Simulation::new(jobs, procs, Box::new(OrderedBackfilling::new(kind, axes)))
        .run_to_end()
        .expect("simulation runs");
    let errors = invariants::check(&result, policy == "fcfs");
    assert!(errors.is_empty(), "{policy}: {errors:?}");
    result
}

fn starts_of(r: &SimResult) -> Vec<f64> {
    r.outcomes.iter().map(|o| o.start).collect()
}

fn starts(specs: &[Spec], procs: u32, policy: &str) -> Vec<f64> {
    starts_of(&run_jobs(jobs_of(specs), procs, policy))
}

/// 4 processors. j0 holds the machine over [0, 10); j1–j4 (2p 8 s, 1p 2 s, 3p 4 s, 2p 6 s)
/// all wait for it, so at t = 10 the order alone decides.
const H: &[Spec] = &[
    (0.0, 4, 10.0, 10.0),
    (1.0, 2, 8.0, 8.0),
    (2.0, 1, 2.0, 2.0),
    (3.0, 3, 4.0, 4.0),
    (4.0, 2, 6.0, 6.0),
];

#[test]
fn every_queue_order_by_hand_without_backfilling() {
    // Arrival: j1, j2 at 10 (1 free); j3 (3p) waits for j1's end at 18; j4 then waits for
    // j3's end at 22.
    assert_eq!(starts(H, 4, "fcfs"), [0.0, 10.0, 10.0, 18.0, 22.0]);
    // SJF (2, 4, 6, 8 s: j2, j3, j4, j1): j2, j3 at 10; j4 blocked until j3 ends at 14,
    // then j4 and j1.
    assert_eq!(starts(H, 4, "fcfs:sjf"), [0.0, 14.0, 10.0, 10.0, 14.0]);
    // LJF (j1, j4, j3, j2): j1, j4 at 10; j3 (3p) waits until j1 ends at 18, j2 after it.
    assert_eq!(starts(H, 4, "fcfs:ljf"), [0.0, 10.0, 18.0, 18.0, 10.0]);
    // Smallest first (j2 1p, j1 2p, j4 2p — tie by arrival —, j3 3p): j2, j1 at 10; j4 when
    // j2 ends at 12; j3 when j1 and j4 end at 18.
    assert_eq!(starts(H, 4, "fcfs:small"), [0.0, 10.0, 10.0, 18.0, 12.0]);
    // Largest first (j3, then j1 and j4 by arrival, j2): j3 at 10; j1, j4 at 14; j2 when j4
    // ends at 20.
    assert_eq!(starts(H, 4, "fcfs:large"), [0.0, 14.0, 20.0, 10.0, 14.0]);
    // Smallest area (j2 2, j3 12, j4 12, j1 16): as SJF here.
    assert_eq!(
        starts(H, 4, "fcfs:small-area"),
        [0.0, 14.0, 10.0, 10.0, 14.0]
    );
    // Largest area (j1 16, j3 12, j4 12, j2 2): j1 at 10; j3 at 18; j4 and j2 at 22.
    assert_eq!(
        starts(H, 4, "fcfs:large-area"),
        [0.0, 10.0, 22.0, 18.0, 22.0]
    );
    // WFP3 at 10: j1 (9/8)³·2 = 2.85, j2 4³·1 = 64, j3 1.75³·3 = 16.1, j4 1³·2 = 2 → j2, j3
    // start. At 12: j1 (11/8)³·2 = 5.20 > j4 (8/6)³·2 = 4.74, j1 blocked (1 free). At 14:
    // j1 (13/8)³·2 = 8.58 < j4 (10/6)³·2 = 9.26 → j4 then j1.
    assert_eq!(starts(H, 4, "fcfs:wfp3"), [0.0, 14.0, 10.0, 10.0, 14.0]);
    // UNICEF at 10 (log₂ of max(procs, 2)): j1 9/8 = 1.125, j2 8/2 = 4, j3 7/(log₂3·4) =
    // 1.10, j4 6/6 = 1 → j2, j1 start; j3 waits for j1 (18); j4 for j3 (22).
    assert_eq!(starts(H, 4, "fcfs:unicef"), [0.0, 10.0, 10.0, 18.0, 22.0]);
    // F1 = log₁₀(r)·n + 870·log₁₀(s): j1 1.8, j2 262.2, j3 416.9, j4 525.4: lowest first =
    // arrival here (the submit term dominates).
    assert_eq!(starts(H, 4, "fcfs:f1"), [0.0, 10.0, 10.0, 18.0, 22.0]);
    // A priority written by hand: −estimate is SJF.
    assert_eq!(starts(H, 4, "fcfs:-estimate"), starts(H, 4, "fcfs:sjf"));
}

#[test]
fn every_backfilling_variant_by_hand() {
    // EASY in arrival order: at 10 j1, j2 start; j3 (3p) is the head: shadow 18 (j2's end at
    // 12 frees 1, j1's at 18 two more), extra 1. At 12 j4 (2p, 6 s) ends at 18 ≤ 18:
    // backfilled.
    assert_eq!(starts(H, 4, "easy"), [0.0, 10.0, 10.0, 18.0, 12.0]);
    // EASY over SJF: j2, j3 at 10; head j4: shadow 14, j1 (2p) never fits before; at 14 j4
    // and j1.
    assert_eq!(starts(H, 4, "easy:sjf"), [0.0, 14.0, 10.0, 10.0, 14.0]);
    // Conservative over SJF, planned again at each decision: j2 and j3 at 10; j4 reserved at
    // 14, j1 at 14 beside it.
    assert_eq!(
        starts(H, 4, "conservative:sjf"),
        [0.0, 14.0, 10.0, 10.0, 14.0]
    );
    // Conservative in arrival order: j1, j2 at 10; j3 reserved at 18 (after j1); j4 (2p 6 s)
    // fits [12, 18) beside j1 once j2 ends.
    assert_eq!(starts(H, 4, "conservative"), [0.0, 10.0, 10.0, 18.0, 12.0]);
}

/// 4 processors. j0 (3p) runs [0, 10); j1 (4p) is the head: shadow 10, extra 0. j2 (1p 8 s)
/// and j3 (1p 3 s) both arrive at 2 and both end by the shadow time; one processor is free.
const SJBF: &[Spec] = &[
    (0.0, 3, 10.0, 10.0),
    (1.0, 4, 5.0, 5.0),
    (2.0, 1, 8.0, 8.0),
    (2.0, 1, 3.0, 3.0),
];

#[test]
fn easy_with_shortest_job_backfilling_by_hand() {
    // EASY backfills in arrival order: j2 takes the processor at 2; j3 waits for j1 (10–15).
    assert_eq!(starts(SJBF, 4, "easy"), [0.0, 10.0, 2.0, 15.0]);
    // EASY-SJBF: j3 (3 s) first, [2, 5); at 5, j2 would end at 13 > 10 with no extra: it
    // waits for j1 and starts at 15. The head's reservation holds in both.
    assert_eq!(starts(SJBF, 4, "easy:arrival:sjf"), [0.0, 10.0, 15.0, 2.0]);
}

/// 4 processors, user 1's jobs j0, j1 run 1 s each (requests 100 s); user 2's j2 (3p) runs
/// 10 s; j3 (4p, user 2) is the head at 3; j4 (1p, user 1) runs 1 s.
fn predicted_workload() -> Vec<Job> {
    let specs: &[(Spec, f64)] = &[
        ((0.0, 1, 1.0, 100.0), 1.0),
        ((0.0, 1, 1.0, 100.0), 1.0),
        ((2.0, 3, 10.0, 100.0), 2.0),
        ((3.0, 4, 1.0, 100.0), 2.0),
        ((3.0, 1, 1.0, 100.0), 1.0),
    ];
    specs
        .iter()
        .enumerate()
        .map(|(i, &((s, p, r, e), user))| {
            let mut j = Job::new(i as u64, s, r, e, p);
            j.record_mut().user_id = user;
            j
        })
        .collect()
}

#[test]
fn estimates_by_hand() {
    // Requests: j2 is expected to end at 102 → shadow 102, extra 0; j4 (100 s) would end at
    // 103: it waits, and starts after j3 (12–13).
    let r = run_jobs(predicted_workload(), 4, "easy");
    assert_eq!(starts_of(&r), [0.0, 0.0, 2.0, 12.0, 13.0]);
    // Predictions: user 2 has no history, so j2 is still expected at 102; user 1's last two
    // run times are 1 and 1 → j4 is predicted 1 s, ends at 4 ≤ 102: backfilled at 3.
    let r = run_jobs(predicted_workload(), 4, "easy:::predicted");
    assert_eq!(starts_of(&r), [0.0, 0.0, 2.0, 12.0, 3.0]);
    // Exact: j2 ends at 12 (shadow 12); j4 ends at 4: backfilled at 3.
    let r = run_jobs(predicted_workload(), 4, "easy:::exact");
    assert_eq!(starts_of(&r), [0.0, 0.0, 2.0, 12.0, 3.0]);
    // Still killed at the request: a job running past its request stops there.
    let mut jobs = predicted_workload();
    jobs[2].run_time = 500.0;
    let r = run_jobs(jobs, 4, "easy:::predicted");
    assert_eq!(r.outcomes[2].end - r.outcomes[2].start, 100.0);
}

// ---------------------------------------------------------------- properties

const PROCS: u32 = 16;

fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0u32..6, 1u32..=PROCS, 0u32..30, 0u32..20), 1..50).prop_map(|v| {
        let mut t = 0.0;
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, p, run, slack))| {
                t += gap as f64;
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

/// A built-in order's priority, written from its definition (docs/policies.md).
fn definition(order: BuiltinOrder, job: &Job, now: f64) -> f64 {
    let (w, s, r, n) = (now - job.submit, job.submit, job.estimate, job.procs as f64);
    match order {
        BuiltinOrder::Arrival => 0.0,
        BuiltinOrder::ShortestFirst => -r,
        BuiltinOrder::LongestFirst => r,
        BuiltinOrder::SmallestFirst => -n,
        BuiltinOrder::LargestFirst => n,
        BuiltinOrder::SmallestAreaFirst => -n * r,
        BuiltinOrder::LargestAreaFirst => n * r,
        BuiltinOrder::Wfp3 => (w / r).powi(3) * n,
        BuiltinOrder::Unicef => w / (n.max(2.0).log2() * r),
        BuiltinOrder::F1 => -(r.log10() * n + 870.0 * s.max(1.0).log10()),
        BuiltinOrder::F2 => -(r.sqrt() * n + 25_600.0 * s.max(1.0).log10()),
        BuiltinOrder::F3 => -(r * n + 6_860_000.0 * s.max(1.0).log10()),
        BuiltinOrder::F4 => -(r * n.sqrt() + 530_000.0 * s.max(1.0).log10()),
    }
}

/// Sorts `waiting` by `order` at `now`, naively: higher priority first, NaN last, ties by
/// arrival.
fn rank(jobs: &[Job], order: BuiltinOrder, waiting: &mut [usize], now: f64) {
    let key = |j: usize| {
        let p = definition(order, &jobs[j], now);
        if p.is_nan() {
            f64::NEG_INFINITY
        } else {
            p
        }
    };
    waiting.sort_by(|&a, &b| {
        key(b)
            .total_cmp(&key(a))
            .then(jobs[a].submit.total_cmp(&jobs[b].submit))
            .then(a.cmp(&b))
    });
}

/// List scheduling in a priority order, naively: at every instant (an arrival or an end),
/// rank the waiting jobs and start them in that order while the next one fits.
fn naive_list(jobs: &[Job], procs: u32, order: BuiltinOrder) -> Vec<f64> {
    crate::naive::simulate(jobs, procs, |now| {
        rank(jobs, order, now.waiting, now.t);
        let mut free = now.free;
        let mut started = Vec::new();
        while let Some(&j) = now.waiting.first() {
            if jobs[j].procs_held() > free {
                break;
            }
            free -= jobs[j].procs_held();
            started.push(j);
            now.waiting.remove(0);
        }
        started
    })
}

fn order_strategy() -> impl Strategy<Value = BuiltinOrder> {
    prop::sample::select(BuiltinOrder::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Queue-order axis: every built-in order without backfilling is the naive list
    /// scheduler in that order.
    #[test]
    fn every_order_matches_the_naive_list_scheduler(jobs in workload(), order in order_strategy()) {
        use schedlab::base::Registered;
        let name = format!("fcfs:{}", order.entry().name);
        let ours = starts_of(&run_jobs(jobs.clone(), PROCS, &name));
        prop_assert_eq!(ours, naive_list(&jobs, PROCS, order));
    }

    /// Backfilling axis: EASY in every queue order, and with every backfill order, is the
    /// naive EASY ranking the queue and the backfill candidates by those orders' definitions.
    #[test]
    fn easy_in_every_order_matches_the_naive_easy(
        jobs in workload(),
        order in order_strategy(),
        backfill in order_strategy(),
    ) {
        use schedlab::base::Registered;
        let (o, b) = (order.entry().name, backfill.entry().name);
        let ours = starts_of(&run_jobs(jobs.clone(), PROCS, &format!("easy:{o}")));
        let naive = crate::naive::easy(
            &jobs,
            PROCS,
            |w, t| rank(&jobs, order, w, t),
            |w, t| rank(&jobs, order, w, t),
        );
        prop_assert_eq!(ours, naive, "easy:{}", o);
        let ours = starts_of(&run_jobs(jobs.clone(), PROCS, &format!("easy:{o}:{b}")));
        let naive = crate::naive::easy(
            &jobs,
            PROCS,
            |w, t| rank(&jobs, order, w, t),
            |w, t| rank(&jobs, backfill, w, t),
        );
        prop_assert_eq!(ours, naive, "easy:{}:{}", o, b);
    }

    /// Backfilling axis: conservative backfilling in every queue order is the naive
    /// conservative planner ranking the queue by that order's definition.
    #[test]
    fn conservative_in_every_order_matches_the_naive_conservative(
        jobs in workload(),
        order in order_strategy(),
    ) {
        use schedlab::base::Registered;
        let o = order.entry().name;
        let ours = starts_of(&run_jobs(jobs.clone(), PROCS, &format!("conservative:{o}")));
        let naive = crate::naive::conservative(&jobs, PROCS, |w, t| rank(&jobs, order, w, t));
        prop_assert_eq!(ours, naive, "conservative:{}", o);
    }

    /// Backfilling axis: the general policy in arrival order with requested times is the
    /// papers' EASY and FCFS exactly (EasyBackfilling is itself checked against a naive EASY
    /// in properties.rs).
    #[test]
    fn arrival_order_is_the_papers_easy_and_fcfs(jobs in workload()) {
        for kind in [PolicyKind::Fcfs, PolicyKind::Easy] {
            let general = starts_of(&run_jobs(jobs.clone(), PROCS, kind.as_str()));
            let papers = Simulation::new(jobs.clone(), PROCS, kind.build(jobs.len(), PROCS))
                .run_to_end()
                .expect("runs");
            prop_assert_eq!(general, starts_of(&papers), "{:?}", kind);
        }
    }

    /// Estimates axis: exact estimates, and f × run time, are EASY on a workload whose
    /// requests are those estimates (the run times unchanged, so nothing is killed earlier).
    #[test]
    fn estimates_are_easy_on_rewritten_requests(jobs in workload(), f in 1u32..4) {
        for (name, factor) in [("easy:::exact", 1.0), (&*format!("easy:::{f}x"), f as f64)] {
            // Zero-length jobs excepted: such a job holds its processors for an instant by its
            // request, and for none by an estimate of 0 (`Job::procs_held`).
            let jobs: Vec<Job> = jobs.iter().filter(|j| j.duration() > 0.0).cloned().collect();
            let ours = starts_of(&run_jobs(jobs.clone(), PROCS, name));
            let rewritten: Vec<Job> = jobs
                .iter()
                .map(|j| Job::new(j.id, j.submit, j.duration(), factor * j.duration(), j.procs))
                .collect();
            let easy = Simulation::new(
                rewritten.clone(),
                PROCS,
                PolicyKind::Easy.build(rewritten.len(), PROCS),
            )
            .run_to_end()
            .expect("runs");
            prop_assert_eq!(ours, starts_of(&easy), "{}", name);
        }
    }

    /// A priority written by hand is the built-in order it spells, under every backfilling.
    #[test]
    fn written_priorities_are_the_builtin_orders(jobs in workload()) {
        for kind in ["fcfs", "easy", "conservative"] {
            for (builtin, written) in [
                ("wfp3", "(wait / estimate)^3 * procs"),
                ("sjf", "-estimate"),
                ("large-area", "procs * estimate"),
            ] {
                let a = starts_of(&run_jobs(jobs.clone(), PROCS, &format!("{kind}:{builtin}")));
                let b = starts_of(&run_jobs(jobs.clone(), PROCS, &format!("{kind}:{written}")));
                prop_assert_eq!(a, b, "{} {}", kind, builtin);
            }
        }
    }

    /// Invariants after every run under every order and backfilling (reservations honoured,
    /// killed at the request, capacity: `run_jobs` checks them).
    #[test]
    fn invariants_under_every_order(jobs in workload(), order in order_strategy()) {
        use schedlab::base::Registered;
        for kind in ["fcfs", "easy", "conservative"] {
            for est in ["", "exact", "predicted", "2x"] {
                let name = format!("{kind}:{}::{est}", order.entry().name);
                run_jobs(jobs.clone(), PROCS, &name);
            }
        }
    }
}

#[test]
fn the_story_names_the_order_and_the_job_passed() {
    use crate::common::schedlab;
    let dir = crate::common::temp_dir("axes");
    let swf = dir.join("h.swf");
    let lines: String = H
        .iter()
        .enumerate()
        .map(|(i, &(s, p, r, e))| {
            format!(
                "{} {s} -1 {r} {p} -1 -1 {p} {e} -1 1 -1 -1 -1 -1 -1 -1 -1\n",
                i + 1
            )
        })
        .collect();
    std::fs::write(&swf, format!("; MaxProcs: 4\n{lines}")).expect("write trace");
    let swf = swf.display().to_string();
    // Job 3 (j2: 1 processor, 2 s) starts first under SJF at 10, ahead of job 2 (8 s,
    // submitted earlier): priorities −2 and −8.
    let (code, out, err) = schedlab(&[
        "run",
        "--swf",
        &swf,
        "--policy",
        "fcfs:sjf",
        "--explain",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "started first in the queue order: priority -2, the highest waiting; went ahead of \
             job 2 (submitted earlier, priority -8 < -2); needs 1, 4 free"
        ),
        "{out}"
    );
    // In arrival order the story is the papers'.
    let (_, out, _) = schedlab(&["run", "--swf", &swf, "--policy", "fcfs", "--explain", "3"]);
    assert!(out.contains("started in queue order"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
