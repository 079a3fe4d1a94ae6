//! A headless egui host on wgpu, doing per frame what eframe's wgpu painter does: run the
//! egui context, tessellate, upload egui's texture changes, `update_buffers` (which calls
//! every paint callback's `prepare`), one render pass with `egui_wgpu::Renderer::render`
//! (which calls every callback's `paint`), submit. The target is an offscreen
//! `Rgba8Unorm` texture (not sRGB, like eframe's surfaces), optionally multisampled, read back
//! after each frame.
//!
//! Used by `examples/egui_wgpu.rs` and `tests/egui_wgpu.rs`.

use super::raw_input;
pub use super::Image;
use crate::gpu;

/// The format of the target: gamma-space, like eframe's (egui-wgpu prefers `Rgba8Unorm` or
/// `Bgra8Unorm`: egui blends in gamma space).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The colour egui's pass clears to, before egui paints (opaque black).
pub const CLEAR: wgpu::Color = wgpu::Color::BLACK;

/// What to do with egui's encoder once everything is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submit {
    /// Submit it, as every normal frame does.
    Yes,
    /// Drop it unsubmitted, after the callbacks' `prepare` and `paint` ran: what eframe does
    /// when the surface turns out to be outdated or lost.
    Drop,
}

/// A wgpu device (Vulkan, e.g. lavapipe), an egui context and egui-wgpu's renderer drawing
/// into an offscreen target.
pub struct WgpuEguiHost {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// `"name (Backend)"` of the adapter.
    pub adapter: String,
    /// The egui context.
    pub ctx: egui::Context,
    /// egui-wgpu's renderer: its `callback_resources` hold what paint callbacks share.
    pub renderer: egui_wgpu::Renderer,
    /// The target's size, pixels.
    pub size_px: [u32; 2],
    /// egui's scale.
    pub pixels_per_point: f32,
    /// The multisample count of the pass (1: none).
    pub msaa_samples: u32,
    target: wgpu::Texture,
    /// The multisampled attachment, resolved into `target`, when `msaa_samples > 1`.
    msaa: Option<wgpu::TextureView>,
    frame: u64,
}

impl std::fmt::Debug for WgpuEguiHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuEguiHost")
            .field("adapter", &self.adapter)
            .field("size_px", &self.size_px)
            .finish_non_exhaustive()
    }
}

impl WgpuEguiHost {
    /// A device on wgpu's Vulkan backend (lavapipe when there is no GPU), and a `size_px`
    /// target drawn at `pixels_per_point`, with `msaa_samples` samples (egui-wgpu's
    /// `RendererOptions::msaa_samples`; 1: none).
    pub fn new(size_px: [u32; 2], pixels_per_point: f32, msaa_samples: u32) -> Result<Self, String> {
        let instance = gpu::headless_instance(wgpu::Backends::VULKAN);
        let (adapter, device, queue) = gpu::device(&instance, None)?;
        let options = egui_wgpu::RendererOptions {
            msaa_samples,
            // Dithering adds noise of its own to pixels between two 8-bit values: off, so that
            // a frame reads back the same whatever was drawn around it.
            dithering: false,
            ..Default::default()
        };
        let renderer = egui_wgpu::Renderer::new(&device, FORMAT, options);
        let target = gpu::target(&device, size_px, FORMAT);
        let msaa = (msaa_samples > 1).then(|| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("egui msaa target"),
                    size: wgpu::Extent3d { width: size_px[0], height: size_px[1], depth_or_array_layers: 1 },
                    mip_level_count: 1,
                    sample_count: msaa_samples,
                    dimension: wgpu::TextureDimension::D2,
                    format: FORMAT,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        });
        Ok(Self {
            device,
            queue,
            adapter: gpu::describe(&adapter),
            ctx: egui::Context::default(),
            renderer,
            size_px,
            pixels_per_point,
            msaa_samples: msaa_samples.max(1),
            target,
            msaa,
            frame: 0,
        })
    }

    /// The shared state of the paint callbacks, of type `T` (egui-wgpu's type map).
    pub fn resources<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        self.renderer.callback_resources.get_mut::<T>()
    }

    /// Runs one egui frame of `ui`, paints it and submits (or drops, see [`Submit`]) the
    /// encoder, then reads the target back. Any wgpu validation error is an `Err`.
    pub fn frame(&mut self, submit: Submit, ui: impl FnMut(&mut egui::Ui)) -> Result<Image, String> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.paint_frame(submit, ui);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("wgpu validation error: {e}"));
        }
        Ok(self.read())
    }

    fn paint_frame(&mut self, submit: Submit, ui: impl FnMut(&mut egui::Ui)) {
        let input = raw_input(self.size_px, self.pixels_per_point, self.frame);
        self.frame += 1;
        let output = self.ctx.run_ui(input, ui);
        let primitives = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        let screen =
            egui_wgpu::ScreenDescriptor { size_in_pixels: self.size_px, pixels_per_point: output.pixels_per_point };
        let mut textures = output.textures_delta;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.renderer.update_texture(&self.device, &self.queue, id, delta);
            }
        }

        let mut encoder = self.device.create_command_encoder(&Default::default());
        // Every callback's `prepare` (then `finish_prepare`) runs here, in paint order.
        let callback_buffers =
            self.renderer.update_buffers(&self.device, &self.queue, &mut encoder, &primitives, &screen);
        let view = self.target.create_view(&Default::default());
        let (attachment, resolve_target) = match &self.msaa {
            Some(msaa) => (msaa, Some(&view)),
            None => (&view, None),
        };
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: attachment,
                        depth_slice: None,
                        resolve_target,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Clear(CLEAR), store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                // egui-wgpu's `render` takes a `RenderPass<'static>`.
                .forget_lifetime();
            // Every callback's `paint` runs here, inside egui's pass.
            self.renderer.render(&mut pass, &primitives, &screen);
        }
        match submit {
            Submit::Yes => {
                self.queue.submit(callback_buffers.into_iter().chain([encoder.finish()]));
            }
            Submit::Drop => drop((callback_buffers, encoder)),
        }
        for id in textures.free.drain() {
            self.renderer.free_texture(&id);
        }
    }

    /// The target's pixels, once the device is done.
    pub fn read(&self) -> Image {
        let pixels = gpu::read_texture(&self.device, &self.queue, &self.target);
        Image { width: self.size_px[0], height: self.size_px[1], pixels }
    }
}
