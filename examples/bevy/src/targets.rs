//! The images cameras render into, for drop-in mode. A `Sprite` showing one of them to a
//! camera that renders into it would be sampled by the pass that draws into it: it stays
//! Bevy's (layerbatch's queue does not draw a sprite into the image it shows). Every other
//! sprite of a render target (a minimap, a portal, a pixel-art canvas) is drawn by layerbatch
//! as a host texture: on native wgpu and WebGPU a view of Bevy's own texture, the frame the
//! camera draws it.

use bevy::asset::AssetId;
use bevy::camera::RenderTarget;
use bevy::camera::visibility::{RenderLayers, VisibleEntities};
use bevy::ecs::entity::Entity;
use bevy::image::Image;
use bevy::prelude::Camera;

/// Each active camera's target image, with the camera's render layers.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CameraTargets(Vec<(AssetId<Image>, RenderLayers)>);

impl CameraTargets {
    /// The targets of `cameras` (a camera without `RenderLayers` sees layer 0).
    pub(crate) fn of<'a>(
        cameras: impl IntoIterator<Item = (&'a Camera, &'a RenderTarget, Option<&'a RenderLayers>)>,
    ) -> Self {
        let targets = cameras
            .into_iter()
            .filter(|(camera, ..)| camera.is_active)
            .filter_map(|(_, target, layers)| Some((target.as_image()?.id(), layers.cloned().unwrap_or_default())))
            .collect();
        Self(targets)
    }

    /// Whether some camera renders into `image`.
    pub(crate) fn contains(&self, image: AssetId<Image>) -> bool {
        self.0.iter().any(|(target, _)| *target == image)
    }

    /// Whether a sprite on `layers` showing `image` would be seen by a camera that renders
    /// into `image`, by its render layers alone (the frustum aside: for a sprite no camera
    /// has looked at yet).
    pub(crate) fn layers_meet(&self, image: AssetId<Image>, layers: Option<&RenderLayers>) -> bool {
        let default = RenderLayers::default();
        let layers = layers.unwrap_or(&default);
        self.0.iter().any(|(target, seen)| *target == image && seen.intersects(layers))
    }
}

/// Whether `entity` (a sprite showing `image`) was visible last frame to a camera that renders
/// into `image`, by Bevy's visibility (frustum and render layers), which runs after adoption.
pub(crate) fn seen_by_its_target<'a>(
    entity: Entity,
    image: AssetId<Image>,
    cameras: impl IntoIterator<Item = (&'a Camera, &'a RenderTarget, &'a VisibleEntities)>,
) -> bool {
    cameras.into_iter().any(|(camera, target, visible)| {
        camera.is_active
            && target.as_image().is_some_and(|t| t.id() == image)
            && visible.entities.values().any(|list| list.contains(&entity))
    })
}
