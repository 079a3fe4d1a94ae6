//! Moving layers on real devices (GL 3.3, GLES 3.0, wgpu on Vulkan, wgpu on GL): a sprite's
//! motion, pulled by the vertex shader from the layer's motion texture, draws the pixels of the
//! same quad pushed under the motion's transform, exactly (tolerance 0), whether the layer is
//! written whole, moved in part, or drawn indexed in blocks; a frame of moving sprites writes
//! 16 bytes a sprite and none of the static half; so it does under a sort key and a clip among
//! pushed quads, and across several plans of one host frame (a move after a plan of the frame
//! drew the layer shows in the next frame); motions written in place that are NaN or infinite
//! draw nothing, counted once, and nothing else changes. And rotated, scaled sprites over 256 layers
//! of one array whose neighbours differ show, inside each, only its own layer's colour: the
//! layer reaches the fragment stage whole (flat), never interpolated (the bug class of Phaser
//! #7372 and Defold #11039). And a moving layer drawn under each built-in effect, lit by
//! point lights, with a colour offset (the drawing state's look, which a resident layer's draw
//! takes) draws the pixels of its sprites pushed under the same look, with nothing rewritten.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

use headless::{DeviceKind, Headless};
use layerbatch::{Batcher, Config, Effect, FramePlan, PointLight, Quad, QuadVertices, ResidentStyle};
use layerbatch_testkit::moving::{
    centred, check_flat_layers, drawn, drawn_under, flat_layers, flat_layers_config, keyed_frame, keyed_reference,
    keyed_scene, motions, pushed, pushed_under, Rng, FLAT_SIZE,
};
use layerbatch_testkit::{headless, scene};
use scene::{Scene, SceneOptions};

const SIZE: [u32; 2] = [192, 160];

