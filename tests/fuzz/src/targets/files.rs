//! `files`: mutations of valid `.astc` and DDS files (every ASTC block size; legacy and DX10
//! DDS headers, BC and RGBA/BGRA, mips and arrays) through `read_file` and
//! `TextureStore::register_file`. Seeds alternate kinds, so each gets half the inputs. (KTX2 has
//! its own target, `ktx2`.)

use super::{check_file, file_input, mutate, mutated, Mutation};
use crate::rng::{Rng, EDGE_U32};
use crate::runner::{Outcome, Target};
use layerbatch_core::{read_file, AstcBlock, FileLimits, TextureDesc};

/// What `read_file` may allocate in this target (the batcher's budget is the same).
const MAX_BYTES: u64 = 32 << 20;

fn astc(rng: &mut Rng, block: AstcBlock, w: u32, h: u32) -> Vec<u8> {
    let [bw, bh] = block.size_px();
    let mut f = vec![0x13, 0xAB, 0xA1, 0x5C, bw as u8, bh as u8, 1];
    for v in [w, h, 1] {
        f.extend_from_slice(&v.to_le_bytes()[..3]);
    }
    f.extend(rng.bytes(16 * (w.div_ceil(bw) * h.div_ceil(bh)) as usize));
    f
}

/// A DDS file (Microsoft's `DDS_HEADER`, and `DDS_HEADER_DXT10` when `dxgi` is given) of
/// `bytes` random data bytes.
fn dds(rng: &mut Rng, w: u32, h: u32, mips: u32, fourcc: &[u8; 4], dxgi: Option<(u32, u32)>, bytes: usize) -> Vec<u8> {
    let mut f = b"DDS ".to_vec();
    let mut put = |v: u32| f.extend_from_slice(&v.to_le_bytes());
    for v in [124, 0x2_1007, h, w, 0, 0, mips] {
        put(v);
    }
    for _ in 0..11 {
        put(0);
    }
    if fourcc == b"RGBA" || fourcc == b"BGRA" {
        // Uncompressed: DDPF_RGB | DDPF_ALPHAPIXELS, 32 bits, masks.
        let (r, b) = if fourcc == b"RGBA" { (0xFF, 0xFF_0000) } else { (0xFF_0000, 0xFF) };
        for v in [32, 0x41, 0, 32, r, 0xFF00, b, 0xFF00_0000] {
            put(v);
        }
    } else {
        for v in [32, 0x4, u32::from_le_bytes(*fourcc), 0, 0, 0, 0, 0] {
            put(v);
        }
    }
    for v in [0x40_1008, 0, 0, 0, 0] {
        put(v);
    }
    if let Some((format, array)) = dxgi {
        for v in [format, 3, 0, array, 0] {
            put(v);
        }
    }
    f.extend(rng.bytes(bytes));
    f
}

/// The seeds: `.astc` and DDS alternately.
fn seeds() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(0xF11E5);
    let r = &mut rng;
    vec![
        astc(r, AstcBlock::B4x4, 8, 8),
        dds(r, 8, 8, 4, b"DXT1", None, 32 + 8 + 8 + 8),
        astc(r, AstcBlock::B6x6, 13, 7),
        dds(r, 8, 8, 4, b"DX10", Some((99, 3)), 3 * (64 + 16 + 16 + 16)),
        astc(r, AstcBlock::B8x5, 17, 11),
        dds(r, 5, 3, 1, b"DXT5", None, 32),
        astc(r, AstcBlock::B10x10, 20, 21),
        dds(r, 4, 4, 3, b"RGBA", None, 4 * (16 + 4 + 1)),
        astc(r, AstcBlock::B12x12, 25, 12),
        dds(r, 6, 2, 1, b"BGRA", None, 4 * 12),
        astc(r, AstcBlock::B5x4, 9, 9),
        dds(r, 16, 8, 1, b"ATI2", None, 128),
        astc(r, AstcBlock::B12x10, 12, 10),
        dds(r, 8, 8, 1, b"DX10", Some((80, 2)), 2 * 32),
    ]
}

/// The target: seeds and the mutation script reader.
pub struct Files {
    seeds: Vec<Vec<u8>>,
}

impl Files {
    pub fn new() -> Self {
        Self { seeds: seeds() }
    }

    /// The file an input describes: byte 0 picks the seed, then each run of
    /// [`super::MUTATION_BYTES`] is one mutation.
    fn file(&self, input: &[u8]) -> Vec<u8> {
        mutated(&self.seeds, input, |file, op, r| {
            let len = file.len();
            match op % 8 {
                0 | 1 => mutate(file, Mutation::BitFlip, r, &self.seeds),
                2 => mutate(file, Mutation::ByteSet, r, &self.seeds),
                3 => mutate(file, Mutation::Truncation, r, &self.seeds),
                4 => mutate(file, Mutation::Extension(300), r, &self.seeds),
                5 | 6 => {
                    // A header field at an edge: DDS's u32 fields (to the end of the DX10
                    // header), or an ASTC block size or 24-bit dimension.
                    let v = if r.bool() { EDGE_U32[r.below(EDGE_U32.len())] } else { r.edgy_u32() };
                    if file.starts_with(b"DDS ") {
                        let field = 4 + 4 * r.below(36);
                        if field + 4 <= len {
                            file[field..field + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    } else {
                        let at = 4 + r.below(12);
                        if at < len {
                            file[at] = v as u8;
                            if at >= 7 && at + 1 < len {
                                file[at + 1] = (v >> 8) as u8;
                            }
                        }
                    }
                }
                _ => mutate(file, Mutation::Splice, r, &self.seeds),
            }
        })
    }
}

impl Target for Files {
    fn name(&self) -> &'static str {
        "files"
    }

    fn default_iterations(&self) -> u64 {
        // Half `.astc`, half DDS: 500,000 mutated files of each kind (about 6 s).
        1_000_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        file_input(rng)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let file = self.file(input);
        let like = TextureDesc::new(1, 1);
        let read = read_file(&file, &like, FileLimits::new(MAX_BYTES, 256));
        check_file(input, MAX_BYTES, &read, ("read_file", "register_file"), |b| {
            b.textures().register_file(&file, &like)
        })
    }
}
