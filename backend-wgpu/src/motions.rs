//! Moving layers' motion textures and the motion bind group (group
//! [`layerbatch_core::shader::GROUP_MOTION`]): a [`MotionDraw`] uniform at a dynamic offset and
//! the motion texture, read by the vertex stage with `textureLoad`.
//!
//! Each moving layer has a texture (RGBA32F, a sprite a texel,
//! [`layerbatch_core::motion_texture_size`]), written by rectangles through staging buffers, and a
//! group of its own whose uniform holds one [`MotionDraw`] per base a draw of it can start
//! from (0, and with indexed quads each multiple of the instance capacity: wgpu counts a
//! draw's instance and vertex indices from there). Draws of the plan's own instances and of
//! layers that do not move bind the still group: [`MotionDraw::STILL`] and a 1x1 placeholder.

use std::collections::HashMap;

use layerbatch_core::plan::MotionWrite;
use layerbatch_core::shader::{MotionDraw, MOTION_DRAW_BINDING, MOTION_TEXELS_BINDING};
use layerbatch_core::{Budget, Motion, ResidentId};
use wgpu::util::DeviceExt as _;

use crate::scope::{checked, Late};
use crate::Error;

/// Bytes of one [`MotionDraw`].
const DRAW_BYTES: u64 = 16;

/// Bytes of a staging belt chunk: 65,536 motions (a larger write gets a chunk of its size).
const BELT_CHUNK_BYTES: u64 = 1 << 20;

/// The motion group layout, the still group, and every moving layer's texture and group.
#[derive(Debug)]
pub(crate) struct Motions {
    layout: wgpu::BindGroupLayout,
    still: wgpu::BindGroup,
    /// Bytes between two [`MotionDraw`]s: `min_uniform_buffer_offset_alignment`.
    stride: u64,
    /// Sprites a draw's indices count from past its base: the instance capacity with indexed
    /// quads; with instanced ones every draw's base is 0.
    span: Option<u32>,
    layers: HashMap<ResidentId, (wgpu::Texture, wgpu::BindGroup)>,
    /// Mapped buffers the motions are copied into, reused once the GPU has copied them out
    /// (fresh memory each frame would cost the kernel a page fault and a zeroing per 4 KiB):
    /// about the largest plan's motion bytes for each plan in flight.
    belt: wgpu::util::StagingBelt,
}