fn read(dev: &mut Headless, plan: &FramePlan, what: &str) -> Vec<u8> {
    dev.draw(plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    dev.read()
}

fn same(a: &[u8], b: &[u8], what: &str) {
    let (differing, worst) = headless::compare(a, b, SIZE[0], 0, "pushed", "moving");
    assert_eq!(differing, 0, "{what}: {differing} pixels differ (worst {worst})");
    let lit = a.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    assert!(lit > a.len() / 4 / 8, "{what}: only {lit} pixels drawn");
}

fn moving_matches_pushed(kind: DeviceKind, vertices: QuadVertices, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    // A small instance capacity with indexed quads: the layer is drawn in several blocks.
    let config = Config::default().with_quad_vertices(vertices).with_instance_capacity(128);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 400, textures: 40, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut b, opts).expect("textures fit");
    scene.step(0.37);
    let mut all = Vec::new();
    scene.quads(&mut all);
    let after = all.split_off(380);
    let before: Vec<Quad> = all.drain(..20).collect();
    // Each sprite centred on its pivot.
    let sprites = centred(&all);
    let n = sprites.len();
    let layer = b.textures().create_moving(&sprites).expect("a moving layer");
    let mut rng = Rng(0x6d6f76696e67);
    let mut now = motions(&mut rng, n, SIZE);
    b.textures().move_sprites(layer, 0, &now).unwrap();
    let what = |step: &str| format!("{test}: {kind:?} {vertices:?}: {step}");
    let around = (&before[..], &after[..]);

    let moving = read(&mut dev, &drawn(&mut b, layer, around), &what("first frame"));
    let reference = read(&mut dev, &pushed(&mut b, &sprites, &now, around), &what("pushed"));
    same(&reference, &moving, &what("first frame"));

    // Every sprite moves: 16 bytes each, none of the static half.
    for frame in 0..2 {
        now = motions(&mut rng, n, SIZE);
        b.textures().move_sprites(layer, 0, &now).unwrap();
        let moving = read(&mut dev, &drawn(&mut b, layer, around), &what("moved"));
        let c = dev.stats().device_frame;
        assert_eq!(c.motion_bytes_written, n as u64 * 16, "{}", what("bytes a moving sprite"));
        assert_eq!(c.resident_bytes_written, 0, "{}", what("the static half"));
        let reference = read(&mut dev, &pushed(&mut b, &sprites, &now, around), &what("pushed"));
        same(&reference, &moving, &what(&format!("moved, frame {frame}")));
    }
    // A few move; then none.
    let few = motions(&mut rng, 7, SIZE);
    b.textures().move_sprites(layer, 100, &few).unwrap();
    now[100..107].copy_from_slice(&few);
    let moving = read(&mut dev, &drawn(&mut b, layer, around), &what("a few moved"));
    assert_eq!(dev.stats().device_frame.motion_bytes_written, 7 * 16);
    let reference = read(&mut dev, &pushed(&mut b, &sprites, &now, around), &what("pushed"));
    same(&reference, &moving, &what("a few moved"));
    let still = read(&mut dev, &drawn(&mut b, layer, around), &what("none moved"));
    let c = dev.stats().device_frame;
    assert_eq!((c.motion_bytes_written, c.resident_bytes_written), (0, 0), "{}", what("none moved"));
    same(&reference, &still, &what("none moved"));
    // Motions written in place, three not finite: those sprites draw as nothing, each counted
    // once (by core when it plans, or by the copy where the renderer stages motion writes,
    // wgpu); the others draw as before. Moved again, all show.
    let bad = [3, n / 2, n - 1];
    let m = b.textures().motions_mut(layer, 0..n as u32).unwrap();
    m[bad[0]].position[0] = f32::NAN;
    m[bad[1]].rotation_scale[1] = f32::INFINITY;
    m[bad[2]].position[1] = f32::NEG_INFINITY;
    let moving = read(&mut dev, &drawn(&mut b, layer, around), &what("not finite"));
    let counted = (b.plan().counters.motions_rejected, dev.stats().device_frame.motions_rejected);
    let staged = dev.limits().staged_motion_writes;
    assert_eq!(counted, if staged { (0, 3) } else { (3, 0) }, "{}", what("not finite, counted"));
    let (shown, shown_at): (Vec<Quad>, Vec<_>) =
        (0..n).filter(|i| !bad.contains(i)).map(|i| (sprites[i], now[i])).unzip();
    let reference = read(&mut dev, &pushed(&mut b, &shown, &shown_at, around), &what("pushed"));
    same(&reference, &moving, &what("not finite"));
    b.textures().move_sprites(layer, 0, &now).unwrap();
    let moving = read(&mut dev, &drawn(&mut b, layer, around), &what("moved back"));
    let reference = read(&mut dev, &pushed(&mut b, &sprites, &now, around), &what("pushed"));
    same(&reference, &moving, &what("moved back"));
    // Part of the layer (a draw that starts inside a block): the same sprites pushed.
    let part = 50..300;
    b.begin_frame();
    b.draw_resident_range(layer, part.start as u32..part.end as u32, &ResidentStyle::default()).unwrap();
    let range = read(&mut dev, &b.finish().clone(), &what("a range"));
    let reference = read(&mut dev, &pushed(&mut b, &sprites[part.clone()], &now[part], (&[], &[])), &what("pushed"));
    same(&reference, &range, &what("a range"));
}

#[test]
fn gl33_moving_matches_pushed() {
    moving_matches_pushed(DeviceKind::Gl, QuadVertices::Instanced, "gl33_moving_matches_pushed");
    moving_matches_pushed(DeviceKind::Gl, QuadVertices::Indexed, "gl33_moving_matches_pushed");
}

#[test]
fn gles30_moving_matches_pushed() {
    moving_matches_pushed(DeviceKind::Gles, QuadVertices::Instanced, "gles30_moving_matches_pushed");
    moving_matches_pushed(DeviceKind::Gles, QuadVertices::Indexed, "gles30_moving_matches_pushed");
}

#[test]
fn wgpu_vulkan_moving_matches_pushed() {
    moving_matches_pushed(DeviceKind::WgpuVulkan, QuadVertices::Instanced, "wgpu_vulkan_moving_matches_pushed");
    moving_matches_pushed(DeviceKind::WgpuVulkan, QuadVertices::Indexed, "wgpu_vulkan_moving_matches_pushed");
}

#[test]
fn wgpu_gl_moving_matches_pushed() {
    moving_matches_pushed(DeviceKind::WgpuGl, QuadVertices::Instanced, "wgpu_gl_moving_matches_pushed");
    moving_matches_pushed(DeviceKind::WgpuGl, QuadVertices::Indexed, "wgpu_gl_moving_matches_pushed");
}

