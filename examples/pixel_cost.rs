//! Instructions per pixel of layerbatch-gl's fragment work against a plain sprite shader,
//! counted rather than timed (repeatable on a busy machine): run under callgrind with
//! llvmpipe on the calling thread, collecting only inside `measure`:
//!
//! ```sh
//! LP_NUM_THREADS=0 valgrind --tool=callgrind --toggle-collect='*measure*' \
//!     target/release/examples/pixel_cost gl tier1 4
//! ```
//!
//! (`wgpu` instead of `gl`: layerbatch-wgpu on lavapipe, the same cases in WGSL.) Run each
//! case with 1 and with 3 frames: half the difference of the two counts is one frame, without
//! the setup. `Ir` of a frame / pixels per frame is the cost per pixel. Cases: see
//! `layerbatch_testkit::fill` (`baseline`, `previous_tier1`, `tier1`, `tier4`).

use layerbatch_testkit::fill;

/// The frames callgrind counts.
#[inline(never)]
fn measure(frames: u32, mut frame: impl FnMut()) {
    for _ in 0..frames {
        frame();
    }
}

const SIZE: [u32; 2] = [320, 240];

fn main() -> Result<(), String> {
    let usage = || format!("usage: pixel_cost gl|wgpu CASE [FRAMES] (cases: {:?})", fill::CASES);
    let mut args = std::env::args().skip(1);
    let backend = args.next().ok_or_else(usage)?;
    let name = args.next().ok_or_else(usage)?;
    let frames: u32 = args.next().map_or(Ok(4), |f| f.parse()).map_err(|e| format!("frames: {e}"))?;
    match backend.as_str() {
        "gl" => {
            let rig = fill::GlRig::new(SIZE)?;
            let mut case = fill::GlCase::new(&rig, &name).ok_or_else(usage)?;
            measure(frames, || case.frame(&rig));
            println!("gl {name}: {frames} frames of {} pixels, tiers {:?}", rig.pixels(), case.tiers());
            case.destroy();
        }
        "wgpu" => {
            let rig = fill::WgpuRig::new(SIZE)?;
            let mut case = fill::WgpuCase::new(&rig, &name).ok_or_else(usage)?;
            measure(frames, || case.frame(&rig));
            println!("wgpu {name}: {frames} frames of {} pixels, max tier {}", rig.pixels(), case.max_tier());
        }
        _ => return Err(usage()),
    }
    Ok(())
}
