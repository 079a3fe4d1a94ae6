//! What a pixel of the HUD scene must be where that is certain: the items composited on the
//! CPU at the pixel's centre, in z order, each either clearly covering it (by more than the
//! anti-aliasing band and SwiftShader's snapping) with a colour that does not vary there, or
//! clearly not; any item that might cover it partly (an edge, a texture's frame boundary, a
//! stroke, a line, a text's box) makes the pixel uncertain, and it is not checked.

use layerbatch::premultiply;
use layerbatch_testkit::hud::{panel_pixels, HudBlend, HudFont, HudItem, HudScene, PANEL_BORDER_PX, PANEL_PX};

use super::super::{Fail, Image};

/// Largest channel difference allowed from the CPU's compositing: each item's colour rounded
/// to 8 bits before the next blends over it, on both sides, with the tint's premultiplication
/// rounded on the CPU and the texel-times-tint product in floats on the GPU.
pub const TOLERANCE: u8 = 4;

/// Distance, pixels, from a shape's outline within which its coverage is uncertain: the
/// feathering band (1 px) and the vertices' snapping, with room.
const BAND: f32 = 1.5;

/// What one item does at a point.
enum Cover {
    /// Not there.
    Out,
    /// Maybe partly: the point is not checked.
    Unsure,
    /// Covers it with this premultiplied colour and blend.
    In([f32; 4], HudBlend),
}

/// A generous box around a text item's glyphs, `[x0, y0, x1, y1)` pixels: its top-left
/// position, an advance per character no font here exceeds at its size (Latin 0.8, CJK 1.1,
/// emoji 1.4 ems) and 1.6 ems of height, grown by 4 px.
pub fn text_box(item: &HudItem, size: [u32; 2]) -> Option<[u32; 4]> {
    let HudItem::Text { text, font, size_px, pos, .. } = item else { return None };
    let em = match font {
        HudFont::Latin => 0.8,
        HudFont::Cjk => 1.1,
        HudFont::Emoji => 1.4,
    };
    let width = text.chars().count() as f32 * em * size_px;
    let clamp = |v: f32, max: u32| (v.max(0.0) as u32).min(max);
    Some([
        clamp(pos[0] - 4.0, size[0]),
        clamp(pos[1] - 4.0, size[1]),
        clamp(pos[0] + width + 4.0, size[0]),
        clamp(pos[1] + 1.6 * size_px + 4.0, size[1]),
    ])
}

fn premul(c: [u8; 4]) -> [f32; 4] {
    premultiply(c).map(f32::from)
}

/// `texel * tint / 255`, both premultiplied.
fn modulate(texel: [u8; 4], tint: [u8; 4]) -> [f32; 4] {
    let t = premul(tint);
    let mut out = [0.0; 4];
    for k in 0..4 {
        out[k] = f32::from(texel[k]) * t[k] / 255.0;
    }
    out
}

/// Where a sample at `s` texels falls along an axis of `n` texels whose outer 2 texels are a
/// frame: `Some(true)` in the frame, `Some(false)` inside it, `None` where linear filtering
/// (and a quarter texel of room) mixes the two.
fn frame_axis(s: f32, n: f32) -> Option<bool> {
    if s < 1.25 || s > n - 1.25 {
        Some(true)
    } else if s > 2.75 && s < n - 2.75 {
        Some(false)
    } else {
        None
    }
}

fn texel(px: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [px[i], px[i + 1], px[i + 2], px[i + 3]]
}

/// Signed distance from `p` to a rounded rectangle (negative inside).
fn rounded_rect_sd(p: [f32; 2], [x, y, w, h]: [f32; 4], r: f32) -> f32 {
    let (hx, hy) = (w / 2.0, h / 2.0);
    let r = r.min(hx).min(hy);
    let qx = (p[0] - (x + hx)).abs() - (hx - r);
    let qy = (p[1] - (y + hy)).abs() - (hy - r);
    qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0) - r
}

fn segment_distance(p: [f32; 2], a: [f32; 2], b: [f32; 2]) -> f32 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = (d[0] * d[0] + d[1] * d[1]).max(1e-12);
    let t = (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0);
    (p[0] - a[0] - t * d[0]).hypot(p[1] - a[1] - t * d[1])
}

