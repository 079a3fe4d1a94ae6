//! The headless capture: cameras into an image, a fixed time step, scripted input, the frames
//! read back and written with what each frame cost and drew.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bevy::app::AppExit;
use bevy::asset::{LoadState, RecursiveDependencyLoadState};
use bevy::camera::{CameraUpdateSystems, RenderTarget};
use bevy::core_pipeline::core_2d::Transparent2d;
use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::render::render_phase::ViewSortedRenderPhases;
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::time::TimeUpdateStrategy;
use bevy::window::PrimaryWindow;
use bevy_layerbatch::LayerbatchStats;
use bevy_layerbatch::headless::{self, read_image, target_image};

/// The child's configuration, from the environment:
/// - `LBT_EXAMPLE`: the example's name (picks its input script);
/// - `LBT_OUT`: the folder the frames (`frame-N.png`) and `frames.txt` are written to;
/// - `LBT_FRAMES`: frames run after the assets settle (default 60);
/// - `LBT_CAPTURE`: the frames read back, comma-separated (default: the last);
/// - `LBT_SETTLE`: frames run with time stopped first, for the assets to load (default 30;
///   fewer for a measurement whose frames take seconds);
/// - `BEVY_ASSET_ROOT`: the folder holding `assets/` (Bevy's own variable).
#[derive(Clone, Debug, Resource)]
pub struct Config {
    pub example: String,
    pub out: PathBuf,
    pub frames: u32,
    pub capture: Vec<u32>,
    pub settle: u32,
    pub asset_root: Option<PathBuf>,
}

impl Config {
    fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        let frames = var("LBT_FRAMES").and_then(|f| f.parse().ok()).unwrap_or(60);
        let capture = var("LBT_CAPTURE")
            .map(|c| c.split(',').filter_map(|f| f.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![frames]);
        Self {
            example: var("LBT_EXAMPLE").unwrap_or_default(),
            out: var("LBT_OUT").map_or_else(std::env::temp_dir, PathBuf::from),
            frames,
            capture,
            settle: var("LBT_SETTLE").and_then(|f| f.parse().ok()).unwrap_or(SETTLE_FRAMES),
            asset_root: var("BEVY_ASSET_ROOT").map(PathBuf::from),
        }
    }
}

/// Frames run with time stopped before the counted frames, so every asset an example loads
/// at start is in before its first counted frame, whatever the disk did (a fixed count: both
/// runs of an example step the same frames).
const SETTLE_FRAMES: u32 = 30;
/// The fixed time step of the counted frames.
const STEP: Duration = Duration::from_nanos(16_666_667);

/// The plugin [`crate::DefaultPlugins`] adds: see the module.
pub struct Capture(Config);

impl Capture {
    /// Configured from the environment (see [`Config`]).
    pub fn from_env() -> Self {
        Self(Config::from_env())
    }
}

/// The frame being run: 0 while settling, then 1, 2, ...
#[derive(Resource, Default, Clone, Copy)]
pub(crate) struct FrameNumber(pub(crate) u32);

/// The image every window camera renders into.
#[derive(Resource, Default)]
struct Target(Option<Handle<Image>>);

/// `Transparent2d` draws of the frame, counted in the render world.
#[derive(Resource, Clone, Default)]
struct PhaseDraws(Arc<AtomicU64>);

impl Plugin for Capture {
    fn build(&self, app: &mut App) {
        let draws = PhaseDraws::default();
        app.insert_resource(self.0.clone())
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO))
            .insert_resource(draws.clone())
            .init_resource::<FrameNumber>()
            .init_resource::<Target>()
            .add_systems(PreUpdate, crate::script::play.after(InputSystems))
            .add_systems(PostUpdate, retarget_cameras.before(CameraUpdateSystems))
            .set_runner(run);
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app
                .insert_resource(draws)
                .add_systems(Render, count_draws.after(RenderSystems::PrepareBindGroups).before(RenderSystems::Render));
        }
    }
}

/// Every camera rendering into a window renders into the capture image instead, which has
/// the primary window's physical size.
fn retarget_cameras(
    mut target: ResMut<'_, Target>,
    mut images: ResMut<'_, Assets<Image>>,
    window: Query<'_, '_, &Window, With<PrimaryWindow>>,
    mut cameras: Query<'_, '_, &mut RenderTarget, With<Camera>>,
) {
    for mut camera_target in &mut cameras {
        if !matches!(*camera_target, RenderTarget::Window(_)) {
            continue;
        }
        let handle = target.0.get_or_insert_with(|| {
            let size = window.single().map_or(UVec2::new(1280, 720), Window::physical_size);
            images.add(target_image(size.x, size.y))
        });
        *camera_target = RenderTarget::Image(handle.clone().into());
    }
}

