//! KTX2 files built by hand, byte by byte, each against what it protects: bounds on levels,
//! layers and bytes checked before anything is allocated, BC1 RGB black texels, straight
//! alpha, the descriptor and zstd.

use super::*;
use crate::{Alpha, Batcher, Config, Limits};

/// A KTX2 file written by hand: the header, the level index, a data format descriptor and
/// the levels (each holding every layer), zstd-compressed when asked.
#[derive(Clone, Debug)]
struct Ktx2File {
    vk_format: u32,
    width: u32,
    height: u32,
    /// `layerCount` (0: a plain 2D texture).
    layers: u32,
    /// `levelCount`; `None`: as many as `levels`.
    level_count: Option<u32>,
    /// Each level's bytes, uncompressed, every layer back to back.
    levels: Vec<Vec<u8>>,
    zstd: bool,
    /// The basic descriptor block's flags byte; `None`: no block (an empty descriptor).
    dfd_flags: Option<u8>,
    /// The basic block's texel block dimensions, stored minus one.
    dfd_block_dims: [u8; 4],
}

impl Ktx2File {
    fn new(vk_format: u32, width: u32, height: u32, levels: Vec<Vec<u8>>) -> Self {
        Self {
            vk_format,
            width,
            height,
            layers: 0,
            level_count: None,
            levels,
            zstd: false,
            dfd_flags: None,
            dfd_block_dims: [3, 3, 0, 0],
        }
    }

    fn write(&self) -> Vec<u8> {
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
        // The descriptor: its total size, then one basic block (header, 16 fixed bytes, no
        // samples) when flags are given.
        let mut dfd = Vec::new();
        if let Some(flags) = self.dfd_flags {
            dfd.extend_from_slice(&0u32.to_le_bytes()); // vendor 0 (Khronos), type 0 (basic)
            dfd.extend_from_slice(&2u16.to_le_bytes()); // version 2
            dfd.extend_from_slice(&24u16.to_le_bytes()); // block size
            dfd.extend_from_slice(&[1, 1, 1, flags]); // RGBSDA, BT.709, linear, flags
            dfd.extend_from_slice(&self.dfd_block_dims);
            dfd.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0]); // bytes per plane
        }
        let dfd = [(4 + dfd.len() as u32).to_le_bytes().to_vec(), dfd].concat();
        let index_end = 80 + 24 * stored.len();
        let mut data_at = (index_end + dfd.len()).next_multiple_of(16);
        let mut file = ktx2::MAGIC.to_vec();
        let level_count = self.level_count.unwrap_or(self.levels.len() as u32);
        let header =
            [self.vk_format, 1, self.width, self.height, 0, self.layers, 1, level_count, if self.zstd { 2 } else { 0 }];
        for v in header {
            file.extend_from_slice(&v.to_le_bytes());
        }
        for v in [index_end as u32, dfd.len() as u32, 0, 0] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(&[0; 16]); // no supercompression global data
        let mut body = Vec::new();
        for (stored, raw) in stored.iter().zip(&self.levels) {
            for v in [data_at, stored.len(), raw.len()] {
                file.extend_from_slice(&(v as u64).to_le_bytes());
            }
            body.push((data_at, stored));
            data_at = (data_at + stored.len()).next_multiple_of(16);
        }
        file.extend_from_slice(&dfd);
        for (at, stored) in body {
            file.resize(at, 0);
            file.extend_from_slice(stored);
        }
        file
    }
}

const BC7: u32 = 145;
const RGBA8: u32 = 37;
const BC1_RGB: u32 = 131;
const BC1_RGB_SRGB: u32 = 132;
const BC1_RGBA: u32 = 133;
const BC4: u32 = 139;

fn like() -> TextureDesc {
    TextureDesc::new(1, 1)
}

/// `levels` levels of a `w` x `h` texture of `format`, `layers` layers each, every byte `fill`.
fn chain(format: Format, w: u32, h: u32, levels: u32, layers: u32, fill: u8) -> Vec<Vec<u8>> {
    (0..levels)
        .map(|l| {
            let (lw, lh) = crate::mip_size(w, h, l);
            vec![fill; format.image_bytes(lw, lh) as usize * layers as usize]
        })
        .collect()
}

// ---- levels ----

