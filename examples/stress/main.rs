//! The stress example: a bunnymark drawn from many textures, with the counters that show whether
//! the batcher held up.
//!
//! ```text
//! cargo run --release --example stress -- [FLAGS]
//! ```
//!
//! Many sprites move every frame, drawn from 17 or more textures in 4 sizes (one texture array
//! class each) and submitted interleaved in z, so consecutive quads use different textures: the
//! case where a plain 16-slot ladder flushes over and over. With texture arrays on, the whole
//! frame is one draw call.
//!
//! With a display (`DISPLAY` or `WAYLAND_DISPLAY` set) and without `--headless`, it opens a
//! window (GL through glutin, or wgpu on a surface) with live figures in its title: fps, and per
//! frame draw calls, flushes and slot binds, and cache resets. Close it (or press Escape) to
//! stop. Without a display, when no window or context can be made, or with `--headless`, it
//! renders offscreen on whatever device there is (Mesa's llvmpipe / lavapipe included) and saves
//! the last frame as a PNG.
//!
//! At exit it prints a summary table; with `--json`, the last line of stdout is one JSON object
//! with the same figures. The first `--warmup` frames (the first uploads every texture) are
//! not measured: per-frame figures and frame times (median, p95, p99, mean, min, max; see
//! `layerbatch_testkit::stats`) are over the frames after them.
//!
//! Offscreen, a frame is also timed by phase (`layerbatch_testkit::phases`): the scene's own
//! step, `push`, `finish`, the backend's paint (GL) or prepare (wgpu), the submit, the wait
//! for the device, and the device's own time from its timer where it has one
//! (`GL_TIME_ELAPSED`, wgpu `TIMESTAMP_QUERY`), beside the bytes sent to the device a frame.
//!
//! Flags:
//!
//! - `--backend gl|wgpu`: the backend (default `gl`).
//! - `--sprites N`: sprites (default 20000, at most 5,000,000).
//! - `--capacity N`: `Config::instance_capacity`, quads a draw (and an instance block) holds
//!   at most (default the budget's 65,536).
//! - `--static N`: sprites more, recorded once into a resident layer
//!   ([`layerbatch::TextureStore::create_resident`]) and drawn each frame by one item before the
//!   moving ones (default 0, at most 5,000,000; offscreen only).
//! - `--target WxH`: the offscreen target's size (default 800x600). With `--sprite-scale`, a
//!   small target keeps a software rasterizer's fill from hiding the CPU's share of a frame
//!   (`--target 160x120 --sprite-scale 0.1`).
//! - `--sprite-scale F`: sprites' size relative to their texture's, 0.01 to 10 (default 1).
//! - `--textures N`: distinct textures (default 64).
//! - `--sizes pow2|mixed|uniform`: texture sizes: four power-of-two sizes, seeded random sizes
//!   from 1 to 256 px a side (loose images), or every texture 16x16 (the same pixels at any
//!   number of textures) (default `pow2`).
//! - `--slots N`: `Config::max_slots`, the most arrays one draw samples (default 16; the device
//!   may allow fewer).
//! - `--quads auto|instanced|indexed`: `Config::quad_vertices` (default `auto`: indexed on a
//!   software rasterizer, instanced elsewhere).
//! - `--format rgba8|bc7|bc1|etc2|astc`: the textures' format (default `rgba8`). The compressed
//!   ones are the same generated pictures encoded with Intel's ISPC texture compressor
//!   (`intel_tex_2`: BC7, BC1), by the test kit's own ETC1 encoder (read as ETC2 RGB), or as
//!   ASTC 4x4 void-extent blocks (one colour a block, as intel_tex_2's ASTC encoder is a
//!   stub), at registration. A family the
//!   device lacks (ETC2 and ASTC on lavapipe) is decoded to RGBA8 on the CPU (core's `decode`
//!   feature, which the examples build with), and the summary says so. Not with `--soak`,
//!   whose churn registers RGBA8.
//! - `--arrays on|off`: `off` gives every texture its own array, i.e. the plain slot ladder, for
//!   the side-by-side (default `on`).
//! - `--warmup N`: frames drawn before the measured ones, not measured (default 3).
//! - `--frames N`: frames measured after the warm-up, exactly (default: offscreen, as many as
//!   fit in `--seconds`; in a window, until it is closed).
//! - `--seconds S`: how long an offscreen run without `--frames` measures, after the warm-up
//!   (default 3; at least 1 frame). On a software device a 20,000-sprite frame takes 0.1 to
//!   1 s.
//! - `--soak S`: a long-session run, offscreen, for `S` seconds: every frame frees
//!   `--churn N` random textures and registers as many of random sizes (1 to 256 px a side),
//!   and once a second a line shows the bytes allocated against the live texels, so a leak is
//!   visible.
//! - `--churn N`: textures replaced per frame in a soak (default 5).
//! - `--headless`: render offscreen even with a display.
//! - `--out FILE.png`: where an offscreen run saves its last frame (default `stress.png`).
//! - `--json`: also print the figures as one JSON object, on the last line of stdout.
//! - `--help`: this list.
//!
//! Bad flags print an error and exit with code 2; a device that fails exits with code 1.

mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use layerbatch::{Batcher, Budget, Config, Format, QuadVertices, ResidentStyle, MAX_SLOTS_PER_DRAW};
use layerbatch_testkit::headless::{DeviceKind, Headless};
use layerbatch_testkit::phases::PhaseRecorder;
use layerbatch_testkit::report::{Mode, Recorder, Report, RunInfo, SoakSample, Sums, DEFAULT_WARMUP};
use layerbatch_testkit::scene::{self, Scene, SceneOptions, Sizes};

/// The viewport of offscreen runs and the initial window size, in pixels.
const SIZE: [u32; 2] = [800, 600];
/// Seconds an offscreen run without `--frames` draws.
const HEADLESS_SECONDS: f64 = 3.0;
/// Largest side of a texture a soak registers.
const SOAK_MAX_PX: u32 = 256;
/// Scene time per frame offscreen: fixed, so every backend draws the same frames.
const FIXED_DT: f32 = 1.0 / 60.0;
/// Upper bounds that keep a typo from allocating the machine away.
const MAX_SPRITES: usize = 5_000_000;
const MAX_TEXTURES: usize = 65_536;

const USAGE: &str = "\
usage: stress [--backend gl|wgpu] [--sprites N] [--static N] [--capacity N] [--target WxH] [--sprite-scale F] [--textures N] [--sizes pow2|mixed|uniform] [--format F] [--slots N] [--arrays on|off]
              [--quads auto|instanced|indexed] [--warmup N] [--frames N] [--seconds S] [--soak S] [--churn N]
              [--headless] [--out FILE.png] [--json] [--help]

  --backend gl|wgpu   backend (default gl)
  --sprites N         sprites, moving every frame (default 20000)
  --static N          sprites more, standing still, in a resident layer drawn by one item
                      (default 0; runs offscreen)
  --capacity N        Config::instance_capacity: quads a draw holds at most (default 65536)
  --target WxH        offscreen target size (default 800x600)
  --sprite-scale F    sprite size relative to its texture, 0.01..=10 (default 1)
  --textures N        distinct textures (default 64)
  --sizes pow2|mixed|uniform  4 power-of-two sizes, random sizes 1..256 px, or all 16x16 (default pow2)
  --format F          rgba8|bc7|bc1|etc2|astc: texture format, compressed by the test kit
                      at registration (default rgba8)
  --slots N           Config::max_slots, 1..=32 (default 16; the device may allow fewer)
  --arrays on|off     off: every texture its own array, the plain slot ladder (default on)
  --quads MODE        auto|instanced|indexed: Config::quad_vertices (default auto: indexed on
                      a software rasterizer, instanced elsewhere)
  --warmup N          frames drawn first and not measured (default 3)
  --frames N          frames measured after the warm-up, exactly (default: offscreen, what
                      fits in --seconds; in a window, until closed)
  --seconds S         offscreen measuring time without --frames, after the warm-up
                      (default 3, at least 1 frame)
  --soak S            long session: S seconds offscreen, churning textures every frame and
                      printing bytes allocated once a second
  --churn N           textures replaced per frame in a soak (default 5)
  --headless          render offscreen even when a display is available
  --out FILE.png      where an offscreen run saves its last frame (default stress.png)
  --json              print the figures as one JSON object on the last line of stdout
  --help              show this help
";

/// Which backend draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// layerbatch-gl.
    Gl,
    /// layerbatch-wgpu.
    Wgpu,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Gl => "gl",
            Backend::Wgpu => "wgpu",
        }
    }
}

/// The parsed command line.
#[derive(Clone, Debug)]
pub struct Args {
    pub backend: Backend,
    pub sprites: usize,
    pub statics: usize,
    pub capacity: Option<u32>,
    pub target_px: [u32; 2],
    pub sprite_scale: f32,
    pub textures: usize,
    pub sizes: Sizes,
    pub format: Format,
    pub slots: u32,
    pub arrays: bool,
    pub quads: QuadVertices,
    pub warmup: u64,
    pub frames: Option<u64>,
    pub seconds: f64,
    pub soak: Option<f64>,
    pub churn: usize,
    pub headless: bool,
    pub out: PathBuf,
    pub json: bool,
}

