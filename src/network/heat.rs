//! Pure helpers of the web app's 2D-mesh view (no web dependency, so they are tested natively):
//! the link-contention heatmap of Mache et al. §2.1 and §4.1 (Mache, Lo and Garg: all-to-all
//! communication plus complete-bipartite writes to the I/O line, XY routing, weighted by the
//! traffic ratio ρ as in [`super::layout::weighted_job_links`]), the colours of jobs and of
//! link loads, and the event timeline the scrubber steps through (submits, starts and ends of
//! the submeshes of Ababneh & Bani-Mohammad §2 or the node sets of Mache et al. §3).
//!
//! Link loads come from the closed-form counts of [`super::link_counts`], so a frame of the
//! view costs a few thousand operations per running job even for 32 × 32 submeshes.

use super::layout::JobLayout;
use super::link_counts::weighted_link_vector;
use super::Network;

/// The link loads at time `t` (jobs running at `t`: start ≤ t < end), summed in job order —
/// equal to [`super::layout::link_loads_at`], computed in closed form.
pub fn loads_at(net: &Network, layouts: &[JobLayout], rho: f64, t: f64) -> Vec<f64> {
    let mut loads = vec![0.0; net.link_slots()];
    for l in layouts.iter().filter(|l| l.start <= t && t < l.end) {
        for (s, w) in loads
            .iter_mut()
            .zip(weighted_link_vector(net, &l.node_list(), rho))
        {
            if w > 0.0 {
                *s += w;
            }
        }
    }
    loads
}

/// The jobs' qualitative palette: twelve colours that differ in hue and lightness — blues,
/// teals, greens, violets, pinks, browns and greys — never the yellows and reds of the heat
/// scale.
pub const JOB_PALETTE: [[u8; 3]; 12] = [
    [0x3b, 0x6f, 0xb6],
    [0x9c, 0xd3, 0x8a],
    [0x7b, 0x4f, 0xc9],
    [0x8f, 0xc6, 0xe8],
    [0x8d, 0x5b, 0x3e],
    [0x2a, 0x9d, 0x8f],
    [0xe3, 0x9a, 0xc8],
    [0x1f, 0x4e, 0x79],
    [0xc9, 0xb8, 0xe8],
    [0x4d, 0x8b, 0x3a],
    [0xa6, 0x3d, 0x8a],
    [0x9a, 0xa3, 0xb0],
];

/// The palette entry job `id` prefers: its place in a golden-ratio walk over the palette
/// (consecutive ids far apart).
fn preferred(id: u64) -> usize {
    let f = (id as f64 * 0.618_033_988_749_895).fract();
    ((f * JOB_PALETTE.len() as f64) as usize).min(JOB_PALETTE.len() - 1)
}

/// A stable colour for job `id`, as RGB: the palette entry it prefers.
pub fn job_colour(id: u64) -> [u8; 3] {
    JOB_PALETTE[preferred(id)]
}

/// A colour for every job on a mesh such that jobs on neighbouring nodes differ: `occ` is the
/// job index on each node (row by row, `width` nodes a row), `ids` each job index's id. The
/// jobs are coloured in index order, each with the colour it prefers ([`job_colour`]) unless a
/// neighbour coloured before it has it, then the next palette entry no such neighbour has (a
/// greedy colouring: neighbours always differ when a job has fewer than 12 neighbours). Returns
/// the colour of each job index (`None` for a job on no node).
pub fn neighbour_colours(occ: &[Option<usize>], width: u32, ids: &[u64]) -> Vec<Option<[u8; 3]>> {
    let n = occ.iter().flatten().map(|&i| i + 1).max().unwrap_or(0);
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    let w = width.max(1) as usize;
    let mut link = |a: Option<usize>, b: Option<usize>| {
        if let (Some(a), Some(b)) = (a, b) {
            if a != b {
                neighbours[a].push(b);
                neighbours[b].push(a);
            }
        }
    };
    for (k, &a) in occ.iter().enumerate() {
        if k % w + 1 < w {
            link(a, occ.get(k + 1).copied().flatten());
        }
        link(a, occ.get(k + w).copied().flatten());
    }
    let mut present = vec![false; n];
    for &i in occ.iter().flatten() {
        present[i] = true;
    }
    let mut colour: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        if !present[i] {
            continue;
        }
        let id = ids.get(i).copied().unwrap_or(i as u64);
        let taken: Vec<usize> = neighbours[i].iter().filter_map(|&j| colour[j]).collect();
        let first = preferred(id);
        let pick = (0..JOB_PALETTE.len())
            .map(|k| (first + k) % JOB_PALETTE.len())
            .find(|c| !taken.contains(c))
            .unwrap_or(first);
        colour[i] = Some(pick);
    }
    colour
        .into_iter()
        .map(|c| c.map(|c| JOB_PALETTE[c]))
        .collect()
}

/// Stops of the heat scale (fraction of the peak → colour): yellow, orange, red, dark red
/// (saturated from the start, so that lightly loaded links still show on white).
pub const HEAT_STOPS: [(f64, [u8; 3]); 5] = [
    (0.0, [250, 210, 90]),
    (0.25, [248, 160, 60]),
    (0.5, [238, 98, 45]),
    (0.75, [205, 38, 38]),
    (1.0, [103, 0, 13]),
];

