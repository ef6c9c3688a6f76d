//! The packet-level wormhole model (`schedlab::network::wormhole`, Mache et al. §4.1):
//! hand-computed fabric cases (two worms on one link, one sender's queue, an I/O hot spot, a
//! set of worms that would deadlock without dimension order) and the job engine's invariants
//! after every run (every message delivered, per-link messages equal to the XY route counts,
//! FCFS start order, no node shared, determinism, typed errors).

use schedlab::alloc::node_allocator::{Node, NodeAllocator, NodeAllocatorKind};
use schedlab::machine::mesh::Mesh;
use schedlab::network::flow::FlowJob;
use schedlab::network::wormhole::{
    round_is_io, simulate_wormhole, Fabric, WormholeConfig, WormholeError,
};
use schedlab::network::{Dir, IoSide, Link, NetNode, Network, NetworkConfig};
use schedlab::workload::synthetic::exponential_jobs::ExponentialJobsParams;

fn n(x: u32, y: u32) -> NetNode {
    NetNode::new(x, y)
}

fn net4() -> Network {
    Network::new(NetworkConfig {
        width: 4,
        height: 4,
        io_side: IoSide::West,
        io_count: Some(4),
    })
    .expect("a 4 × 4 mesh")
}

fn link(net: &Network, x: u32, y: u32, dir: Dir) -> usize {
    net.link_index(Link { from: n(x, y), dir })
}

/// A: (1,1)→(3,1) asks at 0; B: (2,1)→(3,1) asks at 1. Both headers ask for link (2,1)→(3,1)
/// at t = 2; B's request was queued first (ties go by sequence), so B takes it and A blocks
/// for exactly B's tail time, L = 4 flit times: B holds the link from 2 until its header is 4
/// positions further on, at 6. Paths: A = inj, (1,1)E, (2,1)E, ej(3,1); B = inj, (2,1)E,
/// ej(3,1). Unblocked, a message of h channels injected at t is delivered at t + h − 1 + L.
#[test]
fn the_second_worm_on_a_link_blocks_for_exactly_the_first_ones_tail_time() {
    let net = net4();
    let mut f = Fabric::new(&net, 4).unwrap();
    let a = f.send(n(1, 1), n(3, 1), 0).unwrap();
    let b = f.send(n(2, 1), n(3, 1), 1).unwrap();
    let (d, stats) = f.run().unwrap();
    // B alone: 1 + 3 − 1 + 4 = 7.
    assert_eq!((d[b].injected, d[b].delivered, d[b].blocked), (1, 7, 0));
    // A: waits 2 → 6 for the link, enters the ejection channel at 7 (B's tail leaves it at
    // 3 + 4 = 7), delivered at 7 + 4 = 11 = its unblocked 7 plus the 4 it waited.
    assert_eq!((d[a].injected, d[a].delivered, d[a].blocked), (0, 11, 4));
    let shared = link(&net, 2, 1, Dir::East);
    assert_eq!(stats.links.messages[shared], 2);
    assert_eq!(stats.links.flits[shared], 8);
    assert_eq!(
        stats.links.held[shared], 8,
        "each worm holds it L = 4 flit times"
    );
    assert_eq!(stats.links.blocked[shared], 4);
    let first = link(&net, 1, 1, Dir::East);
    assert_eq!(
        (stats.links.held[first], stats.links.blocked[first]),
        (8, 0)
    );
    assert_eq!(stats.links.blocked.iter().sum::<u64>(), 4);
    assert_eq!((stats.injected, stats.delivered), (2, 2));
    // The CSV has one row per link that carried a message.
    let csv = stats.links_csv(&net);
    assert!(csv.starts_with("from_x,from_y,to_x,to_y,messages,flits,held,blocked\n"));
    assert!(csv.contains("\n2,1,3,1,2,8,8,4\n"), "{csv}");
    assert_eq!(csv.lines().count(), 3);
}

/// Two messages from one node at once: the second takes the injection channel when the
/// first one's tail leaves it (L flit times later) and then follows it unblocked.
#[test]
fn one_senders_messages_follow_each_other_a_worm_length_apart() {
    let net = net4();
    for flits in [1, 3, 8] {
        let mut f = Fabric::new(&net, flits).unwrap();
        f.send(n(1, 1), n(3, 1), 0).unwrap();
        f.send(n(1, 1), n(3, 1), 0).unwrap();
        let (d, stats) = f.run().unwrap();
        let l = u64::from(flits);
        assert_eq!((d[0].injected, d[0].delivered), (0, 3 + l));
        assert_eq!(
            (d[1].injected, d[1].delivered, d[1].blocked),
            (l, 3 + 2 * l, l)
        );
        // The waiting was for the injection channel, not for a link.
        assert_eq!(stats.links.blocked.iter().sum::<u64>(), 0);
    }
}

