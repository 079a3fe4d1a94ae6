//! The looks scene of issue 29 ([`layerbatch_testkit::looks`]) in the page: 64 textures, half
//! normal-mapped, lit and unlit, 8 effects (palette swap by a ramp among them), solid shapes,
//! two text labels ([`layerbatch_testkit::looks_text`]), y-sorted, under 9 lights with a cap
//! of 8 (then 1 and 8): one draw, nothing compiled after creation, within
//! [`looks::TOLERANCE`] of the CPU reference on each path, and the three paths within 2 of
//! one another.

use layerbatch::plan::Instance;
use layerbatch::Batcher;
use layerbatch_testkit::hud::draw::font_system_from_bytes;
use layerbatch_testkit::looks::{self, TextLayer};
use layerbatch_testkit::looks_text::LooksText;

use super::{check_executed, Checked, Fail};
use crate::device::{Backend, Device};

/// The scene with `n` lights, drawn: its pixels, the target's before it, and its labels as
/// the reference composites them.
struct Drawn {
    px: Vec<u8>,
    clear: Vec<u8>,
    labels: Vec<TextLayer>,
}

async fn draw(backend: Backend, n: usize) -> Result<Drawn, Fail> {
    let mut dev = Device::open(backend, looks::SIZE).await?;
    let drawn = draw_on(&mut dev, n).await;
    // Closed whatever happened: Chromium keeps 16 WebGL2 contexts at most.
    dev.close();
    drawn
}

async fn draw_on(dev: &mut Device, n: usize) -> Result<Drawn, Fail> {
    // The labels are set in DejaVu Sans, fetched from the site.
    let mut text = LooksText::new(font_system_from_bytes(crate::hud::font_files().await?));
    let mut b = Batcher::new(dev.limits(), looks::config()).map_err(|e| format!("budget: {e}"))?;
    dev.init(b.budget())?;
    let compiles = dev.stats().device_total.pipeline_compiles;
    let (ids, white) = looks::register(&mut b)?;
    b.begin_frame();
    dev.draw(b.finish()).await?;
    let clear = dev.read().await?;
    looks::record(&mut b, &ids, white, n)?;
    let glyphs = text.record(&mut b)?;
    ensure!(glyphs >= 14, "{glyphs} glyph quads");
    let plan = b.finish();
    let (lights, dropped) = (plan.counters.lights, plan.counters.lights_dropped);
    ensure!(
        (lights, dropped) == (n.min(8) as u64, n.saturating_sub(8) as u64),
        "{n} lights: {lights} kept, {dropped} dropped"
    );
    dev.draw(plan).await?;
    let stats = dev.stats();
    check_executed(plan, &stats, Instance::quad_bytes(plan.indexed))?;
    ensure!(stats.device_frame.draw_calls == 1, "{} draw calls", stats.device_frame.draw_calls);
    let after = stats.device_total.pipeline_compiles;
    ensure!(after == compiles, "{} programs or pipelines compiled after creation", after - compiles);
    Ok(Drawn { px: dev.read().await?, clear, labels: text.layers() })
}

/// On one path: one draw with 9, 1 and 8 lights, each within the tolerance of the reference.
pub async fn looks_one_draw(backend: Backend) -> Checked {
    let mut worst_of_all = 0;
    for n in [9, 1, 8] {
        let drawn = draw(backend, n).await?;
        // With 9 lights the cap keeps 8: the reference draws with those.
        let want = looks::reference_with_text(&looks::lights(n.min(8)), &drawn.clear, &drawn.labels);
        let (differing, worst) = looks::differing(&drawn.px, &want, looks::TOLERANCE);
        ensure!(
            differing == 0,
            "{n} lights: {differing} pixels differ from the reference by more than {} (worst {worst})",
            looks::TOLERANCE
        );
        worst_of_all = worst_of_all.max(worst);
    }
    Ok(format!(
        "1 draw, 0 compiles after creation, 9 lights capped at 8 (1 dropped), 1 and 8; worst difference \
         from the CPU reference {worst_of_all} ({})",
        backend.name()
    ))
}

/// The three paths within 2 of one another (of GL's picture), 8 lights.
pub async fn looks_parity() -> Checked {
    let gl = draw(Backend::Gl, 8).await?;
    let mut notes = Vec::new();
    for backend in [Backend::WgpuWebgl, Backend::WgpuWebgpu] {
        let other = draw(backend, 8).await?;
        let (differing, worst) = looks::differing(&gl.px, &other.px, 2);
        ensure!(
            differing == 0,
            "{}: {differing} pixels differ from gl's by more than 2 (worst {worst})",
            backend.name()
        );
        notes.push(format!("{}: worst {worst}", backend.name()));
    }
    Ok(format!("within 2 of gl: {}", notes.join(", ")))
}
