//! The render world: layerbatch's batcher and renderer, the sprites of the frame as
//! `Transparent2d` items, one layerbatch plan per run of consecutive items of a view, and the
//! draw function that renders a run into Bevy's pass.

use std::collections::HashMap;

use bevy::asset::AssetId;
use bevy::core_pipeline::core_2d::{CORE_2D_DEPTH_FORMAT, Transparent2d};
use bevy::ecs::entity::Entity;
use bevy::image::{Image, TextureAtlasLayout};
use bevy::math::FloatOrd;
use bevy::prelude::*;
use bevy::render::Extract;
use bevy::render::camera::ExtractedCamera;
use bevy::render::render_asset::ExtractedAssets;
use bevy::render::render_phase::{
    Draw, DrawError, DrawFunctions, PhaseItemExtraIndex, TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::{CachedRenderPipelineId, DefaultImageSamplerDescriptor};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::sync_world::MainEntity;
use bevy::render::texture::GpuImage;
use bevy::render::view::{ExtractedView, Msaa, RenderVisibleEntities};
use bevy::sprite::Anchor;
use layerbatch_core::{Affine2, Batcher, Config, Quad};
use layerbatch_wgpu::{PassKind, PreparedPlan, Renderer, RendererOptions};

use crate::LayerbatchSprite;
use crate::images::ImageTable;
use crate::stats::{LayerbatchFrameStats, LayerbatchStats};

/// The pass kind of a view's 2D main pass: its target format (HDR or not, a window's or an
/// image's) and sample count, with Bevy's 2D depth attachment, which layerbatch does not test
/// (sprites are sorted by z among the transparent items).
fn pass_kind(view: &ExtractedView, msaa: &Msaa) -> PassKind {
    let multisample = wgpu::MultisampleState { count: msaa.samples(), mask: !0, alpha_to_coverage_enabled: false };
    PassKind::new(view.target_format)
        .with_multisample(multisample)
        .with_depth_stencil(Some(PassKind::untested_depth(CORE_2D_DEPTH_FORMAT)))
}

/// A sprite of this frame, in world space.
struct Extracted {
    main: MainEntity,
    z: f32,
    quad: Quad,
}

/// Everything layerbatch keeps in the render world.
#[derive(Resource)]
pub(crate) struct LayerbatchRender {
    batcher: Batcher,
    images: ImageTable,
    renderer: Option<Renderer>,
    renderer_failed: bool,
    /// One per run of the frame, reused from frame to frame.
    prepared: Vec<PreparedPlan>,
    /// (view, first item of the run) -> its prepared plan.
    runs: HashMap<(Entity, MainEntity), usize>,
    sprites: Vec<Extracted>,
    run_scratch: Vec<usize>,
    frame: LayerbatchFrameStats,
    device_draws_before: u64,
    compiles_before: u64,
    /// Pass kinds the device refused (each warned once; their views draw no layerbatch sprite).
    refused_kinds: Vec<PassKind>,
    /// The views of the frame, in camera order.
    view_order: Vec<(isize, Entity)>,
    warned_device: bool,
    stats: LayerbatchStats,
}

/// Creates the batcher from the device's limits, once.
pub(crate) fn init(config: Config) -> impl FnMut(Commands<'_, '_>, Res<'_, RenderDevice>, Res<'_, LayerbatchStats>) {
    move |mut commands, device, stats| match Batcher::new(layerbatch_wgpu::device_limits(device.wgpu_device()), config)
    {
        Ok(batcher) => commands.insert_resource(LayerbatchRender {
            batcher,
            images: ImageTable::default(),
            renderer: None,
            renderer_failed: false,
            prepared: Vec::new(),
            runs: HashMap::new(),
            sprites: Vec::new(),
            run_scratch: Vec::new(),
            frame: LayerbatchFrameStats::default(),
            device_draws_before: 0,
            compiles_before: 0,
            refused_kinds: Vec::new(),
            view_order: Vec::new(),
            warned_device: false,
            stats: stats.clone(),
        }),
        Err(e) => log::error!("layerbatch: no batcher for this device, layerbatch sprites are not drawn: {e}"),
    }
}

/// ExtractSchedule, after Bevy's image extraction: held images Bevy extracted this frame
/// (modified) are updated, removed ones freed. Images not held wait for a sprite to use them.
pub(crate) fn sync_images(
    state: Option<ResMut<'_, LayerbatchRender>>,
    extracted: Res<'_, ExtractedAssets<GpuImage>>,
    sampler: Res<'_, DefaultImageSamplerDescriptor>,
) {
    let Some(mut state) = state else { return };
    let state = &mut *state;
    for &id in &extracted.removed {
        state.images.remove(&mut state.batcher, id);
    }
    for (id, image) in &extracted.extracted {
        if state.images.holds(*id) {
            state.images.put(&mut state.batcher, *id, image, &sampler.0);
        }
    }
}

/// What [`extract_sprites`] reads of a sprite entity.
type SpriteItem<'a> = (Entity, &'a LayerbatchSprite, &'a GlobalTransform, &'a Anchor, &'a ViewVisibility);

/// ExtractSchedule: the layerbatch sprites visible in some view (Bevy's visibility: hidden,
/// outside every camera's frustum or render layers, they make no quad), as world-space
/// quads. Every sprite, visible or not, keeps its image held: an image is registered when a
/// sprite first uses it (from this frame's extraction, or the main world's pixels) and freed
/// when none does.
pub(crate) fn extract_sprites(
    state: Option<ResMut<'_, LayerbatchRender>>,
    sprites: Extract<'_, '_, Query<'_, '_, SpriteItem<'_>>>,
    atlases: Extract<'_, '_, Res<'_, Assets<TextureAtlasLayout>>>,
    main_images: Extract<'_, '_, Res<'_, Assets<Image>>>,
    extracted: Res<'_, ExtractedAssets<GpuImage>>,
    sampler: Res<'_, DefaultImageSamplerDescriptor>,
) {
    let Some(mut state) = state else { return };
    let state = &mut *state;
    state.frame = LayerbatchFrameStats::default();
    state.sprites.clear();
    state.images.begin_frame();
    for (entity, sprite, transform, anchor, visible) in &sprites {
        let id: AssetId<Image> = sprite.image.id();
        let pixels = || {
            let now = extracted.extracted.iter().find(|(extracted, _)| *extracted == id).map(|(_, image)| image);
            now.or_else(|| main_images.get(id))
        };
        let used = state.images.use_image(&mut state.batcher, id, pixels, &sampler.0);
        if !visible.get() {
            continue;
        }
        match used {
            Ok(held) => state.sprites.push(Extracted {
                main: entity.into(),
                z: transform.translation().z,
                quad: sprite.world_quad((transform, anchor), sprite.source_rect(&atlases), held.texture, held.size_px),
            }),
            Err(refused) => {
                state.frame.sprites_skipped += 1;
                if refused.is_some() {
                    state.images.warn_once(id);
                }
            }
        }
    }
    state.images.release_unused(&mut state.batcher);
}

/// Queue: each sprite visible in a 2D view (its frustum and render layers, by Bevy's
/// visibility) is a `Transparent2d` item of that view, sorted by its z with Bevy's own items.
pub(crate) fn queue_sprites(
    mut visible_in_view: Local<'_, Vec<bool>>,
    state: Option<Res<'_, LayerbatchRender>>,
    draw_functions: Res<'_, DrawFunctions<Transparent2d>>,
    mut phases: ResMut<'_, ViewSortedRenderPhases<Transparent2d>>,
    views: Query<'_, '_, (&ExtractedView, &RenderVisibleEntities)>,
) {
    let Some(state) = state else { return };
    let Some(draw_function) = draw_functions.read().get_id::<DrawLayerbatch>() else { return };
    for (view, visible) in &views {
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
        phase.items.reserve(state.sprites.len());
        for (index, sprite) in state.sprites.iter().enumerate() {
            if !visible_in_view.get(sprite.main.index_u32() as usize).copied().unwrap_or(false) {
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

/// PrepareResources, after the phases are sorted: each run of consecutive layerbatch items
/// of a view becomes one layerbatch plan, prepared here; the run's first item covers the run
/// (`batch_range`), so Bevy calls the draw function once for it.
pub(crate) fn prepare_runs(
    state: Option<ResMut<'_, LayerbatchRender>>,
    device: Res<'_, RenderDevice>,
    queue: Res<'_, RenderQueue>,
    draw_functions: Res<'_, DrawFunctions<Transparent2d>>,
    mut phases: ResMut<'_, ViewSortedRenderPhases<Transparent2d>>,
    views: Query<'_, '_, (Entity, &ExtractedView, &ExtractedCamera, &Msaa)>,
) {
    let Some(mut state) = state else { return };
    let state = &mut *state;
    let Some(ours) = draw_functions.read().get_id::<DrawLayerbatch>() else { return };
    let (device, queue) = (device.wgpu_device(), &**queue);
    // The previous frame's plans were submitted before this frame's render schedule: what it
    // freed (images, glyphs) may be reused from here on, not between this frame's plans.
    state.batcher.end_frame();
    state.runs.clear();
    let mut plans = 0;
    // In camera order, as Bevy renders them: the plans' order is the passes'.
    state.view_order.clear();
    state.view_order.extend(views.iter().map(|(entity, _, camera, _)| (camera.order, entity)));
    state.view_order.sort_unstable();
    for i in 0..state.view_order.len() {
        let Ok((view_entity, view, camera, msaa)) = views.get(state.view_order[i].1) else { continue };
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else { continue };
        let Some(size) = camera.physical_viewport_size.filter(|s| s.x > 0 && s.y > 0) else { continue };
        let kind = pass_kind(view, msaa);
        // The first 2D view makes the renderer even with no layerbatch sprite yet, so that the
        // images registered meanwhile reach the device and their pixels leave the CPU.
        let has_ours = phase.items.values().any(|item| item.draw_function == ours);
        if !has_ours && state.renderer.is_some() {
            continue;
        }
        if !state.renderer_for(device, &kind) || !has_ours {
            continue;
        }
        let transform = pixels_from_world(view, size);
        let items = &mut phase.items;
        let mut i = 0;
        while i < items.len() {
            if items[i].draw_function != ours {
                i += 1;
                continue;
            }
            let start = i;
            state.run_scratch.clear();
            while i < items.len() && items[i].draw_function == ours {
                state.run_scratch.push(items[i].extracted_index);
                i += 1;
            }
            let first = &mut items[start];
            first.batch_range = 0..(i - start) as u32;
            if state.plan(device, queue, (plans, &kind), Some(transform), [size.x, size.y]) {
                state.runs.insert((view_entity, first.entity.1), plans);
            }
            plans += 1;
        }
    }
    // Textures registered or freed in a frame with nothing to draw still reach the device.
    if plans == 0 && !state.batcher.pending_ops().is_empty() {
        // Into the first prepared plan, whatever its kind (nothing is rendered from it).
        if let (None, Some(renderer)) = (state.prepared.first(), &state.renderer) {
            state.prepared.push(renderer.create_prepared());
        }
        if let Some(kind) = state.prepared.first().map(|p| p.pass_kind().clone()) {
            state.run_scratch.clear();
            state.plan(device, queue, (0, &kind), None, [1, 1]);
        }
    }
}

/// The pixels (y down, in the view's viewport) of a world point: the view's projection
/// and camera, then NDC to pixels. 2D cameras look down z, so z drops out.
fn pixels_from_world(view: &ExtractedView, size: UVec2) -> Affine2 {
    let clip_from_world =
        view.clip_from_world.unwrap_or_else(|| view.clip_from_view * view.world_from_view.to_matrix().inverse());
    let (hw, hh) = (size.x as f32 / 2.0, size.y as f32 / 2.0);
    let (x, y, w) = (clip_from_world.x_axis, clip_from_world.y_axis, clip_from_world.w_axis);
    Affine2([x.x * hw, -x.y * hh, y.x * hw, -y.y * hh, (w.x + 1.0) * hw, (1.0 - w.y) * hh])
}

impl LayerbatchRender {
    /// Whether the renderer can draw into passes of `kind`: the renderer is made with the
    /// first view's kind, and another kind's pipelines are made when a view of it first comes
    /// (an HDR camera, another MSAA setting, a window or image of another format). A kind the
    /// device refuses is warned about once; its views draw no layerbatch sprite.
    fn renderer_for(&mut self, device: &wgpu::Device, kind: &PassKind) -> bool {
        if self.refused_kinds.contains(kind) {
            return false;
        }
        let Some(renderer) = &mut self.renderer else {
            if self.renderer_failed {
                return false;
            }
            let options = RendererOptions::default()
                .with_multisample(kind.multisample)
                .with_depth_stencil(kind.depth_stencil.clone());
            return match Renderer::new(device, kind.format, self.batcher.budget(), &options) {
                Ok(renderer) => {
                    self.renderer = Some(renderer);
                    true
                }
                Err(e) => {
                    log::error!("layerbatch: no renderer for this device, layerbatch sprites are not drawn: {e}");
                    self.renderer_failed = true;
                    false
                }
            };
        };
        match renderer.make_pass_kind(device, kind) {
            Ok(_) => true,
            Err(e) => {
                log::warn!(
                    "layerbatch: views into {:?} with {} samples draw no layerbatch sprite: {e}",
                    kind.format,
                    kind.multisample.count
                );
                self.refused_kinds.push(kind.clone());
                false
            }
        }
    }

    /// Plans the sprites of `run_scratch` under `transform` and prepares the plan into
    /// prepared plan `k`, for passes of `kind`. False when the device refused it.
    fn plan(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        (k, kind): (usize, &PassKind),
        transform: Option<Affine2>,
        viewport: [u32; 2],
    ) -> bool {
        let Some(renderer) = self.renderer.as_mut() else { return false };
        while self.prepared.len() <= k {
            self.prepared.push(renderer.create_prepared_for(kind.clone()));
        }
        // Prepared plans are reused run by run, frame to frame, by whichever view comes.
        if self.prepared[k].pass_kind() != kind {
            self.prepared[k].set_pass_kind(kind.clone());
        }
        let batcher = &mut self.batcher;
        batcher.begin_frame();
        if let Some(transform) = transform {
            batcher.set_transform(transform);
        }
        for &index in &self.run_scratch {
            // A quad is refused only for coordinates that are not finite: counted in `quads_rejected`.
            let _ = batcher.push(&self.sprites[index].quad);
        }
        let plan = batcher.finish();
        match renderer.prepare(device, queue, &mut self.prepared[k], plan, viewport) {
            Ok(()) => {
                self.frame.plans += 1;
                self.frame.sprites += self.run_scratch.len() as u64;
                self.frame.counters.accumulate(&batcher.frame_counters());
                true
            }
            Err(e) => {
                if !self.warned_device {
                    log::error!(
                        "layerbatch: the device refused a plan, its textures are dropped until Bevy extracts them again: {e}"
                    );
                    self.warned_device = true;
                }
                // The renderer holds no array now and expects a rebuild; the pixels are
                // Bevy's, given once, so the textures go and their sprites are skipped.
                let lost = batcher.restore();
                for &id in &lost {
                    let _ = batcher.free(id);
                }
                self.images.forget(&lost);
                false
            }
        }
    }
}

/// After the bind groups, before the passes: how many times the `Transparent2d` phases will
/// call a draw function this frame (one per batch, as Bevy's `render_range` walks them),
/// Bevy's items and layerbatch's runs together.
pub(crate) fn count_phase_draws(
    state: Option<ResMut<'_, LayerbatchRender>>,
    phases: Res<'_, ViewSortedRenderPhases<Transparent2d>>,
) {
    let Some(mut state) = state else { return };
    let mut draws = 0;
    for phase in phases.values() {
        // As `render_range`: an item with a batch draws it and skips the rest of the batch.
        let mut skip = 0;
        for item in phase.items.values() {
            if skip > 0 {
                skip -= 1;
            } else if !item.batch_range.is_empty() {
                draws += 1;
                skip = item.batch_range.len() - 1;
            }
        }
    }
    state.frame.phase_draws = draws;
}

/// Cleanup: the frame's figures, for the main world's [`LayerbatchStats`].
pub(crate) fn publish_stats(state: Option<ResMut<'_, LayerbatchRender>>) {
    let Some(mut state) = state else { return };
    let state = &mut *state;
    let totals = state.renderer.as_ref().map(|r| r.stats().device_total);
    let (device_draws, compiles) = totals.map_or((0, 0), |t| (t.draw_calls, t.pipeline_compiles));
    state.frame.device_draw_calls = device_draws - state.device_draws_before;
    state.device_draws_before = device_draws;
    state.frame.pipeline_compiles = compiles - state.compiles_before;
    state.compiles_before = compiles;
    state.frame.pass_kinds = state.renderer.as_ref().map_or(0, |r| r.pass_kinds() as u64);
    state.frame.textures_live = state.images.live() as u64;
    state.frame.textures_refused = state.images.refused() as u64;
    state.frame.textures_registered = state.images.registered;
    state.frame.textures_updated = state.images.updated;
    state.frame.textures_freed = state.images.freed;
    state.frame.bytes_allocated = state.batcher.allocator().allocated_bytes();
    state.frame.total = state.batcher.total_counters();
    state.stats.publish(state.frame);
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
        let Some(state) = world.get_resource::<LayerbatchRender>() else { return Ok(()) };
        let (Some(&k), Some(renderer)) = (state.runs.get(&(view, item.entity.1)), &state.renderer) else {
            return Ok(());
        };
        // `wgpu_pass` drops Bevy's record of the pass's state, so Bevy's next item sets its
        // own pipeline and bind groups again.
        renderer
            .render(&state.prepared[k], pass.wgpu_pass())
            .map_err(|_| DrawError::RenderCommandFailure("layerbatch: a prepared plan of another renderer"))
    }
}
