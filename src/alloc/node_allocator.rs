//! Non-contiguous processor allocation by name (Mache et al. §3; Liu et al. §1): the
//! allocators of [`NodeAllocatorKind`], each named once in the registry, built behind the
//! [`NodeAllocator`] trait of [`super::node`] (re-exported here with the helpers the
//! allocators share).
//!
//! The allocators (one file each): [`crate::alloc::random`], [`crate::alloc::paging`],
//! [`crate::alloc::mbs`], [`crate::alloc::mc`], [`crate::alloc::mc_elongated`],
//! [`crate::alloc::plas`], [`crate::alloc::hilbert`], and the binary-tree allocators of Liu
//! et al. §3–4 ([`crate::alloc::binary_tree`]: BT, SBT, DBT, their ind-/d- variants, SCBT). See
//! `docs/network.md` and `docs/binary-tree.md` for the choices where the papers are vague.
//!
//! BT, SBT and DBT are contiguous: their `select` may return `None` although j nodes are free
//! (no entirely free tree rectangle); the flow engine then lets the job wait.

use std::fmt;

pub use super::node::{free_nodes, IoLayout, Node, NodeAllocator};
use crate::base::{Entry, Family, Param, Registered};
use crate::network::Network;

use super::binary_tree::{BinaryTreeKind, TreeRule, TreeSplit};
use super::hilbert::{Hilbert, HilbertFit};
use super::mbs::MultipleBuddy;
use super::mc::MinimizingContention;
use super::mc_elongated::McElongated;
use super::paging::Paging;
use super::plas::Plas;
use super::random::RandomAlloc;

/// The non-contiguous allocators by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeAllocatorKind {
    /// Uniformly random free nodes (SimRng).
    Random,
    /// Paging with square pages of side 2^i, row-major page order.
    Paging(u32),
    /// Multiple Buddy Strategy.
    Mbs,
    /// Minimizing Contention (concentric shells around a request-shaped shell 0).
    Mc,
    /// MC-Elongated (Mache et al. §3.2).
    McElongated,
    /// Parallel Layout Allocation Strategy (Mache et al. §2.3, Fig. 5).
    Plas,
    /// Hilbert-curve 1D allocation (Liu et al. §1) with the given fit.
    Hilbert(HilbertFit),
    /// The binary-tree allocators of Liu et al. §3–4 (`docs/binary-tree.md`).
    BinaryTree(BinaryTreeKind),
}

/// An unknown non-contiguous allocator name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownNodeAllocator(pub String);

impl fmt::Display for UnknownNodeAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        NODE_ALLOCATORS.unknown(&self.0).fmt(f)
    }
}

impl std::error::Error for UnknownNodeAllocator {}

