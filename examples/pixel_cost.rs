//! Instructions per pixel of layerbatch-gl's fragment work against a plain sprite shader,
//! counted rather than timed (repeatable on a busy machine): run under callgrind with
//! llvmpipe on the calling thread, collecting only inside `measure`:
//!
//! ```sh
//! LP_NUM_THREADS=0 valgrind --tool=callgrind --toggle-collect='*measure*' \
//!     target/release/examples/pixel_cost tier1 4
//! ```
//!
//! `Ir` / (frames * pixels per frame) is the cost per pixel. Cases: see
//! `examples/support/fill.rs` (`baseline`, `previous_tier1`, `tier1`, `tier4`).

#[allow(unsafe_code, dead_code)]
#[path = "support/egl.rs"]
mod egl;
#[allow(unsafe_code)]
#[path = "support/fill.rs"]
mod fill;

/// The frames callgrind counts.
#[inline(never)]
fn measure(case: &mut fill::GlCase, rig: &fill::GlRig, frames: u32) {
    for _ in 0..frames {
        case.frame(rig);
    }
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let name = args.next().ok_or(format!("usage: pixel_cost CASE [FRAMES] (cases: {:?})", fill::GL_CASES))?;
    let frames: u32 = args.next().map_or(Ok(4), |f| f.parse()).map_err(|e| format!("frames: {e}"))?;
    let rig = fill::GlRig::new([320, 240])?;
    let mut case = fill::GlCase::new(&rig, &name).ok_or(format!("no case {name}: {:?}", fill::GL_CASES))?;
    measure(&mut case, &rig, frames);
    println!("{name}: {frames} frames of {} pixels, tiers {:?}", rig.pixels(), case.tiers());
    case.destroy();
    Ok(())
}