/// A filled and maybe stroked outline at signed distance `sd`: a stroke (centred or inside
/// the outline, whichever the tessellator does) makes everything within its width of the
/// outline uncertain.
fn shape(sd: f32, fill: Option<[u8; 4]>, stroke: Option<(f32, [u8; 4])>) -> Cover {
    let band = BAND + stroke.map_or(0.0, |(w, _)| w);
    if sd.abs() < band {
        Cover::Unsure
    } else if sd < 0.0 {
        fill.map_or(Cover::Out, |c| Cover::In(premul(c), HudBlend::Over))
    } else {
        Cover::Out
    }
}

/// Winding number of `points` around `p`.
fn winding(p: [f32; 2], points: &[[f32; 2]]) -> i32 {
    let mut wn = 0;
    for (k, a) in points.iter().enumerate() {
        let b = points[(k + 1) % points.len()];
        let cross = (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]);
        if a[1] <= p[1] && b[1] > p[1] && cross > 0.0 {
            wn += 1;
        } else if a[1] > p[1] && b[1] <= p[1] && cross < 0.0 {
            wn -= 1;
        }
    }
    wn
}

/// The panel texture's two colours: its frame's and its inside's.
struct Panel {
    frame: [u8; 4],
    inside: [u8; 4],
}

impl Panel {
    fn new() -> Self {
        let px = panel_pixels();
        let mid = PANEL_PX / 2;
        Self { frame: texel(&px, PANEL_PX, mid, 1), inside: texel(&px, PANEL_PX, mid, mid) }
    }
}

fn cover(scene: &HudScene, panel: &Panel, item: &HudItem, p: [f32; 2]) -> Cover {
    match item {
        HudItem::Sprite { texture, center, size, angle_rad, tint, blend } => {
            let (s, c) = angle_rad.sin_cos();
            let d = [p[0] - center[0], p[1] - center[1]];
            // Local coordinates along the quad's axes (`Quad::rotated`: x along (c, s)).
            let (lx, ly) = (d[0] * c + d[1] * s, -d[0] * s + d[1] * c);
            let (u, v) = (lx / size[0] + 0.5, ly / size[1] + 0.5);
            let edge = (u * size[0]).min((1.0 - u) * size[0]).min((v * size[1]).min((1.0 - v) * size[1]));
            if edge < -1.0 {
                return Cover::Out;
            }
            if edge < 1.0 {
                return Cover::Unsure;
            }
            let t = &scene.textures[*texture];
            let (tw, th) = (t.width_px, t.height_px);
            let in_frame = match (frame_axis(u * tw as f32, tw as f32), frame_axis(v * th as f32, th as f32)) {
                (Some(true), _) | (_, Some(true)) => true,
                (Some(false), Some(false)) => false,
                _ => return Cover::Unsure,
            };
            let texel = if in_frame { texel(&t.pixels, tw, 0, 0) } else { texel(&t.pixels, tw, tw / 2, th / 2) };
            Cover::In(modulate(texel, *tint), *blend)
        }
        HudItem::NineSlice { rect: [x, y, w, h], tint } => {
            let ex = (p[0] - x).min(x + w - p[0]);
            let ey = (p[1] - y).min(y + h - p[1]);
            if ex < -1.0 || ey < -1.0 {
                return Cover::Out;
            }
            // The border is drawn unscaled: texel = pixels from the edge. Edges, the rounded
            // corners and the frame's inner boundary (half the border) are uncertain.
            let half = PANEL_BORDER_PX * 0.5;
            let corner = PANEL_BORDER_PX - 1.0;
            let near = |e: f32| (half - 1.0..half + 1.0).contains(&e);
            if ex < 1.0 || ey < 1.0 || (ex < corner && ey < corner) || near(ex) || near(ey) {
                return Cover::Unsure;
            }
            let texel = if ex < half || ey < half { panel.frame } else { panel.inside };
            Cover::In(modulate(texel, *tint), HudBlend::Over)
        }
        HudItem::RoundedRect { rect, radius, fill, stroke } => {
            shape(rounded_rect_sd(p, *rect, *radius), Some(*fill), *stroke)
        }
        HudItem::Circle { center, radius, fill, stroke } => {
            shape((p[0] - center[0]).hypot(p[1] - center[1]) - radius, *fill, *stroke)
        }
        HudItem::Polygon { points, color } => {
            let dist = (0..points.len())
                .map(|k| segment_distance(p, points[k], points[(k + 1) % points.len()]))
                .fold(f32::INFINITY, f32::min);
            if dist < BAND {
                Cover::Unsure
            } else if winding(p, points) != 0 {
                Cover::In(premul(*color), HudBlend::Over)
            } else {
                Cover::Out
            }
        }
        HudItem::Line { from, to, width, .. } => {
            if segment_distance(p, *from, *to) < width / 2.0 + 2.0 * BAND {
                Cover::Unsure
            } else {
                Cover::Out
            }
        }
        HudItem::Polyline { points, width, .. } => {
            let near = points.windows(2).any(|s| segment_distance(p, s[0], s[1]) < width / 2.0 + 2.0 * BAND);
            if near {
                Cover::Unsure
            } else {
                Cover::Out
            }
        }
        HudItem::Text { .. } => {
            let b = text_box(item, scene.size_px).unwrap_or_default();
            let inside = p[0] >= b[0] as f32 && p[0] < b[2] as f32 && p[1] >= b[1] as f32 && p[1] < b[3] as f32;
            if inside {
                Cover::Unsure
            } else {
                Cover::Out
            }
        }
    }
}

