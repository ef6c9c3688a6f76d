//! Synthetic workload models: determinism, serde, validation and the statistics of large
//! samples against the papers' parameters (Ababneh & Bani-Mohammad §5.1, Mache et al. Table 1, Lublin and
//! Feitelson 2003 / `m_lublin99.c`).

use schedlab::workload::synthetic::{
    ExponentialJobsParams, LublinParams, MeshJobsParams, SideDistribution, SyntheticModel,
};
use schedlab::workload::Workload;

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    s / n as f64
}

fn interarrival_mean(w: &Workload) -> f64 {
    mean(w.jobs.windows(2).map(|p| p[1].submit - p[0].submit))
}

fn check_common(w: &Workload, n: usize) {
    assert_eq!(w.jobs.len(), n);
    for (i, j) in w.jobs.iter().enumerate() {
        assert_eq!(j.id, i as u64 + 1, "ids are 1..n in arrival order");
        assert!(j.submit >= 0.0 && j.submit.is_finite());
        assert!(j.run_time >= 0.0 && j.run_time.is_finite());
        assert!(j.estimate >= j.run_time);
        assert!(j.procs >= 1);
        assert_eq!(j.record.submit_time, j.submit);
        assert_eq!(j.record.run_time, j.run_time);
        assert_eq!(j.record.allocated_procs, f64::from(j.procs));
    }
    assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
}

fn all_models() -> Vec<SyntheticModel> {
    vec![
        SyntheticModel::Lublin(LublinParams {
            jobs: 2000,
            ..LublinParams::default()
        }),
        SyntheticModel::MeshJobs(MeshJobsParams {
            jobs: 2000,
            ..MeshJobsParams::default()
        }),
        SyntheticModel::MeshJobs(MeshJobsParams {
            jobs: 2000,
            sides: SideDistribution::Uniform,
            ..MeshJobsParams::default()
        }),
        SyntheticModel::ExponentialJobs(ExponentialJobsParams::default()),
    ]
}

// ----------------------------------------------------------------------------------------
// Determinism and serde
// ----------------------------------------------------------------------------------------

#[test]
fn same_seed_same_jobs_different_seed_different_jobs() {
    for m in all_models() {
        let a = m.generate(42);
        let b = m.generate(42);
        assert_eq!(a, b, "{}", m.name());
        let bits = |w: &Workload| -> Vec<(u64, u64, u32)> {
            w.jobs
                .iter()
                .map(|j| (j.submit.to_bits(), j.run_time.to_bits(), j.procs))
                .collect()
        };
        assert_eq!(bits(&a), bits(&b));
        let c = m.generate(43);
        assert_ne!(bits(&a), bits(&c), "{}", m.name());
    }
}

#[test]
fn lublin_twice_serializes_to_identical_json() {
    let m = SyntheticModel::Lublin(LublinParams::default());
    let a = serde_json::to_string(&m.generate(7)).expect("serialize");
    let b = serde_json::to_string(&m.generate(7)).expect("serialize");
    assert_eq!(a, b);
    assert!(a.len() > 1000);
}

/// Pins the first jobs of each model for seed 1, so any change to a stream (RNG, libm use,
/// order of draws) is noticed: native and wasm32 must produce exactly these values.
#[test]
fn streams_are_pinned() {
    let lublin = LublinParams {
        jobs: 3,
        ..LublinParams::default()
    }
    .generate(1);
    let got: Vec<(f64, f64, u32)> = lublin
        .jobs
        .iter()
        .map(|j| (j.submit, j.run_time, j.procs))
        .collect();
    assert_eq!(
        got,
        vec![(218.0, 18523.0, 1), (1740.0, 34.0, 4), (2052.0, 106.0, 1)]
    );
    let mesh = MeshJobsParams {
        jobs: 3,
        ..MeshJobsParams::default()
    }
    .generate(1);
    type ShapeTimes = (Option<(u32, u32)>, f64, f64);
    let got: Vec<ShapeTimes> = mesh
        .jobs
        .iter()
        .map(|j| (j.shape, j.submit, j.run_time))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some((8, 7)), 0.0, 0.33364307031430634),
            (Some((7, 25)), 0.2755512872382765, 0.6602099292582966),
            (Some((2, 6)), 0.4668574286219328, 4.714134231177237),
        ]
    );
    let exp = ExponentialJobsParams {
        jobs: 3,
        ..ExponentialJobsParams::default()
    }
    .generate(1);
    let got: Vec<(u32, f64, f64)> = exp
        .jobs
        .iter()
        .map(|j| (j.procs, j.submit, j.run_time))
        .collect();
    assert_eq!(
        got,
        vec![
            (8, 0.0, 599.1612116680495),
            (4, 453.86397484698756, 2385.5479527472903),
            (10, 1073.8543711331097, 1184.3590952840013),
        ]
    );
}

