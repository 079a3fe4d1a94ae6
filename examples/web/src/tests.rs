//! Pixel tests in the browser, run by `scripts/web-test.sh` on each path (`gl`, `wgpu-webgl`,
//! `wgpu-webgpu`) in headless Chromium.
//!
//! A test whose context or adapter the browser does not offer is `skipped`; the driver fails
//! it under `CI=true`.

use std::future::Future;
use std::pin::Pin;

use layerbatch::plan::Instance;
use layerbatch::{
    Batcher, Config, Filter, FramePlan, Quad, QuadVertices, ResidentStyle, TextureDesc, TextureId, Usage,
};
use layerbatch_gl::glow::{self, HasContext};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::WebGl2RenderingContext as Gl2;

use crate::device::{self, Backend, Device, OpenError};
use crate::util;
use layerbatch_testkit::scene::{texture_pixels, Scene, SceneOptions, SIZES};

/// A test: its name and the paths it runs on (`"all"`: one run across every path).
pub struct Test {
    pub name: &'static str,
    pub backends: &'static [&'static str],
}

const EVERY_PATH: &[&str] = &["gl", "wgpu-webgl", "wgpu-webgpu"];

/// The tests, in the order the driver runs them.
pub const TESTS: &[Test] = &[
    Test { name: "gl_fresh_context", backends: &["gl"] },
    Test { name: "gl_host_bindings", backends: &["gl"] },
    Test { name: "gl_wrapped_context", backends: &["gl"] },
    Test { name: "one_draw_64_textures", backends: EVERY_PATH },
    Test { name: "instanced_quads", backends: EVERY_PATH },
    Test { name: "padding_poison", backends: EVERY_PATH },
    Test { name: "array_growth", backends: EVERY_PATH },
    Test { name: "resident_layer", backends: EVERY_PATH },
    Test { name: "device_error_is_err", backends: &["wgpu-webgl", "wgpu-webgpu"] },
    Test { name: "parity_gl_wgpu", backends: &["all"] },
    Test { name: "hud_one_draw", backends: EVERY_PATH },
    Test { name: "hud_glyphs", backends: EVERY_PATH },
    Test { name: "hud_parity", backends: &["all"] },
    Test { name: "compressed_families", backends: EVERY_PATH },
    Test { name: "basis_files", backends: EVERY_PATH },
    Test { name: "looks_one_draw", backends: EVERY_PATH },
    Test { name: "looks_parity", backends: &["all"] },
    Test { name: "color_offset", backends: EVERY_PATH },
    Test { name: "moving_sprites", backends: EVERY_PATH },
    Test { name: "moving_keys_clips_plans", backends: EVERY_PATH },
    Test { name: "moving_layers_whole", backends: EVERY_PATH },
    Test { name: "thousand_textures_at_256_layers", backends: EVERY_PATH },
    Test { name: "tile_grid", backends: EVERY_PATH },
    Test { name: "host_textures", backends: EVERY_PATH },
];

/// The glow layerbatch-gl is built on.
const GLOW: &str = if cfg!(feature = "glow-0-17") { "glow 0.17" } else { "glow 0.18" };

/// How a test ended.
pub enum Status {
    Ok(String),
    Skipped(String),
    Failed(String),
}

/// A test's outcome, as the driver reads it.
pub struct Outcome {
    name: String,
    backend: String,
    status: Status,
    ms: f64,
}

impl Outcome {
    pub fn to_json(&self) -> String {
        let (status, detail) = match &self.status {
            Status::Ok(d) => ("ok", d),
            Status::Skipped(d) => ("skipped", d),
            Status::Failed(d) => ("failed", d),
        };
        serde_json::json!({
            "name": self.name, "backend": self.backend, "status": status, "detail": detail, "ms": self.ms,
        })
        .to_string()
    }
}

/// A failed check, or a path the browser does not offer.
enum Fail {
    Failed(String),
    Unavailable(String),
}

impl From<String> for Fail {
    fn from(e: String) -> Self {
        Fail::Failed(e)
    }
}

impl From<&str> for Fail {
    fn from(e: &str) -> Self {
        Fail::Failed(e.to_string())
    }
}

impl From<OpenError> for Fail {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Unavailable(e) => Fail::Unavailable(e),
            OpenError::Failed(e) => Fail::Failed(e),
        }
    }
}

type Checked = Result<String, Fail>;

/// `Err(Fail::Failed(...))` unless `cond`.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)*) => {
        if !$cond {
            return Err(Fail::Failed(format!($($fmt)*)));
        }
    };
}

// After `ensure!`, which they use.
mod array_layers;
mod basis;
mod color_offset;
mod compressed;
mod grids;
mod host_textures;
mod hud;
mod looks;
mod moving;

/// Runs test `name` on `backend`.
pub async fn run(name: &str, backend: &str) -> Outcome {
    let t0 = util::now_ms();
    let status = match dispatch(name, backend) {
        Err(e) => Status::Failed(e),
        Ok(future) => match future.await {
            Ok(detail) => Status::Ok(detail),
            Err(Fail::Unavailable(e)) => Status::Skipped(e),
            Err(Fail::Failed(e)) => Status::Failed(e),
        },
    };
    Outcome { name: name.into(), backend: backend.into(), status, ms: util::now_ms() - t0 }
}

fn dispatch(name: &str, backend: &str) -> Result<Pin<Box<dyn Future<Output = Checked>>>, String> {
    let test = TESTS.iter().find(|t| t.name == name).ok_or_else(|| format!("no test {name:?}"))?;
    if !test.backends.contains(&backend) {
        return Err(format!("{name} runs on {:?}, not {backend:?}", test.backends));
    }
    if backend == "all" {
        return Ok(match name {
            "hud_parity" => Box::pin(hud::hud_parity()),
            "looks_parity" => Box::pin(looks::looks_parity()),
            _ => Box::pin(parity_gl_wgpu()),
        });
    }
    let b = Backend::parse(backend)?;
    Ok(match name {
        "gl_fresh_context" => Box::pin(gl_fresh_context()),
        "gl_host_bindings" => Box::pin(gl_host_bindings()),
        "gl_wrapped_context" => Box::pin(gl_wrapped_context()),
        "one_draw_64_textures" => Box::pin(one_draw_64_textures(b)),
        "instanced_quads" => Box::pin(instanced_quads(b)),
        "padding_poison" => Box::pin(padding_poison(b)),
        "array_growth" => Box::pin(array_growth(b)),
        "resident_layer" => Box::pin(resident_layer(b)),
        "device_error_is_err" => Box::pin(device_error_is_err(b)),
        "hud_one_draw" => Box::pin(hud::hud_one_draw(b)),
        "hud_glyphs" => Box::pin(hud::hud_glyphs(b)),
        "compressed_families" => Box::pin(compressed::compressed_families(b)),
        "basis_files" => Box::pin(basis::basis_files(b)),
        "looks_one_draw" => Box::pin(looks::looks_one_draw(b)),
        "color_offset" => Box::pin(color_offset::color_offset(b)),
        "moving_sprites" => Box::pin(moving::moving_sprites(b)),
        "moving_keys_clips_plans" => Box::pin(moving::moving_keys_clips_plans(b)),
        "moving_layers_whole" => Box::pin(moving::moving_layers_whole(b)),
        "thousand_textures_at_256_layers" => Box::pin(array_layers::thousand_textures_at_256_layers(b)),
        "tile_grid" => Box::pin(grids::tile_grid(b)),
        "host_textures" => Box::pin(host_textures::host_textures(b)),
        _ => return Err(format!("no test {name:?} on {backend}")),
    })
}

