//! The web app's form → experiments step (`schedlab::form`), natively: valid forms of each
//! mode give the experiments the CLI runs for the same settings (`schedlab run`,
//! `schedlab mesh`, `schedlab grid` on the equivalent experiment file), and each refused value
//! gives its inline error: the field's id and the message the page shows.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::modes::flat::spec::ExperimentFile;
use std::path::PathBuf;

use schedlab::cli::mesh::{mesh_experiment_from_args, MeshArgs};
use schedlab::cli::{experiment_from_args, RunArgs};
use schedlab::form::flat::{self, param_values, FlatFields, MODEL_PARAMS};
use schedlab::form::grid::{self, GridFields, SiteRow};
use schedlab::form::mesh::{self, MeshFields, MeshWorkload, SWEEP_RHOS};
use schedlab::form::{FieldError, TraceFacts};
use schedlab::modes::flat::spec::{Experiment, MachineSpec, WorkloadSpec};
use schedlab::modes::grid::spec::preset_global_grid;
use schedlab::modes::grid::GridExperiment;
use schedlab::modes::mesh::spec::{MeshAllocatorKind, MeshExperiment};
use schedlab::policy::mesh::MeshPolicyKind;
use schedlab::policy::PolicyKind;
use schedlab::workload::synthetic::{LublinParams, SyntheticModel};
use schedlab::workload::transform::{TimeWindow, Transforms};

/// Writes `text` to a file of this test's own (unique per name) and returns its path.
fn experiment_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-form-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write experiment file");
    path
}

fn run_args(experiment: PathBuf) -> RunArgs {
    RunArgs {
        experiment: Some(experiment),
        swf: None,
        procs: None,
        policy: None,
        order: None,
        backfill_order: None,
        estimates: None,
        load_factor: None,
        lenient: false,
        jobs_csv: None,
        swf_out: None,
        report: None,
        explain: None,
        explain_csv: None,
        limits: Default::default(),
        work: Default::default(),
    }
}

/// An edit of a valid form and the error it must give: field id and message.
type Case<F> = (Box<dyn Fn(&mut F)>, &'static str, &'static str);

// ------------------------------------------------------------------------------ flat

/// The flat form as the page opens: three policies, 10,000 Lublin jobs on 128 processors.
fn flat_form() -> FlatFields {
    let defaults = param_values(&LublinParams::default());
    FlatFields {
        policies: vec![PolicyKind::Fcfs, PolicyKind::Easy, PolicyKind::Conservative],
        seed: "42".into(),
        sweep: None,
        sweep_axis: String::new(),
        load_factor: "1".into(),
        procs: "128".into(),
        synthetic: true,
        jobs: "10000".into(),
        first_jobs: String::new(),
        window_from: String::new(),
        window_to: String::new(),
        params: MODEL_PARAMS
            .iter()
            .map(|(k, _, _)| (k.to_string(), defaults[*k].to_string()))
            .collect(),
        order: "arrival".into(),
        expression: String::new(),
        backfill_order: String::new(),
        estimates: "request".into(),
    }
}

#[test]
fn the_policy_builder_sets_the_axes_and_names_the_column_of_a_bad_priority() {
    let mut f = flat_form();
    let b = flat::experiments(&f, None, None).expect("default form");
    assert!(b.runs.iter().all(|(_, e)| e.queue.is_default()));
    f.order = flat::WRITTEN_ORDER.into();
    f.expression = "wait / estimat".into();
    let e = flat_error(&f);
    assert_eq!(e.field, "queue-expr");
    assert!(e.message.contains("column 8"), "{}", e.message);
    f.expression = "wait / estimate".into();
    f.backfill_order = "sjf".into();
    f.estimates = "predicted".into();
    let b = flat::experiments(&f, None, None).expect("fixed");
    let axes = &b.runs[0].1.queue;
    assert_eq!(axes.suffix(), ":wait / estimate:sjf:predicted");
    assert!(
        b.caption.ends_with(
            "priority wait / estimate · backfilling Shortest estimate first · predicted run times"
        ),
        "{}",
        b.caption
    );
    // The builder's fields of a link's axes read back to the same axes.
    let [order, expression, backfill_order, estimates] = flat::axes_fields(axes);
    let g = FlatFields {
        order,
        expression,
        backfill_order,
        estimates,
        ..flat_form()
    };
    assert_eq!(&flat::policy_axes(&g).expect("round trip"), axes);
    f.estimates = "fast".into();
    assert_eq!(flat_error(&f).field, "estimates");
}

fn flat_error(f: &FlatFields) -> FieldError {
    flat::experiments(f, None, None).expect_err("the form is refused")
}

