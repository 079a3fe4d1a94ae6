//! Each primitive rasterised from its mesh against tiny-skia drawing the same path: equal
//! within 2 away from the edge, and within measured bounds in the anti-aliasing band.

use super::{assert_sound, compare, rasterize, reference, Diff, Paint};
use crate::shapes::{
    point, vector, Angle, BorderRadii, Box2D, FillRule, FillStyle, LineCap, LineJoin, Path, Shapes, StrokeStyle,
    Winding,
};
use crate::Mesh;
use lyon_tessellation::path::Polygon;

const SIZE: [u32; 2] = [128, 128];
const INK: [u8; 4] = [255, 160, 32, 255];

/// Largest channel difference in the anti-aliasing band, measured at most 58 on these shapes
/// (star tips, sharper than 40 degrees, 89: [`SHARP_BAND_MAX`]), with margin.
const BAND_MAX: u8 = 64;
/// Measured 89 at the 36-degree tips of the star.
const SHARP_BAND_MAX: u8 = 100;
/// Total coverage against tiny-skia, measured within 0.62% (circles lose about 0.4% to
/// flattening at 0.1 px inside the true curve), with margin.
const COVERAGE_REL: f64 = 0.01;
/// At notches sharper than 40 degrees (a 4-degree notch +1.4%, the inner side of a
/// 15-degree mitered stroke corner +2.3%).
const SHARP_COVERAGE_REL: f64 = 0.03;

fn check(name: &str, mesh: &Mesh, path: &Path, paint: Paint) -> Diff {
    check_within(name, mesh, path, paint, BAND_MAX, COVERAGE_REL)
}

fn check_within(name: &str, mesh: &Mesh, path: &Path, paint: Paint, band_max: u8, coverage_rel: f64) -> Diff {
    assert_sound(mesh);
    let ours = rasterize(mesh, SIZE, [0; 4]);
    let d = compare(&ours, &reference(path, paint, INK, SIZE, [0; 4]));
    eprintln!(
        "{name}: outside {} band {} coverage {:+.4}% of {:.0} px; {} triangles, {} vertices",
        d.outside_max,
        d.band_max,
        d.coverage_rel * 100.0,
        d.coverage_px,
        mesh.triangles(),
        mesh.vertices.len()
    );
    assert!(d.outside_max <= 2, "{name}: {d:?}");
    assert!(d.band_max <= band_max, "{name}: {d:?}");
    assert!(d.coverage_rel.abs() <= coverage_rel, "{name}: {d:?}");
    d
}

fn poly(points: &[[f32; 2]], closed: bool) -> Path {
    let pts: Vec<_> = points.iter().map(|p| point(p[0], p[1])).collect();
    let mut b = Path::builder();
    b.add_polygon(Polygon { points: &pts, closed });
    b.build()
}

fn stroke_paint(s: &StrokeStyle) -> Paint {
    Paint::Stroke { width: s.width_px, cap: s.cap, join: s.join, miter_limit: s.miter_limit }
}

#[test]
fn circles() {
    let mut shapes = Shapes::new();
    let (c, r) = ([64.3, 63.7], 32.0);
    let mut path = Path::builder();
    path.add_circle(point(c[0], c[1]), r, Winding::Positive);
    let path = path.build();

    let mut mesh = Mesh::default();
    shapes.fill_circle(&mut mesh, c, r, &FillStyle::new(INK)).unwrap();
    check("fill circle r32", &mesh, &path, Paint::Fill(FillRule::NonZero));

    let mut mesh = Mesh::default();
    let s = StrokeStyle::new(INK, 3.0);
    shapes.stroke_circle(&mut mesh, c, r, &s).unwrap();
    check("stroke circle r32 w3", &mesh, &path, stroke_paint(&s));
}

#[test]
fn rounded_rects() {
    let mut shapes = Shapes::new();
    let rect = [10.5, 20.25, 100.0, 60.0];
    let radii = [8.0, 12.0, 4.0, 0.0];
    let mut path = Path::builder();
    let [top_left, top_right, bottom_right, bottom_left] = radii;
    path.add_rounded_rectangle(
        &Box2D::new(point(rect[0], rect[1]), point(rect[0] + rect[2], rect[1] + rect[3])),
        &BorderRadii { top_left, top_right, bottom_left, bottom_right },
        Winding::Positive,
    );
    let path = path.build();

    let mut mesh = Mesh::default();
    shapes.fill_rounded_rect(&mut mesh, rect, radii, &FillStyle::new(INK)).unwrap();
    check("fill rounded rect", &mesh, &path, Paint::Fill(FillRule::NonZero));

    let mut mesh = Mesh::default();
    let s = StrokeStyle::new(INK, 2.0);
    shapes.stroke_rounded_rect(&mut mesh, rect, radii, &s).unwrap();
    check("stroke rounded rect w2", &mesh, &path, stroke_paint(&s));
}

