//! The render world: layerbatch's resources, the sprites of the frame extracted and queued
//! as `Transparent2d` items of the views that see them, the draw function that renders a run's
//! plan into Bevy's pass, and the frame's figures. `prepare.rs` plans the runs.

use std::collections::HashMap;

use bevy::asset::AssetId;
use bevy::core_pipeline::core_2d::Transparent2d;
use bevy::ecs::entity::Entity;
use bevy::image::{Image, TextureAtlasLayout};
use bevy::math::FloatOrd;
use bevy::prelude::*;
use bevy::render::Extract;
use bevy::render::render_asset::ExtractedAssets;
use bevy::render::render_phase::{
    Draw, DrawError, DrawFunctions, PhaseItemExtraIndex, TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::{CachedRenderPipelineId, DefaultImageSamplerDescriptor};
use bevy::render::renderer::RenderDevice;
use bevy::render::sync_world::MainEntity;
use bevy::render::texture::GpuImage;
use bevy::render::view::{ExtractedView, RenderVisibleEntities};
use bevy::sprite::Anchor;
use layerbatch_core::{Batcher, Config, Quad};
use layerbatch_wgpu::{PassKind, PreparedPlan, Renderer};

use crate::LayerbatchSprite;
use crate::images::ImageTable;
use crate::stats::{LayerbatchFrameStats, LayerbatchStats};
use bevy::camera::NormalizedRenderTarget;
use bevy::render::camera::ExtractedCamera;

/// A sprite of this frame, in world space.
pub(crate) struct Extracted {
    pub(crate) main: MainEntity,
    /// Its image (a view does not draw a sprite showing the image it renders into).
    pub(crate) image: AssetId<Image>,
    pub(crate) z: f32,
    /// Its quads in [`ExtractedLayerbatchSprites::quads`] (a nine-slice has several).
    pub(crate) quads: std::ops::Range<usize>,
}

/// The batcher and the Bevy images it holds: textures, placement and planning. Inserted at
/// render startup when the device's limits give a batcher; every layerbatch system runs only
/// when it is there.
#[derive(Resource)]
pub(crate) struct LayerbatchTextures {
    pub(crate) batcher: Batcher,
    pub(crate) images: ImageTable,
}

/// This frame's sprites visible in some view, as world-space quads.
#[derive(Resource, Default)]
pub(crate) struct ExtractedLayerbatchSprites {
    pub(crate) sprites: Vec<Extracted>,
    pub(crate) quads: Vec<Quad>,
}

/// The renderer and this frame's prepared plans, one per run of layerbatch items of a view.
#[derive(Resource, Default)]
pub(crate) struct LayerbatchPasses {
    /// Made with the first 2D view (its pass kind first).
    pub(crate) renderer: Option<Renderer>,
    pub(crate) renderer_failed: bool,
    /// One per run of the frame, reused from frame to frame.
    pub(crate) prepared: Vec<PreparedPlan>,
    /// (view, first item of the run) -> its prepared plan.
    pub(crate) runs: HashMap<(Entity, MainEntity), usize>,
    /// The extracted sprites of the run being planned, by index.
    pub(crate) run_scratch: Vec<usize>,
    /// Pass kinds the device refused (each warned once; their views draw no layerbatch sprite).
    pub(crate) refused_kinds: Vec<PassKind>,
    /// The views of the frame, in camera order.
    pub(crate) view_order: Vec<(isize, Entity)>,
    pub(crate) warned_device: bool,
}

/// This frame's figures, published to the main world's [`LayerbatchStats`] at cleanup.
#[derive(Resource)]
pub(crate) struct LayerbatchFrame {
    pub(crate) stats: LayerbatchFrameStats,
    device_draws_before: u64,
    compiles_before: u64,
    published: LayerbatchStats,
}

/// Creates the batcher from the device's limits, once, and the resources beside it.
pub(crate) fn init(config: Config) -> impl FnMut(Commands<'_, '_>, Res<'_, RenderDevice>, Res<'_, LayerbatchStats>) {
    move |mut commands, device, stats| match Batcher::new(layerbatch_wgpu::device_limits(device.wgpu_device()), config)
    {
        Ok(batcher) => {
            commands.insert_resource(LayerbatchTextures { batcher, images: ImageTable::default() });
            commands.insert_resource(ExtractedLayerbatchSprites::default());
            commands.insert_resource(LayerbatchPasses::default());
            commands.insert_resource(LayerbatchFrame {
                stats: LayerbatchFrameStats::default(),
                device_draws_before: 0,
                compiles_before: 0,
                published: stats.clone(),
            });
        }
        Err(e) => log::error!("layerbatch: no batcher for this device, layerbatch sprites are not drawn: {e}"),
    }
}

/// ExtractSchedule, after Bevy's image extraction: held images Bevy extracted this frame
/// (modified) are updated, refused ones tried again at their next use, removed ones freed.
/// Images not held wait for a sprite to use them.
pub(crate) fn sync_images(
    mut textures: ResMut<'_, LayerbatchTextures>,
    extracted: Res<'_, ExtractedAssets<GpuImage>>,
    sampler: Res<'_, DefaultImageSamplerDescriptor>,
) {
    let LayerbatchTextures { batcher, images } = &mut *textures;
    for &id in &extracted.removed {
        images.remove(batcher, id);
    }
    for (id, image) in &extracted.extracted {
        images.modified(batcher, *id, image, &sampler.0);
    }
}

/// What [`extract_sprites`] reads of a sprite entity.
type SpriteItem<'a> = (Entity, &'a LayerbatchSprite, &'a GlobalTransform, &'a Anchor, &'a ViewVisibility);

/// ExtractSchedule: the layerbatch sprites visible in some view (Bevy's visibility: hidden,
/// outside every camera's frustum or render layers, they make no quad), as world-space
/// quads. Every sprite, visible or not, keeps its image held: an image is registered when a
/// sprite first uses it (from this frame's extraction, or the main world's pixels) and freed
/// when none does. A camera's render target is held as a host texture (Bevy's texture is
/// handed to the renderer before each plan), marked changed every frame (a copying device
/// copies it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract_sprites(
    mut textures: ResMut<'_, LayerbatchTextures>,
    mut extracted_sprites: ResMut<'_, ExtractedLayerbatchSprites>,
    mut frame: ResMut<'_, LayerbatchFrame>,
    sprites: Extract<'_, '_, Query<'_, '_, SpriteItem<'_>>>,
    atlases: Extract<'_, '_, Res<'_, Assets<TextureAtlasLayout>>>,
    main_images: Extract<'_, '_, Res<'_, Assets<Image>>>,
    extracted: Res<'_, ExtractedAssets<GpuImage>>,
    sampler: Res<'_, DefaultImageSamplerDescriptor>,
    drop_in: Extract<'_, '_, Option<Res<'_, crate::adopt::DropIn>>>,
) {
    let LayerbatchTextures { batcher, images } = &mut *textures;
    let ExtractedLayerbatchSprites { sprites: out, quads } = &mut *extracted_sprites;
    frame.stats = LayerbatchFrameStats::default();
    frame.stats.sprites_left_to_bevy = drop_in.as_ref().map_or(0, |d| d.left_to_bevy);
    out.clear();
    quads.clear();
    images.begin_frame();
    for (entity, sprite, transform, anchor, visible) in &sprites {
        let id: AssetId<Image> = sprite.image.id();
        let pixels = || {
            let now = extracted.extracted.iter().find(|(extracted, _)| *extracted == id).map(|(_, image)| image);
            now.or_else(|| main_images.get(id))
        };
        let used = images.use_image(batcher, id, pixels, &sampler.0);
        if !visible.get() {
            continue;
        }
        match used {
            Ok(held) => {
                let start = quads.len();
                let source = sprite.source_rect(&atlases);
                sprite.world_quads((transform, anchor), source, (held.texture, held.size_px), quads);
                let (main, z) = (entity.into(), transform.translation().z);
                out.push(Extracted { main, image: id, z, quads: start..quads.len() });
            }
            Err(refused) => {
                frame.stats.sprites_skipped += 1;
                if refused.is_some() {
                    images.warn_once(id);
                }
            }
        }
    }
    images.release_unused(batcher);
    // Cameras draw into their targets every frame: a copying device (wgpu's GL backend) copies
    // each again, when the frame's first plan runs; a viewing one plans nothing.
    for (_, texture) in images.hosts() {
        // Only a stale id fails, and held ones are live.
        let _ = batcher.textures().host_changed(texture);
    }
}

