//! The step-by-step replay of a flat run (`sim::replay`) against hand-computed
//! schedules: the queue in order, the running jobs, EASY's blocked head with its shadow time
//! and extra processors, conservative reservations before and after a compression moves them,
//! and the last decisions in words; and on a real trace, that the replay's extra processors
//! agree with what EASY recorded at every instant it recorded them.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::base::Reason;
use schedlab::metrics::job_records;
use schedlab::policy::PolicyKind;
use schedlab::sim::replay::{BlockedHead, Replay, ReplayState};
use schedlab::sim::Simulation;
use schedlab::workload::swf::{read_swf, ReadOptions};
use schedlab::workload::synthetic::LublinParams;
use schedlab::workload::Job;

fn replay(jobs: Vec<Job>, procs: u32, kind: PolicyKind) -> Replay {
    let policy = kind.build(jobs.len(), procs);
    let r = Simulation::new(jobs, procs, policy)
        .with_explanations()
        .run_to_end()
        .expect("runs");
    Replay::new(procs, job_records(&r), r.explanations)
}

/// Queue as (job number, reservation).
fn queue(s: &ReplayState) -> Vec<(u64, Option<f64>)> {
    s.queue.iter().map(|q| (q.id, q.reservation)).collect()
}

/// Running as (job number, expected end).
fn running(s: &ReplayState) -> Vec<(u64, f64)> {
    s.running.iter().map(|r| (r.id, r.expected_end)).collect()
}

/// (job number, needs, shadow, extra, since).
type Head = (u64, u32, Option<f64>, Option<u32>, f64);

fn head(s: &ReplayState) -> Option<Head> {
    s.head.as_ref().map(
        |&BlockedHead {
             id,
             needs,
             shadow,
             extra,
             since,
             ..
         }| (id, needs, shadow, extra, since),
    )
}

fn kinds(s: &ReplayState) -> Vec<(u64, &'static str)> {
    s.decisions.iter().map(|d| (d.id, d.kind)).collect()
}

/// 4 processors (exercise 02): J1 t=0 3 procs 10 s; J2 t=1 2 procs 10 s; J3 t=2 2 procs 10 s;
/// J4 t=3 1 proc, runs `j4_run` with estimate 30. Estimates exact except J4's when it runs less.
fn easy_case(j4_run: f64) -> Vec<Job> {
    vec![
        Job::new(1, 0.0, 10.0, 10.0, 3),
        Job::new(2, 1.0, 10.0, 10.0, 2),
        Job::new(3, 2.0, 10.0, 10.0, 2),
        Job::new(4, 3.0, j4_run, 30.0, 1),
    ]
}

