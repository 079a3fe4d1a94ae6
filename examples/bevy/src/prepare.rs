//! Planning: each run of consecutive layerbatch items of a view becomes one layerbatch plan,
//! prepared for the view's pass kind, in camera order.

use bevy::core_pipeline::core_2d::{CORE_2D_DEPTH_FORMAT, Transparent2d};
use bevy::ecs::entity::Entity;
use bevy::prelude::*;
use bevy::render::camera::ExtractedCamera;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{DrawFunctions, ViewSortedRenderPhases};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::texture::GpuImage;
use bevy::render::view::{ExtractedView, Msaa};
use layerbatch_core::Affine2;
use layerbatch_wgpu::{PassKind, Renderer, RendererOptions};

use crate::render::{
    DrawLayerbatch, ExtractedLayerbatchSprites, LayerbatchFrame, LayerbatchPasses, LayerbatchTextures,
};
use crate::stats::LayerbatchFrameStats;

/// The pass kind of a view's 2D main pass: its target format (HDR or not, a window's or an
/// image's) and sample count, with Bevy's 2D depth attachment, which layerbatch does not test
/// (sprites are sorted by z among the transparent items).
fn pass_kind(view: &ExtractedView, msaa: &Msaa) -> PassKind {
    let multisample = wgpu::MultisampleState { count: msaa.samples(), mask: !0, alpha_to_coverage_enabled: false };
    PassKind::new(view.target_format)
        .with_multisample(multisample)
        .with_depth_stencil(Some(PassKind::untested_depth(CORE_2D_DEPTH_FORMAT)))
}

