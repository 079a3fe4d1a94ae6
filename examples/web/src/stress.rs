//! The stress scene of `examples/stress` in the page: same scene, same flags, same counters
//! and the same JSON summary (`layerbatch_testkit::report`).

use layerbatch::{Batcher, Config, ResidentStyle, MAX_SLOTS_PER_DRAW};
use layerbatch_testkit::report::{Mode, Recorder, Report, RunInfo, DEFAULT_WARMUP};
use layerbatch_testkit::scene::{self, Scene, SceneOptions, Sizes};

use crate::device::{Backend, Device};
use crate::util;

/// The viewport, as natively.
pub const SIZE: [u32; 2] = [800, 600];
/// Scene time per frame: fixed, so every backend draws the same frames.
const FIXED_DT: f32 = 1.0 / 60.0;

/// The native stress's flags that apply in a page (`--backend`, `--sprites`, `--static`,
/// `--textures`, `--sizes`, `--slots`, `--arrays`, `--quads`, `--warmup`, `--frames`,
/// `--seconds`), with its defaults, and `moving`.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub backend: String,
    pub sprites: usize,
    /// Of `sprites`, those that stand still, in a resident layer drawn by one item a frame.
    #[serde(rename = "static")]
    pub statics: usize,
    /// Every sprite in one moving layer (`TextureStore::create_moving`): each frame the scene
    /// steps and writes each sprite's motion in place (`motions_mut`, 16 bytes a sprite), and
    /// the frame draws the layer, nothing pushed. Default `false`; excludes `static`.
    pub moving: bool,
    /// `Config::budget_bytes` in MiB (default the config's 256): a large resident layer of
    /// indexed quads (256 bytes a quad) needs more.
    pub budget_mib: Option<u64>,
    pub textures: usize,
    pub sizes: String,
    pub slots: u32,
    pub arrays: bool,
    /// `auto`, `instanced` or `indexed`.
    pub quads: String,
    /// Frames drawn first and not measured.
    pub warmup: u64,
    /// Frames measured after the warm-up, exactly; `None`: what fits in `seconds`.
    pub frames: Option<u64>,
    pub seconds: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            backend: "gl".into(),
            sprites: 20_000,
            statics: 0,
            moving: false,
            budget_mib: None,
            textures: 64,
            sizes: "pow2".into(),
            slots: 16,
            arrays: true,
            quads: "auto".into(),
            warmup: DEFAULT_WARMUP,
            frames: None,
            seconds: 3.0,
        }
    }
}

/// Runs the scene: `warmup` frames, then `frames` frames, or as many as fit in `seconds` (at
/// least 1), each timed from recording to the GPU being done with it, then shows the last
/// frame. The report's figures are over the frames after the warm-up.
pub async fn run(o: &Options) -> Result<Report, String> {
    let backend = Backend::parse(&o.backend)?;
    let sizes = match o.sizes.as_str() {
        "pow2" => Sizes::Pow2,
        "mixed" => Sizes::Mixed,
        "uniform" => Sizes::Uniform,
        other => return Err(format!("sizes must be pow2, mixed or uniform, not {other:?}")),
    };
    if !(1..=MAX_SLOTS_PER_DRAW).contains(&o.slots) {
        return Err(format!("slots must be from 1 to {MAX_SLOTS_PER_DRAW}, not {}", o.slots));
    }
    if o.textures == 0 {
        return Err("textures must be at least 1".into());
    }
    let mut dev = Device::open(backend, SIZE).await.map_err(|e| format!("{}: {e}", backend.name()))?;
    let quads = scene::parse_quads(&o.quads)?;
    let mut config = Config::default().with_max_slots(o.slots).with_arrays_enabled(o.arrays).with_quad_vertices(quads);
    if let Some(mib) = o.budget_mib {
        config = config.with_budget_bytes(mib.saturating_mul(1 << 20));
    }
    let mut batcher = Batcher::new(dev.limits(), config).map_err(|e| format!("config: {e}"))?;
    dev.init(batcher.budget())?;
    let scene_options =
        SceneOptions { sprites: o.sprites, textures: o.textures, viewport_px: SIZE, sizes, ..SceneOptions::default() };
    let mut scene = Scene::new(&mut batcher, scene_options).map_err(|e| format!("textures: {e}"))?;
    if o.moving && o.statics > 0 {
        return Err("moving and static exclude each other".into());
    }
    let statics = scene.take_sprites(o.statics);
    let layer = match statics.is_empty() {
        true => None,
        false => Some(batcher.textures().create_resident(&statics).map_err(|e| format!("static: {e}"))?),
    };
    drop(statics);
    let moving = match o.moving {
        true => Some(batcher.textures().create_moving(&scene.moving_quads()).map_err(|e| format!("moving: {e}"))?),
        false => None,
    };
    let mut recorder = Recorder::new(o.warmup, dev.stats());
    // The measuring time starts after the warm-up.
    let mut measuring_since = None;
    loop {
        if measuring_since.is_none() && !recorder.in_warmup() {
            measuring_since = Some(util::now_ms());
        }
        let done = match (o.frames, measuring_since) {
            (Some(n), _) => recorder.measured_frames() >= n,
            (None, Some(start)) => recorder.measured_frames() >= 1 && util::now_ms() - start >= o.seconds * 1e3,
            (None, None) => false,
        };
        if done {
            break;
        }
        let t0 = util::now_ms();
        scene.step(FIXED_DT);
        if let Some(layer) = moving {
            let all = 0..o.sprites as u32;
            scene.motions(batcher.textures().motions_mut(layer, all).map_err(|e| e.to_string())?);
        }
        batcher.begin_frame();
        for layer in layer.iter().chain(&moving) {
            batcher.draw_resident(*layer, &ResidentStyle::default()).map_err(|e| e.to_string())?;
        }
        if moving.is_none() {
            scene.push(&mut batcher);
        }
        let plan = batcher.finish();
        dev.draw(plan).await.map_err(|e| format!("frame {}: {e}", recorder.frames + 1))?;
        recorder.record(util::now_ms() - t0, dev.stats());
        // Let the page breathe between frames (outside the timing).
        util::sleep_ms(0).await;
    }
    if matches!(dev, Device::Wgpu(_)) {
        // wgpu draws offscreen: show the last frame beside its canvas.
        let pixels = dev.read().await?;
        util::show(&pixels, SIZE, &format!("{}: last frame", backend.name()))?;
    }
    let run = RunInfo {
        sprites: o.sprites,
        textures: o.textures,
        sizes,
        slots: o.slots,
        arrays: o.arrays,
        viewport_px: SIZE,
    };
    let mut report =
        Report::from_run(&run, Mode::Browser, backend.name(), dev.adapter().to_string(), batcher.budget(), &recorder);
    report.texel_bytes = scene.texel_bytes();
    report.arrays_alive = batcher.allocator().array_count();
    if let Device::Gl(g) = &mut dev {
        if let Some(r) = g.renderer.take() {
            r.destroy();
        }
    }
    Ok(report)
}
