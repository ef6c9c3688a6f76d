//! The one random-number generator of the simulator: ChaCha8 seeded only from the experiment,
//! with the distributions the workload models need computed through `libm` (and the square
//! root, which IEEE 754 rounds exactly on every target, through `f64::sqrt`), so that native
//! and wasm32 produce identical streams.
//!
//! The stream is `rand_chacha`'s `ChaCha8Rng::seed_from_u64(seed)` read 64 bits at a time.
//! Natively that crate computes it (with SSE2/AVX2); on wasm32 its portable fallback is several
//! times slower than straight-line 32-bit code, so there [`ChaCha8`] below computes the same
//! stream — the test `scalar_chacha8_is_rand_chacha` checks them word for word.

#[cfg(not(target_arch = "wasm32"))]
use rand_chacha::ChaCha8Rng;
#[cfg(not(target_arch = "wasm32"))]
use rand_core::{Rng, SeedableRng};

/// The raw generator: `rand_chacha` natively, [`ChaCha8`] on wasm32.
#[cfg(not(target_arch = "wasm32"))]
type Inner = ChaCha8Rng;
#[cfg(target_arch = "wasm32")]
type Inner = ChaCha8;

#[cfg(not(target_arch = "wasm32"))]
fn seeded(seed: u64) -> Inner {
    ChaCha8Rng::seed_from_u64(seed)
}

#[cfg(target_arch = "wasm32")]
fn seeded(seed: u64) -> Inner {
    ChaCha8::seed_from_u64(seed)
}

/// ChaCha with 8 rounds as a random stream, exactly as `rand_chacha::ChaCha8Rng` (64-bit block
/// counter from 0, stream 0) seeded by `rand_core`'s `seed_from_u64` (PCG32 expands the seed
/// into the 256-bit key) and read by `next_u64` (two 32-bit words, low word first), computed
/// one block at a time with plain 32-bit arithmetic.
#[derive(Clone, Debug)]
pub struct ChaCha8 {
    key: [u32; 8],
    counter: u64,
    block: [u32; 16],
    /// Next unread word of `block` (16: none left).
    index: usize,
}

/// ChaCha's quarter round on words a, b, c, d of `x`.
#[inline(always)]
fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

impl ChaCha8 {
    /// The generator `rand_core`'s `SeedableRng::seed_from_u64` makes: four bytes of PCG32
    /// output (XSH RR, rand_core's multiplier and increment) per key word, little-endian.
    pub fn seed_from_u64(mut state: u64) -> ChaCha8 {
        const MUL: u64 = 6_364_136_223_846_793_005;
        const INC: u64 = 11_634_580_027_462_260_723;
        let mut key = [0u32; 8];
        for k in &mut key {
            state = state.wrapping_mul(MUL).wrapping_add(INC);
            let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
            let rot = (state >> 59) as u32;
            // The PCG32 output's little-endian bytes, read back as a little-endian word.
            *k = xorshifted.rotate_right(rot);
        }
        ChaCha8 {
            key,
            counter: 0,
            block: [0; 16],
            index: 16,
        }
    }

    /// Computes the next block of the stream.
    fn refill(&mut self) {
        let k = &self.key;
        let input: [u32; 16] = [
            0x6170_7865,
            0x3320_646e,
            0x7962_2d32,
            0x6b20_6574,
            k[0],
            k[1],
            k[2],
            k[3],
            k[4],
            k[5],
            k[6],
            k[7],
            self.counter as u32,
            (self.counter >> 32) as u32,
            0,
            0,
        ];
        let mut x = input;
        for _ in 0..4 {
            quarter_round(&mut x, 0, 4, 8, 12);
            quarter_round(&mut x, 1, 5, 9, 13);
            quarter_round(&mut x, 2, 6, 10, 14);
            quarter_round(&mut x, 3, 7, 11, 15);
            quarter_round(&mut x, 0, 5, 10, 15);
            quarter_round(&mut x, 1, 6, 11, 12);
            quarter_round(&mut x, 2, 7, 8, 13);
            quarter_round(&mut x, 3, 4, 9, 14);
        }
        for (out, (a, b)) in self.block.iter_mut().zip(x.iter().zip(&input)) {
            *out = a.wrapping_add(*b);
        }
        self.counter = self.counter.wrapping_add(1);
        self.index = 0;
    }

    /// The next 64 bits: two words of the stream, the first one low.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        if self.index >= 16 {
            self.refill();
        }
        // index is even: words are only ever read in pairs.
        let lo = self.block[self.index & 15];
        let hi = self.block[(self.index + 1) & 15];
        self.index += 2;
        (u64::from(hi) << 32) | u64::from(lo)
    }
}

/// Deterministic, portable random source.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: Inner,
}

impl SimRng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng {
            inner: seeded(seed),
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

