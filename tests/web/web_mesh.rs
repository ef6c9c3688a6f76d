//! wasm32 tests of the 2D-mesh mode, run in headless Chromium by `scripts/test.sh`: mesh share
//! links survive a round trip and damaged, future-version or invalid ones are refused with a
//! message naming the field; the worker's mesh messages survive JSON; the worker's mesh report
//! has the numbers of `run_mesh` (as `schedlab mesh` prints them) and caps the per-job data.
#![cfg(target_arch = "wasm32")]

use schedlab::alloc::NodeAllocatorKind;
use schedlab::form::mesh::experiments_for;
use schedlab::modes::mesh::presets::{preset_contention, preset_window};
use schedlab::modes::mesh::run::run_mesh;
use schedlab::modes::mesh::spec::MeshAllocatorKind;
use schedlab::policy::mesh::MeshPolicyKind;
use schedlab::web::mesh_page::{MeshShare, MESH_SHARE_VERSION};
use schedlab::web::mesh_worker;
use schedlab::web::protocol::{FromWorker, ToWorker, MAX_MESH_JOBS};
use schedlab::web::share::{base64url_encode, checksum};
use wasm_bindgen_test::wasm_bindgen_test;

fn share() -> MeshShare {
    MeshShare {
        v: MESH_SHARE_VERSION,
        experiment: preset_window(),
        allocators: vec![
            MeshAllocatorKind::default(),
            MeshAllocatorKind::Nodes(NodeAllocatorKind::McElongated),
        ],
        policy: None,
    }
}

fn pack(json: &str) -> String {
    format!(
        "#m={}.{}",
        base64url_encode(json.as_bytes()),
        checksum(json.as_bytes())
    )
}

#[wasm_bindgen_test]
fn share_link_round_trip() {
    let s = share();
    let f = s.to_fragment();
    assert!(f.starts_with("m="));
    assert_eq!(MeshShare::from_fragment(&f).unwrap(), Some(s.clone()));
    assert_eq!(
        MeshShare::from_fragment(&format!("#{f}")).unwrap(),
        Some(s.clone())
    );
    // Not a mesh link.
    assert_eq!(MeshShare::from_fragment("#x=abc.00000000").unwrap(), None);
    assert_eq!(MeshShare::from_fragment("#about").unwrap(), None);
    // The experiments: MPL under Window-240, MC-Elongated under FCFS.
    let exps = s.experiments().unwrap();
    assert_eq!(exps[0].policy, MeshPolicyKind::Window(240));
    assert_eq!(exps[1].policy, MeshPolicyKind::Fcfs);
}

#[wasm_bindgen_test]
fn bad_share_links_are_refused() {
    let f = share().to_fragment();
    // Cut.
    let cut = &f[..f.len() - 12];
    assert!(MeshShare::from_fragment(cut)
        .unwrap_err()
        .contains("damaged"));
    // Another version.
    let mut v = serde_json::to_value(share()).unwrap();
    v["v"] = serde_json::json!(2);
    let e = MeshShare::from_fragment(&pack(&v.to_string())).unwrap_err();
    assert!(e.contains("format 2"), "{e}");
    // Window-K with MC-Elongated.
    let mut v = serde_json::to_value(share()).unwrap();
    v["experiment"]["allocator"] = serde_json::json!("mc_elongated");
    let e = MeshShare::from_fragment(&pack(&v.to_string())).unwrap_err();
    assert!(
        e.starts_with("Policy:") && e.contains("MC-Elongated"),
        "{e}"
    );
    // W = 0.
    let mut v = serde_json::to_value(share()).unwrap();
    v["experiment"]["width"] = serde_json::json!(0);
    let e = MeshShare::from_fragment(&pack(&v.to_string())).unwrap_err();
    assert!(e.starts_with("Width W:"), "{e}");
    // No allocator.
    assert!(experiments_for(&preset_window(), &[], MeshPolicyKind::Fcfs)
        .unwrap_err()
        .message
        .starts_with("Allocators:"));
}

#[wasm_bindgen_test]
fn mesh_messages_round_trip() {
    let run = ToWorker::run_mesh(3, preset_contention(0.4), Some("t.swf".into()), true);
    assert_eq!(ToWorker::from_json(&run.to_json()).unwrap(), run);
    let mut exp = preset_window();
    if let schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        schedlab::workload::synthetic::SyntheticModel::MeshJobs(p),
    ) = &mut exp.workload
    {
        p.jobs = 50;
    }
    let report = mesh_worker::report(&exp, None, false).unwrap();
    let done = FromWorker::Done {
        id: 3,
        report: Box::new(report.into()),
    };
    assert_eq!(FromWorker::from_json(&done.to_json()).unwrap(), done);
}

#[wasm_bindgen_test]
fn worker_report_has_the_numbers_of_run_mesh() {
    let mut exp = preset_window();
    if let schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        schedlab::workload::synthetic::SyntheticModel::MeshJobs(p),
    ) = &mut exp.workload
    {
        p.jobs = MAX_MESH_JOBS + 200;
    }
    let direct = run_mesh(&exp, None).unwrap();
    let report = mesh_worker::report(&exp, None, false).unwrap();
    assert_eq!(report.output.summary, direct.summary);
    assert_eq!(report.output.mesh, direct.mesh);
    assert_eq!(report.total_jobs, MAX_MESH_JOBS + 200);
    assert!(report.truncated);
    assert_eq!(report.output.jobs.len(), MAX_MESH_JOBS);
    assert_eq!(report.output.layouts.len(), MAX_MESH_JOBS);
    assert_eq!(
        report.jobs_csv,
        schedlab::modes::mesh::run::mesh_jobs_csv(&direct)
    );
    let lite = mesh_worker::report(&exp, None, true).unwrap();
    assert!(lite.output.jobs.is_empty() && lite.jobs_csv.is_empty());
    assert_eq!(lite.output.summary, direct.summary);
}
