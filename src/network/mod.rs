//! The interconnection network of Mache et al. §2.1 and §4.1 ("Job scheduling
//! that minimizes network contention due to both communication and I/O"): a W × H mesh of
//! compute nodes plus a line of I/O nodes on one side (default: one I/O node per row on the
//! west side, as on the 16 × 22 Paragon partition of §4.1), two unidirectional links between
//! every pair of adjacent nodes (I/O nodes included) and dimension-ordered XY routing (X first,
//! then Y). Liu et al. §2 uses the same system model.
//!
//! Coordinates extend the mesh's ([`crate::machine::mesh`]): compute nodes are (x, y) with
//! 1 ≤ x ≤ W, 1 ≤ y ≤ H, row 1 at the bottom; the I/O line is column 0 (west), column W + 1
//! (east), row 0 (south) or row H + 1 (north). Every position of the I/O line is a router; with
//! fewer I/O nodes than positions, the positions without an I/O node only forward messages
//! (see `docs/network.md`). [`LinkLoads`] counts the messages crossing every directed link;
//! [`metrics`] has the layout metrics (nodes_affected, balance factor, link and hot-spot loads).

pub mod flow;
pub mod heat;
pub mod layout;
pub mod link_counts;
pub mod metrics;
pub mod separated;
pub mod wormhole;

use std::fmt;

/// A node of the network: a compute node (1..=W, 1..=H) or a position of the I/O line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetNode {
    /// Column (0 = west I/O line, W + 1 = east I/O line).
    pub x: u32,
    /// Row (0 = south I/O line, H + 1 = north I/O line).
    pub y: u32,
}

impl NetNode {
    /// The node (x, y).
    pub const fn new(x: u32, y: u32) -> NetNode {
        NetNode { x, y }
    }
}

impl fmt::Display for NetNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// The side of the mesh the I/O nodes sit on.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum IoSide {
    /// Column 0, left of column 1 (Mache et al. §4.1).
    #[default]
    West,
    /// Column W + 1.
    East,
    /// Row 0, below row 1.
    South,
    /// Row H + 1.
    North,
}

impl IoSide {
    /// `true` for west and east: the I/O line is vertical (parallel to the Y axis).
    pub const fn is_vertical(self) -> bool {
        matches!(self, IoSide::West | IoSide::East)
    }
}

/// Direction of a link leaving a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// x + 1.
    East = 0,
    /// x − 1.
    West = 1,
    /// y + 1 (up).
    North = 2,
    /// y − 1 (down).
    South = 3,
}

impl Dir {
    /// All four directions, in link-index order.
    pub const ALL: [Dir; 4] = [Dir::East, Dir::West, Dir::North, Dir::South];
}

/// A directed (unidirectional) link: from `from` one hop in direction `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Link {
    /// Tail of the link.
    pub from: NetNode,
    /// Direction of the hop.
    pub dir: Dir,
}

impl Link {
    /// Head of the link.
    pub const fn to(&self) -> NetNode {
        let NetNode { x, y } = self.from;
        match self.dir {
            Dir::East => NetNode::new(x + 1, y),
            Dir::West => NetNode::new(x.wrapping_sub(1), y),
            Dir::North => NetNode::new(x, y + 1),
            Dir::South => NetNode::new(x, y.wrapping_sub(1)),
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}→{}", self.from, self.to())
    }
}

/// Geometry of the network: mesh size and I/O line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Mesh width W (columns of compute nodes).
    pub width: u32,
    /// Mesh height H (rows of compute nodes).
    pub height: u32,
    /// Side of the I/O nodes.
    pub io_side: IoSide,
    /// Number of I/O nodes, 1 ..= length of that side; `None` = one per row (or column).
    pub io_count: Option<u32>,
}

impl Default for NetworkConfig {
    /// Mache et al. §4.1: 22 columns × 16 rows of compute nodes, 16 I/O nodes on the west side.
    fn default() -> Self {
        NetworkConfig {
            width: 22,
            height: 16,
            io_side: IoSide::West,
            io_count: None,
        }
    }
}

/// A network that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// Width or height is 0 or above 4096.
    BadSize { width: u32, height: u32 },
    /// The I/O count is 0 or longer than the side.
    BadIoCount { count: u32, side_length: u32 },
    /// A route endpoint is not a node of the network.
    NotANode(NetNode),
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::BadSize { width, height } => write!(
                f,
                "a {width} × {height} network is not possible (sides 1..=4096)"
            ),
            NetworkError::BadIoCount { count, side_length } => write!(
                f,
                "{count} I/O nodes do not fit on a side of length {side_length} (1..={side_length})"
            ),
            NetworkError::NotANode(n) => write!(f, "{n} is not a node of the network"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// The mesh of compute nodes, the I/O line and the links between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    width: u32,
    height: u32,
    side: IoSide,
    /// I/O nodes in increasing order along the I/O line.
    io: Vec<NetNode>,
}

