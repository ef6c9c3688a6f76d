//! The wormhole model in mesh experiments (`network.model = "wormhole"`, Mache et al. §4.1):
//! its parameters under `network.wormhole` (flits, flit time, round length), validated with
//! errors naming the key, hand-computed runs on a 2 × 1 mesh with one I/O node, and the
//! per-link held and blocked times in the run's output and `schedlab mesh --links-csv`.

use schedlab::modes::flat::run::TraceInput;
use schedlab::modes::flat::spec::{parse_json, ExperimentFile, SwfSource, WorkloadSpec};
use schedlab::modes::mesh::run::{run_mesh, LinkTimes, MeshRunOutput};
use schedlab::modes::mesh::spec::{ContentionModel, MeshExperiment, WormholeSpec};

/// One SWF job: submitted at 0, run time `c`, `procs` processors.
fn swf(c: u32, procs: u32) -> String {
    format!("1 0 0 {c} {procs} -1 -1 {procs} {c} -1 1 1 1 -1 1 -1 -1 -1\n")
}

/// A 2 × 1 mesh, one I/O node west of (1, 1), a job of both nodes, under the wormhole model.
fn tiny(rho: f64, wormhole: Option<WormholeSpec>) -> MeshExperiment {
    let text = format!(
        r#"{{"workload": {{"swf": {{"path": "one.swf"}}}}, "width": 2, "height": 1,
            "allocator": "paging_0", "network": {{"model": "wormhole", "traffic_io": {rho}}}}}"#
    );
    let mut exp: MeshExperiment = parse_json(&text).expect("a mesh experiment");
    exp.network.wormhole = wormhole;
    exp
}

fn run(exp: &MeshExperiment, c: u32) -> MeshRunOutput {
    let text = swf(c, 2);
    let out = run_mesh(
        exp,
        Some(TraceInput::from_bytes("one.swf", text.as_bytes())),
    )
    .expect("the run");
    assert_eq!(out.mesh.engine, "wormhole");
    out
}

fn service(out: &MeshRunOutput) -> f64 {
    let r = &out.jobs[0].record;
    r.end - r.start
}

/// All-to-all (ρ = 0) on two neighbours: the two messages go opposite ways on disjoint paths
/// of 3 channels (injection, link, ejection), so a round takes 3 − 1 + L flit times. The
/// defaults (L = 8, 1 s, 7150 s per round): a 300 s job runs max(1, round(300/7150)) = 1
/// round, 10 s. With L = 4, 0.5 s flits and 100 s per round: 3 rounds of 6 flit times = 9 s.
#[test]
fn the_wormhole_keys_set_flits_flit_time_and_rounds() {
    let default = run(&tiny(0.0, None), 300);
    assert_eq!(service(&default), 10.0);
    let explicit = run(&tiny(0.0, Some(WormholeSpec::default())), 300);
    assert_eq!(service(&explicit), 10.0);
    let spec = WormholeSpec {
        flits: 4,
        flit_time: 0.5,
        round_length: 100.0,
    };
    assert_eq!(service(&run(&tiny(0.0, Some(spec)), 300)), 9.0);
    // 7150 s per round: a 25,000 s job runs round(3.497) = 3 rounds of 10 s.
    assert_eq!(service(&run(&tiny(0.0, None), 25_000)), 30.0);
    // Writes (ρ = 1): both nodes write to the one I/O node. (1,1)'s worm takes inj at 0,
    // the link (1,1)→(0,1) at 1 and the ejection at 2; (2,1)'s header reaches that link at 2
    // and waits until (1,1)'s tail leaves it at 1 + L, then reaches the ejection channel at
    // 2 + L, just as the first worm's tail leaves it, and is delivered at 2 + 2L.
    assert_eq!(service(&run(&tiny(1.0, None), 300)), 18.0);
    let l4 = WormholeSpec {
        flits: 4,
        ..WormholeSpec::default()
    };
    assert_eq!(service(&run(&tiny(1.0, Some(l4)), 300)), 10.0);
}

/// An experiment without `network.wormhole` serialises without it (its JSON, and so its
/// links and results, are those of before the key existed); one with it reads back equal.
#[test]
fn the_wormhole_key_is_optional_and_round_trips() {
    let exp = tiny(0.5, None);
    let json = serde_json::to_string(&exp).unwrap();
    assert!(!json.contains("wormhole\":{"), "{json}");
    let text = r#"{"workload": {"swf": {"path": "x.swf"}}, "width": 2, "height": 1,
        "allocator": "paging_0",
        "network": {"model": "wormhole", "wormhole": {"flits": 16}}}"#;
    let exp: MeshExperiment = parse_json(text).unwrap();
    assert_eq!(
        exp.network.wormhole,
        Some(WormholeSpec {
            flits: 16,
            flit_time: 1.0,
            round_length: 7150.0
        })
    );
    exp.validate().unwrap();
    let cfg = exp.wormhole_config();
    assert_eq!(
        (
            cfg.packet_flits,
            cfg.flit_seconds,
            cfg.round_seconds,
            cfg.traffic_io
        ),
        (16, 1.0, 7150.0, 0.5)
    );
    let back: MeshExperiment = parse_json(&serde_json::to_string(&exp).unwrap()).unwrap();
    assert_eq!(back, exp);
    assert!(matches!(exp.workload, WorkloadSpec::Swf(SwfSource { .. })));
}

