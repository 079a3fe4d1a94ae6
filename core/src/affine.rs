//! A 2D affine transform for [`crate::DrawingState::set_transform`], with optional `mint` interop.

/// A 2D affine transform `[a, b, c, d, tx, ty]`: `(x, y)` maps to
/// `(a x + c y + tx, b x + d y + ty)`. In matrix terms, the columns are `(a, b)`, `(c, d)`
/// (the linear part) and `(tx, ty)` (the translation), the layout of
/// `DrawState::transform`.
///
/// [`crate::DrawingState::set_transform`] takes anything that converts into it: an `Affine2`, a
/// `[f32; 6]` in the layout above, and with the `mint` feature a `mint::ColumnMatrix2x3<f32>`
/// or a `mint::ColumnMatrix3<f32>` (what glam, nalgebra, cgmath and others convert to).
///
/// [`Affine2::then`] composes: `a.then(b)` applies `a` first, then `b`; it is the matrix
/// product `b * a`. A camera that rotates, then zooms, then pans (the matrix product
/// `pan * zoom * rotate`):
///
/// ```
/// use layerbatch_core::Affine2;
///
/// let rotate = Affine2::rotation(std::f32::consts::FRAC_PI_2); // a quarter turn, clockwise on screen
/// let zoom = Affine2::scale(2.0, 2.0);
/// let pan = Affine2::translation(100.0, 50.0);
/// let camera = rotate.then(zoom).then(pan);
///
/// // (10, 0) turns to (0, 10), zooms to (0, 20), pans to (100, 70).
/// let [x, y] = camera.transform_point([10.0, 0.0]);
/// assert!((x - 100.0).abs() < 1e-4 && (y - 70.0).abs() < 1e-4);
///
/// // Each step applied in turn gives the same point.
/// let step = pan.transform_point(zoom.transform_point(rotate.transform_point([10.0, 0.0])));
/// assert!((step[0] - x).abs() < 1e-4 && (step[1] - y).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine2(pub [f32; 6]);