    /// Standard normal N(0, 1) by Marsaglia's polar method (`libm::log`, `f64::sqrt`).
    ///
    /// Draws pairs of uniforms until one falls inside the unit disc and returns one of the
    /// two normals it yields; the other is discarded so the generator keeps no hidden state.
    pub fn normal01(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.uniform01() - 1.0;
            let v = 2.0 * self.uniform01() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * (-2.0 * libm::log(s) / s).sqrt();
            }
        }
    }

    /// Gamma with shape `alpha` and scale `beta` (mean `alpha * beta`), by Marsaglia and
    /// Tsang, "A simple method for generating gamma variables" (ACM TOMS 26(3), 2000).
    ///
    /// For `alpha < 1` a Gamma(`alpha` + 1) value is boosted by `U^(1/alpha)`. All the
    /// transcendental math goes through `libm`. Returns 0 when `alpha` or `beta` is not a
    /// positive finite number (callers validate their parameters first).
    pub fn gamma(&mut self, alpha: f64, beta: f64) -> f64 {
        if !(alpha > 0.0 && alpha.is_finite() && beta > 0.0 && beta.is_finite()) {
            return 0.0;
        }
        if alpha < 1.0 {
            let g = self.gamma(alpha + 1.0, 1.0);
            let u = self.uniform_open0();
            return beta * g * libm::pow(u, 1.0 / alpha);
        }
        let d = alpha - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let (x, v) = loop {
                let x = self.normal01();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v * v * v);
                }
            };
            let u = self.uniform_open0();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 {
                return beta * d * v;
            }
            if libm::log(u) < 0.5 * x2 + d * (1.0 - v + libm::log(v)) {
                return beta * d * v;
            }
        }
    }

    /// Hyper-gamma: with probability `p` a Gamma(`a1`, `b1`) value, otherwise a
    /// Gamma(`a2`, `b2`) value (Lublin and Feitelson's run-time model). One uniform picks
    /// the branch, then [`SimRng::gamma`] draws from it.
    pub fn hyper_gamma(&mut self, a1: f64, b1: f64, a2: f64, b2: f64, p: f64) -> f64 {
        if self.uniform01() < p {
            self.gamma(a1, b1)
        } else {
            self.gamma(a2, b2)
        }
    }

    /// Two-stage uniform (Lublin and Feitelson's log2-size model): with probability `prob`
    /// uniform on [`low`, `med`), otherwise uniform on [`med`, `hi`). One uniform picks the
    /// stage, a second one the value.
    pub fn two_stage_uniform(&mut self, low: f64, med: f64, hi: f64, prob: f64) -> f64 {
        if self.uniform01() < prob {
            self.uniform(low, med)
        } else {
            self.uniform(med, hi)
        }
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

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn scalar_chacha8_is_rand_chacha() {
        use rand_core::{Rng, SeedableRng};
        for seed in (0..64u64).chain([u64::MAX, 1 << 63, 0xdead_beef_cafe_f00d]) {
            let mut ours = ChaCha8::seed_from_u64(seed);
            let mut theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            // Long enough to cross many of rand_chacha's 4-block buffers.
            for i in 0..2_000 {
                assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed}, value {i}");
            }
        }
    }

    /// Fingerprints of the first 5,000 values of a few seeds; `tests/web/web_determinism.rs`
    /// checks the same numbers in the browser, where [`ChaCha8`] computes the stream.
    const STREAM_FINGERPRINTS: [(u64, u64); 3] = [
        (0, 0xae25_3e30_0086_cfa5),
        (1, 0xb94a_9a0c_651e_df13),
        (42, 0x10be_3ed2_c37e_52b6),
    ];

    fn fingerprint(seed: u64) -> u64 {
        let mut r = SimRng::new(seed);
        (0..5_000).fold(0u64, |acc, _| acc.rotate_left(5) ^ r.next_u64())
    }

    #[test]
    fn stream_fingerprints() {
        for (seed, fp) in STREAM_FINGERPRINTS {
            assert_eq!(
                fingerprint(seed),
                fp,
                "seed {seed}: {:#x}",
                fingerprint(seed)
            );
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
    fn normal_moments_are_close() {
        let mut r = SimRng::new(11);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal01()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "var {var}");
    }

    #[test]
    fn gamma_moments_are_close() {
        // (shape, scale): below 1 (boost path), near 1, the Lublin run-time and arrival shapes.
        for &(a, b) in &[
            (0.4, 2.0),
            (1.0, 3.0),
            (6.57, 0.823),
            (639.1, 0.0156),
            (6.355, 0.8531),
        ] {
            let mut r = SimRng::new(5);
            let n = 200_000;
            let xs: Vec<f64> = (0..n).map(|_| r.gamma(a, b)).collect();
            assert!(xs.iter().all(|&x| x >= 0.0 && x.is_finite()));
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
            let (m, v) = (a * b, a * b * b);
            assert!((mean - m).abs() < 0.01 * m, "shape {a}: mean {mean} vs {m}");
            assert!((var - v).abs() < 0.03 * v, "shape {a}: var {var} vs {v}");
        }
    }

    #[test]
    fn gamma_rejects_bad_parameters_without_panicking() {
        let mut r = SimRng::new(1);
        assert_eq!(r.gamma(0.0, 1.0), 0.0);
        assert_eq!(r.gamma(-1.0, 1.0), 0.0);
        assert_eq!(r.gamma(1.0, f64::NAN), 0.0);
    }

    #[test]
    fn gamma_stream_is_reproducible() {
        let mut a = SimRng::new(42);
        let mut b = SimRng::new(42);
        for _ in 0..1000 {
            assert_eq!(a.gamma(2.5, 1.5).to_bits(), b.gamma(2.5, 1.5).to_bits());
        }
    }

    #[test]
    fn hyper_gamma_and_two_stage_uniform_mix_correctly() {
        let mut r = SimRng::new(9);
        let n = 200_000;
        let mean: f64 = (0..n)
            .map(|_| r.hyper_gamma(2.0, 1.0, 10.0, 1.0, 0.25))
            .sum::<f64>()
            / n as f64;
        let expect = 0.25 * 2.0 + 0.75 * 10.0;
        assert!((mean - expect).abs() < 0.02 * expect, "mean {mean}");
        let xs: Vec<f64> = (0..n)
            .map(|_| r.two_stage_uniform(1.0, 5.0, 7.0, 0.8))
            .collect();
        assert!(xs.iter().all(|&x| (1.0..7.0).contains(&x)));
        let low = xs.iter().filter(|&&x| x < 5.0).count() as f64 / n as f64;
        assert!((low - 0.8).abs() < 0.005, "low share {low}");
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = SimRng::new(3);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.02, "mean {mean}");
    }
}
