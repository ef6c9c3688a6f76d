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
