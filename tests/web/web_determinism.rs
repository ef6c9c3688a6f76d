//! wasm32 tests, run in headless Chromium by `scripts/test.sh` (wasm-bindgen-test-runner):
//! the default experiment gives the golden summary bit for bit (as natively, see
//! `tests/it/golden.rs`); the random stream and the square root are those of the native build;
//! the worker's sliced run gives the same numbers as a run in one go and stops when
//! cancelled; the worker protocol messages survive a JSON round trip.
#![cfg(target_arch = "wasm32")]

use schedlab::modes::flat::run::run_experiment;
use schedlab::modes::flat::spec::Experiment;
use schedlab::modes::flat::spec::ExperimentFile;
use std::cell::RefCell;

use schedlab::web::protocol::{
    ChartData, ExportFormat, FromWorker, PageReport, RunReport, ToWorker, TraceInfo,
};
use schedlab::web::share::{base64url_decode, base64url_encode, ShareState};
use schedlab::web::worker;
use wasm_bindgen_test::wasm_bindgen_test;

const EXPERIMENT: &str = include_str!("../golden/default_experiment.json");
const GOLDEN: &str = include_str!("../golden/default_summary.json");

#[wasm_bindgen_test]
fn default_summary_matches_golden() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let output = run_experiment(&exp, None).expect("default experiment runs");
    let json = serde_json::to_string(&output.summary).expect("summary serialises");
    assert_eq!(json, GOLDEN.trim_end());
}

/// The random stream in the browser (computed by `base::rng::ChaCha8`, not `rand_chacha`) has
/// the fingerprints `base::rng`'s native test checks.
#[wasm_bindgen_test]
fn random_stream_matches_native() {
    for (seed, want) in [
        (0, 0xae25_3e30_0086_cfa5u64),
        (1, 0xb94a_9a0c_651e_df13),
        (42, 0x10be_3ed2_c37e_52b6),
    ] {
        let mut r = schedlab::base::rng::SimRng::new(seed);
        let fp = (0..5_000).fold(0u64, |acc, _| acc.rotate_left(5) ^ r.next_u64());
        assert_eq!(fp, want, "seed {seed}");
    }
}

/// `f64::sqrt` (the wasm instruction) equals libm's software square root bit for bit, as IEEE
/// 754 requires of both: the random distributions use the instruction.
#[wasm_bindgen_test]
fn sqrt_instruction_is_libm_sqrt() {
    let mut r = schedlab::base::rng::SimRng::new(3);
    for _ in 0..200_000 {
        let x = libm::exp(100.0 * r.uniform(-7.0, 7.0));
        assert_eq!(x.sqrt().to_bits(), libm::sqrt(x).to_bits(), "{x}");
        let y = r.uniform(0.0, 10.0);
        assert_eq!(y.sqrt().to_bits(), libm::sqrt(y).to_bits(), "{y}");
    }
    for x in [
        0.0,
        -0.0,
        1.0,
        2.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::INFINITY,
    ] {
        assert_eq!(x.sqrt().to_bits(), libm::sqrt(x).to_bits(), "{x}");
    }
}

#[wasm_bindgen_test]
async fn sliced_run_matches_run_experiment() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let whole = run_experiment(&exp, None).expect("default experiment runs");
    let progress = RefCell::new(Vec::new());
    worker::activate(1);
    let report = worker::run_sliced(1, &exp, None, &|m| progress.borrow_mut().push(m.clone()))
        .await
        .expect("sliced run succeeds")
        .expect("not cancelled");
    assert_eq!(report.output.summary, whole.summary);
    assert_eq!(report.output.categories, whole.categories);
    assert!(report.jobs.is_none(), "10,000 jobs: no per-job records");
    let progress = progress.into_inner();
    assert!(matches!(
        progress.last(),
        Some(FromWorker::Progress {
            id: 1,
            completed: 10000,
            total: 10000,
            ..
        })
    ));
}

