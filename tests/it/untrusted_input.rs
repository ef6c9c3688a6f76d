//! Untrusted input, one regression test per case found: every input that used to panic, abort, exhaust
//! memory or hang now gives a clear error (exit code 2, naming the limit and the value, the
//! file or the stream), or for a closed pipe a quiet exit. The limits live in
//! `schedlab::limits`; these tests go through the binary where the issue did, and through the
//! library (share links, readers) where the web app does.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use schedlab::modes::flat::spec::ExperimentFile;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{schedlab, temp_dir};
use flate2::write::GzEncoder;
use flate2::Compression;
use schedlab::limits::{Limits, MAX_INFLATED_BYTES, MAX_JOBS};
use schedlab::modes::flat::link::{pack_fragment, ShareState};
use schedlab::modes::flat::spec::Experiment;
use schedlab::modes::grid::link::GridShare;
use schedlab::modes::grid::GridExperiment;
use schedlab::modes::mesh::link::MeshShare;
use schedlab::modes::mesh::spec::MeshExperiment;
use schedlab::workload::swf::{read_swf, ReadOptions, SwfErrorKind};

const SMALL_SWF: &str = "\
; Version: 2.2
; MaxProcs: 8 (test machine)
1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 3 2 -1 -1 2 4 -1 1 2 1 -1 -1 -1 -1 -1
";

/// A valid data line (45 bytes).
const LINE: &str = "1 0 0 1 1 -1 -1 1 1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";

/// Job counts of the issue: 2^64 − 1, 10^8, 2^32.
const HUGE_JOBS: [&str; 3] = ["18446744073709551615", "100000000", "4294967296"];

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write test file");
    p
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// No panic (exit 101), no abort or kill (no exit code): the process ended on its own terms.
fn assert_no_crash(code: i32, stderr: &str) {
    assert!(code == 0 || code == 2, "exit code {code}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `copies` gzip members of `member_bytes` of `unit` repeated: a few MB on disk that inflate to
/// `copies × member_bytes` (the reader reads multi-member gzip).
fn gzip_bomb(path: &Path, unit: &str, member_bytes: usize, copies: usize) -> u64 {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let reps = member_bytes / unit.len();
    for _ in 0..reps {
        enc.write_all(unit.as_bytes()).expect("gzip to memory");
    }
    let member = enc.finish().expect("gzip to memory");
    let mut f = File::create(path).expect("bomb file");
    for _ in 0..copies {
        f.write_all(&member).expect("write bomb");
    }
    (reps * unit.len() * copies) as u64
}

// ---------------------------------------------------------------- closed and full streams

/// Spawns `schedlab args` with its stdout read end closed at once (`| head -c0`).
fn run_with_closed_stdout(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    drop(child.stdout.take());
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let code = child.wait().expect("exits").code().unwrap_or(-1);
    (code, stderr)
}

fn run_with_stdout_to(args: &[&str], stdout: File, stderr: Stdio) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn grid_file(dir: &Path) -> PathBuf {
    write(
        dir,
        "grid.json",
        r#"{"sites": [{"procs": 32, "workload": {"synthetic": {"model": "lublin", "jobs": 50, "procs": 32}}},
                      {"procs": 32, "tz_offset_hours": 6, "workload": {"synthetic": {"model": "lublin", "jobs": 50, "procs": 32}}}],
            "policy": "easy", "seed": 1}"#,
    )
}

