//! Binary-tree allocation and compactness (Liu et al. §3–4): property tests over
//! random mesh states and request streams without departures.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use schedlab::alloc::binary_tree::{BinaryTreeKind, TreeRule, TreeSplit};
use schedlab::alloc::bt_tree::{smallest_holding, Balance, Frame, Rect};
use schedlab::alloc::compactness::{
    is_compact, min_square_count, run_stream, square_count, square_counts,
};
use schedlab::alloc::mbs::MultipleBuddy;
use schedlab::alloc::ncbt::NonContiguousTree;
use schedlab::alloc::node_allocator::{IoLayout, Node, NodeAllocator};
use schedlab::machine::mesh::{Mesh, Submesh};
use schedlab::network::IoSide;

const SHAPES: [(u32, u32); 8] = [
    (4, 4),
    (8, 8),
    (8, 4),
    (4, 8),
    (16, 16),
    (5, 3),
    (3, 7),
    (22, 16),
];
const POW2_SHAPES: [(u32, u32); 6] = [(4, 4), (8, 8), (8, 4), (4, 8), (16, 16), (16, 8)];
const SIDES: [IoSide; 4] = [IoSide::West, IoSide::East, IoSide::South, IoSide::North];

fn io(side: IoSide) -> IoLayout {
    IoLayout {
        side,
        middle_twice: 0,
    }
}

/// A mesh whose node i (row-major from (1, 1)) is busy when `busy[i]` is set.
fn mesh_from(w: u32, h: u32, busy: &[bool]) -> Mesh {
    let mut m = Mesh::new(w, h).expect("mesh");
    for i in 0..w * h {
        if busy[i as usize] {
            m.allocate(0, Submesh::at(i % w + 1, i / w + 1, 1, 1))
                .expect("free node");
        }
    }
    m
}

fn put(m: &mut Mesh, job: usize, v: &[Node]) {
    for &(x, y) in v {
        m.allocate(job, Submesh::at(x, y, 1, 1)).expect("free node");
    }
}

/// j distinct free nodes of `m`.
fn check_nodes(m: &Mesh, v: &[Node], j: u32, name: &str) {
    assert_eq!(v.len(), j as usize, "{name}: count");
    assert!(v.iter().all(|&(x, y)| m.is_free(x, y)), "{name}: busy node");
    let mut s = v.to_vec();
    s.sort_unstable();
    s.dedup();
    assert_eq!(s.len(), j as usize, "{name}: duplicates");
}

/// The tree nodes under `r` a contiguous search may stop at for a request of j: area ≥ j
/// and no child with area ≥ j.
fn candidates(r: Rect, j: u64, out: &mut Vec<Rect>) {
    if r.area() < j {
        return;
    }
    match r.children() {
        Some((a, b)) if a.area() >= j || b.area() >= j => {
            candidates(a, j, out);
            candidates(b, j, out);
        }
        _ => out.push(r),
    }
}