/// The non-contiguous allocators, each named once (file name, label, description), in the
/// order of [`NodeAllocatorKind::ALL`].
pub const NODE_ALLOCATORS: Family = Family {
    key: "node_allocator",
    noun: "allocator",
    sep: '_',
    entries: &[
        Entry::aliased("mc_elongated", &["mce"], "MC-Elongated", "Non-contiguous: MC with shells elongated along the I/O side, centred on the middle I/O link (Mache et al. §3.2)."),
        Entry::plain("plas", "PLAS", "Non-contiguous: Parallel Layout Allocation Strategy, columns parallel to the I/O nodes (Mache et al. §2.3)."),
        Entry::plain("mc", "MC", "Non-contiguous: Minimizing Contention, concentric shells around a request-shaped shell 0 (Mache et al. §2)."),
        Entry::plain("random", "Random", "Non-contiguous: uniformly random free nodes (seeded)."),
        Entry::plain("mbs", "MBS", "Non-contiguous: Multiple Buddy Strategy, the request in base 4 as square buddy blocks (Mache et al. §4.1)."),
        Entry::with_param(
            "paging",
            "Paging({})",
            "Non-contiguous: square pages of side 2^i in row-major page order (Mache et al. §4.1).",
            Param {
                symbol: "i",
                label: "Page side 2^i",
                min: 0,
                max: 15,
                bare: Some(0),
                description: "page side 2^i, 0 ≤ i ≤ 15; `paging` = `paging_0`",
            },
        ),
        Entry::aliased("hilbert_ff", &["hilbert"], "Hilbert FF", "Non-contiguous: Hilbert-curve order, first free interval that holds the request (Liu et al. §1)."),
        Entry::plain("hilbert_bf", "Hilbert BF", "Non-contiguous: Hilbert-curve order, smallest free interval that holds the request (Liu et al. §1)."),
        Entry::plain("hilbert_ss", "Hilbert SS", "Non-contiguous: Hilbert-curve order, the interval minimising the sum of squares of free-interval counts (Liu et al. §1)."),
        Entry::plain("bt", "BT", "Contiguous (may make a job wait): binary-tree allocation, column-first in the smallest entirely free tree rectangle that holds the request (Liu et al. §3.1)."),
        Entry {
            name: "sbt",
            aliases: &[],
            label: "SBT({})",
            short: "SBT({})",
            description: "Contiguous (may make a job wait): static BT, the heavier child first unless the imbalance would exceed a global tolerance α (Liu et al. §3.1).",
            param: Some(ALPHA),
        },
        Entry {
            name: "dbt",
            aliases: &[],
            label: "DBT(1/{})",
            short: "DBT(1/{})",
            description: "Contiguous (may make a job wait): dynamic BT, the tolerance a ratio 1/d of the rectangle's size (Liu et al. §3.1).",
            param: Some(DENOMINATOR),
        },
        Entry::plain("ind_bt", "ind-BT", "Non-contiguous: BT on the request split as MBS does (base 4), each sub-request from the root (Liu et al. §3.2)."),
        Entry {
            name: "ind_sbt",
            aliases: &[],
            label: "ind-SBT({})",
            short: "ind-SBT({})",
            description: "Non-contiguous: SBT on MBS-style sub-requests, each from the root (Liu et al. §3.2).",
            param: Some(ALPHA),
        },
        Entry {
            name: "ind_dbt",
            aliases: &[],
            label: "ind-DBT(1/{})",
            short: "ind-DBT(1/{})",
            description: "Non-contiguous: DBT on MBS-style sub-requests, each from the root (Liu et al. §3.2).",
            param: Some(DENOMINATOR),
        },
        Entry::plain("d_bt", "d-BT", "Non-contiguous: BT on MBS-style sub-requests, each next one searched from the previous one's parent (Liu et al. §3.2)."),
        Entry {
            name: "d_sbt",
            aliases: &[],
            label: "d-SBT({})",
            short: "d-SBT({})",
            description: "Non-contiguous: SBT on MBS-style sub-requests, each next one near the previous (Liu et al. §3.2).",
            param: Some(ALPHA),
        },
        Entry {
            name: "d_dbt",
            aliases: &[],
            label: "d-DBT(1/{})",
            short: "d-DBT(1/{})",
            description: "Non-contiguous: DBT on MBS-style sub-requests, each next one near the previous (Liu et al. §3.2).",
            param: Some(DENOMINATOR),
        },
        Entry::plain("scbt", "SCBT", "Non-contiguous: spatially compact BT, the binary digits of the request as first fit along the orthogonal division (Liu et al. §4.1.1)."),
    ],
};

/// SBT's global imbalance tolerance α (Liu et al. §3.1; the paper sweeps 4, 16, 64, 256).
const ALPHA: Param = Param {
    symbol: "α",
    label: "Imbalance tolerance α",
    min: 0,
    max: 4096,
    bare: None,
    description: "global imbalance tolerance, 0 or a power of two up to 4096",
};

/// DBT's tolerance ratio 1/d (Liu et al. §3.1; the paper sweeps 1/16, 1/8, 1/4, 1/2).
const DENOMINATOR: Param = Param {
    symbol: "d",
    label: "Tolerance ratio 1/d",
    min: 1,
    max: 64,
    bare: None,
    description: "tolerance ratio 1/d of the rectangle's size, d a power of two up to 64",
};

/// Index of the first binary-tree entry in [`NODE_ALLOCATORS`].
const TREE_BASE: usize = 9;

crate::base::registry::registered_serde!(NodeAllocatorKind);

