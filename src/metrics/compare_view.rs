//! What a screen shows of a run comparison ([`super::compare`]): the counts of jobs started
//! earlier, later and at the same time, the metric differences, the histogram of the shifts
//! and the first rows of the job table in a chosen order. It is small whatever the size of the
//! runs (a few hundred numbers), and serialisable, so the simulation worker can compute a
//! comparison of runs of any size from what it keeps and send only this.

use serde::{Deserialize, Serialize};

use super::compare::{Bin, JobDelta, MetricDelta, RunComparison, METRICS};

/// The job table's columns, in order: their headers.
pub const COLUMNS: [&str; 6] = [
    "Job",
    "Processors",
    "Submit",
    "Start (A)",
    "Start (B)",
    "Shift B − A",
];

/// The job table's order: a column of [`COLUMNS`] (by index) and its direction; ties are
/// broken by job number, in the same direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SortOrder {
    pub column: usize,
    pub ascending: bool,
}

impl Default for SortOrder {
    /// By shift, the jobs run B started earliest first.
    fn default() -> SortOrder {
        SortOrder {
            column: 5,
            ascending: true,
        }
    }
}

impl SortOrder {
    /// The value of `j` this order sorts by (columns past the last sort by shift).
    pub fn key(self, j: &JobDelta) -> f64 {
        match self.column {
            0 => j.id as f64,
            1 => f64::from(j.procs),
            2 => j.submit,
            3 => j.start_a,
            4 => j.start_b,
            _ => j.shift,
        }
    }

    /// `x` against `y` in this order (a total order: ties by job number).
    pub fn cmp(self, x: &JobDelta, y: &JobDelta) -> std::cmp::Ordering {
        let o = self.key(x).total_cmp(&self.key(y)).then(x.id.cmp(&y.id));
        if self.ascending {
            o
        } else {
            o.reverse()
        }
    }
}

/// One compared metric as sent: its key in [`METRICS`] and the two values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricValues {
    pub key: String,
    pub a: f64,
    pub b: f64,
}

/// A comparison reduced to what a screen shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComparisonView {
    /// Jobs compared.
    pub jobs: usize,
    /// Jobs run B started earlier, later, at the same time.
    pub earlier: usize,
    pub later: usize,
    pub same: usize,
    pub metrics: Vec<MetricValues>,
    /// [`RunComparison::histogram`].
    pub histogram: Vec<Bin>,
    /// The first rows of the table in `sort` order.
    pub rows: Vec<JobDelta>,
    pub sort: SortOrder,
}

/// The first `n` jobs of `c` in `order` — those a full sort would put first, in that order —
/// with a partial selection instead of a sort of every job.
pub fn first_rows(c: &RunComparison, order: SortOrder, n: usize) -> Vec<JobDelta> {
    let mut all: Vec<&JobDelta> = c.jobs.iter().collect();
    if n < all.len() {
        all.select_nth_unstable_by(n, |x, y| order.cmp(x, y));
        all.truncate(n);
    }
    all.sort_by(|x, y| order.cmp(x, y));
    all.into_iter().copied().collect()
}

impl ComparisonView {
    /// The view of `c`: its first `rows` jobs in `sort` order and a histogram of `bins` bars.
    pub fn of(c: &RunComparison, sort: SortOrder, rows: usize, bins: usize) -> ComparisonView {
        ComparisonView {
            jobs: c.jobs.len(),
            earlier: c.earlier,
            later: c.later,
            same: c.same,
            metrics: c
                .metrics
                .iter()
                .map(|m| MetricValues {
                    key: m.key.to_string(),
                    a: m.a,
                    b: m.b,
                })
                .collect(),
            histogram: c.histogram(bins),
            rows: first_rows(c, sort, rows),
            sort,
        }
    }

    /// The metric differences, as [`RunComparison::metrics`] has them (keys not in
    /// [`METRICS`] are left out).
    pub fn metric_deltas(&self) -> Vec<MetricDelta> {
        self.metrics
            .iter()
            .filter_map(|m| {
                let &(key, label, _) = METRICS.iter().find(|(k, _, _)| *k == m.key)?;
                Some(MetricDelta {
                    key,
                    label,
                    a: m.a,
                    b: m.b,
                    change: m.b - m.a,
                    percent: (m.a != 0.0).then(|| (m.b - m.a) / m.a * 100.0),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::compare::compare;
    use crate::metrics::compare::tests::rec_on as rec;
    use crate::metrics::{JobRecord, Summary};

    fn comparison(n: u64) -> RunComparison {
        // Job i starts (i · m mod k) seconds after its submit.
        let run = |m: u64, k: u64| -> Vec<JobRecord> {
            (0..n)
                .map(|i| {
                    let (submit, delay) = (i as f64, (i * m % k) as f64);
                    rec(i + 1, submit, delay + submit, (i % 5) as u32 + 1)
                })
                .collect()
        };
        let (a, b) = (run(7, 13), run(11, 17));
        let (sa, sb) = (
            Summary::from_records(&a, 8, 0),
            Summary::from_records(&b, 8, 0),
        );
        compare(&sa, &a, &sb, &b).unwrap()
    }

    #[test]
    fn first_rows_are_the_head_of_a_full_sort_in_every_order() {
        let c = comparison(500);
        for column in 0..COLUMNS.len() {
            for ascending in [true, false] {
                let order = SortOrder { column, ascending };
                let mut all = c.jobs.clone();
                all.sort_by(|x, y| order.cmp(x, y));
                assert_eq!(first_rows(&c, order, 100), all[..100].to_vec());
                assert_eq!(first_rows(&c, order, 1000), all);
            }
        }
    }

    #[test]
    fn the_view_round_trips_and_gives_back_the_metric_differences() {
        let c = comparison(300);
        let v = ComparisonView::of(&c, SortOrder::default(), 100, 40);
        assert_eq!(
            (v.jobs, v.earlier, v.later, v.same),
            (300, c.earlier, c.later, c.same)
        );
        assert_eq!(v.histogram, c.histogram(40));
        assert_eq!(v.metric_deltas(), c.metrics);
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<ComparisonView>(&json).unwrap(), v);
    }
}
