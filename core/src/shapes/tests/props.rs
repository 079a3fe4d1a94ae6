//! Random shapes, including self-intersecting, near-degenerate, huge and tiny ones, never
//! panic, and always give a sound mesh (or an error and the mesh unchanged).

use super::assert_sound;
use crate::shapes::{FillRule, FillStyle, LineCap, LineJoin, ShapeError, Shapes, StrokeStyle, MAX_COORD_PX};
use crate::Mesh;
use proptest::prelude::*;

/// A coordinate at one of several scales, so that one polygon mixes them.
fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -200.0f32..200.0,
        1 => -1e-3f32..1e-3,
        1 => (-1000i32..1000).prop_map(|i| i as f32 * 0.25),
        1 => -MAX_COORD_PX..MAX_COORD_PX,
        1 => Just(0.0f32),
    ]
}

fn points() -> impl Strategy<Value = Vec<[f32; 2]>> {
    let pt = (coord(), coord()).prop_map(|(x, y)| [x, y]);
    // Repeats and near-repeats: a point, then copies of it nudged by an ulp or two.
    prop::collection::vec((pt, 0usize..3), 0..24).prop_map(|v| {
        let mut out = Vec::new();
        for (p, copies) in v {
            out.push(p);
            for k in 0..copies {
                let nudge = |c: f32| f32::from_bits(c.to_bits().wrapping_add(k as u32));
                out.push([nudge(p[0]), p[1]]);
            }
        }
        out
    })
}

fn fill_style() -> impl Strategy<Value = FillStyle> {
    (any::<bool>(), any::<bool>(), prop_oneof![Just(0.1f32), 0.01f32..5.0]).prop_map(|(even_odd, aa, tol)| {
        FillStyle::new([200, 100, 50, 255])
            .with_rule(if even_odd { FillRule::EvenOdd } else { FillRule::NonZero })
            .with_anti_alias(aa)
            .with_tolerance_px(tol)
    })
}

fn stroke_style() -> impl Strategy<Value = StrokeStyle> {
    let cap = prop_oneof![Just(LineCap::Butt), Just(LineCap::Square), Just(LineCap::Round)];
    let join =
        prop_oneof![Just(LineJoin::Miter), Just(LineJoin::MiterClip), Just(LineJoin::Round), Just(LineJoin::Bevel)];
    let width = prop_oneof![0.0f32..3.0, 0.0f32..60.0, Just(1e-4f32)];
    (width, cap, join, 1.0f32..10.0, any::<bool>()).prop_map(|(w, cap, join, miter, aa)| {
        StrokeStyle::new([255; 4], w).with_cap(cap).with_join(join).with_miter_limit(miter).with_anti_alias(aa)
    })
}

/// `r` is `Ok` with a sound mesh, or a refusal of what was made (lyon's error, too much work,
/// a made vertex out of range: the anti-aliasing band of a needle-sharp spike near the range's
/// edge moves far out) with the mesh as it was.
fn sound(r: Result<(), ShapeError>, mesh: &Mesh, before: &Mesh) -> Result<(), TestCaseError> {
    match r {
        Ok(()) => assert_sound(mesh),
        Err(
            ShapeError::Tessellation(_)
            | ShapeError::TooMuchWork { .. }
            | ShapeError::TooManyTessellatedVertices { .. }
            | ShapeError::OutOfRange { what: "tessellated vertex", .. }
            | ShapeError::NonFinite { what: "tessellated vertex", .. },
        ) => prop_assert_eq!(mesh, before),
        Err(e) => prop_assert!(false, "unexpected error {e:?}"),
    }
    Ok(())
}

proptest! {
    // 256 cases each; PROPTEST_CASES raises it.
    #[test]
    fn random_polygons_fill(pts in points(), style in fill_style()) {
        let mut shapes = Shapes::new();
        let mut mesh = Mesh::default();
        shapes.fill_circle(&mut mesh, [1.0, 1.0], 1.0, &FillStyle::default()).unwrap();
        let before = mesh.clone();
        let r = shapes.fill_polygon(&mut mesh, &pts, &style);
        sound(r, &mesh, &before)?;
    }

    #[test]
    fn random_polylines_stroke(pts in points(), closed in any::<bool>(), style in stroke_style()) {
        let mut shapes = Shapes::new();
        let mut mesh = Mesh::default();
        let r = shapes.polyline(&mut mesh, &pts, closed, &style);
        sound(r, &mesh, &Mesh::default())?;
    }

    #[test]
    fn random_primitives(
        c in (coord(), coord()),
        r in prop_oneof![0.0f32..2.0, 0.0f32..500.0],
        radii in (0.0f32..300.0, 0.0f32..300.0),
        rot in -10.0f32..10.0,
        corner in prop::array::uniform4(0.0f32..400.0),
        fill in fill_style(),
        stroke in stroke_style(),
    ) {
        let mut shapes = Shapes::new();
        let mut mesh = Mesh::default();
        let c = [c.0, c.1];
        let rect = [c[0], c[1], radii.0, radii.1];
        let empty = Mesh::default();
        sound(shapes.fill_circle(&mut mesh, c, r, &fill), &mesh, &empty)?;
        let before = mesh.clone();
        sound(shapes.stroke_circle(&mut mesh, c, r, &stroke), &mesh, &before)?;
        let before = mesh.clone();
        sound(shapes.fill_ellipse(&mut mesh, c, [radii.0, radii.1], rot, &fill), &mesh, &before)?;
        let before = mesh.clone();
        sound(shapes.stroke_ellipse(&mut mesh, c, [radii.0, radii.1], rot, &stroke), &mesh, &before)?;
        let before = mesh.clone();
        sound(shapes.fill_rounded_rect(&mut mesh, rect, corner, &fill), &mesh, &before)?;
        let before = mesh.clone();
        sound(shapes.stroke_rounded_rect(&mut mesh, rect, corner, &stroke), &mesh, &before)?;
    }
}

/// A circle of the largest radius at the edge of the range reaches past what `push_mesh`
/// takes: refused, the mesh unchanged. Half of it, at the origin, is drawn, finite.
#[test]
fn largest_circle_is_finite() {
    let mut mesh = Mesh::default();
    let r = MAX_COORD_PX;
    let style = FillStyle::default().with_tolerance_px(100.0);
    let err = Shapes::new().fill_circle(&mut mesh, [r, -r], r, &style).unwrap_err();
    assert!(matches!(err, ShapeError::OutOfRange { what: "tessellated vertex", .. }), "{err}");
    assert!(mesh.is_empty());
    Shapes::new().fill_circle(&mut mesh, [0.0, 0.0], r / 2.0, &style).unwrap();
    assert_sound(&mesh);
    assert!(!mesh.is_empty());
}