#[test]
fn closed_stdout_is_a_quiet_exit() {
    let dir = temp_dir("closed-stdout");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    let grid = grid_file(&dir);
    for args in [
        vec!["run", "--swf", s(&swf)],
        vec!["grid", s(&grid), "--json"],
        vec!["grid", s(&grid)],
    ] {
        let (code, stderr) = run_with_closed_stdout(&args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // A subcommand that still prints with println! (its warnings go to stderr).
    let (code, stderr) =
        run_with_closed_stdout(&["reproduce", "grid-sharing", "--traces", "/none"]);
    assert_eq!(code, 0, "{stderr}");
    assert_no_crash(code, &stderr);
}

#[test]
fn full_stdout_or_stderr_is_a_clear_error_not_a_panic() {
    let dir = temp_dir("dev-full");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    let grid = grid_file(&dir);
    let full = || File::create("/dev/full").expect("/dev/full exists on Linux");
    for args in [
        vec!["run", "--swf", s(&swf)],
        vec!["grid", s(&grid), "--json"],
        vec!["reproduce", "grid-sharing", "--traces", "/none"],
    ] {
        let (code, stderr) = run_with_stdout_to(&args, full(), Stdio::piped());
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("stdout: cannot write: No space left on device"),
            "{args:?}: {stderr}"
        );
        // stdout and stderr both full: nowhere to report, but still exit 2 without a panic.
        let (code, _) = run_with_stdout_to(&args, full(), Stdio::from(full()));
        assert_eq!(code, 2, "{args:?}");
    }
    // An error message to a full stderr.
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", "--swf", "/nonexistent.swf"])
        .stderr(full())
        .output()
        .expect("binary runs");
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------- job limits

#[test]
fn huge_synthetic_job_counts_are_refused_naming_the_limit() {
    let dir = temp_dir("huge-jobs");
    for jobs in HUGE_JOBS {
        let flat = write(
            &dir,
            "flat.json",
            &format!(
                r#"{{"workload": {{"synthetic": {{"model": "lublin", "jobs": {jobs}}}}}, "policy": "easy"}}"#
            ),
        );
        let (code, _, stderr) = schedlab(&["run", s(&flat)]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "workload.synthetic.jobs: {jobs} is above the limit max_jobs = {MAX_JOBS}"
            )),
            "{stderr}"
        );
        for model in ["mesh_jobs", "exponential_jobs"] {
            let mesh = write(
                &dir,
                "mesh.json",
                &format!(
                    r#"{{"workload": {{"synthetic": {{"model": "{model}", "jobs": {jobs}}}}}, "width": 32, "height": 32}}"#
                ),
            );
            let (code, _, stderr) = schedlab(&["mesh", s(&mesh)]);
            assert_eq!(code, 2, "{stderr}");
            assert!(stderr.contains("is above the limit max_jobs"), "{stderr}");
        }
        let grid = write(
            &dir,
            "grid.json",
            &format!(
                r#"{{"sites": [{{"workload": {{"synthetic": {{"model": "lublin", "jobs": {jobs}}}}}}}], "policy": "easy"}}"#
            ),
        );
        let (code, _, stderr) = schedlab(&["grid", s(&grid)]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("sites[0].workload.synthetic.jobs") && stderr.contains("max_jobs"),
            "{stderr}"
        );
    }
}

#[test]
fn limit_flags_reach_the_core() {
    let dir = temp_dir("limit-flags");
    let flat = write(
        &dir,
        "flat.json",
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 10}}, "policy": "easy"}"#,
    );
    let (code, _, stderr) = schedlab(&["run", s(&flat), "--max-jobs", "5"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("10 is above the limit max_jobs = 5"),
        "{stderr}"
    );
    let (code, _, stderr) = schedlab(&["run", s(&flat), "--max-jobs", "10"]);
    assert_eq!(code, 0, "{stderr}");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&swf), "--max-inflated-bytes", "64"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("input larger than the limit max_inflated_bytes = 64 bytes"),
        "{stderr}"
    );
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&swf), "--max-trace-jobs", "2"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("small.swf:5: more job lines than the limit max_trace_jobs = 2"),
        "{stderr}"
    );
    // Raising a limit lets a larger job count through validation (not run here).
    let big: Experiment = schedlab::modes::flat::spec::parse_json(
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 2000000}}, "policy": "easy"}"#,
    )
    .expect("parses");
    assert!(big.validate().is_err());
    let raised = Limits {
        max_jobs: 2_000_000,
        ..Limits::DEFAULT
    };
    assert_eq!(big.validate_with(&raised), Ok(()));
}

#[test]
fn web_and_cli_agree_on_the_load_factor_range() {
    let dir = temp_dir("load-factor");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&swf), "--load-factor", "5000"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("transforms.load_factor: must be a number ≥ 0.001 and ≤ 1000 (got 5000)"),
        "{stderr}"
    );
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&swf), "--load-factor", "1000"]);
    assert_eq!(code, 0, "{stderr}");
}

// ---------------------------------------------------------------- share links

fn flat_link(jobs: &str) -> String {
    let json = format!(
        r#"{{"v": 1, "experiment": {{"workload": {{"synthetic": {{"model": "lublin", "jobs": {jobs}}}}}, "policy": "easy"}}}}"#
    );
    pack_fragment("x=", &json)
}

