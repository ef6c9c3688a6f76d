//! Srinivasan et al. (moldable scheduling), hand-computed cases and whole-trace checks: a job whose best
//! choice is fewer processors because it starts earlier; the profile-based search of §4.1
//! stopping early; a category reservation preventing starvation; an Xfactor reservation
//! triggering at k = 4; rigid conservative under the moldable engine equal to the flat
//! engine's conservative run; every strategy's invariants on a trace.

#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use std::path::PathBuf;

use common::{schedlab, temp_dir};

use schedlab::base::Registered;
use schedlab::limits::Limits;
use schedlab::modes::flat::run::TraceInput;
use schedlab::modes::flat::spec::{SwfSource, WorkloadSpec};
use schedlab::modes::moldable::run::{prepare_moldable, simulate};
use schedlab::modes::moldable::spec::MoldableExperiment;
use schedlab::policy::moldable::choice::{best_of, profile_search};
use schedlab::policy::moldable::reservations::xfactor;
use schedlab::policy::moldable::MoldableStrategyKind as K;
use schedlab::policy::profile::Profile;
use schedlab::sim::moldable_engine::{MoldableResult, MoldableSimulation};
use schedlab::sim::{moldable_invariants, Simulation};
use schedlab::workload::moldable::{MoldableJob, MoldableModel, Scaling};
use schedlab::workload::Job;

/// A job of `procs` processors submitted at `submit`, running exactly its estimate.
fn job(id: u64, submit: f64, est: f64, procs: u32) -> Job {
    Job::new(id, submit, est, est, procs)
}

fn run(jobs: Vec<Job>, shapes: Vec<MoldableJob>, procs: u32, kind: K) -> MoldableResult {
    let r = MoldableSimulation::moldable_by_kind(jobs, shapes, procs, kind)
        .unwrap()
        .run_to_end()
        .unwrap();
    assert_eq!(moldable_invariants::check(&r), Vec::<String>::new());
    r
}

fn start(r: &MoldableResult, i: usize) -> f64 {
    r.outcomes[i].start
}

#[test]
fn best_choice_is_fewer_processors_when_it_starts_earlier() {
    // 4 processors; A holds 2 of them until t = 100. B (range 1..=4, linear speedup,
    // T(4) = 50 so T(2) = 100, T(3) = 66.7, T(1) = 200) could finish at 100 on 2 processors
    // now, at 100 + 50 = 150 on 4 or at 166.7 on 3 (both must wait for A), at 200 on 1.
    let jobs = vec![job(1, 0.0, 100.0, 2), job(2, 0.0, 50.0, 4)];
    let lin = Scaling::Downey { a: 4.0, sigma: 0.0 };
    let shapes = vec![
        MoldableJob::rigid(2, 100.0),
        MoldableJob::new(1, 4, 4, lin, 50.0, &[]),
    ];
    // On the profile directly.
    let mut p = Profile::new(4, 0.0);
    assert!(p.reserve(0.0, 100.0, 2));
    let c = best_of(&p, 0.0, &jobs[1], &shapes[1], &[1, 2, 3, 4]).unwrap();
    assert_eq!((c.procs, c.start, c.end), (2, 0.0, 100.0));
    // And as the greedy strategy's choice in a run: B starts at once on 2 processors.
    let r = run(jobs, shapes, 4, K::SubmitGreedy);
    assert_eq!(r.chosen, vec![2, 2]);
    assert_eq!((start(&r, 1), r.outcomes[1].end), (0.0, 100.0));
}