impl Motions {
    /// The layout and the still group, for a renderer of `budget`.
    pub(crate) fn new(device: &wgpu::Device, late: &Late, budget: &Budget) -> Result<Self, Error> {
        let stride = u64::from(device.limits().min_uniform_buffer_offset_alignment.max(1)).max(DRAW_BYTES);
        let layout = checked(
            device,
            late,
            || "creating the motion bind group layout".to_string(),
            || {
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("layerbatch motion"),
                    entries: &[
                        wgpu::BindGroupLayoutEntry {
                            binding: MOTION_DRAW_BINDING,
                            visibility: wgpu::ShaderStages::VERTEX,
                            ty: wgpu::BindingType::Buffer {
                                ty: wgpu::BufferBindingType::Uniform,
                                has_dynamic_offset: true,
                                min_binding_size: wgpu::BufferSize::new(DRAW_BYTES),
                            },
                            count: None,
                        },
                        wgpu::BindGroupLayoutEntry {
                            binding: MOTION_TEXELS_BINDING,
                            visibility: wgpu::ShaderStages::VERTEX,
                            ty: wgpu::BindingType::Texture {
                                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                                view_dimension: wgpu::TextureViewDimension::D2,
                                multisampled: false,
                            },
                            count: None,
                        },
                    ],
                })
            },
        )?;
        let span = budget.indexed_quads.then_some(budget.instance_capacity.max(1));
        let still = checked(
            device,
            late,
            || "creating the still motion group".to_string(),
            || group(device, (&layout, stride), &motion_texture(device, [1, 1]), &[MotionDraw::STILL]),
        )?;
        let belt = wgpu::util::StagingBelt::new(device.clone(), BELT_CHUNK_BYTES);
        Ok(Self { layout, still, stride, span, layers: HashMap::new(), belt })
    }

    /// The layout of group [`layerbatch_core::shader::GROUP_MOTION`].
    pub(crate) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// The group and dynamic offset of a draw from resident `resident`'s `base` (the still
    /// group for a layer that does not move), or of the plan's own instances (`None`).
    pub(crate) fn for_draw(&self, source: Option<(ResidentId, u32)>) -> (&wgpu::BindGroup, u32) {
        let Some((resident, base)) = source else { return (&self.still, 0) };
        match self.layers.get(&resident) {
            Some((_, group)) => {
                let entry = self.span.map_or(0, |span| base / span);
                (group, (u64::from(entry) * self.stride) as u32)
            }
            None => (&self.still, 0),
        }
    }

    /// Makes `resident`'s motion texture, `size` texels, and its group.
    pub(crate) fn create(
        &mut self,
        (device, late): (&wgpu::Device, &Late),
        resident: ResidentId,
        size: [u32; 2],
    ) -> Result<(), Error> {
        let sprites = size[0] * size[1];
        // One entry per base a draw can start from.
        let draws: Vec<MotionDraw> = match self.span {
            Some(span) => (0..sprites.div_ceil(span).max(1)).map(|k| MotionDraw::moving(k * span, true)).collect(),
            None => vec![MotionDraw::moving(0, false)],
        };
        let what =
            || format!("creating the motion texture of moving layer {resident:?} ({}x{} texels)", size[0], size[1]);
        let (texture, group) = checked(device, late, what, || {
            let texture = motion_texture(device, size);
            let group = group(device, (&self.layout, self.stride), &texture, &draws);
            (texture, group)
        })?;
        self.layers.insert(resident, (texture, group));
        Ok(())
    }

    /// Writes a rectangle of motions: copied once, with core's check
    /// ([`MotionWrite::copy_checked`]: this renderer's limits stage motion writes), into
    /// mapped memory of the staging belt, then copied into the texture by a command of the
    /// renderer's own encoder (submitted by `prepare`, before the host's passes: core holds
    /// back motions of a layer a pass of the host's frame already drew until the frame
    /// ends). Returns the motions the check replaced. (`Queue::write_texture` would copy the
    /// motions into fresh staging memory of wgpu's own, after core had read them all once
    /// more to check them.)
    pub(crate) fn write(&mut self, encoder: &mut wgpu::CommandEncoder, write: &MotionWrite<'_>) -> Result<u64, Error> {
        let what = || format!("writing the motions of moving layer {:?} at {:?}", write.resident, write.rect);
        let Some((texture, _)) = self.layers.get(&write.resident) else {
            return Err(Error::Device {
                op: what(),
                message: "the renderer holds no motion texture for it".to_string(),
            });
        };
        let [x, y, w, h] = write.rect;
        let texels = w as usize * h as usize;
        let motions = write
            .motions
            .get(..texels)
            .ok_or_else(|| Error::Device { op: what(), message: "fewer motions than texels".to_string() })?;
        let write = MotionWrite { motions, ..*write };
        // Rows of a buffer-to-texture copy are 256-byte aligned: a rectangle of several rows is
        // whole rows of MOTION_ROW_TEXELS (16 KiB each); a partial row is one row.
        let row_bytes = u64::from(w) * u64::from(Motion::BYTES);
        let padded_row = row_bytes.next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT));
        let (Some(size), Some(align)) = (
            wgpu::BufferSize::new(row_bytes * u64::from(h)),
            wgpu::BufferSize::new(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)),
        ) else {
            return Ok(0);
        };
        if h > 1 && padded_row != row_bytes {
            return Err(Error::Device { op: what(), message: format!("rows of {row_bytes} bytes are not aligned") });
        }
        let slice = self.belt.allocate(size, align);
        let rejected = {
            let mut view =
                slice.get_mapped_range_mut().map_err(|e| Error::Device { op: what(), message: e.to_string() })?;
            let mut rest = view.slice(..);
            write.copy_checked(|bytes| {
                if let Some(mut head) = rest.split_off(..bytes.len()) {
                    head.copy_from_slice(bytes);
                }
            })
        };
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer: slice.buffer(),
                layout: wgpu::TexelCopyBufferLayout {
                    offset: slice.offset(),
                    bytes_per_row: Some(padded_row as u32),
                    rows_per_image: Some(h),
                },
            },
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
        );
        Ok(rejected)
    }

    /// Before the renderer's own encoder is finished and submitted: the belt's buffers written
    /// into it are unmapped, and mapped again for reuse once that submission is done.
    pub(crate) fn close(&mut self, encoder: &wgpu::CommandEncoder) {
        self.belt.finish_and_recall_on_submit(encoder);
    }

    /// Drops `resident`'s texture and group (wgpu keeps them until the commands using them
    /// are done).
    pub(crate) fn destroy(&mut self, resident: ResidentId) {
        self.layers.remove(&resident);
    }

    /// Drops every layer's.
    pub(crate) fn drop_all(&mut self) {
        self.layers.clear();
    }
}

/// A motion group of `texture` and a uniform of `draws`, one a stride.
fn group(
    device: &wgpu::Device,
    (layout, stride): (&wgpu::BindGroupLayout, u64),
    texture: &wgpu::Texture,
    draws: &[MotionDraw],
) -> wgpu::BindGroup {
    let mut bytes = vec![0u8; draws.len() * stride as usize];
    for (k, d) in draws.iter().enumerate() {
        let at = k * stride as usize;
        bytes[at..at + DRAW_BYTES as usize].copy_from_slice(bytemuck::cast_slice(&d.0));
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("layerbatch motion draws"),
        contents: &bytes,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("layerbatch motion"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: MOTION_DRAW_BINDING,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(DRAW_BYTES),
                }),
            },
            wgpu::BindGroupEntry {
                binding: MOTION_TEXELS_BINDING,
                resource: wgpu::BindingResource::TextureView(&view),
            },
        ],
    })
}

/// An RGBA32F texture of `size` texels for motions.
fn motion_texture(device: &wgpu::Device, size: [u32; 2]) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("layerbatch motions"),
        size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}
