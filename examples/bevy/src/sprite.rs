//! The component game code spawns, its bounds for Bevy's visibility, and the quad it becomes
//! in world space.

use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::{NoAutoAabb, NoFrustumCulling, VisibilityClass, add_visibility_class};
use bevy::image::{TextureAtlas, TextureAtlasLayout};
use bevy::prelude::*;
use bevy::sprite::{Anchor, SliceScaleMode, SpriteImageMode, SpriteScalingMode};
use layerbatch_core::{NineSlice, Quad, TextureId};

/// A sprite drawn by layerbatch, sorted by its z among Bevy's own `Transparent2d` items
/// (sprites, 2D meshes, text): position, rotation, scale and z come from its [`Transform`]
/// (through [`GlobalTransform`], so parents apply), the point of the sprite at the
/// transform's origin from Bevy's [`Anchor`] component (default: the centre), and the rest
/// from here, field for field as Bevy's `Sprite`. It is a visibility class of its own, as
/// `Sprite` is: Bevy's visibility culls it per camera (by its bounds, kept in an [`Aabb`] as
/// for a `Sprite`; `NoFrustumCulling` opts out) and applies `RenderLayers`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_layerbatch::LayerbatchSprite;
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
#[require(Transform, Visibility, VisibilityClass, Anchor)]
#[component(on_add = add_visibility_class::<LayerbatchSprite>)]
pub struct LayerbatchSprite {
    /// The image. Default: Bevy's default (white) image handle.
    pub image: Handle<Image>,
    /// The cell of a sprite sheet to show, as on Bevy's `Sprite`: a layout and an index into
    /// it. Default: none (the whole image, or `rect`).
    pub texture_atlas: Option<TextureAtlas>,
    /// Tint, multiplied with the image in linear light, as Bevy's `Sprite::color`. Default
    /// white. layerbatch keeps it as 8-bit premultiplied RGBA on the sRGB curve (Bevy keeps
    /// 32-bit floats): within a level of Bevy's on an sRGB target.
    pub color: Color,
    /// The part of the image to show, in its pixels (top-left origin); with a `texture_atlas`,
    /// offset by the atlas cell's top-left corner, as on Bevy's `Sprite`. Default: all of it
    /// (or the atlas cell).
    pub rect: Option<Rect>,
    /// Size in world units before the transform's scale. Default: the size of `rect`, or of
    /// the atlas cell, or of the image.
    pub custom_size: Option<Vec2>,
    /// Mirror horizontally. Default false.
    pub flip_x: bool,
    /// Mirror vertically. Default false.
    pub flip_y: bool,
    /// How the image fills the sprite, as on Bevy's `Sprite`: `Auto` (stretched to its size,
    /// the default), or, with a `custom_size` (Bevy applies the others only then), `Scale`
    /// (fill: the source cropped to the box's shape; fit: the quad shrunk to the source's
    /// shape, each from the centre, start or end, as Bevy's sprite mesh places them) and
    /// `Sliced` with both scale modes `Stretch` (a nine-slice: corners at their size times the
    /// corner scale Bevy computes, edges and centre stretched). Tiled sprites and sprites
    /// sliced with tiles draw as `Auto` here; in drop-in mode ([`crate::SpriteMode::All`]) a
    /// `Sprite` with one of them stays Bevy's.
    pub image_mode: SpriteImageMode,
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
            texture_atlas: None,
            color: Color::WHITE,
            rect: None,
            custom_size: None,
            flip_x: false,
            flip_y: false,
            image_mode: SpriteImageMode::Auto,
        }
    }

    /// Cell `atlas.index` of the sprite sheet `image` laid out by `atlas.layout`, as Bevy's
    /// `Sprite::from_atlas_image`.
    pub fn from_atlas_image(image: Handle<Image>, atlas: TextureAtlas) -> Self {
        Self { texture_atlas: Some(atlas), ..Self::from_image(image) }
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

    /// The part of the image shown, in its pixels: `rect`, offset into the atlas cell when
    /// there is one, as Bevy's sprite does. `None`: the whole image. A layout not loaded yet
    /// counts as no atlas.
    pub(crate) fn source_rect(&self, atlases: &Assets<TextureAtlasLayout>) -> Option<Rect> {
        let cell = self.texture_atlas.as_ref().and_then(|a| a.texture_rect(atlases)).map(|r| r.as_rect());
        match (cell, self.rect) {
            (None, rect) => rect,
            (Some(cell), None) => Some(cell),
            (Some(cell), Some(rect)) => Some(Rect { min: rect.min + cell.min, max: rect.max + cell.min }),
        }
    }

    /// Its size in world units before the transform's scale, when known: `custom_size`, or the
    /// source rectangle's, or the image's (`None` while the image is not loaded).
    pub(crate) fn size(&self, source: Option<Rect>, image_size_px: Option<UVec2>) -> Option<Vec2> {
        self.custom_size.or(source.map(|r| r.size())).or(image_size_px.map(|s| s.as_vec2()))
    }

    /// The sprite's quads in world space, appended to `out`: a nine-slice's (see
    /// [`LayerbatchSprite::image_mode`]), or the one [`LayerbatchSprite::world_quad`].
    pub(crate) fn world_quads(
        &self,
        placed: (&GlobalTransform, &Anchor),
        source: Option<Rect>,
        (texture, image_size_px): (TextureId, UVec2),
        out: &mut Vec<Quad>,
    ) {
        let rect = source.unwrap_or(Rect { min: Vec2::ZERO, max: image_size_px.as_vec2() });
        if let Some(pieces) = self.pieces(rect.size()) {
            let nine = NineSlice::new(texture, [0.0, 0.0, pieces.size.x, pieces.size.y], pieces.border_px)
                .with_source_px([rect.min.x, rect.min.y, rect.width(), rect.height()])
                .with_border_scale(pieces.scale)
                .with_color(premultiplied_tint(self.color));
            let start = out.len();
            if nine.quads(image_size_px.to_array(), out).is_ok() {
                self.place(placed, pieces.size, &mut out[start..]);
                return;
            }
            out.truncate(start);
        }
        out.push(self.world_quad(placed, source, texture, image_size_px));
    }

    /// Moves `quads`, made in a rectangle of `size` with y down, to the world: flipped as Bevy
    /// flips before it slices, through the anchor and the transform.
    fn place(&self, (transform, anchor): (&GlobalTransform, &Anchor), size: Vec2, quads: &mut [Quad]) {
        let (left, top) = ((-0.5 - anchor.as_vec().x) * size.x, (0.5 - anchor.as_vec().y) * size.y);
        let affine = transform.affine();
        let at = |[x, y]: [f32; 2]| {
            let x = if self.flip_x { size.x - x } else { x };
            let y = if self.flip_y { size.y - y } else { y };
            affine.transform_point3(Vec3::new(left + x, top - y, 0.0)).truncate()
        };
        for q in quads {
            let o = at(q.origin);
            let a = at([q.origin[0] + q.axis_x[0], q.origin[1] + q.axis_x[1]]) - o;
            let b = at([q.origin[0] + q.axis_y[0], q.origin[1] + q.axis_y[1]]) - o;
            (q.origin, q.axis_x, q.axis_y) = (o.to_array(), a.to_array(), b.to_array());
        }
    }

    /// How a sprite Bevy slices is cut into pieces, over a source of `source_px` (its rect,
    /// atlas cell or image), as Bevy's sprite mesh cuts it; `None` for one quad. With a
    /// `custom_size` only (Bevy slices only then), `Sliced` with stretched sides and centre,
    /// its borders inside the source: corners at their size times Bevy's corner scale (the
    /// sprite's size over its source, the smaller axis, at most `max_corner_scale`), edges and
    /// centre stretched.
    pub(crate) fn pieces(&self, source_px: Vec2) -> Option<Pieces> {
        let size = self.custom_size?;
        match &self.image_mode {
            SpriteImageMode::Sliced(slicer) => {
                let stretched = |m: &SliceScaleMode| matches!(m, SliceScaleMode::Stretch);
                if !stretched(&slicer.center_scale_mode)
                    || !stretched(&slicer.sides_scale_mode)
                    || self.image_mode.slice_border_out_of_bounds(source_px)
                {
                    return None;
                }
                let coef = size / source_px;
                let scale = coef.min_element().min(slicer.max_corner_scale).max(f32::EPSILON);
                let [min, max] = [slicer.border.min_inset, slicer.border.max_inset];
                Some(Pieces { size, border_px: [min.x, min.y, max.x, max.y], scale })
            }
            // Not `Tiled`: Bevy repeats the image per pixel (the fractional part of the
            // sprite's texture coordinate), so a pixel on a seam between tiles samples one
            // tile. Tiles as quads differ there when the seam cuts pixels (the sprite turned,
            // or at fractional positions, under MSAA: the pixel mixes the samples of two
            // quads, each with its texel clamped to its tile): 120 levels off at a pixel, measured.
            _ => None,
        }
    }

    /// The sprite as a layerbatch quad in world space (y up), anchored at `anchor`, showing
    /// `source` (pixels; `None`: all) of an image of `image_size_px` held as `texture`.
    pub(crate) fn world_quad(
        &self,
        (transform, anchor): (&GlobalTransform, &Anchor),
        source: Option<Rect>,
        texture: TextureId,
        image_size_px: UVec2,
    ) -> Quad {
        let image = image_size_px.as_vec2();
        let mut rect = source.unwrap_or(Rect { min: Vec2::ZERO, max: image });
        let mut size = self.custom_size.unwrap_or_else(|| rect.size());
        let mut offset = Vec2::ZERO;
        if let (Some(custom), SpriteImageMode::Scale(mode)) = (self.custom_size, &self.image_mode) {
            (rect, size, offset) = scaled(*mode, rect, custom);
        }
        let anchor = anchor.as_vec();
        // Local corners (y up): the top-left corner samples the rect's top-left texel.
        let left = (-0.5 - anchor.x) * size.x + offset.x;
        let top = (0.5 - anchor.y) * size.y + offset.y;
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

/// A sprite of `custom` size showing `rect` (pixels) under Bevy's `SpriteImageMode::Scale`,
/// as Bevy's sprite mesh computes it: the part of `rect` shown, the quad's size, and its
/// offset (local, y up) before the anchor. Fill keeps the box and crops the source to its
/// shape (from its centre, top-left or bottom-right); fit keeps the whole source and shrinks
/// the quad to fit (centred, left-top or right-bottom in the box).
fn scaled(mode: SpriteScalingMode, rect: Rect, custom: Vec2) -> (Rect, Vec2, Vec2) {
    let source = rect.size();
    let (source_ratio, custom_ratio) = (source.x / source.y, custom.x / custom.y);
    let wider = source_ratio > custom_ratio;
    let fill =
        if wider { Vec2::new(custom.y * source_ratio, custom.y) } else { Vec2::new(custom.x, custom.x / source_ratio) };
    let fit =
        if wider { Vec2::new(custom.x, custom.x / source_ratio) } else { Vec2::new(custom.y * source_ratio, custom.y) };
    // The source seen through the box: `start` (0..1 of the source) to `start + custom / fill`.
    let crop = |start: Vec2| {
        let min = rect.min + start * source;
        Rect { min, max: min + custom / fill * source }
    };
    match mode {
        SpriteScalingMode::FillCenter => (crop((fill - custom) * 0.5 / fill), custom, Vec2::ZERO),
        SpriteScalingMode::FillStart => (crop(Vec2::ZERO), custom, Vec2::ZERO),
        SpriteScalingMode::FillEnd => (crop((fill - custom) / fill), custom, Vec2::ZERO),
        SpriteScalingMode::FitCenter => (rect, fit, Vec2::ZERO),
        SpriteScalingMode::FitStart => (rect, fit, (custom - fit) * Vec2::new(-0.5, 0.5)),
        SpriteScalingMode::FitEnd => (rect, fit, (custom - fit) * Vec2::new(0.5, -0.5)),
    }
}

/// A sliced sprite's pieces ([`LayerbatchSprite::pieces`]): a [`NineSlice`] of its source
/// over `size`, its borders at `scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pieces {
    size: Vec2,
    border_px: [f32; 4],
    scale: f32,
}

/// The bounds of every [`LayerbatchSprite`] whose size is known, for Bevy's frustum culling,
/// as Bevy's `calculate_bounds_2d` keeps a `Sprite`'s: added when the sprite has none, kept in
/// step when it or its anchor changes, or when its image or atlas layout loads. Entities with
/// `NoFrustumCulling` or `NoAutoAabb` are left alone.
#[allow(clippy::type_complexity)]
pub(crate) fn calculate_bounds(
    mut commands: Commands<'_, '_>,
    images: Res<'_, Assets<Image>>,
    atlases: Res<'_, Assets<TextureAtlasLayout>>,
    mut image_events: MessageReader<'_, '_, AssetEvent<Image>>,
    mut atlas_events: MessageReader<'_, '_, AssetEvent<TextureAtlasLayout>>,
    sprites: Query<
        '_,
        '_,
        (Entity, Ref<'_, LayerbatchSprite>, Ref<'_, Anchor>, Option<&Aabb>),
        (Without<NoFrustumCulling>, Without<NoAutoAabb>),
    >,
) {
    // A loaded or changed image or layout may change the size of any sprite using it.
    let assets_changed = image_events.read().count() + atlas_events.read().count() > 0;
    for (entity, sprite, anchor, aabb) in &sprites {
        if aabb.is_some() && !assets_changed && !sprite.is_changed() && !anchor.is_changed() {
            continue;
        }
        let source = sprite.source_rect(&atlases);
        let Some(size) = sprite.size(source, images.get(&sprite.image).map(Image::size)) else { continue };
        let bounds = Aabb {
            center: (-anchor.as_vec() * size).extend(0.0).into(),
            half_extents: (0.5 * size).extend(0.0).into(),
        };
        if aabb != Some(&bounds) {
            commands.entity(entity).try_insert(bounds);
        }
    }
}

/// `color` as layerbatch's tint on the sRGB curve (the plugin draws with
/// `TintEncoding::Srgb`): premultiplied in linear light, then encoded, so dark colours keep
/// an sRGB image's precision. The shader decodes it and multiplies the sampled texel by it,
/// as Bevy's sprite shader multiplies the texel by the linear colour.
pub(crate) fn premultiplied_tint(color: Color) -> [u8; 4] {
    let c = color.to_srgba();
    layerbatch_core::srgb_tint([c.red, c.green, c.blue, c.alpha])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_follow_the_transform_anchor_and_flips() {
        let sprite = LayerbatchSprite { flip_x: true, ..LayerbatchSprite::default() };
        let transform = GlobalTransform::from(Transform::from_xyz(100.0, 50.0, 3.0).with_scale(Vec3::splat(2.0)));
        let placed = (&transform, &Anchor::BOTTOM_LEFT);
        let q = sprite.world_quad(placed, None, <TextureId as bytemuck::Zeroable>::zeroed(), UVec2::new(16, 8));
        // Bottom-left anchored at (100, 50), 32 x 16 world units: the top-left corner is (100, 66).
        assert_eq!(q.origin, [100.0, 66.0]);
        assert_eq!(q.axis_x, [32.0, 0.0]);
        assert_eq!(q.axis_y, [0.0, -16.0]);
        assert_eq!(q.uv, [1.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_source_rect_picks_its_texels_and_its_size() {
        let sprite = LayerbatchSprite::default().with_rect(Rect::new(4.0, 0.0, 12.0, 4.0));
        let source = sprite.source_rect(&Assets::default());
        let placed = (&GlobalTransform::IDENTITY, &Anchor::CENTER);
        let q = sprite.world_quad(placed, source, <TextureId as bytemuck::Zeroable>::zeroed(), UVec2::new(16, 8));
        assert_eq!(q.uv, [0.25, 0.0, 0.75, 0.5]);
        assert_eq!((q.origin, q.axis_x, q.axis_y), ([-4.0, 2.0], [8.0, 0.0], [0.0, -4.0]));
    }

    #[test]
    fn tints_are_premultiplied_in_linear_light_on_the_srgb_curve() {
        assert_eq!(premultiplied_tint(Color::WHITE), [255; 4]);
        // Linear 0.5 (sRGB 188) at half alpha: premultiplied 0.25 linear, sRGB 137.
        assert_eq!(premultiplied_tint(Color::linear_rgba(1.0, 0.5, 0.0, 0.5)), [188, 137, 0, 128]);
        // The testbed's dark boxes keep their bytes: sRGB 17 stays 17 (linear it was 1/255).
        assert_eq!(premultiplied_tint(Color::srgb_u8(17, 24, 39)), [17, 24, 39, 255]);
    }
}