/// An RGBA8 readback, top row first.
struct Image {
    px: Vec<u8>,
    size: [u32; 2],
}

impl Image {
    fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.size[0] + x) * 4) as usize;
        [self.px[i], self.px[i + 1], self.px[i + 2], self.px[i + 3]]
    }

    fn pixels(&self) -> impl Iterator<Item = (u32, u32, [u8; 4])> + '_ {
        let w = self.size[0];
        self.px.chunks_exact(4).enumerate().map(move |(i, p)| (i as u32 % w, i as u32 / w, [p[0], p[1], p[2], p[3]]))
    }

    /// Every pixel of `[x0, y0, x1, y1)` is `want`, within `tol` per channel.
    fn rect(&self, [x0, y0, x1, y1]: [u32; 4], want: [u8; 4], tol: u8, what: &str) -> Result<(), Fail> {
        for y in y0..y1 {
            for x in x0..x1 {
                let got = self.at(x, y);
                let off = got.iter().zip(want).any(|(g, w)| g.abs_diff(w) > tol);
                ensure!(!off, "{what}: ({x}, {y}) is {got:?}, want {want:?}");
            }
        }
        Ok(())
    }
}

fn solid(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    c.repeat((w * h) as usize)
}

/// Records `quads` into a frame, draws it, reads it back.
async fn frame(dev: &mut Device, batcher: &mut Batcher, quads: &[Quad]) -> Result<Image, Fail> {
    let quad_bytes = batcher.budget().quad_bytes();
    batcher.begin_frame();
    for q in quads {
        batcher.push(q).map_err(|e| format!("push: {e}"))?;
    }
    let plan = batcher.finish();
    dev.draw(plan).await?;
    check_executed(plan, &dev.stats(), quad_bytes)?;
    let size = match dev {
        Device::Gl(g) => g.size,
        Device::Wgpu(w) => w.size,
    };
    Ok(Image { px: dev.read().await?, size })
}

/// What every paint must satisfy: one draw per segment and the counters of the plan painted.
fn check_executed(plan: &FramePlan, stats: &layerbatch::Stats, quad_bytes: u32) -> Result<(), Fail> {
    ensure!(stats.core_frame == plan.counters, "the device's stats are not the plan's");
    ensure!(
        stats.device_frame.draw_calls == plan.segments.len() as u64,
        "{} draws for {} segments",
        stats.device_frame.draw_calls,
        plan.segments.len()
    );
    let instance_bytes = plan.instances.len() as u64 * u64::from(quad_bytes);
    ensure!(stats.device_frame.instance_bytes_written == instance_bytes, "instance bytes written");
    ensure!(stats.device_frame.texture_bytes_written == plan.counters.bytes_uploaded, "texture bytes written");
    Ok(())
}

async fn open(backend: Backend, size: [u32; 2], config: Config) -> Result<(Device, Batcher), Fail> {
    let mut dev = Device::open(backend, size).await?;
    let batcher = Batcher::new(dev.limits(), config).map_err(|e| format!("budget: {e}"))?;
    dev.init(batcher.budget())?;
    Ok((dev, batcher))
}

/// The centre colour of scene texture `i` (inside its dark frame).
fn scene_color(i: usize, (w, h): (u32, u32)) -> [u8; 4] {
    let px = texture_pixels(i, w, h);
    let c = ((h / 2 * w + w / 2) * 4) as usize;
    [px[c], px[c + 1], px[c + 2], px[c + 3]]
}

// 1. 64 textures in 4 sizes, 128 quads interleaved (consecutive quads use different textures):
//    one draw call, tier 1, no cache reset, and every quad shows its texture.
async fn one_draw_64_textures(backend: Backend) -> Checked {
    // SwiftShader is found to be a software rasterizer on every path, so `Auto` draws
    // indexed quads (instanced ones cost SwiftShader one internal draw each).
    grid_64(backend, QuadVertices::Auto, true).await?;
    Ok(format!(
        "1 draw call, tier 1, 0 cache resets, indexed quads, 128 quads over 64 textures right ({})",
        backend.name()
    ))
}

// 1b. The same grid with instanced quads forced (what a GPU gets by default): one draw, the
//     same quads right, a quarter of the vertex bytes, and the same pixels as indexed quads
//     within 1 per channel.
async fn instanced_quads(backend: Backend) -> Checked {
    let instanced = grid_64(backend, QuadVertices::Instanced, false).await?;
    let indexed = grid_64(backend, QuadVertices::Indexed, true).await?;
    let mut worst = 0;
    for (x, y, p) in instanced.pixels() {
        let q = indexed.at(x, y);
        let d = p.iter().zip(q).map(|(a, b)| a.abs_diff(b)).max().unwrap_or(0);
        ensure!(d <= 1, "({x}, {y}): instanced {p:?}, indexed {q:?}");
        worst = worst.max(d);
    }
    Ok(format!(
        "instanced quads: 1 draw call, 128 quads right, 64 bytes a quad; worst difference from indexed {worst} ({})",
        backend.name()
    ))
}

