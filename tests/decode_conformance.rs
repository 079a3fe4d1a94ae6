//! Core's CPU block decoder (`decode_rgba8`, the `decode` feature) against independent
//! references: the device's own sampling of the same blocks, on layerbatch-gl over GL 3.3 core
//! and over GLES 3.0 (llvmpipe here, which samples every BC, ETC2/EAC and ASTC format), and,
//! for ASTC, ARM's reference codec (`astcenc -dl`, Debian's `astcenc`). The device and
//! astcenc are the references; the decoder is under test.
//!
//! Each unorm format is drawn from textures of random blocks forced into each of its edge
//! modes (BC1/BC3 colour endpoints in either order, BC4/BC5's six- and eight-value modes, BC7
//! modes 0 to 7 and the reserved mode, ETC2's individual, differential, T, H and planar modes,
//! punchthrough alpha with the opaque bit 0 and 1, EAC with multiplier 0 and not, ASTC
//! void-extent blocks, random blocks and blocks astcenc encoded, as they are and mutated):
//! sixteen 64x64 textures a row (4096 blocks), registered in class arrays (no page padding),
//! nearest, drawn at scale 1 on whole pixels with [`BlendMode::Opaque`] (the texel is written
//! as sampled, alpha included), read back and compared with `decode_rgba8` of the same blocks,
//! texel for texel. The table (format x edge mode x reference: texels compared, worst
//! per-channel difference) is printed as markdown (`--nocapture` shows it).
//!
//! Every row must agree within 1 (ASTC's 8-bit rounding: llvmpipe and astcenc keep the top 8
//! bits of the 16-bit interpolation, the decoder rounds it), except:
//!
//! - BC1-BC5 on llvmpipe, within 2: llvmpipe interpolates their palettes approximately (see
//!   [`LLVMPIPE_BC_TOLERANCE`]); the same blocks are checked against the S3TC and RGTC
//!   formulas in exact arithmetic, within 1 (measured: 0), by
//!   `bc_decoder_matches_the_s3tc_and_rgtc_formulas`, which needs no device.
//! - ASTC blocks the decoder finds illegal (it writes the error colour, magenta), counted
//!   apart: the reference must write magenta for every one of them (within 1: astcenc's is
//!   `(254, 0, 254, 254)` for HDR endpoints), as llvmpipe (Mesa's ASTC decoder) does.
//!
//! Under `CI=true` a device or astcenc that cannot be had fails the test; outside CI it prints
//! `skipped: ...` and returns.

use std::path::PathBuf;
use std::process::Command;

use layerbatch::{decode_rgba8, Batcher, BlendMode, Config, Filter, Format, FormatFamily, Quad, TextureDesc};
use layerbatch_testkit::ci;
use layerbatch_testkit::compressed::picture;
use layerbatch_testkit::headless::{self, DeviceKind, Headless};

/// The target: a 4x4 grid of 64x64 textures.
const SIZE: [u32; 2] = [256, 256];
/// A texture's side, texels: 16x16 = 256 blocks.
const TEX: u32 = 64;
/// Textures a row of the table (a frame): 4096 blocks.
const TEXTURES: usize = 16;
/// Blocks a texture.
const BLOCKS_PER_TEXTURE: usize = (TEX as usize / 4) * (TEX as usize / 4);
/// Blocks a row of the table.
const BLOCKS: usize = TEXTURES * BLOCKS_PER_TEXTURE;
const MAGENTA: [u8; 4] = [255, 0, 255, 255];

/// xorshift64*, seeded per row: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// In `lo..=hi`.
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u64) as i32
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        for chunk in out.chunks_mut(8) {
            chunk.iter_mut().zip(self.next().to_le_bytes()).for_each(|(o, v)| *o = v);
        }
        out
    }
}

/// `BLOCKS` blocks, each made by `block`.
fn blocks<const N: usize>(rng: &mut Rng, mut block: impl FnMut(&mut Rng) -> [u8; N]) -> Vec<u8> {
    (0..BLOCKS).flat_map(|_| block(rng)).collect()
}

// --- Edge modes -------------------------------------------------------------------------------