#[test]
fn more_levels_than_the_size_has_are_refused_before_allocating() {
    // 33 levels of a 1x1 BC7 texture, in 885 bytes: level 32 shifted by 32 (a debug panic; in
    // release the max_bytes check counted only 32 levels and level 32 wrapped to full size).
    let file = Ktx2File::new(BC7, 1, 1, chain(Format::Bc7RgbaUnorm, 1, 1, 33, 1, 0)).write();
    let e = read_ktx2(&file, &like(), FileLimits::new(2 << 20, 1)).unwrap_err();
    assert_eq!(
        e,
        FileError::TooManyLevels { kind: FileKind::Ktx2, width_px: 1, height_px: 1, levels: 33, max_levels: 1 }
    );
    assert!(e.to_string().contains("33") && e.to_string().contains("at most 1"), "{e}");
    // Two levels of a 1x1 texture, and 12 of a 1024x16 one (11 at most), are refused alike,
    // whatever the level index holds.
    let two = Ktx2File::new(BC7, 1, 1, chain(Format::Bc7RgbaUnorm, 1, 1, 2, 1, 0)).write();
    assert!(matches!(read_ktx2(&two, &like(), FileLimits::default()), Err(FileError::TooManyLevels { levels: 2, .. })));
    let mut big = Ktx2File::new(BC7, 1024, 16, chain(Format::Bc7RgbaUnorm, 1, 1, 12, 1, 0));
    big.level_count = Some(12);
    let e = read_ktx2(&big.write(), &like(), FileLimits::default()).unwrap_err();
    assert_eq!(
        e,
        FileError::TooManyLevels { kind: FileKind::Ktx2, width_px: 1024, height_px: 16, levels: 12, max_levels: 11 }
    );
    // Through the batcher too.
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    assert!(matches!(b.textures().register_file(&file, &like()), Err(FileError::TooManyLevels { levels: 33, .. })));
}

#[test]
fn a_full_mip_chain_reads_every_level() {
    // 64x16: seven levels, the last 1x1; every level its own fill, read back in order.
    let levels: Vec<Vec<u8>> = chain(Format::Bc7RgbaUnorm, 64, 16, 7, 1, 0)
        .into_iter()
        .enumerate()
        .map(|(i, l)| vec![i as u8; l.len()])
        .collect();
    let t = read_ktx2(&Ktx2File::new(BC7, 64, 16, levels.clone()).write(), &like(), FileLimits::default()).unwrap();
    assert_eq!((t.desc.width_px, t.desc.height_px, t.desc.mip_levels), (64, 16, 7));
    assert_eq!(t.layers, vec![levels.concat()]);
    assert_eq!(t.layers[0].len(), t.desc.byte_len());
}

// ---- layers and bytes ----

/// A 1x1 RGBA8 file of `layers` layers, one zstd level of zeros: a few hundred bytes.
fn many_layers(layers: u32) -> Vec<u8> {
    let mut file = Ktx2File::new(RGBA8, 1, 1, vec![vec![0; 4 * layers as usize]]);
    file.layers = layers;
    file.zstd = true;
    file.write()
}

#[test]
fn a_million_layers_are_refused_before_allocating() {
    // 1,048,576 layers in 249 bytes: registered a million textures (seconds, hundreds of MiB,
    // and every plan after slow).
    let file = many_layers(1 << 20);
    assert!(file.len() < 400, "{} bytes", file.len());
    let e = read_ktx2(&file, &like(), FileLimits::new(u64::MAX, 256)).unwrap_err();
    assert_eq!(e, FileError::TooManyLayers { kind: FileKind::Ktx2, layers: 1 << 20, max_layers: 256 });
    assert!(e.to_string().contains("1048576") && e.to_string().contains("256"), "{e}");
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    let max_layers = b.budget().max_layers_per_array;
    assert_eq!(
        b.textures().register_file(&file, &like()),
        Err(FileError::TooManyLayers { kind: FileKind::Ktx2, layers: 1 << 20, max_layers })
    );
    assert_eq!(b.allocator().array_count(), 0, "nothing admitted");
    assert!(b.textures().memory_by_format().is_empty());
}

#[test]
fn layers_up_to_the_limit_read() {
    let file = many_layers(4);
    let t = read_ktx2(&file, &like(), FileLimits::new(1 << 20, 4)).unwrap();
    assert_eq!(t.layers, vec![vec![0u8; 4]; 4]);
    let e = read_ktx2(&file, &like(), FileLimits::new(1 << 20, 3)).unwrap_err();
    assert_eq!(e, FileError::TooManyLayers { kind: FileKind::Ktx2, layers: 4, max_layers: 3 });
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    assert_eq!(b.textures().register_file(&file, &like()).unwrap().len(), 4);
}