#[test]
fn profile_search_stops_at_the_first_block_after_the_best_completion() {
    // The paper's free-time blocks (§4.1) on 20 processors: (100, 1000, 12),
    // (1000, 1500, 20), (1500, 2000, 2), then 20 for ever.
    let mut p = Profile::new(20, 100.0);
    assert!(p.reserve(100.0, 1000.0, 8));
    assert!(p.reserve(1500.0, 2000.0, 18));
    let blocks: Vec<(f64, u32)> = p.blocks_from(100.0).collect();
    assert_eq!(
        blocks,
        vec![(100.0, 12), (1000.0, 20), (1500.0, 2), (2000.0, 20)]
    );
    let lin = Scaling::Downey {
        a: 20.0,
        sigma: 0.0,
    };
    // A short job (1,200 processor-seconds): 12 processors at once end at 200, before the
    // second block starts: one evaluation, three blocks never looked at.
    let short = job(1, 100.0, 1200.0, 1);
    let s = MoldableJob::new(1, 20, 1, lin.clone(), 1200.0, &[]);
    let (c, n) = profile_search(&p, 100.0, &short, &s, 20);
    let c = c.unwrap();
    assert_eq!((c.procs, c.start, c.end, n), (12, 100.0, 200.0, 1));
    // A longer one (14,400): 12 now end at 1,300; 20 (the second block) cannot run across
    // the 2-processor block and end at 2,000 + 720; the third block starts at 1,500 ≥ 1,300:
    // stop after two evaluations.
    let long = job(2, 100.0, 14_400.0, 1);
    let l = MoldableJob::new(1, 20, 1, lin, 14_400.0, &[]);
    let (c, n) = profile_search(&p, 100.0, &long, &l, 20);
    let c = c.unwrap();
    assert_eq!((c.procs, c.start, c.end, n), (12, 100.0, 1300.0, 2));
    // A block below the job's minimum is ignored; one above the fair-share limit is cut to it.
    let m = MoldableJob::new(
        13,
        20,
        13,
        Scaling::Downey {
            a: 20.0,
            sigma: 0.0,
        },
        13.0 * 100.0,
        &[],
    );
    let (c, _) = profile_search(&p, 100.0, &job(3, 100.0, 1300.0, 13), &m, 16);
    assert_eq!(c.unwrap().procs, 16);
}

/// Ten processors: R1 (2 procs until 100), R3 (2 until 120), R4 (6 until 1000); H wants all
/// ten (the head, reserved at 1000); X (4 procs, 100 s) waits behind it; Y (2 procs, 800 s)
/// arrives after X.
fn starvation_case(extra: Option<Job>) -> (Vec<Job>, Vec<MoldableJob>) {
    let mut jobs = vec![
        job(1, 0.0, 100.0, 2),
        job(2, 0.0, 120.0, 2),
        job(3, 0.0, 1000.0, 6),
        job(4, 1.0, 100.0, 10),
        job(5, 2.0, 100.0, 4),
        job(6, 3.0, 800.0, 2),
    ];
    jobs.extend(extra);
    let shapes = jobs
        .iter()
        .map(|j| MoldableJob::rigid(j.procs, j.estimate))
        .collect();
    (jobs, shapes)
}

#[test]
fn a_category_reservation_prevents_starvation() {
    // Weights (procs × estimate): H 1,000 and Y 1,600 are in category 3 ([512, 4096)), X 400
    // in category 2. Base (EASY: only H reserved): at 100 X does not fit in the 2 free
    // processors, Y does and ends at 900 ≤ 1000, so it backfills; at 120 only 2 are free
    // again; X starts when Y ends, at 900. With one reservation per category X holds one
    // from its arrival — 4 processors at 120 — so Y cannot start at 100 (it would run across
    // X's reservation) and X starts at 120.
    let (jobs, shapes) = starvation_case(None);
    let base = run(jobs.clone(), shapes.clone(), 10, K::Base);
    assert_eq!(start(&base, 4), 900.0);
    assert_eq!(start(&base, 5), 100.0);
    let cat = run(jobs, shapes, 10, K::CategoryRes);
    assert_eq!(start(&cat, 4), 120.0);
    assert!(start(&cat, 5) >= 220.0);
    assert_eq!(start(&cat, 3), 1000.0);
}