impl Registered for NodeAllocatorKind {
    fn family() -> &'static Family {
        &NODE_ALLOCATORS
    }
    fn key(self) -> (usize, Option<u64>) {
        match self {
            NodeAllocatorKind::McElongated => (0, None),
            NodeAllocatorKind::Plas => (1, None),
            NodeAllocatorKind::Mc => (2, None),
            NodeAllocatorKind::Random => (3, None),
            NodeAllocatorKind::Mbs => (4, None),
            NodeAllocatorKind::Paging(i) => (5, Some(u64::from(i))),
            NodeAllocatorKind::Hilbert(HilbertFit::FirstFit) => (6, None),
            NodeAllocatorKind::Hilbert(HilbertFit::BestFit) => (7, None),
            NodeAllocatorKind::Hilbert(HilbertFit::SumOfSquares) => (8, None),
            NodeAllocatorKind::BinaryTree(BinaryTreeKind::Scbt) => (TREE_BASE + 9, None),
            NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(split, rule)) => {
                let s = match split {
                    TreeSplit::Contiguous => 0,
                    TreeSplit::Independent => 3,
                    TreeSplit::Dependent => 6,
                };
                match rule {
                    TreeRule::Plain => (TREE_BASE + s, None),
                    TreeRule::Static(a) => (TREE_BASE + s + 1, Some(u64::from(a))),
                    TreeRule::Dynamic(d) => (TREE_BASE + s + 2, Some(u64::from(d))),
                }
            }
        }
    }
    fn from_key(i: usize, p: Option<u64>) -> Option<NodeAllocatorKind> {
        if i >= TREE_BASE {
            let r = i - TREE_BASE;
            if r == 9 {
                return p
                    .is_none()
                    .then_some(NodeAllocatorKind::BinaryTree(BinaryTreeKind::Scbt));
            }
            let split = match r / 3 {
                0 => TreeSplit::Contiguous,
                1 => TreeSplit::Independent,
                2 => TreeSplit::Dependent,
                _ => return None,
            };
            let v = p.and_then(|v| u32::try_from(v).ok());
            let rule = match (r % 3, v) {
                (0, None) if p.is_none() => TreeRule::Plain,
                // Only the values BinaryTreeKind names: α = 0 or a power of two, d a power of two.
                (1, Some(a)) if a == 0 || a.is_power_of_two() => TreeRule::Static(a),
                (2, Some(d)) if d.is_power_of_two() => TreeRule::Dynamic(d),
                _ => return None,
            };
            let k = BinaryTreeKind::Tree(split, rule);
            return k.name().map(|_| NodeAllocatorKind::BinaryTree(k));
        }
        match (i, p) {
            (5, Some(v)) => u32::try_from(v).ok().map(NodeAllocatorKind::Paging),
            (5, None) => None,
            (_, None) => NodeAllocatorKind::ALL.get(i).copied(),
            (_, Some(_)) => None,
        }
    }
}

impl NodeAllocatorKind {
    /// Every allocator (Paging with 1 × 1 pages).
    pub const ALL: [NodeAllocatorKind; 9] = [
        NodeAllocatorKind::McElongated,
        NodeAllocatorKind::Plas,
        NodeAllocatorKind::Mc,
        NodeAllocatorKind::Random,
        NodeAllocatorKind::Mbs,
        NodeAllocatorKind::Paging(0),
        NodeAllocatorKind::Hilbert(HilbertFit::FirstFit),
        NodeAllocatorKind::Hilbert(HilbertFit::BestFit),
        NodeAllocatorKind::Hilbert(HilbertFit::SumOfSquares),
    ];

    /// The binary-tree allocators of Liu et al. (`BinaryTreeKind::paper`: BT, SBT 4/16/64/256,
    /// DBT 1/16 … 1/2 for the contiguous, independent and dependent families, and SCBT).
    pub fn trees() -> Vec<NodeAllocatorKind> {
        BinaryTreeKind::paper()
            .into_iter()
            .map(NodeAllocatorKind::BinaryTree)
            .collect()
    }

    /// `true` when `select` may refuse a request although j nodes are free (BT, SBT, DBT).
    pub fn may_refuse(self) -> bool {
        matches!(self, NodeAllocatorKind::BinaryTree(k) if k.is_contiguous())
    }

    /// The name used in files and on the command line.
    pub fn as_str(self) -> String {
        self.name()
    }

    /// Parses a name (`paging` = `paging_0`; `-` and `_` are the same).
    pub fn parse(s: &str) -> Result<NodeAllocatorKind, UnknownNodeAllocator> {
        NodeAllocatorKind::lookup(s).map_err(|_| UnknownNodeAllocator(s.to_string()))
    }