/// Mache et al. Fig. 2 (§2.3): four nodes write to the four west I/O nodes. The block layout
/// (rows 3–4, columns 1–2) puts 8 messages on the middle downward I/O link (0,3)→(0,2), the
/// parallel layout (column 1) 4. A link passes one flit per flit time, so the block layout's
/// writes need at least 8 · L flit times; they take longer than the parallel layout's, and the
/// headers block most on the I/O line and its rungs.
#[test]
fn the_io_hot_spot_of_fig2_under_wormhole_switching() {
    let net = net4();
    let l = 8u64;
    let run = |layout: &[NetNode]| {
        let mut f = Fabric::new(&net, l as u32).unwrap();
        for (k, &src) in layout.iter().enumerate() {
            for m in 0..4 {
                let io = net.io_nodes()[(k + m) % 4];
                f.send(src, io, 0).unwrap();
            }
        }
        f.run().unwrap()
    };
    let block = [n(1, 3), n(2, 3), n(1, 4), n(2, 4)];
    let parallel = [n(1, 1), n(1, 2), n(1, 3), n(1, 4)];
    let (db, sb) = run(&block);
    let (dp, sp) = run(&parallel);
    let middle = link(&net, 0, 3, Dir::South);
    assert_eq!(sb.links.messages[middle], 8);
    assert_eq!(sp.links.messages[middle], 4);
    let end =
        |d: &[schedlab::network::wormhole::Delivery]| d.iter().map(|x| x.delivered).max().unwrap();
    assert!(end(&db) >= 8 * l, "{}", end(&db));
    assert!(
        end(&db) > end(&dp),
        "block {} parallel {}",
        end(&db),
        end(&dp)
    );
    let blocked =
        |s: &schedlab::network::wormhole::FabricStats| -> u64 { s.links.blocked.iter().sum() };
    assert!(blocked(&sb) > blocked(&sp));
    // Every link with blocked headers in the block layout touches the I/O line.
    for (i, &b) in sb.links.blocked.iter().enumerate() {
        if b > 0 {
            let lk = net.link_at(i);
            assert!(
                net.is_io_line(lk.from) || net.is_io_line(lk.to()),
                "{lk} blocked {b}"
            );
        }
    }
    // Per link, the messages are the XY route counts of the network module.
    let mut loads = net.loads();
    loads
        .add_bipartite(&net, &block, net.io_nodes(), true)
        .unwrap();
    assert_eq!(loads.counts(), &sb.links.messages[..]);
}

fn net_nodes(v: &[Node]) -> Vec<NetNode> {
    v.iter().map(|&(x, y)| n(x, y)).collect()
}

/// Four long worms to the opposite corner of a 2 × 2 square, all at once: with a routing that
/// turns the same way round the square they would each hold one link and wait for the next
/// (a cycle); XY routing never turns from Y to X, so their links are disjoint and each is
/// delivered unblocked at 0 + 4 − 1 + L. Then an all-to-all of 16 nodes with 32-flit worms,
/// all at t = 0: everything is delivered (the fabric checks it is empty at the end).
#[test]
fn dimension_order_keeps_a_would_be_cycle_of_worms_free_of_deadlock() {
    let net = net4();
    let l = 32u64;
    let mut f = Fabric::new(&net, l as u32).unwrap();
    for (a, b) in [
        (n(1, 1), n(2, 2)),
        (n(2, 1), n(1, 2)),
        (n(2, 2), n(1, 1)),
        (n(1, 2), n(2, 1)),
    ] {
        f.send(a, b, 0).unwrap();
    }
    let (d, _) = f.run().unwrap();
    for x in &d {
        assert_eq!((x.delivered, x.blocked), (3 + l, 0));
    }
    let mut f = Fabric::new(&net, l as u32).unwrap();
    let all: Vec<NetNode> = (1..=4)
        .flat_map(|y| (1..=4).map(move |x| n(x, y)))
        .collect();
    for &a in &all {
        for &b in &all {
            if a != b {
                f.send(a, b, 0).unwrap();
            }
        }
    }
    let (d, stats) = f.run().unwrap();
    assert_eq!(stats.delivered, 240);
    // Every message: latency = its unblocked latency + the time its header was blocked.
    let mut k = 0;
    for &a in &all {
        for &b in &all {
            if a != b {
                let hops = net.route(a, b).unwrap().len() as u64;
                let x = d[k];
                assert_eq!(
                    x.delivered - x.requested,
                    hops + 1 + l + x.blocked,
                    "{a}→{b}"
                );
                assert!(x.injected >= x.requested);
                k += 1;
            }
        }
    }
    // Each sender's 15 messages leave one worm length apart at best.
    assert!(d.iter().map(|x| x.delivered).max().unwrap() >= 15 * l);
    let mut loads = net.loads();
    loads.add_all_to_all(&net, &all).unwrap();
    assert_eq!(loads.counts(), &stats.links.messages[..]);
    assert!(stats.links.blocked.iter().sum::<u64>() > 0);
}