/// Out-of-range values, unknown keys and the key under another model are errors naming it.
#[test]
fn bad_wormhole_keys_are_errors_naming_the_key() {
    let check = |wormhole: &str, model: &str, key: &str, says: &str| {
        let text = format!(
            r#"{{"workload": {{"swf": {{"path": "x.swf"}}}}, "width": 2, "height": 1,
                "allocator": "paging_0",
                "network": {{"model": "{model}", "wormhole": {wormhole}}}}}"#
        );
        let err = match parse_json::<MeshExperiment>(&text) {
            Err(e) => e,
            Ok(exp) => exp.validate().expect_err(wormhole),
        };
        assert_eq!(err.key, key, "{wormhole}: {err:?}");
        assert!(err.message.contains(says), "{wormhole}: {}", err.message);
    };
    check(
        r#"{"flits": 0}"#,
        "wormhole",
        "network.wormhole.flits",
        "between 1 and 1024",
    );
    check(
        r#"{"flits": 1025}"#,
        "wormhole",
        "network.wormhole.flits",
        "(got 1025)",
    );
    check(
        r#"{"flit_time": 0}"#,
        "wormhole",
        "network.wormhole.flit_time",
        "(got 0)",
    );
    check(
        r#"{"flit_time": -1}"#,
        "wormhole",
        "network.wormhole.flit_time",
        "seconds",
    );
    check(
        r#"{"flit_time": 1e13}"#,
        "wormhole",
        "network.wormhole.flit_time",
        "seconds",
    );
    check(
        r#"{"round_length": 0.5}"#,
        "wormhole",
        "network.wormhole.round_length",
        "between 1",
    );
    check(
        r#"{"flit": 8}"#,
        "wormhole",
        "network.wormhole.flit",
        "unknown field",
    );
    check(r#"{"flits": -3}"#, "wormhole", "network.wormhole.flits", "");
    check(
        r#"{"flits": 8}"#,
        "flow",
        "network.wormhole",
        "applies to network.model",
    );
    check(
        r#"{}"#,
        "separated",
        "network.wormhole",
        "the model is separated",
    );
    // The model's own defaults are what an absent key means.
    let d = WormholeSpec::default();
    assert_eq!((d.flits, d.flit_time, d.round_length), (8, 1.0, 7150.0));
    assert_eq!(ContentionModel::Wormhole.as_str(), "wormhole");
}

fn link_times(from: [u32; 2], to: [u32; 2], m: u64, l: u64, held: u64, blocked: u64) -> LinkTimes {
    LinkTimes {
        from,
        to,
        messages: m,
        flits: m * l,
        held,
        blocked,
    }
}

/// The per-link counters reach the mesh run's output, by hand on the 2 × 1 mesh (L = 8).
/// Writes (ρ = 1): (1,1)'s worm holds (1,1)→(0,1) from 1 to 9; (2,1)'s header reaches it at 2
/// and is blocked 7 = L − 1 flit times, holds it from 9 until its header is L positions on, at
/// 17 (8); it held (2,1)→(1,1) from 1 until its header entered position 1 + L at 16 (15: the
/// blocked worm keeps it). All-to-all (ρ = 0), 3 rounds of 100 s: each direction carries 3
/// worms, each held L, none blocked.
#[test]
fn a_wormhole_mesh_run_reports_held_and_blocked_time_per_link() {
    let out = run(&tiny(1.0, None), 300);
    let links = out.links.as_ref().expect("wormhole links");
    assert_eq!(links.flit_time, 1.0);
    assert_eq!(
        links.links,
        vec![
            link_times([1, 1], [0, 1], 2, 8, 16, 7),
            link_times([2, 1], [1, 1], 1, 8, 15, 0),
        ]
    );
    assert_eq!(
        links.csv(),
        "from_x,from_y,to_x,to_y,messages,flits,held,blocked\n1,1,0,1,2,16,16,7\n\
         2,1,1,1,1,8,15,0\n"
    );
    let spec = WormholeSpec {
        flits: 4,
        flit_time: 0.5,
        round_length: 100.0,
    };
    let out = run(&tiny(0.0, Some(spec)), 300);
    let links = out.links.as_ref().expect("wormhole links");
    assert_eq!(links.flit_time, 0.5);
    let mut got = links.links.clone();
    got.sort_by_key(|l| (l.from, l.to));
    assert_eq!(
        got,
        vec![
            link_times([1, 1], [2, 1], 3, 4, 12, 0),
            link_times([2, 1], [1, 1], 3, 4, 12, 0),
        ]
    );
    // The JSON carries them; a flow run's output has no `links` key.
    let json = serde_json::to_string(&out).unwrap();
    assert!(
        json.contains("\"links\":{\"flit_time\":0.5,\"links\":[{\"from\":[1,1]"),
        "{json}"
    );
    let mut flow = tiny(0.0, None);
    flow.network.model = ContentionModel::Flow;
    let text = swf(300, 2);
    let out = run_mesh(
        &flow,
        Some(TraceInput::from_bytes("one.swf", text.as_bytes())),
    )
    .unwrap();
    assert_eq!(out.links, None);
    assert!(!serde_json::to_string(&out).unwrap().contains("\"links\""));
}