#[test]
fn flat_default_form_runs_what_the_cli_runs() {
    let mut f = flat_form();
    f.load_factor = "0.8".into();
    f.jobs = "10,000".into(); // digit separators are accepted
    let b = flat::experiments(&f, None, None).expect("valid form");
    assert_eq!(b.runs.len(), 3);
    assert_eq!(b.trace, None);
    assert_eq!(b.sweep, None);
    assert_eq!(
        b.caption,
        "Lublin–Feitelson synthetic workload, 10,000 jobs, 128 processors · load factor 0.8 · \
         seed 42"
    );
    let file = experiment_file(
        "flat.json",
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 10000, "procs": 128}},
            "policy": "fcfs", "seed": 42}"#,
    );
    for (policy, exp) in &b.runs {
        let mut a = run_args(file.clone());
        a.policy = Some(policy.as_str().to_string());
        a.load_factor = Some(0.8);
        let (cli, trace) = experiment_from_args(&a).expect("CLI reads the file");
        assert_eq!(trace, None);
        assert_eq!(exp, &cli, "{policy:?}");
    }
    assert_eq!(
        b.runs.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        f.policies
    );
}

#[test]
fn flat_sweep_runs_every_policy_at_every_load_factor() {
    let mut f = flat_form();
    f.policies = vec![PolicyKind::Easy, PolicyKind::Fcfs];
    f.sweep = Some(["0.5".into(), "1".into(), "0.25".into()]);
    let b = flat::experiments(&f, None, None).expect("valid sweep");
    let points: Vec<(PolicyKind, f64)> = b
        .runs
        .iter()
        .map(|(p, e)| (*p, e.transforms.load_factor))
        .collect();
    assert_eq!(
        points,
        vec![
            (PolicyKind::Easy, 0.5),
            (PolicyKind::Fcfs, 0.5),
            (PolicyKind::Easy, 0.75),
            (PolicyKind::Fcfs, 0.75),
            (PolicyKind::Easy, 1.0),
            (PolicyKind::Fcfs, 1.0),
        ]
    );
    assert!(
        b.caption
            .contains("load factor 0.5 to 1 step 0.25 (3 points)"),
        "{}",
        b.caption
    );
}

#[test]
fn flat_trace_form_names_the_uploaded_file() {
    let mut f = flat_form();
    f.synthetic = false;
    f.procs = String::new();
    let sha = "ab".repeat(32);
    let t = TraceFacts {
        name: "small.swf".into(),
        sha256: sha.clone(),
        max_job_procs: 64,
        header_procs: Some(100),
    };
    let b = flat::experiments(&f, None, Some(&t)).expect("valid form");
    assert_eq!(b.trace.as_deref(), Some("small.swf"));
    assert_eq!(
        b.caption,
        "small.swf, 100 processors · load factor 1 · seed 42"
    );
    let (_, e) = &b.runs[0];
    match &e.workload {
        WorkloadSpec::Swf(s) => {
            assert_eq!(s.name.as_deref(), Some("small.swf"));
            assert_eq!(s.sha256.as_deref(), Some(sha.as_str()));
            assert_eq!(s.path, None);
        }
        w => panic!("not a trace: {w:?}"),
    }
    assert_eq!(e.machine, MachineSpec::Flat { procs: None });
    // A machine smaller than the largest job.
    f.procs = "32".into();
    let e = flat::experiments(&f, None, Some(&t)).unwrap_err();
    assert_eq!(e.field, "procs");
    assert_eq!(
        e.message,
        "Machine size: 32 processors is smaller than the largest job of small.swf (64 \
         processors). Enlarge the machine, or leave the field empty to use the trace's."
    );
    // No trace uploaded.
    assert_eq!(
        flat::experiments(&f, None, None).unwrap_err(),
        FieldError::new("upload", "Upload a trace first (.swf or .swf.gz).")
    );
}

#[test]
fn flat_trace_form_takes_the_first_jobs_and_a_time_window() {
    let mut f = flat_form();
    f.synthetic = false;
    f.procs = String::new();
    let t = TraceFacts {
        name: "small.swf".into(),
        sha256: "ab".repeat(32),
        max_job_procs: 64,
        header_procs: Some(100),
    };
    // Empty fields: the whole trace, and no key in the experiment (old links unchanged).
    let b = flat::experiments(&f, None, Some(&t)).expect("valid form");
    assert_eq!(b.runs[0].1.transforms, Transforms::default());
    f.first_jobs = "2,000".into();
    f.window_from = "1.5".into();
    f.window_to = "30".into();
    let b = flat::experiments(&f, None, Some(&t)).expect("valid form");
    let tr = &b.runs[0].1.transforms;
    assert_eq!(tr.first_jobs, Some(2000));
    assert_eq!(
        tr.time_window,
        Some(TimeWindow {
            start: 129_600.0,
            end: 2_592_000.0
        })
    );
    // Only a start: to the end of the trace.
    f.window_to = String::new();
    let b = flat::experiments(&f, None, Some(&t)).expect("valid form");
    let w = b.runs[0]
        .1
        .transforms
        .time_window
        .clone()
        .expect("a window");
    assert_eq!((w.start, w.end), (129_600.0, 1e12));
    // Errors name the field.
    f.first_jobs = "0".into();
    assert_eq!(flat_error_with(&f, &t).field, "first-jobs");
    f.first_jobs = "ten".into();
    assert_eq!(flat_error_with(&f, &t).field, "first-jobs");
    f.first_jobs = String::new();
    f.window_to = "1".into();
    let e = flat_error_with(&f, &t);
    assert_eq!(
        e,
        FieldError::new("window-to", "Time window: to must be later than from.")
    );
    // The model's runs ignore the trace's fields.
    f.synthetic = true;
    f.procs = "128".into();
    let b = flat::experiments(&f, None, None).expect("valid form");
    assert_eq!(b.runs[0].1.transforms, Transforms::default());
}

