//! Input checks run before lyon sees anything: lyon asserts (in debug) or misbehaves on NaN,
//! and huge values flatten into absurd vertex counts.

use super::{FillStyle, Path, ShapeError, StrokeStyle, MAX_COORD_PX, MIN_TOLERANCE_PX};
use lyon_tessellation::path::PathEvent;

/// `what[index]` must be finite and within [`MAX_COORD_PX`].
pub(super) fn coord(what: &'static str, index: usize, value: f32) -> Result<f32, ShapeError> {
    if !value.is_finite() {
        return Err(ShapeError::NonFinite { what, index });
    }
    if value.abs() > MAX_COORD_PX {
        return Err(ShapeError::OutOfRange { what, index, value });
    }
    Ok(value)
}

/// `what[index]` must be a [`coord`] and not negative.
pub(super) fn size(what: &'static str, index: usize, value: f32) -> Result<f32, ShapeError> {
    if coord(what, index, value)? < 0.0 {
        return Err(ShapeError::Negative { what, index, value });
    }
    Ok(value)
}

/// Both coordinates of point `index` of `what`.
pub(super) fn point(what: &'static str, index: usize, p: [f32; 2]) -> Result<(), ShapeError> {
    coord(what, index, p[0])?;
    coord(what, index, p[1])?;
    Ok(())
}

/// Every point of every event of `path`, numbered in event order.
pub(super) fn check_path(path: &Path) -> Result<(), ShapeError> {
    let mut index = 0;
    let mut check = |p: lyon_tessellation::math::Point| {
        let r = point("path", index, [p.x, p.y]);
        index += 1;
        r
    };
    for event in path.iter() {
        match event {
            PathEvent::Begin { at } => check(at)?,
            PathEvent::Line { to, .. } => check(to)?,
            PathEvent::Quadratic { ctrl, to, .. } => {
                check(ctrl)?;
                check(to)?;
            }
            PathEvent::Cubic { ctrl1, ctrl2, to, .. } => {
                check(ctrl1)?;
                check(ctrl2)?;
                check(to)?;
            }
            PathEvent::End { .. } => {}
        }
    }
    Ok(())
}

fn tolerance(value: f32) -> Result<(), ShapeError> {
    if value.is_finite() && value >= MIN_TOLERANCE_PX {
        Ok(())
    } else {
        Err(ShapeError::InvalidStyle { field: "tolerance_px", value })
    }
}

/// The fields of a [`FillStyle`] lyon reads.
pub(super) fn check_fill(style: &FillStyle) -> Result<(), ShapeError> {
    tolerance(style.tolerance_px)
}

/// The fields of a [`StrokeStyle`] lyon reads.
pub(super) fn check_stroke(style: &StrokeStyle) -> Result<(), ShapeError> {
    tolerance(style.tolerance_px)?;
    let w = style.width_px;
    if !(w.is_finite() && (0.0..=MAX_COORD_PX).contains(&w)) {
        return Err(ShapeError::InvalidStyle { field: "width_px", value: w });
    }
    let m = style.miter_limit;
    if !(m.is_finite() && m >= 1.0) {
        return Err(ShapeError::InvalidStyle { field: "miter_limit", value: m });
    }
    Ok(())
}
