//! The wormhole model in mesh experiments (`network.model = "wormhole"`, Mache et al. §4.1):
//! its parameters under `network.wormhole` (flits, flit time, round length), validated with
//! errors naming the key, and hand-computed runs on a 2 × 1 mesh with one I/O node.

use schedlab::modes::flat::run::TraceInput;
use schedlab::modes::flat::spec::{parse_json, ExperimentFile, SwfSource, WorkloadSpec};
use schedlab::modes::mesh::run::{run_mesh, MeshRunOutput};
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