fn flat_error_with(f: &FlatFields, t: &TraceFacts) -> FieldError {
    flat::experiments(f, None, Some(t)).expect_err("the form is refused")
}

#[test]
fn flat_link_template_keeps_what_the_form_does_not_show() {
    let mut t = Experiment::new(
        WorkloadSpec::Synthetic(SyntheticModel::Lublin(LublinParams {
            a1: 5.0,
            ..LublinParams::default()
        })),
        PolicyKind::Easy,
    );
    t.name = Some("From a link".into());
    t.transforms.tz_offset_hours = 2.0;
    let mut f = flat_form();
    f.params.retain(|(k, _)| k != "a1");
    let b = flat::experiments(&f, Some(&t), None).expect("valid form");
    let (_, e) = &b.runs[0];
    assert_eq!(e.name.as_deref(), Some("From a link"));
    assert_eq!(e.transforms.tz_offset_hours, 2.0);
    match &e.workload {
        WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) => assert_eq!(p.a1, 5.0),
        w => panic!("not Lublin: {w:?}"),
    }
    assert!(b.caption.starts_with("From a link — "), "{}", b.caption);
}

#[test]
fn flat_inline_errors_name_the_field() {
    let cases: Vec<Case<FlatFields>> = vec![
        (
            Box::new(|f| f.policies.clear()),
            "policy-fcfs",
            "Choose at least one policy.",
        ),
        (
            Box::new(|f| f.seed = "-1".into()),
            "seed",
            "Random seed (a whole number ≥ 0): \"-1\" is not a valid value.",
        ),
        (
            Box::new(|f| f.load_factor = "fast".into()),
            "load-factor",
            "Load factor: \"fast\" is not a valid value.",
        ),
        (
            Box::new(|f| f.load_factor = "0".into()),
            "load-factor",
            "Load factor must be a number ≥ 0.001 and ≤ 1000 (got 0).",
        ),
        (
            Box::new(|f| f.procs = "0".into()),
            "procs",
            "Machine size must be between 1 and 1,048,576 processors.",
        ),
        (
            Box::new(|f| f.procs = " ".into()),
            "procs",
            "Machine size: enter the number of processors.",
        ),
        (
            Box::new(|f| f.jobs = "0".into()),
            "jobs",
            "Jobs must be between 1 and 1,000,000.",
        ),
        (
            Box::new(|f| f.params[3].1 = "x".into()),
            "mp-a1",
            "workload.synthetic.a1: \"x\" is not a valid value.",
        ),
        (
            Box::new(|f| f.params[14].1 = "1.5".into()),
            "mp-start_hour",
            "workload.synthetic.start_hour: \"1.5\" is not a valid value.",
        ),
        (
            Box::new(|f| f.sweep = Some(["1".into(), "0.5".into(), "0.1".into()])),
            "sweep-to",
            "Sweep: \"to\" must be a number ≥ \"from\" (1) (got 0.5).",
        ),
        (
            Box::new(|f| f.sweep = Some(["0.1".into(), "10".into(), "0.1".into()])),
            "sweep-step",
            "Sweep: 0.1 to 10 in steps of 0.1 is 100 points; at most 50. Use a larger step.",
        ),
        (
            Box::new(|f| f.sweep = Some(["0.5".into(), "1".into(), "step".into()])),
            "sweep-step",
            "Sweep step: \"step\" is not a valid value.",
        ),
    ];
    for (edit, field, message) in cases {
        let mut f = flat_form();
        edit(&mut f);
        assert_eq!(flat_error(&f), FieldError::new(field, message));
    }
}

#[test]
fn flat_model_validation_names_the_parameter() {
    let mut f = flat_form();
    f.params[0].1 = "2".into(); // serial_prob is a probability
    let e = flat_error(&f);
    assert_eq!(e.field, "mp-serial_prob");
    assert!(e.message.contains("serial_prob"), "{}", e.message);
}

// ------------------------------------------------------------------------------ mesh

/// The mesh form as Ababneh & Bani-Mohammad's preset fills it.
fn mesh_form() -> MeshFields {
    MeshFields {
        width: "32".into(),
        height: "32".into(),
        workload: MeshWorkload::MeshJobs {
            jobs: "1000".into(),
            rate: "1.5".into(),
            sides: "uniform".into(),
        },
        shape: "square".into(),
        io_side: "west".into(),
        io_count: String::new(),
        rho: "50".into(),
        exchanges: String::new(),
        model: String::new(),
        wormhole: Default::default(),
        seed: "1".into(),
        allocators: vec![
            MeshAllocatorKind::parse("first-fit").unwrap(),
            MeshAllocatorKind::parse("mpl").unwrap(),
        ],
        policy: "window".into(),
        policy_k: "240".into(),
    }
}

fn mesh_experiments(f: &MeshFields) -> Result<Vec<MeshExperiment>, FieldError> {
    let (base, allocs, policy) = mesh::read(f, None, None)?;
    mesh::experiments_for(&base, &allocs, policy)
}

