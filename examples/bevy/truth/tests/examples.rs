//! Bevy 0.20.1's own 2D examples, unchanged but for the plugin line (`bevy-example --diff`),
//! each run headless twice, under Bevy's renderer (the truth) and under layerbatch's drop-in
//! mode, played with the same input and time steps: every pixel of every captured frame
//! within 2 per channel, and layerbatch drawing the sprites it adopted (counted, so a drop-in
//! that drew nothing, or left every sprite to Bevy, cannot pass by being Bevy).
//!
//! Needs a GPU adapter (lavapipe here: there is no skip), Python Arcade's sprites
//! (`scripts/fetch-assets.sh`, run from here when missing) and DejaVu
//! (`scripts/install-fonts.sh`). Each case writes both runs' frames and `frames.txt` under
//! `$CARGO_TARGET_TMPDIR/bevy-examples/<case>/` and one line of the docs' table to
//! `summary.txt` beside them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bevy_examples_truth::{FrameRecord, read_records, stand_in};

/// How far a pixel may be from Bevy's, per channel.
const TOLERANCE: u8 = 2;

struct Case {
    /// The example, and its arguments.
    example: &'static str,
    args: &'static [&'static str],
    /// Counted frames, and those read back.
    frames: u32,
    capture: &'static [u32],
    /// Whether the example shows Bevy `Sprite`s layerbatch adopts (none in a gizmo or mesh
    /// example: there the run shows that drop-in mode leaves Bevy's other items alone).
    adopts: bool,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The stand-in assets, written once per test run.
fn asset_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let arcade = repo().join("target/assets/arcade");
        if !arcade.join("arcade/resources").is_dir() {
            let status = Command::new("bash").arg(repo().join("scripts/fetch-assets.sh")).status();
            assert!(status.is_ok_and(|s| s.success()), "scripts/fetch-assets.sh failed: the examples need its sprites");
        }
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy-example-assets");
        stand_in::write(&arcade, &root).unwrap_or_else(|e| panic!("stand-in assets: {e}"));
        root
    })
}

/// Runs `case` under `renderer` into `out`; its frame records.
fn run(case: &Case, renderer: &str, out: &Path) -> Vec<FrameRecord> {
    let _ = std::fs::remove_dir_all(out);
    let capture: Vec<String> = case.capture.iter().map(u32::to_string).collect();
    let output = Command::new(env!("CARGO_BIN_EXE_bevy-example"))
        .args(case.args)
        .env("LBT_EXAMPLE", case.example)
        .env("LBT_RENDERER", renderer)
        .env("LBT_OUT", out)
        .env("LBT_FRAMES", case.frames.to_string())
        .env("LBT_CAPTURE", capture.join(","))
        .env("BEVY_ASSET_ROOT", asset_root())
        .output()
        .expect("run bevy-example");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{} under {renderer} failed ({}):\n{log}", case.example, output.status);
    let records = read_records(&out.join("frames.txt")).unwrap_or_else(|e| panic!("{}: {e}\n{log}", out.display()));
    assert_eq!(records.len(), case.frames as usize, "{} under {renderer}: frames run\n{log}", case.example);
    records
}

/// A pixel that differs: where, Bevy's, layerbatch's.
type Difference = (u32, u32, [u8; 4], [u8; 4]);

/// Pixels further than `tolerance` from the truth, the largest difference, and where the
/// first few are.
fn compare(truth: &Path, ours: &Path, tolerance: u8) -> (usize, u8, Vec<Difference>) {
    let open = |p: &Path| image::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).to_rgba8();
    let (truth, ours) = (open(truth), open(ours));
    assert_eq!(truth.dimensions(), ours.dimensions(), "frame sizes differ");
    let (mut over, mut max, mut first) = (0, 0, Vec::new());
    for ((x, y, a), b) in truth.enumerate_pixels().zip(ours.pixels()) {
        let diff = a.0.iter().zip(b.0).map(|(a, b)| a.abs_diff(b)).max().unwrap_or(0);
        max = max.max(diff);
        if diff > tolerance {
            over += 1;
            if first.len() < 8 {
                first.push((x, y, a.0, b.0));
            }
        }
    }
    (over, max, first)
}

