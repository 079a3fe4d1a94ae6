//! [`Shapes`]: lyon's tessellators and the scratch buffers that turn their output into
//! feathered meshes.

use super::feather::Feather;
use super::validate::{check_fill, check_path, check_stroke};
use super::work::{check_work, Capped};
use super::{FillStyle, LineCap, LineJoin, Path, ShapeError, StrokeStyle, TessellationFailure};
use crate::Mesh;
use lyon_tessellation::math::{Angle, Box2D, Point, Vector};
use lyon_tessellation::path::builder::BorderRadii;
use lyon_tessellation::path::{Polygon, Winding};
use lyon_tessellation::{
    BuffersBuilder, FillOptions, FillTessellator, FillVertex, StrokeOptions, StrokeTessellator, StrokeVertex,
    TessellationResult, VertexBuffers,
};

/// Runs lyon's fill or stroke tessellator `$t` (same method names, different option types) on
/// a [`Geometry`], with `$points` for polygons.
macro_rules! tessellate {
    ($t:expr, $geometry:expr, $points:expr, $options:expr, $out:expr) => {{
        let (t, options, out) = ($t, $options, $out);
        let result: TessellationResult = match $geometry {
            Geometry::Path(path) => t.tessellate_path(path, options, out),
            Geometry::Polygon { closed } => t.tessellate_polygon(Polygon { points: $points, closed }, options, out),
            Geometry::Circle { center, radius } => t.tessellate_circle(center, radius, options, out),
            Geometry::Ellipse { center, radii, rotation } => {
                t.tessellate_ellipse(center, radii, rotation, Winding::Positive, options, out)
            }
            Geometry::RoundedRect { rect, radii } => {
                let mut b = t.builder(options, out);
                b.add_rounded_rectangle(&rect, &radii, Winding::Positive);
                b.build()
            }
        };
        result
    }};
}

/// A reusable tessellator: fills and strokes paths and primitives into [`Mesh`]es.
///
/// Every method appends to the mesh it is given (vertices with [`crate::Vertex::solid`], for
/// the batcher's white texture) and returns `Ok(())`, or an error and leaves the mesh exactly
/// as it was. Degenerate input (an empty path, a polygon of no area, a zero radius, size or
/// width, points all equal) is `Ok` and appends nothing, except that an open polyline whose
/// points are all equal draws a dot with round or square caps (as SVG and tiny-skia do).
///
/// Keep one `Shapes` and reuse it: it holds lyon's tessellators and scratch buffers, so
/// steady-state use does not allocate (besides the mesh growing).
#[derive(Default)]
pub struct Shapes {
    fill: FillTessellator,
    stroke: StrokeTessellator,
    buffers: VertexBuffers<Point, u32>,
    pub(super) points: Vec<Point>,
    feather: Feather,
}

impl std::fmt::Debug for Shapes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shapes").finish_non_exhaustive()
    }
}

/// What to tessellate, borrowed from the caller or from [`Shapes::points`].
#[derive(Clone, Copy)]
pub(super) enum Geometry<'a> {
    Path(&'a Path),
    Polygon { closed: bool },
    Circle { center: Point, radius: f32 },
    Ellipse { center: Point, radii: Vector, rotation: Angle },
    RoundedRect { rect: Box2D, radii: BorderRadii },
}

impl Shapes {
    /// A tessellator with empty scratch buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fills `path` with `style`, appending to `mesh`. Sub-paths are closed; where the path
    /// crosses itself or has holes, `style.rule` decides what is inside.
    ///
    /// A path with a NaN or infinite point is refused ([`ShapeError::NonFinite`], `index`
    /// counting the points of every event in order). lyon's own [`super::PathBuilder`]
    /// already asserts finite points in debug builds; such paths come from release builds or
    /// transforms.
    pub fn fill_path(&mut self, mesh: &mut Mesh, path: &Path, style: &FillStyle) -> Result<(), ShapeError> {
        check_path(path)?;
        self.fill_geometry(mesh, Geometry::Path(path), style)
    }

    /// Strokes `path` with `style`, appending to `mesh`. Closed sub-paths get joins all
    /// round; open ones get caps.
    pub fn stroke_path(&mut self, mesh: &mut Mesh, path: &Path, style: &StrokeStyle) -> Result<(), ShapeError> {
        check_path(path)?;
        self.stroke_geometry(mesh, Geometry::Path(path), style)
    }