    /// A fresh allocator for `net` (PLAS and MC-Elongated read its I/O line; Random is
    /// seeded with `seed`).
    pub fn build(self, net: &Network, seed: u64) -> Box<dyn NodeAllocator> {
        let io = IoLayout::of(net);
        match self {
            NodeAllocatorKind::Random => Box::new(RandomAlloc::new(seed)),
            NodeAllocatorKind::Paging(i) => Box::new(Paging::new(i)),
            NodeAllocatorKind::Mbs => Box::new(MultipleBuddy),
            NodeAllocatorKind::Mc => Box::new(MinimizingContention),
            NodeAllocatorKind::McElongated => Box::new(McElongated::new(io)),
            NodeAllocatorKind::Plas => Box::new(Plas::new(io)),
            NodeAllocatorKind::Hilbert(f) => Box::new(Hilbert::new(f)),
            NodeAllocatorKind::BinaryTree(k) => k.build_for(io),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::base::SimRng;
    use crate::machine::mesh::{Mesh, Submesh};
    use crate::network::{IoSide, NetworkConfig};

    #[test]
    fn names_round_trip() {
        let net = Network::mc_elongated();
        for k in NodeAllocatorKind::ALL
            .into_iter()
            .chain([NodeAllocatorKind::Paging(2)])
            .chain(NodeAllocatorKind::trees())
        {
            assert_eq!(NodeAllocatorKind::parse(&k.as_str()), Ok(k));
            assert_eq!(k.build(&net, 1).name(), k.as_str());
            if let NodeAllocatorKind::BinaryTree(t) = k {
                assert_eq!(k.as_str(), t.as_str());
                assert_eq!(k.may_refuse(), t.is_contiguous());
            }
        }
        let sbt = |a| {
            NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(
                TreeSplit::Contiguous,
                TreeRule::Static(a),
            ))
        };
        let d_dbt = |d| {
            NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(
                TreeSplit::Dependent,
                TreeRule::Dynamic(d),
            ))
        };
        assert_eq!(NodeAllocatorKind::parse("SBT-16"), Ok(sbt(16)));
        assert_eq!(NodeAllocatorKind::parse("sbt_0"), Ok(sbt(0)));
        assert_eq!(sbt(16).label(), "SBT(16)");
        assert_eq!(d_dbt(8).label(), "d-DBT(1/8)");
        assert_eq!(d_dbt(8).as_str(), "d_dbt_8");
        assert_eq!(
            NodeAllocatorKind::parse("ind_dbt_8").map(|k| k.label()),
            Ok("ind-DBT(1/8)".to_string())
        );
        for bad in [
            "sbt", "sbt_3", "sbt_8192", "dbt_0", "dbt_3", "dbt_128", "d_scbt", "bt_1",
        ] {
            assert!(NodeAllocatorKind::parse(bad).is_err(), "{bad}");
        }
        assert!(NodeAllocatorKind::parse("scbt").is_ok_and(|k| !k.may_refuse()));
        assert_eq!(
            NodeAllocatorKind::parse(" MC-Elongated "),
            Ok(NodeAllocatorKind::McElongated)
        );
        assert_eq!(
            NodeAllocatorKind::parse("paging"),
            Ok(NodeAllocatorKind::Paging(0))
        );
        assert!(NodeAllocatorKind::parse("paging_x").is_err());
        assert!(NodeAllocatorKind::parse("paging_99").is_err());
        assert!(NodeAllocatorKind::parse("worst").is_err());
    }