/// 64 textures in 4 sizes, 128 quads interleaved, with `quads`; checks one draw, tier 1, no
/// cache reset, every quad's texture, the background, and that the budget draws indexed quads
/// exactly when `indexed` (the vertex bytes are checked by `frame`).
async fn grid_64(backend: Backend, quads: QuadVertices, indexed: bool) -> Result<Image, Fail> {
    let size = [512, 256];
    let (mut dev, mut batcher) = open(backend, size, Config::default().with_quad_vertices(quads)).await?;
    ensure!(
        batcher.budget().indexed_quads == indexed,
        "{quads:?}: indexed_quads {} on a software rasterizer",
        batcher.budget().indexed_quads
    );
    let mut ids = Vec::new();
    for i in 0..64 {
        let (w, h) = SIZES[i % SIZES.len()];
        ids.push(
            batcher
                .textures()
                .register(&TextureDesc::new(w, h), &texture_pixels(i, w, h))
                .map_err(|e| e.to_string())?,
        );
    }
    let cell = |i: u32| ((i % 16) * 32, (i / 16) * 32);
    let quads: Vec<Quad> = (0..128u32)
        .map(|i| {
            let (x, y) = cell(i);
            Quad::rect(ids[i as usize % 64], [x as f32 + 2.0, y as f32 + 2.0], [28.0, 28.0])
        })
        .collect();
    let img = frame(&mut dev, &mut batcher, &quads).await?;
    let plan = batcher.plan();
    let stats = dev.stats();
    ensure!(plan.counters.draw_calls == 1, "{} draw calls planned", plan.counters.draw_calls);
    ensure!(stats.device_frame.draw_calls == 1, "{} draw calls issued", stats.device_frame.draw_calls);
    ensure!(plan.counters.cache_resets == 0, "{} cache resets", plan.counters.cache_resets);
    ensure!(plan.segments[0].tier == 1, "tier {}", plan.segments[0].tier);
    for i in 0..128u32 {
        let (x, y) = cell(i);
        let t = i as usize % 64;
        let want = scene_color(t, SIZES[t % SIZES.len()]);
        img.rect([x + 12, y + 12, x + 20, y + 20], want, 1, &format!("quad {i} (texture {t})"))?;
    }
    img.rect([0, 0, 512, 2], [0, 0, 0, 255], 0, "background above the grid")?;
    dev.close();
    Ok(img)
}

// 1c. The same 128 quads over 64 textures in a resident layer: one draw, the same pixels as
//     pushed (exactly), uploaded by the first plan only.
async fn resident_layer(backend: Backend) -> Checked {
    let size = [512, 256];
    let (mut dev, mut batcher) = open(backend, size, Config::default()).await?;
    let mut ids = Vec::new();
    for i in 0..64 {
        let (w, h) = SIZES[i % SIZES.len()];
        ids.push(
            batcher
                .textures()
                .register(&TextureDesc::new(w, h), &texture_pixels(i, w, h))
                .map_err(|e| e.to_string())?,
        );
    }
    let quads: Vec<Quad> = (0..128u32)
        .map(|i| {
            Quad::rect(ids[i as usize % 64], [(i % 16 * 32) as f32 + 2.0, (i / 16 * 32) as f32 + 2.0], [28.0, 28.0])
        })
        .collect();
    let pushed = frame(&mut dev, &mut batcher, &quads).await?;
    let layer = batcher.textures().create_resident(&quads).map_err(|e| e.to_string())?;
    let quad_bytes = u64::from(batcher.budget().quad_bytes());
    for round in 0..2 {
        batcher.begin_frame();
        batcher.draw_resident(layer, &ResidentStyle::default()).map_err(|e| e.to_string())?;
        dev.draw(batcher.finish()).await?;
        let c = dev.stats().device_frame;
        let want = if round == 0 { 128 * quad_bytes } else { 0 };
        ensure!(c.draw_calls == 1, "round {round}: {} draws", c.draw_calls);
        ensure!(
            c.resident_bytes_written == want,
            "round {round}: {} resident bytes, want {want}",
            c.resident_bytes_written
        );
        ensure!(c.instance_bytes_written == 0, "round {round}: {} instance bytes", c.instance_bytes_written);
        let drawn = dev.read().await?;
        let off = drawn.chunks_exact(4).zip(pushed.px.chunks_exact(4)).filter(|(a, b)| a != b).count();
        ensure!(off == 0, "round {round}: {off} pixels differ from the quads pushed");
    }
    dev.close();
    Ok(format!("1 draw, the pushed quads' pixels exactly, uploaded once ({})", backend.name()))
}

// 2. A 24x24 clamp-to-edge texture whose surroundings hold poison (a 32x32 poison texture
//    registered first, then freed, so that the small one takes its place): in the 32x32 size
//    class (atlas packing off) the poison is its padding, in an atlas page (the default) the
//    rest of the freed rectangle. Drawn with UVs outside 0..1 (past both edges, past one,
//    rotated), linear and nearest: no poison pixel anywhere, and the parts past the edge show
//    the edge texels.
async fn padding_poison(backend: Backend) -> Checked {
    for (what, config) in
        [("size class", Config::default().with_max_packed_size_px(0)), ("atlas page", Config::default())]
    {
        padding_poison_with(backend, what, config).await?;
    }
    Ok("no poison pixel, edges stretched, in a size class and an atlas page".into())
}

