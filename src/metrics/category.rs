//! Weight categories of Srinivasan et al. §2.3/§4: a job's weight is its requested processors × actual
//! run time (processor-seconds); jobs fall in 10 categories with exponentially growing bounds.
//! Our choice (the paper does not list its bounds): category k holds weights in
//! [8^k, 8^(k+1)) for k = 1..8, category 0 everything below 8, category 9 everything from 8^9
//! (≈ 1.3·10^8 processor-seconds) up. See docs/metrics.md.

use std::borrow::Borrow;

use serde::{Deserialize, Serialize};

use super::JobRecord;

/// Number of weight categories.
pub const CATEGORY_COUNT: usize = crate::workload::moldable::CATEGORY_COUNT;

/// Category (0..10) of a job of weight `procs × run` processor-seconds.
pub fn category_of(weight: f64) -> usize {
    crate::workload::moldable::category_of(weight)
}

/// Mean turnaround of one weight category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CategoryStat {
    pub category: usize,
    /// Lower bound of the category's weights (processor-seconds).
    pub min_weight: f64,
    /// Upper bound (exclusive); `null` for the last category.
    pub max_weight: Option<f64>,
    pub jobs: usize,
    pub mean_turnaround: f64,
}

/// Mean turnaround per category over the given jobs (empty categories have 0 jobs and 0 mean).
pub fn category_stats(records: &[JobRecord]) -> Vec<CategoryStat> {
    category_stats_by(records, |_, r| r.procs as f64 * (r.end - r.start))
}

/// [`category_stats`] of records produced one at a time (no vector of them).
pub fn category_stats_iter<R: Borrow<JobRecord>>(
    records: impl IntoIterator<Item = R>,
) -> Vec<CategoryStat> {
    category_stats_by(records, |_, r| r.procs as f64 * (r.end - r.start))
}

/// Mean turnaround per category, each record's category by `weight(index, record)` (Srinivasan et al.
/// keeps a moldable job in the category of its rigid weight, whatever count it ran on).
pub fn category_stats_by<R: Borrow<JobRecord>>(
    records: impl IntoIterator<Item = R>,
    weight: impl Fn(usize, &JobRecord) -> f64,
) -> Vec<CategoryStat> {
    let mut sums = [0.0f64; CATEGORY_COUNT];
    let mut counts = [0usize; CATEGORY_COUNT];
    for (i, r) in records.into_iter().enumerate() {
        let r = r.borrow();
        let k = category_of(weight(i, r));
        sums[k] += r.turnaround;
        counts[k] += 1;
    }
    (0..CATEGORY_COUNT)
        .map(|k| {
            let min_weight = if k == 0 {
                0.0
            } else {
                libm::pow(8.0, k as f64)
            };
            let max_weight = (k + 1 < CATEGORY_COUNT).then(|| libm::pow(8.0, (k + 1) as f64));
            CategoryStat {
                category: k,
                min_weight,
                max_weight,
                jobs: counts[k],
                mean_turnaround: if counts[k] > 0 {
                    sums[k] / counts[k] as f64
                } else {
                    0.0
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_grow_by_eight() {
        assert_eq!(category_of(0.0), 0);
        assert_eq!(category_of(7.9), 0);
        assert_eq!(category_of(8.0), 1);
        assert_eq!(category_of(63.0), 1);
        assert_eq!(category_of(64.0), 2);
        assert_eq!(category_of(1e12), 9);
    }
}