fn state() -> impl Strategy<Value = ((u32, u32), IoSide, Vec<bool>, Vec<f64>)> {
    (
        prop::sample::select(SHAPES.to_vec()),
        prop::sample::select(SIDES.to_vec()),
        0.0..1.0f64,
    )
        .prop_flat_map(|(shape, side, p)| {
            (
                Just(shape),
                Just(side),
                prop::collection::vec(prop::bool::weighted(p), 352),
                prop::collection::vec(0.0..1.0f64, 4),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every binary-tree allocator returns exactly j distinct free nodes (or `None` for
    /// j > free); the non-contiguous ones always succeed when j ≤ free; the contiguous ones
    /// return the first j nodes, column-first, of an entirely free tree rectangle of the
    /// smallest size that holds j (A/2 < j ≤ A on power-of-two meshes), and return `None`
    /// only when no such rectangle is free.
    #[test]
    fn j_distinct_free_nodes_and_contiguous_rectangles(
        ((w, h), side, busy, fracs) in state()
    ) {
        let m = mesh_from(w, h, &busy);
        let free = m.free_count();
        let layout = io(side);
        let frame = Frame::new(&m, layout);
        let pow2 = w.is_power_of_two() && h.is_power_of_two();
        let mut js = vec![0, 1, free, free + 1];
        js.extend(fracs.iter().map(|f| 1 + (f * f64::from(free.max(1))) as u32));
        for kind in BinaryTreeKind::paper() {
            let mut a = kind.build_for(layout);
            for &j in &js {
                let got = a.select(&m, j);
                if j > free {
                    prop_assert_eq!(got, None, "{} j={} free={}", kind, j, free);
                    continue;
                }
                if j == 0 {
                    prop_assert_eq!(got, Some(vec![]));
                    continue;
                }
                let mut cands = Vec::new();
                candidates(frame.root(), u64::from(j), &mut cands);
                let free_cands: Vec<Rect> =
                    cands.into_iter().filter(|&r| frame.all_free(r)).collect();
                match got {
                    None => {
                        prop_assert!(kind.is_contiguous(), "{} refused j={} free={}", kind, j, free);
                        prop_assert!(free_cands.is_empty(), "{} refused j={} but {:?} is free", kind, j, free_cands);
                    }
                    Some(v) => {
                        check_nodes(&m, &v, j, kind.as_str());
                        if kind.is_contiguous() {
                            let fr: Vec<(u32, u32)> =
                                v.iter().map(|&n| frame.frame_of(n).expect("in frame")).collect();
                            let r = smallest_holding(frame.root(), &fr);
                            prop_assert!(free_cands.contains(&r), "{} j={}: {:?} not a free candidate", kind, j, r);
                            prop_assert_eq!(&fr, &r.column_first(u64::from(j)));
                            if pow2 {
                                prop_assert!(r.area() / 2 < u64::from(j) && u64::from(j) <= r.area());
                            }
                            if r.area() == u64::from(j) {
                                // An exact rectangle: every node of r.
                                prop_assert_eq!(fr.len() as u64, r.area());
                            }
                        }
                    }
                }
            }
        }
    }

    /// The ind-/d- variants place each sub-request in one entirely free tree rectangle of 4^i
    /// nodes (sizes non-increasing, summing to j).
    #[test]
    fn sub_requests_are_free_tree_rectangles(
        ((w, h), side, busy, fracs) in state(),
        dependent in any::<bool>(),
        rule in 0usize..3,
    ) {
        prop_assume!(w.is_power_of_two() && h.is_power_of_two());
        let m = mesh_from(w, h, &busy);
        let layout = io(side);
        let frame = Frame::new(&m, layout);
        let balance = [Balance::Left, Balance::Static(16), Balance::Dynamic(8)][rule];
        let a = NonContiguousTree::new(layout, balance, dependent, "t");
        let j = (fracs[0] * f64::from(m.free_count())) as u32;
        let subs = a.place(&m, j).expect("j ≤ free");
        let mut total = 0;
        let mut last = u64::MAX;
        for s in &subs {
            let z = s.rect.area();
            prop_assert!(z.is_power_of_two() && z.trailing_zeros() % 2 == 0);
            prop_assert!(z <= last);
            last = z;
            prop_assert!(frame.all_free(s.rect));
            total += z;
        }
        prop_assert_eq!(total, u64::from(j));
    }

    /// Theorem 1 (and Lemma 1/2): SCBT is spatially compact and compact after every
    /// allocation of a request stream without departures, on power-of-two meshes, whatever
    /// the side of the I/O nodes.
    #[test]
    fn scbt_is_spatially_compact_and_compact(
        shape in prop::sample::select(POW2_SHAPES.to_vec()),
        side in prop::sample::select(SIDES.to_vec()),
        reqs in prop::collection::vec(1u32..40, 1..60),
    ) {
        let (w, h) = shape;
        let mut m = Mesh::new(w, h).expect("mesh");
        let mut a = BinaryTreeKind::Scbt.build_for(io(side));
        let steps = run_stream(a.as_mut(), &mut m, &reqs, io(side)).expect("stream");
        for (i, s) in steps.iter().enumerate() {
            prop_assert!(s.spatially_compact, "step {} {:?}\n{}", i, s, m.render());
            prop_assert!(s.compact(), "step {} {:?}", i, s);
        }
    }

    /// Observed, not claimed by the paper: ind-BT (and ind-SBT with α = 256, ind-DBT with
    /// ratio 1/2, which behave alike here) is compact on streams without departures — its
    /// left-first search fills the earliest hole of the right size, as a buddy system
    /// splits the smallest free block. Only ind-BT is asserted.
    #[test]
    fn ind_bt_is_compact_without_departures(
        shape in prop::sample::select(POW2_SHAPES.to_vec()),
        side in prop::sample::select(SIDES.to_vec()),
        reqs in prop::collection::vec(1u32..40, 1..60),
    ) {
        let (w, h) = shape;
        let mut m = Mesh::new(w, h).expect("mesh");
        let kind = BinaryTreeKind::Tree(TreeSplit::Independent, TreeRule::Plain);
        let mut a = kind.build_for(io(side));
        let steps = run_stream(a.as_mut(), &mut m, &reqs, io(side)).expect("stream");
        for (i, s) in steps.iter().enumerate() {
            prop_assert!(s.compact(), "step {} {:?}\n{}", i, s, m.render());
        }
    }

    /// The reference buddy MBS below (split the smallest free block) is compact on every
    /// stream without departures — the paper's claim for MBS with buddy free lists.
    #[test]
    fn buddy_mbs_reference_is_compact(
        shape in prop::sample::select(POW2_SHAPES.to_vec()),
        reqs in prop::collection::vec(1u32..40, 1..60),
    ) {
        let (w, h) = shape;
        let mut m = Mesh::new(w, h).expect("mesh");
        let steps = run_stream(&mut BuddyMbs, &mut m, &reqs, io(IoSide::West)).expect("stream");
        for (i, s) in steps.iter().enumerate() {
            prop_assert!(s.compact(), "step {} {:?}\n{}", i, s, m.render());
        }
    }
}

/// The documented counter-example (docs/binary-tree.md): `MultipleBuddy`, the repository's
/// stateless MBS, is *not* compact. A request of 10 nodes on an empty 8 × 8 mesh takes two
/// 2 × 2 blocks in the south-west 4 × 4 quadrant, but its two single nodes from the next
/// quadrant (it looks for a single whose 2 × 2 parent is split, finds none, and splits the
/// first free 2 × 2 in row-major order, which is outside the quadrant): D = 9, while
/// 54 = 3 · 16 + 4 + 2 · 1 free nodes fit in 6 squares.
#[test]
fn stateless_mbs_counter_example() {
    let mut m = Mesh::new(8, 8).expect("mesh");
    let v = MultipleBuddy.select(&m, 10).expect("10 free");
    put(&mut m, 0, &v);
    assert_eq!(&v[8..], &[(5, 1), (6, 1)]);
    assert_eq!(square_counts(&m), vec![2, 5, 2, 0]);
    assert_eq!(square_count(&m), 9);
    assert_eq!(min_square_count(8, 8, 54), 6);
    assert!(!is_compact(&m));
    // The buddy reference keeps the singles inside the split quadrant.
    let mut m = Mesh::new(8, 8).expect("mesh");
    let v = BuddyMbs.select(&m, 10).expect("10 free");
    put(&mut m, 0, &v);
    assert!(is_compact(&m));
    // Also a second request: 4 then 5 (4 + 1).
    let mut m = Mesh::new(8, 8).expect("mesh");
    let steps = run_stream(&mut MultipleBuddy, &mut m, &[4, 5], io(IoSide::West)).expect("stream");
    assert!(steps[0].compact());
    assert!(!steps[1].compact());
}

/// Reference MBS with buddy semantics (test only): j in base 4 (top digit capped at the
/// largest square), each block taken from the smallest entirely free aligned square that
/// holds a free block of that size (row-major among equals); a missing size becomes four of
/// the next smaller one.
struct BuddyMbs;

impl NodeAllocator for BuddyMbs {
    fn name(&self) -> &'static str {
        "buddy_mbs"
    }

    fn select(&mut self, mesh: &Mesh, j: u32) -> Option<Vec<Node>> {
        if j > mesh.free_count() {
            return None;
        }
        let (w, h) = (mesh.width(), mesh.height());
        let mut taken = vec![false; (w * h) as usize];
        let free = |taken: &[bool], bx: u32, by: u32, s: u32| {
            bx + s <= w
                && by + s <= h
                && (by..by + s).all(|y| {
                    (bx..bx + s).all(|x| mesh.is_free(x + 1, y + 1) && !taken[(y * w + x) as usize])
                })
        };
        let mut top = 0;
        while (2u32 << top) <= w.min(h) {
            top += 1;
        }
        let mut want: Vec<u64> = (0..=top)
            .map(|i| {
                let q = u64::from(j) >> (2 * i);
                if i == top {
                    q
                } else {
                    q % 4
                }
            })
            .collect();
        let mut out = Vec::new();
        for i in (0..=top).rev() {
            let s = 1u32 << i;
            while want[i as usize] > 0 {
                // (side of the largest free aligned ancestor, y, x) — smallest first.
                let mut best: Option<(u32, u32, u32)> = None;
                for by in (0..h).step_by(s as usize) {
                    for bx in (0..w).step_by(s as usize) {
                        if !free(&taken, bx, by, s) {
                            continue;
                        }
                        let mut a = s;
                        while a < (1 << top)
                            && free(
                                &taken,
                                bx / (2 * a) * (2 * a),
                                by / (2 * a) * (2 * a),
                                2 * a,
                            )
                        {
                            a *= 2;
                        }
                        if best.is_none_or(|b| (a, by, bx) < b) {
                            best = Some((a, by, bx));
                        }
                    }
                }
                match best {
                    Some((_, by, bx)) => {
                        for y in by..by + s {
                            for x in bx..bx + s {
                                taken[(y * w + x) as usize] = true;
                                out.push((x + 1, y + 1));
                            }
                        }
                        want[i as usize] -= 1;
                    }
                    None if i > 0 => {
                        want[i as usize - 1] += 4 * want[i as usize];
                        want[i as usize] = 0;
                    }
                    None => return None,
                }
            }
        }
        Some(out)
    }
}

/// The documented d-BT counter-example: 1 then 9 nodes on an empty 4 × 4 mesh. Task 9 =
/// 4 + 4 + 1: the first 2 × 2 goes to the free north-west square, the second to the
/// south-east square (the sibling subtree of the west half), the single node next to it in
/// the north-east square — leaving three free single nodes in each of two squares (D = 6),
/// where ind-BT fills the hole next to the first task (D = 3, the minimum for 6 nodes).
#[test]
fn dependent_bt_is_not_compact() {
    for (name, d) in [("d_bt", 6), ("ind_bt", 3)] {
        let mut m = Mesh::new(4, 4).expect("mesh");
        let kind = BinaryTreeKind::parse(name).expect("name");
        let steps =
            run_stream(kind.build().as_mut(), &mut m, &[1, 9], io(IoSide::West)).expect("stream");
        assert_eq!(steps[1].squares, d, "{name}");
        assert_eq!(steps[1].min_squares, 3);
    }
}

/// Smoke: the kinds' tree search is deterministic.
#[test]
fn deterministic() {
    let m = mesh_from(16, 16, &(0..352).map(|i| i % 7 == 0).collect::<Vec<_>>());
    for kind in BinaryTreeKind::paper() {
        let a = kind.build().select(&m, 37);
        let b = kind.build().select(&m, 37);
        assert_eq!(a, b, "{kind}");
    }
    // The named paper configurations include every family.
    assert!(BinaryTreeKind::paper().contains(&BinaryTreeKind::Tree(
        TreeSplit::Dependent,
        TreeRule::Dynamic(16)
    )));
}

/// Liu et al.'s program under the wormhole model (`reproduce binary-tree --model wormhole`),
/// by hand on a 2 × 1 mesh with one I/O node (L = 8): an all-to-all round of the two nodes
/// takes 3 − 1 + L = 10 flit times, the write round 2 + 2L = 18 (the second worm waits L − 1
/// behind the first on the I/O link). E exchanges then one write: 10 E + 18; K rounds of that:
/// K (10 E + 18).
#[test]
fn liu_programs_under_the_wormhole_model_by_hand() {
    use schedlab::alloc::node_allocator::NodeAllocatorKind;
    use schedlab::network::flow::FlowJob;
    use schedlab::network::wormhole::{simulate_wormhole, ExchangeProgram, WormholeConfig};
    use schedlab::network::{Network, NetworkConfig};
    let net = Network::new(NetworkConfig {
        width: 2,
        height: 1,
        io_side: IoSide::West,
        io_count: None,
    })
    .unwrap();
    let job = FlowJob {
        submit: 0.0,
        size: 2,
        compute: 0.0,
    };
    let span = |exchanges: u32, rounds: u32| {
        let cfg = WormholeConfig {
            program: Some(ExchangeProgram { exchanges, rounds }),
            ..WormholeConfig::default()
        };
        let kind = NodeAllocatorKind::Paging(0);
        let r = simulate_wormhole(&net, &[job], kind.build(&net, 1).as_mut(), cfg).unwrap();
        (r.records[0].end, r.stats.delivered)
    };
    assert_eq!(span(0, 1), (18.0, 2));
    assert_eq!(span(1, 1), (28.0, 4));
    assert_eq!(span(4, 1), (58.0, 10));
    assert_eq!(span(4, 2), (116.0, 20));
    let p = ExchangeProgram {
        exchanges: 2,
        rounds: 3,
    };
    assert_eq!(p.total(), 9);
    let io: Vec<u64> = (0..9).filter(|&r| p.is_io(r)).collect();
    assert_eq!(io, vec![2, 5, 8]);
    // Zero rounds is a typed error naming the field.
    let cfg = WormholeConfig {
        program: Some(ExchangeProgram {
            exchanges: 1,
            rounds: 0,
        }),
        ..WormholeConfig::default()
    };
    let kind = NodeAllocatorKind::Paging(0);
    let e = simulate_wormhole(&net, &[job], kind.build(&net, 1).as_mut(), cfg).unwrap_err();
    assert!(e.to_string().contains("program"), "{e}");
}

/// `reproduce binary-tree`'s settings: the wormhole model gives makespans in flit times equal
/// to the single runs', the second reading of §5.2 (2 rounds) makes every phase-model task
/// about twice as long, and a bad model or round count is refused naming it.
#[test]
fn the_binary_tree_reproduction_takes_a_model_and_rounds() {
    use schedlab::alloc::node_allocator::NodeAllocatorKind;
    use schedlab::modes::mesh::spec::ContentionModel;
    use schedlab::reproduce::binary_tree::{
        network, reproduce_with, run_one, run_one_with, tasks, BtSettings, EXCHANGES, SEED,
    };
    let net = network();
    let worm = BtSettings {
        model: ContentionModel::Wormhole,
        rounds: 1,
        dbt_of_free: false,
        imbalance_of_rectangle: false,
    };
    let out = reproduce_with(1, Some("plas"), 2, worm).unwrap();
    assert_eq!(out.kinds, vec![NodeAllocatorKind::Plas]);
    for (e, &x) in EXCHANGES.iter().enumerate().take(3) {
        for r in 0..2 {
            let one = run_one_with(
                &net,
                NodeAllocatorKind::Plas,
                x,
                &tasks(r),
                SEED + r as u64,
                worm,
            )
            .unwrap();
            assert_eq!(out.measures[0][e][r], one);
            // Flit times are integers.
            assert_eq!(one.makespan, one.makespan.round());
        }
    }
    // More exchanges, longer makespans.
    assert!(out.makespan(0, 4).mean > out.makespan(0, 0).mean);
    let twice = BtSettings {
        model: ContentionModel::Flow,
        rounds: 2,
        dbt_of_free: false,
        imbalance_of_rectangle: false,
    };
    let a = run_one(&net, NodeAllocatorKind::Plas, 4, &tasks(0), SEED).unwrap();
    let b = run_one_with(&net, NodeAllocatorKind::Plas, 4, &tasks(0), SEED, twice).unwrap();
    assert!(
        b.makespan > 1.5 * a.makespan,
        "{} vs {}",
        b.makespan,
        a.makespan
    );
    for bad in [
        BtSettings {
            model: ContentionModel::Separated,
            rounds: 1,
            dbt_of_free: false,
            imbalance_of_rectangle: false,
        },
        BtSettings {
            model: ContentionModel::Flow,
            rounds: 0,
            dbt_of_free: false,
            imbalance_of_rectangle: false,
        },
    ] {
        let e = reproduce_with(1, Some("plas"), 2, bad).err().unwrap();
        let key = if bad.rounds == 0 { "rounds" } else { "model" };
        assert!(e.to_string().contains(key), "{e}");
    }
}

/// §3.1's second reading of DBT's tolerance ratio (`Balance::DynamicFree`, `reproduce
/// binary-tree --dbt-ratio-of free`), by hand on a 4 × 4 mesh, west I/O: the west half (area 8)
/// has 2 free nodes, the east half 8. A request of 2: putting it in the heavier west half
/// leaves an imbalance of 8 − 2 + 2 = 8. Ratio 1/2 of the root's area: 8 · 2 ≤ 16, the heavier
/// child first; ratio 1/2 of the root's free processors: 8 · 2 > 10, the lighter one first. On an
/// empty mesh the two readings are one rule.
#[test]
fn dbt_ratio_of_free_processors_by_hand() {
    let busy: Vec<bool> = (0..16)
        .map(|i| {
            let (x, y) = (i % 4, i / 4);
            x < 2 && !(x == 0 && y < 2)
        })
        .collect();
    let m = mesh_from(4, 4, &busy);
    assert_eq!(m.free_count(), 10);
    let frame = Frame::new(&m, io(IoSide::West));
    let root = frame.root();
    let (west, east) = root.children().unwrap();
    assert_eq!((west.c, west.w, east.c), (0, 2, 2));
    assert_eq!((frame.free_in(west), frame.free_in(east)), (2, 8));
    assert_eq!(
        Balance::Dynamic(2).order(&frame, root, west, east, 2),
        [west, east]
    );
    assert_eq!(
        Balance::DynamicFree(2).order(&frame, root, west, east, 2),
        [east, west]
    );
    // Ratio 1/4: 8 · 4 > 16 and > 10, the lighter child under both readings.
    assert_eq!(
        Balance::Dynamic(4).order(&frame, root, west, east, 2),
        [east, west]
    );
    assert_eq!(
        Balance::DynamicFree(4).order(&frame, root, west, east, 2),
        [east, west]
    );
    // Empty: free = area, the same order for every request and ratio.
    let empty = Mesh::new(4, 4).unwrap();
    let f = Frame::new(&empty, io(IoSide::West));
    for r in 1..=8 {
        for d in [1, 2, 4, 8, 16] {
            assert_eq!(
                Balance::Dynamic(d).order(&f, root, west, east, r),
                Balance::DynamicFree(d).order(&f, root, west, east, r)
            );
        }
    }
    // The allocators: d-DBT(1/2) under the second reading is built by name and reading.
    let kind = BinaryTreeKind::Tree(TreeSplit::Dependent, TreeRule::Dynamic(2));
    let mut a = kind.build_reading(io(IoSide::West), true);
    let got = a.select(&m, 2).unwrap();
    check_nodes(&m, &got, 2, "d_dbt_2 (free)");
    assert!(got.iter().all(|&(x, _)| x >= 3), "{got:?}");
    let mut b = kind.build_for(io(IoSide::West));
    let got = b.select(&m, 2).unwrap();
    assert_eq!(got.len(), 2);
}

/// §3.1's other reading of the imbalance after an allocation (`Balance::StaticRect`,
/// `DynamicRect`, `reproduce binary-tree --imbalance-counts rectangle`), by hand on a 4 × 4
/// mesh: the west half has 4 free nodes (the heavier child), the east half 8. A request of 3
/// takes a 2 × 2 tree rectangle (A = 4). Counting the request: 8 − 4 + 3 = 7 ≤ α = 7, the
/// heavier child first; counting the rectangle: 8 − 4 + 4 = 8 > 7, the lighter one first. For
/// DBT ratio 1/2 of the root (16): 7 · 2 ≤ 16 and 8 · 2 ≤ 16, the heavier child either way; a
/// request that fills its rectangle (r = 4) gives one rule.
#[test]
fn imbalance_counting_the_rectangle_by_hand() {
    let busy: Vec<bool> = (0..16)
        .map(|i| {
            let (x, y) = (i % 4, i / 4);
            x < 2 && y >= 2
        })
        .collect();
    let m = mesh_from(4, 4, &busy);
    let frame = Frame::new(&m, io(IoSide::West));
    let root = frame.root();
    let (west, east) = root.children().unwrap();
    assert_eq!((frame.free_in(west), frame.free_in(east)), (4, 8));
    assert_eq!(
        Balance::Static(7).order(&frame, root, west, east, 3),
        [west, east]
    );
    assert_eq!(
        Balance::StaticRect(7).order(&frame, root, west, east, 3),
        [east, west]
    );
    assert_eq!(
        Balance::StaticRect(8).order(&frame, root, west, east, 3),
        [west, east]
    );
    assert_eq!(
        Balance::Dynamic(2).order(&frame, root, west, east, 3),
        [west, east]
    );
    assert_eq!(
        Balance::DynamicRect(2).order(&frame, root, west, east, 3),
        [west, east]
    );
    for alpha in [0, 4, 7, 8, 16] {
        assert_eq!(
            Balance::Static(alpha).order(&frame, root, west, east, 4),
            Balance::StaticRect(alpha).order(&frame, root, west, east, 4)
        );
    }
    // SBT(α = 4 … 256 named only as powers of two): SBT(4) of a request of 3 under both
    // readings goes east (7 > 4, 8 > 4); built by reading, it allocates there.
    let kind = BinaryTreeKind::Tree(TreeSplit::Contiguous, TreeRule::Static(4));
    let mut a = kind.build_readings(io(IoSide::West), false, true);
    let got = a.select(&m, 3).unwrap();
    check_nodes(&m, &got, 3, "sbt_4 (rectangle)");
    assert!(got.iter().all(|&(x, _)| x >= 3), "{got:?}");
}