/// The pixel at `(x, y)` composited on the CPU over the opaque black clear, with the kind of
/// the topmost item there; `None` where uncertain.
fn expected(scene: &HudScene, panel: &Panel, x: u32, y: u32) -> Option<([u8; 4], &'static str)> {
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    let mut dst = [0.0f32, 0.0, 0.0, 255.0];
    let mut top = "background";
    for item in &scene.items {
        match cover(scene, panel, item, p) {
            Cover::Out => {}
            Cover::Unsure => return None,
            Cover::In(src, blend) => {
                // Premultiplied: "over" is src + dst (1 - src alpha); additive adds the colour
                // and keeps the alpha. Rounded to 8 bits as the target stores it.
                let keep = if blend == HudBlend::Additive { 1.0 } else { 1.0 - src[3] / 255.0 };
                for k in 0..4 {
                    let s = if blend == HudBlend::Additive && k == 3 { 0.0 } else { src[k] };
                    dst[k] = (s + dst[k] * keep).round().clamp(0.0, 255.0);
                }
                top = match item {
                    HudItem::Sprite { blend: HudBlend::Additive, .. } => "additive sprite",
                    HudItem::Sprite { .. } => "sprite",
                    HudItem::NineSlice { .. } => "nine-slice",
                    HudItem::RoundedRect { .. } => "rounded rect",
                    HudItem::Circle { .. } => "circle",
                    HudItem::Polygon { .. } => "polygon",
                    _ => "other",
                };
            }
        }
    }
    Some((dst.map(|v| v as u8), top))
}

/// Checks every certain pixel of a 4-pixel grid against the CPU's compositing; at least one
/// under each kind of item is required. Returns a summary.
pub fn check_points(scene: &HudScene, img: &Image) -> Result<String, Fail> {
    const KINDS: [&str; 7] =
        ["background", "sprite", "additive sprite", "nine-slice", "rounded rect", "circle", "polygon"];
    let panel = Panel::new();
    let mut counts = [0usize; KINDS.len()];
    let (mut worst, mut bad) = (0u8, Vec::new());
    for y in (2..scene.size_px[1]).step_by(4) {
        for x in (2..scene.size_px[0]).step_by(4) {
            let Some((want, top)) = expected(scene, &panel, x, y) else { continue };
            let got = img.at(x, y);
            let d = got.iter().zip(want).map(|(g, w)| g.abs_diff(w)).max().unwrap_or(0);
            worst = worst.max(d);
            if d > TOLERANCE {
                bad.push(format!("({x}, {y}) under a {top}: {got:?}, want {want:?}"));
            }
            if let Some(k) = KINDS.iter().position(|&n| n == top) {
                counts[k] += 1;
            }
        }
    }
    let checked: usize = counts.iter().sum();
    if !bad.is_empty() {
        return Err(Fail::Failed(format!(
            "{} of {checked} certain pixels differ from the CPU's compositing by more than {TOLERANCE}: {}",
            bad.len(),
            bad.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
        )));
    }
    let missing: Vec<_> = KINDS.iter().zip(counts).filter(|(_, n)| *n == 0).map(|(k, _)| *k).collect();
    if !missing.is_empty() {
        return Err(Fail::Failed(format!("no certain pixel under a {missing:?}")));
    }
    let by_kind: Vec<String> = KINDS.iter().zip(counts).map(|(k, n)| format!("{n} {k}")).collect();
    Ok(format!("{checked} certain pixels as composited on the CPU (worst {worst}): {}", by_kind.join(", ")))
}