#[test]
fn models_parse_from_tagged_json_with_defaults() {
    let m: SyntheticModel = serde_json::from_str(r#"{"model": "lublin"}"#).expect("parse");
    assert_eq!(m, SyntheticModel::Lublin(LublinParams::default()));
    assert_eq!(m.name(), "lublin");
    let m: SyntheticModel =
        serde_json::from_str(r#"{"model": "mesh_jobs", "jobs": 50, "sides": "uniform"}"#)
            .expect("parse");
    let SyntheticModel::MeshJobs(p) = &m else {
        panic!("wrong variant {m:?}")
    };
    assert_eq!(p.jobs, 50);
    assert_eq!(p.sides, SideDistribution::Uniform);
    assert_eq!(p.width, 32);
    assert_eq!(m.mesh_shape(), Some((32, 32)));
    assert_eq!(m.machine_procs(), 1024);
    let m: SyntheticModel =
        serde_json::from_str(r#"{"model": "exponential_jobs", "mean_size": 8}"#).expect("parse");
    assert_eq!(m.name(), "exponential_jobs");
    assert_eq!(m.machine_procs(), 352);
    for m in all_models() {
        let json = serde_json::to_string(&m).expect("serialize");
        let back: SyntheticModel = serde_json::from_str(&json).expect("round trip");
        assert_eq!(back, m);
    }
    // The tags' older names still read, as the same models (files and links made before the
    // models were named by what they generate).
    for (old, new) in [
        ("mesh_jobs", "mesh_jobs"),
        ("exponential_jobs", "exponential_jobs"),
    ] {
        let a: SyntheticModel =
            serde_json::from_str(&format!(r#"{{"model": "{old}", "jobs": 7}}"#)).expect(old);
        let b: SyntheticModel =
            serde_json::from_str(&format!(r#"{{"model": "{new}", "jobs": 7}}"#)).expect(new);
        assert_eq!(a, b);
        assert_eq!(a.name(), new);
    }
}

#[test]
fn unknown_keys_and_models_are_rejected() {
    for bad in [
        r#"{"model": "lublin", "jbos": 5}"#,
        r#"{"model": "mesh_jobs", "side": 32}"#,
        r#"{"model": "exponential_jobs", "procs": 10, "extra": true}"#,
        r#"{"model": "feitelson96"}"#,
        r#"{"jobs": 5}"#,
    ] {
        assert!(
            serde_json::from_str::<SyntheticModel>(bad).is_err(),
            "accepted {bad}"
        );
    }
}

// ----------------------------------------------------------------------------------------
// Validation
// ----------------------------------------------------------------------------------------

#[test]
fn defaults_validate() {
    assert_eq!(LublinParams::default().validate(), Ok(()));
    assert_eq!(MeshJobsParams::default().validate(), Ok(()));
    assert_eq!(ExponentialJobsParams::default().validate(), Ok(()));
}

#[test]
fn validation_names_the_key_and_generate_does_not_panic() {
    let cases: Vec<(SyntheticModel, &str)> = vec![
        (
            SyntheticModel::Lublin(LublinParams {
                jobs: 0,
                ..LublinParams::default()
            }),
            "workload.synthetic.jobs",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                serial_prob: 1.5,
                ..LublinParams::default()
            }),
            "workload.synthetic.serial_prob",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                serial_prob: 0.5,
                pow2_prob: 0.6,
                ..LublinParams::default()
            }),
            "workload.synthetic.serial_prob + workload.synthetic.pow2_prob",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                umed: Some(0.5),
                ..LublinParams::default()
            }),
            "workload.synthetic.umed",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                a2: -1.0,
                ..LublinParams::default()
            }),
            "workload.synthetic.a2",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                start_hour: 24,
                ..LublinParams::default()
            }),
            "workload.synthetic.start_hour",
        ),
        (
            SyntheticModel::Lublin(LublinParams {
                estimate_factor: 0.5,
                ..LublinParams::default()
            }),
            "workload.synthetic.estimate_factor",
        ),
        (
            SyntheticModel::MeshJobs(MeshJobsParams {
                arrival_rate: 0.0,
                ..MeshJobsParams::default()
            }),
            "workload.synthetic.arrival_rate",
        ),
        (
            SyntheticModel::MeshJobs(MeshJobsParams {
                p4: 0.3,
                ..MeshJobsParams::default()
            }),
            "p4",
        ),
        (
            SyntheticModel::MeshJobs(MeshJobsParams {
                l3: 32,
                ..MeshJobsParams::default()
            }),
            "workload.synthetic.l3",
        ),
        (
            SyntheticModel::MeshJobs(MeshJobsParams {
                width: 0,
                ..MeshJobsParams::default()
            }),
            "workload.synthetic.width",
        ),
        (
            SyntheticModel::ExponentialJobs(ExponentialJobsParams {
                procs: 0,
                ..ExponentialJobsParams::default()
            }),
            "workload.synthetic.procs",
        ),
        (
            SyntheticModel::ExponentialJobs(ExponentialJobsParams {
                mean_size: f64::NAN,
                ..ExponentialJobsParams::default()
            }),
            "workload.synthetic.mean_size",
        ),
    ];
    for (m, key) in cases {
        let e = m.validate().expect_err(key).to_string();
        assert!(e.contains(key), "{key}: {e}");
        assert!(m.generate(1).jobs.is_empty());
    }
    // Uniform sides ignore p1..p4 and l1..l3.
    let m = MeshJobsParams {
        sides: SideDistribution::Uniform,
        p4: 0.9,
        ..MeshJobsParams::default()
    };
    assert_eq!(m.validate(), Ok(()));
}

