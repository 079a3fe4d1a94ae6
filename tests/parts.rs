//! Frames recorded on several threads ([`Batcher::record_parts`]) on real devices (GL 3.3,
//! GLES 3.0, wgpu on Vulkan, wgpu on GL): the plan's instances arrive as parts whose
//! boundaries fall inside instance blocks, and the device draws exactly (tolerance 0) what
//! the same quads pushed on one thread draw, instanced and indexed, under a clip, a transform
//! and an effect set before the parts, and with sort keys set inside them; the same instance
//! bytes are written.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::{Batcher, Config, Effect, FramePlan, Quad, QuadVertices, SortKey};
use layerbatch_testkit::{headless, scene};
use scene::{Scene, SceneOptions};

const SIZE: [u32; 2] = [192, 160];

fn read(dev: &mut Headless, plan: &FramePlan, what: &str) -> (Vec<u8>, u64) {
    dev.draw(plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    (dev.read(), dev.stats().device_frame.instance_bytes_written)
}

/// Sets the state the parts draw under, pushes the first `lead` quads here, then the rest:
/// on `threads` threads in parts of the given lengths, or here; with `keyed`, each part's
/// second half sorted by y (the frame is then sorted into one vector).
fn frame(b: &mut Batcher, quads: &[Quad], lead: usize, lengths: &[usize], threads: bool, keyed: bool) {
    b.begin_frame();
    b.state().set_clip(Some([10, 6, 170, 140]));
    b.state().set_transform([0.9, 0.1, -0.1, 0.9, 12.0, 4.0]);
    let greyscale = b.budget().effect_id(&Effect::GREYSCALE).expect("declared");
    b.state().set_effect(greyscale, [0.8, 0.0, 0.0, 0.0]);
    for q in &quads[..lead] {
        b.push(q).unwrap();
    }
    let mut chunks = Vec::new();
    let mut rest = &quads[lead..];
    for &n in lengths {
        let (chunk, tail) = rest.split_at(n);
        chunks.push(chunk);
        rest = tail;
    }
    let half = |chunk: &[Quad]| if keyed { chunk.len() / 2 } else { chunk.len() };
    let record = |part: &mut layerbatch::PartRecorder<'_>, chunk: &[Quad]| {
        let (plain, keyed) = chunk.split_at(half(chunk));
        part.push_all(plain).unwrap();
        for q in keyed {
            part.set_sort_key(SortKey::zy(0, q.origin[1]));
            part.push(q).unwrap();
        }
    };
    if threads {
        b.record_parts(chunks.len(), |parts| {
            std::thread::scope(|s| {
                for (part, &chunk) in parts.iter_mut().zip(&chunks) {
                    s.spawn(move || record(part, chunk));
                }
            })
        })
        .unwrap();
    } else {
        let key = b.state().sort_key();
        for chunk in &chunks {
            let (plain, sorted) = chunk.split_at(half(chunk));
            b.push_all(plain).unwrap();
            for q in sorted {
                b.state().set_sort_key(SortKey::zy(0, q.origin[1]));
                b.push(q).unwrap();
            }
            if !sorted.is_empty() {
                b.state().set_sort_key(key);
            }
        }
    }
}

fn parts_match_pushed(kind: DeviceKind, vertices: QuadVertices, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    // A small instance capacity: the parts' boundaries fall inside blocks of 100.
    let config =
        Config::default().with_quad_vertices(vertices).with_instance_capacity(100).with_effects(&Effect::BUILT_IN);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 400, textures: 40, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut b, opts).expect("textures fit");
    let mut quads = Vec::new();
    scene.quads(&mut quads);
    let what = format!("{test}: {kind:?} {vertices:?}");
    // The first frame uploads the textures.
    frame(&mut b, &quads, 7, &[150, 1, 242], false, false);
    read(&mut dev, b.finish(), &what);
    let cases = [([150, 1, 242], false), ([0, 393, 0], false), ([31, 131, 231], false), ([150, 1, 242], true)];
    for (lengths, keyed) in cases {
        // The sprites move between cases: what a block held before differs from what it
        // must hold now.
        scene.step(0.37);
        quads.clear();
        scene.quads(&mut quads);
        // Sprites a third of their size about their centres: few cover one another, so every
        // block of instances shows in the picture.
        for q in &mut quads {
            let centre = [0, 1].map(|k| q.origin[k] + (q.axis_x[k] + q.axis_y[k]) / 2.0);
            (q.axis_x, q.axis_y) = (q.axis_x.map(|v| v / 3.0), q.axis_y.map(|v| v / 3.0));
            q.origin = [0, 1].map(|k| centre[k] - (q.axis_x[k] + q.axis_y[k]) / 2.0);
        }
        frame(&mut b, &quads, 7, &lengths, true, keyed);
        let plan = b.finish();
        let parts = if keyed { 1 } else { lengths.iter().filter(|&&n| n > 0).count() + 1 };
        assert_eq!(plan.instances.part_count(), parts, "{what}: {lengths:?}");
        let (split, split_bytes) = read(&mut dev, plan, &what);
        frame(&mut b, &quads, 7, &lengths, false, keyed);
        let (pushed, pushed_bytes) = read(&mut dev, b.finish(), &what);
        let (differing, worst) = headless::compare(&pushed, &split, SIZE[0], 0, "pushed", "parts");
        assert_eq!(differing, 0, "{what}: {lengths:?}: {differing} pixels differ (worst {worst})");
        assert_eq!(split_bytes, pushed_bytes, "{what}: {lengths:?}: instance bytes");
        let lit = pushed.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
        assert!(lit > pushed.len() / 4 / 8, "{what}: only {lit} pixels drawn");
    }
}

#[test]
fn gl33_parts_match_pushed() {
    parts_match_pushed(DeviceKind::Gl, QuadVertices::Instanced, "gl33_parts_match_pushed");
    parts_match_pushed(DeviceKind::Gl, QuadVertices::Indexed, "gl33_parts_match_pushed");
}

#[test]
fn gles30_parts_match_pushed() {
    parts_match_pushed(DeviceKind::Gles, QuadVertices::Instanced, "gles30_parts_match_pushed");
    parts_match_pushed(DeviceKind::Gles, QuadVertices::Indexed, "gles30_parts_match_pushed");
}

#[test]
fn wgpu_vulkan_parts_match_pushed() {
    parts_match_pushed(DeviceKind::WgpuVulkan, QuadVertices::Instanced, "wgpu_vulkan_parts_match_pushed");
    parts_match_pushed(DeviceKind::WgpuVulkan, QuadVertices::Indexed, "wgpu_vulkan_parts_match_pushed");
}

#[test]
fn wgpu_gl_parts_match_pushed() {
    parts_match_pushed(DeviceKind::WgpuGl, QuadVertices::Instanced, "wgpu_gl_parts_match_pushed");
    parts_match_pushed(DeviceKind::WgpuGl, QuadVertices::Indexed, "wgpu_gl_parts_match_pushed");
}