#[test]
fn share_links_of_every_kind_check_the_job_limit() {
    for jobs in HUGE_JOBS {
        let e = ShareState::from_fragment(&flat_link(jobs)).unwrap_err();
        assert!(e.contains("is above the limit max_jobs"), "{e}");
        let mesh = format!(
            r#"{{"v": 1, "experiment": {{"workload": {{"synthetic": {{"model": "mesh_jobs", "jobs": {jobs}}}}}, "width": 32, "height": 32}}, "allocators": ["mpl"]}}"#
        );
        let e = MeshShare::from_fragment(&pack_fragment("m=", &mesh)).unwrap_err();
        assert!(e.starts_with("Jobs: ") && e.contains("max_jobs"), "{e}");
        let grid = format!(
            r#"{{"v": 1, "experiment": {{"sites": [{{"workload": {{"synthetic": {{"model": "lublin", "jobs": {jobs}}}}}}}], "policy": "easy"}}}}"#
        );
        let e = GridShare::from_fragment(&pack_fragment("g=", &grid)).unwrap_err();
        assert!(e.0.contains("max_jobs"), "{e}");
    }
    assert!(ShareState::from_fragment(&flat_link("1000000")).is_ok());
    // A sweep above the point limit, a mesh above the side limit, a grid above the site and
    // total-job limits.
    let sweep = r#"{"v": 1, "experiment": {"workload": {"synthetic": {"model": "lublin"}}, "policy": "easy"}, "sweep": {"from": 0.001, "to": 1000, "step": 0.001}}"#;
    let e = ShareState::from_fragment(&pack_fragment("x=", sweep)).unwrap_err();
    assert!(e.contains("at most 50"), "{e}");
    let mesh = r#"{"v": 1, "experiment": {"workload": {"synthetic": {"model": "mesh_jobs"}}, "width": 100000, "height": 32}, "allocators": ["mpl"]}"#;
    let e = MeshShare::from_fragment(&pack_fragment("m=", mesh)).unwrap_err();
    assert!(e.contains("Width W: must be between 1 and 256"), "{e}");
    let site = r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 1000000}}}"#;
    let grid = format!(
        r#"{{"v": 1, "experiment": {{"sites": [{site}, {site}, {site}], "policy": "easy"}}}}"#
    );
    let e = GridShare::from_fragment(&pack_fragment("g=", &grid)).unwrap_err();
    assert!(
        e.0.contains(
            "sites: 3 sites × 3000000 jobs: 9000000 is above the limit max_grid_cells = 8388608"
        ),
        "{e}"
    );
}

#[test]
fn mesh_and_grid_experiments_check_their_limits() {
    let e = MeshExperiment::from_json(
        r#"{"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 100000000}}, "width": 32, "height": 32}"#,
    )
    .unwrap_err();
    assert_eq!(e.key, "workload.synthetic.jobs");
    let sites = vec![r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 10}}}"#; 65];
    let e = GridExperiment::from_json(&format!(
        r#"{{"sites": [{}], "policy": "easy"}}"#,
        sites.join(",")
    ))
    .unwrap_err();
    assert_eq!(e.key, "sites");
    assert!(e.message.contains("needs 1 to 64 sites (got 65)"), "{e}");
}

// ---------------------------------------------------------------- gzip bombs and devices

