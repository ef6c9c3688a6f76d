//! Ababneh & Bani-Mohammad §4, Example 2 — the five-job K = 4 walk-through — replayed step by step through
//! the mesh engine with Window-4 and MPL, starting from the state of Fig. 1 (Example 1).

use schedlab::alloc::MaxPeripheralLength;
use schedlab::machine::mesh::Submesh;
use schedlab::policy::mesh::{EntryState, Window};
use schedlab::sim::mesh_engine::MeshSimulation;
use schedlab::sim::mesh_invariants;
use schedlab::workload::Job;

fn job(id: u64, submit: f64, run: f64, w: u32, h: u32) -> Job {
    let mut j = Job::new(id, submit, run, run, w * h);
    j.shape = Some((w, h));
    j
}

use EntryState::{Done, Pending};

#[test]
fn example_2_step_by_step() {
    // Jobs #0–#2 build Fig. 1's state: the 5 × 2 filler leaves at t = 1, after MPL has put
    // the 5 × 1 job on row 4 (the free 5 × 2 on top is the better-peripheral corner) and the
    // 3 × 1 job at (1, 3, 3, 3). Jobs #3–#7 are the five jobs of Example 2 (5 × 3, 5 × 2,
    // 2 × 1, 4 × 3, 3 × 3), arriving at t = 2.0, 2.1, …, 2.4.
    let jobs = vec![
        job(100, 0.0, 1.0, 5, 2),   // #0 filler
        job(101, 0.0, 100.0, 5, 1), // #1 row 4
        job(102, 0.0, 5.0, 3, 1),   // #2 (1, 3, 3, 3), leaves at 5
        job(1, 2.0, 1.0, 5, 3),     // #3 example job 1
        job(2, 2.1, 4.9, 5, 2),     // #4 example job 2, leaves at 7
        job(3, 2.2, 3.8, 2, 1),     // #5 example job 3, leaves at 6
        job(4, 2.3, 1.0, 4, 3),     // #6 example job 4
        job(5, 2.4, 1.0, 3, 3),     // #7 example job 5
    ];
    let mut sim =
        MeshSimulation::new(jobs, 5, 4, Box::new(MaxPeripheralLength), Window::new(4)).unwrap();

    // t = 0: the three background jobs start.
    sim.step().unwrap();
    assert_eq!(sim.placement(0), Some(Submesh::new(1, 1, 5, 2)));
    assert_eq!(sim.placement(1), Some(Submesh::new(1, 4, 5, 4)));
    assert_eq!(sim.placement(2), Some(Submesh::new(1, 3, 3, 3)));
    // t = 1: the filler leaves — Fig. 1, whose maximal free submeshes are Example 1's.
    sim.step().unwrap();
    let mut mesh = sim.mesh().clone();
    assert_eq!(
        mesh.maximal_free_submeshes(),
        vec![Submesh::new(1, 1, 5, 2), Submesh::new(4, 1, 5, 3)]
    );
    assert_eq!(sim.policy().win_size(), 0);

    // "The first job must wait because there is no free 5 × 3 submesh. It forms the first
    // element in a new scheduling window."
    sim.step().unwrap();
    assert_eq!(sim.placement(3), None);
    assert_eq!(sim.policy().entries(), vec![(3, Pending)]);
    // "The second job is allocated the submesh (1, 1, 5, 2)"
    sim.step().unwrap();
    assert_eq!(sim.placement(4), Some(Submesh::new(1, 1, 5, 2)));
    assert_eq!(sim.policy().entries(), vec![(3, Pending), (4, Done)]);
    // "the third job is allocated the submesh (4, 3, 5, 3)"
    sim.step().unwrap();
    assert_eq!(sim.placement(5), Some(Submesh::new(4, 3, 5, 3)));
    // "and allocation fails for the fourth job. The second, third and fourth job join the
    // scheduling window successively behind the first job."
    sim.step().unwrap();
    assert_eq!(sim.placement(6), None);
    assert_eq!(
        sim.policy().entries(),
        vec![(3, Pending), (4, Done), (5, Done), (6, Pending)]
    );
    assert_eq!(sim.policy().win_size(), 4);
    // "Allocation is not attempted for the fifth job because it is outside the scheduling
    // window." (A free 3 × 3 would not exist anyway; the job goes to the FIFO queue.)
    sim.step().unwrap();
    assert_eq!(sim.placement(7), None);
    assert_eq!(sim.policy().fifo(), vec![7]);
    assert_eq!(sim.policy().win_size(), 4);
    // Nothing is free: no fragmentation to speak of.
    let f = sim.fragmentation();
    assert_eq!((f.free, f.unusable), (0, 0));

    // t = 5: the 3 × 1 background job leaves; jobs 1 and 4 are retried and still do not fit.
    sim.step().unwrap();
    assert_eq!(sim.now(), 5.0);
    assert_eq!(sim.placement(3), None);
    assert_eq!(sim.placement(6), None);
    // The 3 free nodes of (1, 3, 3, 3) are unusable by the waiting 5 × 3, 4 × 3 and 3 × 3.
    let f = sim.fragmentation();
    assert_eq!((f.free, f.unusable, f.largest_free_submesh), (3, 3, 3));
    // t = 6: job 3 leaves; row 3 is free but job 2 still holds rows 1–2.
    sim.step().unwrap();
    assert_eq!(sim.now(), 6.0);
    assert_eq!(sim.policy().win_size(), 4);
    // t = 7: job 2 leaves. "When allocation to the current window head (i.e., the first job)
    // succeeds, [...] the window is moved past jobs 2 and 3 because they were served, the
    // fourth job becomes the new window head, and the fifth job falls within the new
    // scheduling window."
    sim.step().unwrap();
    assert_eq!(sim.now(), 7.0);
    assert_eq!(sim.placement(3), Some(Submesh::new(1, 1, 5, 3)));
    assert_eq!(sim.policy().entries(), vec![(6, Pending), (7, Pending)]);
    assert!(sim.policy().fifo().is_empty());
    // t = 8: job 1 leaves; job 4 (the head) gets (1, 1, 4, 3) and job 5 heads the window.
    sim.step().unwrap();
    assert_eq!(sim.placement(6), Some(Submesh::new(1, 1, 4, 3)));
    assert_eq!(sim.policy().entries(), vec![(7, Pending)]);
    // t = 9: job 4 leaves; job 5 gets its 3 × 3 and the window is empty.
    sim.step().unwrap();
    assert_eq!(sim.placement(7), Some(Submesh::new(1, 1, 3, 3)));
    assert_eq!(sim.policy().win_size(), 0);

    sim.run().unwrap();
    let result = sim.into_result();
    assert_eq!(result.window, Some(4));
    assert_eq!(mesh_invariants::check(&result), Vec::<String>::new());
}