/// The frame's `Transparent2d` draws, as Bevy's `render_range` makes them.
fn count_draws(draws: Res<'_, PhaseDraws>, phases: Res<'_, ViewSortedRenderPhases<Transparent2d>>) {
    draws.0.store(headless::transparent_2d_draws(&phases), Ordering::Relaxed);
}

/// One counted frame, as `frames.txt` holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameRecord {
    pub frame: u32,
    /// `App::update` (simulation, extraction, rendering, submission), milliseconds.
    pub update_ms: f64,
    /// `Transparent2d` draws (sprites, text, blended meshes; each batch one draw).
    pub phase_draws: u64,
    /// Draw calls layerbatch issued (0 under Bevy's renderer).
    pub layerbatch_draws: u64,
    /// Sprites layerbatch drew, and Bevy sprites it left to Bevy (drop-in).
    pub layerbatch_sprites: u64,
    pub left_to_bevy: u64,
}

/// Reads `frames.txt` as [`run`] writes it.
pub fn read_records(path: &Path) -> std::io::Result<Vec<FrameRecord>> {
    let text = std::fs::read_to_string(path)?;
    let records = text
        .lines()
        .filter_map(|line| {
            let v: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| v.get(i).and_then(|s| s.parse::<f64>().ok());
            Some(FrameRecord {
                frame: num(0)? as u32,
                update_ms: num(1)?,
                phase_draws: num(2)? as u64,
                layerbatch_draws: num(3)? as u64,
                layerbatch_sprites: num(4)? as u64,
                left_to_bevy: num(5)? as u64,
            })
        })
        .collect();
    Ok(records)
}

/// The runner: start the plugins, settle, run the counted frames, write what was asked.
fn run(mut app: App) -> AppExit {
    // The examples drop what `App::run` returns: a failed capture ends the process itself.
    if let Err(e) = run_frames(&mut app) {
        eprintln!("bevy-example: {e}");
        std::process::exit(1);
    }
    AppExit::Success
}

fn run_frames(app: &mut App) -> Result<(), String> {
    headless::start(app);
    let config = app.world().resource::<Config>().clone();
    std::fs::create_dir_all(&config.out).map_err(|e| format!("{}: {e}", config.out.display()))?;
    for _ in 0..config.settle {
        app.update();
        std::thread::sleep(Duration::from_millis(20));
    }
    assets_settled(app, &config)?;
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    let mut log = format!("# frame update_ms phase_draws layerbatch_draws layerbatch_sprites left_to_bevy ({})\n", {
        headless::adapter_name(app)
    });
    for frame in 1..=config.frames {
        app.insert_resource(FrameNumber(frame));
        let started = Instant::now();
        app.update();
        let update_ms = started.elapsed().as_secs_f64() * 1e3;
        if let Some(exit) = app.should_exit() {
            return Err(format!("the example exited at frame {frame}: {exit:?}"));
        }
        let draws = app.world().resource::<PhaseDraws>().0.load(Ordering::Relaxed);
        let lb = app.world().get_resource::<LayerbatchStats>().map(LayerbatchStats::frame).unwrap_or_default();
        writeln!(
            log,
            "{frame} {update_ms:.3} {draws} {} {} {}",
            lb.device_draw_calls, lb.sprites, lb.sprites_left_to_bevy
        )
        .unwrap();
        if config.capture.contains(&frame) {
            let handle = app.world().resource::<Target>().0.clone().ok_or("no camera rendered into the window")?;
            let (size, pixels) = read_image(app, &handle).ok_or("the capture image is not on the GPU")?;
            let path = config.out.join(format!("frame-{frame}.png"));
            image::save_buffer(&path, &pixels, size.x, size.y, image::ExtendedColorType::Rgba8)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let path = config.out.join("frames.txt");
    std::fs::write(&path, log).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every file under the asset folder an example asked for is loaded (with what it needs),
/// and none failed: otherwise the runs would not compare the same game.
fn assets_settled(app: &App, config: &Config) -> Result<(), String> {
    let Some(root) = &config.asset_root else { return Ok(()) };
    let assets = root.join("assets");
    let server = app.world().resource::<AssetServer>();
    let mut pending = vec![assets.clone()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(&assets).map_err(|e| e.to_string())?.to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                pending.push(path.clone());
            }
            let Some(handle) = server.get_handle_untyped(bevy::asset::AssetPath::from(relative.clone())) else {
                continue;
            };
            match (server.load_state(handle.id()), server.recursive_dependency_load_state(handle.id())) {
                (LoadState::Loaded, RecursiveDependencyLoadState::Loaded) => {}
                (LoadState::Failed(e), _) => return Err(format!("{relative} failed to load: {e}")),
                (state, deps) => {
                    return Err(format!("{relative} not in after {} frames: {state:?}, {deps:?}", config.settle));
                }
            }
        }
    }
    Ok(())
}
