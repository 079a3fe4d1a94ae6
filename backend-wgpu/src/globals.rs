//! The globals uniforms: per plan, one [`GlobalsEntry`] per draw state (the viewport size,
//! the state's transform and tint), each at a dynamic offset, so that a segment changes state with
//! one `set_bind_group`.
//!
//! Each space of a prepared plan has its own uniform (see [`crate::prepared`]): queue writes
//! run at the next submit, the last write to a range winning, so no two plans of one submit
//! may share one. A uniform is reused plan to plan; it grows (to a power of two entries) only
//! when a plan has more states than it holds.

use layerbatch_core::plan::DrawState;
use layerbatch_core::{FramePlan, Viewport};
use wgpu::util::DeviceExt as _;

use crate::scope::{checked, Late};
use crate::Error;
use layerbatch_core::shader::{lights_bytes, lights_uniform, GlobalsEntry, GLOBALS_BYTES};

/// The ramp's binding in the globals group.
pub(crate) use layerbatch_core::shader::RAMP_BINDING;

/// One uniform buffer of entries and its bind group: a space's.
#[derive(Debug)]
pub(crate) struct Uniform {
    buffer: wgpu::Buffer,
    group: wgpu::BindGroup,
    /// Entries `buffer` holds.
    entries: usize,
    /// The bytes last written into `buffer` (empty: nothing written yet): an unchanged
    /// frame writes nothing.
    written: Vec<u8>,
    /// The lights' bytes last written, after the entries (lit renderers only).
    written_lights: Vec<u8>,
}

impl Uniform {
    /// The bind group of the uniform, bound at a dynamic offset per draw state.
    pub(crate) fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// The uniform's buffer (the grid culling pass binds it too).
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

/// The globals bind group layout, and what writing a plan's entries takes.
#[derive(Debug)]
pub(crate) struct Globals {
    layout: wgpu::BindGroupLayout,
    /// Bytes between two entries: [`GLOBALS_BYTES`] rounded up to the device's
    /// `min_uniform_buffer_offset_alignment`.
    stride: u64,
    /// The most draw states one plan may hold: `max_buffer_size / stride`.
    max_states: usize,
    /// The bytes of the plan being written (reused: no allocation per frame).
    scratch: Vec<u8>,
    /// Lights a frame has (0: not lit); their uniform follows the entries in each uniform's
    /// buffer, bound at binding 1.
    lights: u32,
    /// The lights' bytes of the plan being written.
    scratch_lights: Vec<u8>,
    /// The ramp ([`layerbatch_core::Budget::ramp`]) and its view, bound at binding 2.
    ramp: Option<(wgpu::Texture, wgpu::TextureView)>,
}

impl Globals {
    /// The layout, and the ramp texture when `ramp` (transparent black: wgpu zeroes new
    /// textures); the uniforms come with the spaces that hold them.
    pub(crate) fn new(device: &wgpu::Device, late: &Late, lights: u32, ramp: bool) -> Result<Self, Error> {
        let limits = device.limits();
        let stride = GLOBALS_BYTES.next_multiple_of(u64::from(limits.min_uniform_buffer_offset_alignment.max(1)));
        let layout = checked(
            device,
            late,
            || "creating the globals bind group layout".to_string(),
            || {
                let entries = [
                    wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::VERTEX,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: wgpu::BufferSize::new(GLOBALS_BYTES),
                        },
                        count: None,
                    },
                    wgpu::BindGroupLayoutEntry {
                        binding: 1,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: false,
                            min_binding_size: wgpu::BufferSize::new(lights_bytes(lights)),
                        },
                        count: None,
                    },
                    wgpu::BindGroupLayoutEntry {
                        binding: RAMP_BINDING,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Texture {
                            // Read with textureLoad: no sampler, no filtering.
                            sample_type: wgpu::TextureSampleType::Float { filterable: false },
                            view_dimension: wgpu::TextureViewDimension::D2Array,
                            multisampled: false,
                        },
                        count: None,
                    },
                ];
                let used = [true, lights > 0, ramp];
                let entries: Vec<_> = entries.into_iter().zip(used).filter(|(_, u)| *u).map(|(e, _)| e).collect();
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("layerbatch globals"),
                    entries: &entries,
                })
            },
        )?;
        let ramp = if ramp {
            let texture = checked(
                device,
                late,
                || "creating the ramp texture".to_string(),
                || {
                    device.create_texture(&wgpu::TextureDescriptor {
                        label: Some("layerbatch ramp"),
                        size: wgpu::Extent3d {
                            width: layerbatch_core::RAMP_WIDTH_PX,
                            height: layerbatch_core::RAMP_ROWS,
                            // Two layers, the second never written: the shader reads a
                            // `texture_2d_array`, and wgpu's GL backend makes a one-layer
                            // texture a GL_TEXTURE_2D, which no array view can sample.
                            depth_or_array_layers: 2,
                        },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                        view_formats: &[],
                    })
                },
            )?;
            // Viewed as an array: the shader reads layer 0 of a `texture_2d_array` on every backend.
            let view = texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            });
            Some((texture, view))
        } else {
            None
        };
        Ok(Self {
            layout,
            stride,
            max_states: (limits.max_buffer_size / stride).min(u64::from(u32::MAX)) as usize,
            scratch: Vec::new(),
            lights,
            scratch_lights: Vec::new(),
            ramp,
        })
    }

    /// The ramp texture, if the budget has one.
    pub(crate) fn ramp(&self) -> Option<&wgpu::Texture> {
        self.ramp.as_ref().map(|(t, _)| t)
    }

    /// The globals bind group layout (group [`layerbatch_core::shader::GROUP_GLOBALS`]).
    pub(crate) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// The most draw states one plan may hold.
    pub(crate) fn max_states(&self) -> usize {
        self.max_states
    }

    /// The dynamic offset of a plan's draw state `state`: its entry, or entry 0 (the
    /// default state) for a state past the plan's own (a hand-made plan without any).
    pub(crate) fn offset(&self, plan: &FramePlan, state: u32) -> u32 {
        let entry = if (state as usize) < plan.states.len() { u64::from(state) } else { 0 };
        (entry * self.stride) as u32
    }

    /// Writes `plan`'s entries (the visible viewport's size, and each draw state's transform
    /// moved into `vp`) into a space's `uniform`, creating it, or replacing it when it holds
    /// too few. Writes nothing when the bytes are those last written.
    pub(crate) fn write(
        &mut self,
        (device, queue, late): (&wgpu::Device, &wgpu::Queue, &Late),
        uniform: &mut Option<Uniform>,
        plan: &FramePlan,
        vp: &Viewport,
    ) -> Result<(), Error> {
        let entries = plan.states.len().max(1);
        let stride = self.stride;
        if uniform.as_ref().is_none_or(|u| u.entries < entries) {
            // A first uniform fits its plan; a grown one leaves room for more.
            let room = if uniform.is_none() { entries } else { entries.next_power_of_two() };
            let made = checked(
                device,
                late,
                || format!("creating a globals uniform ({room} draw states)"),
                || {
                    create_uniform(
                        device,
                        &self.layout,
                        (stride, room),
                        self.lights,
                        self.ramp.as_ref().map(|(_, v)| v),
                    )
                },
            )?;
            *uniform = Some(made);
        }
        let size_px = vp.visible_px().map_or([1, 1], |[_, _, w, h]| [w, h]);
        let bytes = &mut self.scratch;
        bytes.clear();
        bytes.resize(entries * stride as usize, 0);
        for (i, chunk) in bytes.chunks_exact_mut(stride as usize).enumerate() {
            let state = plan.states.get(i).copied().unwrap_or_default();
            let entry = GlobalsEntry::new(size_px, vp.transform(state.transform), state.tint, plan.time_s)
                .with_look(state.look, state.look_params);
            chunk[..GLOBALS_BYTES as usize].copy_from_slice(bytemuck::bytes_of(&entry));
        }
        let Some(uniform) = uniform.as_mut() else { return Ok(()) };
        if uniform.written != *bytes {
            checked(
                device,
                late,
                || "writing the viewport and draw states".to_string(),
                || queue.write_buffer(&uniform.buffer, 0, bytes),
            )?;
            uniform.written.clone_from(bytes);
        }
        if self.lights > 0 {
            // Lights move into the visible viewport with the quads.
            let [.., dx, dy] = vp.transform(DrawState::IDENTITY);
            lights_uniform(&mut self.scratch_lights, plan, self.lights, [dx, dy]);
            if uniform.written_lights != self.scratch_lights {
                let at = uniform.entries as u64 * stride;
                checked(
                    device,
                    late,
                    || "writing the lights".to_string(),
                    || queue.write_buffer(&uniform.buffer, at, &self.scratch_lights),
                )?;
                uniform.written_lights.clone_from(&self.scratch_lights);
            }
        }
        Ok(())
    }
}

