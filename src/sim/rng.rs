//! The one random-number generator of the simulator: ChaCha8 seeded only from the experiment,
//! with the distributions the workload models need computed through `libm`, so that native
//! and wasm32 produce identical streams.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Deterministic, portable random source.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: ChaCha8Rng,
}

impl SimRng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng {
            inner: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Next raw 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform on [0, 1) with 53 random bits.
    pub fn uniform01(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on (0, 1]: safe as the argument of a logarithm.
    pub fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform01()
    }

    /// Uniform on [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform01()
    }

    /// Uniform integer on [lo, hi] (inclusive); `lo` when `hi <= lo`.
    pub fn uniform_int(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo + 1;
        // Rejection sampling removes modulo bias.
        let zone = u64::MAX - (u64::MAX % span);
        loop {
            let v = self.next_u64();
            if v < zone {
                return lo + v % span;
            }
        }
    }

    /// Exponential with the given mean (inverse transform through `libm::log`).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.uniform_open0())
    }

    /// `true` with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform01() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::new(7);
        let mut b = SimRng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn uniform_int_stays_in_range() {
        let mut r = SimRng::new(1);
        for _ in 0..10_000 {
            let v = r.uniform_int(3, 9);
            assert!((3..=9).contains(&v));
        }
        assert_eq!(r.uniform_int(5, 5), 5);
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = SimRng::new(3);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.02, "mean {mean}");
    }
}