#[test]
fn mesh_preset_form_runs_what_the_cli_runs() {
    let exps = mesh_experiments(&mesh_form()).expect("valid form");
    assert_eq!(exps.len(), 2);
    let file = experiment_file(
        "mesh.json",
        r#"{"name": "Window-based scheduling (Ababneh & Bani-Mohammad)",
            "workload": {"synthetic": {"model": "mesh_jobs", "jobs": 1000, "sides": "uniform",
                                       "arrival_rate": 1.5}},
            "width": 32, "height": 32, "allocator": "mpl", "policy": "window-240", "seed": 1,
            "switch_orientation": true}"#,
    );
    for (e, allocator) in exps.iter().zip(["first-fit", "mpl"]) {
        let (cli, trace) = mesh_experiment_from_args(&MeshArgs {
            experiment: file.clone(),
            allocator: Some(allocator.into()),
            policy: None,
            traffic_io: None,
            jobs_csv: None,
            report: None,
            links_csv: None,
            limits: Default::default(),
            work: Default::default(),
            switch_orientation: false,
            network_model: None,
        })
        .expect("CLI reads the file");
        assert_eq!(trace, None);
        assert_eq!(e, &cli, "{allocator}");
    }
}

#[test]
fn mesh_non_contiguous_allocators_run_fcfs_and_sweep_the_traffic_ratio() {
    let mut f = mesh_form();
    f.allocators = vec![
        MeshAllocatorKind::parse("mpl").unwrap(),
        MeshAllocatorKind::parse("mc").unwrap(),
    ];
    let exps = mesh_experiments(&f).expect("valid form");
    assert_eq!(exps[0].policy, MeshPolicyKind::Window(240));
    assert_eq!(exps[1].policy, MeshPolicyKind::Fcfs);
    assert_eq!(exps[1].network.traffic_io, 0.5);
    let sweep = mesh::sweep_experiments(&exps).expect("one non-contiguous allocator");
    assert_eq!(
        sweep
            .iter()
            .map(|e| e.network.traffic_io)
            .collect::<Vec<_>>(),
        SWEEP_RHOS.map(|r| f64::from(r) / 100.0).to_vec()
    );
    assert!(sweep.iter().all(|e| e.allocator == exps[1].allocator));
    // Only contiguous allocators: nothing to sweep.
    let e = mesh::sweep_experiments(&exps[..1]).unwrap_err();
    assert_eq!(e.field, "mesh-alloc-contig");
    assert!(
        e.message.starts_with("Sweep traffic ratio: "),
        "{}",
        e.message
    );
}

#[test]
fn mesh_inline_errors_name_the_field() {
    let cases: Vec<Case<MeshFields>> = vec![
        (
            Box::new(|f| f.width = "wide".into()),
            "mesh-width",
            "Width W: enter a whole number of columns (got \"wide\").",
        ),
        (
            Box::new(|f| f.height = "".into()),
            "mesh-height",
            "Height H: enter a whole number of rows (got \"\").",
        ),
        (
            Box::new(|f| f.seed = "x".into()),
            "mesh-seed",
            "Random seed: enter a whole number ≥ 0 (got \"x\").",
        ),
        (
            Box::new(|f| f.rho = "lots".into()),
            "mesh-rho",
            "Traffic ratio ρ: enter a percentage (got \"lots\").",
        ),
        (
            Box::new(|f| f.io_count = "-2".into()),
            "mesh-io-count",
            "I/O count: enter a whole number, or nothing for one per row (got \"-2\").",
        ),
        (
            Box::new(|f| f.policy_k = "0".into()),
            "mesh-policy-k",
            "Window size K: must be at least 1 (got 0).",
        ),
        (
            Box::new(|f| {
                f.policy = "oocb".into();
                f.policy_k = "k".into();
            }),
            "mesh-policy-k",
            "Max bound k: enter a whole number (got \"k\").",
        ),
        (
            Box::new(|f| f.workload = MeshWorkload::Trace),
            "mesh-upload",
            "Workload: upload a trace first.",
        ),
        (
            Box::new(|f| {
                f.workload = MeshWorkload::ExponentialJobs {
                    jobs: "1000".into(),
                    interarrival: "soon".into(),
                }
            }),
            "mesh-interarrival",
            "Mean interarrival: enter a number of seconds (got \"soon\").",
        ),
        (
            Box::new(|f| f.allocators.clear()),
            "mesh-alloc-contig",
            "Allocators: select at least one allocator.",
        ),
    ];
    for (edit, field, message) in cases {
        let mut f = mesh_form();
        edit(&mut f);
        assert_eq!(
            mesh_experiments(&f).unwrap_err(),
            FieldError::new(field, message)
        );
    }
    // A value the experiment refuses names the field as the form does.
    let mut f = mesh_form();
    f.width = "0".into();
    let e = mesh_experiments(&f).unwrap_err();
    assert_eq!(e.field, "mesh-width");
    assert!(e.message.starts_with("Width W: "), "{}", e.message);
}

// ------------------------------------------------------------------------------ grid

