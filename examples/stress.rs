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
//! with the same figures (per-frame figures and frame times are over the frames after the
//! first, which uploads every texture).
//!
//! Flags:
//!
//! - `--backend gl|wgpu`: the backend (default `gl`).
//! - `--sprites N`: sprites (default 20000).
//! - `--textures N`: distinct textures (default 64).
//! - `--slots N`: `Config::max_slots`, the most arrays one draw samples (default 16; the device
//!   may allow fewer).
//! - `--arrays on|off`: `off` gives every texture its own array, i.e. the plain slot ladder, for
//!   the side-by-side (default `on`).
//! - `--frames N`: frames to run (default: 300 offscreen; in a window, until it is closed).
//! - `--headless`: render offscreen even with a display.
//! - `--out FILE.png`: where an offscreen run saves its last frame (default `stress.png`).
//! - `--json`: also print the figures as one JSON object, on the last line of stdout.
//! - `--help`: this list.
//!
//! Bad flags print an error and exit with code 2; a device that fails exits with code 1.

#[allow(unsafe_code)]
#[path = "support/headless.rs"]
mod headless;
#[path = "support/scene.rs"]
mod scene;
#[path = "support/window.rs"]
mod window;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use headless::{DeviceKind, Headless};
use layerbatch::{Batcher, Budget, Config, Stats, MAX_SLOTS_PER_DRAW};
use scene::{Scene, SceneOptions};

/// The viewport of offscreen runs and the initial window size, in pixels.
const SIZE: [u32; 2] = [800, 600];
/// Frames of an offscreen run without `--frames`.
const HEADLESS_FRAMES: u64 = 300;
/// Scene time per frame offscreen: fixed, so every backend draws the same frames.
const FIXED_DT: f32 = 1.0 / 60.0;
/// Upper bounds that keep a typo from allocating the machine away.
const MAX_SPRITES: usize = 5_000_000;
const MAX_TEXTURES: usize = 65_536;

const USAGE: &str = "\
usage: stress [--backend gl|wgpu] [--sprites N] [--textures N] [--slots N] [--arrays on|off]
              [--frames N] [--headless] [--out FILE.png] [--json] [--help]

  --backend gl|wgpu   backend (default gl)
  --sprites N         sprites, moving every frame (default 20000)
  --textures N        distinct textures, in 4 sizes (default 64)
  --slots N           Config::max_slots, 1..=32 (default 16; the device may allow fewer)
  --arrays on|off     off: every texture its own array, the plain slot ladder (default on)
  --frames N          frames to run (default 300 offscreen; in a window, until closed)
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
    pub textures: usize,
    pub slots: u32,
    pub arrays: bool,
    pub frames: Option<u64>,
    pub headless: bool,
    pub out: PathBuf,
    pub json: bool,
}

impl Default for Args {
    fn default() -> Self {
        Self {
            backend: Backend::Gl,
            sprites: 20_000,
            textures: 64,
            slots: 16,
            arrays: true,
            frames: None,
            headless: false,
            out: PathBuf::from("stress.png"),
            json: false,
        }
    }
}

impl Args {
    /// The batcher's configuration.
    pub fn config(&self) -> Config {
        Config { max_slots: self.slots, arrays_enabled: self.arrays, ..Config::default() }
    }

    /// The scene's options, for a `viewport_px` box.
    pub fn scene_options(&self, viewport_px: [u32; 2]) -> SceneOptions {
        SceneOptions { sprites: self.sprites, textures: self.textures, viewport_px, ..SceneOptions::default() }
    }
}

enum Command {
    Run(Args),
    Help,
}

