//! Parameter sweeps (docs/sweeps.md) through the `schedlab` binary: a plan run
//! locally, under GNU parallel and under a real single-node Slurm (scripts/slurm-local.sh)
//! merges to the same bytes; a point's metrics are what `schedlab run` / `mesh` / `grid` print
//! for its point file; a run killed half-way resumes without recomputing finished points; a
//! damaged result is detected and recomputed; errors name the file and key. GNU parallel and
//! Slurm are skipped, with the reason printed, where they are not installed or cannot run.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::{schedlab, temp_dir};

const SMALL_SWF: &str = "\
; Version: 2.2
; MaxProcs: 8 (test machine)
; UnixStartTime: 0
1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 3 2 -1 -1 2 4 -1 1 2 1 -1 -1 -1 -1 -1
5 3 -1 30 4 -1 -1 4 10 -1 1 2 1 -1 -1 -1 -1 -1
";

/// A flat sweep: 3 policies × 3 load factors × 2 replications = 18 points.
fn flat_sweep(jobs: usize) -> String {
    format!(
        r#"{{"version": 1, "name": "engines",
  "base": {{"v": 2, "mode": "flat", "experiment": {{"workload": {{"synthetic":
      {{"model": "lublin", "jobs": {jobs}}}}}, "policy": "easy", "seed": 3}}}},
  "axes": [{{"key": "policy", "values": ["fcfs", "easy", "conservative"]}},
           {{"key": "load_factor", "from": 0.8, "to": 1.2, "step": 0.2}}],
  "replications": 2}}"#
    )
}