impl Network {
    /// Builds the network; the I/O nodes are spread evenly along the side: I/O node i
    /// (0-based) of c on a side of length L sits at position ⌊(2i + 1) · L / (2c)⌋ + 1 — with
    /// c = L exactly one per row (column).
    pub fn new(cfg: NetworkConfig) -> Result<Network, NetworkError> {
        let NetworkConfig {
            width,
            height,
            io_side,
            io_count,
        } = cfg;
        if width == 0 || height == 0 || width > 4096 || height > 4096 {
            return Err(NetworkError::BadSize { width, height });
        }
        let len = if io_side.is_vertical() { height } else { width };
        let count = io_count.unwrap_or(len);
        if count == 0 || count > len {
            return Err(NetworkError::BadIoCount {
                count,
                side_length: len,
            });
        }
        let io = (0..count)
            .map(|i| {
                let pos =
                    ((2 * u64::from(i) + 1) * u64::from(len) / (2 * u64::from(count))) as u32 + 1;
                match io_side {
                    IoSide::West => NetNode::new(0, pos),
                    IoSide::East => NetNode::new(width + 1, pos),
                    IoSide::South => NetNode::new(pos, 0),
                    IoSide::North => NetNode::new(pos, height + 1),
                }
            })
            .collect();
        Ok(Network {
            width,
            height,
            side: io_side,
            io,
        })
    }

    /// The Mache et al. §4.1 network (22 × 16 compute nodes, 16 west I/O nodes).
    pub fn mc_elongated() -> Network {
        Network {
            width: 22,
            height: 16,
            side: IoSide::West,
            io: (1..=16).map(|y| NetNode::new(0, y)).collect(),
        }
    }

    /// Mesh width W.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Mesh height H.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Side of the I/O line.
    pub fn io_side(&self) -> IoSide {
        self.side
    }

    /// The I/O nodes, in increasing order along the I/O line.
    pub fn io_nodes(&self) -> &[NetNode] {
        &self.io
    }

    /// Twice the coordinate (along the I/O line) of the middle I/O link, the link between
    /// I/O nodes ⌈c/2⌉ and ⌈c/2⌉ + 1 of c (Mache et al. §2.3: between rows k/2 and k/2 + 1). For an
    /// odd c it is twice the position of the middle I/O node. A compute node is *above* the
    /// middle when twice its coordinate along the line exceeds this, *below* when it is less.
    pub fn middle_twice(&self) -> u32 {
        let c = self.io.len();
        let pos = |n: &NetNode| if self.side.is_vertical() { n.y } else { n.x };
        match (self.io.get((c.max(1) - 1) / 2), self.io.get(c / 2)) {
            (Some(a), Some(b)) => pos(a) + pos(b),
            _ => 0,
        }
    }

    /// `true` when (x, y) is a compute node.
    pub fn is_compute(&self, n: NetNode) -> bool {
        n.x >= 1 && n.x <= self.width && n.y >= 1 && n.y <= self.height
    }

    /// `true` when `n` is a position (router) of the I/O line.
    pub fn is_io_line(&self, n: NetNode) -> bool {
        match self.side {
            IoSide::West => n.x == 0 && n.y >= 1 && n.y <= self.height,
            IoSide::East => n.x == self.width + 1 && n.y >= 1 && n.y <= self.height,
            IoSide::South => n.y == 0 && n.x >= 1 && n.x <= self.width,
            IoSide::North => n.y == self.height + 1 && n.x >= 1 && n.x <= self.width,
        }
    }

    /// `true` when `n` is a node (compute node or I/O-line router).
    pub fn is_node(&self, n: NetNode) -> bool {
        self.is_compute(n) || self.is_io_line(n)
    }

    /// `true` when `l` joins two nodes of the network.
    pub fn has_link(&self, l: Link) -> bool {
        self.is_node(l.from) && self.is_node(l.to())
    }

    /// Number of link slots (the index space of [`Network::link_index`]).
    pub fn link_slots(&self) -> usize {
        (self.width as usize + 2) * (self.height as usize + 2) * 4
    }

    /// Index of a link in [`LinkLoads`] (row-major over the extended grid, then direction).
    pub fn link_index(&self, l: Link) -> usize {
        ((l.from.y as usize) * (self.width as usize + 2) + l.from.x as usize) * 4 + l.dir as usize
    }