/// Parses the flags (without the program name). `--flag value` and `--flag=value` both work.
fn parse_args(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Command, String> {
    let args: Vec<String> = args
        .map(|a| a.into_string().map_err(|a| format!("argument {a:?} is not valid UTF-8")))
        .collect::<Result<_, _>>()?;
    let mut it = args.into_iter();
    let mut a = Args::default();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline.clone().or_else(|| it.next()).ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--backend" => {
                a.backend = match value("--backend")?.as_str() {
                    "gl" => Backend::Gl,
                    "wgpu" => Backend::Wgpu,
                    other => return Err(format!("--backend must be gl or wgpu, not {other:?}")),
                }
            }
            "--sprites" => a.sprites = number("--sprites", &value("--sprites")?, 0, MAX_SPRITES)?,
            "--textures" => a.textures = number("--textures", &value("--textures")?, 1, MAX_TEXTURES)?,
            "--slots" => a.slots = number("--slots", &value("--slots")?, 1, MAX_SLOTS_PER_DRAW as usize)? as u32,
            "--arrays" => {
                a.arrays = match value("--arrays")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--arrays must be on or off, not {other:?}")),
                }
            }
            "--frames" => a.frames = Some(number("--frames", &value("--frames")?, 1, usize::MAX)? as u64),
            "--out" => {
                let v = value("--out")?;
                if v.is_empty() {
                    return Err("--out needs a file name".into());
                }
                a.out = PathBuf::from(v);
            }
            "--headless" | "--json" if inline.is_some() => return Err(format!("{flag} takes no value")),
            "--headless" => a.headless = true,
            "--json" => a.json = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Command::Run(a))
}