async fn padding_poison_with(backend: Backend, what: &str, config: Config) -> Result<(), Fail> {
    const POISON: [u8; 4] = [255, 0, 255, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];
    let size = [256, 256];
    let (mut dev, mut batcher) = open(backend, size, config).await?;
    let mut textures = Vec::new();
    for filter in [Filter::Linear, Filter::Nearest] {
        let poison = batcher
            .textures()
            .register(&TextureDesc::new(32, 32).with_filter(filter), &solid(32, 32, POISON))
            .map_err(|e| e.to_string())?;
        let poison_place = batcher.placement(poison).map_err(|e| e.to_string())?;
        batcher.textures().free(poison).map_err(|e| e.to_string())?;
        // Left half green, right half blue: no red anywhere, so any red is poison.
        let px: Vec<u8> = (0..24 * 24).flat_map(|i| if i % 24 < 12 { GREEN } else { BLUE }).collect();
        let t = batcher
            .textures()
            .register(&TextureDesc::new(24, 24).with_filter(filter), &px)
            .map_err(|e| e.to_string())?;
        let place = batcher.placement(t).map_err(|e| e.to_string())?;
        let at = |p: layerbatch::alloc::Placement| (p.array, p.layer, p.rect_px[0], p.rect_px[1]);
        ensure!(at(place) == at(poison_place), "{what}, {filter:?}: not in the poison's place");
        textures.push(t);
    }
    // One frame draws the poison (uploads it), the next the small textures over its place.
    let mut quads = Vec::new();
    for (i, &t) in textures.iter().enumerate() {
        let y = 100.0 * i as f32;
        // -0.25..1.25 over 96 px: 16 px of stretched edge each side.
        quads.push(Quad::rect(t, [0.0, y], [96.0, 96.0]).with_uv([-0.25, -0.25, 1.25, 1.25]));
        // 0..1.5 across 120 px: the right 40 px are the right edge stretched.
        quads.push(Quad::rect(t, [100.0, y], [120.0, 80.0]).with_uv([0.0, 0.0, 1.5, 1.0]));
        quads.push(Quad::rotated(t, [238.0, y + 40.0], [24.0, 24.0], 0.7).with_uv([-0.5, 0.0, 1.5, 1.0]));
    }
    let img = frame(&mut dev, &mut batcher, &quads).await?;
    for (x, y, p) in img.pixels() {
        ensure!(p[0] == 0, "{what}: poison (red) at ({x}, {y}): {p:?}");
    }
    for i in 0..2 {
        let y = 100 * i;
        img.rect([0, y, 30, y + 96], GREEN, 0, &format!("{what}: texture {i}: left edge stretched"))?;
        img.rect([66, y, 96, y + 96], BLUE, 0, &format!("{what}: texture {i}: right edge stretched"))?;
        img.rect([100, y, 130, y + 80], GREEN, 0, &format!("{what}: texture {i}: left half"))?;
        img.rect([150, y, 220, y + 80], BLUE, 0, &format!("{what}: texture {i}: right half and past the edge"))?;
    }
    dev.close();
    Ok(())
}

// 3. Growth: a size-class array full at its initial layers grows by a GPU copy (layers), and
//    an atlas page grows in size by a GPU copy; every texture drawn before and after keeps
//    its pixels.
async fn array_growth(backend: Backend) -> Checked {
    let mut report = Vec::new();
    for (what, config, sizes) in [
        ("size class", Config::default().with_max_packed_size_px(0).with_initial_layers(2), [(16, 16); 2]),
        ("atlas page", Config::default().with_page_size_px(256), [(12, 12), (40, 40)]),
    ] {
        let size = [256, 256];
        let (mut dev, mut batcher) = open(backend, size, config).await?;
        let colors: Vec<[u8; 4]> = (0..24).map(|i| scene_color(i, (16, 16))).collect();
        let mut ids: Vec<TextureId> = Vec::new();
        let mut grown = 0;
        let mut copied = 0;
        // Two textures first, then 22 more: the array must grow.
        for (round, count) in [(0, 2usize), (1, 22)] {
            let (w, h) = sizes[round];
            for _ in 0..count {
                let i = ids.len();
                ids.push(
                    batcher
                        .textures()
                        .register(&TextureDesc::new(w, h), &solid(w, h, colors[i]))
                        .map_err(|e| e.to_string())?,
                );
            }
            let quads: Vec<Quad> = ids
                .iter()
                .enumerate()
                .map(|(i, &t)| Quad::rect(t, [(i % 8) as f32 * 32.0, (i / 8) as f32 * 32.0], [24.0, 24.0]))
                .collect();
            let img = frame(&mut dev, &mut batcher, &quads).await?;
            let plan = batcher.plan();
            grown += plan.counters.array_growths;
            copied += dev.stats().device_frame.layers_copied;
            for (i, &c) in colors.iter().enumerate().take(ids.len()) {
                let (x, y) = ((i % 8) as u32 * 32, (i / 8) as u32 * 32);
                img.rect([x + 4, y + 4, x + 20, y + 20], c, 0, &format!("{what}: round {round}: texture {i}"))?;
            }
        }
        ensure!(grown >= 1, "{what}: no growth");
        ensure!(copied >= 1, "{what}: no layer copied on the device");
        report.push(format!("{what}: {grown} growths, {copied} layers copied"));
        dev.close();
    }
    Ok(report.join("; "))
}