    /// The link at an index of [`Network::link_index`].
    pub fn link_at(&self, index: usize) -> Link {
        let node = index / 4;
        let w = self.width as usize + 2;
        Link {
            from: NetNode::new((node % w) as u32, (node / w) as u32),
            dir: Dir::ALL[index % 4],
        }
    }

    /// Every link, in index order.
    pub fn links(&self) -> impl Iterator<Item = Link> + '_ {
        (0..self.link_slots())
            .map(|i| self.link_at(i))
            .filter(|l| self.has_link(*l))
    }

    /// Calls `f` on every link of the XY route from `from` to `to` in order: first along X
    /// (in `from`'s row), then along Y (in `to`'s column). Both must be nodes.
    pub fn for_each_route_link(
        &self,
        from: NetNode,
        to: NetNode,
        mut f: impl FnMut(Link),
    ) -> Result<(), NetworkError> {
        for n in [from, to] {
            if !self.is_node(n) {
                return Err(NetworkError::NotANode(n));
            }
        }
        let mut cur = from;
        while cur.x != to.x {
            let dir = if to.x > cur.x { Dir::East } else { Dir::West };
            let l = Link { from: cur, dir };
            f(l);
            cur = l.to();
        }
        while cur.y != to.y {
            let dir = if to.y > cur.y { Dir::North } else { Dir::South };
            let l = Link { from: cur, dir };
            f(l);
            cur = l.to();
        }
        Ok(())
    }

    /// The XY route from `from` to `to` as a list of links (empty when `from == to`).
    pub fn route(&self, from: NetNode, to: NetNode) -> Result<Vec<Link>, NetworkError> {
        let mut v = Vec::new();
        self.for_each_route_link(from, to, |l| v.push(l))?;
        Ok(v)
    }

    /// Empty link-load counters for this network.
    pub fn loads(&self) -> LinkLoads {
        LinkLoads {
            counts: vec![0; self.link_slots()],
        }
    }
}

/// Messages crossing each directed link (indexed by [`Network::link_index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkLoads {
    counts: Vec<u64>,
}

impl LinkLoads {
    /// Messages on link `l` (0 for a link the network does not have).
    pub fn get(&self, net: &Network, l: Link) -> u64 {
        self.counts
            .get(net.link_index(l))
            .copied()
            .unwrap_or_default()
    }

    /// Raw counts by link index.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Resets every count to 0.
    pub fn clear(&mut self) {
        self.counts.fill(0);
    }

    /// Adds `times` messages along the XY route from `from` to `to`.
    pub fn add_route(
        &mut self,
        net: &Network,
        from: NetNode,
        to: NetNode,
        times: u64,
    ) -> Result<(), NetworkError> {
        let counts = &mut self.counts;
        net.for_each_route_link(from, to, |l| {
            if let Some(c) = counts.get_mut(net.link_index(l)) {
                *c += times;
            }
        })
    }

    /// All-to-all among `nodes`: one message from every node to every other node.
    pub fn add_all_to_all(&mut self, net: &Network, nodes: &[NetNode]) -> Result<(), NetworkError> {
        for &a in nodes {
            for &b in nodes {
                if a != b {
                    self.add_route(net, a, b, 1)?;
                }
            }
        }
        Ok(())
    }

    /// Complete-bipartite I/O (Mache et al. §4.1): one message between every node of `nodes` and
    /// every I/O node in `io`; `write` = compute → I/O, otherwise I/O → compute (read).
    pub fn add_bipartite(
        &mut self,
        net: &Network,
        nodes: &[NetNode],
        io: &[NetNode],
        write: bool,
    ) -> Result<(), NetworkError> {
        for &a in nodes {
            for &b in io {
                if write {
                    self.add_route(net, a, b, 1)?;
                } else {
                    self.add_route(net, b, a, 1)?;
                }
            }
        }
        Ok(())
    }

    /// The largest count, 0 when there is none.
    pub fn max(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }

    /// The links with a non-zero count, in index order.
    pub fn nonzero<'a>(&'a self, net: &'a Network) -> impl Iterator<Item = (Link, u64)> + 'a {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (net.link_at(i), c))
    }

    /// The largest count on a link of the I/O line (both ends on the I/O line): the I/O
    /// hot spot of Mache et al. §2.3.
    pub fn io_line_max(&self, net: &Network) -> u64 {
        self.nonzero(net)
            .filter(|(l, _)| net.is_io_line(l.from) && net.is_io_line(l.to()))
            .map(|(_, c)| c)
            .max()
            .unwrap_or(0)
    }
}