/// The colour of a link load `v` on the scale 0 ..= `max` (values outside are clamped; a
/// non-positive or non-finite `max` gives the lowest colour).
pub fn heat_colour(v: f64, max: f64) -> [u8; 3] {
    let f = if max > 0.0 && max.is_finite() && v.is_finite() {
        (v / max).clamp(0.0, 1.0)
    } else {
        0.0
    };
    for w in HEAT_STOPS.windows(2) {
        let ((f0, c0), (f1, c1)) = (w[0], w[1]);
        if f <= f1 {
            let t = if f1 > f0 { (f - f0) / (f1 - f0) } else { 0.0 };
            let mix =
                |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
            return [mix(c0[0], c1[0]), mix(c0[1], c1[1]), mix(c0[2], c1[2])];
        }
    }
    HEAT_STOPS[HEAT_STOPS.len() - 1].1
}

/// `#rrggbb` of an RGB colour.
pub fn css_hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// The instants at which something happens in a run — submits, starts, ends — sorted and
/// without repeats: what "step" moves between.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    times: Vec<f64>,
}

impl Timeline {
    /// The timeline of jobs given as (submit, start, end); non-finite times are ignored.
    pub fn new(jobs: impl IntoIterator<Item = (f64, f64, f64)>) -> Timeline {
        let mut times: Vec<f64> = jobs
            .into_iter()
            .flat_map(|(s, b, e)| [s, b, e])
            .filter(|t| t.is_finite())
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        Timeline { times }
    }

    /// First instant (the first submit), 0 when empty.
    pub fn first(&self) -> f64 {
        self.times.first().copied().unwrap_or(0.0)
    }

    /// Last instant (the last end), 0 when empty.
    pub fn last(&self) -> f64 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// Number of distinct instants.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// `true` when there is no instant.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The first instant strictly after `t`, if any.
    pub fn next_after(&self, t: f64) -> Option<f64> {
        let i = self.times.partition_point(|&x| x <= t);
        self.times.get(i).copied()
    }

    /// How many instants are at or before `t` (the 1-based number of the instant at `t`).
    pub fn count_upto(&self, t: f64) -> usize {
        self.times.partition_point(|&x| x <= t)
    }

    /// The last instant strictly before `t`, if any.
    pub fn prev_before(&self, t: f64) -> Option<f64> {
        let i = self.times.partition_point(|&x| x < t);
        i.checked_sub(1).map(|i| self.times[i])
    }
}

