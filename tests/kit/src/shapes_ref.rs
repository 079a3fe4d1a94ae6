//! CPU references of shapes: the same paths filled and stroked by tiny-skia, a small
//! rasteriser of [`Mesh`]es, and a comparison that bounds the anti-aliasing band instead of
//! demanding it match.
//!
//! ```
//! use layerbatch_core::shapes::{point, FillStyle, Path, Shapes, StrokeStyle, Winding};
//! use layerbatch_core::Mesh;
//! use layerbatch_testkit::shapes_ref::{compare, fill_reference, rasterize_mesh, stroke_reference};
//!
//! let (size, background) = ([64, 64], [0, 0, 64, 255]);
//! let mut b = Path::builder();
//! b.add_circle(point(32.0, 32.0), 20.0, Winding::Positive);
//! let circle = b.build();
//! let mut shapes = Shapes::new();
//!
//! let fill = FillStyle::new([255, 128, 0, 255]);
//! let mut mesh = Mesh::default();
//! shapes.fill_circle(&mut mesh, [32.0, 32.0], 20.0, &fill)?;
//! let diff = compare(&rasterize_mesh(&mesh, size, background), &fill_reference(&circle, &fill, size, background));
//! assert!(diff.outside_max <= 2 && diff.band_max <= 64 && diff.coverage_rel().abs() < 0.01, "{diff:?}");
//!
//! // Translucent (premultiplied half-transparent green), stroked.
//! let stroke = StrokeStyle::new([0, 128, 0, 128], 3.0);
//! let mut mesh = Mesh::default();
//! shapes.stroke_circle(&mut mesh, [32.0, 32.0], 20.0, &stroke)?;
//! let diff = compare(&rasterize_mesh(&mesh, size, background), &stroke_reference(&circle, &stroke, size, background));
//! assert!(diff.outside_max <= 2 && diff.band_max <= 64 && diff.coverage_rel().abs() < 0.01, "{diff:?}");
//! # Ok::<(), layerbatch_core::shapes::ShapeError>(())
//! ```

use layerbatch_core::shapes::{FillRule, FillStyle, LineCap, LineJoin, Path, PathEvent, StrokeStyle};
use layerbatch_core::Mesh;

/// tiny-skia renders at this many samples per pixel side, then box-filters: its own
/// anti-aliasing samples only 4 rows per pixel (so shallow edges show false full or empty
/// pixels) and it draws strokes up to 1 px wide as hairlines, which under-cover diagonals.
pub const SUPERSAMPLE: u32 = 4;

/// Pixels whose centre is within this distance of the shape's edge, or that touch a
/// partially covered pixel, are the anti-aliasing band ([`Reference::band`]). Beyond about
/// 0.7 px from the edge a pixel is wholly in or out, and a feathered mesh's band reaches
/// 0.5 px past the edge.
pub const BAND_HALF_WIDTH_PX: f32 = 1.0;

/// A shape as tiny-skia draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// The shape over the background, premultiplied RGBA8, rows top down.
    pub pixels: Vec<u8>,
    /// The shape's coverage per pixel, `0..=255` (its alpha drawn opaque over nothing).
    pub coverage: Vec<u8>,
    /// Per pixel, whether it is in the anti-aliasing band: within [`BAND_HALF_WIDTH_PX`] of
    /// the edge (the path for a fill, the stroke's outline for a stroke), or next to a
    /// partially covered pixel (eight neighbours).
    pub band: Vec<bool>,
    /// The background, premultiplied RGBA8.
    pub background: [u8; 4],
    /// The shape's colour, premultiplied RGBA8.
    pub color: [u8; 4],
}

/// `path` filled with `style`'s colour and rule by tiny-skia, anti-aliased, over
/// `background` (premultiplied), `size` `[width, height]` pixels.
pub fn fill_reference(path: &Path, style: &FillStyle, size: [u32; 2], background: [u8; 4]) -> Reference {
    let rule = match style.rule {
        FillRule::NonZero => tiny_skia::FillRule::Winding,
        FillRule::EvenOdd => tiny_skia::FillRule::EvenOdd,
    };
    let sp = skia_path(path);
    reference(size, style.color, background, sp.clone(), |pm, paint, t| {
        if let Some(sp) = &sp {
            pm.fill_path(sp, paint, rule, t, None);
        }
    })
}

/// `path` stroked with `style`'s colour, width, caps, joins and miter limit by tiny-skia,
/// anti-aliased, over `background` (premultiplied), `size` `[width, height]` pixels.
pub fn stroke_reference(path: &Path, style: &StrokeStyle, size: [u32; 2], background: [u8; 4]) -> Reference {
    let stroke = tiny_skia::Stroke {
        width: style.width_px,
        miter_limit: style.miter_limit,
        line_cap: match style.cap {
            LineCap::Butt => tiny_skia::LineCap::Butt,
            LineCap::Round => tiny_skia::LineCap::Round,
            LineCap::Square => tiny_skia::LineCap::Square,
        },
        line_join: match style.join {
            LineJoin::Miter => tiny_skia::LineJoin::Miter,
            LineJoin::MiterClip => tiny_skia::LineJoin::MiterClip,
            LineJoin::Round => tiny_skia::LineJoin::Round,
            LineJoin::Bevel => tiny_skia::LineJoin::Bevel,
        },
        dash: None,
    };
    let sp = skia_path(path);
    let outline = sp.as_ref().and_then(|sp| sp.stroke(&stroke, SUPERSAMPLE as f32));
    reference(size, style.color, background, outline, |pm, paint, t| {
        if let Some(sp) = &sp {
            pm.stroke_path(sp, paint, &stroke, t, None);
        }
    })
}

