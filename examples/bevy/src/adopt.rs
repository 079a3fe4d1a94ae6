//! Drop-in mode ([`SpriteMode::All`](crate::SpriteMode::All)): Bevy's own `Sprite`s drawn by
//! layerbatch, with no change to the game. Each `Sprite` layerbatch draws as Bevy does gets a
//! [`LayerbatchSprite`] twin, kept in step with it, and leaves the visibility classes Bevy
//! draws sprites by (Bevy 0.20.1 draws a `Sprite` as a `Mesh2d` quad with a sprite material,
//! queued from the `Mesh2d` class a view sees): Bevy's renderer skips the sprite, and
//! layerbatch, whose class it joins, draws it. A `Sprite` layerbatch does not draw
//! as Bevy does (tiled with a custom size, sliced with tiles; an alpha mode
//! other than `Blend`, which Bevy draws in its opaque and alpha-mask phases; an image whose
//! format layerbatch does not hold, or the render target of a camera that sees the sprite)
//! stays Bevy's: counted
//! ([`LayerbatchFrameStats::sprites_left_to_bevy`](crate::LayerbatchFrameStats)) and warned
//! about once. A change that makes it drawable (or not) moves it across.

use std::any::TypeId;

use bevy::camera::visibility::VisibilityClass;
use bevy::mesh::Mesh2d;
use bevy::prelude::*;
use bevy::sprite::{SliceScaleMode, SpriteAlphaMode, SpriteImageMode};

use crate::LayerbatchSprite;
use crate::images::holdable;
use crate::targets::{CameraTargets, seen_by_its_target};
use bevy::camera::RenderTarget;
use bevy::camera::visibility::{RenderLayers, VisibleEntities};

/// A `Sprite` whose [`LayerbatchSprite`] twin layerbatch made and keeps, with the visibility
/// classes it took away (given back with the sprite).
#[derive(Component, Debug)]
pub(crate) struct Adopted(Vec<TypeId>);

/// The visibility classes Bevy's renderer draws a `Sprite` by: its own (Bevy's classic sprite
/// renderer) and `Mesh2d` (the sprite mesh Bevy 0.20.1 gives every `Sprite`).
fn bevys_classes() -> [TypeId; 2] {
    [TypeId::of::<Sprite>(), TypeId::of::<Mesh2d>()]
}

/// A `Sprite` left to Bevy's renderer.
#[derive(Component, Debug)]
pub(crate) struct LeftToBevy;

/// Sprites left to Bevy now, for the render world's frame stats; warned about once.
#[derive(Resource, Debug, Default)]
pub(crate) struct DropIn {
    pub(crate) left_to_bevy: u64,
    warned: bool,
    /// The cameras' target images last frame: when they change, every sprite is looked at.
    targets: CameraTargets,
}

