//! Compressed textures drawn by the devices, against core's CPU decode of the same blocks, on
//! every headless device: layerbatch-gl on GL 3.3 core and GLES 3.0 (llvmpipe), layerbatch-wgpu
//! on Vulkan (lavapipe) and on wgpu's GL backend. Each device's format families are printed;
//! llvmpipe's GL 3.3 and lavapipe must have BC, GLES 3.0 must have ETC2.
//!
//! - Each format the device has (BC1, BC3, BC4, BC5, BC7, ETC2 RGB, ASTC 4x4; encoded by
//!   `intel_tex_2`) is drawn from a page (30x22) and from a class array with four authored
//!   levels (64x64), at scale 1 on whole pixels and scaled and rotated, nearest and linear;
//!   the same quads drawn from the decoded RGBA8 are the reference: equal for nearest (within
//!   1 for BC1-BC5, whose palette rounding is the decoder's, and 1 more for sRGB), within 2 for
//!   linear. The class
//!   texture minified to a quarter shows its authored level 2.
//! - No foreign texel: nine solid textures of odd sizes share a compressed page; the green one,
//!   magnified, minified, rotated and with UVs past its edges, never shows red or blue.
//! - RGBA8, BC7 and BC1 interleaved: one draw at tier 4, painter's order kept.
//! - Compressed page and class arrays grown over many plans (GPU copies of blocks), then
//!   repacked after an unload: every texture still shows its own decoded texels. On wgpu's
//!   GL backend, which cannot copy compressed texels, no copy is planned at all.
//! - A game-like set in RGBA8 and in BC7: the bytes the device holds against the texel bytes.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use layerbatch::{decode_rgba8, Batcher, Config, Filter, Format, FormatFamily, Quad, TextureDesc, TextureId};
use layerbatch_testkit::asset_sets::game_like;
use layerbatch_testkit::compressed::{encode, encode_chain, picture};
use layerbatch_testkit::headless::{self, compare, DeviceKind, Headless};

const SIZE: [u32; 2] = [256, 256];
const FORMATS: [Format; 11] = [
    Format::Bc1RgbaUnorm,
    Format::Bc3RgbaUnorm,
    Format::Bc4RUnorm,
    Format::Bc5RgUnorm,
    Format::Bc7RgbaUnorm,
    Format::Etc2Rgb8Unorm,
    Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
    Format::Bc1RgbaUnormSrgb,
    Format::Bc7RgbaUnormSrgb,
    Format::Etc2Rgb8UnormSrgb,
    Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: true },
];

fn open(kind: DeviceKind, test: &str) -> Option<(Headless, Batcher)> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let limits = dev.limits();
    eprintln!("{kind:?} ({}): format families {}", dev.adapter(), limits.format_families);
    let families = limits.format_families;
    match kind {
        DeviceKind::Gl | DeviceKind::WgpuVulkan | DeviceKind::WgpuVulkanCompute => {
            assert!(families.contains(FormatFamily::Bc), "{kind:?}: no BC")
        }
        DeviceKind::Gles => assert!(families.contains(FormatFamily::Etc2), "{kind:?}: no ETC2"),
        DeviceKind::WgpuGl => {}
    }
    let batcher = Batcher::new(limits, Config::default()).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    Some((dev, batcher))
}

/// Draws `quads` in one frame and reads the target back.
fn draw(dev: &mut Headless, batcher: &mut Batcher, quads: &[Quad]) -> Vec<u8> {
    batcher.begin_frame();
    for q in quads {
        batcher.push(q).unwrap();
    }
    dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{e}"));
    dev.read()
}

/// The rows `y0..y1` of a 256-wide readback.
fn rows(px: &[u8], y0: u32, y1: u32) -> &[u8] {
    &px[(y0 * SIZE[0] * 4) as usize..(y1 * SIZE[0] * 4) as usize]
}

/// The quads of the comparison scene for a page texture (30x22) and a class texture (64x64).
fn scene(page: TextureId, class: TextureId) -> [Quad; 4] {
    [
        Quad::rect(page, [4.0, 4.0], [30.0, 22.0]),
        Quad::rotated(page, [110.0, 40.0], [75.0, 55.0], 0.4),
        Quad::rect(class, [4.0, 60.0], [64.0, 64.0]),
        Quad::rotated(class, [180.0, 130.0], [108.8, 108.8], -0.3),
    ]
}