/// A BC1-style colour block (8 bytes): random, with `color0 > color1` (four colours) or
/// `color0 <= color1` (three colours and transparent black in BC1; still four in BC3), an
/// eighth of the latter with equal endpoints.
fn colour_block(rng: &mut Rng, four: bool) -> [u8; 8] {
    let mut b: [u8; 8] = rng.bytes();
    let (mut c0, mut c1) = (u16::from_le_bytes([b[0], b[1]]), u16::from_le_bytes([b[2], b[3]]));
    if four {
        if c0 == c1 {
            c0 = c0.saturating_add(1);
            c1 = c0 - 1;
        }
        if c0 < c1 {
            (c0, c1) = (c1, c0);
        }
    } else {
        if c0 > c1 {
            (c0, c1) = (c1, c0);
        }
        if rng.below(8) == 0 {
            c1 = c0;
        }
    }
    b[..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b
}

/// A BC4 block (8 bytes): random, with `red0 > red1` (eight values) or `red0 <= red1` (six,
/// and 0 and 255).
fn bc4_block(rng: &mut Rng, eight: bool) -> [u8; 8] {
    let mut b: [u8; 8] = rng.bytes();
    let (mut r0, mut r1) = (b[0], b[1]);
    if eight {
        if r0 == r1 {
            r0 = r0.saturating_add(1);
            r1 = r0 - 1;
        }
        if r0 < r1 {
            (r0, r1) = (r1, r0);
        }
    } else if r0 > r1 {
        (r0, r1) = (r1, r0);
    }
    (b[0], b[1]) = (r0, r1);
    b
}

/// A random BC7 block of `mode` (0..=7: `mode` zero bits then a one, from bit 0), or of the
/// reserved mode 8 (a first byte of 0).
fn bc7_block(rng: &mut Rng, mode: u32) -> [u8; 16] {
    let mut b: [u8; 16] = rng.bytes();
    b[0] = if mode >= 8 { 0 } else { (b[0] & !((1u16 << (mode + 1)) - 1) as u8) | (1 << mode) };
    b
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Etc {
    Individual,
    Differential,
    T,
    H,
    Planar,
}

impl Etc {
    const ALL: [Etc; 5] = [Etc::Individual, Etc::Differential, Etc::T, Etc::H, Etc::Planar];

    fn name(self) -> &'static str {
        match self {
            Etc::Individual => "individual",
            Etc::Differential => "differential",
            Etc::T => "T",
            Etc::H => "H",
            Etc::Planar => "planar",
        }
    }
}

/// A 5-bit base and a 3-bit two's-complement delta whose sum is in 0..=31 (`in_range`) or
/// not.
fn base_delta(rng: &mut Rng, in_range: bool) -> (i32, i32) {
    loop {
        let (base, delta) = (rng.range(0, 31), rng.range(-4, 3));
        if (0..=31).contains(&(base + delta)) == in_range {
            return (base, delta);
        }
    }
}

/// A random ETC2 RGB block (8 bytes, big-endian) in `mode`, with bit 33 (RGB ETC2's diff
/// bit, punchthrough's opaque bit) `bit33` (forced 0 for the individual mode). The mode comes
/// from the R + dR, G + dG, B + dB overflows: T when R's, else H when G's, else planar when B's.
fn etc2_block(rng: &mut Rng, mode: Etc, bit33: bool) -> [u8; 8] {
    let mut b: [u8; 8] = rng.bytes();
    let overflow = match mode {
        Etc::Individual => {
            b[3] &= !0x02;
            return b;
        }
        Etc::Differential => [false; 3],
        Etc::T => [true, false, false],
        Etc::H => [false, true, false],
        Etc::Planar => [false, false, true],
    };
    // T needs only R's overflow, H only G's (with R in range), planar only B's: the later
    // channels of T and H are random.
    let mut done = false;
    for (c, over) in overflow.into_iter().enumerate() {
        if done {
            break;
        }
        let (base, delta) = base_delta(rng, !over);
        b[c] = ((base as u8) << 3) | (delta as u8 & 7);
        done = over;
    }
    b[3] = if bit33 { b[3] | 0x02 } else { b[3] & !0x02 };
    b
}

/// A random EAC block (8 bytes) with multiplier 0 or not.
fn eac_block(rng: &mut Rng, multiplier_zero: bool) -> [u8; 8] {
    let mut b: [u8; 8] = rng.bytes();
    let multiplier = if multiplier_zero { 0 } else { 1 + rng.below(15) as u8 };
    b[1] = (multiplier << 4) | (b[1] & 0x0F);
    b
}

/// An ASTC LDR void-extent block of a random colour: with no extent (every coordinate all 1s)
/// or a random one (mostly legal, minimum below maximum; else illegal).
fn void_extent(rng: &mut Rng, random_extent: bool) -> [u8; 16] {
    let mut b: [u8; 16] = rng.bytes();
    b[0] = 0xFC;
    if random_extent {
        b[1] = (b[1] & 0xF0) | 0x0D;
    } else {
        b[1] = 0xFD;
        b[2..8].fill(0xFF);
    }
    b
}

// --- astcenc ----------------------------------------------------------------------------------

/// A scratch file of this process.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("layerbatch-decode-conformance-{}-{name}", std::process::id()))
}

