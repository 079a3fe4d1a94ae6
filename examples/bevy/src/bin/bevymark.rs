//! bevymark, headless, with a `--mode layerbatch` (and `drop-in`: Bevy's sprites drawn by layerbatch)
//! beside Bevy's `sprite` and `mesh2d`.
//!
//! Ported from Bevy 0.20.1's `examples/stress_tests/bevymark.rs` (Copyright the Bevy
//! contributors, MIT OR Apache-2.0). The birds, their textures, colours, z values and motion
//! come from the same seeded generators in the same order, so every mode draws the same
//! frames. What differs from upstream, for a machine without a display:
//! - no window: the camera renders into a `--width` x `--height` image target, and the
//!   birds bounce off its edges as off the window's;
//! - no mouse spawning and no on-screen counter text (`bevy_ui` and `bevy_text` are not
//!   built); the run prints its figures instead, after `--warmup` frames and `--frames`
//!   measured ones;
//! - the first texture is a generated 256x256 bird disc instead of `branding/icon.png`
//!   (Bevy's assets are not in the crate); the others are upstream's solid colours.
//!
//! `cargo run --release --bin bevymark -- --benchmark --waves 20 --per-wave 1000
//! --material-texture-count 64 --mode layerbatch`

use std::str::FromStr;
use std::time::{Duration, Instant};

use argh::FromArgs;
use bevy::asset::RenderAssetUsages;
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::sprite::SpriteAlphaMode;
use bevy::sprite_render::AlphaMode2d;
use bevy_layerbatch::headless::{self, target_image};
use bevy_layerbatch::{LayerbatchPlugin, LayerbatchSprite, LayerbatchStats, SpriteMode};
use chacha20::ChaCha8Rng;
use rand::{RngExt, SeedableRng, seq::IndexedRandom};

const GRAVITY: f32 = -9.8 * 100.0;
const MAX_VELOCITY: f32 = 750.;
const BIRD_SCALE: f32 = 0.15;
const BIRD_TEXTURE_SIZE: usize = 256;
const HALF_BIRD_SIZE: f32 = BIRD_TEXTURE_SIZE as f32 * BIRD_SCALE * 0.5;
const FIXED_TIMESTEP: f32 = 0.2;
const FIXED_DELTA_TIME: f32 = 1.0 / 60.0;

#[derive(FromArgs, Resource, Clone)]
/// `bevymark` sprite / 2D mesh / layerbatch stress test, headless
struct Args {
    /// sprite, mesh2d or layerbatch
    #[argh(option, default = "Mode::Sprite")]
    mode: Mode,
    /// step animations by a fixed amount so that each frame is the same across runs, and
    /// spawn every wave up front
    #[argh(switch)]
    benchmark: bool,
    /// how many birds to spawn per wave
    #[argh(option, default = "0")]
    per_wave: usize,
    /// the number of waves to spawn
    #[argh(option, default = "0")]
    waves: usize,
    /// whether to vary the material data in each instance
    #[argh(switch)]
    vary_per_instance: bool,
    /// the number of different textures from which to randomly select the material color. 0
    /// means no textures
    #[argh(option, default = "1")]
    material_texture_count: usize,
    /// generate z values in increasing order rather than randomly
    #[argh(switch)]
    ordered_z: bool,
    /// the alpha mode of the Bevy modes (layerbatch always blends)
    #[argh(option, default = "AlphaMode::Blend")]
    alpha_mode: AlphaMode,
    /// target width in pixels
    #[argh(option, default = "1920")]
    width: u32,
    /// target height in pixels
    #[argh(option, default = "1080")]
    height: u32,
    /// MSAA samples of the camera (Bevy's default: 4)
    #[argh(option, default = "4")]
    msaa: u32,
    /// frames rendered before measuring (pipelines, uploads)
    #[argh(option, default = "3")]
    warmup: usize,
    /// frames measured
    #[argh(option, default = "30")]
    frames: usize,
    /// print the figures as one JSON object
    #[argh(switch)]
    json: bool,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum Mode {
    #[default]
    Sprite,
    Mesh2d,
    Layerbatch,
    /// Bevy's `Sprite`s, as `sprite`, drawn by layerbatch's drop-in mode (`SpriteMode::All`).
    DropIn,
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sprite" => Ok(Self::Sprite),
            "mesh2d" => Ok(Self::Mesh2d),
            "layerbatch" => Ok(Self::Layerbatch),
            "drop-in" => Ok(Self::DropIn),
            _ => Err(format!("Unknown mode: '{s}', valid modes: 'sprite', 'mesh2d', 'layerbatch', 'drop-in'")),
        }
    }
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Self::Sprite => "sprite",
            Self::Mesh2d => "mesh2d",
            Self::Layerbatch => "layerbatch",
            Self::DropIn => "drop-in",
        }
    }
}

