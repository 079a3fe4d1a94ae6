//! The HUD scene of issue 18 in the page: one draw call per frame at slot tier 1 on every
//! path, the pixels it should have where they are certain, text where the texts are, and the
//! same pixels on the three paths.

use layerbatch::plan::Instance;
use layerbatch::{premultiply, FramePlan, Quad, Stats};
use layerbatch_testkit::hud::{self, HudItem, HudScene};
use layerbatch_testkit::text_ref::TextReference;

use super::{check_executed, Checked, Fail, Image, PARITY_TOLERANCE};
use crate::device::Backend;
use crate::hud::{HudRig, RigError};

mod reference;

/// The scene the tests draw.
const SEED: u32 = 7;

impl From<RigError> for Fail {
    fn from(e: RigError) -> Self {
        match e {
            RigError::Unavailable(e) => Fail::Unavailable(e),
            RigError::Failed(e) => Fail::Failed(e),
        }
    }
}

/// A drawn frame: its pixels, a copy of its primitives and its counters.
struct Drawn {
    img: Image,
    instances: Vec<Instance>,
    triangles: Vec<[layerbatch::plan::Corner; 3]>,
    counters: layerbatch::Counters,
}

/// One draw call, tier 1, nothing refused, and the device did what the plan said.
fn check_one_draw(plan: &FramePlan, stats: &Stats, when: &str) -> Result<(), Fail> {
    let c = plan.counters;
    ensure!(
        c.draw_calls == 1,
        "{when}: {} draw calls planned ({} flushes for state changes)",
        c.draw_calls,
        c.flushes_state_change
    );
    ensure!(stats.device_frame.draw_calls == 1, "{when}: {} draw calls issued", stats.device_frame.draw_calls);
    ensure!(c.max_slot_tier == 1, "{when}: slot tier {}", c.max_slot_tier);
    ensure!(c.cache_resets == 0, "{when}: {} cache resets", c.cache_resets);
    ensure!(
        c.quads_rejected == 0 && c.meshes_rejected == 0,
        "{when}: {} quads, {} meshes refused",
        c.quads_rejected,
        c.meshes_rejected
    );
    ensure!(c.triangles > 0, "{when}: no triangles (shapes) drawn");
    check_executed(plan, stats, Instance::quad_bytes(plan.indexed))
}

/// Draws `scene` twice on `backend` (the second frame with every glyph cached), checks one
/// draw at tier 1 both times and no upload the second time, and returns the second frame.
async fn draw_twice(backend: Backend, scene: &HudScene) -> Result<Drawn, Fail> {
    let mut rig = HudRig::open(backend, scene).await?;
    let drawn = twice(&mut rig, scene).await;
    // Closed whatever happened: Chromium keeps 16 WebGL2 contexts at most.
    rig.close();
    drawn
}

async fn twice(rig: &mut HudRig, scene: &HudScene) -> Result<Drawn, Fail> {
    rig.frame(scene).await?;
    check_one_draw(rig.plan(), &rig.dev.stats(), "first frame")?;
    rig.frame(scene).await?;
    let plan = rig.plan();
    check_one_draw(plan, &rig.dev.stats(), "second frame")?;
    ensure!(
        plan.counters.layer_uploads == 0,
        "second frame: {} layer uploads (glyphs not cached?)",
        plan.counters.layer_uploads
    );
    let (instances, triangles, counters) = (plan.instances.to_vec(), plan.triangles.clone(), plan.counters);
    let img = Image { px: rig.dev.read().await?, size: scene.size_px };
    Ok(Drawn { img, instances, triangles, counters })
}

/// The scene without its texts.
fn without_text(scene: &HudScene) -> HudScene {
    let mut s = scene.clone();
    s.items.retain(|i| !matches!(i, HudItem::Text { .. }));
    s
}