fn grid_form(exp: &GridExperiment) -> GridFields {
    GridFields {
        sites: exp.sites.iter().map(SiteRow::from_spec).collect(),
        seed: exp.seed.to_string(),
        policy: "easy".into(),
        cut: exp.cut_to_shortest,
        name: exp.name.clone(),
    }
}

#[test]
fn grid_preset_form_runs_what_the_cli_runs() {
    let preset = preset_global_grid();
    let (exp, traces) = grid::experiment(&grid_form(&preset), &[]).expect("valid form");
    assert!(traces.is_empty());
    let cli = GridExperiment::from_json(&preset.to_json()).expect("CLI reads the file");
    assert_eq!(exp, cli);
    assert_eq!(exp.sites.len(), 4);
    assert_eq!(exp.sites[2].tz_offset_hours, 12.0);
}

#[test]
fn grid_site_edits_reach_the_experiment() {
    let mut f = grid_form(&preset_global_grid());
    f.sites.truncate(2);
    f.sites[0].procs = "256".into();
    f.sites[0].jobs = "500".into();
    f.sites[1].trace_mode = true;
    f.sites[1].trace = Some("small.swf".into());
    f.cut = true;
    let t = TraceFacts {
        name: "small.swf".into(),
        sha256: "cd".repeat(32),
        ..TraceFacts::default()
    };
    let (exp, traces) = grid::experiment(&f, std::slice::from_ref(&t)).expect("valid form");
    assert_eq!(traces, vec!["small.swf".to_string()]);
    assert!(exp.cut_to_shortest);
    assert_eq!(exp.sites[0].procs, Some(256));
    match &exp.sites[0].workload {
        WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) => {
            assert_eq!((p.jobs, p.procs), (500, 256));
        }
        w => panic!("not Lublin: {w:?}"),
    }
    match &exp.sites[1].workload {
        WorkloadSpec::Swf(s) => assert_eq!(s.sha256.as_deref(), Some(t.sha256.as_str())),
        w => panic!("not a trace: {w:?}"),
    }
    // Without the upload, the site asks for its file.
    let e = grid::experiment(&f, &[]).unwrap_err();
    assert_eq!(
        e,
        FieldError::new(
            "grid-site-file-1",
            "Site 2 (Americas East): choose a trace file (.swf or .swf.gz), or switch the site \
             to a synthetic workload."
        )
    );
}

#[test]
fn grid_inline_errors_name_the_site_and_field() {
    let cases: Vec<Case<GridFields>> = vec![
        (
            Box::new(|f| f.sites.clear()),
            "grid-add-site",
            "Add at least one site.",
        ),
        (
            Box::new(|f| f.sites[1].procs = "0".into()),
            "grid-site-procs-1",
            "Site 2 (Americas East): the number of nodes must be a whole number from 1 to \
             1,048,576 (got \"0\"), or empty for the trace's or model's size.",
        ),
        (
            Box::new(|f| f.sites[0].tz = "200".into()),
            "grid-site-tz-0",
            "Site 1 (Europe): the time-zone offset must be a number of hours between −168 and \
             168 (got \"200\").",
        ),
        (
            Box::new(|f| {
                f.sites[3].name = " ".into();
                f.sites[3].jobs = "many".into();
            }),
            "grid-site-jobs-3",
            "Site 4 (site 4): the number of jobs must be a whole number from 1 to 1,000,000 \
             (got \"many\").",
        ),
        (
            Box::new(|f| f.seed = "-3".into()),
            "grid-seed",
            "The seed must be a whole number ≥ 0 (got \"-3\").",
        ),
    ];
    for (edit, field, message) in cases {
        let mut f = grid_form(&preset_global_grid());
        edit(&mut f);
        assert_eq!(
            grid::experiment(&f, &[]).unwrap_err(),
            FieldError::new(field, message)
        );
    }
    // The inputs outlined in red are those refused.
    let mut f = grid_form(&preset_global_grid());
    f.sites.truncate(1);
    f.sites[0].tz = "x".into();
    assert_eq!(
        grid::site_inputs_validity(&f.sites),
        vec![
            ("grid-site-procs-0".to_string(), false),
            ("grid-site-tz-0".to_string(), true),
            ("grid-site-jobs-0".to_string(), false),
        ]
    );
}