#[test]
fn compressed_formats_draw_as_their_cpu_decode() {
    const TEST: &str = "compressed_formats_draw_as_their_cpu_decode";
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        let families = batcher.budget().format_families;
        let mut drawn = Vec::new();
        let mut failures = 0;
        for format in FORMATS.into_iter().filter(|f| families.contains(f.family())) {
            let alpha = matches!(
                format,
                Format::Bc3RgbaUnorm
                    | Format::Bc7RgbaUnorm
                    | Format::Bc7RgbaUnormSrgb
                    | Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false }
            );
            for filter in [Filter::Nearest, Filter::Linear] {
                let what = format!("{kind:?} {format} {filter:?}");
                let seed = Format::ALL.iter().position(|f| *f == format).expect("a format") as u32;
                // A page texture, and a class texture with four authored levels.
                let page_px = picture(30, 22, seed, alpha);
                let page_blocks = encode(format, &page_px, 30, 22).unwrap();
                let page_desc = TextureDesc::new(30, 22).with_format(format).with_filter(filter);
                let class_px = picture(64, 64, seed + 1, alpha);
                let chain = encode_chain(format, &class_px, 64, 64, 4).unwrap();
                let class_desc = TextureDesc::new(64, 64).with_format(format).with_filter(filter).with_mip_levels(4);
                let page = batcher.textures().register(&page_desc, &page_blocks).unwrap();
                let class = batcher.textures().register(&class_desc, &chain).unwrap();
                assert!(!batcher.placement(page).unwrap().dedicated);
                // The reference: the CPU decode of the same blocks, as RGBA8.
                let plain = if format.is_srgb() { Format::Rgba8UnormSrgb } else { Format::Rgba8Unorm };
                let rgba = |d: &TextureDesc| d.with_format(plain);
                let page_ref = decode_rgba8(format, 30, 22, &page_blocks).unwrap();
                let level0 = format.image_bytes(64, 64) as usize;
                let class_ref = decode_rgba8(format, 64, 64, &chain[..level0]).unwrap();
                let page_r = batcher.textures().register(&rgba(&page_desc), &page_ref).unwrap();
                let class_r = batcher.textures().register(&rgba(&class_desc.with_mip_levels(1)), &class_ref).unwrap();
                // Level 2 of the authored chain, 16x16, as the minified quad must show it.
                let level1 = format.image_bytes(32, 32) as usize;
                let level2 = &chain[level0 + level1..level0 + level1 + format.image_bytes(16, 16) as usize];
                // Drawn over the opaque black clear: premultiplied colour as is, alpha 1.
                let level2: Vec<u8> = decode_rgba8(format, 16, 16, level2)
                    .unwrap()
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect();

                let mut quads = scene(page, class).to_vec();
                quads.push(Quad::rect(class, [4.0, 220.0], [16.0, 16.0]));
                let got = draw(&mut dev, &mut batcher, &quads);
                let want = draw(&mut dev, &mut batcher, &scene(page_r, class_r));
                // BC1-BC5 interpolate their palettes: core's decoder exactly as the spec's
                // formulas say ((2c0 + c1) / 3, (6a0 + a1) / 7), llvmpipe by an approximation
                // (`c0 + ((c1 - c0) * 85 >> 8)`, rounded down), up to 2 apart
                // (`tests/decode_conformance.rs`); BC7, ETC2 and ASTC are bit-exact. So nearest
                // is exact for those, within 2 for BC1-BC5; and sRGB adds 1 (llvmpipe
                // linearises compressed sRGB texels at another precision than RGBA8 ones).
                let inexact = matches!(
                    format,
                    Format::Bc1RgbaUnorm
                        | Format::Bc1RgbaUnormSrgb
                        | Format::Bc3RgbaUnorm
                        | Format::Bc4RUnorm
                        | Format::Bc5RgUnorm
                );
                let tol = match filter {
                    Filter::Nearest => 2 * u8::from(inexact) + u8::from(format.is_srgb()),
                    // A palette's 2 (above) on the sRGB curve, filtered: 3.
                    Filter::Linear => 2 + u8::from(inexact && format.is_srgb()),
                };
                let (differing, worst) =
                    compare(rows(&got, 0, 210), rows(&want, 0, 210), SIZE[0], tol, &what, "decode");
                eprintln!("{what}: {differing} pixels over {tol} (worst {worst})");
                failures += usize::from(differing > 0);
                // The minified quad: level 2, texel for pixel.
                let mut minified = Vec::new();
                for y in 220..236 {
                    let at = ((y * SIZE[0] + 4) * 4) as usize;
                    minified.extend_from_slice(&got[at..at + 16 * 4]);
                }
                // (sRGB levels are decoded to linear light by the sampler: their bytes are
                // checked by the comparison above.)
                if !format.is_srgb() {
                    let (differing, worst) = compare(&minified, &level2, 16, tol, &what, "authored level 2");
                    eprintln!("{what}: level 2: {differing} pixels over {tol} (worst {worst})");
                    failures += usize::from(differing > 0);
                }
                for id in [page, class, page_r, class_r] {
                    batcher.textures().free(id).unwrap();
                }
            }
            drawn.push(format.name());
        }
        eprintln!("{kind:?}: drew {drawn:?}");
        assert_eq!(failures, 0, "{kind:?}: comparisons failed (above)");
        assert!(!drawn.is_empty() || kind == DeviceKind::WgpuGl, "{kind:?}: no compressed format drawn");
    }
}

