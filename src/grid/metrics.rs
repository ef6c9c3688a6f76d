//! Metrics of a grid run (Ernemann et al. §V): utilisation, AWRT (eq. 1), AWSD (eq. 4–5) and AWWT
//! (eq. 6–7), each job weighted by its squashed area SA_j = size · (end − start) (eq. 2–3),
//! per site and over the whole grid; the aggregated squashed area by local hour of day and by
//! weekday per site (Figs. 1, 2, 4, 5); jobs migrated between sites.
//!
//! The per-job definitions are those of [`crate::metrics`] (docs/metrics.md); sums run in
//! arrival order, so results are bit-identical on every platform.
//!
//! * A site's `executed` summary covers the jobs that ran there (its utilisation is the
//!   machine's: SA run there / (nodes · (last end − first submit of those jobs)));
//!   `submitted` covers the jobs of its own users, wherever they ran.
//! * The grid's utilisation is Σ_s SA_s / Σ_s (P_s · makespan_s): every site is measured over
//!   its own schedule length (§IV-B: "the variance of the schedule length for different sites
//!   is considered for the calculation of the metrics").
//! * `load_by_hour` spreads the SA of the jobs run at a site over the local hours of day in
//!   which they ran (Fig. 4); `demand_by_hour` puts the SA of each job submitted at a site in
//!   the local hour of its submission (Figs. 1, 5). The weekday arrays likewise (Fig. 2),
//!   Monday first. Local time ignores daylight saving after the alignment (docs/grid.md).

use serde::{Deserialize, Serialize};

use super::engine::{GridResult, NO_SITE};
use super::local::LocalPolicy;
use super::site::{Sharing, HOUR};
use crate::metrics::{JobRecord, Summary};

/// Seconds in a day.
const DAY: f64 = 86_400.0;

/// Metrics of one site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteMetrics {
    pub name: String,
    pub procs: u32,
    pub tz_offset_hours: f64,
    /// Jobs run at this site.
    pub executed: Summary,
    /// Jobs submitted at this site, wherever they ran.
    pub submitted: Summary,
    /// SA run here, spread over the local hours of day (24 values, 0 = 00:00–01:00).
    pub load_by_hour: Vec<f64>,
    /// SA run here, spread over the local weekdays (7 values, Monday first).
    pub load_by_weekday: Vec<f64>,
    /// SA submitted here, by local hour of submission.
    pub demand_by_hour: Vec<f64>,
    /// SA submitted here, by local weekday of submission.
    pub demand_by_weekday: Vec<f64>,
}

/// Metrics of a grid run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridMetrics {
    pub policy: LocalPolicy,
    pub sharing: Sharing,
    /// All jobs; `utilization` is the grid's (see the module docs).
    pub overall: Summary,
    pub sites: Vec<SiteMetrics>,
    /// `migrations[h][e]`: jobs submitted at site h that ran at site e.
    pub migrations: Vec<Vec<usize>>,
    /// Jobs that ran at another site than their own.
    pub migrated: usize,
    /// Job sharing: jobs that started later than the start the grid scheduler chose their
    /// site by (0 with conservative backfilling; EASY's offers are predictions).
    pub started_after_offer: usize,
}

/// Adds `weight` per second of the interval [a, b) (local seconds) to `bins`, each `width`
/// seconds wide, wrapping every `bins.len() · width` seconds.
fn spread(bins: &mut [f64], width: f64, a: f64, b: f64, weight: f64) {
    let nb = bins.len();
    if nb == 0 || b <= a || !(a.is_finite() && b.is_finite()) {
        return;
    }
    let period = width * nb as f64;
    let whole = ((b - a) / period).floor();
    if whole > 0.0 {
        for x in bins.iter_mut() {
            *x += weight * width * whole;
        }
    }
    let mut t = a + whole * period;
    while t < b {
        let phase = t.rem_euclid(period);
        let k = ((phase / width).floor() as usize).min(nb - 1);
        let bin_end = t - phase + (k as f64 + 1.0) * width;
        let next = if bin_end < b { bin_end } else { b };
        if next <= t {
            break;
        }
        bins[k] += weight * (next - t);
        t = next;
    }
}

/// Index of the `width`-second bin of local time `t` in a cycle of `n` bins.
fn bin_of(t: f64, width: f64, n: usize) -> usize {
    let phase = t.rem_euclid(width * n as f64);
    ((phase / width).floor() as usize).min(n.saturating_sub(1))
}

/// Executing and home site of job `j`, if it ran.
fn ran(r: &GridResult, j: usize) -> Option<(usize, usize)> {
    let ns = r.sites.len();
    let (&s, o, &h) = (r.site_of.get(j)?, r.outcomes.get(j)?, r.home.get(j)?);
    (s != NO_SITE && s < ns && h < ns && !o.start.is_nan()).then_some((s, h))
}

