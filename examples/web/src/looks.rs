//! The looks scene of issue 29 ([`layerbatch_testkit::looks`]) as a browser bench: its JSON
//! for the PixiJS page (sprites, texture pixels and the GLSL naga makes of each effect, which that page
//! runs as one PixiJS filter per sprite), and `run`, which draws it on one layerbatch path
//! with 8 lights, timed per frame.

use layerbatch::Batcher;
use layerbatch_testkit::looks;

use crate::device::{Backend, Device};
use crate::util;

/// The scene as JSON: `size_px`, `tex_px`, `time_s`, `sprites` (in push order; the y-sort is
/// by the bottom edge, stable), `textures` (RGBA8 premultiplied, one array each) and
/// `effects` (`name`, `glsl`: the effect's `lb_effect` function, ids from 1) and `ramp` (the rows written: `row`, `colors`,
/// straight RGBA8).
pub fn scene_json() -> Result<String, String> {
    let textures: Vec<Vec<u8>> = (0..looks::TEXTURES)
        .map(|t| (0..looks::TEX * looks::TEX).flat_map(|i| looks::texel(t, i % looks::TEX, i / looks::TEX)).collect())
        .collect();
    // The GLSL function naga makes of each effect's WGSL, as layerbatch-gl runs it.
    let mut effects = Vec::new();
    for e in &looks::EFFECTS {
        let glsl = layerbatch_gl::effect_glsl(e).map_err(|e| e.to_string())?;
        effects.push(serde_json::json!({ "name": e.name, "glsl": glsl }));
    }
    let ramp: Vec<_> = looks::RAMP_ROWS
        .iter()
        .map(|&row| {
            let colors: Vec<[u8; 4]> = (0..layerbatch::RAMP_WIDTH_PX).map(|k| looks::ramp_color(row, k)).collect();
            serde_json::json!({ "row": row, "colors": colors })
        })
        .collect();
    let scene = serde_json::json!({
        "size_px": looks::SIZE,
        "tex_px": looks::TEX,
        "time_s": looks::TIME_S,
        "sprites": looks::sprites(),
        "textures": textures,
        "effects": effects,
        "ramp": ramp,
    });
    serde_json::to_string(&scene).map_err(|e| e.to_string())
}

/// The bench's options (JSON; any may be left out).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `gl`, `wgpu-webgl` or `wgpu-webgpu`.
    pub backend: String,
    /// Frames drawn first and not measured.
    pub warmup: u64,
    /// Frames measured.
    pub frames: u64,
    /// Lights a frame adds (the cap is 8).
    pub lights: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self { backend: "gl".into(), warmup: 2, frames: 6, lights: 8 }
    }
}

/// What the bench reports (per measured frame unless said).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub backend: String,
    pub adapter: String,
    pub sprites: usize,
    pub frames: u64,
    pub warmup: u64,
    /// Draw calls core planned, and the renderer issued, per frame.
    pub draw_calls_per_frame: f64,
    pub device_draw_calls_per_frame: f64,
    /// The largest slot tier of any measured frame.
    pub max_slot_tier: u64,
    /// Programs or pipelines compiled after creation, over every frame.
    pub compiles_after_creation: u64,
    /// Lights drawn, and dropped by the cap, in the last frame.
    pub lights: u64,
    pub lights_dropped: u64,
    /// Each measured frame, recording to the GPU being done, milliseconds.
    pub frame_ms: Vec<f64>,
}

/// Draws the scene `warmup + frames` times on `o.backend` (each frame recorded again and
/// timed from `begin_frame` to the GPU being done), then shows the last.
pub async fn run(o: &Options) -> Result<Report, String> {
    let backend = Backend::parse(&o.backend)?;
    if o.frames == 0 {
        return Err("frames must be at least 1".into());
    }
    let mut dev = Device::open(backend, looks::SIZE).await.map_err(|e| format!("{}: {e}", backend.name()))?;
    let mut b = Batcher::new(dev.limits(), looks::config()).map_err(|e| format!("budget: {e}"))?;
    dev.init(b.budget())?;
    let compiles = dev.stats().device_total.pipeline_compiles;
    let (ids, white) = looks::register(&mut b)?;
    let mut r = Report {
        backend: backend.name().into(),
        adapter: dev.adapter().to_string(),
        sprites: looks::sprites().len(),
        frames: o.frames,
        warmup: o.warmup,
        ..Report::default()
    };
    let (mut planned, mut issued) = (0u64, 0u64);
    for n in 0..o.warmup + o.frames {
        let t0 = util::now_ms();
        looks::record(&mut b, &ids, white, o.lights)?;
        let plan = b.finish();
        dev.draw(plan).await.map_err(|e| format!("frame {}: {e}", n + 1))?;
        let ms = util::now_ms() - t0;
        let stats = dev.stats();
        if n >= o.warmup {
            r.frame_ms.push(ms);
            planned += plan.counters.draw_calls;
            issued += stats.device_frame.draw_calls;
            r.max_slot_tier = r.max_slot_tier.max(plan.counters.max_slot_tier);
        }
        (r.lights, r.lights_dropped) = (plan.counters.lights, plan.counters.lights_dropped);
        util::sleep_ms(0).await;
    }
    r.compiles_after_creation = dev.stats().device_total.pipeline_compiles - compiles;
    r.draw_calls_per_frame = planned as f64 / o.frames as f64;
    r.device_draw_calls_per_frame = issued as f64 / o.frames as f64;
    if matches!(dev, Device::Wgpu(_)) {
        // wgpu draws offscreen: show the last frame beside its canvas.
        let pixels = dev.read().await?;
        util::show(&pixels, looks::SIZE, &format!("{}: last frame", backend.name()))?;
    }
    Ok(r)
}