/// Queue: each sprite visible in a 2D view (its frustum and render layers, by Bevy's
/// visibility) is a `Transparent2d` item of that view, sorted by its z with Bevy's own items;
/// but for a sprite showing the image the view renders into (it would sample itself): not
/// drawn there, counted in `sprites_skipped`.
pub(crate) fn queue_sprites(
    mut visible_in_view: Local<'_, Vec<bool>>,
    extracted: Res<'_, ExtractedLayerbatchSprites>,
    draw_functions: Res<'_, DrawFunctions<Transparent2d>>,
    mut phases: ResMut<'_, ViewSortedRenderPhases<Transparent2d>>,
    views: Query<'_, '_, (&ExtractedView, &RenderVisibleEntities, Option<&ExtractedCamera>)>,
    mut frame: ResMut<'_, LayerbatchFrame>,
) {
    let Some(draw_function) = draw_functions.read().get_id::<DrawLayerbatch>() else { return };
    for (view, visible, camera) in &views {
        let target = match camera.and_then(|c| c.target.as_ref()) {
            Some(NormalizedRenderTarget::Image(image)) => Some(image.handle.id()),
            _ => None,
        };
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else { continue };
        // The main-world entities of the sprites this view sees, by index (as Bevy's sprites).
        visible_in_view.clear();
        for (_, main) in visible.get::<LayerbatchSprite>().into_iter().flat_map(|class| class.iter_visible()) {
            let index = main.index_u32() as usize;
            if visible_in_view.len() <= index {
                visible_in_view.resize(index + 1, false);
            }
            visible_in_view[index] = true;
        }
        phase.items.reserve(extracted.sprites.len());
        for (index, sprite) in extracted.sprites.iter().enumerate() {
            if !visible_in_view.get(sprite.main.index_u32() as usize).copied().unwrap_or(false) {
                continue;
            }
            if Some(sprite.image) == target {
                frame.stats.sprites_skipped += 1;
                continue;
            }
            phase.add_transient(Transparent2d {
                sort_key: FloatOrd(sprite.z),
                // No render-world entity: the draw function finds the sprite by `extracted_index`.
                entity: (Entity::PLACEHOLDER, sprite.main),
                pipeline: CachedRenderPipelineId::INVALID,
                draw_function,
                batch_range: 0..1,
                extracted_index: index,
                extra_index: PhaseItemExtraIndex::None,
                indexed: true,
            });
        }
    }
}