#[test]
fn no_foreign_texel_in_a_compressed_page() {
    const TEST: &str = "no_foreign_texel_in_a_compressed_page";
    const MID: [u8; 4] = [0, 255, 0, 255];
    const NEIGHBOURS: [[u8; 4]; 8] = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [255, 0, 255, 255],
        [255, 255, 255, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 128, 0, 255],
        [128, 0, 255, 255],
    ];
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        let families = batcher.budget().format_families;
        let formats = [
            Format::Bc1RgbaUnorm,
            Format::Bc7RgbaUnorm,
            Format::Etc2Rgb8Unorm,
            Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
        ];
        for format in formats.into_iter().filter(|f| families.contains(f.family())) {
            for filter in [Filter::Linear, Filter::Nearest] {
                let what = format!("{kind:?} {format} {filter:?}");
                let mut neighbours = NEIGHBOURS.iter();
                let mut ids = Vec::new();
                let mut mid = None;
                for (row, h) in [7u32, 9, 12].into_iter().enumerate() {
                    for (col, w) in [13u32, 11, 17].into_iter().enumerate() {
                        let c = if (row, col) == (1, 1) { MID } else { *neighbours.next().unwrap() };
                        let blocks = encode(format, &c.repeat((w * h) as usize), w, h).unwrap();
                        let d = TextureDesc::new(w, h).with_format(format).with_filter(filter);
                        let id = batcher.textures().register(&d, &blocks).unwrap();
                        if (row, col) == (1, 1) {
                            mid = Some(id);
                        }
                        ids.push(id);
                    }
                }
                let mid = mid.unwrap();
                let arrays: Vec<_> = ids.iter().map(|&id| batcher.placement(id).unwrap().array).collect();
                assert!(arrays.iter().all(|&a| a == arrays[0]), "{what}: one page");
                let outside = [-0.5, -0.5, 1.5, 1.5];
                let quads = [
                    Quad::rect(mid, [4.0, 4.0], [44.0, 36.0]),  // magnified 4x
                    Quad::rect(mid, [60.3, 4.6], [2.75, 2.25]), // minified to 1/4
                    Quad::rotated(mid, [120.0, 30.0], [33.0, 27.0], 0.52),
                    Quad { uv: outside, ..Quad::rect(mid, [4.0, 60.0], [88.0, 72.0]) },
                    Quad { uv: outside, ..Quad::rotated(mid, [170.0, 140.0], [50.6, 41.4], -0.8) },
                    Quad::rect(mid, [20.37, 150.71], [58.3, 47.7]), // fractional
                ];
                let px = draw(&mut dev, &mut batcher, &quads);
                for (i, p) in px.chunks_exact(4).enumerate() {
                    let (x, y) = (i as u32 % SIZE[0], i as u32 / SIZE[0]);
                    assert!(p[0] <= 4 && p[2] <= 4, "{what}: a foreign texel at ({x}, {y}): {p:?}");
                }
                let centre = ((24 * SIZE[0] + 24) * 4) as usize;
                let g = &px[centre..centre + 4];
                assert!(g[1] >= 250, "{what}: the magnified texture is green: {g:?}");
                for id in ids {
                    batcher.textures().free(id).unwrap();
                }
            }
        }
    }
}

