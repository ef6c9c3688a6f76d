//! `schedlab grid` (Ernemann et al., the Grid mode's comparison on the command line): `--json`
//! prints exactly `modes::grid::run::run_comparison` of the file, trace paths are read relative to
//! the file, and bad files exit with code 2 and a message naming the problem.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::{schedlab, temp_dir};
use schedlab::modes::flat::spec::ExperimentFile;
use schedlab::modes::grid::run::{run_comparison, GridComparison};
use schedlab::modes::grid::GridExperiment;

const SMALL_SWF: &str = "\
; Version: 2.2
; MaxProcs: 8 (test machine)
; UnixStartTime: 0
1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 -1 -1 -1 -1
3 2 -1 3 2 -1 -1 2 4 -1 1 2 1 -1 -1 -1 -1 -1
5 3 -1 30 4 -1 -1 4 10 -1 1 2 1 -1 -1 -1 -1 -1
";

const GRID: &str = r#"{"sites": [
  {"name": "Synth", "procs": 16, "tz_offset_hours": 0,
   "workload": {"synthetic": {"model": "lublin", "jobs": 300, "procs": 16}}},
  {"name": "Trace", "tz_offset_hours": 6, "align_monday": false,
   "workload": {"swf": {"path": "small.swf"}}}],
 "policy": "conservative", "seed": 3}"#;

#[test]
fn grid_json_equals_run_comparison() {
    let dir = temp_dir("grid-cli-json");
    std::fs::write(dir.join("small.swf"), SMALL_SWF).expect("write trace");
    let file = dir.join("grid.json");
    std::fs::write(&file, GRID).expect("write grid");
    let path = file.display().to_string();
    let (code, out, err) = schedlab(&["grid", &path, "--json"]);
    assert_eq!(code, 0, "{err}");
    let cli: GridComparison = serde_json::from_str(&out).expect("comparison JSON");
    let exp = GridExperiment::from_json(GRID).expect("grid parses");
    let direct = run_comparison(&exp, |i| {
        (i == 1).then(|| {
            (
                "small.swf".to_string(),
                Box::new(SMALL_SWF.as_bytes()) as Box<dyn std::io::Read>,
            )
        })
    })
    .expect("comparison runs");
    assert_eq!(cli.runs.len(), 2);
    for (a, b) in cli.runs.iter().zip(&direct.runs) {
        assert_eq!(a.sharing, b.sharing);
        assert_eq!(a.metrics, b.metrics);
        assert!(a.violations.is_empty());
    }
    let (code, text, _) = schedlab(&["grid", &path]);
    assert_eq!(code, 0);
    assert!(
        text.contains("Single sites") && text.contains("Job sharing") && text.contains("AWRT %")
    );
}

#[test]
fn bad_grid_files_exit_2_naming_the_problem() {
    let dir = temp_dir("grid-cli-bad");
    let file = dir.join("grid.json");
    std::fs::write(&file, GRID).expect("write grid");
    let path = file.display().to_string();
    // The trace is missing.
    let (code, _, err) = schedlab(&["grid", &path]);
    assert_eq!(code, 2);
    assert!(err.contains("small.swf"), "{err}");
    // A machine of 0 nodes.
    std::fs::write(
        &file,
        GRID.replace("\"procs\": 16, \"tz", "\"procs\": 0, \"tz"),
    )
    .expect("write grid");
    let (code, _, err) = schedlab(&["grid", &path]);
    assert_eq!(code, 2);
    assert!(err.contains("sites[0].procs"), "{err}");
}

/// A reader that counts the bytes read through it.
struct Counted<'a> {
    text: &'a [u8],
    read: &'a std::cell::Cell<usize>,
}

impl std::io::Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::Read::read(&mut self.text, buf)?;
        self.read.set(self.read.get() + n);
        Ok(n)
    }
}

#[test]
fn sites_sharing_a_trace_read_it_once_with_the_same_results() {
    let site = |name: &str, tz: i32, path: &str| {
        format!(
            r#"{{"name": "{name}", "tz_offset_hours": {tz}, "align_monday": false,
                "workload": {{"swf": {{"path": "{path}"}}}}}}"#
        )
    };
    let grid = |paths: [&str; 3]| {
        format!(
            r#"{{"sites": [{}, {}, {}], "policy": "easy", "seed": 1}}"#,
            site("A", 0, paths[0]),
            site("B", 6, paths[1]),
            site("C", -9, paths[2])
        )
    };
    let shared = GridExperiment::from_json(&grid(["t.swf"; 3])).expect("grid parses");
    let copies = GridExperiment::from_json(&grid(["a.swf", "b.swf", "c.swf"])).expect("parses");
    let text = SMALL_SWF.as_bytes();
    let read = std::cell::Cell::new(0);
    let run = |exp: &GridExperiment| {
        read.set(0);
        let cmp = run_comparison(exp, |i| {
            Some((
                format!("site {i}"),
                Box::new(Counted { text, read: &read }) as Box<dyn std::io::Read>,
            ))
        })
        .expect("comparison runs");
        (cmp, read.get())
    };
    let (a, read_shared) = run(&shared);
    let (b, read_copies) = run(&copies);
    // Each configuration (single sites, job sharing) prepares its sites: the shared trace is
    // read once for the three sites, the three copies once each.
    assert_eq!(read_shared, 2 * SMALL_SWF.len());
    assert_eq!(read_copies, 2 * 3 * SMALL_SWF.len());
    for (x, y) in a.runs.iter().zip(&b.runs) {
        assert_eq!(x.metrics, y.metrics);
        assert_eq!(x.alignment, y.alignment);
        assert!(x.violations.is_empty());
    }
}
