//! The HUD scene of issue 18 (`layerbatch_testkit::hud`) in the page: its JSON for the PixiJS
//! page of the browser bench, the fonts it is set in (fetched from the site's `fonts/`, where
//! `scripts/web/build.sh` copies Debian's font files), and the bench entry that draws it for
//! a number of frames on one path.

use std::cell::RefCell;
use std::rc::Rc;

use layerbatch::{Batcher, Config, FramePlan};
use layerbatch_testkit::hud::draw::{font_system_from_bytes, HudDrawer, HudDrawn};
use layerbatch_testkit::hud::{self, HudScene};
use wasm_bindgen::JsCast;

use crate::device::{Backend, Device, OpenError};
use crate::util;

/// The font files, relative to the page: `scripts/web/build.sh` copies them there from
/// `/usr/share/fonts` (Debian's fonts-dejavu-core, fonts-droid-fallback and
/// fonts-noto-color-emoji; `scripts/install-fonts.sh`).
pub const FONT_FILES: [&str; 3] =
    ["fonts/DejaVuSans.ttf", "fonts/DroidSansFallbackFull.ttf", "fonts/NotoColorEmoji.ttf"];

thread_local! {
    /// The font files' bytes, fetched once per page.
    static FONTS: RefCell<Option<Rc<[Vec<u8>; 3]>>> = const { RefCell::new(None) };
}

/// The HUD scene for `seed` as JSON (the kit's serde form; texture pixels left out: the world
/// textures are `scene::texture_pixels(i, w, h)`, the panel `hud::panel_pixels()`).
pub fn scene_json(seed: u32) -> Result<String, String> {
    serde_json::to_string(&hud::scene(seed)).map_err(|e| e.to_string())
}

/// The bytes at `url` on the page's site; `missing` says where they come from when absent.
pub(crate) async fn fetch_bytes(url: &str, missing: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("fetch {url}: {e:?}"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| format!("fetch {url}: not a Response"))?;
    if !response.ok() {
        return Err(format!("fetch {url}: HTTP {} ({missing})", response.status()));
    }
    let buffer = response.array_buffer().map_err(|e| format!("fetch {url}: {e:?}"))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(buffer).await.map_err(|e| format!("fetch {url}: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The HUD's font files (Latin, CJK, emoji), fetched from the site the first time.
pub async fn font_files() -> Result<[Vec<u8>; 3], String> {
    let cached = FONTS.with(|f| f.borrow().clone());
    let files = match cached {
        Some(files) => files,
        None => {
            let mut got = Vec::new();
            for url in FONT_FILES {
                got.push(
                    fetch_bytes(
                        url,
                        "the site has no font files: scripts/web/build.sh copies them from /usr/share/fonts; \
                         scripts/install-fonts.sh installs them",
                    )
                    .await?,
                );
            }
            let files: [Vec<u8>; 3] = got.try_into().map_err(|_| "three font files".to_string())?;
            let files = Rc::new(files);
            FONTS.with(|f| *f.borrow_mut() = Some(files.clone()));
            files
        }
    };
    Ok((*files).clone())
}

/// A device, its batcher and the HUD drawer, ready to draw `scene`.
pub struct HudRig {
    pub dev: Device,
    pub batcher: Batcher,
    pub drawer: HudDrawer,
}

/// Why a rig could not be made.
pub enum RigError {
    /// The browser offers no such path.
    Unavailable(String),
    /// Anything else.
    Failed(String),
}

impl From<String> for RigError {
    fn from(e: String) -> Self {
        RigError::Failed(e)
    }
}

impl std::fmt::Display for RigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RigError::Unavailable(e) => write!(f, "unavailable: {e}"),
            RigError::Failed(e) => f.write_str(e),
        }
    }
}

impl HudRig {
    /// Opens `backend` on a canvas of the scene's size, with the default config, and
    /// registers `scene`'s textures and fonts.
    pub async fn open(backend: Backend, scene: &HudScene) -> Result<Self, RigError> {
        let fonts = font_system_from_bytes(font_files().await?);
        let mut dev = Device::open(backend, scene.size_px).await.map_err(|e| match e {
            OpenError::Unavailable(e) => RigError::Unavailable(e),
            OpenError::Failed(e) => RigError::Failed(e),
        })?;
        let mut batcher = Batcher::new(dev.limits(), Config::default()).map_err(|e| format!("budget: {e}"))?;
        dev.init(batcher.budget())?;
        let drawer = HudDrawer::new(&mut batcher, scene, fonts).map_err(|e| format!("HudDrawer::new: {e}"))?;
        Ok(Self { dev, batcher, drawer })
    }