impl Default for Args {
    fn default() -> Self {
        Self {
            backend: Backend::Gl,
            sprites: 20_000,
            statics: 0,
            capacity: None,
            target_px: SIZE,
            sprite_scale: 1.0,
            textures: 64,
            sizes: Sizes::Pow2,
            format: Format::Rgba8Unorm,
            slots: 16,
            arrays: true,
            quads: QuadVertices::Auto,
            warmup: DEFAULT_WARMUP,
            frames: None,
            seconds: HEADLESS_SECONDS,
            soak: None,
            churn: 5,
            headless: false,
            out: PathBuf::from("stress.png"),
            json: false,
        }
    }
}

impl Args {
    /// The batcher's configuration.
    pub fn config(&self) -> Config {
        let config = Config::default()
            .with_max_slots(self.slots)
            .with_arrays_enabled(self.arrays)
            .with_quad_vertices(self.quads);
        match self.capacity {
            Some(c) => config.with_instance_capacity(c),
            None => config,
        }
    }

    /// The scene's options, for a `viewport_px` box.
    pub fn scene_options(&self, viewport_px: [u32; 2]) -> SceneOptions {
        SceneOptions {
            sprites: self.statics + self.sprites,
            textures: self.textures,
            viewport_px,
            sizes: self.sizes,
            format: self.format,
            encode: Some(layerbatch_testkit::compressed::encode),
            sprite_scale: self.sprite_scale,
            ..SceneOptions::default()
        }
    }
}

enum Command {
    Run(Args),
    Help,
}

/// Parses the flags (without the program name); `--flag value` and `--flag=value` both work.
fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut a = Args::default();
    let err = |e: lexopt::Error| e.to_string();
    while let Some(arg) = parser.next().map_err(err)? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Long("backend") => {
                a.backend = match parser.value().map_err(err)?.string().map_err(err)?.as_str() {
                    "gl" => Backend::Gl,
                    "wgpu" => Backend::Wgpu,
                    other => return Err(format!("--backend must be gl or wgpu, not {other:?}")),
                }
            }
            Long("sprites") => a.sprites = number(&mut parser, "--sprites", 0, MAX_SPRITES)?,
            Long("static") => a.statics = number(&mut parser, "--static", 0, MAX_SPRITES)?,
            Long("capacity") => a.capacity = Some(number(&mut parser, "--capacity", 1, 1 << 24)? as u32),
            Long("target") => a.target_px = size(&mut parser, "--target")?,
            Long("sprite-scale") => {
                let v = parser.value().map_err(err)?.string().map_err(err)?;
                a.sprite_scale = match v.trim().parse::<f32>() {
                    Ok(s) if (0.01..=10.0).contains(&s) => s,
                    _ => return Err(format!("--sprite-scale needs a number from 0.01 to 10, not {v:?}")),
                };
            }
            Long("textures") => a.textures = number(&mut parser, "--textures", 1, MAX_TEXTURES)?,
            Long("sizes") => {
                a.sizes = match parser.value().map_err(err)?.string().map_err(err)?.as_str() {
                    "pow2" => Sizes::Pow2,
                    "mixed" => Sizes::Mixed,
                    "uniform" => Sizes::Uniform,
                    other => return Err(format!("--sizes must be pow2, mixed or uniform, not {other:?}")),
                }
            }
            Long("format") => {
                a.format = match parser.value().map_err(err)?.string().map_err(err)?.as_str() {
                    "rgba8" => Format::Rgba8Unorm,
                    "bc7" => Format::Bc7RgbaUnorm,
                    "bc1" => Format::Bc1RgbaUnorm,
                    "etc2" => Format::Etc2Rgb8Unorm,
                    "astc" => Format::Astc { block: layerbatch::AstcBlock::B4x4, srgb: false },
                    other => return Err(format!("--format must be rgba8, bc7, bc1, etc2 or astc, not {other:?}")),
                }
            }
            Long("slots") => a.slots = number(&mut parser, "--slots", 1, MAX_SLOTS_PER_DRAW as usize)? as u32,
            Long("arrays") => {
                a.arrays = match parser.value().map_err(err)?.string().map_err(err)?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--arrays must be on or off, not {other:?}")),
                }
            }
            Long("quads") => a.quads = scene::parse_quads(&parser.value().map_err(err)?.string().map_err(err)?)?,
            Long("warmup") => a.warmup = number(&mut parser, "--warmup", 0, usize::MAX)? as u64,
            Long("frames") => a.frames = Some(number(&mut parser, "--frames", 1, usize::MAX)? as u64),
            Long("seconds") => a.seconds = seconds(&mut parser, "--seconds")?,
            Long("soak") => a.soak = Some(seconds(&mut parser, "--soak")?),
            Long("churn") => a.churn = number(&mut parser, "--churn", 0, MAX_TEXTURES)?,
            Long("out") => {
                let v = PathBuf::from(parser.value().map_err(err)?);
                if v.as_os_str().is_empty() {
                    return Err("--out needs a file name".into());
                }
                a.out = v;
            }
            Long("headless") => a.headless = true,
            Long("json") => a.json = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    if a.soak.is_some() && a.format.is_compressed() {
        return Err(format!("--soak churns RGBA8 textures: it does not take --format {}", a.format));
    }
    Ok(Command::Run(a))
}

