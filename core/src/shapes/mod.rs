//! Shapes tessellated into [`crate::Mesh`]es (lyon), anti-aliased by feathering.
//!
//! [`Shapes`] fills and strokes lyon [`Path`]s and primitives (lines, polylines, polygons,
//! circles, ellipses, rounded rectangles) and appends the triangles to a [`crate::Mesh`],
//! every vertex a [`crate::Vertex::solid`] in the style's premultiplied colour: push the mesh
//! with the batcher's white texture. The path types are lyon's, re-exported here, so a host
//! builds paths without depending on lyon.
//!
//! ```
//! use layerbatch_core::shapes::{point, FillStyle, LineCap, LineJoin, Path, Shapes, StrokeStyle};
//! use layerbatch_core::Mesh;
//!
//! let mut shapes = Shapes::new();
//! let mut mesh = Mesh::default();
//! // A translucent rounded panel (premultiplied: half-transparent dark blue).
//! let panel = FillStyle::new([0, 0, 64, 128]);
//! shapes.fill_rounded_rect(&mut mesh, [20.0, 20.0, 200.0, 80.0], [8.0; 4], &panel)?;
//! // A 3 px polyline with round caps and joins.
//! let line = StrokeStyle::new([255, 200, 0, 255], 3.0).with_cap(LineCap::Round).with_join(LineJoin::Round);
//! shapes.polyline(&mut mesh, &[[30.0, 90.0], [80.0, 40.0], [130.0, 70.0]], false, &line)?;
//! // Any path: a triangle.
//! let mut b = Path::builder();
//! b.begin(point(150.0, 90.0));
//! b.line_to(point(200.0, 90.0));
//! b.line_to(point(175.0, 40.0));
//! b.end(true);
//! shapes.fill_path(&mut mesh, &b.build(), &FillStyle::new([255, 0, 0, 255]))?;
//! assert!(mesh.indices.iter().all(|&i| (i as usize) < mesh.vertices.len()));
//! # Ok::<(), layerbatch_core::shapes::ShapeError>(())
//! ```
//!
//! ## Anti-aliasing
//!
//! A host's pass may have a single sample, so edges are anti-aliased in the mesh itself, by
//! one-pixel feathering (as egui's epaint does), the same pass for fills and strokes: lyon
//! tessellates the exact shape; vertices at the same position are merged, and the boundary
//! edges found (sides of exactly one triangle), each with its outward normal. Every boundary
//! vertex moves half a pixel inward (along the miter of its two edges' normals), and a
//! transparent copy goes half a pixel outward; two triangles per boundary edge span the band
//! between them. The colour falls linearly from full half a pixel inside the true edge to
//! zero half a pixel outside, so the total coverage matches the exact shape. Strokes
//! narrower than a pixel are drawn one pixel wide with the colour scaled by the width. Set
//! `anti_alias: false` for lyon's triangles alone (for an MSAA pass).
//!
//! At a corner the miter is taken in full on the wedge's side (inward at a convex corner, so
//! a sharp tip fades out where it gets narrower than a pixel; outward at a concave one, so a
//! narrow notch fades in), limited by the length of the corner's edges. On the other side it
//! would reach far from the corner: outward the band is bevelled at corners sharper than 60
//! degrees; inward at concave corners the move is clamped to 1.5 px. Where boundary loops
//! touch (the crossings of an even-odd star), each fan of triangles gets its own copy of the
//! vertex, so each is a plain corner.
//!
//! Measured against tiny-skia (see the tests): equal within 2 per channel away from the
//! edge; in the band, total coverage within 0.7% for circles, ellipses, rounded rectangles,
//! polygons, stars and polylines with every cap and join. Limits:
//! - Concave corners sharper than about 40 degrees (a notch, the inner side of a sharp
//!   mitered stroke turn): the clamped inward move leaves the band's inner side skewed along
//!   the corner's edges, a few pixels of extra coverage (+2.3% on a 3 px stroke turning by
//!   15 degrees).
//! - Features narrower than a pixel (a sliver of a fill): the inward moves cross, and the
//!   coverage there is approximate.
//! - Self-overlapping strokes (sharp turns, a path over itself): lyon's stroke triangles
//!   overlap, so a translucent stroke is darker where they do (as without feathering), and
//!   the band of the overlapped part is drawn under the stroke's interior (invisible when the
//!   stroke is opaque).
//! - Flattening puts curves up to `tolerance_px` inside the true curve: a filled circle of
//!   radius 32 at the default 0.1 px covers 0.6% less than the true circle.
//!
//! ## Bad input
//!
//! NaN or infinite coordinates, radii, sizes or angles, values beyond [`MAX_COORD_PX`],
//! negative radii or sizes, and style fields outside their documented ranges are errors
//! ([`ShapeError`]) and leave the mesh unchanged. Degenerate input is `Ok` and draws nothing
//! (see [`Shapes`]). Self-intersecting paths are filled by the fill rule. Positions are
//! `f32`: far from the origin (beyond about 2^23 px) the half-pixel band loses precision,
//! but every vertex stays finite. lyon flattens curves into about
//! `pi * sqrt(radius / (2 * tolerance_px))` segments per full turn, so huge radii (or
//! round joins and caps of huge widths) with a fine tolerance make big meshes: a shape whose
//! estimated segments (an upper bound, before lyon runs) pass [`MAX_SHAPE_SEGMENTS`] is
//! refused with [`ShapeError::TooMuchWork`], and lyon is stopped past [`MAX_SHAPE_VERTICES`]
//! ([`ShapeError::TooManyTessellatedVertices`]).
//!
//! ## Cost
//!
//! A filled circle of radius 32 is 94 triangles over 64 vertices (30 over 32 without
//! anti-aliasing); a 240x64 panel with 8 px corners 82 over 56, its 2 px outline 168 over
//! 112. A warm [`Shapes`] does not allocate.

mod error;
mod feather;
mod primitives;
mod style;
mod tessellate;
#[cfg(test)]
mod tests;
mod validate;
mod work;

pub use error::{ShapeError, TessellationFailure};
pub use lyon_tessellation::math::{point, vector, Angle, Box2D, Point, Vector};
pub use lyon_tessellation::path::builder::BorderRadii;
pub use lyon_tessellation::path::path::Builder as PathBuilder;
pub use lyon_tessellation::path::{Path, PathEvent, Winding};
pub use lyon_tessellation::{FillRule, LineCap, LineJoin};
pub use style::{FillStyle, StrokeStyle, MIN_TOLERANCE_PX};
pub use tessellate::Shapes;
pub use work::{MAX_SHAPE_SEGMENTS, MAX_SHAPE_VERTICES};

/// The largest coordinate magnitude, radius, size or width a shape may have:
/// 2^30 px, as [`crate::Quad::MAX_POSITION`].
pub const MAX_COORD_PX: f32 = crate::Quad::MAX_POSITION;
