//! Bad and degenerate input: clear errors or no-ops, the mesh unchanged, no panic.

use super::assert_sound;
use crate::shapes::{point, FillStyle, LineCap, Path, ShapeError, Shapes, StrokeStyle, MAX_COORD_PX};
use crate::Mesh;

/// A mesh that already holds a triangle, so "unchanged" means more than "empty".
fn seeded() -> Mesh {
    let mut mesh = Mesh::default();
    Shapes::new().fill_polygon(&mut mesh, &[[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]], &FillStyle::default()).unwrap();
    assert!(!mesh.is_empty());
    mesh
}

/// `f` on a seeded mesh returns `expected` and leaves the mesh as it was.
fn unchanged(expected: Result<(), ShapeError>, f: impl FnOnce(&mut Mesh) -> Result<(), ShapeError>) {
    let mut mesh = seeded();
    let before = mesh.clone();
    assert_eq!(f(&mut mesh), expected);
    assert_eq!(mesh, before);
}

#[test]
fn non_finite_and_out_of_range_are_errors() {
    let mut s = Shapes::new();
    let fill = FillStyle::default();
    let stroke = StrokeStyle::default();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let pts = [[0.0, 0.0], [5.0, 1.0], [nan, 3.0]];
    let e = |what, index| Err(ShapeError::NonFinite { what, index });
    unchanged(e("points", 2), |m| s.fill_polygon(m, &pts, &fill));
    unchanged(e("points", 2), |m| s.polyline(m, &pts, false, &stroke));
    unchanged(e("points", 1), |m| s.line(m, [0.0, 0.0], [inf, 1.0], &stroke));
    unchanged(e("radius", 0), |m| s.fill_circle(m, [5.0, 5.0], inf, &fill));
    unchanged(e("center", 0), |m| s.stroke_circle(m, [nan, 5.0], 3.0, &stroke));
    unchanged(e("rotation_rad", 0), |m| s.fill_ellipse(m, [5.0, 5.0], [3.0, 2.0], nan, &fill));
    unchanged(e("radii", 1), |m| s.stroke_ellipse(m, [5.0, 5.0], [3.0, -inf], 0.0, &stroke));
    unchanged(e("rect_px", 3), |m| s.fill_rounded_rect(m, [0.0, 0.0, 4.0, nan], [1.0; 4], &fill));
    unchanged(e("radii_px", 2), |m| s.stroke_rounded_rect(m, [0.0, 0.0, 4.0, 4.0], [1.0, 1.0, nan, 1.0], &stroke));
    // lyon's builder asserts finite points in debug builds; a transform does not.
    let mut b = Path::builder();
    b.begin(point(0.0, 0.0));
    b.quadratic_bezier_to(point(1.0, 1.0), point(2.0, 0.0));
    b.end(true);
    let path = b.build().transformed(&lyon_tessellation::geom::Translation::new(0.0, inf));
    unchanged(e("path", 0), |m| s.fill_path(m, &path, &fill));
    unchanged(e("path", 0), |m| s.stroke_path(m, &path, &stroke));

    let huge = MAX_COORD_PX * 2.0;
    unchanged(Err(ShapeError::OutOfRange { what: "points", index: 0, value: -huge }), |m| {
        s.fill_polygon(m, &[[-huge, 0.0], [1.0, 0.0], [0.0, 1.0]], &fill)
    });
    unchanged(Err(ShapeError::Negative { what: "radius", index: 0, value: -1.0 }), |m| {
        s.fill_circle(m, [0.0, 0.0], -1.0, &fill)
    });
    unchanged(Err(ShapeError::Negative { what: "rect_px", index: 2, value: -4.0 }), |m| {
        s.fill_rounded_rect(m, [0.0, 0.0, -4.0, 4.0], [0.0; 4], &fill)
    });
}

#[test]
fn bad_styles_are_errors() {
    let mut s = Shapes::new();
    let pts = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]];
    for (style, field) in [
        (StrokeStyle::default().with_width_px(-1.0), "width_px"),
        (StrokeStyle::default().with_width_px(f32::NAN), "width_px"),
        (StrokeStyle::default().with_width_px(f32::INFINITY), "width_px"),
        (StrokeStyle::default().with_miter_limit(0.5), "miter_limit"),
        (StrokeStyle::default().with_tolerance_px(0.0), "tolerance_px"),
        (StrokeStyle::default().with_tolerance_px(f32::NAN), "tolerance_px"),
    ] {
        let mut mesh = seeded();
        let before = mesh.clone();
        // Also refused where the geometry alone would be a no-op.
        for r in [s.polyline(&mut mesh, &pts, false, &style), s.stroke_circle(&mut mesh, [0.0, 0.0], 0.0, &style)] {
            assert!(matches!(r, Err(ShapeError::InvalidStyle { field: f, .. }) if f == field), "{r:?}");
        }
        assert_eq!(mesh, before);
    }
    let mut mesh = seeded();
    let r = s.fill_polygon(&mut mesh, &pts, &FillStyle::default().with_tolerance_px(-0.1));
    assert!(matches!(r, Err(ShapeError::InvalidStyle { field: "tolerance_px", .. })), "{r:?}");
    assert_eq!(mesh, seeded());
}