#[test]
fn fabric_errors_are_typed() {
    let net = net4();
    assert!(matches!(
        Fabric::new(&net, 0),
        Err(WormholeError::BadConfig { .. })
    ));
    let mut f = Fabric::new(&net, 4).unwrap();
    let e = f.send(n(9, 9), n(1, 1), 0).unwrap_err();
    assert!(e.to_string().contains("not a node"), "{e}");
    assert!(f.send(n(1, 1), n(1, 1), 0).is_err());
}

/// Allocator giving fixed layouts in order.
struct Fixed(Vec<Vec<Node>>);

impl NodeAllocator for Fixed {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        let v = self.0.first()?.clone();
        if v.len() != j as usize || v.iter().any(|&(x, y)| !mesh.is_free(x, y)) {
            return None;
        }
        self.0.remove(0);
        Some(v)
    }
}

fn cfg(rho: f64, flits: u32) -> WormholeConfig {
    WormholeConfig {
        traffic_io: rho,
        packet_flits: flits,
        flit_seconds: 0.5,
        round_seconds: 100.0,
        ..WormholeConfig::default()
    }
}

fn job(submit: f64, size: u32, c: f64) -> FlowJob {
    FlowJob {
        submit,
        size,
        compute: c,
    }
}

/// Jobs alone, by hand (flit time 0.5 s, 100 s of length per round).
#[test]
fn a_job_alone_takes_its_rounds_of_network_time() {
    let net = net4();
    // Two neighbours exchange one message each way: disjoint paths of 3 channels, each round
    // takes 3 − 1 + L flit times; C = 240 → 2 rounds.
    let l = 4.0;
    let r = simulate_wormhole(
        &net,
        &[job(10.0, 2, 240.0)],
        &mut Fixed(vec![vec![(1, 1), (2, 1)]]),
        cfg(0.0, 4),
    )
    .unwrap();
    let rec = &r.records[0];
    assert_eq!(rec.start, 10.0);
    assert_eq!(rec.service(), 2.0 * (2.0 + l) * 0.5);
    assert_eq!(r.stats.delivered, 4);
    // A one-node job at ρ = 0 sends nothing: no time. At ρ = 1 it writes to 4 I/O nodes: from
    // (1, 1) the message to I/O node k crosses inj, (1,1)W, k − 1 I/O-line links, ej; one
    // after the other, L apart: the last (to row 4, 6 channels) is injected at 3L and
    // delivered at 3L + 5 + L.
    let r = simulate_wormhole(
        &net,
        &[job(0.0, 1, 100.0)],
        &mut Fixed(vec![vec![(1, 1)]]),
        cfg(0.0, 4),
    )
    .unwrap();
    assert_eq!(r.records[0].service(), 0.0);
    let r = simulate_wormhole(
        &net,
        &[job(0.0, 1, 100.0)],
        &mut Fixed(vec![vec![(1, 1)]]),
        cfg(1.0, 4),
    )
    .unwrap();
    assert_eq!(r.records[0].service(), (4.0 * l + 5.0) * 0.5);
}

fn workload(jobs: usize, ia: f64, seed: u64) -> Vec<FlowJob> {
    let p = ExponentialJobsParams {
        jobs,
        mean_interarrival: ia,
        ..ExponentialJobsParams::default()
    };
    p.generate(seed).jobs.iter().map(FlowJob::of).collect()
}