#[test]
fn rgba8_bc7_and_bc1_in_one_draw_keep_painters_order() {
    const TEST: &str = "rgba8_bc7_and_bc1_in_one_draw_keep_painters_order";
    let colours = [[220u8, 0, 0, 255], [0, 200, 0, 255], [0, 0, 230, 255]];
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        if !batcher.budget().format_families.contains(FormatFamily::Bc) {
            eprintln!("{kind:?}: no BC, nothing to interleave");
            continue;
        }
        let formats = [Format::Rgba8Unorm, Format::Bc7RgbaUnorm, Format::Bc1RgbaUnorm];
        let ids: Vec<TextureId> = formats
            .iter()
            .zip(colours)
            .map(|(&f, c)| {
                let px = c.repeat(24 * 24);
                let data = if f.is_compressed() { encode(f, &px, 24, 24).unwrap() } else { px };
                batcher.textures().register(&TextureDesc::new(24, 24).with_format(f), &data).unwrap()
            })
            .collect();
        batcher.begin_frame();
        for i in 0..30 {
            batcher.push(&Quad::rect(ids[i % 3], [4.0 + i as f32 * 7.0, 4.0 + i as f32 * 7.0], [24.0, 24.0])).unwrap();
        }
        let plan = batcher.finish();
        assert_eq!((plan.segments.len(), plan.segments[0].tier), (1, 4), "{kind:?}: one draw, three arrays");
        dev.draw(plan).unwrap();
        assert_eq!(dev.stats().device_frame.draw_calls, 1, "{kind:?}");
        let px = dev.read();
        for i in 0..30u32 {
            // The top-left corner of quad i: no later quad reaches it.
            let (x, y) = (4 + i * 7 + 2, 4 + i * 7 + 2);
            let at = ((y * SIZE[0] + x) * 4) as usize;
            let got = &px[at..at + 4];
            let want = colours[i as usize % 3];
            let near = got.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 8);
            assert!(near, "{kind:?}: quad {i} at ({x}, {y}) shows {got:?}, not {want:?}");
        }
    }
}

#[test]
fn a_game_set_in_bc7_and_astc_on_the_devices() {
    const TEST: &str = "a_game_set_in_bc7_and_astc_on_the_devices";
    let astc = |block| Format::Astc { block, srgb: false };
    let formats = [
        Format::Rgba8Unorm,
        Format::Bc7RgbaUnorm,
        astc(layerbatch::AstcBlock::B4x4),
        astc(layerbatch::AstcBlock::B6x6),
        astc(layerbatch::AstcBlock::B8x8),
    ];
    for kind in [DeviceKind::Gl, DeviceKind::WgpuVulkan, DeviceKind::WgpuGl] {
        let mut figures = Vec::new();
        for format in formats {
            let Some((mut dev, mut batcher)) = open(kind, TEST) else { break };
            if !batcher.budget().format_families.contains(format.family()) {
                continue;
            }
            let mut texels = 0u64;
            for a in game_like() {
                let d = a.desc.with_format(format);
                batcher.textures().register(&d, &vec![0; d.byte_len()]).unwrap();
                texels += format.image_bytes(d.width_px, d.height_px);
            }
            batcher.begin_frame();
            dev.draw(batcher.finish()).unwrap();
            let held = dev.stats().device_total.bytes_held;
            assert_eq!(held, batcher.allocator().allocated_bytes(), "{kind:?} {format}");
            eprintln!(
                "{kind:?}: {format}: {texels} texel bytes (whole blocks), the device holds {held} ({:.3}x)",
                held as f64 / texels as f64
            );
            figures.push((format, held));
        }
        let Some(&(_, rgba)) = figures.first() else { continue };
        for &(format, held) in &figures[1..] {
            let ratio = held as f64 / rgba as f64;
            eprintln!("{kind:?}: {format} holds {ratio:.3} of RGBA8's bytes");
            // BC7 and ASTC 4x4 are 8 bits a texel, 6x6 3.56, 8x8 2 (against 32).
            let most = match format.block_size_px() {
                [4, 4] => 0.3,
                [6, 6] => 0.2,
                _ => 0.1,
            };
            assert!(ratio <= most, "{kind:?} {format}: {ratio:.3} of RGBA8's bytes");
        }
    }
}

