//! Mesh runs (Ababneh & Bani-Mohammad): the invariants after every run of every policy and allocator — no
//! node in two jobs, every allocation a free w × h rectangle of the job's shape, every job run
//! once for its duration, Window-K never starting a job outside its window — and the
//! identities FCFS = Window-1, OO = unbounded window, OOCB-0 = FCFS, OOCB-∞ = OO, on seeded
//! synthetic workloads and in a property test over random workloads.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;

use schedlab::alloc::AllocatorKind;
use schedlab::machine::mesh::Submesh;
use schedlab::policy::mesh::{MeshContext, MeshPolicy, MeshPolicyKind, Planner};
use schedlab::sim::mesh_engine::{MeshSimError, MeshSimResult, MeshSimulation};
use schedlab::sim::mesh_invariants;
use schedlab::sim::JobId;
use schedlab::workload::synthetic::{MeshJobsParams, SideDistribution};
use schedlab::workload::Job;

const POLICIES: [MeshPolicyKind; 9] = [
    MeshPolicyKind::Fcfs,
    MeshPolicyKind::OutOfOrder,
    MeshPolicyKind::Oocb(0),
    MeshPolicyKind::Oocb(8),
    MeshPolicyKind::Window(1),
    MeshPolicyKind::Window(4),
    MeshPolicyKind::Window(240),
    MeshPolicyKind::Window(usize::MAX),
    MeshPolicyKind::Delay,
];

fn run(jobs: &[Job], w: u32, h: u32, a: AllocatorKind, p: MeshPolicyKind) -> MeshSimResult {
    MeshSimulation::by_kind(jobs.to_vec(), w, h, a, p)
        .expect("valid workload")
        .run_to_end()
        .expect("run completes")
}

fn starts(r: &MeshSimResult) -> Vec<(u64, u64, Option<Submesh>)> {
    r.outcomes
        .iter()
        .zip(&r.placements)
        .map(|(o, p)| (o.start.to_bits(), o.end.to_bits(), *p))
        .collect()
}

/// Every policy × allocator keeps the invariants; the identities hold.
fn check_all(jobs: &[Job], w: u32, h: u32) {
    for a in AllocatorKind::ALL {
        let mut results = Vec::new();
        for p in POLICIES {
            let r = run(jobs, w, h, a, p);
            let errors = mesh_invariants::check(&r);
            assert!(
                errors.is_empty(),
                "{} / {}: {errors:?}",
                p.label(),
                a.as_str()
            );
            results.push((p, r));
        }
        let get = |k: MeshPolicyKind| {
            results
                .iter()
                .find(|(p, _)| *p == k)
                .map(|(_, r)| starts(r))
                .expect("ran")
        };
        let fcfs = get(MeshPolicyKind::Fcfs);
        let oo = get(MeshPolicyKind::OutOfOrder);
        assert_eq!(fcfs, get(MeshPolicyKind::Window(1)), "FCFS = Window-1");
        assert_eq!(fcfs, get(MeshPolicyKind::Oocb(0)), "FCFS = OOCB-0");
        assert_eq!(oo, get(MeshPolicyKind::Window(usize::MAX)), "OO = Window-∞");
        let oocb_inf = run(jobs, w, h, a, MeshPolicyKind::Oocb(u32::MAX));
        assert_eq!(oo, starts(&oocb_inf), "OO = OOCB-∞");
    }
}

#[test]
fn synthetic_workloads_keep_the_invariants() {
    for (sides, rate) in [
        (SideDistribution::Uniform, 3.0),
        (SideDistribution::UniformDecreasing, 9.0),
    ] {
        let params = MeshJobsParams {
            jobs: 400,
            width: 16,
            height: 16,
            sides,
            arrival_rate: rate,
            l1: 2,
            l2: 4,
            l3: 8,
            ..MeshJobsParams::default()
        };
        let w = params.generate(7);
        check_all(&w.jobs, 16, 16);
    }
}