// 1. The HUD scene (400 world sprites of 64 textures, 40 additive, nine-slice and rounded
//    panels, bars, lines, a polyline, circles, polygons, six texts in three fonts, all
//    interleaved) in one draw call at slot tier 1, twice (no upload the second time); where a
//    pixel's colour is certain (inside or outside every item by more than the anti-aliasing
//    band, away from texts), it is the colour compositing the items on the CPU gives, within
//    `reference::TOLERANCE`; and the texts: drawn again without them, the frames differ only
//    inside the texts' boxes, and inside each by enough pixels.
pub async fn hud_one_draw(backend: Backend) -> Checked {
    let scene = hud::scene(SEED);
    let full = draw_twice(backend, &scene).await?;
    let points = reference::check_points(&scene, &full.img)?;
    let bare = draw_twice(backend, &without_text(&scene)).await?;
    let boxes: Vec<[u32; 4]> = scene.items.iter().filter_map(|i| reference::text_box(i, scene.size_px)).collect();
    let inside = |x: u32, y: u32| boxes.iter().any(|b| x >= b[0] && x < b[2] && y >= b[1] && y < b[3]);
    let mut per_box = vec![0usize; boxes.len()];
    for (x, y, p) in full.img.pixels() {
        let q = bare.img.at(x, y);
        if p == q {
            continue;
        }
        ensure!(inside(x, y), "({x}, {y}) is {p:?} with the texts and {q:?} without, outside every text's box");
        for (n, b) in boxes.iter().enumerate() {
            if x >= b[0] && x < b[2] && y >= b[1] && y < b[3] {
                per_box[n] += 1;
            }
        }
    }
    for (n, (item, &count)) in
        scene.items.iter().filter(|i| matches!(i, HudItem::Text { .. })).zip(&per_box).enumerate()
    {
        let HudItem::Text { text, .. } = item else { continue };
        let glyphs = text.chars().filter(|c| !c.is_whitespace()).count();
        ensure!(count >= 8 * glyphs, "text {n} ({text:?}): only {count} pixels drawn for {glyphs} glyphs");
    }
    Ok(format!(
        "1 draw call at tier 1 per frame ({} quads, {} triangles), no upload on the second frame; {points}; texts: {per_box:?} pixels in their boxes, none outside ({})",
        full.counters.quads,
        full.counters.triangles,
        backend.name()
    ))
}

// 1b. The HUD scene's texts alone over a plain background, one draw: every glyph (Latin, CJK,
//     colour emoji) against swash's own image composited on the CPU, within 2 per channel.
pub async fn hud_glyphs(backend: Backend) -> Checked {
    let scene = hud::scene(SEED);
    let mut rig = HudRig::open(backend, &scene).await?;
    let result = glyphs_against_swash(&mut rig, &scene).await;
    rig.close();
    Ok(format!("{} ({})", result?, backend.name()))
}

async fn glyphs_against_swash(rig: &mut HudRig, scene: &HudScene) -> Checked {
    const BACK: [u8; 4] = [30, 30, 40, 255];
    let [w, h] = scene.size_px;
    let mut want = TextReference::new(w, h, BACK);
    let HudRig { dev, batcher, drawer } = rig;
    let white = batcher.textures().white().map_err(|e| format!("white: {e}"))?;
    batcher.begin_frame();
    batcher.push(&Quad::solid(white, [0.0, 0.0], [w as f32, h as f32], BACK)).map_err(|e| format!("{e}"))?;
    let texts = scene.items.iter().filter_map(|i| match i {
        HudItem::Text { pos, color, .. } => Some((*pos, premultiply(*color))),
        _ => None,
    });
    for ((pos, color), buffer) in texts.zip(&drawer.buffers) {
        drawer.glyphs.draw_buffer(batcher, &mut drawer.fonts, buffer, pos, color).map_err(|e| format!("{e}"))?;
        want.draw_buffer(&mut drawer.fonts, buffer, pos, color);
    }
    let plan = batcher.finish();
    ensure!(plan.segments.len() == 1, "{} segments", plan.segments.len());
    dev.draw(plan).await?;
    let got = dev.read().await?;
    ensure!(want.glyphs.iter().any(|g| g.color), "no colour glyph among {}", want.glyphs.len());
    want.compare_glyphs(&got, 2)?;
    Ok(format!("{} glyphs within 2 of swash's", want.glyphs.len()))
}

