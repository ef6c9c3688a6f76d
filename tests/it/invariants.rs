//! Invariants after every simulation on every trace in ../shared/traces ("Must show"):
//! capacity never exceeded, no job before its submit time, each kept job run exactly once for
//! min(run, estimate), FCFS starts non-decreasing in arrival order, EASY never delays the head's
//! reservation, conservative never delays any reservation.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use schedlab::policy::PolicyKind;
use schedlab::sim::{invariants, Simulation};
use schedlab::workload::swf::{read_swf, ReadOptions};

fn traces() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/traces"));
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(".swf.gz"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    if v.is_empty() {
        eprintln!(
            "notice: no traces in {} — trace invariants skipped",
            dir.display()
        );
    }
    v
}

#[test]
fn every_trace_every_policy_keeps_the_invariants() {
    for path in traces() {
        let file = std::fs::File::open(&path).expect("trace opens");
        let opts = ReadOptions {
            source: path.display().to_string(),
            ..ReadOptions::default()
        };
        let mut workload = read_swf(std::io::BufReader::new(file), &opts).expect("trace parses");
        let procs = workload
            .header
            .max_procs
            .or(workload.header.max_nodes)
            .expect("header has MaxProcs or MaxNodes") as u32;
        workload.fit_to_machine(procs);
        for kind in PolicyKind::ALL {
            let policy = kind.build(workload.jobs.len(), procs);
            let result = Simulation::new(workload.jobs.clone(), procs, policy)
                .run_to_end()
                .unwrap_or_else(|e| panic!("{}: {kind:?}: {e}", path.display()));
            let errors = invariants::check(&result, kind == PolicyKind::Fcfs);
            assert!(
                errors.is_empty(),
                "{} {kind:?}: {} violations, first: {:?}",
                path.display(),
                errors.len(),
                errors.first()
            );
            // Every reservation-giving policy must actually have given reservations.
            let promised = result.promised.iter().filter(|p| p.is_some()).count();
            match kind {
                PolicyKind::Fcfs => assert_eq!(promised, 0),
                PolicyKind::Conservative => assert_eq!(promised, result.jobs.len()),
                PolicyKind::Easy => {}
            }
        }
    }
}