    #[test]
    fn middle_out_order_and_lines() {
        let io = IoLayout::west(16);
        assert_eq!(&io.middle_out(16)[..6], &[8, 9, 7, 10, 6, 11]);
        let m = Mesh::new(5, 4).unwrap();
        for side in [IoSide::West, IoSide::East, IoSide::South, IoSide::North] {
            let net = Network::new(NetworkConfig {
                width: 5,
                height: 4,
                io_side: side,
                io_count: None,
            })
            .unwrap();
            let io = IoLayout::of(&net);
            let mut seen = Vec::new();
            for c in 0..io.lines(&m) {
                for p in 1..=io.line_len(&m) {
                    let n = io.node(&m, c, p);
                    assert_eq!(io.line_pos(&m, n), (c, p));
                    seen.push(n);
                }
            }
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 20);
        }
        // Line 0 is next to the I/O nodes.
        let east = IoLayout {
            side: IoSide::East,
            middle_twice: 5,
        };
        assert_eq!(east.node(&m, 0, 1), (5, 1));
    }

    /// Random states of a mesh: each node busy with probability `p`.
    pub(crate) fn random_mesh(rng: &mut SimRng, w: u32, h: u32, p: f64) -> Mesh {
        let mut m = Mesh::new(w, h).unwrap();
        let mut job = 0;
        for y in 1..=h {
            for x in 1..=w {
                if rng.bernoulli(p) {
                    m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
                    job += 1;
                }
            }
        }
        m
    }

    fn free_nodes_complement(m: &Mesh) -> Vec<Node> {
        (1..=m.height())
            .flat_map(|y| (1..=m.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| !m.is_free(x, y))
            .collect()
    }

    /// Mache et al. Property 4: filling an empty mesh without departures (exponential job sizes
    /// of mean 16, as in Table 1), the system balance factor is at most 1 after every
    /// allocation and 0 whenever an even number of nodes is allocated — on every side of the
    /// mesh the I/O nodes can sit on (one per row or column).
    pub(crate) fn fill_without_departures(
        make: impl Fn(IoLayout) -> Box<dyn NodeAllocator>,
        even_sizes: bool,
        slack: u64,
    ) -> u64 {
        let mut worst = 0;
        use crate::network::metrics::above_below;
        let mut rng = SimRng::new(17);
        for side in [IoSide::West, IoSide::East, IoSide::South, IoSide::North] {
            for &(w, h) in &[(22, 16), (8, 8), (5, 6)] {
                let net = Network::new(NetworkConfig {
                    width: w,
                    height: h,
                    io_side: side,
                    io_count: None,
                })
                .unwrap();
                for _ in 0..6 {
                    let mut a = make(IoLayout::of(&net));
                    let mut m = Mesh::new(w, h).unwrap();
                    let mut job = 0;
                    while m.free_count() > 0 {
                        let mut j = (libm::round(rng.exponential(16.0)) as u32).max(1);
                        if even_sizes {
                            j = j.div_ceil(2) * 2;
                        }
                        let j = j.min(m.free_count());
                        let v = a.select(&m, j).unwrap();
                        for (x, y) in v {
                            m.allocate(job, Submesh::at(x, y, 1, 1)).unwrap();
                        }
                        job += 1;
                        let busy = free_nodes_complement(&m);
                        let (above, below) = above_below(&net, &busy);
                        let bf = above.abs_diff(below);
                        // Nodes level with the middle (odd line length) count on neither side.
                        let limit = (above + below) % 2;
                        worst = worst.max(bf);
                        assert!(
                            bf <= limit + slack,
                            "{} {side:?} {w}×{h}: balance {bf} after job {job} (j={j})\n{}",
                            a.name(),
                            m.render()
                        );
                    }
                }
            }
        }
        worst
    }

    /// Every allocator returns exactly j distinct free nodes whenever j ≤ free, else `None`.
    #[test]
    fn every_allocator_returns_j_distinct_free_nodes() {
        let mut rng = SimRng::new(5);
        let shapes = [(1, 1), (4, 4), (5, 3), (3, 7), (22, 16), (8, 8)];
        for &(w, h) in &shapes {
            let net = Network::new(NetworkConfig {
                width: w,
                height: h,
                io_side: IoSide::West,
                io_count: None,
            })
            .unwrap();
            let mut allocs: Vec<Box<dyn NodeAllocator>> = NodeAllocatorKind::ALL
                .into_iter()
                .chain([NodeAllocatorKind::Paging(1), NodeAllocatorKind::Paging(2)])
                .map(|k| k.build(&net, 9))
                .collect();
            let cases = if w * h > 100 { 12 } else { 40 };
            for _ in 0..cases {
                let p = rng.uniform01();
                let m = random_mesh(&mut rng, w, h, p);
                let free = m.free_count();
                let js = [
                    0,
                    1,
                    free,
                    free + 1,
                    rng.uniform_int(1, u64::from(free.max(1))) as u32,
                    rng.uniform_int(1, u64::from(free.max(1))) as u32,
                ];
                for a in allocs.iter_mut() {
                    for &j in &js {
                        let got = a.select(&m, j);
                        if j > free {
                            assert_eq!(got, None, "{} j={j} free={free}", a.name());
                            continue;
                        }
                        let mut v = got.unwrap_or_else(|| panic!("{} j={j}", a.name()));
                        assert_eq!(v.len(), j as usize, "{} j={j}\n{}", a.name(), m.render());
                        assert!(v.iter().all(|&(x, y)| m.is_free(x, y)), "{}", a.name());
                        v.sort_unstable();
                        v.dedup();
                        assert_eq!(v.len(), j as usize, "{} duplicates", a.name());
                    }
                }
            }
        }
    }
}