/// Runs astcenc with `args`; `None` when it is not installed.
fn astcenc(args: &[&str]) -> Option<()> {
    let out = Command::new("astcenc").args(args).arg("-silent").output().ok()?;
    assert!(out.status.success(), "astcenc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Some(())
}

/// Whether astcenc can be run: under CI its absence fails `test`, elsewhere it prints
/// `skipped:` for the astcenc part.
fn have_astcenc(test: &str) -> bool {
    let found = Command::new("astcenc").arg("-help").output().is_ok();
    if !found {
        ci::skip(test, "astcenc is not installed (scripts/install-test-tools.sh): its ASTC rows are left out");
    }
    found
}

/// ASTC 4x4 blocks of a 64 x 1024 RGBA8 strip (`BLOCKS` blocks, 16 per row of blocks: each
/// 256 of them a 64x64 texture) encoded by `astcenc -cl ... 4x4 -fast`.
fn astcenc_blocks(name: &str, rgba: &[u8]) -> Vec<u8> {
    let (png, astc) = (scratch(&format!("{name}.png")), scratch(&format!("{name}.astc")));
    image::RgbaImage::from_raw(TEX, TEX * TEXTURES as u32, rgba.to_vec()).unwrap().save(&png).unwrap();
    astcenc(&["-cl", png.to_str().unwrap(), astc.to_str().unwrap(), "4x4", "-fast"]).expect("astcenc");
    let file = std::fs::read(&astc).unwrap();
    let _ = (std::fs::remove_file(&png), std::fs::remove_file(&astc));
    // A 16-byte header (magic, block size, image size), then the blocks in raster order.
    assert_eq!(&file[..4], &[0x13, 0xAB, 0xA1, 0x5C], "astcenc's magic");
    assert_eq!(file.len(), 16 + BLOCKS * 16);
    file[16..].to_vec()
}

/// `astcenc -dl` of ASTC 4x4 `blocks` of a `w` x `h` image: RGBA8.
fn astcenc_decode(name: &str, blocks: &[u8], w: u32, h: u32) -> Vec<u8> {
    let (astc, png) = (scratch(&format!("{name}.astc")), scratch(&format!("{name}-dl.png")));
    let mut file = vec![0x13, 0xAB, 0xA1, 0x5C, 4, 4, 1];
    for v in [w, h, 1] {
        file.extend_from_slice(&v.to_le_bytes()[..3]);
    }
    file.extend_from_slice(blocks);
    std::fs::write(&astc, file).unwrap();
    astcenc(&["-dl", astc.to_str().unwrap(), png.to_str().unwrap()]).expect("astcenc");
    let rgba = image::open(&png).unwrap().to_rgba8().into_raw();
    let _ = (std::fs::remove_file(&astc), std::fs::remove_file(&png));
    rgba
}

/// Noise, every byte random.
fn noise(rng: &mut Rng) -> Vec<u8> {
    (0..(TEX * TEX * TEXTURES as u32 * 4)).map(|_| rng.next() as u8).collect()
}

/// `blocks` with one to three random bits of each block flipped.
fn mutated(rng: &mut Rng, blocks: &[u8]) -> Vec<u8> {
    let mut out = blocks.to_vec();
    for block in out.chunks_exact_mut(16) {
        for _ in 0..1 + rng.below(3) {
            let bit = rng.below(128) as usize;
            block[bit / 8] ^= 1 << (bit % 8);
        }
    }
    out
}

// --- The rows -----------------------------------------------------------------------------------

/// One row's blocks: `BLOCKS` blocks of `format` in edge mode `mode`.
struct Case {
    format: Format,
    mode: String,
    blocks: Vec<u8>,
}

impl Case {
    fn new(format: Format, mode: impl Into<String>, blocks: Vec<u8>) -> Self {
        assert_eq!(blocks.len(), BLOCKS * format.block_bytes() as usize, "{format}");
        Case { format, mode: mode.into(), blocks }
    }
}

/// Every row but the astcenc ones: each unorm format in each edge mode.
fn cases() -> Vec<Case> {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut out = Vec::new();
    let rng = &mut rng;
    for (four, mode) in [(true, "color0 > color1"), (false, "color0 <= color1")] {
        out.push(Case::new(Format::Bc1RgbaUnorm, mode, blocks(rng, |r| colour_block(r, four))));
        let bc3 = blocks(rng, |r| {
            let alpha: [u8; 8] = r.bytes();
            let colour = colour_block(r, four);
            std::array::from_fn::<u8, 16, _>(|i| if i < 8 { alpha[i] } else { colour[i - 8] })
        });
        out.push(Case::new(Format::Bc3RgbaUnorm, mode, bc3));
    }
    for (eight, mode) in [(true, "red0 > red1 (8 values)"), (false, "red0 <= red1 (6 values)")] {
        out.push(Case::new(Format::Bc4RUnorm, mode, blocks(rng, |r| bc4_block(r, eight))));
        let bc5 = blocks(rng, |r| {
            let (red, green) = (bc4_block(r, eight), bc4_block(r, eight));
            std::array::from_fn::<u8, 16, _>(|i| if i < 8 { red[i] } else { green[i - 8] })
        });
        out.push(Case::new(Format::Bc5RgUnorm, mode.replace("red", "r/g"), bc5));
    }
    for mode in 0..=8 {
        let name = if mode == 8 { "reserved mode 8 (first byte 0)".to_string() } else { format!("mode {mode}") };
        out.push(Case::new(Format::Bc7RgbaUnorm, name, blocks(rng, |r| bc7_block(r, mode))));
    }
    for mode in Etc::ALL {
        out.push(Case::new(Format::Etc2Rgb8Unorm, mode.name(), blocks(rng, |r| etc2_block(r, mode, true))));
    }
    for mode in [Etc::Differential, Etc::T, Etc::H, Etc::Planar] {
        for opaque in [false, true] {
            let name = format!("{}, opaque bit {}", mode.name(), u8::from(opaque));
            out.push(Case::new(Format::Etc2Rgb8A1Unorm, name, blocks(rng, |r| etc2_block(r, mode, opaque))));
        }
    }
    for mode in Etc::ALL {
        let rgba = blocks(rng, |r| {
            let (alpha, colour): ([u8; 8], _) = (r.bytes(), etc2_block(r, mode, true));
            std::array::from_fn::<u8, 16, _>(|i| if i < 8 { alpha[i] } else { colour[i - 8] })
        });
        out.push(Case::new(Format::Etc2Rgba8Unorm, format!("{}, random alpha", mode.name()), rgba));
    }
    let rgba = blocks(rng, |r| {
        let mode = Etc::ALL[r.below(5) as usize];
        let (alpha, colour) = (eac_block(r, true), etc2_block(r, mode, true));
        std::array::from_fn::<u8, 16, _>(|i| if i < 8 { alpha[i] } else { colour[i - 8] })
    });
    out.push(Case::new(Format::Etc2Rgba8Unorm, "alpha multiplier 0, any mode", rgba));
    for (zero, mode) in [(true, "multiplier 0"), (false, "multiplier 1..15")] {
        out.push(Case::new(Format::EacR11Unorm, mode, blocks(rng, |r| eac_block(r, zero))));
        let rg = blocks(rng, |r| {
            let (red, green) = (eac_block(r, zero), eac_block(r, zero));
            std::array::from_fn::<u8, 16, _>(|i| if i < 8 { red[i] } else { green[i - 8] })
        });
        out.push(Case::new(Format::EacRg11Unorm, mode, rg));
    }
    out.push(Case::new(
        Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        "void-extent, no extent",
        blocks(rng, |r| void_extent(r, false)),
    ));
    out.push(Case::new(
        Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        "void-extent, random extent",
        blocks(rng, |r| void_extent(r, true)),
    ));
    out.push(Case::new(
        Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        "random blocks",
        blocks(rng, |r| r.bytes::<16>()),
    ));
    out
}

/// The astcenc rows: a test picture and noise encoded by astcenc, and both mutated.
fn astcenc_cases() -> Vec<Case> {
    let mut rng = Rng(0x5EED_1234_ABCD_0002);
    let strip = picture(TEX, TEX * TEXTURES as u32, 7, true);
    let pic = astcenc_blocks("picture", &strip);
    let noisy = astcenc_blocks("noise", &noise(&mut rng));
    let (pic_m, noisy_m) = (mutated(&mut rng, &pic), mutated(&mut rng, &noisy));
    vec![
        Case::new(Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false }, "astcenc -fast: picture", pic),
        Case::new(Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false }, "astcenc -fast: noise", noisy),
        Case::new(
            Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
            "astcenc -fast: picture, 1-3 bits flipped",
            pic_m,
        ),
        Case::new(
            Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
            "astcenc -fast: noise, 1-3 bits flipped",
            noisy_m,
        ),
    ]
}