#[test]
fn easy_head_shadow_and_extra_at_each_step() {
    let r = replay(easy_case(30.0), 4, PolicyKind::Easy);
    // Submits 0–3, J2 starts at 10 (J1 ends), J3 at 20 (J2 ends), J3 ends at 30, J4 at 33.
    let mut times = vec![r.timeline().first()];
    while let Some(t) = r.timeline().next_after(*times.last().unwrap()) {
        times.push(t);
    }
    assert_eq!(times, vec![0.0, 1.0, 2.0, 3.0, 10.0, 20.0, 30.0, 33.0]);
    assert_eq!(r.timeline().prev_before(10.0), Some(3.0));

    let s = r.state_at(0.0);
    assert_eq!(running(&s), vec![(1, 10.0)]);
    assert!(s.queue.is_empty() && s.head.is_none());
    assert_eq!(
        (s.free, s.arrived.clone(), s.started.clone()),
        (1, vec![0], vec![0])
    );
    assert_eq!(kinds(&s), vec![(1, "in_order")]);

    // t=1: J2 (2 procs, 1 free) is the blocked head; J1 ends at 10 → shadow 10, 4 − 2 = 2 extra.
    let s = r.state_at(1.0);
    assert_eq!(queue(&s), vec![(2, None)]);
    assert_eq!(head(&s), Some((2, 2, Some(10.0), Some(2), 1.0)));
    assert_eq!(kinds(&s), vec![(2, "head_blocked")]);
    assert!(
        s.decisions[0].text.contains("shadow time t = 10 s"),
        "{:?}",
        s.decisions
    );

    // t=2: J3 waits behind J2 (2 procs, 1 free: no backfill); nothing new is recorded, so the
    // last decision is still t=1's.
    let s = r.state_at(2.0);
    assert_eq!(queue(&s), vec![(2, None), (3, None)]);
    assert_eq!(head(&s), Some((2, 2, Some(10.0), Some(2), 1.0)));
    assert_eq!(s.decisions[0].time, 1.0);

    // t=3: J4 (1 proc, ends at 33 > 10) is backfilled into the extra processors: 1 left.
    let s = r.state_at(3.0);
    assert_eq!(running(&s), vec![(1, 10.0), (4, 33.0)]);
    assert_eq!(queue(&s), vec![(2, None), (3, None)]);
    assert_eq!(s.free, 0);
    assert_eq!(head(&s), Some((2, 2, Some(10.0), Some(1), 1.0)));
    assert_eq!(kinds(&s), vec![(4, "into_extra")]);
    assert!(
        s.decisions[0].text.contains("1 extra left"),
        "{}",
        s.decisions[0].text
    );

    // Between events the state is the previous event's.
    assert_eq!(r.state_at(7.5).queue, s.queue);
    assert_eq!(r.state_at(7.5).head, s.head);

    // t=10: J1 ends, J2 starts in order; J3 is the new head: 2 needed, 1 free; J2 (expected end
    // 20) frees 2 → shadow 20, 1 + 2 − 2 = 1 extra.
    let s = r.state_at(10.0);
    assert_eq!(running(&s), vec![(4, 33.0), (2, 20.0)]);
    assert_eq!(queue(&s), vec![(3, None)]);
    assert_eq!(head(&s), Some((3, 2, Some(20.0), Some(1), 10.0)));
    assert_eq!(kinds(&s), vec![(2, "in_order"), (3, "head_blocked")]);
    assert_eq!((s.ended.clone(), s.started.clone()), (vec![0], vec![1]));

    // t=20: J3 starts; the queue is empty.
    let s = r.state_at(20.0);
    assert!(s.queue.is_empty() && s.head.is_none());
    assert_eq!(kinds(&s), vec![(3, "in_order")]);
    // Before the first event: nothing.
    let s = r.state_at(-1.0);
    assert!(s.running.is_empty() && s.queue.is_empty() && s.decisions.is_empty());
    assert_eq!(s.free, 4);
}

#[test]
fn easy_extra_grows_when_a_job_running_past_the_shadow_ends_early() {
    // J4 asks for 30 s but ends at 8: at 8 the head J2 still waits for J1 (shadow 10, not
    // recorded again), and J4's processor is free again → 2 extra, not the 1 recorded at 3.
    let r = replay(easy_case(5.0), 4, PolicyKind::Easy);
    let s = r.state_at(8.0);
    assert_eq!(s.ended, vec![3]);
    assert_eq!(head(&s), Some((2, 2, Some(10.0), Some(2), 1.0)));
    assert_eq!(s.free, 1);
}

#[test]
fn fcfs_head_has_no_shadow_time() {
    let r = replay(easy_case(30.0), 4, PolicyKind::Fcfs);
    let s = r.state_at(3.0);
    assert_eq!(queue(&s), vec![(2, None), (3, None), (4, None)]);
    assert_eq!(head(&s), Some((2, 2, None, None, 1.0)));
}

/// 4 processors. J1 t=0 4 procs runs 5 of its 10 s estimate; J2 t=1 2 procs 10 s; J3 t=2 4
/// procs 5 s; J4 t=3 2 procs 10 s (estimates exact but J1's).
fn conservative_case() -> Vec<Job> {
    vec![
        Job::new(1, 0.0, 5.0, 10.0, 4),
        Job::new(2, 1.0, 10.0, 10.0, 2),
        Job::new(3, 2.0, 5.0, 5.0, 4),
        Job::new(4, 3.0, 10.0, 10.0, 2),
    ]
}