/// Liu et al.'s preset through the form: the phase model's exchanges come from `mesh-exchanges`
/// (the speeds from the preset), the four allocators run FCFS, and a bad count names the field.
#[test]
fn mesh_binary_tree_preset_form_keeps_the_phase_model() {
    use schedlab::modes::mesh::presets::{binary_tree_allocators, preset_binary_tree};
    let preset = preset_binary_tree();
    preset.validate().expect("the preset is valid");
    let phases = preset.network.phases.expect("phase model on");
    assert_eq!(phases.exchanges, 4);
    let f = MeshFields {
        width: "16".into(),
        height: "16".into(),
        workload: MeshWorkload::ExponentialJobs {
            jobs: "16".into(),
            interarrival: "0.0001".into(),
        },
        shape: "square".into(),
        io_side: "west".into(),
        io_count: "16".into(),
        rho: "50".into(),
        exchanges: "16".into(),
        model: String::new(),
        wormhole: Default::default(),
        seed: "1001".into(),
        allocators: binary_tree_allocators(),
        policy: "fcfs".into(),
        policy_k: String::new(),
    };
    let (base, allocs, policy) = mesh::read(&f, Some(&preset), None).expect("valid form");
    let exps = mesh::experiments_for(&base, &allocs, policy).expect("valid experiments");
    let names: Vec<String> = exps.iter().map(|e| e.allocator.as_str()).collect();
    assert_eq!(names, ["dbt_8", "d_dbt_8", "mbs", "plas"]);
    for e in &exps {
        let p = e.network.phases.expect("phase model kept");
        assert_eq!((p.exchanges, p.link_mb_s, p.disk_mb_s), (16, 11.65, 4.545));
    }
    let off = MeshFields {
        exchanges: " ".into(),
        ..f.clone()
    };
    let (base, _, _) = mesh::read(&off, Some(&preset), None).unwrap();
    assert_eq!(base.network.phases, None);
    let bad = MeshFields {
        exchanges: "many".into(),
        ..f
    };
    let e = mesh::read(&bad, Some(&preset), None).unwrap_err();
    assert_eq!(e.field, "mesh-exchanges");
    assert!(
        e.message.starts_with("Exchanges: enter a whole number"),
        "{}",
        e.message
    );
}

/// `schedlab mesh --network-model` sets `network.model`; a bad name is an error on that key.
#[test]
fn mesh_cli_sets_the_contention_model() {
    use schedlab::modes::mesh::presets::preset_contention;
    use schedlab::modes::mesh::spec::ContentionModel;
    let mut exp = preset_contention(0.5);
    exp.network.model = ContentionModel::Flow;
    let file = experiment_file("mc_elongated-flow.json", &exp.to_json());
    let args = |m: Option<&str>| MeshArgs {
        experiment: file.clone(),
        allocator: None,
        policy: None,
        traffic_io: None,
        jobs_csv: None,
        report: None,
        links_csv: None,
        limits: Default::default(),
        work: Default::default(),
        switch_orientation: false,
        network_model: m.map(str::to_string),
    };
    let (cli, _) = mesh_experiment_from_args(&args(None)).unwrap();
    assert_eq!(cli, exp);
    let (cli, _) = mesh_experiment_from_args(&args(Some("separated"))).unwrap();
    assert_eq!(cli, preset_contention(0.5));
    let e = mesh_experiment_from_args(&args(Some("fluid"))).unwrap_err();
    match e {
        schedlab::error::Error::Config(c) => assert_eq!(c.key, "network.model"),
        other => panic!("{other}"),
    }
}

/// Mache et al.'s preset through the form keeps the separated-classes model the form does not
/// show; exchanges switch to the phase model, which replaces it.
#[test]
fn mesh_mc_elongated_preset_form_keeps_the_contention_model() {
    use schedlab::modes::mesh::presets::preset_contention;
    use schedlab::modes::mesh::spec::ContentionModel;
    let preset = preset_contention(0.5);
    let f = MeshFields {
        width: "22".into(),
        height: "16".into(),
        workload: MeshWorkload::ExponentialJobs {
            jobs: "1000".into(),
            interarrival: "182.5".into(),
        },
        shape: "square".into(),
        io_side: "west".into(),
        io_count: String::new(),
        rho: "50".into(),
        exchanges: String::new(),
        model: String::new(),
        wormhole: Default::default(),
        seed: "2000".into(),
        allocators: vec![MeshAllocatorKind::parse("mc_elongated").unwrap()],
        policy: "fcfs".into(),
        policy_k: String::new(),
    };
    let (base, _, _) = mesh::read(&f, Some(&preset), None).expect("valid form");
    assert_eq!(base, preset);
    assert_eq!(base.network.model, ContentionModel::Separated);
    let phases = MeshFields {
        exchanges: "4".into(),
        ..f
    };
    let (base, _, _) = mesh::read(&phases, Some(&preset), None).expect("valid form");
    assert_eq!(base.network.model, ContentionModel::Flow);
    assert_eq!(base.network.phases.map(|p| p.exchanges), Some(4));
    base.validate()
        .expect("phase model without the separated model");
}