/// The value of `flag` as a whole number in `min..=max`.
fn number(parser: &mut lexopt::Parser, flag: &str, min: usize, max: usize) -> Result<usize, String> {
    use lexopt::ValueExt as _;
    let v = parser.value().map_err(|e| e.to_string())?.string().map_err(|e| e.to_string())?;
    let range = if max == usize::MAX { format!("at least {min}") } else { format!("from {min} to {max}") };
    match v.trim().parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{flag} needs a whole number {range}, not {v:?}")),
    }
}

/// The value of `flag` as `WxH`, each from 1 to 8192 pixels.
fn size(parser: &mut lexopt::Parser, flag: &str) -> Result<[u32; 2], String> {
    use lexopt::ValueExt as _;
    let v = parser.value().map_err(|e| e.to_string())?.string().map_err(|e| e.to_string())?;
    let parsed =
        v.trim().split_once(['x', 'X']).and_then(|(w, h)| Some([w.parse::<u32>().ok()?, h.parse::<u32>().ok()?]));
    match parsed {
        Some([w, h]) if (1..=8192).contains(&w) && (1..=8192).contains(&h) => Ok([w, h]),
        _ => Err(format!("{flag} needs WxH, each from 1 to 8192 pixels, not {v:?}")),
    }
}

/// The value of `flag` as a positive, finite number of seconds (at most a day).
fn seconds(parser: &mut lexopt::Parser, flag: &str) -> Result<f64, String> {
    use lexopt::ValueExt as _;
    let v = parser.value().map_err(|e| e.to_string())?.string().map_err(|e| e.to_string())?;
    match v.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("{flag} needs a number of seconds above 0 and at most 86400, not {v:?}")),
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args_os().skip(1)) {
        Ok(Command::Run(a)) => a,
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("stress: {e} (try --help)");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(report) => {
            report.print_table();
            if args.json {
                match serde_json::to_string(&report) {
                    Ok(line) => println!("{line}"),
                    Err(e) => {
                        eprintln!("stress: error: the JSON summary: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("stress: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// In a window when there is a display and it works, offscreen otherwise.
fn run(args: &Args) -> Result<Report, String> {
    if !args.headless && args.soak.is_none() && args.statics == 0 {
        match display_missing() {
            None => match window::run(args) {
                Ok(report) => return Ok(report),
                Err(window::Error::Unavailable(why)) => {
                    eprintln!("stress: no window ({why}); falling back to headless");
                }
                Err(window::Error::Failed(e)) => return Err(e),
            },
            Some(why) => eprintln!("stress: {why}; falling back to headless"),
        }
    }
    run_headless(args)
}

/// Why no window can be tried, or `None` when a display is set.
fn display_missing() -> Option<&'static str> {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    if set("DISPLAY") || set("WAYLAND_DISPLAY") || set("WAYLAND_SOCKET") {
        None
    } else {
        Some("no display (DISPLAY and WAYLAND_DISPLAY are unset)")
    }
}

/// Opens the offscreen device of `backend`, trying the next kind when one fails.
fn open_headless(backend: Backend, size: [u32; 2]) -> Result<Headless, String> {
    let kinds: &[DeviceKind] = match backend {
        Backend::Gl => &[DeviceKind::Gl, DeviceKind::Gles],
        Backend::Wgpu => &[DeviceKind::WgpuVulkan, DeviceKind::WgpuGl],
    };
    let mut errors = Vec::new();
    for &kind in kinds {
        match Headless::new(kind, size) {
            Ok(dev) => {
                if !errors.is_empty() {
                    eprintln!("stress: using {kind:?} ({})", errors.join("; "));
                }
                return Ok(dev);
            }
            Err(e) => errors.push(format!("{kind:?}: {e}")),
        }
    }
    Err(format!("no offscreen {} device: {}", backend.name(), errors.join("; ")))
}

/// Renders offscreen (`--warmup` frames, then `--frames` frames, or as many as fit in
/// `--seconds`; with `--soak`, churning textures) and saves the last frame to `--out`.
fn run_headless(args: &Args) -> Result<Report, String> {
    let size = args.target_px;
    let mut dev = open_headless(args.backend, size)?;
    let mut batcher = Batcher::new(dev.limits(), args.config()).map_err(|e| format!("config: {e}"))?;
    dev.init(batcher.budget())?;
    let mut scene = Scene::new(&mut batcher, args.scene_options(size)).map_err(|e| format!("textures: {e}"))?;
    // The first `--static` sprites stand still: recorded once, drawn by one item a frame.
    let statics = scene.take_sprites(args.statics);
    let layer = match statics.is_empty() {
        true => None,
        false => Some(batcher.textures().create_resident(&statics).map_err(|e| format!("--static: {e}"))?),
    };
    drop(statics);
    let style = ResidentStyle::default();
    let mut recorder = Recorder::new(args.warmup, dev.stats());
    let mut phases = PhaseRecorder::new(args.warmup);
    let mut soak = Vec::new();
    let mut rng = scene::Rng::new(11);
    let start = Instant::now();
    // The measuring time starts after the warm-up (a soak's clock runs from the start).
    let mut measuring_since = None;
    let limit = args.soak.unwrap_or(args.seconds);
    let mut next_sample = 0.0;
    loop {
        let elapsed = start.elapsed().as_secs_f64();
        if measuring_since.is_none() && !recorder.in_warmup() {
            measuring_since = Some(Instant::now());
        }
        let measured = measuring_since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let done = match (args.frames, args.soak) {
            (Some(n), None) => recorder.measured_frames() >= n,
            (None, None) => recorder.measured_frames() >= 1 && measured >= limit,
            (_, Some(_)) => recorder.measured_frames() >= 1 && elapsed >= limit,
        };
        if args.soak.is_some() && (elapsed >= next_sample || done) {
            let sample = SoakSample::now(elapsed, &recorder, &batcher, &scene);
            println!("{}", sample.line());
            soak.push(sample);
            next_sample += 1.0;
        }
        if done {
            break;
        }
        if args.soak.is_some() {
            if let Err(e) = scene.churn(&mut batcher, &mut rng, args.churn, SOAK_MAX_PX) {
                return Err(format!("soak: frame {}: {e}", recorder.frames + 1));
            }
        }
        let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
        let t0 = Instant::now();
        scene.step(FIXED_DT);
        let t1 = Instant::now();
        batcher.begin_frame();
        if let Some(layer) = layer {
            batcher.draw_resident(layer, &style).map_err(|e| e.to_string())?;
        }
        scene.push(&mut batcher);
        let t2 = Instant::now();
        let plan = batcher.finish();
        let finish_ms = ms(t2);
        let device = dev.draw_timed(plan)?; // waits for the device
        recorder.record(ms(t0), dev.stats());
        let between = |a: Instant, b: Instant| b.duration_since(a).as_secs_f64() * 1e3;
        phases.record(&device.phases(between(t0, t1), between(t1, t2), finish_ms));
    }
    let pixels = dev.read();
    image::save_buffer_with_format(
        &args.out,
        &pixels,
        size[0],
        size[1],
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|e| format!("saving {}: {e}", args.out.display()))?;
    let mut report = report(
        args,
        Mode::Headless { out: args.out.clone() },
        dev.backend_name(),
        dev.adapter().to_string(),
        batcher.budget(),
        &recorder,
    );
    report.phases = Some(phases.report());
    report.static_sprites = args.statics;
    report.texel_bytes = scene.texel_bytes();
    report.format = args.format.name();
    report.arrays_alive = batcher.allocator().array_count();
    report.soak = soak;
    Ok(report)
}

/// The report of a finished run of `args` (offscreen: `--target`; in a window: 800x600).
pub fn report(
    args: &Args,
    mode: Mode,
    backend: &'static str,
    adapter: String,
    budget: &Budget,
    rec: &Recorder,
) -> Report {
    let run = RunInfo {
        sprites: args.sprites,
        textures: args.textures,
        sizes: args.sizes,
        slots: args.slots,
        arrays: args.arrays,
        viewport_px: if matches!(mode, Mode::Headless { .. }) { args.target_px } else { SIZE },
    };
    Report::from_run(&run, mode, backend, adapter, budget, rec)
}