#[test]
fn an_xfactor_reservation_triggers_past_k_4() {
    // As above with X running 10 s (ESRT 4 × 10 = 40 s: Xfactor (wait + 40) / 40 passes 4
    // once X has waited 120 s, at t = 122), plus Y2 (2 procs, 850 s) at t = 130.
    let (mut jobs, mut shapes) = starvation_case(Some(job(7, 130.0, 850.0, 2)));
    jobs[4] = job(5, 2.0, 10.0, 4);
    shapes[4] = MoldableJob::rigid(4, 10.0);
    let x = (&jobs[4], &shapes[4]);
    assert_eq!(x.1.esrt, 40.0);
    assert_eq!(xfactor(122.0, x.0, x.1), 4.0);
    assert!(xfactor(120.0, x.0, x.1) < 4.0 && xfactor(130.0, x.0, x.1) > 4.0);
    // Base: Y backfills at 100, Y2 at 130 (ends 980 ≤ 1000); X (4 procs) waits for both:
    // it starts at 980.
    let base = run(jobs.clone(), shapes.clone(), 10, K::Base);
    assert_eq!(
        (start(&base, 5), start(&base, 6), start(&base, 4)),
        (100.0, 130.0, 980.0)
    );
    // Xfactor-based (k = 4): at 100 and 120 X's Xfactor is still below 4 (Y backfills as in
    // base); at 130 it is 4.2, so X is reserved at 900 (when Y ends) and Y2, which would run
    // across it, waits.
    let xf = run(jobs, shapes, 10, K::XfactorRes);
    assert_eq!((start(&xf, 5), start(&xf, 4)), (100.0, 900.0));
    assert!(start(&xf, 6) > 900.0);
}

/// The readings of §3–4.3 (`policy::moldable::readings`): X as in the Xfactor case but with
/// an estimate of 100 s for its 10 s run (ESRT 400 s by the estimate, 40 s by the run time).
/// By the estimate (the default) or at the requested count (scale 100 s) X's Xfactor at 130 is
/// 1.32 or 2.28 < 4, Y2 backfills at 130, X cannot finish before H's reservation at 1000 and
/// starts after H, at 1100; by the run time it is (128 + 40) / 40 = 4.2 > 4, X is reserved at
/// 900 (when Y ends) and starts there.
#[test]
fn the_xfactor_scale_follows_the_reading() {
    use schedlab::policy::moldable::readings::{
        actual_esrt, CategoryBasis, Readings, WeightBasis, XfactorScale,
    };
    let (mut jobs, mut shapes) = starvation_case(Some(job(7, 130.0, 850.0, 2)));
    jobs[4] = Job::new(5, 2.0, 10.0, 100.0, 4);
    shapes[4] = MoldableJob::rigid(4, 100.0);
    assert_eq!(shapes[4].esrt, 400.0);
    assert_eq!(actual_esrt(&jobs[4], &shapes[4]), 40.0);
    let x_start = |readings: Readings| {
        let policy = K::XfactorRes.build_with(jobs.len(), 10, readings);
        let r = MoldableSimulation::moldable(jobs.clone(), shapes.clone(), 10, policy)
            .unwrap()
            .run_to_end()
            .unwrap();
        assert_eq!(moldable_invariants::check(&r), Vec::<String>::new());
        (start(&r, 4), start(&r, 6))
    };
    let with = |xfactor| Readings {
        xfactor,
        ..Readings::DEFAULT
    };
    assert_eq!(x_start(Readings::DEFAULT), (1100.0, 130.0));
    assert_eq!(
        x_start(with(XfactorScale::RequestedEstimate)),
        (1100.0, 130.0)
    );
    let (x, y2) = x_start(with(XfactorScale::SequentialActual));
    assert_eq!(x, 900.0);
    assert!(y2 > 900.0);
    // The default reading is the registry's strategy, run for run.
    let by_kind = run(jobs.clone(), shapes.clone(), 10, K::XfactorRes);
    assert_eq!(start(&by_kind, 4), 1100.0);
    // Weights and categories: X's fair-share weight 400 (estimate) or 40 (run time); its
    // scheduler category weight 4 × 100 = 400 or 4 × 10 = 40.
    let act = Readings {
        weight: WeightBasis::Actual,
        category: CategoryBasis::RequestedActual,
        ..Readings::DEFAULT
    };
    assert_eq!(Readings::DEFAULT.weight(&jobs[4], &shapes[4]), 400.0);
    assert_eq!(act.weight(&jobs[4], &shapes[4]), 40.0);
    assert_eq!(
        Readings::DEFAULT.category_weight(&jobs[4], &shapes[4]),
        400.0
    );
    assert_eq!(act.category_weight(&jobs[4], &shapes[4]), 40.0);
    // By the weight: the ESRT (linear speedup here, so 4 × 100 by the estimate, 4 × 10 by
    // the run time).
    let by_weight = Readings {
        category: CategoryBasis::Weight,
        ..act
    };
    assert_eq!(by_weight.category_weight(&jobs[4], &shapes[4]), 40.0);
    let by_est_weight = Readings {
        category: CategoryBasis::Weight,
        ..Readings::DEFAULT
    };
    assert_eq!(by_est_weight.category_weight(&jobs[4], &shapes[4]), 400.0);
    assert_eq!(Readings::all().len(), 18);
    assert_eq!(Readings::all()[0], Readings::DEFAULT);
}