#[test]
fn concave_polygon() {
    let pts = [[10.0, 10.0], [118.0, 14.0], [60.0, 50.0], [110.0, 115.0], [14.0, 100.0], [40.0, 60.0]];
    let mut mesh = Mesh::default();
    Shapes::new().fill_polygon(&mut mesh, &pts, &FillStyle::new(INK)).unwrap();
    check("fill concave polygon", &mesh, &poly(&pts, true), Paint::Fill(FillRule::NonZero));
}

#[test]
fn self_intersecting_star() {
    let pts: Vec<[f32; 2]> = (0..5)
        .map(|i| {
            let a = std::f32::consts::TAU * (i as f32 * 2.0 / 5.0) - std::f32::consts::FRAC_PI_2;
            [64.2 + 55.0 * a.cos(), 66.6 + 55.0 * a.sin()]
        })
        .collect();
    let path = poly(&pts, true);
    for rule in [FillRule::NonZero, FillRule::EvenOdd] {
        let mut mesh = Mesh::default();
        Shapes::new().fill_polygon(&mut mesh, &pts, &FillStyle::new(INK).with_rule(rule)).unwrap();
        check_within(&format!("fill star {rule:?}"), &mesh, &path, Paint::Fill(rule), SHARP_BAND_MAX, COVERAGE_REL);
    }
}

#[test]
fn polylines_caps_and_joins() {
    let pts = [[16.0, 100.0], [40.3, 30.0], [70.0, 90.0], [110.0, 24.5]];
    let path = poly(&pts, false);
    let mut shapes = Shapes::new();
    for cap in [LineCap::Butt, LineCap::Square, LineCap::Round] {
        for join in [LineJoin::Miter, LineJoin::Round, LineJoin::Bevel] {
            let s = StrokeStyle::new(INK, 7.0).with_cap(cap).with_join(join);
            let mut mesh = Mesh::default();
            shapes.polyline(&mut mesh, &pts, false, &s).unwrap();
            check(&format!("polyline w7 {cap:?} {join:?}"), &mesh, &path, stroke_paint(&s));
        }
    }
}

#[test]
fn thin_lines() {
    let mut shapes = Shapes::new();
    for w in [0.5, 1.0, 1.5] {
        let s = StrokeStyle::new(INK, w);
        let (a, b) = ([10.0, 20.0], [118.0, 90.0]);
        let mut mesh = Mesh::default();
        shapes.line(&mut mesh, a, b, &s).unwrap();
        check(&format!("line w{w}"), &mesh, &poly(&[a, b], false), stroke_paint(&s));
    }
}

#[test]
fn rotated_ellipse() {
    let (c, radii, rot) = ([63.0, 65.5], [50.0, 22.0], 0.6);
    let mut path = Path::builder();
    path.add_ellipse(point(c[0], c[1]), vector(radii[0], radii[1]), Angle::radians(rot), Winding::Positive);
    let path = path.build();
    let mut shapes = Shapes::new();
    let mut mesh = Mesh::default();
    shapes.fill_ellipse(&mut mesh, c, radii, rot, &FillStyle::new(INK)).unwrap();
    check("fill ellipse rotated", &mesh, &path, Paint::Fill(FillRule::NonZero));
    let s = StrokeStyle::new(INK, 4.0);
    let mut mesh = Mesh::default();
    shapes.stroke_ellipse(&mut mesh, c, radii, rot, &s).unwrap();
    check("stroke ellipse rotated w4", &mesh, &path, stroke_paint(&s));
}

/// What typical shapes cost, with bounds so that a change in tessellation shows.
#[test]
fn mesh_sizes() {
    let mut shapes = Shapes::new();
    let mut count = |name: &str, f: &dyn Fn(&mut Shapes, &mut Mesh), bound: usize| {
        let mut mesh = Mesh::default();
        f(&mut shapes, &mut mesh);
        assert_sound(&mesh);
        eprintln!("{name}: {} triangles, {} vertices", mesh.triangles(), mesh.vertices.len());
        assert!(mesh.triangles() <= bound, "{name}: {} triangles", mesh.triangles());
    };
    let fill = FillStyle::new(INK);
    let stroke = StrokeStyle::new(INK, 2.0);
    count("fill circle d64", &|s, m| s.fill_circle(m, [40.0, 40.0], 32.0, &fill).unwrap(), 120);
    count(
        "fill circle d64 no AA",
        &|s, m| s.fill_circle(m, [40.0, 40.0], 32.0, &fill.with_anti_alias(false)).unwrap(),
        60,
    );
    count("stroke circle d64 w2", &|s, m| s.stroke_circle(m, [40.0, 40.0], 32.0, &stroke).unwrap(), 320);
    let hud = [16.0, 16.0, 240.0, 64.0];
    count("fill rounded rect 240x64 r8", &|s, m| s.fill_rounded_rect(m, hud, [8.0; 4], &fill).unwrap(), 120);
    count("stroke rounded rect 240x64 r8 w2", &|s, m| s.stroke_rounded_rect(m, hud, [8.0; 4], &stroke).unwrap(), 240);
    count("line w2", &|s, m| s.line(m, [0.0, 0.0], [100.0, 30.0], &stroke).unwrap(), 10);
}