/// PrepareResourcesBatchPhases, after the phases are sorted and batched: each run of consecutive layerbatch items
/// of a view becomes one layerbatch plan, prepared here; the run's first item covers the run
/// (`batch_range`), so Bevy calls the draw function once for it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_runs(
    mut textures: ResMut<'_, LayerbatchTextures>,
    mut passes: ResMut<'_, LayerbatchPasses>,
    extracted: Res<'_, ExtractedLayerbatchSprites>,
    mut frame: ResMut<'_, LayerbatchFrame>,
    device: Res<'_, RenderDevice>,
    queue: Res<'_, RenderQueue>,
    draw_functions: Res<'_, DrawFunctions<Transparent2d>>,
    mut phases: ResMut<'_, ViewSortedRenderPhases<Transparent2d>>,
    views: Query<'_, '_, (Entity, &ExtractedView, &ExtractedCamera, &Msaa)>,
    gpu_images: Res<'_, RenderAssets<GpuImage>>,
) {
    let Some(ours) = draw_functions.read().get_id::<DrawLayerbatch>() else { return };
    let (device, queue) = (device.wgpu_device(), &**queue);
    let mut state = Planner {
        textures: &mut textures,
        passes: &mut passes,
        sprites: &extracted,
        stats: &mut frame.stats,
        gpu_images: &gpu_images,
    };
    // The previous frame's plans were submitted before this frame's render schedule: what it
    // freed (images, glyphs) may be reused from here on, not between this frame's plans.
    state.textures.batcher.end_frame();
    state.passes.runs.clear();
    let mut plans = 0;
    // In camera order, as Bevy renders them: the plans' order is the passes'.
    let order = &mut state.passes.view_order;
    order.clear();
    order.extend(views.iter().map(|(entity, _, camera, _)| (camera.order, entity)));
    order.sort_unstable();
    for i in 0..state.passes.view_order.len() {
        let Ok((view_entity, view, camera, msaa)) = views.get(state.passes.view_order[i].1) else { continue };
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else { continue };
        let Some(size) = camera.physical_viewport_size.filter(|s| s.x > 0 && s.y > 0) else { continue };
        let kind = pass_kind(view, msaa);
        // The first 2D view makes the renderer even with no layerbatch sprite yet, so that the
        // images registered meanwhile reach the device and their pixels leave the CPU.
        let has_ours = phase.items.values().any(|item| item.draw_function == ours);
        if !has_ours && state.passes.renderer.is_some() {
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
            state.passes.run_scratch.clear();
            while i < items.len() && items[i].draw_function == ours {
                state.passes.run_scratch.push(items[i].extracted_index);
                i += 1;
            }
            let first = &mut items[start];
            first.batch_range = 0..(i - start) as u32;
            if state.plan(device, queue, (plans, &kind), Some(transform), [size.x, size.y]) {
                state.passes.runs.insert((view_entity, first.entity.1), plans);
            }
            plans += 1;
        }
    }
    // Textures registered or freed in a frame with nothing to draw still reach the device.
    if plans == 0 && !state.textures.batcher.textures().pending_ops().is_empty() {
        // Into the first prepared plan, whatever its kind (nothing is rendered from it).
        let passes = &mut *state.passes;
        if let (None, Some(renderer)) = (passes.prepared.first(), &passes.renderer) {
            passes.prepared.push(renderer.create_prepared());
        }
        if let Some(kind) = passes.prepared.first().map(|p| p.pass_kind().clone()) {
            passes.run_scratch.clear();
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

/// What planning a run borrows: the batcher, the renderer and prepared plans, the frame's
/// sprites and figures.
struct Planner<'a> {
    textures: &'a mut LayerbatchTextures,
    passes: &'a mut LayerbatchPasses,
    sprites: &'a ExtractedLayerbatchSprites,
    stats: &'a mut LayerbatchFrameStats,
    /// Bevy's textures of the render targets held as host textures.
    gpu_images: &'a RenderAssets<GpuImage>,
}

impl Planner<'_> {
    /// Whether the renderer can draw into passes of `kind`: the renderer is made with the
    /// first view's kind, and another kind's pipelines are made when a view of it first comes
    /// (an HDR camera, another MSAA setting, a window or image of another format). A kind the
    /// device refuses is warned about once; its views draw no layerbatch sprite.
    fn renderer_for(&mut self, device: &wgpu::Device, kind: &PassKind) -> bool {
        let passes = &mut *self.passes;
        if passes.refused_kinds.contains(kind) {
            return false;
        }
        let Some(renderer) = &mut passes.renderer else {
            if passes.renderer_failed {
                return false;
            }
            let options = RendererOptions::default()
                .with_multisample(kind.multisample)
                .with_depth_stencil(kind.depth_stencil.clone());
            return match Renderer::new(device, kind.format, self.textures.batcher.budget(), &options) {
                Ok(renderer) => {
                    passes.renderer = Some(renderer);
                    true
                }
                Err(e) => {
                    log::error!("layerbatch: no renderer for this device, layerbatch sprites are not drawn: {e}");
                    passes.renderer_failed = true;
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
                passes.refused_kinds.push(kind.clone());
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
        let passes = &mut *self.passes;
        let Some(renderer) = passes.renderer.as_mut() else { return false };
        while passes.prepared.len() <= k {
            passes.prepared.push(renderer.create_prepared_for(kind.clone()));
        }
        // Prepared plans are reused run by run, frame to frame, by whichever view comes.
        if passes.prepared[k].pass_kind() != kind {
            passes.prepared[k].set_pass_kind(kind.clone());
        }
        let LayerbatchTextures { batcher, images } = &mut *self.textures;
        // Bevy's texture of each render target held (made this frame, or re-made at a new
        // size): the renderer views it (or copies it, on wgpu's GL backend); those freed it
        // lets go of.
        for texture in images.freed_hosts.drain(..) {
            renderer.remove_host_texture(texture);
        }
        for (image, texture) in images.hosts() {
            let Some(gpu) = self.gpu_images.get(image) else { continue };
            if let Err(e) = renderer.set_host_texture(texture, &gpu.texture)
                && !passes.warned_device
            {
                log::error!("layerbatch: render target {image} cannot be drawn: {e}");
                passes.warned_device = true;
            }
        }
        batcher.begin_frame();
        // Tints on the sRGB curve: Bevy's colours are floats, and dark ones need the precision.
        batcher.state().set_tint_encoding(layerbatch_core::TintEncoding::Srgb);
        if let Some(transform) = transform {
            batcher.state().set_transform(transform);
        }
        for &index in &passes.run_scratch {
            // A quad is refused only for coordinates that are not finite: counted in `quads_rejected`.
            let quads = self.sprites.sprites.get(index).and_then(|s| self.sprites.quads.get(s.quads.clone()));
            let _ = batcher.push_all(quads.unwrap_or_default());
        }
        let plan = batcher.finish();
        match renderer.prepare(device, queue, &mut passes.prepared[k], plan, viewport) {
            Ok(()) => {
                self.stats.plans += 1;
                self.stats.sprites += passes.run_scratch.len() as u64;
                self.stats.counters.accumulate(&batcher.frame_counters());
                true
            }
            Err(e) => {
                if !passes.warned_device {
                    log::error!(
                        "layerbatch: the device refused a plan; its textures are dropped and registered again at their next use: {e}"
                    );
                    passes.warned_device = true;
                }
                // The renderer holds no array now and expects a rebuild: the textures go, and
                // the next use of each image registers it again from the main world's pixels.
                let lost = batcher.restore();
                for &id in &lost {
                    let _ = batcher.textures().free(id);
                }
                images.forget(&lost);
                false
            }
        }
    }
}
