//! Job layouts on the network of Mache et al. §2 (where each job ran, and when) and the traffic
//! they put on the links: per-link message counts of a layout (all-to-all and
//! complete-bipartite writes, XY routes, §2.1 and §4.1), weighted by the traffic ratio ρ, link
//! loads at an instant and their peaks over a run. Used by the flow engine
//! ([`super::flow`]), the mesh experiments and the mesh view ([`super::heat`]).

use serde::{Deserialize, Serialize};

use super::{NetNode, Network};

/// Where a job ran and when: what the mesh view draws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobLayout {
    /// Index of the job in its run (`modes::mesh::run::MeshRunOutput::jobs`).
    pub job: usize,
    pub start: f64,
    pub end: f64,
    /// Its submesh (x1, y1, w, h) for contiguous allocators (nodes then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<[u32; 4]>,
    /// Its nodes (x, y), 1-based, for non-contiguous allocators.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<[u32; 2]>,
}

impl JobLayout {
    /// Its nodes (x, y), whichever way they are stored.
    pub fn node_list(&self) -> Vec<(u32, u32)> {
        match self.rect {
            Some([x, y, w, h]) => (y..y + h)
                .flat_map(|yy| (x..x + w).map(move |xx| (xx, yy)))
                .collect(),
            None => self.nodes.iter().map(|&[x, y]| (x, y)).collect(),
        }
    }
}

/// Per-link message counts of one job: (link index, all-to-all, bipartite write).
pub fn job_links(net: &Network, nodes: &[(u32, u32)]) -> Vec<(usize, u64, u64)> {
    let nn: Vec<NetNode> = nodes.iter().map(|&(x, y)| NetNode::new(x, y)).collect();
    let mut a = net.loads();
    let mut b = net.loads();
    // Endpoints are compute nodes of the mesh the allocator chose from, hence valid nodes.
    let _ = a.add_all_to_all(net, &nn);
    let _ = b.add_bipartite(net, &nn, net.io_nodes(), true);
    a.counts()
        .iter()
        .zip(b.counts())
        .enumerate()
        .filter(|(_, (&x, &y))| x > 0 || y > 0)
        .map(|(i, (&x, &y))| (i, x, y))
        .collect()
}

/// Starts and ends in time order, ends first at equal times: (time, is_start, job).
pub fn layout_events(layouts: &[JobLayout]) -> Vec<(f64, bool, usize)> {
    let mut ev: Vec<(f64, bool, usize)> = Vec::with_capacity(2 * layouts.len());
    for (i, l) in layouts.iter().enumerate() {
        ev.push((l.start, true, i));
        ev.push((l.end, false, i));
    }
    ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    ev
}

/// Messages a job's traffic sends over each link, weighted by the traffic ratio ρ:
/// ρ · (complete-bipartite writes) + (1 − ρ) · (all-to-all), as in the flow model.
pub fn weighted_job_links(net: &Network, nodes: &[(u32, u32)], rho: f64) -> Vec<(usize, f64)> {
    job_links(net, nodes)
        .into_iter()
        .map(|(l, a, b)| (l, rho * b as f64 + (1.0 - rho) * a as f64))
        .filter(|&(_, w)| w > 0.0)
        .collect()
}

/// The link loads at time `t`: the weighted messages of every job running at `t`
/// (start ≤ t < end), indexed by [`Network::link_index`].
pub fn link_loads_at(net: &Network, layouts: &[JobLayout], rho: f64, t: f64) -> Vec<f64> {
    let mut loads = vec![0.0; net.link_slots()];
    for l in layouts.iter().filter(|l| l.start <= t && t < l.end) {
        for (i, w) in weighted_job_links(net, &l.node_list(), rho) {
            loads[i] += w;
        }
    }
    loads
}

/// The highest link load and the highest I/O-line link load at any instant of the run (after
/// each start, the jobs ending at that instant having left; jobs of zero duration never run).
/// Link vectors come from the closed-form counts of [`crate::network::link_counts`], so this costs
/// O(links + nodes) per start and end, whatever the job sizes.
pub fn peak_link_loads(net: &Network, layouts: &[JobLayout], rho: f64) -> (f64, f64) {
    let io_line: Vec<bool> = (0..net.link_slots())
        .map(|i| {
            let l = net.link_at(i);
            net.is_io_line(l.from) && net.is_io_line(l.to())
        })
        .collect();
    let mut loads = vec![0.0f64; net.link_slots()];
    let (mut peak, mut io_peak) = (0.0f64, 0.0f64);
    let (mut scratch, mut v) = (super::link_counts::LinkScratch::default(), Vec::new());
    // A running job's non-zero link weights, computed once at its start and taken back at
    // its end (the same weights in the same order as recomputing them: identical loads).
    let mut running: Vec<Vec<(usize, f64)>> = vec![Vec::new(); layouts.len()];
    for (_, start, i) in layout_events(layouts) {
        let l = &layouts[i];
        if l.end <= l.start {
            continue;
        }
        if !start {
            for (k, w) in std::mem::take(&mut running[i]) {
                loads[k] -= w;
            }
            continue;
        }
        super::link_counts::weighted_link_vector_into(
            net,
            &l.node_list(),
            rho,
            &mut scratch,
            &mut v,
        );
        let mut weights = Vec::new();
        for (k, &w) in v.iter().enumerate() {
            if w == 0.0 {
                continue;
            }
            weights.push((k, w));
            loads[k] += w;
            // Comparisons, not f64::max: the same maxima (no load is NaN or −0), but on
            // wasm32 f64::max is a call.
            if loads[k] > peak {
                peak = loads[k];
            }
            if io_line[k] && loads[k] > io_peak {
                io_peak = loads[k];
            }
        }
        running[i] = weights;
    }
    (peak, io_peak)
}