impl Affine2 {
    /// The identity: every point stays where it is.
    pub const IDENTITY: Self = Self([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    /// Moves every point by `(tx, ty)`.
    #[must_use]
    pub const fn translation(tx: f32, ty: f32) -> Self {
        Self([1.0, 0.0, 0.0, 1.0, tx, ty])
    }

    /// Scales by `sx` along x and `sy` along y, about the origin.
    #[must_use]
    pub const fn scale(sx: f32, sy: f32) -> Self {
        Self([sx, 0.0, 0.0, sy, 0.0, 0.0])
    }

    /// Rotates by `angle_rad` about the origin: from +x towards +y, so clockwise on a y-down
    /// screen (as [`crate::Quad::rotated`]).
    #[must_use]
    pub fn rotation(angle_rad: f32) -> Self {
        let (s, c) = angle_rad.sin_cos();
        Self([c, s, -s, c, 0.0, 0.0])
    }

    /// `self`, then `other`: the transform that applies `self` first and `other` to the
    /// result (the matrix product `other * self`).
    #[must_use]
    pub const fn then(self, other: Self) -> Self {
        let [a1, b1, c1, d1, tx1, ty1] = self.0;
        let [a2, b2, c2, d2, tx2, ty2] = other.0;
        Self([
            a2 * a1 + c2 * b1,
            b2 * a1 + d2 * b1,
            a2 * c1 + c2 * d1,
            b2 * c1 + d2 * d1,
            a2 * tx1 + c2 * ty1 + tx2,
            b2 * tx1 + d2 * ty1 + ty2,
        ])
    }

    /// The transform that undoes `self`, or `None` when `self` flattens the plane (its
    /// linear part's determinant is 0) or the result is not finite.
    ///
    /// ```
    /// use layerbatch_core::Affine2;
    /// let camera = Affine2::translation(-300.0, -200.0).then(Affine2::rotation(0.5)).then(Affine2::scale(2.0, 2.0));
    /// let back = camera.inverse().unwrap();
    /// let [x, y] = back.transform_point(camera.transform_point([310.0, 220.0]));
    /// assert!((x - 310.0).abs() < 1e-3 && (y - 220.0).abs() < 1e-3);
    /// assert_eq!(Affine2::scale(0.0, 1.0).inverse(), None);
    /// ```
    #[must_use]
    pub fn inverse(self) -> Option<Self> {
        let [a, b, c, d, tx, ty] = self.0;
        let det = a * d - b * c;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let [ia, ib, ic, id] = [d / det, -b / det, -c / det, a / det];
        let m = [ia, ib, ic, id, -(ia * tx + ic * ty), -(ib * tx + id * ty)];
        m.iter().all(|v| v.is_finite()).then_some(Self(m))
    }

    /// Where `point` goes: `(a x + c y + tx, b x + d y + ty)`.
    #[must_use]
    pub const fn transform_point(self, [x, y]: [f32; 2]) -> [f32; 2] {
        let [a, b, c, d, tx, ty] = self.0;
        [a * x + c * y + tx, b * x + d * y + ty]
    }
}

impl Default for Affine2 {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl From<[f32; 6]> for Affine2 {
    fn from(m: [f32; 6]) -> Self {
        Self(m)
    }
}

impl From<Affine2> for [f32; 6] {
    fn from(m: Affine2) -> Self {
        m.0
    }
}

/// Columns `x` and `y` are the linear part `(a, b)`, `(c, d)`; column `z` is the translation.
#[cfg(feature = "mint")]
impl From<mint::ColumnMatrix2x3<f32>> for Affine2 {
    fn from(m: mint::ColumnMatrix2x3<f32>) -> Self {
        Self([m.x.x, m.x.y, m.y.x, m.y.y, m.z.x, m.z.y])
    }
}

#[cfg(feature = "mint")]
impl From<Affine2> for mint::ColumnMatrix2x3<f32> {
    fn from(Affine2([a, b, c, d, tx, ty]): Affine2) -> Self {
        Self { x: mint::Vector2 { x: a, y: b }, y: mint::Vector2 { x: c, y: d }, z: mint::Vector2 { x: tx, y: ty } }
    }
}

/// A homogeneous 3x3 matrix (columns `x`, `y`, `z`; `z` holds the translation). The last row
/// (`x.z`, `y.z`, `z.z`) is ignored: it is `(0, 0, 1)` for an affine transform, and a
/// projective one is not supported.
#[cfg(feature = "mint")]
impl From<mint::ColumnMatrix3<f32>> for Affine2 {
    fn from(m: mint::ColumnMatrix3<f32>) -> Self {
        Self([m.x.x, m.x.y, m.y.x, m.y.y, m.z.x, m.z.y])
    }
}

/// The homogeneous 3x3 matrix, last row `(0, 0, 1)`.
#[cfg(feature = "mint")]
impl From<Affine2> for mint::ColumnMatrix3<f32> {
    fn from(Affine2([a, b, c, d, tx, ty]): Affine2) -> Self {
        Self {
            x: mint::Vector3 { x: a, y: b, z: 0.0 },
            y: mint::Vector3 { x: c, y: d, z: 0.0 },
            z: mint::Vector3 { x: tx, y: ty, z: 1.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Affine2;

    fn close(p: [f32; 2], q: [f32; 2]) -> bool {
        (p[0] - q[0]).abs() < 1e-4 && (p[1] - q[1]).abs() < 1e-4
    }

    #[test]
    fn constructors() {
        assert_eq!(Affine2::default(), Affine2::IDENTITY);
        assert_eq!(Affine2::IDENTITY.transform_point([3.0, -4.0]), [3.0, -4.0]);
        assert_eq!(Affine2::translation(5.0, 6.0).transform_point([1.0, 2.0]), [6.0, 8.0]);
        assert_eq!(Affine2::scale(2.0, 3.0).transform_point([1.0, 2.0]), [2.0, 6.0]);
        // +x turns towards +y.
        assert!(close(Affine2::rotation(std::f32::consts::FRAC_PI_2).transform_point([1.0, 0.0]), [0.0, 1.0]));
        // The layout is the batcher's.
        assert_eq!(Affine2::IDENTITY.0, crate::plan::DrawState::IDENTITY);
        let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(<[f32; 6]>::from(Affine2::from(m)), m);
        assert_eq!(Affine2(m).transform_point([1.0, 1.0]), [1.0 + 3.0 + 5.0, 2.0 + 4.0 + 6.0]);
    }

    #[test]
    fn composition_order() {
        let pan = Affine2::translation(10.0, 0.0);
        let zoom = Affine2::scale(2.0, 2.0);
        // Zoom, then pan: (1, 1) -> (2, 2) -> (12, 2).
        assert_eq!(zoom.then(pan).transform_point([1.0, 1.0]), [12.0, 2.0]);
        // Pan, then zoom: (1, 1) -> (11, 1) -> (22, 2).
        assert_eq!(pan.then(zoom).transform_point([1.0, 1.0]), [22.0, 2.0]);
        // The identity on either side changes nothing; composition is associative.
        let rotate = Affine2::rotation(0.7);
        let skew = Affine2([1.0, 0.25, -0.5, 1.0, 3.0, -2.0]);
        assert_eq!(skew.then(Affine2::IDENTITY), skew);
        assert_eq!(Affine2::IDENTITY.then(skew), skew);
        for p in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-7.5, 12.25]] {
            let chained = rotate.then(zoom).then(pan).then(skew).transform_point(p);
            let grouped = rotate.then(zoom.then(pan.then(skew))).transform_point(p);
            let stepped = skew.transform_point(pan.transform_point(zoom.transform_point(rotate.transform_point(p))));
            assert!(close(chained, stepped) && close(grouped, stepped), "{p:?}");
        }
    }

    #[cfg(feature = "mint")]
    #[test]
    fn mint_round_trip() {
        let m = Affine2([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);

        let m23 = mint::ColumnMatrix2x3::from(m);
        assert_eq!([m23.x.x, m23.x.y, m23.y.x, m23.y.y, m23.z.x, m23.z.y], m.0);
        assert_eq!(Affine2::from(m23), m);

        let m3 = mint::ColumnMatrix3::from(m);
        assert_eq!([m3.x.z, m3.y.z, m3.z.z], [0.0, 0.0, 1.0]);
        assert_eq!(Affine2::from(m3), m);
        // The last row is ignored.
        let projective = mint::ColumnMatrix3 { x: mint::Vector3 { z: 0.5, ..m3.x }, ..m3 };
        assert_eq!(Affine2::from(projective), m);
    }

    #[cfg(feature = "mint")]
    #[test]
    fn a_point_maps_the_same_through_mint() {
        let camera = Affine2::rotation(0.3).then(Affine2::scale(1.5, 0.5)).then(Affine2::translation(-20.0, 8.0));
        let m3 = mint::ColumnMatrix3::from(camera);
        let m23 = mint::ColumnMatrix2x3::from(camera);
        for p @ [x, y] in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [33.0, -4.5]] {
            let ours = camera.transform_point(p);
            // Column-major matrix times the homogeneous point (x, y, 1).
            let homogeneous = [m3.x.x * x + m3.y.x * y + m3.z.x, m3.x.y * x + m3.y.y * y + m3.z.y];
            let w = m3.x.z * x + m3.y.z * y + m3.z.z;
            let two_by_three = [m23.x.x * x + m23.y.x * y + m23.z.x, m23.x.y * x + m23.y.y * y + m23.z.y];
            assert_eq!(w, 1.0);
            assert!(close(ours, homogeneous) && close(ours, two_by_three), "{p:?}");
        }
    }
}