fn sdsc() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz"
    ));
    p.exists().then_some(p)
}

fn sdsc_experiment(path: &std::path::Path, jobs: usize, sigma: f64, rf: f64) -> MoldableExperiment {
    let mut exp = MoldableExperiment::new(
        WorkloadSpec::Swf(SwfSource {
            path: Some(path.display().to_string()),
            ..SwfSource::default()
        }),
        MoldableModel::Downey {
            sigma,
            range_factor: rf,
        },
        K::Combined,
    );
    exp.transforms.first_jobs = Some(jobs);
    exp.transforms.load_factor = 1.25;
    exp
}

#[test]
fn rigid_conservative_is_the_flat_engines_conservative_run() {
    let Some(path) = sdsc() else {
        eprintln!("SDSC SP2 trace not found: skipped");
        return;
    };
    let exp = sdsc_experiment(&path, 2000, 1.0, 2.0);
    let bytes = std::fs::read(&path).unwrap();
    let p = prepare_moldable(
        &exp,
        Some(TraceInput::from_bytes("sdsc", &bytes)),
        &Limits::DEFAULT,
    )
    .unwrap();
    let moldable = simulate(&p, K::RigidConservative).unwrap();
    let flat = Simulation::new(
        p.prepared.workload.jobs.clone(),
        p.prepared.procs,
        schedlab::policy::PolicyKind::Conservative
            .build(p.prepared.workload.jobs.len(), p.prepared.procs),
    )
    .run_to_end()
    .unwrap();
    assert_eq!(moldable.outcomes, flat.outcomes);
    assert!(moldable
        .chosen
        .iter()
        .zip(&moldable.jobs)
        .all(|(&x, j)| x == j.procs));
}