fn check(case: &Case) {
    let name = std::iter::once(case.example).chain(case.args.iter().copied()).collect::<Vec<_>>().join(" ");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy-examples").join(name.replace([' ', '-'], "_"));
    let bevy = run(case, "bevy", &dir.join("bevy"));
    let layerbatch = run(case, "layerbatch", &dir.join("layerbatch"));
    let mut failures = Vec::new();
    let mut worst = 0;
    for &frame in case.capture {
        let file = format!("frame-{frame}.png");
        let (over, max, first) = compare(&dir.join("bevy").join(&file), &dir.join("layerbatch").join(&file), TOLERANCE);
        worst = worst.max(max);
        if over > 0 {
            failures.push(format!(
                "frame {frame}: {over} pixels over {TOLERANCE} (max {max}); first (x, y, bevy, layerbatch): {first:?}"
            ));
        }
    }
    let last = |r: &[FrameRecord]| r.last().cloned().unwrap_or_default();
    let (b, l) = (last(&bevy), last(&layerbatch));
    let median = |r: &[FrameRecord]| {
        let mut ms: Vec<f64> = r.iter().map(|f| f.update_ms).collect();
        ms.sort_by(f64::total_cmp);
        ms[ms.len() / 2]
    };
    let summary = format!(
        "| {name} | {} | {worst} | {} | {} | {} | {} | {:.1} | {:.1} |",
        case.capture.len(),
        b.phase_draws,
        l.phase_draws,
        l.layerbatch_sprites,
        l.left_to_bevy,
        median(&bevy),
        median(&layerbatch),
    );
    std::fs::write(dir.join("summary.txt"), format!("{summary}\n")).expect("write summary");
    println!("{summary}");
    assert!(failures.is_empty(), "{name}: layerbatch differs from Bevy's renderer:\n{}", failures.join("\n"));
    assert_eq!(b.layerbatch_sprites + b.layerbatch_draws, 0, "{name}: Bevy's run drew with layerbatch");
    if case.adopts {
        assert!(l.layerbatch_sprites > 0 && l.layerbatch_draws > 0, "{name}: layerbatch drew no sprite: {l:?}");
    } else {
        assert_eq!(l.layerbatch_sprites, 0, "{name}: layerbatch drew sprites where the example has none");
    }
}

macro_rules! examples {
    ($($test:ident: $example:literal $args:expr, frames $frames:literal, capture $capture:expr, adopts $adopts:literal;)*) => {
        $(
            #[test]
            fn $test() {
                check(&Case { example: $example, args: &$args, frames: $frames, capture: &$capture, adopts: $adopts });
            }
        )*
    };
}

examples! {
    sprite: "sprite" [], frames 3, capture [3], adopts true;
    sprite_flipping: "sprite_flipping" [], frames 3, capture [3], adopts true;
    sprite_sheet: "sprite_sheet" [], frames 40, capture [1, 20, 40], adopts true;
    sprite_slice: "sprite_slice" [], frames 3, capture [3], adopts true;
    sprite_tile: "sprite_tile" [], frames 30, capture [1, 30], adopts false;
    texture_atlas: "texture_atlas" [], frames 3, capture [3], adopts true;
    sprite_animation: "sprite_animation" [], frames 40, capture [1, 12, 36], adopts true;
    move_sprite: "move_sprite" [], frames 30, capture [1, 30], adopts true;
    rotation: "rotation" [], frames 45, capture [1, 25, 45], adopts true;
    viewport_to_world_2d: "2d_viewport_to_world" [], frames 30, capture [1, 30], adopts false;
    pixel_grid_snap: "pixel_grid_snap" [], frames 30, capture [1, 30], adopts true;
    sprite_scale: "sprite_scale" [], frames 3, capture [3], adopts true;
    transparency_2d: "transparency_2d" [], frames 3, capture [3], adopts true;
    text2d: "text2d" [], frames 30, capture [1, 30], adopts true;
    bloom_2d: "bloom_2d" [], frames 3, capture [3], adopts true;
    testbed_2d_shapes: "testbed_2d" ["Shapes"], frames 3, capture [3], adopts false;
    testbed_2d_text: "testbed_2d" ["Text"], frames 3, capture [3], adopts true;
    testbed_2d_sprite: "testbed_2d" ["Sprite"], frames 3, capture [3], adopts true;
    testbed_2d_sprite_slicing: "testbed_2d" ["SpriteSlicing"], frames 3, capture [3], adopts true;
    testbed_2d_texture_atlas_builder: "testbed_2d" ["TextureAtlasBuilder"], frames 3, capture [3], adopts true;
    bevymark: "bevymark" ["--benchmark", "--waves", "1", "--per-wave", "500", "--material-texture-count", "64"], frames 3, capture [1, 3], adopts true;
}