// ----------------------------------------------------------------------------------------
// Ababneh & Bani-Mohammad §5.1 mesh model
// ----------------------------------------------------------------------------------------

#[test]
fn mesh_jobs_uniform_sides() {
    let p = MeshJobsParams {
        sides: SideDistribution::Uniform,
        arrival_rate: 2.0,
        ..MeshJobsParams::default()
    };
    let w = p.generate(11);
    check_common(&w, 10_000);
    let sides: Vec<f64> = w
        .jobs
        .iter()
        .flat_map(|j| {
            let (a, b) = j.shape.unwrap_or((0, 0));
            [f64::from(a), f64::from(b)]
        })
        .collect();
    assert!(sides.iter().all(|&s| (1.0..=32.0).contains(&s)));
    let m = mean(sides.iter().copied());
    assert!((m - 16.5).abs() < 0.3, "mean side {m}");
    // Both ends occur.
    assert!(sides.contains(&1.0) && sides.contains(&32.0));
    for j in &w.jobs {
        let (a, b) = j.shape.unwrap_or((0, 0));
        assert_eq!(j.procs, a * b);
        assert_eq!(j.estimate, j.run_time, "exact estimates");
    }
    assert_eq!(w.jobs[0].submit, 0.0);
    let ia = interarrival_mean(&w);
    assert!((ia - 0.5).abs() < 0.015, "interarrival mean {ia}");
    let s = mean(w.jobs.iter().map(|j| j.run_time));
    assert!((s - 1.0).abs() < 0.03, "service mean {s}");
}

#[test]
fn mesh_jobs_uniform_decreasing_proportions() {
    let p = MeshJobsParams::default();
    let w = p.generate(5);
    check_common(&w, 10_000);
    let mut counts = [0usize; 4];
    let mut n = 0;
    for j in &w.jobs {
        let (a, b) = j.shape.unwrap_or((0, 0));
        for s in [a, b] {
            n += 1;
            let k = match s {
                1..=4 => 0,
                5..=8 => 1,
                9..=16 => 2,
                17..=32 => 3,
                _ => panic!("side {s} out of range"),
            };
            counts[k] += 1;
        }
    }
    let expect = [0.4, 0.2, 0.2, 0.2];
    for k in 0..4 {
        let f = counts[k] as f64 / n as f64;
        assert!((f - expect[k]).abs() < 0.015, "range {k}: {f}");
    }
    // Uniform within a range: sides 1..4 equally likely (≈ 0.1 each).
    let ones = w
        .jobs
        .iter()
        .filter(|j| j.shape.map(|s| s.0) == Some(1))
        .count();
    let f = ones as f64 / w.jobs.len() as f64;
    assert!((f - 0.1).abs() < 0.012, "P(width = 1) = {f}");
    let ia = interarrival_mean(&w);
    assert!((ia - 1.0 / 4.5).abs() < 0.007, "interarrival mean {ia}");
}