/// Parses `v` as a whole number in `min..=max`.
fn number(flag: &str, v: &str, min: usize, max: usize) -> Result<usize, String> {
    let range = if max == usize::MAX { format!("at least {min}") } else { format!("from {min} to {max}") };
    match v.trim().parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{flag} needs a whole number {range}, not {v:?}")),
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
                println!("{}", report.json());
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
    if !args.headless {
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
fn open_headless(backend: Backend) -> Result<Headless, String> {
    let kinds: &[DeviceKind] = match backend {
        Backend::Gl => &[DeviceKind::Gl, DeviceKind::Gles],
        Backend::Wgpu => &[DeviceKind::WgpuVulkan, DeviceKind::WgpuGl],
    };
    let mut errors = Vec::new();
    for &kind in kinds {
        match Headless::new(kind, SIZE) {
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

/// Renders `--frames` frames offscreen and saves the last one to `--out`.
fn run_headless(args: &Args) -> Result<Report, String> {
    let mut dev = open_headless(args.backend)?;
    let mut batcher = Batcher::new(dev.limits(), args.config()).map_err(|e| format!("config: {e}"))?;
    dev.init(batcher.budget())?;
    let mut scene = Scene::new(&mut batcher, args.scene_options(SIZE)).map_err(|e| format!("textures: {e}"))?;
    let mut recorder = Recorder::default();
    for _ in 0..args.frames.unwrap_or(HEADLESS_FRAMES) {
        let t0 = Instant::now();
        let plan = scene.frame(&mut batcher, FIXED_DT);
        dev.draw(plan)?; // waits for the device
        recorder.record(t0.elapsed().as_secs_f64() * 1e3, dev.stats());
    }
    let pixels = dev.read();
    image::save_buffer_with_format(
        &args.out,
        &pixels,
        SIZE[0],
        SIZE[1],
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|e| format!("saving {}: {e}", args.out.display()))?;
    Ok(Report::new(
        args,
        Mode::Headless { out: args.out.clone() },
        dev.backend_name(),
        dev.adapter().to_string(),
        batcher.budget(),
        &recorder,
    ))
}

/// Per-frame counts summed over a run of frames.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sums {
    pub frames: u64,
    pub draw_calls: u64,
    pub device_draw_calls: u64,
    pub flushes: u64,
    pub flushes_slots_exhausted: u64,
    pub slot_binds: u64,
    pub slot_evictions: u64,
}

impl Sums {
    /// Adds one frame's counters.
    pub fn add(&mut self, s: &Stats) {
        self.frames += 1;
        self.draw_calls += s.core_frame.draw_calls;
        self.device_draw_calls += s.device_frame.draw_calls;
        self.flushes += s.core_frame.flushes;
        self.flushes_slots_exhausted += s.core_frame.flushes_slots_exhausted;
        self.slot_binds += s.core_frame.slot_binds;
        self.slot_evictions += s.core_frame.slot_evictions;
    }

    /// `v` per frame.
    pub fn per_frame(&self, v: u64) -> f64 {
        v as f64 / self.frames.max(1) as f64
    }
}

/// What a run measured, frame by frame.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Frames recorded.
    pub frames: u64,
    first: Sums,
    steady: Sums,
    first_ms: f64,
    steady_ms: Vec<f64>,
    compiles_after_first: u64,
    last: Stats,
}

impl Recorder {
    /// Records a frame: its wall time and the renderer's stats after it.
    pub fn record(&mut self, frame_ms: f64, stats: Stats) {
        self.frames += 1;
        if self.frames == 1 {
            self.first.add(&stats);
            self.first_ms = frame_ms;
            self.compiles_after_first = stats.device_total.pipeline_compiles;
        } else {
            self.steady.add(&stats);
            self.steady_ms.push(frame_ms);
        }
        self.last = stats;
    }

    /// Per-frame sums over the frames after the first (the first alone if there is no other).
    fn sums(&self) -> &Sums {
        if self.steady.frames > 0 {
            &self.steady
        } else {
            &self.first
        }
    }

    /// The renderer's stats after the last frame.
    pub fn last_stats(&self) -> &Stats {
        &self.last
    }

    /// Frame times over the frames after the first (the first alone if there is no other).
    fn frame_ms(&self) -> Vec<f64> {
        if self.steady_ms.is_empty() {
            vec![self.first_ms]
        } else {
            self.steady_ms.clone()
        }
    }
}

/// Where a run drew.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Offscreen; the last frame saved to `out`.
    Headless { out: PathBuf },
    /// In a window.
    Window,
}

/// The figures a run prints at exit.
#[derive(Clone, Debug)]
pub struct Report {
    backend: &'static str,
    adapter: String,
    mode: Mode,
    frames: u64,
    sprites: usize,
    textures: usize,
    slots: u32,
    budget_slots: u32,
    arrays: bool,
    draw_calls_per_frame: f64,
    device_draw_calls_per_frame: f64,
    flushes_per_frame: f64,
    flushes_slots_exhausted_per_frame: f64,
    slot_binds_per_frame: f64,
    slot_evictions_per_frame: f64,
    cache_resets: u64,
    max_slot_tier: u64,
    layer_uploads: u64,
    pipeline_compiles: u64,
    pipeline_compiles_after_warmup: u64,
    bytes_allocated: u64,
    budget_bytes: u64,
    frame_ms_median: f64,
    frame_ms_p99: f64,
}

impl Report {
    /// Builds the report of a finished run.
    pub fn new(
        args: &Args,
        mode: Mode,
        backend: &'static str,
        adapter: String,
        budget: &Budget,
        rec: &Recorder,
    ) -> Self {
        let s = rec.sums();
        let mut ms = rec.frame_ms();
        ms.sort_by(f64::total_cmp);
        let total = &rec.last.core_total;
        let compiles = rec.last.device_total.pipeline_compiles;
        Self {
            backend,
            adapter,
            mode,
            frames: rec.frames,
            sprites: args.sprites,
            textures: args.textures,
            slots: args.slots,
            budget_slots: budget.slots,
            arrays: args.arrays,
            draw_calls_per_frame: s.per_frame(s.draw_calls),
            device_draw_calls_per_frame: s.per_frame(s.device_draw_calls),
            flushes_per_frame: s.per_frame(s.flushes),
            flushes_slots_exhausted_per_frame: s.per_frame(s.flushes_slots_exhausted),
            slot_binds_per_frame: s.per_frame(s.slot_binds),
            slot_evictions_per_frame: s.per_frame(s.slot_evictions),
            cache_resets: total.cache_resets,
            max_slot_tier: total.max_slot_tier,
            layer_uploads: total.layer_uploads,
            pipeline_compiles: compiles,
            pipeline_compiles_after_warmup: compiles.saturating_sub(rec.compiles_after_first),
            bytes_allocated: total.bytes_allocated,
            budget_bytes: budget.budget_bytes,
            frame_ms_median: percentile(&ms, 0.5),
            frame_ms_p99: percentile(&ms, 0.99),
        }
    }

    /// The human summary, on stdout.
    pub fn print_table(&self) {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let mode = match &self.mode {
            Mode::Headless { .. } => format!("offscreen {}x{}", SIZE[0], SIZE[1]),
            Mode::Window => "window".to_string(),
        };
        let slots = if self.budget_slots == self.slots {
            self.slots.to_string()
        } else {
            format!("{} (device allows {})", self.slots, self.budget_slots)
        };
        println!("layerbatch stress: {} on {}, {mode}", self.backend, self.adapter);
        println!(
            "  {} sprites, {} textures, slots {slots}, arrays {}, {} frames",
            self.sprites,
            self.textures,
            if self.arrays { "on" } else { "off" },
            self.frames
        );
        println!("  {}", if self.frames > 1 { "per frame, after the first:" } else { "per frame:" });
        let rows: [(&str, String); 6] = [
            ("draw calls", format!("{:.2}", self.draw_calls_per_frame)),
            ("  issued by the device", format!("{:.2}", self.device_draw_calls_per_frame)),
            ("flushes", format!("{:.2}", self.flushes_per_frame)),
            ("  because the slots ran out", format!("{:.2}", self.flushes_slots_exhausted_per_frame)),
            ("slot binds", format!("{:.2}", self.slot_binds_per_frame)),
            ("slot evictions", format!("{:.2}", self.slot_evictions_per_frame)),
        ];
        for (name, v) in rows {
            println!("    {name:<30} {v:>20}");
        }
        println!("  whole run:");
        let rows: [(&str, String); 8] = [
            ("cache resets", self.cache_resets.to_string()),
            ("largest slot tier drawn", self.max_slot_tier.to_string()),
            ("layer uploads", self.layer_uploads.to_string()),
            ("pipelines compiled", self.pipeline_compiles.to_string()),
            ("  after the first frame", self.pipeline_compiles_after_warmup.to_string()),
            ("texture memory", format!("{:.1} of {:.0} MiB", mib(self.bytes_allocated), mib(self.budget_bytes))),
            ("frame time, median", format!("{:.2} ms", self.frame_ms_median)),
            ("frame time, p99", format!("{:.2} ms", self.frame_ms_p99)),
        ];
        for (name, v) in rows {
            println!("    {name:<30} {v:>20}");
        }
        if let Mode::Headless { out } = &self.mode {
            println!("  last frame saved to {}", out.display());
        }
    }

    /// The figures as one line of JSON.
    pub fn json(&self) -> String {
        let mode = if matches!(self.mode, Mode::Window) { "window" } else { "headless" };
        let mut fields: Vec<(&str, String)> = vec![
            ("backend", json_str(self.backend)),
            ("adapter", json_str(&self.adapter)),
            ("mode", json_str(mode)),
            ("frames", self.frames.to_string()),
            ("sprites", self.sprites.to_string()),
            ("textures", self.textures.to_string()),
            ("slots", self.slots.to_string()),
            ("budget_slots", self.budget_slots.to_string()),
            ("arrays", self.arrays.to_string()),
            ("draw_calls_per_frame", json_f64(self.draw_calls_per_frame)),
            ("device_draw_calls_per_frame", json_f64(self.device_draw_calls_per_frame)),
            ("flushes_per_frame", json_f64(self.flushes_per_frame)),
            ("flushes_slots_exhausted_per_frame", json_f64(self.flushes_slots_exhausted_per_frame)),
            ("cache_resets", self.cache_resets.to_string()),
            ("slot_binds_per_frame", json_f64(self.slot_binds_per_frame)),
            ("slot_evictions_per_frame", json_f64(self.slot_evictions_per_frame)),
            ("max_slot_tier", self.max_slot_tier.to_string()),
            ("layer_uploads", self.layer_uploads.to_string()),
            ("pipeline_compiles", self.pipeline_compiles.to_string()),
            ("pipeline_compiles_after_warmup", self.pipeline_compiles_after_warmup.to_string()),
            ("bytes_allocated", self.bytes_allocated.to_string()),
            ("budget_bytes", self.budget_bytes.to_string()),
            ("frame_ms_median", json_f64(self.frame_ms_median)),
            ("frame_ms_p99", json_f64(self.frame_ms_p99)),
        ];
        if let Mode::Headless { out } = &self.mode {
            fields.push(("out", json_str(&out.display().to_string())));
        }
        let body: Vec<String> = fields.into_iter().map(|(k, v)| format!("{}:{v}", json_str(k))).collect();
        format!("{{{}}}", body.join(","))
    }
}

/// The nearest-rank percentile `p` (0..=1) of sorted `v`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn json_f64(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "null".into()
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