/// A uniform of `entries` entries `stride` bytes apart (each a 1 x 1 px viewport and the
/// identity until written) and its bind group, bound at a dynamic offset.
fn create_uniform(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    (stride, entries): (u64, usize),
    lights: u32,
    ramp: Option<&wgpu::TextureView>,
) -> Uniform {
    let entries = entries.max(1);
    // The lights follow the entries (at a multiple of the stride: an aligned offset).
    let lights_bytes = if lights > 0 { lights_bytes(lights) } else { 0 };
    let mut contents = vec![0u8; entries * stride as usize + lights_bytes as usize];
    let identity = GlobalsEntry::new([1, 1], DrawState::IDENTITY, DrawState::WHITE, 0.0);
    for chunk in contents.chunks_exact_mut(stride as usize) {
        chunk[..GLOBALS_BYTES as usize].copy_from_slice(bytemuck::bytes_of(&identity));
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("layerbatch globals"),
        contents: &contents,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    });
    let mut bindings = vec![
        wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &buffer,
                offset: 0,
                size: wgpu::BufferSize::new(GLOBALS_BYTES),
            }),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &buffer,
                offset: entries as u64 * stride,
                size: wgpu::BufferSize::new(lights_bytes),
            }),
        },
    ];
    if lights == 0 {
        bindings.pop();
    }
    if let Some(view) = ramp {
        bindings
            .push(wgpu::BindGroupEntry { binding: RAMP_BINDING, resource: wgpu::BindingResource::TextureView(view) });
    }
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("layerbatch globals"),
        layout,
        entries: &bindings,
    });
    Uniform { buffer, group, entries, written: Vec::new(), written_lights: Vec::new() }
}