// 2. Parity: the HUD scene through GL, wgpu on WebGL2 and wgpu on WebGPU reads back the same
//    pixels, every channel within 2, away from primitive edges (within 1/16 px of a quad's or
//    a triangle's edge SwiftShader's snapping and two shader compilers may put a pixel in or
//    out); the same primitives and counters everywhere.
pub async fn hud_parity() -> Checked {
    let scene = hud::scene(SEED);
    let mut frames = Vec::new();
    for backend in Backend::ALL {
        frames.push((backend, draw_twice(backend, &scene).await?));
    }
    let (_, reference) = &frames[0];
    let edges = edge_mask(&reference.instances, &reference.triangles, scene.size_px, 1.0 / 16.0);
    let masked = edges.iter().filter(|&&e| e).count();
    let mut notes = vec![format!("{masked} of {} pixels within 1/16 px of an edge ignored", edges.len())];
    for (backend, other) in &frames[1..] {
        let drawn = |c: &layerbatch::Counters| (c.quads, c.triangles, c.draw_calls, c.max_slot_tier);
        ensure!(drawn(&other.counters) == drawn(&reference.counters), "{}: counters differ from gl's", backend.name());
        let corners = |q: &Instance| (q.origin, q.axis_x, q.axis_y, q.color);
        ensure!(
            other.instances.iter().map(corners).eq(reference.instances.iter().map(corners)),
            "{}: primitives differ from gl's",
            backend.name()
        );
        let (mut differing, mut worst, mut first, mut at_edges) = (0usize, 0u8, None, 0usize);
        for (i, (a, b)) in reference.img.px.chunks_exact(4).zip(other.img.px.chunks_exact(4)).enumerate() {
            let d = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
            if edges[i] {
                at_edges += usize::from(d > PARITY_TOLERANCE);
                continue;
            }
            worst = worst.max(d);
            if d > PARITY_TOLERANCE {
                differing += 1;
                let w = scene.size_px[0];
                first.get_or_insert((i as u32 % w, i as u32 / w, [a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]]));
            }
        }
        ensure!(
            differing == 0,
            "{}: {differing} pixels away from edges differ from gl's by more than {PARITY_TOLERANCE} (worst {worst}); first {first:?}",
            backend.name()
        );
        notes.push(format!(
            "{}: worst difference {worst} away from edges, {at_edges} edge pixels differ",
            backend.name()
        ));
    }
    Ok(notes.join("; "))
}

/// Pixels whose centre lies within `margin` px of an edge of a quad or a triangle.
fn edge_mask(
    instances: &[Instance],
    triangles: &[[layerbatch::plan::Corner; 3]],
    size: [u32; 2],
    margin: f32,
) -> Vec<bool> {
    let [w, h] = size;
    let mut mask = vec![false; (w * h) as usize];
    let mut mark = |a: [f32; 2], b: [f32; 2]| {
        let x0 = (a[0].min(b[0]) - 1.0).floor().max(0.0) as u32;
        let x1 = ((a[0].max(b[0]) + 1.0).ceil().max(0.0) as u32).min(w);
        let y0 = (a[1].min(b[1]) - 1.0).floor().max(0.0) as u32;
        let y1 = ((a[1].max(b[1]) + 1.0).ceil().max(0.0) as u32).min(h);
        let d = [b[0] - a[0], b[1] - a[1]];
        let len2 = (d[0] * d[0] + d[1] * d[1]).max(1e-12);
        for y in y0..y1 {
            for x in x0..x1 {
                let p = [x as f32 + 0.5 - a[0], y as f32 + 0.5 - a[1]];
                let t = ((p[0] * d[0] + p[1] * d[1]) / len2).clamp(0.0, 1.0);
                let (ex, ey) = (p[0] - t * d[0], p[1] - t * d[1]);
                if ex * ex + ey * ey <= margin * margin {
                    mask[(y * w + x) as usize] = true;
                }
            }
        }
    };
    for q in instances.iter().filter(|q| !q.is_triangle()) {
        let o = q.origin;
        let corners = [
            o,
            [o[0] + q.axis_x[0], o[1] + q.axis_x[1]],
            [o[0] + q.axis_x[0] + q.axis_y[0], o[1] + q.axis_x[1] + q.axis_y[1]],
            [o[0] + q.axis_y[0], o[1] + q.axis_y[1]],
        ];
        for k in 0..4 {
            mark(corners[k], corners[(k + 1) % 4]);
        }
    }
    for t in triangles {
        for k in 0..3 {
            mark(t[k].pos_px, t[(k + 1) % 3].pos_px);
        }
    }
    mask
}
