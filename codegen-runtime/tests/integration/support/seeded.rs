//! What the seeded reliability tests share (included by path, also from the controller's
//! tests): a small deterministic generator, so a seed names one run, and sizes from the
//! environment.

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    /// The generator of `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The number in the environment variable `name`, or `default`.
#[allow(dead_code)]
pub fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
