//! Layout metrics of Mache et al. §2.2–2.3: *nodes_affected* (dispersal,
//! §2.2: nodes in the smallest rectangle enclosing all nodes of a job), the per-job and system
//! *balance factor* (§2.3: |nodes above the middle I/O link − nodes below it|), and the link
//! loads a set of layouts puts on the network under all-to-all communication and
//! complete-bipartite I/O (§4.1): the maximum link load and the I/O hot-spot load (the most
//! loaded link of the I/O line, §2.3).

use super::{LinkLoads, NetNode, Network, NetworkError};

/// nodes_affected (Mache et al. §2.2): nodes of the smallest rectangle enclosing every node of the
/// layout; 0 for an empty layout.
pub fn nodes_affected(nodes: &[(u32, u32)]) -> u64 {
    let Some(&(x0, y0)) = nodes.first() else {
        return 0;
    };
    let (mut x1, mut x2, mut y1, mut y2) = (x0, x0, y0, y0);
    for &(x, y) in nodes {
        x1 = x1.min(x);
        x2 = x2.max(x);
        y1 = y1.min(y);
        y2 = y2.max(y);
    }
    u64::from(x2 - x1 + 1) * u64::from(y2 - y1 + 1)
}

/// Nodes above and below the middle I/O link ([`Network::middle_twice`]); a node level with
/// the middle (an odd number of I/O nodes: the middle I/O node's row) counts in neither.
pub fn above_below(net: &Network, nodes: &[(u32, u32)]) -> (u64, u64) {
    let mid = net.middle_twice();
    let vertical = net.io_side().is_vertical();
    let (mut above, mut below) = (0, 0);
    for &(x, y) in nodes {
        let p = 2 * if vertical { y } else { x };
        if p > mid {
            above += 1;
        } else if p < mid {
            below += 1;
        }
    }
    (above, below)
}

/// Balance factor (Mache et al. §2.3) of a layout: |above − below| around the middle I/O link.
/// For a single job this is the per-job balance factor; for every allocated node of the
/// machine it is the system balance factor.
pub fn balance_factor(net: &Network, nodes: &[(u32, u32)]) -> u64 {
    let (a, b) = above_below(net, nodes);
    a.abs_diff(b)
}

/// System balance factor of a mesh state: over every allocated node.
pub fn system_balance_factor(net: &Network, mesh: &crate::machine::mesh::Mesh) -> u64 {
    let mut busy = Vec::new();
    for y in 1..=mesh.height() {
        for x in 1..=mesh.width() {
            if !mesh.is_free(x, y) {
                busy.push((x, y));
            }
        }
    }
    balance_factor(net, &busy)
}

/// Which traffic a layout generates (Mache et al. §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// All-to-all among the job's nodes.
    pub all_to_all: bool,
    /// Complete-bipartite writes: every node of the job to every I/O node.
    pub io_write: bool,
    /// Complete-bipartite reads: every I/O node to every node of the job.
    pub io_read: bool,
}

/// Link loads and their summary for a set of concurrently placed layouts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutLoads {
    /// Messages per directed link.
    pub loads: LinkLoads,
    /// The most loaded link's count.
    pub max_link_load: u64,
    /// The most loaded I/O-line link's count (the I/O hot spot).
    pub io_hot_spot: u64,
}