// 4. A device error on wgpu (an array larger than the device allows, from a batcher built
//    with inflated limits) comes back as `Err`, never at the uncaptured-error handler: from
//    `prepare` itself where the device answers at once (WebGL2); on WebGPU, which answers
//    later, from `Renderer::device_errors` (first run) or from the next `prepare` (second
//    run, the host preparing and rendering empty frames meanwhile). Then a rebuild draws
//    right.
async fn device_error_is_err(backend: Backend) -> Checked {
    let mut how = Vec::new();
    let mut message = String::new();
    for next_prepare in [false, true] {
        let mut dev = Device::open(backend, [128, 64]).await?;
        let Device::Wgpu(w) = &mut dev else { return Err("not a wgpu path".into()) };
        let huge = w.device.limits().max_texture_dimension_2d * 2;
        let limits = layerbatch_wgpu::device_limits(&w.device).with_max_texture_size_px(huge);
        let mut b = Batcher::new(limits, Config::default().with_budget_bytes(u64::MAX)).map_err(|e| e.to_string())?;
        let r = layerbatch_wgpu::Renderer::new(&w.device, device::FORMAT, b.budget(), &Default::default())
            .map_err(|e| e.to_string())?;
        // The frame's plan in a prepared plan of this renderer; `submit` (below) uses it too.
        let prepared = w.prepared.insert(r.create_prepared());
        let r = w.renderer.insert(r);
        let green = b
            .textures()
            .register(&TextureDesc::new(16, 16), &solid(16, 16, [0, 255, 0, 255]))
            .map_err(|e| e.to_string())?;
        let target = b
            .textures()
            .register(&TextureDesc::new(huge, 16).with_usage(Usage::RenderTarget), &[])
            .map_err(|e| e.to_string())?;
        b.begin_frame();
        b.push(&Quad::rect(green, [8.0, 8.0], [32.0, 32.0])).map_err(|e| e.to_string())?;
        b.push(&Quad::rect(target, [48.0, 8.0], [32.0, 32.0])).map_err(|e| e.to_string())?;
        let error = match r.prepare(&w.device, &w.queue, prepared, b.finish(), w.size) {
            Err(e) => {
                how.push("prepare");
                e
            }
            Ok(_) if !next_prepare => match r.device_errors().await {
                Err(e) => {
                    how.push("device_errors");
                    e
                }
                Ok(()) => return Err("prepare and device_errors both Ok for an array beyond the device".into()),
            },
            Ok(_) => {
                // The failed plan is not rendered (its arrays are invalid); the host goes on
                // with empty frames until a prepare reports the error.
                let mut reported = None;
                for _ in 0..200 {
                    util::sleep_ms(10).await;
                    b.begin_frame();
                    match r.prepare(&w.device, &w.queue, prepared, b.finish(), w.size) {
                        Err(e) => {
                            reported = Some(e);
                            break;
                        }
                        Ok(_) => {
                            let mut encoder = w.device.create_command_encoder(&Default::default());
                            r.render(prepared, &mut device::clear_pass(&mut encoder, &w.view))
                                .map_err(|e| e.to_string())?;
                            w.queue.submit([encoder.finish()]);
                        }
                    }
                }
                how.push("the next prepare");
                reported.ok_or("no error from the prepares of the next 2 s")?
            }
        };
        match &error {
            layerbatch_wgpu::Error::Device { op, message: m } if op.contains("creating array") => {
                message = m.lines().next().unwrap_or_default().to_string();
            }
            other => return Err(Fail::Failed(format!("expected Error::Device creating an array, got {other}"))),
        }
        ensure!(r.array_count() == 0, "the renderer holds arrays after a device error");
        // The host renders and submits its frame as usual: nothing is drawn.
        let mut encoder = w.device.create_command_encoder(&Default::default());
        r.render(prepared, &mut device::clear_pass(&mut encoder, &w.view)).map_err(|e| e.to_string())?;
        w.queue.submit([encoder.finish()]);
        ensure!(r.stats().device_frame.draw_calls == 0, "the failed plan was drawn");
        // Only a rebuild plan is accepted now; it draws right.
        b.textures().free(target).map_err(|e| e.to_string())?;
        for id in b.restore() {
            b.textures().update(id, &solid(16, 16, [0, 255, 0, 255])).map_err(|e| e.to_string())?;
        }
        let img = frame(&mut dev, &mut b, &[Quad::rect(green, [8.0, 8.0], [32.0, 32.0])]).await?;
        img.rect([12, 12, 36, 36], [0, 255, 0, 255], 1, "green after the rebuild")?;
        img.rect([56, 12, 76, 36], [0, 0, 0, 255], 0, "nothing where the render target was")?;
        let Device::Wgpu(w) = &dev else { return Err("not a wgpu path".into()) };
        let uncaptured = w.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).clone();
        ensure!(uncaptured.is_empty(), "uncaptured errors: {uncaptured:?}");
        dev.close();
    }
    Ok(format!(
        "Err from {} (first run) and from {} (second run), a rebuild then draws right, nothing uncaptured ({message})",
        how[0], how[1]
    ))
}

// 5. layerbatch-gl on a fresh WebGL2 context with nothing bound (stock glow): creation,
//    uploads, growth by blits, draws into the default framebuffer; nothing bound afterwards
//    either, and no panic (glow's getters panic on a null binding: the renderer does not use
//    them in a browser).
async fn gl_fresh_context() -> Checked {
    let size = [128, 64];
    let (mut dev, mut batcher) =
        open(Backend::Gl, size, Config::default().with_max_packed_size_px(0).with_initial_layers(2)).await?;
    let Device::Gl(g) = &dev else { return Err("not gl".into()) };
    let restores = g.renderer.as_ref().is_some_and(|r| r.restores_host_bindings());
    ensure!(restores, "the renderer did not reach the WebGL2 context behind glow");
    let raw = g.raw.clone();
    let mut ids = Vec::new();
    for i in 0..6 {
        ids.push(
            batcher
                .textures()
                .register(&TextureDesc::new(16, 16), &solid(16, 16, scene_color(i, (16, 16))))
                .map_err(|e| e.to_string())?,
        );
        let quads: Vec<Quad> =
            ids.iter().enumerate().map(|(k, &t)| Quad::rect(t, [k as f32 * 20.0, 0.0], [16.0, 16.0])).collect();
        let img = frame(&mut dev, &mut batcher, &quads).await?;
        for k in 0..ids.len() as u32 {
            img.rect([k * 20 + 2, 2, k * 20 + 14, 14], scene_color(k as usize, (16, 16)), 0, &format!("texture {k}"))?;
        }
    }
    ensure!(batcher.plan().totals.array_growths >= 1, "no growth");
    for (name, pname) in [
        ("CURRENT_PROGRAM", Gl2::CURRENT_PROGRAM),
        ("VERTEX_ARRAY_BINDING", Gl2::VERTEX_ARRAY_BINDING),
        ("ARRAY_BUFFER_BINDING", Gl2::ARRAY_BUFFER_BINDING),
        ("PIXEL_UNPACK_BUFFER_BINDING", Gl2::PIXEL_UNPACK_BUFFER_BINDING),
        ("DRAW_FRAMEBUFFER_BINDING", Gl2::DRAW_FRAMEBUFFER_BINDING),
        ("READ_FRAMEBUFFER_BINDING", Gl2::READ_FRAMEBUFFER_BINDING),
        ("TEXTURE_BINDING_2D_ARRAY", Gl2::TEXTURE_BINDING_2D_ARRAY),
        ("SAMPLER_BINDING", Gl2::SAMPLER_BINDING),
    ] {
        let v = raw.get_parameter(pname).map_err(|e| format!("{name}: {e:?}"))?;
        ensure!(v.is_null(), "{name} is bound after the paints: {v:?}");
    }
    dev.close();
    Ok(format!("{GLOW}: created, uploaded, grew (blit) and drew on a context with nothing bound; nothing bound after"))
}

