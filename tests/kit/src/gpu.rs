//! wgpu plumbing shared by the offscreen target, the window and `backend-wgpu/tests/common`:
//! an adapter and device with the limits layerbatch is tested against, a clearing render pass,
//! and texture readback. The recipes of `docs/ARCHITECTURE.md` (testing without a GPU).

/// An instance on `backends` that needs no display (wgpu's GL backend then uses EGL
/// surfaceless by itself).
pub fn headless_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

/// An adapter (able to present to `surface`, if given) and a device asking for the WebGL2
/// downlevel limits at the adapter's resolution: the weakest profile layerbatch supports, so
/// every run gets the same budget whatever the adapter could do beyond it; and the texture
/// compression features the adapter has.
pub fn device(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String> {
    device_with(instance, surface, |adapter| {
        wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits())
    })
}

/// [`device`] asking for the limits `limits` gives for the adapter (`wgpu::Limits::default()`
/// for a native device's: compute and storage buffers, what the tile grids' GPU culling needs).
pub fn device_with(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
    limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: surface,
        apply_limit_buckets: false,
    }))
    .map_err(|e| format!("no adapter: {e}"))?;
    // The texture compression families the adapter has, as a host that ships compressed
    // assets asks for them (`layerbatch_wgpu::device_limits` reports what the device got).
    let compression = wgpu::Features::TEXTURE_COMPRESSION_BC
        | wgpu::Features::TEXTURE_COMPRESSION_ETC2
        | wgpu::Features::TEXTURE_COMPRESSION_ASTC;
    // Timestamps, where the adapter has them: the stress example's GPU time.
    let wanted = compression | wgpu::Features::TIMESTAMP_QUERY;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("layerbatch"),
        required_features: adapter.features() & wanted,
        required_limits: limits(&adapter),
        ..Default::default()
    }))
    .map_err(|e| format!("request_device: {e}"))?;
    Ok((adapter, device, queue))
}

/// `"name (Backend)"` of an adapter.
pub fn describe(adapter: &wgpu::Adapter) -> String {
    let info = adapter.get_info();
    format!("{} ({:?})", info.name, info.backend)
}

/// A render pass into `view`, cleared to `clear` (RGBA in 0..=1).
pub fn clear_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    clear: [f64; 4],
) -> wgpu::RenderPass<'e> {
    clear_pass_timed(encoder, view, clear, None)
}

/// [`clear_pass`] with timestamps written at its start and end ([`PassTimer::writes`]).
pub fn clear_pass_timed<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    clear: [f64; 4],
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'e> {
    let [r, g, b, a] = clear;
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("layerbatch"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Two timestamps around a render pass, resolved and read back: the device's time for the
/// pass (`TIMESTAMP_QUERY`).
#[derive(Debug)]
pub struct PassTimer {
    set: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds a tick.
    period_ns: f64,
}

impl PassTimer {
    /// A timer on `device`, or `None` when it has no `TIMESTAMP_QUERY`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("layerbatch pass timer"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |usage, label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolved = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC, "timestamps");
        let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, "timestamps read");
        Some(Self { set, resolved, readback, period_ns: f64::from(queue.get_timestamp_period()) })
    }

    /// The pass's timestamp writes: index 0 at its start, 1 at its end.
    pub fn writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Resolves the timestamps into the readback buffer, after the pass, in `encoder`.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..2, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, &self.readback, 0, 16);
    }

    /// The pass's time in milliseconds, once the submit holding [`PassTimer::resolve`] ran.
    ///
    /// # Errors
    /// When the readback cannot be mapped.
    pub fn read_ms(&self, device: &wgpu::Device) -> Result<f64, String> {
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("poll: {e}"))?;
        rx.recv().map_err(|e| e.to_string())?.map_err(|e| format!("mapping timestamps: {e}"))?;
        let ticks: [u64; 2] = {
            let view = slice.get_mapped_range().map_err(|e| format!("reading timestamps: {e}"))?;
            let mut t = [0u64; 2];
            for (k, chunk) in view.chunks_exact(8).take(2).enumerate() {
                t[k] = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            }
            t
        };
        self.readback.unmap();
        Ok(ticks[1].saturating_sub(ticks[0]) as f64 * self.period_ns / 1e6)
    }
}

/// A `size` RGBA8 texture to render into and copy out of.
pub fn target(device: &wgpu::Device, size: [u32; 2], format: wgpu::TextureFormat) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("layerbatch offscreen target"),
        size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Copies a 4-byte-per-pixel texture out and waits for it: tightly packed rows, top row first.
pub fn read_texture(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Vec<u8> {
    let (w, h) = (texture.width(), texture.height());
    // Copy rows must be 256-byte aligned.
    let bytes_per_row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("layerbatch readback"),
        size: u64::from(bytes_per_row * h),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(h),
            },
        },
        wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map readback"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let mapped = buffer.slice(..).get_mapped_range().expect("mapped range");
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for row in mapped.chunks_exact(bytes_per_row as usize) {
        px.extend_from_slice(&row[..(w * 4) as usize]);
    }
    px
}
