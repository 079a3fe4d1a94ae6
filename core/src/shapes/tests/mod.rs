//! Shape tests: meshes rasterised on the CPU against tiny-skia, bad input, and properties.
//!
//! `tests/kit/src/shapes_ref.rs` holds the same reference for the GPU tests; this copy is
//! kept small so that core's unit tests need no kit feature.

mod bad_input;
mod pixels;
mod props;

use super::{FillRule, LineCap, LineJoin, Path, PathEvent};
use crate::Mesh;

/// Every index in range and every position finite.
pub(super) fn assert_sound(mesh: &Mesh) {
    assert_eq!(mesh.indices.len() % 3, 0);
    for &i in &mesh.indices {
        assert!((i as usize) < mesh.vertices.len(), "index {i} past {} vertices", mesh.vertices.len());
    }
    for v in &mesh.vertices {
        assert!(v.pos_px.iter().all(|c| c.is_finite()), "vertex {v:?}");
    }
}

/// Rasterises `mesh` over a `size` canvas of premultiplied `background`: samples at pixel
/// centres, top-left fill rule, colours interpolated barycentrically, premultiplied "over".
pub(super) fn rasterize(mesh: &Mesh, size: [u32; 2], background: [u8; 4]) -> Vec<u8> {
    let [w, h] = size.map(|s| s as usize);
    let mut px: Vec<[f32; 4]> = vec![background.map(|c| f32::from(c) / 255.0); w * h];
    for t in mesh.indices.chunks_exact(3) {
        let mut v = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]);
        let p = |k: usize, v: &[crate::Vertex; 3]| v[k].pos_px;
        let area = edge(p(0, &v), p(1, &v), p(2, &v));
        if area == 0.0 {
            continue;
        }
        if area < 0.0 {
            v.swap(1, 2);
        }
        let area = area.abs();
        let pos = v.map(|v| v.pos_px);
        let lo = |k: usize| pos.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min).floor().max(0.0) as usize;
        let hi = |k: usize, n: usize| {
            (pos.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max).ceil().max(0.0) as usize).min(n)
        };
        for y in lo(1)..hi(1, h) {
            for x in lo(0)..hi(0, w) {
                let c = [x as f32 + 0.5, y as f32 + 0.5];
                let mut b = [0.0; 3];
                let mut inside = true;
                for k in 0..3 {
                    let (a, bb) = (pos[(k + 1) % 3], pos[(k + 2) % 3]);
                    let e = edge(a, bb, c);
                    let d = [bb[0] - a[0], bb[1] - a[1]];
                    let top_left = d[1] > 0.0 || (d[1] == 0.0 && d[0] < 0.0);
                    inside &= e > 0.0 || (e == 0.0 && top_left);
                    b[k] = e / area;
                }
                if !inside {
                    continue;
                }
                let src: [f32; 4] =
                    std::array::from_fn(|ch| (0..3).map(|k| b[k] * f32::from(v[k].color[ch]) / 255.0).sum());
                let dst = &mut px[y * w + x];
                for ch in 0..4 {
                    dst[ch] = src[ch] + dst[ch] * (1.0 - src[3]);
                }
            }
        }
    }
    px.iter().flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)).collect()
}

fn edge(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// `path` as a tiny-skia path.
fn skia_path(path: &Path) -> tiny_skia::Path {
    let mut b = tiny_skia::PathBuilder::new();
    for e in path.iter() {
        match e {
            PathEvent::Begin { at } => b.move_to(at.x, at.y),
            PathEvent::Line { to, .. } => b.line_to(to.x, to.y),
            PathEvent::Quadratic { ctrl, to, .. } => b.quad_to(ctrl.x, ctrl.y, to.x, to.y),
            PathEvent::Cubic { ctrl1, ctrl2, to, .. } => b.cubic_to(ctrl1.x, ctrl1.y, ctrl2.x, ctrl2.y, to.x, to.y),
            PathEvent::End { close, .. } => {
                if close {
                    b.close()
                }
            }
        }
    }
    b.finish().expect("a non-empty reference path")
}

/// How tiny-skia draws: a fill, or a stroke.
#[derive(Clone, Copy)]
pub(super) enum Paint {
    Fill(FillRule),
    Stroke { width: f32, cap: LineCap, join: LineJoin, miter_limit: f32 },
}

/// tiny-skia renders at this many samples per pixel side, then averages: its own
/// anti-aliasing takes only 4 rows per pixel (and draws strokes up to 1 px as hairlines,
/// which under-cover diagonals), too coarse to compare a band with.
const SUPERSAMPLE: u32 = 4;

/// Pixels whose centre is within this distance of the shape's edge, or that touch a
/// partially covered pixel, are the anti-aliasing band. Beyond about 0.7 px from the edge a
/// pixel is wholly in or out, and the mesh's band reaches 0.5 px.
const BAND_HALF_WIDTH_PX: f32 = 1.0;

/// Draws something into a supersampled pixmap with a paint.
type Draw<'a> = dyn Fn(&mut tiny_skia::Pixmap, &tiny_skia::Paint<'_>) + 'a;

/// What tiny-skia drew, at the canvas size.
pub(super) struct Reference {
    /// The shape in its colour over the background, premultiplied RGBA8.
    pub pixels: Vec<u8>,
    /// The shape's coverage, `0..=255`.
    pub coverage: Vec<u8>,
    /// Whether each pixel is in the anti-aliasing band.
    pub band: Vec<bool>,
}