#[test]
fn mesh_jobs_rectangular_mesh_bounds_each_side() {
    let p = MeshJobsParams {
        width: 16,
        height: 22,
        sides: SideDistribution::Uniform,
        jobs: 5000,
        ..MeshJobsParams::default()
    };
    let w = p.generate(3);
    assert!(w.jobs.iter().all(|j| {
        let (a, b) = j.shape.unwrap_or((0, 0));
        (1..=16).contains(&a) && (1..=22).contains(&b)
    }));
    assert!(w.jobs.iter().any(|j| j.shape.map(|s| s.1) == Some(22)));
}

// ----------------------------------------------------------------------------------------
// Mache et al. Table 1
// ----------------------------------------------------------------------------------------

#[test]
fn exponential_jobs_defaults_and_sizes() {
    let w = ExponentialJobsParams::default().generate(9);
    check_common(&w, 1000);
    assert!(w.jobs.iter().all(|j| j.shape.is_none()));
    assert_eq!(w.header.max_procs, Some(352));
    let p = ExponentialJobsParams {
        jobs: 100_000,
        ..ExponentialJobsParams::default()
    };
    let w = p.generate(9);
    check_common(&w, 100_000);
    assert!(w.jobs.iter().all(|j| (1..=352).contains(&j.procs)));
    let m = mean(w.jobs.iter().map(|j| f64::from(j.procs)));
    // Rounded to nearest and clamped at 1: E ≈ 16 + P(X < 0.5) ≈ 16.03.
    assert!((m - 16.03).abs() < 0.25, "mean size {m}");
    let ia = interarrival_mean(&w);
    assert!((ia - 500.0).abs() < 10.0, "interarrival mean {ia}");
    let r = mean(w.jobs.iter().map(|j| j.run_time));
    assert!((r - 7150.0).abs() < 150.0, "run time mean {r}");
}

#[test]
fn exponential_jobs_clamps_to_small_machines() {
    let p = ExponentialJobsParams {
        procs: 8,
        jobs: 5000,
        ..ExponentialJobsParams::default()
    };
    let w = p.generate(2);
    assert!(w.jobs.iter().all(|j| (1..=8).contains(&j.procs)));
    assert!(w.jobs.iter().filter(|j| j.procs == 8).count() > 2500);
}

// ----------------------------------------------------------------------------------------
// Lublin–Feitelson
// ----------------------------------------------------------------------------------------

fn lublin_sample() -> Workload {
    LublinParams {
        jobs: 40_000,
        ..LublinParams::default()
    }
    .generate(2003)
}

#[test]
fn lublin_sizes() {
    let p = LublinParams::default();
    let w = lublin_sample();
    check_common(&w, 40_000);
    assert!(w.jobs.iter().all(|j| (1..=128).contains(&j.procs)));
    let n = w.jobs.len() as f64;
    let serial = w.jobs.iter().filter(|j| j.procs == 1).count() as f64 / n;
    assert!((serial - p.serial_prob).abs() < 0.01, "serial {serial}");
    // Parallel power-of-two sizes: the pow2 branch (0.6686) plus the few "other" sizes that
    // round to a power of two anyway (at most 1 − 0.2927 − 0.6686 = 0.0387).
    let pow2 = w
        .jobs
        .iter()
        .filter(|j| j.procs > 1 && j.procs.is_power_of_two())
        .count() as f64
        / n;
    assert!(
        pow2 > p.pow2_prob - 0.01 && pow2 < p.pow2_prob + 0.0387 + 0.01,
        "pow2 {pow2}"
    );
    // ULOW = 1.2: the smallest parallel job has 2 processors; UHI = 7: the largest 128.
    assert!(w.jobs.iter().all(|j| j.procs != 0));
    assert!(w.jobs.iter().any(|j| j.procs == 2));
    assert!(w.jobs.iter().any(|j| j.procs == 128));
    // Two-stage uniform: P(log2 size < 5 | parallel) ≈ UPROB = 0.875 (pow2 rounding moves
    // a little mass across the break point, so allow a wide margin).
    let parallel: Vec<u32> = w.jobs.iter().map(|j| j.procs).filter(|&s| s > 1).collect();
    let small = parallel.iter().filter(|&&s| s <= 32).count() as f64 / parallel.len() as f64;
    assert!(small > 0.8 && small < 0.95, "small parallel share {small}");
}