fn ok(args: &[&str]) -> (String, String) {
    let (code, out, err) = schedlab(args);
    assert_eq!(code, 0, "schedlab {args:?}: {err}");
    (out, err)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn plan(dir: &Path, sweep: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut args = vec!["sweep", "plan", s(sweep), "--out", s(&out)];
    args.extend_from_slice(extra);
    ok(&args);
    out
}

fn merged(plan: &Path) -> (Vec<u8>, Vec<u8>) {
    ok(&["sweep", "merge", s(plan)]);
    (
        std::fs::read(plan.join("merged.csv")).unwrap(),
        std::fs::read(plan.join("merged.json")).unwrap(),
    )
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args([
            "-c",
            &format!("command -v {cmd} || test -x /usr/sbin/{cmd}"),
        ])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

/// Runs the plan's Slurm array on a throw-away single-node cluster; `Err(reason)` when Slurm
/// cannot run here.
fn run_under_slurm(plan: &Path, state: &Path) -> Result<(), String> {
    if !(have("slurmctld") && have("slurmd") && have("sbatch") && have("munged")) {
        return Err("slurmctld, slurmd, sbatch or munged not installed".into());
    }
    let start = Command::new("bash")
        .arg(scripts_dir().join("slurm-local.sh"))
        .args(["start", s(state)])
        .output()
        .map_err(|e| e.to_string())?;
    if !start.status.success() {
        return Err(String::from_utf8_lossy(&start.stderr).trim().to_string());
    }
    let conf = state.join("slurm.conf");
    let job = Command::new("sbatch")
        .env("SLURM_CONF", &conf)
        .env(
            "PATH",
            format!("{}:/usr/sbin", std::env::var("PATH").unwrap_or_default()),
        )
        .args(["--wait", s(&plan.join("run-slurm.sh"))])
        .output();
    let _ = Command::new("bash")
        .arg(scripts_dir().join("slurm-local.sh"))
        .args(["stop", s(state)])
        .status();
    let job = job.map_err(|e| format!("sbatch: {e}"))?;
    assert!(
        job.status.success(),
        "sbatch --wait failed: {}{}",
        String::from_utf8_lossy(&job.stdout),
        String::from_utf8_lossy(&job.stderr)
    );
    Ok(())
}

#[test]
fn local_gnu_parallel_and_slurm_merge_to_the_same_bytes() {
    let dir = temp_dir("sweep-engines");
    let sweep = dir.join("sweep.json");
    std::fs::write(&sweep, flat_sweep(300)).unwrap();

    let local = plan(&dir, &sweep, "local", &[]);
    let (_, err) = ok(&["sweep", "run", s(&local), "--jobs", "2"]);
    assert!(
        err.contains("18 points: 0 already had a result, 18 run"),
        "{err}"
    );
    let reference = merged(&local);
    let csv = String::from_utf8(reference.0.clone()).unwrap();
    assert_eq!(csv.lines().count(), 19);
    assert!(csv
        .starts_with("point,policy,load_factor,replication,seed,jobs,dropped,mean_wait,max_wait,"));
    assert!(csv.contains("\n5,fcfs,1.2,1,"), "{csv}");

    // A point's metrics are exactly what `schedlab run` prints for its point file.
    let (run_out, _) = ok(&["run", s(&local.join("points/000005.json"))]);
    let summary: serde_json::Value = serde_json::from_str(&run_out).unwrap();
    let m: serde_json::Value = serde_json::from_str(&merged_json_row(&local, 5)).unwrap();
    for (k, v) in summary.as_object().unwrap() {
        assert_eq!(&m[k], v, "{k}");
    }

    // GNU parallel, chunks of 4 points.
    if have("parallel") {
        let par = plan(&dir, &sweep, "parallel", &["--chunk", "4"]);
        let st = Command::new("bash")
            .arg(par.join("run-parallel.sh"))
            .args(["-j", "2"])
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        assert_eq!(merged(&par), reference, "GNU parallel merge differs");
        println!("GNU parallel: merged output identical to the local run");
    } else {
        println!(
            "SKIPPED GNU parallel: `parallel` is not installed (scripts/lib.sh ensure_parallel)"
        );
    }

    // Slurm, chunks of 5 points (4 array tasks).
    let slurm = plan(
        &dir,
        &sweep,
        "slurm",
        &["--chunk", "5", "--max-concurrent", "2"],
    );
    match run_under_slurm(&slurm, &dir.join("slurm-state")) {
        Ok(()) => {
            assert_eq!(merged(&slurm), reference, "Slurm merge differs");
            assert!(std::fs::read_dir(slurm.join("logs")).unwrap().count() >= 4);
            println!("Slurm: merged output identical to the local run");
        }
        Err(why) => println!("SKIPPED Slurm: {why}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point `n`'s row of merged.json as an object {column: value}.
fn merged_json_row(plan: &Path, n: usize) -> String {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(plan.join("merged.json")).unwrap()).unwrap();
    let cols = v["columns"].as_array().unwrap();
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == n)
        .unwrap();
    let obj: serde_json::Map<String, serde_json::Value> = cols
        .iter()
        .zip(row.as_array().unwrap())
        .map(|(c, x)| (c.as_str().unwrap().to_string(), x.clone()))
        .collect();
    serde_json::Value::Object(obj).to_string()
}

#[test]
fn mesh_grid_and_trace_axes_give_their_commands_numbers() {
    let dir = temp_dir("sweep-modes");
    // Mesh: contiguous and non-contiguous allocators × traffic ratio.
    let mesh = dir.join("mesh.json");
    std::fs::write(
        &mesh,
        r#"{"base": {"v": 2, "mode": "mesh", "experiment": {"workload": {"synthetic":
            {"model": "exponential_jobs", "jobs": 40}}, "width": 8, "height": 8, "seed": 2}},
            "axes": [{"key": "allocator", "values": ["mpl", "mc_elongated"]},
                     {"key": "traffic_io", "values": [0.2, 0.8]}]}"#,
    )
    .unwrap();
    let p = plan(&dir, &mesh, "mesh", &[]);
    ok(&["sweep", "run", s(&p)]);
    let (_, err) = ok(&["sweep", "merge", s(&p)]);
    assert!(err.contains("merged 4 of 4 points"), "{err}");
    let (out, _) = ok(&["mesh", s(&p.join("points/000003.json"))]);
    let brief: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 3)).unwrap();
    assert_eq!(row["allocator"], "mc_elongated");
    assert_eq!(row["traffic_io"], 0.8);
    assert_eq!(row["mean_wait"], brief["summary"]["mean_wait"]);
    assert_eq!(row["mesh.mean_service"], brief["mesh"]["mean_service"]);

    // Grid: the local policy.
    let grid = dir.join("grid.json");
    std::fs::write(
        &grid,
        r#"{"base": {"v": 2, "mode": "grid", "experiment": {"sites": [
              {"name": "A", "procs": 64, "workload": {"synthetic": {"model": "lublin", "jobs": 200, "procs": 64}}},
              {"name": "B", "procs": 64, "tz_offset_hours": 6, "workload": {"synthetic": {"model": "lublin", "jobs": 200, "procs": 64}}}],
              "policy": "easy", "seed": 1}},
            "axes": [{"key": "policy", "values": ["easy", "conservative"]}]}"#,
    )
    .unwrap();
    let p = plan(&dir, &grid, "grid", &[]);
    ok(&["sweep", "run", s(&p)]);
    ok(&["sweep", "merge", s(&p)]);
    let (out, _) = ok(&["grid", "--json", s(&p.join("points/000001.json"))]);
    let cmp: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 1)).unwrap();
    assert_eq!(row["policy"], "conservative");
    assert_eq!(
        row["single.awrt"],
        cmp["runs"][0]["metrics"]["overall"]["awrt"]
    );
    assert_eq!(
        row["sharing.awrt"],
        cmp["runs"][1]["metrics"]["overall"]["awrt"]
    );
    assert_eq!(
        row["sharing.migrated"],
        cmp["runs"][1]["metrics"]["migrated"]
    );

    // A trace axis: paths relative to the sweep file, made absolute in the point files.
    std::fs::write(dir.join("small.swf"), SMALL_SWF).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("sub/small2.swf"),
        SMALL_SWF.replace(" 30 4 ", " 9 4 "),
    )
    .unwrap();
    let traces = dir.join("traces.json");
    std::fs::write(
        &traces,
        r#"{"base": {"v": 2, "mode": "flat", "experiment": {"workload": {"swf": {"path": "small.swf"}}, "policy": "easy"}},
            "axes": [{"key": "trace", "values": ["small.swf", "sub/small2.swf"]}]}"#,
    )
    .unwrap();
    let p = plan(&dir, &traces, "traces", &[]);
    ok(&["sweep", "run", s(&p)]);
    ok(&["sweep", "merge", s(&p)]);
    let (out, _) = ok(&[
        "run",
        "--swf",
        s(&dir.join("small.swf")),
        "--policy",
        "easy",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 0)).unwrap();
    assert_eq!(row["trace"], "small.swf");
    assert_eq!(row["max_wait"], v["max_wait"]);
    assert_eq!(row["jobs"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn moldable_sweeps_give_schedlab_moldable_numbers() {
    let dir = temp_dir("sweep-moldable");
    let sweep = dir.join("moldable.json");
    // Strategy × σ × 2 replications = 8 points; the base has no `strategies` list.
    std::fs::write(
        &sweep,
        r#"{"name": "moldable", "base": {"v": 2, "mode": "moldable", "experiment": {
            "workload": {"synthetic": {"model": "lublin", "jobs": 80}},
            "transforms": {"load_factor": 1.25},
            "model": {"downey": {"sigma": 1.0, "range_factor": 2.0}},
            "strategy": "combined", "seed": 4}},
            "axes": [{"key": "strategy", "values": ["base", "combined"]},
                     {"key": "sigma", "values": [0.5, 2.0]}],
            "replications": 2}"#,
    )
    .unwrap();
    let p = plan(&dir, &sweep, "moldable", &[]);
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(
        err.contains("8 points: 0 already had a result, 8 run"),
        "{err}"
    );
    let (_, err) = ok(&["sweep", "merge", s(&p)]);
    assert!(err.contains("merged 8 of 8 points"), "{err}");
    let csv = std::fs::read_to_string(p.join("merged.csv")).unwrap();
    assert!(
        csv.starts_with(
            "point,strategy,sigma,replication,seed,jobs,dropped,mean_wait,max_wait,\
             mean_turnaround,mean_slowdown,mean_bounded_slowdown,utilization,makespan,awrt,\
             awwt,awsd,mean_procs_ratio,change.overall_pct,change.category_0_pct,"
        ),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 9);

    // Every point's metrics are what `schedlab moldable` prints for its point file.
    for n in 0..8 {
        let (out, _) = ok(&["moldable", s(&p.join(format!("points/{n:06}.json")))]);
        let brief: serde_json::Value = serde_json::from_str(&out).unwrap();
        let run = &brief["strategies"][0];
        let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, n)).unwrap();
        assert_eq!(row["strategy"], run["strategy"], "point {n}");
        assert_eq!(row["sigma"], brief["model"]["downey"]["sigma"], "point {n}");
        for (k, v) in run["summary"].as_object().unwrap() {
            assert_eq!(&row[k], v, "point {n}: {k}");
        }
        assert_eq!(row["mean_procs_ratio"], run["mean_procs_ratio"]);
        let change = &run["change_vs_rigid_conservative"];
        assert_eq!(
            row["change.overall_pct"], change["overall_pct"],
            "point {n}"
        );
        for k in 0..10 {
            assert_eq!(
                row[format!("change.category_{k}_pct")],
                change["categories_pct"][k],
                "point {n}: category {k}"
            );
        }
    }

    // Point 5 (combined, σ = 0.5, replication 1) is the hand-written experiment with the
    // replication's seed, run by `schedlab moldable --strategy combined`.
    let seed = schedlab::sweep::replica_seed(4, 1);
    let exp = dir.join("by-hand.json");
    std::fs::write(
        &exp,
        format!(
            r#"{{"workload": {{"synthetic": {{"model": "lublin", "jobs": 80}}}},
                "transforms": {{"load_factor": 1.25}},
                "model": {{"downey": {{"sigma": 0.5, "range_factor": 2.0}}}},
                "strategy": "base", "seed": {seed}}}"#
        ),
    )
    .unwrap();
    let (out, _) = ok(&["moldable", s(&exp), "--strategy", "combined"]);
    let brief: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 5)).unwrap();
    assert_eq!(row["strategy"], "combined");
    assert_eq!(row["sigma"], 0.5);
    assert_eq!(row["replication"], 1);
    assert_eq!(row["seed"], seed);
    let run = &brief["strategies"][0];
    assert_eq!(row["mean_turnaround"], run["summary"]["mean_turnaround"]);
    assert_eq!(row["awrt"], run["summary"]["awrt"]);
    assert_eq!(
        row["change.overall_pct"],
        run["change_vs_rigid_conservative"]["overall_pct"]
    );
    assert!(row["mean_turnaround"].as_f64().unwrap() > 0.0);

    // A base comparing several strategies is refused: make them an axis.
    let several = std::fs::read_to_string(&sweep).unwrap().replace(
        "\"strategy\": \"combined\", \"seed\": 4}",
        "\"strategy\": \"combined\", \"seed\": 4}, \"strategies\": [\"base\", \"combined\"]",
    );
    std::fs::write(&sweep, several).unwrap();
    let (code, _, err) = schedlab(&["sweep", "plan", s(&sweep), "--out", s(&dir.join("x"))]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "base.strategies: a sweep point runs one experiment: make the strategies \
             an axis ({\"key\": \"strategy\""
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The error of point `n`'s result file.
fn point_error(plan: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(plan.join(format!("results/{n:06}.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["error"].as_str().unwrap_or("").to_string()
}

#[test]
fn limit_flags_apply_to_every_point() {
    let dir = temp_dir("sweep-limits");
    // Lowered by `sweep run --max-jobs`: the 50-job point fails naming the limit, and a run
    // without the flag computes it.
    let sweep = dir.join("jobs.json");
    std::fs::write(
        &sweep,
        r#"{"base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
            {"model": "lublin", "jobs": 20}}, "policy": "easy", "seed": 1}},
            "axes": [{"key": "jobs", "values": [20, 50]}]}"#,
    )
    .unwrap();
    let p = plan(&dir, &sweep, "jobs", &[]);
    let (code, _, err) = schedlab(&["sweep", "run", s(&p), "--max-jobs", "30"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("2 points: 0 already had a result, 2 run"),
        "{err}"
    );
    assert!(err.contains("1 points failed: 1"), "{err}");
    assert_eq!(
        point_error(&p, 1),
        "experiment: workload.synthetic.jobs: 50 is above the limit max_jobs = 30 (the command \
         line can raise it with --max-jobs)"
    );
    assert_eq!(point_error(&p, 0), "");
    let (code, _, err) = schedlab(&["sweep", "merge", s(&p)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("merged 1 of 2 points; point 1 failed: experiment: workload.synthetic.jobs: 50 is above"),
        "{err}"
    );
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(
        err.contains("2 points: 1 already had a result, 1 run"),
        "{err}"
    );
    ok(&["sweep", "merge", s(&p)]);
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 1)).unwrap();
    assert_eq!(row["jobs"], 50);

    // Raised by `sweep plan --max-load-factor`: recorded in the plan, used by every run.
    let sweep = dir.join("lf.json");
    std::fs::write(
        &sweep,
        r#"{"base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
            {"model": "lublin", "jobs": 30}}, "policy": "fcfs", "seed": 2}},
            "axes": [{"key": "load_factor", "values": [1.0, 1500]}]}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["sweep", "plan", s(&sweep), "--out", s(&dir.join("no"))]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "{}: point 1 (load_factor = 1500, replication 0): axis load_factor = 1500 (key \
             transforms.load_factor): must be a number ≥ 0.001 and ≤ 1000 (got 1500)",
            sweep.display()
        )),
        "{err}"
    );
    let p = plan(&dir, &sweep, "lf", &["--max-load-factor", "2000"]);
    let manifest = std::fs::read_to_string(p.join("sweep-plan.json")).unwrap();
    assert!(
        manifest.contains("\"limits\":{\"max_jobs\":1000000,")
            && manifest.contains("\"max_load_factor\":2000.0}"),
        "{manifest}"
    );
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(
        err.contains("2 points: 0 already had a result, 2 run"),
        "{err}"
    );
    ok(&["sweep", "merge", s(&p)]);
    let point = p.join("points/000001.json");
    let (code, _, err) = schedlab(&["run", s(&point)]);
    assert_eq!(code, 2);
    assert!(err.contains("≤ 1000 (got 1500)"), "{err}");
    let (out, _) = ok(&["run", s(&point), "--max-load-factor", "2000"]);
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&p, 1)).unwrap();
    assert_eq!(row["load_factor"], 1500);
    for (k, v) in summary.as_object().unwrap() {
        assert_eq!(&row[k], v, "{k}");
    }
    // A mesh base (its allocator list made by the envelope's rule) under the raised limit.
    let mesh = dir.join("mesh.json");
    std::fs::write(
        &mesh,
        r#"{"base": {"v": 2, "mode": "mesh", "experiment": {"workload": {"synthetic":
            {"model": "exponential_jobs", "jobs": 30}}, "width": 8, "height": 8, "seed": 2,
            "transforms": {"load_factor": 1500}}}, "axes": [{"key": "allocator", "values": ["mpl", "mbs"]}]}"#,
    )
    .unwrap();
    let (code, _, err) = schedlab(&["sweep", "plan", s(&mesh), "--out", s(&dir.join("no"))]);
    assert_eq!(code, 2);
    assert!(
        err.contains("base: ") && err.contains("(got 1500)"),
        "{err}"
    );
    let pm = plan(&dir, &mesh, "mesh", &["--max-load-factor", "2000"]);
    ok(&["sweep", "run", s(&pm)]);
    ok(&["sweep", "merge", s(&pm)]);
    let (out, _) = ok(&[
        "mesh",
        s(&pm.join("points/000001.json")),
        "--max-load-factor",
        "2000",
    ]);
    let brief: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row: serde_json::Value = serde_json::from_str(&merged_json_row(&pm, 1)).unwrap();
    assert_eq!(row["allocator"], "mbs");
    assert_eq!(row["mean_wait"], brief["summary"]["mean_wait"]);
    assert_eq!(row["mesh.mean_service"], brief["mesh"]["mean_service"]);

    // A run's own flags override the plan's.
    std::fs::remove_file(p.join("results/000001.json")).unwrap();
    let (code, _, err) = schedlab(&["sweep", "run", s(&p), "--max-load-factor", "1000"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        point_error(&p, 1),
        "experiment: transforms.load_factor: must be a number ≥ 0.001 and ≤ 1000 (got 1500)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn result_files(plan: &Path) -> Vec<(String, SystemTime, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(plan.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::metadata(&p).unwrap().modified().unwrap(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_killed_run_resumes_and_damaged_results_are_recomputed() {
    let dir = temp_dir("sweep-resume");
    let sweep = dir.join("sweep.json");
    // Conservative backfilling on 3000 jobs: long enough per point to be killed mid-run.
    std::fs::write(
        &sweep,
        r#"{"base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
            {"model": "lublin", "jobs": 3000}}, "policy": "conservative", "seed": 1}},
            "axes": [{"key": "load_factor", "from": 1.0, "to": 1.5, "step": 0.1}],
            "replications": 5}"#,
    )
    .unwrap();
    let reference = plan(&dir, &sweep, "reference", &[]);
    ok(&["sweep", "run", s(&reference)]);
    let want = merged(&reference);

    let p = plan(&dir, &sweep, "killed", &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["sweep", "run", s(&p), "--jobs", "1"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while result_files(&p).len() < 3 {
        assert!(t0.elapsed() < Duration::from_secs(120), "no results appear");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = result_files(&p);
    assert!(before.len() < 30, "the run finished before it was killed");

    // Merging now names the missing points, exit code 2.
    let (code, _, err) = schedlab(&["sweep", "merge", s(&p)]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("merged {} of 30 points; missing: ", before.len())),
        "{err}"
    );

    // Resume: the finished points are skipped, not recomputed (same bytes, same times).
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(
        err.contains(&format!(
            "30 points: {} already had a result, {} run",
            before.len(),
            30 - before.len()
        )),
        "{err}"
    );
    let after = result_files(&p);
    assert_eq!(after.len(), 30);
    for b in &before {
        assert!(after.contains(b), "{} was recomputed", b.0);
    }
    assert_eq!(merged(&p), want);

    // Damage: a cut file, an edited number, another point's result, garbage.
    let r = p.join("results");
    let cut = std::fs::read_to_string(r.join("000002.json")).unwrap();
    std::fs::write(r.join("000002.json"), &cut[..cut.len() / 2]).unwrap();
    let text = std::fs::read_to_string(r.join("000007.json")).unwrap();
    let at = text.find("\"mean_wait\",").unwrap() + 12;
    let digit = text.as_bytes()[at];
    let edited = format!(
        "{}{}{}",
        &text[..at],
        if digit == b'9' { '8' } else { '9' },
        &text[at + 1..]
    );
    std::fs::write(r.join("000007.json"), edited).unwrap();
    std::fs::copy(r.join("000011.json"), r.join("000012.json")).unwrap();
    std::fs::write(r.join("000020.json"), [0xff, 0xfe, 0]).unwrap();
    let (code, _, err) = schedlab(&["sweep", "merge", s(&p)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("damaged results (run `schedlab sweep run` again): 2, 7, 12, 20"),
        "{err}"
    );
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(
        err.contains("30 points: 26 already had a result, 4 run (4 of them had a damaged result)"),
        "{err}"
    );
    assert_eq!(merged(&p), want);

    // Planning the same sweep again keeps the results; a changed sweep invalidates them.
    plan(&dir, &sweep, "killed", &[]);
    let (_, err) = ok(&["sweep", "run", s(&p)]);
    assert!(err.contains("30 already had a result, 0 run"), "{err}");
    let changed = std::fs::read_to_string(&sweep)
        .unwrap()
        .replace("\"seed\": 1", "\"seed\": 2");
    std::fs::write(&sweep, changed).unwrap();
    plan(&dir, &sweep, "killed", &[]);
    let (_, err) = ok(&["sweep", "run", s(&p), "--points", "0-4"]);
    assert!(
        err.contains("5 points: 0 already had a result, 5 run (5 of them"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sweeps_are_refused_naming_the_file_and_key() {
    let dir = temp_dir("sweep-errors");
    let sweep = dir.join("bad.json");
    let out = dir.join("out");
    let check = |text: &str, want: &str| {
        std::fs::write(&sweep, text).unwrap();
        let (code, _, err) = schedlab(&["sweep", "plan", s(&sweep), "--out", s(&out)]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("{}: ", sweep.display())), "{err}");
        assert!(err.contains(want), "want {want:?} in {err}");
    };
    let good = flat_sweep(100);
    check(
        &good.replace("\"step\": 0.2", "\"step\": 0"),
        "axes[1].step: must be a number > 0",
    );
    check(
        &good.replace("\"axes\"", "\"axis\""),
        "unknown field `axis`",
    );
    check(
        &good.replace("\"fcfs\"", "\"sjf\""),
        "point 0 (policy = \"sjf\", load_factor = 0.8, replication 0): axis policy = \"sjf\": \
         unknown policy \"sjf\"",
    );
    check(
        &good.replace(
            "\"step\": 0.2}",
            "\"step\": 0.2}, {\"key\": \"jobs\", \"values\": [0]}",
        ),
        "point 0 (policy = \"fcfs\", load_factor = 0.8, jobs = 0, replication 0): axis jobs = 0 \
         (key workload.synthetic.jobs): ",
    );
    check(
        &good.replace("\"jobs\": 100", "\"jobs\": 5000000"),
        "max_jobs",
    );
    check(
        &good.replace("\"replications\": 2", "\"replications\": 20000"),
        "max_sweep_file_points = 100000",
    );
    check(
        &good.replace("\"mode\": \"flat\"", "\"mode\": \"quantum\""),
        "base: mode: unknown mode",
    );
    let (code, _, err) = schedlab(&["sweep", "run", s(&dir.join("nowhere"))]);
    assert_eq!(code, 2);
    assert!(err.contains("sweep-plan.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