// --- Comparing ----------------------------------------------------------------------------------

/// What a row measured.
#[derive(Default)]
struct Stats {
    texels: usize,
    worst: u8,
    off_by_one: usize,
    off_by_more: usize,
    /// ASTC blocks the decoder found illegal (every texel magenta): how many, and how many the
    /// reference wrote as magenta too (within 1).
    illegal_blocks: usize,
    illegal_magenta: usize,
    /// A texel the reference wrote for an illegal block that is not magenta.
    illegal_other: Option<[u8; 4]>,
}

/// One line of the table.
struct Row {
    format: Format,
    mode: String,
    reference: String,
    stats: Stats,
    /// The largest difference the row may show.
    tolerance: u8,
}

/// BC1-BC5 interpolate palettes the formats define in exact arithmetic ("(2*RGB0+RGB1)/3",
/// "(6*alpha0 + 1*alpha1)/7"); llvmpipe computes them approximately: colour 2 as `c0 +
/// ((c1 - c0) * 85 >> 8)` (1/3 as 85/256, rounded down; Mesa's `lp_build_lerp23` in
/// gallivm's `lp_bld_format_s3tc.c`) from 565 endpoints expanded by bit replication, and
/// alike for BC4/BC5's palettes. So against llvmpipe they are within 2, not 1; against the
/// formats' own arithmetic ([`bc_decoder_matches_the_s3tc_and_rgtc_formulas`]) within 1 (0
/// as measured).
const LLVMPIPE_BC_TOLERANCE: u8 = 2;