/// The model's invariants after runs of every allocator at three traffic ratios.
#[test]
fn job_runs_keep_the_models_invariants() {
    let net = Network::mc_elongated();
    let jobs = workload(40, 300.0, 5);
    for rho in [0.0, 0.5, 1.0] {
        let c = WormholeConfig {
            traffic_io: rho,
            packet_flits: 8,
            flit_seconds: 0.01,
            round_seconds: 7150.0,
            ..WormholeConfig::default()
        };
        for kind in NodeAllocatorKind::ALL {
            let run = |seed| simulate_wormhole(&net, &jobs, kind.build(&net, seed).as_mut(), c);
            let r = run(1).unwrap();
            assert_eq!(r, run(1).unwrap(), "deterministic");
            assert_eq!(r.stats.injected, r.stats.delivered);
            assert_eq!(r.records.len(), jobs.len());
            // Start ≥ submit, end ≥ start, FCFS start order.
            for (i, rec) in r.records.iter().enumerate() {
                assert!(rec.start >= jobs[i].submit - 0.005, "{kind:?} job {i}");
                assert!(rec.end >= rec.start);
                assert_eq!(rec.nodes.len() as u32, jobs[i].size);
            }
            assert!(r.records.windows(2).all(|w| w[0].start <= w[1].start));
            // No node used by two jobs at once.
            for (i, a) in r.records.iter().enumerate() {
                for b in &r.records[i + 1..] {
                    if a.start < b.end && b.start < a.end && a.service() > 0.0 && b.service() > 0.0
                    {
                        assert!(a.nodes.iter().all(|x| !b.nodes.contains(x)), "{kind:?}");
                    }
                }
            }
            // Per link, the messages are Σ over jobs and rounds of the round's XY counts.
            let mut loads = net.loads();
            for (i, rec) in r.records.iter().enumerate() {
                let nodes = net_nodes(&rec.nodes);
                for round in 0..c.rounds(jobs[i].compute) {
                    if round_is_io(i, round, rho) {
                        loads
                            .add_bipartite(&net, &nodes, net.io_nodes(), true)
                            .unwrap();
                    } else {
                        loads.add_all_to_all(&net, &nodes).unwrap();
                    }
                }
            }
            assert_eq!(
                loads.counts(),
                &r.stats.links.messages[..],
                "{kind:?} ρ {rho}"
            );
            let flits: u64 = r.stats.links.flits.iter().sum();
            assert_eq!(flits, 8 * r.stats.links.messages.iter().sum::<u64>());
            // One worm at a time on a channel: its holding times fit in the run.
            for (i, &h) in r.stats.links.held.iter().enumerate() {
                assert!(h >= 8 * r.stats.links.messages[i] && h <= r.stats.end);
            }
        }
    }
}

#[test]
fn the_write_rounds_are_a_share_rho_of_all_rounds() {
    for rho in [0.0, 0.2, 0.6, 1.0] {
        let io = (0..1000)
            .flat_map(|j| (0..3).map(move |r| round_is_io(j, r, rho)))
            .filter(|&b| b)
            .count() as f64;
        assert!((io / 3000.0 - rho).abs() < 0.01, "ρ {rho}: {io}");
        // Within one round of ρ for every job.
        for j in 0..50 {
            let k = (0..10).filter(|&r| round_is_io(j, r, rho)).count() as f64;
            assert!((k - 10.0 * rho).abs() <= 1.0);
        }
    }
}

#[test]
fn job_run_errors_are_typed_and_bounded() {
    let net = Network::mc_elongated();
    let jobs = workload(30, 100.0, 2);
    let mut a = NodeAllocatorKind::Mc.build(&net, 1);
    let small = WormholeConfig {
        max_events: 1000,
        ..WormholeConfig::default()
    };
    let e = simulate_wormhole(&net, &jobs, a.as_mut(), small).unwrap_err();
    assert_eq!(e, WormholeError::WorkBound { limit: 1000 });
    assert!(e.to_string().contains("1000"));
    for bad in [
        WormholeConfig {
            traffic_io: 1.5,
            ..WormholeConfig::default()
        },
        WormholeConfig {
            packet_flits: 0,
            ..WormholeConfig::default()
        },
        WormholeConfig {
            flit_seconds: f64::NAN,
            ..WormholeConfig::default()
        },
        WormholeConfig {
            round_seconds: 0.0,
            ..WormholeConfig::default()
        },
    ] {
        let e = simulate_wormhole(&net, &jobs, a.as_mut(), bad).unwrap_err();
        assert!(matches!(e, WormholeError::BadConfig { .. }), "{e}");
    }
    let too_big = [job(0.0, 400, 1.0)];
    assert!(matches!(
        simulate_wormhole(&net, &too_big, a.as_mut(), WormholeConfig::default()),
        Err(WormholeError::BadSize { .. })
    ));
    let unordered = [job(5.0, 1, 1.0), job(1.0, 1, 1.0)];
    assert!(matches!(
        simulate_wormhole(&net, &unordered, a.as_mut(), WormholeConfig::default()),
        Err(WormholeError::BadTime { job: 1 })
    ));
}