// 6. layerbatch-gl with a host that has its own objects bound, some made through glow and some
//    directly through WebGL (objects glow's getters would panic on): program, vertex array,
//    array and pixel-unpack buffers, textures and samplers on several units, the active unit,
//    and draw and read framebuffers. After `Renderer::new` and after paints that upload, grow
//    (blits) and draw at tier 2 into a framebuffer the target names, each binding holds the
//    very object the host bound.
async fn gl_host_bindings() -> Checked {
    let size = [128, 64];
    let mut dev = Device::open(Backend::Gl, size).await?;
    let Device::Gl(g) = &mut dev else { return Err("not gl".into()) };
    let gl = g.gl.clone();
    let raw = g.raw.clone();
    let host = HostObjects::bind(&gl, &raw)?;
    host.check(&raw, "before Renderer::new")?;
    let config = Config::default().with_max_packed_size_px(0).with_initial_layers(2);
    let mut batcher = Batcher::new(layerbatch_gl::Renderer::query_limits(&gl), config).map_err(|e| e.to_string())?;
    let mut renderer = layerbatch_gl::Renderer::new(gl.clone(), batcher.budget()).map_err(|e| e.to_string())?;
    host.check(&raw, "after Renderer::new")?;
    ensure!(renderer.restores_host_bindings(), "the renderer did not reach the WebGL2 context behind glow");
    // The target: a framebuffer of the host's, made through glow and named by the target.
    // SAFETY: object creation and binds on the canvas's context; the host's bindings are put
    // back by `HostObjects::rebind`.
    let (fbo, texture) = unsafe {
        let fbo = gl.create_framebuffer()?;
        let texture = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, size[0] as i32, size[1] as i32);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        gl.framebuffer_texture_2d(glow::FRAMEBUFFER, glow::COLOR_ATTACHMENT0, glow::TEXTURE_2D, Some(texture), 0);
        (fbo, texture)
    };
    host.rebind(&gl, &raw);
    // Two sizes, interleaved: tier 2.
    let mut ids: Vec<(TextureId, [u8; 4])> = Vec::new();
    for i in 0..6 {
        let (w, h) = if i % 2 == 0 { (16, 16) } else { (32, 16) };
        let c = scene_color(i, (16, 16));
        ids.push((
            batcher.textures().register(&TextureDesc::new(w, h), &solid(w, h, c)).map_err(|e| e.to_string())?,
            c,
        ));
        batcher.begin_frame();
        for (k, &(t, _)) in ids.iter().enumerate() {
            batcher.push(&Quad::rect(t, [k as f32 * 20.0, 0.0], [16.0, 16.0])).map_err(|e| e.to_string())?;
        }
        let plan = batcher.finish();
        // SAFETY: clears the test's framebuffer, then puts the host's bindings back.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.clear_color(0.0, 0.0, 0.0, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT);
        }
        host.rebind(&gl, &raw);
        renderer.paint(plan, &layerbatch_gl::Target::framebuffer(fbo, size)).map_err(|e| e.to_string())?;
        host.check(&raw, &format!("after paint {i}"))?;
        // SAFETY: reads the test's framebuffer, then puts the host's bindings back.
        let img = unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
            let px = device::read_bound(&gl, size);
            Image { px, size }
        };
        host.rebind(&gl, &raw);
        for (k, &(_, c)) in ids.iter().enumerate() {
            let x = k as u32 * 20;
            img.rect([x + 2, 2, x + 14, 14], c, 0, &format!("paint {i}: texture {k}"))?;
        }
    }
    let totals = batcher.plan().totals;
    ensure!(totals.array_growths >= 1, "no growth");
    ensure!(totals.max_slot_tier >= 2, "tier {}", totals.max_slot_tier);
    renderer.destroy();
    host.check(&raw, "after Renderer::destroy")?;
    // SAFETY: the test's own objects.
    unsafe {
        gl.delete_framebuffer(fbo);
        gl.delete_texture(texture);
    }
    dev.close();
    Ok(format!(
        "{GLOW}: {} host bindings held through new, 6 paints (growth {}, tier {}) and destroy",
        host.expected.len(),
        totals.array_growths,
        totals.max_slot_tier
    ))
}

// 6b. The fallback: a context object with its own `getUniformLocation` (as a debugging
//     wrapper defines), so that the renderer cannot reach the raw context behind glow.
//     `restores_host_bindings` is false, creation leaves no GL error, and paints work and
//     leave the object bindings unbound (documented), without a panic.
async fn gl_wrapped_context() -> Checked {
    let size = [128, 64];
    let mut dev = Device::open(Backend::Gl, size).await?;
    let Device::Gl(g) = &mut dev else { return Err("not gl".into()) };
    let raw = g.raw.clone();
    let name = JsValue::from_str("getUniformLocation");
    let proto = js_sys::Reflect::get_prototype_of(&raw).map_err(|e| format!("{e:?}"))?;
    let method: js_sys::Function =
        js_sys::Reflect::get(&proto, &name).map_err(|e| format!("{e:?}"))?.dyn_into().map_err(|_| "no method")?;
    js_sys::Reflect::set(&raw, &name, &method.bind0(&raw)).map_err(|e| format!("{e:?}"))?;
    let mut batcher =
        Batcher::new(layerbatch_gl::Renderer::query_limits(&g.gl), Config::default()).map_err(|e| e.to_string())?;
    g.renderer = Some(layerbatch_gl::Renderer::new(g.gl.clone(), batcher.budget()).map_err(|e| e.to_string())?);
    let restores = g.renderer.as_ref().is_some_and(|r| r.restores_host_bindings());
    ensure!(!restores, "the renderer reached the raw context through a wrapped getUniformLocation");
    let error = raw.get_error();
    ensure!(error == Gl2::NO_ERROR, "GL error {error:#x} pending after Renderer::new");
    let t = batcher
        .textures()
        .register(&TextureDesc::new(16, 16), &solid(16, 16, [0, 255, 0, 255]))
        .map_err(|e| e.to_string())?;
    let img = frame(&mut dev, &mut batcher, &[Quad::rect(t, [8.0, 8.0], [32.0, 32.0])]).await?;
    img.rect([10, 10, 38, 38], [0, 255, 0, 255], 0, "the quad")?;
    let program = raw.get_parameter(Gl2::CURRENT_PROGRAM).unwrap_or(JsValue::UNDEFINED);
    ensure!(program.is_null(), "CURRENT_PROGRAM {program:?} after the paint: not the documented none");
    dev.close();
    Ok(format!("{GLOW}: restores_host_bindings() false, no GL error, paints draw right, bindings left unbound"))
}