#[test]
fn conservative_reservations_before_and_after_a_compression() {
    let r = replay(conservative_case(), 4, PolicyKind::Conservative);
    // On arrival: J2 at 10 (J1's estimate), J3 (all 4) at 20 after J2, J4 at 10 beside J2.
    let s = r.state_at(1.0);
    assert_eq!(queue(&s), vec![(2, Some(10.0))]);
    assert!(s.head.is_none());
    let s = r.state_at(3.0);
    assert_eq!(
        queue(&s),
        vec![(2, Some(10.0)), (3, Some(20.0)), (4, Some(10.0))]
    );
    assert_eq!(kinds(&s), vec![(4, "reserved")]);
    // t=5: J1 ends early; every reservation moves earlier: J2 and J4 to 5 (they start), J3 to
    // 15 (after them).
    let s = r.state_at(5.0);
    assert_eq!(queue(&s), vec![(3, Some(15.0))]);
    assert_eq!(running(&s), vec![(2, 15.0), (4, 15.0)]);
    let moved: Vec<(u64, f64, f64)> = r
        .explanations()
        .iter()
        .filter_map(|e| match e.reason {
            Reason::Moved { from, to, .. } => Some((e.job as u64 + 1, from, to)),
            _ => None,
        })
        .collect();
    assert_eq!(moved, vec![(2, 10.0, 5.0), (4, 10.0, 5.0), (3, 20.0, 15.0)]);
    let k = kinds(&s);
    assert!(
        k.contains(&(3, "moved")) && k.contains(&(2, "at_reservation")),
        "{k:?}"
    );
    let text = &s.decisions.iter().find(|d| d.id == 3).unwrap().text;
    assert!(
        text.contains("from t = 20 s to t = 15 s") && text.contains("job 1"),
        "{text}"
    );
    // Just before: the old reservations.
    assert_eq!(
        queue(&r.state_at(4.999)),
        vec![(2, Some(10.0)), (3, Some(20.0)), (4, Some(10.0))]
    );
    // A job's own entries for the hover.
    assert_eq!(r.why(2).len(), 3, "{:?}", r.why(2));
    assert!(r.why(2)[0].starts_with("t = 2 s: reserved 4 processors from t = 20 s"));
}

/// At every instant EASY recorded a blocked head, the replay's head is that job, its shadow
/// time is the entry's and its extra is the one recorded (after that instant's backfills into
/// the extra processors) — on a synthetic workload and, when present, on a real trace whose
/// estimates are far from exact (jobs running past the shadow time end early).
#[test]
fn easy_extra_matches_the_recorded_entries() {
    let synthetic = LublinParams {
        jobs: 1500,
        procs: 64,
        ..LublinParams::default()
    }
    .generate(7);
    check_extra_against_entries(synthetic.jobs, 64);
    let path = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    ));
    let Ok(file) = std::fs::File::open(&path) else {
        eprintln!("notice: {} missing — trace check skipped", path.display());
        return;
    };
    let mut w = read_swf(std::io::BufReader::new(file), &ReadOptions::default()).expect("parses");
    w.jobs.truncate(3000);
    w.fit_to_machine(100);
    check_extra_against_entries(w.jobs, 100);
}

fn check_extra_against_entries(jobs: Vec<Job>, procs: u32) {
    let r = replay(jobs, procs, PolicyKind::Easy);
    let mut checked = 0;
    for e in r.explanations() {
        if let Reason::HeadBlocked {
            shadow: Some(shadow),
            extra: Some(extra),
            ..
        } = e.reason
        {
            let s = r.state_at(e.time);
            let Some(h) = s.head else {
                panic!("no head at {}", e.time)
            };
            assert_eq!(h.job, e.job, "head at {}", e.time);
            assert_eq!(h.shadow, Some(shadow));
            let left = r
                .explanations()
                .iter()
                .filter(|x| x.time == e.time)
                .filter_map(|x| match x.reason {
                    Reason::IntoExtra {
                        head, extra_left, ..
                    } if head == e.job => Some(extra_left),
                    _ => None,
                })
                .next_back()
                .unwrap_or(extra);
            assert_eq!(h.extra, Some(left), "extra at {}", e.time);
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} blocked heads");
}
