//! Why a shape was refused. The mesh is then left exactly as it was.

/// Why [`super::Shapes`] refused a shape. On any error the mesh is unchanged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// A coordinate, radius, size or angle is NaN or infinite. `what` names the argument
    /// (`"points"`, `"path"`, `"center"`, `"radius"`, `"radii"`, `"rect_px"`, `"radii_px"`,
    /// `"rotation_rad"`), `index` the point or component in it (0 for a scalar); or
    /// `"tessellated vertex"`, a vertex lyon made from valid input (a degenerate stroke).
    #[error("`{what}`[{index}] is NaN or infinite")]
    NonFinite {
        /// The argument.
        what: &'static str,
        /// The point (in a slice or path, counting every point of every event) or component.
        index: usize,
    },
    /// A finite coordinate, radius or size beyond [`super::MAX_COORD_PX`] in magnitude; or
    /// (`what` `"tessellated vertex"`) a vertex of the result at or past
    /// [`crate::Quad::MAX_POSITION`] (a stroke reaches past its path), which `push_mesh`
    /// could not take.
    #[error("`{what}`[{index}] is {value}: beyond the ±2^30 px (shapes::MAX_COORD_PX) a shape may span")]
    OutOfRange {
        /// The argument.
        what: &'static str,
        /// The point or component in it.
        index: usize,
        /// The value.
        value: f32,
    },
    /// A radius or rectangle size is negative.
    #[error("`{what}`[{index}] is {value}: radii and sizes must not be negative")]
    Negative {
        /// The argument.
        what: &'static str,
        /// The component in it.
        index: usize,
        /// The value.
        value: f32,
    },
    /// A style field outside its documented range: `width_px` NaN, infinite, negative or
    /// beyond [`super::MAX_COORD_PX`]; `tolerance_px` NaN, infinite or under
    /// [`super::MIN_TOLERANCE_PX`]; `miter_limit` NaN, infinite or under 1.
    #[error("style field `{field}` is {value}: outside its documented range")]
    InvalidStyle {
        /// The field of [`super::FillStyle`] or [`super::StrokeStyle`].
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// Appending the shape would put more than `u32::MAX` vertices in the mesh, past what
    /// its `u32` indices address.
    #[error("the mesh would hold {vertices} vertices, more than u32 indices address")]
    TooManyVertices {
        /// Vertices the mesh would hold.
        vertices: usize,
    },
    /// The shape would flatten into more segments than [`super::MAX_SHAPE_SEGMENTS`] (curves
    /// spanning a huge range at a fine tolerance, a huge round stroke): refused before any
    /// work is done. Raise `tolerance_px` or split the shape.
    #[error(
        "the shape would flatten into about {estimated_segments} segments, more than the {max_segments} \
         (shapes::MAX_SHAPE_SEGMENTS) one shape may ask for: raise tolerance_px or split it"
    )]
    TooMuchWork {
        /// The estimate (an upper bound on lyon's count).
        estimated_segments: u64,
        /// [`super::MAX_SHAPE_SEGMENTS`].
        max_segments: u64,
    },
    /// lyon wrote more than [`super::MAX_SHAPE_VERTICES`] vertices for the shape (a round
    /// stroke millions of pixels wide puts an arc at every flattened vertex, which the
    /// estimate before lyon runs cannot see): stopped there and refused.
    #[error(
        "the shape tessellates into more than {max_vertices} vertices (shapes::MAX_SHAPE_VERTICES): raise \
         tolerance_px, narrow the stroke or split the shape"
    )]
    TooManyTessellatedVertices {
        /// [`super::MAX_SHAPE_VERTICES`].
        max_vertices: u32,
    },
    /// lyon's tessellator failed.
    #[error("tessellation failed: {0}")]
    Tessellation(TessellationFailure),
}

/// How lyon's tessellator failed (its `TessellationError`, without lyon's types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TessellationFailure {
    /// lyon met a NaN position (validation normally refuses these first).
    #[error("lyon met a NaN position")]
    PositionIsNaN,
    /// lyon met a NaN tolerance (validation normally refuses these first).
    #[error("lyon met a NaN tolerance")]
    ToleranceIsNaN,
    /// lyon's output refused a vertex.
    #[error("lyon produced an invalid vertex")]
    InvalidVertex,
    /// lyon's output ran out of `u32` vertex ids.
    #[error("lyon produced more vertices than u32 ids address")]
    TooManyVertices,
    /// lyon's fill sweep found its own state inconsistent, which can happen on paths with
    /// many near-coincident intersections. lyon's own error is logged (`log`, warn level).
    #[error("lyon's sweep failed internally")]
    Internal,
}

impl From<lyon_tessellation::TessellationError> for TessellationFailure {
    fn from(e: lyon_tessellation::TessellationError) -> Self {
        use lyon_tessellation::{GeometryBuilderError as G, TessellationError as T};
        match e {
            T::UnsupportedParamater(lyon_tessellation::UnsupportedParamater::PositionIsNaN) => Self::PositionIsNaN,
            T::UnsupportedParamater(lyon_tessellation::UnsupportedParamater::ToleranceIsNaN) => Self::ToleranceIsNaN,
            T::GeometryBuilder(G::InvalidVertex) => Self::InvalidVertex,
            T::GeometryBuilder(G::TooManyVertices) => Self::TooManyVertices,
            T::Internal(i) => {
                log::warn!("lyon tessellation failed: {i}");
                Self::Internal
            }
        }
    }
}