fn skia_stroke(width: f32, cap: LineCap, join: LineJoin, miter_limit: f32) -> tiny_skia::Stroke {
    tiny_skia::Stroke {
        width,
        miter_limit,
        line_cap: match cap {
            LineCap::Butt => tiny_skia::LineCap::Butt,
            LineCap::Round => tiny_skia::LineCap::Round,
            LineCap::Square => tiny_skia::LineCap::Square,
        },
        line_join: match join {
            LineJoin::Miter => tiny_skia::LineJoin::Miter,
            LineJoin::MiterClip => tiny_skia::LineJoin::MiterClip,
            LineJoin::Round => tiny_skia::LineJoin::Round,
            LineJoin::Bevel => tiny_skia::LineJoin::Bevel,
        },
        dash: None,
    }
}

fn unpremultiplied(c: [u8; 4]) -> tiny_skia::Color {
    let a = f32::from(c[3]).max(1.0);
    let u = |x: u8| (f32::from(x) * 255.0 / a).round().min(255.0) as u8;
    tiny_skia::Color::from_rgba8(u(c[0]), u(c[1]), u(c[2]), c[3])
}

/// The reference: `path` drawn by tiny-skia (anti-aliased, at [`SUPERSAMPLE`]) in
/// premultiplied `color` over `background`, its coverage alone, and the band.
pub(super) fn reference(path: &Path, paint: Paint, color: [u8; 4], size: [u32; 2], background: [u8; 4]) -> Reference {
    let sp = skia_path(path);
    let k = SUPERSAMPLE as usize;
    let scale = tiny_skia::Transform::from_scale(k as f32, k as f32);
    let render = |color: [u8; 4], background: [u8; 4], draw: &Draw<'_>| {
        let mut pm = tiny_skia::Pixmap::new(size[0] * k as u32, size[1] * k as u32).expect("pixmap");
        pm.fill(unpremultiplied(background));
        let mut p = tiny_skia::Paint::default();
        p.set_color(unpremultiplied(color));
        p.anti_alias = true;
        draw(&mut pm, &p);
        let (big, (w, h)) = (pm.take(), (size[0] as usize, size[1] as usize));
        let mut out = vec![0u8; w * h * 4];
        for (i, o) in out.iter_mut().enumerate() {
            let (x, y, c) = ((i / 4) % w, i / 4 / w, i % 4);
            let sum: u32 = (0..k * k).map(|s| u32::from(big[((y * k + s / k) * w * k + x * k + s % k) * 4 + c])).sum();
            *o = (sum as f32 / (k * k) as f32).round() as u8;
        }
        out
    };
    // The shape, and its edge: the path for a fill, the stroke's outline for a stroke.
    let (shape, edge): (Box<Draw<'static>>, tiny_skia::Path) = match paint {
        Paint::Fill(rule) => {
            let rule = match rule {
                FillRule::NonZero => tiny_skia::FillRule::Winding,
                FillRule::EvenOdd => tiny_skia::FillRule::EvenOdd,
            };
            let sp2 = sp.clone();
            (Box::new(move |pm, p| pm.fill_path(&sp2, p, rule, scale, None)), sp)
        }
        Paint::Stroke { width, cap, join, miter_limit } => {
            let stroke = skia_stroke(width, cap, join, miter_limit);
            let outline = sp.stroke(&stroke, k as f32).expect("a stroke outline");
            let sp2 = sp.clone();
            (Box::new(move |pm, p| pm.stroke_path(&sp2, p, &stroke, scale, None)), outline)
        }
    };
    let near = skia_stroke(2.0 * BAND_HALF_WIDTH_PX, LineCap::Round, LineJoin::Round, 4.0);
    let coverage: Vec<u8> = render([255; 4], [0; 4], &*shape).chunks_exact(4).map(|p| p[3]).collect();
    let near_edge = render([255; 4], [0; 4], &|pm, p| pm.stroke_path(&edge, p, &near, scale, None));
    let (w, h) = (size[0] as i64, size[1] as i64);
    let partial = |x: i64, y: i64| {
        (0..w).contains(&x) && (0..h).contains(&y) && !matches!(coverage[(y * w + x) as usize], 0 | 255)
    };
    let band = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            near_edge[i as usize * 4 + 3] > 0 || (-1..=1).any(|dy| (-1..=1).any(|dx| partial(x + dx, y + dy)))
        })
        .collect();
    Reference { pixels: render(color, background, &*shape), coverage, band }
}

/// How far a rasterised mesh is from the reference.
#[derive(Debug)]
pub(super) struct Diff {
    /// Largest channel difference outside the band.
    pub outside_max: u8,
    /// Largest channel difference in the band.
    pub band_max: u8,
    /// Sum of our alpha over the sum of the reference's coverage, minus one.
    pub coverage_rel: f64,
    /// The reference's coverage in pixels.
    pub coverage_px: f64,
}

/// Compares `ours` with `reference` (both drawn over a transparent background, so alpha is
/// coverage).
pub(super) fn compare(ours: &[u8], reference: &Reference) -> Diff {
    let (mut outside_max, mut band_max) = (0u8, 0u8);
    for (i, &band) in reference.band.iter().enumerate() {
        let (o, r) = (&ours[i * 4..i * 4 + 4], &reference.pixels[i * 4..i * 4 + 4]);
        let d = (0..4).map(|c| o[c].abs_diff(r[c])).max().unwrap_or(0);
        if !band && d > 2 && std::env::var("SHAPES_DEBUG").is_ok() {
            eprintln!("  outside diff {d} at pixel {i}: ours {o:?} ref {r:?}");
        }
        let slot = if band { &mut band_max } else { &mut outside_max };
        *slot = (*slot).max(d);
    }
    let ours_a: f64 = ours.chunks_exact(4).map(|p| f64::from(p[3]) / 255.0).sum();
    let ref_a: f64 = reference.coverage.iter().map(|&c| f64::from(c) / 255.0).sum();
    Diff { outside_max, band_max, coverage_rel: ours_a / ref_a - 1.0, coverage_px: ref_a }
}
