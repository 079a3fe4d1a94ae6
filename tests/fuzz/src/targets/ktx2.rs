//! `ktx2`: mutations of valid KTX2 files (several formats, levels, layers, zstd or not)
//! through `read_ktx2` and `TextureStore::register_file`.

use super::{check_file, file_input, mutate, mutated, Mutation};
use crate::rng::{Reader, Rng, EDGE_U32};
use crate::runner::{Outcome, Target};
use layerbatch_core::{read_ktx2, FileLimits, Format, TextureDesc};

/// What `read_ktx2` may allocate in this target (the batcher's budget is the same).
const MAX_BYTES: u64 = 32 << 20;

/// A KTX2 file: header fields, levels (every layer of each, back to back), an optional
/// basic descriptor block with these flags, zstd or not.
pub(crate) struct Ktx2Spec {
    pub vk_format: u32,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    pub level_count: u32,
    pub levels: Vec<Vec<u8>>,
    pub zstd: bool,
    pub dfd_flags: Option<u8>,
}

impl Ktx2Spec {
    pub fn write(&self) -> Vec<u8> {
        let stored: Vec<Vec<u8>> = self
            .levels
            .iter()
            .map(|l| {
                if self.zstd {
                    ruzstd::encoding::compress_to_vec(&l[..], ruzstd::encoding::CompressionLevel::Fastest)
                } else {
                    l.clone()
                }
            })
            .collect();
        let mut dfd = Vec::new();
        if let Some(flags) = self.dfd_flags {
            dfd.extend_from_slice(&0u32.to_le_bytes());
            dfd.extend_from_slice(&2u16.to_le_bytes());
            dfd.extend_from_slice(&24u16.to_le_bytes());
            dfd.extend_from_slice(&[1, 1, 1, flags, 3, 3, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0]);
        }
        let dfd = [(4 + dfd.len() as u32).to_le_bytes().to_vec(), dfd].concat();
        let index_end = 80 + 24 * stored.len();
        let mut at = (index_end + dfd.len()).next_multiple_of(16);
        let mut file = vec![0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];
        let scheme = if self.zstd { 2 } else { 0 };
        for v in [self.vk_format, 1, self.width, self.height, 0, self.layers, 1, self.level_count, scheme] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        for v in [index_end as u32, dfd.len() as u32, 0, 0] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(&[0; 16]);
        let mut body = Vec::new();
        for (s, raw) in stored.iter().zip(&self.levels) {
            for v in [at, s.len(), raw.len()] {
                file.extend_from_slice(&(v as u64).to_le_bytes());
            }
            body.push((at, s));
            at = (at + s.len()).next_multiple_of(16);
        }
        file.extend_from_slice(&dfd);
        for (at, s) in body {
            file.resize(at, 0);
            file.extend_from_slice(s);
        }
        file
    }
}

/// The seed files: valid, small, of several formats, level counts, layer counts, zstd or not.
fn seeds() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(0x5EED);
    let mut spec =
        |vk: u32, format: Format, w: u32, h: u32, layers: u32, levels: u32, zstd: bool, flags: Option<u8>| {
            let data = (0..levels.max(1))
                .map(|l| {
                    let (lw, lh) = layerbatch_core::mip_size(w, h, l);
                    rng.bytes(format.image_bytes(lw, lh) as usize * layers.max(1) as usize)
                })
                .collect();
            Ktx2Spec {
                vk_format: vk,
                width: w,
                height: h,
                layers,
                level_count: levels,
                levels: data,
                zstd,
                dfd_flags: flags,
            }
            .write()
        };
    let mut seeds = vec![
        spec(37, Format::Rgba8Unorm, 8, 8, 0, 4, false, Some(1)),
        spec(43, Format::Rgba8UnormSrgb, 5, 3, 2, 1, true, Some(0)),
        spec(145, Format::Bc7RgbaUnorm, 16, 12, 3, 3, true, Some(0)),
        spec(146, Format::Bc7RgbaUnormSrgb, 8, 8, 0, 1, false, None),
        spec(131, Format::Bc1RgbaUnorm, 8, 8, 0, 2, false, None),
        spec(133, Format::Bc1RgbaUnorm, 12, 4, 2, 1, true, Some(0)),
        spec(137, Format::Bc3RgbaUnorm, 4, 4, 0, 3, false, Some(1)),
        spec(139, Format::Bc4RUnorm, 4, 4, 0, 0, false, Some(0)),
        spec(141, Format::Bc5RgUnorm, 8, 4, 0, 1, true, Some(0)),
        spec(147, Format::Etc2Rgb8Unorm, 8, 8, 0, 4, false, Some(0)),
        spec(151, Format::Etc2Rgba8Unorm, 8, 4, 2, 1, false, Some(1)),
        spec(155, Format::EacRg11Unorm, 4, 8, 0, 2, true, None),
        spec(158, Format::Astc { block: layerbatch_core::AstcBlock::B4x4, srgb: true }, 12, 12, 0, 2, true, Some(0)),
    ];
    // BC1 RGB whose 3-colour blocks draw opaque black: some rewritable, some to decode.
    let black: Vec<u8> = [
        [0u8, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        [0x00, 0xF8, 0xFF, 0xFF, 0x0F, 0x0F, 0x0F, 0x0F],
        [0x00, 0xF8, 0xFF, 0xFF, 0x1B, 0x1B, 0x1B, 0x1B],
        [0xE0, 0x07, 0xFF, 0xFF, 0xC4, 0x00, 0x00, 0x00],
    ]
    .concat();
    seeds.push(
        Ktx2Spec {
            vk_format: 131,
            width: 8,
            height: 8,
            layers: 0,
            level_count: 1,
            levels: vec![black],
            zstd: false,
            dfd_flags: None,
        }
        .write(),
    );
    seeds
}

