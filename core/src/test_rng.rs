//! The tests' random numbers: xorshift64*, deterministic, no dependency.

/// xorshift64*: good enough to pick operations and fill blocks; seeded, so every failure
/// replays.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n` (0 for `n` 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// True `percent` times in a hundred.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// Fills `bytes` with random bytes (the decoders' tests: the `decode` feature).
    #[cfg(feature = "decode")]
    pub(crate) fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            chunk.iter_mut().zip(v).for_each(|(b, v)| *b = v);
        }
    }
}
