//! The component game code spawns, and the quad it becomes in world space.

use bevy::prelude::*;
use layerbatch_core::{Quad, TextureId};

/// A sprite drawn by layerbatch, sorted by its z among Bevy's own `Transparent2d` items
/// (sprites, 2D meshes, text): position, rotation, scale and z come from its [`Transform`]
/// (through [`GlobalTransform`], so parents apply), the rest from here.
///
/// ```
/// use bevy::prelude::*;
/// use layerbatch_bevy::LayerbatchSprite;
///
/// fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn((
///         LayerbatchSprite::from_image(assets.load("ship.png")).with_color(Color::srgb(1.0, 0.5, 0.5)),
///         Transform::from_xyz(10.0, 20.0, 1.5).with_rotation(Quat::from_rotation_z(0.3)),
///     ));
/// }
/// # let _ = spawn;
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, Visibility)]
pub struct LayerbatchSprite {
    /// The image. Default: Bevy's default (white) image handle.
    pub image: Handle<Image>,
    /// Tint, multiplied with the image in linear light, as Bevy's `Sprite::color`. Default
    /// white. layerbatch keeps it as 8-bit premultiplied linear RGBA, so very dark tints lose
    /// precision (Bevy keeps 32-bit floats).
    pub color: Color,
    /// The part of the image to show, in its pixels (top-left origin). Default: all of it.
    pub rect: Option<Rect>,
    /// Size in world units before the transform's scale. Default: the size of `rect`, or of
    /// the image.
    pub custom_size: Option<Vec2>,
    /// Mirror horizontally. Default false.
    pub flip_x: bool,
    /// Mirror vertically. Default false.
    pub flip_y: bool,
    /// Where the transform's origin sits in the sprite, as Bevy's `Anchor`: `(0, 0)` the
    /// centre, `(-0.5, -0.5)` the bottom-left corner. Default the centre.
    pub anchor: Vec2,
}

impl Default for LayerbatchSprite {
    fn default() -> Self {
        Self::from_image(Handle::default())
    }
}

impl LayerbatchSprite {
    /// The whole of `image`, untinted, centred on the transform.
    pub fn from_image(image: Handle<Image>) -> Self {
        Self {
            image,
            color: Color::WHITE,
            rect: None,
            custom_size: None,
            flip_x: false,
            flip_y: false,
            anchor: Vec2::ZERO,
        }
    }

    /// Sets `color`.
    #[must_use]
    pub fn with_color(mut self, color: Color) -> Self {
        self.color = color;
        self
    }

    /// Sets `rect`.
    #[must_use]
    pub fn with_rect(mut self, rect: Rect) -> Self {
        self.rect = Some(rect);
        self
    }

    /// Sets `custom_size`.
    #[must_use]
    pub fn with_custom_size(mut self, size: Vec2) -> Self {
        self.custom_size = Some(size);
        self
    }

    /// The sprite as a layerbatch quad in world space (y up), for an image of `image_size_px`
    /// held as `texture`.
    pub(crate) fn world_quad(&self, transform: &GlobalTransform, texture: TextureId, image_size_px: UVec2) -> Quad {
        let image = image_size_px.as_vec2();
        let rect = self.rect.unwrap_or(Rect { min: Vec2::ZERO, max: image });
        let size = self.custom_size.unwrap_or_else(|| rect.size());
        // Local corners (y up): the top-left corner samples the rect's top-left texel.
        let left = (-0.5 - self.anchor.x) * size.x;
        let top = (0.5 - self.anchor.y) * size.y;
        let affine = transform.affine();
        let at = |x: f32, y: f32| affine.transform_point3(Vec3::new(x, y, 0.0)).truncate();
        let top_left = at(left, top);
        let axis_x = at(left + size.x, top) - top_left;
        let axis_y = at(left, top - size.y) - top_left;
        let (mut u0, mut v0) = (rect.min.x / image.x, rect.min.y / image.y);
        let (mut u1, mut v1) = (rect.max.x / image.x, rect.max.y / image.y);
        if self.flip_x {
            std::mem::swap(&mut u0, &mut u1);
        }
        if self.flip_y {
            std::mem::swap(&mut v0, &mut v1);
        }
        let mut quad = Quad::rect(texture, top_left.to_array(), [1.0, 1.0]);
        quad.axis_x = axis_x.to_array();
        quad.axis_y = axis_y.to_array();
        quad.uv = [u0, v0, u1, v1];
        quad.color = premultiplied_tint(self.color);
        quad
    }
}

/// `color` in linear light, premultiplied, as RGBA8 (layerbatch's tint): the shader
/// multiplies the sampled premultiplied texel by it, as Bevy's sprite shader multiplies the
/// straight texel by the linear colour.
pub(crate) fn premultiplied_tint(color: Color) -> [u8; 4] {
    let c = color.to_linear();
    let a = c.alpha.clamp(0.0, 1.0);
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [q(c.red * a), q(c.green * a), q(c.blue * a), q(a)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_follow_the_transform_anchor_and_flips() {
        let sprite = LayerbatchSprite { flip_x: true, anchor: Vec2::new(-0.5, -0.5), ..LayerbatchSprite::default() };
        let transform = GlobalTransform::from(Transform::from_xyz(100.0, 50.0, 3.0).with_scale(Vec3::splat(2.0)));
        let q = sprite.world_quad(&transform, <TextureId as bytemuck::Zeroable>::zeroed(), UVec2::new(16, 8));
        // Bottom-left anchored at (100, 50), 32 x 16 world units: the top-left corner is (100, 66).
        assert_eq!(q.origin, [100.0, 66.0]);
        assert_eq!(q.axis_x, [32.0, 0.0]);
        assert_eq!(q.axis_y, [0.0, -16.0]);
        assert_eq!(q.uv, [1.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_source_rect_picks_its_texels_and_its_size() {
        let sprite = LayerbatchSprite::default().with_rect(Rect::new(4.0, 0.0, 12.0, 4.0));
        let q = sprite.world_quad(
            &GlobalTransform::IDENTITY,
            <TextureId as bytemuck::Zeroable>::zeroed(),
            UVec2::new(16, 8),
        );
        assert_eq!(q.uv, [0.25, 0.0, 0.75, 0.5]);
        assert_eq!((q.origin, q.axis_x, q.axis_y), ([-4.0, 2.0], [8.0, 0.0], [0.0, -4.0]));
    }

    #[test]
    fn tints_are_premultiplied_in_linear_light() {
        assert_eq!(premultiplied_tint(Color::WHITE), [255; 4]);
        assert_eq!(premultiplied_tint(Color::linear_rgba(1.0, 0.5, 0.0, 0.5)), [128, 64, 0, 128]);
        // sRGB 0.5 is linear 0.214.
        assert_eq!(premultiplied_tint(Color::srgb(0.5, 0.5, 0.5))[0], 55);
    }
}