/// Draws with `draw` at [`SUPERSAMPLE`]: in `color` over `background`, and opaque white
/// over transparent for the coverage; and strokes `edge` [`BAND_HALF_WIDTH_PX`] each side
/// for the band.
fn reference(
    size: [u32; 2],
    color: [u8; 4],
    background: [u8; 4],
    edge: Option<tiny_skia::Path>,
    draw: impl Fn(&mut tiny_skia::Pixmap, &tiny_skia::Paint<'_>, tiny_skia::Transform),
) -> Reference {
    let k = SUPERSAMPLE;
    let render = |color: [u8; 4],
                  background: [u8; 4],
                  draw: &dyn Fn(&mut tiny_skia::Pixmap, &tiny_skia::Paint<'_>, tiny_skia::Transform)| {
        let mut pm = tiny_skia::Pixmap::new(size[0] * k, size[1] * k).expect("a non-empty reference size");
        pm.fill(unpremultiplied(background));
        let mut paint = tiny_skia::Paint::default();
        paint.set_color(unpremultiplied(color));
        paint.anti_alias = true;
        draw(&mut pm, &paint, tiny_skia::Transform::from_scale(k as f32, k as f32));
        downsample(pm.data(), size, k as usize)
    };
    let coverage: Vec<u8> = render([255; 4], [0; 4], &draw).chunks_exact(4).map(|p| p[3]).collect();
    let near = tiny_skia::Stroke {
        width: 2.0 * BAND_HALF_WIDTH_PX,
        line_cap: tiny_skia::LineCap::Round,
        line_join: tiny_skia::LineJoin::Round,
        ..tiny_skia::Stroke::default()
    };
    let near_edge = render([255; 4], [0; 4], &|pm, paint, t| {
        if let Some(edge) = &edge {
            pm.stroke_path(edge, paint, &near, t, None);
        }
    });
    let (w, h) = (i64::from(size[0]), i64::from(size[1]));
    let partial = |x: i64, y: i64| {
        (0..w).contains(&x) && (0..h).contains(&y) && !matches!(coverage[(y * w + x) as usize], 0 | 255)
    };
    let band = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            near_edge[i as usize * 4 + 3] > 0 || (-1..=1).any(|dy| (-1..=1).any(|dx| partial(x + dx, y + dy)))
        })
        .collect();
    Reference {
        width: size[0],
        height: size[1],
        pixels: render(color, background, &draw),
        coverage,
        band,
        background,
        color,
    }
}

fn unpremultiplied(c: [u8; 4]) -> tiny_skia::Color {
    let a = f32::from(c[3]).max(1.0);
    let u = |x: u8| (f32::from(x) * 255.0 / a).round().min(255.0) as u8;
    tiny_skia::Color::from_rgba8(u(c[0]), u(c[1]), u(c[2]), c[3])
}

/// Box-filters `k x k` blocks of premultiplied RGBA8.
fn downsample(big: &[u8], size: [u32; 2], k: usize) -> Vec<u8> {
    let (w, h) = (size[0] as usize, size[1] as usize);
    let mut out = vec![0u8; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                let sum: u32 =
                    (0..k * k).map(|s| u32::from(big[((y * k + s / k) * w * k + x * k + s % k) * 4 + c])).sum();
                out[(y * w + x) * 4 + c] = (sum as f32 / (k * k) as f32).round() as u8;
            }
        }
    }
    out
}

/// `path` as a tiny-skia path, `None` for an empty one (tiny-skia has no empty paths).
fn skia_path(path: &Path) -> Option<tiny_skia::Path> {
    let mut b = tiny_skia::PathBuilder::new();
    for e in path.iter() {
        match e {
            PathEvent::Begin { at } => b.move_to(at.x, at.y),
            PathEvent::Line { to, .. } => b.line_to(to.x, to.y),
            PathEvent::Quadratic { ctrl, to, .. } => b.quad_to(ctrl.x, ctrl.y, to.x, to.y),
            PathEvent::Cubic { ctrl1, ctrl2, to, .. } => b.cubic_to(ctrl1.x, ctrl1.y, ctrl2.x, ctrl2.y, to.x, to.y),
            PathEvent::End { close: true, .. } => b.close(),
            PathEvent::End { close: false, .. } => {}
        }
    }
    b.finish()
}