#[derive(Default, Clone)]
enum AlphaMode {
    Opaque,
    #[default]
    Blend,
    AlphaMask,
}

impl FromStr for AlphaMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "opaque" => Ok(Self::Opaque),
            "blend" => Ok(Self::Blend),
            "alpha_mask" => Ok(Self::AlphaMask),
            _ => Err(format!("Unknown alpha mode: '{s}', valid modes: 'opaque', 'blend', 'alpha_mask'")),
        }
    }
}

#[derive(Resource)]
struct BevyCounter {
    count: usize,
    color: Color,
}

#[derive(Component)]
struct Bird {
    velocity: Vec3,
}

/// The target's size: what upstream reads off the window.
#[derive(Resource, Clone, Copy)]
struct Extents(Vec2);

#[derive(Resource)]
struct BirdScheduled {
    waves: usize,
    per_wave: usize,
}

#[derive(Resource)]
struct BirdResources {
    textures: Vec<Handle<Image>>,
    materials: Vec<Handle<ColorMaterial>>,
    quad: Handle<Mesh>,
    color_rng: ChaCha8Rng,
    material_rng: ChaCha8Rng,
    velocity_rng: ChaCha8Rng,
    transform_rng: ChaCha8Rng,
}

fn main() -> AppExit {
    let args: Args = argh::from_env();
    let mut app = App::new();
    let sprites = if args.mode == Mode::DropIn { SpriteMode::All } else { SpriteMode::LayerbatchSprites };
    app.add_plugins((headless::default_plugins(true), LayerbatchPlugin { sprites, ..LayerbatchPlugin::default() }))
        .insert_resource(StaticTransformOptimizations::Disabled)
        .insert_resource(args.clone())
        .insert_resource(Extents(Vec2::new(args.width as f32, args.height as f32)))
        .insert_resource(BevyCounter { count: 0, color: Color::WHITE })
        .add_systems(Startup, setup)
        .add_systems(FixedUpdate, scheduled_spawner)
        .add_systems(Update, (movement_system, collision_system))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(FIXED_TIMESTEP)));
    headless::start(&mut app);
    let adapter = headless::adapter_name(&app);

    let mut times_ms = Vec::with_capacity(args.frames);
    let mut last = Instant::now();
    let mut stats = Vec::with_capacity(args.frames);
    for frame in 0..args.warmup + args.frames {
        app.update();
        let now = Instant::now();
        if frame >= args.warmup {
            times_ms.push(now.duration_since(last).as_secs_f64() * 1e3);
            stats.push(app.world().resource::<LayerbatchStats>().frame());
        }
        last = now;
    }
    report(&args, &adapter, app.world().resource::<BevyCounter>().count, &mut times_ms, &stats);
    AppExit::Success
}