#[test]
fn same_seed_same_schedule_and_window_helps() {
    let params = MeshJobsParams {
        jobs: 2000,
        sides: SideDistribution::Uniform,
        arrival_rate: 3.0,
        ..MeshJobsParams::default()
    };
    let w = params.generate(11);
    let a = run(
        &w.jobs,
        32,
        32,
        AllocatorKind::Mpl,
        MeshPolicyKind::Window(240),
    );
    let b = run(
        &w.jobs,
        32,
        32,
        AllocatorKind::Mpl,
        MeshPolicyKind::Window(240),
    );
    assert_eq!(starts(&a), starts(&b));
    assert!(mesh_invariants::check(&a).is_empty());
    // Past FCFS saturation, a large window serves the load much better than FCFS.
    let fcfs = run(&w.jobs, 32, 32, AllocatorKind::Mpl, MeshPolicyKind::Fcfs).summary();
    let win = a.summary();
    assert!(win.mean_turnaround < fcfs.mean_turnaround);
    assert!(win.utilization > fcfs.utilization);
}

fn job(id: u64, submit: f64, run: f64, w: u32, h: u32) -> Job {
    let mut j = Job::new(id, submit, run, run, w * h);
    j.shape = Some((w, h));
    j
}

#[test]
fn zero_length_jobs_and_simultaneous_events() {
    let jobs = vec![
        job(1, 0.0, 0.0, 4, 4),
        job(2, 0.0, 2.0, 4, 4),
        job(3, 0.0, 0.0, 1, 1),
        job(4, 2.0, 0.0, 4, 4),
        job(5, 2.0, 1.0, 2, 2),
    ];
    check_all(&jobs, 4, 4);
    let r = run(&jobs, 4, 4, AllocatorKind::Mpl, MeshPolicyKind::Fcfs);
    // Job 2 waits for the zero-length job 1 to leave in the second pass at t = 0.
    assert_eq!(r.outcomes[1].start, 0.0);
    // Job 3 (1 × 1) stays behind job 2 under FCFS.
    assert_eq!(r.outcomes[2].start, 2.0);
}

#[test]
fn bad_workloads_are_refused_with_errors() {
    let mut no_shape = job(1, 0.0, 1.0, 2, 2);
    no_shape.shape = None;
    let e = MeshSimulation::by_kind(
        vec![no_shape],
        4,
        4,
        AllocatorKind::Mpl,
        MeshPolicyKind::Fcfs,
    )
    .err();
    assert_eq!(e, Some(MeshSimError::NoShape { job: 1 }));
    let e = MeshSimulation::by_kind(
        vec![job(2, 0.0, 1.0, 5, 1)],
        4,
        4,
        AllocatorKind::Mpl,
        MeshPolicyKind::Fcfs,
    )
    .err();
    assert!(matches!(e, Some(MeshSimError::BadShape { job: 2, .. })));
    let e = MeshSimulation::by_kind(
        vec![job(3, 5.0, 1.0, 1, 1), job(4, 1.0, 1.0, 1, 1)],
        4,
        4,
        AllocatorKind::Mpl,
        MeshPolicyKind::Fcfs,
    )
    .err();
    assert_eq!(e, Some(MeshSimError::Unsorted { job: 4 }));
    let e = MeshSimulation::by_kind(vec![], 0, 4, AllocatorKind::Mpl, MeshPolicyKind::Fcfs).err();
    assert!(matches!(e, Some(MeshSimError::Mesh(_))));
    assert!(e
        .map(|e| e.to_string())
        .unwrap_or_default()
        .contains("0 × 4"));
}

/// A policy that starts every arrival at a fixed submesh, whatever the mesh holds.
struct Stubborn(Submesh, Vec<JobId>);