/// The network model picker: wormhole with its three parameters reaches the experiment (left
/// out at the defaults), each bad value is an error on its own input, a share link carries the
/// parameters back into the fields, and another model drops them.
#[test]
fn mesh_form_chooses_the_wormhole_model_and_its_parameters() {
    use schedlab::form::mesh::WormholeFields;
    use schedlab::modes::mesh::link::MeshShare;
    use schedlab::modes::mesh::presets::preset_contention;
    use schedlab::modes::mesh::spec::{ContentionModel, WormholeSpec};
    let preset = preset_contention(0.5);
    let fields = |flits: &str, flit_time: &str, round: &str| WormholeFields {
        flits: flits.into(),
        flit_time: flit_time.into(),
        round_length: round.into(),
    };
    let f = MeshFields {
        width: "22".into(),
        height: "16".into(),
        workload: MeshWorkload::ExponentialJobs {
            jobs: "50".into(),
            interarrival: "182.5".into(),
        },
        shape: "square".into(),
        io_side: "west".into(),
        io_count: String::new(),
        rho: "50".into(),
        exchanges: String::new(),
        model: "wormhole".into(),
        wormhole: WormholeFields::of(&WormholeSpec::default()),
        seed: "2000".into(),
        allocators: vec![MeshAllocatorKind::parse("mc_elongated").unwrap()],
        policy: "fcfs".into(),
        policy_k: String::new(),
    };
    let (base, _, _) = mesh::read(&f, Some(&preset), None).expect("valid form");
    assert_eq!(base.network.model, ContentionModel::Wormhole);
    assert_eq!(base.network.wormhole, None, "defaults are left out");
    let set = MeshFields {
        wormhole: fields("16", "0.5", "3600"),
        ..f.clone()
    };
    let (base, allocs, _) = mesh::read(&set, Some(&preset), None).expect("valid form");
    let spec = WormholeSpec {
        flits: 16,
        flit_time: 0.5,
        round_length: 3600.0,
    };
    assert_eq!(base.network.wormhole, Some(spec));
    base.validate().expect("valid experiment");
    let cfg = base.wormhole_config();
    assert_eq!(
        (cfg.packet_flits, cfg.flit_seconds, cfg.round_seconds),
        (16, 0.5, 3600.0)
    );
    // Through a share link and back into the fields.
    let share = MeshShare {
        v: schedlab::modes::mesh::link::MESH_SHARE_VERSION,
        experiment: base.clone(),
        allocators: allocs,
        policy: None,
    };
    let back = MeshShare::from_fragment(&share.to_fragment())
        .expect("valid link")
        .expect("a mesh link");
    assert_eq!(back.experiment, base);
    let w = WormholeFields::of(&back.experiment.network.wormhole.unwrap_or_default());
    assert_eq!(
        (
            w.flits.as_str(),
            w.flit_time.as_str(),
            w.round_length.as_str()
        ),
        ("16", "0.5", "3600")
    );
    // Bad values, each on its input.
    for (flits, flit_time, round, field, start) in [
        (
            "0",
            "1",
            "7150",
            "mesh-worm-flits",
            "Flits per packet: must be between 1 and 1024",
        ),
        (
            "8.5",
            "1",
            "7150",
            "mesh-worm-flits",
            "Flits per packet: enter a whole number of flits",
        ),
        (
            "8",
            "0",
            "7150",
            "mesh-worm-flit-time",
            "Flit time: must be a number of seconds between",
        ),
        (
            "8",
            "soon",
            "7150",
            "mesh-worm-flit-time",
            "Flit time: enter a number of seconds",
        ),
        (
            "8",
            "1",
            "inf",
            "mesh-worm-round",
            "Round length: must be a number of seconds between",
        ),
        (
            "8",
            "1",
            "0.5",
            "mesh-worm-round",
            "Round length: must be a number of seconds between",
        ),
    ] {
        let bad = MeshFields {
            wormhole: fields(flits, flit_time, round),
            ..f.clone()
        };
        let e = mesh::read(&bad, Some(&preset), None).unwrap_err();
        assert_eq!(e.field, field, "{flits} {flit_time} {round}");
        assert!(e.message.starts_with(start), "{}", e.message);
    }
    let unknown = MeshFields {
        model: "fluid".into(),
        ..f.clone()
    };
    let e = mesh::read(&unknown, Some(&preset), None).unwrap_err();
    assert_eq!(e.field, "mesh-model");
    assert!(
        e.message.starts_with("Network model: unknown"),
        "{}",
        e.message
    );
    // The phase model does not run on the wormhole model.
    let phases = MeshFields {
        exchanges: "4".into(),
        ..set.clone()
    };
    let e = mesh::read(&phases, Some(&preset), None).unwrap_err();
    assert_eq!(e.field, "mesh-exchanges");
    // Another model drops the wormhole parameters (their key is refused under it).
    let (worm, _, _) = mesh::read(&set, Some(&preset), None).unwrap();
    let flow = MeshFields {
        model: "flow".into(),
        ..set
    };
    let (base, _, _) = mesh::read(&flow, Some(&worm), None).expect("valid form");
    assert_eq!(base.network.model, ContentionModel::Flow);
    assert_eq!(base.network.wormhole, None);
    base.validate().expect("valid experiment");
}

/// The share state of a batch: the first run's experiment, the policies in order without
/// repeats, the sweep; none for no runs.
#[test]
fn flat_share_state_of_a_sweep_batch() {
    use schedlab::modes::flat::link::Sweep;
    use schedlab::policy::PolicyKind;
    let a = flat::experiments(&flat_form(), None, None).unwrap().runs[0]
        .1
        .clone();
    let mut b = a.clone();
    b.transforms.load_factor = 1.5;
    let runs = vec![
        (PolicyKind::Fcfs, a.clone()),
        (PolicyKind::Easy, a.clone()),
        (PolicyKind::Fcfs, b.clone()),
        (PolicyKind::Easy, b),
    ];
    let sweep = Sweep {
        from: 1.0,
        to: 1.5,
        step: 0.5,
        axis: Default::default(),
    };
    let s = flat::share_state(&runs, Some(sweep)).unwrap();
    assert_eq!(s.experiment, a);
    assert_eq!(s.policies, vec![PolicyKind::Fcfs, PolicyKind::Easy]);
    assert_eq!(s.sweep, Some(sweep));
    assert!(flat::share_state(&[], None).is_none());
}