#[wasm_bindgen_test]
async fn cancelled_run_stops() {
    let exp = Experiment::from_json(
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 200000}},
            "transforms": {"load_factor": 2}, "policy": "conservative", "seed": 1}"#,
    )
    .expect("experiment parses");
    worker::activate(2);
    // Runs before the first slice boundary: the run must notice at its first yield.
    wasm_bindgen_futures::spawn_local(async { worker::cancel(Some(2)) });
    let outcome = worker::run_sliced(2, &exp, None, &|_| {}).await;
    assert_eq!(outcome, Ok(None));
}

#[wasm_bindgen_test]
fn protocol_messages_round_trip() {
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let to_worker = [
        ToWorker::Trace {
            name: "NASA-iPSC-1993-3.1-cln.swf.gz".into(),
        },
        ToWorker::Bench {
            id: 9,
            link: "#e=abc.0".into(),
            runs: 10,
            trace: None,
            phases_only: true,
        },
        ToWorker::run_flat(7, exp.clone(), None, None),
        ToWorker::run_flat(8, exp.clone(), Some("x.swf".into()), Some(60.0)),
        ToWorker::Cancel { id: Some(7) },
        ToWorker::Cancel { id: None },
        ToWorker::Export {
            id: 7,
            format: ExportFormat::JobsCsv,
        },
        ToWorker::Export {
            id: 7,
            format: ExportFormat::Swf,
        },
        ToWorker::Compare {
            a: 7,
            b: 8,
            sort: schedlab::metrics::compare_view::SortOrder {
                column: 2,
                ascending: false,
            },
        },
        ToWorker::CompareCsv { a: 7, b: 8 },
        ToWorker::ReplayWindow {
            id: 7,
            t: Some(12.5),
        },
        ToWorker::ReplayWindow { id: 7, t: None },
    ];
    for m in &to_worker {
        assert_eq!(&ToWorker::from_json(&m.to_json()).unwrap(), m);
    }

    let mut output = run_experiment(&exp, None).expect("default experiment runs");
    let records: Vec<_> = output.jobs.iter().take(3).cloned().collect();
    let jobs = Some(records.clone());
    let summary = output.summary.clone();
    // RunOutput does not serialise its per-job records and timeline; the report carries them.
    output.jobs.clear();
    output.timeline.clear();
    let from_worker = [
        FromWorker::Ready {
            version: "0.1.0".into(),
        },
        FromWorker::TraceLoaded(TraceInfo {
            name: "t.swf".into(),
            bytes: 1234,
            jobs: 10,
            dropped: 1,
            max_job_procs: 64,
            header_procs: Some(128),
            sha256: "ab".repeat(32),
            span_seconds: 86_400.0 * 92.0,
            time_zone: Some("US/Pacific".into()),
        }),
        FromWorker::Progress {
            id: 7,
            completed: 5,
            total: 10,
            sim_time: 1234.5,
            stage: 0,
        },
        FromWorker::Progress {
            id: 7,
            completed: 15,
            total: 20,
            sim_time: 1.5,
            stage: 1,
        },
        FromWorker::Done {
            id: 7,
            report: Box::new(PageReport::Flat(RunReport {
                output,
                jobs,
                why: Some(vec![vec![
                    "t = 0 s: started in queue order: needs 8, 128 free".into(),
                ]]),
                explanations: Some(vec![schedlab::base::Explanation {
                    time: 0.0,
                    job: 0,
                    reason: schedlab::base::Reason::InOrder {
                        needs: 8,
                        free: 128,
                    },
                }]),
                wall_ms: 12.25,
                charts: ChartData {
                    procs: 128,
                    timeline: vec![(0.0, 64.0, 3.0), (10.0, 128.0, 0.0)],
                    wait_quantiles: vec![0.0, 5.0, 60.0],
                },
            })),
        },
        FromWorker::Cancelled { id: 7 },
        FromWorker::Held {
            id: 8,
            message: "This run is estimated at about 3 h in this tab (…); press Run to start it."
                .into(),
        },
        FromWorker::Exported {
            id: 7,
            format: ExportFormat::Swf,
            text: "; Version: 2.2\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n".into(),
        },
        FromWorker::Error {
            id: None,
            message: "t.swf: empty file".into(),
            fatal: false,
        },
        FromWorker::Compared {
            a: 7,
            b: 8,
            view: Box::new(schedlab::metrics::compare_view::ComparisonView::of(
                &schedlab::metrics::compare(&summary, &records, &summary, &records)
                    .expect("the same jobs"),
                Default::default(),
                100,
                40,
            )),
        },
        FromWorker::ComparedCsv {
            a: 7,
            b: 8,
            text: "job,procs,submit,start_a,start_b,shift\n1,2,0,0,5,5\n".into(),
        },
        FromWorker::ReplayWindow {
            id: 7,
            window: Box::new(schedlab::sim::replay_window::ReplayWindow {
                procs: 128,
                t0: 0.0,
                t1: 50.0,
                first: 2,
                records: records.clone(),
                log: vec![schedlab::base::Explanation {
                    time: 0.0,
                    job: 0,
                    reason: schedlab::base::Reason::InOrder {
                        needs: 8,
                        free: 128,
                    },
                }],
                span: (0.0, 900.0),
                before: None,
                after: Some(60.0),
                instants_before: 0,
                instants: 12,
            }),
        },
        FromWorker::CompareFailed {
            a: 7,
            b: 8,
            message: "That run is no longer kept".into(),
        },
        FromWorker::ReplayFailed {
            id: 7,
            message: "That run is no longer kept".into(),
        },
    ];
    for m in &from_worker {
        assert_eq!(&FromWorker::from_json(&m.to_json()).unwrap(), m);
    }
    assert!(ToWorker::from_json(r#"{"type":"launch"}"#).is_err());
}

#[wasm_bindgen_test]
fn base64url_round_trips() {
    assert_eq!(base64url_encode(b""), "");
    assert_eq!(base64url_encode(b"f"), "Zg");
    assert_eq!(base64url_encode(b"fo"), "Zm8");
    assert_eq!(base64url_encode(b"foo"), "Zm9v");
    assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
    for n in 0..300usize {
        let data: Vec<u8> = (0..n).map(|i| (i * 37 + n) as u8).collect();
        assert_eq!(base64url_decode(&base64url_encode(&data)), Some(data));
    }
    assert_eq!(base64url_decode("Zm9v!"), None);
    assert_eq!(base64url_decode("Z"), None);
    assert_eq!(base64url_decode("Zh"), None, "leftover bits must be zero");
}

#[wasm_bindgen_test]
fn share_links_round_trip_and_refuse_bad_ones() {
    use schedlab::policy::PolicyKind;
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    let state = ShareState::new(exp.clone(), vec![PolicyKind::Fcfs, PolicyKind::Easy]);
    let fragment = state.to_fragment();
    assert!(fragment.starts_with("x="));
    assert!(
        fragment.len() < 400,
        "compact: {} characters",
        fragment.len()
    );
    let back = ShareState::from_fragment(&format!("#{fragment}"))
        .expect("link opens")
        .expect("is a share link");
    assert_eq!(back, state);
    assert_eq!(back.policies(), vec![PolicyKind::Fcfs, PolicyKind::Easy]);

    // Not a share link: nothing to do.
    assert_eq!(ShareState::from_fragment(""), Ok(None));
    assert_eq!(ShareState::from_fragment("#about"), Ok(None));

    // Garbled, cut and tampered links are errors, never panics.
    let err = |f: &str| ShareState::from_fragment(f).expect_err(f);
    assert!(err("#x=%%%").contains("damaged"));
    assert!(err(&format!("#{}", &fragment[..fragment.len() / 2])).contains("damaged"));
    // Every one-character edit and every cut is refused.
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    for i in 2..fragment.len() {
        assert!(
            ShareState::from_fragment(&fragment[..i]).is_err(),
            "cut at {i}"
        );
        let old = fragment.as_bytes()[i];
        let new = alphabet.bytes().find(|&c| c != old).unwrap();
        let mut t = fragment.clone().into_bytes();
        t[i] = new;
        let t = String::from_utf8(t).unwrap();
        assert!(ShareState::from_fragment(&t).is_err(), "edit at {i}: {t}");
    }
    // Another envelope version: says which.
    let pack = |json: &str| {
        format!(
            "#x={}.{}",
            base64url_encode(json.as_bytes()),
            schedlab::web::share::checksum(json.as_bytes())
        )
    };
    let e = err(&pack(r#"{"v": 2, "experiment": {}, "policies": []}"#));
    assert!(
        e.contains("format 2") && e.contains("reads format 1"),
        "{e}"
    );
    let e = err(&pack(r#"{"experiment": {}}"#));
    assert!(e.contains("version"), "{e}");
    // An experiment of another format version: names the key and both versions.
    let e = err(&pack(
        r#"{"v": 1, "experiment": {"version": 2, "workload": {"synthetic": {"model": "lublin"}}, "policy": "easy"}}"#,
    ));
    assert!(e.contains("version 2") && e.contains("version 1"), "{e}");
    // A bad value names the key.
    let e = err(&pack(
        r#"{"v": 1, "experiment": {"workload": {"synthetic": {"model": "lublin"}}, "policy": "lifo"}}"#,
    ));
    assert!(e.contains("policy"), "{e}");
    let e = err(&pack("not json"));
    assert!(e.contains("not valid JSON"), "{e}");
    // A future version is recognised even when its link has another layout (no checksum).
    let e = err(&format!("#x={}", base64url_encode(br#"{"v":3}"#)));
    assert!(e.contains("format 3"), "{e}");
}

#[wasm_bindgen_test]
fn sha256_of_known_input() {
    assert_eq!(
        worker::sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[wasm_bindgen_test]
async fn finished_runs_export_like_the_cli() {
    let exp = Experiment::from_json(
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 700}}, "policy": "easy", "seed": 5}"#,
    )
    .expect("experiment parses");
    let whole = run_experiment(&exp, None).expect("runs");
    worker::activate(31);
    let report = worker::run_sliced(31, &exp, None, &|_| {})
        .await
        .expect("sliced run succeeds")
        .expect("not cancelled");
    // 700 jobs: explained; the replay built from the report starts every job once.
    let log = report.explanations.clone().expect("explanations sent");
    let records = report.jobs.clone().expect("per-job records sent");
    let replay = schedlab::sim::replay::Replay::new(report.charts.procs, records, log);
    let starts = (0..whole.jobs.len())
        .filter(|&j| replay.state_at(whole.jobs[j].start).started.contains(&j))
        .count();
    assert_eq!(starts, whole.jobs.len());
    assert_eq!(replay.why(0).len(), report.why.as_ref().unwrap()[0].len());
    let csv = worker::export(31, ExportFormat::JobsCsv).expect("jobs CSV");
    let mut expected = format!("{}\n", schedlab::metrics::JobRecord::CSV_HEADER);
    for r in &whole.jobs {
        expected.push_str(&r.csv_line());
        expected.push('\n');
    }
    assert_eq!(csv, expected);
    assert!(csv.starts_with("id,submit,start,end,procs"));
    let swf = worker::export(31, ExportFormat::Swf).expect("SWF");
    let lines = swf
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty());
    assert_eq!(lines.count(), whole.jobs.len());
    assert!(worker::export(9999, ExportFormat::Swf).is_err());
}

#[wasm_bindgen_test]
fn chart_data_reductions() {
    use schedlab::sim::TimelinePoint;
    let p = |time: f64, busy: u32, queued: u32| TimelinePoint { time, busy, queued };
    // 0–10 s: 4 busy, 10–30 s: 8 busy 2 queued, 30–40 s: 0.
    let tl = [p(0.0, 4, 0), p(10.0, 8, 2), p(30.0, 0, 0), p(40.0, 0, 0)];
    assert_eq!(
        worker::decimate(&tl, 10).len(),
        4,
        "short timelines pass unchanged"
    );
    let d = worker::decimate(&tl, 2);
    assert_eq!(d, vec![(0.0, 6.0, 1.0), (20.0, 4.0, 1.0)]);
    assert!(worker::decimate(&[], 5).is_empty());
    let mut w = vec![5.0, 1.0, 3.0, 2.0, 4.0];
    assert_eq!(worker::quantiles(&mut w, 3), vec![1.0, 3.0, 5.0]);
    assert!(worker::quantiles(&mut [], 3).is_empty());
}

#[wasm_bindgen_test]
fn gantt_layout_gives_each_job_its_processors_without_overlap() {
    use schedlab::web::chart::GanttLayout;
    let exp = Experiment::from_json(
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 800, "procs": 64}}, "policy": "easy", "seed": 3}"#,
    )
    .expect("experiment parses");
    let out = run_experiment(&exp, None).expect("runs");
    let layout = GanttLayout::new(&out.jobs, 64).expect("a layout");
    let mut per_job = vec![0u32; out.jobs.len()];
    let mut per_proc: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 64];
    for &(i, s, e, p0, n) in &layout.bands {
        per_job[i] += n;
        assert!(p0 + n <= 64);
        for p in p0..p0 + n {
            per_proc[p as usize].push((s, e));
        }
    }
    for (i, j) in out.jobs.iter().enumerate() {
        assert_eq!(per_job[i], j.procs, "job {i}");
    }
    for spans in &mut per_proc {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlap {w:?}");
        }
    }
    let (i, s, e, p0, _) = layout.bands[layout.bands.len() / 2];
    assert_eq!(layout.job_at((s + e) / 2.0, f64::from(p0) + 0.5), Some(i));
    assert!(GanttLayout::new(&out.jobs, 100_000).is_none());
}

#[wasm_bindgen_test]
fn share_links_carry_a_sweep_and_old_links_still_open() {
    use schedlab::policy::PolicyKind;
    use schedlab::web::share::Sweep;
    let exp = Experiment::from_json(EXPERIMENT).expect("default experiment parses");
    // A link without a sweep (as written before sweeps existed) opens with none.
    let plain = ShareState::new(exp.clone(), vec![PolicyKind::Easy]);
    let back = ShareState::from_fragment(&plain.to_fragment())
        .expect("link opens")
        .expect("is a share link");
    assert_eq!(back.sweep, None);
    let sweep = Sweep {
        from: 0.5,
        to: 1.5,
        step: 0.5,
        axis: Default::default(),
    };
    assert_eq!(sweep.points(), Ok(vec![0.5, 1.0, 1.5]));
    let state =
        ShareState::new(exp, vec![PolicyKind::Fcfs, PolicyKind::Easy]).with_sweep(Some(sweep));
    let back = ShareState::from_fragment(&state.to_fragment())
        .expect("link opens")
        .expect("is a share link");
    assert_eq!(back, state);
    // Rounding: 0.7 + 3 × 0.1 is exactly 1.
    let p = Sweep {
        from: 0.7,
        to: 1.0,
        step: 0.1,
        axis: Default::default(),
    }
    .points()
    .expect("valid");
    assert_eq!(p.len(), 4);
    assert_eq!(p[3], 1.0);
    for bad in [
        Sweep {
            from: 0.0,
            to: 1.0,
            step: 0.1,
            axis: Default::default(),
        },
        Sweep {
            from: 1.0,
            to: 0.5,
            step: 0.1,
            axis: Default::default(),
        },
        Sweep {
            from: 0.5,
            to: 1.0,
            step: 0.0,
            axis: Default::default(),
        },
        Sweep {
            from: 0.01,
            to: 100.0,
            step: 0.01,
            axis: Default::default(),
        },
    ] {
        assert!(bad.points().is_err(), "{bad:?}");
    }
}

#[wasm_bindgen_test]
fn the_gantt_charts_users_are_read_by_job_number_the_last_line_winning() {
    use schedlab::web::worker_core::users_by_job;
    let line =
        |id: u64, user: i64| format!("{id} 0 0 10 1 -1 -1 1 10 -1 1 {user} -1 -1 -1 -1 -1 -1\n");
    let trace = [
        "; a comment 9 9 9 9 9 9 9 9 9 9 9 9\n".to_string(),
        line(2, 5),
        line(1, 3),
        line(2, 9),
        line(3, -1),
        "not a job line\n".to_string(),
    ]
    .concat();
    assert_eq!(users_by_job(trace.as_bytes(), 1), vec![(1, 3), (2, 9)]);
    assert!(users_by_job(b"", 10).is_empty());
}
