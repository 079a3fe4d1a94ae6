//! The stress scene's figures: per-frame sums, the recorder of a run, and the summary
//! ([`Report`]) printed as a table and, with `--json`, as one JSON object. Used by the stress
//! example natively and in the browser page (`examples/web`), so both print the same fields.
//!
//! A run's first frames are warm-up (the first uploads every texture): the [`Recorder`] keeps
//! them apart, and every per-frame figure and frame time is over the frames after them
//! ([`crate::stats`]).

use std::path::PathBuf;

use layerbatch_core::{Batcher, Budget, Stats};

use crate::phases::PhaseReport;
use crate::scene::{Scene, Sizes};
use crate::stats::{Samples, Summary};

/// Warm-up frames of a stress run unless `--warmup` says otherwise. The first frame uploads
/// every texture; on llvmpipe the second is still about 10% slower than the ones after it
/// (5,000 sprites), the third no longer. On a software device a frame takes 0.1 to 1 s, so
/// more warm-up is asked for with `--warmup`.
pub const DEFAULT_WARMUP: u64 = 3;

/// What a run drew, as its flags said.
#[derive(Clone, Copy, Debug)]
pub struct RunInfo {
    /// `--sprites`.
    pub sprites: usize,
    /// `--textures`.
    pub textures: usize,
    /// `--sizes`.
    pub sizes: Sizes,
    /// `--slots`: the `Config::max_slots` asked for.
    pub slots: u32,
    /// `--arrays`.
    pub arrays: bool,
    /// The target's size in pixels.
    pub viewport_px: [u32; 2],
}

/// One line of a soak: where the memory stands.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SoakSample {
    seconds: f64,
    frames: u64,
    texel_bytes: u64,
    bytes_allocated: u64,
    arrays_alive: usize,
    frame_ms_last: f64,
}

impl SoakSample {
    /// Where the run stands `seconds` into it.
    pub fn now(seconds: f64, rec: &Recorder, batcher: &Batcher, scene: &Scene) -> Self {
        Self {
            seconds,
            frames: rec.frames,
            texel_bytes: scene.texel_bytes(),
            bytes_allocated: batcher.allocator().allocated_bytes(),
            arrays_alive: batcher.allocator().array_count(),
            frame_ms_last: rec.last_ms,
        }
    }

    /// The sample as one line of text.
    pub fn line(&self) -> String {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        format!(
            "soak {:>7.1} s  frame {:>6}  texels {:>7.2} MiB  allocated {:>7.2} MiB ({:.1}x)  arrays {:>4}",
            self.seconds,
            self.frames,
            mib(self.texel_bytes),
            mib(self.bytes_allocated),
            self.bytes_allocated as f64 / self.texel_bytes.max(1) as f64,
            self.arrays_alive
        )
    }
}

/// Per-frame counts summed over a run of frames.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sums {
    /// Frames summed.
    pub frames: u64,
    /// Core's draw calls.
    pub draw_calls: u64,
    /// The device's draw calls.
    pub device_draw_calls: u64,
    /// Flushes.
    pub flushes: u64,
    /// Flushes because the slots ran out.
    pub flushes_slots_exhausted: u64,
    /// Slot binds.
    pub slot_binds: u64,
    /// Slot evictions.
    pub slot_evictions: u64,
    /// Vertex bytes the device was sent (`DeviceCounters::instance_bytes_written`).
    pub instance_bytes: u64,
    /// Texture bytes the device was sent (`DeviceCounters::texture_bytes_written`).
    pub texture_bytes: u64,
    /// Resident layer bytes the device was sent (`DeviceCounters::resident_bytes_written`).
    pub resident_bytes: u64,
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
        self.instance_bytes += s.device_frame.instance_bytes_written;
        self.texture_bytes += s.device_frame.texture_bytes_written;
        self.resident_bytes += s.device_frame.resident_bytes_written;
    }

    /// `v` per frame.
    pub fn per_frame(&self, v: u64) -> f64 {
        v as f64 / self.frames.max(1) as f64
    }
}

/// What a run measured, frame by frame: the first `warmup` frames apart from the rest.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Frames recorded, warm-up included.
    pub frames: u64,
    warm: Sums,
    measured: Sums,
    times: Samples,
    /// `device_total.pipeline_compiles` when the warm-up ended (at creation without one).
    compiles_after_warmup: u64,
    last: Stats,
    /// The last frame's time.
    pub last_ms: f64,
}

impl Recorder {
    /// A run whose first `warmup` frames are warm-up, of a renderer whose stats at creation
    /// are `created`.
    pub fn new(warmup: u64, created: Stats) -> Self {
        Self {
            frames: 0,
            warm: Sums::default(),
            measured: Sums::default(),
            times: Samples::new(warmup as usize),
            compiles_after_warmup: created.device_total.pipeline_compiles,
            last: created,
            last_ms: 0.0,
        }
    }