/// After the bind groups, before the passes: how many times the `Transparent2d` phases will
/// call a draw function this frame (one per batch, as Bevy's `render_range` walks them),
/// Bevy's items and layerbatch's runs together.
pub(crate) fn count_phase_draws(
    mut frame: ResMut<'_, LayerbatchFrame>,
    phases: Res<'_, ViewSortedRenderPhases<Transparent2d>>,
) {
    frame.stats.phase_draws = crate::headless::transparent_2d_draws(&phases);
}

/// Cleanup: the frame's figures, for the main world's [`LayerbatchStats`].
pub(crate) fn publish_stats(
    mut frame: ResMut<'_, LayerbatchFrame>,
    textures: Res<'_, LayerbatchTextures>,
    passes: Res<'_, LayerbatchPasses>,
) {
    let frame = &mut *frame;
    let stats = &mut frame.stats;
    let totals = passes.renderer.as_ref().map(|r| r.stats().device_total);
    let (device_draws, compiles) = totals.map_or((0, 0), |t| (t.draw_calls, t.pipeline_compiles));
    stats.device_draw_calls = device_draws - frame.device_draws_before;
    frame.device_draws_before = device_draws;
    stats.pipeline_compiles = compiles - frame.compiles_before;
    frame.compiles_before = compiles;
    stats.pass_kinds = passes.renderer.as_ref().map_or(0, |r| r.pass_kinds() as u64);
    let LayerbatchTextures { batcher, images } = &*textures;
    stats.textures_live = images.live() as u64;
    stats.textures_refused = images.refused() as u64;
    stats.textures_registered = images.registered;
    stats.textures_updated = images.updated;
    stats.textures_freed = images.freed;
    stats.bytes_allocated = batcher.allocator().allocated_bytes();
    stats.total = batcher.total_counters();
    frame.published.publish(*stats);
}

/// Draws a run's plan into Bevy's pass.
pub(crate) struct DrawLayerbatch;

impl Draw<Transparent2d> for DrawLayerbatch {
    fn draw<'w>(
        &mut self,
        world: &'w World,
        pass: &mut TrackedRenderPass<'w>,
        view: Entity,
        item: &Transparent2d,
    ) -> Result<(), DrawError> {
        let Some(passes) = world.get_resource::<LayerbatchPasses>() else { return Ok(()) };
        let (Some(&k), Some(renderer)) = (passes.runs.get(&(view, item.entity.1)), &passes.renderer) else {
            return Ok(());
        };
        // `wgpu_pass` drops Bevy's record of the pass's state, so Bevy's next item sets its
        // own pipeline and bind groups again.
        renderer
            .render(&passes.prepared[k], pass.wgpu_pass())
            .map_err(|_| DrawError::RenderCommandFailure("layerbatch: a prepared plan of another renderer"))
    }
}
