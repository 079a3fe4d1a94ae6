//! Lines, polylines, polygons, circles, ellipses and rounded rectangles: validated, then
//! tessellated like paths.

use super::tessellate::Geometry;
use super::validate::{check_fill, check_stroke, coord, point, size};
use super::{FillStyle, ShapeError, Shapes, StrokeStyle};
use crate::Mesh;
use lyon_tessellation::math::{point as pt, vector, Angle, Box2D};
use lyon_tessellation::path::builder::BorderRadii;

impl Shapes {
    /// Strokes the segment from `a` to `b`; `style.cap` shapes both ends.
    pub fn line(&mut self, mesh: &mut Mesh, a: [f32; 2], b: [f32; 2], style: &StrokeStyle) -> Result<(), ShapeError> {
        self.polyline(mesh, &[a, b], false, style)
    }

    /// Strokes the line through `points`; `closed` joins the last point back to the first
    /// (then there are no caps). Fewer than two points draw nothing.
    pub fn polyline(
        &mut self,
        mesh: &mut Mesh,
        points: &[[f32; 2]],
        closed: bool,
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        check_stroke(style)?;
        self.load_points(points)?;
        if points.len() < 2 {
            return Ok(());
        }
        self.stroke_geometry(mesh, Geometry::Polygon { closed }, style)
    }

    /// Fills the polygon through `points` (closed implicitly). Concave and self-crossing
    /// polygons are fine: `style.rule` decides what is inside. Fewer than three points draw
    /// nothing.
    pub fn fill_polygon(&mut self, mesh: &mut Mesh, points: &[[f32; 2]], style: &FillStyle) -> Result<(), ShapeError> {
        check_fill(style)?;
        self.load_points(points)?;
        if points.len() < 3 {
            return Ok(());
        }
        self.fill_geometry(mesh, Geometry::Polygon { closed: true }, style)
    }

    /// Strokes the outline of the polygon through `points`: [`Shapes::polyline`], closed.
    pub fn stroke_polygon(
        &mut self,
        mesh: &mut Mesh,
        points: &[[f32; 2]],
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        self.polyline(mesh, points, true, style)
    }

    /// Fills the circle of `radius` about `center`. A zero radius draws nothing.
    pub fn fill_circle(
        &mut self,
        mesh: &mut Mesh,
        center: [f32; 2],
        radius: f32,
        style: &FillStyle,
    ) -> Result<(), ShapeError> {
        check_fill(style)?;
        let g = circle(center, radius)?;
        if radius == 0.0 {
            return Ok(());
        }
        self.fill_geometry(mesh, g, style)
    }

    /// Strokes the circle of `radius` about `center` (the stroke is centred on the circle).
    /// A zero radius draws nothing.
    pub fn stroke_circle(
        &mut self,
        mesh: &mut Mesh,
        center: [f32; 2],
        radius: f32,
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        check_stroke(style)?;
        let g = circle(center, radius)?;
        if radius == 0.0 {
            return Ok(());
        }
        self.stroke_geometry(mesh, g, style)
    }

    /// Fills the ellipse about `center` with `radii` `[x, y]`, rotated by `rotation_rad`
    /// (clockwise on a y-down screen). A zero radius draws nothing.
    pub fn fill_ellipse(
        &mut self,
        mesh: &mut Mesh,
        center: [f32; 2],
        radii: [f32; 2],
        rotation_rad: f32,
        style: &FillStyle,
    ) -> Result<(), ShapeError> {
        check_fill(style)?;
        let g = ellipse(center, radii, rotation_rad)?;
        if radii.contains(&0.0) {
            return Ok(());
        }
        self.fill_geometry(mesh, g, style)
    }

    /// Strokes the ellipse of [`Shapes::fill_ellipse`]. A zero radius draws nothing.
    pub fn stroke_ellipse(
        &mut self,
        mesh: &mut Mesh,
        center: [f32; 2],
        radii: [f32; 2],
        rotation_rad: f32,
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        check_stroke(style)?;
        let g = ellipse(center, radii, rotation_rad)?;
        if radii.contains(&0.0) {
            return Ok(());
        }
        self.stroke_geometry(mesh, g, style)
    }

    /// Fills the rectangle `rect_px` (`[x, y, width, height]`) with corner radii `radii_px`
    /// (`[top_left, top_right, bottom_right, bottom_left]`; each clamped to the smaller side,
    /// as lyon does). A zero width or height draws nothing.
    pub fn fill_rounded_rect(
        &mut self,
        mesh: &mut Mesh,
        rect_px: [f32; 4],
        radii_px: [f32; 4],
        style: &FillStyle,
    ) -> Result<(), ShapeError> {
        check_fill(style)?;
        let g = rounded_rect(rect_px, radii_px)?;
        if rect_px[2] == 0.0 || rect_px[3] == 0.0 {
            return Ok(());
        }
        self.fill_geometry(mesh, g, style)
    }

    /// Strokes the outline of [`Shapes::fill_rounded_rect`]'s shape (centred on it). A zero
    /// width or height draws nothing.
    pub fn stroke_rounded_rect(
        &mut self,
        mesh: &mut Mesh,
        rect_px: [f32; 4],
        radii_px: [f32; 4],
        style: &StrokeStyle,
    ) -> Result<(), ShapeError> {
        check_stroke(style)?;
        let g = rounded_rect(rect_px, radii_px)?;
        if rect_px[2] == 0.0 || rect_px[3] == 0.0 {
            return Ok(());
        }
        self.stroke_geometry(mesh, g, style)
    }

    /// Validates `points` into the scratch polygon.
    fn load_points(&mut self, points: &[[f32; 2]]) -> Result<(), ShapeError> {
        for (i, &p) in points.iter().enumerate() {
            point("points", i, p)?;
        }
        self.points.clear();
        self.points.extend(points.iter().map(|p| pt(p[0], p[1])));
        Ok(())
    }
}

fn circle(center: [f32; 2], radius: f32) -> Result<Geometry<'static>, ShapeError> {
    point("center", 0, center)?;
    size("radius", 0, radius)?;
    Ok(Geometry::Circle { center: pt(center[0], center[1]), radius })
}

fn ellipse(center: [f32; 2], radii: [f32; 2], rotation_rad: f32) -> Result<Geometry<'static>, ShapeError> {
    point("center", 0, center)?;
    size("radii", 0, radii[0])?;
    size("radii", 1, radii[1])?;
    if !rotation_rad.is_finite() {
        return Err(ShapeError::NonFinite { what: "rotation_rad", index: 0 });
    }
    Ok(Geometry::Ellipse {
        center: pt(center[0], center[1]),
        radii: vector(radii[0], radii[1]),
        rotation: Angle::radians(rotation_rad),
    })
}

fn rounded_rect(rect_px: [f32; 4], radii_px: [f32; 4]) -> Result<Geometry<'static>, ShapeError> {
    let [x, y] = [coord("rect_px", 0, rect_px[0])?, coord("rect_px", 1, rect_px[1])?];
    let [w, h] = [size("rect_px", 2, rect_px[2])?, size("rect_px", 3, rect_px[3])?];
    for (i, &r) in radii_px.iter().enumerate() {
        size("radii_px", i, r)?;
    }
    let [top_left, top_right, bottom_right, bottom_left] = radii_px;
    Ok(Geometry::RoundedRect {
        rect: Box2D::new(pt(x, y), pt(x + w, y + h)),
        radii: BorderRadii { top_left, top_right, bottom_left, bottom_right },
    })
}