#[test]
fn lublin_run_times() {
    let w = lublin_sample();
    assert!(w
        .jobs
        .iter()
        .all(|j| j.run_time >= 1.0 && j.run_time <= 162_754.0 && j.run_time.fract() == 0.0));
    assert!(w.jobs.iter().all(|j| j.estimate == j.run_time));
    // Hyper-gamma in log space: p = pa·n + pb ≈ 0.69 for small jobs picks the short gamma
    // (mean ln t = 6.57·0.823 ≈ 5.4, t ≈ 4 min), else the long one (639.1·0.0156 ≈ 9.97,
    // t ≈ 6 h). Larger jobs run longer (pa < 0).
    let ln = |j: &schedlab::workload::Job| libm::log(j.run_time);
    let small = mean(w.jobs.iter().filter(|j| j.procs <= 2).map(ln));
    let big = mean(w.jobs.iter().filter(|j| j.procs >= 64).map(ln));
    assert!(big > small, "mean ln(run) small {small} big {big}");
    let all = mean(w.jobs.iter().map(ln));
    let p = 0.6986 - 0.003 * mean(w.jobs.iter().map(|j| f64::from(j.procs)));
    let expect = p * 6.57 * 0.823 + (1.0 - p) * 639.1 * 0.0156;
    assert!(
        (all - expect).abs() < 0.15,
        "mean ln(run) {all} vs ≈ {expect}"
    );
}

#[test]
fn lublin_estimate_factor() {
    let w = LublinParams {
        jobs: 500,
        estimate_factor: 2.5,
        ..LublinParams::default()
    }
    .generate(4);
    assert!(w
        .jobs
        .iter()
        .all(|j| j.estimate == libm::ceil(j.run_time * 2.5)));
}

#[test]
fn lublin_arrivals_follow_a_daily_cycle() {
    let w = lublin_sample();
    assert!(w.jobs.iter().all(|j| j.submit.fract() == 0.0));
    assert!(w.jobs[0].submit > 0.0, "first job after one interarrival");
    let mut per_hour = [0usize; 24];
    for j in &w.jobs {
        let h = (j.submit.rem_euclid(86_400.0) / 3600.0) as usize;
        per_hour[h] += 1;
    }
    let day: usize = per_hour[9..17].iter().sum(); // 09:00–17:00
    let night: usize = per_hour[1..9].iter().sum(); // 01:00–09:00
    assert!(
        day as f64 > 2.0 * night as f64,
        "day {day} night {night}: {per_hour:?}"
    );
    // The busiest hour is in the daytime.
    let busiest = (0..24).max_by_key(|&h| per_hour[h]).unwrap_or(0);
    assert!(
        (9..=18).contains(&busiest),
        "busiest hour {busiest}: {per_hour:?}"
    );
    // Several days are covered (rush-hour mean interarrival is minutes).
    let days = w.jobs.last().map_or(0.0, |j| j.submit) / 86_400.0;
    assert!(days > 20.0, "span {days} days");
}

#[test]
fn lublin_start_hour_shifts_the_cycle() {
    let mk = |start_hour| {
        LublinParams {
            jobs: 20_000,
            start_hour,
            ..LublinParams::default()
        }
        .generate(8)
    };
    let busiest = |w: &Workload| {
        let mut per_hour = [0usize; 24];
        for j in &w.jobs {
            per_hour[(j.submit.rem_euclid(86_400.0) / 3600.0) as usize] += 1;
        }
        (0..24).max_by_key(|&h| per_hour[h]).unwrap_or(0) as i64
    };
    let a = busiest(&mk(0));
    let b = busiest(&mk(12));
    // Time 0 is 12:00 in the second workload: its busiest hour in model time is ≈ 12 h off.
    let d = (a - b).rem_euclid(24);
    assert!((9..=15).contains(&d), "busiest {a} vs {b}");
}

#[test]
fn lublin_other_machine_sizes() {
    let p = LublinParams {
        procs: 1024,
        jobs: 20_000,
        ..LublinParams::default()
    };
    assert_eq!(p.uhi_value(), 10.0);
    assert_eq!(p.umed_value(), 8.0);
    let w = p.generate(1);
    assert!(w.jobs.iter().all(|j| (1..=1024).contains(&j.procs)));
    assert!(w.jobs.iter().any(|j| j.procs > 128));
    let p = LublinParams {
        procs: 100,
        jobs: 20_000,
        ..LublinParams::default()
    };
    let w = p.generate(1);
    assert!(w.jobs.iter().all(|j| (1..=100).contains(&j.procs)));
    assert_eq!(w.header.max_procs, Some(100));
}