/// The host's objects, bound, and what each binding must read back as.
struct HostObjects {
    /// (name, getParameter pname, active unit to read it on, the object)
    expected: Vec<(&'static str, u32, Option<u32>, JsValue)>,
    active: u32,
    program: JsValue,
    vao: JsValue,
    array_buffer: JsValue,
    unpack: JsValue,
    draw_fb: JsValue,
    read_fb: JsValue,
    textures: Vec<JsValue>,
    samplers: Vec<JsValue>,
}

impl HostObjects {
    /// Makes and binds the host's objects: through glow (program, vertex array, textures on
    /// units 0 and 1, sampler on unit 1, unpack buffer) and directly through WebGL (array
    /// buffer, textures on units 2 and 3, sampler on unit 0, both framebuffers), active unit 3.
    fn bind(gl: &glow::Context, raw: &Gl2) -> Result<Self, Fail> {
        let gl_texture = |unit: u32| -> Result<JsValue, Fail> {
            // SAFETY: a texture array of the host's, made through glow.
            unsafe {
                let t = gl.create_texture()?;
                gl.active_texture(glow::TEXTURE0 + unit);
                gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(t));
            }
            Ok(raw.get_parameter(Gl2::TEXTURE_BINDING_2D_ARRAY).map_err(|e| format!("{e:?}"))?)
        };
        let t0 = gl_texture(0)?;
        let t1 = gl_texture(1)?;
        let raw_texture = |unit: u32| -> JsValue {
            let t = raw.create_texture();
            raw.active_texture(Gl2::TEXTURE0 + unit);
            raw.bind_texture(Gl2::TEXTURE_2D_ARRAY, t.as_ref());
            t.map(JsValue::from).unwrap_or(JsValue::NULL)
        };
        let t2 = raw_texture(2);
        let t3 = raw_texture(3);
        let s0 = raw.create_sampler().map(JsValue::from).unwrap_or(JsValue::NULL);
        raw.bind_sampler(0, s0.dyn_ref());
        // SAFETY: a sampler of the host's, made through glow, bound to unit 1.
        unsafe {
            let s = gl.create_sampler()?;
            gl.bind_sampler(1, Some(s));
        }
        raw.active_texture(Gl2::TEXTURE1);
        let s1 = raw.get_parameter(Gl2::SAMPLER_BINDING).map_err(|e| format!("{e:?}"))?;
        raw.active_texture(Gl2::TEXTURE3);
        // A program and vertex array through glow, the rest through WebGL.
        // SAFETY: a trivial program of the host's, linked and made current; a vertex array and
        // an unpack buffer, bound.
        unsafe {
            let vs = "#version 300 es\nvoid main() { gl_Position = vec4(0.0); }";
            let fs = "#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(1.0); }";
            let program = layerbatch_gl::compile_program_for_test(gl, vs, fs).map_err(|e| e.to_string())?;
            gl.use_program(Some(program));
            let vao = gl.create_vertex_array()?;
            gl.bind_vertex_array(Some(vao));
            let unpack = gl.create_buffer()?;
            gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(unpack));
        }
        let array_buffer = raw.create_buffer();
        raw.bind_buffer(Gl2::ARRAY_BUFFER, array_buffer.as_ref());
        let draw_fb = raw.create_framebuffer();
        raw.bind_framebuffer(Gl2::DRAW_FRAMEBUFFER, draw_fb.as_ref());
        let read_fb = raw.create_framebuffer();
        raw.bind_framebuffer(Gl2::READ_FRAMEBUFFER, read_fb.as_ref());
        let get = |p: u32| raw.get_parameter(p).unwrap_or(JsValue::UNDEFINED);
        let (program, vao, unpack) =
            (get(Gl2::CURRENT_PROGRAM), get(Gl2::VERTEX_ARRAY_BINDING), get(Gl2::PIXEL_UNPACK_BUFFER_BINDING));
        let array_buffer: JsValue = array_buffer.map(JsValue::from).unwrap_or(JsValue::NULL);
        let draw_fb: JsValue = draw_fb.map(JsValue::from).unwrap_or(JsValue::NULL);
        let read_fb: JsValue = read_fb.map(JsValue::from).unwrap_or(JsValue::NULL);
        let textures = vec![t0, t1, t2, t3];
        let samplers = vec![s0, s1];
        let mut expected = vec![
            ("CURRENT_PROGRAM (glow)", Gl2::CURRENT_PROGRAM, None, program.clone()),
            ("VERTEX_ARRAY_BINDING (glow)", Gl2::VERTEX_ARRAY_BINDING, None, vao.clone()),
            ("PIXEL_UNPACK_BUFFER_BINDING (glow)", Gl2::PIXEL_UNPACK_BUFFER_BINDING, None, unpack.clone()),
            ("ARRAY_BUFFER_BINDING (WebGL)", Gl2::ARRAY_BUFFER_BINDING, None, array_buffer.clone()),
            ("DRAW_FRAMEBUFFER_BINDING (WebGL)", Gl2::DRAW_FRAMEBUFFER_BINDING, None, draw_fb.clone()),
            ("READ_FRAMEBUFFER_BINDING (WebGL)", Gl2::READ_FRAMEBUFFER_BINDING, None, read_fb.clone()),
            ("ACTIVE_TEXTURE", Gl2::ACTIVE_TEXTURE, None, JsValue::from_f64(f64::from(Gl2::TEXTURE3))),
        ];
        let names =
            ["unit 0 texture (glow)", "unit 1 texture (glow)", "unit 2 texture (WebGL)", "unit 3 texture (WebGL)"];
        for (unit, (t, name)) in textures.iter().zip(names).enumerate() {
            expected.push((name, Gl2::TEXTURE_BINDING_2D_ARRAY, Some(unit as u32), t.clone()));
        }
        expected.push(("unit 0 sampler (WebGL)", Gl2::SAMPLER_BINDING, Some(0), samplers[0].clone()));
        expected.push(("unit 1 sampler (glow)", Gl2::SAMPLER_BINDING, Some(1), samplers[1].clone()));
        for (name, _, _, v) in &expected {
            ensure!(!v.is_null() && !v.is_undefined(), "{name}: the host's object was not made");
        }
        Ok(Self {
            expected,
            active: Gl2::TEXTURE3,
            program,
            vao,
            array_buffer,
            unpack,
            draw_fb,
            read_fb,
            textures,
            samplers,
        })
    }

    /// Binds the host's objects again (after the test's own binds).
    fn rebind(&self, _gl: &glow::Context, raw: &Gl2) {
        for (unit, t) in self.textures.iter().enumerate() {
            raw.active_texture(Gl2::TEXTURE0 + unit as u32);
            raw.bind_texture(Gl2::TEXTURE_2D_ARRAY, t.dyn_ref());
        }
        raw.bind_sampler(0, self.samplers[0].dyn_ref());
        raw.bind_sampler(1, self.samplers[1].dyn_ref());
        raw.active_texture(self.active);
        raw.use_program(self.program.dyn_ref());
        raw.bind_vertex_array(self.vao.dyn_ref());
        raw.bind_buffer(Gl2::ARRAY_BUFFER, self.array_buffer.dyn_ref());
        raw.bind_buffer(Gl2::PIXEL_UNPACK_BUFFER, self.unpack.dyn_ref());
        raw.bind_framebuffer(Gl2::DRAW_FRAMEBUFFER, self.draw_fb.dyn_ref());
        raw.bind_framebuffer(Gl2::READ_FRAMEBUFFER, self.read_fb.dyn_ref());
    }

    /// Every binding holds the host's object (compared as JS objects, `===`).
    fn check(&self, raw: &Gl2, when: &str) -> Result<(), Fail> {
        let active = raw.get_parameter(Gl2::ACTIVE_TEXTURE).unwrap_or(JsValue::UNDEFINED);
        for (name, pname, unit, want) in &self.expected {
            if let Some(u) = unit {
                raw.active_texture(Gl2::TEXTURE0 + u);
            }
            let got = raw.get_parameter(*pname).unwrap_or(JsValue::UNDEFINED);
            if unit.is_some() {
                raw.active_texture(active.as_f64().unwrap_or(0.0) as u32);
            }
            let same = if *pname == Gl2::ACTIVE_TEXTURE { got.as_f64() == want.as_f64() } else { got == *want };
            ensure!(same, "{when}: {name} is {got:?}, not the host's {want:?}");
        }
        Ok(())
    }
}

