//! A Bevy app without a window, rendering into `Image` targets that can be read back: what
//! the tests and the headless bevymark use. [`default_plugins`] and [`start`] are native only
//! (a browser's render device comes from a promise, and Bevy has no pipelined rendering there).

use bevy::asset::RenderAssetUsages;
use bevy::core_pipeline::core_2d::Transparent2d;
use bevy::prelude::*;
use bevy::render::RenderApp;
#[cfg(not(target_arch = "wasm32"))]
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::ViewSortedRenderPhases;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};
use bevy::render::renderer::{RenderAdapterInfo, RenderDevice, RenderQueue};
use bevy::render::texture::GpuImage;

/// Bevy's default plugins without a window, with pipelines compiled as they are asked for
/// (so the first frame draws everything, and every run draws the same frames), and with or
/// without pipelined rendering (without it, a frame is rendered and submitted when
/// `App::update` returns, which readback needs). With the `window` feature (Bevy's winit),
/// winit's plugin is left out too: it would open an event loop, off the main thread in tests.
#[cfg(not(target_arch = "wasm32"))]
pub fn default_plugins(pipelined: bool) -> bevy::app::PluginGroupBuilder {
    #[cfg(feature = "window")]
    let plugins = DefaultPlugins.build().disable::<bevy::winit::WinitPlugin>();
    #[cfg(not(feature = "window"))]
    let plugins = DefaultPlugins.build();
    let plugins = plugins
        .set(WindowPlugin { primary_window: None, exit_condition: bevy::window::ExitCondition::DontExit, ..default() })
        .set(bevy::render::RenderPlugin { synchronous_pipeline_compilation: true, ..default() });
    if pipelined { plugins } else { plugins.disable::<PipelinedRenderingPlugin>() }
}

/// Waits for the plugins (the render device is made asynchronously), then finishes them: what
/// `App::run` does before the first update.
#[cfg(not(target_arch = "wasm32"))]
pub fn start(app: &mut App) {
    while app.plugins_state() == bevy::app::PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
}

/// The render device's adapter, as "name (backend)", once [`start`] has made it.
pub fn adapter_name(app: &App) -> String {
    app.world()
        .get_resource::<RenderAdapterInfo>()
        .map_or_else(|| "no adapter".to_owned(), |info| format!("{} ({:?})", info.name, info.backend))
}

/// A `width_px` x `height_px` sRGB RGBA8 image a camera can render into and
/// [`read_image`] can read.
pub fn target_image(width_px: u32, height_px: u32) -> Image {
    let mut image = Image::new_target_texture(width_px, height_px, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    image
}

/// A solid `rgba` image (straight alpha, sRGB), `width_px` x `height_px`, kept in the main
/// world too (so it can be modified).
pub fn solid_image(width_px: u32, height_px: u32, rgba: [u8; 4]) -> Image {
    Image::new_fill(
        Extent3d { width: width_px, height: height_px, depth_or_array_layers: 1 },
        TextureDimension::D2,
        &rgba,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// The pixels of `image` as the GPU holds it now (RGBA8, rows top first) and its size, or
/// `None` when the render world has no such image. Call after `App::update` in an app
/// without pipelined rendering.
pub fn read_image(app: &mut App, image: &Handle<Image>) -> Option<(UVec2, Vec<u8>)> {
    let world = app.get_sub_app(RenderApp)?.world();
    let gpu = world.resource::<RenderAssets<GpuImage>>().get(image.id())?;
    let device = world.resource::<RenderDevice>().wgpu_device();
    let queue: &wgpu::Queue = world.resource::<RenderQueue>();
    let (w, h) = (gpu.texture.width(), gpu.texture.height());
    let row = w * 4;
    let padded = row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("layerbatch readback"),
        size: u64::from(padded) * u64::from(h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        gpu.texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: None },
        },
        wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
    let mapped = buffer.slice(..).get_mapped_range().ok()?;
    let mut pixels = Vec::with_capacity((row * h) as usize);
    for y in 0..h as usize {
        pixels.extend_from_slice(&mapped[y * padded as usize..][..row as usize]);
    }
    Some((UVec2::new(w, h), pixels))
}

/// The draw calls Bevy makes for `phases` (each view's `Transparent2d` phase), counted as its
/// `render_range` draws a sorted phase: an item with a batch draws it and skips the rest of the
/// batch. Run it in the render world after `RenderSystems::PrepareBindGroups` (batches made),
/// before `RenderSystems::Render`.
pub fn transparent_2d_draws(phases: &ViewSortedRenderPhases<Transparent2d>) -> u64 {
    let mut draws = 0;
    for phase in phases.values() {
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
    draws
}