/// What a row may differ by on a device: 2 for BC1-BC5 (above), 1 for the rest.
fn device_tolerance(format: Format) -> u8 {
    match format {
        Format::Bc1RgbaUnorm | Format::Bc3RgbaUnorm | Format::Bc4RUnorm | Format::Bc5RgUnorm => LLVMPIPE_BC_TOLERANCE,
        _ => 1,
    }
}

impl Row {
    fn markdown(&self) -> String {
        let s = &self.stats;
        let illegal = if s.illegal_blocks == 0 {
            String::new()
        } else {
            format!(
                "; {} illegal blocks (decoder: magenta), reference magenta for {}{}",
                s.illegal_blocks,
                s.illegal_magenta,
                s.illegal_other.map(|t| format!(", else e.g. {t:?}")).unwrap_or_default()
            )
        };
        format!(
            "| {} | {} | {} | {} | {} (at most {}) | {} | {}{} |",
            self.format,
            self.mode,
            self.reference,
            s.texels,
            s.worst,
            self.tolerance,
            s.off_by_one,
            s.off_by_more,
            illegal
        )
    }
}

const HEADER: &str = "| format | edge mode | reference | texels compared | worst diff | texels off by 1 | texels off by more (notes) |\n| --- | --- | --- | --- | --- | --- | --- |";