/// Records of the jobs that ran, at sites (executing, home) that `keep` accepts, one at a
/// time: the summaries need no vector of records per site.
fn records<'a>(
    r: &'a GridResult,
    keep: impl Fn(usize, usize) -> bool + 'a,
) -> impl Iterator<Item = JobRecord> + 'a {
    (0..r.jobs.len())
        .filter(move |&j| ran(r, j).is_some_and(|(s, h)| keep(s, h)))
        .map(|j| JobRecord::of(&r.jobs[j], &r.outcomes[j]))
}

impl GridMetrics {
    /// Metrics of a finished (or interrupted: jobs not started are left out) grid run.
    pub fn from_result(r: &GridResult) -> GridMetrics {
        let ns = r.sites.len();

        let mut load_h = vec![vec![0.0; 24]; ns];
        let mut load_d = vec![vec![0.0; 7]; ns];
        let mut dem_h = vec![vec![0.0; 24]; ns];
        let mut dem_d = vec![vec![0.0; 7]; ns];
        let mut migrations = vec![vec![0usize; ns]; ns];
        let mut migrated = 0;
        let mut started_after_offer = 0;
        for (j, job) in r.jobs.iter().enumerate() {
            let Some((s, h)) = ran(r, j) else {
                continue;
            };
            let o = &r.outcomes[j];
            if let Some(Some(offer)) = r.offered.get(j) {
                if o.start > *offer {
                    started_after_offer += 1;
                }
            }
            migrations[h][s] += 1;
            if h != s {
                migrated += 1;
            }
            let procs = job.procs as f64;
            let off_s = r.sites[s].tz_offset_hours * HOUR;
            spread(&mut load_h[s], HOUR, o.start - off_s, o.end - off_s, procs);
            spread(&mut load_d[s], DAY, o.start - off_s, o.end - off_s, procs);
            let sa = procs * (o.end - o.start);
            let local_submit = job.submit - r.sites[h].tz_offset_hours * HOUR;
            dem_h[h][bin_of(local_submit, HOUR, 24)] += sa;
            dem_d[h][bin_of(local_submit, DAY, 7)] += sa;
        }
        let total_procs: u32 = r
            .sites
            .iter()
            .map(|s| s.procs)
            .fold(0u32, u32::saturating_add);
        let mut overall = Summary::from_iter(records(r, |_, _| true), total_procs, 0);
        let mut sites = Vec::with_capacity(ns);
        let (mut sa_sum, mut capacity) = (0.0, 0.0);
        for (s, info) in r.sites.iter().enumerate() {
            let ex = Summary::from_iter(records(r, |at, _| at == s), info.procs, 0);
            let sub = Summary::from_iter(records(r, |_, home| home == s), info.procs, 0);
            let p = info.procs as f64;
            sa_sum += ex.utilization * p * ex.makespan;
            capacity += p * ex.makespan;
            sites.push(SiteMetrics {
                name: info.name.clone(),
                procs: info.procs,
                tz_offset_hours: info.tz_offset_hours,
                executed: ex,
                submitted: sub,
                load_by_hour: std::mem::take(&mut load_h[s]),
                load_by_weekday: std::mem::take(&mut load_d[s]),
                demand_by_hour: std::mem::take(&mut dem_h[s]),
                demand_by_weekday: std::mem::take(&mut dem_d[s]),
            });
        }
        overall.utilization = if capacity > 0.0 {
            sa_sum / capacity
        } else {
            0.0
        };
        GridMetrics {
            policy: r.policy,
            sharing: r.sharing,
            overall,
            sites,
            migrations,
            migrated,
            started_after_offer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_wraps_and_counts_whole_periods() {
        let mut bins = vec![0.0; 24];
        // 22:30 to 01:30 next day, 2 nodes.
        spread(&mut bins, HOUR, 22.5 * HOUR, 25.5 * HOUR, 2.0);
        assert_eq!(bins[22], 1800.0 * 2.0);
        assert_eq!(bins[23], 3600.0 * 2.0);
        assert_eq!(bins[0], 3600.0 * 2.0);
        assert_eq!(bins[1], 1800.0 * 2.0);
        let mut week = vec![0.0; 7];
        spread(&mut week, DAY, -DAY, 8.0 * DAY, 1.0);
        // Nine days from Sunday: one whole week plus Sunday and Monday.
        assert_eq!(week[6], 2.0 * DAY);
        assert_eq!(week[0], 2.0 * DAY);
        assert_eq!(week[3], DAY);
        assert_eq!(bin_of(-1.0, HOUR, 24), 23);
    }
}
