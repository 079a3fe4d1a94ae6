//! Real files from real tools, read by `Batcher::register_file` and drawn by every headless
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
//!
//! - **DDS, DX10 header, BC7** (bc7enc 1.0.8, prebuilt in npm's `@gpu-tex-enc/bc`) of a 64x32
//!   and a 37x29 picture with alpha, against bc7enc's own decode: 0 on the CPU, 0 drawn at
//!   scale 1 on every device; the same file marked `BC7_UNORM_SRGB` reads as sRGB.
//!
//! Under `CI=true` a device or tool that cannot be had fails the test; elsewhere it prints
//! `skipped:` (`scripts/install-test-tools.sh` installs astcenc, nvcompress and bc7enc).

use std::path::PathBuf;
use std::process::Command;

use layerbatch::{
    decode_rgba8, AstcBlock, Batcher, Config, Filter, Format, FormatFamily, Quad, TextureDesc, TextureId,
};
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
            let ids = batcher.register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?} {block:?}: {e}"));
            let path = if families.contains(FormatFamily::Astc) { "native" } else { "decoded on the CPU" };
            let drawn = draw_one(&mut dev, &mut batcher, ids[0], [w, h]);
            let (differing, worst) = compare(&drawn, reference, w, 1, "drawn", "astcenc -dl");
            eprintln!("{kind:?} ({families}) {block:?} {path}: worst {worst}");
            assert_eq!(differing, 0, "{kind:?} {block:?} ({path}): {differing} texels more than 1 from astcenc's");
            batcher.free(ids[0]).expect("free");
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
            let ids = batcher.register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?} {block:?}: {e}"));
            for l in 1..3u32 {
                let side = SIDE >> l;
                let drawn = draw_one(&mut dev, &mut batcher, ids[0], [side, side]);
                let (differing, worst) = compare(&drawn, &references[l as usize], side, 1, "drawn", "astcenc -dl");
                eprintln!("{kind:?} {block:?} level {l} at 1/{}: worst {worst}", 1 << l);
                assert_eq!(differing, 0, "{kind:?} {block:?}: level {l} at 1/{} scale", 1 << l);
            }
            batcher.free(ids[0]).expect("free");
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
            files.push((flag, [w, h], file, decoded_levels, channels));
        }
        let _ = std::fs::remove_file(&png);
    }
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        for (flag, [w, h], file, levels, channels) in &files {
            // Premultiplied colour over opaque black leaves the colour: RGB is compared.
            let ids = batcher.register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?} {flag}: {e}"));
            let decoded = batcher.desc(ids[0]).expect("live").format == Format::Rgba8Unorm;
            for l in 0..3u32 {
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
            batcher.free(ids[0]).expect("free");
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
            let ids = batcher.register_file(file, &nearest()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            let drawn = draw_one(&mut dev, &mut batcher, ids[0], [*w, *h]);
            // Premultiplied colour over opaque black leaves the colour: RGB is compared.
            let d = worst(&drawn, decoded, 3);
            eprintln!("{kind:?} bc7enc {w}x{h}: worst {d}");
            assert!(d <= 1, "{kind:?} bc7enc {w}x{h}: {d} from bc7enc's decode");
            batcher.free(ids[0]).expect("free");
        }
    }
}