#[test]
fn gzip_bombs_are_refused_in_bounded_work() {
    let dir = temp_dir("gzip-bomb");
    // Comment lines only, 5 GiB inflated: stopped at max_inflated_bytes, header kept ≤ 1 MiB.
    let comments = dir.join("comments.swf.gz");
    let inflated = gzip_bomb(&comments, &format!("; {}\n", "x".repeat(60)), 64 << 20, 80);
    assert!(inflated > 5 * (1 << 30) - (1 << 26));
    let size = std::fs::metadata(&comments).expect("bomb").len();
    assert!(
        inflated / size > 300,
        "a bomb: {size} bytes inflate to {inflated}"
    );
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&comments)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "input larger than the limit max_inflated_bytes = {MAX_INFLATED_BYTES} bytes"
        )),
        "{stderr}"
    );
    // Valid job lines: stopped at max_trace_jobs long before the byte limit.
    let jobs = dir.join("jobs.swf.gz");
    gzip_bomb(&jobs, LINE, 64 << 20, 80);
    let (code, _, stderr) = schedlab(&["run", "--swf", s(&jobs)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("more job lines than the limit max_trace_jobs = 2000000"),
        "{stderr}"
    );
    // The same refusal where the web worker reads (bytes in memory, default limits).
    let opts = ReadOptions::limited("jobs.swf.gz", false, &Limits::DEFAULT);
    let e = read_swf(File::open(&jobs).expect("bomb"), &opts).unwrap_err();
    assert_eq!(e.kind, SwfErrorKind::TooManyJobs { limit: 2_000_000 });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn devices_as_inputs_fail_fast() {
    let dir = temp_dir("devices");
    for dev in ["/dev/zero", "/dev/urandom"] {
        for cmd in ["run", "mesh", "grid"] {
            let (code, _, stderr) = schedlab(&[cmd, dev]);
            assert_eq!(code, 2, "{cmd} {dev}: {stderr}");
            assert!(
                stderr.contains(&format!(
                    "{dev}: not an experiment file: larger than the limit max_document_bytes = \
                     16777216 bytes"
                )),
                "{cmd} {dev}: {stderr}"
            );
        }
        let (code, _, stderr) = schedlab(&["run", "--swf", dev]);
        assert_eq!(code, 2, "{dev}: {stderr}");
        assert_no_crash(code, &stderr);
        // Random bytes fail on whichever line first breaks a rule; zeros on the first.
        let want = if dev == "/dev/zero" {
            "/dev/zero:1: not an SWF file (binary data)"
        } else {
            "/dev/urandom:"
        };
        assert!(stderr.contains(want), "{stderr}");
    }
    // An experiment whose trace is /dev/zero.
    let exp = write(
        &dir,
        "zero.json",
        r#"{"workload": {"swf": {"path": "/dev/zero"}}, "policy": "easy"}"#,
    );
    let (code, _, stderr) = schedlab(&["run", s(&exp)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("/dev/zero:1: not an SWF file (binary data)"),
        "{stderr}"
    );
    let mesh = write(
        &dir,
        "zero-mesh.json",
        r#"{"workload": {"swf": {"path": "/dev/zero"}}, "width": 8, "height": 8}"#,
    );
    let (code, _, stderr) = schedlab(&["mesh", s(&mesh)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not an SWF file"), "{stderr}");
    let grid = write(
        &dir,
        "zero-grid.json",
        r#"{"sites": [{"workload": {"swf": {"path": "/dev/zero"}}}], "policy": "easy"}"#,
    );
    let (code, _, stderr) = schedlab(&["grid", s(&grid)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not an SWF file"), "{stderr}");
    assert_no_crash(code, &stderr);
}

#[test]
fn a_grid_of_64_sites_of_10000_jobs_is_refused_before_it_allocates() {
    let dir = temp_dir("grid-cells");
    let sites: Vec<String> = (0..64)
        .map(|i| {
            format!(
                r#"{{"procs": 128, "tz_offset_hours": {}, "workload": {{"synthetic": {{"model": "lublin", "jobs": 10000}}}}}}"#,
                i % 24
            )
        })
        .collect();
    let grid = write(
        &dir,
        "grid64.json",
        &format!(
            r#"{{"sites": [{}], "policy": "conservative", "seed": 1}}"#,
            sites.join(",")
        ),
    );
    let (code, _, stderr) = schedlab(&["grid", s(&grid)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "experiment: sites: 64 sites × 640000 jobs: 40960000 is above the limit \
             max_grid_cells = 8388608 (the command line can raise it with --max-grid-cells)"
        ),
        "{stderr}"
    );
}

// ---------------------------------------------------------------- strict documents

/// A document followed by garbage, a second document, a trailing `,` or a NUL byte is refused
/// naming the trailing data — for every command that reads a JSON file — and an array where
/// an object is meant is refused naming the key.
#[test]
fn trailing_data_and_arrays_for_objects_are_refused() {
    let dir = temp_dir("strict-json");
    let docs = [
        (
            "run",
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"}"#,
        ),
        (
            "mesh",
            r#"{"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 20, "width": 32, "height": 32}},
                "width": 32, "height": 32, "allocator": "mpl", "policy": "fcfs"}"#,
        ),
        (
            "grid",
            r#"{"sites": [{"name": "a", "procs": 32, "workload": {"synthetic": {"model": "lublin", "jobs": 20, "procs": 32}}}],
                "sharing": "job_sharing", "policy": "easy"}"#,
        ),
        (
            "moldable",
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20, "procs": 64}},
                "model": {"downey": {"sigma": 1.5, "range_factor": 2}}, "strategy": "combined"}"#,
        ),
        (
            "sweep",
            r#"{"version": 1, "base": {"v": 2, "mode": "flat", "experiment": {"workload":
                {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"}},
                "axes": [{"key": "policy", "values": ["fcfs", "easy"]}]}"#,
        ),
        (
            "open",
            r#"{"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"}}"#,
        ),
    ];
    for (command, doc) in docs {
        let args = |path: &Path| -> Vec<String> {
            match command {
                "sweep" => vec![
                    "sweep".into(),
                    "plan".into(),
                    s(path).into(),
                    "--out".into(),
                    s(&dir.join(format!(
                        "plan-{}",
                        path.file_stem().unwrap().to_string_lossy()
                    )))
                    .into(),
                ],
                _ => vec![command.into(), s(path).into()],
            }
        };
        let run = |path: &Path| {
            let a = args(path);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            schedlab(&a)
        };
        let good = write(&dir, &format!("{command}-good.json"), &format!("{doc}\n\n"));
        let (code, _, err) = run(&good);
        assert_eq!(code, 0, "{command}: {err}");
        for (i, junk) in [" garbage", "{\"a\": 1}", ",", "\0", "\n[]"]
            .into_iter()
            .enumerate()
        {
            let bad = write(
                &dir,
                &format!("{command}-bad{i}.json"),
                &format!("{doc}{junk}"),
            );
            let (code, _, err) = run(&bad);
            assert_eq!(code, 2, "{command} {junk:?}: {err}");
            assert!(
                err.contains("trailing data after the"),
                "{command} {junk:?}: {err}"
            );
        }
    }
    let flat_array = write(
        &dir,
        "flat-array.json",
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy",
            "machine": {"flat": []}}"#,
    );
    let (code, _, err) = schedlab(&["run", s(&flat_array)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("machine.flat: expected an object"), "{err}");
    // The library's readers, as the web app calls them.
    let text =
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"} x"#;
    assert!(Experiment::from_json(text).is_err());
    assert!(
        schedlab::modes::envelope::Envelope::from_document(&format!("{} x", docs[5].1))
            .unwrap_err()
            .contains("trailing data")
    );
}

/// An envelope with trailing junk, or nested deeper than the JSON reader goes, says so instead
/// of "has no mode".
#[test]
fn envelopes_say_what_is_wrong_instead_of_no_mode() {
    let dir = temp_dir("envelope-words");
    let env = r#"{"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy"}"#;
    let junk = write(&dir, "junk.json", &format!("{env}}} junk"));
    let nested = "[".repeat(126) + &"]".repeat(126);
    let deep = write(
        &dir,
        "deep.json",
        &format!("{env}, \"name\": {{\"x\": {nested}}}}}"),
    );
    let too_deep = write(
        &dir,
        "too-deep.json",
        &format!("{}{}", "[".repeat(200), "]".repeat(200)),
    );
    let not_json = write(&dir, "not-json.json", "{\"v\": 2, \"mode\": ");
    for (path, words) in [
        (&junk, "trailing data after the experiment envelope"),
        (&deep, "nested too deep"),
        (&too_deep, "nested too deep"),
        (&not_json, "not valid JSON"),
    ] {
        for command in ["open", "run"] {
            let (code, _, err) = schedlab(&[command, s(path)]);
            assert_eq!(code, 2, "{command} {}: {err}", path.display());
            if command == "open" || words != "not valid JSON" {
                assert!(err.contains(words), "{command} {}: {err}", path.display());
            }
            assert!(!err.contains("no \"mode\""), "{err}");
        }
    }
}

// ---------------------------------------------------------------- numbers that stay numbers

/// Values inside the old limits that broke the numbers (a load factor of 1e-320 gave `null`
/// means, 1e-300 a turnaround of 0, huge run times nulls, huge factors or means an engine
/// stopped as "a bug in schedlab") are validation errors naming the key or the trace line;
/// none of them says "bug in schedlab".
#[test]
fn values_that_would_break_the_numbers_are_validation_errors() {
    let dir = temp_dir("numbers");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    for lf in ["1e-320", "4.9e-324", "1e-300", "0.0009"] {
        let (code, out, err) = schedlab(&["run", "--swf", s(&swf), "--load-factor", lf]);
        assert_eq!(code, 2, "{lf}: {out}{err}");
        assert!(
            err.contains("transforms.load_factor: must be a number ≥ 0.001 and ≤ 1000"),
            "{lf}: {err}"
        );
    }
    let (code, out, err) = schedlab(&["run", "--swf", s(&swf), "--load-factor", "0.001"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("null"), "{out}");
    // The same through a share link.
    for lf in ["1e-320", "4.9e-324"] {
        let json = format!(
            r#"{{"v": 1, "experiment": {{"workload": {{"synthetic": {{"model": "lublin", "jobs": 20}}}}, "transforms": {{"load_factor": {lf}}}, "policy": "easy"}}}}"#
        );
        let e = ShareState::from_fragment(&pack_fragment("x=", &json)).unwrap_err();
        assert!(e.contains("load_factor"), "{e}");
    }
    let line = |run: &str, procs: &str, estimate: &str| {
        format!("; MaxProcs: 8\n1 0 -1 {run} {procs} -1 -1 {procs} {estimate} -1 1 1 1 -1 -1 -1 -1 -1\n{LINE}")
    };
    for (name, text, words) in [
        (
            "run.swf",
            line("1e308", "4", "1e308"),
            "field 4 (run time) is out of range: 1e308",
        ),
        (
            "estimate.swf",
            line("10", "4", "1e300"),
            "field 9 (requested time) is out of range",
        ),
        (
            "procs.swf",
            line("10", "18446744073709551615", "10"),
            "is out of range: 1.8446744073709552e19",
        ),
    ] {
        let p = write(&dir, name, &text);
        let (code, out, err) = schedlab(&["run", "--swf", s(&p)]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(words), "{name}: {err}");
        // Lenient reading skips the line; nothing is saturated and written back.
        let back = dir.join(format!("{name}.out"));
        let (code, out, err) =
            schedlab(&["run", "--swf", s(&p), "--lenient", "--swf-out", s(&back)]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(!out.contains("null"), "{out}");
        let written = std::fs::read_to_string(&back).unwrap();
        assert!(
            !written.contains("e19") && !written.contains("e308"),
            "{written}"
        );
    }
    let trace = write(
        &dir,
        "neg.swf",
        &format!("; MaxProcs: 64\n1 -10 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n{LINE}"),
    );
    let cases = [
        (
            "run",
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 30, "estimate_factor": 1e308}}, "policy": "easy"}"#,
            "estimate_factor",
        ),
        (
            "run",
            r#"{"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 30, "mean_run_time": 1e300}}, "policy": "easy"}"#,
            "mean_run_time",
        ),
        (
            "run",
            r#"{"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 30, "mean_interarrival": 1e308}}, "policy": "easy"}"#,
            "mean_interarrival",
        ),
        (
            "mesh",
            r#"{"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 30, "mean_interarrival": 1e308, "procs": 64}}, "width": 8, "height": 8, "allocator": "mc_elongated"}"#,
            "mean_interarrival",
        ),
        (
            "mesh",
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 30, "procs": 64, "estimate_factor": 1e308}}, "width": 8, "height": 8, "allocator": "mc_elongated"}"#,
            "estimate_factor",
        ),
        (
            "mesh",
            r#"{"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 30, "width": 8, "height": 8, "mean_service": 1e300}}, "width": 8, "height": 8, "allocator": "mpl", "policy": "fcfs"}"#,
            "mean_service",
        ),
        (
            "mesh",
            r#"{"workload": {"swf": {"path": "neg.swf"}}, "width": 8, "height": 8, "allocator": "mc_elongated"}"#,
            "submit time -10 is before 0",
        ),
        (
            "grid",
            r#"{"sites": [{"name": "a", "procs": 32, "workload": {"synthetic": {"model": "exponential_jobs", "jobs": 20, "procs": 32, "mean_run_time": 1e300}}}], "policy": "easy"}"#,
            "mean_run_time",
        ),
        (
            "moldable",
            r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20, "procs": 64, "estimate_factor": 1e308}}, "model": {"downey": {"sigma": 1.5, "range_factor": 2}}, "strategy": "combined"}"#,
            "estimate_factor",
        ),
    ];
    let _ = &trace;
    for (i, (command, doc, key)) in cases.into_iter().enumerate() {
        let p = write(&dir, &format!("case{i}.json"), doc);
        let (code, out, err) = schedlab(&[command, s(&p)]);
        assert_eq!(code, 2, "{command} {doc}: {out}{err}");
        assert!(err.contains(key), "{command} {doc}: {err}");
        assert!(!err.contains("bug in schedlab"), "{command} {doc}: {err}");
    }
}