/// Jobs running (start ≤ t < end) and waiting (submit ≤ t < start) at `t`, of jobs given as
/// (submit, start, end).
pub fn running_waiting(jobs: impl IntoIterator<Item = (f64, f64, f64)>, t: f64) -> (usize, usize) {
    let (mut run, mut wait) = (0, 0);
    for (s, b, e) in jobs {
        if b <= t && t < e {
            run += 1;
        } else if s <= t && t < b {
            wait += 1;
        }
    }
    (run, wait)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::layout::{job_links, link_loads_at};
    use crate::network::link_counts::pair_link_counts;
    use crate::network::{IoSide, NetworkConfig};

    fn net(w: u32, h: u32, side: IoSide) -> Network {
        Network::new(NetworkConfig {
            width: w,
            height: h,
            io_side: side,
            io_count: None,
        })
        .expect("network")
    }

    /// Deterministic pseudo-random node sets.
    fn nodes(w: u32, h: u32, n: usize, seed: u64) -> Vec<(u32, u32)> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut v: Vec<(u32, u32)> = Vec::new();
        while v.len() < n {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = ((s >> 33) as u32 % w + 1, (s >> 13) as u32 % h + 1);
            if !v.contains(&p) {
                v.push(p);
            }
        }
        v
    }

    #[test]
    fn closed_form_counts_equal_route_walking() {
        for side in [IoSide::West, IoSide::East, IoSide::North, IoSide::South] {
            let net = net(7, 5, side);
            let io: Vec<(u32, u32)> = net.io_nodes().iter().map(|n| (n.x, n.y)).collect();
            for seed in 0..12 {
                let ns = nodes(7, 5, 1 + seed as usize * 2, seed);
                let a = pair_link_counts(&net, &ns, &ns);
                let b = pair_link_counts(&net, &ns, &io);
                let want = job_links(&net, &ns);
                let got: Vec<(usize, u64, u64)> = a
                    .iter()
                    .zip(&b)
                    .enumerate()
                    .filter(|(_, (&x, &y))| x > 0 || y > 0)
                    .map(|(i, (&x, &y))| (i, x, y))
                    .collect();
                assert_eq!(got, want, "side {side:?} seed {seed}");
            }
        }
    }

    #[test]
    fn loads_at_equal_mesh_run() {
        let net = net(6, 6, IoSide::West);
        let layouts = vec![
            JobLayout {
                job: 0,
                start: 0.0,
                end: 10.0,
                rect: Some([1, 1, 3, 2]),
                nodes: Vec::new(),
            },
            JobLayout {
                job: 1,
                start: 2.0,
                end: 5.0,
                rect: None,
                nodes: vec![[2, 4], [5, 5], [6, 1]],
            },
            JobLayout {
                job: 2,
                start: 5.0,
                end: 12.0,
                rect: Some([4, 3, 3, 4]),
                nodes: Vec::new(),
            },
        ];
        for rho in [0.0, 0.3, 0.5, 1.0] {
            for t in [0.0, 2.0, 4.9, 5.0, 11.0, 12.0] {
                assert_eq!(
                    loads_at(&net, &layouts, rho, t),
                    link_loads_at(&net, &layouts, rho, t),
                    "rho {rho} t {t}"
                );
            }
        }
        let (peak, _) = crate::network::layout::peak_link_loads(&net, &layouts, 0.5);
        let at = |t| {
            loads_at(&net, &layouts, 0.5, t)
                .into_iter()
                .fold(0.0, f64::max)
        };
        assert_eq!(
            peak,
            [0.0, 2.0, 5.0].map(at).into_iter().fold(0.0, f64::max)
        );
    }

    #[test]
    fn heat_scale_runs_from_pale_to_dark() {
        assert_eq!(heat_colour(0.0, 10.0), HEAT_STOPS[0].1);
        assert_eq!(heat_colour(10.0, 10.0), HEAT_STOPS[4].1);
        assert_eq!(heat_colour(50.0, 10.0), HEAT_STOPS[4].1);
        assert_eq!(heat_colour(5.0, 10.0), HEAT_STOPS[2].1);
        assert_eq!(heat_colour(5.0, 0.0), HEAT_STOPS[0].1);
        assert_eq!(heat_colour(f64::NAN, 1.0), HEAT_STOPS[0].1);
        // Darker (smaller channel sum) as the load grows.
        let sum = |c: [u8; 3]| c.iter().map(|&v| u32::from(v)).sum::<u32>();
        let mut prev = u32::MAX;
        for i in 0..=20 {
            let s = sum(heat_colour(f64::from(i), 20.0));
            assert!(s <= prev, "step {i}");
            prev = s;
        }
        assert_eq!(css_hex([255, 0, 16]), "#ff0010");
    }

    #[test]
    fn neighbouring_jobs_get_different_colours() {
        // A 4 × 2 mesh: jobs 0 and 1 side by side in the bottom row, job 2 above both, job 3
        // (preferring job 0's colour: same id) right of job 2.
        let occ = [
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            Some(2),
            Some(3),
        ];
        let ids = [5, 6, 7, 5];
        let c = neighbour_colours(&occ, 4, &ids);
        assert_eq!(c[0], Some(job_colour(5)));
        assert_ne!(c[0], c[1]);
        assert_ne!(c[2], c[0]);
        assert_ne!(c[2], c[1]);
        assert_ne!(c[3], c[2]);
        assert_ne!(c[3], c[1]);
        // Job 3 prefers job 0's colour and touches only jobs 1 and 2 (palette entries 8 and
        // 3; its preference is entry 1): it keeps it.
        assert_eq!(c[3], Some(JOB_PALETTE[1]));
        assert_eq!(c[0], Some(JOB_PALETTE[1]));
        // Job 1 (id 6) prefers entry 8, job 2 (id 7) entry 3: neither is taken.
        assert_eq!((c[1], c[2]), (Some(JOB_PALETTE[8]), Some(JOB_PALETTE[3])));
        // A job on no node gets no colour.
        assert_eq!(
            neighbour_colours(&[None, Some(1)], 2, &[1, 2]),
            vec![None, Some(job_colour(2))]
        );
    }

    #[test]
    fn job_colours_are_stable_and_distinct() {
        assert_eq!(job_colour(17), job_colour(17));
        let cs: Vec<[u8; 3]> = (0..8).map(job_colour).collect();
        for i in 0..cs.len() {
            for j in i + 1..cs.len() {
                assert_ne!(cs[i], cs[j], "jobs {i} and {j}");
            }
        }
    }

    #[test]
    fn timeline_steps_through_events() {
        let tl = Timeline::new([(0.0, 1.0, 4.0), (1.0, 2.0, 3.0), (2.5, 4.0, f64::NAN)]);
        assert_eq!(tl.len(), 6);
        assert_eq!((tl.first(), tl.last()), (0.0, 4.0));
        assert_eq!(tl.next_after(0.0), Some(1.0));
        assert_eq!(tl.next_after(1.5), Some(2.0));
        assert_eq!(tl.next_after(4.0), None);
        assert_eq!(tl.prev_before(2.0), Some(1.0));
        assert_eq!(tl.prev_before(0.0), None);
        assert!(Timeline::default().is_empty());
        let jobs = [(0.0, 1.0, 4.0), (1.0, 2.0, 3.0), (2.5, 4.0, 6.0)];
        assert_eq!(running_waiting(jobs, 0.5), (0, 1));
        assert_eq!(running_waiting(jobs, 1.5), (1, 1));
        assert_eq!(running_waiting(jobs, 3.0), (1, 1));
        assert_eq!(running_waiting(jobs, 4.0), (1, 0));
    }
}
