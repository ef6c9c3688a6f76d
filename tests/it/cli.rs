//! The native CLI: output keys, files it writes, experiment-file form = flag form, and errors
//! (exit code 2, message naming the key / file / line).
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::{schedlab, temp_dir};
use schedlab::workload::swf::{read_swf, ReadOptions};

const SMALL_SWF: &str = "\
; Version: 2.2
; MaxProcs: 8 (test machine)
; UnixStartTime: 0
1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 3 2 -1 -1 2 4 -1 1 2 1 -1 -1 -1 -1 -1
4 2 -1 -1 2 -1 -1 2 4 -1 0 2 1 -1 -1 -1 -1 -1
5 3 -1 30 4 -1 -1 4 10 -1 1 2 1 -1 -1 -1 -1 -1
";

#[test]
fn run_prints_exactly_the_summary_keys_and_writes_files() {
    let dir = temp_dir("cli-files");
    let swf = dir.join("small.swf");
    std::fs::write(&swf, SMALL_SWF).unwrap();
    let csv = dir.join("jobs.csv");
    let out_swf = dir.join("schedule.swf");
    let (code, stdout, stderr) = schedlab(&[
        "run",
        "--swf",
        swf.to_str().unwrap(),
        "--policy",
        "easy",
        "--jobs-csv",
        csv.to_str().unwrap(),
        "--swf-out",
        out_swf.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let mut expected = vec![
        "jobs",
        "dropped",
        "mean_wait",
        "max_wait",
        "mean_turnaround",
        "mean_slowdown",
        "mean_bounded_slowdown",
        "utilization",
        "makespan",
        "awrt",
        "awwt",
        "awsd",
    ];
    let mut got = keys.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    // Job 4 has run time −1 and is dropped.
    assert_eq!(v["jobs"], 4);
    assert_eq!(v["dropped"], 1);
    // By hand (8 procs, EASY): j1 [0,10) 4 procs; j2 (8) waits, shadow 20 (j1's estimate),
    // extra 0; j3 (2 procs, est 4) ends by 6 ≤ 20 → backfilled at 2 (free 2); j5 (4 procs)
    // does not fit at 3; at 5 j3 ends (free 4) and j5 (est 10, 15 ≤ 20) is backfilled;
    // j1 ends at 10 (free 4), j5 is killed at its estimate at 15 → j2 starts at 15.
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv_text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("id,submit,start,end,procs"));
    let starts: Vec<(u64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(starts, vec![(1, 0.0), (2, 15.0), (3, 2.0), (5, 5.0)]);
    assert_eq!(v["max_wait"], 14.0);
    // The schedule reads back as SWF with the simulated wait and run times.
    let back = read_swf(
        std::fs::File::open(&out_swf).unwrap(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(back.jobs.len(), 4);
    let job2 = back.jobs.iter().find(|j| j.id == 2).unwrap();
    assert_eq!(job2.record.wait_time, 14.0);
    let job5 = back.jobs.iter().find(|j| j.id == 5).unwrap();
    assert_eq!(job5.record.run_time, 10.0);
    assert_eq!(back.header.max_procs, Some(8));
}

#[test]
fn experiment_file_equals_flag_form() {
    let dir = temp_dir("cli-exp");
    std::fs::write(dir.join("small.swf"), SMALL_SWF).unwrap();
    let exp = dir.join("exp.json");
    std::fs::write(
        &exp,
        r#"{"version": 1, "workload": {"swf": {"path": "small.swf"}},
            "machine": {"flat": {"procs": 8}}, "policy": "conservative",
            "transforms": {"load_factor": 2.0}}"#,
    )
    .unwrap();
    let (c1, from_file, e1) = schedlab(&["run", exp.to_str().unwrap()]);
    assert_eq!(c1, 0, "{e1}");
    let swf = dir.join("small.swf");
    let (c2, from_flags, e2) = schedlab(&[
        "run",
        "--swf",
        swf.to_str().unwrap(),
        "--procs",
        "8",
        "--policy",
        "conservative",
        "--load-factor",
        "2",
    ]);
    assert_eq!(c2, 0, "{e2}");
    assert_eq!(from_file, from_flags);
}

#[test]
fn errors_exit_2_and_name_the_problem() {
    let dir = temp_dir("cli-errors");
    // Unknown key.
    let exp = dir.join("bad.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "x.swf"}}, "policy": "easy",
            "transforms": {"load_factr": 2}}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["run", exp.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("load_factr"), "{err}");
    assert!(err.contains("transforms"), "{err}");
    // Bad value.
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "x.swf"}}, "policy": "easy",
            "transforms": {"load_factor": -1}}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["run", exp.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("load_factor"), "{err}");
    // Unknown policy.
    let (code, _, err) = schedlab(&["run", "--swf", "x.swf", "--policy", "sjf"]);
    assert_eq!(code, 2);
    assert!(err.contains("sjf"), "{err}");
    // Missing file.
    let (code, _, err) = schedlab(&["run", "--swf", "/nonexistent/trace.swf"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/trace.swf"), "{err}");
    // Malformed line: names file, line and field.
    let swf = dir.join("broken.swf");
    std::fs::write(
        &swf,
        "; MaxProcs: 8\n1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 1 -1 ten 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let (code, _, err) = schedlab(&["run", "--swf", swf.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("broken.swf:3"), "{err}");
    assert!(err.contains("field 4"), "{err}");
    // Lenient mode skips it.
    let (code, out, err) = schedlab(&["run", "--swf", swf.to_str().unwrap(), "--lenient"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"], 1);
    assert_eq!(v["dropped"], 1);
}

/// `schedlab mesh`: a hand-sized contiguous run on a trace, the per-job CSV with layout
/// columns, overrides, and errors naming the key.
#[test]
fn mesh_runs_a_trace_on_a_mesh_and_names_bad_keys() {
    let d = temp_dir("cli-mesh");
    std::fs::write(d.join("small.swf"), SMALL_SWF).unwrap();
    let exp = d.join("mesh.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"swf": {"path": "small.swf"}}, "width": 4, "height": 2,
            "allocator": "first_fit", "policy": "fcfs"}"#,
    )
    .unwrap();
    let csv = d.join("jobs.csv");
    let (code, out, err) = schedlab(&[
        "mesh",
        exp.to_str().unwrap(),
        "--jobs-csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Job 4 has no run time (dropped by the reader); the other four run.
    assert_eq!(v["summary"]["jobs"], 4);
    assert_eq!(v["mesh"]["engine"], "contiguous");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 4);
    // Square transformation on 4 × 2: 4 → 2 × 2, 8 → 4 × 2, 2 → 1 × 2.
    let shapes: Vec<(&str, &str)> = rows.iter().map(|r| (r[12], r[13])).collect();
    assert_eq!(shapes, [("2", "2"), ("4", "2"), ("1", "2"), ("2", "2")]);
    // FCFS: job 2 (the whole mesh) waits for job 1 (ends at 10); job 3 waits behind it.
    assert_eq!(rows[1][2], "10");
    assert_eq!(rows[2][2], "15");
    let (code, _, err) = schedlab(&[
        "mesh",
        exp.to_str().unwrap(),
        "--allocator",
        "plas",
        "--policy",
        "oo",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("policy"), "{err}");
    let (code, _, err) = schedlab(&["mesh", exp.to_str().unwrap(), "--traffic-io", "1.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("network.traffic_io"), "{err}");
    // The contention model: a bad name names the key (mesh) or the flag (reproduce).
    let (code, _, err) = schedlab(&["mesh", exp.to_str().unwrap(), "--network-model", "fluid"]);
    assert_eq!(code, 2);
    assert!(err.contains("network.model"), "{err}");
    let (code, _, err) = schedlab(&["reproduce", "mc-elongated", "--model", "fluid"]);
    assert_eq!(code, 2);
    assert!(err.contains("model") && err.contains("separated"), "{err}");
}

/// The experiment envelope: a share link opens on the command line, its envelope
/// file runs under the mode's command with the same numbers as the bare experiment file, an
/// envelope of another mode is refused naming the command, and `list` prints the registry.
#[test]
fn envelopes_and_links_run_on_the_command_line() {
    use schedlab::modes::envelope::Envelope;
    use schedlab::modes::flat::link::ShareState;
    use schedlab::modes::flat::spec::{Experiment, ExperimentFile};

    let dir = temp_dir("cli-envelope");
    std::fs::write(dir.join("small.swf"), SMALL_SWF).unwrap();
    let bare = r#"{"version": 1, "workload": {"swf": {"path": "small.swf"}},
            "machine": {"flat": {"procs": 8}}, "policy": "easy"}"#;
    let exp_path = dir.join("exp.json");
    std::fs::write(&exp_path, bare).unwrap();
    let (c0, from_bare, e0) = schedlab(&["run", exp_path.to_str().unwrap()]);
    assert_eq!(c0, 0, "{e0}");

    // The page's link of that experiment (policies EASY and FCFS).
    let exp = Experiment::from_json(bare).unwrap();
    let env = Envelope::Flat(ShareState::new(
        exp,
        vec![
            schedlab::policy::PolicyKind::Easy,
            schedlab::policy::PolicyKind::Fcfs,
        ],
    ));
    let link = format!("http://127.0.0.1:8080/#{}", env.to_fragment());
    let out = dir.join("from-link.json");
    let (c1, printed, e1) = schedlab(&["open", &link, "--experiment-out", out.to_str().unwrap()]);
    assert_eq!(c1, 0, "{e1}");
    let v: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        (v["v"].as_u64(), v["mode"].as_str()),
        (Some(2), Some("flat"))
    );
    assert_eq!(v["policies"], serde_json::json!(["easy", "fcfs"]));
    assert!(
        e1.contains(&format!("run it with: schedlab run {}", out.display()))
            && !e1.contains("--experiment ")
            && e1.contains("--policy"),
        "{e1}"
    );
    let (c2, from_link, e2) = schedlab(&["run", out.to_str().unwrap()]);
    assert_eq!(c2, 0, "{e2}");
    assert_eq!(from_link, from_bare);

    // The envelope itself as an experiment file.
    let env_path = dir.join("envelope.json");
    std::fs::write(&env_path, &printed).unwrap();
    let (c3, from_env, e3) = schedlab(&["run", env_path.to_str().unwrap()]);
    assert_eq!(c3, 0, "{e3}");
    assert_eq!(from_env, from_bare);
    let (c4, _, e4) = schedlab(&["mesh", env_path.to_str().unwrap()]);
    assert_eq!(c4, 2);
    assert!(
        e4.contains("is a flat experiment")
            && e4.contains("`schedlab run ")
            && !e4.contains("--experiment"),
        "{e4}"
    );
    let (c5, _, e5) = schedlab(&["open", "#e=AAAA.00000000"]);
    assert_eq!(c5, 2);
    assert!(e5.contains("link"), "{e5}");

    // The registry.
    let (c6, list, e6) = schedlab(&["list", "--json"]);
    assert_eq!(c6, 0, "{e6}");
    let reg: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(reg["policy"][1]["name"], "easy");
    assert_eq!(reg["mesh_policy"][3]["pattern"], "window-<K>");
    let (_, help, _) = schedlab(&["mesh", "--help"]);
    assert!(
        help.contains("mc_elongated") && help.contains("window-<K>"),
        "{help}"
    );
}

/// Liu et al.: a binary-tree allocator by name (`--allocator sbt_16`, help generated from the
/// registry), the phase model in an experiment file, and `reproduce binary-tree`'s errors.
#[test]
fn mesh_runs_binary_tree_allocators_and_reproduce_binary_tree_checks_its_filter() {
    let d = temp_dir("cli-binary_tree");
    let exp = d.join("mesh.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 40, "mean_interarrival": 100}},
            "width": 16, "height": 16, "allocator": "plas", "network": {"phases": {"exchanges": 2}}}"#,
    )
    .unwrap();
    for a in ["sbt_16", "d_dbt_8", "scbt"] {
        let (code, out, err) = schedlab(&["mesh", exp.to_str().unwrap(), "--allocator", a]);
        assert_eq!(code, 0, "{a}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["allocator"], a);
        assert_eq!(v["summary"]["jobs"], 40);
    }
    let (code, _, err) = schedlab(&["mesh", exp.to_str().unwrap(), "--allocator", "sbt_3"]);
    assert_eq!(code, 2);
    assert!(err.contains("sbt_<α>"), "{err}");
    let (code, out, _) = schedlab(&["mesh", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("d_dbt_<d>") && out.contains("scbt"), "{out}");
    let (code, _, err) = schedlab(&["reproduce", "binary-tree", "--only", "nothing"]);
    assert_eq!(code, 2);
    assert!(err.contains("d_dbt_8"), "{err}");
    // The model, the readings and the runs are checked before anything runs.
    for (args, key) in [
        (&["--model", "separated"][..], "model"),
        (&["--model", "fluid"][..], "model"),
        (&["--rounds", "0"][..], "rounds"),
        (&["--dbt-ratio-of", "size"][..], "dbt-ratio-of"),
        (&["--imbalance-counts", "area"][..], "imbalance-counts"),
        (&["--runs", "1"][..], "runs"),
    ] {
        let mut a = vec!["reproduce", "binary-tree", "--only", "plas"];
        a.extend_from_slice(args);
        let (code, _, err) = schedlab(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(key), "{args:?}: {err}");
    }
    // Two runs of PLAS under the wormhole model: makespans in flit times, claims counted.
    let (code, out, err) = schedlab(&[
        "reproduce",
        "binary-tree",
        "--only",
        "plas",
        "--model",
        "wormhole",
        "--runs",
        "2",
        "--threads",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("wormhole model") && out.contains("flit times"),
        "{out}"
    );
    assert!(out.contains("0 of 0 checked claims hold"), "{out}");
}

#[test]
fn run_explain_prints_a_jobs_story_and_the_csv_of_every_decision() {
    let dir = temp_dir("cli-explain");
    let swf = dir.join("small.swf");
    std::fs::write(&swf, SMALL_SWF).unwrap();
    let csv = dir.join("why.csv");
    // EASY on 8 processors (job 4 is dropped: no run time). Job 2 (8 procs) blocks at t=1
    // behind job 1 (4 procs, estimate 20): shadow 20, no extra. Job 3 (est 4) and job 5 (est
    // 10, from t=5 when job 3 ends) backfill before the shadow. Job 1 ends at 10: the shadow
    // moves to job 5's estimated end, 15, where job 2 starts.
    let (code, stdout, stderr) = schedlab(&[
        "run",
        "--swf",
        swf.to_str().unwrap(),
        "--policy",
        "easy",
        "--explain",
        "2",
        "--explain-csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let shadow = "(enough processors free by the running jobs' estimates), 0 extra then.";
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        vec![
            "Job 2: 8 processors, estimate 5 s, run time 5 s; arrived at t = 1 s.".to_string(),
            format!("t = 1 s: blocked at the head of the queue: needs 8, 4 free; shadow time t = 20 s {shadow}"),
            format!("t = 10 s: blocked at the head of the queue: needs 8, 4 free; shadow time t = 15 s {shadow}"),
            "t = 15 s: started in queue order: needs 8, 8 free.".to_string(),
            "Started at t = 15 s after waiting 14 s; ended at t = 20 s.".to_string(),
        ]
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = rows.lines().collect();
    assert_eq!(rows[0], "time,job,kind,text");
    assert_eq!(
        rows[1],
        "0,1,in_order,\"started in queue order: needs 4, 8 free\""
    );
    assert_eq!(
        rows.iter()
            .map(|r| r.split(',').nth(2).unwrap_or(""))
            .collect::<Vec<_>>(),
        vec![
            "kind",
            "in_order",
            "head_blocked",
            "before_shadow",
            "before_shadow",
            "head_blocked",
            "in_order"
        ]
    );

    let (code, _, stderr) = schedlab(&["run", "--swf", swf.to_str().unwrap(), "--explain", "4"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("explain") && stderr.contains("no job number 4"),
        "{stderr}"
    );
}

/// `schedlab bench phases`: the phases of a link's experiment as JSON, the
/// summary that of `schedlab run`; a trace is read with `--trace`; grid links and bad run counts
/// are refused.
#[test]
fn bench_phases_times_a_links_experiment() {
    use schedlab::modes::envelope::Envelope;
    use schedlab::modes::flat::link::ShareState;
    use schedlab::modes::flat::spec::{Experiment, ExperimentFile};

    let dir = temp_dir("cli-bench phases");
    let trace = dir.join("small.swf");
    std::fs::write(&trace, SMALL_SWF).unwrap();
    let bare = r#"{"version": 1, "workload": {"swf": {"path": "small.swf"}},
            "machine": {"flat": {"procs": 8}}, "policy": "easy"}"#;
    let exp_path = dir.join("exp.json");
    std::fs::write(&exp_path, bare).unwrap();
    let (c0, summary, e0) = schedlab(&["run", exp_path.to_str().unwrap()]);
    assert_eq!(c0, 0, "{e0}");
    let env = Envelope::Flat(ShareState::new(
        Experiment::from_json(bare).unwrap(),
        vec![],
    ));
    let link = format!("#{}", env.to_fragment());
    let args = ["bench", "phases", &link, "--runs", "3", "--trace"];
    let (c1, out, e1) = schedlab(&[&args[..], &[trace.to_str().unwrap()]].concat());
    assert_eq!(c1, 0, "{e1}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["mode"].as_str(), v["label"].as_str()),
        (Some("flat"), Some("easy"))
    );
    for phase in ["load_ms", "simulate_ms", "measure_ms"] {
        assert_eq!(v[phase].as_array().map(Vec::len), Some(3), "{phase}");
    }
    let run: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["summary"], run);

    let (c2, _, e2) = schedlab(&["bench", "phases", &link]);
    assert_eq!(c2, 2);
    assert!(e2.contains("not supplied"), "{e2}");
    let (c3, _, e3) = schedlab(&["bench", "phases", &link, "--runs", "0"]);
    assert_eq!(c3, 2);
    assert!(e3.contains("runs must be 1 to 1000"), "{e3}");
    let grid = schedlab::modes::grid::link::GridShare::new(
        schedlab::modes::grid::spec::preset_global_grid(),
    );
    let grid_link = format!("#{}", Envelope::Grid(grid).to_fragment());
    // Every mode is timed through the same prepare → simulate → measure phases.
    let (c4, o4, e4) = schedlab(&["bench", "phases", &grid_link, "--runs", "1"]);
    assert_eq!(c4, 0, "{e4}");
    let g: serde_json::Value = serde_json::from_str(o4.trim()).unwrap();
    assert_eq!(g["mode"], "grid");
    assert_eq!(g["label"], "easy sharing");
    assert!(g["jobs"].as_u64().unwrap() > 0);
    assert_eq!(g["summary"]["jobs"], g["jobs"]);
}

/// `bench network --decisions N` runs exactly N decisions per case (the same work for every
/// binary, for instruction counts); 0 is refused with the flag's name.
#[test]
fn bench_network_runs_an_exact_number_of_decisions() {
    let (code, stdout, stderr) = schedlab(&[
        "bench",
        "network",
        "--allocators",
        "mc,mc_elongated",
        "--sizes",
        "22x16",
        "--busy",
        "0.9",
        "--decisions",
        "37",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|l| l.starts_with("| mc"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    for (row, name) in rows.iter().zip(["mc", "mc_elongated"]) {
        assert_eq!(row[1], name);
        assert_eq!(row[2], "22 × 16");
        assert_eq!(row[3], "0.90");
        assert_eq!(row[4], "37");
    }
    let (code, _, stderr) = schedlab(&["bench", "network", "--decisions", "0"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--decisions must be > 0"), "{stderr}");
}

/// `reproduce --list` names every paper of the glossary by key, authors and title; an unknown
/// key is refused naming the keys; the top-level help lists `bench` once and no developer
/// benchmark beside the user's commands.
#[test]
fn reproduce_lists_the_papers_by_key_and_bench_is_one_command() {
    let (code, out, err) = schedlab(&["reproduce", "--list"]);
    assert_eq!(code, 0, "{err}");
    let keys: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        keys,
        [
            "mc-elongated",
            "binary-tree",
            "grid-sharing",
            "window",
            "moldable"
        ]
    );
    assert!(out.contains("Mache, Virginia Lo and Sharad Garg"), "{out}");
    assert!(
        out.contains("A new window-based job scheduling scheme"),
        "{out}"
    );
    let (code, _, err) = schedlab(&["reproduce", "seed9"]);
    assert_eq!(code, 2);
    assert!(err.contains("mc-elongated, binary-tree"), "{err}");
    let (code, help, _) = schedlab(&["--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("bench"), "{help}");
    assert!(!help.contains("bench-"), "{help}");
    let (code, help, _) = schedlab(&["bench", "--help"]);
    assert_eq!(code, 0);
    for what in [
        "traces",
        "queue",
        "mesh",
        "network",
        "binary-tree",
        "grid",
        "moldable",
    ] {
        assert!(help.contains(what), "{what}: {help}");
    }
}

// ---------------------------------------------------------------- outputs never touch inputs

/// A mesh, a moldable and a flat experiment file reading `trace` (relative to their folder).
fn experiment_files(dir: &std::path::Path, trace: &str) -> [(std::path::PathBuf, &'static str); 3] {
    let flat = dir.join("e.json");
    std::fs::write(
        &flat,
        format!(r#"{{"workload": {{"swf": {{"path": "{trace}"}}}}, "policy": "easy"}}"#),
    )
    .unwrap();
    let mesh = dir.join("m.json");
    std::fs::write(
        &mesh,
        r#"{"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 20, "width": 32, "height": 32}},
            "width": 32, "height": 32, "allocator": "mpl", "policy": "fcfs"}"#,
    )
    .unwrap();
    let moldable = dir.join("mo.json");
    std::fs::write(
        &moldable,
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 30, "procs": 64}},
            "model": {"downey": {"sigma": 1.5, "range_factor": 2}}, "strategy": "combined"}"#,
    )
    .unwrap();
    [(flat, "run"), (mesh, "mesh"), (moldable, "moldable")]
}

/// Every output flag pointed at an input — the trace (plain or gzip) directly, through a
/// symlink, through `..` or a hard link, or the experiment file itself — is refused with exit
/// code 2 naming both, and the input is byte for byte what it was.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = temp_dir("cli-clobber");
    let swf = dir.join("t.swf");
    std::fs::write(&swf, SMALL_SWF).unwrap();
    let gz = dir.join("t.swf.gz");
    {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::fast(),
        );
        enc.write_all(SMALL_SWF.as_bytes()).unwrap();
        enc.finish().unwrap();
    }
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let hard = dir.join("hard.swf");
    let _ = std::fs::remove_file(&hard);
    std::fs::hard_link(&swf, &hard).unwrap();
    let link = dir.join("link.swf");
    let _ = std::fs::remove_file(&link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&swf, &link).unwrap();
    let dotted = dir.join("sub").join("..").join("t.swf");
    for trace in [&swf, &gz] {
        let before = std::fs::read(trace).unwrap();
        let mut aliases = vec![trace.clone()];
        if trace == &swf {
            aliases.extend([hard.clone(), dotted.clone()]);
            #[cfg(unix)]
            aliases.push(link.clone());
        }
        for flag in ["--jobs-csv", "--swf-out", "--report", "--explain-csv"] {
            for out in &aliases {
                let (code, _, err) = schedlab(&[
                    "run",
                    "--swf",
                    trace.to_str().unwrap(),
                    "--policy",
                    "easy",
                    flag,
                    out.to_str().unwrap(),
                ]);
                assert_eq!(code, 2, "{flag} {}: {err}", out.display());
                assert!(
                    err.contains("refusing to write this output: it is the input")
                        && err.contains(trace.to_str().unwrap()),
                    "{err}"
                );
                assert_eq!(std::fs::read(trace).unwrap(), before, "{flag}");
            }
        }
    }
    // The experiment file as the report of its own run, for every command with a report.
    for (exp, command) in experiment_files(&dir, "t.swf") {
        let before = std::fs::read(&exp).unwrap();
        let (code, _, err) = schedlab(&[
            command,
            exp.to_str().unwrap(),
            "--report",
            exp.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(err.contains("it is the input"), "{err}");
        assert_eq!(std::fs::read(&exp).unwrap(), before, "{command}");
    }
    // A flat experiment's trace as its report.
    let exp = dir.join("e.json");
    let (code, _, err) = schedlab(&[
        "run",
        exp.to_str().unwrap(),
        "--report",
        swf.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&swf).unwrap(), SMALL_SWF);
    // `open FILE --experiment-out FILE`.
    let env = dir.join("env.json");
    let envelope = r#"{"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"}}"#;
    std::fs::write(&env, envelope).unwrap();
    let (code, _, err) = schedlab(&[
        "open",
        env.to_str().unwrap(),
        "--experiment-out",
        env.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(&env).unwrap(), envelope);
    // Other outputs still work, and a valid run writes exactly what it wrote before.
    let report = dir.join("report.json");
    let (code, _, err) = schedlab(&[
        "run",
        "--swf",
        swf.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&report).unwrap().ends_with("}\n"));
}

/// A write that fails half-way (here: the file size limit of the process, as a full disk
/// would) leaves the previous output as it was and no temporary file beside it.
#[cfg(unix)]
#[test]
fn a_failed_write_leaves_the_old_output_and_no_temporary() {
    let dir = temp_dir("cli-failed-write");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exp = dir.join("e.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 300}}, "policy": "easy"}"#,
    )
    .unwrap();
    let csv = dir.join("jobs.csv");
    std::fs::write(&csv, "old\n").unwrap();
    // SIGXFSZ ignored: a write beyond 1 block fails with EFBIG instead of killing the process.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 1; exec '{}' run '{}' --jobs-csv '{}'",
            env!("CARGO_BIN_EXE_schedlab"),
            exp.display(),
            csv.display()
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("jobs.csv: cannot write"), "{err}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "old\n");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["e.json", "jobs.csv"]);
}

/// `sweep plan` replaces a symlink planted among its point files instead of writing through
/// it, refuses a `points/` folder that is a symlink, refuses to overwrite its own sweep file,
/// and `sweep run` leaves no temporary file among the results.
#[cfg(unix)]
#[test]
fn sweep_plan_never_writes_through_a_symlink() {
    let dir = temp_dir("cli-sweep-symlink");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sweep = dir.join("sweep.json");
    std::fs::write(
        &sweep,
        r#"{"version": 1, "base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
            {"model": "lublin", "jobs": 20}}, "policy": "easy"}},
            "axes": [{"key": "policy", "values": ["fcfs", "easy"]}]}"#,
    )
    .unwrap();
    let out = dir.join("plan");
    let plan = |out: &std::path::Path| {
        schedlab(&[
            "sweep",
            "plan",
            sweep.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let (code, _, err) = plan(&out);
    assert_eq!(code, 0, "{err}");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let point = out.join("points").join("000000.json");
    std::fs::remove_file(&point).unwrap();
    std::os::unix::fs::symlink(&victim, &point).unwrap();
    let (code, _, err) = plan(&out);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert!(!std::fs::symlink_metadata(&point)
        .unwrap()
        .file_type()
        .is_symlink());
    // A points/ folder that is a symlink to another folder is refused.
    let other = dir.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let out2 = dir.join("plan2");
    std::fs::create_dir_all(&out2).unwrap();
    std::os::unix::fs::symlink(&other, out2.join("points")).unwrap();
    let (code, _, err) = plan(&out2);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("points") && err.contains("a symlink"), "{err}");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 0);
    // The sweep file inside the plan folder, where the manifest goes, is not overwritten.
    let out3 = dir.join("plan3");
    std::fs::create_dir_all(&out3).unwrap();
    std::fs::copy(&sweep, out3.join("sweep-plan.json")).unwrap();
    let inside = out3.join("sweep-plan.json");
    let (code, _, err) = schedlab(&[
        "sweep",
        "plan",
        inside.to_str().unwrap(),
        "--out",
        out3.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it is the input"), "{err}");
    assert_eq!(
        std::fs::read(&inside).unwrap(),
        std::fs::read(&sweep).unwrap()
    );
    // Results are written without leaving temporaries behind.
    let (code, _, err) = schedlab(&["sweep", "run", out.to_str().unwrap(), "--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    let left: Vec<String> = std::fs::read_dir(out.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The time budget (docs/limits.md, "Work bounds"): a run whose estimate is above `--max-work`
/// is refused before it starts, naming the flag and the estimate.
#[test]
fn a_huge_mesh_run_is_refused_before_it_starts() {
    let dir = temp_dir("cli-work-mesh");
    let exp = dir.join("huge.json");
    // 10^6 jobs on 256 × 256 with MC-Elongated would run for hours: refused from the model's
    // job count, before a job is generated.
    std::fs::write(
        &exp,
        r#"{"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 1000000}},
            "width": 256, "height": 256, "allocator": "mc_elongated", "seed": 1}"#,
    )
    .unwrap();
    let path = exp.to_str().unwrap();
    let (code, stdout, stderr) = schedlab(&["mesh", path]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("this run is estimated at about"),
        "{stderr}"
    );
    assert!(stderr.contains(" h on this machine"), "{stderr}");
    assert!(stderr.contains("MC-Elongated"), "{stderr}");
    assert!(stderr.contains("raise --max-work"), "{stderr}");
    assert!(stderr.contains("max_work = 600 s"), "{stderr}");
    // A smaller bound refuses a smaller run; a bound that is not a number of seconds is an
    // error naming the flag.
    let (code, _, stderr) = schedlab(&["mesh", path, "--allocator", "mpl", "--max-work", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("max_work = 1 s"), "{stderr}");
    let (code, _, stderr) = schedlab(&["mesh", path, "--max-work=-1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--max-work: must be a number of seconds ≥ 0 (got -1)"),
        "{stderr}"
    );
    let (code, _, stderr) = schedlab(&["mesh", path, "--max-work", "NaN"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--max-work"), "{stderr}");
    // `open` of a link (here its envelope file) that would run for hours warns with the
    // estimate; a small link does not.
    let envelope = dir.join("huge-envelope.json");
    let experiment = std::fs::read_to_string(&exp).unwrap();
    std::fs::write(
        &envelope,
        format!(r#"{{"v": 2, "mode": "mesh", "experiment": {experiment}, "allocators": ["mc_elongated", "mpl"]}}"#),
    )
    .unwrap();
    let (code, stdout, stderr) = schedlab(&["open", envelope.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"mode\": \"mesh\""), "{stdout}");
    assert!(
        stderr.contains("warning: this link's runs are estimated at about"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-work (default 600 s)"), "{stderr}");
    let small = dir.join("small-envelope.json");
    std::fs::write(
        &small,
        r#"{"v": 2, "mode": "mesh", "experiment": {"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 100}}, "width": 16, "height": 16, "allocator": "mc_elongated"}, "allocators": ["mc_elongated"]}"#,
    )
    .unwrap();
    let (code, _, stderr) = schedlab(&["open", small.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("estimated"), "{stderr}");
}

#[test]
fn conservative_under_overload_is_refused_with_the_reason() {
    let dir = temp_dir("cli-work-flat");
    // 4,000 jobs submitted within seconds (load factor 1000): conservative's moves grow with
    // the square of the queue; the estimate says so.
    let exp = dir.join("overload.json");
    std::fs::write(
        &exp,
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 4000, "estimate_factor": 3}},
            "transforms": {"load_factor": 1000}, "policy": "conservative", "seed": 42}"#,
    )
    .unwrap();
    let (code, _, stderr) = schedlab(&["run", exp.to_str().unwrap(), "--max-work", "0.01"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("conservative backfilling under overload"),
        "{stderr}"
    );
    assert!(stderr.contains("square of the queue"), "{stderr}");
    assert!(stderr.contains("raise --max-work"), "{stderr}");

    // KTH at load factor 5 (28,475 jobs, offered load 3.5): estimated at minutes.
    let kth = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    ));
    if !kth.exists() {
        eprintln!("skipped the KTH case: {} is absent", kth.display());
        return;
    }
    let (code, stdout, stderr) = schedlab(&[
        "run",
        "--swf",
        kth.to_str().unwrap(),
        "--policy",
        "conservative",
        "--load-factor",
        "5",
        "--max-work",
        "30",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("this run is estimated at about"),
        "{stderr}"
    );
    assert!(stderr.contains("min on this machine"), "{stderr}");
    assert!(stderr.contains("square of the queue"), "{stderr}");
    assert!(stderr.contains("raise --max-work"), "{stderr}");
}

#[test]
fn small_runs_are_never_refused() {
    use schedlab::limits::{MAX_WORK_SECONDS, PAGE_WORK_SECONDS};
    use schedlab::modes::flat::spec::Experiment;
    use schedlab::modes::mesh::presets::{preset_binary_tree, preset_contention, preset_window};
    use schedlab::modes::mesh::run::prepare_mesh;
    use schedlab::modes::mesh::spec::MeshAllocatorKind;
    use schedlab::work::{estimate_flat, estimate_mesh, estimate_mesh_spec};
    // The default experiment (and the golden one) by the binary, under the default bound.
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/default_experiment.json"
    );
    let (code, _, stderr) = schedlab(&["run", golden]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(golden).unwrap();
    let mut experiments =
        vec![schedlab::modes::flat::spec::parse_json::<Experiment>(&text).unwrap()];
    // The default Lublin–Feitelson model (10,000 jobs) under every policy.
    for policy in schedlab::policy::PolicyKind::ALL {
        experiments.push(Experiment::new(
            schedlab::modes::flat::spec::WorkloadSpec::Synthetic(Default::default()),
            policy,
        ));
    }
    for exp in experiments {
        let prepared = schedlab::modes::flat::run::prepare(&exp, None).unwrap();
        let e = estimate_flat(&exp, &prepared.workload, prepared.procs);
        assert!(e.seconds < 1.0, "{e:?}");
    }
    // Every mesh preset with every allocator: under a second, far below the page's bound.
    for preset in [
        preset_window(),
        preset_contention(0.6),
        preset_binary_tree(),
    ] {
        for allocator in MeshAllocatorKind::all() {
            let mut exp = preset.clone();
            exp.allocator = allocator;
            if !allocator.is_contiguous() {
                exp.policy = schedlab::policy::mesh::MeshPolicyKind::Fcfs;
            }
            let spec = estimate_mesh_spec(&exp).unwrap();
            assert!(spec.seconds < 1.0, "{spec:?}");
            let Ok((workload, _, _)) = prepare_mesh(&exp, None, &Default::default()) else {
                continue;
            };
            let e = estimate_mesh(&exp, &workload);
            assert!(e.seconds < 1.0 && e.seconds <= spec.seconds, "{e:?}");
        }
    }
    const { assert!(PAGE_WORK_SECONDS <= MAX_WORK_SECONDS) };
}