/// Rasterises `mesh` (solid colour: `uv` is ignored) over a `size` canvas of premultiplied
/// `background`, as a GPU would: samples at pixel centres, top-left fill rule (shared edges
/// drawn once), colours interpolated barycentrically, premultiplied "over" blending in
/// triangle order. Returns premultiplied RGBA8, rows top down.
pub fn rasterize_mesh(mesh: &Mesh, size: [u32; 2], background: [u8; 4]) -> Vec<u8> {
    let [w, h] = size.map(|s| s as usize);
    let mut px: Vec<[f32; 4]> = vec![background.map(|c| f32::from(c) / 255.0); w * h];
    for t in mesh.indices.chunks_exact(3) {
        let mut v = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]);
        let area = edge(v[0].pos_px, v[1].pos_px, v[2].pos_px);
        if area == 0.0 || !area.is_finite() {
            continue;
        }
        if area < 0.0 {
            v.swap(1, 2);
        }
        let pos = v.map(|v| v.pos_px);
        let span = |k: usize, n: usize| {
            let lo = pos.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min).floor().clamp(0.0, n as f32) as usize;
            let hi = pos.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max).ceil().clamp(0.0, n as f32) as usize;
            lo..hi
        };
        for y in span(1, h) {
            for x in span(0, w) {
                let c = [x as f32 + 0.5, y as f32 + 0.5];
                let mut b = [0.0; 3];
                let mut inside = true;
                for k in 0..3 {
                    let (p, q) = (pos[(k + 1) % 3], pos[(k + 2) % 3]);
                    let e = edge(p, q, c);
                    let d = [q[0] - p[0], q[1] - p[1]];
                    inside &= e > 0.0 || (e == 0.0 && (d[1] > 0.0 || (d[1] == 0.0 && d[0] < 0.0)));
                    b[k] = e / area.abs();
                }
                if inside {
                    let src: [f32; 4] =
                        std::array::from_fn(|ch| (0..3).map(|k| b[k] * f32::from(v[k].color[ch]) / 255.0).sum());
                    let dst = &mut px[y * w + x];
                    for ch in 0..4 {
                        dst[ch] = src[ch] + dst[ch] * (1.0 - src[3]);
                    }
                }
            }
        }
    }
    px.iter().flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)).collect()
}

fn edge(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// How far a rendering is from a [`Reference`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ShapeDiff {
    /// Largest channel difference outside [`Reference::band`]. Should be at most 2.
    pub outside_max: u8,
    /// Pixels outside the band that differ by more than 2 in some channel.
    pub outside_over_2: usize,
    /// Largest channel difference in the band.
    pub band_max: u8,
    /// Pixels in the band.
    pub band_pixels: usize,
    /// Our coverage in pixels, estimated from our colours between the background and the
    /// shape's colour over it.
    pub ours_coverage_px: f64,
    /// The reference's coverage in pixels.
    pub reference_coverage_px: f64,
}

impl ShapeDiff {
    /// `ours_coverage_px / reference_coverage_px - 1`.
    pub fn coverage_rel(&self) -> f64 {
        self.ours_coverage_px / self.reference_coverage_px - 1.0
    }
}

/// Compares `ours` (premultiplied RGBA8, the reference's size) with `reference`: exact
/// within 2 outside [`Reference::band`], the band reported by its largest difference and the
/// total coverage.
pub fn compare(ours: &[u8], reference: &Reference) -> ShapeDiff {
    assert_eq!(ours.len(), reference.pixels.len(), "`ours` is not the reference's size");
    let bg = reference.background.map(f64::from);
    let a = f64::from(reference.color[3]) / 255.0;
    // The shape's colour over the background: coverage 1.
    let full: [f64; 4] = std::array::from_fn(|c| f64::from(reference.color[c]) + bg[c] * (1.0 - a));
    let span: [f64; 4] = std::array::from_fn(|c| full[c] - bg[c]);
    let span2: f64 = span.iter().map(|s| s * s).sum();
    let mut d = ShapeDiff {
        outside_max: 0,
        outside_over_2: 0,
        band_max: 0,
        band_pixels: 0,
        ours_coverage_px: 0.0,
        reference_coverage_px: reference.coverage.iter().map(|&c| f64::from(c) / 255.0).sum(),
    };
    for (i, &band) in reference.band.iter().enumerate() {
        let (o, r) = (&ours[i * 4..i * 4 + 4], &reference.pixels[i * 4..i * 4 + 4]);
        let diff = (0..4).map(|c| o[c].abs_diff(r[c])).max().unwrap_or(0);
        if band {
            d.band_max = d.band_max.max(diff);
            d.band_pixels += 1;
        } else {
            d.outside_max = d.outside_max.max(diff);
            d.outside_over_2 += usize::from(diff > 2);
        }
        if span2 > 0.0 {
            // Least squares: where `o` lies between the background (0) and `full` (1).
            let t: f64 = (0..4).map(|c| (f64::from(o[c]) - bg[c]) * span[c]).sum::<f64>() / span2;
            d.ours_coverage_px += t.clamp(0.0, 1.0);
        }
    }
    d
}