#[test]
fn window_of_one_never_overtakes_and_unbounded_window_always_tries() {
    // Same arrivals under K = 1: job 2 (5 × 2) must not overtake job 1 (5 × 3).
    let jobs = vec![
        job(101, 0.0, 100.0, 5, 1),
        job(1, 2.0, 1.0, 5, 3),
        job(2, 2.1, 1.0, 5, 2),
    ];
    let r = MeshSimulation::new(
        jobs.clone(),
        5,
        4,
        Box::new(MaxPeripheralLength),
        Window::new(1),
    )
    .unwrap()
    .run_to_end()
    .unwrap();
    assert!(r.outcomes[2].start >= r.outcomes[1].start);
    assert!(mesh_invariants::check(&r).is_empty());
    let r = MeshSimulation::new(
        jobs,
        5,
        4,
        Box::new(MaxPeripheralLength),
        Window::new(usize::MAX),
    )
    .unwrap()
    .run_to_end()
    .unwrap();
    assert_eq!(r.outcomes[1].start, 2.0);
    assert_eq!(r.outcomes[2].start, 3.0);
}

/// Delay (§2.3) under the readings of λ and W (`DelayReading`), on a 2 × 1 mesh: j0 (2 × 1,
/// 0–10) fills it; j1 (1 × 1) waits until 10 (wait 10); j2 (2 × 1, at 5) waits behind it and
/// is the head from 10 on; j3 (1 × 1, at 12) may overtake j2 (waited 7) only while 7 < λ·W.
/// At 12 the running jobs' mean wait is 10 (j1) and the mean over all started jobs 5 (j0 0,
/// j1 10); λ measured = 4 arrivals / 12 = 1/3.
#[test]
fn delay_thresholds_follow_the_reading_of_lambda_and_w() {
    use schedlab::policy::mesh::delay::{DelayBased, DelayLambda, DelayReading, DelayWait};
    let jobs = vec![
        job(0, 0.0, 10.0, 2, 1),
        job(1, 0.0, 10.0, 1, 1),
        job(2, 5.0, 1.0, 2, 1),
        job(3, 12.0, 1.0, 1, 1),
    ];
    let start_of_j3 = |reading: DelayReading| {
        let r = MeshSimulation::new(
            jobs.clone(),
            2,
            1,
            Box::new(MaxPeripheralLength),
            DelayBased::with_reading(reading),
        )
        .unwrap()
        .run_to_end()
        .unwrap();
        assert!(mesh_invariants::check(&r).is_empty());
        assert_eq!(r.outcomes[1].start, 10.0);
        r.outcomes[3].start
    };
    let reading = |lambda, wait| DelayReading { lambda, wait };
    // Measured λ · running W = 10/3 ≤ 7: j3 waits for j2 (20–21), starts at 21.
    assert_eq!(start_of_j3(DelayReading::default()), 21.0);
    assert_eq!(
        DelayReading::default(),
        reading(DelayLambda::Measured, DelayWait::Running)
    );
    // Nominal λ = 1 · running W = 10 > 7: j3 overtakes at once.
    assert_eq!(
        start_of_j3(reading(DelayLambda::Nominal(1.0), DelayWait::Running)),
        12.0
    );
    // Nominal λ = 1 · W over all started jobs = 5 ≤ 7: it waits; with λ = 2, 10 > 7.
    assert_eq!(
        start_of_j3(reading(DelayLambda::Nominal(1.0), DelayWait::Started)),
        21.0
    );
    assert_eq!(
        start_of_j3(reading(DelayLambda::Nominal(2.0), DelayWait::Started)),
        12.0
    );
    // Measured λ = 1/3 · 5: waits.
    assert_eq!(
        start_of_j3(reading(DelayLambda::Measured, DelayWait::Started)),
        21.0
    );
}