    /// Records a frame: its wall time and the renderer's stats after it.
    pub fn record(&mut self, frame_ms: f64, stats: Stats) {
        self.frames += 1;
        if self.times.push(frame_ms) {
            self.warm.add(&stats);
            self.compiles_after_warmup = stats.device_total.pipeline_compiles;
        } else {
            self.measured.add(&stats);
        }
        self.last = stats;
        self.last_ms = frame_ms;
    }

    /// Whether the next frame is a warm-up one.
    pub fn in_warmup(&self) -> bool {
        self.times.in_warmup()
    }

    /// Frames measured: recorded after the warm-up.
    pub fn measured_frames(&self) -> u64 {
        self.measured.frames
    }

    /// Warm-up frames recorded.
    pub fn warmup_frames(&self) -> u64 {
        self.warm.frames
    }

    /// Per-frame sums over the measured frames (the warm-up's if none was measured).
    pub fn sums(&self) -> &Sums {
        if self.measured.frames > 0 {
            &self.measured
        } else {
            &self.warm
        }
    }

    /// The renderer's stats after the last frame.
    pub fn last_stats(&self) -> &Stats {
        &self.last
    }

    /// The frame times' figures over the measured frames (the warm-up's if none was measured).
    pub fn frame_ms(&self) -> Summary {
        if self.times.measured().is_empty() {
            Summary::of(self.times.warmup())
        } else {
            self.times.summary()
        }
    }
}

/// Where a run drew.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Offscreen; the last frame saved to `out`.
    Headless {
        /// The PNG's path.
        out: PathBuf,
    },
    /// In a window.
    Window,
    /// In a browser page (`examples/web`).
    Browser,
}

/// The figures a run prints at exit; `--json` prints them as one object.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    backend: &'static str,
    adapter: String,
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    out: Option<String>,
    /// The target's size, for the table.
    #[serde(skip)]
    viewport_px: [u32; 2],
    /// Frames measured (after the warm-up).
    frames: u64,
    /// Warm-up frames, before the measured ones.
    warmup_frames: u64,
    sprites: usize,
    textures: usize,
    sizes: &'static str,
    slots: u32,
    budget_slots: u32,
    arrays: bool,
    /// `Budget::indexed_quads`: quads drawn indexed (software rasterizers) or instanced.
    indexed_quads: bool,
    draw_calls_per_frame: f64,
    device_draw_calls_per_frame: f64,
    flushes_per_frame: f64,
    flushes_slots_exhausted_per_frame: f64,
    cache_resets: u64,
    slot_binds_per_frame: f64,
    slot_evictions_per_frame: f64,
    max_slot_tier: u64,
    layer_uploads: u64,
    pipeline_compiles: u64,
    pipeline_compiles_after_warmup: u64,
    /// The textures' format (`Format::name`; default `rgba8unorm`).
    pub format: &'static str,
    /// Bytes of the scene's live texels (level 0; blocks, compressed), beside what the arrays
    /// hold.
    pub texel_bytes: u64,
    bytes_allocated: u64,
    /// Bytes of the arrays the device holds at the end (`DeviceCounters::bytes_held`).
    device_bytes_held: u64,
    /// Textures decoded to RGBA8 on the CPU: their family is not the device's
    /// (`Counters::textures_decoded`).
    textures_decoded: u64,
    budget_bytes: u64,
    /// Arrays alive at the end.
    pub arrays_alive: usize,
    frame_ms_median: f64,
    frame_ms_p95: f64,
    frame_ms_p99: f64,
    frame_ms_mean: f64,
    frame_ms_min: f64,
    frame_ms_max: f64,
    /// Bytes sent to the device a frame: instances (vertices) and texels.
    instance_bytes_per_frame: f64,
    texture_bytes_per_frame: f64,
    /// Bytes written into resident layers a frame (`DeviceCounters::resident_bytes_written`).
    resident_bytes_per_frame: f64,
    /// Sprites standing still in a resident layer (`--static`), beside `sprites`.
    pub static_sprites: usize,
    /// Where a frame's time went, by phase, when the run timed them ([`crate::phases`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<PhaseReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    /// A soak's samples, one a second.
    pub soak: Vec<SoakSample>,
}

impl Report {
    /// Builds the report of a finished run of `run`.
    pub fn from_run(
        run: &RunInfo,
        mode: Mode,
        backend: &'static str,
        adapter: String,
        budget: &Budget,
        rec: &Recorder,
    ) -> Self {
        let s = rec.sums();
        let ms = rec.frame_ms();
        let total = &rec.last.core_total;
        let compiles = rec.last.device_total.pipeline_compiles;
        let (mode, out) = match mode {
            Mode::Headless { out } => ("headless", Some(out.display().to_string())),
            Mode::Window => ("window", None),
            Mode::Browser => ("browser", None),
        };
        Self {
            backend,
            adapter,
            mode,
            out,
            viewport_px: run.viewport_px,
            frames: rec.measured_frames(),
            warmup_frames: rec.warmup_frames(),
            sprites: run.sprites,
            textures: run.textures,
            sizes: match run.sizes {
                Sizes::Pow2 => "pow2",
                Sizes::Mixed => "mixed",
                Sizes::Uniform => "uniform",
            },
            slots: run.slots,
            budget_slots: budget.slots,
            arrays: run.arrays,
            indexed_quads: budget.indexed_quads,
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
            pipeline_compiles_after_warmup: compiles.saturating_sub(rec.compiles_after_warmup),
            format: "rgba8unorm",
            texel_bytes: 0,
            bytes_allocated: total.bytes_allocated,
            device_bytes_held: rec.last.device_total.bytes_held,
            textures_decoded: total.textures_decoded,
            budget_bytes: budget.budget_bytes,
            arrays_alive: 0,
            frame_ms_median: ms.median,
            frame_ms_p95: ms.p95,
            frame_ms_p99: ms.p99,
            frame_ms_mean: ms.mean,
            frame_ms_min: ms.min,
            frame_ms_max: ms.max,
            instance_bytes_per_frame: s.per_frame(s.instance_bytes),
            texture_bytes_per_frame: s.per_frame(s.texture_bytes),
            resident_bytes_per_frame: s.per_frame(s.resident_bytes),
            static_sprites: 0,
            phases: None,
            soak: Vec::new(),
        }
    }