/// `network.model = "wormhole"` in a mesh experiment: parsed, run through the mesh-run path
/// (stepped like the flow engine) and named in the metrics; the same service times as the
/// direct call with the same defaults and ρ.
#[test]
fn mesh_runs_take_the_wormhole_model() {
    use schedlab::modes::mesh::presets::preset_contention;
    use schedlab::modes::mesh::run::run_mesh;
    use schedlab::modes::mesh::spec::ContentionModel;
    use schedlab::workload::synthetic::SyntheticModel;
    assert_eq!(
        ContentionModel::parse("wormhole"),
        Ok(ContentionModel::Wormhole)
    );
    assert_eq!(ContentionModel::Wormhole.as_str(), "wormhole");
    assert_eq!(
        ContentionModel::parse("worm").unwrap_err().to_string(),
        "unknown contention model \"worm\" (expected flow, separated or wormhole)"
    );
    let mut exp = preset_contention(0.4);
    exp.network.model = ContentionModel::Wormhole;
    let params = ExponentialJobsParams {
        jobs: 60,
        mean_interarrival: 800.0,
        ..ExponentialJobsParams::default()
    };
    exp.workload = schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        SyntheticModel::ExponentialJobs(params.clone()),
    );
    let json = serde_json::to_string(&exp).unwrap();
    assert!(json.contains("\"model\":\"wormhole\""), "{json}");
    let out = run_mesh(&exp, None).unwrap();
    assert_eq!(out.mesh.engine, "wormhole");
    assert_eq!(out.jobs.len(), 60);
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
        WormholeConfig {
            traffic_io: 0.4,
            ..WormholeConfig::default()
        },
    )
    .unwrap();
    for (a, b) in out.layouts.iter().zip(&direct.records) {
        assert_eq!((a.start, a.end), (b.start, b.end));
    }
}

/// Random fabrics (seeded): meshes of 1–6 × 1–6 with the I/O line on any side, up to 60
/// messages at random times with 1–12 flits. After every run: every message delivered;
/// latency = unblocked latency + blocked time; per link, the messages are the XY route counts,
/// each worm held it at least L flit times, and the holding times sum to no more than the run
/// (a channel is never held by two worms at once).
#[test]
fn random_fabrics_keep_the_invariants() {
    use schedlab::base::SimRng;
    let mut rng = SimRng::new(7);
    for case in 0..200 {
        let side = [IoSide::West, IoSide::East, IoSide::South, IoSide::North]
            [rng.uniform_int(0, 3) as usize];
        let net = Network::new(NetworkConfig {
            width: rng.uniform_int(1, 6) as u32,
            height: rng.uniform_int(1, 6) as u32,
            io_side: side,
            io_count: None,
        })
        .unwrap();
        let nodes: Vec<NetNode> = (0..net.width() + 2)
            .flat_map(|x| (0..net.height() + 2).map(move |y| n(x, y)))
            .filter(|&p| net.is_node(p))
            .collect();
        let flits = rng.uniform_int(1, 12);
        let mut f = Fabric::new(&net, flits as u32).unwrap();
        let mut sent = Vec::new();
        for _ in 0..rng.uniform_int(0, 60) {
            let a = nodes[rng.uniform_int(0, nodes.len() as u64 - 1) as usize];
            let b = nodes[rng.uniform_int(0, nodes.len() as u64 - 1) as usize];
            if a == b {
                continue;
            }
            f.send(a, b, rng.uniform_int(0, 40)).unwrap();
            sent.push((a, b));
        }
        let (d, stats) = f.run().unwrap();
        assert_eq!(stats.delivered, sent.len() as u64, "case {case}");
        let mut loads = net.loads();
        for (k, &(a, b)) in sent.iter().enumerate() {
            loads.add_route(&net, a, b, 1).unwrap();
            let hops = net.route(a, b).unwrap().len() as u64;
            let x = d[k];
            assert_eq!(
                x.delivered - x.requested,
                hops + 1 + flits + x.blocked,
                "case {case}: {a}→{b}"
            );
        }
        assert_eq!(loads.counts(), &stats.links.messages[..], "case {case}");
        for (i, &m) in stats.links.messages.iter().enumerate() {
            assert!(stats.links.held[i] >= m * flits, "case {case}");
            assert!(stats.links.held[i] <= stats.end, "case {case}");
            assert_eq!(stats.links.flits[i], m * flits);
        }
    }
}