/// Compares `reference` (RGBA8, `ref_width` texels a row, texture `k` of a row at
/// `origin(k)`) with `decode_rgba8` of each 64x64 texture of `case`, block by block. For ASTC,
/// blocks the decoder turns all magenta (illegal) are counted apart, not in the differences.
fn compare(case: &Case, reference: &[u8], ref_width: u32, origin: impl Fn(usize) -> [u32; 2], what: &str) -> Stats {
    let mut s = Stats::default();
    let bytes = BLOCKS_PER_TEXTURE * case.format.block_bytes() as usize;
    let mut printed = 0;
    for (k, blocks) in case.blocks.chunks_exact(bytes).enumerate() {
        let ours = decode_rgba8(case.format, TEX, TEX, blocks).unwrap();
        let [ox, oy] = origin(k);
        for (by, bx) in (0..TEX / 4).flat_map(|by| (0..TEX / 4).map(move |bx| (by, bx))) {
            let texels = (0..16).map(|i| (bx * 4 + i % 4, by * 4 + i / 4));
            let get = |px: &[u8], w: u32, x: u32, y: u32| -> [u8; 4] {
                let i = ((y * w + x) * 4) as usize;
                [px[i], px[i + 1], px[i + 2], px[i + 3]]
            };
            let pairs: Vec<([u8; 4], [u8; 4])> =
                texels.map(|(x, y)| (get(&ours, TEX, x, y), get(reference, ref_width, ox + x, oy + y))).collect();
            let diff = |a: [u8; 4], b: [u8; 4]| a.iter().zip(b).map(|(a, b)| a.abs_diff(b)).max().unwrap_or(0);
            if case.format.family() == FormatFamily::Astc && pairs.iter().all(|(o, _)| *o == MAGENTA) {
                s.illegal_blocks += 1;
                if pairs.iter().all(|(_, r)| diff(*r, MAGENTA) <= 1) {
                    s.illegal_magenta += 1;
                } else if s.illegal_other.is_none() {
                    s.illegal_other = pairs.iter().map(|(_, r)| *r).find(|r| diff(*r, MAGENTA) > 1);
                }
                continue;
            }
            for (o, r) in pairs {
                let d = diff(o, r);
                s.texels += 1;
                s.worst = s.worst.max(d);
                s.off_by_one += usize::from(d == 1);
                s.off_by_more += usize::from(d > 1);
                if d > 1 && printed < 5 {
                    printed += 1;
                    let at = ((by * TEX / 4 + bx) * case.format.block_bytes()) as usize;
                    let block = &blocks[at..at + case.format.block_bytes() as usize];
                    eprintln!(
                        "{} {}: {what}: texture {k} block ({bx}, {by}) {block:02x?}: decoder {o:?}, {what} {r:?}",
                        case.format, case.mode
                    );
                }
            }
        }
    }
    s
}

/// Draws the 16 textures of `case` on `dev` (each at `(k % 4, k / 4) x 64`, nearest, scale
/// 1, blend opaque) and reads the target back.
fn draw(dev: &mut Headless, batcher: &mut Batcher, case: &Case) -> Vec<u8> {
    let bytes = BLOCKS_PER_TEXTURE * case.format.block_bytes() as usize;
    let desc = TextureDesc::new(TEX, TEX).with_format(case.format).with_filter(Filter::Nearest);
    let ids: Vec<_> = case.blocks.chunks_exact(bytes).map(|b| batcher.textures().register(&desc, b).unwrap()).collect();
    for &id in &ids {
        // Drawn from the blocks, not decoded on the CPU (which would compare the decoder with
        // itself), and from a class array: the texture at its layer's origin, no padding.
        assert_eq!(batcher.desc(id).unwrap().format, case.format, "{}: decoded on the CPU", case.format);
        assert_eq!(batcher.placement(id).unwrap().rect_px, [0, 0, TEX, TEX]);
    }
    batcher.begin_frame();
    batcher.state().set_blend(BlendMode::Opaque);
    for (k, &id) in ids.iter().enumerate() {
        let [x, y] = origin(k);
        batcher.push(&Quad::rect(id, [x as f32, y as f32], [TEX as f32, TEX as f32])).unwrap();
    }
    let plan = batcher.finish();
    assert_eq!(plan.counters.textures_decoded, 0, "{}: decoded on the CPU", case.format);
    dev.draw(plan).unwrap_or_else(|e| panic!("{}: {e}", case.format));
    let px = dev.read();
    for id in ids {
        batcher.textures().free(id).unwrap();
    }
    px
}

/// Where texture `k` of a row is drawn.
fn origin(k: usize) -> [u32; 2] {
    [(k as u32 % 4) * TEX, (k as u32 / 4) * TEX]
}

