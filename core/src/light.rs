//! 2D lights: point lights over normal-mapped sprites, a fixed number a frame, so the
//! program set never changes with the light count (DESIGN 24).
//!
//! A batcher made with [`crate::Config::with_lights`] gives every uncompressed array a
//! sibling normal-map array of the same size, layers and mip levels
//! ([`crate::plan::ArrayDesc::normal_map`]); a texture's normal map
//! ([`crate::TextureStore::register_normal_map`]) lies at the same slot, layer and rectangle there,
//! so lit sprites keep one draw and the arrays their capacity. Every tier program samples the
//! sibling of the quad's slot: a lit program of `n` slots takes `2n` samplers, so lights halve
//! the slots a draw covers ([`crate::Budget::slots`]), never the textures an array holds.

/// The most lights one frame draws with, whatever the config asks: 16 lights take 32 `vec4`
/// uniforms, well inside the 224 fragment uniform vectors GLES 3.0 guarantees.
pub const MAX_LIGHTS: u32 = 16;

/// A point light of a frame ([`crate::Batcher::add_light`]).
///
/// A lit pixel at `p` (target pixels, y down, after the draw state's transform) with normal
/// `n` gets from the light
/// `color * max(dot(n, normalize(vec3(position_px - p, height_px))), 0) * pow(1 - d / radius_px, falloff)`
/// for `d = |position_px - p| < radius_px`, nothing beyond; the frame's ambient colour plus
/// every light's share multiplies the pixel's colour ([`crate::DrawingState::set_lit`]).
///
/// ```
/// use layerbatch_core::PointLight;
/// let torch = PointLight::new([120.0, 80.0], 96.0, [1.0, 0.8, 0.5]);
/// assert_eq!((torch.height_px, torch.falloff, torch.priority), (32.0, 1.0, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct PointLight {
    /// Where the light is, target pixels (y down).
    pub position_px: [f32; 2],
    /// How far above the picture the light is, pixels: low lights graze, high ones light
    /// from the front. Default 32.
    pub height_px: f32,
    /// Pixels farther than this get nothing. Finite and above 0.
    pub radius_px: f32,
    /// Linear RGB, each finite and at least 0 (above 1 is brighter than white).
    pub color: [f32; 3],
    /// The exponent of the fall-off `1 - d / radius_px`: 1 linear, 2 quadratic. Default 1;
    /// finite and at least 0.
    pub falloff: f32,
    /// Which lights a frame keeps when it has more than its cap: the highest priorities, the
    /// earlier added first among equals. Default 0.
    pub priority: i32,
}

impl PointLight {
    /// A light at `position_px` reaching `radius_px`, of `color`, 32 px high, linear fall-off,
    /// priority 0.
    pub const fn new(position_px: [f32; 2], radius_px: f32, color: [f32; 3]) -> Self {
        Self { position_px, height_px: 32.0, radius_px, color, falloff: 1.0, priority: 0 }
    }
    /// With `height_px`.
    #[must_use]
    pub const fn with_height_px(mut self, height_px: f32) -> Self {
        self.height_px = height_px;
        self
    }
    /// With `falloff`.
    #[must_use]
    pub const fn with_falloff(mut self, falloff: f32) -> Self {
        self.falloff = falloff;
        self
    }
    /// With `priority`.
    #[must_use]
    pub const fn with_priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// The light as the shaders read it: `(x, y, height, radius)`, then `(r, g, b, falloff)`.
    pub const fn packed(&self) -> [[f32; 4]; 2] {
        let [x, y] = self.position_px;
        let [r, g, b] = self.color;
        [[x, y, self.height_px, self.radius_px], [r, g, b, self.falloff]]
    }

    pub(crate) fn check(&self) -> Result<(), LightError> {
        let finite = self.position_px.iter().chain(&[self.height_px]).all(|v| v.is_finite());
        if !finite {
            return Err(LightError::Position { position_px: self.position_px, height_px: self.height_px });
        }
        if !(self.radius_px.is_finite() && self.radius_px > 0.0) {
            return Err(LightError::Radius { radius_px: self.radius_px });
        }
        if !self.color.iter().all(|c| c.is_finite() && *c >= 0.0) {
            return Err(LightError::Color { color: self.color });
        }
        if !(self.falloff.is_finite() && self.falloff >= 0.0) {
            return Err(LightError::Falloff { falloff: self.falloff });
        }
        Ok(())
    }
}

/// Why a light, an ambient colour or a lit quad was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LightError {
    /// The batcher was made without lights ([`crate::Config::with_lights`]).
    #[error("lights are off: this batcher was made with Config::lights = 0")]
    Off,
    /// A light is added between frames: lights last one frame, the one being recorded
    /// ([`crate::Batcher::begin_frame`] first).
    #[error("no frame is being recorded: add lights between begin_frame and finish")]
    NoFrame,
    /// A position or height is NaN or infinite.
    #[error("light at {position_px:?}, {height_px} px high: not finite")]
    Position {
        /// The position asked for.
        position_px: [f32; 2],
        /// The height asked for.
        height_px: f32,
    },
    /// A radius that is not finite and above 0.
    #[error("light radius {radius_px} px: a radius is finite and above 0")]
    Radius {
        /// The radius asked for.
        radius_px: f32,
    },
    /// A colour channel that is NaN, infinite or negative (a light or the ambient colour).
    #[error("light colour {color:?}: each channel is finite and at least 0")]
    Color {
        /// The colour asked for.
        color: [f32; 3],
    },
    /// A fall-off exponent that is not finite or below 0.
    #[error("light fall-off {falloff}: finite and at least 0")]
    Falloff {
        /// The exponent asked for.
        falloff: f32,
    },
}

/// Keeps the `cap` lights of the highest priority (the earlier added first among equals), in
/// the order they were added; returns how many were dropped.
pub(crate) fn keep_by_priority(lights: &mut Vec<PointLight>, order: &mut Vec<u32>, cap: usize) -> u32 {
    if lights.len() <= cap {
        return 0;
    }
    let dropped = (lights.len() - cap) as u32;
    order.clear();
    order.extend(0..lights.len() as u32);
    // Stable: equal priorities keep their order.
    order.sort_by_key(|&i| std::cmp::Reverse(lights[i as usize].priority));
    order.truncate(cap);
    order.sort_unstable();
    for (k, &i) in order.iter().enumerate() {
        lights[k] = lights[i as usize];
    }
    lights.truncate(cap);
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_priority_goes_and_the_rest_keep_their_order() {
        let l = |p| PointLight::new([0.0; 2], 1.0, [1.0; 3]).with_priority(p);
        let mut lights: Vec<_> = [3, 1, 0, 2, 0, 5].map(l).to_vec();
        lights[4].radius_px = 2.0; // the later of the two 0s
        let mut order = Vec::new();
        assert_eq!(keep_by_priority(&mut lights, &mut order, 5), 1);
        assert_eq!(lights.iter().map(|l| l.priority).collect::<Vec<_>>(), [3, 1, 0, 2, 5]);
        assert_eq!(lights[2].radius_px, 1.0, "the earlier of equals stays");
        assert_eq!(keep_by_priority(&mut lights, &mut order, 8), 0);
    }
}
