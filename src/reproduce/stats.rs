//! Replication statistics of the reproductions (Mache et al. Table 2, Ababneh & Bani-Mohammad Figs. 6–7): the
//! sample mean of independent replications, its 95 % confidence interval (Student t), and
//! ranks claimed only where the intervals separate ("tied within noise" otherwise).

use serde::Serialize;

/// Student t quantiles t(0.975, df) for df = 1..=30 (1.96 beyond).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// t(0.975, `df`); infinite for df = 0.
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        d => T975.get(d - 1).copied().unwrap_or(1.96),
    }
}

/// A sample mean with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeanCi {
    pub mean: f64,
    /// Half-width of the 95 % interval (infinite with fewer than two values).
    pub half_width: f64,
    /// Replications.
    pub n: usize,
}

impl MeanCi {
    /// Mean and 95 % half-width of `values` (NaN mean when empty).
    pub fn of(values: &[f64]) -> MeanCi {
        let n = values.len();
        if n == 0 {
            return MeanCi {
                mean: f64::NAN,
                half_width: f64::INFINITY,
                n,
            };
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return MeanCi {
                mean,
                half_width: f64::INFINITY,
                n,
            };
        }
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
        MeanCi {
            mean,
            half_width: t975(n - 1) * libm::sqrt(var / n as f64),
            n,
        }
    }

    /// Lower end of the interval.
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    /// Upper end of the interval.
    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Half-width over the mean.
    pub fn rel_error(&self) -> f64 {
        self.half_width / self.mean
    }

    /// `true` when the two intervals do not overlap.
    pub fn separated(&self, other: &MeanCi) -> bool {
        self.high() < other.low() || other.high() < self.low()
    }
}

/// Ranks (1 = smallest), ties share the smaller rank.
pub fn ranks(v: &[f64]) -> Vec<u32> {
    v.iter()
        .map(|&x| 1 + v.iter().filter(|&&y| y < x).count() as u32)
        .collect()
}

/// Ranks claimed only where intervals separate (1 = smallest): an entry's rank is 1 + the
/// number of entries whose interval lies wholly below its own. Entries whose intervals overlap
/// share a rank unless a third entry separates them.
pub fn ci_ranks(v: &[MeanCi]) -> Vec<u32> {
    v.iter()
        .map(|x| 1 + v.iter().filter(|y| y.high() < x.low()).count() as u32)
        .collect()
}

/// Ranks (1 = smallest) from paired replications (common random numbers: replication i of
/// every entry shares its seed): entry a ranks below entry b only when the 95 % interval of
/// the mean paired difference a_i − b_i lies wholly below zero. An entry's rank is 1 + the
/// number of entries significantly smaller than it; entries not separated share ranks.
pub fn paired_ranks(values: &[Vec<f64>]) -> Vec<u32> {
    let smaller = |a: &[f64], b: &[f64]| -> bool {
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        MeanCi::of(&d).high() < 0.0
    };
    values
        .iter()
        .map(|x| 1 + values.iter().filter(|y| smaller(y, x)).count() as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_half_width_use_student_t() {
        let c = MeanCi::of(&[10.0, 12.0, 11.0]);
        assert_eq!(c.mean, 11.0);
        // s = 1, half-width t(0.975, 2) · 1 / √3.
        assert!((c.half_width - 4.303 / libm::sqrt(3.0)).abs() < 1e-12);
        assert!((c.rel_error() - 4.303 / libm::sqrt(3.0) / 11.0).abs() < 1e-12);
        assert!(MeanCi::of(&[5.0]).half_width.is_infinite());
        assert!(MeanCi::of(&[]).mean.is_nan());
        assert_eq!(t975(40), 1.96);
    }

    #[test]
    fn ranks_are_claimed_only_when_intervals_separate() {
        assert_eq!(ranks(&[3.0, 1.0, 2.0, 1.0]), vec![4, 1, 3, 1]);
        let ci = |mean, half_width| MeanCi {
            mean,
            half_width,
            n: 5,
        };
        // 10 ± 1 and 11 ± 1 overlap (tied at 1); 20 ± 1 is above both.
        let v = [ci(11.0, 1.0), ci(10.0, 1.0), ci(20.0, 1.0)];
        assert_eq!(ci_ranks(&v), vec![1, 1, 3]);
        assert!(!v[0].separated(&v[1]));
        assert!(v[0].separated(&v[2]));
    }

    #[test]
    fn paired_ranks_see_consistent_differences_under_common_seeds() {
        // b is always 1 above a, though both vary much from seed to seed; c wanders around a.
        let a = vec![10.0, 20.0, 30.0, 40.0];
        let b: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
        let c = vec![10.5, 19.0, 30.5, 39.5];
        assert!(!MeanCi::of(&a).separated(&MeanCi::of(&b)));
        assert_eq!(
            paired_ranks(&[a.clone(), b.clone(), c.clone()]),
            vec![1, 2, 1]
        );
        assert_eq!(paired_ranks(&[b, a]), vec![2, 1]);
    }
}
