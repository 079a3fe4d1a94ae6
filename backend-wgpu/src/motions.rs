//! Moving layers' motion textures and the motion bind group (group
//! [`layerbatch_core::shader::GROUP_MOTION`]): a [`MotionDraw`] uniform at a dynamic offset and
//! the motion texture, read by the vertex stage with `textureLoad`.
//!
//! Each moving layer has a texture (RGBA32F, a sprite a texel,
//! [`layerbatch_core::motion_texture_size`]), written by rectangles with queue writes, and a
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
        Ok(Self { layout, still, stride, span, layers: HashMap::new() })
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

    /// A queue write of a rectangle of motions: it lands at the next submit, before that
    /// submit's passes (core holds back motions of a layer a pass of the host's frame already
    /// drew until the frame ends).
    pub(crate) fn write(&self, queue: &wgpu::Queue, write: &MotionWrite<'_>) -> Result<(), Error> {
        let what = || format!("writing the motions of moving layer {:?} at {:?}", write.resident, write.rect);
        let Some((texture, _)) = self.layers.get(&write.resident) else {
            return Err(Error::Device {
                op: what(),
                message: "the renderer holds no motion texture for it".to_string(),
            });
        };
        let [x, y, w, h] = write.rect;
        let texels = w as usize * h as usize;
        let motions: &[Motion] = write
            .motions
            .get(..texels)
            .ok_or_else(|| Error::Device { op: what(), message: "fewer motions than texels".to_string() })?;
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(motions),
            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(w * Motion::BYTES), rows_per_image: Some(h) },
            wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
        );
        Ok(())
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