#[test]
fn each_layer_counts_its_bookkeeping_against_max_bytes() {
    // 1000 layers of one 1x1 RGBA8 texel: 4000 bytes of texels, but a vector each too.
    let file = many_layers(1000);
    let per_layer = 4 + FileLimits::LAYER_BOOKKEEPING_BYTES;
    const { assert!(FileLimits::LAYER_BOOKKEEPING_BYTES >= 24, "a Vec's header at least") };
    let e = read_ktx2(&file, &like(), FileLimits::new(4000, 1000)).unwrap_err();
    let total_bytes = 1000 * per_layer;
    assert!(
        matches!(e, FileError::TooLarge { layers: 1000, total_bytes: t, max_bytes: 4000, .. } if t == total_bytes),
        "{e}"
    );
    assert!(read_ktx2(&file, &like(), FileLimits::new(total_bytes - 1, 1000)).is_err());
    assert!(read_ktx2(&file, &like(), FileLimits::new(total_bytes, 1000)).is_ok());
}

#[test]
fn huge_dimensions_are_refused_by_bytes_first() {
    // 16384 px layers, a billion of them: the byte limit speaks first (the batcher's
    // integration tests count on TooLarge here).
    let mut file = Ktx2File::new(BC7, 16384, 16384, vec![vec![0; 16]]);
    file.layers = 1 << 30;
    let e = read_ktx2(&file.write(), &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::TooLarge { layers: 1_073_741_824, .. }), "{e}");
}

// ---- BC1 RGB ----

/// A BC1 block: endpoints (RGB565) and sixteen 2-bit indices, texel 0 first.
fn bc1(c0: u16, c1: u16, indices: [u32; 16]) -> [u8; 8] {
    let bits = indices.iter().enumerate().fold(0u32, |acc, (t, &i)| acc | (i << (2 * t)));
    let mut b = [0u8; 8];
    b[0..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..8].copy_from_slice(&bits.to_le_bytes());
    b
}

/// A reference BC1 decoder: a block's 16 texels as BC1 RGB (`rgb`: index 3 of a 3-colour
/// block opaque black) or BC1 RGBA (transparent black).
fn decode_bc1(block: &[u8], rgb: bool) -> [[u8; 4]; 16] {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    let expand = |c: u16| {
        let (r, g, b) = (u32::from(c >> 11), u32::from((c >> 5) & 63), u32::from(c & 31));
        [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]
    };
    let (e0, e1) = (expand(c0), expand(c1));
    let mix = |w0: u32, w1: u32, d: u32| -> [u8; 4] {
        let c = |i: usize| ((e0[i] * w0 + e1[i] * w1) / d) as u8;
        [c(0), c(1), c(2), 255]
    };
    let palette = if c0 > c1 {
        [mix(1, 0, 1), mix(0, 1, 1), mix(2, 1, 3), mix(1, 2, 3)]
    } else {
        [mix(1, 0, 1), mix(0, 1, 1), mix(1, 1, 2), if rgb { [0, 0, 0, 255] } else { [0; 4] }]
    };
    let bits = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    std::array::from_fn(|t| palette[((bits >> (2 * t)) & 3) as usize])
}

const RED: u16 = 0xF800;
const WHITE: u16 = 0xFFFF;
const GREEN: u16 = 0x07E0;
const BLACK: u16 = 0;

fn bc1_file(vk: u32, w: u32, h: u32, blocks: &[[u8; 8]]) -> Vec<u8> {
    Ktx2File::new(vk, w, h, vec![blocks.concat()]).write()
}