    /// The human summary, on stdout.
    pub fn print_table(&self) {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let mode = match self.mode {
            "headless" => format!("offscreen {}x{}", self.viewport_px[0], self.viewport_px[1]),
            other => other.to_string(),
        };
        let slots = if self.budget_slots == self.slots {
            self.slots.to_string()
        } else {
            format!("{} (device allows {})", self.slots, self.budget_slots)
        };
        println!("layerbatch stress: {} on {}, {mode}", self.backend, self.adapter);
        println!(
            "  {} sprites{}, {} textures ({} sizes), slots {slots}, arrays {}, {} quads, {} frames after {} of warm-up",
            self.sprites,
            if self.static_sprites > 0 {
                format!(" + {} static in a resident layer", self.static_sprites)
            } else {
                String::new()
            },
            self.textures,
            self.sizes,
            if self.arrays { "on" } else { "off" },
            if self.indexed_quads { "indexed" } else { "instanced" },
            self.frames,
            self.warmup_frames
        );
        println!("  {}", if self.frames > 0 { "per frame, after the warm-up:" } else { "per frame, warm-up:" });
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
        let mb = |b: f64| b / 1e6;
        println!(
            "    {:<30} {:>20}",
            "bytes sent to the device",
            format!(
                "{:.2} MB ({:.2} MB vertices, {:.2} MB resident, {:.2} MB texels)",
                mb(self.instance_bytes_per_frame + self.resident_bytes_per_frame + self.texture_bytes_per_frame),
                mb(self.instance_bytes_per_frame),
                mb(self.resident_bytes_per_frame),
                mb(self.texture_bytes_per_frame)
            )
        );
        if let Some(p) = &self.phases {
            println!("  where a frame's time goes (median / p95 ms):");
            for (name, f) in p.rows() {
                println!("    {name:<30} {:>20}", format!("{:.3} / {:.3}", f.median_ms, f.p95_ms));
            }
            let per_sprite_ns = p.cpu_median_ms() * 1e6 / self.sprites.max(1) as f64;
            println!(
                "    {:<30} {:>20}",
                "layerbatch CPU (push..submit)",
                format!("{:.3} ms, {per_sprite_ns:.1} ns a sprite", p.cpu_median_ms())
            );
        }
        println!("  whole run:");
        let texels = if self.texel_bytes > 0 {
            let decoded = if self.textures_decoded > 0 {
                format!(" ({} decoded to RGBA8 on the CPU: the device lacks the family)", self.textures_decoded)
            } else {
                String::new()
            };
            format!(
                ", texels {:.2} MiB of {}{decoded} ({:.2}x); the device holds {:.2} MiB",
                mib(self.texel_bytes),
                self.format,
                self.bytes_allocated as f64 / self.texel_bytes as f64,
                mib(self.device_bytes_held)
            )
        } else {
            String::new()
        };
        let rows: [(&str, String); 11] = [
            ("cache resets", self.cache_resets.to_string()),
            ("largest slot tier drawn", self.max_slot_tier.to_string()),
            ("layer uploads", self.layer_uploads.to_string()),
            ("pipelines compiled", self.pipeline_compiles.to_string()),
            ("  after the warm-up", self.pipeline_compiles_after_warmup.to_string()),
            (
                "texture memory",
                format!("{:.2} of {:.0} MiB{texels}", mib(self.bytes_allocated), mib(self.budget_bytes)),
            ),
            ("frame time, median", format!("{:.2} ms", self.frame_ms_median)),
            ("frame time, p95", format!("{:.2} ms", self.frame_ms_p95)),
            ("frame time, p99", format!("{:.2} ms", self.frame_ms_p99)),
            ("frame time, mean", format!("{:.2} ms", self.frame_ms_mean)),
            ("frame time, min to max", format!("{:.2} to {:.2} ms", self.frame_ms_min, self.frame_ms_max)),
        ];
        for (name, v) in rows {
            println!("    {name:<30} {v:>20}");
        }
        if let Some(out) = &self.out {
            println!("  last frame saved to {out}");
        }
    }
}