/// Sets a level index field (offset, length, uncompressed length) of one of the first four
/// levels, or the SGD's offset or length, to an edge value.
pub(crate) fn set_level_index_field(file: &mut [u8], r: &mut Reader<'_>) {
    let level = r.below(4);
    let field = if r.below(5) == 0 { 64 + 8 * r.below(2) } else { 80 + 24 * level + 8 * r.below(3) };
    let v: u64 = match r.below(4) {
        0 => u64::from(EDGE_U32[r.below(EDGE_U32.len())]),
        1 => u64::MAX - u64::from(r.u8()),
        2 => u64::from(r.u16()),
        _ => u64::from(r.u32()) << (r.u8() % 32),
    };
    if field + 8 <= file.len() {
        file[field..field + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// Replaces level 0's data by a hostile zstd frame ([`hostile_frame`]), appended, and marks
/// the file zstd.
pub(crate) fn hostile_zstd_level(file: &mut Vec<u8>, r: &mut Reader<'_>) {
    let frame = hostile_frame(r);
    let len = file.len();
    if len >= 104 {
        let at = len.next_multiple_of(16);
        file.resize(at, 0);
        file[44..48].copy_from_slice(&2u32.to_le_bytes());
        file[80..88].copy_from_slice(&(at as u64).to_le_bytes());
        file[88..96].copy_from_slice(&(frame.len() as u64).to_le_bytes());
        file.extend_from_slice(&frame);
    }
}

/// A zstd frame that is hostile: a huge declared window, or many RLE blocks (a small frame
/// that decompresses to far more than its level).
fn hostile_frame(r: &mut Reader<'_>) -> Vec<u8> {
    let mut f = 0xFD2F_B528u32.to_le_bytes().to_vec();
    match r.below(3) {
        0 => {
            // Window 2^(10 + e), one raw block of a few bytes.
            f.push(0);
            f.push((r.u8() % 32) << 3);
            let n = r.below(64);
            f.extend_from_slice(&(1 | ((n as u32) << 3)).to_le_bytes()[..3]);
            f.extend(std::iter::repeat_n(r.u8(), n));
        }
        1 => {
            // RLE blocks of 128 KiB each, up to 4096 of them (512 MiB), window 128 KiB.
            f.push(0);
            f.push(7 << 3);
            let blocks = 1 + r.u16() as usize % 4096;
            for b in 0..blocks {
                let last = u32::from(b + 1 == blocks);
                f.extend_from_slice(&(last | (1 << 1) | ((128 << 10) << 3)).to_le_bytes()[..3]);
                f.push(r.u8());
            }
        }
        _ => {
            // Single-segment with a declared content size, then garbage.
            f.push(0b1110_0000);
            f.extend_from_slice(&r.u32().to_le_bytes());
            f.extend_from_slice(&r.u32().to_le_bytes());
            for _ in 0..r.below(32) {
                f.push(r.u8());
            }
        }
    }
    f
}

/// The target: seeds and the mutation script reader.
pub struct Ktx2 {
    seeds: Vec<Vec<u8>>,
}

impl Ktx2 {
    pub fn new() -> Self {
        Self { seeds: seeds() }
    }

    /// The file an input describes: byte 0 picks the seed, then each run of
    /// [`super::MUTATION_BYTES`] is one mutation, applied in order.
    fn file(&self, input: &[u8]) -> Vec<u8> {
        mutated(&self.seeds, input, |file, op, r| {
            let len = file.len();
            match op % 11 {
                0 | 1 => mutate(file, Mutation::BitFlip, r, &self.seeds),
                2 => mutate(file, Mutation::ByteSet, r, &self.seeds),
                3 => mutate(file, Mutation::Truncation, r, &self.seeds),
                4 => mutate(file, Mutation::Extension(200), r, &self.seeds),
                5 | 6 => {
                    // A header field (offsets 12..48, and the DFD/KVD index to 64) at an edge.
                    let field = 12 + 4 * r.below(13);
                    let v = if r.bool() { EDGE_U32[r.below(EDGE_U32.len())] } else { r.edgy_u32() };
                    if field + 4 <= len {
                        file[field..field + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                7 => set_level_index_field(file, r),
                8 => {
                    // The descriptor's basic block: flags or texel block dimensions.
                    let dfd = file.get(48..52).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
                    let at = dfd.saturating_add(4 + 8 + 3 + r.below(5));
                    let v = if r.bool() { 255 } else { r.u8() };
                    if at < len {
                        file[at] = v;
                    }
                }
                9 => hostile_zstd_level(file, r),
                _ => mutate(file, Mutation::Splice, r, &self.seeds),
            }
        })
    }
}

impl Target for Ktx2 {
    fn name(&self) -> &'static str {
        "ktx2"
    }

    fn default_iterations(&self) -> u64 {
        1_500_000
    }

    fn generate(&mut self, rng: &mut Rng) -> Vec<u8> {
        file_input(rng)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let file = self.file(input);
        let like = TextureDesc::new(1, 1);
        let read = read_ktx2(&file, &like, FileLimits::new(MAX_BYTES, 256));
        check_file(input, MAX_BYTES, &read, ("read_ktx2", "register_file"), |b| {
            b.textures().register_file(&file, &like)
        })
    }
}