#[test]
fn bc1_rgb_without_black_texels_reads_unchanged() {
    let blocks = [
        // 4-colour mode: every index opaque either way.
        bc1(WHITE, RED, [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
        // 3-colour mode without index 3.
        bc1(RED, WHITE, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]),
    ];
    let t = read_ktx2(&bc1_file(BC1_RGB, 8, 4, &blocks), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.layers[0], blocks.concat());
    assert_eq!((t.desc.format, t.desc.alpha), (Format::Bc1RgbaUnorm, Alpha::Premultiplied));
}

#[test]
fn bc1_rgb_black_texels_are_rewritten_to_draw_the_same_as_rgba() {
    let blocks = [
        // Endpoint 0 black: index 3 becomes 0.
        bc1(BLACK, WHITE, [0, 1, 2, 3, 3, 3, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
        // Red and black only: a 4-colour block of red and black.
        bc1(RED, WHITE, [0, 3, 0, 3, 3, 0, 3, 0, 0, 0, 0, 0, 3, 3, 3, 3]),
        // White (endpoint 1) and black only.
        bc1(RED, WHITE, [1, 3, 1, 3, 3, 1, 3, 1, 1, 1, 1, 1, 3, 3, 3, 3]),
        // Both endpoints green: every index but 3 is green.
        bc1(GREEN, GREEN, [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
        // Nothing but black.
        bc1(RED, WHITE, [3; 16]),
    ];
    for vk in [BC1_RGB, BC1_RGB_SRGB] {
        let t = read_ktx2(&bc1_file(vk, 20, 4, &blocks), &like(), FileLimits::default()).unwrap();
        let srgb = vk == BC1_RGB_SRGB;
        assert_eq!(t.desc.format, if srgb { Format::Bc1RgbaUnormSrgb } else { Format::Bc1RgbaUnorm });
        assert_eq!(t.desc.alpha, Alpha::Premultiplied, "BC1 RGB has no alpha");
        for (i, (before, after)) in blocks.iter().zip(t.layers[0].chunks_exact(8)).enumerate() {
            assert_ne!(&before[..], after, "block {i} rewritten");
            assert_eq!(decode_bc1(after, false), decode_bc1(before, true), "block {i}: RGBA draws what RGB did");
            assert!(decode_bc1(before, false).iter().any(|t| t[3] == 0), "block {i} had transparent texels as RGBA");
        }
        #[cfg(feature = "decode")]
        for (i, (before, after)) in blocks.iter().zip(t.layers[0].chunks_exact(8)).enumerate() {
            // And through core's own decoder (whose midpoints round their own way): the block
            // as RGBA draws what the original did as RGB, its transparent texels opaque black.
            let ours = crate::decode_rgba8(t.desc.format, 4, 4, after).unwrap();
            let mut rgb = crate::decode_rgba8(t.desc.format, 4, 4, before).unwrap();
            assert!(rgb.chunks_exact(4).any(|t| t == [0, 0, 0, 0]), "block {i}");
            rgb.chunks_exact_mut(4).for_each(|t| t[3] = 255);
            assert_eq!(ours, rgb, "block {i}");
        }
    }
    // The same blocks as BC1 RGBA (133) mean transparent texels: left alone.
    let t = read_ktx2(&bc1_file(BC1_RGBA, 20, 4, &blocks), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.layers[0], blocks.concat());
}

#[test]
fn bc1_rgb_index_3_past_the_edge_is_not_black_texels() {
    // A 2x2 level: the block's texels outside x < 2, y < 2 are never sampled, so index 3
    // there (with two colours besides: no rewrite could keep it) is no reason to refuse.
    let block = bc1(RED, WHITE, [0, 1, 3, 3, 2, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]);
    let t = read_ktx2(&bc1_file(BC1_RGB, 2, 2, &[block]), &like(), FileLimits::default()).unwrap();
    assert_eq!(t.layers[0], block);
    // A 3x4 texture sees column 2 (texel 2 of the first row is index 3): a rewrite that keeps
    // red and white cannot be made.
    let r = read_ktx2(&bc1_file(BC1_RGB, 3, 4, &[block]), &like(), FileLimits::default());
    #[cfg(not(feature = "decode"))]
    assert_eq!(r, Err(FileError::Bc1RgbBlackTexels { blocks: 1 }));
    #[cfg(feature = "decode")]
    assert_eq!(r.unwrap().desc.format, Format::Rgba8Unorm);
}

/// Blocks of red, white and opaque black: no BC1 RGBA block draws them.
fn black_with_two_colours() -> Vec<[u8; 8]> {
    vec![
        bc1(RED, WHITE, [0, 1, 3, 2, 3, 3, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
        bc1(GREEN, WHITE, [0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ]
}

#[cfg(not(feature = "decode"))]
#[test]
fn bc1_rgb_black_texels_rgba_cannot_draw_are_refused_without_decode() {
    // Two such blocks in each of two layers, plus one that can be rewritten: 4 counted.
    let mut blocks = black_with_two_colours();
    blocks.push(bc1(BLACK, WHITE, [3; 16]));
    let layer = blocks.concat();
    let mut file = Ktx2File::new(BC1_RGB, 12, 4, vec![[layer.clone(), layer].concat()]);
    file.layers = 2;
    let e = read_ktx2(&file.write(), &like(), FileLimits::default()).unwrap_err();
    assert_eq!(e, FileError::Bc1RgbBlackTexels { blocks: 4 });
    assert!(e.to_string().contains("decode"), "{e}");
    let mut b = Batcher::new(Limits::guaranteed_minimum(), Config::default()).unwrap();
    assert_eq!(b.textures().register_file(&file.write(), &like()), Err(FileError::Bc1RgbBlackTexels { blocks: 4 }));
}

#[cfg(feature = "decode")]
#[test]
fn bc1_rgb_black_texels_rgba_cannot_draw_are_decoded_with_decode() {
    let blocks = black_with_two_colours();
    for (vk, format) in [(BC1_RGB, Format::Rgba8Unorm), (BC1_RGB_SRGB, Format::Rgba8UnormSrgb)] {
        // 8x4, two levels (the second 4x2, one block: the first block again).
        let file = Ktx2File::new(vk, 8, 4, vec![blocks.concat(), blocks[0].to_vec()]).write();
        let t = read_ktx2(&file, &like(), FileLimits::default()).unwrap();
        assert_eq!((t.desc.format, t.desc.mip_levels, t.desc.alpha), (format, 2, Alpha::Premultiplied));
        let texels = |block: &[u8; 8]| decode_bc1(block, true);
        let (a, b) = (texels(&blocks[0]), texels(&blocks[1]));
        let mut level0 = Vec::new();
        for y in 0..4 {
            level0.extend(a[y * 4..y * 4 + 4].concat());
            level0.extend(b[y * 4..y * 4 + 4].concat());
        }
        let level1: Vec<u8> = a[..8].concat();
        // Within the decoders' rounding of midpoints; black and alpha exact.
        let expected = [level0, level1].concat();
        assert_eq!(t.layers.len(), 1);
        assert_eq!(t.layers[0].len(), expected.len());
        for (i, (got, want)) in t.layers[0].chunks_exact(4).zip(expected.chunks_exact(4)).enumerate() {
            let close = got.iter().zip(want).all(|(g, w)| g.abs_diff(*w) <= 1);
            assert!(close && got[3] == 255 && (want != [0, 0, 0, 255] || got == want), "texel {i}: {got:?} {want:?}");
        }
        assert!(t.layers[0].chunks_exact(4).any(|t| t == [0, 0, 0, 255]));
        // Fits max_bytes decoded, or is refused: 24 bytes of blocks and 24 of bookkeeping
        // fit 150, the 160 decoded bytes do not.
        let e = read_ktx2(&file, &like(), FileLimits::new(150, 1)).unwrap_err();
        let total_bytes = 160 + FileLimits::LAYER_BOOKKEEPING_BYTES;
        assert!(matches!(e, FileError::TooLarge { total_bytes: t, max_bytes: 150, .. } if t == total_bytes), "{e}");
    }
}

// ---- alpha ----

fn with_flags(vk: u32, format: Format, flags: Option<u8>) -> Vec<u8> {
    let mut file = Ktx2File::new(vk, 4, 4, chain(format, 4, 4, 1, 1, 0));
    file.dfd_flags = flags;
    file.write()
}

#[test]
fn straight_alpha_files_are_read_straight() {
    let alpha = |vk: u32, format: Format, flags: Option<u8>, like: TextureDesc| {
        read_ktx2(&with_flags(vk, format, flags), &like, FileLimits::default()).unwrap().desc.alpha
    };
    let straight = like().with_alpha(Alpha::Straight);
    for (vk, format) in [
        (RGBA8, Format::Rgba8Unorm),
        (BC1_RGBA, Format::Bc1RgbaUnorm),
        (137, Format::Bc3RgbaUnorm),
        (BC7, Format::Bc7RgbaUnorm),
        (149, Format::Etc2Rgb8A1Unorm),
        (151, Format::Etc2Rgba8Unorm),
        (157, Format::Astc { block: crate::AstcBlock::B4x4, srgb: false }),
    ] {
        assert_eq!(
            alpha(vk, format, Some(0), like()),
            Alpha::Straight,
            "{format} without KHR_DF_FLAG_ALPHA_PREMULTIPLIED"
        );
        assert_eq!(alpha(vk, format, Some(1), straight), Alpha::Premultiplied, "{format} with it");
        // No basic descriptor block: the caller's word.
        assert_eq!(alpha(vk, format, None, like()), Alpha::Premultiplied, "{format}");
        assert_eq!(alpha(vk, format, None, straight), Alpha::Straight, "{format}");
    }
    for (vk, format) in [
        (BC1_RGB, Format::Bc1RgbaUnorm),
        (BC4, Format::Bc4RUnorm),
        (141, Format::Bc5RgUnorm),
        (147, Format::Etc2Rgb8Unorm),
        (153, Format::EacR11Unorm),
        (155, Format::EacRg11Unorm),
    ] {
        for flags in [Some(0), Some(1), None] {
            assert_eq!(alpha(vk, format, flags, straight), Alpha::Premultiplied, "{format} has no alpha");
        }
    }
}

#[test]
fn straight_alpha_files_are_registered_straight() {
    let mut b =
        Batcher::new(Limits::guaranteed_minimum().with_format_families(crate::FormatFamilies::ALL), Config::default())
            .unwrap();
    let ids = b.textures().register_file(&with_flags(BC7, Format::Bc7RgbaUnorm, Some(0)), &like()).unwrap();
    assert_eq!(b.desc(ids[0]).unwrap().alpha, Alpha::Straight);
    let ids = b.textures().register_file(&with_flags(BC7, Format::Bc7RgbaUnorm, Some(1)), &like()).unwrap();
    assert_eq!(b.desc(ids[0]).unwrap().alpha, Alpha::Premultiplied);
}

// ---- the container and zstd ----

#[test]
fn a_texel_block_dimension_of_256_is_refused_not_a_panic() {
    // ktx2 0.5 computes `NonZeroU8::new(dim + 1).unwrap()`: 255 overflows (a panic).
    let mut file = Ktx2File::new(BC7, 4, 4, chain(Format::Bc7RgbaUnorm, 4, 4, 1, 1, 0));
    file.dfd_flags = Some(1);
    for dims in [[255, 3, 0, 0], [3, 3, 0, 255]] {
        file.dfd_block_dims = dims;
        let e = read_ktx2(&file.write(), &like(), FileLimits::default()).unwrap_err();
        assert!(matches!(&e, FileError::Container { message, .. } if message.contains("256")), "{e}");
    }
    file.dfd_block_dims = [254, 3, 0, 0];
    assert!(read_ktx2(&file.write(), &like(), FileLimits::default()).is_ok(), "255 is a size like any");
}

#[test]
fn zstd_levels_read_as_written() {
    let levels: Vec<Vec<u8>> = (0..3)
        .map(|l| {
            let (w, h) = crate::mip_size(16, 8, l);
            (0..Format::Bc7RgbaUnorm.image_bytes(w, h) * 2).map(|i| (i * 7 + u64::from(l)) as u8).collect()
        })
        .collect();
    let mut file = Ktx2File::new(BC7, 16, 8, levels.clone());
    file.layers = 2;
    file.zstd = true;
    let t = read_ktx2(&file.write(), &like(), FileLimits::default()).unwrap();
    let layer =
        |i: usize| levels.iter().flat_map(|l| l[i * l.len() / 2..(i + 1) * l.len() / 2].to_vec()).collect::<Vec<u8>>();
    assert_eq!(t.layers, vec![layer(0), layer(1)]);
}

/// A zstd frame holding `data` in one raw block, declaring a window of 2^`window_log` bytes.
fn zstd_frame(window_log: u8, data: &[u8]) -> Vec<u8> {
    let mut f = 0xFD2F_B528u32.to_le_bytes().to_vec();
    f.push(0); // no content size, not single-segment, no checksum, no dictionary
    f.push((window_log - 10) << 3); // exponent, mantissa 0
    let header = 1 | ((data.len() as u32) << 3); // last block, raw
    f.extend_from_slice(&header.to_le_bytes()[..3]);
    f.extend_from_slice(data);
    f
}

/// A 4x4 BC7 file whose one level is `frame`, declared `uncompressed` bytes.
fn zstd_file(frame: Vec<u8>, uncompressed: u64) -> Vec<u8> {
    let mut file = Ktx2File::new(BC7, 4, 4, vec![frame]).write();
    file[44..48].copy_from_slice(&2u32.to_le_bytes()); // zstd, the frame stored as is
    file[96..104].copy_from_slice(&uncompressed.to_le_bytes());
    file
}

#[test]
fn zstd_windows_past_twice_the_level_are_refused() {
    // 16 bytes in a frame declaring a 128 MiB window: ruzstd allocated the window first.
    let ok = zstd_file(zstd_frame(20, &[7; 16]), 16);
    assert_eq!(read_ktx2(&ok, &like(), FileLimits::default()).unwrap().layers, vec![vec![7; 16]]);
    let huge = zstd_file(zstd_frame(27, &[7; 16]), 16);
    let e = read_ktx2(&huge, &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::Zstd { level: 0, .. }), "{e}");
}

#[test]
fn zstd_frames_holding_more_than_the_level_are_refused() {
    // The frame holds 32 bytes, the level is (and declares) 16: ruzstd writes into a buffer
    // of 16 and stops.
    let e = read_ktx2(&zstd_file(zstd_frame(10, &[1; 32]), 16), &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::Zstd { level: 0, .. }), "{e}");
    // Fewer bytes than declared.
    let e = read_ktx2(&zstd_file(zstd_frame(10, &[1; 8]), 16), &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::LevelSize { actual_bytes: 8, expected_bytes: 16, .. }), "{e}");
    // A declared size that is not the level's: refused before anything is decompressed.
    let e = read_ktx2(&zstd_file(zstd_frame(10, &[1; 16]), 1 << 40), &like(), FileLimits::default()).unwrap_err();
    assert!(matches!(e, FileError::LevelSize { actual_bytes: 1_099_511_627_776, expected_bytes: 16, .. }), "{e}");
}

/// `toktx`'s 8-bit outputs besides RGBA8 (R8, RG8, RGB8, BGR8, BGRA8, linear and sRGB) are
/// widened to RGBA8 as GPUs sample them: `(r, 0, 0, 1)`, `(r, g, 0, 1)`, `(r, g, b, 1)`.
#[test]
fn narrow_8bit_formats_read_as_rgba8() {
    let texels: Vec<u8> = (1..=24).collect();
    for (vk, channels, format, want) in [
        (9, 1, Format::Rgba8Unorm, [1, 0, 0, 255, 2, 0, 0, 255]),
        (22, 2, Format::Rgba8UnormSrgb, [1, 2, 0, 255, 3, 4, 0, 255]),
        (23, 3, Format::Rgba8Unorm, [1, 2, 3, 255, 4, 5, 6, 255]),
        (36, 3, Format::Rgba8UnormSrgb, [3, 2, 1, 255, 6, 5, 4, 255]),
        (44, 4, Format::Rgba8Unorm, [3, 2, 1, 4, 7, 6, 5, 8]),
    ] {
        // 3x2, two levels (3x2 then 1x1), zstd for every other one.
        let level0 = texels[..6 * channels].to_vec();
        let level1 = texels[..channels].to_vec();
        let mut file = Ktx2File::new(vk, 3, 2, vec![level0, level1]);
        file.zstd = vk % 2 == 0;
        let t = read_ktx2(&file.write(), &like(), FileLimits::default()).unwrap();
        assert_eq!((t.desc.format, t.desc.mip_levels), (format, 2), "vk {vk}");
        assert_eq!(t.layers[0].len(), (6 + 1) * 4, "vk {vk}");
        assert_eq!(t.layers[0][..8], want, "vk {vk}");
        let expected_alpha = if channels == 4 { Alpha::Straight } else { Alpha::Premultiplied };
        assert!(channels == 4 || t.desc.alpha == expected_alpha, "vk {vk}: opaque formats are premultiplied");
        // A level one texel short is refused, naming its size in the file's format.
        let short = Ktx2File::new(vk, 3, 2, vec![texels[..6 * channels - channels].to_vec()]);
        let e = read_ktx2(&short.write(), &like(), FileLimits::default()).unwrap_err();
        assert!(
            matches!(e, FileError::LevelSize { expected_bytes, .. } if expected_bytes == 6 * channels as u64),
            "{e}"
        );
    }
}