/// A moving layer drawn under a sort key and a clip among pushed quads, and in several plans
/// of one host frame: the pixels of the same frame pushed in key order with the sprites under
/// their motions' transforms; a move made after a plan of the host frame drew the layer shows
/// in the next host frame, not in a later plan of this one.
fn moving_among_keys_clips_and_plans(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let mut b = Batcher::new(dev.limits(), Config::default()).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let scene = keyed_scene(&mut b, SIZE).expect("textures fit");
    let layer = b.textures().create_moving(&scene.sprites).expect("a moving layer");
    let mut rng = Rng(0x6b657973);
    let first = motions(&mut rng, scene.sprites.len(), SIZE);
    b.textures().move_sprites(layer, 0, &first).unwrap();
    let what = |step: &str| format!("{test}: {kind:?}: {step}");
    let moving = read(&mut dev, &keyed_frame(&mut b, layer, &scene), &what("keyed"));
    let want = read(&mut dev, &keyed_reference(&mut b, &scene, &first), &what("reference"));
    same(&want, &moving, &what("sort keys and a clip"));

    // Several plans a host frame: the second plan of it does not show a move made after the
    // first drew the layer; the next host frame does.
    b.end_frame();
    read(&mut dev, &keyed_frame(&mut b, layer, &scene), &what("plan 1 of the frame"));
    let second = motions(&mut rng, scene.sprites.len(), SIZE);
    b.textures().move_sprites(layer, 0, &second).unwrap();
    let held = read(&mut dev, &keyed_frame(&mut b, layer, &scene), &what("plan 2 of the frame"));
    assert_eq!(dev.stats().device_frame.motion_bytes_written, 0, "{}", what("the move waits"));
    same(&want, &held, &what("plan 2 of the frame shows the frame's motions"));
    b.end_frame();
    let next = read(&mut dev, &keyed_frame(&mut b, layer, &scene), &what("the next frame"));
    assert_eq!(dev.stats().device_frame.motion_bytes_written, scene.sprites.len() as u64 * 16);
    let want = read(&mut dev, &keyed_reference(&mut b, &scene, &second), &what("reference"));
    same(&want, &next, &what("the next frame shows the move"));
}

#[test]
fn gl33_moving_among_keys_clips_and_plans() {
    moving_among_keys_clips_and_plans(DeviceKind::Gl, "gl33_moving_among_keys_clips_and_plans");
}

#[test]
fn gles30_moving_among_keys_clips_and_plans() {
    moving_among_keys_clips_and_plans(DeviceKind::Gles, "gles30_moving_among_keys_clips_and_plans");
}

#[test]
fn wgpu_vulkan_moving_among_keys_clips_and_plans() {
    moving_among_keys_clips_and_plans(DeviceKind::WgpuVulkan, "wgpu_vulkan_moving_among_keys_clips_and_plans");
}

#[test]
fn wgpu_gl_moving_among_keys_clips_and_plans() {
    moving_among_keys_clips_and_plans(DeviceKind::WgpuGl, "wgpu_gl_moving_among_keys_clips_and_plans");
}

/// 256 textures of one size, one array of 256 layers, drawn as rotated, scaled moving sprites
/// and as pushed quads, instanced and indexed: inside each sprite (inset one pixel from its
/// edges), only its colour.
fn layers_reach_the_fragment_stage_whole(kind: DeviceKind, test: &str) {
    for vertices in [QuadVertices::Instanced, QuadVertices::Indexed] {
        let Some(mut dev) = headless::open_for_test(kind, FLAT_SIZE, test) else { return };
        let mut b = Batcher::new(dev.limits(), flat_layers_config(vertices)).expect("budget");
        dev.init(b.budget()).expect("renderer");
        let (sprites, motions) = flat_layers(&mut b).unwrap_or_else(|e| panic!("{test}: {e}"));
        let layer = b.textures().create_moving(&sprites).expect("a moving layer");
        b.textures().move_sprites(layer, 0, &motions).unwrap();
        let moving = read(&mut dev, &drawn(&mut b, layer, (&[], &[])), test);
        assert_eq!(dev.stats().device_frame.draw_calls, 1, "{test}: one draw over 256 layers");
        let pushed = read(&mut dev, &pushed(&mut b, &sprites, &motions, (&[], &[])), test);
        for (path, px) in [("moving", &moving), ("pushed", &pushed)] {
            if let Err(e) = check_flat_layers(px, &motions) {
                panic!("{test}: {kind:?} {vertices:?} {path}: {e}");
            }
        }
    }
}