#[test]
fn degenerate_input_appends_nothing() {
    let mut s = Shapes::new();
    let fill = FillStyle::default();
    let stroke = StrokeStyle::new([255; 4], 2.0);
    let same = [[3.0, 4.0]; 5];
    let line = [[0.0, 0.0], [5.0, 5.0], [10.0, 10.0]];
    type Case<'a> = Box<dyn Fn(&mut Shapes, &mut Mesh) -> Result<(), ShapeError> + 'a>;
    let cases: Vec<(&str, Case<'_>)> = vec![
        ("empty path fill", Box::new(|s, m| s.fill_path(m, &Path::new(), &fill))),
        ("empty path stroke", Box::new(|s, m| s.stroke_path(m, &Path::new(), &stroke))),
        ("no points", Box::new(|s, m| s.fill_polygon(m, &[], &fill))),
        ("one point line", Box::new(|s, m| s.polyline(m, &same[..1], false, &stroke))),
        ("two point polygon", Box::new(|s, m| s.fill_polygon(m, &line[..2], &fill))),
        ("collinear polygon", Box::new(|s, m| s.fill_polygon(m, &line, &fill))),
        ("equal points polygon", Box::new(|s, m| s.fill_polygon(m, &same, &fill))),
        ("equal points butt polyline", Box::new(|s, m| s.polyline(m, &same, false, &stroke))),
        ("zero radius circle", Box::new(|s, m| s.fill_circle(m, [1.0, 1.0], 0.0, &fill))),
        ("zero radius ring", Box::new(|s, m| s.stroke_circle(m, [1.0, 1.0], 0.0, &stroke))),
        ("flat ellipse", Box::new(|s, m| s.fill_ellipse(m, [1.0, 1.0], [3.0, 0.0], 0.3, &fill))),
        ("empty rect", Box::new(|s, m| s.fill_rounded_rect(m, [1.0, 1.0, 0.0, 5.0], [1.0; 4], &fill))),
        ("zero width", Box::new(|s, m| s.polyline(m, &line, false, &stroke.with_width_px(0.0)))),
    ];
    for (name, f) in cases {
        let mut mesh = seeded();
        let before = mesh.clone();
        assert_eq!(f(&mut s, &mut mesh), Ok(()), "{name}");
        assert_eq!(mesh, before, "{name}");
    }
    // SVG's rule, which tiny-skia follows too: a zero-length open line with round or square
    // caps is a dot.
    for cap in [LineCap::Round, LineCap::Square] {
        let mut mesh = Mesh::default();
        s.polyline(&mut mesh, &same, false, &stroke.with_cap(cap)).unwrap();
        assert_sound(&mesh);
        eprintln!("equal points, {cap:?} caps: {} triangles", mesh.triangles());
    }
}

#[test]
fn appends_after_existing_triangles() {
    let mut s = Shapes::new();
    let mut mesh = seeded();
    let (base, first) = (mesh.vertices.len() as u32, mesh.indices.len());
    s.fill_circle(&mut mesh, [50.0, 50.0], 10.0, &FillStyle::default()).unwrap();
    assert_sound(&mesh);
    assert!(mesh.indices.len() > first);
    assert!(mesh.indices[first..].iter().all(|&i| i >= base));
}

/// Coordinates are bounded one by one, the work as a whole too: 100 cubic curves spanning
/// ±1e9 px (32.6 s and 5.4 GiB of tessellation before) are refused before lyon runs, with the
/// estimate and the limit; the same curves at a tolerance that makes them cheap are drawn, and
/// so is a big but reasonable circle.
#[test]
fn work_past_the_segment_limit_is_refused_before_tessellation() {
    use crate::shapes::MAX_SHAPE_SEGMENTS;
    let mut builder = Path::builder();
    builder.begin(point(-1.0e9, -1.0e9));
    for i in 0..100 {
        let s = if i % 2 == 0 { 1.0e9 } else { -1.0e9 };
        builder.cubic_bezier_to(point(s, -s), point(-s, s), point(s, s));
    }
    builder.end(true);
    let path = builder.build();
    let mut s = Shapes::new();
    for result in [
        s.fill_path(&mut seeded(), &path, &FillStyle::default()),
        s.stroke_path(&mut seeded(), &path, &StrokeStyle::default()),
    ] {
        match result {
            Err(ShapeError::TooMuchWork { estimated_segments, max_segments }) => {
                assert_eq!(max_segments, MAX_SHAPE_SEGMENTS);
                assert!(estimated_segments > MAX_SHAPE_SEGMENTS);
            }
            other => panic!("{other:?}"),
        }
    }
    // One such curve is over the limit too (Wang's bound: about 183,000 segments), and the
    // mesh is left as it was.
    let mut one = Path::builder();
    one.begin(point(-1.0e9, -1.0e9));
    one.cubic_bezier_to(point(1.0e9, -1.0e9), point(-1.0e9, 1.0e9), point(1.0e9, 1.0e9));
    one.end(false);
    let one = one.build();
    let mut mesh = seeded();
    let before = mesh.clone();
    let err = s.fill_path(&mut mesh, &one, &FillStyle::default()).unwrap_err();
    assert!(matches!(err, ShapeError::TooMuchWork { estimated_segments: 150_000..=200_000, .. }), "{err}");
    assert_eq!(mesh, before);
    let coarse = FillStyle { tolerance_px: 1.0e6, ..FillStyle::default() };
    s.fill_path(&mut Mesh::default(), &path, &coarse).unwrap();
    let mut circle = Mesh::default();
    s.fill_circle(&mut circle, [0.0, 0.0], 1.0e6, &FillStyle::default()).unwrap();
    assert!(!circle.is_empty());
}