// 7. Parity: the stress scene (1,000 sprites, 64 textures in 4 sizes, rotated, a quarter
//    translucent) through GL, wgpu on WebGL2 and wgpu on WebGPU reads back the same pixels:
//    away from sprite edges (SwiftShader snaps vertices to 1/16 px, and two shader compilers
//    round positions differently, so a pixel within 1/16 px of an edge may be in or out), every
//    channel within 2 levels; the same quads and draw counts everywhere.
async fn parity_gl_wgpu() -> Checked {
    const SIZE: [u32; 2] = [400, 300];
    let options = SceneOptions { sprites: 1_000, textures: 64, viewport_px: SIZE, ..SceneOptions::default() };
    let mut frames = Vec::new();
    for backend in Backend::ALL {
        let (mut dev, mut batcher) = open(backend, SIZE, Config::default()).await?;
        let mut scene = Scene::new(&mut batcher, options).map_err(|e| e.to_string())?;
        let quad_bytes = batcher.budget().quad_bytes();
        let plan = scene.frame(&mut batcher, 1.0 / 60.0);
        dev.draw(plan).await?;
        check_executed(plan, &dev.stats(), quad_bytes)?;
        let instances = plan.instances.to_vec();
        let counters = plan.counters;
        let img = Image { px: dev.read().await?, size: SIZE };
        frames.push((backend, img, instances, counters));
        dev.close();
    }
    let (_, reference, instances, counters) = &frames[0];
    let edges = edge_mask(instances, SIZE, 1.0 / 16.0);
    let masked = edges.iter().filter(|&&e| e).count();
    let mut notes = vec![format!("{masked} of {} pixels within 1/16 px of a sprite edge ignored", edges.len())];
    for (backend, img, other_instances, other_counters) in &frames[1..] {
        // The arrays may differ (wgpu's WebGL2 backend avoids some layer counts); what was
        // drawn may not.
        let drawn = |c: &layerbatch::Counters| (c.quads, c.draw_calls, c.flushes, c.cache_resets, c.max_slot_tier);
        ensure!(drawn(other_counters) == drawn(counters), "{}: core counters differ from gl's", backend.name());
        let corners = |q: &Instance| (q.origin, q.axis_x, q.axis_y, q.color);
        ensure!(
            other_instances.iter().map(corners).eq(instances.iter().map(corners)),
            "{}: quads differ from gl's",
            backend.name()
        );
        let (mut differing, mut worst, mut first, mut at_edges) = (0usize, 0u8, None, 0usize);
        for (i, (a, b)) in reference.px.chunks_exact(4).zip(img.px.chunks_exact(4)).enumerate() {
            let d = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
            if edges[i] {
                at_edges += usize::from(d > PARITY_TOLERANCE);
                continue;
            }
            worst = worst.max(d);
            if d > PARITY_TOLERANCE {
                differing += 1;
                first.get_or_insert((
                    i as u32 % SIZE[0],
                    i as u32 / SIZE[0],
                    [a[0], a[1], a[2], a[3]],
                    [b[0], b[1], b[2], b[3]],
                ));
            }
        }
        ensure!(
            differing == 0,
            "{}: {differing} pixels away from edges differ from gl's by more than {PARITY_TOLERANCE} (worst {worst}); first {first:?}",
            backend.name()
        );
        notes.push(format!(
            "{}: worst difference {worst} away from edges, {at_edges} edge pixels differ",
            backend.name()
        ));
    }
    Ok(notes.join("; "))
}

/// The largest channel difference allowed between two paths away from sprite edges (as in the
/// native parity test).
const PARITY_TOLERANCE: u8 = 2;

/// Pixels whose centre lies within `margin` px of an edge of one of `instances`' quads.
fn edge_mask(instances: &[Instance], size: [u32; 2], margin: f32) -> Vec<bool> {
    let [w, h] = size;
    let mut mask = vec![false; (w * h) as usize];
    for q in instances {
        let o = q.origin;
        let corners = [
            o,
            [o[0] + q.axis_x[0], o[1] + q.axis_x[1]],
            [o[0] + q.axis_x[0] + q.axis_y[0], o[1] + q.axis_x[1] + q.axis_y[1]],
            [o[0] + q.axis_y[0], o[1] + q.axis_y[1]],
        ];
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            let x0 = (a[0].min(b[0]) - 1.0).floor().max(0.0) as u32;
            let x1 = ((a[0].max(b[0]) + 1.0).ceil().max(0.0) as u32).min(w);
            let y0 = (a[1].min(b[1]) - 1.0).floor().max(0.0) as u32;
            let y1 = ((a[1].max(b[1]) + 1.0).ceil().max(0.0) as u32).min(h);
            let d = [b[0] - a[0], b[1] - a[1]];
            let len2 = (d[0] * d[0] + d[1] * d[1]).max(1e-12);
            for y in y0..y1 {
                for x in x0..x1 {
                    let p = [x as f32 + 0.5 - a[0], y as f32 + 0.5 - a[1]];
                    let t = ((p[0] * d[0] + p[1] * d[1]) / len2).clamp(0.0, 1.0);
                    let (ex, ey) = (p[0] - t * d[0], p[1] - t * d[1]);
                    if ex * ex + ey * ey <= margin * margin {
                        mask[(y * w + x) as usize] = true;
                    }
                }
            }
        }
    }
    mask
}