// ---------------------------------------------------------------- words

/// Error messages repeat at most about 80 characters of a value: a 1 MB link, name or key,
/// a 300-digit number.
#[test]
fn error_messages_cap_what_they_repeat() {
    let dir = temp_dir("echo");
    let swf = write(&dir, "small.swf", SMALL_SWF);
    // A megabyte in files; 100,000 characters on the command line (one argument's limit).
    let huge = "x".repeat(1 << 20);
    let long_arg = "x".repeat(100_000);
    let key_doc = write(
        &dir,
        "key.json",
        &format!(
            r#"{{"workload": {{"synthetic": {{"model": "lublin", "jobs": 20}}}}, "policy": "easy", "{huge}": 1}}"#
        ),
    );
    let name_doc = write(
        &dir,
        "name.json",
        &format!(
            r#"{{"workload": {{"synthetic": {{"model": "lublin", "jobs": 20}}}}, "policy": "{huge}"}}"#
        ),
    );
    let digits = format!("1{}", "0".repeat(300));
    let cases: Vec<Vec<&str>> = vec![
        vec!["open", &long_arg],
        vec!["run", "--swf", s(&swf), "--policy", &long_arg],
        vec!["run", "--swf", s(&swf), "--load-factor", &digits],
        vec!["run", s(&key_doc)],
        vec!["run", s(&name_doc)],
    ];
    for args in cases {
        let (code, _, err) = schedlab(&args);
        assert_eq!(code, 2, "{}", &err[..err.len().min(300)]);
        assert!(
            err.chars().count() < 1000,
            "{} characters: {}",
            err.len(),
            &err[..300]
        );
    }
    let (_, _, err) = schedlab(&["run", "--swf", s(&swf), "--load-factor", &digits]);
    assert!(err.contains("(got 1e300)"), "{err}");
    let window = write(
        &dir,
        "window.json",
        r#"{"workload": {"synthetic": {"model": "lublin", "jobs": 20}}, "policy": "easy",
            "transforms": {"time_window": {"start": 0, "end": -1e300}}}"#,
    );
    let (code, _, err) = schedlab(&["run", s(&window)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("(got -1e300)"), "{err}");
}