/// Prints the median and p95 frame time and the draws of the measured frames.
fn report(
    args: &Args,
    adapter: &str,
    birds: usize,
    times_ms: &mut [f64],
    stats: &[bevy_layerbatch::LayerbatchFrameStats],
) {
    times_ms.sort_by(f64::total_cmp);
    let pick = |q: f64| times_ms.get(((times_ms.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f64::NAN);
    let (median, p95) = (pick(0.5), pick(0.95));
    // With pipelined rendering the stats read after a frame are the frame before's: the
    // last measured frames are steady, take the largest of them.
    let phase_draws = stats.iter().map(|s| s.phase_draws).max().unwrap_or(0);
    let lb_draws = stats.iter().map(|s| s.device_draw_calls).max().unwrap_or(0);
    let plans = stats.iter().map(|s| s.plans).max().unwrap_or(0);
    let tier = stats.iter().map(|s| s.counters.max_slot_tier).max().unwrap_or(0);
    let sprites = stats.iter().map(|s| s.sprites).max().unwrap_or(0);
    let mode = args.mode.name();
    let (w, h, textures, frames) = (args.width, args.height, args.material_texture_count, times_ms.len());
    if args.json {
        println!(
            "{{\"adapter\":{adapter:?},\"mode\":\"{mode}\",\"birds\":{birds},\"textures\":{textures},\"width\":{w},\"height\":{h},\"msaa\":{},\"frames\":{frames},\"warmup\":{},\"median_ms\":{median:.2},\"p95_ms\":{p95:.2},\"phase_draws\":{phase_draws},\"layerbatch_draw_calls\":{lb_draws},\"layerbatch_plans\":{plans},\"layerbatch_sprites\":{sprites},\"max_slot_tier\":{tier}}}",
            args.msaa, args.warmup
        );
    } else {
        println!(
            "bevymark {mode} on {adapter}: {birds} birds, {textures} textures, {w}x{h}, {frames} frames: median {median:.2} ms, p95 {p95:.2} ms; {phase_draws} draws in the Transparent2d phase, layerbatch: {lb_draws} draw calls, {plans} plans, slot tier {tier}"
        );
    }
}

fn scheduled_spawner(
    mut commands: Commands,
    args: Res<Args>,
    extents: Res<Extents>,
    mut scheduled: ResMut<BirdScheduled>,
    mut counter: ResMut<BevyCounter>,
    bird_resources: ResMut<BirdResources>,
) {
    if scheduled.waves > 0 {
        let bird_resources = bird_resources.into_inner();
        spawn_birds(
            &mut commands,
            &args,
            extents.0,
            &mut counter,
            scheduled.per_wave,
            bird_resources,
            None,
            scheduled.waves - 1,
        );
        scheduled.waves -= 1;
    }
}

#[allow(clippy::too_many_arguments)]
fn setup(
    mut commands: Commands,
    args: Res<Args>,
    extents: Res<Extents>,
    mut meshes: ResMut<Assets<Mesh>>,
    material_assets: ResMut<Assets<ColorMaterial>>,
    images: ResMut<Assets<Image>>,
    counter: ResMut<BevyCounter>,
) {
    let args = args.into_inner();
    let images = images.into_inner();

    let mut textures = Vec::with_capacity(args.material_texture_count.max(1));
    if matches!(args.mode, Mode::Sprite | Mode::Layerbatch | Mode::DropIn) || args.material_texture_count > 0 {
        textures.push(images.add(bird_disc()));
    }
    init_textures(&mut textures, args, images);

    let material_assets = material_assets.into_inner();
    let materials = init_materials(args, &textures, material_assets);

    let mut bird_resources = BirdResources {
        textures,
        materials,
        quad: meshes.add(Rectangle::from_size(Vec2::splat(BIRD_TEXTURE_SIZE as f32))),
        color_rng: ChaCha8Rng::seed_from_u64(100),
        material_rng: ChaCha8Rng::seed_from_u64(200),
        velocity_rng: ChaCha8Rng::seed_from_u64(300),
        transform_rng: ChaCha8Rng::seed_from_u64(400),
    };

    let target = images.add(target_image(args.width, args.height));
    commands.spawn((Camera2d, RenderTarget::Image(target.into()), Msaa::from_samples(args.msaa)));

    let mut scheduled = BirdScheduled { per_wave: args.per_wave, waves: args.waves };
    if args.benchmark {
        let counter = counter.into_inner();
        for wave in (0..scheduled.waves).rev() {
            spawn_birds(
                &mut commands,
                args,
                extents.0,
                counter,
                scheduled.per_wave,
                &mut bird_resources,
                Some(wave),
                wave,
            );
        }
        scheduled.waves = 0;
    }
    commands.insert_resource(bird_resources);
    commands.insert_resource(scheduled);
}

/// The stand-in for `branding/icon.png`: a white disc with a one-pixel soft edge on a clear
/// 256x256 image, sRGB like a loaded PNG.
fn bird_disc() -> Image {
    let n = BIRD_TEXTURE_SIZE;
    let mut data = Vec::with_capacity(n * n * 4);
    for y in 0..n {
        for x in 0..n {
            let d = Vec2::new(x as f32 + 0.5, y as f32 + 0.5).distance(Vec2::splat(n as f32 / 2.0));
            let alpha = (n as f32 * 0.47 - d + 0.5).clamp(0.0, 1.0);
            data.extend_from_slice(&[255, 255, 255, (alpha * 255.0).round() as u8]);
        }
    }
    let size = Extent3d { width: n as u32, height: n as u32, depth_or_array_layers: 1 };
    Image::new(size, TextureDimension::D2, data, TextureFormat::Rgba8UnormSrgb, RenderAssetUsages::default())
}

fn bird_velocity_transform(
    half_extents: Vec2,
    mut translation: Vec3,
    velocity_rng: &mut ChaCha8Rng,
    waves: Option<usize>,
    dt: f32,
) -> (Transform, Vec3) {
    let mut velocity = Vec3::new(MAX_VELOCITY * (velocity_rng.random::<f32>() - 0.5), 0., 0.);
    if let Some(waves) = waves {
        // Step the movement and handle collisions as if the wave had been spawned at fixed time
        // intervals and with dt-spaced frames of simulation.
        for _ in 0..(waves * (FIXED_TIMESTEP / dt).round() as usize) {
            step_movement(&mut translation, &mut velocity, dt);
            handle_collision(half_extents, &translation, &mut velocity);
        }
    }
    (Transform::from_translation(translation).with_scale(Vec3::splat(BIRD_SCALE)), velocity)
}

#[allow(clippy::too_many_arguments)]
fn spawn_birds(
    commands: &mut Commands,
    args: &Args,
    extents: Vec2,
    counter: &mut BevyCounter,
    spawn_count: usize,
    bird_resources: &mut BirdResources,
    waves_to_simulate: Option<usize>,
    wave: usize,
) {
    let bird_x = (extents.x / -2.) + HALF_BIRD_SIZE;
    let bird_y = (extents.y / 2.) - HALF_BIRD_SIZE;
    let half_extents = 0.5 * extents;
    let color = counter.color;
    let current_count = counter.count;

    match args.mode {
        Mode::Sprite | Mode::Layerbatch | Mode::DropIn => {
            let alpha_mode = match args.alpha_mode {
                AlphaMode::Opaque => SpriteAlphaMode::Opaque,
                AlphaMode::Blend => SpriteAlphaMode::Blend,
                AlphaMode::AlphaMask => SpriteAlphaMode::Mask(0.5),
            };
            for count in 0..spawn_count {
                let bird_z = if args.ordered_z {
                    (current_count + count) as f32 * 0.00001
                } else {
                    bird_resources.transform_rng.random::<f32>()
                };
                let (transform, velocity) = bird_velocity_transform(
                    half_extents,
                    Vec3::new(bird_x, bird_y, bird_z),
                    &mut bird_resources.velocity_rng,
                    waves_to_simulate,
                    FIXED_DELTA_TIME,
                );
                let color = if args.vary_per_instance {
                    Color::linear_rgb(
                        bird_resources.color_rng.random(),
                        bird_resources.color_rng.random(),
                        bird_resources.color_rng.random(),
                    )
                } else {
                    color
                };
                let image = bird_resources.textures.choose(&mut bird_resources.material_rng).unwrap().clone();
                if args.mode == Mode::Layerbatch {
                    commands.spawn((
                        LayerbatchSprite::from_image(image).with_color(color),
                        transform,
                        Bird { velocity },
                    ));
                } else {
                    commands.spawn((Sprite { image, color, alpha_mode, ..default() }, transform, Bird { velocity }));
                }
            }
        }
        Mode::Mesh2d => {
            for count in 0..spawn_count {
                let bird_z = if args.ordered_z {
                    (current_count + count) as f32 * 0.00001
                } else {
                    bird_resources.transform_rng.random::<f32>()
                };
                let (transform, velocity) = bird_velocity_transform(
                    half_extents,
                    Vec3::new(bird_x, bird_y, bird_z),
                    &mut bird_resources.velocity_rng,
                    waves_to_simulate,
                    FIXED_DELTA_TIME,
                );
                let material = if args.vary_per_instance || args.material_texture_count > args.waves {
                    bird_resources.materials.choose(&mut bird_resources.material_rng).unwrap().clone()
                } else {
                    bird_resources.materials[wave % bird_resources.materials.len()].clone()
                };
                commands.spawn((
                    Mesh2d(bird_resources.quad.clone()),
                    MeshMaterial2d(material),
                    transform,
                    Bird { velocity },
                ));
            }
        }
    }

    counter.count += spawn_count;
    counter.color = Color::linear_rgb(
        bird_resources.color_rng.random(),
        bird_resources.color_rng.random(),
        bird_resources.color_rng.random(),
    );
}

fn step_movement(translation: &mut Vec3, velocity: &mut Vec3, dt: f32) {
    translation.x += velocity.x * dt;
    translation.y += velocity.y * dt;
    velocity.y += GRAVITY * dt;
}

fn movement_system(args: Res<Args>, time: Res<Time>, mut bird_query: Query<(&mut Bird, &mut Transform)>) {
    let dt = if args.benchmark { FIXED_DELTA_TIME } else { time.delta_secs() };
    for (mut bird, mut transform) in &mut bird_query {
        step_movement(&mut transform.translation, &mut bird.velocity, dt);
    }
}

fn handle_collision(half_extents: Vec2, translation: &Vec3, velocity: &mut Vec3) {
    if (velocity.x > 0. && translation.x + HALF_BIRD_SIZE > half_extents.x)
        || (velocity.x <= 0. && translation.x - HALF_BIRD_SIZE < -half_extents.x)
    {
        velocity.x = -velocity.x;
    }
    let velocity_y = velocity.y;
    if velocity_y < 0. && translation.y - HALF_BIRD_SIZE < -half_extents.y {
        velocity.y = -velocity_y;
    }
    if translation.y + HALF_BIRD_SIZE > half_extents.y && velocity_y > 0.0 {
        velocity.y = 0.0;
    }
}

fn collision_system(extents: Res<Extents>, mut bird_query: Query<(&mut Bird, &Transform)>) {
    let half_extents = 0.5 * extents.0;
    for (mut bird, transform) in &mut bird_query {
        handle_collision(half_extents, &transform.translation, &mut bird.velocity);
    }
}

fn init_textures(textures: &mut Vec<Handle<Image>>, args: &Args, images: &mut Assets<Image>) {
    // Seeded, so that the example is deterministic (upstream's seed).
    let mut color_rng = ChaCha8Rng::seed_from_u64(600);
    while textures.len() < args.material_texture_count {
        let pixel = [color_rng.random(), color_rng.random(), color_rng.random(), 255];
        textures.push(images.add(Image::new_fill(
            Extent3d { width: BIRD_TEXTURE_SIZE as u32, height: BIRD_TEXTURE_SIZE as u32, depth_or_array_layers: 1 },
            TextureDimension::D2,
            &pixel,
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::RENDER_WORLD,
        )));
    }
}

fn init_materials(
    args: &Args,
    textures: &[Handle<Image>],
    assets: &mut Assets<ColorMaterial>,
) -> Vec<Handle<ColorMaterial>> {
    let capacity =
        if args.vary_per_instance { args.per_wave * args.waves } else { args.material_texture_count.max(args.waves) }
            .max(1);
    let alpha_mode = match args.alpha_mode {
        AlphaMode::Opaque => AlphaMode2d::Opaque,
        AlphaMode::Blend => AlphaMode2d::Blend,
        AlphaMode::AlphaMask => AlphaMode2d::Mask(0.5),
    };
    let mut materials = Vec::with_capacity(capacity);
    materials.push(assets.add(ColorMaterial {
        color: Color::WHITE,
        texture: textures.first().cloned(),
        alpha_mode,
        ..default()
    }));
    let mut color_rng = ChaCha8Rng::seed_from_u64(700);
    let mut texture_rng = ChaCha8Rng::seed_from_u64(800);
    materials.extend(
        std::iter::repeat_with(|| {
            assets.add(ColorMaterial {
                color: Color::srgb_u8(color_rng.random(), color_rng.random(), color_rng.random()),
                texture: textures.choose(&mut texture_rng).cloned(),
                alpha_mode,
                ..default()
            })
        })
        .take(capacity - materials.len()),
    );
    materials
}