#[test]
fn sharp_spike() {
    // A 5-degree tip: its miter is clamped and its band bevelled.
    let pts = [[8.0, 60.0], [120.0, 52.3], [8.0, 70.0]];
    let mut mesh = Mesh::default();
    Shapes::new().fill_polygon(&mut mesh, &pts, &FillStyle::new(INK)).unwrap();
    check_within(
        "fill 5-degree spike",
        &mesh,
        &poly(&pts, true),
        Paint::Fill(FillRule::NonZero),
        SHARP_BAND_MAX,
        COVERAGE_REL,
    );
    // A 4-degree notch (found by the random test below): the inward move at its tip is
    // clamped, so the fill beyond the tip stays undimmed.
    let pts =
        [[28.587143, 12.779712], [4.0, 43.745358], [31.958534, 20.091259], [21.316673, 30.588495], [55.746353, 4.0]];
    let mut mesh = Mesh::default();
    Shapes::new().fill_polygon(&mut mesh, &pts, &FillStyle::new(INK)).unwrap();
    let notch = poly(&pts, true);
    check_within(
        "fill 4-degree notch",
        &mesh,
        &notch,
        Paint::Fill(FillRule::NonZero),
        SHARP_BAND_MAX,
        SHARP_COVERAGE_REL,
    );
}

#[test]
fn sharp_stroke_corner() {
    // A 15-degree turn kept mitered: the inner side is a 15-degree notch, whose clamped
    // inward move leaves extra coverage along both edges (measured +2.3%).
    let s = StrokeStyle::new(INK, 3.0).with_miter_limit(20.0);
    let pts = [[8.0, 60.0], [120.0, 52.3], [8.0, 90.0]];
    let mut mesh = Mesh::default();
    Shapes::new().polyline(&mut mesh, &pts, false, &s).unwrap();
    let path = poly(&pts, false);
    check_within("stroke 15-degree miter", &mesh, &path, stroke_paint(&s), SHARP_BAND_MAX, SHARP_COVERAGE_REL);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Random polygons, self-intersecting or not, under either rule: equal to tiny-skia away
    /// from the edge.
    #[test]
    fn random_polygons_match_away_from_the_edge(
        pts in proptest::collection::vec((4.0f32..60.0, 4.0f32..60.0), 3..12),
        even_odd in proptest::prelude::any::<bool>(),
    ) {
        let pts: Vec<[f32; 2]> = pts.into_iter().map(|(x, y)| [x, y]).collect();
        let rule = if even_odd { FillRule::EvenOdd } else { FillRule::NonZero };
        let mut mesh = Mesh::default();
        Shapes::new().fill_polygon(&mut mesh, &pts, &FillStyle::new(INK).with_rule(rule)).unwrap();
        assert_sound(&mesh);
        let size = [64, 64];
        let ours = rasterize(&mesh, size, [0; 4]);
        let d = compare(&ours, &reference(&poly(&pts, true), Paint::Fill(rule), INK, size, [0; 4]));
        proptest::prop_assert!(d.outside_max <= 2, "{pts:?} {rule:?}: {d:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, ..Default::default() })]

    /// Random self-crossing polylines with round caps and joins (the one geometry lyon and
    /// tiny-skia draw alike at any angle): equal to tiny-skia away from the edge.
    #[test]
    fn random_polylines_match_away_from_the_edge(
        pts in proptest::collection::vec((8.0f32..56.0, 8.0f32..56.0), 2..8),
        width in 1.0f32..8.0,
        closed in proptest::prelude::any::<bool>(),
    ) {
        let pts: Vec<[f32; 2]> = pts.into_iter().map(|(x, y)| [x, y]).collect();
        let s = StrokeStyle::new(INK, width).with_cap(LineCap::Round).with_join(LineJoin::Round);
        let mut mesh = Mesh::default();
        Shapes::new().polyline(&mut mesh, &pts, closed, &s).unwrap();
        assert_sound(&mesh);
        let size = [64, 64];
        let d = compare(&rasterize(&mesh, size, [0; 4]), &reference(&poly(&pts, closed), stroke_paint(&s), INK, size, [0; 4]));
        proptest::prop_assert!(d.outside_max <= 2, "{pts:?} w{width} closed {closed}: {d:?}");
    }
}