/// The 4 × 4 mesh of the paper's Fig. 2 with its 4 I/O nodes on the west side, for tests.
#[cfg(test)]
pub(crate) fn fig2_network() -> Network {
    Network::new(NetworkConfig {
        width: 4,
        height: 4,
        io_side: IoSide::West,
        io_count: Some(4),
    })
    .expect("a valid 4 × 4 mesh")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(x: u32, y: u32) -> NetNode {
        NetNode::new(x, y)
    }

    fn net(w: u32, h: u32, side: IoSide, count: Option<u32>) -> Network {
        Network::new(NetworkConfig {
            width: w,
            height: h,
            io_side: side,
            io_count: count,
        })
        .unwrap()
    }

    fn path(net: &Network, a: NetNode, b: NetNode) -> Vec<NetNode> {
        let mut v = vec![a];
        for l in net.route(a, b).unwrap() {
            assert!(net.has_link(l), "{l}");
            v.push(l.to());
        }
        v
    }

    #[test]
    fn mc_elongated_default_and_io_placement() {
        let d = Network::new(NetworkConfig::default()).unwrap();
        assert_eq!(d, Network::mc_elongated());
        assert_eq!(d.io_nodes().len(), 16);
        assert_eq!(d.io_nodes()[0], n(0, 1));
        assert_eq!(d.io_nodes()[15], n(0, 16));
        // Middle I/O link between rows 8 and 9.
        assert_eq!(d.middle_twice(), 17);
        // Four I/O nodes on a 16-row side: rows 3, 7, 11, 15.
        let four = net(22, 16, IoSide::West, Some(4));
        let rows: Vec<u32> = four.io_nodes().iter().map(|p| p.y).collect();
        assert_eq!(rows, vec![3, 7, 11, 15]);
        assert_eq!(four.middle_twice(), 18);
        let east = net(5, 4, IoSide::East, None);
        assert_eq!(east.io_nodes()[0], n(6, 1));
        let north = net(5, 4, IoSide::North, Some(3));
        let cols: Vec<u32> = north.io_nodes().iter().map(|p| p.x).collect();
        assert_eq!(cols, vec![1, 3, 5]);
        assert_eq!(north.middle_twice(), 6);
        assert!(Network::new(NetworkConfig {
            io_count: Some(17),
            ..NetworkConfig::default()
        })
        .is_err());
        assert!(Network::new(NetworkConfig {
            io_count: Some(0),
            ..NetworkConfig::default()
        })
        .is_err());
        assert!(Network::new(NetworkConfig {
            width: 0,
            ..NetworkConfig::default()
        })
        .is_err());
    }

    #[test]
    fn xy_routes_match_hand_written_paths() {
        let w = net(4, 4, IoSide::West, None);
        // X first, then Y.
        assert_eq!(
            path(&w, n(1, 1), n(3, 3)),
            vec![n(1, 1), n(2, 1), n(3, 1), n(3, 2), n(3, 3)]
        );
        assert_eq!(
            path(&w, n(4, 4), n(2, 1)),
            vec![n(4, 4), n(3, 4), n(2, 4), n(2, 3), n(2, 2), n(2, 1)]
        );
        // Same column: Y only; same row: X only.
        assert_eq!(path(&w, n(2, 4), n(2, 2)), vec![n(2, 4), n(2, 3), n(2, 2)]);
        assert_eq!(path(&w, n(3, 2), n(1, 2)), vec![n(3, 2), n(2, 2), n(1, 2)]);
        assert!(w.route(n(2, 2), n(2, 2)).unwrap().is_empty());
        // Write to a west I/O node: along the row into the I/O line, then along the line.
        assert_eq!(
            path(&w, n(2, 4), n(0, 1)),
            vec![n(2, 4), n(1, 4), n(0, 4), n(0, 3), n(0, 2), n(0, 1)]
        );
        // Read from a west I/O node: along its row, then up/down the compute column.
        assert_eq!(
            path(&w, n(0, 1), n(2, 3)),
            vec![n(0, 1), n(1, 1), n(2, 1), n(2, 2), n(2, 3)]
        );
        // South I/O line: along the row to the I/O node's column, then down.
        let s = net(4, 3, IoSide::South, None);
        assert_eq!(
            path(&s, n(3, 2), n(1, 0)),
            vec![n(3, 2), n(2, 2), n(1, 2), n(1, 1), n(1, 0)]
        );
        // Endpoints must be nodes.
        assert!(w.route(n(5, 1), n(1, 1)).is_err());
        assert!(w.route(n(0, 0), n(1, 1)).is_err());
        assert!(s.route(n(0, 1), n(1, 1)).is_err());
        // Links: compute mesh 2·(2·W·H − W − H) plus the I/O column 2·(H − 1) plus H rungs ×2.
        assert_eq!(w.links().count(), 2 * (2 * 16 - 8) + 2 * 3 + 2 * 4);
    }

    #[test]
    fn all_to_all_link_loads_match_closed_form() {
        for &(wd, ht) in &[(1, 1), (2, 1), (3, 2), (4, 4), (5, 3), (2, 6)] {
            let net = net(wd, ht, IoSide::West, None);
            let nodes: Vec<NetNode> = (1..=ht)
                .flat_map(|y| (1..=wd).map(move |x| n(x, y)))
                .collect();
            let mut loads = net.loads();
            loads.add_all_to_all(&net, &nodes).unwrap();
            let (w, h) = (u64::from(wd), u64::from(ht));
            for l in net.links() {
                let got = loads.get(&net, l);
                let (from, to) = (l.from, l.to());
                if !net.is_compute(from) || !net.is_compute(to) {
                    assert_eq!(got, 0, "{l}");
                    continue;
                }
                // X hops happen in the source row: sources left of the cut in that row times
                // destinations right of it anywhere. Y hops happen in the destination column.
                let want = match l.dir {
                    Dir::East => {
                        let c = u64::from(from.x);
                        c * (w - c) * h
                    }
                    Dir::West => {
                        let c = u64::from(to.x);
                        c * (w - c) * h
                    }
                    Dir::North => {
                        let r = u64::from(from.y);
                        w * r * (h - r)
                    }
                    Dir::South => {
                        let r = u64::from(to.y);
                        w * r * (h - r)
                    }
                };
                assert_eq!(got, want, "{l} in {wd}×{ht}");
            }
        }
    }

    /// Mache et al. Fig. 2: a 4-node job in a 4 × 4 mesh with 4 I/O nodes on the west side, every
    /// node writing to the lower two I/O nodes (rows 1 and 2). The middle downward I/O link is
    /// the I/O-line link from row 3 to row 2.
    #[test]
    fn fig2_block_layout_loads_the_middle_io_link_twice_as_much() {
        let net = net(4, 4, IoSide::West, Some(4));
        let lower: Vec<NetNode> = net.io_nodes()[..2].to_vec();
        assert_eq!(lower, vec![n(0, 1), n(0, 2)]);
        let middle_down = Link {
            from: n(0, 3),
            dir: Dir::South,
        };
        assert!(net.has_link(middle_down));
        assert_eq!(net.middle_twice(), 5);
        // (a) block layout in the top two rows (next to the I/O nodes).
        let block = [n(1, 3), n(2, 3), n(1, 4), n(2, 4)];
        // (b) parallel layout: one node per row, in the column next to the I/O nodes.
        let parallel = [n(1, 1), n(1, 2), n(1, 3), n(1, 4)];
        let mut a = net.loads();
        a.add_bipartite(&net, &block, &lower, true).unwrap();
        assert_eq!(a.get(&net, middle_down), 8);
        assert_eq!(a.io_line_max(&net), 8);
        let mut b = net.loads();
        b.add_bipartite(&net, &parallel, &lower, true).unwrap();
        assert_eq!(b.get(&net, middle_down), 4);
        // With all four I/O nodes (the full complete-bipartite pattern, 16 messages) the same
        // link still carries 8 and 4: messages to the upper I/O nodes never go down.
        let mut a4 = net.loads();
        a4.add_bipartite(&net, &block, net.io_nodes(), true)
            .unwrap();
        assert_eq!(a4.get(&net, middle_down), 8);
        let mut b4 = net.loads();
        b4.add_bipartite(&net, &parallel, net.io_nodes(), true)
            .unwrap();
        assert_eq!(b4.get(&net, middle_down), 4);
        assert_eq!(b4.io_line_max(&net), 4);
    }

    #[test]
    fn link_index_round_trips() {
        let net = net(5, 3, IoSide::North, Some(2));
        for l in net.links() {
            assert_eq!(net.link_at(net.link_index(l)), l);
        }
        let mut loads = net.loads();
        loads.add_route(&net, n(1, 1), n(3, 3), 2).unwrap();
        let nz: Vec<(Link, u64)> = loads.nonzero(&net).collect();
        assert_eq!(nz.len(), 4);
        assert!(nz.iter().all(|&(_, c)| c == 2));
        assert_eq!(loads.max(), 2);
        loads.clear();
        assert_eq!(loads.max(), 0);
    }
}
