//! The colour offset scene ([`layerbatch_testkit::color_offset`]) in the page: one draw,
//! within [`scene::TOLERANCE`] of the CPU reference on each path.

use layerbatch::Batcher;
use layerbatch_testkit::color_offset as scene;

use super::{Checked, Fail};
use crate::device::{Backend, Device};

/// On one path: offsets alone, under a tint, after a flash, through save / restore.
pub async fn color_offset(backend: Backend) -> Checked {
    let mut dev = Device::open(backend, scene::SIZE).await?;
    let drawn = draw_on(&mut dev).await;
    // Closed whatever happened: Chromium keeps 16 WebGL2 contexts at most.
    dev.close();
    let px = drawn?;
    let want = scene::reference();
    let mut worst = 0u8;
    let mut differing = 0;
    for (a, b) in px.iter().zip(&want) {
        let d = a.abs_diff(*b);
        worst = worst.max(d);
        differing += usize::from(d > scene::TOLERANCE);
    }
    ensure!(
        differing == 0,
        "{differing} channels differ from the reference by more than {} (worst {worst})",
        scene::TOLERANCE
    );
    Ok(format!("1 draw; worst difference from the CPU reference {worst} ({})", backend.name()))
}

async fn draw_on(dev: &mut Device) -> Result<Vec<u8>, Fail> {
    let mut b = Batcher::new(dev.limits(), scene::config()).map_err(|e| format!("budget: {e}"))?;
    dev.init(b.budget())?;
    let white = b.textures().white().map_err(|e| format!("white: {e}"))?;
    b.begin_frame();
    scene::record(&mut b, white)?;
    dev.draw(b.finish()).await?;
    let draws = dev.stats().device_frame.draw_calls;
    ensure!(draws == 1, "{draws} draw calls");
    Ok(dev.read().await?)
}
