//! The work a shape asks for, bounded before lyon does it: coordinates are bounded one by one
//! (validate.rs), but 100 cubic curves spanning ±1e9 px at a 0.1 px tolerance flatten into
//! billions of segments (32.6 s and 5.4 GiB before this check). Each curve's segment count is
//! bounded above by Wang's formula, each round join, cap and circle by the per-turn count lyon
//! uses, and a shape whose estimate passes [`MAX_SHAPE_SEGMENTS`] is refused before any work.

use super::tessellate::Geometry;
use super::{Path, PathEvent, ShapeError};
use lyon_tessellation::math::Point;

/// The most flattened segments one shape may ask for (a fill's edges; a stroke's edges,
/// joins and caps): 2^16. A filled circle of radius 10^6 px at the default 0.1 px tolerance is
/// about 7,000 segments; one cubic curve across ±10^9 px at that tolerance about 180,000, which
/// lyon and the feathering took 0.3 s (release) to 5 minutes (debug) to draw. Past it, a shape
/// is refused with [`ShapeError::TooMuchWork`] before lyon runs.
pub const MAX_SHAPE_SEGMENTS: u64 = 1 << 16;

/// Segments of a full turn of radius `radius` flattened within `tolerance` (lyon's count).
fn turn_segments(radius: f32, tolerance: f32) -> f64 {
    let r = f64::from(radius.abs());
    (std::f64::consts::PI * (r / (2.0 * f64::from(tolerance))).sqrt()).ceil().max(1.0)
}

/// Wang's bound on the segments of a Bézier curve of `degree` whose largest second difference
/// of control points is `m`, flattened within `tolerance`.
fn wang(degree: f64, m: f64, tolerance: f32) -> f64 {
    (degree * (degree - 1.0) / 8.0 * m / f64::from(tolerance)).sqrt().ceil().max(1.0)
}

fn second_difference(a: Point, b: Point, c: Point) -> f64 {
    let (x, y) = (
        f64::from(a.x) - 2.0 * f64::from(b.x) + f64::from(c.x),
        f64::from(a.y) - 2.0 * f64::from(b.y) + f64::from(c.y),
    );
    (x * x + y * y).sqrt()
}

/// Flattened segments of `path`, and the number of its segments and sub-paths (where joins
/// and caps go).
fn path_segments(path: &Path, tolerance: f32) -> (f64, f64) {
    let (mut flat, mut pieces) = (0.0, 0.0);
    for event in path.iter() {
        match event {
            PathEvent::Begin { .. } => pieces += 2.0,
            PathEvent::Line { .. } | PathEvent::End { .. } => {
                flat += 1.0;
                pieces += 1.0;
            }
            PathEvent::Quadratic { from, ctrl, to } => {
                flat += wang(2.0, second_difference(from, ctrl, to), tolerance);
                pieces += 1.0;
            }
            PathEvent::Cubic { from, ctrl1, ctrl2, to } => {
                let m = second_difference(from, ctrl1, ctrl2).max(second_difference(ctrl1, ctrl2, to));
                flat += wang(3.0, m, tolerance);
                pieces += 1.0;
            }
        }
    }
    (flat, pieces)
}

/// The segments `geometry` flattens into (`points`: a polygon's), plus, for a stroke of
/// `stroke_width` with round joins or caps, a turn of its half width at every join and cap.
/// Refused past [`MAX_SHAPE_SEGMENTS`].
pub(super) fn check_work(
    geometry: Geometry<'_>,
    points: usize,
    tolerance: f32,
    round_stroke_width: Option<f32>,
) -> Result<(), ShapeError> {
    let (flat, pieces) = match geometry {
        Geometry::Path(path) => path_segments(path, tolerance),
        Geometry::Polygon { .. } => (points as f64, points as f64 + 2.0),
        Geometry::Circle { radius, .. } => (turn_segments(radius, tolerance), 1.0),
        Geometry::Ellipse { radii, .. } => (turn_segments(radii.x.abs().max(radii.y.abs()), tolerance), 1.0),
        Geometry::RoundedRect { radii, .. } => {
            let r = [radii.top_left, radii.top_right, radii.bottom_left, radii.bottom_right];
            (4.0 + r.iter().map(|&r| turn_segments(r, tolerance) / 4.0).sum::<f64>(), 8.0)
        }
    };
    let joins = round_stroke_width.map_or(0.0, |w| pieces * turn_segments(w / 2.0, tolerance));
    let estimate = flat + joins;
    if estimate > MAX_SHAPE_SEGMENTS as f64 {
        let estimated_segments = if estimate >= u64::MAX as f64 { u64::MAX } else { estimate as u64 };
        return Err(ShapeError::TooMuchWork { estimated_segments, max_segments: MAX_SHAPE_SEGMENTS });
    }
    Ok(())
}