/// PostUpdate, before the bounds and visibility: every `Sprite` that is new or changed (or
/// every one, when an image changed: a render target or a format may have come or gone)
/// adopted, kept in step, or given back.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn adopt_sprites(
    mut commands: Commands<'_, '_>,
    mut drop_in: ResMut<'_, DropIn>,
    images: Res<'_, Assets<Image>>,
    mut image_events: MessageReader<'_, '_, AssetEvent<Image>>,
    mut sprites: Query<
        '_,
        '_,
        (
            Entity,
            Ref<'_, Sprite>,
            Option<&mut LayerbatchSprite>,
            Option<&Adopted>,
            Has<LeftToBevy>,
            &mut VisibilityClass,
            Option<Ref<'_, RenderLayers>>,
        ),
    >,
    mut removed: RemovedComponents<'_, '_, Sprite>,
    adopted: Query<'_, '_, (), With<Adopted>>,
    cameras: Query<'_, '_, (&Camera, &RenderTarget, Option<&RenderLayers>, &VisibleEntities)>,
) {
    for entity in removed.read() {
        if adopted.contains(entity) {
            commands.entity(entity).try_remove::<(LayerbatchSprite, Adopted)>();
        }
    }
    let targets = CameraTargets::of(cameras.iter().map(|(c, t, l, _)| (c, t, l)));
    let targets_changed = targets != drop_in.targets;
    drop_in.targets = targets;
    let images_changed = image_events.read().count() > 0 || targets_changed;
    let mut left = 0;
    for (entity, sprite, twin, adopted_classes, is_left, mut class, layers) in &mut sprites {
        let is_adopted = adopted_classes.is_some();
        if !is_adopted && twin.is_some() {
            continue; // the game's own LayerbatchSprite on a Sprite's entity: left as it is
        }
        let layers_changed = layers.as_ref().is_some_and(|l| l.is_changed());
        // A sprite of a camera's target is looked at every frame: the cameras' visibility moves.
        let of_a_target = drop_in.targets.contains(sprite.image.id());
        if !(sprite.is_changed() || images_changed || layers_changed || of_a_target || !(is_adopted || is_left)) {
            left += u64::from(is_left);
            continue;
        }
        let new_twin = twin_of(&sprite);
        let image = sprite.image.id();
        let feeds_back = of_a_target
            && match is_adopted || is_left {
                // Bevy's visibility of last frame, which its cameras computed after adoption.
                true => seen_by_its_target(entity, image, cameras.iter().map(|(c, t, _, v)| (c, t, v))),
                // Never looked at by a camera yet: by render layers alone.
                false => drop_in.targets.layers_meet(image, layers.as_deref()),
            };
        let drawable = !feeds_back && drawable(&sprite, &images);
        match (drawable, is_adopted) {
            (true, false) => {
                let taken: Vec<TypeId> = class.iter().copied().filter(|t| bevys_classes().contains(t)).collect();
                class.retain(|t| !bevys_classes().contains(t));
                commands.entity(entity).try_remove::<LeftToBevy>().try_insert((new_twin, Adopted(taken)));
            }
            (true, true) => {
                if let Some(mut twin) = twin {
                    *twin = new_twin;
                }
            }
            (false, true) => {
                commands.entity(entity).try_remove::<(LayerbatchSprite, Adopted)>().try_insert(LeftToBevy);
                class.retain(|t| *t != TypeId::of::<LayerbatchSprite>());
                class.extend(adopted_classes.into_iter().flat_map(|a| a.0.iter().copied()));
                left += 1;
            }
            (false, false) => {
                if !is_left {
                    commands.entity(entity).try_insert(LeftToBevy);
                }
                left += 1;
            }
        }
    }
    drop_in.left_to_bevy = left;
    if left > 0 && !std::mem::replace(&mut drop_in.warned, true) {
        warn!(
            "layerbatch: {left} sprites left to Bevy's renderer (tiled, scaled or sliced with tiles, an alpha \
             mode other than Blend, or an image layerbatch does not hold): LayerbatchFrameStats::sprites_left_to_bevy"
        );
    }
}

/// Whether layerbatch draws `sprite` as Bevy does. An image not loaded yet counts as
/// drawable (it shows once it loads, as a Bevy sprite's does; the sprite is looked at again
/// when an image changes).
fn drawable(sprite: &Sprite, images: &Assets<Image>) -> bool {
    let id = sprite.image.id();
    let image = images.get(id);
    let stretched = |m: &SliceScaleMode| matches!(m, SliceScaleMode::Stretch);
    let image_mode = match &sprite.image_mode {
        SpriteImageMode::Auto => true,
        SpriteImageMode::Sliced(s) => stretched(&s.center_scale_mode) && stretched(&s.sides_scale_mode),
        // Bevy tiles only with a custom size (see `LayerbatchSprite::pieces` for why tiles are
        // Bevy's).
        SpriteImageMode::Tiled { .. } => sprite.custom_size.is_none(),
        SpriteImageMode::Scale(_) => true,
    };
    let modes = image_mode && matches!(sprite.alpha_mode, SpriteAlphaMode::Blend);
    modes && image.is_none_or(|image| holdable(id, image).is_ok())
}

/// The [`LayerbatchSprite`] that draws `sprite`: field for field.
fn twin_of(sprite: &Sprite) -> LayerbatchSprite {
    LayerbatchSprite {
        image: sprite.image.clone(),
        texture_atlas: sprite.texture_atlas.clone(),
        color: sprite.color,
        rect: sprite.rect,
        custom_size: sprite.custom_size,
        flip_x: sprite.flip_x,
        flip_y: sprite.flip_y,
        image_mode: sprite.image_mode.clone(),
    }
}