/// Every row on `kind`: the table, and whether each row agrees.
fn conformance(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let limits = dev.limits();
    let families = limits.format_families;
    let reference = format!("{kind:?} ({})", dev.adapter());
    eprintln!("{reference}: format families {families}");
    for family in [FormatFamily::Bc, FormatFamily::Etc2, FormatFamily::Astc] {
        if !families.contains(family) {
            // llvmpipe has every family; another device may not.
            ci::skip(test, &format!("{kind:?} has no {family:?} formats: their rows are left out"));
        }
    }
    let mut batcher = Batcher::new(limits, Config::default().with_max_packed_size_px(0)).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let mut cases = cases();
    if have_astcenc(test) {
        cases.extend(astcenc_cases());
    }
    let mut rows = Vec::new();
    for case in cases.iter().filter(|c| families.contains(c.format.family())) {
        let px = draw(&mut dev, &mut batcher, case);
        let stats = compare(case, &px, SIZE[0], origin, &format!("{kind:?}"));
        let tolerance = device_tolerance(case.format);
        rows.push(Row { format: case.format, mode: case.mode.clone(), reference: reference.clone(), stats, tolerance });
    }
    eprintln!("\n{HEADER}");
    for row in &rows {
        eprintln!("{}", row.markdown());
    }
    check(&rows);
}