#[test]
fn every_strategy_keeps_the_invariants_on_a_trace() {
    let Some(path) = sdsc() else {
        eprintln!("SDSC SP2 trace not found: skipped");
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    for (sigma, rf) in [(0.0, 1.0), (2.0, 3.0)] {
        let exp = sdsc_experiment(&path, 1500, sigma, rf);
        let p = prepare_moldable(
            &exp,
            Some(TraceInput::from_bytes("sdsc", &bytes)),
            &Limits::DEFAULT,
        )
        .unwrap();
        for k in K::listed() {
            // `simulate` checks the invariants and fails on any violation.
            let r = simulate(&p, k).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            assert_eq!(moldable_invariants::check(&r), Vec::<String>::new());
            assert!(r
                .chosen
                .iter()
                .zip(&r.shapes)
                .all(|(&x, s)| s.min <= x && x <= s.max));
        }
    }
}

const SMALL_SWF: &str = "\
; Version: 2.2
; MaxProcs: 8 (test machine)
; UnixStartTime: 0
1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 3 2 -1 -1 2 4 -1 1 2 1 -1 -1 -1 -1 -1
4 3 -1 30 1 -1 -1 1 40 -1 1 2 1 -1 -1 -1 -1 -1
5 3 -1 30 4 -1 -1 4 40 -1 1 2 1 -1 -1 -1 -1 -1
";

#[test]
fn the_moldable_command_compares_strategies_and_reads_envelopes() {
    let d = temp_dir("cli-moldable");
    std::fs::write(d.join("small.swf"), SMALL_SWF).unwrap();
    let exp = d.join("moldable.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "small.swf"}},
            "model": {"downey": {"sigma": 0.5, "range_factor": 2}}, "strategy": "base"}"#,
    )
    .unwrap();
    let (code, out, err) = schedlab(&["moldable", exp.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["procs"], 8);
    assert_eq!(v["reference"]["strategy"], "rigid_conservative");
    assert_eq!(v["strategies"][0]["strategy"], "base");
    assert_eq!(
        v["strategies"][0]["categories"].as_array().unwrap().len(),
        10
    );
    assert!(v["strategies"][0]["change_vs_rigid_conservative"]["overall_pct"].is_number());
    let (code, out, err) = schedlab(&[
        "moldable",
        exp.to_str().unwrap(),
        "--strategy",
        "rigid_conservative,combined",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["strategies"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["strategies"][0]["change_vs_rigid_conservative"]["overall_pct"],
        0.0
    );
    // An envelope of mode moldable: its strategies are compared.
    let env = d.join("envelope.json");
    let exp_json = std::fs::read_to_string(&exp).unwrap();
    std::fs::write(
        &env,
        format!(r#"{{"v": 2, "mode": "moldable", "experiment": {exp_json}, "strategies": ["corrected_wf", "all_sizes"]}}"#),
    )
    .unwrap();
    let (code, out, err) = schedlab(&["moldable", env.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["strategies"][1]["strategy"], "all_sizes");
    let (code, out, _) = schedlab(&["open", env.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("\"moldable\""));
    // Another mode's command refuses it, naming the right one.
    let (code, _, err) = schedlab(&["mesh", env.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("schedlab moldable"), "{err}");
    // Bad values name the key.
    let (code, _, err) = schedlab(&["moldable", exp.to_str().unwrap(), "--strategy", "sjf"]);
    assert_eq!(code, 2);
    assert!(err.contains("strategy") && err.contains("sjf"), "{err}");
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "small.swf"}}, "model": {"downey": {"sigma": -1, "range_factor": 2}}}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["moldable", exp.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("model.downey.sigma"), "{err}");
    // A bad envelope: the error names the file and the key once.
    std::fs::write(
        &env,
        r#"{"v": 2, "mode": "moldable", "experiment": {"workload": {"synthetic": {"jobs": 20}}}, "strategies": ["combined"]}"#,
    )
    .unwrap();
    for cmd in ["moldable", "open"] {
        let (code, _, err) = schedlab(&[cmd, env.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}");
        assert_eq!(
            err.trim_end(),
            format!(
                "schedlab: experiment: {}: experiment.workload.synthetic: missing field `model`",
                env.display()
            ),
            "{cmd}"
        );
    }
    // The registry lists the strategies.
    let (code, out, _) = schedlab(&["list", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["moldable_strategy"].as_array().unwrap().len(), 13);
}

#[test]
fn scalability_profiles_give_ranges_and_run_times() {
    let d = temp_dir("cli-moldable-profiles");
    std::fs::write(d.join("small.swf"), SMALL_SWF).unwrap();
    let exp = d.join("profiles.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "small.swf"}},
            "model": {"profiles": {"profiles": [
               {"name": "a", "points": [[2, 100.0], [4, 60.0], [8, 40.0]]},
               {"name": "b", "points": [[1, 50.0], [16, 5.0]]}]}},
            "strategy": "combined"}"#,
    )
    .unwrap();
    let (code, out, err) = schedlab(&[
        "moldable",
        exp.to_str().unwrap(),
        "--strategy",
        "rigid_easy,submit_greedy,combined",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["strategies"].as_array().unwrap().len(), 3);
}
