//! The work a shape asks for, bounded before lyon does it and while it does: coordinates are
//! bounded one by one (validate.rs), but 100 cubic curves spanning ±1e9 px at a 0.1 px
//! tolerance flatten into billions of segments (32.6 s and 5.4 GiB before this check). Each
//! curve's segment count is bounded above by Wang's formula, each round join, cap and circle by
//! the per-turn count lyon uses, and a shape whose estimate passes [`MAX_SHAPE_SEGMENTS`] is
//! refused before any work. What an estimate cannot see (a round stroke millions of pixels
//! wide puts an arc at every flattened vertex) is caught as lyon writes: [`Capped`] stops it
//! at [`MAX_SHAPE_VERTICES`].

use super::tessellate::Geometry;
use super::{Path, PathEvent, ShapeError};
use lyon_tessellation::geometry_builder::{
    FillGeometryBuilder, GeometryBuilder, GeometryBuilderError, StrokeGeometryBuilder,
};
use lyon_tessellation::math::Point;
use lyon_tessellation::{FillVertex, StrokeVertex, VertexId};

/// The most flattened segments one shape may ask for (a fill's edges; a stroke's edges,
/// joins and caps): 2^14. A filled circle of radius 10^6 px at the default 0.1 px tolerance is
/// about 7,000 segments. Past it, a shape is refused with [`ShapeError::TooMuchWork`] before
/// lyon runs. Measured (`docs/measurements/2026-12-02-trust.md`): one cubic curve across
/// ±10^9 px is about 180,000 segments, 0.3 s (release) to 5 minutes (debug) to draw; and the
/// anti-aliasing band's fan split, when it compared every pair of a fan's corners, took 0.33 s
/// at 16,000 segments and 5.3 s at 65,000 (release) on a thin spike lyon fills as one fan (it
/// is a union-find now; the limit stays until measured again).
pub const MAX_SHAPE_SEGMENTS: u64 = 1 << 14;

/// The most vertices lyon may write for one shape, before anti-aliasing: 2^16. Past it the
/// tessellation stops and the shape is refused ([`ShapeError::TooManyTessellatedVertices`]).
pub const MAX_SHAPE_VERTICES: u32 = 1 << 16;

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

/// A geometry builder that passes vertices on to `inner` until [`MAX_SHAPE_VERTICES`], then
/// refuses the next one (lyon stops and reports it), noting that it did.
pub(super) struct Capped<B> {
    pub(super) inner: B,
    pub(super) vertices: u32,
    pub(super) exceeded: bool,
}

impl<B> Capped<B> {
    pub(super) fn new(inner: B) -> Self {
        Self { inner, vertices: 0, exceeded: false }
    }

    fn count(&mut self) -> Result<(), GeometryBuilderError> {
        if self.vertices >= MAX_SHAPE_VERTICES {
            self.exceeded = true;
            return Err(GeometryBuilderError::TooManyVertices);
        }
        self.vertices += 1;
        Ok(())
    }
}

impl<B: GeometryBuilder> GeometryBuilder for Capped<B> {
    fn begin_geometry(&mut self) {
        self.inner.begin_geometry();
    }
    fn end_geometry(&mut self) {
        self.inner.end_geometry();
    }
    fn add_triangle(&mut self, a: VertexId, b: VertexId, c: VertexId) {
        self.inner.add_triangle(a, b, c);
    }
    fn abort_geometry(&mut self) {
        self.inner.abort_geometry();
    }
}

impl<B: FillGeometryBuilder> FillGeometryBuilder for Capped<B> {
    fn add_fill_vertex(&mut self, vertex: FillVertex<'_>) -> Result<VertexId, GeometryBuilderError> {
        self.count()?;
        self.inner.add_fill_vertex(vertex)
    }
}

impl<B: StrokeGeometryBuilder> StrokeGeometryBuilder for Capped<B> {
    fn add_stroke_vertex(&mut self, vertex: StrokeVertex<'_, '_>) -> Result<VertexId, GeometryBuilderError> {
        self.count()?;
        self.inner.add_stroke_vertex(vertex)
    }
}