/// Link loads of every layout in `jobs` sending `traffic` at the same time. Every node must be
/// a compute node of `net`.
pub fn layout_loads(
    net: &Network,
    jobs: &[&[(u32, u32)]],
    traffic: Traffic,
) -> Result<LayoutLoads, NetworkError> {
    let mut loads = net.loads();
    for job in jobs {
        let nodes: Vec<NetNode> = job.iter().map(|&(x, y)| NetNode::new(x, y)).collect();
        if let Some(&n) = nodes.iter().find(|n| !net.is_compute(**n)) {
            return Err(NetworkError::NotANode(n));
        }
        if traffic.all_to_all {
            loads.add_all_to_all(net, &nodes)?;
        }
        if traffic.io_write {
            loads.add_bipartite(net, &nodes, net.io_nodes(), true)?;
        }
        if traffic.io_read {
            loads.add_bipartite(net, &nodes, net.io_nodes(), false)?;
        }
    }
    let max_link_load = loads.max();
    let io_hot_spot = loads.io_line_max(net);
    Ok(LayoutLoads {
        loads,
        max_link_load,
        io_hot_spot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::{Mesh, Submesh};
    use crate::network::{IoSide, NetworkConfig};

    fn fig2_net() -> Network {
        crate::network::fig2_network()
    }

    #[test]
    fn nodes_affected_is_the_enclosing_rectangle() {
        assert_eq!(nodes_affected(&[]), 0);
        assert_eq!(nodes_affected(&[(3, 3)]), 1);
        assert_eq!(nodes_affected(&[(1, 1), (2, 1), (1, 2), (2, 2)]), 4);
        assert_eq!(nodes_affected(&[(1, 1), (1, 2), (1, 3), (1, 4)]), 4);
        assert_eq!(nodes_affected(&[(1, 4), (4, 1)]), 16);
    }

    /// Mache et al. §2.3: "In Fig. 2 system balance factor is 4 for layout 1, and 0 for layout 2."
    #[test]
    fn fig2_balance_factors() {
        let net = fig2_net();
        let block = [(1, 3), (2, 3), (1, 4), (2, 4)];
        let parallel = [(1, 1), (1, 2), (1, 3), (1, 4)];
        assert_eq!(balance_factor(&net, &block), 4);
        assert_eq!(balance_factor(&net, &parallel), 0);
        let mut m = Mesh::new(4, 4).unwrap();
        m.allocate(0, Submesh::new(1, 3, 2, 4)).unwrap();
        assert_eq!(system_balance_factor(&net, &m), 4);
        // Three I/O nodes on 4 rows: rows 1, 3, 4 → the middle is row 3, which is neutral.
        let odd = Network::new(NetworkConfig {
            width: 4,
            height: 4,
            io_side: IoSide::West,
            io_count: Some(3),
        })
        .unwrap();
        assert_eq!(above_below(&odd, &parallel), (1, 2));
    }

    #[test]
    fn fig2_loads_and_hot_spot() {
        let net = fig2_net();
        let block: &[(u32, u32)] = &[(1, 3), (2, 3), (1, 4), (2, 4)];
        let parallel: &[(u32, u32)] = &[(1, 1), (1, 2), (1, 3), (1, 4)];
        let write = Traffic {
            all_to_all: false,
            io_write: true,
            io_read: false,
        };
        let a = layout_loads(&net, &[block], write).unwrap();
        let b = layout_loads(&net, &[parallel], write).unwrap();
        assert_eq!(a.io_hot_spot, 8);
        assert_eq!(b.io_hot_spot, 4);
        // The rung from (1, 4) into the I/O line carries the 4 writes of node (1, 4) plus the
        // 4 of (2, 4) that pass through it.
        assert_eq!(a.max_link_load, 8);
        assert_eq!(b.max_link_load, 4);
        let comm = Traffic {
            all_to_all: true,
            io_write: false,
            io_read: false,
        };
        // Two jobs side by side share no link; interleaved they do.
        let left: &[(u32, u32)] = &[(1, 1), (1, 2)];
        let right: &[(u32, u32)] = &[(2, 1), (2, 2)];
        assert_eq!(
            layout_loads(&net, &[left, right], comm)
                .unwrap()
                .max_link_load,
            1
        );
        let spread: &[(u32, u32)] = &[(1, 1), (3, 1)];
        let mid: &[(u32, u32)] = &[(2, 1), (4, 1)];
        assert_eq!(
            layout_loads(&net, &[spread, mid], comm)
                .unwrap()
                .max_link_load,
            2
        );
        assert!(layout_loads(&net, &[&[(5, 1)]], comm).is_err());
    }
}