#[test]
fn compressed_arrays_grow_shrink_and_repack_on_the_device() {
    const TEST: &str = "compressed_arrays_grow_shrink_and_repack_on_the_device";
    for kind in DeviceKind::ALL {
        let Some((mut dev, mut batcher)) = open(kind, TEST) else { continue };
        if !batcher.budget().format_families.contains(FormatFamily::Bc) {
            continue;
        }
        // BC7 page textures (40x40) and BC1 class textures (32x32, two authored levels),
        // registered a few per plan, each plan run: the page and the class array grow by GPU
        // copies of blocks.
        let mut live: Vec<(TextureId, Format, Vec<u8>, u32)> = Vec::new();
        for round in 0..8u32 {
            for i in 0..3 {
                let seed = round * 10 + i;
                let px = picture(40, 40, seed, false);
                let blocks = encode(Format::Bc7RgbaUnorm, &px, 40, 40).unwrap();
                let d = TextureDesc::new(40, 40).with_format(Format::Bc7RgbaUnorm).with_filter(Filter::Nearest);
                let id = batcher.textures().register(&d, &blocks).unwrap();
                live.push((id, Format::Bc7RgbaUnorm, decode_rgba8(d.format, 40, 40, &blocks).unwrap(), 40));
            }
            if round % 2 == 0 {
                let px = picture(32, 32, 100 + round, false);
                let chain = encode_chain(Format::Bc1RgbaUnorm, &px, 32, 32, 2).unwrap();
                let d = TextureDesc::new(32, 32).with_format(Format::Bc1RgbaUnorm).with_filter(Filter::Nearest);
                let id = batcher.textures().register(&d.with_mip_levels(2), &chain).unwrap();
                let level0 = Format::Bc1RgbaUnorm.image_bytes(32, 32) as usize;
                live.push((id, Format::Bc1RgbaUnorm, decode_rgba8(d.format, 32, 32, &chain[..level0]).unwrap(), 32));
            }
            batcher.begin_frame();
            dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{kind:?}: plan {round}: {e}"));
        }
        let grown = dev.stats().device_total.layers_copied;
        // Unload two thirds of the page textures: the page array is repacked (rectangle copies
        // of blocks) and gives memory back.
        let mut kept = Vec::new();
        for (n, t) in live.into_iter().enumerate() {
            if t.1 == Format::Bc7RgbaUnorm && n % 3 != 0 {
                batcher.textures().free(t.0).unwrap();
            } else {
                kept.push(t);
            }
        }
        for _ in 0..40 {
            batcher.begin_frame();
            dev.draw(batcher.finish()).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        }
        let total = dev.stats();
        eprintln!(
            "{kind:?}: {} layers copied growing, {} after the unload; {} rectangle copies, {} shrinks",
            grown,
            total.device_total.layers_copied - grown,
            total.core_total.rect_copies,
            total.core_total.array_shrinks
        );
        if batcher.budget().compressed_copies {
            assert!(total.core_total.array_growths > 0 && grown > 0, "{kind:?}: arrays grew on the device");
            assert!(total.core_total.rect_copies + total.core_total.array_shrinks > 0, "{kind:?}: memory came back");
        } else {
            // wgpu's GL backend cannot copy compressed texels: full arrays are joined by new
            // ones instead.
            assert_eq!(total.device_total.layers_copied, 0, "{kind:?}: no compressed copy");
            assert!(batcher.allocator().array_count() > 2, "{kind:?}: more arrays instead");
        }
        // Every live texture, at scale 1 on whole pixels: its own decoded texels.
        let quads: Vec<Quad> = kept
            .iter()
            .enumerate()
            .map(|(i, (id, _, _, s))| Quad::rect(*id, [(i % 6 * 42) as f32, (i / 6 * 42) as f32], [*s as f32; 2]))
            .collect();
        let px = draw(&mut dev, &mut batcher, &quads);
        for (i, (_, format, want, s)) in kept.iter().enumerate() {
            let (x0, y0) = ((i % 6 * 42) as u32, (i / 6 * 42) as u32);
            let mut got = Vec::new();
            for y in y0..y0 + s {
                let at = ((y * SIZE[0] + x0) * 4) as usize;
                got.extend_from_slice(&px[at..at + (*s * 4) as usize]);
            }
            // Over the opaque black clear: the colour as decoded, alpha 1 (BC7's encoder may
            // store 251 for an opaque texel).
            let want: Vec<u8> = want.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2], 255]).collect();
            // BC1's palette: llvmpipe's approximation against the spec's formulas.
            let tol = 2 * u8::from(*format == Format::Bc1RgbaUnorm);
            let (differing, worst) = compare(&got, &want, *s, tol, &format!("{kind:?} {format} #{i}"), "decode");
            assert_eq!(differing, 0, "{kind:?}: texture {i} ({format}) after the copies: worst {worst}");
        }
    }
}