/// On a Table 1 workload the mesh run's link CSV is the fabric's own
/// (`FabricStats::links_csv` of the same run done directly), and blocking happens.
#[test]
fn the_mesh_runs_link_csv_is_the_wormhole_models() {
    use schedlab::alloc::node_allocator::NodeAllocatorKind;
    use schedlab::modes::mesh::presets::preset_contention;
    use schedlab::network::flow::FlowJob;
    use schedlab::network::wormhole::simulate_wormhole;
    use schedlab::network::Network;
    use schedlab::workload::synthetic::exponential_jobs::ExponentialJobsParams;
    use schedlab::workload::synthetic::SyntheticModel;
    let mut exp = preset_contention(0.5);
    exp.network.model = ContentionModel::Wormhole;
    exp.network.compute = 0.0;
    exp.network.wormhole = Some(WormholeSpec {
        flits: 4,
        ..WormholeSpec::default()
    });
    let params = ExponentialJobsParams {
        jobs: 40,
        mean_interarrival: 500.0,
        ..ExponentialJobsParams::default()
    };
    exp.workload = WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(params.clone()));
    let out = run_mesh(&exp, None).unwrap();
    let links = out.links.expect("wormhole links");
    let net = Network::mc_elongated();
    let jobs: Vec<FlowJob> = params
        .generate(exp.seed)
        .jobs
        .iter()
        .map(FlowJob::of)
        .collect();
    let direct = simulate_wormhole(
        &net,
        &jobs,
        NodeAllocatorKind::McElongated
            .build(&net, exp.seed)
            .as_mut(),
        exp.wormhole_config(),
    )
    .unwrap();
    assert_eq!(links.csv(), direct.stats.links_csv(&net));
    let blocked: u64 = links.links.iter().map(|l| l.blocked).sum();
    assert_eq!(blocked, direct.stats.links.blocked.iter().sum::<u64>());
    assert!(blocked > 0);
    assert!(links
        .links
        .iter()
        .all(|l| l.flits == 4 * l.messages && l.held >= l.flits));
}

/// `schedlab mesh --links-csv FILE` writes the hand-computed rows; it is refused under another
/// model (naming the flag) and over an input.
#[test]
fn schedlab_mesh_writes_the_links_csv() {
    use crate::common::{schedlab, temp_dir};
    let dir = temp_dir("links-csv");
    std::fs::write(dir.join("one.swf"), swf(300, 2)).unwrap();
    let write = |name: &str, model: &str| {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!(
                r#"{{"workload": {{"swf": {{"path": "one.swf"}}}}, "width": 2, "height": 1,
                    "allocator": "paging_0",
                    "network": {{"model": "{model}", "traffic_io": 1}}}}"#
            ),
        )
        .unwrap();
        p.to_str().unwrap().to_string()
    };
    let worm = write("worm.json", "wormhole");
    let csv = dir.join("links.csv");
    let (code, out, err) = schedlab(&["mesh", &worm, "--links-csv", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"engine\": \"wormhole\""), "{out}");
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "from_x,from_y,to_x,to_y,messages,flits,held,blocked\n1,1,0,1,2,16,16,7\n\
         2,1,1,1,1,8,15,0\n"
    );
    let flow = write("flow.json", "flow");
    let other = dir.join("other.csv");
    let (code, _, err) = schedlab(&["mesh", &flow, "--links-csv", other.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--links-csv") && err.contains("wormhole"),
        "{err}"
    );
    assert!(!other.exists());
    let (code, _, err) = schedlab(&["mesh", &worm, "--links-csv", &worm]);
    assert_ne!(code, 0);
    assert!(err.contains("input"), "{err}");
    assert!(std::fs::read_to_string(&worm).unwrap().contains("paging_0"));
    let _ = std::fs::remove_dir_all(&dir);
}
