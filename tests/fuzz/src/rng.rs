//! A deterministic xorshift64* generator, and a reader that turns an input's bytes into the
//! numbers a target needs (past the end it reads zeros, so every byte string is an input).

/// xorshift64*: small, fast, reproducible from its seed on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value; 0 is remapped).
    pub fn new(seed: u64) -> Self {
        // splitmix64 once, so that nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// A `usize` in `0..n`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.byte()).collect()
    }
}

/// Reads an input's bytes as numbers, front to back; zeros past the end.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// `u32` values at the edges: where shifts, sums and counts break.
pub const EDGE_U32: [u32; 14] = [0, 1, 2, 3, 4, 31, 32, 33, 255, 256, 65_535, 0x8000_0000, u32::MAX - 1, u32::MAX];

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// The next little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next little-endian `u32`.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A value in `0..n` from one byte (0 for `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.u8()) % n
        }
    }

    /// A boolean.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// A `u32` that is often at an edge ([`EDGE_U32`]), often small, sometimes anything.
    pub fn edgy_u32(&mut self) -> u32 {
        match self.u8() % 4 {
            0 => EDGE_U32[self.below(EDGE_U32.len())],
            1 => u32::from(self.u8()),
            2 => u32::from(self.u16()),
            _ => self.u32(),
        }
    }

    /// A float that is often ordinary, often extreme: NaN, infinities, huge, tiny,
    /// subnormal, negative zero, the edges of `MAX_COORD_PX`, or any bit pattern.
    pub fn edgy_f32(&mut self) -> f32 {
        const SPECIAL: [f32; 18] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1.0e-30,
            1.4e-45,
            1.0e30,
            1_073_741_824.0,
            1_073_741_900.0,
            16_777_216.0,
            -1_073_741_824.0,
        ];
        match self.u8() % 8 {
            0 => SPECIAL[self.below(SPECIAL.len())],
            1 => f32::from_bits(self.u32()),
            2 => f32::from(self.u16()) - 32_768.0,
            3 => f32::from(self.u16()) / 256.0 - 128.0,
            _ => f32::from(self.u16()) / 64.0,
        }
    }

    /// A float in an ordinary range (0..1024, quarter steps).
    pub fn plain_f32(&mut self) -> f32 {
        f32::from(self.u16() % 4096) / 4.0
    }
}

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Bytes from hex (pairs of digits; anything else is an error).
pub fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err("odd number of hex digits".to_string());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|e| format!("hex at {i}: {e}")))
        .collect()
}