/// Every row within its tolerance; ASTC blocks the decoder finds illegal are magenta on the
/// reference too.
fn check(rows: &[Row]) {
    let mut failures = Vec::new();
    for row in rows {
        let s = &row.stats;
        assert!(s.texels > 0 || s.illegal_blocks > 0, "{} {}: nothing compared", row.format, row.mode);
        if s.worst > row.tolerance {
            failures.push(format!(
                "{} {}: worst difference {} against {} (at most {})",
                row.format, row.mode, s.worst, row.reference, row.tolerance
            ));
        }
        if s.illegal_magenta != s.illegal_blocks {
            failures.push(format!(
                "{} {}: {} of {} illegal blocks not magenta on {}, e.g. {:?}",
                row.format,
                row.mode,
                s.illegal_blocks - s.illegal_magenta,
                s.illegal_blocks,
                row.reference,
                s.illegal_other
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn decoder_matches_llvmpipe_on_gl() {
    conformance(DeviceKind::Gl, "decoder_matches_llvmpipe_on_gl");
}

#[test]
fn decoder_matches_llvmpipe_on_gles() {
    conformance(DeviceKind::Gles, "decoder_matches_llvmpipe_on_gles");
}

#[test]
fn astc_decoder_matches_astcenc() {
    const TEST: &str = "astc_decoder_matches_astcenc";
    if !have_astcenc(TEST) {
        return;
    }
    let mut cases = astcenc_cases();
    let mut rng = Rng(0x5EED_1234_ABCD_0003);
    cases.push(Case::new(
        Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        "void-extent, random extent",
        blocks(&mut rng, |r| void_extent(r, true)),
    ));
    cases.push(Case::new(
        Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        "random blocks",
        blocks(&mut rng, |r| r.bytes::<16>()),
    ));
    let mut rows = Vec::new();
    for case in &cases {
        // astcenc decodes the whole 64 x 1024 strip; texture k is rows 64k.. of it.
        let strip = astcenc_decode("reference", &case.blocks, TEX, TEX * TEXTURES as u32);
        let stats = compare(case, &strip, TEX, |k| [0, k as u32 * TEX], "astcenc");
        rows.push(Row {
            format: case.format,
            mode: case.mode.clone(),
            reference: "astcenc -dl".into(),
            stats,
            tolerance: 1,
        });
    }
    eprintln!("\n{HEADER}");
    for row in &rows {
        eprintln!("{}", row.markdown());
    }
    check(&rows);
}

// --- BC1-BC5 in the formats' own arithmetic -----------------------------------------------------

/// `num / den` of full scale written to an 8-bit target: `num * 255 / den` rounded to nearest.
fn unorm8(num: u32, den: u32) -> u8 {
    ((2 * num * 255 + den) / (2 * den)) as u8
}

/// Texel `(x, y)` of an S3TC colour block (8 bytes) as the S3TC section of the Khronos Data
/// Format Specification gives it: RGB0 and RGB1 unpacked from RGB565 (as `r / 31`, `g / 63`,
/// `b / 31`), then RGB0, RGB1, (2*RGB0+RGB1)/3, (RGB0+2*RGB1)/3 when `color0 > color1` or
/// `four` (BC3: "as though color0 > color1"), else RGB0, RGB1, (RGB0+RGB1)/2 and transparent
/// black.
fn s3tc_colour(b: &[u8], x: usize, y: usize, four: bool) -> [u8; 4] {
    let (c0, c1) = (u16::from_le_bytes([b[0], b[1]]), u16::from_le_bytes([b[2], b[3]]));
    let code = (u32::from_le_bytes([b[4], b[5], b[6], b[7]]) >> (2 * (4 * y + x))) & 3;
    let unpack = |c: u16| [u32::from(c >> 11) & 31, u32::from(c >> 5) & 63, u32::from(c) & 31];
    let (e0, e1, max) = (unpack(c0), unpack(c1), [31, 63, 31]);
    let mix = |w0: u32, w1: u32| {
        let [r, g, b]: [u8; 3] = std::array::from_fn(|i| unorm8(w0 * e0[i] + w1 * e1[i], (w0 + w1) * max[i]));
        [r, g, b, 255]
    };
    match (four || c0 > c1, code) {
        (_, 0) => mix(1, 0),
        (_, 1) => mix(0, 1),
        (true, 2) => mix(2, 1),
        (true, _) => mix(1, 2),
        (false, 2) => mix(1, 1),
        (false, _) => [0, 0, 0, 0],
    }
}

/// Texel `(x, y)` of an RGTC / BC3 alpha block (8 bytes): alpha0, alpha1, then
/// `((8 - c) alpha0 + (c - 1) alpha1) / 7` for codes 2..7 when `alpha0 > alpha1`, else
/// `((6 - c) alpha0 + (c - 1) alpha1) / 5` for codes 2..5, 0 and 255.
fn rgtc(b: &[u8], x: usize, y: usize) -> u8 {
    let (a0, a1) = (u32::from(b[0]), u32::from(b[1]));
    let bits = u64::from_le_bytes([b[2], b[3], b[4], b[5], b[6], b[7], 0, 0]);
    let code = ((bits >> (3 * (4 * y + x))) & 7) as u32;
    match code {
        0 => a0 as u8,
        1 => a1 as u8,
        c if a0 > a1 => unorm8((8 - c) * a0 + (c - 1) * a1, 7 * 255),
        c if c <= 5 => unorm8((6 - c) * a0 + (c - 1) * a1, 5 * 255),
        6 => 0,
        _ => 255,
    }
}

/// The 16 textures of a BC1-BC5 row decoded by [`s3tc_colour`] and [`rgtc`], as a 64 x 1024
/// strip (texture `k` at rows `64 k..`).
fn bc_by_the_formulas(case: &Case) -> Vec<u8> {
    let bytes = case.format.block_bytes() as usize;
    let mut out = vec![0u8; (TEX * TEX * TEXTURES as u32 * 4) as usize];
    for (i, b) in case.blocks.chunks_exact(bytes).enumerate() {
        // Blocks in raster order, 16 a row: the strip is one texture after another.
        let (bx, by) = (i % 16, i / 16);
        for t in 0..16 {
            let (x, y) = (t % 4, t / 4);
            let texel = match case.format {
                Format::Bc1RgbaUnorm => s3tc_colour(b, x, y, false),
                Format::Bc3RgbaUnorm => {
                    let [r, g, bl, _] = s3tc_colour(&b[8..], x, y, true);
                    [r, g, bl, rgtc(b, x, y)]
                }
                Format::Bc4RUnorm => [rgtc(b, x, y), 0, 0, 255],
                Format::Bc5RgUnorm => [rgtc(b, x, y), rgtc(&b[8..], x, y), 0, 255],
                other => panic!("{other} is not BC1-BC5"),
            };
            let at = (((by * 4 + y) * TEX as usize) + bx * 4 + x) * 4;
            out[at..at + 4].copy_from_slice(&texel);
        }
    }
    out
}

#[test]
fn bc_decoder_matches_the_s3tc_and_rgtc_formulas() {
    let bc = [Format::Bc1RgbaUnorm, Format::Bc3RgbaUnorm, Format::Bc4RUnorm, Format::Bc5RgUnorm];
    let mut rows = Vec::new();
    for case in cases().iter().filter(|c| bc.contains(&c.format)) {
        let strip = bc_by_the_formulas(case);
        let stats = compare(case, &strip, TEX, |k| [0, k as u32 * TEX], "the formulas");
        let reference = "S3TC / RGTC formulas, exact".to_string();
        rows.push(Row { format: case.format, mode: case.mode.clone(), reference, stats, tolerance: 1 });
    }
    eprintln!("\n{HEADER}");
    for row in &rows {
        eprintln!("{}", row.markdown());
    }
    check(&rows);
}