impl MeshPolicy for Stubborn {
    fn name(&self) -> String {
        "stubborn".into()
    }
    fn job_arrived(&mut self, job: JobId, _ctx: &MeshContext<'_>) {
        self.1.push(job);
    }
    fn job_completed(&mut self, _job: JobId, _ctx: &MeshContext<'_>) {}
    fn decide(&mut self, _ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        for j in self.1.drain(..) {
            plan.start_at(j, self.0);
        }
    }
    fn queue_len(&self) -> usize {
        self.1.len()
    }
}

#[test]
fn impossible_decisions_are_refused() {
    let alloc = || AllocatorKind::Mpl.build();
    let two = vec![job(1, 0.0, 5.0, 2, 2), job(2, 1.0, 5.0, 2, 2)];
    let overlap = MeshSimulation::new(
        two.clone(),
        4,
        4,
        alloc(),
        Stubborn(Submesh::at(1, 1, 2, 2), vec![]),
    )
    .unwrap()
    .run();
    assert!(matches!(
        overlap,
        Err(MeshSimError::Placement { job: 2, .. })
    ));
    let wrong = MeshSimulation::new(
        two.clone(),
        4,
        4,
        alloc(),
        Stubborn(Submesh::at(1, 1, 3, 2), vec![]),
    )
    .unwrap()
    .run();
    assert!(matches!(
        wrong,
        Err(MeshSimError::WrongShape { job: 1, .. })
    ));
    let malformed = MeshSimulation::new(
        two.clone(),
        4,
        4,
        alloc(),
        Stubborn(Submesh::new(3, 1, 2, 2), vec![]),
    )
    .unwrap()
    .run();
    assert!(matches!(
        malformed,
        Err(MeshSimError::WrongShape { job: 1, .. })
    ));
    let outside = MeshSimulation::new(
        two,
        4,
        4,
        alloc(),
        Stubborn(Submesh::at(4, 4, 2, 2), vec![]),
    )
    .unwrap()
    .run();
    assert!(matches!(
        outside,
        Err(MeshSimError::Placement { job: 1, .. })
    ));
}

#[test]
fn stepping_matches_running() {
    let w = MeshJobsParams {
        jobs: 300,
        arrival_rate: 8.0,
        ..MeshJobsParams::default()
    }
    .generate(3);
    let whole = run(
        &w.jobs,
        32,
        32,
        AllocatorKind::Mpl,
        MeshPolicyKind::Window(10),
    );
    let mut sim = MeshSimulation::by_kind(
        w.jobs.clone(),
        32,
        32,
        AllocatorKind::Mpl,
        MeshPolicyKind::Window(10),
    )
    .unwrap();
    assert!(!sim.step_until(5.0).unwrap());
    assert!(sim.now() <= 5.0);
    while !sim.step_instants(7).unwrap() {}
    sim.run().unwrap();
    assert_eq!(starts(&sim.into_result()), starts(&whole));
}

fn arb_jobs() -> impl Strategy<Value = (u32, u32, Vec<Job>)> {
    (3u32..=8, 3u32..=8).prop_flat_map(|(w, h)| {
        let one = (0u32..6, 0u32..5, 1u32..=w, 1u32..=h);
        prop::collection::vec(one, 1..35).prop_map(move |raw| {
            let mut t = 0.0;
            let jobs = raw
                .into_iter()
                .enumerate()
                .map(|(i, (gap, run, jw, jh))| {
                    t += f64::from(gap) * 0.5;
                    job(i as u64 + 1, t, f64::from(run), jw, jh)
                })
                .collect();
            (w, h, jobs)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn random_workloads_keep_the_invariants((w, h, jobs) in arb_jobs()) {
        check_all(&jobs, w, h);
    }
}

#[test]
fn orientation_switching_runs_a_request_rotated_only_when_it_does_not_fit() {
    // 4 × 4: a 4 × 3 job takes rows 1–3; a 1 × 4 job finds no free 1 × 4 but a free 4 × 1.
    let jobs = vec![job(1, 0.0, 10.0, 4, 3), job(2, 0.0, 5.0, 1, 4)];
    for a in AllocatorKind::ALL {
        for p in POLICIES {
            let fixed = run(&jobs, 4, 4, a, p);
            assert_eq!(fixed.outcomes[1].start, 10.0, "{a:?} {p:?}");
            assert!(!fixed.switch_orientation);
            let r = MeshSimulation::by_kind_with(jobs.clone(), 4, 4, a, true, p)
                .expect("valid workload")
                .run_to_end()
                .expect("run completes");
            assert!(r.switch_orientation);
            assert_eq!(r.outcomes[1].start, 0.0, "{a:?} {p:?}");
            assert_eq!(
                r.placements[1],
                Some(Submesh::new(1, 4, 4, 4)),
                "{a:?} {p:?}"
            );
            // The 4 × 3 job fits as requested and keeps its orientation.
            assert_eq!(r.placements[0], Some(Submesh::new(1, 1, 4, 3)));
            assert!(mesh_invariants::check(&r).is_empty(), "{a:?} {p:?}");
            // The checker refuses a rotated placement in a run that does not switch.
            let mut forged = r.clone();
            forged.switch_orientation = false;
            assert!(!mesh_invariants::check(&forged).is_empty());
        }
    }
}
