//! Cross-backend parity: the same scene (more than 16 textures, mixed sizes, translucency,
//! rotation) drawn by layerbatch-gl (GL 3.3 core on llvmpipe) and by layerbatch-wgpu (Vulkan on
//! lavapipe) reads back to the same pixels, within 2 per channel, with the same core counters.
//!
//! Under `CI=true` a device that cannot be had fails the test; outside CI it prints `skipped:`.

#[allow(unsafe_code)]
#[path = "../examples/support/headless.rs"]
mod headless;
#[path = "../examples/support/scene.rs"]
mod scene;

use headless::DeviceKind;
use layerbatch::{Batcher, Config, Counters};
use scene::{Scene, SceneOptions};

/// Most a channel may differ between the two backends.
const TOLERANCE: u8 = 2;
const SIZE: [u32; 2] = [320, 240];

struct Run {
    pixels: Vec<u8>,
    counters: Vec<Counters>,
    adapter: String,
}

fn render(kind: DeviceKind, config: Config, test: &str) -> Option<Run> {
    let mut dev = headless::open_for_test(kind, SIZE, test)?;
    let mut batcher = Batcher::new(dev.limits(), config).expect("budget");
    dev.init(batcher.budget()).expect("renderer");
    let opts = SceneOptions { sprites: 400, textures: 24, viewport_px: SIZE, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut batcher, opts).expect("textures fit");
    let mut counters = Vec::new();
    for _ in 0..3 {
        let plan = scene.frame(&mut batcher, 1.0 / 60.0);
        counters.push(plan.counters);
        dev.draw(plan).unwrap_or_else(|e| panic!("{test}: {kind:?}: {e}"));
    }
    Some(Run { pixels: dev.read(), counters, adapter: dev.adapter().to_string() })
}

fn compare(config: Config, test: &str) {
    let Some(gl) = render(DeviceKind::Gl, config, test) else { return };
    let Some(vk) = render(DeviceKind::WgpuVulkan, config, test) else { return };
    assert_eq!(gl.counters, vk.counters, "core counters differ between {} and {}", gl.adapter, vk.adapter);
    let mut worst = 0u8;
    let mut differing = 0usize;
    for (i, (a, b)) in gl.pixels.chunks_exact(4).zip(vk.pixels.chunks_exact(4)).enumerate() {
        let d = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
        worst = worst.max(d);
        if d > TOLERANCE {
            differing += 1;
            if differing <= 5 {
                let (x, y) = (i as u32 % SIZE[0], i as u32 / SIZE[0]);
                eprintln!("({x}, {y}): {} {a:?} vs {} {b:?}", gl.adapter, vk.adapter);
            }
        }
    }
    assert_eq!(differing, 0, "{differing} pixels differ by more than {TOLERANCE} (worst {worst})");
    // The scene really drew something: not a blank frame on both sides.
    let lit = gl.pixels.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    assert!(lit > gl.pixels.len() / 4 / 4, "only {lit} pixels drawn");
    println!("{test}: {} vs {}: worst channel difference {worst}", gl.adapter, vk.adapter);
}

#[test]
fn same_pixels_and_counters_arrays_on() {
    compare(Config::default(), "same_pixels_and_counters_arrays_on");
}

#[test]
fn same_pixels_and_counters_arrays_off() {
    // The plain ladder: 24 one-texture arrays over 16 slots, many flushes, same on both.
    compare(Config::default().with_arrays_enabled(false), "same_pixels_and_counters_arrays_off");
}