#[test]
fn gl33_layers_reach_the_fragment_stage_whole() {
    layers_reach_the_fragment_stage_whole(DeviceKind::Gl, "gl33_layers_reach_the_fragment_stage_whole");
}

#[test]
fn gles30_layers_reach_the_fragment_stage_whole() {
    layers_reach_the_fragment_stage_whole(DeviceKind::Gles, "gles30_layers_reach_the_fragment_stage_whole");
}

#[test]
fn wgpu_vulkan_layers_reach_the_fragment_stage_whole() {
    layers_reach_the_fragment_stage_whole(DeviceKind::WgpuVulkan, "wgpu_vulkan_layers_reach_the_fragment_stage_whole");
}

#[test]
fn wgpu_gl_layers_reach_the_fragment_stage_whole() {
    layers_reach_the_fragment_stage_whole(DeviceKind::WgpuGl, "wgpu_gl_layers_reach_the_fragment_stage_whole");
}

/// The moving layer drawn under each built-in effect with its parameters, lit by two point
/// lights under a dim ambient, with a colour offset: the pixels of the sprites pushed under the
/// same drawing state, exactly; the draw writes nothing of the layer.
fn moving_under_effects_and_lights(kind: DeviceKind, test: &str) {
    let Some(mut dev) = headless::open_for_test(kind, SIZE, test) else { return };
    let config = Config::default().with_effects(&Effect::BUILT_IN).with_lights(2);
    let mut b = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(b.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 300, textures: 24, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut b, opts).expect("textures fit");
    let mut all = Vec::new();
    scene.step(0.2);
    scene.quads(&mut all);
    let around = all.split_off(280);
    let sprites = centred(&all);
    let layer = b.textures().create_moving(&sprites).expect("a moving layer");
    let now = motions(&mut Rng(0x6c6f6f6b), sprites.len(), SIZE);
    b.textures().move_sprites(layer, 0, &now).unwrap();
    b.set_time_s(1.25);
    for k in 1..=Effect::BUILT_IN.len() {
        let effect = b.budget().effect_at(k).expect("a declared effect");
        let look = move |b: &mut Batcher| {
            b.state().set_effect(effect, [0.8, 0.3, 0.6, 1.0]);
            b.state().set_lit(true);
            b.state().set_color_offset([12, 0, 40]);
            b.set_ambient([0.25, 0.2, 0.3]).expect("an ambient");
            b.add_light(PointLight::new([40.0, 50.0], 120.0, [1.0, 0.8, 0.5])).expect("a light");
            b.add_light(PointLight::new([150.0, 110.0], 90.0, [0.3, 0.5, 1.0])).expect("a light");
        };
        let what = format!("{test}: {kind:?}: effect {k} ({:?}), lit", Effect::BUILT_IN[k - 1].name);
        let moving = read(&mut dev, &drawn_under(&mut b, layer, (&[], &around), &look), &what);
        let c = dev.stats().device_frame;
        assert_eq!(c.draw_calls, 2, "{what}: the layer and the quads after it");
        if k > 1 {
            assert_eq!((c.resident_bytes_written, c.motion_bytes_written), (0, 0), "{what}: nothing rewritten");
        }
        let reference = read(&mut dev, &pushed_under(&mut b, &sprites, &now, (&[], &around), &look), &what);
        same(&reference, &moving, &what);
        let plain = read(&mut dev, &drawn(&mut b, layer, (&[], &around)), &what);
        let (differing, _) = headless::compare(&plain, &moving, SIZE[0], 0, "plain", "under the look");
        assert!(differing > 1000, "{what}: the look changes the picture ({differing} pixels)");
    }
}

#[test]
fn gl33_moving_under_effects_and_lights() {
    moving_under_effects_and_lights(DeviceKind::Gl, "gl33_moving_under_effects_and_lights");
}

#[test]
fn gles30_moving_under_effects_and_lights() {
    moving_under_effects_and_lights(DeviceKind::Gles, "gles30_moving_under_effects_and_lights");
}

#[test]
fn wgpu_vulkan_moving_under_effects_and_lights() {
    moving_under_effects_and_lights(DeviceKind::WgpuVulkan, "wgpu_vulkan_moving_under_effects_and_lights");
}

#[test]
fn wgpu_gl_moving_under_effects_and_lights() {
    moving_under_effects_and_lights(DeviceKind::WgpuGl, "wgpu_gl_moving_under_effects_and_lights");
}
