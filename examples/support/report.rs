//! The stress scene's figures: per-frame sums, the recorder of a run, and the summary
//! (`Report`) printed as a table and, with `--json`, as one JSON object. Shared by
//! `examples/stress.rs` and the browser page (`examples/web`), so both print the same fields.
//!
//! Include it as `#[path = ...] mod report;` beside `mod scene;` at the crate root.
#![allow(dead_code)]

use std::path::PathBuf;

use layerbatch::{Batcher, Budget, Stats};

use crate::scene::{Scene, Sizes};

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
    /// The last frame's time.
    pub last_ms: f64,
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
        self.last_ms = frame_ms;
    }

    /// Per-frame sums over the frames after the first (the first alone if there is no other).
    pub fn sums(&self) -> &Sums {
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
    pub fn frame_ms(&self) -> Vec<f64> {
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
    frames: u64,
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
    /// Bytes of the scene's live texels (level 0), beside what the arrays hold.
    pub texel_bytes: u64,
    bytes_allocated: u64,
    budget_bytes: u64,
    pub arrays_alive: usize,
    frame_ms_median: f64,
    frame_ms_p99: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
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
        let mut ms = rec.frame_ms();
        ms.sort_by(f64::total_cmp);
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
            frames: rec.frames,
            sprites: run.sprites,
            textures: run.textures,
            sizes: if run.sizes == Sizes::Mixed { "mixed" } else { "pow2" },
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
            pipeline_compiles_after_warmup: compiles.saturating_sub(rec.compiles_after_first),
            texel_bytes: 0,
            bytes_allocated: total.bytes_allocated,
            budget_bytes: budget.budget_bytes,
            arrays_alive: 0,
            frame_ms_median: percentile(&ms, 0.5),
            frame_ms_p99: percentile(&ms, 0.99),
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
            "  {} sprites, {} textures ({} sizes), slots {slots}, arrays {}, {} quads, {} frames",
            self.sprites,
            self.textures,
            self.sizes,
            if self.arrays { "on" } else { "off" },
            if self.indexed_quads { "indexed" } else { "instanced" },
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
        let texels =
            if self.texel_bytes > 0 { format!(", texels {:.1} MiB", mib(self.texel_bytes)) } else { String::new() };
        let rows: [(&str, String); 8] = [
            ("cache resets", self.cache_resets.to_string()),
            ("largest slot tier drawn", self.max_slot_tier.to_string()),
            ("layer uploads", self.layer_uploads.to_string()),
            ("pipelines compiled", self.pipeline_compiles.to_string()),
            ("  after the first frame", self.pipeline_compiles_after_warmup.to_string()),
            (
                "texture memory",
                format!("{:.1} of {:.0} MiB{texels}", mib(self.bytes_allocated), mib(self.budget_bytes)),
            ),
            ("frame time, median", format!("{:.2} ms", self.frame_ms_median)),
            ("frame time, p99", format!("{:.2} ms", self.frame_ms_p99)),
        ];
        for (name, v) in rows {
            println!("    {name:<30} {v:>20}");
        }
        if let Some(out) = &self.out {
            println!("  last frame saved to {out}");
        }
    }
}

/// The nearest-rank percentile `p` (0..=1) of sorted `v`.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