    /// Fills `geometry` (already validated) into `mesh`.
    pub(super) fn fill_geometry(
        &mut self,
        mesh: &mut Mesh,
        geometry: Geometry<'_>,
        style: &FillStyle,
    ) -> Result<(), ShapeError> {
        check_fill(style)?;
        check_work(geometry, self.points.len(), style.tolerance_px, None)?;
        let options = FillOptions::tolerance(style.tolerance_px).with_fill_rule(style.rule);
        self.buffers.clear();
        let mut out = Capped::new(BuffersBuilder::new(&mut self.buffers, |v: FillVertex<'_>| v.position()));
        let result = tessellate!(&mut self.fill, geometry, &self.points, &options, &mut out);
        let result = capped(result, &out);
        self.finish(mesh, result, style.color, style.anti_alias)
    }

    /// Strokes `geometry` (already validated) into `mesh`.
    pub(super) fn stroke_geometry(
        &mut self,
        mesh: &mut Mesh,
        geometry: Geometry<'_>,
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        check_stroke(style)?;
        if style.width_px == 0.0 {
            return Ok(());
        }
        // Under a pixel, the band alone would not reach full alpha: draw a one-pixel line
        // whose colour carries the width instead (as epaint does).
        let (width, color) = if style.anti_alias && style.width_px < 1.0 {
            (1.0, style.color.map(|c| (f32::from(c) * style.width_px).round() as u8))
        } else {
            (style.width_px, style.color)
        };
        let round = style.join == LineJoin::Round || style.cap == LineCap::Round;
        check_work(geometry, self.points.len(), style.tolerance_px, round.then_some(width))?;
        let options = StrokeOptions::tolerance(style.tolerance_px)
            .with_line_width(width)
            .with_line_cap(style.cap)
            .with_line_join(style.join)
            .with_miter_limit(style.miter_limit);
        self.buffers.clear();
        let mut out = Capped::new(BuffersBuilder::new(&mut self.buffers, |v: StrokeVertex<'_, '_>| v.position()));
        let result = tessellate!(&mut self.stroke, geometry, &self.points, &options, &mut out);
        let result = capped(result, &out);
        self.finish(mesh, result, color, style.anti_alias)
    }

    /// Moves lyon's output into `mesh`, or restores `mesh` and reports the error.
    fn finish(
        &mut self,
        mesh: &mut Mesh,
        result: Result<(), ShapeError>,
        color: [u8; 4],
        anti_alias: bool,
    ) -> Result<(), ShapeError> {
        let (vertices, indices) = (mesh.vertices.len(), mesh.indices.len());
        let result = result
            .and_then(|()| self.feather.append(mesh, &self.buffers.vertices, &self.buffers.indices, color, anti_alias))
            .and_then(|()| drawable(&mesh.vertices[vertices..]));
        if result.is_err() {
            mesh.vertices.truncate(vertices);
            mesh.indices.truncate(indices);
        }
        result
    }
}

/// Every vertex a shape appended can be drawn: finite and within [`crate::Quad::MAX_POSITION`],
/// what `push_mesh` takes. Input is bounded point by point, but a stroke reaches past its path
/// by half its width (and a miter further), and degenerate strokes (a width of 1e-45 at a huge
/// tolerance) can come out of lyon as NaN: such a shape is refused, not handed on.
fn drawable(vertices: &[crate::Vertex]) -> Result<(), ShapeError> {
    for (index, v) in vertices.iter().enumerate() {
        for value in v.pos_px {
            if !value.is_finite() {
                return Err(ShapeError::NonFinite { what: "tessellated vertex", index });
            }
            if value.abs() >= crate::Quad::MAX_POSITION {
                return Err(ShapeError::OutOfRange { what: "tessellated vertex", index, value });
            }
        }
    }
    Ok(())
}

/// lyon's result as a shape's: stopped by [`Capped`] is
/// [`ShapeError::TooManyTessellatedVertices`], any other failure lyon's.
fn capped<B>(result: TessellationResult, out: &Capped<B>) -> Result<(), ShapeError> {
    if out.exceeded {
        return Err(ShapeError::TooManyTessellatedVertices { max_vertices: super::MAX_SHAPE_VERTICES });
    }
    result.map_err(|e| ShapeError::Tessellation(TessellationFailure::from(e)))
}