/// A grid whose second site is shifted by a time zone, with exponential (non-integral) times,
/// used to print "invariant violations" and exit 0: the duration check compared end − start
/// with the duration, which differ in the last bit when start is not a whole number, while
/// the engine ends a job at exactly start + duration. It now runs clean; a real violation is
/// exit code 2.
#[test]
fn a_time_zone_shifted_grid_has_no_invariant_violation() {
    let dir = temp_dir("grid-shift");
    let grid = write(
        &dir,
        "grid.json",
        r#"{"sites": [{"name": "a", "procs": 32, "workload": {"synthetic": {"model": "lublin", "jobs": 40, "procs": 32}}},
            {"procs": 64, "tz_offset_hours": 6, "align_monday": false,
             "workload": {"synthetic": {"model": "exponential_jobs", "jobs": 30, "procs": 64}}}],
            "sharing": "job_sharing", "policy": "conservative", "seed": 2, "cut_to_shortest": true}"#,
    );
    for tz in ["6", "-10", "1e-300"] {
        let text = std::fs::read_to_string(&grid).unwrap().replace(
            "\"tz_offset_hours\": 6",
            &format!("\"tz_offset_hours\": {tz}"),
        );
        let p = write(&dir, &format!("grid-{tz}.json"), &text);
        let (code, _, err) = schedlab(&["grid", s(&p)]);
        assert_eq!(code, 0, "{tz}: {err}");
        assert!(!err.contains("invariant"), "{tz}: {err}");
    }
}