    /// Records `scene` into a frame and draws it (waiting for the GPU); returns what the
    /// drawer pushed. The plan is then [`HudRig::plan`].
    pub async fn frame(&mut self, scene: &HudScene) -> Result<HudDrawn, String> {
        self.batcher.begin_frame();
        let drawn = self.drawer.draw(&mut self.batcher, scene).map_err(|e| format!("HudDrawer::draw: {e}"))?;
        let plan = self.batcher.finish();
        self.dev.draw(plan).await?;
        Ok(drawn)
    }

    /// Deletes the renderer's objects and lets the device and its canvas go.
    pub fn close(self) {
        self.dev.close();
    }

    /// The last frame's plan.
    pub fn plan(&self) -> &FramePlan {
        self.batcher.plan()
    }
}

/// The bench's options (JSON; any may be left out).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `gl`, `wgpu-webgl` or `wgpu-webgpu`.
    pub backend: String,
    /// The scene's seed.
    pub seed: u32,
    /// Frames drawn first and not measured.
    pub warmup: u64,
    /// Frames measured.
    pub frames: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self { backend: "gl".into(), seed: 7, warmup: 2, frames: 6 }
    }
}

/// What the bench reports (per measured frame unless said).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub backend: String,
    pub adapter: String,
    pub items: usize,
    pub frames: u64,
    pub warmup: u64,
    /// Draw calls core planned, per frame.
    pub draw_calls_per_frame: f64,
    /// Draw calls the renderer issued, per frame.
    pub device_draw_calls_per_frame: f64,
    /// The largest slot tier of any measured frame.
    pub max_slot_tier: u64,
    /// Quads and triangles of the last frame, and glyph quads among the quads.
    pub quads: u64,
    pub triangles: u64,
    pub glyphs: u64,
    /// Whether the last frame was drawn indexed.
    pub indexed: bool,
    /// Each measured frame, recording to the GPU being done, milliseconds.
    pub frame_ms: Vec<f64>,
    pub frame_ms_median: f64,
    pub frame_ms_p99: f64,
}

/// Draws the HUD scene `warmup + frames` times on `o.backend` (each frame recorded again, as
/// a game would, and timed from `begin_frame` to the GPU being done), then shows the last.
pub async fn run(o: &Options) -> Result<Report, String> {
    let backend = Backend::parse(&o.backend)?;
    if o.frames == 0 {
        return Err("frames must be at least 1".into());
    }
    let scene = hud::scene(o.seed);
    let mut rig = HudRig::open(backend, &scene).await.map_err(|e| format!("{}: {e}", backend.name()))?;
    let mut r = Report {
        backend: backend.name().into(),
        adapter: rig.dev.adapter().to_string(),
        items: scene.items.len(),
        frames: o.frames,
        warmup: o.warmup,
        ..Report::default()
    };
    let (mut planned, mut issued) = (0u64, 0u64);
    for n in 0..o.warmup + o.frames {
        let t0 = util::now_ms();
        let drawn = rig.frame(&scene).await.map_err(|e| format!("frame {}: {e}", n + 1))?;
        let ms = util::now_ms() - t0;
        let (counters, indexed) = (rig.plan().counters, rig.plan().indexed);
        let stats = rig.dev.stats();
        if n >= o.warmup {
            r.frame_ms.push(ms);
            planned += counters.draw_calls;
            issued += stats.device_frame.draw_calls;
            r.max_slot_tier = r.max_slot_tier.max(counters.max_slot_tier);
        }
        (r.quads, r.triangles, r.glyphs, r.indexed) = (counters.quads, counters.triangles, drawn.glyphs, indexed);
        util::sleep_ms(0).await;
    }
    r.draw_calls_per_frame = planned as f64 / o.frames as f64;
    r.device_draw_calls_per_frame = issued as f64 / o.frames as f64;
    let mut sorted = r.frame_ms.clone();
    sorted.sort_by(f64::total_cmp);
    r.frame_ms_median = median(&sorted);
    r.frame_ms_p99 = sorted[((0.99 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    if matches!(rig.dev, Device::Wgpu(_)) {
        // wgpu draws offscreen: show the last frame beside its canvas.
        let pixels = rig.dev.read().await?;
        util::show(&pixels, scene.size_px, &format!("{}: last frame", backend.name()))?;
    }
    // The canvas stays on the page (the bench's snapshot reads it); the renderer goes.
    if let Device::Gl(g) = &mut rig.dev {
        if let Some(r) = g.renderer.take() {
            r.destroy();
        }
    }
    Ok(r)
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}