#[test]
fn flat_sweeps_of_seed_and_jobs() {
    let mut f = flat_form();
    f.policies = vec![PolicyKind::Fcfs, PolicyKind::Easy];
    f.jobs = "200".into();
    f.load_factor = "1.2".into();
    f.sweep = Some(["7".into(), "9".into(), "1".into()]);
    f.sweep_axis = "seed".into();
    let b = flat::experiments(&f, None, None).unwrap();
    // Seeds outer, policies inner; the load factor is the field's.
    let got: Vec<(PolicyKind, u64, f64)> = b
        .runs
        .iter()
        .map(|(p, e)| (*p, e.seed, e.transforms.load_factor))
        .collect();
    assert_eq!(
        got,
        vec![
            (PolicyKind::Fcfs, 7, 1.2),
            (PolicyKind::Easy, 7, 1.2),
            (PolicyKind::Fcfs, 8, 1.2),
            (PolicyKind::Easy, 8, 1.2),
            (PolicyKind::Fcfs, 9, 1.2),
            (PolicyKind::Easy, 9, 1.2),
        ]
    );
    assert!(
        b.caption
            .ends_with("load factor 1.2 · seed 7 to 9 step 1 (3 points)"),
        "{}",
        b.caption
    );
    let s = b.sweep.unwrap();
    assert_eq!(s.axis.value_of(&b.runs[5].1), 9.0);
    // The link of the batch carries the axis; a load-factor sweep's link is unchanged.
    let state = flat::share_state(&b.runs, b.sweep).unwrap();
    assert!(
        state.to_json().contains(r#""axis":"seed""#),
        "{}",
        state.to_json()
    );
    assert_eq!(
        schedlab::modes::flat::link::ShareState::from_json(&state.to_json()),
        Ok(state)
    );

    f.sweep_axis = "jobs".into();
    f.sweep = Some(["100".into(), "300".into(), "100".into()]);
    let b = flat::experiments(&f, None, None).unwrap();
    assert_eq!(b.runs.len(), 6);
    assert_eq!(b.sweep.unwrap().axis.value_of(&b.runs[4].1), 300.0);
    assert_eq!(b.runs[4].1.seed, 42);
    // Errors name the input: a fractional seed step, jobs above the limit, an unknown axis.
    f.sweep_axis = "seed".into();
    f.sweep = Some(["1".into(), "2".into(), "0.5".into()]);
    let e = flat_error(&f);
    assert_eq!(e.field, "sweep-step");
    assert!(e.message.contains("whole number"), "{}", e.message);
    f.sweep_axis = "jobs".into();
    f.sweep = Some(["100".into(), "2000000".into(), "1999900".into()]);
    assert_eq!(flat_error(&f).field, "sweep-from");
    f.sweep_axis = "sigma".into();
    assert_eq!(flat_error(&f).field, "sweep-axis");
    // Without a sweep the axis is ignored.
    f.sweep = None;
    assert_eq!(flat::experiments(&f, None, None).unwrap().runs.len(), 2);
}

/// One number format per axis: the suffix chosen by the axis' largest value, the decimals by
/// its tick step, whole-number axes of counts without ".0".
#[test]
fn axis_formats_are_one_per_axis() {
    use schedlab::form::format::AxisFormat;
    // 0–12,000 in six labels: steps of 2,000, all in thousands, no decimals.
    let f = AxisFormat::new(0.0, 12_000.0, 6);
    let labels: Vec<String> = [0.0, 2000.0, 8000.0, 10_000.0, 12_000.0]
        .iter()
        .map(|&v| f.label(v))
        .collect();
    assert_eq!(labels, ["0", "2k", "8k", "10k", "12k"]);
    // 0–5,000: below ten thousand, plain numbers.
    let f = AxisFormat::new(0.0, 5000.0, 6);
    assert_eq!(f.label(4000.0), "4000");
    assert_eq!(f.label(1000.0), "1000");
    // 0–2 in six labels: steps of 0.5, one decimal on every label.
    let f = AxisFormat::new(0.0, 2.0, 6);
    assert_eq!(f.label(0.5), "0.5");
    assert_eq!(f.label(1.0), "1.0");
    // Processors 0–4: whole numbers only, the half ticks unlabelled.
    let f = AxisFormat::counts(0.0, 4.0, 6);
    assert_eq!(f.label(4.0), "4");
    assert_eq!(f.label(3.5), "");
    // Millions with the decimals their step needs.
    let f = AxisFormat::new(0.0, 3_000_000.0, 6);
    assert_eq!(f.label(2_500_000.0), "2.5M");
    assert_eq!(f.label(1_000_000.0), "1.0M");
    // Negative values (% changes) with a true minus sign.
    let f = AxisFormat::new(-40.0, 20.0, 6);
    assert_eq!(f.label(-20.0), "\u{2212}20");
    assert_eq!(f.label(0.0), "0");
}
